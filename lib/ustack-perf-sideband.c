// SPDX-License-Identifier: LGPL-2.1
/*
 * The perf side-band (see ustack-sideband.h): a dummy software event per
 * CPU that counts nothing and only asks for the task and mapping records
 * perf record itself reads beside its samples.
 *
 * Why each attribute:
 *  - mmap + mmap2: executable mappings (file and anonymous: JIT code), with
 *    offset, protection and, where the kernel can (build_id, Linux 5.12),
 *    the file's build id instead of its device and inode; not on a kernel
 *    that would then mark other tracers' records of the mapping as build
 *    ids too (ustack-perf-buildid.c);
 *  - comm + comm_exec: names, and which of them come with an exec (the
 *    address space is replaced then, and perf says nothing of unmaps);
 *  - task: fork and exit, so that children start with their parent's
 *    mappings and name;
 *  - sample_id_all with TID, TIME and CPU: every record carries its time,
 *    in @clockid (use_clockid), the clock of the trace instance, so that
 *    both sides are ordered by one clock; CPU because the perf stack
 *    source's events (ustack-perf-source.c) share the rings and need it in
 *    their samples, and one ring has one trailer layout;
 *  - exclude_kernel: asks for no kernel data, which lets a user whose
 *    perf_event_paranoid is 2 watch its own command;
 *  - defer_output when the perf stack source defers its user callchains:
 *    the kernel writes those through side-band events (perf_iterate_sb());
 *  - inherit (per task): the tasks a command creates are watched too; the
 *    kernel refuses to map the ring of an inherited event that is not
 *    bound to a CPU, hence one event per CPU as perf does.
 * Every event of a CPU writes into that CPU's one ring (SET_OUTPUT).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "ustack-array.h"
#include "ustack-perf-source.h"
#include "ustack-proc.h"
#include "ustack-sideband.h"

#define DEFAULT_RING_KB		512
/* sample_id_all with TID | TIME | CPU: pid, tid, time, cpu, reserved */
#define SAMPLE_ID_SIZE		24
#define SAMPLE_ID_PID		24	/* from the end of the record */
#define SAMPLE_ID_TIME		16

struct ring {
	void		*base;
	size_t		map_size;
	size_t		data_size;	/* a power of two */
};

/*
 * The events of one task opened after the start (ustack_perf_sideband_add_task()):
 * fds[first] to fds[first + nr - 1], -1 once closed
 */
struct task_set {
	int		pid;
	size_t		first;
	size_t		nr;
};

struct ustack_perf_sideband {
	int		*fds;
	size_t		nr_fds;
	size_t		alloc_fds;
	struct ring	*rings;		/* one per CPU that has an event */
	int		nr_rings;
	int		*ring_fd;	/* the fd that owns each ring */
	int		*ring_cpu;	/* the CPU of each ring */
	int		clockid;	/* of the samples' times */
	struct task_set	*sets;
	size_t		nr_sets;
	size_t		alloc_sets;
	uint64_t	lost_closed;	/* the counts of lost records of closed events */
	uint64_t	lost_told;	/* by the LOST records drained so far */
	uint64_t	last_ts;	/* the latest time a drained record had */
};

static int perf_open(struct perf_event_attr *attr, int pid, int cpu)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void fill_attr(struct perf_event_attr *attr, const struct ustack_perf_sideband_opts *o,
		      size_t ring_bytes)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	attr->sample_id_all = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->build_id = ustack_perf_sideband_build_ids(NULL);
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->inherit = o->tids ? 1 : 0;
	/* what no LOST record told at the end: ustack_perf_sideband_drain_last() */
	attr->read_format = PERF_FORMAT_LOST;
	attr->watermark = 1;
	attr->wakeup_watermark = ring_bytes / 4;
	/* the perf source's deferred user chains come through the side-band */
	ustack_perf_source_attr_defer(attr, false, o->src && o->src->defer);
	if (o->clockid >= 0) {
		attr->use_clockid = 1;
		attr->clockid = o->clockid;
	}
}

/*
 * Open one event; older kernels have no build ids in mmap2 records, and
 * before 6.0 no count of lost samples (PERF_FORMAT_LOST).
 */
static int open_event(struct perf_event_attr *attr, int pid, int cpu)
{
	int fd = perf_open(attr, pid, cpu);

	if (fd < 0 && errno == EINVAL && attr->build_id) {
		attr->build_id = 0;
		fd = perf_open(attr, pid, cpu);
	}
	if (fd < 0 && errno == EINVAL && attr->read_format) {
		attr->read_format = 0;
		fd = perf_open(attr, pid, cpu);
	}
	return fd;
}

static void explain(int err, char *why, size_t size)
{
	char *paranoid = ustack_proc_read_file("/proc/sys/kernel/perf_event_paranoid", NULL);

	if (paranoid)
		paranoid[strcspn(paranoid, "\n")] = '\0';
	if (err == EINVAL)
		snprintf(why, size, "perf_event_open: %s (a filter the kernel refuses?)",
			 strerror(err));
	else if (err == EACCES || err == EPERM)
		snprintf(why, size,
			 "perf_event_open refused (%s; kernel.perf_event_paranoid is %s)",
			 strerror(err), paranoid ? paranoid : "unknown");
	else if (err == ENOSYS || err == ENOENT || err == EOPNOTSUPP)
		snprintf(why, size, "this kernel has no perf events (%s)", strerror(err));
	else
		snprintf(why, size, "perf_event_open: %s", strerror(err));
	free(paranoid);
}

static int add_fd(void *ctx, int fd)
{
	struct ustack_perf_sideband *p = ctx;

	if (ustack_array_grow((void **)&p->fds, &p->alloc_fds, p->nr_fds + 1, sizeof(*p->fds))) {
		close(fd);
		return -1;
	}
	p->fds[p->nr_fds++] = fd;
	return 0;
}

static int map_ring(struct ring *r, int fd, size_t ring_bytes)
{
	long page = sysconf(_SC_PAGESIZE);

	r->map_size = page + ring_bytes;
	r->base = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return -1;
	}
	r->data_size = ring_bytes;
	return 0;
}

/* The events of @cpu: the first one owns the ring, the others write into it. */
static int open_cpu(struct ustack_perf_sideband *p, const struct ustack_perf_sideband_opts *o, int cpu,
		    size_t ring_bytes, int *err)
{
	struct perf_event_attr attr;
	size_t i, n = o->tids ? o->nr_tids : 1;
	int owner = -1, fd;

	fill_attr(&attr, o, ring_bytes);
	for (i = 0; i < n; i++) {
		fd = open_event(&attr, o->tids ? o->tids[i] : -1, cpu);
		if (fd < 0) {
			/* an offline CPU, or a task gone meanwhile */
			if (errno == ENODEV || errno == ESRCH)
				continue;
			*err = errno;
			return -1;
		}
		if (add_fd(p, fd))
			return -1;
		if (owner < 0) {
			if (map_ring(&p->rings[p->nr_rings], fd, ring_bytes)) {
				*err = errno;
				return -1;
			}
			p->ring_cpu[p->nr_rings] = cpu;
			p->ring_fd[p->nr_rings++] = fd;
			owner = fd;
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, owner) < 0) {
			*err = errno;
			return -1;
		}
		if (o->src && ustack_perf_source_open(o->src, o->tids ? o->tids[i] : -1, cpu,
						  o->clockid, owner, add_fd, p) < 0) {
			if (errno == ESRCH)
				continue;
			*err = errno;
			return -1;
		}
	}
	return 0;
}

static size_t ring_size(const struct ustack_perf_sideband_opts *o)
{
	size_t page = sysconf(_SC_PAGESIZE), want, bytes = page;

	want = (o->ring_kb ? o->ring_kb : DEFAULT_RING_KB) * 1024;
	while (bytes < want)
		bytes *= 2;
	return bytes;
}

/**
 * ustack_perf_sideband_open - open and enable the side-band events
 * @opts:	what to watch
 * @why:	set to a one-line reason when it fails
 * @why_size:	room in @why
 *
 * Returns NULL when the kernel has no perf events or refuses them.
 */
struct ustack_perf_sideband *ustack_perf_sideband_open(const struct ustack_perf_sideband_opts *opts, char *why,
				     size_t why_size)
{
	int cpu, nr_cpus = sysconf(_SC_NPROCESSORS_CONF), err = ENOMEM;
	size_t ring_bytes = ring_size(opts);
	struct ustack_perf_sideband *p;

	p = calloc(1, sizeof(*p));
	if (!p)
		goto fail;
	p->rings = calloc(nr_cpus, sizeof(*p->rings));
	p->ring_fd = calloc(nr_cpus, sizeof(*p->ring_fd));
	p->ring_cpu = calloc(nr_cpus, sizeof(*p->ring_cpu));
	if (!p->rings || !p->ring_fd || !p->ring_cpu)
		goto fail;
	p->clockid = opts->clockid;
	for (cpu = 0; cpu < nr_cpus; cpu++)
		if (open_cpu(p, opts, cpu, ring_bytes, &err))
			goto fail;
	if (!p->nr_rings) {
		err = ESRCH;
		goto fail;
	}
	return p;
 fail:
	explain(err, why, why_size);
	ustack_perf_sideband_close(p);
	return NULL;
}

/**
 * ustack_perf_sideband_close - disable and close every event, unmap the rings
 * @p: the side-band (may be NULL)
 */
void ustack_perf_sideband_close(struct ustack_perf_sideband *p)
{
	size_t i;
	int r;

	if (!p)
		return;
	for (r = 0; r < p->nr_rings; r++)
		munmap(p->rings[r].base, p->rings[r].map_size);
	for (i = 0; i < p->nr_fds; i++)
		if (p->fds[i] >= 0)
			close(p->fds[i]);
	free(p->fds);
	free(p->rings);
	free(p->ring_fd);
	free(p->ring_cpu);
	free(p->sets);
	free(p);
}

/* Close fds[@first] to fds[@end - 1], keeping their counts of lost records */
static void close_fds(struct ustack_perf_sideband *p, size_t first, size_t end)
{
	uint64_t v[2];
	size_t i;

	for (i = first; i < end; i++) {
		if (p->fds[i] < 0)
			continue;
		if (read(p->fds[i], v, sizeof(v)) == sizeof(v))
			p->lost_closed += v[1];
		close(p->fds[i]);
		p->fds[i] = -1;
	}
}

/**
 * ustack_perf_sideband_add_task - open events of @src for one task, enabled
 * @p:		the side-band, its events open
 * @src:	the events, and how their samples are taken
 * @pid:	the task (inherited by the tasks it creates from now on)
 *
 * One event per traced tracepoint and CPU, writing into that CPU's ring,
 * sampling from the moment it returns: the task's samples then come
 * twice, from these and from the events it inherited, one after the
 * other (the session keeps one of each pair). Returns 0; -1 with errno
 * set (ESRCH: the task is gone, EMFILE: out of file descriptors), with
 * nothing left open.
 */
int ustack_perf_sideband_add_task(struct ustack_perf_sideband *p,
				  const struct ustack_perf_source_opts *src, int pid)
{
	size_t first = p->nr_fds, i;
	int r, err;

	if (ustack_array_grow((void **)&p->sets, &p->alloc_sets, p->nr_sets + 1,
			      sizeof(*p->sets)))
		return -1;
	for (r = 0; r < p->nr_rings; r++)
		if (ustack_perf_source_open(src, pid, p->ring_cpu[r], p->clockid, p->ring_fd[r],
					    add_fd, p) < 0)
			goto fail;
	for (i = first; i < p->nr_fds; i++)
		if (ioctl(p->fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			goto fail;
	p->sets[p->nr_sets].pid = pid;
	p->sets[p->nr_sets].first = first;
	p->sets[p->nr_sets++].nr = p->nr_fds - first;
	return 0;
 fail:
	err = errno;
	close_fds(p, first, p->nr_fds);
	p->nr_fds = first;
	errno = err;
	return -1;
}

/**
 * ustack_perf_sideband_drop_task - close the events ustack_perf_sideband_add_task() opened
 * @p:		the side-band (may be NULL)
 * @pid:	their task, which exited
 *
 * Their copies in the tasks it created go with them. Returns true when
 * @pid had some.
 */
bool ustack_perf_sideband_drop_task(struct ustack_perf_sideband *p, int pid)
{
	struct task_set *set;
	size_t i;

	for (i = 0; p && i < p->nr_sets; i++) {
		set = &p->sets[i];
		if (set->pid != pid)
			continue;
		close_fds(p, set->first, set->first + set->nr);
		set->pid = 0;
		return true;
	}
	return false;
}

/**
 * ustack_perf_sideband_enable - start every event opened disabled
 * @p: the side-band (may be NULL)
 *
 * The perf stack source's events wait for this (the side-band's own
 * records flow from the open); the kernel enables their inherited
 * copies too.
 */
void ustack_perf_sideband_enable(struct ustack_perf_sideband *p)
{
	size_t i;

	for (i = 0; p && i < p->nr_fds; i++)
		if (p->fds[i] >= 0)
			ioctl(p->fds[i], PERF_EVENT_IOC_ENABLE, 0);
}

/* One fd per ring to poll(): readable past the wakeup watermark. */
int ustack_perf_sideband_nr_fds(const struct ustack_perf_sideband *p)
{
	return p ? p->nr_rings : 0;
}

int ustack_perf_sideband_fd(const struct ustack_perf_sideband *p, int i)
{
	return p->ring_fd[i];
}

/* Copy @n bytes at ring position @pos, wrapping at the end of the ring. */
static void ring_copy(const struct ring *r, uint64_t pos, void *dst, size_t n)
{
	const char *data = (const char *)r->base + (r->map_size - r->data_size);
	size_t off = pos & (r->data_size - 1), first = r->data_size - off;

	if (first > n)
		first = n;
	memcpy(dst, data + off, first);
	memcpy((char *)dst + first, data, n - first);
}

/*
 * The kernel moves data_head past whole records only, so everything
 * between the tail and the head is complete records: one copy (two where
 * the ring wraps) and one growth of @buf for all of them, rather than
 * per record (a perf source's ring holds one record per traced event).
 */
static int drain_ring(const struct ring *r, char **buf, size_t *len, size_t *alloc)
{
	struct perf_event_mmap_page *pc = r->base;
	uint64_t head, tail = pc->data_tail;
	size_t n;

	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	n = head - tail;
	if (!n)
		return 0;
	if (ustack_array_grow((void **)buf, alloc, *len + n, 1))
		return -1;
	ring_copy(r, tail, *buf + *len, n);
	*len += n;
	__atomic_store_n(&pc->data_tail, head, __ATOMIC_RELEASE);
	return 0;
}

/*
 * What the drained records told: the losses of their LOST records, and
 * the latest time (a sample's is after its pid and tid; the others' in
 * their sample_id trailer).
 */
static void note_records(struct ustack_perf_sideband *p, const char *buf, size_t len)
{
	struct perf_event_header hdr;
	size_t pos = 0;
	uint64_t ts, lost;

	while (pos + sizeof(hdr) <= len) {
		memcpy(&hdr, buf + pos, sizeof(hdr));
		if (hdr.size < sizeof(hdr) + SAMPLE_ID_SIZE || pos + hdr.size > len)
			break;
		if (hdr.type == PERF_RECORD_SAMPLE)
			memcpy(&ts, buf + pos + 16, 8);
		else
			memcpy(&ts, buf + pos + hdr.size - SAMPLE_ID_TIME, 8);
		if (ts > p->last_ts)
			p->last_ts = ts;
		if (hdr.type == PERF_RECORD_LOST) {
			memcpy(&lost, buf + pos + 16, 8);
			p->lost_told += lost;
		}
		pos += hdr.size;
	}
}

/**
 * ustack_perf_sideband_drain - append every complete record of every ring to a buffer
 * @p:		the side-band
 * @buf:	growing buffer (realloc'ed)
 * @len:	bytes used in it, advanced
 * @alloc:	its size
 *
 * Rings are read in CPU order: the records of one ring are in time order,
 * those of different rings are not merged. Returns 0, or -1 when out of
 * memory (what did not fit stays in the ring).
 */
int ustack_perf_sideband_drain(struct ustack_perf_sideband *p, char **buf, size_t *len, size_t *alloc)
{
	size_t from = *len;
	int r;

	for (r = 0; p && r < p->nr_rings; r++)
		if (drain_ring(&p->rings[r], buf, len, alloc))
			return -1;
	if (p)
		note_records(p, *buf + from, *len - from);
	return 0;
}

/*
 * The kernel tells a loss in a LOST record written before the next record
 * that fits: losses at the end of a run, when nothing more is written,
 * are only in each event's count of lost samples (PERF_FORMAT_LOST, which
 * every event counts for the ring it writes into). Sum of them, or false
 * when an event has no such count (a kernel before 6.0).
 */
static bool lost_total(const struct ustack_perf_sideband *p, uint64_t *total)
{
	uint64_t v[2];
	size_t i;

	*total = p->lost_closed;
	for (i = 0; i < p->nr_fds; i++) {
		if (p->fds[i] < 0)
			continue;
		if (read(p->fds[i], v, sizeof(v)) != sizeof(v))
			return false;
		*total += v[1];
	}
	return true;
}

/**
 * ustack_perf_sideband_drain_last - append a LOST record of the losses never told
 * @p:		the side-band (may be NULL)
 * @buf:	growing buffer (realloc'ed), as for ustack_perf_sideband_drain()
 * @len:	bytes used in it, advanced
 * @alloc:	its size
 *
 * Called once after the last drain: the events' counts of lost records,
 * less what the drained LOST records told, become one more LOST record
 * (at the latest time drained), so that a run whose rings overflowed at
 * its end does not lose events silently. Returns 0, or -1 when out of
 * memory.
 */
int ustack_perf_sideband_drain_last(struct ustack_perf_sideband *p, char **buf, size_t *len, size_t *alloc)
{
	struct perf_event_header hdr = {
		.type = PERF_RECORD_LOST,
		.size = sizeof(hdr) + 16 + SAMPLE_ID_SIZE,
	};
	uint64_t total, lost;
	char *rec;

	if (!p || !lost_total(p, &total) || total <= p->lost_told)
		return 0;
	lost = total - p->lost_told;
	if (ustack_array_grow((void **)buf, alloc, *len + hdr.size, 1))
		return -1;
	rec = *buf + *len;
	memset(rec, 0, hdr.size);
	memcpy(rec, &hdr, sizeof(hdr));
	memcpy(rec + 16, &lost, 8);
	memcpy(rec + hdr.size - SAMPLE_ID_TIME, &p->last_ts, 8);
	*len += hdr.size;
	p->lost_told = total;
	return 0;
}

static uint32_t get32(const char *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static uint64_t get64(const char *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

/* A NUL-terminated string at @off that ends before the sample id. */
static const char *get_str(const char *rec, size_t off, size_t size)
{
	if (off >= size - SAMPLE_ID_SIZE ||
	    !memchr(rec + off, '\0', size - SAMPLE_ID_SIZE - off))
		return NULL;
	return rec + off;
}

/*
 * PERF_RECORD_MMAP2: pid, tid, addr, len, pgoff at 8..39, then either
 * maj, min, ino, ino_generation or (MISC_MMAP_BUILD_ID) build_id_size, two
 * reserved bytes and 20 bytes of build id at 40..63, prot and flags at 64,
 * the file name at 72. Events opened without build ids never get one
 * written by the kernel: where the side-band asks for none, the flag was
 * left in the shared header by another tracer's event
 * (ustack-perf-buildid.c), and the record has device and inode.
 */
static bool parse_mmap2(const char *rec, uint16_t misc, size_t size, struct ustack_sb_rec *out)
{
	out->kind = USTACK_SB_MMAP;
	out->pid = get32(rec, 8);
	out->tid = get32(rec, 12);
	out->start = get64(rec, 16);
	out->len = get64(rec, 24);
	out->pgoff = get64(rec, 32);
	if ((misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && !ustack_perf_sideband_build_ids_off()) {
		out->build_id_len = (unsigned char)rec[40];
		if (out->build_id_len > USTACK_BUILD_ID_MAX)
			out->build_id_len = USTACK_BUILD_ID_MAX;
		memcpy(out->build_id, rec + 44, out->build_id_len);
	} else {
		out->maj = get32(rec, 40);
		out->min = get32(rec, 44);
		out->ino = get64(rec, 48);
	}
	out->prot = get32(rec, 64);
	out->flags = get32(rec, 68);
	out->name = get_str(rec, 72, size);
	return out->name != NULL;
}

/*
 * THROTTLE and UNTHROTTLE: time, id, stream_id. The kernel stopped
 * sampling an event whose hits came faster than
 * kernel.perf_event_max_sample_rate allows, until the next tick: its hits
 * in between are neither sampled nor in any LOST record's count, so the
 * records are handed out to be counted (ustack-throttle.h). They are
 * paired by stream_id, the event's own id (id is its parent's, for an
 * inherited copy); the time is the trailer's, as for the others.
 */
static bool parse_throttle(const char *rec, uint32_t type, size_t size, struct ustack_sb_rec *out)
{
	if (size < 32 + SAMPLE_ID_SIZE)
		return false;
	out->kind = type == PERF_RECORD_THROTTLE ? USTACK_SB_THROTTLE : USTACK_SB_UNTHROTTLE;
	out->event_id = get64(rec, 24);
	return true;
}

/* COMM: pid, tid, name; FORK and EXIT: pid, ppid, tid, ptid; LOST: id, count */
static bool parse_one(const char *rec, uint32_t type, uint16_t misc, size_t size,
		      struct ustack_sb_rec *out)
{
	switch (type) {
	case PERF_RECORD_MMAP2:
		return size >= 72 + SAMPLE_ID_SIZE && parse_mmap2(rec, misc, size, out);
	case PERF_RECORD_COMM:
		out->kind = USTACK_SB_COMM;
		out->pid = get32(rec, 8);
		out->tid = get32(rec, 12);
		out->exec = misc & PERF_RECORD_MISC_COMM_EXEC;
		out->name = get_str(rec, 16, size);
		return out->name != NULL;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (size < 32 + SAMPLE_ID_SIZE)
			return false;
		out->kind = type == PERF_RECORD_FORK ? USTACK_SB_FORK : USTACK_SB_EXIT;
		out->pid = get32(rec, 8);
		out->ppid = get32(rec, 12);
		out->tid = get32(rec, 16);
		out->ptid = get32(rec, 20);
		return true;
	case PERF_RECORD_SAMPLE:
		return ustack_perf_source_parse(rec, size, out);
	default:
		return ustack_perf_source_parse_deferred(rec, size, out);
	case PERF_RECORD_LOST:
		if (size < 24 + SAMPLE_ID_SIZE)
			return false;
		out->kind = USTACK_SB_LOST;
		out->lost = get64(rec, 16);
		return true;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		return parse_throttle(rec, type, size, out);
	}
	return false;
}

/*
 * A record that does not parse: too short for its type, or of a type we
 * do not know. Handed out as UNPARSED so that every reader counts it
 * (malformed) and a recording keeps it, rather than dropped without a
 * word; its time is where the kernel puts it (@ts NULL), so that it
 * comes in order with the others; @size is at least a trailer's then.
 */
static void unparsed(const char *rec, const struct perf_event_header *hdr, size_t size,
		     const uint64_t *ts, struct ustack_sb_rec *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = USTACK_SB_UNPARSED;
	out->perf_type = hdr->type;
	out->perf_size = size > UINT32_MAX ? UINT32_MAX : size;
	if (ts)
		out->ts = *ts;
	else if (hdr->type == PERF_RECORD_SAMPLE)
		out->ts = get64(rec, 16);
	else
		out->ts = get64(rec, size - SAMPLE_ID_TIME);
}

/**
 * ustack_perf_sideband_parse - hand out the records of a drained buffer
 * @buf:	what ustack_perf_sideband_drain() gave
 * @len:	its length
 * @fn:		called for each record we use (the name points into @buf),
 *		and for each one that does not parse (USTACK_SB_UNPARSED)
 * @ctx:	passed to @fn
 *
 * Returns how many records were handed out.
 */
size_t ustack_perf_sideband_parse(const char *buf, size_t len, ustack_sb_fn fn, void *ctx)
{
	struct perf_event_header hdr;
	struct ustack_sb_rec rec;
	size_t pos = 0, n = 0;
	uint64_t last_ts = 0;

	while (pos < len) {
		memset(&hdr, 0, sizeof(hdr));
		memcpy(&hdr, buf + pos, len - pos < sizeof(hdr) ? len - pos : sizeof(hdr));
		/*
		 * The kernel moves the head past whole records: a size that
		 * cannot be leaves the rest of the drain without bounds, one
		 * record not read for all of it, at the last time seen
		 */
		if (hdr.size < sizeof(hdr) + SAMPLE_ID_SIZE || hdr.size > len - pos) {
			unparsed(buf + pos, &hdr, len - pos, &last_ts, &rec);
			fn(&rec, ctx);
			return n + 1;
		}
		memset(&rec, 0, sizeof(rec));
		if (parse_one(buf + pos, hdr.type, hdr.misc, hdr.size, &rec)) {
			rec.perf_size = hdr.size;
			/* a sample has no trailer: its fields are its own */
			if (rec.kind != USTACK_SB_SAMPLE)
				rec.ts = get64(buf + pos, hdr.size - SAMPLE_ID_TIME);
			if (rec.kind == USTACK_SB_LOST)
				rec.pid = rec.tid = get32(buf + pos, hdr.size - SAMPLE_ID_PID + 4);
		} else {
			unparsed(buf + pos, &hdr, hdr.size, NULL, &rec);
		}
		last_ts = rec.ts;
		fn(&rec, ctx);
		n++;
		pos += hdr.size;
	}
	return n;
}

/**
 * ustack_perf_sideband_clockid - the perf clock that counts as a trace clock does
 * @trace_clock:	the tracefs clock name ("mono", "boot", ...)
 * @clockid:		set to its CLOCK_* id, -1 for perf's default clock
 *
 * Returns false when perf has no such clock (local, global, counter,
 * uptime, x86-tsc): the two sides could not be ordered.
 */
bool ustack_perf_sideband_clockid(const char *trace_clock, int *clockid)
{
	static const struct {
		const char	*name;
		int		id;
	} clocks[] = {
		{ "mono",	CLOCK_MONOTONIC },
		{ "mono_raw",	CLOCK_MONOTONIC_RAW },
		{ "boot",	CLOCK_BOOTTIME },
		{ "tai",	CLOCK_TAI },
		/* trace_clock() is local_clock(), perf's own clock */
		{ "perf",	-1 },
	};
	size_t i;

	for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		if (!strcmp(trace_clock, clocks[i].name)) {
			*clockid = clocks[i].id;
			return true;
		}
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* Starting it                                                        */
/* ------------------------------------------------------------------ */

/* Every thread of @pids, for per-task events. */
static int *list_threads(const int *pids, size_t nr_pids, size_t *nr)
{
	size_t i, alloc = 0;
	struct dirent *de;
	int *tids = NULL;
	char path[64];
	DIR *dir;

	*nr = 0;
	for (i = 0; i < nr_pids; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task", pids[i]);
		dir = opendir(path);
		while (dir && (de = readdir(dir))) {
			if (!isdigit((unsigned char)de->d_name[0]) ||
			    ustack_array_grow((void **)&tids, &alloc, *nr + 1, sizeof(*tids)))
				continue;
			tids[(*nr)++] = atoi(de->d_name);
		}
		if (dir)
			closedir(dir);
	}
	return tids;
}

/**
 * ustack_perf_sideband_start - open the perf side-band and describe what exists
 * @pids:	watch these processes (their threads, and with inherit what
 *		they create), or NULL for every task (system-wide)
 * @nr_pids:	entries in @pids
 * @trace_clock: the instance's clock: the records are timed in it
 * @now:	the trace clock now, before the events are opened: the time of
 *		the records that describe what exists
 * @src:	the perf stack source's events to open into the same rings,
 *		or NULL
 * @fn:		called with each of those records (names, then mappings)
 * @ctx:	passed to @fn
 * @why:	set to a one-line reason when there is no side-band
 * @why_size:	room in @why
 *
 * The events are opened first, /proc read after, so that nothing that
 * changes in between is missed (it comes from the events, and sorts after
 * the picture). Returns NULL when the clock has no perf counterpart or
 * the kernel has no perf events or refuses them.
 */
struct ustack_perf_sideband *ustack_perf_sideband_start(const int *pids, size_t nr_pids,
				      const char *trace_clock, uint64_t now,
				      const struct ustack_perf_source_opts *src,
				      ustack_sb_fn fn, void *ctx, char *why, size_t why_size)
{
	struct ustack_perf_sideband_opts po = { 0 };
	struct ustack_perf_sideband *p;
	int *tids = NULL;

	if (!ustack_perf_sideband_clockid(trace_clock, &po.clockid)) {
		snprintf(why, why_size, "perf has no clock like the trace clock %s", trace_clock);
		return NULL;
	}
	if (pids) {
		tids = list_threads(pids, nr_pids, &po.nr_tids);
		if (!tids) {
			snprintf(why, why_size, "no such process");
			return NULL;
		}
		po.tids = tids;
	}
	po.src = src;
	/*
	 * Every traced event is a sample in these rings: 4 MiB a CPU holds
	 * 20,000 deep stacks, 0.1 s at 200,000 events a second, where the
	 * side-band alone needs little. A reader that only copies them to
	 * the file (recording) keeps up as perf record does, with its 512
	 * KiB: a ring that stays in the caches costs the traced task and
	 * the reader less per sample than one eight times its size
	 * (bench/perfsrc/NOTES.md).
	 */
	if (src)
		po.ring_kb = src->unread ? 512 : 4096;
	/* with a stack copy in each, a sample is a hundred times bigger */
	if (src && src->dwarf_size)
		po.ring_kb = 16384;
	p = ustack_perf_sideband_open(&po, why, why_size);
	free(tids);
	if (p)
		ustack_sideband_scan(pids, nr_pids, now, fn, ctx);
	return p;
}
