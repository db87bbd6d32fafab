/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The text printer, one consumer of the render stage (ustack-render.h):
 * trace-cmd report style stacks, folded stacks, perf-script text; and
 * the summary.
 */
#ifndef _USTACK_OUTPUT_H
#define _USTACK_OUTPUT_H

#include <stdio.h>

#include "ustack.h"

enum ustack_output_mode {
	USTACK_OUTPUT_STACKS,		/* report line, then one frame a line */
	USTACK_OUTPUT_FOLDED,		/* comm;root;...;leaf count */
	USTACK_OUTPUT_PERF_SCRIPT,	/* `perf script` text */
	USTACK_OUTPUT_NONE,		/* nothing: only a profile (not attached) */
};

/**
 * struct ustack_output_opts - what to print and how
 * @mode:	output format
 * @raw:	no symbols: file offsets and paths only (no resolver needed)
 * @kernel:	print ftrace:kernel_stack frames too
 * @lines:	add file:line to resolved frames (stacks mode)
 * @why:	end each unresolved user frame with its reason (stacks mode)
 * @skip_empty:	do not print samples that have no user stack (lost, no
 *		stack, no cookie)
 * @fold_pid:	folded: first frame is comm-pid instead of comm
 * @fold_event:	folded: a first frame with the event name
 *
 * Which tasks are shown is the session's choice (struct
 * ustack_session_opts).
 */
struct ustack_output_opts {
	enum ustack_output_mode	mode;
	bool			raw;
	bool			kernel;
	bool			lines;
	bool			why;
	bool			skip_empty;
	bool			fold_pid;
	bool			fold_event;
};

struct ustack_output;
struct ustack_render;
struct ustack_consumer;
struct tep_handle;

struct ustack_output *ustack_output_new(struct tep_handle *tep,
					const struct ustack_output_opts *opts,
					FILE *fp);
void ustack_output_free(struct ustack_output *o);
void ustack_output_consumer(struct ustack_output *o, struct ustack_consumer *c);

bool ustack_output_stats_paired(const struct ustack_stats *st);
void ustack_output_summary(const struct ustack_render *r, FILE *fp,
			   const struct ustack_stats *st);
bool ustack_output_needs_kernel_symbols(const struct ustack_output_opts *opts);
void ustack_output_recorded(FILE *fp, const struct ustack_rb_stats *rb, const char *file);
void ustack_output_recorded_samples(FILE *fp, const struct ustack_sample_tally *t,
				    const char *file);

#endif /* _USTACK_OUTPUT_H */
