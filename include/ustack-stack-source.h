/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The stack source: where a run's user stacks come from, chosen once
 * (ustack_stack_source_choose()) and then only asked. Three today:
 *
 *   tracefs-deferred	options/userstacktrace_delay of a patched kernel:
 *			whole stacks, written when the task returns to user
 *			space; frames name their files by id
 *   perf		each traced tracepoint a perf event whose samples
 *			carry the user callchain (ustack-perf-source.h), as deep
 *			as kernel.perf_event_max_stack; the default on stock
 *			kernels
 *   userstacktrace	tracefs' synchronous option, 8 frames at most; where
 *			perf refuses the events
 *
 * Each decides when it opens how its stacks are unwound, from what
 * --call-graph asks (struct ustack_stack_caps: the run reads only that),
 * or refuses with an error code (ustack_stack_source_strerror()), and
 * chooses its mapping source when it starts (ustack-map-source.h).
 * Documentation/architecture.md says where a new source plugs in.
 */
#ifndef _USTACK_STACKSRC_H
#define _USTACK_STACKSRC_H

#include <stdbool.h>
#include <stddef.h>

#include "ustack-map-source.h"

struct ustack_events;
struct ustack_instance;
struct ustack_map_source;
struct ustack_perf_source_event;
struct ustack_session;
struct ustack_stack_source;

/* Where stacks come from (--stack-source); AUTO: the first that works */
enum ustack_source {
	USTACK_SOURCE_AUTO,
	USTACK_SOURCE_DEFERRED,		/* tracefs userstacktrace_delay (patched kernel) */
	USTACK_SOURCE_PERF,		/* perf tracepoint events with callchains */
	USTACK_SOURCE_USERSTACKTRACE,	/* tracefs userstacktrace: 8 frames */
};

/**
 * enum ustack_unwind_mode - how a source's user stacks are walked
 * @USTACK_UNWIND_FP:	the kernel follows the frame pointers
 * @USTACK_UNWIND_COPY:	the kernel copies the user registers and the top
 *			of the stack, unwound here with the files' CFI
 *			(--call-graph=dwarf; ustack-unwind.h)
 * @USTACK_UNWIND_AUTO:	asked only (env.unwind, --call-graph=auto): FP
 *			where the code of the programs traced keeps frame
 *			pointers, else COPY (ustack-fpcode.h); where the
 *			source takes no copies, FP
 */
enum ustack_unwind_mode {
	USTACK_UNWIND_FP,
	USTACK_UNWIND_COPY,
	USTACK_UNWIND_AUTO,
};

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
 * @unwind:	how its user stacks are walked, decided when it opens from
 *		what env.unwind asked: USTACK_UNWIND_COPY, the stacks come as
 *		copies the run's unwinder walks (the perf source, or the
 *		deferred one where the kernel copies, patch 14). A source
 *		that gives way when it starts (no side-band to map the
 *		copies, perf refused) says USTACK_UNWIND_FP from then on
 * @copy_size:	USTACK_UNWIND_COPY: bytes of user stack in each copy
 */
struct ustack_stack_caps {
	bool			deferred;
	bool			samples;
	bool			sideband;
	unsigned int		max_depth;
	enum ustack_unwind_mode	unwind;
	unsigned int		copy_size;
};

/**
 * struct ustack_stack_env - what a stack source is chosen and opened for
 * @ui:		the instance
 * @want:	the source asked for, or USTACK_SOURCE_AUTO
 * @clock_given: the user chose the trace clock
 * @kernel:	kernel stacks are wanted too
 * @max_stack:	frames asked for at most (0: the kernel's most)
 * @unwind:	the unwinding asked for (--call-graph); the source decides
 *		in its open (caps.unwind) or refuses
 * @copy_size:	USTACK_UNWIND_COPY: bytes of user stack to copy with the
 *		user registers at each stack
 * @programs:	USTACK_UNWIND_AUTO: the files of the programs that start
 *		traced (the command's, or each -p process's), NULL-ended;
 *		NULL or none: every process (copies)
 * @held:	the traced tasks are held until ustack_stack_source_release()
 *		(a launched command, before its exec): nothing the run wants
 *		a stack of happens before it
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
	enum ustack_unwind_mode	unwind;
	unsigned int		copy_size;
	const char *const	*programs;
	bool			held;
	void			(*enable_events)(void *ctx);
	void			*ctx;
};

/**
 * struct ustack_stack_feed - what a started stack source feeds
 * @maps:	what it and its mapping source feed (@maps.sideband_file
 *		only with caps.sideband)
 * @sampled:	caps.samples: the traced events, by id
 * @nr_sampled:	entries in @sampled
 */
struct ustack_stack_feed {
	struct ustack_map_feed			maps;
	const struct ustack_perf_source_event	*sampled;
	size_t					nr_sampled;
};

int ustack_stack_source_choose(const struct ustack_stack_env *env,
			       struct ustack_stack_source **out);
const char *ustack_stack_source_name(enum ustack_source id);
const struct ustack_stack_caps *ustack_stack_source_caps(const struct ustack_stack_source *ss);
int ustack_stack_source_open(struct ustack_stack_source *ss);
int ustack_stack_source_start(struct ustack_stack_source *ss,
			      const struct ustack_stack_feed *feed);
bool ustack_stack_source_usage_error(int err);
const char *ustack_stack_source_strerror(const struct ustack_stack_source *ss, int err,
					 char *buf, size_t size);
struct ustack_map_source *ustack_stack_source_maps(const struct ustack_stack_source *ss);
void ustack_stack_source_enable(struct ustack_stack_source *ss);
void ustack_stack_source_name_mappings(struct ustack_stack_source *ss);
void ustack_stack_source_release(struct ustack_stack_source *ss);
bool ustack_stack_source_sideband_exec(const struct ustack_stack_source *ss);
void ustack_stack_source_notice(const struct ustack_stack_source *ss, char *buf, size_t size);
void ustack_stack_source_free(struct ustack_stack_source *ss);

#endif /* _USTACK_STACKSRC_H */
