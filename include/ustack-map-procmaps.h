/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Fallback path (kernels without options/userstacktrace_delay): the
 * synchronous ftrace:user_stack event carries raw virtual addresses, so
 * /proc/<tgid>/maps is snapshotted while recording: when a process first
 * shows up, after it execs, and whenever its mappings change.
 *
 * Each snapshot is handed to a callback (the session) and, when recording
 * a trace.dat, also written into the instance's trace_marker as
 * "ustack-maps" print events, so that the file carries every snapshot with
 * the time it applies from. The last snapshot of each process also goes
 * into trace-cmd's PROCMAPS option for other tools.
 */
#ifndef _USTACK_MAP_PROCMAPS_H
#define _USTACK_MAP_PROCMAPS_H

#include <stdbool.h>
#include <stdint.h>

struct ustack_map_procmaps;
struct ustack_instance;

typedef void (*ustack_map_procmaps_fn)(int tgid, uint64_t ts, const char *text, void *ctx);

/* @ui: write markers into this instance (record), or NULL (live only). */
struct ustack_map_procmaps *ustack_map_procmaps_new(struct ustack_instance *ui, ustack_map_procmaps_fn fn,
					    void *ctx);
void ustack_map_procmaps_free(struct ustack_map_procmaps *pm);

/* A record of @tgid was seen: snapshot it if it is new. */
void ustack_map_procmaps_see(struct ustack_map_procmaps *pm, int tgid);
/* @tgid exec'ed at @ts: its maps from then on are new ones. */
void ustack_map_procmaps_exec(struct ustack_map_procmaps *pm, int tgid, uint64_t ts);
/* Snapshot @tgid now if new or changed (e.g. stopped at exit by ptrace). */
void ustack_map_procmaps_update(struct ustack_map_procmaps *pm, int tgid, uint64_t now);
/* Re-read the maps of every live process; @now is the trace clock. */
void ustack_map_procmaps_refresh(struct ustack_map_procmaps *pm, uint64_t now);

/* NULL-terminated PROCMAPS payloads (trace-cmd's format); free with free() each. */
char **ustack_map_procmaps_options(struct ustack_map_procmaps *pm);

/*
 * Markers (USTACK_MAPS_MARKER, ustack-events.h) read back from a file:
 * feed every ftrace:print text; complete snapshots are handed to @fn.
 * Returns true when @buf was one of ours.
 */
struct ustack_map_procmaps_reader;
struct ustack_map_procmaps_reader *ustack_map_procmaps_reader_new(ustack_map_procmaps_fn fn, void *ctx);
bool ustack_map_procmaps_reader_feed(struct ustack_map_procmaps_reader *mr, const char *buf);
void ustack_map_procmaps_reader_free(struct ustack_map_procmaps_reader *mr);

#endif /* _USTACK_MAP_PROCMAPS_H */
