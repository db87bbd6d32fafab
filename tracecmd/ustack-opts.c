// SPDX-License-Identifier: GPL-2.0
/*
 * The command line of `trace-cmd ustack`: argp options with trace-cmd
 * record's letters, the subcommand (record, report) and the command to
 * run after the options.
 */
#include <argp.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>

#include "ustack-cmd.h"
#include "ustack-perf-source.h"
#include "ustack-session.h"
#include "ustack-warn.h"

enum {
	OPT_FOLDED = 256,
	OPT_PERF_SCRIPT,
	OPT_KERNEL,
	OPT_COMM,
	OPT_SYMFS,
	OPT_DEBUG_DIR,
	OPT_LINES,
	OPT_INLINES,
	OPT_NO_DEMANGLE,
	OPT_DEBUGINFOD,
	OPT_NO_DEBUGINFOD,
	OPT_RAW,
	OPT_FALLBACK,
	OPT_REVERSE,
	OPT_STACK_SOURCE,
	OPT_MAX_STACK,
	OPT_CALL_GRAPH,
	OPT_WHY,
	OPT_TOP,
	OPT_TREE,
	OPT_SORT,
	OPT_PERCENT_LIMIT,
	OPT_EVENT_ROOT,
	OPT_TID,
	OPT_DSO,
	OPT_SINCE,
	OPT_UNTIL,
};

/* --version and -V, as trace-cmd and perf have a version command/option */
const char *argp_program_version = "trace-cmd ustack version " USTACK_VERSION;

static const char doc[] =
"Print the user-space call paths that lead to kernel events.\n"
"\n"
"  trace-cmd ustack [OPTIONS] [-- COMMAND [ARGS...]]\n"
"  trace-cmd ustack record -o FILE [OPTIONS] [-- COMMAND [ARGS...]]\n"
"  trace-cmd ustack report -i FILE [OPTIONS]\n"
"\n"
"Every traced event is printed with the user stack of the task that caused "
"it. With the kernel patches (options/userstacktrace_delay; man trace-cmd-ustack) "
"the stack is taken when the task returns to user space, complete and "
"without faulting in the event; otherwise the synchronous userstacktrace "
"option is used (at most 8 frames).\v"
"Examples:\n"
"  trace-cmd ustack -- ./myprog              its syscalls and their stacks\n"
"  trace-cmd ustack -e syscalls:sys_enter_openat -P 1234\n"
"  trace-cmd ustack --flamegraph make.svg -d 10 -c -- make\n"
"  trace-cmd ustack --folded -d 10 -c -- make | flamegraph.pl > make.svg\n"
"  trace-cmd ustack record -o trace.dat -e sched:sched_switch -- ./server\n"
"  trace-cmd ustack report -i trace.dat --perf-script\n"
"  trace-cmd ustack report -i trace.dat --top=10 --tree=callee\n"
"  trace-cmd ustack report -e 'syscalls:*openat' --since +2 --folded\n"
"  trace-cmd report -i trace.dat             the same file with stock trace-cmd\n";

static struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "What to trace (live and record):", 1 },
	{ "event", 'e', "SYSTEM[:EVENT]", 0,
	  "Trace this event (shell patterns allowed; repeatable). Default: every "
	  "system call through raw_syscalls:sys_enter, each named by its call "
	  "(syscalls:sys_enter_openat). Report: only show these events", 1 },
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
	  "Use the synchronous userstacktrace option even if deferred stacks exist "
	  "(--stack-source=userstacktrace)", 2 },
	{ "stack-source", OPT_STACK_SOURCE, "SOURCE", 0,
	  "Where stacks come from: tracefs-deferred (patched kernel), perf (perf "
	  "events), userstacktrace (8 frames); default: the first that works", 2 },
	{ "max-stack", OPT_MAX_STACK, "N", 0,
	  "perf source: at most N frames per stack (default and most: "
	  "kernel.perf_event_max_stack); --call-graph=dwarf and report: at most N "
	  "frames unwound from a stack copy", 2 },
	{ "call-graph", OPT_CALL_GRAPH, "fp|dwarf[,SIZE]", 0,
	  "perf source: the kernel's frame-pointer chain (fp, default), or the user "
	  "registers and SIZE bytes of the user stack (default 8192) unwound with the "
	  "files' CFI (dwarf), as perf record --call-graph", 2 },
	{ NULL, 0, NULL, 0, "Files:", 3 },
	{ "output", 'o', "FILE", 0, "record: write the trace to FILE (default trace.dat)", 3 },
	{ "input", 'i', "FILE", 0, "report: read FILE (default trace.dat)", 3 },
	{ NULL, 0, NULL, 0, "Output:", 4 },
	{ "folded", OPT_FOLDED, NULL, 0,
	  "Folded stacks for flame graphs (comm;root;...;leaf count), printed at the end", 4 },
	{ "perf-script", OPT_PERF_SCRIPT, NULL, 0, "Output like `perf script`", 4 },
	{ "flamegraph", USTACK_PROFILE_KEY(USTACK_PROFILE_FLAMEGRAPH), "FILE.svg", 0,
	  "Write an interactive flame graph (SVG) at the end; stdout then stays quiet "
	  "unless --folded or --perf-script", 4 },
	{ "reverse", OPT_REVERSE, NULL, 0,
	  "Flame graph of callers: stacks merged leaf first, drawn top down (icicle)", 4 },
	{ "pprof", USTACK_PROFILE_KEY(USTACK_PROFILE_PPROF), "FILE.pb.gz", 0,
	  "Write a pprof profile (go tool pprof, Pyroscope, Parca) at the end", 4 },
	{ "speedscope", USTACK_PROFILE_KEY(USTACK_PROFILE_SPEEDSCOPE), "FILE.json", 0,
	  "Write a speedscope profile at the end", 4 },
	{ "raw", OPT_RAW, NULL, 0, "Do not symbolize: print file offsets", 4 },
	{ "lines", OPT_LINES, NULL, 0, "Add source file:line (DWARF)", 4 },
	{ "why", OPT_WHY, NULL, 0,
	  "Say after each unresolved user frame why it has no name", 4 },
	{ "inline", OPT_INLINES, NULL, 0,
	  "Show inlined calls as frames of their own (DWARF; marked inlined, _[i] when folded)", 4 },
	{ "inlines", OPT_INLINES, NULL, OPTION_ALIAS, NULL, 4 },
	{ "no-demangle", OPT_NO_DEMANGLE, NULL, 0, "Do not demangle C++/Rust names", 4 },
	{ "no-debuginfod", OPT_NO_DEBUGINFOD, NULL, 0,
	  "Do not fetch missing debug info from $DEBUGINFOD_URLS (fetched by default when set)", 4 },
	{ "debuginfod", OPT_DEBUGINFOD, NULL, OPTION_HIDDEN, NULL, 4 },
	{ "symfs", OPT_SYMFS, "DIR", 0, "Look files up under DIR (a trace from another host)", 4 },
	{ "debug-dir", OPT_DEBUG_DIR, "DIR", 0,
	  "Look for debug files in DIR too: .build-id/xx/rest.debug, debuglink names (repeatable)", 4 },
	{ "quiet", 'q', NULL, 0, "No progress line and no summary", 4 },
	{ NULL, 0, NULL, 0, "Filters (live and report; every output):", 5 },
	{ "comm", OPT_COMM, "COMM", 0, "Only show tasks named COMM (repeatable)", 5 },
	{ "tid", OPT_TID, "TID[,TID...]", 0, "Only show these threads", 5 },
	{ "dso", OPT_DSO, "FILE", 0,
	  "Only show stacks with a user frame in FILE: its path or base name, shell "
	  "patterns allowed (repeatable)", 5 },
	{ "since", OPT_SINCE, "TIME", 0,
	  "Only show events from TIME on: a timestamp as printed (920.105459), or "
	  "+SECONDS after the first event", 5 },
	{ "until", OPT_UNTIL, "TIME", 0,
	  "Only show events up to TIME (included), as --since", 5 },
	{ NULL, 0, NULL, 0, "Analysis (live and report, printed at the end):", 6 },
	{ "top", OPT_TOP, "N", OPTION_ARG_OPTIONAL,
	  "A table per function: self % (the event was in it), total % (in it or what "
	  "it called) and their counts, sorted by self; the first N rows", 6 },
	{ "tree", OPT_TREE, "caller|callee", OPTION_ARG_OPTIONAL,
	  "The call tree from the outermost frames (caller, the default) or from the "
	  "leaves up to their callers (callee), each branch with its share", 6 },
	{ "sort", OPT_SORT, "KEY[,KEY...]", 0,
	  "--top's rows: per sym (the default), dso, comm, event or a pair such as "
	  "dso,sym; --tree: comm and event group it, dso names each function's file", 6 },
	{ "percent-limit", OPT_PERCENT_LIMIT, "PCT", 0,
	  "Leave out --top's rows whose total is under PCT % (default 0); fold --tree's "
	  "branches under it (default 0.5)", 6 },
	{ "event-root", OPT_EVENT_ROOT, NULL, 0,
	  "The event name as the root frame of --folded, --flamegraph, --pprof, "
	  "--speedscope and --tree: a recording of several events splits by event", 6 },
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

/*
 * strsep(), not strtok(): an empty item ("-P ,", "-P 1,,2") is a typo to
 * refuse, never skipped; "-P ," would otherwise trace the whole system.
 */
static void add_pids(int **pids, int *nr, const char *what, const char *arg,
		     struct argp_state *state)
{
	char *copy = strdup(arg), *rest = copy, *tok, *end;
	long pid;

	if (!copy)
		argp_failure(state, 1, ENOMEM, "%s", what);
	while ((tok = strsep(&rest, ","))) {
		if (!*tok)
			argp_error(state, "bad %s list '%s' (an empty item)", what, arg);
		errno = 0;
		pid = strtol(tok, &end, 10);
		/* pid_t is an int: a larger number must not wrap to another pid */
		if (errno || *end || pid <= 0 || pid > INT_MAX)
			argp_error(state, "bad %s '%s'", what, tok);
		*pids = realloc(*pids, (*nr + 1) * sizeof(**pids));
		if (!*pids)
			argp_failure(state, 1, ENOMEM, "%s", what);
		(*pids)[(*nr)++] = pid;
	}
	free(copy);
}

/*
 * An instance name becomes a directory under instances/: "..", "." or a
 * slash would name the top-level buffer or another directory.
 */
static void check_instance_name(const char *name, struct argp_state *state)
{
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/'))
		argp_error(state, "bad instance name '%s' (want a name without '/', "
			   "not '.' or '..')", name);
}

/*
 * A decimal number of @what from @min to @max. strtoul() alone takes
 * "-1" as ULONG_MAX and leading blanks: digits only, then the range.
 */
/* Ring-buffer KiB per CPU: 1 TiB is past any machine's memory. */
#define MAX_BUFFER_KB	(1UL << 30)
/* Microseconds between drains: a minute */
#define MAX_TICK_US	60000000UL

static unsigned long parse_ulong(const char *arg, const char *what, unsigned long min,
				 unsigned long max, struct argp_state *state)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || errno || *end || v < min || v > max)
		argp_error(state, "bad %s '%s' (want a whole number from %lu to %lu)",
			   what, arg, min, max);
	return v;
}

/*
 * USTACK_MEMORY_BUDGET_MB: what the events waiting for their stacks may
 * hold, in MiB (0: no budget). An environment variable, not an option:
 * the default suits every input a user has; only a test or a machine
 * with little memory changes it. A bad value is the default, said.
 */
static size_t mem_budget(void)
{
	const char *env = getenv("USTACK_MEMORY_BUDGET_MB");
	unsigned long mb;
	char *end;

	if (!env || !*env)
		return USTACK_MEM_BUDGET_DEFAULT;
	errno = 0;
	mb = strtoul(env, &end, 10);
	if (*env < '0' || *env > '9' || errno || *end || mb > (SIZE_MAX >> 20)) {
		ustack_warning("USTACK_MEMORY_BUDGET_MB='%s' is not a number of MiB: %zu used",
			       env, USTACK_MEM_BUDGET_DEFAULT >> 20);
		return USTACK_MEM_BUDGET_DEFAULT;
	}
	return (size_t)mb << 20;
}

/*
 * --call-graph=fp|dwarf[,SIZE]: SIZE as perf takes it, a multiple of 8
 * (rounded up) that a perf record's 16-bit size leaves room for
 */
static void parse_call_graph(struct ustack_opts *o, const char *arg, struct argp_state *state)
{
	const char *comma = strchr(arg, ',');

	if (!strcmp(arg, "fp")) {
		o->dwarf_size = 0;
		return;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ','))
		argp_error(state, "bad --call-graph '%s' (want fp or dwarf[,SIZE])", arg);
	o->dwarf_size = USTACK_DWARF_SIZE_DEFAULT;
	if (comma)
		o->dwarf_size = parse_ulong(comma + 1, "--call-graph dwarf size", 8,
					    USTACK_DWARF_SIZE_MAX, state);
	o->dwarf_size = (o->dwarf_size + 7) & ~7U;
}

/* Seconds, decimal: strtod() alone also takes nan, inf, hex and 1e309. */
#define MIN_DURATION	0.001
#define MAX_DURATION	31536000.0	/* a year */

static double parse_duration(const char *arg, struct argp_state *state)
{
	const char *p;
	char *end;
	double d;

	for (p = arg; *p; p++)
		if ((*p < '0' || *p > '9') && *p != '.')
			break;
	errno = 0;
	d = strtod(arg, &end);
	if (!*arg || *p || *end || errno || !isfinite(d) ||
	    d < MIN_DURATION || d > MAX_DURATION)
		argp_error(state, "bad duration '%s' (want decimal seconds from %g to %.0f)",
			   arg, MIN_DURATION, MAX_DURATION);
	return d;
}

/* --percent-limit: a decimal percentage, digits and a dot only */
static double parse_percent(const char *arg, struct argp_state *state)
{
	const char *p;
	char *end;
	double d;

	for (p = arg; *p; p++)
		if ((*p < '0' || *p > '9') && *p != '.')
			break;
	errno = 0;
	d = strtod(arg, &end);
	if (!*arg || *p || *end || errno || !isfinite(d) || d > 100)
		argp_error(state, "bad --percent-limit '%s' (want a percentage from 0 to 100)",
			   arg);
	return d;
}

/* --sort KEY[,KEY...]: each key once */
static void parse_sort(struct ustack_opts *o, const char *arg, struct argp_state *state)
{
	static const char * const names[USTACK_SORT_NR] = {
		[USTACK_SORT_SYM] = "sym", [USTACK_SORT_DSO] = "dso",
		[USTACK_SORT_COMM] = "comm", [USTACK_SORT_EVENT] = "event",
	};
	char *copy = strdup(arg), *rest = copy, *tok;
	int k, i;

	if (!copy)
		argp_failure(state, 1, ENOMEM, "--sort");
	o->nr_sort = 0;
	while ((tok = strsep(&rest, ","))) {
		for (k = 0; k < USTACK_SORT_NR; k++)
			if (!strcmp(tok, names[k]))
				break;
		if (k == USTACK_SORT_NR)
			argp_error(state, "bad --sort key '%s' (want sym, dso, comm or event)", tok);
		for (i = 0; i < o->nr_sort; i++)
			if (o->sort[i] == (enum ustack_sort_key)k)
				argp_error(state, "--sort names '%s' twice", tok);
		o->sort[o->nr_sort++] = k;
	}
	free(copy);
}

static void parse_tree(struct ustack_opts *o, const char *arg, struct argp_state *state)
{
	o->profile[USTACK_PROFILE_TREE] = "-";
	if (!arg || !strcmp(arg, "caller"))
		o->tree = TREE_CALLER;
	else if (!strcmp(arg, "callee"))
		o->tree = TREE_CALLEE;
	else
		argp_error(state, "bad --tree '%s' (want caller or callee)", arg);
}

static void parse_time(const char *arg, const char *what, struct ustack_time_bound *b,
		       struct argp_state *state)
{
	if (ustack_filter_time_parse(arg, b))
		argp_error(state, "bad %s '%s' (want a timestamp as printed, such as "
			   "920.105459, or +SECONDS after the first event)", what, arg);
}

/* --dso FILE, repeatable */
static void add_dso(struct ustack_opts *o, const char *arg, struct argp_state *state)
{
	if (!*arg)
		argp_error(state, "--dso wants a file name or pattern");
	o->dsos = realloc(o->dsos, (o->nr_dsos + 1) * sizeof(*o->dsos));
	if (!o->dsos)
		argp_failure(state, 1, ENOMEM, "--dso");
	o->dsos[o->nr_dsos++] = (char *)arg;
}

/*
 * A --symfs that does not exist would leave every frame [unknown] and the
 * run silent about why: it must be a directory now.
 */
static void check_symfs(const char *dir, struct argp_state *state)
{
	struct stat st;

	if (stat(dir, &st))
		argp_failure(state, EX_USAGE, errno, "--symfs %s", dir);
	if (!S_ISDIR(st.st_mode))
		argp_failure(state, EX_USAGE, 0, "--symfs %s: not a directory", dir);
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
	/*
	 * A command comes after "--": a mistyped mode ("reprot") is not
	 * run as a program, and a program named like a mode still can be.
	 */
	if (strcmp(state->argv[state->next - 2], "--"))
		argp_error(state, "'%s' is not a mode (record, report): "
			   "put a command after --, as in: -- %s", arg, arg);
	/* Everything from here on belongs to the command (like record's "+"). */
	o->cmd = &state->argv[state->next - 1];
	state->next = state->argc;
}

/* --debug-dir, repeatable: the resolver takes a NULL-terminated list. */
static void add_debug_dir(struct ustack_opts *o, const char *dir,
			  struct argp_state *state)
{
	const char **v = (const char **)o->resolve.debug_dirs;
	size_t n = 0;

	while (v && v[n])
		n++;
	v = realloc(v, (n + 2) * sizeof(*v));
	if (!v)
		argp_failure(state, 1, errno, "--debug-dir");
	v[n] = dir;
	v[n + 1] = NULL;
	o->resolve.debug_dirs = v;
}

/*
 * What --call-graph asks is handed to the stack source, which decides or
 * refuses when it opens (the synchronous fallback has no stack copies)
 */
static void check_call_graph(struct ustack_opts *o, struct argp_state *state)
{
	if (o->dwarf_size && o->mode == MODE_REPORT)
		argp_error(state, "--call-graph only applies when recording (report unwinds "
			   "what the file holds)");
}

/*
 * What only shapes what is printed: record prints nothing but its
 * summary, and keeps every event in the file for report to choose from.
 */
static const char *printed_only(const struct ustack_opts *o)
{
	if (o->profile[USTACK_PROFILE_TOP])
		return "--top";
	if (o->profile[USTACK_PROFILE_TREE])
		return "--tree";
	if (o->nr_sort)
		return "--sort";
	if (o->percent_limit >= 0)
		return "--percent-limit";
	if (o->event_root)
		return "--event-root";
	if (o->nr_tids)
		return "--tid";
	if (o->nr_dsos)
		return "--dso";
	if (o->since.set)
		return "--since";
	return o->until.set ? "--until" : NULL;
}

static void check_analysis(struct ustack_opts *o, struct argp_state *state)
{
	const char *opt = printed_only(o);

	if (o->mode == MODE_RECORD && opt)
		argp_error(state, "%s only applies to what is printed: use it live or with "
			   "report (record keeps every event)", opt);
	if ((o->nr_sort || o->percent_limit >= 0) && !o->profile[USTACK_PROFILE_TOP] &&
	    !o->profile[USTACK_PROFILE_TREE])
		argp_error(state, "--sort and --percent-limit are for --top and --tree");
	if (o->event_root && o->out.mode != USTACK_OUTPUT_FOLDED && !ustack_opts_profile(o) &&
	    !o->profile[USTACK_PROFILE_TREE])
		argp_error(state, "--event-root is for --folded, --flamegraph, --pprof, "
			   "--speedscope and --tree");
	if (o->since.set && o->until.set && o->since.relative == o->until.relative &&
	    o->since.us > o->until.us)
		argp_error(state, "--since is after --until: no event would be shown");
}

/* Some -e has its -f */
static bool any_filter(const struct ustack_opts *o)
{
	int i;

	for (i = 0; i < o->nr_events; i++)
		if (o->events[i].filter)
			return true;
	return false;
}

static void check_opts(struct ustack_opts *o, struct argp_state *state)
{
	bool capture = o->mode != MODE_REPORT;

	if (o->mode == MODE_REPORT) {
		if (o->cmd)
			argp_error(state, "report takes no command");
		if (o->output)
			argp_error(state, "-o is for record (report reads -i)");
		if (o->children || o->duration || o->buffer_kb || o->clock)
			argp_error(state, "-c/-d/-b/-C only apply when recording");
		if (o->nr_events && any_filter(o))
			argp_error(state, "-f only applies when recording (report: -e "
				   "alone chooses the events shown)");
	} else if (o->input) {
		argp_error(state, "-i is for report");
	}
	if (o->mode != MODE_RECORD && o->output)
		argp_error(state, "-o is for record");
	if (capture && o->cmd && o->nr_pids)
		argp_error(state, "use either -P or a command");
	if (o->mode == MODE_RECORD && ustack_opts_profile(o))
		argp_error(state, "--flamegraph/--pprof/--speedscope: write them from the "
			   "recorded file (report -i FILE) or live");
	if (o->reverse && !o->profile[USTACK_PROFILE_FLAMEGRAPH])
		argp_error(state, "--reverse is for --flamegraph");
	check_analysis(o, state);
	check_call_graph(o, state);
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct ustack_opts *o = state->input;

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
		add_pids(&o->pids, &o->nr_pids, "pid", arg, state);
		break;
	case 'c':
		o->children = true;
		break;
	case 'd':
		o->duration = parse_duration(arg, state);
		break;
	case 'B':
		check_instance_name(arg, state);
		o->instance = arg;
		break;
	case 'b':
		o->buffer_kb = parse_ulong(arg, "buffer size", 1, MAX_BUFFER_KB, state);
		break;
	case 'C':
		o->clock = arg;
		break;
	case 's':
		o->tick_us = parse_ulong(arg, "sleep time", 1, MAX_TICK_US, state);
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
		o->text_set = true;
		break;
	case OPT_PERF_SCRIPT:
		o->out.mode = USTACK_OUTPUT_PERF_SCRIPT;
		o->text_set = true;
		break;
	case OPT_REVERSE:
		o->reverse = true;
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
	case OPT_WHY:
		o->out.why = true;
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
		check_symfs(arg, state);
		o->resolve.symfs = arg;
		break;
	case OPT_DEBUG_DIR:
		add_debug_dir(o, arg, state);
		break;
	case OPT_FALLBACK:
		o->source = USTACK_SOURCE_USERSTACKTRACE;
		break;
	case OPT_MAX_STACK:
		o->max_stack = parse_ulong(arg, "--max-stack", 1, 65535, state);
		break;
	case OPT_CALL_GRAPH:
		parse_call_graph(o, arg, state);
		break;
	case OPT_TOP:
		o->profile[USTACK_PROFILE_TOP] = "-";
		o->top_n = arg ? parse_ulong(arg, "--top", 1, 1000000000, state) : 0;
		break;
	case OPT_TREE:
		parse_tree(o, arg, state);
		break;
	case OPT_SORT:
		parse_sort(o, arg, state);
		break;
	case OPT_PERCENT_LIMIT:
		o->percent_limit = parse_percent(arg, state);
		break;
	case OPT_EVENT_ROOT:
		o->event_root = true;
		break;
	case OPT_TID:
		add_pids(&o->tids, &o->nr_tids, "tid", arg, state);
		break;
	case OPT_DSO:
		add_dso(o, arg, state);
		break;
	case OPT_SINCE:
		parse_time(arg, "--since", &o->since, state);
		break;
	case OPT_UNTIL:
		parse_time(arg, "--until", &o->until, state);
		break;
	case OPT_STACK_SOURCE:
		if (!strcmp(arg, "tracefs-deferred"))
			o->source = USTACK_SOURCE_DEFERRED;
		else if (!strcmp(arg, "perf"))
			o->source = USTACK_SOURCE_PERF;
		else if (!strcmp(arg, "userstacktrace"))
			o->source = USTACK_SOURCE_USERSTACKTRACE;
		else
			argp_error(state, "unknown stack source '%s' (want tracefs-deferred, "
				   "perf or userstacktrace)", arg);
		break;
	case ARGP_KEY_ARG:
		take_arg(o, arg, state);
		break;
	case ARGP_KEY_END:
		check_opts(o, state);
		break;
	default:
		/* a profile file: its option is one entry of ustack-profiles.c's table */
		if (ustack_profiles_format(key) < 0)
			return ARGP_ERR_UNKNOWN;
		o->profile[ustack_profiles_format(key)] = arg;
	}
	return 0;
}

/* A build without libdebuginfod says so where the option is explained. */
static void note_debuginfod(void)
{
	struct argp_option *opt;

	if (ustack_resolve_debuginfod_available())
		return;
	for (opt = options; opt->name || opt->doc; opt++)
		if (opt->key == OPT_NO_DEBUGINFOD)
			opt->doc = "Does nothing: this build has no debuginfod support "
				   "(libdebuginfod was missing), missing debug info is not fetched";
}

/**
 * ustack_parse_args - parse the command line (exits on errors and --help)
 * @o:		filled in
 * @argc:	argument count
 * @argv:	argv[0] is the command's name ("trace-cmd ustack")
 */
void ustack_parse_args(struct ustack_opts *o, int argc, char **argv)
{
	static struct argp argp = {
		.options	= options,
		.parser		= parse_opt,
		.args_doc	= "[record|report] [-- COMMAND...]",
		.doc		= doc,
	};

	note_debuginfod();
	memset(o, 0, sizeof(*o));
	o->resolve.demangle = true;
	/* Like perf and gdb: use debuginfod when the user configured it */
	o->resolve.debuginfod = getenv("DEBUGINFOD_URLS") && *getenv("DEBUGINFOD_URLS");
	o->mem_budget = mem_budget();
	o->out.mode = USTACK_OUTPUT_STACKS;
	o->percent_limit = -1;
	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, o);
	o->out.fold_event = o->event_root;
	if (o->mode == MODE_RECORD && !o->output)
		o->output = "trace.dat";
	if (o->mode == MODE_REPORT && !o->input)
		o->input = "trace.dat";
	/*
	 * profiles go to their files, --top and --tree to the end of the
	 * output; stacks on stdout only when asked for
	 */
	if (ustack_opts_profiled(o) && !o->text_set)
		o->out.mode = USTACK_OUTPUT_NONE;
	/*
	 * The symbolizer reads line tables only for lines asked for: a
	 * profile keeps the lines of the frames DWARF names, the inlined
	 * calls' among them
	 */
	if (ustack_opts_profile(o) && o->resolve.inlines)
		o->resolve.lines = true;
}

/**
 * ustack_opts_profile - whether a profile file is written at the end
 * @o:		the command line
 */
bool ustack_opts_profile(const struct ustack_opts *o)
{
	int f;

	for (f = 0; f < USTACK_PROFILE_NR; f++)
		if (o->profile[f] && ustack_profiles_file(f))
			return true;
	return false;
}

/**
 * ustack_opts_profiled - whether the run keeps a profile: for its files,
 *	--top or --tree
 * @o:		the command line
 */
bool ustack_opts_profiled(const struct ustack_opts *o)
{
	int f;

	for (f = 0; f < USTACK_PROFILE_NR; f++)
		if (o->profile[f])
			return true;
	return false;
}

/**
 * ustack_opts_filtered - whether the session chooses samples by what
 *	struct ustack_filter knows (report's -e, --tid, --dso, --since, --until)
 * @o:		the command line
 */
bool ustack_opts_filtered(const struct ustack_opts *o)
{
	return (o->mode == MODE_REPORT && o->nr_events) || o->nr_tids || o->nr_dsos ||
	       o->since.set || o->until.set;
}

/**
 * ustack_opts_asked - whether the user's -e options name an event
 * @o:		the command line
 * @sys:	system of the event
 * @name:	the event
 */
bool ustack_opts_asked(const struct ustack_opts *o, const char *sys, const char *name)
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
