// SPDX-License-Identifier: GPL-2.0
/*
 * The function-hook core without call-site records (!CONFIG_DYNAMIC_FTRACE).
 *
 * Without dynamic ftrace the compiler's call to __fentry__ (or mcount)
 * stays in every traceable function and nothing is ever patched: the
 * architecture's entry compares ftrace_trace_function with ftrace_stub and
 * calls it when they differ.  There are no records, so there are no filter
 * or notrace hashes either (linux/ftrace.h gives their API -ENODEV stubs),
 * and every enabled ops wants every function.
 *
 * Everything else of the core is shared with the dynamic build: ftrace.c
 * registers ops and chooses ftrace_trace_function (one ops' function, or
 * the dispatcher); the dispatcher asks ftrace_dispatch_find() for the ops
 * of a call.  This file provides the update those two rely on.  An update
 * builds one set holding every enabled ops in list order, publishes it as
 * the set of every function, and lets ftrace_pick_trace_func() choose the
 * target.
 *
 * Invariants:
 *  - ftrace_static_set is only written with ftrace_lock held; traced calls
 *    read it with preemption disabled, so a replaced set is freed only
 *    after synchronize_rcu_tasks_rude().
 *  - A failed update (-ENOMEM) changes nothing: the old set and the old
 *    target stay in place.
 *  - ops that need what only a patched call site gives (an IPMODIFY
 *    redirect through a full pt_regs, direct calls, trampolines) are
 *    refused at registration by ftrace.c; this file never sees them.
 */

#include <linux/err.h>
#include <linux/ftrace.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "ftrace_ops.h"

struct ftrace_site_set __rcu *ftrace_static_set;

/* Every enabled ops, in list order; NULL when there is none. */
static struct ftrace_site_set *static_set_build(void)
{
	struct ftrace_site_set *set;
	struct ftrace_ops *op;
	unsigned int nr = 0;

	for_each_registered_ops(op)
		if (op->flags & FTRACE_OPS_FL_ENABLED)
			nr++;
	if (!nr)
		return NULL;

	/* nr members and the NULL end mark */
	set = kzalloc(struct_size(set, ops, nr + 1), GFP_KERNEL);
	if (!set)
		return ERR_PTR(-ENOMEM);
	for_each_registered_ops(op)
		if (op->flags & FTRACE_OPS_FL_ENABLED)
			set->ops[set->nr++] = op;
	return set;
}

/**
 * ftrace_sites_update - make every traced call reach what the ops want
 * @command: FTRACE_* commands of the update; without records only the
 *	     choice of ftrace_trace_function remains, so they are ignored
 *
 * Publishes the set of every enabled ops as the set of every function and
 * chooses ftrace_trace_function, then frees the previous set once no
 * traced call can be using it.
 *
 * Context: ftrace_lock held; sleeps.
 * Return: 0, -ENOMEM with nothing changed, or -ENODEV after ftrace was
 * killed.
 */
int ftrace_sites_update(int command)
{
	struct ftrace_site_set *set, *old;

	lockdep_assert_held(&ftrace_lock);
	if (ftrace_core_dead())
		return -ENODEV;

	set = static_set_build();
	if (IS_ERR(set))
		return PTR_ERR(set);

	old = rcu_replace_pointer(ftrace_static_set, set,
				  lockdep_is_held(&ftrace_lock));
	ftrace_pick_trace_func();

	if (old) {
		/* Before the scheduler runs nothing can be inside a call. */
		if (system_state != SYSTEM_BOOTING)
			synchronize_rcu_tasks_rude();
		kfree(old);
	}
	return 0;
}

/**
 * ftrace_sites_check - would an update succeed?
 *
 * Without records no two ops can clash on a site.
 *
 * Context: ftrace_lock held.
 * Return: 0, or -ENODEV after ftrace was killed.
 */
int ftrace_sites_check(void)
{
	lockdep_assert_held(&ftrace_lock);
	return ftrace_core_dead() ? -ENODEV : 0;
}
