// SPDX-License-Identifier: LGPL-2.1
/*
 * DWARF side of the symbolizer: file:line and inlined frames, via libdw.
 *
 * CUs are found through a sorted table of their address ranges built once.
 * Lines come from libdw's per-CU line table (parsed lazily by libdw,
 * binary-searched). Inlined calls would cost a DIE-tree walk per address
 * with dwarf_getscopes() (measured 94 us), so instead each CU is walked
 * once, the first time one of its addresses is asked for, into a flat
 * pre-order table of concrete functions and their inlined instances;
 * a lookup is a binary search over the functions plus a descent that
 * only visits the siblings on the path.
 *
 * Concrete functions are not all at the top of the tree: the members of
 * a local class (a lambda's operator()) sit inside the class, inside the
 * function that defines it, and that one may be an abstract instance
 * without code. Such functions are walked as top-level functions of
 * their own, never as part of the function around them.
 */
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdwelf.h>

#include "ustack-array.h"
#include "ustack-resolve-int.h"

#define MAX_DEPTH	256
/* Local classes and functions per CU walked (a bound on broken DWARF). */
#define MAX_LATER	(1U << 20)

struct urange {
	uint64_t	lo;
	uint64_t	hi;
};

/* A concrete function or inlined instance, in DIE pre-order. */
struct uinl {
	Dwarf_Off	die;
	uint64_t	lo, hi;		/* bounding box of its ranges */
	uint32_t	range;		/* first of its ranges */
	uint32_t	nr_ranges;
	uint32_t	skip;		/* first entry after its subtree */
	bool		inlined;
	const char	*name;		/* resolved lazily */
};

/* One range of a top-level function, for the binary search. */
struct utop {
	uint64_t	lo;
	uint64_t	hi;
	uint32_t	ent;
};

struct ucu {
	Dwarf_Die	die;
	bool		walked;
	Dwarf_Off	*later;		/* local classes and functions in code */
	size_t		nr_later, alloc_later;
	struct uinl	*ents;
	size_t		nr_ents, alloc_ents;
	struct urange	*ranges;
	size_t		nr_ranges, alloc_ranges;
	struct utop	*top;
	size_t		nr_top;
	Dwarf_Files	*files;
	size_t		nr_files;
	bool		files_done;
	char		**paths;	/* joined file names, by index */
	const char	*comp_dir;
};

struct ucu_range {
	uint64_t	lo;
	uint64_t	hi;
	uint32_t	cu;
};

struct udwarf {
	struct ustack_resolver	*r;
	bool			lines;		/* file:line asked for: line tables read */
	Dwarf			*dbg;
	struct ucu		*cus;
	size_t			nr_cus;
	struct ucu_range	*cr;
	size_t			nr_cr;
	char			**owned;	/* demangled names */
	size_t			nr_owned, alloc_owned;
	struct uelf		*alt;		/* the dwz file, when there is one */
	Dwarf			*altdbg;
	char			*img;		/* uelf_dwarf_image(), read by @dbg */
	size_t			img_size;
	Elf			*img_elf;
};

/* Room for one more after @nr: the array, or NULL (@p unchanged). */
static void *grow(void *p, size_t *alloc, size_t nr, size_t size)
{
	return ustack_array_grow(&p, alloc, nr + 1, size) ? NULL : p;
}

static int cr_cmp(const void *pa, const void *pb)
{
	const struct ucu_range *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->cu < b->cu ? -1 : a->cu > b->cu;
}

static int add_cr(struct udwarf *dw, size_t *alloc_cr, uint64_t lo, uint64_t hi,
		  uint32_t cu)
{
	struct ucu_range *cr;

	if (lo >= hi)
		return 0;
	cr = grow(dw->cr, alloc_cr, dw->nr_cr, sizeof(*cr));
	if (!cr)
		return -1;
	dw->cr = cr;
	cr[dw->nr_cr].lo = lo;
	cr[dw->nr_cr].hi = hi;
	cr[dw->nr_cr].cu = cu;
	dw->nr_cr++;
	return 0;
}

static int add_cu(struct udwarf *dw, Dwarf_Die *cudie, size_t *alloc_cus)
{
	struct ucu *cus;

	cus = grow(dw->cus, alloc_cus, dw->nr_cus, sizeof(*cus));
	if (!cus)
		return -1;
	dw->cus = cus;
	memset(&cus[dw->nr_cus], 0, sizeof(*cus));
	cus[dw->nr_cus].die = *cudie;
	dw->nr_cus++;
	return 0;
}

/* The CU whose DIE is at @off (dw->cus is in file order), or -1 */
static long cu_by_offset(const struct udwarf *dw, Dwarf_Off off)
{
	size_t lo = 0, hi = dw->nr_cus, mid;
	Dwarf_Off at;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		at = dwarf_dieoffset((Dwarf_Die *)&dw->cus[mid].die);
		if (at == off)
			return mid;
		if (at < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * The CUs' ranges from .debug_aranges, made for this lookup: one pass
 * over a small section, where the CU DIEs' own ranges are read unit by
 * unit (DWARF 5 range lists). Marks the CUs it gave ranges to.
 */
static int aranges_cr(struct udwarf *dw, size_t *alloc_cr, bool *covered)
{
	Dwarf_Aranges *ar;
	Dwarf_Addr addr;
	Dwarf_Word len;
	Dwarf_Off off;
	size_t n, i;
	long cu;

	if (dwarf_getaranges(dw->dbg, &ar, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (dwarf_getarangeinfo(dwarf_onearange(ar, i), &addr, &len, &off))
			continue;
		cu = cu_by_offset(dw, off);
		if (cu < 0 || addr + len < addr)
			continue;
		if (add_cr(dw, alloc_cr, addr, addr + len, cu) < 0)
			return -1;
		covered[cu] = true;
	}
	return 0;
}

/* A CU .debug_aranges left out: its DIE's own ranges */
static int die_cr(struct udwarf *dw, size_t *alloc_cr, uint32_t cu)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(&dw->cus[cu].die, off, &base, &lo, &hi)) > 0)
		if (add_cr(dw, alloc_cr, lo, hi, cu) < 0)
			return -1;
	return 0;
}

/* Every compile unit and its address ranges, sorted. */
static int index_cus(struct udwarf *dw)
{
	size_t alloc_cus = 0, alloc_cr = 0, i;
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie, subdie;
	uint8_t unit_type;
	Dwarf_Half ver;
	bool *covered;
	int err = 0;

	while (dwarf_get_units(dw->dbg, cu, &next, &ver, &unit_type, &cudie,
			       &subdie) == 0) {
		cu = next;
		if (unit_type == DW_UT_type || unit_type == DW_UT_split_type)
			continue;
		if (add_cu(dw, &cudie, &alloc_cus) < 0)
			return -1;
	}
	covered = calloc(dw->nr_cus + 1, sizeof(*covered));
	if (!covered)
		return -1;
	err = aranges_cr(dw, &alloc_cr, covered);
	for (i = 0; !err && i < dw->nr_cus; i++)
		if (!covered[i])
			err = die_cr(dw, &alloc_cr, i);
	free(covered);
	if (err)
		return -1;
	if (dw->nr_cr)
		qsort(dw->cr, dw->nr_cr, sizeof(*dw->cr), cr_cmp);
	return 0;
}

/*
 * The dwz file a .gnu_debugaltlink names is found here, not by libdw:
 * libdw would open the path the file names as it stands, outside
 * --symfs, a FIFO included (and block). Without it the DWARF is not used:
 * the references into it could not be followed.
 */
static int udwarf_alt(struct udwarf *dw, struct uelf *e)
{
	const void *id;
	const char *name;
	ssize_t len;

	len = dwelf_dwarf_gnu_debugaltlink(dw->dbg, &name, &id);
	if (!len)
		return 0;
	if (len < 0)
		return -1;
	dw->alt = ustack_resolve_debuginfo_alt(dw->r, e, name, id, len);
	/* libdw reads it as much as the main file: the same cap */
	if (!dw->alt || !uelf_dwarf_ok(dw->alt) || !uelf_dwarf_readable(dw->alt))
		return -1;
	dw->altdbg = dwarf_begin_elf(dw->alt->elf, DWARF_C_READ, NULL);
	if (!dw->altdbg)
		return -1;
	dwarf_setalt(dw->dbg, dw->altdbg);
	return 0;
}

/**
 * udwarf_open - DWARF of a file, for lines and inlines
 * @r: resolver (demangling)
 * @e: file with .debug_info, kept open by the caller
 *
 * Returns NULL when libdw cannot read it.
 */
struct udwarf *udwarf_open(struct ustack_resolver *r, struct uelf *e)
{
	struct udwarf *dw = calloc(1, sizeof(*dw));

	if (!dw)
		return NULL;
	dw->r = r;
	dw->lines = r->opts.lines;
	if (uelf_dwarf_image(e, dw->lines, &dw->img, &dw->img_size) < 0) {
		free(dw);
		return NULL;
	}
	if (dw->img)
		dw->img_elf = elf_memory(dw->img, dw->img_size);
	dw->dbg = dwarf_begin_elf(dw->img_elf ? dw->img_elf : e->elf, DWARF_C_READ, NULL);
	if (!dw->dbg || udwarf_alt(dw, e) < 0 || index_cus(dw) < 0) {
		udwarf_free(dw);
		return NULL;
	}
	return dw;
}

static void cu_free(struct ucu *cu)
{
	size_t i;

	for (i = 0; cu->paths && i < cu->nr_files; i++)
		free(cu->paths[i]);
	free(cu->paths);
	free(cu->later);
	free(cu->ents);
	free(cu->ranges);
	free(cu->top);
}

void udwarf_free(struct udwarf *dw)
{
	size_t i;

	if (!dw)
		return;
	for (i = 0; i < dw->nr_cus; i++)
		cu_free(&dw->cus[i]);
	for (i = 0; i < dw->nr_owned; i++)
		free(dw->owned[i]);
	free(dw->owned);
	free(dw->cus);
	free(dw->cr);
	if (dw->dbg)
		dwarf_end(dw->dbg);
	if (dw->img_elf)
		elf_end(dw->img_elf);
	uelf_dwarf_image_free(dw->img, dw->img_size);
	/* After the main file: it refers to the dwz file until its end. */
	if (dw->altdbg)
		dwarf_end(dw->altdbg);
	uelf_close(dw->alt);
	free(dw);
}

/* Append @die with its ranges; returns its index or -1 when it has none. */
static long add_ent(struct ucu *cu, Dwarf_Die *die, bool inlined)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	struct uinl *e;

	e = grow(cu->ents, &cu->alloc_ents, cu->nr_ents, sizeof(*e));
	if (!e)
		return -1;
	cu->ents = e;
	e = &cu->ents[cu->nr_ents];
	memset(e, 0, sizeof(*e));
	e->die = dwarf_dieoffset(die);
	e->inlined = inlined;
	e->range = cu->nr_ranges;
	e->lo = UINT64_MAX;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		struct urange *r;

		if (lo >= hi)
			continue;
		r = grow(cu->ranges, &cu->alloc_ranges, cu->nr_ranges, sizeof(*r));
		if (!r)
			break;
		cu->ranges = r;
		r[cu->nr_ranges].lo = lo;
		r[cu->nr_ranges].hi = hi;
		cu->nr_ranges++;
		e->nr_ranges++;
		if (lo < e->lo)
			e->lo = lo;
		if (hi > e->hi)
			e->hi = hi;
	}
	if (!e->nr_ranges)
		return -1;
	return cu->nr_ents++;
}

/* Where the walk is: what a child DIE can be. */
enum scope {
	SCOPE_NAMESPACE,	/* CU, namespace: functions, not local classes */
	SCOPE_FUNC,		/* a function without code, a local class */
	SCOPE_CODE,		/* inside a function or inlined instance */
};

static void walk(struct ucu *cu, Dwarf_Die *parent, enum scope scope, int depth);

static bool has_code(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

/* A function or inlined instance: an entry, then its subtree. */
static void walk_code(struct ucu *cu, Dwarf_Die *die, bool inlined, int depth)
{
	long i = add_ent(cu, die, inlined);

	if (i < 0)
		return;
	walk(cu, die, SCOPE_CODE, depth + 1);
	cu->ents[i].skip = cu->nr_ents;
}

/* A DIE inside code that holds functions of its own: walked at the top. */
static void walk_later(struct ucu *cu, Dwarf_Die *die)
{
	Dwarf_Off *l = grow(cu->later, &cu->alloc_later, cu->nr_later,
			    sizeof(*l));

	if (!l)
		return;
	cu->later = l;
	l[cu->nr_later++] = dwarf_dieoffset(die);
}

static void walk_subprogram(struct ucu *cu, Dwarf_Die *die, enum scope scope,
			    int depth)
{
	if (scope == SCOPE_CODE)
		walk_later(cu, die);
	else if (has_code(die))
		walk_code(cu, die, false, depth);
	else if (!dwarf_hasattr(die, DW_AT_declaration))
		/* An abstract instance: its local classes may have code. */
		walk(cu, die, SCOPE_FUNC, depth + 1);
}

static void walk(struct ucu *cu, Dwarf_Die *parent, enum scope scope, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_DEPTH || dwarf_child(parent, &child) != 0)
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			walk_subprogram(cu, &child, scope, depth);
			break;
		case DW_TAG_inlined_subroutine:
			if (scope == SCOPE_CODE)
				walk_code(cu, &child, true, depth);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (scope != SCOPE_NAMESPACE)
				walk(cu, &child, scope, depth + 1);
			break;
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			/* Classes at namespace level keep their code outside. */
			if (scope == SCOPE_CODE)
				walk_later(cu, &child);
			else if (scope == SCOPE_FUNC)
				walk(cu, &child, SCOPE_FUNC, depth + 1);
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
			if (scope == SCOPE_NAMESPACE)
				walk(cu, &child, scope, depth + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* What walk() set aside, as functions of their own (may set more aside). */
static void walk_set_aside(struct udwarf *dw, struct ucu *cu)
{
	size_t i;

	for (i = 0; i < cu->nr_later && i < MAX_LATER; i++) {
		Dwarf_Die die;

		if (!dwarf_offdie(dw->dbg, cu->later[i], &die))
			continue;
		if (dwarf_tag(&die) == DW_TAG_subprogram)
			walk_subprogram(cu, &die, SCOPE_FUNC, 0);
		else
			walk(cu, &die, SCOPE_FUNC, 0);
	}
}

static int top_cmp(const void *pa, const void *pb)
{
	const struct utop *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->ent < b->ent ? -1 : a->ent > b->ent;
}

/* Outermost entries (not inside another one) and their ranges, sorted. */
static void build_top(struct ucu *cu)
{
	size_t i, n = 0;

	for (i = 0; i < cu->nr_ents; i = cu->ents[i].skip)
		n += cu->ents[i].nr_ranges;
	cu->top = calloc(n ? n : 1, sizeof(*cu->top));
	if (!cu->top)
		return;
	for (i = 0; i < cu->nr_ents; i = cu->ents[i].skip) {
		uint32_t k;

		for (k = 0; k < cu->ents[i].nr_ranges; k++) {
			const struct urange *r = &cu->ranges[cu->ents[i].range + k];

			cu->top[cu->nr_top].lo = r->lo;
			cu->top[cu->nr_top].hi = r->hi;
			cu->top[cu->nr_top].ent = i;
			cu->nr_top++;
		}
	}
	qsort(cu->top, cu->nr_top, sizeof(*cu->top), top_cmp);
}

static void cu_walk(struct udwarf *dw, struct ucu *cu)
{
	cu->walked = true;
	walk(cu, &cu->die, SCOPE_NAMESPACE, 0);
	walk_set_aside(dw, cu);
	build_top(cu);
}

static struct ucu *find_cu(struct udwarf *dw, uint64_t addr)
{
	size_t lo = 0, hi = dw->nr_cr, k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dw->cr[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* CU ranges may nest or overlap (rare): look a little further back. */
	for (k = 0; k < 8 && lo > k; k++) {
		const struct ucu_range *c = &dw->cr[lo - 1 - k];

		if (addr < c->hi)
			return &dw->cus[c->cu];
	}
	return NULL;
}

static bool ent_has(const struct ucu *cu, const struct uinl *e, uint64_t addr)
{
	uint32_t k;

	if (addr < e->lo || addr >= e->hi)
		return false;
	for (k = 0; k < e->nr_ranges; k++) {
		const struct urange *r = &cu->ranges[e->range + k];

		if (addr >= r->lo && addr < r->hi)
			return true;
	}
	return false;
}

static long find_top(const struct ucu *cu, uint64_t addr)
{
	size_t lo = 0, hi = cu->nr_top, k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->top[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = 0; k < 8 && lo > k; k++) {
		const struct utop *t = &cu->top[lo - 1 - k];

		if (addr < t->hi)
			return t->ent;
	}
	return -1;
}

/* Entries containing @addr, outermost first; returns how many. */
static int inline_chain(const struct ucu *cu, uint64_t addr, uint32_t *chain,
			int max)
{
	long top = find_top(cu, addr);
	uint32_t i, end;
	int n = 0;

	if (top < 0 || !max)
		return 0;
	chain[n++] = top;
	i = top + 1;
	end = cu->ents[top].skip;
	while (i < end && n < max) {
		const struct uinl *e = &cu->ents[i];

		if (ent_has(cu, e, addr)) {
			chain[n++] = i;
			end = e->skip;
			i++;
		} else {
			i = e->skip;
		}
	}
	return n;
}

static const char *keep_owned(struct udwarf *dw, char *s)
{
	char **o = grow(dw->owned, &dw->alloc_owned, dw->nr_owned, sizeof(*o));

	if (!o) {
		free(s);
		return NULL;
	}
	dw->owned = o;
	o[dw->nr_owned++] = s;
	return s;
}

/* Linkage name (demangled if asked) through abstract origins, else name. */
static const char *die_name(struct udwarf *dw, Dwarf_Die *die)
{
	static const int attrs[] = {
		DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name
	};
	Dwarf_Attribute a;
	const char *n = NULL;
	char *owned;
	size_t i;

	for (i = 0; i < 3 && !n; i++)
		if (dwarf_attr_integrate(die, attrs[i], &a))
			n = dwarf_formstring(&a);
	if (!n || !dw->r->opts.demangle)
		return n;
	n = ustack_resolve_demangle(dw->r, n, &owned);
	if (owned)
		n = keep_owned(dw, owned);
	return n;
}

static const char *ent_name(struct udwarf *dw, struct uinl *e)
{
	Dwarf_Die die;

	if (!e->name && dwarf_offdie(dw->dbg, e->die, &die))
		e->name = die_name(dw, &die);
	return e->name;
}

/*
 * The path an editor opens. libdw joins a file name with its include
 * directory; a result that is still relative is relative to the compile
 * directory, which goes in front, as llvm-symbolizer does. Files of the
 * compile directory itself (directory entry 0) come joined with it
 * already: those are left alone, where llvm-symbolizer 14 repeats it.
 */
static char *join_comp_dir(const char *comp_dir, const char *path)
{
	size_t len;

	if (path[0] == '/' || !comp_dir || !*comp_dir)
		return strdup(path);
	len = strlen(comp_dir);
	if (!strncmp(path, comp_dir, len) && path[len] == '/')
		return strdup(path);
	return ustack_resolve_util_xasprintf("%s%s%s", comp_dir,
				comp_dir[len - 1] == '/' ? "" : "/", path);
}

static bool cu_files(struct ucu *cu)
{
	Dwarf_Attribute a;

	if (!cu->files_done) {
		cu->files_done = true;
		if (dwarf_getsrcfiles(&cu->die, &cu->files, &cu->nr_files) != 0)
			cu->files = NULL;
		else
			cu->paths = calloc(cu->nr_files, sizeof(*cu->paths));
		if (dwarf_attr(&cu->die, DW_AT_comp_dir, &a))
			cu->comp_dir = dwarf_formstring(&a);
	}
	return cu->files && cu->paths;
}

/* File @idx of the CU's line table, as an editor opens it. */
static const char *cu_file(struct ucu *cu, Dwarf_Word idx)
{
	const char *raw;

	if (!cu_files(cu) || idx >= cu->nr_files)
		return NULL;
	if (!cu->paths[idx]) {
		raw = dwarf_filesrc(cu->files, idx, NULL, NULL);
		if (!raw)
			return NULL;
		cu->paths[idx] = join_comp_dir(cu->comp_dir, raw);
	}
	return cu->paths[idx];
}

/* The line where the function of @e (or the one it inlines) starts */
static int ent_start_line(struct udwarf *dw, const struct uinl *e)
{
	Dwarf_Die die;
	int line;

	if (!dwarf_offdie(dw->dbg, e->die, &die) || dwarf_decl_line(&die, &line))
		return 0;
	return line;
}

/* Where the inlined instance @e was called from. */
static void call_site(struct udwarf *dw, struct ucu *cu, const struct uinl *e,
		      struct ustack_sym *s)
{
	Dwarf_Attribute a;
	Dwarf_Word v;
	Dwarf_Die die;

	s->file = NULL;
	s->line = 0;
	if (!dwarf_offdie(dw->dbg, e->die, &die))
		return;
	if (dwarf_attr(&die, DW_AT_call_file, &a) && !dwarf_formudata(&a, &v))
		s->file = cu_file(cu, v);
	if (dwarf_attr(&die, DW_AT_call_line, &a) && !dwarf_formudata(&a, &v))
		s->line = v;
}

static void src_line(struct ucu *cu, uint64_t addr, struct ustack_sym *s)
{
	Dwarf_Line *l = dwarf_getsrc_die(&cu->die, addr);
	Dwarf_Files *files;
	size_t idx;
	int line;

	if (!l)
		return;
	/* The line table is the CU's own: its files are cu->files. */
	if (!dwarf_line_file(l, &files, &idx) && cu_files(cu) &&
	    files == cu->files)
		s->file = cu_file(cu, idx);
	if (!s->file)
		s->file = dwarf_linesrc(l, NULL, NULL);
	if (!dwarf_lineno(l, &line))
		s->line = line;
}

static int lookup_inlines(struct udwarf *dw, struct ucu *cu, uint64_t addr,
			  struct ustack_sym *out, int max)
{
	uint32_t chain[MAX_DEPTH];
	int n, i;

	if (!cu->walked)
		cu_walk(dw, cu);
	n = inline_chain(cu, addr, chain, max < MAX_DEPTH ? max : MAX_DEPTH);
	if (!n)
		return 0;
	/* Frame i is chain[n - 1 - i]: innermost first. */
	for (i = 0; i < n; i++) {
		struct uinl *e = &cu->ents[chain[n - 1 - i]];

		memset(&out[i], 0, sizeof(out[i]));
		out[i].name = ent_name(dw, e);
		out[i].inlined = e->inlined;
		out[i].origin = USTACK_ORIGIN_DWARF;
		/* where it is, or was called from: read only for lines shown */
		if (dw->lines) {
			out[i].start_line = ent_start_line(dw, e);
			if (!i)
				src_line(cu, addr, &out[i]);
			else
				call_site(dw, cu, &cu->ents[chain[n - i]], &out[i]);
		}
		if (!out[i].name)
			out[i].name = "[unknown]";
	}
	return n;
}

/**
 * udwarf_lookup - source line (when the resolver's lines are asked for),
 *	and inlined frames when asked
 * @dw: from udwarf_open()
 * @addr: virtual address (already minus one for return addresses)
 * @inlines: expand inlined calls
 * @out: frames, innermost first; the last one is the real function, its
 *	name from DWARF (callers may prefer the symbol table's)
 * @max: room in @out
 *
 * Returns the number of frames, 0 when no CU covers @addr.
 */
int udwarf_lookup(struct udwarf *dw, uint64_t addr, bool inlines,
		  struct ustack_sym *out, int max)
{
	struct ucu *cu = find_cu(dw, addr);
	long top;
	int n;

	if (!cu || max <= 0)
		return 0;
	if (inlines) {
		n = lookup_inlines(dw, cu, addr, out, max);
		if (n || !dw->lines)
			return n;
	}
	memset(out, 0, sizeof(*out));
	src_line(cu, addr, out);
	if (!out->file)
		return 0;
	/* the function's first line (pprof's start_line): its DIE */
	if (!cu->walked)
		cu_walk(dw, cu);
	top = find_top(cu, addr);
	if (top >= 0)
		out->start_line = ent_start_line(dw, &cu->ents[top]);
	return 1;
}

/**
 * udwarf_function - the function DWARF places at @addr
 * @dw: from udwarf_open()
 * @addr: virtual address
 * @start: set to the lowest address of the function
 *
 * For files whose symbol table lacks the function. NULL when none.
 */
const char *udwarf_function(struct udwarf *dw, uint64_t addr, uint64_t *start)
{
	struct ucu *cu = find_cu(dw, addr);
	long top;

	if (!cu)
		return NULL;
	if (!cu->walked)
		cu_walk(dw, cu);
	top = find_top(cu, addr);
	if (top < 0)
		return NULL;
	*start = cu->ents[top].lo;
	return ent_name(dw, &cu->ents[top]);
}
