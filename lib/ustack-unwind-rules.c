// SPDX-License-Identifier: LGPL-2.1
/*
 * A cache of simple CFI rules in front of libdw (see ustack-unwind-rules.h).
 *
 * libdwfl steps each frame of a copy by running the CIE's and the FDE's
 * programs up to the address (dwarf_cfi_addrframe()), then evaluating
 * each of the 17 registers' rules as a DWARF expression, with a few
 * allocations a frame: some 47,000 instructions for a copy of a real
 * program. The rules at an address do not change while its module stays,
 * and almost all of them are of a few kinds: the CFA a register plus an
 * offset, each register undefined, the same, or saved at (or equal to)
 * the CFA plus an offset. Such a rule is asked of libdw once, when
 * libdwfl's walk of a sample steps there, and kept in a few bytes; the
 * next samples' frames are stepped with it by a hash look-up and a few
 * reads of the copy.
 *
 * The fast walk does what libdwfl's walk and ustack-unwind.c's callback
 * do, in their order: the same registers set, the same words of the copy
 * read (so that a trimmed copy keeps the same words), the same checks of
 * each frame, the same ends. Where that is not plain (an address with no
 * rule kept, a rule of another kind, a signal frame, a read outside the
 * copy, a frame in no file or in a file other than the one the rule was
 * learnt in, a 32-bit task) it declines, without a trace of its attempt,
 * and libdwfl walks the whole sample.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include "ustack-hash.h"
#include "ustack-unwind-rules.h"
#include "ustack-word-map.h"

/* x86-64's registers in DWARF: 0..15, then the return address (%rip) */
#define NREGS		17
#define REG_SP		7
#define REG_RA		16

/* DWARF register numbers of x86-64 (psABI) 0..15, in perf's numbering. */
const uint8_t ustack_unwind_dwarf_to_perf[16] = {
	USTACK_REG_AX, USTACK_REG_DX, USTACK_REG_CX, USTACK_REG_BX,
	USTACK_REG_SI, USTACK_REG_DI, USTACK_REG_BP, USTACK_REG_SP,
	USTACK_REG_R8, USTACK_REG_R9, USTACK_REG_R10, USTACK_REG_R11,
	USTACK_REG_R12, USTACK_REG_R13, USTACK_REG_R14, USTACK_REG_R15,
};

/* Entries of a space's table: it starts small, and is emptied when full */
#define RULES_MIN	64
#define RULES_MAX	(1U << 14)

/*
 * The rule at one address: the CFA a register plus an offset; of each
 * register of the caller, as dwarf_frame_register() says, whether it is
 * the callee's value (@same, when the callee has one), the word at CFA +
 * its offset (@at), or CFA + its offset itself (@val); in none of them:
 * undefined, not set in the caller. @simple false: the address has CFI,
 * but a rule the fast walk leaves to libdw (kept so that it is not asked
 * again).
 */
struct uw_rule {
	uint64_t	key;		/* (pc << 1 | activation) + 1; 0: free */
	const void	*dso;		/* the file and bias it was learnt in */
	uint64_t	bias;
	uint32_t	gen;
	uint32_t	same, at, val;	/* bit i: register i */
	int32_t		cfa_off;
	int16_t		off[NREGS];
	uint8_t		cfa_reg;
	bool		simple;
};

struct ustack_unwind_rules {
	struct uw_rule	*tab;
	uint32_t	size;		/* a power of 2 */
	uint32_t	used;
	uint32_t	gen;		/* rules of an older one are stale */
	size_t		*room;		/* entries all spaces may still take */
};

/* One frame's registers in the fast walk, as libdwfl's Dwfl_Frame has them */
struct uw_regs {
	uint64_t	val[NREGS];
	uint32_t	set;		/* bit i: val[i] is known */
};

/**
 * ustack_unwind_rules_new - an empty cache for one process space
 * @room: the entries the caches of all spaces may still take, shared by
 *	  them (taken as a cache grows, given back when it is freed)
 *
 * Returns NULL when out of memory or room (the space then walks with
 * libdw only).
 */
struct ustack_unwind_rules *ustack_unwind_rules_new(size_t *room)
{
	struct ustack_unwind_rules *r;

	if (*room < RULES_MIN)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->tab = calloc(RULES_MIN, sizeof(*r->tab));
	if (!r->tab) {
		free(r);
		return NULL;
	}
	r->size = RULES_MIN;
	r->room = room;
	*room -= RULES_MIN;
	return r;
}

/**
 * ustack_unwind_rules_free - free a space's cache
 * @r: the cache, or NULL
 */
void ustack_unwind_rules_free(struct ustack_unwind_rules *r)
{
	if (!r)
		return;
	*r->room += r->size;
	free(r->tab);
	free(r);
}

/**
 * ustack_unwind_rules_invalidate - make every rule of a space stale
 * @r: the cache, or NULL
 *
 * Called when a module reported to the space's Dwfl overlaps another:
 * which module an address falls in may change with it, and a rule is good
 * only for the module it was learnt in.
 */
void ustack_unwind_rules_invalidate(struct ustack_unwind_rules *r)
{
	if (r)
		r->gen++;
}

static uint64_t rule_key(uint64_t pc, bool activation)
{
	return (pc << 1 | activation) + 1;
}

/* The slot of @key: its entry, or the free one where it would go */
static struct uw_rule *slot_of(const struct ustack_unwind_rules *r, uint64_t key)
{
	uint32_t i = ustack_hash_u64(key) & (r->size - 1);

	while (r->tab[i].key && r->tab[i].key != key)
		i = (i + 1) & (r->size - 1);
	return &r->tab[i];
}

static const struct uw_rule *rule_find(const struct ustack_unwind_rules *r, uint64_t key)
{
	const struct uw_rule *e = slot_of(r, key);

	return e->key && e->gen == r->gen ? e : NULL;
}

/*
 * Twice the room, the stale rules left behind; or empty at the cap (of
 * the space, or of all: a program of many processes does not hold many
 * times a program's rules).
 */
static void rules_grow(struct ustack_unwind_rules *r)
{
	struct uw_rule *old = r->tab, *tab;
	uint32_t i, n = r->size;

	if (n >= RULES_MAX || *r->room < n || !(tab = calloc(2 * n, sizeof(*tab)))) {
		memset(r->tab, 0, n * sizeof(*r->tab));
		r->used = 0;
		return;
	}
	*r->room -= n;
	r->tab = tab;
	r->size = 2 * n;
	r->used = 0;
	for (i = 0; i < n; i++) {
		if (!old[i].key || old[i].gen != r->gen)
			continue;
		*slot_of(r, old[i].key) = old[i];
		r->used++;
	}
	free(old);
}

/* The entry @key goes to, over a stale one of the same key if any */
static struct uw_rule *rule_slot(struct ustack_unwind_rules *r, uint64_t key)
{
	struct uw_rule *e = slot_of(r, key);

	if (e->key)
		return e;
	if (2 * (r->used + 1) > r->size) {
		rules_grow(r);
		e = slot_of(r, key);
	}
	r->used++;
	return e;
}

/* The CFA's rule: a register plus an offset, as DW_OP_bregx */
static bool cfa_simple(Dwarf_Frame *frame, struct uw_rule *e)
{
	Dwarf_Op *ops;
	size_t nops;
	int64_t off;

	if (dwarf_frame_cfa(frame, &ops, &nops) || nops != 1 ||
	    ops[0].atom != DW_OP_bregx || ops[0].number >= NREGS)
		return false;
	off = (int64_t)ops[0].number2;
	if (off < INT32_MIN || off > INT32_MAX)
		return false;
	e->cfa_reg = ops[0].number;
	e->cfa_off = off;
	return true;
}

/*
 * Register @regno's rule, from the expression libdw makes of it:
 * nothing (undefined, or NULL: same value), or DW_OP_call_frame_cfa,
 * an optional DW_OP_plus_uconst, an optional DW_OP_stack_value (a value,
 * not a location).
 */
static bool reg_simple(Dwarf_Frame *frame, int regno, struct uw_rule *e)
{
	Dwarf_Op mem[3], *ops;
	uint32_t *kind = &e->at;
	size_t nops, i = 1;
	int64_t off = 0;

	if (dwarf_frame_register(frame, regno, mem, &ops, &nops))
		return false;
	if (!nops) {
		if (ops && ops != mem)
			return false;
		if (!ops)
			e->same |= 1U << regno;
		return true;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (i < nops && ops[i].atom == DW_OP_plus_uconst)
		off = (int64_t)ops[i++].number;
	if (i < nops && ops[i].atom == DW_OP_stack_value) {
		kind = &e->val;
		i++;
	}
	if (i != nops || off < INT16_MIN || off > INT16_MAX)
		return false;
	*kind |= 1U << regno;
	e->off[regno] = off;
	return true;
}

/* Is libdw's rule at an address one the fast walk can follow? */
static bool frame_simple(Dwarf_Frame *frame, struct uw_rule *e)
{
	bool signal;
	int regno;

	if (dwarf_frame_info(frame, NULL, NULL, &signal) != REG_RA || signal)
		return false;
	if (!cfa_simple(frame, e))
		return false;
	for (regno = 0; regno < NREGS; regno++)
		if (!reg_simple(frame, regno, e))
			return false;
	return true;
}

/*
 * libdwfl's choice of CFI at @addr: the module's .eh_frame if it covers
 * the address, else its .debug_frame.
 */
static Dwarf_Frame *module_frame(Dwfl_Module *mod, uint64_t addr)
{
	Dwarf_Frame *frame;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;

	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi && !dwarf_cfi_addrframe(cfi, addr - bias, &frame))
		return frame;
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (cfi && !dwarf_cfi_addrframe(cfi, addr - bias, &frame))
		return frame;
	return NULL;
}

/**
 * ustack_unwind_rules_learn - keep the rule libdw has for a frame
 * @r:		the space's cache, or NULL
 * @dwfl:	the space's Dwfl
 * @mod:	the module ustack-unwind.c found at @pc (it has CFI there)
 * @f:		@mod's file and bias, as module_at() checks them
 * @pc:		the frame's address
 * @activation:	@pc is where the frame is (the first frame), not a
 *		return address: its rule is @pc's, not @pc - 1's
 *
 * Called by libdwfl's walk for each frame it steps with CFI. A rule kept
 * for the current set of modules is not asked again.
 */
void ustack_unwind_rules_learn(struct ustack_unwind_rules *r, Dwfl *dwfl, Dwfl_Module *mod,
			       const struct ustack_unwind_rules_file *f, uint64_t pc,
			       bool activation)
{
	uint64_t key = rule_key(pc, activation), addr = activation ? pc : pc - 1;
	struct uw_rule rule = { .key = key }, *e;
	Dwarf_Frame *frame;

	if (!r || rule_find(r, key))
		return;
	rule.dso = f->dso;
	rule.bias = f->bias;
	rule.gen = r->gen;
	/* libdwfl steps by the module of @addr: for a return address, pc - 1 */
	frame = dwfl_addrmodule(dwfl, addr) == mod ? module_frame(mod, addr) : NULL;
	rule.simple = frame && frame_simple(frame, &rule);
	free(frame);
	e = rule_slot(r, key);
	*e = rule;
}

/* One fast walk: its input, the words it read, its frames */
struct uw_fast {
	const struct ustack_unwind_input	*in;
	struct ustack_unwind_rules_reads	*reads;
	struct ustack_uframe			*out;
	int					nr;
	uint64_t				last_sp;
	bool					failed;		/* a read of the step */
	uint64_t				bad_read;	/* the first that failed */
};

/* A read as libdwfl's walk would have it */
enum fast_read_res {
	READ_OK,
	READ_FAILED,	/* it fails there too */
	READ_DECLINE,	/* it might not: libdwfl's walk is needed */
};

static bool note_read(struct uw_fast *fw, uint32_t word)
{
	if (fw->reads->nr >= USTACK_UNWIND_RULES_READS)
		return false;
	fw->reads->word[fw->reads->nr++] = word;
	return true;
}

/*
 * A read outside the copy: ustack-unwind.c's file_read() fails on an
 * address in no file (the stack past the copy); one in a file is left to
 * libdwfl's walk.
 */
static enum fast_read_res outside_read(struct uw_fast *fw, uint64_t addr)
{
	const struct ustack_unwind_input *in = fw->in;
	uint64_t off;

	return in->map(in->map_ctx, in->tgid, addr, &off) ? READ_DECLINE : READ_FAILED;
}

/*
 * The word at @addr, read as ustack-unwind.c's uw_memory_read() and
 * copy_read() do: in the copy, whole words it holds, each word under it
 * noted.
 */
static enum fast_read_res copy_word(struct uw_fast *fw, uint64_t addr, uint64_t *val)
{
	const struct ustack_unwind_input *in = fw->in;
	uint64_t off, first, last;

	if (addr < in->stack_addr || in->stack_size < 8 || addr - in->stack_addr > in->stack_size - 8)
		return outside_read(fw, addr);
	off = addr - in->stack_addr;
	if (!ustack_word_map_span(in->stack_valid, in->stack_size, off, 8, &first, &last))
		return READ_FAILED;
	if (!note_read(fw, first) || (last != first && !note_read(fw, last)))
		return READ_DECLINE;
	memcpy(val, (const char *)in->stack + off, 8);
	return READ_OK;
}

/* A word for a register's rule; false: the register stays unset */
static bool fast_read(struct uw_fast *fw, uint64_t addr, uint64_t *val, bool *decline)
{
	switch (copy_word(fw, addr, val)) {
	case READ_OK:
		return true;
	case READ_FAILED:
		if (!fw->failed) {
			fw->failed = true;
			fw->bad_read = addr;
		}
		return false;
	case READ_DECLINE:
		break;
	}
	*decline = true;
	return false;
}

/*
 * The caller's registers from the callee's @cur by rule @e, as libdwfl's
 * handle_cfi() sets them: every register, past a read that failed too
 * (the words it reads are kept). Returns false where libdwfl's walk is
 * needed: the CFA's register unknown (libdwfl then leaves every register
 * from the CFA unset), a read that might not fail there.
 */
static bool fast_step(struct uw_fast *fw, const struct uw_rule *e, const struct uw_regs *cur,
		      struct uw_regs *next)
{
	bool decline = false;
	uint32_t bits;
	uint64_t cfa;
	int regno;

	if (!(cur->set & (1U << e->cfa_reg)))
		return false;
	cfa = cur->val[e->cfa_reg] + (int64_t)e->cfa_off;
	fw->failed = false;
	/* the values of registers not set are never read */
	memcpy(next->val, cur->val, sizeof(next->val));
	next->set = cur->set & e->same;
	next->set |= e->val;
	for (bits = e->val; bits; bits &= bits - 1) {
		regno = __builtin_ctz(bits);
		next->val[regno] = cfa + (int64_t)e->off[regno];
	}
	/* in register order, as libdwfl reads them: the first failure is said */
	for (bits = e->at; bits; bits &= bits - 1) {
		regno = __builtin_ctz(bits);
		if (fast_read(fw, cfa + (int64_t)e->off[regno], &next->val[regno], &decline))
			next->set |= 1U << regno;
	}
	return !decline;
}

/*
 * A step whose read failed ends the walk (ustack-unwind.c's step_failed()
 * with CFI at the frame): the copy too small when the read was just
 * past it, else memory that could not be read.
 */
static void fast_failed(const struct uw_fast *fw, struct ustack_unwind_result *res)
{
	const struct ustack_unwind_input *in = fw->in;
	uint64_t end = in->stack_addr + in->stack_size;

	if (fw->bad_read >= end && fw->bad_read - end < USTACK_UNWIND_STACK_REACH)
		res->err = USTACK_UNWIND_E_STACK_SIZE;
	else
		res->err = USTACK_UNWIND_E_MEMORY;
	res->err_addr = fw->bad_read;
}

/* The sample's registers, as ustack-unwind.c hands them to libdwfl */
static bool fast_init(const struct ustack_uregs *uregs, struct uw_regs *regs, uint64_t *pc)
{
	int i;

	regs->set = 0;
	for (i = 0; i < 16; i++) {
		enum ustack_reg p = ustack_unwind_dwarf_to_perf[i];

		if (!(uregs->mask & (1ULL << p)))
			continue;
		regs->val[i] = uregs->val[p];
		regs->set |= 1U << i;
	}
	if (!(uregs->mask & (1ULL << USTACK_REG_IP)))
		return false;
	*pc = uregs->val[USTACK_REG_IP];
	return true;
}

/*
 * ustack-unwind.c's frame_sp_ok() with no signal frame: each caller's
 * stack pointer above its callee's, no return address 0.
 */
static bool fast_sp_ok(struct uw_fast *fw, const struct uw_regs *regs, uint64_t pc)
{
	if (fw->nr && !pc)
		return false;
	if (!(regs->set & (1U << REG_SP)))
		return true;
	if (fw->nr && regs->val[REG_SP] <= fw->last_sp)
		return false;
	fw->last_sp = regs->val[REG_SP];
	return true;
}

/* Frame @pc into @fw->out, as uw_frame() writes it; NULL: no file there */
static const struct ustack_mapping *fast_frame(struct uw_fast *fw, uint64_t pc, uint64_t *off)
{
	const struct ustack_unwind_input *in = fw->in;
	const struct ustack_mapping *map = in->map(in->map_ctx, in->tgid, pc, off);
	struct ustack_uframe *f;

	if (!map)
		return NULL;
	f = &fw->out[fw->nr++];
	f->addr = pc;
	f->how = fw->nr == 1 ? USTACK_UNWIND_HOW_REGS : USTACK_UNWIND_HOW_CFI;
	f->exact = fw->nr == 1;
	f->fr.map = map;
	f->fr.offset = *off;
	f->fr.id = map->id;
	return map;
}

/* The rule for frame @pc of @fw, good for its file; NULL: libdwfl's walk */
static const struct uw_rule *fast_rule(const struct ustack_unwind_rules *r, struct uw_fast *fw,
				       uint64_t pc, ustack_unwind_rules_file_fn file, void *ctx)
{
	struct ustack_unwind_rules_file f;
	const struct ustack_mapping *map;
	const struct uw_rule *e;
	uint64_t off;

	map = fast_frame(fw, pc, &off);
	if (!map || !file(ctx, map, off, pc, &f))
		return NULL;
	e = rule_find(r, rule_key(pc, fw->nr == 1));
	if (!e || !e->simple || e->dso != f.dso || e->bias != f.bias)
		return NULL;
	return e;
}

/**
 * ustack_unwind_rules_walk - walk a sample with the rules kept alone
 * @r:		the space's cache
 * @in:		the sample (64-bit)
 * @file:	the file and bias of a frame, with @ctx
 * @out:	frames, leaf first
 * @max:	room in @out
 * @res:	set, as ustack_unwind() sets it, when the walk is done here
 * @reads:	the words of the copy read (@in->stack_used is not touched)
 *
 * Returns true with @out, @res and @reads what libdwfl's walk would give;
 * false when it declined: @out and @reads then hold nothing of use.
 */
bool ustack_unwind_rules_walk(struct ustack_unwind_rules *r,
			      const struct ustack_unwind_input *in,
			      ustack_unwind_rules_file_fn file, void *ctx,
			      struct ustack_uframe *out, int max,
			      struct ustack_unwind_result *res,
			      struct ustack_unwind_rules_reads *reads)
{
	struct uw_fast fw = { .in = in, .reads = reads, .out = out };
	struct uw_regs regs[2] = { 0 }, *cur = &regs[0], *next = &regs[1], *swap;
	const struct uw_rule *e;
	uint64_t pc;

	reads->nr = 0;
	if (in->abi32 || !fast_init(in->regs, cur, &pc))
		return false;
	memset(res, 0, sizeof(*res));
	for (;;) {
		if (fw.nr >= max) {
			res->err = USTACK_UNWIND_E_MAX_FRAMES;
			break;
		}
		if (!fast_sp_ok(&fw, cur, pc)) {
			res->err = USTACK_UNWIND_E_BAD_FRAME;
			res->err_addr = pc;
			break;
		}
		e = fast_rule(r, &fw, pc, file, ctx);
		if (!e)
			return false;
		if (!fast_step(&fw, e, cur, next))
			return false;
		if (fw.failed) {
			fast_failed(&fw, res);
			break;
		}
		/* libdwfl: a return address unknown or 0 is the outermost frame */
		if (!(next->set & (1U << REG_RA)) || !next->val[REG_RA])
			break;
		pc = next->val[REG_RA];
		swap = cur;
		cur = next;
		next = swap;
	}
	res->nr = fw.nr;
	return true;
}
