// SPDX-License-Identifier: LGPL-2.1
/*
 * The userstacktrace (synchronous) stack source's records: the
 * ftrace:user_stack record the kernel writes right behind a traced event
 * on its CPU, with the event's user addresses, and the binding of such a
 * synchronous stack, which the perf source's own stacks share.
 *
 * Synchronous stacks carry raw addresses. They are mapped when their
 * record is fed, through the perf side-band (ustack-map-history.c) when there
 * is one: its records are fed in time order with the trace (live by the
 * reader, from a trace.dat as print records of the top buffer), so the
 * history then holds the mappings the process had at the event, and
 * nothing later can change the answer. Without it they go through the
 * /proc maps snapshot at or before the event, else the earliest after it
 * (held up to hold_ns for one to come). Names, on both paths, are the
 * task's at the event: the side-band's, or those of the instance's
 * task_newtask and task_rename events; else what libtraceevent knows
 * (saved_cmdlines, /proc when live).
 */
#include <event-parse.h>

#include "ustack-events.h"
#include "ustack-session-int.h"
#include "ustack-tasks.h"

static int fill_sync(struct ustack_session *s, struct ustk *st, struct tep_record *rec)
{
	unsigned int i, n = ustack_events_ustack(s->ev, rec, NULL, 0);

	if (ustack_pair_alloc_frames(s, st, n))
		return -1;
	ustack_events_ustack(s->ev, rec, st->raw_off, n);
	for (i = 0; i < n; i++)
		st->raw_id[i] = USTACK_ID_NOMAP;
	/* the kernel cuts at the size of caller[] without a word */
	if (ustack_events_ustack_full(s->ev, rec)) {
		st->flags |= USTACK_STACK_TRUNCATED;
		s->stats.truncated++;
	}
	return 0;
}

/**
 * ustack_pair_sync_stack - a synchronous stack for a sample
 * @s:		the session
 * @smp:	the sample (taken over)
 * @st:		the stack, its raw addresses filled in (taken over)
 * @tgid:	the thread group whose mappings it goes through
 * @rec_ts:	the time of the record that brought it
 *
 * Mapped now, or held until a maps snapshot at or before the event may
 * come.
 */
void ustack_pair_sync_stack(struct ustack_session *s, struct usample *smp, struct ustk *st,
			    int tgid, uint64_t rec_ts)
{
	st->sync = true;
	st->pid = smp->pub.pid;
	st->tgid = tgid;
	st->ts = smp->pub.ts;
	if (ustack_pair_bind(s, st, false)) {
		st->state = USTK_FINAL;
		ustack_pair_complete_with(s, smp, st, USTACK_SAMPLE_SYNC);
	} else {
		/* No snapshot at or before the event yet: one may come */
		st->state = USTK_HELD;
		ustack_pair_wait_on(s, st, smp);
		ustack_pair_timeline_add(s, st, rec_ts + s->opts.hold_ns, TL_EXPIRE);
	}
	ustack_pair_ustk_put(s, st);
}

/**
 * ustack_pair_sync_ustack - an ftrace:user_stack record
 * @s:		the session
 * @c:		its CPU
 * @rec:	the record
 * @pid:	its task
 *
 * The user stack of the event right before it on @c (or before that
 * event's kernel stack), if that is an event of @pid.
 */
void ustack_pair_sync_ustack(struct ustack_session *s, struct ucpu *c,
			     struct tep_record *rec, int pid)
{
	struct usample *smp = c->last;
	struct ustk *st;
	int tgid, idx;

	if (!smp || c->last_kind == LAST_NONE || smp->pub.pid != pid) {
		ustack_pair_forget_last(c);
		s->stats.unmatched++;
		return;
	}
	ustack_pair_forget_last(c);
	idx = ustack_pair_top_of_pid(c, pid);
	if (idx < 0 || c->pend[idx] != smp)
		return;
	ustack_pair_pend_take(c, idx);
	tgid = ustack_events_ustack_tgid(s->ev, rec);
	if (tgid && !smp->pub.tgid)
		smp->pub.tgid = tgid;
	if (tgid && pid)
		ustack_tasks_set_tgid(&s->tasks, pid, tgid);

	st = ustack_pair_ustk_new(s);
	if (!st || fill_sync(s, st, rec)) {
		ustack_pair_ustk_put(s, st);
		ustack_pair_complete(s, smp, USTACK_SAMPLE_NO_COOKIE);
		return;
	}
	ustack_pair_sync_stack(s, smp, st, tgid ? tgid : pid, rec->ts);
}
