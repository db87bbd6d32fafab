// SPDX-License-Identifier: LGPL-2.1
/*
 * The hash table and hash functions every part of libustack uses (see
 * ustack-hash.h). A zeroed struct ustack_htable is a valid empty table:
 * the buckets come with the first entry.
 */
#include <stdlib.h>
#include <string.h>

#include "ustack-hash.h"

#define MIN_BUCKETS	16

static size_t bucket_of(const struct ustack_htable *t, uint64_t hash)
{
	return hash & (t->nr_buckets - 1);
}

/**
 * ustack_hash_table_init - give a table its first buckets
 * @t:		the table
 * @nr_buckets:	expected number of entries (rounded up to a power of two)
 *
 * Optional: a zeroed table allocates on the first add. Returns 0 or -1.
 */
int ustack_hash_table_init(struct ustack_htable *t, size_t nr_buckets)
{
	size_t n = MIN_BUCKETS;

	while (n < nr_buckets)
		n *= 2;
	memset(t, 0, sizeof(*t));
	t->buckets = calloc(n, sizeof(*t->buckets));
	if (!t->buckets)
		return -1;
	t->nr_buckets = n;
	return 0;
}

/**
 * ustack_hash_table_release - free the buckets (the entries are the caller's)
 * @t: the table; empty and usable again afterwards
 */
void ustack_hash_table_release(struct ustack_htable *t)
{
	free(t->buckets);
	memset(t, 0, sizeof(*t));
}

/**
 * ustack_hash_table_clear - forget every entry, keeping the buckets
 * @t: the table
 */
void ustack_hash_table_clear(struct ustack_htable *t)
{
	if (t->buckets)
		memset(t->buckets, 0, t->nr_buckets * sizeof(*t->buckets));
	t->nr = 0;
}

/* Twice the buckets; when that fails the chains get longer, still correct. */
static void htable_grow(struct ustack_htable *t)
{
	size_t n = t->nr_buckets ? t->nr_buckets * 2 : MIN_BUCKETS, i;
	struct ustack_hnode **old = t->buckets, *node, *next, *rev;

	t->buckets = calloc(n, sizeof(*t->buckets));
	if (!t->buckets) {
		t->buckets = old;
		return;
	}
	t->nr_buckets = n;
	for (i = 0; old && i < n / 2; i++) {
		/*
		 * An old bucket's entries go to two new ones, which get
		 * entries from no other: pushed from its oldest, each keeps
		 * the newest first (ustack_hash_table_add()'s promise)
		 */
		for (rev = NULL, node = old[i]; node; node = next) {
			next = node->next;
			node->next = rev;
			rev = node;
		}
		for (node = rev; node; node = next) {
			next = node->next;
			node->next = t->buckets[bucket_of(t, node->hash)];
			t->buckets[bucket_of(t, node->hash)] = node;
		}
	}
	free(old);
}

/**
 * ustack_hash_table_add - insert an entry
 * @t:		the table
 * @node:	the entry's node (not in any table)
 * @hash:	hash of the entry's key
 *
 * Entries of equal keys may coexist; the newest is found first. Returns
 * 0, or -1 when the table has no buckets and none can be allocated.
 */
int ustack_hash_table_add(struct ustack_htable *t, struct ustack_hnode *node, uint64_t hash)
{
	size_t b;

	if (t->nr >= t->nr_buckets)
		htable_grow(t);
	if (!t->buckets)
		return -1;
	node->hash = hash;
	b = bucket_of(t, hash);
	node->next = t->buckets[b];
	t->buckets[b] = node;
	t->nr++;
	return 0;
}

/**
 * ustack_hash_table_del - remove an entry
 * @t:		the table
 * @node:	an entry of @t
 */
void ustack_hash_table_del(struct ustack_htable *t, struct ustack_hnode *node)
{
	struct ustack_hnode **pp;

	if (!t->buckets)
		return;
	for (pp = &t->buckets[bucket_of(t, node->hash)]; *pp; pp = &(*pp)->next) {
		if (*pp == node) {
			*pp = node->next;
			node->next = NULL;
			t->nr--;
			return;
		}
	}
}

struct ustack_hnode *ustack_hash_table_first(const struct ustack_htable *t, uint64_t hash)
{
	struct ustack_hnode *node;

	if (!t->buckets)
		return NULL;
	for (node = t->buckets[bucket_of(t, hash)]; node; node = node->next)
		if (node->hash == hash)
			return node;
	return NULL;
}

struct ustack_hnode *ustack_hash_table_next(const struct ustack_hnode *node)
{
	struct ustack_hnode *n;

	for (n = node->next; n; n = n->next)
		if (n->hash == node->hash)
			return n;
	return NULL;
}

/**
 * ustack_hash_u64 - hash of a number (pid, file id, address)
 * @v: the number
 *
 * The 64-bit finalizer of MurmurHash3: every input bit reaches the low
 * bits the buckets are chosen by.
 */
uint64_t ustack_hash_u64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	v *= 0xc4ceb9fe1a85ec53ULL;
	v ^= v >> 33;
	return v;
}

/**
 * ustack_hash_mem - hash of bytes (paths, stack lines, build ids)
 * @data:	the bytes
 * @len:	how many
 * @seed:	0, or the hash of what comes before (to hash several parts)
 *
 * FNV-1a over 8-byte words, for speed on long paths, then a final mix.
 */
uint64_t ustack_hash_mem(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = seed ^ 0xcbf29ce484222325ULL, w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	w = 0;
	/* data may be NULL when len is 0 (memcpy's arguments must not be) */
	if (len)
		memcpy(&w, p, len);
	h = (h ^ w ^ len) * 0x100000001b3ULL;
	return ustack_hash_u64(h);
}

/**
 * ustack_hash_str - hash of a NUL-terminated string
 * @s: the string
 */
uint64_t ustack_hash_str(const char *s)
{
	return ustack_hash_mem(s, strlen(s), 0);
}
