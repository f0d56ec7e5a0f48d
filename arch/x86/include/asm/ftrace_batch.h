/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86's part of the call-site batch patcher (<linux/ftrace_batch.h>): a
 * site is 5 bytes, written with the int3 protocol in three steps, each
 * followed by a sync but the last of a round, under mappings of up to 16
 * pages (text_poke_custom()).  The per-site hooks are inline here, since
 * the core runs them for every site of an update: encoding is a NOP copy
 * or a call's displacement, the check and where() are a few loads.
 * arch/x86/kernel/ftrace_batch.c implements the other hooks.
 */
#ifndef _ASM_X86_FTRACE_BATCH_H
#define _ASM_X86_FTRACE_BATCH_H

#ifndef _LINUX_FTRACE_BATCH_H
#error "include <linux/ftrace_batch.h>, not <asm/ftrace_batch.h>"
#endif

#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/unaligned.h>

#include <asm/ftrace.h>
#include <asm/nops.h>
#include <asm/page_types.h>
#include <asm/text-patching.h>

/**
 * struct ftrace_arch_site - x86's part of a site of the batch
 * @old: the 5 bytes the site holds
 * @new: the 5 bytes it gets
 * @trapped: the patching task hit our int3 there (set by the int3 handler)
 */
struct ftrace_arch_site {
	u8	old[MCOUNT_INSN_SIZE];
	u8	new[MCOUNT_INSN_SIZE];
	u8	trapped;
};

/* The steps: int3 on the first byte, the bytes after it, the first byte. */
#define FTRACE_BATCH_X86_TRAP		0
#define FTRACE_BATCH_X86_TAIL		1
#define FTRACE_BATCH_X86_HEAD		2
#define FTRACE_BATCH_NR_STEPS		3
#define FTRACE_BATCH_SYNC_STEPS		1

/* text_poke_custom() maps up to 16 pages with one switch to the poking mm. */
#define FTRACE_BATCH_SPAN_MAX		(16 * PAGE_SIZE)
#define FTRACE_BATCH_STEP_SIZE(step)	MCOUNT_INSN_SIZE
/* Every step writes within the site's 5 bytes: one grouping serves all. */
#define FTRACE_BATCH_SAME_SPANS		1

/* A site's 5 bytes are compared as a word and a byte. */
static_assert(MCOUNT_INSN_SIZE - 1 == sizeof(u32));

/* Do the 5 bytes at @p equal @insn?  Two loads each, no call. */
static __always_inline bool ftrace_arch_insn_eq(const u8 *p, const u8 *insn)
{
	return get_unaligned((const u32 *)p) ==
	       get_unaligned((const u32 *)insn) && p[4] == insn[4];
}

/* The 5 bytes of the site at @ip when it calls @target (0: the NOP). */
static __always_inline void ftrace_arch_site_insn(u8 *insn, unsigned long ip,
						  unsigned long target)
{
	if (!target) {
		memcpy(insn, x86_nops[MCOUNT_INSN_SIZE], MCOUNT_INSN_SIZE);
		return;
	}
	__text_gen_insn(insn, CALL_INSN_OPCODE, (void *)ip, (void *)target,
			CALL_INSN_SIZE);
}

/*
 * ftrace_arch_site_encode(): the old and new 5 bytes of the site at @ip.
 * Two targets give the same bytes only if they are the same target (a
 * call is never the NOP, and calls from one site differ in their
 * displacement), so the targets are compared, not the bytes.
 */
static __always_inline int
ftrace_arch_site_encode(struct ftrace_arch_site *a, unsigned long ip,
			const struct ftrace_batch_change *c)
{
	ftrace_arch_site_insn(a->old, ip, c->old);
	ftrace_arch_site_insn(a->new, ip, c->new);
	a->trapped = 0;
	return c->old == c->new ? FTRACE_BATCH_SAME : FTRACE_BATCH_STEPS;
}

int ftrace_arch_site_mismatch(const struct ftrace_arch_site *a);

/*
 * ftrace_arch_site_check(): does the site hold its old bytes?  Read
 * directly, without a call: each site was read with a fault check when it
 * was NOPed, and text stays mapped while its records exist.  A mismatch
 * sets ftrace_expected out of line.
 */
static __always_inline int
ftrace_arch_site_check(const struct ftrace_arch_site *a, unsigned long ip)
{
	if (likely(ftrace_arch_insn_eq((const u8 *)ip, a->old)))
		return 0;
	return ftrace_arch_site_mismatch(a);
}

/*
 * ftrace_arch_site_where(): every step writes at a site's first byte or
 * after it, so a step's spans start at the sites.
 */
static __always_inline unsigned long
ftrace_arch_site_where(const struct ftrace_arch_site *a, unsigned long ip,
		       unsigned int step)
{
	return ip;
}

#endif /* _ASM_X86_FTRACE_BATCH_H */
