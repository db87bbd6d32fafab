// SPDX-License-Identifier: LGPL-2.1
/*
 * Sets of address ranges (see ustack-map-set.h).
 *
 * A set is an AVL tree of its ranges keyed by their start (they never
 * overlap): putting a range on it and finding the range of an address
 * cost the log of its size, not its size; a program may make tens of
 * thousands of mappings, and a trace may claim as many.
 *
 * Sets share nodes: ustack_map_set_share() takes a reference on the other
 * set's root and copies nothing. A tree is changed only through nodes
 * one reference holds: a shared node on the way down is copied first,
 * the copy taking references on its children (path copying), so that a
 * change after a fork copies the nodes on its path, O(log n), and the
 * other sets see none of it. A node held once whose ancestors are all
 * held once is in one tree only: it is changed in place.
 *
 * Why this and not simpler: a sorted array with a reference count would
 * copy the whole array at the first change of each fork (a shell's
 * children that each load a library: the memory and time this replaces);
 * libc's tsearch() neither shares nodes nor finds the range before an
 * address; a treap's depth depends on random numbers that a hostile
 * trace may defeat, an AVL tree's never exceeds 1.44 log2(n).
 *
 * The nodes come from a pool, which keeps before each change of one node
 * the nodes that change may take (reserve()): a change never fails
 * half-way, so a tree is always whole and balanced.
 */
#include <stdlib.h>

#include "ustack-map-set.h"

struct ustack_mapnode {
	struct ustack_vma	v;
	struct ustack_mapnode	*l;
	struct ustack_mapnode	*r;
	unsigned int		ref;		/* parents and sets holding it */
	int			height;		/* of its subtree: a leaf's is 1 */
};

/* Free nodes kept beyond a change's reserve */
#define SPARE_MAX	512

struct ustack_map_set_pool {
	struct ustack_mapnode	*spare;		/* free nodes, linked by ->l */
	size_t			nr_spare;
	size_t			budget;		/* what the change reserved */
	bool			overdrawn;	/* a change took more */
	uint64_t		work;		/* see ustack_map_set_pool_work() */
};

/**
 * ustack_map_set_pool_new - where the nodes of sets that share come from
 *
 * Sets that share nodes must use the same pool. Returns NULL when out of
 * memory.
 */
struct ustack_map_set_pool *ustack_map_set_pool_new(void)
{
	return calloc(1, sizeof(struct ustack_map_set_pool));
}

/**
 * ustack_map_set_pool_free - free a pool whose sets are all cleared
 * @pool: the pool (may be NULL)
 */
void ustack_map_set_pool_free(struct ustack_map_set_pool *pool)
{
	struct ustack_mapnode *n;

	if (!pool)
		return;
	while (pool->spare) {
		n = pool->spare;
		pool->spare = n->l;
		free(n);
	}
	free(pool);
}

/**
 * ustack_map_set_pool_work - what the sets of @pool cost so far
 * @pool: the pool
 *
 * Tree nodes visited, made or copied: tests bound it (a change or a
 * look-up must cost the log of its set's size, a share nothing).
 */
uint64_t ustack_map_set_pool_work(const struct ustack_map_set_pool *pool)
{
	return pool->work;
}

/* ------------------------------------------------------------------ */
/* Nodes                                                              */
/* ------------------------------------------------------------------ */

static int height(const struct ustack_mapnode *n)
{
	return n ? n->height : 0;
}

static void fix_height(struct ustack_mapnode *n)
{
	int l = height(n->l), r = height(n->r);

	n->height = 1 + (l > r ? l : r);
}

/*
 * Nodes enough for any change of one node of a tree of @height: the path
 * down to it and on to its successor (each copied if shared), and the
 * two nodes a rotation may copy at each level on the way up, plus a new
 * one. Returns 0, or -1 when out of memory (nothing changed yet).
 */
static int reserve(struct ustack_map_set_pool *pool, int height)
{
	size_t need = 3 * (size_t)height + 2;
	struct ustack_mapnode *n;

	while (pool->nr_spare < need) {
		n = malloc(sizeof(*n));
		if (!n)
			return -1;
		n->l = pool->spare;
		pool->spare = n;
		pool->nr_spare++;
	}
	pool->budget = need;
	return 0;
}

/* A node of the reserve: there is one after reserve() */
static struct ustack_mapnode *node_take(struct ustack_map_set_pool *pool)
{
	struct ustack_mapnode *n = pool->spare;

	/* nodes freed since may have made up for it: say it, for tests */
	if (!pool->budget)
		pool->overdrawn = true;
	else
		pool->budget--;
	pool->spare = n->l;
	pool->nr_spare--;
	pool->work++;
	return n;
}

static void node_give(struct ustack_map_set_pool *pool, struct ustack_mapnode *n)
{
	if (pool->nr_spare >= SPARE_MAX) {
		free(n);
		return;
	}
	n->l = pool->spare;
	pool->spare = n;
	pool->nr_spare++;
}

static struct ustack_mapnode *tree_get(struct ustack_mapnode *n)
{
	if (n)
		n->ref++;
	return n;
}

/* Drop a reference to @n: the nodes no one holds any more go */
static void tree_put(struct ustack_map_set_pool *pool, struct ustack_mapnode *n)
{
	struct ustack_mapnode *r;

	while (n && !--n->ref) {
		tree_put(pool, n->l);
		r = n->r;
		node_give(pool, n);
		n = r;
	}
}

/* @n, about to be changed: itself when one reference holds it, else a copy */
static struct ustack_mapnode *own(struct ustack_map_set_pool *pool, struct ustack_mapnode *n)
{
	struct ustack_mapnode *c;

	pool->work++;
	if (n->ref == 1)
		return n;
	c = node_take(pool);
	*c = *n;
	c->ref = 1;
	tree_get(c->l);
	tree_get(c->r);
	n->ref--;
	return c;
}

/* ------------------------------------------------------------------ */
/* Trees                                                              */
/* ------------------------------------------------------------------ */

/* Rotations move references between nodes held once: the counts stay */
static struct ustack_mapnode *rotate_right(struct ustack_mapnode *n)
{
	struct ustack_mapnode *x = n->l;

	n->l = x->r;
	x->r = n;
	fix_height(n);
	fix_height(x);
	return x;
}

static struct ustack_mapnode *rotate_left(struct ustack_mapnode *n)
{
	struct ustack_mapnode *x = n->r;

	n->r = x->l;
	x->l = n;
	fix_height(n);
	fix_height(x);
	return x;
}

/* @n, held once, whose subtrees' heights differ by 2 at most: balanced */
static struct ustack_mapnode *rebalance(struct ustack_map_set_pool *pool,
					struct ustack_mapnode *n)
{
	int b = height(n->l) - height(n->r);

	if (b > 1) {
		n->l = own(pool, n->l);
		if (height(n->l->l) < height(n->l->r)) {
			n->l->r = own(pool, n->l->r);
			n->l = rotate_left(n->l);
		}
		return rotate_right(n);
	}
	if (b < -1) {
		n->r = own(pool, n->r);
		if (height(n->r->r) < height(n->r->l)) {
			n->r->l = own(pool, n->r->l);
			n->r = rotate_right(n->r);
		}
		return rotate_left(n);
	}
	fix_height(n);
	return n;
}

/* @nv, held once, into @n, where no range starts where it does */
static struct ustack_mapnode *tree_insert(struct ustack_map_set_pool *pool,
					  struct ustack_mapnode *n, struct ustack_mapnode *nv)
{
	if (!n)
		return nv;
	n = own(pool, n);
	if (nv->v.start < n->v.start)
		n->l = tree_insert(pool, n->l, nv);
	else
		n->r = tree_insert(pool, n->r, nv);
	return rebalance(pool, n);
}

/* @n without its first node, which goes to *@first, held once */
static struct ustack_mapnode *tree_pop_first(struct ustack_map_set_pool *pool,
					     struct ustack_mapnode *n,
					     struct ustack_mapnode **first)
{
	n = own(pool, n);
	if (!n->l) {
		*first = n;
		return n->r;
	}
	n->l = tree_pop_first(pool, n->l, first);
	return rebalance(pool, n);
}

/* @n without the range that starts at @start (there is one) */
static struct ustack_mapnode *tree_remove(struct ustack_map_set_pool *pool,
					  struct ustack_mapnode *n, uint64_t start)
{
	struct ustack_mapnode *l, *r, *next;

	n = own(pool, n);
	if (start < n->v.start) {
		n->l = tree_remove(pool, n->l, start);
		return rebalance(pool, n);
	}
	if (start > n->v.start) {
		n->r = tree_remove(pool, n->r, start);
		return rebalance(pool, n);
	}
	/* its references to its children go to what takes its place */
	l = n->l;
	r = n->r;
	node_give(pool, n);
	if (!l || !r)
		return l ? l : r;
	r = tree_pop_first(pool, r, &next);
	next->l = l;
	next->r = r;
	return rebalance(pool, next);
}

/* @n with the range that starts at @start (there is one) ending at @end */
static struct ustack_mapnode *tree_cut(struct ustack_map_set_pool *pool,
				       struct ustack_mapnode *n, uint64_t start, uint64_t end)
{
	n = own(pool, n);
	if (start < n->v.start)
		n->l = tree_cut(pool, n->l, start, end);
	else if (start > n->v.start)
		n->r = tree_cut(pool, n->r, start, end);
	else
		n->v.end = end;
	return n;
}

/* The range of @n that starts last at or before @va, or NULL */
static const struct ustack_mapnode *tree_floor(struct ustack_map_set_pool *pool,
					       const struct ustack_mapnode *n, uint64_t va)
{
	const struct ustack_mapnode *best = NULL;

	for (; n; pool->work++) {
		if (n->v.start <= va) {
			best = n;
			n = n->r;
		} else {
			n = n->l;
		}
	}
	return best;
}

/* The range of @n that starts first at or after @va, or NULL */
static const struct ustack_mapnode *tree_ceil(struct ustack_map_set_pool *pool,
					      const struct ustack_mapnode *n, uint64_t va)
{
	const struct ustack_mapnode *best = NULL;

	for (; n; pool->work++) {
		if (n->v.start >= va) {
			best = n;
			n = n->l;
		} else {
			n = n->r;
		}
	}
	return best;
}

/* ------------------------------------------------------------------ */
/* Sets                                                               */
/* ------------------------------------------------------------------ */

/* @v into @set, where no range starts where it does */
static int set_add(struct ustack_map_set_pool *pool, struct ustack_map_set *set,
		   const struct ustack_vma *v)
{
	struct ustack_mapnode *n;

	if (reserve(pool, height(set->root) + 1))
		return -1;
	n = node_take(pool);
	n->v = *v;
	n->l = NULL;
	n->r = NULL;
	n->ref = 1;
	n->height = 1;
	set->root = tree_insert(pool, set->root, n);
	return 0;
}

/**
 * ustack_map_set_insert - put a range on a set, over what it covers
 * @pool:	the pool of @set
 * @set:	the set
 * @v:		the range (copied), not empty
 *
 * The ranges @v overlaps are cut where it starts and ends, or split in
 * two, or removed. Other sets that shared @set's ranges keep theirs.
 *
 * Returns 0, or -1 when out of memory: part of what @v covers may then be
 * in no range of @set (an address there is in no mapping, never in a
 * wrong one).
 */
int ustack_map_set_insert(struct ustack_map_set_pool *pool, struct ustack_map_set *set,
			 const struct ustack_vma *v)
{
	const struct ustack_mapnode *n;
	struct ustack_vma tail = { 0 };
	uint64_t start;

	set->last = NULL;
	/* the range before @v, if it reaches into it: cut, its end kept */
	n = tree_floor(pool, set->root, v->start);
	if (n && n->v.start < v->start && n->v.end > v->start) {
		if (n->v.end > v->end)
			tail = n->v;
		start = n->v.start;
		if (reserve(pool, height(set->root)))
			return -1;
		set->root = tree_cut(pool, set->root, start, v->start);
	}
	/* those that start in it go, but for the end of the last one */
	while ((n = tree_ceil(pool, set->root, v->start)) && n->v.start < v->end) {
		if (n->v.end > v->end)
			tail = n->v;
		start = n->v.start;
		if (reserve(pool, height(set->root)))
			return -1;
		set->root = tree_remove(pool, set->root, start);
	}
	if (set_add(pool, set, v))
		return -1;
	if (!tail.end)
		return 0;
	tail.pgoff += v->end - tail.start;
	tail.start = v->end;
	return set_add(pool, set, &tail);
}

/**
 * ustack_map_set_share - make a set hold another's ranges, without a copy
 * @pool:	the pool of both sets
 * @dst:	the set whose ranges are replaced
 * @src:	the set whose ranges it gets (may be NULL: none)
 *
 * From then on a change of either set is its own.
 */
void ustack_map_set_share(struct ustack_map_set_pool *pool, struct ustack_map_set *dst,
			 const struct ustack_map_set *src)
{
	struct ustack_mapnode *old = dst->root;

	/* taken before the old ones go: @src may be @dst */
	dst->root = tree_get(src ? src->root : NULL);
	dst->last = NULL;
	tree_put(pool, old);
}

/**
 * ustack_map_set_clear - empty a set
 * @pool:	its pool
 * @set:	the set
 */
void ustack_map_set_clear(struct ustack_map_set_pool *pool, struct ustack_map_set *set)
{
	ustack_map_set_share(pool, set, NULL);
}

/**
 * ustack_map_set_find - the range of a set that holds an address
 * @pool:	the pool of @set
 * @set:	the set
 * @va:		the address
 *
 * Returns the range, valid until @set changes, or NULL when none holds
 * @va. The frames of a stack are mostly in the range of the frame
 * before: the last range found is tried first.
 */
const struct ustack_vma *ustack_map_set_find(struct ustack_map_set_pool *pool,
					    struct ustack_map_set *set, uint64_t va)
{
	const struct ustack_mapnode *n = set->last;

	if (!n || va < n->v.start || va >= n->v.end)
		n = tree_floor(pool, set->root, va);
	if (!n || va >= n->v.end)
		return NULL;
	set->last = n;
	return &n->v;
}

/* The height of @n, whose ranges must lie in [@lo, @hi]; -1: not a set */
static int tree_check(const struct ustack_mapnode *n, uint64_t lo, uint64_t hi, size_t *nr)
{
	int l, r;

	if (!n)
		return 0;
	if (!n->ref || n->v.start < lo || n->v.end <= n->v.start || n->v.end - 1 > hi)
		return -1;
	l = n->v.start > lo ? tree_check(n->l, lo, n->v.start - 1, nr) : (n->l ? -1 : 0);
	r = n->v.end - 1 < hi ? tree_check(n->r, n->v.end, hi, nr) : (n->r ? -1 : 0);
	if (l < 0 || r < 0 || l - r > 1 || r - l > 1 || n->height != 1 + (l > r ? l : r))
		return -1;
	(*nr)++;
	return n->height;
}

/**
 * ustack_map_set_pool_check - whether no change took more nodes than it
 *	reserved, for tests
 * @pool: the pool
 *
 * Returns 0, or -1 when one did: out of memory, that change could have
 * failed half-way.
 */
int ustack_map_set_pool_check(const struct ustack_map_set_pool *pool)
{
	return pool->overdrawn ? -1 : 0;
}

/**
 * ustack_map_set_check - whether a set is whole, for tests
 * @set: the set
 *
 * Returns its number of ranges, or -1 when its tree is not one: ranges
 * out of order, overlapping or empty, a height wrong or out of balance,
 * a node no one holds.
 */
long ustack_map_set_check(const struct ustack_map_set *set)
{
	size_t nr = 0;

	return tree_check(set->root, 0, UINT64_MAX, &nr) < 0 ? -1 : (long)nr;
}

static void tree_walk(const struct ustack_mapnode *n,
		      void (*fn)(const struct ustack_vma *v, void *ctx), void *ctx)
{
	/* the recursion's depth is the tree's height: 1.44 log2(n) at most */
	for (; n; n = n->r) {
		tree_walk(n->l, fn, ctx);
		fn(&n->v, ctx);
	}
}

/**
 * ustack_map_set_walk - each range of a set, in address order
 * @set:	the set
 * @fn:		called with each range
 * @ctx:	passed to @fn
 */
void ustack_map_set_walk(const struct ustack_map_set *set,
			void (*fn)(const struct ustack_vma *v, void *ctx), void *ctx)
{
	tree_walk(set->root, fn, ctx);
}
