// SPDX-License-Identifier: GPL-2.0
/*
 * x86 kprobes: read, check and copy the instruction a probe displaces.
 *
 * When a probe is prepared (arch_prepare_kprobe(), kprobe_mutex held, text
 * not yet changed by this probe) the bytes at its address are read as
 * they were before any probe touched them ("recovered": another probe's
 * int3, a jump-optimized region, a call site's NOP), decoded, and sorted
 * into one of three:
 *
 *  - refused: instructions that raise an exception on purpose (int3, int n,
 *    ud0/1/2), that mask one (mov to %ss, pop %ss), that stop the CPU or
 *    leave the kernel (hlt, iret, sysret, ...), far or memory-indirect
 *    transfers, and an instruction a decoder emulation prefix hides;
 *  - emulated (emulate.c): every near control transfer, the instructions
 *    that read or write the interrupt flag, push/pop of a register, lea,
 *    and the register-only forms of insn_emul.c: the trap applies them to
 *    pt_regs and no copy exists;
 *  - copied: everything else is copied into an instruction slot, with a
 *    %rip-relative displacement rebased onto the slot, followed by a jump
 *    to kprobe_copy_return (copy_64.S).  Such an instruction always goes
 *    on to the next one, so the jump is reached unless it faults.
 *
 * The same helpers serve the jump optimizer (opt.c), which copies whole
 * runs of instructions and asks can_boost() whether each may run from
 * another address with interrupts on.
 */
#include <linux/execmem.h>
#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kgdb.h>
#include <linux/kprobes.h>
#include <linux/perf_event.h>
#include <linux/set_memory.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/cfi.h>
#include <asm/insn.h>
#include <asm/text-patching.h>

#include "common.h"

static void put_rel32(void *dest, void *from, void *to, u8 opcode)
{
	u8 *d = dest;
	s32 rel = (s32)((long)to - ((long)from + JMP32_INSN_SIZE));

	d[0] = opcode;
	memcpy(d + 1, &rel, sizeof(rel));
}

/**
 * synthesize_reljump() - encode "jmp rel32"
 * @dest: where to write the 5 bytes
 * @from: the address the jump will run at
 * @to: its target, within 2 GiB of @from
 */
void synthesize_reljump(void *dest, void *from, void *to)
{
	put_rel32(dest, from, to, JMP32_INSN_OPCODE);
}
NOKPROBE_SYMBOL(synthesize_reljump);

/**
 * synthesize_relcall() - encode "call rel32"
 * @dest: where to write the 5 bytes
 * @from: the address the call will run at
 * @to: its target, within 2 GiB of @from
 */
void synthesize_relcall(void *dest, void *from, void *to)
{
	put_rel32(dest, from, to, CALL_INSN_OPCODE);
}
NOKPROBE_SYMBOL(synthesize_relcall);

/**
 * recover_probed_instruction() - the bytes at an address before probing
 * @buf: MAX_INSN_SIZE bytes of scratch
 * @addr: an instruction boundary in kernel or module text
 *
 * Context: kprobe_mutex held, or preemption off, so that the probes looked
 * at stay.
 *
 * Return: @addr itself when nothing of ours changed the text there, else
 * @buf holding the original bytes; 0 when the text cannot be read.
 */
unsigned long recover_probed_instruction(kprobe_opcode_t *buf,
					 unsigned long addr)
{
	unsigned long from_opt = __recover_optprobed_insn(buf, addr);
	bool call_site = ftrace_location(addr) == addr;
	struct kprobe *kp;

	if (from_opt != addr)
		return from_opt;

	kp = get_kprobe((void *)addr);
	/* A GONE probe's saved byte is that of text that was freed. */
	if (kp && kprobe_gone(kp))
		kp = NULL;
	if (!kp && !call_site)
		return addr;

	if (copy_from_kernel_nofault(buf, (void *)addr, MAX_INSN_SIZE))
		return 0;
	/*
	 * A call site may be a NOP or a call at any moment, and was a 5-byte
	 * NOP before the function-hook core touched it.  A breakpoint probe
	 * changed only the first byte and kept it in ->opcode.
	 */
	if (call_site)
		memcpy(buf, x86_nops[5], 5);
	else
		buf[0] = kp->opcode;
	return (unsigned long)buf;
}

/**
 * kprobe_decode_text() - decode the original instruction at an address
 * @insn: receives it, with kaddr and next_byte those of the real address
 *	(so branch targets come out right)
 * @at: an instruction boundary in kernel or module text
 *
 * For walks over a function (the boundary check here, the optimizer's
 * jump check): the instruction as it was before any probe, refused when
 * the text cannot be read or decoded or a kgdb breakpoint hides it.
 *
 * Context: kprobe_mutex held.
 *
 * Return: true when @insn holds the instruction.
 */
bool kprobe_decode_text(struct insn *insn, unsigned long at)
{
	kprobe_opcode_t buf[MAX_INSN_SIZE];
	unsigned long from = recover_probed_instruction(buf, at);

	if (!from || insn_decode_kernel(insn, (void *)from) < 0)
		return false;
#ifdef CONFIG_KGDB
	if (insn->opcode.bytes[0] == INT3_INSN_OPCODE && kgdb_has_hit_break(at))
		return false;
#endif
	insn->kaddr = (void *)at;
	insn->next_byte = (void *)(at + insn->length);
	return true;
}

/* Does @addr start an instruction of the function it is in? */
static bool on_insn_boundary(unsigned long addr)
{
	unsigned long at, offset;
	struct insn insn;

	if (!kallsyms_lookup_size_offset(addr, NULL, &offset))
		return false;

	for (at = addr - offset; at < addr; at += insn.length)
		if (!kprobe_decode_text(&insn, at))
			return false;
	return at == addr;
}

/*
 * With clang's kCFI, a call through a pointer is preceded by a type check
 * whose "movl $hash, %r10d" (6 bytes) and "addl -4(%reg), %r10d" (4 bytes)
 * the trap handler reads back to report a mismatch: neither may change.
 */
static bool is_cfi_check(struct insn *insn, unsigned long addr)
{
	unsigned long trap;

	if (!IS_ENABLED(CONFIG_CFI_CLANG))
		return false;
	switch (insn->opcode.value) {
	case 0xba:
		trap = addr + 12;
		break;
	case 0x03:
		trap = addr + 6;
		break;
	default:
		return false;
	}
	return is_cfi_trap(trap);
}

/*
 * Instructions no kprobe may sit on (see the top of this file), with the
 * error 6.12 gives for each: -EILSEQ for the ones that raise an exception
 * on purpose, -EINVAL for what cannot be copied, -EOPNOTSUPP for
 * transfers that cannot be emulated.  hlt is ours to refuse (6.12 ran it
 * with interrupts off, which stops the CPU until an NMI).
 */
static int refusal(struct insn *insn)
{
	u8 op0 = insn->opcode.bytes[0], op1 = insn->opcode.bytes[1];
	u8 modrm = insn->modrm.bytes[0];

	if (insn_has_emulate_prefix(insn) || insn_masking_exception(insn))
		return -EINVAL;
	/* The opcode bytes of these name another map: nothing below. */
	if (insn_is_avx(insn) || insn_is_rex2(insn))
		return 0;

	if (insn->opcode.nbytes == 1) {
		switch (op0) {
		case 0xcc: case 0xcd: case 0xce: case 0xf1:	/* int* */
			return -EILSEQ;
		case 0xf4:					/* hlt */
		case 0xcf: case 0xca: case 0xcb:		/* iret, lret */
		case 0x9a: case 0xea:				/* far */
			return -EOPNOTSUPP;
		case 0xff:
			/* call far, jmp far; near ones through memory */
			switch (X86_MODRM_REG(modrm)) {
			case 3: case 5:
				return -EOPNOTSUPP;
			case 2: case 4:
				return X86_MODRM_MOD(modrm) != 3 ? -EOPNOTSUPP : 0;
			}
			return 0;
		case 0xc7:					/* xbegin */
			return modrm == 0xf8 ? -EOPNOTSUPP : 0;
		}
		return 0;
	}

	if (op0 != 0x0f)
		return 0;
	switch (op1) {
	case 0x0b: case 0xb9: case 0xff:			/* ud2/1/0 */
		return -EILSEQ;
	case 0x05: case 0x07: case 0x34: case 0x35:		/* sys* */
		return -EOPNOTSUPP;
	case 0x01:
		/* vmcall & co. (/0) and the SVM ones (/3), register forms */
		if (X86_MODRM_MOD(modrm) == 3 &&
		    (X86_MODRM_REG(modrm) == 0 || X86_MODRM_REG(modrm) == 3))
			return -EOPNOTSUPP;
	}
	return 0;
}

/**
 * __copy_instruction() - copy one instruction to run at another address
 * @dest: MAX_INSN_SIZE bytes that receive the copy
 * @src: the instruction's address in the text
 * @real: where the copy will run (a %rip-relative operand is rebased on it)
 * @insn: receives the decoded copy
 *
 * Return: the instruction's length, or 0 when it cannot be copied: text
 * unreadable or not decodable, an int3 of someone else's, an instruction
 * with an emulation prefix or one that masks an exception, or a
 * %rip-relative operand that would be out of reach from @real.
 */
int __copy_instruction(u8 *dest, u8 *src, u8 *real, struct insn *insn)
{
	kprobe_opcode_t buf[MAX_INSN_SIZE];
	unsigned long at = recover_probed_instruction(buf, (unsigned long)src);
	s64 disp;

	if (!at || !insn ||
	    copy_from_kernel_nofault(dest, (void *)at, MAX_INSN_SIZE) ||
	    insn_decode_kernel(insn, dest) < 0)
		return 0;
	if (insn_has_emulate_prefix(insn) || insn_masking_exception(insn) ||
	    insn->opcode.bytes[0] == INT3_INSN_OPCODE)
		return 0;

	if (insn_rip_relative(insn)) {
		/* The operand's address must stay what it was at @src. */
		disp = (s64)(src - real) + insn->displacement.value;
		if (disp != (s32)disp) {
			pr_err("kprobes: %pS: operand out of reach of the copy\n",
			       src);
			return 0;
		}
		memcpy(dest + insn_offset_displacement(insn), &(s32){ disp },
		       sizeof(s32));
	}
	return insn->length;
}

/**
 * can_boost() - may an instruction run elsewhere, interrupts on, and go
 * on to a jump back?
 * @insn: the instruction, decoded
 * @addr: where it is in the text
 *
 * The jump optimizer's test for each instruction it moves into a detour
 * buffer.  No: instructions the exception table covers (their fixup is
 * keyed by the original address), control transfers (they would leave the
 * buffer or need rebasing), anything refused for kprobes or emulated
 * because of the interrupt flag, string and locked forms (kept out, as
 * 6.12 does), and two-byte opcodes other than the plain computational
 * ones listed below.
 *
 * Return: true when the instruction may be moved.
 */
bool can_boost(struct insn *insn, void *addr)
{
	u8 op0 = insn->opcode.bytes[0], op1 = insn->opcode.bytes[1];
	u8 reg = X86_MODRM_REG(insn->modrm.bytes[0]);
	insn_byte_t pfx;
	int i;

	if (search_exception_tables((unsigned long)addr) || refusal(insn))
		return false;
	/* Kept out of jump buffers, as 6.12 does. */
	if (insn_is_avx(insn) || insn_is_rex2(insn))
		return false;

	for_each_insn_prefix(insn, i, pfx) {
		/* cs: (also a branch hint), address size, lock, rep */
		if (pfx == 0x2e || pfx == 0x67 || pfx == 0xf0 ||
		    pfx == 0xf2 || pfx == 0xf3)
			return false;
	}

	if (insn->opcode.nbytes == 2 && op0 == 0x0f) {
		switch (op1) {
		case 0x18 ... 0x1f:	/* prefetch, hint NOPs */
		case 0x31:		/* rdtsc */
		case 0x40 ... 0x4f:	/* cmovcc */
		case 0x90 ... 0x9f:	/* setcc */
		case 0xa3: case 0xab: case 0xb3: case 0xbb: case 0xba:
		case 0xa4: case 0xa5: case 0xac: case 0xad:
		case 0xaf:		/* bt*, shld/shrd, imul */
		case 0xb6: case 0xb7: case 0xbe: case 0xbf:
		case 0xbc: case 0xbd:	/* movzx/movsx, bsf/bsr */
		case 0xc8 ... 0xcf:	/* bswap */
			return true;
		}
		return false;
	}
	if (insn->opcode.nbytes != 1)
		return false;

	switch (op0) {
	case 0x70 ... 0x7f:		/* jcc */
	case 0xe0 ... 0xe3:		/* loop*, jrcxz */
	case 0xe8: case 0xe9: case 0xeb:	/* call, jmp */
	case 0xc2: case 0xc3:		/* ret */
	case 0x9c: case 0x9d:		/* pushf, popf */
	case 0xfa: case 0xfb:		/* cli, sti */
	case 0x62: case 0xd6:		/* bound / EVEX, reserved */
	case 0xd8 ... 0xdf:		/* x87 */
	case 0x6c ... 0x6f:		/* ins, outs */
	case 0xa4 ... 0xa7:		/* movs, cmps */
	case 0xaa ... 0xaf:		/* stos, lods, scas */
		return false;
	case 0xc0: case 0xc1: case 0xd0 ... 0xd3:
		return reg != 6;	/* /6 is reserved on Intel */
	case 0xf6: case 0xf7:
		return reg != 1;	/* /1 likewise */
	case 0xfe:
		return reg <= 1;	/* inc, dec */
	case 0xff:
		return reg <= 1;	/* inc, dec */
	}
	return true;
}

/**
 * kprobe_decode_probed() - check and sort the instruction at a kprobe
 * @p: the probe; p->addr is where it goes
 * @insn: receives the decoded original instruction
 * @buf: MAX_INSN_SIZE bytes that receive the original instruction
 *
 * Context: kprobe_mutex held.
 *
 * Return: 0 when the instruction may be probed (@p->ainsn.kind and its
 * operands filled in when it is emulated), -EILSEQ when @p->addr is not
 * an instruction boundary, the text there cannot be read or the
 * instruction raises an exception on purpose, -EINVAL or -EOPNOTSUPP when
 * it is refused otherwise.
 */
int kprobe_decode_probed(struct kprobe *p, struct insn *insn, u8 *buf)
{
	unsigned long addr = (unsigned long)p->addr;
	kprobe_opcode_t scratch[MAX_INSN_SIZE];
	unsigned long at;
	int err;

	if (!on_insn_boundary(addr))
		return -EILSEQ;
	at = recover_probed_instruction(scratch, addr);
	if (!at || copy_from_kernel_nofault(buf, (void *)at, MAX_INSN_SIZE) ||
	    insn_decode_kernel(insn, buf) < 0)
		return -EILSEQ;
	if (is_cfi_check(insn, addr))
		return -EILSEQ;
	err = refusal(insn);
	if (err)
		return err;
	return kprobe_emul_prepare(p, insn);
}

/**
 * alloc_insn_page() - a page for instruction slots
 *
 * Executable and read-only from the start; slots are written with
 * text_poke().
 *
 * Return: the page, or NULL.
 */
void *alloc_insn_page(void)
{
	void *page = execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);

	if (page)
		set_memory_rox((unsigned long)page, 1);
	return page;
}
