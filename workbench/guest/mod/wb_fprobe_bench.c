// SPDX-License-Identifier: GPL-2.0
/*
 * wb_fprobe_bench: the cost of an fprobe (or a kretprobe) hit, and the time
 * to attach an fprobe to every traceable function, measured inside the
 * kernel.  Built against both kernels of the workbench: 6.12's fprobe hands
 * its handlers pt_regs, ours ftrace_regs (our <linux/fprobe.h> defines
 * FPROBE_ENTRY_DATA_MAX); the handlers below only count, so either works.
 *
 * Module parameters:
 *   mode   "entry" (entry handler only), "exit" (entry and exit handlers),
 *          "kretprobe" (a kretprobe with entry and return handlers),
 *          "kprobe" (a kprobe with a pre_handler on the target's entry,
 *          or at byte @off of it; with @post=1 a post_handler too),
 *          "none" (no probe of the module's: with spin=, for itrace.py to
 *          step a probe event defined on the target from tracefs)
 *   all    1: the fprobe is on every function ("*"), not just the target
 *   calls  calls of the target per timing
 *   spin   seconds to keep calling the probed target after the timing, for
 *          workbench/itrace.py to single-step one call from a debugger
 * At load it times @calls calls of wb_fpb_target() without and with the
 * probe and prints
 *   wb_fprobe_bench: <mode> all=<0|1> hit <ps per call> register <ns> unregister <ns> hits <n> base <ps per call>
 * where base is a call without the module's probe (but with whatever
 * tracefs has set on the target: the tracer rows of the bench job).
 * then refuses to stay loaded (-EAGAIN).  The handlers and the timing loop
 * are notrace: with the probe on every function they would be probed too.
 */
#include <linux/fprobe.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

static char mode[16] = "entry";
module_param_string(mode, mode, sizeof(mode), 0444);
static int all;
module_param(all, int, 0444);
static int calls = 100000;
module_param(calls, int, 0444);

static int spin;
module_param(spin, int, 0444);
static int off;
module_param(off, int, 0444);
static int post;
module_param(post, int, 0444);

static unsigned long wb_fpb_hits;

/* The probed function: in this module, so it has an fentry call site. */
static noinline unsigned long wb_fpb_target(unsigned long x)
{
	asm volatile("");
	return x * 3 + 1;
}

#ifdef FPROBE_ENTRY_DATA_MAX
#define WB_FPB_REGS struct ftrace_regs
#else
#define WB_FPB_REGS struct pt_regs
#endif

static notrace int wb_fpb_entry(struct fprobe *fp, unsigned long ip,
			unsigned long ret_ip, WB_FPB_REGS *regs, void *data)
{
	wb_fpb_hits++;
	return 0;
}

static notrace void wb_fpb_exit(struct fprobe *fp, unsigned long ip,
			unsigned long ret_ip, WB_FPB_REGS *regs, void *data)
{
}

static struct fprobe wb_fpb;

static notrace int wb_krp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	wb_fpb_hits++;
	return 0;
}

static notrace int wb_krp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

static struct kretprobe wb_krp = {
	.entry_handler	= wb_krp_entry,
	.handler	= wb_krp_ret,
	.maxactive	= 64,
};

static notrace int wb_kp_pre(struct kprobe *p, struct pt_regs *regs)
{
	wb_fpb_hits++;
	return 0;
}

static notrace void wb_kp_post(struct kprobe *p, struct pt_regs *regs,
			       unsigned long flags)
{
}

static struct kprobe wb_kp = {
	.pre_handler	= wb_kp_pre,
};

/* Picoseconds per call of the target, over @calls calls. */
static notrace u64 wb_fpb_time_calls(void)
{
	unsigned long acc = 0;
	u64 t0, t1;
	int i;

	t0 = ktime_get_ns();
	for (i = 0; i < calls; i++)
		acc += wb_fpb_target(i);
	t1 = ktime_get_ns();
	OPTIMIZER_HIDE_VAR(acc);
	return div_u64((t1 - t0) * 1000, calls);
}

static int wb_fpb_attach(bool krp)
{
	if (!strcmp(mode, "none"))
		return 0;
	if (!strcmp(mode, "kprobe")) {
		wb_kp.addr = (kprobe_opcode_t *)wb_fpb_target + off;
		if (post)
			wb_kp.post_handler = wb_kp_post;
		return register_kprobe(&wb_kp);
	}
	if (krp) {
		wb_krp.kp.addr = (kprobe_opcode_t *)wb_fpb_target;
		return register_kretprobe(&wb_krp);
	}
	wb_fpb.entry_handler = wb_fpb_entry;
	if (!strcmp(mode, "exit"))
		wb_fpb.exit_handler = wb_fpb_exit;
	if (all)
		return register_fprobe(&wb_fpb, "*", NULL);
	return register_fprobe(&wb_fpb, "wb_fpb_target", NULL);
}

static void wb_fpb_detach(bool krp)
{
	if (!strcmp(mode, "none"))
		return;
	if (!strcmp(mode, "kprobe"))
		unregister_kprobe(&wb_kp);
	else if (krp)
		unregister_kretprobe(&wb_krp);
	else
		unregister_fprobe(&wb_fpb);
}

static int __init wb_fprobe_bench_init(void)
{
	bool krp = !strcmp(mode, "kretprobe");
	u64 base, hit, t0, t1, t2;
	int err;

	if (calls <= 0 || ((krp || !strcmp(mode, "kprobe")) && all))
		return -EINVAL;
	wb_fpb_time_calls();		/* warm up */
	base = wb_fpb_time_calls();

	t0 = ktime_get_ns();
	err = wb_fpb_attach(krp);
	t1 = ktime_get_ns();
	if (err) {
		pr_err("wb_fprobe_bench: %s all=%d: register failed: %d\n",
		       mode, all, err);
		return err;
	}
	wb_fpb_hits = 0;
	hit = wb_fpb_time_calls();
	t2 = ktime_get_ns();
	if (spin > 0) {
		u64 end = ktime_get_ns() + (u64)spin * NSEC_PER_SEC;
		unsigned long acc = 0;

		/*
		 * Sleep first: a breakpoint kprobe becomes a jump only after
		 * a tasks-RCU grace period, which this task would hold back
		 * while it spins.
		 */
		if (!strcmp(mode, "kprobe") && off)
			msleep(2000);
		pr_info("wb_fprobe_bench: spinning for %d s\n", spin);
		while (ktime_get_ns() < end)
			acc += wb_fpb_target(acc);
		OPTIMIZER_HIDE_VAR(acc);
	}
	wb_fpb_detach(krp);
	pr_info("wb_fprobe_bench: %s all=%d hit %llu register %llu unregister %llu hits %lu base %llu\n",
		mode, all, hit > base ? hit - base : 0, t1 - t0,
		ktime_get_ns() - t2, wb_fpb_hits, base);
	return -EAGAIN;
}
module_init(wb_fprobe_bench_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fprobe and kretprobe hit and attach costs");
