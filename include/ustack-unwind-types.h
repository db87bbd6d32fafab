/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The words of CFI unwinding (ustack-unwind.h): the user registers of a
 * sample, the sample to unwind, its frames and how the walk ended. Apart
 * from the unwinder's functions, so that the walks under it (libdwfl's
 * in ustack-unwind.c, the cache of simple rules in ustack-unwind-rules.c)
 * share them without depending on the unwinder.
 */
#ifndef _USTACK_UNWIND_TYPES_H
#define _USTACK_UNWIND_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "ustack.h"

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

#endif /* _USTACK_UNWIND_TYPES_H */
