// SPDX-License-Identifier: LGPL-2.1
/*
 * Names for PLT stubs: "func@plt", as perf and objdump call them.
 *
 * A stub has no symbol. Each one jumps through a GOT slot, and the
 * dynamic relocation of that slot names the function: R_*_JUMP_SLOT in
 * .rela.plt for lazily bound calls, R_*_GLOB_DAT in .rela.dyn for the
 * stubs of .plt.got. So every stub of .plt, .plt.sec and .plt.got is
 * decoded to the slot it jumps through. The lazy half of an IBT PLT
 * (endbr, push, jump to the first stub: calls go through .plt.sec) stays
 * unnamed, as perf and objdump leave it. x86-64 and i386 only; elsewhere
 * stubs stay unnamed.
 */
#include <stdlib.h>
#include <string.h>

#include "ustack-resolve-int.h"

/* One GOT slot whose dynamic relocation names a symbol. */
struct uslot {
	uint64_t	got;
	const char	*name;
};

struct uplt {
	struct uelf	*e;
	bool		x86_64;		/* else i386 */
	uint64_t	got_base;	/* .got.plt: %ebx in i386 PIC stubs */
	struct uslot	*slots;		/* sorted by @got */
	size_t		nr_slots;
};

/* Relocation types, the same numbers on both machines for these two. */
#define R_GLOB_DAT	6
#define R_JUMP_SLOT	7

static int slot_cmp(const void *pa, const void *pb)
{
	const struct uslot *a = pa, *b = pb;

	return a->got < b->got ? -1 : a->got > b->got;
}

static const char *dynsym_name(Elf *elf, Elf_Data *syms, size_t strndx,
			       size_t idx)
{
	GElf_Sym sym;
	const char *n;

	if (!idx || !gelf_getsym(syms, idx, &sym))
		return NULL;
	n = elf_strptr(elf, strndx, sym.st_name);
	return n && *n ? n : NULL;
}

/* Add the slots of one relocation section. */
static int read_relocs(struct uplt *p, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL), *syms;
	Elf_Scn *symscn = elf_getscn(p->e->elf, sh->sh_link);
	size_t i, nr, strndx;
	struct uslot *slots;
	GElf_Shdr ssh;

	if (!data || !symscn || !gelf_getshdr(symscn, &ssh) ||
	    ssh.sh_type != SHT_DYNSYM || !sh->sh_entsize)
		return 0;
	syms = elf_getdata(symscn, NULL);
	strndx = ssh.sh_link;
	nr = sh->sh_size / sh->sh_entsize;
	if (!syms || !nr)
		return 0;
	slots = realloc(p->slots, (p->nr_slots + nr) * sizeof(*slots));
	if (!slots)
		return -1;
	p->slots = slots;
	for (i = 0; i < nr; i++) {
		GElf_Rela r;
		GElf_Rel rel;
		const char *name;
		uint64_t type, symidx;

		if (sh->sh_type == SHT_RELA) {
			if (!gelf_getrela(data, i, &r))
				continue;
		} else {
			if (!gelf_getrel(data, i, &rel))
				continue;
			r.r_offset = rel.r_offset;
			r.r_info = rel.r_info;
		}
		/* libelf gives 32-bit r_info in the 64-bit layout too. */
		type = GELF_R_TYPE(r.r_info);
		symidx = GELF_R_SYM(r.r_info);
		if (type != R_GLOB_DAT && type != R_JUMP_SLOT)
			continue;
		name = dynsym_name(p->e->elf, syms, strndx, symidx);
		if (!name)
			continue;
		p->slots[p->nr_slots].got = r.r_offset;
		p->slots[p->nr_slots].name = name;
		p->nr_slots++;
	}
	return 0;
}

static const char *sec_name(struct uelf *e, const GElf_Shdr *sh)
{
	size_t shstrndx;

	if (elf_getshdrstrndx(e->elf, &shstrndx) < 0)
		return NULL;
	return elf_strptr(e->elf, shstrndx, sh->sh_name);
}

/* Every GLOB_DAT and JUMP_SLOT relocation of the dynamic symbols. */
static int read_slots(struct uplt *p)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(p->e->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = sec_name(p->e, &sh);
		if (n && !strcmp(n, ".got.plt"))
			p->got_base = sh.sh_addr;
		if (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL)
			continue;
		if (read_relocs(p, scn, &sh) < 0)
			return -1;
	}
	if (p->nr_slots)
		qsort(p->slots, p->nr_slots, sizeof(*p->slots), slot_cmp);
	return 0;
}

static const char *slot_name(const struct uplt *p, uint64_t got)
{
	size_t lo = 0, hi = p->nr_slots;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->slots[mid].got < got)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nr_slots && p->slots[lo].got == got ? p->slots[lo].name : NULL;
}

static uint32_t le32(const unsigned char *b)
{
	return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}

/*
 * The function one stub of @len bytes at @addr leads to: the GOT slot of
 * its indirect jump (endbr and bnd prefixes skipped).
 */
static const char *stub_target(const struct uplt *p, const unsigned char *b,
			       size_t len, uint64_t addr)
{
	size_t i = 0;

	if (len >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e &&
	    (b[3] == 0xfa || b[3] == 0xfb))
		i = 4;
	if (i < len && b[i] == 0xf2)
		i++;
	if (i + 6 <= len && b[i] == 0xff && b[i + 1] == 0x25) {
		int32_t disp = le32(b + i + 2);

		/* x86-64: RIP-relative; i386: an absolute address. */
		if (p->x86_64)
			return slot_name(p, addr + i + 6 + (int64_t)disp);
		return slot_name(p, (uint32_t)disp);
	}
	/* i386 PIC: jmp *disp(%ebx), %ebx holding the GOT (.got.plt). */
	if (i + 6 <= len && b[i] == 0xff && b[i + 1] == 0xa3 && !p->x86_64)
		return slot_name(p, (uint32_t)(p->got_base + (int32_t)le32(b + i + 2)));
	return NULL;
}

/* Name every stub of one PLT section. */
static int name_stubs(struct uelf_symtab *t, const struct uplt *p, Elf_Scn *scn,
		      const GElf_Shdr *sh, size_t ent)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	const unsigned char *b;
	size_t off;
	int added = 0;

	if (!d || d->d_size < sh->sh_size)
		return 0;
	b = d->d_buf;
	for (off = 0; off + ent <= sh->sh_size; off += ent) {
		const char *name = stub_target(p, b + off, ent, sh->sh_addr + off);

		if (!name)
			continue;
		if (uelf_symtab_add_owned(t, sh->sh_addr + off, ent,
					  ustack_resolve_util_xasprintf("%s@plt", name),
					  USTACK_ORIGIN_PLT) < 0)
			break;
		added++;
	}
	return added;
}

/* Stub size: the section's entry size, else what the linkers use. */
static size_t stub_size(const char *name, const GElf_Shdr *sh)
{
	if (sh->sh_entsize >= 8 && sh->sh_entsize <= 32)
		return sh->sh_entsize;
	return strcmp(name, ".plt.got") ? 16 : 8;
}

/**
 * uplt_add_symbols - add "func@plt" for the PLT stubs of @e
 * @t: table being built
 * @e: the file that ran (debug files have no stubs)
 *
 * Returns the number of stubs named.
 */
int uplt_add_symbols(struct uelf_symtab *t, struct uelf *e)
{
	struct uplt p = { .e = e };
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	int added = 0;

	if (!gelf_getehdr(e->elf, &eh) ||
	    (eh.e_machine != EM_X86_64 && eh.e_machine != EM_386))
		return 0;
	p.x86_64 = eh.e_machine == EM_X86_64;
	if (read_slots(&p) < 0 || !p.nr_slots)
		goto out;
	while ((scn = elf_nextscn(e->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		n = sec_name(e, &sh);
		if (n && (!strcmp(n, ".plt") || !strcmp(n, ".plt.sec") ||
			  !strcmp(n, ".plt.got")))
			added += name_stubs(t, &p, scn, &sh, stub_size(n, &sh));
	}
out:
	free(p.slots);
	return added;
}
