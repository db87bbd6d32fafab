/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * /proc/<pid>/maps snapshots for the synchronous fallback: its
 * ftrace:user_stack events carry raw virtual addresses, which a snapshot
 * of the process taken at (or after) the event maps to files.
 */
#ifndef _USTACK_SNAPSHOTS_H
#define _USTACK_SNAPSHOTS_H

#include "ustack.h"

struct ustack_snapshots;
struct ustack_snapshot;
struct ustack_tasks;

struct ustack_snapshots *ustack_snapshots_new(struct ustack_tasks *tasks);
void ustack_snapshots_free(struct ustack_snapshots *t);

int ustack_snapshots_add(struct ustack_snapshots *t, int tgid, uint64_t ts,
			 const char *maps_text);
const struct ustack_snapshot *ustack_snapshots_find(const struct ustack_snapshots *t,
						    int tgid, uint64_t ts, bool *after);
const struct ustack_mapping *ustack_snapshot_map(const struct ustack_snapshot *snap,
						 uint64_t va, uint64_t *offset);
size_t ustack_snapshots_mappings(const struct ustack_snapshots *t);

#endif /* _USTACK_SNAPSHOTS_H */
