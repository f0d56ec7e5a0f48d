/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 probes: the simulators of instructions that read the pc.
 *
 * Each has the probes_handler_t signature of <asm/probes.h>: @opcode is
 * the original instruction, @addr the address it was fetched from, and
 * @regs the state at that point, which it moves on past the instruction
 * (the pc included), as the CPU would have.  None of them fails: the
 * decoder only picks one for an encoding it fully handles.
 */
#ifndef __ARM64_KERNEL_PROBES_SIMULATE_INSN_H
#define __ARM64_KERNEL_PROBES_SIMULATE_INSN_H

#include <linux/ptrace.h>
#include <linux/types.h>

#include <asm/probes.h>

/*
 * ConditionHolds() of the A64 definition, for B.cond and the emulated
 * conditional instructions: bits 3:1 of @cond pick one of eight tests of
 * the flags, bit 0 inverts it, except in 0b1111 (NV), which holds like
 * AL.  The eight results are packed in one byte, test
 * number i in bit i.
 */
static __always_inline bool arm64_cond_holds(unsigned int cond, u64 pstate)
{
	bool n = pstate & PSR_N_BIT, z = pstate & PSR_Z_BIT;
	bool c = pstate & PSR_C_BIT, v = pstate & PSR_V_BIT;
	unsigned int tests = z | c << 1 | n << 2 | v << 3 |
			     (c && !z) << 4 | (n == v) << 5 |
			     (n == v && !z) << 6 | 1 << 7;
	bool holds = (tests >> (cond >> 1)) & 1;

	return (cond & 1) && cond != 0xf ? !holds : holds;
}

probes_handler_t arm64_sim_branch_imm;		/* B, BL */
probes_handler_t arm64_sim_branch_cond;		/* B.cond */
probes_handler_t arm64_sim_compare_branch;	/* CBZ, CBNZ */
probes_handler_t arm64_sim_test_branch;		/* TBZ, TBNZ */
probes_handler_t arm64_sim_branch_reg;		/* BR, BLR, RET */
probes_handler_t arm64_sim_pc_rel;		/* ADR, ADRP */
probes_handler_t arm64_sim_load_lit;		/* LDR Wt/Xt (literal) */
probes_handler_t arm64_sim_load_lit_sw;		/* LDRSW (literal) */
probes_handler_t arm64_sim_prefetch_lit;	/* PRFM (literal) */

#endif /* __ARM64_KERNEL_PROBES_SIMULATE_INSN_H */
