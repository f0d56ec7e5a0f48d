/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kprobes core asks of an architecture, beyond <linux/kprobes.h>,
 * to write the breakpoints of many probes at once.
 *
 * An arming batch of the core (register_kprobes(), enable_kprobes())
 * puts each breakpoint probe in the table first and queues it; before the
 * batch lets go of the text locks it hands the queue to
 * arch_arm_kprobes(), which may write the breakpoints together and make
 * every CPU see them once.  Until then a queued probe is in the table
 * but its breakpoint may not be in the text: a CPU running the
 * instruction meanwhile runs it unprobed, as it would have before the
 * registration.
 *
 * Disarming is not batched: a breakpoint must be out of the text, seen by
 * every CPU, before its probe may leave the table, and the core takes a
 * probe out of the table as it disarms it.
 */
#ifndef _LINUX_KPROBE_BATCH_H
#define _LINUX_KPROBE_BATCH_H

struct kprobe;

void arch_arm_kprobes(struct kprobe **ps, unsigned int n);

#endif /* _LINUX_KPROBE_BATCH_H */
