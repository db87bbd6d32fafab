// SPDX-License-Identifier: LGPL-2.1
/*
 * Text for the library's error codes (lib/ustack-err.h).
 */
#include <stdbool.h>
#include <string.h>

#include "ustack-err.h"

static const char * const err_str[USTACK_ERR__END - USTACK_ERR__START] = {
	[USTACK_ERR_NOMEM - USTACK_ERR__START]		= "out of memory",
	[USTACK_ERR_NOT_REGULAR - USTACK_ERR__START]	= "not a regular file",
	[USTACK_ERR_UNTRUSTED - USTACK_ERR__START]	= "owned by another user",
	[USTACK_ERR_SYMFS - USTACK_ERR__START]		= "outside --symfs",
	[USTACK_ERR_NO_SYMFS - USTACK_ERR__START]	= "no --symfs",
	[USTACK_ERR_CAPPED - USTACK_ERR__START]		= "over a size cap",
	[USTACK_ERR_NOT_ELF - USTACK_ERR__START]	= "not an ELF file",
	[USTACK_ERR_BAD_EHDR - USTACK_ERR__START]	= "truncated or corrupt ELF header",
	[USTACK_ERR_TRUNCATED - USTACK_ERR__START]	= "truncated ELF file",
	[USTACK_ERR_NO_SEGMENT - USTACK_ERR__START]	= "no executable segment",
	[USTACK_ERR_NO_PATH - USTACK_ERR__START]	= "the kernel could not name this file",
	[USTACK_ERR_BUILD_ID - USTACK_ERR__START]	= "build id differs from the traced file",
	[USTACK_ERR_NO_VDSO - USTACK_ERR__START]	= "no vdso in this process",
	[USTACK_ERR_VDSO_DIFFERS - USTACK_ERR__START]	= "vdso of this kernel differs from the traced one",
	[USTACK_ERR_TRACEFS_DIR - USTACK_ERR__START]	= "no tracefs at $TRACEFS_DIR",
	[USTACK_ERR_NO_TRACEFS - USTACK_ERR__START]	= "tracefs is not mounted",
	[USTACK_ERR_NOT_TRACEDAT - USTACK_ERR__START]	= "not a trace.dat file",
	[USTACK_ERR_CORRUPT - USTACK_ERR__START]	= "corrupt trace.dat",
	[USTACK_ERR_UNREADABLE - USTACK_ERR__START]	= "cannot read this trace.dat file",
	[USTACK_ERR_NO_BUFFER - USTACK_ERR__START]	= "no such buffer",
	[USTACK_ERR_BAD_BUFFER - USTACK_ERR__START]	= "cannot read the buffer",
	[USTACK_ERR_BUDGET - USTACK_ERR__START]		= "over the memory budget",
	[USTACK_ERR_UW_MAX_FRAMES - USTACK_ERR__START]	= "too many frames",
	[USTACK_ERR_UW_NO_REGS - USTACK_ERR__START]	= "no user registers",
	[USTACK_ERR_UW_STACK_SIZE - USTACK_ERR__START]	= "stack copy too small",
	[USTACK_ERR_UW_MEMORY - USTACK_ERR__START]	= "unreadable memory",
	[USTACK_ERR_UW_NO_MAP - USTACK_ERR__START]	= "address in no file mapping",
	[USTACK_ERR_UW_NO_FILE - USTACK_ERR__START]	= "file not found",
	[USTACK_ERR_UW_NO_CFI - USTACK_ERR__START]	= "no CFI and no frame pointer",
	[USTACK_ERR_UW_BAD_FRAME - USTACK_ERR__START]	= "bad frame",
	[USTACK_ERR_UW_LIBDW - USTACK_ERR__START]	= "libdw unwind error",
	[USTACK_ERR_NO_DEFERRED - USTACK_ERR__START]	=
		"this kernel has no options/userstacktrace_delay "
		"(see THE FALLBACK in man trace-cmd-ustack)",
	[USTACK_ERR_NO_COPY_SIZE - USTACK_ERR__START]	=
		"this kernel has no user_stack_copy_size for --call-graph=dwarf "
		"(kernel patch 14)",
	[USTACK_ERR_NO_COPIES - USTACK_ERR__START]	=
		"--call-graph=dwarf needs the deferred or perf stack source "
		"(--stack-source=tracefs-deferred or perf)",
	[USTACK_ERR_NO_PERF - USTACK_ERR__START]	= "perf refused its events",
	[USTACK_ERR_UW_FP_LEFT - USTACK_ERR__START]	=
		"frame-pointer walk left the code",
	[USTACK_ERR_UW_FP_NOT_CALL - USTACK_ERR__START]	=
		"frame-pointer walk: return address after no call",
	[USTACK_ERR_UW_FP_NO_FP - USTACK_ERR__START]	=
		"frame-pointer walk of code without frame pointers",
	[USTACK_ERR_VDSO32 - USTACK_ERR__START]		=
		"a 32-bit task's vdso: no image of it here",
};

/**
 * ustack_err_strerror - the text of an error code
 * @err: a negative code: -errno or an enum ustack_err value
 *
 * Never NULL; the string is static.
 */
const char *ustack_err_strerror(int err)
{
	if (err >= USTACK_ERR__START && err < USTACK_ERR__END)
		return err_str[err - USTACK_ERR__START];
	if (err < 0 && err > -4096)
		return strerror(-err);
	return "unknown error";
}
