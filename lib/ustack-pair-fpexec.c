// SPDX-License-Identifier: LGPL-2.1
/*
 * Programs without frame pointers executed in a run that walks frame
 * pointers (--call-graph=auto chose the walk at its start, for a traced
 * program that keeps them; or fp forced). The traced command's events
 * follow its children across their execs with the attributes they were
 * opened with, so such a program would be walked by frame pointers too.
 *
 * A process's program is the first executable file mapping it gets after
 * its exec (the kernel maps the program before its interpreter); a child
 * that did not exec runs its parent's. Whether its code keeps frame
 * pointers is ustack-fpcode.c's answer (once per file: build id).
 *
 * Live, on the perf source, with auto: the mapping source opens events of
 * its own for such a process, with stack copies, at the program's mapping
 * (ustack_perf_sideband_add_task(); inherited by the tasks it creates from
 * then on). From then on each of its events comes twice, one sample from
 * each set, one after the other in its CPU's ring, with the same payload:
 * ustack_pair_fpexec_twin() keeps the first and drops the second. Its
 * events before that (the exec to the open: the reader's delay) and any
 * other frame-pointer walk of such a process end in "[unwind: ...]"
 * (fp_end() in ustack-pair.c), counted in the summary, and told once.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ustack-fpcode.h"
#include "ustack-hash.h"
#include "ustack-perf-source.h"
#include "ustack-session-int.h"
#include "ustack-sideband.h"
#include "ustack-tasks.h"
#include "ustack-text.h"
#include "ustack-warn.h"

static void set_exe(struct ustack_task *t, const char *path, enum ustack_task_fp fp)
{
	free(t->exe);
	t->exe = path ? strndup(path, PATH_MAX) : NULL;
	t->exe_fp = t->exe ? fp : USTACK_TASK_FP_UNKNOWN;
	t->exe_new = false;
}

static void exec_comm(struct ustack_session *s, const struct ustack_sb_rec *rec)
{
	struct ustack_task *t = ustack_tasks_get(&s->tasks, rec->pid);

	if (!t)
		return;
	set_exe(t, NULL, USTACK_TASK_FP_UNKNOWN);
	t->exec_pending = true;
}

static void exec_mmap(struct ustack_session *s, const struct ustack_sb_rec *rec)
{
	struct ustack_task *t = ustack_tasks_find(&s->tasks, rec->pid);

	if (!t || !t->exec_pending || !(rec->prot & PROT_EXEC) || !rec->name ||
	    rec->name[0] != '/')
		return;
	t->exec_pending = false;
	set_exe(t, rec->name, USTACK_TASK_FP_UNKNOWN);
	t->exe_new = t->exe != NULL;
}

/* A new process runs its parent's program until it executes another */
static void exec_fork(struct ustack_session *s, const struct ustack_sb_rec *rec)
{
	struct ustack_task *parent, *child;

	if (rec->pid == rec->ppid)
		return;
	parent = ustack_tasks_find(&s->tasks, rec->ppid);
	if (!parent || !parent->exe)
		return;
	child = ustack_tasks_get(&s->tasks, rec->pid);
	if (child && !child->exe && !child->exec_pending)
		set_exe(child, parent->exe, parent->exe_fp);
}

/**
 * ustack_pair_fpexec_sideband - what a side-band record says of a process's program
 * @s:		the session
 * @rec:	the record: an exec, a mapping, a fork
 */
void ustack_pair_fpexec_sideband(struct ustack_session *s, const struct ustack_sb_rec *rec)
{
	if (!s->opts.fp_check || rec->pid <= 0)
		return;
	if (rec->kind == USTACK_SB_COMM && rec->exec)
		exec_comm(s, rec);
	else if (rec->kind == USTACK_SB_MMAP)
		exec_mmap(s, rec);
	else if (rec->kind == USTACK_SB_FORK)
		exec_fork(s, rec);
}

/* The first walked stack of a process whose program keeps no frame pointers */
static void tell(struct ustack_session *s, const struct ustack_task *t, int tgid)
{
	char *path;

	if (s->fpexec_told || s->opts.quiet)
		return;
	s->fpexec_told = true;
	path = ustack_text_dup(t->exe, USTACK_TEXT_TERM);
	if (s->fpexec_copies)
		ustack_warning("%s (pid %d) has no frame pointers: its events before its "
			       "stack copies began end in \"[unwind: ...]\" (unwind stopped, "
			       "in the summary)", path ? path : "a program", tgid);
	else
		ustack_warning("%s (pid %d) has no frame pointers, and its stacks are "
			       "frame-pointer walks here: they end in \"[unwind: ...]\" "
			       "(unwind stopped, in the summary); --call-graph=dwarf "
			       "unwinds every process with its CFI",
			       path ? path : "a program", tgid);
	free(path);
}

static bool verdict_no_fp(struct ustack_task *t)
{
	struct ustack_fpcode code;

	if (t->exe_fp == USTACK_TASK_FP_UNKNOWN) {
		if (ustack_fpcode_check(t->exe, &code) < 0)
			t->exe_fp = USTACK_TASK_FP_UNREADABLE;
		else
			t->exe_fp = code.fp_walk ? USTACK_TASK_FP_KEEPS : USTACK_TASK_FP_NONE;
	}
	return t->exe_fp == USTACK_TASK_FP_NONE;
}

/**
 * ustack_pair_fpexec_no_fp - does @tgid's program keep no frame pointers?
 * @s:		the session
 * @tgid:	the process of a frame-pointer walk
 *
 * False where it is not known (no exec seen: a program that started
 * traced decided the run's unwinding; a file that cannot be read). The
 * first true is told once.
 */
bool ustack_pair_fpexec_no_fp(struct ustack_session *s, int tgid)
{
	struct ustack_task *t = tgid > 0 ? ustack_tasks_find(&s->tasks, tgid) : NULL;

	if (!t || !t->exe || !verdict_no_fp(t))
		return false;
	tell(s, t, tgid);
	return true;
}

/**
 * ustack_pair_fpexec_exec - should @pid get stack copies now?
 * @s:		the session, which was just given the side-band record of
 *		a mapping of @pid
 * @pid:	its process
 *
 * True once, at the mapping of the program it executed, when that keeps
 * no frame pointers and its events are shown.
 */
bool ustack_pair_fpexec_exec(struct ustack_session *s, int pid)
{
	struct ustack_task *t = pid > 0 ? ustack_tasks_find(&s->tasks, pid) : NULL;

	if (!t || !t->exe_new)
		return false;
	t->exe_new = false;
	return !ustack_tasks_skip(&s->tasks, pid) && verdict_no_fp(t);
}

/* The first process given copies (the summary counts the others) */
static void tell_copies(struct ustack_session *s, int pid)
{
	struct ustack_task *t = ustack_tasks_find(&s->tasks, pid);
	char *path;

	if (s->opts.quiet)
		return;
	path = t && t->exe ? ustack_text_dup(t->exe, USTACK_TEXT_TERM) : NULL;
	ustack_warning("%s (pid %d) has no frame pointers: its events (and its new "
		       "children's) come with stack copies unwound with the files' CFI "
		       "from now on", path ? path : "a program", pid);
	free(path);
}

/**
 * ustack_pair_fpexec_copies - what became of a program without frame pointers
 * @s:		the session
 * @pid:	its process (USTACK_EXEC_COPIES_ON: none)
 * @what:	the run gives such programs copies; @pid got them; or not
 */
void ustack_pair_fpexec_copies(struct ustack_session *s, int pid, enum ustack_exec_copies what)
{
	switch (what) {
	case USTACK_EXEC_COPIES_ON:
		s->fpexec_copies = true;
		break;
	case USTACK_EXEC_COPIES_OPENED:
		s->fpexec_twins = true;
		if (!s->stats.exec_copies++)
			tell_copies(s, pid);
		break;
	case USTACK_EXEC_COPIES_CAPPED:
		s->stats.exec_capped++;
		if (s->fpexec_capped_told)
			break;
		s->fpexec_capped_told = true;
		ustack_warning("%d processes have stack copies of their own: pid %d, and "
			       "any other program without frame pointers executed while "
			       "they live, keeps the frame-pointer walk (counted in the "
			       "summary)", USTACK_EXEC_SETS_MAX, pid);
		break;
	case USTACK_EXEC_COPIES_FAILED:
		s->stats.exec_failed++;
		break;
	}
}

/**
 * ustack_pair_fpexec_twin - is this perf sample the second of a pair?
 * @s:		the session, some of whose processes got stack copies
 * @sb:		the sample
 *
 * One tracepoint hit in a process with events of both sets writes two
 * samples, one after the other on its CPU, the same payload, one with a
 * stack copy and one without: the second of such a pair is dropped,
 * whichever set the kernel wrote first. A hit the second set did not
 * see yet has no twin, and is kept.
 */
bool ustack_pair_fpexec_twin(struct ustack_session *s, const struct ustack_sb_rec *sb)
{
	struct ustack_task *t = sb->tid > 0 ? ustack_tasks_get(&s->tasks, sb->tid) : NULL;
	unsigned char kind = sb->stack ? 2 : 1;
	uint64_t hash;

	if (!t)
		return false;
	hash = ustack_hash_mem(sb->raw, sb->raw_size, sb->raw_size);
	if (t->twin_kind && t->twin_kind != kind && t->twin_cpu == sb->cpu &&
	    t->twin_hash == hash) {
		t->twin_kind = 0;
		return true;
	}
	t->twin_kind = kind;
	t->twin_cpu = sb->cpu;
	t->twin_hash = hash;
	return false;
}
