// SPDX-License-Identifier: GPL-2.0
/*
 * Function graph: the shadow stacks of tasks.  Every task gets one when
 * the first graph user registers (fg_attach_all()), at fork while a user
 * is registered, and an idle task when its CPU comes up; a task's stack is
 * freed with the task.  A stack outlives the users that pushed frames on
 * it.  Also here: what registration does to every stack (clearing a slot's
 * task var for a new user) and the sched_switch hook that leaves the time
 * a task was switched out from its functions' durations.
 *
 * The stack layout and its invariant are described at the top of fgraph.c;
 * this file only allocates, attaches and frees stacks, and walks their
 * frames from the sched_switch hook.
 *
 * Layer: fgraph.
 *
 * Locking and lifetime: a stack is attached with a release store of
 * task->ret_stack after its state is set (fg_stack_of() pairs with it), so
 * whoever sees the stack sees it empty and valid.  A stack goes to a task
 * that does not run (fork, CPU bring-up), or to a running task that has
 * none and so no frames (the walk of all tasks, under rcu_read_lock(), when
 * the first user registers, under ftrace_lock).  It is freed only with its
 * task.
 */
#include <linux/cpu.h>
#include <linux/ftrace.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/trace_clock.h>

#include "ftrace_user.h"
#include "fgraph_internal.h"
#include "trace.h"
#include "fgraph_frame.h"
#include "fgraph_users.h"

/* How many stacks fg_attach_all() allocates before it hands them out. */
#define FG_POOL_SIZE		32

/* ---- shadow stacks of tasks ------------------------------------------- */

/* Give @t the empty stack @ws; publishing it last makes the state valid. */
static void fg_task_attach(struct task_struct *t, unsigned long *ws)
{
	memset(ws, 0, FGRAPH_ARRAY_SIZE * sizeof(*ws));
	t->curr_ret_stack = fg_state(FGRAPH_FIRST_WORD, 0);
	t->curr_ret_depth = -1;
	t->ftrace_timestamp = 0;
	atomic_set(&t->trace_overrun, 0);
	/* Pairs with fg_stack_of(): whoever sees the stack sees the state. */
	smp_store_release(&t->ret_stack, ws);
}

static unsigned long *fg_stack_alloc(void)
{
	return kmalloc(FGRAPH_STACK_BYTES, GFP_KERNEL);
}

/* Give @t a new stack unless it has one; for a task that does not run. */
static void fg_task_give(struct task_struct *t)
{
	unsigned long *ws;

	if (t->ret_stack || !READ_ONCE(ftrace_graph_active))
		return;
	ws = fg_stack_alloc();
	if (ws)
		fg_task_attach(t, ws);
}

/**
 * ftrace_graph_init_task - shadow stack of a new task
 * @t: the task copy_process() is creating
 *
 * The task starts as a copy of its parent: forget the parent's stack, and
 * allocate one if a graph user is registered.  Without memory the task is
 * simply not graph traced.
 *
 * Context: process context; may sleep.
 */
void ftrace_graph_init_task(struct task_struct *t)
{
	t->ret_stack = NULL;
	t->curr_ret_stack = 0;
	t->curr_ret_depth = -1;
	fg_task_give(t);
}

/**
 * ftrace_graph_exit_task - free a task's shadow stack
 * @t: a task being freed
 *
 * Context: process context; @t runs no more.
 */
void ftrace_graph_exit_task(struct task_struct *t)
{
	unsigned long *ws = t->ret_stack;

	WRITE_ONCE(t->ret_stack, NULL);
	kfree(ws);
}

/**
 * ftrace_graph_init_idle_task - shadow stack of a CPU's idle task
 * @t: the idle task, not running
 * @cpu: its CPU, about to come up
 *
 * An idle task is never freed and starts over each time its CPU comes up:
 * its stack, if it has one, is emptied; else it gets one if a graph user
 * is registered.
 *
 * Context: CPU bring-up (or boot); may sleep.
 */
void ftrace_graph_init_idle_task(struct task_struct *t, int cpu)
{
	if (t->ret_stack) {
		fg_task_attach(t, t->ret_stack);
		return;
	}
	t->curr_ret_stack = 0;
	t->curr_ret_depth = -1;
	fg_task_give(t);
}

/* A CPU came online: its idle task may have missed getting a stack. */
int fg_cpu_online(unsigned int cpu)
{
	fg_task_give(idle_task(cpu));
	return 0;
}

/* Hand stacks from @pool to tasks without one; returns how many it used. */
static unsigned int fg_hand_out(unsigned long **pool, unsigned int nr)
{
	struct task_struct *g, *t;
	unsigned int used = 0;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		if (t->ret_stack)
			continue;
		if (used == nr)
			goto out;
		fg_task_attach(t, pool[used++]);
	}
out:
	rcu_read_unlock();
	return used;
}

/*
 * Give every task a stack.  Stacks are allocated in batches outside the
 * task walk; a batch used up entirely means more tasks may be waiting.
 * New tasks get theirs at fork (ftrace_graph_active is set already).
 */
int fg_attach_all(void)
{
	unsigned long *pool[FG_POOL_SIZE];
	unsigned int have, used, i;
	int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu)
		fg_task_give(idle_task(cpu));
	cpus_read_unlock();

	for (;;) {
		for (have = 0; have < FG_POOL_SIZE; have++) {
			pool[have] = fg_stack_alloc();
			if (!pool[have])
				break;
		}
		if (!have)
			return -ENOMEM;
		used = fg_hand_out(pool, have);
		for (i = used; i < have; i++)
			kfree(pool[i]);
		if (used < have)
			return 0;
	}
}

/* Zero slot @idx's task var in every stack, for a new user of the slot. */
void fg_clear_task_vars(int idx)
{
	struct task_struct *g, *t;
	unsigned long *ws;
	int cpu;

	for_each_possible_cpu(cpu) {
		t = idle_task(cpu);
		ws = t ? fg_stack_of(t) : NULL;
		if (ws)
			WRITE_ONCE(ws[idx], 0);
	}

	rcu_read_lock();
	for_each_process_thread(g, t) {
		ws = fg_stack_of(t);
		if (ws)
			WRITE_ONCE(ws[idx], 0);
	}
	rcu_read_unlock();
}

/* ---- sleep time --------------------------------------------------------- */

/* Sleep time counts in a function's duration (funcgraph-sleep-time). */
static bool fg_sleep_time __read_mostly = true;

/*
 * Without sleep time, a function's duration leaves out the time its task
 * was switched out: on the way back in, every open call of the task is
 * moved later by that time.
 */
void fg_sched_switch(void *ignore, bool preempt, struct task_struct *prev,
		     struct task_struct *next, unsigned int prev_state)
{
	unsigned long long now, away;
	unsigned int state, base;
	unsigned long *ws;

	if (READ_ONCE(fg_sleep_time))
		return;

	now = trace_clock_local();
	prev->ftrace_timestamp = now;
	if (!next->ftrace_timestamp)
		return;
	away = now - next->ftrace_timestamp;

	ws = fg_stack_of(next);
	if (!ws)
		return;
	for (state = READ_ONCE(next->curr_ret_stack);
	     (base = fg_frame_base(ws, state)); state = fg_below(ws, base)) {
		struct ftrace_ret_stack *hdr = fg_hdr(ws, base);

		if (hdr->calltime)
			hdr->calltime += away;
	}
}

/**
 * ftrace_graph_sleep_time_control - count sleep in function durations
 * @enable: true (the default) to include the time a task slept
 *
 * Set by the funcgraph sleep-time option.
 */
void ftrace_graph_sleep_time_control(bool enable)
{
	WRITE_ONCE(fg_sleep_time, enable);
}
