// SPDX-License-Identifier: LGPL-2.1
/*
 * Fetching executables and debug files from debuginfod servers
 * ($DEBUGINFOD_URLS), as perf and gdb do when the user configured them.
 *
 * libdebuginfod is optional: the Makefile defines USTACK_HAVE_DEBUGINFOD
 * when it found it; otherwise nothing is ever fetched and
 * ustack_resolver_has_debuginfod() says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ustack-resolve-int.h"
#include "ustack-warn.h"

#ifdef USTACK_HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>

/* A progress line, only on a terminal: \r rewrites it in place. */
static int progress(debuginfod_client *c, long a, long b)
{
	struct ustack_resolver *r = debuginfod_get_user_data(c);

	r->dbgd_progress = true;
	if (b > 0)
		fprintf(stderr, "\r" USTACK_PREFIX "debuginfod: downloading %s: %ld%%",
			r->dbgd_what, a * 100 / b);
	else
		fprintf(stderr, "\r" USTACK_PREFIX "debuginfod: downloading %s...", r->dbgd_what);
	return 0;
}

static debuginfod_client *client(struct ustack_resolver *r)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	if (!r->opts.debuginfod || !urls || !*urls)
		return NULL;
	if (!r->dbgd_tried) {
		r->dbgd_tried = true;
		r->dbgd = debuginfod_begin();
		if (r->dbgd && isatty(STDERR_FILENO))
			debuginfod_set_progressfn(r->dbgd, progress);
	}
	return r->dbgd;
}

void ustack_debuginfod_end(struct ustack_resolver *r)
{
	if (r->dbgd)
		debuginfod_end(r->dbgd);
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
	const char *err;
	int fd;

	if (!c)
		return NULL;
	what = ustack_xasprintf("%s of %s", executable ? "executable" : "debuginfo", path);
	r->dbgd_what = what;
	r->dbgd_progress = false;
	debuginfod_set_user_data(c, r);
	ustack_warning("debuginfod: looking up %s", what);
	fd = executable ? debuginfod_find_executable(c, id, len, &file) :
			  debuginfod_find_debuginfo(c, id, len, &file);
	if (r->dbgd_progress)
		fputc('\n', stderr);
	r->dbgd_what = NULL;
	if (fd >= 0) {
		close(fd);
		e = uelf_open(r, file, &err);
	} else {
		ustack_warning("debuginfod: %s: %s", what, strerror(-fd));
	}
	free(file);
	free(what);
	return e;
}

/**
 * ustack_resolver_has_debuginfod - whether this build can ask debuginfod
 *
 * False in a build without libdebuginfod: the debuginfod option of
 * struct ustack_resolver_opts then does nothing.
 */
bool ustack_resolver_has_debuginfod(void)
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

bool ustack_resolver_has_debuginfod(void)
{
	return false;
}

#endif
