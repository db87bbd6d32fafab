/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The perf stack source: on a kernel without deferred tracefs stacks,
 * each traced tracepoint is a perf event (PERF_TYPE_TRACEPOINT, every hit
 * sampled) whose samples carry the raw tracepoint payload, the task, the
 * time and the user callchain, as deep as kernel.perf_event_max_stack
 * allows, instead of the 8 frames of tracefs' userstacktrace option.
 *
 * Its events write into the rings of the perf side-band (ustack-perf-sideband.c,
 * SET_OUTPUT, one ring per CPU, one clock), so that a sample and the
 * mapping and task records it depends on come out of one ring in the
 * order the kernel wrote them, and are handed out as side-band records of
 * kind USTACK_SB_SAMPLE.
 */
#ifndef _USTACK_PERF_SOURCE_H
#define _USTACK_PERF_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ustack_sb_rec;

/* --call-graph=dwarf: perf's default copy, and the most a record holds */
#define USTACK_DWARF_SIZE_DEFAULT	8192
#define USTACK_DWARF_SIZE_MAX		65528
/* Frames the unwind of a copy goes to without --max-stack */
#define USTACK_DWARF_MAX_FRAMES		1024

/**
 * struct ustack_perf_source_event - one tracepoint to sample
 * @id:		its tracefs id (events/SYSTEM/EVENT/id)
 * @filter:	kernel filter, or NULL
 */
struct ustack_perf_source_event {
	int		id;
	const char	*filter;
};

/**
 * struct ustack_perf_source_opts - what the source samples
 * @events:	the tracepoints
 * @nr_events:	entries in @events
 * @kernel:	the kernel callchain too (else exclude_callchain_kernel)
 * @max_stack:	frames asked for (sample_max_stack); 0: the kernel's
 *		kernel.perf_event_max_stack
 * @dwarf_size:	bytes of user stack copied with the user registers at each
 *		sample, to be unwound with CFI (perf's --call-graph dwarf);
 *		0: the kernel's frame-pointer chain
 * @defer:	the user callchains deferred (defer_callchain, Linux 6.19):
 *		ustack_perf_source_defer_probe() said the kernel has them
 * @unread:	recorded without being read (the stack source's choice:
 *		recording): the reader only copies, and the rings are perf
 *		record's size but with stack copies, which a worker trims
 *		off the reader's path (ustack-tracedat-sbtrim.h)
 * @exec_copy_size: --call-graph=auto chose the frame-pointer walk, live:
 *		a process that executes a program without frame pointers
 *		gets events of its own with stack copies of this size
 *		(ustack_perf_sideband_add_task()); 0: none
 */
struct ustack_perf_source_opts {
	const struct ustack_perf_source_event	*events;
	size_t					nr_events;
	bool					kernel;
	unsigned int				max_stack;
	unsigned int				dwarf_size;
	bool					defer;
	bool					unread;
	unsigned int				exec_copy_size;
};

/* The most processes given stack copies at their exec, at once */
#define USTACK_EXEC_SETS_MAX		64

/**
 * struct ustack_perf_source_stack - a sample's callchain, split by context
 * @user:	user addresses, leaf first (points into the record)
 * @nr_user:	how many
 * @kernel:	kernel addresses, leaf first
 * @nr_kernel:	how many
 * @truncated:	the kernel stopped at the frame limit
 * @cookie:	non-zero: the user part is deferred, it comes in a
 *		USTACK_SB_DEFERRED record with this cookie (@user is NULL)
 */
struct ustack_perf_source_stack {
	const uint64_t	*user;
	unsigned int	nr_user;
	const uint64_t	*kernel;
	unsigned int	nr_kernel;
	bool		truncated;
	uint64_t	cookie;
};

unsigned int ustack_perf_source_max_stack(void);
int ustack_perf_source_open(const struct ustack_perf_source_opts *opts, int pid, int cpu,
			int clockid, int output, int (*add_fd)(void *ctx, int fd), void *ctx);
bool ustack_perf_source_parse(const char *rec, size_t size, struct ustack_sb_rec *out);
struct perf_event_attr;

bool ustack_perf_source_defer_probe(void);
void ustack_perf_source_attr_defer(struct perf_event_attr *attr, bool callchain, bool output);
bool ustack_perf_source_parse_deferred(const char *rec, size_t size, struct ustack_sb_rec *out);
bool ustack_perf_source_deferred_cut(unsigned int nr);
void ustack_perf_source_stack(const struct ustack_sb_rec *rec, unsigned int max_stack,
			  struct ustack_perf_source_stack *out);

#endif /* _USTACK_PERF_SOURCE_H */
