// SPDX-License-Identifier: GPL-2.0
/*
 * Call-site records of the function-hook core.
 *
 * The compiler plants a "call __fentry__" at the start of every traceable
 * function and lists the addresses (__mcount_loc for vmlinux,
 * mod->ftrace_callsites for a module).  This file turns each listed address
 * into a struct dyn_ftrace, keeps the records of one image together in a
 * struct ftrace_site_group sorted by ip, replaces the calls by NOPs, and keeps
 * the groups in step with module load and unload and with the freeing of
 * init text.  It also answers "is there a call site at, or in, ...?" for
 * kprobes, fprobe, the filter code and the tracefs files.
 *
 * Locking and lifetime:
 *  - ftrace_lock serialises every change to the group list and to the
 *    contents of a group.
 *  - A linked group's recs[] never move and its nr never changes, with one
 *    exception: when ftrace_free_mem() cannot allocate a compacted copy it
 *    compacts in place (a lockless reader may then miss a record for a
 *    moment; it never sees freed memory).
 *  - Readers without ftrace_lock walk the list and search recs[] under
 *    rcu_read_lock() (or with preemption disabled).  A group leaves the list
 *    with rcu_assign_pointer() and is freed only after grace periods, see
 *    site_group_retire().
 *  - Once a group is linked, cur_addr[], set[] and the FTRACE_FL_* state of
 *    its records belong to the patcher (ftrace_patch.c).  This file writes
 *    them before linking, and afterwards only sets or clears
 *    FTRACE_FL_DISABLED, under ftrace_lock.
 */
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/irqflags.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>

#include <asm/sections.h>

#include "trace.h"
#include "../kallsyms_internal.h"
#include "ftrace_internal.h"

/* Accounting shown by dyn_ftrace_total_info and at boot. */
unsigned long ftrace_update_tot_cnt;	/* records in all groups */
unsigned long ftrace_number_of_pages;	/* pages the groups occupy */
unsigned long ftrace_number_of_groups;	/* vmlinux + one per module */
unsigned long ftrace_update_time;	/* ns spent NOPing vmlinux at boot */

struct ftrace_site_group __rcu *ftrace_site_groups;

/*
 * Last group ftrace_site_group_of() found by walking the list.  Any reader
 * may store to it, so it may briefly name a group that was just unlinked;
 * such a group is cleared from it when unlinked and again after a grace
 * period, and freed only after a second one (site_group_retire()), so no
 * reader follows it to freed memory.
 */
static struct ftrace_site_group *site_group_hint;

static inline struct ftrace_site_group *
site_group_deref(struct ftrace_site_group __rcu *const *pp)
{
	return rcu_dereference_protected(*pp, lockdep_is_held(&ftrace_lock));
}

/* ---- allocation and list maintenance ---------------------------------- */

/*
 * A group and its three per-record arrays are one allocation:
 * [group][recs: cap][cur_addr: cap][set: cap].
 */
static struct ftrace_site_group *site_group_alloc(struct module *mod,
						  unsigned int cap)
{
	size_t per_rec = sizeof(struct dyn_ftrace) + sizeof(unsigned long) +
			 sizeof(struct ftrace_site_set *);
	size_t size = size_add(sizeof(struct ftrace_site_group),
			       size_mul(cap, per_rec));
	struct ftrace_site_group *g;

	g = kvzalloc(size, GFP_KERNEL);
	if (!g)
		return NULL;
	g->mod = mod;
	g->recs = (struct dyn_ftrace *)(g + 1);
	g->cur_addr = (unsigned long *)(g->recs + cap);
	g->set = (struct ftrace_site_set **)(g->cur_addr + cap);
	g->pages = DIV_ROUND_UP(size, PAGE_SIZE);
	return g;
}

/* The link that points at @g, or the list's terminating link for NULL. */
static struct ftrace_site_group __rcu **site_group_link(struct ftrace_site_group *g)
{
	struct ftrace_site_group __rcu **pp = &ftrace_site_groups;
	struct ftrace_site_group *cur;

	while ((cur = site_group_deref(pp)) && cur != g)
		pp = &cur->next;
	return pp;
}

/* Append @g (filled, NOPed) to the list; it becomes visible to readers. */
static void site_group_publish(struct ftrace_site_group *g)
{
	RCU_INIT_POINTER(g->next, NULL);
	rcu_assign_pointer(*site_group_link(NULL), g);
	ftrace_update_tot_cnt += g->nr;
	ftrace_number_of_pages += g->pages;
	ftrace_number_of_groups++;
}

static void site_group_forget_hint(struct ftrace_site_group *g)
{
	if (READ_ONCE(site_group_hint) == g)
		WRITE_ONCE(site_group_hint, NULL);
}

/* Take @g off the list; the caller retires it after dropping the lock. */
static void site_group_unlink(struct ftrace_site_group *g)
{
	rcu_assign_pointer(*site_group_link(g), site_group_deref(&g->next));
	site_group_forget_hint(g);
	ftrace_update_tot_cnt -= g->nr;
	ftrace_number_of_pages -= g->pages;
	ftrace_number_of_groups--;
}

/* Put @new where @old is on the list (same image, fewer records). */
static void site_group_replace(struct ftrace_site_group *old,
			       struct ftrace_site_group *new)
{
	RCU_INIT_POINTER(new->next, site_group_deref(&old->next));
	rcu_assign_pointer(*site_group_link(old), new);
	site_group_forget_hint(old);
	ftrace_update_tot_cnt -= old->nr - new->nr;
	ftrace_number_of_pages -= old->pages;
	ftrace_number_of_pages += new->pages;
}

/*
 * Free a group that left the list.  Called without ftrace_lock; sleeps.
 * After the first grace period nobody can find @g on the list any more, but a
 * reader may have stored it in the hint meanwhile; clear it again, and let a
 * second grace period cover readers that picked it up from the hint.
 */
static void site_group_retire(struct ftrace_site_group *g)
{
	synchronize_rcu();
	cmpxchg(&site_group_hint, g, NULL);
	kvfree_rcu(g, rcu);
}

/* ---- filling a group ---------------------------------------------------- */

static int site_rec_cmp(const void *a, const void *b)
{
	const struct dyn_ftrace *ra = a, *rb = b;

	if (ra->ip == rb->ip)
		return 0;
	return ra->ip < rb->ip ? -1 : 1;
}

/*
 * Copy the call-site addresses in [start, end) into @g->recs, dropping the
 * zero padding the linker may leave between objects and, for vmlinux,
 * entries outside kernel text (overridden weak functions that relocation
 * moved away from zero).  The result is sorted by ip.
 */
static void site_group_fill(struct ftrace_site_group *g,
			    const unsigned long *start, const unsigned long *end)
{
	bool sorted = true;
	unsigned int n = 0;
	const unsigned long *p;

	for (p = start; p < end; p++) {
		unsigned long addr = *p;

		if (!addr)
			continue;
		if (!g->mod && !is_kernel_text(addr) && !is_kernel_inittext(addr))
			continue;
		addr = ftrace_call_adjust(addr);
		if (n && g->recs[n - 1].ip > addr)
			sorted = false;
		g->recs[n++].ip = addr;
	}
	g->nr = n;

	/* vmlinux comes sorted from the build; module lists do not. */
	if (!sorted)
		sort(g->recs, n, sizeof(*g->recs), site_rec_cmp, NULL);
}

/*
 * Turn every call site of @g into the NOP.  A failure is reported through
 * ftrace_bug(), which shuts the core down; the remaining sites keep calling
 * __fentry__, which only returns.
 */
static int site_group_nop(struct ftrace_site_group *g, struct module *mod)
{
	unsigned int i;
	int err;

	if (!ftrace_need_init_nop())
		return 0;

	for (i = 0; i < g->nr; i++) {
		err = ftrace_init_nop(mod, &g->recs[i]);
		if (unlikely(err)) {
			ftrace_bug_type = FTRACE_BUG_INIT;
			ftrace_bug(err, &g->recs[i]);
			return err;
		}
		if (mod && !(i % 256))
			cond_resched();
	}
	return 0;
}

/*
 * Overridden weak functions leave their call site behind in dead code that
 * kallsyms attributes to whatever precedes it, at a large offset.  Such a
 * record must never be patched or matched.
 */
static bool site_rec_is_genuine(const struct dyn_ftrace *rec)
{
#ifdef FTRACE_MCOUNT_MAX_OFFSET
	unsigned long size, offset;

	if (!kallsyms_lookup_size_offset(rec->ip, &size, &offset))
		return false;
	return offset <= FTRACE_MCOUNT_MAX_OFFSET;
#else
	return true;
#endif
}

/* ---- boot ------------------------------------------------------------- */

/**
 * ftrace_dyn_arch_init - architecture setup before the call sites are read
 *
 * Context: early boot, interrupts disabled.
 * Return: 0, or an error that leaves function tracing off for this boot.
 */
int __init __weak ftrace_dyn_arch_init(void)
{
	return 0;
}

static int __init site_boot_vmlinux(unsigned long *start, unsigned long *end)
{
	struct ftrace_site_group *g;
	unsigned long flags;
	u64 t0;
	int err;

	if (start == end) {
		pr_info("ftrace: no call sites recorded in vmlinux\n");
		return -ENOENT;
	}
	g = site_group_alloc(NULL, end - start);
	if (!g) {
		pr_warn("ftrace: no memory for %lu call-site records\n",
			(unsigned long)(end - start));
		return -ENOMEM;
	}
	site_group_fill(g, start, end);

	mutex_lock(&ftrace_lock);
	local_irq_save(flags);
	t0 = ftrace_now(raw_smp_processor_id());
	err = site_group_nop(g, NULL);
	ftrace_update_time = ftrace_now(raw_smp_processor_id()) - t0;
	local_irq_restore(flags);
	/*
	 * Even after a failure the group stays: ftrace_location() must keep
	 * reporting these sites so that nobody else patches them.
	 */
	site_group_publish(g);
	mutex_unlock(&ftrace_lock);

	pr_info("ftrace: %u call sites in %u pages (%lu listed), NOPed in %lu us\n",
		g->nr, g->pages, (unsigned long)(end - start),
		ftrace_update_time / NSEC_PER_USEC);
	return err;
}

/**
 * ftrace_init - build the vmlinux call-site records and NOP every site
 *
 * Called once from start_kernel(), before SMP, with interrupts disabled.
 * On success the core becomes usable (ftrace_enabled = 1) and the boot
 * filters are applied; on failure function tracing is killed for this boot.
 */
void __init ftrace_init(void)
{
	extern unsigned long __start_mcount_loc[];
	extern unsigned long __stop_mcount_loc[];
	unsigned long flags;
	int err;

	ftrace_hash_init();
	local_irq_save(flags);
	err = ftrace_dyn_arch_init();
	local_irq_restore(flags);
	if (!err)
		err = site_boot_vmlinux(__start_mcount_loc, __stop_mcount_loc);
	if (err) {
		pr_warn("ftrace: function tracing disabled (%d)\n", err);
		ftrace_kill();
		return;
	}

	ftrace_enabled = 1;
	last_ftrace_enabled = 1;
	ftrace_apply_boot_filters();
}

/*
 * The weak-function check needs one kallsyms lookup per record: too slow to
 * do in start_kernel() under an emulator, so it runs from a worker while the
 * initcalls proceed, and is waited for before init memory is freed.
 * Until it has run, ftrace_site_name() already refuses those records, so
 * no filter can match them.
 */
static void __init site_weak_check_fn(struct work_struct *work)
{
	struct ftrace_site_group *g;
	unsigned int i, found = 0;

	mutex_lock(&ftrace_lock);
	g = site_group_deref(&ftrace_site_groups);
	for (i = 0; g && !g->mod && i < g->nr; i++) {
		if (site_rec_is_genuine(&g->recs[i]))
			continue;
		g->recs[i].flags |= FTRACE_FL_DISABLED;
		found++;
	}
	mutex_unlock(&ftrace_lock);
	if (found)
		pr_info("ftrace: %u call sites of overridden weak functions disabled\n",
			found);
}

static struct work_struct site_weak_check_work __initdata;

static int __init site_weak_check_start(void)
{
	if (ftrace_core_dead())
		return 0;
	INIT_WORK(&site_weak_check_work, site_weak_check_fn);
	queue_work(system_unbound_wq, &site_weak_check_work);
	return 0;
}
subsys_initcall(site_weak_check_start);

static int __init site_weak_check_wait(void)
{
	if (site_weak_check_work.func)
		flush_work(&site_weak_check_work);
	return 0;
}
late_initcall_sync(site_weak_check_wait);

/* ---- modules ---------------------------------------------------------- */

#ifdef CONFIG_MODULES

static bool site_any_ops_registered(void)
{
	return rcu_dereference_protected(ftrace_ops_list,
					 lockdep_is_held(&ftrace_lock)) !=
	       &ftrace_list_end;
}

static struct ftrace_site_group *site_group_of_module(struct module *mod)
{
	struct ftrace_site_group *g;

	for (g = site_group_deref(&ftrace_site_groups); g;
	     g = site_group_deref(&g->next))
		if (g->mod == mod)
			return g;
	return NULL;
}

/**
 * ftrace_module_init - create the call-site records of a module being loaded
 * @mod: the module, still MODULE_STATE_UNFORMED (its text is writable)
 *
 * The sites become NOPs; the records stay FTRACE_FL_DISABLED (never
 * patched, never matched) until ftrace_module_enable().  Failure to
 * allocate only means the module cannot be traced.
 */
void ftrace_module_init(struct module *mod)
{
	unsigned long *sites = mod->ftrace_callsites;
	struct ftrace_site_group *g;
	unsigned int i;
	int err = -ENODEV;

	if (!mod->num_ftrace_callsites || ftrace_core_dead())
		return;

	g = site_group_alloc(mod, mod->num_ftrace_callsites);
	if (!g) {
		pr_warn("ftrace: no memory for the call sites of module '%s'\n",
			mod->name);
		return;
	}
	site_group_fill(g, sites, sites + mod->num_ftrace_callsites);
	for (i = 0; i < g->nr; i++)
		g->recs[i].flags = FTRACE_FL_DISABLED;

	/* Under the lock, so no update has the arch patcher in "late" mode. */
	mutex_lock(&ftrace_lock);
	if (!ftrace_core_dead() && rcu_access_pointer(ftrace_site_groups))
		err = site_group_nop(g, mod);
	if (!err && g->nr) {
		site_group_publish(g);
		g = NULL;
	}
	mutex_unlock(&ftrace_lock);

	/* Never linked: nobody can see it. */
	kvfree(g);
}

/**
 * ftrace_module_enable - let a loaded module's call sites be traced
 * @mod: the module, MODULE_STATE_COMING (text final and read-only)
 *
 * Clears FTRACE_FL_DISABLED on the module's records (except leftovers of
 * overridden weak functions), patches the sites that registered ops want,
 * then applies the ":mod:" filters cached for this module.
 */
void ftrace_module_enable(struct module *mod)
{
	struct ftrace_site_group *g;
	unsigned int i;
	int err;

	mutex_lock(&ftrace_lock);
	if (ftrace_core_dead()) {
		mutex_unlock(&ftrace_lock);
		return;
	}
	g = site_group_of_module(mod);
	for (i = 0; g && i < g->nr; i++) {
		struct dyn_ftrace *rec = &g->recs[i];

		if (site_rec_is_genuine(rec))
			rec->flags &= ~FTRACE_FL_DISABLED;
	}
	if (g && site_any_ops_registered()) {
		err = ftrace_sites_update(0);
		if (err)
			pr_warn("ftrace: module '%s' not hooked yet (%d)\n",
				mod->name, err);
	}
	mutex_unlock(&ftrace_lock);

	/* Installs filters through ftrace_hash_install(): takes ftrace_lock. */
	ftrace_mod_cache_apply(mod);
}

static void site_drop_module_from_hashes(struct module *mod)
{
	static const enum mod_mem_type text[] = { MOD_TEXT, MOD_INIT_TEXT };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(text); i++) {
		unsigned long base = (unsigned long)mod->mem[text[i]].base;
		unsigned long size = mod->mem[text[i]].size;

		if (base && size)
			ftrace_hashes_drop_range(base, base + size);
	}
}

/**
 * ftrace_release_mod - forget the call sites of a module going away
 * @mod: the module (unloading, or its load failed)
 *
 * Unlinks its group, removes its functions from every filter, publishes a
 * generation without its sites, forgets the names kept for its freed init
 * functions, and frees the records after a grace period.  Nothing is
 * patched: the module's text is going away.
 */
void ftrace_release_mod(struct module *mod)
{
	struct ftrace_site_group *g;

	mutex_lock(&ftrace_lock);
	g = site_group_of_module(mod);
	if (g) {
		site_group_unlink(g);
		if (!ftrace_core_dead() && site_any_ops_registered())
			ftrace_sites_update(0);
	}
	ftrace_mod_syms_drop(mod);
	mutex_unlock(&ftrace_lock);

	if (!g)
		return;
	/*
	 * Its records are gone, so no update can use its addresses any more;
	 * now retire them from the filters (this takes trace_types_lock and
	 * ftrace_lock itself), before another module can reuse the text.
	 */
	site_drop_module_from_hashes(mod);
	site_group_retire(g);
}

#endif /* CONFIG_MODULES */

/* ---- freeing text ------------------------------------------------------- */

/* Index of the first record of @g with ip >= @ip (g->nr if none). */
static unsigned int site_lower_bound(const struct dyn_ftrace *recs,
				     unsigned int nr, unsigned long ip)
{
	unsigned int lo = 0, hi = nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (recs[mid].ip < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* First linked group with a record in [start, end), under ftrace_lock. */
static struct ftrace_site_group *
site_group_touching(unsigned long start, unsigned long end,
		    unsigned int *lo, unsigned int *hi)
{
	struct ftrace_site_group *g;

	for (g = site_group_deref(&ftrace_site_groups); g;
	     g = site_group_deref(&g->next)) {
		*lo = site_lower_bound(g->recs, g->nr, start);
		*hi = site_lower_bound(g->recs, g->nr, end);
		if (*lo < *hi)
			return g;
	}
	return NULL;
}

/* Copy the records of @src outside [lo, hi) into @dst (may be @src). */
static void site_group_compact(struct ftrace_site_group *dst,
			       struct ftrace_site_group *src,
			       unsigned int lo, unsigned int hi)
{
	unsigned int tail = src->nr - hi;

	if (dst != src) {
		memcpy(dst->recs, src->recs, lo * sizeof(*src->recs));
		memcpy(dst->cur_addr, src->cur_addr, lo * sizeof(*src->cur_addr));
		memcpy(dst->set, src->set, lo * sizeof(*src->set));
	}
	memmove(dst->recs + lo, src->recs + hi, tail * sizeof(*src->recs));
	memmove(dst->cur_addr + lo, src->cur_addr + hi,
		tail * sizeof(*src->cur_addr));
	memmove(dst->set + lo, src->set + hi, tail * sizeof(*src->set));
}

/*
 * Remove the records [lo, hi) of @g.  Returns the group to retire once
 * ftrace_lock is dropped, or NULL when @g was compacted in place because no
 * memory was left for a copy.
 */
static struct ftrace_site_group *site_group_shrink(struct ftrace_site_group *g,
						   unsigned int lo,
						   unsigned int hi)
{
	unsigned int keep = g->nr - (hi - lo);
	struct ftrace_site_group *copy;

	if (!keep) {
		site_group_unlink(g);
		return g;
	}

	copy = site_group_alloc(g->mod, keep);
	if (copy) {
		site_group_compact(copy, g, lo, hi);
		copy->nr = keep;
		site_group_replace(g, copy);
		return g;
	}

	site_group_compact(g, g, lo, hi);
	ftrace_update_tot_cnt -= g->nr - keep;
	WRITE_ONCE(g->nr, keep);
	return NULL;
}

/*
 * A trace may still show addresses of freed module init functions: while
 * some ops could have recorded them, let ftrace.c keep their names.
 */
static void site_keep_names(struct module *mod, struct ftrace_site_group *g,
			    unsigned int lo, unsigned int hi)
{
#ifdef CONFIG_MODULES
	unsigned int i;

	if (!mod || !site_any_ops_registered())
		return;
	for (i = lo; i < hi; i++)
		ftrace_mod_syms_keep(mod, g->recs[i].ip);
#endif
}

/**
 * ftrace_free_mem - forget the call sites in text that is being freed
 * @mod: the module whose init text is freed, NULL for vmlinux
 * @start_ptr: start of the text
 * @end_ptr: end of the text (exclusive)
 *
 * Each group with records in the range is replaced by a copy without them
 * (readers switch over under RCU), and the range is removed from every
 * filter.  For module init text, the function names are kept for later
 * symbol lookups.  The sites are not patched: their text is going away.
 */
void ftrace_free_mem(struct module *mod, void *start_ptr, void *end_ptr)
{
	unsigned long start = (unsigned long)start_ptr;
	unsigned long end = (unsigned long)end_ptr;
	struct ftrace_site_group *g, *old;
	bool dropped = false;
	unsigned int lo, hi;

	if (start >= end)
		return;

	for (;;) {
		mutex_lock(&ftrace_lock);
		g = site_group_touching(start, end, &lo, &hi);
		if (!g) {
			mutex_unlock(&ftrace_lock);
			/* Takes trace_types_lock and ftrace_lock itself. */
			if (dropped)
				ftrace_hashes_drop_range(start, end);
			return;
		}
		site_keep_names(mod, g, lo, hi);
		old = site_group_shrink(g, lo, hi);
		mutex_unlock(&ftrace_lock);

		dropped = true;
		if (old)
			site_group_retire(old);
	}
}

/**
 * ftrace_free_init_mem - forget the call sites of vmlinux init text
 *
 * Called once, right before the init sections are freed.
 */
void __init ftrace_free_init_mem(void)
{
	ftrace_boot_snapshot();
	ftrace_free_mem(NULL, __init_begin, __init_end);
}

/* ---- lookups (ftrace_lock or RCU) --------------------------------------- */

/**
 * ftrace_site_lookup - the record whose call site is exactly at @ip
 * @ip: address of a call instruction
 *
 * Context: ftrace_lock held, or inside an RCU read-side section.
 * Return: the record, or NULL.
 */
struct dyn_ftrace *ftrace_site_lookup(unsigned long ip)
{
	struct ftrace_site_group *g;

	for_each_site_group(g) {
		unsigned int nr = READ_ONCE(g->nr);
		unsigned int i;

		if (!nr || ip < g->recs[0].ip || ip > g->recs[nr - 1].ip)
			continue;
		i = site_lower_bound(g->recs, nr, ip);
		if (i < nr && g->recs[i].ip == ip)
			return &g->recs[i];
	}
	return NULL;
}

static bool site_group_holds(const struct ftrace_site_group *g,
			     const struct dyn_ftrace *rec)
{
	return rec >= g->recs && rec < g->recs + READ_ONCE(g->nr);
}

/**
 * ftrace_site_group_of - the group holding a record, and its index there
 * @rec: a record of a linked group
 * @idx: if not NULL, receives the index of @rec in the group
 *
 * Sequential walks hit the cached last group, which makes this O(1) for them.
 * Context: ftrace_lock held, or inside an RCU read-side section.
 * Return: the group, or NULL if @rec is in no linked group.
 */
struct ftrace_site_group *ftrace_site_group_of(struct dyn_ftrace *rec,
					       unsigned int *idx)
{
	struct ftrace_site_group *g = READ_ONCE(site_group_hint);

	if (!g || !site_group_holds(g, rec)) {
		for_each_site_group(g)
			if (site_group_holds(g, rec))
				break;
		if (!g)
			return NULL;
		WRITE_ONCE(site_group_hint, g);
	}
	if (idx)
		*idx = rec - g->recs;
	return g;
}

/**
 * ftrace_site_name - the function a record belongs to
 * @rec: the record
 * @name: buffer of KSYM_NAME_LEN bytes for the symbol name
 * @modname: if not NULL, receives the module name (NULL for vmlinux)
 *
 * Return: 0, or -ENOENT if kallsyms does not know the address or the site
 * is not at the start of the symbol (a leftover of an overridden weak
 * function).
 */
int ftrace_site_name(struct dyn_ftrace *rec, char *name, const char **modname)
{
	unsigned long size, offset;
	char *mod = NULL;

	if (!kallsyms_lookup(rec->ip, &size, &offset, &mod, name))
		return -ENOENT;
#ifdef FTRACE_MCOUNT_MAX_OFFSET
	if (offset > FTRACE_MCOUNT_MAX_OFFSET)
		return -ENOENT;
#endif
	if (modname)
		*modname = mod;
	return 0;
}

/*
 * ip of the lowest record whose call instruction overlaps [start, end], or 0.
 * A record at ip overlaps when ip <= end and ip + MCOUNT_INSN_SIZE > start.
 */
static unsigned long site_first_overlap(unsigned long start, unsigned long end)
{
	unsigned long from = start > MCOUNT_INSN_SIZE - 1 ?
			     start - (MCOUNT_INSN_SIZE - 1) : 0;
	unsigned long found = ULONG_MAX;
	struct ftrace_site_group *g;

	for_each_site_group(g) {
		unsigned int nr = READ_ONCE(g->nr);
		unsigned int i;

		if (!nr || end < g->recs[0].ip || from > g->recs[nr - 1].ip)
			continue;
		i = site_lower_bound(g->recs, nr, from);
		if (i < nr && g->recs[i].ip <= end)
			found = min(found, g->recs[i].ip);
	}
	return found == ULONG_MAX ? 0 : found;
}

/**
 * ftrace_location_range - the first call site in an address range
 * @start: first byte of the range
 * @end: last byte of the range (inclusive)
 *
 * Context: any; takes rcu_read_lock().
 * Return: the ip of the lowest call site whose instruction overlaps
 * [@start, @end], or 0.
 */
unsigned long ftrace_location_range(unsigned long start, unsigned long end)
{
	unsigned long found;

	rcu_read_lock();
	found = site_first_overlap(start, end);
	rcu_read_unlock();
	return found;
}

/* Without the architecture's help a function's call site is found by size. */
#ifndef ftrace_arch_entry_site
static inline unsigned long ftrace_arch_entry_site(unsigned long ip)
{
	return ip;
}
#endif

/**
 * ftrace_location - the call site at an address or of a function
 * @ip: an address inside a call site, or the start of a function
 *
 * With IBT the call site is not at the function's first byte (an ENDBR
 * precedes it), hence the second form.
 *
 * Return: the call site's ip if @ip lies in its instruction; else, if @ip
 * is the start of a symbol, the call site inside that symbol; else 0.
 */
unsigned long ftrace_location(unsigned long ip)
{
	unsigned long site = ftrace_location_range(ip, ip);
	unsigned long entry, size, offset;

	if (site)
		return site;
	/*
	 * Where the architecture can tell from a function's first bytes
	 * where its call site is, that saves the symbol lookup below (most
	 * of this function's cost when thousands of functions are named).
	 */
	entry = ftrace_arch_entry_site(ip);
	if (entry != ip && ftrace_location_range(entry, entry) == entry)
		return entry;
	if (!kallsyms_lookup_size_offset(ip, &size, &offset))
		return 0;
	/* Only the very start of a function stands for its call site. */
	if (offset || !size)
		return 0;
	return ftrace_location_range(ip, ip + size - 1);
}

/*
 * From recs[*cur] on, skip the records that end before @ip; return the
 * record's ip if its instruction holds @ip, else 0.
 */
static unsigned long site_walk_to(const struct dyn_ftrace *recs,
				  unsigned int nr, unsigned int *cur,
				  unsigned long ip)
{
	unsigned long from = ip > MCOUNT_INSN_SIZE - 1 ?
			     ip - (MCOUNT_INSN_SIZE - 1) : 0;

	while (*cur < nr && recs[*cur].ip < from)
		(*cur)++;
	return *cur < nr && recs[*cur].ip <= ip ? recs[*cur].ip : 0;
}

/**
 * ftrace_locations_sorted - ftrace_location() of many addresses at once
 * @ips: addresses in ascending order; each is replaced by its call site
 * @nr: number of addresses
 *
 * Gives each address the answer ftrace_location() would, but finds the
 * ones in vmlinux by one walk along vmlinux's records, which are sorted
 * too, instead of two binary searches each: what an attach by BPF or
 * fprobe to tens of thousands of functions spends most of its lookup on.
 * Addresses the walk cannot place (module text, a function whose call
 * site is found only by its size) take ftrace_location().  Call sites
 * keep the order of the functions they sit in, so @ips stays sorted.
 *
 * Context: any; takes rcu_read_lock().
 * Return: true if every address has a call site; an address without one
 * is left 0.
 */
bool ftrace_locations_sorted(unsigned long *ips, unsigned int nr)
{
	const struct dyn_ftrace *recs = NULL;
	struct ftrace_site_group *g;
	unsigned int i, cur = 0, peek, nrecs = 0;
	unsigned long site, entry;
	bool all = true;

	rcu_read_lock();
	for_each_site_group(g) {
		if (!g->mod) {
			recs = g->recs;
			nrecs = READ_ONCE(g->nr);
			break;
		}
	}
	for (i = 0; i < nr; i++) {
		site = recs ? site_walk_to(recs, nrecs, &cur, ips[i]) : 0;
		if (!site && recs) {
			entry = ftrace_arch_entry_site(ips[i]);
			peek = cur;
			if (entry != ips[i])
				site = site_walk_to(recs, nrecs, &peek, entry);
		}
		if (!site)
			site = ftrace_location(ips[i]);
		ips[i] = site;
		all &= !!site;
	}
	rcu_read_unlock();
	return all;
}

/**
 * ftrace_text_reserved - does a range contain a call site?
 * @start: first byte of the range
 * @end: last byte of the range (inclusive)
 *
 * Return: 1 if a call site overlaps [@start, @end], 0 otherwise.
 */
int ftrace_text_reserved(const void *start, const void *end)
{
	return ftrace_location_range((unsigned long)start,
				     (unsigned long)end) != 0;
}

/* vmlinux's records, sorted by ip, and their number.  ftrace_lock held. */
static const struct dyn_ftrace *site_vmlinux_recs(unsigned int *nr)
{
	struct ftrace_site_group *g;

	for_each_site_group(g) {
		if (!g->mod) {
			*nr = g->nr;
			return g->recs;
		}
	}
	*nr = 0;
	return NULL;
}

/*
 * ftrace_lookup_symbols() walks every kallsyms symbol once.  A binary
 * search of the sorted names per symbol cost about 600 instructions (there
 * are some 180,000 symbols in a distribution's vmlinux); a hash of the
 * names costs a tenth of that.  And since vmlinux's symbols come in
 * address order, a symbol's extent is known when the next one arrives, so
 * the call site check of a match is one range lookup rather than
 * ftrace_location()'s symbol size lookup.  Most of what remains is
 * kallsyms decompressing names (about 385 instructions a symbol); a
 * cursor over vmlinux's records, which are sorted by address too, tells
 * which symbols have a call site near their start, and only their names
 * are decompressed.  A function whose call site lies further in than
 * SITE_SYMBOL_SPAN is not found by name (6.12 would find it; no compiler
 * option in use puts one there).
 */
struct site_symbol_search {
	const char	**names;	/* in the caller's order */
	size_t		cnt;
	unsigned long	*addrs;
	size_t		found;
	u32		*slots;		/* name index + 1; 0: empty */
	unsigned int	bits;
	/* a vmlinux match waiting for the next symbol's address */
	long		pending;	/* name index, or -1 */
	unsigned long	pending_addr;
	/* vmlinux's records, and the first one not below the last symbol */
	const struct dyn_ftrace *recs;
	unsigned int	nr;
	unsigned int	cursor;
};

/*
 * How far into a symbol its call site may lie: the call comes first, after
 * at most a landing pad (ENDBR, BTI) and arm64's "mov x9, x30".
 */
#define SITE_SYMBOL_SPAN	16

static u32 site_symbol_hash(const char *name)
{
	u32 h = 2166136261u;

	while (*name)
		h = (h ^ (unsigned char)*name++) * 16777619u;
	return h;
}

/* The index of @name in s->names, or -1. */
static long site_symbol_find(struct site_symbol_search *s, const char *name)
{
	u32 mask = (1U << s->bits) - 1;
	u32 i = hash_32(site_symbol_hash(name), s->bits);
	u32 v;

	while ((v = s->slots[i])) {
		if (!strcmp(s->names[v - 1], name))
			return v - 1;
		i = (i + 1) & mask;
	}
	return -1;
}

static int site_symbol_index(struct site_symbol_search *s)
{
	u32 mask, i, k;

	s->bits = max(ilog2(roundup_pow_of_two(s->cnt)) + 1, 4);
	s->slots = kvcalloc(1U << s->bits, sizeof(*s->slots), GFP_KERNEL);
	if (!s->slots)
		return -ENOMEM;
	mask = (1U << s->bits) - 1;
	for (k = 0; k < s->cnt; k++) {
		i = hash_32(site_symbol_hash(s->names[k]), s->bits);
		/* a repeated name keeps its first index, as the search did */
		while (s->slots[i] && strcmp(s->names[s->slots[i] - 1], s->names[k]))
			i = (i + 1) & mask;
		if (!s->slots[i])
			s->slots[i] = k + 1;
	}
	return 0;
}

static void site_symbol_found(struct site_symbol_search *s, long i,
			      unsigned long addr)
{
	s->addrs[i] = addr;
	s->found++;
}

/* Settle the pending match: its symbol ends before @end (0: unknown). */
static void site_symbol_settle(struct site_symbol_search *s, unsigned long end)
{
	long i = s->pending;
	unsigned long addr = s->pending_addr;

	s->pending = -1;
	if (s->addrs[i])
		return;
	if (end > addr ? ftrace_location_range(addr, end - 1) :
			 ftrace_location(addr))
		site_symbol_found(s, i, addr);
}

/*
 * vmlinux's address filter, shown every symbol in address order: settles
 * the pending match, whose symbol ends here, and lets through only the
 * symbols with a call site near their start, whose names are worth
 * decompressing (about a third of them).
 */
static bool site_symbol_want(void *data, unsigned long addr)
{
	struct site_symbol_search *s = data;

	if (s->pending >= 0 && addr != s->pending_addr)
		site_symbol_settle(s, addr);
	if (s->found == s->cnt)
		return false;
	while (s->cursor < s->nr && s->recs[s->cursor].ip < addr)
		s->cursor++;
	return s->cursor < s->nr &&
	       s->recs[s->cursor].ip - addr < SITE_SYMBOL_SPAN;
}

/* vmlinux's kallsyms visitor; returns 1 to stop once every name is found. */
static int site_symbol_visit(void *data, const char *name, unsigned long addr)
{
	struct site_symbol_search *s = data;
	long i;

	if (s->found == s->cnt)
		return 1;
	i = site_symbol_find(s, name);
	if (i < 0 || s->addrs[i])
		return 0;
	if (s->pending >= 0)	/* an alias of the pending symbol's address */
		site_symbol_settle(s, 0);
	s->pending = i;
	s->pending_addr = addr;
	return 0;
}

/* Modules' visitor: their symbols come in no useful order. */
static int site_symbol_visit_mod(void *data, const char *name,
				 unsigned long addr)
{
	struct site_symbol_search *s = data;
	long i = site_symbol_find(s, name);

	if (i >= 0 && !s->addrs[i] && ftrace_location(addr))
		site_symbol_found(s, i, addr);
	return s->found == s->cnt;
}

/**
 * ftrace_lookup_symbols - find the addresses of traceable functions by name
 * @sorted_syms: function names (6.12 wants them sorted by strcmp(); any
 *		 order works here)
 * @cnt: number of names (and of entries in @addrs)
 * @addrs: receives, for each name, the address of the symbol; 0 if the name
 *	   is unknown or has no call site
 *
 * vmlinux is searched first, then the modules; the first traceable symbol
 * with each name wins.
 *
 * Context: process context; walks all kallsyms.
 * Return: 0 if every name was found, -ESRCH otherwise, -ENOMEM if the
 * names could not be indexed.
 */
int ftrace_lookup_symbols(const char **sorted_syms, size_t cnt,
			  unsigned long *addrs)
{
	struct site_symbol_search s = {
		.names = sorted_syms,
		.cnt = cnt,
		.addrs = addrs,
		.pending = -1,
	};
	int ret;

	if (!cnt)
		return -ESRCH;
	memset(addrs, 0, cnt * sizeof(*addrs));
	ret = site_symbol_index(&s);
	if (ret)
		return ret;
	/* ftrace_lock keeps vmlinux's records in place for the cursor */
	mutex_lock(&ftrace_lock);
	s.recs = site_vmlinux_recs(&s.nr);
	if (s.recs)
		kallsyms_on_each_symbol_filtered(site_symbol_want,
						 site_symbol_visit, &s);
	if (s.pending >= 0)
		site_symbol_settle(&s, 0);
	mutex_unlock(&ftrace_lock);
	if (s.found < cnt)
		module_kallsyms_on_each_symbol(NULL, site_symbol_visit_mod, &s);
	kvfree(s.slots);
	return s.found == cnt ? 0 : -ESRCH;
}
