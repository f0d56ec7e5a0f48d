/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private interface between the files of the kprobe event layer.  No
 * other part of the kernel includes it: the rest of the kernel sees the
 * layer through trace_probe.h and include/linux/trace_events.h.
 *
 * Layering: a file calls functions of the files listed above it only,
 * never of one below it.
 *
 *	trace_kprobe.c		 trace_kprobe objects, their trace event
 *				 (fields, output, enable and disable) and the
 *				 hit path; calls none of the others
 *	trace_kprobe_register.c	 the probe point: symbol checks, kprobes
 *				 registration, publishing and removing a
 *				 probe, probes on modules
 *	trace_kprobe_parse.c	 a definition line, parsed and published
 *	trace_kprobe_files.c	 the dyn_event callbacks, kprobe_events,
 *				 kprobe_profile, the in-kernel dynevent API,
 *				 kprobe_event= and the initcalls
 *	trace_kprobe_perf.c	 the BPF queries and perf's local probes
 *	trace_kprobe_boottest.c	 the boot-time selftest
 *
 * trace_kprobe_ops, the dyn_event operations, is defined in
 * trace_kprobe_files.c with its callbacks; the files above it use only
 * its address, to make and recognise kprobe events.
 *
 * The hit path (the load stage, the record writers, the dispatchers) is
 * all in trace_kprobe.c, one translation unit, so that its static helpers
 * inline.  Of the hit path only tk_return_entry() is declared here: the
 * parser installs it as a kretprobe's entry handler, and the kprobes core
 * calls it through that pointer.  Nothing else here runs per hit.
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

#define KPROBE_EVENT_SYSTEM	"kprobes"

/*
 * One probe point of a kprobe event.  @rp.kp is the kprobe of an entry
 * probe and the entry kprobe of a return probe (whose @rp.handler is set).
 * @symbol is "[MOD:]SYM" as written (without +OFFS), NULL for a probe on
 * a raw address; @rp.kp.symbol_name points to it.  @registered tells
 * whether the kprobes core holds @rp (event_mutex).  @pending puts the
 * probe on an event batch's queue, of probes to arm at the batch's end
 * when @pending_arm is set, to disarm otherwise; it is empty when the
 * probe is not queued (event_mutex; trace_kprobe.c).  @reap puts a
 * removed probe on a list of probes to unregister together and free:
 * those a removal batch left for its end (event_mutex), perf's closed
 * local probes (trace_kprobe_perf.c), or all of them while every kprobe
 * event goes; it is empty otherwise.
 */
struct trace_kprobe {
	struct dyn_event	devent;		/* on dyn_event_list */
	struct kretprobe	rp;
	unsigned long __percpu	*nhit;		/* hits, armed or not */
	char			*symbol;
	struct list_head	pending;
	struct list_head	reap;
	bool			pending_arm;
	bool			is_return;
	bool			registered;
	struct trace_probe	tp;		/* last: has args[] */
};

extern struct dyn_event_operations trace_kprobe_ops;

/* The kprobe event behind @ev, or NULL when @ev is another kind's */
static inline struct trace_kprobe *tk_of_dyn(struct dyn_event *ev)
{
	if (ev->ops != &trace_kprobe_ops)
		return NULL;
	return container_of(ev, struct trace_kprobe, devent);
}

/* The first probe of the event behind @call, or NULL */
static inline struct trace_kprobe *tk_of_call(struct trace_event_call *call)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	return tp ? container_of(tp, struct trace_kprobe, tp) : NULL;
}

/* trace_kprobe.c: objects, trace event, hit path */
unsigned long tk_hits(struct trace_kprobe *tk);
unsigned long tk_missed(struct trace_kprobe *tk);
unsigned long tk_address(struct trace_kprobe *tk);
void tk_format_site(struct trace_kprobe *tk, char *buf, size_t size);
int tk_return_entry(struct kretprobe_instance *ri, struct pt_regs *regs);
void tk_setup_call(struct trace_kprobe *tk);
int tk_settle(void);
void tk_forget(struct trace_kprobe *tk);
void tk_batch_init(void);
void tk_free(struct trace_kprobe *tk);
struct trace_kprobe *tk_alloc(const char *group, const char *event,
			      void *addr, const char *symbol,
			      unsigned long offs, int maxactive,
			      int nargs, bool is_return);
struct trace_kprobe *tk_find(const char *event, const char *group);

/* trace_kprobe_register.c: the probe point, publishing, modules */
int tk_check_symbol(const char *spec);
int tk_register(struct trace_kprobe *tk);
void tk_unregister(struct trace_kprobe *tk);
void tk_unregister_list(struct list_head *list);
int tk_publish(struct trace_kprobe *tk);
int tk_remove(struct trace_kprobe *tk);
void tk_reap(void);
int tk_remove_all(void);
int tk_watch_modules(void);

/* trace_kprobe_parse.c: definitions */
int tk_dyn_create(const char *raw_command);
int tk_events_run(const char *cmd);

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * For the KUnit suite (trace_kprobe_kunit.c) only; static when KUnit is
 * not built (VISIBLE_IF_KUNIT).
 */

/* trace_kprobe_files.c */
int tk_dyn_show(struct seq_file *m, struct dyn_event *ev);

#if IS_ENABLED(CONFIG_TRACE_KPROBE_KUNIT_TEST)
/* trace_kprobe.c: built with the suite only */
int tk_store_args_twice(struct trace_kprobe *tk, struct pt_regs *regs,
			void *quick, void *slow, size_t size);
#endif
#endif /* CONFIG_KUNIT */

#endif /* _KERNEL_TRACE_KPROBE_H */
