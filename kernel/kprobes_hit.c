// SPDX-License-Identifier: GPL-2.0
/*
 * What a probe hit runs of the core, at the bottom of its layers so that
 * every hit handler (breakpoint, call site, jump, fprobe, the return
 * trampolines) and ftrace_kill() reach it without calling up into
 * registration: the aggregate's handlers, the missed count, the busy
 * marker and the call-site kill switch.
 *
 * Everything here runs with preemption off, takes no lock and reads an
 * aggregate's children under RCU (see kprobes_internal.h); none of it
 * may be probed.
 */
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rculist.h>

#include "kprobes_internal.h"

/**
 * kprobe_aggr_pre_handler - the pre_handler of an aggregate
 * @p: the aggregate that was hit
 * @regs: the frame of the hit
 *
 * Calls each enabled child's pre_handler, in list order, until one
 * returns non-zero (it took over the hit: the rest are skipped).
 *
 * Return: 1 if a child took over, 0 otherwise.
 */
int kprobe_aggr_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	struct kprobe *kp;
	int taken = 0;

	list_for_each_entry_rcu(kp, &p->list, list) {
		if (kp->pre_handler && likely(!kprobe_disabled(kp)))
			taken = kp->pre_handler(kp, regs);
		if (taken)
			break;
	}
	return taken ? 1 : 0;
}

NOKPROBE_SYMBOL(kprobe_aggr_pre_handler);

/* The post_handler of an aggregate: every enabled child's, in order. */
void kprobe_aggr_post_handler(struct kprobe *p, struct pt_regs *regs,
			      unsigned long flags)
{
	kprobe_post_handler_t post;
	struct kprobe *kp;

	list_for_each_entry_rcu(kp, &p->list, list) {
		post = kprobe_disabled(kp) ? NULL : kp->post_handler;
		if (post)
			post(kp, regs, flags);
	}
}

NOKPROBE_SYMBOL(kprobe_aggr_post_handler);

/**
 * kprobes_inc_nmissed_count - count a hit whose handlers could not run
 * @p: the top probe that was hit
 *
 * Counts it on @p, or on every child when @p is an aggregate.
 *
 * Context: the hit path.
 */
void kprobes_inc_nmissed_count(struct kprobe *p)
{
	struct kprobe *kp;

	if (kprobe_is_aggr(p)) {
		/* Every child missed it. */
		list_for_each_entry_rcu(kp, &p->list, list)
			kp->nmissed++;
	} else {
		p->nmissed++;
	}
}

NOKPROBE_SYMBOL(kprobes_inc_nmissed_count);

/*
 * What kprobe_running() shows while kprobe_busy_begin() is in effect:
 * a probe at an address nothing probes.
 */
static struct kprobe kprobe_busy = { .addr = (void *)kprobe_busy_begin };

/**
 * kprobe_busy_begin - make kprobes on this CPU count as running
 *
 * Disables preemption and sets current_kprobe to a dummy probe, so that
 * probes hit until kprobe_busy_end() are counted as missed instead of
 * run.  For handlers that run outside a kprobe hit (return trampolines,
 * fprobe).
 */
void kprobe_busy_begin(void)
{
	preempt_disable();
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
	__this_cpu_write(current_kprobe, &kprobe_busy);
}

NOKPROBE_SYMBOL(kprobe_busy_begin);

/**
 * kprobe_busy_end - end what kprobe_busy_begin() began
 */
void kprobe_busy_end(void)
{
	__this_cpu_write(current_kprobe, NULL);
	preempt_enable();
}

NOKPROBE_SYMBOL(kprobe_busy_end);

#ifdef CONFIG_KPROBES_ON_FTRACE
bool kprobe_ftrace_disabled __read_mostly;

/**
 * kprobe_ftrace_kill - ftrace is dead: stop running call-site probes
 *
 * Called by ftrace_kill() after a fatal ftrace error; from then on the
 * call-site handler runs nothing and nothing is armed or disarmed there.
 *
 * Context: any.
 */
void kprobe_ftrace_kill(void)
{
	kprobe_ftrace_disabled = true;
}
#endif /* CONFIG_KPROBES_ON_FTRACE */
