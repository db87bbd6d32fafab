// SPDX-License-Identifier: GPL-2.0
/*
 * Live and record: set up a tracefs instance, read its per-CPU buffers
 * into the session until the run ends (signal, command exit, -d, closed
 * output), then print the summary or write the trace.dat.
 *
 * Where the stacks and their mappings come from is the stack source's
 * (ustack-stack-source.h), chosen once: this file asks it and its mapping
 * source (ustack-map-source.h), never which one it is.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <libgen.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "ustack-cmd.h"
#include "ustack-events.h"
#include "ustack-formats.h"
#include "ustack-instance.h"
#include "ustack-map-source.h"
#include "ustack-perf-source.h"
#include "ustack-proc.h"
#include "ustack-session.h"
#include "ustack-stack-source.h"
#include "ustack-stopsig.h"
#include "ustack-syscalls.h"
#include "ustack-stream.h"
#include "ustack-tracedat-outfile.h"
#include "ustack-tempfile.h"
#include "ustack-tracedat.h"
#include "ustack-warn.h"

#define PROGRESS_NS	1000000000ULL

/**
 * struct capture - one live or record run
 * @o:		the command line
 * @run:	session and printer
 * @ui:		the instance recorded into
 * @stream:	its per-CPU readers
 * @src:	where the stacks come from, chosen once
 * @caps:	what it promises
 * @maps:	its mapping source, once started
 * @sbfile_path: record with a side-band: where its records wait for the
 *		trace.dat
 * @out:	record: where the trace.dat goes
 * @printed:	live: where samples are printed (the standard output, or -o's
 *		file); NULL when recording
 * @child:	the command we launched, or NULL
 * @systems:	"system/event" patterns of the formats the data needs
 * @sampled:	a source that samples the events itself: them, by id
 * @nr_sampled:	entries in @sampled
 * @no_kframes:	--kernel, sampled: the first syscalls:* event, which
 *		has no kernel frames there (say_no_kframes()), or NULL
 * @nr_no_kframes: how many such events are sampled
 * @direct:	recording without reading: the summary is the kernel's count
 * @helpers:	USTACK_HELPER_* events we enabled for ourselves
 * @last_progress: when the progress line was last written
 * @progress_shown: a progress line is on the terminal
 * @signalled:	when a signal asked the run to stop (0: it was not)
 */
struct capture {
	struct ustack_opts	*o;
	struct ustack_run	run;
	struct ustack_instance	*ui;
	struct ustack_stream	*stream;
	struct ustack_stack_source *src;
	const struct ustack_stack_caps *caps;
	struct ustack_map_source *maps;
	char			*sbfile_path;
	struct ustack_tracedat_outfile	out;
	FILE			*printed;
	struct ustack_child	*child;
	const char		**systems;
	struct ustack_perf_source_event *sampled;
	size_t			nr_sampled;
	const char		*no_kframes;
	size_t			nr_no_kframes;
	bool			direct;
	unsigned int		helpers;
	int			until_exec;	/* the command, before its exec */
	unsigned long long	last_progress;
	bool			progress_shown;
	unsigned long long	signalled;
};

/* The run exit() may end at any point: see capture_atexit(). */
static struct capture *exiting_capture;

/* ------------------------------------------------------------------ */
/* The instance                                                       */
/* ------------------------------------------------------------------ */

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
	ustack_stopsig_block(&old);
	c->ui = ustack_instance_open(name);
	if (!c->ui)
		die("cannot create instance %s: %s", name ? name : "ustack-<pid>",
		    strerror(errno));
	ustack_signals_guard(c->ui);
	exiting_capture = c;
	atexit(capture_atexit);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void enable_specs(void *data);

/*
 * --call-graph=auto decides from the programs that start traced: the
 * command's file, or each -p process's; none (every process, or -p with
 * --comm) leaves copies. A file that cannot be named is left out as
 * unknown: the library takes copies for an empty list.
 */
static char **auto_programs(const struct ustack_opts *o)
{
	char **v = calloc(o->nr_pids + 2, sizeof(*v));
	char link[64];
	int i, n = 0;

	if (!v)
		die("out of memory");
	if (o->cmd) {
		v[n] = ustack_child_program(o->cmd);
		n += v[n] != NULL;
	}
	for (i = 0; i < o->nr_pids && !o->cmd && !o->nr_comms; i++) {
		snprintf(link, sizeof(link), "/proc/%d/exe", o->pids[i]);
		v[n] = realpath(link, NULL);
		if (!v[n]) {
			/* one unknown: copies for all */
			n = 0;
			break;
		}
		n++;
	}
	v[n] = NULL;
	return v;
}

static void free_programs(char **v)
{
	char **p;

	for (p = v; *p; p++)
		free(*p);
	free(v);
}

/*
 * The stack source, chosen once by the rule in the library; --call-graph
 * is what it is asked, its caps what it does (once open)
 */
static void choose_source(struct capture *c)
{
	const struct ustack_opts *o = c->o;
	char **programs = o->call_graph == USTACK_UNWIND_AUTO ? auto_programs(o) : NULL;
	struct ustack_stack_env env = {
		.ui = c->ui, .want = o->source, .clock_given = o->clock != NULL,
		.kernel = o->out.kernel, .max_stack = o->max_stack,
		.unwind = o->call_graph,
		.copy_size = o->call_graph == USTACK_UNWIND_FP ? 0 : o->dwarf_size,
		.programs = (const char *const *)programs, .held = o->cmd != NULL,
		.enable_events = enable_specs, .ctx = c,
	};

	if (ustack_stack_source_choose(&env, &c->src) < 0)
		die("out of memory");
	if (programs)
		free_programs(programs);
	c->caps = ustack_stack_source_caps(c->src);
}

/* What the source refused or failed at, in one line */
static void __attribute__((noreturn)) source_failed(struct capture *c, int err)
{
	char msg[PATH_MAX + 128];

	ustack_stack_source_strerror(c->src, err, msg, sizeof(msg));
	if (ustack_stack_source_usage_error(err)) {
		ustack_warning("%s", msg);
		exit(EX_USAGE);
	}
	die("%s", msg);
}

static void set_buffers(struct capture *c)
{
	const struct ustack_opts *o = c->o;
	char buf[32];

	ustack_instance_write(c->ui, "tracing_on", "0");
	choose_source(c);
	if (o->buffer_kb) {
		snprintf(buf, sizeof(buf), "%ld", o->buffer_kb);
		if (ustack_instance_write(c->ui, "buffer_size_kb", buf) < 0)
			die("cannot set buffer size %s KiB: %s", buf, strerror(errno));
	}
	if (o->clock && ustack_instance_write(c->ui, "trace_clock", o->clock) < 0)
		die("unknown trace clock '%s'", o->clock);
	/*
	 * A full buffer drops the newest records, as perf's rings do, and
	 * keeps the oldest, which the later ones need: a process's mappings
	 * (its exec's inode_cache records) come before its stacks. The
	 * readers count the drops (ustack-dropped.c).
	 */
	if (ustack_instance_set_option(c->ui, "overwrite", false) < 0)
		die("cannot clear options/overwrite: %s", strerror(errno));
	if (o->out.kernel && ustack_instance_set_option(c->ui, "stacktrace", true) < 0)
		die("cannot set options/stacktrace: %s", strerror(errno));
}

/*
 * The source's options, events and clock; it enables the events it needs,
 * and decides how its stacks are unwound: its caps are whole from now on
 */
static void open_source(struct capture *c)
{
	int ret = ustack_stack_source_open(c->src);

	if (ret < 0)
		source_failed(c, ret);
	/*
	 * Recording deferred stacks only splices (see the stream's direct
	 * mode): no record is read back or decoded. The side-band, which
	 * reads records, belongs to the synchronous sources and to deferred
	 * stacks with copies.
	 */
	c->direct = c->o->mode == MODE_RECORD && c->caps->deferred && !c->caps->sideband;
	/*
	 * Wake the reader at a quarter full; never 0 (one wakeup per event).
	 * Recording directly, a wakeup costs little, so it comes sooner.
	 */
	ustack_instance_write(c->ui, "buffer_percent", c->direct ? "10" : "25");
}

static void enable_helper(struct capture *c, const char *sys, const char *name,
			  unsigned int helper)
{
	if (!ustack_opts_asked(c->o, sys, name) &&
	    !ustack_instance_enable_event(c->ui, sys, name, NULL))
		c->helpers |= helper;
}

/* The helper events the mapping source needs, unless asked for by -e */
static void enable_helpers(struct capture *c)
{
	unsigned int want = ustack_map_source_helpers(c->maps);

	if (want & USTACK_HELPER_RENAME)
		enable_helper(c, "task", "task_rename", USTACK_HELPER_RENAME);
	if (want & USTACK_HELPER_NEWTASK)
		enable_helper(c, "task", "task_newtask", USTACK_HELPER_NEWTASK);
	if (want & USTACK_HELPER_EXEC)
		enable_helper(c, "sched", "sched_process_exec", USTACK_HELPER_EXEC);
}

/* Where to look, and the name of the nearest event when there is one */
static void __attribute__((noreturn)) unknown_event(const struct event_spec *ev)
{
	const char *colon = ev->event ? ":" : "", *event = ev->event ? ev->event : "";
	char *near = ustack_instance_event_suggest(ev->system, ev->event);

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

/*
 * Every system call when no -e is given: through raw_syscalls:sys_enter,
 * one tracepoint for them all (the perf source opens one event a CPU,
 * not one a call and a CPU), each shown as its call's event
 * (syscalls:sys_enter_openat: lib/ustack-syscalls.c).
 */
static void default_events(struct ustack_opts *o)
{
	o->events = calloc(1, sizeof(*o->events));
	if (!o->events)
		die("out of memory");
	o->nr_events = 1;
	o->events[0].system = strdup(USTACK_SYSCALLS_RAW_SYSTEM);
	o->events[0].event = strdup(USTACK_SYSCALLS_RAW_EVENT);
	if (!o->events[0].system || !o->events[0].event)
		die("out of memory");
}

/* -e's events into the instance, for a source whose stacks it writes */
static void enable_specs(void *data)
{
	struct capture *c = data;
	int i;

	for (i = 0; i < c->o->nr_events; i++)
		enable_spec(c, &c->o->events[i]);
}

static void keep_new_threads(struct capture *c)
{
	struct ustack_opts *o = c->o;

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
	ustack_events_info_text(buf, sizeof(buf), c->caps->deferred, c->helpers, c->until_exec,
				c->o->max_stack);
	if (write(fd, buf, strlen(buf)) < 0)
		ustack_warning("trace_marker: %s", strerror(errno));
	close(fd);
}

/* ------------------------------------------------------------------ */
/* Reading                                                            */
/* ------------------------------------------------------------------ */

/*
 * Before a batch is fed: its tasks are learned while they still run, and
 * the mapping source reads what it needs of them (snapshots: their maps).
 */
static void on_batch(struct tep_record **recs, int nr, void *data)
{
	struct capture *c = data;

	ustack_session_preview(c->run.session, recs, nr);
	ustack_map_source_batch(c->maps, recs, nr);
}

static void on_record(struct tep_record *rec, void *data)
{
	struct capture *c = data;
	char msg[256];

	/* the instance and temporaries go at exit (capture_atexit()) */
	if (ustack_session_feed(c->run.session, rec))
		die("%s", ustack_session_error(c->run.session, msg, sizeof(msg)));
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

/* A side-band record: to the session, and into the trace.dat when recording */
static void on_sideband(const struct ustack_sb_rec *rec, void *data)
{
	struct capture *c = data;

	ustack_map_source_sideband(c->maps, rec);
}

static const struct ustack_stream_ops stream_ops = {
	.batch		= on_batch,
	.record		= on_record,
	.horizon	= on_horizon,
	.lost		= on_lost,
	.sideband	= on_sideband,
};

/* A task of our command stops at its exit: its last maps are taken. */
static void on_child_exit(pid_t pid, void *data)
{
	struct capture *c = data;

	ustack_session_learn_task(c->run.session, pid);
	ustack_map_source_task_exit(c->maps, pid);
}

static void open_stream(struct capture *c, struct tep_handle *tep)
{
	struct ustack_stream_opts so = { 0 };
	pid_t tid;
	int i;

	so.tick_us = c->o->tick_us;
	so.perf = ustack_map_source_perf(c->maps);
	if (c->o->mode == MODE_RECORD)
		so.save_prefix = ustack_tracedat_outfile_temp_prefix(&c->out);
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
	const struct ustack_sample_tally *tally = ustack_map_source_tally(c->maps);

	if (c->o->quiet || !isatty(STDERR_FILENO))
		return;
	if (final) {
		if (c->progress_shown)
			fputs("\r\033[K", stderr);
		return;
	}
	/* Recording without reading: the recorder's counts, not the session's */
	if (tally) {
		fprintf(stderr, "\r\033[Krecorded %llu samples  lost %llu", tally->samples,
			tally->lost);
		c->progress_shown = true;
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
	/* the counters of the source's stacks, as the summary's */
	fprintf(stderr, "\r\033[Kevents %llu  stacks %llu", (unsigned long long)st->events,
		(unsigned long long)(st->matched + st->sync));
	if (c->caps->deferred || ustack_output_stats_paired(st))
		fprintf(stderr, "  pending %llu", (unsigned long long)st->pending);
	fprintf(stderr, "  lost %llu  rb-lost %llu", (unsigned long long)st->lost,
		ustack_instance_lost(c->ui, -1));
	c->progress_shown = true;
}

/*
 * The command's tasks stop at their exit when the mapping source reads
 * their last maps then (snapshots; the side-band reports every mapping).
 */
static void watch_command(struct capture *c)
{
	if (c->child && ustack_map_source_wants_exits(c->maps))
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
		if (ustack_stop_requested()) {
			c->signalled = t;
			break;
		}
		if (ustack_child_done(c->child) ||
		    (deadline && t >= deadline) || ustack_stream_save_error(c->stream))
			break;
		if (t - c->last_progress >= PROGRESS_NS) {
			c->last_progress = t;
			print_progress(c, false);
		}
	}
}

/*
 * After a signal, what was read but not yet handed out is worked through
 * for this long, and the rest is given up and said: a person who stops a
 * run under load wants it to stop, as perf and trace-cmd do.
 */
#define STOP_GRACE_NS	1000000000ULL

/* A stop asked by a signal, past its grace: the run ends now */
static bool past_grace(const struct capture *c)
{
	return c->signalled && now_ns() - c->signalled >= STOP_GRACE_NS;
}

static void stop_reading(struct capture *c)
{
	struct pollfd pfd = { .fd = ustack_stream_fd(c->stream), .events = POLLIN };
	size_t unread;

	ustack_instance_write(c->ui, "tracing_on", "0");
	ustack_stream_stop(c->stream);
	/*
	 * Recorded directly, nothing reads the records: pairing them is
	 * report's, and reading them back would cost more CPU than the
	 * recording (issue 13). Closing the stream drains the buffers.
	 */
	if (!c->direct) {
		while (!ustack_stream_consume(c->stream, &stream_ops, c) && !past_grace(c))
			poll(&pfd, 1, 100);
	}
	ustack_stream_close(c->stream);
	unread = ustack_stream_unread(c->stream);
	if (unread)
		ustack_warning("stopped by a signal with %.1f MB of trace data read but not yet handed out: their events are not in the %s",
			       unread / 1048576.0,
			       c->o->mode == MODE_RECORD ? "recording" : "output");
}

/* The summary of what was read, or the kernel's count of what was recorded */
static void finish_run(struct capture *c)
{
	const struct ustack_sample_tally *tally = ustack_map_source_tally(c->maps);
	struct ustack_rb_stats rb;

	if (!c->direct && !tally) {
		ustack_run_finish(&c->run);
		return;
	}
	if (c->o->quiet)
		return;
	if (tally) {
		ustack_output_recorded_samples(stderr, tally, c->o->output);
		return;
	}
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

/*
 * Kernel symbols go into the file for kernel stacks (--kernel) and for
 * traced events that print kernel addresses as symbols: a short
 * recording is otherwise mostly its copy of /proc/kallsyms.
 */
static bool needs_kallsyms(struct capture *c)
{
	const char **globs;
	int nr = 0, j;
	bool ret;

	if (c->o->out.kernel)
		return true;
	globs = calloc(c->o->nr_events + 1, sizeof(*globs));
	if (!globs)
		return true;
	for (j = 0; j < c->o->nr_events; j++) {
		const struct event_spec *e = &c->o->events[j];
		char *glob;

		if (asprintf(&glob, "%s/%s", e->system, e->event ? e->event : "*") >= 0)
			globs[nr++] = glob;
	}
	ret = nr < c->o->nr_events || ustack_formats_name_symbols(globs);
	for (j = 0; j < nr; j++)
		free((char *)globs[j]);
	free(globs);
	return ret;
}

static void write_tracedat(struct capture *c)
{
	struct ustack_tracedat_out out = { 0 };
	char *clock = read_clock(c);
	char **maps = ustack_map_source_procmaps(c->maps), msg[512];
	int i, ret;

	/* The temporaries go on exit (capture_atexit()), whatever happens */
	if (ustack_stream_save_error(c->stream))
		die("cannot write %s: %s", c->o->output,
		    strerror(ustack_stream_save_error(c->stream)));
	ret = ustack_map_source_sideband_done(c->maps, &out.sideband);
	if (ret < 0)
		die("cannot write %s: %s", c->o->output, strerror(-ret));
	out.instance = ustack_instance_name(c->ui);
	/* what the stream and the side-band wrote their sub-buffers in */
	out.page_size = ustack_instance_subbuf_size(c->ui);
	out.nr_cpus = ustack_stream_nr_cpus(c->stream);
	out.cpu_files = ustack_stream_files(c->stream);
	out.systems = c->systems;
	out.clock = clock;
	out.procmaps = maps;
	out.kallsyms = needs_kallsyms(c);
	/*
	 * Once the file is in place the run ends in order: the stop signals
	 * come back blocked, and a second one stays pending until the
	 * process is gone, so that the summary naming the file is printed
	 * whole and nothing undoes what it says.
	 */
	ret = ustack_tracedat_outfile_write(&c->out, write_file, &out);
	ustack_stream_remove_files(c->stream);
	if (out.sideband)
		ustack_tempfile_remove(out.sideband);
	for (i = 0; maps && maps[i]; i++)
		free(maps[i]);
	free(maps);
	free(clock);
	if (ret < 0)
		die("%s", ustack_tracedat_outfile_strerror(&c->out, msg, sizeof(msg)));
}

/*
 * Before any tracing: an output that cannot be written (a missing or
 * read-only directory, a directory or a socket at its name) is named,
 * rather than found out by the first temporary file or at the end.
 */
static void open_output(struct capture *c)
{
	char msg[512];

	if (ustack_tracedat_outfile_open(&c->out, c->o->output) < 0)
		die("%s", ustack_tracedat_outfile_strerror(&c->out, msg, sizeof(msg)));
}

/*
 * Live -o: what is printed goes to FILE, apart from the traced command's
 * output (which keeps our standard output). Made (or emptied, as a
 * shell's > does) before the command starts: a path that cannot be
 * written is said before the run, not after it. Profile files are made
 * then too (ustack_profiles_open()).
 */
static void open_printed(struct capture *c)
{
	const char *path = c->o->output;
	int fd;

	if (c->o->mode != MODE_LIVE)
		return;
	c->printed = stdout;
	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0666);
	if (fd < 0)
		die("cannot write %s: %s", path, strerror(errno));
	c->printed = fdopen(fd, "w");
	if (!c->printed)
		die("cannot write %s: %s", path, strerror(errno));
}

/*
 * Live -o's file closed once all is printed: a write the kernel only
 * refuses then (a network file system) fails the run as any other.
 */
static void close_printed(struct capture *c)
{
	if (!c->printed || c->printed == stdout)
		return;
	errno = 0;
	if (fclose(c->printed) && !c->run.output_failed) {
		c->run.output_failed = true;
		ustack_warning("cannot write %s: %s", c->o->output,
			       strerror(errno ? errno : EIO));
	}
	c->printed = NULL;
	c->run.out = NULL;
}

/*
 * The exit status (see EXIT STATUS in the man page): the tool's failure
 * wins (1); else the command's, as a shell gives it (128 + N when signal
 * N ended it); without a command (-P, system-wide) 0.
 */
static int exit_status(const struct capture *c)
{
	int status = ustack_child_exit_status(c->child);

	if (c->run.output_failed)
		return 1;
	return status < 0 ? 0 : status;
}

/*
 * The readers' batches (a drain of the rings: with stack copies, some
 * 8.5 KiB a sample, hundreds of KiB a batch) live for a moment and are
 * freed by another thread. Above glibc's mmap threshold each was a new
 * mapping, its pages faulted in by the copy out of the ring and unmapped
 * again (TLB shootdowns), and below it the arenas gave freed memory back
 * to the kernel past the trim threshold: on a burst the reader spent its
 * time in page faults while the rings overflowed (bash under
 * --call-graph=dwarf kept a median 9,500 of 33,000 events against 15,000
 * with this: bench/perfsrc/NOTES.md). Keep that memory: heap up to the
 * largest mmap threshold glibc takes, trimmed past 256 MiB.
 */
static void keep_batch_memory(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

static void check_capture_env(void)
{
	char msg[PATH_MAX + 128];
	int ret;

	if (geteuid() != 0)
		die("must be run as root (tracefs instances need it)");
	ret = ustack_instance_tracefs_check();
	if (ret < 0)
		die("%s", ustack_instance_tracefs_strerror(ret, msg, sizeof(msg)));
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

/* A new temporary "<prefix>.<what>.XXXXXX", unique per run */
static char *temp_file(const struct ustack_tracedat_outfile *out, const char *what)
{
	char *path;
	int fd;

	if (asprintf(&path, "%s.%s.XXXXXX", ustack_tracedat_outfile_temp_prefix(out), what) < 0)
		die("out of memory");
	fd = ustack_tempfile_make(&path);
	if (fd < 0)
		die("cannot write %s: %s", out->name, strerror(errno));
	close(fd);
	return path;
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
 * For a source that samples the events itself: every format -e named
 * (the tep holds those and ours), by id, with its filter.
 */
static void sampled_events(struct capture *c, struct tep_handle *tep)
{
	struct tep_event **evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	struct ustack_perf_source_event *out;
	const struct event_spec *e;
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
		if (c->o->out.kernel && !strcmp(evs[i]->system, USTACK_SYSCALLS_SYSTEM)) {
			if (!c->nr_no_kframes++)
				c->no_kframes = evs[i]->name;
		}
	}
	for (j = 0; j < c->o->nr_events; j++) {
		e = &c->o->events[j];
		for (i = 0; evs[i] && !spec_matches(e, evs[i]); i++)
			;
		if (!evs[i])
			unknown_event(e);
	}
	c->sampled = out;
	c->nr_sampled = n;
}

/*
 * The source opens its events and its mapping source before tracing
 * starts (the side-band describes what exists then); it may give way to
 * the next source in the rule.
 */
static void start_source(struct capture *c)
{
	struct ustack_stack_feed feed = {
		.maps = {
			.session = c->run.session, .events = c->run.events,
			.record = c->o->mode == MODE_RECORD,
		},
		.sampled = c->sampled, .nr_sampled = c->nr_sampled,
	};
	int *pids = NULL;
	size_t nr = 0;
	int ret;

	if (feed.maps.record && c->caps->sideband)
		feed.maps.sideband_file = c->sbfile_path = temp_file(&c->out, "sideband");
	if (c->o->nr_pids || c->child)
		pids = watched(c, &nr);
	feed.maps.pids = pids;
	feed.maps.nr_pids = nr;
	ret = ustack_stack_source_start(c->src, &feed);
	free(pids);
	if (ret < 0)
		source_failed(c, ret);
	c->maps = ustack_stack_source_maps(c->src);
}

/* Held before its exec until tracing is on: traced from its exec on. */
static void fork_command(struct capture *c)
{
	pid_t pid;

	c->child = ustack_child_fork(c->o->cmd);
	pid = ustack_child_pid(c->child);
	ustack_signals_child(pid);
	if (ustack_instance_add_pid(c->ui, pid, false) < 0)
		die("cannot filter pid %d: %s", pid, strerror(errno));
	follow(c, pid);
}

/*
 * The command's events before its exec (execve from ustack_child_fork())
 * are our code, not the user's: skipped up to its exec, which its
 * sched_process_exec record tells, or the side-band, where the source
 * says that event would cost more (once started: it may give up the
 * side-band).
 */
static void skip_until_exec(struct capture *c)
{
	pid_t pid = ustack_child_pid(c->child);
	bool sideband = ustack_stack_source_sideband_exec(c->src);

	if (!sideband)
		enable_helper(c, "sched", "sched_process_exec", USTACK_HELPER_EXEC);
	if (!sideband && !(c->helpers & USTACK_HELPER_EXEC) &&
	    !ustack_opts_asked(c->o, "sched", "sched_process_exec"))
		return;
	c->until_exec = pid;
	/* recording, the session learns it from the info marker */
	if (c->o->mode != MODE_RECORD)
		ustack_session_skip_until_exec(c->run.session, pid);
}

/*
 * --kernel with syscalls:* events sampled as perf events: the per-call
 * tracepoints fire with the task's user registers (the kernel's
 * perf_syscall_enter() and _exit()), so perf finds no kernel context to
 * walk, for us as for perf record -g. Said once, not left to an empty
 * kernel part.
 */
static void say_no_kframes(struct capture *c)
{
	char more[64] = "";

	if (!c->no_kframes)
		return;
	if (c->nr_no_kframes > 1)
		snprintf(more, sizeof(more), " and %zu other syscalls:* event%s",
			 c->nr_no_kframes - 1, c->nr_no_kframes > 2 ? "s" : "");
	ustack_warning("--kernel: %s:%s%s get no kernel frames from perf events: their "
		       "tracepoints fire with the task's user registers (perf record -g gets "
		       "none either); %s:%s has them", USTACK_SYSCALLS_SYSTEM, c->no_kframes,
		       more, USTACK_SYSCALLS_RAW_SYSTEM, USTACK_SYSCALLS_RAW_EVENT);
}

/* Which source and what it means, once (nothing for deferred stacks) */
static void say_path(struct capture *c)
{
	char notice[1024];

	ustack_stack_source_notice(c->src, notice, sizeof(notice));
	if (*notice && !c->o->quiet)
		ustack_warning("%s", notice);
	if (!c->o->quiet)
		say_no_kframes(c);
}

/* Everything up to tracing_on: the instance, the session, the readers. */
static void set_up(struct capture *c)
{
	struct tep_handle *tep;

	open_instance(c);
	set_buffers(c);
	if (!c->o->nr_events)
		default_events(c->o);
	open_source(c);
	keep_new_threads(c);
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
	ustack_run_open(&c->run, c->o, tep, c->caps, c->printed);
	trace_processes(c);
	if (c->o->cmd)
		fork_command(c);
	if (c->caps->samples)
		sampled_events(c, tep);
	start_source(c);
	if (c->child)
		skip_until_exec(c);
	enable_helpers(c);
	/*
	 * Recording, the session learns them from the info marker, as
	 * report's does: both count the same events (ustack-session.c).
	 */
	if (c->o->mode != MODE_RECORD)
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
	ustack_stopsig_block(NULL);
	exiting_capture = NULL;
	ustack_signals_guard(NULL);
	ustack_stream_free(c->stream);
	/* after the readers: they poll its side-band */
	ustack_stack_source_free(c->src);
	ustack_instance_close(c->ui);
	ustack_child_free(c->child);
	ustack_run_close(&c->run);
	tep_free(tep);
	for (i = 0; c->systems && c->systems[i]; i++)
		free((char *)c->systems[i]);
	free(c->systems);
	free(c->sbfile_path);
	ustack_tracedat_outfile_close(&c->out);
	free(c->sampled);
}

/**
 * ustack_capture - live or record run of `trace-cmd ustack`
 * @o: the command line
 *
 * Does not return: exits with the command's status (128 + N when signal N
 * ended it), 0 without a command, or 1 when the output could not be
 * written (die(): any other failure).
 */
void ustack_capture(struct ustack_opts *o)
{
	struct capture c = { .o = o };
	int status;

	check_capture_env();
	keep_batch_memory();
	if (o->cmd)
		ustack_child_check(o->cmd);
	if (o->mode == MODE_RECORD)
		open_output(&c);
	open_printed(&c);
	ustack_profiles_open(o);
	ustack_signals_install();
	ustack_child_block_sigchld();
	set_up(&c);
	watch_command(&c);
	/*
	 * The perf events first: tracing_on 1 is what says the capture is
	 * on (the tests wait for it), and with perf's events enabled after
	 * it, a call made in between was lost.
	 */
	ustack_stack_source_enable(c.src);
	ustack_instance_write(c.ui, "tracing_on", "1");
	ustack_stack_source_name_mappings(c.src);
	if (o->mode == MODE_RECORD)
		write_info_marker(&c);
	if (o->cmd) {
		ustack_stack_source_release(c.src);
		ustack_child_release(c.child);
	}
	run_loop(&c);
	stop_reading(&c);
	ustack_child_end(c.child);
	print_progress(&c, true);
	/*
	 * The summary says only what is final: recording, it names a file
	 * that is in place, never one a second signal may still take away.
	 */
	if (o->mode == MODE_RECORD)
		write_tracedat(&c);
	finish_run(&c);
	if (o->mode == MODE_RECORD && !o->quiet)
		ustack_warning("wrote %s", o->output);
	ustack_test_stop("summary");
	close_printed(&c);
	status = exit_status(&c);
	tear_down(&c);
	exit(status);
}
