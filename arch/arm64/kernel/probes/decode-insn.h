/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 probes: how a probed instruction is run once its breakpoint hits.
 *
 * Shared by kprobes and uprobes.  The decoder sorts an A64 instruction
 * into one of three outcomes:
 *   INSN_GOOD          a copy of it may run out of line (the XOL slot);
 *   INSN_GOOD_NO_SLOT  it reads the pc, so a simulator runs it instead
 *                      and ->handler of the struct arch_probe_insn is set;
 *   INSN_REJECTED      neither is safe: the probe is refused.
 */
#ifndef __ARM64_KERNEL_PROBES_DECODE_INSN_H
#define __ARM64_KERNEL_PROBES_DECODE_INSN_H

#include <asm/kprobes.h>
#include <asm/probes.h>

enum probe_insn {
	INSN_REJECTED,
	INSN_GOOD_NO_SLOT,
	INSN_GOOD,
};

/*
 * How far back from a kprobe the decoder looks for an open exclusive
 * load (LDXR and friends): the architecture only promises forward
 * progress to an exclusive pair no more than 128 bytes apart.
 */
#define ARM64_KPROBE_LLSC_WINDOW	(128 / AARCH64_INSN_SIZE)

enum probe_insn arm_probe_decode_insn(probe_opcode_t insn,
				      struct arch_probe_insn *api);

#ifdef CONFIG_KPROBES
enum probe_insn arm64_kprobe_classify(probe_opcode_t insn,
				      struct arch_probe_insn *api);
enum probe_insn arm_kprobe_decode_insn(kprobe_opcode_t *addr,
				       struct arch_specific_insn *asi);
#endif

#endif /* __ARM64_KERNEL_PROBES_DECODE_INSN_H */
