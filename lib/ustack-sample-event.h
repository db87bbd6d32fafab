/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The ustack:sample event (issue 47): a perf source's sample of the
 * frame-pointer chain stored in the trace.dat as a binary record of the
 * top buffer, whose format the file carries as it carries the kernel's,
 * so that stock `trace-cmd report` shows its fields. The chain and the
 * tracepoint's payload are the ring's bytes, copied:
 *
 *	common fields (ftrace:print's, 8 bytes; common_pid is the tid)
 *	int pid, int tid, unsigned int cpu, unsigned int flags (CUT, SAME,
 *	TRIMMED)
 *	__data_loc u64[] chain		perf's callchain, context markers too
 *	__data_loc unsigned char[] raw	the tracepoint's payload
 *
 * A sample with a stack copy (--call-graph=dwarf) is a ustack:sample_copy
 * record: the same fields, then
 *
 *	u64 regs_mask			the user registers (perf's
 *					sample_regs_user)
 *	unsigned int stack_size		bytes of the stack copy
 *	unsigned int umax		the recorder's unwind stopped at this
 *					frame limit (its words go no further)
 *	__data_loc u64[] regs		a value per bit of regs_mask
 *	__data_loc u64[] stack		the copy's words: all of them, or with
 *					TRIMMED those whose bit in kept is set
 *	__data_loc unsigned char[] kept	TRIMMED: a bit per word of the copy,
 *					set for the words the recorder's unwind
 *					read (none past the array's end)
 *
 * An event of its own, so that the samples without a copy, most of them
 * repeats, stay 32 bytes. A sample that repeats its thread's last one
 * (struct ustack_sb_prev) is written with SAME and its arrays empty, as
 * "same=1" is in text. A sample with a stack copy never repeats: the
 * recorder's worker trims it to the words its unwind read
 * (ustack-tracedat-sbtrim.c), or, behind, lets it go whole. Deferred
 * chains and the other side-band records stay text (ustack-sideband.c).
 */
#ifndef _USTACK_SAMPLE_EVENT_H
#define _USTACK_SAMPLE_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USTACK_SAMPLE_SYSTEM	"ustack"
#define USTACK_SAMPLE_NAME	"sample"
#define USTACK_SAMPLE_COPY_NAME	"sample_copy"
/*
 * Its id in the files written: above the kernel's own events (a few
 * thousand at most), below the 16 bits of common_type. A reader goes by
 * the name; the id only has to differ from the other formats' in a file.
 */
#define USTACK_SAMPLE_ID	65280
#define USTACK_SAMPLE_COPY_ID	65281

#define USTACK_SAMPLE_OFF_PID	8
#define USTACK_SAMPLE_OFF_TID	12
#define USTACK_SAMPLE_OFF_CPU	16
#define USTACK_SAMPLE_OFF_FLAGS	20
#define USTACK_SAMPLE_OFF_CHAIN	24
#define USTACK_SAMPLE_OFF_RAW	28
#define USTACK_SAMPLE_HDR	32
/* ustack:sample_copy's */
#define USTACK_SAMPLE_OFF_REGS_MASK	32
#define USTACK_SAMPLE_OFF_STACK_SIZE	40
#define USTACK_SAMPLE_OFF_UMAX		44
#define USTACK_SAMPLE_OFF_REGS		48
#define USTACK_SAMPLE_OFF_STACK		52
#define USTACK_SAMPLE_OFF_KEPT		56
#define USTACK_SAMPLE_COPY_HDR		60

#define USTACK_SAMPLE_CUT	0x1
#define USTACK_SAMPLE_SAME	0x2
#define USTACK_SAMPLE_TRIMMED	0x4

int ustack_sample_event_format(char *buf, size_t size, const char *common, bool copy);

#endif /* _USTACK_SAMPLE_EVENT_H */
