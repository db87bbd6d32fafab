// SPDX-License-Identifier: LGPL-2.1
/*
 * The mapping sources (ustack-map-source.h): file ids, the perf side-band,
 * /proc snapshots. A source starts as file ids (nothing to feed); the
 * stack source then opens the side-band or the snapshots in it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "ustack-events.h"
#include "ustack-instance.h"
#include "ustack-map-source-int.h"
#include "ustack-perf-source.h"
#include "ustack-proc.h"
#include "ustack-map-procmaps.h"
#include "ustack-tracedat-sbfile.h"
#include "ustack-tracedat-sbtrim.h"
#include "ustack-session.h"
#include "ustack-sideband.h"
#include "ustack-tempfile.h"
#include "ustack-throttle.h"
#include "ustack-warn.h"

struct map_ops {
	enum ustack_maps_kind	kind;
	/* USTACK_HELPER_* events the instance must trace for it */
	unsigned int		helpers;
	void (*batch)(struct ustack_map_source *ms, struct tep_record **recs, int nr);
	void (*task_exit)(struct ustack_map_source *ms, int tgid);
	char **(*procmaps)(struct ustack_map_source *ms);
};

/**
 * struct ustack_map_source - one run's mapping source
 * @ops:	which one
 * @ui:		the instance traced (its clock, its trace_marker)
 * @feed:	what it feeds: its stack source's, read there
 * @perf:	side-band: its perf events
 * @sbfile:	side-band, recording: its records for the trace.dat
 * @trim:	side-band, recording stack copies: what writes @sbfile, a
 *		worker trimming the copies (ustack-tracedat-sbtrim.h)
 * @max_stack:	side-band: the perf stack source's frame limit (0: none)
 * @unread:	the perf source's samples go to the file unread (its
 *		choice: recording; see sample_unread(), and @trim for the
 *		stack copies)
 * @tally:	what went so, for the summary
 * @throttle:	the kernel's throttling of the perf source's events, for
 *		@tally
 * @last_tgid:	the thread group whose PROCMAPS was last asked for
 * @procmaps:	snapshots
 * @no_perf:	why there is no side-band, once it was refused
 * @exec:	side-band, the perf source's events with stack copies, for
 *		the processes that execute a program without frame pointers
 *		(@exec.dwarf_size 0: none, see exec_copies())
 * @nr_exec:	how many processes have such events open
 */
struct ustack_map_source {
	const struct map_ops	*ops;
	struct ustack_instance	*ui;
	const struct ustack_map_feed *feed;
	struct ustack_perf_sideband	*perf;
	struct ustack_tracedat_sbfile	*sbfile;
	struct ustack_tracedat_sbtrim	*trim;
	unsigned int		max_stack;
	bool			unread;
	struct ustack_sample_tally tally;
	struct ustack_throttle	throttle;
	int			last_tgid;
	struct ustack_map_procmaps	*procmaps;
	pid_t			self;		/* getpid() is a syscall: once */
	char			no_perf[256];
	struct ustack_perf_source_opts exec;
	unsigned int		nr_exec;
};

/* ------------------------------------------------------------------ */
/* File ids: the session binds them; nothing to feed                  */
/* ------------------------------------------------------------------ */

static const struct map_ops file_ids_ops = {
	.kind		= USTACK_MAPS_FILE_IDS,
	/* names from the instance's task events */
	.helpers	= USTACK_HELPER_RENAME | USTACK_HELPER_NEWTASK,
};

/* ------------------------------------------------------------------ */
/* The perf side-band                                                 */
/* ------------------------------------------------------------------ */

/* The session's PROCMAPS: the last mappings of each process it saw */
static char **sideband_procmaps(struct ustack_map_source *ms)
{
	return ustack_session_procmaps(ms->feed->session);
}

/* It reports names and every mapping itself: no helper, no exit stop */
static const struct map_ops sideband_ops = {
	.kind		= USTACK_MAPS_SIDEBAND,
	.procmaps	= sideband_procmaps,
};

/*
 * Into the trace.dat: a sample says there whether the kernel cut its
 * chain, which report could not tell without the frame limit of this run
 */
static bool sample_cut(const struct ustack_map_source *ms, const struct ustack_sb_rec *rec)
{
	struct ustack_perf_source_stack cs;

	/* fewer entries than the limit: no frame count reaches it */
	if (!ms->max_stack || rec->nr_chain < ms->max_stack)
		return rec->cut;
	ustack_perf_source_stack(rec, ms->max_stack, &cs);
	return cs.truncated;
}

/*
 * @cut: sample_cut() of a sample. Recording stack copies, every record
 * goes through the worker's writer, which keeps their order
 */
static int sbfile_add(struct ustack_map_source *ms, const struct ustack_sb_rec *rec, bool cut)
{
	struct ustack_sb_rec copy = *rec;
	unsigned int limit;

	if (rec->kind == USTACK_SB_SAMPLE)
		copy.cut = cut;
	if (ms->trim)
		return ustack_tracedat_sbtrim_add(ms->trim, &copy);
	/* a stack copy the session unwound: only the words the unwind read */
	if (rec->kind == USTACK_SB_SAMPLE && !ms->unread) {
		copy.stack_valid = ustack_session_stack_used(ms->feed->session, &limit);
		copy.unwind_max = limit;
		copy.cut |= limit != 0;
	}
	return ustack_tracedat_sbfile_add(ms->sbfile, &copy);
}

/* The worker's copies into the tally, once it is done */
static void trim_done(struct ustack_map_source *ms, bool write, int *ret)
{
	struct ustack_sbtrim_stats st;

	if (!ms->trim)
		return;
	if (ustack_tracedat_sbtrim_close(ms->trim, write, &st) < 0)
		*ret = -1;
	ms->trim = NULL;
	ms->tally.copies_trimmed = st.trimmed;
	ms->tally.copies_whole = st.whole;
	ms->tally.copies_repeated = st.repeated;
	ms->tally.worker_ns = st.worker_ns;
	ms->tally.truncated += st.truncated;
}

/* A side-band file that failed: the records not written yet go too */
static void sbfile_failed(struct ustack_map_source *ms)
{
	int ret = 0;

	ustack_warning("cannot write %s: the side-band is not recorded",
		       ms->feed->sideband_file);
	trim_done(ms, false, &ret);
	ustack_tracedat_sbfile_close(ms->sbfile);
	ms->sbfile = NULL;
}

static bool is_stack(const struct ustack_sb_rec *rec)
{
	return rec->kind == USTACK_SB_SAMPLE || rec->kind == USTACK_SB_DEFERRED;
}

/*
 * Recording frame-pointer or deferred chains, a sample is not read: the
 * file holds it whole, and pairing, mapping and counting it are report's
 * (as perf record leaves them to perf report). Reading it here would cost
 * more CPU than the recording. Only its process is noted, for PROCMAPS:
 * mostly the same one as the sample before, and any side-band record in
 * between (an exec, a new mapping) makes it asked again.
 */
static void sample_unread(struct ustack_map_source *ms, const struct ustack_sb_rec *rec,
			  bool cut)
{
	struct ustack_sample_tally *t = &ms->tally;

	if (rec->kind == USTACK_SB_SAMPLE)
		t->samples++;
	else
		t->stacks++;
	if (cut)
		t->truncated++;
	if (rec->pid > 0 && rec->pid != ms->last_tgid) {
		ustack_session_recorded(ms->feed->session, rec->pid);
		ms->last_tgid = rec->pid;
	}
}

/*
 * A process that executed a program without frame pointers, in a run that
 * walks them: events of its own, with stack copies, as long as it lives
 * (ustack-pair-fpexec.c). Only where it is shown, at most
 * USTACK_EXEC_SETS_MAX at once: each is an event per traced tracepoint
 * and CPU, each a file descriptor.
 */
static void exec_copies(struct ustack_map_source *ms, const struct ustack_sb_rec *rec)
{
	struct ustack_session *s = ms->feed->session;

	if (rec->kind == USTACK_SB_EXIT) {
		if (rec->pid == rec->tid && ustack_perf_sideband_drop_task(ms->perf, rec->pid))
			ms->nr_exec--;
		return;
	}
	if (rec->kind != USTACK_SB_MMAP || !ustack_session_exec_no_fp(s, rec->pid))
		return;
	if (ms->nr_exec >= USTACK_EXEC_SETS_MAX) {
		ustack_session_exec_copies(s, rec->pid, USTACK_EXEC_COPIES_CAPPED);
		return;
	}
	if (ustack_perf_sideband_add_task(ms->perf, &ms->exec, rec->pid) < 0) {
		/* gone already: nothing more of it will come */
		if (errno != ESRCH)
			ustack_session_exec_copies(s, rec->pid, USTACK_EXEC_COPIES_FAILED);
		return;
	}
	ms->nr_exec++;
	ustack_session_exec_copies(s, rec->pid, USTACK_EXEC_COPIES_OPENED);
}

/* The kernel's throttling so far; the spans still open to the latest record */
static void tally_throttle(struct ustack_map_source *ms)
{
	ms->tally.throttled = ms->throttle.count;
	ms->tally.throttled_ns = ustack_throttle_ns(&ms->throttle);
}

/**
 * ustack_map_source_sideband - one side-band record the readers got
 * @ms:		the mapping source
 * @rec:	the record
 *
 * To the session, and into the trace.dat when recording.
 */
void ustack_map_source_sideband(struct ustack_map_source *ms, const struct ustack_sb_rec *rec)
{
	bool cut = rec->cut;

	/* System-wide, the reads of our own reader are syscalls too */
	if (is_stack(rec) && rec->pid == ms->self)
		return;
	/* as the session notes them, to say the same (ustack-throttle.c) */
	if (rec->kind != USTACK_SB_UNPARSED)
		ustack_throttle_note(&ms->throttle, rec);
	/* once a sample: the tally and the file both say it */
	if (rec->kind == USTACK_SB_SAMPLE && (ms->unread || ms->sbfile))
		cut = sample_cut(ms, rec);
	if (ms->unread && is_stack(rec)) {
		sample_unread(ms, rec, cut);
	} else {
		ms->last_tgid = 0;
		ustack_session_sideband(ms->feed->session, rec);
		if (ms->exec.dwarf_size && ms->perf)
			exec_copies(ms, rec);
		/* as the session counts them (ustack_session_sideband()) */
		if (rec->kind == USTACK_SB_LOST)
			ms->tally.lost += rec->lost;
		else if (rec->kind == USTACK_SB_UNPARSED)
			ms->tally.sb_malformed++;
		else if (rec->kind == USTACK_SB_THROTTLE || rec->kind == USTACK_SB_UNTHROTTLE)
			tally_throttle(ms);
		else
			ms->tally.sideband++;
	}
	if (ms->sbfile && sbfile_add(ms, rec, cut) < 0)
		sbfile_failed(ms);
}

/*
 * Recording stack copies unread: a worker trims them to the words their
 * unwind reads, with the session's unwinder (the session unwinds none of
 * them). Without it the copies go whole.
 */
static void open_trim(struct ustack_map_source *ms)
{
	unsigned int max_frames;
	struct ustack_unwinder *u = ustack_session_take_unwinder(ms->feed->session, &max_frames);

	if (!u)
		return;
	ms->trim = ustack_tracedat_sbtrim_new(ms->sbfile, u, max_frames);
	if (!ms->trim)
		ustack_warning("cannot start the worker that trims the stack copies (%s): they "
			       "are recorded whole", strerror(errno));
}

static void on_sideband(const struct ustack_sb_rec *rec, void *data)
{
	ustack_map_source_sideband(data, rec);
}

/* The clock's name in the trace_clock file: "local [mono] ..." */
static char *clock_name(struct ustack_instance *ui)
{
	char *clock = tracefs_instance_file_read(ustack_instance_tracefs(ui), "trace_clock",
						 NULL);
	char *open, *close;

	open = clock ? strchr(clock, '[') : NULL;
	close = open ? strchr(open, ']') : NULL;
	if (!close) {
		free(clock);
		return NULL;
	}
	*close = '\0';
	memmove(clock, open + 1, close - open);
	return clock;
}

/**
 * ustack_map_source_open_sideband - map addresses through the perf side-band
 * @ms:		the mapping source
 * @src:	the perf stack source's events to open into the same rings
 *		(with @src->unread, its samples go to the file unread), or
 *		NULL for the side-band alone
 *
 * Opened before tracing starts: what exists is described from /proc then.
 * Recording, its file is opened first (once, whatever perf says).
 * Returns 0; 1 when perf refused (ustack_map_source_no_perf() says why);
 * -errno when the side-band's file cannot be written.
 */
int ustack_map_source_open_sideband(struct ustack_map_source *ms,
				    const struct ustack_perf_source_opts *src)
{
	const struct ustack_map_feed *feed = ms->feed;
	char *clock;

	if (feed->sideband_file && !ms->sbfile) {
		/* in the trace.dat's pages, the instance's sub-buffers */
		ms->sbfile = ustack_tracedat_sbfile_open(ustack_events_tep(feed->events),
						ustack_instance_subbuf_size(ms->ui),
						feed->sideband_file);
		if (!ms->sbfile)
			return -errno;
	}
	ms->unread = src && src->unread;
	clock = clock_name(ms->ui);
	ms->perf = ustack_perf_sideband_start(feed->pids, feed->nr_pids, clock ? clock : "local",
				     ustack_instance_now(ms->ui), src, on_sideband,
				     ms, ms->no_perf, sizeof(ms->no_perf));
	free(clock);
	if (!ms->perf) {
		ms->unread = false;
		return 1;
	}
	ms->max_stack = src ? src->max_stack : 0;
	ms->ops = &sideband_ops;
	if (ms->unread && src->dwarf_size && ms->sbfile)
		open_trim(ms);
	if (src && src->exec_copy_size && !ms->unread) {
		ms->exec = *src;
		ms->exec.dwarf_size = src->exec_copy_size;
		ustack_session_exec_copies(feed->session, 0, USTACK_EXEC_COPIES_ON);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* /proc snapshots                                                    */
/* ------------------------------------------------------------------ */

static void on_maps(int tgid, uint64_t ts, const char *text, void *data)
{
	struct ustack_map_source *ms = data;

	ustack_session_add_maps(ms->feed->session, tgid, ts, text);
}

/* A new process, or one that exec'd, gets a snapshot. */
static void snapshot_new(struct ustack_map_source *ms, struct tep_record *rec)
{
	const struct ustack_events *ev = ms->feed->events;
	int pid;

	if (ustack_events_classify(ev, rec) == USTACK_REC_USTACK)
		ustack_map_procmaps_see(ms->procmaps, ustack_events_ustack_tgid(ev, rec));
	else if ((pid = ustack_events_exec_pid(ev, rec)) > 0)
		ustack_map_procmaps_exec(ms->procmaps, pid, rec->ts);
}

/* The maps of a batch's processes are read while they still live */
static void snapshots_batch(struct ustack_map_source *ms, struct tep_record **recs, int nr)
{
	int i;

	if (!nr)
		return;
	for (i = 0; i < nr; i++)
		snapshot_new(ms, recs[i]);
	ustack_map_procmaps_refresh(ms->procmaps, ustack_instance_now(ms->ui));
}

static void snapshots_task_exit(struct ustack_map_source *ms, int tgid)
{
	ustack_map_procmaps_update(ms->procmaps, tgid, ustack_instance_now(ms->ui));
}

static char **snapshots_procmaps(struct ustack_map_source *ms)
{
	return ustack_map_procmaps_options(ms->procmaps);
}

/* Names from the instance's task events; a new snapshot after an exec */
static const struct map_ops snapshots_ops = {
	.kind		= USTACK_MAPS_SNAPSHOTS,
	.helpers	= USTACK_HELPER_RENAME | USTACK_HELPER_NEWTASK | USTACK_HELPER_EXEC,
	.batch		= snapshots_batch,
	.task_exit	= snapshots_task_exit,
	.procmaps	= snapshots_procmaps,
};

/**
 * ustack_map_source_open_snapshots - map addresses through /proc snapshots
 * @ms:	the mapping source, whose side-band perf refused
 *
 * The side-band's file, opened for nothing, goes. Returns 0 or -ENOMEM.
 */
int ustack_map_source_open_snapshots(struct ustack_map_source *ms)
{
	if (ms->sbfile) {
		ustack_tracedat_sbfile_close(ms->sbfile);
		ms->sbfile = NULL;
		ustack_tempfile_remove(ms->feed->sideband_file);
	}
	ms->procmaps = ustack_map_procmaps_new(ms->feed->record ? ms->ui : NULL, on_maps, ms);
	if (!ms->procmaps)
		return -ENOMEM;
	ms->ops = &snapshots_ops;
	return 0;
}

/* ------------------------------------------------------------------ */
/* What every one answers                                             */
/* ------------------------------------------------------------------ */

/**
 * ustack_map_source_new - a mapping source of file ids, to open another in
 * @ui:		the instance traced
 * @feed:	what it feeds: its stack source's feed, which must outlive it
 *		(not copied)
 *
 * Returns NULL when out of memory.
 */
struct ustack_map_source *ustack_map_source_new(struct ustack_instance *ui,
						 const struct ustack_map_feed *feed)
{
	struct ustack_map_source *ms = calloc(1, sizeof(*ms));

	if (!ms)
		return NULL;
	ms->ui = ui;
	ms->feed = feed;
	ms->ops = &file_ids_ops;
	ms->self = getpid();
	return ms;
}

/**
 * ustack_map_source_kind - which mapping source it is
 * @ms: the mapping source
 */
enum ustack_maps_kind ustack_map_source_kind(const struct ustack_map_source *ms)
{
	return ms->ops->kind;
}

/**
 * ustack_map_source_helpers - the helper events it needs (USTACK_HELPER_*)
 * @ms: the mapping source
 */
unsigned int ustack_map_source_helpers(const struct ustack_map_source *ms)
{
	return ms->ops->helpers;
}

/**
 * ustack_map_source_perf - the side-band's perf events, for the readers
 * @ms: the mapping source
 *
 * NULL unless the mappings come from the side-band.
 */
struct ustack_perf_sideband *ustack_map_source_perf(const struct ustack_map_source *ms)
{
	return ms->perf;
}

/**
 * ustack_map_source_no_perf - why perf refused the side-band
 * @ms: the mapping source
 *
 * "" until it did.
 */
const char *ustack_map_source_no_perf(const struct ustack_map_source *ms)
{
	return ms->no_perf;
}

/**
 * ustack_map_source_enable - start the side-band's events with tracing
 * @ms: the mapping source
 */
void ustack_map_source_enable(struct ustack_map_source *ms)
{
	ustack_perf_sideband_enable(ms->perf);
}

/**
 * ustack_map_source_batch - a batch of records is about to be fed
 * @ms:		the mapping source
 * @recs:	the records
 * @nr:		how many
 */
void ustack_map_source_batch(struct ustack_map_source *ms, struct tep_record **recs, int nr)
{
	if (ms->ops->batch)
		ms->ops->batch(ms, recs, nr);
}

/**
 * ustack_map_source_wants_exits - the command's tasks should stop at exit
 * @ms: the mapping source
 *
 * Snapshots read their last maps then; the side-band reports every
 * mapping and file ids are announced.
 */
bool ustack_map_source_wants_exits(const struct ustack_map_source *ms)
{
	return ms->ops->task_exit != NULL;
}

/**
 * ustack_map_source_task_exit - a task of the command stopped at its exit
 * @ms:		the mapping source
 * @pid:	the task
 */
void ustack_map_source_task_exit(struct ustack_map_source *ms, int pid)
{
	int tgid;

	if (!ms->ops->task_exit)
		return;
	tgid = ustack_proc_tgid(pid);
	if (tgid > 0)
		ms->ops->task_exit(ms, tgid);
}

/**
 * ustack_map_source_procmaps - PROCMAPS payloads for the trace.dat
 * @ms: the mapping source
 *
 * NULL-terminated, each freed with free(); NULL when it has none (file
 * ids name their files in the trace).
 */
char **ustack_map_source_procmaps(struct ustack_map_source *ms)
{
	return ms->ops->procmaps ? ms->ops->procmaps(ms) : NULL;
}

/**
 * ustack_map_source_tally - what a recording wrote of the perf source unread
 * @ms: the mapping source
 *
 * Returns the counts, or NULL when the session read the samples (live,
 * report, stack copies, another source): its summary counts them then.
 */
const struct ustack_sample_tally *ustack_map_source_tally(const struct ustack_map_source *ms)
{
	return ms && ms->unread ? &ms->tally : NULL;
}

/**
 * ustack_map_source_sideband_done - the side-band records are all written
 * @ms:		the mapping source
 * @path:	set to their file for the trace.dat, or NULL when none
 *
 * Returns 0, or -errno when the file could not be written.
 */
int ustack_map_source_sideband_done(struct ustack_map_source *ms, const char **path)
{
	int ret;

	*path = NULL;
	tally_throttle(ms);
	if (!ms->sbfile)
		return 0;
	ret = 0;
	trim_done(ms, true, &ret);
	if (ustack_tracedat_sbfile_close(ms->sbfile) < 0)
		ret = -1;
	ms->sbfile = NULL;
	if (ret < 0)
		return errno ? -errno : -EIO;
	*path = ms->feed->sideband_file;
	return 0;
}

/**
 * ustack_map_source_free - stop feeding and free
 * @ms: the mapping source (may be NULL)
 */
void ustack_map_source_free(struct ustack_map_source *ms)
{
	if (!ms)
		return;
	ustack_map_procmaps_free(ms->procmaps);
	ustack_perf_sideband_close(ms->perf);
	ustack_tracedat_sbtrim_close(ms->trim, false, NULL);
	if (ms->sbfile)
		ustack_tracedat_sbfile_close(ms->sbfile);
	ustack_throttle_release(&ms->throttle);
	free(ms);
}
