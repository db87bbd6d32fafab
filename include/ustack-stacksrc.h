/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The stack source: where a run's user stacks come from, chosen once
 * (ustack_stack_source_choose()) and then only asked. Three today:
 *
 *   tracefs-deferred	options/userstacktrace_delay of a patched kernel:
 *			whole stacks, written when the task returns to user
 *			space; frames name their files by id
 *   perf		each traced tracepoint a perf event whose samples
 *			carry the user callchain (ustack-perfsrc.h), as deep
 *			as kernel.perf_event_max_stack; the default on stock
 *			kernels
 *   userstacktrace	tracefs' synchronous option, 8 frames at most; where
 *			perf refuses the events
 *
 * Each chooses its mapping source when it starts (ustack-mapsrc.h).
 * Documentation/architecture.md says where a new source plugs in.
 */
#ifndef _USTACK_STACKSRC_H
#define _USTACK_STACKSRC_H

#include <stdbool.h>
#include <stddef.h>

struct ustack_events;
struct ustack_instance;
struct ustack_map_source;
struct ustack_perfsrc_event;
struct ustack_session;
struct ustack_stack_source;

/* Where stacks come from (--stack-source); AUTO: the first that works */
enum ustack_source {
	USTACK_SOURCE_AUTO,
	USTACK_SOURCE_DEFERRED,		/* tracefs userstacktrace_delay (patched kernel) */
	USTACK_SOURCE_PERF,		/* perf tracepoint events with callchains */
	USTACK_SOURCE_USERSTACKTRACE,	/* tracefs userstacktrace: 8 frames */
};

/*
 * Returned by ustack_stack_source_choose() and _start() when the source
 * asked for cannot run here (the reason is in their @why); below every
 * -errno and every library code.
 */
#define USTACK_STACKSRC_REFUSED		(-20000)

/**
 * struct ustack_stack_caps - what a stack source promises
 * @deferred:	stacks are taken on the way back to user space, whole
 *		(else synchronously, in the event)
 * @samples:	it samples the traced events itself (else the instance
 *		traces them and writes the stacks into its buffers)
 * @sideband:	its mappings may come from the perf side-band (recording,
 *		it then needs a file for the side-band's records)
 * @max_depth:	frames at most (0: no limit of its own); a deeper stack
 *		comes marked truncated (known once started)
 * @regs:	it adds user registers and a copy of the stack, to be
 *		unwound by CFI (the perf source with --call-graph=dwarf)
 */
struct ustack_stack_caps {
	bool		deferred;
	bool		samples;
	bool		sideband;
	unsigned int	max_depth;
	bool		regs;
};

/**
 * struct ustack_stack_env - what a stack source is chosen and opened for
 * @ui:		the instance
 * @want:	the source asked for, or USTACK_SOURCE_AUTO
 * @clock_given: the user chose the trace clock
 * @kernel:	kernel stacks are wanted too
 * @max_stack:	frames asked for at most (0: the kernel's most)
 * @dwarf_size:	perf source: bytes of user stack copied with the user
 *		registers at each sample, unwound by CFI (--call-graph=dwarf);
 *		0: the kernel's frame-pointer chain
 * @enable_events: enables the traced events in the instance; a source
 *		whose stacks the instance writes calls it when it opens
 * @ctx:	passed to @enable_events
 */
struct ustack_stack_env {
	struct ustack_instance	*ui;
	enum ustack_source	want;
	bool			clock_given;
	bool			kernel;
	unsigned int		max_stack;
	unsigned int		dwarf_size;
	void			(*enable_events)(void *ctx);
	void			*ctx;
};

/**
 * struct ustack_stack_feed - what a started stack source feeds
 * @session:	gets the stacks, mappings and names
 * @events:	our records' decoders
 * @record:	recording a trace.dat
 * @pids:	the processes watched, NULL for every one
 * @nr_pids:	entries in @pids
 * @sideband_file: recording with caps.sideband: an existing temporary
 *		for the side-band's records (removed if none comes), else NULL
 * @sampled:	caps.samples: the traced events, by id
 * @nr_sampled:	entries in @sampled
 */
struct ustack_stack_feed {
	struct ustack_session			*session;
	struct ustack_events			*events;
	bool					record;
	const int				*pids;
	size_t					nr_pids;
	const char				*sideband_file;
	const struct ustack_perfsrc_event	*sampled;
	size_t					nr_sampled;
};

int ustack_stack_source_choose(const struct ustack_stack_env *env,
			       struct ustack_stack_source **out, char *why, size_t why_size);
const char *ustack_stack_source_name(enum ustack_source id);
const struct ustack_stack_caps *ustack_stack_source_caps(const struct ustack_stack_source *ss);
int ustack_stack_source_open(struct ustack_stack_source *ss, char *why, size_t why_size);
int ustack_stack_source_start(struct ustack_stack_source *ss,
			      const struct ustack_stack_feed *feed, char *why, size_t why_size);
struct ustack_map_source *ustack_stack_source_maps(const struct ustack_stack_source *ss);
void ustack_stack_source_enable(struct ustack_stack_source *ss);
void ustack_stack_source_notice(const struct ustack_stack_source *ss, char *buf, size_t size);
void ustack_stack_source_free(struct ustack_stack_source *ss);

#endif /* _USTACK_STACKSRC_H */
