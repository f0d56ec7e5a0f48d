// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobes core: registering and unregistering probes, several probes
 * on one address, enabling and disabling them, and probes whose text is
 * freed.
 *
 * The first probe at an address goes into the table (kprobes_table.c)
 * as it is.  The second one makes an aggregate: a probe of ours that
 * takes the first one's place in the table and calls each child's
 * handlers (kprobe_aggr_pre_handler(), kprobes_hit.c).  A probe that can be optimized
 * is made an aggregate at once (kprobes_opt.c).  Children share the
 * aggregate's copied instruction; only the aggregate is armed.
 *
 * Invariants, under kprobe_mutex:
 *  - a registered probe is a top probe in the table or a child on the
 *    ->list of the aggregate that is; never both, never twice;
 *  - an aggregate is DISABLED exactly when all its children are disabled
 *    or gone (or, transiently, while it is being set up); a top probe is
 *    armed exactly when it is not DISABLED and kprobes_all_disarmed is
 *    false (a jump being taken out excepted, see kprobes_opt.c);
 *  - an aggregate has a post_handler exactly when a live child has one,
 *    and then it is never optimized;
 *  - a GONE top probe has no instruction slot and is never armed again.
 *
 * Batches: register_kprobes() checks every probe first (address,
 * blacklist, module), then puts them all in under one kprobe_mutex hold
 * as one batch of kprobes_arm.c (a single probe is a batch of one);
 * unregister_kprobes() takes them out the same way, in two passes: every
 * probe is disabled first and the breakpoints that go are taken out of
 * the text together, then the probes leave the table.  A batch that fails
 * is undone before kprobe_mutex is dropped.  enable_kprobes() and
 * disable_kprobes() switch an array of registered probes on or off in
 * one batch, probe by probe as enable_kprobe() and disable_kprobe() do
 * (which stay single calls), and put back what a failing batch switched
 * on (or could not switch off) under kprobe_mutex too.
 *
 * Removal guarantee: unregister_kprobe(s)() takes the probes out of the
 * table and the aggregates under kprobe_mutex, disarming what needs it
 * (call sites when the batch commits, still under kprobe_mutex), then
 * waits once with synchronize_rcu() before it frees anything or
 * returns.  A handler is only ever called by a hit that found the probe
 * in the table or on an aggregate's list under RCU, so none is running or
 * can start after the wait.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/bug.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include <asm/sections.h>
#include <kunit/visibility.h>

#include "kprobes_array.h"
#include "kprobes_core.h"

/**
 * dump_kprobe - print a probe's whereabouts, for fatal errors
 * @kp: the probe
 */
void dump_kprobe(struct kprobe *kp)
{
	pr_err("kprobe %p at %pS (symbol %s, offset 0x%x)\n", kp, kp->addr,
	       kp->symbol_name ? kp->symbol_name : "(none)", kp->offset);
}

NOKPROBE_SYMBOL(dump_kprobe);

/**
 * kprobe_exceptions_notify - the die notifier of kprobes
 * @nb: the notifier block
 * @event: the die event
 * @args: its struct die_args
 *
 * An arch that takes its breakpoint or single-step traps through the die
 * chain overrides it; kprobes' notifier is called before any other.
 *
 * Return: NOTIFY_DONE (the default).
 */
int __weak kprobe_exceptions_notify(struct notifier_block *nb,
				    unsigned long event, void *args)
{
	/* Not ours to handle: let the rest of the chain see it. */
	return NOTIFY_DONE;
}

NOKPROBE_SYMBOL(kprobe_exceptions_notify);

/* --- aggregates --- */

/* The top probe @p is registered under, or NULL. */
static struct kprobe *registered_top(struct kprobe *p)
{
	struct kprobe *ap, *kp;

	lockdep_assert_held(&kprobe_mutex);

	ap = get_kprobe(p->addr);
	if (!ap || ap == p)
		return ap;
	if (!kprobe_is_aggr(ap))
		return NULL;
	list_for_each_entry(kp, &ap->list, list) {
		if (kp == p)
			return ap;
	}
	return NULL;
}

/**
 * kprobe_is_registered - is a probe registered
 * @p: the probe
 *
 * Context: process context; takes kprobe_mutex.
 * Return: true if @p is a top probe or a child of one.
 */
bool kprobe_is_registered(struct kprobe *p)
{
	guard(mutex)(&kprobe_mutex);
	return registered_top(p);
}

/* Give @to the copied instruction of @from. */
static void share_insn(struct kprobe *from, struct kprobe *to)
{
	to->opcode = from->opcode;
	to->ainsn = from->ainsn;
}

/*
 * Set the aggregate's post_handler from its live children's.  The
 * aggregate may be armed: a hit reads the field once, so it is written
 * once, never NULL on the way to staying set.
 */
static void update_aggr_post(struct kprobe *ap)
{
	kprobe_post_handler_t post = NULL;
	struct kprobe *kp;

	list_for_each_entry(kp, &ap->list, list) {
		if (kp->post_handler && !kprobe_gone(kp)) {
			post = kprobe_aggr_post_handler;
			break;
		}
	}
	WRITE_ONCE(ap->post_handler, post);
}

/*
 * Let the new aggregate @ap (from kprobe_aggr_alloc()) take the place of
 * the top probe @p, which becomes its first child.
 */
static void aggr_adopt(struct kprobe *ap, struct kprobe *p)
{
	share_insn(p, ap);
	flush_insn_slot(ap);
	ap->addr = p->addr;
	ap->flags = p->flags & ~KPROBE_FLAG_OPTIMIZED;
	/* Armed, or queued to be, the aggregate is from now on. */
	p->flags &= ~(KPROBE_FLAG_ARMED_IPMODIFY | KPROBE_FLAG_ARM_QUEUED);
	ap->pre_handler = kprobe_aggr_pre_handler;
	INIT_LIST_HEAD(&ap->list);
	INIT_HLIST_NODE(&ap->hlist);
	list_add_rcu(&p->list, &ap->list);
	update_aggr_post(ap);

	kprobe_table_replace(p, ap);
}

/*
 * Make the freshly inserted lone probe @p an aggregate if a jump buffer
 * can be built for it, so that the optimizer may take it.  A probe with
 * a post_handler never may (the handler runs after the instruction, in
 * the trap), and a lone probe keeps its handlers while it is registered:
 * it is left alone, which spares it the buffer and the decoding of its
 * whole function.  A probe without one joining it later makes the
 * aggregate then (link_child()), buffer and all.
 */
static void try_optimizable(struct kprobe *p)
{
	struct kprobe *ap;

	lockdep_assert_held(&text_mutex);

	if (!IS_ENABLED(CONFIG_OPTPROBES) || kprobe_ftrace(p) ||
	    p->post_handler)
		return;

	ap = kprobe_aggr_alloc(p);
	if (ap && kprobe_opt_ready(ap)) {
		aggr_adopt(ap, p);
		kprobe_opt_try(ap);
	} else if (ap) {
		kprobe_aggr_free(ap);
	}
}

static int prepare_probe(struct kprobe *p)
{
	if (kprobe_ftrace(p))
		return arch_prepare_kprobe_ftrace(p);
	return arch_prepare_kprobe(p);
}

/* A GONE aggregate whose address has text again gets a new slot. */
static int revive_gone(struct kprobe *ap, struct kprobe *p)
{
	int ret;

	ap->flags &= ~KPROBE_FLAG_FTRACE;
	ap->flags |= p->flags & KPROBE_FLAG_FTRACE;
	ret = prepare_probe(ap);
	if (ret) {
		/* Still GONE; unregistering its children frees it. */
		return ret;
	}
	kprobe_opt_prepare(ap);
	ap->flags = (ap->flags & ~KPROBE_FLAG_GONE) | KPROBE_FLAG_DISABLED;
	return 0;
}

/*
 * A shell gets the child @p again: it stays, and may keep its jump.  It
 * is DISABLED, and only an enabled @p may turn it on: a shell turned on
 * for a disabled child (trace_kprobe registers every probe disabled)
 * would run nothing, and once that child left it would be neither a
 * shell nor freed, armed in the table for good.  Left off, it is a
 * disabled aggregate whose disarming the worker finishes.
 */
static int revive_shell(struct kprobe *ap, struct kprobe *p)
{
	if (!kprobe_opt_ready(ap))
		return -EINVAL;
	if (kprobe_disabled(p))
		return 0;
	ap->flags &= ~KPROBE_FLAG_DISABLED;
	kprobe_opt_try(ap);
	return 0;
}

/* Take @p back off @ap after a failed join. */
static void unjoin(struct kprobe *ap, struct kprobe *p)
{
	list_del_rcu(&p->list);
	update_aggr_post(ap);
	synchronize_rcu();
	INIT_LIST_HEAD(&p->list);
}

/*
 * The part of join() that may write text: find or make the aggregate of
 * @top's address, bring it back to life if it was a shell or GONE, and
 * link @p to it.  Returns the aggregate or an ERR_PTR.  The register
 * batch holds the text locks.
 */
static struct kprobe *link_child(struct kprobe *top, struct kprobe *p)
{
	struct kprobe *ap = top;
	int ret;

	lockdep_assert_held(&text_mutex);

	if (!kprobe_is_aggr(top)) {
		ap = kprobe_aggr_alloc(top);
		if (!ap)
			return ERR_PTR(-ENOMEM);
		aggr_adopt(ap, top);
	} else if (kprobe_is_shell(ap) && !kprobe_gone(ap)) {
		ret = revive_shell(ap, p);
		if (ret)
			return ERR_PTR(ret);
	}
	if (kprobe_gone(ap)) {
		ret = revive_gone(ap, p);
		if (ret)
			return ERR_PTR(ret);
	}

	share_insn(ap, p);
	if (p->post_handler) {
		/* A post_handler needs the single step: no jump from now on. */
		kprobe_opt_cancel(ap, true);
		WRITE_ONCE(ap->post_handler, kprobe_aggr_post_handler);
	}
	list_add_rcu(&p->list, &ap->list);
	return ap;
}

/*
 * Add @p to the address's top probe @top, making an aggregate if needed,
 * in the register batch @b.
 */
static int join(struct kprobe *top, struct kprobe *p, struct kprobe_batch *b)
{
	struct kprobe *ap;
	int ret;

	ap = link_child(top, p);
	if (IS_ERR(ap))
		return PTR_ERR(ap);

	if (!kprobe_disabled(ap) || kprobe_disabled(p)) {
		/* Armed as it was; only its call-site ops may have to change. */
		ret = kprobe_batch_sync_ops(b, ap);
		if (ret)
			unjoin(ap, p);
		return ret;
	}

	/* @p is the first enabled probe of the address. */
	ap->flags &= ~KPROBE_FLAG_DISABLED;
	if (kprobes_all_disarmed)
		return 0;
	ret = kprobe_batch_arm(b, ap);
	if (ret) {
		ap->flags |= KPROBE_FLAG_DISABLED;
		unjoin(ap, p);
	}
	return ret;
}

/*
 * Put the lone probe @p, whose address has no top probe, in the table,
 * in the register batch @b.
 */
static int install(struct kprobe *p, struct kprobe_batch *b)
{
	bool arm = !kprobes_all_disarmed && !kprobe_disabled(p);
	int ret = prepare_probe(p);

	if (ret)
		return ret;
	ret = kprobe_table_insert(p);
	if (!ret && arm) {
		ret = kprobe_batch_arm(b, p);
		if (ret) {
			/* A hit may have found it meanwhile. */
			kprobe_table_remove(p);
			synchronize_rcu();
		}
	}
	if (ret) {
		arch_remove_kprobe(p);
		return ret;
	}

	try_optimizable(p);
	return 0;
}

/* The core's fields of a probe about to be registered. */
static void init_probe(struct kprobe *p, bool on_entry)
{
	/* The caller may only ask for DISABLED. */
	p->flags = (p->flags & KPROBE_FLAG_DISABLED) |
		   (on_entry ? KPROBE_FLAG_ON_FUNC_ENTRY : 0);
	INIT_LIST_HEAD(&p->list);
	p->nmissed = 0;
}

/*
 * What registering @p needs before kprobe_mutex: its address, resolved
 * into @p->addr, its core fields, and the checks of its place; @modp
 * gets the module whose text it is in, referenced, or NULL.  @sym_addr
 * is the address of @p's symbol if a batch lookup found it, else NULL.
 */
static int check_probe(struct kprobe *p, kprobe_opcode_t *sym_addr,
		       struct module **modp)
{
	kprobe_opcode_t *addr;
	bool on_entry;

	*modp = NULL;
	/* Not for the same struct twice in an array: its ->addr is set now. */
	if (sym_addr && !p->addr)
		addr = kprobe_resolve_found(sym_addr, p->offset, &on_entry);
	else
		addr = kprobe_resolve_addr(p->addr, p->symbol_name, p->offset,
					   &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	p->addr = addr;

	/* A registered probe's fields are the core's: leave them alone. */
	if (WARN_ON_ONCE(kprobe_is_registered(p)))
		return -EINVAL;
	init_probe(p, on_entry);

	return kprobe_check_site(p, modp);
}

/* Put the checked probe @p in, in the register batch @b. */
static int register_locked(struct kprobe *p, struct module *mod,
			   struct kprobe_batch *b)
{
	struct kprobe *top;

	/* The same probe twice in one array: the second finds the first. */
	if (WARN_ON_ONCE(registered_top(p)))
		return -EINVAL;
	if (!kprobe_site_alive(p, mod))
		return -ENOENT;
	top = get_kprobe(p->addr);
	return top ? join(top, p, b) : install(p, b);
}

/*
 * Take @num probes out of the table and their aggregates in one batch:
 * the part of unregistration before the grace period.  One that is not
 * registered gets its ->addr cleared, for unregister_finish().
 */
static void unregister_locked(struct kprobe **kps, int num)
{
	struct kprobe_batch b;
	int i;

	kprobe_batch_start(&b, num, KPROBE_BATCH_REMOVE);
	for (i = 0; i < num; i++)
		kprobe_unregister_disarm(kps[i], &b);
	for (i = 0; i < num; i++) {
		if (kprobe_unregister_begin(kps[i], &b) < 0)
			kps[i]->addr = NULL;
	}
	kprobe_batch_commit(&b);
}

/* Free what unregister_locked() left, after its grace period. */
static void unregister_finish(struct kprobe **kps, int num)
{
	int i;

	for (i = 0; i < num; i++) {
		if (kps[i]->addr)
			kprobe_unregister_finish(kps[i]);
	}
}

/*
 * Register the @num checked probes of @kps (their modules in @mods) in
 * one batch; all or none.
 */
static int register_batch(struct kprobe **kps, int num, struct module **mods)
{
	struct kprobe_batch b;
	int in, ret = 0;

	mutex_lock(&kprobe_mutex);
	kprobe_batch_start(&b, num, KPROBE_BATCH_ARM);
	for (in = 0; in < num; in++) {
		ret = register_locked(kps[in], mods[in], &b);
		if (ret)
			break;
	}
	if (ret)
		kprobe_batch_cancel(&b);
	else
		ret = kprobe_batch_commit(&b);

	/* The first @in are in (all of them if arming failed): out again. */
	if (ret && in)
		unregister_locked(kps, in);
	mutex_unlock(&kprobe_mutex);

	if (ret && in) {
		synchronize_rcu();
		unregister_finish(kps, in);
	}
	return ret;
}

/**
 * register_kprobes - register several probes
 * @kps: the probes, each as register_kprobe() wants it
 * @num: how many
 *
 * All or nothing: if one fails, none stays registered.  The probes are
 * checked first, then put in as one batch: the text is written under one
 * hold of its locks and each call-site ftrace_ops' filter is changed once
 * for all of them.
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL if @num <= 0, -ENOMEM, or an error register_kprobe()
 * gives: that of the first probe failing a check (none is in yet), else
 * of the first failing to go in, else of arming the batch's call sites.
 */
int register_kprobes(struct kprobe **kps, int num)
{
	struct module *one, **mods = &one;
	kprobe_opcode_t **sym_addrs = NULL;
	int checked, i, ret = 0;

	if (num <= 0)
		return -EINVAL;
	if (num > 1) {
		mods = kvcalloc(num, sizeof(*mods), GFP_KERNEL);
		if (!mods)
			return -ENOMEM;
		/* Many names: one walk of the symbols (or NULL: one by one). */
		sym_addrs = kprobe_lookup_names(kps, num, false);
	}

	for (checked = 0; checked < num; checked++) {
		ret = check_probe(kps[checked],
				  sym_addrs ? sym_addrs[checked] : NULL,
				  &mods[checked]);
		if (ret)
			break;
	}
	kvfree(sym_addrs);
	if (!ret)
		ret = register_batch(kps, num, mods);

	/* The modules' text stays now, or their going marks the probes GONE. */
	for (i = 0; i < checked; i++) {
		if (mods[i])
			module_put(mods[i]);
	}
	if (mods != &one)
		kvfree(mods);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kprobes);

/**
 * register_kprobe - register a probe
 * @p: the probe; exactly one of @p->addr and @p->symbol_name set, with
 *	@p->offset, the handlers, and KPROBE_FLAG_DISABLED in @p->flags if
 *	it should start disabled
 *
 * On success the probe is armed (unless it starts disabled or all probes
 * are disarmed) and @p->addr holds the probed address.  This is a batch
 * of one of register_kprobes().
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL for a bad description, a place that is not an
 * instruction boundary or may not be probed, or a probe that is already
 * registered; -ENOENT for an unknown symbol or text of a module on its
 * way out (or its freed init text); -ENOMEM; or the arch's error.
 */
int register_kprobe(struct kprobe *p)
{
	return register_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(register_kprobe);

/* --- enable and disable --- */

/* Is a child of the aggregate @ap still enabled? */
static bool any_child_on(struct kprobe *ap)
{
	struct kprobe *kp;

	list_for_each_entry(kp, &ap->list, list)
		if (!kprobe_disabled(kp))
			return true;
	return false;
}

/*
 * Disable @p; disarm its top probe when nothing under it is enabled, in
 * the unregister batch @b if there is one.  Returns the top probe, or an
 * ERR_PTR.
 */
static struct kprobe *disable_locked(struct kprobe *p, struct kprobe_batch *b)
{
	struct kprobe *ap = registered_top(p);
	bool armed;
	int ret;

	if (!ap)
		return ERR_PTR(-EINVAL);
	if (kprobe_disabled(p))
		return ap;

	if (p != ap) {
		p->flags |= KPROBE_FLAG_DISABLED;
		if (any_child_on(ap))
			return ap;
	}

	/*
	 * Nothing at the address runs any more.  The top probe is armed
	 * only if it is enabled and not everything is disarmed.
	 */
	ret = 0;
	armed = !kprobe_disabled(ap) && !kprobes_all_disarmed;
	if (armed) {
		if (b)
			kprobe_batch_disarm(b, ap);
		else
			ret = kprobe_disarm(ap);
	}
	if (!ret) {
		ap->flags |= KPROBE_FLAG_DISABLED;
		/*
		 * Only now does it count as disarmed: a neighbour's jump its
		 * breakpoint blocked may come back (the optimizer writes it
		 * after this batch, when the breakpoint is gone).
		 */
		if (armed && !kprobe_ftrace(ap))
			kprobe_opt_retry_covering(ap->addr);
		return ap;
	}
	p->flags &= ~KPROBE_FLAG_DISABLED;
	return ERR_PTR(ret);
}

/**
 * disable_kprobe - stop a probe's handlers from running, keeping it
 * @kp: a registered probe
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL if @kp is not registered, or a disarm error.
 */
int disable_kprobe(struct kprobe *kp)
{
	guard(mutex)(&kprobe_mutex);
	return PTR_ERR_OR_ZERO(disable_locked(kp, NULL));
}
EXPORT_SYMBOL_GPL(disable_kprobe);

/* Is @p's top probe an armed call site? */
static bool site_armed(struct kprobe *p)
{
	struct kprobe *ap = registered_top(p);

	return ap && kprobe_ftrace(ap) && !kprobe_disabled(ap) &&
	       !kprobes_all_disarmed;
}

#if IS_ENABLED(CONFIG_KUNIT)
/* What the array calls did (kprobe_mutex); see kprobes_array_get_stats(). */
static struct kprobes_array_stats array_stats;

/* Where the count of call-site updates stands as an array call starts. */
static unsigned long array_call_start(void)
{
	lockdep_assert_held(&kprobe_mutex);
	return kprobe_site_changes;
}

/* Count an array call and the call-site updates it made since @start. */
static void array_call_done(unsigned long start)
{
	lockdep_assert_held(&kprobe_mutex);
	array_stats.calls++;
	array_stats.site_changes += kprobe_site_changes - start;
}

/**
 * kprobe_count_unregister_wait - count the grace period an unregister takes
 *
 * Called once by each unregister batch that will wait, so that a KUnit
 * case can tell how many waits a removal of many probes cost.
 *
 * Context: kprobe_mutex held.
 */
void kprobe_count_unregister_wait(void)
{
	lockdep_assert_held(&kprobe_mutex);
	array_stats.unregister_waits++;
}

/**
 * kprobes_array_get_stats - what the array calls and unregisters did
 * @st: filled with the totals since boot (struct kprobes_array_stats)
 *
 * For KUnit suites, to tell exactly how many array calls an event batch
 * made and how many updates of the call sites those made, and how many
 * grace periods a removal of many probes waited for.
 *
 * Context: process context; takes kprobe_mutex.
 */
void kprobes_array_get_stats(struct kprobes_array_stats *st)
{
	guard(mutex)(&kprobe_mutex);
	*st = array_stats;
}
EXPORT_SYMBOL_IF_KUNIT(kprobes_array_get_stats);
#else
static unsigned long array_call_start(void)
{
	return 0;
}

static void array_call_done(unsigned long start)
{
}
#endif

/**
 * disable_kprobes - disable several probes in one batch
 * @kps: the probes, each as disable_kprobe() takes it (a kretprobe's kp
 *	for a return probe)
 * @num: how many
 *
 * Does for each probe, in array order, what disable_kprobe() does, under
 * one hold of kprobe_mutex and of the text locks: the breakpoints that go
 * are taken out together before the call returns (until then a hit on
 * one still runs its handlers, as a hit just before disable_kprobe()
 * would), and each call-site ftrace_ops' filter changes once for all the
 * call sites whose last enabled probe this call disabled.  Until that
 * change their top probes are DISABLED, so a hit there runs nothing.
 *
 * Like disable_kprobe(), it does not wait for handlers that are already
 * running beyond what ftrace's update of the call sites waits for: the
 * caller that frees what they use waits itself.
 *
 * On failure every probe is either disabled or exactly as it was: a probe
 * that is not registered is left alone, and a call site that cannot leave
 * its filter (warned about) stays armed, its top probe enabled again and
 * so is the probe whose disabling emptied it, as disable_kprobe() leaves
 * it; hits between the two steps are not run.
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL if @num <= 0, or the first error met: -EINVAL for a
 * probe not registered, else a disarm error of the final filter change.
 */
int disable_kprobes(struct kprobe **kps, int num)
{
	struct kprobe_batch b;
	struct kprobe *ap, *kp;
	int i, err, ret = 0;
	unsigned long start;
	bool armed;

	if (num <= 0)
		return -EINVAL;

	guard(mutex)(&kprobe_mutex);
	start = array_call_start();
	kprobe_batch_start(&b, num, KPROBE_BATCH_DISABLE);
	for (i = 0; i < num; i++) {
		kp = kps[i];
		armed = site_armed(kp);
		ap = disable_locked(kp, &b);
		if (IS_ERR(ap)) {
			if (!ret)
				ret = PTR_ERR(ap);
			continue;
		}
		/* @kp was the last one on: its site is queued. */
		if (armed && kprobe_disabled(ap))
			kp->flags |= KPROBE_FLAG_DISARM_QUEUED;
		/* Sleeping locks only: a long array must not hog the CPU. */
		cond_resched();
	}
	err = kprobe_batch_commit(&b);
	array_call_done(start);

	/* A site that stayed armed has its top enabled: @kp goes back on. */
	for (i = 0; i < num; i++) {
		kp = kps[i];
		if (!(kp->flags & KPROBE_FLAG_DISARM_QUEUED))
			continue;
		kp->flags &= ~KPROBE_FLAG_DISARM_QUEUED;
		ap = registered_top(kp);
		if (ap && !kprobe_disabled(ap))
			kp->flags &= ~KPROBE_FLAG_DISABLED;
	}
	return ret ?: err;
}

/*
 * Enable @kp; arm its top probe if it was DISABLED, in the arming batch
 * @b if there is one (a call site is then armed when @b commits).
 */
static int enable_locked(struct kprobe *kp, struct kprobe_batch *b)
{
	struct kprobe *ap = registered_top(kp);
	bool was_off;
	int ret;

	if (!ap || kprobe_gone(kp))
		return -EINVAL;

	was_off = kprobe_disabled(ap);
	kp->flags &= ~KPROBE_FLAG_DISABLED;
	ap->flags &= ~KPROBE_FLAG_DISABLED;
	if (!was_off || kprobes_all_disarmed)
		return 0;

	ret = b ? kprobe_batch_arm(b, ap) : kprobe_arm(ap);
	if (ret) {
		/* As it was: @kp alone, or the aggregate's only enabled child. */
		kp->flags |= KPROBE_FLAG_DISABLED;
		ap->flags |= KPROBE_FLAG_DISABLED;
	}
	return ret;
}

/**
 * enable_kprobe - let a disabled probe's handlers run again
 * @kp: a registered probe
 *
 * While all probes are disarmed (debugfs) it is only marked enabled, and
 * armed when they are armed again.
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL if @kp is not registered or gone, or an arm error
 * (@kp then stays disabled).
 */
int enable_kprobe(struct kprobe *kp)
{
	guard(mutex)(&kprobe_mutex);
	return enable_locked(kp, NULL);
}
EXPORT_SYMBOL_GPL(enable_kprobe);

/**
 * enable_kprobes - enable several probes in one batch
 * @kps: the probes, each as enable_kprobe() takes it (a kretprobe's kp
 *	for a return probe, as enable_kretprobe() passes it)
 * @num: how many
 *
 * Does for each probe, in array order, what enable_kprobe() does, under
 * one hold of kprobe_mutex and of the text locks: a breakpoint is written
 * at once, a call site is queued, and each call-site ftrace_ops' filter
 * changes once for all the queued sites after the last probe.  Probes
 * already enabled, several children of one aggregate, or one probe given
 * twice are fine: only a top probe that was DISABLED is armed, once.
 *
 * On failure every probe is either enabled and armed (or only marked
 * enabled while all probes are disarmed), or exactly as it was: a probe
 * that is not registered or is gone is left alone, and one whose top
 * probe could not be armed (its call-site ops' filter could not change,
 * or call sites are dead) is DISABLED again, with its top probe, as
 * enable_kprobe() leaves it.  Every other probe of the array is enabled
 * all the same; the caller tells which ones failed by kprobe_disabled().
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL if @num <= 0, or the first error met: -EINVAL for a
 * probe not registered or gone, else an arm error.  The probes are taken
 * in array order and their call sites armed after the last one, so an
 * error of the final filter change comes after those of the probes
 * themselves.
 */
int enable_kprobes(struct kprobe **kps, int num)
{
	struct kprobe_batch b;
	unsigned long start;
	struct kprobe *ap;
	int i, err, ret = 0;

	if (num <= 0)
		return -EINVAL;

	guard(mutex)(&kprobe_mutex);
	start = array_call_start();
	kprobe_batch_start(&b, num, KPROBE_BATCH_ARM);
	for (i = 0; i < num; i++) {
		err = enable_locked(kps[i], &b);
		if (err && !ret)
			ret = err;
		cond_resched();
	}
	err = kprobe_batch_commit(&b);
	array_call_done(start);
	if (!ret && !err)
		return 0;

	/*
	 * A top probe whose call site was not armed is DISABLED again, as
	 * only this batch had enabled it: so are the probes it enabled under
	 * it (each of them, not only the first, since all were DISABLED).
	 */
	for (i = 0; i < num; i++) {
		ap = registered_top(kps[i]);
		if (ap && kprobe_disabled(ap) && !kprobe_gone(kps[i]))
			kps[i]->flags |= KPROBE_FLAG_DISABLED;
	}
	return ret ?: err;
}

/* --- unregistration --- */

/**
 * kprobe_unregister_disarm - disable a probe about to be unregistered
 * @p: the probe (nothing is done if it is not registered)
 * @b: the unregister batch it will be taken out in
 *
 * The first pass of an unregister batch: called on every probe of the
 * batch before kprobe_unregister_begin() is called on any, it queues the
 * breakpoints that go, so that the batch takes them all out of the text
 * together before the first probe leaves the table.  Optional: without
 * it, kprobe_unregister_begin() disables @p itself, and its breakpoint
 * goes at once.
 *
 * Context: kprobe_mutex held, inside @b.
 */
void kprobe_unregister_disarm(struct kprobe *p, struct kprobe_batch *b)
{
	lockdep_assert_held(&kprobe_mutex);
	disable_locked(p, b);
}

/**
 * kprobe_unregister_begin - take a probe out, before the grace period
 * @p: the probe
 * @b: the unregister batch it is taken out in
 *
 * Disables @p and takes it out of the table or off its aggregate; an
 * aggregate losing its last child leaves the table too, unless the
 * optimizer still owes it work (it then retires it itself).  A call site
 * is disarmed when @b commits, which comes before the grace period.
 * What is freed, kprobe_unregister_finish() frees after
 * synchronize_rcu().
 *
 * Context: kprobe_mutex held, inside @b.
 * Return: 0, or -EINVAL if @p is not registered (nothing changed).
 */
int kprobe_unregister_begin(struct kprobe *p, struct kprobe_batch *b)
{
	struct kprobe *ap;

	lockdep_assert_held(&kprobe_mutex);

	ap = disable_locked(p, b);
	if (IS_ERR(ap))
		return PTR_ERR(ap);
	/* No breakpoint may outlive its probe's place in the table. */
	kprobe_batch_flush(b);

	if (ap == p) {
		kprobe_table_remove(p);
		return 0;
	}
	if (list_is_singular(&ap->list) && kprobe_disarmed(ap)) {
		kprobe_table_remove(ap);
		p->flags |= KPROBE_FLAG_FREE_AGGR;
		return 0;
	}

	list_del_rcu(&p->list);
	update_aggr_post(ap);
	/* Without @p's post_handler the aggregate may take a jump again. */
	if (!kprobe_disabled(ap) && !kprobes_all_disarmed)
		kprobe_opt_try(ap);
	return 0;
}

/**
 * kprobe_unregister_finish - free what unregistering a probe left
 * @p: a probe kprobe_unregister_begin() took out
 *
 * Context: after synchronize_rcu() following kprobe_unregister_begin(),
 * without kprobe_mutex.
 */
void kprobe_unregister_finish(struct kprobe *p)
{
	struct kprobe *ap;

	if (p->flags & KPROBE_FLAG_FREE_AGGR) {
		/* @p is the only entry of its aggregate's list. */
		ap = container_of(p->list.next, struct kprobe, list);
		p->flags &= ~KPROBE_FLAG_FREE_AGGR;
		list_del_init(&p->list);
		kprobe_aggr_release(ap);
	} else if (!list_empty(&p->list)) {
		/* A child that left a living aggregate: nothing is ours. */
		INIT_LIST_HEAD(&p->list);
	} else {
		arch_remove_kprobe(p);
	}
}

/**
 * unregister_kprobes - unregister several probes
 * @kps: the probes
 * @num: how many
 *
 * All are taken out in one batch: breakpoints under one hold of the text
 * locks, each call-site ftrace_ops' filter changed once; then one grace
 * period covers them all.  A probe that was not registered is skipped,
 * and its ->addr cleared.
 *
 * Context: process context; may sleep.  On return no handler of the
 * probes runs or will run.
 */
void unregister_kprobes(struct kprobe **kps, int num)
{
	if (num <= 0)
		return;

	scoped_guard(mutex, &kprobe_mutex) {
		unregister_locked(kps, num);
		kprobe_count_unregister_wait();
	}

	/* The one wait of the batch: no handler of theirs runs after it. */
	synchronize_rcu();

	unregister_finish(kps, num);
}
EXPORT_SYMBOL_GPL(unregister_kprobes);

/**
 * unregister_kprobe - unregister a probe
 * @p: the probe
 *
 * Context: process context; may sleep.  On return no handler of @p runs
 * or will run.
 */
void unregister_kprobe(struct kprobe *p)
{
	unregister_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(unregister_kprobe);

/* --- probes whose text goes away --- */

/*
 * Mark the top probe @p and its children GONE: their text is about to be
 * freed, so nothing is written to it any more, and the copied
 * instruction (which nothing will run again) is given back.
 */
static void kill_probe(struct kprobe *p)
{
	bool aggr = kprobe_is_aggr(p);
	struct kprobe *kp;

	/* ftrace still knows a call site now, and must forget it. */
	kprobe_disarm_gone(p);

	if (aggr) {
		list_for_each_entry(kp, &p->list, list)
			kp->flags |= KPROBE_FLAG_GONE;
	}
	p->flags |= KPROBE_FLAG_GONE;
	if (aggr) {
		/* No child runs: neither must the aggregate's handlers. */
		p->post_handler = NULL;
		kprobe_opt_kill(p);
	}
	arch_remove_kprobe(p);
}

static void kill_range(unsigned long start, unsigned long end)
{
	struct hlist_node *tmp;
	struct kprobe *p;
	unsigned long a;

	for_each_top_kprobe(p, tmp) {
		a = (unsigned long)p->addr;
		if (!kprobe_gone(p) && a >= start && a < end)
			kill_probe(p);
	}
}

/**
 * kprobe_free_init_mem - the kernel's init text is about to be freed
 *
 * Marks the probes in it GONE.
 *
 * Context: process context, from kernel_init().
 */
void kprobe_free_init_mem(void)
{
	mutex_lock(&kprobe_mutex);
	kill_range((unsigned long)__init_begin, (unsigned long)__init_end);
	mutex_unlock(&kprobe_mutex);
}

#ifdef CONFIG_MODULES
/*
 * A coming module adds to the blacklist.  When it goes live its init
 * text is freed, and when it goes away all of it: the probes there are
 * marked GONE.
 */
static int kprobes_module_notify(struct notifier_block *nb,
				 unsigned long state, void *data)
{
	bool going = state == MODULE_STATE_GOING;
	struct module *mod = data;
	struct hlist_node *tmp;
	struct kprobe *p;
	unsigned long a;

	switch (state) {
	case MODULE_STATE_COMING:
		kprobe_blacklist_add_module(mod);
		return NOTIFY_DONE;
	case MODULE_STATE_LIVE:
	case MODULE_STATE_GOING:
		break;
	default:
		return NOTIFY_DONE;
	}

	scoped_guard(mutex, &kprobe_mutex) {
		for_each_top_kprobe(p, tmp) {
			a = (unsigned long)p->addr;
			if (kprobe_gone(p))
				continue;
			if (within_module_init(a, mod) ||
			    (going && within_module_core(a, mod)))
				kill_probe(p);
		}
	}
	if (going)
		kprobe_blacklist_remove_module(mod);
	return NOTIFY_DONE;
}

static struct notifier_block kprobes_module_nb = {
	.notifier_call	= kprobes_module_notify,
};

static int __init watch_modules(void)
{
	return register_module_notifier(&kprobes_module_nb);
}
#else
static int __init watch_modules(void)
{
	return 0;
}
#endif /* CONFIG_MODULES */

static struct notifier_block kprobe_exceptions_nb = {
	.notifier_call	= kprobe_exceptions_notify,
	/* Before anyone else sees the trap. */
	.priority	= 0x7fffffff,
};

static int __init init_kprobes(void)
{
	int err;

	err = kprobe_blacklist_init();
	if (err)
		pr_err("blacklist incomplete (error %d): probes may land where they must not\n",
		       err);

	kprobe_insn_caches_init();

	err = arch_init_kprobes();
	if (!err)
		err = register_die_notifier(&kprobe_exceptions_nb);
	if (!err)
		err = watch_modules();
	kprobes_ready = !err;
	return err;
}
early_initcall(init_kprobes);

#ifndef CONFIG_KRETPROBES
/* Without return probes (no arch support) the API refuses them. */

/**
 * register_kretprobes - refuse return probes: the arch has none
 * @rps: the probes
 * @num: how many
 *
 * Return: -EOPNOTSUPP.
 */
int register_kretprobes(struct kretprobe **rps, int num)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL_GPL(register_kretprobes);

/**
 * register_kretprobe - refuse a return probe: the arch has none
 * @rp: the probe
 *
 * Return: -EOPNOTSUPP.
 */
int register_kretprobe(struct kretprobe *rp)
{
	return register_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(register_kretprobe);

/**
 * unregister_kretprobes - nothing to do: none can be registered
 * @rps: the probes
 * @num: how many
 */
void unregister_kretprobes(struct kretprobe **rps, int num)
{
}
EXPORT_SYMBOL_GPL(unregister_kretprobes);

/**
 * unregister_kretprobe - nothing to do: none can be registered
 * @rp: the probe
 */
void unregister_kretprobe(struct kretprobe *rp)
{
	unregister_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(unregister_kretprobe);
#endif /* !CONFIG_KRETPROBES */
