// SPDX-License-Identifier: GPL-2.0
/*
 * uprobes on x86-64: emulate the instructions functions usually start with.
 *
 * A uprobe hit normally costs two traps: the int3 at the probed address
 * and, after the handlers, a single step of a copy of the instruction in
 * the task's XOL page.  The first instruction of most functions is one of
 * a handful of register-only forms, whose effect the trap handler can
 * apply to the saved registers directly and then resume the task after
 * the instruction:
 *
 *   endbr64, endbr32                    f3 0f 1e fa / fb
 *   multi-byte NOP                      [66] [REX] 0f 1f /0 (any ModRM form)
 *   mov between two registers           [REX] 89 /r, [REX] 8b /r, mod 3
 *                                       (32 bits zero-extend, 64 with W)
 *   add / sub of an immediate           [REX] 83 /0 ib, 83 /5 ib,
 *   to a register (sub $N,%rsp)         [REX] 81 /0 id, 81 /5 id, mod 3
 *
 * None of them touches memory (a NOP's memory operand is never accessed),
 * so emulation cannot fault.  add and sub compute CF, PF, AF, ZF, SF and
 * OF as the CPU does and leave every other EFLAGS bit alone; mov and the
 * NOPs leave EFLAGS alone.  Forms with other legacy prefixes (operand size
 * on mov/add/sub, lock, rep, segments) and REX2 are not taken and keep
 * the single step.  uprobes.c's 1-byte NOP, push, jump and call emulation
 * is unchanged.
 *
 * What the hit needs is decoded once, when the probe is analysed, into
 * struct uemul_op, kept in struct arch_uprobe's per-kind union (which the
 * other kinds of uprobes.c use for their own state).
 */
#include <linux/build_bug.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uprobes.h>
#include <asm/insn.h>
#include <asm/processor-flags.h>

#include "uprobes_emulate.h"

enum uemul_kind {
	UEMUL_NOP = 1,
	UEMUL_MOV,
	UEMUL_ADD,
	UEMUL_SUB,
};

/*
 * One decoded instruction.  @dst and @src index the saved registers as an
 * array of longs (struct pt_regs); @wide is 1 for a 64-bit operation and 0
 * for a 32-bit one, whose result is zero-extended; @imm is the immediate
 * as encoded (imm8 already sign-extended to 32 bits).
 */
struct uemul_op {
	u8	kind:7;
	u8	wide:1;
	u8	len;
	u8	dst;
	u8	src;
	s32	imm;
};

#define UEMUL_SLOT(reg)	(offsetof(struct pt_regs, reg) / sizeof(unsigned long))

/* Register number as x86 encodes it (REX bit included) to pt_regs slot. */
static const u8 uemul_slot[16] = {
	UEMUL_SLOT(ax), UEMUL_SLOT(cx), UEMUL_SLOT(dx), UEMUL_SLOT(bx),
	UEMUL_SLOT(sp), UEMUL_SLOT(bp), UEMUL_SLOT(si), UEMUL_SLOT(di),
	UEMUL_SLOT(r8), UEMUL_SLOT(r9), UEMUL_SLOT(r10), UEMUL_SLOT(r11),
	UEMUL_SLOT(r12), UEMUL_SLOT(r13), UEMUL_SLOT(r14), UEMUL_SLOT(r15),
};

#define UEMUL_ARITH_FLAGS	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | \
				 X86_EFLAGS_ZF | X86_EFLAGS_SF | X86_EFLAGS_OF)

static inline struct uemul_op *uemul_op_of(struct arch_uprobe *auprobe)
{
	/* The union's members are all small; ours must fit beside them. */
	BUILD_BUG_ON(sizeof(struct uemul_op) > sizeof(auprobe->branch));
	return (struct uemul_op *)&auprobe->branch;
}

/* Legacy prefixes, summarised: which of the ones we care about are there. */
#define UEMUL_PFX_OPSIZE	0x1	/* 66 */
#define UEMUL_PFX_REP		0x2	/* f3 */
#define UEMUL_PFX_SEG		0x4	/* 64, 65 (fs:, gs:) */
#define UEMUL_PFX_OTHER		0x8	/* anything else */

static unsigned int uemul_prefixes(struct insn *insn)
{
	unsigned int seen = 0;
	insn_byte_t p;
	int i;

	for_each_insn_prefix(insn, i, p) {
		switch (p) {
		case 0x66:
			seen |= UEMUL_PFX_OPSIZE;
			break;
		case 0xf3:
			seen |= UEMUL_PFX_REP;
			break;
		case 0x64:
		case 0x65:
			seen |= UEMUL_PFX_SEG;
			break;
		default:
			seen |= UEMUL_PFX_OTHER;
			break;
		}
	}
	return seen;
}

/**
 * uprobe_emul_analyze() - decide whether a probed instruction is emulated
 * @auprobe: the probe; its instruction bytes are in @auprobe->insn
 * @insn: @auprobe->insn decoded in 64-bit mode
 *
 * Recognises the forms listed at the top of this file and records what a
 * hit must do in @auprobe.  Called while the probe is prepared, before it
 * can be hit; the caller points @auprobe->ops at uprobe_emul_run() when
 * this returns true.
 *
 * Return: true when the instruction will be emulated, false when it is
 * left to the other ways of uprobes.c.
 */
bool uprobe_emul_analyze(struct arch_uprobe *auprobe, struct insn *insn)
{
	struct uemul_op op = { .len = insn->length };
	u8 rex = 0, modrm, reg, rm, opc = insn->opcode.bytes[0];
	unsigned int pfx;

	/*
	 * An emulate prefix (ud2 and "xen" or "kvm") makes the decoder
	 * describe the instruction behind it, but the CPU runs the ud2.
	 */
	if (insn->emulate_prefix_size || insn->vex_prefix.nbytes ||
	    insn->rex_prefix.nbytes > 1 || insn->modrm.nbytes != 1)
		return false;
	if (insn->rex_prefix.nbytes)
		rex = insn->rex_prefix.bytes[0];
	modrm = insn->modrm.bytes[0];
	reg = X86_MODRM_REG(modrm) | (X86_REX_R(rex) ? 8 : 0);
	rm = X86_MODRM_RM(modrm) | (X86_REX_B(rex) ? 8 : 0);
	pfx = uemul_prefixes(insn);

	if (insn->opcode.nbytes == 2 && opc == 0x0f) {
		switch (insn->opcode.bytes[1]) {
		case 0x1e:	/* endbr64 / endbr32: f3 and nothing else */
			if (pfx != UEMUL_PFX_REP || rex ||
			    (modrm != 0xfa && modrm != 0xfb))
				return false;
			break;
		case 0x1f:	/* nop r/m, /0 only */
			if (pfx & ~(UEMUL_PFX_OPSIZE | UEMUL_PFX_SEG) ||
			    X86_MODRM_REG(modrm) != 0)
				return false;
			break;
		default:
			return false;
		}
		op.kind = UEMUL_NOP;
		goto found;
	}

	/* mov, add and sub: register operands only, 32 or 64 bits wide. */
	if (insn->opcode.nbytes != 1 || pfx || X86_MODRM_MOD(modrm) != 3)
		return false;
	op.wide = X86_REX_W(rex) ? 1 : 0;

	switch (opc) {
	case 0x89:	/* mov reg, r/m */
		op.kind = UEMUL_MOV;
		op.src = uemul_slot[reg];
		op.dst = uemul_slot[rm];
		break;
	case 0x8b:	/* mov r/m, reg */
		op.kind = UEMUL_MOV;
		op.src = uemul_slot[rm];
		op.dst = uemul_slot[reg];
		break;
	case 0x81:	/* group 1, imm32 */
	case 0x83:	/* group 1, imm8 */
		if (X86_MODRM_REG(modrm) == 0)
			op.kind = UEMUL_ADD;
		else if (X86_MODRM_REG(modrm) == 5)
			op.kind = UEMUL_SUB;
		else
			return false;
		op.dst = uemul_slot[rm];
		op.imm = insn->immediate.value;
		break;
	default:
		return false;
	}

found:
	memcpy(uemul_op_of(auprobe), &op, sizeof(op));
	return true;
}

/* PF: set when the low byte of the result has an even number of ones. */
static inline unsigned long uemul_parity(unsigned long res)
{
	u8 b = res;

	b ^= b >> 4;
	b ^= b >> 2;
	b ^= b >> 1;
	return (b & 1) ? 0 : X86_EFLAGS_PF;
}

/*
 * add or sub of @b to @a at the operation's width; the new arithmetic
 * flags are merged into *@flags.  The carry and overflow tests work on the
 * operands and result truncated to the width, the sign bit being the
 * width's top bit.
 */
static unsigned long uemul_arith(const struct uemul_op *op, unsigned long a,
				 unsigned long *flags)
{
	unsigned long mask = op->wide ? ~0UL : 0xffffffffUL;
	unsigned int top = op->wide ? 63 : 31;
	unsigned long b = (unsigned long)(long)op->imm & mask;
	unsigned long res, f = 0;
	bool sub = op->kind == UEMUL_SUB;

	a &= mask;
	res = (sub ? a - b : a + b) & mask;

	if (sub ? a < b : res < a)
		f |= X86_EFLAGS_CF;
	f |= uemul_parity(res);
	if ((a ^ b ^ res) & 0x10)
		f |= X86_EFLAGS_AF;
	if (!res)
		f |= X86_EFLAGS_ZF;
	if ((res >> top) & 1)
		f |= X86_EFLAGS_SF;
	/*
	 * Signed overflow: for add, both operands have one sign and the
	 * result the other; for sub, the operands differ in sign and the
	 * result's sign is not the minuend's.
	 */
	if (((sub ? (a ^ b) & (a ^ res) : (a ^ res) & (b ^ res)) >> top) & 1)
		f |= X86_EFLAGS_OF;

	*flags = (*flags & ~UEMUL_ARITH_FLAGS) | f;
	return res;
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
	const struct uemul_op *op = uemul_op_of(auprobe);
	unsigned long *slot = (unsigned long *)regs;
	unsigned long val;

	if (unlikely(!user_64bit_mode(regs)))
		return false;

	switch (op->kind) {
	case UEMUL_NOP:
		break;
	case UEMUL_MOV:
		val = slot[op->src];
		slot[op->dst] = op->wide ? val : (u32)val;
		break;
	case UEMUL_ADD:
	case UEMUL_SUB:
		slot[op->dst] = uemul_arith(op, slot[op->dst], &regs->flags);
		break;
	default:
		return false;
	}
	regs->ip += op->len;
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
