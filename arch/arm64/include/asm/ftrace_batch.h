/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64's part of the call-site batch patcher (<linux/ftrace_batch.h>): a
 * site change is at most its ops literal (CALL_OPS) and its BL slot,
 * written in two steps, literals first, with no sync in between and one
 * IPI round at the end; each write goes through the fixmap one page at a
 * time (aarch64_insn_poke_custom()).  arch/arm64/kernel/ftrace_batch.c
 * implements the hooks of a whole update.  The per-site hooks are inline
 * here, since the core runs them for every site of an update; the site
 * layer (arch/arm64/kernel/ftrace.c) supplies the two things they need
 * out of line: a site's instruction for a target, and the checked read
 * behind a mismatch report.
 */
#ifndef _ASM_ARM64_FTRACE_BATCH_H
#define _ASM_ARM64_FTRACE_BATCH_H

#ifndef _LINUX_FTRACE_BATCH_H
#error "include <linux/ftrace_batch.h>, not <asm/ftrace_batch.h>"
#endif

#include <linux/align.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/types.h>

#include <asm/byteorder.h>
#include <asm/insn-def.h>
#include <asm/page-def.h>

struct ftrace_ops;

/*
 * The site layer's helpers (arch/arm64/kernel/ftrace.c).  None of them
 * writes text.
 *
 * arm64_site_literal(): where the ops literal of the site whose BL slot is
 * @ip sits (CALL_OPS): the 8-aligned word 12 bytes (no BTI) or 16 bytes
 * (BTI) before the slot, i.e. 16 bytes below ip + 4 rounded down to 8.
 * ftrace_caller finds it the same way from its return address.
 *
 * arm64_site_insn(): the instruction of the BL slot at @ip for the target
 * @addr (0: the NOP), or AARCH64_BREAK_FAULT if no branch from @ip reaches
 * it.  ftrace_lock held (a module's PLTs stay).
 *
 * arm64_site_check(): does the slot at @addr hold @expect?  0, -EFAULT
 * if it cannot be read, or -EINVAL with ftrace_expected set for the
 * ftrace_bug() report that follows (so under ftrace_lock).
 */
static inline unsigned long arm64_site_literal(unsigned long ip)
{
	return ALIGN_DOWN(ip + AARCH64_INSN_SIZE, 8) - 16;
}

u32 arm64_site_insn(unsigned long ip, unsigned long addr);
int arm64_site_check(unsigned long addr, u32 expect);

/**
 * struct ftrace_arch_site - arm64's part of a site of the batch
 * @ops: the new literal; NULL if the literal keeps what it holds
 * @old_insn: what the BL slot holds
 * @insn: what it gets
 * @set_insn: @insn differs from @old_insn
 * @literal_off: how far below the BL slot the literal is when @ops is set
 *		 (12 or 16), else 0
 */
struct ftrace_arch_site {
	const struct ftrace_ops	*ops;
	u32			old_insn;
	u32			insn;
	bool			set_insn;
	u8			literal_off;
};

/* The steps: the literals, then the BL slots that make them reachable. */
#define FTRACE_BATCH_ARM64_LITERALS	0
#define FTRACE_BATCH_ARM64_INSNS	1
#define FTRACE_BATCH_NR_STEPS		2
#define FTRACE_BATCH_SYNC_STEPS		0

/* aarch64_insn_poke_custom() maps one page at a time. */
#define FTRACE_BATCH_SPAN_MAX		PAGE_SIZE
#define FTRACE_BATCH_STEP_SIZE(step)					\
	((step) == FTRACE_BATCH_ARM64_LITERALS ? sizeof(u64) : AARCH64_INSN_SIZE)
/* The literals and the BL slots are different words: a grouping per step. */
#define FTRACE_BATCH_SAME_SPANS		0

/*
 * ftrace_arch_site_encode(): the BL slot's old and new instruction, and the
 * literal the core says must change (none without CALL_OPS, where @c->ops
 * is always NULL).  A site that keeps its target keeps its instruction.
 */
static __always_inline int
ftrace_arch_site_encode(struct ftrace_arch_site *a, unsigned long ip,
			const struct ftrace_batch_change *c)
{
	a->old_insn = arm64_site_insn(ip, c->old);
	a->insn = c->new == c->old ? a->old_insn : arm64_site_insn(ip, c->new);
	if (a->insn == AARCH64_BREAK_FAULT || a->old_insn == AARCH64_BREAK_FAULT)
		return -EINVAL;
	a->set_insn = a->insn != a->old_insn;
	a->ops = c->ops;
	a->literal_off = c->ops ? ip - arm64_site_literal(ip) : 0;
	if (!a->set_insn && !a->ops)
		return FTRACE_BATCH_SAME;
	return FTRACE_BATCH_STEPS;
}

/*
 * ftrace_arch_site_check(): does the BL slot hold its old instruction?
 * Read directly, without a call: every slot was read with a fault check
 * when its site was first made ready (ftrace_init_nop()), and text stays
 * mapped while its records exist.  A mismatch is read again, checked, and
 * reported out of line.
 */
static __always_inline int
ftrace_arch_site_check(const struct ftrace_arch_site *a, unsigned long ip)
{
	if (likely(le32_to_cpu(READ_ONCE(*(const __le32 *)ip)) == a->old_insn))
		return 0;
	return arm64_site_check(ip, a->old_insn);
}

/*
 * ftrace_arch_site_where(): the word a site changes in a step, its literal
 * or its BL slot; 0 if that word keeps its value.
 */
static __always_inline unsigned long
ftrace_arch_site_where(const struct ftrace_arch_site *a, unsigned long ip,
		       unsigned int step)
{
	if (step == FTRACE_BATCH_ARM64_LITERALS)
		return a->literal_off ? ip - a->literal_off : 0;
	return a->set_insn ? ip : 0;
}

#endif /* _ASM_ARM64_FTRACE_BATCH_H */
