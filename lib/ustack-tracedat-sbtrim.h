/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: the side-band file's writer when a recording has stack
 * copies (--call-graph=dwarf). The reader's thread hands it every record
 * in the merge's order and never waits; a worker thread unwinds each copy
 * to find the words the walk reads, so that the file keeps only those.
 * A copy the worker has not trimmed when its turn to be written comes
 * (the worker behind) is written whole: report unwinds it as it unwinds
 * a trimmed one. Records are written in the order they were added.
 */
#ifndef _USTACK_TRACEDAT_SBTRIM_H
#define _USTACK_TRACEDAT_SBTRIM_H

#include <stdbool.h>
#include <stddef.h>

struct ustack_sb_rec;
struct ustack_tracedat_sbfile;
struct ustack_unwinder;

/*
 * Copies the worker may have waiting at once; past them a copy goes
 * whole. A reader's drain hands over up to a ring's worth at once (16 MiB,
 * some 1,900 copies): the bound is the window's 32 MiB, about 3,900, so
 * that a worker that repeats its walks (cheap) trims them all once it
 * runs. USTACK_TRIM_QUEUE=N in the environment sets it (a test hook: 0
 * writes every copy whole).
 */
#define USTACK_SBTRIM_QUEUE	4096

/**
 * struct ustack_sbtrim_stats - what became of the copies
 * @trimmed:	written with the words their unwind read
 * @whole:	written whole: the worker was behind
 * @truncated:	trimmed ones whose unwind stopped at the frame limit
 * @repeated:	trimmed ones that repeated their thread's last copy where
 *		its unwind read (the same registers too): not unwound again
 * @worker_ns:	the worker thread's CPU time
 */
struct ustack_sbtrim_stats {
	unsigned long long	trimmed;
	unsigned long long	repeated;
	unsigned long long	whole;
	unsigned long long	truncated;
	unsigned long long	worker_ns;
};

struct ustack_tracedat_sbtrim;

struct ustack_tracedat_sbtrim *ustack_tracedat_sbtrim_new(struct ustack_tracedat_sbfile *f,
							  struct ustack_unwinder *u,
							  unsigned int max_frames);
int ustack_tracedat_sbtrim_add(struct ustack_tracedat_sbtrim *t, const struct ustack_sb_rec *rec);
int ustack_tracedat_sbtrim_close(struct ustack_tracedat_sbtrim *t, bool write,
				 struct ustack_sbtrim_stats *stats);

#endif /* _USTACK_TRACEDAT_SBTRIM_H */
