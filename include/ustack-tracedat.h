/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * trace.dat files of trace-cmd ustack: written with libtracecmd's writer so
 * that stock `trace-cmd report` and KernelShark open them (our data is an
 * instance buffer, as `trace-cmd record -B` makes), opened through the
 * public libtracecmd API; their CPU data is read in bounded memory by our
 * own reader where the file allows (lib/ustack-tracedat-cpu.c), else by
 * libtracecmd.
 */
#ifndef _USTACK_TRACEDAT_H
#define _USTACK_TRACEDAT_H

#include <stdbool.h>

#include "ustack.h"

struct tep_handle;
struct tep_record;
struct ustack_tracedat;

/**
 * struct ustack_tracedat_out - what goes into a trace.dat
 * @file:	output path
 * @instance:	name of the buffer our data is stored as
 * @nr_cpus:	number of per-CPU files
 * @cpu_files:	raw sub-buffers of each CPU as read from trace_pipe_raw
 * @systems:	NULL-terminated "system/event" shell patterns of the formats
 *		stored (ftrace's are always stored)
 * @clock:	the instance's trace_clock file content, or NULL
 * @procmaps:	NULL-terminated PROCMAPS option payloads, or NULL
 * @sideband:	sub-buffers of side-band records (ustack-tracedat-sbfile.h) stored as
 *		CPU 0 of the top buffer, or NULL
 * @page_size:	bytes in each sub-buffer of @cpu_files and @sideband, the
 *		instance's, which becomes the file's page size; 0 when the
 *		kernel cannot say (the top level's is taken)
 * @kallsyms:	store /proc/kallsyms (kernel stacks or kernel addresses
 *		to name); without, the file's kallsyms section is empty
 */
struct ustack_tracedat_out {
	const char	*file;
	const char	*instance;
	int		nr_cpus;
	int		page_size;
	char * const	*cpu_files;
	const char	**systems;
	const char	*clock;
	char		**procmaps;
	const char	*sideband;
	bool		kallsyms;
};

int ustack_tracedat_write(const struct ustack_tracedat_out *out);
bool ustack_tracedat_lib_warning(const char *msg);

/*
 * Open a trace.dat for reading the buffer named @instance (NULL: the
 * first "ustack-*" buffer, else the first buffer, else the top one).
 * Without @kernel_symbols the file's kallsyms are not loaded. Returns 0,
 * or a negative code: *@tdp then only says why (ustack_tracedat_strerror())
 * and is closed.
 */
int ustack_tracedat_open(const char *file, const char *instance, bool kernel_symbols,
			 struct ustack_tracedat **tdp);
const char *ustack_tracedat_strerror(const struct ustack_tracedat *td, char *buf, size_t size);
struct tep_handle *ustack_tracedat_tep(struct ustack_tracedat *td);

typedef void (*ustack_tracedat_fn)(struct tep_record *rec, void *ctx);

/*
 * Hand out every record of the buffer in timestamp order, from the first;
 * @top_fn (may be NULL) gets those of the top buffer, merged by time.
 */
int ustack_tracedat_iterate(struct ustack_tracedat *td, ustack_tracedat_fn fn,
			    ustack_tracedat_fn top_fn, void *ctx);
/*
 * The same, and @lost_fn (may be NULL) is told of a loss on a CPU of the
 * buffer as soon as the first record after it is read, before records of
 * other CPUs that sort before that one; the record then comes with
 * missed_events 0. @missed is USTACK_DROPS_BEGIN where a span of drops
 * begins (ustack.h).
 */
typedef void (*ustack_tracedat_lost_fn)(int cpu, long long missed, void *ctx);
int ustack_tracedat_iterate_lost(struct ustack_tracedat *td, ustack_tracedat_fn fn,
				 ustack_tracedat_fn top_fn, ustack_tracedat_lost_fn lost_fn,
				 void *ctx);
/* From a callback: the running ustack_tracedat_iterate() hands out no more */
void ustack_tracedat_stop(struct ustack_tracedat *td);
/* Records skipped because their length runs past their sub-buffer */
unsigned long ustack_tracedat_corrupt(const struct ustack_tracedat *td);
unsigned long ustack_tracedat_bad_pages(const struct ustack_tracedat *td);
bool ustack_tracedat_own_reader(const struct ustack_tracedat *td);
void ustack_tracedat_close(struct ustack_tracedat *td);

#endif /* _USTACK_TRACEDAT_H */
