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
 * sys_uprobe() reads the site from the slot, puts back rax, rcx, r11 and
 * the stack pointer from the stack, runs the uprobe's consumers with the
 * instruction pointer at the site, and returns to the instruction after
 * the NOP.  A jump rather than a call: nothing is written at or below the
 * probed code's stack pointer (leaf functions keep data in the red zone),
 * and a shadow stack sees no unmatched call.
 *
 * The trampoline pages are special mappings of one page, placed within
 * reach of a rel32 jump from the sites they serve, with up to
 * NOP5_SLOTS_PER_PAGE slots each; a slot keeps its site for the life of the
 * page, so a task that took the jump just before the probe went away still
 * finds where to go back to.  The page is inserted into the mapping's page
 * table: fork() copies the mapping and the entry (parent and child share the
 * page; a site address means the same in both), and it goes away with the
 * address space.  exec() starts from a new address space: the next hit
 * traps and optimizes again.
 *
 * Each address space keeps, for each of its trampoline pages, a table from
 * slot to the uprobe the slot's site belongs to (struct nop5_table, found
 * by address space and page in a small hash).  An entry is set when the
 * site is optimized and holds a reference to the uprobe; sys_uprobe()
 * reads it under rcu_read_lock_trace() and runs the consumers without
 * mmap_lock, VMA or uprobe-tree lookups.  An entry goes (and its reference
 * with it) when the site is restored in that address space, when the
 * uprobe loses its last consumer (arch_uprobe_forget(): the address space
 * may no longer map the site, so nothing else would restore it), when the
 * trampoline page is unmapped and when the address space is torn down.
 * fork() copies the parent's tables for the child.  Without an entry the
 * system call falls back to the lookup by address, which is always right:
 * a task that jumped to its slot just before the probe went away finds no
 * uprobe and just steps over the NOP.
 *
 * Text changes follow the usual protocol for code other threads may be
 * running: with the int3 in place, write the four tail bytes, serialize
 * every CPU, write the first byte, serialize again; back to the NOP it is
 * the other way round (int3 first, then the tail), after which the generic
 * code puts back the first byte.  Each write goes to the address space's
 * private copy of the text page (which uprobes made when it placed the
 * int3) under mmap_lock, so the file and other processes never see it.
 */
#include <linux/hashtable.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mutex.h>
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

/* Serializes slot allocation: after fork() a page serves several mms. */
static DEFINE_MUTEX(nop5_slot_lock);

/*
 * The table of one trampoline page in one address space.  @site[i] is
 * written once, with the slot (the page's slot code never changes); it is
 * set before @uprobe[i] is published.  @uprobe[i] holds a reference.
 */
struct nop5_table {
	struct hlist_node	node;		/* in nop5_tables */
	struct mm_struct	*mm;
	unsigned long		base;		/* the trampoline page */
	struct page		*page;		/* its page (a reference), or NULL */
	struct rcu_head		rcu;
	unsigned long		site[NOP5_SLOTS_PER_PAGE];
	struct uprobe		*uprobe[NOP5_SLOTS_PER_PAGE];
};

#define NOP5_TABLE_BITS		6

/*
 * nop5_table_lock guards every change to the tables and to the hash; it
 * nests inside mmap_lock and inside a uprobe's register_rwsem.  Readers
 * use rcu_read_lock_trace(), which also keeps the uprobes they find alive
 * (uprobes are freed after an RCU-tasks-trace grace period).
 */
static DEFINE_HASHTABLE(nop5_tables, NOP5_TABLE_BITS);
static DEFINE_MUTEX(nop5_table_lock);
static unsigned int nop5_nr_tables;

static unsigned long nop5_table_key(struct mm_struct *mm, unsigned long base)
{
	return (unsigned long)mm ^ base;
}

/* The table of the page at @base in @mm; under the lock or RCU-tasks-trace. */
static struct nop5_table *nop5_table_find(struct mm_struct *mm,
					  unsigned long base)
{
	struct nop5_table *t;

	hash_for_each_possible_rcu(nop5_tables, t, node,
				   nop5_table_key(mm, base),
				   lockdep_is_held(&nop5_table_lock) ||
				   rcu_read_lock_trace_held()) {
		if (t->mm == mm && t->base == base)
			return t;
	}
	return NULL;
}

static void nop5_table_free_rcu(struct rcu_head *rcu)
{
	struct nop5_table *t = container_of(rcu, struct nop5_table, rcu);

	if (t->page)
		put_page(t->page);
	kfree(t);
}

/* Drop the references of @t, out of the hash, and free it after readers. */
static void nop5_table_free(struct nop5_table *t)
{
	int i;

	for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++) {
		if (t->uprobe[i])
			uprobe_site_drop(t->uprobe[i]);
	}
	call_rcu_tasks_trace(&t->rcu, nop5_table_free_rcu);
}

/* Unhash @t; nop5_table_lock held. */
static void nop5_table_unhash(struct nop5_table *t)
{
	hash_del_rcu(&t->node);
	nop5_nr_tables--;
}

/* Unhash @t and drop its references; nop5_table_lock held. */
static void nop5_table_remove(struct nop5_table *t)
{
	nop5_table_unhash(t);
	nop5_table_free(t);
}

/*
 * Empty entry @i of @t; nop5_table_lock held.  Unpublished before the
 * reference goes: a reader that starts later must not find the uprobe.
 */
static void nop5_table_clear(struct nop5_table *t, int i)
{
	struct uprobe *uprobe = t->uprobe[i];

	if (!uprobe)
		return;
	WRITE_ONCE(t->uprobe[i], NULL);
	uprobe_site_drop(uprobe);
}

/* The entry of @slot in @mm: the uprobe @uprobe (one reference given). */
static void nop5_table_set(struct mm_struct *mm, unsigned long slot,
			   unsigned long site, struct uprobe *uprobe)
{
	unsigned long base = slot & PAGE_MASK;
	int i = offset_in_page(slot) / NOP5_SLOT_SIZE;
	struct nop5_table *t;

	mutex_lock(&nop5_table_lock);
	t = nop5_table_find(mm, base);
	if (!t) {
		t = kzalloc(sizeof(*t), GFP_KERNEL);
		if (!t) {
			/* no entry: the lookup by address serves this site */
			mutex_unlock(&nop5_table_lock);
			uprobe_site_drop(uprobe);
			return;
		}
		t->mm = mm;
		t->base = base;
		hash_add_rcu(nop5_tables, &t->node, nop5_table_key(mm, base));
		nop5_nr_tables++;
	}
	nop5_table_clear(t, i);
	WRITE_ONCE(t->site[i], site);
	/* a reader that sees the uprobe sees the site */
	smp_store_release(&t->uprobe[i], uprobe);
	mutex_unlock(&nop5_table_lock);
}

/* Clear every entry of @mm for @site. */
static void nop5_table_clear_site(struct mm_struct *mm, unsigned long site)
{
	struct nop5_table *t;
	int bkt, i;

	mutex_lock(&nop5_table_lock);
	if (!nop5_nr_tables)
		goto out;
	hash_for_each(nop5_tables, bkt, t, node) {
		if (t->mm != mm)
			continue;
		for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++) {
			if (t->site[i] == site)
				nop5_table_clear(t, i);
		}
	}
out:
	mutex_unlock(&nop5_table_lock);
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
	struct nop5_table *t;
	int bkt, i;

	if (memcmp(auprobe->insn, nop5_insn, NOP5_LEN))
		return;
	mutex_lock(&nop5_table_lock);
	hash_for_each(nop5_tables, bkt, t, node) {
		for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++) {
			if (t->uprobe[i] == uprobe)
				nop5_table_clear(t, i);
		}
	}
	mutex_unlock(&nop5_table_lock);
}

/**
 * arch_uprobe_dup_mmap - x86-64: copy the slot tables for a child
 * @oldmm: the parent's address space (mmap_lock held for writing)
 * @newmm: the child's, being built
 *
 * The child maps the same trampoline pages and the same text, so the
 * parent's entries hold for it too.  A table that cannot be copied is
 * left out: the child then looks its uprobes up by address.
 */
void arch_uprobe_dup_mmap(struct mm_struct *oldmm, struct mm_struct *newmm)
{
	struct nop5_table *t, *c;
	struct hlist_node *tmp;
	HLIST_HEAD(copies);
	int bkt, i;

	mutex_lock(&nop5_table_lock);
	if (!nop5_nr_tables)
		goto out;
	hash_for_each(nop5_tables, bkt, t, node) {
		if (t->mm != oldmm)
			continue;
		c = kmemdup(t, sizeof(*t), GFP_KERNEL);
		if (!c)
			continue;
		c->mm = newmm;
		if (c->page)
			get_page(c->page);
		for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++) {
			if (c->uprobe[i])
				uprobe_site_get(c->uprobe[i]);
		}
		/* not into the hash while walking it */
		hlist_add_head(&c->node, &copies);
	}
	hlist_for_each_entry_safe(c, tmp, &copies, node) {
		hlist_del(&c->node);
		hash_add_rcu(nop5_tables, &c->node,
			     nop5_table_key(newmm, c->base));
		nop5_nr_tables++;
	}
out:
	mutex_unlock(&nop5_table_lock);
}

/**
 * arch_uprobe_clear_state - x86-64: free the slot tables of an address space
 * @mm: the address space, being torn down
 */
void arch_uprobe_clear_state(struct mm_struct *mm)
{
	struct hlist_node *tmp;
	struct nop5_table *t;
	int bkt;

	mutex_lock(&nop5_table_lock);
	if (nop5_nr_tables) {
		hash_for_each_safe(nop5_tables, bkt, tmp, t, node) {
			if (t->mm == mm)
				nop5_table_remove(t);
		}
	}
	mutex_unlock(&nop5_table_lock);
}

/*
 * The uprobe of the slot at @slot in the current address space, and its
 * site; NULL if the table has none.  Under rcu_read_lock_trace().
 */
static struct uprobe *nop5_table_lookup(unsigned long slot,
					unsigned long *site)
{
	struct nop5_table *t;
	struct uprobe *uprobe;
	int i;

	t = nop5_table_find(current->mm, slot & PAGE_MASK);
	if (!t)
		return NULL;
	i = offset_in_page(slot) / NOP5_SLOT_SIZE;
	/* pairs with the smp_store_release() in nop5_table_set() */
	uprobe = smp_load_acquire(&t->uprobe[i]);
	if (uprobe)
		*site = READ_ONCE(t->site[i]);
	return uprobe;
}

static void nop5_restore(struct mm_struct *mm, unsigned long site,
			 unsigned long slot, bool live);

/*
 * The page is inserted when the mapping is made, and fork() copies the
 * entry; it is missing only after MADV_DONTNEED (or a table that could not
 * be copied), and then the table's reference brings it back.
 */
static vm_fault_t nop5_fault(const struct vm_special_mapping *sm,
			     struct vm_area_struct *vma, struct vm_fault *vmf)
{
	struct page *page = NULL;
	struct nop5_table *t;

	rcu_read_lock_trace();
	t = nop5_table_find(vma->vm_mm, vma->vm_start);
	if (t && t->page) {
		/* the table's reference lasts until after this section */
		page = t->page;
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
	/* the sites jump to where the page is: it cannot move */
	return -EINVAL;
}

/*
 * Unmapped: its table goes (a new page may later take the same address).
 * In a live address space (munmap(), or a mapping placed over the page),
 * each site that still jumps into the page is put back to the breakpoint
 * if its entry names a uprobe, else to the NOP, so that no site jumps to
 * where the page was; mmap_lock is held there.  At exit nothing runs the
 * sites any more.
 */
static void nop5_close(const struct vm_special_mapping *sm,
		       struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	struct nop5_table *t;
	int i;

	mutex_lock(&nop5_table_lock);
	t = nop5_table_find(mm, vma->vm_start);
	if (t)
		nop5_table_unhash(t);
	mutex_unlock(&nop5_table_lock);
	if (!t)
		return;
	if (atomic_read(&mm->mm_users)) {
		for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++) {
			if (t->site[i])
				nop5_restore(mm, t->site[i],
					     t->base + i * NOP5_SLOT_SIZE,
					     t->uprobe[i]);
		}
	}
	nop5_table_free(t);
}

static const struct vm_special_mapping nop5_mapping = {
	.name	= "[uprobes-nop5]",
	.fault	= nop5_fault,
	.mremap	= nop5_mremap,
	.close	= nop5_close,
};

static bool nop5_probed(struct arch_uprobe *auprobe)
{
	return !memcmp(auprobe->insn, nop5_insn, NOP5_LEN);
}

static bool nop5_in_reach(unsigned long site, unsigned long dest)
{
	long d = (long)(dest - (site + NOP5_LEN));

	return d == (long)(s32)d;
}

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

/* Read the five bytes at @site of @mm (not across a page); mmap_lock held. */
static bool nop5_peek(struct mm_struct *mm, unsigned long site, u8 *text)
{
	struct page *page;

	if (offset_in_page(site) > PAGE_SIZE - NOP5_LEN)
		return false;
	page = nop5_get_page(mm, site, FOLL_FORCE);
	if (!page)
		return false;
	nop5_read(page, site, text);
	put_page(page);
	return true;
}

/*
 * Put @site of @mm, if it jumps to @slot, back to the int3 (@live: its
 * uprobe is still registered) or to the NOP; mmap_lock held.
 */
static void nop5_restore(struct mm_struct *mm, unsigned long site,
			 unsigned long slot, bool live)
{
	u8 text[NOP5_LEN];
	struct page *page;

	/* read first: no private copy made for a site that does not jump */
	if (!nop5_peek(mm, site, text) || !nop5_jmps_to(site, text, slot))
		return;
	page = nop5_get_page(mm, site, FOLL_FORCE | FOLL_WRITE);
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
 * new address, where the first hit optimizes it again.
 */
void arch_uprobe_move_vma(struct vm_area_struct *vma, unsigned long start,
			  unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long site;
	struct nop5_table *t;
	bool live;
	int bkt, i;

	mutex_lock(&nop5_table_lock);
	if (!nop5_nr_tables)
		goto out;
	hash_for_each(nop5_tables, bkt, t, node) {
		if (t->mm != mm)
			continue;
		for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++) {
			site = t->site[i];
			if (!site || site < start || site > end - NOP5_LEN)
				continue;
			live = t->uprobe[i];
			nop5_table_clear(t, i);
			/* text only: no trampoline page faults in from here */
			nop5_restore(mm, site, t->base + i * NOP5_SLOT_SIZE,
				     live);
		}
	}
out:
	mutex_unlock(&nop5_table_lock);
}

/*
 * A slot for @site in the trampoline page mapped at @vma: the one that
 * already serves it, else a free one (written now).  0 if none.
 */
static unsigned long nop5_slot_in(struct vm_area_struct *vma,
				  unsigned long site)
{
	unsigned long addr, found = 0;
	struct page *page;
	u8 *kaddr;
	u64 *at;
	int i, free = -1;

	page = nop5_get_page(vma->vm_mm, vma->vm_start, 0);
	if (!page)
		return 0;
	kaddr = page_address(page);
	for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++) {
		addr = vma->vm_start + i * NOP5_SLOT_SIZE;
		at = (u64 *)(kaddr + i * NOP5_SLOT_SIZE + NOP5_SLOT_SITE);
		if (READ_ONCE(*at) == site) {
			found = addr;
			break;
		}
		if (!READ_ONCE(*at) && free < 0 && nop5_in_reach(site, addr))
			free = i;
	}
	if (!found && free >= 0) {
		memcpy(kaddr + free * NOP5_SLOT_SIZE, nop5_slot_code,
		       sizeof(nop5_slot_code));
		WRITE_ONCE(*(u64 *)(kaddr + free * NOP5_SLOT_SIZE +
				    NOP5_SLOT_SITE), site);
		found = vma->vm_start + free * NOP5_SLOT_SIZE;
	}
	put_page(page);
	return found;
}

/* Map a new trampoline page within reach of @site; mmap_lock held to write. */
static struct vm_area_struct *nop5_new_page(struct mm_struct *mm,
					    unsigned long site)
{
	struct vm_unmapped_area_info info = {};
	struct vm_area_struct *vma;
	struct nop5_table *t;
	unsigned long addr;
	struct page *page;
	u8 *kaddr;
	int err, i;

	info.flags = VM_UNMAPPED_AREA_TOPDOWN;
	info.length = PAGE_SIZE;
	/* page-aligned bounds: the search returns high_limit - length */
	info.low_limit = site > SZ_2G ? PAGE_ALIGN(site - SZ_2G + SZ_1M) : 0;
	info.low_limit = max(info.low_limit, PAGE_ALIGN(mmap_min_addr));
	info.low_limit = max_t(unsigned long, info.low_limit, PAGE_SIZE);
	info.high_limit = min((site + SZ_2G - SZ_1M) & PAGE_MASK,
			      TASK_SIZE & PAGE_MASK);
	addr = vm_unmapped_area(&info);
	if (offset_in_page(addr))
		return ERR_PTR(-ENOMEM);

	page = alloc_page(GFP_KERNEL);
	if (!page)
		return ERR_PTR(-ENOMEM);
	/* free slots: int3 where the code goes, 0 where the site goes */
	kaddr = page_address(page);
	memset(kaddr, NOP5_OPC_INT3, PAGE_SIZE);
	for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++)
		*(u64 *)(kaddr + i * NOP5_SLOT_SIZE + NOP5_SLOT_SITE) = 0;

	/* the table keeps the page for faults after MADV_DONTNEED */
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		__free_page(page);
		return ERR_PTR(-ENOMEM);
	}
	t->mm = mm;
	t->base = addr;
	t->page = page;

	vma = _install_special_mapping(mm, addr, PAGE_SIZE,
				       VM_READ | VM_EXEC |
				       VM_MAYREAD | VM_MAYEXEC,
				       &nop5_mapping);
	if (IS_ERR(vma)) {
		kfree(t);
		__free_page(page);
		return vma;
	}
	/* the page table holds its own reference */
	err = vm_insert_page(vma, addr, page);
	if (err) {
		do_munmap(mm, addr, PAGE_SIZE, NULL);
		kfree(t);
		__free_page(page);
		return ERR_PTR(err);
	}
	mutex_lock(&nop5_table_lock);
	hash_add_rcu(nop5_tables, &t->node, nop5_table_key(mm, addr));
	nop5_nr_tables++;
	mutex_unlock(&nop5_table_lock);
	return vma;
}

/* The slot of @site, found or made; mmap_lock held to write. */
static unsigned long nop5_slot(struct mm_struct *mm, unsigned long site)
{
	struct vm_area_struct *vma;
	struct vma_iterator vmi;
	unsigned long slot = 0;

	vma_iter_init(&vmi, mm, 0);
	mutex_lock(&nop5_slot_lock);
	for_each_vma(vmi, vma) {
		if (!vma_is_special_mapping(vma, &nop5_mapping))
			continue;
		slot = nop5_slot_in(vma, site);
		if (slot)
			goto out;
	}
	vma = nop5_new_page(mm, site);
	if (!IS_ERR(vma))
		slot = nop5_slot_in(vma, site);
out:
	mutex_unlock(&nop5_slot_lock);
	return slot;
}

/*
 * Turn the int3 at @site of the current mm into a jump to a slot, and make
 * the slot's entry name @auprobe's uprobe.  Any failure leaves the
 * breakpoint as it is.
 */
static void nop5_optimize(struct arch_uprobe *auprobe, unsigned long site)
{
	struct mm_struct *mm = current->mm;
	u8 text[NOP5_LEN], jmp[NOP5_LEN];
	struct uprobe *uprobe;
	struct page *page;
	unsigned long slot;

	if (mmap_write_lock_killable(mm))
		return;
	if (!nop5_peek(mm, site, text) || text[0] != NOP5_OPC_INT3 ||
	    memcmp(text + 1, nop5_insn + 1, NOP5_LEN - 1))
		goto unlock;
	/*
	 * Under mmap_lock: an unregistration that removed the last consumer
	 * after this still has to restore the site here, which clears the
	 * entry; one that removed it before leaves no reference to take.
	 */
	uprobe = uprobe_site_hold(auprobe);
	if (!uprobe)
		goto unlock;
	slot = nop5_slot(mm, site);
	if (!slot) {
		uprobe_site_drop(uprobe);
		goto unlock;
	}
	/* before the jump: a task that takes it finds the entry */
	nop5_table_set(mm, slot, site, uprobe);

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
	nop5_table_clear_site(mm, site);
	if (!nop5_peek(mm, site, text) || !nop5_is_our_jmp(mm, site, text))
		return;
	page = nop5_get_page(mm, site, FOLL_FORCE | FOLL_WRITE);
	if (!page)
		return;
	nop5_read(page, site, text);
	if (nop5_is_our_jmp(mm, site, text))
		nop5_unjump(page, site);
	put_page(page);
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
	u8 text[NOP5_LEN];

	if (nop5_probed(auprobe) && nop5_peek(mm, vaddr, text) &&
	    nop5_is_our_jmp(mm, vaddr, text))
		return 0;
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

/* The site of the slot that entered at @at, read from the slot; 0 if none. */
static unsigned long nop5_slot_site(unsigned long at)
{
	u8 slot[NOP5_SLOT_SIZE];
	unsigned long site;

	if (copy_from_user(slot, (void __user *)at, sizeof(slot)) ||
	    memcmp(slot, nop5_slot_code, sizeof(nop5_slot_code)))
		return 0;
	site = get_unaligned((unsigned long *)(slot + NOP5_SLOT_SITE));
	if (site > TASK_SIZE_MAX - NOP5_LEN)
		return 0;
	return site;
}

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
 * Entered from a trampoline slot only.  Anything else (no slot code before
 * the caller's syscall instruction) gets -ENXIO and no other change.
 *
 * A slot whose entry names a uprobe runs it straight away: entries exist
 * only for trampoline pages, whose slots user space cannot change, so the
 * slot code need not be read back.  Otherwise the slot is checked and the
 * uprobe looked up by address.
 */
SYSCALL_DEFINE0(uprobe)
{
	struct pt_regs *regs = current_pt_regs();
	unsigned long at = regs->ip - NOP5_SLOT_RET;
	struct uprobe *uprobe = NULL;
	struct nop5_saved saved;
	unsigned long site = 0;

	if (!IS_ALIGNED(at, NOP5_SLOT_SIZE))
		return -ENXIO;

	rcu_read_lock_trace();
	uprobe = nop5_table_lookup(at, &site);
	if (!uprobe) {
		rcu_read_unlock_trace();
		site = nop5_slot_site(at);
		if (!site)
			return -ENXIO;
	}

	if (!nop5_get_saved(regs->sp, &saved)) {
		if (uprobe)
			rcu_read_unlock_trace();
		force_sig(SIGSEGV);
		return -EFAULT;
	}
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
