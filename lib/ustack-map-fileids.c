// SPDX-License-Identifier: LGPL-2.1
/*
 * File id -> file history (see ustack-map-fileids.h).
 *
 * Every struct ustack_mapping handed out lives until the history is
 * freed: samples keep plain pointers to them.
 */
#include <stdlib.h>
#include <string.h>

#include "ustack-array.h"
#include "ustack-map-fileids.h"
#include "ustack-hash.h"

/* All announcements of one id, sorted by timestamp. */
struct id_hist {
	struct ustack_hnode	node;
	uint64_t		id;
	struct ustack_mapping	**v;
	size_t			nr;
	size_t			alloc;
};

struct ustack_map_fileids {
	struct ustack_htable	ids;
	size_t			nr_maps;
};

/**
 * ustack_map_fileids_mapping_dup - copy a mapping, path included
 * @tmpl: the mapping
 *
 * Returns NULL when out of memory.
 */
struct ustack_mapping *ustack_map_fileids_mapping_dup(const struct ustack_mapping *tmpl)
{
	struct ustack_mapping *map;

	map = malloc(sizeof(*map));
	if (!map)
		return NULL;
	*map = *tmpl;
	if (map->build_id_len > USTACK_BUILD_ID_MAX)
		map->build_id_len = USTACK_BUILD_ID_MAX;
	map->path = strdup(tmpl->path ? tmpl->path : "");
	if (!map->path) {
		free(map);
		return NULL;
	}
	return map;
}

/**
 * ustack_map_fileids_mapping_free - free a mapping made by ustack_map_fileids_mapping_dup()
 * @map: the mapping (may be NULL)
 */
void ustack_map_fileids_mapping_free(struct ustack_mapping *map)
{
	if (!map)
		return;
	free(map->path);
	free(map);
}

/**
 * ustack_map_fileids_new - create an empty id -> file history
 */
struct ustack_map_fileids *ustack_map_fileids_new(void)
{
	return calloc(1, sizeof(struct ustack_map_fileids));
}

/**
 * ustack_map_fileids_free - free the history and every mapping it handed out
 * @f: the history (may be NULL)
 */
void ustack_map_fileids_free(struct ustack_map_fileids *f)
{
	struct ustack_hnode *pos, *tmp;
	struct id_hist *h;
	size_t i, j;

	if (!f)
		return;
	ustack_hash_table_for_each_safe(&f->ids, i, pos, tmp) {
		h = ustack_hash_table_entry(pos, struct id_hist, node);
		for (j = 0; j < h->nr; j++)
			ustack_map_fileids_mapping_free(h->v[j]);
		free(h->v);
		free(h);
	}
	ustack_hash_table_release(&f->ids);
	free(f);
}

static struct id_hist *hist_find(const struct ustack_map_fileids *f, uint64_t id)
{
	struct ustack_hnode *pos;
	struct id_hist *h;

	ustack_hash_table_for_each_hash(&f->ids, pos, ustack_hash_u64(id)) {
		h = ustack_hash_table_entry(pos, struct id_hist, node);
		if (h->id == id)
			return h;
	}
	return NULL;
}

static struct id_hist *hist_get(struct ustack_map_fileids *f, uint64_t id)
{
	struct id_hist *h = hist_find(f, id);

	if (h)
		return h;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->id = id;
	if (ustack_hash_table_add(&f->ids, &h->node, ustack_hash_u64(id))) {
		free(h);
		return NULL;
	}
	return h;
}

/**
 * ustack_map_fileids_add - record one announcement of a file id
 * @f:		the history
 * @tmpl:	the announcement; copied, including the path
 *
 * Announcements may come in any order; each id keeps its own list sorted
 * by timestamp (ties keep arrival order, so the later one wins).
 *
 * Returns the stored mapping, or NULL on allocation failure.
 */
const struct ustack_mapping *ustack_map_fileids_add(struct ustack_map_fileids *f,
						const struct ustack_mapping *tmpl)
{
	struct ustack_mapping *map;
	struct id_hist *h;
	size_t i;

	h = hist_get(f, tmpl->id);
	if (!h || ustack_array_grow((void **)&h->v, &h->alloc, h->nr + 1, sizeof(*h->v)))
		return NULL;
	map = ustack_map_fileids_mapping_dup(tmpl);
	if (!map)
		return NULL;
	/* Usually appended: the feed is in timestamp order. */
	for (i = h->nr; i > 0 && h->v[i - 1]->ts > map->ts; i--)
		h->v[i] = h->v[i - 1];
	h->v[i] = map;
	h->nr++;
	f->nr_maps++;
	return map;
}

/**
 * ustack_map_fileids_lookup - bind an id as of a stack's timestamp (rule 3)
 * @f:		the history
 * @id:		file id from a stack event
 * @ts:		timestamp of the stack event
 * @after:	set to true when the answer is announced after @ts (clock
 *		skew between CPUs), false when at or before; may be NULL
 *
 * Returns the most recent announcement of @id at or before @ts, else the
 * earliest one after it, else NULL (never a guess).
 */
const struct ustack_mapping *ustack_map_fileids_lookup(const struct ustack_map_fileids *f,
						   uint64_t id, uint64_t ts, bool *after)
{
	const struct id_hist *h = hist_find(f, id);
	size_t lo = 0, hi, mid;

	if (after)
		*after = false;
	if (!h || !h->nr)
		return NULL;
	/* First index whose ts is > @ts */
	hi = h->nr;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (h->v[mid]->ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0)
		return h->v[lo - 1];
	if (after)
		*after = true;
	return h->v[0];
}

/**
 * ustack_map_fileids_count - number of announcements stored
 * @f: the history
 */
size_t ustack_map_fileids_count(const struct ustack_map_fileids *f)
{
	return f->nr_maps;
}
