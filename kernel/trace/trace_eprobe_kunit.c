// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for event probes (trace_eprobe.c).
 *
 * Definitions run through the eprobe type's create callback with
 * dyn_event_ops_mutex held, which is what a line written to dynamic_events
 * runs; removals ("-:...") go through dyn_event_release() as such a line
 * does.  What a user observes is checked: whether a definition is
 * accepted, the line dynamic_events lists for it, with which errno it is
 * refused, and the code and caret of the error_log entry the probe library
 * recorded (tprobe_log_get_last()).  A caret is written into a refused
 * command as '^' and taken out before the command runs.
 *
 * Eprobes are attached to kmem/kfree, which the suite fires itself with
 * trace_kfree() and a call site no kernel code has, so that FILTER lets
 * only the suite's own calls through; to sched/sched_switch, which the
 * test task fires by sleeping; and, where the kernel has system call
 * events, to syscalls/sys_enter_openat for a listing.  Records are read
 * back from trace instances of the suite's own and decoded through the
 * eprobe event's fields, as a reader of its format file would.
 *
 * Every eprobe a case makes is in the group "epk" (or is eprobes/kfree),
 * and every instance is the case's own: cleanup actions destroy the
 * instances, then remove the eprobes, also after a failed assertion.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace.h>
#include <linux/trace_events.h>
#include <linux/unaligned.h>
#include <trace/events/kmem.h>

#include "trace.h"
#include "trace_dynevent.h"
#include "trace_eprobe.h"
#include "trace_probe_internal.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define EPK_GROUP	"epk"
#define EPK_LINE_MAX	256
/* The call_site of the suite's trace_kfree() calls: no kernel text */
#define EPK_SITE	0x0e9b0001UL

/* What the suite's trace_kfree() calls "free"; eprobes dereference it. */
struct epk_blob {
	u32	word;
	s16	half;
	char	text[10];
};

static struct epk_blob epk_blob = {
	.word = 0xfeedf00d,
	.half = -2345,
	.text = "epk-blob",
};

/* ---- running lines and reading dynamic_events ---- */

/*
 * Define an eprobe from @cmd as dynamic_events does; when @last is given,
 * it gets the error_log code and caret this line recorded (-1: none).
 */
static int epk_define(const char *cmd, struct tprobe_log_last *last)
{
	int ret;

	mutex_lock(&dyn_event_ops_mutex);
	tprobe_log_forget_last();
	ret = eprobe_dyn_create(cmd);
	if (last)
		tprobe_log_get_last(last);
	mutex_unlock(&dyn_event_ops_mutex);
	return ret;
}

/* A "-:[GRP/]EVENT [SYSTEM.EVENT [ARGS]]" line, as dynamic_events runs it */
static int epk_remove(const char *cmd)
{
	return dyn_event_release(cmd, NULL);
}

static bool epk_is_eprobe(struct dyn_event *ev)
{
	return ev->ops->create == eprobe_dyn_create;
}

/*
 * The line dynamic_events lists for the eprobe GROUP/EVENT, without its
 * newline, into @buf.  0, -ENOENT when there is no such eprobe, or -E2BIG.
 */
static int epk_listing(const char *group, const char *event, char *buf,
		       size_t size)
{
	struct seq_file m = { .buf = buf, .size = size };
	struct dyn_event *pos;
	int ret = -ENOENT;

	mutex_lock(&event_mutex);
	for_each_dyn_event(pos) {
		if (!epk_is_eprobe(pos) ||
		    !pos->ops->match(group, event, 0, NULL, pos))
			continue;
		pos->ops->show(&m, pos);
		ret = seq_has_overflowed(&m) ? -E2BIG : 0;
		break;
	}
	mutex_unlock(&event_mutex);

	if (m.count && buf[m.count - 1] == '\n')
		m.count--;
	buf[min(m.count, size - 1)] = '\0';
	return ret;
}

/* How many eprobes dynamic_events lists */
static int epk_count_eprobes(void)
{
	struct dyn_event *pos;
	int n = 0;

	mutex_lock(&event_mutex);
	for_each_dyn_event(pos)
		n += epk_is_eprobe(pos);
	mutex_unlock(&event_mutex);
	return n;
}

/* A line buffer the case's cleanup frees (kept off the stack) */
static char *epk_buf(struct kunit *test)
{
	char *buf = kunit_kzalloc(test, EPK_LINE_MAX, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	return buf;
}

/* The trace event SYSTEM/EVENT, or NULL */
static struct trace_event_call *epk_find_call(const char *system,
					      const char *event)
{
	struct trace_event_call *call, *found = NULL;
	const char *name;

	mutex_lock(&event_mutex);
	list_for_each_entry(call, &ftrace_events, list) {
		name = trace_event_name(call);
		if (call->class->system && name &&
		    !strcmp(call->class->system, system) &&
		    !strcmp(name, event)) {
			found = call;
			break;
		}
	}
	mutex_unlock(&event_mutex);
	return found;
}

static void epk_need_event(struct kunit *test, const char *system,
			   const char *event)
{
	if (!epk_find_call(system, event))
		kunit_skip(test, "no event %s/%s in this kernel", system, event);
}

/*
 * Run @marked without its '^' and expect the errno @err, an error_log
 * entry with code @code and its caret where the '^' was.
 */
static void epk_expect_refusal(struct kunit *test, const char *marked,
			       int err, int code)
{
	const char *caret = strchr(marked, '^');
	struct tprobe_log_last last;
	size_t at;
	char *cmd;

	KUNIT_ASSERT_NOT_NULL(test, caret);
	at = caret - marked;
	cmd = kunit_kzalloc(test, strlen(marked), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	memcpy(cmd, marked, at);
	memcpy(cmd + at, caret + 1, strlen(caret + 1) + 1);

	KUNIT_EXPECT_EQ_MSG(test, epk_define(cmd, &last), err, "%s", cmd);
	KUNIT_EXPECT_EQ_MSG(test, last.err, code, "%s", cmd);
	KUNIT_EXPECT_EQ_MSG(test, last.pos, (int)at, "%s", cmd);
}

/* ---- cleanup ---- */

/* Suite init registers it first, so it runs after every other action. */
static void epk_remove_all(void *unused)
{
	epk_remove("-:" EPK_GROUP "/");
	epk_remove("-:eprobes/kfree kmem.kfree");
}

static int epk_init(struct kunit *test)
{
	return kunit_add_action(test, epk_remove_all, NULL);
}

struct epk_instance {
	struct trace_array *tr;
};

/* Destroy the instance (disabling its events); 0 or its errno. */
static int epk_instance_destroy(struct epk_instance *inst)
{
	struct trace_array *tr = inst->tr;

	if (!tr)
		return 0;
	inst->tr = NULL;
	trace_array_put(tr);
	return trace_array_destroy(tr);
}

static void epk_instance_action(void *data)
{
	epk_instance_destroy(data);
}

/* A trace instance that the case's cleanup destroys */
static struct epk_instance *epk_instance_new(struct kunit *test,
					     const char *name)
{
	struct epk_instance *inst;

	inst = kunit_kzalloc(test, sizeof(*inst), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, inst);
	inst->tr = trace_array_get_by_name(name, NULL);
	KUNIT_ASSERT_NOT_NULL(test, inst->tr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							epk_instance_action,
							inst), 0);
	return inst;
}

/* ---- records ---- */

static struct ftrace_event_field *epk_field(struct trace_event_call *call,
					    const char *name)
{
	struct ftrace_event_field *f;

	list_for_each_entry(f, trace_get_fields(call), link)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

/* The number in field @name of the record @ent (@len bytes) */
static u64 epk_value(struct kunit *test, struct trace_event_call *call,
		     const void *ent, unsigned int len, const char *name)
{
	struct ftrace_event_field *f = epk_field(call, name);
	const void *p;

	KUNIT_ASSERT_NOT_NULL_MSG(test, f, "field %s", name);
	KUNIT_ASSERT_LE_MSG(test, f->offset + f->size, (int)len, "field %s",
			    name);
	p = ent + f->offset;
	switch (f->size) {
	case 1:
		return f->is_signed ? (u64)*(const s8 *)p : *(const u8 *)p;
	case 2:
		return f->is_signed ? (u64)(s16)get_unaligned((const u16 *)p) :
				      get_unaligned((const u16 *)p);
	case 4:
		return f->is_signed ? (u64)(s32)get_unaligned((const u32 *)p) :
				      get_unaligned((const u32 *)p);
	default:
		KUNIT_ASSERT_EQ_MSG(test, f->size, 8, "field %s", name);
		return get_unaligned((const u64 *)p);
	}
}

/* The string field @name of @ent: its data_loc points into the record. */
static const char *epk_string(struct kunit *test, struct trace_event_call *call,
			      const void *ent, unsigned int len,
			      const char *name)
{
	struct ftrace_event_field *f = epk_field(call, name);
	const char *s;
	u32 loc;

	KUNIT_ASSERT_NOT_NULL_MSG(test, f, "field %s", name);
	KUNIT_ASSERT_EQ_MSG(test, f->size, 4, "field %s", name);
	loc = get_unaligned((const u32 *)(ent + f->offset));
	KUNIT_ASSERT_GT_MSG(test, get_loc_len(loc), 0U, "field %s", name);
	KUNIT_ASSERT_LE_MSG(test, get_loc_offs(loc) + get_loc_len(loc), len,
			    "field %s", name);
	s = ent + get_loc_offs(loc);
	KUNIT_ASSERT_EQ_MSG(test, s[get_loc_len(loc) - 1], '\0', "field %s",
			    name);
	return s;
}

/*
 * Consume every record of @inst's buffer; check those of @call with
 * @check (when given) and return how many there were.
 */
static int epk_consume(struct kunit *test, struct epk_instance *inst,
		       struct trace_event_call *call,
		       void (*check)(struct kunit *test,
				     struct trace_event_call *call,
				     const void *ent, unsigned int len))
{
	struct trace_buffer *buffer = inst->tr->array_buffer.buffer;
	struct ring_buffer_event *rbe;
	struct trace_entry *ent;
	int cpu, n = 0;

	for_each_online_cpu(cpu) {
		while ((rbe = ring_buffer_consume(buffer, cpu, NULL, NULL))) {
			ent = ring_buffer_event_data(rbe);
			if (ent->type != call->event.type)
				continue;
			if (check)
				check(test, call, ent,
				      ring_buffer_event_length(rbe));
			n++;
		}
	}
	return n;
}

/* The eprobe GROUP/EVENT's event, after defining it from @cmd */
static struct trace_event_call *epk_define_call(struct kunit *test,
						const char *cmd,
						const char *event)
{
	struct trace_event_call *call;

	KUNIT_ASSERT_EQ_MSG(test, epk_define(cmd, NULL), 0, "%s", cmd);
	call = epk_find_call(EPK_GROUP, event);
	KUNIT_ASSERT_NOT_NULL(test, call);
	return call;
}

/* ---- accepted definitions and their dynamic_events line ---- */

struct epk_listing_case {
	const char *name;
	const char *cmd;
	const char *sys;	/* the attached event */
	const char *sys_event;
	const char *group;	/* the eprobe's event */
	const char *event;
	const char *line;	/* as dynamic_events lists it */
};

static const struct epk_listing_case epk_listing_cases[] = {
	{ "named_without_arguments", "e:epk/a kmem.kfree",
	  "kmem", "kfree", EPK_GROUP, "a", "e:epk/a kmem.kfree" },
	{ "slash_form_and_typed_fields",
	  "e:epk/b kmem/kfree p=$ptr site=$call_site:x64 lo=$call_site:u8",
	  "kmem", "kfree", EPK_GROUP, "b",
	  "e:epk/b kmem.kfree p=$ptr site=$call_site:x64 lo=$call_site:u8" },
	{ "unnamed_arguments_get_argN", "e:epk/c kmem.kfree $ptr $call_site:s32",
	  "kmem", "kfree", EPK_GROUP, "c",
	  "e:epk/c kmem.kfree arg1=$ptr arg2=$call_site:s32" },
	{ "default_group_and_event", "e kmem.kfree p=$ptr",
	  "kmem", "kfree", "eprobes", "kfree",
	  "e:eprobes/kfree kmem.kfree p=$ptr" },
	{ "group_alone_takes_the_event_name", "e:epk/ sched.sched_switch",
	  "sched", "sched_switch", EPK_GROUP, "sched_switch",
	  "e:epk/sched_switch sched.sched_switch" },
	{ "dot_separates_group_and_event", "e:epk.d kmem.kfree",
	  "kmem", "kfree", EPK_GROUP, "d", "e:epk/d kmem.kfree" },
	{ "static_string_field",
	  "e:epk/e sched.sched_switch comm=$next_comm:string pid=$next_pid:s32",
	  "sched", "sched_switch", EPK_GROUP, "e",
	  "e:epk/e sched.sched_switch comm=$next_comm:string pid=$next_pid:s32" },
	{ "dereferences_of_a_field",
	  "e:epk/f kmem.kfree w=+0($ptr):x32 s=+8($ptr):string n=+4(+0($ptr)):u16",
	  "kmem", "kfree", EPK_GROUP, "f",
	  "e:epk/f kmem.kfree w=+0($ptr):x32 s=+8($ptr):string n=+4(+0($ptr)):u16" },
	{ "array_bitfield_and_immediate",
	  "e:epk/g kmem.kfree a=+0($ptr):u8[4] b=$call_site:b4@2/32 k=\\1234",
	  "kmem", "kfree", EPK_GROUP, "g",
	  "e:epk/g kmem.kfree a=+0($ptr):u8[4] b=$call_site:b4@2/32 k=\\1234" },
	{ "comm_of_the_current_task", "e:epk/h kmem.kfree c=$comm:string",
	  "kmem", "kfree", EPK_GROUP, "h",
	  "e:epk/h kmem.kfree c=$comm:string" },
	{ "filter_is_not_listed", "e:epk/i kmem.kfree p=$ptr if call_site == 1",
	  "kmem", "kfree", EPK_GROUP, "i", "e:epk/i kmem.kfree p=$ptr" },
	{ "user_string_of_a_syscall_argument",
	  "e:epk/j syscalls.sys_enter_openat name=$filename:ustring flags=$flags:x32",
	  "syscalls", "sys_enter_openat", EPK_GROUP, "j",
	  "e:epk/j syscalls.sys_enter_openat name=$filename:ustring flags=$flags:x32" },
};

static void epk_listing_desc(const struct epk_listing_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(epk_listing, epk_listing_cases, epk_listing_desc);

/*
 * An accepted line is listed canonically, its removal takes it away, and
 * the listed line defines the same eprobe again.
 */
static void accepted_definition_is_listed(struct kunit *test)
{
	const struct epk_listing_case *c = test->param_value;
	char *line = epk_buf(test);
	char cmd[80];

	epk_need_event(test, c->sys, c->sys_event);
	KUNIT_ASSERT_EQ(test, epk_listing(c->group, c->event, line,
					  EPK_LINE_MAX), -ENOENT);

	KUNIT_ASSERT_EQ(test, epk_define(c->cmd, NULL), 0);
	KUNIT_EXPECT_EQ(test, epk_listing(c->group, c->event, line,
					  EPK_LINE_MAX), 0);
	KUNIT_EXPECT_STREQ(test, line, c->line);
	KUNIT_EXPECT_NOT_NULL(test, epk_find_call(c->group, c->event));

	snprintf(cmd, sizeof(cmd), "-:%s/%s", c->group, c->event);
	KUNIT_EXPECT_EQ(test, epk_remove(cmd), 0);
	KUNIT_EXPECT_EQ(test, epk_listing(c->group, c->event, line,
					  EPK_LINE_MAX), -ENOENT);
	KUNIT_EXPECT_NULL(test, epk_find_call(c->group, c->event));

	KUNIT_ASSERT_EQ(test, epk_define(c->line, NULL), 0);
	KUNIT_EXPECT_EQ(test, epk_listing(c->group, c->event, line,
					  EPK_LINE_MAX), 0);
	KUNIT_EXPECT_STREQ(test, line, c->line);
	KUNIT_EXPECT_EQ(test, epk_remove(cmd), 0);
}

/* ---- refused definitions: errno, error_log code and caret ---- */

struct epk_refusal_case {
	const char *name;
	const char *cmd;	/* '^' marks the caret */
	int err;
	int code;
	const char *sys;	/* an event the case needs, or NULL */
	const char *sys_event;
};

#define EPK_REFUSE(n, c, e, code) { n, c, -(e), TP_ERR_##code }

static const struct epk_refusal_case epk_refusal_cases[] = {
	EPK_REFUSE("unknown_event", "e:epk/a ^kmem.epk_no_such_event", ENODEV,
		   BAD_ATTACH_EVENT),
	EPK_REFUSE("unknown_system", "e:epk/a ^epk_no_such_system.kfree", ENODEV,
		   BAD_ATTACH_EVENT),
	{ "ftrace_internal_event", "e:epk/a ^ftrace.print", -ENODEV,
	  TP_ERR_BAD_ATTACH_EVENT, "ftrace", "print" },
	EPK_REFUSE("attached_event_without_system", "e:epk/a ^kfree", EINVAL,
		   NO_EVENT_INFO),
	EPK_REFUSE("attached_system_without_event", "e:epk/a ^kmem.", EINVAL,
		   NO_EVENT_INFO),
	EPK_REFUSE("unknown_field", "e:epk/a kmem.kfree x=^$epk_no_such_field",
		   EINVAL, BAD_VAR),
	EPK_REFUSE("unknown_field_after_good_one",
		   "e:epk/a kmem.kfree $ptr ^$epk_no_such_field", EINVAL,
		   BAD_VAR),
	EPK_REFUSE("unknown_type", "e:epk/a kmem.kfree x=$ptr:^u9", EINVAL,
		   BAD_TYPE),
	EPK_REFUSE("register", "e:epk/a kmem.kfree x=^%ax", EINVAL, BAD_VAR),
	EPK_REFUSE("retval", "e:epk/a kmem.kfree x=^$retval", EINVAL, BAD_VAR),
	EPK_REFUSE("stack_slot", "e:epk/a kmem.kfree ^$stack0", EINVAL,
		   BAD_VAR),
	EPK_REFUSE("function_argument", "e:epk/a kmem.kfree x=^$arg1", EINVAL,
		   BAD_VAR),
	EPK_REFUSE("field_without_dollar", "e:epk/a kmem.kfree x=^ptr", EINVAL,
		   NOSUP_BTFARG),
	EPK_REFUSE("argument_name_twice",
		   "e:epk/a kmem.kfree x=$ptr ^x=$call_site", EINVAL,
		   USED_ARG_NAME),
	EPK_REFUSE("common_field_name", "e:epk/a kmem.kfree ^common_pid=$ptr",
		   EINVAL, USED_ARG_NAME),
	EPK_REFUSE("group_without_name", "e:^/a kmem.kfree", EINVAL,
		   NO_GROUP_NAME),
	EPK_REFUSE("bad_event_name", "e:epk/^a-b kmem.kfree", EINVAL,
		   BAD_EVENT_NAME),
	EPK_REFUSE("colon_without_name", "e:^ kmem.kfree", EINVAL,
		   NO_EVENT_NAME),
	/* the caret is one column past the end of the command */
	EPK_REFUSE("if_without_filter", "e:epk/a kmem.kfree $ptr if ^", EINVAL,
		   NO_EP_FILTER),
};

static void epk_refusal_desc(const struct epk_refusal_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(epk_refusal, epk_refusal_cases, epk_refusal_desc);

static void refused_definition_logs_code_and_caret(struct kunit *test)
{
	const struct epk_refusal_case *c = test->param_value;
	int before = epk_count_eprobes();
	char *line = epk_buf(test);

	epk_need_event(test, "kmem", "kfree");
	if (c->sys)
		epk_need_event(test, c->sys, c->sys_event);

	epk_expect_refusal(test, c->cmd, c->err, c->code);
	/* nothing was left behind */
	KUNIT_EXPECT_EQ(test, epk_count_eprobes(), before);
	KUNIT_EXPECT_EQ(test, epk_listing(EPK_GROUP, "a", line, EPK_LINE_MAX),
			-ENOENT);
	KUNIT_EXPECT_NULL(test, epk_find_call(EPK_GROUP, "a"));
}

/* More than MAX_TRACE_ARGS arguments: -E2BIG, caret on the first extra. */
static void too_many_arguments_are_logged(struct kunit *test)
{
	size_t room = 64 + (MAX_TRACE_ARGS + 1) * 12;
	char *cmd = kunit_kzalloc(test, room, GFP_KERNEL);
	size_t len;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	epk_need_event(test, "kmem", "kfree");
	len = scnprintf(cmd, room, "e:epk/many kmem.kfree");
	for (i = 0; i <= MAX_TRACE_ARGS; i++)
		len += scnprintf(cmd + len, room - len, " %sa%d=$ptr",
				 i == MAX_TRACE_ARGS ? "^" : "", i);
	KUNIT_ASSERT_LT(test, len, room - 1);
	epk_expect_refusal(test, cmd, -E2BIG, TP_ERR_TOO_MANY_ARGS);
	KUNIT_EXPECT_NULL(test, epk_find_call(EPK_GROUP, "many"));
}

/* Lines that are no eprobe definition are left to the other types. */
static void other_lines_are_not_taken(struct kunit *test)
{
	struct tprobe_log_last last;
	int before = epk_count_eprobes();

	KUNIT_EXPECT_EQ(test, epk_define("p:epk/a kmem.kfree", &last),
			-ECANCELED);
	KUNIT_EXPECT_EQ(test, last.err, -1);
	/* an eprobe needs the attached event */
	KUNIT_EXPECT_EQ(test, epk_define("e:epk/a", &last), -ECANCELED);
	KUNIT_EXPECT_EQ(test, last.err, -1);
	KUNIT_EXPECT_EQ(test, epk_count_eprobes(), before);
}

/*
 * A refused line changes nothing: not the eprobe whose name it wants, nor
 * the eprobe it wants to attach to.  Removals name the eprobe, and may
 * name its attached event and leading arguments.
 */
static void refused_lines_leave_existing_probes_alone(struct kunit *test)
{
	static const char keep[] = "e:epk/keep kmem.kfree p=$ptr s=$call_site:u32";
	char *before = epk_buf(test), *after = epk_buf(test);
	struct trace_event_call *call;
	struct tprobe_log_last last;

	epk_need_event(test, "kmem", "kfree");
	epk_need_event(test, "sched", "sched_switch");
	call = epk_define_call(test, keep, "keep");
	KUNIT_ASSERT_EQ(test, epk_listing(EPK_GROUP, "keep", before,
					  EPK_LINE_MAX), 0);
	KUNIT_EXPECT_STREQ(test, before, keep);

	/* the name is taken, whatever the rest of the line */
	epk_expect_refusal(test, "^e:epk/keep sched.sched_switch", -EEXIST,
			   TP_ERR_EVENT_EXIST);
	epk_expect_refusal(test, "^e:epk/keep kmem.kfree p=$ptr s=$call_site:u32",
			   -EEXIST, TP_ERR_EVENT_EXIST);
	/* an eprobe's event cannot be attached to */
	epk_expect_refusal(test, "e:epk/on_ep ^epk.keep", -ENODEV,
			   TP_ERR_BAD_ATTACH_EVENT);
	epk_expect_refusal(test, "e:epk/on_ep ^epk/keep p=$p", -ENODEV,
			   TP_ERR_BAD_ATTACH_EVENT);
	KUNIT_EXPECT_NULL(test, epk_find_call(EPK_GROUP, "on_ep"));
	/* a filter the attached event refuses: its own error_log entry */
	KUNIT_EXPECT_EQ(test, epk_define("e:epk/keep kmem.kfree if epk_no_field == 1",
					 &last), -EINVAL);
	KUNIT_EXPECT_EQ(test, last.err, -1);

	/* removals that name something else */
	KUNIT_EXPECT_EQ(test, epk_remove("-:epk/keep sched.sched_switch"),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, epk_remove("-:epk/keep kmem.kfree s=$call_site:u32"),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, epk_remove("-:epk/keep kmem.kfree p=$ptr s=$call_site:u32 x=$ptr"),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, epk_remove("-:epk/kept"), -ENOENT);

	KUNIT_ASSERT_EQ(test, epk_listing(EPK_GROUP, "keep", after,
					  EPK_LINE_MAX), 0);
	KUNIT_EXPECT_STREQ(test, after, before);
	KUNIT_EXPECT_PTR_EQ(test, epk_find_call(EPK_GROUP, "keep"), call);

	/* the attached event in either spelling, then its first argument */
	KUNIT_EXPECT_EQ(test, epk_remove("-:epk/keep kmem/kfree p=$ptr"), 0);
	KUNIT_EXPECT_NULL(test, epk_find_call(EPK_GROUP, "keep"));
	epk_define_call(test, keep, "keep");
	KUNIT_EXPECT_EQ(test, epk_remove("-:epk/keep kmem.kfree"), 0);
	epk_define_call(test, keep, "keep");
	KUNIT_EXPECT_EQ(test, epk_remove("-:keep"), 0);
	KUNIT_EXPECT_EQ(test, epk_listing(EPK_GROUP, "keep", after,
					  EPK_LINE_MAX), -ENOENT);
}

/* ---- the record ---- */

struct epk_field_want {
	const char *name;
	const char *type;
	int size;
	bool is_signed;
};

/*
 * The argument fields follow struct eprobe_trace_entry_head, packed in
 * the order of the arguments, each as big as its type; a string is a
 * 4-byte data_loc.  None of the attached event's fields is copied.
 */
static void record_layout_of_typed_arguments(struct kunit *test)
{
	static const struct epk_field_want want[] = {
		{ "a", "u8", 1, false },
		{ "b", "s16", 2, true },
		{ "c", "u32", 4, false },
		{ "d", "s64", 8, true },
		{ "s", "__data_loc char[]", 4, true },
		{ "e", "u" __stringify(BITS_PER_LONG), sizeof(long), false },
		{ "f", "u16[3]", 6, false },
	};
	struct ftrace_event_field *f;
	int n = 0, offset = sizeof(struct eprobe_trace_entry_head);
	struct trace_event_call *call;
	unsigned int i;

	epk_need_event(test, "kmem", "kfree");
	call = epk_define_call(test,
			       "e:epk/lay kmem.kfree a=$call_site:u8 b=$call_site:s16 c=$ptr:x32 d=$ptr:s64 s=+0($ptr):string e=$ptr f=+0($ptr):u16[3]",
			       "lay");

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		f = epk_field(call, want[i].name);
		KUNIT_ASSERT_NOT_NULL_MSG(test, f, "%s", want[i].name);
		KUNIT_EXPECT_STREQ_MSG(test, f->type, want[i].type, "%s",
				       want[i].name);
		KUNIT_EXPECT_EQ_MSG(test, f->offset, offset, "%s",
				    want[i].name);
		KUNIT_EXPECT_EQ_MSG(test, f->size, want[i].size, "%s",
				    want[i].name);
		KUNIT_EXPECT_EQ_MSG(test, (bool)f->is_signed, want[i].is_signed,
				    "%s", want[i].name);
		offset += want[i].size;
	}
	list_for_each_entry(f, trace_get_fields(call), link)
		n++;
	KUNIT_EXPECT_EQ(test, n, (int)ARRAY_SIZE(want));
	KUNIT_EXPECT_NULL(test, epk_field(call, "call_site"));
	KUNIT_EXPECT_NULL(test, epk_field(call, "ptr"));
	KUNIT_EXPECT_EQ(test, epk_remove("-:epk/lay"), 0);
}

/* ---- hits ---- */

/* An eprobe on kmem/kfree that only the suite's calls get through */
static struct trace_event_call *epk_define_kfree(struct kunit *test,
						 const char *event)
{
	char *cmd = epk_buf(test);

	epk_need_event(test, "kmem", "kfree");
	snprintf(cmd, EPK_LINE_MAX,
		 "e:epk/%s kmem.kfree site=$call_site p=$ptr w=+%zu($ptr):x32 h=+%zu($ptr):s16 s=+%zu($ptr):string if call_site == 0x%lx",
		 event, offsetof(struct epk_blob, word),
		 offsetof(struct epk_blob, half),
		 offsetof(struct epk_blob, text), EPK_SITE);
	return epk_define_call(test, cmd, event);
}

static void epk_check_kfree(struct kunit *test, struct trace_event_call *call,
			    const void *ent, unsigned int len)
{
	KUNIT_EXPECT_EQ(test, epk_value(test, call, ent, len, "site"),
			(u64)EPK_SITE);
	KUNIT_EXPECT_EQ(test, epk_value(test, call, ent, len, "p"),
			(u64)(unsigned long)&epk_blob);
	KUNIT_EXPECT_EQ(test, epk_value(test, call, ent, len, "w"),
			(u64)epk_blob.word);
	KUNIT_EXPECT_EQ(test, (s64)epk_value(test, call, ent, len, "h"),
			(s64)epk_blob.half);
	KUNIT_EXPECT_STREQ(test, epk_string(test, call, ent, len, "s"),
			   epk_blob.text);
}

/*
 * While enabled, each call of the attached tracepoint that passes FILTER
 * makes one record with the fetched values; disabled, none.  An enabled
 * eprobe cannot be removed.
 */
static void hit_records_fetched_fields(struct kunit *test)
{
	struct trace_event_call *call = epk_define_kfree(test, "hit");
	struct epk_instance *inst = epk_instance_new(test, "epk_hit");
	char *line = epk_buf(test);
	int i;

	/* not enabled yet: nothing */
	trace_kfree(EPK_SITE, &epk_blob);
	KUNIT_EXPECT_EQ(test, epk_consume(test, inst, call, NULL), 0);

	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(inst->tr, EPK_GROUP,
							"hit", true), 0);
	for (i = 0; i < 3; i++)
		trace_kfree(EPK_SITE, &epk_blob);
	/* kfree() calls elsewhere do not pass FILTER */
	KUNIT_EXPECT_EQ(test, epk_consume(test, inst, call, epk_check_kfree), 3);

	KUNIT_EXPECT_EQ(test, epk_remove("-:epk/hit"), -EBUSY);
	KUNIT_EXPECT_EQ(test, epk_listing(EPK_GROUP, "hit", line, EPK_LINE_MAX),
			0);

	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(inst->tr, EPK_GROUP,
							"hit", false), 0);
	trace_kfree(EPK_SITE, &epk_blob);
	KUNIT_EXPECT_EQ(test, epk_consume(test, inst, call, NULL), 0);
	KUNIT_EXPECT_EQ(test, epk_remove("-:epk/hit"), 0);
}

static void epk_check_switch(struct kunit *test, struct trace_event_call *call,
			     const void *ent, unsigned int len)
{
	KUNIT_EXPECT_EQ(test, (s64)epk_value(test, call, ent, len, "pid"),
			(s64)current->pid);
	KUNIT_EXPECT_STREQ(test, epk_string(test, call, ent, len, "comm"),
			   current->comm);
}

/*
 * A char-array field read as a string: the test task sleeps, so it is
 * switched out at least once, and FILTER keeps the other switches out.
 */
static void hit_reads_static_string_field(struct kunit *test)
{
	struct trace_event_call *call;
	char *cmd = epk_buf(test);
	struct epk_instance *inst;

	epk_need_event(test, "sched", "sched_switch");
	snprintf(cmd, EPK_LINE_MAX,
		 "e:epk/sw sched.sched_switch comm=$prev_comm:string pid=$prev_pid:s32 if prev_pid == %d",
		 current->pid);
	call = epk_define_call(test, cmd, "sw");
	inst = epk_instance_new(test, "epk_sw");

	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(inst->tr, EPK_GROUP,
							"sw", true), 0);
	schedule_timeout_uninterruptible(1);
	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(inst->tr, EPK_GROUP,
							"sw", false), 0);
	KUNIT_EXPECT_GE(test, epk_consume(test, inst, call, epk_check_switch),
			1);
	KUNIT_EXPECT_EQ(test, epk_remove("-:epk/sw"), 0);
}

/*
 * Enabled in two instances, the eprobe records in each; disabled in one,
 * only in the other.  Destroying an instance that has it enabled leaves
 * nothing that keeps it busy.
 */
static void each_instance_records_its_own(struct kunit *test)
{
	struct trace_event_call *call = epk_define_kfree(test, "two");
	struct epk_instance *a = epk_instance_new(test, "epk_two_a");
	struct epk_instance *b = epk_instance_new(test, "epk_two_b");

	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(a->tr, EPK_GROUP,
							"two", true), 0);
	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(b->tr, EPK_GROUP,
							"two", true), 0);
	trace_kfree(EPK_SITE, &epk_blob);
	KUNIT_EXPECT_EQ(test, epk_consume(test, a, call, epk_check_kfree), 1);
	KUNIT_EXPECT_EQ(test, epk_consume(test, b, call, epk_check_kfree), 1);

	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(a->tr, EPK_GROUP,
							"two", false), 0);
	trace_kfree(EPK_SITE, &epk_blob);
	KUNIT_EXPECT_EQ(test, epk_consume(test, a, call, NULL), 0);
	KUNIT_EXPECT_EQ(test, epk_consume(test, b, call, epk_check_kfree), 1);

	KUNIT_EXPECT_EQ(test, epk_remove("-:epk/two"), -EBUSY);
	KUNIT_EXPECT_EQ(test, epk_instance_destroy(b), 0);
	trace_kfree(EPK_SITE, &epk_blob);
	KUNIT_EXPECT_EQ(test, epk_consume(test, a, call, NULL), 0);
	KUNIT_EXPECT_EQ(test, epk_remove("-:epk/two"), 0);
}

static struct kunit_case epk_cases[] = {
	KUNIT_CASE_PARAM(accepted_definition_is_listed,
			 epk_listing_gen_params),
	KUNIT_CASE_PARAM(refused_definition_logs_code_and_caret,
			 epk_refusal_gen_params),
	KUNIT_CASE(too_many_arguments_are_logged),
	KUNIT_CASE(other_lines_are_not_taken),
	KUNIT_CASE(refused_lines_leave_existing_probes_alone),
	KUNIT_CASE(record_layout_of_typed_arguments),
	KUNIT_CASE(hit_records_fetched_fields),
	KUNIT_CASE(hit_reads_static_string_field),
	KUNIT_CASE(each_instance_records_its_own),
	{}
};

static struct kunit_suite epk_suite = {
	.name = "trace_eprobe",
	.init = epk_init,
	.test_cases = epk_cases,
};

kunit_test_suite(epk_suite);
