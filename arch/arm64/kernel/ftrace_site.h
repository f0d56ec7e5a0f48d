/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One arm64 call site, as the batch patcher (ftrace_batch.c) needs to know
 * it: where its ops literal is, which instruction its BL slot holds for a
 * given target, and the check that a slot holds what it should.  The site
 * layer (ftrace.c) defines these; the patch layer above only uses them.
 *
 * Rules: none of these writes text.  arm64_site_check() may set
 * ftrace_expected for the ftrace_bug() report that follows a mismatch, so
 * it runs under ftrace_lock like every other user of that pointer.
 */
#ifndef _ARM64_KERNEL_FTRACE_SITE_H
#define _ARM64_KERNEL_FTRACE_SITE_H

#include <linux/align.h>
#include <linux/types.h>

#include <asm/insn.h>

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
/*
 * The literal of the site whose BL slot is @ip: the 8-aligned word 12 bytes
 * (no BTI) or 16 bytes (BTI) before the slot, i.e. 16 bytes below ip + 4
 * rounded down to 8.  ftrace_caller finds it the same way from its return
 * address.
 */
static inline unsigned long arm64_site_literal(unsigned long ip)
{
	return ALIGN_DOWN(ip + AARCH64_INSN_SIZE, 8) - 16;
}
#endif

u32 arm64_site_insn(unsigned long ip, unsigned long addr);
int arm64_site_check(unsigned long addr, u32 expect);

#endif /* _ARM64_KERNEL_FTRACE_SITE_H */
