// SPDX-License-Identifier: LGPL-2.1
/*
 * Throttle spans (see ustack-throttle.h). The kernel throttles a sampling
 * event for the rest of a tick once its hits pass
 * kernel.perf_event_max_sample_rate / HZ (lowered by
 * perf_cpu_time_max_percent when samples cost too much), writes THROTTLE
 * into its ring, and UNTHROTTLE when it samples again (at a tick, or when
 * the event is scheduled in). Each THROTTLE is one time; the span lasts to
 * the UNTHROTTLE of the same event, or to the latest record seen when
 * none came (the task exited throttled, or the run ended).
 *
 * The live session, record's tally and report's session all note every
 * side-band record but the unparsed ones, in the order they get them, so
 * that the three say the same of one run.
 */
#include <stdlib.h>

#include "ustack-array.h"
#include "ustack-sideband.h"
#include "ustack-throttle.h"

static struct ustack_throttle_span *find_open(struct ustack_throttle *t, uint64_t id)
{
	size_t i;

	for (i = 0; i < t->nr_open; i++)
		if (t->open[i].id == id)
			return &t->open[i];
	return NULL;
}

static void span_end(struct ustack_throttle *t, struct ustack_throttle_span *span, uint64_t ts)
{
	if (ts > span->since)
		t->ns += ts - span->since;
	*span = t->open[--t->nr_open];
}

/*
 * A THROTTLE of an event still open: its UNTHROTTLE was lost (a full
 * ring). The old span ends where the new one begins, at most.
 */
static void throttled(struct ustack_throttle *t, const struct ustack_sb_rec *rec)
{
	struct ustack_throttle_span *span = find_open(t, rec->event_id);

	t->count++;
	if (span)
		span_end(t, span, rec->ts);
	/* out of memory: counted, its time not */
	if (ustack_array_grow((void **)&t->open, &t->alloc_open, t->nr_open + 1,
			      sizeof(*t->open)))
		return;
	t->open[t->nr_open].id = rec->event_id;
	t->open[t->nr_open++].since = rec->ts;
}

/**
 * ustack_throttle_note - one side-band record, in the order they come
 * @t:		the counts
 * @rec:	any record but an unparsed one (its time is not trusted)
 *
 * A THROTTLE begins a span, an UNTHROTTLE of the same event ends it (one
 * without a THROTTLE before it, whose span began before the run, is not
 * counted); every record's time is the end of the spans still open.
 */
void ustack_throttle_note(struct ustack_throttle *t, const struct ustack_sb_rec *rec)
{
	struct ustack_throttle_span *span;

	if (rec->ts > t->last)
		t->last = rec->ts;
	if (rec->kind == USTACK_SB_THROTTLE) {
		throttled(t, rec);
	} else if (rec->kind == USTACK_SB_UNTHROTTLE) {
		span = find_open(t, rec->event_id);
		if (span)
			span_end(t, span, rec->ts);
	}
}

/**
 * ustack_throttle_ns - the time throttled, in the records' clock (ns)
 * @t: the counts
 *
 * The spans ended, and those still open up to the latest record noted.
 */
uint64_t ustack_throttle_ns(const struct ustack_throttle *t)
{
	uint64_t ns = t->ns;
	size_t i;

	for (i = 0; i < t->nr_open; i++)
		if (t->last > t->open[i].since)
			ns += t->last - t->open[i].since;
	return ns;
}

/* Free the open spans; the counts stay */
void ustack_throttle_release(struct ustack_throttle *t)
{
	free(t->open);
	t->open = NULL;
	t->nr_open = t->alloc_open = 0;
}
