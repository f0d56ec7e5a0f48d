// SPDX-License-Identifier: GPL-2.0
/*
 * Proof, task by task, that no task is still inside arm64's shared
 * callers: what a removal of an ops waits for on arm64 instead of an
 * RCU-tasks grace period.
 *
 * ftrace_caller and ftrace_regs_caller (entry-ftrace.S) load the site's
 * ops literal and call that ops' function with preemption enabled; a
 * preempt-count span around the call would cost about ten instructions a
 * hit.  So once an update has dropped an ops, a task preempted after it
 * loaded the old literal, or anywhere in a callback the callers called,
 * may still run that ops' callback.  The core's rude wait (a work item on
 * every CPU) does not wait for such a task; synchronize_rcu_tasks() does,
 * but it takes tens of milliseconds of RCU grace periods and sleeps.
 *
 * The test used here: a task is inside the callers exactly while an
 * address of their text (between __ftrace_callers_start and
 * __ftrace_callers_end) is in its saved state: the interrupted pc when it
 * stopped in the callers' own code, else the return address into them,
 * which the callee keeps in its frame record or in x30, and x30 is saved
 * in the pt_regs of the exception that stopped the task.  All of that is
 * on the task's kernel stack or in its saved callee registers.  Hence:
 *
 *   Once a task has been seen, after the update was published, with no
 *   word of its live kernel stack and none of its saved registers
 *   pointing into the callers, it runs no callback of a dropped ops: it
 *   was in none then, and the literals it would load now name other ops.
 *
 * How each task is seen:
 *  - not on a runqueue: it went to sleep by itself, and callbacks never
 *    sleep (RCU-tasks draws the same line);
 *  - runnable, not running: under task_call_func(), which keeps it off
 *    the CPU while its stack from the saved sp up and its saved callee
 *    registers are read;
 *  - running: from an IPI on its CPU while it is still current there;
 *    user mode is clean, else the interrupted registers and the stack
 *    from the interrupted sp up are read (an sp off the task stack, as in
 *    a softirq on the IRQ stack, counts as inside);
 *  - tasks late in do_exit() that already left the task list but may
 *    still be preempted: rcu_tasks_exiting_each() lists them.
 *
 * Two things move that return address off the stack, and both count as
 * inside: pointer authentication signs it where a callee saves it (its
 * top bits are put back before the compare), and a return hook replaces
 * it (the function graph's return_to_handler keeps the real address on
 * the task's shadow stack, which is not looked at).  Return probes that
 * keep it elsewhere (kretprobes without KRETPROBE_ON_FGRAPH) make every
 * look fail.
 *
 * The test is conservative: a stale word that happens to point into the
 * callers makes a task count as inside.  A task inside is looked at again
 * a tick later; after QUIET_ROUNDS ticks, or with more than QUIET_HELD_MAX
 * tasks to look at again, the caller falls back to synchronize_rcu_tasks().
 *
 * Context: the core calls ftrace_arch_callers_quiet() after its rude wait,
 * from process context; it sleeps.  quiet_mutex serializes callers.
 */

#include <linux/ftrace.h>
#include <linux/ftrace_quiet.h>
#include <kunit/visibility.h>
#include <linux/mutex.h>
#include <linux/rcu_tasks_exiting.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/smp.h>
#include <linux/wait.h>

#include <asm/irq_regs.h>
#include <asm/pointer_auth.h>
#include <asm/ptrace.h>
#include <asm/stacktrace.h>

extern const char __ftrace_callers_start[], __ftrace_callers_end[];

#define QUIET_HELD_MAX	64	/* tasks looked at again, at most */
#define QUIET_ROUNDS	8	/* ticks to wait for them, at most */

enum quiet_seen {
	SEEN_QUIET,		/* outside the callers */
	SEEN_INSIDE,		/* inside, or maybe: look again */
	SEEN_RUNNING,		/* running: look from its CPU */
};

/* Tasks to look at again, each with a reference; quiet_mutex. */
static DEFINE_MUTEX(quiet_mutex);
static struct task_struct *quiet_held[QUIET_HELD_MAX];
static unsigned int quiet_nr;
static bool quiet_overflow;
/* The bits a signature may take in a kernel text address, else 0. */
static unsigned long quiet_pac_bits;

/* Does a word or register value point into the callers, or hook a return? */
static bool callers_addr(unsigned long w)
{
	w |= READ_ONCE(quiet_pac_bits);
	if (w >= (unsigned long)__ftrace_callers_start &&
	    w < (unsigned long)__ftrace_callers_end)
		return true;
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	if (w == (unsigned long)return_to_handler)
		return true;
#endif
	return false;
}

/*
 * Does a word of @t's kernel stack from @sp to its top point into the
 * callers?  An @sp off that stack (a softirq on the IRQ stack) hides the
 * rest: inside.
 */
static enum quiet_seen stack_seen(struct task_struct *t, unsigned long sp)
{
	struct stack_info info = stackinfo_get_task(t);
	unsigned long a;

	if (!stackinfo_on_stack(&info, sp, sizeof(long)))
		return SEEN_INSIDE;
	for (a = ALIGN(sp, sizeof(long)); a < info.high; a += sizeof(long))
		if (callers_addr(READ_ONCE_NOCHECK(*(unsigned long *)a)))
			return SEEN_INSIDE;
	return SEEN_QUIET;
}

/* task_call_func() callback: @t cannot start running meanwhile. */
static int quiet_see_stopped(struct task_struct *t, void *unused)
{
	const struct cpu_context *cc = &t->thread.cpu_context;
	const unsigned long *w = &cc->x19;
	unsigned int i;

	if (task_curr(t))
		return SEEN_RUNNING;
	if (!t->on_rq)
		return SEEN_QUIET;
	/* x19-x28, fp, sp and pc as cpu_switch_to() saved them */
	for (i = 0; i < sizeof(*cc) / sizeof(long); i++)
		if (callers_addr(w[i]))
			return SEEN_INSIDE;
	return stack_seen(t, cc->sp);
}

struct quiet_ipi {
	struct task_struct	*task;
	enum quiet_seen		seen;
};

/* IPI handler on the CPU where q->task ran a moment ago. */
static void quiet_see_current(void *arg)
{
	struct quiet_ipi *q = arg;
	struct pt_regs *regs = get_irq_regs();
	unsigned int i;

	q->seen = SEEN_RUNNING;
	if (current != q->task || !regs)
		return;			/* moved, or not from an interrupt */
	q->seen = SEEN_QUIET;
	if (user_mode(regs))
		return;
	q->seen = SEEN_INSIDE;
	if (callers_addr(regs->pc))
		return;
	for (i = 0; i < ARRAY_SIZE(regs->regs); i++)
		if (callers_addr(regs->regs[i]))
			return;
	q->seen = stack_seen(current, regs->sp);
}

/* Look at @t once: stopped under task_call_func(), else from its CPU. */
static enum quiet_seen quiet_see(struct task_struct *t)
{
	struct quiet_ipi q = { .task = t, .seen = SEEN_RUNNING };
	enum quiet_seen seen;
	int cpu;

	seen = task_call_func(t, quiet_see_stopped, NULL);
	if (seen != SEEN_RUNNING)
		return seen;
	cpu = task_cpu(t);
	if (cpu_online(cpu))
		smp_call_function_single(cpu, quiet_see_current, &q, true);
	return q.seen;
}

static void quiet_hold(struct task_struct *t)
{
	if (quiet_nr == QUIET_HELD_MAX) {
		quiet_overflow = true;
		return;
	}
	get_task_struct(t);
	quiet_held[quiet_nr++] = t;
}

/* rcu_tasks_exiting_each() callback: a raw lock is held, interrupts off. */
static int quiet_hold_exiting(struct task_struct *t, void *unused)
{
	if (t != current)
		quiet_hold(t);
	return quiet_overflow ? -ENOSPC : 0;
}

/* Look at every held task again; keep those still not seen outside. */
static void quiet_recheck(void)
{
	unsigned int i, kept = 0;

	for (i = 0; i < quiet_nr; i++) {
		struct task_struct *t = quiet_held[i];

		if (quiet_see(t) == SEEN_QUIET)
			put_task_struct(t);
		else
			quiet_held[kept++] = t;
	}
	quiet_nr = kept;
}

static void quiet_release(void)
{
	while (quiet_nr)
		put_task_struct(quiet_held[--quiet_nr]);
	quiet_overflow = false;
}

/**
 * ftrace_arch_callers_quiet - has every task left the shared callers
 *
 * Called by the core after an update that dropped an ops was published
 * and after its rude wait.  Looks at every task (see the top of this
 * file) until each was seen outside ftrace_caller and ftrace_regs_caller
 * and the callbacks they called.
 *
 * Context: process context; sleeps.
 * Return: true when every task was seen outside, so that no callback of
 * an ops dropped before the call can run any more; false when that could
 * not be shown, and the caller must wait for an RCU-tasks grace period.
 */
bool ftrace_arch_callers_quiet(void)
{
	struct task_struct *g, *t;
	unsigned int round;
	bool quiet;

	might_sleep();
	/* Without preemption no task stops inside a callback. */
	if (!IS_ENABLED(CONFIG_PREEMPTION))
		return true;
	/* RCU-tasks' exit lists are where exiting tasks are found. */
	if (!IS_ENABLED(CONFIG_TASKS_RCU))
		return false;
	/* Such return probes keep the return address out of sight. */
	if (IS_ENABLED(CONFIG_KRETPROBES) &&
	    !IS_ENABLED(CONFIG_KRETPROBE_ON_FGRAPH))
		return false;
	guard(mutex)(&quiet_mutex);

	quiet_pac_bits = IS_ENABLED(CONFIG_ARM64_PTR_AUTH_KERNEL) ?
			 ptrauth_kernel_pac_mask() : 0;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		if (t == current || quiet_see(t) == SEEN_QUIET)
			continue;
		quiet_hold(t);
		if (quiet_overflow)
			break;
	}
	rcu_read_unlock();
	if (!quiet_overflow &&
	    rcu_tasks_exiting_each(quiet_hold_exiting, NULL))
		quiet_overflow = true;

	for (round = 0; !quiet_overflow; round++) {
		quiet_recheck();
		if (!quiet_nr || round == QUIET_ROUNDS)
			break;
		schedule_timeout_uninterruptible(1);
	}
	quiet = !quiet_overflow && !quiet_nr;
	quiet_release();
	return quiet;
}
EXPORT_SYMBOL_IF_KUNIT(ftrace_arch_callers_quiet);
