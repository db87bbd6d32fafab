// SPDX-License-Identifier: GPL-2.0
/*
 * nosplice.so, preloaded by tests/bats/vm/recorder.bats: splice() into a
 * regular file fails with EINVAL, as it does on a file system without
 * splice support (some network file systems). No file system of the test
 * kernel lacks it, so the recorder's copy fallback is reached this way;
 * splice() from the ring buffer into the pipe is the real one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/syscall.h>

ssize_t splice(int fd_in, loff_t *off_in, int fd_out, loff_t *off_out, size_t len,
	       unsigned int flags)
{
	struct stat st;

	if (!fstat(fd_out, &st) && S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	return syscall(SYS_splice, fd_in, off_in, fd_out, off_out, len, flags);
}
