/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Return probes: the front (kretprobes.c) and the backend it runs on, one
 * of, by config:
 *   kretprobes_fgraph.c    the function graph's shadow stack
 *                          (CONFIG_KRETPROBE_ON_FGRAPH: x86-64 and arm64
 *                          with the function graph tracer)
 *   kretprobes_rethook.c   rethook (CONFIG_KRETPROBE_ON_RETHOOK: x86
 *                          without the function graph tracer)
 *   kretprobes_tasklist.c  per-task lists and the arch's trampoline
 *                          (arm64 without the function graph tracer)
 *
 * The front calls the backend in this order: kretprobe_pool_create()
 * before the kprobe is registered; kretprobe_hit() as its pre_handler;
 * kretprobe_pool_detach() under kprobe_mutex once the kprobe is out of
 * the table; kretprobe_pool_release() after the grace period that
 * follows (or at once if the kprobe never got registered).
 */
#ifndef _KERNEL_KRETPROBES_INTERNAL_H
#define _KERNEL_KRETPROBES_INTERNAL_H

#include "kprobes_core.h"

/* --- return probes (kretprobes.c and one backend) --- */

#ifdef CONFIG_KRETPROBES
bool kprobe_is_retprobe(struct kprobe *p);

/* The backend (one of the three files above). */
int kretprobe_hit(struct kprobe *p, struct pt_regs *regs);
int kretprobe_pool_create(struct kretprobe *rp);
void kretprobe_pool_detach(struct kretprobe *rp);
void kretprobe_pool_release(struct kretprobe *rp);
#if defined(CONFIG_KRETPROBE_ON_FGRAPH) && \
	defined(CONFIG_HAVE_KRETPROBE_RETURN_HANDLER)
/*
 * kretprobes_fgraph.c: the C half of the arch's kretprobe_return_handler,
 * called with the pt_regs it built for a hooked return.  Bound at link
 * time: an entry point of the layering (workbench/layers.list).
 */
void kretprobe_return(struct pt_regs *regs);
#endif
#else
static inline bool kprobe_is_retprobe(struct kprobe *p)
{
	return false;
}
#endif

#endif /* _KERNEL_KRETPROBES_INTERNAL_H */
