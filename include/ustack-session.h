/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * A session pairs events, cookies, deferred stacks and file announcements
 * (kernel-abi.md, "Rules for user space") whatever the records come from:
 * the live per-CPU readers or a trace.dat file.
 */
#ifndef _USTACK_SESSION_H
#define _USTACK_SESSION_H

#include "ustack.h"

struct ustack_session;

typedef void (*ustack_sample_fn)(const struct ustack_sample *sample, void *ctx);

/**
 * struct ustack_session_opts - what the session keeps and hands out
 * @hold_ns:	how long (in record timestamps) a complete sample whose ids
 *		are not announced yet is held back waiting for its
 *		inode_cache event from another CPU; 0 = default (100 ms)
 * @want_kernel: collect ftrace:kernel_stack frames into the sample
 */
struct ustack_session_opts {
	uint64_t	hold_ns;
	bool		want_kernel;
	/*
	 * Added (lib/ustack-session.c):
	 * @ordered:	hand samples out in event order (timestamp order of the
	 *		feed) instead of as soon as each is complete; a sample
	 *		then waits for every earlier one
	 * @max_pending: bound on events waiting for their stack; beyond it
	 *		the oldest cookie is given up as lost; 0 = default
	 *		(USTACK_MAX_PENDING_DEFAULT)
	 */
	bool		ordered;
	size_t		max_pending;
};

#define USTACK_HOLD_NS_DEFAULT		100000000ULL
#define USTACK_MAX_PENDING_DEFAULT	(1U << 18)

struct ustack_session *ustack_session_new(struct tep_handle *tep,
					  const struct ustack_session_opts *opts,
					  ustack_sample_fn fn, void *ctx);
void ustack_session_free(struct ustack_session *s);

/*
 * Feed one record; records must come in timestamp order across CPUs.
 * Samples are handed out as soon as complete (or in event order with
 * opts.ordered); every decision depends on record timestamps only, so the
 * same records give the same samples live and from trace.dat. Bounds on
 * waiting cookies and the hold rules: see lib/ustack-session.c.
 */
int ustack_session_feed(struct ustack_session *s, struct tep_record *rec);

/*
 * Account ring-buffer losses reported by the reader (missed events) that do
 * not come through tep_record.missed_events (those are counted by feed).
 * @n == 0: unknown amount, counted as 1. Events still waiting for their
 * cookie on @cpu are reported as "stack lost".
 */
void ustack_session_add_lost(struct ustack_session *s, int cpu, uint64_t n);

/*
 * Fallback path: register a /proc/<pid>/maps snapshot taken at @ts so that
 * synchronous ftrace:user_stack addresses of @tgid can be mapped to files.
 */
int ustack_session_add_maps(struct ustack_session *s, int tgid, uint64_t ts,
			    const char *maps_text);

/* End of data: hand out everything held, pending cookies become lost. */
void ustack_session_flush(struct ustack_session *s);

const struct ustack_stats *ustack_session_stats(struct ustack_session *s);

/*
 * Added (lib/ustack-session.c):
 */

/* Which of our events the tep knows (formats found at ustack_session_new) */
#define USTACK_HAVE_COOKIE	(1U << 0)	/* ftrace:user_unwind_cookie */
#define USTACK_HAVE_STACK	(1U << 1)	/* ftrace:user_unwind_stack */
#define USTACK_HAVE_INODE	(1U << 2)	/* inode_cache:inode_cache */
#define USTACK_HAVE_KSTACK	(1U << 3)	/* ftrace:kernel_stack */
#define USTACK_HAVE_USTACK	(1U << 4)	/* ftrace:user_stack (fallback) */
unsigned int ustack_session_events(const struct ustack_session *s);

/* Tell the session the thread group of @pid (samples carry it as tgid). */
void ustack_session_set_tgid(struct ustack_session *s, int pid, int tgid);

/*
 * The reader saw no record before @ts on any CPU (idle buffers): let held
 * samples whose hold time has passed go out.
 */
void ustack_session_advance(struct ustack_session *s, uint64_t ts);

#endif /* _USTACK_SESSION_H */
