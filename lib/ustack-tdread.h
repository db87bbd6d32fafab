/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: reading a trace.dat's CPU data in bounded memory
 * (ustack-tdread.c), for ustack-tracedat.c.
 */
#ifndef _USTACK_TDREAD_H
#define _USTACK_TDREAD_H

#include <stdbool.h>

struct tep_handle;
struct tep_record;
struct ustack_tdlayout;
struct ustack_tdread;

bool ustack_tdread_wanted(const struct ustack_tdlayout *layout);
struct ustack_tdread *ustack_tdread_open(int fd, const char *file,
					 const struct ustack_tdlayout *layout, const char *buffer,
					 struct tep_handle *tep, int nr_cpus);
struct tep_record *ustack_tdread_next(struct ustack_tdread *r, int cpu, bool first);
unsigned long ustack_tdread_bad(const struct ustack_tdread *r);
void ustack_tdread_close(struct ustack_tdread *r);

#endif /* _USTACK_TDREAD_H */
