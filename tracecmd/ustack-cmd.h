/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to tracecmd/: the parts of `trace-cmd ustack` (as trace-cmd's
 * trace-local.h is for its builtins). Each file is one object of a run:
 *
 *   trace-ustack.c	the entry point: options, then live/record or report
 *   ustack-opts.c	the command line (argp)
 *   ustack-run.c	what every mode shares: session, render stage, and its
 *			consumers (printer, profile) attached in one place
 *   ustack-profiles.c	--flamegraph, --pprof, --speedscope files, --top and
 *			--tree at the end
 *   ustack-capture.c	live and record: the instance, readers, main loop
 *   ustack-child.c	the command we launch: held before exec, reaped
 *   ustack-report.c	report: a trace.dat reader fed to the session
 *   ustack-signals.c	SIGINT/SIGTERM/SIGHUP during a capture
 *   ustack-die.c	die(): the one fatal error of every file above
 */
#ifndef _USTACK_CMD_H
#define _USTACK_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "ustack-filter.h"
#include "ustack-output.h"
#include "ustack-profile.h"
#include "ustack-render.h"
#include "ustack-resolve.h"
#include "ustack-stack-source.h"

struct tep_handle;
struct ustack_events;
struct ustack_instance;
struct ustack_session;

/* report's exit status when reading the file crashed (EX_SOFTWARE) */
#define USTACK_EXIT_CRASHED	70

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* ustack-libwarn.c: the libraries' messages made ours */
void ustack_libwarn_input(const char *file);

/* ------------------------------------------------------------------ */
/* ustack-opts.c                                                      */
/* ------------------------------------------------------------------ */

enum ustack_mode {
	MODE_LIVE,
	MODE_RECORD,
	MODE_REPORT,
};

/* --tree's direction */
enum ustack_tree_mode {
	TREE_NONE,
	TREE_CALLER,		/* from the outermost frames down to the leaves */
	TREE_CALLEE,		/* from the leaves up to their callers */
};

/* -e SYSTEM[:EVENT] [-f FILTER] */
struct event_spec {
	char	*system;
	char	*event;		/* NULL: every event of the system */
	char	*filter;
};

/*
 * The formats written from the profile at the end of a run, each one
 * entry of the table in ustack-profiles.c (its option, where it goes,
 * its writer): a new format is an entry there and its writer's file.
 */
enum ustack_profile_format {
	USTACK_PROFILE_FLAMEGRAPH,
	USTACK_PROFILE_PPROF,
	USTACK_PROFILE_SPEEDSCOPE,
	USTACK_PROFILE_TOP,
	USTACK_PROFILE_TREE,
	USTACK_PROFILE_NR,
};

/* The argp key of a format's option that names its file */
#define USTACK_PROFILE_KEY(f)	(0x1000 + (f))

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
	enum ustack_source	source;		/* --stack-source, --fallback */
	unsigned int		max_stack;	/* --max-stack, 0: the kernel's */
	enum ustack_unwind_mode	call_graph;	/* --call-graph: fp, dwarf or auto */
	unsigned int		dwarf_size;	/* dwarf or auto: bytes of each stack copy */
	size_t			mem_budget;	/* USTACK_MEMORY_BUDGET_MB, bytes */
	bool			text_set;	/* --folded or --perf-script given */
	/* each format's file, or "-" for standard output; NULL: not asked */
	const char		*profile[USTACK_PROFILE_NR];
	bool			reverse;	/* --reverse: the flame graph of callers */
	unsigned long		top_n;		/* --top=N, 0: every row */
	enum ustack_tree_mode	tree;		/* --tree[=caller|callee] */
	enum ustack_sort_key	sort[USTACK_SORT_NR]; /* --sort keys, in order */
	int			nr_sort;
	double			percent_limit;	/* --percent-limit, < 0: not given */
	bool			event_root;	/* --event-root */
	int			*tids;		/* --tid */
	int			nr_tids;
	char			**dsos;		/* --dso */
	int			nr_dsos;
	struct ustack_time_bound since;		/* --since */
	struct ustack_time_bound until;		/* --until */
	struct ustack_output_opts out;
	struct ustack_resolver_opts resolve;
	char			**cmd;
};

void ustack_parse_args(struct ustack_opts *o, int argc, char **argv);
bool ustack_opts_asked(const struct ustack_opts *o, const char *sys, const char *name);
bool ustack_opts_profile(const struct ustack_opts *o);
bool ustack_opts_profiled(const struct ustack_opts *o);
int ustack_profiles_format(int key);
bool ustack_profiles_file(enum ustack_profile_format f);
const char *ustack_profiles_option(enum ustack_profile_format f);
bool ustack_profiles_in_order(const struct ustack_opts *o);
bool ustack_opts_filtered(const struct ustack_opts *o);

/* ------------------------------------------------------------------ */
/* ustack-run.c                                                       */
/* ------------------------------------------------------------------ */

/**
 * struct ustack_run - what live, record and report share
 * @o:		the command line
 * @events:	our events in the formats of the data
 * @session:	pairs the records, hands out samples
 * @resolver:	symbolizer (when printing or unwinding)
 * @unwinder:	CFI unwinder of stack copies (the stack source's caps say
 *		they come, or report)
 * @out:	where samples and tables are printed: the standard output, or
 *		live -o's file; NULL when recording
 * @printer:	prints samples (live and report; NULL when recording)
 * @profile:	aggregates them for --flamegraph, --pprof, --speedscope,
 *		--top and --tree
 * @filter:	the samples shown (report's -e, --tid, --dso, --since,
 *		--until), NULL: all
 * @output_failed: stdout went away (| head) or could not be written:
 *		the run stops
 * @output_errno: why, for the one line that says it (EPIPE: none)
 */
struct ustack_run {
	const struct ustack_opts	*o;
	struct ustack_events		*events;
	struct ustack_session		*session;
	struct ustack_resolver		*resolver;
	struct ustack_unwinder		*unwinder;
	struct ustack_render		*render;
	FILE				*out;
	struct ustack_output		*printer;
	struct ustack_profile		*profile;
	struct ustack_filter		*filter;
	bool				output_failed;
	int				output_errno;
};

void ustack_run_open(struct ustack_run *run, const struct ustack_opts *o,
		     struct tep_handle *tep, const struct ustack_stack_caps *caps, FILE *out);
const char *ustack_run_out_name(const struct ustack_run *run);
void ustack_run_finish(struct ustack_run *run);
void ustack_run_close(struct ustack_run *run);

/* ------------------------------------------------------------------ */
/* ustack-profiles.c                                                  */
/* ------------------------------------------------------------------ */

void ustack_profiles_open(const struct ustack_opts *o);
void ustack_profiles_print(struct ustack_run *run);
void ustack_profiles_write(struct ustack_run *run);

/* ------------------------------------------------------------------ */
/* ustack-capture.c, ustack-report.c                                  */
/* ------------------------------------------------------------------ */

void ustack_capture(struct ustack_opts *o) __attribute__((noreturn));
void ustack_report(struct ustack_opts *o) __attribute__((noreturn));

/* ------------------------------------------------------------------ */
/* ustack-child.c                                                     */
/* ------------------------------------------------------------------ */

struct ustack_child;

/* Called when a watched task stops at its exit: its maps are still there. */
typedef void (*ustack_exit_fn)(pid_t pid, void *ctx);

void ustack_child_block_sigchld(void);
void ustack_child_check(char **argv);
char *ustack_child_program(char **argv);
struct ustack_child *ustack_child_fork(char **argv);
pid_t ustack_child_pid(const struct ustack_child *child);
void ustack_child_watch_exit(struct ustack_child *child, bool forks, ustack_exit_fn fn,
			     void *ctx);
void ustack_child_release(struct ustack_child *child);
int ustack_child_fd(const struct ustack_child *child);
void ustack_child_reap(struct ustack_child *child);
bool ustack_child_done(const struct ustack_child *child);
int ustack_child_exit_status(const struct ustack_child *child);
void ustack_child_end(struct ustack_child *child);
void ustack_child_free(struct ustack_child *child);

/* ------------------------------------------------------------------ */
/* ustack-signals.c                                                   */
/* ------------------------------------------------------------------ */

void ustack_signals_install(void);
void ustack_signals_guard(struct ustack_instance *ui);
void ustack_signals_child(pid_t pid);
bool ustack_stop_requested(void);
int ustack_stop_fd(void);
void ustack_request_stop(void);
/* USTACK_TEST_STOP_AT=@point: the process stops itself (SIGSTOP) here */
void ustack_test_stop(const char *point);

#endif /* _USTACK_CMD_H */
