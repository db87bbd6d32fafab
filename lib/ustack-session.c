// SPDX-License-Identifier: LGPL-2.1
/*
 * Pairing of traced events, unwind cookies, deferred user stacks and file
 * announcements (kernel-abi.md, "Rules for user space").
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
 * Output order: by default a sample is handed out as soon as it is
 * complete (what live output wants). Decisions only depend on record
 * timestamps, never on wall time, so feeding the same records (live or
 * from trace.dat) gives the same samples in the same order. With
 * opts.ordered samples are handed out in feed (event timestamp) order.
 *
 * Frames get their files from the mappings (ustack-mapdb.c), which the
 * session feeds and asks. Fallback (synchronous) stacks carry raw
 * addresses. They are mapped when their ftrace:user_stack record is fed,
 * through the perf side-band (ustack-history.c) when there is one: its records are fed in time order
 * with the trace (live by the reader, from a trace.dat as print records of
 * the top buffer), so the history then holds the mappings the process had
 * at the event, and nothing later can change the answer. Without it they
 * go through the /proc maps snapshot at or before the event, else the
 * earliest after it (held up to hold_ns for one to come). Names, on both
 * paths, are the task's at the event: the side-band's, or those of the
 * instance's task_newtask and task_rename events; else what libtraceevent
 * knows (saved_cmdlines, /proc when live).
 *
 * What is not shown: our own records (maps and info markers, the helper
 * events a capture enabled) and, once thread groups are followed, events
 * of tasks known to be in another group. Such an event is skipped with
 * what the kernel wrote right behind it (rule 1 again: its cookie and
 * stack traces). The pid and comm filters act when a sample goes out,
 * when its thread group is known; filtered samples still count.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack-array.h"
#include "ustack-dwarf.h"
#include "ustack-err.h"
#include "ustack-events.h"
#include "ustack-filter.h"
#include "ustack-hash.h"
#include "ustack-list.h"
#include "ustack-mapdb.h"
#include "ustack-perfsrc.h"
#include "ustack-session.h"
#include "ustack-sideband.h"
#include "ustack-tasks.h"
#include "ustack-warn.h"

/* task, softirq, hardirq, NMI: at most 4 legitimately nest; keep margin */
#define NEST_MAX	8

/*
 * Freed objects of one kind kept for the next: a session makes and frees
 * a sample, a stack and a timeline node for about every event. At most
 * POOL_MAX are kept. Not under ASan, whose use-after-free checks need
 * the real free().
 */
#ifdef __SANITIZE_ADDRESS__
#define POOL_MAX	0
#else
#define POOL_MAX	1024
#endif

struct pool {
	void		*free;		/* linked through each object's first word */
	size_t		nr;
};

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

/* ------------------------------------------------------------------ */
/* Data                                                               */
/* ------------------------------------------------------------------ */

enum ustk_state {
	USTK_WAITING,		/* cookie seen, no stack yet */
	USTK_HELD,		/* stack seen, some id not announced yet */
	USTK_FINAL,		/* stack seen and bound */
};

struct usample;

/*
 * The frames of bound stacks, shared by the stacks that have the same. A
 * stack is kept hold_ns after it came (for cookies that sort after it),
 * so at a high event rate thousands are kept; they repeat a few call
 * paths, and sharing makes their memory follow the distinct stacks, not
 * the rate.
 */
struct frame_set {
	struct ustack_hnode	node;		/* session.frame_sets */
	unsigned int		refs;
	unsigned int		nr;
	struct ustack_frame	frames[];
};

/*
 * One kernel entry of one task: (pid, cookie), the samples waiting for
 * it and, once it came, its stack. Fallback (synchronous) stacks use the
 * same object outside the table.
 */
struct ustk {
	struct ustack_hnode	node;		/* the (pid, cookie) table */
	int			pid;
	uint64_t		cookie;
	enum ustk_state		state;
	bool			sync;
	bool			in_hash;
	bool			superseded;
	int			refs;
	int			tgid;		/* sync: for the snapshot */
	uint64_t		first_ts;	/* first waiting event */
	uint64_t		ts;		/* stack (sync: event) time */
	uint32_t		flags;
	unsigned int		nr;
	uint64_t		*raw_off;
	uint64_t		*raw_id;
	uint8_t			*how;		/* unwound: enum ustack_unwind_how */
	size_t			frame_bytes;	/* of its own frames, held */
	int			unwind_end;	/* unwound: why it ended (ustack-err.h) */
	struct ustack_frame	*frames;
	struct frame_set	*set;		/* frames shared, or NULL: own */
	/*
	 * Of the frames of a final stack, those without a mapping, once
	 * @counted: a perf source's repeated stack completes sample after
	 * sample, and its frames were counted for each
	 */
	unsigned int		unresolved;
	bool			counted;
	uint64_t		answered;	/* samples it completed */
	struct ustack_list	waiters;	/* struct usample.wait */
	size_t			nr_waiting;
	struct ustack_list	lru;		/* session waiting list */
	struct ustack_list	task;		/* waiting list of its pid */
};

/*
 * The last synchronous perf stack of a thread, kept while no mapping
 * changed (@gen): a traced event in a loop repeats its stack, and mapping
 * it again gives the same frames. Slots taken by tid.
 */
#define MEMO_SLOTS	64

struct perf_memo {
	int			tid;		/* 0: empty */
	int			tgid;
	uint64_t		gen;
	bool			truncated;
	unsigned int		nr;
	uint64_t		*user;		/* the chain's user addresses */
	size_t			alloc;
	struct ustk		*st;		/* one reference */
};

struct usample {
	struct ustack_sample	pub;
	struct tep_record	*rec;		/* private copy */
	uint64_t		*kframes;
	struct ustk		*st;
	struct ustack_list	wait;		/* struct ustk.waiters */
	struct ustack_list	order;
	bool			complete;
	size_t			bytes;		/* counted in session.held_bytes */
};

enum last_kind {
	LAST_NONE,
	LAST_EVENT,		/* the previous record on the CPU was an event */
	LAST_KSTACK,		/* ... its kernel stack */
};

/*
 * @skip_pid: the last event on the CPU was skipped (ours, or a task not
 * followed): the cookie and stack traces of that pid right behind it go
 * too; -1 when not skipping.
 */
struct ucpu {
	struct usample		*pend[NEST_MAX];
	int			depth;
	struct usample		*last;
	enum last_kind		last_kind;
	int			skip_pid;
	uint64_t		ts;		/* its newest record fed so far */
};

enum tl_kind {
	TL_EXPIRE,		/* stack: bind for good, leave the table */
	TL_SUPERSEDE,		/* waiting cookie: lost if still waiting */
};

struct tl_node {
	struct ustack_list	list;
	struct ustk		*st;
	uint64_t		deadline;
	enum tl_kind		kind;
};

struct ustack_session {
	struct tep_handle		*tep;
	struct ustack_events		*ev;
	struct ustack_session_opts	opts;
	ustack_sample_fn		fn;
	void				*ctx;

	struct ustack_mapdb		*maps;
	struct ustack_sb_prev		*sb_prev;	/* a trace.dat's repeated samples */
	struct ustack_tasks		tasks;

	struct ucpu			*cpus;
	int				nr_cpus;

	struct ustack_htable		stacks;		/* struct ustk by (pid, cookie) */
	struct ustack_htable		frame_sets;	/* struct frame_set by frames */

	struct ustack_list		lru;
	size_t				nr_waiting;

	struct ustack_list		timeline;	/* struct tl_node by deadline */

	struct ustack_list		order;

	uint64_t			now;
	uint64_t			nocookie_deadline;
	uint64_t			first_event_ts;	/* for opts.filter's times */
	bool				seen_event;
	struct ustack_stats		stats;
	struct pool			samples;	/* struct usample */
	struct pool			stks;		/* struct ustk */
	struct pool			nodes;		/* struct tl_node */

	/* --call-graph=dwarf samples (ustack_session_set_unwinder()) */
	struct ustack_unwinder		*unw;
	struct ustack_uframe		*uframes;
	size_t				uframes_alloc;
	uint8_t				*used;		/* words the last unwind read */
	size_t				used_alloc;
	bool				used_set;
	unsigned int			used_cut;	/* ... the limit it stopped at */

	uint64_t			maps_gen;	/* bumped at each mapping change */
	struct perf_memo		memo[MEMO_SLOTS];

	/* samples and frames held, against opts.mem_budget */
	size_t				held_bytes;
	int				err;		/* the first failure, sticky */
};

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

static struct ustk *ustk_new(struct ustack_session *s)
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

static struct ustk *ustk_get(struct ustk *st)
{
	st->refs++;
	return st;
}

static void drop_frames(struct ustack_session *s, struct ustk *st)
{
	struct frame_set *fs = st->set;

	if (!fs) {
		free(st->frames);	/* and the raw arrays after them */
		s->held_bytes -= st->frame_bytes;
	} else if (!--fs->refs) {
		ustack_htable_del(&s->frame_sets, &fs->node);
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
	ustack_htable_for_each_hash(&s->frame_sets, pos, hash) {
		fs = ustack_htable_entry(pos, struct frame_set, node);
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
		if (ustack_htable_add(&s->frame_sets, &fs->node, hash)) {
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

/*
 * Not inlined: GCC then follows a put that frees into the caller's next
 * put and warns (use after free), not seeing the reference the caller
 * still holds.
 */
static __attribute__((noinline)) void ustk_put(struct ustack_session *s, struct ustk *st)
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

	ustack_htable_for_each_hash(&s->stacks, pos, key_hash(pid, cookie)) {
		st = ustack_htable_entry(pos, struct ustk, node);
		if (st->pid == pid && st->cookie == cookie)
			return st;
	}
	return NULL;
}

/* The table holds one reference. */
static int hash_insert(struct ustack_session *s, struct ustk *st)
{
	if (ustack_htable_add(&s->stacks, &st->node, key_hash(st->pid, st->cookie)))
		return -1;
	st->in_hash = true;
	return 0;
}

static void hash_remove(struct ustack_session *s, struct ustk *st)
{
	if (!st->in_hash)
		return;
	ustack_htable_del(&s->stacks, &st->node);
	st->in_hash = false;
	ustk_put(s, st);
}

static int timeline_add(struct ustack_session *s, struct ustk *st,
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
/* Handing samples out                                                */
/* ------------------------------------------------------------------ */

static void sample_free(struct ustack_session *s, struct usample *smp)
{
	if (!smp)
		return;
	ustk_put(s, smp->st);
	free(smp->rec);
	free(smp->kframes);
	s->held_bytes -= smp->bytes;
	pool_put(&s->samples, smp);
}

static unsigned int count_unresolved(const struct ustack_frame *frames, unsigned int nr)
{
	unsigned int i, n = 0;

	for (i = 0; i < nr; i++)
		if (!frames[i].map)
			n++;
	return n;
}

/* @st: the sample's stack, or NULL; a final one's frames no longer change */
static void count_sample(struct ustack_session *s, const struct ustack_sample *pub,
			 struct ustk *st)
{
	switch (pub->status) {
	case USTACK_SAMPLE_OK:
		s->stats.matched++;
		break;
	case USTACK_SAMPLE_NO_STACK:
		s->stats.no_stack++;
		break;
	case USTACK_SAMPLE_LOST:
		s->stats.lost++;
		break;
	case USTACK_SAMPLE_NO_COOKIE:
		s->stats.no_cookie++;
		break;
	case USTACK_SAMPLE_SYNC:
		s->stats.sync++;
		break;
	}
	s->stats.frames += pub->nr_frames;
	if (!st || st->state != USTK_FINAL || pub->frames != st->frames) {
		s->stats.unresolved += count_unresolved(pub->frames, pub->nr_frames);
		return;
	}
	if (!st->counted) {
		st->unresolved = count_unresolved(st->frames, st->nr);
		st->counted = true;
	}
	s->stats.unresolved += st->unresolved;
}

static bool pid_listed(const struct ustack_session_opts *opts, int pid, int tgid)
{
	size_t i;

	for (i = 0; i < opts->nr_pids; i++)
		if (opts->pids[i] == pid || (tgid && opts->pids[i] == tgid))
			return true;
	return false;
}

static bool comm_listed(const struct ustack_session_opts *opts, const char *comm)
{
	size_t i;

	if (!comm)
		return false;
	for (i = 0; i < opts->nr_comms; i++)
		if (!strcmp(opts->comms[i], comm))
			return true;
	return false;
}

/*
 * The pid and comm filters, then the others of opts.filter (events,
 * threads, files, times): by the time a sample goes out, its group is
 * known and its frames are bound to their files.
 */
static bool sample_wanted(const struct ustack_session *s, const struct ustack_sample *pub)
{
	const struct ustack_session_opts *opts = &s->opts;

	if (opts->nr_pids && !pid_listed(opts, pub->pid, pub->tgid))
		return false;
	if (opts->nr_comms && !comm_listed(opts, pub->comm))
		return false;
	return ustack_filter_match(opts->filter, pub, s->first_event_ts);
}

/* Counted whether or not the filters let it through. */
static void deliver(struct ustack_session *s, struct usample *smp)
{
	struct ustack_sample *pub = &smp->pub;
	struct ustk *st = smp->st;

	/* the thread group may have been learnt after the event */
	if (!pub->tgid)
		pub->tgid = ustack_tasks_tgid(&s->tasks, pub->pid);
	if (st && (pub->status == USTACK_SAMPLE_OK || pub->status == USTACK_SAMPLE_SYNC)) {
		pub->nr_frames = st->nr;
		pub->frames = st->frames;
		pub->stack_flags = st->flags;
		pub->frame_how = st->how;
		pub->unwind_end = st->unwind_end;
	}
	count_sample(s, pub, st);
	/* after a failure the samples may lack what was not kept: none goes out */
	if (!s->fn || s->opts.count_only || s->err)
		return;
	if (sample_wanted(s, pub))
		s->fn(pub, s->ctx);
	else
		s->stats.filtered++;
}

static void drain_ordered(struct ustack_session *s)
{
	struct usample *smp;

	while (!ustack_list_empty(&s->order)) {
		smp = ustack_list_entry(s->order.next, struct usample, order);
		if (!smp->complete)
			break;
		ustack_list_del(&smp->order);
		deliver(s, smp);
		sample_free(s, smp);
	}
}

static void complete(struct ustack_session *s, struct usample *smp,
		     enum ustack_sample_status status)
{
	smp->pub.status = status;
	smp->complete = true;
	if (s->opts.ordered) {
		drain_ordered(s);
		return;
	}
	deliver(s, smp);
	sample_free(s, smp);
}

static void complete_with(struct ustack_session *s, struct usample *smp,
			  struct ustk *st, enum ustack_sample_status status)
{
	if (smp->st != st) {
		ustk_put(s, smp->st);
		smp->st = ustk_get(st);
	}
	st->answered++;
	complete(s, smp, status);
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
			complete(s, smp, status);
		else
			complete_with(s, smp, st, status);
	}
}

/* ------------------------------------------------------------------ */
/* Binding frames (rule 3, fallback snapshots)                        */
/* ------------------------------------------------------------------ */

/*
 * The mappings answer: true when the binding is final, no later record
 * can change it (the feed is in timestamp order).
 */
static bool bind_stack(struct ustack_session *s, struct ustk *st, bool force)
{
	const struct ustack_map_query q = {
		.tgid = st->tgid, .ts = st->ts, .sync = st->sync,
		.raw_off = st->raw_off, .raw_id = st->raw_id, .nr = st->nr,
		.force = force,
	};

	return ustack_mapdb_bind(s->maps, &q, st->frames);
}

/*
 * The first failure is kept: from then on no sample is handed out (one
 * may lack the stack that could not be kept, and would be shown wrong),
 * and the feed returns it, for the caller to say and stop.
 */
static int session_fail(struct ustack_session *s, int err)
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
	session_fail(s, USTACK_ERR_BUDGET);
	return true;
}

/* One block: the frames, the raw offsets, the raw ids, how each was found */
static int stack_alloc_frames(struct ustack_session *s, struct ustk *st, unsigned int nr)
{
	size_t each = sizeof(*st->frames) + 2 * sizeof(uint64_t) + 1;

	drop_frames(s, st);
	st->nr = nr;
	if (!nr)
		return 0;
	st->frames = calloc(nr, each);
	if (!st->frames) {
		st->nr = 0;
		return session_fail(s, USTACK_ERR_NOMEM);
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

/* A cookie that will never be answered: its samples are lost. */
static void lose_entry(struct ustack_session *s, struct ustk *st)
{
	ustk_get(st);
	unlink_waiting(s, st);
	hash_remove(s, st);
	release_waiters(s, st, USTACK_SAMPLE_LOST);
	ustk_put(s, st);
}

static void evict_oldest(struct ustack_session *s)
{
	struct ustk *st;

	while (s->nr_waiting > s->opts.max_pending && !ustack_list_empty(&s->lru)) {
		st = ustack_list_entry(s->lru.next, struct ustk, lru);
		s->stats.evicted++;
		lose_entry(s, st);
	}
}

static void drop_latest(struct ustack_session *s, struct ustack_task *t)
{
	if (!t->last)
		return;
	/* A held stack answers its waiting samples when it is released */
	if (!t->last->answered && ustack_list_empty(&t->last->waiters))
		s->stats.unmatched++;
	ustk_put(s, t->last);
	t->last = NULL;
}

static struct ustk *waiting_entry(struct ustack_session *s, int pid,
				  uint64_t cookie, uint64_t ts)
{
	struct ustack_task *t = ustack_tasks_get(&s->tasks, pid);
	struct ustk *st;

	if (!t)
		return NULL;
	st = ustk_new(s);
	if (!st)
		return NULL;
	st->pid = pid;
	st->cookie = cookie;
	st->state = USTK_WAITING;
	st->first_ts = ts;
	/* the table takes our reference */
	if (hash_insert(s, st)) {
		ustk_put(s, st);
		return NULL;
	}
	ustack_list_add_tail(&st->lru, &s->lru);
	ustack_list_add_tail(&st->task, &t->waiting);
	return st;
}

static void wait_on(struct ustack_session *s, struct ustk *st, struct usample *smp)
{
	if (smp->st != st) {
		ustk_put(s, smp->st);
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
	drop_latest(s, t);
	t->last = ustk_get(st);
}

static void attach_cookie(struct ustack_session *s, struct usample *smp, uint64_t cookie)
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
		complete(s, smp, USTACK_SAMPLE_LOST);
		return;
	}
	if (st->state == USTK_FINAL) {
		/* The stack sorted before its cookie (skew): still ours */
		complete_with(s, smp, st, USTACK_SAMPLE_OK);
		return;
	}
	wait_on(s, st, smp);
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
		timeline_add(s, st, s->now + s->opts.hold_ns, TL_SUPERSEDE);
	}
}

/* ------------------------------------------------------------------ */
/* Timeline: held stacks, lingering entries, superseded cookies       */
/* ------------------------------------------------------------------ */

static void expire_stack(struct ustack_session *s, struct ustk *st)
{
	if (st->state == USTK_HELD) {
		bind_stack(s, st, true);
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
			lose_entry(s, st);
		break;
	}
	ustk_put(s, st);
	pool_put(&s->nodes, n);
}

/* Deadlines are added in feed order: the list is sorted by them. */
static void run_timeline(struct ustack_session *s, bool all)
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

static struct ucpu *get_cpu(struct ustack_session *s, int cpu)
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

static struct usample *pend_take(struct ucpu *c, int idx)
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

static void give_up(struct ustack_session *s, struct ucpu *c, int idx,
		    enum ustack_sample_status status)
{
	complete(s, pend_take(c, idx), status);
}

static void give_up_cpu(struct ustack_session *s, struct ucpu *c,
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

/* Events older than hold_ns that still have no cookie will not get one. */
static void run_nocookie_timeouts(struct ustack_session *s, bool all)
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

/* Our events and the stack traces: never a traced event themselves. */
static void forget_last(struct ucpu *c)
{
	c->last = NULL;
	c->last_kind = LAST_NONE;
}

static int top_of_pid(const struct ucpu *c, int pid)
{
	int i;

	for (i = c->depth - 1; i >= 0; i--)
		if (c->pend[i]->pub.pid == pid)
			return i;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Record handlers                                                    */
/* ------------------------------------------------------------------ */

static bool expects_followers(const struct ustack_session *s)
{
	unsigned int have = ustack_events_have(s->ev);

	if (have & (USTACK_HAVE_COOKIE | USTACK_HAVE_USTACK))
		return true;
	return s->opts.want_kernel && (have & USTACK_HAVE_KSTACK);
}

/* A traced event as a sample that has no stack yet */
static struct usample *sample_new(struct ustack_session *s, struct tep_record *rec, int pid)
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
		session_fail(s, USTACK_ERR_NOMEM);
		return NULL;
	}
	ustack_list_init(&smp->order);
	smp->pub.ts = rec->ts;
	smp->pub.cpu = rec->cpu;
	smp->pub.pid = pid;
	smp->pub.tgid = ustack_tasks_tgid(&s->tasks, pid);
	/* the name at the event, else what saved_cmdlines or /proc said */
	smp->pub.comm = ustack_mapdb_comm(s->maps, pid);
	if (!smp->pub.comm)
		smp->pub.comm = tep_data_comm_from_pid(s->tep, pid);
	/* Counted only: nobody reads the record or its format */
	if (!s->opts.count_only) {
		smp->rec = record_clone(rec);
		if (!smp->rec) {
			pool_put(&s->samples, smp);
			session_fail(s, USTACK_ERR_NOMEM);
			return NULL;
		}
		smp->bytes = sizeof(*smp->rec) + (rec->size > 0 ? rec->size : 0);
		smp->pub.event = tep_find_event(s->tep, tep_data_type(s->tep, rec));
		smp->pub.record = smp->rec;
	}
	smp->bytes += sizeof(*smp);
	s->held_bytes += smp->bytes;
	smp->pub.status = USTACK_SAMPLE_NO_COOKIE;
	if (s->opts.ordered)
		ustack_list_add_tail(&smp->order, &s->order);
	return smp;
}

static int on_event(struct ustack_session *s, struct ucpu *c, struct tep_record *rec,
		    int pid)
{
	struct usample *smp;

	/* No context switch between an event and its cookie */
	if (c->depth && c->pend[c->depth - 1]->pub.pid != pid)
		give_up_cpu(s, c, USTACK_SAMPLE_NO_COOKIE);
	if (c->depth == NEST_MAX)
		give_up(s, c, 0, USTACK_SAMPLE_NO_COOKIE);

	smp = sample_new(s, rec, pid);
	if (!smp)
		return -1;
	if (!expects_followers(s)) {
		complete(s, smp, USTACK_SAMPLE_NO_COOKIE);
		return 0;
	}
	c->pend[c->depth++] = smp;
	c->last = smp;
	c->last_kind = LAST_EVENT;
	if (rec->ts + s->opts.hold_ns < s->nocookie_deadline)
		s->nocookie_deadline = rec->ts + s->opts.hold_ns;
	return 0;
}

static void on_kstack(struct ustack_session *s, struct ucpu *c, struct tep_record *rec,
		      int pid)
{
	struct usample *smp = c->last;
	unsigned int nr;

	if (!smp || c->last_kind != LAST_EVENT || smp->pub.pid != pid) {
		forget_last(c);
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

static void on_cookie(struct ustack_session *s, struct ucpu *c, struct tep_record *rec,
		      int pid)
{
	struct usample *smp;
	uint64_t cookie;
	int idx;

	s->stats.cookies++;
	forget_last(c);
	idx = top_of_pid(c, pid);
	if (idx < 0) {
		s->stats.orphans++;
		return;
	}
	smp = pend_take(c, idx);
	cookie = ustack_events_cookie(s->ev, rec);
	if (!cookie) {
		complete(s, smp, USTACK_SAMPLE_NO_STACK);
		return;
	}
	attach_cookie(s, smp, cookie);
}

static int fill_deferred(struct ustack_session *s, struct ustk *st, struct tep_record *rec,
			 const struct ustack_stack_rec *info)
{
	if (stack_alloc_frames(s, st, info->nr))
		return -1;
	ustack_events_stack_frames(s->ev, rec, st->raw_off, st->raw_id, info->nr);
	st->flags = info->flags;
	st->ts = rec->ts;
	return 0;
}

/*
 * The cookie of an event that is not ours to report (a task not followed,
 * our own marker, a side-band event): its stack will come and must not
 * count as one that answered nothing.
 */
static void note_skipped(struct ustack_session *s, struct tep_record *rec, int pid)
{
	struct ustack_task *t = ustack_tasks_get(&s->tasks, pid);

	if (t)
		t->skipped_cookie = ustack_events_cookie(s->ev, rec);
}

static bool answers_skipped(struct ustack_session *s, int pid, uint64_t cookie)
{
	struct ustack_task *t = ustack_tasks_find(&s->tasks, pid);

	if (!t || !cookie || t->skipped_cookie != cookie)
		return false;
	t->skipped_cookie = 0;
	return true;
}

/*
 * The entry a stack of @pid for @cookie fills: the one its samples wait
 * on, else a new one (no cookie yet: it may sort after us, skew, kept a
 * while). NULL for a second answer (the first is kept) or out of memory.
 */
static struct ustk *stack_entry(struct ustack_session *s, int pid, uint64_t cookie,
				uint64_t ts)
{
	struct ustk *st = hash_find(s, pid, cookie);

	if (st && st->state != USTK_WAITING) {
		s->stats.unmatched++;
		return NULL;
	}
	if (st)
		return st;
	st = ustk_new(s);
	if (!st)
		return NULL;
	st->pid = pid;
	st->cookie = cookie;
	st->first_ts = ts;
	if (hash_insert(s, st)) {
		ustk_put(s, st);
		return NULL;
	}
	return st;
}

/* A filled stack for a cookie: bind it and answer its samples */
static void stack_arrived(struct ustack_session *s, struct ustk *st, uint64_t ts)
{
	if (st->flags & USTACK_STACK_TRUNCATED)
		s->stats.truncated++;
	unlink_waiting(s, st);
	supersede(s, st);
	set_latest(s, st);
	st->state = bind_stack(s, st, false) ? USTK_FINAL : USTK_HELD;
	timeline_add(s, st, ts + s->opts.hold_ns, TL_EXPIRE);
	if (st->state == USTK_FINAL) {
		share_frames(s, st);
		release_waiters(s, st, USTACK_SAMPLE_OK);
	}
}

static int fill_copy(struct ustack_session *s, struct ustk *st, const struct tep_record *rec,
		     struct ustack_copy_rec *cp);

/*
 * A stack answer of (@pid, @cookie) arrives: its entry, or NULL when the
 * answer is skipped (or no memory, the entry then told lost).
 */
static struct ustk *answer_entry(struct ustack_session *s, int pid, uint64_t cookie,
				 uint64_t ts)
{
	s->stats.stacks++;
	if (answers_skipped(s, pid, cookie))
		return NULL;
	return stack_entry(s, pid, cookie, ts);
}

/* The answer's frames are in (@filled 0) or could not be (-1: lost) */
static void answer_filled(struct ustack_session *s, struct ustk *st, int filled, uint64_t ts)
{
	if (filled)
		lose_entry(s, st);
	else
		stack_arrived(s, st, ts);
}

/*
 * A stack copy answers its cookie in place of the kernel's walk
 * (kernel-abi.md, "Stack copies"). Without an unwinder it answers
 * nothing: the cookie's stack is then told lost, not shown empty.
 */
static void on_copy(struct ustack_session *s, struct ucpu *c, struct tep_record *rec,
		    int pid)
{
	struct ustack_copy_rec cp;
	struct ustk *st;

	forget_last(c);
	if (!s->unw)
		return;
	/* a damaged copy still answers: its stack ends for want of registers */
	if (!ustack_events_copy(s->ev, rec, &cp))
		cp.regs_mask = 0;
	st = answer_entry(s, pid, cp.cookie, rec->ts);
	if (st)
		answer_filled(s, st, fill_copy(s, st, rec, &cp), rec->ts);
}

static void on_stack(struct ustack_session *s, struct ucpu *c, struct tep_record *rec,
		     int pid)
{
	struct ustack_stack_rec info;
	struct ustk *st;

	forget_last(c);
	ustack_events_stack(s->ev, rec, &info);
	st = answer_entry(s, pid, info.cookie, rec->ts);
	if (st)
		answer_filled(s, st, fill_deferred(s, st, rec, &info), rec->ts);
}

/* Announcements stored plus distinct files named by snapshots or the side-band */
static void update_mappings(struct ustack_session *s)
{
	s->maps_gen++;
	s->stats.mappings = ustack_mapdb_files(s->maps);
}

static void on_inode(struct ustack_session *s, struct ucpu *c, struct tep_record *rec)
{
	struct ustack_mapping m;

	forget_last(c);
	if (ustack_events_inode(s->ev, rec, &m))
		return;
	ustack_mapdb_announce(s->maps, &m);
	free(m.path);
	update_mappings(s);
}

static int fill_sync(struct ustack_session *s, struct ustk *st, struct tep_record *rec)
{
	unsigned int i, n = ustack_events_ustack(s->ev, rec, NULL, 0);

	if (stack_alloc_frames(s, st, n))
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

/*
 * A synchronous stack (@st, its raw addresses filled in) for @smp: mapped
 * now, or held until a maps snapshot at or before the event may come.
 * Takes @st over.
 */
static void sync_stack(struct ustack_session *s, struct usample *smp, struct ustk *st,
		       int tgid, uint64_t rec_ts)
{
	st->sync = true;
	st->pid = smp->pub.pid;
	st->tgid = tgid;
	st->ts = smp->pub.ts;
	if (bind_stack(s, st, false)) {
		st->state = USTK_FINAL;
		complete_with(s, smp, st, USTACK_SAMPLE_SYNC);
	} else {
		/* No snapshot at or before the event yet: one may come */
		st->state = USTK_HELD;
		wait_on(s, st, smp);
		timeline_add(s, st, rec_ts + s->opts.hold_ns, TL_EXPIRE);
	}
	ustk_put(s, st);
}

static void on_ustack(struct ustack_session *s, struct ucpu *c, struct tep_record *rec,
		      int pid)
{
	struct usample *smp = c->last;
	struct ustk *st;
	int tgid, idx;

	if (!smp || c->last_kind == LAST_NONE || smp->pub.pid != pid) {
		forget_last(c);
		s->stats.unmatched++;
		return;
	}
	forget_last(c);
	idx = top_of_pid(c, pid);
	if (idx < 0 || c->pend[idx] != smp)
		return;
	pend_take(c, idx);
	tgid = ustack_events_ustack_tgid(s->ev, rec);
	if (tgid && !smp->pub.tgid)
		smp->pub.tgid = tgid;
	if (tgid && pid)
		ustack_tasks_set_tgid(&s->tasks, pid, tgid);

	st = ustk_new(s);
	if (!st || fill_sync(s, st, rec)) {
		ustk_put(s, st);
		complete(s, smp, USTACK_SAMPLE_NO_COOKIE);
		return;
	}
	sync_stack(s, smp, st, tgid ? tgid : pid, rec->ts);
}

/* @pid executed: if it is the launched command, its events are its own now */
static void exec_seen(struct ustack_session *s, int pid)
{
	if (pid > 0 && pid == s->tasks.until_exec)
		s->tasks.until_exec = 0;
}

/*
 * Records were lost (ring buffer or side-band): the launched command's
 * exec may be among them, and must not hide every event it made after it
 */
static void exec_maybe_lost(struct ustack_session *s)
{
	s->tasks.until_exec = 0;
}

/* @missed as tep_record.missed_events gives it; @c may be NULL (no memory) */
static void account_missed(struct ustack_session *s, struct ucpu *c, long long missed)
{
	if (missed > 0) {
		s->stats.rb_lost += missed;
	} else {
		s->stats.rb_lost++;
		s->stats.rb_lost_unknown++;
	}
	exec_maybe_lost(s);
	if (!c)
		return;
	/* Their cookies may be among the dropped records */
	give_up_cpu(s, c, USTACK_SAMPLE_LOST);
	forget_last(c);
}

/* ------------------------------------------------------------------ */
/* API                                                                */
/* ------------------------------------------------------------------ */

/**
 * ustack_session_new - pair events, cookies, stacks and files
 * @ev:		our events in the formats of the traced instance (kept, not
 *		owned: free it after the session); the helpers a recording's
 *		info marker names are set in it when the marker is fed
 * @opts:	options, NULL for defaults
 * @fn:		called for each finished sample the filters let through
 * @ctx:	passed to @fn
 *
 * Any of our events may be missing (see ustack_events_have()). Returns
 * NULL on allocation failure.
 */
struct ustack_session *ustack_session_new(struct ustack_events *ev,
					  const struct ustack_session_opts *opts,
					  ustack_sample_fn fn, void *ctx)
{
	struct ustack_session *s;

	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->ev = ev;
	s->tep = ustack_events_tep(ev);
	if (opts)
		s->opts = *opts;
	if (!s->opts.hold_ns)
		s->opts.hold_ns = USTACK_HOLD_NS_DEFAULT;
	if (!s->opts.max_pending)
		s->opts.max_pending = USTACK_MAX_PENDING_DEFAULT;
	s->fn = fn;
	s->ctx = ctx;
	ustack_list_init(&s->lru);
	ustack_list_init(&s->order);
	ustack_list_init(&s->timeline);
	ustack_tasks_init(&s->tasks, s->tep, s->opts.live);
	s->nocookie_deadline = UINT64_MAX;
	s->maps = ustack_mapdb_new(&s->tasks);
	s->sb_prev = ustack_sb_prev_new();
	if (ustack_htable_init(&s->stacks, 1024) || ustack_htable_init(&s->frame_sets, 64) ||
	    !s->maps || !s->sb_prev) {
		ustack_session_free(s);
		return NULL;
	}
	return s;
}

/**
 * ustack_session_free - free a session without handing out what it holds
 * @s: the session (may be NULL)
 *
 * Call ustack_session_flush() first to get the held samples.
 */
void ustack_session_free(struct ustack_session *s)
{
	if (!s)
		return;
	s->fn = NULL;
	if (s->stacks.buckets && s->maps)
		ustack_session_flush(s);
	/* its parts of the task records first */
	ustack_mapdb_free(s->maps);
	ustack_tasks_release(&s->tasks);
	ustack_htable_release(&s->stacks);
	/* every stack is gone, and with the last of each set the set */
	ustack_htable_release(&s->frame_sets);
	free(s->cpus);
	ustack_sb_prev_free(s->sb_prev);
	pool_drain(&s->samples);
	pool_drain(&s->stks);
	pool_drain(&s->nodes);
	free(s->uframes);
	free(s->used);
	free(s);
}

static void advance(struct ustack_session *s, uint64_t ts)
{
	if (ts > s->now)
		s->now = ts;
	run_timeline(s, false);
	run_nocookie_timeouts(s, false);
}

/*
 * Names from the task events of the instance (the deferred path, or a
 * fallback without the side-band): task_newtask names a new task after
 * its parent, task_rename tells exec and prctl(PR_SET_NAME).
 */
static void learn_name(struct ustack_session *s, const struct tep_record *rec)
{
	char comm[32];
	int pid;

	if (ustack_events_task_comm(s->ev, rec, &pid, comm, sizeof(comm)) && pid > 0)
		ustack_mapdb_set_comm(s->maps, pid, comm);
}

/* Live: what /proc says about a task, and the tasks it creates. */
static void learn(struct ustack_session *s, const struct tep_record *rec, int pid)
{
	bool thread;
	int child;

	if (!s->opts.live)
		return;
	ustack_tasks_learn(&s->tasks, pid);
	if (ustack_events_newtask(s->ev, rec, &child, &thread))
		ustack_tasks_newtask(&s->tasks, pid, child, thread);
}

/*
 * A recording's info marker, written before the launched command runs:
 * the helper events it names are ours from here on, and the command's
 * records are skipped up to its exec. record's session and report's both
 * learn this from the records they are fed, never from elsewhere, so that
 * they count the same events: when the ring buffer overwrote the marker,
 * a helper event that survived is a traced event for both.
 */
static void learn_info(struct ustack_session *s, struct tep_record *rec)
{
	const char *text = ustack_events_print_text(s->ev, rec);
	unsigned int max;
	int pid;

	if (!text || strncmp(text, USTACK_INFO_MARKER, strlen(USTACK_INFO_MARKER)))
		return;
	ustack_events_set_helpers(s->ev, ustack_events_info_helpers(text));
	pid = ustack_events_info_until_exec(text);
	if (pid)
		s->tasks.until_exec = pid;
	/* the stack copies are walked as far as the recording walked them, at most */
	max = ustack_events_info_max_stack(text);
	if (max && (!s->opts.unwind_max || max < s->opts.unwind_max))
		s->opts.unwind_max = max;
}

/*
 * Records not shown: ours (markers, helper events) and events of tasks
 * not followed. The kernel writes what belongs to an event (cookie, stack
 * traces) right behind it on the same CPU: that goes too.
 */
static bool skip(struct ustack_session *s, struct ucpu *c, enum ustack_rec kind, int pid)
{
	switch (kind) {
	case USTACK_REC_COOKIE:
	case USTACK_REC_KSTACK:
	case USTACK_REC_USTACK:
		return c->skip_pid >= 0 && c->skip_pid == pid;
	case USTACK_REC_STACK:
	case USTACK_REC_COPY:
	case USTACK_REC_INODE:
		c->skip_pid = -1;
		return false;
	case USTACK_REC_OURS:
		break;
	case USTACK_REC_EVENT:
		if (!ustack_tasks_skip(&s->tasks, pid)) {
			c->skip_pid = -1;
			return false;
		}
		break;
	}
	c->skip_pid = pid;
	return true;
}

/**
 * ustack_session_preview - records about to be fed (live)
 * @s:		the session
 * @recs:	the records, in any order
 * @nr:		how many
 *
 * A reader that gets records in batches hands them out in timestamp order
 * only later: the tasks a batch names are learned at once, while they may
 * still run. Does nothing unless opts.live.
 */
void ustack_session_preview(struct ustack_session *s, struct tep_record **recs, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		learn(s, recs[i], ustack_events_pid(s->ev, recs[i]));
}

/* ustack_session_feed() of a record of CPU @c (no side-band text) */
static int feed_cpu(struct ustack_session *s, struct ucpu *c, struct tep_record *rec,
		    enum ustack_rec kind, int pid)
{
	if (rec->missed_events)
		account_missed(s, c, rec->missed_events);
	advance(s, rec->ts);
	learn(s, rec, pid);
	exec_seen(s, ustack_events_exec_pid(s->ev, rec));
	/* task_newtask and task_rename: a helper of ours, or traced */
	if (kind == USTACK_REC_OURS || kind == USTACK_REC_EVENT)
		learn_name(s, rec);
	if (kind == USTACK_REC_OURS)
		learn_info(s, rec);
	if (skip(s, c, kind, pid)) {
		if (kind == USTACK_REC_COOKIE)
			note_skipped(s, rec, pid);
		return 0;
	}

	switch (kind) {
	case USTACK_REC_COOKIE:
		on_cookie(s, c, rec, pid);
		break;
	case USTACK_REC_STACK:
		on_stack(s, c, rec, pid);
		break;
	case USTACK_REC_COPY:
		on_copy(s, c, rec, pid);
		break;
	case USTACK_REC_INODE:
		on_inode(s, c, rec);
		break;
	case USTACK_REC_KSTACK:
		on_kstack(s, c, rec, pid);
		break;
	case USTACK_REC_USTACK:
		on_ustack(s, c, rec, pid);
		break;
	case USTACK_REC_EVENT:
		return on_event(s, c, rec, pid);
	case USTACK_REC_OURS:
		break;
	}
	return 0;
}

/*
 * A side-band record of the file that could not be read: counted by why,
 * and said once a kind (a file may hold millions of them).
 */
static void sideband_unread(struct ustack_session *s, int why)
{
	static const char *const what[] = {
		[-USTACK_SB_MALFORMED] = "malformed (a field missing, bad or out of its bounds)",
		[-USTACK_SB_UNSEEN_REPEAT] = "a repeated sample (same=1) of a thread whose sample was not read",
	};
	uint64_t *n;

	if (why == USTACK_SB_MALFORMED)
		n = &s->stats.sb_malformed;
	else if (why == USTACK_SB_UNSEEN_REPEAT)
		n = &s->stats.sb_unseen_repeat;
	else
		return;
	if (!(*n)++)
		ustack_warning("side-band record not read: %s; such records are skipped and counted",
			       what[-why]);
}

/**
 * ustack_session_feed - process one record
 * @s:		the session
 * @rec:	the record; only used during the call (copied when kept)
 *
 * Records must come in timestamp order across CPUs, with @rec->cpu set.
 * Returns 0, or the session's first failure (a negative code, see
 * ustack_session_error()): memory ran out, or the samples held went past
 * opts.mem_budget. From then on nothing is handed out, and the caller
 * should say ustack_session_error() and stop.
 */
int ustack_session_feed(struct ustack_session *s, struct tep_record *rec)
{
	enum ustack_rec kind = ustack_events_classify(s->ev, rec);
	int pid = ustack_events_pid(s->ev, rec);
	struct ustack_sb_rec sb;
	const char *text;
	struct ucpu *c;
	int ret;

	/* A side-band record of a trace.dat: no event, nothing follows it */
	text = kind == USTACK_REC_OURS ? ustack_events_sideband_text(s->ev, rec) : NULL;
	if (text) {
		ret = ustack_sb_parse_prev(s->sb_prev, text, rec->ts, &sb);
		if (!ret)
			ustack_session_sideband(s, &sb);
		else
			sideband_unread(s, ret);
		return s->err;
	}
	if (s->err)
		return s->err;
	c = get_cpu(s, rec->cpu);
	if (!c) {
		session_fail(s, USTACK_ERR_NOMEM);
		return s->err;
	}
	feed_cpu(s, c, rec, kind, pid);
	/* after the record: a cookie that comes late is its event's still */
	if (rec->ts > c->ts)
		c->ts = rec->ts;
	return s->err;
}

/**
 * ustack_session_error - why the session stopped, for a message
 * @s:		the session
 * @buf:	room for the text
 * @size:	its size
 *
 * Returns NULL while nothing failed, else @buf: "out of memory", or the
 * memory budget that the held samples went past and how to raise it.
 */
const char *ustack_session_error(const struct ustack_session *s, char *buf, size_t size)
{
	if (!s->err)
		return NULL;
	if (s->err == USTACK_ERR_BUDGET)
		snprintf(buf, size, "events waiting for their stacks or mappings hold more than "
			 "the memory budget of %zu MiB (USTACK_MEMORY_BUDGET_MB)",
			 s->opts.mem_budget >> 20);
	else
		snprintf(buf, size, "%s", ustack_strerror(s->err));
	return buf;
}

/**
 * ustack_session_advance - time passed on every CPU up to @ts
 * @s:	the session
 * @ts:	no record older than this will be fed any more
 */
void ustack_session_advance(struct ustack_session *s, uint64_t ts)
{
	advance(s, ts);
}

/**
 * ustack_session_add_lost - account events the reader knows were dropped
 * @s:		the session
 * @cpu:	CPU buffer that lost them
 * @missed:	how many, as tep_record.missed_events says it (0 or less:
 *		an unknown number, counted as 1)
 *
 * For losses told apart from the record after them (those that record
 * carries are counted by ustack_session_feed()). Events pending on @cpu
 * may have lost their cookie: they are reported as "stack lost".
 */
void ustack_session_add_lost(struct ustack_session *s, int cpu, long long missed)
{
	account_missed(s, get_cpu(s, cpu), missed);
}

/**
 * ustack_session_add_maps - register a /proc/<tgid>/maps snapshot
 * @s:		the session
 * @tgid:	process
 * @ts:		when it was read, in the trace clock
 * @maps_text:	contents of the maps file
 *
 * Fallback ftrace:user_stack addresses of @tgid are mapped through the most
 * recent snapshot at or before their event, else the earliest after it.
 */
int ustack_session_add_maps(struct ustack_session *s, int tgid, uint64_t ts,
			    const char *maps_text)
{
	if (ustack_mapdb_add_snapshot(s->maps, tgid, ts, maps_text))
		return -1;
	update_mappings(s);
	return 0;
}

static int perf_kframes(struct usample *smp, const struct ustack_perfsrc_stack *cs)
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
		     const struct ustack_perfsrc_stack *cs)
{
	unsigned int i;

	if (stack_alloc_frames(s, st, cs->nr_user))
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
	size_t need = ustack_dwarf_map_bytes(sb->stack_size);

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
	nr = ustack_dwarf_unwind(s->unw, ustack_mapdb_history(s->maps), sb, tgid, s->uframes,
				 max, &res, used);
	if (stack_alloc_frames(s, st, nr))
		return -1;
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

/* --call-graph=dwarf on the perf source: the sample's copy */
static int fill_dwarf(struct ustack_session *s, struct ustk *st, const struct ustack_sb_rec *sb,
		      int tgid)
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

/*
 * A deferred stack's copy unwound by CFI: the addresses are mapped
 * through the side-band's history, as the perf source's are. Returns -1
 * when out of memory.
 */
static int fill_copy(struct ustack_session *s, struct ustk *st, const struct tep_record *rec,
		     struct ustack_copy_rec *cp)
{
	struct ustack_sb_rec sb = { 0 };
	int tgid, ret;

	/* where its walk stops short, the summary tells why the copy was */
	if (cp->flags & USTACK_COPY_CAPPED)
		s->stats.copies_capped++;
	sb.tid = st->pid;
	sb.regs_mask = cp->regs_mask;
	sb.regs = cp->regs;
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

static int fill_sample(struct ustack_session *s, struct ustk *st, const struct ustack_sb_rec *sb,
		       const struct ustack_perfsrc_stack *cs, int tgid)
{
	if (sb->regs_mask && s->unw)
		return fill_dwarf(s, st, sb, tgid);
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

/*
 * The deferred user chain of perf samples (PERF_RECORD_CALLCHAIN_DEFERRED):
 * virtual addresses, mapped through the side-band as a synchronous chain
 * is, answering the samples of its task that carry its cookie.
 */
static int on_perf_deferred(struct ustack_session *s, const struct ustack_sb_rec *sb)
{
	struct ustk *st;
	unsigned int i;

	s->stats.stacks++;
	if (answers_skipped(s, sb->tid, sb->cookie))
		return 0;
	st = stack_entry(s, sb->tid, sb->cookie, sb->ts);
	if (!st)
		return 0;
	if (stack_alloc_frames(s, st, sb->nr_chain)) {
		lose_entry(s, st);
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
	stack_arrived(s, st, sb->ts);
	return 0;
}

static struct perf_memo *memo_slot(struct ustack_session *s, int tid)
{
	return &s->memo[(unsigned int)tid % MEMO_SLOTS];
}

/* The stack of @tid's last sample, if this one's is the same and still maps alike */
static struct ustk *memo_find(struct ustack_session *s, int tid, int tgid,
			      const struct ustack_perfsrc_stack *cs)
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
	ustk_put(s, m->st);
	m->st = NULL;
	m->tid = 0;
}

/* @st, mapped for good through the side-band, is @tid's last stack */
static void memo_keep(struct ustack_session *s, int tid, int tgid,
		      const struct ustack_perfsrc_stack *cs, struct ustk *st)
{
	struct perf_memo *m = memo_slot(s, tid);

	memo_drop(s, m);
	if (st->state != USTK_FINAL || !ustack_mapdb_by_sideband(s->maps) || !cs->nr_user ||
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

static void memo_release(struct ustack_session *s)
{
	size_t i;

	for (i = 0; i < MEMO_SLOTS; i++) {
		memo_drop(s, &s->memo[i]);
		free(s->memo[i].user);
		s->memo[i].user = NULL;
		s->memo[i].alloc = 0;
	}
}

/*
 * A frame-pointer chain as its thread's last one, nothing remapped since:
 * the same frames, without mapping them again (counted as fill_perf() does)
 */
static bool perf_repeat(struct ustack_session *s, struct usample *smp,
			const struct ustack_perfsrc_stack *cs, int tid, int tgid)
{
	struct ustk *st = memo_find(s, tid, tgid, cs);

	if (!st)
		return false;
	if (cs->truncated)
		s->stats.truncated++;
	complete_with(s, smp, st, USTACK_SAMPLE_SYNC);
	return true;
}

/*
 * A sample of the perf stack source: the event (its payload is a tracefs
 * record's data) and its synchronous stack in one record, so nothing has
 * to wait for a follower. Its task's thread group comes with it.
 */
static int on_perf_sample(struct ustack_session *s, const struct ustack_sb_rec *sb)
{
	struct ustack_perfsrc_stack cs;
	struct tep_record rec = { 0 };
	struct usample *smp;
	struct ustk *st;
	int pid, tgid;
	bool fp;

	rec.ts = sb->ts;
	rec.cpu = sb->cpu;
	rec.size = sb->raw_size;
	rec.data = (void *)sb->raw;
	if (ustack_events_classify(s->ev, &rec) != USTACK_REC_EVENT)
		return 0;
	pid = ustack_events_pid(s->ev, &rec);
	learn(s, &rec, pid);
	learn_name(s, &rec);
	ustack_perfsrc_stack(sb, s->opts.perf_max_stack, &cs);
	if (ustack_tasks_skip(&s->tasks, pid)) {
		perf_skipped(s, pid, cs.cookie);
		return 0;
	}
	smp = sample_new(s, &rec, pid);
	if (!smp)
		return -1;
	s->stats.perf++;
	if (s->opts.want_kernel)
		perf_kframes(smp, &cs);
	/* deferred: the stack comes later, paired by cookie as tracefs' are */
	if (cs.cookie) {
		s->stats.cookies++;
		attach_cookie(s, smp, cs.cookie);
		return 0;
	}
	tgid = sb->pid > 0 ? sb->pid : pid;
	fp = !(sb->regs_mask && s->unw);
	if (fp && perf_repeat(s, smp, &cs, sb->tid, tgid))
		return 0;
	st = ustk_new(s);
	if (!st || fill_sample(s, st, sb, &cs, tgid)) {
		ustk_put(s, st);
		complete(s, smp, USTACK_SAMPLE_NO_COOKIE);
		return -1;
	}
	ustk_get(st);
	sync_stack(s, smp, st, tgid, rec.ts);
	if (fp)
		memo_keep(s, sb->tid, tgid, &cs, st);
	ustk_put(s, st);
	return 0;
}

/**
 * ustack_session_sideband - one side-band record, in time order with the feed
 * @s:		the session
 * @rec:	the record (only used during the call)
 *
 * Live, the reader merges the perf side-band with the trace records by
 * time; from a trace.dat the records come as print records of the top
 * buffer (ustack_session_feed() hands them here). Once a mapping has come
 * this way, fallback stacks are mapped through the side-band alone, and
 * every task it names is shown with the name it had at each event.
 * Returns 0, or -1 when out of memory.
 */
int ustack_session_sideband(struct ustack_session *s, const struct ustack_sb_rec *rec)
{
	int ret;

	advance(s, rec->ts);
	/* the side-band knows the thread group of every task it names */
	if (rec->kind != USTACK_SB_LOST && rec->pid > 0 && rec->tid > 0)
		ustack_tasks_set_tgid(&s->tasks, rec->tid, rec->pid);
	if (rec->kind == USTACK_SB_SAMPLE) {
		s->used_set = false;
		return on_perf_sample(s, rec);
	}
	if (rec->kind == USTACK_SB_COMM && rec->exec) {
		/* a new program: the unwinder's files of the old one are no use */
		if (s->unw)
			ustack_unwinder_forget(s->unw, rec->pid);
		exec_seen(s, rec->tid);
	}
	if (rec->kind == USTACK_SB_DEFERRED)
		return on_perf_deferred(s, rec);
	/*
	 * Counted as the recorder counts them (ustack_map_source_sideband()),
	 * so that record's summary and report's agree: a LOST record tells of
	 * records that are not there, it is not one of them.
	 */
	if (rec->kind == USTACK_SB_LOST) {
		s->stats.sideband_lost += rec->lost;
		exec_maybe_lost(s);
	} else {
		s->stats.sideband++;
	}
	/* the perf source's samples share the rings: mostly those were lost */
	if (rec->kind == USTACK_SB_LOST && s->stats.perf)
		s->stats.rb_lost += rec->lost;
	ret = ustack_mapdb_sideband(s->maps, rec);
	update_mappings(s);
	return ret;
}

/**
 * ustack_session_procmaps - trace-cmd's PROCMAPS of the processes mapped so far
 * @s: the session
 *
 * The last mappings the side-band gave each process a stack was mapped
 * through. Returns a NULL-terminated array (free() each entry and the
 * array), or NULL when out of memory.
 */
char **ustack_session_procmaps(struct ustack_session *s)
{
	return ustack_mapdb_procmaps(s->maps);
}

/**
 * ustack_session_flush - end of data
 * @s: the session
 *
 * Events still without a cookie are handed out as NO_COOKIE, held stacks
 * are bound as well as they can be, cookies still waiting become LOST.
 */
void ustack_session_flush(struct ustack_session *s)
{
	struct ustack_hnode *pos, *tmp;
	struct ustk *st;
	size_t i;
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		give_up_cpu(s, &s->cpus[cpu], USTACK_SAMPLE_NO_COOKIE);
		forget_last(&s->cpus[cpu]);
	}
	s->nocookie_deadline = UINT64_MAX;
	memo_release(s);
	run_timeline(s, true);
	while (!ustack_list_empty(&s->lru)) {
		st = ustack_list_entry(s->lru.next, struct ustk, lru);
		lose_entry(s, st);
	}
	drain_ordered(s);
	ustack_tasks_for_each(&s->tasks, i, pos, tmp)
		drop_latest(s, ustack_htable_entry(pos, struct ustack_task, node));
}

/**
 * ustack_session_stats - counters so far
 * @s: the session
 */
const struct ustack_stats *ustack_session_stats(struct ustack_session *s)
{
	return &s->stats;
}

/**
 * ustack_session_set_tgid - thread group of a task
 * @s:		the session
 * @pid:	task
 * @tgid:	its thread group id
 */
void ustack_session_set_tgid(struct ustack_session *s, int pid, int tgid)
{
	ustack_tasks_set_tgid(&s->tasks, pid, tgid);
}

/**
 * ustack_session_follow - show the events of a thread group
 * @s:		the session
 * @tgid:	the thread group
 *
 * Once a group is followed, events of tasks known to be in no followed
 * group are skipped, with what the kernel attached to them (tasks whose
 * group is not known yet are kept). Returns 0, or -1 when out of memory.
 */
int ustack_session_follow(struct ustack_session *s, int tgid)
{
	return ustack_tasks_follow(&s->tasks, tgid);
}

/**
 * ustack_session_skip_until_exec - skip a task's events up to its exec
 * @s:		the session
 * @pid:	the task (a command launched by the tracer, traced from its
 *		fork so that its exec is)
 *
 * What such a task does before its exec is the tracer's own code
 * (ustack_child_fork;execve): not the user's. Its events, with what the
 * kernel attached to them, are skipped until a sched:sched_process_exec
 * record of @pid is fed (so that event must be traced unless the side-band
 * reports execs), a side-band exec of @pid, or a loss of ring-buffer or
 * side-band records, which may have taken the exec's.
 */
void ustack_session_skip_until_exec(struct ustack_session *s, int pid)
{
	s->tasks.until_exec = pid;
}

/**
 * ustack_session_learn_task - read what /proc says about a task now
 * @s:		a live session
 * @pid:	the task, e.g. stopped at its exit
 *
 * Tasks are learned when their first record is fed; one that is about to
 * go may be learned earlier with this.
 */
void ustack_session_learn_task(struct ustack_session *s, int pid)
{
	ustack_tasks_learn(&s->tasks, pid);
}

/**
 * ustack_session_set_perf_max_stack - the frame limit of the perf stack source
 * @s:		the session
 * @max_stack:	the sample_max_stack its events were opened with: a sample
 *		with that many frames is marked truncated (0: none is)
 */
void ustack_session_set_perf_max_stack(struct ustack_session *s, unsigned int max_stack)
{
	s->opts.perf_max_stack = max_stack;
}

/**
 * ustack_session_set_unwinder - unwind the perf source's stack copies
 * @s:	the session
 * @u:	the unwinder (outlives the session); NULL: samples with registers
 *	and a stack copy (--call-graph=dwarf) get no user frames
 */
void ustack_session_set_unwinder(struct ustack_session *s, struct ustack_unwinder *u)
{
	s->unw = u;
}

/**
 * ustack_session_recorded - a stack of @tgid went into a recording unread
 * @s:		the session
 * @tgid:	its thread group
 *
 * A recorder that writes the perf source's samples without handing them
 * to the session (pairing and mapping are report's) says whose they were:
 * those processes' mappings go into the trace.dat's PROCMAPS, as the
 * mapped stacks' do.
 */
void ustack_session_recorded(struct ustack_session *s, int tgid)
{
	ustack_mapdb_use(s->maps, tgid);
}

/**
 * ustack_session_stack_used - the words of the last sample's stack copy its unwind read
 * @s:		the session
 * @cut:	set to the frame limit the unwind stopped at, else 0
 *
 * For the recorder, which keeps only those (report then reads no other).
 * Returns a bitmap, a bit per 8-byte word of the copy, valid until the
 * next side-band record; NULL when the last sample was not unwound (left
 * out by the filters, no unwinder).
 */
const uint8_t *ustack_session_stack_used(const struct ustack_session *s, unsigned int *cut)
{
	*cut = s->used_set ? s->used_cut : 0;
	return s->used_set ? s->used : NULL;
}
