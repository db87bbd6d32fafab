// SPDX-License-Identifier: LGPL-2.1
/*
 * The stream's side-band queue: the perf side-band records that the
 * reader drained with each batch of trace pages (ustack-stream.c), kept
 * in time order until the merge releases them between the trace records.
 *
 * One clock on both sides: a record is released once the trace records
 * before it are out, and before a trace record of the same time (a
 * task's mapping and name come before its events). Records of equal
 * times keep the order they arrived in.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack-array.h"
#include "ustack-sideband.h"
#include "ustack-stream-ops.h"
#include "ustack-stream-int.h"

/*
 * The side-band records of one drain: the drained bytes, which their
 * items point into, and the items, freed together once the last item is
 * handed out and whoever kept a record (its @hold) let it go. A perf
 * source's sample is one item per traced event: an item of its own with
 * a copy of the sample cost a malloc(), a free() and a memcpy() a traced
 * event (the spares kept for reuse ran out whenever a drain had more
 * samples than them).
 */
struct sb_chunk {
	struct ustack_sb_hold	hold;		/* items not handed out yet, keepers */
	char			*buf;
	struct sb_item		*items;
	size_t			nr;
	size_t			alloc;
	size_t			dropped;	/* bytes of records not queued */
};

/* A side-band record waiting for its turn; what it points to is its chunk's */
struct sb_item {
	struct ustack_sb_rec	rec;
	uint64_t		seq;
	struct sb_chunk		*chunk;
};

static void chunk_free(struct sb_chunk *c)
{
	free(c->buf);
	free(c->items);
	free(c);
}

static void chunk_release(struct ustack_sb_hold *hold)
{
	chunk_free((struct sb_chunk *)((char *)hold - offsetof(struct sb_chunk, hold)));
}

/* An item of @c was handed out (or dropped): the last reference frees it */
static void sb_item_put(struct sb_item *it)
{
	ustack_sb_hold_put(&it->chunk->hold);
}

static void add_sb(const struct ustack_sb_rec *rec, void *ctx)
{
	struct sb_chunk *c = ctx;
	struct sb_item *it;

	/* out of memory: the record is said dropped (ustack_stream_sideband_add()) */
	if (ustack_array_grow((void **)&c->items, &c->alloc, c->nr + 1, sizeof(*c->items))) {
		c->dropped += rec->perf_size;
		return;
	}
	it = &c->items[c->nr++];
	it->rec = *rec;
	it->rec.hold = &c->hold;
	it->chunk = c;
	/* the file is most likely still the one mapped: as soon as drained */
	ustack_sideband_fill_build_id(&it->rec);
}

/* The side-band's order: by time, then as the records arrived */
static bool sb_before(const struct sb_item *x, const struct sb_item *y)
{
	return x->rec.ts != y->rec.ts ? x->rec.ts < y->rec.ts : x->seq < y->seq;
}

static int sb_cmp(const void *a, const void *b)
{
	const struct sb_item *x = *(struct sb_item * const *)a, *y = *(struct sb_item * const *)b;

	return sb_before(x, y) ? -1 : sb_before(y, x);
}

/* The end of the ordered run of @v that starts at @i */
static size_t run_end(struct sb_item **v, size_t i, size_t n)
{
	while (++i < n && !sb_before(v[i], v[i - 1]))
		;
	return i;
}

/* @a (@na items) and @b (@nb) into @out, each in order */
static void merge_runs(struct sb_item **a, size_t na, struct sb_item **b, size_t nb,
		       struct sb_item **out)
{
	size_t i = 0, j = 0;

	while (i < na && j < nb)
		*out++ = sb_before(b[j], a[i]) ? b[j++] : a[i++];
	memcpy(out, a + i, (na - i) * sizeof(*a));
	memcpy(out + na - i, b + j, (nb - j) * sizeof(*b));
}

/*
 * Order the side-band items. They come as a few ordered runs (what was
 * waiting, then each ring's records of the drain, each ring in order):
 * merging neighbouring runs until one is left costs a pass per halving
 * of the runs, where a sort would compare n log n times. Falls back to
 * qsort() when the merge's buffer cannot be had.
 */
static void sb_order(struct ustack_stream_sideband *q)
{
	struct sb_item **src = q->items, **dst, **tmp;
	size_t n = q->nr, i, mid, end;
	bool one;

	if (run_end(src, 0, n) == n)
		return;
	if (ustack_array_grow((void **)&q->tmp, &q->tmp_alloc, n, sizeof(*src))) {
		qsort(q->items, n, sizeof(*q->items), sb_cmp);
		return;
	}
	dst = q->tmp;
	do {
		one = true;
		for (i = 0; i < n; i = end) {
			mid = run_end(src, i, n);
			end = mid < n ? run_end(src, mid, n) : n;
			merge_runs(src + i, mid - i, src + mid, end - mid, dst + i);
			if (i || end < n)
				one = false;
		}
		tmp = src;
		src = dst;
		dst = tmp;
	} while (!one);
	/* the array and the buffer swap roles as they did */
	if (src != q->items) {
		q->tmp = q->items;
		q->items = src;
		i = q->tmp_alloc;
		q->tmp_alloc = q->alloc;
		q->alloc = i;
	}
}

/**
 * ustack_stream_sideband_add - the records of one drain join the queue
 * @q: the stream's queue
 * @buf: records as ustack_perf_sideband_drain() gives them (any ring order): the
 *	queue takes the buffer over and sets *@buf to NULL; a buffer still
 *	in *@buf (none to take, out of memory) stays the caller's
 * @len: bytes in *@buf
 *
 * They join those still waiting, in time order, and stay where the
 * drain put them: the buffer goes to their chunk. Records that cannot
 * be queued (out of memory) are dropped, never silently: returns their
 * bytes (all of @len when none could be queued), 0 when all were.
 */
size_t ustack_stream_sideband_add(struct ustack_stream_sideband *q, char **buf, size_t len)
{
	struct sb_chunk *c;
	size_t i, dropped;

	if (q->pos) {
		memmove(q->items, q->items + q->pos, (q->nr - q->pos) * sizeof(*q->items));
		q->nr -= q->pos;
		q->pos = 0;
	}
	if (!len)
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return len;
	c->buf = *buf;
	*buf = NULL;
	/* the items are where they stay once all are parsed: then listed */
	ustack_perf_sideband_parse(c->buf, len, add_sb, c);
	if (!c->nr) {
		dropped = c->dropped;
		chunk_free(c);
		return dropped;
	}
	if (ustack_array_grow((void **)&q->items, &q->alloc, q->nr + c->nr, sizeof(*q->items))) {
		chunk_free(c);
		return len;
	}
	dropped = c->dropped;
	c->hold.refs = c->nr;
	c->hold.release = chunk_release;
	for (i = 0; i < c->nr; i++) {
		c->items[i].seq = q->seq++;
		q->items[q->nr++] = &c->items[i];
	}
	/* one CPU's ring alone is in order already: nothing to do then */
	sb_order(q);
	return dropped;
}

static struct sb_item *sb_head(struct ustack_stream_sideband *q)
{
	return q->pos < q->nr ? q->items[q->pos] : NULL;
}

/**
 * ustack_stream_sideband_release - hand out the next record if its turn came
 * @q: the stream's queue
 * @best: the trace record next in line, or NULL when none is
 * @horizon: nothing later may go out yet
 * @ops: @ops->sideband is told the record (may be NULL: then it is dropped)
 * @ctx: passed to @ops->sideband
 *
 * A side-band record goes before a trace record of the same time.
 * Returns true when one went out (the merge then looks again).
 */
bool ustack_stream_sideband_release(struct ustack_stream_sideband *q,
				    const struct tep_record *best, unsigned long long horizon,
				    const struct ustack_stream_ops *ops, void *ctx)
{
	struct sb_item *it = sb_head(q);

	if (!it || it->rec.ts > horizon || (best && it->rec.ts > best->ts))
		return false;
	if (ops->sideband)
		ops->sideband(&it->rec, ctx);
	q->pos++;
	sb_item_put(it);
	return true;
}

/**
 * ustack_stream_sideband_free - drop what waits and empty the queue
 * @q: the stream's queue (usable again, empty; safe twice)
 *
 * Returns the bytes of the records that were still waiting (their perf
 * records' sizes): a stream closed early says them unread, as it says the
 * sub-buffers it held, so that none goes without a count.
 */
size_t ustack_stream_sideband_free(struct ustack_stream_sideband *q)
{
	size_t bytes = 0;
	struct sb_item *it;

	while (q->pos < q->nr) {
		it = q->items[q->pos++];
		bytes += it->rec.perf_size;
		sb_item_put(it);
	}
	free(q->items);
	free(q->tmp);
	q->items = q->tmp = NULL;
	q->nr = q->pos = q->alloc = q->tmp_alloc = 0;
	return bytes;
}
