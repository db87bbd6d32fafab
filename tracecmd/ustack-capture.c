// SPDX-License-Identifier: GPL-2.0
/*
 * Live and record: set up a tracefs instance, read its per-CPU buffers
 * into the session until the run ends (signal, command exit, -d, closed
 * output), then print the summary or write the trace.dat.
 *
 * On kernels with options/userstacktrace_delay (kernel-patches/) every
 * traced event gets a cookie and the kernel writes the user stack once
 * the task returns to user space; elsewhere each traced tracepoint is a
 * perf event whose samples carry the user callchain (ustack-perfsrc.h),
 * and only where perf refuses that the synchronous userstacktrace option
 * (8 frames at most). Both of those take their mappings and names from
 * the perf side-band (ustack-sideband.h) or, where perf events are missing
 * or refused, /proc/<pid>/maps snapshots.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <libgen.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#include <event-parse.h>
#include <tracefs.h>

#include "ustack-cmd.h"
#include "ustack-events.h"
#include "ustack-formats.h"
#include "ustack-instance.h"
#include "ustack-perfsrc.h"
#include "ustack-proc.h"
#include "ustack-procmaps.h"
#include "ustack-sbfile.h"
#include "ustack-session.h"
#include "ustack-sideband.h"
#include "ustack-stopsig.h"
#include "ustack-stream.h"
#include "ustack-outfile.h"
#include "ustack-tempfiles.h"
#include "ustack-tracedat.h"
#include "ustack-warn.h"

#define PROGRESS_NS	1000000000ULL

/**
 * struct capture - one live or record run
 * @o:		the command line
 * @run:	session and printer
 * @ui:		the instance recorded into
 * @stream:	its per-CPU readers
 * @procmaps:	fallback without side-band: /proc/<pid>/maps snapshots
 * @perf:	fallback: the perf side-band, NULL when deferred or refused
 * @sbfile:	record with a side-band: its records for the trace.dat
 * @sbfile_path: where they are written until the trace.dat is
 * @out:	record: where the trace.dat goes
 * @no_perf:	why there is no side-band on the fallback path
 * @child:	the command we launched, or NULL
 * @systems:	"system/event" patterns of the formats the data needs
 * @source:	where the stacks come from (never USTACK_SOURCE_AUTO once
 *		set_buffers() chose)
 * @why_source:	why that one, for the notice ("" when it was asked for)
 * @src:	the perf stack source's events (USTACK_SOURCE_PERF)
 * @deferred:	the kernel writes deferred stacks (else the fallback)
 * @direct:	recording without reading: the summary is the kernel's count
 * @helpers:	USTACK_HELPER_* events we enabled for ourselves
 * @last_progress: when the progress line was last written
 * @progress_shown: a progress line is on the terminal
 */
struct capture {
	struct ustack_opts	*o;
	struct ustack_run	run;
	struct ustack_instance	*ui;
	struct ustack_stream	*stream;
	struct ustack_procmaps	*procmaps;
	struct ustack_perf	*perf;
	struct ustack_sbfile	*sbfile;
	char			*sbfile_path;
	struct ustack_outfile	out;
	char			no_perf[256];
	enum ustack_source	source;
	char			why_source[320];
	struct ustack_perfsrc_opts src;
	struct ustack_child	*child;
	const char		**systems;
	bool			deferred;
	bool			direct;
	unsigned int		helpers;
	int			until_exec;	/* the command, before its exec */
	unsigned long long	last_progress;
	bool			progress_shown;
};

/* The run exit() may end at any point: see capture_atexit(). */
static struct capture *exiting_capture;

/* ------------------------------------------------------------------ */
/* The instance                                                       */
/* ------------------------------------------------------------------ */

/*
 * The fallback in one line (the man page says the rest: why 8 frames, what
 * non-resident stack pages do, where the kernel patches are installed: an
 * installed user has no kernel-patches/ directory to look into).
 */
#define NO_DEFERRED_NOTICE \
	"no deferred user stacks on this kernel (options/userstacktrace_delay; " \
	"see THE FALLBACK in man trace-cmd-ustack): "

static const char *fallback_notice =
	NO_DEFERRED_NOTICE "synchronous fallback, at most 8 frames, %s";

static const char *perf_notice =
	NO_DEFERRED_NOTICE "stacks from perf events, synchronous, at most %u frames (%s), %s";

static const char *sideband_notice =
	"addresses mapped through the mappings perf reports (side-band)";

static const char *snapshot_notice =
	"addresses mapped through /proc/<pid>/maps snapshots (no perf side-band: %s)";

static void on_maps(int tgid, uint64_t ts, const char *text, void *data);

/* exit() on any path: stop the reader, then remove or restore the instance */
static void capture_atexit(void)
{
	struct capture *c = exiting_capture;

	if (!c)
		return;
	if (c->stream) {
		ustack_stream_close(c->stream);
		ustack_stream_remove_files(c->stream);
	}
	if (c->sbfile_path)
		ustack_tempfile_remove(c->sbfile_path);
	ustack_instance_teardown(c->ui);
}

static void say_reaped(const char *name)
{
	ustack_warning("removed instance %s: its run was killed", name);
}

static void open_instance(struct capture *c)
{
	const char *name = c->o->instance;
	sigset_t old;

	/* What a SIGKILL'ed run left goes first: it may trace everything */
	ustack_instance_reap(say_reaped);
	/* A second signal before the handler knows the instance would keep it */
	ustack_block_stop_signals(&old);
	c->ui = ustack_instance_open(name);
	if (!c->ui)
		die("cannot create instance %s: %s", name ? name : "ustack-<pid>",
		    strerror(errno));
	ustack_signals_guard(c->ui);
	exiting_capture = c;
	atexit(capture_atexit);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/*
 * The patched kernel's deferred stacks first, then perf events, then the
 * userstacktrace option; perf may still refuse (start_sideband()).
 */
static void choose_source(struct capture *c)
{
	const struct ustack_opts *o = c->o;
	bool has = ustack_instance_has_option(c->ui, "userstacktrace_delay");

	c->source = o->source;
	if (c->source == USTACK_SOURCE_DEFERRED && !has)
		die("--stack-source=tracefs-deferred: this kernel has no "
		    "options/userstacktrace_delay (see THE FALLBACK in man trace-cmd-ustack)");
	if (c->source == USTACK_SOURCE_AUTO)
		c->source = has ? USTACK_SOURCE_DEFERRED : USTACK_SOURCE_PERF;
}

static void set_buffers(struct capture *c)
{
	const struct ustack_opts *o = c->o;
	char buf[32];

	ustack_instance_write(c->ui, "tracing_on", "0");
	choose_source(c);
	c->deferred = c->source == USTACK_SOURCE_DEFERRED;
	/*
	 * Recording deferred stacks only splices (see the stream's direct
	 * mode): no record is read back or decoded. The side-band, which
	 * reads records, belongs to the fallback path.
	 */
	c->direct = o->mode == MODE_RECORD && c->deferred;
	if (o->buffer_kb) {
		snprintf(buf, sizeof(buf), "%ld", o->buffer_kb);
		if (ustack_instance_write(c->ui, "buffer_size_kb", buf) < 0)
			die("cannot set buffer size %s KiB: %s", buf, strerror(errno));
	}
	if (o->clock && ustack_instance_write(c->ui, "trace_clock", o->clock) < 0)
		die("unknown trace clock '%s'", o->clock);
	/* The perf side-band times its records with CLOCK_MONOTONIC: "mono" */
	if (!o->clock && !c->deferred)
		ustack_instance_write(c->ui, "trace_clock", "mono");
	/*
	 * Wake the reader at a quarter full; never 0 (one wakeup per event).
	 * Recording directly, a wakeup costs little, so it comes sooner.
	 */
	ustack_instance_write(c->ui, "buffer_percent", c->direct ? "10" : "25");
	if (o->out.kernel && ustack_instance_set_option(c->ui, "stacktrace", true) < 0)
		die("cannot set options/stacktrace: %s", strerror(errno));
}

/* Deferred stacks when the kernel has them, else the synchronous option. */
static void set_stack_path(struct capture *c)
{
	if (c->deferred) {
		if (ustack_instance_set_option(c->ui, "userstacktrace_delay", true) < 0)
			die("cannot set options/userstacktrace_delay: %s", strerror(errno));
		if (ustack_instance_enable_event(c->ui, "inode_cache", "inode_cache", NULL) < 0)
			ustack_warning("no inode_cache event: frames will stay unresolved");
		return;
	}
	/* perf samples carry their own stacks */
	if (c->source == USTACK_SOURCE_PERF)
		return;
	if (ustack_instance_set_option(c->ui, "userstacktrace", true) < 0)
		die("cannot set options/userstacktrace: %s", strerror(errno));
}

static void enable_helper(struct capture *c, const char *sys, const char *name,
			  unsigned int helper)
{
	if (!ustack_opts_asked(c->o, sys, name) &&
	    !ustack_instance_enable_event(c->ui, sys, name, NULL))
		c->helpers |= helper;
}

/*
 * Without the side-band: names from the instance's task events, and on
 * the fallback maps snapshots, taken again after an exec.
 */
static void without_sideband(struct capture *c)
{
	enable_helper(c, "task", "task_rename", USTACK_HELPER_RENAME);
	enable_helper(c, "task", "task_newtask", USTACK_HELPER_NEWTASK);
	if (c->deferred)
		return;
	enable_helper(c, "sched", "sched_process_exec", USTACK_HELPER_EXEC);
	c->procmaps = ustack_procmaps_new(c->o->mode == MODE_RECORD ? c->ui : NULL, on_maps, c);
	if (!c->procmaps)
		die("out of memory");
}

/* Where to look, and the name of the nearest event when there is one */
static void __attribute__((noreturn)) unknown_event(const struct event_spec *ev)
{
	const char *colon = ev->event ? ":" : "", *event = ev->event ? ev->event : "";
	char *near = ustack_event_suggest(ev->system, ev->event);

	if (near)
		die("unknown event %s%s%s (did you mean %s? trace-cmd list -e lists them all)",
		    ev->system, colon, event, near);
	die("unknown event %s%s%s (trace-cmd list -e lists the events)",
	    ev->system, colon, event);
}

static void enable_spec(struct capture *c, const struct event_spec *ev)
{
	const char *colon = ev->event ? ":" : "", *event = ev->event ? ev->event : "";

	if (!ustack_instance_enable_event(c->ui, ev->system, ev->event, ev->filter))
		return;
	if (errno == EINVAL)
		die("bad filter '%s' for %s%s%s", ev->filter, ev->system, colon, event);
	if (errno == ENOENT)
		unknown_event(ev);
	die("cannot enable %s%s%s: %s", ev->system, colon, event, strerror(errno));
}

static bool system_exists(const char *sys)
{
	char file[256];

	snprintf(file, sizeof(file), "events/%s", sys);
	return tracefs_dir_exists(NULL, file);
}

/* Every system call (its enter event) when no -e is given. */
static void default_events(struct ustack_opts *o)
{
	o->events = calloc(1, sizeof(*o->events));
	if (!o->events)
		die("out of memory");
	o->nr_events = 1;
	if (system_exists("syscalls")) {
		o->events[0].system = strdup("syscalls");
		o->events[0].event = strdup("sys_enter_*");
	} else {
		o->events[0].system = strdup("raw_syscalls");
		o->events[0].event = strdup("sys_enter");
	}
}

static void enable_events(struct capture *c)
{
	struct ustack_opts *o = c->o;
	int i;

	if (!o->nr_events)
		default_events(o);
	/* the perf stack source samples them itself (perf_events()) */
	for (i = 0; c->source != USTACK_SOURCE_PERF && i < o->nr_events; i++)
		enable_spec(c, &o->events[i]);
	/*
	 * Without -c, new threads are kept and new processes left out:
	 * task_newtask's clone flags tell which is which, even for tasks
	 * gone before /proc could be read.
	 */
	if ((o->nr_pids || o->cmd) && !o->children &&
	    !ustack_opts_asked(o, "task", "task_newtask") &&
	    !ustack_instance_enable_event(c->ui, "task", "task_newtask", NULL))
		c->helpers |= USTACK_HELPER_NEWTASK;
}

/* Adds @glob (taken over) to a NULL-terminated list unless it is there */
static void add_glob(const char ***globs, int *nr, char *glob)
{
	int i;

	if (!glob)
		die("out of memory");
	for (i = 0; i < *nr; i++) {
		if (!strcmp((*globs)[i], glob)) {
			free(glob);
			return;
		}
	}
	*globs = realloc(*globs, (*nr + 2) * sizeof(**globs));
	if (!*globs)
		die("out of memory");
	(*globs)[(*nr)++] = glob;
	(*globs)[*nr] = NULL;
}

/*
 * The events whose formats we need, as "system/event" patterns: those
 * the events module reads, and what -e enabled (not the rest of its
 * system: -e syscalls:X would bring some 700 formats). The trace.dat
 * gets the same list.
 */
static void find_systems(struct capture *c)
{
	const char * const *ours = ustack_events_formats();
	const struct event_spec *e;
	const char **globs = NULL;
	char *glob;
	int nr = 0, j;

	for (j = 0; ours[j]; j++)
		add_glob(&globs, &nr, strdup(ours[j]));
	for (j = 0; j < c->o->nr_events; j++) {
		e = &c->o->events[j];
		if (asprintf(&glob, "%s/%s", e->system, e->event ? e->event : "*") < 0)
			glob = NULL;
		add_glob(&globs, &nr, glob);
	}
	c->systems = globs;
}

/*
 * Without -c only the traced processes are shown live. A recording is
 * not filtered: the kernel follows new processes together with new
 * threads (options/event-fork), so the file holds the children's records
 * too and report shows them; record's summary counts what the file holds
 * (issue 34: it counted only the launched process, half of a forking
 * command's events).
 */
static void follow(struct capture *c, int tgid)
{
	if (c->o->mode == MODE_RECORD || c->o->children)
		return;
	if (ustack_session_follow(c->run.session, tgid))
		die("out of memory");
}

/* -P: every thread of the process, and the process itself unless -c. */
static void trace_process(struct capture *c, int pid)
{
	int tgid = ustack_proc_tgid(pid);
	struct dirent *de;
	char path[64];
	DIR *dir;

	if (!tgid)
		die("no such process: %d", pid);
	follow(c, tgid);
	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	dir = opendir(path);
	if (!dir)
		die("no such process: %d", pid);
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (ustack_instance_add_pid(c->ui, atoi(de->d_name), false) < 0)
			die("cannot filter pid %s: %s", de->d_name, strerror(errno));
	}
	closedir(dir);
}

static void trace_processes(struct capture *c)
{
	const struct ustack_opts *o = c->o;
	int i;

	for (i = 0; i < o->nr_pids; i++)
		trace_process(c, o->pids[i]);
	/* New threads are traced only with event-fork (children too: see -c). */
	if ((o->nr_pids || o->cmd) && ustack_instance_set_option(c->ui, "event-fork", true) < 0)
		die("cannot set options/event-fork: %s", strerror(errno));
}

/* Written first into a recorded file: report knows our helpers from it. */
static void write_info_marker(struct capture *c)
{
	char buf[256];
	int fd;

	fd = tracefs_instance_file_open(ustack_instance_tracefs(c->ui), "trace_marker",
					O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ustack_events_info_text(buf, sizeof(buf), c->deferred, c->helpers, c->until_exec);
	if (write(fd, buf, strlen(buf)) < 0)
		ustack_warning("trace_marker: %s", strerror(errno));
	close(fd);
}

/* ------------------------------------------------------------------ */
/* Reading                                                            */
/* ------------------------------------------------------------------ */

static void on_maps(int tgid, uint64_t ts, const char *text, void *data)
{
	struct capture *c = data;

	ustack_session_add_maps(c->run.session, tgid, ts, text);
}

/* Fallback: a new process, or one that exec'd, gets a maps snapshot. */
static void snapshot_new(struct capture *c, struct tep_record *rec)
{
	const struct ustack_events *ev = c->run.events;
	int pid;

	if (ustack_events_classify(ev, rec) == USTACK_REC_USTACK)
		ustack_procmaps_see(c->procmaps, ustack_events_ustack_tgid(ev, rec));
	else if ((pid = ustack_events_exec_pid(ev, rec)) > 0)
		ustack_procmaps_exec(c->procmaps, pid, rec->ts);
}

/*
 * Before a batch is fed: its tasks are learned while they still run, and
 * on the fallback path their maps are read.
 */
static void on_batch(struct tep_record **recs, int nr, void *data)
{
	struct capture *c = data;
	int i;

	ustack_session_preview(c->run.session, recs, nr);
	if (!c->procmaps || !nr)
		return;
	for (i = 0; i < nr; i++)
		snapshot_new(c, recs[i]);
	ustack_procmaps_refresh(c->procmaps, ustack_instance_now(c->ui));
}

static void on_record(struct tep_record *rec, void *data)
{
	struct capture *c = data;

	ustack_session_feed(c->run.session, rec);
}

static void on_lost(int cpu, long long missed, void *data)
{
	struct capture *c = data;

	ustack_session_add_lost(c->run.session, cpu, missed);
}

static void on_horizon(unsigned long long ts, void *data)
{
	struct capture *c = data;

	ustack_session_advance(c->run.session, ts);
}

/*
 * Into the trace.dat: a sample says there whether the kernel cut its
 * chain, which report could not tell without the frame limit of this run
 */
static int sbfile_add(struct capture *c, const struct ustack_sb_rec *rec)
{
	struct ustack_perfsrc_stack cs;
	struct ustack_sb_rec copy;

	if (rec->kind != USTACK_SB_SAMPLE)
		return ustack_sbfile_add(c->sbfile, rec);
	ustack_perfsrc_stack(rec, c->src.max_stack, &cs);
	copy = *rec;
	copy.cut = cs.truncated;
	return ustack_sbfile_add(c->sbfile, &copy);
}

/* A side-band record: to the session, and into the trace.dat when recording */
static void on_sideband(const struct ustack_sb_rec *rec, void *data)
{
	struct capture *c = data;

	/* System-wide, the reads of our own reader are syscalls too */
	if (rec->kind == USTACK_SB_SAMPLE && rec->pid == getpid())
		return;
	ustack_session_sideband(c->run.session, rec);
	if (c->sbfile && sbfile_add(c, rec) < 0) {
		ustack_warning("cannot write %s: the side-band is not recorded", c->sbfile_path);
		ustack_sbfile_close(c->sbfile);
		c->sbfile = NULL;
	}
}

static const struct ustack_stream_ops stream_ops = {
	.batch		= on_batch,
	.record		= on_record,
	.horizon	= on_horizon,
	.lost		= on_lost,
	.sideband	= on_sideband,
};

/* A task of our command stops at its exit: take its last maps. */
static void on_child_exit(pid_t pid, void *data)
{
	struct capture *c = data;
	int tgid;

	ustack_session_learn_task(c->run.session, pid);
	tgid = ustack_proc_tgid(pid);
	if (tgid > 0)
		ustack_procmaps_update(c->procmaps, tgid, ustack_instance_now(c->ui));
}

static void open_stream(struct capture *c, struct tep_handle *tep)
{
	struct ustack_stream_opts so = { 0 };
	pid_t tid;
	int i;

	so.tick_us = c->o->tick_us;
	so.perf = c->perf;
	if (c->o->mode == MODE_RECORD)
		so.save_prefix = ustack_outfile_temp_prefix(&c->out);
	so.direct = c->direct;
	c->stream = ustack_stream_open(c->ui, tep, &so);
	if (!c->stream)
		die("cannot open the per-CPU buffers: %s", strerror(errno));
	if (ustack_stream_start(c->stream) < 0)
		die("cannot start the reader: %s", strerror(errno));
	/* System-wide: our own reads and writes must not trace themselves. */
	if (c->o->nr_pids || c->o->cmd)
		return;
	ustack_instance_add_pid(c->ui, getpid(), true);
	for (i = 0; (tid = ustack_stream_tid(c->stream, i)); i++)
		ustack_instance_add_pid(c->ui, tid, true);
}

/* ------------------------------------------------------------------ */
/* The run                                                            */
/* ------------------------------------------------------------------ */

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void print_progress(struct capture *c, bool final)
{
	const struct ustack_stats *st = ustack_session_stats(c->run.session);

	if (c->o->quiet || !isatty(STDERR_FILENO))
		return;
	if (final) {
		if (c->progress_shown)
			fputs("\r\033[K", stderr);
		return;
	}
	/* Recording directly, the session sees nothing before the end. */
	if (c->direct) {
		fprintf(stderr, "\r\033[Krecorded %llu KiB  rb-lost %llu",
			(unsigned long long)(ustack_stream_bytes(c->stream) >> 10),
			ustack_instance_lost(c->ui, -1));
		c->progress_shown = true;
		return;
	}
	fprintf(stderr, "\r\033[Kevents %llu  stacks %llu  pending %llu  lost %llu  rb-lost %llu",
		(unsigned long long)st->events, (unsigned long long)st->matched,
		(unsigned long long)st->pending, (unsigned long long)st->lost,
		ustack_instance_lost(c->ui, -1));
	c->progress_shown = true;
}

/*
 * Without the side-band, the command's tasks stop at their exit so that
 * their last maps can be read (the side-band reports every mapping).
 */
static void watch_command(struct capture *c)
{
	if (c->child && c->procmaps)
		ustack_child_watch_exit(c->child, c->o->children, on_child_exit, c);
}

/*
 * Poll until a stop condition: signal, command exit, duration, output
 * error, a failed write of the raw data (a full file system).
 */
static void run_loop(struct capture *c)
{
	unsigned long long deadline = 0, t;
	struct pollfd pfd[3];

	if (c->o->duration)
		deadline = now_ns() + (unsigned long long)(c->o->duration * 1e9);
	pfd[0].fd = ustack_stream_fd(c->stream);
	pfd[0].events = POLLIN;
	pfd[1].fd = ustack_stop_fd();
	pfd[1].events = POLLIN;
	pfd[2].fd = ustack_child_fd(c->child);
	pfd[2].events = POLLIN;
	for (;;) {
		poll(pfd, 3, 200);
		ustack_stream_consume(c->stream, &stream_ops, c);
		ustack_child_reap(c->child);
		t = now_ns();
		if (ustack_stop_requested() || ustack_child_done(c->child) ||
		    (deadline && t >= deadline) || ustack_stream_save_error(c->stream))
			break;
		if (t - c->last_progress >= PROGRESS_NS) {
			c->last_progress = t;
			print_progress(c, false);
		}
	}
}

static void stop_reading(struct capture *c)
{
	struct pollfd pfd = { .fd = ustack_stream_fd(c->stream), .events = POLLIN };

	ustack_instance_write(c->ui, "tracing_on", "0");
	ustack_stream_stop(c->stream);
	/*
	 * Recorded directly, nothing reads the records: pairing them is
	 * report's, and reading them back would cost more CPU than the
	 * recording (issue 13). Closing the stream drains the buffers.
	 */
	if (!c->direct) {
		while (!ustack_stream_consume(c->stream, &stream_ops, c))
			poll(&pfd, 1, 100);
	}
	ustack_stream_close(c->stream);
}

/* The summary of what was read, or the kernel's count of what was recorded */
static void finish_run(struct capture *c)
{
	struct ustack_rb_stats rb;

	if (!c->direct) {
		ustack_run_finish(&c->run);
		return;
	}
	if (c->o->quiet)
		return;
	if (ustack_instance_rb_stats(c->ui, -1, &rb) < 0)
		ustack_warning("%s: per-CPU stats unreadable: counts incomplete",
			       ustack_instance_name(c->ui));
	ustack_output_recorded(stderr, &rb, c->o->output);
}

static char *read_clock(struct capture *c)
{
	char *clock = tracefs_instance_file_read(ustack_instance_tracefs(c->ui), "trace_clock",
						 NULL);

	if (clock)
		clock[strcspn(clock, "\n")] = '\0';
	return clock;
}

static int write_file(const char *file, void *data)
{
	struct ustack_tracedat_out *out = data;

	out->file = file;
	return ustack_tracedat_write(out);
}

static void write_tracedat(struct capture *c)
{
	struct ustack_tracedat_out out = { 0 };
	char *clock = read_clock(c);
	char **maps = NULL, msg[512];
	int i, ret;

	if (c->procmaps)
		maps = ustack_procmaps_options(c->procmaps);
	else if (c->perf)
		maps = ustack_session_procmaps(c->run.session);
	/* The temporaries go on exit (capture_atexit()), whatever happens */
	if (ustack_stream_save_error(c->stream))
		die("cannot write %s: %s", c->o->output,
		    strerror(ustack_stream_save_error(c->stream)));
	if (c->sbfile) {
		ret = ustack_sbfile_close(c->sbfile);
		c->sbfile = NULL;
		if (ret < 0)
			die("cannot write %s: %s", c->o->output, strerror(errno));
		out.sideband = c->sbfile_path;
	}
	out.instance = ustack_instance_name(c->ui);
	out.nr_cpus = ustack_stream_nr_cpus(c->stream);
	out.cpu_files = ustack_stream_files(c->stream);
	out.systems = c->systems;
	out.clock = clock;
	out.procmaps = maps;
	ret = ustack_outfile_write(&c->out, write_file, &out);
	ustack_stream_remove_files(c->stream);
	if (out.sideband)
		ustack_tempfile_remove(out.sideband);
	for (i = 0; maps && maps[i]; i++)
		free(maps[i]);
	free(maps);
	free(clock);
	if (ret < 0)
		die("%s", ustack_outfile_strerror(&c->out, msg, sizeof(msg)));
	if (!c->o->quiet)
		ustack_warning("wrote %s", c->o->output);
}

/*
 * Before any tracing: an output that cannot be written (a missing or
 * read-only directory, a directory or a socket at its name) is named,
 * rather than found out by the first temporary file or at the end.
 */
static void open_output(struct capture *c)
{
	char msg[512];

	if (ustack_outfile_open(&c->out, c->o->output) < 0)
		die("%s", ustack_outfile_strerror(&c->out, msg, sizeof(msg)));
}

static void check_capture_env(void)
{
	const char *err;

	if (geteuid() != 0)
		die("must be run as root (tracefs instances need it)");
	if (!ustack_tracefs_check(&err))
		die("%s", err);
}

/* The processes the side-band watches: -P's and the command, else all. */
static int *watched(struct capture *c, size_t *nr)
{
	const struct ustack_opts *o = c->o;
	int *pids = calloc(o->nr_pids + 1, sizeof(*pids));
	int i;

	if (!pids)
		die("out of memory");
	*nr = 0;
	for (i = 0; i < o->nr_pids; i++)
		pids[(*nr)++] = ustack_proc_tgid(o->pids[i]);
	if (c->child)
		pids[(*nr)++] = ustack_child_pid(c->child);
	return pids;
}

/* The clock's name in the trace_clock file: "local [mono] ..." */
static char *clock_name(struct capture *c)
{
	char *clock = read_clock(c), *open, *close;

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

/* A new temporary "<prefix>.<what>.XXXXXX", unique per run */
static char *temp_file(const struct ustack_outfile *out, const char *what)
{
	char *path;
	int fd;

	if (asprintf(&path, "%s.%s.XXXXXX", ustack_outfile_temp_prefix(out), what) < 0)
		die("out of memory");
	fd = ustack_tempfile_make(&path);
	if (fd < 0)
		die("cannot write %s: %s", out->name, strerror(errno));
	close(fd);
	return path;
}

/* Perf refused the stack source: userstacktrace, unless perf was asked for */
static void perf_refused(struct capture *c)
{
	int i;

	if (c->o->source == USTACK_SOURCE_PERF)
		die("--stack-source=perf: %s", c->no_perf);
	c->source = USTACK_SOURCE_USERSTACKTRACE;
	snprintf(c->why_source, sizeof(c->why_source), "no perf stacks: %s", c->no_perf);
	if (ustack_instance_set_option(c->ui, "userstacktrace", true) < 0)
		die("cannot set options/userstacktrace: %s", strerror(errno));
	for (i = 0; i < c->o->nr_events; i++)
		enable_spec(c, &c->o->events[i]);
}

static bool spec_matches(const struct event_spec *e, const struct tep_event *ev)
{
	return !fnmatch(e->system, ev->system, 0) &&
	       !fnmatch(e->event ? e->event : "*", ev->name, 0);
}

/* The first -e that names @ev: its filter goes with it */
static const struct event_spec *spec_of(const struct ustack_opts *o, const struct tep_event *ev)
{
	int i;

	for (i = 0; i < o->nr_events; i++)
		if (spec_matches(&o->events[i], ev))
			return &o->events[i];
	return NULL;
}

/*
 * The perf stack source's tracepoints: every format -e named (the tep
 * holds those and ours), one perf event each per CPU and task, so the
 * open-file limit goes up to what is allowed.
 */
static void perf_events(struct capture *c, struct tep_handle *tep)
{
	struct tep_event **evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	struct ustack_perfsrc_event *out;
	const struct event_spec *e;
	struct rlimit rl;
	size_t n = 0;
	int i, j;

	if (!evs)
		die("cannot read event formats: %s", strerror(errno));
	for (i = 0; evs[i]; i++)
		;
	out = calloc(i + 1, sizeof(*out));
	if (!out)
		die("out of memory");
	for (i = 0; evs[i]; i++) {
		e = spec_of(c->o, evs[i]);
		if (!e)
			continue;
		out[n].id = evs[i]->id;
		out[n++].filter = e->filter;
	}
	for (j = 0; j < c->o->nr_events; j++) {
		e = &c->o->events[j];
		for (i = 0; evs[i] && !spec_matches(e, evs[i]); i++)
			;
		if (!evs[i])
			unknown_event(e);
	}
	c->src.events = out;
	c->src.nr_events = n;
	c->src.kernel = c->o->out.kernel;
	c->src.max_stack = ustack_perfsrc_max_stack();
	/* the kernel refuses more than its sysctl */
	if (c->o->max_stack && c->o->max_stack < c->src.max_stack)
		c->src.max_stack = c->o->max_stack;
	ustack_session_set_perf_max_stack(c->run.session, c->src.max_stack);
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * Fallback: the perf side-band, opened before tracing starts (what
 * exists is described from /proc then), its records kept for the file.
 */
static void start_sideband(struct capture *c)
{
	char *clock = clock_name(c);
	int *pids = NULL;
	size_t nr = 0;

	if (c->o->mode == MODE_RECORD) {
		c->sbfile_path = temp_file(&c->out, "sideband");
		c->sbfile = ustack_sbfile_open(ustack_events_tep(c->run.events), c->sbfile_path);
		if (!c->sbfile)
			die("cannot write %s: %s", c->o->output, strerror(errno));
	}
	if (c->o->nr_pids || c->child)
		pids = watched(c, &nr);
	if (c->source == USTACK_SOURCE_PERF) {
		c->perf = ustack_perf_start(pids, nr, clock ? clock : "local",
					    ustack_instance_now(c->ui), &c->src, on_sideband,
					    c, c->no_perf, sizeof(c->no_perf));
		if (!c->perf)
			perf_refused(c);
	}
	if (c->source != USTACK_SOURCE_PERF)
		c->perf = ustack_perf_start(pids, nr, clock ? clock : "local",
					    ustack_instance_now(c->ui), NULL, on_sideband, c,
					    c->no_perf, sizeof(c->no_perf));
	free(pids);
	free(clock);
	if (c->perf || !c->sbfile)
		return;
	ustack_sbfile_close(c->sbfile);
	c->sbfile = NULL;
	ustack_tempfile_remove(c->sbfile_path);
}

/*
 * Held before its exec until tracing is on: traced from its exec on.
 * Its events before the exec (execve from ustack_child_fork()) are our
 * code, not the user's: skipped up to its sched_process_exec record.
 */
static void fork_command(struct capture *c)
{
	pid_t pid;

	enable_helper(c, "sched", "sched_process_exec", USTACK_HELPER_EXEC);
	c->child = ustack_child_fork(c->o->cmd);
	pid = ustack_child_pid(c->child);
	ustack_signals_child(pid);
	if (ustack_instance_add_pid(c->ui, pid, false) < 0)
		die("cannot filter pid %d: %s", pid, strerror(errno));
	follow(c, pid);
	if ((c->helpers & USTACK_HELPER_EXEC) ||
	    ustack_opts_asked(c->o, "sched", "sched_process_exec")) {
		c->until_exec = pid;
		ustack_session_skip_until_exec(c->run.session, pid);
	}
}

static void say_path(struct capture *c)
{
	char more[768];

	if (c->deferred || c->o->quiet)
		return;
	if (c->source == USTACK_SOURCE_PERF) {
		ustack_warning(perf_notice, c->src.max_stack,
			       c->src.max_stack < ustack_perfsrc_max_stack() ? "--max-stack" :
			       "kernel.perf_event_max_stack", sideband_notice);
		return;
	}
	if (c->perf)
		snprintf(more, sizeof(more), "%s", sideband_notice);
	else
		snprintf(more, sizeof(more), snapshot_notice, c->no_perf);
	/* why not perf: asked for, or what refused it (said above if all of perf was) */
	if (c->why_source[0] && c->perf)
		snprintf(more + strlen(more), sizeof(more) - strlen(more), " (%s)",
			 c->why_source);
	else if (c->o->source == USTACK_SOURCE_USERSTACKTRACE)
		snprintf(more + strlen(more), sizeof(more) - strlen(more),
			 " (--stack-source=userstacktrace)");
	ustack_warning(fallback_notice, more);
}

/* Everything up to tracing_on: the instance, the session, the readers. */
static void set_up(struct capture *c)
{
	struct tep_handle *tep;

	open_instance(c);
	set_buffers(c);
	set_stack_path(c);
	enable_events(c);
	find_systems(c);
	/*
	 * Recording directly, the page layout is all the stream needs.
	 * Kernel symbols only when we print kernel stacks ourselves.
	 */
	if (c->direct)
		tep = ustack_formats_header();
	else
		tep = ustack_formats_local(c->systems, c->o->mode == MODE_LIVE && c->o->out.kernel);
	if (!tep)
		die("cannot read event formats: %s", strerror(errno));
	ustack_run_open(&c->run, c->o, tep, true, c->o->mode == MODE_LIVE);
	trace_processes(c);
	if (c->o->cmd)
		fork_command(c);
	if (c->source == USTACK_SOURCE_PERF)
		perf_events(c, tep);
	if (!c->deferred)
		start_sideband(c);
	if (!c->perf)
		without_sideband(c);
	ustack_events_set_helpers(c->run.events, c->helpers);
	open_stream(c, tep);
	/* Said once the setup worked, so that errors stay one line. */
	say_path(c);
}

static void tear_down(struct capture *c)
{
	struct tep_handle *tep = ustack_events_tep(c->run.events);
	int i;

	/*
	 * The run is over and exit() follows: a signal now would find the
	 * instance half freed. It stays pending until the process is gone.
	 */
	ustack_block_stop_signals(NULL);
	ustack_procmaps_free(c->procmaps);
	exiting_capture = NULL;
	ustack_signals_guard(NULL);
	ustack_stream_free(c->stream);
	ustack_perf_close(c->perf);
	ustack_instance_close(c->ui);
	ustack_child_free(c->child);
	ustack_run_close(&c->run);
	tep_free(tep);
	for (i = 0; c->systems && c->systems[i]; i++)
		free((char *)c->systems[i]);
	free(c->systems);
	free(c->sbfile_path);
	ustack_outfile_close(&c->out);
	free((void *)c->src.events);
}

/**
 * ustack_capture - live or record run of `trace-cmd ustack`
 * @o: the command line
 *
 * Does not return: exits 0, or 1 when the output could not be written.
 */
void ustack_capture(struct ustack_opts *o)
{
	struct capture c = { .o = o };
	bool failed;

	check_capture_env();
	if (o->cmd)
		ustack_child_check(o->cmd);
	if (o->mode == MODE_RECORD)
		open_output(&c);
	ustack_signals_install();
	ustack_child_block_sigchld();
	set_up(&c);
	watch_command(&c);
	ustack_instance_write(c.ui, "tracing_on", "1");
	ustack_perf_enable(c.perf);
	if (o->mode == MODE_RECORD)
		write_info_marker(&c);
	if (o->cmd)
		ustack_child_release(c.child);
	run_loop(&c);
	stop_reading(&c);
	ustack_child_end(c.child);
	print_progress(&c, true);
	finish_run(&c);
	if (o->mode == MODE_RECORD)
		write_tracedat(&c);
	failed = c.run.output_failed;
	tear_down(&c);
	exit(failed ? 1 : 0);
}
