/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * CFI unwinding of a copied user stack (as perf's --call-graph dwarf):
 * the user registers and the top of the user stack taken at an event are
 * unwound after the fact with the .eh_frame / .debug_frame of the files
 * mapped at each address, found by the symbolizer's own lookup (symfs,
 * build-id directories, debuginfod). A frame without CFI is stepped over
 * by its frame pointer.
 *
 * The caller (a perf or tracefs stack source, at report time or live)
 * owns the mapping lookup: the unwinder asks it for the file and file
 * offset of an address, as the process had them when the stack was taken.
 */
#ifndef _USTACK_UNWIND_H
#define _USTACK_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "ustack.h"

struct ustack_resolver;
struct ustack_unwinder;

/*
 * x86-64 user registers in perf's order (PERF_REG_X86_*), the order of
 * PERF_SAMPLE_REGS_USER values for the mask below.
 */
enum ustack_reg {
	USTACK_REG_AX,
	USTACK_REG_BX,
	USTACK_REG_CX,
	USTACK_REG_DX,
	USTACK_REG_SI,
	USTACK_REG_DI,
	USTACK_REG_BP,
	USTACK_REG_SP,
	USTACK_REG_IP,
	USTACK_REG_FLAGS,
	USTACK_REG_CS,
	USTACK_REG_SS,
	USTACK_REG_DS,
	USTACK_REG_ES,
	USTACK_REG_FS,
	USTACK_REG_GS,
	USTACK_REG_R8,
	USTACK_REG_R9,
	USTACK_REG_R10,
	USTACK_REG_R11,
	USTACK_REG_R12,
	USTACK_REG_R13,
	USTACK_REG_R14,
	USTACK_REG_R15,
	USTACK_REG_NR,
};

/* perf_event_attr.sample_regs_user for x86-64 (no segment registers) */
#define USTACK_REGS_USER_X86_64						\
	(((1ULL << USTACK_REG_NR) - 1) &				\
	 ~((1ULL << USTACK_REG_DS) | (1ULL << USTACK_REG_ES) |		\
	   (1ULL << USTACK_REG_FS) | (1ULL << USTACK_REG_GS)))

/**
 * struct ustack_uregs - user registers at the event
 * @mask:	bit i set: @val[i] (enum ustack_reg) is known
 * @val:	values, indexed by enum ustack_reg
 *
 * IP and SP are required; BP lets frames without CFI be walked.
 */
struct ustack_uregs {
	uint64_t	mask;
	uint64_t	val[USTACK_REG_NR];
};

int ustack_unwind_uregs_from_perf(struct ustack_uregs *regs, uint64_t sample_mask,
			   const uint64_t *vals, size_t nr);
bool ustack_unwind_uregs_abi32(const struct ustack_uregs *regs);

/*
 * The file and file offset of @va in process @tgid when the stack was
 * taken; NULL for anonymous memory or no mapping.
 */
typedef const struct ustack_mapping *(*ustack_unwind_map_fn)(void *ctx, int tgid,
							      uint64_t va,
							      uint64_t *offset);

/**
 * struct ustack_unwind_input - one sample to unwind
 * @tgid:	process (the per-process cache of files is keyed by it)
 * @tid:	task
 * @regs:	its user registers
 * @stack:	copy of the user stack from @stack_addr up
 * @stack_addr:	user address of @stack[0] (the stack pointer at the event)
 * @stack_size:	bytes in @stack
 * @map:	the mapping lookup, with @map_ctx
 * @stack_valid: a bit per 8-byte word of @stack (word i at @stack_addr +
 *		8 * i), set where @stack holds it: a copy kept in part (a
 *		trace.dat keeps the words the recorder's unwind read); NULL:
 *		all of it
 * @stack_used:	NULL, or a bit per word of @stack, set here for each word
 *		the unwind read (what a recording has to keep)
 * @abi32:	the task ran 32-bit code (i386, perf's PERF_SAMPLE_REGS_ABI_32):
 *		its frames are walked with libdw's i386 backend
 */
struct ustack_unwind_input {
	int				tgid;
	int				tid;
	const struct ustack_uregs	*regs;
	const void			*stack;
	uint64_t			stack_addr;
	size_t				stack_size;
	ustack_unwind_map_fn		map;
	void				*map_ctx;
	const uint8_t			*stack_valid;
	uint8_t				*stack_used;
	bool				abi32;
};

/**
 * enum ustack_unwind_how - how a frame was found
 * @USTACK_UNWIND_HOW_REGS:	the leaf: the IP register
 * @USTACK_UNWIND_HOW_CFI:	the caller's CFI (.eh_frame, .debug_frame)
 * @USTACK_UNWIND_HOW_FP:	the caller had no CFI: its frame pointer
 */
enum ustack_unwind_how {
	USTACK_UNWIND_HOW_REGS,
	USTACK_UNWIND_HOW_CFI,
	USTACK_UNWIND_HOW_FP,
};

const char *ustack_unwind_how_str(enum ustack_unwind_how how);

/**
 * struct ustack_uframe - one unwound frame, leaf first
 * @addr:	the address (a return address for all but the leaf)
 * @fr:		the file offset and mapping of @addr, as the lookup gave
 * @how:	enum ustack_unwind_how
 * @exact:	@addr is where the frame was (the leaf, or a frame a signal
 *		interrupted), not a return address: symbolize @addr itself,
 *		not the call before it
 */
struct ustack_uframe {
	uint64_t		addr;
	struct ustack_frame	fr;
	uint8_t			how;
	bool			exact;
};

/* enum ustack_unwind_err, why an unwind ended, is in ustack.h (the summary counts it) */


const char *ustack_unwind_strerror(enum ustack_unwind_err err);
int ustack_unwind_errcode(enum ustack_unwind_err err);

/**
 * struct ustack_unwind_result - how an unwind went
 * @nr:		frames written
 * @err:	why it ended (USTACK_UNWIND_OK: complete)
 * @err_addr:	the address it ended at (the frame's, or the memory read's)
 * @err_map:	the mapping of @err_addr when a file is to blame, or NULL
 */
struct ustack_unwind_result {
	int				nr;
	enum ustack_unwind_err		err;
	uint64_t			err_addr;
	const struct ustack_mapping	*err_map;
};

/* @r must outlive the unwinder (its files are read in place). */
struct ustack_unwinder *ustack_unwinder_new(struct ustack_resolver *r);
void ustack_unwinder_free(struct ustack_unwinder *u);
/* Forget the files of @tgid (it exec'ed or exited). */
void ustack_unwinder_forget(struct ustack_unwinder *u, int tgid);

int ustack_unwind_after_call(struct ustack_unwinder *u, const struct ustack_mapping *map,
			     uint64_t off, bool abi32);
int ustack_unwind_at_entry(struct ustack_unwinder *u, const struct ustack_mapping *map,
			   uint64_t off);
int ustack_unwind(struct ustack_unwinder *u, const struct ustack_unwind_input *in,
		  struct ustack_uframe *out, int max, struct ustack_unwind_result *res);

#endif /* _USTACK_UNWIND_H */
