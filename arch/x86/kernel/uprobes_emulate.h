/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Emulation of common function-entry instructions at a uprobe, so that a
 * hit on them needs no single step out of line (x86-64 only).  Private to
 * arch/x86/kernel/uprobes.c and uprobes_emulate.c.
 */
#ifndef _X86_KERNEL_UPROBES_EMULATE_H
#define _X86_KERNEL_UPROBES_EMULATE_H

#include <linux/types.h>

struct arch_uprobe;
struct insn;
struct pt_regs;

#ifdef CONFIG_X86_64
bool uprobe_emul_analyze(struct arch_uprobe *auprobe, struct insn *insn);
bool uprobe_emul_run(struct arch_uprobe *auprobe, struct pt_regs *regs);
int uprobe_emul_post_xol(struct arch_uprobe *auprobe, struct pt_regs *regs);
#else
static inline bool uprobe_emul_analyze(struct arch_uprobe *auprobe,
				       struct insn *insn)
{
	return false;
}

static inline bool uprobe_emul_run(struct arch_uprobe *auprobe,
				   struct pt_regs *regs)
{
	return false;
}

static inline int uprobe_emul_post_xol(struct arch_uprobe *auprobe,
				       struct pt_regs *regs)
{
	return 0;
}
#endif

#endif /* _X86_KERNEL_UPROBES_EMULATE_H */
