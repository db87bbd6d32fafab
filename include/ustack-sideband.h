/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The side-band of the fallback path: what the kernel tells perf about
 * tasks and their executable mappings (PERF_RECORD_MMAP2, COMM, FORK,
 * EXIT), taken from a dummy software event, plus records synthesized from
 * /proc for what existed before it was opened. The synchronous
 * ftrace:user_stack event carries raw virtual addresses; this history,
 * ordered by time with the trace events (same clock on both sides), maps
 * each of them through the mappings its process had when the event
 * happened, and names each task as it was named then.
 *
 * A recorded trace.dat carries the history as ftrace:print records
 * ("ustack-sb ...", USTACK_SB_MARKER) of the top buffer, each with the
 * time of the record it stands for (ustack-tracedat-sbfile.h).
 */
#ifndef _USTACK_SIDEBAND_H
#define _USTACK_SIDEBAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ustack.h"

#define USTACK_SB_MARKER	"ustack-sb "

enum ustack_sb_kind {
	USTACK_SB_MMAP,		/* an executable mapping appeared */
	USTACK_SB_COMM,		/* a task got a name (exec, prctl, at start) */
	USTACK_SB_FORK,		/* a task was created */
	USTACK_SB_EXIT,		/* a task exited */
	USTACK_SB_LOST,		/* the kernel dropped side-band records */
	USTACK_SB_SAMPLE,	/* a traced event with its callchain (ustack-perf-source.h) */
	USTACK_SB_DEFERRED,	/* the user callchain of samples that named its cookie */
	USTACK_SB_UNPARSED,	/* a perf record that did not parse: counted, not read */
	USTACK_SB_THROTTLE,	/* the kernel stopped sampling an event (too many hits) */
	USTACK_SB_UNTHROTTLE,	/* ... and resumed it */
};

/**
 * struct ustack_sb_rec - one side-band record
 * @kind:	what it says
 * @ts:		when, in the trace clock
 * @pid:	thread group (process)
 * @tid:	task
 * @ppid:	FORK, EXIT: the parent's thread group
 * @ptid:	FORK, EXIT: the parent task
 * @exec:	COMM: the name comes with an exec (the address space is new)
 * @start:	MMAP: first address
 * @len:	MMAP: length in bytes
 * @pgoff:	MMAP: file offset of @start
 * @prot:	MMAP: PROT_* bits
 * @flags:	MMAP: MAP_* bits
 * @maj:	MMAP: device major (when no build id)
 * @min:	MMAP: device minor
 * @ino:	MMAP: inode number
 * @build_id_len: MMAP: bytes in @build_id, 0 = none given
 * @build_id:	MMAP: GNU build id of the file
 * @lost:	LOST: how many records
 * @cpu:	SAMPLE: where the event happened
 * @nr_chain:	SAMPLE, DEFERRED: entries in @chain
 * @chain:	SAMPLE: the callchain as the kernel wrote it (context markers
 *		and addresses, leaf first); DEFERRED: the user addresses,
 *		leaf first; not owned
 * @raw_size:	SAMPLE: bytes in @raw
 * @raw:	SAMPLE: the tracepoint's payload (a tracefs record's data);
 *		not owned
 * @cut:	SAMPLE: the kernel stopped the chain at its frame limit, or
 *		the recorder's unwind of the copy stopped at it (known to the
 *		recorder, kept in a trace.dat)
 * @unwind_max:	SAMPLE: cut, the frame limit of the recorder's unwind (the
 *		words it kept go no further); 0: none
 * @regs_mask:	SAMPLE: the user registers in @regs (perf's sample_regs_user
 *		bits), 0: none (no --call-graph=dwarf)
 * @regs:	SAMPLE: their values, lowest bit first; not owned
 * @regs_abi:	SAMPLE: perf's PERF_SAMPLE_REGS_ABI_* word of @regs (1: a
 *		32-bit task's), 0 where not known (a trace.dat keeps the
 *		registers only: their code segment says it)
 * @stack_size:	SAMPLE: bytes of user stack copied from the stack pointer up
 * @stack:	SAMPLE: the copy; not owned
 * @stack_valid: SAMPLE: a bit per 8-byte word of @stack, set for the
 *		words a trace.dat's copy holds (the words the recorder's
 *		unwind read), or, written, for those to keep; NULL: all
 * @cut:	SAMPLE, DEFERRED: the kernel stopped the chain at its frame
 *		limit (known to the recorder, kept in a trace.dat)
 * @cookie:	DEFERRED: the cookie the samples it answers carry
 * @event_id:	THROTTLE, UNTHROTTLE: the perf event's own id (its stream
 *		id: an inherited copy has one of its own), which pairs them
 * @same:	SAMPLE, read back: the text said "same=1", the payload, chain
 *		and cut are its thread's last sample's (ustack_sideband_parse_prev())
 * @name:	MMAP: the path ("//anon" for anonymous memory, "[vdso]"...);
 *		COMM: the name; not owned
 * @perf_type:	UNPARSED: the perf record's type (PERF_RECORD_*)
 * @perf_size:	bytes of the perf record it was read from
 *		(ustack_perf_sideband_parse()), 0 for one from elsewhere: what a
 *		stream closed early counts unread for it (ustack_stream_unread())
 * @hold:	what the arrays above are in, when it outlives the call that
 *		hands the record out (a live side-band's drained buffer), else
 *		NULL: a writer that keeps the record for later takes a
 *		reference (ustack_sb_hold_get()) instead of copying them
 */
struct ustack_sb_hold;

struct ustack_sb_rec {
	enum ustack_sb_kind	kind;
	uint64_t		ts;
	int			pid;
	int			tid;
	int			ppid;
	int			ptid;
	bool			exec;
	uint64_t		start;
	uint64_t		len;
	uint64_t		pgoff;
	uint32_t		prot;
	uint32_t		flags;
	uint32_t		maj;
	uint32_t		min;
	uint64_t		ino;
	uint32_t		build_id_len;
	unsigned char		build_id[USTACK_BUILD_ID_MAX];
	uint64_t		lost;
	int			cpu;
	uint32_t		nr_chain;
	const uint64_t		*chain;
	uint32_t		raw_size;
	const void		*raw;
	bool			cut;
	uint32_t		unwind_max;
	uint64_t		regs_mask;
	const uint64_t		*regs;
	uint32_t		regs_abi;
	uint32_t		stack_size;
	const void		*stack;
	const uint8_t		*stack_valid;
	uint64_t		cookie;
	uint64_t		event_id;
	bool			same;
	const char		*name;
	uint32_t		perf_type;
	uint32_t		perf_size;
	struct ustack_sb_hold	*hold;
};

/*
 * The buffer a drain's records point into, counted: freed by @release
 * when the last reference goes, from any thread
 */
struct ustack_sb_hold {
	size_t	refs;		/* atomic */
	void	(*release)(struct ustack_sb_hold *hold);
};

static inline void ustack_sb_hold_get(struct ustack_sb_hold *hold)
{
	__atomic_add_fetch(&hold->refs, 1, __ATOMIC_RELAXED);
}

static inline void ustack_sb_hold_put(struct ustack_sb_hold *hold)
{
	if (!__atomic_sub_fetch(&hold->refs, 1, __ATOMIC_ACQ_REL))
		hold->release(hold);
}

typedef void (*ustack_sb_fn)(const struct ustack_sb_rec *rec, void *ctx);

/* The most a record's cpu= and umax= (--max-stack's range) may say */
#define USTACK_SB_CPU_MAX	8192
#define USTACK_SB_UMAX_MAX	65535

/* Why a text was not read as a record (ustack_sideband_parse(), _parse_prev()) */
enum ustack_sb_err {
	USTACK_SB_NOT_OURS	= -1,	/* not a side-band record at all */
	USTACK_SB_MALFORMED	= -2,	/* ours, but a field is bad or out of bounds */
	USTACK_SB_UNSEEN_REPEAT	= -3,	/* same=1 of a thread whose sample was not read */
};

/* The text of a record in a trace.dat (without the time: the record's own) */
int ustack_sideband_format(const struct ustack_sb_rec *rec, char *buf, size_t size);
int ustack_sideband_parse(const char *text, uint64_t ts, struct ustack_sb_rec *rec);

/*
 * The last sample of each thread, on both sides of a trace.dat: a sample
 * that repeats its thread's last one is written short ("same=1"), and read
 * back through the reader's own (see ustack-sideband.c).
 */
struct ustack_sb_prev;

struct ustack_sb_prev *ustack_sideband_prev_new(void);
void ustack_sideband_prev_free(struct ustack_sb_prev *prev);
int ustack_sideband_format_prev(struct ustack_sb_prev *prev, const struct ustack_sb_rec *rec,
			  char *buf, size_t size);
int ustack_sideband_parse_prev(struct ustack_sb_prev *prev, const char *text, uint64_t ts,
			 struct ustack_sb_rec *rec);
/* Samples as ustack:sample records (lib/ustack-sample-event.h) */
bool ustack_sideband_sample_binary(const struct ustack_sb_rec *rec);
bool ustack_sideband_prev_repeats(struct ustack_sb_prev *prev, const struct ustack_sb_rec *rec);
int ustack_sideband_decode_prev(struct ustack_sb_prev *prev, const void *data, size_t size,
				uint64_t ts, bool copies, struct ustack_sb_rec *rec);

/* A live mapping without build id gets its file's (ustack-sb-buildid.c) */
void ustack_sideband_fill_build_id(struct ustack_sb_rec *rec);

/*
 * Records for what exists now, from /proc: every process (@pids NULL) or
 * those listed (ustack-sideband-scan.c)
 */
int ustack_sideband_scan(const int *pids, size_t nr_pids, uint64_t ts, ustack_sb_fn fn, void *ctx);

struct ustack_perf_sideband;
struct ustack_perf_source_opts;

/* The perf events opened for @pids (NULL: system-wide), then the scan */
struct ustack_perf_sideband *ustack_perf_sideband_start(const int *pids, size_t nr_pids,
				      const char *trace_clock, uint64_t now,
				      const struct ustack_perf_source_opts *src,
				      ustack_sb_fn fn, void *ctx, char *why, size_t why_size);

/* ------------------------------------------------------------------ */
/* The perf events (ustack-perf-sideband.c)                                    */
/* ------------------------------------------------------------------ */

/**
 * struct ustack_perf_sideband_opts - what to watch
 * @tids:	these tasks and (inherit) the tasks they create; NULL: every
 *		task on every CPU (system-wide, needs CAP_PERFMON)
 * @nr_tids:	entries in @tids
 * @clockid:	clock of the records' times (a CLOCK_* id), or -1 for perf's
 *		default clock (tracefs "perf")
 * @ring_kb:	ring size per CPU, rounded to a power of two pages (0: 512)
 * @src:	the perf stack source's events, written into the same rings;
 *		NULL: the side-band alone
 */
struct ustack_perf_sideband_opts {
	const int				*tids;
	size_t					nr_tids;
	int					clockid;
	size_t					ring_kb;
	const struct ustack_perf_source_opts	*src;
};

struct ustack_perf_sideband *ustack_perf_sideband_open(const struct ustack_perf_sideband_opts *opts, char *why,
				     size_t why_size);
void ustack_perf_sideband_close(struct ustack_perf_sideband *p);
int ustack_perf_sideband_add_task(struct ustack_perf_sideband *p,
				  const struct ustack_perf_source_opts *src, int pid);
bool ustack_perf_sideband_drop_task(struct ustack_perf_sideband *p, int pid);
void ustack_perf_sideband_enable(struct ustack_perf_sideband *p);
int ustack_perf_sideband_nr_fds(const struct ustack_perf_sideband *p);
int ustack_perf_sideband_fd(const struct ustack_perf_sideband *p, int i);
int ustack_perf_sideband_drain(struct ustack_perf_sideband *p, char **buf, size_t *len, size_t *alloc);
int ustack_perf_sideband_drain_last(struct ustack_perf_sideband *p, char **buf, size_t *len, size_t *alloc);
size_t ustack_perf_sideband_parse(const char *buf, size_t len, ustack_sb_fn fn, void *ctx);
bool ustack_perf_sideband_clockid(const char *trace_clock, int *clockid);
/* Build ids in mmap2 records, unless the kernel leaks their flag (ustack-perf-buildid.c) */
bool ustack_perf_sideband_build_ids(const char **why);
bool ustack_perf_sideband_build_ids_off(void);

#endif /* _USTACK_SIDEBAND_H */
