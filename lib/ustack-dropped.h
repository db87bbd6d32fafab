/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Records a full buffer dropped, told in the CPU data (ustack-dropped.c),
 * and the size of a sub-buffer's commit word, which the side-band file
 * writes too.
 */
#ifndef _USTACK_DROPPED_H
#define _USTACK_DROPPED_H

#include <stdbool.h>
#include <stdint.h>

struct tep_handle;
struct ustack_instance;

/*
 * One CPU's watch, zeroed before the first read: the kernel's count as
 * last read, and the drops counted in the open span, not told yet
 */
struct ustack_dropped {
	uint64_t	seen;
	uint64_t	count;
	bool		open;		/* a span's begin marker was written */
	bool		grew;		/* the last read found more drops */
};

int ustack_dropped_commit_size(struct tep_handle *tep);
bool ustack_dropped_read(struct ustack_dropped *d, struct ustack_instance *ui, int cpu);
uint64_t ustack_dropped_close(struct ustack_dropped *d, bool emptied, bool last);
void ustack_dropped_marker(void *page, int size, int commit_size, uint64_t n);

#endif /* _USTACK_DROPPED_H */
