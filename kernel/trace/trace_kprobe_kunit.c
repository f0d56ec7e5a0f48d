// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the kprobe event layer (trace_kprobe.c).
 *
 * Definitions are run as lines written to kprobe_events, through the
 * layer's own functions (trace_kprobe.h; those that are static otherwise
 * are visible when KUnit is built), and what a user observes is checked:
 * whether a definition is accepted, with which errno it is refused, the
 * error_log code and caret of a refusal, the canonical line kprobe_events
 * lists, the fields of the event's record, the hits that kprobe_profile
 * counts, and what removal accepts.
 *
 * The probed function is kprobe_trace_selftest_target(), which the kernel
 * builds with a function-entry call site along with the boot-time selftest
 * (FTRACE_STARTUP_TEST, which the suite's Kconfig entry requires).  The
 * event batch case probes functions of its own instead (this object is
 * built with call sites for them), several distinct ones at a time.
 * Every event a case defines is in the group "kunit" and is removed by
 * the case.  The caret of a refusal is written into the command as '^'
 * (as upstream's ftracetest writes it), and taken out before the command
 * runs.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace.h>
#include <linux/trace_events.h>
#include <linux/unaligned.h>

#include "../kprobes_array.h"
#include "trace.h"
#include "trace_kprobe.h"
#include "trace_kprobe_selftest.h"
#include "trace_probe_internal.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define TKK_FUNC	"kprobe_trace_selftest_target"
#define TKK_GROUP	"kunit"
#define TKK_LINE_MAX	256

static int tkk_call_target(void)
{
	return kprobe_trace_selftest_target(1, 2, 3, 4, 5, 6);
}

/* The event GROUP/EVENT, or NULL */
static struct trace_event_call *tkk_call(const char *group, const char *event)
{
	struct trace_kprobe *tk;

	guard(mutex)(&event_mutex);
	tk = tk_find(event, group);
	return tk ? trace_probe_event_call(&tk->tp) : NULL;
}

/* The kprobe_events line of the first probe of GROUP/EVENT into @buf */
static int tkk_listing(const char *group, const char *event, char *buf,
		       size_t size)
{
	struct seq_file m = { .buf = buf, .size = size };
	struct trace_kprobe *tk;

	guard(mutex)(&event_mutex);
	tk = tk_find(event, group);
	if (!tk)
		return -ENOENT;
	tk_dyn_show(&m, &tk->devent);
	if (seq_has_overflowed(&m))
		return -E2BIG;
	buf[min(m.count, size - 1)] = '\0';
	return 0;
}

/*
 * The argument part of a GROUP/EVENT record for a hit with @regs, twice:
 * into @quick as a hit stores it, into @slow with every argument through
 * the interpreter; @size bytes each, zeroed first.  Returns how many
 * arguments take the quick load, or a negative errno.
 */
static int tkk_store_args(const char *group, const char *event,
			  struct pt_regs *regs, void *quick, void *slow,
			  size_t size)
{
	struct trace_kprobe *tk;
	int i, ret, nr = 0;

	guard(mutex)(&event_mutex);
	tk = tk_find(event, group);
	if (!tk)
		return -ENOENT;
	if (tk->is_return && tk->tp.entry_arg)
		return -EINVAL;	/* no entry data here */
	ret = tk_store_args_twice(tk, regs, quick, slow, size);
	if (ret)
		return ret;
	for (i = 0; i < tk->tp.nr_args; i++)
		nr += tk->tp.args[i].simple;
	return nr;
}

/* GROUP/EVENT's first probe's hits and misses, as kprobe_profile shows */
static int tkk_counts(const char *group, const char *event,
		      unsigned long *hits, unsigned long *missed)
{
	struct trace_kprobe *tk;

	guard(mutex)(&event_mutex);
	tk = tk_find(event, group);
	if (!tk)
		return -ENOENT;
	*hits = tk_hits(tk);
	*missed = tk_missed(tk);
	return 0;
}

/* Remove GROUP/EVENT; the case fails if that does not work. */
static void tkk_remove(struct kunit *test, const char *event)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "-:%s/%s", TKK_GROUP, event);
	KUNIT_EXPECT_EQ_MSG(test, tk_events_run(cmd), 0, "removing %s", event);
}

/* ---- accepted definitions and their canonical kprobe_events line ---- */

struct tkk_listing_case {
	const char *name;
	const char *cmd;
	const char *group;
	const char *event;
	const char *line;	/* as kprobe_events lists it, without '\n' */
	/*
	 * A return probe defined without MAXACTIVE: the listing shows the
	 * one the kprobes core picked after "r" (as 6.12 does).
	 */
	bool core_maxactive;
};

/* What register_kretprobe() makes of maxactive 0 */
static unsigned int tkk_default_maxactive(void)
{
	return max_t(unsigned int, 10, 2 * num_possible_cpus());
}

static const struct tkk_listing_case tkk_listing_cases[] = {
	{ "entry_probe_named", "p:kunit/a " TKK_FUNC, TKK_GROUP, "a",
	  "p:kunit/a " TKK_FUNC },
	{ "zero_offset_is_not_shown", "p:kunit/b " TKK_FUNC "+0", TKK_GROUP,
	  "b", "p:kunit/b " TKK_FUNC },
	{ "return_probe_with_maxactive", "r7:kunit/c " TKK_FUNC " $retval",
	  TKK_GROUP, "c", "r7:kunit/c " TKK_FUNC " arg1=$retval" },
	{ "return_suffix_makes_return_probe",
	  "p:kunit/d " TKK_FUNC "%return rv=$retval:s32", TKK_GROUP, "d",
	  "r:kunit/d " TKK_FUNC " rv=$retval:s32", true },
	{ "unnamed_arguments_get_argN",
	  "p:kunit/e " TKK_FUNC " $stack0 $stack1:u16 +8($stack):x32 $comm",
	  TKK_GROUP, "e",
	  "p:kunit/e " TKK_FUNC " arg1=$stack0 arg2=$stack1:u16 arg3=+8($stack):x32 arg4=$comm" },
	{ "default_group_and_event_name", "p " TKK_FUNC, "kprobes",
	  "p_" TKK_FUNC "_0", "p:kprobes/p_" TKK_FUNC "_0 " TKK_FUNC },
	{ "default_name_of_return_suffix", "p " TKK_FUNC "%return", "kprobes",
	  "r_" TKK_FUNC "_0", "r:kprobes/r_" TKK_FUNC "_0 " TKK_FUNC,
	  true },
	{ "probe_on_module_not_loaded", "p:kunit/m kunit_nomod:kunit_nofunc",
	  TKK_GROUP, "m", "p:kunit/m kunit_nomod:kunit_nofunc" },
};

static void tkk_listing_desc(const struct tkk_listing_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tkk_listing, tkk_listing_cases, tkk_listing_desc);

static void accepted_definition_is_listed_canonically(struct kunit *test)
{
	const struct tkk_listing_case *c = test->param_value;
	char *line = kunit_kzalloc(test, TKK_LINE_MAX, GFP_KERNEL);
	char *want = kunit_kzalloc(test, TKK_LINE_MAX, GFP_KERNEL);
	char cmd[80];
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, line);
	KUNIT_ASSERT_NOT_NULL(test, want);
	if (c->core_maxactive)
		snprintf(want, TKK_LINE_MAX, "r%u%s", tkk_default_maxactive(),
			 c->line + 1);
	else
		strscpy(want, c->line, TKK_LINE_MAX);
	KUNIT_ASSERT_EQ(test, tk_events_run(c->cmd), 0);
	ret = tkk_listing(c->group, c->event, line, TKK_LINE_MAX);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_STREQ(test, strim(line), want);

	/* the listed line names the probe for removal too */
	snprintf(cmd, sizeof(cmd), "-:%s/%s", c->group, c->event);
	KUNIT_EXPECT_EQ(test, tk_events_run(cmd), 0);
	KUNIT_EXPECT_NULL(test, tkk_call(c->group, c->event));
}

/* ---- refused definitions: errno, error_log code and caret ---- */

struct tkk_refusal_case {
	const char *name;
	const char *cmd;	/* '^' marks the caret */
	int err;		/* errno */
	int code;		/* TP_ERR_* */
};

#define TKK_REFUSE(n, c, e, code) { n, c, -(e), TP_ERR_##code }

static const struct tkk_refusal_case tkk_refusal_cases[] = {
	TKK_REFUSE("maxactive_on_entry_probe", "p^100 " TKK_FUNC, EINVAL,
		   BAD_MAXACT_TYPE),
	TKK_REFUSE("maxactive_not_a_number", "r^1a1 " TKK_FUNC, EINVAL,
		   BAD_MAXACT),
	TKK_REFUSE("maxactive_zero", "r^0 " TKK_FUNC, EINVAL, BAD_MAXACT),
	TKK_REFUSE("maxactive_too_big", "r^100000 " TKK_FUNC, EINVAL,
		   MAXACT_TOO_BIG),
	TKK_REFUSE("unknown_symbol", "p ^kunit_no_such_function", EINVAL,
		   BAD_PROBE_ADDR),
	TKK_REFUSE("bad_offset_syntax", "p ^" TKK_FUNC "+1000-1000", EINVAL,
		   BAD_PROBE_ADDR),
	TKK_REFUSE("return_probe_inside_function", "r ^" TKK_FUNC "+8",
		   EINVAL, BAD_RETPROBE),
	TKK_REFUSE("return_suffix_inside_function",
		   "p ^" TKK_FUNC "+8%return", EINVAL, BAD_RETPROBE),
	TKK_REFUSE("unknown_suffix", "p " TKK_FUNC "^%hoge", EINVAL,
		   BAD_ADDR_SUFFIX),
	TKK_REFUSE("retval_on_entry_probe", "p " TKK_FUNC " ^$retval", EINVAL,
		   RETVAL_ON_PROBE),
	TKK_REFUSE("group_without_name", "p:^/ev " TKK_FUNC, EINVAL,
		   NO_GROUP_NAME),
	TKK_REFUSE("bad_event_name", "p:kunit/^ev.1 " TKK_FUNC, EINVAL,
		   BAD_EVENT_NAME),
	TKK_REFUSE("bad_argument_after_good_one",
		   "p " TKK_FUNC " $stack0 ^&1", EINVAL, BAD_FETCH_ARG),
	/* ours: 6.12 refused these without an error_log entry */
	TKK_REFUSE("kind_word_with_trailing_letters", "^px " TKK_FUNC, EINVAL,
		   BAD_PROBE_TYPE),
	TKK_REFUSE("no_probe_point", "p:kunit/ev^", EINVAL, NO_PROBE_POINT),
	TKK_REFUSE("uprobe_site_in_kprobe_events", "p ^/bin/sh:0x10", EINVAL,
		   BAD_PROBE_ADDR),
};

static void tkk_refusal_desc(const struct tkk_refusal_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tkk_refusal, tkk_refusal_cases, tkk_refusal_desc);

/*
 * Run @marked without its '^' and check the errno, the code of the
 * error_log entry and that its caret is where the '^' was.
 */
static void tkk_expect_refusal(struct kunit *test, const char *marked,
			       int err, int code)
{
	const char *caret = strchr(marked, '^');
	struct tprobe_log_last last;
	char *cmd;

	KUNIT_ASSERT_NOT_NULL(test, caret);
	cmd = kunit_kzalloc(test, strlen(marked), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	memcpy(cmd, marked, caret - marked);
	memcpy(cmd + (caret - marked), caret + 1, strlen(caret + 1) + 1);

	tprobe_log_forget_last();
	KUNIT_EXPECT_EQ_MSG(test, tk_events_run(cmd), err, "%s", cmd);
	tprobe_log_get_last(&last);
	KUNIT_EXPECT_EQ_MSG(test, last.err, code, "%s", cmd);
	KUNIT_EXPECT_EQ_MSG(test, last.pos, (int)(caret - marked), "%s", cmd);
}

static void refused_definition_logs_code_and_caret(struct kunit *test)
{
	const struct tkk_refusal_case *c = test->param_value;

	tkk_expect_refusal(test, c->cmd, c->err, c->code);
	/* nothing was left behind */
	KUNIT_EXPECT_NULL(test, tkk_call(TKK_GROUP, "ev"));
	KUNIT_EXPECT_NULL(test, tkk_call("kprobes", "p_" TKK_FUNC "_0"));
}

/* More than MAX_TRACE_ARGS arguments: -E2BIG, caret on the first extra. */
static void too_many_arguments_are_logged(struct kunit *test)
{
	size_t room = 64 + (MAX_TRACE_ARGS + 1) * 10;
	char *cmd = kunit_kzalloc(test, room, GFP_KERNEL);
	size_t len;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	len = scnprintf(cmd, room, "p:kunit/many %s", TKK_FUNC);
	for (i = 0; i <= MAX_TRACE_ARGS; i++)
		len += scnprintf(cmd + len, room - len, " %s$stack%d",
				 i == MAX_TRACE_ARGS ? "^" : "", i % 10);
	tkk_expect_refusal(test, cmd, -E2BIG, TP_ERR_TOO_MANY_ARGS);
	KUNIT_EXPECT_NULL(test, tkk_call(TKK_GROUP, "many"));
}

/* Siblings: same type and arguments join; a different one is refused. */
static void second_probe_joins_or_is_refused(struct kunit *test)
{
	char line[TKK_LINE_MAX];

	KUNIT_ASSERT_EQ(test, tk_events_run("p:kunit/multi " TKK_FUNC " x=$stack0"), 0);
	tkk_expect_refusal(test, "^p:kunit/multi " TKK_FUNC " x=$stack0",
			   -EEXIST, TP_ERR_SAME_PROBE);
	tkk_expect_refusal(test, "^r:kunit/multi " TKK_FUNC " x=$retval",
			   -EEXIST, TP_ERR_DIFF_PROBE_TYPE);
	tkk_expect_refusal(test, "p:kunit/multi " TKK_FUNC " ^y=$stack0",
			   -EEXIST, TP_ERR_DIFF_ARG_TYPE);
	tkk_expect_refusal(test, "p:kunit/multi " TKK_FUNC " ^x=$stack0:u8",
			   -EEXIST, TP_ERR_DIFF_ARG_TYPE);
	/* the same fetch type from elsewhere is a sibling */
	KUNIT_EXPECT_EQ(test, tk_events_run("p:kunit/multi " TKK_FUNC " x=$stack1"), 0);

	/* removal names a probe by its site and arguments, or all of them */
	KUNIT_EXPECT_EQ(test, tk_events_run("-:kunit/multi " TKK_FUNC " x=$stack2"),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, tk_events_run("-:kunit/multi " TKK_FUNC " x=$stack0"), 0);
	KUNIT_ASSERT_EQ(test, tkk_listing(TKK_GROUP, "multi", line,
					  sizeof(line)), 0);
	KUNIT_EXPECT_STREQ(test, strim(line),
			   "p:kunit/multi " TKK_FUNC " x=$stack1");
	tkk_remove(test, "multi");
	KUNIT_EXPECT_EQ(test, tk_events_run("-:kunit/multi"), -ENOENT);
}

/* ---- the record: header fields and argument fields ---- */

static struct ftrace_event_field *tkk_field(struct trace_event_call *call,
					    const char *name)
{
	struct ftrace_event_field *f;

	list_for_each_entry(f, trace_get_fields(call), link)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

struct tkk_field_want {
	const char *name;
	int size;
	bool is_signed;
};

/*
 * The argument fields follow the probe's header, packed in the order of
 * the arguments, each as big as its type (a string is a 4-byte data_loc,
 * declared signed, as in 6.12).
 */
static void tkk_expect_fields(struct kunit *test, struct trace_event_call *call,
			      int header, const struct tkk_field_want *want,
			      int n)
{
	int i, offset = header;

	for (i = 0; i < n; i++) {
		struct ftrace_event_field *f = tkk_field(call, want[i].name);

		KUNIT_ASSERT_NOT_NULL_MSG(test, f, "%s", want[i].name);
		KUNIT_EXPECT_EQ_MSG(test, f->offset, offset, "%s", want[i].name);
		KUNIT_EXPECT_EQ_MSG(test, f->size, want[i].size, "%s", want[i].name);
		KUNIT_EXPECT_EQ_MSG(test, (bool)f->is_signed, want[i].is_signed,
				    "%s", want[i].name);
		offset += want[i].size;
	}
}

static void entry_record_layout(struct kunit *test)
{
	static const struct tkk_field_want args[] = {
		{ "a", 1, false }, { "b", 2, true }, { "c", 4, false },
		{ "d", 8, true }, { "s", 4, true }, { "e", 8, false },
	};
	static const char def[] = "p:kunit/lay " TKK_FUNC
		" a=$stack0:u8 b=$stack1:s16 c=$stack2:x32 d=$stack3:s64 s=$comm e=$stack4";
	struct trace_event_call *call;
	struct ftrace_event_field *ip;

	KUNIT_ASSERT_EQ(test, tk_events_run(def), 0);
	call = tkk_call(TKK_GROUP, "lay");
	KUNIT_ASSERT_NOT_NULL(test, call);

	ip = tkk_field(call, "__probe_ip");
	KUNIT_ASSERT_NOT_NULL(test, ip);
	KUNIT_EXPECT_EQ(test, ip->offset,
			(int)offsetof(struct kprobe_trace_entry_head, ip));
	KUNIT_EXPECT_EQ(test, ip->size, (int)sizeof(unsigned long));
	KUNIT_EXPECT_NULL(test, tkk_field(call, "__probe_ret_ip"));
	tkk_expect_fields(test, call, sizeof(struct kprobe_trace_entry_head),
			  args, ARRAY_SIZE(args));
	tkk_remove(test, "lay");
}

static void return_record_layout(struct kunit *test)
{
	static const struct tkk_field_want args[] = {
		{ "rv", 4, true }, { "w", 8, false },
	};
	struct trace_event_call *call;
	struct ftrace_event_field *f;

	KUNIT_ASSERT_EQ(test, tk_events_run("r:kunit/rlay " TKK_FUNC
					    " rv=$retval:s32 w=$stack"), 0);
	call = tkk_call(TKK_GROUP, "rlay");
	KUNIT_ASSERT_NOT_NULL(test, call);

	f = tkk_field(call, "__probe_func");
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_EQ(test, f->offset,
			(int)offsetof(struct kretprobe_trace_entry_head, func));
	f = tkk_field(call, "__probe_ret_ip");
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_EQ(test, f->offset,
			(int)offsetof(struct kretprobe_trace_entry_head, ret_ip));
	KUNIT_EXPECT_NULL(test, tkk_field(call, "__probe_ip"));
	tkk_expect_fields(test, call, sizeof(struct kretprobe_trace_entry_head),
			  args, ARRAY_SIZE(args));
	tkk_remove(test, "rlay");
}

/* ---- hits: counted only while the event is enabled ---- */

static void tkk_count_hits(struct kunit *test, const char *def,
			   const char *event)
{
	struct trace_event_file *file;
	unsigned long hits, missed;
	int i;

	KUNIT_ASSERT_EQ(test, tk_events_run(def), 0);
	file = trace_get_event_file(NULL, TKK_GROUP, event);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));

	/* disarmed: the handlers do not run */
	KUNIT_EXPECT_EQ(test, tkk_call_target(), 21);
	KUNIT_ASSERT_EQ(test, tkk_counts(TKK_GROUP, event, &hits, &missed), 0);
	KUNIT_EXPECT_EQ(test, hits, 0UL);

	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(file->tr, TKK_GROUP,
							event, true), 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, tkk_call_target(), 21);
	KUNIT_ASSERT_EQ(test, tkk_counts(TKK_GROUP, event, &hits, &missed), 0);
	KUNIT_EXPECT_EQ(test, hits, 3UL);
	KUNIT_EXPECT_EQ(test, missed, 0UL);

	/* an enabled event cannot be removed */
	KUNIT_EXPECT_EQ(test, tk_events_run(def[0] == 'r' ? "-:kunit/rhit" :
					    "-:kunit/hit"), -EBUSY);

	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(file->tr, TKK_GROUP,
							event, false), 0);
	KUNIT_EXPECT_EQ(test, tkk_call_target(), 21);
	KUNIT_ASSERT_EQ(test, tkk_counts(TKK_GROUP, event, &hits, &missed), 0);
	KUNIT_EXPECT_EQ(test, hits, 3UL);

	trace_put_event_file(file);
	tkk_remove(test, event);
}

static void entry_hits_counted_while_enabled(struct kunit *test)
{
	tkk_count_hits(test, "p:kunit/hit " TKK_FUNC " $stack0", "hit");
}

static void return_hits_counted_while_enabled(struct kunit *test)
{
	tkk_count_hits(test, "r:kunit/rhit " TKK_FUNC " $retval", "rhit");
}

/* ---- quick loads: the same record bytes as the interpreter's ---- */

#define TKK_REC_MAX	256

/*
 * Store GROUP/EVENT's arguments for a made-up hit both ways; expect
 * @nr_quick of them to take the quick load and identical bytes.  @quick
 * keeps the quick path's record for the caller's own checks.
 */
static void tkk_expect_same_record(struct kunit *test, const char *event,
				   struct pt_regs *regs, int nr_quick,
				   u8 *quick)
{
	u8 *slow = kunit_kzalloc(test, TKK_REC_MAX, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, slow);
	KUNIT_ASSERT_EQ(test, tkk_store_args(TKK_GROUP, event, regs, quick,
					     slow, TKK_REC_MAX), nr_quick);
	KUNIT_EXPECT_MEMEQ(test, quick, slow, TKK_REC_MAX);
}

/* Every word of @regs distinct (each byte too); the stack at @stack. */
static void tkk_fake_regs(struct pt_regs *regs, unsigned long *stack, int n)
{
	unsigned long *w = (unsigned long *)regs;
	int i;

	for (i = 0; i < sizeof(*regs) / sizeof(long); i++)
		w[i] = 0x8070605040302010UL + i * 0x0101010101010101UL;
	for (i = 0; i < n; i++)
		stack[i] = 0xf0e0d0c0b0a09080UL - i * 0x0101010101010101UL;
	regs->sp = (unsigned long)stack;
}

static void quick_loads_store_what_the_interpreter_does(struct kunit *test)
{
	static const char def[] = "p:kunit/quick " TKK_FUNC
		" a=$arg1 b=$arg2:u8 c=$arg3:s16 d=$arg4:x32 e=$stack0"
		" f=$stack2:u16 h=$comm i=+0($stack):u64 j=$arg5:b4@2/8"
		" k=$stack1:s8";
	unsigned long stack[4];
	struct trace_event_call *call;
	struct ftrace_event_field *f;
	struct pt_regs regs;
	u8 *quick;

	quick = kunit_kzalloc(test, TKK_REC_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, quick);
	tkk_fake_regs(&regs, stack, ARRAY_SIZE(stack));

	KUNIT_ASSERT_EQ(test, tk_events_run(def), 0);
	/* a b c d e f k quick; $comm, the dereference, the bitfield not */
	tkk_expect_same_record(test, "quick", &regs, 7, quick);

	/* and the quick values are the hit's, at their fields */
	call = tkk_call(TKK_GROUP, "quick");
	KUNIT_ASSERT_NOT_NULL(test, call);
	f = tkk_field(call, "a");
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_EQ(test, get_unaligned((unsigned long *)(quick + f->offset -
				sizeof(struct kprobe_trace_entry_head))),
			regs_get_kernel_argument(&regs, 0));
	f = tkk_field(call, "e");
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_EQ(test, get_unaligned((unsigned long *)(quick + f->offset -
				sizeof(struct kprobe_trace_entry_head))),
			stack[0]);
	f = tkk_field(call, "b");
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_EQ(test, quick[f->offset -
				    sizeof(struct kprobe_trace_entry_head)],
			(u8)regs_get_kernel_argument(&regs, 1));
	tkk_remove(test, "quick");

	KUNIT_ASSERT_EQ(test, tk_events_run("r:kunit/rquick " TKK_FUNC
					    " rv=$retval:s16 w=$stack1 r=$retval:u64"),
			0);
	tkk_expect_same_record(test, "rquick", &regs, 3, quick);
	KUNIT_EXPECT_EQ(test, get_unaligned((unsigned long *)(quick + 2 +
							     sizeof(long))),
			regs_return_value(&regs));
	tkk_remove(test, "rquick");
}

/* ---- records written directly or through the event buffer helpers ---- */

#define TKK_INSTANCE	"kunit_tk_records"

/* Call the target once on this CPU and take the record it wrote there. */
static noinline unsigned int tkk_hit_record(struct kunit *test,
					    struct trace_array *tr,
					    u8 *rec, unsigned int room)
{
	struct trace_buffer *buffer = tr->array_buffer.buffer;
	struct ring_buffer_event *event;
	unsigned int len = 0;
	int cpu;

	migrate_disable();
	cpu = raw_smp_processor_id();
	ring_buffer_reset_cpu(buffer, cpu);
	KUNIT_EXPECT_EQ(test, tkk_call_target(), 21);
	event = ring_buffer_consume(buffer, cpu, NULL, NULL);
	if (event) {
		len = min(ring_buffer_event_length(event), room);
		memcpy(rec, ring_buffer_event_data(event), len);
	}
	KUNIT_EXPECT_NULL(test, ring_buffer_consume(buffer, cpu, NULL, NULL));
	migrate_enable();
	return len;
}

static void direct_record_is_the_general_one(struct kunit *test)
{
	/* only values that are the same in both calls (no stack words) */
	static const char def[] = "p:kunit/rec " TKK_FUNC
		" a=$arg1 b=$arg2:u16 s=$comm c=$arg3:x8";
	struct trace_event_file *file;
	unsigned int n_direct, n_general;
	struct trace_array *tr;
	u8 *direct, *general;

	direct = kunit_kzalloc(test, TKK_REC_MAX, GFP_KERNEL);
	general = kunit_kzalloc(test, TKK_REC_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, direct);
	KUNIT_ASSERT_NOT_NULL(test, general);
	tr = trace_array_get_by_name(TKK_INSTANCE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, tr);
	KUNIT_ASSERT_EQ(test, tk_events_run(def), 0);
	file = trace_get_event_file(TKK_INSTANCE, TKK_GROUP, "rec");
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(tr, TKK_GROUP, "rec",
							true), 0);

	/* nothing per record: written straight into the buffer */
	n_direct = tkk_hit_record(test, tr, direct, TKK_REC_MAX);
	/*
	 * A pid filter that lets every task through sends the hit through
	 * trace_event_buffer_reserve()/commit() instead.
	 */
	set_bit(EVENT_FILE_FL_PID_FILTER_BIT, &file->flags);
	n_general = tkk_hit_record(test, tr, general, TKK_REC_MAX);
	clear_bit(EVENT_FILE_FL_PID_FILTER_BIT, &file->flags);

	KUNIT_EXPECT_GT(test, n_direct, (unsigned int)sizeof(struct kprobe_trace_entry_head));
	KUNIT_EXPECT_EQ(test, n_direct, n_general);
	/*
	 * The two reschedule bits say whether a reschedule was pending at
	 * each call, which the scheduler decides between the two: leave
	 * them out, compare every other byte.
	 */
	((struct trace_entry *)direct)->flags &=
		~(TRACE_FLAG_NEED_RESCHED | TRACE_FLAG_PREEMPT_RESCHED);
	((struct trace_entry *)general)->flags &=
		~(TRACE_FLAG_NEED_RESCHED | TRACE_FLAG_PREEMPT_RESCHED);
	KUNIT_EXPECT_MEMEQ(test, direct, general, min(n_direct, n_general));
	KUNIT_EXPECT_EQ(test, ((struct trace_entry *)direct)->type,
			(unsigned short)file->event_call->event.type);
	KUNIT_EXPECT_EQ(test, ((struct trace_entry *)direct)->pid, current->pid);

	KUNIT_EXPECT_EQ(test, trace_array_set_clr_event(tr, TKK_GROUP, "rec",
							false), 0);
	trace_put_event_file(file);
	tkk_remove(test, "rec");
	trace_array_put(tr);
	trace_array_destroy(tr);
}

/* ---- event batches: the probes of many events switched at once ---- */

#define TKK_BATCH_GROUP		"kunit_batch"
#define TKK_BATCH_N		8
#define TKK_BATCH_RESULT(i, x)	((x) * 5 + (i))

/*
 * Distinct functions with a call site each, called only through
 * tkk_batch_fns[], so that none is inlined, cloned or folded into another.
 */
#define TKK_BATCH_FN(i)						\
	static noinline int tkk_batch_fn##i(int x)		\
	{							\
		return TKK_BATCH_RESULT(i, x);			\
	}

TKK_BATCH_FN(0)
TKK_BATCH_FN(1)
TKK_BATCH_FN(2)
TKK_BATCH_FN(3)
TKK_BATCH_FN(4)
TKK_BATCH_FN(5)
TKK_BATCH_FN(6)
TKK_BATCH_FN(7)

static int (*tkk_batch_fns[TKK_BATCH_N])(int x) = {
	tkk_batch_fn0, tkk_batch_fn1, tkk_batch_fn2, tkk_batch_fn3,
	tkk_batch_fn4, tkk_batch_fn5, tkk_batch_fn6, tkk_batch_fn7,
};

/* Batch target @i, to be called: tkk_batch_fn(i)(x). */
#define tkk_batch_fn(i)		READ_ONCE(tkk_batch_fns[i])

/* Call every batch target once with @x; each must return its own result. */
static void tkk_batch_call(struct kunit *test, int x)
{
	int i;

	for (i = 0; i < TKK_BATCH_N; i++)
		KUNIT_EXPECT_EQ(test, tkk_batch_fn(i)(x), TKK_BATCH_RESULT(i, x));
}

/*
 * kunit_batch/b@i's probe: its hits, and whether it is armed and on a
 * call site; ULONG_MAX (and a failure) if there is no such event.
 */
static unsigned long tkk_batch_state(struct kunit *test, int i, bool *armed,
				     bool *site)
{
	unsigned long hits = ULONG_MAX;
	struct trace_kprobe *tk;
	char event[8];

	*armed = *site = false;
	snprintf(event, sizeof(event), "b%d", i);
	scoped_guard(mutex, &event_mutex) {
		tk = tk_find(event, TKK_BATCH_GROUP);
		if (tk) {
			*armed = !kprobe_disabled(&tk->rp.kp);
			*site = kprobe_ftrace(&tk->rp.kp);
			hits = tk_hits(tk);
		}
	}
	KUNIT_EXPECT_NE_MSG(test, hits, ULONG_MAX, "no event %s", event);
	return hits;
}

/* Every batch event's probe has @hits hits and is armed as @armed says. */
static void tkk_batch_expect(struct kunit *test, unsigned long hits,
			     bool armed)
{
	bool on, site;
	int i;

	for (i = 0; i < TKK_BATCH_N; i++) {
		KUNIT_EXPECT_EQ_MSG(test, tkk_batch_state(test, i, &on, &site),
				    hits, "b%d", i);
		KUNIT_EXPECT_EQ_MSG(test, on, armed, "b%d", i);
	}
}

static void tkk_batch_cleanup(void *unused)
{
	char cmd[48];
	int i;

	trace_array_set_clr_event(top_trace_array(), TKK_BATCH_GROUP, NULL,
				  false);
	for (i = 0; i < TKK_BATCH_N; i++) {
		snprintf(cmd, sizeof(cmd), "-:%s/b%d", TKK_BATCH_GROUP, i);
		tk_events_run(cmd);
	}
}

KUNIT_DEFINE_ACTION_WRAPPER(tkk_put_event_file, trace_put_event_file,
			    struct trace_event_file *);

/* Enable (@on) or disable @file alone, outside any batch. */
static int tkk_batch_switch(struct trace_event_file *file, int on)
{
	guard(mutex)(&event_mutex);
	return trace_event_enable_disable(file, on, 0);
}

/*
 * One event batch that switches @file[i] on or off as @on[i] says, for
 * each i < @n in order.  @d is set to what the kprobes core's array calls
 * did in it: every caller of those holds event_mutex, as the batch does
 * from the first read to the second, so no one else's calls are in it.
 * Returns what trace_event_batch_end() returned.
 */
static int tkk_batch_run(struct kunit *test, struct trace_event_file **file,
			 const int *on, int n, struct kprobes_array_stats *d)
{
	struct kprobes_array_stats before, after;
	int i, ret;

	guard(mutex)(&event_mutex);
	kprobes_array_get_stats(&before);
	trace_event_batch_begin();
	for (i = 0; i < n; i++) {
		ret = trace_event_enable_disable(file[i], on[i], 0);
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "switch %d", i);
	}
	ret = trace_event_batch_end();
	kprobes_array_get_stats(&after);
	d->calls = after.calls - before.calls;
	d->site_changes = after.site_changes - before.site_changes;
	return ret;
}

/*
 * Enabling a group's events through its "enable" file is one event
 * batch: every probe is armed when the write returns, and disarmed when
 * the write that disables them returns.  A batch of all of them makes
 * one enable_kprobes() call, with one change of the call-site filter for
 * all of them (one per event without the batch), and disabling them is
 * one disable_kprobes() call and one change; switching an event on and
 * off within a batch leaves it as it was, with no call at all.  The
 * enable file's write takes event_mutex itself, so the counts are taken
 * on the same batch run under the case's own hold; the filter changes
 * only where the probes are on call sites (skipped otherwise).
 */
static void batch_switches_call_sites_once(struct kunit *test)
{
	static const int all_on[TKK_BATCH_N] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	static const int all_off[TKK_BATCH_N];
	static const int on_off[] = { 1, 0 }, off_on[] = { 0, 1 };
	struct trace_event_file *file[TKK_BATCH_N], *b0[2];
	struct trace_array *tr = top_trace_array();
	struct kprobes_array_stats on, off, d;
	bool sites = true, armed, site;
	char cmd[64];
	int i;

	KUNIT_ASSERT_NOT_NULL(test, tr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tkk_batch_cleanup,
							NULL), 0);
	for (i = 0; i < TKK_BATCH_N; i++) {
		snprintf(cmd, sizeof(cmd), "p:%s/b%d tkk_batch_fn%d",
			 TKK_BATCH_GROUP, i, i);
		KUNIT_ASSERT_EQ_MSG(test, tk_events_run(cmd), 0, "%s", cmd);
		tkk_batch_state(test, i, &armed, &site);
		sites &= site;
	}
	tkk_batch_expect(test, 0, false);

	/* Through the group's enable file. */
	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(tr, TKK_BATCH_GROUP,
							NULL, true), 0);
	tkk_batch_expect(test, 0, true);
	tkk_batch_call(test, 1);
	tkk_batch_expect(test, 1, true);
	tkk_batch_call(test, 2);
	tkk_batch_expect(test, 2, true);
	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(tr, TKK_BATCH_GROUP,
							NULL, false), 0);
	/* Disarmed when the write returns: no handler runs from here on. */
	tkk_batch_expect(test, 2, false);
	tkk_batch_call(test, 3);
	tkk_batch_expect(test, 2, false);

	for (i = 0; i < TKK_BATCH_N; i++) {
		snprintf(cmd, sizeof(cmd), "b%d", i);
		file[i] = trace_get_event_file(NULL, TKK_BATCH_GROUP, cmd);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(file[i]), "%s", cmd);
		KUNIT_ASSERT_EQ(test,
				kunit_add_action_or_reset(test,
							  tkk_put_event_file,
							  file[i]), 0);
	}

	/* The same as one batch of the case's own: one call each way. */
	KUNIT_EXPECT_EQ(test, tkk_batch_run(test, file, all_on, TKK_BATCH_N,
					    &on), 0);
	KUNIT_EXPECT_EQ(test, on.calls, 1UL);
	tkk_batch_expect(test, 2, true);
	tkk_batch_call(test, 4);
	tkk_batch_expect(test, 3, true);
	KUNIT_EXPECT_EQ(test, tkk_batch_run(test, file, all_off, TKK_BATCH_N,
					    &off), 0);
	KUNIT_EXPECT_EQ(test, off.calls, 1UL);
	tkk_batch_expect(test, 3, false);
	tkk_batch_call(test, 5);
	tkk_batch_expect(test, 3, false);

	/* On, then off, in one batch: never armed, no call. */
	b0[0] = file[0];
	b0[1] = file[0];
	KUNIT_EXPECT_EQ(test, tkk_batch_run(test, b0, on_off, 2, &d), 0);
	KUNIT_EXPECT_EQ(test, d.calls, 0UL);
	KUNIT_EXPECT_EQ(test, d.site_changes, 0UL);
	tkk_batch_expect(test, 3, false);
	tkk_batch_call(test, 6);
	tkk_batch_expect(test, 3, false);

	/* Off, then on, in one batch: armed throughout, no call. */
	KUNIT_ASSERT_EQ(test, tkk_batch_switch(file[0], 1), 0);
	KUNIT_EXPECT_EQ(test, tkk_batch_run(test, b0, off_on, 2, &d), 0);
	KUNIT_EXPECT_EQ(test, d.calls, 0UL);
	KUNIT_EXPECT_EQ(test, d.site_changes, 0UL);
	KUNIT_EXPECT_EQ(test, tkk_batch_state(test, 0, &armed, &site), 3UL);
	KUNIT_EXPECT_TRUE(test, armed);
	KUNIT_EXPECT_EQ(test, tkk_batch_fn(0)(7), TKK_BATCH_RESULT(0, 7));
	KUNIT_EXPECT_EQ(test, tkk_batch_state(test, 0, &armed, &site), 4UL);
	KUNIT_ASSERT_EQ(test, tkk_batch_switch(file[0], 0), 0);
	KUNIT_EXPECT_EQ(test, tkk_batch_state(test, 0, &armed, &site), 4UL);
	KUNIT_EXPECT_FALSE(test, armed);

	/*
	 * Breakpoints (no call sites, or no kprobes on them) change no
	 * filter: nothing to count.  A skip would hide a failure above.
	 */
	if (!sites) {
		if (READ_ONCE(test->status) == KUNIT_FAILURE)
			return;
		kunit_skip(test, "breakpoints: no call-site filter to count");
	}
	KUNIT_EXPECT_EQ(test, on.site_changes, 1UL);
	KUNIT_EXPECT_EQ(test, off.site_changes, 1UL);
}

/* ---- removal batches: one wait for the probes of a write ---- */

#define TKK_DEL_GROUP		"kunit_del"
#define TKK_DEL_N		24

static void tkk_del_cleanup(void *unused)
{
	trace_array_set_clr_event(top_trace_array(), TKK_DEL_GROUP, NULL,
				  false);
	tk_events_run("-:" TKK_DEL_GROUP "/");
}

/* Run "-:kunit_del/@what"; its errno. */
static int tkk_del_run(const char *what)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "-:%s/%s", TKK_DEL_GROUP, what);
	return tk_events_run(cmd);
}

/* kunit_del/@event: its first probe's address, 0 if there is none. */
static unsigned long tkk_del_addr(const char *event)
{
	struct trace_kprobe *tk;

	guard(mutex)(&event_mutex);
	tk = tk_find(event, TKK_DEL_GROUP);
	return tk ? (unsigned long)tk->rp.kp.addr : 0;
}

/* Does the kprobes core hold a probe at @addr? */
static bool tkk_probed(unsigned long addr)
{
	guard(rcu)();
	return get_kprobe((void *)addr);
}

/*
 * The "-:" lines of one write to kprobe_events are one removal batch
 * (the write opens it as the case does here, and each line's
 * dyn_event_release() nests one inside it): each line's event is gone
 * from the listing and the event core when its line returns, but the
 * kprobes core has waited for no grace period yet; the end of the batch
 * unregisters all of them with one wait per kind of probe (entry and
 * return), not one per event.  A line for an unknown event fails with
 * ENOENT and one for an enabled event with EBUSY, and neither keeps the
 * other lines from taking effect.  A line that removes one probe of a
 * two-probe event leaves the event working with the other probe.  The
 * counts are exact while no other user of kprobes unregisters, which
 * nothing does while the KUnit suites run.
 */
static void removal_batch_waits_once(struct kunit *test)
{
	struct trace_array *tr = top_trace_array();
	struct kprobes_array_stats before, mid, after;
	unsigned long addr[TKK_BATCH_N] = { };
	struct trace_event_file *busy;
	struct trace_kprobe *tk;
	char cmd[64], event[8];
	bool siblings;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, tr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tkk_del_cleanup,
							NULL), 0);
	/* Entry and return probes, several on each function. */
	for (i = 0; i < TKK_DEL_N; i++) {
		snprintf(cmd, sizeof(cmd), "%c:%s/d%d tkk_batch_fn%d",
			 i % 2 ? 'r' : 'p', TKK_DEL_GROUP, i, i % TKK_BATCH_N);
		KUNIT_ASSERT_EQ_MSG(test, tk_events_run(cmd), 0, "%s", cmd);
	}
	for (i = 3; i < TKK_BATCH_N; i++) {
		snprintf(event, sizeof(event), "d%d", i);
		addr[i] = tkk_del_addr(event);
		KUNIT_ASSERT_NE(test, addr[i], 0UL);
		KUNIT_ASSERT_TRUE(test, tkk_probed(addr[i]));
	}
	KUNIT_ASSERT_EQ(test, tk_events_run("p:" TKK_DEL_GROUP
					    "/pair tkk_batch_fn0"), 0);
	KUNIT_ASSERT_EQ(test, tk_events_run("p:" TKK_DEL_GROUP
					    "/pair tkk_batch_fn1"), 0);
	KUNIT_ASSERT_EQ(test, tk_events_run("p:" TKK_DEL_GROUP
					    "/busy tkk_batch_fn2"), 0);
	busy = trace_get_event_file(NULL, TKK_DEL_GROUP, "busy");
	KUNIT_ASSERT_FALSE(test, IS_ERR(busy));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							tkk_put_event_file,
							busy), 0);
	KUNIT_ASSERT_EQ(test, tkk_batch_switch(busy, 1), 0);

	kprobes_array_get_stats(&before);
	KUNIT_ASSERT_TRUE(test, dyn_event_batch_begin());
	for (i = 0; i < TKK_DEL_N; i++) {
		snprintf(event, sizeof(event), "d%d", i);
		KUNIT_EXPECT_EQ_MSG(test, tkk_del_run(event), 0, "%s", event);
		KUNIT_EXPECT_EQ_MSG(test, tkk_del_addr(event), 0UL, "%s", event);
		KUNIT_EXPECT_NULL(test, tkk_call(TKK_DEL_GROUP, event));
		if (i == TKK_DEL_N / 2) {
			KUNIT_EXPECT_EQ(test, tkk_del_run("nosuch"), -ENOENT);
			KUNIT_EXPECT_EQ(test, tkk_del_run("busy"), -EBUSY);
			KUNIT_EXPECT_EQ(test, tkk_del_run("pair tkk_batch_fn1"),
					0);
		}
	}
	kprobes_array_get_stats(&mid);
	/* Nothing waited yet: the probes are still the core's. */
	KUNIT_EXPECT_EQ(test, mid.unregister_waits, before.unregister_waits);
	KUNIT_EXPECT_TRUE(test, tkk_probed(addr[TKK_BATCH_N - 1]));
	dyn_event_batch_end();
	kprobes_array_get_stats(&after);

	/* One wait for the kprobes, one for the kretprobes. */
	KUNIT_EXPECT_EQ(test, after.unregister_waits - before.unregister_waits,
			2UL);
	for (i = 3; i < TKK_BATCH_N; i++)
		KUNIT_EXPECT_FALSE_MSG(test, tkk_probed(addr[i]), "fn%d", i);

	/* The enabled event stayed, and records. */
	KUNIT_EXPECT_NOT_NULL(test, tkk_call(TKK_DEL_GROUP, "busy"));
	KUNIT_EXPECT_EQ(test, tkk_batch_fn(2)(1), TKK_BATCH_RESULT(2, 1));
	scoped_guard(mutex, &event_mutex) {
		tk = tk_find("busy", TKK_DEL_GROUP);
		KUNIT_EXPECT_EQ(test, tk ? tk_hits(tk) : 0UL, 1UL);
	}

	/* "pair" is left with its probe on tkk_batch_fn0, and works. */
	scoped_guard(mutex, &event_mutex) {
		tk = tk_find("pair", TKK_DEL_GROUP);
		siblings = tk && trace_probe_has_sibling(&tk->tp);
	}
	KUNIT_ASSERT_NOT_NULL(test, tk);
	KUNIT_EXPECT_FALSE(test, siblings);
	KUNIT_EXPECT_EQ(test, trace_array_set_clr_event(tr, TKK_DEL_GROUP,
							"pair", true), 0);
	KUNIT_EXPECT_EQ(test, tkk_batch_fn(0)(1), TKK_BATCH_RESULT(0, 1));
	KUNIT_EXPECT_EQ(test, tkk_batch_fn(1)(1), TKK_BATCH_RESULT(1, 1));
	scoped_guard(mutex, &event_mutex) {
		tk = tk_find("pair", TKK_DEL_GROUP);
		KUNIT_EXPECT_EQ(test, tk ? tk_hits(tk) : 0UL, 1UL);
	}
	KUNIT_EXPECT_EQ(test, trace_array_set_clr_event(tr, TKK_DEL_GROUP,
							"pair", false), 0);

	/* A line of its own is a batch of its own: one wait. */
	kprobes_array_get_stats(&before);
	KUNIT_EXPECT_EQ(test, tkk_del_run("pair"), 0);
	kprobes_array_get_stats(&after);
	KUNIT_EXPECT_EQ(test, after.unregister_waits - before.unregister_waits,
			1UL);
	KUNIT_EXPECT_NULL(test, tkk_call(TKK_DEL_GROUP, "pair"));
	/* "busy" goes in the cleanup, once its file is put. */
	KUNIT_EXPECT_EQ(test, tkk_batch_switch(busy, 0), 0);
}

static struct kunit_case trace_kprobe_cases[] = {
	KUNIT_CASE_PARAM(accepted_definition_is_listed_canonically,
			 tkk_listing_gen_params),
	KUNIT_CASE_PARAM(refused_definition_logs_code_and_caret,
			 tkk_refusal_gen_params),
	KUNIT_CASE(too_many_arguments_are_logged),
	KUNIT_CASE(second_probe_joins_or_is_refused),
	KUNIT_CASE(entry_record_layout),
	KUNIT_CASE(return_record_layout),
	KUNIT_CASE(entry_hits_counted_while_enabled),
	KUNIT_CASE(return_hits_counted_while_enabled),
	KUNIT_CASE(quick_loads_store_what_the_interpreter_does),
	KUNIT_CASE(direct_record_is_the_general_one),
	KUNIT_CASE(batch_switches_call_sites_once),
	KUNIT_CASE(removal_batch_waits_once),
	{}
};

static struct kunit_suite trace_kprobe_suite = {
	.name = "trace_kprobe",
	.test_cases = trace_kprobe_cases,
};

kunit_test_suite(trace_kprobe_suite);
