// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 kretprobes: hooking a return through the link register.
 *
 * With the per-task backend (kernel/kretprobes_tasklist.c) a return
 * probe's entry hit keeps the real return address (x30 at the entry) and
 * the caller's frame pointer (x29) in its instance, and points x30 at
 * __kretprobe_trampoline (kprobes_trampoline.S).  The probed function's
 * RET lands there, on BRK #KRETPROBES_BRK_IMM, and kretprobe_brk_handler()
 * runs the handlers of the frame and sends the CPU on to the real return
 * address.  With CONFIG_KRETPROBE_ON_FGRAPH the function graph tracer
 * hooks returns instead, and nothing ever lands on the trampoline.
 *
 * Invariants:
 *  - x29 at the entry of the probed function and x29 at its return are
 *    the same value, its caller's frame pointer (AAPCS64: x29 is
 *    callee-saved), so it is the key that ties instances to the frame.
 *  - The trampoline is reached by a RET only (BTYPE is then clear) and
 *    left by the exception return to the real address; the instruction
 *    after its BRK must never run.
 *  - kretprobe_brk_handler() runs in the BRK exception at EL1 with DAIF
 *    masked, as a kprobe hit (kprobe_busy_begin() in the core): probes
 *    hit by the return handlers count as missed.
 */
#include <linux/kprobes.h>
#include <linux/ptrace.h>

#include <asm/debug-monitors.h>

/**
 * arch_prepare_kretprobe - hook the return of the function being entered
 * @ri: the instance that keeps the real return address and frame
 * @regs: the state at the function's entry
 *
 * Context: a kprobe hit on the function's first instruction.
 */
void __kprobes arch_prepare_kretprobe(struct kretprobe_instance *ri,
				      struct pt_regs *regs)
{
	ri->fp = (void *)regs->regs[29];
	ri->ret_addr = (kprobe_opcode_t *)regs->regs[30];
	regs->regs[30] = (unsigned long)__kretprobe_trampoline;
}

/**
 * kretprobe_brk_handler - a hooked return landed on the trampoline
 * @regs: the state at the return, pc on __kretprobe_trampoline
 * @esr: the exception syndrome (unused)
 *
 * Context: BRK exception at EL1, DAIF masked.
 * Return: DBG_HOOK_HANDLED with the pc on the real return address, or
 * DBG_HOOK_ERROR for a KRETPROBES_BRK_IMM BRK elsewhere.
 */
int __kprobes kretprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	unsigned long to;

	if (instruction_pointer(regs) != (unsigned long)__kretprobe_trampoline)
		return DBG_HOOK_ERROR;

	to = kretprobe_trampoline_handler(regs, (void *)regs->regs[29]);
	instruction_pointer_set(regs, to);
	return DBG_HOOK_HANDLED;
}

/**
 * arch_trampoline_kprobe - is @p the kprobe of the return trampoline
 * @p: a kprobe
 *
 * arm64's trampoline traps with its own BRK; it has no kprobe.
 *
 * Return: 0.
 */
int __kprobes arch_trampoline_kprobe(struct kprobe *p)
{
	return 0;
}
