/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86's part of the call-site batch patcher (<linux/ftrace_batch.h>): a
 * site is 5 bytes, written with the int3 protocol in three steps, each
 * followed by a sync but the last of a round, under mappings of up to 16
 * pages (text_poke_custom()).  arch/x86/kernel/ftrace_batch.c implements
 * the hooks.
 */
#ifndef _ASM_X86_FTRACE_BATCH_H
#define _ASM_X86_FTRACE_BATCH_H

#include <linux/types.h>

#include <asm/ftrace.h>
#include <asm/page_types.h>

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

/*
 * Every step writes at a site's first byte or after it, so a step's spans
 * start at the sites.  A macro, so that the core's walks over all the
 * sites of an update need no call per site.
 */
#define ftrace_arch_batch_where(s, step)	((void)(step), (s)->ip)

#endif /* _ASM_X86_FTRACE_BATCH_H */
