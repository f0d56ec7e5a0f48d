/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 kprobes: the emulators of integer data-processing instructions.
 *
 * Each has the probes_handler_t signature of <asm/probes.h> and, like a
 * simulator, moves @regs past the instruction as the CPU would have.
 * arm64_emu_pick() gives the one for an encoding it fully handles, so
 * none of them fails.  Kprobes only: see emulate-insn.c.
 */
#ifndef __ARM64_KERNEL_PROBES_EMULATE_INSN_H
#define __ARM64_KERNEL_PROBES_EMULATE_INSN_H

#include <linux/types.h>

#include <asm/probes.h>

probes_handler_t *arm64_emu_pick(u32 insn);

probes_handler_t arm64_emu_add_sub_imm;		/* ADD, SUB (immediate) */
probes_handler_t arm64_emu_logical_imm;		/* AND, ORR, EOR (immediate) */
probes_handler_t arm64_emu_move_wide;		/* MOVN, MOVZ, MOVK */
probes_handler_t arm64_emu_bitfield;		/* SBFM, BFM, UBFM */
probes_handler_t arm64_emu_extract;		/* EXTR */
probes_handler_t arm64_emu_logical_reg;		/* AND ... BICS (shifted) */
probes_handler_t arm64_emu_add_sub_reg;		/* ADD, SUB (shifted, extended) */
probes_handler_t arm64_emu_carry;		/* ADC, SBC */
probes_handler_t arm64_emu_cond_select;		/* CSEL, CSINC, CSINV, CSNEG */
probes_handler_t arm64_emu_cond_compare;	/* CCMN, CCMP */
probes_handler_t arm64_emu_dp2;			/* UDIV, SDIV, LSLV ... RORV */
probes_handler_t arm64_emu_dp1;			/* RBIT, REV*, CLZ, CLS */
probes_handler_t arm64_emu_dp3;			/* MADD ... UMULH */
probes_handler_t arm64_emu_hint;		/* NOP, BTI */

#endif /* __ARM64_KERNEL_PROBES_EMULATE_INSN_H */
