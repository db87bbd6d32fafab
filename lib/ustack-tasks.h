/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: the tasks a session has seen, by pid. The one table of
 * what is known about a task: its thread group and name (learned from
 * task_newtask and, live, from /proc), what the session pairs for it,
 * and the parts the other modules keep of it (the history's name and
 * mappings, the /proc snapshots). A process's parts hang on the record
 * of its thread group leader (pid == tgid): one lookup finds them all.
 */
#ifndef _USTACK_TASKS_H
#define _USTACK_TASKS_H

#include <stdbool.h>
#include <stdint.h>

#include "ustack-hash.h"
#include "ustack-list.h"

struct tep_handle;
struct ustack_hist_space;
struct ustack_snap_task;
struct ustk;

/* Whether a process's program keeps frame pointers (ustack-pair-fpexec.c) */
enum ustack_task_fp {
	USTACK_TASK_FP_UNKNOWN,		/* not looked at yet */
	USTACK_TASK_FP_KEEPS,
	USTACK_TASK_FP_NONE,
	USTACK_TASK_FP_UNREADABLE,
};

/**
 * struct ustack_task - one task
 * @node:	in the table, by pid
 * @pid:	the task
 * @tgid:	its thread group, 0 while not known
 * @learned:	/proc was read for it (live), or it is gone
 * @followed:	leader: its thread group's events are kept
 *		(ustack_tasks_follow())
 * @waiting:	the session's cookies of this task waiting for a stack
 * @last:	the session's latest deferred stack of this task (a reference)
 * @comm:	history: its name as the side-band or the task events told
 *		it (interned there), NULL while none was
 * @space:	history, leader: its process's executable mappings now
 * @snaps:	snapshots, leader: its process's /proc maps snapshots
 * @exe:	leader: the program it executed (the side-band's path), NULL
 *		while none was seen
 * @exe_fp:	leader: whether @exe keeps frame pointers
 * @exec_pending: leader: executed, its program not mapped yet
 * @exe_new:	leader: @exe was just mapped (ustack_session_exec_no_fp())
 * @twin_kind:	a perf sample of this task that may have a twin from the
 *		other event set (ustack-pair-fpexec.c): 0 none, 1 walked,
 *		2 with a stack copy
 * @twin_cpu:	its CPU
 * @twin_hash:	its payload's hash
 *
 * Records are never removed: events may come after a task's exit, and
 * the modules free their parts (@space, @snaps) before the table goes.
 */
struct ustack_task {
	struct ustack_hnode		node;
	int				pid;
	int				tgid;
	bool				learned;
	bool				followed;
	struct ustack_list		waiting;
	struct ustk			*last;
	uint64_t			skipped_cookie;
	const char			*comm;
	struct ustack_hist_space	*space;
	struct ustack_snap_task		*snaps;
	char				*exe;
	enum ustack_task_fp		exe_fp;
	bool				exec_pending;
	bool				exe_new;
	unsigned char			twin_kind;
	int				twin_cpu;
	uint64_t			twin_hash;
};

/**
 * struct ustack_tasks - every task seen, and the thread groups followed
 * @table:	struct ustack_task by pid
 * @nr_followed: thread groups whose events are kept (see ustack_tasks_skip())
 * @tep:	where learned names go (tep_register_comm)
 * @live:	tasks run on this machine now: /proc may be read
 * @until_exec:	a task whose events are skipped until its exec, or 0
 */
struct ustack_tasks {
	struct ustack_htable	table;
	/*
	 * The task found last: a traced loop's events are one task's, and
	 * each is looked up several times (a task is freed only with all)
	 */
	struct ustack_task	*found;
	size_t			nr_followed;
	int			until_exec;
	struct tep_handle	*tep;
	bool			live;
};

void ustack_tasks_init(struct ustack_tasks *t, struct tep_handle *tep, bool live);
void ustack_tasks_release(struct ustack_tasks *t);

struct ustack_task *ustack_tasks_find(struct ustack_tasks *t, int pid);
struct ustack_task *ustack_tasks_get(struct ustack_tasks *t, int pid);
int ustack_tasks_tgid(struct ustack_tasks *t, int pid);
void ustack_tasks_set_tgid(struct ustack_tasks *t, int pid, int tgid);

void ustack_tasks_learn(struct ustack_tasks *t, int pid);
void ustack_tasks_newtask(struct ustack_tasks *t, int parent, int pid, bool thread);

int ustack_tasks_follow(struct ustack_tasks *t, int tgid);
bool ustack_tasks_skip(struct ustack_tasks *t, int pid);

#define ustack_tasks_for_each(t, i, pos, tmp) \
	ustack_hash_table_for_each_safe(&(t)->table, i, pos, tmp)

#endif /* _USTACK_TASKS_H */
