// SPDX-License-Identifier: LGPL-2.1
/*
 * The perf stack source's records (ustack-perf-source.c), which come through
 * the side-band: each sample is a traced event and its user stack in one
 * record (a frame-pointer chain, a stack copy unwound by
 * ustack-pair-unwind.c, or a cookie whose chain comes later deferred),
 * and the deferred chains that answer those cookies. A thread's last
 * frame-pointer stack is kept (the memo): a traced event in a loop
 * repeats it, and mapping it again would give the same frames.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack-array.h"
#include "ustack-events.h"
#include "ustack-map-db.h"
#include "ustack-perf-source.h"
#include "ustack-session-int.h"
#include "ustack-tasks.h"
#include "ustack-unwind.h"

static int perf_kframes(struct usample *smp, const struct ustack_perf_source_stack *cs)
{
	if (!cs->nr_kernel)
		return 0;
	smp->kframes = malloc(cs->nr_kernel * sizeof(*smp->kframes));
	if (!smp->kframes)
		return -1;
	memcpy(smp->kframes, cs->kernel, cs->nr_kernel * sizeof(*smp->kframes));
	smp->pub.kframes = smp->kframes;
	smp->pub.nr_kframes = cs->nr_kernel;
	return 0;
}

static int fill_perf(struct ustack_session *s, struct ustk *st,
		     const struct ustack_perf_source_stack *cs)
{
	unsigned int i;

	if (ustack_pair_alloc_frames(s, st, cs->nr_user))
		return -1;
	for (i = 0; i < cs->nr_user; i++) {
		st->raw_off[i] = cs->user[i];
		st->raw_id[i] = USTACK_ID_NOMAP;
	}
	if (cs->truncated) {
		st->flags |= USTACK_STACK_TRUNCATED;
		s->stats.truncated++;
	}
	return 0;
}

static int fill_sample(struct ustack_session *s, struct ustk *st, const struct ustack_sb_rec *sb,
		       const struct ustack_perf_source_stack *cs, int tgid)
{
	if (sb->regs_mask && s->unw)
		return ustack_pair_unwind_dwarf(s, st, sb, tgid);
	return fill_perf(s, st, cs);
}

/* A deferred stack will come for a skipped sample: it is not unanswered */
static void perf_skipped(struct ustack_session *s, int pid, uint64_t cookie)
{
	struct ustack_task *t;

	if (!cookie)
		return;
	t = ustack_tasks_get(&s->tasks, pid);
	if (t)
		t->skipped_cookie = cookie;
}

/**
 * ustack_pair_perf_deferred - the deferred user chain of perf samples
 * @s:	the session
 * @sb:	the side-band record (PERF_RECORD_CALLCHAIN_DEFERRED)
 *
 * Virtual addresses, mapped through the side-band as a synchronous chain
 * is, answering the samples of its task that carry its cookie. Returns 0,
 * or -1 when out of memory.
 */
int ustack_pair_perf_deferred(struct ustack_session *s, const struct ustack_sb_rec *sb)
{
	struct ustk *st;
	unsigned int i;

	s->stats.stacks++;
	if (ustack_pair_answers_skipped(s, sb->tid, sb->cookie))
		return 0;
	st = ustack_pair_stack_entry(s, sb->tid, sb->cookie, sb->ts);
	if (!st)
		return 0;
	if (ustack_pair_alloc_frames(s, st, sb->nr_chain)) {
		ustack_pair_lose_entry(s, st);
		return -1;
	}
	for (i = 0; i < sb->nr_chain; i++) {
		st->raw_off[i] = sb->chain[i];
		st->raw_id[i] = USTACK_ID_NOMAP;
	}
	st->sync = true;
	st->tgid = sb->pid;
	st->ts = sb->ts;
	st->flags = sb->cut ? USTACK_STACK_TRUNCATED : 0;
	ustack_pair_stack_arrived(s, st, sb->ts);
	return 0;
}

static struct perf_memo *memo_slot(struct ustack_session *s, int tid)
{
	return &s->memo[(unsigned int)tid % MEMO_SLOTS];
}

/* The stack of @tid's last sample, if this one's is the same and still maps alike */
static struct ustk *memo_find(struct ustack_session *s, int tid, int tgid,
			      const struct ustack_perf_source_stack *cs)
{
	struct perf_memo *m = memo_slot(s, tid);

	if (!m->st || m->tid != tid || m->tgid != tgid || m->gen != s->maps_gen ||
	    m->truncated != cs->truncated || m->nr != cs->nr_user ||
	    (cs->nr_user && memcmp(m->user, cs->user, cs->nr_user * sizeof(*cs->user))))
		return NULL;
	return m->st;
}

static void memo_drop(struct ustack_session *s, struct perf_memo *m)
{
	ustack_pair_ustk_put(s, m->st);
	m->st = NULL;
	m->tid = 0;
}

/* @st, mapped for good through the side-band, is @tid's last stack */
static void memo_keep(struct ustack_session *s, int tid, int tgid,
		      const struct ustack_perf_source_stack *cs, struct ustk *st)
{
	struct perf_memo *m = memo_slot(s, tid);

	memo_drop(s, m);
	if (st->state != USTK_FINAL || !ustack_map_db_by_sideband(s->maps) || !cs->nr_user ||
	    ustack_array_grow((void **)&m->user, &m->alloc, cs->nr_user, sizeof(*m->user)))
		return;
	memcpy(m->user, cs->user, cs->nr_user * sizeof(*cs->user));
	m->nr = cs->nr_user;
	m->tid = tid;
	m->tgid = tgid;
	m->gen = s->maps_gen;
	m->truncated = cs->truncated;
	m->st = ustk_get(st);
}

/**
 * ustack_pair_perf_memo_release - forget the last stack of every thread
 * @s: the session, at the end of data
 */
void ustack_pair_perf_memo_release(struct ustack_session *s)
{
	size_t i;

	for (i = 0; i < MEMO_SLOTS; i++) {
		memo_drop(s, &s->memo[i]);
		free(s->memo[i].user);
		s->memo[i].user = NULL;
		s->memo[i].alloc = 0;
	}
}

/* A repeated walk that ended in "[unwind: ...]" is counted as its first was */
static void count_unwind_end(struct ustack_session *s, const struct ustk *st)
{
	int why;

	if (!st->unwind_end)
		return;
	for (why = USTACK_UNWIND_OK + 1; why < USTACK_UNWIND_E_NR; why++)
		if (ustack_unwind_errcode(why) == st->unwind_end) {
			s->stats.unwind_stopped[why]++;
			return;
		}
}

/*
 * A frame-pointer chain as its thread's last one, nothing remapped since:
 * the same frames, without mapping them again (counted as fill_perf() does)
 */
static bool perf_repeat(struct ustack_session *s, struct usample *smp,
			const struct ustack_perf_source_stack *cs, int tid, int tgid)
{
	struct ustk *st = memo_find(s, tid, tgid, cs);

	if (!st)
		return false;
	if (cs->truncated)
		s->stats.truncated++;
	count_unwind_end(s, st);
	ustack_pair_complete_with(s, smp, st, USTACK_SAMPLE_SYNC);
	return true;
}

/**
 * ustack_pair_perf_sample - a sample of the perf stack source
 * @s:	the session
 * @sb:	the side-band record
 *
 * The event (its payload is a tracefs record's data) and its synchronous
 * stack in one record, so nothing has to wait for a follower; or, with a
 * cookie, the event alone, its stack deferred. Its task's thread group
 * comes with it. Returns 0, or -1 when out of memory or past the memory
 * budget.
 */
int ustack_pair_perf_sample(struct ustack_session *s, const struct ustack_sb_rec *sb)
{
	struct ustack_perf_source_stack cs;
	struct tep_record rec = { 0 };
	struct usample *smp;
	struct ustk *st;
	int pid, tgid;
	bool fp;

	/* a process given stack copies at its exec: one stack an event */
	if (s->fpexec_twins && ustack_pair_fpexec_twin(s, sb))
		return 0;
	rec.ts = sb->ts;
	rec.cpu = sb->cpu;
	rec.size = sb->raw_size;
	rec.data = (void *)sb->raw;
	if (ustack_events_classify(s->ev, &rec) != USTACK_REC_EVENT)
		return 0;
	pid = ustack_events_pid(s->ev, &rec);
	ustack_pair_learn(s, &rec, pid);
	ustack_pair_learn_name(s, &rec);
	ustack_perf_source_stack(sb, s->opts.perf_max_stack, &cs);
	if (ustack_tasks_skip(&s->tasks, pid)) {
		perf_skipped(s, pid, cs.cookie);
		return 0;
	}
	smp = ustack_pair_sample_new(s, &rec, pid);
	if (!smp)
		return -1;
	s->stats.perf++;
	if (s->opts.want_kernel)
		perf_kframes(smp, &cs);
	/* deferred: the stack comes later, paired by cookie as tracefs' are */
	if (cs.cookie) {
		s->stats.cookies++;
		ustack_pair_attach_cookie(s, smp, cs.cookie);
		return 0;
	}
	tgid = sb->pid > 0 ? sb->pid : pid;
	fp = !(sb->regs_mask && s->unw);
	if (fp && perf_repeat(s, smp, &cs, sb->tid, tgid))
		return 0;
	st = ustack_pair_ustk_new(s);
	if (!st || fill_sample(s, st, sb, &cs, tgid)) {
		ustack_pair_ustk_put(s, st);
		ustack_pair_complete(s, smp, USTACK_SAMPLE_NO_COOKIE);
		return -1;
	}
	ustk_get(st);
	ustack_pair_sync_stack(s, smp, st, tgid, rec.ts);
	if (fp)
		memo_keep(s, sb->tid, tgid, &cs, st);
	ustack_pair_ustk_put(s, st);
	return 0;
}
