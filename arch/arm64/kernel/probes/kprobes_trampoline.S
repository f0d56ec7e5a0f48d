/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 kretprobes: where a hooked return lands (see kretprobes.c).
 *
 * kretprobe_brk_handler() takes the BRK and resumes at the real return
 * address; a CPU that comes back here instead reports a BUG.  It lives in
 * .kprobes.text, where no kprobe may go.
 */
#include <linux/linkage.h>
#include <asm/asm-bug.h>
#include <asm/brk-imm.h>

	.pushsection	".kprobes.text", "ax"
SYM_CODE_START(__kretprobe_trampoline)
	brk	#KRETPROBES_BRK_IMM
	ASM_BUG()
SYM_CODE_END(__kretprobe_trampoline)
	.popsection
