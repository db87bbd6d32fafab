/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: reading a trace.dat's CPU data in bounded memory
 * (ustack-tracedat-cpu.c), for ustack-tracedat.c.
 */
#ifndef _USTACK_TRACEDAT_CPU_H
#define _USTACK_TRACEDAT_CPU_H

#include <stdbool.h>

struct tep_handle;
struct tep_record;
struct ustack_tracedat_layout;
struct ustack_tracedat_cpu;

bool ustack_tracedat_cpu_wanted(const struct ustack_tracedat_layout *layout);
struct ustack_tracedat_cpu *ustack_tracedat_cpu_open(int fd, const char *file,
					 const struct ustack_tracedat_layout *layout, const char *buffer,
					 struct tep_handle *tep, int nr_cpus);
struct tep_record *ustack_tracedat_cpu_next(struct ustack_tracedat_cpu *r, int cpu, bool first);
long long ustack_tracedat_cpu_take_lost(struct ustack_tracedat_cpu *r, int cpu, bool *drops);
unsigned long ustack_tracedat_cpu_bad(const struct ustack_tracedat_cpu *r);
void ustack_tracedat_cpu_close(struct ustack_tracedat_cpu *r);

#endif /* _USTACK_TRACEDAT_CPU_H */
