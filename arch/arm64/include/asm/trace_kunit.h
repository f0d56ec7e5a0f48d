/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tracing KUnit suites (kernel/trace/, kernel/kprobes_kunit.c)
 * must know of arm64: the register names a fetch argument uses and where
 * they sit in pt_regs, what a kprobe handler sees on a call site, the
 * errno of a kprobe inside an instruction, and a direct-call trampoline
 * that only counts.  Each section names the suite that uses it.
 *
 * Only KUnit suites include this header, and only where the arch selects
 * HAVE_ARCH_TRACE_KUNIT; no kernel code depends on it.
 */
#ifndef __ASM_TRACE_KUNIT_H
#define __ASM_TRACE_KUNIT_H

#include <linux/errno.h>
#include <linux/ftrace.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <asm/insn.h>
#include <asm/ptrace.h>

/*
 * trace_probe: seven general registers, the stack pointer and the program
 * counter as a fetch argument names them, and the pt_regs offset each one
 * compiles to.  Every name is three characters long with its '%'.
 */
#define TRACE_KUNIT_REG0		"%x0"
#define TRACE_KUNIT_REG1		"%x1"
#define TRACE_KUNIT_REG2		"%x2"
#define TRACE_KUNIT_REG3		"%x3"
#define TRACE_KUNIT_REG4		"%x4"
#define TRACE_KUNIT_REG5		"%x5"
#define TRACE_KUNIT_REG6		"%x6"
#define TRACE_KUNIT_REG_SP		"%sp"
#define TRACE_KUNIT_REG_PC		"%pc"
#define TRACE_KUNIT_REG0_OFFSET		offsetof(struct pt_regs, regs[0])
#define TRACE_KUNIT_REG1_OFFSET		offsetof(struct pt_regs, regs[1])
#define TRACE_KUNIT_REG2_OFFSET		offsetof(struct pt_regs, regs[2])
#define TRACE_KUNIT_REG3_OFFSET		offsetof(struct pt_regs, regs[3])
#define TRACE_KUNIT_REG4_OFFSET		offsetof(struct pt_regs, regs[4])
#define TRACE_KUNIT_REG5_OFFSET		offsetof(struct pt_regs, regs[5])
#define TRACE_KUNIT_REG6_OFFSET		offsetof(struct pt_regs, regs[6])
#define TRACE_KUNIT_REG_SP_OFFSET	offsetof(struct pt_regs, sp)
#define TRACE_KUNIT_REG_PC_OFFSET	offsetof(struct pt_regs, pc)
/* A pt_regs initializer: a kernel frame whose first three arguments are @a, @b, @c. */
#define TRACE_KUNIT_ARG_REGS(a, b, c)	{ .regs = { (a), (b), (c) } }

/*
 * trace_uprobe: the registers of the first two function arguments, as a
 * fetch argument names them.
 */
#define TRACE_KUNIT_ARG0_REG		"%x0"
#define TRACE_KUNIT_ARG1_REG		"%x1"

/*
 * fprobe: an unwind from an exit handler reaches the probed function's
 * caller, through the frame record return_to_handler builds for the
 * returning call, which holds the real return address by the time a
 * handler runs.
 */
#define TRACE_KUNIT_EXIT_UNWIND_SEES_CALLER	true

/*
 * ftrace_core: the callers call callbacks preemptibly, and a removal
 * looks at each task for them (ftrace_arch_callers_quiet()).
 */
#define TRACE_KUNIT_CALLERS_QUIET	true

/* kprobe_ftrace, kprobes_core: the pc a breakpoint at @addr shows; a BRK leaves it on the probe. */
#define TRACE_KUNIT_TRAP_IP(addr)	(addr)

/*
 * kprobes_core: what register_kprobe() returns for an address inside an
 * instruction, which is one that is not 4-byte aligned.
 */
#define TRACE_KUNIT_KPROBE_INSIDE_INSN_ERR	(-EINVAL)

/* kprobe_ftrace: whether @regs has interrupts on. */
static inline bool trace_kunit_irqs_on(struct pt_regs *regs)
{
	return !(regs->pstate & PSR_I_BIT);
}

/* kprobe_ftrace: a kernel frame. */
static inline bool trace_kunit_kernel_frame(struct pt_regs *regs)
{
	return (regs->pstate & PSR_MODE_MASK) == PSR_MODE_EL1h;
}

/* kprobe_ftrace: at a function's entry the return address is in x30. */
static inline unsigned long trace_kunit_entry_ret_addr(struct pt_regs *regs)
{
	return regs->regs[30];
}

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
/*
 * kprobe_ftrace: the pt_regs in a frame of ftrace_regs_caller, whose
 * ftrace_regs is the start of its pt_regs.
 */
static inline struct pt_regs *trace_kunit_fregs_pt_regs(struct ftrace_regs *fregs)
{
	return (struct pt_regs *)fregs;
}
#endif

/*
 * kprobe_ftrace: turn an argument-only frame into a pt_regs one, with the
 * return address in *@ret_slot.
 */
static inline void trace_kunit_make_full_regs(struct pt_regs *regs,
					      unsigned long *ret_slot)
{
	regs->pstate = PSR_MODE_EL1h;
	regs->regs[30] = *ret_slot;
}

/*
 * ftrace_core: whether the slots that the pt_regs view of an argument-only
 * frame does not fill read as zero.  arm64 has no such view (no
 * arch_ftrace_get_pt_regs()), so there are none to check.
 */
static inline bool trace_kunit_unsaved_regs_zero(struct pt_regs *regs)
{
	return true;
}

/*
 * ftrace_core: define @tramp, a direct-call trampoline that only adds one
 * to the unsigned long @counter.  A direct trampoline is entered with
 * x9 = the traced function's return address and x30 = where the function
 * goes on: its body after the BL (a site that calls it directly) or
 * wherever an ip-modifier sent the call (a site shared through
 * ftrace_caller).  It counts with an exclusive load/store loop in x10-x12
 * (scratch at a function's entry), puts the return address back in x30
 * and jumps to where the function goes on.  "hint 34" is "bti c".  Use it
 * once, at file scope.
 */
#define TRACE_KUNIT_DIRECT_TRAMP(tramp, counter)			\
asm("	.pushsection .text, \"ax\", @progbits\n"			\
	"	.type " #tramp ", @function\n"				\
	"	.globl " #tramp "\n"					\
	#tramp ":\n"							\
	"	hint	34\n"						\
	"	adrp	x10, " #counter "\n"				\
	"	add	x10, x10, :lo12:" #counter "\n"			\
	"1:	ldxr	x11, [x10]\n"					\
	"	add	x11, x11, #1\n"					\
	"	stxr	w12, x11, [x10]\n"				\
	"	cbnz	w12, 1b\n"					\
	"	mov	x10, x30\n"					\
	"	mov	x30, x9\n"					\
	"	ret	x10\n"						\
	"	.size " #tramp ", .-" #tramp "\n"			\
	"	.popsection\n"						\
)

#endif /* __ASM_TRACE_KUNIT_H */
