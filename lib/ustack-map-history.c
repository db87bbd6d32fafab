// SPDX-License-Identifier: LGPL-2.1
/*
 * Names and executable mappings as the side-band tells them (see
 * ustack-map-history.h).
 *
 * Each process has its address space as it is now: executable mappings
 * sorted by address (a set of ranges, ustack-map-set.h). A new mapping
 * replaces what it overlaps (the kernel reports no unmap: a library
 * loaded where one was closed simply comes on top of it), an exec empties
 * the space, a fork starts from the parent's (shared until one of them
 * changes: a fork costs no copy). As records come in time order with the
 * events, a lookup made when an event is fed sees the mappings the
 * process had then.
 *
 * Each distinct (process, path, flags, build id) becomes one struct
 * ustack_mapping with a synthetic file id, kept until the history is
 * freed (samples keep plain pointers to them); so are names, interned.
 * Address spaces and names are kept after exit too: the events of a task
 * may come after its exit record, and PROCMAPS wants the last picture.
 * Both are parts of the session's task records (ustack-tasks.h): a
 * task's name on its own, a process's space on its leader's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-map-fileids.h"
#include "ustack-hash.h"
#include "ustack-map-history.h"
#include "ustack-map-set.h"
#include "ustack-sideband.h"
#include "ustack-tasks.h"

/* Away from the ids of maps snapshots, which count up from 2 */
#define FIRST_ID	(1ULL << 32)

/* A process's part of its leader's task record */
struct ustack_hist_space {
	int			tgid;
	bool			used;		/* a stack was mapped through it */
	struct ustack_map_set	set;		/* its mappings */
};

struct name {
	struct ustack_hnode	node;
	char			s[];
};

struct file {
	struct ustack_hnode	node;
	struct ustack_mapping	*map;
};

struct ustack_map_history {
	struct ustack_tasks	*tasks;		/* where names and spaces hang */
	struct ustack_tasks	own;		/* @tasks, made alone */
	size_t			nr_spaces;
	struct ustack_htable	names;
	struct ustack_htable	files;
	uint64_t		next_id;
	bool			have_maps;
	struct ustack_map_set_pool *pool;	/* of the spaces' sets */
};

/**
 * ustack_map_history_new_on - an empty history of a session's tasks
 * @tasks:	the task records it keeps its parts on; they must outlive it
 */
struct ustack_map_history *ustack_map_history_new_on(struct ustack_tasks *tasks)
{
	struct ustack_map_history *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->pool = ustack_map_set_pool_new();
	if (!h->pool) {
		free(h);
		return NULL;
	}
	h->tasks = tasks;
	h->next_id = FIRST_ID;
	return h;
}

/**
 * ustack_map_history_new - an empty history with task records of its own
 */
struct ustack_map_history *ustack_map_history_new(void)
{
	struct ustack_map_history *h = ustack_map_history_new_on(NULL);

	if (!h)
		return NULL;
	ustack_tasks_init(&h->own, NULL, false);
	h->tasks = &h->own;
	return h;
}

/**
 * ustack_map_history_free - free the history, its names and mappings
 * @h: the history (may be NULL)
 */
void ustack_map_history_free(struct ustack_map_history *h)
{
	struct ustack_hnode *pos, *tmp;
	struct ustack_task *t;
	struct file *f;
	size_t i;

	if (!h)
		return;
	ustack_tasks_for_each(h->tasks, i, pos, tmp) {
		t = ustack_hash_table_entry(pos, struct ustack_task, node);
		if (t->space)
			ustack_map_set_clear(h->pool, &t->space->set);
		free(t->space);
		t->space = NULL;
		t->comm = NULL;
	}
	ustack_map_set_pool_free(h->pool);
	ustack_hash_table_for_each_safe(&h->names, i, pos, tmp)
		free(ustack_hash_table_entry(pos, struct name, node));
	ustack_hash_table_for_each_safe(&h->files, i, pos, tmp) {
		f = ustack_hash_table_entry(pos, struct file, node);
		ustack_map_fileids_mapping_free(f->map);
		free(f);
	}
	ustack_hash_table_release(&h->names);
	if (h->tasks == &h->own)
		ustack_tasks_release(&h->own);
	ustack_hash_table_release(&h->files);
	free(h);
}

/* ------------------------------------------------------------------ */
/* Names                                                              */
/* ------------------------------------------------------------------ */

static const char *intern(struct ustack_map_history *h, const char *s)
{
	uint64_t hash = ustack_hash_str(s);
	struct ustack_hnode *pos;
	struct name *n;

	ustack_hash_table_for_each_hash(&h->names, pos, hash) {
		n = ustack_hash_table_entry(pos, struct name, node);
		if (!strcmp(n->s, s))
			return n->s;
	}
	n = malloc(sizeof(*n) + strlen(s) + 1);
	if (!n)
		return NULL;
	memcpy(n->s, s, strlen(s) + 1);
	if (ustack_hash_table_add(&h->names, &n->node, hash)) {
		free(n);
		return NULL;
	}
	return n->s;
}

/**
 * ustack_map_history_set_comm - @tid is named @comm from now on
 * @h:		the history
 * @tid:	the task
 * @comm:	its name
 *
 * Returns 0, or -1 when out of memory.
 */
int ustack_map_history_set_comm(struct ustack_map_history *h, int tid, const char *comm)
{
	struct ustack_task *t = ustack_tasks_get(h->tasks, tid);

	if (!t)
		return -1;
	t->comm = intern(h, comm);
	return t->comm ? 0 : -1;
}

/**
 * ustack_map_history_comm - the name of @tid now, NULL when none was told
 * @h:		the history
 * @tid:	the task
 *
 * The string lives as long as the history.
 */
const char *ustack_map_history_comm(const struct ustack_map_history *h, int tid)
{
	const struct ustack_task *t = ustack_tasks_find(h->tasks, tid);

	return t ? t->comm : NULL;
}

/* ------------------------------------------------------------------ */
/* Files                                                              */
/* ------------------------------------------------------------------ */

#define DELETED_SUFFIX	" (deleted)"

/*
 * What perf calls anonymous memory (no file to read symbols from: JIT
 * code, named by /tmp/perf-<pid>.map), and special mappings other than
 * the vDSO (heap, stack): both are frames without a file.
 */
static bool anonymous(const char *name)
{
	if (!*name || !strcmp(name, "//anon") || !strcmp(name, "/dev/zero") ||
	    !strncmp(name, "/anon_hugepage", 14) || !strncmp(name, "/memfd:", 7))
		return true;
	return name[0] != '/' && strcmp(name, "[vdso]");
}

static bool same_file(const struct ustack_mapping *m, const struct ustack_mapping *t)
{
	return m->tgid == t->tgid && m->flags == t->flags &&
	       m->build_id_len == t->build_id_len &&
	       !memcmp(m->build_id, t->build_id, t->build_id_len) && !strcmp(m->path, t->path);
}

static const struct ustack_mapping *file_get(struct ustack_map_history *h,
					     const struct ustack_mapping *tmpl)
{
	uint64_t hash = ustack_hash_u64(tmpl->tgid);
	struct ustack_hnode *pos;
	struct file *f;

	hash = ustack_hash_mem(tmpl->path, strlen(tmpl->path), hash);
	ustack_hash_table_for_each_hash(&h->files, pos, hash) {
		f = ustack_hash_table_entry(pos, struct file, node);
		if (same_file(f->map, tmpl))
			return f->map;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->map = ustack_map_fileids_mapping_dup(tmpl);
	if (!f->map || ustack_hash_table_add(&h->files, &f->node, hash)) {
		ustack_map_fileids_mapping_free(f->map);
		free(f);
		return NULL;
	}
	f->map->id = h->next_id++;
	return f->map;
}

/* The file of an mmap record; *@map stays NULL for anonymous memory. */
static int record_file(struct ustack_map_history *h, const struct ustack_sb_rec *r,
		       const struct ustack_mapping **map)
{
	size_t len = strlen(r->name), slen = strlen(DELETED_SUFFIX);
	struct ustack_mapping tmpl = { 0 };
	char *path;

	*map = NULL;
	if (anonymous(r->name))
		return 0;
	path = strdup(r->name);
	if (!path)
		return -1;
	if (len > slen && !strcmp(path + len - slen, DELETED_SUFFIX)) {
		path[len - slen] = '\0';
		tmpl.flags |= USTACK_MAP_DELETED;
	}
	if (!strcmp(path, "[vdso]"))
		tmpl.flags |= USTACK_MAP_SPECIAL;
	tmpl.path = path;
	tmpl.ts = r->ts;
	tmpl.tgid = r->pid;
	tmpl.ino = r->ino;
	tmpl.dev = (r->maj << 20) | (r->min & ((1U << 20) - 1));
	tmpl.build_id_len = r->build_id_len;
	memcpy(tmpl.build_id, r->build_id, r->build_id_len);
	*map = file_get(h, &tmpl);
	free(path);
	return *map ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Address spaces                                                     */
/* ------------------------------------------------------------------ */

static struct ustack_hist_space *space_find(const struct ustack_map_history *h, int tgid)
{
	const struct ustack_task *leader = ustack_tasks_find(h->tasks, tgid);

	return leader ? leader->space : NULL;
}

static struct ustack_hist_space *space_get(struct ustack_map_history *h, int tgid)
{
	struct ustack_task *leader = ustack_tasks_get(h->tasks, tgid);

	if (!leader)
		return NULL;
	if (leader->space)
		return leader->space;
	leader->space = calloc(1, sizeof(*leader->space));
	if (!leader->space)
		return NULL;
	leader->space->tgid = tgid;
	h->nr_spaces++;
	return leader->space;
}

static int add_mmap(struct ustack_map_history *h, const struct ustack_sb_rec *r)
{
	struct ustack_hist_space *sp = space_get(h, r->pid);
	struct ustack_vma nv = { .start = r->start, .end = r->start + r->len, .pgoff = r->pgoff };

	if (!sp || record_file(h, r, &nv.map))
		return -1;
	if (nv.end <= nv.start)
		return 0;
	h->have_maps = true;
	return ustack_map_set_insert(h->pool, &sp->set, &nv);
}

/* A new process starts with its parent's mappings: shared, not copied. */
static int fork_space(struct ustack_map_history *h, int parent, int child)
{
	struct ustack_hist_space *ps = space_find(h, parent), *cs;

	cs = space_get(h, child);
	if (!cs)
		return -1;
	ustack_map_set_share(h->pool, &cs->set, ps ? &ps->set : NULL);
	cs->used = false;
	return 0;
}

static int add_fork(struct ustack_map_history *h, const struct ustack_sb_rec *r)
{
	const char *comm = ustack_map_history_comm(h, r->ptid);

	if (comm && ustack_map_history_set_comm(h, r->tid, comm))
		return -1;
	/* a thread shares its group's space */
	if (r->pid == r->ppid)
		return 0;
	return fork_space(h, r->ppid, r->pid);
}

static int add_comm(struct ustack_map_history *h, const struct ustack_sb_rec *r)
{
	struct ustack_hist_space *sp;

	if (r->exec) {
		sp = space_find(h, r->pid);
		if (sp)
			ustack_map_set_clear(h->pool, &sp->set);
	}
	return ustack_map_history_set_comm(h, r->tid, r->name);
}

/**
 * ustack_map_history_add - one side-band record, in time order
 * @h:		the history
 * @rec:	the record
 *
 * Returns 0, or -1 when out of memory.
 */
int ustack_map_history_add(struct ustack_map_history *h, const struct ustack_sb_rec *rec)
{
	switch (rec->kind) {
	case USTACK_SB_MMAP:
		return add_mmap(h, rec);
	case USTACK_SB_COMM:
		return add_comm(h, rec);
	case USTACK_SB_FORK:
		return add_fork(h, rec);
	case USTACK_SB_EXIT:
	case USTACK_SB_LOST:
	case USTACK_SB_SAMPLE:	/* an event, not history */
	case USTACK_SB_DEFERRED:	/* an event's stack */
	case USTACK_SB_UNPARSED:	/* nothing read */
	case USTACK_SB_THROTTLE:	/* the kernel's sampling, not history */
	case USTACK_SB_UNTHROTTLE:
		break;
	}
	return 0;
}

/**
 * ustack_map_history_work - what keeping and searching the mapping sets cost
 * @h: the history
 *
 * Tree nodes visited, made or copied since @h was made
 * (ustack_map_set_pool_work()): tests bound it.
 */
uint64_t ustack_map_history_work(const struct ustack_map_history *h)
{
	return ustack_map_set_pool_work(h->pool);
}

/**
 * ustack_map_history_check - whether every process's mapping set is whole
 * @h: the history
 *
 * For tests (ustack_map_set_check(), ustack_map_set_pool_check()). Returns
 * 0, or -1 when one is not, or a change took more nodes than it reserved.
 */
int ustack_map_history_check(const struct ustack_map_history *h)
{
	struct ustack_hnode *pos, *tmp;
	const struct ustack_hist_space *sp;
	size_t i;

	if (ustack_map_set_pool_check(h->pool))
		return -1;
	ustack_tasks_for_each(h->tasks, i, pos, tmp) {
		sp = ustack_hash_table_entry(pos, struct ustack_task, node)->space;
		if (sp && ustack_map_set_check(&sp->set) < 0)
			return -1;
	}
	return 0;
}

/**
 * ustack_map_history_has_maps - whether any mapping was told
 * @h: the history
 *
 * From then on, stacks are mapped through the history alone.
 */
bool ustack_map_history_has_maps(const struct ustack_map_history *h)
{
	return h->have_maps;
}

/* @va in @sp (may be NULL) */
static void map_in(struct ustack_map_history *h, struct ustack_hist_space *sp, uint64_t va,
		   struct ustack_frame *fr)
{
	const struct ustack_vma *v = sp ? ustack_map_set_find(h->pool, &sp->set, va) : NULL;

	fr->offset = va;
	fr->id = USTACK_ID_NOMAP;
	fr->map = NULL;
	if (!v)
		return;
	sp->used = true;
	if (!v->map) {
		fr->id = USTACK_ID_ANON;
		return;
	}
	fr->offset = va - v->start + v->pgoff;
	fr->id = v->map->id;
	fr->map = v->map;
}

/**
 * ustack_map_history_map - map a frame's virtual address as its process has it now
 * @h:		the history
 * @tgid:	the process
 * @va:		the address
 * @fr:		set to the file offset and file, or to the address with
 *		USTACK_ID_ANON (anonymous memory) or USTACK_ID_NOMAP
 */
void ustack_map_history_map(struct ustack_map_history *h, int tgid, uint64_t va,
			struct ustack_frame *fr)
{
	map_in(h, space_find(h, tgid), va, fr);
}

/**
 * ustack_map_history_map_stack - ustack_map_history_map() of each frame of a stack
 * @h:		the history
 * @tgid:	the process
 * @va:		the addresses
 * @fr:		set as ustack_map_history_map() sets one frame
 * @nr:		entries in @va and @fr
 *
 * The process is looked up once: a perf sample is mapped per recorded
 * event, and the lookup per frame was most of that cost.
 */
void ustack_map_history_map_stack(struct ustack_map_history *h, int tgid, const uint64_t *va,
			      struct ustack_frame *fr, unsigned int nr)
{
	struct ustack_hist_space *sp = space_find(h, tgid);
	unsigned int i;

	for (i = 0; i < nr; i++)
		map_in(h, sp, va[i], &fr[i]);
}

/**
 * ustack_map_history_files - distinct files the mappings named
 * @h: the history
 */
size_t ustack_map_history_files(const struct ustack_map_history *h)
{
	return h->files.nr;
}

/* PROCMAPS lines of a space, measured (@buf NULL) or written */
struct pm_lines {
	char			*buf;
	size_t			len;
	size_t			alloc;
	const struct ustack_vma	*first;		/* of the run of one file */
	uint64_t		end;		/* of its last vma */
	int			nr;
};

static void pm_flush(struct pm_lines *pm)
{
	const struct ustack_vma *v = pm->first;

	if (!v || !v->map)
		return;
	pm->nr++;
	if (!pm->buf) {
		pm->len += strlen(v->map->path) + 40;
		return;
	}
	pm->len += snprintf(pm->buf + pm->len, pm->alloc - pm->len, "%llx %llx %s\n",
			    (unsigned long long)v->start, (unsigned long long)pm->end,
			    v->map->path);
}

/* consecutive mappings of one file make one line */
static void pm_vma(const struct ustack_vma *v, void *ctx)
{
	struct pm_lines *pm = ctx;

	if (pm->first && v->map == pm->first->map) {
		pm->end = v->end;
		return;
	}
	pm_flush(pm);
	pm->first = v;
	pm->end = v->end;
}

static void pm_walk(const struct ustack_hist_space *sp, struct pm_lines *pm)
{
	ustack_map_set_walk(&sp->set, pm_vma, pm);
	pm_flush(pm);
}

/* trace-cmd's PROCMAPS: "pid nr comm" then "start end path", one per file. */
static char *procmaps_option(const struct ustack_map_history *h, const struct ustack_hist_space *sp)
{
	const char *comm = ustack_map_history_comm(h, sp->tgid);
	struct pm_lines pm = { 0 };
	char *out, word[32], *c;
	size_t alloc;

	/* PROCMAPS stores the name as one word */
	snprintf(word, sizeof(word), "%s", comm ? comm : "<...>");
	for (c = word; *c; c++)
		if (*c == ' ')
			*c = '_';

	pm_walk(sp, &pm);
	alloc = 128 + pm.len;
	pm = (struct pm_lines){ .alloc = alloc };
	pm.buf = malloc(alloc);
	out = malloc(alloc);
	if (!out || !pm.buf) {
		free(out);
		free(pm.buf);
		return NULL;
	}
	pm.buf[0] = '\0';
	pm_walk(sp, &pm);
	snprintf(out, alloc, "%x %x %s\n%s", sp->tgid, pm.nr, word, pm.buf);
	free(pm.buf);
	return out;
}

/**
 * ustack_map_history_use - a stack of @tgid was recorded without being mapped
 * @h:		the history
 * @tgid:	its thread group
 *
 * Its address space as it is now goes into the PROCMAPS, as if a stack
 * had been mapped through it.
 */
void ustack_map_history_use(struct ustack_map_history *h, int tgid)
{
	struct ustack_hist_space *sp = space_find(h, tgid);

	if (sp)
		sp->used = true;
}

/**
 * ustack_map_history_procmaps - PROCMAPS payloads of the processes stacks used
 * @h: the history
 *
 * Returns a NULL-terminated array (free() each entry and the array), or
 * NULL when out of memory.
 */
char **ustack_map_history_procmaps(const struct ustack_map_history *h)
{
	struct ustack_hnode *pos, *tmp;
	const struct ustack_hist_space *sp;
	char **opts;
	size_t i, n = 0;

	opts = calloc(h->nr_spaces + 1, sizeof(*opts));
	if (!opts)
		return NULL;
	ustack_tasks_for_each(h->tasks, i, pos, tmp) {
		sp = ustack_hash_table_entry(pos, struct ustack_task, node)->space;
		if (!sp || !sp->used || ustack_map_set_empty(&sp->set))
			continue;
		opts[n] = procmaps_option(h, sp);
		if (opts[n])
			n++;
	}
	return opts;
}
