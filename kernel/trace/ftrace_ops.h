/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ops registration and the dispatcher: layer "ops" of the function-hook
 * core (see ftrace_internal.h for the layers).
 *
 * Offers, on top of what users get from ftrace_user.h: the top-level
 * function tracer's ops, linking an ops without an update, the
 * ftrace_enabled sysctl's work, the re-derivation after a filter change,
 * the choice of what the shared callers call, the pid filter hooks, the
 * dispatcher's lookup of a site's ops set (a hit-path inline) and the
 * bookkeeping of the trampolines the arch allocates for an ops.
 *
 * These are the core's own: the users of the core include ftrace_user.h.
 * A layer above that ops must know of registers a callback here (as the
 * pid filter registers its func); nothing here may name a symbol of a
 * higher layer.
 */
#ifndef _LINUX_KERNEL_FTRACE_OPS_H
#define _LINUX_KERNEL_FTRACE_OPS_H

#include <linux/ftrace.h>
#include <linux/rcupdate.h>

#include "ftrace_base.h"
#include "ftrace_patch.h"
#include "ftrace_user.h"

#ifdef CONFIG_FUNCTION_TRACER

/* The top-level function tracer's ops. */
extern struct ftrace_ops global_ops;

/* Link/unlink @ops in ftrace_ops_list only (no update); ftrace_lock held. */
int __register_ftrace_function(struct ftrace_ops *ops);
int __unregister_ftrace_function(struct ftrace_ops *ops);

/*
 * What writing kernel.ftrace_enabled does: 0 fails with -EBUSY while a
 * PERMANENT ops is registered.  Returns 0, -EBUSY, -ENODEV (dead) or
 * -ENOMEM.  Takes ftrace_lock.
 */
int ftrace_enabled_set(bool on);

/*
 * Re-derive every call site's target after @ops (registered, a subop of a
 * registered manager, or the owner of a hash a registered subop shares)
 * changed its filter or notrace hash.  Returns 0, or the error of the
 * update (for example -EBUSY on an IPMODIFY clash), in which case nothing
 * was changed.  Caller holds ftrace_lock.
 */
int ftrace_ops_hash_changed(struct ftrace_ops *ops);

/* The func ftrace_call/ftrace_regs_call in ftrace_caller should call now. */
void ftrace_pick_trace_func(void);
/* Register the ops layer with the patcher; ftrace_init(), first thing. */
void __init ftrace_ops_sites_init(void);

/* Called when a pid filter changed: refresh ops->func of FTRACE_OPS_FL_PID ops. */
void ftrace_update_pid_func(void);
/* Register the func a pid-filtered ops calls (before any pid list is set). */
void ftrace_ops_set_pid_func(ftrace_func_t func);

/* ---- ftrace_dispatch.c: the dispatcher's lookup (hit path) ---------- */

/* What ftrace_dispatch_find() returns for a site without a set. */
extern struct ftrace_site_set ftrace_no_site_set;

#ifdef CONFIG_DYNAMIC_FTRACE

/*
 * Hot path: the set wanting @ip in the current generation, or the empty
 * set ftrace_no_site_set (its ops[] is just the NULL end mark).
 */
static __always_inline struct ftrace_site_set *
ftrace_dispatch_find(unsigned long ip)
{
	struct ftrace_site_gen *gen = rcu_dereference_raw(ftrace_site_gen);
	unsigned int i;

	if (!gen)
		return &ftrace_no_site_set;
	for (i = ftrace_dispatch_hash(ip) & gen->mask;; i = (i + 1) & gen->mask) {
		struct ftrace_site_slot *s = &gen->slots[i];

		if (s->ip == ip)
			return s->set;
		if (!s->ip)
			return &ftrace_no_site_set;
	}
}

#else /* !CONFIG_DYNAMIC_FTRACE */

/*
 * ftrace_static.c: without records every traced function calls in, and
 * every enabled ops wants every function, so one set serves all of them.
 */
extern struct ftrace_site_set __rcu *ftrace_static_set;

/*
 * ftrace_static.c's ftrace_sites_update() and ftrace_sites_check(): the
 * contract of ftrace_patch.h's, for the one set.
 */
int ftrace_sites_update(int command);
int ftrace_sites_check(void);

static __always_inline struct ftrace_site_set *
ftrace_dispatch_find(unsigned long ip)
{
	struct ftrace_site_set *set = rcu_dereference_raw(ftrace_static_set);

	return set ? set : &ftrace_no_site_set;
}

#endif /* CONFIG_DYNAMIC_FTRACE */

/* ---- ftrace_tramp.c: the trampolines the arch allocates for an ops ---- */

#ifdef CONFIG_DYNAMIC_FTRACE
/* Publish a new trampoline / unpublish, wait for readers and free it. */
void ftrace_trampoline_add(struct ftrace_ops *ops);
void ftrace_trampoline_free(struct ftrace_ops *ops);
/* A removed ops' trampoline stops calling it and is unlisted; ftrace_lock. */
void ftrace_trampoline_retire(struct ftrace_ops *ops);
/* Let the arch create or retarget @ops' trampoline; ftrace_lock. */
void ftrace_ops_refresh_trampoline(struct ftrace_ops *ops);
/* What @ops' trampoline calls: ftrace_stub while removing, else its func. */
ftrace_func_t ftrace_ops_tramp_target(struct ftrace_ops *ops);
#else
/* Trampolines need a call site to point at them: there are none. */
static inline void ftrace_trampoline_free(struct ftrace_ops *ops) { }
static inline void ftrace_trampoline_retire(struct ftrace_ops *ops) { }
static inline void ftrace_ops_refresh_trampoline(struct ftrace_ops *ops) { }
#endif

#endif /* CONFIG_FUNCTION_TRACER */

#endif /* _LINUX_KERNEL_FTRACE_OPS_H */
