// SPDX-License-Identifier: GPL-2.0
/*
 * Arming and disarming top probes, one at a time, in batches, or all at
 * once.
 *
 * A breakpoint probe is armed by the arch writing its breakpoint, under
 * cpus_read_lock() and text_mutex; the optimizer then gets a chance to
 * replace it by a jump, and a jump of a neighbour that covers the
 * address is first turned back into a breakpoint (kprobes_opt.c).
 *
 * A probe on a function-hook call site (KPROBE_FLAG_FTRACE) is armed by
 * adding its address to the filter of one of two ftrace_ops that call
 * kprobe_ftrace_handler(), and registering that ops with its first
 * address.  Both save a full pt_regs; the one used for top probes with a
 * post_handler also has FTRACE_OPS_FL_IPMODIFY, as a post_handler may
 * expect to see the pc moved (and so conflicts with live patching, as a
 * breakpoint's single step would).  Which ops a probe was armed with is
 * remembered in KPROBE_FLAG_ARMED_IPMODIFY (kprobe_site_ops[] is
 * indexed by it), so that it is disarmed from the same one whatever
 * happens to its handlers meanwhile.
 *
 * Batches (struct kprobe_batch, kprobes_arm.h) serve register_kprobes(),
 * unregister_kprobes() and the array forms of enabling and disabling
 * (enable_kprobes(), disable_kprobes()): each change of an ops' filter
 * costs an update of the call sites and a wait, so a batch collects the
 * sites of all its probes and changes each ops' filter once, with one
 * ftrace_set_filter_ips(), registering the ops after its filter is set
 * or unregistering it before its last sites go.  An arming batch queues
 * its breakpoints too and hands them to the arch in one call
 * (arch_arm_kprobes(), <linux/kprobe_batch.h>) before it lets go of the
 * text locks, so that the CPUs are made to see new text once for all of
 * them; disarming batches queue the breakpoints they take out the same
 * way, and their user flushes the queue (kprobe_batch_flush()) before it
 * takes any probe out of the table.  The single-probe calls are kept for
 * enable_kprobe(), disable_kprobe() and the global switch.
 *
 * Rules: everything here runs under kprobe_mutex.  A probe's DISABLED
 * flag is the caller's business; kprobes_all_disarmed is this layer's.
 * Once ftrace is dead (kprobe_ftrace_disabled) call-site probes are
 * neither armed nor disarmed again: ftrace no longer calls anything.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/cpu.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/kprobe_batch.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "kprobes_arm.h"

/* The queue a batch falls back to when one for all its probes fails. */
#define KPROBE_BATCH_FALLBACK	256

#if IS_ENABLED(CONFIG_KUNIT)
unsigned long kprobe_site_changes;

/*
 * Count one update of the call sites asked of ftrace: registering or
 * unregistering a call-site ops, or changing a registered one's filter.
 * Counted when asked for, whether ftrace then succeeds or not; a filter
 * change of an ops that is not registered updates no site and is not
 * counted.
 */
static inline void count_site_change(void)
{
	lockdep_assert_held(&kprobe_mutex);
	kprobe_site_changes++;
}
#else
static inline void count_site_change(void)
{
}
#endif

#ifdef CONFIG_KPROBES_ON_FTRACE

/*
 * The two ops of call-site probes, by whether they may move the pc, and
 * how many addresses each filters; an ops is registered while its count
 * is non-zero.
 */
static struct ftrace_ops kprobe_site_ops[2] __read_mostly = {
	[false]	= { .func = kprobe_ftrace_handler,
		    .flags = FTRACE_OPS_FL_SAVE_REGS },
	[true]	= { .func = kprobe_ftrace_handler,
		    .flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY },
};

static unsigned int kprobe_site_users[2];

static bool kprobe_ftrace_dead(void)
{
	return unlikely(kprobe_ftrace_disabled);
}

static int cmp_site(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Add @n call sites, none of them filtered yet, to an ops: one filter
 * change, one update of the sites.  The filter is set before the ops is
 * registered, since an empty filter would mean every function.  @ips is
 * sorted on the way (ftrace takes an ascending array in one walk).
 */
static int site_arm(bool ipmodify, unsigned long *ips, unsigned int n)
{
	struct ftrace_ops *ops = &kprobe_site_ops[ipmodify];
	unsigned int *users = &kprobe_site_users[ipmodify];
	int ret;

	if (!n)
		return 0;
	if (unlikely(kprobe_ftrace_disabled))
		return -ENODEV;

	if (n > 1)
		sort(ips, n, sizeof(*ips), cmp_site, NULL);
	/* Registered, the filter change updates the sites; else registering. */
	if (*users)
		count_site_change();
	ret = ftrace_set_filter_ips(ops, ips, n, 0, 0);
	if (ret < 0)
		return ret;
	if (!*users) {
		count_site_change();
		ret = register_ftrace_function(ops);
		if (ret < 0) {
			/* Not registered: the filter may safely go empty. */
			ftrace_set_filter_ips(ops, ips, n, 1, 0);
			return ret;
		}
	}
	*users += n;
	return 0;
}

/*
 * Take the *@nr filtered call sites at @ips out of an ops, unregistering
 * it first when they are its last ones, so that its filter never goes
 * empty while it is registered.  The count drops only for sites that left
 * the filter: one that cannot leave stays counted and armed (and is warned
 * about).  On an error *@nr is set to how many stayed, moved to the front
 * of @ips; on success to 0.
 */
static int site_disarm(bool ipmodify, unsigned long *ips, unsigned int *nr)
{
	struct ftrace_ops *ops = &kprobe_site_ops[ipmodify];
	unsigned int *users = &kprobe_site_users[ipmodify];
	unsigned int i, n = *nr, left = 0;
	int ret, err;

	/* Dead ftrace calls nothing any more: that is disarmed enough. */
	*nr = 0;
	if (!n || unlikely(kprobe_ftrace_disabled))
		return 0;
	*nr = n;
	if (WARN_ON_ONCE(*users < n))
		return -EINVAL;

	count_site_change();
	if (*users == n) {
		ret = unregister_ftrace_function(ops);
		if (WARN(ret < 0, "kprobes: cannot unregister the call-site ops (%d)\n",
			 ret))
			return ret;
		*users = 0;
		*nr = 0;
		/*
		 * Unregistered, nothing calls it: empty its filter whole, so
		 * that no address is left for its next registration (no site
		 * changes, so it is not counted).
		 */
		ret = ftrace_set_filter_ips(ops, NULL, 0, 0, 1);
		WARN_ONCE(ret < 0, "kprobes: cannot empty the call-site filter (%d)\n",
			  ret);
		return 0;
	}

	ret = ftrace_set_filter_ips(ops, ips, n, 1, 0);
	if (!ret) {
		*users -= n;
		*nr = 0;
		return 0;
	}

	/*
	 * All or nothing failed: one address cannot go (-ENOMEM), or is not
	 * in the filter (-ENOENT: its arming had failed, so it is gone
	 * already).  Take the others out one by one.
	 */
	for (i = 0; i < n; i++) {
		count_site_change();
		err = ftrace_set_filter_ip(ops, ips[i], 1, 0);
		if (err && err != -ENOENT) {
			ips[left++] = ips[i];
			ret = err;
		}
	}
	*users -= n - left;
	*nr = left;
	WARN_ONCE(left, "kprobes: cannot disarm %u call-site probe(s), the first at %pS (%d)\n",
		  left, left ? (void *)ips[0] : NULL, ret);
	return left ? ret : 0;
}

static int ftrace_arm(struct kprobe *p, bool ipmodify)
{
	unsigned long ip = (unsigned long)p->addr;
	int ret;

	ret = site_arm(ipmodify, &ip, 1);
	if (ret)
		return ret;
	if (ipmodify)
		p->flags |= KPROBE_FLAG_ARMED_IPMODIFY;
	else
		p->flags &= ~KPROBE_FLAG_ARMED_IPMODIFY;
	return 0;
}

static int ftrace_disarm(struct kprobe *p)
{
	bool ipmodify = p->flags & KPROBE_FLAG_ARMED_IPMODIFY;
	unsigned long ip = (unsigned long)p->addr;
	unsigned int n = 1;
	int ret;

	ret = site_disarm(ipmodify, &ip, &n);
	if (!ret)
		p->flags &= ~KPROBE_FLAG_ARMED_IPMODIFY;
	return ret;
}

/**
 * kprobe_ftrace_sync_ops - move an armed call-site probe to the right ops
 * @ap: a top probe whose post_handler may just have been set
 *
 * A top probe armed without FTRACE_OPS_FL_IPMODIFY that now has a
 * post_handler is re-armed with it.  Hits between the two steps are
 * missed.
 *
 * Context: kprobe_mutex held.
 * Return: 0, or the error of arming with the other ops; @ap is then still
 * armed as before.
 */
int kprobe_ftrace_sync_ops(struct kprobe *ap)
{
	int ret;

	if (!kprobe_ftrace(ap) || kprobe_disabled(ap) || kprobes_all_disarmed ||
	    !ap->post_handler || (ap->flags & KPROBE_FLAG_ARMED_IPMODIFY))
		return 0;

	ret = ftrace_disarm(ap);
	if (ret)
		return ret;
	ret = ftrace_arm(ap, true);
	if (ret)
		WARN_ON_ONCE(ftrace_arm(ap, false));
	return ret;
}

#else /* !CONFIG_KPROBES_ON_FTRACE */

static bool kprobe_ftrace_dead(void)
{
	return true;
}

static int site_arm(bool ipmodify, unsigned long *ips, unsigned int n)
{
	return n ? -ENODEV : 0;
}

static int site_disarm(bool ipmodify, unsigned long *ips, unsigned int *nr)
{
	*nr = 0;
	return 0;
}

static int ftrace_arm(struct kprobe *p, bool ipmodify)
{
	return -ENODEV;
}

static int ftrace_disarm(struct kprobe *p)
{
	return -ENODEV;
}

int kprobe_ftrace_sync_ops(struct kprobe *ap)
{
	return 0;
}

#endif /* CONFIG_KPROBES_ON_FTRACE */

/**
 * arch_arm_kprobes - put the breakpoints of several probes in place
 * @ps: the probes, each prepared, in the table and not armed
 * @n: how many
 *
 * What arch_arm_kprobe() does to each, with the work that can be shared
 * done once; this default calls arch_arm_kprobe() on each.
 *
 * Context: cpus_read_lock() and text_mutex held.
 */
void __weak arch_arm_kprobes(struct kprobe **ps, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		arch_arm_kprobe(ps[i]);
}

/**
 * arch_disarm_kprobes - take the breakpoints of several probes out
 * @ps: armed probes, all still in the table
 * @n: how many
 *
 * What arch_disarm_kprobe() does to each, with the work that can be
 * shared done once; this default calls arch_disarm_kprobe() on each.  On
 * return no CPU fetches any of the breakpoints again, and none is still
 * handling one it took.
 *
 * Context: cpus_read_lock() and text_mutex held.
 */
void __weak arch_disarm_kprobes(struct kprobe **ps, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		arch_disarm_kprobe(ps[i]);
}

/*
 * Write or take out the breakpoints @b queued (text locks held).  What an
 * arming batch arms is the top probe at each queued address now: an
 * aggregate may have taken a queued probe's place since
 * (try_optimizable(), a probe joining it).  A disarming batch queued top
 * probes that stay in the table until this is done.
 */
static void flush_bps(struct kprobe_batch *b)
{
	unsigned int i, n = 0;
	struct kprobe *top;

	if (!b->nr_bps)
		return;
	if (b->kind != KPROBE_BATCH_ARM) {
		arch_disarm_kprobes(b->bps, b->nr_bps);
		b->nr_bps = 0;
		return;
	}
	for (i = 0; i < b->nr_bps; i++) {
		top = get_kprobe(b->bps[i]->addr);
		if (!WARN_ON_ONCE(!top))
			b->bps[n++] = top;
	}
	if (n)
		arch_arm_kprobes(b->bps, n);
	b->nr_bps = 0;
}

/*
 * Queue @p's breakpoint in @b to be written (@arm) or taken out,
 * allocating the queue (one entry per probe of the batch) on the first;
 * false for a batch of one, without memory, or when @b's flush goes the
 * other way: the caller writes it at once.
 */
static bool queue_bp(struct kprobe_batch *b, struct kprobe *p, bool arm)
{
	bool arming_batch = b->kind == KPROBE_BATCH_ARM;

	if (b->bps_room < 2 || arm != arming_batch)
		return false;
	if (!b->bps) {
		b->bps = kvmalloc_array(b->bps_room, sizeof(*b->bps),
					GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!b->bps) {
			b->bps_room = 0;
			return false;
		}
	}
	if (b->nr_bps == b->bps_room)
		flush_bps(b);
	b->bps[b->nr_bps++] = p;
	return true;
}

/*
 * Arm @p's breakpoint: at once, or, in an arming batch @b with room for
 * it, queued for flush_bps().  The optimizer only queues work of its own
 * here, which waits for kprobe_mutex: it finds the breakpoint written.
 */
static void text_arm(struct kprobe *p, struct kprobe_batch *b)
{
	lockdep_assert_held(&text_mutex);

	kprobe_opt_break_covering(p->addr);
	if (!b || !queue_bp(b, p, true))
		arch_arm_kprobe(p);
	kprobe_opt_try(p);
}

/* Disarm @p's breakpoint: at once, or queued in the disarming batch @b. */
static void text_disarm(struct kprobe *p, struct kprobe_batch *b)
{
	lockdep_assert_held(&text_mutex);

	/* A jump the worker must still take out: it disarms after that. */
	if (kprobe_opt_cancel(p, kprobes_all_disarmed))
		return;
	if (!b || !queue_bp(b, p, false))
		arch_disarm_kprobe(p);
}

/**
 * kprobe_arm - arm a top probe
 * @p: a top probe in the table
 *
 * Context: kprobe_mutex held.
 * Return: 0, or the error of arming a call-site probe.
 */
int kprobe_arm(struct kprobe *p)
{
	lockdep_assert_held(&kprobe_mutex);

	if (!kprobe_ftrace(p)) {
		cpus_read_lock();
		mutex_lock(&text_mutex);
		text_arm(p, NULL);
		mutex_unlock(&text_mutex);
		cpus_read_unlock();
		return 0;
	}
	/* A post_handler may see the pc moved: the IPMODIFY ops. */
	return ftrace_arm(p, !!p->post_handler);
}

/**
 * kprobe_disarm - disarm a top probe
 * @p: a top probe in the table, armed
 *
 * A breakpoint under a jump the optimizer still has to take out is left
 * to the optimizer, which takes it out once the probe is marked disabled
 * (or everything is disarmed).  A neighbour's jump that @p's breakpoint
 * blocked is the caller's to retry (kprobe_opt_retry_covering()) once @p
 * counts as disarmed.
 *
 * Context: kprobe_mutex held.
 * Return: 0, or the error of disarming a call-site probe.
 */
int kprobe_disarm(struct kprobe *p)
{
	lockdep_assert_held(&kprobe_mutex);

	if (!kprobe_ftrace(p)) {
		cpus_read_lock();
		mutex_lock(&text_mutex);
		text_disarm(p, NULL);
		mutex_unlock(&text_mutex);
		cpus_read_unlock();
		return 0;
	}
	return ftrace_disarm(p);
}

/* --- batches --- */

static void text_lock(void)
{
	cpus_read_lock();
	jump_label_lock();
	mutex_lock(&text_mutex);
}

static void text_unlock(void)
{
	mutex_unlock(&text_mutex);
	jump_label_unlock();
	cpus_read_unlock();
}

/* The top probe a register batch queued at @ip (NULL would be a bug). */
static struct kprobe *queued_top(unsigned long ip)
{
	struct kprobe *p = get_kprobe((kprobe_opcode_t *)ip);

	if (WARN_ON_ONCE(!p || !(p->flags & KPROBE_FLAG_ARM_QUEUED)))
		return NULL;
	return p;
}

/*
 * The queued top probes at @ips are armed with the ops @ipmodify says,
 * or, if @armed is false, they were not: they are left DISABLED, which
 * only the probes of the failing batch had made them not be.
 */
static void settle_queued(unsigned long *ips, unsigned int n, bool ipmodify,
			  bool armed)
{
	struct kprobe *p;
	unsigned int i;

	for (i = 0; i < n; i++) {
		p = queued_top(ips[i]);
		if (!p)
			continue;
		p->flags &= ~(KPROBE_FLAG_ARM_QUEUED | KPROBE_FLAG_ARMED_IPMODIFY);
		if (!armed)
			p->flags |= KPROBE_FLAG_DISABLED;
		else if (ipmodify)
			p->flags |= KPROBE_FLAG_ARMED_IPMODIFY;
	}
}

/*
 * Arm the queued call sites: those whose top probe has a post_handler
 * by now with the IPMODIFY ops, the others with the plain one, one
 * filter change each; then move the armed tops a post_handler joined.
 */
static int apply_arms(struct kprobe_batch *b)
{
	unsigned long *ips = b->ips;
	unsigned int n = b->head, plain = 0, i;
	struct kprobe *p;
	int ret;

	for (i = 0; i < n;) {
		p = queued_top(ips[i]);
		if (!p) {
			ips[i] = ips[--n];
			continue;
		}
		/* swap() names its arguments twice: no side effects in them. */
		if (!p->post_handler) {
			swap(ips[i], ips[plain]);
			plain++;
		}
		i++;
	}
	ret = site_arm(false, ips, plain);
	settle_queued(ips, plain, false, !ret);
	if (!ret)
		ret = site_arm(true, ips + plain, n - plain);
	settle_queued(ips + plain, n - plain, true, !ret);

	/* Rare: one update each, and each stays armed somewhere on failure. */
	for (i = b->tail; !ret && i < b->room; i++) {
		p = get_kprobe((kprobe_opcode_t *)ips[i]);
		if (p)
			ret = kprobe_ftrace_sync_ops(p);
	}
	return ret;
}

/*
 * The @n call sites at @ips of a disable batch stayed in the filter of
 * the ops @ipmodify says: their top probes are armed still, so not
 * DISABLED (only the batch's probes had made them be).
 */
static void keep_armed(unsigned long *ips, unsigned int n, bool ipmodify)
{
	struct kprobe *p;
	unsigned int i;

	for (i = 0; i < n; i++) {
		p = get_kprobe((kprobe_opcode_t *)ips[i]);
		if (WARN_ON_ONCE(!p))
			continue;
		p->flags &= ~KPROBE_FLAG_DISABLED;
		if (ipmodify)
			p->flags |= KPROBE_FLAG_ARMED_IPMODIFY;
	}
}

/*
 * Take the queued call sites out of each ops.  Only a disable batch
 * fails: an unregister batch's probes are out of the table by now, and a
 * site left behind runs nothing.
 */
static int apply_disarms(struct kprobe_batch *b)
{
	unsigned int plain = b->head, ipm = b->room - b->tail;
	int ret, err;

	ret = site_disarm(false, b->ips, &plain);
	err = site_disarm(true, b->ips + b->tail, &ipm);
	if (b->kind != KPROBE_BATCH_DISABLE)
		return 0;
	keep_armed(b->ips, plain, false);
	keep_armed(b->ips + b->tail, ipm, true);
	return ret ?: err;
}

/* Apply and empty the queue; the text locks are not held. */
static int apply_queue(struct kprobe_batch *b)
{
	int ret;

	if (b->kind == KPROBE_BATCH_ARM)
		ret = apply_arms(b);
	else
		ret = apply_disarms(b);
	b->head = 0;
	b->tail = b->room;
	return ret;
}

/*
 * Queue @ip at the front or the back, applying a full queue first.  An
 * arming batch fails then without queueing @ip; a disable batch keeps
 * the error for commit and queues @ip all the same.
 */
static int queue_site(struct kprobe_batch *b, kprobe_opcode_t *addr, bool back)
{
	int ret;

	if (b->head == b->tail) {
		flush_bps(b);
		text_unlock();
		ret = apply_queue(b);
		text_lock();
		if (ret && b->kind == KPROBE_BATCH_ARM)
			return ret;
		if (!b->err)
			b->err = ret;
	}
	if (back)
		b->ips[--b->tail] = (unsigned long)addr;
	else
		b->ips[b->head++] = (unsigned long)addr;
	return 0;
}

/**
 * kprobe_batch_start - start a batch of (un)registrations, enables or disables
 * @b: the batch
 * @num: how many probes it will take (at most)
 * @kind: it arms (registers or enables), unregisters, or disables
 *
 * Takes the text locks for the batch and holds back the optimizer's kicks
 * until it ends.  Never fails: without memory for its queue the batch
 * applies its call sites every few probes instead of once.
 *
 * Context: kprobe_mutex held until kprobe_batch_commit() or
 * kprobe_batch_cancel().
 */
void kprobe_batch_start(struct kprobe_batch *b, unsigned int num,
			enum kprobe_batch_kind kind)
{
	unsigned long *ips = NULL;

	lockdep_assert_held(&kprobe_mutex);

	if (num > KPROBE_BATCH_INLINE) {
		ips = kvmalloc_array(num, sizeof(*ips), GFP_KERNEL_ACCOUNT);
		/* Short of memory: a smaller queue still saves most updates. */
		if (!ips && num > KPROBE_BATCH_FALLBACK) {
			num = KPROBE_BATCH_FALLBACK;
			ips = kvmalloc_array(num, sizeof(*ips), GFP_KERNEL_ACCOUNT);
		}
	}
	b->ips = ips ? ips : b->inline_ips;
	b->room = ips ? num : KPROBE_BATCH_INLINE;
	b->head = 0;
	b->tail = b->room;
	b->kind = kind;
	b->err = 0;
	b->bps = NULL;
	b->nr_bps = 0;
	b->bps_room = num;
	kprobe_opt_hold_kicks();
	text_lock();
}

/**
 * kprobe_batch_arm - arm a top probe in an arming batch
 * @b: the batch (register or enable)
 * @p: a top probe in the table, not armed
 *
 * A breakpoint is written now; a call site is queued.
 *
 * Context: inside @b.
 * Return: 0, or an error of arming (then @p is not queued): -ENODEV
 * when call sites are dead, or that of applying a full queue.
 */
int kprobe_batch_arm(struct kprobe_batch *b, struct kprobe *p)
{
	int ret;

	lockdep_assert_held(&kprobe_mutex);

	if (!kprobe_ftrace(p)) {
		text_arm(p, b);
		return 0;
	}
	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) || kprobe_ftrace_dead())
		return -ENODEV;
	ret = queue_site(b, p->addr, false);
	if (!ret)
		p->flags |= KPROBE_FLAG_ARM_QUEUED;
	return ret;
}

/**
 * kprobe_batch_sync_ops - kprobe_ftrace_sync_ops(), at the batch's commit
 * @b: a register batch
 * @ap: a top probe whose post_handler may just have been set
 *
 * Context: inside @b.
 * Return: 0, or the error of applying a full queue.
 */
int kprobe_batch_sync_ops(struct kprobe_batch *b, struct kprobe *ap)
{
	/* A queued one gets the right ops when it is armed. */
	if (!kprobe_ftrace(ap) || (ap->flags & KPROBE_FLAG_ARM_QUEUED) ||
	    kprobe_disabled(ap) || kprobes_all_disarmed || !ap->post_handler ||
	    (ap->flags & KPROBE_FLAG_ARMED_IPMODIFY))
		return 0;
	return queue_site(b, ap->addr, true);
}

/**
 * kprobe_batch_disarm - disarm a top probe in an unregister or disable batch
 * @b: the batch
 * @p: a top probe, armed
 *
 * A breakpoint is queued to be taken out (or left to the optimizer, as
 * kprobe_disarm() says): @p must stay in the table until the batch is
 * flushed.  A call site stays armed until the batch commits, so @p must
 * be out of the table, or DISABLED, before then: a hit that finds
 * neither runs nothing.  Jumps @p blocked: as for kprobe_disarm().
 *
 * Context: inside @b.
 */
void kprobe_batch_disarm(struct kprobe_batch *b, struct kprobe *p)
{
	bool ipmodify = p->flags & KPROBE_FLAG_ARMED_IPMODIFY;

	lockdep_assert_held(&kprobe_mutex);

	if (!kprobe_ftrace(p)) {
		text_disarm(p, b);
		return;
	}
	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) || kprobe_ftrace_dead())
		return;
	p->flags &= ~KPROBE_FLAG_ARMED_IPMODIFY;
	/* Queued whatever applying a full queue met (kept in @b->err). */
	queue_site(b, p->addr, ipmodify);
}

/**
 * kprobe_batch_flush - write or take out the breakpoints queued so far
 * @b: the batch
 *
 * An unregister batch flushes before it takes any probe out of the table:
 * a breakpoint still in the text must find its probe.
 *
 * Context: inside @b.
 */
void kprobe_batch_flush(struct kprobe_batch *b)
{
	lockdep_assert_held(&kprobe_mutex);
	flush_bps(b);
}

static void batch_end(struct kprobe_batch *b)
{
	if (b->ips != b->inline_ips)
		kvfree(b->ips);
	b->ips = NULL;
	kvfree(b->bps);
	b->bps = NULL;
	kprobe_opt_release_kicks();
}

/**
 * kprobe_batch_commit - end a batch: apply its call sites
 * @b: the batch
 *
 * Drops the text locks, then changes each call-site ops' filter once for
 * the queued sites.  For an arming batch that fails, the top probes of
 * an ops whose change failed are left DISABLED and not armed, those of
 * the other ops armed: a register batch's caller unregisters the batch's
 * probes, an enable batch's puts DISABLED back on the probes it enabled
 * under them.  An unregister batch does not fail (a filter that cannot
 * change is warned about and keeps sites whose probes are gone; hits
 * there find nothing).  A disable batch's sites that cannot leave their
 * filter stay armed, their top probes not DISABLED (and warned about).
 *
 * Context: kprobe_mutex held, the batch's text locks too (dropped).
 * Return: 0, or the first error of arming the call sites, or of
 * disarming those of a disable batch.
 */
int kprobe_batch_commit(struct kprobe_batch *b)
{
	int ret;

	flush_bps(b);
	text_unlock();
	ret = apply_queue(b);
	batch_end(b);
	return b->err ?: ret;
}

/**
 * kprobe_batch_cancel - end a register batch that failed
 * @b: the batch
 *
 * Drops the text locks; the queued top probes are left DISABLED and not
 * armed, those already moved or armed stay as they are, for the caller
 * to unregister the batch's probes.
 *
 * Context: kprobe_mutex held, the batch's text locks too (dropped).
 */
void kprobe_batch_cancel(struct kprobe_batch *b)
{
	/* The queued breakpoints' probes are armed for the unregistration. */
	flush_bps(b);
	text_unlock();
	if (b->kind == KPROBE_BATCH_ARM)
		settle_queued(b->ips, b->head, false, false);
	b->head = 0;
	b->tail = b->room;
	batch_end(b);
}

/**
 * kprobe_disarm_gone - disarm a top probe whose text is going away
 * @p: a top probe about to be marked GONE
 *
 * Only a call-site probe needs it: ftrace still knows the site while a
 * module is GOING, and must forget it.  Breakpoints go with their text.
 *
 * Context: kprobe_mutex held.
 */
void kprobe_disarm_gone(struct kprobe *p)
{
	if (kprobe_ftrace(p) && !kprobe_disabled(p) && !kprobes_all_disarmed)
		ftrace_disarm(p);
}

static void report_switch(bool on, unsigned int failed, unsigned int total)
{
	const char *state = on ? "enabled" : "disabled";

	if (!failed) {
		pr_info("Kprobes globally %s\n", state);
		return;
	}
	pr_warn("Kprobes globally %s, but %u of %u probes could not follow; debugfs kprobes/list shows which\n",
		state, failed, total);
}

/**
 * kprobes_arm_all - arm every enabled probe (debugfs "enabled" = 1)
 *
 * Best effort: a probe that fails to arm stays as it is.
 *
 * Context: process context; takes kprobe_mutex.
 * Return: 0, or the last error met.
 */
int kprobes_arm_all(void)
{
	unsigned int total = 0, failed = 0;
	struct hlist_node *tmp;
	struct kprobe *p;
	int err, ret = 0;

	mutex_lock(&kprobe_mutex);
	if (!kprobes_all_disarmed)
		goto out;

	/* Cleared first: arming consults it to allow jumps. */
	kprobes_all_disarmed = false;
	for_each_top_kprobe(p, tmp) {
		if (kprobe_disabled(p))
			continue;
		total++;
		err = kprobe_arm(p);
		if (err) {
			/* Not armed: say so, so that disarming never counts it. */
			p->flags |= KPROBE_FLAG_DISABLED;
			failed++;
			ret = err;
		}
	}
	report_switch(true, failed, total);
out:
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/**
 * kprobes_disarm_all - disarm every probe (debugfs "enabled" = 0)
 *
 * Jumps are taken out at once; the call returns after the optimizer has
 * finished what it still owed.
 *
 * Context: process context; takes kprobe_mutex.
 * Return: 0, or the last error met.
 */
int kprobes_disarm_all(void)
{
	unsigned int total = 0, failed = 0;
	struct hlist_node *tmp;
	struct kprobe *p;
	int err, ret = 0;

	scoped_guard(mutex, &kprobe_mutex) {
		if (kprobes_all_disarmed)
			return 0;
		/* Set first: disarming then takes jumps out at once. */
		kprobes_all_disarmed = true;
		for_each_top_kprobe(p, tmp) {
			if (kprobe_disabled(p) || arch_trampoline_kprobe(p))
				continue;
			total++;
			err = kprobe_disarm(p);
			if (err) {
				failed++;
				ret = err;
			}
		}
		report_switch(false, failed, total);
	}

	wait_for_kprobe_optimizer();
	return ret;
}
