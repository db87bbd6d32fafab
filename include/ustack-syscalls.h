/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * System calls by name: the default event set is raw_syscalls:sys_enter,
 * one tracepoint for every call, and each of its events is shown as the
 * per-call event the kernel has for it (syscalls:sys_enter_openat), named
 * from a table of the build machine's headers. The named event is a copy
 * of raw_syscalls:sys_enter's format under another name: its id, fields
 * and printing stay the record's.
 */
#ifndef _USTACK_SYSCALLS_H
#define _USTACK_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>

struct tep_event;
struct tep_record;
struct ustack_syscalls;

/*
 * The system call ABI of a task: which table names its numbers. Only
 * x86-64 has more than one (docs: Documentation/architecture.md).
 */
enum ustack_syscall_abi {
	USTACK_SYSCALL_ABI_UNKNOWN,	/* nothing says: named as native */
	USTACK_SYSCALL_ABI_NATIVE,	/* the build's own (x86-64) */
	USTACK_SYSCALL_ABI_I386,	/* a 32-bit (ia32 compat) task */
	USTACK_SYSCALL_ABI_X32,		/* x32: native numbers, bit 30 set */
};

/* A 32-bit task's: its [vdso] is another image than a 64-bit one's */
static inline bool ustack_syscall_abi_32bit(enum ustack_syscall_abi abi)
{
	return abi == USTACK_SYSCALL_ABI_I386 || abi == USTACK_SYSCALL_ABI_X32;
}

#define USTACK_SYSCALLS_RAW_SYSTEM	"raw_syscalls"
#define USTACK_SYSCALLS_RAW_EVENT	"sys_enter"
#define USTACK_SYSCALLS_SYSTEM		"syscalls"

struct ustack_syscalls *ustack_syscalls_new(void);
void ustack_syscalls_free(struct ustack_syscalls *sc);
struct tep_event *ustack_syscalls_event(struct ustack_syscalls *sc, struct tep_event *ev,
					const struct tep_record *rec,
					enum ustack_syscall_abi abi);
enum ustack_syscall_abi ustack_syscalls_file_abi(struct ustack_syscalls *sc, const char *path);
const struct tep_event *ustack_syscalls_origin(const struct tep_event *ev);
int ustack_syscalls_name(long nr, char *buf, size_t size);
int ustack_syscalls_name_abi(enum ustack_syscall_abi abi, long nr, char *buf, size_t size);
bool ustack_syscalls_match(const char *system, const char *pattern);

#endif /* _USTACK_SYSCALLS_H */
