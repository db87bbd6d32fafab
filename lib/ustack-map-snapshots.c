// SPDX-License-Identifier: LGPL-2.1
/*
 * /proc/<pid>/maps snapshots for the synchronous fallback (see
 * ustack-map-snapshots.h).
 *
 * Only executable file-backed mappings and the vdso are kept: the frames
 * of a user stack are return addresses. Each distinct (tgid, path, flags)
 * becomes one struct ustack_mapping with a synthetic file id, which lives
 * until the table is freed: samples keep plain pointers to them. A
 * process's snapshots are a part of its leader's task record
 * (ustack-tasks.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-array.h"
#include "ustack-map-fileids.h"
#include "ustack-hash.h"
#include "ustack-map-snapshots.h"
#include "ustack-tasks.h"

struct snap_entry {
	uint64_t			start;
	uint64_t			end;
	uint64_t			pgoff;
	const struct ustack_mapping	*map;
};

struct ustack_map_snapshot {
	uint64_t		ts;
	int			tgid;
	struct snap_entry	*e;
	size_t			nr;
	size_t			alloc;
};

/* Snapshots of one process, sorted by timestamp: its leader's record's */
struct ustack_snap_task {
	struct ustack_map_snapshot	**v;
	size_t			nr;
	size_t			alloc;
};

/* One mapping per distinct (tgid, path, flags). */
struct snap_file {
	struct ustack_hnode	node;
	struct ustack_mapping	*map;
};

struct ustack_map_snapshots {
	struct ustack_tasks	*tasks;		/* where the snapshots hang */
	struct ustack_htable	files;
	/* Synthetic ids: 0 and 1 are reserved by the ABI */
	uint64_t		next_id;
};

/**
 * ustack_map_snapshots_new - create an empty snapshot table
 * @tasks:	the task records it keeps its parts on; they must outlive it
 */
struct ustack_map_snapshots *ustack_map_snapshots_new(struct ustack_tasks *tasks)
{
	struct ustack_map_snapshots *t;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tasks = tasks;
	t->next_id = 2;
	return t;
}

static void snapshot_free(struct ustack_map_snapshot *snap)
{
	if (!snap)
		return;
	free(snap->e);
	free(snap);
}

/**
 * ustack_map_snapshots_free - free the table, its snapshots and mappings
 * @t: the table (may be NULL)
 */
void ustack_map_snapshots_free(struct ustack_map_snapshots *t)
{
	struct ustack_hnode *pos, *tmp;
	struct ustack_snap_task *task;
	struct snap_file *f;
	size_t i, j;

	if (!t)
		return;
	ustack_tasks_for_each(t->tasks, i, pos, tmp) {
		task = ustack_hash_table_entry(pos, struct ustack_task, node)->snaps;
		if (!task)
			continue;
		for (j = 0; j < task->nr; j++)
			snapshot_free(task->v[j]);
		free(task->v);
		free(task);
		ustack_hash_table_entry(pos, struct ustack_task, node)->snaps = NULL;
	}
	ustack_hash_table_for_each_safe(&t->files, i, pos, tmp) {
		f = ustack_hash_table_entry(pos, struct snap_file, node);
		ustack_map_fileids_mapping_free(f->map);
		free(f);
	}
	ustack_hash_table_release(&t->files);
	free(t);
}

static struct ustack_snap_task *task_find(const struct ustack_map_snapshots *t, int tgid)
{
	const struct ustack_task *leader = ustack_tasks_find(t->tasks, tgid);

	return leader ? leader->snaps : NULL;
}

static struct ustack_snap_task *task_get(struct ustack_map_snapshots *t, int tgid)
{
	struct ustack_task *leader = ustack_tasks_get(t->tasks, tgid);

	if (!leader)
		return NULL;
	if (!leader->snaps)
		leader->snaps = calloc(1, sizeof(*leader->snaps));
	return leader->snaps;
}

static uint64_t file_hash(const struct ustack_mapping *m)
{
	return ustack_hash_mem(m->path, strlen(m->path), ustack_hash_u64(m->tgid));
}

static const struct ustack_mapping *file_get(struct ustack_map_snapshots *t,
					     const struct ustack_mapping *tmpl)
{
	uint64_t hash = file_hash(tmpl);
	struct ustack_hnode *pos;
	struct snap_file *f;

	ustack_hash_table_for_each_hash(&t->files, pos, hash) {
		f = ustack_hash_table_entry(pos, struct snap_file, node);
		if (f->map->tgid == tmpl->tgid && f->map->flags == tmpl->flags &&
		    !strcmp(f->map->path, tmpl->path))
			return f->map;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->map = ustack_map_fileids_mapping_dup(tmpl);
	if (!f->map || ustack_hash_table_add(&t->files, &f->node, hash)) {
		ustack_map_fileids_mapping_free(f->map);
		free(f);
		return NULL;
	}
	f->map->id = t->next_id++;
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

static int snapshot_parse(struct ustack_map_snapshots *t, struct ustack_map_snapshot *snap,
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
		    ustack_array_grow((void **)&snap->e, &snap->alloc, snap->nr + 1, sizeof(e))) {
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
 * ustack_map_snapshots_add - register the /proc/<tgid>/maps text taken at @ts
 * @t:		the table
 * @tgid:	process the snapshot belongs to
 * @ts:		when it was taken, in ring-buffer clock
 * @maps_text:	the file's contents
 *
 * Returns 0, or -1 on allocation failure (lines that cannot be parsed are
 * skipped).
 */
int ustack_map_snapshots_add(struct ustack_map_snapshots *t, int tgid, uint64_t ts,
			 const char *maps_text)
{
	struct ustack_map_snapshot *snap;
	struct ustack_snap_task *task;
	size_t i;

	task = task_get(t, tgid);
	if (!task || ustack_array_grow((void **)&task->v, &task->alloc, task->nr + 1, sizeof(*task->v)))
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
 * ustack_map_snapshots_find - the snapshot to map an event of @tgid at @ts
 * @t:		the table
 * @tgid:	process
 * @ts:		event timestamp
 * @after:	set to true when the snapshot was taken after @ts; may be NULL
 *
 * Returns the most recent snapshot taken at or before @ts, else the
 * earliest one after it, else NULL.
 */
const struct ustack_map_snapshot *ustack_map_snapshots_find(const struct ustack_map_snapshots *t,
						    int tgid, uint64_t ts,
						    bool *after)
{
	const struct ustack_snap_task *task = task_find(t, tgid);
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
 * ustack_map_snapshots_map - map a user virtual address through a snapshot
 * @snap:	the snapshot
 * @va:		virtual address
 * @offset:	set to the file offset (va - start + pgoff) when found
 *
 * Returns the mapping containing @va, or NULL when no kept entry does.
 */
const struct ustack_mapping *ustack_map_snapshots_map(const struct ustack_map_snapshot *snap,
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
 * ustack_map_snapshots_mappings - number of distinct files the snapshots named
 * @t: the table
 */
size_t ustack_map_snapshots_mappings(const struct ustack_map_snapshots *t)
{
	return t->files.nr;
}
