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
"  trace-cmd ustack [-o FILE] [OPTIONS] [-- COMMAND [ARGS...]]\n"
"  trace-cmd ustack record -o FILE [OPTIONS] [-- COMMAND [ARGS...]]\n"
"  trace-cmd ustack report -i FILE [OPTIONS]\n"
"\n"
"Every traced event is printed with the user stack of the task that caused "
"it. On a stock kernel perf events sample each event and --call-graph says how "
"user stacks are unwound (auto: per process, frame pointers where its code "
"keeps them, else a stack copy unwound with CFI); with the kernel patches "
"(options/userstacktrace_delay) the kernel writes each stack when the task "
"returns to user space; where perf is refused, the userstacktrace option "
"(at most 8 frames). man trace-cmd-ustack says more.\n"
"\n"
"The exit status is the traced command's (128+N when signal N ended it) unless "
"trace-cmd ustack itself fails (man trace-cmd-ustack, EXIT STATUS). An option "
"that does nothing in the mode is refused (exit 64); perf's and trace-cmd's "
"spellings (-p, -g, -T, -F...) are told ours, or that there is none.\v"
"Examples:\n"
"  trace-cmd ustack -- ls -l                  every syscall of ls, with stacks\n"
"  trace-cmd ustack -q -c --folded -o make.folded -- make -j2\n"
"  trace-cmd ustack -c --flamegraph make.svg -- make -j2\n"
"  trace-cmd ustack -e syscalls:sys_enter_openat -P 1234 -d 5\n"
"  trace-cmd ustack -e sched:sched_process_exec   system-wide, until ^C\n"
"  trace-cmd ustack record -o trace.dat -- ./server\n"
"  trace-cmd ustack report -i trace.dat --top=10 --tree=callee\n"
"  trace-cmd ustack report --pprof prof.pb.gz --speedscope prof.json\n"
"  trace-cmd report -i trace.dat             the same file with stock trace-cmd\n";

static struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "What to trace (live and record):", 1 },
	{ "event", 'e', "SYSTEM[:EVENT]", 0,
	  "Trace this event (shell patterns allowed; repeatable). Default: every "
	  "system call through raw_syscalls:sys_enter, each named by its call "
	  "(syscalls:sys_enter_openat). Report: only show these events", 1 },
	/* not a line of exactly 79 columns: argp then adds a line of blanks */
	{ "filter", 'f', "FILTER", 0, "Filter of the preceding -e (kernel filter syntax)", 1 },
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
	{ "call-graph", OPT_CALL_GRAPH, "auto|fp|dwarf[,SIZE]", 0,
	  "How user stacks are unwound: the kernel's frame-pointer walk (fp), or the "
	  "user registers and SIZE bytes of the user stack (default 8192) unwound with "
	  "the files' CFI (dwarf), as perf record --call-graph; auto (default): fp "
	  "where the traced program's code keeps frame pointers, dwarf where not", 2 },
	{ NULL, 0, NULL, 0, "Files:", 3 },
	{ "output", 'o', "FILE", 0,
	  "Print to FILE, not the standard output: stacks, --folded, --perf-script, "
	  "--top, --tree (the traced command's output stays apart). record: write the "
	  "trace to FILE (default trace.dat)", 3 },
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
	  "Only show events up to TIME (as --since)", 5 },
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

/* ------------------------------------------------------------------ */
/* Which mode each option works in                                    */
/* ------------------------------------------------------------------ */

#define IN_LIVE		(1U << MODE_LIVE)
#define IN_RECORD	(1U << MODE_RECORD)
#define IN_REPORT	(1U << MODE_REPORT)
#define IN_CAPTURE	(IN_LIVE | IN_RECORD)
#define IN_PRINTED	(IN_LIVE | IN_REPORT)

#define RECORD_ONLY_SUMMARY \
	"record prints only its summary: report -i FILE prints what the file holds"
#define PRINTED_ONLY \
	"it only applies to what is printed: use it live or with report (record keeps every event)"
#define CAPTURE_ONLY	"it only applies when recording (report reads what the file holds)"

/*
 * The one rule of which option does something in which mode: an option
 * given in a mode it does nothing in is refused, in one line that names
 * it, the mode and what to do instead (exit 64). Options not listed work
 * in every mode (-e, -P, -B, --kernel, --max-stack, -q, the symbolizer's
 * files, which record's unwinder reads too).
 */
static const struct mode_rule {
	int		key;
	unsigned int	modes;
	const char	*instead;
} mode_rules[] = {
	{ 'f', IN_CAPTURE, "the kernel filters when recording; report: -e alone chooses "
			   "the events shown" },
	{ 'c', IN_CAPTURE, CAPTURE_ONLY },
	{ 'd', IN_CAPTURE, CAPTURE_ONLY },
	{ 'b', IN_CAPTURE, CAPTURE_ONLY },
	{ 'C', IN_CAPTURE, CAPTURE_ONLY },
	{ 's', IN_CAPTURE, CAPTURE_ONLY },
	{ OPT_FALLBACK, IN_CAPTURE, CAPTURE_ONLY },
	{ OPT_STACK_SOURCE, IN_CAPTURE, CAPTURE_ONLY },
	{ OPT_CALL_GRAPH, IN_CAPTURE, "it only applies when recording (report unwinds "
				      "what the file holds)" },
	{ 'o', IN_CAPTURE, "report prints to standard output; -i names the file it reads" },
	{ 'i', IN_REPORT, "-i names the file report reads (trace-cmd ustack report -i FILE)" },
	{ OPT_FOLDED, IN_PRINTED, RECORD_ONLY_SUMMARY },
	{ OPT_PERF_SCRIPT, IN_PRINTED, RECORD_ONLY_SUMMARY },
	{ USTACK_PROFILE_KEY(USTACK_PROFILE_FLAMEGRAPH), IN_PRINTED,
	  "write it from the recorded file (report -i FILE) or live" },
	{ USTACK_PROFILE_KEY(USTACK_PROFILE_PPROF), IN_PRINTED,
	  "write it from the recorded file (report -i FILE) or live" },
	{ USTACK_PROFILE_KEY(USTACK_PROFILE_SPEEDSCOPE), IN_PRINTED,
	  "write it from the recorded file (report -i FILE) or live" },
	{ OPT_REVERSE, IN_PRINTED, RECORD_ONLY_SUMMARY },
	{ OPT_RAW, IN_PRINTED, RECORD_ONLY_SUMMARY },
	{ OPT_LINES, IN_PRINTED, RECORD_ONLY_SUMMARY },
	{ OPT_WHY, IN_PRINTED, RECORD_ONLY_SUMMARY },
	{ OPT_INLINES, IN_PRINTED, RECORD_ONLY_SUMMARY },
	{ OPT_NO_DEMANGLE, IN_PRINTED, RECORD_ONLY_SUMMARY },
	{ OPT_COMM, IN_PRINTED, PRINTED_ONLY },
	{ OPT_TID, IN_PRINTED, PRINTED_ONLY },
	{ OPT_DSO, IN_PRINTED, PRINTED_ONLY },
	{ OPT_SINCE, IN_PRINTED, PRINTED_ONLY },
	{ OPT_UNTIL, IN_PRINTED, PRINTED_ONLY },
	{ OPT_TOP, IN_PRINTED, PRINTED_ONLY },
	{ OPT_TREE, IN_PRINTED, PRINTED_ONLY },
	{ OPT_SORT, IN_PRINTED, PRINTED_ONLY },
	{ OPT_PERCENT_LIMIT, IN_PRINTED, PRINTED_ONLY },
	{ OPT_EVENT_ROOT, IN_PRINTED, PRINTED_ONLY },
};

#define NR_MODE_RULES	(sizeof(mode_rules) / sizeof(mode_rules[0]))

/* The options of mode_rules given on the command line (parsed once) */
static bool given[NR_MODE_RULES];

static void note_given(int key)
{
	size_t i;

	for (i = 0; i < NR_MODE_RULES; i++)
		if (mode_rules[i].key == key)
			given[i] = true;
}

/* "-c (--children)", "--folded": how --help shows the option of @key */
static const char *option_name(int key, char *buf, size_t size)
{
	const struct argp_option *opt;

	for (opt = options; opt->name || opt->key || opt->doc; opt++) {
		if (opt->key != key || (opt->flags & OPTION_ALIAS))
			continue;
		if (key > 0 && key < 128 && opt->name)
			snprintf(buf, size, "-%c (--%s)", key, opt->name);
		else if (key > 0 && key < 128)
			snprintf(buf, size, "-%c", key);
		else
			snprintf(buf, size, "--%s", opt->name);
		return buf;
	}
	return "?";
}

static const char *mode_name(enum ustack_mode mode)
{
	switch (mode) {
	case MODE_RECORD:
		return "record";
	case MODE_REPORT:
		return "report";
	default:
		return "live";
	}
}

/* Refuse the options that do nothing in the mode (mode_rules): one line */
static void check_modes(const struct ustack_opts *o, struct argp_state *state)
{
	char name[64];
	size_t i;

	for (i = 0; i < NR_MODE_RULES; i++)
		if (given[i] && !(mode_rules[i].modes & (1U << o->mode)))
			argp_failure(state, EX_USAGE, 0, "%s does nothing in %s mode: %s",
				     option_name(mode_rules[i].key, name, sizeof(name)),
				     mode_name(o->mode), mode_rules[i].instead);
}

/* ------------------------------------------------------------------ */
/* perf's and trace-cmd's spellings                                   */
/* ------------------------------------------------------------------ */

#define NO_SAMPLING	"there is no sampling here: a stack is taken at every traced event (-e)"

/*
 * What perf record/report and trace-cmd record users type that is not
 * an option of ours (or means something else here): what to use
 * instead, or that there is no equivalent. Options we share with them
 * (-e, -o, -i, -P, --pid, -B, -b, -C, -c, -s, --call-graph, --max-stack,
 * --comm, --tid, --sort, --percent-limit) are not listed.
 */
static const struct foreign_opt {
	const char	*opt;
	bool		value;		/* takes a value: "-p1", "--pid=1" too */
	const char	*say;
} foreign_opts[] = {
	{ "-p", true, "did you mean -P PID[,PID...] (perf record -p, trace-cmd record -P)? "
		      "trace-cmd's tracer plugins (-p PLUGIN) have no equivalent: only events "
		      "are traced (-e)" },
	{ "-t", true, "did you mean -P PID (the thread's process) with --tid TID (only that "
		      "thread shown)?" },
	{ "-g", false, "user stacks are always taken: --call-graph=fp|dwarf[,SIZE] chooses "
		       "how they are unwound, as perf record --call-graph" },
	{ "-F", true, NO_SAMPLING },
	{ "--freq", true, NO_SAMPLING },
	{ "--count", true, NO_SAMPLING },
	{ "-T", false, "did you mean --kernel (a kernel stack with every event, trace-cmd "
		       "record -T)? timestamps (perf record -T) are always there" },
	{ "--timestamp", false, "timestamps are always recorded and printed" },
	{ "-a", false, "the whole system is traced when neither -P nor a command is given: "
		       "drop -a" },
	{ "--all-cpus", false, "the whole system is traced when neither -P nor a command is "
			       "given: drop --all-cpus" },
	{ "--cpu", true, "there is no CPU filter: every CPU is traced" },
	{ "-M", true, "there is no CPU mask: every CPU is traced" },
	{ "-m", true, "did you mean -b KB (the ring-buffer size per CPU, trace-cmd record -b)?" },
	{ "--mmap-pages", true, "did you mean -b KB (the ring-buffer size per CPU)?" },
	{ "-u", true, "there is no user filter: use -P PID or --comm COMM" },
	{ "--uid", true, "there is no user filter: use -P PID or --comm COMM" },
	{ "-O", true, "tracefs options are set by the tool: --kernel adds kernel stacks" },
	{ "-l", true, "functions are not traced (trace-cmd record -l), only events (-e)" },
	{ "-G", false, "did you mean --tree=callee, or --flamegraph FILE --reverse (callers, "
		       "as perf report -G)?" },
	{ "--inverted", false, "did you mean --tree=callee, or --flamegraph FILE --reverse?" },
	{ "--no-children", false, "--top shows self and total side by side: no option needed" },
	{ "--stdio", false, "the output is text already: no option needed" },
	{ "--dsos", true, "did you mean --dso FILE (repeatable)?" },
	{ "--comms", true, "did you mean --comm COMM (repeatable)?" },
};

/* The option of ours with short key @c */
static const struct argp_option *short_option(int c)
{
	const struct argp_option *opt;

	for (opt = options; opt->name || opt->key || opt->doc; opt++)
		if (opt->key == c)
			return opt;
	return NULL;
}

/* Our option in @word (not "--") takes the next word as its value */
static bool takes_next(const char *word)
{
	const struct argp_option *opt;
	const char *p;
	size_t len;

	if (word[1] == '-') {
		if (strchr(word, '='))
			return false;
		len = strlen(word + 2);
		/* getopt takes a prefix of one name */
		for (opt = options; opt->name || opt->key || opt->doc; opt++)
			if (opt->name && !strncmp(opt->name, word + 2, len))
				return opt->arg && !(opt->flags & OPTION_ARG_OPTIONAL);
		return false;
	}
	for (p = word + 1; *p; p++) {
		opt = short_option(*p);
		if (!opt)
			return false;
		if (opt->arg && !(opt->flags & OPTION_ARG_OPTIONAL))
			return !p[1];
	}
	return false;
}

static bool foreign_match(const struct foreign_opt *f, const char *word)
{
	size_t len = strlen(f->opt);

	if (strncmp(word, f->opt, len))
		return false;
	if (!word[len])
		return true;
	/* "-p1234", "--pid=1234" */
	return f->value && (f->opt[1] != '-' || word[len] == '=');
}

#define NR_FOREIGN	(sizeof(foreign_opts) / sizeof(foreign_opts[0]))

static void say_foreign(struct argp_state *state, const char *word, size_t f)
{
	argp_failure(state, EX_USAGE, 0, "%s is not an option of trace-cmd ustack: %s", word,
		     foreign_opts[f].say);
}

/* A letter of theirs among ours ("-qa"): the first letter that is not ours */
static void check_foreign_letters(struct argp_state *state, const char *word)
{
	const struct argp_option *opt;
	char letter[3] = "-";
	const char *p;
	size_t f;

	for (p = word + 1; *p; p++) {
		opt = short_option(*p);
		if (opt && opt->arg && !(opt->flags & OPTION_ARG_OPTIONAL))
			return;		/* the rest is its value */
		if (opt)
			continue;
		letter[1] = *p;
		for (f = 0; f < NR_FOREIGN; f++)
			if (!strcmp(foreign_opts[f].opt, letter))
				say_foreign(state, letter, f);
		return;
	}
}

/*
 * Before argp reads the command line: a spelling of perf or trace-cmd
 * gets what to use instead, not a bare "invalid option". The words up
 * to "--", values of our options skipped.
 */
static void check_foreign(struct argp_state *state)
{
	const char *word;
	size_t f;
	int i;

	/* argp names the program only after ARGP_KEY_INIT: its errors need it */
	if (!state->name)
		state->name = state->argv[0];
	for (i = 1; i < state->argc; i++) {
		word = state->argv[i];
		if (!strcmp(word, "--"))
			return;
		if (word[0] != '-' || !word[1])
			continue;
		for (f = 0; f < NR_FOREIGN; f++)
			if (foreign_match(&foreign_opts[f], word))
				say_foreign(state, word, f);
		if (word[1] != '-')
			check_foreign_letters(state, word);
		if (takes_next(word))
			i++;
	}
}

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
	if (!ev->system || (colon && !ev->event))
		argp_failure(state, 1, ENOMEM, "events");
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
 * --call-graph=fp|dwarf[,SIZE]|auto[,SIZE]: SIZE as perf takes it, a
 * multiple of 8 (rounded up) that a perf record's 16-bit size leaves room
 * for; auto's SIZE is that of the copies where it takes them
 */
static void parse_call_graph(struct ustack_opts *o, const char *arg, struct argp_state *state)
{
	const char *comma = strchr(arg, ',');

	if (!strcmp(arg, "fp")) {
		o->call_graph = USTACK_UNWIND_FP;
		o->dwarf_size = 0;
		return;
	}
	if (!strncmp(arg, "dwarf", 5) && (!arg[5] || arg[5] == ','))
		o->call_graph = USTACK_UNWIND_COPY;
	else if (!strncmp(arg, "auto", 4) && (!arg[4] || arg[4] == ','))
		o->call_graph = USTACK_UNWIND_AUTO;
	else
		argp_error(state, "bad --call-graph '%s' (want auto, fp or dwarf[,SIZE])", arg);
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

static void check_analysis(struct ustack_opts *o, struct argp_state *state)
{
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

static void check_opts(struct ustack_opts *o, struct argp_state *state)
{
	check_modes(o, state);
	if (o->mode == MODE_REPORT && o->cmd)
		argp_error(state, "report takes no command");
	if (o->mode == MODE_LIVE && o->output && ustack_opts_profile(o) && !o->text_set &&
	    !o->profile[USTACK_PROFILE_TOP] && !o->profile[USTACK_PROFILE_TREE])
		argp_error(state, "-o is for what is printed (stacks, --folded, --perf-script, "
			   "--top, --tree): --flamegraph, --pprof and --speedscope name their "
			   "own files");
	if (o->mode != MODE_REPORT && o->cmd && o->nr_pids)
		argp_error(state, "use either -P or a command");
	if (o->reverse && !o->profile[USTACK_PROFILE_FLAMEGRAPH])
		argp_error(state, "--reverse is for --flamegraph");
	check_analysis(o, state);
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct ustack_opts *o = state->input;

	note_given(key);
	switch (key) {
	case ARGP_KEY_INIT:
		check_foreign(state);
		break;
	case 'e':
		add_event(o, arg, state);
		break;
	case 'f':
		if (!o->nr_events)
			argp_error(state, "-f needs a preceding -e");
		if (o->events[o->nr_events - 1].filter)
			argp_error(state, "only one -f per -e");
		o->events[o->nr_events - 1].filter = strdup(arg);
		if (!o->events[o->nr_events - 1].filter)
			argp_failure(state, 1, ENOMEM, "-f");
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
		if (!o->comms)
			argp_failure(state, 1, ENOMEM, "--comm");
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
	/* the unwinding that fits the traced program's code, copies of perf's size */
	o->call_graph = USTACK_UNWIND_AUTO;
	o->dwarf_size = USTACK_DWARF_SIZE_DEFAULT;
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
