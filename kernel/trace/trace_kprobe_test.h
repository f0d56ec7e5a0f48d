/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks of the kprobe event layer (trace_kprobe.c) for its KUnit suite
 * (trace_kprobe_kunit.c), built only with CONFIG_TRACE_KPROBE_KUNIT_TEST.
 * They take event_mutex (and dyn_event_ops_mutex for commands) themselves.
 *
 * tk_test_run():	run one kprobe_events line; its return value
 * tk_test_call():	the event GROUP/EVENT, or NULL
 * tk_test_listing():	GROUP/EVENT's first kprobe_events line into a buffer
 * tk_test_counts():	GROUP/EVENT's first probe's hits and misses, as
 *			kprobe_profile shows them
 */
#ifndef _KERNEL_TRACE_KPROBE_TEST_H
#define _KERNEL_TRACE_KPROBE_TEST_H

#include <linux/types.h>

struct pt_regs;
struct trace_event_call;

#if IS_ENABLED(CONFIG_TRACE_KPROBE_KUNIT_TEST)
int tk_test_run(const char *cmd);
struct trace_event_call *tk_test_call(const char *group, const char *event);
int tk_test_listing(const char *group, const char *event, char *buf,
		    size_t size);
int tk_test_store_args(const char *group, const char *event,
		       struct pt_regs *regs, void *quick, void *slow,
		       size_t size);
int tk_test_counts(const char *group, const char *event, unsigned long *hits,
		   unsigned long *missed);
#endif

#endif /* _KERNEL_TRACE_KPROBE_TEST_H */
