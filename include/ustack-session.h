/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * A session pairs events, cookies, deferred stacks and file announcements
 * (kernel-abi.md, "Rules for user space") whatever the records come from:
 * the live per-CPU readers or a trace.dat file. It also knows the tasks
 * (thread group, name) and decides which samples are shown.
 */
#ifndef _USTACK_SESSION_H
#define _USTACK_SESSION_H

#include "ustack.h"
#include "ustack-session-opts.h"

struct tep_record;
struct ustack_events;
struct ustack_filter;
struct ustack_sb_rec;
struct ustack_session;


struct ustack_session *ustack_session_new(struct ustack_events *ev,
					  const struct ustack_session_opts *opts,
					  ustack_sample_fn fn, void *ctx);
void ustack_session_free(struct ustack_session *s);

/*
 * Feed one record; records must come in timestamp order across CPUs.
 * Samples are handed out as soon as complete (or in event order with
 * opts.ordered); every decision depends on record timestamps only, so the
 * same records give the same samples live and from trace.dat. Bounds on
 * waiting cookies and the hold rules: see lib/ustack-pair.c.
 */
int ustack_session_feed(struct ustack_session *s, struct tep_record *rec);
const char *ustack_session_error(const struct ustack_session *s, char *buf, size_t size);
void ustack_session_preview(struct ustack_session *s, struct tep_record **recs, int nr);

/*
 * The reader saw no record before @ts on any CPU (idle buffers): let held
 * samples whose hold time has passed go out.
 */
void ustack_session_advance(struct ustack_session *s, uint64_t ts);

/*
 * Account ring-buffer losses reported by the reader (missed events) that do
 * not come with a record's tep_record.missed_events (those are counted by
 * feed). @missed as missed_events gives it: 0 or less is an unknown
 * amount, counted as 1. Events still waiting for their cookie on @cpu are
 * reported as "stack lost".
 */
void ustack_session_add_lost(struct ustack_session *s, int cpu, long long missed);

/*
 * Fallback path: register a /proc/<pid>/maps snapshot taken at @ts so that
 * synchronous ftrace:user_stack addresses of @tgid can be mapped to files.
 */
int ustack_session_add_maps(struct ustack_session *s, int tgid, uint64_t ts,
			    const char *maps_text);

/*
 * Fallback path: a side-band record (ustack-sideband.h), in time order
 * with the records fed; from then on its mappings map the stacks. The
 * PROCMAPS option of a recording comes from the same history.
 */
int ustack_session_sideband(struct ustack_session *s, const struct ustack_sb_rec *rec);
char **ustack_session_procmaps(struct ustack_session *s);
void ustack_session_recorded(struct ustack_session *s, int tgid);

/* Tasks: their thread group, the groups shown, /proc before a task goes */
void ustack_session_set_tgid(struct ustack_session *s, int pid, int tgid);
void ustack_session_set_perf_max_stack(struct ustack_session *s, unsigned int max_stack);
struct ustack_unwinder;
void ustack_session_set_unwinder(struct ustack_session *s, struct ustack_unwinder *u);
struct ustack_unwinder *ustack_session_take_unwinder(struct ustack_session *s,
						     unsigned int *max_frames);
/* programs without frame pointers executed in a frame-pointer run */
bool ustack_session_exec_no_fp(struct ustack_session *s, int pid);
void ustack_session_exec_copies(struct ustack_session *s, int pid, enum ustack_exec_copies what);
const uint8_t *ustack_session_stack_used(const struct ustack_session *s,
					 unsigned int *cut);
int ustack_session_follow(struct ustack_session *s, int tgid);
void ustack_session_skip_until_exec(struct ustack_session *s, int pid);
void ustack_session_learn_task(struct ustack_session *s, int pid);

/* End of data: hand out everything held, pending cookies become lost. */
void ustack_session_flush(struct ustack_session *s);

const struct ustack_stats *ustack_session_stats(struct ustack_session *s);

#endif /* _USTACK_SESSION_H */
