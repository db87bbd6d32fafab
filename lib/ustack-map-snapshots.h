/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * /proc/<pid>/maps snapshots for the synchronous fallback: its
 * ftrace:user_stack events carry raw virtual addresses, which a snapshot
 * of the process taken at (or after) the event maps to files.
 */
#ifndef _USTACK_MAP_SNAPSHOTS_H
#define _USTACK_MAP_SNAPSHOTS_H

#include "ustack.h"

struct ustack_map_snapshots;
struct ustack_map_snapshot;
struct ustack_tasks;

struct ustack_map_snapshots *ustack_map_snapshots_new(struct ustack_tasks *tasks);
void ustack_map_snapshots_free(struct ustack_map_snapshots *t);

int ustack_map_snapshots_add(struct ustack_map_snapshots *t, int tgid, uint64_t ts,
			 const char *maps_text);
const struct ustack_map_snapshot *ustack_map_snapshots_find(const struct ustack_map_snapshots *t,
						    int tgid, uint64_t ts, bool *after);
const struct ustack_mapping *ustack_map_snapshots_map(const struct ustack_map_snapshot *snap,
						 uint64_t va, uint64_t *offset);
size_t ustack_map_snapshots_mappings(const struct ustack_map_snapshots *t);

#endif /* _USTACK_MAP_SNAPSHOTS_H */
