// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the ELF/DWARF resolver on a mutated file. The input
 * is written to a file (the resolver opens paths, as it does for the
 * files a trace names), opened as a mapping's file, and looked up at
 * offsets the input's last bytes choose plus a few usual ones, with
 * lines, inlines and demangling on. No debuginfod, no debug directories:
 * only the file itself is read.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ustack-resolve.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(path, sizeof(path), "/dev/shm/ustack-fuzz-resolve.%d", (int)getpid());
	return 0;
}

static bool write_file(const uint8_t *in, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, in, len) == (ssize_t)len;
	close(fd);
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	static const char * const none[] = { NULL };
	struct ustack_resolver_opts opts = {
		.debug_dirs = none, .lines = true, .inlines = true, .demangle = true,
	};
	uint64_t offs[6] = { 0, 0x40, 0x1000, 0x1130, 0x2000, 0 };
	volatile size_t sum = 0;
	struct ustack_resolver *r;
	struct ustack_sym out[16];
	struct ustack_dso *dso;
	char msg[256];
	int i, j, n;

	if (!write_file(in, len))
		return 0;
	if (len >= 4)
		memcpy(&offs[5], in + len - 4, 4);
	r = ustack_resolver_new(&opts);
	if (!r)
		return 0;
	dso = ustack_resolver_dso(r, path, NULL, 0, 0, 0);
	for (i = 0; i < 6; i++) {
		n = ustack_resolve_dso_lookup(dso, offs[i], i & 1, out, 16);
		for (j = 0; j < n; j++) {
			if (out[j].name)
				sum += strlen(out[j].name);
			if (out[j].file)
				sum += strlen(out[j].file);
		}
	}
	(void)ustack_resolve_dso_name(dso);
	(void)ustack_resolve_dso_strerror(dso, msg, sizeof(msg));
	(void)sum;
	ustack_resolver_free(r);
	return 0;
}
