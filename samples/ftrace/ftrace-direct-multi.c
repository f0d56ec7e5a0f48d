// SPDX-License-Identifier: GPL-2.0
/*
 * One direct ops on two functions, wake_up_process() and schedule(): a
 * single trampoline serves both call sites and its handler tells them
 * apart by the site address it is given.
 */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/ftrace.h>

#include "direct-tramp.h"

SAMPLE_DIRECT_TRAMP(multi_tramp, multi_direct_func);

SAMPLE_DIRECT_HANDLER(multi_direct_func)
{
	trace_printk("direct call from %ps (site %lx)\n", (void *)site, site);
}

static struct ftrace_ops multi_ops;

static int __init direct_multi_init(void)
{
	unsigned long ips[] = {
		(unsigned long)wake_up_process,
		(unsigned long)schedule,
	};
	int ret;

	ret = ftrace_set_filter_ips(&multi_ops, ips, ARRAY_SIZE(ips), 0, 0);
	if (ret)
		return ret;
	ret = register_ftrace_direct(&multi_ops, (unsigned long)multi_tramp);
	if (ret)
		ftrace_free_filter(&multi_ops);
	return ret;
}

static void __exit direct_multi_exit(void)
{
	unregister_ftrace_direct(&multi_ops, (unsigned long)multi_tramp, true);
}

module_init(direct_multi_init);
module_exit(direct_multi_exit);

MODULE_DESCRIPTION("One direct ops on two functions (register_ftrace_direct sample)");
MODULE_LICENSE("GPL");
