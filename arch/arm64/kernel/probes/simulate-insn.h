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

#include <asm/probes.h>

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
