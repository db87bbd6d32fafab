// SPDX-License-Identifier: LGPL-2.1
/*
 * The tasks a session has seen (see ustack-tasks.h).
 *
 * Live, a task is learned from /proc the first time one of its records
 * is fed: its name (for libtraceevent, which prints it) and its thread
 * group. task_newtask knows better than /proc, which may already show a
 * reused pid, so a thread group it gave is kept.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack-proc.h"
#include "ustack-tasks.h"

void ustack_tasks_init(struct ustack_tasks *t, struct tep_handle *tep, bool live)
{
	memset(t, 0, sizeof(*t));
	t->tep = tep;
	t->live = live;
}

/*
 * The session drops its references (@last) first, and the history and
 * the snapshots free their parts of each task.
 */
void ustack_tasks_release(struct ustack_tasks *t)
{
	struct ustack_hnode *pos, *tmp;
	struct ustack_task *task;
	size_t i;

	ustack_hash_table_for_each_safe(&t->table, i, pos, tmp) {
		task = ustack_hash_table_entry(pos, struct ustack_task, node);
		free(task->exe);
		free(task);
	}
	ustack_hash_table_release(&t->table);
	t->found = NULL;
}

struct ustack_task *ustack_tasks_find(struct ustack_tasks *t, int pid)
{
	struct ustack_hnode *pos;
	struct ustack_task *task;

	if (t->found && t->found->pid == pid)
		return t->found;
	ustack_hash_table_for_each_hash(&t->table, pos, ustack_hash_u64(pid)) {
		task = ustack_hash_table_entry(pos, struct ustack_task, node);
		if (task->pid == pid) {
			t->found = task;
			return task;
		}
	}
	return NULL;
}

/* The task of @pid, made when new; NULL when out of memory. */
struct ustack_task *ustack_tasks_get(struct ustack_tasks *t, int pid)
{
	struct ustack_task *task = ustack_tasks_find(t, pid);

	if (task)
		return task;
	task = calloc(1, sizeof(*task));
	if (!task)
		return NULL;
	task->pid = pid;
	ustack_list_init(&task->waiting);
	if (ustack_hash_table_add(&t->table, &task->node, ustack_hash_u64(pid))) {
		free(task);
		return NULL;
	}
	return task;
}

int ustack_tasks_tgid(struct ustack_tasks *t, int pid)
{
	const struct ustack_task *task = ustack_tasks_find(t, pid);

	return task ? task->tgid : 0;
}

void ustack_tasks_set_tgid(struct ustack_tasks *t, int pid, int tgid)
{
	struct ustack_task *task = ustack_tasks_get(t, pid);

	if (task)
		task->tgid = tgid;
}

/**
 * ustack_tasks_learn - read what /proc says about a task, once (live only)
 * @t:		the tasks
 * @pid:	the task
 *
 * Its name goes to libtraceevent; its thread group is kept unless
 * task_newtask gave one. A task already gone stays unknown.
 */
void ustack_tasks_learn(struct ustack_tasks *t, int pid)
{
	struct ustack_task *task;
	char comm[64];

	if (!t->live || pid <= 0)
		return;
	task = ustack_tasks_get(t, pid);
	if (!task || task->learned)
		return;
	task->learned = true;
	/* Over what saved_cmdlines said: that may be an older task of the pid */
	if (!ustack_proc_comm(pid, comm, sizeof(comm)))
		tep_override_comm(t->tep, comm, pid);
	if (task->tgid <= 0)
		task->tgid = ustack_proc_tgid(pid);
}

/**
 * ustack_tasks_newtask - a task was created (task:task_newtask)
 * @t:		the tasks
 * @parent:	the task that made it
 * @pid:	the new task
 * @thread:	it joins @parent's thread group (CLONE_THREAD)
 */
void ustack_tasks_newtask(struct ustack_tasks *t, int parent, int pid, bool thread)
{
	int tgid = pid;

	if (thread) {
		ustack_tasks_learn(t, parent);
		tgid = ustack_tasks_tgid(t, parent);
	}
	if (pid > 0 && tgid > 0)
		ustack_tasks_set_tgid(t, pid, tgid);
}

static bool followed(struct ustack_tasks *t, int tgid)
{
	const struct ustack_task *leader = ustack_tasks_find(t, tgid);

	return leader && leader->followed;
}

/**
 * ustack_tasks_follow - keep the events of a thread group
 * @t:		the tasks
 * @tgid:	the thread group
 *
 * Once any group is followed, events of tasks known to be in another one
 * are skipped. Returns 0, or -1 when out of memory.
 */
int ustack_tasks_follow(struct ustack_tasks *t, int tgid)
{
	struct ustack_task *leader = ustack_tasks_get(t, tgid);

	if (!leader)
		return -1;
	if (!leader->followed)
		t->nr_followed++;
	leader->followed = true;
	return 0;
}

/**
 * ustack_tasks_skip - whether the events of a task are left out
 * @t:		the tasks
 * @pid:	the task
 *
 * True when groups are followed and @pid is known to be in none of them.
 * The kernel follows new threads only together with new processes
 * (options/event-fork), so without -c child processes are left out here.
 */
bool ustack_tasks_skip(struct ustack_tasks *t, int pid)
{
	const struct ustack_task *task;

	if (pid > 0 && pid == t->until_exec)
		return true;
	if (!t->nr_followed || pid <= 0)
		return false;
	task = ustack_tasks_find(t, pid);
	return task && task->tgid > 0 && !followed(t, task->tgid);
}
