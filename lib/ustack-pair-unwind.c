// SPDX-License-Identifier: LGPL-2.1
/*
 * Stack copies unwound by CFI (ustack-unwind-sample.c, ustack-unwind.c) into a
 * stack's frames: the perf source's --call-graph=dwarf samples and the
 * tracefs-deferred source's copies, which answer a cookie in place of the
 * kernel's walk. The frames are virtual addresses, bound as a synchronous
 * chain is; how many at most: the source's limit, or report's.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack-array.h"
#include "ustack-unwind-sample.h"
#include "ustack-err.h"
#include "ustack-events.h"
#include "ustack-map-db.h"
#include "ustack-session-int.h"
#include "ustack-tasks.h"

/* The frames a stack copy's unwind gives at most: the source's limit, or report's */
static int dwarf_max(const struct ustack_session *s)
{
	unsigned int max = s->opts.perf_max_stack ? s->opts.perf_max_stack :
			   USTACK_DWARF_MAX_FRAMES;

	if (s->opts.unwind_max && s->opts.unwind_max < max)
		max = s->opts.unwind_max;
	return (int)max;
}

/*
 * A recording keeps the words the recorder's unwind read: where its frame
 * limit stopped it (umax), report's stops too, or it would walk on into
 * the words not kept.
 */
static int dwarf_limit(const struct ustack_session *s, const struct ustack_sb_rec *sb)
{
	int max = dwarf_max(s);

	return sb->unwind_max && sb->unwind_max < (unsigned int)max ? (int)sb->unwind_max : max;
}

/* Room for the last unwind's words: what the recorder keeps of the copy */
static uint8_t *dwarf_used(struct ustack_session *s, const struct ustack_sb_rec *sb)
{
	size_t need = ustack_unwind_sample_map_bytes(sb->stack_size);

	/* a copy of 0 bytes still gets room: memset() wants a real pointer */
	if (!need)
		need = 1;
	if (need > s->used_alloc) {
		free(s->used);
		s->used = calloc(1, need);
		s->used_alloc = s->used ? need : 0;
		if (!s->used)
			return NULL;
	}
	memset(s->used, 0, need);
	s->used_set = true;
	return s->used;
}

/*
 * A stack copy unwound by CFI into @st's frames: virtual addresses, bound
 * as a synchronous chain is; a walk cut by @max is truncated as a chain
 * the kernel cut (the caller counts it), any other early end keeps why.
 * Returns how it ended, or -1 when out of memory.
 */
static int fill_unwound(struct ustack_session *s, struct ustk *st, const struct ustack_sb_rec *sb,
			int tgid, int max, uint8_t *used)
{
	struct ustack_unwind_result res;
	int i, nr;

	if (ustack_array_grow((void **)&s->uframes, &s->uframes_alloc, max,
			      sizeof(*s->uframes)))
		return -1;
	nr = ustack_unwind_sample(s->unw, ustack_map_db_history(s->maps), sb, tgid, s->uframes,
				 max, &res, used);
	if (ustack_pair_alloc_frames(s, st, nr))
		return -1;
	s->stats.unwound++;
	st->how = nr ? (uint8_t *)(st->raw_id + nr) : NULL;
	for (i = 0; i < nr; i++) {
		st->raw_off[i] = s->uframes[i].addr;
		st->raw_id[i] = USTACK_ID_NOMAP;
		st->how[i] = s->uframes[i].how;
	}
	if (res.err == USTACK_UNWIND_E_MAX_FRAMES) {
		st->flags |= USTACK_STACK_TRUNCATED;
	} else if (res.err != USTACK_UNWIND_OK) {
		st->unwind_end = ustack_unwind_errcode(res.err);
		s->stats.unwind_stopped[res.err]++;
	}
	return res.err;
}

/**
 * ustack_pair_unwind_dwarf - a perf sample's stack copy (--call-graph=dwarf)
 * @s:		the session
 * @st:		the sample's stack, filled with the frames
 * @sb:		the sample, its registers and stack copy
 * @tgid:	its thread group
 *
 * The walk stops where the recording's stopped; the words it read are
 * kept for ustack_session_stack_used(). Returns 0, or -1 when out of
 * memory.
 */
int ustack_pair_unwind_dwarf(struct ustack_session *s, struct ustk *st,
			     const struct ustack_sb_rec *sb, int tgid)
{
	int ret = fill_unwound(s, st, sb, tgid, dwarf_limit(s, sb), dwarf_used(s, sb));

	if (ret < 0)
		return ret;
	s->used_cut = ret == USTACK_UNWIND_E_MAX_FRAMES ? dwarf_limit(s, sb) : 0;
	/* a deferred stack's is counted when it arrives */
	if (ret == USTACK_UNWIND_E_MAX_FRAMES)
		s->stats.truncated++;
	return 0;
}

/**
 * ustack_pair_unwind_copy - a deferred stack's copy (kernel-abi.md, "Stack copies")
 * @s:		the session
 * @st:		the entry of its cookie, filled with the frames
 * @rec:	the copy's record
 * @cp:		the copy, decoded
 *
 * Unwound by CFI: the addresses are mapped through the side-band's
 * history, as the perf source's are. Returns 0, or -1 when out of memory.
 */
int ustack_pair_unwind_copy(struct ustack_session *s, struct ustk *st,
			    const struct tep_record *rec, struct ustack_copy_rec *cp)
{
	struct ustack_sb_rec sb = { 0 };
	int tgid, ret;

	/* where its walk stops short, the summary tells why the copy was */
	if (cp->flags & USTACK_COPY_CAPPED)
		s->stats.copies_capped++;
	sb.tid = st->pid;
	sb.regs_mask = cp->regs_mask;
	sb.regs = cp->regs;
	sb.regs_abi = cp->abi;
	sb.stack = cp->stack;
	sb.stack_size = cp->stack_size;
	tgid = ustack_tasks_tgid(&s->tasks, st->pid);
	if (!tgid)
		tgid = st->pid;
	st->sync = true;
	st->tgid = tgid;
	st->ts = rec->ts;
	ret = fill_unwound(s, st, &sb, tgid, dwarf_max(s), NULL);
	return ret < 0 ? -1 : 0;
}
