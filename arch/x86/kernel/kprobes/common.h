/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the x86 kprobes files share: core.c (the int3 hit path, arming),
 * decode.c (reading, checking and copying the probed instruction),
 * emulate.c (instructions the trap applies itself), opt.c (jump
 * optimization) and ftrace.c (probes on call sites).
 */
#ifndef __X86_KERNEL_KPROBES_COMMON_H
#define __X86_KERNEL_KPROBES_COMMON_H

#include <asm/asm.h>
#include <asm/frame.h>
#include <asm/insn.h>
#include <asm/insn-emul.h>
#include <asm/kprobes.h>

struct kprobe;
struct pt_regs;

#ifdef CONFIG_X86_64
/*
 * For inline assembly that builds a struct pt_regs on the stack (the jump
 * optimization's template): SAVE_REGS_STRING leaves three words for cs,
 * ip and orig_ax below what the caller pushed (flags, sp, ss) and pushes
 * the general registers in pt_regs order; RESTORE_REGS_STRING undoes it.
 */
#define SAVE_REGS_STRING						\
	"	subq $24, %rsp\n	pushq %rdi\n	pushq %rsi\n"	\
	"	pushq %rdx\n	pushq %rcx\n	pushq %rax\n"		\
	"	pushq %r8\n	pushq %r9\n	pushq %r10\n"		\
	"	pushq %r11\n	pushq %rbx\n	pushq %rbp\n"		\
	"	pushq %r12\n	pushq %r13\n	pushq %r14\n"		\
	"	pushq %r15\n"						\
	ENCODE_FRAME_POINTER

#define RESTORE_REGS_STRING						\
	"	popq %r15\n	popq %r14\n	popq %r13\n"		\
	"	popq %r12\n	popq %rbp\n	popq %rbx\n"		\
	"	popq %r11\n	popq %r10\n	popq %r9\n"		\
	"	popq %r8\n	popq %rax\n	popq %rcx\n"		\
	"	popq %rdx\n	popq %rsi\n	popq %rdi\n"		\
	"	addq $24, %rsp\n"
#endif

/* Kinds of emulation, struct arch_specific_insn's @kind (emulate.c). */
enum kprobe_x86_emul {
	KX_COPY = 0,	/* not emulated: run the copy in ->insn */
	KX_REGOP,	/* register-only, insn_emul_apply() */
	KX_JMP,		/* jmp rel8 / rel32 */
	KX_JCC,		/* jcc rel8 / rel32, @cond the condition */
	KX_CALL,	/* call rel32 */
	KX_RET,		/* ret, ret imm16 (@disp the bytes to drop) */
	KX_LOOP,	/* loopne, loope, loop, jrcxz (@cond 0-3) */
	KX_CALL_REG,	/* call *%reg */
	KX_JMP_REG,	/* jmp *%reg */
	KX_PUSH_REG,	/* push %reg */
	KX_POP_REG,	/* pop %reg */
	KX_PUSHF,
	KX_POPF,
	KX_CLI,
	KX_STI,
	KX_LEA,		/* lea without an address-size prefix */
};

/* decode.c */
bool can_boost(struct insn *insn, void *addr);
unsigned long recover_probed_instruction(kprobe_opcode_t *buf,
					 unsigned long addr);
int __copy_instruction(u8 *dest, u8 *src, u8 *real, struct insn *insn);
void synthesize_reljump(void *dest, void *from, void *to);
void synthesize_relcall(void *dest, void *from, void *to);
int kprobe_decode_probed(struct kprobe *p, struct insn *insn, u8 *buf);
bool kprobe_decode_text(struct insn *insn, unsigned long at);

/* emulate.c */
int kprobe_emul_prepare(struct kprobe *p, struct insn *insn);
void kprobe_emul_run(struct kprobe *p, struct pt_regs *regs);

/*
 * The hit's way to kprobe_emul_run(): a mov between two registers, the
 * most common instruction in a function's body, without the call.
 */
static __always_inline void kprobe_emulate(struct kprobe *p,
					   struct pt_regs *regs)
{
	const struct insn_emul *op = &p->ainsn.regop;
	unsigned long *gpr = (unsigned long *)regs;
	unsigned long val;

	if (p->ainsn.kind == KX_REGOP && op->kind == INSN_EMUL_MOV) {
		val = gpr[op->src];
		gpr[op->dst] = op->wide ? val : (u32)val;
		regs->ip = (unsigned long)p->addr + op->len;
		return;
	}
	kprobe_emul_run(p, regs);
}

/* copy_64.S: where every copy jumps after its instruction. */
extern const u8 kprobe_copy_return[];
/* core.c: what kprobe_copy_return calls. */
__visible void kprobe_copy_done(struct pt_regs *regs);

/* optjump_64.S: what an optimized probe's buffer calls; and its callee. */
extern const u8 kprobe_opt_entry[];
__visible void kprobe_opt_hit(struct pt_regs *regs);

#ifdef CONFIG_OPTPROBES
int setup_detour_execution(struct kprobe *p, struct pt_regs *regs, int reenter);
unsigned long __recover_optprobed_insn(kprobe_opcode_t *buf, unsigned long addr);
#else
static inline int setup_detour_execution(struct kprobe *p,
					 struct pt_regs *regs, int reenter)
{
	return 0;
}

static inline unsigned long __recover_optprobed_insn(kprobe_opcode_t *buf,
						     unsigned long addr)
{
	return addr;
}
#endif

#endif /* __X86_KERNEL_KPROBES_COMMON_H */
