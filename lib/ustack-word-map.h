/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: a stack copy's map of words, a bit per 8-byte word
 * (word i is bit i % 8 of byte i / 8). The unwinder marks the words it
 * reads in one (ustack_unwind_input's stack_used) and reads only those
 * one names (stack_valid); the recorder's worker keeps such a map of each
 * copy it trims, the side-band file writes the words it names. One place
 * for how the map is laid out and walked, so that its users agree.
 */
#ifndef _USTACK_WORD_MAP_H
#define _USTACK_WORD_MAP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Is word @i set in @map? */
static inline bool ustack_word_map_test(const uint8_t *map, uint64_t i)
{
	return map[i / 8] & (1U << (i % 8));
}

static inline void ustack_word_map_set(uint8_t *map, uint64_t i)
{
	map[i / 8] |= 1U << (i % 8);
}

/**
 * ustack_word_map_span - the words of a copy that a read of it spans
 * @valid:	the copy's map of the words it holds, or NULL: all of them
 * @size:	the copy's bytes
 * @off:	where the read starts in it
 * @n:		its bytes (8, or 4 for a 32-bit task)
 * @first:	set to the first word it spans
 * @last:	set to the last (@first again, or the next)
 *
 * Whole words only: a copy's maps have a bit for each of its whole words
 * and a recording keeps no other, so a read into a short last word (perf's
 * copy of a 32-bit task near the top of its stack) is refused, as is one
 * into a word the copy does not hold. The one rule of both walks of a
 * copy (ustack-unwind.c's, ustack-unwind-rules.c's). Returns false then.
 */
static inline bool ustack_word_map_span(const uint8_t *valid, uint64_t size, uint64_t off,
					uint64_t n, uint64_t *first, uint64_t *last)
{
	*first = off / 8;
	*last = (off + n - 1) / 8;
	if (*last >= size / 8)
		return false;
	return !valid || (ustack_word_map_test(valid, *first) &&
			  ustack_word_map_test(valid, *last));
}

/*
 * The bits of words @i (a multiple of 8) to @i + 63 of a map of @nw
 * words, those past @nw cleared (the map's last byte may name words past
 * the copy: they are not counted; no byte past the map's (@nw + 7) / 8 is
 * read). 64 at a time: most are 0, past the stack's bottom frames.
 */
static inline uint64_t ustack_word_map_chunk(const uint8_t *map, uint32_t i, uint32_t nw)
{
	uint32_t n = nw - i < 64 ? nw - i : 64;
	uint64_t v = 0;

	if (n == 64) {
		memcpy(&v, map + i / 8, 8);
		return v;
	}
	memcpy(&v, map + i / 8, (n + 7) / 8);
	return v & ((1ULL << n) - 1);
}

/* The first word set in @map at or after @i, @nw if none is before @nw */
static inline uint32_t ustack_word_map_next(const uint8_t *map, uint32_t i, uint32_t nw)
{
	uint32_t base;
	uint64_t b;

	while (i < nw) {
		base = i & ~7U;
		b = ustack_word_map_chunk(map, base, nw) >> (i - base);
		if (b)
			return i + __builtin_ctzll(b);
		i = base + 64;
	}
	return nw;
}

/* For each word @i set among the first @nw of @map, in order */
#define ustack_word_map_for_each(i, map, nw)				\
	for ((i) = ustack_word_map_next(map, 0, nw); (i) < (nw);	\
	     (i) = ustack_word_map_next(map, (i) + 1, nw))

/* How many of the first @nw words of @map are set */
static inline uint32_t ustack_word_map_count(const uint8_t *map, uint32_t nw)
{
	uint32_t i, n = 0;

	for (i = 0; i < nw; i += 64)
		n += __builtin_popcountll(ustack_word_map_chunk(map, i, nw));
	return n;
}

#endif /* _USTACK_WORD_MAP_H */
