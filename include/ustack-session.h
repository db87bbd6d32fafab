/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * A session pairs events, cookies, deferred stacks and file announcements
 * (kernel-abi.md, "Rules for user space") whatever the records come from:
 * the live per-CPU readers or a trace.dat file. It also knows the tasks
 * (thread group, name) and decides which samples are shown.
 */
#ifndef _USTACK_SESSION_H
#define _USTACK_SESSION_H

#include "ustack.h"

struct tep_record;
struct ustack_events;
struct ustack_filter;
struct ustack_sb_rec;
struct ustack_session;

typedef void (*ustack_sample_fn)(const struct ustack_sample *sample, void *ctx);

/**
 * struct ustack_session_opts - what the session keeps and hands out
 * @hold_ns:	how long (in record timestamps) a complete sample whose ids
 *		are not announced yet is held back waiting for its
 *		inode_cache event from another CPU; 0 = default (100 ms)
 * @max_pending: bound on events waiting for their stack; beyond it the
 *		oldest cookie is given up as lost; 0 = default
 *		(USTACK_MAX_PENDING_DEFAULT)
 * @want_kernel: collect ftrace:kernel_stack frames into the sample
 * @ordered:	hand samples out in event order (timestamp order of the
 *		feed) instead of as soon as each is complete; a sample then
 *		waits for every earlier one
 * @live:	the records come from this machine now: tasks are learned
 *		from /proc and task_newtask
 * @pids:	hand out only samples whose pid or tgid is listed (NULL: all)
 * @nr_pids:	entries in @pids
 * @comms:	hand out only samples whose comm is listed (NULL: all)
 * @nr_comms:	entries in @comms
 * @count_only:	nothing will look at the samples, only at the stats (the
 *		summary of `record`): keep no copy of the records and hand
 *		nothing out
 * @perf_max_stack: the perf stack source's sample_max_stack: a sample
 *		with that many frames was cut there (0: none is marked)
 * @unwind_max:	the most frames a stack unwound from a stack copy (perf
 *		sample or deferred stack) is given, cut there as
 *		--max-stack cuts it (0: no limit of its own; report's
 *		--max-stack, lowered to the recording's when its info
 *		marker names one)
 * @mem_budget:	bytes the samples waiting for their stacks or mappings
 *		(and their frames) may hold; past it the session stops
 *		(ustack_session_error()); 0: no budget
 * @filter:	hand out only the samples it lets through (ustack-filter.h:
 *		events, threads, files, times; NULL: all); not owned
 *
 * Samples the filters leave out are still counted in the stats.
 */
struct ustack_session_opts {
	uint64_t		hold_ns;
	size_t			max_pending;
	bool			want_kernel;
	bool			ordered;
	bool			live;
	const int		*pids;
	size_t			nr_pids;
	const char * const	*comms;
	size_t			nr_comms;
	bool			count_only;
	unsigned int		perf_max_stack;
	unsigned int		unwind_max;
	size_t			mem_budget;
	struct ustack_filter	*filter;
};

#define USTACK_HOLD_NS_DEFAULT		100000000ULL
#define USTACK_MEM_BUDGET_DEFAULT	(256UL << 20)
#define USTACK_MAX_PENDING_DEFAULT	(1U << 18)

struct ustack_session *ustack_session_new(struct ustack_events *ev,
					  const struct ustack_session_opts *opts,
					  ustack_sample_fn fn, void *ctx);
void ustack_session_free(struct ustack_session *s);

/*
 * Feed one record; records must come in timestamp order across CPUs.
 * Samples are handed out as soon as complete (or in event order with
 * opts.ordered); every decision depends on record timestamps only, so the
 * same records give the same samples live and from trace.dat. Bounds on
 * waiting cookies and the hold rules: see lib/ustack-pair.c.
 */
int ustack_session_feed(struct ustack_session *s, struct tep_record *rec);
const char *ustack_session_error(const struct ustack_session *s, char *buf, size_t size);
void ustack_session_preview(struct ustack_session *s, struct tep_record **recs, int nr);

/*
 * The reader saw no record before @ts on any CPU (idle buffers): let held
 * samples whose hold time has passed go out.
 */
void ustack_session_advance(struct ustack_session *s, uint64_t ts);

/*
 * Account ring-buffer losses reported by the reader (missed events) that do
 * not come with a record's tep_record.missed_events (those are counted by
 * feed). @missed as missed_events gives it: 0 or less is an unknown
 * amount, counted as 1. Events still waiting for their cookie on @cpu are
 * reported as "stack lost".
 */
void ustack_session_add_lost(struct ustack_session *s, int cpu, long long missed);

/*
 * Fallback path: register a /proc/<pid>/maps snapshot taken at @ts so that
 * synchronous ftrace:user_stack addresses of @tgid can be mapped to files.
 */
int ustack_session_add_maps(struct ustack_session *s, int tgid, uint64_t ts,
			    const char *maps_text);

/*
 * Fallback path: a side-band record (ustack-sideband.h), in time order
 * with the records fed; from then on its mappings map the stacks. The
 * PROCMAPS option of a recording comes from the same history.
 */
int ustack_session_sideband(struct ustack_session *s, const struct ustack_sb_rec *rec);
char **ustack_session_procmaps(struct ustack_session *s);
void ustack_session_recorded(struct ustack_session *s, int tgid);

/* Tasks: their thread group, the groups shown, /proc before a task goes */
void ustack_session_set_tgid(struct ustack_session *s, int pid, int tgid);
void ustack_session_set_perf_max_stack(struct ustack_session *s, unsigned int max_stack);
struct ustack_unwinder;
void ustack_session_set_unwinder(struct ustack_session *s, struct ustack_unwinder *u);
const uint8_t *ustack_session_stack_used(const struct ustack_session *s,
					 unsigned int *cut);
int ustack_session_follow(struct ustack_session *s, int tgid);
void ustack_session_skip_until_exec(struct ustack_session *s, int pid);
void ustack_session_learn_task(struct ustack_session *s, int pid);

/* End of data: hand out everything held, pending cookies become lost. */
void ustack_session_flush(struct ustack_session *s);

const struct ustack_stats *ustack_session_stats(struct ustack_session *s);

#endif /* _USTACK_SESSION_H */
