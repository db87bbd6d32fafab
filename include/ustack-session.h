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
};

struct ustack_session *ustack_session_new(struct tep_handle *tep,
					  const struct ustack_session_opts *opts,
					  ustack_sample_fn fn, void *ctx);
void ustack_session_free(struct ustack_session *s);

/* Feed one record; records must come in timestamp order across CPUs. */
int ustack_session_feed(struct ustack_session *s, struct tep_record *rec);

/* Account ring-buffer losses reported by the reader (missed events). */
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

#endif /* _USTACK_SESSION_H */
