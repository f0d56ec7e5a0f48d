// SPDX-License-Identifier: GPL-2.0
/*
 * 5-byte NOP uprobes, bottom layer: the state of each address space (on
 * nop5_mms), the life of its trampoline pages and the slot table entries
 * that name a slot's site and uprobe.  Rule 1: every allocation of the
 * path is made here, charged to the process, and fail_uprobe_nop5 can
 * fail it.  Rule 5: an entry holds a uprobe reference until a restore,
 * arch_uprobe_forget() or teardown, and only this file frees a nop5_page,
 * after the RCU Tasks Trace readers.  Locks: nop5_mms_lock, then st->lock;
 * no user memory is touched.  Calls nothing else of the nop5 path.
 */
#include <linux/fault-inject.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/rcupdate_trace.h>
#include <linux/slab.h>
#include <linux/uprobes.h>
#include <linux/uprobe_site.h>

#include "uprobes_nop5.h"

static const u8 nop5_insn[NOP5_LEN] = NOP5_INSN_INIT;

/* The address spaces that have state: arch_uprobe_forget() walks them. */
static LIST_HEAD(nop5_mms);
static DEFINE_MUTEX(nop5_mms_lock);

#ifdef CONFIG_FAULT_INJECTION
/* fail_uprobe_nop5 in debugfs: fails this file's allocations on demand */
static DECLARE_FAULT_ATTR(nop5_fail);

static int __init nop5_fail_init(void)
{
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
	fault_create_debugfs_attr("fail_uprobe_nop5", NULL, &nop5_fail);
#endif
	return 0;
}
late_initcall(nop5_fail_init);

static bool nop5_should_fail(void)
{
	return should_fail(&nop5_fail, 1);
}
#else
static bool nop5_should_fail(void)
{
	return false;
}
#endif

static void *nop5_zalloc(size_t size)
{
	if (nop5_should_fail())
		return NULL;
	return kzalloc(size, GFP_KERNEL_ACCOUNT);
}

static struct page *nop5_alloc_page(void)
{
	if (nop5_should_fail())
		return NULL;
	return alloc_page(GFP_KERNEL_ACCOUNT);
}

/* Drop the uprobe references of @p, which nobody can find any more. */
static void nop5_page_drop_uprobes(struct nop5_page *p)
{
	int i;

	for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++) {
		if (p->uprobe[i])
			uprobe_site_drop(p->uprobe[i]);
		p->uprobe[i] = NULL;
	}
}

static void nop5_page_free_rcu(struct rcu_head *rcu)
{
	struct nop5_page *p = container_of(rcu, struct nop5_page, rcu);

	put_page(p->page);
	kfree(p);
}

/*
 * @p is off its list: the uprobes go now (they are freed only after the
 * readers that may still hold one), the memory after those readers.
 */
void nop5_page_release(struct nop5_page *p)
{
	nop5_page_drop_uprobes(p);
	call_rcu_tasks_trace(&p->rcu, nop5_page_free_rcu);
}

/* @p was never published. */
void nop5_page_free(struct nop5_page *p)
{
	nop5_page_drop_uprobes(p);
	put_page(p->page);
	kfree(p);
}

/*
 * Empty entry @i of @p; the state's lock held.  Unpublished before the
 * reference goes: a reader that starts later must not find the uprobe.
 */
static void nop5_entry_clear(struct nop5_page *p, int i)
{
	struct uprobe *uprobe = p->uprobe[i];

	if (!uprobe)
		return;
	WRITE_ONCE(p->uprobe[i], NULL);
	uprobe_site_drop(uprobe);
}

/* The state of @mm, made if it has none; mmap_lock held.  NULL: no memory. */
struct arch_uprobes_mm *nop5_mm_get(struct mm_struct *mm)
{
	struct arch_uprobes_mm *st = mm->uprobes_state.arch;

	if (st)
		return st;
	st = nop5_zalloc(sizeof(*st));
	if (!st)
		return NULL;
	mutex_init(&st->lock);
	INIT_LIST_HEAD(&st->pages);
	mutex_lock(&nop5_mms_lock);
	list_add(&st->node, &nop5_mms);
	mutex_unlock(&nop5_mms_lock);
	/*
	 * readers that see the state see it initialized: nop5_fault() in
	 * uprobes_nop5_tramp.c, nop5_caller() in uprobes_nop5_call.c
	 */
	smp_store_release(&mm->uprobes_state.arch, st);
	return st;
}

/**
 * arch_uprobe_clear_state - x86-64: free the trampoline state of an address space
 * @mm: the address space, being torn down (no task uses it any more)
 *
 * Runs before the mappings go; the trampoline pages' ->close() (in
 * uprobes_nop5_tramp.c) then finds no state and does nothing.
 */
void arch_uprobe_clear_state(struct mm_struct *mm)
{
	struct arch_uprobes_mm *st = mm->uprobes_state.arch;
	struct nop5_page *p, *tmp;

	if (!st)
		return;
	mutex_lock(&nop5_mms_lock);
	list_del(&st->node);
	mutex_unlock(&nop5_mms_lock);
	WRITE_ONCE(mm->uprobes_state.arch, NULL);
	list_for_each_entry_safe(p, tmp, &st->pages, node) {
		list_del(&p->node);
		/* no task of @mm runs, but a reader may just be leaving */
		nop5_page_release(p);
	}
	kfree(st);
}

/**
 * arch_uprobe_forget - x86-64: drop the slot entries of a uprobe
 * @uprobe: a uprobe that just lost its last consumer
 * @auprobe: its architecture part
 *
 * Address spaces that still map the site had it restored (and their entry
 * cleared) already; this clears the entries of those that do not, so that
 * no table keeps the uprobe alive after its last unregistration.
 */
void arch_uprobe_forget(struct uprobe *uprobe, struct arch_uprobe *auprobe)
{
	struct arch_uprobes_mm *st;
	struct nop5_page *p;
	int i;

	if (memcmp(auprobe->insn, nop5_insn, NOP5_LEN))
		return;
	mutex_lock(&nop5_mms_lock);
	list_for_each_entry(st, &nop5_mms, node) {
		mutex_lock(&st->lock);
		list_for_each_entry(p, &st->pages, node) {
			for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++) {
				if (p->uprobe[i] == uprobe)
					nop5_entry_clear(p, i);
			}
		}
		mutex_unlock(&st->lock);
	}
	mutex_unlock(&nop5_mms_lock);
}

/* Clear every entry of @mm for @site. */
void nop5_entries_clear_site(struct mm_struct *mm, unsigned long site)
{
	struct arch_uprobes_mm *st = mm->uprobes_state.arch;
	struct nop5_page *p;
	int i;

	if (!st)
		return;
	mutex_lock(&st->lock);
	list_for_each_entry(p, &st->pages, node) {
		for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++) {
			if (p->site[i] == site)
				nop5_entry_clear(p, i);
		}
	}
	mutex_unlock(&st->lock);
}

/*
 * The next slot of @mm whose site lies in [@start, @end - NOP5_LEN], with
 * its entry unpublished: its address in *@slot, its site returned (0: none
 * left), in *@uprobe the uprobe the entry named (NULL if none) with the
 * entry's reference, which the caller drops.  One at a time, so that the
 * caller touches text with no lock of ours held.
 */
unsigned long nop5_take_site_in(struct mm_struct *mm,
				unsigned long start, unsigned long end,
				unsigned long *slot,
				struct uprobe **uprobe)
{
	struct arch_uprobes_mm *st = mm->uprobes_state.arch;
	unsigned long site, found = 0;
	struct nop5_page *p;
	int i;

	if (!st || end - start < NOP5_LEN)
		return 0;
	mutex_lock(&st->lock);
	list_for_each_entry(p, &st->pages, node) {
		for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++) {
			site = p->site[i];
			if (!site || site < start || site > end - NOP5_LEN ||
			    test_bit(i, p->moved))
				continue;
			*uprobe = p->uprobe[i];
			WRITE_ONCE(p->uprobe[i], NULL);
			__set_bit(i, p->moved);
			*slot = p->base + i * NOP5_SLOT_SIZE;
			found = site;
			goto out;
		}
	}
out:
	mutex_unlock(&st->lock);
	return found;
}

/* A fresh trampoline page: int3 where code goes, 0 where a site goes. */
struct nop5_page *nop5_page_new(unsigned long base)
{
	struct nop5_page *p;
	u8 *kaddr;
	int i;

	p = nop5_zalloc(sizeof(*p));
	if (!p)
		return NULL;
	p->page = nop5_alloc_page();
	if (!p->page) {
		kfree(p);
		return NULL;
	}
	p->base = base;
	kaddr = page_address(p->page);
	memset(kaddr, NOP5_OPC_INT3, PAGE_SIZE);
	for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++)
		*(u64 *)(kaddr + i * NOP5_SLOT_SIZE + NOP5_SLOT_SITE) = 0;
	return p;
}

/*
 * Make entry @i of @p serve @site and name @uprobe, whose reference passes
 * to the entry; for nop5_slot(), mmap_lock held to write.
 */
void nop5_entry_set(struct arch_uprobes_mm *st, struct nop5_page *p, int i,
		    unsigned long site, struct uprobe *uprobe)
{
	mutex_lock(&st->lock);
	nop5_entry_clear(p, i);
	WRITE_ONCE(p->site[i], site);
	/*
	 * a reader that sees the uprobe sees the site: nop5_caller() in
	 * uprobes_nop5_call.c
	 */
	smp_store_release(&p->uprobe[i], uprobe);
	mutex_unlock(&st->lock);
}
