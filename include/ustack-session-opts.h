/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * What a session is opened with (ustack_session_new(), ustack-session.h):
 * its options and the function complete samples go to. On their own, so
 * that the session's own files below its API (lib/ustack-session-int.h)
 * take the types without the API above them.
 */
#ifndef _USTACK_SESSION_OPTS_H
#define _USTACK_SESSION_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ustack_filter;
struct ustack_sample;

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
 * @fp_check:	a frame-pointer stack ends at its first return address in
 *		no executable mapping, or after no call instruction (read
 *		through the unwinder's files, ustack_session_set_unwinder()),
 *		in "[unwind: ...]"; else every frame is kept as mapped
 * @quiet:	no notice as things happen (-q): the summary counts them
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
	bool			fp_check;
	bool			quiet;
};

#define USTACK_HOLD_NS_DEFAULT		100000000ULL
#define USTACK_MEM_BUDGET_DEFAULT	(256UL << 20)
#define USTACK_MAX_PENDING_DEFAULT	(1U << 18)

/* programs without frame pointers executed in a frame-pointer run (ustack-pair-fpexec.c) */
enum ustack_exec_copies {
	USTACK_EXEC_COPIES_ON,		/* the run gives them stack copies */
	USTACK_EXEC_COPIES_OPENED,	/* this process got them */
	USTACK_EXEC_COPIES_CAPPED,	/* ... not: too many processes have them */
	USTACK_EXEC_COPIES_FAILED,	/* ... not: perf refused */
};

#endif /* _USTACK_SESSION_OPTS_H */
