/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64's part of the call-site batch patcher (<linux/ftrace_batch.h>): a
 * site change is at most its ops literal (CALL_OPS) and its BL slot,
 * written in two steps, literals first, with no sync in between and one
 * IPI round at the end; each write goes through the fixmap one page at a
 * time (aarch64_insn_poke_custom()).  arch/arm64/kernel/ftrace_batch.c
 * implements the hooks; where() is inline here, encode() and check() (a
 * branch encoding and a read of the text) are out of line.
 */
#ifndef _ASM_ARM64_FTRACE_BATCH_H
#define _ASM_ARM64_FTRACE_BATCH_H

#ifndef _LINUX_FTRACE_BATCH_H
#error "include <linux/ftrace_batch.h>, not <asm/ftrace_batch.h>"
#endif

#include <linux/compiler.h>
#include <linux/types.h>

#include <asm/insn-def.h>
#include <asm/page-def.h>

struct dyn_ftrace;
struct ftrace_ops;

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

int ftrace_arch_site_encode(struct ftrace_arch_site *a, unsigned long ip,
			    struct dyn_ftrace *rec, unsigned long old,
			    unsigned long new);
int ftrace_arch_site_check(const struct ftrace_arch_site *a, unsigned long ip);

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
