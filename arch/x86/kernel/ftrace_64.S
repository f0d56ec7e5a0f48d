/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 entry code of the function hooks.
 *
 * gcc -mfentry puts "call __fentry__" at the entry of every traceable
 * function.  The core turns each of those 5 bytes into a NOP at boot, and
 * into "call <caller>" while some ops wants the function, where <caller> is
 *
 *   ftrace_caller       builds an argument-only frame (cs = 0, so
 *                       ftrace_get_regs() returns NULL);
 *   ftrace_regs_caller  builds a complete pt_regs, flags included, and
 *                       honours a direct-call target left in orig_ax;
 *   a trampoline        a copy of one of the two that serves a single ops
 *                       (arch/x86/kernel/ftrace.c makes them).
 *
 * Both callers call (ip, parent_ip, op, fregs) in rdi, rsi, rdx, rcx:
 * ip is the call site, parent_ip the traced function's return address, op
 * function_trace_op (a trampoline loads its own ops instead) and fregs the
 * frame below.  The target of that call is the 5-byte slot at ftrace_call /
 * ftrace_regs_call, retargeted by ftrace_update_ftrace_func().
 *
 * The frame, from %rsp up, while the callback runs:
 *
 *	struct pt_regs				FRAME_SIZE bytes
 *	two frame records (FRAME_POINTER only)	FH_LINKS bytes
 *	saved flags (ftrace_regs_caller only)
 *	call site + MCOUNT_INSN_SIZE		our return address
 *	parent_ip				the traced function's return address
 *
 * ftrace_regs_caller pushes pt_regs in its own order, ss first, and pops
 * it back the same way.  ftrace_caller, the hot one, makes room once and
 * stores only what an ftrace_regs may be asked for (arguments, ax, bp, ip,
 * sp, and cs = 0); the other slots, orig_ax included, hold stale stack
 * contents.
 *
 * Invariants:
 *  - regs->ip is the call site + MCOUNT_INSN_SIZE on entry; the traced
 *    function resumes wherever regs->ip points when the callback returns
 *    (IPMODIFY ops, error injection).
 *  - regs->sp is the traced function's stack pointer at its entry, i.e.
 *    the address of parent_ip: ftrace_graph_func() hooks that slot.
 *  - In ftrace_regs_caller, regs->orig_ax is 0 on entry; when it is
 *    non-zero afterwards, the caller enters that address instead of
 *    returning, with the stack as the call site's own call would have left
 *    it (direct calls, which always use ftrace_regs_caller).
 *  - ax, cx, dx, si, di, r8 and r9 (and in ftrace_regs_caller every
 *    register and the flags) are popped from the frame before the traced
 *    function resumes, so a callback may change them through fregs; bp
 *    is stored but in ftrace_caller reloaded only with FRAME_POINTER
 *    (nothing sets it through an ftrace_regs).
 *  - The op load, the call slot fetch and the callback run with
 *    preemption off (PREEMPTION kernels), see fh_preempt_off.
 *  - Everything from a caller's symbol to its *_end label is copied into
 *    trampolines unchanged except for the 10-byte ops load at *_op_ref and
 *    the call slot.  The code must therefore only use relative branches
 *    within it or to outside symbols (text_poke_apply_relocation() fixes
 *    those), and a trampoline has the template's layout byte for byte: the
 *    ORC unwinder reads a trampoline's unwind data at the same offset in the
 *    template (orc_ftrace_find()).
 */

#include <linux/export.h>
#include <linux/cfi_types.h>
#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/ptrace.h>
#include <asm/ftrace.h>
#include <asm/nospec-branch.h>
#include <asm/percpu.h>
#include <asm/unwind_hints.h>
#include <asm/frame.h>

#ifdef CONFIG_FRAME_POINTER
/*
 * {frame of the parent, traced function} then {caller's rbp, parent_ip}:
 * a frame-pointer unwind from a callback sees both functions.
 */
# define FH_LINKS	(4 * 8)
#else
# define FH_LINKS	0
#endif

/* Bytes below the flags word (or the return address) */
#define FH_AREA		(FRAME_SIZE + FH_LINKS)

	.code64
	.section .text, "ax"

/*
 * Plain returns.  With CONFIG_DYNAMIC_FTRACE, __fentry__ is what the
 * compiler calls until the core NOPs the site; ftrace_stub is what
 * ftrace_call calls while nothing is registered.
 */
#ifdef CONFIG_DYNAMIC_FTRACE
SYM_FUNC_START(__fentry__)
	CALL_DEPTH_ACCOUNT
	RET
SYM_FUNC_END(__fentry__)
EXPORT_SYMBOL(__fentry__)
#endif

SYM_TYPED_FUNC_START(ftrace_stub)
	CALL_DEPTH_ACCOUNT
	RET
SYM_FUNC_END(ftrace_stub)

/* A direct-call trampoline that does nothing (boot self-tests use it). */
SYM_FUNC_START(ftrace_stub_direct_tramp)
	CALL_DEPTH_ACCOUNT
	RET
SYM_FUNC_END(ftrace_stub_direct_tramp)

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
SYM_TYPED_FUNC_START(ftrace_stub_graph)
	CALL_DEPTH_ACCOUNT
	RET
SYM_FUNC_END(ftrace_stub_graph)
#endif

/*
 * Frame-pointer records for the traced function and its caller, so that an
 * rbp-chain walk from a callback goes callback, traced function, parent.
 * Expects %rsi = parent_ip and regs->ip stored; leaves %rbp at the inner
 * record (regs->bp keeps the caller's value).
 */
.macro fh_link_frames
#ifdef CONFIG_FRAME_POINTER
	movq	%rbp, FRAME_SIZE + 16(%rsp)
	movq	%rsi, FRAME_SIZE + 24(%rsp)
	movq	RIP(%rsp), %rbp
	movq	%rbp, FRAME_SIZE + 8(%rsp)
	leaq	FRAME_SIZE + 16(%rsp), %rbp
	movq	%rbp, FRAME_SIZE(%rsp)
	leaq	FRAME_SIZE(%rsp), %rbp
#endif
.endm

/* The general registers of a struct pt_regs, di at the top, r15 last. */
.macro fh_push_gprs
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%rax
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%rbx
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
.endm

/*
 * ftrace_regs_caller's frame (it pushed the flags word just above): a
 * struct pt_regs pushed from ss down to r15, every register, the flags and
 * the kernel segments.  regs->sp is filled in by fh_frame_build.
 */
.macro fh_push_full_regs
	pushq	$__KERNEL_DS
	subq	$8, %rsp
	pushq	FH_LINKS + 16(%rsp)
	pushq	$__KERNEL_CS
	/* ip: our return address, the call site + MCOUNT_INSN_SIZE */
	pushq	FH_LINKS + 40(%rsp)
	/* orig_ax: no direct call unless a callback asks for one */
	pushq	$0
	fh_push_gprs
.endm

/* The reverse of fh_push_full_regs, up to and including di. */
.macro fh_pop_full_regs
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rax
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
.endm

/*
 * ftrace_caller's registers: the six argument registers, ax and bp, each
 * in its pt_regs slot.  @dir "to" stores them into the frame, "from"
 * loads them back.
 */
.macro fh_arg_slot dir, reg, slot
	.ifc \dir, to
	movq	%\reg, \slot(%rsp)
	.else
	movq	\slot(%rsp), %\reg
	.endif
.endm

.macro fh_arg_regs dir
	fh_arg_slot \dir, rdi, RDI
	fh_arg_slot \dir, rsi, RSI
	fh_arg_slot \dir, rdx, RDX
	fh_arg_slot \dir, rcx, RCX
	fh_arg_slot \dir, rax, RAX
	fh_arg_slot \dir, r8, R8
	fh_arg_slot \dir, r9, R9
	/*
	 * bp is stored for ftrace_regs_get_frame_pointer().  Only
	 * fh_link_frames changes it here, and the callback preserves it
	 * (callee-saved), so it is loaded back only with frame pointers.
	 */
#ifndef CONFIG_FRAME_POINTER
	.ifc \dir, to
#endif
	fh_arg_slot \dir, rbp, RBP
#ifndef CONFIG_FRAME_POINTER
	.endif
#endif
.endm

/* pt_regs slots above di: orig_ax, ip, cs, flags, sp, ss */
#define FH_REGS_TAIL	(6 * 8)

/*
 * Build the frame described at the top of this file.  @full: 1 for
 * ftrace_regs_caller, 0 for ftrace_caller.  Leaves %rdi = call site,
 * %rsi = parent_ip, %rcx = fregs.
 */
.macro fh_frame_build full
	.if \full
	/* Before anything that changes them. */
	pushfq
#ifdef CONFIG_FRAME_POINTER
	subq	$FH_LINKS, %rsp
#endif
	fh_push_full_regs
	movq	RIP(%rsp), %rdi
	.else
	/* Room once, then only the slots an ftrace_regs is asked for. */
	subq	$FH_AREA, %rsp
	fh_arg_regs to
	/* cs 0: arch_ftrace_get_regs() says "arguments only" */
	movq	$0, CS(%rsp)
	/* ip: our return address, the call site + MCOUNT_INSN_SIZE */
	movq	FH_AREA(%rsp), %rdi
	movq	%rdi, RIP(%rsp)
	.endif

	/* sp: the traced function's at entry, where parent_ip is */
	leaq	FH_AREA + 8 * \full + 8(%rsp), %rsi
	movq	%rsi, RSP(%rsp)
	movq	(%rsi), %rsi
	subq	$MCOUNT_INSN_SIZE, %rdi

	fh_link_frames
	movq	%rsp, %rcx
	CALL_DEPTH_ACCOUNT
.endm

/*
 * After the callback: the traced function resumes at regs->ip, and
 * ftrace_regs_caller hands it regs->flags.  Both go where RET and popfq
 * take them from.
 */
.macro fh_frame_resume_at full
	movq	RIP(%rsp), %rax
	movq	%rax, FH_AREA + 8 * \full(%rsp)
	.if \full
	movq	EFLAGS(%rsp), %rax
	movq	%rax, FH_AREA(%rsp)
	.endif
.endm

/*
 * The ops argument.  Trampolines overwrite these 10 bytes with
 * "movabs $ops, %rdx" (ftrace.c checks the bytes before it does).  Three
 * ignored DS prefixes pad the 7-byte load to 10 bytes, so the shared
 * caller runs one instruction here, not a load and a NOP.
 */
.macro fh_load_op
	.byte	0x3e, 0x3e, 0x3e
	movq	function_trace_op(%rip), %rdx
.endm

/*
 * The callers' preemption-off span (PREEMPTION kernels only).  It opens
 * before the op is loaded and before the call slot is fetched, and closes
 * once the callback returned: a task preempted anywhere else in a caller
 * or trampoline holds no ops pointer and will fetch the call slot afresh.
 * That is what lets the core wait for a removed ops' last callback with
 * synchronize_rcu_tasks_rude() alone (see "Removal" in
 * kernel/trace/ftrace.c).  pcpu_hot.preempt_count sits one word after
 * current_task (checked in ftrace.c); the rip-relative operand is fixed up
 * when the template is copied into a trampoline.
 */
#ifdef CONFIG_PREEMPTION
# define FH_PREEMPT_COUNT	PER_CPU_VAR(pcpu_hot + X86_current_task + 8)
.macro fh_preempt_off
	incl	FH_PREEMPT_COUNT
.endm

.macro fh_preempt_on
	decl	FH_PREEMPT_COUNT
	jnz	.Lfh_no_resched_\@
# ifdef CONFIG_PREEMPT_DYNAMIC
	call	__SCT__preempt_schedule_notrace
# else
	call	preempt_schedule_notrace_thunk
# endif
.Lfh_no_resched_\@:
.endm
#else
.macro fh_preempt_off
.endm
.macro fh_preempt_on
.endm
#endif

#ifdef CONFIG_DYNAMIC_FTRACE
SYM_FUNC_START(ftrace_caller)
	fh_frame_build 0
	fh_preempt_off
SYM_INNER_LABEL(ftrace_caller_op_ref, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	fh_load_op
	CALL_DEPTH_ACCOUNT
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	call	ftrace_stub
	fh_preempt_on
	fh_frame_resume_at 0
	fh_arg_regs from
	addq	$FH_AREA, %rsp
	/* bp's slot was a save to objtool, but bp never changed (no reload) */
	UNWIND_HINT_FUNC
	RET
SYM_INNER_LABEL(ftrace_caller_end, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	int3
SYM_FUNC_END(ftrace_caller)
STACK_FRAME_NON_STANDARD_FP ftrace_caller

SYM_FUNC_START(ftrace_regs_caller)
	fh_frame_build 1
	fh_preempt_off
SYM_INNER_LABEL(ftrace_regs_caller_op_ref, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	fh_load_op
	CALL_DEPTH_ACCOUNT
SYM_INNER_LABEL(ftrace_regs_call, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	call	ftrace_stub
	fh_preempt_on
	fh_frame_resume_at 1

	/* A direct call asked for (arch_ftrace_set_direct_caller())? */
	movq	ORIG_RAX(%rsp), %rax
	testq	%rax, %rax
	jnz	.Lfh_enter_direct

	fh_pop_full_regs
	addq	$FH_REGS_TAIL + FH_LINKS, %rsp
	popfq
	RET

.Lfh_enter_direct:
	/*
	 * Slide the flags one word down and put the direct target where they
	 * were: popfq then leaves "target, call site + 5, parent_ip", and RET
	 * enters the target as if the call site had called it.
	 */
	movq	FH_AREA(%rsp), %rcx
	movq	%rcx, FH_AREA - 8(%rsp)
	movq	%rax, FH_AREA(%rsp)
	fh_pop_full_regs
	addq	$FH_REGS_TAIL + FH_LINKS - 8, %rsp
	popfq
	UNWIND_HINT_FUNC
	RET
SYM_INNER_LABEL(ftrace_regs_caller_end, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	int3
SYM_FUNC_END(ftrace_regs_caller)
STACK_FRAME_NON_STANDARD_FP ftrace_regs_caller

#else /* !CONFIG_DYNAMIC_FTRACE */

/*
 * Without call-site records every traceable function keeps calling
 * __fentry__, so this is the one hook: a compare and a return while
 * ftrace_trace_function is ftrace_stub, else ftrace_caller's
 * argument-only frame and a call through the pointer.  The op is loaded
 * before the function, as ftrace_caller loads it before its call slot is
 * fetched: the core only changes function_trace_op while the function in
 * place ignores it (kernel/trace/ftrace.c).
 */
SYM_FUNC_START(__fentry__)
	CALL_DEPTH_ACCOUNT
	cmpq	$ftrace_stub, ftrace_trace_function(%rip)
	jnz	.Lfh_static_call
	RET
.Lfh_static_call:
	fh_frame_build 0
	movq	function_trace_op(%rip), %rdx
	movq	ftrace_trace_function(%rip), %r8
	CALL_NOSPEC r8
	fh_frame_resume_at 0
	fh_arg_regs from
	addq	$FH_AREA, %rsp
	/* bp's slot was a save to objtool, but bp never changed (no reload) */
	UNWIND_HINT_FUNC
	RET
SYM_FUNC_END(__fentry__)
EXPORT_SYMBOL(__fentry__)
STACK_FRAME_NON_STANDARD_FP __fentry__

#endif /* CONFIG_DYNAMIC_FTRACE */

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
/*
 * A return trampoline: a hooked function returns to \name (a hook put this
 * address in its return-address slot).  The slot is just below %rsp now:
 * put our own address back into it, so an unwind from a return callback
 * sees the hooked return there and translates it
 * (ftrace_graph_ret_addr()), then build an ftrace_regs (ax and dx the
 * return values, bp, sp the stack after the return, cs and the argument
 * registers 0) and ask
 * \handler where the function really returns to.
 *
 * @own_slot 1: \handler itself writes the real return address into the
 * slot (on every path, before RET) and sets the ftrace_regs' ip before
 * any return callback could read it, so neither store is done here.
 */
.macro fh_return_trampoline name, handler, own_slot=0
SYM_CODE_START(\name)
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	pushq	$\name
	UNWIND_HINT_FUNC
	subq	$FRAME_SIZE, %rsp
	movq	%rax, RAX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rbp, RBP(%rsp)
	leaq	FRAME_SIZE + 8(%rsp), %rax
	movq	%rax, RSP(%rsp)
	/*
	 * The argument slots hold nothing at a return: zero, not the stale
	 * stack a BPF program's pt_regs view would otherwise show.
	 */
	xorl	%eax, %eax
	movq	%rax, CS(%rsp)
	movq	%rax, RDI(%rsp)
	movq	%rax, RSI(%rsp)
	movq	%rax, RCX(%rsp)
	movq	%rax, R8(%rsp)
	movq	%rax, R9(%rsp)
	.if !\own_slot
	movq	$0, RIP(%rsp)
	.endif
	movq	%rsp, %rdi
	call	\handler

	.if !\own_slot
	/* The real return address goes into the slot, RET takes it. */
	movq	%rax, FRAME_SIZE(%rsp)
	.endif
	movq	RBP(%rsp), %rbp
	movq	RDX(%rsp), %rdx
	movq	RAX(%rsp), %rax
	addq	$FRAME_SIZE, %rsp
	RET
SYM_CODE_END(\name)
.endm

/* fgraph's: return callbacks of the top frame's users. */
fh_return_trampoline return_to_handler, ftrace_return_to_handler

#if defined(CONFIG_FPROBE) && defined(CONFIG_HAVE_FPROBE_RETURN_HANDLER)
/*
 * fprobe's: its entry callback pushed a direct frame and hooked the
 * return here; fprobe_return() runs the exit handlers, pops the frame
 * without fgraph's dispatch (kernel/trace/fgraph_frame.h) and puts the
 * real return address into the slot itself.
 */
fh_return_trampoline fprobe_return_handler, fprobe_return, 1
#endif

#if defined(CONFIG_KRETPROBE_ON_FGRAPH) && \
	defined(CONFIG_HAVE_KRETPROBE_RETURN_HANDLER)
/*
 * Return probes': kretprobe_hit() (kernel/kretprobes_fgraph.c) pushed the
 * call's direct frame and hooked the return here.  Handlers get a struct
 * pt_regs, as 6.12's kretprobe trampoline gave them: every general
 * register as the function returned it, the flags, the kernel segments,
 * orig_ax -1 and sp the stack after the return; ip starts at 0 and
 * kretprobe_return() sets it to the real return address before the
 * handler runs.  kretprobe_return() also pops the frame and puts the real
 * return address into the slot above the registers itself, so no store
 * of what it returns is done here.  Only ax and dx are loaded back, the
 * return value a handler may change: the call kept the callee-saved
 * registers, and the others mean nothing at a return.  The frame is built
 * by pushes, from ss down to r15, right below the slot.
 */
SYM_CODE_START(kretprobe_return_handler)
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	/* The slot again, hooked, for an unwind until the C half rewrites it. */
	pushq	$kretprobe_return_handler
	UNWIND_HINT_FUNC
	pushq	$__KERNEL_DS
	/* sp: 16 below the stack after the return until fixed below */
	pushq	%rsp
	pushfq
	pushq	$__KERNEL_CS
	/* ip */
	pushq	$0
	/* orig_ax */
	pushq	$-1
	fh_push_gprs
	addq	$16, RSP(%rsp)
	movq	%rsp, %rdi
	call	kretprobe_return
	movq	RDX(%rsp), %rdx
	movq	RAX(%rsp), %rax
	addq	$FRAME_SIZE, %rsp
	/* The pushes of callee-saved registers were saves to objtool: none changed. */
	UNWIND_HINT_FUNC
	RET
SYM_CODE_END(kretprobe_return_handler)
/* A return probe on it would hook a word that is no return address. */
_ASM_NOKPROBE(kretprobe_return_handler)
#endif
#endif
