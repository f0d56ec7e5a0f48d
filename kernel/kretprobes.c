// SPDX-License-Identifier: GPL-2.0
/*
 * Return probes: a kprobe on a function's entry whose pre_handler
 * (kretprobe_hit(), from the backend) takes an instance from the probe's
 * pool, runs the entry_handler and hooks the return address, so that the
 * handler runs when the function returns.
 *
 * This file is the registration side; what an instance is and how the
 * return is hooked is the backend's (kretprobes_internal.h):
 *   kretprobes_fgraph.c    the function graph's shadow stack, no pool
 *                          (KRETPROBE_ON_FGRAPH, wherever fgraph is)
 *   kretprobes_rethook.c   rethook (the arch has HAVE_RETHOOK)
 *   kretprobes_tasklist.c  a per-task list of instances and the arch's
 *                          own trampoline (HAVE_KRETPROBES only)
 *
 * Lifetime: the pool (or the fgraph backend's binding) lives from
 * registration until after the grace period of unregistration.
 * Instances still pending when the probe goes return to a detached pool
 * and are freed by the backend as the functions return (or their tasks
 * die); the handler is not called for them.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/init.h>
#include <linux/kprobes.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "kretprobes_internal.h"

/**
 * kprobe_is_retprobe - is a probe the entry probe of a kretprobe
 * @p: a registered probe (not an aggregate)
 *
 * Return: true if @p is the kp of a struct kretprobe.
 */
bool kprobe_is_retprobe(struct kprobe *p)
{
	return p->pre_handler == kretprobe_hit;
}

/* Is @addr a function the arch says return probes must stay out of? */
static bool on_kretprobe_blacklist(kprobe_opcode_t *addr)
{
	struct kretprobe_blackpoint *bp;

	/* A constant 0 on most arches: no blacklist array exists there. */
	if (!kretprobe_blacklist_size)
		return false;
	for (bp = kretprobe_blacklist; bp->name; bp++) {
		if (bp->addr == addr)
			return true;
	}
	return false;
}

static int check_retprobe(struct kretprobe *rp)
{
	kprobe_opcode_t *addr;
	bool on_entry;
	int ret;

	ret = kprobe_on_func_entry(rp->kp.addr, rp->kp.symbol_name,
				   rp->kp.offset);
	if (ret)
		return ret;

	/* Its fields are not ours to touch if it is already in. */
	if (rp->kp.addr && WARN_ON_ONCE(kprobe_is_registered(&rp->kp)))
		return -EINVAL;

	if (kretprobe_blacklist_size) {
		addr = kprobe_resolve_addr(rp->kp.addr, rp->kp.symbol_name,
					   rp->kp.offset, &on_entry);
		if (IS_ERR(addr))
			return PTR_ERR(addr);
		if (on_kretprobe_blacklist(addr))
			return -EINVAL;
	}

	if (rp->data_size > KRETPROBE_MAX_DATA_SIZE)
		return -E2BIG;
	return 0;
}

/*
 * Check @rp and give it its handlers and pool: all but registering its
 * kprobe.
 */
static int prepare_retprobe(struct kretprobe *rp)
{
	int ret;

	ret = check_retprobe(rp);
	if (ret)
		return ret;

	rp->kp.pre_handler = kretprobe_hit;
	rp->kp.post_handler = NULL;
	if (rp->maxactive <= 0)
		rp->maxactive = max_t(unsigned int, 10, 2 * num_possible_cpus());

	ret = kretprobe_pool_create(rp);
	if (ret)
		return ret;
	rp->nmissed = 0;
	return 0;
}

/*
 * Give back the pools of the first @num of @rps, whose kprobes are not
 * registered.  If they were (@hit), returns may still be pending: they
 * are cut off first, and a grace period passes before the pools go.
 */
static void drop_pools(struct kretprobe **rps, int num, bool hit)
{
	int i;

	scoped_guard(mutex, &kprobe_mutex) {
		for (i = 0; i < num; i++)
			kretprobe_pool_detach(rps[i]);
	}
	if (hit)
		synchronize_rcu();
	for (i = 0; i < num; i++)
		kretprobe_pool_release(rps[i]);
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void * const *)a;
	uintptr_t y = (uintptr_t)*(void * const *)b;

	return x < y ? -1 : x > y;
}

/*
 * Does @rps name one probe twice?  @scratch has room for @num pointers.
 * An array's pools are made, and its probes taken out, before any of its
 * kprobes is looked at again, so a probe named twice would get two pools
 * or lose its detach: such an array is refused, or split.
 */
static bool has_duplicates(struct kretprobe **rps, int num, void **scratch)
{
	int i;

	if (num < 2)
		return false;
	memcpy(scratch, rps, num * sizeof(*scratch));
	sort(scratch, num, sizeof(*scratch), cmp_ptr, NULL);
	for (i = 1; i < num; i++) {
		if (scratch[i] == scratch[i - 1])
			return true;
	}
	return false;
}

/**
 * register_kretprobes - register several return probes
 * @rps: the probes, each as register_kretprobe() wants it
 * @num: how many
 *
 * All or nothing, as register_kprobes(), and in one batch as it: their
 * pools are made first, then their kprobes registered together.
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL if @num <= 0, -ENOMEM, or the first error of a
 * check, of a pool, or of register_kprobes().
 */
int register_kretprobes(struct kretprobe **rps, int num)
{
	struct kprobe *one, **kps = &one;
	int ready, ret = 0;

	if (num <= 0)
		return -EINVAL;
	if (num > 1) {
		kps = kvmalloc_array(num, sizeof(*kps), GFP_KERNEL);
		if (!kps)
			return -ENOMEM;
	}

	/* One probe named twice: refused before anything is made for it. */
	if (has_duplicates(rps, num, (void **)kps)) {
		kvfree(kps);
		return -EINVAL;
	}

	for (ready = 0; ready < num; ready++) {
		ret = prepare_retprobe(rps[ready]);
		if (ret)
			break;
		kps[ready] = &rps[ready]->kp;
	}
	if (!ret) {
		ret = register_kprobes(kps, num);
		/* Some may have been hit before the batch was undone. */
		if (ret)
			drop_pools(rps, num, true);
	} else if (ready) {
		/* Never registered: nothing can hold an instance. */
		drop_pools(rps, ready, false);
	}

	if (kps != &one)
		kvfree(kps);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kretprobes);

/**
 * register_kretprobe - register a return probe
 * @rp: the probe: @rp->kp names a function's entry (by address or symbol
 *	and offset), @rp->handler runs on return, @rp->entry_handler (if
 *	set) on entry and may refuse the instance by returning non-zero,
 *	@rp->data_size bytes of per-instance data, @rp->maxactive instances
 *	(0 or less: max(10, 2 * possible CPUs); the fgraph backend has no
 *	pool and ignores it)
 *
 * A batch of one of register_kretprobes().
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL if @rp->kp is not on a function's entry, is
 * blacklisted or already registered; -ENOENT for an unknown symbol;
 * -E2BIG for too much data (more than KRETPROBE_MAX_DATA_SIZE, or than
 * the backend's frame holds); -ENOMEM; an error of the backend (fgraph:
 * -ENOSPC when its user slots are taken); or one of register_kprobe().
 */
int register_kretprobe(struct kretprobe *rp)
{
	return register_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(register_kretprobe);

/**
 * unregister_kretprobes - unregister several return probes
 * @rps: the probes
 * @num: how many
 *
 * In one batch, as unregister_kprobes(): one grace period covers them
 * all.  A probe that was not registered is skipped and its kp.addr
 * cleared.
 *
 * Context: process context; may sleep.  On return no entry_handler or
 * handler of the probes runs or will run.
 */
void unregister_kretprobes(struct kretprobe **rps, int num)
{
	struct kprobe_batch b;
	struct kretprobe *rp;
	void **scratch;
	bool split;
	int i;

	if (num <= 0)
		return;
	if (num > 1) {
		/*
		 * A probe named twice is taken out by its first entry only
		 * (the second would clear its address, and its pool would
		 * not be detached): one by one then, as without memory.
		 */
		scratch = kvmalloc_array(num, sizeof(*scratch), GFP_KERNEL);
		split = !scratch || has_duplicates(rps, num, scratch);
		kvfree(scratch);
		if (split) {
			for (i = 0; i < num; i++)
				unregister_kretprobes(&rps[i], 1);
			return;
		}
	}

	scoped_guard(mutex, &kprobe_mutex) {
		kprobe_batch_start(&b, num, KPROBE_BATCH_REMOVE);
		for (i = 0; i < num; i++)
			kprobe_unregister_disarm(&rps[i]->kp, &b);
		for (i = 0; i < num; i++) {
			rp = rps[i];
			if (kprobe_unregister_begin(&rp->kp, &b) < 0)
				rp->kp.addr = NULL;
		}
		kprobe_batch_commit(&b);

		/* Outside the text locks: a backend may take ftrace's. */
		for (i = 0; i < num; i++) {
			rp = rps[i];
			/* Pending returns find no handler from now on. */
			if (rp->kp.addr)
				kretprobe_pool_detach(rp);
		}
		kprobe_count_unregister_wait();
	}

	synchronize_rcu();

	for (i = 0; i < num; i++) {
		rp = rps[i];
		if (rp->kp.addr) {
			kprobe_unregister_finish(&rp->kp);
			kretprobe_pool_release(rp);
		}
	}
}
EXPORT_SYMBOL_GPL(unregister_kretprobes);

/**
 * unregister_kretprobe - unregister a return probe
 * @rp: the probe
 *
 * Context: process context; may sleep.
 */
void unregister_kretprobe(struct kretprobe *rp)
{
	unregister_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(unregister_kretprobe);

/* The arch names its blacklisted functions; find their addresses. */
static int __init kretprobe_blacklist_init(void)
{
	struct kretprobe_blackpoint *bp;

	if (!kretprobe_blacklist_size)
		return 0;
	for (bp = kretprobe_blacklist; bp->name; bp++) {
		bp->addr = kprobe_lookup_name(bp->name, 0);
		if (!bp->addr)
			pr_err("kretprobe blacklist: no symbol '%s' (renamed or removed?)\n",
			       bp->name);
	}
	return 0;
}
early_initcall(kretprobe_blacklist_init);
