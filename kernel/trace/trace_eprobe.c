// SPDX-License-Identifier: GPL-2.0
/*
 * Event probes: trace events whose records are computed from the records
 * of another trace event.
 *
 *	e[:[GRP/][EVENT]] SYSTEM.EVENT [FETCHARGS] [if FILTER]
 *
 * written to dynamic_events defines GRP/EVENT ("eprobes" and the attached
 * event's name by default).  Its fetch arguments read the fields of the
 * attached event's record ($FIELD, with dereferences and types as for
 * kprobe events) and FILTER, in the attached event's filter syntax, decides
 * which of its records make one of ours.  The probe-definition library
 * (trace_probe.h) parses the arguments, owns our event and prints it.
 *
 * An eprobe has no tracepoint of its own.  While its event is enabled in a
 * trace instance, a hook sits on the trigger list of the attached event's
 * file in that same instance and keeps that event soft-enabled there.  The
 * trigger core runs the hook with each record the attached event builds,
 * after testing FILTER (the hook's trigger filter), and the hook writes
 * our record into our event's file of the instance:
 *
 *	attached tracepoint -> attached record -> trigger list -> hook
 *	  -> fetch programs over the attached record -> our record
 *
 * Rules that hold throughout:
 *  - An eprobe is the only probe of its event: a second definition with
 *    the same group/event is refused (EVENT_EXIST), so there are never
 *    siblings.
 *  - trace_eprobe::target holds a reference on the attached event (its
 *    module, or the dynamic event) from creation to free, so the event,
 *    its names and the fields the fetch programs point to stay valid.
 *  - trace_eprobe::hooks has one hook per instance whose copy of our event
 *    is enabled; it changes only under event_mutex, in our reg callback.
 *    A hook is on the attached file's trigger list from enable until
 *    disable, or until the instance drops all its triggers on removal
 *    (clear_event_triggers(), which calls eprobe_trigger_dropped()).  Its
 *    memory is freed only by disable, after
 *    tracepoint_synchronize_unregister(), so no handler still uses it.
 *  - An eprobe is removed only while no instance has its event enabled and
 *    nobody holds a reference on the event; a removed eprobe has no hook.
 *  - The hit path runs in the attached event's tracepoint context: no
 *    sleeping, no locks, nothing allocated.
 *
 * Where this differs from 6.12 on purpose: each instance that enables the
 * event gets a hook of its own (6.12 hooked only the instance that enabled
 * it first, kept writing there after that instance disabled the event and
 * never unhooked it); removing an instance with the event enabled frees its hook (6.12
 * leaked it); a __rel_loc string field is read from the end of its slot,
 * as the filter and output code read it (6.12 read four bytes early); a
 * definition with more than MAX_TRACE_ARGS arguments leaves an error_log
 * entry (TOO_MANY_ARGS) besides -E2BIG.  Perf may open the event, as in
 * 6.12, and gets no records from it.
 */
#define pr_fmt(fmt)	"trace_eprobe: " fmt

#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_events.h>
#include <linux/unaligned.h>

#include "trace_dynevent.h"
#include "trace_eprobe.h"
#include "trace_probe.h"
/* This front end gives the library a quick load: tprobe_load_hit(). */
#define TPROBE_HAS_LOAD_HIT
#include "trace_probe_tmpl.h"
#include "trace_probe_kernel.h"

#define EPROBE_DEFAULT_GROUP	"eprobes"

/* Events an eprobe may not attach to: probe events and ftrace internals */
#define EPROBE_NO_TARGET	(TRACE_EVENT_FL_IGNORE_ENABLE |	\
				 TRACE_EVENT_FL_KPROBE |	\
				 TRACE_EVENT_FL_UPROBE |	\
				 TRACE_EVENT_FL_EPROBE)

/*
 * One event probe.  Read-only once on the dyn_event list, except @hooks
 * (event_mutex).  The record it writes is struct eprobe_trace_entry_head
 * followed by the argument data the library lays out.
 */
struct trace_eprobe {
	struct dyn_event	devent;		/* on dyn_event_list */
	struct trace_event_call	*target;	/* attached event, referenced */
	char			*filter_str;	/* FILTER as written, or NULL */
	struct list_head	hooks;		/* struct eprobe_hook::node */
	struct trace_probe	tp;		/* last: has args[] */
};

/*
 * The link between our event's file in one instance (@dst) and the
 * attached event's file in the same instance (@src).  @trigger is what the
 * trigger core sees on @src's list; its filter is our FILTER, compiled for
 * the instance.  @linked tells whether @trigger is on that list.
 */
struct eprobe_hook {
	struct event_trigger_data	trigger;
	struct trace_eprobe		*ep;
	struct trace_event_file		*src;
	struct trace_event_file		*dst;
	struct list_head		node;	/* on ep->hooks */
	bool				linked;
};

static struct dyn_event_operations eprobe_dyn_ops;

static struct trace_eprobe *to_eprobe(struct dyn_event *ev)
{
	return container_of(ev, struct trace_eprobe, devent);
}

static struct trace_eprobe *eprobe_of_call(struct trace_event_call *call)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	return tp ? container_of(tp, struct trace_eprobe, tp) : NULL;
}

static const char *eprobe_target_system(struct trace_eprobe *ep)
{
	return ep->target->class->system;
}

static const char *eprobe_target_name(struct trace_eprobe *ep)
{
	return trace_event_name(ep->target);
}

/* ---- Fetching: the load stage reads the attached event's record ---- */

/* A field of @size bytes at @p, sign-extended when @is_signed. */
static nokprobe_inline unsigned long
eprobe_load_number(const void *p, int size, bool is_signed)
{
	switch (size) {
	case 1:
		return is_signed ? (long)*(const s8 *)p : *(const u8 *)p;
	case 2:
		return is_signed ? (long)(s16)get_unaligned((const u16 *)p) :
				   get_unaligned((const u16 *)p);
	case 4:
		return is_signed ? (long)(s32)get_unaligned((const u32 *)p) :
				   get_unaligned((const u32 *)p);
	default:
		/* u64 and anything wider (arrays): its first word */
		return get_unaligned((const unsigned long *)p);
	}
}

/*
 * The value that "$FIELD" loads from the attached record @rec.  A string
 * field gives the address of its characters, wherever the event keeps
 * them; any other field gives its value.
 */
static nokprobe_inline unsigned long
eprobe_load_field(const struct ftrace_event_field *field, void *rec)
{
	void *slot = rec + field->offset;
	u32 loc;

	switch (field->filter_type) {
	case FILTER_STATIC_STRING:	/* char name[N] inside the record */
		return (unsigned long)slot;
	case FILTER_PTR_STRING:		/* a pointer kept in the record */
		return get_unaligned((unsigned long *)slot);
	case FILTER_DYN_STRING:		/* __data_loc: from the record start */
		loc = get_unaligned((u32 *)slot);
		return (unsigned long)rec + get_loc_offs(loc);
	case FILTER_RDYN_STRING:	/* __rel_loc: from the end of the slot */
		loc = get_unaligned((u32 *)slot);
		return (unsigned long)slot + sizeof(u32) + get_loc_offs(loc);
	default:
		return eprobe_load_number(slot, field->size, field->is_signed);
	}
}

/* The library's quick load (trace_probe_tmpl.h): a field of the record. */
static nokprobe_inline bool
tprobe_load_hit(const struct fetch_insn *code, void *rec, void *edata,
		unsigned long *val)
{
	if (code->op != FETCH_OP_TP_ARG)
		return false;
	*val = eprobe_load_field(code->data, rec);
	return true;
}

/*
 * The library's hook for the load stage (trace_probe_tmpl.h).  @rec is the
 * attached event's record; eprobes have no entry data.
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

	if (code->op == FETCH_OP_TP_ARG) {
		val = eprobe_load_field(code->data, rec);
	} else {
		ret = process_common_fetch_insn(code, &val);
		if (ret < 0)
			return ret;
	}
	return process_fetch_insn_bottom(code + 1, val, dest, base);
}

NOKPROBE_SYMBOL(process_fetch_insn)

/* ---- A hit: one attached record makes one of ours ---- */

/* The general way, for a file with something to decide per record. */
static noinline void eprobe_write_general(struct trace_probe *tp,
					  struct trace_event_file *file,
					  void *rec, int dyn)
{
	struct eprobe_trace_entry_head *head;
	struct trace_event_buffer fbuffer;

	head = trace_event_buffer_reserve(&fbuffer, file,
					  sizeof(*head) + tp->size + dyn);
	if (!head)
		return;

	store_trace_args(&head[1], tp, rec, NULL, sizeof(*head), dyn);
	trace_event_buffer_commit(&fbuffer);
}

/* Write our record for the attached record @rec into @file. */
static void eprobe_write(struct trace_eprobe *ep, struct trace_event_file *file,
			 void *rec)
{
	struct eprobe_trace_entry_head *head;
	struct trace_probe *tp = &ep->tp;
	struct tprobe_rec direct;
	int dyn;

	/* Our event's own soft-disable, pid filter and unconditional triggers */
	if (trace_trigger_soft_disabled(file))
		return;

	/* The library calls its context "regs"; ours is the attached record. */
	dyn = __get_data_size(tp, rec, NULL);
	if (unlikely(!tprobe_rec_direct(file))) {
		eprobe_write_general(tp, file, rec, dyn);
		return;
	}
	head = tprobe_rec_reserve(&direct, file, sizeof(*head) + tp->size + dyn);
	if (head) {
		store_trace_args(&head[1], tp, rec, NULL, sizeof(*head), dyn);
		tprobe_rec_commit(&direct);
	}
}

/*
 * event_command::trigger.  The trigger core has applied FILTER already.
 * @rec is NULL only in the short time after the hook joined the list and
 * before the attached file was told that a trigger needs records.
 */
static void eprobe_trigger_fire(struct event_trigger_data *data,
				struct trace_buffer *buffer, void *rec,
				struct ring_buffer_event *rbe)
{
	struct eprobe_hook *hook = container_of(data, struct eprobe_hook,
						trigger);

	if (likely(rec))
		eprobe_write(hook->ep, hook->dst, rec);
}

/*
 * event_command::free.  Only clear_event_triggers() calls it, having taken
 * the hook off the list and dropped its trigger-mode reference itself.
 * The memory stays ours until eprobe_disable() for the same instance.
 */
static void eprobe_trigger_dropped(struct event_trigger_data *data)
{
	struct eprobe_hook *hook = container_of(data, struct eprobe_hook,
						trigger);

	hook->linked = false;
}

/* event_command::print: the hook is no user trigger; list nothing. */
static int eprobe_trigger_print(struct seq_file *m,
				struct event_trigger_data *data)
{
	return 0;
}

/*
 * Never registered as a trigger command: it cannot be written to a trigger
 * file, and EVENT_TRIGGER_FL_PROBE keeps it out of the trigger file's list.
 */
static struct event_command eprobe_trigger_cmd = {
	.name		= "eprobe",
	.trigger_type	= ETT_EVENT_EPROBE,
	.flags		= EVENT_CMD_FL_NEEDS_REC,
	.trigger	= eprobe_trigger_fire,
	.free		= eprobe_trigger_dropped,
	.print		= eprobe_trigger_print,
};

/* ---- Hooks: enable and disable, per instance ---- */

/* The attached event's file in the instance of @dst.  event_mutex held. */
static struct trace_event_file *eprobe_source_file(struct trace_eprobe *ep,
						   struct trace_event_file *dst)
{
	struct trace_event_file *file;

	list_for_each_entry(file, &dst->tr->events, list) {
		if (file->event_call == ep->target)
			return file;
	}
	return NULL;
}

/* A hook that joins nothing yet; FILTER compiled for @dst's instance. */
static struct eprobe_hook *eprobe_hook_new(struct trace_eprobe *ep,
					   struct trace_event_file *dst)
{
	struct event_filter *filter = NULL;
	struct trace_event_file *src;
	struct eprobe_hook *hook;
	int ret;

	src = eprobe_source_file(ep, dst);
	if (!src)
		return ERR_PTR(-ENOENT);

	if (ep->filter_str) {
		ret = create_event_filter(dst->tr, ep->target, ep->filter_str,
					  false, &filter);
		if (ret) {
			free_event_filter(filter);
			return ERR_PTR(ret);
		}
	}

	hook = kzalloc(sizeof(*hook), GFP_KERNEL_ACCOUNT);
	if (!hook) {
		free_event_filter(filter);
		return ERR_PTR(-ENOMEM);
	}
	hook->ep = ep;
	hook->src = src;
	hook->dst = dst;
	hook->trigger.flags = EVENT_TRIGGER_FL_PROBE;
	hook->trigger.cmd_ops = &eprobe_trigger_cmd;
	INIT_LIST_HEAD(&hook->trigger.list);
	RCU_INIT_POINTER(hook->trigger.filter, filter);
	return hook;
}

/* Free a hook no handler can see: never linked, or retired. */
static void eprobe_hook_free(struct eprobe_hook *hook)
{
	free_event_filter(rcu_access_pointer(hook->trigger.filter));
	kfree(hook);
}

/* Take @hook off its trigger list, if it still is there.  event_mutex. */
static void eprobe_hook_unlink(struct eprobe_hook *hook)
{
	if (!hook->linked)
		return;
	list_del_rcu(&hook->trigger.list);
	hook->linked = false;
	update_cond_flag(hook->src);
	trace_event_trigger_enable_disable(hook->src, 0);
}

/*
 * Put @hook on the attached file's trigger list and soft-enable that
 * event.  The file learns that a trigger needs records before its
 * tracepoint can be armed for us.  event_mutex held.
 */
static int eprobe_hook_link(struct eprobe_hook *hook)
{
	int ret;

	list_add_tail_rcu(&hook->trigger.list, &hook->src->triggers);
	hook->linked = true;
	update_cond_flag(hook->src);

	ret = trace_event_trigger_enable_disable(hook->src, 1);
	if (ret < 0)
		eprobe_hook_unlink(hook);	/* also gives the reference back */
	return ret;
}

static struct eprobe_hook *eprobe_find_hook(struct trace_eprobe *ep,
					    struct trace_event_file *dst)
{
	struct eprobe_hook *hook;

	list_for_each_entry(hook, &ep->hooks, node) {
		if (hook->dst == dst)
			return hook;
	}
	return NULL;
}

/* TRACE_REG_REGISTER: our event was enabled in @file's instance. */
static int eprobe_enable(struct trace_eprobe *ep, struct trace_event_file *file)
{
	struct eprobe_hook *hook;
	int ret;

	lockdep_assert_held(&event_mutex);
	if (eprobe_find_hook(ep, file))
		return 0;

	hook = eprobe_hook_new(ep, file);
	if (IS_ERR(hook))
		return PTR_ERR(hook);

	ret = trace_probe_add_file(&ep->tp, file);
	if (ret) {
		eprobe_hook_free(hook);
		return ret;
	}
	ret = eprobe_hook_link(hook);
	if (ret) {
		trace_probe_remove_file(&ep->tp, file);
		/* It was on the list for a moment. */
		tracepoint_synchronize_unregister();
		eprobe_hook_free(hook);
		return ret;
	}
	list_add_tail(&hook->node, &ep->hooks);
	return 0;
}

/* TRACE_REG_UNREGISTER: our event was disabled in @file's instance. */
static void eprobe_disable(struct trace_eprobe *ep,
			   struct trace_event_file *file)
{
	struct eprobe_hook *hook;

	lockdep_assert_held(&event_mutex);
	hook = eprobe_find_hook(ep, file);
	if (!hook)
		return;

	eprobe_hook_unlink(hook);
	list_del(&hook->node);
	trace_probe_remove_file(&ep->tp, file);

	/* A handler that found the hook on the list may still be running. */
	tracepoint_synchronize_unregister();
	eprobe_hook_free(hook);
}

/* trace_event_class::reg of every eprobe event.  event_mutex held. */
static int eprobe_reg(struct trace_event_call *call, enum trace_reg type,
		      void *data)
{
	struct trace_eprobe *ep = eprobe_of_call(call);

	if (!ep)
		return -ENODEV;

	switch (type) {
	case TRACE_REG_REGISTER:
		return eprobe_enable(ep, data);
	case TRACE_REG_UNREGISTER:
		eprobe_disable(ep, data);
		return 0;
	default:
		/* perf: accepted, as in 6.12, but no records are made for it */
		return 0;
	}
}

/* ---- Our trace event: fields and output ---- */

static int eprobe_define_fields(struct trace_event_call *call)
{
	struct trace_eprobe *ep = eprobe_of_call(call);

	if (!ep)
		return -ENOENT;
	return traceprobe_define_arg_fields(call,
					    sizeof(struct eprobe_trace_entry_head),
					    &ep->tp);
}

/* "EVENT: (SYSTEM.ATTACHED) NAME=VALUE ..." */
static enum print_line_t eprobe_print(struct trace_iterator *iter, int flags,
				      struct trace_event *event)
{
	struct trace_event_call *call = container_of(event,
						     struct trace_event_call,
						     event);
	struct eprobe_trace_entry_head *head = (void *)iter->ent;
	struct trace_eprobe *ep = eprobe_of_call(call);
	struct trace_seq *s = &iter->seq;

	if (unlikely(!ep))
		return trace_handle_return(s);

	trace_seq_printf(s, "%s: (%s.%s)", trace_probe_name(&ep->tp),
			 eprobe_target_system(ep), eprobe_target_name(ep));
	if (trace_probe_print_args(s, ep->tp.args, ep->tp.nr_args,
				   (u8 *)&head[1], head) >= 0)
		trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static struct trace_event_functions eprobe_event_funcs = {
	.trace		= eprobe_print,
};

static struct trace_event_fields eprobe_event_fields[] = {
	{ .type = TRACE_FUNCTION_TYPE,
	  .define_fields = eprobe_define_fields },
	{}
};

/* ---- trace_eprobe objects ---- */

/* Undo eprobe_new() and what parsing added; @ep is on no list. */
static void eprobe_free(struct trace_eprobe *ep)
{
	trace_probe_cleanup(&ep->tp);
	if (ep->target)
		trace_event_put_ref(ep->target);
	kfree(ep->filter_str);
	kfree(ep);
}

/* The event called SYSTEM/EVENT, referenced, if an eprobe may use it. */
static struct trace_event_call *eprobe_get_target(const char *system,
						  const char *event)
{
	struct trace_event_call *call;
	const char *name;

	guard(mutex)(&event_mutex);
	list_for_each_entry(call, &ftrace_events, list) {
		if (call->flags & EPROBE_NO_TARGET)
			continue;
		name = trace_event_name(call);
		if (!name || !call->class->system ||
		    strcmp(name, event) || strcmp(call->class->system, system))
			continue;
		return trace_event_try_get_ref(call) ? call : NULL;
	}
	return NULL;
}

/*
 * What the words of a definition say, before anything is allocated.
 * Arguments are words 2 .. 2 + @nargs - 1; FILTER, when there is an "if",
 * is @filter_cnt words from @filter_idx.
 */
struct eprobe_spec {
	const char	*group;
	const char	*event;
	const char	*sys;		/* the attached event */
	const char	*sys_event;
	int		nargs;
	int		filter_idx;	/* 0: no "if" */
	int		filter_cnt;
	char		group_buf[MAX_EVENT_NAME_LEN];
	char		event_buf[MAX_EVENT_NAME_LEN];
	char		sys_buf[MAX_EVENT_NAME_LEN];
};

static struct trace_eprobe *eprobe_new(struct eprobe_spec *spec)
{
	struct trace_event_call *target;
	struct trace_eprobe *ep;
	int ret;

	target = eprobe_get_target(spec->sys, spec->sys_event);
	if (!target) {
		trace_probe_log_set_index(1);
		trace_probe_log_err(0, BAD_ATTACH_EVENT);
		return ERR_PTR(-ENODEV);
	}

	ep = kzalloc(struct_size(ep, tp.args, spec->nargs), GFP_KERNEL_ACCOUNT);
	if (!ep) {
		trace_event_put_ref(target);
		return ERR_PTR(-ENOMEM);
	}
	ep->target = target;
	INIT_LIST_HEAD(&ep->hooks);
	dyn_event_init(&ep->devent, &eprobe_dyn_ops);

	ret = trace_probe_init(&ep->tp, spec->event, spec->group, false,
			       spec->nargs);
	if (ret) {
		eprobe_free(ep);
		return ERR_PTR(ret);
	}
	return ep;
}

/* ---- Parsing a definition ---- */

/* "e[:[GRP/][EVENT]]" and "SYSTEM.EVENT" (or "SYSTEM/EVENT"). */
static int eprobe_parse_names(const char **argv, struct eprobe_spec *spec)
{
	const char *colon = strchr(argv[0] + 1, ':');
	int ret;

	spec->group = EPROBE_DEFAULT_GROUP;
	spec->event = NULL;
	if (colon) {
		spec->event = colon + 1;
		ret = traceprobe_parse_event_name(&spec->event, &spec->group,
						  spec->group_buf,
						  spec->event - argv[0]);
		if (ret)
			return ret;
	}

	trace_probe_log_set_index(1);
	spec->sys_event = argv[1];
	spec->sys = NULL;
	ret = traceprobe_parse_event_name(&spec->sys_event, &spec->sys,
					  spec->sys_buf, 0);
	if (ret || !spec->sys || !spec->sys_event) {
		trace_probe_log_err(0, NO_EVENT_INFO);
		return -EINVAL;
	}

	/* Unnamed: the attached event's name, in our group. */
	if (!spec->event) {
		strscpy(spec->event_buf, spec->sys_event,
			sizeof(spec->event_buf));
		spec->event = spec->event_buf;
	}
	return 0;
}

/* Split off "if FILTER" and count the arguments before it. */
static int eprobe_split_filter(int argc, const char **argv,
			       struct eprobe_spec *spec)
{
	int i;

	spec->filter_idx = 0;
	spec->filter_cnt = 0;
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "if")) {
			spec->filter_idx = i + 1;
			spec->filter_cnt = argc - i - 1;
			argc = i;
			break;
		}
	}

	spec->nargs = argc - 2;
	if (spec->nargs > MAX_TRACE_ARGS) {
		trace_probe_log_set_index(2 + MAX_TRACE_ARGS);
		trace_probe_log_err(0, TOO_MANY_ARGS);
		return -E2BIG;
	}
	return 0;
}

/*
 * Keep FILTER (its words joined by single spaces) once the attached
 * event's filter parser accepts it; a refusal is logged by that parser.
 */
static int eprobe_set_filter(struct trace_eprobe *ep, const char **words,
			     int count)
{
	struct event_filter *probe = NULL;
	size_t size = 0;
	char *text, *end;
	int i, ret;

	if (!count) {
		trace_probe_log_err(0, NO_EP_FILTER);
		return -EINVAL;
	}

	for (i = 0; i < count; i++)
		size += strlen(words[i]) + 1;
	text = kmalloc(size, GFP_KERNEL_ACCOUNT);
	if (!text)
		return -ENOMEM;
	end = text;
	for (i = 0; i < count; i++)
		end += scnprintf(end, size - (end - text), "%s%s",
				 i ? " " : "", words[i]);

	ret = create_event_filter(top_trace_array(), ep->target, text, true,
				  &probe);
	free_event_filter(probe);
	if (ret) {
		kfree(text);
		return -EINVAL;
	}
	ep->filter_str = text;
	return 0;
}

/* The fetch arguments, words 2 and on; each error is logged at its word. */
static int eprobe_parse_args(struct trace_eprobe *ep, const char **argv)
{
	int i, ret;

	for (i = 0; i < ep->tp.nr_args; i++) {
		struct traceprobe_parse_context ctx = {
			.event = ep->target,
			.flags = TPARG_FL_KERNEL | TPARG_FL_TEVENT,
		};

		trace_probe_log_set_index(i + 2);
		ret = traceprobe_parse_probe_arg(&ep->tp, i, argv[i + 2], &ctx);
		/* "@SYM" gets its address now */
		if (!ret)
			ret = traceprobe_update_arg(&ep->tp.args[i]);
		traceprobe_finish_parse(&ctx);
		if (ret)
			return ret;
	}
	return traceprobe_set_print_fmt(&ep->tp, PROBE_PRINT_EVENT);
}

/* Make the fully parsed @ep visible: events/GRP/EVENT and the list. */
static int eprobe_publish(struct trace_eprobe *ep)
{
	struct trace_event_call *call = trace_probe_event_call(&ep->tp);
	int ret;

	call->flags = TRACE_EVENT_FL_EPROBE;
	call->event.funcs = &eprobe_event_funcs;
	call->class->fields_array = eprobe_event_fields;
	call->class->reg = eprobe_reg;

	guard(mutex)(&event_mutex);
	ret = trace_probe_register_event_call(&ep->tp);
	if (ret == -EEXIST) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, EVENT_EXIST);
	}
	if (ret)
		return ret;

	ret = dyn_event_add(&ep->devent, call);
	if (ret)
		trace_probe_unregister_event_call(&ep->tp);
	return ret;
}

/* Everything after the words were checked; on failure nothing changed. */
static int eprobe_build(int argc, const char **argv, struct eprobe_spec *spec)
{
	struct trace_eprobe *ep;
	int ret;

	ep = eprobe_new(spec);
	if (IS_ERR(ep))
		return PTR_ERR(ep);

	ret = 0;
	if (spec->filter_idx) {
		trace_probe_log_set_index(spec->filter_idx);
		ret = eprobe_set_filter(ep, argv + spec->filter_idx,
					spec->filter_cnt);
	}
	if (!ret)
		ret = eprobe_parse_args(ep, argv);
	if (ret >= 0)
		ret = eprobe_publish(ep);
	if (ret)
		eprobe_free(ep);
	return ret < 0 ? ret : 0;
}

/*
 * e[:[GRP/][EVENT]] SYSTEM.EVENT [FETCHARGS] [if FILTER]
 *
 * As in 6.12, any first word that starts with 'e' is ours, and the event
 * name follows its first ':'.
 */
static int eprobe_create_argv(int argc, const char **argv)
{
	struct eprobe_spec spec;
	int ret;

	if (argc < 2 || argv[0][0] != 'e')
		return -ECANCELED;

	trace_probe_log_init("event_probe", argc, argv);
	ret = eprobe_parse_names(argv, &spec);
	if (!ret)
		ret = eprobe_split_filter(argc, argv, &spec);
	if (!ret)
		ret = eprobe_build(argc, argv, &spec);
	trace_probe_log_clear();
	return ret;
}

/* ---- dyn_event callbacks ---- */

/**
 * eprobe_dyn_create - define an eprobe from a dynamic_events line
 * @raw_command: the definition as written to dynamic_events
 *
 * The create callback of the "e" type of dynamic event.  With CONFIG_KUNIT
 * it is visible to the eprobe KUnit suite, which runs its definitions
 * through it as dyn_event_create() does.
 *
 * Context: process context, dyn_event_ops_mutex held; sleeps.
 * Return: 0 when the eprobe was defined, -ECANCELED when the line is no
 * eprobe definition, else a negative errno; most refusals also leave an
 * error_log entry.
 */
VISIBLE_IF_KUNIT int eprobe_dyn_create(const char *raw_command)
{
	return trace_probe_create(raw_command, eprobe_create_argv);
}
EXPORT_SYMBOL_IF_KUNIT(eprobe_dyn_create);

/* "e:GRP/EVENT SYSTEM.ATTACHED NAME=ARG ..."; FILTER is not shown. */
static int eprobe_dyn_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_eprobe *ep = to_eprobe(ev);
	unsigned int i;

	seq_printf(m, "e:%s/%s %s.%s", trace_probe_group_name(&ep->tp),
		   trace_probe_name(&ep->tp), eprobe_target_system(ep),
		   eprobe_target_name(ep));
	for (i = 0; i < ep->tp.nr_args; i++)
		seq_printf(m, " %s=%s", ep->tp.args[i].name,
			   ep->tp.args[i].comm);
	seq_putc(m, '\n');
	return 0;
}

/* Does @word ("SYSTEM/EVENT" or "SYSTEM.EVENT") name @ep's target? */
static bool eprobe_word_names_target(struct trace_probe *tp, const char *word)
{
	struct trace_eprobe *ep = container_of(tp, struct trace_eprobe, tp);
	const char *sys = eprobe_target_system(ep);
	const char *sep = strchr(word, '/');
	size_t len;

	if (!sep)
		sep = strchr(word, '.');
	if (!sep)
		return false;

	len = sep - word;
	return strlen(sys) == len && !strncmp(word, sys, len) &&
	       !strcmp(sep + 1, eprobe_target_name(ep));
}

/*
 * Removal: "-:[GRP/][EVENT] [SYSTEM.ATTACHED [NAME=ARG ...]]".  The words
 * given must match; those left out match anything.
 */
static bool eprobe_dyn_match(const char *system, const char *event, int argc,
			     const char **argv, struct dyn_event *ev)
{
	return trace_probe_match_command(&to_eprobe(ev)->tp, system, event,
					 argc, argv, eprobe_word_names_target);
}

static bool eprobe_dyn_is_busy(struct dyn_event *ev)
{
	return trace_probe_is_enabled(&to_eprobe(ev)->tp);
}

/* Remove and free an eprobe.  event_mutex held. */
static int eprobe_dyn_free(struct dyn_event *ev)
{
	struct trace_eprobe *ep = to_eprobe(ev);

	lockdep_assert_held(&event_mutex);
	if (trace_probe_is_enabled(&ep->tp) ||
	    trace_event_dyn_busy(trace_probe_event_call(&ep->tp)))
		return -EBUSY;
	/* Fails while perf or an enabled instance still uses the event. */
	if (trace_probe_unregister_event_call(&ep->tp))
		return -EBUSY;

	dyn_event_remove(&ep->devent);
	eprobe_free(ep);
	return 0;
}

static struct dyn_event_operations eprobe_dyn_ops = {
	.create		= eprobe_dyn_create,
	.show		= eprobe_dyn_show,
	.is_busy	= eprobe_dyn_is_busy,
	.free		= eprobe_dyn_free,
	.match		= eprobe_dyn_match,
};

/*
 * Early, so that definitions can be made before tracefs exists (from the
 * kernel command line or boot-time tracing).
 */
static __init int eprobe_init(void)
{
	int ret = dyn_event_register(&eprobe_dyn_ops);

	if (ret)
		pr_warn("cannot register the eprobe definition type: %d\n",
			ret);
	return ret;
}
core_initcall(eprobe_init);
