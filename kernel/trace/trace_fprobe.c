// SPDX-License-Identifier: GPL-2.0
/*
 * Function and tracepoint probe events: the "f" and "t" definitions of
 * dynamic_events.
 *
 *	f[N][:[GRP/][EVENT]] FUNCTION[%return] [FETCHARGS]
 *	t[:[GRP/][EVENT]] TRACEPOINT [FETCHARGS]
 *
 * An "f" probe is an fprobe on FUNCTION: its event records at the call
 * (group "fprobes", event FUNCTION__entry) or, with "%return" or a
 * "$retval" argument, at the return (FUNCTION__exit).  A "t" probe is an
 * fprobe on the stub function of TRACEPOINT (__probestub_TRACEPOINT),
 * which is hooked onto the tracepoint so that each hit of the tracepoint
 * calls it with the tracepoint's arguments (group "tracepoints", event
 * TRACEPOINT).  The probe-definition library (trace_probe.h) parses the
 * fetch arguments, owns the trace event and formats its records.
 *
 * Objects and rules:
 *  - struct trace_fprobe is one definition.  Definitions that name the
 *    same GRP/EVENT share one event (siblings): they must agree on the
 *    kind of site and on their arguments' names and types.
 *  - A definition is hooked (its fprobe registered, and for a tracepoint
 *    the stub on the tracepoint) from the moment it is published until it
 *    is removed, with one exception: a tracepoint probe whose tracepoint
 *    lives in a module is hooked only while that module is loaded.  The
 *    fprobe is registered disabled and follows the event's enabled state
 *    (enable_fprobe()/disable_fprobe()), so enabling never fails.
 *  - Hooking, unhooking, the tracepoint fields and the dyn_event list
 *    change only under event_mutex.  The tracepoint module notifier takes
 *    event_mutex too; tracepoints of modules are therefore looked up
 *    before event_mutex is taken (the notifier runs with the tracepoint
 *    module list locked), and a module that came in between makes the
 *    lookup run again (tfp_module_gen).
 *  - One stub registration serves every tracepoint probe on a tracepoint:
 *    it is removed with the last hooked probe on that tracepoint.
 *  - The handlers run in fprobe context (preemption off, no sleeping) and
 *    reach the trace instances through the event's file links under RCU.
 *
 * Where this differs from 6.12 on purpose: a module's tracepoint going
 * away unhooks its probes cleanly (6.12 could unregister twice and then
 * dereference a stale tracepoint when such a probe was removed); two
 * tracepoint probes on one tracepoint both work, and removing one leaves
 * the other hooked (6.12 refused the second with -EEXIST and removing one
 * would unhook the stub for all); the first word must be "f" or "t",
 * optionally followed by a number, then ':' or the end (6.12 took any
 * word starting with 'f' or 't'); more than MAX_TRACE_ARGS arguments get
 * a TOO_MANY_ARGS error_log entry besides -E2BIG; a removal command may
 * name an exit probe's function with or without "%return".  As in our
 * fprobe, the "N" of "fN" is kept and shown but limits nothing.
 */
#define pr_fmt(fmt)	"trace_fprobe: " fmt

#include <linux/ctype.h>
#include <linux/fprobe.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <kunit/visibility.h>

#include "trace_dynevent.h"
#include "trace_fprobe_kunit.h"
#include "trace_probe.h"
#include "trace_probe_kernel.h"
#include "trace_probe_tmpl.h"

#define TFP_FUNC_GROUP		"fprobes"
#define TFP_TPOINT_GROUP	"tracepoints"
/* Largest N of "fN": the bound 6.12 puts on its return-instance pool. */
#define TFP_MAXACTIVE_LIMIT	4096

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

VISIBLE_IF_KUNIT struct dyn_event_operations tfp_dyn_ops;

/* Counts module arrivals, so a definition racing with one can look again. */
static unsigned long tfp_module_gen;

static struct trace_fprobe *tfp_from_dyn(struct dyn_event *ev)
{
	return container_of(ev, struct trace_fprobe, devent);
}

static struct trace_fprobe *tfp_from_tp(struct trace_probe *tp)
{
	return container_of(tp, struct trace_fprobe, tp);
}

/* @ev as one of ours, or NULL when it is another kind of dynamic event */
static struct trace_fprobe *tfp_of_dyn(struct dyn_event *ev)
{
	return ev->ops == &tfp_dyn_ops ? tfp_from_dyn(ev) : NULL;
}

static bool tfp_is_exit(struct trace_fprobe *tf)
{
	return tf->site == TFP_FUNC_EXIT;
}

/* ---- Fetching: the load stage reads the probed call's ftrace_regs ---- */

/*
 * Word @n above the stack pointer of @fregs, or 0 when that word is not on
 * the stack the pointer is on (same rule as regs_get_kernel_stack_nth()).
 */
static nokprobe_inline unsigned long
tfp_stack_word(struct ftrace_regs *fregs, unsigned int n)
{
	unsigned long sp = ftrace_regs_get_stack_pointer(fregs);
	unsigned long *slot = (unsigned long *)sp + n;

	if (((unsigned long)slot ^ sp) & ~(THREAD_SIZE - 1))
		return 0;
	return READ_ONCE_NOCHECK(*slot);
}

/*
 * The load stages that read the hit itself; false for the others, which
 * the library's common code runs.
 */
static nokprobe_inline bool tfp_load(const struct fetch_insn *code,
				     struct ftrace_regs *fregs, void *edata,
				     unsigned long *val)
{
	switch (code->op) {
	case FETCH_OP_ARG:	/* at entry, or on a tracepoint stub */
		*val = ftrace_regs_get_argument(fregs, code->param);
		return true;
	case FETCH_OP_EDATA:	/* at exit: the copy saved at entry */
		*val = *(unsigned long *)(edata + code->offset);
		return true;
	case FETCH_OP_RETVAL:
		*val = ftrace_regs_get_return_value(fregs);
		return true;
	case FETCH_OP_STACKP:
		*val = ftrace_regs_get_stack_pointer(fregs);
		return true;
	case FETCH_OP_STACK:
		*val = tfp_stack_word(fregs, code->param);
		return true;
	default:
		return false;
	}
}

/* The library's quick load (trace_probe_tmpl.h): the same loads. */
static nokprobe_inline bool
tprobe_load_hit(const struct fetch_insn *code, void *rec, void *edata,
		unsigned long *val)
{
	return tfp_load(code, rec, edata, val);
}

/*
 * The library's hook for the load stage (trace_probe_tmpl.h).  @rec is the
 * struct ftrace_regs of the hit; @edata the words saved at entry for an
 * exit probe.  The programs come from our parser, not from user space.
 */
static int
process_fetch_insn(struct fetch_insn *code, void *rec, void *edata,
		   void *dest, void *base)
{
	unsigned long val;
	int ret;

	/* "@SYM" keeps its name in front of the IMM holding its address. */
	if (code->op == FETCH_NOP_SYMBOL)
		code++;

	if (!tfp_load(code, rec, edata, &val)) {
		ret = process_common_fetch_insn(code, &val);
		if (ret < 0)
			return ret;
	}
	return process_fetch_insn_bottom(code + 1, val, dest, base);
}

NOKPROBE_SYMBOL(process_fetch_insn)

/*
 * At the entry of a call an exit probe records: keep the arguments its
 * "$argN" will print.  The library lists them as (ARG n, ST_EDATA offset)
 * pairs, ended by END.
 */
static nokprobe_inline void
tfp_save_entry_args(struct trace_probe *tp, struct ftrace_regs *fregs,
		    void *edata)
{
	const struct fetch_insn *code = tp->entry_arg->code;
	const struct fetch_insn *end = code + tp->entry_arg->size;

	for (; code + 1 < end && code->op == FETCH_OP_ARG; code += 2) {
		unsigned long *word = edata + code[1].offset;

		*word = ftrace_regs_get_argument(fregs, code->param);
	}
}

/* ---- A hit: the record is a header of words, then the arguments ---- */

/*
 * What one hit records.  The record starts with struct trace_entry and
 * @nr_words words: the function's address for an entry (layout of struct
 * fentry_trace_entry_head), the function and the return address for an
 * exit (struct fexit_trace_entry_head).
 */
struct tfp_hit {
	struct ftrace_regs	*fregs;
	void			*edata;
	unsigned int		nr_words;
	unsigned long		words[2];
};

static nokprobe_inline int tfp_head_size(const struct tfp_hit *hit)
{
	BUILD_BUG_ON(sizeof(struct fentry_trace_entry_head) !=
		     sizeof(struct trace_entry) + sizeof(unsigned long));
	BUILD_BUG_ON(sizeof(struct fexit_trace_entry_head) !=
		     sizeof(struct trace_entry) + 2 * sizeof(unsigned long));
	return sizeof(struct trace_entry) + hit->nr_words * sizeof(long);
}

/* Fill the record after its struct trace_entry. */
static nokprobe_inline void tfp_fill(struct trace_probe *tp,
				     const struct tfp_hit *hit,
				     struct trace_entry *ent, int dyn)
{
	unsigned long *words = (unsigned long *)(ent + 1);
	unsigned int i;

	for (i = 0; i < hit->nr_words; i++)
		words[i] = hit->words[i];
	store_trace_args(words + hit->nr_words, tp, hit->fregs, hit->edata,
			 tfp_head_size(hit), dyn);
}

/* The general way, for a file with something to decide per record. */
static noinline void tfp_write_general(struct trace_probe *tp,
				       struct trace_event_file *file,
				       const struct tfp_hit *hit, int dyn)
{
	struct trace_event_buffer fbuffer;
	struct trace_entry *ent;

	ent = trace_event_buffer_reserve(&fbuffer, file,
					 tfp_head_size(hit) + tp->size + dyn);
	if (!ent)
		return;
	/* There is no complete pt_regs: stack traces start from here. */
	fbuffer.regs = NULL;
	tfp_fill(tp, hit, ent, dyn);
	trace_event_buffer_commit(&fbuffer);
}

NOKPROBE_SYMBOL(tfp_write_general);

static void tfp_write(struct trace_probe *tp, struct trace_event_file *file,
		      const struct tfp_hit *hit)
{
	struct tprobe_rec direct;
	struct trace_entry *ent;
	int dyn;

	if (trace_trigger_soft_disabled(file))
		return;

	dyn = __get_data_size(tp, (void *)hit->fregs, hit->edata);
	if (unlikely(!tprobe_rec_direct(file))) {
		tfp_write_general(tp, file, hit, dyn);
		return;
	}
	ent = tprobe_rec_reserve(&direct, file,
				 tfp_head_size(hit) + tp->size + dyn);
	if (ent) {
		tfp_fill(tp, hit, ent, dyn);
		tprobe_rec_commit(&direct);
	}
}

NOKPROBE_SYMBOL(tfp_write);

static void tfp_trace_hit(struct trace_probe *tp, const struct tfp_hit *hit)
{
	struct event_file_link *link;

	trace_probe_for_each_link_rcu(link, tp)
		tfp_write(tp, link->file, hit);
}

NOKPROBE_SYMBOL(tfp_trace_hit);

#ifdef CONFIG_PERF_EVENTS
/*
 * perf gets a pt_regs holding what ftrace_regs can give (instruction and
 * stack pointer); everything else reads as zero.
 */
static void tfp_perf_hit(struct trace_probe *tp, const struct tfp_hit *hit)
{
	struct trace_event_call *call = trace_probe_event_call(tp);
	struct pt_regs scratch, *regs;
	struct trace_entry *ent;
	struct hlist_head *head;
	int dyn, size, rctx;

	head = this_cpu_ptr(call->perf_events);
	if (hlist_empty(head))
		return;

	memset(&scratch, 0, sizeof(scratch));
	regs = ftrace_fill_perf_regs(hit->fregs, &scratch);

	dyn = __get_data_size(tp, (void *)hit->fregs, hit->edata);
	/* perf puts a u32 size in front; keep the whole thing u64-aligned */
	size = tfp_head_size(hit) + tp->size + dyn + sizeof(u32);
	size = ALIGN(size, sizeof(u64)) - sizeof(u32);

	ent = perf_trace_buf_alloc(size, NULL, &rctx);
	if (!ent)
		return;
	memset((void *)ent + tfp_head_size(hit) + tp->size, 0, dyn);
	tfp_fill(tp, hit, ent, dyn);
	perf_trace_buf_submit(ent, size, rctx, call->event.type, 1, regs,
			      head, NULL);
}

NOKPROBE_SYMBOL(tfp_perf_hit);
#else
static inline void tfp_perf_hit(struct trace_probe *tp,
				const struct tfp_hit *hit)
{
}
#endif

static void tfp_record(struct trace_fprobe *tf, const struct tfp_hit *hit)
{
	unsigned int flags = trace_probe_load_flag(&tf->tp);

	if (flags & TP_FLAG_TRACE)
		tfp_trace_hit(&tf->tp, hit);
	if (flags & TP_FLAG_PROFILE)
		tfp_perf_hit(&tf->tp, hit);
}

NOKPROBE_SYMBOL(tfp_record);

/*
 * fprobe entry handler.  Entry and tracepoint probes record here; an exit
 * probe comes here only when it needs arguments saved for its record.
 */
static int tfp_on_entry(struct fprobe *fp, unsigned long entry_ip,
			unsigned long ret_ip, struct ftrace_regs *fregs,
			void *entry_data)
{
	struct trace_fprobe *tf = container_of(fp, struct trace_fprobe, fp);
	struct tfp_hit hit = {
		.fregs = fregs,
		.nr_words = 1,
		.words = { entry_ip },
	};

	if (tfp_is_exit(tf)) {
		if (entry_data)
			tfp_save_entry_args(&tf->tp, fregs, entry_data);
		return 0;
	}
	tfp_record(tf, &hit);
	return 0;
}

NOKPROBE_SYMBOL(tfp_on_entry);

static void tfp_on_exit(struct fprobe *fp, unsigned long entry_ip,
			unsigned long ret_ip, struct ftrace_regs *fregs,
			void *entry_data)
{
	struct trace_fprobe *tf = container_of(fp, struct trace_fprobe, fp);
	struct tfp_hit hit = {
		.fregs = fregs,
		.edata = entry_data,
		.nr_words = 2,
		.words = { entry_ip, ret_ip },
	};

	tfp_record(tf, &hit);
}

NOKPROBE_SYMBOL(tfp_on_exit);

/* ---- Our trace event: fields and output ---- */

static struct trace_fprobe *tfp_of_call(struct trace_event_call *call)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	return tp ? tfp_from_tp(tp) : NULL;
}

static int tfp_define_entry_fields(struct trace_event_call *event_call,
				   struct trace_fprobe *tf)
{
	struct fentry_trace_entry_head field;
	int ret;

	DEFINE_FIELD(unsigned long, ip, FIELD_STRING_IP, 0);

	return traceprobe_define_arg_fields(event_call, sizeof(field), &tf->tp);
}

static int tfp_define_exit_fields(struct trace_event_call *event_call,
				  struct trace_fprobe *tf)
{
	struct fexit_trace_entry_head field;
	int ret;

	DEFINE_FIELD(unsigned long, func, FIELD_STRING_FUNC, 0);
	DEFINE_FIELD(unsigned long, ret_ip, FIELD_STRING_RETIP, 0);

	return traceprobe_define_arg_fields(event_call, sizeof(field), &tf->tp);
}

static int tfp_define_fields(struct trace_event_call *event_call)
{
	struct trace_fprobe *tf = tfp_of_call(event_call);

	if (!tf)
		return -ENOENT;
	if (tfp_is_exit(tf))
		return tfp_define_exit_fields(event_call, tf);
	return tfp_define_entry_fields(event_call, tf);
}

/*
 * "EVENT: (FUNC+OFFS) ARGS" for an entry, "EVENT: (CALLER+OFFS <- FUNC)
 * ARGS" for an exit, as 6.12 prints them.
 */
static enum print_line_t tfp_print(struct trace_iterator *iter, int flags,
				   struct trace_event *event)
{
	struct trace_event_call *call = container_of(event,
						     struct trace_event_call,
						     event);
	struct trace_fprobe *tf = tfp_of_call(call);
	unsigned long *words = (unsigned long *)(iter->ent + 1);
	struct trace_seq *s = &iter->seq;
	unsigned int nr_words;

	if (unlikely(!tf))
		return trace_handle_return(s);

	trace_seq_printf(s, "%s: (", trace_probe_name(&tf->tp));
	if (tfp_is_exit(tf)) {
		nr_words = 2;
		/* words[0]: the function, words[1]: where it returned to */
		if (!seq_print_ip_sym(s, words[1], flags | TRACE_ITER_SYM_OFFSET))
			return trace_handle_return(s);
		trace_seq_puts(s, " <- ");
		if (!seq_print_ip_sym(s, words[0], flags & ~TRACE_ITER_SYM_OFFSET))
			return trace_handle_return(s);
	} else {
		nr_words = 1;
		if (!seq_print_ip_sym(s, words[0], flags | TRACE_ITER_SYM_OFFSET))
			return trace_handle_return(s);
	}
	trace_seq_putc(s, ')');

	if (trace_probe_print_args(s, tf->tp.args, tf->tp.nr_args,
				   (u8 *)(words + nr_words), iter->ent) >= 0)
		trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static struct trace_event_functions tfp_event_funcs = {
	.trace		= tfp_print,
};

static struct trace_event_fields tfp_event_fields[] = {
	{ .type = TRACE_FUNCTION_TYPE,
	  .define_fields = tfp_define_fields },
	{}
};

/* ---- Enabling: per instance (a file link) and perf ---- */

static void tfp_set_handlers_enabled(struct trace_probe *tp, bool on)
{
	struct trace_fprobe *tf;

	list_for_each_entry(tf, trace_probe_probe_list(tp), tp.list) {
		if (on)
			enable_fprobe(&tf->fp);
		else
			disable_fprobe(&tf->fp);
	}
}

/* @file NULL means perf.  event_mutex held. */
static int tfp_enable(struct trace_probe *tp, struct trace_event_file *file)
{
	bool was_enabled = trace_probe_is_enabled(tp);
	int ret;

	if (file) {
		ret = trace_probe_add_file(tp, file);
		if (ret)
			return ret;
	} else {
		trace_probe_set_flag(tp, TP_FLAG_PROFILE);
	}
	if (!was_enabled)
		tfp_set_handlers_enabled(tp, true);
	return 0;
}

static int tfp_disable(struct trace_probe *tp, struct trace_event_file *file)
{
	if (file) {
		if (!trace_probe_get_file_link(tp, file))
			return -ENOENT;
		/* Clears TP_FLAG_TRACE with the last instance. */
		trace_probe_remove_file(tp, file);
	} else {
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	}
	if (!trace_probe_is_enabled(tp))
		tfp_set_handlers_enabled(tp, false);
	return 0;
}

/* trace_event_class::reg of every event of ours.  event_mutex held. */
static int tfp_event_reg(struct trace_event_call *call, enum trace_reg type,
			 void *data)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (!tp)
		return -ENODEV;

	if (type == TRACE_REG_REGISTER)
		return tfp_enable(tp, data);
	if (type == TRACE_REG_UNREGISTER)
		return tfp_disable(tp, data);
#ifdef CONFIG_PERF_EVENTS
	/* perf has no file; OPEN, CLOSE, ADD and DEL need nothing of us */
	if (type == TRACE_REG_PERF_REGISTER)
		return tfp_enable(tp, NULL);
	if (type == TRACE_REG_PERF_UNREGISTER)
		return tfp_disable(tp, NULL);
#endif
	return 0;
}

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
static int tfp_hook(struct trace_fprobe *tf)
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
static void tfp_unhook(struct trace_fprobe *tf)
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

struct tfp_tp_query {
	const char		*name;
	struct tracepoint	*found;
	struct module		*mod;		/* with a reference, or NULL */
};

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
static void tfp_find_tracepoint(struct tfp_tp_query *q)
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

static struct notifier_block tfp_tracepoint_module_nb = {
	.notifier_call = tfp_tracepoint_module_event,
};
#endif /* CONFIG_MODULES */

/* ---- trace_fprobe objects ---- */

static void tfp_free(struct trace_fprobe *tf)
{
	trace_probe_cleanup(&tf->tp);
	kfree(tf->where);
	kfree(tf);
}

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

static struct trace_fprobe *tfp_new(struct tfp_spec *spec, int nargs)
{
	struct trace_fprobe *tf;
	int ret;

	tf = kzalloc(struct_size(tf, tp.args, nargs), GFP_KERNEL);
	if (!tf)
		return ERR_PTR(-ENOMEM);

	tf->where = kstrdup(spec->where, GFP_KERNEL);
	if (!tf->where) {
		kfree(tf);
		return ERR_PTR(-ENOMEM);
	}
	tf->site = spec->site;
	tf->maxactive = spec->maxactive;
	if (tf->site == TFP_FUNC_EXIT)
		tf->fp.exit_handler = tfp_on_exit;
	else
		tf->fp.entry_handler = tfp_on_entry;
	dyn_event_init(&tf->devent, &tfp_dyn_ops);

	ret = trace_probe_init(&tf->tp, spec->event, spec->group, false, nargs);
	if (ret) {
		tfp_free(tf);
		return ERR_PTR(ret);
	}
	return tf;
}

/* ---- Publishing: a new event, or a sibling of an existing one ---- */

static struct trace_fprobe *tfp_find_event(const char *group,
					   const char *event)
{
	struct trace_fprobe *tf;
	struct dyn_event *pos;

	for_each_dyn_event(pos) {
		tf = tfp_of_dyn(pos);
		if (tf && trace_probe_match_event(&tf->tp, group, event))
			return tf;
	}
	return NULL;
}

/* The same site with the same argument expressions: a probe given twice. */
static bool tfp_same_probe(struct trace_fprobe *a, struct trace_fprobe *b)
{
	unsigned int i;

	if (strcmp(a->where, b->where) || a->tp.nr_args != b->tp.nr_args)
		return false;
	for (i = 0; i < a->tp.nr_args; i++) {
		if (strcmp(a->tp.args[i].comm, b->tp.args[i].comm))
			return false;
	}
	return true;
}

static bool tfp_duplicate(struct trace_probe *event_tp,
			  struct trace_fprobe *tf)
{
	struct trace_probe *pos;

	list_for_each_entry(pos, trace_probe_probe_list(event_tp), list) {
		if (tfp_same_probe(tfp_from_tp(pos), tf))
			return true;
	}
	return false;
}

/* Add @tf to the event of @old.  event_mutex held. */
static int tfp_join(struct trace_fprobe *tf, struct trace_fprobe *old)
{
	int ret;

	if (tf->site != old->site) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, DIFF_PROBE_TYPE);
		return -EEXIST;
	}
	ret = trace_probe_compare_arg_type(&tf->tp, &old->tp);
	if (ret) {
		/* argument n is word n + 1 */
		trace_probe_log_set_index(ret + 1);
		trace_probe_log_err(0, DIFF_ARG_TYPE);
		return -EEXIST;
	}
	if (tfp_duplicate(&old->tp, tf)) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, SAME_PROBE);
		return -EEXIST;
	}

	ret = trace_probe_append(&tf->tp, &old->tp);
	if (ret)
		return ret;
	ret = tfp_hook(tf);
	if (ret) {
		trace_probe_unlink(&tf->tp);
		return ret;
	}
	return dyn_event_add(&tf->devent, trace_probe_event_call(&tf->tp));
}

static int tfp_register_new(struct trace_fprobe *tf)
{
	struct trace_event_call *call = trace_probe_event_call(&tf->tp);
	int ret;

	call->flags = TRACE_EVENT_FL_FPROBE;
	call->event.funcs = &tfp_event_funcs;
	call->class->fields_array = tfp_event_fields;
	call->class->reg = tfp_event_reg;

	ret = trace_probe_register_event_call(&tf->tp);
	if (ret) {
		if (ret == -EEXIST) {
			trace_probe_log_set_index(0);
			trace_probe_log_err(0, EVENT_EXIST);
		}
		return ret;
	}
	ret = tfp_hook(tf);
	if (ret) {
		trace_probe_unregister_event_call(&tf->tp);
		return ret;
	}
	return dyn_event_add(&tf->devent, call);
}

/*
 * Make @tf visible.  -EAGAIN: a module arrived since the tracepoint lookup
 * that found nothing; the caller looks again.
 */
static int tfp_publish(struct trace_fprobe *tf, struct tfp_spec *spec)
{
	struct trace_fprobe *old;

	guard(mutex)(&event_mutex);
	if (tf->site == TFP_TPOINT && !spec->tpoint &&
	    spec->module_gen != tfp_module_gen)
		return -EAGAIN;

	tf->tpoint = spec->tpoint;
	tf->tp_mod = spec->tp_mod;
	old = tfp_find_event(spec->group, spec->event);
	if (old)
		return tfp_join(tf, old);
	return tfp_register_new(tf);
}

/* ---- Parsing a definition ---- */

/*
 * "f", "fN", "t" or "tN", then ":[GRP/][EVENT]" or nothing.  N is parsed
 * as 6.12 parses it (any base kstrtouint() takes, 1..4096); whether it is
 * allowed is checked once the site is known.
 */
static int tfp_parse_head(const char *word, struct tfp_spec *spec)
{
	const char *colon = strchr(word, ':');
	size_t len = colon ? colon - word - 1 : strlen(word) - 1;
	char num[MAX_EVENT_NAME_LEN];

	spec->maxactive = 0;
	if (len) {
		if (!isdigit(word[1]) || len >= sizeof(num)) {
			trace_probe_log_err(1, BAD_MAXACT);
			return -EINVAL;
		}
		memcpy(num, word + 1, len);
		num[len] = '\0';
		if (kstrtouint(num, 0, &spec->maxactive) || !spec->maxactive) {
			trace_probe_log_err(1, BAD_MAXACT);
			return -EINVAL;
		}
		if (spec->maxactive > TFP_MAXACTIVE_LIMIT) {
			trace_probe_log_err(1, MAXACT_TOO_BIG);
			return -EINVAL;
		}
	}

	spec->event = colon ? colon + 1 : NULL;
	return 0;
}

/* Position of a "$retval" that is a whole variable name in @arg, or -1. */
static int tfp_retval_pos(const char *arg)
{
	const char *p = arg;

	while ((p = strstr(p, "$retval"))) {
		char next = p[strlen("$retval")];

		if (!isalnum(next) && next != '_')
			return p - arg;
		p++;
	}
	return -1;
}

/*
 * Word 1: FUNCTION[%return] or TRACEPOINT.  A "$retval" argument makes a
 * function probe an exit probe, and is refused on a tracepoint.
 */
static int tfp_parse_where(int argc, const char **argv, struct tfp_spec *spec)
{
	const char *word = argv[1];
	const char *pct = strchr(word, '%');
	size_t len = pct ? pct - word : strlen(word);
	int i, pos;

	if (pct && (spec->site == TFP_TPOINT || strcmp(pct, "%return"))) {
		trace_probe_log_err(len, BAD_ADDR_SUFFIX);
		return -EINVAL;
	}
	if (pct)
		spec->site = TFP_FUNC_EXIT;

	if (spec->site == TFP_TPOINT) {
		for (i = 0; i < len; i++) {
			if (!isalnum(word[i]) && word[i] != '_') {
				trace_probe_log_err(i, BAD_TP_NAME);
				return -EINVAL;
			}
		}
	}

	for (i = 2; spec->site != TFP_FUNC_EXIT && i < argc; i++) {
		pos = tfp_retval_pos(argv[i]);
		if (pos < 0)
			continue;
		if (spec->site == TFP_TPOINT) {
			trace_probe_log_set_index(i);
			trace_probe_log_err(pos, RETVAL_ON_PROBE);
			return -EINVAL;
		}
		spec->site = TFP_FUNC_EXIT;
	}

	spec->where = kmemdup_nul(word, len, GFP_KERNEL);
	return spec->where ? 0 : -ENOMEM;
}

/* GRP/EVENT as given, or the default names. */
static int tfp_parse_names(const char **argv, struct tfp_spec *spec)
{
	int ret;

	trace_probe_log_set_index(0);
	if (spec->event) {
		ret = traceprobe_parse_event_name(&spec->event, &spec->group,
						  spec->group_buf,
						  spec->event - argv[0]);
		if (ret)
			return ret;
	}
	if (spec->event)
		return 0;

	if (spec->site == TFP_TPOINT)
		snprintf(spec->event_buf, sizeof(spec->event_buf), "%s%s",
			 isdigit(spec->where[0]) ? "_" : "", spec->where);
	else
		snprintf(spec->event_buf, sizeof(spec->event_buf), "%s__%s",
			 spec->where,
			 spec->site == TFP_FUNC_EXIT ? "exit" : "entry");
	sanitize_event_name(spec->event_buf);
	spec->event = spec->event_buf;
	return 0;
}

/*
 * The function the arguments are read from, for BTF names: the stub of a
 * tracepoint (its first, hidden, parameter is the tracepoint's data).
 */
static int tfp_resolve_site(struct tfp_spec *spec,
			    struct traceprobe_parse_context *ctx)
{
	struct tfp_tp_query q = { .name = spec->where };

	ctx->funcname = spec->where;
	if (spec->site != TFP_TPOINT)
		return 0;

	spec->module_gen = READ_ONCE(tfp_module_gen);
	tfp_find_tracepoint(&q);
	if (spec->tp_mod)
		module_put(spec->tp_mod);
	spec->tpoint = q.found;
	spec->tp_mod = q.mod;
	if (q.found) {
		ctx->funcname = kallsyms_lookup((unsigned long)q.found->probestub,
						NULL, NULL, NULL,
						spec->stub_name);
		return 0;
	}
	if (IS_ENABLED(CONFIG_MODULES))
		return 0;	/* it may come with a module */
	trace_probe_log_set_index(1);
	trace_probe_log_err(0, NO_TRACEPOINT);
	return -EINVAL;
}

/* Parse the fetch arguments into @tf, each error logged at its word. */
static int tfp_parse_args(struct trace_fprobe *tf, int argc, const char **argv,
			  struct traceprobe_parse_context *ctx)
{
	int i, ret;

	for (i = 0; i < argc; i++) {
		trace_probe_log_set_index(i + 2);
		ctx->offset = 0;
		ret = traceprobe_parse_probe_arg(&tf->tp, i, argv[i], ctx);
		if (ret)
			return ret;
	}

	if (tfp_is_exit(tf) && tf->tp.entry_arg) {
		tf->fp.entry_handler = tfp_on_entry;
		tf->fp.entry_data_size = traceprobe_get_entry_data_size(&tf->tp);
	}
	return traceprobe_set_print_fmt(&tf->tp, tfp_is_exit(tf) ?
					PROBE_PRINT_RETURN : PROBE_PRINT_NORMAL);
}

/* Log why the site could not be hooked, as 6.12 words it. */
static void tfp_log_hook_error(int ret)
{
	trace_probe_log_set_index(1);
	if (ret == -EILSEQ)
		trace_probe_log_err(0, BAD_INSN_BNDRY);
	else if (ret == -ENOENT)
		trace_probe_log_err(0, BAD_PROBE_ADDR);
	else if (ret != -ENOMEM && ret != -EEXIST)
		trace_probe_log_err(0, FAIL_REG_PROBE);
}

/*
 * Build and publish one definition from its (expanded) arguments.  Each
 * attempt parses afresh; the loop only repeats when a module arrived
 * between the tracepoint lookup and the publication.
 */
static int tfp_build(struct tfp_spec *spec, int argc, const char **argv)
{
	struct traceprobe_parse_context ctx;
	struct trace_fprobe *tf;
	const char **expanded;
	char btf_buf[MAX_BTF_ARGS_LEN];
	char *dentry_buf = NULL;
	int nargs, ret;

again:
	ctx = (struct traceprobe_parse_context) {
		.flags = TPARG_FL_KERNEL | TPARG_FL_FPROBE,
	};
	if (spec->site == TFP_FUNC_EXIT)
		ctx.flags |= TPARG_FL_RETURN;
	else
		ctx.flags |= TPARG_FL_FENTRY;
	if (spec->site == TFP_TPOINT)
		ctx.flags |= TPARG_FL_TPOINT;

	tf = NULL;
	expanded = NULL;
	ret = tfp_resolve_site(spec, &ctx);
	if (ret)
		goto out;

	nargs = argc - 2;
	expanded = traceprobe_expand_meta_args(nargs, argv + 2, &nargs,
					       btf_buf, sizeof(btf_buf), &ctx);
	if (IS_ERR(expanded)) {
		ret = PTR_ERR(expanded);
		expanded = NULL;
		goto out;
	}
	if (!expanded)
		nargs = argc - 2;
	if (nargs > MAX_TRACE_ARGS) {
		trace_probe_log_set_index(2 + MAX_TRACE_ARGS);
		trace_probe_log_err(0, TOO_MANY_ARGS);
		ret = -E2BIG;
		goto out;
	}
	ret = traceprobe_expand_dentry_args(nargs, expanded ?: argv + 2,
					    &dentry_buf);
	if (ret)
		goto out;

	tf = tfp_new(spec, nargs);
	if (IS_ERR(tf)) {
		ret = PTR_ERR(tf);
		tf = NULL;
		goto out;
	}
	ret = tfp_parse_args(tf, nargs, expanded ?: argv + 2, &ctx);
	if (ret)
		goto out;

	ret = tfp_publish(tf, spec);
	if (ret && ret != -EAGAIN)
		tfp_log_hook_error(ret);
	if (!ret)
		tf = NULL;	/* published: no longer ours to free */
out:
	if (tf)
		tfp_free(tf);
	traceprobe_finish_parse(&ctx);
	kfree(expanded);
	kfree(dentry_buf);
	dentry_buf = NULL;
	if (ret == -EAGAIN)
		goto again;
	return ret;
}

/*
 * The first word is "f..." or "t..."; anything else belongs to another
 * kind of dynamic event.
 */
static int tfp_create_argv(int argc, const char **argv)
{
	struct tfp_spec *spec;
	int ret;

	if (argc < 2 || (argv[0][0] != 'f' && argv[0][0] != 't'))
		return -ECANCELED;

	spec = kzalloc(sizeof(*spec), GFP_KERNEL);
	if (!spec)
		return -ENOMEM;
	if (argv[0][0] == 't') {
		spec->site = TFP_TPOINT;
		spec->group = TFP_TPOINT_GROUP;
	} else {
		spec->site = TFP_FUNC_ENTRY;
		spec->group = TFP_FUNC_GROUP;
	}

	trace_probe_log_init("trace_fprobe", argc, argv);
	ret = tfp_parse_head(argv[0], spec);
	if (ret)
		goto out;

	trace_probe_log_set_index(1);
	ret = tfp_parse_where(argc, argv, spec);
	if (ret)
		goto out;

	if (spec->maxactive && spec->site != TFP_FUNC_EXIT) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(1, BAD_MAXACT_TYPE);
		ret = -EINVAL;
		goto out;
	}

	ret = tfp_parse_names(argv, spec);
	if (!ret)
		ret = tfp_build(spec, argc, argv);
out:
	trace_probe_log_clear();
	if (spec->tp_mod)
		module_put(spec->tp_mod);
	kfree(spec->where);
	kfree(spec);
	return ret;
}

/* ---- dyn_event callbacks ---- */

static int tfp_dyn_create(const char *raw_command)
{
	return trace_probe_create(raw_command, tfp_create_argv);
}

/* "f[N]:GRP/EVENT FUNCTION[%return] NAME=ARG ..." or "t:GRP/EVENT TP ..." */
static int tfp_dyn_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_fprobe *tf = tfp_from_dyn(ev);
	unsigned int i;

	seq_putc(m, tf->site == TFP_TPOINT ? 't' : 'f');
	if (tfp_is_exit(tf) && tf->maxactive)
		seq_printf(m, "%u", tf->maxactive);
	seq_printf(m, ":%s/%s %s%s", trace_probe_group_name(&tf->tp),
		   trace_probe_name(&tf->tp), tf->where,
		   tfp_is_exit(tf) ? "%return" : "");
	for (i = 0; i < tf->tp.nr_args; i++)
		seq_printf(m, " %s=%s", tf->tp.args[i].name,
			   tf->tp.args[i].comm);
	seq_putc(m, '\n');
	return 0;
}

/* Does @word name @tf's function or tracepoint (with its "%return")? */
static bool tfp_word_names_site(struct trace_fprobe *tf, const char *word)
{
	size_t len = strlen(tf->where);

	if (strncmp(word, tf->where, len))
		return false;
	return !word[len] || (tfp_is_exit(tf) && !strcmp(word + len, "%return"));
}

/*
 * Removal: "-:[GRP/]EVENT [SITE [NAME=ARG ...]]".  The words given must
 * match; those left out match anything.
 */
static bool tfp_dyn_match(const char *system, const char *event, int argc,
			  const char **argv, struct dyn_event *ev)
{
	struct trace_fprobe *tf = tfp_from_dyn(ev);

	if (!trace_probe_match_event(&tf->tp, system, event))
		return false;
	if (argc < 1)
		return true;
	if (!tfp_word_names_site(tf, argv[0]))
		return false;
	return trace_probe_match_command_args(&tf->tp, argc - 1, argv + 1);
}

static bool tfp_dyn_is_busy(struct dyn_event *ev)
{
	return trace_probe_is_enabled(&tfp_from_dyn(ev)->tp);
}

/*
 * Remove one definition.  A sibling goes at any time; the last probe of an
 * event only while no instance, perf or other user has the event.
 * event_mutex held.
 */
static int tfp_dyn_free(struct dyn_event *ev)
{
	struct trace_fprobe *tf = tfp_from_dyn(ev);
	struct trace_probe *tp = &tf->tp;

	lockdep_assert_held(&event_mutex);
	if (!trace_probe_has_sibling(tp)) {
		if (trace_probe_is_enabled(tp) ||
		    trace_event_dyn_busy(trace_probe_event_call(tp)))
			return -EBUSY;
		if (trace_probe_unregister_event_call(tp))
			return -EBUSY;
	}

	tfp_unhook(tf);
	dyn_event_remove(&tf->devent);
	tfp_free(tf);
	return 0;
}

VISIBLE_IF_KUNIT struct dyn_event_operations tfp_dyn_ops = {
	.create		= tfp_dyn_create,
	.show		= tfp_dyn_show,
	.is_busy	= tfp_dyn_is_busy,
	.free		= tfp_dyn_free,
	.match		= tfp_dyn_match,
};

/* trace_fprobe_kunit.c's definitions go through dyn_event_create(). */
EXPORT_SYMBOL_IF_KUNIT(tfp_dyn_ops);

/*
 * Early, so that definitions can be made before tracefs exists (kernel
 * command line, boot-time tracing).
 */
static __init int tfp_init(void)
{
	int ret = dyn_event_register(&tfp_dyn_ops);

	if (ret)
		return ret;
#ifdef CONFIG_MODULES
	ret = register_tracepoint_module_notifier(&tfp_tracepoint_module_nb);
	if (ret)
		pr_warn("no tracepoint probes on module tracepoints: %d\n", ret);
#endif
	return 0;
}
core_initcall(tfp_init);
