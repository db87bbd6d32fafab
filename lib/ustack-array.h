/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: growing an array by doubling.
 */
#ifndef _USTACK_ARRAY_H
#define _USTACK_ARRAY_H

#include <stdlib.h>

/*
 * Make room for @need elements of @size bytes in *@arr, which has room for
 * *@alloc. Returns 0, or -1 (the array unchanged) when out of memory.
 */
static inline int ustack_array_grow(void **arr, size_t *alloc, size_t need, size_t size)
{
	size_t n = *alloc ? *alloc : 4;
	void *p;

	if (need <= *alloc)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*arr, n * size);
	if (!p)
		return -1;
	*arr = p;
	*alloc = n;
	return 0;
}

#endif /* _USTACK_ARRAY_H */
