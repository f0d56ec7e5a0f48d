// SPDX-License-Identifier: GPL-2.0
/*
 * Kprobe events: the probe point, and a probe's life on the system.
 *
 * A probe point is checked when it is defined (its symbol must name one
 * function, or sit in a module that is not loaded yet) and kept off
 * notrace functions; the probe is handed to the kprobes core disarmed
 * unless its event is enabled already.  A parsed probe is published as a
 * new event or as one more probe (a sibling) of the event of its name,
 * and removed only while its event is not enabled.  A probe on a module
 * that is not loaded waits on the dyn_event list, unregistered, and the
 * module notifier registers it when the module comes.
 *
 * Locks: event_mutex is held for everything that registers, unregisters,
 * publishes or removes a probe, except for a local probe of perf's kprobe
 * PMU that nobody else sees.  This file calls trace_kprobe.c only.
 */
#define pr_fmt(fmt)	"trace_kprobe: " fmt

#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "trace_kprobe.h"

/* ---- The probe point: symbol checks, kprobes registration ---- */

static int tk_count_match(void *data, unsigned long addr)
{
	(*(unsigned int *)data)++;
	return 0;
}

struct tk_name_count {
	const char	*name;
	unsigned int	n;
};

static int tk_count_mod_match(void *data, const char *name, unsigned long addr)
{
	struct tk_name_count *c = data;

	if (!strcmp(name, c->name))
		c->n++;
	return 0;
}

/*
 * 0 when @name names exactly one function (in module @modname, or
 * anywhere when it is NULL), -ENOENT when none, -EADDRNOTAVAIL when
 * several: a probe on such a name would be on one of them at random, so
 * it must be given as an address.
 */
static int tk_name_is_unique(const char *modname, const char *name)
{
	struct tk_name_count c = { .name = name };

	if (!modname)
		kallsyms_on_each_match_symbol(tk_count_match, name, &c.n);
	module_kallsyms_on_each_symbol(modname, tk_count_mod_match, &c);

	if (!c.n)
		return -ENOENT;
	return c.n == 1 ? 0 : -EADDRNOTAVAIL;
}

#ifdef CONFIG_MODULES
/* A reference on the live module @name, or NULL */
static struct module *tk_module_get(const char *name)
{
	struct module *mod;

	/* find_module() needs the module list stable: no preemption */
	guard(preempt)();
	mod = find_module(name);
	return mod && try_module_get(mod) ? mod : NULL;
}
#else
static struct module *tk_module_get(const char *name)
{
	return NULL;
}
#endif

/*
 * Check "[MOD:]SYM" as tk_name_is_unique() does.  A symbol of a module
 * that is not loaded passes: it is checked when the module comes.
 */
int tk_check_symbol(const char *spec)
{
	const char *colon = strchr(spec, ':');
	char modname[MODULE_NAME_LEN];
	struct module *mod;
	int ret;

	if (!colon)
		return tk_name_is_unique(NULL, spec);
	if (colon - spec >= MODULE_NAME_LEN)
		return -ENOENT;

	strscpy(modname, spec, colon - spec + 1);
	mod = tk_module_get(modname);
	if (!mod)
		return 0;
	ret = tk_name_is_unique(modname, colon + 1);
	module_put(mod);
	return ret;
}

#ifdef CONFIG_MODULES
/* Would @tk register if its module were there?  (It is not.) */
static bool tk_waits_for_module(struct trace_kprobe *tk)
{
	const char *colon;
	char modname[MODULE_NAME_LEN];
	bool loaded;

	if (!tk->symbol)
		return false;
	colon = strchr(tk->symbol, ':');
	if (!colon || colon - tk->symbol >= MODULE_NAME_LEN)
		return false;
	strscpy(modname, tk->symbol, colon - tk->symbol + 1);
	scoped_guard(preempt)
		loaded = find_module(modname);
	return !loaded;
}
#else
static bool tk_waits_for_module(struct trace_kprobe *tk)
{
	return false;
}
#endif

#if defined(CONFIG_DYNAMIC_FTRACE) && !defined(CONFIG_KPROBE_EVENTS_ON_NOTRACE)
/*
 * Is the function containing @addr built without a call site (notrace)?
 * Unknown addresses are left to the kprobes core to judge.
 */
static bool tk_func_is_notrace(unsigned long addr)
{
	unsigned long size, offs;

	if (!addr || !kallsyms_lookup_size_offset(addr, &size, &offs))
		return false;
	return !ftrace_location(addr - offs);
}

/*
 * Probes stay off notrace functions: those are the ones the tracers
 * themselves run.  A compiler clone ("func.isra.0") has no call site of
 * its own; it is judged by the function it was made from.
 */
static bool tk_in_notrace(struct trace_kprobe *tk)
{
	unsigned long addr = tk_address(tk);
	char name[KSYM_NAME_LEN];

	if (!tk_func_is_notrace(addr))
		return false;
	if (lookup_symbol_name(addr, name) || !strchr(name, '.'))
		return true;
	name[strcspn(name, ".")] = '\0';
	addr = kallsyms_lookup_name(name);
	return !addr || tk_func_is_notrace(addr);
}
#else
static bool tk_in_notrace(struct trace_kprobe *tk)
{
	return false;
}
#endif

/* Forget what the kprobes core wrote into @tk, so it can register again. */
static void tk_kprobe_reset(struct trace_kprobe *tk)
{
	if (tk->symbol)
		tk->rp.kp.addr = NULL;
	tk->registered = false;
}

/* Put addresses into the "@SYM" arguments (a module may have just come). */
static int tk_resolve_symbols(struct trace_kprobe *tk)
{
	struct probe_arg *arg = tk->tp.args;
	struct probe_arg *end = arg + tk->tp.nr_args;
	int ret = 0;

	while (!ret && arg < end)
		ret = traceprobe_update_arg(arg++);
	return ret;
}

/*
 * Hand @tk to the kprobes core.  It starts armed only when its event is
 * enabled already: a probe joining an enabled event, or one whose module
 * just came.
 * Context: event_mutex held, or a local probe not shared yet.
 */
int tk_register(struct trace_kprobe *tk)
{
	bool armed = trace_probe_is_enabled(&tk->tp);
	int ret;

	if (tk->registered)
		return -EINVAL;
	ret = security_locked_down(LOCKDOWN_KPROBES);
	if (ret)
		return ret;
	if (tk_in_notrace(tk)) {
		pr_warn("%s: %ps is a notrace function, not probed\n",
			trace_probe_name(&tk->tp), (void *)tk_address(tk));
		return -EINVAL;
	}
	ret = tk_resolve_symbols(tk);
	if (ret)
		return ret;

	tk->rp.kp.flags = (tk->rp.kp.flags & ~KPROBE_FLAG_DISABLED) |
			  (armed ? 0 : KPROBE_FLAG_DISABLED);
	ret = tk->is_return ? register_kretprobe(&tk->rp) :
			      register_kprobe(&tk->rp.kp);
	if (ret) {
		tk_kprobe_reset(tk);
		return ret;
	}
	tk->registered = true;
	return 0;
}

/*
 * Take @tk back from the kprobes core; its handlers have all returned.
 * A change an event batch queued for it is dropped: unregistering
 * disarms it anyway.
 */
void tk_unregister(struct trace_kprobe *tk)
{
	tk_forget(tk);
	if (!tk->registered)
		return;
	if (tk->is_return)
		unregister_kretprobe(&tk->rp);
	else
		unregister_kprobe(&tk->rp.kp);
	tk_kprobe_reset(tk);
}

/*
 * The kprobes and the kretprobes among the registered probes on @list
 * (by ->reap): how many of each.
 */
static void tk_count_registered(struct list_head *list, unsigned int *nk,
				unsigned int *nr)
{
	struct trace_kprobe *tk;

	*nk = *nr = 0;
	list_for_each_entry(tk, list, reap) {
		if (tk->registered)
			(*(tk->is_return ? nr : nk))++;
	}
}

/**
 * tk_unregister_list - take many probes back from the kprobes core at once
 * @list: the probes, linked by ->reap; they stay on it
 *
 * The entry probes go to one unregister_kprobes() call and the return
 * probes to one unregister_kretprobes() call, so that one RCU grace
 * period per kind covers all of them; without the memory for the arrays,
 * one at a time.  Afterwards no handler of any of them runs.
 *
 * Context: event_mutex held, or the probes are local probes of perf that
 * nobody else sees; may sleep.
 */
void tk_unregister_list(struct list_head *list)
{
	struct kretprobe **rps = NULL;
	struct kprobe **kps = NULL;
	unsigned int nk, nr, ik = 0, ir = 0;
	struct trace_kprobe *tk;

	list_for_each_entry(tk, list, reap)
		tk_forget(tk);
	tk_count_registered(list, &nk, &nr);
	if (nk + nr > 1) {
		if (nk)
			kps = kvmalloc_array(nk, sizeof(*kps),
					     GFP_KERNEL_ACCOUNT);
		if (nr)
			rps = kvmalloc_array(nr, sizeof(*rps),
					     GFP_KERNEL_ACCOUNT);
	}
	if ((nk && !kps) || (nr && !rps)) {
		list_for_each_entry(tk, list, reap)
			tk_unregister(tk);
		goto out;
	}

	list_for_each_entry(tk, list, reap) {
		if (!tk->registered)
			continue;
		if (tk->is_return)
			rps[ir++] = &tk->rp;
		else
			kps[ik++] = &tk->rp.kp;
	}
	if (ik)
		unregister_kprobes(kps, ik);
	if (ir)
		unregister_kretprobes(rps, ir);
	list_for_each_entry(tk, list, reap) {
		if (tk->registered)
			tk_kprobe_reset(tk);
	}
out:
	kvfree(kps);
	kvfree(rps);
}

/* Register @tk; a probe waiting for its module is fine unregistered. */
static int tk_register_or_wait(struct trace_kprobe *tk)
{
	int ret = tk_register(tk);

	if (ret == -ENOENT && tk_waits_for_module(tk)) {
		pr_info("%s: %s is not loaded; probed when it comes\n",
			trace_probe_name(&tk->tp), tk->symbol);
		return 0;
	}
	return ret;
}

/* ---- Publishing and removing a probe ---- */

/* Are @a and @b on the same site? */
static bool tk_same_site(struct trace_kprobe *a, struct trace_kprobe *b)
{
	if (!a->symbol || !b->symbol)
		return !a->symbol && !b->symbol && a->rp.kp.addr == b->rp.kp.addr;
	return !strcmp(a->symbol, b->symbol) &&
	       a->rp.kp.offset == b->rp.kp.offset;
}

/*
 * Do @a and @b fetch the same values?  Only called once their arguments
 * are known to agree in number, names and types.
 */
static bool tk_same_fetches(struct trace_kprobe *a, struct trace_kprobe *b)
{
	unsigned int i = 0;

	while (i < a->tp.nr_args &&
	       !strcmp(a->tp.args[i].comm, b->tp.args[i].comm))
		i++;
	return i == a->tp.nr_args;
}

/* Does @event already have a probe at @tk's site with @tk's arguments? */
static bool tk_duplicates(struct trace_kprobe *event, struct trace_kprobe *tk)
{
	struct trace_kprobe *pos;

	list_for_each_entry(pos, trace_probe_probe_list(&event->tp), tp.list)
		if (tk_same_site(pos, tk) && tk_same_fetches(pos, tk))
			return true;
	return false;
}

/* Add @tk as one more probe of @old's event. */
static int tk_join(struct trace_kprobe *tk, struct trace_kprobe *old)
{
	int ret;

	trace_probe_log_set_index(0);
	if (tk->is_return != old->is_return) {
		trace_probe_log_err(0, DIFF_PROBE_TYPE);
		return -EEXIST;
	}
	ret = trace_probe_compare_arg_type(&tk->tp, &old->tp);
	if (ret) {
		/* @ret counts arguments from 1; they start at argv[2] */
		trace_probe_log_set_index(ret + 1);
		trace_probe_log_err(0, DIFF_ARG_TYPE);
		return -EEXIST;
	}
	if (tk_duplicates(old, tk)) {
		trace_probe_log_err(0, SAME_PROBE);
		return -EEXIST;
	}

	ret = trace_probe_append(&tk->tp, &old->tp);
	if (ret)
		return ret;
	/* armed at once when the event is enabled (see tk_register()) */
	ret = tk_register_or_wait(tk);
	if (ret) {
		trace_probe_unlink(&tk->tp);
		return ret;
	}
	dyn_event_add(&tk->devent, trace_probe_event_call(&tk->tp));
	return 0;
}

static int tk_new_event(struct trace_kprobe *tk)
{
	int ret;

	tk_setup_call(tk);
	ret = trace_probe_register_event_call(&tk->tp);
	if (ret == -EEXIST) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, EVENT_EXIST);
		return ret;
	}
	if (ret) {
		pr_warn("%s: cannot register the event: %d\n",
			trace_probe_name(&tk->tp), ret);
		return ret;
	}

	ret = tk_register_or_wait(tk);
	if (ret) {
		trace_probe_unregister_event_call(&tk->tp);
		return ret;
	}
	dyn_event_add(&tk->devent, trace_probe_event_call(&tk->tp));
	return 0;
}

/*
 * Publish a parsed @tk: a new event, or one more probe of the event of
 * the same name.  On failure nothing has changed and @tk is the caller's.
 */
int tk_publish(struct trace_kprobe *tk)
{
	struct trace_kprobe *old;

	guard(mutex)(&event_mutex);
	old = tk_find(trace_probe_name(&tk->tp),
		      trace_probe_group_name(&tk->tp));
	return old ? tk_join(tk, old) : tk_new_event(tk);
}

/*
 * ---- Removal batches: one wait for all the probes of a write ----
 *
 * A removal unregisters its probe from the kprobes core, which waits for
 * an RCU grace period so that no handler of it runs any more (a return
 * probe's handler also runs for a call that entered before it was
 * disarmed, and every handler reads the probe and its event).  The "-:"
 * lines of one write to kprobe_events or dynamic_events, the events
 * "echo > dynamic_events" removes and the probes of one event that a
 * "-:" line removes come inside a removal batch of the dyn_event core
 * (dyn_event_batch_begin()), each under its own hold of event_mutex.
 * Inside it tk_remove() does at once what a user can see: the checks and
 * their errors, the event's tracefs side, the dyn_event list and the
 * event's probe list; the probe itself, disarmed since its event is not
 * enabled, stays registered and allocated on tk_reap_list.  At the end
 * of the batch, before the write returns, tk_reap() (->settle) hands all
 * of them to tk_unregister_list(), one wait per kind of probe, and frees
 * them.  A line that fails leaves the earlier ones removed, and they are
 * reaped all the same.
 *
 * A probe on the list keeps ->tp.event for its handlers: the last probe
 * of an event stays on the event's probe list (the event is out of
 * tracefs and off the dyn_event list, so nobody else finds it), a sibling
 * of probes that stay is detached from it (trace_probe_detach()).  The
 * event of a detached probe belongs to the probes that stay, so before
 * the last of those leaves an event outside a batch, tk_remove() reaps
 * the list (another task's batch may have left probes on it).
 *
 * A new probe on the address of one on the list (the same definition
 * made again in the same write) shares an aggregate with it in the
 * kprobes core until the reap; the old one, disarmed, records nothing.
 */
static LIST_HEAD(tk_reap_list);

/*
 * Remove and free @tk (event_mutex held); inside a removal batch, free it
 * at the batch's end.  The last probe of an event takes the event along,
 * and only while nobody holds it.  No probe of an enabled event goes:
 * "-:GRP/EVENT" removes the probes one by one, and must not stop half
 * way with some of them gone (6.12 removed siblings of an enabled event,
 * then failed on the last one).
 */
int tk_remove(struct trace_kprobe *tk)
{
	struct trace_probe *tp = &tk->tp;
	bool last = !trace_probe_has_sibling(tp);
	int ret;

	if (trace_probe_is_enabled(tp))
		return -EBUSY;
	if (last) {
		if (trace_event_dyn_busy(trace_probe_event_call(tp)))
			return -EBUSY;
		ret = trace_probe_unregister_event_call(tp);
		if (ret)
			return -EBUSY;
	}
	dyn_event_remove(&tk->devent);

	if (dyn_event_batching()) {
		tk_forget(tk);
		if (!last)
			trace_probe_detach(tp);
		list_add_tail(&tk->reap, &tk_reap_list);
		return 0;
	}

	/* A probe left for a batch's end may still read this event. */
	if (last)
		tk_reap();
	tk_unregister(tk);
	trace_probe_unlink(tp);
	tk_free(tk);
	return 0;
}

/**
 * tk_reap - finish the removals that removal batches left
 *
 * Unregisters every probe on tk_reap_list together, then frees them.
 * The kprobe layer's ->settle, called at the end of each removal batch;
 * also called before an event whose detached probes may be on the list
 * is freed.
 *
 * Context: event_mutex held; may sleep.
 */
void tk_reap(void)
{
	struct trace_kprobe *tk, *next;
	LIST_HEAD(list);

	lockdep_assert_held(&event_mutex);
	if (list_empty(&tk_reap_list))
		return;
	list_splice_init(&tk_reap_list, &list);
	tk_unregister_list(&list);
	list_for_each_entry_safe(tk, next, &list, reap) {
		list_del_init(&tk->reap);
		trace_probe_unlink(&tk->tp);
		tk_free(tk);
	}
}

/*
 * Remove every kprobe event, "echo > kprobe_events" (event_mutex held).
 * All or nothing: -EBUSY, and nothing removed, while any of them is
 * enabled or its event is in use.  6.12 removed the probes one by one,
 * each waiting for its own RCU grace period (16 ms of guest time each
 * here); the batch waits for two, one per kind of probe.
 */
int tk_remove_all(void)
{
	struct trace_kprobe *tk, *next;
	struct dyn_event *ev, *tmp;
	LIST_HEAD(all);
	int ret = 0;

	lockdep_assert_held(&event_mutex);
	/* Nothing may stay queued on a probe that goes (event batches). */
	tk_settle();
	tk_reap();
	/* Check them all before any goes on the local list. */
	for_each_dyn_event(ev) {
		tk = tk_of_dyn(ev);
		if (!tk)
			continue;
		if (trace_probe_is_enabled(&tk->tp) ||
		    trace_event_dyn_busy(trace_probe_event_call(&tk->tp)))
			return -EBUSY;
	}
	for_each_dyn_event(ev) {
		tk = tk_of_dyn(ev);
		if (tk)
			list_add_tail(&tk->reap, &all);
	}
	/* Each tk_remove() below then finds its probe unregistered. */
	tk_unregister_list(&all);
	list_for_each_entry_safe(tk, next, &all, reap)
		list_del_init(&tk->reap);
	for_each_dyn_event_safe(ev, tmp) {
		if (ev->ops != &trace_kprobe_ops)
			continue;
		ret = tk_remove(tk_of_dyn(ev));
		if (ret)
			break;
	}
	return ret;
}

/* ---- Modules: probes on a module's symbols follow its loads ---- */

#ifdef CONFIG_MODULES
/* Is @tk on a symbol of @mod ("MOD:SYM")? */
static bool tk_on_module(struct trace_kprobe *tk, struct module *mod)
{
	const char *name = module_name(mod);
	size_t len = strlen(name);

	return tk->symbol && !strncmp(tk->symbol, name, len) &&
	       tk->symbol[len] == ':';
}

/* Register @tk on @mod, which is coming; its symbol must be unique there. */
static int tk_register_on_module(struct trace_kprobe *tk, struct module *mod)
{
	const char *colon = strchr(tk->symbol, ':');
	int ret;

	ret = tk_name_is_unique(module_name(mod), colon + 1);
	return ret ?: tk_register(tk);
}

static int tk_module_notify(struct notifier_block *nb, unsigned long val,
			    void *data)
{
	struct module *mod = data;
	struct trace_kprobe *tk;
	struct dyn_event *pos;
	int ret;

	if (val != MODULE_STATE_COMING)
		return NOTIFY_DONE;

	guard(mutex)(&event_mutex);
	for_each_dyn_event(pos) {
		tk = tk_of_dyn(pos);
		if (!tk)
			continue;
		if (!tk_on_module(tk, mod))
			continue;
		/* a probe left "gone" by an earlier load of the module */
		tk_unregister(tk);
		ret = tk_register_on_module(tk, mod);
		if (ret)
			pr_warn("%s: cannot probe module %s: %d\n",
				trace_probe_name(&tk->tp), module_name(mod),
				ret);
	}
	return NOTIFY_DONE;
}

static struct notifier_block tk_module_nb = {
	.notifier_call	= tk_module_notify,
	.priority	= 2,	/* as 6.12: after jump labels and kprobes */
};

int tk_watch_modules(void)
{
	return register_module_notifier(&tk_module_nb);
}
#else
int tk_watch_modules(void)
{
	return 0;
}
#endif /* CONFIG_MODULES */
