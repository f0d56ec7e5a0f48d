/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private interface between the files of the fprobe and tracepoint probe
 * event layer.  No other part of the kernel includes it: the rest of the
 * kernel sees the layer through its dyn_event operations (tfp_dyn_ops)
 * and the trace events it registers.
 *
 * Layering: a file calls functions of the files listed above it only,
 * never of one below it.
 *
 *	trace_fprobe.c		trace_fprobe objects, their trace event
 *				(fields, output, enable and disable) and the
 *				hit path; calls none of the others
 *	trace_fprobe_site.c	hooking a definition onto its function or
 *				tracepoint, finding tracepoints, the
 *				tracepoint module notifier; calls none of the
 *				others either
 *	trace_fprobe_parse.c	a definition line parsed and published (a new
 *				event or a sibling), the dyn_event callbacks
 *				(tfp_dyn_ops) and the initcall
 *
 * tfp_dyn_ops is defined in trace_fprobe_parse.c with its callbacks; the
 * files above it use only its address, to make and recognise our events.
 *
 * The hit path (the load stage, the record writers, the fprobe handlers)
 * is all in trace_fprobe.c, one translation unit, so that its static
 * helpers inline.  Of the hit path only tfp_on_entry() is declared here:
 * the parser installs it as an exit probe's entry handler when the probe
 * saves arguments at entry, and fprobe calls it through that pointer.
 * The inline helpers below only convert pointers and test the site.
 *
 * Locks: event_mutex guards the dyn_event list, the sibling lists, every
 * probe's hooked state and its tracepoint fields (@tpoint, @tp_mod), and
 * the enabling of every event; parsing also holds dyn_event_ops_mutex.
 * The tracepoint module notifier takes event_mutex with the tracepoint
 * module list locked, so tracepoints are looked up before event_mutex is
 * taken, and tfp_module_gen tells a definition that a module came in
 * between.  The handlers run in fprobe context (preemption off, no
 * sleeping) and reach the trace instances under RCU.
 */
#ifndef _KERNEL_TRACE_FPROBE_H
#define _KERNEL_TRACE_FPROBE_H

#include <linux/fprobe.h>
#include <linux/kallsyms.h>
#include <linux/notifier.h>
#include <linux/tracepoint.h>
#include <linux/types.h>

#include "trace_dynevent.h"
#include "trace_probe.h"

/* Where a definition records. */
enum tfp_site {
	TFP_FUNC_ENTRY,		/* "f FUNCTION" */
	TFP_FUNC_EXIT,		/* "f FUNCTION%return" */
	TFP_TPOINT,		/* "t TRACEPOINT": entry of its stub */
};

/*
 * One definition.  @where, @site and @maxactive never change after
 * parsing.  @tpoint, @tp_mod and @hooked change under event_mutex only.
 * @tpoint is NULL for a tracepoint probe whose module is not loaded.
 */
struct trace_fprobe {
	struct dyn_event	devent;		/* on dyn_event_list */
	struct fprobe		fp;
	char			*where;		/* function or tracepoint name */
	enum tfp_site		site;
	unsigned int		maxactive;	/* N of "fN", shown only */
	struct tracepoint	*tpoint;
	struct module		*tp_mod;	/* owner of @tpoint, or NULL */
	bool			hooked;
	struct trace_probe	tp;		/* last: has args[] */
};

/*
 * What the words of a definition say before anything is allocated.  For a
 * tracepoint probe, @tpoint/@tp_mod are what the lookup found (NULL when
 * the tracepoint may come with a module) and @tp_mod holds a reference.
 */
struct tfp_spec {
	const char		*group;
	const char		*event;
	char			*where;		/* allocated */
	enum tfp_site		site;
	unsigned int		maxactive;
	struct tracepoint	*tpoint;
	struct module		*tp_mod;
	unsigned long		module_gen;	/* tfp_module_gen at lookup */
	char			group_buf[MAX_EVENT_NAME_LEN];
	char			event_buf[MAX_EVENT_NAME_LEN];
	char			stub_name[KSYM_NAME_LEN];
};

/* A tracepoint looked up by name (tfp_find_tracepoint()). */
struct tfp_tp_query {
	const char		*name;
	struct tracepoint	*found;
	struct module		*mod;		/* with a reference, or NULL */
};

/* trace_fprobe_parse.c: our type of dynamic event */
extern struct dyn_event_operations tfp_dyn_ops;

static inline struct trace_fprobe *tfp_from_dyn(struct dyn_event *ev)
{
	return container_of(ev, struct trace_fprobe, devent);
}

static inline struct trace_fprobe *tfp_from_tp(struct trace_probe *tp)
{
	return container_of(tp, struct trace_fprobe, tp);
}

/* @ev as one of ours, or NULL when it is another kind of dynamic event */
static inline struct trace_fprobe *tfp_of_dyn(struct dyn_event *ev)
{
	return ev->ops == &tfp_dyn_ops ? tfp_from_dyn(ev) : NULL;
}

static inline bool tfp_is_exit(struct trace_fprobe *tf)
{
	return tf->site == TFP_FUNC_EXIT;
}

/* trace_fprobe.c: objects, trace event, hit path */
int tfp_on_entry(struct fprobe *fp, unsigned long entry_ip,
		 unsigned long ret_ip, struct ftrace_regs *fregs,
		 void *entry_data);
extern struct trace_event_functions tfp_event_funcs;
extern struct trace_event_fields tfp_event_fields[];
int tfp_event_reg(struct trace_event_call *call, enum trace_reg type,
		  void *data);
void tfp_free(struct trace_fprobe *tf);
struct trace_fprobe *tfp_new(struct tfp_spec *spec, int nargs);

/* trace_fprobe_site.c: hooking, tracepoints, modules (event_mutex) */
extern unsigned long tfp_module_gen;
int tfp_hook(struct trace_fprobe *tf);
void tfp_unhook(struct trace_fprobe *tf);
void tfp_find_tracepoint(struct tfp_tp_query *q);
#ifdef CONFIG_MODULES
extern struct notifier_block tfp_tracepoint_module_nb;
#endif

#endif /* _KERNEL_TRACE_FPROBE_H */
