#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# More edges of issue 50: which error a run reports when the raw data of
# several CPUs cannot be saved (lib/ustack-stream.c's save_page()).

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
	# A preload that fails the reader thread's writes into the output's
	# directory (its per-CPU files): none until two files have taken
	# data, then the lower CPU's with EIO and every later one with
	# ENOSPC, the way a first failure can cause others.
	cat > "$BATS_FILE_TMPDIR/failwrite.c" <<'SHIM'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int seen[2] = { -1, -1 }, failed;

static int to_fail(int fd)
{
	const char *dir = getenv("FAILWRITE_DIR");
	char link[64], path[4096];
	ssize_t n;

	if (!dir || syscall(SYS_gettid) == getpid())
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	if (strncmp(path, dir, strlen(dir)))
		return 0;
	if (seen[0] < 0)
		seen[0] = fd;
	else if (seen[1] < 0 && fd != seen[0])
		seen[1] = fd;
	if (seen[1] < 0)
		return 0;
	/* The lower CPU's first: the reader drains the other one after it */
	return failed || fd == (seen[0] < seen[1] ? seen[0] : seen[1]);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	static ssize_t (*real)(int, const void *, size_t);

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (to_fail(fd)) {
		errno = failed++ ? ENOSPC : EIO;
		return -1;
	}
	return real(fd, buf, len);
}
SHIM
	${CC:-cc} -shared -fPIC -o "$BATS_FILE_TMPDIR/failwrite.so" \
		"$BATS_FILE_TMPDIR/failwrite.c" -ldl
}

setup() {
	require_capture
	TMP="$(mktemp -d)"
	mkdir "$TMP/out"
}

teardown() {
	remove_test_instances
	rm -rf "$TMP"
}

@test "record: of two CPUs' files that cannot be written, the first failure is the one said, not a later one" {
	[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
	command -v taskset > /dev/null || skip "no taskset"
	# A flood on each of CPUs 0 and 1: both files keep taking data, so
	# the other CPU's file fails after the first one
	run --separate-stderr env FAILWRITE_DIR="$TMP/out/" \
		LD_PRELOAD="$BATS_FILE_TMPDIR/failwrite.so" \
		"$USTACK" record --stack-source=userstacktrace -o "$TMP/out/o.dat" \
		-e syscalls:sys_enter_getppid -- sh -c \
		"taskset -c 0 '$PROGS/burst/burst' 1 3000000 0 & taskset -c 1 '$PROGS/burst/burst' 1 3000000 0"
	echo "$stderr" >&2
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"cannot write $TMP/out/o.dat: Input/output error"* ]]
	[[ "$stderr" != *"No space left"* ]]
	[ ! -e "$TMP/out/o.dat" ]
}
