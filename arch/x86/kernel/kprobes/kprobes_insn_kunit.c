// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "x86_kprobes_insn": a kprobe on an instruction must leave
 * exactly the machine state that running the instruction without a probe
 * leaves.  For every kind of instruction the x86 kprobes layer either
 * emulates in its breakpoint handler (jumps, conditional jumps, calls and
 * returns, loop/jrcxz, indirect call and jump through a register, pushf,
 * popf, cli, sti, NOPs, endbr64, mov/add/sub/push/pop/lea on registers)
 * or copies out of line (RIP-relative loads, stores, lea and
 * read-modify-write with an immediate after the displacement, loads and
 * stores through a register, xchg, lock cmpxchg, imul, shifts by %cl,
 * cmovcc, setcc, bt, movzx, push from memory, a 10-byte movabs and a
 * 15-byte store), the suite proves, through register_kprobe() alone:
 *
 *  - the sixteen general registers, the stack pointer, the arithmetic
 *    flags, DF and IF, the word on top of the stack and a 64-byte memory
 *    buffer come out of the probed run exactly as out of the native run,
 *    from four sets of inputs (which take each conditional transfer both
 *    ways);
 *  - the pre_handler runs once per run, sees the trap address and the
 *    registers going in; the post_handler runs once per run, sees the
 *    registers coming out and an ip that is the next instruction or the
 *    transfer's target; nothing counts as missed; no handler runs with
 *    DF set;
 *  - once unregistered, the probe is gone: the same runs hit nothing;
 *  - a load covered by an exception-table entry that faults is fixed up
 *    as if it had faulted at its own address (the entry sets a register
 *    and resumes at its fixup label), with one pre_handler call and no
 *    post_handler call;
 *  - a pre_handler that moves regs->ip and returns 1 skips the
 *    instruction, with no post_handler call;
 *  - a probe hit from inside another probe's pre_handler counts in its
 *    nmissed, runs no handler and still runs its instruction correctly;
 *  - two kprobes on one address are both called, and either can go first;
 *  - instructions the layer cannot run anywhere but in place (hlt, int3,
 *    ud2, iretq, far jmp/call, call/jmp through memory, mov to %ss) are
 *    refused by register_kprobe().
 *
 * How a run works.  Each instruction sits at label 1 of an assembler stub
 * of its own, kpinsn_<id>(), called from C with a struct kpi_cpu.  The
 * stub records the addresses of its labels, saves the callee-saved
 * registers, RFLAGS and the previous value of kpinsn_cur on the stack,
 * remembers that frame and the struct (in kpinsn_cur), runs an optional
 * setup (pushes for ret, pop and popf), loads RFLAGS and every register
 * but %rsp from the struct, and runs the instruction.  The stack pointer
 * stays the real one throughout, so the breakpoint's trap frame, and any
 * interrupt, lands on a valid stack: the stub never keeps data below
 * %rsp.  Interrupts stay as the caller had them.  Three paths lead to the
 * common store code, each first writing which path it is into
 * kpinsn_where (a move of an immediate: no register or flag changes):
 * label 2, right after the instruction (where = 1), label 8, the target
 * of every transfer (where = 2), and label 7, the fixup of the faulting
 * load (where = 3).  The store code pushes RFLAGS, swaps %rdi with
 * kpinsn_cur to find the struct, and stores every register, the flags,
 * %rsp, the path and the word at %rsp; then it returns to the caller on
 * the saved frame, restoring RFLAGS (IF and DF included) and kpinsn_cur,
 * so a stub may run from inside a kprobe handler while another stub is
 * stopped at its breakpoint.  A dry run (cpu->dry set) only records the
 * labels, which is how the C side learns the probe address and the
 * branch targets it puts into registers before a real run.  The stack
 * pointer is compared as an offset from the stub's frame.
 *
 * Memory: every run starts with kpinsn_buf[] filled from the inputs and
 * copies it out afterwards.  The faulting load reads the guard page after
 * a one-page vmalloc() area: an unmapped kernel address, so the fault is
 * a #PF that the exception table fixes, as for get_kernel_nofault().
 *
 * The stubs' stack use is not one objtool can follow (calls into the
 * stub's own code, returns to pushed addresses, pops of values pushed by
 * the setup), so they are STACK_FRAME_NON_STANDARD; the indirect
 * transfers and the bare ret carry ANNOTATE_RETPOLINE_SAFE, and label 8,
 * the target of the indirect ones, starts with ENDBR where IBT is on.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/hardirq.h>
#include <linux/kprobes.h>
#include <linux/linkage.h>
#include <linux/module.h>
#include <linux/objtool.h>
#include <linux/ptrace.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/vmalloc.h>
#include <asm/asm.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#include <asm/ibt.h>
#include <asm/irqflags.h>
#include <asm/nospec-branch.h>
#include <asm/processor-flags.h>
#include <asm/text-patching.h>

#define KPI_NR_GPRS	16
#define KPI_RSP		4	/* x86 register numbers, as gpr[] is indexed */
#define KPI_BUF_WORDS	8
#define KPI_RUNS	4

#define KPI_ARITH	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | \
			 X86_EFLAGS_ZF | X86_EFLAGS_SF | X86_EFLAGS_OF)
/* The RFLAGS bits a run must leave as natively. */
#define KPI_CMP_FLAGS	(KPI_ARITH | X86_EFLAGS_DF | X86_EFLAGS_IF)

/* kpi_cpu.where: which path of the stub the run took. */
#define KPI_AT_NEXT	1	/* label 2: after the instruction */
#define KPI_AT_TARGET	2	/* label 8: the transfer's target */
#define KPI_AT_FIXUP	3	/* label 7: the exception fixup */

/*
 * What a stub works on.  gpr[] is indexed by x86 register number (rax,
 * rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8 ... r15) and holds the inputs
 * before a run and the results after it; the input %rsp is not loaded.
 * The assembler addresses the fields by the offsets below.
 */
#define KPI_OFF_FLAGS	128	/* RFLAGS to load; after the run, as left */
#define KPI_OFF_WHERE	136	/* KPI_AT_* */
#define KPI_OFF_AT	144	/* label 1: the instruction */
#define KPI_OFF_END	152	/* label 2: the byte after it */
#define KPI_OFF_TARGET	160	/* label 8 */
#define KPI_OFF_FIXUP	168	/* label 7 */
#define KPI_OFF_FRAME	176	/* %rsp once the stub has saved its frame */
#define KPI_OFF_DRY	184	/* nonzero: record the labels, run nothing */
#define KPI_OFF_AUX	192	/* the word the setup pushes, if any */
#define KPI_OFF_TOP	200	/* after the run: the word at %rsp */

struct kpi_cpu {
	unsigned long gpr[KPI_NR_GPRS];
	unsigned long flags;
	unsigned long where;
	unsigned long at;
	unsigned long end;
	unsigned long target;
	unsigned long fixup;
	unsigned long frame;
	unsigned long dry;
	unsigned long aux;
	unsigned long top;
	unsigned long mem[KPI_BUF_WORDS];	/* kpinsn_buf[], in and out */
};

static_assert(offsetof(struct kpi_cpu, flags) == KPI_OFF_FLAGS);
static_assert(offsetof(struct kpi_cpu, where) == KPI_OFF_WHERE);
static_assert(offsetof(struct kpi_cpu, at) == KPI_OFF_AT);
static_assert(offsetof(struct kpi_cpu, end) == KPI_OFF_END);
static_assert(offsetof(struct kpi_cpu, target) == KPI_OFF_TARGET);
static_assert(offsetof(struct kpi_cpu, fixup) == KPI_OFF_FIXUP);
static_assert(offsetof(struct kpi_cpu, frame) == KPI_OFF_FRAME);
static_assert(offsetof(struct kpi_cpu, dry) == KPI_OFF_DRY);
static_assert(offsetof(struct kpi_cpu, aux) == KPI_OFF_AUX);
static_assert(offsetof(struct kpi_cpu, top) == KPI_OFF_TOP);

/*
 * The stubs' data, defined in assembler: the buffer the memory forms work
 * on (RIP-relative forms name it directly), the struct of the run in
 * progress and the path the last run took.  C reaches the first two only
 * through kpi_buf() and kpi_cur(), pointers the compiler cannot see
 * through, so it assumes that any call may change what they point at.
 */
asm(".pushsection .data\n"
	".balign 64\n"
	".type kpinsn_buf, @object\n"
	"kpinsn_buf:\n"
	"	.skip " __stringify(KPI_BUF_WORDS) " * 8\n"
	".size kpinsn_buf, . - kpinsn_buf\n"
	".type kpinsn_cur, @object\n"
	"kpinsn_cur:\n"
	"	.quad 0\n"
	".size kpinsn_cur, . - kpinsn_cur\n"
	".type kpinsn_where, @object\n"
	"kpinsn_where:\n"
	"	.quad 0\n"
	".size kpinsn_where, . - kpinsn_where\n"
	".popsection\n");

static unsigned long *kpi_buf(void)
{
	unsigned long *p;

	asm("leaq kpinsn_buf(%%rip), %0" : "=r" (p));
	return p;
}

static unsigned long kpi_cur(void)
{
	unsigned long *p;

	asm("leaq kpinsn_cur(%%rip), %0" : "=r" (p));
	return READ_ONCE(*p);
}

#define KPI_F(off)	__stringify(off) "(%rdi)"

/*
 * Labels, then (unless dry) the frame: callee-saved registers, RFLAGS and
 * the previous kpinsn_cur; %rdi is the struct.
 */
#define KPI_PROLOGUE							\
	"	leaq 1f(%rip), %rax\n"					\
	"	movq %rax, " KPI_F(KPI_OFF_AT) "\n"			\
	"	leaq 2f(%rip), %rax\n"					\
	"	movq %rax, " KPI_F(KPI_OFF_END) "\n"			\
	"	leaq 8f(%rip), %rax\n"					\
	"	movq %rax, " KPI_F(KPI_OFF_TARGET) "\n"			\
	"	leaq 7f(%rip), %rax\n"					\
	"	movq %rax, " KPI_F(KPI_OFF_FIXUP) "\n"			\
	"	cmpq $0, " KPI_F(KPI_OFF_DRY) "\n"			\
	"	jne 6f\n"						\
	"	pushq %rbp\n"						\
	"	pushq %rbx\n"						\
	"	pushq %r12\n"						\
	"	pushq %r13\n"						\
	"	pushq %r14\n"						\
	"	pushq %r15\n"						\
	"	pushfq\n"						\
	"	pushq kpinsn_cur(%rip)\n"				\
	"	movq %rsp, " KPI_F(KPI_OFF_FRAME) "\n"			\
	"	movq %rdi, kpinsn_cur(%rip)\n"

/* RFLAGS and every register but %rsp, %rdi last. */
#define KPI_LOAD							\
	"	pushq " KPI_F(KPI_OFF_FLAGS) "\n"			\
	"	popfq\n"						\
	"	movq 0(%rdi), %rax\n"					\
	"	movq 8(%rdi), %rcx\n"					\
	"	movq 16(%rdi), %rdx\n"					\
	"	movq 24(%rdi), %rbx\n"					\
	"	movq 40(%rdi), %rbp\n"					\
	"	movq 48(%rdi), %rsi\n"					\
	"	movq 64(%rdi), %r8\n"					\
	"	movq 72(%rdi), %r9\n"					\
	"	movq 80(%rdi), %r10\n"					\
	"	movq 88(%rdi), %r11\n"					\
	"	movq 96(%rdi), %r12\n"					\
	"	movq 104(%rdi), %r13\n"					\
	"	movq 112(%rdi), %r14\n"					\
	"	movq 120(%rdi), %r15\n"					\
	"	movq 56(%rdi), %rdi\n"

/*
 * The three ways into the store code, the store code, and the return on
 * the saved frame.  Label 6 is also where a dry run returns.
 */
#define KPI_EPILOGUE							\
	"2:	movq $" __stringify(KPI_AT_NEXT) ", kpinsn_where(%rip)\n" \
	"	jmp 9f\n"						\
	"7:	movq $" __stringify(KPI_AT_FIXUP) ", kpinsn_where(%rip)\n" \
	"	jmp 9f\n"						\
	"8:	" ASM_ENDBR "\n"					\
	"	movq $" __stringify(KPI_AT_TARGET) ", kpinsn_where(%rip)\n" \
	"9:	pushfq\n"						\
	"	xchgq %rdi, kpinsn_cur(%rip)\n"				\
	"	popq " KPI_F(KPI_OFF_FLAGS) "\n"			\
	"	movq %rax, 0(%rdi)\n"					\
	"	movq %rcx, 8(%rdi)\n"					\
	"	movq %rdx, 16(%rdi)\n"					\
	"	movq %rbx, 24(%rdi)\n"					\
	"	movq %rsp, 32(%rdi)\n"					\
	"	movq %rbp, 40(%rdi)\n"					\
	"	movq %rsi, 48(%rdi)\n"					\
	"	movq %r8, 64(%rdi)\n"					\
	"	movq %r9, 72(%rdi)\n"					\
	"	movq %r10, 80(%rdi)\n"					\
	"	movq %r11, 88(%rdi)\n"					\
	"	movq %r12, 96(%rdi)\n"					\
	"	movq %r13, 104(%rdi)\n"					\
	"	movq %r14, 112(%rdi)\n"					\
	"	movq %r15, 120(%rdi)\n"					\
	"	movq kpinsn_cur(%rip), %rax\n"				\
	"	movq %rax, 56(%rdi)\n"					\
	"	movq kpinsn_where(%rip), %rax\n"			\
	"	movq %rax, " KPI_F(KPI_OFF_WHERE) "\n"			\
	"	movq (%rsp), %rax\n"					\
	"	movq %rax, " KPI_F(KPI_OFF_TOP) "\n"			\
	"	movq " KPI_F(KPI_OFF_FRAME) ", %rsp\n"			\
	"	popq kpinsn_cur(%rip)\n"				\
	"	popfq\n"						\
	"	popq %r15\n"						\
	"	popq %r14\n"						\
	"	popq %r13\n"						\
	"	popq %r12\n"						\
	"	popq %rbx\n"						\
	"	popq %rbp\n"						\
	"6:	" ASM_RET "\n"

/* Setups: push the struct's aux word (and make room for ret $imm). */
#define KPI_PUSH_AUX	"	pushq " KPI_F(KPI_OFF_AUX) "\n"
#define KPI_PUSH_RET16	"	subq $16, %rsp\n" KPI_PUSH_AUX
#define KPI_NO_SETUP	""

/*
 * The faulting load's exception-table entry: on a fault at label 1, put
 * -EFAULT into %rax (register 0) and resume at label 7.
 */
#define KPI_EXTABLE_RAX							\
	_ASM_EXTABLE_TYPE(1b, 7b, EX_TYPE_EFAULT_REG | EX_DATA_REG(0))

/*
 * kpinsn_<id>(): the stub for one instruction, and kpi_run_<id>(), the C
 * function the table points at (the stub itself is only called directly).
 */
#define KPI_STUB(id, setup, insn, extra)				\
	asmlinkage void kpinsn_##id(struct kpi_cpu *cpu);				\
	asm(".pushsection .text, \"ax\"\n"				\
	    ".globl kpinsn_" #id "\n"					\
	    ".type kpinsn_" #id ", @function\n"			\
	    ASM_FUNC_ALIGN "\n"						\
	    "kpinsn_" #id ":\n"						\
	    KPI_PROLOGUE						\
	    setup							\
	    KPI_LOAD							\
	    "1:	" insn "\n"						\
	    KPI_EPILOGUE						\
	    extra							\
	    ".size kpinsn_" #id ", . - kpinsn_" #id "\n"		\
	    ".popsection\n");						\
	STACK_FRAME_NON_STANDARD(kpinsn_##id);				\
	static void kpi_run_##id(struct kpi_cpu *cpu)			\
	{								\
		kpinsn_##id(cpu);					\
	}

/* Transfers to label 8, by hand-made encodings of a fixed size. */
#define KPI_REL8(op)	".byte " op ", 8f - 2f"
#define KPI_REL32(...)	".byte " __VA_ARGS__ "\n	.long 8f - 2f"
#define KPI_SAFE	ANNOTATE_RETPOLINE_SAFE

/* Control transfers: emulated. */
KPI_STUB(jmp8, KPI_NO_SETUP, KPI_REL8("0xeb"), "")
KPI_STUB(jmp32, KPI_NO_SETUP, KPI_REL32("0xe9"), "")
KPI_STUB(jz8, KPI_NO_SETUP, KPI_REL8("0x74"), "")
KPI_STUB(js8, KPI_NO_SETUP, KPI_REL8("0x78"), "")
KPI_STUB(jl32, KPI_NO_SETUP, KPI_REL32("0x0f, 0x8c"), "")
KPI_STUB(jno32, KPI_NO_SETUP, KPI_REL32("0x0f, 0x81"), "")
KPI_STUB(call32, KPI_NO_SETUP, KPI_REL32("0xe8"), "")
KPI_STUB(ret, KPI_PUSH_AUX, KPI_SAFE "ret", "")
KPI_STUB(ret16, KPI_PUSH_RET16, KPI_SAFE "ret $16", "")
KPI_STUB(loop, KPI_NO_SETUP, KPI_REL8("0xe2"), "")
KPI_STUB(loope, KPI_NO_SETUP, KPI_REL8("0xe1"), "")
KPI_STUB(loopne, KPI_NO_SETUP, KPI_REL8("0xe0"), "")
KPI_STUB(jrcxz, KPI_NO_SETUP, KPI_REL8("0xe3"), "")
KPI_STUB(call_rax, KPI_NO_SETUP, KPI_SAFE "call *%rax", "")
KPI_STUB(call_r11, KPI_NO_SETUP, KPI_SAFE "call *%r11", "")
KPI_STUB(jmp_rdx, KPI_NO_SETUP, KPI_SAFE "jmp *%rdx", "")
KPI_STUB(jmp_r9, KPI_NO_SETUP, KPI_SAFE "jmp *%r9", "")

/* Flags and the interrupt flag: emulated. */
KPI_STUB(pushf, KPI_NO_SETUP, "pushfq", "")
KPI_STUB(popf, KPI_PUSH_AUX, "popfq", "")
KPI_STUB(cli, KPI_NO_SETUP, "cli", "")
KPI_STUB(sti, KPI_NO_SETUP, "sti", "")

/* Register-only forms: emulated. */
KPI_STUB(nop1, KPI_NO_SETUP, "nop", "")
KPI_STUB(nop5, KPI_NO_SETUP, ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00", "")
KPI_STUB(endbr64, KPI_NO_SETUP, ".byte 0xf3, 0x0f, 0x1e, 0xfa", "")
KPI_STUB(mov89q, KPI_NO_SETUP, "movq %rbx, %r12", "")
KPI_STUB(mov89l, KPI_NO_SETUP, "movl %r14d, %eax", "")
KPI_STUB(mov8bq, KPI_NO_SETUP, ".byte 0x48, 0x8b, 0xd6", "")
KPI_STUB(add83, KPI_NO_SETUP, "addq $0x7f, %rbx", "")
KPI_STUB(add81, KPI_NO_SETUP, "addl $0x12345678, %r13d", "")
KPI_STUB(sub83_rsp, KPI_NO_SETUP, "subq $0x18, %rsp", "")
KPI_STUB(sub81, KPI_NO_SETUP, "subq $0x1000, %rcx", "")
KPI_STUB(add83_rsp, KPI_PUSH_AUX, "addq $0x8, %rsp", "")
KPI_STUB(push_rbx, KPI_NO_SETUP, "pushq %rbx", "")
KPI_STUB(push_r14, KPI_NO_SETUP, "pushq %r14", "")
KPI_STUB(pop_rcx, KPI_PUSH_AUX, "popq %rcx", "")
KPI_STUB(pop_r15, KPI_PUSH_AUX, "popq %r15", "")
KPI_STUB(lea, KPI_NO_SETUP, "leaq 0x10(%rsi,%rdi,4), %rax", "")
KPI_STUB(lea_rsp, KPI_NO_SETUP, "leaq -0x20(%rsp), %rsp", "")

/* Forms that run from a copy. */
KPI_STUB(rip_load, KPI_NO_SETUP, "movq kpinsn_buf+8(%rip), %rax", "")
KPI_STUB(rip_store, KPI_NO_SETUP, "movq %rcx, kpinsn_buf+16(%rip)", "")
KPI_STUB(rip_lea, KPI_NO_SETUP, "leaq kpinsn_buf+24(%rip), %rdx", "")
KPI_STUB(rip_add8, KPI_NO_SETUP, "addq $0x11, kpinsn_buf+32(%rip)", "")
KPI_STUB(rip_cmp32, KPI_NO_SETUP, "cmpl $0x12345678, kpinsn_buf+36(%rip)", "")
KPI_STUB(load, KPI_NO_SETUP, "movq 0x8(%rsi), %rbx", "")
KPI_STUB(store, KPI_NO_SETUP, "movq %rdx, 0x18(%rsi)", "")
KPI_STUB(xchg, KPI_NO_SETUP, "xchgq %rax, 0x10(%rsi)", "")
KPI_STUB(cmpxchg, KPI_NO_SETUP, "lock cmpxchgq %rcx, 0x20(%rsi)", "")
KPI_STUB(imul, KPI_NO_SETUP, "imulq %rcx, %rdx", "")
KPI_STUB(imul3, KPI_NO_SETUP, "imulq $0x12345, %rbx, %rax", "")
KPI_STUB(shl_cl, KPI_NO_SETUP, "shlq %cl, %rax", "")
KPI_STUB(sar_cl, KPI_NO_SETUP, "sarl %cl, %r9d", "")
KPI_STUB(cmovb, KPI_NO_SETUP, "cmovbq %rcx, %rax", "")
KPI_STUB(setg, KPI_NO_SETUP, "setg %al", "")
KPI_STUB(setne, KPI_NO_SETUP, "setne %r10b", "")
KPI_STUB(bt, KPI_NO_SETUP, "btq %rcx, %rdx", "")
KPI_STUB(movzb, KPI_NO_SETUP, "movzbl 0x9(%rsi), %eax", "")
KPI_STUB(movzw, KPI_NO_SETUP, "movzwl %cx, %edx", "")
KPI_STUB(movabs, KPI_NO_SETUP, "movabsq $0x1122334455667788, %rax", "")
/* VEX: its opcode byte, 0x57, is "push %rdi" in the one-byte map. */
KPI_STUB(vxorps, KPI_NO_SETUP, "vxorps %xmm0, %xmm0, %xmm0", "")
KPI_STUB(long15, KPI_NO_SETUP,
	 ".byte 0x66, 0x66, 0x2e\n	movq $0x5a5a5a5a, -0x12345(%rsi,%rdi,1)", "")
KPI_STUB(long_rip, KPI_NO_SETUP,
	 ".byte 0x66, 0x2e\n	movq $-0x2152412, kpinsn_buf+40(%rip)", "")
KPI_STUB(push_mem, KPI_NO_SETUP, "pushq 0x18(%rsi)", "")

/* A load with an exception-table entry, made to fault. */
KPI_STUB(fault, KPI_NO_SETUP, "movq (%rsi), %rax", KPI_EXTABLE_RAX)

/*
 * The instructions a kprobe must refuse, one function each, never run:
 * kpinsn_no_<id>() returns the address of its instruction and jumps over
 * it, so nothing before the instruction stops a decode from the
 * function's start (an int3 there would, for the wrong reason).
 */
#define KPI_NO_STUB(id, insn)						\
	asmlinkage unsigned long kpinsn_no_##id(void);				\
	asm(".pushsection .text, \"ax\"\n"				\
	    ".globl kpinsn_no_" #id "\n"				\
	    ".type kpinsn_no_" #id ", @function\n"			\
	    ASM_FUNC_ALIGN "\n"						\
	    "kpinsn_no_" #id ":\n"					\
	    "	leaq 1f(%rip), %rax\n"					\
	    "	jmp 2f\n"						\
	    "1:	" insn "\n"						\
	    "2:	" ASM_RET "\n"						\
	    ".size kpinsn_no_" #id ", . - kpinsn_no_" #id "\n"		\
	    ".popsection\n");						\
	STACK_FRAME_NON_STANDARD(kpinsn_no_##id);			\
	static unsigned long kpi_no_##id(void)				\
	{								\
		return kpinsn_no_##id();				\
	}

KPI_NO_STUB(hlt, "hlt")
KPI_NO_STUB(int3, "int3")
KPI_NO_STUB(ud2, "ud2")
KPI_NO_STUB(iretq, "iretq")
KPI_NO_STUB(ljmp, "ljmp *(%rax)")
KPI_NO_STUB(lcall, KPI_SAFE "lcall *(%rax)")
KPI_NO_STUB(call_mem, KPI_SAFE "call *(%rax)")
KPI_NO_STUB(jmp_mem, KPI_SAFE "jmp *(%rax)")
KPI_NO_STUB(call_rip, KPI_SAFE "call *kpinsn_buf(%rip)")
KPI_NO_STUB(jmp_rip, KPI_SAFE "jmp *kpinsn_buf(%rip)")
KPI_NO_STUB(mov_ss, "movl %eax, %ss")
KPI_NO_STUB(mov_ss_mem, "movw (%rax), %ss")

/* ---- inputs ------------------------------------------------------------ */

/* The last page of a vmalloc() area's guard: see kpi_make_hole(). */
static unsigned long kpi_hole;

static const unsigned long kpi_flag_sets[KPI_RUNS] = {
	0,
	KPI_ARITH | X86_EFLAGS_DF,
	X86_EFLAGS_CF | X86_EFLAGS_ZF | X86_EFLAGS_OF,
	X86_EFLAGS_SF | X86_EFLAGS_AF | X86_EFLAGS_PF,
};

/* Sixteen distinct register values, in one of four patterns. */
static void kpi_fill_gprs(unsigned long *gpr, unsigned int run)
{
	unsigned int r;

	for (r = 0; r < KPI_NR_GPRS; r++) {
		unsigned long n = r + 1;

		switch (run % KPI_RUNS) {
		case 0:
			gpr[r] = n * 0x1111111111111111UL;
			break;
		case 1:
			gpr[r] = ~(n << 12) ^ (n << 40);
			break;
		case 2:
			gpr[r] = (r & 1 ? 0xffffffff00000000UL : 0) |
				 0x80000000UL | n << 4;
			break;
		default:
			gpr[r] = (n + 0x40) * 0x9e3779b97f4a7c15UL;
			break;
		}
	}
	gpr[KPI_RSP] = 0;
}

static void kpi_fill_mem(unsigned long *mem, unsigned int run)
{
	unsigned int i;

	for (i = 0; i < KPI_BUF_WORDS; i++)
		mem[i] = (2 * i + 1) * 0x0123456789abcdefUL + run * 0x1000;
}

/*
 * Per-kind adjustments to the inputs of run @run, made once the labels
 * and the default inputs are in @cpu.
 */
static void kpi_rsi_buf(struct kpi_cpu *cpu, unsigned int run)
{
	cpu->gpr[6] = (unsigned long)kpi_buf();
}

static void kpi_aux_target(struct kpi_cpu *cpu, unsigned int run)
{
	cpu->aux = cpu->target;
}

static void kpi_aux_word(struct kpi_cpu *cpu, unsigned int run)
{
	cpu->aux = 0x1122334455667788UL ^ run;
}

static void kpi_rax_target(struct kpi_cpu *cpu, unsigned int run)
{
	cpu->gpr[0] = cpu->target;
}

static void kpi_rdx_target(struct kpi_cpu *cpu, unsigned int run)
{
	cpu->gpr[2] = cpu->target;
}

static void kpi_r9_target(struct kpi_cpu *cpu, unsigned int run)
{
	cpu->gpr[9] = cpu->target;
}

static void kpi_r11_target(struct kpi_cpu *cpu, unsigned int run)
{
	cpu->gpr[11] = cpu->target;
}

/* loop: %rcx 1 becomes 0 (no jump), the others jump. */
static void kpi_rcx_loop(struct kpi_cpu *cpu, unsigned int run)
{
	static const unsigned long rcx[KPI_RUNS] = {
		1, 5, 0, 0x100000001UL,
	};

	cpu->gpr[1] = rcx[run];
}

/* loope/loopne: ZF decides runs 0, 1 and 3; run 2 ends the count. */
static void kpi_rcx_loopcc(struct kpi_cpu *cpu, unsigned int run)
{
	static const unsigned long rcx[KPI_RUNS] = { 5, 5, 1, 5 };

	cpu->gpr[1] = rcx[run];
}

/* jrcxz: zero, and a value whose low half alone is zero. */
static void kpi_rcx_jrcxz(struct kpi_cpu *cpu, unsigned int run)
{
	static const unsigned long rcx[KPI_RUNS] = {
		0, 1, 0, 0x100000000UL,
	};

	cpu->gpr[1] = rcx[run];
}

/* Shift counts: none (flags kept), one (OF defined), and masked ones. */
static void kpi_rcx_count(struct kpi_cpu *cpu, unsigned int run)
{
	static const unsigned long rcx[KPI_RUNS] = { 0, 1, 5, 67 };

	cpu->gpr[1] = rcx[run];
}

static void kpi_rcx_bit(struct kpi_cpu *cpu, unsigned int run)
{
	static const unsigned long rcx[KPI_RUNS] = { 0, 3, 63, 64 + 5 };

	cpu->gpr[1] = rcx[run];
}

/* popf: flag images, one of them with IF clear. */
static void kpi_aux_flags(struct kpi_cpu *cpu, unsigned int run)
{
	static const unsigned long set[KPI_RUNS] = {
		KPI_ARITH,
		X86_EFLAGS_DF | X86_EFLAGS_CF,
		X86_EFLAGS_ZF,
		X86_EFLAGS_SF | X86_EFLAGS_OF,
	};
	unsigned long fl = native_save_fl();

	cpu->aux = (fl & ~KPI_CMP_FLAGS) | set[run];
	if (run != 2)
		cpu->aux |= fl & X86_EFLAGS_IF;
}

/* cmpxchg: %rax matches the memory word in the even runs only. */
static void kpi_cmpxchg_in(struct kpi_cpu *cpu, unsigned int run)
{
	kpi_rsi_buf(cpu, run);
	if (!(run & 1))
		cpu->gpr[0] = cpu->mem[4];
}

/* The 15-byte store: %rsi + %rdi - 0x12345 is kpinsn_buf[run]. */
static void kpi_long15_in(struct kpi_cpu *cpu, unsigned int run)
{
	cpu->gpr[6] = (unsigned long)kpi_buf() + 0x12345;
	cpu->gpr[7] = run * sizeof(unsigned long);
}

static void kpi_rsi_hole(struct kpi_cpu *cpu, unsigned int run)
{
	cpu->gpr[6] = kpi_hole;
}

/* ---- the table --------------------------------------------------------- */

enum kpi_flow {
	KPI_NEXT,	/* always goes on after the instruction */
	KPI_JUMPS,	/* always goes to label 8 */
	KPI_BRANCHES,	/* goes either way, both seen over the runs */
	KPI_FAULTS,	/* always faults and resumes at label 7 */
};

#define KPI_PUSHES	BIT(0)	/* leaves a word at %rsp to compare */
#define KPI_IF_OFF	BIT(1)	/* runs with interrupts off (sti) */
/*
 * Arithmetic on %rsp: PF and AF follow the low byte of the stack address,
 * which differs between the native and the later runs.
 */
#define KPI_SP_ARITH	BIT(2)
#define KPI_FPU		BIT(3)	/* an AVX instruction: kernel_fpu_begin() */

struct kpi_kind {
	const char *id;
	const char *text;
	const char *how;
	void (*run)(struct kpi_cpu *cpu);
	void (*prep)(struct kpi_cpu *cpu, unsigned int run);
	unsigned int len;	/* the instruction's length, checked */
	enum kpi_flow flow;
	unsigned int sp_in;	/* bytes the setup pushed */
	unsigned int flags;
};

#define KPI_KIND(id_, how_, text_, len_, flow_, sp_, flags_, prep_) {	\
	.id = #id_,							\
	.text = text_,							\
	.how = how_,							\
	.run = kpi_run_##id_,						\
	.prep = prep_,							\
	.len = len_,							\
	.flow = flow_,							\
	.sp_in = sp_,							\
	.flags = flags_,						\
}

#define KPI_EMUL	"emulated"
#define KPI_COPY	"copied"

/* The flags a run of @k is compared on. */
static unsigned long kpi_cmp_flags(const struct kpi_kind *k)
{
	if (k->flags & KPI_SP_ARITH)
		return KPI_CMP_FLAGS & ~(X86_EFLAGS_PF | X86_EFLAGS_AF);
	return KPI_CMP_FLAGS;
}

static const struct kpi_kind kpi_kinds[] = {
	KPI_KIND(jmp8, KPI_EMUL, "jmp rel8", 2, KPI_JUMPS, 0, 0, NULL),
	KPI_KIND(jmp32, KPI_EMUL, "jmp rel32", 5, KPI_JUMPS, 0, 0, NULL),
	KPI_KIND(jz8, KPI_EMUL, "je rel8", 2, KPI_BRANCHES, 0, 0, NULL),
	KPI_KIND(js8, KPI_EMUL, "js rel8", 2, KPI_BRANCHES, 0, 0, NULL),
	KPI_KIND(jl32, KPI_EMUL, "jl rel32", 6, KPI_BRANCHES, 0, 0, NULL),
	KPI_KIND(jno32, KPI_EMUL, "jno rel32", 6, KPI_BRANCHES, 0, 0, NULL),
	KPI_KIND(call32, KPI_EMUL, "call rel32", 5, KPI_JUMPS, 0,
		 KPI_PUSHES, NULL),
	KPI_KIND(ret, KPI_EMUL, "ret", 1, KPI_JUMPS, 8, 0, kpi_aux_target),
	KPI_KIND(ret16, KPI_EMUL, "ret $0x10", 3, KPI_JUMPS, 24, 0,
		 kpi_aux_target),
	KPI_KIND(loop, KPI_EMUL, "loop rel8", 2, KPI_BRANCHES, 0, 0,
		 kpi_rcx_loop),
	KPI_KIND(loope, KPI_EMUL, "loope rel8", 2, KPI_BRANCHES, 0, 0,
		 kpi_rcx_loopcc),
	KPI_KIND(loopne, KPI_EMUL, "loopne rel8", 2, KPI_BRANCHES, 0, 0,
		 kpi_rcx_loopcc),
	KPI_KIND(jrcxz, KPI_EMUL, "jrcxz rel8", 2, KPI_BRANCHES, 0, 0,
		 kpi_rcx_jrcxz),
	KPI_KIND(call_rax, KPI_EMUL, "call *%rax", 2, KPI_JUMPS, 0,
		 KPI_PUSHES, kpi_rax_target),
	KPI_KIND(call_r11, KPI_EMUL, "call *%r11", 3, KPI_JUMPS, 0,
		 KPI_PUSHES, kpi_r11_target),
	KPI_KIND(jmp_rdx, KPI_EMUL, "jmp *%rdx", 2, KPI_JUMPS, 0, 0,
		 kpi_rdx_target),
	KPI_KIND(jmp_r9, KPI_EMUL, "jmp *%r9", 3, KPI_JUMPS, 0, 0,
		 kpi_r9_target),
	KPI_KIND(pushf, KPI_EMUL, "pushfq", 1, KPI_NEXT, 0, KPI_PUSHES, NULL),
	KPI_KIND(popf, KPI_EMUL, "popfq", 1, KPI_NEXT, 8, 0, kpi_aux_flags),
	KPI_KIND(cli, KPI_EMUL, "cli", 1, KPI_NEXT, 0, 0, NULL),
	KPI_KIND(sti, KPI_EMUL, "sti", 1, KPI_NEXT, 0, KPI_IF_OFF, NULL),
	KPI_KIND(nop1, KPI_EMUL, "nop", 1, KPI_NEXT, 0, 0, NULL),
	KPI_KIND(nop5, KPI_EMUL, "nopl 0x0(%rax,%rax,1)", 5, KPI_NEXT, 0, 0,
		 NULL),
	KPI_KIND(endbr64, KPI_EMUL, "endbr64", 4, KPI_NEXT, 0, 0, NULL),
	KPI_KIND(mov89q, KPI_EMUL, "mov %rbx,%r12 (89)", 3, KPI_NEXT, 0, 0,
		 NULL),
	KPI_KIND(mov89l, KPI_EMUL, "mov %r14d,%eax (89)", 3, KPI_NEXT, 0, 0,
		 NULL),
	KPI_KIND(mov8bq, KPI_EMUL, "mov %rsi,%rdx (8b)", 3, KPI_NEXT, 0, 0,
		 NULL),
	KPI_KIND(add83, KPI_EMUL, "add $0x7f,%rbx", 4, KPI_NEXT, 0, 0, NULL),
	KPI_KIND(add81, KPI_EMUL, "add $0x12345678,%r13d", 7, KPI_NEXT, 0, 0,
		 NULL),
	KPI_KIND(sub83_rsp, KPI_EMUL, "sub $0x18,%rsp", 4, KPI_NEXT, 0,
		 KPI_SP_ARITH, NULL),
	KPI_KIND(sub81, KPI_EMUL, "sub $0x1000,%rcx", 7, KPI_NEXT, 0, 0,
		 NULL),
	KPI_KIND(add83_rsp, KPI_EMUL, "add $0x8,%rsp", 4, KPI_NEXT, 8,
		 KPI_SP_ARITH, kpi_aux_word),
	KPI_KIND(push_rbx, KPI_EMUL, "push %rbx", 1, KPI_NEXT, 0, KPI_PUSHES,
		 NULL),
	KPI_KIND(push_r14, KPI_EMUL, "push %r14", 2, KPI_NEXT, 0, KPI_PUSHES,
		 NULL),
	KPI_KIND(pop_rcx, KPI_EMUL, "pop %rcx", 1, KPI_NEXT, 8, 0,
		 kpi_aux_word),
	KPI_KIND(pop_r15, KPI_EMUL, "pop %r15", 2, KPI_NEXT, 8, 0,
		 kpi_aux_word),
	KPI_KIND(lea, KPI_EMUL, "lea 0x10(%rsi,%rdi,4),%rax", 5, KPI_NEXT, 0,
		 0, NULL),
	KPI_KIND(lea_rsp, KPI_EMUL, "lea -0x20(%rsp),%rsp", 5, KPI_NEXT, 0, 0,
		 NULL),
	KPI_KIND(rip_load, KPI_COPY, "mov disp(%rip),%rax", 7, KPI_NEXT, 0, 0,
		 NULL),
	KPI_KIND(rip_store, KPI_COPY, "mov %rcx,disp(%rip)", 7, KPI_NEXT, 0, 0,
		 NULL),
	KPI_KIND(rip_lea, KPI_COPY, "lea disp(%rip),%rdx", 7, KPI_NEXT, 0, 0,
		 NULL),
	KPI_KIND(rip_add8, KPI_COPY, "addq $0x11,disp(%rip)", 8, KPI_NEXT, 0,
		 0, NULL),
	KPI_KIND(rip_cmp32, KPI_COPY, "cmpl $0x12345678,disp(%rip)", 10,
		 KPI_NEXT, 0, 0, NULL),
	KPI_KIND(load, KPI_COPY, "mov 0x8(%rsi),%rbx", 4, KPI_NEXT, 0, 0,
		 kpi_rsi_buf),
	KPI_KIND(store, KPI_COPY, "mov %rdx,0x18(%rsi)", 4, KPI_NEXT, 0, 0,
		 kpi_rsi_buf),
	KPI_KIND(xchg, KPI_COPY, "xchg %rax,0x10(%rsi)", 4, KPI_NEXT, 0, 0,
		 kpi_rsi_buf),
	KPI_KIND(cmpxchg, KPI_COPY, "lock cmpxchg %rcx,0x20(%rsi)", 6,
		 KPI_NEXT, 0, 0, kpi_cmpxchg_in),
	KPI_KIND(imul, KPI_COPY, "imul %rcx,%rdx", 4, KPI_NEXT, 0, 0, NULL),
	KPI_KIND(imul3, KPI_COPY, "imul $0x12345,%rbx,%rax", 7, KPI_NEXT, 0,
		 0, NULL),
	KPI_KIND(shl_cl, KPI_COPY, "shl %cl,%rax", 3, KPI_NEXT, 0, 0,
		 kpi_rcx_count),
	KPI_KIND(sar_cl, KPI_COPY, "sar %cl,%r9d", 3, KPI_NEXT, 0, 0,
		 kpi_rcx_count),
	KPI_KIND(cmovb, KPI_COPY, "cmovb %rcx,%rax", 4, KPI_NEXT, 0, 0, NULL),
	KPI_KIND(setg, KPI_COPY, "setg %al", 3, KPI_NEXT, 0, 0, NULL),
	KPI_KIND(setne, KPI_COPY, "setne %r10b", 4, KPI_NEXT, 0, 0, NULL),
	KPI_KIND(bt, KPI_COPY, "bt %rcx,%rdx", 4, KPI_NEXT, 0, 0,
		 kpi_rcx_bit),
	KPI_KIND(movzb, KPI_COPY, "movzbl 0x9(%rsi),%eax", 4, KPI_NEXT, 0, 0,
		 kpi_rsi_buf),
	KPI_KIND(movzw, KPI_COPY, "movzwl %cx,%edx", 3, KPI_NEXT, 0, 0, NULL),
	KPI_KIND(movabs, KPI_COPY, "movabs $imm64,%rax", 10, KPI_NEXT, 0, 0,
		 NULL),
	KPI_KIND(vxorps, KPI_COPY, "vxorps %xmm0,%xmm0,%xmm0 (VEX)", 4,
		 KPI_NEXT, 0, KPI_FPU, NULL),
	KPI_KIND(long15, KPI_COPY,
		 "data16 data16 cs movq $imm32,disp32(%rsi,%rdi,1)", 15,
		 KPI_NEXT, 0, 0, kpi_long15_in),
	KPI_KIND(long_rip, KPI_COPY, "data16 cs movq $imm32,disp(%rip)", 13,
		 KPI_NEXT, 0, 0, NULL),
	KPI_KIND(push_mem, KPI_COPY, "pushq 0x18(%rsi)", 3, KPI_NEXT, 0,
		 KPI_PUSHES, kpi_rsi_buf),
	KPI_KIND(fault, KPI_COPY, "mov (%rsi),%rax, faulting, extable",
		 3, KPI_FAULTS, 0, 0, kpi_rsi_hole),
};

struct kpi_refusal {
	const char *id;
	unsigned long (*addr)(void);
};

#define KPI_REFUSAL(id_)	{ .id = #id_, .addr = kpi_no_##id_ }

static const struct kpi_refusal kpi_refusals[] = {
	KPI_REFUSAL(hlt),
	KPI_REFUSAL(int3),
	KPI_REFUSAL(ud2),
	KPI_REFUSAL(iretq),
	KPI_REFUSAL(ljmp),
	KPI_REFUSAL(lcall),
	KPI_REFUSAL(call_mem),
	KPI_REFUSAL(jmp_mem),
	KPI_REFUSAL(call_rip),
	KPI_REFUSAL(jmp_rip),
	KPI_REFUSAL(mov_ss),
	KPI_REFUSAL(mov_ss_mem),
};

static const struct kpi_kind *kpi_find(const char *id)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpi_kinds); i++)
		if (!strcmp(kpi_kinds[i].id, id))
			return &kpi_kinds[i];
	return NULL;
}

/* kpi_find() for a name the case relies on. */
static const struct kpi_kind *kpi_get(struct kunit *test, const char *id)
{
	const struct kpi_kind *k = kpi_find(id);

	KUNIT_ASSERT_NOT_NULL_MSG(test, k, "%s: not in the table", id);
	return k;
}

/* ---- running ----------------------------------------------------------- */

/*
 * The inputs of run @run of @k, in @in: the labels (from a dry run), the
 * registers, the flags (the caller's, but for the arithmetic ones and DF
 * from the run's set; IF as the caller has it, or clear for KPI_IF_OFF)
 * and the buffer.
 */
static void kpi_inputs(const struct kpi_kind *k, unsigned int run,
		       struct kpi_cpu *in)
{
	unsigned long fl = native_save_fl();

	memset(in, 0, sizeof(*in));
	in->dry = 1;
	k->run(in);
	in->dry = 0;
	kpi_fill_gprs(in->gpr, run);
	in->flags = (fl & ~KPI_CMP_FLAGS) | kpi_flag_sets[run];
	if (!(k->flags & KPI_IF_OFF))
		in->flags |= fl & X86_EFLAGS_IF;
	kpi_fill_mem(in->mem, run);
	if (k->prep)
		k->prep(in, run);
}

/*
 * Runs @k from @in into @out.  kpinsn_buf[] holds @in's buffer during the
 * run and gets its old contents back afterwards, so that a run from a
 * handler leaves the interrupted run's buffer alone.
 */
static void kpi_go(const struct kpi_kind *k, const struct kpi_cpu *in,
		   struct kpi_cpu *out)
{
	unsigned long saved[KPI_BUF_WORDS];
	unsigned long *buf = kpi_buf();

	memcpy(saved, buf, sizeof(saved));
	*out = *in;
	memcpy(buf, in->mem, sizeof(in->mem));
	if (k->flags & KPI_FPU)
		kernel_fpu_begin();
	k->run(out);
	if (k->flags & KPI_FPU)
		kernel_fpu_end();
	memcpy(out->mem, buf, sizeof(out->mem));
	memcpy(buf, saved, sizeof(saved));
}

static void kpi_exec(const struct kpi_kind *k, unsigned int run,
		     struct kpi_cpu *in, struct kpi_cpu *out)
{
	kpi_inputs(k, run, in);
	kpi_go(k, in, out);
}

/* Where the run went on after its instruction, for the post_handler. */
static unsigned long kpi_next_ip(const struct kpi_cpu *cpu)
{
	return cpu->where == KPI_AT_TARGET ? cpu->target : cpu->end;
}

static long kpi_sp_delta(const struct kpi_cpu *cpu)
{
	return cpu->gpr[KPI_RSP] - cpu->frame;
}

static const char * const kpi_reg_name[KPI_NR_GPRS] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

static const size_t kpi_reg_off[KPI_NR_GPRS] = {
	offsetof(struct pt_regs, ax), offsetof(struct pt_regs, cx),
	offsetof(struct pt_regs, dx), offsetof(struct pt_regs, bx),
	offsetof(struct pt_regs, sp), offsetof(struct pt_regs, bp),
	offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
	offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
	offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
	offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
};

static unsigned long kpi_reg(const struct pt_regs *regs, unsigned int r)
{
	return *(const unsigned long *)((const char *)regs + kpi_reg_off[r]);
}

/*
 * @got against @want: registers (%rsp from the frame), the flags in
 * @mask, the path, the buffer and, for KPI_PUSHES, the word at %rsp.
 */
static bool kpi_same(struct kunit *test, const struct kpi_kind *k,
		     const char *what, unsigned int run,
		     const struct kpi_cpu *want, const struct kpi_cpu *got,
		     unsigned long mask)
{
	bool same = true;
	unsigned int r;

	for (r = 0; r < KPI_NR_GPRS; r++) {
		unsigned long w = want->gpr[r], g = got->gpr[r];

		if (r == KPI_RSP) {
			w = kpi_sp_delta(want);
			g = kpi_sp_delta(got);
		}
		if (w == g)
			continue;
		KUNIT_FAIL(test, "%s, %s run %u: %s %#lx, natively %#lx",
			   k->text, what, run, kpi_reg_name[r], g, w);
		same = false;
	}
	if ((got->flags ^ want->flags) & mask) {
		KUNIT_FAIL(test, "%s, %s run %u: flags %#lx, natively %#lx (compared: %#lx)",
			   k->text, what, run, got->flags, want->flags, mask);
		same = false;
	}
	if (got->where != want->where) {
		KUNIT_FAIL(test, "%s, %s run %u: went on at path %lu, natively %lu",
			   k->text, what, run, got->where, want->where);
		same = false;
	}
	for (r = 0; r < KPI_BUF_WORDS; r++) {
		if (got->mem[r] == want->mem[r])
			continue;
		KUNIT_FAIL(test, "%s, %s run %u: buffer word %u %#lx, natively %#lx",
			   k->text, what, run, r, got->mem[r], want->mem[r]);
		same = false;
	}
	if ((k->flags & KPI_PUSHES) && got->top != want->top) {
		KUNIT_FAIL(test, "%s, %s run %u: word at %%rsp %#lx, natively %#lx",
			   k->text, what, run, got->top, want->top);
		same = false;
	}
	return same;
}

/* The native run took the path @k's flow says. */
static void kpi_check_flow(struct kunit *test, const struct kpi_kind *k,
			   unsigned int run, const struct kpi_cpu *cpu)
{
	static const unsigned long path[] = {
		[KPI_NEXT] = KPI_AT_NEXT,
		[KPI_JUMPS] = KPI_AT_TARGET,
		[KPI_FAULTS] = KPI_AT_FIXUP,
	};

	if (k->flow == KPI_BRANCHES)
		KUNIT_EXPECT_TRUE_MSG(test, cpu->where == KPI_AT_NEXT ||
				      cpu->where == KPI_AT_TARGET,
				      "%s run %u: path %lu", k->text, run,
				      cpu->where);
	else
		KUNIT_EXPECT_EQ_MSG(test, cpu->where, path[k->flow],
				    "%s run %u: native path", k->text, run);
}

/* ---- probes ------------------------------------------------------------ */

struct kpi_probe {
	struct kprobe kp;
	bool registered;
	unsigned int pre, post;
	unsigned int df_seen;		/* handler entered with DF set */
	unsigned int pre_in_trap;	/* pre_handler calls from the int3 */
	unsigned long pre_ip, post_ip;
	struct pt_regs pre_regs, post_regs;
	/* nonzero: the pre_handler moves regs->ip here and returns 1 */
	unsigned long skip_to;
	/* non-NULL: the pre_handler runs @inner from inner_in */
	const struct kpi_kind *inner;
	unsigned int inner_run;
	struct kpi_cpu inner_in, inner_out;
};

/*
 * The C ABI wants DF clear on entry.  A handler entered with DF set (by a
 * trampoline that forgot to clear it) counts that and records only what
 * plain stores can, as a copy of pt_regs could then run backwards.
 */
static bool kpi_df_set(struct kpi_probe *p)
{
	if (!(native_save_fl() & X86_EFLAGS_DF))
		return false;
	p->df_seen++;
	return true;
}

static int kpi_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpi_probe *p = container_of(kp, struct kpi_probe, kp);

	p->pre++;
	p->pre_ip = regs->ip;
	/* The int3 handler runs as an NMI; a jump's entry does not. */
	if (in_nmi())
		p->pre_in_trap++;
	if (!kpi_df_set(p)) {
		p->pre_regs = *regs;
		if (p->inner)
			kpi_exec(p->inner, p->inner_run, &p->inner_in,
				 &p->inner_out);
	}
	if (p->skip_to) {
		regs->ip = p->skip_to;
		return 1;
	}
	return 0;
}

static void kpi_post(struct kprobe *kp, struct pt_regs *regs,
		     unsigned long flags)
{
	struct kpi_probe *p = container_of(kp, struct kpi_probe, kp);

	p->post++;
	p->post_ip = regs->ip;
	if (!kpi_df_set(p))
		p->post_regs = *regs;
}

static void kpi_unregister(void *data)
{
	struct kpi_probe *p = data;

	if (p->registered) {
		unregister_kprobe(&p->kp);
		p->registered = false;
	}
}

/* A probe at @addr, unregistered at the latest when the case ends. */
static struct kpi_probe *kpi_probe_at(struct kunit *test, unsigned long addr)
{
	struct kpi_probe *p;

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	p->kp.addr = (kprobe_opcode_t *)addr;
	p->kp.pre_handler = kpi_pre;
	p->kp.post_handler = kpi_post;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpi_unregister,
							p), 0);
	return p;
}

static void kpi_arm(struct kunit *test, const struct kpi_kind *k,
		    struct kpi_probe *p)
{
	int ret = register_kprobe(&p->kp);

	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%s: register_kprobe(%pS)", k->text,
			    p->kp.addr);
	p->registered = true;
}

static void kpi_clear(struct kpi_probe *p)
{
	p->pre = 0;
	p->post = 0;
	p->pre_ip = 0;
	p->post_ip = 0;
	memset(&p->pre_regs, 0, sizeof(p->pre_regs));
	memset(&p->post_regs, 0, sizeof(p->post_regs));
}

/*
 * What @p's handlers saw on run @run of @k, from @in to @got, the native
 * result being @want: one pre_handler call at the trap address with the
 * registers going in, one post_handler call (none for a fault) at the
 * next instruction or the target with the registers coming out.
 */
static void kpi_check_hits(struct kunit *test, const struct kpi_kind *k,
			   unsigned int run, const struct kpi_probe *p,
			   const struct kpi_cpu *in, const struct kpi_cpu *want,
			   const struct kpi_cpu *got)
{
	const struct pt_regs *pre = &p->pre_regs, *post = &p->post_regs;
	unsigned int r;

	KUNIT_EXPECT_EQ_MSG(test, p->pre, 1, "%s run %u: pre_handler calls",
			    k->text, run);
	KUNIT_EXPECT_EQ_MSG(test, p->post, k->flow == KPI_FAULTS ? 0 : 1,
			    "%s run %u: post_handler calls", k->text, run);
	KUNIT_EXPECT_EQ_MSG(test, p->kp.nmissed, 0, "%s run %u: nmissed",
			    k->text, run);
	KUNIT_EXPECT_EQ_MSG(test, p->df_seen, 0,
			    "%s run %u: handler entered with DF set", k->text,
			    run);

	if (p->pre == 1) {
		KUNIT_EXPECT_EQ_MSG(test, p->pre_ip, in->at + INT3_INSN_SIZE,
				    "%s run %u: pre_handler ip", k->text, run);
		for (r = 0; r < KPI_NR_GPRS; r++) {
			if (r == KPI_RSP)
				continue;
			KUNIT_EXPECT_EQ_MSG(test, kpi_reg(pre, r), in->gpr[r],
					    "%s run %u: pre_handler %s",
					    k->text, run, kpi_reg_name[r]);
		}
		KUNIT_EXPECT_EQ_MSG(test, pre->sp, got->frame - k->sp_in,
				    "%s run %u: pre_handler rsp", k->text, run);
		KUNIT_EXPECT_EQ_MSG(test, pre->flags & KPI_CMP_FLAGS,
				    in->flags & KPI_CMP_FLAGS,
				    "%s run %u: pre_handler flags", k->text,
				    run);
	}

	if (p->post == 1 && k->flow != KPI_FAULTS) {
		KUNIT_EXPECT_EQ_MSG(test, p->post_ip, kpi_next_ip(want),
				    "%s run %u: post_handler ip (next %#lx, target %#lx)",
				    k->text, run, want->end, want->target);
		for (r = 0; r < KPI_NR_GPRS; r++) {
			if (r == KPI_RSP)
				continue;
			KUNIT_EXPECT_EQ_MSG(test, kpi_reg(post, r),
					    want->gpr[r],
					    "%s run %u: post_handler %s",
					    k->text, run, kpi_reg_name[r]);
		}
		KUNIT_EXPECT_EQ_MSG(test, (long)(post->sp - got->frame),
				    kpi_sp_delta(want),
				    "%s run %u: post_handler rsp", k->text,
				    run);
		KUNIT_EXPECT_EQ_MSG(test, post->flags & kpi_cmp_flags(k),
				    want->flags & kpi_cmp_flags(k),
				    "%s run %u: post_handler flags", k->text,
				    run);
	}
}

/* ---- per-case context -------------------------------------------------- */

struct kpi_ctx {
	struct kpi_cpu in, got;
	struct kpi_cpu native[KPI_RUNS];
};

static void kpi_vfree(void *area)
{
	vfree(area);
}

/*
 * kpi_hole: the page after a one-page vmalloc() area, which is its guard
 * page and so never mapped.  A load from it is a #PF on a canonical
 * kernel address, the fault get_kernel_nofault() fixes up.
 */
static void kpi_make_hole(struct kunit *test)
{
	void *area = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, area);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpi_vfree, area),
			0);
	kpi_hole = (unsigned long)area + PAGE_SIZE;
}

static struct kpi_ctx *kpi_ctx_new(struct kunit *test,
				   const struct kpi_kind *k)
{
	struct kpi_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	if (k->flow == KPI_FAULTS)
		kpi_make_hole(test);
	return c;
}

/*
 * The native results of every run of @k into c->native[], with the
 * checks on the stub itself: its instruction has the expected length and
 * a conditional transfer went both ways.
 */
static void kpi_natives(struct kunit *test, const struct kpi_kind *k,
			struct kpi_ctx *c)
{
	unsigned int run, paths = 0;

	for (run = 0; run < KPI_RUNS; run++) {
		kpi_exec(k, run, &c->in, &c->native[run]);
		kpi_check_flow(test, k, run, &c->native[run]);
		paths |= BIT(c->native[run].where);
	}
	KUNIT_ASSERT_EQ_MSG(test, c->in.end - c->in.at, (unsigned long)k->len,
			    "%s: instruction length in the stub", k->text);
	if (k->flow == KPI_BRANCHES)
		KUNIT_EXPECT_EQ_MSG(test, paths,
				    BIT(KPI_AT_NEXT) | BIT(KPI_AT_TARGET),
				    "%s: paths taken over the runs", k->text);
	KUNIT_EXPECT_EQ(test, kpi_cur(), 0);
}

/* ---- cases ------------------------------------------------------------- */

static void kpi_kind_desc(const struct kpi_kind *k, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s: %s, %s", k->id, k->text,
		 k->how);
}

KUNIT_ARRAY_PARAM(kpi_kinds, kpi_kinds, kpi_kind_desc);

/*
 * Every kind: native runs, probed runs (same results, one hit of each
 * handler per run, what the handlers saw), unprobed runs again (no hits).
 */
static void kpi_matches_native(struct kunit *test)
{
	const struct kpi_kind *k = test->param_value;
	struct kpi_ctx *c;
	struct kpi_probe *p;
	unsigned int run;

	if ((k->flags & KPI_FPU) && !boot_cpu_has(X86_FEATURE_AVX))
		kunit_skip(test, "%s: the CPU has no AVX", k->text);
	c = kpi_ctx_new(test, k);
	kpi_natives(test, k, c);
	p = kpi_probe_at(test, c->in.at);
	kpi_arm(test, k, p);

	for (run = 0; run < KPI_RUNS; run++) {
		kpi_clear(p);
		kpi_exec(k, run, &c->in, &c->got);
		kpi_check_hits(test, k, run, p, &c->in, &c->native[run],
			       &c->got);
		kpi_same(test, k, "probed", run, &c->native[run], &c->got,
			 kpi_cmp_flags(k));
	}

	kpi_unregister(p);
	for (run = 0; run < KPI_RUNS; run++) {
		kpi_clear(p);
		kpi_exec(k, run, &c->in, &c->got);
		KUNIT_EXPECT_EQ_MSG(test, p->pre + p->post, 0,
				    "%s run %u: handlers after unregister",
				    k->text, run);
		kpi_same(test, k, "unregistered", run, &c->native[run],
			 &c->got, kpi_cmp_flags(k));
	}
	KUNIT_EXPECT_EQ(test, kpi_cur(), 0);
}

/*
 * A pre_handler that moves regs->ip to label 8 and returns 1: the
 * instruction does not run (registers, flags, stack and memory as they
 * went in), the run goes on at label 8 and no post_handler runs.
 */
static void kpi_skip(struct kunit *test)
{
	static const char * const ids[] = {
		"add83", "rip_store", "call32", "cli", "push_rbx", "cmpxchg",
	};
	unsigned int i, run, r;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		const struct kpi_kind *k = kpi_find(ids[i]);
		struct kpi_ctx *c;
		struct kpi_probe *p;

		KUNIT_ASSERT_NOT_NULL_MSG(test, k, "%s: not in the table",
					  ids[i]);
		c = kpi_ctx_new(test, k);
		kpi_inputs(k, 0, &c->in);
		p = kpi_probe_at(test, c->in.at);
		p->skip_to = c->in.target;
		kpi_arm(test, k, p);

		for (run = 0; run < 2; run++) {
			kpi_clear(p);
			kpi_exec(k, run, &c->in, &c->got);
			KUNIT_EXPECT_EQ_MSG(test, p->pre, 1,
					    "%s run %u: pre_handler calls",
					    k->text, run);
			KUNIT_EXPECT_EQ_MSG(test, p->post, 0,
					    "%s run %u: post_handler calls",
					    k->text, run);
			KUNIT_EXPECT_EQ_MSG(test, c->got.where,
					    (unsigned long)KPI_AT_TARGET,
					    "%s run %u: path", k->text, run);
			for (r = 0; r < KPI_NR_GPRS; r++) {
				if (r == KPI_RSP)
					continue;
				KUNIT_EXPECT_EQ_MSG(test, c->got.gpr[r],
						    c->in.gpr[r],
						    "%s run %u: %s", k->text,
						    run, kpi_reg_name[r]);
			}
			KUNIT_EXPECT_EQ_MSG(test, kpi_sp_delta(&c->got),
					    -(long)k->sp_in,
					    "%s run %u: rsp", k->text, run);
			KUNIT_EXPECT_EQ_MSG(test,
					    c->got.flags & KPI_CMP_FLAGS,
					    c->in.flags & KPI_CMP_FLAGS,
					    "%s run %u: flags", k->text, run);
			KUNIT_EXPECT_MEMEQ_MSG(test, c->got.mem, c->in.mem,
					       sizeof(c->in.mem),
					       "%s run %u: buffer", k->text,
					       run);
		}
		kpi_unregister(p);
	}
}

/*
 * The outer probe's pre_handler runs an inner kind whose instruction has
 * a probe too: the inner hit counts in its nmissed, runs neither of its
 * handlers, and its instruction still leaves the native state (IF
 * aside: the handler runs with interrupts off).  The outer probe works
 * as alone.
 */
static void kpi_nested(struct kunit *test)
{
	static const char * const inner_ids[] = {
		"rip_load", "jz8", "push_rbx", "xchg", "call32", "imul",
	};
	const struct kpi_kind *outer = kpi_find("add83");
	unsigned int i, run;

	KUNIT_ASSERT_NOT_NULL(test, outer);
	for (i = 0; i < ARRAY_SIZE(inner_ids); i++) {
		const struct kpi_kind *k = kpi_find(inner_ids[i]);
		struct kpi_ctx *oc, *ic;
		struct kpi_probe *op, *ip;

		KUNIT_ASSERT_NOT_NULL_MSG(test, k, "%s: not in the table",
					  inner_ids[i]);
		oc = kpi_ctx_new(test, outer);
		ic = kpi_ctx_new(test, k);
		kpi_natives(test, outer, oc);
		kpi_natives(test, k, ic);

		ip = kpi_probe_at(test, ic->in.at);
		op = kpi_probe_at(test, oc->in.at);
		op->inner = k;
		kpi_arm(test, k, ip);
		kpi_arm(test, outer, op);

		for (run = 0; run < KPI_RUNS; run++) {
			kpi_clear(op);
			kpi_clear(ip);
			op->inner_run = run;
			kpi_exec(outer, run, &oc->in, &oc->got);
			kpi_check_hits(test, outer, run, op, &oc->in,
				       &oc->native[run], &oc->got);
			kpi_same(test, outer, "outer", run, &oc->native[run],
				 &oc->got, KPI_CMP_FLAGS);
			KUNIT_EXPECT_EQ_MSG(test, ip->pre + ip->post, 0,
					    "%s run %u: inner handlers",
					    k->text, run);
			KUNIT_EXPECT_EQ_MSG(test, ip->kp.nmissed,
					    (unsigned long)run + 1,
					    "%s run %u: inner nmissed",
					    k->text, run);
			kpi_same(test, k, "nested", run, &ic->native[run],
				 &op->inner_out,
				 KPI_CMP_FLAGS & ~X86_EFLAGS_IF);
		}
		kpi_unregister(op);
		kpi_unregister(ip);
	}
}

/*
 * Two probes on one instruction: both handlers of both run once per run
 * and the result is the native one; then with each probe gone in turn.
 */
static void kpi_two_probes(struct kunit *test)
{
	static const char * const ids[] = {
		"add83", "rip_load", "call32", "jl32", "cmpxchg", "ret",
		"fault",
	};
	unsigned int i, run;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		const struct kpi_kind *k = kpi_find(ids[i]);
		struct kpi_probe *a, *b;
		struct kpi_ctx *c;

		KUNIT_ASSERT_NOT_NULL_MSG(test, k, "%s: not in the table",
					  ids[i]);
		c = kpi_ctx_new(test, k);
		kpi_natives(test, k, c);
		a = kpi_probe_at(test, c->in.at);
		b = kpi_probe_at(test, c->in.at);
		kpi_arm(test, k, a);
		kpi_arm(test, k, b);

		for (run = 0; run < KPI_RUNS; run++) {
			kpi_clear(a);
			kpi_clear(b);
			kpi_exec(k, run, &c->in, &c->got);
			kpi_check_hits(test, k, run, a, &c->in,
				       &c->native[run], &c->got);
			kpi_check_hits(test, k, run, b, &c->in,
				       &c->native[run], &c->got);
			kpi_same(test, k, "two probes", run, &c->native[run],
				 &c->got, KPI_CMP_FLAGS);
		}

		kpi_unregister(a);
		kpi_clear(a);
		kpi_clear(b);
		kpi_exec(k, 1, &c->in, &c->got);
		KUNIT_EXPECT_EQ_MSG(test, a->pre + a->post, 0,
				    "%s: first probe after its unregister",
				    k->text);
		kpi_check_hits(test, k, 1, b, &c->in, &c->native[1], &c->got);
		kpi_same(test, k, "second probe left", 1, &c->native[1],
			 &c->got, KPI_CMP_FLAGS);

		kpi_unregister(b);
		kpi_clear(b);
		kpi_exec(k, 2, &c->in, &c->got);
		KUNIT_EXPECT_EQ_MSG(test, a->pre + a->post + b->pre + b->post,
				    0, "%s: handlers after both unregisters",
				    k->text);
		kpi_same(test, k, "none left", 2, &c->native[2], &c->got,
			 KPI_CMP_FLAGS);
	}
}

/*
 * A probe with no post_handler becomes a jump once the optimizer has
 * run.  For the kinds listed the jump covers the probed instruction and
 * the stub code after it, which opt.c moves into the probe's buffer: the
 * hits then come through kprobe_opt_entry (not the int3, so not in NMI
 * context) and every run must still match the native one.
 */
static void kpi_jump_optimized(struct kunit *test)
{
	static const char * const ids[] = {
		"rip_load", "rip_store", "rip_lea", "load", "store", "imul3",
		"movzb", "movabs", "mov89q", "lea", "add81", "setne",
	};
	unsigned int i, run, jumped = 0;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		const struct kpi_kind *k = kpi_find(ids[i]);
		struct kpi_probe *p;
		struct kpi_ctx *c;

		KUNIT_ASSERT_NOT_NULL_MSG(test, k, "%s: not in the table",
					  ids[i]);
		c = kpi_ctx_new(test, k);
		kpi_natives(test, k, c);
		p = kpi_probe_at(test, c->in.at);
		p->kp.post_handler = NULL;
		kpi_arm(test, k, p);
		wait_for_kprobe_optimizer();

		for (run = 0; run < KPI_RUNS; run++) {
			kpi_clear(p);
			p->pre_in_trap = 0;
			kpi_exec(k, run, &c->in, &c->got);
			KUNIT_EXPECT_EQ_MSG(test, p->pre, 1,
					    "%s run %u: pre_handler calls",
					    k->text, run);
			KUNIT_EXPECT_EQ_MSG(test, p->pre_ip,
					    c->in.at + INT3_INSN_SIZE,
					    "%s run %u: pre_handler ip",
					    k->text, run);
			kpi_same(test, k, "jump", run, &c->native[run],
				 &c->got, kpi_cmp_flags(k));
			if (run == 0 && !p->pre_in_trap)
				jumped++;
		}
		kunit_info(test, "%s: %s", k->text,
			   p->pre_in_trap ? "stayed a breakpoint" : "a jump");
		kpi_unregister(p);
		kpi_clear(p);
		kpi_exec(k, 0, &c->in, &c->got);
		KUNIT_EXPECT_EQ_MSG(test, p->pre, 0, "%s: hits after unregister",
				    k->text);
		kpi_same(test, k, "jump removed", 0, &c->native[0], &c->got,
			 kpi_cmp_flags(k));
	}
	/* Most of them must really have gone through the jump. */
	KUNIT_EXPECT_GE(test, jumped, ARRAY_SIZE(ids) / 2);
}

static void kpi_refusal_desc(const struct kpi_refusal *e, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", e->id);
}

KUNIT_ARRAY_PARAM(kpi_refusals, kpi_refusals, kpi_refusal_desc);

/* Instructions that can only run in place: register_kprobe() refuses. */
static void kpi_refused(struct kunit *test)
{
	const struct kpi_refusal *e = test->param_value;
	struct kpi_probe *p;
	int ret;

	p = kpi_probe_at(test, e->addr());
	ret = register_kprobe(&p->kp);
	kunit_info(test, "%s at %pS: register_kprobe() = %d\n", e->id,
		   p->kp.addr, ret);
	if (!ret)
		p->registered = true;
	KUNIT_EXPECT_LT_MSG(test, ret, 0, "%s accepted", e->id);
}

/*
 * The harness itself, without probes: results worked out by hand for a
 * few stubs, so that a comparison of two runs is one of correct runs.
 */
static void kpi_harness(struct kunit *test)
{
	struct kpi_ctx *c;
	const struct kpi_kind *k;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);

	/* 1 + 0x7f: carry out of bit 3, one bit set (odd parity) */
	k = kpi_get(test, "add83");
	kpi_inputs(k, 0, &c->in);
	c->in.gpr[3] = 1;
	c->in.flags &= ~KPI_ARITH;
	kpi_go(k, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.gpr[3], 0x80UL);
	KUNIT_EXPECT_EQ(test, c->got.flags & KPI_ARITH,
			(unsigned long)X86_EFLAGS_AF);
	KUNIT_EXPECT_EQ(test, c->got.where, (unsigned long)KPI_AT_NEXT);
	KUNIT_EXPECT_EQ(test, kpi_sp_delta(&c->got), 0L);
	KUNIT_EXPECT_EQ(test, c->got.gpr[0], c->in.gpr[0]);
	KUNIT_EXPECT_EQ(test, c->got.gpr[7], c->in.gpr[7]);
	KUNIT_EXPECT_EQ(test, c->got.gpr[15], c->in.gpr[15]);

	/* je: taken on ZF only */
	k = kpi_get(test, "jz8");
	kpi_inputs(k, 0, &c->in);
	c->in.flags |= X86_EFLAGS_ZF;
	kpi_go(k, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.where, (unsigned long)KPI_AT_TARGET);
	c->in.flags &= ~X86_EFLAGS_ZF;
	kpi_go(k, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.where, (unsigned long)KPI_AT_NEXT);

	/* call: the return address on the stack, the target reached */
	k = kpi_get(test, "call32");
	kpi_exec(k, 0, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.top, c->in.end);
	KUNIT_EXPECT_EQ(test, kpi_sp_delta(&c->got), -8L);
	KUNIT_EXPECT_EQ(test, c->got.where, (unsigned long)KPI_AT_TARGET);

	/* push */
	k = kpi_get(test, "push_rbx");
	kpi_exec(k, 1, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.top, c->in.gpr[3]);
	KUNIT_EXPECT_EQ(test, kpi_sp_delta(&c->got), -8L);

	/* pop: the pushed word, back on the frame */
	k = kpi_get(test, "pop_r15");
	kpi_exec(k, 2, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.gpr[15], c->in.aux);
	KUNIT_EXPECT_EQ(test, kpi_sp_delta(&c->got), 0L);

	/* ret $16: to the target, the frame as before the setup */
	k = kpi_get(test, "ret16");
	kpi_exec(k, 0, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.where, (unsigned long)KPI_AT_TARGET);
	KUNIT_EXPECT_EQ(test, kpi_sp_delta(&c->got), 0L);

	/* pushf: the image holds the flags loaded */
	k = kpi_get(test, "pushf");
	kpi_exec(k, 1, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.top & KPI_CMP_FLAGS,
			c->in.flags & KPI_CMP_FLAGS);

	/* popf */
	k = kpi_get(test, "popf");
	kpi_exec(k, 3, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.flags & KPI_CMP_FLAGS,
			c->in.aux & KPI_CMP_FLAGS);

	/* cli: IF clear after it, and back on after the stub */
	k = kpi_get(test, "cli");
	kpi_exec(k, 0, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.flags & X86_EFLAGS_IF, 0UL);
	KUNIT_EXPECT_EQ(test, native_save_fl() & X86_EFLAGS_IF,
			c->in.flags & X86_EFLAGS_IF);

	/* memory forms */
	k = kpi_get(test, "rip_load");
	kpi_exec(k, 0, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.gpr[0], c->in.mem[1]);
	k = kpi_get(test, "rip_store");
	kpi_exec(k, 0, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.mem[2], c->in.gpr[1]);
	k = kpi_get(test, "rip_lea");
	kpi_exec(k, 0, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.gpr[2], (unsigned long)(kpi_buf() + 3));
	k = kpi_get(test, "long15");
	kpi_exec(k, 3, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.mem[3], 0x5a5a5a5aUL);
	k = kpi_get(test, "long_rip");
	kpi_exec(k, 0, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.mem[5], (unsigned long)-0x2152412L);
	k = kpi_get(test, "lea_rsp");
	kpi_exec(k, 0, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, kpi_sp_delta(&c->got), -0x20L);

	/* the faulting load: -EFAULT in %rax, resumed at the fixup */
	k = kpi_get(test, "fault");
	kpi_make_hole(test);
	kpi_exec(k, 0, &c->in, &c->got);
	KUNIT_EXPECT_EQ(test, c->got.where, (unsigned long)KPI_AT_FIXUP);
	KUNIT_EXPECT_EQ(test, c->got.gpr[0], (unsigned long)-EFAULT);
	KUNIT_EXPECT_EQ(test, c->got.gpr[6], kpi_hole);

	KUNIT_EXPECT_EQ(test, kpi_cur(), 0);
}

static struct kunit_case kpi_cases[] = {
	KUNIT_CASE(kpi_harness),
	KUNIT_CASE_PARAM(kpi_matches_native, kpi_kinds_gen_params),
	KUNIT_CASE(kpi_skip),
	KUNIT_CASE(kpi_nested),
	KUNIT_CASE(kpi_two_probes),
	KUNIT_CASE_SLOW(kpi_jump_optimized),
	KUNIT_CASE_PARAM(kpi_refused, kpi_refusals_gen_params),
	{}
};

static struct kunit_suite kpi_suite = {
	.name = "x86_kprobes_insn",
	.test_cases = kpi_cases,
};

kunit_test_suite(kpi_suite);

MODULE_DESCRIPTION("KUnit tests for the x86 kprobes instruction handling");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
