// SPDX-License-Identifier: LGPL-2.1
/*
 * Lifecycle of the tracefs instance trace-cmd ustack records into.
 *
 * trace-cmd removes its instances only on the normal path; a failure or a
 * second ^C leaves them behind. Here ustack_instance_teardown() may be
 * called on every exit path, from a signal handler too: it only closes,
 * writes and removes. A file we changed in an instance we did not create
 * (-B) is written back to its old value.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <tracefs.h>

#include "ustack-err.h"
#include "ustack-formats.h"
#include "ustack-instance.h"
#include "ustack-stopsig.h"
#include "ustack-list.h"
#include "ustack-proc.h"

#define MAX_FDS		256

/* A CPU's stats file not opened yet, or read by its path each time */
#define STATS_UNOPENED	-1
#define STATS_BY_PATH	-2

struct saved_file {
	struct ustack_list	list;
	char			*path;		/* absolute */
	char			*old;		/* content to write back */
};

struct ustack_instance {
	struct tracefs_instance	*inst;
	char			*dir;
	char			*name;
	bool			is_new;
	struct ustack_list	saved;
	int			fds[MAX_FDS];
	int			nr_fds;
	struct ustack_rb_stats	*base;		/* each CPU's at open */
	int			*stats_fd;	/* each CPU's stats file (stats_fd()) */
	int			nr_cpus;
	dev_t			dev;		/* tracefs's, for ustack_instance_abandon() */
	volatile sig_atomic_t	torn_down;
};

/**
 * ustack_instance_tracefs_check - make sure tracefs is usable
 *
 * Honours $TRACEFS_DIR. Returns 0, or a negative code for
 * ustack_instance_tracefs_strerror(): USTACK_ERR_TRACEFS_DIR, USTACK_ERR_NO_TRACEFS,
 * or -errno when its instances/ directory is not writable.
 */
int ustack_instance_tracefs_check(void)
{
	const char *env = getenv("TRACEFS_DIR");
	const char *dir;
	char path[PATH_MAX];
	struct stat st;

	if (env && *env) {
		snprintf(path, sizeof(path), "%s/instances", env);
		if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
			return USTACK_ERR_TRACEFS_DIR;
		tracefs_set_tracing_dir((char *)env);
	}
	dir = tracefs_tracing_dir();
	if (!dir)
		return USTACK_ERR_NO_TRACEFS;
	snprintf(path, sizeof(path), "%s/instances", dir);
	if (access(path, W_OK) < 0)
		return -errno;
	return 0;
}

/**
 * ustack_instance_tracefs_strerror - the one-line reason tracefs is not usable
 * @err:	what ustack_instance_tracefs_check() returned
 * @buf:	where to write it
 * @size:	room in @buf
 *
 * Returns @buf.
 */
const char *ustack_instance_tracefs_strerror(int err, char *buf, size_t size)
{
	const char *dir;

	switch (err) {
	case USTACK_ERR_TRACEFS_DIR:
		snprintf(buf, size, "no tracefs at %s (TRACEFS_DIR)", getenv("TRACEFS_DIR"));
		break;
	case USTACK_ERR_NO_TRACEFS:
		snprintf(buf, size,
			 "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
		break;
	default:
		dir = tracefs_tracing_dir();
		snprintf(buf, size, "cannot create instances in %s/instances: %s",
			 dir ? dir : "tracefs", ustack_err_strerror(err));
	}
	return buf;
}

/* Async-signal-safe: used from the emergency path too. */
static int write_file(const char *path, const char *val, bool trunc)
{
	size_t len = strlen(val);
	ssize_t r;
	int fd;

	fd = open(path, O_WRONLY | (trunc ? O_TRUNC : 0));
	if (fd < 0)
		return -1;
	r = write(fd, val, len);
	if (r < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

static char *instance_path(struct ustack_instance *ui, const char *file)
{
	char *p;

	if (asprintf(&p, "%s/%s", ui->dir, file) < 0)
		return NULL;
	return p;
}

/*
 * What to write to restore a file given what reading it returned: filters
 * read back as "none", pid lists as one pid per line, the clock as a list
 * with the current one in brackets.
 */
static char *restore_value(const char *file, const char *old)
{
	const char *b, *e;

	if (strstr(file, "/filter") && !strncmp(old, "none", 4))
		return strdup("0");
	if (!strcmp(file, "trace_clock") && (b = strchr(old, '[')) && (e = strchr(b, ']')))
		return strndup(b + 1, e - b - 1);
	return strdup(old);
}

static int save_file(struct ustack_instance *ui, const char *file, const char *path)
{
	struct saved_file *sf;
	struct ustack_list *pos;
	char *old;

	/* A new instance is removed at the end: nothing to restore. */
	if (ui->is_new)
		return 0;
	ustack_list_for_each(pos, &ui->saved) {
		sf = ustack_list_entry(pos, struct saved_file, list);
		if (!strcmp(sf->path, path))
			return 0;
	}
	old = ustack_proc_read_file(path, NULL);
	if (!old)
		return -1;
	sf = calloc(1, sizeof(*sf));
	if (!sf) {
		free(old);
		return -1;
	}
	sf->path = strdup(path);
	sf->old = restore_value(file, old);
	free(old);
	/* Restored newest first, as a stack of changes is undone */
	ustack_list_add(&sf->list, &ui->saved);
	return 0;
}

/* Write @file of the instance, its old value saved first when @keep */
static int write_instance_file(struct ustack_instance *ui, const char *file, const char *val,
			       bool keep)
{
	char *path = instance_path(ui, file);
	int ret = 0;

	if (!path)
		return -1;
	if (keep)
		ret = save_file(ui, file, path);
	if (!ret)
		ret = write_file(path, val, true);
	free(path);
	return ret;
}

/**
 * ustack_instance_write - write a file of the instance, keeping the old value
 * @ui: the instance
 * @file: path relative to the instance directory
 * @val: what to write (the file is truncated)
 *
 * Returns 0 or -1 with errno set by the kernel.
 */
int ustack_instance_write(struct ustack_instance *ui, const char *file, const char *val)
{
	return write_instance_file(ui, file, val, true);
}

/**
 * ustack_instance_trigger - write a file that acts, and holds no state
 * @ui: the instance
 * @file: the file (such as user_unwind_maps), relative to the instance
 * @val: what to write
 *
 * Nothing to save or restore: such a file is write-only, and writing
 * back what it "held" would act again. Returns 0, or -1 with errno.
 */
int ustack_instance_trigger(struct ustack_instance *ui, const char *file, const char *val)
{
	return write_instance_file(ui, file, val, false);
}

/**
 * ustack_instance_subbuf_size - bytes in each sub-buffer of the instance
 * @ui: the instance
 *
 * What its readers must read at a time and what a trace.dat of it calls
 * its page size. Returns 0 when the kernel has no buffer_subbuf_size_kb
 * (before 6.8): every instance then has the top-level header page's.
 */
int ustack_instance_subbuf_size(struct ustack_instance *ui)
{
	char *buf = tracefs_instance_file_read(ui->inst, "buffer_subbuf_size_kb", NULL);
	unsigned long kb;

	if (!buf)
		return 0;
	kb = strtoul(buf, NULL, 10);
	free(buf);
	return kb && kb <= INT_MAX / 1024 ? (int)kb * 1024 : 0;
}

/**
 * ustack_instance_raise_subbuf - sub-buffers of at least @bytes
 * @ui:		the instance
 * @bytes:	what one sub-buffer must hold, its header included
 *
 * Before tracing: the kernel drops what the buffer holds when the size
 * changes. Sub-buffers already that big are left alone; the kernel takes
 * the size up to a power of two pages. An instance of -B gets its own
 * size back at the end, as every file written here.
 *
 * Returns 0, or -1 with errno (ENOENT: the kernel has no
 * buffer_subbuf_size_kb; EINVAL: more than it allows; EBUSY: the buffer
 * is mapped by a reader).
 */
int ustack_instance_raise_subbuf(struct ustack_instance *ui, unsigned int bytes)
{
	int now = ustack_instance_subbuf_size(ui);
	char val[16];

	if (!now) {
		errno = ENOENT;
		return -1;
	}
	if ((unsigned int)now >= bytes)
		return 0;
	snprintf(val, sizeof(val), "%u", (bytes + 1023) / 1024);
	if (ustack_instance_write(ui, "buffer_subbuf_size_kb", val) < 0)
		return -1;
	if ((unsigned int)ustack_instance_subbuf_size(ui) < bytes) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

bool ustack_instance_has_option(struct ustack_instance *ui, const char *name)
{
	char file[256];

	snprintf(file, sizeof(file), "options/%s", name);
	return tracefs_file_exists(ui->inst, file);
}

int ustack_instance_set_option(struct ustack_instance *ui, const char *name, bool on)
{
	char file[256];

	if (!ustack_instance_has_option(ui, name)) {
		errno = ENOENT;
		return -1;
	}
	snprintf(file, sizeof(file), "options/%s", name);
	return ustack_instance_write(ui, file, on ? "1" : "0");
}

static int enable_one(struct ustack_instance *ui, const char *sys, const char *ev,
		      const char *filter)
{
	char file[512];

	if (filter) {
		snprintf(file, sizeof(file), "events/%s/%s/filter", sys, ev);
		if (ustack_instance_write(ui, file, filter) < 0) {
			errno = EINVAL;
			return -1;
		}
	}
	snprintf(file, sizeof(file), "events/%s/%s/enable", sys, ev);
	return ustack_instance_write(ui, file, "1");
}

/* Edit distance of @a and @b (insertions, deletions, substitutions) */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, diag, up, *row;
	size_t d;

	row = malloc((lb + 1) * sizeof(*row));
	if (!row)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			d = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < d)
				d = up + 1;
			if (row[j - 1] + 1 < d)
				d = row[j - 1] + 1;
			row[j] = d;
			diag = up;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

/* Keeps @cand in @best when it is nearer to @want than what is there */
static void nearer(const char *want, const char *cand, char **best, size_t *best_d)
{
	size_t d = distance(want, cand);

	if (d >= *best_d)
		return;
	free(*best);
	*best = strdup(cand);
	*best_d = *best ? d : SIZE_MAX;
}

/**
 * ustack_instance_event_suggest - the event name nearest to one that does not exist
 * @system:	the system asked for (no pattern)
 * @event:	the event asked for, or NULL for a whole system
 *
 * For "did you mean": the "system:event" (or system) of tracefs within a
 * few typing errors of what was asked, so that a typo gets its fix and a
 * name far from any gets nothing. Patterns get nothing either.
 *
 * Returns a string to free, or NULL.
 */
char *ustack_instance_event_suggest(const char *system, const char *event)
{
	char **systems, **events, *want, *cand, *best = NULL;
	size_t best_d, i, j;

	if (ustack_is_glob(system) || (event && ustack_is_glob(event)))
		return NULL;
	if (asprintf(&want, "%s%s%s", system, event ? ":" : "", event ? event : "") < 0)
		return NULL;
	/* up to a third of the name (at least 1, at most 4) edits away */
	best_d = strlen(want) / 3 + 2;
	if (best_d > 5)
		best_d = 5;
	systems = tracefs_event_systems(NULL);
	for (i = 0; systems && systems[i]; i++) {
		if (!event) {
			nearer(want, systems[i], &best, &best_d);
			continue;
		}
		events = tracefs_system_events(NULL, systems[i]);
		for (j = 0; events && events[j]; j++) {
			if (asprintf(&cand, "%s:%s", systems[i], events[j]) < 0)
				break;
			nearer(want, cand, &best, &best_d);
			free(cand);
		}
		tracefs_list_free(events);
	}
	tracefs_list_free(systems);
	free(want);
	return best;
}

/**
 * ustack_instance_enable_event - enable events matching shell patterns
 * @ui: the instance
 * @system: system name or pattern ("sched", "sys*")
 * @event: event name or pattern, NULL for every event of the system
 * @filter: filter for each matching event, or NULL
 *
 * Returns 0, or -1 with errno ENOENT when nothing matched, EINVAL when the
 * kernel refused the filter.
 */
int ustack_instance_enable_event(struct ustack_instance *ui, const char *system,
				 const char *event, const char *filter)
{
	char **systems, **events;
	int found = 0;
	int ret = 0;
	int i, j;

	/* Named outright: no listing (a readdir and allocations per entry) */
	if (event && !ustack_is_glob(system) && !ustack_is_glob(event)) {
		if (!tracefs_event_file_exists(ui->inst, system, event, "enable")) {
			errno = ENOENT;
			return -1;
		}
		return enable_one(ui, system, event, filter);
	}
	systems = tracefs_event_systems(NULL);
	if (!systems) {
		errno = ENOENT;
		return -1;
	}
	for (i = 0; systems[i] && !ret; i++) {
		if (fnmatch(system, systems[i], 0))
			continue;
		events = tracefs_system_events(NULL, systems[i]);
		for (j = 0; events && events[j] && !ret; j++) {
			if (event && fnmatch(event, events[j], 0))
				continue;
			found++;
			ret = enable_one(ui, systems[i], events[j], filter);
		}
		tracefs_list_free(events);
	}
	tracefs_list_free(systems);
	if (!ret && !found) {
		errno = ENOENT;
		ret = -1;
	}
	return ret;
}

int ustack_instance_add_pid(struct ustack_instance *ui, pid_t pid, bool notrace)
{
	const char *file = notrace ? "set_event_notrace_pid" : "set_event_pid";
	char *path = instance_path(ui, file);
	char val[32];
	int ret;

	if (!path)
		return -1;
	ret = save_file(ui, file, path);
	snprintf(val, sizeof(val), "%d", pid);
	/* No O_TRUNC: the kernel appends to the pid list. */
	if (!ret)
		ret = write_file(path, val, false);
	free(path);
	return ret;
}

void ustack_instance_register_fd(struct ustack_instance *ui, int fd)
{
	if (ui->nr_fds < MAX_FDS)
		ui->fds[ui->nr_fds++] = fd;
}

void ustack_instance_unregister_fd(struct ustack_instance *ui, int fd)
{
	int i;

	for (i = 0; i < ui->nr_fds; i++) {
		if (ui->fds[i] != fd)
			continue;
		ui->fds[i] = ui->fds[--ui->nr_fds];
		return;
	}
}

/* The number after "@key: " in a stats file, 0 when it is not there */
static unsigned long long stats_value(const char *buf, const char *key)
{
	size_t len = strlen(key);
	const char *p = buf;

	while (p) {
		if (!strncmp(p, key, len) && p[len] == ':')
			return strtoull(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/*
 * One CPU's stats file, kept open from the first ask to teardown: the
 * readers ask after every take of sub-buffers while a span of drops is
 * open (ustack-dropped.c). Each read of the file formats it anew, from
 * offset 0. Opened on the first ask, by the thread that reads that CPU,
 * not with the instance: a command held before its exec inherits what
 * is open at its fork, and the kernel refuses to remove an instance
 * while any of its files is open. Teardown closes them (close_stats()).
 */
static int stats_fd(struct ustack_instance *ui, int cpu)
{
	char file[64];
	char *path;
	int fd;

	if (ui->stats_fd[cpu] != STATS_UNOPENED)
		return ui->stats_fd[cpu];
	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	path = instance_path(ui, file);
	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	free(path);
	ui->stats_fd[cpu] = fd < 0 ? STATS_BY_PATH : fd;
	return ui->stats_fd[cpu];
}

/*
 * The text of one CPU's stats file into @buf: by its kept descriptor
 * when @keep, else by its path (the base counts at open; a kept
 * instance's summary, read after teardown). Returns the length, or -1.
 */
static ssize_t read_stats(struct ustack_instance *ui, int cpu, char *buf, size_t size,
			  bool keep)
{
	int fd = keep && !ui->torn_down ? stats_fd(ui, cpu) : STATS_BY_PATH;
	char file[64];
	char *text;
	ssize_t n;

	if (fd >= 0) {
		n = pread(fd, buf, size - 1, 0);
		if (n <= 0)
			return -1;
		buf[n] = '\0';
		return n;
	}
	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	text = tracefs_instance_file_read(ui->inst, file, NULL);
	if (!text)
		return -1;
	n = snprintf(buf, size, "%s", text);
	free(text);
	return n;
}

/* One CPU's counters as the kernel has them now; -1 when unreadable */
static int cpu_rb_stats(struct ustack_instance *ui, int cpu, struct ustack_rb_stats *st,
			bool keep)
{
	char buf[1024];

	memset(st, 0, sizeof(*st));
	if (read_stats(ui, cpu, buf, sizeof(buf), keep) < 0)
		return -1;
	st->entries = stats_value(buf, "entries");
	st->dropped = stats_value(buf, "dropped events");
	st->lost = stats_value(buf, "overrun") + st->dropped;
	st->read = stats_value(buf, "read events");
	return 0;
}

/* Since open; a counter the kernel reset since then counts from zero */
static unsigned long long since(unsigned long long now, unsigned long long base)
{
	return now >= base ? now - base : now;
}

/**
 * ustack_instance_rb_stats - ring-buffer counters since the instance was opened
 * @ui:		the instance
 * @cpu:	a CPU, or -1 for the sum of all
 * @st:		filled in (records still in the buffer are counted as they are)
 *
 * A CPU's counts are read through a descriptor kept open for it, so ask
 * for each CPU from one thread only (the one reading that CPU); the sum
 * reads the files by path, from any thread.
 *
 * The kernel's own counts (per_cpu/cpuN/stats), as trace-cmd record
 * prints them: what it wrote to the buffer and what a reader took out,
 * without reading a record. Returns 0, or -1 when a CPU's file could not
 * be read (the others are still summed).
 */
int ustack_instance_rb_stats(struct ustack_instance *ui, int cpu, struct ustack_rb_stats *st)
{
	struct ustack_rb_stats now;
	int c, ret = 0;

	memset(st, 0, sizeof(*st));
	for (c = 0; c < ui->nr_cpus; c++) {
		if (cpu >= 0 && c != cpu)
			continue;
		/*
		 * One CPU's counts are asked by the thread reading it, the
		 * sums by the main thread: only the former keep the file
		 */
		if (cpu_rb_stats(ui, c, &now, cpu >= 0) < 0) {
			ret = -1;
			continue;
		}
		st->entries += now.entries;
		st->lost += since(now.lost, ui->base[c].lost);
		st->dropped += since(now.dropped, ui->base[c].dropped);
		st->read += since(now.read, ui->base[c].read);
	}
	return ret;
}

/**
 * ustack_instance_lost - events the ring buffer lost since we opened it
 * @ui: the instance
 * @cpu: a CPU, or -1 for all
 */
unsigned long long ustack_instance_lost(struct ustack_instance *ui, int cpu)
{
	struct ustack_rb_stats st;

	ustack_instance_rb_stats(ui, cpu, &st);
	return st.lost;
}

/**
 * ustack_instance_now - current time of the instance's trace clock
 * @ui: the instance
 *
 * The stats file prints "now ts" as seconds.microseconds for clocks that
 * count nanoseconds and as a raw count otherwise. Returns 0 on failure.
 */
unsigned long long ustack_instance_now(struct ustack_instance *ui)
{
	unsigned long long sec, usec = 0;
	char *buf, *p, *dot;

	buf = tracefs_instance_file_read(ui->inst, "per_cpu/cpu0/stats", NULL);
	if (!buf)
		return 0;
	p = strstr(buf, "now ts:");
	if (!p) {
		free(buf);
		return 0;
	}
	sec = strtoull(p + 7, &dot, 10);
	if (*dot != '.') {
		free(buf);
		return sec;
	}
	usec = strtoull(dot + 1, NULL, 10);
	free(buf);
	return sec * 1000000000ULL + usec * 1000ULL;
}

/* A record of getdents64(), which glibc before 2.30 does not wrap */
struct fd_dirent {
	unsigned long long	ino;
	long long		off;
	unsigned short		reclen;
	unsigned char		type;
	char			name[];
};

/* The descriptor number a /proc/self/fd entry names, or -1 ("." and "..") */
static int fd_number(const char *name)
{
	int fd = 0;

	if (!*name)
		return -1;
	for (; *name; name++) {
		if (*name < '0' || *name > '9' || fd > (INT_MAX - 9) / 10)
			return -1;
		fd = fd * 10 + (*name - '0');
	}
	return fd;
}

/*
 * Closes every descriptor of this process on the file system @dev
 * (tracefs): the instance's own that were never registered, held by
 * whatever code a signal handler interrupted (a write of tracing_on, a
 * read of a stats file between its open and its close) or by another
 * thread. The kernel refuses to remove an instance while any of its
 * files is open, and code interrupted by a handler that _exit()s never
 * gets to close what it holds. Async-signal-safe: open, getdents64,
 * fstat, close.
 */
static void close_tracefs_fds(dev_t dev)
{
	char buf[4096] __attribute__((aligned(8)));
	struct fd_dirent *d;
	struct stat st;
	long n, off;
	int dir, fd;

	dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return;
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; off += d->reclen) {
			d = (struct fd_dirent *)(buf + off);
			fd = fd_number(d->name);
			if (fd < 0 || fd == dir || fstat(fd, &st) < 0)
				continue;
			if (st.st_dev == dev)
				close(fd);
		}
	}
	close(dir);
}

/* The stats files the readers kept open; async-signal-safe */
static void close_stats(struct ustack_instance *ui)
{
	int c;

	for (c = 0; c < ui->nr_cpus; c++) {
		if (ui->stats_fd[c] >= 0)
			close(ui->stats_fd[c]);
		ui->stats_fd[c] = STATS_BY_PATH;
	}
}

/* Removes a new instance, retrying while its files are still open */
static void remove_dir(struct ustack_instance *ui, bool abandon)
{
	int i;

	for (i = 0; i < 50; i++) {
		if (abandon)
			close_tracefs_fds(ui->dev);
		if (!rmdir(ui->dir) || errno != EBUSY)
			return;
		/* EBUSY: a file open elsewhere (a reader still in poll()) */
		usleep(20000);
	}
}

static void teardown(struct ustack_instance *ui, bool abandon)
{
	struct saved_file *sf;
	struct ustack_list *pos;
	sigset_t old;
	int i;

	if (!ui || ui->torn_down)
		return;
	ustack_stopsig_block(&old);
	ui->torn_down = 1;
	for (i = 0; i < ui->nr_fds; i++)
		close(ui->fds[i]);
	ui->nr_fds = 0;
	close_stats(ui);
	if (ui->is_new) {
		remove_dir(ui, abandon);
	} else {
		ustack_list_for_each(pos, &ui->saved) {
			sf = ustack_list_entry(pos, struct saved_file, list);
			write_file(sf->path, sf->old, true);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/**
 * ustack_instance_teardown - close, restore or remove, once
 * @ui: the instance (may be NULL)
 *
 * Closes every registered fd, then removes the instance if we created it,
 * else writes back every file we changed. Async-signal-safe (open, write,
 * close, rmdir, usleep, pthread_sigmask only); later calls do nothing.
 * SIGINT, SIGTERM and SIGHUP are blocked while it works: a handler
 * calling it again would find it marked done, half done, and exit with
 * the instance still there. The instance must still be freed with
 * ustack_instance_close(). A signal handler about to _exit() calls
 * ustack_instance_abandon() instead.
 */
void ustack_instance_teardown(struct ustack_instance *ui)
{
	teardown(ui, false);
}

/**
 * ustack_instance_abandon - tear down for a process about to _exit()
 * @ui: the instance (may be NULL)
 *
 * As ustack_instance_teardown(), for a signal handler that ends the
 * process: every descriptor the process has on tracefs is closed first,
 * registered or not, so that the code the handler interrupted, which
 * may hold a file of the instance open and will never run again, does
 * not keep the instance from being removed. Async-signal-safe. Nothing
 * of the process may use tracefs afterwards.
 */
void ustack_instance_abandon(struct ustack_instance *ui)
{
	teardown(ui, true);
}

static void free_instance(struct ustack_instance *ui)
{
	struct ustack_list *pos, *tmp;
	struct saved_file *sf;

	ustack_list_for_each_safe(pos, tmp, &ui->saved) {
		sf = ustack_list_entry(pos, struct saved_file, list);
		free(sf->path);
		free(sf->old);
		free(sf);
	}
	tracefs_instance_free(ui->inst);
	free(ui->base);
	free(ui->stats_fd);
	free(ui->dir);
	free(ui->name);
	free(ui);
}

/**
 * ustack_instance_open - create (or take over) the instance to record into
 * @name: instance name, NULL for "ustack-<pid>"
 *
 * An instance that already exists is kept at the end and the files we
 * write are restored; one we create is removed. Returns NULL with errno.
 */
struct ustack_instance *ustack_instance_open(const char *name)
{
	struct ustack_instance *ui;
	struct stat st;
	char buf[64];
	int c;

	ui = calloc(1, sizeof(*ui));
	if (!ui)
		return NULL;
	ustack_list_init(&ui->saved);
	if (!name) {
		snprintf(buf, sizeof(buf), "ustack-%d", getpid());
		name = buf;
	}
	ui->name = strdup(name);
	ui->inst = tracefs_instance_create(name);
	if (!ui->inst) {
		free(ui->name);
		free(ui);
		return NULL;
	}
	ui->is_new = tracefs_instance_is_new(ui->inst);
	ui->dir = tracefs_instance_get_dir(ui->inst);
	ui->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	ui->base = calloc(ui->nr_cpus, sizeof(*ui->base));
	ui->stats_fd = calloc(ui->nr_cpus, sizeof(*ui->stats_fd));
	if (!ui->dir || !ui->base || !ui->stats_fd || stat(ui->dir, &st) < 0) {
		if (ui->is_new)
			tracefs_instance_destroy(ui->inst);
		free_instance(ui);
		return NULL;
	}
	ui->dev = st.st_dev;
	for (c = 0; c < ui->nr_cpus; c++) {
		ui->stats_fd[c] = STATS_UNOPENED;
		cpu_rb_stats(ui, c, &ui->base[c], false);
	}
	return ui;
}

/* The owner's pid when @name is ours ("ustack-<pid>"), else 0 */
static pid_t owner_of(const char *name)
{
	char *end;
	long pid;

	if (strncmp(name, "ustack-", 7) || !name[7])
		return 0;
	errno = 0;
	pid = strtol(name + 7, &end, 10);
	if (errno || *end || pid <= 0 || pid > INT_MAX)
		return 0;
	return pid;
}

/**
 * ustack_instance_reap - remove instances left by runs that were killed
 * @fn: called with the name of each instance removed (may be NULL)
 *
 * A run named "ustack-<pid>" (the default name) whose process no longer
 * exists was killed before its exit handlers ran (SIGKILL): its instance
 * may still trace the whole system. Only those go: an instance whose
 * owner lives (or whose pid was taken again) and every other name, -B
 * ones included, are left alone. Returns how many were removed.
 */
int ustack_instance_reap(void (*fn)(const char *name))
{
	const char *dir = tracefs_tracing_dir();
	struct tracefs_instance *inst;
	struct dirent *d;
	char *path;
	int n = 0;
	DIR *dp;

	if (!dir || asprintf(&path, "%s/instances", dir) < 0)
		return 0;
	dp = opendir(path);
	free(path);
	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		pid_t pid = owner_of(d->d_name);

		if (!pid || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		inst = tracefs_instance_alloc(NULL, d->d_name);
		if (inst && !tracefs_instance_destroy(inst)) {
			n++;
			if (fn)
				fn(d->d_name);
		}
		tracefs_instance_free(inst);
	}
	closedir(dp);
	return n;
}

/**
 * ustack_instance_close - tear the instance down (if not yet) and free it
 * @ui: the instance (may be NULL)
 */
void ustack_instance_close(struct ustack_instance *ui)
{
	if (!ui)
		return;
	ustack_instance_teardown(ui);
	free_instance(ui);
}

struct tracefs_instance *ustack_instance_tracefs(struct ustack_instance *ui)
{
	return ui->inst;
}

const char *ustack_instance_name(struct ustack_instance *ui)
{
	return ui->name;
}
