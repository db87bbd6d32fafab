// SPDX-License-Identifier: LGPL-2.1
/*
 * The mappings a run knows and the look-up of a frame (see ustack-map-db.h).
 *
 * A stack is bound by one of three look-ups, as its mapping source
 * gives its frames: deferred frames name their files by id; synchronous
 * frames are addresses, mapped through the side-band's history once it
 * told any mapping, else through the process's /proc snapshot.
 */
#include <stdlib.h>

#include "ustack-map-fileids.h"
#include "ustack-map-history.h"
#include "ustack-map-db.h"
#include "ustack-map-snapshots.h"

struct ustack_map_db {
	struct ustack_map_fileids	*fileids;
	struct ustack_map_snapshots	*snaps;
	struct ustack_map_history	*hist;
};

/* One way to bind a stack; true when no later record can change it */
typedef bool (*lookup_fn)(struct ustack_map_db *db, const struct ustack_map_query *q,
			  struct ustack_frame *fr);

/**
 * ustack_map_db_new - no mappings known yet
 * @tasks:	the task records the history and the snapshots keep their
 *		parts on; they must outlive it
 *
 * Returns NULL when out of memory.
 */
struct ustack_map_db *ustack_map_db_new(struct ustack_tasks *tasks)
{
	struct ustack_map_db *db = calloc(1, sizeof(*db));

	if (!db)
		return NULL;
	db->fileids = ustack_map_fileids_new();
	db->snaps = ustack_map_snapshots_new(tasks);
	db->hist = ustack_map_history_new_on(tasks);
	if (!db->fileids || !db->snaps || !db->hist) {
		ustack_map_db_free(db);
		return NULL;
	}
	return db;
}

/**
 * ustack_map_db_free - free what is known (before the task records)
 * @db: the mappings (may be NULL)
 */
void ustack_map_db_free(struct ustack_map_db *db)
{
	if (!db)
		return;
	ustack_map_snapshots_free(db->snaps);
	ustack_map_history_free(db->hist);
	ustack_map_fileids_free(db->fileids);
	free(db);
}

/* ------------------------------------------------------------------ */
/* Feeding, in time order with the events                             */
/* ------------------------------------------------------------------ */

/**
 * ustack_map_db_announce - the kernel announced a file id (inode_cache)
 * @db:	the mappings
 * @m:	the announcement (copied)
 */
void ustack_map_db_announce(struct ustack_map_db *db, const struct ustack_mapping *m)
{
	ustack_map_fileids_add(db->fileids, m);
}

/**
 * ustack_map_db_add_snapshot - /proc/<tgid>/maps as read at @ts
 * @db:		the mappings
 * @tgid:	the process
 * @ts:		when, in the trace's clock
 * @maps_text:	the file's text
 *
 * Returns 0, or -1 when out of memory.
 */
int ustack_map_db_add_snapshot(struct ustack_map_db *db, int tgid, uint64_t ts,
			      const char *maps_text)
{
	return ustack_map_snapshots_add(db->snaps, tgid, ts, maps_text);
}

/**
 * ustack_map_db_sideband - a side-band record of mappings or names
 * @db:		the mappings
 * @rec:	the record
 *
 * Returns 0, or -1 when out of memory.
 */
int ustack_map_db_sideband(struct ustack_map_db *db, const struct ustack_sb_rec *rec)
{
	return ustack_map_history_add(db->hist, rec);
}

/**
 * ustack_map_db_set_comm - a task's name from the instance's task events
 * @db:		the mappings
 * @pid:	the task
 * @comm:	its name from now on
 */
void ustack_map_db_set_comm(struct ustack_map_db *db, int pid, const char *comm)
{
	ustack_map_history_set_comm(db->hist, pid, comm);
}

/* ------------------------------------------------------------------ */
/* The look-ups                                                       */
/* ------------------------------------------------------------------ */

/*
 * By the file ids of a deferred stack: final when every id has an
 * announcement at or before the stack, which no later record can
 * change since the feed is in timestamp order.
 */
static bool by_file_id(struct ustack_map_db *db, const struct ustack_map_query *q,
		       struct ustack_frame *fr)
{
	const struct ustack_mapping *map = NULL;
	bool final = true, after = false;
	unsigned int i;

	for (i = 0; i < q->nr; i++) {
		fr[i].offset = q->raw_off[i];
		fr[i].id = q->raw_id[i];
		fr[i].map = NULL;
		if (fr[i].id == USTACK_ID_ANON || fr[i].id == USTACK_ID_NOMAP)
			continue;
		/* Frames of one file come in runs: the same answer as the last */
		if (!i || fr[i].id != q->raw_id[i - 1])
			map = ustack_map_fileids_lookup(db->fileids, fr[i].id, q->ts, &after);
		if (!map || after)
			final = false;
		if (map && (!after || q->force))
			fr[i].map = map;
	}
	return final;
}

/*
 * Through the side-band's history, fed in time order with the events:
 * its mappings are the process's at the event, final.
 */
static bool by_sideband(struct ustack_map_db *db, const struct ustack_map_query *q,
			struct ustack_frame *fr)
{
	ustack_map_history_map_stack(db->hist, q->tgid, q->raw_off, fr, q->nr);
	return true;
}

/* Through the process's snapshot at or before the event, else after it */
static bool by_snapshot(struct ustack_map_db *db, const struct ustack_map_query *q,
			struct ustack_frame *fr)
{
	const struct ustack_map_snapshot *snap;
	const struct ustack_mapping *map;
	bool after;
	unsigned int i;
	uint64_t off;

	snap = ustack_map_snapshots_find(db->snaps, q->tgid, q->ts, &after);
	if ((!snap || after) && !q->force)
		return false;
	for (i = 0; i < q->nr; i++) {
		fr[i].offset = q->raw_off[i];
		fr[i].id = USTACK_ID_NOMAP;
		fr[i].map = NULL;
		map = snap ? ustack_map_snapshots_map(snap, fr[i].offset, &off) : NULL;
		if (map) {
			fr[i].offset = off;
			fr[i].id = map->id;
			fr[i].map = map;
		}
	}
	return true;
}

/**
 * ustack_map_db_by_sideband - whether synchronous stacks are mapped through
 *	the side-band's history (else through /proc snapshots)
 * @db: the mappings
 */
bool ustack_map_db_by_sideband(const struct ustack_map_db *db)
{
	return ustack_map_history_has_maps(db->hist);
}

/* Which look-up a stack takes: the one place that decides */
static lookup_fn lookup_of(const struct ustack_map_db *db, const struct ustack_map_query *q)
{
	if (!q->sync)
		return by_file_id;
	return ustack_map_db_by_sideband(db) ? by_sideband : by_snapshot;
}

/**
 * ustack_map_db_bind - give a stack's frames their files
 * @db:	the mappings
 * @q:	the stack
 * @fr:	set, @q->nr of them: file and offset, or the address with the
 *	reason there is no file (USTACK_ID_ANON, USTACK_ID_NOMAP, or an
 *	id whose file was not announced: no map)
 *
 * Returns true when the answer is final; false when a later record may
 * still tell (the snapshot or announcement came after the stack), and
 * then, unless @q->force, @fr may be left as it was.
 */
bool ustack_map_db_bind(struct ustack_map_db *db, const struct ustack_map_query *q,
		       struct ustack_frame *fr)
{
	return lookup_of(db, q)(db, q, fr);
}

/* ------------------------------------------------------------------ */
/* What else is asked of it                                           */
/* ------------------------------------------------------------------ */

/**
 * ustack_map_db_comm - a task's name now, NULL when none was told
 * @db:		the mappings
 * @pid:	the task
 */
const char *ustack_map_db_comm(const struct ustack_map_db *db, int pid)
{
	return ustack_map_history_comm(db->hist, pid);
}

/**
 * ustack_map_db_history - the side-band's history, for the CFI unwinder
 * @db: the mappings
 */
struct ustack_map_history *ustack_map_db_history(struct ustack_map_db *db)
{
	return db->hist;
}

/**
 * ustack_map_db_files - announcements kept plus distinct files named by
 *	the snapshots or the side-band
 * @db: the mappings
 */
size_t ustack_map_db_files(const struct ustack_map_db *db)
{
	return ustack_map_fileids_count(db->fileids) + ustack_map_snapshots_mappings(db->snaps) +
	       ustack_map_history_files(db->hist);
}

/**
 * ustack_map_db_use - a stack of @tgid was recorded unmapped: its mappings
 *	go into the PROCMAPS (see ustack_map_history_use())
 * @db:		the mappings
 * @tgid:	the thread group
 */
void ustack_map_db_use(struct ustack_map_db *db, int tgid)
{
	ustack_map_history_use(db->hist, tgid);
}

/**
 * ustack_map_db_procmaps - trace-cmd's PROCMAPS of the processes mapped
 *	through the side-band
 * @db: the mappings
 *
 * NULL-terminated (free() each entry and the array), or NULL when out of
 * memory.
 */
char **ustack_map_db_procmaps(const struct ustack_map_db *db)
{
	return ustack_map_history_procmaps(db->hist);
}
