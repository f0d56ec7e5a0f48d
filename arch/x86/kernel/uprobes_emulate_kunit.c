// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for uprobes_emulate.c: every instruction form the emulator
 * accepts is run twice from the same registers and flags, once by
 * uprobe_emul_run() on a struct pt_regs and once by the CPU itself, and
 * the two results must agree in every general register, in the
 * arithmetic flags and in the instruction pointer; the rest of pt_regs
 * must be left as it was.  Forms the emulator must leave to the single
 * step are checked to be refused without touching the probe.
 *
 * The CPU's side: each accepted encoding gets an assembler stub holding
 * exactly its bytes (the list in uprobes_emulate_kunit_insns.h makes both
 * the stubs and the table, and the test reads the bytes back out of the
 * stub before using it).  A stub loads all sixteen registers, the stack
 * pointer included, and the arithmetic flags from a struct uk_cpu, runs
 * the instruction and stores them back.  None of the accepted forms reads
 * or writes memory, so the stack pointer may hold any value while the
 * instruction runs; the stub runs with interrupts off, keeps the caller's
 * stack pointer in the struct and finds the struct again through a
 * private static word.  Exceptions that could still come (NMI, #MC, #DB)
 * run on their own stacks.
 *
 * The encodings are written as bytes rather than mnemonics because many
 * of the forms the emulator takes are ones an assembler does not emit
 * (8b between registers, 81 with a small immediate or on %rax, a REX
 * prefix with no bit set or with REX.X, segment prefixes on NOPs).  The
 * texts beside them are objdump's reading of the bytes.  A few results
 * worked out by hand check the stubs themselves.
 */
#include <kunit/test.h>
#include <linux/build_bug.h>
#include <linux/irqflags.h>
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/uprobes.h>
#include <asm/insn.h>
#include <asm/irqflags.h>
#include <asm/processor-flags.h>
#include <asm/segment.h>

#include "uprobes_emulate.h"

#define UK_NR_GPRS	16

#define UK_ARITH	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | \
			 X86_EFLAGS_ZF | X86_EFLAGS_SF | X86_EFLAGS_OF)

/* Where a probed instruction sits, and its XOL slot, in the test task. */
#define UK_IP		0x401230UL
#define UK_XOL		0x7ffff7ff0080UL

/*
 * What a native stub works on.  The assembler below addresses the fields
 * by these offsets; gpr[] is indexed by x86 register number (rax, rcx,
 * rdx, rbx, rsp, rbp, rsi, rdi, r8 ... r15) and holds the inputs before
 * the run and the results after it.
 */
#define UK_OFF_FLAGS	128	/* RFLAGS to load; after the run, as left */
#define UK_OFF_SP	136	/* the caller's stack pointer */
#define UK_OFF_AT	144	/* where the stub's instruction starts */
#define UK_OFF_END	152	/* and where it ends */
#define UK_OFF_SAVED	160	/* the caller's rbx, rbp, r12 ... r15 */

struct uk_cpu {
	unsigned long gpr[UK_NR_GPRS];
	unsigned long flags;
	unsigned long saved_sp;
	unsigned long insn_at;
	unsigned long insn_end;
	unsigned long saved[6];
};

static_assert(offsetof(struct uk_cpu, flags) == UK_OFF_FLAGS);
static_assert(offsetof(struct uk_cpu, saved_sp) == UK_OFF_SP);
static_assert(offsetof(struct uk_cpu, insn_at) == UK_OFF_AT);
static_assert(offsetof(struct uk_cpu, insn_end) == UK_OFF_END);
static_assert(offsetof(struct uk_cpu, saved) == UK_OFF_SAVED);

/*
 * uemul_kunit_enter, called by a stub with %rdi pointing at the struct:
 * saves the callee-saved registers and the stub's stack pointer into it,
 * remembers the struct in uemul_kunit_cur and loads every register but
 * %rsp and %rdi.  The stub then loads RFLAGS (after the return, whose
 * thunk may change flags but no register), %rsp and %rdi, runs the
 * instruction and jumps to uemul_kunit_exit, which stores everything
 * back, switches to the saved stack, reloads the callee-saved registers
 * and returns to the stub's caller.
 */
void uemul_kunit_enter(void);
void uemul_kunit_exit(void);

asm(".pushsection .data\n"
	".balign 8\n"
	"uemul_kunit_cur:\n"
	"	.quad 0\n"
	".popsection\n"

	".pushsection .text, \"ax\"\n"
	".globl uemul_kunit_enter\n"
	".type uemul_kunit_enter, @function\n"
	ASM_FUNC_ALIGN "\n"
	"uemul_kunit_enter:\n"
	"	movq %rbx, " __stringify(UK_OFF_SAVED) "+0(%rdi)\n"
	"	movq %rbp, " __stringify(UK_OFF_SAVED) "+8(%rdi)\n"
	"	movq %r12, " __stringify(UK_OFF_SAVED) "+16(%rdi)\n"
	"	movq %r13, " __stringify(UK_OFF_SAVED) "+24(%rdi)\n"
	"	movq %r14, " __stringify(UK_OFF_SAVED) "+32(%rdi)\n"
	"	movq %r15, " __stringify(UK_OFF_SAVED) "+40(%rdi)\n"
	"	leaq 8(%rsp), %rax\n"
	"	movq %rax, " __stringify(UK_OFF_SP) "(%rdi)\n"
	"	movq %rdi, uemul_kunit_cur(%rip)\n"
	"	movq 0(%rdi), %rax\n"
	"	movq 8(%rdi), %rcx\n"
	"	movq 16(%rdi), %rdx\n"
	"	movq 24(%rdi), %rbx\n"
	"	movq 40(%rdi), %rbp\n"
	"	movq 48(%rdi), %rsi\n"
	"	movq 64(%rdi), %r8\n"
	"	movq 72(%rdi), %r9\n"
	"	movq 80(%rdi), %r10\n"
	"	movq 88(%rdi), %r11\n"
	"	movq 96(%rdi), %r12\n"
	"	movq 104(%rdi), %r13\n"
	"	movq 112(%rdi), %r14\n"
	"	movq 120(%rdi), %r15\n"
	"	" ASM_RET "\n"
	".size uemul_kunit_enter, . - uemul_kunit_enter\n"

	".globl uemul_kunit_exit\n"
	".type uemul_kunit_exit, @function\n"
	ASM_FUNC_ALIGN "\n"
	"uemul_kunit_exit:\n"
	"	xchgq %rdi, uemul_kunit_cur(%rip)\n"
	"	movq %rax, 0(%rdi)\n"
	"	movq %rcx, 8(%rdi)\n"
	"	movq %rdx, 16(%rdi)\n"
	"	movq %rbx, 24(%rdi)\n"
	"	movq %rsp, 32(%rdi)\n"
	"	movq %rbp, 40(%rdi)\n"
	"	movq %rsi, 48(%rdi)\n"
	"	movq %r8, 64(%rdi)\n"
	"	movq %r9, 72(%rdi)\n"
	"	movq %r10, 80(%rdi)\n"
	"	movq %r11, 88(%rdi)\n"
	"	movq %r12, 96(%rdi)\n"
	"	movq %r13, 104(%rdi)\n"
	"	movq %r14, 112(%rdi)\n"
	"	movq %r15, 120(%rdi)\n"
	"	movq " __stringify(UK_OFF_SP) "(%rdi), %rsp\n"
	"	pushfq\n"
	"	popq " __stringify(UK_OFF_FLAGS) "(%rdi)\n"
	"	movq uemul_kunit_cur(%rip), %rax\n"
	"	movq %rax, 56(%rdi)\n"
	"	movq " __stringify(UK_OFF_SAVED) "+0(%rdi), %rbx\n"
	"	movq " __stringify(UK_OFF_SAVED) "+8(%rdi), %rbp\n"
	"	movq " __stringify(UK_OFF_SAVED) "+16(%rdi), %r12\n"
	"	movq " __stringify(UK_OFF_SAVED) "+24(%rdi), %r13\n"
	"	movq " __stringify(UK_OFF_SAVED) "+32(%rdi), %r14\n"
	"	movq " __stringify(UK_OFF_SAVED) "+40(%rdi), %r15\n"
	"	" ASM_RET "\n"
	".size uemul_kunit_exit, . - uemul_kunit_exit\n"
	".popsection\n");

/* They run on a stack pointer objtool cannot follow: not validated. */
STACK_FRAME_NON_STANDARD(uemul_kunit_enter);
STACK_FRAME_NON_STANDARD(uemul_kunit_exit);

/*
 * One stub per accepted encoding, and a C function calling it (the table
 * points at the C function: the stub itself has no CFI type and is only
 * ever called directly).  The stub records where its copy of the
 * instruction lies before anything else.
 */
#define UK_STUB(id, ...)						\
	void uemul_kunit_native_##id(struct uk_cpu *cpu);		\
	asm(".pushsection .text, \"ax\"\n"				\
	    ".globl uemul_kunit_native_" #id "\n"			\
	    ".type uemul_kunit_native_" #id ", @function\n"		\
	    ASM_FUNC_ALIGN "\n"						\
	    "uemul_kunit_native_" #id ":\n"				\
	    "	leaq 1f(%rip), %rax\n"					\
	    "	movq %rax, " __stringify(UK_OFF_AT) "(%rdi)\n"		\
	    "	leaq 2f(%rip), %rax\n"					\
	    "	movq %rax, " __stringify(UK_OFF_END) "(%rdi)\n"	\
	    "	call uemul_kunit_enter\n"				\
	    "	pushq " __stringify(UK_OFF_FLAGS) "(%rdi)\n"		\
	    "	popfq\n"						\
	    "	movq 32(%rdi), %rsp\n"					\
	    "	movq 56(%rdi), %rdi\n"					\
	    "1:	.byte " __stringify(__VA_ARGS__) "\n"			\
	    "2:	jmp uemul_kunit_exit\n"					\
	    ".size uemul_kunit_native_" #id ", . - uemul_kunit_native_" #id "\n" \
	    ".popsection\n");						\
	STACK_FRAME_NON_STANDARD(uemul_kunit_native_##id);		\
	static void uk_native_##id(struct uk_cpu *cpu)			\
	{								\
		uemul_kunit_native_##id(cpu);				\
	}

#define UK_INSN(id, str, ...)	UK_STUB(id, __VA_ARGS__)
#include "uprobes_emulate_kunit_insns.h"
#undef UK_INSN

struct uk_insn {
	const char *id;
	const char *text;
	u8 bytes[MAX_INSN_SIZE];
	u8 len;
	void (*native)(struct uk_cpu *cpu);
};

#define UK_INSN(id_, str, ...) {					\
	.id = #id_,							\
	.text = str,							\
	.bytes = { __VA_ARGS__ },					\
	.len = sizeof((const u8[]){ __VA_ARGS__ }),			\
	.native = uk_native_##id_,					\
},

/* Every form the emulator takes (see the list for what it covers). */
static const struct uk_insn uk_accepted[] = {
#include "uprobes_emulate_kunit_insns.h"
};

#undef UK_INSN

struct uk_refusal {
	const char *text;
	const char *why;
	u8 bytes[MAX_INSN_SIZE];
	u8 len;
};

#define UK_REFUSE(str, why_, ...) {					\
	.text = str,							\
	.why = why_,							\
	.bytes = { __VA_ARGS__ },					\
	.len = sizeof((const u8[]){ __VA_ARGS__ }),			\
}

/* Forms the emulator must leave to uprobes.c's other ways. */
static const struct uk_refusal uk_refused[] = {
	UK_REFUSE("nop", "no ModRM: one-byte nop (uprobes.c emulates it)",
		  0x90),
	UK_REFUSE("push %rbp", "no ModRM: push (uprobes.c emulates it)", 0x55),
	UK_REFUSE("push %r15", "no ModRM: push with REX", 0x41, 0x57),
	UK_REFUSE("ret", "no ModRM: ret", 0xc3),
	UK_REFUSE("call 0x5", "no ModRM: call (uprobes.c emulates it)",
		  0xe8, 0x00, 0x00, 0x00, 0x00),
	UK_REFUSE("leave", "no ModRM: leave", 0xc9),
	UK_REFUSE("lea -0x8(%rsp),%rsp", "opcode not emulated: lea",
		  0x48, 0x8d, 0x64, 0x24, 0xf8),
	UK_REFUSE("add %rax,%rbx", "opcode not emulated: add between registers",
		  0x48, 0x01, 0xc3),
	UK_REFUSE("sub %rax,%rsp", "opcode not emulated: sub between registers",
		  0x48, 0x29, 0xc4),
	UK_REFUSE("xor %eax,%eax", "opcode not emulated: xor", 0x31, 0xc0),
	UK_REFUSE("test %rdi,%rdi", "opcode not emulated: test",
		  0x48, 0x85, 0xff),
	UK_REFUSE("mov $0x1,%rax", "opcode not emulated: mov of an immediate",
		  0x48, 0xc7, 0xc0, 0x01, 0x00, 0x00, 0x00),
	UK_REFUSE("mov $0x1,%eax", "no ModRM: mov of an immediate",
		  0xb8, 0x01, 0x00, 0x00, 0x00),
	UK_REFUSE("mov %al,%bl", "8-bit mov (88)", 0x88, 0xc3),
	UK_REFUSE("mov %al,%bl", "8-bit mov (8a)", 0x8a, 0xd8),
	UK_REFUSE("add $0x1,%bl", "8-bit add (80)", 0x80, 0xc3, 0x01),
	UK_REFUSE("sub $0x1,%bl", "8-bit sub (80)", 0x80, 0xeb, 0x01),
	UK_REFUSE("add $0x1,%al", "add to %al, no ModRM", 0x04, 0x01),
	UK_REFUSE("add $0x12345678,%eax", "add to %eax, no ModRM",
		  0x05, 0x78, 0x56, 0x34, 0x12),
	UK_REFUSE("add $0x1000,%rax", "add to %rax, no ModRM",
		  0x48, 0x05, 0x00, 0x10, 0x00, 0x00),
	UK_REFUSE("sub $0x1000,%rax", "sub from %rax, no ModRM",
		  0x48, 0x2d, 0x00, 0x10, 0x00, 0x00),
	UK_REFUSE("imul %ecx,%eax", "two-byte opcode other than 0f 1e/1f",
		  0x0f, 0xaf, 0xc1),
	UK_REFUSE("popcnt %ecx,%eax", "two-byte opcode other than 0f 1e/1f, with f3",
		  0xf3, 0x0f, 0xb8, 0xc1),
	UK_REFUSE("pshufb %xmm1,%xmm0", "three-byte opcode",
		  0x66, 0x0f, 0x38, 0x00, 0xc1),
	UK_REFUSE("or $0x1,%eax", "group 1 /1 (or)", 0x83, 0xc8, 0x01),
	UK_REFUSE("adc $0x1,%eax", "group 1 /2 (adc)", 0x83, 0xd0, 0x01),
	UK_REFUSE("sbb $0x1,%eax", "group 1 /3 (sbb)", 0x83, 0xd8, 0x01),
	UK_REFUSE("and $0xfffffffffffffff0,%rsp", "group 1 /4 (and)",
		  0x48, 0x83, 0xe4, 0xf0),
	UK_REFUSE("xor $0x1,%eax", "group 1 /6 (xor)", 0x83, 0xf0, 0x01),
	UK_REFUSE("cmp $0x0,%rax", "group 1 /7 (cmp)", 0x48, 0x83, 0xf8, 0x00),
	UK_REFUSE("cmp $0x1000,%rcx", "group 1 /7 (cmp), imm32",
		  0x48, 0x81, 0xf9, 0x00, 0x10, 0x00, 0x00),
	UK_REFUSE("rex.WR or $0x1,%rax", "group 1 /1 (or) with REX.R",
		  0x4c, 0x83, 0xc8, 0x01),
	UK_REFUSE("mov %rax,-0x8(%rbp)", "memory operand (mod 1)",
		  0x48, 0x89, 0x45, 0xf8),
	UK_REFUSE("mov (%rdi),%rax", "memory operand (mod 0)",
		  0x48, 0x8b, 0x07),
	UK_REFUSE("mov 0x12345678(%rip),%rax", "RIP-relative operand",
		  0x48, 0x8b, 0x05, 0x78, 0x56, 0x34, 0x12),
	UK_REFUSE("mov %rax,0x88(%rsp)", "memory operand (mod 2, SIB)",
		  0x48, 0x89, 0x84, 0x24, 0x88, 0x00, 0x00, 0x00),
	UK_REFUSE("mov 0x1000,%eax", "absolute memory operand",
		  0x8b, 0x04, 0x25, 0x00, 0x10, 0x00, 0x00),
	UK_REFUSE("subq $0x1,-0x8(%rbp)", "memory destination of sub",
		  0x48, 0x83, 0x6d, 0xf8, 0x01),
	UK_REFUSE("addl $0x1,(%rsp)", "memory destination of add",
		  0x83, 0x04, 0x24, 0x01),
	UK_REFUSE("addq $0x100,0x12345678(%rip)", "RIP-relative destination of add",
		  0x48, 0x81, 0x05, 0x78, 0x56, 0x34, 0x12, 0x00, 0x01, 0x00, 0x00),
	UK_REFUSE("mov %ax,%bx", "operand-size prefix (89)", 0x66, 0x89, 0xc3),
	UK_REFUSE("mov %ax,%bx", "operand-size prefix (8b)", 0x66, 0x8b, 0xd8),
	UK_REFUSE("add $0x1,%ax", "operand-size prefix (83)",
		  0x66, 0x83, 0xc0, 0x01),
	UK_REFUSE("sub $0x1000,%sp", "operand-size prefix (81)",
		  0x66, 0x81, 0xec, 0x00, 0x10),
	UK_REFUSE("data16 mov %rax,%rbx", "operand-size prefix, although REX.W wins",
		  0x66, 0x48, 0x89, 0xc3),
	UK_REFUSE("lock add $0x1,%rax", "lock prefix",
		  0xf0, 0x48, 0x83, 0xc0, 0x01),
	UK_REFUSE("fs mov %rax,%rbx", "fs prefix on mov",
		  0x64, 0x48, 0x89, 0xc3),
	UK_REFUSE("gs add $0x8,%rsp", "gs prefix on add",
		  0x65, 0x48, 0x83, 0xc4, 0x08),
	UK_REFUSE("cs mov %rax,%rbx", "cs prefix", 0x2e, 0x48, 0x89, 0xc3),
	UK_REFUSE("ds mov %rax,%rbx", "ds prefix", 0x3e, 0x48, 0x89, 0xc3),
	UK_REFUSE("repnz mov %rax,%rbx", "f2 prefix", 0xf2, 0x48, 0x89, 0xc3),
	UK_REFUSE("repz mov %rax,%rbx", "f3 prefix", 0xf3, 0x48, 0x89, 0xc3),
	UK_REFUSE("addr32 mov %rax,%rbx", "address-size prefix",
		  0x67, 0x48, 0x89, 0xc3),
	UK_REFUSE("{rex2} mov %rax,%rbx", "REX2 prefix",
		  0xd5, 0x08, 0x89, 0xc3),
	UK_REFUSE("{rex2} add $0x1,%eax", "REX2 prefix",
		  0xd5, 0x00, 0x83, 0xc0, 0x01),
	UK_REFUSE("vmovaps %xmm1,%xmm0", "VEX prefix", 0xc5, 0xf8, 0x28, 0xc1),
	UK_REFUSE("vmovq %xmm0,%rax", "three-byte VEX prefix",
		  0xc4, 0xe1, 0xf9, 0x7e, 0xc0),
	UK_REFUSE("nop %eax", "0f 1f /1", 0x0f, 0x1f, 0xc8),
	UK_REFUSE("nopl 0x0(%rax)", "0f 1f /7", 0x0f, 0x1f, 0x78, 0x00),
	UK_REFUSE("repz nopl (%rax)", "f3 prefix on a NOP",
		  0xf3, 0x0f, 0x1f, 0x00),
	UK_REFUSE("repnz nopl (%rax)", "f2 prefix on a NOP",
		  0xf2, 0x0f, 0x1f, 0x00),
	UK_REFUSE("cs nopl 0x0(%rax,%rax,1)", "cs prefix on a NOP",
		  0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00),
	UK_REFUSE("cs nopw 0x0(%rax,%rax,1)", "cs prefix on a NOP, with 66",
		  0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00),
	UK_REFUSE("ds nopl (%rax)", "ds prefix on a NOP",
		  0x3e, 0x0f, 0x1f, 0x00),
	UK_REFUSE("es nopl (%rax)", "es prefix on a NOP",
		  0x26, 0x0f, 0x1f, 0x00),
	UK_REFUSE("ss nopl (%rax)", "ss prefix on a NOP",
		  0x36, 0x0f, 0x1f, 0x00),
	UK_REFUSE("nopl (%eax)", "address-size prefix on a NOP",
		  0x67, 0x0f, 0x1f, 0x00),
	UK_REFUSE("lock nopl (%rax)", "lock prefix on a NOP",
		  0xf0, 0x0f, 0x1f, 0x00),
	UK_REFUSE("prefetchnta (%rax)", "other hint NOP (0f 18)",
		  0x0f, 0x18, 0x00),
	UK_REFUSE("nop %edx", "0f 1e without f3", 0x0f, 0x1e, 0xfa),
	UK_REFUSE("repnz nop %edx", "0f 1e with f2 instead of f3",
		  0xf2, 0x0f, 0x1e, 0xfa),
	UK_REFUSE("data16 endbr64", "endbr64 with 66",
		  0x66, 0xf3, 0x0f, 0x1e, 0xfa),
	UK_REFUSE("fs endbr64", "endbr64 with fs",
		  0x64, 0xf3, 0x0f, 0x1e, 0xfa),
	UK_REFUSE("rex.W endbr64", "endbr64 with REX",
		  0xf3, 0x48, 0x0f, 0x1e, 0xfa),
	UK_REFUSE("rdsspd %eax", "f3 0f 1e /1 (rdssp)", 0xf3, 0x0f, 0x1e, 0xc8),
	UK_REFUSE("rdsspq %rax", "f3 0f 1e /1 with REX.W (rdssp)",
		  0xf3, 0x48, 0x0f, 0x1e, 0xc8),
	UK_REFUSE("repz nop %esp", "f3 0f 1e with a ModRM other than fa or fb",
		  0xf3, 0x0f, 0x1e, 0xfc),
	UK_REFUSE("ud2", "ud2", 0x0f, 0x0b),
	UK_REFUSE("syscall", "syscall", 0x0f, 0x05),
	UK_REFUSE("int3", "int3", 0xcc),
	/*
	 * insn_decode() takes ud2 followed by "xen" or "kvm" as a prefix
	 * (for code running under those hypervisors' forced emulation) and
	 * decodes the instruction after it; the CPU runs the ud2.
	 */
	UK_REFUSE("ud2; 'xen'; mov %rax,%rbx", "Xen emulate prefix",
		  0x0f, 0x0b, 0x78, 0x65, 0x6e, 0x48, 0x89, 0xc3),
	UK_REFUSE("ud2; 'kvm'; nopl 0x0(%rax,%rax,1)", "KVM emulate prefix",
		  0x0f, 0x0b, 0x6b, 0x76, 0x6d, 0x0f, 0x1f, 0x44, 0x00, 0x00),
};

static const char * const uk_name[UK_NR_GPRS] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

static const size_t uk_off[UK_NR_GPRS] = {
	offsetof(struct pt_regs, ax), offsetof(struct pt_regs, cx),
	offsetof(struct pt_regs, dx), offsetof(struct pt_regs, bx),
	offsetof(struct pt_regs, sp), offsetof(struct pt_regs, bp),
	offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
	offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
	offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
	offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
};

/* pt_regs' slot of x86 register @n. */
static unsigned long *uk_reg(struct pt_regs *regs, unsigned int n)
{
	return (unsigned long *)((char *)regs + uk_off[n]);
}

/* Arithmetic flags going in: all clear, all set and two mixtures. */
static const unsigned long uk_flag_sets[] = {
	0,
	UK_ARITH,
	X86_EFLAGS_CF | X86_EFLAGS_AF | X86_EFLAGS_ZF,
	X86_EFLAGS_PF | X86_EFLAGS_SF | X86_EFLAGS_OF,
};

/* The other RFLAGS bits of the trapped task, which must stay as they are. */
static const unsigned long uk_other_flags[] = {
	X86_EFLAGS_FIXED | X86_EFLAGS_IF,
	X86_EFLAGS_FIXED | X86_EFLAGS_IF | X86_EFLAGS_TF | X86_EFLAGS_DF |
	X86_EFLAGS_AC | X86_EFLAGS_NT | X86_EFLAGS_ID,
};

/*
 * Values for the destination of add and sub: the edges of both widths,
 * then, derived from the immediate, the neighbourhoods of a zero result
 * and of signed overflow at 64 and at 32 bits (the latter with junk in
 * the upper half, which a 32-bit operation must ignore and clear).
 */
static const unsigned long uk_edges[] = {
	0, 1, 2, 0xf, 0x10, 0x7f, 0x80, 0xff, 0x100,
	0x7fffffffUL, 0x80000000UL, 0xfffffffeUL, 0xffffffffUL,
	0x100000000UL, 0x1ffffffffUL, 0xffffffff7fffffffUL,
	0xffffffff80000000UL, 0x7fffffffffffffffUL, 0x8000000000000000UL,
	0xfffffffffffffffeUL, 0xffffffffffffffffUL, 0x123456789abcdef0UL,
	0xfedcba9876543210UL, 0x5555555555555555UL, 0xaaaaaaaaaaaaaaaaUL,
};

#define UK_NR_NEAR	3	/* imm - 1, imm, imm + 1 and the like */
#define UK_NR_DERIVED	(8 * UK_NR_NEAR)
#define UK_NR_VALUES	(ARRAY_SIZE(uk_edges) + UK_NR_DERIVED)

static unsigned int uk_values(unsigned long imm, unsigned long *v)
{
	const unsigned long top64 = 1UL << 63, top32 = 1UL << 31;
	const unsigned long junk = 0xdead000000000000UL;
	unsigned int n = 0, i;

	for (i = 0; i < ARRAY_SIZE(uk_edges); i++)
		v[n++] = uk_edges[i];
	for (i = 0; i < UK_NR_NEAR; i++) {
		unsigned long k = i - 1UL;

		v[n++] = imm + k;
		v[n++] = -imm + k;
		v[n++] = top64 - imm + k;
		v[n++] = top64 + imm + k;
		v[n++] = junk | (u32)(imm + k);
		v[n++] = junk | (u32)(-imm + k);
		v[n++] = junk | (u32)(top32 - imm + k);
		v[n++] = junk | (u32)(top32 + imm + k);
	}
	return n;
}

/* Sixteen different register values; four patterns, chosen by @seed. */
static void uk_fill(unsigned long *gpr, unsigned int seed)
{
	unsigned int r;

	for (r = 0; r < UK_NR_GPRS; r++) {
		unsigned long x = r + 1;

		switch (seed % 4) {
		case 0:
			gpr[r] = x * 0x0101010101010101UL;
			break;
		case 1:
			gpr[r] = ~(x * 0x0101010101010101UL);
			break;
		case 2:
			gpr[r] = (r & 1 ? 0xffffffff00000000UL : 0) |
				 0x80000000UL | x << 8;
			break;
		default:
			gpr[r] = (x + 16UL * seed) * 0x9e3779b97f4a7c15UL;
			break;
		}
	}
}

/* The stubs share uemul_kunit_cur: one run at a time. */
static DEFINE_RAW_SPINLOCK(uk_native_lock);

/*
 * Runs @e's stub: the registers @gpr, the arithmetic flags of @arith and
 * the current values of the other RFLAGS bits go in; @cpu holds what the
 * CPU left.  Interrupts stay off throughout, as %rsp may point anywhere.
 */
static void uk_run_native(const struct uk_insn *e, const unsigned long *gpr,
			  unsigned long arith, struct uk_cpu *cpu)
{
	unsigned long irqs;

	memset(cpu, 0, sizeof(*cpu));
	memcpy(cpu->gpr, gpr, sizeof(cpu->gpr));
	raw_spin_lock_irqsave(&uk_native_lock, irqs);
	cpu->flags = (native_save_fl() & ~UK_ARITH) | (arith & UK_ARITH);
	e->native(cpu);
	raw_spin_unlock_irqrestore(&uk_native_lock, irqs);
}

struct uk_ctx {
	/* @e analysed into a zeroed probe and into one full of junk */
	struct arch_uprobe probe[2];
	struct insn insn;
	struct uk_cpu cpu;
	struct pt_regs in, got, want;
	struct uprobe_task utask;
	unsigned long gpr[UK_NR_GPRS];
	unsigned long values[UK_NR_VALUES];
};

/*
 * Decodes and analyses @e as arch_uprobe_analyze_insn() does (the bytes
 * after the instruction being whatever follows it in the probed text),
 * into c->probe[0] and c->probe[1], and leaves c->insn decoded.
 */
static void uk_prepare(struct kunit *test, struct uk_ctx *c,
		       const struct uk_insn *e)
{
	unsigned int i;

	memset(&c->probe[0], 0, sizeof(c->probe[0]));
	memset(&c->probe[1], 0xa5, sizeof(c->probe[1]));
	c->probe[1].ops = NULL;
	for (i = 0; i < ARRAY_SIZE(c->probe); i++) {
		struct arch_uprobe *p = &c->probe[i];

		memcpy(p->insn, e->bytes, e->len);
		KUNIT_ASSERT_EQ_MSG(test, insn_decode(&c->insn, p->insn,
						      sizeof(p->insn),
						      INSN_MODE_64), 0,
				    "%s: not decoded", e->text);
		KUNIT_ASSERT_EQ_MSG(test, c->insn.length, e->len,
				    "%s: decoded length", e->text);
		KUNIT_ASSERT_TRUE_MSG(test, uprobe_emul_analyze(p, &c->insn),
				      "%s: refused", e->text);
		KUNIT_EXPECT_MEMEQ_MSG(test, p->insn, e->bytes, e->len,
				       "%s: analysis changed the bytes",
				       e->text);
		KUNIT_EXPECT_PTR_EQ_MSG(test, p->ops, NULL,
					"%s: analysis set ->ops", e->text);
	}
}

/* The registers of a 64-bit task at the probe, trapped by the breakpoint. */
static void uk_user_regs(struct pt_regs *regs, const unsigned long *gpr,
			 unsigned long flags)
{
	unsigned int r;

	memset(regs, 0, sizeof(*regs));
	for (r = 0; r < UK_NR_GPRS; r++)
		*uk_reg(regs, r) = gpr[r];
	regs->flags = flags;
	regs->ip = UK_IP;
	regs->orig_ax = -1UL;
	regs->cs = __USER_CS;
	regs->ss = __USER_DS;
}

static void uk_report(struct kunit *test, struct uk_ctx *c,
		      const struct uk_insn *e)
{
	unsigned int r;

	for (r = 0; r < UK_NR_GPRS; r++)
		KUNIT_EXPECT_EQ_MSG(test, *uk_reg(&c->got, r),
				    *uk_reg(&c->want, r), "%s: %s",
				    e->text, uk_name[r]);
	KUNIT_EXPECT_EQ_MSG(test, c->got.flags, c->want.flags,
			    "%s: flags", e->text);
	KUNIT_EXPECT_EQ_MSG(test, c->got.ip, c->want.ip, "%s: ip", e->text);
	KUNIT_EXPECT_MEMEQ_MSG(test, &c->got, &c->want, sizeof(c->want),
			       "%s: pt_regs", e->text);
	for (r = 0; r < UK_NR_GPRS; r++)
		kunit_info(test, "%s: input %s = %#lx\n", e->text, uk_name[r],
			   c->gpr[r]);
	kunit_info(test, "%s: input flags = %#lx\n", e->text, c->in.flags);
}

/*
 * One run of @e from c->gpr and the flags @arith and @other: the CPU's
 * result against uprobe_emul_run()'s on @probe.  Reports a difference
 * and returns false.
 */
static bool uk_check(struct kunit *test, struct uk_ctx *c,
		     const struct uk_insn *e, struct arch_uprobe *probe,
		     unsigned long arith, unsigned long other)
{
	unsigned int r;
	bool done;

	uk_run_native(e, c->gpr, arith, &c->cpu);

	uk_user_regs(&c->in, c->gpr, other | (arith & UK_ARITH));
	c->want = c->in;
	for (r = 0; r < UK_NR_GPRS; r++)
		*uk_reg(&c->want, r) = c->cpu.gpr[r];
	c->want.flags = (c->in.flags & ~UK_ARITH) | (c->cpu.flags & UK_ARITH);
	c->want.ip = c->in.ip + e->len;

	c->got = c->in;
	done = uprobe_emul_run(probe, &c->got);
	KUNIT_EXPECT_TRUE_MSG(test, done, "%s: not emulated", e->text);
	if (done && !memcmp(&c->got, &c->want, sizeof(c->want)))
		return true;
	uk_report(test, c, e);
	return false;
}

static void uk_accepted_desc(const struct uk_insn *e, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%*ph %s", e->len, e->bytes,
		 e->text);
}

KUNIT_ARRAY_PARAM(uk_accepted, uk_accepted, uk_accepted_desc);

/* Every accepted encoding, emulated and native, from many inputs. */
static void uk_accepts(struct kunit *test)
{
	const struct uk_insn *e = test->param_value;
	unsigned int nvalues, v, f, run = 0;
	struct uk_ctx *c;
	struct uprobe_task *saved;
	bool arith;
	int dst = 0, ret;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	uk_prepare(test, c, e);

	/* The stub runs exactly the bytes the emulator analysed. */
	uk_fill(c->gpr, 0);
	uk_run_native(e, c->gpr, 0, &c->cpu);
	KUNIT_ASSERT_EQ_MSG(test, c->cpu.insn_end - c->cpu.insn_at,
			    (unsigned long)e->len, "%s: stub", e->text);
	KUNIT_ASSERT_MEMEQ_MSG(test, (const void *)c->cpu.insn_at, e->bytes,
			       e->len, "%s: stub", e->text);

	/*
	 * For add and sub, the interesting values go into the destination,
	 * found from the decoded ModRM (REX.B included); the other forms
	 * run from the register patterns alone.
	 */
	arith = c->insn.opcode.bytes[0] == 0x81 ||
		c->insn.opcode.bytes[0] == 0x83;
	if (arith) {
		u8 rex = c->insn.rex_prefix.nbytes ?
			 c->insn.rex_prefix.bytes[0] : 0;

		dst = X86_MODRM_RM(c->insn.modrm.bytes[0]) +
		      (X86_REX_B(rex) ? 8 : 0);
		nvalues = uk_values((unsigned long)(long)c->insn.immediate.value,
				    c->values);
	} else {
		nvalues = 8;
	}

	for (v = 0; v < nvalues; v++) {
		for (f = 0; f < ARRAY_SIZE(uk_flag_sets); f++, run++) {
			uk_fill(c->gpr, run + v);
			if (arith)
				c->gpr[dst] = c->values[v];
			if (!uk_check(test, c, e, &c->probe[run % 2],
				      uk_flag_sets[f],
				      uk_other_flags[(run / 4) % 2]))
				return;
		}
	}

	/* A task in 32-bit code at the address gets the single step. */
	uk_fill(c->gpr, 3);
	uk_user_regs(&c->in, c->gpr, uk_other_flags[0]);
	c->in.cs = __USER32_CS;
	c->got = c->in;
	KUNIT_EXPECT_FALSE_MSG(test, uprobe_emul_run(&c->probe[0], &c->got),
			       "%s: emulated in 32-bit code", e->text);
	KUNIT_EXPECT_MEMEQ_MSG(test, &c->got, &c->in, sizeof(c->in),
			       "%s: registers changed in 32-bit code", e->text);

	/* After that step, the task goes on after the original instruction. */
	c->utask.vaddr = UK_IP;
	c->utask.xol_vaddr = UK_XOL;
	c->got = c->in;
	c->got.ip = UK_XOL + e->len;
	c->want = c->got;
	c->want.ip = UK_IP + e->len;
	saved = current->utask;
	current->utask = &c->utask;
	ret = uprobe_emul_post_xol(&c->probe[0], &c->got);
	current->utask = saved;
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s: post_xol", e->text);
	KUNIT_EXPECT_MEMEQ_MSG(test, &c->got, &c->want, sizeof(c->want),
			       "%s: post_xol", e->text);
}

static void uk_refused_desc(const struct uk_refusal *e, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%*ph %s", e->len, e->bytes,
		 e->text);
}

KUNIT_ARRAY_PARAM(uk_refused, uk_refused, uk_refused_desc);

/* Refused, and the probe left as it was for uprobes.c's own analysis. */
static void uk_refuses(struct kunit *test)
{
	const struct uk_refusal *e = test->param_value;
	struct arch_uprobe probe, before;
	struct insn insn;

	memset(&probe, 0, sizeof(probe));
	memcpy(probe.insn, e->bytes, e->len);
	KUNIT_ASSERT_EQ_MSG(test, insn_decode(&insn, probe.insn,
					      sizeof(probe.insn),
					      INSN_MODE_64), 0,
			    "%s: not decoded", e->text);
	KUNIT_ASSERT_EQ_MSG(test, insn.length, e->len, "%s: decoded length",
			    e->text);
	memcpy(&before, &probe, sizeof(probe));
	KUNIT_EXPECT_FALSE_MSG(test, uprobe_emul_analyze(&probe, &insn),
			       "%s accepted (%s)", e->text, e->why);
	KUNIT_EXPECT_MEMEQ_MSG(test, &probe, &before, sizeof(probe),
			       "%s: refusal wrote the probe", e->text);
}

/*
 * Results worked out by hand, for both the stubs and the emulator: a
 * check on the reference itself.
 */
struct uk_answer {
	const char *id;
	unsigned int in_reg, out_reg;
	unsigned long in, out;
	unsigned long flags_in, flags_out;
};

static const struct uk_answer uk_answers[] = {
	/* 0x10 - 0x18: borrow out and from bit 3, negative */
	{ "sub83q_rsp", 4, 4, 0x10, 0xfffffffffffffff8UL,
	  0, X86_EFLAGS_CF | X86_EFLAGS_AF | X86_EFLAGS_SF },
	/* 0xfffffff8 + 8 = 0, upper half cleared */
	{ "add83l_eax", 0, 0, 0xdeadbeeffffffff8UL, 0,
	  0, X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | X86_EFLAGS_ZF },
	/* 0x80000000 - 1 overflows; low byte 0xff has even parity */
	{ "sub83l_eax", 0, 0, 0xffffffff80000000UL, 0x7fffffff,
	  0, X86_EFLAGS_PF | X86_EFLAGS_AF | X86_EFLAGS_OF },
	/* two negatives make a positive: carry and overflow */
	{ "add81q_r15", 15, 15, 0x8000000000000000UL, 0x7fffffff80000000UL,
	  0, X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_OF },
	/* 32-bit mov into %esp zero-extends; flags untouched */
	{ "mov89l_r14d_esp", 14, 4, 0x123456789abcdef0UL, 0x9abcdef0,
	  UK_ARITH, UK_ARITH },
	{ "mov8bq_rdi_rsp", 7, 4, 0xfedcba9876543210UL, 0xfedcba9876543210UL,
	  X86_EFLAGS_ZF, X86_EFLAGS_ZF },
	{ "endbr64", 0, 0, 0x1234, 0x1234,
	  X86_EFLAGS_CF | X86_EFLAGS_OF, X86_EFLAGS_CF | X86_EFLAGS_OF },
};

static const struct uk_insn *uk_find(const char *id)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(uk_accepted); i++)
		if (!strcmp(uk_accepted[i].id, id))
			return &uk_accepted[i];
	return NULL;
}

static void uk_known_answers(struct kunit *test)
{
	struct uk_ctx *c;
	unsigned int i;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);

	for (i = 0; i < ARRAY_SIZE(uk_answers); i++) {
		const struct uk_answer *a = &uk_answers[i];
		const struct uk_insn *e = uk_find(a->id);

		KUNIT_ASSERT_NOT_NULL_MSG(test, e, "%s: not in the table", a->id);
		uk_prepare(test, c, e);
		uk_fill(c->gpr, 1);
		c->gpr[a->in_reg] = a->in;
		/* emulator against CPU, as in uk_accepts() ... */
		uk_check(test, c, e, &c->probe[0], a->flags_in,
			 uk_other_flags[1]);
		/* ... and the CPU against the hand-made result */
		KUNIT_EXPECT_EQ_MSG(test, c->cpu.gpr[a->out_reg], a->out,
				    "%s: %s", e->text, uk_name[a->out_reg]);
		KUNIT_EXPECT_EQ_MSG(test, c->cpu.flags & UK_ARITH, a->flags_out,
				    "%s: flags", e->text);
		KUNIT_EXPECT_EQ_MSG(test, c->got.flags & UK_ARITH, a->flags_out,
				    "%s: emulated flags", e->text);
	}
}

/* A probe the emulator never analysed is not emulated, nor touched. */
static void uk_unanalysed(struct kunit *test)
{
	struct uk_ctx *c;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	uk_fill(c->gpr, 0);
	uk_user_regs(&c->in, c->gpr, uk_other_flags[0]);
	c->got = c->in;
	KUNIT_EXPECT_FALSE(test, uprobe_emul_run(&c->probe[0], &c->got));
	KUNIT_EXPECT_MEMEQ(test, &c->got, &c->in, sizeof(c->in));
}

static struct kunit_case uk_cases[] = {
	KUNIT_CASE(uk_known_answers),
	KUNIT_CASE(uk_unanalysed),
	KUNIT_CASE_PARAM(uk_accepts, uk_accepted_gen_params),
	KUNIT_CASE_PARAM(uk_refuses, uk_refused_gen_params),
	{}
};

static struct kunit_suite uk_suite = {
	.name = "uprobes_emulate",
	.test_cases = uk_cases,
};

kunit_test_suite(uk_suite);
