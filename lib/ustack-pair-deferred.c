// SPDX-License-Identifier: LGPL-2.1
/*
 * The tracefs-deferred stack source's records, turned into the pairing
 * core's calls (ustack-pair.c): the unwind cookie written behind each
 * traced event (user_unwind_cookie, rule 1), the stack that answers it
 * (user_unwind_stack, rule 2) or the stack copy that does in its place
 * (unwound by ustack-pair-unwind.c), and the file announcements its ids
 * are bound to (inode_cache, rule 3). kernel-abi.md says what each is.
 */
#include <stdlib.h>

#include <event-parse.h>

#include "ustack-events.h"
#include "ustack-map-db.h"
#include "ustack-session-int.h"
#include "ustack-tasks.h"

/**
 * ustack_pair_deferred_cookie - a user_unwind_cookie record
 * @s:		the session
 * @c:		its CPU
 * @rec:	the record
 * @pid:	its task
 *
 * The cookie of the most recent pending event of @pid on @c: zero (no
 * stack will come) completes it, else it waits for its stack.
 */
void ustack_pair_deferred_cookie(struct ustack_session *s, struct ucpu *c,
				 struct tep_record *rec, int pid)
{
	struct usample *smp;
	uint64_t cookie;
	int idx;

	s->stats.cookies++;
	ustack_pair_forget_last(c);
	idx = ustack_pair_top_of_pid(c, pid);
	if (idx < 0) {
		s->stats.orphans++;
		return;
	}
	smp = ustack_pair_pend_take(c, idx);
	cookie = ustack_events_cookie(s->ev, rec);
	if (!cookie) {
		ustack_pair_complete(s, smp, USTACK_SAMPLE_NO_STACK);
		return;
	}
	ustack_pair_attach_cookie(s, smp, cookie);
}

static int fill_deferred(struct ustack_session *s, struct ustk *st, struct tep_record *rec,
			 const struct ustack_stack_rec *info)
{
	if (ustack_pair_alloc_frames(s, st, info->nr))
		return -1;
	ustack_events_stack_frames(s->ev, rec, st->raw_off, st->raw_id, info->nr);
	st->flags = info->flags;
	st->ts = rec->ts;
	return 0;
}

/**
 * ustack_pair_deferred_skipped - the cookie of an event not ours to report
 * @s:		the session
 * @rec:	the user_unwind_cookie record
 * @pid:	its task
 *
 * A task not followed, our own marker, a side-band event: its stack will
 * come and must not count as one that answered nothing.
 */
void ustack_pair_deferred_skipped(struct ustack_session *s, struct tep_record *rec, int pid)
{
	struct ustack_task *t = ustack_tasks_get(&s->tasks, pid);

	if (t)
		t->skipped_cookie = ustack_events_cookie(s->ev, rec);
}

/*
 * A stack answer of (@pid, @cookie) arrives: its entry, or NULL when the
 * answer is skipped (or no memory, the entry then told lost).
 */
static struct ustk *answer_entry(struct ustack_session *s, int pid, uint64_t cookie,
				 uint64_t ts)
{
	s->stats.stacks++;
	if (ustack_pair_answers_skipped(s, pid, cookie))
		return NULL;
	return ustack_pair_stack_entry(s, pid, cookie, ts);
}

/* The answer's frames are in (@filled 0) or could not be (-1: lost) */
static void answer_filled(struct ustack_session *s, struct ustk *st, int filled, uint64_t ts)
{
	if (filled)
		ustack_pair_lose_entry(s, st);
	else
		ustack_pair_stack_arrived(s, st, ts);
}

/**
 * ustack_pair_deferred_copy - a stack copy record
 * @s:		the session
 * @c:		its CPU
 * @rec:	the record
 * @pid:	its task
 *
 * A stack copy answers its cookie in place of the kernel's walk
 * (kernel-abi.md, "Stack copies"). Without an unwinder it answers
 * nothing: the cookie's stack is then told lost, not shown empty.
 */
void ustack_pair_deferred_copy(struct ustack_session *s, struct ucpu *c,
			       struct tep_record *rec, int pid)
{
	struct ustack_copy_rec cp;
	struct ustk *st;

	ustack_pair_forget_last(c);
	if (!s->unw)
		return;
	/* a damaged copy still answers: its stack ends for want of registers */
	if (!ustack_events_copy(s->ev, rec, &cp))
		cp.regs_mask = 0;
	st = answer_entry(s, pid, cp.cookie, rec->ts);
	if (st)
		answer_filled(s, st, ustack_pair_unwind_copy(s, st, rec, &cp), rec->ts);
}

/**
 * ustack_pair_deferred_stack - a user_unwind_stack record
 * @s:		the session
 * @c:		its CPU
 * @rec:	the record
 * @pid:	its task
 *
 * The stack of one kernel entry of @pid: it answers the cookie it names.
 */
void ustack_pair_deferred_stack(struct ustack_session *s, struct ucpu *c,
				struct tep_record *rec, int pid)
{
	struct ustack_stack_rec info;
	struct ustk *st;

	ustack_pair_forget_last(c);
	ustack_events_stack(s->ev, rec, &info);
	st = answer_entry(s, pid, info.cookie, rec->ts);
	if (st)
		answer_filled(s, st, fill_deferred(s, st, rec, &info), rec->ts);
}

/**
 * ustack_pair_deferred_inode - an inode_cache announcement
 * @s:		the session
 * @c:		its CPU
 * @rec:	the record
 *
 * The file a file id names, from now on (rule 3).
 */
void ustack_pair_deferred_inode(struct ustack_session *s, struct ucpu *c,
				struct tep_record *rec)
{
	struct ustack_mapping m;

	ustack_pair_forget_last(c);
	if (ustack_events_inode(s->ev, rec, &m))
		return;
	ustack_map_db_announce(s->maps, &m);
	free(m.path);
	ustack_pair_update_mappings(s);
}
