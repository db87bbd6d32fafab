// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-warn-test: a program that defines its own ustack_vwarning(), as
 * a library user may, then makes the library warn: the resolver is given
 * FILE with a build id it does not have.
 *
 * usage: ustack-warn-test FILE OFFSET
 *
 * Prints every message it catches as "caught: MESSAGE" on stdout, then
 * the lookup's result.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ustack-resolve.h"
#include "ustack-warn.h"

/* Replaces the library's weak one: ustack_warning() ends up here too. */
void ustack_vwarning(const char *fmt, va_list ap)
{
	fputs("caught: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
}

int main(int argc, char **argv)
{
	static const unsigned char other_build[20] = { 0x01, 0x23, 0x45, 0x67 };
	struct ustack_resolver *r;
	struct ustack_sym sym;
	struct ustack_dso *dso;
	int n;

	if (argc != 3) {
		fprintf(stderr, "usage: ustack-warn-test FILE OFFSET\n");
		return 2;
	}
	r = ustack_resolver_new(NULL);
	if (!r)
		return 1;
	dso = ustack_resolver_dso(r, argv[1], other_build, sizeof(other_build), 0, 0);
	n = ustack_resolve_dso_lookup(dso, strtoull(argv[2], NULL, 0), false, &sym, 1);
	printf("lookup: %s\n", n > 0 ? sym.name : ustack_resolve_unresolved_str(ustack_resolve_unresolved_group(-n)));
	ustack_resolver_free(r);
	return 0;
}
