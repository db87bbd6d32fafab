/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: the perf source's --call-graph=dwarf samples (user
 * registers and a stack copy) unwound with ustack-unwind.c, mapped
 * through the side-band's history of the process.
 */
#ifndef _USTACK_UNWIND_SAMPLE_H
#define _USTACK_UNWIND_SAMPLE_H

#include <stdint.h>

#include "ustack-unwind.h"

struct ustack_map_history;
struct ustack_sb_rec;

int ustack_unwind_sample(struct ustack_unwinder *u, struct ustack_map_history *h,
			const struct ustack_sb_rec *sb, int tgid, struct ustack_uframe *out,
			int max, struct ustack_unwind_result *res, uint8_t *used);

/* Bytes of a bitmap with a bit per 8-byte word of @stack_size bytes */
static inline size_t ustack_unwind_sample_map_bytes(size_t stack_size)
{
	return (stack_size / 8 + 7) / 8;
}

#endif /* _USTACK_UNWIND_SAMPLE_H */
