/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Core data model of trace-cmd ustack: deferred user stacks read from the
 * ring buffer, paired with the events that asked for them, bound to the
 * files the kernel announced, ready to be symbolized and printed.
 *
 * The kernel side is described in kernel-abi.md (shared design); this
 * header is what every user-space part (live reader, trace.dat reader,
 * output) shares.
 */
#ifndef _USTACK_H
#define _USTACK_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>


struct tep_handle;
struct tep_record;
struct tep_event;

/* ftrace:user_unwind_stack flags */
#define USTACK_STACK_TRUNCATED	(1U << 0)
#define USTACK_STACK_COMPAT	(1U << 1)

/* inode_cache:inode_cache flags */
#define USTACK_MAP_SPECIAL	(1U << 0)
#define USTACK_MAP_DELETED	(1U << 1)
#define USTACK_MAP_PATH_ERR	(1U << 2)

/* Reserved ids of user_unwind_stack.ids[] */
#define USTACK_ID_ANON		0ULL	/* anonymous memory: offset is a VA */
#define USTACK_ID_NOMAP		1ULL	/* no mapping: offset is a VA */

#define USTACK_BUILD_ID_MAX	20

/**
 * struct ustack_mapping - a file the kernel (or a maps snapshot) named
 * @id:		file id as used in user_unwind_stack.ids (opaque)
 * @ts:		timestamp of the announcement (ring-buffer clock)
 * @ino:	inode number (informational)
 * @dev:	device, kernel encoding major << 20 | minor (informational)
 * @tgid:	process whose mapping caused the announcement
 * @flags:	USTACK_MAP_*
 * @build_id_len: bytes used in @build_id (0 = none)
 * @build_id:	GNU build id
 * @path:	path as seen by @tgid (owned by the mapping table)
 */
struct ustack_mapping {
	uint64_t	id;
	uint64_t	ts;
	uint64_t	ino;
	uint32_t	dev;
	uint32_t	tgid;
	uint32_t	flags;
	uint32_t	build_id_len;
	unsigned char	build_id[USTACK_BUILD_ID_MAX];
	char		*path;
};

/**
 * struct ustack_frame - one user frame, leaf first in a stack
 * @offset:	file offset into @map, or a virtual address when @map is NULL
 * @id:		id from the stack event (USTACK_ID_ANON, USTACK_ID_NOMAP or a
 *		file id)
 * @map:	the mapping @id was bound to, NULL when anonymous, unmapped
 *		or not announced (then the frame is unresolved)
 */
struct ustack_frame {
	uint64_t			offset;
	uint64_t			id;
	const struct ustack_mapping	*map;
};

enum ustack_sample_status {
	USTACK_SAMPLE_OK,		/* a user stack answered the cookie */
	USTACK_SAMPLE_NO_STACK,		/* cookie 0: the kernel could not ask */
	USTACK_SAMPLE_LOST,		/* no stack by the end of the data */
	USTACK_SAMPLE_NO_COOKIE,	/* event without cookie (kernel thread) */
	USTACK_SAMPLE_SYNC,		/* fallback: synchronous ftrace:user_stack */
};

/**
 * struct ustack_sample - one traced event with its user (and kernel) stack
 * @ts:		timestamp of the event
 * @cpu:	CPU buffer of the event
 * @pid:	common_pid of the event
 * @tgid:	thread group, when known (0 otherwise)
 * @comm:	task name, when known
 * @event:	the event's format (system/name/print fmt)
 * @record:	the event itself, valid only during the callback
 * @cookie:	deferred-unwind cookie (0 when none)
 * @status:	whether @frames is meaningful
 * @stack_flags: USTACK_STACK_* of the answering stack event
 * @nr_frames:	number of user frames
 * @frames:	user frames, leaf first
 * @nr_kframes:	number of kernel frames (ftrace:kernel_stack), 0 if none
 * @kframes:	kernel addresses, leaf first
 * @frame_how:	unwound from a stack copy (--call-graph=dwarf): how each
 *		frame was found (enum ustack_unwind_how); NULL otherwise
 * @unwind_end:	unwound: 0 when the walk reached the outermost frame, else
 *		why it stopped (a negative code of lib/ustack-err.h)
 * @abi:	the task's ABI as the files of its stack say (i386 for a
 *		32-bit one); USTACK_SYSCALL_ABI_UNKNOWN when none does
 */
struct ustack_sample {
	uint64_t			ts;
	int				cpu;
	int				pid;
	int				tgid;
	const char			*comm;
	struct tep_event		*event;
	struct tep_record		*record;
	uint64_t			cookie;
	enum ustack_sample_status	status;
	uint32_t			stack_flags;
	unsigned int			nr_frames;
	const struct ustack_frame	*frames;
	unsigned int			nr_kframes;
	const uint64_t			*kframes;
	const uint8_t			*frame_how;
	int				unwind_end;
	int				abi;	/* enum ustack_syscall_abi (ustack-syscalls.h) */
};

/*
 * A CPU's loss, as a reader tells it (struct ustack_stream_ops.lost,
 * ustack_tracedat_lost_fn, ustack_session_add_lost()): records of the CPU
 * may be dropped from here to the next loss told, which counts them
 * (lib/ustack-dropped.c)
 */
#define USTACK_DROPS_BEGIN	(-0x7fffffffffffffffLL - 1)	/* LLONG_MIN */

/**
 * struct ustack_rb_stats - a ring buffer's counters, as the kernel keeps them
 * @entries:	records in the buffer, not read yet
 * @lost:	records lost (overrun + dropped events) since the instance was opened
 * @dropped:	of those, the records a full buffer dropped (not in overwrite mode)
 * @read:	records a reader took out since then
 */
struct ustack_rb_stats {
	unsigned long long	entries;
	unsigned long long	lost;
	unsigned long long	dropped;
	unsigned long long	read;
};

/**
 * struct ustack_sample_tally - what a recorder wrote of the perf source
 *	without reading it (ustack_map_source_tally())
 * @samples:	samples: the traced events, each with its stack or cookie
 * @stacks:	deferred user stacks (PERF_RECORD_CALLCHAIN_DEFERRED)
 * @truncated:	samples and stacks the kernel or the frame limit cut
 * @sideband:	the other side-band records (mappings, names, tasks)
 * @lost:	records the kernel dropped, full rings (its LOST records)
 * @sb_malformed: side-band records that did not parse (kept in the file as
 *		such: report counts them too)
 * @throttled:	times the kernel throttled a perf source's event (its
 *		THROTTLE records: ustack-throttle.h)
 * @throttled_ns: the time those spans lasted
 * @copies_trimmed: stack copies written with the words their unwind read
 * @copies_whole: stack copies written whole (the unwinding worker behind)
 * @copies_repeated: trimmed copies that repeated their thread's last one
 *		where its unwind read: its words kept, not unwound again
 * @worker_ns:	the CPU time of the worker that unwound them
 */
struct ustack_sample_tally {
	unsigned long long	samples;
	unsigned long long	stacks;
	unsigned long long	truncated;
	unsigned long long	sideband;
	unsigned long long	lost;
	unsigned long long	sb_malformed;
	unsigned long long	throttled;
	unsigned long long	throttled_ns;
	unsigned long long	copies_trimmed;
	unsigned long long	copies_whole;
	unsigned long long	copies_repeated;
	unsigned long long	worker_ns;
};

/**
 * enum ustack_unwind_err - why an unwind ended
 * @USTACK_UNWIND_OK:		it reached the outermost frame
 * @USTACK_UNWIND_E_MAX_FRAMES:	the caller's array was full
 * @USTACK_UNWIND_E_NO_REGS:	no IP or SP among the registers
 * @USTACK_UNWIND_E_STACK_SIZE:	the stack copy ended before the next frame
 * @USTACK_UNWIND_E_MEMORY:	a read outside the copy and the mapped files
 * @USTACK_UNWIND_E_NO_MAP:	an address in no file mapping (JIT, garbage)
 * @USTACK_UNWIND_E_NO_FILE:	the mapped file could not be opened
 * @USTACK_UNWIND_E_NO_CFI:	no CFI for the address, no frame pointer either
 * @USTACK_UNWIND_E_BAD_FRAME:	a step led nowhere (return address 0, the
 *				stack pointer going down)
 * @USTACK_UNWIND_E_LIBDW:	libdw failed otherwise (bad CFI, ...)
 * @USTACK_UNWIND_E_NOMEM:	out of memory
 * @USTACK_UNWIND_E_FP_LEFT:	a frame-pointer walk (the kernel's, of any
 *				source) gave a return address in no
 *				executable mapping: the frames from there
 *				are not the stack's (ustack_pair_bind())
 * @USTACK_UNWIND_E_FP_NOT_CALL: a frame-pointer walk gave a return address
 *				that follows no call instruction
 * @USTACK_UNWIND_E_FP_NO_FP:	a frame-pointer walk of a process whose
 *				program keeps no frame pointers (a run that
 *				chose the walk at its start, then executed
 *				it): only the frames that passed the checks
 *				above are kept, and they may still be wrong
 */
enum ustack_unwind_err {
	USTACK_UNWIND_OK,
	USTACK_UNWIND_E_MAX_FRAMES,
	USTACK_UNWIND_E_NO_REGS,
	USTACK_UNWIND_E_STACK_SIZE,
	USTACK_UNWIND_E_MEMORY,
	USTACK_UNWIND_E_NO_MAP,
	USTACK_UNWIND_E_NO_FILE,
	USTACK_UNWIND_E_NO_CFI,
	USTACK_UNWIND_E_BAD_FRAME,
	USTACK_UNWIND_E_LIBDW,
	USTACK_UNWIND_E_NOMEM,
	USTACK_UNWIND_E_FP_LEFT,
	USTACK_UNWIND_E_FP_NOT_CALL,
	USTACK_UNWIND_E_FP_NO_FP,
	USTACK_UNWIND_E_NR,
};

/**
 * struct ustack_stats - counters shown in the summary
 */
struct ustack_stats {
	uint64_t	events;		/* traced events (not ours) */
	uint64_t	filtered;	/* of them, left out by the filters */
	uint64_t	cookies;	/* user_unwind_cookie events */
	uint64_t	stacks;		/* user_unwind_stack events */
	uint64_t	matched;	/* events that got a user stack */
	uint64_t	lost;		/* cookies never answered */
	uint64_t	no_stack;	/* cookie 0 */
	uint64_t	pending;	/* cookies still waiting (live) */
	uint64_t	truncated;	/* stacks with TRUNCATED */
	uint64_t	unwound;	/* stacks unwound from a copy (CFI) */
	/* unwound stacks that stopped early, by why (the frame limit: truncated) */
	uint64_t	unwind_stopped[USTACK_UNWIND_E_NR];
	uint64_t	mappings;	/* inode_cache events */
	uint64_t	frames;		/* user frames delivered */
	uint64_t	unresolved;	/* frames shown unresolved */
	uint64_t	rb_lost;	/* events lost in the ring buffer */
	uint64_t	rb_lost_unknown; /* losses of unknown size (counted as 1) */
	uint64_t	no_cookie;	/* events that never got a cookie */
	uint64_t	sync;		/* synchronous stacks: userstacktrace or perf */
	uint64_t	perf;		/* of those, from the perf stack source */
	uint64_t	unmatched;	/* stacks that answered no cookie */
	uint64_t	orphans;	/* cookies with no event before them */
	uint64_t	evicted;	/* cookies given up early (memory bound) */
	uint64_t	sideband;	/* side-band records (mappings, names, tasks) */
	uint64_t	sideband_lost;	/* side-band records the kernel dropped */
	uint64_t	copies_capped;	/* stack copies cut to fit a sub-buffer */
	uint64_t	sb_malformed;	/* side-band records of a file not readable */
	uint64_t	sb_unseen_repeat; /* same=1 samples whose first was not read */
	uint64_t	throttled;	/* times the kernel throttled a perf event */
	uint64_t	throttled_ns;	/* ... for this long (ustack-throttle.h) */
	uint64_t	exec_copies;	/* processes given stack copies at their exec */
	uint64_t	exec_capped;	/* ... not, USTACK_EXEC_SETS_MAX were open */
	uint64_t	exec_failed;	/* ... not, perf refused */
};

#endif /* _USTACK_H */
