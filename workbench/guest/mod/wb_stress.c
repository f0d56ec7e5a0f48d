// SPDX-License-Identifier: GPL-2.0
/*
 * wb_stress: the in-kernel half of the stress job (workbench/guest/jobs/
 * stress.sh runs the tracefs half at the same time).
 *
 * For @seconds it runs, at once:
 *  - one caller thread per online CPU calling wb_stress_target(), which a
 *    "keeper" ops stays registered on (filtered to it) the whole time: its
 *    hit count must equal the number of calls exactly;
 *  - churn threads registering and unregistering ftrace_ops with every
 *    flag mix (none, SAVE_REGS, SAVE_REGS_IF_SUPPORTED, RECURSION, RCU,
 *    IPMODIFY, PERMANENT), filtered to a few functions, notrace'd, or on
 *    every function, and fprobes (entry, and entry+exit);
 *  - after each unregister returns the ops is marked dead; a callback that
 *    sees its ops dead is counted as a violation of "no callback after
 *    unregister returns".
 * Then it prints one result line and stays loaded with nothing registered
 * (the job unloads it; an init that failed would make busybox's insmod
 * load it a second time):
 *	wb_stress: calls C hits H rounds R fprobe_rounds F violations V errors E
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

static int seconds = 30;
module_param(seconds, int, 0444);
MODULE_PARM_DESC(seconds, "how long to run");

static unsigned long deadline;
static atomic64_t calls, hits, rounds, fp_rounds;
static atomic_t violations, errors;

/* Global (never cloned or renamed by the compiler): fprobe finds it by name. */
void wb_stress_target(unsigned long v);
void wb_stress_ipmod_target(void);

/* The dedicated target: only the callers call it. */
noinline void wb_stress_target(unsigned long v)
{
	asm volatile("" : : "r"(v) : "memory");
}

/* A function for the IPMODIFY ops (whose callback leaves ip alone). */
noinline void wb_stress_ipmod_target(void)
{
	asm volatile("" : : : "memory");
}

static void notrace wb_keeper_func(unsigned long ip, unsigned long pip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	atomic64_inc(&hits);
}

static struct ftrace_ops wb_keeper = {
	.func = wb_keeper_func,
};

struct wb_churn {
	struct ftrace_ops ops;
	int dead;
};

static void notrace wb_churn_func(unsigned long ip, unsigned long pip,
				  struct ftrace_ops *op,
				  struct ftrace_regs *fregs)
{
	struct wb_churn *c = container_of(op, struct wb_churn, ops);

	if (READ_ONCE(c->dead))
		atomic_inc(&violations);
}

static int wb_caller(void *arg)
{
	unsigned long i = 0;

	while (!kthread_should_stop()) {
		if (time_before(jiffies, deadline)) {
			wb_stress_target(i++);
			atomic64_inc(&calls);
			wb_stress_ipmod_target();
		}
		/* leave the CPU to the job's loops now and then */
		if (!(i & 4095))
			usleep_range(1000, 2000);
		if (time_after(jiffies, deadline))
			msleep(20);
	}
	return 0;
}

static const unsigned long churn_flags[] = {
	0,
	FTRACE_OPS_FL_SAVE_REGS,
	FTRACE_OPS_FL_SAVE_REGS_IF_SUPPORTED,
	FTRACE_OPS_FL_RECURSION,
	FTRACE_OPS_FL_RCU,
	FTRACE_OPS_FL_IPMODIFY,
	FTRACE_OPS_FL_PERMANENT | FTRACE_OPS_FL_RECURSION,
};

/* One register/unregister round of a fresh ops; @n picks flags and filter. */
static void wb_churn_round(unsigned long n)
{
	unsigned long flags = churn_flags[n % ARRAY_SIZE(churn_flags)];
	struct wb_churn *c = kzalloc(sizeof(*c), GFP_KERNEL);
	unsigned char glob[16];
	int err = 0;

	if (!c)
		return;
	c->ops.func = wb_churn_func;
	c->ops.flags = flags;
	if (flags & FTRACE_OPS_FL_IPMODIFY) {
		err = ftrace_set_filter_ip(&c->ops,
					   (unsigned long)wb_stress_ipmod_target,
					   0, 0);
	} else {
		switch ((n / ARRAY_SIZE(churn_flags)) % 4) {
		case 0:
			strscpy(glob, "vfs_read", sizeof(glob));
			err = ftrace_set_filter(&c->ops, glob, strlen(glob), 0);
			break;
		case 1:
			strscpy(glob, "wb_stress_*", sizeof(glob));
			err = ftrace_set_filter(&c->ops, glob, strlen(glob), 0);
			break;
		case 2:
			strscpy(glob, "*lock*", sizeof(glob));
			err = ftrace_set_notrace(&c->ops, glob, strlen(glob), 0);
			break;
		default:
			/* every function: the most patching there is */
			break;
		}
	}
	if (!err)
		err = register_ftrace_function(&c->ops);
	if (!err) {
		usleep_range(n % 3 * 5000, n % 3 * 5000 + 1000);
		err = unregister_ftrace_function(&c->ops);
		WRITE_ONCE(c->dead, 1);
		/* anything still running the callback now is a violation */
		usleep_range(50, 100);
		if (!err)
			atomic64_inc(&rounds);
	}
	if (err && err != -EBUSY) {
		pr_info("wb_stress: ops round %lu (flags %#lx): %d\n", n, flags, err);
		atomic_inc(&errors);
	}
	ftrace_free_filter(&c->ops);
	kfree(c);
}

static int wb_churn(void *arg)
{
	unsigned long n = (unsigned long)arg;

	while (!kthread_should_stop() && time_before(jiffies, deadline)) {
		wb_churn_round(n);
		n += 3;
		cond_resched();
	}
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

struct wb_fp {
	struct fprobe fp;
	int dead;
};

/* 6.12's fprobe handlers get pt_regs, ours ftrace_regs (wb_fprobe_bench.c) */
#ifdef FPROBE_ENTRY_DATA_MAX
#define WB_FP_REGS struct ftrace_regs
#else
#define WB_FP_REGS struct pt_regs
#endif

static int wb_fp_entry(struct fprobe *fp, unsigned long ip,
		       unsigned long ret_ip, WB_FP_REGS *regs, void *data)
{
	struct wb_fp *w = container_of(fp, struct wb_fp, fp);

	if (READ_ONCE(w->dead))
		atomic_inc(&violations);
	return 0;
}

static void wb_fp_exit(struct fprobe *fp, unsigned long ip,
		       unsigned long ret_ip, WB_FP_REGS *regs, void *data)
{
	struct wb_fp *w = container_of(fp, struct wb_fp, fp);

	if (READ_ONCE(w->dead))
		atomic_inc(&violations);
}

static int wb_fprobe_churn(void *arg)
{
	unsigned long n = 0;

	while (!kthread_should_stop() && time_before(jiffies, deadline)) {
		struct wb_fp *w = kzalloc(sizeof(*w), GFP_KERNEL);
		int err;

		if (!w)
			break;
		w->fp.entry_handler = wb_fp_entry;
		if (n & 1)
			w->fp.exit_handler = wb_fp_exit;
		err = register_fprobe(&w->fp, n & 2 ? "vfs_*" : "wb_stress_target",
				      NULL);
		if (!err) {
			usleep_range(5000, 6000);
			err = unregister_fprobe(&w->fp);
			WRITE_ONCE(w->dead, 1);
			usleep_range(50, 100);
			if (!err)
				atomic64_inc(&fp_rounds);
		}
		if (err) {
			pr_info("wb_stress: fprobe round %lu: %d\n", n, err);
			atomic_inc(&errors);
		}
		kfree(w);
		n++;
		cond_resched();
	}
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

static int __init wb_stress_init(void)
{
	struct task_struct **t;
	int nr = 0, cpu, err, i;

	t = kcalloc(nr_cpu_ids + 4, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	deadline = jiffies + seconds * HZ;
	err = ftrace_set_filter_ip(&wb_keeper, (unsigned long)wb_stress_target,
				   0, 0);
	if (!err)
		err = register_ftrace_function(&wb_keeper);
	if (err) {
		pr_err("wb_stress: keeper ops: %d\n", err);
		kfree(t);
		return err;
	}

	for_each_online_cpu(cpu) {
		if (nr >= nr_cpu_ids)
			break;
		t[nr] = kthread_create(wb_caller, NULL, "wb_caller/%d", cpu);
		if (!IS_ERR(t[nr])) {
			kthread_bind(t[nr], cpu);
			wake_up_process(t[nr++]);
		}
	}
	for (i = 0; i < 2; i++) {
		t[nr] = kthread_run(wb_churn, (void *)(unsigned long)i,
				    "wb_churn/%d", i);
		if (!IS_ERR(t[nr]))
			nr++;
	}
	t[nr] = kthread_run(wb_fprobe_churn, NULL, "wb_fprobe");
	if (!IS_ERR(t[nr]))
		nr++;

	msleep_interruptible(seconds * 1000);
	while (time_before(jiffies, deadline + HZ / 10))
		msleep(20);
	for (i = 0; i < nr; i++)
		kthread_stop(t[i]);
	kfree(t);

	WARN_ON(unregister_ftrace_function(&wb_keeper));
	ftrace_free_filter(&wb_keeper);
	pr_info("wb_stress: calls %lld hits %lld rounds %lld fprobe_rounds %lld violations %d errors %d\n",
		atomic64_read(&calls), atomic64_read(&hits),
		atomic64_read(&rounds), atomic64_read(&fp_rounds),
		atomic_read(&violations), atomic_read(&errors));
	return 0;
}

static void __exit wb_stress_exit(void)
{
}

module_init(wb_stress_init);
module_exit(wb_stress_exit);
MODULE_DESCRIPTION("workbench: concurrent ftrace_ops and fprobe churn");
MODULE_LICENSE("GPL");
