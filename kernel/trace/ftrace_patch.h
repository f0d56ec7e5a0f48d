/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Site generations: layer "patch" of the function-hook core (see
 * ftrace_internal.h for the layers).
 *
 * Offers the ops sets and their flags, the generation's ip table (its
 * layout and hash, which the dispatcher's lookup in ftrace_ops.h reads),
 * the batched update of every call site and the waits for the readers of
 * a replaced generation.
 *
 * The patcher derives what each site wants from the registered ops list
 * (ftrace_base.h) and the ops filter test (ftrace_hash.h).  Whatever it
 * must learn of the layers above it is told through a registered
 * callback; nothing here may name a symbol of a higher layer.
 */
#ifndef _LINUX_KERNEL_FTRACE_PATCH_H
#define _LINUX_KERNEL_FTRACE_PATCH_H

#include <linux/ftrace.h>
#include <linux/rcupdate.h>

#include "ftrace_base.h"

#ifdef CONFIG_FUNCTION_TRACER

/*
 * An ops set: the ops that want a call site, in ftrace_ops_list order.
 * Sets belong to one site generation and are freed with it.  A site whose
 * set has one member with a trampoline calls that trampoline; any other
 * site with a set calls ftrace_caller or ftrace_regs_caller, whose dispatcher
 * finds the set through the generation's ip table.
 */
enum {
	FTRACE_SET_SAVE_REGS	= BIT(0),	/* some member wants pt_regs */
	FTRACE_SET_IPMODIFY	= BIT(1),
	FTRACE_SET_DIRECT	= BIT(2),	/* a direct-call ops is a member */
};

struct ftrace_site_set {
	struct ftrace_site_set	*next_in_gen;
	unsigned int		nr;
	unsigned int		flags;
	struct ftrace_ops	*ops[];	/* nr members, then NULL */
};

/*
 * Member flags that need a closer look before the member's function is
 * called: such a member is only ever called through the dispatcher.
 */
#define FTRACE_OPS_CALL_CHECKS	\
	(FTRACE_OPS_FL_STUB | FTRACE_OPS_FL_RCU | FTRACE_OPS_FL_SAVE_REGS | \
	 FTRACE_OPS_FL_RECURSION)

/*
 * Private ops flag, above the ones linux/ftrace.h defines: the ops was a
 * member of a published site set since it was registered, so some CPU or
 * task may have reached its callback.  Set by the site updater, cleared
 * when the ops is registered and when it is removed; ftrace_lock.
 */
#define FTRACE_OPS_FL_SITE_LIVE		BIT(30)

#ifdef CONFIG_DYNAMIC_FTRACE

struct ftrace_site_slot {
	unsigned long		ip;	/* 0: empty */
	struct ftrace_site_set	*set;
};

struct ftrace_site_gen {
	unsigned int		mask;	/* slots - 1; slots is a power of two */
	unsigned int		used;
	struct ftrace_site_set	*sets;	/* every set of this generation */
	struct ftrace_site_slot	*slots;
	struct ftrace_site_gen	*retired_next;	/* replaced, not yet freed */
};

extern struct ftrace_site_gen __rcu *ftrace_site_gen;

/*
 * Slot of @ip before probing.  Call sites sit at function entries, which
 * the compiler aligns (16 bytes here), so dropping the low bits gives
 * distinct consecutive keys for neighbouring functions: a table at most
 * half full then rarely probes twice, and the hash costs one shift.
 */
static __always_inline unsigned int ftrace_dispatch_hash(unsigned long ip)
{
	return ip >> 4;
}

/*
 * Recompute what every call site wants from the registered ops, publish a
 * new generation, patch the sites that changed in one text_poke batch,
 * retarget ftrace_call, and free the previous generation.  Returns 0, or
 * -EBUSY (two IPMODIFY/direct ops on one site) / -ENOMEM with nothing
 * changed.  Caller holds ftrace_lock.  @command carries extra
 * FTRACE_* commands (graph caller start/stop) to run in the same update.
 */
int ftrace_sites_update(int command);
/* Like ftrace_sites_update() but only checks for clashes; changes nothing. */
int ftrace_sites_check(void);

/*
 * What the patcher must know of the ops layer above it, registered by that
 * layer (ftrace_ops_sites_init()) before the first update:
 *  @pick:      chooses ftrace_trace_function (and function_trace_op) for
 *              the registered ops; run by every update before it patches
 *  @list_func: the dispatcher, which ftrace_call calls while an update
 *              patches and whenever the pick chose it
 *  @list_ops:  (CALL_OPS) the ops a site's literal holds when its set has
 *              to go through the dispatcher
 */
struct ftrace_sites_client {
	void			(*pick)(void);
	ftrace_func_t		list_func;
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
	const struct ftrace_ops	*list_ops;
#endif
};

void __init ftrace_sites_set_client(const struct ftrace_sites_client *client);

/*
 * What the patcher must know of direct calls, registered by ftrace_direct.c
 * (ftrace_direct_init()) before the first update; both run under
 * ftrace_lock while an update builds or patches:
 *  @addr_of: the trampoline a direct ops put on the site at @ip, or 0
 *  @shares:  whether the direct call at @ip agreed to share its site with
 *            an ip-modifier
 */
struct ftrace_sites_direct {
	unsigned long	(*addr_of)(unsigned long ip);
	bool		(*shares)(unsigned long ip);
};

void __init ftrace_sites_set_direct(const struct ftrace_sites_direct *direct);

/* What ftrace_call and ftrace_regs_call call now; ftrace_lock held. */
ftrace_func_t ftrace_sites_caller_func(void);
/*
 * One rude wait (a work item on every online CPU, as a rude RCU-tasks
 * grace period does): afterwards no CPU runs anything it
 * reached through a generation, a set or a shared caller's span as they
 * were before the call; replaced generations are freed.  ftrace_lock held.
 */
void ftrace_sites_wait_readers(void);
/* The same wait without ftrace_lock: take the list, then wait and free. */
struct ftrace_site_gen *ftrace_sites_retired_take(void);
void ftrace_sites_wait_free(struct ftrace_site_gen *list);
/* ftrace_site_wait.c: free a replaced generation after its readers. */
void ftrace_sites_retire(struct ftrace_site_gen *old);
/* ftrace_patch.c: free a generation no reader can be on. */
void ftrace_site_gen_free(struct ftrace_site_gen *gen);

/* x86 and friends: weak hooks the patcher calls. */
void ftrace_run_update_code(int command);
#endif /* CONFIG_DYNAMIC_FTRACE */

#endif /* CONFIG_FUNCTION_TRACER */

#endif /* _LINUX_KERNEL_FTRACE_PATCH_H */
