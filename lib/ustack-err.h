/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: error codes. A failure is a negative int: -errno from
 * the system, or one of enum ustack_err, which lie below every errno (as
 * perf's DSO_LOAD_ERRNO__*). The code is kept, not a formatted message:
 * callers test it by value and turn it into text only when they print.
 */
#ifndef _USTACK_ERR_H
#define _USTACK_ERR_H

#include <stdbool.h>

enum ustack_err {
	USTACK_ERR__START = -10000,
	USTACK_ERR_NOMEM = USTACK_ERR__START,
	USTACK_ERR_NOT_REGULAR,		/* a FIFO, device, socket, directory */
	USTACK_ERR_UNTRUSTED,		/* found by convention, owned by another user */
	USTACK_ERR_SYMFS,		/* the path climbs out of --symfs */
	USTACK_ERR_NO_SYMFS,		/* no --symfs directory to open in */
	USTACK_ERR_CAPPED,		/* over a size cap (one warning said which) */
	USTACK_ERR_NOT_ELF,
	USTACK_ERR_BAD_EHDR,		/* truncated or corrupt ELF header */
	USTACK_ERR_TRUNCATED,		/* headers point past the end */
	USTACK_ERR_NO_SEGMENT,		/* no executable PT_LOAD */
	USTACK_ERR_NO_PATH,		/* the kernel could not name the file */
	USTACK_ERR_BUILD_ID,		/* the file is another build */
	USTACK_ERR_NO_VDSO,		/* no vdso in this process */
	USTACK_ERR_VDSO_DIFFERS,	/* this kernel's vdso is another build */
	USTACK_ERR_TRACEFS_DIR,		/* $TRACEFS_DIR has no instances/ */
	USTACK_ERR_NO_TRACEFS,		/* tracefs is not mounted */
	USTACK_ERR_NOT_TRACEDAT,	/* no trace.dat magic */
	USTACK_ERR_CORRUPT,		/* refused by ustack_tracedat_check_file() */
	USTACK_ERR_UNREADABLE,		/* libtracecmd cannot open it */
	USTACK_ERR_NO_BUFFER,		/* no buffer of the name asked for */
	USTACK_ERR_BAD_BUFFER,		/* libtracecmd cannot open that buffer */
	USTACK_ERR_BUDGET,		/* past the memory budget */
	/* why a CFI unwind ended before the outermost frame (ustack-unwind.h) */
	USTACK_ERR_UW_MAX_FRAMES,
	USTACK_ERR_UW_NO_REGS,
	USTACK_ERR_UW_STACK_SIZE,
	USTACK_ERR_UW_MEMORY,
	USTACK_ERR_UW_NO_MAP,
	USTACK_ERR_UW_NO_FILE,
	USTACK_ERR_UW_NO_CFI,
	USTACK_ERR_UW_BAD_FRAME,
	USTACK_ERR_UW_LIBDW,
	/* what a stack source refuses to do here (ustack-stack-source.h) */
	USTACK_ERR_NO_DEFERRED,		/* no options/userstacktrace_delay */
	USTACK_ERR_NO_COPY_SIZE,	/* deferred, no user_stack_copy_size */
	USTACK_ERR_NO_COPIES,		/* the source takes no stack copies */
	USTACK_ERR_NO_PERF,		/* perf refused its events */
	/* a frame-pointer walk's return address in no executable mapping */
	USTACK_ERR_UW_FP_LEFT,
	/* one after no call instruction */
	USTACK_ERR_UW_FP_NOT_CALL,
	/* one of a process whose program keeps no frame pointers */
	USTACK_ERR_UW_FP_NO_FP,
	/* a 32-bit task's vdso: this 64-bit tool maps another image */
	USTACK_ERR_VDSO32,
	USTACK_ERR__END,
};

const char *ustack_err_strerror(int err);

/* True for codes that say the file is not usable ELF. */
static inline bool ustack_err_bad_elf(int err)
{
	return err == USTACK_ERR_NOT_ELF || err == USTACK_ERR_BAD_EHDR ||
	       err == USTACK_ERR_TRUNCATED || err == USTACK_ERR_NO_SEGMENT;
}

#endif /* _USTACK_ERR_H */
