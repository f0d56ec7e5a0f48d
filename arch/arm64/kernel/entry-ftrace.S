/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 entry code of the function hooks (see ftrace.c for the call site).
 *
 * A patched call site runs "mov x9, x30; bl ftrace_caller".  So on entry
 * to ftrace_caller:
 *	x0-x8	the traced function's arguments (x8: indirect result)
 *	x9	the traced function's return address (its caller's LR)
 *	x30	the instruction after the BL, where the function goes on
 *	sp, x29	as at the function's entry
 * ftrace_caller saves what struct ftrace_regs holds, runs the callbacks,
 * reloads the registers from the frame (a callback may change the
 * arguments, fregs->pc to send the call elsewhere, or fregs->lr to hook
 * the return) and goes on at fregs->pc with x30 = fregs->lr.
 *
 * Direct trampolines are entered with x9 = the return address and x30 =
 * where the traced function goes on, the same registers a site's BL hands
 * them when it calls one straight.
 *
 * Only DYNAMIC_FTRACE_WITH_ARGS is supported (arm64's Kconfig makes the
 * function tracer depend on it).  ftrace_regs_caller is ftrace_caller
 * with a struct pt_regs for its frame: the sites of ops that want pt_regs
 * (FTRACE_OPS_FL_SAVE_REGS: kprobes on call sites) call it instead.
 */

#include <linux/cfi_types.h>
#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>
#include <asm/ftrace.h>
#include <asm/insn.h>

/*
 * The callers' frames, below the traced function's sp: struct ftrace_regs
 * (ftrace_caller) or a whole struct pt_regs (ftrace_regs_caller), then two
 * frame records so that unwinders see the traced function (its return
 * address) and the caller (the BL it came from).  The two layouts agree:
 * fregs->regs[n] is pt_regs->regs[n], fp and lr are x29 and x30, and sp,
 * pc and pstate sit where pt_regs has them (asserted in ftrace.c).  A zero
 * pstate is what tells a plain ftrace_regs from a pt_regs.
 */
#define FC_RECORDS(base)	((base) + 32)

/* x0-x8 to and from the ftrace_regs at \fr (fregs->regs[0..8]). */
	.macro	fregs_args op_pair, op_one, fr=sp
	\op_pair	x0, x1, [\fr, #FREGS_X0]
	\op_pair	x2, x3, [\fr, #FREGS_X2]
	\op_pair	x4, x5, [\fr, #FREGS_X4]
	\op_pair	x6, x7, [\fr, #FREGS_X6]
	\op_one	x8, [\fr, #FREGS_X8]
	.endm

/* x10-x27 and x28 to and from the pt_regs at sp (x9 is the return address). */
	.macro	regs_callee op_pair, op_one
	\op_pair	x10, x11, [sp, #S_X0 + 8 * 10]
	\op_pair	x12, x13, [sp, #S_X0 + 8 * 12]
	\op_pair	x14, x15, [sp, #S_X0 + 8 * 14]
	\op_pair	x16, x17, [sp, #S_X0 + 8 * 16]
	\op_pair	x18, x19, [sp, #S_X0 + 8 * 18]
	\op_pair	x20, x21, [sp, #S_X0 + 8 * 20]
	\op_pair	x22, x23, [sp, #S_X0 + 8 * 22]
	\op_pair	x24, x25, [sp, #S_X0 + 8 * 24]
	\op_pair	x26, x27, [sp, #S_X0 + 8 * 26]
	\op_one	x28, [sp, #S_X0 + 8 * 28]
	.endm

/*
 * The body of both callers.  @base is the size of the register frame;
 * @full saves (and reloads) every general register and pstate, so that
 * callbacks of ops with FTRACE_OPS_FL_SAVE_REGS get a struct pt_regs.
 */
	.macro	ftrace_caller_body, base, full
	bti	c

	sub	sp, sp, #FC_RECORDS(\base)
	fregs_args stp, str
	.if	\full
	regs_callee stp, str
	str	x9, [sp, #S_X0 + 8 * 9]
	.endif
	/* fp and lr are neighbours in ftrace_regs, and so are sp and pc */
	stp	x29, x9, [sp, #FREGS_FP]
	add	x10, sp, #FC_RECORDS(\base)
	stp	x10, x30, [sp, #FREGS_SP]
	.if	\full
	/* The flags at the call, as an exception at EL1 would show them. */
	mrs	x10, nzcv
	mrs	x11, daif
	orr	x10, x10, x11
	mov	x11, #PSR_MODE_EL1h
	orr	x10, x10, x11
	/* pstate, then orig_x0 (the direct slot), syscallno, pmr_save */
	stp	x10, xzr, [sp, #FREGS_PSTATE]
	stp	xzr, xzr, [sp, #FREGS_PSTATE + 16]
	str	xzr, [sp, #FREGS_PSTATE + 32]
	.else
	/* pstate 0: no pt_regs here; no direct trampoline asked for yet */
	stp	xzr, xzr, [sp, #FREGS_PSTATE]
	.endif

	stp	x29, x9, [sp, #\base + 16]
	add	x29, sp, #\base + 16
	stp	x29, x30, [sp, #\base]
	add	x29, sp, #\base

	/* func(ip, parent_ip, op, fregs) */
	sub	x0, x30, #AARCH64_INSN_SIZE
	mov	x1, x9
	mov	x3, sp
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
	/*
	 * The site's literal: 16 or 20 bytes before x30 (with or without a
	 * "bti c" in between), 8-aligned, so 16 below x30 rounded down to 8.
	 */
	and	x2, x30, #~7
	ldur	x2, [x2, #-16]
	ldr	x4, [x2, #FTRACE_OPS_FUNC]
	blr	x4
#else
	/* No literal: the dispatcher finds the site's set by its address. */
	adr_l	x2, ftrace_list_end
	bl	arch_ftrace_ops_list_func
#endif

	/*
	 * x19-x28 survived the call; the rest comes from the frame.  A full
	 * frame reloads them too: a callback may have changed any register.
	 */
	.if	\full
	regs_callee ldp, ldr
	.endif
	fregs_args ldp, ldr
	ldp	x29, x30, [sp, #FREGS_FP]
	ldr	x9, [sp, #FREGS_PC]
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	ldr	x17, [sp, #FREGS_DIRECT_TRAMP]
	add	sp, sp, #FC_RECORDS(\base)
	cbnz	x17, .Ldirect\@
	ret	x9

.Ldirect\@:
	/* A direct ops asked for its trampoline: swap x9 and x30 for it. */
	mov	x16, x30
	mov	x30, x9
	mov	x9, x16
	br	x17
#else
	add	sp, sp, #FC_RECORDS(\base)
	ret	x9
#endif
	.endm

/*
 * Both callers lie between these two labels: a task is inside them while
 * an address between the labels is on its stack or in its registers
 * (ftrace_callers_quiet.c).
 */
	.globl	__ftrace_callers_start
__ftrace_callers_start:
SYM_CODE_START(ftrace_caller)
	ftrace_caller_body FREGS_SIZE, 0
SYM_CODE_END(ftrace_caller)

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
SYM_CODE_START(ftrace_regs_caller)
	ftrace_caller_body PT_REGS_SIZE, 1
SYM_CODE_END(ftrace_regs_caller)
#endif
	.globl	__ftrace_callers_end
__ftrace_callers_end:

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
/* A direct trampoline that does nothing: continue with x30 = x9. */
SYM_CODE_START(ftrace_stub_direct_tramp)
	bti	c
	mov	x16, x30
	mov	x30, x9
	ret	x16
SYM_CODE_END(ftrace_stub_direct_tramp)
#endif

SYM_TYPED_FUNC_START(ftrace_stub)
	ret
SYM_FUNC_END(ftrace_stub)

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
SYM_TYPED_FUNC_START(ftrace_stub_graph)
	ret
SYM_FUNC_END(ftrace_stub_graph)

/*
 * A hooked function returns here: its return value is in x0-x7 and x29 is
 * its caller's frame again, which is what ftrace_graph_func() recorded.
 * ftrace_return_to_handler() runs the return callbacks on a ftrace_regs
 * frame and gives back the real return address.
 *
 * The frame's fp and lr double as a frame record for the returning call,
 * so that an unwind from a return callback passes through the caller:
 * fp is the caller's x29 (also the key of the shadow-stack frame) and lr
 * starts as return_to_handler, which the unwinder translates while the
 * shadow-stack frame is there.  ftrace_return_to_handler() puts the real
 * return address in lr before any callback runs and before the frame is
 * popped, so no unwind ever meets a hook it cannot translate.  fregs->fp
 * sits 8 bytes off a 16-byte boundary in struct ftrace_regs, so the
 * struct starts at sp + 8 to give the record the alignment it needs.
 */
#define RTH_FREGS		8
#define RTH_SIZE		(FREGS_SIZE + 16)
	.if	(RTH_FREGS + FREGS_FP) % 16 || RTH_SIZE % 16
	.error	"return_to_handler: frame record or stack misaligned"
	.endif

SYM_CODE_START(return_to_handler)
	sub	sp, sp, #RTH_SIZE
	add	x9, sp, #RTH_FREGS
	fregs_args stp, str, x9
	adr	x10, return_to_handler
	stp	x29, x10, [x9, #FREGS_FP]
	add	x10, sp, #RTH_SIZE
	stp	x10, xzr, [x9, #FREGS_SP]
	str	xzr, [x9, #FREGS_PSTATE]
	add	x29, x9, #FREGS_FP

	mov	x0, x9
	bl	ftrace_return_to_handler
	mov	x30, x0

	add	x9, sp, #RTH_FREGS
	fregs_args ldp, ldr, x9
	ldr	x29, [x9, #FREGS_FP]
	add	sp, sp, #RTH_SIZE
	ret
SYM_CODE_END(return_to_handler)
#endif /* CONFIG_FUNCTION_GRAPH_TRACER */
