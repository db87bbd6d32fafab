/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: a process space's cache of the CFI rules libdw gave
 * at the addresses its walks went through, and the walk of an x86-64
 * stack copy with those rules alone (ustack-unwind-rules.c), in front of
 * libdwfl's walk in ustack-unwind.c. The fast walk either gives what
 * libdwfl's walk gives for the sample (frames, how, end, words read) or
 * declines, and the sample goes to libdwfl whole.
 */
#ifndef _USTACK_UNWIND_RULES_H
#define _USTACK_UNWIND_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdwfl.h>

#include "ustack-unwind-types.h"

struct ustack_unwind_rules;

/* x86-64's DWARF registers 0..15 in perf's numbering (ustack-unwind-rules.c) */
extern const uint8_t ustack_unwind_dwarf_to_perf[16];

/**
 * struct ustack_unwind_rules_file - the file of a frame, as
 *	ustack-unwind.c's module_at() checks it against its module
 * @dso:	the symbolizer's file (compared by address only)
 * @bias:	the frame's address less its address in the file
 */
struct ustack_unwind_rules_file {
	const void	*dso;
	uint64_t	bias;
};

/*
 * The file and bias of a frame at @pc (@map, @off), as module_at() would
 * find them; false when it would not find one (the fast walk declines).
 */
typedef bool (*ustack_unwind_rules_file_fn)(void *ctx, const struct ustack_mapping *map,
					    uint64_t off, uint64_t pc,
					    struct ustack_unwind_rules_file *f);

/* How far above the copy a failed read still means "copy too small" */
#define USTACK_UNWIND_STACK_REACH	(8ULL << 20)

/* Words of the copy one fast walk may read before it declines */
#define USTACK_UNWIND_RULES_READS	512

/**
 * struct ustack_unwind_rules_reads - the words of the copy a fast walk read
 * @nr:		how many in @word
 * @word:	their indices (8-byte words from the copy's start), repeats kept
 */
struct ustack_unwind_rules_reads {
	uint32_t	nr;
	uint32_t	word[USTACK_UNWIND_RULES_READS];
};

struct ustack_unwind_rules *ustack_unwind_rules_new(size_t *room);
void ustack_unwind_rules_free(struct ustack_unwind_rules *r);
void ustack_unwind_rules_invalidate(struct ustack_unwind_rules *r);
void ustack_unwind_rules_learn(struct ustack_unwind_rules *r, Dwfl *dwfl, Dwfl_Module *mod,
			       const struct ustack_unwind_rules_file *f, uint64_t pc,
			       bool activation);
bool ustack_unwind_rules_walk(struct ustack_unwind_rules *r,
			      const struct ustack_unwind_input *in,
			      ustack_unwind_rules_file_fn file, void *ctx,
			      struct ustack_uframe *out, int max,
			      struct ustack_unwind_result *res,
			      struct ustack_unwind_rules_reads *reads);

#endif /* _USTACK_UNWIND_RULES_H */
