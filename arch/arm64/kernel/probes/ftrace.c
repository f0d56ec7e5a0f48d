// SPDX-License-Identifier: GPL-2.0
/*
 * arm64: kprobes on function-hook call sites (KPROBE_FLAG_FTRACE).
 *
 * A traced function starts "mov x9, x30; bl <caller>" (NOPs while
 * untraced; a "bti c" may come first).  The BL slot is the call site.  A
 * kprobe on the function's entry is moved to that slot (see
 * arch_adjust_kprobe_addr() below), where kernel/kprobes.c hooks it with
 * one of its two ftrace_ops (FTRACE_OPS_FL_SAVE_REGS, the one for probes
 * with a post_handler also FTRACE_OPS_FL_IPMODIFY) instead of a BRK.  The
 * site then calls ftrace_regs_caller, whose frame is a struct pt_regs,
 * and the function-hook core calls kprobe_ftrace_handler() for every call
 * of the function.  Nothing is single-stepped: the slot is a BL, and the
 * caller goes on with the function when the handlers are done.
 *
 * What the handlers see is what a BRK at the slot would show them:
 *  - pre_handler: regs->pc is the probe address (a BRK does not advance
 *    the pc); kprobe_running() is the probe, status KPROBE_HIT_ACTIVE;
 *  - post_handler: regs->pc is the probe address + 4, as after stepping
 *    the slot; status KPROBE_HIT_SSDONE;
 *  - the other registers are the function's at the slot, except that
 *    regs[30] already holds the return address (the "mov x9, x30" before
 *    the slot moved it to x9, and the caller put it back), which is where
 *    kretprobes and handlers expect it; regs[9] is scratch.
 *
 * Invariants (the same as on x86-64, see arch/x86/kernel/kprobes/ftrace.c):
 *  - Handlers run with preemption disabled.  kprobe_running(), not the
 *    ftrace recursion lock, keeps a hit from re-entering a handler.
 *  - current_kprobe is this CPU's probe only between the pre_handler and
 *    the end of the post_handler.
 *  - A hit while a kprobe runs on this CPU, or whose frame holds no
 *    pt_regs (a site on its way between the two callers), runs no handler
 *    and counts as missed.
 *  - regs->pc leaves as it came (the caller resumes the function), unless
 *    the pre_handler returned non-zero after moving it: then the function
 *    resumes there and no post_handler runs.  A non-zero return that
 *    leaves the pc on the probe only skips the post_handler.
 *  - Once ftrace_kill() has run (kprobe_ftrace_disabled), nothing runs.
 */
#include <linux/kprobe_site.h>
#include <linux/string.h>

#include <asm/insn.h>

/**
 * kprobe_ftrace_handler - run the kprobe at a hooked call site
 * @ip: address of the call site (the BL slot), which is the probe's address
 * @parent_ip: return address of the probed function
 * @ops: the kprobes ftrace_ops that matched (either one; unused)
 * @fregs: the caller's frame; a struct pt_regs with FTRACE_OPS_FL_SAVE_REGS
 *
 * The ftrace_ops callback of kprobes on call sites: runs the enabled kprobe
 * at @ip as a BRK there would, see the top of this file; counts a miss
 * instead when a kprobe already runs on this CPU or @fregs has no pt_regs.
 *
 * Context: any the function-hook core calls from, NMI included.
 */
void notrace kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *ops,
				   struct ftrace_regs *fregs)
{
	kprobe_site_handle(ip, parent_ip, fregs, 0, AARCH64_INSN_SIZE);
}

NOKPROBE_SYMBOL(kprobe_ftrace_handler);

/**
 * arch_prepare_kprobe_ftrace - set up the arch part of a call-site kprobe
 * @p: the kprobe, with KPROBE_FLAG_FTRACE
 *
 * Such a probe owns no instruction slot and simulates nothing: the arch
 * part stays zero, which also tells arch_remove_kprobe() there is no slot
 * to free.
 *
 * Return: 0.
 */
int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	memset(&p->ainsn, 0, sizeof(p->ainsn));
	return 0;
}

/**
 * arch_adjust_kprobe_addr - where a kprobe at @addr + @offset goes
 * @addr: start of the probed function
 * @offset: offset of the probe in it
 * @on_func_entry: set to whether the probe counts as on the function's entry
 *
 * A probe on the first instruction of a function with a call site goes on
 * the site's BL slot, a few bytes in ("mov x9, x30" and maybe "bti c"
 * come first), so that the function-hook core serves it; it still counts
 * as on the entry, as does a probe put on the slot itself (kretprobes need
 * that).  Any other address is used as given.
 *
 * Return: the probe address.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry)
{
	unsigned long site = ftrace_location(addr);

	if (site && (!offset || addr + offset == site)) {
		*on_func_entry = true;
		return (kprobe_opcode_t *)site;
	}
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)(addr + offset);
}
