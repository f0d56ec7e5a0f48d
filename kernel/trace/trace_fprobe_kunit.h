/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What trace_fprobe_kunit.c needs from outside its own file: the "f"/"t"
 * type of dynamic event (to define and remove through dyn_event_create()
 * and dyn_event_release()) and its probed function, which has a call site.
 */
#ifndef _KERNEL_TRACE_FPROBE_KUNIT_H
#define _KERNEL_TRACE_FPROBE_KUNIT_H

struct dyn_event_operations;

struct dyn_event_operations *trace_fprobe_kunit_ops(void);
int tfpk_target(int a, long b);

#endif /* _KERNEL_TRACE_FPROBE_KUNIT_H */
