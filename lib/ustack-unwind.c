// SPDX-License-Identifier: LGPL-2.1
/*
 * CFI unwinding of copied user stacks with libdw (see ustack-unwind.h).
 *
 * libdwfl's unwinder asks for three things: the registers at the event,
 * memory, and the module (file, load bias) at each address. Registers
 * and memory come from the sample (the stack copy; outside it, the
 * executable segments of the mapped files). Modules are reported lazily
 * as the walk reaches their addresses, from the files the symbolizer
 * opened for the same mappings (libdwfl reads the symbolizer's image of
 * each file: no descriptor or copy of its own), and stay in one Dwfl per
 * process: the next stack of that process finds its files, their parsed
 * .eh_frame and FDE tables ready. A module whose mapping changed (exec, a library
 * loaded where another one was) drops that process's Dwfl.
 *
 * A 32-bit (i386) task's copy (perf's PERF_SAMPLE_REGS_ABI_32, its code
 * segment) is walked by libdw's i386 backend: its process gets a Dwfl
 * attached as i386, its registers in i386's DWARF numbering, its memory
 * read by 4-byte words.
 *
 * Where a frame has no CFI libdw's backend steps by the frame
 * pointer. Whether it did is read from whether the frame's address has
 * an FDE; a step whose CFI failed for want of memory is not replaced by
 * the frame-pointer guess (that gives a wrong frame): the walk ends
 * there and says why.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>

#include "ustack-err.h"
#include "ustack-hash.h"
#include "ustack-resolve-int.h"
#include "ustack-unwind.h"
#include "ustack-unwind-rules.h"
#include "ustack-warn.h"
#include "ustack-word-map.h"

/* Processes whose Dwfl is kept; over it they are all dropped. */
#define UW_MAX_SPACES	256

/* Rules all processes' caches may keep (80 bytes each: 20 MiB) */
#define UW_RULES_ROOM	(1U << 18)

/*
 * Bytes of start-up code after an entry point: ld.so's _start calls
 * _dl_start, then _dl_init, from its first 64 bytes.
 */
#define ENTRY_CODE	64

#define DWARF_REG_SP	7

/* DWARF register numbers of i386 (its psABI) 0..7, in perf's numbering. */
static const uint8_t dwarf32_to_perf[8] = {
	USTACK_REG_AX, USTACK_REG_CX, USTACK_REG_DX, USTACK_REG_BX,
	USTACK_REG_SP, USTACK_REG_BP, USTACK_REG_SI, USTACK_REG_DI,
};

#define DWARF32_REG_SP	4

/* One walk: the sample, where its frames go, and what went wrong. */
struct uw_walk {
	const struct ustack_unwind_input *in;
	struct ustack_uframe		*out;
	int				max;
	int				nr;
	enum ustack_unwind_err		err;	/* set: stop with it */
	uint64_t			err_addr;
	const struct ustack_mapping	*err_map;
	/* what the step from the last frame will rest on */
	uint8_t				next_how;
	enum ustack_unwind_err		pending;	/* if that step fails */
	const struct ustack_mapping	*pending_map;
	uint64_t			last_sp;
	/* first read that failed during the current step */
	bool				read_failed;
	uint64_t			bad_read;
	bool				stale;		/* drop the Dwfl, retry */
	bool				outermost;	/* the entry point called it */
};

/*
 * Whether an address has CFI, by address: libdw does not say which way
 * it stepped, asking it again costs as much as the step. Direct-mapped,
 * per process (addresses are the process's); stale entries are only
 * overwritten, and dropped with the Dwfl when a mapping changes.
 */
#define UW_CFI_CACHE	1024

struct uw_cfi_slot {
	uint64_t	key;		/* address << 1 | activation, + 1 */
	bool		has;
};

/* One process: its Dwfl, attached once, with its modules. */
struct uw_space {
	struct ustack_hnode	node;
	struct ustack_unwinder	*u;
	int			tgid;
	Dwfl			*dwfl;
	bool			abi32;		/* attached as i386 */
	struct uw_walk		*walk;
	struct ustack_unwind_rules *rules;	/* NULL: libdwfl's walk only */
	struct uw_cfi_slot	cfi[UW_CFI_CACHE];
};

/*
 * How ustack_unwind() uses the spaces' rules (USTACK_UNWIND_RULES, a test
 * hook: "off", or "check" to walk each sample both ways and count where
 * they differ, said on stderr when the unwinder is freed).
 */
enum uw_rules_mode {
	UW_RULES_ON,
	UW_RULES_OFF,
	UW_RULES_CHECK,
};

/* The counts of the "check" mode */
struct uw_rules_check {
	unsigned long long	walks;
	unsigned long long	fast;		/* the rules' walk was done */
	unsigned long long	differ;		/* and it was not libdwfl's */
};

/* An ELF header of either class */
union uw_ehdr {
	Elf32_Ehdr		h32;
	Elf64_Ehdr		h64;
};

struct ustack_unwinder {
	struct ustack_resolver	*r;
	struct ustack_htable	spaces;
	size_t			nr_spaces;
	Elf			*machine;	/* an x86-64 header for libdw's backend */
	union uw_ehdr		ehdr;
	Elf			*machine32;	/* an i386 one, for 32-bit tasks */
	union uw_ehdr		ehdr32;
	enum uw_rules_mode	rules_mode;
	size_t			rules_room;	/* entries the spaces may still take */
	struct uw_rules_check	check;
};

/* The error model's code for each end: its text is kept there, once. */
static const int err_code[USTACK_UNWIND_E_NR] = {
	[USTACK_UNWIND_OK]		= 0,
	[USTACK_UNWIND_E_MAX_FRAMES]	= USTACK_ERR_UW_MAX_FRAMES,
	[USTACK_UNWIND_E_NO_REGS]	= USTACK_ERR_UW_NO_REGS,
	[USTACK_UNWIND_E_STACK_SIZE]	= USTACK_ERR_UW_STACK_SIZE,
	[USTACK_UNWIND_E_MEMORY]	= USTACK_ERR_UW_MEMORY,
	[USTACK_UNWIND_E_NO_MAP]	= USTACK_ERR_UW_NO_MAP,
	[USTACK_UNWIND_E_NO_FILE]	= USTACK_ERR_UW_NO_FILE,
	[USTACK_UNWIND_E_NO_CFI]	= USTACK_ERR_UW_NO_CFI,
	[USTACK_UNWIND_E_BAD_FRAME]	= USTACK_ERR_UW_BAD_FRAME,
	[USTACK_UNWIND_E_LIBDW]		= USTACK_ERR_UW_LIBDW,
	[USTACK_UNWIND_E_NOMEM]		= USTACK_ERR_NOMEM,
	[USTACK_UNWIND_E_FP_LEFT]	= USTACK_ERR_UW_FP_LEFT,
	[USTACK_UNWIND_E_FP_NOT_CALL]	= USTACK_ERR_UW_FP_NOT_CALL,
	[USTACK_UNWIND_E_FP_NO_FP]	= USTACK_ERR_UW_FP_NO_FP,
};

/**
 * ustack_unwind_errcode - an unwind's end as a code of the error model
 * @err: a USTACK_UNWIND_* value
 *
 * Returns 0 for a complete walk, else a negative enum ustack_err code
 * (text: ustack_err_strerror()).
 */
int ustack_unwind_errcode(enum ustack_unwind_err err)
{
	if (err < 0 || err >= USTACK_UNWIND_E_NR)
		return USTACK_ERR_UW_LIBDW;
	return err_code[err];
}

/**
 * ustack_unwind_strerror - short text for why an unwind ended
 * @err: a USTACK_UNWIND_* value
 */
const char *ustack_unwind_strerror(enum ustack_unwind_err err)
{
	if (err == USTACK_UNWIND_OK)
		return "complete";
	return ustack_err_strerror(ustack_unwind_errcode(err));
}

/**
 * ustack_unwind_how_str - "regs", "cfi" or "fp"
 * @how: a USTACK_UNWIND_HOW_* value
 */
const char *ustack_unwind_how_str(enum ustack_unwind_how how)
{
	switch (how) {
	case USTACK_UNWIND_HOW_REGS:
		return "regs";
	case USTACK_UNWIND_HOW_CFI:
		return "cfi";
	case USTACK_UNWIND_HOW_FP:
		return "fp";
	}
	return "?";
}

/**
 * ustack_unwind_uregs_from_perf - registers from a PERF_SAMPLE_REGS_USER record
 * @regs: filled
 * @sample_mask: the event's sample_regs_user
 * @vals: the values, one per bit of @sample_mask, lowest bit first
 * @nr: how many values the record has
 *
 * Returns 0, or -1 when @nr does not match @sample_mask.
 */
int ustack_unwind_uregs_from_perf(struct ustack_uregs *regs, uint64_t sample_mask,
			   const uint64_t *vals, size_t nr)
{
	size_t i = 0;
	int bit;

	memset(regs, 0, sizeof(*regs));
	if ((size_t)__builtin_popcountll(sample_mask) != nr)
		return -1;
	for (bit = 0; bit < 64; bit++) {
		if (!(sample_mask & (1ULL << bit)))
			continue;
		if (bit < USTACK_REG_NR) {
			regs->val[bit] = vals[i];
			regs->mask |= 1ULL << bit;
		}
		i++;
	}
	return 0;
}

static bool reg_get(const struct ustack_uregs *regs, enum ustack_reg r, uint64_t *v)
{
	if (!(regs->mask & (1ULL << r)))
		return false;
	*v = regs->val[r];
	return true;
}

/* x86-64 Linux's code segment selector of 32-bit user code (__USER32_CS) */
#define USER32_CS	0x23

/**
 * ustack_unwind_uregs_abi32 - were the registers a 32-bit task's?
 * @regs: user registers at the event
 *
 * The code segment says whether the task ran 32-bit code, as the kernel
 * decides for perf's PERF_SAMPLE_REGS_ABI_32: a recorded copy keeps its
 * registers, not the sample's abi word.
 */
bool ustack_unwind_uregs_abi32(const struct ustack_uregs *regs)
{
	uint64_t cs;

	return reg_get(regs, USTACK_REG_CS, &cs) && (cs & 0xffff) == USER32_CS;
}

/* The fields machine_elf() writes through either class's header lie alike */
_Static_assert(offsetof(Elf32_Ehdr, e_version) == offsetof(Elf64_Ehdr, e_version),
	       "ELF headers differ before e_entry");

/*
 * libdwfl wants an ELF header to pick its backend before any module: an
 * empty core file's, of @class (ELFCLASS32 or ELFCLASS64) and @machine,
 * written to @eh.
 */
static Elf *machine_elf(union uw_ehdr *eh, unsigned char class, Elf64_Half machine)
{
	Elf64_Ehdr *h = &eh->h64;
	size_t size = class == ELFCLASS32 ? sizeof(eh->h32) : sizeof(eh->h64);

	memset(eh, 0, sizeof(*eh));
	memcpy(h->e_ident, ELFMAG, SELFMAG);
	h->e_ident[EI_CLASS] = class;
	h->e_ident[EI_DATA] = ELFDATA2LSB;
	h->e_ident[EI_VERSION] = EV_CURRENT;
	h->e_type = ET_CORE;
	h->e_machine = machine;
	h->e_version = EV_CURRENT;
	if (class == ELFCLASS32)
		eh->h32.e_ehsize = size;
	else
		h->e_ehsize = size;
	return elf_memory((char *)eh, size);
}

/* x86-64's backend, and i386's for a 32-bit task's frames */
static int machine_init(struct ustack_unwinder *u)
{
	elf_version(EV_CURRENT);
	u->machine = machine_elf(&u->ehdr, ELFCLASS64, EM_X86_64);
	u->machine32 = machine_elf(&u->ehdr32, ELFCLASS32, EM_386);
	return u->machine && u->machine32 ? 0 : -1;
}

/* USTACK_UNWIND_RULES: "off", "check", or the rules used (the default) */
static enum uw_rules_mode rules_mode(void)
{
	const char *env = getenv("USTACK_UNWIND_RULES");

	if (env && !strcmp(env, "off"))
		return UW_RULES_OFF;
	if (env && !strcmp(env, "check"))
		return UW_RULES_CHECK;
	return UW_RULES_ON;
}

/**
 * ustack_unwinder_new - an unwinder finding files through @r
 * @r: the session's resolver (its symfs, debug dirs, debuginfod); its
 *     files are read in place, so it must outlive the unwinder
 *
 * Not thread-safe: one unwinder per thread.
 */
struct ustack_unwinder *ustack_unwinder_new(struct ustack_resolver *r)
{
	struct ustack_unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->r = r;
	u->rules_mode = rules_mode();
	u->rules_room = UW_RULES_ROOM;
	if (ustack_hash_table_init(&u->spaces, 64) || machine_init(u)) {
		ustack_unwinder_free(u);
		return NULL;
	}
	return u;
}

static void space_free(struct uw_space *s)
{
	if (s->dwfl)
		dwfl_end(s->dwfl);
	ustack_unwind_rules_free(s->rules);
	free(s);
}

static void spaces_clear(struct ustack_unwinder *u)
{
	struct ustack_hnode *pos, *tmp;
	size_t i;

	ustack_hash_table_for_each_safe(&u->spaces, i, pos, tmp) {
		ustack_hash_table_del(&u->spaces, pos);
		space_free(ustack_hash_table_entry(pos, struct uw_space, node));
	}
	u->nr_spaces = 0;
}

void ustack_unwinder_free(struct ustack_unwinder *u)
{
	if (!u)
		return;
	if (u->rules_mode == UW_RULES_CHECK)
		ustack_warning("unwind rules check: %llu walks, %llu by the rules, %llu differ",
			u->check.walks, u->check.fast, u->check.differ);
	if (u->spaces.buckets)
		spaces_clear(u);
	ustack_hash_table_release(&u->spaces);
	if (u->machine)
		elf_end(u->machine);
	if (u->machine32)
		elf_end(u->machine32);
	free(u);
}

static struct uw_space *space_find(struct ustack_unwinder *u, int tgid)
{
	struct ustack_hnode *pos;
	struct uw_space *s;

	ustack_hash_table_for_each_hash(&u->spaces, pos, ustack_hash_u64(tgid)) {
		s = ustack_hash_table_entry(pos, struct uw_space, node);
		if (s->tgid == tgid)
			return s;
	}
	return NULL;
}

/**
 * ustack_unwinder_forget - drop what is kept for a process
 * @u: the unwinder
 * @tgid: a process that exec'ed or exited
 */
void ustack_unwinder_forget(struct ustack_unwinder *u, int tgid)
{
	struct uw_space *s = space_find(u, tgid);

	if (!s)
		return;
	ustack_hash_table_del(&u->spaces, &s->node);
	space_free(s);
	u->nr_spaces--;
}

/*
 * The bytes of the file the symbolizer opened: the mapping libelf made
 * of it, or the image it keeps in memory (the vdso). Every process's Dwfl
 * reads its modules there, through an Elf of its own (uw_find_elf()):
 * no descriptor, no copy per process.
 */
static char *dso_image(struct ustack_dso *dso, size_t *size)
{
	struct uelf *e = dso->file;

	if (!e)
		return NULL;
	if (e->mem) {
		*size = e->size;
		return e->mem;
	}
	return elf_rawfile(e->elf, size);
}

/*
 * The debug file the symbolizer found, for its .debug_frame. One without
 * (distributions keep the CFI in .eh_frame) is not handed over: libdwfl
 * would read all its DWARF for nothing, decompressing every section.
 */
static int uw_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			     Dwarf_Addr base, const char *file_name,
			     const char *debuglink_file, GElf_Word debuglink_crc,
			     char **debuginfo_file_name)
{
	struct ustack_dso *dso = *userdata;
	struct uelf *debug;
	int fd;

	if (!dso)
		return -1;
	debug = ustack_resolve_dso_debug_file(dso);
	/* The file itself is read by libdwfl without us. */
	if (!debug || debug == dso->file || debug->fd < 0 || !debug->has_debug_frame)
		return -1;
	fd = dup(dso->debug->fd);
	if (fd >= 0)
		*debuginfo_file_name = strdup(dso->debug->path);
	return fd;
}

/* A module's Elf: a view of the symbolizer's image of the file. */
static int uw_find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct ustack_dso *dso = *userdata;
	size_t size;
	char *img;

	img = dso ? dso_image(dso, &size) : NULL;
	if (img)
		*elfp = elf_memory(img, size);
	return -1;
}

static const Dwfl_Callbacks uw_callbacks = {
	.find_elf	= uw_find_elf,
	.find_debuginfo	= uw_find_debuginfo,
};

/*
 * The file of @map for this address space: a 32-bit task's [vdso] is not
 * the image of a 64-bit one (the resolver keeps them apart).
 */
static struct ustack_dso *space_dso(struct uw_space *s, const struct ustack_mapping *map)
{
	return ustack_resolver_dso(s->u->r, map->path, map->build_id, map->build_id_len,
				   map->tgid, map->flags | (s->abi32 ? USTACK_RESOLVE_ABI32 : 0));
}

/* 8 bytes of an executable segment of the file mapped at @addr. */
static bool file_read(struct uw_space *s, uint64_t addr, uint64_t *val)
{
	const struct ustack_unwind_input *in = s->walk->in;
	const struct ustack_mapping *map;
	struct ustack_dso *dso;
	uint64_t off, vaddr, end;
	struct uelf *e;

	map = in->map(in->map_ctx, in->tgid, addr, &off);
	if (!map)
		return false;
	dso = space_dso(s, map);
	if (!dso || !dso->file)
		return false;
	/* Only code and read-only data: what the file still says as it ran. */
	if (!ustack_resolve_dso_vaddr(dso, off, &vaddr) || !ustack_resolve_dso_vaddr(dso, off + 7, &end))
		return false;
	e = dso->file;
	if (e->mem) {
		if (off > e->size || e->size - off < 8)
			return false;
		memcpy(val, (char *)e->mem + off, 8);
		return true;
	}
	return e->fd >= 0 && pread(e->fd, val, 8, off) == 8;
}

/*
 * x86-64's calls, by their last bytes: E8 rel32, or FF /2 with its
 * ModRM, SIB and displacement (the register, memory and RIP-relative
 * forms; a prefix before them changes nothing here). @b are the 7 bytes
 * before the return address.
 */
static bool call_before(const unsigned char *b)
{
	unsigned int len, mod, rm;
	int k;

	if (b[7 - 5] == 0xe8)
		return true;
	for (k = 2; k <= 7; k++) {
		unsigned char modrm = b[7 - k + 1];

		if (b[7 - k] != 0xff || ((modrm >> 3) & 7) != 2)
			continue;
		mod = modrm >> 6;
		rm = modrm & 7;
		len = 2;
		if (mod != 3 && rm == 4) {
			if (k < 3)
				continue;
			len++;
			if (mod == 0 && (b[7 - k + 2] & 7) == 5)
				len += 4;
		}
		if (mod == 0 && rm == 5)
			len += 4;
		else if (mod == 1)
			len += 1;
		else if (mod == 2)
			len += 4;
		if (len == (unsigned int)k)
			return true;
	}
	return false;
}

/**
 * ustack_unwind_after_call - is a return address right after a call?
 * @u:		the unwinder (its symbolizer's files)
 * @map:	the file the address lies in
 * @off:	its offset in the file
 * @abi32:	the task is 32-bit (its [vdso] is then no image here)
 *
 * What a frame-pointer walk gave as a return address: a word that is not
 * one (data, the stack's own bytes) seldom follows a call instruction.
 * Returns 1 when it does, 0 when it does not (or lies outside the file's
 * code), -1 when the file cannot tell (not found, another build).
 */
int ustack_unwind_after_call(struct ustack_unwinder *u, const struct ustack_mapping *map,
			     uint64_t off, bool abi32)
{
	struct ustack_dso *dso;
	const char *img;
	uint64_t vaddr;
	size_t size;

	dso = ustack_resolver_dso(u->r, map->path, map->build_id, map->build_id_len,
				  map->tgid, map->flags | (abi32 ? USTACK_RESOLVE_ABI32 : 0));
	img = dso ? dso_image(dso, &size) : NULL;
	if (!img)
		return -1;
	if (off < 7 || off > size || !ustack_resolve_dso_vaddr(dso, off - 1, &vaddr))
		return 0;
	/* the file's mapping: no system call per frame of every stack */
	return call_before((const unsigned char *)img + off - 7);
}

/**
 * ustack_unwind_at_entry - is a sample's own pc the file's entry point?
 * @u:		the unwinder (its symbolizer's files)
 * @map:	the file the pc lies in
 * @off:	its offset in the file
 *
 * A task stopped there has run nothing yet (sched_process_exec): its
 * stack is that one frame, whatever walk took it. Returns 1 when it is
 * the entry, 0 when not, -1 when the file cannot tell.
 */
int ustack_unwind_at_entry(struct ustack_unwinder *u, const struct ustack_mapping *map,
			   uint64_t off)
{
	const Elf64_Ehdr *eh;
	struct ustack_dso *dso;
	const char *img;
	uint64_t vaddr;
	size_t size;

	dso = ustack_resolver_dso(u->r, map->path, map->build_id, map->build_id_len,
				  map->tgid, map->flags);
	img = dso ? dso_image(dso, &size) : NULL;
	if (!img || size < sizeof(*eh) || img[EI_CLASS] != ELFCLASS64)
		return -1;
	eh = (const Elf64_Ehdr *)img;
	if (!eh->e_entry || !ustack_resolve_dso_vaddr(dso, off, &vaddr))
		return 0;
	return vaddr == eh->e_entry;
}

/*
 * @n bytes (a word: 8, or a 32-bit task's 4) at @off of the copy: the one
 * or two 8-byte words under them must be kept (@stack_valid), and are
 * marked read (@stack_used).
 */
static bool copy_read(const struct ustack_unwind_input *in, uint64_t off, size_t n,
		      Dwarf_Word *result)
{
	uint64_t first, last;

	if (!ustack_word_map_span(in->stack_valid, in->stack_size, off, n, &first, &last))
		return false;
	if (in->stack_used) {
		ustack_word_map_set(in->stack_used, first);
		ustack_word_map_set(in->stack_used, last);
	}
	*result = 0;
	memcpy(result, (const char *)in->stack + off, n);
	return true;
}

static bool uw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uw_space *s = arg;
	struct uw_walk *w = s->walk;
	const struct ustack_unwind_input *in = w->in;
	size_t n = in->abi32 ? 4 : 8;

	if (addr >= in->stack_addr && in->stack_size >= n &&
	    addr - in->stack_addr <= in->stack_size - n) {
		if (copy_read(in, addr - in->stack_addr, n, result))
			return true;
		if (!w->read_failed) {
			w->read_failed = true;
			w->bad_read = addr;
		}
		return false;
	}
	if (file_read(s, addr, result)) {
		if (in->abi32)
			*result &= 0xffffffff;
		return true;
	}
	if (!w->read_failed) {
		w->read_failed = true;
		w->bad_read = addr;
	}
	return false;
}

static pid_t uw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	/* One thread, asked for by tid through uw_get_thread() */
	return 0;
}

static bool uw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

static bool uw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uw_space *s = arg;
	const struct ustack_uregs *regs = s->walk->in->regs;
	const uint8_t *map = s->abi32 ? dwarf32_to_perf : ustack_unwind_dwarf_to_perf;
	unsigned i, n = s->abi32 ? sizeof(dwarf32_to_perf) : sizeof(ustack_unwind_dwarf_to_perf);
	Dwarf_Word v;
	uint64_t ip;

	for (i = 0; i < n; i++) {
		if (!reg_get(regs, map[i], &v))
			continue;
		if (!dwfl_thread_state_registers(thread, i, 1, &v))
			return false;
	}
	if (!reg_get(regs, USTACK_REG_IP, &ip))
		return false;
	dwfl_thread_state_register_pc(thread, ip);
	return true;
}

static const Dwfl_Thread_Callbacks uw_thread_callbacks = {
	.next_thread		= uw_next_thread,
	.get_thread		= uw_get_thread,
	.memory_read		= uw_memory_read,
	.set_initial_registers	= uw_set_initial_registers,
};

static struct uw_space *space_new(struct ustack_unwinder *u, int tgid, bool abi32)
{
	struct uw_space *s;

	if (u->nr_spaces >= UW_MAX_SPACES)
		spaces_clear(u);
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->u = u;
	s->tgid = tgid;
	s->abi32 = abi32;
	/* the rules are x86-64's: an i386 task's frames go to libdwfl */
	if (u->rules_mode != UW_RULES_OFF && !abi32)
		s->rules = ustack_unwind_rules_new(&u->rules_room);
	s->dwfl = dwfl_begin(&uw_callbacks);
	if (!s->dwfl ||
	    !dwfl_attach_state(s->dwfl, abi32 ? u->machine32 : u->machine, tgid,
			       &uw_thread_callbacks, s) ||
	    ustack_hash_table_add(&u->spaces, &s->node, ustack_hash_u64(tgid))) {
		space_free(s);
		return NULL;
	}
	u->nr_spaces++;
	return s;
}

/*
 * Report @dso loaded with @bias: its range runs from its first PT_LOAD,
 * page-aligned (where libdwfl takes the bias from), to the end of the
 * last one.
 */
static Dwfl_Module *report_module(struct uw_space *s, const struct ustack_mapping *map,
				  struct ustack_dso *dso, uint64_t bias)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	Dwfl_Module *mod;
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(dso->file->elf, &n))
		return NULL;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(dso->file->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (lo == UINT64_MAX)
			lo = ph.p_align > 1 ? ph.p_vaddr & -ph.p_align : ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > hi)
			hi = ph.p_vaddr + ph.p_memsz;
	}
	if (lo >= hi)
		return NULL;
	dwfl_report_begin_add(s->dwfl);
	mod = dwfl_report_module(s->dwfl, map->path, bias + lo, bias + hi);
	dwfl_report_end(s->dwfl, NULL, NULL);
	return mod;
}

/* A module and its range, against the others of its Dwfl */
struct uw_overlap {
	Dwfl_Module	*mod;
	Dwarf_Addr	lo, hi;
	bool		hit;
};

static int overlap_one(Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr start, void *arg)
{
	struct uw_overlap *o = arg;
	Dwarf_Addr lo, hi;

	if (m == o->mod)
		return DWARF_CB_OK;
	dwfl_module_info(m, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	if (lo < o->hi && o->lo < hi) {
		o->hit = true;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/*
 * Does @mod's range overlap another module's? Only then may an address
 * reported before fall in another module (or none) now: libdwfl finds a
 * module by its range.
 */
static bool module_overlaps(Dwfl *dwfl, Dwfl_Module *mod)
{
	struct uw_overlap o = { .mod = mod };

	dwfl_module_info(mod, NULL, &o.lo, &o.hi, NULL, NULL, NULL, NULL);
	dwfl_getmodules(dwfl, overlap_one, &o, 0);
	return o.hit;
}

/* The module of @pc, reported now if new; NULL with w->err or w->stale set. */
static Dwfl_Module *module_at(struct uw_space *s, uint64_t pc, const struct ustack_mapping *map,
			      uint64_t off)
{
	struct uw_walk *w = s->walk;
	struct ustack_dso *dso;
	Dwfl_Module *mod;
	uint64_t vaddr, bias;
	Dwarf_Addr mbias;
	size_t size;
	void **ud;

	dso = space_dso(s, map);
	if (!dso) {
		w->err = USTACK_UNWIND_E_NOMEM;
		return NULL;
	}
	if (!dso_image(dso, &size) || !ustack_resolve_dso_vaddr(dso, off, &vaddr)) {
		w->pending = USTACK_UNWIND_E_NO_FILE;
		return NULL;
	}
	bias = pc - vaddr;
	mod = dwfl_addrmodule(s->dwfl, pc);
	if (mod) {
		dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		if (*ud == dso && dwfl_module_getelf(mod, &mbias) && mbias == bias)
			return mod;
		/* Another file is there now: this Dwfl is out of date. */
		w->stale = true;
		return NULL;
	}
	mod = report_module(s, map, dso, bias);
	if (!mod) {
		w->pending = USTACK_UNWIND_E_LIBDW;
		return NULL;
	}
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = dso;
	/* an address may fall in another module now: no rule holds */
	if (module_overlaps(s->dwfl, mod))
		ustack_unwind_rules_invalidate(s->rules);
	/* Its range may overlap a module reported before */
	if (dwfl_addrmodule(s->dwfl, pc) != mod) {
		w->stale = true;
		return NULL;
	}
	return mod;
}

static bool cfi_covers(Dwarf_CFI *cfi, Dwarf_Addr addr)
{
	Dwarf_Frame *frame;

	if (!cfi || dwarf_cfi_addrframe(cfi, addr, &frame))
		return false;
	free(frame);
	return true;
}

/* Has @pc (adjusted as libdw does) an FDE in .eh_frame or .debug_frame? */
static bool module_has_cfi(Dwfl_Module *mod, uint64_t pc)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;

	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi && cfi_covers(cfi, pc - bias))
		return true;
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	return cfi && cfi_covers(cfi, pc - bias);
}

static bool has_cfi(struct uw_space *s, Dwfl_Module *mod, uint64_t pc, bool activation)
{
	uint64_t key = (pc << 1 | activation) + 1;
	struct uw_cfi_slot *slot = &s->cfi[ustack_hash_u64(key) % UW_CFI_CACHE];

	if (slot->key != key) {
		slot->key = key;
		slot->has = module_has_cfi(mod, activation ? pc : pc - 1);
	}
	return slot->has;
}

/* Why the step from the last frame failed. */
static void step_failed(struct uw_walk *w)
{
	uint64_t end = w->in->stack_addr + w->in->stack_size;


	if (w->read_failed && w->bad_read >= end && w->bad_read - end < USTACK_UNWIND_STACK_REACH) {
		w->err = USTACK_UNWIND_E_STACK_SIZE;
		w->err_addr = w->bad_read;
		return;
	}
	if (w->pending != USTACK_UNWIND_OK) {
		w->err = w->pending;
		w->err_map = w->pending_map;
		w->err_addr = w->nr ? w->out[w->nr - 1].addr : 0;
		return;
	}
	if (w->read_failed) {
		w->err = USTACK_UNWIND_E_MEMORY;
		w->err_addr = w->bad_read;
		return;
	}
	w->err = USTACK_UNWIND_E_LIBDW;
	w->err_addr = w->nr ? w->out[w->nr - 1].addr : 0;
}

/*
 * Is frame @pc in the file's entry point, the outermost frame? The
 * dynamic linker's _start has no CFI to say the stack ends there (the
 * executable's has), yet nothing called it. An @activation frame (the
 * sample's own pc) is there when it is the entry itself: the task has
 * not run yet, as at sched_process_exec; a return address, when it
 * points into the start-up code that calls from there.
 */
static bool at_entry(Dwfl_Module *mod, uint64_t pc, bool activation)
{
	Dwarf_Addr bias;
	GElf_Ehdr eh;
	Elf *elf = dwfl_module_getelf(mod, &bias);

	if (!elf || !gelf_getehdr(elf, &eh) || !eh.e_entry)
		return false;
	if (activation)
		return pc - bias == eh.e_entry;
	return pc - bias > eh.e_entry && pc - bias - eh.e_entry <= ENTRY_CODE;
}

/* Keep the rule libdw steps frame @pc by, for the next samples' fast walks */
static void rules_learn(struct uw_space *s, Dwfl_Module *mod, uint64_t pc, bool activation)
{
	struct ustack_unwind_rules_file f;
	Dwarf_Addr bias;
	void **ud;

	if (!s->rules)
		return;
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!dwfl_module_getelf(mod, &bias))
		return;
	f.dso = *ud;
	f.bias = bias;
	ustack_unwind_rules_learn(s->rules, s->dwfl, mod, &f, pc, activation);
}

/*
 * Prepare what the step from frame @pc will rest on. The module is
 * reported before libdw is asked whether the frame is an activation: to
 * answer, it unwinds the frame, which needs the module.
 */
static void frame_next(struct uw_space *s, Dwfl_Frame *state, uint64_t pc,
		       const struct ustack_mapping *map, uint64_t off)
{
	struct uw_walk *w = s->walk;
	bool activation;
	Dwfl_Module *mod;

	w->pending = USTACK_UNWIND_OK;
	w->pending_map = map;
	w->next_how = USTACK_UNWIND_HOW_FP;
	w->read_failed = false;
	mod = map ? module_at(s, pc, map, off) : NULL;
	if (!map)
		w->pending = USTACK_UNWIND_E_NO_MAP;
	if (w->err != USTACK_UNWIND_OK || w->stale ||
	    !dwfl_frame_pc(state, &pc, &activation))
		return;
	w->out[w->nr - 1].exact = activation;
	if (!mod)
		return;
	if (has_cfi(s, mod, pc, activation)) {
		w->next_how = USTACK_UNWIND_HOW_CFI;
		rules_learn(s, mod, pc, activation);
	} else if (at_entry(mod, pc, activation))
		w->outermost = true;
	else
		w->pending = USTACK_UNWIND_E_NO_CFI;
}

/*
 * Each caller's frame lies above its callee's, else the walk loops; not
 * across a signal frame (the frame before this one is then exact): the
 * handler may have run on an alternate stack. No return address is 0.
 */
static bool frame_sp_ok(struct uw_walk *w, Dwfl_Frame *state, uint64_t pc)
{
	bool after_signal = w->nr > 1 && w->out[w->nr - 1].exact;
	Dwarf_Word sp;

	if (w->nr && !pc)
		return false;
	if (dwfl_frame_reg(state, w->in->abi32 ? DWARF32_REG_SP : DWARF_REG_SP, &sp))
		return true;
	if (w->nr && !after_signal && sp <= w->last_sp)
		return false;
	w->last_sp = sp;
	return true;
}

static int uw_frame(Dwfl_Frame *state, void *arg)
{
	struct uw_space *s = arg;
	struct uw_walk *w = s->walk;
	const struct ustack_mapping *map;
	struct ustack_uframe *f;
	Dwarf_Addr pc;
	uint64_t off;

	if (!dwfl_frame_pc(state, &pc, NULL)) {
		step_failed(w);
		return DWARF_CB_ABORT;
	}
	/*
	 * A step that ran out of stack is no frame: libdw's frame-pointer
	 * guess after its CFI failed, or CFI that read the return address
	 * but lost a register it restores (the next steps may rest on it).
	 */
	if (w->nr && w->next_how == USTACK_UNWIND_HOW_CFI && w->read_failed) {
		step_failed(w);
		return DWARF_CB_ABORT;
	}
	if (w->nr >= w->max) {
		w->err = USTACK_UNWIND_E_MAX_FRAMES;
		return DWARF_CB_ABORT;
	}
	if (!frame_sp_ok(w, state, pc)) {
		w->err = USTACK_UNWIND_E_BAD_FRAME;
		w->err_addr = pc;
		return DWARF_CB_ABORT;
	}
	map = w->in->map(w->in->map_ctx, w->in->tgid, pc, &off);
	/*
	 * A frame pointer is a guess where the frame has none: a "return
	 * address" it gives outside any file is no frame but the end.
	 */
	if (!map && w->nr && w->next_how == USTACK_UNWIND_HOW_FP) {
		step_failed(w);
		return DWARF_CB_ABORT;
	}
	f = &w->out[w->nr++];
	f->addr = pc;
	f->how = w->nr == 1 ? USTACK_UNWIND_HOW_REGS : w->next_how;
	f->exact = w->nr == 1;
	f->fr.map = map;
	f->fr.offset = map ? off : pc;
	f->fr.id = map ? map->id : USTACK_ID_NOMAP;
	frame_next(s, state, pc, map, off);
	if (w->err != USTACK_UNWIND_OK || w->stale || w->outermost)
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

static int walk_once(struct ustack_unwinder *u, struct uw_walk *w)
{
	struct uw_space *s = space_find(u, w->in->tgid);
	int ret;

	/* one process, 64-bit then 32-bit code (or back): another backend */
	if (s && s->abi32 != w->in->abi32) {
		ustack_unwinder_forget(u, w->in->tgid);
		s = NULL;
	}
	if (!s)
		s = space_new(u, w->in->tgid, w->in->abi32);
	if (!s) {
		w->err = USTACK_UNWIND_E_NOMEM;
		return 0;
	}
	s->walk = w;
	ret = dwfl_getthread_frames(s->dwfl, w->in->tid ? w->in->tid : w->in->tgid,
				    uw_frame, s);
	s->walk = NULL;
	if (w->stale) {
		ustack_unwinder_forget(u, w->in->tgid);
		return -1;
	}
	/*
	 * The outermost frame has no return address: complete. But libdw
	 * takes a return address it could not read for none: a step that
	 * ended the walk after a failed read was cut short.
	 */
	if (w->err == USTACK_UNWIND_OK && !w->outermost && (ret < 0 || w->read_failed))
		step_failed(w);
	return 0;
}

/* libdwfl's walk of @in, once more when a module of its Dwfl was stale */
static void walk_libdw(struct ustack_unwinder *u, const struct ustack_unwind_input *in,
		       struct ustack_uframe *out, int max, struct ustack_unwind_result *res)
{
	struct uw_walk w;
	uint64_t v;
	int tries;

	for (tries = 0; tries < 2; tries++) {
		memset(&w, 0, sizeof(w));
		w.in = in;
		w.out = out;
		w.max = max;
		if (!reg_get(in->regs, USTACK_REG_IP, &v) ||
		    !reg_get(in->regs, USTACK_REG_SP, &v)) {
			w.err = USTACK_UNWIND_E_NO_REGS;
			break;
		}
		if (!walk_once(u, &w))
			break;
	}
	if (w.stale)
		w.err = USTACK_UNWIND_E_LIBDW;
	res->nr = w.nr;
	res->err = w.err;
	res->err_addr = w.err_addr;
	res->err_map = w.err_map;
}

/* A fast walk's space, and the file of the mapping it last looked up */
struct uw_rules_ctx {
	struct uw_space			*s;
	const struct ustack_mapping	*map;
	struct ustack_dso		*dso;
	bool				has_image;
};

/*
 * What module_at() checks of a frame, without libdwfl: the file of @map
 * and its bias at @pc. The module a rule was learnt in is that file at
 * that bias for as long as no module is reported (the rules' generation).
 */
static bool rules_file(void *ctx, const struct ustack_mapping *map, uint64_t off, uint64_t pc,
		       struct ustack_unwind_rules_file *f)
{
	struct uw_rules_ctx *c = ctx;
	uint64_t vaddr;
	size_t size;

	/* a walk's frames are mostly in the file of the frame before */
	if (map != c->map) {
		c->map = map;
		c->dso = space_dso(c->s, map);
		c->has_image = c->dso && dso_image(c->dso, &size);
	}
	if (!c->has_image || !ustack_resolve_dso_vaddr(c->dso, off, &vaddr))
		return false;
	f->dso = c->dso;
	f->bias = pc - vaddr;
	return true;
}

/* The walk by the rules the process's space keeps; false: it declined */
static bool walk_rules(struct ustack_unwinder *u, const struct ustack_unwind_input *in,
		       struct ustack_uframe *out, int max, struct ustack_unwind_result *res,
		       struct ustack_unwind_rules_reads *reads)
{
	struct uw_rules_ctx c = { .s = space_find(u, in->tgid) };
	uint64_t v;

	if (!c.s || !c.s->rules || c.s->abi32 != in->abi32 ||
	    !reg_get(in->regs, USTACK_REG_SP, &v))
		return false;
	return ustack_unwind_rules_walk(c.s->rules, in, rules_file, &c, out, max, res, reads);
}

static void reads_mark(uint8_t *map, const struct ustack_unwind_rules_reads *reads)
{
	uint32_t i;

	for (i = 0; map && i < reads->nr; i++)
		ustack_word_map_set(map, reads->word[i]);
}

static bool frames_same(const struct ustack_uframe *a, const struct ustack_uframe *b, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (a[i].addr != b[i].addr || a[i].how != b[i].how || a[i].exact != b[i].exact ||
		    a[i].fr.offset != b[i].fr.offset || a[i].fr.id != b[i].fr.id ||
		    a[i].fr.map != b[i].fr.map)
			return false;
	return true;
}

static bool results_same(const struct ustack_unwind_result *a, const struct ustack_unwind_result *b)
{
	return a->nr == b->nr && a->err == b->err && a->err_addr == b->err_addr &&
	       a->err_map == b->err_map;
}

/* Say (the first few of) the samples whose two walks differ */
static void check_say(struct ustack_unwinder *u, const struct ustack_unwind_input *in,
		      const struct ustack_unwind_result *fast,
		      const struct ustack_unwind_result *slow)
{
	if (++u->check.differ > 10)
		return;
	ustack_warning("unwind rules check: tid %d ip %#llx: rules %d frames (%s), libdw %d (%s)",
		in->tid, (unsigned long long)in->regs->val[USTACK_REG_IP], fast->nr,
		ustack_unwind_strerror(fast->err), slow->nr, ustack_unwind_strerror(slow->err));
}

/*
 * The "check" mode: libdwfl's walk gives the sample's result; the
 * rules' walk, when it is done, must give the same frames, end and words.
 */
static void walk_check(struct ustack_unwinder *u, const struct ustack_unwind_input *in,
		       struct ustack_uframe *out, int max, struct ustack_unwind_result *res)
{
	size_t bytes = (in->stack_size / 8 + 7) / 8 + 1;
	struct ustack_uframe *fout = calloc(max > 0 ? max : 1, sizeof(*fout));
	uint8_t *slow_map = calloc(1, bytes), *fast_map = calloc(1, bytes);
	struct ustack_unwind_rules_reads reads;
	struct ustack_unwind_input in2 = *in;
	struct ustack_unwind_result fres;
	size_t i;
	bool fast;

	fast = fout && slow_map && fast_map && walk_rules(u, in, fout, max, &fres, &reads);
	in2.stack_used = slow_map;
	walk_libdw(u, slow_map ? &in2 : in, out, max, res);
	u->check.walks++;
	if (fast) {
		u->check.fast++;
		reads_mark(fast_map, &reads);
		if (!results_same(&fres, res) || !frames_same(fout, out, res->nr) ||
		    memcmp(fast_map, slow_map, bytes))
			check_say(u, in, &fres, res);
	}
	for (i = 0; slow_map && in->stack_used && i + 1 < bytes; i++)
		in->stack_used[i] |= slow_map[i];
	free(fout);
	free(slow_map);
	free(fast_map);
}

/**
 * ustack_unwind - the call chain of one sample
 * @u: the unwinder
 * @in: registers, stack copy and mapping lookup of the sample
 * @out: frames, leaf first
 * @max: room in @out
 * @res: set to the count and why the walk ended
 *
 * Returns the number of frames (also @res->nr). A walk that did not reach
 * the outermost frame keeps the frames it found and says why in @res.
 * A 64-bit sample whose every frame has a simple rule kept from an
 * earlier walk is walked with those rules (ustack-unwind-rules.c), with
 * the same result; any other goes to libdwfl.
 */
int ustack_unwind(struct ustack_unwinder *u, const struct ustack_unwind_input *in,
		  struct ustack_uframe *out, int max, struct ustack_unwind_result *res)
{
	struct ustack_unwind_rules_reads reads;

	if (u->rules_mode == UW_RULES_CHECK) {
		walk_check(u, in, out, max, res);
		return res->nr;
	}
	if (u->rules_mode == UW_RULES_ON && walk_rules(u, in, out, max, res, &reads)) {
		reads_mark(in->stack_used, &reads);
		return res->nr;
	}
	walk_libdw(u, in, out, max, res);
	return res->nr;
}
