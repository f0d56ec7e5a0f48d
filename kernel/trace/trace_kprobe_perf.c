// SPDX-License-Identifier: GPL-2.0
/*
 * Kprobe events: what BPF and perf ask of them.
 *
 * BPF asks whether an event sits on a function's entry or on a function
 * whose return value may be overridden, and what a perf event's kprobe
 * event probes.  perf's kprobe PMU makes local probes: kprobe events that
 * are never on the dyn_event list and belong to the one perf event that
 * made them, which enables them through the event's reg callback.
 *
 * Locks: the queries read probes their caller holds; a local probe is
 * made and freed without event_mutex, as nobody else can see it (closed
 * ones wait for their worker on a list of their own lock).  This file
 * calls trace_kprobe_register.c and trace_kprobe.c.
 */
#define pr_fmt(fmt)	"trace_kprobe: " fmt

#include <linux/bpf.h>
#include <linux/cred.h>
#include <linux/error-injection.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "trace_kprobe.h"

/* ---- BPF: what kernel/bpf and bpf_trace.c ask about an event ---- */

/**
 * trace_kprobe_on_func_entry - is a kprobe event on a function's entry?
 * @call: the event
 *
 * Context: the event is held by the caller.
 * Return: true when the event's first probe sits on the first instruction
 * of a function (where BPF may override the return value).
 */
bool trace_kprobe_on_func_entry(struct trace_event_call *call)
{
	struct trace_kprobe *tk = tk_of_call(call);
	struct kprobe *kp;

	if (!tk)
		return false;
	kp = &tk->rp.kp;
	if (kp->addr)
		return !kprobe_on_func_entry(kp->addr, NULL, 0);
	return !kprobe_on_func_entry(NULL, kp->symbol_name, kp->offset);
}

/**
 * trace_kprobe_error_injectable - may BPF override what a probed function returns?
 * @call: the event
 *
 * Context: the event is held by the caller.
 * Return: true when the event's first probe is on a function of the
 * error-injection list.
 */
bool trace_kprobe_error_injectable(struct trace_event_call *call)
{
	struct trace_kprobe *tk = tk_of_call(call);

	return tk && within_error_injection_list(tk_address(tk));
}

#ifdef CONFIG_PERF_EVENTS
/**
 * bpf_get_kprobe_info - describe the kprobe event of a perf event to BPF
 * @event: the perf event
 * @fd_type: set to BPF_FD_TYPE_KPROBE or BPF_FD_TYPE_KRETPROBE
 * @symbol: set to the probed "[MOD:]SYM", or NULL for an address probe
 * @probe_offset: set to the offset from @symbol
 * @probe_addr: set to the probed address when the caller may see kernel
 *	addresses, else 0
 * @missed: set to the missed hits, if not NULL
 * @perf_type_tracepoint: @event opened the event by its id (look it up
 *	by name) rather than through the kprobe PMU
 *
 * Context: process context.
 * Return: 0, or -EINVAL when @event is not on a kprobe event.
 */
int bpf_get_kprobe_info(const struct perf_event *event, u32 *fd_type,
			const char **symbol, u64 *probe_offset,
			u64 *probe_addr, unsigned long *missed,
			bool perf_type_tracepoint)
{
	struct trace_event_call *call = event->tp_event;
	struct trace_kprobe *tk = perf_type_tracepoint ?
		tk_find(trace_event_name(call), call->class->system) :
		tk_of_call(call);
	bool show_addr;

	if (!tk)
		return -EINVAL;

	show_addr = kallsyms_show_value(current_cred());
	*symbol = tk->symbol;
	*probe_offset = tk->rp.kp.offset;
	*probe_addr = show_addr ? (u64)(unsigned long)tk->rp.kp.addr : 0;
	*fd_type = tk->is_return ? BPF_FD_TYPE_KRETPROBE : BPF_FD_TYPE_KPROBE;
	if (missed)
		*missed = tk_missed(tk);
	return 0;
}

/* ---- Local probes of perf's kprobe PMU (trace_event_perf.c) ---- */

/**
 * create_local_trace_kprobe - make an unlisted kprobe event for perf
 * @func: "[MOD:]SYM" to probe, or NULL to probe @addr
 * @addr: address to probe when @func is NULL
 * @offs: offset from @func
 * @is_return: probe the function's return
 *
 * The event has no arguments, is not on the dyn_event list and is not
 * registered with tracefs: it belongs to the perf event that asked for it,
 * which drives it through the event's reg callback.
 *
 * Context: process context; event_mutex not required.
 * Return: the event, or an ERR_PTR.
 */
struct trace_event_call *
create_local_trace_kprobe(char *func, void *addr, unsigned long offs,
			  bool is_return)
{
	struct trace_kprobe *tk;
	int ret;

	if (func) {
		ret = tk_check_symbol(func);
		if (ret)
			return ERR_PTR(ret);
	}

	/* unlisted: the name clashes with nothing */
	tk = tk_alloc(KPROBE_EVENT_SYSTEM, func ?: "DUMMY_EVENT", addr, func,
		      offs, 0, 0, is_return);
	if (IS_ERR(tk))
		return ERR_CAST(tk);

	tk_setup_call(tk);
	ret = traceprobe_set_print_fmt(&tk->tp, is_return ? PROBE_PRINT_RETURN :
				       PROBE_PRINT_NORMAL);
	if (ret >= 0)
		ret = tk_register(tk);
	if (ret < 0) {
		tk_free(tk);
		return ERR_PTR(ret);
	}
	return trace_probe_event_call(&tk->tp);
}

/*
 * Closed local probes.  perf closes its kprobe events one by one, and
 * by the time it hands one back here its own unregistration has cleared
 * the event's perf flag, disarmed the probe and waited for the handlers
 * that could still see the flag (perf_trace_event_unreg()): no handler
 * reaches the perf event any more.  What is left is to take the probe
 * back from the kprobes core and free it, after the core's grace period
 * for the handlers that may still run on the probe itself (a return
 * probe's, for a call that entered while it was armed; they find the
 * event disabled and record nothing).  Rather than wait there for each
 * close, a worker takes every probe closed since it last ran, hands
 * them to tk_unregister_list() (one wait per kind of probe) and frees
 * them.  The probe stays valid and registered until then; nobody can
 * reach it but its handlers.
 */
static LIST_HEAD(tk_closed);
static DEFINE_SPINLOCK(tk_closed_lock);

static void tk_reap_closed(struct work_struct *work)
{
	struct trace_kprobe *tk, *next;
	LIST_HEAD(list);

	spin_lock(&tk_closed_lock);
	list_splice_init(&tk_closed, &list);
	spin_unlock(&tk_closed_lock);

	tk_unregister_list(&list);
	list_for_each_entry_safe(tk, next, &list, reap) {
		list_del_init(&tk->reap);
		tk_free(tk);
	}
}

static DECLARE_WORK(tk_closed_work, tk_reap_closed);

/**
 * destroy_local_trace_kprobe - free an event of create_local_trace_kprobe()
 * @event_call: the event
 *
 * The probe, disarmed already, is unregistered and freed by a worker,
 * together with those closed meanwhile.
 *
 * Context: process context; perf has disabled the event and waited for
 * the handlers that saw it enabled.
 */
void destroy_local_trace_kprobe(struct trace_event_call *event_call)
{
	struct trace_kprobe *tk = tk_of_call(event_call);

	if (!tk)
		return;
	if (trace_probe_is_enabled(&tk->tp)) {
		pr_err("local kprobe event %s still enabled, kept\n",
		       trace_probe_name(&tk->tp));
		return;
	}
	if (!tk->registered) {
		tk_free(tk);
		return;
	}
	spin_lock(&tk_closed_lock);
	list_add_tail(&tk->reap, &tk_closed);
	spin_unlock(&tk_closed_lock);
	queue_work(system_unbound_wq, &tk_closed_work);
}
#endif /* CONFIG_PERF_EVENTS */
