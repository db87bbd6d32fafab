// SPDX-License-Identifier: LGPL-2.1
/*
 * System calls by name (include/ustack-syscalls.h). One tracepoint,
 * raw_syscalls:sys_enter, sees every system call: as a perf event it is
 * one per CPU where the per-call syscalls:sys_enter_* events are some 360,
 * each opened and closed on every CPU. Its samples are shown under the
 * per-call name, so that the default set reads as it did with the
 * per-call events: each call number gets a copy of the raw event's
 * format named syscalls:sys_enter_NAME, made the first time it is seen
 * and kept for the session (the outputs and the filter key on it).
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack-syscalls.h"
#include "ustack-syscalls-table.h"

#define NR_TABLE	(sizeof(ustack_syscalls_native) / sizeof(ustack_syscalls_native[0]))
/* numbers past the table (x32's, a newer kernel's): a few named events */
#define MAX_OTHERS	64

struct other {
	long			nr;
	struct tep_event	*ev;
};

struct ustack_syscalls {
	struct tep_event	*by_nr[NR_TABLE];
	struct other		others[MAX_OTHERS];
	size_t			nr_others;
};

static char syscalls_system[] = USTACK_SYSCALLS_SYSTEM;

/**
 * ustack_syscalls_new - a cache of named system call events
 *
 * Returns it, or NULL when out of memory.
 */
struct ustack_syscalls *ustack_syscalls_new(void)
{
	return calloc(1, sizeof(struct ustack_syscalls));
}

static void named_free(struct tep_event *ev)
{
	if (!ev)
		return;
	free(ev->name);
	free(ev);
}

/**
 * ustack_syscalls_free - free the cache and its named events
 * @sc: the cache (may be NULL)
 *
 * The events it handed out are gone with it.
 */
void ustack_syscalls_free(struct ustack_syscalls *sc)
{
	size_t i;

	if (!sc)
		return;
	for (i = 0; i < NR_TABLE; i++)
		named_free(sc->by_nr[i]);
	for (i = 0; i < sc->nr_others; i++)
		named_free(sc->others[i].ev);
	free(sc);
}

/**
 * ustack_syscalls_name - the event name of a system call number
 * @nr:		the number (raw_syscalls:sys_enter's id)
 * @buf:	where to write "sys_enter_NAME", or "sys_enter_NR" for a
 *		number the build's headers do not name
 * @size:	room in @buf
 *
 * Returns the length, as snprintf().
 */
int ustack_syscalls_name(long nr, char *buf, size_t size)
{
	if (nr >= 0 && (size_t)nr < NR_TABLE && ustack_syscalls_native[nr])
		return snprintf(buf, size, "sys_enter_%s", ustack_syscalls_native[nr]);
	return snprintf(buf, size, "sys_enter_%ld", nr);
}

static bool is_raw(const struct tep_event *ev)
{
	return ev->system && ev->name && !strcmp(ev->name, USTACK_SYSCALLS_RAW_EVENT) &&
	       !strcmp(ev->system, USTACK_SYSCALLS_RAW_SYSTEM);
}

/* The record's call number; false when its format or size has none */
static bool read_nr(const struct tep_event *ev, const struct tep_record *rec, long *nr)
{
	struct tep_format_field *f = tep_find_field((struct tep_event *)ev, "id");
	unsigned long long val;

	if (!f || !rec->data || (f->size != 4 && f->size != 8) || f->offset < 0 ||
	    rec->size < 0 || f->offset + f->size > rec->size)
		return false;
	val = tep_read_number(ev->tep, (char *)rec->data + f->offset, f->size);
	*nr = f->size == 4 ? (long)(int)val : (long)val;
	return true;
}

static struct tep_event *named_new(const struct tep_event *raw, long nr)
{
	struct tep_event *ev = malloc(sizeof(*ev));
	char name[64];

	if (!ev)
		return NULL;
	ustack_syscalls_name(nr, name, sizeof(name));
	/* the format, id and print format stay the raw event's */
	*ev = *raw;
	ev->name = strdup(name);
	ev->system = syscalls_system;
	if (!ev->name) {
		free(ev);
		return NULL;
	}
	return ev;
}

/* The cache's slot of @nr, NULL when it is full */
static struct tep_event **slot(struct ustack_syscalls *sc, long nr)
{
	size_t i;

	if (nr >= 0 && (size_t)nr < NR_TABLE)
		return &sc->by_nr[nr];
	for (i = 0; i < sc->nr_others; i++)
		if (sc->others[i].nr == nr)
			return &sc->others[i].ev;
	if (sc->nr_others == MAX_OTHERS)
		return NULL;
	sc->others[sc->nr_others].nr = nr;
	return &sc->others[sc->nr_others++].ev;
}

/**
 * ustack_syscalls_event - the event a sample is shown as
 * @sc:		the cache (NULL: @ev)
 * @ev:		the record's event (may be NULL)
 * @rec:	the record
 *
 * Returns, for a raw_syscalls:sys_enter record, its system call's named
 * event (syscalls:sys_enter_openat), valid until ustack_syscalls_free();
 * @ev for any other event, or when the record has no readable number or
 * memory ran out.
 */
struct tep_event *ustack_syscalls_event(struct ustack_syscalls *sc, struct tep_event *ev,
					const struct tep_record *rec)
{
	struct tep_event **sl;
	long nr;

	if (!sc || !ev || !rec || !is_raw(ev) || !read_nr(ev, rec, &nr))
		return ev;
	sl = slot(sc, nr);
	if (!sl)
		return ev;
	if (!*sl)
		*sl = named_new(ev, nr);
	return *sl ? *sl : ev;
}

/**
 * ustack_syscalls_origin - the trace's own event of a named system call
 * @ev: an event a sample is shown as
 *
 * Returns raw_syscalls:sys_enter for an event ustack_syscalls_event()
 * named, NULL for an event of the trace.
 */
const struct tep_event *ustack_syscalls_origin(const struct tep_event *ev)
{
	struct tep_event *raw;

	if (!ev || !ev->tep || ev->system != syscalls_system)
		return NULL;
	raw = tep_find_event(ev->tep, ev->id);
	return raw != ev ? raw : NULL;
}

/* "sys_enter_" and digits: a number the table does not name */
static bool is_number_name(const char *name)
{
	const char *p = name + strlen("sys_enter_");

	if (strncmp(name, "sys_enter_", strlen("sys_enter_")) || !*p)
		return false;
	if (*p == '-')
		p++;
	return *p && strspn(p, "0123456789") == strlen(p);
}

/**
 * ustack_syscalls_match - whether an event pattern can match a named call
 * @system:	shell pattern of the system
 * @pattern:	shell pattern of the event name, NULL for every event
 *
 * For report -e on a file whose system calls are raw_syscalls:sys_enter
 * events: true when the pattern names one of the calls they are shown as.
 */
bool ustack_syscalls_match(const char *system, const char *pattern)
{
	char name[64];
	size_t i;

	if (fnmatch(system, USTACK_SYSCALLS_SYSTEM, 0))
		return false;
	if (!pattern || is_number_name(pattern))
		return true;
	for (i = 0; i < NR_TABLE; i++) {
		if (!ustack_syscalls_native[i])
			continue;
		ustack_syscalls_name(i, name, sizeof(name));
		if (!fnmatch(pattern, name, 0))
			return true;
	}
	return false;
}
