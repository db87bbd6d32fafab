// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-stream-unread-test: what a live stream (lib/ustack-stream.c) said
 * it kept back when closed before its final batch, ustack_stream_unread(),
 * against what it was given: trace_marker records written into a new
 * instance NAME by this process (and perf side-band records of it).
 *
 * usage: ustack-stream-unread-test NAME queued|held|oom|sideband|sbdrop
 *        ustack-stream-unread-test NAME saved DIR
 *
 *   queued	1000 records written, the stream stopped and closed without a
 *		consume: every sub-buffer read is in a batch never handed out
 *   held	bursts of records, each consumed until every record written
 *		is in the merge, until one ends with records the merge holds
 *		back (after the batch's horizon): the stream is then stopped
 *		and closed, its later batches empty, so that what it kept
 *		back is exactly the sub-buffers of those records
 *   oom	as held, then the reader thread's next batch fails to be
 *		allocated (calloc() below fails it once): the reader ends with
 *		its last, final batch, and the consumer takes it, unstopped
 *		(exit 77 when built with AddressSanitizer: no hook then)
 *   saved	one sub-buffer partly handed out (a record written between
 *		the first batch's horizon and its drain), later ones never
 *		(markers nobody consumes), the raw data saved in DIR: the
 *		unread count against the sub-buffers of the saved files that
 *		hold a record not handed out (see saved_scene())
 *   sideband	the perf side-band of this process: the first batch holds a
 *		COMM record made after its horizon, which the merge keeps
 *		back; the stream is closed then (see sideband_scene())
 *   sbdrop	as sideband, but the consume cannot allocate the side-band's
 *		records (a calloc() fails once): they are dropped, and said
 *		(exit 77 under AddressSanitizer, as oom)
 *
 * Prints, queued, held and oom: "written W merged M handed H subbuf S
 * unread U" (U counts whole sub-buffers); saved: "unread U expected E
 * partial P untouched N"; sideband, sbdrop: "unread U held B", B the bytes
 * of the COMM record kept back. Exit 75: the scene was not reached (no
 * verdict, the caller runs it again). The instance is removed at the end.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "ustack-instance.h"
#include "ustack-sideband.h"
#include "ustack-stream.h"

/* The name the reader thread takes after the horizon (sideband) */
#define HELD_COMM	"ustack-held"
/* The side-band's sample_id_all trailer: TID, TIME, CPU (ustack-perf-sideband.c) */
#define SAMPLE_ID_SIZE	24

static unsigned long merged, handed;
static pid_t fail_tid;
static size_t fail_min, fail_max;	/* the sizes of the calloc() to fail */

/*
 * Under AddressSanitizer (tests/run-asan) calloc() is the sanitizer's: no
 * hook here, and the oom mode exits 77 (skipped).
 */
#if defined(__SANITIZE_ADDRESS__)
#define NO_CALLOC_HOOK	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_CALLOC_HOOK	1
#endif
#endif

#ifndef NO_CALLOC_HOOK
extern void *__libc_calloc(size_t nmemb, size_t size);

/*
 * With fail_tid set, the first calloc(1, fail_min to fail_max bytes) of
 * that thread fails, once: the stream's batches are its only calloc(1,
 * ~80 bytes) in the reader thread (oom), its side-band chunks its only
 * calloc(1, ~48 bytes) in a consume (sbdrop).
 */
void *calloc(size_t nmemb, size_t size)
{
	pid_t tid = __atomic_load_n(&fail_tid, __ATOMIC_ACQUIRE);

	if (tid && nmemb == 1 && size >= fail_min && size <= fail_max && gettid() == tid &&
	    __atomic_compare_exchange_n(&fail_tid, &tid, 0, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(nmemb, size);
}
#endif

/* The next calloc(1, @min to @max bytes) of thread @tid fails */
static void fail_calloc(pid_t tid, size_t min, size_t max)
{
	fail_min = min;
	fail_max = max;
	__atomic_store_n(&fail_tid, tid, __ATOMIC_RELEASE);
}

static void die(const char *msg)
{
	fprintf(stderr, "ustack-stream-unread-test: %s\n", msg);
	exit(2);
}

/*
 * What happens right after the reader thread reads a batch's horizon
 * (the instance's per_cpu/cpu0/stats "now ts"), before its drain: the
 * wrapper of libtracefs's reader below does it once, so that the batch
 * holds a record later than its horizon, which the merge keeps back
 * (the one thing a live stream leaves between two batches). The call
 * itself is libtracefs's, unchanged.
 */
enum inject {
	INJECT_NONE,
	INJECT_MARKER,		/* saved: a trace_marker record */
	INJECT_RENAME,		/* sideband: the reader thread renames itself */
};

static int inject;
static int marker_fd = -1;

char *tracefs_instance_file_read(struct tracefs_instance *instance, const char *file,
				 int *psize)
{
	static char *(*real)(struct tracefs_instance *, const char *, int *);
	int what = __atomic_load_n(&inject, __ATOMIC_ACQUIRE);
	char *buf;

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "tracefs_instance_file_read");
	if (!real)
		die("no tracefs_instance_file_read() in libtracefs");
	buf = real(instance, file, psize);
	if (what == INJECT_NONE || strcmp(file, "per_cpu/cpu0/stats"))
		return buf;
	if (what == INJECT_MARKER && write(marker_fd, "after the horizon", 17) != 17)
		die("cannot write trace_marker");
	if (what == INJECT_RENAME) {
		__atomic_store_n(&inject, INJECT_NONE, __ATOMIC_RELEASE);
		if (prctl(PR_SET_NAME, HELD_COMM) < 0)
			die("cannot rename the reader thread");
	}
	return buf;
}

static void on_batch(struct tep_record **recs, int nr, void *ctx)
{
	merged += nr;
}

static void on_record(struct tep_record *rec, void *ctx)
{
	handed++;
}

static const struct ustack_stream_ops ops = {
	.batch = on_batch,
	.record = on_record,
};

static void write_marker(int fd, unsigned long i)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "m%08lu", i);

	if (write(fd, buf, len) != len)
		die("cannot write trace_marker");
}

/* Consume until every record written is in the merge (at most 10 s) */
static void consume_all(struct ustack_stream *st, unsigned long written)
{
	struct pollfd pfd = { .fd = ustack_stream_fd(st), .events = POLLIN };
	int tries;

	for (tries = 0; merged < written && tries < 10000; tries++) {
		poll(&pfd, 1, 1);
		ustack_stream_consume(st, &ops, NULL);
	}
	if (merged < written)
		die("the stream never handed the records to the merge");
}

/* The reader's next batch fails: consume up to its final one (at most 10 s) */
static void consume_final(struct ustack_stream *st)
{
	struct pollfd pfd = { .fd = ustack_stream_fd(st), .events = POLLIN };
	int tries;

	fail_calloc(ustack_stream_tid(st, 0), 64, 256);
	for (tries = 0; tries < 10000; tries++) {
		poll(&pfd, 1, 1);
		if (ustack_stream_consume(st, &ops, NULL) == 1)
			return;
	}
	die("the reader did not end after its failed batch");
}

static struct tep_handle *local_tep(void)
{
	const char *systems[] = { "ftrace", NULL };
	struct tep_handle *tep = tracefs_local_events_system(NULL, systems);

	if (!tep)
		die("cannot read the event formats");
	return tep;
}

static int subbuf_size(struct ustack_instance *ui)
{
	int size = ustack_instance_subbuf_size(ui);

	return size > 0 ? size : getpagesize();
}

/* queued, held, oom */
static int batch_scene(const char *name, const char *mode)
{
	struct ustack_stream_opts opts = { .tick_us = 1000 };
	unsigned long written = 0;
	struct ustack_instance *ui;
	struct ustack_stream *st;
	struct tep_handle *tep;
	cpu_set_t cpus;
	int fd, round;

	ui = ustack_instance_open(name);
	tep = local_tep();
	if (!ui)
		die("cannot open the instance");
	st = ustack_stream_open(ui, tep, &opts);
	if (!st || ustack_stream_start(st) < 0)
		die("cannot start the stream");
	/* the reader thread runs where it likes; the records go to CPU 0 */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) < 0)
		die("cannot run on CPU 0");
	fd = tracefs_instance_file_open(ustack_instance_tracefs(ui), "trace_marker", O_WRONLY);
	if (fd < 0)
		die("cannot open trace_marker");
	if (!strcmp(mode, "queued")) {
		while (written < 1000)
			write_marker(fd, written++);
	} else {
		for (round = 0; round < 20000; round++) {
			int i;

			for (i = 0; i < 20; i++)
				write_marker(fd, written++);
			consume_all(st, written);
			if (handed < merged)
				break;
		}
		if (handed == merged) {
			/* the scene was not reached: no verdict, the caller tries again */
			fprintf(stderr, "ustack-stream-unread-test: no burst ended after a batch's horizon\n");
			close(fd);
			ustack_stream_stop(st);
			ustack_stream_close(st);
			ustack_stream_free(st);
			ustack_instance_teardown(ui);
			tep_free(tep);
			return 75;
		}
	}
	close(fd);
	if (!strcmp(mode, "oom"))
		consume_final(st);
	ustack_stream_stop(st);
	ustack_stream_close(st);
	printf("written %lu merged %lu handed %lu subbuf %d unread %zu\n", written, merged, handed,
	       subbuf_size(ui), ustack_stream_unread(st));
	ustack_stream_free(st);
	ustack_instance_teardown(ui);
	tep_free(tep);
	return 0;
}

static unsigned long long cpu_handed[1024];	/* records handed out, per CPU */

static void count_record(struct tep_record *rec, void *ctx)
{
	if (rec->cpu < 0 || rec->cpu >= 1024)
		die("a record of no CPU");
	cpu_handed[rec->cpu]++;
}

/*
 * What ustack_stream_unread() must say, from the raw files the stream
 * saved (every sub-buffer it read, in order): each sub-buffer of a CPU
 * that holds a record not handed out (records of a CPU go out in its
 * order, so those are the ones past its first cpu_handed[cpu] records).
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
			if (seen + n > cpu_handed[cpu]) {
				left += size;
				if (seen < cpu_handed[cpu])
					(*partial)++;
				else
					(*untouched)++;
			}
			seen += n;
		}
		close(fd);
		if (seen < cpu_handed[cpu])
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

/* The instance's trace_marker, for this process's writes */
static void open_marker(struct ustack_instance *ui)
{
	char *path = tracefs_instance_get_file(ustack_instance_tracefs(ui), "trace_marker");

	marker_fd = path ? open(path, O_WRONLY | O_CLOEXEC) : -1;
	tracefs_put_tracing_file(path);
}

/* What saved and sideband made, for their verdict and their clean-up */
struct scene {
	struct ustack_instance		*ui;
	struct tep_handle		*tep;
	struct ustack_perf_sideband	*perf;
	struct ustack_stream		*st;
};

/*
 * The start of saved and sideband: a new instance @name whose reader is
 * woken by data (buffer_percent 0) or the stop, never by its tick
 * (600 s: a batch made by the tick before the first was consumed would
 * release the record kept back); nothing here waits a time. One marker
 * is written before the start, so that the first poll wakes at once,
 * with @what injected (see tracefs_instance_file_read() above) from the
 * reader's first horizon. With @perf (sideband), the instance's clock is
 * mono and the stream reads the perf side-band of this process, opened
 * for this thread and inherited by the reader thread the stream starts.
 * Returns 0 once the reader's first batch is ready, -1 on failure
 * (@sc->ui made, @sc->st NULL or open, for the caller to remove).
 */
static int start_scene(struct scene *sc, const char *name, struct ustack_stream_opts *so,
		       enum inject what, bool perf)
{
	struct ustack_perf_sideband_opts po = { 0 };
	int tid = getpid();
	struct pollfd pfd;
	char why[256];

	sc->ui = ustack_instance_open(name);
	if (!sc->ui)
		die("cannot make the instance");
	sc->tep = local_tep();
	open_marker(sc->ui);
	if (marker_fd < 0 || ustack_instance_write(sc->ui, "buffer_percent", "0") < 0 ||
	    (perf && ustack_instance_write(sc->ui, "trace_clock", "mono") < 0))
		return -1;
	if (perf) {
		po.tids = &tid;
		po.nr_tids = 1;
		po.clockid = CLOCK_MONOTONIC;
		sc->perf = ustack_perf_sideband_open(&po, why, sizeof(why));
		if (!sc->perf) {
			fprintf(stderr, "ustack-stream-unread-test: %s\n", why);
			return -1;
		}
		so->perf = sc->perf;
	}
	so->tick_us = 600000000;
	write_markers(1);
	__atomic_store_n(&inject, what, __ATOMIC_RELEASE);
	sc->st = ustack_stream_open(sc->ui, sc->tep, so);
	if (!sc->st || ustack_stream_start(sc->st) < 0)
		return -1;
	pfd.fd = ustack_stream_fd(sc->st);
	pfd.events = POLLIN;
	return poll(&pfd, 1, -1) == 1 ? 0 : -1;
}

/*
 * saved: a stop by a signal under a flood, made exact: the first batch
 * is consumed with one record kept back (INJECT_MARKER), then markers of
 * a few sub-buffers wait in batches nobody consumes when the stream is
 * stopped and closed (see start_scene()).
 */
static int saved_scene(const char *name, const char *dir)
{
	static const struct ustack_stream_ops sops = { .record = count_record };
	struct ustack_stream_opts so = { 0 };
	int size, partial, untouched, nr;
	struct scene sc = { 0 };
	size_t unread, expected;
	char *prefix;
	cpu_set_t set;

	/* the files are read back after the stream closed them */
	setenv("USTACK_TEMPFILES", "named", 1);
	/* the reader thread, started later, stays on this CPU too */
	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		die("cannot pin to a CPU");
	if (asprintf(&prefix, "%s/raw", dir) < 0)
		goto fail;
	so.save_prefix = prefix;
	if (start_scene(&sc, name, &so, INJECT_MARKER, false))
		goto fail;
	size = subbuf_size(sc.ui);
	/* the reader waits for data now: its first batch alone is ready */
	__atomic_store_n(&inject, INJECT_NONE, __ATOMIC_RELEASE);
	if (ustack_stream_consume(sc.st, &sops, NULL) != 0)
		goto fail;
	write_markers(3 * size / 200);
	ustack_stream_stop(sc.st);
	ustack_stream_close(sc.st);
	unread = ustack_stream_unread(sc.st);
	nr = ustack_stream_nr_cpus(sc.st);
	expected = unread_expected(sc.tep, ustack_stream_files(sc.st), nr, size, &partial,
				   &untouched);
	if (expected == (size_t)-1)
		printf("again: an empty saved sub-buffer\n");
	else
		printf("unread %zu expected %zu partial %d untouched %d\n", unread, expected,
		       partial, untouched);
	ustack_stream_remove_files(sc.st);
	ustack_stream_free(sc.st);
	close(marker_fd);
	ustack_instance_teardown(sc.ui);
	ustack_instance_close(sc.ui);
	free(prefix);
	tep_free(sc.tep);
	return expected == (size_t)-1 ? 75 : 0;
 fail:
	perror("ustack-stream-unread-test saved");
	ustack_stream_close(sc.st);
	ustack_instance_teardown(sc.ui);
	return 2;
}

static bool held_out;		/* the COMM of HELD_COMM was handed out */
static unsigned long sb_handed;

static void sb_record(const struct ustack_sb_rec *rec, void *ctx)
{
	sb_handed++;
	if (rec->kind == USTACK_SB_COMM && rec->name && !strcmp(rec->name, HELD_COMM))
		held_out = true;
}

/*
 * sideband: the stream reads the perf side-band of this process, in the
 * instance's clock (see start_scene()). Between the first batch's
 * horizon and its drain the reader thread renames itself
 * (INJECT_RENAME): its COMM record, later than the horizon, is drained
 * with the batch and held by the merge. The stream is then stopped and
 * closed: what it kept back is that record. With @drop, the consume's
 * calloc() of the drain's side-band chunk fails instead: the records are
 * dropped, which the stream must say (on stderr).
 */
static int sideband_scene(const char *name, bool drop)
{
	static const struct ustack_stream_ops sops = { .record = on_record,
						       .sideband = sb_record };
	struct ustack_stream_opts so = { 0 };
	struct scene sc = { 0 };
	size_t held, unread;

	if (start_scene(&sc, name, &so, INJECT_RENAME, true))
		goto fail;
	if (drop)
		fail_calloc(gettid(), 32, 63);
	if (ustack_stream_consume(sc.st, &sops, NULL) != 0)
		goto fail;
	/* the hook clears it as it fails the call */
	if (__atomic_exchange_n(&fail_tid, 0, __ATOMIC_ACQ_REL))
		die("the consume allocated no side-band chunk");
	if (held_out || handed != 1 || __atomic_load_n(&inject, __ATOMIC_ACQUIRE)) {
		/* the rename's record went out (or none was made): no verdict */
		fprintf(stderr, "ustack-stream-unread-test: no side-band record held (%lu out)\n",
			sb_handed);
		ustack_stream_stop(sc.st);
		ustack_stream_free(sc.st);
		ustack_perf_sideband_close(sc.perf);
		ustack_instance_teardown(sc.ui);
		return 75;
	}
	ustack_stream_stop(sc.st);
	ustack_stream_close(sc.st);
	unread = ustack_stream_unread(sc.st);
	/* PERF_RECORD_COMM: header, pid and tid, the name padded to 8, the trailer */
	held = sizeof(struct perf_event_header) + 8 + ((sizeof(HELD_COMM) + 7) & ~(size_t)7) +
	       SAMPLE_ID_SIZE;
	printf("unread %zu held %zu\n", unread, held);
	ustack_stream_free(sc.st);
	ustack_perf_sideband_close(sc.perf);
	close(marker_fd);
	ustack_instance_teardown(sc.ui);
	ustack_instance_close(sc.ui);
	tep_free(sc.tep);
	return 0;
 fail:
	perror("ustack-stream-unread-test sideband");
	ustack_stream_close(sc.st);
	ustack_instance_teardown(sc.ui);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[2], "saved"))
		return saved_scene(argv[1], argv[3]);
	if (argc == 3 && !strcmp(argv[2], "sideband"))
		return sideband_scene(argv[1], false);
	if (argc != 3 || (strcmp(argv[2], "queued") && strcmp(argv[2], "held") &&
			  strcmp(argv[2], "oom") && strcmp(argv[2], "sbdrop")))
		die("usage: ustack-stream-unread-test NAME queued|held|oom|sideband|sbdrop, or NAME saved DIR");
#ifdef NO_CALLOC_HOOK
	if (!strcmp(argv[2], "oom") || !strcmp(argv[2], "sbdrop")) {
		fprintf(stderr, "ustack-stream-unread-test: no calloc() hook under a sanitizer\n");
		return 77;
	}
#endif
	if (!strcmp(argv[2], "sbdrop"))
		return sideband_scene(argv[1], true);
	return batch_scene(argv[1], argv[2]);
}
