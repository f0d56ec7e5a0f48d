// SPDX-License-Identifier: GPL-2.0
/*
 * The per-task backend of return probes, for arches with their own
 * kretprobe trampoline and no rethook (CONFIG_KRETPROBES without
 * CONFIG_KRETPROBE_ON_RETHOOK; arm64 in 6.12).
 *
 * Each kretprobe owns a struct kretprobe_holder: an objpool of instances
 * and an RCU pointer back to the probe.  A hit takes an instance, the
 * arch saves the return address in it and points the return at
 * __kretprobe_trampoline (arch_prepare_kretprobe()), and the instance is
 * pushed on current->kretprobe_instances.  The trampoline calls
 * __kretprobe_trampoline_handler(), which finds the instances of the
 * returning frame at the head of that list.
 *
 * Invariants:
 *  - current->kretprobe_instances is only touched by its own task, with
 *    kprobes busy on the CPU (so no probe hit nests), or by
 *    kprobe_flush_task() once the task is dead.
 *  - Several instances of one frame are adjacent, newest first; only the
 *    oldest holds the real return address, the newer ones hold the
 *    trampoline (the return was already hooked when they were taken).
 *  - Unregistration clears holder->rp under kprobe_mutex; an instance
 *    that comes back afterwards runs no handler and is dropped from the
 *    pool after a grace period; the pool is freed with its last object.
 */
#include <linux/kprobes.h>
#include <linux/llist.h>
#include <linux/objpool.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "kretprobes_internal.h"

/* objpool callbacks: each instance knows its holder ... */
static int instance_init(void *obj, void *context)
{
	((struct kretprobe_instance *)obj)->rph = context;
	return 0;
}

/* ... which goes with the pool's last object. */
static int holder_release(struct objpool_head *head, void *context)
{
	kfree(context);
	return 0;
}

/**
 * kretprobe_pool_create - allocate a return probe's instances
 * @rp: the probe, with maxactive and data_size set
 *
 * Return: 0 or -ENOMEM (@rp->rph is then NULL).
 */
int kretprobe_pool_create(struct kretprobe *rp)
{
	struct kretprobe_holder *rph;

	rp->rph = NULL;
	rph = kzalloc(sizeof(*rph), GFP_KERNEL);
	if (!rph)
		return -ENOMEM;
	if (objpool_init(&rph->pool, rp->maxactive,
			 sizeof(struct kretprobe_instance) + rp->data_size,
			 GFP_KERNEL, rph, instance_init, holder_release)) {
		kfree(rph);
		return -ENOMEM;
	}
	rcu_assign_pointer(rph->rp, rp);
	rp->rph = rph;
	return 0;
}

/**
 * kretprobe_pool_detach - cut pending instances off their probe
 * @rp: the probe, out of the kprobe table
 *
 * Context: process context, before the unregistration's grace period.
 */
void kretprobe_pool_detach(struct kretprobe *rp)
{
	if (rp->rph)
		rcu_assign_pointer(rp->rph->rp, NULL);
}

/**
 * kretprobe_pool_release - let the pool go once its instances are back
 * @rp: the probe, after the grace period
 */
void kretprobe_pool_release(struct kretprobe *rp)
{
	/* Frees the pool now, or when its last instance comes back. */
	if (rp->rph)
		objpool_fini(&rp->rph->pool);
	rp->rph = NULL;
}

static void drop_instance_rcu(struct rcu_head *head)
{
	struct kretprobe_instance *ri =
		container_of(head, struct kretprobe_instance, rcu);

	objpool_drop(ri, &ri->rph->pool);
}

NOKPROBE_SYMBOL(drop_instance_rcu);

/* Give @ri back to its pool, or drop it if its probe is gone. */
static void put_instance(struct kretprobe_instance *ri)
{
	if (likely(get_kretprobe(ri)))
		objpool_push(ri, &ri->rph->pool);
	else
		call_rcu(&ri->rcu, drop_instance_rcu);
}

NOKPROBE_SYMBOL(put_instance);

/**
 * kretprobe_hit - the pre_handler of every return probe
 * @p: the kp of the kretprobe
 * @regs: the frame at the function's entry
 *
 * Return: 0: the probed function always goes on.
 */
int kretprobe_hit(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct kretprobe_instance *ri;

	ri = objpool_pop(&rp->rph->pool);
	if (!ri) {
		rp->nmissed++;
		return 0;
	}
	if (!rp->entry_handler || !rp->entry_handler(ri, regs)) {
		/* The arch saves the return address in @ri and hooks it. */
		arch_prepare_kretprobe(ri, regs);
		__llist_add(&ri->llist, &current->kretprobe_instances);
	} else {
		objpool_push(ri, &rp->rph->pool);
	}
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_hit);

/**
 * kprobe_flush_task - give back the instances of a dead task
 * @tk: the task, no longer running
 *
 * Its probed functions will never return.
 */
void kprobe_flush_task(struct task_struct *tk)
{
	struct llist_node *node, *next;

	if (unlikely(!kprobes_ready))
		return;

	kprobe_busy_begin();
	node = __llist_del_all(&tk->kretprobe_instances);
	for (; node; node = next) {
		next = node->next;
		put_instance(container_of(node, struct kretprobe_instance,
					  llist));
	}
	kprobe_busy_end();
}

NOKPROBE_SYMBOL(kprobe_flush_task);

/*
 * The next instance after *@cur (from the head if NULL) that holds a
 * real return address; *@cur is moved to it.  Returns that address.
 */
static kprobe_opcode_t *next_real_return(struct task_struct *tsk,
					 struct llist_node **cur)
{
	struct llist_node *node = *cur ? (*cur)->next :
					 tsk->kretprobe_instances.first;
	struct kretprobe_instance *ri;

	for (; node; node = node->next) {
		ri = container_of(node, struct kretprobe_instance, llist);
		if (ri->ret_addr != kretprobe_trampoline_addr()) {
			*cur = node;
			return ri->ret_addr;
		}
	}
	return NULL;
}

NOKPROBE_SYMBOL(next_real_return);

/**
 * kretprobe_find_ret_addr - the real return address behind a trampoline
 * @tsk: current, or a task that is not running
 * @fp: the frame pointer of the frame whose return was hooked
 * @cur: the walk's cursor: *@cur NULL for the first call, then passed
 *	back unchanged to go on with the next frames
 *
 * For unwinders that meet __kretprobe_trampoline on a stack.
 *
 * Return: the return address, or 0 if none is found.
 */
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur)
{
	struct kretprobe_instance *ri;
	kprobe_opcode_t *found = NULL;

	if (WARN_ON_ONCE(!cur))
		return 0;
	/* Frames below @fp come first on the list: pass over them. */
	do {
		found = next_real_return(tsk, cur);
		ri = found ? container_of(*cur, struct kretprobe_instance,
					  llist) : NULL;
	} while (ri && ri->fp != fp);
	return (unsigned long)found;
}

NOKPROBE_SYMBOL(kretprobe_find_ret_addr);

/**
 * arch_kretprobe_fixup_return - put the real return address back
 * @regs: the trampoline's frame
 * @correct_ret_addr: the real return address
 *
 * For an arch whose unwinders need it; the default does nothing.
 */
void __weak arch_kretprobe_fixup_return(struct pt_regs *regs,
					kprobe_opcode_t *correct_ret_addr)
{
}

/* Call the handler of @ri, as if its probe were running. */
static void run_return_handler(struct kretprobe_instance *ri,
			       struct pt_regs *regs, kprobe_opcode_t *ret_addr)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct kprobe *outer;

	if (!rp || !rp->handler)
		return;
	outer = kprobe_running();
	__this_cpu_write(current_kprobe, &rp->kp);
	ri->ret_addr = ret_addr;
	rp->handler(ri, regs);
	__this_cpu_write(current_kprobe, outer);
}

NOKPROBE_SYMBOL(run_return_handler);

/* Cut the list of current's instances after @last; give back the rest. */
static void pop_frame(struct llist_node *last)
{
	struct llist_node *node = current->kretprobe_instances.first;
	struct llist_node *next;

	current->kretprobe_instances.first = last->next;
	last->next = NULL;
	while (node) {
		next = node->next;
		put_instance(container_of(node, struct kretprobe_instance,
					  llist));
		node = next;
	}
}

NOKPROBE_SYMBOL(pop_frame);

/**
 * __kretprobe_trampoline_handler - run the handlers of a returning frame
 * @regs: the trampoline's frame
 * @frame_pointer: the frame pointer the instances were taken with
 *
 * Runs the handler of each instance of the frame, newest first, with the
 * pc set to the real return address, then gives the instances back.
 *
 * Context: the arch's trampoline, inside kprobe_busy_begin().
 * Return: the address the function must really return to.
 */
unsigned long __kretprobe_trampoline_handler(struct pt_regs *regs,
					     void *frame_pointer)
{
	struct llist_node *oldest = NULL, *node;
	struct kretprobe_instance *ri;
	kprobe_opcode_t *ret_addr;

	/* The oldest instance of this frame holds the real address. */
	ret_addr = next_real_return(current, &oldest);
	/* No address to return to: nothing sane can follow. */
	if (!ret_addr) {
		pr_err("kretprobe: no instance holds this return address\n");
		BUG();
	}
	/* Stack traces taken by the handlers start at the real caller. */
	instruction_pointer_set(regs, (unsigned long)ret_addr);

	node = current->kretprobe_instances.first;
	do {
		ri = container_of(node, struct kretprobe_instance, llist);
		if (WARN_ON_ONCE(ri->fp != frame_pointer))
			break;
		run_return_handler(ri, regs, ret_addr);
		node = node->next;
	} while (ri != container_of(oldest, struct kretprobe_instance, llist));

	arch_kretprobe_fixup_return(regs, ret_addr);
	pop_frame(oldest);
	return (unsigned long)ret_addr;
}

NOKPROBE_SYMBOL(__kretprobe_trampoline_handler);
