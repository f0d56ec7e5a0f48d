/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private interface of the kprobe event layer (trace_kprobe.c): the probe
 * object, and the functions its KUnit suite (trace_kprobe_kunit.c) calls.
 * No other part of the kernel includes it: the rest of the kernel sees the
 * layer through trace_probe.h and include/linux/trace_events.h.
 *
 * Locks: event_mutex guards the dyn_event list, the sibling lists, the
 * registration state and the arming of every probe; parsing also holds
 * dyn_event_ops_mutex.  Each function below says what it needs.
 */
#ifndef _KERNEL_TRACE_KPROBE_H
#define _KERNEL_TRACE_KPROBE_H

#include <linux/kprobes.h>
#include <linux/types.h>

#include "trace_dynevent.h"
#include "trace_probe.h"

/*
 * One probe point of a kprobe event.  @rp.kp is the kprobe of an entry
 * probe and the entry kprobe of a return probe (whose @rp.handler is set).
 * @symbol is "[MOD:]SYM" as written (without +OFFS), NULL for a probe on
 * a raw address; @rp.kp.symbol_name points to it.  @registered tells
 * whether the kprobes core holds @rp (event_mutex).
 */
struct trace_kprobe {
	struct dyn_event	devent;		/* on dyn_event_list */
	struct kretprobe	rp;
	unsigned long __percpu	*nhit;		/* hits, armed or not */
	char			*symbol;
	bool			is_return;
	bool			registered;
	struct trace_probe	tp;		/* last: has args[] */
};

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * For the KUnit suite (trace_kprobe_kunit.c) only; static when KUnit is
 * not built (VISIBLE_IF_KUNIT).
 */
unsigned long tk_hits(struct trace_kprobe *tk);
unsigned long tk_missed(struct trace_kprobe *tk);
struct trace_kprobe *tk_find(const char *event, const char *group);
int tk_events_run(const char *cmd);
int tk_dyn_show(struct seq_file *m, struct dyn_event *ev);

#if IS_ENABLED(CONFIG_TRACE_KPROBE_KUNIT_TEST)
/* built with the suite only */
int tk_store_args_twice(struct trace_kprobe *tk, struct pt_regs *regs,
			void *quick, void *slow, size_t size);
#endif
#endif /* CONFIG_KUNIT */

#endif /* _KERNEL_TRACE_KPROBE_H */
