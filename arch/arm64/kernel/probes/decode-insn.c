// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 probes: sorting a probed instruction into stepped, simulated or
 * refused.
 *
 * Stepping out of line (INSN_GOOD) is the default: the instruction is
 * copied into an XOL slot and run there, between the probe's BRK and the
 * slot's own.  For kprobes, the integer data-processing instructions are
 * emulated instead (INSN_GOOD_NO_SLOT, see emulate-insn.c), which saves
 * the second exception.  Stepping is wrong for anything that
 *
 *  - reads the pc: branches, ADR/ADRP and loads (literal) would compute
 *    from the slot.  Those we can redo on pt_regs are simulated
 *    (INSN_GOOD_NO_SLOT, see simulate-insn.c): B, BL, B.cond, CBZ, CBNZ,
 *    TBZ, TBNZ, BR, BLR, RET, ADR, ADRP, PRFM (literal), and for kprobes
 *    only, LDR Wt/Xt and LDRSW (literal) (a uprobe's literal is user
 *    memory, which the simulator does not read).  The rest is refused:
 *    the authenticating branches (BRAA, RETAA, ...) and SIMD&FP loads
 *    (literal);
 *  - relies on where it runs or on PSTATE the probe changes: exception
 *    generation (SVC, HVC, SMC, BRK, HLT, DCPS), ERET and its
 *    authenticating forms, MSR (any form), MRS of DAIF (stepping runs
 *    with DAIF masked), and every HINT but the few known harmless ones
 *    (aarch64_insn_is_steppable_hint(): NOP, BTI, the PAC signing ones);
 *  - needs its neighbours: exclusive loads and stores (the BRK between
 *    them clears the monitor, so the store would fail for ever) and the
 *    memory copy/set triples (FEAT_MOPS);
 *  - is no instruction at all: the reserved and unallocated encoding
 *    groups, UDF included.
 *
 * kprobes also refuse any instruction that sits between an exclusive load
 * and its store (see kprobe_in_llsc()).
 *
 * The decoder runs in process context at registration; it only reads the
 * instruction (and for kprobes, the text before it).
 */
#include <linux/bitfield.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mm.h>

#include <kunit/visibility.h>

#include <asm/insn.h>

#include "decode-insn.h"
#include "emulate-insn.h"
#include "simulate-insn.h"

/* Encoding group, bits 28:25 of every A64 instruction. */
#define DEC_GROUP		GENMASK(28, 25)
/* Loads (literal), of any register kind, and PRFM (literal). */
#define DEC_LIT_MASK		0x3b000000
#define DEC_LIT_VALUE		0x18000000
/* In a load (literal): the SIMD&FP register file rather than Xt/Wt. */
#define DEC_LIT_SIMD		BIT(26)
/* In an exclusive load/store: a load. */
#define DEC_EXCL_LOAD		BIT(22)

static bool dec_no_instruction(u32 insn)
{
	/* 0b0000: reserved (UDF) and SME; 0b0001, 0b0011: unallocated. */
	switch (FIELD_GET(DEC_GROUP, insn)) {
	case 0x0:
	case 0x1:
	case 0x3:
		return true;
	}
	return false;
}

static bool dec_is_literal_load(u32 insn)
{
	return (insn & DEC_LIT_MASK) == DEC_LIT_VALUE;
}

/* The simulator of an instruction that reads the pc, if we have one. */
static probes_handler_t *dec_pc_reader(u32 insn)
{
	if (aarch64_insn_is_b(insn) || aarch64_insn_is_bl(insn))
		return arm64_sim_branch_imm;
	if (aarch64_insn_is_bcond(insn))
		return arm64_sim_branch_cond;
	if (aarch64_insn_is_cbz(insn) || aarch64_insn_is_cbnz(insn))
		return arm64_sim_compare_branch;
	if (aarch64_insn_is_tbz(insn) || aarch64_insn_is_tbnz(insn))
		return arm64_sim_test_branch;
	if (aarch64_insn_is_br(insn) || aarch64_insn_is_blr(insn) ||
	    aarch64_insn_is_ret(insn))
		return arm64_sim_branch_reg;
	if (aarch64_insn_is_adr_adrp(insn))
		return arm64_sim_pc_rel;
	if (aarch64_insn_is_prfm_lit(insn))
		return arm64_sim_prefetch_lit;
	return NULL;
}

/* Branch, exception and system group: what may run in the slot. */
static bool dec_system_steppable(u32 insn)
{
	if (aarch64_insn_is_branch(insn) || aarch64_insn_is_exception(insn) ||
	    aarch64_insn_is_eret(insn) || aarch64_insn_is_eret_auth(insn))
		return false;
	if (aarch64_insn_is_msr_imm(insn) || aarch64_insn_is_msr_reg(insn))
		return false;
	if (aarch64_insn_is_mrs(insn))
		return aarch64_insn_extract_system_reg(insn) !=
		       AARCH64_INSN_SPCLREG_DAIF;
	if (aarch64_insn_is_hint(insn))
		return aarch64_insn_is_steppable_hint(insn);
	return true;
}

static bool dec_steppable(u32 insn)
{
	if (dec_no_instruction(insn) || dec_is_literal_load(insn))
		return false;
	if (aarch64_insn_is_class_branch_sys(insn))
		return dec_system_steppable(insn);
	return !aarch64_insn_is_exclusive(insn) && !aarch64_insn_is_mops(insn);
}

/**
 * arm_probe_decode_insn - decide how a probe runs an instruction
 * @insn: the instruction
 * @api: where the simulator is recorded; ->handler is cleared otherwise
 *
 * The rules shared by kprobes and uprobes, see the top of this file.
 *
 * Return: INSN_GOOD, INSN_GOOD_NO_SLOT (->handler set) or INSN_REJECTED.
 */
enum probe_insn arm_probe_decode_insn(probe_opcode_t insn,
				      struct arch_probe_insn *api)
{
	probes_handler_t *sim = dec_pc_reader(insn);

	api->handler = sim;
	if (sim)
		return INSN_GOOD_NO_SLOT;
	return dec_steppable(insn) ? INSN_GOOD : INSN_REJECTED;
}
EXPORT_SYMBOL_IF_KUNIT(arm_probe_decode_insn);

#ifdef CONFIG_KPROBES
/**
 * arm64_kprobe_classify - decide how a kprobe runs an instruction
 * @insn: the instruction
 * @api: where the simulator is recorded; ->handler is cleared otherwise
 *
 * arm_probe_decode_insn() plus two kinds uprobes keep stepping: the
 * integer data-processing instructions, which emulate-insn.c computes on
 * pt_regs so that the hit ends in the first exception, and the loads
 * (literal) of general registers, whose literal is kernel text here.  The
 * instruction alone is looked at: arm_kprobe_decode_insn() adds the
 * checks of its neighbours.
 *
 * Return: INSN_GOOD, INSN_GOOD_NO_SLOT (->handler set) or INSN_REJECTED.
 */
enum probe_insn arm64_kprobe_classify(probe_opcode_t insn,
				      struct arch_probe_insn *api)
{
	probes_handler_t *emu = arm64_emu_pick(insn);

	if (emu) {
		api->handler = emu;
		return INSN_GOOD_NO_SLOT;
	}
	if (dec_is_literal_load(insn) && !(insn & DEC_LIT_SIMD)) {
		if (aarch64_insn_is_ldr_lit(insn))
			api->handler = arm64_sim_load_lit;
		else if (aarch64_insn_is_ldrsw_lit(insn))
			api->handler = arm64_sim_load_lit_sw;
		else
			api->handler = arm64_sim_prefetch_lit;
		return INSN_GOOD_NO_SLOT;
	}
	return arm_probe_decode_insn(insn, api);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_kprobe_classify);

/*
 * Is @addr inside an exclusive sequence: is there, before it and after
 * the last exclusive store, an exclusive load?  A BRK there would clear
 * the monitor on every pass and the sequence could never complete.
 *
 * The walk goes back at most ARM64_KPROBE_LLSC_WINDOW instructions and
 * never before the start of @addr's function (or, when kallsyms does not
 * know it, of its page): text before that may not be mapped, and an
 * exclusive pair does not span functions.
 */
static bool kprobe_in_llsc(kprobe_opcode_t *addr)
{
	unsigned long where = (unsigned long)addr;
	unsigned long size, offset, floor;
	kprobe_opcode_t *pos;
	u32 insn;

	if (kallsyms_lookup_size_offset(where, &size, &offset))
		floor = where - offset;
	else
		floor = where & PAGE_MASK;
	floor = max(floor, where - ARM64_KPROBE_LLSC_WINDOW *
				   AARCH64_INSN_SIZE);

	for (pos = addr - 1; (unsigned long)pos >= floor; pos--) {
		insn = le32_to_cpu(READ_ONCE(*pos));
		if (aarch64_insn_is_exclusive(insn))
			return insn & DEC_EXCL_LOAD;
	}
	return false;
}

/**
 * arm_kprobe_decode_insn - decide how a kprobe runs the instruction at @addr
 * @addr: the probed instruction, in kernel or module text
 * @asi: the kprobe's arch part; ->api.handler is set for a simulation
 *
 * Context: process context, the text at @addr held in place by the caller.
 * Return: INSN_GOOD, INSN_GOOD_NO_SLOT or INSN_REJECTED.
 */
enum probe_insn arm_kprobe_decode_insn(kprobe_opcode_t *addr,
				       struct arch_specific_insn *asi)
{
	u32 insn = le32_to_cpu(READ_ONCE(*addr));
	enum probe_insn how = arm64_kprobe_classify(insn, &asi->api);

	if (how != INSN_REJECTED && kprobe_in_llsc(addr))
		how = INSN_REJECTED;
	return how;
}
EXPORT_SYMBOL_IF_KUNIT(arm_kprobe_decode_insn);
#endif /* CONFIG_KPROBES */
