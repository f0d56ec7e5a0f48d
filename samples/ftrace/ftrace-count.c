// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace-count: the smallest useful ftrace_ops user.
 *
 * One ops counts the calls of the functions named by the "func" parameter
 * (a name or a glob, as set_ftrace_filter takes it; by default this
 * module's own ftrace_count_target()).  The count is in
 * /sys/module/ftrace_count/parameters/calls; writing N to .../run calls
 * ftrace_count_target() N times, so the count can be checked exactly:
 *
 *	modprobe ftrace-count
 *	echo 5 > /sys/module/ftrace_count/parameters/run
 *	cat /sys/module/ftrace_count/parameters/calls		# 5
 *
 * What it shows: the callback runs in any context the traced function
 * runs in (here: with preemption possibly enabled, and it may nest), so it
 * only does an atomic increment; FTRACE_OPS_FL_RECURSION asks the core to
 * skip it when it recurses; the filter is set before registering, so the
 * ops never runs on anything else; unregistering on unload returns only
 * when no CPU can still be in the callback, so the module text may go.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/string.h>

static char *func = "ftrace_count_target";
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "Function name or glob to count the calls of");

static atomic_long_t calls = ATOMIC_LONG_INIT(0);

/* The function the run parameter calls; noinline keeps its call site. */
static noinline void ftrace_count_target(void)
{
	asm volatile("");
}

static void ftrace_count_cb(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	atomic_long_inc(&calls);
}

static struct ftrace_ops ftrace_count_ops = {
	.func	= ftrace_count_cb,
	.flags	= FTRACE_OPS_FL_RECURSION,
};

static int calls_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&calls));
}

static const struct kernel_param_ops calls_ops = {
	.get	= calls_get,
};
module_param_cb(calls, &calls_ops, NULL, 0444);
MODULE_PARM_DESC(calls, "Calls counted so far (read only)");

static int run_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n, i;
	int err;

	err = kstrtouint(val, 0, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		ftrace_count_target();
	return 0;
}

static const struct kernel_param_ops run_ops = {
	.set	= run_set,
};
module_param_cb(run, &run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "Write N: call ftrace_count_target() N times");

static int __init ftrace_count_init(void)
{
	int err;

	err = ftrace_set_filter(&ftrace_count_ops, func, strlen(func), 1);
	if (err) {
		pr_err("no traceable function matches '%s': %d\n", func, err);
		return err;
	}
	err = register_ftrace_function(&ftrace_count_ops);
	if (err) {
		ftrace_free_filter(&ftrace_count_ops);
		return err;
	}
	return 0;
}

static void __exit ftrace_count_exit(void)
{
	unregister_ftrace_function(&ftrace_count_ops);
	ftrace_free_filter(&ftrace_count_ops);
	pr_info("%ld calls of %s counted\n", atomic_long_read(&calls), func);
}

module_init(ftrace_count_init);
module_exit(ftrace_count_exit);
MODULE_DESCRIPTION("Count the calls of functions with one ftrace_ops");
MODULE_LICENSE("GPL");
