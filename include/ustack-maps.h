/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * File mappings known to a session:
 *
 *  - the id history: every inode_cache announcement, several per id over
 *    time (pointer reuse, re-announcement after a buffer overrun), looked
 *    up by (id, timestamp) as kernel-abi.md rule 3 says;
 *  - /proc/<pid>/maps snapshots for the synchronous fallback
 *    (ftrace:user_stack carries raw virtual addresses).
 */
#ifndef _USTACK_MAPS_H
#define _USTACK_MAPS_H

#include "ustack.h"

struct ustack_maps;

struct ustack_maps *ustack_maps_new(void);
void ustack_maps_free(struct ustack_maps *m);

const struct ustack_mapping *ustack_maps_add(struct ustack_maps *m,
					     const struct ustack_mapping *tmpl);
const struct ustack_mapping *ustack_maps_lookup(const struct ustack_maps *m,
						uint64_t id, uint64_t ts,
						bool *after);
size_t ustack_maps_count(const struct ustack_maps *m);

struct ustack_snapshots;
struct ustack_snapshot;

struct ustack_snapshots *ustack_snapshots_new(void);
void ustack_snapshots_free(struct ustack_snapshots *t);

int ustack_snapshots_add(struct ustack_snapshots *t, int tgid, uint64_t ts,
			 const char *maps_text);
const struct ustack_snapshot *ustack_snapshots_find(const struct ustack_snapshots *t,
						    int tgid, uint64_t ts,
						    bool *after);
const struct ustack_mapping *ustack_snapshot_map(const struct ustack_snapshot *snap,
						 uint64_t va, uint64_t *offset);
size_t ustack_snapshots_mappings(const struct ustack_snapshots *t);

#endif /* _USTACK_MAPS_H */
