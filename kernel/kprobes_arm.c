// SPDX-License-Identifier: GPL-2.0
/*
 * Arming and disarming top probes, one at a time or all at once.
 *
 * A breakpoint probe is armed by the arch writing its breakpoint, under
 * cpus_read_lock() and text_mutex; the optimizer then gets a chance to
 * replace it by a jump, and a jump of a neighbour that covers the
 * address is first turned back into a breakpoint (kprobes_opt.c).
 *
 * A probe on a function-hook call site (KPROBE_FLAG_FTRACE) is armed by
 * adding its address to the filter of one of two ftrace_ops that call
 * kprobe_ftrace_handler(), and registering that ops with its first
 * address.  Both save a full pt_regs; the one used for top probes with a
 * post_handler also has FTRACE_OPS_FL_IPMODIFY, as a post_handler may
 * expect to see the pc moved (and so conflicts with live patching, as a
 * breakpoint's single step would).  Which ops a probe was armed with is
 * remembered in KPROBE_FLAG_ARMED_IPMODIFY (kprobe_site_ops[] is
 * indexed by it), so that it is disarmed from the same one whatever
 * happens to its handlers meanwhile.
 *
 * Rules: everything here runs under kprobe_mutex.  A probe's DISABLED
 * flag is the caller's business; kprobes_all_disarmed is this layer's.
 * Once ftrace is dead (kprobe_ftrace_disabled) call-site probes are
 * neither armed nor disarmed again: ftrace no longer calls anything.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/cpu.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/memory.h>

#include "kprobes_arm.h"

#ifdef CONFIG_KPROBES_ON_FTRACE

/*
 * The two ops of call-site probes, by whether they may move the pc, and
 * how many addresses each filters; an ops is registered while its count
 * is non-zero.
 */
static struct ftrace_ops kprobe_site_ops[2] __read_mostly = {
	[false]	= { .func = kprobe_ftrace_handler,
		    .flags = FTRACE_OPS_FL_SAVE_REGS },
	[true]	= { .func = kprobe_ftrace_handler,
		    .flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY },
};

static unsigned int kprobe_site_users[2];

static int ftrace_arm(struct kprobe *p, bool ipmodify)
{
	struct ftrace_ops *ops = &kprobe_site_ops[ipmodify];
	unsigned int *users = &kprobe_site_users[ipmodify];
	unsigned long ip = (unsigned long)p->addr;
	int ret;

	if (unlikely(kprobe_ftrace_disabled))
		return -ENODEV;

	ret = ftrace_set_filter_ip(ops, ip, 0, 0);
	if (ret < 0)
		return ret;
	if (!*users) {
		ret = register_ftrace_function(ops);
		if (ret < 0) {
			/* Not registered: the filter may safely go empty. */
			ftrace_set_filter_ip(ops, ip, 1, 0);
			return ret;
		}
	}
	(*users)++;
	if (ipmodify)
		p->flags |= KPROBE_FLAG_ARMED_IPMODIFY;
	else
		p->flags &= ~KPROBE_FLAG_ARMED_IPMODIFY;
	return 0;
}

static int ftrace_disarm(struct kprobe *p)
{
	bool ipmodify = p->flags & KPROBE_FLAG_ARMED_IPMODIFY;
	struct ftrace_ops *ops = &kprobe_site_ops[ipmodify];
	unsigned int *users = &kprobe_site_users[ipmodify];
	int ret;

	/* Dead ftrace calls nothing any more: that is disarmed enough. */
	if (unlikely(kprobe_ftrace_disabled))
		return 0;

	if (*users == 1) {
		ret = unregister_ftrace_function(ops);
		if (WARN(ret < 0, "kprobes: cannot unregister the call-site ops (%d)\n",
			 ret))
			return ret;
	}
	(*users)--;
	p->flags &= ~KPROBE_FLAG_ARMED_IPMODIFY;

	ret = ftrace_set_filter_ip(ops, (unsigned long)p->addr, 1, 0);
	WARN_ONCE(ret < 0, "kprobes: cannot disarm the call-site probe at %pS (%d)\n",
		  p->addr, ret);
	return ret;
}

/**
 * kprobe_ftrace_sync_ops - move an armed call-site probe to the right ops
 * @ap: a top probe whose post_handler may just have been set
 *
 * A top probe armed without FTRACE_OPS_FL_IPMODIFY that now has a
 * post_handler is re-armed with it.  Hits between the two steps are
 * missed.
 *
 * Context: kprobe_mutex held.
 * Return: 0, or the error of arming with the other ops; @ap is then still
 * armed as before.
 */
int kprobe_ftrace_sync_ops(struct kprobe *ap)
{
	int ret;

	if (!kprobe_ftrace(ap) || kprobe_disabled(ap) || kprobes_all_disarmed ||
	    !ap->post_handler || (ap->flags & KPROBE_FLAG_ARMED_IPMODIFY))
		return 0;

	ret = ftrace_disarm(ap);
	if (ret)
		return ret;
	ret = ftrace_arm(ap, true);
	if (ret)
		WARN_ON_ONCE(ftrace_arm(ap, false));
	return ret;
}

#else /* !CONFIG_KPROBES_ON_FTRACE */

static int ftrace_arm(struct kprobe *p, bool ipmodify)
{
	return -ENODEV;
}

static int ftrace_disarm(struct kprobe *p)
{
	return -ENODEV;
}

int kprobe_ftrace_sync_ops(struct kprobe *ap)
{
	return 0;
}

#endif /* CONFIG_KPROBES_ON_FTRACE */

static void text_arm(struct kprobe *p)
{
	lockdep_assert_held(&text_mutex);

	kprobe_opt_break_covering(p->addr);
	arch_arm_kprobe(p);
	kprobe_opt_try(p);
}

static void text_disarm(struct kprobe *p, bool reopt)
{
	lockdep_assert_held(&text_mutex);

	/* A jump the worker must still take out: it disarms after that. */
	if (kprobe_opt_cancel(p, kprobes_all_disarmed))
		return;
	arch_disarm_kprobe(p);
	if (reopt)
		kprobe_opt_retry_covering(p->addr);
}

/**
 * kprobe_arm - arm a top probe
 * @p: a top probe in the table
 *
 * Context: kprobe_mutex held.
 * Return: 0, or the error of arming a call-site probe.
 */
int kprobe_arm(struct kprobe *p)
{
	lockdep_assert_held(&kprobe_mutex);

	if (!kprobe_ftrace(p)) {
		cpus_read_lock();
		mutex_lock(&text_mutex);
		text_arm(p);
		mutex_unlock(&text_mutex);
		cpus_read_unlock();
		return 0;
	}
	/* A post_handler may see the pc moved: the IPMODIFY ops. */
	return ftrace_arm(p, !!p->post_handler);
}

/**
 * kprobe_disarm - disarm a top probe
 * @p: a top probe in the table, armed
 * @reopt: let a neighbour's jump that @p's breakpoint blocked come back
 *
 * A breakpoint under a jump the optimizer still has to take out is left
 * to the optimizer, which takes it out once the probe is marked disabled
 * (or everything is disarmed).
 *
 * Context: kprobe_mutex held.
 * Return: 0, or the error of disarming a call-site probe.
 */
int kprobe_disarm(struct kprobe *p, bool reopt)
{
	lockdep_assert_held(&kprobe_mutex);

	if (!kprobe_ftrace(p)) {
		cpus_read_lock();
		mutex_lock(&text_mutex);
		text_disarm(p, reopt);
		mutex_unlock(&text_mutex);
		cpus_read_unlock();
		return 0;
	}
	return ftrace_disarm(p);
}

/**
 * kprobe_disarm_gone - disarm a top probe whose text is going away
 * @p: a top probe about to be marked GONE
 *
 * Only a call-site probe needs it: ftrace still knows the site while a
 * module is GOING, and must forget it.  Breakpoints go with their text.
 *
 * Context: kprobe_mutex held.
 */
void kprobe_disarm_gone(struct kprobe *p)
{
	if (kprobe_ftrace(p) && !kprobe_disabled(p) && !kprobes_all_disarmed)
		ftrace_disarm(p);
}

static void report_switch(bool on, unsigned int failed, unsigned int total)
{
	const char *state = on ? "enabled" : "disabled";

	if (!failed) {
		pr_info("Kprobes globally %s\n", state);
		return;
	}
	pr_warn("Kprobes globally %s, but %u of %u probes could not follow; debugfs kprobes/list shows which\n",
		state, failed, total);
}

/**
 * kprobes_arm_all - arm every enabled probe (debugfs "enabled" = 1)
 *
 * Best effort: a probe that fails to arm stays as it is.
 *
 * Context: process context; takes kprobe_mutex.
 * Return: 0, or the last error met.
 */
int kprobes_arm_all(void)
{
	unsigned int total = 0, failed = 0;
	struct hlist_node *tmp;
	struct kprobe *p;
	int err, ret = 0;

	mutex_lock(&kprobe_mutex);
	if (!kprobes_all_disarmed)
		goto out;

	/* Cleared first: arming consults it to allow jumps. */
	kprobes_all_disarmed = false;
	for_each_top_kprobe(p, tmp) {
		if (kprobe_disabled(p))
			continue;
		total++;
		err = kprobe_arm(p);
		if (err) {
			failed++;
			ret = err;
		}
	}
	report_switch(true, failed, total);
out:
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/**
 * kprobes_disarm_all - disarm every probe (debugfs "enabled" = 0)
 *
 * Jumps are taken out at once; the call returns after the optimizer has
 * finished what it still owed.
 *
 * Context: process context; takes kprobe_mutex.
 * Return: 0, or the last error met.
 */
int kprobes_disarm_all(void)
{
	unsigned int total = 0, failed = 0;
	struct hlist_node *tmp;
	struct kprobe *p;
	int err, ret = 0;

	scoped_guard(mutex, &kprobe_mutex) {
		if (kprobes_all_disarmed)
			return 0;
		/* Set first: disarming then takes jumps out at once. */
		kprobes_all_disarmed = true;
		for_each_top_kprobe(p, tmp) {
			if (kprobe_disabled(p) || arch_trampoline_kprobe(p))
				continue;
			total++;
			err = kprobe_disarm(p, false);
			if (err) {
				failed++;
				ret = err;
			}
		}
		report_switch(false, failed, total);
	}

	wait_for_kprobe_optimizer();
	return ret;
}
