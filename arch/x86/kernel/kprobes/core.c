// SPDX-License-Identifier: GPL-2.0
/*
 * x86 kprobes: the int3 hit path and arming.
 *
 * A kprobe that is not on a call site (those are ftrace.c's) puts an int3
 * over the first byte of its instruction.  A hit runs the probe's
 * pre_handler in the int3 handler, then runs the displaced instruction in
 * one of two ways, both chosen when the probe was prepared (decode.c):
 *
 *  - emulated (emulate.c): the handler applies the instruction to pt_regs,
 *    runs the post_handler and returns to the next instruction (or the
 *    branch target).  One trap.
 *  - copied: the handler clears IF in the saved flags and returns into the
 *    probe's slot, "<instruction> ; jmp kprobe_copy_return".  The
 *    trampoline (copy_64.S) saves pt_regs and calls kprobe_copy_done(),
 *    which points regs->ip after the original instruction, gives IF back,
 *    runs the post_handler and resumes there.  Also one trap: 6.12 takes a
 *    second int3 after the copy.
 *
 * Per-CPU state (current_kprobe, kprobe_ctlblk) and its invariants:
 *  - current_kprobe is set from the int3 until the instruction has run
 *    and the post_handler returned; the status says where we are:
 *    HIT_ACTIVE (pre_handler), HIT_SS (the copy is running), HIT_SSDONE
 *    (post_handler), REENTER (a nested hit's copy is running).
 *  - While a copy runs, IF is off, so nothing but an NMI or an exception
 *    of the copied instruction comes between the int3 and
 *    kprobe_copy_done() on this CPU: the per-CPU state cannot be changed
 *    under it by an interrupt handler and the task cannot migrate.
 *  - A probe hit while another one is current (a handler, or an NMI)
 *    counts as missed and runs no handler; its instruction still runs:
 *    emulated ones need no state; a copy saves the outer state in
 *    prev_kprobe (one level) for kprobe_copy_done() to restore.  A copy
 *    needed while a nested copy is running cannot be served: that is a
 *    probe inside the kprobe machinery itself, which the blacklist and
 *    NOKPROBE_SYMBOL exclude, and it ends in BUG() as in 6.12.
 *  - kprobe_copy_done() runs the post_handler inside irqentry_nmi_enter()
 *    and _exit(), as the second int3 did in 6.12: handlers see the same
 *    context (in_nmi(), RCU watching, interrupts off) either way.
 *  - A CPU running a copy has interrupts off, which holds a grace period
 *    back: a slot the core gives back after one (<linux/kprobe_batch.h>)
 *    is free at once; that of a GONE probe is freed dirty
 *    (kprobes_insn_slot.c) and reused only after synchronize_rcu().
 *
 * Every function here runs, or may run, between an int3 and the end of
 * the hit, so all of it is NOKPROBE and built without function hooks.
 */
#include <linux/entry-common.h>
#include <linux/extable.h>
#include <linux/kprobe_batch.h>
#include <linux/kprobes.h>
#include <linux/perf_event.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <asm/alternative.h>
#include <asm/ibt.h>
#include <asm/insn.h>
#include <asm/sections.h>
#include <asm/text-patching.h>

#include "common.h"

DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/* __switch_to() returns on another task's stack: no return probe there. */
struct kretprobe_blackpoint kretprobe_blacklist[] = {
	{ .name = "__switch_to" },
	{ .name = NULL },
};

const int kretprobe_blacklist_size = ARRAY_SIZE(kretprobe_blacklist);

/**
 * arch_populate_kprobe_blacklist() - keep probes off the entry code
 *
 * The system call and exception entry code runs before the kernel's
 * state (stack, %gs, CR3) can take a trap of ours.
 *
 * Return: 0, or -ENOMEM.
 */
int __init arch_populate_kprobe_blacklist(void)
{
	unsigned long start = (unsigned long)__entry_text_start;

	return kprobe_add_area_blacklist(start, (unsigned long)__entry_text_end);
}

/* --- preparing and arming --------------------------------------------- */

/* Write "<instruction> ; jmp kprobe_copy_return" into a fresh slot. */
static int fill_slot(struct kprobe *p)
{
	u8 buf[KPROBE_INSN_SLOT_SIZE];
	struct insn insn;
	int len;

	len = __copy_instruction(buf, (u8 *)p->addr, p->ainsn.insn, &insn);
	if (!len)
		return -EINVAL;
	synthesize_reljump(buf + len, p->ainsn.insn + len,
			   (void *)kprobe_copy_return);
	len += JMP32_INSN_SIZE;

	p->ainsn.tp_len = len;
	perf_event_text_poke(p->ainsn.insn, NULL, 0, buf, len);
	text_poke(p->ainsn.insn, buf, len);
	return 0;
}

/**
 * arch_prepare_kprobe() - check a breakpoint probe's place and get ready
 * @p: the probe; p->addr is set
 *
 * Context: kprobe_mutex held; the text at p->addr is not changed yet.
 *
 * Return: 0; -EINVAL on text an alternative may rewrite or an instruction
 * that cannot be copied; -EILSEQ off an instruction boundary or on an
 * instruction that traps on purpose; -EOPNOTSUPP for a transfer that can
 * be neither emulated nor copied; -ENOMEM without a slot.
 */
int arch_prepare_kprobe(struct kprobe *p)
{
	u8 orig[MAX_INSN_SIZE];
	kprobe_opcode_t *slot;
	struct insn insn;
	int err;

	if (alternatives_text_reserved(p->addr, p->addr))
		return -EINVAL;

	err = kprobe_decode_probed(p, &insn, orig);
	if (err)
		return err;
	p->opcode = orig[0];
	if (p->ainsn.kind != KX_COPY)
		return 0;

	slot = get_insn_slot();
	if (!slot)
		return -ENOMEM;
	p->ainsn.insn = slot;
	err = fill_slot(p);
	if (!err)
		return 0;
	/* Nothing ever ran in it: clean. */
	p->ainsn.insn = NULL;
	free_insn_slot(slot, 0);
	return err;
}

/*
 * Write @now over the first byte of @p's instruction, which holds @was,
 * make every CPU see it, and tell perf.
 */
static void set_first_byte(struct kprobe *p, u8 was, u8 now)
{
	text_poke(p->addr, &now, 1);
	text_poke_sync();
	perf_event_text_poke(p->addr, &was, 1, &now, 1);
}

/**
 * arch_arm_kprobe() - put the int3 in place
 * @p: a prepared probe
 *
 * Context: text_mutex held.
 */
void arch_arm_kprobe(struct kprobe *p)
{
	set_first_byte(p, p->opcode, INT3_INSN_OPCODE);
}

/*
 * The probes of one page whose first byte text_poke_custom() sets: to
 * int3 if @arm, else back to the instruction's own.
 */
struct kp_page_arm {
	struct kprobe	**ps;
	unsigned int	n;
	bool		arm;
};

/*
 * @text is the writable alias of the first probe's address.  Like the
 * call-site batch's writer (ftrace_batch.c), not instrumented: the alias
 * is in the poking mm, which has no KASAN shadow.
 */
static void __no_sanitize_address kp_page_fill(void *text, const void *arg,
					       size_t len)
{
	const struct kp_page_arm *w = arg;
	unsigned long first = (unsigned long)w->ps[0]->addr;
	struct kprobe *p;
	unsigned int i;

	for (i = 0; i < w->n; i++) {
		p = w->ps[i];
		((u8 *)text)[(unsigned long)p->addr - first] =
			w->arm ? INT3_INSN_OPCODE : p->opcode;
	}
}
/* It runs with interrupts off and the poking mm loaded: no int3 in it. */
NOKPROBE_SYMBOL(kp_page_fill);

static int kp_cmp_addr(const void *a, const void *b)
{
	unsigned long x = (unsigned long)(*(struct kprobe * const *)a)->addr;
	unsigned long y = (unsigned long)(*(struct kprobe * const *)b)->addr;

	return x < y ? -1 : x > y;
}

/*
 * Set the first byte of each of @n probes to int3 (@arm) or back to the
 * instruction's: the probes of one page under one mapping of it, then one
 * text_poke_sync() for all, where set_first_byte() makes one each.  Each
 * byte is the first of an instruction, so a CPU sees the old instruction
 * or the new one, never a mix, whichever order the writes reach it in;
 * after the sync no CPU is still inside an int3 handler entered before
 * it (the sync's IPI waits for each CPU to take interrupts again).
 */
static void kp_set_first_bytes(struct kprobe **ps, unsigned int n, bool arm)
{
	u8 int3 = INT3_INSN_OPCODE;
	struct kp_page_arm w = { .arm = arm };
	unsigned long first;
	unsigned int i, j;

	sort(ps, n, sizeof(*ps), kp_cmp_addr, NULL);
	for (i = 0; i < n; i = j) {
		first = (unsigned long)ps[i]->addr;
		for (j = i + 1; j < n; j++) {
			if (((unsigned long)ps[j]->addr ^ first) & PAGE_MASK)
				break;
		}
		w.ps = ps + i;
		w.n = j - i;
		text_poke_custom(kp_page_fill, ps[i]->addr, &w,
				 (unsigned long)ps[j - 1]->addr - first + 1);
	}
	text_poke_sync();
	for (i = 0; i < n; i++) {
		if (arm)
			perf_event_text_poke(ps[i]->addr, &ps[i]->opcode, 1, &int3, 1);
		else
			perf_event_text_poke(ps[i]->addr, &int3, 1, &ps[i]->opcode, 1);
	}
}

/**
 * arch_arm_kprobes() - put the int3s of several probes in place
 * @ps: the probes, prepared and not armed; reordered by address
 * @n: how many
 *
 * Context: text_mutex held.
 */
void arch_arm_kprobes(struct kprobe **ps, unsigned int n)
{
	kp_set_first_bytes(ps, n, true);
}

/**
 * arch_disarm_kprobe() - give the instruction its first byte back
 * @p: an armed probe
 *
 * Context: text_mutex held.  A CPU that already trapped on the int3
 * finishes its hit: the generic core keeps @p until a grace period later.
 */
void arch_disarm_kprobe(struct kprobe *p)
{
	set_first_byte(p, INT3_INSN_OPCODE, p->opcode);
}

/**
 * arch_disarm_kprobes() - give several instructions their first byte back
 * @ps: armed probes, in the table; reordered by address
 * @n: how many
 *
 * Context: text_mutex held.  As arch_disarm_kprobe(), for all of them
 * with one text_poke_sync().
 */
void arch_disarm_kprobes(struct kprobe **ps, unsigned int n)
{
	kp_set_first_bytes(ps, n, false);
}

/**
 * arch_remove_kprobe() - free what arch_prepare_kprobe() took
 * @p: a probe that is disarmed and out of the table
 */
void arch_remove_kprobe(struct kprobe *p)
{
	kprobe_opcode_t *slot = p->ainsn.insn;

	if (!slot)
		return;
	p->ainsn.insn = NULL;
	/* perf hears of the copy going before the slot can be reused. */
	perf_event_text_poke(slot, slot, p->ainsn.tp_len, NULL, 0);
	/* Only a GONE probe's copy may still be running (see the top). */
	free_insn_slot(slot, kprobe_gone(p));
}

/**
 * arch_adjust_kprobe_addr() - where a probe on "symbol+offset" goes
 * @addr: the symbol's address
 * @offset: the offset asked for
 * @on_func_entry: set when the result is the function's entry
 *
 * With IBT a function starts with endbr64, which must stay: a probe at
 * offset 0 goes after it, and offset 4 is the entry too.
 *
 * Return: the address, or NULL when @addr cannot be read.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry)
{
	u32 first;

	if (copy_from_kernel_nofault(&first, (void *)addr, sizeof(first)))
		return NULL;

	if (!is_endbr(first)) {
		*on_func_entry = offset == 0;
		return (kprobe_opcode_t *)(addr + offset);
	}
	*on_func_entry = offset == 0 || offset == ENDBR_INSN_SIZE;
	if (*on_func_entry)
		offset = ENDBR_INSN_SIZE;
	return (kprobe_opcode_t *)(addr + offset);
}

/**
 * arch_trampoline_kprobe() - is a probe the arch's own return trampoline
 * @p: a probe
 *
 * Return: 0: return probes on x86 use no kprobe of their own.
 */
int arch_trampoline_kprobe(struct kprobe *p)
{
	return 0;
}

/**
 * arch_init_kprobes() - boot-time set-up of the arch part
 *
 * Return: 0: the slot trampoline and the int3 hook need none.
 */
int __init arch_init_kprobes(void)
{
	return 0;
}

/* --- the hit ------------------------------------------------------------ */

static __always_inline void enter_hit(struct kprobe *p, struct pt_regs *regs,
				      struct kprobe_ctlblk *kcb,
				      unsigned long status)
{
	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = status;
	kcb->saved_if = regs->flags & X86_EFLAGS_IF;
}

static void push_outer(struct kprobe_ctlblk *kcb)
{
	kcb->prev_kprobe.kp = kprobe_running();
	kcb->prev_kprobe.status = kcb->kprobe_status;
	kcb->prev_kprobe.saved_if = kcb->saved_if;
}
NOKPROBE_SYMBOL(push_outer);

static void pop_outer(struct kprobe_ctlblk *kcb)
{
	__this_cpu_write(current_kprobe, kcb->prev_kprobe.kp);
	kcb->kprobe_status = kcb->prev_kprobe.status;
	kcb->saved_if = kcb->prev_kprobe.saved_if;
	kcb->prev_kprobe.kp = NULL;
}
NOKPROBE_SYMBOL(pop_outer);

/* The hit's last step: status SSDONE, the post_handler, nothing current. */
static __always_inline void finish_hit(struct kprobe *p, struct pt_regs *regs,
				       struct kprobe_ctlblk *kcb)
{
	kprobe_post_handler_t post;

	kcb->kprobe_status = KPROBE_HIT_SSDONE;
	post = READ_ONCE(p->post_handler);
	if (post)
		post(p, regs, 0);
	reset_current_kprobe();
}

/* Send the CPU into @p's copy, interrupts off. */
static __always_inline void run_copy(struct kprobe *p, struct pt_regs *regs)
{
	regs->flags &= ~X86_EFLAGS_IF;
	regs->ip = (unsigned long)p->ainsn.insn;
}

/*
 * A hit whose handlers ran (or that has none): run the instruction.  A
 * jump-optimized probe whose int3 is still there detours instead.
 */
static __always_inline void run_displaced(struct kprobe *p,
					  struct pt_regs *regs,
					  struct kprobe_ctlblk *kcb)
{
	if (unlikely(p->flags & KPROBE_FLAG_OPTIMIZED) &&
	    setup_detour_execution(p, regs, 0))
		return;
	if (p->ainsn.kind != KX_COPY) {
		kprobe_emulate(p, regs);
		finish_hit(p, regs, kcb);
		return;
	}
	kcb->kprobe_status = KPROBE_HIT_SS;
	run_copy(p, regs);
}

/* @p was hit while another probe is current on this CPU. */
static int nested_hit(struct kprobe *p, struct pt_regs *regs,
		      struct kprobe_ctlblk *kcb)
{
	kprobes_inc_nmissed_count(p);

	if (setup_detour_execution(p, regs, 1))
		return 1;
	if (p->ainsn.kind != KX_COPY) {
		kprobe_emulate(p, regs);
		return 1;
	}
	if (kcb->kprobe_status == KPROBE_REENTER) {
		pr_err("kprobes: a copy was needed inside a nested copy\n");
		dump_kprobe(p);
		BUG();
	}
	push_outer(kcb);
	enter_hit(p, regs, kcb, KPROBE_REENTER);
	run_copy(p, regs);
	return 1;
}
NOKPROBE_SYMBOL(nested_hit);

/**
 * kprobe_int3_handler() - the int3 trap's kprobe part
 * @regs: the trapped registers; regs->ip is one byte past the int3
 *
 * Context: exc_int3() from kernel mode, interrupts off, NMI-like.
 *
 * Return: 1 when the int3 was a kprobe's and is handled, 0 when it is
 * someone else's.
 */
int kprobe_int3_handler(struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb;
	struct kprobe *p;

	if (user_mode(regs))
		return 0;

	p = get_kprobe((kprobe_opcode_t *)(regs->ip - INT3_INSN_SIZE));
	if (!p)
		return 0;

	kcb = get_kprobe_ctlblk();
	if (kprobe_running())
		return nested_hit(p, regs, kcb);

	enter_hit(p, regs, kcb, KPROBE_HIT_ACTIVE);
	/* A pre_handler that returns non-zero has chosen where to resume. */
	if (p->pre_handler && p->pre_handler(p, regs)) {
		reset_current_kprobe();
		return 1;
	}
	run_displaced(p, regs, kcb);
	return 1;
}
NOKPROBE_SYMBOL(kprobe_int3_handler);

/**
 * kprobe_copy_done() - the copy ran; finish the hit
 * @regs: what copy_64.S saved: the registers after the instruction, with
 *	ip and sp not filled in; two words above it receive the flags and
 *	the address the trampoline leaves with
 *
 * Context: kprobe_copy_return, interrupts off, current_kprobe set.
 */
__visible void kprobe_copy_done(struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	unsigned long *leave = (unsigned long *)(regs + 1);
	struct kprobe *p = kprobe_running();
	irqentry_state_t irq;

	regs->sp = (unsigned long)(leave + 2);
	regs->ip = (unsigned long)p->addr + p->ainsn.len;
	regs->flags |= kcb->saved_if;

	if (kcb->kprobe_status == KPROBE_REENTER) {
		pop_outer(kcb);
	} else {
		irq = irqentry_nmi_enter(regs);
		finish_hit(p, regs, kcb);
		irqentry_nmi_exit(regs, irq);
	}

	leave[0] = regs->flags;
	leave[1] = regs->ip;
}
NOKPROBE_SYMBOL(kprobe_copy_done);

/**
 * kprobe_fault_handler() - an exception while a probe is current
 * @regs: the registers of the faulting context
 * @trapnr: the exception
 *
 * When the copied instruction itself faulted, the fault is handed on as
 * if it happened at the original address, with the interrupt flag the
 * probed code had: the exception table and the page fault handler know
 * that address, not the slot's.  The hit ends there (no post_handler);
 * if the fault is fixed up and the instruction retried, the probe is hit
 * again.
 *
 * Context: the exception handler, preemption off.
 *
 * Return: 0: the kernel handles the fault as usual.
 */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *p = kprobe_running();

	if (!p || !p->ainsn.insn || regs->ip != (unsigned long)p->ainsn.insn)
		return 0;
	if (kcb->kprobe_status != KPROBE_HIT_SS &&
	    kcb->kprobe_status != KPROBE_REENTER)
		return 0;

	regs->ip = (unsigned long)p->addr;
	regs->flags |= kcb->saved_if;
	if (kcb->kprobe_status == KPROBE_REENTER)
		pop_outer(kcb);
	else
		reset_current_kprobe();
	return 0;
}
NOKPROBE_SYMBOL(kprobe_fault_handler);
