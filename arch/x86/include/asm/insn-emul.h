/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Register-only x86-64 instructions applied to a struct pt_regs: the
 * common ground of the uprobe emulator (arch/x86/kernel/uprobes_emulate.c)
 * and the kprobe one (arch/x86/kernel/kprobes/emulate.c), implemented in
 * arch/x86/kernel/insn_emul.c.  struct insn_emul is here, not in a private
 * header, because struct arch_specific_insn holds one.
 */
#ifndef _ASM_X86_INSN_EMUL_H
#define _ASM_X86_INSN_EMUL_H

#include <linux/types.h>

struct insn;
struct pt_regs;

enum insn_emul_kind {
	INSN_EMUL_NONE = 0,
	INSN_EMUL_NOP,
	INSN_EMUL_MOV,
	INSN_EMUL_ADD,
	INSN_EMUL_SUB,
};

/*
 * One decoded instruction, 8 bytes.  @dst and @src index the saved
 * registers as an array of longs (struct pt_regs); @wide is 1 for a
 * 64-bit operation and 0 for a 32-bit one, whose result is zero-extended;
 * @imm is the immediate as encoded (imm8 already sign-extended).
 */
struct insn_emul {
	u8	kind:7;
	u8	wide:1;
	u8	len;
	u8	dst;
	u8	src;
	s32	imm;
};

#ifdef CONFIG_X86_64
bool insn_emul_decode(struct insn *insn, struct insn_emul *op);
void insn_emul_apply(const struct insn_emul *op, struct pt_regs *regs);
u8 insn_emul_reg_slot(unsigned int x86_reg);
#endif

#endif /* _ASM_X86_INSN_EMUL_H */
