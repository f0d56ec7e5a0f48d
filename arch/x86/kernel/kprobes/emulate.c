// SPDX-License-Identifier: GPL-2.0
/*
 * x86 kprobes: instructions the int3 handler applies to pt_regs itself.
 *
 * A probed instruction is emulated when running a copy of it elsewhere
 * would be wrong or costly:
 *
 *  - near control transfers (jmp, jcc, call, ret, loop*, jrcxz, and call
 *    or jmp through a register): a copy would leave or mis-address the
 *    slot;
 *  - pushf, popf, cli, sti: the copy runs with interrupts off, so it would
 *    see and leave the wrong interrupt flag;
 *  - push and pop of a register, lea, the one-byte NOP and insn_emul.c's
 *    register-only forms (NOPs, endbr, mov between registers, add/sub of
 *    an immediate):
 *    common in function bodies, and one trap with no copy is the cheapest
 *    way to run them.
 *
 * Emulation runs in the int3 handler only: stack pushes use the gap the
 * int3 entry code leaves between the interrupted stack and pt_regs
 * (int3_emulate_push()).  Nothing here reads memory other than the stack
 * the interrupted code was using, so it cannot fault.
 *
 * Everything a hit needs is decoded at prepare time into
 * struct arch_specific_insn: @kind, @reg (the register's pt_regs slot,
 * as are @base and @index), @cond (jcc
 * condition or loop type), @disp (branch displacement from the end of
 * the instruction, bytes ret drops, lea displacement), and for lea @base,
 * @index, @scale and @wide.
 */
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <asm/insn.h>
#include <asm/insn-emul.h>
#include <asm/text-patching.h>

#include "common.h"

#define REG_NONE	0xff	/* lea: no base, or no index */
#define REG_RIP		0xfe	/* lea: %rip-relative */

/* An x86 register number, REX bit included, as its pt_regs slot. */
static u8 slot_of(u8 x86_reg)
{
	return insn_emul_reg_slot(x86_reg);
}

static u8 rex_of(struct insn *insn)
{
	return insn->rex_prefix.nbytes ? insn->rex_prefix.bytes[0] : 0;
}

/* Any legacy prefix at all (66, 67, f2, f3, lock, segments)? */
static bool has_legacy_prefix(struct insn *insn)
{
	return insn->prefixes.nbytes != 0;
}

/* An operand-size or address-size prefix? */
static bool has_size_prefix(struct insn *insn)
{
	insn_byte_t pfx;
	int i;

	for_each_insn_prefix(insn, i, pfx)
		if (pfx == 0x66 || pfx == 0x67)
			return true;
	return false;
}

/* Displacement of a relative branch: imm8 or imm32, sign-extended. */
static s32 branch_disp(struct insn *insn)
{
	return insn->immediate.nbytes == 1 ? (s8)insn->immediate.value :
					     insn->immediate.value;
}

static bool prepare_lea(struct arch_specific_insn *a, struct insn *insn)
{
	u8 modrm = insn->modrm.bytes[0], rex = rex_of(insn);
	u8 mod = X86_MODRM_MOD(modrm), rm = X86_MODRM_RM(modrm);

	/* 16-bit results and 32-bit addresses are left to the copy. */
	if (has_legacy_prefix(insn) || mod == 3)
		return false;

	a->reg = slot_of(X86_MODRM_REG(modrm) | (X86_REX_R(rex) ? 8 : 0));
	a->wide = X86_REX_W(rex) ? 1 : 0;
	a->disp = insn->displacement.value;
	a->index = REG_NONE;
	a->scale = 0;

	if (rm == 4) {			/* a SIB byte follows */
		u8 sib = insn->sib.bytes[0];
		u8 base = X86_SIB_BASE(sib), index = X86_SIB_INDEX(sib);

		if (index != 4 || X86_REX_X(rex))
			a->index = slot_of(index | (X86_REX_X(rex) ? 8 : 0));
		a->scale = X86_SIB_SCALE(sib);
		if (base == 5 && mod == 0)
			a->base = REG_NONE;
		else
			a->base = slot_of(base | (X86_REX_B(rex) ? 8 : 0));
	} else if (rm == 5 && mod == 0) {
		a->base = REG_RIP;
	} else {
		a->base = slot_of(rm | (X86_REX_B(rex) ? 8 : 0));
	}
	a->kind = KX_LEA;
	return true;
}

/* The near transfers, flag and stack instructions of the top comment. */
static bool prepare_one_byte(struct arch_specific_insn *a, struct insn *insn)
{
	u8 op = insn->opcode.bytes[0], modrm = insn->modrm.bytes[0];
	u8 rex = rex_of(insn);

	switch (op) {
	case 0x50 ... 0x57:
	case 0x58 ... 0x5f:
		/* 66 would make it a 16-bit push or pop */
		if (has_legacy_prefix(insn))
			return false;
		a->kind = op < 0x58 ? KX_PUSH_REG : KX_POP_REG;
		a->reg = slot_of((op & 7) | (X86_REX_B(rex) ? 8 : 0));
		return true;
	case 0x70 ... 0x7f:
		a->kind = KX_JCC;
		a->cond = op & 0xf;
		break;
	case 0xe0 ... 0xe3:
		a->kind = KX_LOOP;
		a->cond = op & 3;
		break;
	case 0xe8:
		a->kind = KX_CALL;
		break;
	case 0xe9:
	case 0xeb:
		a->kind = KX_JMP;
		break;
	case 0xc3:
		a->kind = KX_RET;
		return true;
	case 0xc2:
		a->kind = KX_RET;
		a->disp = (u16)insn->immediate.value;
		return true;
	case 0x9c:
		a->kind = KX_PUSHF;
		return !has_legacy_prefix(insn);
	case 0x9d:
		a->kind = KX_POPF;
		return !has_legacy_prefix(insn);
	case 0xfa:
		a->kind = KX_CLI;
		return true;
	case 0xfb:
		a->kind = KX_STI;
		return true;
	case 0x8d:
		return prepare_lea(a, insn);
	case 0xff:
		if (X86_MODRM_MOD(modrm) != 3)
			return false;
		if (X86_MODRM_REG(modrm) == 2)
			a->kind = KX_CALL_REG;
		else if (X86_MODRM_REG(modrm) == 4)
			a->kind = KX_JMP_REG;
		else
			return false;
		a->reg = slot_of(X86_MODRM_RM(modrm) | (X86_REX_B(rex) ? 8 : 0));
		return true;
	default:
		return false;
	}
	a->disp = branch_disp(insn);
	return true;
}

/**
 * kprobe_emul_prepare() - decide how a probed instruction will be run
 * @p: the probe
 * @insn: the original instruction, decoded
 *
 * Fills in @p->ainsn: an emulation kind and its operands, or KX_COPY.
 * Relative branches with an operand-size or address-size prefix, and
 * loops on %ecx, are refused: the kernel has none, and emulating them
 * right would need 16- and 32-bit variants.
 *
 * Context: kprobe_mutex held; @p is not live yet.
 *
 * Return: 0, or -EOPNOTSUPP for a transfer that can be neither emulated
 * nor copied.
 */
int kprobe_emul_prepare(struct kprobe *p, struct insn *insn)
{
	struct arch_specific_insn *a = &p->ainsn;
	u8 op0 = insn->opcode.bytes[0];
	bool branch;

	memset(a, 0, sizeof(*a));
	a->len = insn->length;

	/*
	 * VEX, EVEX and REX2 forms: the decoder's opcode byte is that of
	 * another map, which the cases below would take for push, jcc, cli
	 * and the like.  None of them transfers control or touches IF:
	 * copy them.
	 */
	if (insn_is_avx(insn) || insn_is_rex2(insn))
		return 0;

	if (insn_emul_decode(insn, &a->regop)) {
		a->kind = KX_REGOP;
		return 0;
	}
	/* The one-byte NOP; with REX.B it is xchg %r8, %rax. */
	if (insn->length == 1 && op0 == 0x90) {
		a->kind = KX_REGOP;
		a->regop.kind = INSN_EMUL_NOP;
		a->regop.len = 1;
		return 0;
	}

	if (insn->opcode.nbytes == 2 && op0 == 0x0f &&
	    (insn->opcode.bytes[1] & 0xf0) == 0x80) {
		a->kind = KX_JCC;
		a->cond = insn->opcode.bytes[1] & 0xf;
		a->disp = branch_disp(insn);
	} else if (insn->opcode.nbytes != 1 || !prepare_one_byte(a, insn)) {
		a->kind = KX_COPY;
	}

	/* The copy runs with interrupts off: it must not see or set IF. */
	if (a->kind == KX_COPY && insn->opcode.nbytes == 1 &&
	    (op0 == 0x9c || op0 == 0x9d || op0 == 0xfa || op0 == 0xfb))
		return -EOPNOTSUPP;

	branch = a->kind >= KX_JMP && a->kind <= KX_JMP_REG;
	if (branch && has_size_prefix(insn))
		return -EOPNOTSUPP;
	return 0;
}

/* A register by its pt_regs slot, as prepare recorded it. */
static __always_inline unsigned long *gpr(struct pt_regs *regs, u8 slot)
{
	return (unsigned long *)regs + slot;
}

static __always_inline unsigned long lea_address(struct arch_specific_insn *a,
				 struct pt_regs *regs, unsigned long next)
{
	unsigned long ea = (long)a->disp;

	if (a->base == REG_RIP)
		ea += next;
	else if (a->base != REG_NONE)
		ea += *gpr(regs, a->base);
	if (a->index != REG_NONE)
		ea += *gpr(regs, a->index) << a->scale;
	return ea;
}

static bool loop_taken(struct arch_specific_insn *a, struct pt_regs *regs)
{
	if (a->cond == 3)		/* jrcxz */
		return regs->cx == 0;
	regs->cx--;
	if (!regs->cx)
		return false;
	if (a->cond == 0)		/* loopne */
		return !(regs->flags & X86_EFLAGS_ZF);
	if (a->cond == 1)		/* loope */
		return regs->flags & X86_EFLAGS_ZF;
	return true;
}
NOKPROBE_SYMBOL(loop_taken);

/**
 * kprobe_emul_run() - apply an emulated instruction to the registers
 * @p: the probe, prepared with an emulation kind
 * @regs: the registers the int3 trap saved (regs->ip is p->addr + 1)
 *
 * Leaves @regs as the instruction would have: regs->ip is the next
 * instruction or the branch target.
 *
 * Context: the int3 handler, interrupts off.
 */
void kprobe_emul_run(struct kprobe *p, struct pt_regs *regs)
{
	struct arch_specific_insn *a = &p->ainsn;
	unsigned long next = (unsigned long)p->addr + a->len;
	unsigned long val;

	switch (a->kind) {
	case KX_REGOP:
		regs->ip = (unsigned long)p->addr;
		insn_emul_apply(&a->regop, regs);
		return;
	case KX_JMP:
		next += a->disp;
		break;
	case KX_JCC:
		int3_emulate_jcc(regs, a->cond, next, a->disp);
		return;
	case KX_LOOP:
		if (loop_taken(a, regs))
			next += a->disp;
		break;
	case KX_CALL:
		int3_emulate_push(regs, next);
		next += a->disp;
		break;
	case KX_RET:
		next = int3_emulate_pop(regs);
		regs->sp += a->disp;
		break;
	case KX_CALL_REG:
		val = *gpr(regs, a->reg);
		int3_emulate_push(regs, next);
		next = val;
		break;
	case KX_JMP_REG:
		next = *gpr(regs, a->reg);
		break;
	case KX_PUSH_REG:
		int3_emulate_push(regs, *gpr(regs, a->reg));
		break;
	case KX_POP_REG:
		val = int3_emulate_pop(regs);
		*gpr(regs, a->reg) = val;
		break;
	case KX_PUSHF:
		int3_emulate_push(regs, regs->flags);
		break;
	case KX_POPF:
		regs->flags = int3_emulate_pop(regs);
		break;
	case KX_CLI:
		regs->flags &= ~X86_EFLAGS_IF;
		break;
	case KX_STI:
		regs->flags |= X86_EFLAGS_IF;
		break;
	case KX_LEA:
		val = lea_address(a, regs, next);
		*gpr(regs, a->reg) = a->wide ? val : (u32)val;
		break;
	}
	regs->ip = next;
}
NOKPROBE_SYMBOL(kprobe_emul_run);
