/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kprobes core (kprobes.c) offers the kprobe event layer beyond
 * <linux/kprobes.h>: enabling and disabling an array of probes as one
 * batch, so that the probes on call sites cost one change of each
 * call-site ftrace_ops' filter together instead of one each.  Not an
 * interface for modules: kernel/trace/trace_kprobe.c and its KUnit suite
 * are its only users (workbench/layers.list keeps it so).
 */
#ifndef _KERNEL_KPROBES_ARRAY_H
#define _KERNEL_KPROBES_ARRAY_H

struct kprobe;

int enable_kprobes(struct kprobe **kps, int num);
int disable_kprobes(struct kprobe **kps, int num);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * struct kprobes_array_stats - what the array calls have done since boot
 * @calls: enable_kprobes() and disable_kprobes() calls that took their
 *	batch (all but those refused for @num <= 0)
 * @site_changes: updates of the call sites those calls made themselves
 *	(kprobes_arm.c counts them): one per call-site ops whose filter a
 *	call changed, more if the batch's queue filled up before its end or
 *	a removal fell back to one site at a time
 * @unregister_waits: grace periods that unregister_kprobes() and
 *	unregister_kretprobes() (and their one-probe forms) waited for: one
 *	per call that took a batch, so a caller that hands N probes over
 *	one at a time shows N
 *
 * All are counted under kprobe_mutex, by each call for itself, so what
 * other users of kprobes change meanwhile is not in them.  Every caller
 * of the enable and disable array calls holds event_mutex, so the
 * differences of @calls and @site_changes between two reads under one
 * hold of event_mutex are exactly what was done in between.  Any user
 * of kprobes may unregister at any time, so @unregister_waits is exact
 * only while nothing else does (a KUnit case's own window).
 */
struct kprobes_array_stats {
	unsigned long	calls;
	unsigned long	site_changes;
	unsigned long	unregister_waits;
};

void kprobes_array_get_stats(struct kprobes_array_stats *st);
#endif

#endif /* _KERNEL_KPROBES_ARRAY_H */
