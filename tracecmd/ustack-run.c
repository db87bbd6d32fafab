// SPDX-License-Identifier: GPL-2.0
/*
 * What live, record and report share: our events, the session that pairs
 * the records, and (when printing) the render stage its samples go to,
 * with the symbolizer and the consumers (the printer, the profile)
 * attached in one place; the summary at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ustack-cmd.h"
#include "ustack-events.h"
#include "ustack-session.h"
#include "ustack-unwind.h"
#include "ustack-warn.h"

/*
 * Standard output failed: the errno of the first failure is kept, and
 * said once at the end (a full disk, EIO), but for a closed pipe (| head),
 * which ends a run quietly as it ends cat or perf report.
 */
static void output_failed(struct ustack_run *run)
{
	if (run->output_failed)
		return;
	run->output_failed = true;
	run->output_errno = errno ? errno : EIO;
}

static void on_sample(const struct ustack_sample *smp, void *data)
{
	struct ustack_run *run = data;

	if (!run->render || run->output_failed)
		return;
	errno = 0;
	if (ustack_render_sample(run->render, smp) < 0) {
		/* stop like any other end of run */
		output_failed(run);
		ustack_request_stop();
	}
}

/*
 * The filter of the samples shown, beside the session's pids and task
 * names: report's -e (live, the kernel traces only those), --tid,
 * --dso, --since, --until. One place: every output gets what it lets
 * through.
 */
static struct ustack_filter *open_filter(const struct ustack_opts *o)
{
	struct ustack_filter *f;
	int i, err = 0;

	if (!ustack_opts_filtered(o))
		return NULL;
	f = ustack_filter_new();
	if (!f)
		die("out of memory");
	for (i = 0; o->mode == MODE_REPORT && i < o->nr_events; i++)
		err |= ustack_filter_add_event(f, o->events[i].system, o->events[i].event);
	for (i = 0; i < o->nr_tids; i++)
		err |= ustack_filter_add_tid(f, o->tids[i]);
	for (i = 0; i < o->nr_dsos; i++)
		err |= ustack_filter_add_dso(f, o->dsos[i]);
	ustack_filter_set_time(f, &o->since, &o->until);
	if (err)
		die("out of memory");
	return f;
}

static void open_session(struct ustack_run *run, struct tep_handle *tep, bool live,
			 bool print)
{
	const struct ustack_opts *o = run->o;
	struct ustack_session_opts so = { 0 };

	so.want_kernel = o->out.kernel;
	so.live = live;
	/* record: the summary is all that is printed */
	so.count_only = !print;
	/* Live, the kernel filters pids (and follows children with -c). */
	if (o->mode == MODE_REPORT) {
		so.pids = o->pids;
		so.nr_pids = o->nr_pids;
		/* report unwinds the stack copies the file holds */
		so.unwind_max = o->max_stack;
	}
	so.comms = (const char * const *)o->comms;
	so.nr_comms = o->nr_comms;
	so.mem_budget = o->mem_budget;
	/* no garbage frame after a frame-pointer walk leaves the code */
	so.fp_check = true;
	so.quiet = o->quiet;
	run->filter = open_filter(o);
	so.filter = run->filter;
	run->events = ustack_events_new(tep);
	if (!run->events)
		die("out of memory");
	run->session = ustack_session_new(run->events, &so, on_sample, run);
	if (!run->session)
		die("cannot set up the session: %s", strerror(errno));
}

static void attach(struct ustack_run *run, const struct ustack_consumer *c)
{
	if (ustack_render_attach(run->render, c))
		die("cannot set up the output: too many outputs");
}

/*
 * The render stage and its consumers, peers: the printer (unless only
 * profiles are asked for) and the profile the flame graph, pprof and
 * speedscope files, --top and --tree are written from.
 */
static void open_render(struct ustack_run *run, struct tep_handle *tep, bool live)
{
	const struct ustack_output_opts *out = &run->o->out;
	struct ustack_render_opts rro = {
		.raw = out->raw, .kernel = out->kernel, .skip_empty = out->skip_empty,
	};
	struct ustack_resolver_opts ro = run->o->resolve;
	struct ustack_consumer c;

	ro.live = live;
	run->resolver = ustack_resolver_new(&ro);
	if (!run->resolver)
		die("cannot set up the symbolizer: %s", strerror(errno));
	run->render = ustack_render_new(tep, out->raw ? NULL : run->resolver, &rro);
	run->printer = ustack_output_new(tep, out, run->out);
	if (!run->render || !run->printer)
		die("cannot set up the output: %s", strerror(errno));
	if (out->mode != USTACK_OUTPUT_NONE) {
		ustack_output_consumer(run->printer, &c);
		attach(run, &c);
	}
	if (ustack_opts_profiled(run->o)) {
		run->profile = ustack_profile_new(ustack_profiles_in_order(run->o));
		if (!run->profile)
			die("out of memory");
		ustack_profile_set_event_root(run->profile, run->o->event_root);
		ustack_profile_consumer(run->profile, &c);
		attach(run, &c);
	}
}

/*
 * Stack copies are unwound live and when recording (which keeps only the
 * words the unwind read), and in report, whose file may hold them:
 * through the symbolizer's file lookup and caches.
 */
static void open_unwinder(struct ustack_run *run, bool live)
{
	struct ustack_resolver_opts ro = run->o->resolve;

	if (!run->resolver) {
		ro.live = live;
		run->resolver = ustack_resolver_new(&ro);
		if (!run->resolver)
			die("cannot set up the symbolizer: %s", strerror(errno));
	}
	run->unwinder = ustack_unwinder_new(run->resolver);
	if (!run->unwinder)
		die("cannot set up the unwinder: %s", strerror(errno));
	ustack_session_set_unwinder(run->session, run->unwinder);
}

/**
 * ustack_run_open - set up the session (and the printer) of a run
 * @run:	filled in
 * @o:		the command line
 * @tep:	formats of the data
 * @caps:	live or recording, what the open stack source promises (the
 *		data comes from this machine now); NULL: report
 * @out:	where samples are printed (live, report: the standard output
 *		or live -o's file); NULL: only recorded
 */
void ustack_run_open(struct ustack_run *run, const struct ustack_opts *o,
		     struct tep_handle *tep, const struct ustack_stack_caps *caps, FILE *out)
{
	bool live = caps != NULL;

	memset(run, 0, sizeof(*run));
	run->o = o;
	run->out = out;
	open_session(run, tep, live, out != NULL);
	if (out)
		open_render(run, tep, live);
	/*
	 * report unwinds whatever copies the file holds; a printed
	 * frame-pointer walk has its return addresses checked against the
	 * code (ustack_unwind_after_call()) through the same files
	 */
	if (!caps || caps->unwind == USTACK_UNWIND_COPY || out)
		open_unwinder(run, live);
}

/**
 * ustack_run_out_name - what the printed output is called in a message
 * @run: the run
 */
const char *ustack_run_out_name(const struct ustack_run *run)
{
	if (run->out == stdout || run->o->mode != MODE_LIVE || !run->o->output)
		return "the standard output";
	return run->o->output;
}

/**
 * ustack_run_finish - end of data: hand out what is held, print the rest
 * @run: the run
 *
 * The summary goes to stderr unless -q.
 */
void ustack_run_finish(struct ustack_run *run)
{
	ustack_session_flush(run->session);
	errno = 0;
	if (run->render && !run->output_failed &&
	    (ustack_render_finish(run->render) < 0 || fflush(run->out) == EOF))
		output_failed(run);
	if (run->profile) {
		ustack_profiles_print(run);
		ustack_profiles_write(run);
	}
	if (run->output_failed && run->output_errno != EPIPE)
		ustack_warning("cannot write %s: %s", ustack_run_out_name(run),
			       strerror(run->output_errno));
	if (run->o->quiet)
		return;
	ustack_output_summary(run->render, stderr, ustack_session_stats(run->session));
	if (run->render && !ustack_resolve_debuginfod_available())
		fprintf(stderr, "  debuginfod:           not in this build (no libdebuginfod)\n");
}

void ustack_run_close(struct ustack_run *run)
{
	ustack_render_free(run->render);
	ustack_output_free(run->printer);
	ustack_profile_free(run->profile);
	ustack_session_set_unwinder(run->session, NULL);
	ustack_unwinder_free(run->unwinder);
	ustack_resolver_free(run->resolver);
	ustack_session_free(run->session);
	ustack_filter_free(run->filter);
	ustack_events_free(run->events);
	memset(run, 0, sizeof(*run));
}
