// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for function and tracepoint probe events (trace_fprobe*.c).
 *
 * Definitions go through dyn_event_create() as a write to dynamic_events
 * does; the listing is what the "f"/"t" type's show callback prints for
 * dynamic_events; refusals are checked by errno and by the error-log code
 * and caret the probe library recorded last.  Records are made by calling
 * tfpk_target() (this file is built with function-entry call sites, so
 * its functions can be probed) or by firing the kfree tracepoint with a
 * pointer nobody else frees, with the event enabled in a trace instance
 * of the suite's own; they are read back from that instance's ring buffer
 * and decoded through the event's fields, as a reader of the format file
 * would.
 */
#include <kunit/test.h>
#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/ring_buffer.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace.h>
#include <linux/trace_events.h>
#include <trace/events/kmem.h>

#include "trace.h"
#include "trace_dynevent.h"
#include "trace_fprobe_kunit.h"
#include "trace_probe_internal.h"

#define TFPK_GROUP	"tfpk"
#define TFPK_INSTANCE	"tfpk_instance"
/* A pointer value no real kfree() passes */
#define TFPK_MAGIC_PTR	((const void *)0x7fa5c0de0000beefUL)

/* The probed function: not inlined, and it has a call site. */
noinline int tfpk_target(int a, long b)
{
	barrier();
	return a * 3 + (int)b;
}

static int tfpk_define(const char *cmd)
{
	tprobe_log_forget_last();
	return dyn_event_create(cmd, &tfp_dyn_ops);
}

static void tfpk_remove_all(void)
{
	dyn_event_release("-:" TFPK_GROUP "/", &tfp_dyn_ops);
	dyn_event_release("-:fprobes/tfpk_target__entry",
			  &tfp_dyn_ops);
	dyn_event_release("-:fprobes/tfpk_target__exit",
			  &tfp_dyn_ops);
	dyn_event_release("-:tracepoints/kfree", &tfp_dyn_ops);
}

/* What dynamic_events lists for GROUP/EVENT, without the newline. */
static bool tfpk_listing(const char *group, const char *event, char *buf,
			 size_t size)
{
	struct dyn_event_operations *ops = &tfp_dyn_ops;
	struct seq_file m = { .buf = buf, .size = size };
	struct dyn_event *pos;
	bool found = false;

	mutex_lock(&event_mutex);
	for_each_dyn_event(pos) {
		if (pos->ops != ops || !ops->match(group, event, 0, NULL, pos))
			continue;
		ops->show(&m, pos);
		found = true;
		break;
	}
	mutex_unlock(&event_mutex);
	if (m.count && buf[m.count - 1] == '\n')
		m.count--;
	buf[min(m.count, size - 1)] = '\0';
	return found;
}

/* @listing_btf: where BTF names the arguments, if that changes the text */
struct tfpk_accept_case {
	const char *cmd;
	const char *group;
	const char *event;
	const char *listing;
	const char *listing_btf;
};

static const struct tfpk_accept_case tfpk_accept_cases[] = {
	{ "f:tfpk/e1 tfpk_target", TFPK_GROUP, "e1",
	  "f:tfpk/e1 tfpk_target" },
	/* an unnamed $argN is "argN", or with BTF the parameter's name */
	{ "f tfpk_target a=$arg1 $arg2", "fprobes", "tfpk_target__entry",
	  "f:fprobes/tfpk_target__entry tfpk_target a=$arg1 arg2=$arg2",
	  "f:fprobes/tfpk_target__entry tfpk_target a=$arg1 b=b" },
	/* $retval alone makes an exit probe */
	{ "f tfpk_target $retval", "fprobes", "tfpk_target__exit",
	  "f:fprobes/tfpk_target__exit tfpk_target%return arg1=$retval" },
	{ "f16:tfpk/e2 tfpk_target%return r=$retval:s32", TFPK_GROUP, "e2",
	  "f16:tfpk/e2 tfpk_target%return r=$retval:s32" },
	{ "f0x10:tfpk/e3 tfpk_target%return", TFPK_GROUP, "e3",
	  "f16:tfpk/e3 tfpk_target%return" },
	{ "t kfree p=$arg2", "tracepoints", "kfree",
	  "t:tracepoints/kfree kfree p=$arg2" },
	/* may come with a module: accepted, waits */
	{ "t:tfpk/later tfpk_no_such_tracepoint", TFPK_GROUP, "later",
	  "t:tfpk/later tfpk_no_such_tracepoint" },
};

static void tfpk_accepted_and_listed(struct kunit *test)
{
	char buf[256];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tfpk_accept_cases); i++) {
		const struct tfpk_accept_case *c = &tfpk_accept_cases[i];

		KUNIT_EXPECT_EQ_MSG(test, tfpk_define(c->cmd), 0, "%s", c->cmd);
		KUNIT_EXPECT_TRUE_MSG(test,
				      tfpk_listing(c->group, c->event, buf,
						   sizeof(buf)), "%s", c->cmd);
		if (IS_ENABLED(CONFIG_PROBE_EVENTS_BTF_ARGS) && c->listing_btf)
			KUNIT_EXPECT_STREQ_MSG(test, buf, c->listing_btf, "%s",
					       c->cmd);
		else
			KUNIT_EXPECT_STREQ_MSG(test, buf, c->listing, "%s",
					       c->cmd);
	}
	tfpk_remove_all();
	KUNIT_EXPECT_FALSE(test, tfpk_listing(TFPK_GROUP, "e1", buf,
					      sizeof(buf)));
}

struct tfpk_refuse_case {
	const char *cmd;
	int err;
	int code;
	int pos;
};

#define REFUSE(c, e, code, p)	{ c, e, TP_ERR_##code, p }

static const struct tfpk_refuse_case tfpk_refuse_cases[] = {
	REFUSE("f100 tfpk_target", -EINVAL, BAD_MAXACT_TYPE, 1),
	REFUSE("t100 kfree", -EINVAL, BAD_MAXACT_TYPE, 1),
	REFUSE("f1a1 tfpk_target%return", -EINVAL, BAD_MAXACT, 1),
	REFUSE("f0 tfpk_target%return", -EINVAL, BAD_MAXACT, 1),
	REFUSE("f4097 tfpk_target%return", -EINVAL, MAXACT_TOO_BIG, 1),
	REFUSE("fx tfpk_target", -EINVAL, BAD_MAXACT, 1),
	REFUSE("f tfpk_target%hoge", -EINVAL, BAD_ADDR_SUFFIX, 13),
	REFUSE("t kfree%return", -EINVAL, BAD_ADDR_SUFFIX, 7),
	REFUSE("t kfr-ee", -EINVAL, BAD_TP_NAME, 5),
	REFUSE("t kfree a=$arg1 r=$retval", -EINVAL, RETVAL_ON_PROBE, 18),
	REFUSE("f:/e tfpk_target", -EINVAL, NO_GROUP_NAME, 2),
	REFUSE("f:tfpk/e.1 tfpk_target", -EINVAL, BAD_EVENT_NAME, 7),
	REFUSE("f tfpk_no_such_function", -ENOENT, BAD_PROBE_ADDR, 2),
	REFUSE("f tfpk_target $stack0:string", -EINVAL, BAD_STRING, 22),
	REFUSE("f tfpk_target a=$arg1 a=$arg2", -EINVAL, USED_ARG_NAME, 22),
};

static void tfpk_refused_with_code_and_caret(struct kunit *test)
{
	struct tprobe_log_last last;
	char buf[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tfpk_refuse_cases); i++) {
		const struct tfpk_refuse_case *c = &tfpk_refuse_cases[i];

		KUNIT_EXPECT_EQ_MSG(test, tfpk_define(c->cmd), c->err, "%s",
				    c->cmd);
		tprobe_log_get_last(&last);
		KUNIT_EXPECT_EQ_MSG(test, last.err, c->code, "%s", c->cmd);
		KUNIT_EXPECT_EQ_MSG(test, last.pos, c->pos, "%s", c->cmd);
	}
	/* nothing was left behind */
	KUNIT_EXPECT_FALSE(test, tfpk_listing(NULL, "tfpk_target__entry", buf,
					      sizeof(buf)));
	KUNIT_EXPECT_FALSE(test, tfpk_listing(NULL, "kfree", buf,
					      sizeof(buf)));
}

/* Siblings: same site kind and argument types, not the same probe twice. */
static void tfpk_sibling_rules(struct kunit *test)
{
	struct tprobe_log_last last;

	KUNIT_ASSERT_EQ(test, tfpk_define("f:tfpk/sib tfpk_target x=$arg1"), 0);

	KUNIT_EXPECT_EQ(test, tfpk_define("f:tfpk/sib tfpk_target x=$arg1"),
			-EEXIST);
	tprobe_log_get_last(&last);
	KUNIT_EXPECT_EQ(test, last.err, TP_ERR_SAME_PROBE);
	KUNIT_EXPECT_EQ(test, last.pos, 0);

	KUNIT_EXPECT_EQ(test, tfpk_define("f:tfpk/sib tfpk_target%return"),
			-EEXIST);
	tprobe_log_get_last(&last);
	KUNIT_EXPECT_EQ(test, last.err, TP_ERR_DIFF_PROBE_TYPE);

	KUNIT_EXPECT_EQ(test, tfpk_define("f:tfpk/sib tfpk_target x=$arg1:u8"),
			-EEXIST);
	tprobe_log_get_last(&last);
	KUNIT_EXPECT_EQ(test, last.err, TP_ERR_DIFF_ARG_TYPE);
	/* "f:tfpk/sib tfpk_target " is 23 characters */
	KUNIT_EXPECT_EQ(test, last.pos, 23);

	KUNIT_EXPECT_EQ(test, tfpk_define("f:tfpk/sib tfpk_target x=$arg2"), 0);
	/* a removal naming the second probe's argument removes only it */
	KUNIT_EXPECT_EQ(test, dyn_event_release("-:tfpk/sib tfpk_target x=$arg2",
						&tfp_dyn_ops), 0);
	KUNIT_EXPECT_EQ(test, dyn_event_release("-:tfpk/sib tfpk_target x=$arg2",
						&tfp_dyn_ops),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, dyn_event_release("-:tfpk/sib",
						&tfp_dyn_ops), 0);
}

/* ---- Records ---- */

struct tfpk_env {
	struct trace_array *tr;
	struct trace_event_call *call;
};

static struct trace_event_call *tfpk_find_call(const char *group,
					       const char *event)
{
	struct trace_event_call *call;

	guard(mutex)(&event_mutex);
	list_for_each_entry(call, &ftrace_events, list) {
		if (call->class->system && !strcmp(call->class->system, group) &&
		    !strcmp(trace_event_name(call), event))
			return call;
	}
	return NULL;
}

/* Define @cmd, make an instance and enable GROUP/EVENT there. */
static void tfpk_setup(struct kunit *test, struct tfpk_env *env,
		       const char *cmd, const char *group, const char *event)
{
	KUNIT_ASSERT_EQ(test, tfpk_define(cmd), 0);
	env->call = tfpk_find_call(group, event);
	KUNIT_ASSERT_NOT_NULL(test, env->call);
	env->tr = trace_array_get_by_name(TFPK_INSTANCE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, env->tr);
	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(env->tr, group, event,
							true), 0);
}

static void tfpk_teardown(struct tfpk_env *env, const char *group,
			  const char *event)
{
	if (env->tr) {
		trace_array_set_clr_event(env->tr, group, event, false);
		trace_array_put(env->tr);
		trace_array_destroy(env->tr);
	}
	tfpk_remove_all();
}

static unsigned long tfpk_field(struct kunit *test, struct trace_entry *ent,
				struct trace_event_call *call, const char *name)
{
	struct ftrace_event_field *field = trace_find_event_field(call,
								  (char *)name);
	void *p;

	KUNIT_ASSERT_NOT_NULL_MSG(test, field, "field %s", name);
	p = (void *)ent + field->offset;
	switch (field->size) {
	case 1:
		return field->is_signed ? (long)*(s8 *)p : *(u8 *)p;
	case 2:
		return field->is_signed ? (long)*(s16 *)p : *(u16 *)p;
	case 4:
		return field->is_signed ? (long)*(s32 *)p : *(u32 *)p;
	default:
		return *(unsigned long *)p;
	}
}

/*
 * Consume the instance's records of @call; check each with @check and
 * return how many there were.
 */
static int tfpk_consume(struct kunit *test, struct tfpk_env *env,
			void (*check)(struct kunit *test,
				      struct trace_event_call *call,
				      struct trace_entry *ent))
{
	struct trace_buffer *buffer = env->tr->array_buffer.buffer;
	struct ring_buffer_event *rbe;
	struct trace_entry *ent;
	int cpu, n = 0;

	for_each_online_cpu(cpu) {
		while ((rbe = ring_buffer_consume(buffer, cpu, NULL, NULL))) {
			ent = ring_buffer_event_data(rbe);
			if (ent->type != env->call->event.type)
				continue;
			if (check)
				check(test, env->call, ent);
			n++;
		}
	}
	return n;
}

static void tfpk_check_entry(struct kunit *test, struct trace_event_call *call,
			     struct trace_entry *ent)
{
	unsigned long func = ftrace_location((unsigned long)tfpk_target);

	KUNIT_EXPECT_NE(test, func, 0UL);
	KUNIT_EXPECT_EQ(test, tfpk_field(test, ent, call, "__probe_ip"), func);
	KUNIT_EXPECT_EQ(test, (long)tfpk_field(test, ent, call, "a"), -7L);
	KUNIT_EXPECT_EQ(test, tfpk_field(test, ent, call, "b"), 0x1234UL);
}

/* An entry record: ip, then a:s32 and b:x64 where the format says. */
static void tfpk_entry_record(struct kunit *test)
{
	struct tfpk_env env = {};
	struct ftrace_event_field *a, *b;
	int i, sum = 0;

	tfpk_setup(test, &env, "f:tfpk/ent tfpk_target a=$arg1:s32 b=$arg2:x64",
		   TFPK_GROUP, "ent");

	/* header (8) + ip (8), then the arguments in order */
	a = trace_find_event_field(env.call, "a");
	b = trace_find_event_field(env.call, "b");
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, a->offset,
			(int)sizeof(struct fentry_trace_entry_head));
	KUNIT_EXPECT_EQ(test, a->size, 4);
	KUNIT_EXPECT_TRUE(test, a->is_signed);
	KUNIT_EXPECT_EQ(test, b->offset, a->offset + 4);
	KUNIT_EXPECT_EQ(test, b->size, 8);

	for (i = 0; i < 3; i++)
		sum += tfpk_target(-7, 0x1234);
	KUNIT_EXPECT_EQ(test, sum, 3 * (-21 + 0x1234));
	KUNIT_EXPECT_EQ(test, tfpk_consume(test, &env, tfpk_check_entry), 3);

	/* disabled: no more records */
	trace_array_set_clr_event(env.tr, TFPK_GROUP, "ent", false);
	tfpk_target(-7, 0x1234);
	KUNIT_EXPECT_EQ(test, tfpk_consume(test, &env, NULL), 0);

	tfpk_teardown(&env, TFPK_GROUP, "ent");
}

static void tfpk_check_exit(struct kunit *test, struct trace_event_call *call,
			    struct trace_entry *ent)
{
	unsigned long func = ftrace_location((unsigned long)tfpk_target);
	unsigned long ret_ip = tfpk_field(test, ent, call, "__probe_ret_ip");

	KUNIT_EXPECT_EQ(test, tfpk_field(test, ent, call, "__probe_func"), func);
	/* the caller is not tfpk_target itself */
	KUNIT_EXPECT_TRUE(test, ret_ip && (ret_ip < func || ret_ip > func + 64));
	KUNIT_EXPECT_EQ(test, (long)tfpk_field(test, ent, call, "r"),
			(long)(5 * 3 + 100));
	KUNIT_EXPECT_EQ(test, (long)tfpk_field(test, ent, call, "a"), 5L);
}

/* An exit record: func, ret_ip, the return value and an entry argument. */
static void tfpk_exit_record(struct kunit *test)
{
	struct tfpk_env env = {};
	struct ftrace_event_field *r;
	int i;

	tfpk_setup(test, &env,
		   "f:tfpk/ext tfpk_target%return r=$retval:s32 a=$arg1:s16",
		   TFPK_GROUP, "ext");

	r = trace_find_event_field(env.call, "r");
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->offset,
			(int)sizeof(struct fexit_trace_entry_head));
	KUNIT_EXPECT_EQ(test, r->size, 4);

	for (i = 0; i < 4; i++)
		tfpk_target(5, 100);
	KUNIT_EXPECT_EQ(test, tfpk_consume(test, &env, tfpk_check_exit), 4);

	tfpk_teardown(&env, TFPK_GROUP, "ext");
}

static void tfpk_check_btf_exit(struct kunit *test,
				struct trace_event_call *call,
				struct trace_entry *ent)
{
	KUNIT_EXPECT_EQ(test, (long)tfpk_field(test, ent, call, "a"), -2L);
	KUNIT_EXPECT_EQ(test, (long)tfpk_field(test, ent, call, "b"), -40L);
	KUNIT_EXPECT_EQ(test, (long)tfpk_field(test, ent, call, "ret"), -46L);
}

/*
 * With BTF, parameters by name and a typed $retval: the fields get the C
 * types (int a -> 4 signed bytes, long b -> 8), read at exit from entry.
 */
static void tfpk_btf_names_and_types(struct kunit *test)
{
	struct ftrace_event_field *f;
	struct tfpk_env env = {};

	if (!IS_ENABLED(CONFIG_PROBE_EVENTS_BTF_ARGS))
		kunit_skip(test, "no BTF arguments in this kernel");

	tfpk_setup(test, &env, "f:tfpk/btf tfpk_target%return a b ret=$retval",
		   TFPK_GROUP, "btf");
	f = trace_find_event_field(env.call, "a");
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_EQ(test, f->size, 4);
	KUNIT_EXPECT_TRUE(test, f->is_signed);
	f = trace_find_event_field(env.call, "b");
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_EQ(test, f->size, 8);
	KUNIT_EXPECT_TRUE(test, f->is_signed);
	f = trace_find_event_field(env.call, "ret");
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_EQ(test, f->size, 4);

	tfpk_target(-2, -40);
	KUNIT_EXPECT_EQ(test, tfpk_consume(test, &env, tfpk_check_btf_exit), 1);

	tfpk_teardown(&env, TFPK_GROUP, "btf");
}

/* Drain the instance; count the records of @calls[i] into @counts[i]. */
static void tfpk_count(struct tfpk_env *env, struct trace_event_call **calls,
		       int *counts, int nr)
{
	struct trace_buffer *buffer = env->tr->array_buffer.buffer;
	struct ring_buffer_event *rbe;
	struct trace_entry *ent;
	int cpu, i;

	for (i = 0; i < nr; i++)
		counts[i] = 0;
	for_each_online_cpu(cpu) {
		while ((rbe = ring_buffer_consume(buffer, cpu, NULL, NULL))) {
			ent = ring_buffer_event_data(rbe);
			for (i = 0; i < nr; i++) {
				if (ent->type == calls[i]->event.type)
					counts[i]++;
			}
		}
	}
}

/* An entry and an exit probe on one function each see every call once. */
static void tfpk_entry_and_exit_counts(struct kunit *test)
{
	struct trace_event_call *calls[2];
	struct tfpk_env env = {};
	int counts[2], i;

	tfpk_setup(test, &env, "f:tfpk/cnt_in tfpk_target", TFPK_GROUP,
		   "cnt_in");
	KUNIT_ASSERT_EQ(test, tfpk_define("f:tfpk/cnt_out tfpk_target%return"),
			0);
	calls[0] = env.call;
	calls[1] = tfpk_find_call(TFPK_GROUP, "cnt_out");
	KUNIT_ASSERT_NOT_NULL(test, calls[1]);
	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(env.tr, TFPK_GROUP,
							"cnt_out", true), 0);

	for (i = 0; i < 10; i++)
		tfpk_target(i, i);
	tfpk_count(&env, calls, counts, 2);
	KUNIT_EXPECT_EQ(test, counts[0], 10);
	KUNIT_EXPECT_EQ(test, counts[1], 10);

	/* only the exit probe enabled: entries stop, exits go on */
	trace_array_set_clr_event(env.tr, TFPK_GROUP, "cnt_in", false);
	for (i = 0; i < 5; i++)
		tfpk_target(i, i);
	tfpk_count(&env, calls, counts, 2);
	KUNIT_EXPECT_EQ(test, counts[0], 0);
	KUNIT_EXPECT_EQ(test, counts[1], 5);

	trace_array_set_clr_event(env.tr, TFPK_GROUP, "cnt_out", false);
	tfpk_teardown(&env, TFPK_GROUP, "cnt_in");
}

static void tfpk_check_tpoint(struct kunit *test, struct trace_event_call *call,
			      struct trace_entry *ent)
{
	KUNIT_EXPECT_EQ(test, tfpk_field(test, ent, call, "p"),
			(unsigned long)TFPK_MAGIC_PTR);
	KUNIT_EXPECT_EQ(test, tfpk_field(test, ent, call, "site"), 0x1000UL);
}

/*
 * A tracepoint probe records the tracepoint's arguments ($arg1 is the
 * first, the stub's data pointer is hidden), once per firing.
 */
static void tfpk_tracepoint_record(struct kunit *test)
{
	struct trace_buffer *buffer;
	struct ring_buffer_event *rbe;
	struct tfpk_env env = {};
	struct trace_entry *ent;
	int i, cpu, n = 0;

	tfpk_setup(test, &env, "t:tfpk/tpk kfree site=$arg1 p=$arg2",
		   TFPK_GROUP, "tpk");

	for (i = 0; i < 2; i++)
		trace_kfree(0x1000, TFPK_MAGIC_PTR);

	/* other CPUs free memory too: count only our pointer */
	buffer = env.tr->array_buffer.buffer;
	for_each_online_cpu(cpu) {
		while ((rbe = ring_buffer_consume(buffer, cpu, NULL, NULL))) {
			ent = ring_buffer_event_data(rbe);
			if (ent->type != env.call->event.type ||
			    tfpk_field(test, ent, env.call, "p") !=
			    (unsigned long)TFPK_MAGIC_PTR)
				continue;
			tfpk_check_tpoint(test, env.call, ent);
			n++;
		}
	}
	KUNIT_EXPECT_EQ(test, n, 2);

	tfpk_teardown(&env, TFPK_GROUP, "tpk");
}

/* An enabled event cannot be removed; a disabled one can. */
static void tfpk_busy_while_enabled(struct kunit *test)
{
	struct tfpk_env env = {};
	char buf[128];

	tfpk_setup(test, &env, "f:tfpk/busy tfpk_target", TFPK_GROUP, "busy");
	KUNIT_EXPECT_EQ(test, dyn_event_release("-:tfpk/busy",
						&tfp_dyn_ops),
			-EBUSY);
	KUNIT_EXPECT_TRUE(test, tfpk_listing(TFPK_GROUP, "busy", buf,
					     sizeof(buf)));
	trace_array_set_clr_event(env.tr, TFPK_GROUP, "busy", false);
	KUNIT_EXPECT_EQ(test, dyn_event_release("-:tfpk/busy",
						&tfp_dyn_ops), 0);
	KUNIT_EXPECT_FALSE(test, tfpk_listing(TFPK_GROUP, "busy", buf,
					      sizeof(buf)));
	tfpk_teardown(&env, TFPK_GROUP, "busy");
}

static struct kunit_case tfpk_cases[] = {
	KUNIT_CASE(tfpk_accepted_and_listed),
	KUNIT_CASE(tfpk_refused_with_code_and_caret),
	KUNIT_CASE(tfpk_sibling_rules),
	KUNIT_CASE(tfpk_entry_record),
	KUNIT_CASE(tfpk_exit_record),
	KUNIT_CASE(tfpk_entry_and_exit_counts),
	KUNIT_CASE(tfpk_btf_names_and_types),
	KUNIT_CASE(tfpk_tracepoint_record),
	KUNIT_CASE(tfpk_busy_while_enabled),
	{}
};

static struct kunit_suite tfpk_suite = {
	.name = "trace_fprobe",
	.test_cases = tfpk_cases,
};

kunit_test_suite(tfpk_suite);
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
