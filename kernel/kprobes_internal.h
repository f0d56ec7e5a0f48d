/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The private interface of the generic kprobes core.
 *
 * Layers, bottom first.  A file calls only into its own layer and the
 * ones below it, and into the architecture; nothing calls up.
 *
 *   hit       kprobes_hit.c        what a hit runs: the aggregate's
 *                                  handlers, nmissed, kprobe_busy_*(),
 *                                  the call-site kill switch
 *   table     kprobes_table.c      the probe table: get_kprobe(), the
 *                                  registry of every probe in it,
 *                                  kprobe_mutex and the global switches
 *   slots     kprobes_insn_slot.c  executable slots for copied
 *                                  instructions and jump buffers
 *   blacklist kprobes_blacklist.c  where no probe may go (and the weak
 *                                  kprobe_lookup_name(), its lowest user)
 *   addr      kprobes_addr.c       from symbol and offset to an address,
 *                                  and whether a probe may go there
 *   opt       kprobes_opt.c        jump optimization (CONFIG_OPTPROBES)
 *   arm       kprobes_arm.c        arming one probe: breakpoint or call
 *                                  site, and the global arm switch
 *   core      kprobes.c            registration, aggregates, enable and
 *                                  disable, probes whose text goes away
 *   users     kretprobes*.c        return probes on the core
 *             kprobes_debugfs.c    /sys/kernel/debug/kprobes/
 *
 * Each layer declares what it offers the ones above in a header of its
 * own, so that no header names a symbol of a layer above its own: this
 * one (hit and table, the base), kprobes_place.h (slots, blacklist,
 * addr), kprobes_opt.h, kprobes_arm.h, kprobes_core.h and
 * kretprobes_internal.h; kprobes_array.h is what the core offers the
 * kprobe event layer (enable_kprobes(), disable_kprobes()).
 * workbench/layers.list states the same order and "make layers" checks
 * it.
 *
 * Words used everywhere:
 *   probe      a struct kprobe a user registered;
 *   aggregate  a probe of the core's own that stands in the table for
 *              several probes on one address (its pre_handler is
 *              kprobe_aggr_pre_handler()); its users' probes are its
 *              children, on its ->list.  With CONFIG_OPTPROBES every
 *              aggregate is the kp of a struct optimized_kprobe;
 *   top probe  what the table holds for an address: a lone probe or an
 *              aggregate.  Only top probes are armed;
 *   shell      an aggregate without children that still owns work of
 *              the optimizer (a jump waiting to go back to a breakpoint);
 *              the optimizer removes it from the table and frees it, and
 *              a new probe at its address may revive it first.
 *
 * Locking:
 *  - kprobe_mutex serializes every change of the table, the registry, a
 *    probe's flags, an aggregate's children and handlers, the optimizer's
 *    queues and the global switches.  Order: kprobe_mutex, then
 *    cpus_read_lock(), then jump_label_lock(), then text_mutex.  Call-site
 *    probes are armed through ftrace with kprobe_mutex alone (ftrace takes
 *    text_mutex itself).
 *  - register_kprobes(), unregister_kprobes(), enable_kprobes() and
 *    disable_kprobes() work in batches (struct kprobe_batch,
 *    kprobes_arm.c): under one kprobe_mutex hold, the text locks are
 *    taken once for the whole array, the breakpoints of the batch are
 *    queued and written or taken out together (before any probe of an
 *    unregister batch leaves the table), and the call sites of the batch
 *    are queued; the locks are dropped and each call-site ops' filter
 *    then changes once, for all of them.  A single probe is a
 *    batch of one, except for enable_kprobe() and disable_kprobe().
 *  - The breakpoint, call-site and jump handlers run with preemption off
 *    and take no lock: they read the table and an aggregate's children
 *    under RCU (any flavour: a preemption-disabled region counts).
 *  - Each insn slot cache has its own mutex; its pages are an RCU list.
 *  - The blacklist has its own mutex for writers; readers use RCU.
 *
 * Lifetime:
 *  - A probe leaves the table and its aggregate with kprobe_mutex held;
 *    its memory (and its instruction slot) is released, and unregister
 *    returns, only after synchronize_rcu(), so no handler of it runs
 *    afterwards.  unregister_kprobes() waits once for the whole batch,
 *    after the batch's call sites are out of ftrace.
 *  - A register batch that fails is undone with the same kprobe_mutex
 *    held: the top probes it queued but did not arm are marked DISABLED
 *    (only the batch's probes had enabled them), then every probe the
 *    batch put in is taken out as unregister_kprobes() would.
 *  - A jump buffer is freed only after synchronize_rcu_tasks(): a task
 *    may have been preempted inside it.
 *  - A GONE probe (its text was freed) keeps its place in the table and
 *    registry until it is unregistered, with no instruction slot.
 */
#ifndef _KERNEL_KPROBES_INTERNAL_H
#define _KERNEL_KPROBES_INTERNAL_H

#include <linux/bits.h>
#include <linux/init.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>

struct module;

/*
 * Flags of the core in bits include/linux/kprobes.h leaves free.  They
 * never reach a user: register_kprobe() clears all but DISABLED.
 */
/* A call-site top probe is armed through kprobe_ipmodify_ops. */
#define KPROBE_FLAG_ARMED_IPMODIFY	BIT(30)
/* Unregistration: free the aggregate this last child leaves. */
#define KPROBE_FLAG_FREE_AGGR		BIT(29)
/*
 * A call-site top probe a register batch will arm when it commits
 * (kprobes_arm.c); only ever seen inside that batch's kprobe_mutex hold.
 */
#define KPROBE_FLAG_ARM_QUEUED		BIT(28)
/*
 * A probe whose disabling in disable_kprobes() queued its top probe's
 * call site to be disarmed; only ever seen inside that call's
 * kprobe_mutex hold.
 */
#define KPROBE_FLAG_DISARM_QUEUED	BIT(27)

/* --- table (kprobes_table.c) --- */

extern struct mutex kprobe_mutex;
/* All top probes, for walks under kprobe_mutex; linked by ->hlist. */
extern struct hlist_head kprobe_registry;
/* Set by "enabled" in debugfs: no probe is armed.  Under kprobe_mutex. */
extern bool kprobes_all_disarmed;
/* init_kprobes() succeeded. */
extern bool kprobes_ready;

int kprobe_table_insert(struct kprobe *p);
void kprobe_table_remove(struct kprobe *p);
void kprobe_table_replace(struct kprobe *old, struct kprobe *new);

#define for_each_top_kprobe(p, tmp) \
	hlist_for_each_entry_safe(p, tmp, &kprobe_registry, hlist)

/* --- what every layer knows of aggregates (kprobes_hit.c) --- */

int kprobe_aggr_pre_handler(struct kprobe *p, struct pt_regs *regs);
void kprobe_aggr_post_handler(struct kprobe *p, struct pt_regs *regs,
			      unsigned long flags);

static nokprobe_inline bool kprobe_is_aggr(struct kprobe *p)
{
	return p->pre_handler == kprobe_aggr_pre_handler;
}

/* An aggregate without children and with all its probes gone or off. */
static inline bool kprobe_is_shell(struct kprobe *p)
{
	return kprobe_is_aggr(p) && kprobe_disabled(p) && list_empty(&p->list);
}

#endif /* _KERNEL_KPROBES_INTERNAL_H */
