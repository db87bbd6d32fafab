// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-demangle: run names through libustack's demangler, one per line.
 *
 * Reads names from stdin (or the arguments) and prints each demangled, or
 * unchanged when it is not a mangled name the library understands. Only
 * ustack_resolve_demangle() (libiberty's C++ and Rust demanglers) is exercised;
 * no file is opened. Used by tests/bats/resolve.bats to feed malformed
 * symbols to the demangler directly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/ustack-resolve-int.h"

static void demangle_one(struct ustack_resolver *r, const char *name)
{
	char *owned;

	puts(ustack_resolve_demangle(r, name, &owned));
	free(owned);
}

int main(int argc, char **argv)
{
	/* ustack_resolve_demangle() keeps no state in the resolver. */
	struct ustack_resolver r = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int i;

	for (i = 1; i < argc; i++)
		demangle_one(&r, argv[i]);
	if (argc > 1)
		return 0;
	while ((n = getline(&line, &cap, stdin)) >= 0) {
		if (n && line[n - 1] == '\n')
			line[n - 1] = '\0';
		demangle_one(&r, line);
	}
	free(line);
	return 0;
}
