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
 *  - Handlers run with preemption disabled and inside the ftrace
 *    recursion lock of the current context.
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
 * (notrace); its helpers are inlined into kprobe_ftrace_handler().
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/trace_recursion.h>

#include <asm/text-patching.h>

/*
 * The kprobe to run for a hit at @site: enabled, and kprobes on call sites
 * not shut off by ftrace_kill().  NULL when there is none.
 */
static __always_inline struct kprobe *kfh_live_probe(unsigned long site)
{
	struct kprobe *p;

	if (unlikely(kprobe_ftrace_disabled))
		return NULL;
	p = get_kprobe((kprobe_opcode_t *)site);
	if (!p || kprobe_disabled(p))
		return NULL;
	return p;
}

/* One hit of @p at @site, with @regs the caller's frame or NULL. */
static __always_inline void kfh_hit(struct kprobe *p, struct pt_regs *regs,
				    unsigned long site)
{
	unsigned long trap_ip = site + INT3_INSN_SIZE;
	struct kprobe_ctlblk *kcb;
	unsigned long resume_ip;

	if (unlikely(!regs || kprobe_running())) {
		kprobes_inc_nmissed_count(p);
		return;
	}

	kcb = get_kprobe_ctlblk();
	resume_ip = regs->ip;
	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	regs->ip = trap_ip;

	if (p->pre_handler && p->pre_handler(p, regs)) {
		/* Redirected: the function resumes where the handler said. */
		if (regs->ip == trap_ip)
			regs->ip = resume_ip;
		reset_current_kprobe();
		return;
	}

	if (p->post_handler) {
		regs->ip = site + MCOUNT_INSN_SIZE;
		kcb->kprobe_status = KPROBE_HIT_SSDONE;
		p->post_handler(p, regs, 0);
	}
	regs->ip = resume_ip;
	reset_current_kprobe();
}

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
	struct kprobe *p;
	int rbit;

	/* Also keeps preemption off until the unlock. */
	rbit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (rbit < 0)
		return;

	p = kfh_live_probe(ip);
	if (p)
		kfh_hit(p, ftrace_get_regs(fregs), ip);

	ftrace_test_recursion_unlock(rbit);
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
