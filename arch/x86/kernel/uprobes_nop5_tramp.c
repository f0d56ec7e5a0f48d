// SPDX-License-Identifier: GPL-2.0
/*
 * 5-byte NOP uprobes, layer 1: the [uprobes-nop5] special mapping, the
 * slots handed out in it, and the copy of its pages for a fork()'s child.
 * Rule 1: at most NOP5_MAX_PAGES pages per address space, and a child
 * gets copies or its fork() fails.  Rule 2: never writable, VM_IO and
 * VM_SEALED; the fault handler puts the page back.  Rule 3: ->fault(),
 * ->close() and fork touch no user memory (a ->close() that restored
 * sites would call up into uprobes_nop5_text.c and break rule 3 at once).
 * Slots are handed out only under mmap_lock held for writing; st->lock
 * guards the page list.  Calls uprobes_nop5_table.c only.
 */
#include <linux/mm.h>
#include <linux/mmu_context.h>
#include <linux/rcupdate_trace.h>
#include <linux/sched/mm.h>
#include <linux/security.h>
#include <linux/sizes.h>
#include <linux/uprobe_site.h>

#include <asm/unistd.h>

#include "uprobes_nop5.h"

/* The code part of a slot: everything before the site's address. */
static const u8 nop5_slot_code[NOP5_SLOT_SITE] = {
	0x48, 0x8d, 0x64, 0x24, 0x80,		/* lea -0x80(%rsp),%rsp */
	0x50,					/* push %rax */
	0x51,					/* push %rcx */
	0x41, 0x53,				/* push %r11 */
	0xb8, __NR_uprobe & 0xff, __NR_uprobe >> 8, 0x00, 0x00,
						/* mov $NR,%eax */
	0x0f, 0x05,				/* syscall */
	0x0f, 0x0b,				/* ud2 */
	0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
};

/*
 * The page is not in the page table until first touched, and not after
 * MADV_DONTNEED: the state's reference serves the fault.  A fork()'s child
 * faults in its own copy (the mapping has no anon_vma and no PFNs, so its
 * page table entries are not copied).
 */
static vm_fault_t nop5_fault(const struct vm_special_mapping *sm,
			     struct vm_area_struct *vma, struct vm_fault *vmf)
{
	struct arch_uprobes_mm *st;
	struct page *page = NULL;
	struct nop5_page *p;

	rcu_read_lock_trace();
	/*
	 * pairs with the smp_store_release() in nop5_mm_get()
	 * (uprobes_nop5_table.c)
	 */
	st = smp_load_acquire(&vma->vm_mm->uprobes_state.arch);
	p = st ? nop5_page_find(st, vma->vm_start) : NULL;
	if (p) {
		/* the state's reference lasts until after this section */
		page = p->page;
		get_page(page);
	}
	rcu_read_unlock_trace();
	if (!page)
		return VM_FAULT_SIGBUS;
	vmf->page = page;
	return 0;
}

static int nop5_mremap(const struct vm_special_mapping *sm,
		       struct vm_area_struct *new_vma)
{
	/* sealed, so never asked; the sites jump to where the page is */
	return -EINVAL;
}

/*
 * The mapping is sealed: it goes with its address space (whose state is
 * gone by then) or with a child whose fork() failed.  Should it ever go
 * from a live address space, its page leaves the state and the calls of
 * its slots are refused; the sites that jump there stay as they are (only
 * this address space runs them).  No user memory is touched here.
 */
static void nop5_close(const struct vm_special_mapping *sm,
		       struct vm_area_struct *vma)
{
	struct arch_uprobes_mm *st = vma->vm_mm->uprobes_state.arch;
	struct nop5_page *p;

	if (!st)
		return;
	mutex_lock(&st->lock);
	p = nop5_page_find(st, vma->vm_start);
	if (p) {
		list_del_rcu(&p->node);
		st->nr_pages--;
	}
	mutex_unlock(&st->lock);
	if (p)
		nop5_page_release(p);
}

static const struct vm_special_mapping nop5_mapping = {
	.name	= "[uprobes-nop5]",
	.fault	= nop5_fault,
	.mremap	= nop5_mremap,
	.close	= nop5_close,
};

#define NOP5_VM_FLAGS	(VM_READ | VM_EXEC | VM_MAYREAD | VM_MAYEXEC | \
			 VM_IO | VM_DONTDUMP | VM_SEALED)

/* Is @vma one of the trampoline pages? */
bool nop5_is_tramp_vma(const struct vm_area_struct *vma)
{
	return vma_is_special_mapping(vma, &nop5_mapping);
}

/* Map a new trampoline page within reach of @site; mmap_lock held to write. */
static struct nop5_page *nop5_map_new(struct mm_struct *mm,
				      struct arch_uprobes_mm *st,
				      unsigned long site)
{
	struct vm_unmapped_area_info info = {};
	struct vm_area_struct *vma;
	struct nop5_page *p;
	unsigned long addr;

	if (st->nr_pages >= NOP5_MAX_PAGES)
		return NULL;
	info.flags = VM_UNMAPPED_AREA_TOPDOWN;
	info.length = PAGE_SIZE;
	/* page-aligned bounds: the search returns high_limit - length */
	info.low_limit = site > SZ_2G ? PAGE_ALIGN(site - SZ_2G + SZ_1M) : 0;
	info.low_limit = max(info.low_limit, PAGE_ALIGN(mmap_min_addr));
	info.low_limit = max_t(unsigned long, info.low_limit, PAGE_SIZE);
	info.high_limit = min((site + SZ_2G - SZ_1M) & PAGE_MASK,
			      DEFAULT_MAP_WINDOW & PAGE_MASK);
	/*
	 * Not in the room kept for the stack: a sealed page there would stop
	 * the stack from growing for good (the gap below it is only 128 MiB
	 * without address randomization).
	 */
	if (test_bit(MMF_TOPDOWN, &mm->flags))
		info.high_limit = min(info.high_limit,
				      mm->mmap_base & PAGE_MASK);
	if (info.high_limit <= info.low_limit)
		return NULL;
	addr = vm_unmapped_area(&info);
	if (offset_in_page(addr))
		return NULL;

	p = nop5_page_new(addr);
	if (!p)
		return NULL;
	vma = _install_special_mapping(mm, addr, PAGE_SIZE, NOP5_VM_FLAGS,
				       &nop5_mapping);
	if (IS_ERR(vma)) {
		nop5_page_free(p);
		return NULL;
	}
	mutex_lock(&st->lock);
	list_add_tail_rcu(&p->node, &st->pages);
	st->nr_pages++;
	mutex_unlock(&st->lock);
	return p;
}

static bool nop5_in_reach(unsigned long site, unsigned long dest)
{
	long d = (long)(dest - (site + NOP5_LEN));

	return d == (long)(s32)d;
}

/*
 * A slot of @mm for @site: the one that already serves it, else a free one
 * within reach (written now), else one of a new page; 0 if none.  Its
 * entry is set to @uprobe (whose reference passes to the entry) before the
 * caller writes the jump, so a task that takes it finds the entry.
 * mmap_lock held to write, which alone hands out slots.
 */
unsigned long nop5_slot(struct mm_struct *mm,
			struct arch_uprobes_mm *st, unsigned long site,
			struct uprobe *uprobe)
{
	struct nop5_page *p, *found = NULL;
	int i, slot = -1;
	u8 *kaddr;

	list_for_each_entry(p, &st->pages, node) {
		for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++) {
			if (p->site[i] == site && !test_bit(i, p->moved)) {
				found = p;
				slot = i;
				goto have;
			}
			if (!found && !p->site[i] &&
			    nop5_in_reach(site, p->base + i * NOP5_SLOT_SIZE)) {
				found = p;
				slot = i;
			}
		}
	}
	if (!found) {
		found = nop5_map_new(mm, st, site);
		if (!found)
			return 0;
		slot = 0;
	}
	/* a free slot: its code, then its site, in this address space's page */
	kaddr = page_address(found->page) + slot * NOP5_SLOT_SIZE;
	memcpy(kaddr, nop5_slot_code, sizeof(nop5_slot_code));
	WRITE_ONCE(*(u64 *)(kaddr + NOP5_SLOT_SITE), site);
have:
	nop5_entry_set(st, found, slot, site, uprobe);
	return found->base + slot * NOP5_SLOT_SIZE;
}

/**
 * uprobe_nop5_dup_mmap - x86-64: give a fork()'s child its own trampoline pages
 * @oldmm: the parent's address space (mmap_lock held for writing)
 * @mm: the child's, with every mapping copied (mmap_lock held for writing)
 *
 * The child's text jumps to the same slots, so each trampoline page the
 * child maps gets a copy of the parent's page and of its table, in the
 * child's own state: what either process does later is not seen by the
 * other.  No user memory is touched.
 *
 * Return: 0, or -ENOMEM, which fails the fork.
 */
int uprobe_nop5_dup_mmap(struct mm_struct *oldmm, struct mm_struct *mm)
{
	struct arch_uprobes_mm *old = oldmm->uprobes_state.arch, *st;
	struct vm_area_struct *vma;
	struct nop5_page *p, *c;
	int i, err = 0;

	if (!old)
		return 0;
	st = nop5_mm_get(mm);
	if (!st)
		return -ENOMEM;
	/*
	 * Entries change without mmap_lock (arch_uprobe_forget()), which
	 * can find the child's state already: both locks are held, and a
	 * uprobe that lost its last consumer is not copied (its forget may
	 * have passed the child's state while it was still empty).
	 */
	mutex_lock(&old->lock);
	mutex_lock_nested(&st->lock, SINGLE_DEPTH_NESTING);
	list_for_each_entry(p, &old->pages, node) {
		vma = vma_lookup(mm, p->base);
		if (!vma || !vma_is_special_mapping(vma, &nop5_mapping))
			continue;
		c = nop5_page_new(p->base);
		if (!c) {
			err = -ENOMEM;
			break;
		}
		copy_page(page_address(c->page), page_address(p->page));
		for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++) {
			c->site[i] = p->site[i];
			if (p->uprobe[i] && uprobe_site_get_live(p->uprobe[i]))
				c->uprobe[i] = p->uprobe[i];
		}
		bitmap_copy(c->moved, p->moved, NOP5_SLOTS_PER_PAGE);
		list_add_tail_rcu(&c->node, &st->pages);
		st->nr_pages++;
	}
	mutex_unlock(&st->lock);
	mutex_unlock(&old->lock);
	/* on failure the child's teardown frees what was copied */
	return err;
}
