// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the structure check a trace.dat passes before
 * libtracecmd reads it (lib/ustack-tracedat-check.c), on any bytes: no read
 * outside what it was given, no hang (each option section is walked
 * once), whatever the offsets, sizes and counts say. Seeded with the
 * recordings of tests/data (version 7, compressed, deferred) and, by
 * tests/fuzz/run, their uncompressed and version 6 conversions.
 *
 * The input becomes a file in memory (memfd): the check reads with
 * pread(), as it does a trace.dat on disk.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ustack-tracedat-check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char msg[256];

	if (fd < 0)
		fd = memfd_create("fuzz-tracedat", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (ustack_tracedat_check_file(fd, msg, sizeof(msg)) && !memchr(msg, '\0', sizeof(msg)))
		abort();
	return 0;
}
