// SPDX-License-Identifier: LGPL-2.1
/*
 * Fetching executables and debug files from debuginfod servers
 * ($DEBUGINFOD_URLS), as perf and gdb do when the user configured them.
 *
 * libdebuginfod is optional: the Makefile defines USTACK_HAVE_DEBUGINFOD
 * when it found it; otherwise nothing is ever fetched and
 * ustack_resolve_debuginfod_available() says so. The library is loaded with
 * dlopen() when the first file is looked up, as libdwfl does: it brings
 * libcurl and some thirty other libraries, whose loading took three
 * quarters of the start-up of every run (30 of 39 ms here), and most
 * runs never fetch anything.
 *
 * Each look-up is bounded by libdebuginfod's own settings
 * (DEBUGINFOD_TIMEOUT: seconds without progress, 90 by default, tried
 * again DEBUGINFOD_RETRY_LIMIT times, per server): a trace naming many
 * build ids no server has, or a server that stalls, would make a run
 * wait minutes. All look-ups of a run together may take
 * USTACK_DEBUGINFOD_TOTAL seconds (DBGD_TOTAL_DEFAULT): the progress
 * function ends the one under way when they reach it, and the later ones
 * are not made, said once.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ustack-resolve-int.h"
#include "ustack-text.h"
#include "ustack-warn.h"

#ifdef USTACK_HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>

/* Seconds all look-ups of a run may take, unless USTACK_DEBUGINFOD_TOTAL */
#define DBGD_TOTAL_DEFAULT	30
#define DBGD_TOTAL_MAX		(24 * 3600)
#define NSEC_PER_SEC		1000000000ULL

/* The library's major version, as built against (libdwfl names it so) */
#define DEBUGINFOD_SONAME	"libdebuginfod.so.1"

/* What we call of libdebuginfod, once it is loaded */
static struct {
	__typeof__(debuginfod_begin)		*begin;
	__typeof__(debuginfod_end)		*end;
	__typeof__(debuginfod_set_progressfn)	*set_progressfn;
	__typeof__(debuginfod_set_user_data)	*set_user_data;
	__typeof__(debuginfod_get_user_data)	*get_user_data;
	__typeof__(debuginfod_find_executable)	*find_executable;
	__typeof__(debuginfod_find_debuginfo)	*find_debuginfo;
} dbgd;

/* Each function of dbgd by its name; false when one is missing */
static bool dbgd_bind(void *h)
{
	static const struct {
		const char	*name;
		size_t		offset;
	} fns[] = {
		{ "debuginfod_begin", offsetof(__typeof__(dbgd), begin) },
		{ "debuginfod_end", offsetof(__typeof__(dbgd), end) },
		{ "debuginfod_set_progressfn", offsetof(__typeof__(dbgd), set_progressfn) },
		{ "debuginfod_set_user_data", offsetof(__typeof__(dbgd), set_user_data) },
		{ "debuginfod_get_user_data", offsetof(__typeof__(dbgd), get_user_data) },
		{ "debuginfod_find_executable", offsetof(__typeof__(dbgd), find_executable) },
		{ "debuginfod_find_debuginfo", offsetof(__typeof__(dbgd), find_debuginfo) },
	};
	size_t i;
	void *f;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		f = dlsym(h, fns[i].name);
		if (!f) {
			ustack_warning("debuginfod: %s: no %s", DEBUGINFOD_SONAME, fns[i].name);
			return false;
		}
		memcpy((char *)&dbgd + fns[i].offset, &f, sizeof(f));
	}
	return true;
}

/* Load the library once per process; false (said once) when it cannot be */
static bool dbgd_load(void)
{
	static int state;	/* 0: not tried, 1: loaded, -1: failed */
	void *h;

	if (state)
		return state > 0;
	state = -1;
	h = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		ustack_warning("debuginfod: cannot load %s: %s", DEBUGINFOD_SONAME, dlerror());
		return false;
	}
	if (!dbgd_bind(h)) {
		dlclose(h);
		return false;
	}
	state = 1;
	return true;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* The cap of all look-ups, in ns: USTACK_DEBUGINFOD_TOTAL seconds */
static uint64_t total_cap(void)
{
	const char *s = getenv("USTACK_DEBUGINFOD_TOTAL");
	unsigned long v;
	char *end;

	if (!s || !*s)
		return DBGD_TOTAL_DEFAULT * NSEC_PER_SEC;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end || errno || v > DBGD_TOTAL_MAX || *s == '-') {
		ustack_warning("USTACK_DEBUGINFOD_TOTAL=%s: not a number of seconds from 0 to %d: %d used",
			       s, DBGD_TOTAL_MAX, DBGD_TOTAL_DEFAULT);
		return DBGD_TOTAL_DEFAULT * NSEC_PER_SEC;
	}
	return v * NSEC_PER_SEC;
}

/* The time look-ups took, the one under way included */
static uint64_t spent(const struct ustack_resolver *r)
{
	return r->dbgd_spent + (r->dbgd_start ? now_ns() - r->dbgd_start : 0);
}

/* Once a run: the cap ended look-ups. */
static void say_cap(struct ustack_resolver *r)
{
	if (r->dbgd_said_cap)
		return;
	r->dbgd_said_cap = true;
	ustack_warning("debuginfod: look-ups stopped after %llu s, the cap for all of a run's (USTACK_DEBUGINFOD_TOTAL=%llu): no more are made",
		       (unsigned long long)(r->dbgd_spent / NSEC_PER_SEC),
		       (unsigned long long)(r->dbgd_cap / NSEC_PER_SEC));
}

/*
 * Called while a look-up runs (about once a second when nothing arrives,
 * more often when something does): non-zero ends it, at the cap. The
 * progress line only on a terminal: \r rewrites it in place.
 */
static int progress(debuginfod_client *c, long a, long b)
{
	struct ustack_resolver *r = dbgd.get_user_data(c);

	if (spent(r) >= r->dbgd_cap) {
		r->dbgd_cut = true;
		return 1;
	}
	if (!r->dbgd_tty)
		return 0;
	r->dbgd_progress = true;
	fputs("\r" USTACK_PREFIX "debuginfod: downloading ", stderr);
	/* the path is the trace's */
	ustack_text_fput(stderr, r->dbgd_what, USTACK_TEXT_TERM);
	if (b > 0)
		fprintf(stderr, ": %ld%%", a * 100 / b);
	else
		fputs("...", stderr);
	return 0;
}

static debuginfod_client *client(struct ustack_resolver *r)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	if (!r->opts.debuginfod || !urls || !*urls)
		return NULL;
	if (!r->dbgd_tried) {
		r->dbgd_tried = true;
		if (!dbgd_load())
			return NULL;
		r->dbgd = dbgd.begin();
		r->dbgd_cap = total_cap();
		r->dbgd_tty = isatty(STDERR_FILENO);
		if (r->dbgd)
			dbgd.set_progressfn(r->dbgd, progress);
	}
	return r->dbgd;
}

void ustack_resolve_debuginfod_end(struct ustack_resolver *r)
{
	if (r->dbgd)
		dbgd.end(r->dbgd);
	r->dbgd = NULL;
}

/**
 * ustack_resolve_debuginfod_fetch - ask the servers for a file by build id
 * @r:		the resolver (its options say whether to ask)
 * @path:	the traced file's path, for messages
 * @id:		its build id
 * @len:	bytes in @id
 * @executable:	the executable itself, else its debug file
 * @out:	the file, unchecked, or NULL
 *
 * The file is read from the cache libdebuginfod wrote it to, which
 * DEBUGINFOD_CACHE_PATH may place anywhere: as a file found by
 * convention (ustack_resolve_open_trusted()).
 * Returns 0, or a negative code when nothing was fetched or the file not
 * used.
 */
int ustack_resolve_debuginfod_fetch(struct ustack_resolver *r, const char *path,
			    const unsigned char *id, size_t len, bool executable,
			    struct uelf **out)
{
	debuginfod_client *c = client(r);
	char *file = NULL, *what;
	int fd, err;

	*out = NULL;
	if (!c)
		return -ENOENT;
	if (r->dbgd_cut || r->dbgd_spent >= r->dbgd_cap) {
		r->dbgd_cut = true;
		say_cap(r);
		return -ETIME;
	}
	what = ustack_resolve_util_xasprintf("%s of %s", executable ? "executable" : "debuginfo", path);
	r->dbgd_what = what;
	r->dbgd_progress = false;
	dbgd.set_user_data(c, r);
	ustack_warning("debuginfod: looking up %s", what);
	r->dbgd_start = now_ns();
	fd = executable ? dbgd.find_executable(c, id, len, &file) :
			  dbgd.find_debuginfo(c, id, len, &file);
	r->dbgd_spent = spent(r);
	r->dbgd_start = 0;
	if (r->dbgd_progress)
		fputc('\n', stderr);
	r->dbgd_what = NULL;
	if (fd >= 0) {
		close(fd);
		err = uelf_open_trusted(r, file, out);
	} else if (r->dbgd_cut) {
		err = -ETIME;
		say_cap(r);
	} else {
		err = fd;
		ustack_warning("debuginfod: %s: %s", what, strerror(-fd));
	}
	free(file);
	free(what);
	return err;
}

/**
 * ustack_resolve_debuginfod_available - whether this build can ask debuginfod
 *
 * False in a build without libdebuginfod: the debuginfod option of
 * struct ustack_resolver_opts then does nothing.
 */
bool ustack_resolve_debuginfod_available(void)
{
	return true;
}

#else /* !USTACK_HAVE_DEBUGINFOD */

void ustack_resolve_debuginfod_end(struct ustack_resolver *r)
{
}

int ustack_resolve_debuginfod_fetch(struct ustack_resolver *r, const char *path,
			    const unsigned char *id, size_t len, bool executable,
			    struct uelf **out)
{
	*out = NULL;
	return -ENOENT;
}

bool ustack_resolve_debuginfod_available(void)
{
	return false;
}

#endif
