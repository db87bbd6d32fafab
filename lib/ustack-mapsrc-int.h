/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: how a stack source sets its mapping source up
 * (include/ustack-mapsrc.h says what each one is).
 */
#ifndef _USTACK_MAPSRC_INT_H
#define _USTACK_MAPSRC_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "ustack-mapsrc.h"

struct ustack_events;
struct ustack_instance;
struct ustack_perfsrc_opts;
struct ustack_session;

/**
 * struct ustack_map_env - what a mapping source feeds, and for whom
 * @ui:		the instance traced (its clock, its trace_marker)
 * @session:	gets the mappings and names
 * @events:	our records' decoders
 * @record:	recording a trace.dat: the mappings go into it too
 * @pids:	the processes watched, NULL for every one; read only until
 *		ustack_map_source_started()
 * @nr_pids:	entries in @pids
 * @sideband_file: record: an existing temporary where side-band records
 *		wait for the trace.dat, else NULL
 */
struct ustack_map_env {
	struct ustack_instance	*ui;
	struct ustack_session	*session;
	struct ustack_events	*events;
	bool			record;
	const int		*pids;
	size_t			nr_pids;
	const char		*sideband_file;
};

struct ustack_map_source *ustack_map_source_new(const struct ustack_map_env *env);
int ustack_map_source_open_sideband(struct ustack_map_source *ms,
				    const struct ustack_perfsrc_opts *src);
int ustack_map_source_open_snapshots(struct ustack_map_source *ms);
void ustack_map_source_started(struct ustack_map_source *ms);
const char *ustack_map_source_no_perf(const struct ustack_map_source *ms);
void ustack_map_source_enable(struct ustack_map_source *ms);
void ustack_map_source_free(struct ustack_map_source *ms);

#endif /* _USTACK_MAPSRC_INT_H */
