// SPDX-License-Identifier: GPL-2.0
/*
 * wb_ops_demo: register one ftrace_ops filtered on one function and count
 * the calls it sees.  The count is readable while loaded from
 * /sys/module/wb_ops_demo/parameters/hits and is printed at unload.
 */
#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

static char func[KSYM_NAME_LEN] = "vfs_read";
module_param_string(func, func, sizeof(func), 0444);
MODULE_PARM_DESC(func, "function (or glob) to filter on");

static atomic_long_t wb_hits = ATOMIC_LONG_INIT(0);

static int wb_hits_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&wb_hits));
}

static const struct kernel_param_ops wb_hits_ops = {
	.get = wb_hits_get,
};
module_param_cb(hits, &wb_hits_ops, NULL, 0444);
MODULE_PARM_DESC(hits, "calls seen so far");

static void wb_demo_callback(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	atomic_long_inc(&wb_hits);
}

static struct ftrace_ops wb_demo_ops = {
	.func = wb_demo_callback,
	.flags = FTRACE_OPS_FL_RECURSION,
};

static int __init wb_ops_demo_init(void)
{
	int ret;

	ret = ftrace_set_filter(&wb_demo_ops, func, strlen(func), 1);
	if (ret) {
		pr_err("wb_ops_demo: filter '%s' rejected: %d\n", func, ret);
		return ret;
	}
	ret = register_ftrace_function(&wb_demo_ops);
	if (ret) {
		ftrace_free_filter(&wb_demo_ops);
		return ret;
	}
	pr_info("wb_ops_demo: counting calls to %s\n", func);
	return 0;
}

static void __exit wb_ops_demo_exit(void)
{
	unregister_ftrace_function(&wb_demo_ops);
	ftrace_free_filter(&wb_demo_ops);
	pr_info("wb_ops_demo: %ld calls to %s\n", atomic_long_read(&wb_hits), func);
}

module_init(wb_ops_demo_init);
module_exit(wb_ops_demo_exit);
MODULE_DESCRIPTION("workbench demo: one filtered ftrace_ops counting hits");
MODULE_LICENSE("GPL");
