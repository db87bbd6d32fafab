/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: the mappings a run knows, and the one look-up of a
 * frame: (process, time, address or file id) to a file and an offset,
 * or to the reason there is none (USTACK_ID_ANON, USTACK_ID_NOMAP, an
 * unannounced id). Three ways behind it, one per mapping source
 * (include/ustack-mapsrc.h): file ids the kernel announced, the
 * side-band's history, /proc snapshots. The session feeds it in time
 * order with the events, live and from a trace.dat alike, and asks it
 * for each stack.
 */
#ifndef _USTACK_MAPDB_H
#define _USTACK_MAPDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ustack.h"

struct ustack_history;
struct ustack_mapdb;
struct ustack_sb_rec;
struct ustack_tasks;

/**
 * struct ustack_map_query - one stack's frames, to be given their files
 * @tgid:	the process
 * @ts:		when the stack was taken
 * @sync:	the frames are addresses (else deferred: offsets in the
 *		files of @raw_id)
 * @raw_off:	the addresses, or the offsets
 * @raw_id:	deferred: the frames' file ids
 * @nr:		frames
 * @force:	take what is known now, though a later record may know
 *		better (the stack is handed out)
 */
struct ustack_map_query {
	int			tgid;
	uint64_t		ts;
	bool			sync;
	const uint64_t		*raw_off;
	const uint64_t		*raw_id;
	unsigned int		nr;
	bool			force;
};

struct ustack_mapdb *ustack_mapdb_new(struct ustack_tasks *tasks);
void ustack_mapdb_free(struct ustack_mapdb *db);

void ustack_mapdb_announce(struct ustack_mapdb *db, const struct ustack_mapping *m);
int ustack_mapdb_add_snapshot(struct ustack_mapdb *db, int tgid, uint64_t ts,
			      const char *maps_text);
int ustack_mapdb_sideband(struct ustack_mapdb *db, const struct ustack_sb_rec *rec);
void ustack_mapdb_set_comm(struct ustack_mapdb *db, int pid, const char *comm);

bool ustack_mapdb_bind(struct ustack_mapdb *db, const struct ustack_map_query *q,
		       struct ustack_frame *fr);
const char *ustack_mapdb_comm(const struct ustack_mapdb *db, int pid);
struct ustack_history *ustack_mapdb_history(struct ustack_mapdb *db);
size_t ustack_mapdb_files(const struct ustack_mapdb *db);
bool ustack_mapdb_by_sideband(const struct ustack_mapdb *db);
void ustack_mapdb_use(struct ustack_mapdb *db, int tgid);
char **ustack_mapdb_procmaps(const struct ustack_mapdb *db);

#endif /* _USTACK_MAPDB_H */
