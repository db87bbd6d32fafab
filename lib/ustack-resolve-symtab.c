// SPDX-License-Identifier: LGPL-2.1
/*
 * The symbolizer's function-symbol table (uelf_symtab_*): the functions
 * of a file's .symtab/.dynsym, and names made here (PLT stubs), sorted
 * with the best name per address and looked up by address.
 *
 * Symbol names come from .symtab/.dynsym through libelf. We build one
 * sorted array per file and binary-search it, because libdwfl's
 * dwfl_module_addrinfo() scans the whole table on every call.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-array.h"
#include "ustack-resolve-int.h"

struct uelf_sym_tmp {
	uint64_t	start;
	uint64_t	end;		/* section end while sizeless */
	const char	*name;
	unsigned char	rank;		/* 0 global, 1 weak, 2 local, 3 other */
	unsigned char	origin;		/* enum ustack_origin */
	bool		sizeless;
	bool		label;		/* STT_NOTYPE in code */
};

/* What a symbol's st_shndx says about it: where its section lies. */
struct uelf_sec {
	uint64_t	addr;
	uint64_t	size;
	bool		code;		/* SHF_EXECINSTR */
};

static int bind_rank(int bind)
{
	switch (bind) {
	case STB_GLOBAL:
		return 0;
	case STB_WEAK:
		return 1;
	case STB_LOCAL:
		return 2;
	default:
		return 3;
	}
}

static int tmp_push(struct uelf_symtab *t, const struct uelf_sym_tmp *s)
{
	if (ustack_array_grow((void **)&t->tmp, &t->tmp_alloc, t->tmp_nr + 1,
			      sizeof(*t->tmp)))
		return -1;
	t->tmp[t->tmp_nr++] = *s;
	return 0;
}

/*
 * Keep only what can be a function entry in this image: functions, and
 * untyped labels in code (hand-written assembly) with a real name, not
 * an ARM/AArch64 mapping symbol ($x, $d) or an assembler local (.L).
 */
static bool sym_wanted(const GElf_Sym *sym, const struct uelf_sec *secs,
		       size_t nr_secs, const char *name)
{
	int type = GELF_ST_TYPE(sym->st_info);

	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE ||
	    !sym->st_value)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	if (type != STT_NOTYPE || sym->st_shndx >= nr_secs ||
	    !secs[sym->st_shndx].code)
		return false;
	return name[0] != '$' && strncmp(name, ".L", 2);
}

/* Address range and kind of every section, indexed like st_shndx. */
static struct uelf_sec *section_table(struct uelf *e, size_t *nr)
{
	struct uelf_sec *secs;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrnum(e->elf, nr) < 0 || !*nr)
		return NULL;
	secs = calloc(*nr, sizeof(*secs));
	if (!secs)
		return NULL;
	while ((scn = elf_nextscn(e->elf, scn))) {
		size_t i = elf_ndxscn(scn);

		if (i >= *nr || !gelf_getshdr(scn, &sh))
			continue;
		secs[i].addr = sh.sh_addr;
		secs[i].size = sh.sh_size;
		secs[i].code = sh.sh_flags & SHF_EXECINSTR;
	}
	return secs;
}

/* Fill @s from @sym; false when it cannot be placed. */
static bool tmp_from_sym(struct uelf_sym_tmp *s, const GElf_Sym *sym,
			 const struct uelf_sec *secs, size_t nr_secs)
{
	const struct uelf_sec *sec;

	s->start = sym->st_value;
	s->label = GELF_ST_TYPE(sym->st_info) == STT_NOTYPE;
	s->sizeless = !sym->st_size || s->label;
	s->end = s->start + sym->st_size;
	s->rank = bind_rank(GELF_ST_BIND(sym->st_info));
	if (!s->sizeless)
		return true;
	/* Sizeless: extend at most to its section's end. */
	if (sym->st_shndx >= nr_secs)
		return false;
	sec = &secs[sym->st_shndx];
	if (s->start < sec->addr || s->start - sec->addr >= sec->size)
		return false;
	s->end = sec->addr + sec->size;
	return true;
}

/**
 * uelf_symtab_add_elf - add the function symbols of one symbol table
 * @t: table being built
 * @e: file holding it
 * @type: SHT_SYMTAB or SHT_DYNSYM
 * @origin: what to call the table in verbose output
 *
 * Names point into @e, which must outlive @t. Returns symbols added.
 */
int uelf_symtab_add_elf(struct uelf_symtab *t, struct uelf *e, Elf64_Word type,
			enum ustack_origin origin)
{
	Elf_Scn *scn = NULL;
	struct uelf_sec *secs;
	size_t nr_secs;
	GElf_Shdr sh;
	int added = 0;

	secs = section_table(e, &nr_secs);
	if (!secs)
		return 0;
	while ((scn = elf_nextscn(e->elf, scn))) {
		Elf_Data *data, *str;
		const char *strs;
		size_t i, nr;
		bool native;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type ||
		    !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		str = elf_getdata(elf_getscn(e->elf, sh.sh_link), NULL);
		/*
		 * Names are read straight from a NUL-terminated string table
		 * (a SHT_NOBITS one has no bytes: d_buf is NULL)
		 */
		if (!data || !data->d_buf || !str || !str->d_buf || !str->d_size ||
		    ((const char *)str->d_buf)[str->d_size - 1])
			continue;
		strs = str->d_buf;
		nr = data->d_size / gelf_fsize(e->elf, ELF_T_SYM, 1, EV_CURRENT);
		/* Native 64-bit tables are used in place, without a copy each. */
		native = e->class == ELFCLASS64 && data->d_type == ELF_T_SYM &&
			 !((uintptr_t)data->d_buf % _Alignof(Elf64_Sym));
		for (i = 0; i < nr; i++) {
			struct uelf_sym_tmp s;
			GElf_Sym sym;

			if (native)
				sym = ((const Elf64_Sym *)data->d_buf)[i];
			else if (!gelf_getsym(data, i, &sym))
				continue;
			if (sym.st_name >= str->d_size)
				continue;
			s.name = strs + sym.st_name;
			if (!*s.name || !sym_wanted(&sym, secs, nr_secs, s.name) ||
			    !tmp_from_sym(&s, &sym, secs, nr_secs))
				continue;
			s.origin = origin;
			if (tmp_push(t, &s) < 0)
				goto out;
			added++;
		}
	}
out:
	free(secs);
	return added;
}

/**
 * uelf_symtab_add_owned - add a symbol whose name was made here
 * @t: table being built
 * @start: first address
 * @size: bytes covered
 * @name: malloc'd name, owned by @t from now on (NULL fails)
 * @origin: where the name comes from
 */
int uelf_symtab_add_owned(struct uelf_symtab *t, uint64_t start, uint64_t size,
			  char *name, enum ustack_origin origin)
{
	struct uelf_sym_tmp s = { 0 };
	char **o;

	if (!name)
		return -1;
	o = realloc(t->owned, (t->nr_owned + 1) * sizeof(*o));
	if (!o) {
		free(name);
		return -1;
	}
	t->owned = o;
	o[t->nr_owned++] = name;
	s.name = name;
	s.start = start;
	s.end = start + size;
	s.rank = 3;
	s.origin = origin;
	return tmp_push(t, &s);
}

static int leading_underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Order by address; at equal addresses the best name comes first:
 * a function over a label, a sized symbol, then global over weak over
 * local, then fewer leading underscores, then by name so the choice
 * never depends on input order.
 */
static inline int tmp_cmp(const struct uelf_sym_tmp *a, const struct uelf_sym_tmp *b)
{
	int d;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->label != b->label)
		return a->label ? 1 : -1;
	if (a->sizeless != b->sizeless)
		return a->sizeless ? 1 : -1;
	if (a->rank != b->rank)
		return a->rank - b->rank;
	d = leading_underscores(a->name) - leading_underscores(b->name);
	if (d)
		return d;
	return strcmp(a->name, b->name);
}

struct skey {
	uint64_t	start;
	uint32_t	idx;
};

static int skey_cmp(const void *pa, const void *pb)
{
	const struct skey *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

#define RADIX_BITS	11
#define RADIX_PASSES	3	/* 33 bits of address range */

/*
 * Order of the symbols, as keys: a stable LSD radix sort on the start
 * address relative to the lowest one (big .dynsym tables of LLVM or rustc
 * libraries have hundreds of thousands of entries and qsort() was a
 * visible part of loading them), then equal addresses by tmp_cmp().
 */
static struct skey *sort_keys(const struct uelf_symtab *t)
{
	size_t n = t->tmp_nr, i, k, cnt[1 << RADIX_BITS];
	struct skey *key = malloc((n ? n : 1) * sizeof(*key));
	struct skey *tmp = malloc((n ? n : 1) * sizeof(*tmp)), *sw;
	uint64_t lo = UINT64_MAX, hi = 0;
	int pass;

	if (!key || !tmp) {
		free(key);
		free(tmp);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		key[i].start = t->tmp[i].start;
		key[i].idx = i;
		if (key[i].start < lo)
			lo = key[i].start;
		if (key[i].start > hi)
			hi = key[i].start;
	}
	/* Addresses spread over more than 8 GiB (odd layouts): plain qsort. */
	if (n && (hi - lo) >> (RADIX_BITS * RADIX_PASSES))
		qsort(key, n, sizeof(*key), skey_cmp);
	for (pass = 0; n && !((hi - lo) >> (RADIX_BITS * RADIX_PASSES)) &&
		       pass < RADIX_PASSES; pass++) {
		int shift = pass * RADIX_BITS;
		size_t sum = 0;

		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[(key[i].start - lo) >> shift & ((1 << RADIX_BITS) - 1)]++;
		for (k = 0; k < (1 << RADIX_BITS); k++) {
			size_t c = cnt[k];

			cnt[k] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			tmp[cnt[(key[i].start - lo) >> shift & ((1 << RADIX_BITS) - 1)]++] = key[i];
		sw = key;
		key = tmp;
		tmp = sw;
	}
	free(tmp);
	/* Runs of one address: best name first (insertion sort, runs are short). */
	for (i = 1; i < n; i++) {
		struct skey v = key[i];

		for (k = i; k && key[k - 1].start == v.start &&
			    tmp_cmp(&t->tmp[v.idx], &t->tmp[key[k - 1].idx]) < 0; k--)
			key[k] = key[k - 1];
		key[k] = v;
	}
	return key;
}

/*
 * Page index: a lookup first narrows to the symbols starting in its page,
 * so a big table costs one or two cache misses instead of a dozen.
 */
static void uelf_symtab_index(struct uelf_symtab *t)
{
	uint64_t span;
	size_t i, p;

	if (!t->nr)
		return;
	t->base = t->syms[0].start;
	span = t->syms[t->nr - 1].start - t->base;
	if (span >> UELF_SYM_PAGE_SHIFT >= (1U << 24))
		return;		/* absurd layout: plain binary search */
	t->nr_pages = (span >> UELF_SYM_PAGE_SHIFT) + 2;
	t->page = malloc(t->nr_pages * sizeof(*t->page));
	if (!t->page) {
		t->nr_pages = 0;
		return;
	}
	for (i = 0, p = 0; p < t->nr_pages; p++) {
		uint64_t page_start = t->base + ((uint64_t)p << UELF_SYM_PAGE_SHIFT);

		while (i < t->nr && t->syms[i].start < page_start)
			i++;
		t->page[p] = i;
	}
}

/*
 * The symbols that name code, in address order: the best one per
 * address, and no label inside a function that has a size (there the
 * function, which says how far it reaches, names the code). Returns how
 * many indices into t->tmp were written to @keep.
 */
static size_t pick_symbols(const struct uelf_symtab *t, const struct skey *key,
			   uint32_t *keep)
{
	uint64_t covered = 0, last = 0;
	size_t i, n = 0;

	for (i = 0; i < t->tmp_nr; i++) {
		const struct uelf_sym_tmp *s = &t->tmp[key[i].idx];

		if (n && last == s->start)
			continue;
		if (s->label && s->start < covered)
			continue;
		if (!s->sizeless && s->end > covered)
			covered = s->end;
		last = s->start;
		keep[n++] = key[i].idx;
	}
	return n;
}

/**
 * uelf_symtab_finish - sort, drop duplicates, bound sizeless symbols
 * @t: table filled with uelf_symtab_add_elf()
 */
void uelf_symtab_finish(struct uelf_symtab *t)
{
	struct skey *key = sort_keys(t);
	uint32_t *keep = NULL;
	size_t i, n;

	if (!key)
		goto out;
	keep = malloc((t->tmp_nr ? t->tmp_nr : 1) * sizeof(*keep));
	t->syms = calloc(t->tmp_nr ? t->tmp_nr : 1, sizeof(*t->syms));
	if (!keep || !t->syms)
		goto out;
	n = pick_symbols(t, key, keep);
	for (i = 0; i < n; i++) {
		const struct uelf_sym_tmp *s = &t->tmp[keep[i]];
		uint64_t end = s->end;

		/* A sizeless symbol ends where the next one starts. */
		if (s->sizeless && i + 1 < n && t->tmp[keep[i + 1]].start < end)
			end = t->tmp[keep[i + 1]].start;
		t->syms[i].start = s->start;
		t->syms[i].size = end - s->start > UINT32_MAX ? UINT32_MAX :
				  end - s->start;
		t->syms[i].name = s->name;
		t->syms[i].origin = s->origin;
	}
	t->nr = n;
	uelf_symtab_index(t);
out:
	free(keep);
	free(key);
	free(t->tmp);
	t->tmp = NULL;
	t->tmp_nr = t->tmp_alloc = 0;
}

/**
 * uelf_symtab_find - the function containing @addr
 * @t: finished table
 * @addr: virtual address
 *
 * Returns NULL when no symbol covers @addr: never the nearest preceding
 * symbol, which would be a guess.
 */
const struct uelf_sym *uelf_symtab_find(const struct uelf_symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr, k;

	if (t->nr_pages) {
		uint64_t p;

		if (addr < t->base)
			return NULL;
		p = (addr - t->base) >> UELF_SYM_PAGE_SHIFT;
		if (p + 1 < t->nr_pages) {
			lo = t->page[p];
			hi = t->page[p + 1];
		} else {
			lo = t->page[t->nr_pages - 1];
		}
	}
	/* Last symbol starting at or before @addr: the answer is in [lo - 1, hi). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Nested symbols are rare: look a few entries back for one. */
	for (k = 0; k < 4 && lo > k; k++) {
		const struct uelf_sym *s = &t->syms[lo - 1 - k];

		if (addr - s->start < s->size)
			return s;
	}
	return NULL;
}

void uelf_symtab_free(struct uelf_symtab *t)
{
	size_t i;

	if (t->demangled) {
		for (i = 0; i < t->nr; i++)
			if (t->demangled[i] != t->syms[i].name)
				free((char *)t->demangled[i]);
		free(t->demangled);
	}
	for (i = 0; i < t->nr_owned; i++)
		free(t->owned[i]);
	free(t->owned);
	free(t->page);
	free(t->syms);
	free(t->tmp);
	memset(t, 0, sizeof(*t));
}
