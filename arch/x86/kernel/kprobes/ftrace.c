// SPDX-License-Identifier: GPL-2.0
/*
 * x86: kprobes on function-hook call sites (KPROBE_FLAG_FTRACE).
 *
 * A kprobe whose address is the fentry call site of a function does not
 * get a breakpoint: kernel/kprobes.c filters the site into one of its two
 * ftrace_ops (both FTRACE_OPS_FL_SAVE_REGS; the one for probes with a
 * post_handler also FTRACE_OPS_FL_IPMODIFY), and the function-hook core
 * calls kprobe_ftrace_handler() below for every call of the function,
 * from the site's own trampoline, from ftrace_regs_caller or from the
 * per-site dispatcher.  No instruction is copied and nothing is
 * single-stepped: the site is a NOP or a call, and the handler returns to
 * the caller, which resumes the function.
 *
 * What the handlers see is what a breakpoint at the site would show them:
 *  - pre_handler: regs->ip is the probe address + INT3_INSN_SIZE, as
 *    after the int3 trap; kprobe_running() is the probe and its status
 *    KPROBE_HIT_ACTIVE;
 *  - post_handler: regs->ip is the probe address + MCOUNT_INSN_SIZE, as
 *    after the 5-byte site was stepped over; status KPROBE_HIT_SSDONE;
 *  - every other register, flags included, is the function's at entry;
 *    regs->sp points at its return address (so kretprobes can hook it),
 *    cs is the kernel's and orig_ax is the caller's direct-call slot
 *    (0 unless a direct function is attached), which is left alone.
 *
 * Invariants:
 *  - Handlers run with preemption disabled.  No ftrace recursion lock is
 *    taken: kprobe_running() keeps a hit from re-entering a handler (see
 *    kprobe_site_handle()).
 *  - current_kprobe is this CPU's probe only between the pre_handler and
 *    the end of the post_handler, and is NULL again when we return.
 *  - A hit while a kprobe is already running on this CPU (a handler that
 *    calls a probed function, an NMI on top of a handler) runs no
 *    handler and counts as missed, on every probe of the address.  So
 *    does a hit whose frame holds no pt_regs (a site still on its way to
 *    ftrace_regs_caller while the core switches callers).
 *  - regs->ip leaves the handler as it came in, i.e. the caller resumes
 *    the function, unless the pre_handler redirected the call: it returned
 *    non-zero and moved regs->ip elsewhere.  Then the function resumes
 *    there, no post_handler runs and the probe is no longer current.  A
 *    non-zero return that leaves regs->ip on the trap address is taken as
 *    "no post_handler" only: resuming inside the 5-byte site would fault.
 *  - Once ftrace_kill() has run (kprobe_ftrace_disabled), nothing runs.
 *
 * The hit path may be neither probed (NOKPROBE_SYMBOL) nor traced
 * (notrace); the hit itself, shared with arm64, is inlined from
 * <linux/kprobe_site.h>.
 */
#include <linux/kprobe_site.h>
#include <linux/string.h>

#include <asm/text-patching.h>

/**
 * kprobe_ftrace_handler - run the kprobe at a hooked call site
 * @ip: address of the call site, which is the probe's address
 * @parent_ip: return address of the probed function
 * @ops: the kprobes ftrace_ops that matched (either one; unused)
 * @fregs: the caller's frame; a pt_regs with FTRACE_OPS_FL_SAVE_REGS
 *
 * The ftrace_ops callback of kprobes on call sites.  Runs the enabled
 * kprobe at @ip as a breakpoint there would, see the top of this file;
 * counts a miss instead when a kprobe is already running on this CPU or
 * @fregs carries no pt_regs.
 *
 * Context: any the function-hook core calls from, NMI included.
 */
void notrace kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *ops,
				   struct ftrace_regs *fregs)
{
	kprobe_site_handle(ip, parent_ip, fregs, INT3_INSN_SIZE, MCOUNT_INSN_SIZE);
}

NOKPROBE_SYMBOL(kprobe_ftrace_handler);

/**
 * arch_prepare_kprobe_ftrace - set up the arch part of a call-site kprobe
 * @p: the kprobe, with KPROBE_FLAG_FTRACE
 *
 * Such a probe never single-steps, so it owns no instruction slot and is
 * never boosted: the arch part is all zero, which also tells
 * arch_remove_kprobe() there is no slot to free.
 *
 * Return: 0.
 */
int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	memset(&p->ainsn, 0, sizeof(p->ainsn));
	return 0;
}
