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
 * prints it; this file owns the probe point, the kprobe or kretprobe behind
 * it, and the hit path that turns a hit into a ring-buffer or perf record.
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
#include <linux/ctype.h>
#include <linux/error-injection.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <asm/setup.h>		/* COMMAND_LINE_SIZE */

#include "trace_dynevent.h"
#include "trace_kprobe.h"
#include "trace_kprobe_selftest.h"
#include "trace_probe.h"
#include "trace_probe_tmpl.h"
#include "trace_probe_kernel.h"

#define KPROBE_EVENT_SYSTEM	"kprobes"
/* kretprobe instances are walked as a list: keep their number sane */
#define KRETPROBE_MAXACTIVE_MAX	4096

static struct dyn_event_operations trace_kprobe_ops;

/* The kprobe event behind @ev, or NULL when @ev is another kind's */
static struct trace_kprobe *tk_of_dyn(struct dyn_event *ev)
{
	if (ev->ops != &trace_kprobe_ops)
		return NULL;
	return container_of(ev, struct trace_kprobe, devent);
}

/* The first probe of the event behind @call, or NULL */
static struct trace_kprobe *tk_of_call(struct trace_event_call *call)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	return tp ? container_of(tp, struct trace_kprobe, tp) : NULL;
}

/**
 * tk_hits - the hits of a probe, as kprobe_profile shows them
 * @tk: the probe
 *
 * Counts every hit the handlers saw, armed or not.
 *
 * Context: any; the per-CPU counts are read without a lock.
 * Return: the sum over all CPUs.
 */
VISIBLE_IF_KUNIT unsigned long tk_hits(struct trace_kprobe *tk)
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
VISIBLE_IF_KUNIT unsigned long tk_missed(struct trace_kprobe *tk)
{
	unsigned long missed = tk->rp.kp.nmissed;

	if (tk->is_return)
		missed += tk->rp.nmissed;
	return missed;
}
EXPORT_SYMBOL_IF_KUNIT(tk_missed);

/* The probed address now, or 0 when the symbol is not (yet) known. */
static unsigned long tk_address(struct trace_kprobe *tk)
{
	unsigned long addr;

	if (!tk->symbol)
		return (unsigned long)tk->rp.kp.addr;
	addr = kallsyms_lookup_name(tk->symbol);
	return addr ? addr + tk->rp.kp.offset : 0;
}

/* "SYM", "SYM+OFFS" or "0xADDR": how listings and removals name the site */
static void tk_format_site(struct trace_kprobe *tk, char *buf, size_t size)
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
static int tk_return_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
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
 * Start a consumer of the event: trace instance @file, or perf when @file
 * is NULL.  The first consumer arms every probe of the event; if one
 * cannot be armed, none stays armed and the consumer is not added.
 */
static int tk_event_enable(struct trace_event_call *call,
			   struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	struct trace_kprobe *tk;
	bool was_enabled;
	int ret = 0;

	if (!tp)
		return -ENODEV;

	was_enabled = trace_probe_is_enabled(tp);
	if (file) {
		ret = trace_probe_add_file(tp, file);
		if (ret)
			return ret;
	} else {
		trace_probe_set_flag(tp, TP_FLAG_PROFILE);
	}
	if (was_enabled)
		return 0;

	list_for_each_entry(tk, trace_probe_probe_list(tp), tp.list) {
		ret = tk_arm(tk);
		if (ret)
			break;
	}
	if (!ret)
		return 0;

	tk_event_disarm(tp);
	if (file)
		trace_probe_remove_file(tp, file);
	else
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	return ret;
}

/* Stop a consumer; the last one disarms every probe of the event. */
static int tk_event_disable(struct trace_event_call *call,
			    struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (!tp)
		return -ENODEV;

	if (file) {
		if (!trace_probe_get_file_link(tp, file))
			return -ENOENT;
		if (trace_probe_has_single_file(tp))
			trace_probe_clear_flag(tp, TP_FLAG_TRACE);
	} else {
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	}
	if (!trace_probe_is_enabled(tp))
		tk_event_disarm(tp);

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

static void tk_setup_call(struct trace_kprobe *tk)
{
	struct trace_event_call *call = trace_probe_event_call(&tk->tp);

	call->event.funcs = &tk_event_funcs;
	call->class->fields_array = tk_event_fields;
	call->class->reg = tk_event_reg;
	call->flags = TRACE_EVENT_FL_KPROBE;
}

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
static int tk_check_symbol(const char *spec)
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
static int tk_register(struct trace_kprobe *tk)
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

/* Take @tk back from the kprobes core; its handlers have all returned. */
static void tk_unregister(struct trace_kprobe *tk)
{
	if (!tk->registered)
		return;
	if (tk->is_return)
		unregister_kretprobe(&tk->rp);
	else
		unregister_kprobe(&tk->rp.kp);
	tk_kprobe_reset(tk);
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

/* ---- trace_kprobe objects ---- */

/* @tk is unregistered and off the dyn_event list (or never was on it). */
static void tk_free(struct trace_kprobe *tk)
{
	trace_probe_cleanup(&tk->tp);
	kfree(tk->symbol);
	free_percpu(tk->nhit);
	kfree(tk);
}

static struct trace_kprobe *tk_alloc(const char *group, const char *event,
				     void *addr, const char *symbol,
				     unsigned long offs, int maxactive,
				     int nargs, bool is_return)
{
	struct trace_kprobe *tk;
	int ret;

	tk = kzalloc(struct_size(tk, tp.args, nargs), GFP_KERNEL);
	if (!tk)
		return ERR_PTR(-ENOMEM);

	ret = trace_probe_init(&tk->tp, event, group, false, nargs);
	if (ret < 0) {
		kfree(tk);
		return ERR_PTR(ret);
	}
	dyn_event_init(&tk->devent, &trace_kprobe_ops);

	tk->nhit = alloc_percpu(unsigned long);
	if (symbol)
		tk->symbol = kstrdup(symbol, GFP_KERNEL);
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
VISIBLE_IF_KUNIT struct trace_kprobe *tk_find(const char *event, const char *group)
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
static int tk_publish(struct trace_kprobe *tk)
{
	struct trace_kprobe *old;

	guard(mutex)(&event_mutex);
	old = tk_find(trace_probe_name(&tk->tp),
		      trace_probe_group_name(&tk->tp));
	return old ? tk_join(tk, old) : tk_new_event(tk);
}

/*
 * Remove and free @tk (event_mutex held).  The last probe of an event
 * takes the event along, and only while nobody holds it.  No probe of an
 * enabled event goes: "-:GRP/EVENT" removes the probes one by one, and
 * must not stop half way with some of them gone (6.12 removed siblings
 * of an enabled event, then failed on the last one).
 */
static int tk_remove(struct trace_kprobe *tk)
{
	struct trace_probe *tp = &tk->tp;
	int ret;

	if (trace_probe_is_enabled(tp))
		return -EBUSY;
	if (!trace_probe_has_sibling(tp)) {
		if (trace_event_dyn_busy(trace_probe_event_call(tp)))
			return -EBUSY;
		ret = trace_probe_unregister_event_call(tp);
		if (ret)
			return -EBUSY;
	}

	tk_unregister(tk);
	dyn_event_remove(&tk->devent);
	trace_probe_unlink(tp);
	tk_free(tk);
	return 0;
}

/* ---- Parsing a definition ---- */

/* What the first two words of a definition say */
struct tk_head {
	bool		is_return;
	unsigned int	maxactive;
	const char	*event;		/* after "p:", or NULL */
	const char	*group;
	char		*symbol;	/* "[MOD:]SYM", kmalloc'ed, or NULL */
	long		offset;
	void		*addr;		/* when there is no symbol */
	unsigned int	flags;		/* TPARG_FL_* for the arguments */
};

/* Is @word a kprobe kind: "p", "r" or "rN", alone or before ':'? */
static bool tk_word_is_kind(const char *word)
{
	const char *p = word + 1;

	if (word[0] != 'p' && word[0] != 'r')
		return false;
	/* digits after the letter are checked by tk_parse_maxactive() */
	if (isdigit(*p))
		return true;
	return *p == '\0' || *p == ':';
}

/* "rN[:...]": N instances at most (argv[0] is the current log word). */
static int tk_parse_maxactive(const char *word, struct tk_head *h)
{
	char num[MAX_EVENT_NAME_LEN];
	size_t len = strcspn(word + 1, ":");

	if (!len)
		return 0;
	if (!h->is_return) {
		trace_probe_log_err(1, BAD_MAXACT_TYPE);
		return -EINVAL;
	}
	if (len >= sizeof(num)) {
		trace_probe_log_err(1, BAD_MAXACT);
		return -EINVAL;
	}
	memcpy(num, word + 1, len);
	num[len] = '\0';
	if (kstrtouint(num, 0, &h->maxactive) || !h->maxactive) {
		trace_probe_log_err(1, BAD_MAXACT);
		return -EINVAL;
	}
	if (h->maxactive > KRETPROBE_MAXACTIVE_MAX) {
		trace_probe_log_err(1, MAXACT_TOO_BIG);
		return -EINVAL;
	}
	return 0;
}

/*
 * "[MOD:]SYM[+OFFS][%return]" (log word 1).  Sets the argument flags:
 * RETURN for a return probe, FENTRY for an entry probe on a function's
 * first instruction.
 */
static int tk_parse_symbol(const char *word, struct tk_head *h)
{
	char *suffix;
	int ret;

	h->symbol = kstrdup(word, GFP_KERNEL);
	if (!h->symbol)
		return -ENOMEM;

	suffix = strchr(h->symbol, '%');
	if (suffix) {
		if (strcmp(suffix, "%return")) {
			trace_probe_log_err(suffix - h->symbol, BAD_ADDR_SUFFIX);
			return -EINVAL;
		}
		*suffix = '\0';
		h->is_return = true;
	}

	ret = traceprobe_split_symbol_offset(h->symbol, &h->offset);
	if (ret || h->offset < 0 || h->offset > UINT_MAX) {
		trace_probe_log_err(0, BAD_PROBE_ADDR);
		return -EINVAL;
	}
	switch (tk_check_symbol(h->symbol)) {
	case 0:
		break;
	case -EADDRNOTAVAIL:
		trace_probe_log_err(0, NON_UNIQ_SYMBOL);
		return -EINVAL;
	default:
		trace_probe_log_err(0, BAD_PROBE_ADDR);
		return -EINVAL;
	}

	/* -ENOENT (module not loaded): decided when the probe registers */
	ret = kprobe_on_func_entry(NULL, h->symbol, h->offset);
	if (h->is_return) {
		if (ret == -EINVAL) {
			trace_probe_log_err(0, BAD_RETPROBE);
			return -EINVAL;
		}
		h->flags |= TPARG_FL_RETURN;
	} else if (!ret) {
		h->flags |= TPARG_FL_FENTRY;
	}
	return 0;
}

/* A site that only a uprobe can have: "PATH:OFFSET" */
static bool tk_site_is_uprobe(const char *word)
{
	return strchr(word, '/') && strchr(word, ':');
}

static void tk_default_name(char *buf, const struct tk_head *h)
{
	if (h->symbol)
		snprintf(buf, MAX_EVENT_NAME_LEN, "%c_%s_%ld",
			 h->is_return ? 'r' : 'p', h->symbol, h->offset);
	else
		snprintf(buf, MAX_EVENT_NAME_LEN, "%c_0x%p",
			 h->is_return ? 'r' : 'p', h->addr);
	sanitize_event_name(buf);
}

/*
 * The fetch arguments of @tk: meta arguments ($arg*, %pd) expanded, each
 * compiled by the library.  Log words start at 2.
 */
static int tk_parse_args(struct trace_kprobe *tk, int argc, const char **argv,
			 struct traceprobe_parse_context *ctx)
{
	int i, ret;

	for (i = 0; i < argc; i++) {
		trace_probe_log_set_index(i + 2);
		ctx->offset = 0;
		ret = traceprobe_parse_probe_arg(&tk->tp, i, argv[i], ctx);
		if (ret)
			return ret;
	}
	if (tk->is_return && tk->tp.entry_arg) {
		tk->rp.entry_handler = tk_return_entry;
		tk->rp.data_size = traceprobe_get_entry_data_size(&tk->tp);
	}
	return traceprobe_set_print_fmt(&tk->tp, tk->is_return ?
					PROBE_PRINT_RETURN :
					PROBE_PRINT_NORMAL);
}

/* Log the error of a probe the kprobes core refused (log word 1). */
static void tk_log_register_error(int ret)
{
	trace_probe_log_set_index(1);
	switch (ret) {
	case -ENOMEM:
	case -EEXIST:		/* logged where the clash was found */
		break;
	case -ENOENT:		/* the symbol went, or never came */
		trace_probe_log_err(0, BAD_PROBE_ADDR);
		break;
	case -EILSEQ:		/* the kprobes core's instruction decoder */
		trace_probe_log_err(0, BAD_INSN_BNDRY);
		break;
	default:
		trace_probe_log_err(0, FAIL_REG_PROBE);
	}
}

/* Build the probe that @argv defines from its parsed head, and publish it. */
static int tk_build(int argc, const char **argv, struct tk_head *h,
		    struct traceprobe_parse_context *ctx)
{
	char abuf[MAX_BTF_ARGS_LEN], nbuf[MAX_EVENT_NAME_LEN];
	const char **args = argv + 2, **expanded;
	struct trace_kprobe *tk;
	int nargs = argc - 2;
	char *dbuf = NULL;
	int ret;

	if (!h->event) {
		tk_default_name(nbuf, h);
		h->event = nbuf;
	}

	ctx->flags = TPARG_FL_KERNEL | h->flags;
	ctx->funcname = h->symbol;
	expanded = traceprobe_expand_meta_args(nargs, args, &nargs, abuf,
					       sizeof(abuf), ctx);
	if (IS_ERR(expanded))
		return PTR_ERR(expanded);
	if (expanded)
		args = expanded;
	if (nargs > MAX_TRACE_ARGS) {
		trace_probe_log_set_index(argc - 2 > MAX_TRACE_ARGS ?
					  2 + MAX_TRACE_ARGS : 2);
		trace_probe_log_err(0, TOO_MANY_ARGS);
		ret = -E2BIG;
		goto out;
	}
	ret = traceprobe_expand_dentry_args(nargs, args, &dbuf);
	if (ret)
		goto out;

	tk = tk_alloc(h->group, h->event, h->addr, h->symbol, h->offset,
		      h->maxactive, nargs, h->is_return);
	if (IS_ERR(tk)) {
		ret = PTR_ERR(tk);
		goto out;
	}
	ret = tk_parse_args(tk, nargs, args, ctx);
	if (ret >= 0) {
		ret = tk_publish(tk);
		if (ret)
			tk_log_register_error(ret);
	}
	if (ret)
		tk_free(tk);
out:
	kfree(dbuf);
	kfree(expanded);
	return ret < 0 ? ret : 0;
}

/*
 * A line that names no kprobe.  From dynamic_events it may be another
 * probe type's: -ECANCELED lets the next parser have it.  kprobe_events
 * (@final) takes nothing else, so there it is bad input, logged.
 */
static int tk_not_a_kprobe(int argc, const char **argv, bool final)
{
	if (!final)
		return -ECANCELED;
	trace_probe_log_init("trace_kprobe", argc, argv);
	if (!tk_word_is_kind(argv[0])) {
		trace_probe_log_err(0, BAD_PROBE_TYPE);
	} else if (argc < 2) {
		trace_probe_log_err(strlen(argv[0]), NO_PROBE_POINT);
	} else {
		trace_probe_log_set_index(1);
		trace_probe_log_err(0, BAD_PROBE_ADDR);
	}
	trace_probe_log_clear();
	return -EINVAL;
}

/* @final: the line came from kprobe_events (see tk_not_a_kprobe()). */
static int tk_create_argv(int argc, const char **argv, bool final)
{
	struct traceprobe_parse_context ctx = { };
	struct tk_head h = { .group = KPROBE_EVENT_SYSTEM };
	char gbuf[MAX_EVENT_NAME_LEN];
	unsigned long addr;
	int ret;

	if (!tk_word_is_kind(argv[0]) || argc < 2)
		return tk_not_a_kprobe(argc, argv, final);
	if (kstrtoul(argv[1], 0, &addr) && tk_site_is_uprobe(argv[1]))
		return tk_not_a_kprobe(argc, argv, final);

	trace_probe_log_init("trace_kprobe", argc, argv);
	h.is_return = argv[0][0] == 'r';
	h.event = strchr(argv[0], ':');
	if (h.event)
		h.event++;

	ret = tk_parse_maxactive(argv[0], &h);
	if (ret)
		goto out;

	if (!kstrtoul(argv[1], 0, &addr)) {
		h.addr = (void *)addr;
	} else {
		trace_probe_log_set_index(1);
		ret = tk_parse_symbol(argv[1], &h);
		if (ret)
			goto out;
	}

	trace_probe_log_set_index(0);
	if (h.event) {
		ret = traceprobe_parse_event_name(&h.event, &h.group, gbuf,
						  h.event - argv[0]);
		if (ret)
			goto out;
	}
	ret = tk_build(argc, argv, &h, &ctx);
out:
	traceprobe_finish_parse(&ctx);
	trace_probe_log_clear();
	kfree(h.symbol);
	return ret;
}

static int tk_dyn_create_argv(int argc, const char **argv)
{
	return tk_create_argv(argc, argv, false);
}

static int tk_events_create_argv(int argc, const char **argv)
{
	return tk_create_argv(argc, argv, true);
}

/* dynamic_events: called with dyn_event_ops_mutex held */
static int tk_dyn_create(const char *raw_command)
{
	return trace_probe_create(raw_command, tk_dyn_create_argv);
}

/**
 * tk_events_run - run one line of kprobe_events
 * @cmd: a definition, or a removal ("-:[GRP/]EVENT [SITE [ARGS]]")
 *
 * Also runs the lines of the in-kernel API, of kprobe_event= and of the
 * boot-time selftest.
 *
 * Context: process context; takes dyn_event_ops_mutex and event_mutex.
 * Return: 0, or the errno the write to kprobe_events would fail with.
 */
VISIBLE_IF_KUNIT int tk_events_run(const char *cmd)
{
	if (cmd[0] == '-')
		return dyn_event_release(cmd, &trace_kprobe_ops);
	return trace_probe_create_locked(cmd, tk_events_create_argv);
}
EXPORT_SYMBOL_IF_KUNIT(tk_events_run);

/* ---- dyn_event callbacks ---- */

/**
 * tk_dyn_show - the kprobe_events line of one probe
 * @m: the seq_file to print into
 * @ev: the probe's dyn_event (a kprobe event's)
 *
 * The dyn_event show callback, and the lines of kprobe_events.
 *
 * Context: event_mutex held.
 * Return: 0.
 */
VISIBLE_IF_KUNIT int tk_dyn_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_kprobe *tk = tk_of_dyn(ev);
	char site[MAX_ARGSTR_LEN + 1];
	int i;

	seq_putc(m, tk->is_return ? 'r' : 'p');
	if (tk->is_return && tk->rp.maxactive)
		seq_printf(m, "%d", tk->rp.maxactive);
	tk_format_site(tk, site, sizeof(site));
	seq_printf(m, ":%s/%s %s", trace_probe_group_name(&tk->tp),
		   trace_probe_name(&tk->tp), site);
	for (i = 0; i < tk->tp.nr_args; i++)
		seq_printf(m, " %s=%s", tk->tp.args[i].name,
			   tk->tp.args[i].comm);
	seq_putc(m, '\n');
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(tk_dyn_show);

/* Does "SITE [ARGS]" in @argv describe @tk (no @argv: yes)? */
static bool tk_match_head(struct trace_kprobe *tk, int argc, const char **argv)
{
	char site[MAX_ARGSTR_LEN + 1];

	if (!argc)
		return true;
	tk_format_site(tk, site, sizeof(site));
	if (strcmp(site, argv[0]))
		return false;
	return trace_probe_match_command_args(&tk->tp, argc - 1, argv + 1);
}

static bool tk_dyn_match(const char *system, const char *event, int argc,
			 const char **argv, struct dyn_event *ev)
{
	struct trace_kprobe *tk = tk_of_dyn(ev);

	if (!trace_probe_match_event(&tk->tp, system, event))
		return false;
	return tk_match_head(tk, argc, argv);
}

static bool tk_dyn_is_busy(struct dyn_event *ev)
{
	return trace_probe_is_enabled(&tk_of_dyn(ev)->tp);
}

static int tk_dyn_free(struct dyn_event *ev)
{
	return tk_remove(tk_of_dyn(ev));
}

static struct dyn_event_operations trace_kprobe_ops = {
	.create		= tk_dyn_create,
	.show		= tk_dyn_show,
	.is_busy	= tk_dyn_is_busy,
	.free		= tk_dyn_free,
	.match		= tk_dyn_match,
};

/* ---- tracefs: kprobe_events and kprobe_profile ---- */

/* "  EVENT  HITS  MISSED", columns as in 6.12 */
static int tk_show_profile(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_kprobe *tk = tk_of_dyn(ev);

	seq_printf(m, "  %-44s %15lu %15lu\n", trace_probe_name(&tk->tp),
		   tk_hits(tk), tk_missed(tk));
	return 0;
}

/*
 * Both files list the kprobe events, each with its own line format; the
 * show function is the inode's private data and becomes the seq_file's.
 */
typedef int (*tk_show_fn)(struct seq_file *m, struct dyn_event *ev);

static int tk_list_show(struct seq_file *m, void *v)
{
	tk_show_fn show = m->private;
	struct dyn_event *ev = v;

	return tk_of_dyn(ev) ? show(m, ev) : 0;
}

static const struct seq_operations tk_list_seq_ops = {
	.start	= dyn_event_seq_start,
	.next	= dyn_event_seq_next,
	.stop	= dyn_event_seq_stop,
	.show	= tk_list_show,
};

static int tk_list_open(struct file *file, tk_show_fn show)
{
	int ret = seq_open(file, &tk_list_seq_ops);

	if (!ret)
		((struct seq_file *)file->private_data)->private = show;
	return ret;
}

static int tk_events_open(struct inode *inode, struct file *file)
{
	int ret;

	ret = security_locked_down(LOCKDOWN_TRACEFS);
	if (ret)
		return ret;

	/* "echo > kprobe_events": all or nothing, -EBUSY if one is in use */
	if ((file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC)) {
		ret = dyn_events_release_all(&trace_kprobe_ops);
		if (ret < 0)
			return ret;
	}
	return tk_list_open(file, tk_dyn_show);
}

static ssize_t tk_events_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	return trace_parse_run_command(file, ubuf, count, ppos, tk_events_run);
}

static int tk_profile_open(struct inode *inode, struct file *file)
{
	int ret;

	ret = security_locked_down(LOCKDOWN_TRACEFS);
	if (ret)
		return ret;
	return tk_list_open(file, tk_show_profile);
}

static const struct file_operations tk_events_fops = {
	.owner		= THIS_MODULE,
	.open		= tk_events_open,
	.read		= seq_read,
	.write		= tk_events_write,
	.llseek		= seq_lseek,
	.release	= seq_release,
};

static const struct file_operations tk_profile_fops = {
	.owner		= THIS_MODULE,
	.open		= tk_profile_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release,
};

/* ---- In-kernel dynevent API (include/linux/trace_events.h) ---- */

static int tk_cmd_run(struct dynevent_cmd *cmd)
{
	return tk_events_run(cmd->seq.buffer);
}

/**
 * kprobe_event_cmd_init - prepare a command that defines a kprobe event
 * @cmd: the command object
 * @buf: buffer the command text is built in
 * @maxlen: size of @buf
 *
 * Call before __kprobe_event_gen_cmd_start() and __kprobe_event_add_fields();
 * kprobe_event_gen_cmd_end() then runs the command as a line written to
 * kprobe_events would be.
 *
 * Context: process context.
 */
void kprobe_event_cmd_init(struct dynevent_cmd *cmd, char *buf, int maxlen)
{
	dynevent_cmd_init(cmd, buf, maxlen, DYNEVENT_TYPE_KPROBE, tk_cmd_run);
}
EXPORT_SYMBOL_GPL(kprobe_event_cmd_init);

/* Append " @word" to @cmd. */
static int tk_cmd_add_word(struct dynevent_cmd *cmd, const char *word)
{
	struct dynevent_arg arg;

	dynevent_arg_init(&arg, 0);
	arg.str = word;
	return dynevent_arg_add(cmd, &arg, NULL);
}

/* Append the NULL-terminated list of fetch arguments @args to @cmd. */
static int tk_cmd_add_args(struct dynevent_cmd *cmd, va_list args)
{
	const char *field;
	int ret = 0;

	while (!ret && (field = va_arg(args, const char *))) {
		if (++cmd->n_fields > MAX_TRACE_ARGS)
			return -EINVAL;
		ret = tk_cmd_add_word(cmd, field);
	}
	return ret;
}

/**
 * __kprobe_event_gen_cmd_start - start the text of a kprobe event definition
 * @cmd: a command set up by kprobe_event_cmd_init()
 * @kretprobe: define a return probe ("r") instead of an entry probe ("p")
 * @name: event name; the event goes in the "kprobes" group
 * @loc: the probe point, as written in kprobe_events ("SYM[+OFFS]" ...)
 * @...: fetch arguments as strings, ending with NULL (the
 *	kprobe_event_gen_cmd_start() macros add the NULL)
 *
 * Only builds the text; kprobe_event_gen_cmd_end() runs it.
 *
 * Context: process context.
 * Return: 0; -EINVAL for a command of another kind, a NULL @loc, or more
 * than MAX_TRACE_ARGS arguments; -E2BIG when the buffer is full.
 */
int __kprobe_event_gen_cmd_start(struct dynevent_cmd *cmd, bool kretprobe,
				 const char *name, const char *loc, ...)
{
	char head[MAX_EVENT_NAME_LEN];
	va_list args;
	int ret;

	if (cmd->type != DYNEVENT_TYPE_KPROBE || !loc)
		return -EINVAL;

	snprintf(head, sizeof(head), "%c:%s/%s", kretprobe ? 'r' : 'p',
		 KPROBE_EVENT_SYSTEM, name);
	ret = dynevent_str_add(cmd, head) ?: tk_cmd_add_word(cmd, loc);
	if (ret)
		return ret;

	va_start(args, loc);
	ret = tk_cmd_add_args(cmd, args);
	va_end(args);
	return ret;
}
EXPORT_SYMBOL_GPL(__kprobe_event_gen_cmd_start);

/**
 * __kprobe_event_add_fields - append fetch arguments to a kprobe command
 * @cmd: a command started with __kprobe_event_gen_cmd_start()
 * @...: fetch arguments as strings, ending with NULL (the
 *	kprobe_event_add_fields() macro adds the NULL)
 *
 * Context: process context.
 * Return: 0; -EINVAL for a command of another kind or more than
 * MAX_TRACE_ARGS arguments in all; -E2BIG when the buffer is full.
 */
int __kprobe_event_add_fields(struct dynevent_cmd *cmd, ...)
{
	va_list args;
	int ret;

	if (cmd->type != DYNEVENT_TYPE_KPROBE)
		return -EINVAL;

	va_start(args, cmd);
	ret = tk_cmd_add_args(cmd, args);
	va_end(args);
	return ret;
}
EXPORT_SYMBOL_GPL(__kprobe_event_add_fields);

/**
 * kprobe_event_delete - remove a kprobe event
 * @name: the event's name, "EVENT" or "GROUP/EVENT"
 *
 * As "-:@name" written to kprobe_events: every probe of the event goes.
 *
 * Context: process context.
 * Return: 0, -ENOENT when there is no such event, -EBUSY when it is in use.
 */
int kprobe_event_delete(const char *name)
{
	char cmd[MAX_EVENT_NAME_LEN];

	snprintf(cmd, sizeof(cmd), "-:%s", name);
	return tk_events_run(cmd);
}
EXPORT_SYMBOL_GPL(kprobe_event_delete);

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

/**
 * destroy_local_trace_kprobe - free an event of create_local_trace_kprobe()
 * @event_call: the event
 *
 * Context: process context; perf has disabled the event.
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
	tk_unregister(tk);
	tk_free(tk);
}
#endif /* CONFIG_PERF_EVENTS */

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

static int tk_watch_modules(void)
{
	return register_module_notifier(&tk_module_nb);
}
#else
static int tk_watch_modules(void)
{
	return 0;
}
#endif /* CONFIG_MODULES */

/* ---- Boot: kprobe_event= and the tracefs files ---- */

/* "kprobe_event=DEF[;DEF...]", with ',' for ' ' in each DEF */
static char tk_boot_defs[COMMAND_LINE_SIZE] __initdata;

static int __init tk_boot_param(char *str)
{
	strscpy(tk_boot_defs, str, sizeof(tk_boot_defs));
	/* the boot-time selftests would see the events fire */
	disable_tracing_selftest("running kprobe events");
	return 1;
}
__setup("kprobe_event=", tk_boot_param);

/* Define the boot-time events, then enable them in the top instance. */
static void __init tk_boot_setup(void)
{
	struct trace_array *tr = top_trace_array();
	char *next = tk_boot_defs, *def;
	struct trace_event_file *file;
	struct trace_kprobe *tk;
	struct dyn_event *pos;
	int ret;

	strreplace(tk_boot_defs, ',', ' ');
	while ((def = strsep(&next, ";"))) {
		if (!*def)
			continue;
		ret = tk_events_run(def);
		if (ret)
			pr_warn("kprobe_event=: \"%s\" refused: %d\n", def, ret);
	}

	if (!tr)
		return;
	guard(mutex)(&event_mutex);
	for_each_dyn_event(pos) {
		tk = tk_of_dyn(pos);
		if (!tk)
			continue;
		file = find_event_file(tr, trace_probe_group_name(&tk->tp),
				       trace_probe_name(&tk->tp));
		if (file)
			trace_event_enable_disable(file, 1, 0);
	}
}

/* dyn_event ops early, so that other initcalls may define kprobe events */
static __init int tk_init_early(void)
{
	int ret = dyn_event_register(&trace_kprobe_ops);

	if (ret)
		return ret;
	return tk_watch_modules() ? -EINVAL : 0;
}
core_initcall(tk_init_early);

static __init int tk_init_tracefs(void)
{
	if (tracing_init_dentry())
		return 0;

	trace_create_file("kprobe_events", TRACE_MODE_WRITE, NULL, NULL,
			  &tk_events_fops);
	trace_create_file("kprobe_profile", TRACE_MODE_READ, NULL, NULL,
			  &tk_profile_fops);
	tk_boot_setup();
	return 0;
}
fs_initcall(tk_init_tracefs);

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

/* ---- Boot-time selftest (CONFIG_FTRACE_STARTUP_TEST) ---- */

#ifdef CONFIG_FTRACE_STARTUP_TEST
/* Enable (@on) or disable the test event @event; 0 on success. */
static __init int tk_selftest_switch(const char *event, int on)
{
	struct trace_array *tr = top_trace_array();
	struct trace_event_file *file;

	guard(mutex)(&event_mutex);
	file = tr ? find_event_file(tr, KPROBE_EVENT_SYSTEM, event) : NULL;
	return file ? trace_event_enable_disable(file, on, 0) : -ENOENT;
}

static __init unsigned long tk_selftest_hits(const char *event)
{
	struct trace_kprobe *tk;

	guard(mutex)(&event_mutex);
	tk = tk_find(event, KPROBE_EVENT_SYSTEM);
	return tk ? tk_hits(tk) : ULONG_MAX;
}

/*
 * An entry probe with stack arguments and a return probe with $retval on
 * kprobe_trace_selftest_target() (built with call sites): each must see
 * exactly the one call made while they are enabled, and both must go
 * away again.
 */
static __init int tk_selftest(void)
{
	static const char * const defs[] = {
		"p:testprobe kprobe_trace_selftest_target $stack $stack0 +0($stack)",
		"r:testprobe2 kprobe_trace_selftest_target $retval",
	};
	static const char * const names[] = { "testprobe", "testprobe2" };
	const char *why = NULL;
	int i, ret;

	if (tracing_is_disabled())
		return -ENODEV;
	if (tracing_selftest_disabled)
		return 0;

	for (i = 0; i < ARRAY_SIZE(defs) && !why; i++) {
		if (tk_events_run(defs[i]))
			why = "cannot define the test events";
		else if (tk_selftest_switch(names[i], 1))
			why = "cannot enable the test events";
	}
	if (!why && kprobe_trace_selftest_target(1, 2, 3, 4, 5, 6) != 21)
		why = "the target returned a wrong sum";
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!why && tk_selftest_hits(names[i]) != 1)
			why = "wrong number of hits";
		tk_selftest_switch(names[i], 0);
		ret = tk_events_run(i ? "-:testprobe2" : "-:testprobe");
		if (ret && !why)
			why = "cannot remove the test events";
	}

	/* the optimizer must be done before __init text goes */
	wait_for_kprobe_optimizer();
	if (why)
		pr_err("Testing kprobe tracing: FAILED: %s\n", why);
	else
		pr_info("Testing kprobe tracing: OK\n");
	return 0;
}
late_initcall(tk_selftest);
#endif /* CONFIG_FTRACE_STARTUP_TEST */
