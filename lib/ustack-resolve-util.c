// SPDX-License-Identifier: LGPL-2.1
/*
 * Small helpers shared by the symbolizer files.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-resolve-int.h"

/* vasprintf that returns NULL instead of leaving the pointer undefined. */
char *ustack_resolve_util_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&s, fmt, ap);
	va_end(ap);
	return ret < 0 ? NULL : s;
}

/* @buf must hold 2 * USTACK_BUILD_ID_MAX + 1 bytes. */
char *ustack_resolve_util_build_id_hex(const unsigned char *id, size_t len, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	if (len > USTACK_BUILD_ID_MAX)
		len = USTACK_BUILD_ID_MAX;
	for (i = 0; i < len; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 15];
	}
	buf[2 * len] = '\0';
	return buf;
}

/* The path to open for @path: under symfs when one is set. */
char *ustack_resolve_util_symfs_path(const struct ustack_resolver *r, const char *path)
{
	if (!r->symfs)
		return strdup(path);
	return ustack_resolve_util_xasprintf("%s%s%s", r->symfs, path[0] == '/' ? "" : "/",
				path);
}
