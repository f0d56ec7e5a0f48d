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
 * A disarming batch (unregister_kprobes(), disable_kprobes()) queues
 * the breakpoint probes it disarms the same way and hands them to
 * arch_disarm_kprobes() before any of them leaves the table: a CPU that
 * finds a breakpoint must find its probe, so the breakpoints are out of
 * the text, and every CPU has seen that, before the core takes a probe
 * out.  Until then a hit on one runs it as if it were still enabled.
 *
 * The core calls arch_remove_kprobe() on a probe whose breakpoint was
 * never written, or a grace period (synchronize_rcu(), or
 * synchronize_rcu_tasks() for a jump) after it left the text and the
 * probe left the table, with one exception: a GONE probe (kprobe_gone()),
 * whose text went away, is removed at once.  An arch whose copied
 * instructions run with interrupts masked may therefore give their slot
 * back clean unless the probe is GONE.
 */
#ifndef _LINUX_KPROBE_BATCH_H
#define _LINUX_KPROBE_BATCH_H

struct kprobe;

void arch_arm_kprobes(struct kprobe **ps, unsigned int n);
void arch_disarm_kprobes(struct kprobe **ps, unsigned int n);

#endif /* _LINUX_KPROBE_BATCH_H */
