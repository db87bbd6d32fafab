// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-stream-unread-test: what a live stream (lib/ustack-stream.c) said
 * it kept back when closed before its final batch, ustack_stream_unread(),
 * against what it was given: trace_marker records written into a new
 * instance by this thread, pinned on CPU 0.
 *
 * usage: ustack-stream-unread-test NAME queued|held|oom
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
 *
 * Prints "written W merged M handed H subbuf S unread U"; U counts whole
 * sub-buffers. The instance is removed at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "ustack-instance.h"
#include "ustack-stream.h"

static unsigned long merged, handed;
static pid_t fail_tid;

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
 * The stream's batches are its only calloc(1, ~80 bytes) in the reader
 * thread: with fail_tid set, the first such call there fails, once.
 */
void *calloc(size_t nmemb, size_t size)
{
	pid_t tid = __atomic_load_n(&fail_tid, __ATOMIC_ACQUIRE);

	if (tid && nmemb == 1 && size >= 64 && size <= 256 && gettid() == tid &&
	    __atomic_compare_exchange_n(&fail_tid, &tid, 0, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(nmemb, size);
}
#endif

static void die(const char *msg)
{
	fprintf(stderr, "ustack-stream-unread-test: %s\n", msg);
	exit(2);
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

	__atomic_store_n(&fail_tid, ustack_stream_tid(st, 0), __ATOMIC_RELEASE);
	for (tries = 0; tries < 10000; tries++) {
		poll(&pfd, 1, 1);
		if (ustack_stream_consume(st, &ops, NULL) == 1)
			return;
	}
	die("the reader did not end after its failed batch");
}

int main(int argc, char **argv)
{
	const char *systems[] = { "ftrace", NULL };
	struct ustack_stream_opts opts = { .tick_us = 1000 };
	unsigned long written = 0;
	struct ustack_instance *ui;
	struct ustack_stream *st;
	struct tep_handle *tep;
	cpu_set_t cpus;
	int fd, round;

	if (argc != 3 || (strcmp(argv[2], "queued") && strcmp(argv[2], "held") &&
			  strcmp(argv[2], "oom")))
		die("usage: ustack-stream-unread-test NAME queued|held|oom");
#ifdef NO_CALLOC_HOOK
	if (!strcmp(argv[2], "oom")) {
		fprintf(stderr, "ustack-stream-unread-test: no calloc() hook under a sanitizer\n");
		return 77;
	}
#endif
	ui = ustack_instance_open(argv[1]);
	tep = tracefs_local_events_system(NULL, systems);
	if (!ui || !tep)
		die("cannot open the instance or its formats");
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
	if (!strcmp(argv[2], "queued")) {
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
	if (!strcmp(argv[2], "oom"))
		consume_final(st);
	ustack_stream_stop(st);
	ustack_stream_close(st);
	printf("written %lu merged %lu handed %lu subbuf %d unread %zu\n", written, merged, handed,
	       ustack_instance_subbuf_size(ui) > 0 ? ustack_instance_subbuf_size(ui) : getpagesize(),
	       ustack_stream_unread(st));
	ustack_stream_free(st);
	ustack_instance_teardown(ui);
	tep_free(tep);
	return 0;
}
