/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trampoline every direct-call sample uses.
 *
 * A direct call replaces the call site at a function's entry with a call
 * to code of the caller's choosing, with no ftrace_regs frame and no
 * dispatcher in between.  That code therefore runs in the traced
 * function's prologue with the traced function's arguments still live in
 * registers, and must hand them back untouched.  The samples write it
 * once, here:
 *
 *	SAMPLE_DIRECT_TRAMP(tramp, handler);
 *
 * emits a global text symbol @tramp that keeps every argument register,
 * calls
 *
 *	void handler(unsigned long site, unsigned long a0, unsigned long a1,
 *		     unsigned long a2, unsigned long a3);
 *
 * with @site the address of the patched call site and a0..a3 the traced
 * function's first four arguments, and then resumes the traced function.
 * The address of @tramp is what register_ftrace_direct() and
 * modify_ftrace_direct() are given.
 *
 * Invariant shared by both architectures: the trampoline leaves every
 * register a function's entry may still need (argument registers, and on
 * x86-64 %rax for variadic callees, on arm64 x8 for returned aggregates)
 * as it found it, and builds a frame record so unwinders can walk
 * through it.
 */
#ifndef _SAMPLES_FTRACE_DIRECT_TRAMP_H
#define _SAMPLES_FTRACE_DIRECT_TRAMP_H

#include <linux/ftrace.h>
#include <linux/linkage.h>
#include <linux/stringify.h>

#define SAMPLE_DIRECT_HANDLER(handler)					\
	void handler(unsigned long site, unsigned long a0,		\
		     unsigned long a1, unsigned long a2, unsigned long a3)

#if defined(CONFIG_X86_64)

#include <asm/ibt.h>
#include <asm/nospec-branch.h>

/*
 * Entered by the 5-byte call at the traced function's entry: 0(%rsp) is
 * the address right after that call.  Seven saved registers and the frame
 * pointer keep the stack 16-byte aligned at the inner call.
 */
#define SAMPLE_DIRECT_TRAMP_BODY(handler)				\
	    ASM_ENDBR							\
	    "pushq %rbp\n"						\
	    "movq %rsp, %rbp\n"						\
	    CALL_DEPTH_ACCOUNT						\
	    "pushq %rax\n"						\
	    "pushq %rdi\n"						\
	    "pushq %rsi\n"						\
	    "pushq %rdx\n"						\
	    "pushq %rcx\n"						\
	    "pushq %r8\n"						\
	    "pushq %r9\n"						\
	    "movq %rcx, %r8\n"						\
	    "movq %rdx, %rcx\n"						\
	    "movq %rsi, %rdx\n"						\
	    "movq %rdi, %rsi\n"						\
	    "movq 8(%rbp), %rdi\n"					\
	    "subq $" __stringify(MCOUNT_INSN_SIZE) ", %rdi\n"		\
	    "call " #handler "\n"					\
	    "popq %r9\n"						\
	    "popq %r8\n"						\
	    "popq %rcx\n"						\
	    "popq %rdx\n"						\
	    "popq %rsi\n"						\
	    "popq %rdi\n"						\
	    "popq %rax\n"						\
	    "leave\n"							\
	    ASM_RET

#elif defined(CONFIG_ARM64)

/*
 * Entered by the BL at the traced function's patchable entry (directly,
 * or through ftrace_caller when the trampoline is out of BL range): x30
 * is the address after that BL and x9 the traced function's own return
 * address.  The exit swaps them back: x30 gets the caller's return
 * address again and we return through x9.  The frame is 96 bytes:
 * x0-x7 at 0, x8 and x9 at 64, the frame record (x29, x30) at 80.
 */
#define SAMPLE_DIRECT_TRAMP_BODY(handler)				\
	    "hint 34\n"		/* BTI C: reached by BL or BR x16/x17 */\
	    "sub sp, sp, #96\n"						\
	    "stp x0, x1, [sp, #0]\n"					\
	    "stp x2, x3, [sp, #16]\n"					\
	    "stp x4, x5, [sp, #32]\n"					\
	    "stp x6, x7, [sp, #48]\n"					\
	    "stp x8, x9, [sp, #64]\n"					\
	    "stp x29, x30, [sp, #80]\n"					\
	    "add x29, sp, #80\n"					\
	    "mov x4, x3\n"						\
	    "mov x3, x2\n"						\
	    "mov x2, x1\n"						\
	    "mov x1, x0\n"						\
	    "sub x0, x30, #4\n"						\
	    "bl " #handler "\n"						\
	    "ldp x0, x1, [sp, #0]\n"					\
	    "ldp x2, x3, [sp, #16]\n"					\
	    "ldp x4, x5, [sp, #32]\n"					\
	    "ldp x6, x7, [sp, #48]\n"					\
	    "ldp x8, x30, [sp, #64]\n"					\
	    "ldp x29, x9, [sp, #80]\n"					\
	    "add sp, sp, #96\n"						\
	    "ret x9\n"

#else
#error "the direct-call samples have a trampoline for x86-64 and arm64 only"
#endif

/* The symbol around the architecture's body. */
#define SAMPLE_DIRECT_TRAMP(tramp, handler)				\
	SAMPLE_DIRECT_HANDLER(handler);					\
	void tramp(void);						\
	asm(".pushsection .text, \"ax\", @progbits\n"			\
	    ".type " #tramp ", @function\n"				\
	    ".globl " #tramp "\n"					\
	    #tramp ":\n"						\
	    SAMPLE_DIRECT_TRAMP_BODY(handler)				\
	    ".size " #tramp ", .-" #tramp "\n"				\
	    ".popsection\n")

#endif /* _SAMPLES_FTRACE_DIRECT_TRAMP_H */
