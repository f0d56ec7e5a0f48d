/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The general registers of a struct pt_regs, pushed and popped in its
 * order, for the kprobes trampolines (copy_64.S, optjump_64.S): what the
 * caller pushed above them (ss, sp, flags, cs, ip, orig_ax) completes
 * the struct.
 */
#ifndef __X86_KERNEL_KPROBES_PT_REGS_ASM_H
#define __X86_KERNEL_KPROBES_PT_REGS_ASM_H

.macro KPROBE_PUSH_GPRS
	.irp reg, rdi, rsi, rdx, rcx, rax, r8, r9, r10, r11, rbx, rbp, r12, r13, r14, r15
	pushq	%\reg
	.endr
.endm

.macro KPROBE_POP_GPRS
	.irp reg, r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8, rax, rcx, rdx, rsi, rdi
	popq	%\reg
	.endr
.endm

#endif
