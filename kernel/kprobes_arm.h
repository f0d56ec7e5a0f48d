/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arming and disarming one probe, or all of them (kprobes_arm.c).
 */
#ifndef _KERNEL_KPROBES_ARM_H
#define _KERNEL_KPROBES_ARM_H

#include "kprobes_opt.h"

/* --- arm (kprobes_arm.c) --- */

int kprobe_arm(struct kprobe *p);
int kprobe_disarm(struct kprobe *p, bool reopt);
int kprobe_ftrace_sync_ops(struct kprobe *ap);
void kprobe_disarm_gone(struct kprobe *p);
int kprobes_arm_all(void);
int kprobes_disarm_all(void);

#endif /* _KERNEL_KPROBES_ARM_H */
