/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state every layer of the function-hook core shares (ftrace_base.c).
 *
 * This sits at the bottom, beside the call-site records and the arch code,
 * so that any layer may read it and none has to call up to reach it:
 *  - ftrace_lock, the one mutex behind every change of the core;
 *  - whether the core is dead (ftrace_kill(), ftrace_core_dead());
 *  - ftrace_enabled and last_ftrace_enabled (the sysctl lives in ftrace.c);
 *  - the two slots the shared callers read, ftrace_trace_function and
 *    function_trace_op (ftrace.c decides what goes in them);
 *  - the head and end of the registered ops list (ftrace.c links and
 *    unlinks), and for_each_registered_ops() to walk it;
 *  - the stub ops a NOP call site's ops literal holds (CALL_OPS);
 *  - ftrace_locations_sorted(), the one question about the call-site
 *    records (ftrace_records.h) that the users of the core ask.
 *
 * The list head, its end marker and the stub ops are declared by
 * linux/ftrace.h; the shared slots are too, but only in some configs
 * (with records, with the graph tracer), so they are declared here again.
 */
#ifndef _LINUX_KERNEL_FTRACE_BASE_H
#define _LINUX_KERNEL_FTRACE_BASE_H

#include <linux/ftrace.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#ifdef CONFIG_FUNCTION_TRACER

/* Serialises every change of the core; see ftrace_internal.h. */
extern struct mutex ftrace_lock;

/*
 * ftrace_enabled (linux/ftrace.h) is non-zero while call sites may be
 * patched; last_ftrace_enabled is the value of the last successful
 * ftrace_enabled_set().  Both are written under ftrace_lock.
 */
extern int last_ftrace_enabled;

/* What the shared callers call, and with which op. */
extern ftrace_func_t ftrace_trace_function;
extern struct ftrace_ops *function_trace_op;

/* Has ftrace_kill() been called?  Lockless; true stays true. */
bool ftrace_core_dead(void);

/* Every ops in ftrace_ops_list, in order; ftrace_lock held. */
#define for_each_registered_ops(op)					\
	for (op = rcu_dereference_protected(ftrace_ops_list,		\
					    lockdep_is_held(&ftrace_lock)); \
	     op != &ftrace_list_end;					\
	     op = rcu_dereference_protected(op->next,			\
					    lockdep_is_held(&ftrace_lock)))

/* Is any top-level ops registered?  ftrace_lock held. */
static inline bool ftrace_ops_registered(void)
{
	return rcu_dereference_protected(ftrace_ops_list,
					 lockdep_is_held(&ftrace_lock)) !=
	       &ftrace_list_end;
}

#ifdef CONFIG_DYNAMIC_FTRACE
/* ftrace_location() of each of @nr ascending addresses, in place. */
bool ftrace_locations_sorted(unsigned long *ips, unsigned int nr);
#endif

#endif /* CONFIG_FUNCTION_TRACER */

#endif /* _LINUX_KERNEL_FTRACE_BASE_H */
