// SPDX-License-Identifier: LGPL-2.1
/*
 * Aggregation of printed samples into a profile (see ustack-profile-int.h
 * for the model): strings, frames, files, locations and stacks are each
 * interned once, so a long run costs memory per distinct stack, not per
 * sample. The writers (flame graph, pprof, speedscope) read it at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <event-parse.h>
#include <gelf.h>

#include "ustack-array.h"
#include "ustack-render.h"
#include "ustack-render-int.h"
#include "ustack-profile-int.h"
#include "ustack-text.h"

#define GROW(p, arr, need) \
	ustack_array_grow((void **)&(p)->arr, &(p)->alloc_##arr, (need), sizeof(*(p)->arr))

struct pstr {
	struct ustack_hnode	node;
	uint32_t		id;
};

/*
 * A stack met before: the samples with the same frames (mapping and
 * offset), kernel frames, event, task name and notes count on it again
 * without being rendered, as folded output does (ustack-output.c).
 * Mappings live as long as the session, so their addresses name them;
 * only stacks whose frames all resolved, none through a JIT map, are
 * remembered (struct ustack_rendered.stable).
 */
struct pmemo {
	struct ustack_hnode	node;
	struct pstack		*st;
	unsigned int		frames;		/* user frames it shows */
	size_t			len;
	uint64_t		key[];
};

/**
 * ustack_profile_new - create an empty profile
 * @keep_order: also keep the order of the samples (speedscope's time view)
 *
 * Returns NULL when out of memory.
 */
struct ustack_profile *ustack_profile_new(bool keep_order)
{
	struct ustack_profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->keep_order = keep_order;
	/* string 0 is "" (pprof's string_table[0] must be) */
	p->str = calloc(16, sizeof(*p->str));
	p->alloc_str = 16;
	if (p->str)
		p->str[0] = strdup("");
	if (!p->str || !p->str[0]) {
		ustack_profile_free(p);
		return NULL;
	}
	p->nr_str = 1;
	return p;
}

/* Free every entry of a table whose entries are their hash nodes' owners */
static void free_all(void **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void free_strings(struct ustack_profile *p)
{
	struct ustack_hnode *pos, *tmp;
	size_t i;

	ustack_hash_table_for_each_safe(&p->str_hash, i, pos, tmp)
		free(ustack_hash_table_entry(pos, struct pstr, node));
	ustack_hash_table_release(&p->str_hash);
	free_all((void **)p->str, p->nr_str);
}

static void memo_free(struct ustack_profile *p)
{
	struct ustack_hnode *pos, *tmp;
	size_t i;

	ustack_hash_table_for_each_safe(&p->memo, i, pos, tmp)
		free(ustack_hash_table_entry(pos, struct pmemo, node));
	ustack_hash_table_release(&p->memo);
	free(p->key);
}

/**
 * ustack_profile_free - free a profile
 * @p: the profile (may be NULL)
 */
void ustack_profile_free(struct ustack_profile *p)
{
	if (!p)
		return;
	free_strings(p);
	free_all((void **)p->frames, p->nr_frames);
	free_all((void **)p->maps, p->nr_maps);
	free_all((void **)p->locs, p->nr_locs);
	free_all((void **)p->stacks, p->nr_stacks);
	ustack_hash_table_release(&p->frames_hash);
	ustack_hash_table_release(&p->maps_hash);
	ustack_hash_table_release(&p->locs_hash);
	ustack_hash_table_release(&p->stacks_hash);
	free(p->lines);
	free(p->stack_locs);
	free(p->events);
	free(p->order);
	free(p->cur);
	memo_free(p);
	free(p->command);
	free(p->program);
	free(p);
}

/* ------------------------------------------------------------------ */
/* Interning                                                          */
/* ------------------------------------------------------------------ */

/* The id of @s (NULL is ""), added when new; 0 when out of memory. */
static uint32_t intern(struct ustack_profile *p, const char *s)
{
	struct ustack_hnode *pos;
	struct pstr *e;
	uint64_t hash;

	if (!s || !*s)
		return 0;
	hash = ustack_hash_str(s);
	ustack_hash_table_for_each_hash(&p->str_hash, pos, hash) {
		e = ustack_hash_table_entry(pos, struct pstr, node);
		if (!strcmp(p->str[e->id], s))
			return e->id;
	}
	e = malloc(sizeof(*e));
	if (!e || GROW(p, str, p->nr_str + 1))
		goto fail;
	p->str[p->nr_str] = strdup(s);
	if (!p->str[p->nr_str])
		goto fail;
	e->id = p->nr_str;
	if (ustack_hash_table_add(&p->str_hash, &e->node, hash)) {
		free(p->str[p->nr_str]);
		goto fail;
	}
	return p->nr_str++;
fail:
	free(e);
	p->failed = true;
	return 0;
}

/*
 * Add @e (allocated by the caller, its hash node first) to a pointer table
 * and its hash; sets *@id. Frees @e and returns -1 on failure.
 */
static int table_add(struct ustack_profile *p, void ***v, size_t *nr, size_t *alloc,
		     struct ustack_htable *hash_table, struct ustack_hnode *node,
		     uint64_t hash, uint32_t *id)
{
	if (ustack_array_grow((void **)v, alloc, *nr + 1, sizeof(void *)) ||
	    ustack_hash_table_add(hash_table, node, hash)) {
		free(node);
		p->failed = true;
		return -1;
	}
	*id = *nr;
	(*v)[(*nr)++] = node;
	return 0;
}

#define TABLE_ADD(p, tbl, e, hash) \
	table_add(p, (void ***)&(p)->tbl, &(p)->nr_##tbl, &(p)->alloc_##tbl, \
		  &(p)->tbl##_hash, &(e)->node, hash, &(e)->id)

static uint64_t frame_hash(const struct pframe *k)
{
	uint64_t v[5] = { k->cls, k->name, k->suffix, k->dso, k->file };

	return ustack_hash_mem(v, sizeof(v), 0);
}

static bool frame_eq(const struct pframe *a, const struct pframe *b)
{
	return a->cls == b->cls && a->name == b->name && a->suffix == b->suffix &&
	       a->dso == b->dso && a->file == b->file;
}

/*
 * The frame of @key (cls, name, suffix, dso, file), its line range
 * widened, its start line (@key's) kept from the first frame that has one
 */
static int frame_id(struct ustack_profile *p, const struct pframe *key, int line)
{
	uint64_t hash = frame_hash(key);
	struct ustack_hnode *pos;
	struct pframe *f;

	ustack_hash_table_for_each_hash(&p->frames_hash, pos, hash) {
		f = ustack_hash_table_entry(pos, struct pframe, node);
		if (frame_eq(f, key))
			goto found;
	}
	f = malloc(sizeof(*f));
	if (!f) {
		p->failed = true;
		return -1;
	}
	*f = *key;
	f->line_min = f->line_max = 0;
	if (TABLE_ADD(p, frames, f, hash))
		return -1;
found:
	if (line > 0 && (!f->line_min || line < f->line_min))
		f->line_min = line;
	if (line > f->line_max)
		f->line_max = line;
	if (!f->start_line)
		f->start_line = key->start_line;
	return f->id;
}

/* NT_GNU_BUILD_ID in one PT_NOTE segment */
static bool note_build_id(Elf *elf, const GElf_Phdr *ph, struct pmap *m)
{
	Elf_Data *data = elf_getdata_rawchunk(elf, ph->p_offset, ph->p_filesz, ELF_T_NHDR);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (data && off < data->d_size &&
	       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 || !nh.n_descsz ||
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4))
			continue;
		m->build_id_len = nh.n_descsz > USTACK_BUILD_ID_MAX ?
				  USTACK_BUILD_ID_MAX : nh.n_descsz;
		memcpy(m->build_id, (const char *)data->d_buf + desc_off, m->build_id_len);
		return true;
	}
	return false;
}

/*
 * A path of the trace opened only when it is a regular file: a FIFO it
 * names must not hold the run (O_NONBLOCK), a device is not read.
 */
static int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The fallback's /proc/<pid>/maps snapshots carry no build id: take the
 * file's as it is now, as the symbolizer takes its names from it.
 */
static void file_build_id(struct pmap *m, const char *path)
{
	size_t i, nr;
	GElf_Phdr ph;
	Elf *elf;
	int fd;

	if (*path != '/' || elf_version(EV_CURRENT) == EV_NONE)
		return;
	fd = open_regular(path);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !elf_getphdrnum(elf, &nr))
		for (i = 0; i < nr; i++)
			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_NOTE &&
			    note_build_id(elf, &ph, m))
				break;
	elf_end(elf);
	close(fd);
}

/* DF_1_PIE in the dynamic section of PT_DYNAMIC @ph: a PIE, not a library */
static bool dynamic_pie(Elf *elf, const GElf_Phdr *ph)
{
	Elf_Data *data = elf_getdata_rawchunk(elf, ph->p_offset, ph->p_filesz, ELF_T_DYN);
	GElf_Dyn dyn;
	size_t i;

	for (i = 0; data && gelf_getdyn(data, i, &dyn) && dyn.d_tag != DT_NULL; i++)
		if (dyn.d_tag == DT_FLAGS_1)
			return dyn.d_un.d_val & DF_1_PIE;
	return false;
}

/*
 * The file is a program (ET_EXEC, or a PIE: ET_DYN flagged DF_1_PIE), not
 * a library nor the dynamic linker: what pprof's main binary may be.
 */
static bool file_is_program(const char *path)
{
	bool program = false;
	size_t i, nr;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	Elf *elf;
	int fd;

	if (*path != '/' || elf_version(EV_CURRENT) == EV_NONE)
		return false;
	fd = open_regular(path);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !gelf_getehdr(elf, &eh))
		eh.e_type = ET_NONE;
	program = eh.e_type == ET_EXEC;
	if (eh.e_type == ET_DYN && !elf_getphdrnum(elf, &nr))
		for (i = 0; i < nr && !program; i++)
			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_DYNAMIC)
				program = dynamic_pie(elf, &ph);
	elf_end(elf);
	close(fd);
	return program;
}

/* The map of a file frame's mapping, by path and build id */
static int map_id(struct ustack_profile *p, const struct ustack_mapping *m)
{
	uint32_t path = intern(p, m->path);
	uint64_t hash = ustack_hash_mem(m->build_id, m->build_id_len, path);
	struct ustack_hnode *pos;
	struct pmap *e;

	ustack_hash_table_for_each_hash(&p->maps_hash, pos, hash) {
		e = ustack_hash_table_entry(pos, struct pmap, node);
		if (e->path == path && e->build_id_len == m->build_id_len &&
		    !memcmp(e->build_id, m->build_id, m->build_id_len))
			return e->id;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		p->failed = true;
		return -1;
	}
	e->path = path;
	e->build_id_len = m->build_id_len;
	memcpy(e->build_id, m->build_id, m->build_id_len);
	if (!e->build_id_len && !(m->flags & USTACK_MAP_SPECIAL))
		file_build_id(e, m->path);
	if (!(m->flags & USTACK_MAP_SPECIAL))
		e->program = file_is_program(m->path);
	if (TABLE_ADD(p, maps, e, hash))
		return -1;
	return e->id;
}

/* ------------------------------------------------------------------ */
/* Locations                                                          */
/* ------------------------------------------------------------------ */

static enum pf_class frame_class(const struct rframe *rf, bool raw)
{
	switch (rf->kind) {
	case RF_SYM:
		return rf->inlined ? PF_INLINED : PF_USER;
	case RF_JIT:
		return PF_JIT;
	case RF_KERNEL:
		return rf->name && !raw ? PF_KERNEL : PF_UNRESOLVED;
	default:
		return PF_UNRESOLVED;
	}
}

/* The frame one rendered frame names */
static int rframe_frame(struct ustack_profile *p, const struct rframe *rf, bool raw)
{
	struct pframe key = { 0 };
	const char *name, *suffix;
	char buf[512];

	name = ustack_render_fold_name(rf, raw, buf, sizeof(buf), &suffix);
	key.cls = frame_class(rf, raw);
	key.name = intern(p, name);
	key.suffix = intern(p, suffix);
	if (rf->kind == RF_SYM || rf->kind == RF_FILE)
		key.dso = intern(p, rf->path);
	key.file = intern(p, rf->file);
	key.start_line = rf->start_line;
	return frame_id(p, &key, rf->line);
}

static uint64_t loc_hash(const struct ploc *k)
{
	uint64_t v[5] = { k->map + 1, k->kind, k->ret, k->addr, k->name };

	return ustack_hash_mem(v, sizeof(v), 1);
}

static struct ploc *loc_find(struct ustack_profile *p, const struct ploc *key, uint64_t hash)
{
	struct ustack_hnode *pos;
	struct ploc *l;

	ustack_hash_table_for_each_hash(&p->locs_hash, pos, hash) {
		l = ustack_hash_table_entry(pos, struct ploc, node);
		if (l->map == key->map && l->kind == key->kind && l->ret == key->ret &&
		    l->addr == key->addr && l->name == key->name)
			return l;
	}
	return NULL;
}

/* Note what a file's frames have, for pprof's has_* flags */
static void map_note(struct ustack_profile *p, const struct ploc *l, const struct rframe *rf,
		     size_t n)
{
	struct pmap *m;
	size_t i;

	if (l->map < 0)
		return;
	m = p->maps[l->map];
	if (l->addr > m->max_off)
		m->max_off = l->addr;
	if (n > 1)
		m->inlines = true;
	for (i = 0; i < n; i++) {
		if (rf[i].kind == RF_SYM)
			m->named = true;
		else
			m->unnamed = true;
		if (rf[i].line)
			m->lines = true;
	}
}

/* Lines of a new location: one per rendered frame, the innermost first */
static int loc_lines(struct ustack_profile *p, struct ploc *l, const struct rframe *rf,
		     size_t n, bool raw)
{
	size_t i;
	int f;

	if (GROW(p, lines, p->nr_lines + n)) {
		p->failed = true;
		return -1;
	}
	l->first_line = p->nr_lines;
	for (i = 0; i < n; i++) {
		f = rframe_frame(p, &rf[i], raw);
		if (f < 0)
			return -1;
		p->lines[p->nr_lines].frame = f;
		p->lines[p->nr_lines++].line = rf[i].line;
	}
	l->nr_lines = n;
	return 0;
}

/*
 * The location of @n rendered frames of one address (an inlined chain
 * ends with its caller). Unnamed frames get no line in pprof (a client
 * may symbolize them) but one here: the other formats draw them.
 */
static int rframes_loc(struct ustack_profile *p, const struct rframe *rf, size_t n,
		       bool ret, bool raw, int tgid)
{
	struct ploc key = { 0 }, *l;
	uint64_t hash;

	key.map = -1;
	key.kind = rf->kind;
	key.addr = rf->addr;
	if (rf->map && (rf->kind == RF_SYM || rf->kind == RF_FILE)) {
		key.map = map_id(p, rf->map);
		key.ret = ret;
	} else if (rf->kind == RF_UNANNOUNCED) {
		key.name = (uint32_t)rf->id;	/* file ids tell them apart */
	} else if (rf->kind == RF_JIT || rf->kind == RF_ADDR) {
		key.name = tgid;		/* an address of one process */
	}
	hash = loc_hash(&key);
	l = loc_find(p, &key, hash);
	if (l)
		return l->id;
	l = malloc(sizeof(*l));
	if (!l) {
		p->failed = true;
		return -1;
	}
	*l = key;
	if (loc_lines(p, l, rf, n, raw)) {
		free(l);
		return -1;
	}
	if (TABLE_ADD(p, locs, l, hash))
		return -1;
	map_note(p, l, rf, n);
	return l->id;
}

/* A location that is only a name: a note, standing for frames */
static int pseudo_loc(struct ustack_profile *p, const char *text, enum pf_class cls)
{
	struct pframe fkey = { 0 };
	struct ploc key = { 0 }, *l;
	uint64_t hash;
	int f;

	key.map = -1;
	key.kind = PLOC_PSEUDO;
	key.name = intern(p, text);
	hash = loc_hash(&key);
	l = loc_find(p, &key, hash);
	if (l)
		return l->id;
	fkey.cls = cls;
	fkey.name = key.name;
	f = frame_id(p, &fkey, 0);
	l = malloc(sizeof(*l));
	if (f < 0 || !l || GROW(p, lines, p->nr_lines + 1)) {
		free(l);
		p->failed = true;
		return -1;
	}
	*l = key;
	l->first_line = p->nr_lines;
	l->nr_lines = 1;
	p->lines[p->nr_lines].frame = f;
	p->lines[p->nr_lines++].line = 0;
	if (TABLE_ADD(p, locs, l, hash))
		return -1;
	return l->id;
}

/* ------------------------------------------------------------------ */
/* Samples                                                            */
/* ------------------------------------------------------------------ */

static int cur_push(struct ustack_profile *p, int loc)
{
	if (loc < 0 || GROW(p, cur, p->nr_cur + 1)) {
		p->failed = true;
		return -1;
	}
	p->cur[p->nr_cur++] = loc;
	return 0;
}

/*
 * The sample's locations, leaf first: kernel frames, user frames (each
 * address with its inlined calls), then the notes. Only user frames after
 * the first are return addresses.
 */
static int sample_locs(struct ustack_profile *p, const struct ustack_sample *s,
		       const struct rframe *rf, size_t nr, bool raw)
{
	const char *note = ustack_render_note(s);
	bool ret = false;
	size_t i, j;

	p->nr_cur = 0;
	for (i = 0; i < nr; i = j) {
		/* an inlined frame shares its address with the frames after it */
		for (j = i + 1; j < nr && rf[j - 1].inlined && rf[j].addr == rf[i].addr &&
		     rf[j].kind == rf[i].kind; j++)
			;
		if (cur_push(p, rframes_loc(p, &rf[i], j - i, ret, raw, s->tgid)))
			return -1;
		if (rf[i].kind != RF_KERNEL)
			ret = true;
	}
	if (note && cur_push(p, pseudo_loc(p, note, PF_NOTE)))
		return -1;
	if (ustack_render_truncated(s) && cur_push(p, pseudo_loc(p, "[truncated]", PF_NOTE)))
		return -1;
	if (ustack_render_unwind_end(s) &&
	    cur_push(p, pseudo_loc(p, ustack_render_unwind_end(s), PF_NOTE)))
		return -1;
	return 0;
}

static int event_id(struct ustack_profile *p, const struct ustack_sample *s)
{
	char buf[256];
	size_t i;

	for (i = 0; i < p->nr_events; i++)
		if (p->events[i].key == s->event)
			return i;
	if (GROW(p, events, p->nr_events + 1)) {
		p->failed = true;
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s:%s", s->event ? s->event->system : "unknown",
		 s->event ? s->event->name : "unknown");
	p->events[i].key = s->event;
	p->events[i].name = intern(p, buf);
	p->events[i].short_name = intern(p, s->event ? s->event->name : "unknown");
	p->events[i].count = 0;
	return p->nr_events++;
}

static struct pstack *stack_find(struct ustack_profile *p, uint32_t event, uint32_t comm,
				 uint64_t hash)
{
	struct ustack_hnode *pos;
	struct pstack *st;

	ustack_hash_table_for_each_hash(&p->stacks_hash, pos, hash) {
		st = ustack_hash_table_entry(pos, struct pstack, node);
		if (st->event == event && st->comm == comm && st->nr_locs == p->nr_cur &&
		    (!p->nr_cur || !memcmp(&p->stack_locs[st->first_loc], p->cur,
					   p->nr_cur * sizeof(*p->cur))))
			return st;
	}
	return NULL;
}

/* The distinct stack of the current locations, @event and @comm */
static struct pstack *stack_get(struct ustack_profile *p, uint32_t event, uint32_t comm)
{
	uint64_t hash = ustack_hash_mem(p->cur, p->nr_cur * sizeof(*p->cur),
					(uint64_t)event << 32 | comm);
	struct pstack *st = stack_find(p, event, comm, hash);

	if (st)
		return st;
	st = calloc(1, sizeof(*st));
	/*
	 * Room for one location at least: the writers find a stack's at
	 * &stack_locs[first_loc], which must be a real pointer for a stack
	 * without frames too
	 */
	if (!st || GROW(p, stack_locs, p->nr_stack_locs + p->nr_cur + 1)) {
		free(st);
		p->failed = true;
		return NULL;
	}
	st->event = event;
	st->comm = comm;
	st->nr_locs = p->nr_cur;
	st->first_loc = p->nr_stack_locs;
	/* a sample without frames: no locations, maybe no p->cur */
	if (p->nr_cur)
		memcpy(&p->stack_locs[p->nr_stack_locs], p->cur, p->nr_cur * sizeof(*p->cur));
	p->nr_stack_locs += p->nr_cur;
	if (TABLE_ADD(p, stacks, st, hash))
		return NULL;
	return st;
}

/* Time order: runs of one stack are one entry */
static void order_add(struct ustack_profile *p, const struct pstack *st)
{
	struct porder *last = p->nr_order ? &p->order[p->nr_order - 1] : NULL;

	if (last && last->stack == st->id && last->weight < UINT32_MAX) {
		last->weight++;
		return;
	}
	if (GROW(p, order, p->nr_order + 1)) {
		p->failed = true;
		return;
	}
	p->order[p->nr_order].stack = st->id;
	p->order[p->nr_order++].weight = 1;
}

/* Count one sample on its distinct stack */
static void stack_count(struct ustack_profile *p, struct pstack *st,
			const struct ustack_sample *s)
{
	st->count++;
	p->events[st->event].count++;
	if (!p->samples || s->ts < p->first_ts)
		p->first_ts = s->ts;
	if (s->ts > p->last_ts)
		p->last_ts = s->ts;
	p->samples++;
	if (p->keep_order)
		order_add(p, st);
}

/* Everything a sample's stack is made of, before rendering; -1: no memory */
static int build_key(struct ustack_profile *p, const struct ustack_sample *s)
{
	const char *comm = s->comm ? s->comm : "";
	size_t n = strlen(comm), nr = ustack_render_has_stack(s) ? s->nr_frames : 0;
	size_t i;
	uint64_t *k;

	p->key_len = 3 + 3 * nr + s->nr_kframes + n / 8 + 1;
	if (ustack_array_grow((void **)&p->key, &p->alloc_key, p->key_len, sizeof(*p->key)))
		return -1;
	k = p->key;
	*k++ = (uint64_t)s->status << 32 | (uint64_t)(uint16_t)s->unwind_end << 1 |
	       ustack_render_truncated(s);
	*k++ = (uint64_t)(uintptr_t)s->event;
	*k++ = (uint64_t)nr << 32 | s->nr_kframes;
	for (i = 0; i < nr; i++) {
		*k++ = (uint64_t)(uintptr_t)s->frames[i].map;
		*k++ = s->frames[i].offset;
		*k++ = s->frames[i].id;
	}
	for (i = 0; i < s->nr_kframes; i++)
		*k++ = s->kframes[i];
	/* the comm and its NUL, zero-padded to whole words */
	memset(k, 0, (n / 8 + 1) * sizeof(*k));
	memcpy(k, comm, n);
	return 0;
}

static struct pmemo *memo_find(struct ustack_profile *p)
{
	struct ustack_hnode *pos;
	struct pmemo *m;

	ustack_hash_table_for_each_hash(&p->memo, pos, p->memo_hash) {
		m = ustack_hash_table_entry(pos, struct pmemo, node);
		if (m->len == p->key_len && !memcmp(m->key, p->key, p->key_len * sizeof(*p->key)))
			return m;
	}
	return NULL;
}

/* Remember the stack of the sample just rendered; no memory: not */
static void memo_add(struct ustack_profile *p, struct pstack *st, unsigned int frames)
{
	struct pmemo *m = malloc(sizeof(*m) + p->key_len * sizeof(*p->key));

	if (!m)
		return;
	m->st = st;
	m->frames = frames;
	m->len = p->key_len;
	memcpy(m->key, p->key, p->key_len * sizeof(*p->key));
	if (ustack_hash_table_add(&p->memo, &m->node, p->memo_hash))
		free(m);
}

/*
 * The render stage asks before rendering (when the profile is its only
 * consumer): count @s on the stack of the same frames met before.
 * Returns false when it has to be rendered.
 */
static bool profile_again(void *ctx, const struct ustack_sample *s, unsigned int *frames)
{
	struct ustack_profile *p = ctx;
	struct pmemo *m;

	p->memo_ok = !p->failed && !build_key(p, s);
	if (!p->memo_ok)
		return false;
	p->memo_hash = ustack_hash_mem(p->key, p->key_len * sizeof(*p->key), 0);
	m = memo_find(p);
	if (!m)
		return false;
	*frames = m->frames;
	stack_count(p, m->st, s);
	return true;
}

/*
 * A task name the kernel cut inside a character (its 15 bytes) is the
 * name up to that character: the writers' cuts are all at characters.
 */
static uint32_t intern_comm(struct ustack_profile *p, const char *comm)
{
	size_t len = ustack_text_comm_len(comm);
	char buf[16];

	if (!comm[len])
		return intern(p, comm);
	memcpy(buf, comm, len);
	buf[len] = '\0';
	return intern(p, buf);
}

/*
 * The render stage's callback: count one sample with its frames (kernel
 * frames first, then user frames, leaf first, inlined calls expanded).
 * Out of memory is remembered: the writers then fail with ENOMEM.
 */
static int profile_sample(void *ctx, const struct ustack_rendered *r)
{
	const struct ustack_sample *s = r->sample;
	struct ustack_profile *p = ctx;
	bool memo_ok = p->memo_ok;
	struct pstack *st;
	uint32_t comm;
	int ev;

	p->memo_ok = false;
	if (p->failed)
		return 0;
	ev = event_id(p, s);
	comm = intern_comm(p, s->comm ? s->comm : "<...>");
	if (ev < 0 || sample_locs(p, s, r->rf, r->nr, r->raw))
		return 0;
	if (p->event_root &&
	    cur_push(p, pseudo_loc(p, pstr(p, p->events[ev].short_name), PF_COMM)))
		return 0;
	st = stack_get(p, ev, comm);
	if (!st)
		return 0;
	stack_count(p, st, s);
	if (memo_ok && r->stable)
		memo_add(p, st, r->frames);
	return 0;
}

/**
 * ustack_profile_consumer - the profile as a consumer of the render stage
 * @p:	the profile
 * @c:	filled in, for ustack_render_attach()
 */
void ustack_profile_consumer(struct ustack_profile *p, struct ustack_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->sample = profile_sample;
	c->again = profile_again;
	c->ctx = p;
}

/**
 * ustack_profile_set_event_root - the event's name as every stack's root
 * @p:		the profile, before its first sample
 * @on:		whether
 *
 * Each stack then ends (outermost) in a location named after its event:
 * pprof's root, and above the task name in the flame graph and speedscope,
 * so that a profile of several events splits by event at its root.
 */
void ustack_profile_set_event_root(struct ustack_profile *p, bool on)
{
	p->event_root = on;
}

/**
 * ustack_profile_set_command - what the profile is of, for titles
 * @p:		the profile
 * @command:	the traced command line, the pids or the input file
 */
void ustack_profile_set_command(struct ustack_profile *p, const char *command)
{
	free(p->command);
	p->command = command ? strdup(command) : NULL;
}

/**
 * ustack_profile_set_stats - the session's counters, for subtitles
 * @p:		the profile
 * @st:		counters at the end of the run (copied)
 */
void ustack_profile_set_stats(struct ustack_profile *p, const struct ustack_stats *st)
{
	p->stats = *st;
	p->have_stats = true;
}

/**
 * ustack_profile_class_str - what a frame class is, for humans
 * @cls: the class
 */
const char *ustack_profile_class_str(enum pf_class cls)
{
	static const char * const names[PF_CLASS_NR] = {
		[PF_USER]	= "user",
		[PF_INLINED]	= "inlined",
		[PF_JIT]	= "jit",
		[PF_KERNEL]	= "kernel",
		[PF_UNRESOLVED]	= "unresolved",
		[PF_COMM]	= "task",
		[PF_NOTE]	= "note",
	};

	return cls < PF_CLASS_NR ? names[cls] : "?";
}

/**
 * ustack_profile_set_program - the traced command's executable
 * @p:		the profile
 * @path:	its path, symbolic links resolved; NULL when not known
 *		(-P, the whole system, report). Ignored when it is not a
 *		program (a script).
 */
void ustack_profile_set_program(struct ustack_profile *p, const char *path)
{
	free(p->program);
	p->program = NULL;
	/* a script's interpreter is found by the samples instead */
	if (!path || !file_is_program(path))
		return;
	p->program = calloc(1, sizeof(*p->program));
	if (!p->program) {
		p->failed = true;
		return;
	}
	p->program->path = intern(p, path);
	p->program->program = true;
	file_build_id(p->program, path);
}

/* How many samples have a frame in each file (@weight: one per map) */
static int map_weights(const struct ustack_profile *p, uint64_t *weight)
{
	size_t *last = calloc(p->nr_maps + 1, sizeof(*last));
	const struct pstack *st;
	const struct ploc *l;
	size_t i, j;

	if (!last)
		return -1;
	for (i = 0; i < p->nr_stacks; i++) {
		st = p->stacks[i];
		for (j = 0; j < st->nr_locs; j++) {
			l = p->locs[p->stack_locs[st->first_loc + j]];
			/* a stack counts once for a file, however many frames it has there */
			if (l->map < 0 || last[l->map] == i + 1)
				continue;
			last[l->map] = i + 1;
			weight[l->map] += st->count;
		}
	}
	free(last);
	return 0;
}

/**
 * ustack_profile_main_map - the traced program's file, as pprof's main binary
 * @p:		the profile
 *
 * The command's executable when samples have frames in it; else the
 * program (not a library nor the dynamic linker) the most samples have a
 * frame in (a command that exec'd another, report, -P); else, when no
 * program has frames (stacks cut in a library), the command's file:
 * p->nr_maps, for struct ustack_profile.program, which has no frames;
 * else the file the most samples have a frame in. Returns an index of
 * the profile's maps, p->nr_maps, or -1 when there is no file at all.
 */
int ustack_profile_main_map(const struct ustack_profile *p)
{
	uint64_t *weight = calloc(p->nr_maps + 1, sizeof(*weight));
	int best = -1, best_program = -1, command = -1;
	size_t i;

	if (!weight || map_weights(p, weight)) {
		free(weight);
		return p->nr_maps ? 0 : -1;
	}
	for (i = 0; i < p->nr_maps; i++) {
		if (!weight[i])
			continue;
		if (p->program && p->maps[i]->path == p->program->path)
			command = i;
		if (best < 0 || weight[i] > weight[best])
			best = i;
		if (p->maps[i]->program &&
		    (best_program < 0 || weight[i] > weight[best_program]))
			best_program = i;
	}
	free(weight);
	if (command >= 0)
		return command;
	if (best_program >= 0)
		return best_program;
	return p->program ? (int)p->nr_maps : best;
}

/**
 * ustack_profile_span - "12.345678 to 13.000000 (0.654 s)" of the samples
 * @p:		the profile
 * @buf:	where to
 * @size:	its size
 */
void ustack_profile_span(const struct ustack_profile *p, char *buf, size_t size)
{
	uint64_t a = p->first_ts, b = p->last_ts;

	if (!p->samples) {
		snprintf(buf, size, "no samples");
		return;
	}
	snprintf(buf, size, "%" PRIu64 ".%06" PRIu64 " to %" PRIu64 ".%06" PRIu64
		 " (%.3f s)", a / 1000000000, a % 1000000000 / 1000,
		 b / 1000000000, b % 1000000000 / 1000, (b - a) / 1e9);
}

/**
 * ustack_profile_dso - the file a frame is in, as --top and --tree name it
 * @p:		the profile
 * @f:		the frame
 *
 * The base name of its path; "[kernel.kallsyms]" and "[jit]" as perf
 * names them; "[unknown]" for the notes and addresses in no file.
 */
const char *ustack_profile_dso(const struct ustack_profile *p, const struct pframe *f)
{
	const char *path, *base;

	if (f->dso) {
		path = pstr(p, f->dso);
		base = strrchr(path, '/');
		return base && base[1] ? base + 1 : path;
	}
	if (f->cls == PF_KERNEL || (f->cls == PF_UNRESOLVED && f->suffix &&
				    !strcmp(pstr(p, f->suffix), "_[k]")))
		return "[kernel.kallsyms]";
	return f->cls == PF_JIT ? "[jit]" : "[unknown]";
}

/**
 * ustack_profile_sync_note - what the profile files' subtitles say of synchronous stacks
 * @st:	the session's counters
 *
 * The perf source's stacks are named by how they were unwound (the
 * kernel's frame-pointer walk, stack copies unwound with CFI, or both
 * under --call-graph=auto), as the run's notice and summary name them.
 * Returns NULL when there were none.
 */
const char *ustack_profile_sync_note(const struct ustack_stats *st)
{
	if (!st->sync)
		return NULL;
	if (st->perf != st->sync)
		return "fallback: synchronous stacks, 8 frames at most";
	if (!st->unwound)
		return "perf events: frame pointers";
	if (st->unwound >= st->perf)
		return "perf events: stack copies unwound with CFI";
	return "perf events: frame pointers and stack copies unwound with CFI";
}

/**
 * ustack_profile_put_text - print a name from a trace, at most @max characters
 * @fp:		where to
 * @s:		the name (untrusted: escaped as every text output escapes it,
 *		ustack_text_fput_chars())
 * @max:	at most this many characters shown; past them the name ends
 *		in "..." (within @max)
 *
 * Returns the characters printed (the columns they take).
 */
size_t ustack_profile_put_text(FILE *fp, const char *s, size_t max)
{
	size_t width = ustack_text_width(s, USTACK_TEXT_TERM), n;

	if (width <= max)
		return ustack_text_fput_chars(fp, s, width, USTACK_TEXT_TERM);
	n = ustack_text_fput_chars(fp, s, max > 3 ? max - 3 : 0, USTACK_TEXT_TERM);
	/* as many dots as there is room for, at most three */
	fprintf(fp, "%.*s", (int)(max < 3 ? max : 3), "...");
	return n + (max < 3 ? max : 3);
}

static int event_count_cmp(const void *a, const void *b, void *arg)
{
	const struct ustack_profile *p = arg;
	uint64_t x = p->events[*(const uint32_t *)a].count;
	uint64_t y = p->events[*(const uint32_t *)b].count;

	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(pstr(p, p->events[*(const uint32_t *)a].name),
		      pstr(p, p->events[*(const uint32_t *)b].name));
}

/* Events named in the first line of --top and --tree, the largest first */
#define EVENTS_NAMED	4

/**
 * ustack_profile_put_events - "4000 events: E1 3000, E2 1000" (no newline)
 * @p:		the profile
 * @fp:		where to
 *
 * The largest events first, at most four of them, then how many more.
 */
void ustack_profile_put_events(const struct ustack_profile *p, FILE *fp)
{
	uint32_t *v = malloc((p->nr_events + 1) * sizeof(*v));
	size_t i, n = p->nr_events;

	fprintf(fp, "%" PRIu64 " event%s", p->samples, p->samples == 1 ? "" : "s");
	if (!v || !n) {
		free(v);
		return;
	}
	for (i = 0; i < n; i++)
		v[i] = i;
	qsort_r(v, n, sizeof(*v), event_count_cmp, (void *)p);
	for (i = 0; i < n && i < EVENTS_NAMED; i++) {
		fputs(i ? ", " : ": ", fp);
		ustack_profile_put_text(fp, pstr(p, p->events[v[i]].name), SIZE_MAX);
		fprintf(fp, " %" PRIu64, p->events[v[i]].count);
	}
	if (n > EVENTS_NAMED)
		fprintf(fp, " and %zu more", n - EVENTS_NAMED);
	free(v);
}
