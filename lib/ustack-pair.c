// SPDX-License-Identifier: LGPL-2.1
/*
 * The pairing core: traced events, unwind cookies, stacks and file
 * announcements paired by the rules of kernel-abi.md ("Rules for user
 * space"), coded once for every stack source. The sources' handlers
 * (ustack-pair-deferred.c, ustack-pair-perf.c, ustack-pair-sync.c) turn
 * their records into the calls below; ustack-session.c dispatches the
 * records and hands the complete samples out.
 *
 * Life of a traced event ("sample"):
 *
 *  1. It is pushed on its CPU's "pending" list, waiting for the cookie the
 *     kernel writes right behind it on the same CPU (rule 1). Interrupts
 *     may nest events between an event and its cookie (E1 E2 C2 C1), so
 *     the list is a small stack: a cookie takes the most recent pending
 *     event of its pid. A ftrace:kernel_stack or ftrace:user_stack record
 *     belongs to the event just before it on the CPU.
 *  2. An event that gets no cookie (kernel thread, exiting task, option
 *     off) is given up as NO_COOKIE when another task's event shows up on
 *     the CPU (no context switch can happen between an event and its
 *     cookie), when more than NEST_MAX events are pending there, or when
 *     hold_ns of trace time have passed.
 *  3. A non-zero cookie makes the sample wait in the (pid, cookie) table
 *     until the stack event with that pid and cookie arrives, from any CPU
 *     (rule 2). All events of one kernel entry share the entry and its
 *     stack.
 *  4. When the stack arrives its ids are bound to inode_cache
 *     announcements (rule 3). If every id has an announcement at or
 *     before the stack the samples go out at once. Otherwise the stack is
 *     held until the feed passes stack ts + hold_ns, because the
 *     announcement may sit in another CPU's buffer with a slightly later
 *     timestamp; then it binds to the earliest later announcement or stays
 *     unresolved.
 *  5. A stack may come before a cookie it answers: a cookie that sorts
 *     after its stack (clock skew), and events raised after the deferred
 *     unwind already ran in that kernel entry (signal delivery, preemption
 *     on the way out, interrupts, frees in the unwind itself) all get the
 *     entry's cookie (kernel-abi.md, rule 2). The kernel writes one stack
 *     per (pid, kernel entry) and the cookie changes with every entry, so
 *     each task keeps its latest stack and a cookie equal to its cookie is
 *     answered by it, however much later it comes.
 *
 * Bounds on waiting cookies (a task may sit in a blocking syscall for
 * minutes, so age alone proves nothing):
 *  - superseded: the kernel runs the deferred unwind of an entry before
 *    the task returns to user space, so once a stack for a *newer* cookie
 *    of the same pid arrives, older cookies of that pid still waiting
 *    hold_ns later will never be answered: they are lost (stack event
 *    dropped, or the task exited and the pid was reused).
 *  - count: at most opts.max_pending events wait; beyond that the oldest
 *    cookie is given up as lost (counted in stats.evicted).
 *  - flush: everything still waiting is lost.
 *
 * Decisions only depend on record timestamps, never on wall time, so
 * feeding the same records (live or from trace.dat) gives the same
 * samples in the same order. Frames get their files from the mappings
 * (ustack-map-db.c), which the session feeds and asks.
 *
 * The object pools live here too: this file makes and frees every
 * sample, stack and timeline node.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack-err.h"
#include "ustack-events.h"
#include "ustack-hash.h"
#include "ustack-list.h"
#include "ustack-map-db.h"
#include "ustack-session-int.h"
#include "ustack-tasks.h"
#include "ustack-unwind.h"

/*
 * The object pools (struct pool): at most POOL_MAX objects of a kind are
 * kept. Not under ASan, whose use-after-free checks need the real free().
 */
#ifdef __SANITIZE_ADDRESS__
#define POOL_MAX	0
#else
#define POOL_MAX	1024
#endif

static void *pool_get(struct pool *p, size_t size)
{
	void *obj = p->free;

	if (!obj)
		return calloc(1, size);
	p->free = *(void **)obj;
	p->nr--;
	memset(obj, 0, size);
	return obj;
}

static void pool_put(struct pool *p, void *obj)
{
	if (!obj)
		return;
	if (p->nr >= POOL_MAX) {
		free(obj);
		return;
	}
	*(void **)obj = p->free;
	p->free = obj;
	p->nr++;
}

static void pool_drain(struct pool *p)
{
	void *obj;

	while ((obj = p->free)) {
		p->free = *(void **)obj;
		free(obj);
	}
	p->nr = 0;
}

/**
 * ustack_pair_drain_pools - free the objects the pools keep
 * @s: the session, at its end
 */
void ustack_pair_drain_pools(struct ustack_session *s)
{
	pool_drain(&s->samples);
	pool_drain(&s->stks);
	pool_drain(&s->nodes);
}

static struct tep_record *record_clone(const struct tep_record *rec)
{
	struct tep_record *r;
	size_t size = rec->size > 0 ? rec->size : 0;

	r = malloc(sizeof(*r) + size);
	if (!r)
		return NULL;
	*r = *rec;
	r->data = r + 1;
	memcpy(r->data, rec->data, size);
	r->ref_count = 1;
	r->locked = 0;
	r->priv = NULL;
	return r;
}

/* ------------------------------------------------------------------ */
/* Stack objects and the (pid, cookie) table                          */
/* ------------------------------------------------------------------ */

static uint64_t key_hash(int pid, uint64_t cookie)
{
	return ustack_hash_u64(cookie ^ ((uint64_t)(unsigned int)pid << 32) ^ (unsigned int)pid);
}

/**
 * ustack_pair_ustk_new - a new stack object
 * @s: the session
 *
 * Returns it with one reference, no frames, in no list or table; NULL
 * when out of memory.
 */
struct ustk *ustack_pair_ustk_new(struct ustack_session *s)
{
	struct ustk *st = pool_get(&s->stks, sizeof(*st));

	if (!st)
		return NULL;
	st->refs = 1;
	ustack_list_init(&st->waiters);
	ustack_list_init(&st->lru);
	ustack_list_init(&st->task);
	return st;
}

static void drop_frames(struct ustack_session *s, struct ustk *st)
{
	struct frame_set *fs = st->set;

	if (!fs) {
		free(st->frames);	/* and the raw arrays after them */
		s->held_bytes -= st->frame_bytes;
	} else if (!--fs->refs) {
		ustack_hash_table_del(&s->frame_sets, &fs->node);
		s->held_bytes -= sizeof(*fs) + fs->nr * sizeof(*fs->frames);
		free(fs);
	}
	st->frame_bytes = 0;
	st->set = NULL;
	st->frames = NULL;
	st->counted = false;
	st->raw_off = st->raw_id = NULL;
	st->how = NULL;
}

/*
 * Once a stack is bound for good its raw arrays are no longer read: its
 * frames go to the set of the same frames (made when there is none), but
 * for an unwound copy's, which keep how each frame was found.
 * Without memory it keeps its own, which is as correct.
 */
static void share_frames(struct ustack_session *s, struct ustk *st)
{
	size_t size = st->nr * sizeof(*st->frames);
	struct ustack_hnode *pos;
	struct frame_set *fs = NULL;
	uint64_t hash;

	/* an unwound stack's frames say how each was found: a set has no room */
	if (!st->nr || st->set || st->how)
		return;
	hash = ustack_hash_mem(st->frames, size, st->nr);
	ustack_hash_table_for_each_hash(&s->frame_sets, pos, hash) {
		fs = ustack_hash_table_entry(pos, struct frame_set, node);
		if (fs->nr == st->nr && !memcmp(fs->frames, st->frames, size))
			break;
		fs = NULL;
	}
	if (!fs) {
		fs = malloc(sizeof(*fs) + size);
		if (!fs)
			return;
		fs->refs = 0;
		fs->nr = st->nr;
		memcpy(fs->frames, st->frames, size);
		if (ustack_hash_table_add(&s->frame_sets, &fs->node, hash)) {
			free(fs);
			return;
		}
		s->held_bytes += sizeof(*fs) + size;
	}
	fs->refs++;
	drop_frames(s, st);
	st->frames = fs->frames;
	st->set = fs;
}

/**
 * ustack_pair_ustk_put - drop a reference to a stack object
 * @s:	the session
 * @st:	the stack (may be NULL); freed with its last reference
 *
 * Not inlined: GCC then follows a put that frees into the caller's next
 * put and warns (use after free), not seeing the reference the caller
 * still holds.
 */
__attribute__((noinline)) void ustack_pair_ustk_put(struct ustack_session *s, struct ustk *st)
{
	if (!st || --st->refs)
		return;
	drop_frames(s, st);
	pool_put(&s->stks, st);
}

static struct ustk *hash_find(const struct ustack_session *s, int pid, uint64_t cookie)
{
	struct ustack_hnode *pos;
	struct ustk *st;

	ustack_hash_table_for_each_hash(&s->stacks, pos, key_hash(pid, cookie)) {
		st = ustack_hash_table_entry(pos, struct ustk, node);
		if (st->pid == pid && st->cookie == cookie)
			return st;
	}
	return NULL;
}

/* The table holds one reference. */
static int hash_insert(struct ustack_session *s, struct ustk *st)
{
	if (ustack_hash_table_add(&s->stacks, &st->node, key_hash(st->pid, st->cookie)))
		return -1;
	st->in_hash = true;
	return 0;
}

static void hash_remove(struct ustack_session *s, struct ustk *st)
{
	if (!st->in_hash)
		return;
	ustack_hash_table_del(&s->stacks, &st->node);
	st->in_hash = false;
	ustack_pair_ustk_put(s, st);
}

/**
 * ustack_pair_timeline_add - something to do with a stack at a deadline
 * @s:		the session
 * @st:		the stack (the timeline takes a reference)
 * @deadline:	trace time; deadlines must be added in feed order
 * @kind:	what to do then
 *
 * Returns 0, or -1 when out of memory.
 */
int ustack_pair_timeline_add(struct ustack_session *s, struct ustk *st,
			     uint64_t deadline, enum tl_kind kind)
{
	struct tl_node *n = pool_get(&s->nodes, sizeof(*n));

	if (!n)
		return -1;
	n->st = ustk_get(st);
	n->deadline = deadline;
	n->kind = kind;
	ustack_list_add_tail(&n->list, &s->timeline);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Completion                                                         */
/* ------------------------------------------------------------------ */

/**
 * ustack_pair_sample_free - free a sample that went out
 * @s:		the session
 * @smp:	the sample (may be NULL)
 */
void ustack_pair_sample_free(struct ustack_session *s, struct usample *smp)
{
	if (!smp)
		return;
	ustack_pair_ustk_put(s, smp->st);
	free(smp->rec);
	free(smp->kframes);
	s->held_bytes -= smp->bytes;
	pool_put(&s->samples, smp);
}

/**
 * ustack_pair_drain_ordered - samples complete at the head of the order
 *	go out, in that order
 * @s: the session (opts.ordered; else the order is empty)
 */
void ustack_pair_drain_ordered(struct ustack_session *s)
{
	struct usample *smp;

	while (!ustack_list_empty(&s->order)) {
		smp = ustack_list_entry(s->order.next, struct usample, order);
		if (!smp->complete)
			break;
		ustack_list_del(&smp->order);
		ustack_pair_out_deliver(s, smp);
		ustack_pair_sample_free(s, smp);
	}
}

/*
 * A complete sample goes out (ustack-pair-out.c) at once, or with
 * opts.ordered once every sample before it in the order is complete.
 */
static void hand_out(struct ustack_session *s, struct usample *smp)
{
	if (s->opts.ordered) {
		ustack_pair_drain_ordered(s);
		return;
	}
	ustack_pair_out_deliver(s, smp);
	ustack_pair_sample_free(s, smp);
}

/**
 * ustack_pair_complete - a sample is complete
 * @s:		the session
 * @smp:	the sample, out of every list but the order (taken over)
 * @status:	how it ends
 */
void ustack_pair_complete(struct ustack_session *s, struct usample *smp,
			  enum ustack_sample_status status)
{
	smp->pub.status = status;
	smp->complete = true;
	hand_out(s, smp);
}

/**
 * ustack_pair_complete_with - a sample is complete with a stack
 * @s:		the session
 * @smp:	the sample (taken over)
 * @st:		its stack (the sample takes a reference)
 * @status:	how it ends
 */
void ustack_pair_complete_with(struct ustack_session *s, struct usample *smp,
			       struct ustk *st, enum ustack_sample_status status)
{
	if (smp->st != st) {
		ustack_pair_ustk_put(s, smp->st);
		smp->st = ustk_get(st);
	}
	st->answered++;
	ustack_pair_complete(s, smp, status);
}

/* Hand out (or lose) every sample waiting on @st. */
static void release_waiters(struct ustack_session *s, struct ustk *st,
			    enum ustack_sample_status status)
{
	struct usample *smp;

	st->nr_waiting = 0;
	while (!ustack_list_empty(&st->waiters)) {
		smp = ustack_list_first_entry(&st->waiters, struct usample, wait);
		ustack_list_del(&smp->wait);
		if (status == USTACK_SAMPLE_LOST)
			ustack_pair_complete(s, smp, status);
		else
			ustack_pair_complete_with(s, smp, st, status);
	}
}

/* ------------------------------------------------------------------ */
/* Binding frames (rule 3, fallback snapshots)                        */
/* ------------------------------------------------------------------ */

/*
 * Why a frame-pointer walk's return address (frame @i of @st) is none: in
 * no executable mapping, or (the file read through the unwinder's
 * symbolizer, where the run has one) after no call instruction;
 * USTACK_UNWIND_OK when it may be
 */
static enum ustack_unwind_err fp_bad(struct ustack_session *s, struct ustk *st, unsigned int i)
{
	const struct ustack_frame *fr = &st->frames[i];
	bool abi32;

	if (fr->id == USTACK_ID_NOMAP && !fr->map)
		return USTACK_UNWIND_E_FP_LEFT;
	if (!fr->map || !s->unw)
		return USTACK_UNWIND_OK;
	/* only a special mapping ([vdso]) is another image for a 32-bit task */
	abi32 = (fr->map->flags & USTACK_MAP_SPECIAL) &&
		ustack_syscall_abi_32bit(ustack_pair_out_abi(s, st));
	if (!ustack_unwind_after_call(s->unw, fr->map, fr->offset, abi32))
		return USTACK_UNWIND_E_FP_NOT_CALL;
	return USTACK_UNWIND_OK;
}

/* The task has run nothing yet: its one frame is the whole stack */
static bool entry_alone(struct ustack_session *s, const struct ustk *st)
{
	return st->nr == 1 && s->unw &&
	       ustack_unwind_at_entry(s->unw, st->frames[0].map, st->frames[0].offset) == 1;
}

/*
 * A frame-pointer walk (no @st->how: the kernel's, whatever the source)
 * through code built without frame pointers reads on through whatever
 * %rbp held: words of data taken for return addresses, ASCII of the
 * stack ("0x7265762f766e6579"). The first return address that is none
 * ends the stack with a frame that says why; the ones after it would be
 * garbage. Only where the mappings are known (the leaf has its file): a
 * process with no snapshot or side-band keeps its frames unresolved, for
 * the reason the summary counts.
 */
static void fp_end(struct ustack_session *s, struct ustk *st)
{
	enum ustack_unwind_err why = USTACK_UNWIND_OK;
	unsigned int i;

	if (!s->opts.fp_check || st->how || !st->nr || !st->frames[0].map)
		return;
	for (i = 1; i < st->nr && !why; i++)
		why = fp_bad(s, st, i);
	if (why)
		st->nr = i - 1;
	else if (!entry_alone(s, st) && ustack_pair_fpexec_no_fp(s, st->tgid))
		why = USTACK_UNWIND_E_FP_NO_FP;
	if (!why)
		return;
	st->unwind_end = ustack_unwind_errcode(why);
	s->stats.unwind_stopped[why]++;
}

/**
 * ustack_pair_bind - a stack's frames get their files from the mappings
 * @s:		the session
 * @st:		the stack, its raw arrays filled in
 * @force:	bind as well as can be now (its hold time is over)
 *
 * Returns true when the binding is final: no later record can change it
 * (the feed is in timestamp order).
 */
bool ustack_pair_bind(struct ustack_session *s, struct ustk *st, bool force)
{
	const struct ustack_map_query q = {
		.tgid = st->tgid, .ts = st->ts, .sync = st->sync,
		.raw_off = st->raw_off, .raw_id = st->raw_id, .nr = st->nr,
		.force = force,
	};
	bool final = ustack_map_db_bind(s->maps, &q, st->frames);

	if (final || force)
		fp_end(s, st);
	return final;
}

/**
 * ustack_pair_fail - the session failed
 * @s:		the session
 * @err:	why (ustack-err.h)
 *
 * The first failure is kept: from then on no sample is handed out (one
 * may lack the stack that could not be kept, and would be shown wrong),
 * and the feed returns it, for the caller to say and stop. Returns -1.
 */
int ustack_pair_fail(struct ustack_session *s, int err)
{
	if (!s->err)
		s->err = err;
	return -1;
}

/* Samples and frames held past opts.mem_budget: the feed stops there */
static bool over_budget(struct ustack_session *s)
{
	if (!s->opts.mem_budget || s->held_bytes <= s->opts.mem_budget)
		return false;
	ustack_pair_fail(s, USTACK_ERR_BUDGET);
	return true;
}

/**
 * ustack_pair_alloc_frames - room for a stack's frames
 * @s:	the session
 * @st:	the stack; frames it had are dropped
 * @nr:	how many
 *
 * One block: the frames, the raw offsets, the raw ids, how each was
 * found. Returns 0, or -1 when out of memory (the session then fails).
 */
int ustack_pair_alloc_frames(struct ustack_session *s, struct ustk *st, unsigned int nr)
{
	size_t each = sizeof(*st->frames) + 2 * sizeof(uint64_t) + 1;

	drop_frames(s, st);
	/* new frames: their files have not been asked the task's ABI */
	st->abi_asked = false;
	st->nr = nr;
	if (!nr)
		return 0;
	st->frames = calloc(nr, each);
	if (!st->frames) {
		st->nr = 0;
		return ustack_pair_fail(s, USTACK_ERR_NOMEM);
	}
	st->frame_bytes = nr * each;
	s->held_bytes += st->frame_bytes;
	st->raw_off = (uint64_t *)(st->frames + nr);
	st->raw_id = st->raw_off + nr;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Waiting cookies                                                    */
/* ------------------------------------------------------------------ */

static void unlink_waiting(struct ustack_session *s, struct ustk *st)
{
	if (ustack_list_empty(&st->lru))
		return;
	ustack_list_del(&st->lru);
	ustack_list_del(&st->task);
	s->nr_waiting -= st->nr_waiting;
	s->stats.pending -= st->nr_waiting;
}

/**
 * ustack_pair_lose_entry - a cookie that will never be answered
 * @s:	the session
 * @st:	its entry: out of the table and the waiting lists, its samples lost
 */
void ustack_pair_lose_entry(struct ustack_session *s, struct ustk *st)
{
	ustk_get(st);
	unlink_waiting(s, st);
	hash_remove(s, st);
	release_waiters(s, st, USTACK_SAMPLE_LOST);
	ustack_pair_ustk_put(s, st);
}

static void evict_oldest(struct ustack_session *s)
{
	struct ustk *st;

	while (s->nr_waiting > s->opts.max_pending && !ustack_list_empty(&s->lru)) {
		st = ustack_list_entry(s->lru.next, struct ustk, lru);
		s->stats.evicted++;
		ustack_pair_lose_entry(s, st);
	}
}

/**
 * ustack_pair_drop_latest - a task's latest stack answers no more cookies
 * @s:	the session
 * @t:	the task; its stack counts unmatched if it answered none
 */
void ustack_pair_drop_latest(struct ustack_session *s, struct ustack_task *t)
{
	if (!t->last)
		return;
	/* A held stack answers its waiting samples when it is released */
	if (!t->last->answered && ustack_list_empty(&t->last->waiters))
		s->stats.unmatched++;
	ustack_pair_ustk_put(s, t->last);
	t->last = NULL;
}

static struct ustk *waiting_entry(struct ustack_session *s, int pid,
				  uint64_t cookie, uint64_t ts)
{
	struct ustack_task *t = ustack_tasks_get(&s->tasks, pid);
	struct ustk *st;

	if (!t)
		return NULL;
	st = ustack_pair_ustk_new(s);
	if (!st)
		return NULL;
	st->pid = pid;
	st->cookie = cookie;
	st->state = USTK_WAITING;
	st->first_ts = ts;
	/* the table takes our reference */
	if (hash_insert(s, st)) {
		ustack_pair_ustk_put(s, st);
		return NULL;
	}
	ustack_list_add_tail(&st->lru, &s->lru);
	ustack_list_add_tail(&st->task, &t->waiting);
	return st;
}

/**
 * ustack_pair_wait_on - a sample waits for a stack
 * @s:		the session
 * @st:		a waiting cookie's entry, or a held stack
 * @smp:	the sample (it takes a reference to @st)
 */
void ustack_pair_wait_on(struct ustack_session *s, struct ustk *st, struct usample *smp)
{
	if (smp->st != st) {
		ustack_pair_ustk_put(s, smp->st);
		smp->st = ustk_get(st);
	}
	ustack_list_add_tail(&smp->wait, &st->waiters);
	if (st->state != USTK_WAITING)
		return;
	st->nr_waiting++;
	s->nr_waiting++;
	s->stats.pending++;
}

/* The stack @pid's kernel entry @cookie already got, if it was the last */
static struct ustk *latest_stack(struct ustack_session *s, int pid,
				 uint64_t cookie)
{
	const struct ustack_task *t = ustack_tasks_find(&s->tasks, pid);

	if (!t || !t->last || t->last->cookie != cookie)
		return NULL;
	return t->last;
}

/*
 * @st is now the latest stack of its task. The one it replaces can answer
 * no more cookies: count it unmatched if it answered none.
 */
static void set_latest(struct ustack_session *s, struct ustk *st)
{
	struct ustack_task *t = ustack_tasks_get(&s->tasks, st->pid);

	if (!t)
		return;
	ustack_pair_drop_latest(s, t);
	t->last = ustk_get(st);
}

/**
 * ustack_pair_attach_cookie - a sample gets its non-zero cookie
 * @s:		the session
 * @smp:	the sample (taken over)
 * @cookie:	the cookie
 *
 * It waits for the stack of its (pid, cookie), or completes with it when
 * it came already (rule 2); lost when out of memory.
 */
void ustack_pair_attach_cookie(struct ustack_session *s, struct usample *smp, uint64_t cookie)
{
	int pid = smp->pub.pid;
	struct ustk *st;

	smp->pub.cookie = cookie;
	st = hash_find(s, pid, cookie);
	if (!st)
		st = latest_stack(s, pid, cookie);
	if (!st)
		st = waiting_entry(s, pid, cookie, smp->pub.ts);
	if (!st) {
		ustack_pair_complete(s, smp, USTACK_SAMPLE_LOST);
		return;
	}
	if (st->state == USTK_FINAL) {
		/* The stack sorted before its cookie (skew): still ours */
		ustack_pair_complete_with(s, smp, st, USTACK_SAMPLE_OK);
		return;
	}
	ustack_pair_wait_on(s, st, smp);
	if (st->state == USTK_WAITING)
		evict_oldest(s);
}

/*
 * A stack for a newer cookie of @pid came: older cookies of the same task
 * can no longer be answered. Give them hold_ns for clock skew first.
 */
static void supersede(struct ustack_session *s, struct ustk *answered)
{
	struct ustack_task *t = ustack_tasks_find(&s->tasks, answered->pid);
	struct ustack_list *pos;
	struct ustk *st;

	if (!t)
		return;
	ustack_list_for_each(pos, &t->waiting) {
		st = ustack_list_entry(pos, struct ustk, task);
		if (st == answered || st->superseded)
			continue;
		if (st->first_ts > answered->first_ts)
			continue;
		st->superseded = true;
		ustack_pair_timeline_add(s, st, s->now + s->opts.hold_ns, TL_SUPERSEDE);
	}
}

/* ------------------------------------------------------------------ */
/* Timeline: held stacks, lingering entries, superseded cookies       */
/* ------------------------------------------------------------------ */

static void expire_stack(struct ustack_session *s, struct ustk *st)
{
	if (st->state == USTK_HELD) {
		ustack_pair_bind(s, st, true);
		st->state = USTK_FINAL;
		release_waiters(s, st, st->sync ? USTACK_SAMPLE_SYNC : USTACK_SAMPLE_OK);
	}
	hash_remove(s, st);
}

static void run_node(struct ustack_session *s, struct tl_node *n)
{
	struct ustk *st = n->st;

	switch (n->kind) {
	case TL_EXPIRE:
		expire_stack(s, st);
		break;
	case TL_SUPERSEDE:
		if (st->state == USTK_WAITING && st->in_hash)
			ustack_pair_lose_entry(s, st);
		break;
	}
	ustack_pair_ustk_put(s, st);
	pool_put(&s->nodes, n);
}

/**
 * ustack_pair_run_timeline - what is due on the timeline
 * @s:		the session
 * @all:	everything, whatever its deadline (the end of data)
 *
 * Deadlines are added in feed order: the list is sorted by them.
 */
void ustack_pair_run_timeline(struct ustack_session *s, bool all)
{
	struct tl_node *n;

	while (!ustack_list_empty(&s->timeline)) {
		n = ustack_list_first_entry(&s->timeline, struct tl_node, list);
		if (!all && n->deadline >= s->now)
			break;
		ustack_list_del(&n->list);
		run_node(s, n);
	}
}

/* ------------------------------------------------------------------ */
/* Per-CPU pending events                                             */
/* ------------------------------------------------------------------ */

/**
 * ustack_pair_get_cpu - the pending events of a CPU
 * @s:		the session
 * @cpu:	the CPU (negative: 0)
 *
 * Returns NULL when out of memory.
 */
struct ucpu *ustack_pair_get_cpu(struct ustack_session *s, int cpu)
{
	struct ucpu *c;
	int nr;

	if (cpu < 0)
		cpu = 0;
	if (cpu < s->nr_cpus)
		return &s->cpus[cpu];
	nr = cpu + 1 > s->nr_cpus * 2 ? cpu + 1 : s->nr_cpus * 2;
	c = realloc(s->cpus, nr * sizeof(*c));
	if (!c)
		return NULL;
	memset(c + s->nr_cpus, 0, (nr - s->nr_cpus) * sizeof(*c));
	s->cpus = c;
	for (; s->nr_cpus < nr; s->nr_cpus++)
		c[s->nr_cpus].skip_pid = -1;
	return &s->cpus[cpu];
}

/**
 * ustack_pair_pend_take - take a pending event off its CPU
 * @c:		the CPU
 * @idx:	its place in @c's pending events
 *
 * Returns the sample, now the caller's.
 */
struct usample *ustack_pair_pend_take(struct ucpu *c, int idx)
{
	struct usample *smp = c->pend[idx];

	memmove(&c->pend[idx], &c->pend[idx + 1], (c->depth - idx - 1) * sizeof(smp));
	c->depth--;
	if (c->last == smp) {
		c->last = NULL;
		c->last_kind = LAST_NONE;
	}
	return smp;
}

/*
 * In a span where the CPU's full buffer may have dropped records
 * (ustack-dropped.c), an event whose cookie did not come may have lost
 * it: that is what it is said to be, not an event without a stack.
 */
static void give_up(struct ustack_session *s, struct ucpu *c, int idx,
		    enum ustack_sample_status status)
{
	if (status == USTACK_SAMPLE_NO_COOKIE && c->drops)
		status = USTACK_SAMPLE_LOST;
	ustack_pair_complete(s, ustack_pair_pend_take(c, idx), status);
}

/**
 * ustack_pair_give_up_cpu - every pending event of a CPU gets no cookie
 * @s:		the session
 * @c:		the CPU
 * @status:	how they end
 */
void ustack_pair_give_up_cpu(struct ustack_session *s, struct ucpu *c,
			     enum ustack_sample_status status)
{
	while (c->depth)
		give_up(s, c, 0, status);
}

/*
 * How far the records of @c have gone, for its events' wait for a cookie.
 * A cookie is written on the event's CPU right behind it, but the task
 * may stall in between (a vCPU the host preempted, steal time): the other
 * CPUs' records then run ahead of it. A recorded file holds the cookie,
 * so there the wait ends by the CPU's own records (or the file's end);
 * live, a CPU whose buffer stays empty must not hold an event forever.
 */
static uint64_t cpu_now(const struct ustack_session *s, const struct ucpu *c)
{
	return s->opts.live ? s->now : c->ts;
}

/**
 * ustack_pair_run_nocookie_timeouts - events that waited too long for a cookie
 * @s:		the session
 * @all:	every pending event, whatever its age (the end of data)
 *
 * Events older than hold_ns that still have no cookie will not get one.
 */
void ustack_pair_run_nocookie_timeouts(struct ustack_session *s, bool all)
{
	uint64_t next = UINT64_MAX, deadline;
	struct ucpu *c;
	int cpu, i;

	if (!all && s->now <= s->nocookie_deadline)
		return;
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		c = &s->cpus[cpu];
		for (i = 0; i < c->depth; ) {
			deadline = c->pend[i]->pub.ts + s->opts.hold_ns;
			if (all || deadline < cpu_now(s, c)) {
				give_up(s, c, i, USTACK_SAMPLE_NO_COOKIE);
				continue;
			}
			if (deadline < next)
				next = deadline;
			i++;
		}
	}
	s->nocookie_deadline = next;
}

/**
 * ustack_pair_forget_last - the last record of a CPU was no traced event
 * @c: the CPU
 *
 * Our events and the stack traces: never a traced event themselves.
 */
void ustack_pair_forget_last(struct ucpu *c)
{
	c->last = NULL;
	c->last_kind = LAST_NONE;
}

/**
 * ustack_pair_top_of_pid - the most recent pending event of a task
 * @c:		the CPU
 * @pid:	the task
 *
 * Returns its place in @c's pending events, or -1 when it has none.
 */
int ustack_pair_top_of_pid(const struct ucpu *c, int pid)
{
	int i;

	for (i = c->depth - 1; i >= 0; i--)
		if (c->pend[i]->pub.pid == pid)
			return i;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Traced events, whatever the source                                 */
/* ------------------------------------------------------------------ */

static bool expects_followers(const struct ustack_session *s)
{
	unsigned int have = ustack_events_have(s->ev);

	if (have & (USTACK_HAVE_COOKIE | USTACK_HAVE_USTACK))
		return true;
	return s->opts.want_kernel && (have & USTACK_HAVE_KSTACK);
}

/**
 * ustack_pair_sample_new - a traced event as a sample that has no stack yet
 * @s:		the session
 * @rec:	the event's record (copied, unless opts.count_only)
 * @pid:	its task
 *
 * Returns the sample, in the order when opts.ordered; NULL when out of
 * memory or past the memory budget (the session then fails).
 */
struct usample *ustack_pair_sample_new(struct ustack_session *s, struct tep_record *rec, int pid)
{
	struct usample *smp;

	s->stats.events++;
	/* records come in time order: the first is the earliest */
	if (!s->seen_event) {
		s->first_event_ts = rec->ts;
		s->seen_event = true;
	}
	if (over_budget(s))
		return NULL;
	smp = pool_get(&s->samples, sizeof(*smp));
	if (!smp) {
		ustack_pair_fail(s, USTACK_ERR_NOMEM);
		return NULL;
	}
	ustack_list_init(&smp->order);
	smp->pub.ts = rec->ts;
	smp->pub.cpu = rec->cpu;
	smp->pub.pid = pid;
	smp->pub.tgid = ustack_tasks_tgid(&s->tasks, pid);
	/* the name at the event, else what saved_cmdlines or /proc said */
	smp->pub.comm = ustack_map_db_comm(s->maps, pid);
	if (!smp->pub.comm)
		smp->pub.comm = tep_data_comm_from_pid(s->tep, pid);
	/* Counted only: nobody reads the record or its format */
	if (!s->opts.count_only) {
		smp->rec = record_clone(rec);
		if (!smp->rec) {
			pool_put(&s->samples, smp);
			ustack_pair_fail(s, USTACK_ERR_NOMEM);
			return NULL;
		}
		smp->bytes = sizeof(*smp->rec) + (rec->size > 0 ? rec->size : 0);
		/*
		 * a raw_syscalls:sys_enter is shown as its call's event; a
		 * 32-bit task's once its stack says so (ustack-pair-out.c)
		 */
		smp->pub.event = ustack_syscalls_event(s->syscalls,
						       tep_find_event(s->tep, tep_data_type(s->tep, rec)),
						       rec, USTACK_SYSCALL_ABI_UNKNOWN);
		smp->pub.record = smp->rec;
	}
	smp->bytes += sizeof(*smp);
	s->held_bytes += smp->bytes;
	smp->pub.status = USTACK_SAMPLE_NO_COOKIE;
	if (s->opts.ordered)
		ustack_list_add_tail(&smp->order, &s->order);
	return smp;
}

/**
 * ustack_pair_event - a traced event of the trace, on its CPU (rule 1)
 * @s:		the session
 * @c:		its CPU
 * @rec:	the record
 * @pid:	its task
 *
 * It waits there for the records that follow it, if any may. Returns 0,
 * or -1 when out of memory or past the memory budget.
 */
int ustack_pair_event(struct ustack_session *s, struct ucpu *c, struct tep_record *rec, int pid)
{
	struct usample *smp;

	/* No context switch between an event and its cookie */
	if (c->depth && c->pend[c->depth - 1]->pub.pid != pid)
		ustack_pair_give_up_cpu(s, c, USTACK_SAMPLE_NO_COOKIE);
	if (c->depth == NEST_MAX)
		give_up(s, c, 0, USTACK_SAMPLE_NO_COOKIE);

	smp = ustack_pair_sample_new(s, rec, pid);
	if (!smp)
		return -1;
	if (!expects_followers(s)) {
		ustack_pair_complete(s, smp, USTACK_SAMPLE_NO_COOKIE);
		return 0;
	}
	c->pend[c->depth++] = smp;
	c->last = smp;
	c->last_kind = LAST_EVENT;
	if (rec->ts + s->opts.hold_ns < s->nocookie_deadline)
		s->nocookie_deadline = rec->ts + s->opts.hold_ns;
	return 0;
}

/**
 * ustack_pair_kstack - an ftrace:kernel_stack record
 * @s:		the session
 * @c:		its CPU
 * @rec:	the record
 * @pid:	its task
 *
 * The kernel frames of the event right before it on @c, if that is an
 * event of @pid (kept when opts.want_kernel).
 */
void ustack_pair_kstack(struct ustack_session *s, struct ucpu *c, struct tep_record *rec,
			int pid)
{
	struct usample *smp = c->last;
	unsigned int nr;

	if (!smp || c->last_kind != LAST_EVENT || smp->pub.pid != pid) {
		ustack_pair_forget_last(c);
		return;
	}
	c->last_kind = LAST_KSTACK;
	if (!s->opts.want_kernel || smp->kframes)
		return;
	nr = ustack_events_kstack(s->ev, rec, NULL, 0);
	if (!nr)
		return;
	smp->kframes = calloc(nr, sizeof(*smp->kframes));
	if (!smp->kframes)
		return;
	smp->pub.kframes = smp->kframes;
	smp->pub.nr_kframes = ustack_events_kstack(s->ev, rec, smp->kframes, nr);
}

/* ------------------------------------------------------------------ */
/* Stacks that answer cookies, whatever the source                    */
/* ------------------------------------------------------------------ */

/**
 * ustack_pair_answers_skipped - a stack answers a skipped event's cookie
 * @s:		the session
 * @pid:	the stack's task
 * @cookie:	its cookie
 *
 * Returns true (once) when it does: the stack is then not ours to use.
 */
bool ustack_pair_answers_skipped(struct ustack_session *s, int pid, uint64_t cookie)
{
	struct ustack_task *t = ustack_tasks_find(&s->tasks, pid);

	if (!t || !cookie || t->skipped_cookie != cookie)
		return false;
	t->skipped_cookie = 0;
	return true;
}

/**
 * ustack_pair_stack_entry - the entry a stack fills
 * @s:		the session
 * @pid:	the stack's task
 * @cookie:	its cookie
 * @ts:		its time
 *
 * The entry of (@pid, @cookie) its samples wait on, else a new one (no
 * cookie yet: it may sort after us, skew, kept a while). NULL for a
 * second answer (the first is kept) or out of memory.
 */
struct ustk *ustack_pair_stack_entry(struct ustack_session *s, int pid, uint64_t cookie,
				     uint64_t ts)
{
	struct ustk *st = hash_find(s, pid, cookie);

	if (st && st->state != USTK_WAITING) {
		s->stats.unmatched++;
		return NULL;
	}
	if (st)
		return st;
	st = ustack_pair_ustk_new(s);
	if (!st)
		return NULL;
	st->pid = pid;
	st->cookie = cookie;
	st->first_ts = ts;
	if (hash_insert(s, st)) {
		ustack_pair_ustk_put(s, st);
		return NULL;
	}
	return st;
}

/**
 * ustack_pair_stack_arrived - a filled stack for a cookie
 * @s:	the session
 * @st:	its entry (ustack_pair_stack_entry()), frames filled in
 * @ts:	the stack's time
 *
 * Binds it and answers its samples, now or when its hold time is over;
 * older cookies of its task are superseded, and it is the task's latest.
 */
void ustack_pair_stack_arrived(struct ustack_session *s, struct ustk *st, uint64_t ts)
{
	if (st->flags & USTACK_STACK_TRUNCATED)
		s->stats.truncated++;
	unlink_waiting(s, st);
	supersede(s, st);
	set_latest(s, st);
	st->state = ustack_pair_bind(s, st, false) ? USTK_FINAL : USTK_HELD;
	ustack_pair_timeline_add(s, st, ts + s->opts.hold_ns, TL_EXPIRE);
	if (st->state == USTK_FINAL) {
		share_frames(s, st);
		release_waiters(s, st, USTACK_SAMPLE_OK);
	}
}

/* ------------------------------------------------------------------ */
/* What records tell of mappings and tasks, whatever the source       */
/* ------------------------------------------------------------------ */

/**
 * ustack_pair_update_mappings - the mappings changed
 * @s: the session
 *
 * Counts the announcements stored plus the distinct files named by
 * snapshots or the side-band, and makes the perf source's memo stale.
 */
void ustack_pair_update_mappings(struct ustack_session *s)
{
	s->maps_gen++;
	s->stats.mappings = ustack_map_db_files(s->maps);
}

/**
 * ustack_pair_learn_name - a task's name from a task event of the instance
 * @s:		the session
 * @rec:	any record (nothing happens unless it is one)
 *
 * Names from the task events of the instance (the deferred path, or a
 * fallback without the side-band): task_newtask names a new task after
 * its parent, task_rename tells exec and prctl(PR_SET_NAME).
 */
void ustack_pair_learn_name(struct ustack_session *s, const struct tep_record *rec)
{
	char comm[32];
	int pid;

	if (ustack_events_task_comm(s->ev, rec, &pid, comm, sizeof(comm)) && pid > 0)
		ustack_map_db_set_comm(s->maps, pid, comm);
}

/**
 * ustack_pair_learn - live, what /proc says about a task
 * @s:		the session
 * @rec:	a record of the task
 * @pid:	the task
 *
 * And the tasks it creates (task_newtask). Nothing unless opts.live.
 */
void ustack_pair_learn(struct ustack_session *s, const struct tep_record *rec, int pid)
{
	bool thread;
	int child;

	if (!s->opts.live)
		return;
	ustack_tasks_learn(&s->tasks, pid);
	if (ustack_events_newtask(s->ev, rec, &child, &thread))
		ustack_tasks_newtask(&s->tasks, pid, child, thread);
}
