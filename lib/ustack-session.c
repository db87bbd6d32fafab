// SPDX-License-Identifier: LGPL-2.1
/*
 * The session (include/ustack-session.h): records are fed in, complete
 * samples (struct ustack_sample) come out. This file is its API, the
 * dispatch of each record by kind to its stack source's handlers
 * (ustack-pair-deferred.c, ustack-pair-perf.c, ustack-pair-sync.c), which
 * the pairing core (ustack-pair.c) pairs; the samples it completes go
 * out through ustack-pair-out.c: counted, filtered, in order.
 *
 * Output order: by default a sample is handed out as soon as it is
 * complete (what live output wants). Decisions only depend on record
 * timestamps, never on wall time, so feeding the same records (live or
 * from trace.dat) gives the same samples in the same order. With
 * opts.ordered samples are handed out in feed (event timestamp) order.
 *
 * What is not shown: our own records (maps and info markers, the helper
 * events a capture enabled) and, once thread groups are followed, events
 * of tasks known to be in another group. Such an event is skipped with
 * what the kernel wrote right behind it (rule 1 of kernel-abi.md: its
 * cookie and stack traces). The pid and comm filters act when a sample
 * goes out, when its thread group is known; filtered samples still count.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack-err.h"
#include "ustack-events.h"
#include "ustack-filter.h"
#include "ustack-hash.h"
#include "ustack-list.h"
#include "ustack-map-db.h"
#include "ustack-session.h"
#include "ustack-session-int.h"
#include "ustack-sideband.h"
#include "ustack-tasks.h"
#include "ustack-unwind.h"
#include "ustack-warn.h"

/* ------------------------------------------------------------------ */
/* Losses and the launched command's exec                             */
/* ------------------------------------------------------------------ */

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
	ustack_pair_give_up_cpu(s, c, USTACK_SAMPLE_LOST);
	ustack_pair_forget_last(c);
	c->drops = false;
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
	s->maps = ustack_map_db_new(&s->tasks);
	s->sb_prev = ustack_sideband_prev_new();
	s->syscalls = ustack_syscalls_new();
	if (ustack_hash_table_init(&s->stacks, 1024) || ustack_hash_table_init(&s->frame_sets, 64) ||
	    !s->maps || !s->sb_prev || !s->syscalls) {
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
	ustack_map_db_free(s->maps);
	ustack_tasks_release(&s->tasks);
	ustack_hash_table_release(&s->stacks);
	/* every stack is gone, and with the last of each set the set */
	ustack_hash_table_release(&s->frame_sets);
	free(s->cpus);
	ustack_sideband_prev_free(s->sb_prev);
	/* after the flush: the samples handed out pointed at its events */
	ustack_syscalls_free(s->syscalls);
	ustack_pair_drain_pools(s);
	free(s->uframes);
	free(s->used);
	ustack_throttle_release(&s->throttle);
	free(s);
}

static void advance(struct ustack_session *s, uint64_t ts)
{
	if (ts > s->now)
		s->now = ts;
	ustack_pair_run_timeline(s, false);
	ustack_pair_run_nocookie_timeouts(s, false);
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
		ustack_pair_learn(s, recs[i], ustack_events_pid(s->ev, recs[i]));
}

/* ustack_session_feed() of a record of CPU @c (no side-band text) */
static int feed_cpu(struct ustack_session *s, struct ucpu *c, struct tep_record *rec,
		    enum ustack_rec kind, int pid)
{
	if (rec->missed_events)
		account_missed(s, c, rec->missed_events);
	advance(s, rec->ts);
	ustack_pair_learn(s, rec, pid);
	exec_seen(s, ustack_events_exec_pid(s->ev, rec));
	/* task_newtask and task_rename: a helper of ours, or traced */
	if (kind == USTACK_REC_OURS || kind == USTACK_REC_EVENT)
		ustack_pair_learn_name(s, rec);
	if (kind == USTACK_REC_OURS)
		learn_info(s, rec);
	if (skip(s, c, kind, pid)) {
		if (kind == USTACK_REC_COOKIE)
			ustack_pair_deferred_skipped(s, rec, pid);
		return 0;
	}

	switch (kind) {
	case USTACK_REC_COOKIE:
		ustack_pair_deferred_cookie(s, c, rec, pid);
		break;
	case USTACK_REC_STACK:
		ustack_pair_deferred_stack(s, c, rec, pid);
		break;
	case USTACK_REC_COPY:
		ustack_pair_deferred_copy(s, c, rec, pid);
		break;
	case USTACK_REC_INODE:
		ustack_pair_deferred_inode(s, c, rec);
		break;
	case USTACK_REC_KSTACK:
		ustack_pair_kstack(s, c, rec, pid);
		break;
	case USTACK_REC_USTACK:
		ustack_pair_sync_ustack(s, c, rec, pid);
		break;
	case USTACK_REC_EVENT:
		return ustack_pair_event(s, c, rec, pid);
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
		ret = ustack_sideband_parse_prev(s->sb_prev, text, rec->ts, &sb);
		if (!ret)
			ustack_session_sideband(s, &sb);
		else
			sideband_unread(s, ret);
		return s->err;
	}
	/* a sample stored as bytes (ustack:sample) */
	ret = kind == USTACK_REC_OURS ? ustack_events_sample(s->ev, rec) : 0;
	if (ret) {
		if (ret > 0)
			ret = ustack_sideband_decode_prev(s->sb_prev, rec->data, rec->size,
							  rec->ts, ret == 2, &sb);
		else
			ret = USTACK_SB_MALFORMED;
		if (!ret)
			ustack_session_sideband(s, &sb);
		else
			sideband_unread(s, ret);
		return s->err;
	}
	if (s->err)
		return s->err;
	c = ustack_pair_get_cpu(s, rec->cpu);
	if (!c) {
		ustack_pair_fail(s, USTACK_ERR_NOMEM);
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
		snprintf(buf, size, "%s", ustack_err_strerror(s->err));
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
 *		an unknown number, counted as 1), or USTACK_DROPS_BEGIN
 *
 * For losses told apart from the record after them (those that record
 * carries are counted by ustack_session_feed()). Events pending on @cpu
 * may have lost their cookie: they are reported as "stack lost". From a
 * USTACK_DROPS_BEGIN to the next loss, so is every event of @cpu whose
 * cookie does not come.
 */
void ustack_session_add_lost(struct ustack_session *s, int cpu, long long missed)
{
	struct ucpu *c = ustack_pair_get_cpu(s, cpu);

	if (missed != USTACK_DROPS_BEGIN) {
		account_missed(s, c, missed);
		return;
	}
	/* until the loss that ends the span (account_missed()) */
	if (c)
		c->drops = true;
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
	if (ustack_map_db_add_snapshot(s->maps, tgid, ts, maps_text))
		return -1;
	ustack_pair_update_mappings(s);
	return 0;
}

/* The kernel's throttling of the perf source's events, as told so far */
static void throttle_stats(struct ustack_session *s)
{
	s->stats.throttled = s->throttle.count;
	s->stats.throttled_ns = ustack_throttle_ns(&s->throttle);
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
	uint64_t perf;
	int ret;

	/*
	 * A perf record that did not parse: counted as a trace.dat's are;
	 * its time, if any, is not trusted to move the session's clock
	 */
	if (rec->kind == USTACK_SB_UNPARSED) {
		sideband_unread(s, USTACK_SB_MALFORMED);
		return 0;
	}
	advance(s, rec->ts);
	/* every record's time, for a span still open at the end */
	ustack_throttle_note(&s->throttle, rec);
	/* counted there; said by ustack_session_stats() */
	if (rec->kind == USTACK_SB_THROTTLE || rec->kind == USTACK_SB_UNTHROTTLE)
		return 0;
	/* the side-band knows the thread group of every task it names */
	if (rec->kind != USTACK_SB_LOST && rec->pid > 0 && rec->tid > 0)
		ustack_tasks_set_tgid(&s->tasks, rec->tid, rec->pid);
	if (rec->kind == USTACK_SB_SAMPLE) {
		s->used_set = false;
		perf = s->stats.perf;
		ret = ustack_pair_perf_sample(s, rec);
		/*
		 * The rings carry samples: the losses told before the first
		 * one were mostly samples too (a burst of mappings can fill a
		 * ring just before a traced event), and the rings' count
		 * takes them, as record's does (ustack_map_source_sideband())
		 */
		if (!perf && s->stats.perf)
			s->stats.rb_lost += s->stats.sideband_lost;
		return ret;
	}
	if (rec->kind == USTACK_SB_COMM && rec->exec) {
		/* a new program: the unwinder's files of the old one are no use */
		if (s->unw)
			ustack_unwinder_forget(s->unw, rec->pid);
		exec_seen(s, rec->tid);
	}
	if (rec->kind == USTACK_SB_DEFERRED)
		return ustack_pair_perf_deferred(s, rec);
	ustack_pair_fpexec_sideband(s, rec);
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
	ret = ustack_map_db_sideband(s->maps, rec);
	ustack_pair_update_mappings(s);
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
	return ustack_map_db_procmaps(s->maps);
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
		ustack_pair_give_up_cpu(s, &s->cpus[cpu], USTACK_SAMPLE_NO_COOKIE);
		ustack_pair_forget_last(&s->cpus[cpu]);
	}
	s->nocookie_deadline = UINT64_MAX;
	ustack_pair_perf_memo_release(s);
	ustack_pair_run_timeline(s, true);
	while (!ustack_list_empty(&s->lru)) {
		st = ustack_list_entry(s->lru.next, struct ustk, lru);
		ustack_pair_lose_entry(s, st);
	}
	ustack_pair_drain_ordered(s);
	ustack_tasks_for_each(&s->tasks, i, pos, tmp)
		ustack_pair_drop_latest(s, ustack_hash_table_entry(pos, struct ustack_task, node));
}

/**
 * ustack_session_stats - counters so far
 * @s: the session
 */
const struct ustack_stats *ustack_session_stats(struct ustack_session *s)
{
	throttle_stats(s);
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
 * ustack_session_take_unwinder - the stack copies' unwinder, for a recorder's worker
 * @s:		the session
 * @max_frames:	set to the frames a copy's unwind gives at most (the
 *		source's --max-stack, else USTACK_DWARF_MAX_FRAMES)
 *
 * A recording that writes the perf source's samples unread trims their
 * stack copies in a thread of its own (ustack-tracedat-sbtrim.c): the
 * unwinder is not thread-safe, so the session keeps none from then on
 * (it unwinds nothing it is not handed, and forgets no process's files
 * for the worker). The caller still owns it. Returns NULL when the
 * session has none.
 */
struct ustack_unwinder *ustack_session_take_unwinder(struct ustack_session *s,
						     unsigned int *max_frames)
{
	struct ustack_unwinder *u = s->unw;

	*max_frames = s->opts.perf_max_stack ? s->opts.perf_max_stack : USTACK_DWARF_MAX_FRAMES;
	s->unw = NULL;
	return u;
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
	ustack_map_db_use(s->maps, tgid);
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

/**
 * ustack_session_exec_no_fp - should @pid get stack copies now?
 * @s:		the session, which was just given the side-band record of
 *		a mapping of @pid
 * @pid:	its process
 *
 * True once, at the mapping of the program it executed, when that keeps
 * no frame pointers and its events are shown (ustack-pair-fpexec.c).
 */
bool ustack_session_exec_no_fp(struct ustack_session *s, int pid)
{
	return ustack_pair_fpexec_exec(s, pid);
}

/**
 * ustack_session_exec_copies - what became of @pid's stack copies
 * @s:		the session
 * @pid:	the process
 * @what:	the run gives copies, this one got them, or why not
 */
void ustack_session_exec_copies(struct ustack_session *s, int pid, enum ustack_exec_copies what)
{
	ustack_pair_fpexec_copies(s, pid, what);
}
