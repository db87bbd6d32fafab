/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The files the kernel announced (inode_cache events): every announcement
 * of each file id, several per id over time (pointer reuse,
 * re-announcement after a buffer overrun), looked up by (id, timestamp)
 * as kernel-abi.md rule 3 says.
 */
#ifndef _USTACK_MAP_FILEIDS_H
#define _USTACK_MAP_FILEIDS_H

#include "ustack.h"

struct ustack_map_fileids;

struct ustack_map_fileids *ustack_map_fileids_new(void);
void ustack_map_fileids_free(struct ustack_map_fileids *f);

const struct ustack_mapping *ustack_map_fileids_add(struct ustack_map_fileids *f,
						const struct ustack_mapping *tmpl);
const struct ustack_mapping *ustack_map_fileids_lookup(const struct ustack_map_fileids *f,
						   uint64_t id, uint64_t ts, bool *after);
size_t ustack_map_fileids_count(const struct ustack_map_fileids *f);

/* A copy of @tmpl with its own path; free with ustack_map_fileids_mapping_free(). */
struct ustack_mapping *ustack_map_fileids_mapping_dup(const struct ustack_mapping *tmpl);
void ustack_map_fileids_mapping_free(struct ustack_mapping *map);

#endif /* _USTACK_MAP_FILEIDS_H */
