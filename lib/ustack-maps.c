// SPDX-License-Identifier: LGPL-2.1
/*
 * Id -> file history (inode_cache announcements) and /proc/<pid>/maps
 * snapshots for the synchronous fallback.
 *
 * Every struct ustack_mapping handed out lives until the table that made
 * it is freed: samples keep plain pointers to them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-maps.h"

/* ------------------------------------------------------------------ */
/* Small helpers                                                      */
/* ------------------------------------------------------------------ */

static uint64_t hash64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	v *= 0xc4ceb9fe1a85ec53ULL;
	v ^= v >> 33;
	return v;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int grow(void **arr, size_t *alloc, size_t need, size_t size)
{
	size_t n = *alloc ? *alloc : 4;
	void *p;

	if (need <= *alloc)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*arr, n * size);
	if (!p)
		return -1;
	*arr = p;
	*alloc = n;
	return 0;
}

static struct ustack_mapping *mapping_dup(const struct ustack_mapping *tmpl)
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

static void mapping_free(struct ustack_mapping *map)
{
	if (!map)
		return;
	free(map->path);
	free(map);
}

/* ------------------------------------------------------------------ */
/* Id history                                                         */
/* ------------------------------------------------------------------ */

/* All announcements of one id, sorted by timestamp. */
struct id_hist {
	uint64_t		id;
	struct ustack_mapping	**v;
	size_t			nr;
	size_t			alloc;
	struct id_hist		*next;
};

struct ustack_maps {
	struct id_hist	**buckets;
	size_t		nr_buckets;
	size_t		nr_ids;
	size_t		nr_maps;
};

/**
 * ustack_maps_new - create an empty id -> mapping history
 */
struct ustack_maps *ustack_maps_new(void)
{
	struct ustack_maps *m;

	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->nr_buckets = 256;
	m->buckets = calloc(m->nr_buckets, sizeof(*m->buckets));
	if (!m->buckets) {
		free(m);
		return NULL;
	}
	return m;
}

/**
 * ustack_maps_free - free the history and every mapping it handed out
 * @m: the history (may be NULL)
 */
void ustack_maps_free(struct ustack_maps *m)
{
	struct id_hist *h, *next;
	size_t i, j;

	if (!m)
		return;
	for (i = 0; i < m->nr_buckets; i++) {
		for (h = m->buckets[i]; h; h = next) {
			next = h->next;
			for (j = 0; j < h->nr; j++)
				mapping_free(h->v[j]);
			free(h->v);
			free(h);
		}
	}
	free(m->buckets);
	free(m);
}

static struct id_hist *hist_find(const struct ustack_maps *m, uint64_t id)
{
	struct id_hist *h;

	for (h = m->buckets[hash64(id) & (m->nr_buckets - 1)]; h; h = h->next)
		if (h->id == id)
			return h;
	return NULL;
}

static void maps_rehash(struct ustack_maps *m)
{
	size_t nr = m->nr_buckets * 2, i;
	struct id_hist **b, *h, *next;

	b = calloc(nr, sizeof(*b));
	if (!b)
		return;		/* keep the old table: slower, still correct */
	for (i = 0; i < m->nr_buckets; i++) {
		for (h = m->buckets[i]; h; h = next) {
			next = h->next;
			h->next = b[hash64(h->id) & (nr - 1)];
			b[hash64(h->id) & (nr - 1)] = h;
		}
	}
	free(m->buckets);
	m->buckets = b;
	m->nr_buckets = nr;
}

static struct id_hist *hist_get(struct ustack_maps *m, uint64_t id)
{
	struct id_hist *h = hist_find(m, id);
	size_t b;

	if (h)
		return h;
	if (m->nr_ids >= m->nr_buckets)
		maps_rehash(m);
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->id = id;
	b = hash64(id) & (m->nr_buckets - 1);
	h->next = m->buckets[b];
	m->buckets[b] = h;
	m->nr_ids++;
	return h;
}

/**
 * ustack_maps_add - record one announcement of a file id
 * @m:		the history
 * @tmpl:	the announcement; copied, including the path
 *
 * Announcements may come in any order; each id keeps its own list sorted
 * by timestamp (ties keep arrival order, so the later one wins).
 *
 * Returns the stored mapping, or NULL on allocation failure.
 */
const struct ustack_mapping *ustack_maps_add(struct ustack_maps *m,
					     const struct ustack_mapping *tmpl)
{
	struct ustack_mapping *map;
	struct id_hist *h;
	size_t i;

	h = hist_get(m, tmpl->id);
	if (!h || grow((void **)&h->v, &h->alloc, h->nr + 1, sizeof(*h->v)))
		return NULL;
	map = mapping_dup(tmpl);
	if (!map)
		return NULL;
	/* Usually appended: the feed is in timestamp order. */
	for (i = h->nr; i > 0 && h->v[i - 1]->ts > map->ts; i--)
		h->v[i] = h->v[i - 1];
	h->v[i] = map;
	h->nr++;
	m->nr_maps++;
	return map;
}

/**
 * ustack_maps_lookup - bind an id as of a stack's timestamp (rule 3)
 * @m:		the history
 * @id:		file id from a stack event
 * @ts:		timestamp of the stack event
 * @after:	set to true when the answer is announced after @ts (clock
 *		skew between CPUs), false when at or before; may be NULL
 *
 * Returns the most recent announcement of @id at or before @ts, else the
 * earliest one after it, else NULL (never a guess).
 */
const struct ustack_mapping *ustack_maps_lookup(const struct ustack_maps *m,
						uint64_t id, uint64_t ts,
						bool *after)
{
	const struct id_hist *h = hist_find(m, id);
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
 * ustack_maps_count - number of announcements stored
 * @m: the history
 */
size_t ustack_maps_count(const struct ustack_maps *m)
{
	return m->nr_maps;
}

/* ------------------------------------------------------------------ */
/* /proc/<pid>/maps snapshots                                         */
/* ------------------------------------------------------------------ */

struct snap_entry {
	uint64_t			start;
	uint64_t			end;
	uint64_t			pgoff;
	const struct ustack_mapping	*map;
};

struct ustack_snapshot {
	uint64_t		ts;
	int			tgid;
	struct snap_entry	*e;
	size_t			nr;
	size_t			alloc;
};

/* Snapshots of one process, sorted by timestamp. */
struct snap_task {
	int			tgid;
	struct ustack_snapshot	**v;
	size_t			nr;
	size_t			alloc;
	struct snap_task	*next;
};

/* One mapping per distinct (tgid, path, flags). */
struct snap_file {
	struct ustack_mapping	*map;
	struct snap_file	*next;
};

#define SNAP_BUCKETS	256
#define FILE_BUCKETS	1024

struct ustack_snapshots {
	struct snap_task	*tasks[SNAP_BUCKETS];
	struct snap_file	*files[FILE_BUCKETS];
	size_t			nr_files;
	/* Synthetic ids: 0 and 1 are reserved by the ABI */
	uint64_t		next_id;
};

/**
 * ustack_snapshots_new - create an empty snapshot table
 */
struct ustack_snapshots *ustack_snapshots_new(void)
{
	struct ustack_snapshots *t;

	t = calloc(1, sizeof(*t));
	if (t)
		t->next_id = 2;
	return t;
}

static void snapshot_free(struct ustack_snapshot *snap)
{
	if (!snap)
		return;
	free(snap->e);
	free(snap);
}

/**
 * ustack_snapshots_free - free the table, its snapshots and mappings
 * @t: the table (may be NULL)
 */
void ustack_snapshots_free(struct ustack_snapshots *t)
{
	struct snap_task *task, *tnext;
	struct snap_file *f, *fnext;
	size_t i, j;

	if (!t)
		return;
	for (i = 0; i < SNAP_BUCKETS; i++) {
		for (task = t->tasks[i]; task; task = tnext) {
			tnext = task->next;
			for (j = 0; j < task->nr; j++)
				snapshot_free(task->v[j]);
			free(task->v);
			free(task);
		}
	}
	for (i = 0; i < FILE_BUCKETS; i++) {
		for (f = t->files[i]; f; f = fnext) {
			fnext = f->next;
			mapping_free(f->map);
			free(f);
		}
	}
	free(t);
}

static struct snap_task *task_find(const struct ustack_snapshots *t, int tgid)
{
	struct snap_task *task;

	for (task = t->tasks[hash64(tgid) % SNAP_BUCKETS]; task; task = task->next)
		if (task->tgid == tgid)
			return task;
	return NULL;
}

static struct snap_task *task_get(struct ustack_snapshots *t, int tgid)
{
	struct snap_task *task = task_find(t, tgid);
	size_t b = hash64(tgid) % SNAP_BUCKETS;

	if (task)
		return task;
	task = calloc(1, sizeof(*task));
	if (!task)
		return NULL;
	task->tgid = tgid;
	task->next = t->tasks[b];
	t->tasks[b] = task;
	return task;
}

static const struct ustack_mapping *file_get(struct ustack_snapshots *t,
					     const struct ustack_mapping *tmpl)
{
	size_t b = (hash_str(tmpl->path) ^ hash64(tmpl->tgid)) % FILE_BUCKETS;
	struct snap_file *f;

	for (f = t->files[b]; f; f = f->next) {
		if (f->map->tgid == tmpl->tgid && f->map->flags == tmpl->flags &&
		    !strcmp(f->map->path, tmpl->path))
			return f->map;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->map = mapping_dup(tmpl);
	if (!f->map) {
		free(f);
		return NULL;
	}
	f->map->id = t->next_id++;
	f->next = t->files[b];
	t->files[b] = f;
	t->nr_files++;
	return f->map;
}

/* The part of a maps line after the inode: the path, trimmed. */
static char *line_path(char *rest)
{
	size_t len;

	while (*rest == ' ' || *rest == '\t')
		rest++;
	len = strlen(rest);
	while (len && (rest[len - 1] == '\n' || rest[len - 1] == ' '))
		rest[--len] = '\0';
	return rest;
}

#define DELETED_SUFFIX	" (deleted)"

/*
 * Parse one /proc/<pid>/maps line into @tmpl and the entry. Returns 1 when
 * the line matters for symbolization: executable and file-backed, or the
 * vdso; 0 to skip it; -1 when it cannot be parsed.
 */
static int parse_maps_line(char *line, struct snap_entry *e,
			   struct ustack_mapping *tmpl)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int major, minor;
	char perms[8];
	size_t len, slen = strlen(DELETED_SUFFIX);
	char *path;
	int n = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu%n", &start, &end, perms,
		   &pgoff, &major, &minor, &ino, &n) < 7 || !n)
		return -1;
	path = line_path(line + n);
	if (!strchr(perms, 'x') || end <= start)
		return 0;
	memset(tmpl, 0, sizeof(*tmpl));
	if (!strcmp(path, "[vdso]")) {
		tmpl->flags = USTACK_MAP_SPECIAL;
	} else if (path[0] != '/') {
		return 0;
	}
	len = strlen(path);
	if (len > slen && !strcmp(path + len - slen, DELETED_SUFFIX)) {
		path[len - slen] = '\0';
		tmpl->flags |= USTACK_MAP_DELETED;
	}
	tmpl->path = path;
	tmpl->ino = ino;
	tmpl->dev = (major << 20) | (minor & ((1U << 20) - 1));
	e->start = start;
	e->end = end;
	e->pgoff = pgoff;
	return 1;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct snap_entry *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int snapshot_parse(struct ustack_snapshots *t, struct ustack_snapshot *snap,
			  const char *text)
{
	struct ustack_mapping tmpl;
	struct snap_entry e;
	char *copy, *line, *save = NULL;
	int ret = 0;

	copy = strdup(text);
	if (!copy)
		return -1;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (parse_maps_line(line, &e, &tmpl) <= 0)
			continue;
		tmpl.tgid = snap->tgid;
		tmpl.ts = snap->ts;
		e.map = file_get(t, &tmpl);
		if (!e.map ||
		    grow((void **)&snap->e, &snap->alloc, snap->nr + 1, sizeof(e))) {
			ret = -1;
			break;
		}
		snap->e[snap->nr++] = e;
	}
	free(copy);
	/* /proc prints maps in address order; sort anyway for the search */
	if (snap->nr)
		qsort(snap->e, snap->nr, sizeof(*snap->e), entry_cmp);
	return ret;
}

/**
 * ustack_snapshots_add - register the /proc/<tgid>/maps text taken at @ts
 * @t:		the table
 * @tgid:	process the snapshot belongs to
 * @ts:		when it was taken, in ring-buffer clock
 * @maps_text:	the file's contents
 *
 * Only executable file-backed mappings and the vdso are kept: the frames
 * of a user stack are return addresses. Returns 0, or -1 on allocation
 * failure (lines that cannot be parsed are skipped).
 */
int ustack_snapshots_add(struct ustack_snapshots *t, int tgid, uint64_t ts,
			 const char *maps_text)
{
	struct ustack_snapshot *snap;
	struct snap_task *task;
	size_t i;

	task = task_get(t, tgid);
	if (!task || grow((void **)&task->v, &task->alloc, task->nr + 1, sizeof(*task->v)))
		return -1;
	snap = calloc(1, sizeof(*snap));
	if (!snap)
		return -1;
	snap->tgid = tgid;
	snap->ts = ts;
	if (snapshot_parse(t, snap, maps_text ? maps_text : "")) {
		snapshot_free(snap);
		return -1;
	}
	for (i = task->nr; i > 0 && task->v[i - 1]->ts > ts; i--)
		task->v[i] = task->v[i - 1];
	task->v[i] = snap;
	task->nr++;
	return 0;
}

/**
 * ustack_snapshots_find - the snapshot to map an event of @tgid at @ts
 * @t:		the table
 * @tgid:	process
 * @ts:		event timestamp
 * @after:	set to true when the snapshot was taken after @ts; may be NULL
 *
 * Returns the most recent snapshot taken at or before @ts, else the
 * earliest one after it, else NULL.
 */
const struct ustack_snapshot *ustack_snapshots_find(const struct ustack_snapshots *t,
						    int tgid, uint64_t ts,
						    bool *after)
{
	const struct snap_task *task = task_find(t, tgid);
	size_t i;

	if (after)
		*after = false;
	if (!task || !task->nr)
		return NULL;
	for (i = task->nr; i > 0; i--)
		if (task->v[i - 1]->ts <= ts)
			return task->v[i - 1];
	if (after)
		*after = true;
	return task->v[0];
}

/**
 * ustack_snapshot_map - map a user virtual address through a snapshot
 * @snap:	the snapshot
 * @va:		virtual address
 * @offset:	set to the file offset (va - start + pgoff) when found
 *
 * Returns the mapping containing @va, or NULL when no kept entry does.
 */
const struct ustack_mapping *ustack_snapshot_map(const struct ustack_snapshot *snap,
						 uint64_t va, uint64_t *offset)
{
	size_t lo = 0, hi = snap->nr, mid;
	const struct snap_entry *e;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (snap->e[mid].start <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	e = &snap->e[lo - 1];
	if (va >= e->end)
		return NULL;
	*offset = va - e->start + e->pgoff;
	return e->map;
}

/**
 * ustack_snapshots_mappings - number of distinct files the snapshots named
 * @t: the table
 */
size_t ustack_snapshots_mappings(const struct ustack_snapshots *t)
{
	return t->nr_files;
}
