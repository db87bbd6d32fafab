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
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack-session.h"
#include "ustack-maps.h"

/* task, softirq, hardirq, NMI: at most 4 legitimately nest; keep margin */
#define NEST_MAX	8
#define TASK_BUCKETS	4096

/* ------------------------------------------------------------------ */
/* Intrusive doubly-linked list                                       */
/* ------------------------------------------------------------------ */

struct ulist {
	struct ulist	*prev;
	struct ulist	*next;
};

#define ulist_entry(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

static void ulist_init(struct ulist *h)
{
	h->prev = h;
	h->next = h;
}

static bool ulist_empty(const struct ulist *h)
{
	return h->next == h;
}

static void ulist_add_tail(struct ulist *n, struct ulist *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static void ulist_del(struct ulist *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	ulist_init(n);
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
 * One kernel entry of one task: (pid, cookie), the samples waiting for
 * it and, once it came, its stack. Fallback (synchronous) stacks use the
 * same object outside the table.
 */
struct ustk {
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
	struct ustack_frame	*frames;
	uint64_t		answered;	/* samples it completed */
	struct usample		*wait_head;
	struct usample		**wait_tail;
	size_t			nr_waiting;
	struct ustk		*hnext;
	struct ulist		lru;		/* session waiting list */
	struct ulist		task;		/* waiting list of its pid */
};

struct usample {
	struct ustack_sample	pub;
	struct tep_record	*rec;		/* private copy */
	uint64_t		*kframes;
	struct ustk		*st;
	struct usample		*wnext;
	struct ulist		order;
	bool			complete;
};

struct utask {
	int			pid;
	int			tgid;
	struct ulist		waiting;	/* struct ustk.task */
	struct ustk		*last;		/* latest deferred stack */
	struct utask		*next;
};

enum last_kind {
	LAST_NONE,
	LAST_EVENT,		/* the previous record on the CPU was an event */
	LAST_KSTACK,		/* ... its kernel stack */
};

struct ucpu {
	struct usample		*pend[NEST_MAX];
	int			depth;
	struct usample		*last;
	enum last_kind		last_kind;
};

enum tl_kind {
	TL_EXPIRE,		/* stack: bind for good, leave the table */
	TL_SUPERSEDE,		/* waiting cookie: lost if still waiting */
};

struct tl_node {
	struct ustk		*st;
	uint64_t		deadline;
	enum tl_kind		kind;
	struct tl_node		*next;
};

struct fmt_cookie {
	int			id;
	struct tep_format_field	*cookie;
};

struct fmt_stack {
	int			id;
	struct tep_format_field	*cookie;
	struct tep_format_field	*flags;
	struct tep_format_field	*offsets;
	struct tep_format_field	*ids;
};

struct fmt_inode {
	int			id;
	struct tep_format_field	*fid;
	struct tep_format_field	*ino;
	struct tep_format_field	*dev;
	struct tep_format_field	*tgid;
	struct tep_format_field	*flags;
	struct tep_format_field	*build_id;
	struct tep_format_field	*path;
};

struct fmt_kstack {
	int			id;
	struct tep_format_field	*size;
	struct tep_format_field	*caller;
};

struct fmt_ustack {
	int			id;
	struct tep_format_field	*tgid;
	struct tep_format_field	*caller;
};

struct ustack_session {
	struct tep_handle		*tep;
	struct ustack_session_opts	opts;
	ustack_sample_fn		fn;
	void				*ctx;

	struct fmt_cookie		f_cookie;
	struct fmt_stack		f_stack;
	struct fmt_inode		f_inode;
	struct fmt_kstack		f_kstack;
	struct fmt_ustack		f_ustack;
	unsigned int			have;

	struct ustack_maps		*maps;
	struct ustack_snapshots		*snaps;

	struct ucpu			*cpus;
	int				nr_cpus;

	struct ustk			**hash;
	size_t				nr_hash;
	size_t				nr_entries;

	struct utask			*tasks[TASK_BUCKETS];

	struct ulist			lru;
	size_t				nr_waiting;

	struct tl_node			*tl_head;
	struct tl_node			**tl_tail;

	struct ulist			order;

	uint64_t			now;
	uint64_t			nocookie_deadline;
	struct ustack_stats		stats;
};

/* ------------------------------------------------------------------ */
/* Record access (fields by name, unaligned-safe)                     */
/* ------------------------------------------------------------------ */

static bool read_num(struct tep_handle *tep, const struct tep_record *rec,
		     int offset, int size, uint64_t *val)
{
	unsigned char buf[8];

	if (size <= 0 || size > 8 || offset < 0 || offset + size > rec->size)
		return false;
	/* u64 fields may be only 4-byte aligned: copy before reading */
	memcpy(buf, (const char *)rec->data + offset, size);
	*val = tep_read_number(tep, buf, size);
	return true;
}

static uint64_t field_num(struct tep_handle *tep, const struct tep_record *rec,
			  const struct tep_format_field *f, uint64_t dflt)
{
	uint64_t val;

	if (!f || !read_num(tep, rec, f->offset, f->size, &val))
		return dflt;
	return val;
}

/* A __data_loc (or __rel_loc) field: pointer into the record and length. */
static const void *field_dyn(struct tep_handle *tep, const struct tep_record *rec,
			     const struct tep_format_field *f, unsigned int *len)
{
	unsigned int off;
	uint64_t loc;

	*len = 0;
	if (!f || !read_num(tep, rec, f->offset, 4, &loc))
		return NULL;
	off = loc & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += f->offset + f->size;
	*len = loc >> 16;
	if (off + *len > (unsigned int)rec->size) {
		*len = 0;
		return NULL;
	}
	return (const char *)rec->data + off;
}

static uint64_t array_elem(struct tep_handle *tep, const void *base, unsigned int i,
			   unsigned int esize)
{
	unsigned char buf[8];

	memcpy(buf, (const char *)base + (size_t)i * esize, esize);
	return tep_read_number(tep, buf, esize);
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
/* Formats                                                            */
/* ------------------------------------------------------------------ */

static struct tep_event *find_event(struct tep_handle *tep, const char *sys,
				    const char *name)
{
	return tep_find_event_by_name(tep, sys, name);
}

static void setup_cookie(struct ustack_session *s)
{
	struct tep_event *ev = find_event(s->tep, "ftrace", "user_unwind_cookie");

	s->f_cookie.id = -1;
	if (!ev)
		return;
	s->f_cookie.cookie = tep_find_field(ev, "cookie");
	if (!s->f_cookie.cookie)
		return;
	s->f_cookie.id = ev->id;
	s->have |= USTACK_HAVE_COOKIE;
}

static void setup_stack(struct ustack_session *s)
{
	struct tep_event *ev = find_event(s->tep, "ftrace", "user_unwind_stack");
	struct fmt_stack *f = &s->f_stack;

	f->id = -1;
	if (!ev)
		return;
	f->cookie = tep_find_field(ev, "cookie");
	f->flags = tep_find_field(ev, "flags");
	f->offsets = tep_find_field(ev, "offsets");
	f->ids = tep_find_field(ev, "ids");
	if (!f->cookie || !f->offsets || !f->ids)
		return;
	f->id = ev->id;
	s->have |= USTACK_HAVE_STACK;
}

static void setup_inode(struct ustack_session *s)
{
	struct tep_event *ev = find_event(s->tep, "inode_cache", "inode_cache");
	struct fmt_inode *f = &s->f_inode;

	f->id = -1;
	if (!ev)
		return;
	f->fid = tep_find_field(ev, "id");
	f->ino = tep_find_field(ev, "ino");
	f->dev = tep_find_field(ev, "dev");
	f->tgid = tep_find_field(ev, "tgid");
	f->flags = tep_find_field(ev, "flags");
	f->build_id = tep_find_field(ev, "build_id");
	f->path = tep_find_field(ev, "path");
	if (!f->fid || !f->path)
		return;
	f->id = ev->id;
	s->have |= USTACK_HAVE_INODE;
}

static void setup_kstack(struct ustack_session *s)
{
	struct tep_event *ev = find_event(s->tep, "ftrace", "kernel_stack");
	struct fmt_kstack *f = &s->f_kstack;

	f->id = -1;
	if (!ev)
		return;
	f->size = tep_find_field(ev, "size");
	f->caller = tep_find_field(ev, "caller");
	if (!f->caller)
		return;
	f->id = ev->id;
	s->have |= USTACK_HAVE_KSTACK;
}

static void setup_ustack(struct ustack_session *s)
{
	struct tep_event *ev = find_event(s->tep, "ftrace", "user_stack");
	struct fmt_ustack *f = &s->f_ustack;

	f->id = -1;
	if (!ev)
		return;
	f->tgid = tep_find_field(ev, "tgid");
	f->caller = tep_find_field(ev, "caller");
	if (!f->caller)
		return;
	f->id = ev->id;
	s->have |= USTACK_HAVE_USTACK;
}

/* ------------------------------------------------------------------ */
/* Tasks                                                              */
/* ------------------------------------------------------------------ */

static struct utask *task_find(const struct ustack_session *s, int pid)
{
	struct utask *t;

	for (t = s->tasks[(unsigned int)pid % TASK_BUCKETS]; t; t = t->next)
		if (t->pid == pid)
			return t;
	return NULL;
}

static struct utask *task_get(struct ustack_session *s, int pid)
{
	struct utask *t = task_find(s, pid);
	unsigned int b = (unsigned int)pid % TASK_BUCKETS;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	ulist_init(&t->waiting);
	t->next = s->tasks[b];
	s->tasks[b] = t;
	return t;
}

static int task_tgid(const struct ustack_session *s, int pid)
{
	const struct utask *t = task_find(s, pid);

	return t ? t->tgid : 0;
}

/* ------------------------------------------------------------------ */
/* Stack objects and the (pid, cookie) table                          */
/* ------------------------------------------------------------------ */

static size_t key_hash(const struct ustack_session *s, int pid, uint64_t cookie)
{
	uint64_t v = cookie ^ ((uint64_t)(unsigned int)pid << 32) ^ (unsigned int)pid;

	v ^= v >> 31;
	v *= 0x9e3779b97f4a7c15ULL;
	v ^= v >> 29;
	return v & (s->nr_hash - 1);
}

static struct ustk *ustk_new(void)
{
	struct ustk *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->refs = 1;
	st->wait_tail = &st->wait_head;
	ulist_init(&st->lru);
	ulist_init(&st->task);
	return st;
}

static struct ustk *ustk_get(struct ustk *st)
{
	st->refs++;
	return st;
}

static void ustk_put(struct ustk *st)
{
	if (!st || --st->refs)
		return;
	free(st->raw_off);
	free(st->raw_id);
	free(st->frames);
	free(st);
}

static struct ustk *hash_find(const struct ustack_session *s, int pid, uint64_t cookie)
{
	struct ustk *st;

	for (st = s->hash[key_hash(s, pid, cookie)]; st; st = st->hnext)
		if (st->pid == pid && st->cookie == cookie)
			return st;
	return NULL;
}

static void hash_grow(struct ustack_session *s)
{
	struct ustk **old = s->hash, *st, *next;
	size_t old_nr = s->nr_hash, i, b;
	struct ustk **nh;

	nh = calloc(old_nr * 2, sizeof(*nh));
	if (!nh)
		return;		/* longer chains, still correct */
	s->hash = nh;
	s->nr_hash = old_nr * 2;
	for (i = 0; i < old_nr; i++) {
		for (st = old[i]; st; st = next) {
			next = st->hnext;
			b = key_hash(s, st->pid, st->cookie);
			st->hnext = nh[b];
			nh[b] = st;
		}
	}
	free(old);
}

/* The table holds one reference. */
static void hash_insert(struct ustack_session *s, struct ustk *st)
{
	size_t b;

	if (s->nr_entries >= s->nr_hash)
		hash_grow(s);
	b = key_hash(s, st->pid, st->cookie);
	st->hnext = s->hash[b];
	s->hash[b] = st;
	st->in_hash = true;
	s->nr_entries++;
}

static void hash_remove(struct ustack_session *s, struct ustk *st)
{
	struct ustk **pp;

	if (!st->in_hash)
		return;
	for (pp = &s->hash[key_hash(s, st->pid, st->cookie)]; *pp; pp = &(*pp)->hnext) {
		if (*pp == st) {
			*pp = st->hnext;
			break;
		}
	}
	st->in_hash = false;
	s->nr_entries--;
	ustk_put(st);
}

static int timeline_add(struct ustack_session *s, struct ustk *st,
			uint64_t deadline, enum tl_kind kind)
{
	struct tl_node *n = malloc(sizeof(*n));

	if (!n)
		return -1;
	n->st = ustk_get(st);
	n->deadline = deadline;
	n->kind = kind;
	n->next = NULL;
	*s->tl_tail = n;
	s->tl_tail = &n->next;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Handing samples out                                                */
/* ------------------------------------------------------------------ */

static void sample_free(struct usample *smp)
{
	if (!smp)
		return;
	ustk_put(smp->st);
	free(smp->rec);
	free(smp->kframes);
	free(smp);
}

static void count_sample(struct ustack_session *s, const struct ustack_sample *pub)
{
	unsigned int i;

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
	for (i = 0; i < pub->nr_frames; i++)
		if (!pub->frames[i].map)
			s->stats.unresolved++;
}

static void deliver(struct ustack_session *s, struct usample *smp)
{
	struct ustack_sample *pub = &smp->pub;
	struct ustk *st = smp->st;

	/* the thread group may have been learnt after the event */
	if (!pub->tgid)
		pub->tgid = task_tgid(s, pub->pid);
	if (st && (pub->status == USTACK_SAMPLE_OK || pub->status == USTACK_SAMPLE_SYNC)) {
		pub->nr_frames = st->nr;
		pub->frames = st->frames;
		pub->stack_flags = st->flags;
	}
	count_sample(s, pub);
	if (s->fn)
		s->fn(pub, s->ctx);
}

static void drain_ordered(struct ustack_session *s)
{
	struct usample *smp;

	while (!ulist_empty(&s->order)) {
		smp = ulist_entry(s->order.next, struct usample, order);
		if (!smp->complete)
			break;
		ulist_del(&smp->order);
		deliver(s, smp);
		sample_free(smp);
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
	sample_free(smp);
}

static void complete_with(struct ustack_session *s, struct usample *smp,
			  struct ustk *st, enum ustack_sample_status status)
{
	if (smp->st != st) {
		ustk_put(smp->st);
		smp->st = ustk_get(st);
	}
	st->answered++;
	complete(s, smp, status);
}

/* Hand out (or lose) every sample waiting on @st. */
static void release_waiters(struct ustack_session *s, struct ustk *st,
			    enum ustack_sample_status status)
{
	struct usample *smp, *next;

	smp = st->wait_head;
	st->wait_head = NULL;
	st->wait_tail = &st->wait_head;
	st->nr_waiting = 0;
	for (; smp; smp = next) {
		next = smp->wnext;
		smp->wnext = NULL;
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
 * Bind the ids of a deferred stack. Returns true when the binding is
 * final: every file id has an announcement at or before the stack, which
 * no later record can change since the feed is in timestamp order.
 */
static bool bind_deferred(struct ustack_session *s, struct ustk *st, bool force)
{
	const struct ustack_mapping *map;
	bool final = true, after;
	unsigned int i;

	for (i = 0; i < st->nr; i++) {
		struct ustack_frame *fr = &st->frames[i];

		fr->offset = st->raw_off[i];
		fr->id = st->raw_id[i];
		fr->map = NULL;
		if (fr->id == USTACK_ID_ANON || fr->id == USTACK_ID_NOMAP)
			continue;
		map = ustack_maps_lookup(s->maps, fr->id, st->ts, &after);
		if (!map || after)
			final = false;
		if (map && (!after || force))
			fr->map = map;
	}
	return final;
}

/* Map the raw addresses of a synchronous stack through a maps snapshot. */
static bool bind_sync(struct ustack_session *s, struct ustk *st, bool force)
{
	const struct ustack_snapshot *snap;
	const struct ustack_mapping *map;
	bool after;
	unsigned int i;

	snap = ustack_snapshots_find(s->snaps, st->tgid, st->ts, &after);
	if ((!snap || after) && !force)
		return false;
	for (i = 0; i < st->nr; i++) {
		struct ustack_frame *fr = &st->frames[i];
		uint64_t off;

		fr->offset = st->raw_off[i];
		fr->id = USTACK_ID_NOMAP;
		fr->map = NULL;
		map = snap ? ustack_snapshot_map(snap, fr->offset, &off) : NULL;
		if (map) {
			fr->offset = off;
			fr->id = map->id;
			fr->map = map;
		}
	}
	return true;
}

static bool bind_stack(struct ustack_session *s, struct ustk *st, bool force)
{
	if (st->sync)
		return bind_sync(s, st, force);
	return bind_deferred(s, st, force);
}

static int stack_alloc_frames(struct ustk *st, unsigned int nr)
{
	st->nr = nr;
	if (!nr)
		return 0;
	st->raw_off = calloc(nr, sizeof(*st->raw_off));
	st->raw_id = calloc(nr, sizeof(*st->raw_id));
	st->frames = calloc(nr, sizeof(*st->frames));
	if (!st->raw_off || !st->raw_id || !st->frames) {
		st->nr = 0;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Waiting cookies                                                    */
/* ------------------------------------------------------------------ */

static void unlink_waiting(struct ustack_session *s, struct ustk *st)
{
	if (ulist_empty(&st->lru))
		return;
	ulist_del(&st->lru);
	ulist_del(&st->task);
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
	ustk_put(st);
}

static void evict_oldest(struct ustack_session *s)
{
	struct ustk *st;

	while (s->nr_waiting > s->opts.max_pending && !ulist_empty(&s->lru)) {
		st = ulist_entry(s->lru.next, struct ustk, lru);
		s->stats.evicted++;
		lose_entry(s, st);
	}
}

static void drop_latest(struct ustack_session *s, struct utask *t)
{
	if (!t->last)
		return;
	if (!t->last->answered)
		s->stats.unmatched++;
	ustk_put(t->last);
	t->last = NULL;
}

static struct ustk *waiting_entry(struct ustack_session *s, int pid,
				  uint64_t cookie, uint64_t ts)
{
	struct utask *t = task_get(s, pid);
	struct ustk *st;

	if (!t)
		return NULL;
	st = ustk_new();
	if (!st)
		return NULL;
	st->pid = pid;
	st->cookie = cookie;
	st->state = USTK_WAITING;
	st->first_ts = ts;
	hash_insert(s, st);	/* the table takes our reference */
	ulist_add_tail(&st->lru, &s->lru);
	ulist_add_tail(&st->task, &t->waiting);
	return st;
}

static void wait_on(struct ustack_session *s, struct ustk *st, struct usample *smp)
{
	if (smp->st != st) {
		ustk_put(smp->st);
		smp->st = ustk_get(st);
	}
	*st->wait_tail = smp;
	st->wait_tail = &smp->wnext;
	smp->wnext = NULL;
	if (st->state != USTK_WAITING)
		return;
	st->nr_waiting++;
	s->nr_waiting++;
	s->stats.pending++;
}

/* The stack @pid's kernel entry @cookie already got, if it was the last */
static struct ustk *latest_stack(const struct ustack_session *s, int pid,
				 uint64_t cookie)
{
	const struct utask *t = task_find(s, pid);

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
	struct utask *t = task_get(s, st->pid);

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
	struct utask *t = task_find(s, answered->pid);
	struct ulist *pos;
	struct ustk *st;

	if (!t)
		return;
	for (pos = t->waiting.next; pos != &t->waiting; pos = pos->next) {
		st = ulist_entry(pos, struct ustk, task);
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
	ustk_put(st);
	free(n);
}

static void run_timeline(struct ustack_session *s, bool all)
{
	struct tl_node *n;

	while ((n = s->tl_head) && (all || n->deadline < s->now)) {
		s->tl_head = n->next;
		if (!s->tl_head)
			s->tl_tail = &s->tl_head;
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
	s->nr_cpus = nr;
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
			if (all || deadline < s->now) {
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
	if (s->have & (USTACK_HAVE_COOKIE | USTACK_HAVE_USTACK))
		return true;
	return s->opts.want_kernel && (s->have & USTACK_HAVE_KSTACK);
}

static int on_event(struct ustack_session *s, struct ucpu *c,
		    struct tep_record *rec, int type)
{
	struct usample *smp;
	int pid = tep_data_pid(s->tep, rec);

	s->stats.events++;
	/* No context switch between an event and its cookie */
	if (c->depth && c->pend[c->depth - 1]->pub.pid != pid)
		give_up_cpu(s, c, USTACK_SAMPLE_NO_COOKIE);
	if (c->depth == NEST_MAX)
		give_up(s, c, 0, USTACK_SAMPLE_NO_COOKIE);

	smp = calloc(1, sizeof(*smp));
	if (!smp)
		return -1;
	smp->rec = record_clone(rec);
	if (!smp->rec) {
		free(smp);
		return -1;
	}
	ulist_init(&smp->order);
	smp->pub.ts = rec->ts;
	smp->pub.cpu = rec->cpu;
	smp->pub.pid = pid;
	smp->pub.tgid = task_tgid(s, pid);
	smp->pub.comm = tep_data_comm_from_pid(s->tep, pid);
	smp->pub.event = tep_find_event(s->tep, type);
	smp->pub.record = smp->rec;
	smp->pub.status = USTACK_SAMPLE_NO_COOKIE;
	if (s->opts.ordered)
		ulist_add_tail(&smp->order, &s->order);

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

static void on_kstack(struct ustack_session *s, struct ucpu *c, struct tep_record *rec)
{
	const struct fmt_kstack *f = &s->f_kstack;
	struct usample *smp = c->last;
	unsigned int esize, nr, max, i, n = 0;
	uint64_t addr;

	if (!smp || c->last_kind != LAST_EVENT || smp->pub.pid != tep_data_pid(s->tep, rec)) {
		forget_last(c);
		return;
	}
	c->last_kind = LAST_KSTACK;
	if (!s->opts.want_kernel || smp->kframes)
		return;
	esize = f->caller->elementsize ? f->caller->elementsize : 8;
	if (esize > 8 || f->caller->offset >= rec->size)
		return;
	max = (rec->size - f->caller->offset) / esize;
	nr = f->size ? field_num(s->tep, rec, f->size, max) : max;
	if (nr > max)
		nr = max;
	if (!nr)
		return;
	smp->kframes = calloc(nr, sizeof(*smp->kframes));
	if (!smp->kframes)
		return;
	for (i = 0; i < nr; i++) {
		addr = array_elem(s->tep, (char *)rec->data + f->caller->offset, i, esize);
		/* unused slots are 0; old kernels end the trace with ULONG_MAX */
		if (!addr || addr == (esize == 8 ? UINT64_MAX : UINT32_MAX))
			continue;
		smp->kframes[n++] = addr;
	}
	smp->pub.kframes = smp->kframes;
	smp->pub.nr_kframes = n;
}

static void on_cookie(struct ustack_session *s, struct ucpu *c, struct tep_record *rec)
{
	int pid = tep_data_pid(s->tep, rec);
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
	cookie = field_num(s->tep, rec, s->f_cookie.cookie, 0);
	if (!cookie) {
		complete(s, smp, USTACK_SAMPLE_NO_STACK);
		return;
	}
	attach_cookie(s, smp, cookie);
}

static int fill_deferred(struct ustack_session *s, struct ustk *st, struct tep_record *rec)
{
	const struct fmt_stack *f = &s->f_stack;
	const void *offs, *ids;
	unsigned int lo, li, nr, i;

	offs = field_dyn(s->tep, rec, f->offsets, &lo);
	ids = field_dyn(s->tep, rec, f->ids, &li);
	nr = (offs ? lo / 8 : 0);
	if (!ids || li / 8 < nr)
		nr = ids ? li / 8 : 0;
	if (stack_alloc_frames(st, nr))
		return -1;
	for (i = 0; i < nr; i++) {
		st->raw_off[i] = array_elem(s->tep, offs, i, 8);
		st->raw_id[i] = array_elem(s->tep, ids, i, 8);
	}
	st->flags = field_num(s->tep, rec, f->flags, 0);
	st->ts = rec->ts;
	return 0;
}

static void on_stack(struct ustack_session *s, struct ucpu *c, struct tep_record *rec)
{
	int pid = tep_data_pid(s->tep, rec);
	uint64_t cookie;
	struct ustk *st;

	s->stats.stacks++;
	forget_last(c);
	cookie = field_num(s->tep, rec, s->f_stack.cookie, 0);
	st = hash_find(s, pid, cookie);
	if (st && st->state != USTK_WAITING) {
		s->stats.unmatched++;	/* a second answer: keep the first */
		return;
	}
	if (!st) {
		/* No cookie yet: it may sort after us (skew), keep a while */
		st = ustk_new();
		if (!st)
			return;
		st->pid = pid;
		st->cookie = cookie;
		st->first_ts = rec->ts;
		hash_insert(s, st);
	}
	if (fill_deferred(s, st, rec)) {
		lose_entry(s, st);
		return;
	}
	if (st->flags & USTACK_STACK_TRUNCATED)
		s->stats.truncated++;
	unlink_waiting(s, st);
	supersede(s, st);
	set_latest(s, st);
	st->state = bind_stack(s, st, false) ? USTK_FINAL : USTK_HELD;
	timeline_add(s, st, rec->ts + s->opts.hold_ns, TL_EXPIRE);
	if (st->state == USTK_FINAL)
		release_waiters(s, st, USTACK_SAMPLE_OK);
}

/* Announcements stored plus distinct files named by maps snapshots */
static void update_mappings(struct ustack_session *s)
{
	s->stats.mappings = ustack_maps_count(s->maps) +
			    ustack_snapshots_mappings(s->snaps);
}

static void on_inode(struct ustack_session *s, struct ucpu *c, struct tep_record *rec)
{
	const struct fmt_inode *f = &s->f_inode;
	struct ustack_mapping m = { 0 };
	const void *bid, *path;
	unsigned int blen, plen;
	char *p;

	forget_last(c);
	m.id = field_num(s->tep, rec, f->fid, 0);
	m.ts = rec->ts;
	m.ino = field_num(s->tep, rec, f->ino, 0);
	m.dev = field_num(s->tep, rec, f->dev, 0);
	m.tgid = field_num(s->tep, rec, f->tgid, 0);
	m.flags = field_num(s->tep, rec, f->flags, 0);
	bid = field_dyn(s->tep, rec, f->build_id, &blen);
	if (bid) {
		m.build_id_len = blen > USTACK_BUILD_ID_MAX ? USTACK_BUILD_ID_MAX : blen;
		memcpy(m.build_id, bid, m.build_id_len);
	}
	path = field_dyn(s->tep, rec, f->path, &plen);
	p = strndup(path ? path : "", plen);
	if (!p)
		return;
	m.path = p;
	ustack_maps_add(s->maps, &m);
	free(p);
	update_mappings(s);
}

static int fill_sync(struct ustack_session *s, struct ustk *st, struct tep_record *rec)
{
	const struct tep_format_field *f = s->f_ustack.caller;
	unsigned int esize, max, i, n = 0;
	uint64_t va;

	esize = f->elementsize ? f->elementsize : 8;
	if (esize > 8 || f->offset >= rec->size)
		return stack_alloc_frames(st, 0);
	max = (rec->size - f->offset) / esize;
	if (f->arraylen && max > f->arraylen)
		max = f->arraylen;
	/* Unused slots are zero: the stack ends at the first one */
	while (n < max && array_elem(s->tep, (char *)rec->data + f->offset, n, esize))
		n++;
	if (stack_alloc_frames(st, n))
		return -1;
	for (i = 0; i < n; i++) {
		va = array_elem(s->tep, (char *)rec->data + f->offset, i, esize);
		st->raw_off[i] = va;
		st->raw_id[i] = USTACK_ID_NOMAP;
	}
	return 0;
}

static void on_ustack(struct ustack_session *s, struct ucpu *c, struct tep_record *rec)
{
	int pid = tep_data_pid(s->tep, rec);
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
	tgid = field_num(s->tep, rec, s->f_ustack.tgid, 0);
	if (tgid && !smp->pub.tgid)
		smp->pub.tgid = tgid;
	if (tgid && pid)
		ustack_session_set_tgid(s, pid, tgid);

	st = ustk_new();
	if (!st || fill_sync(s, st, rec)) {
		ustk_put(st);
		complete(s, smp, USTACK_SAMPLE_NO_COOKIE);
		return;
	}
	st->sync = true;
	st->pid = pid;
	st->tgid = tgid ? tgid : pid;
	st->ts = smp->pub.ts;
	if (bind_stack(s, st, false)) {
		st->state = USTK_FINAL;
		complete_with(s, smp, st, USTACK_SAMPLE_SYNC);
	} else {
		/* No snapshot at or before the event yet: one may come */
		st->state = USTK_HELD;
		wait_on(s, st, smp);
		timeline_add(s, st, rec->ts + s->opts.hold_ns, TL_EXPIRE);
	}
	ustk_put(st);
}

static void account_missed(struct ustack_session *s, struct ucpu *c, long long missed)
{
	if (missed > 0) {
		s->stats.rb_lost += missed;
	} else {
		s->stats.rb_lost++;
		s->stats.rb_lost_unknown++;
	}
	/* Their cookies may be among the dropped records */
	give_up_cpu(s, c, USTACK_SAMPLE_LOST);
	forget_last(c);
}

/* ------------------------------------------------------------------ */
/* API                                                                */
/* ------------------------------------------------------------------ */

/**
 * ustack_session_new - pair events, cookies, stacks and files
 * @tep:	handle with the formats of the traced instance
 * @opts:	options, NULL for defaults
 * @fn:		called for each finished sample
 * @ctx:	passed to @fn
 *
 * Our events are found by name; any of them may be missing (see
 * ustack_session_events()). Returns NULL on allocation failure.
 */
struct ustack_session *ustack_session_new(struct tep_handle *tep,
					  const struct ustack_session_opts *opts,
					  ustack_sample_fn fn, void *ctx)
{
	struct ustack_session *s;

	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->tep = tep;
	if (opts)
		s->opts = *opts;
	if (!s->opts.hold_ns)
		s->opts.hold_ns = USTACK_HOLD_NS_DEFAULT;
	if (!s->opts.max_pending)
		s->opts.max_pending = USTACK_MAX_PENDING_DEFAULT;
	s->fn = fn;
	s->ctx = ctx;
	ulist_init(&s->lru);
	ulist_init(&s->order);
	s->tl_tail = &s->tl_head;
	s->nocookie_deadline = UINT64_MAX;
	s->nr_hash = 1024;
	s->hash = calloc(s->nr_hash, sizeof(*s->hash));
	s->maps = ustack_maps_new();
	s->snaps = ustack_snapshots_new();
	if (!s->hash || !s->maps || !s->snaps) {
		ustack_session_free(s);
		return NULL;
	}
	setup_cookie(s);
	setup_stack(s);
	setup_inode(s);
	setup_kstack(s);
	setup_ustack(s);
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
	struct utask *t, *next;
	int i;

	if (!s)
		return;
	s->fn = NULL;
	if (s->hash && s->maps && s->snaps)
		ustack_session_flush(s);
	for (i = 0; i < TASK_BUCKETS; i++) {
		for (t = s->tasks[i]; t; t = next) {
			next = t->next;
			free(t);
		}
	}
	free(s->hash);
	free(s->cpus);
	ustack_maps_free(s->maps);
	ustack_snapshots_free(s->snaps);
	free(s);
}

static void advance(struct ustack_session *s, uint64_t ts)
{
	if (ts > s->now)
		s->now = ts;
	run_timeline(s, false);
	run_nocookie_timeouts(s, false);
}

/**
 * ustack_session_feed - process one record
 * @s:		the session
 * @rec:	the record; only used during the call (copied when kept)
 *
 * Records must come in timestamp order across CPUs, with @rec->cpu set.
 * Returns 0, or -1 when a sample could not be allocated.
 */
int ustack_session_feed(struct ustack_session *s, struct tep_record *rec)
{
	struct ucpu *c;
	int type, ret = 0;

	c = get_cpu(s, rec->cpu);
	if (!c)
		return -1;
	if (rec->missed_events)
		account_missed(s, c, rec->missed_events);
	advance(s, rec->ts);

	type = tep_data_type(s->tep, rec);
	if (type == s->f_cookie.id)
		on_cookie(s, c, rec);
	else if (type == s->f_stack.id)
		on_stack(s, c, rec);
	else if (type == s->f_inode.id)
		on_inode(s, c, rec);
	else if (type == s->f_kstack.id)
		on_kstack(s, c, rec);
	else if (type == s->f_ustack.id)
		on_ustack(s, c, rec);
	else
		ret = on_event(s, c, rec, type);
	return ret;
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
 * @n:		how many (0 = unknown, counted as 1)
 *
 * For losses not reported through tep_record.missed_events (those are
 * counted by ustack_session_feed()). Events pending on @cpu may have lost
 * their cookie: they are reported as "stack lost".
 */
void ustack_session_add_lost(struct ustack_session *s, int cpu, uint64_t n)
{
	struct ucpu *c = get_cpu(s, cpu);

	if (!n) {
		s->stats.rb_lost++;
		s->stats.rb_lost_unknown++;
	} else {
		s->stats.rb_lost += n;
	}
	if (c) {
		give_up_cpu(s, c, USTACK_SAMPLE_LOST);
		forget_last(c);
	}
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
	if (ustack_snapshots_add(s->snaps, tgid, ts, maps_text))
		return -1;
	update_mappings(s);
	return 0;
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
	struct utask *t;
	struct ustk *st;
	int cpu, i;

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		give_up_cpu(s, &s->cpus[cpu], USTACK_SAMPLE_NO_COOKIE);
		forget_last(&s->cpus[cpu]);
	}
	s->nocookie_deadline = UINT64_MAX;
	run_timeline(s, true);
	while (!ulist_empty(&s->lru)) {
		st = ulist_entry(s->lru.next, struct ustk, lru);
		lose_entry(s, st);
	}
	drain_ordered(s);
	for (i = 0; i < TASK_BUCKETS; i++) {
		for (t = s->tasks[i]; t; t = t->next)
			drop_latest(s, t);
	}
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
 * ustack_session_events - which of our event formats the tep has
 * @s: the session
 *
 * Returns a mask of USTACK_HAVE_*.
 */
unsigned int ustack_session_events(const struct ustack_session *s)
{
	return s->have;
}

/**
 * ustack_session_set_tgid - thread group of a task
 * @s:		the session
 * @pid:	task
 * @tgid:	its thread group id
 */
void ustack_session_set_tgid(struct ustack_session *s, int pid, int tgid)
{
	struct utask *t = task_get(s, pid);

	if (t)
		t->tgid = tgid;
}
