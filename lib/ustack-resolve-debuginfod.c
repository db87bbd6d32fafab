// SPDX-License-Identifier: LGPL-2.1
/*
 * Fetching executables and debug files from debuginfod servers
 * ($DEBUGINFOD_URLS), as perf and gdb do when the user configured them.
 *
 * libdebuginfod is optional: the Makefile defines USTACK_HAVE_DEBUGINFOD
 * when it found it; otherwise nothing is ever fetched and
 * ustack_debuginfod_available() says so. The library is loaded with
 * dlopen() when the first file is looked up, as libdwfl does: it brings
 * libcurl and some thirty other libraries, whose loading took three
 * quarters of the start-up of every run (30 of 39 ms here), and most
 * runs never fetch anything.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ustack-resolve-int.h"
#include "ustack-text.h"
#include "ustack-warn.h"

#ifdef USTACK_HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>

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

/* A progress line, only on a terminal: \r rewrites it in place. */
static int progress(debuginfod_client *c, long a, long b)
{
	struct ustack_resolver *r = dbgd.get_user_data(c);

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
		if (r->dbgd && isatty(STDERR_FILENO))
			dbgd.set_progressfn(r->dbgd, progress);
	}
	return r->dbgd;
}

void ustack_debuginfod_end(struct ustack_resolver *r)
{
	if (r->dbgd)
		dbgd.end(r->dbgd);
	r->dbgd = NULL;
}

/**
 * ustack_debuginfod_fetch - ask the servers for a file by build id
 * @r:		the resolver (its options say whether to ask)
 * @path:	the traced file's path, for messages
 * @id:		its build id
 * @len:	bytes in @id
 * @executable:	the executable itself, else its debug file
 *
 * Returns the opened file, unchecked, or NULL.
 */
struct uelf *ustack_debuginfod_fetch(struct ustack_resolver *r, const char *path,
				     const unsigned char *id, size_t len, bool executable)
{
	debuginfod_client *c = client(r);
	struct uelf *e = NULL;
	char *file = NULL, *what;
	int fd;

	if (!c)
		return NULL;
	what = ustack_xasprintf("%s of %s", executable ? "executable" : "debuginfo", path);
	r->dbgd_what = what;
	r->dbgd_progress = false;
	dbgd.set_user_data(c, r);
	ustack_warning("debuginfod: looking up %s", what);
	fd = executable ? dbgd.find_executable(c, id, len, &file) :
			  dbgd.find_debuginfo(c, id, len, &file);
	if (r->dbgd_progress)
		fputc('\n', stderr);
	r->dbgd_what = NULL;
	if (fd >= 0) {
		close(fd);
		uelf_open(r, file, &e);
	} else {
		ustack_warning("debuginfod: %s: %s", what, strerror(-fd));
	}
	free(file);
	free(what);
	return e;
}

/**
 * ustack_debuginfod_available - whether this build can ask debuginfod
 *
 * False in a build without libdebuginfod: the debuginfod option of
 * struct ustack_resolver_opts then does nothing.
 */
bool ustack_debuginfod_available(void)
{
	return true;
}

#else /* !USTACK_HAVE_DEBUGINFOD */

void ustack_debuginfod_end(struct ustack_resolver *r)
{
}

struct uelf *ustack_debuginfod_fetch(struct ustack_resolver *r, const char *path,
				     const unsigned char *id, size_t len, bool executable)
{
	return NULL;
}

bool ustack_debuginfod_available(void)
{
	return false;
}

#endif
