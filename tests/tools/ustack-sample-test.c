// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sample-test: ustack:sample records (lib/ustack-sample-event.h)
 * (without stack copies) made by hand, good and damaged,
 * through the reader's decoder
 * (ustack_sideband_decode_prev()), in this order on one reader:
 *
 *	whole		a sample: pid 10, tid 11, cpu 1, a chain of 3, 16 bytes
 *	same		its repeat
 *	unseen		a repeat of tid 12, never seen
 *	short		fewer bytes than the fixed fields
 *	past		the chain's array ends past the record
 *	below		the chain's array starts inside the fixed fields
 *	odd		a chain of 12 bytes (not whole entries)
 *	samefull	a repeat that carries a chain
 *	cpu		cpu past USTACK_SB_CPU_MAX
 *	tid0		tid 0
 *
 * Prints "NAME RET" a line (0, or the enum ustack_sb_err), and for a
 * sample read "NAME pid P tid T cpu C chain N:E,E,.. raw N cut B".
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ustack-sideband.h"
#include "ustack-sample-event.h"

#define CONTEXT_USER	((uint64_t)-512)

static unsigned char rec[256];

static void put32(size_t off, uint32_t v)
{
	memcpy(rec + off, &v, 4);
}

/* The fixed fields; the arrays' places as given */
static size_t build(int pid, int tid, int cpu, uint32_t flags, uint32_t chain_loc,
		    uint32_t raw_loc)
{
	memset(rec, 0, sizeof(rec));
	put32(USTACK_SAMPLE_OFF_PID, pid);
	put32(USTACK_SAMPLE_OFF_TID, tid);
	put32(USTACK_SAMPLE_OFF_CPU, cpu);
	put32(USTACK_SAMPLE_OFF_FLAGS, flags);
	put32(USTACK_SAMPLE_OFF_CHAIN, chain_loc);
	put32(USTACK_SAMPLE_OFF_RAW, raw_loc);
	return USTACK_SAMPLE_HDR;
}

static uint32_t loc(size_t off, size_t len)
{
	return (uint32_t)len << 16 | (uint32_t)off;
}

static void show(struct ustack_sb_prev *prev, const char *name, size_t size)
{
	struct ustack_sb_rec r;
	uint32_t i;
	int ret = ustack_sideband_decode_prev(prev, rec, size, 1000, false, &r);

	printf("%s %d\n", name, ret);
	if (ret)
		return;
	printf("%s pid %d tid %d cpu %d chain %u:", name, r.pid, r.tid, r.cpu, r.nr_chain);
	for (i = 0; i < r.nr_chain; i++)
		printf("%s%" PRIx64, i ? "," : "", r.chain[i]);
	printf(" raw %u cut %d\n", r.raw_size, r.cut);
}

int main(void)
{
	const uint64_t chain[3] = { CONTEXT_USER, 0x401000, 0x402000 };
	struct ustack_sb_prev *prev = ustack_sideband_prev_new();
	size_t h = USTACK_SAMPLE_HDR, i;

	if (!prev)
		return 1;
	build(10, 11, 1, USTACK_SAMPLE_CUT, loc(h, 24), loc(h + 24, 16));
	memcpy(rec + h, chain, sizeof(chain));
	for (i = 0; i < 16; i++)
		rec[h + 24 + i] = i;
	show(prev, "whole", h + 24 + 16);
	build(10, 11, 1, USTACK_SAMPLE_SAME, loc(h, 0), loc(h, 0));
	show(prev, "same", h);
	build(10, 12, 1, USTACK_SAMPLE_SAME, loc(h, 0), loc(h, 0));
	show(prev, "unseen", h);
	build(10, 11, 1, 0, loc(h, 0), loc(h, 0));
	show(prev, "short", h - 1);
	build(10, 11, 1, 0, loc(h, 64), loc(h, 0));
	show(prev, "past", h + 32);
	build(10, 11, 1, 0, loc(8, 8), loc(h, 0));
	show(prev, "below", h + 8);
	build(10, 11, 1, 0, loc(h, 12), loc(h + 12, 0));
	show(prev, "odd", h + 12);
	build(10, 11, 1, USTACK_SAMPLE_SAME, loc(h, 8), loc(h + 8, 0));
	show(prev, "samefull", h + 8);
	build(10, 11, USTACK_SB_CPU_MAX + 1, 0, loc(h, 0), loc(h, 0));
	show(prev, "cpu", h);
	build(10, 0, 1, 0, loc(h, 0), loc(h, 0));
	show(prev, "tid0", h);
	ustack_sideband_prev_free(prev);
	return 0;
}
