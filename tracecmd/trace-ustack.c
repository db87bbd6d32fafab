// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd ustack: print the user-space call paths that lead to kernel
 * events.
 *
 *   trace-cmd ustack [OPTIONS] [-- COMMAND ...]          live
 *   trace-cmd ustack record -o FILE [OPTIONS] [-- CMD]   into a trace.dat
 *   trace-cmd ustack report -i FILE [OPTIONS]            from a trace.dat
 *
 * On kernels with options/userstacktrace_delay (kernel-patches/) every
 * traced event gets a cookie and the kernel writes the user stack once
 * the task returns to user space; elsewhere the synchronous userstacktrace
 * option is used (8 frames at most) with /proc/<pid>/maps snapshots.
 *
 * Shaped like a trace-cmd builtin: trace_ustack(argc, argv) with argv[1]
 * being "ustack"; tracecmd/ustack-main.c is the standalone main().
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sched.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <event-parse.h>
#include <tracefs.h>

#include "trace-ustack.h"
#include "ustack-session.h"
#include "ustack-resolve.h"
#include "ustack-instance.h"
#include "ustack-stream.h"
#include "ustack-tracedat.h"
#include "ustack-procmaps.h"
#include "ustack-output.h"

#define PROGRESS_NS	1000000000ULL
#define INFO_MARKER	"ustack-info "

enum ustack_mode {
	MODE_LIVE,
	MODE_RECORD,
	MODE_REPORT,
};

struct event_spec {
	char	*system;
	char	*event;		/* NULL: every event of the system */
	char	*filter;
};

/**
 * struct ustack_opts - the command line
 */
struct ustack_opts {
	enum ustack_mode	mode;
	bool			mode_set;
	struct event_spec	*events;
	int			nr_events;
	int			*pids;
	int			nr_pids;
	char			**comms;
	int			nr_comms;
	bool			children;
	const char		*output;
	const char		*input;
	const char		*instance;
	long			buffer_kb;
	const char		*clock;
	unsigned long		tick_us;
	double			duration;
	bool			quiet;
	bool			force_fallback;
	struct ustack_output_opts out;
	struct ustack_resolver_opts resolve;
	char			**cmd;
};

/* Per-CPU memory of a record we dropped, to drop what belongs to it. */
struct drop_state {
	int	pid;
	bool	active;
};

/* pid -> tgid (0: not known yet, -1: gone before we looked) */
struct task_table {
	int	*pid;
	int	*tgid;
	bool	*learned;	/* comm and tgid read from /proc */
	size_t	nr;
	size_t	size;		/* power of two */
};

/**
 * struct ustack_ctx - one run (live, record or report)
 */
struct ustack_ctx {
	struct ustack_opts	*o;
	struct tep_handle	*tep;
	struct ustack_session	*session;
	struct ustack_resolver	*resolver;
	struct ustack_output	*printer;
	struct ustack_instance	*ui;
	struct ustack_stream	*stream;
	struct ustack_procmaps	*procmaps;
	bool			deferred;
	bool			print;		/* hand samples to the printer */
	bool			exec_helper;	/* sched_process_exec is ours */
	bool			newtask_helper;	/* task_newtask is ours */
	int			id_print;
	int			id_exec;
	int			id_newtask;
	int			id_ustack;
	int			id_kstack;
	int			id_cookie;
	int			id_stack;
	struct tep_format_field	*f_buf;
	struct tep_format_field	*f_exec_pid;
	struct tep_format_field	*f_newtask_pid;
	struct tep_format_field	*f_newtask_flags;
	struct tep_format_field	*f_tgid;
	struct drop_state	*drop;
	int			nr_cpus;
	struct task_table	tasks;
	int			*tgids;		/* -c off: processes we follow */
	int			nr_tgids;
	int			sigchld_fd;
	bool			ptraced;
	pid_t			child;
	int			go_fd;
	int			err_fd;
	int			child_status;
	bool			child_done;
	unsigned long long	last_progress;
	bool			progress_shown;
	bool			output_failed;
};

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("trace-cmd ustack: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void warn(const char *fmt, ...)
{
	va_list ap;

	fputs("trace-cmd ustack: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ------------------------------------------------------------------ */
/* Command line                                                       */
/* ------------------------------------------------------------------ */

enum {
	OPT_FOLDED = 256,
	OPT_PERF_SCRIPT,
	OPT_KERNEL,
	OPT_COMM,
	OPT_SYMFS,
	OPT_LINES,
	OPT_INLINES,
	OPT_NO_DEMANGLE,
	OPT_DEBUGINFOD,
	OPT_NO_DEBUGINFOD,
	OPT_RAW,
	OPT_FALLBACK,
};

static const char doc[] =
"Print the user-space call paths that lead to kernel events.\n"
"\n"
"  trace-cmd ustack [OPTIONS] [-- COMMAND [ARGS...]]\n"
"  trace-cmd ustack record -o FILE [OPTIONS] [-- COMMAND [ARGS...]]\n"
"  trace-cmd ustack report -i FILE [OPTIONS]\n"
"\n"
"Every traced event is printed with the user stack of the task that caused "
"it. With the kernel patches in kernel-patches/ (options/userstacktrace_delay) "
"the stack is taken when the task returns to user space, complete and "
"without faulting in the event; otherwise the synchronous userstacktrace "
"option is used (at most 8 frames).\v"
"Examples:\n"
"  trace-cmd ustack -- ./myprog              syscalls of myprog and their stacks\n"
"  trace-cmd ustack -e syscalls:sys_enter_openat -P 1234\n"
"  trace-cmd ustack --folded -d 10 -c -- make | flamegraph.pl > make.svg\n"
"  trace-cmd ustack record -o trace.dat -e sched:sched_switch -- ./server\n"
"  trace-cmd ustack report -i trace.dat --perf-script\n"
"  trace-cmd report -i trace.dat             the same file with stock trace-cmd\n";

static struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "What to trace (live and record):", 1 },
	{ "event", 'e', "SYSTEM[:EVENT]", 0,
	  "Trace this event (shell patterns allowed; repeatable). Default: every "
	  "syscalls:sys_enter_* (raw_syscalls:sys_enter without syscall events)", 1 },
	{ "filter", 'f', "FILTER", 0, "Filter for the preceding -e (kernel filter syntax)", 1 },
	{ "pid", 'P', "PID[,PID...]", 0,
	  "Trace these tasks (report: only show these pids)", 1 },
	{ "children", 'c', NULL, 0, "Also trace children of traced tasks", 1 },
	{ "duration", 'd', "SECONDS", 0, "Stop after SECONDS", 1 },
	{ "kernel", OPT_KERNEL, NULL, 0,
	  "Also show the kernel stack (stacktrace option) before the user frames", 1 },
	{ NULL, 0, NULL, 0, "Buffers (live and record):", 2 },
	{ "instance", 'B', "NAME", 0,
	  "Use tracefs instance NAME (kept if it exists, and restored); default: "
	  "a new instance ustack-<pid>, removed at exit. Report: read buffer NAME", 2 },
	{ "buffer-size", 'b', "KB", 0, "Ring-buffer size per CPU in KiB", 2 },
	{ "clock", 'C', "CLOCK", 0, "Trace clock (see trace_clock)", 2 },
	{ "sleep", 's', "USECS", 0, "Drain the buffers every USECS (default 100000)", 2 },
	{ "fallback", OPT_FALLBACK, NULL, 0,
	  "Use the synchronous userstacktrace option even if deferred stacks exist", 2 },
	{ NULL, 0, NULL, 0, "Files:", 3 },
	{ "output", 'o', "FILE", 0, "record: write the trace to FILE (default trace.dat)", 3 },
	{ "input", 'i', "FILE", 0, "report: read FILE (default trace.dat)", 3 },
	{ NULL, 0, NULL, 0, "Output:", 4 },
	{ "folded", OPT_FOLDED, NULL, 0,
	  "Folded stacks for flame graphs (comm;root;...;leaf count), printed at the end", 4 },
	{ "perf-script", OPT_PERF_SCRIPT, NULL, 0, "Output like `perf script`", 4 },
	{ "comm", OPT_COMM, "COMM", 0, "Only show tasks named COMM (repeatable)", 4 },
	{ "raw", OPT_RAW, NULL, 0, "Do not symbolize: print file offsets", 4 },
	{ "lines", OPT_LINES, NULL, 0, "Add source file:line (DWARF)", 4 },
	{ "inline", OPT_INLINES, NULL, 0,
	  "Show inlined calls as frames of their own (DWARF; marked inlined, _[i] when folded)", 4 },
	{ "inlines", OPT_INLINES, NULL, OPTION_ALIAS, NULL, 4 },
	{ "no-demangle", OPT_NO_DEMANGLE, NULL, 0, "Do not demangle C++/Rust names", 4 },
	{ "no-debuginfod", OPT_NO_DEBUGINFOD, NULL, 0,
	  "Do not fetch missing debug info from $DEBUGINFOD_URLS (fetched by default when set)", 4 },
	{ "debuginfod", OPT_DEBUGINFOD, NULL, OPTION_HIDDEN, NULL, 4 },
	{ "symfs", OPT_SYMFS, "DIR", 0, "Look files up under DIR (analysis on another host)", 4 },
	{ "quiet", 'q', NULL, 0, "No progress line and no summary", 4 },
	/* trace-cmd's commands all take -h */
	{ NULL, 'h', NULL, OPTION_HIDDEN, NULL, 0 },
	{ NULL, 0, NULL, 0, NULL, 0 },
};

static void add_event(struct ustack_opts *o, const char *arg, struct argp_state *state)
{
	struct event_spec *ev;
	const char *colon = strchr(arg, ':');

	o->events = realloc(o->events, (o->nr_events + 1) * sizeof(*o->events));
	if (!o->events)
		argp_failure(state, 1, ENOMEM, "events");
	ev = &o->events[o->nr_events++];
	memset(ev, 0, sizeof(*ev));
	if (colon) {
		ev->system = strndup(arg, colon - arg);
		ev->event = strdup(colon + 1);
	} else {
		ev->system = strdup(arg);
	}
	if (!*ev->system || (ev->event && !*ev->event))
		argp_error(state, "bad event '%s' (want SYSTEM[:EVENT])", arg);
}

static void add_pids(struct ustack_opts *o, const char *arg, struct argp_state *state)
{
	char *copy = strdup(arg), *tok, *save, *end;
	long pid;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		pid = strtol(tok, &end, 10);
		if (*end || pid <= 0)
			argp_error(state, "bad pid '%s'", tok);
		o->pids = realloc(o->pids, (o->nr_pids + 1) * sizeof(*o->pids));
		o->pids[o->nr_pids++] = pid;
	}
	free(copy);
}

static unsigned long parse_ulong(const char *arg, const char *what, struct argp_state *state)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || !*arg)
		argp_error(state, "bad %s '%s'", what, arg);
	return v;
}

/* The first non-option is the subcommand or the command to run. */
static void take_arg(struct ustack_opts *o, const char *arg, struct argp_state *state)
{
	if (!o->mode_set && !o->cmd && state->arg_num == 0) {
		if (!strcmp(arg, "record")) {
			o->mode = MODE_RECORD;
			o->mode_set = true;
			return;
		}
		if (!strcmp(arg, "report")) {
			o->mode = MODE_REPORT;
			o->mode_set = true;
			return;
		}
	}
	/* Everything from here on belongs to the command (like record's "+"). */
	o->cmd = &state->argv[state->next - 1];
	state->next = state->argc;
}

static void check_opts(struct ustack_opts *o, struct argp_state *state)
{
	bool capture = o->mode != MODE_REPORT;

	if (o->mode == MODE_REPORT) {
		if (o->cmd)
			argp_error(state, "report takes no command");
		if (o->output)
			argp_error(state, "-o is for record (report reads -i)");
		if (o->nr_events || o->children || o->duration || o->buffer_kb || o->clock)
			argp_error(state, "-e/-f/-c/-d/-b/-C only apply when recording");
	} else if (o->input) {
		argp_error(state, "-i is for report");
	}
	if (o->mode != MODE_RECORD && o->output)
		argp_error(state, "-o is for record");
	if (capture && o->cmd && o->nr_pids)
		argp_error(state, "use either -P or a command");
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct ustack_opts *o = state->input;
	double d;
	char *end;

	switch (key) {
	case 'e':
		add_event(o, arg, state);
		break;
	case 'f':
		if (!o->nr_events)
			argp_error(state, "-f needs a preceding -e");
		if (o->events[o->nr_events - 1].filter)
			argp_error(state, "only one -f per -e");
		o->events[o->nr_events - 1].filter = strdup(arg);
		break;
	case 'P':
		add_pids(o, arg, state);
		break;
	case 'c':
		o->children = true;
		break;
	case 'd':
		d = strtod(arg, &end);
		if (*end || d <= 0)
			argp_error(state, "bad duration '%s'", arg);
		o->duration = d;
		break;
	case 'B':
		o->instance = arg;
		break;
	case 'b':
		o->buffer_kb = parse_ulong(arg, "buffer size", state);
		break;
	case 'C':
		o->clock = arg;
		break;
	case 's':
		o->tick_us = parse_ulong(arg, "sleep time", state);
		break;
	case 'o':
		o->output = arg;
		break;
	case 'i':
		o->input = arg;
		break;
	case 'q':
		o->quiet = true;
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case OPT_FOLDED:
		o->out.mode = USTACK_OUTPUT_FOLDED;
		break;
	case OPT_PERF_SCRIPT:
		o->out.mode = USTACK_OUTPUT_PERF_SCRIPT;
		break;
	case OPT_KERNEL:
		o->out.kernel = true;
		break;
	case OPT_COMM:
		o->comms = realloc(o->comms, (o->nr_comms + 1) * sizeof(*o->comms));
		o->comms[o->nr_comms++] = arg;
		break;
	case OPT_RAW:
		o->out.raw = true;
		break;
	case OPT_LINES:
		o->resolve.lines = true;
		o->out.lines = true;
		break;
	case OPT_INLINES:
		o->resolve.inlines = true;
		break;
	case OPT_NO_DEMANGLE:
		o->resolve.demangle = false;
		break;
	case OPT_DEBUGINFOD:
		o->resolve.debuginfod = true;
		break;
	case OPT_NO_DEBUGINFOD:
		o->resolve.debuginfod = false;
		break;
	case OPT_SYMFS:
		o->resolve.symfs = arg;
		break;
	case OPT_FALLBACK:
		o->force_fallback = true;
		break;
	case ARGP_KEY_ARG:
		take_arg(o, arg, state);
		break;
	case ARGP_KEY_END:
		check_opts(o, state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void parse_args(struct ustack_opts *o, int argc, char **argv)
{
	static struct argp argp = {
		.options	= options,
		.parser		= parse_opt,
		.args_doc	= "[record|report] [-- COMMAND...]",
		.doc		= doc,
	};

	memset(o, 0, sizeof(*o));
	o->resolve.demangle = true;
	/* Like perf and gdb: use debuginfod when the user configured it */
	o->resolve.debuginfod = getenv("DEBUGINFOD_URLS") && *getenv("DEBUGINFOD_URLS");
	o->out.mode = USTACK_OUTPUT_STACKS;
	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, o);
	if (o->mode == MODE_RECORD && !o->output)
		o->output = "trace.dat";
	if (o->mode == MODE_REPORT && !o->input)
		o->input = "trace.dat";
}

/* ------------------------------------------------------------------ */
/* Record classification (shared by live and report)                  */
/* ------------------------------------------------------------------ */

static int event_id(struct tep_handle *tep, const char *sys, const char *name)
{
	struct tep_event *ev = tep_find_event_by_name(tep, sys, name);

	return ev ? ev->id : -1;
}

static struct tep_format_field *event_field(struct tep_handle *tep, const char *sys,
					    const char *name, const char *field)
{
	struct tep_event *ev = tep_find_event_by_name(tep, sys, name);

	return ev ? tep_find_field(ev, field) : NULL;
}

static void ctx_init_ids(struct ustack_ctx *c)
{
	c->id_print = event_id(c->tep, "ftrace", "print");
	c->id_exec = event_id(c->tep, "sched", "sched_process_exec");
	c->id_newtask = event_id(c->tep, "task", "task_newtask");
	c->f_newtask_pid = event_field(c->tep, "task", "task_newtask", "pid");
	c->f_newtask_flags = event_field(c->tep, "task", "task_newtask", "clone_flags");
	c->id_ustack = event_id(c->tep, "ftrace", "user_stack");
	c->id_kstack = event_id(c->tep, "ftrace", "kernel_stack");
	c->id_cookie = event_id(c->tep, "ftrace", "user_unwind_cookie");
	c->id_stack = event_id(c->tep, "ftrace", "user_unwind_stack");
	c->f_buf = event_field(c->tep, "ftrace", "print", "buf");
	c->f_exec_pid = event_field(c->tep, "sched", "sched_process_exec", "pid");
	c->f_tgid = event_field(c->tep, "ftrace", "user_stack", "tgid");
	c->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (c->nr_cpus < 256)
		c->nr_cpus = 256;
	c->drop = calloc(c->nr_cpus, sizeof(*c->drop));
	if (!c->drop)
		die("out of memory");
}

static unsigned long long field_val(struct tep_format_field *f, struct tep_record *rec)
{
	unsigned long long v = 0;

	if (f)
		tep_read_number_field(f, rec->data, &v);
	return v;
}

/* The print event's text, or NULL. */
static const char *print_text(struct ustack_ctx *c, struct tep_record *rec)
{
	if (!c->f_buf || tep_data_type(c->tep, rec) != c->id_print)
		return NULL;
	return (const char *)rec->data + c->f_buf->offset;
}

static bool is_attachment(struct ustack_ctx *c, int type)
{
	return type == c->id_ustack || type == c->id_kstack || type == c->id_cookie;
}

/*
 * Records that are ours and not the user's: maps/info markers, and
 * sched_process_exec when only the fallback enabled it. The stacks the
 * kernel attaches to them (same CPU, same pid, right behind) go too.
 */
static bool drop_record(struct ustack_ctx *c, struct tep_record *rec)
{
	struct drop_state *d = &c->drop[rec->cpu % c->nr_cpus];
	int type = tep_data_type(c->tep, rec);
	int pid = tep_data_pid(c->tep, rec);
	const char *text;

	if (is_attachment(c, type)) {
		if (d->active && d->pid == pid)
			return true;
		return false;
	}
	d->active = false;
	if (type == c->id_print && (text = print_text(c, rec)) &&
	    (!strncmp(text, USTACK_MAPS_MARKER, strlen(USTACK_MAPS_MARKER)) ||
	     !strncmp(text, INFO_MARKER, strlen(INFO_MARKER)))) {
		d->active = true;
		d->pid = pid;
		return true;
	}
	if ((type == c->id_exec && c->exec_helper) ||
	    (type == c->id_newtask && c->newtask_helper)) {
		d->active = true;
		d->pid = pid;
		return true;
	}
	return false;
}

static size_t task_slot(const struct task_table *t, int pid)
{
	size_t i = ((unsigned int)pid * 2654435761U) & (t->size - 1);

	while (t->pid[i] && t->pid[i] != pid)
		i = (i + 1) & (t->size - 1);
	return i;
}

static void task_grow(struct task_table *t)
{
	struct task_table n = { .size = t->size ? t->size * 2 : 1024 };
	size_t i, j;

	n.pid = calloc(n.size, sizeof(*n.pid));
	n.tgid = calloc(n.size, sizeof(*n.tgid));
	n.learned = calloc(n.size, sizeof(*n.learned));
	if (!n.pid || !n.tgid || !n.learned)
		die("out of memory");
	for (i = 0; i < t->size; i++) {
		if (!t->pid[i])
			continue;
		j = task_slot(&n, t->pid[i]);
		n.pid[j] = t->pid[i];
		n.tgid[j] = t->tgid[i];
		n.learned[j] = t->learned[i];
		n.nr++;
	}
	free(t->pid);
	free(t->tgid);
	free(t->learned);
	*t = n;
}

/* Returns the slot of @pid, adding it (tgid 0) if @add and new; -1 if absent. */
static long task_find(struct task_table *t, int pid, bool add)
{
	size_t i;

	if (t->size && t->pid[i = task_slot(t, pid)] == pid)
		return i;
	if (!add)
		return -1;
	if ((t->nr + 1) * 2 > t->size)
		task_grow(t);
	i = task_slot(t, pid);
	t->pid[i] = pid;
	t->nr++;
	return i;
}

static bool tgid_followed(struct ustack_ctx *c, int tgid)
{
	int i;

	for (i = 0; i < c->nr_tgids; i++)
		if (c->tgids[i] == tgid)
			return true;
	return false;
}

static void follow_tgid(struct ustack_ctx *c, int tgid)
{
	if (tgid_followed(c, tgid))
		return;
	c->tgids = realloc(c->tgids, (c->nr_tgids + 1) * sizeof(*c->tgids));
	if (!c->tgids)
		die("out of memory");
	c->tgids[c->nr_tgids++] = tgid;
}

/*
 * Without -c only the traced processes are shown. The kernel follows new
 * threads only together with new processes (options/event-fork), so
 * child processes are left out here, by thread group.
 */
static bool task_filtered(struct ustack_ctx *c, int pid)
{
	long i;

	if (!c->nr_tgids || pid <= 0)
		return false;
	i = task_find(&c->tasks, pid, false);
	return i >= 0 && c->tasks.tgid[i] > 0 && !tgid_followed(c, c->tasks.tgid[i]);
}

static void on_sample(const struct ustack_sample *smp, void *data)
{
	struct ustack_ctx *c = data;

	if (!c->print || c->output_failed || !ustack_output_wants(c->printer, smp))
		return;
	if (ustack_output_sample(c->printer, smp) < 0) {
		/* stdout closed (| head): stop like any other end of run */
		c->output_failed = true;
		ustack_request_stop();
	}
}

static void feed(struct ustack_ctx *c, struct tep_record *rec)
{
	struct drop_state *d;
	int pid;

	if (drop_record(c, rec))
		return;
	pid = tep_data_pid(c->tep, rec);
	if (task_filtered(c, pid)) {
		d = &c->drop[rec->cpu % c->nr_cpus];
		d->active = true;
		d->pid = pid;
		return;
	}
	ustack_session_feed(c->session, rec);
}

/* ------------------------------------------------------------------ */
/* Session, resolver and printer                                      */
/* ------------------------------------------------------------------ */

static void open_session(struct ustack_ctx *c, bool live)
{
	struct ustack_session_opts so = { 0 };

	so.want_kernel = c->o->out.kernel;
	c->session = ustack_session_new(c->tep, &so, on_sample, c);
	if (!c->session)
		die("cannot set up the session: %s", strerror(errno));
	if (!c->print)
		return;
	c->o->resolve.live = live;
	c->resolver = ustack_resolver_new(&c->o->resolve);
	if (!c->resolver)
		die("cannot set up the symbolizer: %s", strerror(errno));
	/* Live, the kernel filters pids (and follows children with -c). */
	if (c->o->mode == MODE_REPORT) {
		c->o->out.pids = c->o->pids;
		c->o->out.nr_pids = c->o->nr_pids;
	}
	c->o->out.comms = (const char * const *)c->o->comms;
	c->o->out.nr_comms = c->o->nr_comms;
	c->printer = ustack_output_new(c->tep, c->o->out.raw ? NULL : c->resolver,
				       &c->o->out, stdout);
	if (!c->printer)
		die("cannot set up the output: %s", strerror(errno));
}

static unsigned long long stats_lost(const struct ustack_stats *st)
{
	return st->lost;
}

static void print_progress(struct ustack_ctx *c, bool final)
{
	const struct ustack_stats *st = ustack_session_stats(c->session);
	unsigned long long rb = c->ui ? ustack_instance_lost(c->ui, -1) : st->rb_lost;

	if (c->o->quiet || !isatty(STDERR_FILENO))
		return;
	if (final) {
		if (c->progress_shown)
			fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "\r\033[Kevents %llu  stacks %llu  pending %llu  lost %llu  rb-lost %llu",
		(unsigned long long)st->events,
		(unsigned long long)(st->matched),
		(unsigned long long)st->pending, stats_lost(st), rb);
	c->progress_shown = true;
}

static void finish(struct ustack_ctx *c)
{
	const struct ustack_stats *st;

	ustack_session_flush(c->session);
	st = ustack_session_stats(c->session);
	if (c->printer && !c->output_failed &&
	    (ustack_output_finish(c->printer) < 0 || fflush(stdout) == EOF))
		c->output_failed = true;
	print_progress(c, true);
	if (!c->o->quiet)
		ustack_output_summary(stderr, st);
}

/* ------------------------------------------------------------------ */
/* Live and record                                                    */
/* ------------------------------------------------------------------ */

static const char *fallback_notice =
	"this kernel has no deferred user stacks (options/userstacktrace_delay);\n"
	"  using the synchronous userstacktrace option instead: at most 8 frames,\n"
	"  taken in the event (no page faults: frames on non-resident stack pages end\n"
	"  the walk), and addresses mapped through /proc/<pid>/maps snapshots, so\n"
	"  frames of processes that exit within one tick (-s) may stay unresolved.\n"
	"  The kernel patches are in kernel-patches/ of trace-cmd-ustack.";

static void enable_spec(struct ustack_ctx *c, const struct event_spec *ev)
{
	if (!ustack_instance_enable_event(c->ui, ev->system, ev->event, ev->filter))
		return;
	if (errno == EINVAL)
		die("bad filter '%s' for %s%s%s", ev->filter, ev->system,
		    ev->event ? ":" : "", ev->event ? ev->event : "");
	if (errno == ENOENT)
		die("unknown event %s%s%s", ev->system, ev->event ? ":" : "",
		    ev->event ? ev->event : "");
	die("cannot enable %s%s%s: %s", ev->system, ev->event ? ":" : "",
	    ev->event ? ev->event : "", strerror(errno));
}

static bool system_exists(const char *sys)
{
	char file[256];

	snprintf(file, sizeof(file), "events/%s", sys);
	return tracefs_dir_exists(NULL, file);
}

static void default_events(struct ustack_opts *o)
{
	o->events = calloc(1, sizeof(*o->events));
	o->nr_events = 1;
	if (system_exists("syscalls")) {
		o->events[0].system = strdup("syscalls");
		o->events[0].event = strdup("sys_enter_*");
	} else {
		o->events[0].system = strdup("raw_syscalls");
		o->events[0].event = strdup("sys_enter");
	}
}

static bool user_asked(struct ustack_opts *o, const char *sys, const char *name)
{
	int i;

	for (i = 0; i < o->nr_events; i++) {
		if (fnmatch(o->events[i].system, sys, 0))
			continue;
		if (!o->events[i].event || !fnmatch(o->events[i].event, name, 0))
			return true;
	}
	return false;
}

static void add_system(const char ***systems, int *nr, const char *sys)
{
	int i;

	for (i = 0; i < *nr; i++)
		if (!strcmp((*systems)[i], sys))
			return;
	*systems = realloc(*systems, (*nr + 2) * sizeof(**systems));
	if (!*systems)
		die("out of memory");
	(*systems)[(*nr)++] = strdup(sys);
	(*systems)[*nr] = NULL;
}

/* Every system whose formats we need: ours, the helpers', the user's. */
static const char **needed_systems(struct ustack_ctx *c)
{
	const char **systems = NULL;
	char **all;
	int nr = 0, i, j;

	add_system(&systems, &nr, "ftrace");
	if (c->newtask_helper)
		add_system(&systems, &nr, "task");
	if (c->deferred)
		add_system(&systems, &nr, "inode_cache");
	else
		add_system(&systems, &nr, "sched");
	all = tracefs_event_systems(NULL);
	for (i = 0; all && all[i]; i++)
		for (j = 0; j < c->o->nr_events; j++)
			if (!fnmatch(c->o->events[j].system, all[i], 0))
				add_system(&systems, &nr, all[i]);
	tracefs_list_free(all);
	return systems;
}

static void setup_stack_path(struct ustack_ctx *c)
{
	struct ustack_opts *o = c->o;

	c->deferred = !o->force_fallback &&
		ustack_instance_has_option(c->ui, "userstacktrace_delay");
	if (c->deferred) {
		if (ustack_instance_set_option(c->ui, "userstacktrace_delay", true) < 0)
			die("cannot set options/userstacktrace_delay: %s", strerror(errno));
		if (ustack_instance_enable_event(c->ui, "inode_cache", "inode_cache", NULL) < 0)
			warn("no inode_cache event: frames will stay unresolved");
		return;
	}
	if (ustack_instance_set_option(c->ui, "userstacktrace", true) < 0)
		die("cannot set options/userstacktrace: %s", strerror(errno));
	/* An exec replaces the maps: snapshot again (sched_process_exec). */
	if (!user_asked(o, "sched", "sched_process_exec") &&
	    !ustack_instance_enable_event(c->ui, "sched", "sched_process_exec", NULL))
		c->exec_helper = true;
}

static int read_tgid(int pid)
{
	char path[64], buf[1024];
	ssize_t n;
	char *p;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "\nTgid:");
	return p ? atoi(p + 6) : 0;
}

/* -P: every thread of the process, and the process itself unless -c. */
static void trace_process(struct ustack_ctx *c, int pid)
{
	char path[64];
	struct dirent *de;
	int tgid = read_tgid(pid);
	DIR *dir;

	if (!tgid)
		die("no such process: %d", pid);
	if (!c->o->children)
		follow_tgid(c, tgid);
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

static void setup_instance(struct ustack_ctx *c)
{
	struct ustack_opts *o = c->o;
	char buf[32];
	int i;

	c->ui = ustack_instance_open(o->instance);
	if (!c->ui)
		die("cannot create instance %s: %s", o->instance ? o->instance : "ustack-<pid>",
		    strerror(errno));
	ustack_instance_write(c->ui, "tracing_on", "0");
	if (o->buffer_kb) {
		snprintf(buf, sizeof(buf), "%ld", o->buffer_kb);
		if (ustack_instance_write(c->ui, "buffer_size_kb", buf) < 0)
			die("cannot set buffer size %s KiB: %s", buf, strerror(errno));
	}
	if (o->clock && ustack_instance_write(c->ui, "trace_clock", o->clock) < 0)
		die("unknown trace clock '%s'", o->clock);
	/* Wake the reader at a quarter full; never 0 (one wakeup per event). */
	ustack_instance_write(c->ui, "buffer_percent", "25");
	if (o->out.kernel && ustack_instance_set_option(c->ui, "stacktrace", true) < 0)
		die("cannot set options/stacktrace: %s", strerror(errno));
	setup_stack_path(c);
	if (!o->nr_events)
		default_events(o);
	for (i = 0; i < o->nr_events; i++)
		enable_spec(c, &o->events[i]);
	for (i = 0; i < o->nr_pids; i++)
		trace_process(c, o->pids[i]);
	/* New threads are traced only with event-fork (children too: see -c). */
	if ((o->nr_pids || o->cmd) && ustack_instance_set_option(c->ui, "event-fork", true) < 0)
		die("cannot set options/event-fork: %s", strerror(errno));
	/*
	 * Without -c, new threads are kept and new processes left out:
	 * task_newtask's clone flags tell which is which, even for tasks
	 * gone before /proc could be read.
	 */
	if ((o->nr_pids || o->cmd) && !o->children && !user_asked(o, "task", "task_newtask") &&
	    !ustack_instance_enable_event(c->ui, "task", "task_newtask", NULL))
		c->newtask_helper = true;
	/* Said once the setup worked, so that errors stay one line. */
	if (!c->deferred)
		warn("%s", fallback_notice);
}

static void write_info_marker(struct ustack_ctx *c)
{
	char buf[256];
	int fd;

	fd = tracefs_instance_file_open(ustack_instance_tracefs(c->ui), "trace_marker",
					O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	snprintf(buf, sizeof(buf), INFO_MARKER "path=%s helpers=%s%s",
		 c->deferred ? "deferred" : "fallback",
		 c->exec_helper ? "sched:sched_process_exec" : "none",
		 c->newtask_helper ? ",task:task_newtask" : "");
	if (write(fd, buf, strlen(buf)) < 0)
		warn("trace_marker: %s", strerror(errno));
	close(fd);
}

static void on_maps(int tgid, uint64_t ts, const char *text, void *data)
{
	struct ustack_ctx *c = data;

	ustack_session_add_maps(c->session, tgid, ts, text);
}

/* A task we have not seen: tell libtraceevent and the session about it. */
static void learn_task(struct ustack_ctx *c, int pid)
{
	char path[64], comm[64];
	ssize_t n;
	int fd, tgid;
	long slot;

	if (pid <= 0)
		return;
	slot = task_find(&c->tasks, pid, true);
	if (c->tasks.learned[slot])
		return;
	c->tasks.learned[slot] = true;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (n > 0) {
			comm[n] = '\0';
			comm[strcspn(comm, "\n")] = '\0';
			tep_register_comm(c->tep, comm, pid);
		}
	}
	/* task_newtask knows better: /proc may show a reused pid. */
	tgid = c->tasks.tgid[slot];
	if (tgid <= 0)
		tgid = read_tgid(pid);
	c->tasks.tgid[slot] = tgid ? tgid : -1;
	if (tgid > 0)
		ustack_session_set_tgid(c->session, pid, tgid);
}

/* A new task: a thread joins its creator's group, a process its own. */
static void note_newtask(struct ustack_ctx *c, struct tep_record *rec)
{
	int parent = tep_data_pid(c->tep, rec);
	int pid = field_val(c->f_newtask_pid, rec);
	long slot, pslot;
	int tgid = pid;

	if (field_val(c->f_newtask_flags, rec) & CLONE_THREAD) {
		learn_task(c, parent);
		pslot = task_find(&c->tasks, parent, false);
		tgid = pslot >= 0 && c->tasks.tgid[pslot] > 0 ? c->tasks.tgid[pslot] : 0;
	}
	if (pid <= 0 || tgid <= 0)
		return;
	slot = task_find(&c->tasks, pid, true);
	c->tasks.tgid[slot] = tgid;
}

/* Before a batch is fed: learn new tasks, snapshot maps (fallback). */
static void on_batch(struct tep_record **recs, int nr, void *data)
{
	struct ustack_ctx *c = data;
	int i, type, pid;

	for (i = 0; i < nr && c->newtask_helper; i++)
		if (tep_data_type(c->tep, recs[i]) == c->id_newtask)
			note_newtask(c, recs[i]);
	for (i = 0; i < nr; i++) {
		pid = tep_data_pid(c->tep, recs[i]);
		learn_task(c, pid);
		if (!c->procmaps)
			continue;
		type = tep_data_type(c->tep, recs[i]);
		if (type == c->id_ustack)
			ustack_procmaps_see(c->procmaps, field_val(c->f_tgid, recs[i]));
		else if (type == c->id_exec)
			ustack_procmaps_exec(c->procmaps, field_val(c->f_exec_pid, recs[i]),
					     recs[i]->ts);
	}
	if (c->procmaps && nr)
		ustack_procmaps_refresh(c->procmaps, ustack_instance_now(c->ui));
}

static void on_record(struct tep_record *rec, void *data)
{
	feed(data, rec);
}

static void on_horizon(unsigned long long ts, void *data)
{
	struct ustack_ctx *c = data;

	ustack_session_advance(c->session, ts);
}

static const struct ustack_stream_ops stream_ops = {
	.batch		= on_batch,
	.record		= on_record,
	.horizon	= on_horizon,
};

static void reset_child_signals(void)
{
	sigset_t set;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
}

/*
 * Fallback: a command that lives less than a tick would exit before its
 * maps are read. Stop it at exit (PTRACE_O_TRACEEXIT: the mm is still
 * there) to take a last snapshot; its threads too, and with -c the
 * processes it makes. Best effort: ptrace may be restricted.
 */
static void watch_exit(struct ustack_ctx *c)
{
	sigset_t set;
	long opts;

	if (!c->procmaps)
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	c->sigchld_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (c->sigchld_fd < 0)
		return;
	opts = PTRACE_O_TRACEEXIT | PTRACE_O_TRACECLONE;
	if (c->o->children)
		opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	if (ptrace(PTRACE_SEIZE, c->child, 0, opts) < 0) {
		close(c->sigchld_fd);
		c->sigchld_fd = -1;
		return;
	}
	c->ptraced = true;
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/*
 * A ptrace stop of the command or of a task it made: snapshot the maps at
 * exit, let new tasks and fork/clone events go on, pass signals on.
 */
static void handle_stop(struct ustack_ctx *c, pid_t pid, int status)
{
	int event = status >> 16;
	int tgid;

	switch (event) {
	case PTRACE_EVENT_EXIT:
		learn_task(c, pid);
		tgid = read_tgid(pid);
		if (tgid > 0)
			ustack_procmaps_update(c->procmaps, tgid, ustack_instance_now(c->ui));
		ptrace(PTRACE_CONT, pid, 0, 0);
		break;
	case PTRACE_EVENT_STOP:
		/* group stop: stay stopped; first stop of a new task: go */
		if (is_stop_signal(WSTOPSIG(status)))
			ptrace(PTRACE_LISTEN, pid, 0, 0);
		else
			ptrace(PTRACE_CONT, pid, 0, 0);
		break;
	case 0:
		ptrace(PTRACE_CONT, pid, 0, WSTOPSIG(status));
		break;
	default:
		ptrace(PTRACE_CONT, pid, 0, 0);
		break;
	}
}

/*
 * Fork the command and hold it before exec until it is in the pid filter
 * and tracing is on: it is traced from its exec on, and nothing else
 * slips in while the filter is still empty.
 */
static void launch_prepare(struct ustack_ctx *c)
{
	int go[2], err[2], e;
	char ch;
	ssize_t n;

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		die("pipe: %s", strerror(errno));
	fflush(NULL);
	c->child = fork();
	if (c->child < 0)
		die("fork: %s", strerror(errno));
	if (!c->child) {
		reset_child_signals();
		close(go[1]);
		close(err[0]);
		if (read(go[0], &ch, 1) != 1)
			_exit(127);
		execvp(c->o->cmd[0], c->o->cmd);
		e = errno;
		n = write(err[1], &e, sizeof(e));
		(void)n;
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	c->go_fd = go[1];
	c->err_fd = err[0];
	if (ustack_instance_add_pid(c->ui, c->child, false) < 0)
		die("cannot filter pid %d: %s", c->child, strerror(errno));
	if (!c->o->children)
		follow_tgid(c, c->child);
	watch_exit(c);
}

static void launch_release(struct ustack_ctx *c)
{
	char ch = 0;
	int status;
	ssize_t n;
	int e;

	if (write(c->go_fd, &ch, 1) != 1)
		die("cannot start %s: %s", c->o->cmd[0], strerror(errno));
	close(c->go_fd);
	n = read(c->err_fd, &e, sizeof(e));
	close(c->err_fd);
	if (n == sizeof(e)) {
		/* It may sit in a ptrace exit stop, which SIGKILL does not end. */
		while (waitpid(c->child, &status, __WALL) == c->child && WIFSTOPPED(status))
			ptrace(PTRACE_CONT, c->child, 0, 0);
		c->child = 0;
		die("cannot run %s: %s", c->o->cmd[0], strerror(e));
	}
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void reap_child(struct ustack_ctx *c)
{
	struct signalfd_siginfo si;
	int status;
	pid_t pid;

	while (c->sigchld_fd >= 0 && read(c->sigchld_fd, &si, sizeof(si)) > 0)
		;
	while (c->child && !c->child_done &&
	       (pid = waitpid(c->ptraced ? -1 : c->child, &status, WNOHANG | __WALL)) > 0) {
		if (WIFSTOPPED(status)) {
			handle_stop(c, pid, status);
			continue;
		}
		if (pid != c->child)
			continue;
		c->child_status = status;
		c->child_done = true;
	}
}

/* Poll until a stop condition: signal, command exit, duration, output error. */
static void run_loop(struct ustack_ctx *c)
{
	unsigned long long deadline = 0, t;
	struct pollfd pfd[3];

	if (c->o->duration)
		deadline = now_ns() + (unsigned long long)(c->o->duration * 1e9);
	pfd[0].fd = ustack_stream_fd(c->stream);
	pfd[0].events = POLLIN;
	pfd[1].fd = ustack_stop_fd();
	pfd[1].events = POLLIN;
	pfd[2].fd = c->sigchld_fd;
	pfd[2].events = POLLIN;
	for (;;) {
		poll(pfd, 3, 200);
		ustack_stream_consume(c->stream, &stream_ops, c);
		reap_child(c);
		t = now_ns();
		if (ustack_stop_requested() || c->child_done || (deadline && t >= deadline))
			break;
		if (t - c->last_progress >= PROGRESS_NS) {
			c->last_progress = t;
			print_progress(c, false);
		}
	}
}

static void stop_capture(struct ustack_ctx *c)
{
	struct pollfd pfd = { .fd = ustack_stream_fd(c->stream), .events = POLLIN };

	ustack_instance_write(c->ui, "tracing_on", "0");
	ustack_stream_stop(c->stream);
	while (!ustack_stream_consume(c->stream, &stream_ops, c))
		poll(&pfd, 1, 100);
	ustack_stream_close(c->stream);
}

/* Our own command is ours to end when the run ends first. */
static void end_child(struct ustack_ctx *c)
{
	int i;

	reap_child(c);
	if (!c->child || c->child_done)
		return;
	kill(c->child, SIGTERM);
	for (i = 0; i < 50 && !c->child_done; i++) {
		usleep(20000);
		reap_child(c);
	}
	if (c->child_done)
		return;
	kill(c->child, SIGKILL);
	/* reap_child() also lets a ptrace exit stop go on. */
	for (i = 0; i < 500 && !c->child_done; i++) {
		usleep(10000);
		reap_child(c);
	}
}

static char *read_clock(struct ustack_ctx *c)
{
	char *clock = tracefs_instance_file_read(ustack_instance_tracefs(c->ui), "trace_clock",
						 NULL);

	if (clock)
		clock[strcspn(clock, "\n")] = '\0';
	return clock;
}

static void remove_files(char * const *files, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (files[i])
			unlink(files[i]);
}

static void write_tracedat(struct ustack_ctx *c, const char **systems)
{
	struct ustack_tracedat_out out = { 0 };
	char *clock = read_clock(c);
	char **maps = NULL;
	int i, ret;

	if (c->procmaps)
		maps = ustack_procmaps_options(c->procmaps);
	out.file = c->o->output;
	out.instance = ustack_instance_name(c->ui);
	out.nr_cpus = ustack_stream_nr_cpus(c->stream);
	out.cpu_files = ustack_stream_files(c->stream);
	out.systems = systems;
	out.clock = clock;
	out.procmaps = maps;
	ret = ustack_tracedat_write(&out);
	remove_files(out.cpu_files, out.nr_cpus);
	for (i = 0; maps && maps[i]; i++)
		free(maps[i]);
	free(maps);
	free(clock);
	if (ret < 0)
		die("cannot write %s", c->o->output);
	if (!c->o->quiet)
		fprintf(stderr, "trace-cmd ustack: wrote %s\n", c->o->output);
}

static void keep_self_out(struct ustack_ctx *c)
{
	/* System-wide: our own reads and writes must not trace themselves. */
	if (c->o->nr_pids || c->o->cmd)
		return;
	ustack_instance_add_pid(c->ui, getpid(), true);
	ustack_instance_add_pid(c->ui, ustack_stream_tid(c->stream), true);
}

/* SIGCHLD is read from a signalfd; children get an empty mask back. */
static void block_sigchld(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

static void check_capture_env(void)
{
	const char *err;

	if (geteuid() != 0)
		die("must be run as root (tracefs instances need it)");
	if (!ustack_tracefs_check(&err))
		die("%s", err);
}

static void run_capture(struct ustack_opts *o)
{
	struct ustack_stream_opts so = { 0 };
	struct ustack_ctx c = { .o = o };
	char *prefix = NULL;
	const char **systems;

	check_capture_env();
	ustack_signals_install();
	c.sigchld_fd = -1;
	block_sigchld();
	c.print = o->mode == MODE_LIVE;
	setup_instance(&c);
	systems = needed_systems(&c);
	c.tep = tracefs_local_events_system(NULL, systems);
	if (!c.tep)
		die("cannot read event formats: %s", strerror(errno));
	ctx_init_ids(&c);
	open_session(&c, true);
	if (!c.deferred) {
		c.procmaps = ustack_procmaps_new(o->mode == MODE_RECORD ? c.ui : NULL, on_maps, &c);
		if (!c.procmaps)
			die("out of memory");
	}
	if (o->mode == MODE_RECORD && asprintf(&prefix, "%s", o->output) < 0)
		die("out of memory");
	so.tick_us = o->tick_us;
	so.save_prefix = prefix;
	c.stream = ustack_stream_open(c.ui, c.tep, &so);
	if (!c.stream)
		die("cannot open the per-CPU buffers: %s", strerror(errno));
	if (ustack_stream_start(c.stream) < 0)
		die("cannot start the reader: %s", strerror(errno));
	keep_self_out(&c);
	if (o->cmd)
		launch_prepare(&c);
	ustack_instance_write(c.ui, "tracing_on", "1");
	if (o->mode == MODE_RECORD)
		write_info_marker(&c);
	if (o->cmd)
		launch_release(&c);
	run_loop(&c);
	stop_capture(&c);
	end_child(&c);
	finish(&c);
	if (o->mode == MODE_RECORD)
		write_tracedat(&c, systems);
	ustack_procmaps_free(c.procmaps);
	ustack_stream_free(c.stream);
	ustack_instance_close(c.ui);
	ustack_output_free(c.printer);
	ustack_resolver_free(c.resolver);
	ustack_session_free(c.session);
	tep_free(c.tep);
	free(prefix);
	if (c.output_failed)
		exit(1);
	exit(c.child_done && WIFEXITED(c.child_status) ? 0 : 0);
}

/* ------------------------------------------------------------------ */
/* Report                                                             */
/* ------------------------------------------------------------------ */

struct maps_list {
	struct maps_list	*next;
	int			tgid;
	uint64_t		ts;
	char			*text;
};

struct prepass {
	struct ustack_ctx		*c;
	struct ustack_maps_reader	*mr;
	struct maps_list		*maps;
	bool				exec_helper;
	bool				newtask_helper;
};

static void collect_maps(int tgid, uint64_t ts, const char *text, void *data)
{
	struct prepass *pp = data;
	struct maps_list *m = calloc(1, sizeof(*m));

	if (!m)
		return;
	m->tgid = tgid;
	m->ts = ts;
	m->text = strdup(text);
	m->next = pp->maps;
	pp->maps = m;
}

static void prepass_record(struct tep_record *rec, void *data)
{
	struct prepass *pp = data;
	const char *text = print_text(pp->c, rec);

	if (!text)
		return;
	if (!strncmp(text, INFO_MARKER, strlen(INFO_MARKER))) {
		pp->exec_helper = strstr(text, "sched:sched_process_exec") != NULL;
		pp->newtask_helper = strstr(text, "task:task_newtask") != NULL;
	} else {
		ustack_maps_reader_feed(pp->mr, text);
	}
}

/*
 * Fallback files carry maps snapshots as markers that may come after the
 * stacks they map (a snapshot is taken when a process is first seen):
 * read them all before pairing.
 */
static void report_prepass(struct ustack_opts *o, struct prepass *pp)
{
	struct ustack_ctx c = { .o = o };
	struct ustack_tracedat *td;
	const char *err;

	td = ustack_tracedat_open(o->input, o->instance, &err);
	if (!td)
		die("%s", err);
	c.tep = ustack_tracedat_tep(td);
	ctx_init_ids(&c);
	pp->c = &c;
	pp->mr = ustack_maps_reader_new(collect_maps, pp);
	if (c.f_buf)
		ustack_tracedat_iterate(td, prepass_record, pp);
	ustack_maps_reader_free(pp->mr);
	pp->c = NULL;
	free(c.drop);
	ustack_tracedat_close(td);
}

static void report_record(struct tep_record *rec, void *data)
{
	struct ustack_ctx *c = data;

	if (c->output_failed)
		return;
	feed(c, rec);
}

static void run_report(struct ustack_opts *o)
{
	struct ustack_ctx c = { .o = o };
	struct prepass pp = { 0 };
	struct ustack_tracedat *td;
	struct maps_list *m;
	const char *err;

	signal(SIGPIPE, SIG_IGN);
	report_prepass(o, &pp);
	td = ustack_tracedat_open(o->input, o->instance, &err);
	if (!td)
		die("%s", err);
	c.tep = ustack_tracedat_tep(td);
	c.print = true;
	ctx_init_ids(&c);
	c.exec_helper = pp.exec_helper;
	c.newtask_helper = pp.newtask_helper;
	open_session(&c, false);
	while ((m = pp.maps)) {
		pp.maps = m->next;
		ustack_session_add_maps(c.session, m->tgid, m->ts, m->text);
		free(m->text);
		free(m);
	}
	ustack_tracedat_iterate(td, report_record, &c);
	finish(&c);
	ustack_output_free(c.printer);
	ustack_resolver_free(c.resolver);
	ustack_session_free(c.session);
	free(c.drop);
	ustack_tracedat_close(td);
	exit(c.output_failed ? 1 : 0);
}

/**
 * trace_ustack - the `trace-cmd ustack` command
 * @argc: argument count
 * @argv: argv[0] "trace-cmd", argv[1] "ustack", then the options
 *
 * Does not return.
 */
void trace_ustack(int argc, char **argv)
{
	struct ustack_opts o;

	if (argc < 2 || strcmp(argv[1], "ustack"))
		die("expected 'ustack' as the command");
	argv[1] = "trace-cmd ustack";
	parse_args(&o, argc - 1, argv + 1);
	if (o.mode == MODE_REPORT)
		run_report(&o);
	run_capture(&o);
	exit(0);
}
