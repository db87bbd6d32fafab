// SPDX-License-Identifier: LGPL-2.1
/*
 * A --call-graph=dwarf sample of the perf source, unwound (see
 * ustack-unwind-sample.h). The addresses are the process's at the event: the
 * side-band's history, fed in time order with the samples, has the
 * mappings it had then, live and from a trace.dat alike.
 */
#include <string.h>
#include <linux/perf_event.h>

#include "ustack-unwind-sample.h"
#include "ustack-map-history.h"
#include "ustack-sideband.h"

static const struct ustack_mapping *history_map(void *ctx, int tgid, uint64_t va,
						uint64_t *offset)
{
	struct ustack_frame fr;

	ustack_map_history_map(ctx, tgid, va, &fr);
	*offset = fr.offset;
	return fr.map;
}

/**
 * ustack_unwind_sample - the frames of a sample with registers and a stack copy
 * @u:		the unwinder
 * @h:		the side-band's history (the mappings)
 * @sb:		a USTACK_SB_SAMPLE record with @sb->regs
 * @tgid:	the sample's process
 * @out:	frames, leaf first
 * @max:	room in @out
 * @res:	how the walk ended
 * @used:	NULL, or a zeroed bitmap (ustack_unwind_sample_map_bytes() of
 *		@sb->stack_size): the words of the copy the walk read
 *
 * Returns the number of frames.
 */
int ustack_unwind_sample(struct ustack_unwinder *u, struct ustack_map_history *h,
			const struct ustack_sb_rec *sb, int tgid, struct ustack_uframe *out,
			int max, struct ustack_unwind_result *res, uint8_t *used)
{
	struct ustack_unwind_input in = { 0 };
	struct ustack_uregs regs;

	memset(res, 0, sizeof(*res));
	if (!sb->regs || ustack_unwind_uregs_from_perf(&regs, sb->regs_mask, sb->regs,
						__builtin_popcountll(sb->regs_mask))) {
		res->err = USTACK_UNWIND_E_NO_REGS;
		return 0;
	}
	in.tgid = tgid;
	in.tid = sb->tid;
	in.regs = &regs;
	in.stack = sb->stack;
	in.stack_addr = regs.val[USTACK_REG_SP];
	in.stack_size = sb->stack ? sb->stack_size : 0;
	in.stack_valid = sb->stack_valid;
	in.stack_used = used;
	in.map = history_map;
	in.map_ctx = h;
	in.abi32 = sb->regs_abi == PERF_SAMPLE_REGS_ABI_32 || ustack_unwind_uregs_abi32(&regs);
	return ustack_unwind(u, &in, out, max, res);
}
