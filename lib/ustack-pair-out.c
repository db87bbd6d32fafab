// SPDX-License-Identifier: LGPL-2.1
/*
 * A complete sample goes out of the session: its frames and flags set
 * from its stack, counted in the stats, then through the filters (pids,
 * comms, then ustack-filter.c: events, threads, files, times) to the
 * caller's function. The pairing core (ustack-pair.c) calls it, in the
 * order it chose; nothing here calls back into the core or the session
 * file, so the session's files call one way only.
 */
#include <stdbool.h>
#include <string.h>

#include "ustack-filter.h"
#include "ustack-session-opts.h"
#include "ustack-session-int.h"
#include "ustack-syscalls.h"
#include "ustack-tasks.h"

static unsigned int count_unresolved(const struct ustack_frame *frames, unsigned int nr)
{
	unsigned int i, n = 0;

	for (i = 0; i < nr; i++)
		if (!frames[i].map)
			n++;
	return n;
}

/* @st: the sample's stack, or NULL; a final one's frames no longer change */
static void count_sample(struct ustack_session *s, const struct ustack_sample *pub,
			 struct ustk *st)
{
	switch (pub->status) {
	case USTACK_SAMPLE_OK:
		s->stats.matched++;
		break;
	case USTACK_SAMPLE_NO_STACK:
		s->stats.no_stack++;
		break;
	case USTACK_SAMPLE_LOST:
		s->stats.lost++;
		break;
	case USTACK_SAMPLE_NO_COOKIE:
		s->stats.no_cookie++;
		break;
	case USTACK_SAMPLE_SYNC:
		s->stats.sync++;
		break;
	}
	s->stats.frames += pub->nr_frames;
	if (!st || st->state != USTK_FINAL || pub->frames != st->frames) {
		s->stats.unresolved += count_unresolved(pub->frames, pub->nr_frames);
		return;
	}
	if (!st->counted) {
		st->unresolved = count_unresolved(st->frames, st->nr);
		st->counted = true;
	}
	s->stats.unresolved += st->unresolved;
}

static bool pid_listed(const struct ustack_session_opts *opts, int pid, int tgid)
{
	size_t i;

	for (i = 0; i < opts->nr_pids; i++)
		if (opts->pids[i] == pid || (tgid && opts->pids[i] == tgid))
			return true;
	return false;
}

static bool comm_listed(const struct ustack_session_opts *opts, const char *comm)
{
	size_t i;

	if (!comm)
		return false;
	for (i = 0; i < opts->nr_comms; i++)
		if (!strcmp(opts->comms[i], comm))
			return true;
	return false;
}

/*
 * The pid and comm filters, then the others of opts.filter (events,
 * threads, files, times): by the time a sample goes out, its group is
 * known and its frames are bound to their files.
 */
static bool sample_wanted(const struct ustack_session *s, const struct ustack_sample *pub)
{
	const struct ustack_session_opts *opts = &s->opts;

	if (opts->nr_pids && !pid_listed(opts, pub->pid, pub->tgid))
		return false;
	if (opts->nr_comms && !comm_listed(opts, pub->comm))
		return false;
	return ustack_filter_match(opts->filter, pub, s->first_event_ts);
}

/* Frames whose files are asked for the task's ABI, at most */
#define ABI_FRAMES	8

/* The ABI the first file of @st's frames that answers says; @at: its frame */
static enum ustack_syscall_abi frames_abi(struct ustack_session *s, const struct ustk *st,
					  unsigned int *at)
{
	enum ustack_syscall_abi abi;
	const struct ustack_mapping *map;
	unsigned int i, asked = 0;

	for (i = 0; i < st->nr && asked < ABI_FRAMES; i++) {
		map = st->frames[i].map;
		if (!map || (map->flags & USTACK_MAP_SPECIAL))
			continue;
		abi = ustack_syscalls_file_abi(s->syscalls, map->path);
		if (abi != USTACK_SYSCALL_ABI_UNKNOWN) {
			*at = i;
			return abi;
		}
		asked++;
	}
	*at = 0;
	return USTACK_SYSCALL_ABI_UNKNOWN;
}

/**
 * ustack_pair_out_abi - the ABI of a task, from the files of its stack
 * @s:		the session (its cache of the files' ABIs)
 * @st:		a stack, bound to its files
 *
 * Every file a process maps is of its ABI, so the first one that answers
 * decides (a special mapping, [vdso], has no file to ask). Without one
 * (no stack, no known mapping, files gone) it stays unknown. What
 * depends on it: the name of a system call's number, the image of [vdso]
 * (ustack-render.c, the frame-pointer check of ustack-pair.c). Asked once
 * a stack, when first needed: the check needs it only at a special
 * frame, every sample handed out with the stack needs it.
 */
enum ustack_syscall_abi ustack_pair_out_abi(struct ustack_session *s, struct ustk *st)
{
	if (!st->abi_asked) {
		st->abi = frames_abi(s, st, &st->abi_at);
		st->abi_asked = true;
	}
	/* its frame cut off since (the check): the frames left say none */
	return st->abi_at < st->nr ? st->abi : USTACK_SYSCALL_ABI_UNKNOWN;
}

/*
 * A system call's number means another call to a 32-bit task (i386's 64
 * is getppid, x86-64's semget): its ABI says which table names it. An
 * unknown one keeps the native name the sample got at the event.
 */
static void syscall_abi(struct ustack_session *s, struct ustack_sample *pub)
{
	const struct tep_event *raw = ustack_syscalls_origin(pub->event);

	if (!raw || !pub->record)
		return;
	if (pub->abi != USTACK_SYSCALL_ABI_UNKNOWN && pub->abi != USTACK_SYSCALL_ABI_NATIVE)
		pub->event = ustack_syscalls_event(s->syscalls, (struct tep_event *)raw,
						   pub->record, pub->abi);
}

/**
 * ustack_pair_out_deliver - a complete sample, counted, to the caller if
 *	the filters let it through
 * @s:		the session
 * @smp:	the sample (the caller frees it)
 *
 * Counted whether or not the filters let it through; after the session's
 * first failure nothing goes out.
 */
void ustack_pair_out_deliver(struct ustack_session *s, struct usample *smp)
{
	struct ustack_sample *pub = &smp->pub;
	struct ustk *st = smp->st;

	/* the thread group may have been learnt after the event */
	if (!pub->tgid)
		pub->tgid = ustack_tasks_tgid(&s->tasks, pub->pid);
	if (st && (pub->status == USTACK_SAMPLE_OK || pub->status == USTACK_SAMPLE_SYNC)) {
		pub->nr_frames = st->nr;
		pub->frames = st->frames;
		pub->stack_flags = st->flags;
		pub->frame_how = st->how;
		pub->unwind_end = st->unwind_end;
		pub->abi = ustack_pair_out_abi(s, st);
		syscall_abi(s, pub);
	}
	count_sample(s, pub, st);
	/* after a failure the samples may lack what was not kept: none goes out */
	if (!s->fn || s->opts.count_only || s->err)
		return;
	if (sample_wanted(s, pub))
		s->fn(pub, s->ctx);
	else
		s->stats.filtered++;
}
