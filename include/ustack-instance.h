/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The tracefs instance trace-cmd ustack records into: created for the run
 * (and removed at the end) or an existing one named with -B (kept, with
 * every file we changed restored). ustack_instance_teardown() does either
 * and is safe in a signal handler, so that no exit path leaves it behind;
 * a handler that ends the process calls ustack_instance_abandon(), which
 * also closes the files of the instance the code it interrupted holds.
 */
#ifndef _USTACK_INSTANCE_H
#define _USTACK_INSTANCE_H

#include <stdbool.h>
#include <sys/types.h>

#include "ustack.h"

struct tracefs_instance;
struct ustack_instance;

/* 0 when tracefs is usable ($TRACEFS_DIR honoured), else a code */
int ustack_instance_tracefs_check(void);
const char *ustack_instance_tracefs_strerror(int err, char *buf, size_t size);

struct ustack_instance *ustack_instance_open(const char *name);
/* Remove "ustack-<pid>" instances whose pid is gone (killed runs) */
int ustack_instance_reap(void (*fn)(const char *name));
void ustack_instance_teardown(struct ustack_instance *ui);
void ustack_instance_abandon(struct ustack_instance *ui);
void ustack_instance_close(struct ustack_instance *ui);

struct tracefs_instance *ustack_instance_tracefs(struct ustack_instance *ui);
const char *ustack_instance_name(struct ustack_instance *ui);

/* Write @file of the instance, remembering its old content for restore. */
int ustack_instance_write(struct ustack_instance *ui, const char *file, const char *val);
int ustack_instance_trigger(struct ustack_instance *ui, const char *file, const char *val);

/*
 * Bytes in each of the instance's ring-buffer sub-buffers
 * (buffer_subbuf_size_kb, Linux 6.8); 0 when the kernel has no such file
 * (then every instance has the top-level header page's).
 */
int ustack_instance_subbuf_size(struct ustack_instance *ui);
/* Sub-buffers of at least @bytes, restored with the other files; 0 or -1 */
int ustack_instance_raise_subbuf(struct ustack_instance *ui, unsigned int bytes);

/* options/<name>: 1 or 0; -1 with errno ENOENT when the kernel lacks it. */
int ustack_instance_set_option(struct ustack_instance *ui, const char *name, bool on);
bool ustack_instance_has_option(struct ustack_instance *ui, const char *name);

/*
 * Enable @system:@event (regular expressions as in libtracefs) with an
 * optional filter. Returns 0, or -1 with errno ENOENT (no such event) or
 * EINVAL (filter refused by the kernel).
 */
int ustack_instance_enable_event(struct ustack_instance *ui, const char *system,
				 const char *event, const char *filter);

/* The existing event (or system) nearest to a missing one, or NULL; free it */
char *ustack_instance_event_suggest(const char *system, const char *event);

/* Add @pid to set_event_pid (or set_event_notrace_pid when @notrace). */
int ustack_instance_add_pid(struct ustack_instance *ui, pid_t pid, bool notrace);

/*
 * Register a file descriptor of the instance: every registered fd is
 * closed before the instance is removed (rmdir fails with EBUSY while a
 * file of the instance is open).
 */
void ustack_instance_register_fd(struct ustack_instance *ui, int fd);
void ustack_instance_unregister_fd(struct ustack_instance *ui, int fd);

/* The instance's ring-buffer clock "now", in ns (from per_cpu/cpu0/stats). */
unsigned long long ustack_instance_now(struct ustack_instance *ui);

int ustack_instance_rb_stats(struct ustack_instance *ui, int cpu, struct ustack_rb_stats *st);

/* Events lost in the ring buffer so far (overrun + dropped, all CPUs). */
unsigned long long ustack_instance_lost(struct ustack_instance *ui, int cpu);

#endif /* _USTACK_INSTANCE_H */
