/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: growing an array by doubling.
 */
#ifndef _USTACK_ARRAY_H
#define _USTACK_ARRAY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Make room for @need elements of @size bytes in *@arr, which has room for
 * *@alloc. Returns 0, or -1 (the array unchanged, errno ENOMEM) when out
 * of memory or when @need elements would not fit in a size_t: a count read
 * from a file may be anything, and doubling past SIZE_MAX / @size would
 * wrap to a small size (or to 0, and loop for ever).
 */
static inline int ustack_array_grow(void **arr, size_t *alloc, size_t need, size_t size)
{
	size_t n = *alloc ? *alloc : 4;
	void *p;

	if (need <= *alloc)
		return 0;
	if (!size || need > SIZE_MAX / size)
		goto too_big;
	while (n < need)
		n = n > SIZE_MAX / 2 / size ? need : n * 2;
	p = realloc(*arr, n * size);
	if (!p)
		return -1;
	*arr = p;
	*alloc = n;
	return 0;
too_big:
	errno = ENOMEM;
	return -1;
}

#endif /* _USTACK_ARRAY_H */
