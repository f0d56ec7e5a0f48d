// SPDX-License-Identifier: GPL-2.0
/*
 * Jump optimization of breakpoint probes (CONFIG_OPTPROBES).
 *
 * An armed breakpoint aggregate without a post_handler may have its
 * breakpoint replaced by a jump to a buffer the arch built (a copy of the
 * instructions the jump covers, a call of opt_pre_handler() and a jump
 * back).  Every aggregate is a struct optimized_kprobe for this; the
 * arch prepares its buffer when the aggregate is made, and a probe is
 * made an aggregate as soon as it is registered if a buffer can be built.
 *
 * Writing a jump over several instructions is safe only once no task can
 * be stopped inside them, so jumps are written by one delayed worker, in
 * batches, after synchronize_rcu_tasks().  Taking a jump out is cheap
 * (the arch puts the breakpoint back first) but, done by the worker, it
 * batches the same way.  The state of an aggregate is its OPTIMIZED flag
 * and which queue its op->list is on:
 *
 *   flag  op->list          the text holds
 *   -     empty             the breakpoint (or nothing when disarmed)
 *   set   opt_queue         the breakpoint; hits detour through the buffer
 *   set   empty             the jump
 *   set   unopt_queue       the jump, to become the breakpoint
 *   -     retire_queue      the breakpoint; the worker decides what next
 *
 * These are the meanings the arch relies on (optprobe_queued_unopt(),
 * kprobe_disarmed() and the flag, in arch_*_optimized_kprobe()).
 *
 * The worker, under kprobe_mutex, cpus_read_lock() and text_mutex:
 *  1. turns the jumps of unopt_queue back into breakpoints and moves them
 *     to retire_queue; for each retired aggregate it takes out the
 *     breakpoint if the aggregate is off, and takes a shell (see
 *     kprobes_internal.h) out of the table;
 *  2. waits with synchronize_rcu_tasks(), which covers both tasks
 *     preempted in the text about to be covered and handlers still
 *     running on a shell (it waits for a normal grace period first);
 *  3. writes the jumps of opt_queue;
 *  4. frees the shells of step 1 and the aggregates unregistration left
 *     (grave_queue), buffers included.
 *
 * Everything else here runs under kprobe_mutex, and, when it writes text
 * itself (the "now" paths, which the arm layer and the core use when a
 * jump must go before they continue), under cpus_read_lock() and
 * text_mutex as well.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <kunit/visibility.h>
#include <linux/cpu.h>
#include <linux/init.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>

#include "kprobes_opt.h"

/* Jumps may be written (sysctl debug.kprobes-optimization). */
static bool opt_enabled;

static LIST_HEAD(opt_queue);
static LIST_HEAD(unopt_queue);
static LIST_HEAD(retire_queue);
/* Aggregates out of the table whose buffer may still be run. */
static LIST_HEAD(grave_queue);

/* Jiffies the worker waits, so that one batch takes many probes. */
#define OPTIMIZER_DELAY		5

static void optimizer_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(optimizer_work, optimizer_fn);

static struct optimized_kprobe *to_op(struct kprobe *p)
{
	return container_of(p, struct optimized_kprobe, kp);
}

/*
 * While a batch of registrations or unregistrations runs (kprobes_arm.c)
 * kicks are held back and the worker is kicked once when it ends, so its
 * delay starts with the whole batch queued.  Both under kprobe_mutex.
 */
static unsigned int kick_holds;
static bool kick_wanted;

static void kick_optimizer(void)
{
	lockdep_assert_held(&kprobe_mutex);

	if (kick_holds) {
		kick_wanted = true;
		return;
	}
	schedule_delayed_work(&optimizer_work, OPTIMIZER_DELAY);
}

/**
 * kprobe_opt_hold_kicks - hold back kicks of the optimizer
 *
 * Context: kprobe_mutex held, until the matching
 * kprobe_opt_release_kicks().
 */
void kprobe_opt_hold_kicks(void)
{
	lockdep_assert_held(&kprobe_mutex);
	kick_holds++;
}

/**
 * kprobe_opt_release_kicks - kick the optimizer once for what was held
 *
 * Context: kprobe_mutex held.
 */
void kprobe_opt_release_kicks(void)
{
	lockdep_assert_held(&kprobe_mutex);

	if (WARN_ON_ONCE(!kick_holds) || --kick_holds || !kick_wanted)
		return;
	kick_wanted = false;
	kick_optimizer();
}

/**
 * opt_pre_handler - run the children of an optimized aggregate
 * @p: the aggregate whose jump was taken
 * @regs: the frame the arch's buffer built
 *
 * Calls the pre_handler of every enabled child; a jump cannot be
 * redirected, so their return values are ignored.
 *
 * Context: the arch's jump handler, preemption off.  Not traced: a hook
 * of its return would be open under a kretprobe's push (kprobes_hit.c).
 */
notrace void opt_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	struct kprobe *kp;

	list_for_each_entry_rcu(kp, &p->list, list) {
		if (kp->pre_handler && likely(!kprobe_disabled(kp)))
			kp->pre_handler(kp, regs);
	}
}

NOKPROBE_SYMBOL(opt_pre_handler);

/**
 * kprobe_aggr_alloc - make an aggregate for the probes at @p's address
 * @p: the probe the aggregate will stand for
 *
 * Also prepares the jump buffer, unless @p is on a call site.
 *
 * Context: kprobe_mutex, cpus_read_lock(), jump_label_lock() and
 * text_mutex held.
 * Return: the aggregate, not in the table yet, or NULL.
 */
struct kprobe *kprobe_aggr_alloc(struct kprobe *p)
{
	struct optimized_kprobe *op;

	op = kzalloc(sizeof(*op), GFP_KERNEL);
	if (!op)
		return NULL;
	INIT_LIST_HEAD(&op->list);
	op->kp.addr = p->addr;
	op->kp.pre_handler = kprobe_aggr_pre_handler;
	if (!kprobe_ftrace(p))
		arch_prepare_optimized_kprobe(op, p);
	return &op->kp;
}

/**
 * kprobe_aggr_free - free an aggregate no one can reach any more
 * @ap: the aggregate
 */
void kprobe_aggr_free(struct kprobe *ap)
{
	struct optimized_kprobe *op = to_op(ap);

	arch_remove_optimized_kprobe(op);
	arch_remove_kprobe(ap);
	kfree(op);
}

/**
 * kprobe_aggr_release - free an unregistered aggregate when it is safe
 * @ap: an aggregate out of the table, after a grace period
 *
 * With a jump buffer, a task may still be preempted inside it (from a
 * jump taken out at once), so the worker frees it after
 * synchronize_rcu_tasks(); without one it is freed now.
 *
 * Context: process context, without kprobe_mutex.
 */
void kprobe_aggr_release(struct kprobe *ap)
{
	struct optimized_kprobe *op = to_op(ap);

	if (!arch_prepared_optinsn(&op->optinsn)) {
		kprobe_aggr_free(ap);
		return;
	}
	mutex_lock(&kprobe_mutex);
	list_add(&op->list, &grave_queue);
	kick_optimizer();
	mutex_unlock(&kprobe_mutex);
}

/**
 * kprobe_opt_ready - does @p have a jump buffer
 * @p: a top probe
 *
 * Return: true if @p is an aggregate whose buffer is prepared.
 */
bool kprobe_opt_ready(struct kprobe *p)
{
	return kprobe_is_aggr(p) && arch_prepared_optinsn(&to_op(p)->optinsn);
}

/**
 * kprobe_opt_pending - does the optimizer still owe @p work
 * @p: a top probe
 *
 * Return: true if @p is on one of the optimizer's queues.
 */
bool kprobe_opt_pending(struct kprobe *p)
{
	return kprobe_is_aggr(p) && !list_empty(&to_op(p)->list);
}

/**
 * kprobe_disarmed - is a top probe's text back to the original
 * @p: a top probe in the table
 *
 * Return: true if @p is off and the optimizer owes it nothing.
 */
bool kprobe_disarmed(struct kprobe *p)
{
	return kprobe_disabled(p) && !kprobe_opt_pending(p);
}

/**
 * optprobe_queued_unopt - is a jump waiting to become a breakpoint again
 * @op: an optimized aggregate
 *
 * Context: kprobe_mutex held (the arch asks from its opt hooks).
 * Return: true if @op is on the unoptimizing queue.
 */
bool optprobe_queued_unopt(struct optimized_kprobe *op)
{
	struct optimized_kprobe *cur;
	bool queued = false;

	list_for_each_entry(cur, &unopt_queue, list)
		queued |= cur == op;
	return queued;
}

/* The armed aggregate whose jump covers @addr (not as its first byte). */
static struct kprobe *covering_jump(kprobe_opcode_t *addr)
{
	struct kprobe *p;
	unsigned int i;

	for (i = 1; i < MAX_OPTIMIZED_LENGTH / sizeof(kprobe_opcode_t); i++) {
		p = get_kprobe(addr - i);
		if (!p || !kprobe_opt_ready(p) || kprobe_disarmed(p))
			continue;
		if (arch_within_optimized_kprobe(to_op(p), addr))
			return p;
	}
	return NULL;
}

/**
 * kprobe_opt_prepare - build the jump buffer of a revived aggregate
 * @ap: an aggregate whose text came back (it was GONE)
 *
 * An aggregate made just now for a GONE lone probe already has a buffer,
 * built by kprobe_aggr_alloc() from the new text: building another would
 * lose the first one's slot.
 *
 * Context: as kprobe_aggr_alloc().
 */
void kprobe_opt_prepare(struct kprobe *ap)
{
	struct optimized_kprobe *op = to_op(ap);

	if (!kprobe_ftrace(ap) && !arch_prepared_optinsn(&op->optinsn))
		arch_prepare_optimized_kprobe(op, ap);
}

/**
 * kprobe_opt_try - queue an armed aggregate for its jump, if it may have one
 * @p: a top probe
 *
 * It may not when optimization is off, it is disarmed, it has a
 * post_handler, or another armed probe sits in the text the jump covers.
 * A jump still waiting to be taken out simply stays.
 *
 * Context: kprobe_mutex held.
 */
void kprobe_opt_try(struct kprobe *p)
{
	struct optimized_kprobe *op;

	if (!opt_enabled || kprobes_all_disarmed || !kprobe_opt_ready(p) ||
	    kprobe_disabled(p) || p->post_handler)
		return;
	op = to_op(p);
	if (arch_check_optimized_kprobe(op) < 0)
		return;

	if (kprobe_optimized(p)) {
		if (optprobe_queued_unopt(op))
			list_del_init(&op->list);
		return;
	}
	/* Retired and not looked at by the worker yet: it retries then. */
	if (!list_empty(&op->list))
		return;

	p->flags |= KPROBE_FLAG_OPTIMIZED;
	list_add(&op->list, &opt_queue);
	kick_optimizer();
}

/* Put the breakpoint back over a jump at once. */
static void unoptimize_now(struct optimized_kprobe *op)
{
	lockdep_assert_cpus_held();
	lockdep_assert_held(&text_mutex);

	arch_unoptimize_kprobe(op);
	op->kp.flags &= ~KPROBE_FLAG_OPTIMIZED;
}

/**
 * kprobe_opt_cancel - give up a top probe's jump
 * @p: a top probe
 * @now: put the breakpoint back before returning, instead of leaving
 *	it to the worker
 *
 * A jump not written yet is simply forgotten.
 *
 * Context: kprobe_mutex held; with @now also cpus_read_lock() and
 * text_mutex.
 * Return: true if the optimizer still owes @p work: its breakpoint must
 * then be left to the worker.
 */
bool kprobe_opt_cancel(struct kprobe *p, bool now)
{
	struct optimized_kprobe *op;

	if (!kprobe_is_aggr(p) || kprobe_disarmed(p) || !kprobe_optimized(p))
		return kprobe_opt_pending(p);
	op = to_op(p);

	if (list_empty(&op->list)) {
		if (now) {
			unoptimize_now(op);
		} else {
			list_add(&op->list, &unopt_queue);
			kick_optimizer();
		}
	} else if (!optprobe_queued_unopt(op)) {
		list_del_init(&op->list);
		p->flags &= ~KPROBE_FLAG_OPTIMIZED;
	} else if (now) {
		unoptimize_now(op);
		list_move(&op->list, &retire_queue);
		kick_optimizer();
	}
	return kprobe_opt_pending(p);
}

/**
 * kprobe_opt_break_covering - turn a jump over @addr back into a breakpoint
 * @addr: where a breakpoint is about to be written
 *
 * Context: kprobe_mutex, cpus_read_lock() and text_mutex held.
 */
void kprobe_opt_break_covering(kprobe_opcode_t *addr)
{
	struct kprobe *p = covering_jump(addr);

	if (unlikely(p))
		kprobe_opt_cancel(p, true);
}

/**
 * kprobe_opt_retry_covering - optimize again a probe @addr was blocking
 * @addr: where a breakpoint was just taken out
 *
 * Context: kprobe_mutex held.
 */
void kprobe_opt_retry_covering(kprobe_opcode_t *addr)
{
	struct kprobe *p = covering_jump(addr);

	if (unlikely(p))
		kprobe_opt_try(p);
}

/**
 * kprobe_opt_kill - forget the jump of an aggregate whose text is gone
 * @ap: an aggregate being marked GONE
 *
 * The text is not touched.  A shell is handed to the worker, which takes
 * it out of the table and frees it.
 *
 * Context: kprobe_mutex held.
 */
void kprobe_opt_kill(struct kprobe *ap)
{
	struct optimized_kprobe *op = to_op(ap);

	list_del_init(&op->list);
	ap->flags &= ~KPROBE_FLAG_OPTIMIZED;
	arch_remove_optimized_kprobe(op);
	if (kprobe_is_shell(ap)) {
		list_add(&op->list, &retire_queue);
		kick_optimizer();
	}
}

/* Step 1 of the worker for each retired aggregate; shells go to @dead. */
static void retire(struct optimized_kprobe *op, struct list_head *dead)
{
	struct kprobe *p = &op->kp;

	p->flags &= ~KPROBE_FLAG_OPTIMIZED;
	if ((kprobe_disabled(p) || kprobes_all_disarmed) && !kprobe_gone(p))
		arch_disarm_kprobe(p);

	if (kprobe_is_shell(p)) {
		kprobe_table_remove(p);
		list_move(&op->list, dead);
		return;
	}
	list_del_init(&op->list);
	kprobe_opt_try(p);
}

static bool optimizer_busy(void)
{
	lockdep_assert_held(&kprobe_mutex);
	return !list_empty(&opt_queue) || !list_empty(&unopt_queue) ||
	       !list_empty(&retire_queue) || !list_empty(&grave_queue);
}

static void optimizer_fn(struct work_struct *work)
{
	struct optimized_kprobe *op, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&kprobe_mutex);
	cpus_read_lock();
	mutex_lock(&text_mutex);

	if (!list_empty(&unopt_queue))
		arch_unoptimize_kprobes(&unopt_queue, &retire_queue);
	list_for_each_entry_safe(op, tmp, &retire_queue, list)
		retire(op, &dead);
	list_splice_init(&grave_queue, &dead);

	synchronize_rcu_tasks();

	if (opt_enabled && !kprobes_all_disarmed && !list_empty(&opt_queue))
		arch_optimize_kprobes(&opt_queue);

	list_for_each_entry_safe(op, tmp, &dead, list) {
		list_del_init(&op->list);
		kprobe_aggr_free(&op->kp);
	}

	mutex_unlock(&text_mutex);
	cpus_read_unlock();

	if (optimizer_busy())
		kick_optimizer();
	mutex_unlock(&kprobe_mutex);
}

/**
 * wait_for_kprobe_optimizer - wait until the optimizer has no work left
 *
 * On return every queued jump is written or taken out, and every shell
 * is freed.
 *
 * Context: process context; takes kprobe_mutex.
 */
void wait_for_kprobe_optimizer(void)
{
	mutex_lock(&kprobe_mutex);
	while (optimizer_busy()) {
		mutex_unlock(&kprobe_mutex);
		/* Runs queued work now; it may not be queued yet, hence the loop. */
		flush_delayed_work(&optimizer_work);
		cpu_relax();
		mutex_lock(&kprobe_mutex);
	}
	mutex_unlock(&kprobe_mutex);
}
EXPORT_SYMBOL_IF_KUNIT(wait_for_kprobe_optimizer);

static void optimize_all(void)
{
	struct hlist_node *tmp;
	struct kprobe *p;

	mutex_lock(&kprobe_mutex);
	if (!opt_enabled) {
		WRITE_ONCE(opt_enabled, true);
		for_each_top_kprobe(p, tmp)
			kprobe_opt_try(p);
		pr_info("jump optimization on: probes become jumps where they can\n");
	}
	mutex_unlock(&kprobe_mutex);
}

#ifdef CONFIG_SYSCTL
static void unoptimize_all(void)
{
	struct hlist_node *tmp;
	struct kprobe *p;

	mutex_lock(&kprobe_mutex);
	if (!opt_enabled) {
		mutex_unlock(&kprobe_mutex);
		return;
	}
	WRITE_ONCE(opt_enabled, false);
	for_each_top_kprobe(p, tmp)
		kprobe_opt_cancel(p, false);
	mutex_unlock(&kprobe_mutex);

	wait_for_kprobe_optimizer();
	pr_info("jump optimization off: every probe is a breakpoint\n");
}

/* Serializes writers of the sysctl. */
static DEFINE_MUTEX(opt_sysctl_mutex);
static int opt_sysctl_value;

static int opt_sysctl_handler(const struct ctl_table *table, int write,
			      void *buffer, size_t *lenp, loff_t *ppos)
{
	int ret;

	mutex_lock(&opt_sysctl_mutex);
	opt_sysctl_value = READ_ONCE(opt_enabled);
	ret = proc_dointvec_minmax(table, write, buffer, lenp, ppos);
	/* A read or a refused value changes nothing. */
	if (write && !ret)
		(opt_sysctl_value ? optimize_all : unoptimize_all)();
	mutex_unlock(&opt_sysctl_mutex);
	return ret;
}

static struct ctl_table kprobe_opt_sysctls[] = {
	{
		/* 1: jumps are written; 0: all go back to breakpoints. */
		.procname	= "kprobes-optimization",
		.mode		= 0644,
		.proc_handler	= opt_sysctl_handler,
		/* An int, 0 or 1 only. */
		.data		= &opt_sysctl_value,
		.maxlen		= sizeof(opt_sysctl_value),
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};
#endif /* CONFIG_SYSCTL */

/*
 * Optimization starts only now: the worker needs synchronize_rcu_tasks()
 * and ksoftirqd, which early initcalls (init_kprobes()) do not have yet.
 */
static int __init kprobe_opt_init(void)
{
#ifdef CONFIG_SYSCTL
	register_sysctl_init("debug", kprobe_opt_sysctls);
#endif
	optimize_all();
	return 0;
}
subsys_initcall(kprobe_opt_init);
