/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tracing KUnit suites (kernel/trace/, kernel/kprobes_kunit.c)
 * must know of x86-64: the register names a fetch argument uses and where
 * they sit in pt_regs, what a kprobe handler sees on a call site, the
 * errno of a kprobe inside an instruction, which registers the pt_regs
 * view of an argument-only frame leaves zero, and a direct-call trampoline
 * that only counts.  Each section names the suite that uses it.
 *
 * Only KUnit suites include this header, and only where the arch selects
 * HAVE_ARCH_TRACE_KUNIT; no kernel code depends on it.  The values are
 * those of a 64-bit kernel: x86 selects the symbol for X86_64 only.
 */
#ifndef _ASM_X86_TRACE_KUNIT_H
#define _ASM_X86_TRACE_KUNIT_H

#include <linux/errno.h>
#include <linux/ftrace.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <asm/nospec-branch.h>
#include <asm/processor-flags.h>
#include <asm/ptrace.h>
#include <asm/segment.h>
#include <asm/text-patching.h>

/*
 * trace_probe: seven general registers, the stack pointer and the
 * instruction pointer as a fetch argument names them, and the pt_regs
 * offset each one compiles to.  Every name is three characters long with
 * its '%'.
 */
#define TRACE_KUNIT_REG0		"%ax"
#define TRACE_KUNIT_REG1		"%bx"
#define TRACE_KUNIT_REG2		"%cx"
#define TRACE_KUNIT_REG3		"%dx"
#define TRACE_KUNIT_REG4		"%si"
#define TRACE_KUNIT_REG5		"%di"
#define TRACE_KUNIT_REG6		"%bp"
#define TRACE_KUNIT_REG_SP		"%sp"
#define TRACE_KUNIT_REG_PC		"%ip"
#define TRACE_KUNIT_REG0_OFFSET		offsetof(struct pt_regs, ax)
#define TRACE_KUNIT_REG1_OFFSET		offsetof(struct pt_regs, bx)
#define TRACE_KUNIT_REG2_OFFSET		offsetof(struct pt_regs, cx)
#define TRACE_KUNIT_REG3_OFFSET		offsetof(struct pt_regs, dx)
#define TRACE_KUNIT_REG4_OFFSET		offsetof(struct pt_regs, si)
#define TRACE_KUNIT_REG5_OFFSET		offsetof(struct pt_regs, di)
#define TRACE_KUNIT_REG6_OFFSET		offsetof(struct pt_regs, bp)
#define TRACE_KUNIT_REG_SP_OFFSET	offsetof(struct pt_regs, sp)
#define TRACE_KUNIT_REG_PC_OFFSET	offsetof(struct pt_regs, ip)
/* A pt_regs initializer: a kernel frame whose first three arguments are @a, @b, @c. */
#define TRACE_KUNIT_ARG_REGS(a, b, c)	{ .di = (a), .si = (b), .dx = (c) }

/*
 * trace_uprobe: the registers of the first two function arguments, as a
 * fetch argument names them.
 */
#define TRACE_KUNIT_ARG0_REG		"%di"
#define TRACE_KUNIT_ARG1_REG		"%si"

/*
 * fprobe: an unwind from an exit handler reaches the probed function's
 * caller, through the hooked return address.
 */
#define TRACE_KUNIT_EXIT_UNWIND_SEES_CALLER	true

/*
 * ftrace_core: the callers run callbacks with preemption off; a removal
 * waits for them without looking at tasks (no ftrace_arch_callers_quiet()).
 */
#define TRACE_KUNIT_CALLERS_QUIET	false

/* kprobe_ftrace, kprobes_core: the pc a breakpoint at @addr shows, past the int3. */
#define TRACE_KUNIT_TRAP_IP(addr)	((addr) + INT3_INSN_SIZE)

/*
 * kprobes_core: what register_kprobe() returns for an address inside an
 * instruction: decoding the function from its start finds no
 * instruction that begins there.
 */
#define TRACE_KUNIT_KPROBE_INSIDE_INSN_ERR	(-EILSEQ)

/* kprobe_ftrace: whether @regs has interrupts on. */
static inline bool trace_kunit_irqs_on(struct pt_regs *regs)
{
	return regs->flags & X86_EFLAGS_IF;
}

/* kprobe_ftrace: a kernel frame, no direct-call slot in use. */
static inline bool trace_kunit_kernel_frame(struct pt_regs *regs)
{
	return regs->cs == __KERNEL_CS && !regs->orig_ax;
}

/* kprobe_ftrace: at a function's entry the return address is the word at sp. */
static inline unsigned long trace_kunit_entry_ret_addr(struct pt_regs *regs)
{
	return *(unsigned long *)kernel_stack_pointer(regs);
}

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
/* kprobe_ftrace: the pt_regs in a frame of ftrace_regs_caller. */
static inline struct pt_regs *trace_kunit_fregs_pt_regs(struct ftrace_regs *fregs)
{
	return &arch_ftrace_regs(fregs)->regs;
}
#endif

/*
 * kprobe_ftrace: turn an argument-only frame into a pt_regs one, with the
 * return address in *@ret_slot.
 */
static inline void trace_kunit_make_full_regs(struct pt_regs *regs,
					      unsigned long *ret_slot)
{
	regs->cs = __KERNEL_CS;
	regs->flags = X86_EFLAGS_FIXED;
	regs->sp = (unsigned long)ret_slot;
}

/*
 * ftrace_core: whether the slots that the pt_regs view of an argument-only
 * frame (ftrace_regs_get_pt_regs()) does not fill read as zero; bx, r12,
 * r15 and orig_ax stand for them.
 */
static inline bool trace_kunit_unsaved_regs_zero(struct pt_regs *regs)
{
	return !(regs->bx | regs->r12 | regs->r15 | regs->orig_ax);
}

/*
 * ftrace_core: define @tramp, a direct-call trampoline that only counts:
 * it adds one to the unsigned long @counter, touches no register but the
 * flags and returns to the address below it, which is the traced
 * function's body (a site that calls it directly) or wherever an
 * ip-modifier sent the call (a site shared through ftrace_regs_caller).
 * Use it once, at file scope.
 */
#define TRACE_KUNIT_DIRECT_TRAMP(tramp, counter)			\
asm("	.pushsection .text, \"ax\", @progbits\n"			\
	"	.type " #tramp ", @function\n"				\
	"	.globl " #tramp "\n"					\
	#tramp ":\n"							\
	ASM_ENDBR							\
	CALL_DEPTH_ACCOUNT "\n"						\
	"	lock incq " #counter "(%rip)\n"				\
	ASM_RET								\
	"	.size " #tramp ", .-" #tramp "\n"			\
	"	.popsection\n"						\
)

#endif /* _ASM_X86_TRACE_KUNIT_H */
