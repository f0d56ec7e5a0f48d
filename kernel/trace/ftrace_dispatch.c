// SPDX-License-Identifier: GPL-2.0
/*
 * Function-hook core: what a call site shared by several ops runs.
 *
 * One concept, the hit path of the ops layer: arch_ftrace_ops_list_func(),
 * the dispatcher ftrace_call calls (or, with CALL_OPS, a site's ops literal
 * ftrace_list_ops names) when a site has more than one ops or an ops that
 * needs the core's checks, and ftrace_ops_assist_func(), the wrapper that
 * gives an ops the recursion or RCU protection it asked the core for, on
 * its own trampoline as well.  ftrace.c decides which of these the shared
 * callers call (ftrace_ops_get_func()); nothing here changes state.
 *
 * Locking and lifetime: none taken.  The dispatcher reads the current
 * site generation (or the static set without call-site records) with
 * preemption off, which keeps it and its sets alive: they are freed only
 * after a rude wait.  Every function here may run in any context, also
 * in NMI and where RCU does not watch.
 */
#include <linux/ftrace.h>
#include <linux/kmsan-checks.h>
#include <linux/kprobes.h>
#include <linux/rcupdate.h>
#include <linux/trace_recursion.h>

#include "trace.h"
#include "ftrace_ops.h"

/*
 * The empty set, for a site the current generation does not know: just
 * the NULL end mark (a static flexible array gets its initialised room).
 */
struct ftrace_site_set ftrace_no_site_set = { .ops = { NULL } };

static void notrace ftrace_ops_assist_func(unsigned long ip,
					   unsigned long parent_ip,
					   struct ftrace_ops *op,
					   struct ftrace_regs *fregs);

/*
 * A member with one of FTRACE_OPS_CALL_CHECKS: skip it where it must not
 * run, and let the assist wrapper provide the recursion/RCU protection it
 * asked for.
 */
static void notrace ftrace_call_checked(struct ftrace_ops *op,
					unsigned long flags, unsigned long ip,
					unsigned long parent_ip,
					struct ftrace_regs *fregs)
{
	if (flags & FTRACE_OPS_FL_STUB)
		return;
	/* A site still on its way to ftrace_regs_caller has no pt_regs yet. */
	if ((flags & FTRACE_OPS_FL_SAVE_REGS) && !ftrace_get_regs(fregs))
		return;
	if (flags & (FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_RCU)) {
		ftrace_ops_assist_func(ip, parent_ip, op, fregs);
		return;
	}
	op->func(ip, parent_ip, op, fregs);
}

/**
 * arch_ftrace_ops_list_func - call every ops that wants this call site
 * @ip: address of the call site
 * @parent_ip: return address of the traced function
 * @op: ignored (function_trace_op may be stale here)
 * @fregs: the register frame built by the shared caller
 *
 * The target of ftrace_call / ftrace_regs_call whenever more than one ops
 * is registered (the linker script aliases ftrace_ops_list_func to it).
 * The set of ops comes from the current site generation: one lookup,
 * whatever else is registered.  Preemption stays off while the set is in
 * use, which keeps the generation alive (it is freed after
 * synchronize_rcu_tasks_rude()).
 *
 * A member is called the way its own trampoline would call it: directly,
 * or through the assist wrapper when it asked the core for recursion or
 * RCU protection.  Members without FTRACE_OPS_FL_RECURSION protect
 * themselves, as they must on their trampoline; so the dispatcher takes no
 * recursion lock of its own, which keeps a shared site close to the cost
 * of its callbacks.
 *
 * Context: any, including NMI and where RCU is not watching.
 */
void notrace arch_ftrace_ops_list_func(unsigned long ip, unsigned long parent_ip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	struct ftrace_site_set *set;
	struct ftrace_ops **next, *member;

	kmsan_unpoison_memory(fregs, ftrace_regs_size());

	preempt_disable_notrace();
	set = ftrace_dispatch_find(ip);
	/* ops[] ends with NULL: one pointer is all the loop keeps. */
	for (next = set->ops; (member = *next); next++) {
		unsigned long flags = READ_ONCE(member->flags);

		if (unlikely(flags & FTRACE_OPS_CALL_CHECKS)) {
			ftrace_call_checked(member, flags, ip, parent_ip, fregs);
			continue;
		}
		/* ->func may change (pid filter): it is one word, loaded once. */
		member->func(ip, parent_ip, member, fregs);
	}
	preempt_enable_notrace();
}

NOKPROBE_SYMBOL(arch_ftrace_ops_list_func);

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
/*
 * What a call site's ops literal can hold (see ftrace_rec_call_ops()):
 * besides a single ops, ftrace_nop_ops (ftrace_base.c) and this one, which
 * live forever.  ftrace_caller calls literal->func with the literal as op.
 * A site wanted by several ops, or by one that needs the core's checks,
 * gets ftrace_list_ops and runs the dispatcher, which finds its set in one
 * lookup.
 */
const struct ftrace_ops ftrace_list_ops = {
	.func	= arch_ftrace_ops_list_func,
	.flags	= FTRACE_OPS_FL_STUB,
};
#endif

/*
 * Called instead of op->func, from the ops' trampoline or from the shared
 * callers, for an ops that asked the core for recursion or RCU protection.
 */
static void notrace ftrace_ops_assist_func(unsigned long ip,
					   unsigned long parent_ip,
					   struct ftrace_ops *op,
					   struct ftrace_regs *fregs)
{
	bool rcu_ok;
	int bit;

	/* One level per context: a callback re-entering here is dropped. */
	bit = trace_test_and_set_recursion(ip, parent_ip, TRACE_LIST_START);
	if (unlikely(bit < 0))
		return;

	/* An RCU-flagged ops is skipped where RCU does not watch (idle). */
	rcu_ok = !(op->flags & FTRACE_OPS_FL_RCU) || rcu_is_watching();
	if (likely(rcu_ok))
		op->func(ip, parent_ip, op, fregs);

	trace_clear_recursion(bit);
}

NOKPROBE_SYMBOL(ftrace_ops_assist_func);

/**
 * ftrace_ops_get_func - the function a caller dedicated to one ops calls
 * @ops: the ops
 *
 * Used for the ops' own trampoline and for ftrace_call when @ops is the
 * only registered ops.
 *
 * Return: the assist wrapper if @ops has FTRACE_OPS_FL_RECURSION or
 * FTRACE_OPS_FL_RCU (the core provides the protection), else @ops->func.
 */
ftrace_func_t ftrace_ops_get_func(struct ftrace_ops *ops)
{
	if (ops->flags & (FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_RCU))
		return ftrace_ops_assist_func;
	return ops->func;
}
