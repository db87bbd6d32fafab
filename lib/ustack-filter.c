// SPDX-License-Identifier: LGPL-2.1
/*
 * The sample filter (ustack-filter.h): events by shell patterns, threads,
 * files of user frames, a time range. It runs once per sample handed out,
 * so the answers that depend only on an event format or a mapping are
 * remembered: a run has few of either, and millions of samples.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack-array.h"
#include "ustack-filter.h"
#include "ustack-hash.h"
#include "ustack-syscalls.h"

/* an event per system call named: some hundreds */
#define MAX_EVENT_MEMO	512
#define MAP_MEMO	512	/* a power of two */

struct fevent {
	char	*system;
	char	*name;		/* NULL: every event of the system */
};

struct event_memo {
	const struct tep_event	*ev;
	bool			ok;
};

struct map_memo {
	const struct ustack_mapping	*map;
	bool				ok;
};

struct ustack_filter {
	struct fevent			*events;
	size_t				nr_events, alloc_events;
	int				*tids;
	size_t				nr_tids, alloc_tids;
	char				**dsos;
	size_t				nr_dsos, alloc_dsos;
	struct ustack_time_bound	since, until;
	struct event_memo		event_memo[MAX_EVENT_MEMO];
	size_t				nr_event_memo;
	struct map_memo			*map_memo;
};

/**
 * ustack_filter_new - a filter that lets every sample through
 *
 * Returns NULL when out of memory.
 */
struct ustack_filter *ustack_filter_new(void)
{
	return calloc(1, sizeof(struct ustack_filter));
}

/**
 * ustack_filter_free - free a filter
 * @f: the filter (may be NULL)
 */
void ustack_filter_free(struct ustack_filter *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nr_events; i++) {
		free(f->events[i].system);
		free(f->events[i].name);
	}
	for (i = 0; i < f->nr_dsos; i++)
		free(f->dsos[i]);
	free(f->events);
	free(f->tids);
	free(f->dsos);
	free(f->map_memo);
	free(f);
}

/**
 * ustack_filter_add_event - also let the samples of these events through
 * @f:		the filter
 * @system:	shell pattern of the event's system
 * @name:	shell pattern of its name, NULL for any
 *
 * With no event added, every event passes. Returns 0 or -1 (no memory).
 */
int ustack_filter_add_event(struct ustack_filter *f, const char *system, const char *name)
{
	struct fevent *e;

	if (ustack_array_grow((void **)&f->events, &f->alloc_events, f->nr_events + 1,
			      sizeof(*f->events)))
		return -1;
	e = &f->events[f->nr_events];
	e->system = strdup(system);
	e->name = name ? strdup(name) : NULL;
	if (!e->system || (name && !e->name)) {
		free(e->system);
		free(e->name);
		return -1;
	}
	f->nr_events++;
	f->nr_event_memo = 0;
	return 0;
}

/**
 * ustack_filter_add_tid - also let the samples of thread @tid through
 * @f:		the filter
 * @tid:	a thread id (the event's common_pid)
 *
 * With no thread added, every thread passes. Returns 0 or -1.
 */
int ustack_filter_add_tid(struct ustack_filter *f, int tid)
{
	if (ustack_array_grow((void **)&f->tids, &f->alloc_tids, f->nr_tids + 1,
			      sizeof(*f->tids)))
		return -1;
	f->tids[f->nr_tids++] = tid;
	return 0;
}

/**
 * ustack_filter_add_dso - also let through stacks with a frame in these files
 * @f:		the filter
 * @pattern:	shell pattern of a file's path or of its base name
 *
 * A sample passes when one of its user frames is in a file that matches
 * (by the mapping the frame was bound to, before symbols). With no
 * pattern added, every sample passes. Returns 0 or -1.
 */
int ustack_filter_add_dso(struct ustack_filter *f, const char *pattern)
{
	char *p;

	if (!f->map_memo) {
		f->map_memo = calloc(MAP_MEMO, sizeof(*f->map_memo));
		if (!f->map_memo)
			return -1;
	}
	if (ustack_array_grow((void **)&f->dsos, &f->alloc_dsos, f->nr_dsos + 1,
			      sizeof(*f->dsos)))
		return -1;
	p = strdup(pattern);
	if (!p)
		return -1;
	f->dsos[f->nr_dsos++] = p;
	memset(f->map_memo, 0, MAP_MEMO * sizeof(*f->map_memo));
	return 0;
}

/**
 * ustack_filter_set_time - the time range of the samples let through
 * @f:		the filter
 * @since:	the first time shown (NULL or not set: from the start)
 * @until:	the last time shown, itself included (NULL or not set: to
 *		the end)
 */
void ustack_filter_set_time(struct ustack_filter *f, const struct ustack_time_bound *since,
			    const struct ustack_time_bound *until)
{
	memset(&f->since, 0, sizeof(f->since));
	memset(&f->until, 0, sizeof(f->until));
	if (since)
		f->since = *since;
	if (until)
		f->until = *until;
}

/**
 * ustack_filter_any - whether the filter leaves any sample out
 * @f: the filter (may be NULL)
 */
bool ustack_filter_any(const struct ustack_filter *f)
{
	return f && (f->nr_events || f->nr_tids || f->nr_dsos || f->since.set ||
		     f->until.set);
}

/*
 * A system call shown by its name (ustack-syscalls.h) is also its trace
 * event, raw_syscalls:sys_enter: -e takes either name.
 */
static bool event_listed(const struct ustack_filter *f, const struct tep_event *ev)
{
	const struct tep_event *raw = ustack_syscalls_origin(ev);
	size_t i;

	if (raw && raw->system && raw->name && event_listed(f, raw))
		return true;
	for (i = 0; i < f->nr_events; i++) {
		if (fnmatch(f->events[i].system, ev->system, 0))
			continue;
		if (!f->events[i].name || !fnmatch(f->events[i].name, ev->name, 0))
			return true;
	}
	return false;
}

/* A format's answer is kept: a run has a few hundred events at most */
static bool event_wanted(struct ustack_filter *f, const struct tep_event *ev)
{
	bool ok;
	size_t i;

	if (!f->nr_events)
		return true;
	if (!ev || !ev->system || !ev->name)
		return false;
	for (i = 0; i < f->nr_event_memo; i++)
		if (f->event_memo[i].ev == ev)
			return f->event_memo[i].ok;
	ok = event_listed(f, ev);
	if (f->nr_event_memo < MAX_EVENT_MEMO) {
		f->event_memo[f->nr_event_memo].ev = ev;
		f->event_memo[f->nr_event_memo++].ok = ok;
	}
	return ok;
}

static bool tid_wanted(const struct ustack_filter *f, int tid)
{
	size_t i;

	if (!f->nr_tids)
		return true;
	for (i = 0; i < f->nr_tids; i++)
		if (f->tids[i] == tid)
			return true;
	return false;
}

static bool path_listed(const struct ustack_filter *f, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base && base[1] ? base + 1 : path;
	for (i = 0; i < f->nr_dsos; i++)
		if (!fnmatch(f->dsos[i], path, 0) || !fnmatch(f->dsos[i], base, 0))
			return true;
	return false;
}

/*
 * A mapping's answer is kept by its address: mappings live as long as
 * the session that bound the frames to them.
 */
static bool map_listed(struct ustack_filter *f, const struct ustack_mapping *map)
{
	struct map_memo *m;

	if (!map->path)
		return false;
	m = &f->map_memo[ustack_hash_u64((uintptr_t)map) & (MAP_MEMO - 1)];
	if (m->map != map) {
		m->map = map;
		m->ok = path_listed(f, map->path);
	}
	return m->ok;
}

static bool dso_wanted(struct ustack_filter *f, const struct ustack_sample *s)
{
	unsigned int i;

	if (!f->nr_dsos)
		return true;
	if (s->status != USTACK_SAMPLE_OK && s->status != USTACK_SAMPLE_SYNC)
		return false;
	for (i = 0; i < s->nr_frames; i++)
		if (s->frames[i].map && map_listed(f, s->frames[i].map))
			return true;
	return false;
}

static uint64_t bound_us(const struct ustack_time_bound *b, uint64_t first_ts)
{
	return b->relative ? first_ts / 1000 + b->us : b->us;
}

static bool time_wanted(const struct ustack_filter *f, uint64_t ts, uint64_t first_ts)
{
	uint64_t us = ts / 1000;

	if (f->since.set && us < bound_us(&f->since, first_ts))
		return false;
	return !f->until.set || us <= bound_us(&f->until, first_ts);
}

/**
 * ustack_filter_match - whether a sample is shown
 * @f:		the filter (NULL: every sample is)
 * @s:		the sample, its frames bound to their mappings
 * @first_ts:	timestamp of the first traced event of the data, for the
 *		bounds relative to it
 */
bool ustack_filter_match(struct ustack_filter *f, const struct ustack_sample *s,
			 uint64_t first_ts)
{
	if (!f)
		return true;
	return event_wanted(f, s->event) && tid_wanted(f, s->pid) &&
	       time_wanted(f, s->ts, first_ts) && dso_wanted(f, s);
}

/**
 * ustack_filter_time_parse - a time bound as the command line gives it
 * @arg:	"SECONDS[.FRACTION]", a timestamp as printed (920.105459), or
 *		"+SECONDS[.FRACTION]", from the first event; digits only,
 *		decimals past the microsecond are dropped
 * @b:		filled in
 *
 * Returns 0, or -1 when @arg is not such a number.
 */
int ustack_filter_time_parse(const char *arg, struct ustack_time_bound *b)
{
	uint64_t sec = 0, frac = 0;
	const char *p = arg;
	int digits = 0, decimals = 0;

	memset(b, 0, sizeof(*b));
	if (*p == '+') {
		b->relative = true;
		p++;
	}
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		/* past 10^12 s (31,000 years) the microseconds would wrap */
		if (sec >= 1000000000000ULL)
			return -1;
		sec = sec * 10 + (*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, decimals++)
			if (decimals < 6)
				frac = frac * 10 + (*p - '0');
		if (!decimals)
			return -1;
	}
	if (*p || !digits)
		return -1;
	for (; decimals < 6; decimals++)
		frac *= 10;
	b->us = sec * 1000000 + frac;
	b->set = true;
	return 0;
}
