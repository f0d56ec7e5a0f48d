// SPDX-License-Identifier: GPL-2.0
/*
 * Call-site records of the function-hook core.
 *
 * The compiler plants a "call __fentry__" at the start of every traceable
 * function and lists the addresses (__mcount_loc for vmlinux,
 * mod->ftrace_callsites for a module).  This file turns each listed address
 * into a 32-bit offset from the image's lowest call site (see struct
 * ftrace_site_group), keeps the sites of one image together in a group
 * sorted by ip, replaces the calls by NOPs, and keeps
 * the groups in step with module load and unload and with the freeing of
 * init text.  It also answers "is there a call site at, or in, ...?" for
 * kprobes, fprobe, the filter code and the tracefs files.  Two things
 * belong to the records as well: the report of a site that could not be
 * patched (ftrace_bug()), and the names of traced functions of a module's
 * init text, kept for kallsyms after that text is freed.
 *
 * Locking and lifetime:
 *  - ftrace_lock serialises every change to the group list and to the
 *    contents of a group.
 *  - A linked group's offs[] never move and its nr never changes, with one
 *    exception: when ftrace_free_mem() cannot allocate a compacted copy it
 *    marks the freed sites FTRACE_SITE_OFF_DISABLED in place instead (they
 *    are then never patched or matched, but ftrace_location() still
 *    reports them).
 *  - Readers without ftrace_lock walk the list and search offs[] under
 *    rcu_read_lock() (or with preemption disabled).  A group leaves the list
 *    with rcu_assign_pointer() and is freed only after grace periods, see
 *    site_group_retire().
 *  - Once a group is linked, the site states (cur_addr, set and the
 *    FTRACE_FL_* flags) belong to the patcher (ftrace_patch.c).  This file
 *    creates states (ftrace_site_state_get(), under ftrace_lock) and
 *    afterwards only sets or clears the disabled mark.  Only holders of
 *    ftrace_lock look at states; they are freed with their group.
 *  - The kept names are added and dropped under ftrace_lock and read under
 *    RCU; a dropped one is freed after a grace period.
 */
#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/irqflags.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include <asm/sections.h>

#include "trace.h"
#include "../kallsyms_internal.h"
#include "ftrace_records.h"

/* Accounting shown by dyn_ftrace_total_info and at boot. */
unsigned long ftrace_update_tot_cnt;	/* records in all groups */
unsigned long ftrace_number_of_pages;	/* ftrace_site_bytes, in pages */
unsigned long ftrace_site_bytes;	/* groups and state chunks */
unsigned long ftrace_number_of_groups;	/* vmlinux + one per module */
unsigned long ftrace_update_time;	/* ns spent NOPing vmlinux at boot */

struct ftrace_site_group __rcu *ftrace_site_groups;

static atomic_long_t site_bytes = ATOMIC_LONG_INIT(0);

static void site_bytes_add(long delta)
{
	unsigned long now = atomic_long_add_return(delta, &site_bytes);

	WRITE_ONCE(ftrace_site_bytes, now);
	WRITE_ONCE(ftrace_number_of_pages, DIV_ROUND_UP(now, PAGE_SIZE));
}

/*
 * Last group ftrace_site_group_of() found by walking the list, and the
 * index it found there (only a hint: checked before use).  Any reader
 * may store to it, so it may briefly name a group that was just unlinked;
 * such a group is cleared from it when unlinked and again after a grace
 * period, and freed only after a second one (site_group_retire()), so no
 * reader follows it to freed memory.
 */
static struct ftrace_site_group *site_group_hint;
static unsigned int site_index_hint;

static inline struct ftrace_site_group *
site_group_deref(struct ftrace_site_group __rcu *const *pp)
{
	return rcu_dereference_protected(*pp, lockdep_is_held(&ftrace_lock));
}

/* ---- allocation and list maintenance ---------------------------------- */

/*
 * A group and its two arrays are one allocation: [group][chunks: one per
 * FTRACE_SITE_CHUNK sites][offs: cap].  Large ones (vmlinux) come from
 * vmalloc, which rounds to pages rather than to a power of two.
 */
VISIBLE_IF_KUNIT struct ftrace_site_group *site_group_alloc(struct module *mod,
							    unsigned int cap)
{
	unsigned int nr_chunks = DIV_ROUND_UP(cap, FTRACE_SITE_CHUNK);
	struct ftrace_site_group *g;
	size_t size;

	size = size_add(sizeof(*g), size_mul(nr_chunks, sizeof(*g->chunks)));
	size = size_add(size, size_mul(cap, sizeof(*g->offs)));
	if (size > PAGE_SIZE) {
		g = vzalloc(size);
		size = PAGE_ALIGN(size);
	} else {
		g = kzalloc(size, GFP_KERNEL);
		size = kmalloc_size_roundup(size);
	}
	if (!g)
		return NULL;
	g->mod = mod;
	g->chunks = (struct ftrace_site_chunk **)(g + 1);
	g->offs = (u32 *)(g->chunks + nr_chunks);
	g->bytes = size;
	site_bytes_add(size);
	return g;
}
EXPORT_SYMBOL_IF_KUNIT(site_group_alloc);

static size_t site_history_bytes(const struct ftrace_site_group *g)
{
	return kmalloc_size_roundup(BITS_TO_LONGS(2 * g->nr) * sizeof(long));
}

/* The history bitmap of @g, allocated if needed; NULL on -ENOMEM. */
static unsigned long *site_history(struct ftrace_site_group *g)
{
	if (!g->history && g->nr) {
		g->history = bitmap_zalloc(2 * g->nr, GFP_KERNEL);
		if (g->history)
			site_bytes_add(site_history_bytes(g));
	}
	return g->history;
}

/* Free @g and its states; @g is unlinked and no reader can reach it. */
VISIBLE_IF_KUNIT void site_group_free(struct ftrace_site_group *g)
{
	unsigned int c;

	if (!g)
		return;
	for (c = 0; c < DIV_ROUND_UP(g->nr, FTRACE_SITE_CHUNK); c++)
		kfree(g->chunks[c]);
	site_bytes_add(-(long)(g->bytes + g->nr_chunks *
			       sizeof(struct ftrace_site_chunk)));
	if (g->history)
		site_bytes_add(-(long)site_history_bytes(g));
	kfree(g->history);
	kvfree(g);
}
EXPORT_SYMBOL_IF_KUNIT(site_group_free);

static void site_group_free_rcu(struct rcu_head *head)
{
	site_group_free(container_of(head, struct ftrace_site_group, rcu));
}

/**
 * ftrace_site_state_get - the state of a call site, made on first use
 * @g: the site's group
 * @i: the site's index in @g
 *
 * States come FTRACE_SITE_CHUNK at a time; a new chunk starts with every
 * site a NOP wanted by nobody, its record's ip and disabled flag filled in.
 *
 * Context: ftrace_lock held, or @g not published yet.
 * Return: the state, or NULL if no memory was left for a new chunk.
 */
struct ftrace_site_state *ftrace_site_state_get(struct ftrace_site_group *g,
						unsigned int i)
{
	unsigned int c = i >> FTRACE_SITE_CHUNK_SHIFT;
	unsigned int first = c << FTRACE_SITE_CHUNK_SHIFT;
	struct ftrace_site_chunk *chunk = g->chunks[c];
	unsigned int k;

	if (chunk)
		return &chunk->st[i - first];
	chunk = kzalloc(sizeof(*chunk), GFP_KERNEL);
	if (!chunk)
		return NULL;
	for (k = 0; k < FTRACE_SITE_CHUNK && first + k < g->nr; k++) {
		chunk->st[k].rec.ip = ftrace_site_ip(g, first + k);
		chunk->st[k].rec.flags = ftrace_site_history(g, first + k);
		if (ftrace_site_disabled(g, first + k))
			chunk->st[k].rec.flags |= FTRACE_FL_DISABLED;
	}
	/* Lockless ftrace_site_group_of() callers see it filled in. */
	smp_store_release(&g->chunks[c], chunk);
	g->nr_chunks++;
	site_bytes_add(sizeof(*chunk));
	return &chunk->st[i - first];
}

/**
 * ftrace_site_set_disabled - mark a call site unusable, or usable again
 * @g: the site's group
 * @i: the site's index in @g
 * @disabled: the new mark
 *
 * Context: ftrace_lock held, or @g not published yet.
 */
void ftrace_site_set_disabled(struct ftrace_site_group *g, unsigned int i,
			      bool disabled)
{
	struct ftrace_site_state *st = ftrace_site_state(g, i);
	u32 off = g->offs[i];

	if (disabled)
		off |= FTRACE_SITE_OFF_DISABLED;
	else
		off &= ~FTRACE_SITE_OFF_DISABLED;
	WRITE_ONCE(g->offs[i], off);
	if (!st)
		return;
	if (disabled)
		st->rec.flags |= FTRACE_FL_DISABLED;
	else
		st->rec.flags &= ~FTRACE_FL_DISABLED;
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
	call_rcu(&g->rcu, site_group_free_rcu);
}

/* Can chunk @c of @g go?  All its sites idle, and their history kept. */
static bool site_chunk_idle(struct ftrace_site_group *g, unsigned int c)
{
	const struct ftrace_site_chunk *chunk = g->chunks[c];
	bool history = false;
	unsigned int k;

	for (k = 0; k < FTRACE_SITE_CHUNK; k++) {
		const struct ftrace_site_state *st = &chunk->st[k];

		if (st->cur_addr || st->set)
			return false;
		if (st->rec.flags & (FTRACE_FL_TOUCHED | FTRACE_FL_MODIFIED))
			history = true;
	}
	return !history || site_history(g);
}

/**
 * ftrace_site_group_reclaim - free the state chunks of @g that hold only idle sites
 * @g: the group
 *
 * Their FTRACE_FL_TOUCHED and FTRACE_FL_MODIFIED flags move to the
 * group's history bitmap; a chunk stays if that cannot be allocated.
 * Freed at once: everything that looks at states, ftrace_site_group_of()
 * included, holds ftrace_lock.
 *
 * Context: ftrace_lock held (or @g not published), no update running.
 */
void ftrace_site_group_reclaim(struct ftrace_site_group *g)
{
	struct ftrace_site_chunk *chunk;
	unsigned int c, k, first;
	unsigned long flags;

	for (c = 0; c < DIV_ROUND_UP(g->nr, FTRACE_SITE_CHUNK); c++) {
		chunk = g->chunks[c];
		if (!chunk || !site_chunk_idle(g, c))
			continue;
		first = c << FTRACE_SITE_CHUNK_SHIFT;
		for (k = 0; k < FTRACE_SITE_CHUNK && first + k < g->nr; k++) {
			flags = chunk->st[k].rec.flags;
			if (flags & FTRACE_FL_TOUCHED)
				__set_bit(2 * (first + k), g->history);
			if (flags & FTRACE_FL_MODIFIED)
				__set_bit(2 * (first + k) + 1, g->history);
		}
		WRITE_ONCE(g->chunks[c], NULL);
		g->nr_chunks--;
		site_bytes_add(-(long)sizeof(*chunk));
		/* states are only looked at under ftrace_lock */
		kfree(chunk);
	}
}

/**
 * ftrace_sites_reclaim - free the state chunks that hold only idle sites
 *
 * Called at the end of each update, so that sites nobody uses any more go
 * back to costing their offset only.
 *
 * Context: ftrace_lock held; may sleep.
 */
void ftrace_sites_reclaim(void)
{
	struct ftrace_site_group *g;

	lockdep_assert_held(&ftrace_lock);
	for_each_site_group(g)
		if (g->nr_chunks)
			ftrace_site_group_reclaim(g);
}

static void site_reclaim_work_fn(struct work_struct *work)
{
	mutex_lock(&ftrace_lock);
	ftrace_sites_reclaim();
	mutex_unlock(&ftrace_lock);
}

static DECLARE_DELAYED_WORK(site_reclaim_work, site_reclaim_work_fn);

/**
 * ftrace_sites_reclaim_later - free idle state chunks a second from now
 *
 * Called at the end of each update.  The delay keeps the chunks of a
 * detach for an attach that follows at once (tools that switch tracers or
 * filters do that), which would otherwise allocate and fill them again;
 * each further update pushes the reclaim back.  Nothing that reads a
 * site generation touches the chunks, so they may go at any time.
 *
 * Context: any that may queue work.
 */
void ftrace_sites_reclaim_later(void)
{
	/* Updates at boot can come before workqueues exist: the next one will do. */
	if (system_unbound_wq)
		mod_delayed_work(system_unbound_wq, &site_reclaim_work, HZ);
}

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

/* Index of the first of the @nr first records of @g with ip >= @ip (or @nr). */
static unsigned int site_lower_bound(const struct ftrace_site_group *g,
				     unsigned int nr, unsigned long ip)
{
	unsigned int lo = 0, hi = nr;
	u32 off;

	if (ip <= g->base)
		return 0;
	if (ip - g->base > FTRACE_SITE_OFF_MASK)
		return nr;
	off = ip - g->base;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if ((READ_ONCE(g->offs[mid]) & FTRACE_SITE_OFF_MASK) < off)
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

/* ---- lookups (ftrace_lock or RCU) --------------------------------------- */

/* Is @ip within the span of @g's records?  Then the index of the first >= @ip. */
static bool site_group_spans(const struct ftrace_site_group *g,
			     unsigned long from, unsigned long to,
			     unsigned int nr, unsigned int *idx)
{
	if (!nr || to < g->base || from > ftrace_site_ip(g, nr - 1))
		return false;
	*idx = site_lower_bound(g, nr, from);
	return true;
}

/**
 * ftrace_site_find - the record whose call site is exactly at @ip
 * @ip: address of a call instruction
 * @idx: receives the record's index in its group
 *
 * Context: ftrace_lock held, or inside an RCU read-side section.
 * Return: the record's group, or NULL.
 */
struct ftrace_site_group *ftrace_site_find(unsigned long ip, unsigned int *idx)
{
	struct ftrace_site_group *g;

	for_each_site_group(g) {
		unsigned int nr = READ_ONCE(g->nr);
		unsigned int i;

		if (!site_group_spans(g, ip, ip, nr, &i))
			continue;
		if (i < nr && ftrace_site_ip(g, i) == ip) {
			*idx = i;
			return g;
		}
	}
	return NULL;
}

/* How many chunks ftrace_site_group_of() looks ahead of its hint. */
#define SITE_HINT_AHEAD	8

/*
 * The index of @rec in @g if it is the record of a state in one of the
 * chunks from the one holding site @from on (a few of them), else UINT_MAX.
 */
static unsigned int site_state_index(const struct ftrace_site_group *g,
				     unsigned int from,
				     const struct dyn_ftrace *rec)
{
	unsigned int c = from >> FTRACE_SITE_CHUNK_SHIFT;
	unsigned int end = DIV_ROUND_UP(READ_ONCE(g->nr), FTRACE_SITE_CHUNK);
	const struct ftrace_site_state *st;
	struct ftrace_site_chunk *chunk;

	st = container_of(rec, struct ftrace_site_state, rec);
	for (end = min(end, c + SITE_HINT_AHEAD); c < end; c++) {
		/* pairs with ftrace_site_state_get() */
		chunk = smp_load_acquire(&g->chunks[c]);
		if (chunk && st >= chunk->st && st < chunk->st + FTRACE_SITE_CHUNK)
			return (c << FTRACE_SITE_CHUNK_SHIFT) + (st - chunk->st);
	}
	return UINT_MAX;
}

/**
 * ftrace_site_group_of - the group holding a record, and its index there
 * @rec: a record: a site's state, or any struct dyn_ftrace naming a site
 *	 by its ip
 * @idx: if not NULL, receives the index of the site in the group
 *
 * The arch patcher walks the records in order and asks several questions
 * about each: the last answer is kept, and a state's record at or a little
 * after it is placed from its address alone.  Anything else is looked up
 * by ip.
 *
 * Context: ftrace_lock held (the arch patchers and ftrace_bug() run under
 * it).
 * Return: the group, or NULL if no linked group has a site at rec->ip.
 */
struct ftrace_site_group *ftrace_site_group_of(const struct dyn_ftrace *rec,
					       unsigned int *idx)
{
	struct ftrace_site_group *g = READ_ONCE(site_group_hint);
	unsigned int i = READ_ONCE(site_index_hint);
	struct ftrace_site_state *st;

	if (g && i < READ_ONCE(g->nr)) {
		/* the same record again: the patcher asks several questions */
		st = ftrace_site_state(g, i);
		if (st && &st->rec == rec)
			goto out;
		i = site_state_index(g, i, rec);
		if (i < READ_ONCE(g->nr))
			goto found;
	}
	g = ftrace_site_find(rec->ip, &i);
	if (!g)
		return NULL;
found:
	WRITE_ONCE(site_group_hint, g);
	WRITE_ONCE(site_index_hint, i);
out:
	if (idx)
		*idx = i;
	return g;
}

/**
 * ftrace_site_name - the function a call site belongs to
 * @ip: the call site
 * @name: buffer of KSYM_NAME_LEN bytes for the symbol name
 * @modname: if not NULL, receives the module name (NULL for vmlinux)
 *
 * Return: 0, or -ENOENT if kallsyms does not know the address or the site
 * is not at the start of the symbol (a leftover of an overridden weak
 * function).
 */
int ftrace_site_name(unsigned long ip, char *name, const char **modname)
{
	unsigned long size, offset;
	char *mod = NULL;

	if (!kallsyms_lookup(ip, &size, &offset, &mod, name))
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

		unsigned long ip;

		if (!site_group_spans(g, from, end, nr, &i) || i >= nr)
			continue;
		ip = ftrace_site_ip(g, i);
		if (ip <= end)
			found = min(found, ip);
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
static unsigned long site_walk_to(const struct ftrace_site_group *g,
				  unsigned int nr, unsigned int *cur,
				  unsigned long ip)
{
	unsigned long from = ip > MCOUNT_INSN_SIZE - 1 ?
			     ip - (MCOUNT_INSN_SIZE - 1) : 0;
	unsigned long site;

	while (*cur < nr && ftrace_site_ip(g, *cur) < from)
		(*cur)++;
	if (*cur >= nr)
		return 0;
	site = ftrace_site_ip(g, *cur);
	return site <= ip ? site : 0;
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
	const struct ftrace_site_group *recs = NULL;
	struct ftrace_site_group *g;
	unsigned int i, cur = 0, peek, nrecs = 0;
	unsigned long site, entry;
	bool all = true;

	rcu_read_lock();
	for_each_site_group(g) {
		if (!g->mod) {
			recs = g;
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

/* vmlinux's group, and its number of records.  ftrace_lock held. */
static const struct ftrace_site_group *site_vmlinux_recs(unsigned int *nr)
{
	struct ftrace_site_group *g;

	for_each_site_group(g) {
		if (!g->mod) {
			*nr = g->nr;
			return g;
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
	const struct ftrace_site_group *recs;
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
	while (s->cursor < s->nr && ftrace_site_ip(s->recs, s->cursor) < addr)
		s->cursor++;
	return s->cursor < s->nr &&
	       ftrace_site_ip(s->recs, s->cursor) - addr < SITE_SYMBOL_SPAN;
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

/* ---- reports: a call site that could not be patched ------------------- */

/* What was being done when ftrace_bug() is called; set by the patchers. */
enum ftrace_bug_type ftrace_bug_type;
/* What the site should have held, if the arch patcher knows; or NULL. */
const void *ftrace_expected;

/*
 * The patcher's description of a record's state (what it calls, what it
 * should call, the ops that want it), printed by ftrace_bug().  Registered
 * by the patcher before it makes the first state: a record without a
 * state has nothing more to tell.
 */
static void (*site_bug_detail)(struct dyn_ftrace *rec);

/**
 * ftrace_sites_set_bug_detail - let ftrace_bug() describe a site's state
 * @detail: prints what the layer that owns site states knows of @rec
 *
 * Context: ftrace_lock held.
 */
void ftrace_sites_set_bug_detail(void (*detail)(struct dyn_ftrace *rec))
{
	WRITE_ONCE(site_bug_detail, detail);
}

static void site_bug_bytes(const char *what, const void *p)
{
	u8 insn[MCOUNT_INSN_SIZE];

	if (copy_from_kernel_nofault(insn, p, MCOUNT_INSN_SIZE))
		pr_info(" %s: unreadable\n", what);
	else
		pr_info(" %s: %*phC\n", what, MCOUNT_INSN_SIZE, insn);
}

static const char *const site_bug_stage[] = {
	[FTRACE_BUG_UNKNOWN]	= NULL,
	[FTRACE_BUG_INIT]	= "while turning a call to __fentry__ into a NOP",
	[FTRACE_BUG_NOP]	= "while turning a call into a NOP",
	[FTRACE_BUG_CALL]	= "while turning a NOP into a call",
	[FTRACE_BUG_UPDATE]	= "while changing the target of a call",
};

/* The record's own flags; the patcher's detail follows if it registered. */
static void site_bug_record(struct dyn_ftrace *rec)
{
	void (*detail)(struct dyn_ftrace *rec);

	pr_info(" record flags %lx (%lu users)%s%s%s%s\n", rec->flags,
		ftrace_rec_count(rec),
		rec->flags & FTRACE_FL_REGS ? " regs" : "",
		rec->flags & FTRACE_FL_TRAMP ? " tramp" : "",
		rec->flags & FTRACE_FL_DIRECT ? " direct" : "",
		rec->flags & FTRACE_FL_DISABLED ? " disabled" : "");

	detail = READ_ONCE(site_bug_detail);
	if (detail)
		detail(rec);
}

/**
 * ftrace_bug - report a call site that could not be patched, and stop ftrace
 * @err: -EFAULT (reading the site failed), -EINVAL (it did not hold the
 *	 expected instruction; ftrace_expected points at what was expected),
 *	 -EPERM (writing failed), or another error
 * @rec: the record of the site, or NULL
 *
 * ftrace_bug_type says what was being done.  Calls ftrace_kill(): no site
 * is patched any more after this.
 *
 * Context: any; the updater usually holds ftrace_lock and text_mutex.
 */
void ftrace_bug(int err, struct dyn_ftrace *rec)
{
	unsigned long ip = rec ? rec->ip : 0;
	const char *stage = NULL;

	pr_info("------------[ ftrace bug ]------------\n");
	switch (err) {
	case -EFAULT:
		pr_info("ftrace faulted on modifying %pS\n", (void *)ip);
		break;
	case -EINVAL:
		pr_info("ftrace failed to modify %pS\n", (void *)ip);
		site_bug_bytes("actual:  ", (void *)ip);
		if (ftrace_expected)
			site_bug_bytes("expected:", ftrace_expected);
		break;
	case -EPERM:
		pr_info("ftrace faulted on writing %pS\n", (void *)ip);
		break;
	default:
		pr_info("ftrace failed with error %d at %pS\n", err,
			(void *)ip);
		break;
	}

	if ((unsigned int)ftrace_bug_type < ARRAY_SIZE(site_bug_stage))
		stage = site_bug_stage[ftrace_bug_type];
	if (stage)
		pr_info(" %s\n", stage);
	if (rec)
		site_bug_record(rec);

	WARN_ON_ONCE(1);
	ftrace_kill();
}

/* ---- kept names of freed module init text ----------------------------- */

#ifdef CONFIG_MODULES
/*
 * A traced function of a module's init text, kept after that text is freed
 * so that addresses already in trace buffers still resolve.  Added and
 * removed under ftrace_lock, read under RCU, freed after a grace period.
 */
struct ftrace_kept_sym {
	struct list_head	list;
	struct rcu_head		rcu;
	struct module		*mod;
	unsigned long		addr;
	unsigned long		size;
	char			name[];
};

static LIST_HEAD(ftrace_kept_syms);

/**
 * ftrace_mod_syms_keep - remember the function of a call site being freed
 * @mod: the module whose init text is freed
 * @ip: a call site in that text
 *
 * Called by ftrace_free_mem() for each site of a module's init text while
 * some ops is registered, before the text and its symbols go away.
 * Allocation failure only loses the name.
 *
 * Context: ftrace_lock held; may sleep.
 */
void ftrace_mod_syms_keep(struct module *mod, unsigned long ip)
{
	char name[KSYM_NAME_LEN];
	struct ftrace_kept_sym *ks;
	unsigned long size, off;
	char *modname;
	size_t len;

	lockdep_assert_held(&ftrace_lock);

	if (!kallsyms_lookup(ip, &size, &off, &modname, name))
		return;
	len = strlen(name) + 1;
	ks = kmalloc(struct_size(ks, name, len), GFP_KERNEL);
	if (!ks)
		return;
	ks->mod = mod;
	ks->addr = ip - off;
	ks->size = size;
	memcpy(ks->name, name, len);
	list_add_tail_rcu(&ks->list, &ftrace_kept_syms);
}

/**
 * ftrace_mod_syms_drop - forget the kept functions of a module
 * @mod: a module going away
 *
 * Context: ftrace_lock held.
 */
void ftrace_mod_syms_drop(struct module *mod)
{
	struct ftrace_kept_sym *ks, *tmp;

	lockdep_assert_held(&ftrace_lock);

	list_for_each_entry_safe(ks, tmp, &ftrace_kept_syms, list) {
		if (ks->mod != mod)
			continue;
		list_del_rcu(&ks->list);
		kfree_rcu(ks, rcu);
	}
}

/**
 * ftrace_mod_address_lookup - resolve an address of freed module init text
 * @addr: the address
 * @size: if not NULL, gets the function's size
 * @off: if not NULL, gets @addr's offset in the function
 * @modname: if not NULL, gets the module name
 * @modbuildid: if not NULL, gets the module build id
 * @sym: gets the function name (KSYM_NAME_LEN bytes)
 *
 * Return: the length of the name, or 0 if @addr is not a kept function.
 *
 * Context: any; lockless.
 */
int ftrace_mod_address_lookup(unsigned long addr, unsigned long *size,
			      unsigned long *off, char **modname,
			      const unsigned char **modbuildid, char *sym)
{
	struct ftrace_kept_sym *ks;

	guard(rcu)();
	list_for_each_entry_rcu(ks, &ftrace_kept_syms, list) {
		if (addr < ks->addr || addr - ks->addr >= ks->size)
			continue;
		if (size)
			*size = ks->size;
		if (off)
			*off = addr - ks->addr;
		if (modname)
			*modname = ks->mod->name;
		if (modbuildid)
			*modbuildid = module_buildid(ks->mod);
		return strscpy(sym, ks->name, KSYM_NAME_LEN);
	}
	return 0;
}

/**
 * ftrace_sites_kept_sym_nth - one kept function, for /proc/kallsyms
 * @symnum: the index wanted; on a miss, decreased by the number kept
 * @value: gets the function's address
 * @type: gets its type letter
 * @name: gets its name (KSYM_NAME_LEN bytes)
 * @module_name: gets its module name (MODULE_NAME_LEN bytes)
 * @exported: gets whether it counts as exported
 *
 * Lets ftrace_mod_get_kallsym() list the kept functions first and go on
 * with its own symbols from the index that is left in *@symnum.
 *
 * Context: rcu_read_lock() held.
 * Return: true if kept function *@symnum exists (filled in).
 */
bool ftrace_sites_kept_sym_nth(unsigned int *symnum, unsigned long *value,
			       char *type, char *name, char *module_name,
			       int *exported)
{
	struct ftrace_kept_sym *ks;

	list_for_each_entry_rcu(ks, &ftrace_kept_syms, list) {
		if (*symnum) {
			(*symnum)--;
			continue;
		}
		*value = ks->addr;
		*type = 'T';
		strscpy(name, ks->name, KSYM_NAME_LEN);
		strscpy(module_name, ks->mod->name, MODULE_NAME_LEN);
		*exported = 1;
		return true;
	}
	return false;
}
#endif /* CONFIG_MODULES */
