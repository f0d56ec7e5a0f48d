/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Return probes: the front (kretprobes.c) and the backend it runs on,
 * rethook (kretprobes_rethook.c) or per-task lists
 * (kretprobes_tasklist.c).
 */
#ifndef _KERNEL_KRETPROBES_INTERNAL_H
#define _KERNEL_KRETPROBES_INTERNAL_H

#include "kprobes_core.h"

/* --- return probes (kretprobes.c and one backend) --- */

#ifdef CONFIG_KRETPROBES
bool kprobe_is_retprobe(struct kprobe *p);

/* The backend: rethook (kretprobes_rethook.c) or per-task lists. */
int kretprobe_hit(struct kprobe *p, struct pt_regs *regs);
int kretprobe_pool_create(struct kretprobe *rp);
void kretprobe_pool_detach(struct kretprobe *rp);
void kretprobe_pool_release(struct kretprobe *rp);
#else
static inline bool kprobe_is_retprobe(struct kprobe *p)
{
	return false;
}
#endif

#endif /* _KERNEL_KRETPROBES_INTERNAL_H */
