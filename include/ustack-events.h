/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Our records in a ring buffer or trace.dat: which record is what
 * (classification), and what it says (decoders). The only place that
 * knows event ids and field names; the session and the command share it.
 */
#ifndef _USTACK_EVENTS_H
#define _USTACK_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ustack.h"

struct tep_handle;
struct tep_record;
struct ustack_events;

/* Which of our events the formats have (ustack_events_have()) */
#define USTACK_HAVE_COOKIE	(1U << 0)	/* ftrace:user_unwind_cookie */
#define USTACK_HAVE_STACK	(1U << 1)	/* ftrace:user_unwind_stack */
#define USTACK_HAVE_INODE	(1U << 2)	/* inode_cache:inode_cache */
#define USTACK_HAVE_KSTACK	(1U << 3)	/* ftrace:kernel_stack */
#define USTACK_HAVE_USTACK	(1U << 4)	/* ftrace:user_stack (fallback) */
#define USTACK_HAVE_COPY	(1U << 5)	/* ftrace:user_unwind_copy */

/*
 * Events a capture enables for itself, not because the user asked: they
 * and what the kernel attaches to them are never shown.
 */
#define USTACK_HELPER_EXEC	(1U << 0)	/* sched:sched_process_exec */
#define USTACK_HELPER_NEWTASK	(1U << 1)	/* task:task_newtask */
#define USTACK_HELPER_RENAME	(1U << 2)	/* task:task_rename */

/* trace_marker texts of ours: maps snapshots, and what a capture enabled */
#define USTACK_MAPS_MARKER	"ustack-maps "
#define USTACK_INFO_MARKER	"ustack-info "

/**
 * enum ustack_rec - what a record is
 * @USTACK_REC_EVENT:	a traced event, shown with its stack
 * @USTACK_REC_COOKIE:	ftrace:user_unwind_cookie, right behind its event
 * @USTACK_REC_STACK:	ftrace:user_unwind_stack, the deferred stack
 * @USTACK_REC_INODE:	inode_cache:inode_cache, a file announcement
 * @USTACK_REC_KSTACK:	ftrace:kernel_stack, right behind its event
 * @USTACK_REC_USTACK:	ftrace:user_stack (fallback), right behind its event
 * @USTACK_REC_COPY:	ftrace:user_unwind_copy, a stack copy that answers its
 *			cookie in place of the deferred stack
 * @USTACK_REC_OURS:	a marker or helper event: not shown, and neither is
 *			what the kernel attaches to it
 */
enum ustack_rec {
	USTACK_REC_EVENT,
	USTACK_REC_COOKIE,
	USTACK_REC_STACK,
	USTACK_REC_INODE,
	USTACK_REC_KSTACK,
	USTACK_REC_USTACK,
	USTACK_REC_COPY,
	USTACK_REC_OURS,
};

const char * const *ustack_events_formats(void);
struct ustack_events *ustack_events_new(struct tep_handle *tep);
void ustack_events_free(struct ustack_events *ev);
struct tep_handle *ustack_events_tep(const struct ustack_events *ev);
unsigned int ustack_events_have(const struct ustack_events *ev);
void ustack_events_set_helpers(struct ustack_events *ev, unsigned int helpers);

enum ustack_rec ustack_events_classify(const struct ustack_events *ev,
				       const struct tep_record *rec);
int ustack_events_pid(const struct ustack_events *ev, const struct tep_record *rec);

/* Decoders: each is for one kind of record (or event) only. */
uint64_t ustack_events_cookie(const struct ustack_events *ev, const struct tep_record *rec);

/**
 * struct ustack_stack_rec - a ftrace:user_unwind_stack record
 * @cookie:	the kernel entry it answers
 * @flags:	USTACK_STACK_*
 * @nr:		frames (offsets and ids both have that many)
 */
struct ustack_stack_rec {
	uint64_t	cookie;
	uint32_t	flags;
	unsigned int	nr;
};

void ustack_events_stack(const struct ustack_events *ev, const struct tep_record *rec,
			 struct ustack_stack_rec *out);
void ustack_events_stack_frames(const struct ustack_events *ev, const struct tep_record *rec,
				uint64_t *offsets, uint64_t *ids, unsigned int nr);

/* ftrace:user_unwind_copy flags (Documentation/kernel-abi.md) */
#define USTACK_COPY_CAPPED	(1U << 0)	/* less than the size asked fit */

/* Registers a copy holds at most: one per bit of its mask */
#define USTACK_COPY_REGS_MAX	64

/**
 * struct ustack_copy_rec - a ftrace:user_unwind_copy record
 * @cookie:	the kernel entry (and stack) it goes with
 * @regs_mask:	which user registers @regs holds, perf's numbering
 * @abi:	perf's PERF_SAMPLE_REGS_ABI_* of the task
 * @flags:	USTACK_COPY_*
 * @nr_regs:	values in @regs, lowest bit of @regs_mask first
 * @regs:	the values, in this machine's byte order
 * @stack:	the copy of the user stack from the stack pointer up (points
 *		into the record)
 * @stack_size:	bytes in @stack
 */
struct ustack_copy_rec {
	uint64_t	cookie;
	uint64_t	regs_mask;
	uint32_t	abi;
	uint32_t	flags;
	unsigned int	nr_regs;
	uint64_t	regs[USTACK_COPY_REGS_MAX];
	const void	*stack;
	uint32_t	stack_size;
};

bool ustack_events_copy(const struct ustack_events *ev, const struct tep_record *rec,
			struct ustack_copy_rec *out);

int ustack_events_inode(const struct ustack_events *ev, const struct tep_record *rec,
			struct ustack_mapping *out);

/* Stack traces: with @addrs NULL, how many addresses there are. */
unsigned int ustack_events_kstack(const struct ustack_events *ev, const struct tep_record *rec,
				  uint64_t *addrs, unsigned int max);

int ustack_events_ustack_tgid(const struct ustack_events *ev, const struct tep_record *rec);
unsigned int ustack_events_ustack(const struct ustack_events *ev, const struct tep_record *rec,
				  uint64_t *addrs, unsigned int max);
bool ustack_events_ustack_full(const struct ustack_events *ev, const struct tep_record *rec);

const char *ustack_events_print_text(const struct ustack_events *ev,
				     const struct tep_record *rec);
int ustack_events_exec_pid(const struct ustack_events *ev, const struct tep_record *rec);
bool ustack_events_newtask(const struct ustack_events *ev, const struct tep_record *rec,
			   int *pid, bool *thread);
const char *ustack_events_task_comm(const struct ustack_events *ev, const struct tep_record *rec,
				    int *pid, char *comm, size_t size);
int ustack_events_sample(const struct ustack_events *ev, const struct tep_record *rec);
const char *ustack_events_sideband_text(const struct ustack_events *ev,
					const struct tep_record *rec);

bool ustack_events_record_fits(struct tep_handle *tep, const struct tep_event *event,
			       const struct tep_record *rec);

/* The info marker a capture writes, and the helpers it names */
int ustack_events_info_text(char *buf, size_t size, bool deferred, unsigned int helpers,
			    int until_exec, unsigned int max_stack);
unsigned int ustack_events_info_max_stack(const char *text);
int ustack_events_info_until_exec(const char *text);
unsigned int ustack_events_info_helpers(const char *text);
bool ustack_events_info_deferred(const char *text);

#endif /* _USTACK_EVENTS_H */
