/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Profiles: every rendered sample aggregated into distinct stacks, written
 * at the end as an interactive flame graph (SVG), a pprof profile
 * (profile.proto, gzipped) or a speedscope file (JSON).
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
int ustack_pprof_write(const struct ustack_profile *p, const char *path);
int ustack_speedscope_write(const struct ustack_profile *p, FILE *fp);

#endif /* _USTACK_PROFILE_H */
