// SPDX-License-Identifier: GPL-2.0
/*
 * wb-demo: a small guest program with known functions, arguments, return
 * values and global data, for uprobe demos, tests and benchmarks.  The
 * workbench records the file offset of each wb_demo_* function in
 * /wb/share/wb-demo.offsets.
 *
 * usage:
 *   wb-demo [N]       wb_demo_add(i, 10 * i) for i = 1..N (default 3), then
 *                     wb_demo_greet("tracer")
 *   wb-demo calls [N] N times (default 1): wb_demo_mix(), wb_demo_rec() and
 *                     wb_demo_str() with the arguments documented below
 *   wb-demo loop N    wb_demo_loop(i, 2 * i, &wb_demo_rec_a) for i = 1..N,
 *                     as fast as possible (the benchmark's workload)
 *   wb-demo where     "NAME 0xVADDR 0xFILEOFFSET" of each global and function
 *                     below, the file offset as the kernel maps it (taken
 *                     from /proc/self/maps; the binary is static, not PIE)
 *   wb-demo sema      the value of wb_demo_sema[0] (a uprobe reference
 *                     counter: the kernel raises it while a probe that names
 *                     it is enabled)
 *   wb-demo pause     wait for a signal: a live process that maps the file
 *                     while probes are enabled and disabled, its memory read
 *                     through /proc/PID/mem
 *   wb-demo loop-sub N, wb-demo loop-endbr N
 *                     (x86_64) N calls of wb_demo_sub_entry(i, 2 * i) or
 *                     wb_demo_endbr_entry(i, 2 * i), functions whose first
 *                     instruction is "sub $0x18,%rsp" or endbr64 (benchmark)
 *   wb-demo emu       (x86_64) run each wb_demo_emu_* and wb_demo_step_*
 *                     function twice, with all registers set to known values
 *                     and the arithmetic flags all clear, then all set, and
 *                     print every register and EFLAGS as they are after the
 *                     function's first instruction; last, whether the
 *                     process has an XOL page ("[uprobes]" in its maps)
 *
 * x86_64 only, around the USDT-style site wb_demo_nop5_site (a 5-byte NOP
 * inside wb_demo_nop5(), see there):
 *   wb-demo nop5 N [T]    T threads (default 1) call wb_demo_nop5() N times
 *                         each, then print the site's first byte as this
 *                         process sees it and whether it has the uprobe
 *                         trampoline mapping; exit 1 if a call saw its
 *                         registers or red zone changed
 *   wb-demo nop5-spin T FILE
 *                         T threads call it until FILE exists
 *   wb-demo nop5-fork N   N calls, fork(), N calls in the child, N more in
 *                         the parent after the child exits
 *   wb-demo nop5-exec N   N calls, then exec "wb-demo nop5 N"
 *   wb-demo nop5-peek PID the five bytes at the site in process PID
 *                         (through /proc/PID/mem)
 *   wb-demo nop5-syscall  the uprobe system call (336) from a child, not
 *                         from a trampoline: the child must be killed by
 *                         SIGILL (exit 1 otherwise)
 *   wb-demo nop5-move N [PROFILE EVENT]
 *                         a second mapping of the site's page (run beside
 *                         the program's own site), moved with
 *                         mremap() (far, then near), forked, split, poked,
 *                         its trampoline pages moved and unmapped (both
 *                         refused: they are sealed), dropped, its text
 *                         dropped; N calls after each
 *                         step, one line each (with the hits of EVENT in
 *                         PROFILE during the step); WB_MOVE_STEPS, if set,
 *                         names the steps to take after the first, out of
 *                         far,near,fork,mprotect,poke,tramp-mremap,
 *                         tramp-dontneed,tramp-munmap,text-dontneed
 *
 * The probed functions are noipa: no inlining, no cloning, no constant
 * propagation into them, so they are called with exactly these values.
 */
#define _GNU_SOURCE
#include <linux/types.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define wb_probed __attribute__((noipa))

/*
 * A record with fields of each width at fixed offsets (the same on x86_64
 * and arm64):
 * +0 id, +4 port, +6 flags, +7 kind, +8 bits, +12 spare, +16 name, +24 next,
 * +32 big.
 */
struct wb_demo_rec {
	__s32 id;
	__u16 port;
	__u8 flags;
	__u8 kind;
	__u32 bits;
	__u32 spare;
	const char *name;
	struct wb_demo_rec *next;
	__s64 big;
};

struct wb_demo_rec wb_demo_rec_b = {
	.id = 42, .port = 443, .flags = 0x0f, .kind = 'b', .bits = 0xcafef00d,
	.spare = 0, .name = "second", .next = NULL, .big = 7,
};

struct wb_demo_rec wb_demo_rec_a = {
	.id = -7, .port = 8080, .flags = 0xa5, .kind = 'a', .bits = 0x12345678,
	.spare = 0xdeadbeef, .name = "wb-record", .next = &wb_demo_rec_b,
	.big = -1234567890123LL,
};

/* Plain globals for @ADDR and @+OFFSET fetches. */
__u64 wb_demo_counter = 0x1122334455667788ULL;
char wb_demo_banner[] = "wb-demo banner";

/*
 * A reference counter (semaphore) for PATH:OFFSET(REF_CTR_OFFSET) probes is
 * wb_demo_sema[0].  It must live in the file-backed writable mapping: the
 * non-zero second element keeps the array in .data, out of .bss.
 */
__u16 wb_demo_sema[2] = { 0, 0x5e3a };

/*
 * 1 MiB of read-only data that no mode of wb-demo reads: a probe fetching
 * the word in the middle finds its page not yet mapped in the probed
 * process (fault-around maps at most 64 KiB around other faults), so the
 * tracer has to fault it in.
 */
#define WB_DEMO_COLD_WORDS	262144
const __u32 wb_demo_cold[WB_DEMO_COLD_WORDS] = {
	[WB_DEMO_COLD_WORDS / 2] = 0xc01dc0de,
};

wb_probed long wb_demo_add(long a, long b)
{
	return a + b;
}

wb_probed int wb_demo_greet(const char *who)
{
	return printf("wb-demo: hello %s\n", who);
}

/*
 * Called as wb_demo_mix(-5, 200, -1234, 54321, -100000, 4000000000,
 * -5000000000, 0xfedcba9876543210).  On x86_64 a..f arrive in %di %si %dx
 * %cx %r8 %r9, g and h on the stack ($stack1, $stack2); on arm64 a..h arrive
 * in %x0..%x7.  Returns a + b + ... + g, that is -1000046718.
 */
wb_probed __s64 wb_demo_mix(__s8 a, __u8 b, __s16 c, __u16 d,
			    __s32 e, __u32 f, __s64 g, __u64 h)
{
	(void)h;
	return (__s64)a + b + c + d + e + f + g;
}

/*
 * Called as wb_demo_rec(&wb_demo_rec_a, &wb_demo_rec_a.big): the first
 * argument (%di, %x0 on arm64) points to the record, the second (%si, %x1)
 * to its last field.  Returns r->id + r->next->id (35).
 */
wb_probed int wb_demo_rec(const struct wb_demo_rec *r, const __s64 *tail)
{
	(void)tail;
	return r->id + (r->next ? r->next->id : 0);
}

/*
 * Called as wb_demo_str("hello uprobes", "", NULL): returns the length of
 * the first string (13).
 */
wb_probed size_t wb_demo_str(const char *s, const char *empty,
			     const char *null)
{
	(void)empty;
	(void)null;
	return strlen(s);
}

/* The benchmark's probed function: wb_demo_loop(i, 2 * i, &wb_demo_rec_a). */
wb_probed long wb_demo_loop(long i, long x, const struct wb_demo_rec *r)
{
	return i + x + r->id;
}

#ifdef __x86_64__
/*
 * Functions whose first instruction is one that a uprobe may emulate
 * instead of single-stepping: wb_demo_emu_* (ours emulates them) and
 * wb_demo_step_* (ours single-steps them too).  Each is entered from
 * wb_emu_run() with every register loaded from wb_emu_in[] and on a stack
 * of its own (in .bss: the same addresses in every run, so that %rsp and
 * %rbp compare between runs), executes that one instruction, then
 * wb_emu_capture stores every register and EFLAGS in wb_emu_out[] and
 * returns to wb_emu_run()'s caller.  A wrong %rip after the instruction
 * would run into the middle of the jmp and crash.
 *
 * wb_emu_in[] and wb_emu_out[] are indexed by the x86 register number
 * (0 %rax .. 15 %r15), then EFLAGS at 16; the input %rsp is unused.
 */
unsigned long wb_emu_in[17], wb_emu_out[17], wb_emu_saved_sp, wb_emu_target;

#define WB_EMU_FN(name, bytes)						\
	".globl " name "\n\t.type " name ", @function\n" name ":\n\t"	\
	".byte " bytes "\n\tjmp wb_emu_capture\n\t"			\
	".size " name ", . - " name "\n\t"

#define WB_EMU_LOAD(reg, i)	"mov wb_emu_in+" #i "(%rip), %" reg "\n\t"
#define WB_EMU_SAVE(reg, i)	"mov %" reg ", wb_emu_out+" #i "(%rip)\n\t"

asm(".pushsection .bss\n\t"
    ".balign 16\n"
    "wb_emu_stack:\n\t.skip 65536\n"
    "wb_emu_stack_top:\n\t"
    ".popsection\n\t"
    ".pushsection .text\n\t"
    /* void wb_emu_run(void (*fn)(void)) */
    ".globl wb_emu_run\n\t.type wb_emu_run, @function\n"
    "wb_emu_run:\n\t"
    "push %rbx\n\tpush %rbp\n\tpush %r12\n\t"
    "push %r13\n\tpush %r14\n\tpush %r15\n\t"
    "mov %rsp, wb_emu_saved_sp(%rip)\n\t"
    "mov %rdi, wb_emu_target(%rip)\n\t"
    /* room above for "add $N,%rsp" */
    "lea wb_emu_stack_top-4096(%rip), %rsp\n\t"
    "pushq wb_emu_in+128(%rip)\n\t"
    "popfq\n\t"
    WB_EMU_LOAD("rax", 0) WB_EMU_LOAD("rcx", 8) WB_EMU_LOAD("rdx", 16)
    WB_EMU_LOAD("rbx", 24) WB_EMU_LOAD("rbp", 40) WB_EMU_LOAD("rsi", 48)
    WB_EMU_LOAD("rdi", 56) WB_EMU_LOAD("r8", 64) WB_EMU_LOAD("r9", 72)
    WB_EMU_LOAD("r10", 80) WB_EMU_LOAD("r11", 88) WB_EMU_LOAD("r12", 96)
    WB_EMU_LOAD("r13", 104) WB_EMU_LOAD("r14", 112) WB_EMU_LOAD("r15", 120)
    "call *wb_emu_target(%rip)\n\t"
    "ud2\n\t"
    ".size wb_emu_run, . - wb_emu_run\n"
    "wb_emu_capture:\n\t"
    "pushfq\n\t"
    WB_EMU_SAVE("rax", 0) WB_EMU_SAVE("rcx", 8) WB_EMU_SAVE("rdx", 16)
    WB_EMU_SAVE("rbx", 24) WB_EMU_SAVE("rbp", 40) WB_EMU_SAVE("rsi", 48)
    WB_EMU_SAVE("rdi", 56) WB_EMU_SAVE("r8", 64) WB_EMU_SAVE("r9", 72)
    WB_EMU_SAVE("r10", 80) WB_EMU_SAVE("r11", 88) WB_EMU_SAVE("r12", 96)
    WB_EMU_SAVE("r13", 104) WB_EMU_SAVE("r14", 112) WB_EMU_SAVE("r15", 120)
    "popq wb_emu_out+128(%rip)\n\t"
    "mov %rsp, wb_emu_out+32(%rip)\n\t"
    "mov wb_emu_saved_sp(%rip), %rsp\n\t"
    "pop %r15\n\tpop %r14\n\tpop %r13\n\t"
    "pop %r12\n\tpop %rbp\n\tpop %rbx\n\t"
    "ret\n\t"
    /* endbr64, multi-byte NOPs */
    WB_EMU_FN("wb_demo_emu_endbr64", "0xf3, 0x0f, 0x1e, 0xfa")
    WB_EMU_FN("wb_demo_emu_nop3", "0x0f, 0x1f, 0x00")
    WB_EMU_FN("wb_demo_emu_nop4", "0x0f, 0x1f, 0x40, 0x00")
    WB_EMU_FN("wb_demo_emu_nop5", "0x0f, 0x1f, 0x44, 0x00, 0x00")
    WB_EMU_FN("wb_demo_emu_nop6", "0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00")
    WB_EMU_FN("wb_demo_emu_nop7", "0x0f, 0x1f, 0x80, 0, 0, 0, 0")
    WB_EMU_FN("wb_demo_emu_nop8", "0x0f, 0x1f, 0x84, 0x00, 0, 0, 0, 0")
    WB_EMU_FN("wb_demo_emu_nop9", "0x66, 0x0f, 0x1f, 0x84, 0x00, 0, 0, 0, 0")
    WB_EMU_FN("wb_demo_emu_nop_rip", "0x0f, 0x1f, 0x05, 0x10, 0, 0, 0")
    WB_EMU_FN("wb_demo_emu_nop_fs", "0x64, 0x0f, 0x1f, 0x40, 0x08")
    /* mov between registers, 64 and 32 bits, both opcodes */
    WB_EMU_FN("wb_demo_emu_mov_rsp_rbp", "0x48, 0x89, 0xe5")
    WB_EMU_FN("wb_demo_emu_mov_rsp_rbp_8b", "0x48, 0x8b, 0xec")
    WB_EMU_FN("wb_demo_emu_mov_rdi_rbx", "0x48, 0x89, 0xfb")
    WB_EMU_FN("wb_demo_emu_mov_r8_r15", "0x4d, 0x89, 0xc7")
    WB_EMU_FN("wb_demo_emu_mov_r14_rcx_8b", "0x49, 0x8b, 0xce")
    WB_EMU_FN("wb_demo_emu_mov_esi_eax", "0x89, 0xf0")
    WB_EMU_FN("wb_demo_emu_mov_r9d_r12d", "0x45, 0x89, 0xcc")
    WB_EMU_FN("wb_demo_emu_mov_edi_r10d_8b", "0x44, 0x8b, 0xd7")
    WB_EMU_FN("wb_demo_emu_mov_ebx_ebx", "0x89, 0xdb")
    /* add and sub of an immediate: %rsp, then the flag edge cases */
    WB_EMU_FN("wb_demo_emu_sub_rsp_i8", "0x48, 0x83, 0xec, 0x28")
    WB_EMU_FN("wb_demo_emu_sub_rsp_i32", "0x48, 0x81, 0xec, 0x00, 0x01, 0, 0")
    WB_EMU_FN("wb_demo_emu_add_rsp_i8", "0x48, 0x83, 0xc4, 0x28")
    WB_EMU_FN("wb_demo_emu_add_rsp_i32", "0x48, 0x81, 0xc4, 0x88, 0, 0, 0")
    WB_EMU_FN("wb_demo_emu_add_eax_1", "0x83, 0xc0, 0x01")
    WB_EMU_FN("wb_demo_emu_add_rcx_1", "0x48, 0x83, 0xc1, 0x01")
    WB_EMU_FN("wb_demo_emu_sub_rdx_1", "0x48, 0x83, 0xea, 0x01")
    WB_EMU_FN("wb_demo_emu_sub_rsi_1", "0x48, 0x83, 0xee, 0x01")
    WB_EMU_FN("wb_demo_emu_add_r11d_16", "0x41, 0x83, 0xc3, 0x10")
    WB_EMU_FN("wb_demo_emu_sub_r13d_16", "0x41, 0x83, 0xed, 0x10")
    WB_EMU_FN("wb_demo_emu_add_r12_i32", "0x49, 0x81, 0xc4, 0xff, 0xff, 0xff, 0x7f")
    WB_EMU_FN("wb_demo_emu_sub_rbx_min", "0x48, 0x81, 0xeb, 0, 0, 0, 0x80")
    WB_EMU_FN("wb_demo_emu_add_edi_m1", "0x83, 0xc7, 0xff")
    WB_EMU_FN("wb_demo_emu_sub_r9_m128", "0x49, 0x83, 0xe9, 0x80")
    WB_EMU_FN("wb_demo_emu_sub_ebp_i32", "0x81, 0xed, 0x78, 0x56, 0x34, 0x12")
    /* not emulated: single-stepped out of line */
    WB_EMU_FN("wb_demo_step_add_rsi_rdi", "0x48, 0x01, 0xf7")
    WB_EMU_FN("wb_demo_step_and_rsp", "0x48, 0x83, 0xe4, 0xf0")
    WB_EMU_FN("wb_demo_step_lea_r10", "0x4c, 0x8d, 0x54, 0x24, 0x08")
    WB_EMU_FN("wb_demo_step_mov16", "0x66, 0x89, 0xf0")
    WB_EMU_FN("wb_demo_step_cmp_rcx", "0x48, 0x83, 0xf9, 0x05")
    /*
     * The benchmark's functions: long f(long a, long b), a + b, entered
     * by "sub $0x18,%rsp" and by endbr64.
     */
    ".globl wb_demo_sub_entry\n\t.type wb_demo_sub_entry, @function\n"
    "wb_demo_sub_entry:\n\t"
    "sub $0x18, %rsp\n\t"
    "lea (%rdi,%rsi), %rax\n\t"
    "add $0x18, %rsp\n\t"
    "ret\n\t"
    ".size wb_demo_sub_entry, . - wb_demo_sub_entry\n\t"
    ".globl wb_demo_endbr_entry\n\t.type wb_demo_endbr_entry, @function\n"
    "wb_demo_endbr_entry:\n\t"
    ".byte 0xf3, 0x0f, 0x1e, 0xfa\n\t"
    "lea (%rdi,%rsi), %rax\n\t"
    "ret\n\t"
    ".size wb_demo_endbr_entry, . - wb_demo_endbr_entry\n\t"
    ".popsection");

void wb_emu_run(void (*fn)(void));
long wb_demo_sub_entry(long a, long b);
long wb_demo_endbr_entry(long a, long b);

#define WB_EMU_DECL(n)	void wb_demo_##n(void)
#define WB_EMU_CASE(n)	{ #n, wb_demo_##n }
WB_EMU_DECL(emu_endbr64); WB_EMU_DECL(emu_nop3); WB_EMU_DECL(emu_nop4);
WB_EMU_DECL(emu_nop5); WB_EMU_DECL(emu_nop6); WB_EMU_DECL(emu_nop7);
WB_EMU_DECL(emu_nop8); WB_EMU_DECL(emu_nop9); WB_EMU_DECL(emu_nop_rip);
WB_EMU_DECL(emu_nop_fs);
WB_EMU_DECL(emu_mov_rsp_rbp); WB_EMU_DECL(emu_mov_rsp_rbp_8b);
WB_EMU_DECL(emu_mov_rdi_rbx); WB_EMU_DECL(emu_mov_r8_r15);
WB_EMU_DECL(emu_mov_r14_rcx_8b); WB_EMU_DECL(emu_mov_esi_eax);
WB_EMU_DECL(emu_mov_r9d_r12d); WB_EMU_DECL(emu_mov_edi_r10d_8b);
WB_EMU_DECL(emu_mov_ebx_ebx);
WB_EMU_DECL(emu_sub_rsp_i8); WB_EMU_DECL(emu_sub_rsp_i32);
WB_EMU_DECL(emu_add_rsp_i8); WB_EMU_DECL(emu_add_rsp_i32);
WB_EMU_DECL(emu_add_eax_1); WB_EMU_DECL(emu_add_rcx_1);
WB_EMU_DECL(emu_sub_rdx_1); WB_EMU_DECL(emu_sub_rsi_1);
WB_EMU_DECL(emu_add_r11d_16); WB_EMU_DECL(emu_sub_r13d_16);
WB_EMU_DECL(emu_add_r12_i32); WB_EMU_DECL(emu_sub_rbx_min);
WB_EMU_DECL(emu_add_edi_m1); WB_EMU_DECL(emu_sub_r9_m128);
WB_EMU_DECL(emu_sub_ebp_i32);
WB_EMU_DECL(step_add_rsi_rdi); WB_EMU_DECL(step_and_rsp);
WB_EMU_DECL(step_lea_r10); WB_EMU_DECL(step_mov16);
WB_EMU_DECL(step_cmp_rcx);

static const struct {
	const char *name;
	void (*fn)(void);
} wb_emu_cases[] = {
	WB_EMU_CASE(emu_endbr64), WB_EMU_CASE(emu_nop3), WB_EMU_CASE(emu_nop4),
	WB_EMU_CASE(emu_nop5), WB_EMU_CASE(emu_nop6), WB_EMU_CASE(emu_nop7),
	WB_EMU_CASE(emu_nop8), WB_EMU_CASE(emu_nop9),
	WB_EMU_CASE(emu_nop_rip), WB_EMU_CASE(emu_nop_fs),
	WB_EMU_CASE(emu_mov_rsp_rbp), WB_EMU_CASE(emu_mov_rsp_rbp_8b),
	WB_EMU_CASE(emu_mov_rdi_rbx), WB_EMU_CASE(emu_mov_r8_r15),
	WB_EMU_CASE(emu_mov_r14_rcx_8b), WB_EMU_CASE(emu_mov_esi_eax),
	WB_EMU_CASE(emu_mov_r9d_r12d), WB_EMU_CASE(emu_mov_edi_r10d_8b),
	WB_EMU_CASE(emu_mov_ebx_ebx),
	WB_EMU_CASE(emu_sub_rsp_i8), WB_EMU_CASE(emu_sub_rsp_i32),
	WB_EMU_CASE(emu_add_rsp_i8), WB_EMU_CASE(emu_add_rsp_i32),
	WB_EMU_CASE(emu_add_eax_1), WB_EMU_CASE(emu_add_rcx_1),
	WB_EMU_CASE(emu_sub_rdx_1), WB_EMU_CASE(emu_sub_rsi_1),
	WB_EMU_CASE(emu_add_r11d_16), WB_EMU_CASE(emu_sub_r13d_16),
	WB_EMU_CASE(emu_add_r12_i32), WB_EMU_CASE(emu_sub_rbx_min),
	WB_EMU_CASE(emu_add_edi_m1), WB_EMU_CASE(emu_sub_r9_m128),
	WB_EMU_CASE(emu_sub_ebp_i32),
	WB_EMU_CASE(step_add_rsi_rdi), WB_EMU_CASE(step_and_rsp),
	WB_EMU_CASE(step_lea_r10), WB_EMU_CASE(step_mov16),
	WB_EMU_CASE(step_cmp_rcx),
};

/*
 * The input registers: values at the edges of the add/sub cases (carry
 * out of bit 31 and 63, signed overflow, zero results) and high halves
 * that a 32-bit result must clear.
 */
static const unsigned long wb_emu_regs[16] = {
	0xffffffff7fffffffUL, 0xffffffffffffffffUL, 0, 0x0123456789abcdefUL,
	0, 0x5555aaaa5555aaaaUL, 0x8000000000000000UL, 0xffUL,
	0x8888888888888888UL, 0x9999999999999999UL, 0xa0a0a0a0a0a0a0a0UL,
	0xdeadbeeffffffff0UL, 0x7fffffffffffffffUL, 0x10UL,
	0xeeeeeeeeeeeeeeeeUL, 0xf0f0f0f0f0f0f0f0UL,
};

static const char *const wb_emu_names[17] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "flags",
};

/* IF and the always-one bit 1; then CF PF AF ZF SF OF set as well. */
static const unsigned long wb_emu_flags_in[2] = { 0x202, 0x202 | 0x8d5 };

static int has_xol_page(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f) {
		perror("/proc/self/maps");
		exit(1);
	}
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[uprobes]"))
			found = 1;
	fclose(f);
	return found;
}

static void emu(void)
{
	unsigned int c, f, r;

	for (c = 0; c < sizeof(wb_emu_cases) / sizeof(wb_emu_cases[0]); c++) {
		for (f = 0; f < 2; f++) {
			memcpy(wb_emu_in, wb_emu_regs, sizeof(wb_emu_regs));
			wb_emu_in[16] = wb_emu_flags_in[f];
			memset(wb_emu_out, 0, sizeof(wb_emu_out));
			wb_emu_run(wb_emu_cases[c].fn);
			printf("%s flags_in=%#lx", wb_emu_cases[c].name,
			       wb_emu_flags_in[f]);
			for (r = 0; r < 17; r++)
				printf(" %s=%#lx", wb_emu_names[r], wb_emu_out[r]);
			printf("\n");
		}
	}
	printf("xol: %s\n", has_xol_page() ? "mapped" : "none");
}

static void loop_entry(long (*fn)(long, long), const char *name, long n)
{
	long i, sum = 0;

	for (i = 1; i <= n; i++)
		sum += fn(i, 2 * i);
	printf("wb-demo: %ld calls of %s, sum %ld\n", n, name, sum);
}
#endif

#ifdef __x86_64__
/*
 * A USDT-style probe site: the 5-byte NOP "nopl 0x0(%rax,%rax,1)", with the
 * global symbol wb_demo_nop5_site (typed as a function so that the
 * workbench's offsets list has it).  At the site %di holds i, %ax i + 1,
 * %cx i + 2 and %r11 i + 3, and the red zone word just below the stack
 * pointer holds i: whatever the kernel does at the site must leave all of
 * them as they were.  Returns 0 if they were, 1 if not.
 */
wb_probed long wb_demo_nop5(long i)
{
	register long r11 asm("r11") = i + 3;
	long ax = i + 1, cx = i + 2, rz;

	asm volatile("movq %%rdi, -8(%%rsp)\n\t"
		     ".globl wb_demo_nop5_site\n\t"
		     ".type wb_demo_nop5_site, @function\n"
		     "wb_demo_nop5_site:\n\t"
		     ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"
		     ".size wb_demo_nop5_site, 5\n\t"
		     "movq -8(%%rsp), %[rz]"
		     : "+a" (ax), "+c" (cx), "+r" (r11), [rz] "=r" (rz)
		     : "D" (i)
		     : "memory", "cc");
	return !(ax == i + 1 && cx == i + 2 && r11 == i + 3 && rz == i);
}

extern const unsigned char wb_demo_nop5_site[];

struct nop5_run {
	long n;			/* calls, or 0: until stop exists */
	const char *stop;
	long calls;
	long bad;
};

static void *nop5_thread(void *arg)
{
	struct nop5_run *r = arg;
	struct stat st;
	long i;

	for (i = 1; r->n ? i <= r->n : 1; i++) {
		r->bad += wb_demo_nop5(i);
		r->calls++;
		if (!r->n && !(i & 1023) && !stat(r->stop, &st))
			break;
	}
	return NULL;
}

/* T threads of nop5_thread(); returns the number of bad calls. */
static long nop5_threads(int t, long n, const char *stop)
{
	pthread_t tid[64];
	struct nop5_run run[64];
	long calls = 0, bad = 0;
	int i;

	if (t < 1 || t > 64)
		t = 1;
	for (i = 0; i < t; i++) {
		run[i] = (struct nop5_run){ .n = n, .stop = stop };
		if (pthread_create(&tid[i], NULL, nop5_thread, &run[i])) {
			perror("pthread_create");
			exit(1);
		}
	}
	for (i = 0; i < t; i++) {
		pthread_join(tid[i], NULL);
		calls += run[i].calls;
		bad += run[i].bad;
	}
	printf("wb-demo: nop5 %ld calls, %ld bad\n", calls, bad);
	return bad;
}

static int nop5_has_tramp(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[uprobes-nop5]"))
			found = 1;
	fclose(f);
	return found;
}

static long nop5_calls(long n)
{
	long i, bad = 0;

	for (i = 1; i <= n; i++)
		bad += wb_demo_nop5(i);
	return bad;
}

/*
 * "nop5-move": the site in a second, private mapping of this program's
 * file, moved and changed under it.  Each step calls the copy of
 * wb_demo_nop5() N times (the function uses no absolute address) and
 * prints one line; with PROFILE and EVENT the line also gives the hits
 * EVENT's row of PROFILE (uprobe_profile) gained during the step.
 */
struct nop5_copy {
	char *base;		/* the mapping */
	size_t len;
	long (*fn)(long);	/* wb_demo_nop5() in it */
	const char *profile, *event;
	const char *steps;	/* the steps to take, or NULL: all */
};

/* Is step @name (after "copy") to be taken? */
static int nop5_do(const struct nop5_copy *c, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	if (!c->steps)
		return 1;
	for (p = c->steps; (p = strstr(p, name)); p += len) {
		if ((p == c->steps || p[-1] == ',') &&
		    (p[len] == ',' || !p[len]))
			return 1;
	}
	return 0;
}

static long nop5_profile_hits(const struct nop5_copy *c)
{
	char line[512], name[256];
	unsigned long hits;
	FILE *f;

	if (!c->profile)
		return 0;
	f = fopen(c->profile, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %255s %lu", name, &hits) == 2 &&
		    !strcmp(name, c->event)) {
			fclose(f);
			return hits;
		}
	}
	fclose(f);
	return -1;
}

static long nop5_copy_calls(const struct nop5_copy *c, long n)
{
	long i, bad = 0;

	for (i = 1; i <= n; i++)
		bad += c->fn(i);
	return bad;
}

/*
 * N more calls, then the step's line: @calls made in all since the hits
 * were @before.  Returns the bad calls so far.
 */
static long nop5_step_from(const struct nop5_copy *c, const char *what,
			   long n, long calls, long bad, long before)
{
	bad += nop5_copy_calls(c, n);
	if (c->profile)
		printf("wb-demo: move %s: %ld calls, %ld bad, %ld hits\n",
		       what, calls, bad, nop5_profile_hits(c) - before);
	else
		printf("wb-demo: move %s: %ld calls, %ld bad\n", what, calls,
		       bad);
	fflush(stdout);
	return bad;
}

static long nop5_step(const struct nop5_copy *c, const char *what, long n,
		      long bad)
{
	return nop5_step_from(c, what, n, n, bad, nop5_profile_hits(c));
}

/* Point @c at its mapping's new place. */
static void nop5_copy_moved(struct nop5_copy *c, void *to)
{
	char *fn = (char *)c->fn;

	c->fn = (long (*)(long))(void *)((char *)to + (fn - c->base));
	c->base = to;
}

/* Each [uprobes-nop5] mapping of this process: @op on it, 0 if none. */
static int nop5_each_tramp(int (*op)(void *addr, size_t len))
{
	unsigned long lo, hi;
	char line[512];
	int err = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[uprobes-nop5]") ||
		    sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		if (op((void *)lo, hi - lo))
			err = -1;
	}
	fclose(f);
	return err;
}

static int nop5_tramp_mremap(void *addr, size_t len)
{
	void *to = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);

	if (to == MAP_FAILED)
		return -1;
	/* refused: the sites jump to where the page is */
	if (mremap(addr, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to) !=
	    MAP_FAILED)
		return -1;
	return munmap(to, len);
}

/* dropped, or refused (a sealed mapping that is not file-backed) */
static int nop5_tramp_dontneed(void *addr, size_t len)
{
	if (madvise(addr, len, MADV_DONTNEED) && errno != EPERM)
		return -1;
	return 0;
}

/* refused: the page is sealed for the life of the address space */
static int nop5_tramp_munmap(void *addr, size_t len)
{
	if (!munmap(addr, len) || errno != EPERM)
		return -1;
	if (!mprotect(addr, len, PROT_NONE) || errno != EPERM)
		return -1;
	return 0;
}

static int nop5_move(int argc, char **argv)
{
	unsigned long fn = (unsigned long)wb_demo_nop5, lo, hi, pgoff;
	unsigned long page = fn & ~4095UL, far;
	long n = atol(argv[2]), bad = 0, before;
	struct nop5_copy c = { .len = 2 * 4096 };
	char line[512], perm[8];
	unsigned char byte;
	off_t off = -1;
	int status, fd;
	void *to;
	pid_t pid;
	FILE *f;

	if (argc > 4) {
		c.profile = argv[3];
		c.event = argv[4];
	}
	c.steps = getenv("WB_MOVE_STEPS");
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perm, &pgoff) ==
		    4 && fn >= lo && fn < hi)
			off = (off_t)(page - lo + pgoff);
	}
	fclose(f);
	fd = open("/proc/self/exe", O_RDONLY);
	if (off < 0 || fd < 0)
		return 1;
	/* a second mapping of the page(s) of wb_demo_nop5(): a new site */
	c.base = mmap(NULL, c.len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);
	close(fd);
	if (c.base == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	c.fn = (long (*)(long))(void *)(c.base + (fn - page));
	/* the program's own site and the copy's, side by side */
	before = nop5_profile_hits(&c);
	bad = nop5_calls(n);
	bad = nop5_step_from(&c, "copy", n, 2 * n, bad, before);

	if (!nop5_do(&c, "far"))
		goto at_near;
	/* far away: out of rel32 reach of where the copy was */
	far = ((unsigned long)c.base - (64UL << 30)) & ~0xfffffUL;
	to = mmap((void *)far, c.len, PROT_NONE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (to == MAP_FAILED ||
	    mremap(c.base, c.len, c.len, MREMAP_MAYMOVE | MREMAP_FIXED, to) !=
	    to) {
		perror("mremap far");
		return 1;
	}
	nop5_copy_moved(&c, to);
	bad = nop5_step(&c, "mremap far", n, bad);
	/* the breakpoint, or a jump again if the kernel optimizes it */
	printf("wb-demo: mremap far: site %02x\n",
	       (unsigned char)c.base[(unsigned long)wb_demo_nop5_site - page]);

at_near:
	if (!nop5_do(&c, "near"))
		goto at_fork;
	/* and back near the rest of the mappings */
	to = mmap(NULL, c.len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (to == MAP_FAILED ||
	    mremap(c.base, c.len, c.len, MREMAP_MAYMOVE | MREMAP_FIXED, to) !=
	    to) {
		perror("mremap near");
		return 1;
	}
	nop5_copy_moved(&c, to);
	bad = nop5_step(&c, "mremap near", n, bad);

at_fork:
	if (!nop5_do(&c, "fork"))
		goto at_mprotect;
	/* fork after the moves: the child runs the copy too */
	before = nop5_profile_hits(&c);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid)
		exit(nop5_copy_calls(&c, n) != 0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		bad++;
	bad = nop5_step_from(&c, "fork", n, 2 * n, bad, before);

at_mprotect:
	if (!nop5_do(&c, "mprotect"))
		goto at_poke;
	/* the site's page made read-only and executable again: a split */
	if (mprotect(c.base, 4096, PROT_READ) ||
	    mprotect(c.base, 4096, PROT_READ | PROT_EXEC)) {
		perror("mprotect");
		return 1;
	}
	bad = nop5_step(&c, "mprotect", n, bad);

at_poke:
	if (!nop5_do(&c, "poke"))
		goto at_tramp;
	/* a debugger-style poke into the site's page (the same byte back) */
	fd = open("/proc/self/mem", O_RDWR);
	if (fd < 0 || pread(fd, &byte, 1, (off_t)(unsigned long)c.base) != 1 ||
	    pwrite(fd, &byte, 1, (off_t)(unsigned long)c.base) != 1) {
		perror("/proc/self/mem");
		return 1;
	}
	close(fd);
	bad = nop5_step(&c, "poke", n, bad);

at_tramp:
	/* the trampoline pages (if any): moved (refused), dropped, unmapped (refused) */
	if (nop5_do(&c, "tramp-mremap")) {
		if (nop5_each_tramp(nop5_tramp_mremap)) {
			fprintf(stderr, "wb-demo: a trampoline page moved\n");
			return 1;
		}
		bad = nop5_step(&c, "tramp mremap", n, bad);
	}
	if (nop5_do(&c, "tramp-dontneed")) {
		if (nop5_each_tramp(nop5_tramp_dontneed)) {
			perror("madvise");
			return 1;
		}
		bad = nop5_step(&c, "tramp dontneed", n, bad);
	}
	if (nop5_do(&c, "tramp-munmap")) {
		if (nop5_each_tramp(nop5_tramp_munmap)) {
			fprintf(stderr, "wb-demo: a trampoline page unmapped or unprotected\n");
			return 1;
		}
		bad = nop5_step(&c, "tramp munmap", n, bad);
	}
	if (!nop5_do(&c, "text-dontneed"))
		goto at_out;

	/*
	 * The copy's text dropped: the file's page comes back, without the
	 * probe (uprobes places breakpoints at mmap time only).
	 */
	if (madvise(c.base, c.len, MADV_DONTNEED)) {
		perror("madvise");
		return 1;
	}
	bad = nop5_step(&c, "text dontneed", n, bad);
	/* the file's bytes: no breakpoint, no jump */
	printf("wb-demo: text dontneed: site %02x\n",
	       (unsigned char)c.base[(unsigned long)wb_demo_nop5_site - page]);
at_out:
	printf("wb-demo: nop5-move %ld bad\n", bad);
	return bad != 0;
}

static int nop5(int argc, char **argv)
{
	const char *mode = argv[1];
	long n = argc > 2 ? atol(argv[2]) : 1000, bad = 0;
	unsigned char buf[5];
	char path[64];
	int status, fd;
	pid_t pid;

	if (!strcmp(mode, "nop5")) {
		bad = nop5_threads(argc > 3 ? atoi(argv[3]) : 1, n, NULL);
		printf("wb-demo: site %02x, trampoline %s\n",
		       wb_demo_nop5_site[0], nop5_has_tramp() ? "yes" : "no");
		return bad != 0;
	}
	if (!strcmp(mode, "nop5-spin")) {
		if (argc < 4)
			return 2;
		return nop5_threads(atoi(argv[2]), 0, argv[3]) != 0;
	}
	if (!strcmp(mode, "nop5-fork")) {
		bad = nop5_calls(n);
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return 1;
		if (!pid) {
			bad = nop5_calls(n);
			printf("wb-demo: child: %ld bad, site %02x, trampoline %s\n",
			       bad, wb_demo_nop5_site[0],
			       nop5_has_tramp() ? "yes" : "no");
			exit(bad != 0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad++;
		bad += nop5_calls(n);
		printf("wb-demo: parent: %ld bad\n", bad);
		return bad != 0;
	}
	if (!strcmp(mode, "nop5-exec")) {
		if (nop5_calls(n))
			return 1;
		fflush(stdout);
		execl("/proc/self/exe", "wb-demo", "nop5", argv[2], (char *)NULL);
		perror("exec");
		return 1;
	}
	if (!strcmp(mode, "nop5-peek")) {
		if (argc < 3)
			return 2;
		snprintf(path, sizeof(path), "/proc/%s/mem", argv[2]);
		fd = open(path, O_RDONLY);
		if (fd < 0 || pread(fd, buf, sizeof(buf),
				    (off_t)(unsigned long)wb_demo_nop5_site) != 5) {
			perror(path);
			return 1;
		}
		close(fd);
		printf("%02x %02x %02x %02x %02x\n",
		       buf[0], buf[1], buf[2], buf[3], buf[4]);
		return 0;
	}
	if (!strcmp(mode, "nop5-move"))
		return argc > 2 ? nop5_move(argc, argv) : 2;
	if (!strcmp(mode, "nop5-syscall")) {
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return 1;
		if (!pid) {
			long ret = syscall(336);

			printf("wb-demo: uprobe syscall: %ld %s\n", ret,
			       ret < 0 ? strerror(errno) : "");
			exit(1);
		}
		if (waitpid(pid, &status, 0) != pid)
			return 1;
		printf("wb-demo: uprobe syscall: %s\n",
		       WIFSIGNALED(status) && WTERMSIG(status) == SIGILL ?
		       "SIGILL" : "not refused");
		return !(WIFSIGNALED(status) && WTERMSIG(status) == SIGILL);
	}
	return -1;
}
#else
static int nop5(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return -1;
}
#endif

static void calls(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		wb_demo_mix(-5, 200, -1234, 54321, -100000, 4000000000U,
			    -5000000000LL, 0xfedcba9876543210ULL);
		wb_demo_rec(&wb_demo_rec_a, &wb_demo_rec_a.big);
		wb_demo_str("hello uprobes", "", NULL);
	}
	printf("wb-demo: %d x (mix, rec, str)\n", n);
}

static void loop(long n)
{
	long i, sum = 0;

	for (i = 1; i <= n; i++)
		sum += wb_demo_loop(i, 2 * i, &wb_demo_rec_a);
	printf("wb-demo: %ld calls of wb_demo_loop, sum %ld\n", n, sum);
}

/* Print the file offset at which the kernel maps @addr of this program. */
static void where_one(const char *name, const void *addr)
{
	unsigned long a = (unsigned long)addr, lo, hi, pgoff;
	char line[512], perm[8];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f) {
		perror("/proc/self/maps");
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perm, &pgoff) != 4)
			continue;
		if (a >= lo && a < hi) {
			printf("%s 0x%lx 0x%lx\n", name, a, a - lo + pgoff);
			fclose(f);
			return;
		}
	}
	fclose(f);
	fprintf(stderr, "wb-demo: %s (%#lx) is not mapped\n", name, a);
	exit(1);
}

static void where(void)
{
	where_one("wb_demo_add", (const void *)wb_demo_add);
	where_one("wb_demo_mix", (const void *)wb_demo_mix);
	where_one("wb_demo_rec", (const void *)wb_demo_rec);
	where_one("wb_demo_str", (const void *)wb_demo_str);
	where_one("wb_demo_loop", (const void *)wb_demo_loop);
#ifdef __x86_64__
	where_one("wb_demo_nop5_site", wb_demo_nop5_site);
#endif
	where_one("wb_demo_rec_a", &wb_demo_rec_a);
	where_one("wb_demo_counter", &wb_demo_counter);
	where_one("wb_demo_banner", wb_demo_banner);
	where_one("wb_demo_sema", wb_demo_sema);
	where_one("wb_demo_cold_word", &wb_demo_cold[WB_DEMO_COLD_WORDS / 2]);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "3";
	long sum = 0;
	int n, i;

	if (!strncmp(mode, "nop5", 4)) {
		n = nop5(argc, argv);
		if (n >= 0)
			return n;
		fprintf(stderr, "wb-demo: %s: not on this machine\n", mode);
		return 2;
	}
	if (!strcmp(mode, "calls")) {
		calls(argc > 2 ? atoi(argv[2]) : 1);
		return 0;
	}
	if (!strcmp(mode, "loop")) {
		loop(argc > 2 ? atol(argv[2]) : 1000);
		return 0;
	}
	if (!strcmp(mode, "where")) {
		where();
		return 0;
	}
	if (!strcmp(mode, "getpgid")) {
		/*
		 * A known number of one system call, for kernel-side probes.
		 * getpgid, not a system call without arguments: the x86-64
		 * entry of those shares its address with the ia32 one, and
		 * available_filter_functions names only one of them.
		 */
		n = argc > 2 ? atoi(argv[2]) : 1000;
		for (i = 0; i < n; i++)
			syscall(SYS_getpgid, 0);
		printf("wb-demo: %d getpgid calls\n", n);
		return 0;
	}
#ifdef __x86_64__
	if (!strcmp(mode, "emu")) {
		emu();
		return 0;
	}
	if (!strcmp(mode, "loop-sub")) {
		loop_entry(wb_demo_sub_entry, "wb_demo_sub_entry",
			   argc > 2 ? atol(argv[2]) : 1000);
		return 0;
	}
	if (!strcmp(mode, "loop-endbr")) {
		loop_entry(wb_demo_endbr_entry, "wb_demo_endbr_entry",
			   argc > 2 ? atol(argv[2]) : 1000);
		return 0;
	}
#endif
	if (!strcmp(mode, "sema")) {
		printf("%u\n", (unsigned int)wb_demo_sema[0]);
		return 0;
	}
	if (!strcmp(mode, "pause")) {
		pause();
		return 0;
	}

	n = atoi(mode);
	for (i = 1; i <= n; i++)
		sum += wb_demo_add(i, 10L * i);
	wb_demo_greet("tracer");
	printf("wb-demo: %d calls, sum %ld\n", n, sum);
	return 0;
}
