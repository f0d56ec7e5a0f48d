// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 kprobes: the breakpoint, the hit and what follows it.
 *
 * Arming a probe writes BRK #KPROBES_BRK_IMM over the probed instruction,
 * always through stop_machine (one for all the probes of a core batch,
 * arch_arm_kprobes()): the architecture lets a running CPU see a word
 * change only between a few kinds of instruction, and the probed one may
 * be of any kind.  The BRK brings the CPU to kprobe_brk_handler(),
 * which runs the pre_handler, then the instruction the BRK displaced,
 * then the post_handler.  decode-insn.c chose at registration how that
 * instruction runs:
 *
 *  simulated  it reads the pc, or it only computes on general registers
 *             and flags: the handler redoes it on the pt_regs
 *             (simulate-insn.c, emulate-insn.c) and the hit ends in the
 *             same exception;
 *  stepped    a copy runs out of line, in the probe's XOL slot, which
 *             holds [copy][BRK #KPROBES_BRK_SS_IMM].  The BRK exception
 *             returns into the slot; the slot's BRK brings the CPU to
 *             kprobe_ss_brk_handler(), which sends it on after the probe.
 *
 * Per-CPU state, only ever touched by its own CPU: current_kprobe and
 * kprobe_ctlblk.  Its status tells where the CPU is in a hit:
 *
 *  current_kprobe  kprobe_status  the CPU is running
 *  NULL            (stale)        no kprobe
 *  the probe       HIT_ACTIVE     its pre_handler
 *  the probe       HIT_SS         its instruction: being simulated, or
 *                                 the copy between the two BRKs
 *  the probe       HIT_SSDONE     its post_handler
 *  the inner probe REENTER        the instruction of a probe hit while
 *                                 another was running; prev_kprobe holds
 *                                 the outer one's state
 *
 * Invariants:
 *  - The handlers run in the BRK exception at EL1, with all of DAIF
 *    masked and without a lock: nothing else on this CPU runs until they
 *    return, except what they call and synchronous exceptions (a handler
 *    that hits a probe, a fault).
 *  - While the pc is in a slot, regs->pstate has all of DAIF set: no
 *    interrupt, not even a pseudo-NMI or a debug exception, can run on
 *    the CPU between the two BRKs and find the state half done.  The
 *    interrupted context's DAIF bits wait in kcb->saved_irqflag (the
 *    outer probe's in prev_kprobe.saved_irqflag while one is nested);
 *    they go back when the step ends, by the slot's BRK or by a fault.
 *  - One level of nesting: a probe hit in HIT_ACTIVE, HIT_SS or
 *    HIT_SSDONE (from a handler, from a kretprobe handler, from a
 *    call-site kprobe's handlers, or by an SDEI event in the slot) runs
 *    no handler and counts as missed; only its instruction runs, in
 *    REENTER.  A probe hit in REENTER has nowhere to keep the state and
 *    stops the kernel.
 *  - A fault taken by the copy in the slot ends the step as if it had
 *    never begun: pc back on the probe, DAIF as it was, state popped.
 *    The fault is then handled as the probed instruction's own; if the
 *    instruction is retried, the probe hits again.
 *  - The handlers leave PSTATE.BTYPE clear.  The BRK took the place of
 *    the instruction the branch landed on, and BRK is a valid landing
 *    pad, so the check was made; what runs next is not a branch target.
 *  - The probe and its slot outlive every hit: they are freed after an
 *    RCU grace period (kernel/kprobes_internal.h), and a hit runs with
 *    interrupts masked, which is a read side.
 *
 * The hit path is in .kprobes.text (no kprobe goes there) and built
 * without the function tracer (see the Makefile).
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/execmem.h>
#include <linux/export.h>
#include <linux/extable.h>
#include <linux/kprobe_batch.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/set_memory.h>
#include <linux/slab.h>

#include <asm/daifflags.h>
#include <asm/debug-monitors.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/sections.h>

#include "decode-insn.h"

DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);
#if IS_MODULE(CONFIG_ARM64_KPROBES_INSN_KUNIT_TEST)
/* The suite checks the state its handlers run in. */
EXPORT_PER_CPU_SYMBOL_GPL(current_kprobe);
EXPORT_PER_CPU_SYMBOL_GPL(kprobe_ctlblk);
#endif

/**
 * alloc_insn_page - allocate a page of XOL slots
 *
 * execmem maps it read-only and executable; set_memory_rox() also makes
 * its linear-map alias read-only.  Slots are written through the
 * patching fixmap (aarch64_insn_patch_text_nosync()).
 *
 * Return: the page, or NULL.
 */
void *alloc_insn_page(void)
{
	void *page = execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);

	if (page && set_memory_rox((unsigned long)page, 1)) {
		execmem_free(page);
		page = NULL;
	}
	return page;
}

/*
 * Fill the XOL slot of @p.  No CPU runs the slot before the probe's BRK
 * is armed, and arming interrupts every CPU (stop_machine), so the
 * cache maintenance of the two writes is all they need.
 */
static int kp_fill_slot(struct kprobe *p)
{
	kprobe_opcode_t *slot = p->ainsn.api.insn;
	int ret;

	ret = aarch64_insn_patch_text_nosync(slot, p->opcode);
	if (!ret)
		ret = aarch64_insn_patch_text_nosync(slot + 1,
						     BRK64_OPCODE_KPROBES_SS);
	return ret;
}

/**
 * arch_prepare_kprobe - decode the probed instruction and set up its run
 * @p: the probe, ->addr set
 *
 * Refuses a misaligned address, an instruction with an exception table
 * entry (its fixup would be looked up at the slot's address) and what
 * decode-insn.c refuses.  A stepped instruction gets an XOL slot and
 * ->ainsn.api.restore, where the pc goes after it; a simulated one gets
 * ->ainsn.api.handler.
 *
 * Context: process context, under kprobe_mutex.
 * Return: 0, -EINVAL for a probe that cannot go at @p->addr, -ENOMEM.
 */
int arch_prepare_kprobe(struct kprobe *p)
{
	unsigned long where = (unsigned long)p->addr;
	struct arch_probe_insn *api = &p->ainsn.api;
	enum probe_insn how;

	if (!IS_ALIGNED(where, AARCH64_INSN_SIZE) ||
	    search_exception_tables(where))
		return -EINVAL;

	api->insn = NULL;
	api->restore = 0;
	p->opcode = le32_to_cpu(READ_ONCE(*p->addr));
	how = arm_kprobe_decode_insn(p->addr, &p->ainsn);
	if (how == INSN_REJECTED)
		return -EINVAL;
	if (how == INSN_GOOD_NO_SLOT)
		return 0;

	api->insn = get_insn_slot();
	if (!api->insn)
		return -ENOMEM;
	if (kp_fill_slot(p)) {
		free_insn_slot(api->insn, 0);
		api->insn = NULL;
		return -EINVAL;
	}
	api->restore = where + AARCH64_INSN_SIZE;
	return 0;
}

/*
 * Replace the word at @p's address by @insn while every other CPU waits
 * in stop_machine (aarch64_insn_patch_text()); each of them synchronizes
 * its instruction stream before it goes on.
 */
static void __kprobes kp_rewrite(struct kprobe *p, u32 insn)
{
	void *site[] = { p->addr };

	WARN_ONCE(aarch64_insn_patch_text(site, &insn, 1),
		  "kprobes: cannot write the text at %pS\n", p->addr);
}

/**
 * arch_arm_kprobe - put the probe's BRK over the probed instruction
 * @p: a prepared probe
 *
 * Context: cpus_read_lock() and text_mutex held.
 */
void __kprobes arch_arm_kprobe(struct kprobe *p)
{
	kp_rewrite(p, BRK64_OPCODE_KPROBES);
}

/*
 * BRKs written under one stop_machine: every other CPU spins with
 * interrupts off while each is mapped, written and cleaned to the point
 * of unification, a few microseconds apiece.
 */
#define KP_BRKS_PER_STOP	256

/*
 * Write a BRK over each of @n probes' instructions (@arm), or each
 * instruction back, up to KP_BRKS_PER_STOP under one stop_machine where
 * kp_rewrite() takes one each.  A group whose write fails part way is
 * written again one by one, each failure warned about as kp_rewrite()
 * does; so is every probe without memory for a group.
 */
static void __kprobes kp_rewrite_many(struct kprobe **ps, unsigned int n,
				      bool arm)
{
	bool lists;
	void **addrs;
	u32 *insns;
	unsigned int i, k, m;

	addrs = kmalloc_array(KP_BRKS_PER_STOP, sizeof(*addrs),
			      GFP_KERNEL | __GFP_NOWARN);
	insns = kmalloc_array(KP_BRKS_PER_STOP, sizeof(*insns),
			      GFP_KERNEL | __GFP_NOWARN);
	lists = addrs && insns;
	for (i = 0; i < n; i += m) {
		m = min(n - i, KP_BRKS_PER_STOP);
		for (k = 0; lists && k < m; k++) {
			addrs[k] = ps[i + k]->addr;
			insns[k] = arm ? BRK64_OPCODE_KPROBES : ps[i + k]->opcode;
		}
		if (lists && !aarch64_insn_patch_text(addrs, insns, m))
			continue;
		for (k = 0; k < m; k++)
			kp_rewrite(ps[i + k], arm ? BRK64_OPCODE_KPROBES :
						    ps[i + k]->opcode);
	}
	kfree(insns);
	kfree(addrs);
}

/**
 * arch_arm_kprobes - put the BRKs of several probes in place
 * @ps: the probes, prepared and not armed
 * @n: how many
 *
 * Context: cpus_read_lock() and text_mutex held.
 */
void __kprobes arch_arm_kprobes(struct kprobe **ps, unsigned int n)
{
	kp_rewrite_many(ps, n, true);
}

/**
 * arch_disarm_kprobe - put the probed instruction back
 * @p: an armed probe
 *
 * When this returns no CPU will fetch the BRK again; one that had taken
 * it already still finds the probe (it is freed after a grace period).
 *
 * Context: cpus_read_lock() and text_mutex held.
 */
void __kprobes arch_disarm_kprobe(struct kprobe *p)
{
	kp_rewrite(p, p->opcode);
}

/**
 * arch_disarm_kprobes - put several probed instructions back
 * @ps: armed probes, in the table
 * @n: how many
 *
 * As arch_disarm_kprobe() on each, in groups under one stop_machine: no
 * CPU is inside a BRK handler while one runs (they run with interrupts
 * masked), so none is handling a BRK of the group when this returns.
 *
 * Context: cpus_read_lock() and text_mutex held.
 */
void __kprobes arch_disarm_kprobes(struct kprobe **ps, unsigned int n)
{
	kp_rewrite_many(ps, n, false);
}

/**
 * arch_remove_kprobe - release what arch_prepare_kprobe() took
 * @p: the probe, disarmed
 *
 * A CPU steps the slot with DAIF masked, which holds a grace period back,
 * and the core calls this a grace period after the BRK left the text
 * (<linux/kprobe_batch.h>): the slot is free at once.  A probe whose text
 * went away (GONE) is removed without that wait, so a CPU may still be
 * in its slot: that one is given back dirty, reused only after a grace
 * period.
 */
void arch_remove_kprobe(struct kprobe *p)
{
	if (!p->ainsn.api.insn)
		return;
	free_insn_slot(p->ainsn.api.insn, kprobe_gone(p));
	p->ainsn.api.insn = NULL;
}

/* --- the hit --- */

static bool __kprobes kp_stepping(struct kprobe_ctlblk *kcb)
{
	return kcb->kprobe_status == KPROBE_HIT_SS ||
	       kcb->kprobe_status == KPROBE_REENTER;
}

/* Is the pc of @regs on the word @n of @p's slot? */
static bool __kprobes kp_in_slot(struct kprobe *p, struct pt_regs *regs,
				 unsigned int n)
{
	kprobe_opcode_t *slot = p->ainsn.api.insn;

	return slot && instruction_pointer(regs) == (unsigned long)(slot + n);
}

/*
 * Send the CPU into the slot of @p with all of DAIF masked; the
 * interrupted context's DAIF bits wait in @kcb.
 */
static void __kprobes kp_enter_slot(struct kprobe *p, struct kprobe_ctlblk *kcb,
				    struct pt_regs *regs)
{
	u64 pstate = regs->pstate;

	kcb->saved_irqflag = pstate & DAIF_MASK;
	regs->pstate = pstate | DAIF_MASK;
	instruction_pointer_set(regs, (unsigned long)p->ainsn.api.insn);
}

/* The step is over: DAIF as it was before it, and the pc to @resume. */
static void __kprobes kp_leave_slot(struct kprobe_ctlblk *kcb,
				    struct pt_regs *regs, unsigned long resume)
{
	u64 kept = regs->pstate & ~(u64)DAIF_MASK;

	regs->pstate = kept | kcb->saved_irqflag;
	instruction_pointer_set(regs, resume);
}

/* @p was hit while another probe ran: keep that one's state aside. */
static void __kprobes kp_nest(struct kprobe_ctlblk *kcb, struct kprobe *p)
{
	struct prev_kprobe *outer = &kcb->prev_kprobe;

	outer->kp = kprobe_running();
	outer->status = kcb->kprobe_status;
	outer->saved_irqflag = kcb->saved_irqflag;
	kcb->kprobe_status = KPROBE_REENTER;
	__this_cpu_write(current_kprobe, p);
}

/* The nested probe is done: the outer one runs on where it was. */
static void __kprobes kp_unnest(struct kprobe_ctlblk *kcb)
{
	struct prev_kprobe *outer = &kcb->prev_kprobe;

	kcb->saved_irqflag = outer->saved_irqflag;
	kcb->kprobe_status = outer->status;
	__this_cpu_write(current_kprobe, outer->kp);
	outer->kp = NULL;
}

/* The instruction of @p has run (HIT_SS or REENTER): end the hit. */
static void __kprobes kp_insn_done(struct kprobe *p, struct kprobe_ctlblk *kcb,
				   struct pt_regs *regs)
{
	if (kcb->kprobe_status != KPROBE_REENTER) {
		kcb->kprobe_status = KPROBE_HIT_SSDONE;
		if (p->post_handler)
			p->post_handler(p, regs, 0);
		reset_current_kprobe();
		return;
	}
	/* A nested hit runs no handler: back to the probe it interrupted. */
	kp_unnest(kcb);
}

/*
 * Run the instruction of @p, status HIT_SS or REENTER already set: a
 * simulation ends the hit here, a step goes on in the slot.
 */
static void __kprobes kp_run_insn(struct kprobe *p, struct kprobe_ctlblk *kcb,
				  struct pt_regs *regs)
{
	struct arch_probe_insn *api = &p->ainsn.api;

	if (api->insn) {
		kp_enter_slot(p, kcb, regs);
		return;
	}
	api->handler(p->opcode, (long)p->addr, regs);
	kp_insn_done(p, kcb, regs);
}

static void __kprobes kp_reenter(struct kprobe *p, struct kprobe_ctlblk *kcb,
				 struct pt_regs *regs)
{
	if (kcb->kprobe_status == KPROBE_REENTER) {
		pr_emerg("%pS hit while the instruction of %pS ran\n",
			 p->addr, kprobe_running()->addr);
		dump_kprobe(p);
		BUG();
	}
	kprobes_inc_nmissed_count(p);
	kp_nest(kcb, p);
	kp_run_insn(p, kcb, regs);
}

/*
 * A kprobe BRK without a probe.  If the word is no longer our BRK, a
 * disarm raced with this CPU's fetch: run what is there now.
 */
static int __kprobes kp_stray_brk(kprobe_opcode_t *addr)
{
	if (le32_to_cpu(READ_ONCE(*addr)) != BRK64_OPCODE_KPROBES)
		return DBG_HOOK_HANDLED;
	WARN_ONCE(1, "kprobes: BRK at %pS belongs to no kprobe\n", addr);
	return DBG_HOOK_ERROR;
}

/**
 * kprobe_brk_handler - a kprobe's BRK was hit
 * @regs: the state at the BRK, pc on the probe
 * @esr: the exception syndrome (unused)
 *
 * Runs the pre_handler, unless another probe runs on this CPU (see the
 * top of this file), then the probed instruction.  A pre_handler that
 * returns non-zero has moved the pc itself: the instruction and the
 * post_handler are skipped.
 *
 * Context: BRK exception at EL1, DAIF masked.
 * Return: DBG_HOOK_HANDLED, or DBG_HOOK_ERROR if no probe owns the BRK.
 */
int __kprobes kprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	kprobe_opcode_t *addr = (kprobe_opcode_t *)instruction_pointer(regs);
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *p = get_kprobe(addr);

	if (!p)
		return kp_stray_brk(addr);

	regs->pstate &= ~PSR_BTYPE_MASK;
	if (kprobe_running()) {
		kp_reenter(p, kcb, regs);
		return DBG_HOOK_HANDLED;
	}

	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	if (p->pre_handler && p->pre_handler(p, regs)) {
		reset_current_kprobe();
		return DBG_HOOK_HANDLED;
	}
	kcb->kprobe_status = KPROBE_HIT_SS;
	kp_run_insn(p, kcb, regs);
	return DBG_HOOK_HANDLED;
}

/**
 * kprobe_ss_brk_handler - the BRK after a stepped copy was hit
 * @regs: the state after the copy ran, pc on the slot's second word
 * @esr: the exception syndrome (unused)
 *
 * Puts back the DAIF bits the step masked and the pc after the probe,
 * then ends the hit (post_handler, or back to the outer probe).
 *
 * Context: BRK exception at EL1, DAIF masked.
 * Return: DBG_HOOK_HANDLED, or DBG_HOOK_ERROR if this CPU is not in the
 * step of the slot the BRK is in.
 */
int __kprobes kprobe_ss_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *p = kprobe_running();

	if (!p || !kp_stepping(kcb) || !kp_in_slot(p, regs, 1))
		return DBG_HOOK_ERROR;

	kp_leave_slot(kcb, regs, p->ainsn.api.restore);
	kp_insn_done(p, kcb, regs);
	return DBG_HOOK_HANDLED;
}

/**
 * kprobe_fault_handler - a fault was taken while a kprobe ran
 * @regs: the state at the fault
 * @fsr: the fault syndrome (unused)
 *
 * Only a fault of a stepped copy is ours: the step is undone (pc on the
 * probe, DAIF as before the hit, the probe no longer running), so that
 * the fault is handled, fixed up or reported at the probed address.
 * Faults elsewhere (in a handler) are left as they are.
 *
 * Context: the fault's exception, before the fault is handled.
 * Return: 0, the fault still has to be handled.
 */
int __kprobes kprobe_fault_handler(struct pt_regs *regs, unsigned int fsr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *p = kprobe_running();

	if (!p || !kp_stepping(kcb) || !kp_in_slot(p, regs, 0))
		return 0;

	kp_leave_slot(kcb, regs, (unsigned long)p->addr);
	if (kcb->kprobe_status == KPROBE_REENTER)
		kp_unnest(kcb);
	else
		reset_current_kprobe();
	return 0;
}

/* --- where probes may go --- */

/**
 * arch_populate_kprobe_blacklist - refuse arm64's code where a BRK breaks
 *
 * The exception entry code (a BRK there would recurse before any state
 * is saved) and the hypervisor's code, which runs at EL2 where the
 * kernel's BRK handler is not.  .kprobes.text is refused by the core.
 *
 * Return: 0 or the error of the first range that could not be added.
 */
int __init arch_populate_kprobe_blacklist(void)
{
	static char *const ranges[][2] __initconst = {
		{ __entry_text_start,		__entry_text_end },
		{ __irqentry_text_start,	__irqentry_text_end },
		{ __hyp_text_start,		__hyp_text_end },
		{ __hyp_idmap_text_start,	__hyp_idmap_text_end },
	};
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < ARRAY_SIZE(ranges); i++)
		ret = kprobe_add_area_blacklist((unsigned long)ranges[i][0],
						(unsigned long)ranges[i][1]);
	return ret;
}

/**
 * arch_init_kprobes - arm64 set-up at kprobes initialization
 *
 * The BRK handlers are called directly by the debug exception code
 * (call_el1_break_hook()); nothing is registered.
 *
 * Return: 0.
 */
int __init arch_init_kprobes(void)
{
	return 0;
}
