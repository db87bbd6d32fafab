/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Reading whole small files: tracefs control files and /proc/<pid>/...
 */
#ifndef _USTACK_PROC_H
#define _USTACK_PROC_H

#include <stddef.h>

char *ustack_proc_read_file(const char *path, size_t *len);
char *ustack_proc_read(int pid, const char *what, size_t *len);
int ustack_proc_tgid(int pid);
int ustack_proc_comm(int pid, char *buf, size_t size);

#endif /* _USTACK_PROC_H */
