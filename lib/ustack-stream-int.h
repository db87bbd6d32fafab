/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to the stream (lib/ustack-stream.c, ustack-stream-sideband.c):
 * the queue of perf side-band records that the merge releases between
 * the trace records.
 */
#ifndef _USTACK_STREAM_INT_H
#define _USTACK_STREAM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_item;
struct tep_record;
struct ustack_stream_ops;

/*
 * Side-band records waiting for their turn, by (time, arrival): @items
 * from @pos on. All zero is an empty queue; the stream holds one.
 */
struct ustack_stream_sideband {
	struct sb_item		**items;
	size_t			nr;
	size_t			pos;
	size_t			alloc;
	struct sb_item		**tmp;		/* the merge's other half */
	size_t			tmp_alloc;
	uint64_t		seq;		/* arrival of the next record */
};

size_t ustack_stream_sideband_add(struct ustack_stream_sideband *q, char **buf, size_t len);
bool ustack_stream_sideband_release(struct ustack_stream_sideband *q,
				    const struct tep_record *best, unsigned long long horizon,
				    const struct ustack_stream_ops *ops, void *ctx);
size_t ustack_stream_sideband_free(struct ustack_stream_sideband *q);

#endif /* _USTACK_STREAM_INT_H */
