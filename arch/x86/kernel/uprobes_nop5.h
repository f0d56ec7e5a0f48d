/* SPDX-License-Identifier: GPL-2.0 */
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
 *
 * Files, bottom to top; each calls only the ones below it and this
 * header, which they alone include:
 *
 *   uprobes_nop5_table.c  per-mm state, trampoline page lifetime, the slot
 *                         table entries, fault injection
 *   uprobes_nop5_tramp.c  the [uprobes-nop5] mapping, slot allocation, the
 *                         copy for a fork()'s child
 *   uprobes_nop5_text.c   a site's text: the rewrite at the first hit, its
 *                         undoing, and the uprobes core's text hooks
 *   uprobes_nop5_call.c   sys_uprobe(), the hit path
 */
#ifndef _X86_KERNEL_UPROBES_NOP5_H
#define _X86_KERNEL_UPROBES_NOP5_H

#include <linux/bitmap.h>
#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/rcupdate_trace.h>

struct uprobe;

/*
 * The slot layout; nop5_slot_code[] in uprobes_nop5_tramp.c is the code
 * of a slot, whose syscall must end at NOP5_SLOT_RET.
 */
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

/* The probed instruction: static const u8 nop5_insn[NOP5_LEN] = ... */
#define NOP5_INSN_INIT		{ 0x0f, 0x1f, 0x44, 0x00, 0x00 }

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

/* The page of @st mapped at @base; under @st->lock or RCU-tasks-trace. */
static inline struct nop5_page *nop5_page_find(struct arch_uprobes_mm *st,
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

/* uprobes_nop5_table.c: state, page lifetime, entries */
struct arch_uprobes_mm *nop5_mm_get(struct mm_struct *mm);
struct nop5_page *nop5_page_new(unsigned long base);
void nop5_page_free(struct nop5_page *p);
void nop5_page_release(struct nop5_page *p);
void nop5_entry_set(struct arch_uprobes_mm *st, struct nop5_page *p, int i,
		    unsigned long site, struct uprobe *uprobe);
void nop5_entries_clear_site(struct mm_struct *mm, unsigned long site);
unsigned long nop5_take_site_in(struct mm_struct *mm,
				unsigned long start, unsigned long end,
				unsigned long *slot,
				struct uprobe **uprobe);

/* uprobes_nop5_tramp.c: the trampoline mapping and its slots */
unsigned long nop5_slot(struct mm_struct *mm,
			struct arch_uprobes_mm *st, unsigned long site,
			struct uprobe *uprobe);
bool nop5_is_tramp_vma(const struct vm_area_struct *vma);

#endif /* _X86_KERNEL_UPROBES_NOP5_H */
