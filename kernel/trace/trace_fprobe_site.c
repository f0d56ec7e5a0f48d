// SPDX-License-Identifier: GPL-2.0
/*
 * Fprobe and tracepoint probe events: hooking a definition onto its site.
 *
 * A function probe is hooked by registering its fprobe on FUNCTION (an
 * ftrace filter, so a glob works).  A tracepoint probe is an fprobe on the
 * tracepoint's stub, and the stub itself must be on the tracepoint; one
 * stub registration serves every probe on that tracepoint and goes with
 * the last one hooked.  The fprobe is registered disabled unless the event
 * is enabled, and then follows the event (trace_fprobe.c).
 *
 * Tracepoints are looked up by name, built in or in a loaded module; the
 * tracepoint module notifier hooks the probes that wait for a module's
 * tracepoint when the module comes and unhooks them when it goes, and
 * counts arrivals in tfp_module_gen so that a definition whose lookup
 * raced with an arrival looks again (trace_fprobe_parse.c).
 *
 * Locks: event_mutex for everything that hooks, unhooks or changes a
 * probe's tracepoint fields; the notifier takes it with the tracepoint
 * module list locked, so tfp_find_tracepoint() runs without event_mutex.
 * This file calls no other file of the layer (trace_fprobe.h).
 */
#define pr_fmt(fmt)	"trace_fprobe: " fmt

#include <linux/fprobe.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/security.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "trace_fprobe.h"

/* Counts module arrivals, so a definition racing with one can look again. */
unsigned long tfp_module_gen;

/* ---- Hooking a definition onto its function or tracepoint ---- */

/* Another hooked tracepoint probe that shares @tf's stub registration. */
static bool tfp_stub_shared(struct trace_fprobe *tf)
{
	struct trace_fprobe *other;
	struct dyn_event *pos;

	for_each_dyn_event(pos) {
		other = tfp_of_dyn(pos);
		if (other && other != tf && other->hooked &&
		    other->tpoint == tf->tpoint)
			return true;
	}
	return false;
}

static void tfp_stub_release(struct trace_fprobe *tf)
{
	if (!tfp_stub_shared(tf))
		tracepoint_probe_unregister(tf->tpoint, tf->tpoint->probestub,
					    NULL);
}

static int tfp_hook_tpoint(struct trace_fprobe *tf)
{
	unsigned long stub = (unsigned long)tf->tpoint->probestub;
	int ret;

	ret = tracepoint_probe_register_prio_may_exist(tf->tpoint,
						       tf->tpoint->probestub,
						       NULL, 0);
	/* -EEXIST: another probe of ours hooked the stub already */
	if (ret && ret != -EEXIST)
		return ret;
	ret = register_fprobe_ips(&tf->fp, &stub, 1);
	if (ret)
		tfp_stub_release(tf);
	return ret;
}

/*
 * Register @tf's fprobe, disabled unless its event is enabled.  A
 * tracepoint probe whose module is not loaded stays unhooked until the
 * module comes.  event_mutex held.
 */
int tfp_hook(struct trace_fprobe *tf)
{
	unsigned int i;
	int ret;

	lockdep_assert_held(&event_mutex);
	if (tf->hooked)
		return 0;

	/*
	 * As for kprobes: a dynamic_events file opened before lockdown was
	 * raised can still be written, so check at each hook, as 6.12 does.
	 */
	ret = security_locked_down(LOCKDOWN_KPROBES);
	if (ret)
		return ret;

	/* "@SYM" arguments: resolve the symbol (again, for a module) */
	for (i = 0; i < tf->tp.nr_args; i++) {
		ret = traceprobe_update_arg(&tf->tp.args[i]);
		if (ret)
			return ret;
	}

	tf->fp.flags = FPROBE_FL_DISABLED;
	if (trace_probe_is_enabled(&tf->tp))
		tf->fp.flags = 0;

	if (tf->site == TFP_TPOINT) {
		if (!tf->tpoint)
			return 0;
		ret = tfp_hook_tpoint(tf);
	} else {
		/* Like 6.12, FUNCTION is an ftrace filter: a glob works. */
		ret = register_fprobe(&tf->fp, tf->where, NULL);
	}
	if (!ret)
		tf->hooked = true;
	return ret;
}

/* Undo tfp_hook(); no handler of @tf runs afterwards.  event_mutex held. */
void tfp_unhook(struct trace_fprobe *tf)
{
	lockdep_assert_held(&event_mutex);
	if (!tf->hooked)
		return;
	unregister_fprobe(&tf->fp);
	tf->hooked = false;
	if (tf->site == TFP_TPOINT)
		tfp_stub_release(tf);
}

/* ---- Tracepoints: lookup and module arrivals and departures ---- */

static void tfp_query_builtin(struct tracepoint *tpoint, void *priv)
{
	struct tfp_tp_query *q = priv;

	if (!q->found && !strcmp(tpoint->name, q->name))
		q->found = tpoint;
}

/* Modules: take a reference, so the module stays while we define. */
static void tfp_query_module(struct tracepoint *tpoint, struct module *mod,
			     void *priv)
{
	struct tfp_tp_query *q = priv;

	if (q->found || strcmp(tpoint->name, q->name))
		return;
	if (mod && !try_module_get(mod))
		return;
	q->found = tpoint;
	q->mod = mod;
}

/*
 * Find tracepoint @name, built in or in a loaded module.  On success with a
 * module, q->mod holds a reference the caller drops.
 */
void tfp_find_tracepoint(struct tfp_tp_query *q)
{
	for_each_kernel_tracepoint(tfp_query_builtin, q);
	if (!q->found && IS_ENABLED(CONFIG_MODULES))
		for_each_module_tracepoint(tfp_query_module, q);
}

#ifdef CONFIG_MODULES
/* The notifier: the module is live while it runs, no reference needed. */
static void tfp_query_in_module(struct tracepoint *tpoint, struct module *mod,
				void *priv)
{
	struct tfp_tp_query *q = priv;

	if (!q->found && !strcmp(tpoint->name, q->name))
		q->found = tpoint;
}

/* A module with tracepoints arrived: hook the probes waiting for them. */
static void tfp_module_coming(struct module *mod)
{
	struct trace_fprobe *tf;
	struct dyn_event *pos;
	int ret;

	WRITE_ONCE(tfp_module_gen, tfp_module_gen + 1);
	for_each_dyn_event(pos) {
		struct tfp_tp_query q = {};

		tf = tfp_of_dyn(pos);
		if (!tf || tf->site != TFP_TPOINT || tf->tpoint)
			continue;
		q.name = tf->where;
		for_each_tracepoint_in_module(mod, tfp_query_in_module, &q);
		if (!q.found)
			continue;
		tf->tpoint = q.found;
		tf->tp_mod = mod;
		ret = tfp_hook(tf);
		if (ret) {
			pr_warn("cannot hook %s on tracepoint %s: %d\n",
				trace_probe_name(&tf->tp), tf->where, ret);
			tf->tpoint = NULL;
			tf->tp_mod = NULL;
		}
	}
}

/* A module leaves: unhook the probes on its tracepoints; they wait again. */
static void tfp_module_going(struct module *mod)
{
	struct trace_fprobe *tf;
	struct dyn_event *pos;

	for_each_dyn_event(pos) {
		tf = tfp_of_dyn(pos);
		if (!tf || tf->site != TFP_TPOINT || !tf->tpoint ||
		    tf->tp_mod != mod)
			continue;
		tfp_unhook(tf);
		tf->tpoint = NULL;
		tf->tp_mod = NULL;
	}
}

static int tfp_tracepoint_module_event(struct notifier_block *nb,
				       unsigned long state, void *data)
{
	struct tp_module *tp_mod = data;

	guard(mutex)(&event_mutex);
	if (state == MODULE_STATE_COMING)
		tfp_module_coming(tp_mod->mod);
	else if (state == MODULE_STATE_GOING)
		tfp_module_going(tp_mod->mod);
	return NOTIFY_DONE;
}

struct notifier_block tfp_tracepoint_module_nb = {
	.notifier_call = tfp_tracepoint_module_event,
};
#endif /* CONFIG_MODULES */
