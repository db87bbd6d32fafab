// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-fold-test: fold one stack of the given frame names through
 * lib/ustack-fold.c and print the folded line (tests/bats/fold.bats).
 *
 *   ustack-fold-test NAME... (root first; "\xHH" in a name is that byte)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-fold.h"

/* "\xHH" escapes: names with control characters from a shell */
static char *unescape(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	if (!out)
		exit(1);
	while (*s) {
		if (s[0] == '\\' && s[1] == 'x' && s[2] && s[3]) {
			char hex[3] = { s[2], s[3], 0 };

			*o++ = (char)strtol(hex, NULL, 16);
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

int main(int argc, char **argv)
{
	struct ustack_fold *f = ustack_fold_new();
	char *name;
	int i;

	if (!f)
		return 1;
	for (i = 1; i < argc; i++) {
		name = unescape(argv[i]);
		if (ustack_fold_push(f, name, NULL))
			return 1;
		free(name);
	}
	if (ustack_fold_commit(f, 1) || ustack_fold_print(f, stdout))
		return 1;
	ustack_fold_free(f);
	return 0;
}
