/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the copy of a probed instruction continues: every instruction
 * slot is "<instruction> ; jmp kprobe_copy_return".
 *
 * The CPU arrives here from a slot with interrupts off (the int3 handler
 * cleared IF before sending it there), on the probed code's stack, with
 * every register as the instruction left it.  We build a struct pt_regs
 * below two words that the C side fills (the flags and the address to
 * resume at), call kprobe_copy_done(), take pt_regs down, and leave with
 * popfq (which gives the interrupt flag back) and a return to the resume
 * address, with the stack pointer where the instruction left it.
 *
 *   probed sp -  8: resume address      (kprobe_copy_done() writes it)
 *   probed sp - 16: flags to leave with (kprobe_copy_done() writes it)
 *   probed sp - 16 - sizeof(pt_regs): struct pt_regs
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/asm.h>
#include <asm/nospec-branch.h>
#include <asm/segment.h>
#include <asm/smap.h>
#include <asm/unwind_hints.h>

#include "pt_regs_asm.h"

	.code64
	.section .text, "ax"

SYM_CODE_START(kprobe_copy_return)
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	/* lea, not sub: the instruction's flags are still live. */
	leaq	-16(%rsp), %rsp
	pushq	$__KERNEL_DS		/* ss */
	pushq	$0			/* sp: the C side works it out */
	pushfq				/* flags, AC included */
	/* Handlers must not run with user access open, nor with DF set. */
	ASM_CLAC
	cld
	pushq	$__KERNEL_CS		/* cs */
	pushq	$0			/* ip: likewise */
	pushq	$-1			/* orig_ax */
	KPROBE_PUSH_GPRS
	UNWIND_HINT_REGS
	movq	%rsp, %rdi
	call	kprobe_copy_done
	KPROBE_POP_GPRS
	/* orig_ax, ip, cs, flags, sp, ss */
	leaq	6*8(%rsp), %rsp
	UNWIND_HINT_UNDEFINED
	popfq
	UNWIND_HINT_FUNC
	RET
SYM_CODE_END(kprobe_copy_return)
_ASM_NOKPROBE(kprobe_copy_return)
