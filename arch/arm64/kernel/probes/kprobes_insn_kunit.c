// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the arm64 kprobes instruction layer.
 *
 *  - decoding: every simulated kind gets its simulator, a sample of
 *    ordinary instructions is stepped, and what may not be stepped
 *    (exclusives, exception generation, system register writes, ...) is
 *    refused; an instruction inside an LL/SC sequence is refused too;
 *  - simulation: each simulated instruction is run twice, by the CPU in
 *    a small assembly function below and by its simulator on a pt_regs
 *    with the pc at that same instruction; the registers and the pc must
 *    agree, exactly, and nothing else may change;
 *  - emulation: each emulated data-processing form (both widths, the
 *    flag-setting and sp-reading ones, the reserved neighbours refused)
 *    is run by the CPU and by its emulator from the same registers and
 *    flags, over a grid of operands; the result, the flags and the pc
 *    must agree and nothing else may change;
 *  - hits: kprobes on every instruction of an assembly function that
 *    holds each simulated kind and a few stepped ones; pre- and
 *    post-handlers run once per executed instruction and see the pc the
 *    CPU would have, the function's result does not change, a probe hit
 *    from a handler counts as missed yet still runs its instruction, and
 *    a return probe sees the return value.
 *
 * The assembly functions are called through kpt_call(), which jumps to
 * them with "br x16", so that their BTI C landing pads accept the branch
 * and no C indirect call (with its CFI checks) is involved.  Targets of
 * register branches start with BTI JC.  The functions use only x0-x17.
 */
#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <asm/debug-monitors.h>
#include <asm/insn.h>

#include "decode-insn.h"
#include "emulate-insn.h"
#include "simulate-insn.h"

/* --- the instructions, run natively --- */

#define KPT_LABEL(name)							\
	"	.globl	" #name "\n"					\
	#name ":\n"

/* A function entry: 16-byte aligned, BTI C (a NOP without BTI). */
#define KPT_FUNC(name)							\
	"	.balign	16\n"						\
	"	.type	" #name ", %function\n"				\
	KPT_LABEL(name)							\
	"	hint	34\n"

/*
 * A conditional branch on x9 (set from the first argument): returns the
 * address it went on at, @name_insn + 4 when not taken, + 12 when taken.
 */
#define KPT_TESTED(name, insn)						\
	KPT_FUNC(name)							\
	"	mov	x9, x0\n"					\
	KPT_LABEL(name##_insn)						\
	"	" insn ", 1f\n"						\
	"	adr	x0, .\n"					\
	"	ret\n"							\
	"1:	adr	x0, .\n"					\
	"	ret\n"

/*
 * The emulated instructions, each run natively by a stub of its own:
 * void stub(u64 io[8]) loads x0-x3 from io[0-3] and NZCV from io[4],
 * runs the instruction and stores x0 and NZCV in io[5] and io[6]; io[7]
 * gets sp, which the sp-reading forms read.  Everything an instruction
 * reads is in x0-x3, sp and NZCV.
 *
 * "kpt_alu EMULATOR, INSTRUCTION" also appends to kpt_emus[] (section
 * .rodata.kpt_emus) the entry { the emulator arm64_emu_pick() must give,
 * the instruction's text, the stub, the instruction in the stub }.
 */
struct kpt_emu {
	probes_handler_t *emu;
	const char *what;
	const u32 *fn, *insn;
};

/* The table's bounds, defined by the assembly below. */
#define KPT_EMU_TABLE(...)	extern const struct kpt_emu __VA_ARGS__
KPT_EMU_TABLE(kpt_emus[], kpt_emus_end[]);

asm("	.macro	kpt_alu emu:req, insn:vararg\n"
"	.pushsection .rodata.str1.1, \"aMS\", @progbits, 1\n"
"8:	.asciz	\"\\insn\"\n"
"	.popsection\n"
"	.pushsection .rodata.kpt_emus, \"a\"\n"
"	.quad	\\emu, 8b, 9f, 7f\n"
"	.popsection\n"
"	.balign	16\n"
"9:	hint	34\n"
"	mov	x17, x0\n"
"	mov	x5, sp\n"
"	str	x5, [x17, #56]\n"
"	ldr	x4, [x17, #32]\n"
"	msr	nzcv, x4\n"
"	ldp	x0, x1, [x17]\n"
"	ldp	x2, x3, [x17, #16]\n"
"7:	\\insn\n"
"	mrs	x4, nzcv\n"
"	stp	x0, x4, [x17, #40]\n"
"	ret\n"
"	.endm\n"
"	.pushsection .rodata.kpt_emus, \"a\"\n"
"	.balign	8\n"
"	.globl	kpt_emus\n"
"kpt_emus:\n"
"	.popsection\n"
"	.pushsection .text, \"ax\"\n"
"	kpt_alu	arm64_emu_add_sub_imm, add x0, x1, #0x123\n"
"	kpt_alu	arm64_emu_add_sub_imm, adds x0, x1, #0xfff, lsl #12\n"
"	kpt_alu	arm64_emu_add_sub_imm, subs x0, x1, #1\n"
"	kpt_alu	arm64_emu_add_sub_imm, cmp x1, #5\n"
"	kpt_alu	arm64_emu_add_sub_imm, sub w0, w1, #0x7ff\n"
"	kpt_alu	arm64_emu_add_sub_imm, adds w0, w1, #1\n"
"	kpt_alu	arm64_emu_add_sub_imm, cmn w1, #3\n"
"	kpt_alu	arm64_emu_add_sub_imm, add x0, sp, #32\n"
"	kpt_alu	arm64_emu_logical_imm, and x0, x1, #0xff00ff00ff00ff00\n"
"	kpt_alu	arm64_emu_logical_imm, orr w0, w1, #0x3c\n"
"	kpt_alu	arm64_emu_logical_imm, eor x0, x1, #0x5555555555555555\n"
"	kpt_alu	arm64_emu_logical_imm, ands x0, x1, #0x8000000000000001\n"
"	kpt_alu	arm64_emu_logical_imm, tst w1, #0x80000000\n"
"	kpt_alu	arm64_emu_logical_imm, ands w0, w1, #0xfffe\n"
"	kpt_alu	arm64_emu_move_wide, movz x0, #0x1234, lsl #32\n"
"	kpt_alu	arm64_emu_move_wide, movn w0, #0x55\n"
"	kpt_alu	arm64_emu_move_wide, movn x0, #0x55, lsl #48\n"
"	kpt_alu	arm64_emu_move_wide, movk x0, #0xbeef, lsl #16\n"
"	kpt_alu	arm64_emu_move_wide, movk w0, #0xcafe, lsl #16\n"
"	kpt_alu	arm64_emu_bitfield, lsl x0, x1, #13\n"
"	kpt_alu	arm64_emu_bitfield, lsr w0, w1, #7\n"
"	kpt_alu	arm64_emu_bitfield, asr x0, x1, #63\n"
"	kpt_alu	arm64_emu_bitfield, asr w0, w1, #3\n"
"	kpt_alu	arm64_emu_bitfield, ubfx x0, x1, #8, #12\n"
"	kpt_alu	arm64_emu_bitfield, sbfx x0, x1, #4, #20\n"
"	kpt_alu	arm64_emu_bitfield, sxtw x0, w1\n"
"	kpt_alu	arm64_emu_bitfield, sxtb w0, w1\n"
"	kpt_alu	arm64_emu_bitfield, uxth w0, w1\n"
"	kpt_alu	arm64_emu_bitfield, bfi x0, x1, #16, #8\n"
"	kpt_alu	arm64_emu_bitfield, bfxil w0, w1, #4, #9\n"
"	kpt_alu	arm64_emu_bitfield, sbfiz x0, x1, #3, #7\n"
"	kpt_alu	arm64_emu_extract, extr x0, x1, x2, #17\n"
"	kpt_alu	arm64_emu_extract, ror w0, w1, #5\n"
"	kpt_alu	arm64_emu_extract, extr w0, w1, w2, #31\n"
"	kpt_alu	arm64_emu_logical_reg, mov x0, x1\n"
"	kpt_alu	arm64_emu_logical_reg, and x0, x1, x2, lsl #3\n"
"	kpt_alu	arm64_emu_logical_reg, bic w0, w1, w2, ror #7\n"
"	kpt_alu	arm64_emu_logical_reg, orn x0, x1, x2, asr #60\n"
"	kpt_alu	arm64_emu_logical_reg, eor w0, w1, w2, lsr #31\n"
"	kpt_alu	arm64_emu_logical_reg, eon x0, x1, x2\n"
"	kpt_alu	arm64_emu_logical_reg, ands x0, x1, x2\n"
"	kpt_alu	arm64_emu_logical_reg, bics w0, w1, w2, lsl #4\n"
"	kpt_alu	arm64_emu_logical_reg, tst x1, x2\n"
"	kpt_alu	arm64_emu_logical_reg, mvn w0, w1\n"
"	kpt_alu	arm64_emu_add_sub_reg, add x0, x1, x2, lsl #2\n"
"	kpt_alu	arm64_emu_add_sub_reg, sub w0, w1, w2, asr #5\n"
"	kpt_alu	arm64_emu_add_sub_reg, adds x0, x1, x2\n"
"	kpt_alu	arm64_emu_add_sub_reg, subs w0, w1, w2\n"
"	kpt_alu	arm64_emu_add_sub_reg, cmp x1, x2, lsr #1\n"
"	kpt_alu	arm64_emu_add_sub_reg, neg x0, x2\n"
"	kpt_alu	arm64_emu_add_sub_reg, negs w0, w2\n"
"	kpt_alu	arm64_emu_add_sub_reg, add x0, x1, w2, uxtb #2\n"
"	kpt_alu	arm64_emu_add_sub_reg, sub x0, x1, w2, sxth\n"
"	kpt_alu	arm64_emu_add_sub_reg, adds w0, w1, w2, sxtb #1\n"
"	kpt_alu	arm64_emu_add_sub_reg, add x0, sp, x2, lsl #3\n"
"	kpt_alu	arm64_emu_add_sub_reg, cmp x1, w2, sxtw #4\n"
"	kpt_alu	arm64_emu_add_sub_reg, subs x0, x1, x2, uxtx #1\n"
"	kpt_alu	arm64_emu_carry, adc x0, x1, x2\n"
"	kpt_alu	arm64_emu_carry, adcs w0, w1, w2\n"
"	kpt_alu	arm64_emu_carry, sbc x0, x1, x2\n"
"	kpt_alu	arm64_emu_carry, sbcs w0, w1, w2\n"
"	kpt_alu	arm64_emu_carry, ngcs x0, x2\n"
"	kpt_alu	arm64_emu_cond_select, csel x0, x1, x2, eq\n"
"	kpt_alu	arm64_emu_cond_select, csinc w0, w1, w2, ne\n"
"	kpt_alu	arm64_emu_cond_select, csinv x0, x1, x2, lt\n"
"	kpt_alu	arm64_emu_cond_select, csneg w0, w1, w2, hi\n"
"	kpt_alu	arm64_emu_cond_select, cset x0, ge\n"
"	kpt_alu	arm64_emu_cond_select, cneg x0, x1, mi\n"
"	kpt_alu	arm64_emu_cond_select, csel x0, x1, x2, vs\n"
"	kpt_alu	arm64_emu_cond_select, csel w0, w1, w2, ls\n"
"	kpt_alu	arm64_emu_cond_compare, ccmp x1, x2, #4, eq\n"
"	kpt_alu	arm64_emu_cond_compare, ccmn w1, w2, #0xf, lt\n"
"	kpt_alu	arm64_emu_cond_compare, ccmp x1, #17, #2, ne\n"
"	kpt_alu	arm64_emu_cond_compare, ccmn x1, #3, #8, hi\n"
"	kpt_alu	arm64_emu_cond_compare, ccmp w1, w2, #0, gt\n"
"	kpt_alu	arm64_emu_dp2, udiv x0, x1, x2\n"
"	kpt_alu	arm64_emu_dp2, sdiv x0, x1, x2\n"
"	kpt_alu	arm64_emu_dp2, udiv w0, w1, w2\n"
"	kpt_alu	arm64_emu_dp2, sdiv w0, w1, w2\n"
"	kpt_alu	arm64_emu_dp2, lsl x0, x1, x2\n"
"	kpt_alu	arm64_emu_dp2, lsr w0, w1, w2\n"
"	kpt_alu	arm64_emu_dp2, asr x0, x1, x2\n"
"	kpt_alu	arm64_emu_dp2, ror w0, w1, w2\n"
"	kpt_alu	arm64_emu_dp2, asr w0, w1, w2\n"
"	kpt_alu	arm64_emu_dp1, rbit x0, x1\n"
"	kpt_alu	arm64_emu_dp1, rbit w0, w1\n"
"	kpt_alu	arm64_emu_dp1, rev16 x0, x1\n"
"	kpt_alu	arm64_emu_dp1, rev16 w0, w1\n"
"	kpt_alu	arm64_emu_dp1, rev32 x0, x1\n"
"	kpt_alu	arm64_emu_dp1, rev w0, w1\n"
"	kpt_alu	arm64_emu_dp1, rev x0, x1\n"
"	kpt_alu	arm64_emu_dp1, clz x0, x1\n"
"	kpt_alu	arm64_emu_dp1, clz w0, w1\n"
"	kpt_alu	arm64_emu_dp1, cls x0, x1\n"
"	kpt_alu	arm64_emu_dp1, cls w0, w1\n"
"	kpt_alu	arm64_emu_dp3, madd x0, x1, x2, x3\n"
"	kpt_alu	arm64_emu_dp3, msub w0, w1, w2, w3\n"
"	kpt_alu	arm64_emu_dp3, mul x0, x1, x2\n"
"	kpt_alu	arm64_emu_dp3, mneg w0, w1, w2\n"
"	kpt_alu	arm64_emu_dp3, smaddl x0, w1, w2, x3\n"
"	kpt_alu	arm64_emu_dp3, umsubl x0, w1, w2, x3\n"
"	kpt_alu	arm64_emu_dp3, smull x0, w1, w2\n"
"	kpt_alu	arm64_emu_dp3, smulh x0, x1, x2\n"
"	kpt_alu	arm64_emu_dp3, umulh x0, x1, x2\n"
"	kpt_alu	arm64_emu_extract, extr x0, x1, x2, #0\n"
"	kpt_alu	arm64_emu_extract, extr w0, w1, w2, #0\n"
"	kpt_alu	arm64_emu_add_sub_imm, cmp sp, #16\n"
"	kpt_alu	arm64_emu_add_sub_reg, cmp sp, x2\n"
"	kpt_alu	arm64_emu_add_sub_reg, add w0, wsp, w2, uxtw\n"
"	kpt_alu	arm64_emu_logical_imm, orr x0, xzr, #0x5555555555555555\n"
"	kpt_alu	arm64_emu_add_sub_reg, add x0, x1, wzr, sxtw\n"
"	kpt_alu	arm64_emu_move_wide, movn w0, #0x55, lsl #16\n"
"	kpt_alu	arm64_emu_move_wide, movz w0, #1, lsl #16\n"
"	kpt_alu	arm64_emu_bitfield, asr x0, x1, #0\n"
"	kpt_alu	arm64_emu_bitfield, ubfiz w0, w1, #31, #1\n"
"	kpt_alu	arm64_emu_bitfield, bfxil x0, x1, #60, #4\n"
"	kpt_alu	arm64_emu_dp2, lsl w0, w1, w2\n"
"	kpt_alu	arm64_emu_dp2, lsr x0, x1, x2\n"
"	kpt_alu	arm64_emu_dp2, ror x0, x1, x2\n"
"	kpt_alu	arm64_emu_dp3, umaddl x0, w1, w2, x3\n"
"	kpt_alu	arm64_emu_dp3, smsubl x0, w1, w2, x3\n"
"	kpt_alu	arm64_emu_dp3, umull x0, w1, w2\n"
"	kpt_alu	arm64_emu_dp3, smnegl x0, w1, w2\n"
"	kpt_alu	arm64_emu_dp3, msub x0, x1, x2, x3\n"
"	kpt_alu	arm64_emu_cond_select, csinc x0, x1, x2, al\n"
"	kpt_alu	arm64_emu_cond_select, .inst 0x9a82f020\n"
"	kpt_alu	arm64_emu_cond_select, csel x0, x1, x2, cs\n"
"	kpt_alu	arm64_emu_cond_select, csel w0, w1, w2, cc\n"
"	kpt_alu	arm64_emu_cond_select, csinv x0, x1, x2, pl\n"
"	kpt_alu	arm64_emu_cond_select, csneg x0, x1, x2, vc\n"
"	kpt_alu	arm64_emu_cond_select, csel x0, x1, x2, le\n"
"	kpt_alu	arm64_emu_cond_compare, ccmp w1, #31, #5, cs\n"
"	kpt_alu	arm64_emu_hint, nop\n"
"	kpt_alu	arm64_emu_hint, hint 34\n"
"	kpt_alu	arm64_emu_hint, hint 36\n"
"	.popsection\n"
"	.pushsection .rodata.kpt_emus, \"a\"\n"
"	.globl	kpt_emus_end\n"
"kpt_emus_end:\n"
"	.popsection\n"
"	.purgem	kpt_alu\n"
);

asm("	.pushsection .text, \"ax\"\n"

/* u64 kpt_call(const void *fn, u64 a, u64 b): fn(a, b) */
KPT_FUNC(kpt_call)
"	mov	x16, x0\n"
"	mov	x0, x1\n"
"	mov	x1, x2\n"
"	br	x16\n"

/* Literals the loads read. */
"	.balign	8\n"
KPT_LABEL(kpt_lit64)
"	.quad	0x8877665544332211\n"
KPT_LABEL(kpt_lit32)
"	.word	0x89abcdef\n"
"	.word	0\n"

/* ADR back to kpt_lit64 and forward to kpt_pad; ADRP at an offset of 4 in
 * 16, never 0xff8 or 0xffc in a page, so no erratum 843419 fix moves it.
 */
KPT_FUNC(kpt_adr_back)
KPT_LABEL(kpt_adr_back_insn)
"	adr	x0, kpt_lit64\n"
"	ret\n"
KPT_FUNC(kpt_adr_fwd)
KPT_LABEL(kpt_adr_fwd_insn)
"	adr	x0, kpt_pad\n"
"	ret\n"
KPT_FUNC(kpt_adrp)
KPT_LABEL(kpt_adrp_insn)
"	adrp	x0, kpt_lit64\n"
"	ret\n"

KPT_FUNC(kpt_ldr_x)
KPT_LABEL(kpt_ldr_x_insn)
"	ldr	x0, kpt_lit64\n"
"	ret\n"
KPT_FUNC(kpt_ldr_w)
KPT_LABEL(kpt_ldr_w_insn)
"	ldr	w0, kpt_lit32\n"
"	ret\n"
KPT_FUNC(kpt_ldrsw)
KPT_LABEL(kpt_ldrsw_insn)
"	ldrsw	x0, kpt_lit32\n"
"	ret\n"
KPT_FUNC(kpt_prfm)
KPT_LABEL(kpt_prfm_insn)
"	prfm	pldl1keep, kpt_lit64\n"
"	ret\n"

/* Immediate branches: each returns the address it landed on. */
KPT_FUNC(kpt_b_fwd)
KPT_LABEL(kpt_b_fwd_insn)
"	b	kpt_b_fwd_target\n"
"	mov	x0, #0\n"
"	ret\n"
KPT_LABEL(kpt_b_fwd_target)
"	adr	x0, .\n"
"	ret\n"
KPT_LABEL(kpt_b_back_target)
"	adr	x0, .\n"
"	ret\n"
KPT_FUNC(kpt_b_back)
KPT_LABEL(kpt_b_back_insn)
"	b	kpt_b_back_target\n"
/* BL: returns the link register the BL wrote. */
KPT_FUNC(kpt_bl)
"	mov	x10, x30\n"
KPT_LABEL(kpt_bl_insn)
"	bl	kpt_bl_target\n"
"	mov	x0, #0\n"
"	ret\n"
"	nop\n"
KPT_LABEL(kpt_bl_target)
"	mov	x0, x30\n"
"	mov	x30, x10\n"
"	ret\n"

/* Register branches land on kpt_pad, which returns x30 as it found it. */
"	.balign	16\n"
KPT_LABEL(kpt_pad)
"	hint	38\n"
"	mov	x0, x30\n"
"	mov	x30, x10\n"
"	ret\n"
KPT_FUNC(kpt_br)
"	mov	x10, x30\n"
"	mov	x9, x0\n"
KPT_LABEL(kpt_br_insn)
"	br	x9\n"
KPT_FUNC(kpt_blr)
"	mov	x10, x30\n"
"	mov	x9, x0\n"
KPT_LABEL(kpt_blr_insn)
"	blr	x9\n"
KPT_FUNC(kpt_blr30)
"	mov	x10, x30\n"
"	mov	x30, x0\n"
KPT_LABEL(kpt_blr30_insn)
"	blr	x30\n"
KPT_FUNC(kpt_ret)
"	mov	x10, x30\n"
"	mov	x30, x0\n"
KPT_LABEL(kpt_ret_insn)
"	ret\n"
KPT_FUNC(kpt_ret9)
"	mov	x10, x30\n"
"	mov	x9, x0\n"
KPT_LABEL(kpt_ret9_insn)
"	ret	x9\n"

KPT_TESTED(kpt_cbz_x, "cbz	x9")
KPT_TESTED(kpt_cbnz_x, "cbnz	x9")
KPT_TESTED(kpt_cbz_w, "cbz	w9")
KPT_TESTED(kpt_cbnz_w, "cbnz	w9")
KPT_TESTED(kpt_tbz_0, "tbz	x9, #0")
KPT_TESTED(kpt_tbnz_3, "tbnz	x9, #3")
KPT_TESTED(kpt_tbz_31, "tbz	w9, #31")
KPT_TESTED(kpt_tbnz_32, "tbnz	x9, #32")
KPT_TESTED(kpt_tbz_63, "tbz	x9, #63")
KPT_TESTED(kpt_tbnz_63, "tbnz	x9, #63")

/*
 * B.cond, one 32-byte entry per condition, in encoding order: x0 is
 * written to NZCV, the B.cond at +8 goes to +20 when taken, else on to
 * +12; the entry returns where it went on.
 */
"	.balign	32\n"
KPT_LABEL(kpt_bcond_table)
"	.irp	cc, eq, ne, cs, cc, mi, pl, vs, vc, hi, ls, ge, lt, gt, le, al, nv\n"
"	hint	34\n"
"	msr	nzcv, x0\n"
"	b.\\cc	1f\n"
"	adr	x0, .\n"
"	ret\n"
"1:	adr	x0, .\n"
"	ret\n"
"	nop\n"
"	.endr\n"

/* Never run: only decoded.  An LL/SC loop. */
KPT_FUNC(kpt_llsc)
"	add	x9, x9, #1\n"
".Lkpt_llsc_again:\n"
"	ldxr	x10, [x0]\n"
"	add	x10, x10, #1\n"
"	stxr	w11, x10, [x0]\n"
"	cbnz	w11, .Lkpt_llsc_again\n"
"	ret\n"

/*
 * u64 kpt_mix(u64 v): each simulated kind, a few emulated and stepped
 * instructions (the flags of the emulated cmp decide the b.hi);
 * see kpt_mix_expected() for what it returns.
 */
KPT_FUNC(kpt_mix)
KPT_LABEL(kpt_mix_stp)
"	stp	x29, x30, [sp, #-16]!\n"
KPT_LABEL(kpt_mix_fp)
"	mov	x29, sp\n"
"	mov	x15, #0\n"
KPT_LABEL(kpt_mix_adr)
"	adr	x9, kpt_lit64\n"
KPT_LABEL(kpt_mix_adrp)
"	adrp	x10, kpt_lit64\n"
"	sub	x9, x9, x10\n"
"	add	x15, x15, x9\n"
KPT_LABEL(kpt_mix_ldr)
"	ldr	x11, kpt_lit64\n"
"	add	x15, x15, x11\n"
KPT_LABEL(kpt_mix_ldrw)
"	ldr	w12, kpt_lit32\n"
"	add	x15, x15, x12\n"
KPT_LABEL(kpt_mix_ldrsw)
"	ldrsw	x13, kpt_lit32\n"
"	add	x15, x15, x13\n"
KPT_LABEL(kpt_mix_prfm)
"	prfm	pldl1keep, kpt_lit64\n"
"	mov	x14, #0\n"
KPT_LABEL(kpt_mix_cbz)
"	cbz	x0, kpt_mix_t1\n"
"	orr	x14, x14, #1\n"
KPT_LABEL(kpt_mix_t1)
KPT_LABEL(kpt_mix_cbnz)
"	cbnz	x0, kpt_mix_t2\n"
"	orr	x14, x14, #2\n"
KPT_LABEL(kpt_mix_t2)
KPT_LABEL(kpt_mix_tbz)
"	tbz	x0, #0, kpt_mix_t3\n"
"	orr	x14, x14, #4\n"
KPT_LABEL(kpt_mix_t3)
KPT_LABEL(kpt_mix_tbnz)
"	tbnz	x0, #1, kpt_mix_t4\n"
"	orr	x14, x14, #8\n"
KPT_LABEL(kpt_mix_t4)
"	cmp	x0, #5\n"
KPT_LABEL(kpt_mix_bcond)
"	b.hi	kpt_mix_t5\n"
"	orr	x14, x14, #16\n"
KPT_LABEL(kpt_mix_t5)
KPT_LABEL(kpt_mix_bl)
"	bl	kpt_mix_leaf\n"
"	adr	x16, kpt_mix_leaf2\n"
KPT_LABEL(kpt_mix_blr)
"	blr	x16\n"
"	adr	x17, kpt_mix_t6\n"
KPT_LABEL(kpt_mix_br)
"	br	x17\n"
KPT_LABEL(kpt_mix_skip)
"	orr	x14, x14, #0x4000\n"
KPT_LABEL(kpt_mix_t6)
"	hint	38\n"
KPT_LABEL(kpt_mix_b)
"	b	kpt_mix_t7\n"
"	orr	x14, x14, #0x8000\n"
KPT_LABEL(kpt_mix_t7)
KPT_LABEL(kpt_mix_add)
"	add	x0, x15, x14\n"
KPT_LABEL(kpt_mix_ldp)
"	ldp	x29, x30, [sp], #16\n"
KPT_LABEL(kpt_mix_ret)
"	ret\n"
KPT_LABEL(kpt_mix_leaf)
"	orr	x14, x14, #32\n"
"	ret\n"
KPT_LABEL(kpt_mix_leaf2)
"	hint	38\n"
"	orr	x14, x14, #64\n"
"	ret\n"

/*
 * u64 kpt_nested(u64 v): v + 1, for probes hit from a handler: one
 * stepped instruction (it writes sp), one emulated, one simulated.
 */
KPT_FUNC(kpt_nested)
KPT_LABEL(kpt_nested_step)
"	add	sp, sp, #0\n"
KPT_LABEL(kpt_nested_add)
"	add	x0, x0, #1\n"
KPT_LABEL(kpt_nested_ret)
"	ret\n"

"	.popsection\n"
);

asmlinkage u64 kpt_call(const void *fn, u64 a, u64 b);

#define KPT_TEXT(...)	extern const u32 __VA_ARGS__

KPT_TEXT(kpt_lit64[], kpt_lit32[]);
KPT_TEXT(kpt_adr_back[], kpt_adr_back_insn[], kpt_adr_fwd[], kpt_adr_fwd_insn[]);
KPT_TEXT(kpt_adrp[], kpt_adrp_insn[], kpt_pad[]);
KPT_TEXT(kpt_ldr_x[], kpt_ldr_x_insn[], kpt_ldr_w[], kpt_ldr_w_insn[]);
KPT_TEXT(kpt_ldrsw[], kpt_ldrsw_insn[], kpt_prfm[], kpt_prfm_insn[]);
KPT_TEXT(kpt_b_fwd[], kpt_b_fwd_insn[], kpt_b_fwd_target[]);
KPT_TEXT(kpt_b_back[], kpt_b_back_insn[], kpt_b_back_target[]);
KPT_TEXT(kpt_bl[], kpt_bl_insn[], kpt_bl_target[]);
KPT_TEXT(kpt_br[], kpt_br_insn[], kpt_blr[], kpt_blr_insn[]);
KPT_TEXT(kpt_blr30[], kpt_blr30_insn[], kpt_ret[], kpt_ret_insn[]);
KPT_TEXT(kpt_ret9[], kpt_ret9_insn[]);
KPT_TEXT(kpt_cbz_x[], kpt_cbz_x_insn[], kpt_cbnz_x[], kpt_cbnz_x_insn[]);
KPT_TEXT(kpt_cbz_w[], kpt_cbz_w_insn[], kpt_cbnz_w[], kpt_cbnz_w_insn[]);
KPT_TEXT(kpt_tbz_0[], kpt_tbz_0_insn[], kpt_tbnz_3[], kpt_tbnz_3_insn[]);
KPT_TEXT(kpt_tbz_31[], kpt_tbz_31_insn[], kpt_tbnz_32[], kpt_tbnz_32_insn[]);
KPT_TEXT(kpt_tbz_63[], kpt_tbz_63_insn[], kpt_tbnz_63[], kpt_tbnz_63_insn[]);
KPT_TEXT(kpt_bcond_table[], kpt_llsc[]);
KPT_TEXT(kpt_mix[], kpt_mix_stp[], kpt_mix_adr[], kpt_mix_adrp[]);
KPT_TEXT(kpt_mix_ldr[], kpt_mix_ldrw[], kpt_mix_ldrsw[], kpt_mix_prfm[]);
KPT_TEXT(kpt_mix_cbz[], kpt_mix_cbnz[], kpt_mix_tbz[], kpt_mix_tbnz[]);
KPT_TEXT(kpt_mix_bcond[], kpt_mix_bl[], kpt_mix_blr[], kpt_mix_br[]);
KPT_TEXT(kpt_mix_b[], kpt_mix_add[], kpt_mix_ldp[], kpt_mix_ret[]);
KPT_TEXT(kpt_mix_skip[], kpt_mix_leaf[], kpt_mix_leaf2[]);
KPT_TEXT(kpt_mix_t2[], kpt_mix_t4[], kpt_mix_t6[], kpt_mix_t7[], kpt_mix_fp[]);
KPT_TEXT(kpt_nested[], kpt_nested_step[], kpt_nested_add[], kpt_nested_ret[]);

#define KPT_LIT64	0x8877665544332211ULL
#define KPT_LIT32	0x89abcdefU
#define KPT_FAKE_PC	0xffff800080000abcUL
/* ADRP counts 4K pages whatever the kernel's page size. */
#define KPT_ADRP_PAGE	(SZ_4K - 1UL)

static unsigned long kpt_addr(const void *p)
{
	return (unsigned long)p;
}

static u32 kpt_opcode(const u32 *insn)
{
	return le32_to_cpu(READ_ONCE(*insn));
}

/* --- decoding --- */

struct kpt_enc {
	const char *what;
	u32 insn;
	probes_handler_t *sim;
};

/* Simulated for kprobes and uprobes alike. */
static const struct kpt_enc kpt_simulated[] = {
	{ "b",			0x14000002, arm64_sim_branch_imm },
	{ "bl",			0x94000002, arm64_sim_branch_imm },
	{ "b.eq",		0x54000040, arm64_sim_branch_cond },
	{ "b.nv",		0x5400006f, arm64_sim_branch_cond },
	{ "cbz x1",		0xb4000041, arm64_sim_compare_branch },
	{ "cbnz w1",		0x35000041, arm64_sim_compare_branch },
	{ "tbz x1, #40",	0xb6400041, arm64_sim_test_branch },
	{ "tbnz w1, #3",	0x37180041, arm64_sim_test_branch },
	{ "br x1",		0xd61f0020, arm64_sim_branch_reg },
	{ "blr x1",		0xd63f0020, arm64_sim_branch_reg },
	{ "ret",		0xd65f03c0, arm64_sim_branch_reg },
	{ "ret x9",		0xd65f0120, arm64_sim_branch_reg },
	{ "adr x1",		0x10000041, arm64_sim_pc_rel },
	{ "adrp x1",		0x90000021, arm64_sim_pc_rel },
	{ "prfm (literal)",	0xd8000040, arm64_sim_prefetch_lit },
};

/* Simulated for kprobes only: a uprobe's literal is user memory. */
static const struct kpt_enc kpt_simulated_kernel[] = {
	{ "ldr x1 (literal)",	0x58000041, arm64_sim_load_lit },
	{ "ldr w1 (literal)",	0x18000041, arm64_sim_load_lit },
	{ "ldrsw x1 (literal)",	0x98000041, arm64_sim_load_lit_sw },
};

/* Emulated for kprobes only; uprobes step them. */
static const struct kpt_enc kpt_emulated_kernel[] = {
	{ "add x0, x1, x2",		0x8b020020, arm64_emu_add_sub_reg },
	{ "mov x29, sp",		0x910003fd, arm64_emu_add_sub_imm },
	{ "cmp x0, #0",			0xf100001f, arm64_emu_add_sub_imm },
	{ "nop",			0xd503201f, arm64_emu_hint },
	{ "bti",			0xd503241f, arm64_emu_hint },
	{ "bti c",			0xd503245f, arm64_emu_hint },
	{ "bti jc",			0xd50324df, arm64_emu_hint },
};

static const struct kpt_enc kpt_stepped[] = {
	{ "ldr x0, [x1]",		0xf9400020 },
	{ "stp x29, x30, [sp, #-16]!",	0xa9bf7bfd },
	{ "paciasp",			0xd503233f },
	/* Data processing that writes sp, or that we do not emulate. */
	{ "sub sp, sp, #16",		0xd10043ff },
	{ "mov sp, x0",			0x9100001f },
	{ "and sp, x0, #0xff",		0x92401c1f },
	{ "add sp, x0, w1, uxtw",	0x8b21401f },
	{ "addg x0, x1, #16, #1",	0x91810420 },
	{ "pacga x0, x1, x2",		0x9ac23020 },
	{ "crc32b w0, w1, w2",		0x1ac24020 },
	{ "move wide, opc 01 (unallocated)", 0xb2800000 },
	{ "dmb ish",			0xd5033bbf },
	{ "mrs x0, tpidr_el1",		0xd538d080 },
	{ "ldar x0, [x1]",		0xc8dffc20 },
	{ "stlr x0, [x1]",		0xc89ffc20 },
	{ "casal x0, x1, [x2]",		0xc8e0fc41 },
	{ "ldadd x0, x1, [x2]",		0xf8200041 },
};

static const struct kpt_enc kpt_refused[] = {
	{ "ldxr x0, [x1]",		0xc85f7c20 },
	{ "stxr w2, x0, [x1]",		0xc8027c20 },
	{ "ldaxr w0, [x1]",		0x885ffc20 },
	{ "stlxr w2, w0, [x1]",		0x8802fc20 },
	{ "ldxp x0, x3, [x1]",		0xc87f0c20 },
	{ "stxp w2, x0, x3, [x1]",	0xc8220c20 },
	{ "brk #0",			0xd4200000 },
	{ "brk #KPROBES_BRK_IMM",	BRK64_OPCODE_KPROBES },
	{ "hvc #0",			0xd4000002 },
	{ "svc #0",			0xd4000001 },
	{ "smc #0",			0xd4000003 },
	{ "hlt #0",			0xd4400000 },
	{ "eret",			0xd69f03e0 },
	{ "eretaa",			0xd69f0bff },
	{ "msr daifset, #2",		0xd50342df },
	{ "msr daif, x0",		0xd51b4220 },
	{ "msr nzcv, x0",		0xd51b4200 },
	{ "mrs x0, daif",		0xd53b4220 },
	{ "wfi",			0xd503207f },
	{ "wfe",			0xd503205f },
	{ "autiasp",			0xd50323bf },
	{ "braa x1, x2",		0xd71f0822 },
	{ "retaa",			0xd65f0bff },
	{ "blraa x1, x2",		0xd73f0822 },
	{ "ldr s0 (literal)",		0x1c000040 },
	{ "ldr q0 (literal)",		0x9c000040 },
	{ "udf #0",			0x00000000 },
	{ "cpyfp [x0]!, [x1]!, x2!",	0x19010440 },
};

static void kpt_check_decode(struct kunit *test, const struct kpt_enc *e,
			     enum probe_insn (*decode)(probe_opcode_t,
						       struct arch_probe_insn *),
			     enum probe_insn want, probes_handler_t *sim)
{
	struct arch_probe_insn api = {
		.handler = (probes_handler_t *)kpt_addr(kpt_call),
	};

	KUNIT_EXPECT_EQ_MSG(test, decode(e->insn, &api), want, "%s (%08x)",
			    e->what, e->insn);
	KUNIT_EXPECT_PTR_EQ_MSG(test, (void *)api.handler, (void *)sim,
				"%s (%08x)", e->what, e->insn);
}

static void kpt_decode_simulated(struct kunit *test)
{
	const struct kpt_enc *e;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpt_simulated); i++) {
		e = &kpt_simulated[i];
		kpt_check_decode(test, e, arm64_kprobe_classify,
				 INSN_GOOD_NO_SLOT, e->sim);
		kpt_check_decode(test, e, arm_probe_decode_insn,
				 INSN_GOOD_NO_SLOT, e->sim);
	}
	for (i = 0; i < ARRAY_SIZE(kpt_simulated_kernel); i++) {
		e = &kpt_simulated_kernel[i];
		kpt_check_decode(test, e, arm64_kprobe_classify,
				 INSN_GOOD_NO_SLOT, e->sim);
		kpt_check_decode(test, e, arm_probe_decode_insn,
				 INSN_REJECTED, NULL);
	}
}

static void kpt_decode_emulated(struct kunit *test)
{
	const struct kpt_enc *e;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpt_emulated_kernel); i++) {
		e = &kpt_emulated_kernel[i];
		kpt_check_decode(test, e, arm64_kprobe_classify,
				 INSN_GOOD_NO_SLOT, e->sim);
		kpt_check_decode(test, e, arm_probe_decode_insn, INSN_GOOD,
				 NULL);
	}
}

static void kpt_decode_stepped(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpt_stepped); i++) {
		kpt_check_decode(test, &kpt_stepped[i], arm64_kprobe_classify,
				 INSN_GOOD, NULL);
		kpt_check_decode(test, &kpt_stepped[i], arm_probe_decode_insn,
				 INSN_GOOD, NULL);
	}
}

static void kpt_decode_refused(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpt_refused); i++) {
		kpt_check_decode(test, &kpt_refused[i], arm64_kprobe_classify,
				 INSN_REJECTED, NULL);
		kpt_check_decode(test, &kpt_refused[i], arm_probe_decode_insn,
				 INSN_REJECTED, NULL);
	}
}

/* kpt_llsc, word by word: only what is outside the LL/SC pair may go. */
static void kpt_decode_llsc(struct kunit *test)
{
	static const enum probe_insn want[] = {
		INSN_GOOD_NO_SLOT,	/* bti c, emulated */
		INSN_GOOD_NO_SLOT,	/* add, before the loop, emulated */
		INSN_REJECTED,		/* ldxr */
		/* add, between the pair: emulable, yet a BRK there clears
		 * the monitor
		 */
		INSN_REJECTED,
		INSN_REJECTED,		/* stxr */
		INSN_GOOD_NO_SLOT,	/* cbnz, after the store */
		INSN_GOOD_NO_SLOT,	/* ret */
	};
	struct arch_specific_insn asi;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		memset(&asi, 0, sizeof(asi));
		KUNIT_EXPECT_EQ_MSG(test,
				    arm_kprobe_decode_insn((kprobe_opcode_t *)
							   &kpt_llsc[i], &asi),
				    want[i], "word %u", i);
	}
}

/* --- simulation against the CPU --- */

#define KPT_SP		0x5a5a5a5a5a5a0ff0UL

static u64 kpt_reg_pattern(unsigned int n)
{
	return 0xa5a5000000000000ULL | ((u64)n << 8) | n;
}

static void kpt_regs_init(struct pt_regs *regs, unsigned long pc)
{
	unsigned int n;

	memset(regs, 0, sizeof(*regs));
	for (n = 0; n < ARRAY_SIZE(regs->regs); n++)
		regs->regs[n] = kpt_reg_pattern(n);
	regs->sp = KPT_SP;
	regs->pc = pc;
	regs->pstate = PSR_MODE_EL1h;
}

/* All of x0-x30 but those in @changed (bit n for xn) and sp are as set. */
static void kpt_expect_others(struct kunit *test, const struct pt_regs *regs,
			      unsigned long changed)
{
	unsigned int n;

	for (n = 0; n < ARRAY_SIZE(regs->regs); n++) {
		if (changed & BIT(n))
			continue;
		KUNIT_EXPECT_EQ_MSG(test, regs->regs[n], kpt_reg_pattern(n),
				    "x%u", n);
	}
	KUNIT_EXPECT_EQ(test, regs->sp, KPT_SP);
	KUNIT_EXPECT_EQ(test, regs->pstate, (u64)PSR_MODE_EL1h);
}

/*
 * Simulate the instruction at @insn on @regs (already set up, pc on
 * @insn), after checking that the kprobes decoder picks @sim for it.
 */
static void kpt_simulate(struct kunit *test, const u32 *insn,
			 probes_handler_t *sim, struct pt_regs *regs)
{
	struct arch_specific_insn asi = {};

	KUNIT_ASSERT_EQ(test, arm_kprobe_decode_insn((kprobe_opcode_t *)insn,
						     &asi),
			INSN_GOOD_NO_SLOT);
	KUNIT_ASSERT_PTR_EQ(test, (void *)asi.api.handler, (void *)sim);
	asi.api.handler(kpt_opcode(insn), (long)insn, regs);
}

/* Run an instruction that writes x0 and goes on: CPU against simulator. */
static void kpt_same_x0(struct kunit *test, const u32 *fn, const u32 *insn,
			probes_handler_t *sim, u64 want)
{
	u64 native = kpt_call(fn, 0, 0);
	struct pt_regs regs;

	KUNIT_EXPECT_EQ(test, native, want);
	kpt_regs_init(&regs, kpt_addr(insn));
	kpt_simulate(test, insn, sim, &regs);
	KUNIT_EXPECT_EQ(test, regs.regs[0], native);
	KUNIT_EXPECT_EQ(test, regs.pc, kpt_addr(insn + 1));
	kpt_expect_others(test, &regs, BIT(0));
}

static void kpt_sim_adr_adrp(struct kunit *test)
{
	struct pt_regs regs;

	kpt_same_x0(test, kpt_adr_back, kpt_adr_back_insn, arm64_sim_pc_rel,
		    kpt_addr(kpt_lit64));
	kpt_same_x0(test, kpt_adr_fwd, kpt_adr_fwd_insn, arm64_sim_pc_rel,
		    kpt_addr(kpt_pad));
	kpt_same_x0(test, kpt_adrp, kpt_adrp_insn, arm64_sim_pc_rel,
		    kpt_addr(kpt_lit64) & ~KPT_ADRP_PAGE);

	/* The extremes of the immediate, at a made-up address. */
	kpt_regs_init(&regs, KPT_FAKE_PC);
	arm64_sim_pc_rel(0x10800001, KPT_FAKE_PC, &regs);	/* adr x1, -1M */
	KUNIT_EXPECT_EQ(test, regs.regs[1], KPT_FAKE_PC - SZ_1M);
	arm64_sim_pc_rel(0xf0ffffe1, KPT_FAKE_PC, &regs);	/* adrp x1, -4K */
	KUNIT_EXPECT_EQ(test, regs.regs[1],
			(KPT_FAKE_PC & ~KPT_ADRP_PAGE) - SZ_4K);
	arm64_sim_pc_rel(0x707fffe1, KPT_FAKE_PC, &regs);	/* adr x1, +1M-1 */
	KUNIT_EXPECT_EQ(test, regs.regs[1], KPT_FAKE_PC + SZ_1M - 1);
	KUNIT_EXPECT_EQ(test, regs.pc, KPT_FAKE_PC + 4);
	kpt_expect_others(test, &regs, BIT(1));
}

static void kpt_sim_literal(struct kunit *test)
{
	struct pt_regs regs;

	kpt_same_x0(test, kpt_ldr_x, kpt_ldr_x_insn, arm64_sim_load_lit,
		    KPT_LIT64);
	kpt_same_x0(test, kpt_ldr_w, kpt_ldr_w_insn, arm64_sim_load_lit,
		    KPT_LIT32);
	kpt_same_x0(test, kpt_ldrsw, kpt_ldrsw_insn, arm64_sim_load_lit_sw,
		    (u64)(s64)(s32)KPT_LIT32);

	/* PRFM: the CPU leaves x0 alone, so must the simulator. */
	KUNIT_EXPECT_EQ(test, kpt_call(kpt_prfm, 0x1234, 0), 0x1234ULL);
	kpt_regs_init(&regs, kpt_addr(kpt_prfm_insn));
	kpt_simulate(test, kpt_prfm_insn, arm64_sim_prefetch_lit, &regs);
	KUNIT_EXPECT_EQ(test, regs.pc, kpt_addr(kpt_prfm_insn + 1));
	kpt_expect_others(test, &regs, 0);

	/* ldr xzr, <literal>: the load is dropped, sp is not x31. */
	kpt_regs_init(&regs, kpt_addr(kpt_ldr_x_insn));
	arm64_sim_load_lit(kpt_opcode(kpt_ldr_x_insn) | 0x1f,
			   (long)kpt_ldr_x_insn, &regs);
	KUNIT_EXPECT_EQ(test, regs.pc, kpt_addr(kpt_ldr_x_insn + 1));
	kpt_expect_others(test, &regs, 0);
}

static void kpt_sim_branch_imm(struct kunit *test)
{
	struct pt_regs regs;
	u64 native;

	native = kpt_call(kpt_b_fwd, 0, 0);
	KUNIT_EXPECT_EQ(test, native, (u64)kpt_addr(kpt_b_fwd_target));
	kpt_regs_init(&regs, kpt_addr(kpt_b_fwd_insn));
	kpt_simulate(test, kpt_b_fwd_insn, arm64_sim_branch_imm, &regs);
	KUNIT_EXPECT_EQ(test, regs.pc, native);
	kpt_expect_others(test, &regs, 0);

	native = kpt_call(kpt_b_back, 0, 0);
	KUNIT_EXPECT_EQ(test, native, (u64)kpt_addr(kpt_b_back_target));
	kpt_regs_init(&regs, kpt_addr(kpt_b_back_insn));
	kpt_simulate(test, kpt_b_back_insn, arm64_sim_branch_imm, &regs);
	KUNIT_EXPECT_EQ(test, regs.pc, native);
	kpt_expect_others(test, &regs, 0);

	native = kpt_call(kpt_bl, 0, 0);
	KUNIT_EXPECT_EQ(test, native, (u64)kpt_addr(kpt_bl_insn + 1));
	kpt_regs_init(&regs, kpt_addr(kpt_bl_insn));
	kpt_simulate(test, kpt_bl_insn, arm64_sim_branch_imm, &regs);
	KUNIT_EXPECT_EQ(test, regs.pc, kpt_addr(kpt_bl_target));
	KUNIT_EXPECT_EQ(test, regs.regs[30], native);
	kpt_expect_others(test, &regs, BIT(30));

	/* b -128M and bl +128M-4, the ends of imm26. */
	kpt_regs_init(&regs, KPT_FAKE_PC);
	arm64_sim_branch_imm(0x16000000, KPT_FAKE_PC, &regs);
	KUNIT_EXPECT_EQ(test, regs.pc, KPT_FAKE_PC - SZ_128M);
	kpt_expect_others(test, &regs, 0);
	arm64_sim_branch_imm(0x95ffffff, KPT_FAKE_PC, &regs);
	KUNIT_EXPECT_EQ(test, regs.pc, KPT_FAKE_PC + SZ_128M - 4);
	KUNIT_EXPECT_EQ(test, regs.regs[30], KPT_FAKE_PC + 4);
}

/* Every condition against every NZCV value, as the CPU decides it. */
static void kpt_sim_bcond(struct kunit *test)
{
	unsigned int cond, flags;
	const u32 *entry, *insn;
	struct pt_regs regs;
	u64 nzcv, native;

	for (cond = 0; cond < 16; cond++) {
		entry = kpt_bcond_table + 8 * cond;
		insn = entry + 2;
		KUNIT_ASSERT_EQ(test, kpt_opcode(insn) & 0xf, cond);
		for (flags = 0; flags < 16; flags++) {
			nzcv = (u64)flags << 28;
			native = kpt_call(entry, nzcv, 0);
			KUNIT_EXPECT_TRUE(test,
					  native == kpt_addr(insn + 1) ||
					  native == kpt_addr(insn + 3));
			kpt_regs_init(&regs, kpt_addr(insn));
			regs.pstate |= nzcv;
			kpt_simulate(test, insn, arm64_sim_branch_cond, &regs);
			KUNIT_EXPECT_EQ_MSG(test, regs.pc, native,
					    "cond %u nzcv %x", cond, flags);
			if (cond >= 14)
				KUNIT_EXPECT_EQ(test, regs.pc,
						kpt_addr(insn + 3));
		}
	}

	/* b.eq -1M, the end of imm19, with Z set. */
	kpt_regs_init(&regs, KPT_FAKE_PC);
	regs.pstate |= PSR_Z_BIT;
	arm64_sim_branch_cond(0x54800000, KPT_FAKE_PC, &regs);
	KUNIT_EXPECT_EQ(test, regs.pc, KPT_FAKE_PC - SZ_1M);
}

struct kpt_tested {
	const u32 *fn;
	const u32 *insn;
	probes_handler_t *sim;
	unsigned int bit;	/* tested bit, or 64 for CBZ/CBNZ x, 32 for w */
	bool if_set;		/* taken when the bit (the value) is non-zero */
};

static bool kpt_taken(const struct kpt_tested *t, u64 v)
{
	bool set;

	if (t->bit == 64)
		set = v;
	else if (t->bit == 32 && t->sim == arm64_sim_compare_branch)
		set = lower_32_bits(v);
	else
		set = (v >> t->bit) & 1;
	return set == t->if_set;
}

static void kpt_sim_cb_tb(struct kunit *test)
{
	static const struct kpt_tested cases[] = {
		{ kpt_cbz_x, kpt_cbz_x_insn, arm64_sim_compare_branch, 64, false },
		{ kpt_cbnz_x, kpt_cbnz_x_insn, arm64_sim_compare_branch, 64, true },
		{ kpt_cbz_w, kpt_cbz_w_insn, arm64_sim_compare_branch, 32, false },
		{ kpt_cbnz_w, kpt_cbnz_w_insn, arm64_sim_compare_branch, 32, true },
		{ kpt_tbz_0, kpt_tbz_0_insn, arm64_sim_test_branch, 0, false },
		{ kpt_tbnz_3, kpt_tbnz_3_insn, arm64_sim_test_branch, 3, true },
		{ kpt_tbz_31, kpt_tbz_31_insn, arm64_sim_test_branch, 31, false },
		{ kpt_tbnz_32, kpt_tbnz_32_insn, arm64_sim_test_branch, 32, true },
		{ kpt_tbz_63, kpt_tbz_63_insn, arm64_sim_test_branch, 63, false },
		{ kpt_tbnz_63, kpt_tbnz_63_insn, arm64_sim_test_branch, 63, true },
	};
	static const u64 values[] = {
		0, 1, 8, 0x80000000, 0x100000000ULL, 0x100000008ULL,
		0x8000000000000000ULL, ~0ULL, 0xfffffffe00000000ULL,
	};
	const struct kpt_tested *t;
	struct pt_regs regs;
	unsigned int i, j;
	u64 native, want;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		t = &cases[i];
		for (j = 0; j < ARRAY_SIZE(values); j++) {
			native = kpt_call(t->fn, values[j], 0);
			want = kpt_addr(t->insn + (kpt_taken(t, values[j]) ? 3 : 1));
			KUNIT_EXPECT_EQ_MSG(test, native, want, "case %u value %llx",
					    i, values[j]);
			kpt_regs_init(&regs, kpt_addr(t->insn));
			regs.regs[9] = values[j];
			kpt_simulate(test, t->insn, t->sim, &regs);
			KUNIT_EXPECT_EQ_MSG(test, regs.pc, native,
					    "case %u value %llx", i, values[j]);
			KUNIT_EXPECT_EQ(test, regs.regs[9], values[j]);
			kpt_expect_others(test, &regs, BIT(9));
		}
	}

	/* tbz x1, #0, -32K, the end of imm14. */
	kpt_regs_init(&regs, KPT_FAKE_PC);
	regs.regs[1] = 2;
	arm64_sim_test_branch(0x36040001, KPT_FAKE_PC, &regs);
	KUNIT_EXPECT_EQ(test, regs.pc, KPT_FAKE_PC - SZ_32K);
}

static void kpt_sim_branch_reg(struct kunit *test)
{
	unsigned long pad = kpt_addr(kpt_pad);
	struct pt_regs regs;
	u64 native;

	/* br x9: the CPU reaches the pad (or this never returns). */
	kpt_call(kpt_br, pad, 0);
	kpt_regs_init(&regs, kpt_addr(kpt_br_insn));
	regs.regs[9] = pad;
	kpt_simulate(test, kpt_br_insn, arm64_sim_branch_reg, &regs);
	KUNIT_EXPECT_EQ(test, regs.pc, pad);
	kpt_expect_others(test, &regs, BIT(9));

	native = kpt_call(kpt_blr, pad, 0);
	KUNIT_EXPECT_EQ(test, native, (u64)kpt_addr(kpt_blr_insn + 1));
	kpt_regs_init(&regs, kpt_addr(kpt_blr_insn));
	regs.regs[9] = pad;
	kpt_simulate(test, kpt_blr_insn, arm64_sim_branch_reg, &regs);
	KUNIT_EXPECT_EQ(test, regs.pc, pad);
	KUNIT_EXPECT_EQ(test, regs.regs[30], native);
	kpt_expect_others(test, &regs, BIT(9) | BIT(30));

	/* blr x30 reads its target before it writes the link register. */
	native = kpt_call(kpt_blr30, pad, 0);
	KUNIT_EXPECT_EQ(test, native, (u64)kpt_addr(kpt_blr30_insn + 1));
	kpt_regs_init(&regs, kpt_addr(kpt_blr30_insn));
	regs.regs[30] = pad;
	kpt_simulate(test, kpt_blr30_insn, arm64_sim_branch_reg, &regs);
	KUNIT_EXPECT_EQ(test, regs.pc, pad);
	KUNIT_EXPECT_EQ(test, regs.regs[30], native);

	native = kpt_call(kpt_ret, pad, 0);
	KUNIT_EXPECT_EQ(test, native, (u64)pad);
	kpt_regs_init(&regs, kpt_addr(kpt_ret_insn));
	regs.regs[30] = pad;
	kpt_simulate(test, kpt_ret_insn, arm64_sim_branch_reg, &regs);
	KUNIT_EXPECT_EQ(test, regs.pc, pad);
	KUNIT_EXPECT_EQ(test, regs.regs[30], native);
	kpt_expect_others(test, &regs, BIT(30));

	kpt_call(kpt_ret9, pad, 0);
	kpt_regs_init(&regs, kpt_addr(kpt_ret9_insn));
	regs.regs[9] = pad;
	kpt_simulate(test, kpt_ret9_insn, arm64_sim_branch_reg, &regs);
	KUNIT_EXPECT_EQ(test, regs.pc, pad);
	kpt_expect_others(test, &regs, BIT(9));
}

/* --- emulation against the CPU --- */

/* Operands: the edges of both widths and a few irregular values. */
static const u64 kpt_emu_vals[] = {
	0, 1, 2, 5, 31, 32, 63, 64,
	0x7fffffffULL, 0x80000000ULL, 0xffffffffULL, 0x100000000ULL,
	0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL, ~1ULL,
	0x0123456789abcdefULL, 0xfedcba9876543210ULL,
	0x00000000fffffff0ULL, 0xffffffff80000001ULL,
};

static const u64 kpt_emu_flags[] = {
	0, PSR_N_BIT | PSR_Z_BIT | PSR_C_BIT | PSR_V_BIT,
	PSR_Z_BIT | PSR_C_BIT, PSR_N_BIT | PSR_V_BIT, PSR_C_BIT, PSR_N_BIT,
};

#define KPT_EMU_NZCV	(PSR_N_BIT | PSR_Z_BIT | PSR_C_BIT | PSR_V_BIT)
/* The rest of PSTATE, which no emulator may touch. */
#define KPT_EMU_PSTATE	(PSR_MODE_EL1h | PSR_D_BIT | PSR_A_BIT | PSR_I_BIT | \
			 PSR_F_BIT | PSR_PAN_BIT | PSR_SSBS_BIT)

/*
 * Run @t natively and emulated from x0-x3 = @in and flags @nzcv.  Returns
 * false (after reporting it) when they disagree.
 */
static bool kpt_emu_same(struct kunit *test, const struct kpt_emu *t,
			 const u64 in[4], u64 nzcv)
{
	u64 io[8] = { in[0], in[1], in[2], in[3], nzcv };
	struct pt_regs regs;
	unsigned int n;
	bool same;

	kpt_call(t->fn, (u64)io, 0);
	kpt_regs_init(&regs, kpt_addr(t->insn));
	for (n = 0; n < 4; n++)
		regs.regs[n] = in[n];
	regs.sp = io[7];
	regs.pstate = KPT_EMU_PSTATE | nzcv;
	t->emu(kpt_opcode(t->insn), kpt_addr(t->insn), &regs);

	same = regs.regs[0] == io[5] &&
	       regs.pstate == (KPT_EMU_PSTATE | (io[6] & KPT_EMU_NZCV)) &&
	       regs.pc == kpt_addr(t->insn + 1) && regs.sp == io[7];
	for (n = 1; n < ARRAY_SIZE(regs.regs); n++)
		same &= regs.regs[n] == (n < 4 ? in[n] : kpt_reg_pattern(n));
	if (!same)
		KUNIT_FAIL(test,
			   "%s: x1 %llx x2 %llx x3 %llx flags %llx: cpu x0 %llx flags %llx, emulated x0 %llx pstate %llx pc %+ld",
			   t->what, in[1], in[2], in[3], nzcv >> 28, io[5],
			   io[6] >> 28, regs.regs[0], regs.pstate,
			   (long)(regs.pc - kpt_addr(t->insn)));
	return same;
}

/*
 * Neighbours of the emulated forms that must keep their step: reserved
 * encodings of the emulated groups, instructions of those groups we do
 * not emulate, hints other than NOP and BTI, and the forms that write sp.
 */
static const u32 kpt_emu_refused[] = {
	/* reserved */
	0x8bc20020, 0x0b028020, 0x8b620020, 0x8b221420, 0x927ffc20,
	0x12400020, 0x12007c20, 0x93000020, 0x53200020, 0x53008020,
	0x73000020, 0x13828020, 0x93e20020, 0xb3c20020, 0x93820020,
	0x52c00000, 0x12e00000, 0xba820020, 0x9a820820, 0xda420000,
	0xfa420420, 0xfa420010, 0x5ac00c20, 0x5ac10020, 0x1b220c20,
	0x9b428c20, 0x9bc28c20, 0x9b820c20, 0x9be20c20, 0xbb020c20,
	0x9ac20420, 0xbac22020, 0xb2800000,
	/* SMULH, UMULH with Ra other than 31 */
	0x9b420020, 0x9bc20020,
	/* subg, subp, subps, irg, gmi, smax (imm, reg), ctz, cnt, abs */
	0xd1810420, 0x9ac20020, 0xbac20020, 0x9ac21020, 0x9ac21420,
	0x91c00420, 0x9ac26020, 0xdac01820, 0xdac01c20, 0xdac02020,
	/* rmif, setf8, crc32cx, pacia, xpaci, pacga, addg */
	0xba000420, 0x3a00082d, 0x9ac25c20, 0xdac10020, 0xdac143e0,
	0x9ac23020, 0x91810420,
	/* hints 33, 35, 39, 40 */
	0xd503243f, 0xd503247f, 0xd50324ff, 0xd503251f,
	/* writes of sp */
	0xd10043ff, 0x9100001f, 0x110003ff, 0x3200003f, 0x92401c1f,
	0x8b21401f,
};

static void kpt_emu_refuses(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpt_emu_refused); i++)
		KUNIT_EXPECT_PTR_EQ_MSG(test,
					(void *)arm64_emu_pick(kpt_emu_refused[i]),
					NULL, "%08x", kpt_emu_refused[i]);
}

static void kpt_emu_vs_native(struct kunit *test)
{
	const unsigned int nv = ARRAY_SIZE(kpt_emu_vals);
	const struct kpt_emu *t;
	unsigned int a, b, f, runs = 0;

	for (t = kpt_emus; t < kpt_emus_end; t++) {
		struct arch_specific_insn asi = {};
		bool ok = true;

		KUNIT_EXPECT_EQ_MSG(test,
				    arm_kprobe_decode_insn((kprobe_opcode_t *)t->insn,
							   &asi),
				    INSN_GOOD_NO_SLOT, "%s", t->what);
		KUNIT_EXPECT_PTR_EQ_MSG(test, (void *)asi.api.handler,
					(void *)t->emu, "%s", t->what);

		for (a = 0; a < nv && ok; a++) {
			for (b = 0; b < nv && ok; b++) {
				for (f = 0; f < ARRAY_SIZE(kpt_emu_flags) && ok; f++) {
					u64 in[4] = {
						0xa5a5a5a5c3c3c3c3ULL ^ (a << 8 | b),
						kpt_emu_vals[a], kpt_emu_vals[b],
						kpt_emu_vals[(a + b + f) % nv],
					};

					ok = kpt_emu_same(test, t, in,
							  kpt_emu_flags[f]);
					runs++;
				}
			}
			cond_resched();
		}
	}
	kunit_info(test, "%td instructions, %u runs each way\n",
		   kpt_emus_end - kpt_emus, runs);
}

/* --- probes on live code --- */

/* What kpt_mix(@v) returns. */
static u64 kpt_mix_expected(u64 v)
{
	u64 sum = (kpt_addr(kpt_lit64) & KPT_ADRP_PAGE) + KPT_LIT64 + KPT_LIT32 +
		  (u64)(s64)(s32)KPT_LIT32;
	u64 bits = 32 | 64;

	bits |= v ? 1 : 2;
	if (v & 1)
		bits |= 4;
	if (!(v & 2))
		bits |= 8;
	if (v <= 5)
		bits |= 16;
	return sum + bits;
}

struct kpt_probe {
	struct kprobe kp;
	unsigned int pre, post;
	unsigned long pre_pc, pre_lr, post_pc;
	u64 post_x0, post_x29, post_sp;
	bool bad_state;
};

static struct kpt_probe *kpt_of(struct kprobe *p)
{
	return container_of(p, struct kpt_probe, kp);
}

static int kpt_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kpt_probe *kpt = kpt_of(p);

	kpt->pre++;
	kpt->pre_pc = instruction_pointer(regs);
	kpt->pre_lr = regs->regs[30];
	if (kprobe_running() != p ||
	    get_kprobe_ctlblk()->kprobe_status != KPROBE_HIT_ACTIVE)
		kpt->bad_state = true;
	return 0;
}

static void kpt_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	struct kpt_probe *kpt = kpt_of(p);

	kpt->post++;
	kpt->post_pc = instruction_pointer(regs);
	kpt->post_x0 = regs->regs[0];
	kpt->post_x29 = regs->regs[29];
	kpt->post_sp = regs->sp;
	if (kprobe_running() != p ||
	    get_kprobe_ctlblk()->kprobe_status != KPROBE_HIT_SSDONE)
		kpt->bad_state = true;
}

struct kpt_site {
	const u32 *addr;
	const u32 *next;	/* the pc after it when v is 5; NULL: x30 */
	unsigned int hits;	/* per call of kpt_mix() */
};

static void kpt_probe_hits(struct kunit *test)
{
	const struct kpt_site sites[] = {
		{ kpt_mix,	 kpt_mix_stp,		1 },
		{ kpt_mix_stp,	 kpt_mix_stp + 1,	1 },
		{ kpt_mix_fp,	 kpt_mix_fp + 1,	1 },
		{ kpt_mix_adr,	 kpt_mix_adrp,		1 },
		{ kpt_mix_adrp,	 kpt_mix_adrp + 1,	1 },
		{ kpt_mix_ldr,	 kpt_mix_ldr + 1,	1 },
		{ kpt_mix_ldrw,	 kpt_mix_ldrw + 1,	1 },
		{ kpt_mix_ldrsw, kpt_mix_ldrsw + 1,	1 },
		{ kpt_mix_prfm,	 kpt_mix_prfm + 1,	1 },
		{ kpt_mix_cbz,	 kpt_mix_cbz + 1,	1 },
		{ kpt_mix_cbnz,	 kpt_mix_t2,		1 },
		{ kpt_mix_tbz,	 kpt_mix_tbz + 1,	1 },
		{ kpt_mix_tbnz,	 kpt_mix_tbnz + 1,	1 },
		{ kpt_mix_t4,	 kpt_mix_t4 + 1,	1 },
		{ kpt_mix_bcond, kpt_mix_bcond + 1,	1 },
		{ kpt_mix_bl,	 kpt_mix_leaf,		1 },
		{ kpt_mix_leaf,	 kpt_mix_leaf + 1,	1 },
		{ kpt_mix_blr,	 kpt_mix_leaf2,		1 },
		{ kpt_mix_br,	 kpt_mix_t6,		1 },
		{ kpt_mix_skip,	 NULL,			0 },
		{ kpt_mix_b,	 kpt_mix_t7,		1 },
		{ kpt_mix_add,	 kpt_mix_add + 1,	1 },
		{ kpt_mix_ldp,	 kpt_mix_ldp + 1,	1 },
		{ kpt_mix_ret,	 NULL,			1 },
	};
	const unsigned int n = ARRAY_SIZE(sites);
	struct kpt_probe *probes;
	struct kprobe **kps;
	unsigned int i, add_site = 0, fp_site = 0;
	u64 ret;

	KUNIT_ASSERT_EQ(test, kpt_call(kpt_mix, 5, 0), kpt_mix_expected(5));
	KUNIT_ASSERT_EQ(test, kpt_call(kpt_mix, 2, 0), kpt_mix_expected(2));

	probes = kunit_kcalloc(test, n, sizeof(*probes), GFP_KERNEL);
	kps = kunit_kcalloc(test, n, sizeof(*kps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, probes);
	KUNIT_ASSERT_NOT_NULL(test, kps);
	for (i = 0; i < n; i++) {
		probes[i].kp.addr = (kprobe_opcode_t *)sites[i].addr;
		probes[i].kp.pre_handler = kpt_pre;
		probes[i].kp.post_handler = kpt_post;
		if (sites[i].addr == kpt_mix_add)
			add_site = i;
		if (sites[i].addr == kpt_mix_fp)
			fp_site = i;
		kps[i] = &probes[i].kp;
	}
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, n), 0);

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, kpt_opcode(sites[i].addr),
				    BRK64_OPCODE_KPROBES, "site %u", i);

	ret = kpt_call(kpt_mix, 5, 0);
	KUNIT_EXPECT_EQ(test, ret, kpt_mix_expected(5));
	for (i = 0; i < n; i++) {
		struct kpt_probe *kpt = &probes[i];
		unsigned long next;

		KUNIT_EXPECT_EQ_MSG(test, kpt->pre, sites[i].hits, "site %u", i);
		KUNIT_EXPECT_EQ_MSG(test, kpt->post, sites[i].hits, "site %u", i);
		KUNIT_EXPECT_FALSE_MSG(test, kpt->bad_state, "site %u", i);
		if (!sites[i].hits)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, kpt->pre_pc, kpt_addr(sites[i].addr),
				    "site %u", i);
		next = sites[i].next ? kpt_addr(sites[i].next) : kpt->pre_lr;
		KUNIT_EXPECT_EQ_MSG(test, kpt->post_pc, next, "site %u", i);
	}
	/* The emulated add's result is in the post_handler's regs. */
	KUNIT_EXPECT_EQ(test, probes[add_site].post_x0, kpt_mix_expected(5));
	/* So is the sp that the emulated "mov x29, sp" read. */
	KUNIT_EXPECT_EQ(test, probes[fp_site].post_x29, probes[fp_site].post_sp);
	KUNIT_EXPECT_NE(test, probes[fp_site].post_sp, 0ULL);

	ret = kpt_call(kpt_mix, 2, 0);
	KUNIT_EXPECT_EQ(test, ret, kpt_mix_expected(2));
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, probes[i].pre, 2 * sites[i].hits,
				    "site %u", i);

	unregister_kprobes(kps, n);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, kpt_opcode(sites[i].addr),
				    kps[i]->opcode, "site %u", i);
		KUNIT_EXPECT_EQ_MSG(test, kps[i]->nmissed, 0UL, "site %u", i);
	}
	KUNIT_EXPECT_EQ(test, kpt_call(kpt_mix, 5, 0), kpt_mix_expected(5));
}

/* A probe hit from a handler: missed, but its instruction runs. */
static struct kpt_probe kpt_inner[3];
static u64 kpt_nested_result;
static bool kpt_outer_restored;

static int kpt_outer_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpt_of(p)->pre++;
	kpt_nested_result = kpt_call(kpt_nested, 41, 0);
	kpt_outer_restored = kprobe_running() == p &&
		get_kprobe_ctlblk()->kprobe_status == KPROBE_HIT_ACTIVE;
	return 0;
}

static void kpt_probe_nested(struct kunit *test)
{
	struct kpt_probe outer = {
		.kp = {
			.addr = (kprobe_opcode_t *)kpt_b_fwd_insn,
			.pre_handler = kpt_outer_pre,
			.post_handler = kpt_post,
		},
	};
	struct kprobe *kps[] = {
		&kpt_inner[0].kp, &kpt_inner[1].kp, &kpt_inner[2].kp,
	};
	unsigned int i;

	memset(kpt_inner, 0, sizeof(kpt_inner));
	kpt_inner[0].kp.addr = (kprobe_opcode_t *)kpt_nested_step;	/* stepped */
	kpt_inner[1].kp.addr = (kprobe_opcode_t *)kpt_nested_add;	/* emulated */
	kpt_inner[2].kp.addr = (kprobe_opcode_t *)kpt_nested_ret;	/* simulated */
	for (i = 0; i < ARRAY_SIZE(kps); i++) {
		kpt_inner[i].kp.pre_handler = kpt_pre;
		kpt_inner[i].kp.post_handler = kpt_post;
	}
	kpt_nested_result = 0;
	kpt_outer_restored = false;

	KUNIT_ASSERT_EQ(test, register_kprobes(kps, ARRAY_SIZE(kps)), 0);
	if (register_kprobe(&outer.kp)) {
		unregister_kprobes(kps, ARRAY_SIZE(kps));
		KUNIT_FAIL(test, "register_kprobe() of the outer probe failed");
		return;
	}

	KUNIT_EXPECT_EQ(test, kpt_call(kpt_b_fwd, 0, 0),
			(u64)kpt_addr(kpt_b_fwd_target));
	unregister_kprobe(&outer.kp);

	KUNIT_EXPECT_EQ(test, outer.pre, 1U);
	KUNIT_EXPECT_EQ(test, outer.post, 1U);
	KUNIT_EXPECT_EQ(test, outer.post_pc, kpt_addr(kpt_b_fwd_target));
	KUNIT_EXPECT_EQ(test, kpt_nested_result, 42ULL);
	KUNIT_EXPECT_TRUE(test, kpt_outer_restored);
	KUNIT_EXPECT_EQ(test, outer.kp.nmissed, 0UL);
	for (i = 0; i < ARRAY_SIZE(kps); i++) {
		KUNIT_EXPECT_EQ_MSG(test, kpt_inner[i].pre, 0U, "inner %u", i);
		KUNIT_EXPECT_EQ_MSG(test, kpt_inner[i].kp.nmissed, 1UL,
				    "inner %u", i);
	}

	/* Not nested: the same probes run their handlers. */
	KUNIT_EXPECT_EQ(test, kpt_call(kpt_nested, 1, 0), 2ULL);
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	for (i = 0; i < ARRAY_SIZE(kps); i++) {
		KUNIT_EXPECT_EQ_MSG(test, kpt_inner[i].pre, 1U, "inner %u", i);
		KUNIT_EXPECT_EQ_MSG(test, kpt_inner[i].post, 1U, "inner %u", i);
		KUNIT_EXPECT_FALSE(test, kpt_inner[i].bad_state);
		KUNIT_EXPECT_EQ_MSG(test, kpt_inner[i].kp.nmissed, 1UL,
				    "inner %u", i);
	}
}

#ifdef CONFIG_KRETPROBES
static unsigned int kpt_ret_entries, kpt_ret_returns;
static unsigned long kpt_ret_value;

static int kpt_ret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpt_ret_entries++;
	return 0;
}

static int kpt_ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpt_ret_returns++;
	kpt_ret_value = regs_return_value(regs);
	return 0;
}

/* The return trampoline: the value comes back, and so does the caller. */
static void kpt_probe_return(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kpt_mix,
		.entry_handler = kpt_ret_entry,
		.handler = kpt_ret_handler,
		.maxactive = 2,
	};

	if (IS_ENABLED(CONFIG_KRETPROBE_ON_FGRAPH))
		kunit_skip(test, "returns are hooked by the function graph");

	kpt_ret_entries = 0;
	kpt_ret_returns = 0;
	kpt_ret_value = 0;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_call(kpt_mix, 5, 0), kpt_mix_expected(5));
	KUNIT_EXPECT_EQ(test, kpt_call(kpt_mix, 2, 0), kpt_mix_expected(2));
	unregister_kretprobe(&rp);

	KUNIT_EXPECT_EQ(test, kpt_ret_entries, 2U);
	KUNIT_EXPECT_EQ(test, kpt_ret_returns, 2U);
	KUNIT_EXPECT_EQ(test, kpt_ret_value, (unsigned long)kpt_mix_expected(2));
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}
#endif

static struct kunit_case kpt_cases[] = {
	KUNIT_CASE(kpt_decode_simulated),
	KUNIT_CASE(kpt_decode_emulated),
	KUNIT_CASE(kpt_decode_stepped),
	KUNIT_CASE(kpt_decode_refused),
	KUNIT_CASE(kpt_decode_llsc),
	KUNIT_CASE(kpt_sim_adr_adrp),
	KUNIT_CASE(kpt_sim_literal),
	KUNIT_CASE(kpt_sim_branch_imm),
	KUNIT_CASE(kpt_sim_bcond),
	KUNIT_CASE(kpt_sim_cb_tb),
	KUNIT_CASE(kpt_sim_branch_reg),
	KUNIT_CASE(kpt_emu_refuses),
	KUNIT_CASE(kpt_emu_vs_native),
	KUNIT_CASE(kpt_probe_hits),
	KUNIT_CASE(kpt_probe_nested),
#ifdef CONFIG_KRETPROBES
	KUNIT_CASE(kpt_probe_return),
#endif
	{}
};

static struct kunit_suite kpt_suite = {
	.name = "arm64_kprobes_insn",
	.test_cases = kpt_cases,
};

kunit_test_suite(kpt_suite);

MODULE_DESCRIPTION("KUnit tests of the arm64 kprobes instruction layer");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
