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
unsigned long kprobes_site_changes(void);
#endif

#endif /* _KERNEL_KPROBES_ARRAY_H */
