/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: sets of address ranges that never overlap, each range
 * mapping to a file offset: a process's executable mappings as the
 * side-band told them (ustack-map-history.c). A range put on a set cuts away
 * what it covers. Sets share their ranges with the sets they were made
 * from (a fork's with its parent's) until one of them changes; a change
 * and a look-up cost O(log n) (see ustack-map-set.c).
 */
#ifndef _USTACK_MAP_SET_H
#define _USTACK_MAP_SET_H

#include <stdbool.h>
#include <stdint.h>

struct ustack_mapping;
struct ustack_mapnode;
struct ustack_map_set_pool;

/**
 * struct ustack_vma - one range of a set
 * @start:	its first address
 * @end:	the address past its last
 * @pgoff:	the file offset of @start
 * @map:	the file; NULL: anonymous memory
 */
struct ustack_vma {
	uint64_t			start;
	uint64_t			end;
	uint64_t			pgoff;
	const struct ustack_mapping	*map;
};

/**
 * struct ustack_map_set - a set of ranges; all zero is the empty set
 * @root:	its ranges, maybe shared with other sets (ustack-map-set.c)
 * @last:	the range the last look-up found, tried first by the next
 */
struct ustack_map_set {
	struct ustack_mapnode		*root;
	const struct ustack_mapnode	*last;
};

struct ustack_map_set_pool *ustack_map_set_pool_new(void);
void ustack_map_set_pool_free(struct ustack_map_set_pool *pool);
uint64_t ustack_map_set_pool_work(const struct ustack_map_set_pool *pool);

int ustack_map_set_insert(struct ustack_map_set_pool *pool, struct ustack_map_set *set,
			 const struct ustack_vma *v);
void ustack_map_set_share(struct ustack_map_set_pool *pool, struct ustack_map_set *dst,
			 const struct ustack_map_set *src);
void ustack_map_set_clear(struct ustack_map_set_pool *pool, struct ustack_map_set *set);
const struct ustack_vma *ustack_map_set_find(struct ustack_map_set_pool *pool,
					    struct ustack_map_set *set, uint64_t va);
void ustack_map_set_walk(const struct ustack_map_set *set,
			void (*fn)(const struct ustack_vma *v, void *ctx), void *ctx);
long ustack_map_set_check(const struct ustack_map_set *set);
int ustack_map_set_pool_check(const struct ustack_map_set_pool *pool);

/* Whether @set has no range */
static inline bool ustack_map_set_empty(const struct ustack_map_set *set)
{
	return !set->root;
}

#endif /* _USTACK_MAP_SET_H */
