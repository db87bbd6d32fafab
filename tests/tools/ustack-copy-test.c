// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-copy-test: ustack:sample_copy records (samples with
 * registers and a stack copy, lib/ustack-sample-event.h) made by hand,
 * good and damaged, through the reader's decoder
 * (ustack_sideband_decode_prev()), in this order on one reader:
 *
 *	trimmed		3 registers, a copy of 64 bytes of which words 0, 2
 *			and 5 are kept (map 0x25), umax 7
 *	whole		3 registers, every word of a 32-byte copy
 *	noregs		no registers, no copy (a sample without is a ustack:sample)
 *	regs		2 registers' values for a mask of 3
 *	odd		a copy of 60 bytes (not whole words)
 *	big		a copy past 64 KiB
 *	past		more words than the copy's size
 *	maplong		a map longer than the copy's words
 *	mapcount	a map of 3 words with 2 words given
 *	wholemap	a whole copy (no flag 0x4) with a map
 *	wholeshort	a whole copy with fewer words than its size
 *	nomask		no registers, but words
 *	same		a copy flagged as its thread's repeat
 *	umax		a frame limit past 65535
 *
 * Prints "NAME RET" a line (0, or the enum ustack_sb_err), and for a
 * sample read "NAME regs N:V,.. stack S umax U words I=V,.." (the words
 * the copy holds, by index).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ustack-sideband.h"
#include "ustack-sample-event.h"

static unsigned char rec[1024];

static void put32(size_t off, uint32_t v)
{
	memcpy(rec + off, &v, 4);
}

static uint32_t loc(size_t off, size_t len)
{
	return (uint32_t)len << 16 | (uint32_t)off;
}

/*
 * The fixed fields, no chain or payload; @nregs register values, @nwords
 * words and @map bytes of map after them. Returns the record's size.
 */
static size_t build(uint32_t flags, uint64_t mask, uint32_t size, uint32_t umax, size_t nregs,
		    size_t nwords, size_t map, uint8_t map0)
{
	size_t h = USTACK_SAMPLE_COPY_HDR, i, off = h;

	memset(rec, 0, sizeof(rec));
	put32(USTACK_SAMPLE_OFF_PID, 10);
	put32(USTACK_SAMPLE_OFF_TID, 11);
	put32(USTACK_SAMPLE_OFF_CPU, 1);
	put32(USTACK_SAMPLE_OFF_FLAGS, flags);
	put32(USTACK_SAMPLE_OFF_CHAIN, loc(h, 0));
	memcpy(rec + USTACK_SAMPLE_OFF_REGS_MASK, &mask, 8);
	put32(USTACK_SAMPLE_OFF_STACK_SIZE, size);
	put32(USTACK_SAMPLE_OFF_UMAX, umax);
	put32(USTACK_SAMPLE_OFF_REGS, loc(off, nregs * 8));
	for (i = 0; i < nregs; i++)
		rec[off + i * 8] = 0x10 + i;
	off += nregs * 8;
	put32(USTACK_SAMPLE_OFF_STACK, loc(off, nwords * 8));
	for (i = 0; i < nwords; i++)
		rec[off + i * 8] = 0xa0 + i;
	off += nwords * 8;
	/* a payload of 4 bytes: a sample has one */
	put32(USTACK_SAMPLE_OFF_RAW, loc(off, 4));
	off += 4;
	put32(USTACK_SAMPLE_OFF_KEPT, loc(off, map));
	if (map)
		rec[off] = map0;
	return off + map;
}

static void show(struct ustack_sb_prev *prev, const char *name, size_t size)
{
	struct ustack_sb_rec r;
	uint32_t i;
	int ret = ustack_sideband_decode_prev(prev, rec, size, 1000, true, &r);
	const uint64_t *w;

	printf("%s %d\n", name, ret);
	if (ret)
		return;
	printf("%s regs %d:", name, r.regs ? __builtin_popcountll(r.regs_mask) : 0);
	for (i = 0; r.regs && i < (uint32_t)__builtin_popcountll(r.regs_mask); i++)
		printf("%s%" PRIx64, i ? "," : "", r.regs[i]);
	printf(" stack %u umax %u words", r.stack ? r.stack_size : 0, r.unwind_max);
	w = r.stack;
	for (i = 0; w && i < r.stack_size / 8; i++)
		if (!r.stack_valid || (r.stack_valid[i / 8] & (1U << (i % 8))))
			printf(" %u=%" PRIx64, i, w[i]);
	printf("\n");
}

int main(void)
{
	struct ustack_sb_prev *prev = ustack_sideband_prev_new();

	if (!prev)
		return 1;
	show(prev, "trimmed", build(USTACK_SAMPLE_TRIMMED, 7, 64, 7, 3, 3, 1, 0x25));
	show(prev, "whole", build(0, 7, 32, 0, 3, 4, 0, 0));
	show(prev, "noregs", build(0, 0, 0, 0, 0, 0, 0, 0));
	show(prev, "regs", build(0, 7, 32, 0, 2, 4, 0, 0));
	show(prev, "odd", build(USTACK_SAMPLE_TRIMMED, 7, 60, 0, 3, 1, 1, 1));
	show(prev, "big", build(USTACK_SAMPLE_TRIMMED, 7, 65544, 0, 3, 1, 1, 1));
	show(prev, "past", build(USTACK_SAMPLE_TRIMMED, 7, 16, 0, 3, 3, 1, 7));
	show(prev, "maplong", build(USTACK_SAMPLE_TRIMMED, 7, 64, 0, 3, 1, 2, 1));
	show(prev, "mapcount", build(USTACK_SAMPLE_TRIMMED, 7, 64, 0, 3, 2, 1, 7));
	show(prev, "wholemap", build(0, 7, 32, 0, 3, 4, 1, 0xf));
	show(prev, "wholeshort", build(0, 7, 32, 0, 3, 3, 0, 0));
	show(prev, "nomask", build(0, 0, 32, 0, 0, 4, 0, 0));
	show(prev, "same", build(USTACK_SAMPLE_SAME, 7, 32, 0, 3, 4, 0, 0));
	show(prev, "umax", build(USTACK_SAMPLE_TRIMMED, 7, 64, 65536, 3, 3, 1, 0x25));
	ustack_sideband_prev_free(prev);
	return 0;
}
