// SPDX-License-Identifier: GPL-2.0
/*
 * Function-hook core: the state every layer shares.
 *
 * One concept: the few variables that the call-site records, the arch
 * code, the patcher, the ops layer and everything above read, so that
 * none of them has to call up to reach them.  Nothing here decides
 * anything; ftrace.c decides what the shared callers call and links the
 * ops list, this file only holds the result.
 *
 * Locking and lifetime:
 *  - ftrace_lock serialises every change of the core (see
 *    ftrace_internal.h for what it covers).
 *  - ftrace_killed only goes from false to true, read locklessly.
 *  - ftrace_enabled and last_ftrace_enabled are written under ftrace_lock
 *    (ftrace_enabled_set()), or without it by ftrace_kill(), which only
 *    ever clears ftrace_enabled.
 *  - ftrace_trace_function and function_trace_op are written under
 *    ftrace_lock by ftrace.c, following its protocol (above
 *    ftrace_pick_trace_func()), and read by the shared callers on every
 *    traced call: they keep __read_mostly.
 *  - ftrace_ops_list is written under ftrace_lock and read with RCU (or
 *    preemption off); its end marker and the stub ops live forever.
 *
 * Built whenever the function tracer is, with or without call-site
 * records.
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>

#include "ftrace_base.h"
#include "trace.h"

/* Serialises every change of the core. */
DEFINE_MUTEX(ftrace_lock);

/* Sites may be patched; set to 1 by ftrace_init() once the sites are NOPs. */
int ftrace_enabled __read_mostly;
int last_ftrace_enabled;

/* Set for good when the core found itself in an unknown state. */
static bool ftrace_killed __read_mostly;

/* End marker of ftrace_ops_list; also the op the dispatcher is handed. */
struct ftrace_ops ftrace_list_end __read_mostly = {
	.flags		= FTRACE_OPS_FL_STUB,
	.func		= ftrace_stub,
#ifdef CONFIG_DYNAMIC_FTRACE
	.subop_list	= LIST_HEAD_INIT(ftrace_list_end.subop_list),
	.func_hash	= &ftrace_list_end.local_hash,
	.local_hash	= {
		.regex_lock	= __MUTEX_INITIALIZER(ftrace_list_end.local_hash.regex_lock),
	},
#endif
};

/* The registered top-level ops, in registration order (ftrace.c links). */
struct ftrace_ops __rcu *ftrace_ops_list __read_mostly =
	(struct ftrace_ops __rcu *)&ftrace_list_end;

/*
 * The shared callers' slots.  ftrace_caller loads function_trace_op into
 * the third argument register and a few instructions later (preemptibly)
 * calls the target patched into ftrace_call; ftrace_regs_caller does the
 * same.  The target is ftrace_stub, arch_ftrace_ops_list_func (both ignore
 * the op), or the function of the only registered ops, which needs that
 * ops as op.  ftrace_trace_function is the target chosen last (without
 * call-site records, __fentry__ calls it itself).  Both start at the stub,
 * so that the entry code works before the core ever ran.
 */
ftrace_func_t ftrace_trace_function __read_mostly = ftrace_stub;
struct ftrace_ops *function_trace_op __read_mostly = &ftrace_list_end;

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
/*
 * The ops literal of a call site that calls nothing: a CPU that passed
 * the call just before the site became a NOP may still load the literal,
 * and then calls the stub.  It lives forever.
 */
const struct ftrace_ops ftrace_nop_ops = {
	.func	= ftrace_stub,
	.flags	= FTRACE_OPS_FL_STUB,
};
#endif

/**
 * ftrace_kill - stop the function-hook core for good
 *
 * Used when the core hit an inconsistency (a site that could not be
 * patched) or by tests.  Nothing is patched any more and every later
 * register, unregister or update fails with -ENODEV.  Sites already
 * patched are left as they are.
 *
 * Context: any; takes no lock.
 */
void ftrace_kill(void)
{
	WRITE_ONCE(ftrace_killed, true);
	ftrace_enabled = 0;
	WRITE_ONCE(ftrace_trace_function, ftrace_stub);
	kprobe_ftrace_kill();
}

/**
 * ftrace_is_dead - has ftrace_kill() been called?
 *
 * Return: 1 if the core is dead, 0 otherwise.
 */
int ftrace_is_dead(void)
{
	return ftrace_core_dead();
}

/**
 * ftrace_core_dead - has ftrace_kill() been called?
 *
 * Return: true if the core is dead.
 */
bool ftrace_core_dead(void)
{
	return READ_ONCE(ftrace_killed);
}
