/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Which samples a run shows, beyond the session's pids and task names:
 * their event (shell patterns of system and name), thread, a file one of
 * their user frames is in, and a time range. The session asks it once
 * per sample before handing it out (struct ustack_session_opts.filter),
 * so every output (stacks, folded, perf-script, profiles, --top, --tree)
 * sees the same samples.
 */
#ifndef _USTACK_FILTER_H
#define _USTACK_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "ustack.h"

struct ustack_filter;

/**
 * struct ustack_time_bound - one end of the time range
 * @set:	the bound was given
 * @relative:	@us counts from the first traced event of the data
 * @us:		microseconds: of the trace clock as printed (920.105459 is
 *		920105459), or from the first event
 *
 * Bounds compare at the precision timestamps are printed with: a sample
 * printed 920.105459 is at 920105459 whatever its nanoseconds.
 */
struct ustack_time_bound {
	bool		set;
	bool		relative;
	uint64_t	us;
};

struct ustack_filter *ustack_filter_new(void);
void ustack_filter_free(struct ustack_filter *f);

int ustack_filter_add_event(struct ustack_filter *f, const char *system, const char *name);
int ustack_filter_add_tid(struct ustack_filter *f, int tid);
int ustack_filter_add_dso(struct ustack_filter *f, const char *pattern);
void ustack_filter_set_time(struct ustack_filter *f, const struct ustack_time_bound *since,
			    const struct ustack_time_bound *until);
bool ustack_filter_any(const struct ustack_filter *f);

bool ustack_filter_match(struct ustack_filter *f, const struct ustack_sample *s,
			 uint64_t first_ts);

int ustack_filter_time_parse(const char *arg, struct ustack_time_bound *b);

#endif /* _USTACK_FILTER_H */
