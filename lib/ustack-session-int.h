/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to the session's files: its objects, and what they call of each
 * other. The public API is include/ustack-session.h.
 *
 *   ustack-session.c         the API and the dispatch of records by kind
 *   ustack-pair.c            the pairing core: stacks and the (pid, cookie)
 *                            table, waiting cookies, the timeline, the
 *                            per-CPU pending events, completion
 *                            (kernel-abi.md, "Rules for user space")
 *   ustack-pair-deferred.c   the tracefs-deferred source's records
 *   ustack-pair-perf.c       the perf source's samples and deferred chains
 *   ustack-pair-sync.c       userstacktrace's synchronous stacks
 *   ustack-pair-unwind.c     stack copies unwound by CFI
 *   ustack-pair-out.c        a complete sample counted, filtered, handed out
 *
 * The session file calls the handlers and the core, the handlers call the
 * core, the core hands complete samples to ustack-pair-out.c: every call
 * goes one way, down.
 */
#ifndef _USTACK_SESSION_INT_H
#define _USTACK_SESSION_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ustack-events.h"
#include "ustack-hash.h"
#include "ustack-list.h"
#include "ustack-perf-source.h"
#include "ustack-session-opts.h"
#include "ustack-sideband.h"
#include "ustack-syscalls.h"
#include "ustack-tasks.h"
#include "ustack-throttle.h"

/* task, softirq, hardirq, NMI: at most 4 legitimately nest; keep margin */
#define NEST_MAX	8

/*
 * Freed objects of one kind kept for the next (lib/ustack-pair.c, which
 * makes and frees them all): a session makes and frees a sample, a stack
 * and a timeline node for about every event.
 */
struct pool {
	void		*free;		/* linked through each object's first word */
	size_t		nr;
};

enum ustk_state {
	USTK_WAITING,		/* cookie seen, no stack yet */
	USTK_HELD,		/* stack seen, some id not announced yet */
	USTK_FINAL,		/* stack seen and bound */
};

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
	/*
	 * The task's ABI, as the files of the frames said it once
	 * (ustack_pair_out_abi()), when @abi_asked: @abi_at is the frame
	 * whose file said it, as the frame-pointer check may cut the stack
	 * after asking
	 */
	enum ustack_syscall_abi	abi;
	unsigned int		abi_at;
	bool			abi_asked;
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
	bool			drops;		/* in a span where records may be dropped */
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

	struct ustack_map_db		*maps;
	struct ustack_sb_prev		*sb_prev;	/* a trace.dat's repeated samples */
	struct ustack_syscalls		*syscalls;	/* raw_syscalls:sys_enter by call */
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
	struct ustack_throttle		throttle;	/* the perf source's, told */
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

	/* programs without frame pointers in a frame-pointer run (ustack-pair-fpexec.c) */
	bool				fpexec_told;	/* ... walked by them, told once */
	bool				fpexec_copies;	/* ... get copies at their exec */
	bool				fpexec_twins;	/* ... some did: samples come twice */
	bool				fpexec_capped_told;

	uint64_t			maps_gen;	/* bumped at each mapping change */
	struct perf_memo		memo[MEMO_SLOTS];

	/* samples and frames held, against opts.mem_budget */
	size_t				held_bytes;
	int				err;		/* the first failure, sticky */
};

/* One more reference to @st (ustack_pair_ustk_put() drops one) */
static inline struct ustk *ustk_get(struct ustk *st)
{
	st->refs++;
	return st;
}

/* lib/ustack-pair.c: the samples complete at the head of the order go out */
void ustack_pair_drain_ordered(struct ustack_session *s);
/* lib/ustack-pair-out.c: a complete sample counted, filtered, handed out */
void ustack_pair_out_deliver(struct ustack_session *s, struct usample *smp);
/* lib/ustack-pair-out.c: the ABI of a task, as the files of its stack say */
enum ustack_syscall_abi ustack_pair_out_abi(struct ustack_session *s, struct ustk *st);

/* lib/ustack-pair.c: the object pools, emptied at the session's end */
void ustack_pair_drain_pools(struct ustack_session *s);
/* lib/ustack-pair.c: keep the first failure; returns -1 */
int ustack_pair_fail(struct ustack_session *s, int err);
/* lib/ustack-pair.c: a traced event as a sample with no stack yet */
struct usample *ustack_pair_sample_new(struct ustack_session *s, struct tep_record *rec, int pid);
/* lib/ustack-pair.c: free a sample handed out */
void ustack_pair_sample_free(struct ustack_session *s, struct usample *smp);
/* lib/ustack-pair.c: a new stack object, one reference */
struct ustk *ustack_pair_ustk_new(struct ustack_session *s);
/* lib/ustack-pair.c: drop a reference to a stack object (NULL: nothing) */
void ustack_pair_ustk_put(struct ustack_session *s, struct ustk *st);
/* lib/ustack-pair.c: room for @nr frames and their raw addresses */
int ustack_pair_alloc_frames(struct ustack_session *s, struct ustk *st, unsigned int nr);
/* lib/ustack-pair.c: bind a stack's frames to files; true when final */
bool ustack_pair_bind(struct ustack_session *s, struct ustk *st, bool force);
/* lib/ustack-pair.c: a sample is complete with @status */
void ustack_pair_complete(struct ustack_session *s, struct usample *smp,
			  enum ustack_sample_status status);
/* lib/ustack-pair.c: a sample is complete with the stack @st */
void ustack_pair_complete_with(struct ustack_session *s, struct usample *smp,
			       struct ustk *st, enum ustack_sample_status status);
/* lib/ustack-pair.c: a sample waits on @st */
void ustack_pair_wait_on(struct ustack_session *s, struct ustk *st, struct usample *smp);
/* lib/ustack-pair.c: something to do with @st at @deadline */
int ustack_pair_timeline_add(struct ustack_session *s, struct ustk *st,
			     uint64_t deadline, enum tl_kind kind);
/* lib/ustack-pair.c: run the timeline up to now (@all: to its end) */
void ustack_pair_run_timeline(struct ustack_session *s, bool all);
/* lib/ustack-pair.c: a cookie never answered: its samples are lost */
void ustack_pair_lose_entry(struct ustack_session *s, struct ustk *st);
/* lib/ustack-pair.c: a task's latest stack no longer answers cookies */
void ustack_pair_drop_latest(struct ustack_session *s, struct ustack_task *t);
/* lib/ustack-pair.c: a sample gets its cookie (rule 2) */
void ustack_pair_attach_cookie(struct ustack_session *s, struct usample *smp, uint64_t cookie);
/* lib/ustack-pair.c: true when (@pid, @cookie) is a skipped event's */
bool ustack_pair_answers_skipped(struct ustack_session *s, int pid, uint64_t cookie);
/* lib/ustack-pair.c: the entry a stack of (@pid, @cookie) fills */
struct ustk *ustack_pair_stack_entry(struct ustack_session *s, int pid, uint64_t cookie,
				     uint64_t ts);
/* lib/ustack-pair.c: a filled stack for a cookie: bind it, answer its samples */
void ustack_pair_stack_arrived(struct ustack_session *s, struct ustk *st, uint64_t ts);
/* lib/ustack-pair.c: the pending events of a CPU (NULL: out of memory) */
struct ucpu *ustack_pair_get_cpu(struct ustack_session *s, int cpu);
/* lib/ustack-pair.c: take a pending event off its CPU */
struct usample *ustack_pair_pend_take(struct ucpu *c, int idx);
/* lib/ustack-pair.c: give up every pending event of a CPU */
void ustack_pair_give_up_cpu(struct ustack_session *s, struct ucpu *c,
			     enum ustack_sample_status status);
/* lib/ustack-pair.c: the last record of a CPU was no traced event */
void ustack_pair_forget_last(struct ucpu *c);
/* lib/ustack-pair.c: the most recent pending event of @pid, or -1 */
int ustack_pair_top_of_pid(const struct ucpu *c, int pid);
/* lib/ustack-pair.c: events that waited hold_ns for a cookie get none */
void ustack_pair_run_nocookie_timeouts(struct ustack_session *s, bool all);
/* lib/ustack-pair.c: a traced event of the trace (rule 1) */
int ustack_pair_event(struct ustack_session *s, struct ucpu *c, struct tep_record *rec, int pid);
/* lib/ustack-pair.c: an ftrace:kernel_stack record */
void ustack_pair_kstack(struct ustack_session *s, struct ucpu *c, struct tep_record *rec,
			int pid);
/* lib/ustack-pair.c: the mappings changed */
void ustack_pair_update_mappings(struct ustack_session *s);
/* lib/ustack-pair.c: a task's name from task_newtask or task_rename */
void ustack_pair_learn_name(struct ustack_session *s, const struct tep_record *rec);
/* lib/ustack-pair.c: live, what /proc says about a task */
void ustack_pair_learn(struct ustack_session *s, const struct tep_record *rec, int pid);

/* lib/ustack-pair-deferred.c: a user_unwind_cookie record */
void ustack_pair_deferred_cookie(struct ustack_session *s, struct ucpu *c,
				 struct tep_record *rec, int pid);
/* lib/ustack-pair-deferred.c: a user_unwind_stack record */
void ustack_pair_deferred_stack(struct ustack_session *s, struct ucpu *c,
				struct tep_record *rec, int pid);
/* lib/ustack-pair-deferred.c: a stack copy record */
void ustack_pair_deferred_copy(struct ustack_session *s, struct ucpu *c,
			       struct tep_record *rec, int pid);
/* lib/ustack-pair-deferred.c: an inode_cache announcement */
void ustack_pair_deferred_inode(struct ustack_session *s, struct ucpu *c,
				struct tep_record *rec);
/* lib/ustack-pair-deferred.c: the cookie of a skipped event */
void ustack_pair_deferred_skipped(struct ustack_session *s, struct tep_record *rec, int pid);

/* lib/ustack-pair-sync.c: an ftrace:user_stack record */
void ustack_pair_sync_ustack(struct ustack_session *s, struct ucpu *c,
			     struct tep_record *rec, int pid);
/* lib/ustack-pair-sync.c: a synchronous stack for a sample, mapped or held */
void ustack_pair_sync_stack(struct ustack_session *s, struct usample *smp, struct ustk *st,
			    int tgid, uint64_t rec_ts);

/* lib/ustack-pair-perf.c: a sample of the perf stack source */
int ustack_pair_perf_sample(struct ustack_session *s, const struct ustack_sb_rec *sb);

void ustack_pair_fpexec_sideband(struct ustack_session *s, const struct ustack_sb_rec *rec);

bool ustack_pair_fpexec_no_fp(struct ustack_session *s, int tgid);
bool ustack_pair_fpexec_exec(struct ustack_session *s, int pid);
void ustack_pair_fpexec_copies(struct ustack_session *s, int pid, enum ustack_exec_copies what);

bool ustack_pair_fpexec_twin(struct ustack_session *s, const struct ustack_sb_rec *sb);
/* lib/ustack-pair-perf.c: a deferred user chain of perf samples */
int ustack_pair_perf_deferred(struct ustack_session *s, const struct ustack_sb_rec *sb);
/* lib/ustack-pair-perf.c: forget the last stack of every thread */
void ustack_pair_perf_memo_release(struct ustack_session *s);

/* lib/ustack-pair-unwind.c: a perf sample's stack copy unwound */
int ustack_pair_unwind_dwarf(struct ustack_session *s, struct ustk *st,
			     const struct ustack_sb_rec *sb, int tgid);
/* lib/ustack-pair-unwind.c: a deferred stack's copy unwound */
int ustack_pair_unwind_copy(struct ustack_session *s, struct ustk *st,
			    const struct tep_record *rec, struct ustack_copy_rec *cp);

#endif /* _USTACK_SESSION_INT_H */
