/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: the mappings a run knows, and the one look-up of a
 * frame: (process, time, address or file id) to a file and an offset,
 * or to the reason there is none (USTACK_ID_ANON, USTACK_ID_NOMAP, an
 * unannounced id). Three ways behind it, one per mapping source
 * (include/ustack-map-source.h): file ids the kernel announced, the
 * side-band's history, /proc snapshots. The session feeds it in time
 * order with the events, live and from a trace.dat alike, and asks it
 * for each stack.
 */
#ifndef _USTACK_MAP_DB_H
#define _USTACK_MAP_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ustack.h"

struct ustack_map_history;
struct ustack_map_db;
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

struct ustack_map_db *ustack_map_db_new(struct ustack_tasks *tasks);
void ustack_map_db_free(struct ustack_map_db *db);

void ustack_map_db_announce(struct ustack_map_db *db, const struct ustack_mapping *m);
int ustack_map_db_add_snapshot(struct ustack_map_db *db, int tgid, uint64_t ts,
			      const char *maps_text);
int ustack_map_db_sideband(struct ustack_map_db *db, const struct ustack_sb_rec *rec);
void ustack_map_db_set_comm(struct ustack_map_db *db, int pid, const char *comm);

bool ustack_map_db_bind(struct ustack_map_db *db, const struct ustack_map_query *q,
		       struct ustack_frame *fr);
const char *ustack_map_db_comm(const struct ustack_map_db *db, int pid);
struct ustack_map_history *ustack_map_db_history(struct ustack_map_db *db);
size_t ustack_map_db_files(const struct ustack_map_db *db);
bool ustack_map_db_by_sideband(const struct ustack_map_db *db);
void ustack_map_db_use(struct ustack_map_db *db, int tgid);
char **ustack_map_db_procmaps(const struct ustack_map_db *db);

#endif /* _USTACK_MAP_DB_H */
