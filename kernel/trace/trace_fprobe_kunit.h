/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What trace_fprobe_kunit.c needs from outside its own file: the "f"/"t"
 * type of dynamic event (to define and remove through dyn_event_create()
 * and dyn_event_release()) and its probed function, which has a call site.
 */
#ifndef _KERNEL_TRACE_FPROBE_KUNIT_H
#define _KERNEL_TRACE_FPROBE_KUNIT_H

/* trace_fprobe_parse.c; the layer's files share it through trace_fprobe.h */
extern struct dyn_event_operations tfp_dyn_ops;

/* trace_fprobe_kunit.c */
int tfpk_target(int a, long b);

#endif /* _KERNEL_TRACE_FPROBE_KUNIT_H */
