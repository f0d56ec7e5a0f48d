// SPDX-License-Identifier: GPL-2.0
/*
 * uprobes on x86-64: emulate the instructions functions usually start with.
 *
 * A uprobe hit normally costs two traps: the int3 at the probed address
 * and, after the handlers, a single step of a copy of the instruction in
 * the task's XOL page.  The first instruction of most functions is one of
 * a handful of register-only forms (endbr, NOPs, mov between registers,
 * add or sub of an immediate; the list and their flag rules are in
 * insn_emul.c, shared with kprobes), whose effect the trap handler
 * applies to the saved registers directly, and the task resumes after the
 * instruction.  uprobes.c's 1-byte NOP, push, jump and call emulation is
 * unchanged.
 *
 * What the hit needs is decoded once, when the probe is analysed, into a
 * struct insn_emul, kept in struct arch_uprobe's per-kind union (which the
 * other kinds of uprobes.c use for their own state).
 */
#include <linux/build_bug.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uprobes.h>
#include <asm/insn.h>
#include <asm/insn-emul.h>

#include "uprobes_emulate.h"

static inline struct insn_emul *uemul_op_of(struct arch_uprobe *auprobe)
{
	/* The union's members are all small; ours must fit beside them. */
	BUILD_BUG_ON(sizeof(struct insn_emul) > sizeof(auprobe->branch));
	return (struct insn_emul *)&auprobe->branch;
}

/**
 * uprobe_emul_analyze() - decide whether a probed instruction is emulated
 * @auprobe: the probe; its instruction bytes are in @auprobe->insn
 * @insn: @auprobe->insn decoded in 64-bit mode
 *
 * Recognises the forms insn_emul_decode() takes and records what a hit
 * must do in @auprobe.  Called while the probe is prepared, before it can
 * be hit; the caller points @auprobe->ops at uprobe_emul_run() when this
 * returns true.
 *
 * Return: true when the instruction will be emulated, false when it is
 * left to the other ways of uprobes.c.
 */
bool uprobe_emul_analyze(struct arch_uprobe *auprobe, struct insn *insn)
{
	struct insn_emul op;

	if (!insn_emul_decode(insn, &op))
		return false;
	memcpy(uemul_op_of(auprobe), &op, sizeof(op));
	return true;
}

/**
 * uprobe_emul_run() - apply a probed instruction to the saved registers
 * @auprobe: the probe, prepared by uprobe_emul_analyze()
 * @regs: the user registers of the task at the probed address
 *
 * Called from the breakpoint trap after the probe's handlers, in place of
 * the single step: the registers become what executing the instruction
 * would have left, and the task resumes after it.  The instruction was
 * decoded for 64-bit code; a task running 32-bit code at the address gets
 * the single step (uprobe_emul_post_xol() then puts its IP back).
 *
 * Return: true when the instruction was emulated.
 */
bool uprobe_emul_run(struct arch_uprobe *auprobe, struct pt_regs *regs)
{
	const struct insn_emul *op = uemul_op_of(auprobe);

	if (unlikely(!user_64bit_mode(regs)) || op->kind == INSN_EMUL_NONE)
		return false;
	insn_emul_apply(op, regs);
	return true;
}

/**
 * uprobe_emul_post_xol() - finish a single step of an emulated-kind probe
 * @auprobe: the probe
 * @regs: the user registers after the step in the XOL slot
 *
 * Only reached when uprobe_emul_run() declined (32-bit code): none of the
 * instructions it takes transfers control or is IP-relative in effect, so
 * the task continues after the original instruction.
 *
 * Return: 0.
 */
int uprobe_emul_post_xol(struct arch_uprobe *auprobe, struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;

	regs->ip += utask->vaddr - utask->xol_vaddr;
	return 0;
}
