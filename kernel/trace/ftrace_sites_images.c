// SPDX-License-Identifier: GPL-2.0
/*
 * Where the call-site groups come from and when they go: the group of
 * vmlinux, built and NOPed at boot; a module's, built and NOPed at load,
 * usable once its text is final, unlinked at unload; and the cutting out
 * of sites whose text is freed (init text of vmlinux and of modules).
 *
 * Each address listed by the build (__mcount_loc, mod->ftrace_callsites)
 * becomes one record; the call it names becomes a NOP before anybody can
 * see the group.  Sites of overridden weak functions are found and
 * disabled (never patched, never matched).
 *
 * Layer: sites; uses the records of ftrace_sites.c (ftrace_sites.h) and
 * the arch's site operations, nothing above.
 *
 * Locking: ftrace_lock around every change of the group list, taken here
 * (boot, module load, freed text) or held by the caller (module enable
 * and unlink, which ftrace_lifecycle.c runs as part of an update).  A group
 * is filled and NOPed before it is published; one that leaves the list is
 * freed after its readers, without ftrace_lock (site_group_retire()).
 */
#include <linux/ftrace.h>
#include <linux/init.h>
#include <linux/irqflags.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include <asm/sections.h>

#include "trace.h"
#include "ftrace_records.h"
#include "ftrace_sites.h"

/* ---- filling a group ---------------------------------------------------- */

static int site_off_cmp(const void *a, const void *b)
{
	u32 oa = *(const u32 *)a, ob = *(const u32 *)b;

	if (oa == ob)
		return 0;
	return oa < ob ? -1 : 1;
}

/*
 * The call site a listed address stands for; 0 if it is to be left out.
 * ftrace_call_adjust() may read the text (arm64), so only real lists go
 * through it.
 */
static unsigned long site_listed_ip(const struct ftrace_site_group *g,
				    unsigned long addr, bool adjust)
{
	if (!addr)
		return 0;
	if (!g->mod && !is_kernel_text(addr) && !is_kernel_inittext(addr))
		return 0;
	return adjust ? ftrace_call_adjust(addr) : addr;
}

/*
 * Store the call-site addresses in [start, end) in @g as offsets from the
 * lowest of them, dropping the zero padding the linker may leave between
 * objects and, for vmlinux, entries outside kernel text (overridden weak
 * functions that relocation moved away from zero).  The result is sorted
 * by ip.  @adjust: the addresses are the compiler's, to be moved onto the
 * call instruction by ftrace_call_adjust().  Returns 0, or -ERANGE if the
 * sites span 2 GiB or more (no image we load does).
 */
VISIBLE_IF_KUNIT int site_group_fill(struct ftrace_site_group *g,
				     const unsigned long *start,
				     const unsigned long *end, bool adjust)
{
	unsigned long ip, lo = ULONG_MAX, hi = 0;
	bool sorted = true;
	unsigned int n = 0;
	const unsigned long *p;

	for (p = start; p < end; p++) {
		ip = site_listed_ip(g, *p, adjust);
		if (!ip)
			continue;
		lo = min(lo, ip);
		hi = max(hi, ip);
	}
	g->nr = 0;
	if (lo > hi)
		return 0;
	if (hi - lo > FTRACE_SITE_OFF_MASK)
		return -ERANGE;
	g->base = lo;

	for (p = start; p < end; p++) {
		ip = site_listed_ip(g, *p, adjust);
		if (!ip)
			continue;
		g->offs[n] = ip - lo;
		if (n && g->offs[n - 1] > g->offs[n])
			sorted = false;
		n++;
	}
	g->nr = n;

	/* vmlinux comes sorted from the build; module lists do not. */
	if (!sorted)
		sort(g->offs, n, sizeof(*g->offs), site_off_cmp, NULL);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(site_group_fill);

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
		struct dyn_ftrace rec = { .ip = ftrace_site_ip(g, i) };

		err = ftrace_init_nop(mod, &rec);
		if (unlikely(err)) {
			ftrace_bug_type = FTRACE_BUG_INIT;
			ftrace_bug(err, &rec);
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
static bool site_is_genuine(unsigned long ip)
{
#ifdef FTRACE_MCOUNT_MAX_OFFSET
	unsigned long size, offset;

	if (!kallsyms_lookup_size_offset(ip, &size, &offset))
		return false;
	return offset <= FTRACE_MCOUNT_MAX_OFFSET;
#else
	return true;
#endif
}

/* ---- boot ------------------------------------------------------------- */

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
	err = site_group_fill(g, start, end, true);
	if (err) {
		pr_warn("ftrace: vmlinux call sites span 2 GiB or more\n");
		site_group_free(g);
		return err;
	}

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

	pr_info("ftrace: %u call sites in %zu bytes (%lu listed), NOPed in %lu us\n",
		g->nr, g->bytes, (unsigned long)(end - start),
		ftrace_update_time / NSEC_PER_USEC);
	return err;
}

/**
 * ftrace_sites_boot - build the vmlinux call-site records and NOP every site
 *
 * The records' part of ftrace_init() (ftrace_lifecycle.c), after the arch
 * setup.  Even on failure the records built stay published, so that
 * ftrace_location() keeps reporting those sites.
 *
 * Context: early boot, from start_kernel(); takes ftrace_lock.
 * Return: 0; -ENOENT (no call sites listed), -ENOMEM, -ERANGE (the sites
 * span 2 GiB or more) or the error of NOPing a site (after ftrace_bug()).
 */
int __init ftrace_sites_boot(void)
{
	extern unsigned long __start_mcount_loc[];
	extern unsigned long __stop_mcount_loc[];

	return site_boot_vmlinux(__start_mcount_loc, __stop_mcount_loc);
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
		if (site_is_genuine(ftrace_site_ip(g, i)))
			continue;
		ftrace_site_set_disabled(g, i, true);
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
	if (site_group_fill(g, sites, sites + mod->num_ftrace_callsites, true)) {
		pr_warn("ftrace: call sites of module '%s' span 2 GiB or more\n",
			mod->name);
		site_group_free(g);
		return;
	}
	for (i = 0; i < g->nr; i++)
		ftrace_site_set_disabled(g, i, true);

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
	site_group_free(g);
}

/**
 * ftrace_sites_module_enable - let a loaded module's records be used
 * @mod: the module, MODULE_STATE_COMING (text final and read-only)
 *
 * Clears FTRACE_FL_DISABLED on the module's records, except leftovers of
 * overridden weak functions.  Patches nothing: ftrace_module_enable()
 * (ftrace_lifecycle.c) runs the update.
 *
 * Context: ftrace_lock held.
 * Return: true if the module has records (an update may hook them).
 */
bool ftrace_sites_module_enable(struct module *mod)
{
	struct ftrace_site_group *g;
	unsigned int i;

	lockdep_assert_held(&ftrace_lock);

	g = site_group_of_module(mod);
	for (i = 0; g && i < g->nr; i++) {
		if (site_is_genuine(ftrace_site_ip(g, i)))
			ftrace_site_set_disabled(g, i, false);
	}
	return g;
}

/**
 * ftrace_sites_module_unlink - unlink the records of a module going away
 * @mod: the module (unloading, or its load failed)
 *
 * Readers of the group list stop finding the module's records; the caller
 * publishes a generation without them and then hands the group to
 * ftrace_sites_group_retire().  Nothing is patched: the text is going away.
 *
 * Context: ftrace_lock held.
 * Return: the unlinked group, or NULL if the module had no records.
 */
struct ftrace_site_group *ftrace_sites_module_unlink(struct module *mod)
{
	struct ftrace_site_group *g;

	lockdep_assert_held(&ftrace_lock);

	g = site_group_of_module(mod);
	if (g)
		site_group_unlink(g);
	return g;
}

/**
 * ftrace_sites_group_retire - free an unlinked group after its readers
 * @g: a group ftrace_sites_module_unlink() returned
 *
 * Context: process context, without ftrace_lock; sleeps.
 */
void ftrace_sites_group_retire(struct ftrace_site_group *g)
{
	site_group_retire(g);
}

#endif /* CONFIG_MODULES */

/* ---- freeing text ------------------------------------------------------- */

/* First linked group with a record in [start, end), under ftrace_lock. */
static struct ftrace_site_group *
site_group_touching(unsigned long start, unsigned long end,
		    unsigned int *lo, unsigned int *hi)
{
	struct ftrace_site_group *g;

	for (g = site_group_deref(&ftrace_site_groups); g;
	     g = site_group_deref(&g->next)) {
		*lo = site_lower_bound(g, g->nr, start);
		*hi = site_lower_bound(g, g->nr, end);
		if (*lo < *hi)
			return g;
	}
	return NULL;
}

/* Does @st hold anything a fresh state would not? */
static bool site_state_used(const struct ftrace_site_state *st)
{
	return st->cur_addr || st->set || (st->rec.flags & ~FTRACE_FL_DISABLED);
}

/*
 * Copy the records of @src outside [lo, hi) into @dst, with the states in
 * use.  Returns 0, or -ENOMEM if a state chunk could not be allocated.
 */
static int site_group_compact(struct ftrace_site_group *dst,
			      struct ftrace_site_group *src,
			      unsigned int lo, unsigned int hi)
{
	unsigned int i, j;

	dst->base = src->base;
	memcpy(dst->offs, src->offs, lo * sizeof(*src->offs));
	memcpy(dst->offs + lo, src->offs + hi,
	       (src->nr - hi) * sizeof(*src->offs));
	dst->nr = src->nr - (hi - lo);
	for (i = 0; i < src->nr; i++) {
		struct ftrace_site_state *st = ftrace_site_state(src, i);
		struct ftrace_site_state *to;

		if (!st || (i >= lo && i < hi) || !site_state_used(st))
			continue;
		j = i < lo ? i : i - (hi - lo);
		to = ftrace_site_state_get(dst, j);
		if (!to)
			return -ENOMEM;
		*to = *st;
	}
	if (!src->history)
		return 0;
	if (!site_history(dst))
		return -ENOMEM;
	for (i = 0; i < src->nr; i++) {
		if (i >= lo && i < hi)
			continue;
		j = i < lo ? i : i - (hi - lo);
		if (test_bit(2 * i, src->history))
			__set_bit(2 * j, dst->history);
		if (test_bit(2 * i + 1, src->history))
			__set_bit(2 * j + 1, dst->history);
	}
	return 0;
}

/*
 * Remove the records [lo, hi) of @g.  Returns the group to retire once
 * ftrace_lock is dropped, or NULL when no memory was left for a copy and
 * the records were only disabled in place.
 */
static struct ftrace_site_group *site_group_shrink(struct ftrace_site_group *g,
						   unsigned int lo,
						   unsigned int hi)
{
	unsigned int keep = g->nr - (hi - lo);
	struct ftrace_site_group *copy;
	unsigned int i;

	if (!keep) {
		site_group_unlink(g);
		return g;
	}

	copy = site_group_alloc(g->mod, keep);
	if (copy && !site_group_compact(copy, g, lo, hi)) {
		site_group_replace(g, copy);
		return g;
	}
	site_group_free(copy);

	pr_warn_once("ftrace: no memory to drop freed call sites; disabling them\n");
	for (i = lo; i < hi; i++)
		ftrace_site_set_disabled(g, i, true);
	return NULL;
}

/*
 * A trace may still show addresses of freed module init functions: while
 * some ops could have recorded them, keep their names (below).
 */
static void site_keep_names(struct module *mod, struct ftrace_site_group *g,
			    unsigned int lo, unsigned int hi)
{
#ifdef CONFIG_MODULES
	unsigned int i;

	if (!mod || !ftrace_ops_registered())
		return;
	for (i = lo; i < hi; i++)
		ftrace_mod_syms_keep(mod, ftrace_site_ip(g, i));
#endif
}

/**
 * ftrace_sites_drop_text - forget the records of text that is being freed
 * @mod: the module whose init text is freed, NULL for vmlinux
 * @start: start of the text
 * @end: end of the text (exclusive)
 *
 * Each group with records in the range is replaced by a copy without them
 * (readers switch over under RCU).  For module init text, the function
 * names are kept for later symbol lookups.  The sites are not patched:
 * their text is going away.  This is the records' part of
 * ftrace_free_mem() (ftrace_lifecycle.c).
 *
 * Context: process context, without ftrace_lock (taken per group); sleeps.
 * Return: true if some records were dropped (the caller then retires the
 * range from the filters).
 */
bool ftrace_sites_drop_text(struct module *mod, unsigned long start,
			    unsigned long end)
{
	struct ftrace_site_group *g, *old = NULL;
	bool dropped = false;
	unsigned int lo, hi;

	for (;;) {
		mutex_lock(&ftrace_lock);
		g = site_group_touching(start, end, &lo, &hi);
		/* Disabled in place last time: only one image holds the range. */
		if (g && dropped && !old)
			g = NULL;
		if (!g) {
			mutex_unlock(&ftrace_lock);
			return dropped;
		}
		site_keep_names(mod, g, lo, hi);
		old = site_group_shrink(g, lo, hi);
		mutex_unlock(&ftrace_lock);

		dropped = true;
		if (old)
			site_group_retire(old);
	}
}
