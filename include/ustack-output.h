/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Printing samples: trace-cmd report style stacks, folded stacks,
 * perf-script text; filters; the summary.
 */
#ifndef _USTACK_OUTPUT_H
#define _USTACK_OUTPUT_H

#include <stdio.h>

#include "ustack.h"
#include "ustack-resolve.h"

enum ustack_output_mode {
	USTACK_OUTPUT_STACKS,		/* report line, then one frame a line */
	USTACK_OUTPUT_FOLDED,		/* comm;root;...;leaf count */
	USTACK_OUTPUT_PERF_SCRIPT,	/* `perf script` text */
	USTACK_OUTPUT_NONE,		/* nothing: only a profile (flame graph...) */
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

/**
 * struct ustack_symbolizer - how the output layer names user frames
 * @lookup:	symbolize @offset in the file of @map (see ustack_dso_lookup:
 *		a count of frames, or -USTACK_UNRES_* when none)
 * @dso_name:	short display name of the file of @map
 * @jit:	symbolize an address in anonymous memory, may be NULL
 * @ctx:	passed back to the callbacks
 *
 * ustack_output_new() builds one from a struct ustack_resolver; tests may
 * install their own with ustack_output_set_symbolizer().
 */
struct ustack_symbolizer {
	int		(*lookup)(void *ctx, const struct ustack_mapping *map,
				  uint64_t offset, bool return_address,
				  struct ustack_sym *out, int max);
	const char	*(*dso_name)(void *ctx, const struct ustack_mapping *map);
	int		(*jit)(void *ctx, int tgid, uint64_t addr,
			       struct ustack_sym *out);
	void		*ctx;
};

struct ustack_output;
struct ustack_profile;
struct tep_handle;

struct ustack_output *ustack_output_new(struct tep_handle *tep,
					struct ustack_resolver *resolver,
					const struct ustack_output_opts *opts,
					FILE *fp);
void ustack_output_free(struct ustack_output *o);
void ustack_output_set_symbolizer(struct ustack_output *o,
				  const struct ustack_symbolizer *sym);
void ustack_output_set_profile(struct ustack_output *o, struct ustack_profile *p);

int ustack_output_sample(struct ustack_output *o,
			 const struct ustack_sample *sample);
int ustack_output_finish(struct ustack_output *o);

void ustack_output_summary(const struct ustack_output *o, FILE *fp,
			   const struct ustack_stats *st);
bool ustack_output_needs_kernel_symbols(const struct ustack_output_opts *opts);
void ustack_output_recorded(FILE *fp, const struct ustack_rb_stats *rb, const char *file);

#endif /* _USTACK_OUTPUT_H */
