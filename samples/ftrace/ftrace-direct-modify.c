// SPDX-License-Identifier: GPL-2.0
/*
 * A direct call whose target moves while it is live.  A kernel thread
 * switches the hooked function(s) between two trampolines every
 * @period_ms milliseconds with modify_ftrace_direct(); each trampoline's
 * handler names itself in the trace buffer, so both names show up, and
 * none after the module is gone.
 *
 * Built as ftrace-direct-modify on schedule(), and again, with
 * DIRECT_MODIFY_MULTI defined, as ftrace-direct-multi-modify on
 * wake_up_process() and schedule() through one ops.
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/ftrace.h>

#include "direct-tramp.h"

static unsigned int period_ms = 1000;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "milliseconds between two switches of the target");

SAMPLE_DIRECT_TRAMP(tramp_a, direct_func_a);
SAMPLE_DIRECT_TRAMP(tramp_b, direct_func_b);

SAMPLE_DIRECT_HANDLER(direct_func_a)
{
	trace_printk("%ps through trampoline a\n", (void *)site);
}

SAMPLE_DIRECT_HANDLER(direct_func_b)
{
	trace_printk("%ps through trampoline b\n", (void *)site);
}

static struct ftrace_ops modify_ops;
static struct task_struct *switcher;
/* The trampoline the sites call now; written by the switcher thread only. */
static unsigned long current_tramp;

static int switch_targets(void *unused)
{
	unsigned long next;
	int ret;

	while (!kthread_should_stop()) {
		schedule_timeout_interruptible(msecs_to_jiffies(period_ms));
		if (kthread_should_stop())
			break;
		next = current_tramp == (unsigned long)tramp_a ?
			(unsigned long)tramp_b : (unsigned long)tramp_a;
		ret = modify_ftrace_direct(&modify_ops, next);
		if (ret)
			pr_warn_ratelimited("modify_ftrace_direct: %d\n", ret);
		else
			current_tramp = next;
	}
	return 0;
}

static int __init direct_modify_init(void)
{
	unsigned long ips[] = {
#ifdef DIRECT_MODIFY_MULTI
		(unsigned long)wake_up_process,
#endif
		(unsigned long)schedule,
	};
	int ret;

	ret = ftrace_set_filter_ips(&modify_ops, ips, ARRAY_SIZE(ips), 0, 0);
	if (ret)
		return ret;
	current_tramp = (unsigned long)tramp_a;
	ret = register_ftrace_direct(&modify_ops, current_tramp);
	if (ret) {
		ftrace_free_filter(&modify_ops);
		return ret;
	}
	switcher = kthread_run(switch_targets, NULL, "direct-switcher");
	if (IS_ERR(switcher)) {
		unregister_ftrace_direct(&modify_ops, current_tramp, true);
		return PTR_ERR(switcher);
	}
	return 0;
}

static void __exit direct_modify_exit(void)
{
	kthread_stop(switcher);
	unregister_ftrace_direct(&modify_ops, current_tramp, true);
}

module_init(direct_modify_init);
module_exit(direct_modify_exit);

MODULE_DESCRIPTION("Direct call moved between two trampolines (modify_ftrace_direct sample)");
MODULE_LICENSE("GPL");
