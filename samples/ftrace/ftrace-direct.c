// SPDX-License-Identifier: GPL-2.0
/*
 * Direct call on wake_up_process(): the trampoline of direct-tramp.h
 * reports each wake-up in the trace buffer, then the wake-up goes on.
 *
 * The selftests look for "my_direct_func: waking up" lines, so the
 * handler keeps that name and message.
 */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/ftrace.h>

#include "direct-tramp.h"

SAMPLE_DIRECT_TRAMP(my_tramp, my_direct_func);

SAMPLE_DIRECT_HANDLER(my_direct_func)
{
	struct task_struct *woken = (struct task_struct *)a0;

	trace_printk("waking up %s-%d\n", woken->comm, woken->pid);
}

static struct ftrace_ops direct_ops;

static int __init direct_sample_init(void)
{
	int ret;

	ret = ftrace_set_filter_ip(&direct_ops,
				   (unsigned long)wake_up_process, 0, 0);
	if (ret)
		return ret;
	ret = register_ftrace_direct(&direct_ops, (unsigned long)my_tramp);
	if (ret)
		ftrace_free_filter(&direct_ops);
	return ret;
}

static void __exit direct_sample_exit(void)
{
	unregister_ftrace_direct(&direct_ops, (unsigned long)my_tramp, true);
}

module_init(direct_sample_init);
module_exit(direct_sample_exit);

MODULE_DESCRIPTION("Direct call on wake_up_process() (register_ftrace_direct sample)");
MODULE_LICENSE("GPL");
