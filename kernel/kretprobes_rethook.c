// SPDX-License-Identifier: GPL-2.0
/*
 * The rethook backend of return probes (CONFIG_KRETPROBE_ON_RETHOOK).
 *
 * Each kretprobe owns a struct rethook whose pool holds its instances
 * (a struct kretprobe_instance wraps the rethook_node, followed by
 * data_size bytes) and whose data is the kretprobe.  A hit takes a node
 * and hooks the return address through it; the return runs
 * kretprobe_on_return() with the function's return frame.
 *
 * Unregistration stops the rethook under kprobe_mutex (rethook_free():
 * its handler is cleared, so pending returns call nothing) and rethook
 * frees the pool once the last pending node comes back.
 */
#include <linux/err.h>
#include <linux/kprobes.h>
#include <linux/rethook.h>

#include "kretprobes_internal.h"

/**
 * kretprobe_hit - the pre_handler of every return probe
 * @p: the kp of the kretprobe
 * @regs: the frame at the function's entry
 *
 * Takes an instance (or counts a miss when maxactive are in use), lets
 * the entry_handler refuse it, and hooks the function's return.
 *
 * Return: 0: the probed function always goes on.
 */
int kretprobe_hit(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct rethook_node *node = rethook_try_get(rp->rh);
	bool refused;

	if (unlikely(!node)) {
		/* All maxactive instances are out (or the probe is going). */
		rp->nmissed++;
		return 0;
	}
	refused = rp->entry_handler &&
		  rp->entry_handler(container_of(node, struct kretprobe_instance,
						 node), regs);
	if (!refused) {
		/* On a call site the return address is where the call left it. */
		rethook_hook(node, regs, kprobe_ftrace(p));
		return 0;
	}
	rethook_recycle(node);
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_hit);

/*
 * The rethook handler: a hooked function returns, with @regs its return
 * frame.  The handler runs as its probe would, with kprobes busy.
 */
static void kretprobe_on_return(struct rethook_node *node, void *data,
				unsigned long ret_addr, struct pt_regs *regs)
{
	struct kretprobe_instance *ri =
		container_of(node, struct kretprobe_instance, node);
	struct kretprobe *rp = data;

	/* data is the kretprobe for the rethook's whole life. */
	if (WARN_ON_ONCE(!rp))
		return;
	if (rp->handler) {
		get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
		__this_cpu_write(current_kprobe, &rp->kp);
		rp->handler(ri, regs);
		__this_cpu_write(current_kprobe, NULL);
	}
}

NOKPROBE_SYMBOL(kretprobe_on_return);

/**
 * kretprobe_pool_create - allocate a return probe's instances
 * @rp: the probe, with maxactive and data_size set
 *
 * Return: 0 or a negative error (@rp->rh is then NULL).
 */
int kretprobe_pool_create(struct kretprobe *rp)
{
	struct rethook *rh;

	rh = rethook_alloc(rp, kretprobe_on_return,
			   sizeof(struct kretprobe_instance) + rp->data_size,
			   rp->maxactive);
	if (IS_ERR(rh)) {
		rp->rh = NULL;
		return PTR_ERR(rh);
	}
	rp->rh = rh;
	return 0;
}

/**
 * kretprobe_pool_detach - stop a return probe's pending returns
 * @rp: the probe, out of the kprobe table
 *
 * A hit still running may use @rp->rh until the grace period ends: the
 * rethook stays valid (it is freed after one) and gives out no node.
 * It frees its pool after the last pending node comes back.
 *
 * Context: process context, before the unregistration's grace period.
 */
void kretprobe_pool_detach(struct kretprobe *rp)
{
	if (rp->rh)
		rethook_free(rp->rh);
}

/**
 * kretprobe_pool_release - forget a detached pool
 * @rp: the probe, after the grace period
 */
void kretprobe_pool_release(struct kretprobe *rp)
{
	rp->rh = NULL;
}
