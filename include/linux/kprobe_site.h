/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hit of a kprobe on a function-hook call site (KPROBE_FLAG_FTRACE),
 * shared by the architectures' kprobe_ftrace_handler().  What differs
 * between them is only where a breakpoint at the site would leave the pc
 * (@trap_ip) and where stepping the site would (@step_ip); the rules are
 * stated at the top of arch/x86/kernel/kprobes/ftrace.c.
 *
 * Included only by those handlers, which may be neither probed nor traced:
 * everything here is inlined into them.
 */
#ifndef _LINUX_KPROBE_SITE_H
#define _LINUX_KPROBE_SITE_H

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>

/* The enabled kprobe at @site, unless kprobes on call sites are off. */
static __always_inline struct kprobe *kprobe_site_live(unsigned long site)
{
	struct kprobe *p;

	if (unlikely(kprobe_ftrace_disabled))
		return NULL;
	p = get_kprobe((kprobe_opcode_t *)site);
	if (!p || kprobe_disabled(p))
		return NULL;
	return p;
}

/*
 * One hit of @p, with @regs the caller's frame or NULL: the pre_handler
 * sees the pc at @trap_ip, the post_handler at @step_ip; the pc leaves as
 * it came unless the pre_handler returned non-zero after moving it.
 */
static __always_inline void kprobe_site_hit(struct kprobe *p,
					    struct pt_regs *regs,
					    unsigned long trap_ip,
					    unsigned long step_ip)
{
	struct kprobe_ctlblk *kcb;
	kprobe_post_handler_t post;
	unsigned long resume;

	if (unlikely(!regs || kprobe_running())) {
		kprobes_inc_nmissed_count(p);
		return;
	}

	kcb = get_kprobe_ctlblk();
	resume = instruction_pointer(regs);
	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	instruction_pointer_set(regs, trap_ip);

	if (p->pre_handler && p->pre_handler(p, regs)) {
		/* Redirected: the function resumes where the handler said. */
		if (instruction_pointer(regs) == trap_ip)
			instruction_pointer_set(regs, resume);
		reset_current_kprobe();
		return;
	}

	/* Read once: an aggregate's may change while a child leaves. */
	post = READ_ONCE(p->post_handler);
	if (post) {
		instruction_pointer_set(regs, step_ip);
		kcb->kprobe_status = KPROBE_HIT_SSDONE;
		post(p, regs, 0);
	}
	instruction_pointer_set(regs, resume);
	reset_current_kprobe();
}

/*
 * The body of kprobe_ftrace_handler() for a site at @ip whose trap and
 * step pcs are @ip + @trap_off and @ip + @step_off.
 *
 * No ftrace recursion lock: kprobe_running() is the recursion guard, as
 * on the breakpoint path.  Everything a hit runs before that test (this
 * header, get_kprobe()) is neither traced nor probed, so the first thing
 * that can re-enter is a handler, and a re-entry then finds its kprobe
 * running and counts a miss.  A hit in an interrupt or NMI that arrives
 * before the outer hit made its probe current runs in full and leaves
 * current_kprobe NULL again, which the outer hit then overwrites.  6.12
 * takes the lock and still counts the first re-entry as missed, so the
 * lock only added the context bookkeeping (about 25 instructions a hit);
 * what it also gave, preemption off for the table walk and the handlers,
 * is kept here.
 */
static __always_inline void kprobe_site_handle(unsigned long ip,
					       unsigned long parent_ip,
					       struct ftrace_regs *fregs,
					       unsigned int trap_off,
					       unsigned int step_off)
{
	struct kprobe *p;

	preempt_disable_notrace();
	p = kprobe_site_live(ip);
	if (p)
		kprobe_site_hit(p, ftrace_get_regs(fregs), ip + trap_off,
				ip + step_off);
	preempt_enable_notrace();
}

#endif /* _LINUX_KPROBE_SITE_H */
