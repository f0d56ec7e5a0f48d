// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 probes: simulating the instructions that read the pc.
 *
 * A copy stepped in the XOL slot would compute from the slot's address,
 * so the probes run these instructions here, on the pt_regs of the
 * breakpoint, instead.  What each does is the A64 definition, nothing
 * more:
 *
 *   B, BL              pc + imm26 * 4; BL also sets x30 to pc + 4
 *   B.cond             pc + imm19 * 4 when the condition holds on NZCV
 *   CBZ, CBNZ          pc + imm19 * 4 when Wt/Xt is (not) zero
 *   TBZ, TBNZ          pc + imm14 * 4 when bit b5:b40 of Xt is (not) 0
 *   BR, BLR, RET       to Xn; BLR also sets x30 to pc + 4, after Xn is read
 *   ADR, ADRP          Xd = pc + imm21, or pc's 4K page + imm21 pages
 *   LDR Wt/Xt, LDRSW   Xt = the literal at pc + imm19 * 4, zero or sign
 *   (literal)          extended; the kprobes decoder alone picks these,
 *                      the literal being kernel text
 *   PRFM (literal)     a hint: nothing but the pc moves
 *
 * Register number 31 is the zero register in every field read here:
 * pt_regs_read_reg() gives 0 for it and pt_regs_write_reg() drops the
 * write, so sp is never touched.  Each simulator runs in the breakpoint
 * exception with interrupts masked, takes no lock and cannot fail; they
 * are in .kprobes.text so that no kprobe goes on them.
 *
 * PSTATE.BTYPE is the caller's business: the simulators change the pc
 * and general registers only.
 */
#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sizes.h>

#include <kunit/visibility.h>

#include <asm/insn.h>
#include <asm/ptrace.h>

#include "simulate-insn.h"

/* The encoding fields the simulators read. */
#define SIM_RT		GENMASK(4, 0)	/* Rt, Rd: the register written or tested */
#define SIM_RN		GENMASK(9, 5)	/* Rn: the branch target's register */
#define SIM_IMMHI	GENMASK(23, 5)	/* ADR, ADRP: high 19 bits */
#define SIM_IMMLO	GENMASK(30, 29)	/* ADR, ADRP: low two bits */
#define SIM_COND	GENMASK(3, 0)	/* B.cond */
#define SIM_BIT_LO	GENMASK(23, 19)	/* TBZ: b40 */
#define SIM_TOP		BIT(31)	/* BL, ADRP, 64-bit CBZ; TBZ: b5 */
#define SIM_NONZERO	BIT(24)	/* CBNZ, TBNZ */
#define SIM_LINK_REG	BIT(21)	/* BLR */
#define SIM_LIT_64	BIT(30)	/* LDR Xt (literal) */

/* The signed word offset of @width bits at bit @lo of @insn, in bytes. */
static __always_inline s64 sim_offset(u32 insn, unsigned int lo,
				      unsigned int width)
{
	u64 words = (insn >> lo) & (BIT(width) - 1);

	return sign_extend64(words, width - 1) * AARCH64_INSN_SIZE;
}

/* B, BL: imm26 at bit 0. */
static __always_inline s64 sim_imm26(u32 insn)
{
	return sim_offset(insn, 0, 26);
}

/* B.cond, CBZ, CBNZ and the loads (literal): imm19 at bit 5. */
static __always_inline s64 sim_imm19(u32 insn)
{
	return sim_offset(insn, 5, 19);
}

/* TBZ, TBNZ: imm14 at bit 5. */
static __always_inline s64 sim_imm14(u32 insn)
{
	return sim_offset(insn, 5, 14);
}

static __always_inline u64 sim_xreg(struct pt_regs *regs, u32 insn, u32 field)
{
	return pt_regs_read_reg(regs, FIELD_GET(field, insn));
}

static __always_inline void sim_set_xreg(struct pt_regs *regs, u32 insn,
					 u32 field, u64 val)
{
	pt_regs_write_reg(regs, FIELD_GET(field, insn), val);
}

/* Go to @addr + @offset when @taken, else to the next instruction. */
static __always_inline void sim_branch_if(struct pt_regs *regs, long addr,
					  bool taken, s64 offset)
{
	instruction_pointer_set(regs, addr + (taken ? offset : AARCH64_INSN_SIZE));
}

/**
 * arm64_sim_branch_imm - simulate B or BL
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on
 */
void __kprobes arm64_sim_branch_imm(u32 opcode, long addr, struct pt_regs *regs)
{
	if (opcode & SIM_TOP)
		pt_regs_write_reg(regs, 30, addr + AARCH64_INSN_SIZE);
	sim_branch_if(regs, addr, true, sim_imm26(opcode));
}
EXPORT_SYMBOL_IF_KUNIT(arm64_sim_branch_imm);

/**
 * arm64_sim_branch_cond - simulate B.cond
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on; the flags are read from ->pstate
 */
void __kprobes arm64_sim_branch_cond(u32 opcode, long addr,
				     struct pt_regs *regs)
{
	bool taken = arm64_cond_holds(FIELD_GET(SIM_COND, opcode), regs->pstate);

	sim_branch_if(regs, addr, taken, sim_imm19(opcode));
}
EXPORT_SYMBOL_IF_KUNIT(arm64_sim_branch_cond);

/**
 * arm64_sim_compare_branch - simulate CBZ or CBNZ, 32- or 64-bit
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on
 */
void __kprobes arm64_sim_compare_branch(u32 opcode, long addr,
					struct pt_regs *regs)
{
	u64 val = sim_xreg(regs, opcode, SIM_RT);
	bool is_zero;

	if (!(opcode & SIM_TOP))
		val = lower_32_bits(val);
	is_zero = !val;
	sim_branch_if(regs, addr, is_zero != !!(opcode & SIM_NONZERO),
		      sim_imm19(opcode));
}
EXPORT_SYMBOL_IF_KUNIT(arm64_sim_compare_branch);

/**
 * arm64_sim_test_branch - simulate TBZ or TBNZ
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on
 */
void __kprobes arm64_sim_test_branch(u32 opcode, long addr,
				     struct pt_regs *regs)
{
	unsigned int bit = FIELD_GET(SIM_BIT_LO, opcode);
	bool set;

	if (opcode & SIM_TOP)
		bit += 32;
	set = (sim_xreg(regs, opcode, SIM_RT) >> bit) & 1;
	sim_branch_if(regs, addr, set == !!(opcode & SIM_NONZERO),
		      sim_imm14(opcode));
}
EXPORT_SYMBOL_IF_KUNIT(arm64_sim_test_branch);

/**
 * arm64_sim_branch_reg - simulate BR, BLR or RET
 * @opcode: the instruction (not one of the authenticating forms)
 * @addr: its address
 * @regs: the state it runs on
 *
 * The target is read before the link register is written, so that
 * "blr x30" goes where x30 pointed.
 */
void __kprobes arm64_sim_branch_reg(u32 opcode, long addr,
				    struct pt_regs *regs)
{
	u64 target = sim_xreg(regs, opcode, SIM_RN);

	if (opcode & SIM_LINK_REG)
		pt_regs_write_reg(regs, 30, addr + AARCH64_INSN_SIZE);
	instruction_pointer_set(regs, target);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_sim_branch_reg);

/**
 * arm64_sim_pc_rel - simulate ADR or ADRP
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on
 */
void __kprobes arm64_sim_pc_rel(u32 opcode, long addr, struct pt_regs *regs)
{
	u64 imm = (FIELD_GET(SIM_IMMHI, opcode) << 2) |
		  FIELD_GET(SIM_IMMLO, opcode);
	s64 delta = sign_extend64(imm, 20);
	u64 base = addr;

	if (opcode & SIM_TOP) {
		base &= ~(u64)(SZ_4K - 1);
		delta *= SZ_4K;
	}
	sim_set_xreg(regs, opcode, SIM_RT, base + delta);
	instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_sim_pc_rel);

/* The literal of a load (literal) at @addr. */
static __always_inline const void *sim_literal(u32 opcode, long addr)
{
	return (const void *)(addr + sim_imm19(opcode));
}

/**
 * arm64_sim_load_lit - simulate LDR Wt or LDR Xt (literal)
 * @opcode: the instruction
 * @addr: its address, in kernel text
 * @regs: the state it runs on
 *
 * A 32-bit load is zero extended into Xt.
 */
void __kprobes arm64_sim_load_lit(u32 opcode, long addr, struct pt_regs *regs)
{
	const void *lit = sim_literal(opcode, addr);
	u64 val;

	if (opcode & SIM_LIT_64)
		val = READ_ONCE(*(const u64 *)lit);
	else
		val = READ_ONCE(*(const u32 *)lit);
	sim_set_xreg(regs, opcode, SIM_RT, val);
	instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_sim_load_lit);

/**
 * arm64_sim_load_lit_sw - simulate LDRSW (literal)
 * @opcode: the instruction
 * @addr: its address, in kernel text
 * @regs: the state it runs on
 */
void __kprobes arm64_sim_load_lit_sw(u32 opcode, long addr,
				     struct pt_regs *regs)
{
	s32 val = READ_ONCE(*(const s32 *)sim_literal(opcode, addr));

	sim_set_xreg(regs, opcode, SIM_RT, (s64)val);
	instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_sim_load_lit_sw);

/**
 * arm64_sim_prefetch_lit - simulate PRFM (literal)
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on
 *
 * A prefetch has no effect the program can see; skipping it is exact.
 */
void __kprobes arm64_sim_prefetch_lit(u32 opcode, long addr,
				      struct pt_regs *regs)
{
	instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_sim_prefetch_lit);
