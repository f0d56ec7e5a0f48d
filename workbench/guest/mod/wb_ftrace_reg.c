// SPDX-License-Identifier: GPL-2.0
/*
 * wb_ftrace_reg: how long registering and unregistering one ftrace_ops on
 * every traceable function takes, measured inside the kernel so that the
 * figure holds the hook machinery only (no tracer set-up, no shell).
 *
 * At load it registers an ops with an empty callback and no filter,
 * unregisters it, and prints, per round,
 *	wb_ftrace_reg: register <ns> unregister <ns>
 * then refuses to stay loaded (-EAGAIN): nothing to unload afterwards.
 */
#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static int rounds = 1;
module_param(rounds, int, 0444);
MODULE_PARM_DESC(rounds, "register/unregister rounds to time");

static void notrace wb_reg_callback(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op,
				    struct ftrace_regs *fregs)
{
}

static struct ftrace_ops wb_reg_ops = {
	.func = wb_reg_callback,
};

static int __init wb_ftrace_reg_init(void)
{
	u64 t0, t1, t2;
	int i, err;

	for (i = 0; i < rounds; i++) {
		t0 = ktime_get_ns();
		err = register_ftrace_function(&wb_reg_ops);
		t1 = ktime_get_ns();
		if (err)
			return err;
		err = unregister_ftrace_function(&wb_reg_ops);
		t2 = ktime_get_ns();
		if (err)
			return err;
		pr_info("wb_ftrace_reg: register %llu unregister %llu\n",
			t1 - t0, t2 - t1);
	}
	return -EAGAIN;
}
module_init(wb_ftrace_reg_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("time ftrace_ops registration on all functions");
