/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared entry of jump-optimized kprobes.
 *
 * An optimized probe's jump leads to its buffer (opt.c), which starts
 * with "call kprobe_opt_entry" and holds the probe's address in the
 * eight bytes before that call.  We build a struct pt_regs below the
 * return address the call pushed, call kprobe_opt_hit(), take pt_regs
 * down and return into the buffer, which runs the displaced instructions
 * and jumps back.  Interrupts stay as the probed code had them.
 *
 * kprobe_opt_hit() fills in regs->ip and regs->sp for the handlers, and
 * on its way out leaves the flags to return with in the regs->ss word, so
 * that the way out is: skip orig_ax, ip, cs, flags and sp, popfq (the ss
 * word), return.
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

SYM_CODE_START(kprobe_opt_entry)
	UNWIND_HINT_FUNC
	ANNOTATE_NOENDBR
	pushq	$__KERNEL_DS		/* ss */
	pushq	$0			/* sp */
	pushfq				/* flags, AC included */
	/* Handlers must not run with user access open, nor with DF set. */
	ASM_CLAC
	cld
	pushq	$__KERNEL_CS		/* cs */
	pushq	$0			/* ip */
	pushq	$-1			/* orig_ax */
	KPROBE_PUSH_GPRS
	UNWIND_HINT_REGS
	movq	%rsp, %rdi
	call	kprobe_opt_hit
	KPROBE_POP_GPRS
	leaq	5*8(%rsp), %rsp		/* orig_ax, ip, cs, flags, sp */
	UNWIND_HINT_UNDEFINED
	popfq				/* from the ss word */
	UNWIND_HINT_FUNC
	RET
SYM_CODE_END(kprobe_opt_entry)
_ASM_NOKPROBE(kprobe_opt_entry)
