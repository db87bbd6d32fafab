/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Live reading of an instance's per-CPU ring buffers.
 *
 * One reader thread poll()s every per_cpu/cpuN/trace_pipe_raw of the
 * instance with a tick: it wakes when a CPU reaches the buffer_percent
 * watermark or when the tick expires, drains every CPU without blocking
 * (full sub-buffers through splice, then the partially filled one through
 * read()), optionally appends the raw sub-buffers to per-CPU files for
 * trace.dat, and hands the batch to the consuming thread. The consumer
 * parses the sub-buffers with kbuffer and calls back with the records of
 * all CPUs merged in timestamp order.
 *
 * In direct mode (record without a side-band) the per-CPU threads of
 * ustack-recorder.h write the files instead and nothing is parsed while
 * tracing; the files are read back, in the same order, once it stopped.
 */
#ifndef _USTACK_STREAM_H
#define _USTACK_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ustack-stream-ops.h"

struct tep_handle;
struct tep_record;
struct ustack_instance;
struct ustack_perf_sideband;
struct ustack_sb_rec;
struct ustack_stream;

/**
 * struct ustack_stream_opts - how to read
 * @tick_us:	drain period in microseconds (0 = 100 ms)
 * @save_prefix: when set, raw sub-buffers of CPU N are appended to
 *		"<save_prefix>.cpuN.XXXXXX" (trace-cmd's temp file naming,
 *		made unique with mkstemp())
 * @perf:	the perf side-band to drain in the same tick, or NULL
 * @direct:	record only (needs @save_prefix, no @perf): per-CPU threads
 *		splice the sub-buffers to the files (ustack-recorder.h) and
 *		nothing is handed out until ustack_stream_stop(); the next
 *		ustack_stream_consume() then reads the files back in order
 */
struct ustack_stream_opts {
	unsigned int		tick_us;
	const char		*save_prefix;
	struct ustack_perf_sideband	*perf;
	bool			direct;
};


struct ustack_stream *ustack_stream_open(struct ustack_instance *ui, struct tep_handle *tep,
					 const struct ustack_stream_opts *opts);
/* A stream over per-CPU files already written (tests the merge) */
struct ustack_stream *ustack_stream_open_files(struct tep_handle *tep, char * const *files);
/* Perf side-band records joining such a stream's merge (one drain a call) */
int ustack_stream_add_sideband(struct ustack_stream *st, const char *buf, size_t len);
int ustack_stream_start(struct ustack_stream *st);
/* Thread ids of the readers, i = 0.. until 0 (to keep them out of traces). */
pid_t ustack_stream_tid(struct ustack_stream *st, int i);

/* Readable when a batch is ready: poll() it next to signals, children. */
int ustack_stream_fd(struct ustack_stream *st);

/*
 * Consume every ready batch. Returns 1 once the final batch (after
 * ustack_stream_stop()) was consumed, 0 otherwise, -1 on error.
 */
int ustack_stream_consume(struct ustack_stream *st, const struct ustack_stream_ops *ops,
			  void *ctx);
size_t ustack_stream_unread(const struct ustack_stream *st);

/* Ask the reader for a last full drain (async: then consume until 1). */
void ustack_stream_stop(struct ustack_stream *st);

/* Join the reader and close every per-CPU file (idempotent). */
void ustack_stream_close(struct ustack_stream *st);
void ustack_stream_free(struct ustack_stream *st);

uint64_t ustack_stream_bytes(struct ustack_stream *st);
int ustack_stream_nr_cpus(struct ustack_stream *st);
/* Per-CPU files written when save_prefix was given. */
char * const *ustack_stream_files(struct ustack_stream *st);
/* errno of the first failed write to those files, or 0 */
int ustack_stream_save_error(struct ustack_stream *st);
/* Unlink them (after ustack_stream_close(); any exit path) */
void ustack_stream_remove_files(struct ustack_stream *st);

#endif /* _USTACK_STREAM_H */
