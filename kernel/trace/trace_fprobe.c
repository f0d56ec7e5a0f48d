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
 * The layer is three files, mapped in trace_fprobe.h.  This one holds
 * the trace_fprobe objects, their trace event (fields, output, enable and
 * disable) and the whole hit path: the load stage, the record writers for
 * trace instances and perf, and the fprobe handlers.  The hit path stays
 * in this one translation unit, so that its static helpers inline; this
 * file calls no other file of the layer.  Hooking and tracepoints are in
 * trace_fprobe_site.c, definitions and the dyn_event callbacks in
 * trace_fprobe_parse.c.
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

#include <linux/fprobe.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "trace_fprobe.h"
#include "trace_probe_kernel.h"
/* This front end gives the library a quick load: tprobe_load_hit(). */
#define TPROBE_HAS_LOAD_HIT
#include "trace_probe_tmpl.h"

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
int tfp_on_entry(struct fprobe *fp, unsigned long entry_ip,
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

struct trace_event_functions tfp_event_funcs = {
	.trace		= tfp_print,
};

struct trace_event_fields tfp_event_fields[] = {
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
int tfp_event_reg(struct trace_event_call *call, enum trace_reg type,
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

/* ---- trace_fprobe objects ---- */

void tfp_free(struct trace_fprobe *tf)
{
	trace_probe_cleanup(&tf->tp);
	kfree(tf->where);
	kfree(tf);
}

struct trace_fprobe *tfp_new(struct tfp_spec *spec, int nargs)
{
	struct trace_fprobe *tf;
	int ret;

	tf = kzalloc(struct_size(tf, tp.args, nargs), GFP_KERNEL_ACCOUNT);
	if (!tf)
		return ERR_PTR(-ENOMEM);

	tf->where = kstrdup(spec->where, GFP_KERNEL_ACCOUNT);
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
