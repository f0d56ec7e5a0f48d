// SPDX-License-Identifier: GPL-2.0
/*
 * wb_event_bench: something for probe events to hit, timed inside the
 * kernel, so the cost of a kprobe, kretprobe, fprobe or eprobe event hit
 * can be read as (time with the event enabled - time without) / calls.
 * Built against both kernels of the workbench; it stays loaded.
 *
 * Parameters (write N to run, then read last_ps):
 *   run         time N calls of wb_evb_target(), the function the
 *               kprobe/kretprobe/fprobe events of the bench are put on
 *   alloc_run   time N kmalloc(64)/kfree() pairs (kmem/kmalloc fires
 *               once a pair: what the eprobe row sits on)
 *   kprobe_run  register a kprobe (pre_handler only) on wb_evb_target(),
 *               time N calls, unregister it; kprobe_hits counts its hits
 *               and on_call_site says whether it sat on the call site
 *   last_ps     picoseconds per call (or pair) of the last run
 */
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

static unsigned long last_ps;
module_param(last_ps, ulong, 0444);
static unsigned long kprobe_hits;
module_param(kprobe_hits, ulong, 0444);
static int on_call_site;
module_param(on_call_site, int, 0444);

/*
 * The probed function: in this module, so it has an fentry call site.
 * noipa: no clone under another name (gcc made a ".isra.0" one), which
 * probes by name would not find.
 */
static __attribute__((__noipa__)) unsigned long wb_evb_target(unsigned long x)
{
	asm volatile("");
	return x * 3 + 1;
}

static notrace void wb_evb_calls(unsigned long n)
{
	unsigned long i, acc = 0;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i++)
		acc += wb_evb_target(i);
	last_ps = div64_u64((ktime_get_ns() - t0) * 1000, n);
	OPTIMIZER_HIDE_VAR(acc);
}

static notrace void wb_evb_allocs(unsigned long n)
{
	unsigned long i;
	u64 t0 = ktime_get_ns();
	void *p;

	for (i = 0; i < n; i++) {
		p = kmalloc(64, GFP_KERNEL);
		OPTIMIZER_HIDE_VAR(p);
		kfree(p);
	}
	last_ps = div64_u64((ktime_get_ns() - t0) * 1000, n);
}

static notrace int wb_evb_pre(struct kprobe *kp, struct pt_regs *regs)
{
	kprobe_hits++;
	return 0;
}

static struct kprobe wb_evb_kp = {
	.symbol_name	= "wb_evb_target",
	.pre_handler	= wb_evb_pre,
};

static int wb_evb_kprobe(unsigned long n)
{
	int err;

	wb_evb_kp.addr = NULL;
	wb_evb_kp.flags = 0;
	err = register_kprobe(&wb_evb_kp);
	if (err)
		return err;
	on_call_site = !!(wb_evb_kp.flags & KPROBE_FLAG_FTRACE);
	kprobe_hits = 0;
	wb_evb_calls(n);
	unregister_kprobe(&wb_evb_kp);
	return 0;
}

static int wb_evb_set(const char *val, const struct kernel_param *kp)
{
	unsigned long n;
	int err = kstrtoul(val, 0, &n);

	if (err || !n)
		return err ?: -EINVAL;
	switch ((long)kp->arg) {
	case 0:
		wb_evb_calls(n);
		return 0;
	case 1:
		wb_evb_allocs(n);
		return 0;
	default:
		return wb_evb_kprobe(n);
	}
}

static const struct kernel_param_ops wb_evb_ops = {
	.set = wb_evb_set,
};

module_param_cb(run, &wb_evb_ops, (void *)0L, 0200);
module_param_cb(alloc_run, &wb_evb_ops, (void *)1L, 0200);
module_param_cb(kprobe_run, &wb_evb_ops, (void *)2L, 0200);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A target for probe-event hit costs");
