/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What trace_fprobe_kunit.c needs from outside its own file: the "f"/"t"
 * type of dynamic event (to define and remove through dyn_event_create()
 * and dyn_event_release()) and its probed function, which has a call site.
 */
#ifndef _KERNEL_TRACE_FPROBE_KUNIT_H
#define _KERNEL_TRACE_FPROBE_KUNIT_H

#if IS_ENABLED(CONFIG_KUNIT)
/* trace_fprobe.c, VISIBLE_IF_KUNIT */
extern struct dyn_event_operations tfp_dyn_ops;
#endif

/* trace_fprobe_kunit.c */
int tfpk_target(int a, long b);

#endif /* _KERNEL_TRACE_FPROBE_KUNIT_H */
