/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the side-band programs share: a pause before the change, so that
 * the process is well under way (and has been seen) when it happens, and
 * the directory of the program, where its libraries are.
 */
#ifndef _SB_PROGS_H
#define _SB_PROGS_H

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ustack-progs.h"

static inline void sb_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* "<directory of this program>/@name" */
static inline void sb_beside(char *buf, size_t size, const char *name)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	self[n > 0 ? n : 0] = '\0';
	snprintf(buf, size, "%s/%s", dirname(self), name);
}

#endif /* _SB_PROGS_H */
