/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: the switches of the library functions trace-cmd ustack
 * defines in place of libtracecmd's and libtraceevent's own
 * (ustack-tracedat-interpose.c says which, why, and what each does).
 */
#ifndef _USTACK_TRACEDAT_INTERPOSE_H
#define _USTACK_TRACEDAT_INTERPOSE_H

#include <stdbool.h>
#include <stdint.h>

void ustack_tracedat_interpose_skip_kallsyms(bool skip, int fd, uint64_t block);
void ustack_tracedat_interpose_lazy_chunks(bool lazy);

#endif /* _USTACK_TRACEDAT_INTERPOSE_H */
