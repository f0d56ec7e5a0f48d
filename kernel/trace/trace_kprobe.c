// SPDX-License-Identifier: GPL-2.0
/*
 * Kprobe events: trace events that fire when the kernel executes a given
 * instruction (a kprobe) or returns from a given function (a kretprobe).
 *
 *	p[:[GRP/][EVENT]] [MOD:]SYM[+OFFS]|ADDR [FETCHARGS]
 *	r[MAXACTIVE][:[GRP/][EVENT]] [MOD:]SYM[+0] [FETCHARGS]
 *	p[:[GRP/][EVENT]] [MOD:]SYM[+0]%return [FETCHARGS]
 *	-:[GRP/]EVENT
 *
 * written to kprobe_events or dynamic_events.  The probe-definition library
 * (trace_probe.h) parses the fetch arguments, owns the trace event and
 * prints it; the kprobe event layer (the trace_kprobe*.c files, mapped in
 * trace_kprobe.h) owns the probe point, the kprobe or kretprobe behind it,
 * and the hit path that turns a hit into a ring-buffer or perf record.
 *
 * This file holds the trace_kprobe objects, their trace event (fields,
 * output, enable and disable) and the whole hit path: the load stage, the
 * record writers for trace instances and perf, and the handlers the
 * kprobes core calls.  The hit path stays in this one translation unit,
 * so that its static helpers inline; this file calls no other file of
 * the layer.
 *
 * Life of a probe:
 *
 *	parsed -> registered with the kprobes core, disarmed
 *	       -> armed while its event is enabled (trace instance or perf)
 *	       -> disarmed -> unregistered -> freed
 *
 * A probe on a module that is not loaded yet (or was unloaded: the kprobes
 * core then calls it "gone") stays on the dyn_event list unregistered, and
 * the module notifier registers it when the module comes.
 *
 * Rules that hold throughout:
 *  - event_mutex guards the dyn_event list, the sibling lists, the
 *    registration state (trace_kprobe::registered) and the arming of every
 *    probe.  Parsing also holds dyn_event_ops_mutex (the error log).
 *  - A trace_kprobe does not change once it is on the dyn_event list,
 *    except for the registration state and the kprobe's own fields that
 *    the kprobes core manages.
 *  - The hit path runs in kprobe context (interrupts off or in a
 *    breakpoint handler): no sleeping, no locks, nothing allocated.  It
 *    reads the event flags with acquire semantics and walks the file links
 *    under RCU; unregister_kprobe() waits for running handlers, so a probe
 *    is freed only after its handlers are done.
 *  - Local probes made for perf's kprobe PMU (create_local_trace_kprobe())
 *    are never on the dyn_event list and belong to that perf event alone.
 *
 * Where this differs from 6.12 on purpose: no probe of an enabled event
 * can be removed (6.12 removed the siblings of an enabled event, so that
 * "-:GRP/EVENT" failed with EBUSY after removing all probes but one);
 * the first word must be "p", "r" or "rMAXACTIVE", alone or followed by
 * ':' (6.12 took "px" as "p");
 * every definition kprobe_events refuses leaves an error_log entry (6.12
 * left none for a line that names no probe point, a uprobe-style site, or
 * more than MAX_TRACE_ARGS arguments: now NO_PROBE_POINT, BAD_PROBE_TYPE,
 * BAD_PROBE_ADDR and TOO_MANY_ARGS); the boot-time selftest enables its
 * events through the event files instead of behind their back, and
 * reports a failure without a WARN.
 */
#define pr_fmt(fmt)	"trace_kprobe: " fmt

#include <kunit/visibility.h>
#include <linux/bpf-cgroup.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "../kprobes_array.h"
#include "trace_kprobe.h"
/* This front end gives the library a quick load: tprobe_load_hit(). */
#define TPROBE_HAS_LOAD_HIT
#include "trace_probe_tmpl.h"
#include "trace_probe_kernel.h"

/**
 * tk_hits - the hits of a probe, as kprobe_profile shows them
 * @tk: the probe
 *
 * Counts every hit the handlers saw, armed or not.
 *
 * Context: any; the per-CPU counts are read without a lock.
 * Return: the sum over all CPUs.
 */
unsigned long tk_hits(struct trace_kprobe *tk)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(tk->nhit, cpu);
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(tk_hits);

/**
 * tk_missed - the misses of a probe, as kprobe_profile shows them
 * @tk: the probe
 *
 * Hits the kprobes core could not handle (recursion, no free instance).
 *
 * Context: any.
 * Return: the kprobe's misses, and the kretprobe's for a return probe.
 */
unsigned long tk_missed(struct trace_kprobe *tk)
{
	unsigned long missed = tk->rp.kp.nmissed;

	if (tk->is_return)
		missed += tk->rp.nmissed;
	return missed;
}
EXPORT_SYMBOL_IF_KUNIT(tk_missed);

/* The probed address now, or 0 when the symbol is not (yet) known. */
unsigned long tk_address(struct trace_kprobe *tk)
{
	unsigned long addr;

	if (!tk->symbol)
		return (unsigned long)tk->rp.kp.addr;
	/* kprobe_lookup_name(): what the registration itself looks up */
	addr = (unsigned long)kprobe_lookup_name(tk->symbol, tk->rp.kp.offset);
	return addr ? addr + tk->rp.kp.offset : 0;
}

/* "SYM", "SYM+OFFS" or "0xADDR": how listings and removals name the site */
void tk_format_site(struct trace_kprobe *tk, char *buf, size_t size)
{
	if (!tk->symbol)
		snprintf(buf, size, "0x%p", tk->rp.kp.addr);
	else if (tk->rp.kp.offset)
		snprintf(buf, size, "%s+%u", tk->symbol, tk->rp.kp.offset);
	else
		snprintf(buf, size, "%s", tk->symbol);
}

/* ---- The fetch interpreter's load stage: registers of the hit ---- */

/*
 * Load ops that read the state of the hit: *@val gets the value and the
 * answer is true, or the answer is false for any other op.
 */
static nokprobe_inline bool tk_load_from_hit(const struct fetch_insn *insn,
					     struct pt_regs *regs, void *edata,
					     unsigned long *val)
{
	switch (insn->op) {
	case FETCH_OP_RETVAL:
		*val = regs_return_value(regs);
		return true;
	case FETCH_OP_STACKP:
		*val = kernel_stack_pointer(regs);
		return true;
	case FETCH_OP_STACK:
		*val = regs_get_kernel_stack_nth(regs, insn->param);
		return true;
	case FETCH_OP_REG:
		*val = regs_get_register(regs, insn->param);
		return true;
#ifdef CONFIG_HAVE_FUNCTION_ARG_ACCESS_API
	case FETCH_OP_EDATA:
		/* a return probe's copy of an argument, saved at entry */
		*val = *(unsigned long *)(edata + insn->offset);
		return true;
	case FETCH_OP_ARG:
		*val = regs_get_kernel_argument(regs, insn->param);
		return true;
#endif
	default:
		return false;
	}
}

/* The library's quick load (trace_probe_tmpl.h): the same loads. */
static nokprobe_inline bool
tprobe_load_hit(const struct fetch_insn *code, void *rec, void *edata,
		unsigned long *val)
{
	return tk_load_from_hit(code, rec, edata, val);
}

/*
 * The library's hook (trace_probe_tmpl.h).  @rec is the pt_regs of the
 * hit; @edata the values a return probe saved at function entry.
 */
static int
process_fetch_insn(struct fetch_insn *code, void *rec, void *edata,
		   void *dest, void *base)
{
	unsigned long val;
	int ret = 0;

	/* "@SYM" keeps its name in front of the IMM holding its address. */
	if (code->op == FETCH_NOP_SYMBOL)
		code++;

	if (!tk_load_from_hit(code, rec, edata, &val))
		ret = process_common_fetch_insn(code, &val);
	if (ret < 0)
		return ret;
	return process_fetch_insn_bottom(code + 1, val, dest, base);
}

NOKPROBE_SYMBOL(process_fetch_insn)

/* ---- A hit: records for trace instances and perf ---- */

/*
 * What one hit knows.  A record is the common header, then the probed
 * address (entry probes: struct kprobe_trace_entry_head) or the function
 * and the address it returns to (return probes: struct
 * kretprobe_trace_entry_head), then the argument data.
 */
struct tk_hit {
	struct trace_kprobe	*tk;
	struct pt_regs		*regs;
	void			*edata;		/* return probes: entry data */
	unsigned long		ret_ip;		/* return probes */
};

static nokprobe_inline unsigned int tk_head_size(struct trace_kprobe *tk)
{
	return tk->is_return ? sizeof(struct kretprobe_trace_entry_head) :
			       sizeof(struct kprobe_trace_entry_head);
}

/* Fill everything after the common header; @dsize bytes of strings. */
static nokprobe_inline void tk_fill_record(struct tk_hit *hit, void *rec,
					   int dsize)
{
	struct trace_kprobe *tk = hit->tk;
	unsigned int head = tk_head_size(tk);

	if (tk->is_return) {
		struct kretprobe_trace_entry_head *h = rec;

		h->func = (unsigned long)tk->rp.kp.addr;
		h->ret_ip = hit->ret_ip;
	} else {
		struct kprobe_trace_entry_head *h = rec;

		h->ip = (unsigned long)tk->rp.kp.addr;
	}
	store_trace_args(rec + head, &tk->tp, hit->regs, hit->edata, head,
			 dsize);
}

/*
 * A record through trace_event_buffer_reserve()/commit(), for a file with
 * something to decide per record.  Out of line: its buffer descriptor
 * costs the direct path nothing then.
 */
static noinline void tk_trace_general(struct tk_hit *hit,
				      struct trace_event_file *file,
				      unsigned int len, int dsize)
{
	struct trace_event_buffer fbuffer;
	void *rec;

	rec = trace_event_buffer_reserve(&fbuffer, file, len);
	if (!rec)
		return;
	fbuffer.regs = hit->regs;
	tk_fill_record(hit, rec, dsize);
	trace_event_buffer_commit(&fbuffer);
}

NOKPROBE_SYMBOL(tk_trace_general);

static nokprobe_inline void tk_trace_one(struct tk_hit *hit,
					 struct trace_event_file *file,
					 int dsize)
{
	struct trace_kprobe *tk = hit->tk;
	unsigned int len = tk_head_size(tk) + tk->tp.size + dsize;
	struct tprobe_rec direct;
	void *rec;

	if (trace_trigger_soft_disabled(file))
		return;

	if (unlikely(!tprobe_rec_direct(file))) {
		tk_trace_general(hit, file, len, dsize);
		return;
	}
	rec = tprobe_rec_reserve(&direct, file, len);
	if (rec) {
		tk_fill_record(hit, rec, dsize);
		tprobe_rec_commit(&direct);
	}
}

/* One record into every trace instance that has the event enabled. */
static void tk_trace(struct tk_hit *hit)
{
	struct trace_kprobe *tk = hit->tk;
	struct event_file_link *link;
	int dsize = __get_data_size(&tk->tp, hit->regs, hit->edata);

	trace_probe_for_each_link_rcu(link, &tk->tp)
		tk_trace_one(hit, link->file, dsize);
}

NOKPROBE_SYMBOL(tk_trace);

#ifdef CONFIG_PERF_EVENTS
/*
 * The perf side: BPF programs attached to the event first (they may
 * filter the hit out, or, at a function entry, move the instruction
 * pointer to override the function: then the kprobe must not single-step
 * and the dispatcher returns 1), then a record for each perf event.
 */
static int tk_perf(struct tk_hit *hit)
{
	struct trace_kprobe *tk = hit->tk;
	struct trace_event_call *call = trace_probe_event_call(&tk->tp);
	unsigned int head = tk_head_size(tk);
	struct hlist_head *events;
	int size, dsize, rctx;
	void *rec;

	if (bpf_prog_array_valid(call)) {
		unsigned long ip = instruction_pointer(hit->regs);
		unsigned int keep = trace_call_bpf(call, hit->regs);

		if (!tk->is_return && ip != instruction_pointer(hit->regs))
			return 1;
		if (!keep)
			return 0;
	}

	events = this_cpu_ptr(call->perf_events);
	if (hlist_empty(events))
		return 0;

	dsize = __get_data_size(&tk->tp, hit->regs, hit->edata);
	/* perf adds a u32 size in front; keep the whole u64-aligned */
	size = ALIGN(head + tk->tp.size + dsize + sizeof(u32), sizeof(u64)) -
	       sizeof(u32);
	rec = perf_trace_buf_alloc(size, NULL, &rctx);
	if (!rec)
		return 0;

	/* no stale bytes where a fetch fails or strings end early */
	memset(rec + head, 0, size - head);
	tk_fill_record(hit, rec, dsize);
	perf_trace_buf_submit(rec, size, rctx, call->event.type, 1, hit->regs,
			      events, NULL);
	return 0;
}

NOKPROBE_SYMBOL(tk_perf);
#else
static int tk_perf(struct tk_hit *hit)
{
	return 0;
}
#endif

static nokprobe_inline int tk_hit(struct tk_hit *hit)
{
	unsigned int flags = trace_probe_load_flag(&hit->tk->tp);
	int ret = 0;

	raw_cpu_inc(*hit->tk->nhit);
	if (flags & TP_FLAG_TRACE)
		tk_trace(hit);
	if (flags & TP_FLAG_PROFILE)
		ret = tk_perf(hit);
	return ret;
}

/* pre_handler of an entry probe's kprobe */
static int tk_entry_dispatch(struct kprobe *kp, struct pt_regs *regs)
{
	struct tk_hit hit = {
		.tk = container_of(kp, struct trace_kprobe, rp.kp),
		.regs = regs,
	};

	return tk_hit(&hit);
}

NOKPROBE_SYMBOL(tk_entry_dispatch);

/*
 * kretprobe handlers.  get_kretprobe() is NULL when the kretprobe was
 * unregistered between the function's entry or return and this handler;
 * the instance is then dropped.
 */
static int tk_return_dispatch(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct tk_hit hit = { .regs = regs, .edata = ri->data };

	if (unlikely(!rp))
		return 0;
	hit.tk = container_of(rp, struct trace_kprobe, rp);
	hit.ret_ip = get_kretprobe_retaddr(ri);
	tk_hit(&hit);
	return 0;	/* the return value means nothing to kretprobes */
}

NOKPROBE_SYMBOL(tk_return_dispatch);

/* Entry handler of a return probe with $argN: save them for the return. */
int tk_return_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct trace_kprobe *tk;

	if (unlikely(!rp))
		return -ENOENT;	/* non-zero: no return handler for this call */
	tk = container_of(rp, struct trace_kprobe, rp);
	store_trace_entry_data(ri->data, &tk->tp, regs);
	return 0;
}

NOKPROBE_SYMBOL(tk_return_entry);

/* ---- The trace event: fields, output, enable and disable ---- */

static int tk_define_fields(struct trace_event_call *event_call)
{
	struct trace_kprobe *tk = tk_of_call(event_call);
	int ret;

	if (!tk)
		return -ENOENT;

	if (tk->is_return) {
		struct kretprobe_trace_entry_head field;

		DEFINE_FIELD(unsigned long, func, FIELD_STRING_FUNC, 0);
		DEFINE_FIELD(unsigned long, ret_ip, FIELD_STRING_RETIP, 0);

		return traceprobe_define_arg_fields(event_call, sizeof(field),
						    &tk->tp);
	} else {
		struct kprobe_trace_entry_head field;

		DEFINE_FIELD(unsigned long, ip, FIELD_STRING_IP, 0);

		return traceprobe_define_arg_fields(event_call, sizeof(field),
						    &tk->tp);
	}
}

/*
 * "EVENT: (SITE) ARGS" for an entry probe, "EVENT: (RETURN_SITE <- FUNC)
 * ARGS" for a return probe.
 */
static enum print_line_t tk_print(struct trace_iterator *iter, int flags,
				  struct trace_event *event)
{
	struct trace_event_call *call =
		container_of(event, struct trace_event_call, event);
	struct trace_kprobe *tk = tk_of_call(call);
	struct trace_seq *s = &iter->seq;
	void *rec = iter->ent;

	if (!tk)
		return trace_handle_return(s);

	trace_seq_printf(s, "%s: (", trace_probe_name(&tk->tp));
	if (tk->is_return) {
		struct kretprobe_trace_entry_head *h = rec;

		if (!seq_print_ip_sym(s, h->ret_ip,
				      flags | TRACE_ITER_SYM_OFFSET))
			goto out;
		trace_seq_puts(s, " <- ");
		if (!seq_print_ip_sym(s, h->func,
				      flags & ~TRACE_ITER_SYM_OFFSET))
			goto out;
	} else {
		struct kprobe_trace_entry_head *h = rec;

		if (!seq_print_ip_sym(s, h->ip, flags | TRACE_ITER_SYM_OFFSET))
			goto out;
	}
	trace_seq_putc(s, ')');
	if (trace_probe_print_args(s, tk->tp.args, tk->tp.nr_args,
				   (u8 *)rec + tk_head_size(tk), rec) < 0)
		goto out;
	trace_seq_putc(s, '\n');
out:
	return trace_handle_return(s);
}

/* Let the kprobes core run the handlers of @tk (a no-op while it is gone). */
static int tk_arm(struct trace_kprobe *tk)
{
	if (!tk->registered || kprobe_gone(&tk->rp.kp))
		return 0;
	return tk->is_return ? enable_kretprobe(&tk->rp) :
			       enable_kprobe(&tk->rp.kp);
}

static void tk_disarm(struct trace_kprobe *tk)
{
	if (!tk->registered)
		return;
	if (tk->is_return)
		disable_kretprobe(&tk->rp);
	else
		disable_kprobe(&tk->rp.kp);
}

static void tk_event_disarm(struct trace_probe *tp)
{
	struct trace_kprobe *tk;

	list_for_each_entry(tk, trace_probe_probe_list(tp), tp.list)
		tk_disarm(tk);
}

/*
 * ---- Event batches: arming and disarming deferred to the batch's end ----
 *
 * One write to a group's "enable" file, or one pattern written to
 * set_event (each of a write's patterns is a batch of its own), switches
 * many events as one event batch (trace_event_batch_begin() and _end(),
 * event_mutex held throughout).  Inside a batch the first consumer of an event does not
 * arm its probes, nor the last one disarm them: the probes are queued,
 * and at the end of the batch (tk_batch_ops.end) enable_kprobes() and
 * disable_kprobes() switch all the queued ones at once, so that their
 * call sites cost one change of each call-site ops' filter, not one per
 * event.  That end runs before the write returns: a write that returns
 * has every event it enabled armed, and every event it disabled disarmed
 * as disable_kprobe() leaves it (neither path waits for a handler that
 * is running; the file links it reads are freed after a grace period).
 *
 * The queues hold trace_kprobes by ->pending (empty when not queued) and
 * are guarded by event_mutex, so outside a batch nothing is queued.  Until
 * the end a disabled event's probes stay armed (their hits count in
 * kprobe_profile but write nothing: its flags are cleared at once) and an
 * enabled event's probes stay disarmed.  The queued state is settled,
 * i.e. the queues applied, or a probe's entry dropped, before anything
 * that needs a probe's real state:
 *  - an event switched back within the batch drops its probes' queued
 *    change instead (it has not happened yet: nothing to undo);
 *  - a probe unregistered (removed, freed, or its module coming again)
 *    leaves its queue first; removing all kprobe events settles first;
 *  - perf's register and unregister, and any enable or disable outside a
 *    batch, settle first.
 *
 * Where a deferred arm differs from the single path: when a probe cannot
 * be armed at the end, the reg callback has long returned 0 and the event
 * core has marked the file enabled.  The event is then undone as the
 * event core would have undone it: each of its files is disabled through
 * trace_event_enable_disable() (which disarms the probes that were armed),
 * and an error_log entry names the event.  The end returns the arm error,
 * which trace_event_batch_end() hands to the write, as the single path's
 * reg callback would have.  A failed disarm is not reported, as it is not
 * by the single path (the kprobes core warns; the event writes nothing).
 *
 * A file in soft mode (triggers and enable_event function probes keep
 * its event registered) is never left to the end: its enable arms the
 * event's probes at once even inside a batch, so that a failure is the
 * reg callback's, as on the single path, since the event core could not
 * disable it at the end (see tk_event_arm_failed()).
 */
static LIST_HEAD(tk_arm_queue);
static LIST_HEAD(tk_disarm_queue);

static const char *tk_batch_errs[] = {
	"Could not arm the event's probes at the end of the batch; event disabled",
};

/*
 * Queue the event's probes to be armed (@arm) or disarmed at the end of
 * the batch; a probe whose opposite change is still queued drops it.
 */
static void tk_event_defer(struct trace_probe *tp, bool arm)
{
	struct list_head *queue = arm ? &tk_arm_queue : &tk_disarm_queue;
	struct trace_kprobe *tk;

	list_for_each_entry(tk, trace_probe_probe_list(tp), tp.list) {
		if (!list_empty(&tk->pending)) {
			WARN_ON_ONCE(tk->pending_arm == arm);
			list_del_init(&tk->pending);
			continue;
		}
		if (!tk->registered || (arm && kprobe_gone(&tk->rp.kp)))
			continue;
		tk->pending_arm = arm;
		list_add_tail(&tk->pending, queue);
	}
}

/*
 * Undo the enable of the event of @tk, whose probes could not all be
 * armed at the end of a batch: disable it in each of its trace instances
 * as the event core does (its last consumer disarms the probes that were
 * armed).
 *
 * No file here is in soft mode, where that disable would do nothing (the
 * event core unregisters a soft-mode file only when its last soft user
 * goes), and perf is no consumer.  The arm was queued by the enable of a
 * file that found the event without consumers (or queued again when a
 * soft-mode file's own arm failed and that file was not added).  That
 * file was not in soft mode, as a soft-mode file's enable arms at once
 * (tk_event_enable()); one enabled later in the batch armed at once as
 * well and dropped the queued arm.  No file enters soft mode inside a
 * batch: soft enables come from registering triggers and enable_event
 * function probes, each under its own hold of event_mutex, never between
 * trace_event_batch_begin() and _end().  Perf registers outside batches,
 * which settle first.  A soft-mode file does reach a batch's enable
 * unregistered when its soft enable failed (the event core leaves it in
 * soft mode then), which is why it arms at once.
 */
static void tk_event_arm_failed(struct trace_kprobe *tk)
{
	struct trace_probe *tp = &tk->tp;

	trace_probe_disable_files(tp, "trace_kprobe", tk_batch_errs);
	if (!trace_probe_is_enabled(tp))
		tk_event_disarm(tp);
}

/*
 * Switch the probes on @queue (taken off the shared queue) with one array
 * call, or one by one without the memory for the array.  Returns 0, or
 * the first arm error if an event was disabled again for one.
 */
static int tk_apply_queue(struct list_head *queue, bool arm)
{
	struct trace_kprobe *tk, *next, *failed = NULL;
	struct kprobe **kps;
	unsigned int n = 0;
	int err, ret = 0;

	list_for_each_entry_safe(tk, next, queue, pending) {
		/* Gone since it was queued (its module went): nothing to do. */
		if (arm && kprobe_gone(&tk->rp.kp))
			list_del_init(&tk->pending);
		else
			n++;
	}
	if (!n)
		return 0;

	/* A disarm error is for the kprobes core to warn about, as ever. */
	kps = kvmalloc_array(n, sizeof(*kps), GFP_KERNEL_ACCOUNT);
	if (kps) {
		/* A kretprobe is switched by its kp, as enable_kretprobe() is. */
		n = 0;
		list_for_each_entry(tk, queue, pending)
			kps[n++] = &tk->rp.kp;
		if (arm)
			ret = enable_kprobes(kps, n);
		else
			disable_kprobes(kps, n);
		kvfree(kps);
	} else {
		list_for_each_entry(tk, queue, pending) {
			if (!arm) {
				tk_disarm(tk);
				continue;
			}
			err = tk_arm(tk);
			if (err && !ret)
				ret = err;
		}
	}

	/*
	 * A probe left disabled was not armed.  The probes of an event were
	 * queued together, so each failed event is undone once.
	 */
	list_for_each_entry_safe(tk, next, queue, pending) {
		list_del_init(&tk->pending);
		if (!arm || !kprobe_disabled(&tk->rp.kp) ||
		    kprobe_gone(&tk->rp.kp))
			continue;
		if (failed && failed->tp.event == tk->tp.event)
			continue;
		failed = tk;
		tk_event_arm_failed(tk);
	}
	/*
	 * Only an event left disabled is an error of the batch: a probe that
	 * went away meanwhile (-EINVAL) leaves its event as it is.  The array
	 * call fails whenever it leaves a probe disabled.
	 */
	if (!failed)
		return 0;
	/* A racing write to debugfs' "enabled" can leave no error to give. */
	return ret ? ret : -EIO;
}

/**
 * tk_settle - apply what event batches have queued
 *
 * Disarms the probes of the events disabled, then arms those of the
 * events enabled, each set with one call into the kprobes core.  Does
 * nothing when nothing is queued.  An event whose probes could not all
 * be armed is disabled again, with an error_log entry.
 *
 * Context: event_mutex held, outside any event batch; may sleep.
 * Return: 0, or the first arm error of an event disabled again.
 */
int tk_settle(void)
{
	LIST_HEAD(disarm);
	LIST_HEAD(arm);

	lockdep_assert_held(&event_mutex);
	if (list_empty(&tk_arm_queue) && list_empty(&tk_disarm_queue))
		return 0;
	/* Off the shared queues first: undoing a failed event may settle. */
	list_splice_init(&tk_disarm_queue, &disarm);
	list_splice_init(&tk_arm_queue, &arm);
	tk_apply_queue(&disarm, false);
	return tk_apply_queue(&arm, true);
}

/**
 * tk_forget - take a probe off its event batch's queue
 * @tk: a probe about to be unregistered
 *
 * Context: event_mutex held if @tk may be queued (a local probe of perf's
 * never is).
 */
void tk_forget(struct trace_kprobe *tk)
{
	if (!list_empty(&tk->pending))
		list_del_init(&tk->pending);
}

/* The end of an event batch: its error is the write's. */
static int tk_batch_end(void)
{
	return tk_settle();
}

static struct trace_event_batch_ops tk_batch_ops = {
	.end	= tk_batch_end,
};

/**
 * tk_batch_init - have the event core call us at the end of event batches
 *
 * Context: once, from the layer's initcall.
 */
void tk_batch_init(void)
{
	trace_event_batch_register(&tk_batch_ops);
}

/* ---- Enable and disable ---- */

/*
 * Arm every probe of the event now.  Inside a batch its queued changes
 * are dropped first: a queued disarm has not happened (the probes are
 * armed still), and a queued arm is done here.
 */
static int tk_event_arm_now(struct trace_probe *tp)
{
	struct trace_kprobe *tk;
	int ret;

	list_for_each_entry(tk, trace_probe_probe_list(tp), tp.list)
		tk_forget(tk);
	list_for_each_entry(tk, trace_probe_probe_list(tp), tp.list) {
		ret = tk_arm(tk);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Start a consumer of the event: trace instance @file, or perf when @file
 * is NULL.  The first consumer arms every probe of the event (at the end
 * of the batch, inside one); if one cannot be armed, none stays armed and
 * the consumer is not added.
 *
 * A file in soft mode arms at once even inside a batch, and even when an
 * earlier consumer of the batch has queued the arm: the event core cannot
 * disable it at the batch's end (tk_event_arm_failed()), so a failure
 * must be its reg callback's.  If that arm fails after another consumer
 * queued it, the arm is queued again for the batch's end to retry or
 * undo for that consumer.
 */
static int tk_event_enable(struct trace_event_call *call,
			   struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	bool batching = trace_event_batching();
	bool was_enabled, now;
	int ret = 0;

	if (!tp)
		return -ENODEV;
	if (!batching)
		tk_settle();
	now = !batching || (file && (file->flags & EVENT_FILE_FL_SOFT_MODE));

	was_enabled = trace_probe_is_enabled(tp);
	if (file) {
		ret = trace_probe_add_file(tp, file);
		if (ret)
			return ret;
	} else {
		trace_probe_set_flag(tp, TP_FLAG_PROFILE);
	}
	if (!now) {
		if (!was_enabled)
			tk_event_defer(tp, true);
		return 0;
	}
	/* Outside a batch an enabled event is armed already. */
	if (was_enabled && !batching)
		return 0;

	ret = tk_event_arm_now(tp);
	if (!ret)
		return 0;

	if (was_enabled)
		tk_event_defer(tp, true);
	else
		tk_event_disarm(tp);
	if (file)
		trace_probe_remove_file(tp, file);
	else
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	return ret;
}

/*
 * Stop a consumer; the last one disarms every probe of the event (at the
 * end of the batch, inside one).
 */
static int tk_event_disable(struct trace_event_call *call,
			    struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	bool batching = trace_event_batching();

	if (!tp)
		return -ENODEV;
	if (!batching)
		tk_settle();

	if (file) {
		if (!trace_probe_get_file_link(tp, file))
			return -ENOENT;
		if (trace_probe_has_single_file(tp))
			trace_probe_clear_flag(tp, TP_FLAG_TRACE);
	} else {
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	}
	if (!trace_probe_is_enabled(tp)) {
		if (batching)
			tk_event_defer(tp, false);
		else
			tk_event_disarm(tp);
	}

	/*
	 * The link is freed after a grace period (handlers may be walking
	 * the list); perf's side is synchronised by perf_trace_event_unreg().
	 */
	if (file)
		trace_probe_remove_file(tp, file);
	return 0;
}

/* The event class's reg callback; event_mutex held. */
static int tk_event_reg(struct trace_event_call *call, enum trace_reg type,
			void *data)
{
	switch (type) {
	case TRACE_REG_REGISTER:
		return tk_event_enable(call, data);
	case TRACE_REG_UNREGISTER:
		return tk_event_disable(call, data);
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
		return tk_event_enable(call, NULL);
	case TRACE_REG_PERF_UNREGISTER:
		return tk_event_disable(call, NULL);
#endif
	default:
		return 0;
	}
}

static struct trace_event_functions tk_event_funcs = {
	.trace		= tk_print,
};

static struct trace_event_fields tk_event_fields[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = tk_define_fields },
	{}
};

void tk_setup_call(struct trace_kprobe *tk)
{
	struct trace_event_call *call = trace_probe_event_call(&tk->tp);

	call->event.funcs = &tk_event_funcs;
	call->class->fields_array = tk_event_fields;
	call->class->reg = tk_event_reg;
	call->flags = TRACE_EVENT_FL_KPROBE;
}

/* ---- trace_kprobe objects ---- */

/* @tk is unregistered and off the dyn_event list (or never was on it). */
void tk_free(struct trace_kprobe *tk)
{
	trace_probe_cleanup(&tk->tp);
	kfree(tk->symbol);
	free_percpu(tk->nhit);
	kfree(tk);
}

struct trace_kprobe *tk_alloc(const char *group, const char *event,
			      void *addr, const char *symbol,
			      unsigned long offs, int maxactive,
			      int nargs, bool is_return)
{
	struct trace_kprobe *tk;
	int ret;

	tk = kzalloc(struct_size(tk, tp.args, nargs), GFP_KERNEL_ACCOUNT);
	if (!tk)
		return ERR_PTR(-ENOMEM);

	ret = trace_probe_init(&tk->tp, event, group, false, nargs);
	if (ret < 0) {
		kfree(tk);
		return ERR_PTR(ret);
	}
	dyn_event_init(&tk->devent, &trace_kprobe_ops);
	INIT_LIST_HEAD(&tk->pending);
	INIT_LIST_HEAD(&tk->reap);

	tk->nhit = alloc_percpu(unsigned long);
	if (symbol)
		tk->symbol = kstrdup(symbol, GFP_KERNEL_ACCOUNT);
	if (!tk->nhit || (symbol && !tk->symbol)) {
		tk_free(tk);
		return ERR_PTR(-ENOMEM);
	}

	if (symbol) {
		tk->rp.kp.symbol_name = tk->symbol;
		tk->rp.kp.offset = offs;
	} else {
		tk->rp.kp.addr = addr;
	}
	tk->is_return = is_return;
	if (is_return)
		tk->rp.handler = tk_return_dispatch;
	else
		tk->rp.kp.pre_handler = tk_entry_dispatch;
	tk->rp.maxactive = maxactive;
	return tk;
}

/**
 * tk_find - the first probe of a kprobe event
 * @event: the event's name
 * @group: the event's group
 *
 * Context: event_mutex held.
 * Return: the probe, or NULL when there is no such kprobe event.
 */
struct trace_kprobe *tk_find(const char *event, const char *group)
{
	struct trace_kprobe *tk;
	struct dyn_event *pos;

	for_each_dyn_event(pos) {
		tk = tk_of_dyn(pos);
		if (!tk)
			continue;
		if (trace_probe_match_event(&tk->tp, group, event))
			return tk;
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(tk_find);

/* ---- For the KUnit suite (trace_kprobe_kunit.c) ---- */

#if IS_ENABLED(CONFIG_TRACE_KPROBE_KUNIT_TEST)
/**
 * tk_store_args_twice - the argument part of a probe's record, both ways
 * @tk: an entry probe, or a return probe without entry data
 * @regs: the registers of a made-up hit
 * @quick: gets the arguments as a hit stores them
 * @slow: gets them with every argument through process_fetch_insn()
 * @size: bytes of @quick and of @slow; both are zeroed first
 *
 * For the KUnit suite: both stores are templates (trace_probe_tmpl.h) that
 * only this translation unit instantiates for kprobe events.
 *
 * Context: event_mutex held.
 * Return: 0, or -E2BIG when the arguments need more than @size bytes.
 */
int tk_store_args_twice(struct trace_kprobe *tk, struct pt_regs *regs,
			void *quick, void *slow, size_t size)
{
	int dsize = __get_data_size(&tk->tp, regs, NULL);

	if (tk->tp.size + dsize > size)
		return -E2BIG;
	memset(quick, 0, size);
	memset(slow, 0, size);
	store_trace_args(quick, &tk->tp, regs, NULL, 0, dsize);
	store_trace_args_slow(slow, &tk->tp, regs, NULL, 0, dsize);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(tk_store_args_twice);
#endif
