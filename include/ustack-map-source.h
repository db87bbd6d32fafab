/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The mapping source: how the frames of a stack source find their files.
 * Three implementations, one chosen by the stack source when it starts
 * (ustack-stack-source.h):
 *
 *   file ids	deferred stacks name their files by id, announced in the
 *		trace (inode_cache): nothing to feed here, the session binds
 *   side-band	addresses, mapped through the history the perf side-band
 *		reports (ustack-sideband.h); recording, its records go into
 *		the trace.dat too
 *   snapshots	addresses, mapped through /proc/<pid>/maps read while the
 *		processes live (ustack-map-procmaps.h)
 *
 * Each feeds the session what it learns; the session looks frames up in
 * it (ustack-pair.c). A recording asks it for trace-cmd's PROCMAPS
 * option.
 */
#ifndef _USTACK_MAP_SOURCE_H
#define _USTACK_MAP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

struct tep_record;
struct ustack_events;
struct ustack_map_source;
struct ustack_perf_sideband;
struct ustack_sample_tally;
struct ustack_sb_rec;
struct ustack_session;

/**
 * enum ustack_maps_kind - how a source's frames find their files
 * @USTACK_MAPS_FILE_IDS:	frames carry file ids the kernel announces
 * @USTACK_MAPS_SIDEBAND:	addresses, through the perf side-band's history
 * @USTACK_MAPS_SNAPSHOTS:	addresses, through /proc/<pid>/maps snapshots
 */
enum ustack_maps_kind {
	USTACK_MAPS_FILE_IDS,
	USTACK_MAPS_SIDEBAND,
	USTACK_MAPS_SNAPSHOTS,
};

/**
 * struct ustack_map_feed - what a source is fed with and feeds
 * @session:	gets the stacks, mappings and names
 * @events:	our records' decoders
 * @record:	recording a trace.dat: the mappings go into it too
 * @pids:	the processes watched, NULL for every one; the caller's,
 *		read only while the source starts
 * @nr_pids:	entries in @pids
 * @sideband_file: recording, when the mappings may come from the perf
 *		side-band: an existing temporary where its records wait for
 *		the trace.dat (removed if none comes), else NULL
 *
 * One struct for both kinds of source: a stack source's feed
 * (struct ustack_stack_feed) holds it, and its mapping source reads it
 * there.
 */
struct ustack_map_feed {
	struct ustack_session	*session;
	struct ustack_events	*events;
	bool			record;
	const int		*pids;
	size_t			nr_pids;
	const char		*sideband_file;
};

enum ustack_maps_kind ustack_map_source_kind(const struct ustack_map_source *ms);
unsigned int ustack_map_source_helpers(const struct ustack_map_source *ms);
struct ustack_perf_sideband *ustack_map_source_perf(const struct ustack_map_source *ms);
void ustack_map_source_batch(struct ustack_map_source *ms, struct tep_record **recs, int nr);
void ustack_map_source_sideband(struct ustack_map_source *ms, const struct ustack_sb_rec *rec);
bool ustack_map_source_wants_exits(const struct ustack_map_source *ms);
void ustack_map_source_task_exit(struct ustack_map_source *ms, int pid);
char **ustack_map_source_procmaps(struct ustack_map_source *ms);
int ustack_map_source_sideband_done(struct ustack_map_source *ms, const char **path);
const struct ustack_sample_tally *ustack_map_source_tally(const struct ustack_map_source *ms);

#endif /* _USTACK_MAP_SOURCE_H */
