// SPDX-License-Identifier: GPL-2.0
/*
 * Register-only x86-64 instructions, applied to a struct pt_regs.
 *
 * A probe that stops at one of these needs neither a single step nor a
 * copy of the instruction: the trap handler applies its effect to the
 * saved registers and resumes after it.  Both probe kinds use this file:
 * uprobes (uprobes_emulate.c, user registers) and kprobes
 * (kprobes/emulate.c, kernel registers).  The forms taken:
 *
 *   endbr64, endbr32                    f3 0f 1e fa / fb
 *   multi-byte NOP                      [66] [REX] 0f 1f /0 (any ModRM form)
 *   mov between two registers           [REX] 89 /r, [REX] 8b /r, mod 3
 *                                       (32 bits zero-extend, 64 with W)
 *   add / sub of an immediate           [REX] 83 /0 ib, 83 /5 ib,
 *   to a register (sub $N,%rsp)         [REX] 81 /0 id, 81 /5 id, mod 3
 *
 * None of them touches memory (a NOP's memory operand is never accessed),
 * so applying one cannot fault.  add and sub compute CF, PF, AF, ZF, SF
 * and OF as the CPU does and leave every other RFLAGS bit alone; mov and
 * the NOPs leave RFLAGS alone.  Forms with other legacy prefixes (operand
 * size on mov/add/sub, lock, rep, segments) and REX2 are not taken.
 *
 * Context: insn_emul_apply() runs in trap context (a kprobe's int3, NMI
 * like) and is neither traced nor probed; it reads nothing but @op and
 * @regs.
 */
#include <linux/build_bug.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <asm/insn.h>
#include <asm/insn-emul.h>
#include <asm/processor-flags.h>

#define EMUL_SLOT(reg)	(offsetof(struct pt_regs, reg) / sizeof(unsigned long))

/* Register number as x86 encodes it (REX bit included) to pt_regs slot. */
static const u8 emul_slot[16] = {
	EMUL_SLOT(ax), EMUL_SLOT(cx), EMUL_SLOT(dx), EMUL_SLOT(bx),
	EMUL_SLOT(sp), EMUL_SLOT(bp), EMUL_SLOT(si), EMUL_SLOT(di),
	EMUL_SLOT(r8), EMUL_SLOT(r9), EMUL_SLOT(r10), EMUL_SLOT(r11),
	EMUL_SLOT(r12), EMUL_SLOT(r13), EMUL_SLOT(r14), EMUL_SLOT(r15),
};

#define EMUL_ARITH_FLAGS	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | \
				 X86_EFLAGS_ZF | X86_EFLAGS_SF | X86_EFLAGS_OF)

/**
 * insn_emul_reg_slot() - where a register lives in struct pt_regs
 * @x86_reg: the register's number as x86 encodes it, REX bit included
 *	(0 rax, 1 rcx, ... 4 rsp, ... 15 r15)
 *
 * Return: the index of the register in struct pt_regs seen as an array
 * of unsigned long.
 */
u8 insn_emul_reg_slot(unsigned int x86_reg)
{
	return emul_slot[x86_reg & 15];
}
NOKPROBE_SYMBOL(insn_emul_reg_slot);

/* Legacy prefixes, summarised: which of the ones we care about are there. */
#define EMUL_PFX_OPSIZE	0x1	/* 66 */
#define EMUL_PFX_REP	0x2	/* f3 */
#define EMUL_PFX_SEG	0x4	/* 64, 65 (fs:, gs:) */
#define EMUL_PFX_OTHER	0x8	/* anything else */

static unsigned int emul_prefixes(struct insn *insn)
{
	unsigned int seen = 0;
	insn_byte_t p;
	int i;

	for_each_insn_prefix(insn, i, p) {
		switch (p) {
		case 0x66:
			seen |= EMUL_PFX_OPSIZE;
			break;
		case 0xf3:
			seen |= EMUL_PFX_REP;
			break;
		case 0x64:
		case 0x65:
			seen |= EMUL_PFX_SEG;
			break;
		default:
			seen |= EMUL_PFX_OTHER;
			break;
		}
	}
	return seen;
}

/**
 * insn_emul_decode() - decide whether an instruction is applied to pt_regs
 * @insn: the instruction, decoded in 64-bit mode
 * @op: where to record what a hit must do
 *
 * Recognises the forms listed at the top of this file.  Called while a
 * probe is prepared, before it can be hit.
 *
 * Return: true when @op was filled in, false when the instruction is not
 * one of the forms (@op is then left alone).
 */
bool insn_emul_decode(struct insn *insn, struct insn_emul *op)
{
	struct insn_emul e = { .len = insn->length };
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
	pfx = emul_prefixes(insn);

	if (insn->opcode.nbytes == 2 && opc == 0x0f) {
		switch (insn->opcode.bytes[1]) {
		case 0x1e:	/* endbr64 / endbr32: f3 and nothing else */
			if (pfx != EMUL_PFX_REP || rex ||
			    (modrm != 0xfa && modrm != 0xfb))
				return false;
			break;
		case 0x1f:	/* nop r/m, /0 only */
			if (pfx & ~(EMUL_PFX_OPSIZE | EMUL_PFX_SEG) ||
			    X86_MODRM_REG(modrm) != 0)
				return false;
			break;
		default:
			return false;
		}
		e.kind = INSN_EMUL_NOP;
		goto found;
	}

	/* mov, add and sub: register operands only, 32 or 64 bits wide. */
	if (insn->opcode.nbytes != 1 || pfx || X86_MODRM_MOD(modrm) != 3)
		return false;
	e.wide = X86_REX_W(rex) ? 1 : 0;

	switch (opc) {
	case 0x89:	/* mov reg, r/m */
		e.kind = INSN_EMUL_MOV;
		e.src = emul_slot[reg];
		e.dst = emul_slot[rm];
		break;
	case 0x8b:	/* mov r/m, reg */
		e.kind = INSN_EMUL_MOV;
		e.src = emul_slot[rm];
		e.dst = emul_slot[reg];
		break;
	case 0x81:	/* group 1, imm32 */
	case 0x83:	/* group 1, imm8 */
		if (X86_MODRM_REG(modrm) == 0)
			e.kind = INSN_EMUL_ADD;
		else if (X86_MODRM_REG(modrm) == 5)
			e.kind = INSN_EMUL_SUB;
		else
			return false;
		e.dst = emul_slot[rm];
		e.imm = insn->immediate.value;
		break;
	default:
		return false;
	}

found:
	*op = e;
	return true;
}

/* PF: set when the low byte of the result has an even number of ones. */
static inline unsigned long emul_parity(unsigned long res)
{
	u8 b = res;

	b ^= b >> 4;
	b ^= b >> 2;
	b ^= b >> 1;
	return (b & 1) ? 0 : X86_EFLAGS_PF;
}

/*
 * add or sub of @op's immediate to @a at the operation's width; the new
 * arithmetic flags are merged into *@flags.  The carry and overflow tests
 * work on the operands and result truncated to the width, the sign bit
 * being the width's top bit.
 */
static unsigned long emul_arith(const struct insn_emul *op, unsigned long a,
				unsigned long *flags)
{
	unsigned long mask = op->wide ? ~0UL : 0xffffffffUL;
	unsigned int top = op->wide ? 63 : 31;
	unsigned long b = (unsigned long)(long)op->imm & mask;
	unsigned long res, f = 0;
	bool sub = op->kind == INSN_EMUL_SUB;

	a &= mask;
	res = (sub ? a - b : a + b) & mask;

	if (sub ? a < b : res < a)
		f |= X86_EFLAGS_CF;
	f |= emul_parity(res);
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

	*flags = (*flags & ~EMUL_ARITH_FLAGS) | f;
	return res;
}
NOKPROBE_SYMBOL(emul_arith);

/**
 * insn_emul_apply() - apply a decoded instruction to saved registers
 * @op: filled in by insn_emul_decode()
 * @regs: the registers at the instruction; regs->ip is its address
 *
 * The registers become what executing the instruction would have left,
 * regs->ip the address after it.
 *
 * Context: any, trap handlers included; never faults.
 */
void insn_emul_apply(const struct insn_emul *op, struct pt_regs *regs)
{
	unsigned long *slot = (unsigned long *)regs;
	unsigned long val;

	switch (op->kind) {
	case INSN_EMUL_MOV:
		val = slot[op->src];
		slot[op->dst] = op->wide ? val : (u32)val;
		break;
	case INSN_EMUL_ADD:
	case INSN_EMUL_SUB:
		slot[op->dst] = emul_arith(op, slot[op->dst], &regs->flags);
		break;
	default:
		break;
	}
	regs->ip += op->len;
}
NOKPROBE_SYMBOL(insn_emul_apply);
