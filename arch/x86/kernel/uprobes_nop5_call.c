// SPDX-License-Identifier: GPL-2.0
/*
 * 5-byte NOP uprobes, top layer: sys_uprobe(), which a trampoline slot
 * calls on every hit of an optimized site.  Rule 4: only a slot of the
 * caller's own trampoline pages that was given a site is served, any
 * other caller gets SIGILL, and the site comes from the table, never from
 * user memory.  Rule 5: the entry is read under rcu_read_lock_trace(),
 * with no mmap_lock, VMA or uprobe-tree lookup, and the user stack is read
 * before that section.  Takes no lock of ours; of the nop5 path it calls
 * only nop5_page_find() of uprobes_nop5.h.
 */
#include <linux/mm.h>
#include <linux/ptrace.h>
#include <linux/rcupdate_trace.h>
#include <linux/sched/signal.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <linux/uprobe_site.h>

#include <asm/ptrace.h>

#include "uprobes_nop5.h"

/* What the slot's pushes leave at the stack pointer of the syscall. */
struct nop5_saved {
	unsigned long r11;
	unsigned long cx;
	unsigned long ax;
};

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
	/*
	 * pairs with the smp_store_release() in nop5_mm_get()
	 * (uprobes_nop5_table.c)
	 */
	st = smp_load_acquire(&current->mm->uprobes_state.arch);
	if (!st)
		return false;
	p = nop5_page_find(st, at & PAGE_MASK);
	if (!p)
		return false;
	i = offset_in_page(at) / NOP5_SLOT_SIZE;
	/*
	 * pairs with the smp_store_release() in nop5_entry_set()
	 * (uprobes_nop5_table.c)
	 */
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
