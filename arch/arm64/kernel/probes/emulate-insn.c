// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 kprobes: emulating the integer data-processing instructions.
 *
 * A stepped instruction costs a second exception: the copy in the XOL
 * slot ends with a BRK that brings the CPU back to finish the hit.  The
 * instructions below read and write general registers and the flags
 * only, so the breakpoint handler can compute their result on the
 * pt_regs of the first exception and the hit ends there, the
 * post_handler included.  They are most of what sits in the middle of a
 * function:
 *
 *   ADD, ADDS, SUB, SUBS       immediate, shifted and extended register
 *   ADC, ADCS, SBC, SBCS
 *   AND, ANDS, ORR, EOR        immediate and shifted register, with the
 *   BIC, BICS, ORN, EON        inverted forms (MOV, TST, MVN are aliases)
 *   MOVZ, MOVN, MOVK
 *   SBFM, BFM, UBFM, EXTR      LSL, LSR, ASR, UBFX, SXTW, BFI, ROR, ...
 *   CSEL, CSINC, CSINV, CSNEG  CSET, CINC, CNEG, ...
 *   CCMP, CCMN                 register and immediate
 *   LSLV, LSRV, ASRV, RORV, UDIV, SDIV
 *   RBIT, REV16, REV32, REV, CLZ, CLS
 *   MADD, MSUB, SMADDL, SMSUBL, UMADDL, UMSUBL, SMULH, UMULH
 *   NOP, BTI                   nothing but the pc moves
 *
 * Each is the A64 definition and nothing more.  arm64_emu_pick() hands
 * out an emulator only for an encoding it fully handles; everything else
 * (reserved encodings, the tag and pointer-authentication forms, CRC32)
 * keeps being stepped.  So does every form that writes sp: the
 * exception return of a kernel-mode trap does not reload sp from
 * pt_regs, so an emulated write there would be lost.  Reading sp is
 * fine: regs->sp is the stack pointer at the breakpoint.
 *
 * Register 31 is the zero register unless the encoding says sp.  A
 * 32-bit form reads the low halves of its registers and zeroes the upper
 * half of the one it writes; its flags are those of the 32-bit result.
 *
 * The emulators run in the breakpoint exception, with interrupts masked,
 * take no lock, touch no memory but the pt_regs and cannot fail.  Like
 * the simulators they are kprobes-only (uprobes keep stepping these) and
 * are neither probed nor traced.
 */
#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/bitrev.h>
#include <linux/kprobes.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/ptrace.h>
#include <linux/swab.h>

#include <kunit/visibility.h>

#include <asm/insn.h>
#include <asm/ptrace.h>

#include "emulate-insn.h"
#include "simulate-insn.h"

/*
 * Fields shared by the classes, by their names in the A64 definition.
 * Read inline: aarch64_insn_decode_register() and _immediate() are out
 * of line in arch/arm64/lib/insn.c, where a kprobe may sit.
 */
#define EMU_RD		GENMASK(4, 0)
#define EMU_RN		GENMASK(9, 5)
#define EMU_RA		GENMASK(14, 10)
#define EMU_RM		GENMASK(20, 16)
#define EMU_SF		BIT(31)		/* 64-bit */
#define EMU_OP		BIT(30)		/* SUB rather than ADD, and so on */
#define EMU_S		BIT(29)		/* sets the flags */
#define EMU_OPC		GENMASK(30, 29)
#define EMU_IMM12	GENMASK(21, 10)
#define EMU_SH12	BIT(22)		/* add/sub immediate: imm12 << 12 */
#define EMU_N		BIT(22)		/* logical imm, bitfield, extract */
#define EMU_IMMR	GENMASK(21, 16)
#define EMU_IMMS	GENMASK(15, 10)
#define EMU_HW		GENMASK(22, 21)	/* move wide: which halfword */
#define EMU_IMM16	GENMASK(20, 5)
#define EMU_SHIFT	GENMASK(23, 22)	/* shifted register: LSL LSR ASR ROR */
#define EMU_INV		BIT(21)		/* logical register: Rm inverted */
#define EMU_IMM6	GENMASK(15, 10)
#define EMU_OPTION	GENMASK(15, 13)	/* extended register */
#define EMU_IMM3	GENMASK(12, 10)
#define EMU_COND	GENMASK(15, 12)
#define EMU_CSEL_OP2	BIT(10)		/* CSINC, CSNEG */
#define EMU_CCMP_IMM	BIT(11)		/* CCMP: imm5 in the Rm field */
#define EMU_NZCV_IMM	GENMASK(3, 0)
#define EMU_DP_OPCODE	GENMASK(15, 10)	/* 1- and 2-source */
#define EMU_DP3_OP31	GENMASK(23, 21)
#define EMU_DP3_O0	BIT(15)		/* MSUB and the subtracting forms */

#define EMU_NZCV	(PSR_N_BIT | PSR_Z_BIT | PSR_C_BIT | PSR_V_BIT)

/* Register numbers that mean sp in the forms that allow it. */
#define EMU_SP_REG	31

/* One instruction's operand width and the pt_regs it runs on. */
struct emu {
	struct pt_regs *regs;
	u32 insn;
	unsigned int width;	/* 32 or 64 */
};

static __always_inline struct emu emu_start(u32 insn, struct pt_regs *regs)
{
	return (struct emu){
		.regs = regs,
		.insn = insn,
		.width = (insn & EMU_SF) ? 64 : 32,
	};
}

static __always_inline u64 emu_trunc(const struct emu *e, u64 v)
{
	return e->width == 64 ? v : lower_32_bits(v);
}

static __always_inline unsigned int emu_field(const struct emu *e, u32 mask)
{
	return (e->insn & mask) >> __bf_shf(mask);
}

/* The register named by @mask, 31 being the zero register. */
static __always_inline u64 emu_read(const struct emu *e, u32 mask)
{
	return emu_trunc(e, pt_regs_read_reg(e->regs, emu_field(e, mask)));
}

/* The same where 31 means sp. */
static __always_inline u64 emu_read_sp(const struct emu *e, u32 mask)
{
	unsigned int r = emu_field(e, mask);

	return emu_trunc(e, r == EMU_SP_REG ? e->regs->sp : e->regs->regs[r]);
}

/* Write Rd (31: the zero register) and move the pc past the instruction. */
static __always_inline void emu_finish(const struct emu *e, long addr, u64 v)
{
	pt_regs_write_reg(e->regs, emu_field(e, EMU_RD), emu_trunc(e, v));
	instruction_pointer_set(e->regs, addr + AARCH64_INSN_SIZE);
}

static __always_inline void emu_set_flags(const struct emu *e, u64 nzcv)
{
	e->regs->pstate = (e->regs->pstate & ~(u64)EMU_NZCV) | nzcv;
}

/* N and Z of a result, C and V clear: the logical operations' flags. */
static __always_inline u64 emu_nz(const struct emu *e, u64 res)
{
	u64 nzcv = 0;

	if ((res >> (e->width - 1)) & 1)
		nzcv |= PSR_N_BIT;
	if (!res)
		nzcv |= PSR_Z_BIT;
	return nzcv;
}

/*
 * AddWithCarry(): @x + @y + @carry in the instruction's width, with the
 * flags it would set in *@nzcv.  Subtraction is @x + ~@y + 1.
 */
static __always_inline u64 emu_add_carry(const struct emu *e, u64 x, u64 y,
					 unsigned int carry, u64 *nzcv)
{
	u64 res, carry_out;

	x = emu_trunc(e, x);
	y = emu_trunc(e, y);
	if (e->width == 64) {
		u64 part = x + y;

		res = part + carry;
		carry_out = part < x || res < part;
	} else {
		u64 sum = x + y + carry;

		res = lower_32_bits(sum);
		carry_out = sum >> 32;
	}
	*nzcv = emu_nz(e, res);
	if (carry_out)
		*nzcv |= PSR_C_BIT;
	if ((((x ^ res) & (y ^ res)) >> (e->width - 1)) & 1)
		*nzcv |= PSR_V_BIT;
	return res;
}

static __always_inline u64 emu_ror(const struct emu *e, u64 v,
				   unsigned int n)
{
	n &= e->width - 1;
	if (!n)
		return v;
	return emu_trunc(e, (v >> n) | (v << (e->width - n)));
}

/* LSL, LSR, ASR or ROR (@type 0-3) of a value of the width by @n < width. */
static __always_inline u64 emu_shift(const struct emu *e, u64 v,
				     unsigned int type, unsigned int n)
{
	switch (type) {
	case 0:
		return emu_trunc(e, v << n);
	case 1:
		return v >> n;
	case 2:
		if (e->width == 64)
			return (u64)((s64)v >> n);
		return lower_32_bits((s32)v >> n);
	default:
		return emu_ror(e, v, n);
	}
}

/*
 * DecodeBitMasks() of the A64 definition, for @width 32 or 64.  Returns
 * false for the encodings it calls reserved (and for an element wider
 * than @width).  @logical: the logical-immediate rule that an all-ones
 * element is reserved.
 */
static __always_inline bool emu_bitmasks(unsigned int n, unsigned int imms,
					 unsigned int immr, unsigned int width,
					 bool logical, u64 *wmask, u64 *tmask)
{
	int len = fls((n << 6) | (~imms & 0x3f)) - 1;
	unsigned int esize, levels, s, r, d, i;
	u64 welem, telem;

	if (len < 1)
		return false;
	esize = 1U << len;
	if (esize > width)
		return false;
	levels = esize - 1;
	if (logical && (imms & levels) == levels)
		return false;
	s = imms & levels;
	r = immr & levels;
	d = (s - r) & levels;

	welem = GENMASK_ULL(s, 0);
	telem = GENMASK_ULL(d, 0);
	if (r)
		welem = ((welem >> r) | (welem << (esize - r))) &
			GENMASK_ULL(esize - 1, 0);
	for (i = esize; i < width; i *= 2) {
		welem |= welem << i;
		telem |= telem << i;
	}
	*wmask = welem;
	*tmask = telem;
	return true;
}

/* The operand shifted or extended in the register forms. */
static __always_inline u64 emu_extend(const struct emu *e, u64 v,
				      unsigned int option, unsigned int lsl)
{
	unsigned int bytes = 1U << (option & 3);

	if (bytes < 8) {
		u64 low = v & GENMASK_ULL(bytes * 8 - 1, 0);

		v = (option & 4) ? (u64)sign_extend64(low, bytes * 8 - 1) : low;
	}
	return emu_trunc(e, v << lsl);
}

/**
 * arm64_emu_add_sub_imm - emulate ADD, ADDS, SUB or SUBS (immediate)
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on
 */
void __kprobes arm64_emu_add_sub_imm(u32 opcode, long addr,
				     struct pt_regs *regs)
{
	struct emu e = emu_start(opcode, regs);
	u64 imm = emu_field(&e, EMU_IMM12), nzcv, res;
	u64 x = emu_read_sp(&e, EMU_RN);

	if (opcode & EMU_SH12)
		imm <<= 12;
	if (opcode & EMU_OP)
		res = emu_add_carry(&e, x, ~imm, 1, &nzcv);
	else
		res = emu_add_carry(&e, x, imm, 0, &nzcv);
	if (opcode & EMU_S)
		emu_set_flags(&e, nzcv);
	emu_finish(&e, addr, res);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_emu_add_sub_imm);

/* AND, ORR, EOR, ANDS (@opc 0-3) of @x and @y, setting flags for ANDS. */
static __always_inline u64 emu_logical(const struct emu *e, unsigned int opc,
				       u64 x, u64 y)
{
	u64 res;

	switch (opc) {
	case 1:
		return x | y;
	case 2:
		return x ^ y;
	default:
		res = x & y;
		if (opc == 3)
			emu_set_flags(e, emu_nz(e, res));
		return res;
	}
}

/**
 * arm64_emu_logical_imm - emulate AND, ORR, EOR or ANDS (immediate)
 * @opcode: the instruction, whose immediate arm64_emu_pick() checked
 * @addr: its address
 * @regs: the state it runs on
 */
void __kprobes arm64_emu_logical_imm(u32 opcode, long addr,
				     struct pt_regs *regs)
{
	struct emu e = emu_start(opcode, regs);
	u64 wmask = 0, tmask;

	emu_bitmasks(!!(opcode & EMU_N), emu_field(&e, EMU_IMMS),
		     emu_field(&e, EMU_IMMR), e.width, true, &wmask, &tmask);
	emu_finish(&e, addr, emu_logical(&e, emu_field(&e, EMU_OPC),
					 emu_read(&e, EMU_RN), wmask));
}
EXPORT_SYMBOL_IF_KUNIT(arm64_emu_logical_imm);

/**
 * arm64_emu_move_wide - emulate MOVN, MOVZ or MOVK
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on
 */
void __kprobes arm64_emu_move_wide(u32 opcode, long addr,
				   struct pt_regs *regs)
{
	struct emu e = emu_start(opcode, regs);
	unsigned int pos = emu_field(&e, EMU_HW) * 16;
	u64 imm = (u64)emu_field(&e, EMU_IMM16) << pos;
	u64 res;

	switch (emu_field(&e, EMU_OPC)) {
	case 0:		/* MOVN */
		res = ~imm;
		break;
	case 2:		/* MOVZ */
		res = imm;
		break;
	default:	/* MOVK */
		res = (emu_read(&e, EMU_RD) & ~(0xffffULL << pos)) | imm;
		break;
	}
	emu_finish(&e, addr, res);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_emu_move_wide);

/**
 * arm64_emu_bitfield - emulate SBFM, BFM or UBFM
 * @opcode: the instruction, whose fields arm64_emu_pick() checked
 * @addr: its address
 * @regs: the state it runs on
 */
void __kprobes arm64_emu_bitfield(u32 opcode, long addr,
				  struct pt_regs *regs)
{
	struct emu e = emu_start(opcode, regs);
	unsigned int opc = emu_field(&e, EMU_OPC);
	unsigned int immr = emu_field(&e, EMU_IMMR);
	unsigned int imms = emu_field(&e, EMU_IMMS);
	u64 src = emu_read(&e, EMU_RN);
	u64 dst = opc == 1 ? emu_read(&e, EMU_RD) : 0;
	u64 wmask = 0, tmask = 0, bot, top;

	emu_bitmasks(!!(opcode & EMU_N), imms, immr, e.width, false,
		     &wmask, &tmask);
	bot = (dst & ~wmask) | (emu_ror(&e, src, immr) & wmask);
	if (opc == 0)		/* SBFM: the bits above are src<imms> */
		top = ((src >> imms) & 1) ? ~0ULL : 0;
	else
		top = dst;
	emu_finish(&e, addr, (top & ~tmask) | (bot & tmask));
}
EXPORT_SYMBOL_IF_KUNIT(arm64_emu_bitfield);

/**
 * arm64_emu_extract - emulate EXTR (and its alias ROR (immediate))
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on
 */
void __kprobes arm64_emu_extract(u32 opcode, long addr, struct pt_regs *regs)
{
	struct emu e = emu_start(opcode, regs);
	unsigned int lsb = emu_field(&e, EMU_IMMS);
	u64 hi = emu_read(&e, EMU_RN), lo = emu_read(&e, EMU_RM);

	if (lsb)
		lo = (lo >> lsb) | (hi << (e.width - lsb));
	emu_finish(&e, addr, lo);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_emu_extract);

/**
 * arm64_emu_logical_reg - emulate the logical (shifted register) group
 * @opcode: AND, BIC, ORR, ORN, EOR, EON, ANDS or BICS
 * @addr: its address
 * @regs: the state it runs on
 */
void __kprobes arm64_emu_logical_reg(u32 opcode, long addr,
				     struct pt_regs *regs)
{
	struct emu e = emu_start(opcode, regs);
	u64 y = emu_shift(&e, emu_read(&e, EMU_RM), emu_field(&e, EMU_SHIFT),
			  emu_field(&e, EMU_IMM6));

	if (opcode & EMU_INV)
		y = emu_trunc(&e, ~y);
	emu_finish(&e, addr, emu_logical(&e, emu_field(&e, EMU_OPC),
					 emu_read(&e, EMU_RN), y));
}
EXPORT_SYMBOL_IF_KUNIT(arm64_emu_logical_reg);

/**
 * arm64_emu_add_sub_reg - emulate ADD, ADDS, SUB or SUBS (shifted or
 * extended register)
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on
 *
 * The extended form (bit 21 set) reads Rn as sp where it is 31.
 */
void __kprobes arm64_emu_add_sub_reg(u32 opcode, long addr,
				     struct pt_regs *regs)
{
	struct emu e = emu_start(opcode, regs);
	u64 x, y, nzcv, res;

	if (opcode & BIT(21)) {
		x = emu_read_sp(&e, EMU_RN);
		y = emu_extend(&e, pt_regs_read_reg(regs, emu_field(&e, EMU_RM)),
			       emu_field(&e, EMU_OPTION),
			       emu_field(&e, EMU_IMM3));
	} else {
		x = emu_read(&e, EMU_RN);
		y = emu_shift(&e, emu_read(&e, EMU_RM),
			      emu_field(&e, EMU_SHIFT),
			      emu_field(&e, EMU_IMM6));
	}
	if (opcode & EMU_OP)
		res = emu_add_carry(&e, x, ~y, 1, &nzcv);
	else
		res = emu_add_carry(&e, x, y, 0, &nzcv);
	if (opcode & EMU_S)
		emu_set_flags(&e, nzcv);
	emu_finish(&e, addr, res);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_emu_add_sub_reg);

/**
 * arm64_emu_carry - emulate ADC, ADCS, SBC or SBCS
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on; the carry is read from ->pstate
 */
void __kprobes arm64_emu_carry(u32 opcode, long addr, struct pt_regs *regs)
{
	struct emu e = emu_start(opcode, regs);
	unsigned int carry = !!(regs->pstate & PSR_C_BIT);
	u64 y = emu_read(&e, EMU_RM), nzcv, res;

	if (opcode & EMU_OP)
		y = ~y;
	res = emu_add_carry(&e, emu_read(&e, EMU_RN), y, carry, &nzcv);
	if (opcode & EMU_S)
		emu_set_flags(&e, nzcv);
	emu_finish(&e, addr, res);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_emu_carry);

/**
 * arm64_emu_cond_select - emulate CSEL, CSINC, CSINV or CSNEG
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on; the condition is tested on ->pstate
 */
void __kprobes arm64_emu_cond_select(u32 opcode, long addr,
				     struct pt_regs *regs)
{
	struct emu e = emu_start(opcode, regs);
	u64 res;

	if (arm64_cond_holds(emu_field(&e, EMU_COND), regs->pstate)) {
		res = emu_read(&e, EMU_RN);
	} else {
		res = emu_read(&e, EMU_RM);
		if (opcode & EMU_OP)
			res = ~res;
		if (opcode & EMU_CSEL_OP2)
			res++;
	}
	emu_finish(&e, addr, res);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_emu_cond_select);

/**
 * arm64_emu_cond_compare - emulate CCMN or CCMP (register or immediate)
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on; only its flags change
 */
void __kprobes arm64_emu_cond_compare(u32 opcode, long addr,
				      struct pt_regs *regs)
{
	struct emu e = emu_start(opcode, regs);
	u64 nzcv = (u64)emu_field(&e, EMU_NZCV_IMM) << 28;

	if (arm64_cond_holds(emu_field(&e, EMU_COND), regs->pstate)) {
		u64 x = emu_read(&e, EMU_RN), y;

		if (opcode & EMU_CCMP_IMM)
			y = emu_field(&e, EMU_RM);
		else
			y = emu_read(&e, EMU_RM);
		if (opcode & EMU_OP)
			emu_add_carry(&e, x, ~y, 1, &nzcv);
		else
			emu_add_carry(&e, x, y, 0, &nzcv);
	}
	emu_set_flags(&e, nzcv);
	instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_emu_cond_compare);

/* SDIV: rounds toward zero; by zero gives 0, MIN by -1 gives MIN. */
static __always_inline u64 emu_sdiv(const struct emu *e, u64 n, u64 m)
{
	s64 sn, sm;

	if (!m)
		return 0;
	if (e->width == 32) {
		sn = (s32)n;
		sm = (s32)m;
	} else {
		sn = n;
		sm = m;
		if (sn == S64_MIN && sm == -1)
			return n;
	}
	return sn / sm;
}

/**
 * arm64_emu_dp2 - emulate UDIV, SDIV, LSLV, LSRV, ASRV or RORV
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on
 */
void __kprobes arm64_emu_dp2(u32 opcode, long addr, struct pt_regs *regs)
{
	struct emu e = emu_start(opcode, regs);
	unsigned int op = emu_field(&e, EMU_DP_OPCODE);
	u64 n = emu_read(&e, EMU_RN), m = emu_read(&e, EMU_RM), res;

	if (op == 2)
		res = m ? n / m : 0;
	else if (op == 3)
		res = emu_sdiv(&e, n, m);
	else
		res = emu_shift(&e, n, op & 3, m & (e.width - 1));
	emu_finish(&e, addr, res);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_emu_dp2);

/* Bytes swapped within each 16-bit (@group 2) or 32-bit (4) piece. */
static __always_inline u64 emu_rev_groups(u64 v, unsigned int group)
{
	if (group == 2)
		return ((v & 0x00ff00ff00ff00ffULL) << 8) |
		       ((v >> 8) & 0x00ff00ff00ff00ffULL);
	return ((u64)swab32(v >> 32) << 32) | swab32(v);
}

/**
 * arm64_emu_dp1 - emulate RBIT, REV16, REV32, REV, CLZ or CLS
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on
 */
void __kprobes arm64_emu_dp1(u32 opcode, long addr, struct pt_regs *regs)
{
	struct emu e = emu_start(opcode, regs);
	u64 v = emu_read(&e, EMU_RN), res;
	bool wide = e.width == 64;

	switch (emu_field(&e, EMU_DP_OPCODE)) {
	case 0:		/* RBIT */
		res = bitrev32(v);
		if (wide)
			res = res << 32 | bitrev32(v >> 32);
		break;
	case 1:		/* REV16 */
		res = emu_rev_groups(v, 2);
		break;
	case 2:		/* REV32, or REV of a W register */
		res = emu_rev_groups(v, 4);
		break;
	case 3:		/* REV (64-bit only) */
		res = swab64(v);
		break;
	case 4:		/* CLZ */
		res = e.width - fls64(v);
		break;
	default:	/* CLS: the bits below the top one that equal it */
		res = e.width - 1 -
		      fls64(((v >> 1) ^ v) & GENMASK_ULL(e.width - 2, 0));
		break;
	}
	emu_finish(&e, addr, res);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_emu_dp1);

/**
 * arm64_emu_dp3 - emulate MADD, MSUB, the long multiplies and SMULH, UMULH
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on
 */
void __kprobes arm64_emu_dp3(u32 opcode, long addr, struct pt_regs *regs)
{
	struct emu e = emu_start(opcode, regs);
	u64 n = pt_regs_read_reg(regs, emu_field(&e, EMU_RN));
	u64 m = pt_regs_read_reg(regs, emu_field(&e, EMU_RM));
	u64 a = pt_regs_read_reg(regs, emu_field(&e, EMU_RA)), prod;

	switch (emu_field(&e, EMU_DP3_OP31)) {
	case 0:		/* MADD, MSUB */
		prod = n * m;
		break;
	case 1:		/* SMADDL, SMSUBL */
		prod = (s64)(s32)n * (s32)m;
		break;
	case 5:		/* UMADDL, UMSUBL */
		prod = (u64)lower_32_bits(n) * lower_32_bits(m);
		break;
	case 2:		/* SMULH: the unsigned high half, less the sign terms */
		prod = mul_u64_u64_shr(n, m, 64);
		if ((s64)n < 0)
			prod -= m;
		if ((s64)m < 0)
			prod -= n;
		emu_finish(&e, addr, prod);
		return;
	default:	/* UMULH */
		emu_finish(&e, addr, mul_u64_u64_shr(n, m, 64));
		return;
	}
	emu_finish(&e, addr, (opcode & EMU_DP3_O0) ? a - prod : a + prod);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_emu_dp3);

/**
 * arm64_emu_hint - emulate NOP or BTI
 * @opcode: the instruction
 * @addr: its address
 * @regs: the state it runs on
 *
 * A landing pad has done its work once the branch landed on the BRK (a
 * valid landing pad itself); the breakpoint handler clears BTYPE.
 */
void __kprobes arm64_emu_hint(u32 opcode, long addr, struct pt_regs *regs)
{
	instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
}
EXPORT_SYMBOL_IF_KUNIT(arm64_emu_hint);

/* --- picking an emulator at registration --- */

static bool emu_writes_sp(u32 insn)
{
	return FIELD_GET(EMU_RD, insn) == EMU_SP_REG;
}

/* Logical immediate: ANDS writes the zero register, the rest sp. */
static bool emu_logical_imm_ok(u32 insn)
{
	u64 wmask, tmask;
	unsigned int width = (insn & EMU_SF) ? 64 : 32;

	if (FIELD_GET(EMU_OPC, insn) != 3 && emu_writes_sp(insn))
		return false;
	return emu_bitmasks(!!(insn & EMU_N), FIELD_GET(EMU_IMMS, insn),
			    FIELD_GET(EMU_IMMR, insn), width, true,
			    &wmask, &tmask);
}

/* Bitfield: N equals sf, and a 32-bit form's immr and imms are below 32. */
static bool emu_bitfield_ok(u32 insn)
{
	bool wide = insn & EMU_SF;

	if (FIELD_GET(EMU_OPC, insn) == 3 || !!(insn & EMU_N) != wide)
		return false;
	return wide || ((FIELD_GET(EMU_IMMR, insn) |
			 FIELD_GET(EMU_IMMS, insn)) < 32);
}

static bool emu_extract_ok(u32 insn)
{
	bool wide = insn & EMU_SF;

	if (FIELD_GET(EMU_OPC, insn) || (insn & BIT(21)) ||
	    !!(insn & EMU_N) != wide)
		return false;
	return wide || FIELD_GET(EMU_IMMS, insn) < 32;
}

/* A 32-bit shifted-register form shifts by less than 32. */
static bool emu_imm6_ok(u32 insn)
{
	return (insn & EMU_SF) || FIELD_GET(EMU_IMM6, insn) < 32;
}

static probes_handler_t *emu_pick_immediate(u32 insn)
{
	switch (insn & 0x1f800000) {
	case 0x11000000:	/* add/sub (immediate) */
		if (!(insn & EMU_S) && emu_writes_sp(insn))
			return NULL;
		return arm64_emu_add_sub_imm;
	case 0x12000000:	/* logical (immediate) */
		return emu_logical_imm_ok(insn) ? arm64_emu_logical_imm : NULL;
	case 0x12800000:	/* move wide */
		if (FIELD_GET(EMU_OPC, insn) == 1 ||
		    (!(insn & EMU_SF) && FIELD_GET(EMU_HW, insn) > 1))
			return NULL;
		return arm64_emu_move_wide;
	case 0x13000000:
		return emu_bitfield_ok(insn) ? arm64_emu_bitfield : NULL;
	case 0x13800000:
		return emu_extract_ok(insn) ? arm64_emu_extract : NULL;
	}
	return NULL;
}

static probes_handler_t *emu_pick_register(u32 insn)
{
	unsigned int op;

	if ((insn & 0x1f000000) == 0x0a000000)		/* logical (shifted) */
		return emu_imm6_ok(insn) ? arm64_emu_logical_reg : NULL;
	if ((insn & 0x1f200000) == 0x0b000000) {	/* add/sub (shifted) */
		if (FIELD_GET(EMU_SHIFT, insn) == 3 || !emu_imm6_ok(insn))
			return NULL;
		return arm64_emu_add_sub_reg;
	}
	if ((insn & 0x1f200000) == 0x0b200000) {	/* add/sub (extended) */
		if (FIELD_GET(EMU_SHIFT, insn) || FIELD_GET(EMU_IMM3, insn) > 4 ||
		    (!(insn & EMU_S) && emu_writes_sp(insn)))
			return NULL;
		return arm64_emu_add_sub_reg;
	}
	if ((insn & 0x1fe0fc00) == 0x1a000000)		/* ADC, SBC */
		return arm64_emu_carry;
	if ((insn & 0x3fe00800) == 0x1a800000)		/* conditional select */
		return arm64_emu_cond_select;
	if ((insn & 0x3fe00410) == 0x3a400000)		/* CCMN, CCMP */
		return arm64_emu_cond_compare;
	if ((insn & 0x7fe00000) == 0x1ac00000) {	/* 2-source */
		op = FIELD_GET(EMU_DP_OPCODE, insn);
		if (op == 2 || op == 3 || (op >= 8 && op <= 11))
			return arm64_emu_dp2;
		return NULL;
	}
	if ((insn & 0x7fff0000) == 0x5ac00000) {	/* 1-source */
		op = FIELD_GET(EMU_DP_OPCODE, insn);
		if (op > 5 || (op == 3 && !(insn & EMU_SF)))
			return NULL;
		return arm64_emu_dp1;
	}
	if ((insn & 0x7f000000) == 0x1b000000) {	/* 3-source */
		op = FIELD_GET(EMU_DP3_OP31, insn);
		if (op == 0)
			return arm64_emu_dp3;
		if (!(insn & EMU_SF))
			return NULL;
		if (op == 1 || op == 5)
			return arm64_emu_dp3;
		/* SMULH, UMULH: Ra should be 31, anything else is stepped */
		if ((op == 2 || op == 6) && !(insn & EMU_DP3_O0) &&
		    FIELD_GET(EMU_RA, insn) == 31)
			return arm64_emu_dp3;
	}
	return NULL;
}

/**
 * arm64_emu_pick - the emulator of an instruction, if it has one
 * @insn: the instruction
 *
 * Context: any; looks at @insn alone.
 * Return: the emulator of one of the encodings listed at the top of this
 * file, or NULL (the instruction is for the decoder to sort).
 */
probes_handler_t *arm64_emu_pick(u32 insn)
{
	if (insn == aarch64_insn_gen_nop() || aarch64_insn_is_bti(insn))
		return arm64_emu_hint;
	switch (insn & 0x1e000000) {
	case 0x10000000:	/* data processing (immediate), 100x */
	case 0x12000000:
		return emu_pick_immediate(insn);
	case 0x0a000000:	/* data processing (register), x101 */
	case 0x1a000000:
		return emu_pick_register(insn);
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(arm64_emu_pick);
