// SPDX-License-Identifier: GPL-2.0
/*
 * uprobes on 5-byte NOPs without a trap (x86-64).
 *
 * A probe on "nopl 0x0(%rax,%rax,1)" (0f 1f 44 00 00, the USDT probe site)
 * starts out as every uprobe does: an int3 on the first byte, a trap and a
 * single step (or an emulation) per hit.  On the first hit in an address
 * space the site is rewritten into "jmp rel32" to a slot of a trampoline
 * page of that address space, and from then on a hit is one system call:
 *
 *   slot:  lea -128(%rsp),%rsp     step over the red zone
 *          push %rax
 *          push %rcx               syscall clobbers rcx and r11
 *          push %r11
 *          mov $__NR_uprobe,%eax
 *          syscall                 sys_uprobe() never returns here
 *          ud2
 *          (padding)
 *          .quad site              the address of the NOP this slot serves
 *
 * sys_uprobe() puts back rax, rcx, r11 and the stack pointer from the
 * stack, runs the uprobe's consumers with the instruction pointer at the
 * site, and returns to the instruction after the NOP.  A jump rather than
 * a call: nothing is written at or below the probed code's stack pointer
 * (leaf functions keep data in the red zone), and a shadow stack sees no
 * unmatched call.
 *
 * The rules that keep a hostile process from turning any of this against
 * the rest of the system (Documentation/trace/probe-security.rst lists the
 * attacks each one answers and the tests that try them):
 *
 * 1. Each address space has its own state (struct arch_uprobes_mm, hung off
 *    mm->uprobes_state) and its own trampoline pages: fork() gives the
 *    child a copy of each page (arch_dup_mmap(), which can fail the fork),
 *    never the parent's page, so nothing one process writes later is seen
 *    by the other.  Every allocation is charged to the process's memory
 *    cgroup, and an address space has at most NOP5_MAX_PAGES pages.
 *
 * 2. The kernel alone writes a trampoline page: the mapping is neither
 *    writable nor able to become so, and VM_IO keeps ptrace and
 *    /proc/PID/mem off it.  The mapping is sealed (VM_SEALED): munmap(),
 *    mremap(), mprotect() and a mapping placed over it are refused, so it
 *    lasts as long as the address space and the sites that jump to it never
 *    dangle.  The seal also refuses MADV_DONTFORK and MADV_DONTNEED (a
 *    sealed read-only mapping without a file counts as anonymous memory
 *    there); should the page table entry go anyway, the fault handler puts
 *    it back.
 *
 * 3. No user memory is read or written from a VMA's ->close(), from fork,
 *    from address space teardown, or with a lock held that another address
 *    space needs.  Text is touched in the probed process's own address
 *    space, under its mmap_lock, on a private file mapping, at the first
 *    hit (nop5_optimize()), when the uprobes core restores a site
 *    (set_orig_insn()) and when mremap() moves text (arch_uprobe_move_vma()).
 *    A page is faulted in only where the mapping is of the probed file at
 *    the probed offset (uprobe_site_maps(), or the uprobes core's own
 *    check before set_swbp()/set_orig_insn()), as the core itself does when
 *    it places a breakpoint.  Anywhere else (the process mapped something
 *    of its own over a site) only a page already in the page table is
 *    looked at: our jump can only be in the private copy of a page of the
 *    probed file, and a page the process serves itself (userfaultfd, a
 *    FUSE file) must never be waited for with its mmap_lock held, since a
 *    uprobe registration waits for that lock with fork() held off for the
 *    whole system.
 *
 * 4. sys_uprobe() serves a call only from a slot of one of the calling
 *    address space's own trampoline pages that was given a site; the site
 *    comes from the kernel's table, never from user memory.  Any other
 *    caller gets SIGILL (the system call passes every seccomp filter, so
 *    this is all that stands between it and a sandboxed process).
 *
 * 5. Each slot's table entry names the uprobe of its site and holds a
 *    reference; sys_uprobe() reads it under rcu_read_lock_trace() and runs
 *    the consumers without mmap_lock, VMA or uprobe-tree lookups.  An entry
 *    goes (and its reference with it) when the site is restored in that
 *    address space, when the uprobe loses its last consumer
 *    (arch_uprobe_forget(), which walks the address spaces that have
 *    state) and when the address space is torn down.  Without an entry the
 *    call falls back to the lookup by address, which is always right: a
 *    task that jumped to its slot just before the probe went away finds no
 *    uprobe and steps over the NOP.  That lookup goes by the mapping at the
 *    site only, never by reading the text there (uprobe_run_site()).
 *
 * Text changes follow the usual protocol for code other threads may be
 * running: with the int3 in place, write the four tail bytes, serialize
 * every CPU, write the first byte, serialize again; back to the NOP it is
 * the other way round (int3 first, then the tail), after which the generic
 * code puts back the first byte.  Each write goes to the address space's
 * private copy of the text page (which uprobes made when it placed the
 * int3) under mmap_lock, so the file and other processes never see it.
 *
 * Locks: mmap_lock, then nop5_mms_lock (the list of address spaces with
 * state), then an address space's own lock (its page list and entries).
 * Neither of the last two is ever held across a user memory access.
 */
#include <linux/fault-inject.h>
#include <linux/highmem.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/rcupdate_trace.h>
#include <linux/slab.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include <linux/sizes.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/uprobes.h>
#include <linux/uprobe_site.h>

#include <asm/mmu_context.h>
#include <asm/ptrace.h>
#include <asm/unistd.h>
#include <asm/text-patching.h>

#define NOP5_LEN		5
#define NOP5_RED_ZONE		128
#define NOP5_SLOT_SIZE		32
#define NOP5_SLOTS_PER_PAGE	(PAGE_SIZE / NOP5_SLOT_SIZE)
/* offset in a slot of the instruction after the syscall */
#define NOP5_SLOT_RET		16
/* offset in a slot of the site's address */
#define NOP5_SLOT_SITE		24
#define NOP5_OPC_JMP		0xe9
#define NOP5_OPC_INT3		0xcc
/* trampoline pages an address space may have; past that, sites trap */
#define NOP5_MAX_PAGES		64

static const u8 nop5_insn[NOP5_LEN] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

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

/* What the slot's pushes leave at the stack pointer of the syscall. */
struct nop5_saved {
	unsigned long r11;
	unsigned long cx;
	unsigned long ax;
};

/*
 * One trampoline page of one address space.  @site[i] is 0 for a free
 * slot; it is set (under the mm's mmap_lock and its state's lock) when the
 * slot is given out and never changes after that, so a task that took the
 * jump just before its site was restored still finds where to go back to.
 * @uprobe[i] holds a reference; it is published after @site[i].  A slot in
 * @moved served a site whose text mremap() moved: it still takes a task
 * on its way back, but is not given to the site again.
 */
struct nop5_page {
	struct list_head	node;		/* in arch_uprobes_mm.pages */
	unsigned long		base;		/* where it is mapped */
	struct page		*page;		/* the page (our reference) */
	struct rcu_head		rcu;
	unsigned long		site[NOP5_SLOTS_PER_PAGE];
	struct uprobe		*uprobe[NOP5_SLOTS_PER_PAGE];
	DECLARE_BITMAP(moved, NOP5_SLOTS_PER_PAGE);
};

/*
 * The state of one address space.  @pages is read under
 * rcu_read_lock_trace() (system call, fault) and changed under @lock;
 * @lock also guards the entries.  @node is on nop5_mms, under
 * nop5_mms_lock.
 */
struct arch_uprobes_mm {
	struct mutex		lock;		/* @pages and every entry */
	struct list_head	pages;
	struct list_head	node;
	unsigned int		nr_pages;
};

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

/* ---- per-address-space state ---- */

/* The page of @st mapped at @base; under @st->lock or RCU-tasks-trace. */
static struct nop5_page *nop5_page_find(struct arch_uprobes_mm *st,
					unsigned long base)
{
	struct nop5_page *p;

	list_for_each_entry_rcu(p, &st->pages, node,
				lockdep_is_held(&st->lock) ||
				rcu_read_lock_trace_held()) {
		if (p->base == base)
			return p;
	}
	return NULL;
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
static void nop5_page_release(struct nop5_page *p)
{
	nop5_page_drop_uprobes(p);
	call_rcu_tasks_trace(&p->rcu, nop5_page_free_rcu);
}

/* @p was never published. */
static void nop5_page_free(struct nop5_page *p)
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
static struct arch_uprobes_mm *nop5_mm_get(struct mm_struct *mm)
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
	/* readers that see the state see it initialized */
	smp_store_release(&mm->uprobes_state.arch, st);
	return st;
}

/**
 * arch_uprobe_clear_state - x86-64: free the trampoline state of an address space
 * @mm: the address space, being torn down (no task uses it any more)
 *
 * Runs before the mappings go; the trampoline pages' ->close() then finds
 * no state and does nothing.
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
static void nop5_entries_clear_site(struct mm_struct *mm, unsigned long site)
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
static unsigned long nop5_take_site_in(struct mm_struct *mm,
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

/* ---- the trampoline mapping ---- */

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
	/* pairs with the smp_store_release() in nop5_mm_get() */
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

/* A fresh trampoline page: int3 where code goes, 0 where a site goes. */
static struct nop5_page *nop5_page_new(unsigned long base)
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
static unsigned long nop5_slot(struct mm_struct *mm,
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
	mutex_lock(&st->lock);
	nop5_entry_clear(found, slot);
	WRITE_ONCE(found->site[slot], site);
	/* a reader that sees the uprobe sees the site */
	smp_store_release(&found->uprobe[slot], uprobe);
	mutex_unlock(&st->lock);
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

/* ---- text ---- */

/* The page of @mm at @vaddr, with a reference; mmap_lock held. */
static struct page *nop5_get_page(struct mm_struct *mm, unsigned long vaddr,
				  unsigned int gup_flags)
{
	struct page *page;

	if (get_user_pages_remote(mm, vaddr, 1, gup_flags, &page, NULL) != 1)
		return NULL;
	return page;
}

static void nop5_read(struct page *page, unsigned long vaddr, u8 *buf)
{
	void *kaddr = kmap_local_page(page);

	memcpy(buf, kaddr + offset_in_page(vaddr), NOP5_LEN);
	kunmap_local(kaddr);
}

static void nop5_write(struct page *page, unsigned long vaddr,
		       const u8 *buf, size_t len)
{
	void *kaddr = kmap_local_page(page);

	memcpy(kaddr + offset_in_page(vaddr), buf, len);
	kunmap_local(kaddr);
}

/*
 * A mapping whose text we may rewrite: a private mapping of a file, as
 * uprobes places breakpoints in, so that a forced write only ever changes
 * this address space's own copy of the page.
 */
static bool nop5_text_vma(struct mm_struct *mm, unsigned long site)
{
	struct vm_area_struct *vma = vma_lookup(mm, site);

	return vma && vma->vm_file && site + NOP5_LEN <= vma->vm_end &&
	       !(vma->vm_flags & (VM_MAYSHARE | VM_HUGETLB | VM_IO |
				  VM_PFNMAP)) &&
	       (vma->vm_flags & VM_MAYEXEC);
}

/*
 * A jumping site back to its breakpoint form: the int3 first (a thread
 * arriving now traps instead of jumping), then the NOP's tail.
 */
static void nop5_unjump(struct page *page, unsigned long site)
{
	u8 int3 = NOP5_OPC_INT3;

	nop5_write(page, site, &int3, 1);
	text_poke_sync();
	nop5_write(page, site + 1, nop5_insn + 1, NOP5_LEN - 1);
	text_poke_sync();
}

/* Is @text (at @site of @mm) our jump into a trampoline page? */
static bool nop5_is_our_jmp(struct mm_struct *mm, unsigned long site,
			    const u8 *text)
{
	struct vm_area_struct *vma;
	unsigned long dest;

	if (text[0] != NOP5_OPC_JMP)
		return false;
	dest = site + NOP5_LEN + (long)(s32)get_unaligned_le32(text + 1);
	vma = vma_lookup(mm, dest);
	return vma && vma_is_special_mapping(vma, &nop5_mapping);
}

/* Does @text, at @site, jump to @slot? */
static bool nop5_jmps_to(unsigned long site, const u8 *text,
			 unsigned long slot)
{
	return text[0] == NOP5_OPC_JMP &&
	       site + NOP5_LEN + (long)(s32)get_unaligned_le32(text + 1) == slot;
}

/*
 * Read the five bytes at @site of @mm (not across a page); mmap_lock held.
 * @may_fault: the mapping there is of the probed file; otherwise only a
 * page already in the page table is read (rule 3 above).
 */
static bool nop5_peek(struct mm_struct *mm, unsigned long site, u8 *text,
		      bool may_fault)
{
	struct page *page;

	if (offset_in_page(site) > PAGE_SIZE - NOP5_LEN)
		return false;
	page = nop5_get_page(mm, site,
			     FOLL_FORCE | (may_fault ? 0 : FOLL_NOFAULT));
	if (!page)
		return false;
	nop5_read(page, site, text);
	put_page(page);
	return true;
}

/*
 * The bytes from @vaddr - 4 to @vaddr + 4 of @mm, if they lie in one page;
 * mmap_lock held.
 */
static bool nop5_peek_around(struct mm_struct *mm, unsigned long vaddr,
			     u8 *buf)
{
	unsigned long from = vaddr - (NOP5_LEN - 1);
	struct page *page;
	void *kaddr;

	if (vaddr < NOP5_LEN - 1 ||
	    offset_in_page(from) > PAGE_SIZE - (2 * NOP5_LEN - 1))
		return false;
	page = nop5_get_page(mm, from, FOLL_FORCE);
	if (!page)
		return false;
	kaddr = kmap_local_page(page);
	memcpy(buf, kaddr + offset_in_page(from), 2 * NOP5_LEN - 1);
	kunmap_local(kaddr);
	put_page(page);
	return true;
}

/*
 * Put @site of @mm, if it jumps to @slot, back to the int3 (@uprobe, the
 * uprobe its entry named, is still registered) or to the NOP; mmap_lock
 * held for writing, no lock of ours.
 *
 * Where the mapping at @site is not of @uprobe's file at its offset, the
 * jump cannot be ours (it went with the mapping it was written in), and
 * nothing is faulted in to find out: a page already in the page table is
 * read and, if it is an exclusive private copy, written.
 */
static void nop5_restore(struct mm_struct *mm, unsigned long site,
			 unsigned long slot, struct uprobe *uprobe)
{
	bool live = uprobe, mine;
	u8 text[NOP5_LEN];
	struct page *page;

	if (!nop5_text_vma(mm, site))
		return;
	mine = uprobe && uprobe_site_maps(uprobe, vma_lookup(mm, site), site);
	/* read first: no private copy made for a site that does not jump */
	if (!nop5_peek(mm, site, text, mine) ||
	    !nop5_jmps_to(site, text, slot))
		return;
	page = nop5_get_page(mm, site, FOLL_FORCE | FOLL_WRITE |
				       (mine ? 0 : FOLL_NOFAULT));
	if (!page)
		return;
	nop5_read(page, site, text);
	if (nop5_jmps_to(site, text, slot)) {
		nop5_unjump(page, site);
		if (!live) {
			nop5_write(page, site, nop5_insn, 1);
			text_poke_sync();
		}
	}
	put_page(page);
}

/**
 * arch_uprobe_move_vma - x86-64: put back sites that mremap() is about to move
 * @vma: the mapping being moved (mmap_lock held for writing)
 * @start: the start of the range that moves
 * @end: its end
 *
 * A jump's target is relative to the site and a slot names its site by
 * address, so neither holds once the text moves.  Each site of the range
 * that jumps to a slot goes back to its breakpoint (the NOP if no uprobe
 * is left for it) and loses its entry; the moved breakpoint traps at the
 * new address, where the first hit optimizes it again.  This is the
 * process's own mremap(), in its own address space: no lock of ours is
 * held while the text is read and written.
 */
void arch_uprobe_move_vma(struct vm_area_struct *vma, unsigned long start,
			  unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long site, slot;
	struct uprobe *uprobe;

	while ((site = nop5_take_site_in(mm, start, end, &slot, &uprobe))) {
		nop5_restore(mm, site, slot, uprobe);
		if (uprobe)
			uprobe_site_drop(uprobe);
	}
}

/*
 * Turn the int3 at @site of the current mm into a jump to a slot, and make
 * the slot's entry name @auprobe's uprobe.  Any failure leaves the
 * breakpoint as it is (and the entry, if set, names the right uprobe).
 */
static void nop5_optimize(struct arch_uprobe *auprobe, unsigned long site)
{
	struct mm_struct *mm = current->mm;
	u8 text[NOP5_LEN], jmp[NOP5_LEN];
	struct arch_uprobes_mm *st;
	struct uprobe *uprobe;
	struct page *page;
	unsigned long slot;

	if (mmap_write_lock_killable(mm))
		return;
	if (!nop5_text_vma(mm, site))
		goto unlock;
	/*
	 * Under mmap_lock: an unregistration that removed the last consumer
	 * after this still has to restore the site here, which clears the
	 * entry; one that removed it before leaves no reference to take.
	 */
	uprobe = uprobe_site_hold(auprobe);
	if (!uprobe)
		goto unlock;
	/*
	 * Another thread may have mapped something else at the site since the
	 * trap: only the probed file's text is read, or rewritten.
	 */
	if (!uprobe_site_maps(uprobe, vma_lookup(mm, site), site) ||
	    !nop5_peek(mm, site, text, true) || text[0] != NOP5_OPC_INT3 ||
	    memcmp(text + 1, nop5_insn + 1, NOP5_LEN - 1))
		goto drop;
	st = nop5_mm_get(mm);
	if (!st)
		goto drop;
	slot = nop5_slot(mm, st, site, uprobe);
	if (!slot)
		goto drop;

	/* our own copy of the text page (uprobes made one for the int3) */
	page = nop5_get_page(mm, site, FOLL_FORCE | FOLL_WRITE);
	if (!page)
		goto unlock;
	nop5_read(page, site, text);
	if (text[0] == NOP5_OPC_INT3 &&
	    !memcmp(text + 1, nop5_insn + 1, NOP5_LEN - 1)) {
		jmp[0] = NOP5_OPC_JMP;
		put_unaligned_le32((u32)(slot - (site + NOP5_LEN)), jmp + 1);
		nop5_write(page, site + 1, jmp + 1, NOP5_LEN - 1);
		text_poke_sync();
		nop5_write(page, site, jmp, 1);
		text_poke_sync();
	}
	put_page(page);
	goto unlock;
drop:
	uprobe_site_drop(uprobe);
unlock:
	mmap_write_unlock(mm);
}

/*
 * Back from the jump to the int3 (the generic code then restores the NOP's
 * first byte); mmap_lock held.
 */
static void nop5_unoptimize(struct mm_struct *mm, unsigned long site)
{
	u8 text[NOP5_LEN];
	struct page *page;

	/* whatever the text is now, no entry of this mm names the site */
	nop5_entries_clear_site(mm, site);
	if (!nop5_peek(mm, site, text, true) ||
	    !nop5_is_our_jmp(mm, site, text))
		return;
	page = nop5_get_page(mm, site, FOLL_FORCE | FOLL_WRITE);
	if (!page)
		return;
	nop5_read(page, site, text);
	if (nop5_is_our_jmp(mm, site, text))
		nop5_unjump(page, site);
	put_page(page);
}

static bool nop5_probed(struct arch_uprobe *auprobe)
{
	return !memcmp(auprobe->insn, nop5_insn, NOP5_LEN);
}

/**
 * arch_uprobe_ignore - x86-64: optimize a 5-byte NOP site on its first hit
 * @auprobe: the probe being hit
 * @regs: the registers, with the instruction pointer at the site
 *
 * Called on every breakpoint hit before the handlers run.  For a probe on
 * a 5-byte NOP the site is turned into a jump to a trampoline slot, so the
 * next hits in this address space enter through sys_uprobe().  This hit
 * goes on as usual (handlers, then the NOP stepped or emulated).
 *
 * Return: false, the hit is never ignored.
 */
bool arch_uprobe_ignore(struct arch_uprobe *auprobe, struct pt_regs *regs)
{
	if (nop5_probed(auprobe) && user_64bit_mode(regs))
		nop5_optimize(auprobe, instruction_pointer(regs));
	return false;
}

/**
 * set_swbp - place the breakpoint of a uprobe
 * @auprobe: the probe
 * @mm: the address space
 * @vaddr: the probed address in @mm
 *
 * As the generic version, except that a 5-byte NOP site that already jumps
 * to a trampoline slot counts as having its breakpoint.
 *
 * Return: 0 or a negative errno.
 */
int set_swbp(struct arch_uprobe *auprobe, struct mm_struct *mm,
	     unsigned long vaddr)
{
	u8 text[NOP5_LEN], around[2 * NOP5_LEN - 1];
	int k;

	if (nop5_probed(auprobe) && nop5_peek(mm, vaddr, text, true) &&
	    nop5_is_our_jmp(mm, vaddr, text))
		return 0;
	/*
	 * A breakpoint in the rel32 of one of our jumps would send the task
	 * astray: refused (a probe inside a NOP that another probe has
	 * optimized).  Jumps are within a page, as their sites are.
	 */
	if (nop5_peek_around(mm, vaddr, around)) {
		for (k = 1; k < NOP5_LEN; k++) {
			if (nop5_is_our_jmp(mm, vaddr - k,
					    around + NOP5_LEN - 1 - k))
				return -EBUSY;
		}
	}
	return uprobe_write_opcode(auprobe, mm, vaddr, UPROBE_SWBP_INSN);
}

/**
 * set_orig_insn - put back the probed instruction
 * @auprobe: the probe
 * @mm: the address space
 * @vaddr: the probed address in @mm
 *
 * A 5-byte NOP site that jumps to a trampoline slot goes back to the int3
 * first; then, as the generic version, the first byte is restored.
 *
 * Return: 0 or a negative errno.
 */
int set_orig_insn(struct arch_uprobe *auprobe, struct mm_struct *mm,
		  unsigned long vaddr)
{
	if (nop5_probed(auprobe))
		nop5_unoptimize(mm, vaddr);
	return uprobe_write_opcode(auprobe, mm, vaddr,
				   *(uprobe_opcode_t *)&auprobe->insn);
}

/* ---- the system call ---- */

/* The three registers the slot pushed, from the user stack at @sp. */
static bool nop5_get_saved(unsigned long sp, struct nop5_saved *saved)
{
	const struct nop5_saved __user *from = (const void __user *)sp;

	if (!user_access_begin(from, sizeof(*from)))
		return false;
	unsafe_get_user(saved->r11, &from->r11, fault);
	unsafe_get_user(saved->cx, &from->cx, fault);
	unsafe_get_user(saved->ax, &from->ax, fault);
	user_access_end();
	return true;
fault:
	user_access_end();
	return false;
}

/*
 * The slot that made this call, if it is one of the calling address
 * space's trampoline slots that serves a site: its site (from the
 * kernel's table) and, if its entry names one, its uprobe.  Under
 * rcu_read_lock_trace().
 */
static bool nop5_caller(unsigned long at, unsigned long *site,
			struct uprobe **uprobe)
{
	struct arch_uprobes_mm *st;
	struct nop5_page *p;
	int i;

	if (!IS_ALIGNED(at, NOP5_SLOT_SIZE))
		return false;
	/* pairs with the smp_store_release() in nop5_mm_get() */
	st = smp_load_acquire(&current->mm->uprobes_state.arch);
	if (!st)
		return false;
	p = nop5_page_find(st, at & PAGE_MASK);
	if (!p)
		return false;
	i = offset_in_page(at) / NOP5_SLOT_SIZE;
	/* pairs with the smp_store_release() in nop5_slot() */
	*uprobe = smp_load_acquire(&p->uprobe[i]);
	*site = READ_ONCE(p->site[i]);
	return *site;
}

/*
 * Entered from a trampoline slot only: anything else is killed with
 * SIGILL, as an undefined instruction would be (the call passes seccomp
 * filters unchecked, so a sandboxed process must get nothing from it).
 */
SYSCALL_DEFINE0(uprobe)
{
	struct pt_regs *regs = current_pt_regs();
	unsigned long at = regs->ip - NOP5_SLOT_RET;
	struct uprobe *uprobe = NULL;
	struct nop5_saved saved;
	unsigned long site = 0;
	bool saved_ok;

	/* first, so that a fault on the stack never waits in the section */
	saved_ok = nop5_get_saved(regs->sp, &saved);
	rcu_read_lock_trace();
	if (!nop5_caller(at, &site, &uprobe)) {
		rcu_read_unlock_trace();
		force_sig(SIGILL);
		return -ENXIO;
	}
	if (!saved_ok) {
		rcu_read_unlock_trace();
		force_sig(SIGSEGV);
		return -EFAULT;
	}
	if (!uprobe)
		rcu_read_unlock_trace();

	/* the registers as they were at the site */
	regs->r11 = saved.r11;
	regs->cx = saved.cx;
	regs->ax = saved.ax;
	regs->sp += sizeof(saved) + NOP5_RED_ZONE;
	regs->ip = site;
	/* not a system call to restart or report from here on */
	regs->orig_ax = -1;

	if (uprobe) {
		uprobe_site_run(uprobe, regs);
		rcu_read_unlock_trace();
	} else {
		uprobe_run_site(regs, site);
	}

	/* the NOP itself, unless a handler sent the task elsewhere */
	if (regs->ip == site)
		regs->ip = site + NOP5_LEN;
	/* the syscall's return value lands in ax */
	return regs->ax;
}
