/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The kernel's throttling of the perf source's events, told by their
 * THROTTLE and UNTHROTTLE records (ustack-throttle.c): how many times, and
 * for how long. The hits of a throttled event are neither sampled nor
 * counted in any LOST record, so this is all that can be said of them.
 */
#ifndef _USTACK_THROTTLE_H
#define _USTACK_THROTTLE_H

#include <stddef.h>
#include <stdint.h>

struct ustack_sb_rec;

/* An event throttled and not resumed yet: its stream id, and since when */
struct ustack_throttle_span {
	uint64_t	id;
	uint64_t	since;
};

/*
 * Zeroed before the first record: @count throttles, @ns of spans ended,
 * @open those not ended, @last the latest time of a record noted
 */
struct ustack_throttle {
	uint64_t			count;
	uint64_t			ns;
	struct ustack_throttle_span	*open;
	size_t				nr_open;
	size_t				alloc_open;
	uint64_t			last;
};

void ustack_throttle_note(struct ustack_throttle *t, const struct ustack_sb_rec *rec);
uint64_t ustack_throttle_ns(const struct ustack_throttle *t);
void ustack_throttle_release(struct ustack_throttle *t);

#endif /* _USTACK_THROTTLE_H */
