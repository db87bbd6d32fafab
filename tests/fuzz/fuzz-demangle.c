// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: symbol names from a file's tables go through the
 * demanglers (libiberty's C++ and Rust, bounded by ustack_resolve_demangle()).
 * The input is one name, NUL-terminated here; names that look mangled
 * are what reach the demanglers, so half the inputs get a "_Z" or "_R"
 * prefix when they lack one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-resolve-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	const char *out;
	char *name, *owned;

	name = malloc(len + 3);
	if (!name)
		return 0;
	if (len && in[0] < 0x20) {
		/* A control byte first: prefix by its value, Itanium or Rust v0 */
		memcpy(name, in[0] & 1 ? "_R" : "_Z", 2);
		memcpy(name + 2, in + 1, len - 1);
		name[len + 1] = '\0';
	} else {
		memcpy(name, in, len);
		name[len] = '\0';
	}
	out = ustack_resolve_demangle(NULL, name, &owned);
	if (out && strlen(out) > 1024 * 1024)
		abort();
	free(owned);
	free(name);
	return 0;
}
