// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-array-test: ustack_array_grow() (lib/ustack-array.h) asked for
 * sizes that a count read from a file may give.
 *
 *   ustack-array-test NEED SIZE [ALLOC]
 *
 * Grows an array that has room for ALLOC (default 0) elements of SIZE
 * bytes to NEED elements and prints "ok ALLOC'" (the new room), or
 * "refused" when the growth helper said no. Sizes past what malloc can
 * give must come back refused at once, never loop or wrap to a small
 * allocation. ALLOC other than 0 pretends the array has that room
 * without allocating it (the helper only reads the number before it
 * reallocates, and a refusal reallocates nothing).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "ustack-array.h"

int main(int argc, char **argv)
{
	size_t need, size, alloc = 0;
	void *arr = NULL;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: ustack-array-test NEED SIZE [ALLOC]\n");
		return 2;
	}
	need = strtoull(argv[1], NULL, 0);
	size = strtoull(argv[2], NULL, 0);
	if (argc == 4)
		alloc = strtoull(argv[3], NULL, 0);
	if (ustack_array_grow(&arr, &alloc, need, size)) {
		printf("refused\n");
		return 0;
	}
	printf("ok %zu\n", alloc);
	free(arr);
	return 0;
}
