/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Temporary files of a recording (per-CPU data, the side-band, the
 * trace.dat before its rename), known by name so that a signal handler
 * can remove them all before it _exit()s: a second ^C must not leave
 * them behind.
 *
 * Files are made and forgotten on the thread that takes SIGINT, SIGTERM
 * and SIGHUP (the other threads of libustack block them); these three
 * signals are blocked while the list changes, so that a handler never
 * sees it half changed. Where the file system allows it a temporary has
 * no name (O_TMPFILE, its path "/proc/self/fd/N"), so that not even
 * SIGKILL can leave it behind.
 */
#ifndef _USTACK_TEMPFILE_H
#define _USTACK_TEMPFILE_H

#include <stdbool.h>

int ustack_tempfile_make(char **path);
bool ustack_tempfile_unnamed(const char *path);
void ustack_tempfile_forget(const char *path);
void ustack_tempfile_remove(const char *path);
void ustack_tempfile_unlink_all(void);
int ustack_tempfile_track(const char *path);
void ustack_tempfile_remove_tree(const char *dir);

#endif /* _USTACK_TEMPFILE_H */
