/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A look at the tasks RCU Tasks keeps on its exit lists: tasks late in
 * do_exit() that may have left the task list already and can still be
 * preempted.  For code that proves something about every task by visiting
 * each one (arm64's ftrace_callers_quiet.c), as RCU Tasks itself does.
 * Implemented in kernel/rcu/tasks.h.
 */
#ifndef _LINUX_RCU_TASKS_EXITING_H
#define _LINUX_RCU_TASKS_EXITING_H

struct task_struct;

int rcu_tasks_exiting_each(int (*fn)(struct task_struct *t, void *arg),
			   void *arg);

#endif /* _LINUX_RCU_TASKS_EXITING_H */
