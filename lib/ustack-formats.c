// SPDX-License-Identifier: LGPL-2.1
/*
 * The event formats of a capture (see ustack-formats.h).
 *
 * tracefs_local_events_system() parses every event of the systems it is
 * given and always /proc/kallsyms as well: in the VM that was most of the
 * fixed CPU cost of a `trace-cmd ustack record` (kallsyms lines go through
 * sscanf(), and -e syscalls:X brought in some 700 syscall formats). A
 * capture only needs the formats of the events it enables, and kernel
 * symbols only when it prints kernel stacks itself: the trace.dat gets
 * its own copy of kallsyms, which report reads. Nor does it list what it
 * can name: a system or an event named outright is read directly, and
 * directories are listed only for patterns (each listing is a readdir
 * and an allocation per entry, and TCG makes tracefs slow).
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "ustack-array.h"
#include "ustack-formats.h"

/*
 * The event part of "system/event" glob @glob when its system part takes
 * @sys, else NULL.
 */
static const char *event_glob(const char *glob, const char *sys)
{
	const char *slash = strchr(glob, '/');
	char sys_glob[256];
	size_t len;

	if (!slash)
		return NULL;
	len = slash - glob;
	if (len >= sizeof(sys_glob))
		return NULL;
	memcpy(sys_glob, glob, len);
	sys_glob[len] = '\0';
	return fnmatch(sys_glob, sys, 0) ? NULL : slash + 1;
}

/* Does "system/event" glob @glob take @event of @sys? */
static bool glob_takes(const char *glob, const char *sys, const char *event)
{
	const char *ev = event_glob(glob, sys);

	return ev && !fnmatch(ev, event, 0);
}

static bool wanted(const char * const *globs, const char *sys, const char *event)
{
	int i;

	for (i = 0; globs[i]; i++)
		if (glob_takes(globs[i], sys, event))
			return true;
	return false;
}

static void parse_format(struct tep_handle *tep, const char *sys, const char *event)
{
	char *buf;
	int len;

	buf = tracefs_event_file_read(NULL, sys, event, "format", &len);
	if (!buf)
		return;
	if (len > 0)
		tep_parse_event(tep, buf, len, sys);
	free(buf);
}

/*
 * Listing a system's directory costs a readdir and an allocation per
 * event (syscalls has some 700): only for a pattern. Returns true when
 * some glob is a pattern for @sys; parses the events named outright.
 */
static bool parse_named(struct tep_handle *tep, const char * const *globs, const char *sys)
{
	bool pattern = false;
	const char *ev;
	int i;

	for (i = 0; globs[i]; i++) {
		ev = event_glob(globs[i], sys);
		if (!ev)
			continue;
		if (ustack_is_glob(ev))
			pattern = true;
		else if (!tep_find_event_by_name(tep, sys, ev))
			parse_format(tep, sys, ev);
	}
	return pattern;
}

/* ftrace has no "enable" file, so tracefs_event_systems() leaves it out. */
static void parse_system(struct tep_handle *tep, const char * const *globs, const char *sys)
{
	char **events;
	int i;

	if (!parse_named(tep, globs, sys))
		return;
	events = tracefs_system_events(NULL, sys);
	for (i = 0; events && events[i]; i++)
		if (wanted(globs, sys, events[i]) && !tep_find_event_by_name(tep, sys, events[i]))
			parse_format(tep, sys, events[i]);
	tracefs_list_free(events);
}

static bool listed(char **list, const char *s)
{
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

/*
 * The systems the globs may take: those they name, or every system when
 * one names them by a pattern (a listing of events/ and a stat each).
 */
static char **glob_systems(const char * const *globs)
{
	char **systems = NULL, **tmp;
	const char *slash;
	char *sys;
	int i;

	for (i = 0; globs[i]; i++) {
		slash = strchr(globs[i], '/');
		if (!slash)
			continue;
		sys = strndup(globs[i], slash - globs[i]);
		if (!sys || ustack_is_glob(sys)) {
			free(sys);
			tracefs_list_free(systems);
			return tracefs_event_systems(NULL);
		}
		if (listed(systems, sys)) {
			free(sys);
			continue;
		}
		tmp = tracefs_list_add(systems, sys);
		free(sys);
		if (!tmp) {
			tracefs_list_free(systems);
			return tracefs_event_systems(NULL);
		}
		systems = tmp;
	}
	return systems;
}

/* Parse a whole file of the top instance with @fn (best effort). */
static void parse_file(struct tep_handle *tep, const char *path,
		       int (*fn)(struct tep_handle *, const char *))
{
	char *buf = tracefs_instance_file_read(NULL, path, NULL);

	if (buf)
		fn(tep, buf);
	free(buf);
}

static int parse_printk(struct tep_handle *tep, const char *buf)
{
	tep_parse_printk_formats(tep, buf);
	return 0;
}

static void parse_kallsyms(struct tep_handle *tep)
{
	size_t len = 0, alloc = 0;
	char *buf = NULL;
	FILE *f = fopen("/proc/kallsyms", "re");
	size_t r;

	if (!f)
		return;
	/* A /proc file: its size is unknown until read */
	do {
		if (ustack_array_grow((void **)&buf, &alloc, len + 65536 + 1, 1))
			goto out;
		r = fread(buf + len, 1, alloc - len - 1, f);
		len += r;
	} while (r);
	buf[len] = '\0';
	tep_parse_kallsyms(tep, buf);
 out:
	free(buf);
	fclose(f);
}

static bool parse_header(struct tep_handle *tep)
{
	char *buf;
	int len;

	buf = tracefs_instance_file_read(NULL, "events/header_page", &len);
	if (!buf)
		return false;
	tep_parse_header_page(tep, buf, len, sizeof(long));
	free(buf);
	return true;
}

/**
 * ustack_formats_header - a new tep that knows the ring buffer's pages only
 *
 * For a reader that moves sub-buffers without decoding a record: the
 * header page gives their layout; no event format is parsed. Returns NULL
 * with errno set when the tep cannot be made or the header page cannot be
 * read.
 */
struct tep_handle *ustack_formats_header(void)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		return NULL;
	if (!parse_header(tep)) {
		tep_free(tep);
		return NULL;
	}
	tep_set_cpus(tep, sysconf(_SC_NPROCESSORS_CONF));
	tep_set_long_size(tep, tep_get_header_page_size(tep));
	return tep;
}

/**
 * ustack_formats_local - the formats of some local events, in a new tep
 * @globs: NULL-terminated "system/event" shell patterns
 *	(fnmatch(3) each side of the slash: "sched" and "*")
 * @kallsyms: also parse /proc/kallsyms (kernel stacks printed here)
 *
 * Also parses the header page, printk formats and saved command lines, as
 * tracefs_local_events_system() does. Returns NULL with errno set when the
 * tep cannot be made or the header page cannot be read.
 */
struct tep_handle *ustack_formats_local(const char * const *globs, bool kallsyms)
{
	struct tep_handle *tep = ustack_formats_header();
	char **systems;
	int i;

	if (!tep)
		return NULL;
	systems = glob_systems(globs);
	for (i = 0; systems && systems[i]; i++)
		if (strcmp(systems[i], "ftrace"))
			parse_system(tep, globs, systems[i]);
	tracefs_list_free(systems);
	parse_system(tep, globs, "ftrace");
	parse_file(tep, "printk_formats", parse_printk);
	parse_file(tep, "saved_cmdlines", tep_parse_saved_cmdlines);
	if (kallsyms)
		parse_kallsyms(tep);
	return tep;
}

/* Does @fmt print an argument as a kernel symbol (%ps, %pS, %pF, %pB...)? */
static bool prints_symbol(const char *fmt)
{
	const char *p;

	for (p = fmt; p && (p = strstr(p, "%p")); p += 2)
		if (p[2] && strchr("sSfFB", p[2]))
			return true;
	return false;
}

/*
 * SYS/EVENT's print format as tracefs has it, read as text: parsing it
 * would cost the recorder, which decodes nothing, a parser of every
 * traced event (tests/bats/vm/recorder.bats). Unreadable: true.
 */
static bool event_prints_symbol(const char *sys, const char *event)
{
	char *fmt = tracefs_event_file_read(NULL, sys, event, "format", NULL);
	bool ret = !fmt || prints_symbol(strstr(fmt, "\nprint fmt:"));

	free(fmt);
	return ret;
}

static bool system_prints_symbol(const char * const *globs, const char *sys)
{
	char **events = tracefs_system_events(NULL, sys);
	bool ret = !events;
	int i;

	for (i = 0; events && events[i] && !ret; i++)
		if (wanted(globs, sys, events[i]))
			ret = event_prints_symbol(sys, events[i]);
	tracefs_list_free(events);
	return ret;
}

/**
 * ustack_formats_name_symbols - do some events show kernel symbols?
 * @globs: NULL-terminated "system/event" shell patterns of the traced
 *	events (ftrace's own formats are not looked at)
 *
 * A trace.dat needs the kernel's symbols for the events whose print
 * format names a kernel address (%pS and the like): report shows them
 * with the symbol. Returns true for those, and when the formats cannot
 * be read (the symbols are then kept, as before).
 */
bool ustack_formats_name_symbols(const char * const *globs)
{
	char **systems = globs[0] ? glob_systems(globs) : NULL;
	bool ret = globs[0] && !systems;
	int i;

	for (i = 0; systems && systems[i] && !ret; i++)
		if (strcmp(systems[i], "ftrace"))
			ret = system_prints_symbol(globs, systems[i]);
	tracefs_list_free(systems);
	return ret;
}
