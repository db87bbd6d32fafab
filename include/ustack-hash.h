/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The one hash table of libustack: chained and intrusive (an entry embeds
 * a struct ustack_hnode), with a power-of-two number of buckets that
 * doubles once the table holds as many entries as buckets.
 *
 * The table knows hashes, not keys: the caller hashes its key with
 * ustack_hash_u64() or ustack_hash_mem(), walks the entries of that hash
 * and compares keys itself. Nodes keep their hash, so growing calls
 * nothing back.
 */
#ifndef _USTACK_HASH_H
#define _USTACK_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "ustack-list.h"

struct ustack_hnode {
	struct ustack_hnode	*next;
	uint64_t		hash;
};

struct ustack_htable {
	struct ustack_hnode	**buckets;
	size_t			nr_buckets;
	size_t			nr;
};

int ustack_hash_table_init(struct ustack_htable *t, size_t nr_buckets);
void ustack_hash_table_release(struct ustack_htable *t);
void ustack_hash_table_clear(struct ustack_htable *t);
int ustack_hash_table_add(struct ustack_htable *t, struct ustack_hnode *node, uint64_t hash);
void ustack_hash_table_del(struct ustack_htable *t, struct ustack_hnode *node);

/* The first entry of @hash, then the next one of the same hash, or NULL. */
struct ustack_hnode *ustack_hash_table_first(const struct ustack_htable *t, uint64_t hash);
struct ustack_hnode *ustack_hash_table_next(const struct ustack_hnode *node);

#define ustack_hash_table_entry(ptr, type, member) \
	ustack_container_of(ptr, type, member)

/* Every entry whose hash is @hash. */
#define ustack_hash_table_for_each_hash(t, pos, hash) \
	for (pos = ustack_hash_table_first(t, hash); pos; pos = ustack_hash_table_next(pos))

/* Every entry; @pos may be deleted (or freed) in the loop body. */
#define ustack_hash_table_for_each_safe(t, i, pos, tmp) \
	for (i = 0; i < (t)->nr_buckets; i++) \
		for (pos = (t)->buckets[i]; pos && ((tmp = pos->next), 1); pos = tmp)

uint64_t ustack_hash_u64(uint64_t v);
uint64_t ustack_hash_mem(const void *data, size_t len, uint64_t seed);
uint64_t ustack_hash_str(const char *s);

#endif /* _USTACK_HASH_H */
