// SPDX-License-Identifier: GPL-2.0
/*
 * report: print a trace.dat the way live would have printed its run.
 *
 * The file is read twice. Fallback files made without the perf side-band
 * carry their maps snapshots as markers that may come after the stacks
 * they map (a snapshot is taken when a process is first seen), and the
 * info marker says which events the capture enabled for itself: both are
 * read first, then every record goes to the session. The first pass ends
 * at the info marker of a deferred capture, which writes no snapshots: on
 * compressed files libtracecmd 1.3 (trace-cmd 3.1.6) makes each page read
 * cost more the more pages were read before, and a second full pass cost
 * twice the first.
 * The side-band, when the file has one, is in the top buffer: its records
 * go to the session merged by time with the others, as they did live.
 */
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <event-parse.h>

#include "ustack-cmd.h"
#include "ustack-events.h"
#include "ustack-map-procmaps.h"
#include "ustack-session.h"
#include "ustack-syscalls.h"
#include "ustack-tracedat.h"
#include "ustack-warn.h"

/**
 * struct report - a trace.dat and what reads it
 * @td:		the file
 * @run:	session and printer
 * @records:	records of the selected buffer
 * @unknown:	those whose event has no format in the file
 */
struct report {
	struct ustack_tracedat	*td;
	struct ustack_run	run;
	unsigned long		records;
	unsigned long		unknown;
	int			known_type;	/* of the last record, or -1 */
};

static void add_maps(int tgid, uint64_t ts, const char *text, void *data)
{
	struct report *r = data;

	ustack_session_add_maps(r->run.session, tgid, ts, text);
}

struct markers {
	struct report			*r;
	struct ustack_map_procmaps_reader	*maps;
};

static void read_marker(struct tep_record *rec, void *data)
{
	struct markers *m = data;
	const char *text = ustack_events_print_text(m->r->run.events, rec);

	if (!text)
		return;
	/* its helpers and command: the session learns them when fed it */
	if (!strncmp(text, USTACK_INFO_MARKER, strlen(USTACK_INFO_MARKER))) {
		if (ustack_events_info_deferred(text))
			ustack_tracedat_stop(m->r->td);
	} else
		ustack_map_procmaps_reader_feed(m->maps, text);
}

/* The first pass: maps snapshots into the session; deferred stacks or not. */
static void read_markers(struct report *r)
{
	struct markers m = { .r = r };

	m.maps = ustack_map_procmaps_reader_new(add_maps, r);
	if (!m.maps)
		die("out of memory");
	ustack_tracedat_iterate(r->td, read_marker, NULL, &m);
	ustack_map_procmaps_reader_free(m.maps);
}

/*
 * A session that stopped (out of memory, past its budget) hands nothing
 * more out: the report ends there, in one line, before a summary or a
 * profile could count what it did not read.
 */
static void feed_session(struct report *r, struct tep_record *rec)
{
	char msg[256];

	if (ustack_session_feed(r->run.session, rec))
		die("%s: %s", r->run.o->input,
		    ustack_session_error(r->run.session, msg, sizeof(msg)));
}

static void feed(struct tep_record *rec, void *data)
{
	struct report *r = data;
	struct tep_handle *tep = ustack_tracedat_tep(r->td);
	int type = tep_data_type(tep, rec);

	r->records++;
	/*
	 * A file holds few types: look one up when it differs from the last.
	 * -1 is no type at all (the header's common_type unparsed), never
	 * the last known one.
	 */
	if (type < 0 || type != r->known_type) {
		if (type >= 0 && tep_find_event(tep, type))
			r->known_type = type;
		else
			r->unknown++;
	}
	if (!r->run.output_failed)
		feed_session(r, rec);
}

static void feed_lost(int cpu, long long missed, void *data)
{
	struct report *r = data;

	if (!r->run.output_failed)
		ustack_session_add_lost(r->run.session, cpu, missed);
}

/* The top buffer: only our side-band records and samples, whatever else it holds */
static void feed_top(struct tep_record *rec, void *data)
{
	struct report *r = data;

	if (!r->run.output_failed && (ustack_events_sideband_text(r->run.events, rec) ||
				      ustack_events_sample(r->run.events, rec)))
		feed_session(r, rec);
}

/*
 * Records whose length runs past their sub-buffer were skipped: what was
 * printed is right, but the file is damaged, and the exit status says so.
 */
static bool corrupt_records(struct report *r, const char *file)
{
	unsigned long n = ustack_tracedat_corrupt(r->td);

	if (n)
		ustack_warning("%s: %lu corrupt record%s (length past the sub-buffer) skipped",
			       file, n, n == 1 ? "" : "s");
	return n;
}

/*
 * Not one record matches an event format of the file: the formats are
 * damaged (or belong to another file), and nothing printed means anything.
 * Some of them only: what was printed stands, and how many could not be
 * read is said.
 */
static bool all_unknown(struct report *r, const char *file)
{
	if (!r->unknown)
		return false;
	if (r->unknown < r->records) {
		ustack_warning("%s: %lu of its %lu records have no known event format "
			       "(shown as [UNKNOWN EVENT])", file, r->unknown, r->records);
		return false;
	}
	ustack_warning("%s: none of its %lu records has a known event format (corrupt formats)",
		       file, r->records);
	return true;
}

/*
 * report -e: each pattern must name an event the file has a format of, or
 * a system call its raw_syscalls:sys_enter events are shown as
 * (syscalls:sys_enter_openat); a typo would otherwise show nothing and
 * say nothing.
 */
static void check_events(const struct ustack_opts *o, struct tep_handle *tep)
{
	struct tep_event **all = tep_list_events(tep, TEP_EVENT_SORT_ID);
	bool raw = tep_find_event_by_name(tep, USTACK_SYSCALLS_RAW_SYSTEM,
					  USTACK_SYSCALLS_RAW_EVENT) != NULL;
	const struct event_spec *e;
	int i, j;

	for (i = 0; i < o->nr_events; i++) {
		e = &o->events[i];
		for (j = 0; all && all[j]; j++)
			if (!fnmatch(e->system, all[j]->system, 0) &&
			    (!e->event || !fnmatch(e->event, all[j]->name, 0)))
				break;
		if (all && all[j])
			continue;
		if (raw && ustack_syscalls_match(e->system, e->event))
			continue;
		die("-e %s%s%s: %s has no such event", e->system, e->event ? ":" : "",
		    e->event ? e->event : "", o->input);
	}
}

/* ------------------------------------------------------------------ */
/* The crash guard                                                    */
/* ------------------------------------------------------------------ */

static pid_t guarded;

static void forward(int sig)
{
	kill(guarded, sig);
}

/* A signal the libraries die of on a corrupt file, not one sent to us */
static bool is_crash(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
	       sig == SIGABRT;
}

/*
 * libtracecmd 3.1.6 and libtraceevent 1.7.1 crash on some corrupt files
 * (tests/data/README.md). The file's structure is checked before they
 * read it (lib/ustack-tracedat-check.c), each sub-buffer header before kbuffer
 * loads it (lib/ustack-tracedat-cpu.c, or ustack_tracedat_check_chunks() for files
 * libtracecmd reads itself), but not what no check foresaw (the
 * libraries also crash when out of memory). The report runs in a child:
 * when it dies of such a signal, the file and the signal are named in one
 * line, without a guess at where it crashed (ours or a library's), and
 * the exit status is USTACK_EXIT_CRASHED, not a clean error's 1.
 * Anything else (exit status, ^C) is passed on as it came.
 */
static void guard_library_crashes(const char *file)
{
	struct sigaction sa = { .sa_handler = forward };
	int status, sig;

	fflush(NULL);
	guarded = fork();
	if (guarded < 0)
		die("fork: %s", strerror(errno));
	if (!guarded)
		return;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	while (waitpid(guarded, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	if (WIFEXITED(status))
		exit(WEXITSTATUS(status));
	sig = WTERMSIG(status);
	if (is_crash(sig)) {
		ustack_warning("%s: crashed reading it (%s): damage no check caught, or a bug",
			       file, strsignal(sig));
		exit(USTACK_EXIT_CRASHED);
	}
	signal(sig, SIG_DFL);
	raise(sig);
	exit(128 + sig);
}

/**
 * ustack_report - `trace-cmd ustack report`
 * @o: the command line
 *
 * Does not return: exits 0, or 1 when the output could not be written, the
 * file had corrupt records or no record with a known format, or
 * USTACK_EXIT_CRASHED when reading the file crashed.
 */
void ustack_report(struct ustack_opts *o)
{
	struct report r = { .known_type = -1 };
	char msg[1024];
	bool failed;

	/* A closed output pipe (| head) ends the report through EPIPE. */
	signal(SIGPIPE, SIG_IGN);
	guard_library_crashes(o->input);
	/* a file that cannot be written is said before the reading */
	ustack_profiles_open(o);
	ustack_libwarn_input(o->input);
	if (ustack_tracedat_open(o->input, o->instance,
				 ustack_output_needs_kernel_symbols(&o->out), &r.td) < 0)
		die("%s", ustack_tracedat_strerror(r.td, msg, sizeof(msg)));
	check_events(o, ustack_tracedat_tep(r.td));
	ustack_run_open(&r.run, o, ustack_tracedat_tep(r.td), NULL, stdout);
	read_markers(&r);
	ustack_tracedat_iterate_lost(r.td, feed, feed_top, feed_lost, &r);
	ustack_run_finish(&r.run);
	failed = r.run.output_failed;
	failed |= corrupt_records(&r, o->input);
	/* each said by the reader when reached */
	failed |= ustack_tracedat_bad_pages(r.td) != 0;
	failed |= all_unknown(&r, o->input);
	ustack_run_close(&r.run);
	ustack_tracedat_close(r.td);
	exit(failed ? 1 : 0);
}
