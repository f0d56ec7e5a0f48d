/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running the consumers of a uprobe from an architecture's own entry into
 * the kernel, for probe sites that an architecture rewrote so that they no
 * longer trap (x86-64: 5-byte NOPs that jump to a trampoline).
 *
 * The entry code may find the uprobe by address (uprobe_run_site()), or
 * keep a table of its own from rewritten sites to uprobes: entries hold a
 * reference (uprobe_site_hold(), uprobe_site_drop()) and are read under
 * rcu_read_lock_trace() (uprobe_site_run()).  The uprobes core tells the
 * architecture when such references must go (arch_uprobe_forget()) and
 * when an address space is torn down, and mremap() tells it before text
 * moves (uprobe_move_vma()).
 */
#ifndef _LINUX_UPROBE_SITE_H
#define _LINUX_UPROBE_SITE_H

#include <linux/types.h>

struct pt_regs;
struct uprobe;
struct arch_uprobe;
struct mm_struct;
struct vm_area_struct;

bool uprobe_run_site(struct pt_regs *regs, unsigned long vaddr);
struct uprobe *uprobe_site_hold(struct arch_uprobe *auprobe);
bool uprobe_site_get_live(struct uprobe *uprobe);
void uprobe_site_drop(struct uprobe *uprobe);
bool uprobe_site_maps(struct uprobe *uprobe, struct vm_area_struct *vma,
		      unsigned long vaddr);
void uprobe_site_run(struct uprobe *uprobe, struct pt_regs *regs);

/* Called by the uprobes core; the default versions do nothing. */
void arch_uprobe_forget(struct uprobe *uprobe, struct arch_uprobe *auprobe);
void arch_uprobe_clear_state(struct mm_struct *mm);
void arch_uprobe_move_vma(struct vm_area_struct *vma, unsigned long start,
			  unsigned long end);

/* From mremap(), before the pages of [@start, @end) of @vma move. */
#ifdef CONFIG_UPROBES
void uprobe_move_vma(struct vm_area_struct *vma, unsigned long start,
		     unsigned long end);
#else
static inline void uprobe_move_vma(struct vm_area_struct *vma,
				   unsigned long start, unsigned long end)
{
}
#endif

#endif /* _LINUX_UPROBE_SITE_H */
