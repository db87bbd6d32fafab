// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-stream-test: drives the cross-CPU merge of lib/ustack-stream.c
 * with hand-built per-CPU sub-buffer files, read back through
 * ustack_stream_open_files() (the direct mode's read-back path), so the
 * order can be checked without tracefs.
 *
 * usage: ustack-stream-test DIR NR_CPUS < SCRIPT
 *
 * SCRIPT lines (per CPU, timestamps must not go back):
 *   r CPU TS ID		one 4-byte record carrying ID
 *   fill CPU N TS STEP ID	N records from TS every STEP, IDs from ID
 *   page CPU		end CPU's sub-buffer here
 *   lost CPU		end it, the next one says events were lost before it
 *   sb TS PID NAME	a perf side-band record (a COMM) at TS
 *   drain		the sb records so far are one drain of the side-band
 *			(ustack_stream_add_sideband()); the rest are the last
 *
 * Prints "CPU TS ID" per record handed out, "lost CPU" per loss told,
 * "horizon TS" per horizon and "sb TS PID NAME" per side-band record, in
 * the order the stream calls back.
 *
 * usage: ustack-stream-test --unread DIR INSTANCE
 *
 * A live stream of a new tracefs instance (root), closed before its final
 * batch is consumed, as a stop by a signal under a flood leaves it: one
 * sub-buffer partly handed out, later ones never. Prints "unread U
 * expected E partial P untouched N", U from ustack_stream_unread(), E
 * counted from the raw files the stream saved (see unread_check()).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <linux/perf_event.h>
#include <tracefs.h>

#include "ustack-instance.h"
#include "ustack-sideband.h"
#include "ustack-stream.h"

#define PAGE_HDR	16		/* u64 time stamp, u64 commit */
#define TS_BITS		27
#define TYPE_EXTEND	30
#define MISSED_EVENTS	(1ULL << 31)	/* commit flag: lost before this page */

struct cpu_file {
	FILE			*f;
	char			*page;
	int			used;
	bool			empty;
	bool			missed;
	unsigned long long	last_ts;
};

/* Side-band drains: raw perf records, as ustack_perf_sideband_drain() gives them */
struct drain {
	char	*buf;
	size_t	len;
};

static int subbuf;
static struct drain drains[64];
static int nr_drains;

static void die(const char *msg)
{
	fprintf(stderr, "ustack-stream-test: %s\n", msg);
	exit(2);
}

static void put32(struct cpu_file *c, uint32_t v)
{
	memcpy(c->page + PAGE_HDR + c->used, &v, 4);
	c->used += 4;
}

static void flush(struct cpu_file *c)
{
	uint64_t commit = c->used | (c->missed ? MISSED_EVENTS : 0);

	if (c->empty)
		return;
	memcpy(c->page + 8, &commit, 8);
	if (fwrite(c->page, subbuf, 1, c->f) != 1)
		die("cannot write a CPU file");
	memset(c->page, 0, subbuf);
	c->used = 0;
	c->empty = true;
	c->missed = false;
}

/* One event as the ring buffer encodes it: type_len 1 = 4 data bytes */
static void add(struct cpu_file *c, unsigned long long ts, uint32_t id)
{
	unsigned long long delta;
	int need = 8;

	if (ts < c->last_ts)
		die("time goes back on a CPU");
	delta = c->empty ? 0 : ts - c->last_ts;
	if (delta >> TS_BITS)
		need += 8;
	if (PAGE_HDR + c->used + need > subbuf)
		flush(c);
	if (c->empty) {
		uint64_t page_ts = ts;

		memcpy(c->page, &page_ts, 8);
		delta = 0;
		c->empty = false;
	}
	if (delta >> TS_BITS) {
		put32(c, TYPE_EXTEND | (uint32_t)(delta & ((1U << TS_BITS) - 1)) << 5);
		put32(c, (uint32_t)(delta >> TS_BITS));
		delta = 0;
	}
	put32(c, 1 | (uint32_t)delta << 5);
	put32(c, id);
	c->last_ts = ts;
}

static void put_sb(struct drain *d, const void *p, size_t n)
{
	d->buf = realloc(d->buf, d->len + n);
	if (!d->buf)
		die("out of memory");
	memcpy(d->buf + d->len, p, n);
	d->len += n;
}

/* A PERF_RECORD_COMM with the sample id the side-band asks for */
static void add_comm(unsigned long long ts, uint32_t pid, const char *name)
{
	struct perf_event_header hdr = { .type = PERF_RECORD_COMM };
	uint32_t ids[2] = { pid, pid }, cpu[2] = { 0, 0 };
	size_t name_len = (strlen(name) + 1 + 7) & ~(size_t)7;
	char comm[64] = "";
	uint64_t time = ts;
	struct drain *d;

	if (nr_drains == 64 || name_len > sizeof(comm))
		die("too many drains or too long a name");
	d = &drains[nr_drains];
	strcpy(comm, name);
	hdr.size = sizeof(hdr) + sizeof(ids) + name_len + 24;
	put_sb(d, &hdr, sizeof(hdr));
	put_sb(d, ids, sizeof(ids));
	put_sb(d, comm, name_len);
	put_sb(d, ids, sizeof(ids));
	put_sb(d, &time, sizeof(time));
	put_sb(d, cpu, sizeof(cpu));
}

static struct cpu_file *cpu_of(struct cpu_file *cpus, int nr, int cpu)
{
	if (cpu < 0 || cpu >= nr)
		die("no such CPU");
	return &cpus[cpu];
}

static void run_script(struct cpu_file *cpus, int nr)
{
	unsigned long long ts, step;
	char line[256], cmd[16];
	int cpu, n, i;
	unsigned int id;
	char name[32];

	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "%15s", cmd) != 1 || cmd[0] == '#')
			continue;
		if (!strcmp(cmd, "r") && sscanf(line, "r %d %llu %u", &cpu, &ts, &id) == 3) {
			add(cpu_of(cpus, nr, cpu), ts, id);
		} else if (!strcmp(cmd, "fill") &&
			   sscanf(line, "fill %d %d %llu %llu %u", &cpu, &n, &ts, &step, &id) == 5) {
			for (i = 0; i < n; i++)
				add(cpu_of(cpus, nr, cpu), ts + i * step, id + i);
		} else if (!strcmp(cmd, "page") && sscanf(line, "page %d", &cpu) == 1) {
			flush(cpu_of(cpus, nr, cpu));
		} else if (!strcmp(cmd, "lost") && sscanf(line, "lost %d", &cpu) == 1) {
			flush(cpu_of(cpus, nr, cpu));
			cpus[cpu].missed = true;
		} else if (!strcmp(cmd, "sb") &&
			   sscanf(line, "sb %llu %u %31s", &ts, &id, name) == 3) {
			add_comm(ts, id, name);
		} else if (!strcmp(cmd, "drain")) {
			if (drains[nr_drains].len)
				nr_drains++;
		} else {
			die("bad script line");
		}
	}
}

static void on_record(struct tep_record *rec, void *ctx)
{
	uint32_t id;

	memcpy(&id, rec->data, 4);
	printf("%d %llu %u\n", rec->cpu, rec->ts, id);
}

static void on_lost(int cpu, long long missed, void *ctx)
{
	printf("lost %d\n", cpu);
}

static void on_sideband(const struct ustack_sb_rec *rec, void *ctx)
{
	printf("sb %llu %d %s\n", (unsigned long long)rec->ts, rec->pid, rec->name);
}

static void on_horizon(unsigned long long ts, void *ctx)
{
	printf("horizon %llu\n", ts);
}

static struct tep_handle *make_tep(void)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		die("out of memory");
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, getpagesize());
	/* the stream falls back to the page size the same way */
	subbuf = tep_get_sub_buffer_size(tep);
	if (subbuf <= 0)
		subbuf = getpagesize();
	return tep;
}

/*
 * --unread: a record written between the stream's horizon and its drain.
 * The reader thread takes a batch's horizon from the instance's
 * per_cpu/cpu0/stats ("now ts"), then drains: while inject is set, this
 * wrapper of libtracefs's reader writes a marker right after that read,
 * so that the batch holds a record later than its horizon, which the
 * merge keeps back on its CPU (the one thing a live stream leaves
 * between two batches). The call itself is libtracefs's, unchanged.
 */
static int inject;
static int marker_fd = -1;

char *tracefs_instance_file_read(struct tracefs_instance *instance, const char *file,
				 int *psize)
{
	static char *(*real)(struct tracefs_instance *, const char *, int *);
	char *buf;

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "tracefs_instance_file_read");
	if (!real)
		die("no tracefs_instance_file_read() in libtracefs");
	buf = real(instance, file, psize);
	if (__atomic_load_n(&inject, __ATOMIC_ACQUIRE) && !strcmp(file, "per_cpu/cpu0/stats") &&
	    write(marker_fd, "after the horizon", 17) != 17)
		die("cannot write trace_marker");
	return buf;
}

static unsigned long long handed[1024];	/* records handed out, per CPU */

static void count_record(struct tep_record *rec, void *ctx)
{
	if (rec->cpu < 0 || rec->cpu >= 1024)
		die("a record of no CPU");
	handed[rec->cpu]++;
}

/*
 * What ustack_stream_unread() must say, from the raw files the stream
 * saved (every sub-buffer it read, in order): each sub-buffer of a CPU
 * that holds a record not handed out (records of a CPU go out in its
 * order, so those are the ones past its first handed[cpu] records).
 * @partial and @untouched count those with some and with none handed out.
 * Returns (size_t)-1 when a saved sub-buffer holds no record.
 */
static size_t unread_expected(struct tep_handle *tep, char * const *files, int nr,
			      int size, int *partial, int *untouched)
{
	struct kbuffer *kbuf = tep_kbuffer(tep);
	unsigned long long seen, n, ts;
	char *page = malloc(size);
	size_t left = 0;
	int cpu, fd;

	if (!kbuf || !page)
		die("out of memory");
	*partial = *untouched = 0;
	for (cpu = 0; cpu < nr; cpu++) {
		fd = open(files[cpu], O_RDONLY);
		if (fd < 0)
			die("cannot open a saved CPU file");
		seen = 0;
		while (read(fd, page, size) == size) {
			if (kbuffer_load_subbuffer(kbuf, page) < 0)
				die("a saved sub-buffer does not parse");
			for (n = 0; kbuffer_read_event(kbuf, &ts); n++)
				kbuffer_next_event(kbuf, NULL);
			/*
			 * where an empty one lies (queue or CPU) is not known:
			 * no verdict, the caller runs the scene again
			 */
			if (!n) {
				close(fd);
				free(page);
				return (size_t)-1;
			}
			if (seen + n > handed[cpu]) {
				left += size;
				if (seen < handed[cpu])
					(*partial)++;
				else
					(*untouched)++;
			}
			seen += n;
		}
		close(fd);
		if (seen < handed[cpu])
			die("more records handed out than saved");
	}
	kbuffer_free(kbuf);
	free(page);
	return left;
}

static void write_markers(int n)
{
	char text[200];

	memset(text, 'm', sizeof(text));
	while (n--)
		if (write(marker_fd, text, sizeof(text)) != sizeof(text))
			die("cannot write trace_marker");
}

/*
 * A stop by a signal under a flood, made exact: the first batch is
 * consumed with one record kept back (above), then markers of a few
 * sub-buffers wait in batches nobody consumes when the stream is
 * stopped and closed. The reader is woken by data (buffer_percent 0)
 * or the stop, never by its tick (600 s: a batch made by the tick before
 * the first was consumed would release the record kept back); nothing
 * here waits a time.
 */
static int unread_check(const char *dir, const char *name)
{
	static const struct ustack_stream_ops ops = { .record = count_record };
	struct ustack_stream_opts so = { .tick_us = 600000000 };
	struct tep_handle *tep = make_tep();
	int size, partial, untouched, nr;
	struct ustack_stream *st = NULL;
	struct ustack_instance *ui;
	struct pollfd pfd;
	char *prefix, *path;
	size_t unread, expected;
	cpu_set_t set;

	/* the files are read back after the stream closed them */
	setenv("USTACK_TEMPFILES", "named", 1);
	/* the reader thread, started later, stays on this CPU too */
	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		die("cannot pin to a CPU");
	ui = ustack_instance_open(name);
	if (!ui)
		die("cannot make the instance");
	path = tracefs_instance_get_file(ustack_instance_tracefs(ui), "trace_marker");
	marker_fd = path ? open(path, O_WRONLY | O_CLOEXEC) : -1;
	tracefs_put_tracing_file(path);
	if (marker_fd < 0 || ustack_instance_write(ui, "buffer_percent", "0") < 0)
		goto fail;
	size = ustack_instance_subbuf_size(ui);
	if (size <= 0)
		size = subbuf;
	if (asprintf(&prefix, "%s/raw", dir) < 0)
		goto fail;
	so.save_prefix = prefix;
	/* one record before the start: the first poll wakes at once */
	write_markers(1);
	__atomic_store_n(&inject, 1, __ATOMIC_RELEASE);
	st = ustack_stream_open(ui, tep, &so);
	if (!st || ustack_stream_start(st) < 0)
		goto fail;
	pfd.fd = ustack_stream_fd(st);
	pfd.events = POLLIN;
	if (poll(&pfd, 1, -1) != 1)
		goto fail;
	/* the reader waits for data now: its first batch alone is ready */
	__atomic_store_n(&inject, 0, __ATOMIC_RELEASE);
	if (ustack_stream_consume(st, &ops, NULL) != 0)
		goto fail;
	write_markers(3 * size / 200);
	ustack_stream_stop(st);
	ustack_stream_close(st);
	unread = ustack_stream_unread(st);
	nr = ustack_stream_nr_cpus(st);
	expected = unread_expected(tep, ustack_stream_files(st), nr, size, &partial, &untouched);
	if (expected == (size_t)-1)
		printf("again: an empty saved sub-buffer\n");
	else
		printf("unread %zu expected %zu partial %d untouched %d\n", unread, expected,
		       partial, untouched);
	ustack_stream_remove_files(st);
	ustack_stream_free(st);
	close(marker_fd);
	ustack_instance_teardown(ui);
	ustack_instance_close(ui);
	free(prefix);
	tep_free(tep);
	return expected == (size_t)-1 ? 75 : 0;
 fail:
	perror("ustack-stream-test --unread");
	ustack_stream_close(st);
	ustack_instance_teardown(ui);
	return 2;
}

int main(int argc, char **argv)
{
	static const struct ustack_stream_ops ops = {
		.record = on_record,
		.lost = on_lost,
		.horizon = on_horizon,
		.sideband = on_sideband,
	};
	struct cpu_file *cpus;
	struct ustack_stream *st;
	struct tep_handle *tep;
	char **files;
	int nr, cpu, ret, i;

	if (argc == 4 && !strcmp(argv[1], "--unread"))
		return unread_check(argv[2], argv[3]);
	if (argc != 3 || (nr = atoi(argv[2])) <= 0)
		die("usage: ustack-stream-test DIR NR_CPUS < SCRIPT");
	tep = make_tep();
	cpus = calloc(nr, sizeof(*cpus));
	files = calloc(nr + 1, sizeof(*files));
	if (!cpus || !files)
		die("out of memory");
	for (cpu = 0; cpu < nr; cpu++) {
		if (asprintf(&files[cpu], "%s/cpu%d", argv[1], cpu) < 0)
			die("out of memory");
		cpus[cpu].f = fopen(files[cpu], "w");
		cpus[cpu].page = calloc(1, subbuf);
		cpus[cpu].empty = true;
		if (!cpus[cpu].f || !cpus[cpu].page)
			die("cannot create a CPU file");
	}
	run_script(cpus, nr);
	for (cpu = 0; cpu < nr; cpu++) {
		flush(&cpus[cpu]);
		if (fclose(cpus[cpu].f))
			die("cannot write a CPU file");
		free(cpus[cpu].page);
	}
	st = ustack_stream_open_files(tep, files);
	if (!st)
		die("cannot open the stream");
	if (drains[nr_drains].len)
		nr_drains++;
	for (i = 0; i < nr_drains; i++) {
		if (ustack_stream_add_sideband(st, drains[i].buf, drains[i].len) < 0)
			die("cannot add the side-band");
		free(drains[i].buf);
	}
	ret = ustack_stream_consume(st, &ops, NULL);
	ustack_stream_free(st);
	for (cpu = 0; cpu < nr; cpu++)
		free(files[cpu]);
	free(files);
	free(cpus);
	tep_free(tep);
	return ret == 1 ? 0 : 1;
}
