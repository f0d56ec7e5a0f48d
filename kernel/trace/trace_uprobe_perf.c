// SPDX-License-Identifier: GPL-2.0
/*
 * Uprobe events for perf and BPF: the unlisted local probes of perf's
 * uprobe PMU (perf_uprobe_init() in trace_event_perf.c creates and
 * destroys them), and the query BPF uses to describe the uprobe behind a
 * perf event.
 *
 * Locks: a local probe is never on the dyn_event list and never a
 * registered trace event; perf holds event_mutex around its use.  The BPF
 * query looks tracepoint-PMU events up by name among the listed ones.
 *
 * Closing a local probe waits for no grace period: its reg callback drains
 * the event's perf handlers, perf then frees its lists without a wait of
 * its own (TRACE_EVENT_FL_PERF_DRAINS), and the probe object is freed
 * later, after one wait for many closes (trace_uprobe_event.c).
 */
#include <linux/slab.h>
#ifdef CONFIG_BPF_EVENTS
#include <linux/bpf.h>
#endif

#include "trace_uprobe.h"

/* ---- Local probes of perf's uprobe PMU (trace_event_perf.c) ---- */

/**
 * create_local_trace_uprobe - make an unlisted uprobe event for perf
 * @name: path of the file to probe
 * @offs: offset of the probed instruction in that file
 * @ref_ctr_offset: offset of the SDT reference counter, or 0
 * @is_return: probe the function's return instead of the instruction
 *
 * The event has no arguments, is not on the dyn_event list and is not
 * registered as a trace event; perf drives it through its class's reg
 * callback.  Context: process, may sleep; perf_uprobe_init() holds
 * event_mutex around the use of the event, not around this call.
 *
 * Return: the event's trace_event_call, or an ERR_PTR() (-ENOENT and the
 * other lookup errors for @name, -EINVAL if it is not a regular file,
 * -ENOMEM).
 */
struct trace_event_call *
create_local_trace_uprobe(char *name, unsigned long offs,
			  unsigned long ref_ctr_offset, bool is_return)
{
	struct uprobe_site site = {
		.offset = offs,
		.ref_ctr_offset = ref_ctr_offset,
	};
	struct trace_uprobe *tu;
	int ret;

	site.filename = kstrdup(name, GFP_KERNEL_ACCOUNT);
	if (!site.filename)
		return ERR_PTR(-ENOMEM);
	ret = uprobe_resolve_path(name, &site.path);
	if (ret)
		goto out;

	/* Never listed, so the fixed name cannot collide. */
	tu = trace_uprobe_alloc(UPROBE_DEFAULT_GROUP, "DUMMY_EVENT", 0,
				is_return);
	if (IS_ERR(tu)) {
		ret = PTR_ERR(tu);
		goto out;
	}
	trace_uprobe_take_site(tu, &site);
	uprobe_event_setup_call(tu);
	/* perf's close need not wait for our handlers: we drain them. */
	trace_probe_event_call(&tu->tp)->flags |= TRACE_EVENT_FL_PERF_DRAINS;
	if (traceprobe_set_print_fmt(&tu->tp, trace_uprobe_print_type(tu)) < 0) {
		trace_uprobe_free(tu);
		ret = -ENOMEM;
		goto out;
	}
	return trace_probe_event_call(&tu->tp);

out:
	uprobe_site_release(&site);
	return ERR_PTR(ret);
}

/**
 * destroy_local_trace_uprobe - free an event made by create_local_trace_uprobe()
 * @event_call: the event; perf has disabled and closed it already
 *
 * The probed file is let go at once; the memory only after a wait for the
 * handlers that may still be on their way into the probe (its consumer
 * was unregistered without one).
 */
void destroy_local_trace_uprobe(struct trace_event_call *event_call)
{
	struct trace_uprobe *tu = tu_of_call(event_call);

	if (tu)
		trace_uprobe_free_deferred(tu);
}

#ifdef CONFIG_BPF_EVENTS
/**
 * bpf_get_uprobe_info - describe the uprobe behind a perf event for BPF
 * @event: a perf event on a uprobe event (tracepoint or local probe)
 * @fd_type: set to BPF_FD_TYPE_UPROBE or BPF_FD_TYPE_URETPROBE
 * @filename: set to the probed file's path as written
 * @probe_offset: set to the probed offset in that file
 * @probe_addr: set to 0 (uprobes have no fixed address)
 * @perf_type_tracepoint: @event was opened through the tracepoint PMU
 *
 * Return: 0, or -EINVAL if @event has no uprobe behind it.
 */
int bpf_get_uprobe_info(const struct perf_event *event, u32 *fd_type,
			const char **filename, u64 *probe_offset,
			u64 *probe_addr, bool perf_type_tracepoint)
{
	struct trace_event_call *call = event->tp_event;
	struct trace_uprobe *tu;

	if (perf_type_tracepoint)
		tu = trace_uprobe_find(trace_event_name(call),
				       call->class->system);
	else
		tu = tu_of_call(call);
	if (!tu)
		return -EINVAL;

	*fd_type = tu_is_return(tu) ? BPF_FD_TYPE_URETPROBE :
				      BPF_FD_TYPE_UPROBE;
	*filename = tu->filename;
	*probe_offset = tu->offset;
	*probe_addr = 0;
	return 0;
}
#endif /* CONFIG_BPF_EVENTS */
