// SPDX-License-Identifier: LGPL-2.1
/*
 * DWARF side of the symbolizer: file:line and inlined frames.
 */
#include <stdlib.h>

#include "ustack-resolve-int.h"

struct udwarf {
	Dwarf	*dbg;
};

struct udwarf *udwarf_open(struct uelf *e)
{
	return NULL;
}

void udwarf_free(struct udwarf *dw)
{
	free(dw);
}

int udwarf_lookup(struct udwarf *dw, uint64_t addr, bool inlines,
		  struct ustack_sym *out, int max)
{
	return 0;
}
