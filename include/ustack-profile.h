/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Profiles: every rendered sample aggregated into distinct stacks, written
 * at the end as an interactive flame graph (SVG), a pprof profile
 * (profile.proto, gzipped), a speedscope file (JSON), or printed as a
 * table of functions (--top) or a call tree (--tree).
 */
#ifndef _USTACK_PROFILE_H
#define _USTACK_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ustack.h"

struct ustack_profile;
struct ustack_consumer;

struct ustack_profile *ustack_profile_new(bool keep_order);
void ustack_profile_free(struct ustack_profile *p);

/* Fills @c: attached to the render stage, it gets every sample. */
void ustack_profile_consumer(struct ustack_profile *p, struct ustack_consumer *c);

void ustack_profile_set_event_root(struct ustack_profile *p, bool on);
void ustack_profile_set_command(struct ustack_profile *p, const char *command);
void ustack_profile_set_program(struct ustack_profile *p, const char *path);
void ustack_profile_set_stats(struct ustack_profile *p, const struct ustack_stats *st);

/**
 * struct ustack_flamegraph_opts - how the flame graph is drawn
 * @reverse:	merge stacks leaf first and draw them top down: an icicle
 *		of callers
 * @min_permille: frames narrower than this many thousandths of all samples
 *		are merged into one box per parent (default when 0: 1)
 * @width:	image width in pixels (default when 0: 1200)
 */
struct ustack_flamegraph_opts {
	bool		reverse;
	unsigned int	min_permille;
	unsigned int	width;
};

int ustack_flamegraph_write(const struct ustack_profile *p,
			    const struct ustack_flamegraph_opts *opts, FILE *fp);

/* What a row of --top is per, what groups --tree (struct ustack_top_opts) */
enum ustack_sort_key {
	USTACK_SORT_SYM,	/* the function (its name) */
	USTACK_SORT_DSO,	/* the file it is in */
	USTACK_SORT_COMM,	/* the task name */
	USTACK_SORT_EVENT,	/* the traced event */
	USTACK_SORT_NR,
};

/**
 * struct ustack_top_opts - the table of functions (ustack_top_write())
 * @keys:	what a row is per, in the order of the columns; none: sym
 * @nr_keys:	how many
 * @max_rows:	print at most this many rows, 0: all
 * @percent_limit: leave out the rows whose total is under this share of
 *		the events, in percent
 */
struct ustack_top_opts {
	enum ustack_sort_key	keys[USTACK_SORT_NR];
	unsigned int		nr_keys;
	unsigned long		max_rows;
	double			percent_limit;
};

int ustack_top_write(const struct ustack_profile *p, const struct ustack_top_opts *opts,
		     FILE *fp);

/**
 * struct ustack_tree_opts - the call tree (ustack_tree_write())
 * @callee:	from the leaves up to their callers; else from the outermost
 *		frames down to the leaves
 * @keys:	USTACK_SORT_COMM and USTACK_SORT_EVENT make levels of their
 *		own above the frames, in this order; USTACK_SORT_DSO adds
 *		its file to each function's name (sym: always)
 * @nr_keys:	how many
 * @percent_limit: branches under this share of the events, in percent,
 *		are folded into one line per parent (< 0: 0.5)
 * @width:	columns the lines are cut to fit (0: 80)
 */
struct ustack_tree_opts {
	bool			callee;
	enum ustack_sort_key	keys[USTACK_SORT_NR];
	unsigned int		nr_keys;
	double			percent_limit;
	unsigned int		width;
};

int ustack_tree_write(const struct ustack_profile *p, const struct ustack_tree_opts *opts,
		      FILE *fp);

int ustack_pprof_write(const struct ustack_profile *p, const char *path);
int ustack_speedscope_write(const struct ustack_profile *p, FILE *fp);

#endif /* _USTACK_PROFILE_H */
