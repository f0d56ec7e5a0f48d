// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the uprobe event layer (trace_uprobe*.c).
 *
 * Lines are run as if written to uprobe_events (uprobe_events_run()) and
 * what a user observes is checked: whether a definition is accepted, the
 * exact line uprobe_events then lists for it (uprobe_dyn_show()), with
 * which errno a line is refused, the error_log code and caret the probe
 * library recorded for it, that a refused line changes no event, what a
 * removal accepts, the fields of the event's record, and that the probes
 * of an enabled event stay.  The layer's internals the suite sees are the
 * functions trace_uprobe.h declares for it (visible and exported only with
 * KUnit) and trace_uprobe_find(), plus what struct trace_uprobe holds.
 *
 * The probed file is one the suite makes itself, TUPK_PATH (TUPK_SIZE
 * bytes), at the root of the file system the suite runs in: built in, the
 * suite runs before the initramfs is known to be unpacked.  When it cannot
 * be made, every case is skipped.  Probes are only defined, and once
 * enabled, never hit: nothing maps the file.
 *
 * Every event a case makes is removed by the case's exit hook, even when
 * the case fails: all uprobe events on TUPK_PATH, whatever their names.
 *
 * The cases on perf's close count an event with a perf counter of the
 * kernel's own on one CPU, and hit it by calling its handler, from a
 * thread on that CPU, with registers of no process: the event has no
 * argument, so nothing is read from them.
 * The caret of a refusal is written into the line as '^' (as the ftrace
 * selftests write it) and taken out before the line runs.
 *
 * One case checks the uprobes core's batched register that BPF's
 * uprobe_multi links use (uprobe_register_batch()), on the same file:
 * a batch that fails leaves no uprobe behind.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/dcache.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/perf_event.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace.h>
#include <linux/trace_events.h>
#include <linux/uprobe_batch.h>
#include <linux/uprobes.h>
#ifdef CONFIG_HAVE_ARCH_TRACE_KUNIT
#include <asm/trace_kunit.h>
#endif

#include "trace.h"
#include "trace_probe_internal.h"
#include "trace_uprobe.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define TUPK_PATH	"/tupk-target"
#define TUPK_SIZE	0x1000
#define TUPK_GROUP	"tupk"
#define TUPK_INSTANCE	"tupk_instance"
#define TUPK_LINE_MAX	512
#define TUPK_LIST_MAX	16384

/*
 * Offsets are listed zero-padded to the width of a word: TUPK_PAD and
 * three hex digits make one.
 */
#if BITS_PER_LONG == 64
#define TUPK_PAD	"0x0000000000000"
#else
#define TUPK_PAD	"0x00000"
#endif

/*
 * Two argument registers, by the names this architecture's pt_regs has
 * (<asm/trace_kunit.h>); where the architecture has no such header, the
 * cases that name registers are skipped.
 */
#ifdef CONFIG_HAVE_ARCH_TRACE_KUNIT
#define TUPK_HAVE_REGS	true
#define TUPK_REG_A	TRACE_KUNIT_ARG0_REG
#define TUPK_REG_B	TRACE_KUNIT_ARG1_REG
#else
#define TUPK_HAVE_REGS	false
#define TUPK_REG_A	"%unknown_a"
#define TUPK_REG_B	"%unknown_b"
#endif

static bool tupk_have_target;

/* Make TUPK_PATH, a regular file of TUPK_SIZE bytes. */
static int tupk_suite_init(struct kunit_suite *suite)
{
	struct file *file;
	loff_t pos = 0;
	ssize_t done;
	void *fill;

	fill = kzalloc(TUPK_SIZE, GFP_KERNEL);
	if (!fill)
		return 0;
	file = filp_open(TUPK_PATH, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (!IS_ERR(file)) {
		done = kernel_write(file, fill, TUPK_SIZE, &pos);
		tupk_have_target = done == TUPK_SIZE;
		fput(file);
	}
	kfree(fill);
	/* A file the suite cannot make skips its cases; it is no failure. */
	return 0;
}

static void tupk_suite_exit(struct kunit_suite *suite)
{
	struct path parent;
	struct dentry *dentry;

	dentry = kern_path_locked(TUPK_PATH, &parent);
	if (IS_ERR(dentry))
		return;
	if (d_is_positive(dentry))
		vfs_unlink(mnt_idmap(parent.mnt), d_inode(parent.dentry), dentry,
			   NULL);
	dput(dentry);
	inode_unlock(d_inode(parent.dentry));
	path_put(&parent);
}

static void tupk_need_target(struct kunit *test)
{
	if (!tupk_have_target)
		kunit_skip(test, "could not make " TUPK_PATH);
}

/* Run one uprobe_events line, forgetting the last error_log entry first. */
static int tupk_run(const char *cmd)
{
	tprobe_log_forget_last();
	return uprobe_events_run(cmd);
}

/*
 * Terminate the text and cut its trailing newline; false (and the text
 * cut short) if the seq_file overflowed.
 */
static bool tupk_seq_done(struct seq_file *m)
{
	if (m->count >= m->size) {
		m->buf[m->size - 1] = '\0';
		return false;
	}
	if (m->count && m->buf[m->count - 1] == '\n')
		m->count--;
	m->buf[m->count] = '\0';
	return true;
}

/* What uprobe_events lists for GROUP/EVENT's first probe, without '\n'. */
static bool tupk_listing(const char *group, const char *event, char *buf,
			 size_t size)
{
	struct seq_file m = { .buf = buf, .size = size };
	struct trace_uprobe *tu;

	buf[0] = '\0';
	mutex_lock(&event_mutex);
	tu = trace_uprobe_find(event, group);
	if (tu)
		uprobe_dyn_show(&m, &tu->devent);
	mutex_unlock(&event_mutex);
	return tu && tupk_seq_done(&m);
}

/*
 * The lines uprobe_events lists for probes on TUPK_PATH, in its order
 * (uprobes of anyone else left out); false if @buf is too small.
 */
static bool tupk_list_all(char *buf, size_t size)
{
	struct seq_file m = { .buf = buf, .size = size };
	struct dyn_event *pos;
	size_t start;

	mutex_lock(&event_mutex);
	for_each_dyn_event(pos) {
		if (pos->ops->show != uprobe_dyn_show)
			continue;
		start = m.count;
		uprobe_dyn_show(&m, pos);
		if (m.count >= m.size)
			break;
		buf[m.count] = '\0';
		if (!strstr(buf + start, " " TUPK_PATH ":"))
			m.count = start;
	}
	mutex_unlock(&event_mutex);
	return tupk_seq_done(&m);
}

/* Remove every uprobe event that has a probe on TUPK_PATH. */
static void tupk_remove_ours(void)
{
	char *buf = kzalloc(TUPK_LIST_MAX, GFP_KERNEL);
	char *rest, *line, *space;

	if (!buf)
		return;
	tupk_list_all(buf, TUPK_LIST_MAX);
	rest = buf;
	while ((line = strsep(&rest, "\n"))) {
		/* "p:GRP/EVENT PATH:..." becomes "-:GRP/EVENT" */
		space = strchr(line, ' ');
		if (!space)
			continue;
		*space = '\0';
		line[0] = '-';
		uprobe_events_run(line);
	}
	kfree(buf);
}

static void tupk_exit(struct kunit *test)
{
	struct trace_array *tr = test->priv;

	if (tr) {
		trace_array_set_clr_event(tr, TUPK_GROUP, NULL, false);
		trace_array_put(tr);
		trace_array_destroy(tr);
	}
	tupk_remove_ours();
}

static char *tupk_alloc(struct kunit *test, size_t size)
{
	char *buf = kunit_kzalloc(test, size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	return buf;
}

/* ---- accepted definitions and the line uprobe_events lists ---- */

struct tupk_listing_case {
	const char *name;
	const char *cmd;
	const char *group;
	const char *event;
	const char *line;	/* as uprobe_events lists it, without '\n' */
	bool regs;		/* names registers of this architecture */
};

static const struct tupk_listing_case tupk_listing_cases[] = {
	{ "registers",
	  "p:tupk/regs " TUPK_PATH ":0x10 " TUPK_REG_A " " TUPK_REG_B ":u32",
	  TUPK_GROUP, "regs",
	  "p:tupk/regs " TUPK_PATH ":" TUPK_PAD "010 arg1=" TUPK_REG_A
	  " arg2=" TUPK_REG_B ":u32", true },
	{ "stack_slots",
	  "p:tupk/stk " TUPK_PATH ":0x20 $stack $stack0 top=$stack3:s16",
	  TUPK_GROUP, "stk",
	  "p:tupk/stk " TUPK_PATH ":" TUPK_PAD
	  "020 arg1=$stack arg2=$stack0 top=$stack3:s16" },
	{ "memory_dereferences",
	  "p:tupk/mem " TUPK_PATH
	  ":0x30 +0($stack):u64 -8(+16($stack)):x32 @0x1000:u8 foff=@+0x40:s32",
	  TUPK_GROUP, "mem",
	  "p:tupk/mem " TUPK_PATH ":" TUPK_PAD
	  "030 arg1=+0($stack):u64 arg2=-8(+16($stack)):x32 arg3=@0x1000:u8 foff=@+0x40:s32" },
	{ "strings",
	  "p:tupk/str " TUPK_PATH
	  ":0x40 path=+0($stack):string u=+8($stack):ustring $comm c=$comm:string",
	  TUPK_GROUP, "str",
	  "p:tupk/str " TUPK_PATH ":" TUPK_PAD
	  "040 path=+0($stack):string u=+8($stack):ustring arg3=$comm c=$comm:string" },
	{ "types_arrays_bitfields_immediates",
	  "p:tupk/typ " TUPK_PATH
	  ":0x50 a=$stack0:s8 b=$stack1:x16 c=+0($stack):u8[4] d=$stack2:b3@4/32 e=\\42:s32",
	  TUPK_GROUP, "typ",
	  "p:tupk/typ " TUPK_PATH ":" TUPK_PAD
	  "050 a=$stack0:s8 b=$stack1:x16 c=+0($stack):u8[4] d=$stack2:b3@4/32 e=\\42:s32" },
	{ "return_probe",
	  "r:tupk/ret " TUPK_PATH ":0x60 rv=$retval:s32 $stack0 ch=+0($stack):char",
	  TUPK_GROUP, "ret",
	  "r:tupk/ret " TUPK_PATH ":" TUPK_PAD
	  "060 rv=$retval:s32 arg2=$stack0 ch=+0($stack):char" },
	{ "return_suffix_and_default_names", "p " TUPK_PATH ":0x70%return",
	  "uprobes", "p_tupk_0x70",
	  "r:uprobes/p_tupk_0x70 " TUPK_PATH ":" TUPK_PAD "070" },
	{ "default_group_and_event", "p " TUPK_PATH ":0x80",
	  "uprobes", "p_tupk_0x80",
	  "p:uprobes/p_tupk_0x80 " TUPK_PATH ":" TUPK_PAD "080" },
	{ "event_without_group", "p:tupk_solo " TUPK_PATH ":0x90",
	  "uprobes", "tupk_solo",
	  "p:uprobes/tupk_solo " TUPK_PATH ":" TUPK_PAD "090" },
	{ "reference_counter", "p:tupk/sdt " TUPK_PATH ":0xa0(0x100)",
	  TUPK_GROUP, "sdt",
	  "p:tupk/sdt " TUPK_PATH ":" TUPK_PAD "0a0(0x100)" },
	{ "return_suffix_before_reference_counter",
	  "p:tupk/sdtr " TUPK_PATH ":0xb0%return(0x102)",
	  TUPK_GROUP, "sdtr",
	  "r:tupk/sdtr " TUPK_PATH ":" TUPK_PAD "0b0(0x102)" },
	{ "decimal_offset", "p:tupk/dec " TUPK_PATH ":16",
	  TUPK_GROUP, "dec",
	  "p:tupk/dec " TUPK_PATH ":" TUPK_PAD "010" },
	{ "last_byte_of_the_file", "p:tupk/last " TUPK_PATH ":0xfff",
	  TUPK_GROUP, "last",
	  "p:tupk/last " TUPK_PATH ":" TUPK_PAD "fff" },
};

static void tupk_listing_desc(const struct tupk_listing_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tupk_listing, tupk_listing_cases, tupk_listing_desc);

/*
 * The definition is accepted, listed as written but canonical (names for
 * unnamed arguments, the offset zero-padded, the kind a "%return" made),
 * and the listed line, as a removal, removes exactly that probe.
 */
static void accepted_definition_is_listed(struct kunit *test)
{
	const struct tupk_listing_case *c = test->param_value;
	char *line = tupk_alloc(test, TUPK_LINE_MAX);

	tupk_need_target(test);
	if (c->regs && !TUPK_HAVE_REGS)
		kunit_skip(test, "no register names known for this architecture");

	KUNIT_ASSERT_EQ_MSG(test, tupk_run(c->cmd), 0, "%s", c->cmd);
	KUNIT_ASSERT_TRUE(test, tupk_listing(c->group, c->event, line,
					     TUPK_LINE_MAX));
	KUNIT_EXPECT_STREQ(test, line, c->line);

	line[0] = '-';
	KUNIT_EXPECT_EQ_MSG(test, tupk_run(line), 0, "%s", line);
	KUNIT_EXPECT_FALSE(test, tupk_listing(c->group, c->event, line,
					      TUPK_LINE_MAX));
}

/* ---- refused definitions: errno, error_log code and caret ---- */

/* Events every refusal case starts from, to show they stay as they are */
static const char * const tupk_keepers[] = {
	"p:tupk/keep " TUPK_PATH ":0x10 x=$stack0:u32",
	"p:tupk/keep2 " TUPK_PATH ":0x20(0x40)",
};

struct tupk_refusal_case {
	const char *name;
	const char *cmd;	/* '^' marks the caret */
	int err;		/* errno */
	int code;		/* TP_ERR_* */
};

#define TUPK_REFUSE(n, c, e, code)	{ n, c, -(e), TP_ERR_##code }

static const struct tupk_refusal_case tupk_refusal_cases[] = {
	/* the kind and the probe point */
	TUPK_REFUSE("kind_not_p_or_r", "^px:tupk/ev " TUPK_PATH ":0x10",
		    EINVAL, BAD_PROBE_TYPE),
	TUPK_REFUSE("no_probe_point", "p:tupk/ev^", EINVAL, NO_PROBE_POINT),
	TUPK_REFUSE("no_such_file", "p:tupk/ev ^/tupk-no-such-file:0x10",
		    ENOENT, FILE_NOT_FOUND),
	TUPK_REFUSE("not_a_regular_file", "p:tupk/ev ^/:0x10", EINVAL,
		    NO_REGULAR_FILE),
	TUPK_REFUSE("path_not_absolute", "p:tupk/ev ^tupk-target:0x10", EINVAL,
		    BAD_UPROBE_SITE),
	TUPK_REFUSE("no_offset_at_all", "p:tupk/ev ^" TUPK_PATH, EINVAL,
		    BAD_UPROBE_SITE),
	TUPK_REFUSE("empty_offset", "p:tupk/ev " TUPK_PATH ":^", EINVAL,
		    BAD_UPROBE_OFFS),
	TUPK_REFUSE("offset_not_a_number", "p:tupk/ev " TUPK_PATH ":^0x10zz",
		    EINVAL, BAD_UPROBE_OFFS),
	TUPK_REFUSE("offset_at_end_of_file", "p:tupk/ev " TUPK_PATH ":^0x1000",
		    EINVAL, BAD_UPROBE_OFFS),
	TUPK_REFUSE("offset_past_end_of_file",
		    "p:tupk/ev " TUPK_PATH ":^0x100000", EINVAL,
		    BAD_UPROBE_OFFS),
	TUPK_REFUSE("unknown_suffix", "p:tupk/ev " TUPK_PATH ":0x10^%hoge",
		    EINVAL, BAD_ADDR_SUFFIX),
	/* the reference counter */
	TUPK_REFUSE("ref_ctr_without_close", "p:tupk/ev " TUPK_PATH
		    ":0x10(0x20^", EINVAL, REFCNT_OPEN_BRACE),
	TUPK_REFUSE("ref_ctr_followed_by_text", "p:tupk/ev " TUPK_PATH
		    ":0x10(0x20)^x", EINVAL, BAD_REFCNT_SUFFIX),
	TUPK_REFUSE("ref_ctr_not_a_number", "p:tupk/ev " TUPK_PATH
		    ":0x10(^zz)", EINVAL, BAD_REFCNT),
	TUPK_REFUSE("ref_ctr_where_others_have_none", "p:tupk/ev " TUPK_PATH
		    ":0x10(^0x20)", EINVAL, BAD_REFCNT),
	TUPK_REFUSE("no_ref_ctr_where_others_have_one", "p:tupk/ev " TUPK_PATH
		    ":^0x20", EINVAL, BAD_REFCNT),
	/* names */
	TUPK_REFUSE("group_without_name", "p:^/ev " TUPK_PATH ":0x10", EINVAL,
		    NO_GROUP_NAME),
	TUPK_REFUSE("bad_event_name", "p:tupk/^ev.1 " TUPK_PATH ":0x10",
		    EINVAL, BAD_EVENT_NAME),
	TUPK_REFUSE("name_of_a_non_uprobe_event",
		    "^p:sched/sched_switch " TUPK_PATH ":0x10", EEXIST,
		    EVENT_EXIST),
	/* fetch arguments */
	TUPK_REFUSE("bad_fetch_arg_after_good_one",
		    "p:tupk/ev " TUPK_PATH ":0x10 x=$stack0 ^&1", EINVAL,
		    BAD_FETCH_ARG),
	TUPK_REFUSE("unknown_register", "p:tupk/ev " TUPK_PATH
		    ":0x10 ^%nosuchreg", EINVAL, BAD_REG_NAME),
	TUPK_REFUSE("kernel_symbol", "p:tupk/ev " TUPK_PATH ":0x10 ^@kfree",
		    EINVAL, SYM_ON_UPROBE),
	TUPK_REFUSE("retval_on_entry_probe", "p:tupk/ev " TUPK_PATH
		    ":0x10 ^$retval", EINVAL, RETVAL_ON_PROBE),
	TUPK_REFUSE("unknown_type", "p:tupk/ev " TUPK_PATH
		    ":0x10 x=$stack0:^u7", EINVAL, BAD_TYPE),
	TUPK_REFUSE("symbol_type", "p:tupk/ev " TUPK_PATH
		    ":0x10 x=$stack0:^symbol", EINVAL, BAD_TYPE),
	TUPK_REFUSE("string_not_from_memory", "p:tupk/ev " TUPK_PATH
		    ":0x10 $stack0:^string", EINVAL, BAD_STRING),
	TUPK_REFUSE("argument_name_twice", "p:tupk/ev " TUPK_PATH
		    ":0x10 a=$stack0 ^a=$stack1", EINVAL, USED_ARG_NAME),
	TUPK_REFUSE("bad_argument_name", "p:tupk/ev " TUPK_PATH
		    ":0x10 ^1a=$stack0", EINVAL, BAD_ARG_NAME),
	/* a second probe with the name of an existing uprobe event */
	TUPK_REFUSE("same_name_other_kind", "^r:tupk/keep " TUPK_PATH
		    ":0x30 x=$stack0:u32", EEXIST, DIFF_PROBE_TYPE),
	TUPK_REFUSE("same_name_other_argument_type", "p:tupk/keep " TUPK_PATH
		    ":0x30 ^x=$stack0:u16", EEXIST, DIFF_ARG_TYPE),
	TUPK_REFUSE("same_name_more_arguments", "p:tupk/keep " TUPK_PATH
		    ":0x30 x=$stack0:u32 ^y=$stack1", EEXIST, DIFF_ARG_TYPE),
	TUPK_REFUSE("same_probe_twice", "^p:tupk/keep " TUPK_PATH
		    ":0x10 x=$stack0:u32", EEXIST, SAME_PROBE),
};

static void tupk_refusal_desc(const struct tupk_refusal_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tupk_refusal, tupk_refusal_cases, tupk_refusal_desc);

/* Define the keepers; return uprobe_events' listing of them. */
static char *tupk_define_keepers(struct kunit *test)
{
	char *before = tupk_alloc(test, TUPK_LIST_MAX);
	int i;

	for (i = 0; i < ARRAY_SIZE(tupk_keepers); i++)
		KUNIT_ASSERT_EQ_MSG(test, tupk_run(tupk_keepers[i]), 0, "%s",
				    tupk_keepers[i]);
	KUNIT_ASSERT_TRUE(test, tupk_list_all(before, TUPK_LIST_MAX));
	return before;
}

/* The uprobe events are still exactly those listed in @before. */
static void tupk_expect_unchanged(struct kunit *test, const char *before)
{
	char *after = tupk_alloc(test, TUPK_LIST_MAX);

	KUNIT_ASSERT_TRUE(test, tupk_list_all(after, TUPK_LIST_MAX));
	KUNIT_EXPECT_STREQ(test, after, before);
}

/*
 * Run @marked without its '^' and check the errno, the code of the
 * error_log entry and that its caret is where the '^' was.
 */
static void tupk_expect_refusal(struct kunit *test, const char *marked,
				int err, int code)
{
	const char *caret = strchr(marked, '^');
	struct tprobe_log_last last;
	char *cmd;

	KUNIT_ASSERT_NOT_NULL(test, caret);
	cmd = tupk_alloc(test, strlen(marked));
	memcpy(cmd, marked, caret - marked);
	memcpy(cmd + (caret - marked), caret + 1, strlen(caret + 1) + 1);

	KUNIT_EXPECT_EQ_MSG(test, tupk_run(cmd), err, "%s", cmd);
	tprobe_log_get_last(&last);
	KUNIT_EXPECT_EQ_MSG(test, last.err, code, "%s", cmd);
	KUNIT_EXPECT_EQ_MSG(test, last.pos, (int)(caret - marked), "%s", cmd);
}

/* A refused line leaves an error_log entry and every event as it was. */
static void refused_definition_is_logged(struct kunit *test)
{
	const struct tupk_refusal_case *c = test->param_value;
	char *before;

	tupk_need_target(test);
	before = tupk_define_keepers(test);
	tupk_expect_refusal(test, c->cmd, c->err, c->code);
	tupk_expect_unchanged(test, before);
}

/* 128 arguments are accepted; one more is refused, caret on the 129th. */
static void too_many_arguments_are_logged(struct kunit *test)
{
	size_t room = 64 + (MAX_TRACE_ARGS + 1) * 12;
	char *cmd = tupk_alloc(test, room);
	char *before;
	size_t len;
	int i;

	tupk_need_target(test);
	before = tupk_define_keepers(test);

	len = scnprintf(cmd, room, "p:tupk/many %s:0x30", TUPK_PATH);
	for (i = 0; i < MAX_TRACE_ARGS; i++)
		len += scnprintf(cmd + len, room - len, " $stack%d", i);
	KUNIT_EXPECT_EQ(test, tupk_run(cmd), 0);
	KUNIT_EXPECT_EQ(test, tupk_run("-:tupk/many"), 0);

	len = scnprintf(cmd, room, "p:tupk/many %s:0x30", TUPK_PATH);
	for (i = 0; i <= MAX_TRACE_ARGS; i++)
		len += scnprintf(cmd + len, room - len, " %s$stack%d",
				 i == MAX_TRACE_ARGS ? "^" : "", i);
	KUNIT_ASSERT_LT(test, len, room - 1);
	tupk_expect_refusal(test, cmd, -E2BIG, TP_ERR_TOO_MANY_ARGS);
	tupk_expect_unchanged(test, before);
}

/*
 * A removal names an existing event, and the probe by its site and
 * arguments as listed; anything else is refused with ENOENT, without an
 * error_log entry, and removes nothing.
 */
static void removal_of_unknown_probe_is_refused(struct kunit *test)
{
	static const char * const misses[] = {
		"-:tupk/nosuch",
		"-:nosuchgroup/keep",
		"-:tupk/keep " TUPK_PATH ":0x10",
		"-:tupk/keep " TUPK_PATH ":" TUPK_PAD "020 x=$stack0:u32",
		"-:tupk/keep " TUPK_PATH ":" TUPK_PAD "010 x=$stack1:u32",
		"-:tupk/keep " TUPK_PATH ":" TUPK_PAD "010 y=$stack0:u32",
	};
	struct tprobe_log_last last;
	char *before, *line;
	int i;

	tupk_need_target(test);
	before = tupk_define_keepers(test);
	line = tupk_alloc(test, TUPK_LINE_MAX);

	for (i = 0; i < ARRAY_SIZE(misses); i++) {
		KUNIT_EXPECT_EQ_MSG(test, tupk_run(misses[i]), -ENOENT, "%s",
				    misses[i]);
		tprobe_log_get_last(&last);
		KUNIT_EXPECT_EQ_MSG(test, last.err, -1, "%s", misses[i]);
	}
	tupk_expect_unchanged(test, before);

	KUNIT_EXPECT_EQ(test, tupk_run("-:tupk/keep " TUPK_PATH ":" TUPK_PAD
				       "010 x=$stack0:u32"), 0);
	KUNIT_EXPECT_FALSE(test, tupk_listing(TUPK_GROUP, "keep", line,
					      TUPK_LINE_MAX));
	KUNIT_EXPECT_TRUE(test, tupk_listing(TUPK_GROUP, "keep2", line,
					     TUPK_LINE_MAX));
}

/*
 * Probes with the same name, kind and argument names and types join one
 * event, each listed on its own line; a removal that names a site and
 * arguments takes that probe only, one that names the event all of them.
 */
static void sibling_probes_share_an_event(struct kunit *test)
{
	static const char want[] =
		"p:tupk/sib " TUPK_PATH ":" TUPK_PAD "010 x=$stack0:u32\n"
		"p:tupk/sib " TUPK_PATH ":" TUPK_PAD "020 x=$stack1:u32";
	char *list = tupk_alloc(test, TUPK_LIST_MAX);
	char *line = tupk_alloc(test, TUPK_LINE_MAX);

	tupk_need_target(test);
	KUNIT_ASSERT_EQ(test, tupk_run("p:tupk/sib " TUPK_PATH
				       ":0x10 x=$stack0:u32"), 0);
	KUNIT_ASSERT_EQ(test, tupk_run("p:tupk/sib " TUPK_PATH
				       ":0x20 x=$stack1:u32"), 0);
	KUNIT_ASSERT_TRUE(test, tupk_list_all(list, TUPK_LIST_MAX));
	KUNIT_EXPECT_STREQ(test, list, want);

	KUNIT_EXPECT_EQ(test, tupk_run("-:tupk/sib " TUPK_PATH ":" TUPK_PAD
				       "010 x=$stack0:u32"), 0);
	KUNIT_ASSERT_TRUE(test, tupk_listing(TUPK_GROUP, "sib", line,
					     TUPK_LINE_MAX));
	KUNIT_EXPECT_STREQ(test, line, "p:tupk/sib " TUPK_PATH ":" TUPK_PAD
			   "020 x=$stack1:u32");

	KUNIT_EXPECT_EQ(test, tupk_run("p:tupk/sib " TUPK_PATH
				       ":0x30 x=$stack2:u32"), 0);
	KUNIT_EXPECT_EQ(test, tupk_run("-:tupk/sib"), 0);
	KUNIT_EXPECT_FALSE(test, tupk_listing(TUPK_GROUP, "sib", line,
					      TUPK_LINE_MAX));
	KUNIT_EXPECT_EQ(test, tupk_run("-:tupk/sib"), -ENOENT);
}

/* ---- the record: address fields, then the arguments packed ---- */

/* One argument as defined, and the field it must make */
struct tupk_field_want {
	const char *arg;
	const char *name;
	const char *type;
	int size;
	bool is_signed;
};

/* "@head ARG..." with the arguments of @want, in their order */
static char *tupk_def(struct kunit *test, const char *head,
		      const struct tupk_field_want *want, int n)
{
	char *cmd = tupk_alloc(test, TUPK_LINE_MAX);
	size_t len;
	int i;

	len = scnprintf(cmd, TUPK_LINE_MAX, "%s", head);
	for (i = 0; i < n; i++)
		len += scnprintf(cmd + len, TUPK_LINE_MAX - len, " %s",
				 want[i].arg);
	KUNIT_ASSERT_LT(test, len, (size_t)TUPK_LINE_MAX - 1);
	return cmd;
}

static struct trace_event_call *tupk_call(const char *event, int *args_size)
{
	struct trace_event_call *call = NULL;
	struct trace_uprobe *tu;

	mutex_lock(&event_mutex);
	tu = trace_uprobe_find(event, TUPK_GROUP);
	if (tu) {
		call = trace_probe_event_call(&tu->tp);
		*args_size = tu->tp.size;
	}
	mutex_unlock(&event_mutex);
	return call;
}

static struct ftrace_event_field *tupk_field(struct trace_event_call *call,
					     const char *name)
{
	return trace_find_event_field(call, (char *)name);
}

/* An address field ("unsigned long") at @offset. */
static void tupk_expect_addr_field(struct kunit *test,
				   struct trace_event_call *call,
				   const char *name, int offset)
{
	struct ftrace_event_field *f = tupk_field(call, name);

	KUNIT_ASSERT_NOT_NULL_MSG(test, f, "%s", name);
	KUNIT_EXPECT_STREQ(test, f->type, "unsigned long");
	KUNIT_EXPECT_EQ_MSG(test, f->offset, offset, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, f->size, (int)sizeof(unsigned long), "%s",
			    name);
}

/*
 * The argument fields start at @header and follow each other without
 * padding, in the order of the arguments, each as big as its type (a
 * string is a 4-byte data_loc, declared signed); the fixed part of the
 * record the hit path reserves ends with the last of them.
 */
static void tupk_expect_arg_fields(struct kunit *test,
				   struct trace_event_call *call, int header,
				   int args_size,
				   const struct tupk_field_want *want, int n)
{
	int i, offset = header;

	for (i = 0; i < n; i++) {
		struct ftrace_event_field *f = tupk_field(call, want[i].name);

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
	KUNIT_EXPECT_EQ(test, header + args_size, offset);
}

static void entry_record_layout(struct kunit *test)
{
	static const struct tupk_field_want args[] = {
		{ "a=$stack0:u8", "a", "u8", 1, false },
		{ "b=$stack1:s16", "b", "s16", 2, true },
		{ "c=$stack2:x32", "c", "u32", 4, false },
		{ "d=$stack3:s64", "d", "s64", 8, true },
		{ "s=+0($stack):string", "s", "__data_loc char[]", 4, true },
		{ "e=@+0x20:u32", "e", "u32", 4, false },
		{ "f=$stack4:b3@4/16", "f", "u16", 2, false },
		{ "g=+8($stack):u16[3]", "g", "u16[3]", 6, false },
		{ "h=$comm", "h", "__data_loc char[]", 4, true },
	};
	int header = sizeof(struct trace_entry) + sizeof(unsigned long);
	struct trace_event_call *call;
	int args_size = -1;

	tupk_need_target(test);
	KUNIT_ASSERT_EQ(test, tupk_run(tupk_def(test, "p:tupk/lay " TUPK_PATH
						":0x10", args,
						ARRAY_SIZE(args))), 0);
	call = tupk_call("lay", &args_size);
	KUNIT_ASSERT_NOT_NULL(test, call);

	tupk_expect_addr_field(test, call, "__probe_ip",
			       sizeof(struct trace_entry));
	KUNIT_EXPECT_NULL(test, tupk_field(call, "__probe_func"));
	KUNIT_EXPECT_NULL(test, tupk_field(call, "__probe_ret_ip"));
	tupk_expect_arg_fields(test, call, header, args_size, args,
			       ARRAY_SIZE(args));
}

static void return_record_layout(struct kunit *test)
{
	static const struct tupk_field_want args[] = {
		{ "rv=$retval:s32", "rv", "s32", 4, true },
		{ "w=$stack0:u8", "w", "u8", 1, false },
		{ "p=+0($stack):ustring", "p", "__data_loc char[]", 4, true },
		{ "q=$retval:x64", "q", "u64", 8, false },
	};
	int header = sizeof(struct trace_entry) + 2 * sizeof(unsigned long);
	struct trace_event_call *call;
	int args_size = -1;

	tupk_need_target(test);
	KUNIT_ASSERT_EQ(test, tupk_run(tupk_def(test, "r:tupk/rlay " TUPK_PATH
						":0x10", args,
						ARRAY_SIZE(args))), 0);
	call = tupk_call("rlay", &args_size);
	KUNIT_ASSERT_NOT_NULL(test, call);

	tupk_expect_addr_field(test, call, "__probe_func",
			       sizeof(struct trace_entry));
	tupk_expect_addr_field(test, call, "__probe_ret_ip",
			       sizeof(struct trace_entry) +
			       sizeof(unsigned long));
	KUNIT_EXPECT_NULL(test, tupk_field(call, "__probe_ip"));
	tupk_expect_arg_fields(test, call, header, args_size, args,
			       ARRAY_SIZE(args));
}

/* ---- an enabled event ---- */

/* How many probes of TUPK_GROUP/@event hold a uprobe; -1: no such event */
static int tupk_armed_locked(const char *event)
{
	struct trace_uprobe *tu, *sib;
	int n = -1;

	lockdep_assert_held(&event_mutex);
	tu = trace_uprobe_find(event, TUPK_GROUP);
	if (tu) {
		n = 0;
		list_for_each_entry(sib, trace_probe_probe_list(&tu->tp), tp.list)
			n += !!sib->uprobe;
	}
	return n;
}

static int tupk_armed(const char *event)
{
	int n;

	mutex_lock(&event_mutex);
	n = tupk_armed_locked(event);
	mutex_unlock(&event_mutex);
	return n;
}

/*
 * While its event is enabled, each probe is registered with the uprobes
 * core, a probe that joins is registered at once, and no probe can be
 * removed, not even one of several; once disabled, none is registered
 * and all can go.
 */
static void enabled_event_keeps_its_probes(struct kunit *test)
{
	static const char second[] = "p:tupk/busy " TUPK_PATH ":0x20 x=$stack1";
	struct trace_array *tr;
	char *before;

	tupk_need_target(test);
	KUNIT_ASSERT_EQ(test, tupk_run("p:tupk/busy " TUPK_PATH
				       ":0x10 x=$stack0"), 0);
	KUNIT_EXPECT_EQ(test, tupk_armed("busy"), 0);

	tr = trace_array_get_by_name(TUPK_INSTANCE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, tr);
	test->priv = tr;
	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(tr, TUPK_GROUP, "busy",
							true), 0);
	KUNIT_EXPECT_EQ(test, tupk_armed("busy"), 1);

	KUNIT_EXPECT_EQ(test, tupk_run(second), 0);
	KUNIT_EXPECT_EQ(test, tupk_armed("busy"), 2);

	before = tupk_alloc(test, TUPK_LIST_MAX);
	KUNIT_ASSERT_TRUE(test, tupk_list_all(before, TUPK_LIST_MAX));
	KUNIT_EXPECT_EQ(test, tupk_run("-:tupk/busy " TUPK_PATH ":" TUPK_PAD
				       "020 x=$stack1"), -EBUSY);
	KUNIT_EXPECT_EQ(test, tupk_run("-:tupk/busy"), -EBUSY);
	tupk_expect_unchanged(test, before);

	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(tr, TUPK_GROUP, "busy",
							false), 0);
	KUNIT_EXPECT_EQ(test, tupk_armed("busy"), 0);
	KUNIT_EXPECT_EQ(test, tupk_run("-:tupk/busy " TUPK_PATH ":" TUPK_PAD
				       "020 x=$stack1"), 0);
	KUNIT_EXPECT_EQ(test, tupk_run("-:tupk/busy"), 0);
	KUNIT_EXPECT_EQ(test, tupk_armed("busy"), -1);
}

/* ---- disables batched by one write ---- */

/*
 * Inside an event batch a disable leaves its wait pending, and an enable
 * only queues its probes.  The end of the batch settles the waits first
 * and arms the queue after them (a consumer must never go back on a
 * uprobe's list while a handler may still stand on its old place), all
 * before the write would return.
 */
static void batched_disable_settles_before_rearm_and_end(struct kunit *test)
{
	static const char * const names[] = { "bat0", "bat1", "bat2" };
	struct trace_event_file *file[ARRAY_SIZE(names)];
	struct trace_array *tr;
	unsigned int puts_mid, puts_rearm, puts_last, puts_end;
	bool sync_mid, sync_rearm, sync_last, sync_end;
	int armed_rearm, armed_last;
	char cmd[TUPK_LINE_MAX];
	unsigned int i;
	int ret[4];

	tupk_need_target(test);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(cmd, sizeof(cmd), "p:" TUPK_GROUP "/%s " TUPK_PATH
			 ":0x%x", names[i], 0x10 * (i + 1));
		KUNIT_ASSERT_EQ(test, tupk_run(cmd), 0);
	}
	tr = trace_array_get_by_name(TUPK_INSTANCE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, tr);
	test->priv = tr;
	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(tr, TUPK_GROUP, NULL,
							true), 0);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		KUNIT_ASSERT_EQ(test, tupk_armed(names[i]), 1);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		file[i] = trace_get_event_file(TUPK_INSTANCE, TUPK_GROUP,
					       names[i]);
		if (IS_ERR(file[i]))
			break;
	}
	if (i < ARRAY_SIZE(names)) {
		KUNIT_FAIL(test, "no event file for " TUPK_GROUP "/%s",
			   names[i]);
		while (i--)
			trace_put_event_file(file[i]);
		return;
	}

	mutex_lock(&event_mutex);
	trace_event_batch_begin();
	ret[0] = trace_event_enable_disable(file[0], 0, 0);
	ret[1] = trace_event_enable_disable(file[1], 0, 0);
	puts_mid = uprobe_event_pending(&sync_mid);
	/* enabled again inside the batch: queued, the wait still pending */
	ret[2] = trace_event_enable_disable(file[0], 1, 0);
	puts_rearm = uprobe_event_pending(&sync_rearm);
	armed_rearm = tupk_armed_locked("bat0");
	trace_event_enable_disable(file[2], 0, 0);
	puts_last = uprobe_event_pending(&sync_last);
	armed_last = tupk_armed_locked("bat0");
	ret[3] = trace_event_batch_end();
	puts_end = uprobe_event_pending(&sync_end);
	mutex_unlock(&event_mutex);

	for (i = 0; i < ARRAY_SIZE(names); i++)
		trace_put_event_file(file[i]);

	KUNIT_EXPECT_EQ(test, ret[0], 0);
	KUNIT_EXPECT_EQ(test, ret[1], 0);
	KUNIT_EXPECT_EQ(test, ret[2], 0);
	KUNIT_EXPECT_EQ(test, ret[3], 0);
	KUNIT_EXPECT_EQ(test, puts_mid, 2U);
	KUNIT_EXPECT_TRUE(test, sync_mid);
	KUNIT_EXPECT_EQ(test, puts_rearm, 2U);
	KUNIT_EXPECT_TRUE(test, sync_rearm);
	KUNIT_EXPECT_EQ(test, armed_rearm, 0);
	KUNIT_EXPECT_EQ(test, puts_last, 3U);
	KUNIT_EXPECT_TRUE(test, sync_last);
	KUNIT_EXPECT_EQ(test, armed_last, 0);
	KUNIT_EXPECT_EQ(test, puts_end, 0U);
	KUNIT_EXPECT_FALSE(test, sync_end);
	KUNIT_EXPECT_EQ(test, tupk_armed("bat0"), 1);
	KUNIT_EXPECT_EQ(test, tupk_armed("bat1"), 0);
	KUNIT_EXPECT_EQ(test, tupk_armed("bat2"), 0);
}

/*
 * An enable inside a batch is armed at the batch's end; one whose probe
 * the uprobes core refuses there (a reference counter at an odd offset)
 * makes the file's batch fail, so the file's probes are armed one by one:
 * the good ones are armed, the bad one's event is disabled again (its
 * file no longer enabled, its scratch reference given back, no claim
 * left: it can be removed) and the end returns the error for the write.
 * An event enabled and disabled again within the batch was only queued:
 * there is nothing of it to wait for.
 */
static void failed_enable_in_batch_gives_back_its_share(struct kunit *test)
{
	static const char * const defs[] = {
		"p:" TUPK_GROUP "/fa0 " TUPK_PATH ":0x10",
		"p:" TUPK_GROUP "/fbad " TUPK_PATH ":0x40(0x21)",
		"p:" TUPK_GROUP "/fa1 " TUPK_PATH ":0x20",
	};
	static const char * const names[] = { "fa0", "fbad", "fa1" };
	struct trace_event_file *file[ARRAY_SIZE(names)];
	unsigned int puts_bad, puts_next, puts_off, puts_end, i;
	bool sync_bad, sync_next, sync_off, sync_end, bad_enabled;
	int armed_next, armed_end;
	struct trace_array *tr;
	int ret[5];

	tupk_need_target(test);
	for (i = 0; i < ARRAY_SIZE(defs); i++)
		KUNIT_ASSERT_EQ(test, tupk_run(defs[i]), 0);
	tr = trace_array_get_by_name(TUPK_INSTANCE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, tr);
	test->priv = tr;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		file[i] = trace_get_event_file(TUPK_INSTANCE, TUPK_GROUP,
					       names[i]);
		if (IS_ERR(file[i]))
			break;
	}
	if (i < ARRAY_SIZE(names)) {
		KUNIT_FAIL(test, "no event file for " TUPK_GROUP "/%s",
			   names[i]);
		while (i--)
			trace_put_event_file(file[i]);
		return;
	}

	mutex_lock(&event_mutex);
	trace_event_batch_begin();
	ret[0] = trace_event_enable_disable(file[0], 1, 0);
	ret[1] = trace_event_enable_disable(file[1], 1, 0);
	puts_bad = uprobe_event_pending(&sync_bad);
	ret[2] = trace_event_enable_disable(file[2], 1, 0);
	puts_next = uprobe_event_pending(&sync_next);
	armed_next = tupk_armed_locked("fa1");
	ret[3] = trace_event_enable_disable(file[0], 0, 0);
	puts_off = uprobe_event_pending(&sync_off);
	ret[4] = trace_event_batch_end();
	puts_end = uprobe_event_pending(&sync_end);
	armed_end = tupk_armed_locked("fa1");
	bad_enabled = file[1]->flags & EVENT_FILE_FL_ENABLED;
	mutex_unlock(&event_mutex);

	for (i = 0; i < ARRAY_SIZE(names); i++)
		trace_put_event_file(file[i]);

	KUNIT_EXPECT_EQ(test, ret[0], 0);
	KUNIT_EXPECT_EQ(test, ret[1], 0);
	KUNIT_EXPECT_EQ(test, ret[2], 0);
	KUNIT_EXPECT_EQ(test, ret[3], 0);
	KUNIT_EXPECT_EQ(test, ret[4], -EINVAL);
	/* the enables only queued their probes */
	KUNIT_EXPECT_EQ(test, puts_bad, 0U);
	KUNIT_EXPECT_FALSE(test, sync_bad);
	KUNIT_EXPECT_EQ(test, puts_next, 0U);
	KUNIT_EXPECT_FALSE(test, sync_next);
	KUNIT_EXPECT_EQ(test, armed_next, 0);
	/* fa0 was never registered, so there is nothing to wait for */
	KUNIT_EXPECT_EQ(test, puts_off, 1U);
	KUNIT_EXPECT_FALSE(test, sync_off);
	KUNIT_EXPECT_EQ(test, puts_end, 0U);
	KUNIT_EXPECT_FALSE(test, sync_end);
	KUNIT_EXPECT_EQ(test, armed_end, 1);
	KUNIT_EXPECT_FALSE(test, bad_enabled);
	KUNIT_EXPECT_EQ(test, tupk_armed("fa0"), 0);
	KUNIT_EXPECT_EQ(test, tupk_armed("fbad"), 0);
	KUNIT_EXPECT_EQ(test, tupk_armed("fa1"), 1);
	/* no claim left behind: the failed event goes */
	KUNIT_EXPECT_EQ(test, tupk_run("-:" TUPK_GROUP "/fbad"), 0);
}

/*
 * A file in soft mode arms at once even inside a batch, and takes along
 * the probes an earlier enable of the batch queued: the event core could
 * not undo a soft-mode file at the batch's end.  Instance TUPK_INSTANCE
 * enables the event normally (queued), the top-level instance in soft
 * mode (armed there and then).
 */
static void soft_mode_enable_in_batch_arms_at_once(struct kunit *test)
{
	struct trace_event_file *inst, *top;
	int armed_queued, armed_soft, armed_end, armed_soft_off, armed_off;
	struct trace_array *tr;
	int ret[5];

	tupk_need_target(test);
	KUNIT_ASSERT_EQ(test, tupk_run("p:" TUPK_GROUP "/soft " TUPK_PATH
				       ":0x10"), 0);
	tr = trace_array_get_by_name(TUPK_INSTANCE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, tr);
	test->priv = tr;
	inst = trace_get_event_file(TUPK_INSTANCE, TUPK_GROUP, "soft");
	KUNIT_ASSERT_FALSE(test, IS_ERR(inst));
	top = trace_get_event_file(NULL, TUPK_GROUP, "soft");
	if (IS_ERR(top)) {
		trace_put_event_file(inst);
		KUNIT_FAIL(test, "no top-level event file: %ld", PTR_ERR(top));
		return;
	}

	mutex_lock(&event_mutex);
	trace_event_batch_begin();
	ret[0] = trace_event_enable_disable(inst, 1, 0);
	armed_queued = tupk_armed_locked("soft");
	ret[1] = trace_event_enable_disable(top, 1, 1);
	armed_soft = tupk_armed_locked("soft");
	ret[2] = trace_event_batch_end();
	armed_end = tupk_armed_locked("soft");
	/* the soft user goes; the instance still wants the probe */
	ret[3] = trace_event_enable_disable(top, 0, 1);
	armed_soft_off = tupk_armed_locked("soft");
	ret[4] = trace_event_enable_disable(inst, 0, 0);
	armed_off = tupk_armed_locked("soft");
	mutex_unlock(&event_mutex);

	trace_put_event_file(top);
	trace_put_event_file(inst);

	KUNIT_EXPECT_EQ(test, ret[0], 0);
	KUNIT_EXPECT_EQ(test, ret[1], 0);
	KUNIT_EXPECT_EQ(test, ret[2], 0);
	KUNIT_EXPECT_EQ(test, ret[3], 0);
	KUNIT_EXPECT_EQ(test, ret[4], 0);
	KUNIT_EXPECT_EQ(test, armed_queued, 0);
	KUNIT_EXPECT_EQ(test, armed_soft, 1);
	KUNIT_EXPECT_EQ(test, armed_end, 1);
	KUNIT_EXPECT_EQ(test, armed_soft_off, 1);
	KUNIT_EXPECT_EQ(test, armed_off, 0);
}

/* ---- perf's close drains the perf part of the event's hits ---- */

/* A close that must still be waiting has waited this long at least. */
#define TUPK_STILL_WAITING	(2 * HZ)
/* What must finish does within this. */
#define TUPK_FINISHES		(30 * HZ)

/*
 * One event counted by perf, and the threads of a case: hits on the
 * counter's CPU, a hit held in the perf part of its handler, a close.
 */
struct tupk_drain {
	struct trace_uprobe	*tu;
	struct perf_event	*counter;
	int			cpu;
	unsigned int		hits;		/* hits to make */
	struct completion	hits_done;
	bool			held;		/* the held hit got in */
	struct completion	holding;	/* it tried */
	struct completion	release;	/* let it leave */
	struct completion	left;
	bool			close_by_perf;	/* else uprobe_perf_drain() */
	struct completion	closed;
};

static int tupk_hit_thread(void *data)
{
	struct tupk_drain *d = data;
	struct pt_regs regs = {};
	unsigned int i;

	for (i = 0; i < d->hits; i++)
		uprobe_dispatcher(&d->tu->consumer, &regs);
	complete(&d->hits_done);
	return 0;
}

/* A hit that stays in the perf part of its handler until released. */
static int tupk_held_hit_thread(void *data)
{
	struct tupk_drain *d = data;

	d->held = uprobe_perf_enter(d->tu);
	complete(&d->holding);
	if (d->held) {
		wait_for_completion(&d->release);
		uprobe_perf_leave(d->tu);
	}
	complete(&d->left);
	return 0;
}

static int tupk_close_thread(void *data)
{
	struct tupk_drain *d = data;

	if (d->close_by_perf) {
		perf_event_release_kernel(d->counter);
	} else {
		mutex_lock(&event_mutex);
		uprobe_perf_drain(&d->tu->tp);
		mutex_unlock(&event_mutex);
	}
	complete(&d->closed);
	return 0;
}

/* Start @fn(@d), on @cpu unless it is negative; NULL (and a failure) if not. */
static struct task_struct *tupk_start(struct kunit *test, int (*fn)(void *),
				      struct tupk_drain *d, int cpu)
{
	struct task_struct *task = kthread_create(fn, d, "tupk-drain");

	if (IS_ERR(task)) {
		KUNIT_FAIL(test, "kthread_create: %ld", PTR_ERR(task));
		return NULL;
	}
	if (cpu >= 0)
		kthread_bind(task, cpu);
	get_task_struct(task);
	wake_up_process(task);
	return task;
}

/* @task has signalled @done: reap it.  If it has not, leave it be. */
static bool tupk_join(struct kunit *test, struct task_struct *task,
		      struct completion *done)
{
	if (!task)
		return false;
	if (!wait_for_completion_timeout(done, TUPK_FINISHES)) {
		KUNIT_FAIL(test, "a thread of the case is stuck");
		return false;
	}
	kthread_stop_put(task);
	return true;
}

/* @n hits on the counter's CPU, one after the other. */
static void tupk_hits(struct kunit *test, struct tupk_drain *d, unsigned int n)
{
	reinit_completion(&d->hits_done);
	d->hits = n;
	tupk_join(test, tupk_start(test, tupk_hit_thread, d, d->cpu),
		  &d->hits_done);
}

static u64 tupk_count(struct tupk_drain *d)
{
	u64 enabled, running;

	return perf_event_read_value(d->counter, &enabled, &running);
}

/* Wait until the event is no longer enabled for perf. */
static bool tupk_profile_cleared(struct tupk_drain *d)
{
	unsigned long end = jiffies + TUPK_FINISHES;

	while (trace_probe_test_flag(&d->tu->tp, TP_FLAG_PROFILE)) {
		if (time_after(jiffies, end))
			return false;
		msleep(20);
	}
	return true;
}

/*
 * Define TUPK_GROUP/@event, a probe without arguments, unless it is
 * defined already, and open a perf counter of it on the first online CPU
 * (perf's tracepoint PMU, as for "perf stat -e"): the event is enabled
 * for perf, its probe armed.
 */
static struct tupk_drain *tupk_drain_open(struct kunit *test,
					  const char *event)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
	};
	char cmd[TUPK_LINE_MAX];
	struct tupk_drain *d;

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	init_completion(&d->hits_done);
	init_completion(&d->holding);
	init_completion(&d->release);
	init_completion(&d->left);
	init_completion(&d->closed);

	snprintf(cmd, sizeof(cmd), "p:" TUPK_GROUP "/%s " TUPK_PATH ":0x10",
		 event);
	if (tupk_armed(event) < 0)
		KUNIT_ASSERT_EQ(test, tupk_run(cmd), 0);
	mutex_lock(&event_mutex);
	d->tu = trace_uprobe_find(event, TUPK_GROUP);
	if (d->tu)
		attr.config = trace_probe_event_call(&d->tu->tp)->event.type;
	mutex_unlock(&event_mutex);
	KUNIT_ASSERT_NOT_NULL(test, d->tu);

	d->cpu = cpumask_first(cpu_online_mask);
	d->counter = perf_event_create_kernel_counter(&attr, d->cpu, NULL,
						      NULL, NULL);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(d->counter), "perf counter: %ld",
			       PTR_ERR(d->counter));
	KUNIT_EXPECT_TRUE(test, trace_probe_test_flag(&d->tu->tp,
						      TP_FLAG_PROFILE));
	KUNIT_EXPECT_EQ(test, tupk_armed(event), 1);
	return d;
}

/*
 * Start a thread whose hit stays in flight until @d->release; NULL (the
 * case failed and @d's counter closed) if no hit got held.
 */
static struct task_struct *tupk_hold_hit(struct kunit *test,
					 struct tupk_drain *d)
{
	struct task_struct *held;

	held = tupk_start(test, tupk_held_hit_thread, d, -1);
	if (!held || !wait_for_completion_timeout(&d->holding, TUPK_FINISHES)) {
		KUNIT_FAIL(test, "no hit held");
		perf_event_release_kernel(d->counter);
		return NULL;
	}
	KUNIT_EXPECT_TRUE(test, d->held);
	return held;
}

/*
 * perf's close of an event (here through the tracepoint PMU) returns
 * only after every hit in the perf part of the event's handler has left
 * it, though no grace period waits for such a hit: this one is held by a
 * thread that is in no RCU read section at all.  Once closed, a hit finds
 * the event closed, and the event can be opened and counted again.
 */
static void perf_close_waits_for_a_hit_in_flight(struct kunit *test)
{
	struct task_struct *held, *closer;
	bool waited, closed, entered;
	struct tupk_drain *d;

	tupk_need_target(test);
	d = tupk_drain_open(test, "drain");
	tupk_hits(test, d, 2);
	KUNIT_EXPECT_EQ(test, tupk_count(d), 2ULL);

	held = tupk_hold_hit(test, d);
	if (!held)
		return;

	d->close_by_perf = true;
	closer = tupk_start(test, tupk_close_thread, d, -1);
	if (!closer) {
		complete(&d->release);
		tupk_join(test, held, &d->left);
		perf_event_release_kernel(d->counter);
		return;
	}
	KUNIT_EXPECT_TRUE(test, tupk_profile_cleared(d));
	waited = !wait_for_completion_timeout(&d->closed, TUPK_STILL_WAITING);
	complete(&d->release);
	closed = tupk_join(test, closer, &d->closed);
	tupk_join(test, held, &d->left);

	KUNIT_EXPECT_TRUE_MSG(test, waited,
			      "perf's close returned with a hit in flight");
	if (!closed)
		return;
	KUNIT_EXPECT_EQ(test, atomic_read(&d->tu->perf_busy), 0);
	entered = uprobe_perf_enter(d->tu);
	if (entered)
		uprobe_perf_leave(d->tu);
	KUNIT_EXPECT_FALSE(test, entered);
	KUNIT_EXPECT_EQ(test, tupk_armed("drain"), 0);

	/* opened again, the event counts again */
	d = tupk_drain_open(test, "drain");
	tupk_hits(test, d, 1);
	KUNIT_EXPECT_EQ(test, tupk_count(d), 1ULL);
	perf_event_release_kernel(d->counter);
	KUNIT_EXPECT_EQ(test, tupk_armed("drain"), 0);
}

/*
 * While the drain of a close waits for a hit in flight, hits that come
 * later reach nothing of perf's: the counter, still open and on the CPU
 * they run on, counts none of them, and a hit that counted itself after
 * the flag went finds it gone and leaves.  The drain is called alone,
 * without the rest of the close, so that the counter stays in place to
 * count; the event is then given back to perf as it was and closed.
 */
static void hit_after_the_drain_began_reaches_nothing(struct kunit *test)
{
	struct task_struct *held, *closer;
	struct tupk_drain *d;
	bool entered;

	tupk_need_target(test);
	d = tupk_drain_open(test, "drain2");
	tupk_hits(test, d, 1);
	KUNIT_EXPECT_EQ(test, tupk_count(d), 1ULL);

	held = tupk_hold_hit(test, d);
	if (!held)
		return;

	d->close_by_perf = false;
	closer = tupk_start(test, tupk_close_thread, d, -1);
	if (closer && tupk_profile_cleared(d)) {
		tupk_hits(test, d, 3);
		KUNIT_EXPECT_EQ(test, tupk_count(d), 1ULL);
		entered = uprobe_perf_enter(d->tu);
		if (entered)
			uprobe_perf_leave(d->tu);
		KUNIT_EXPECT_FALSE(test, entered);
		KUNIT_EXPECT_EQ(test, atomic_read(&d->tu->perf_busy), 1);
		KUNIT_EXPECT_FALSE(test, completion_done(&d->closed));
	} else {
		KUNIT_FAIL(test, "the drain did not start");
	}
	complete(&d->release);
	tupk_join(test, held, &d->left);
	if (closer && !tupk_join(test, closer, &d->closed))
		return;

	mutex_lock(&event_mutex);
	trace_probe_set_flag(&d->tu->tp, TP_FLAG_PROFILE);
	mutex_unlock(&event_mutex);
	tupk_hits(test, d, 1);
	KUNIT_EXPECT_EQ(test, tupk_count(d), 2ULL);
	perf_event_release_kernel(d->counter);
	KUNIT_EXPECT_EQ(test, tupk_armed("drain2"), 0);
}

/*
 * A local probe of perf's uprobe PMU says that its close drains its own
 * handlers; its perf disable unregisters the probe and gives back the
 * scratch area without leaving anything pending, and destroying it hands
 * the memory to the worker, which frees it after its wait.
 */
static void local_probe_close_frees_after_the_wait(struct kunit *test)
{
	char path[] = TUPK_PATH;
	struct trace_event_call *call;
	unsigned long freed;
	bool armed, disarmed, enabled, sync;
	struct trace_uprobe *tu;
	unsigned int puts;
	int ret;

	tupk_need_target(test);
	call = create_local_trace_uprobe(path, 0x10, 0, false);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(call), "%ld", PTR_ERR(call));
	KUNIT_EXPECT_TRUE(test, call->flags & TRACE_EVENT_FL_PERF_DRAINS);
	tu = tu_of_call(call);
	freed = trace_uprobe_reap_flush();

	mutex_lock(&event_mutex);
	ret = call->class->reg(call, TRACE_REG_PERF_REGISTER, NULL);
	armed = tu && tu->uprobe;
	if (!ret)
		call->class->reg(call, TRACE_REG_PERF_UNREGISTER, NULL);
	disarmed = tu && !tu->uprobe;
	enabled = tu && trace_probe_is_enabled(&tu->tp);
	puts = uprobe_event_pending(&sync);
	mutex_unlock(&event_mutex);
	destroy_local_trace_uprobe(call);

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, armed);
	KUNIT_EXPECT_TRUE(test, disarmed);
	KUNIT_EXPECT_FALSE(test, enabled);
	KUNIT_EXPECT_EQ(test, puts, 0U);
	KUNIT_EXPECT_FALSE(test, sync);
	KUNIT_EXPECT_EQ(test, trace_uprobe_reap_flush(), freed + 1);
}

/* ---- uprobe_register_batch(): all or nothing ---- */

struct tupk_breg {
	loff_t offset, ref_ctr_offset;
	struct uprobe_consumer uc;
	struct uprobe *uprobe;
};

static int tupk_breg_handler(struct uprobe_consumer *self, struct pt_regs *regs)
{
	return 0;
}

static void tupk_breg_get(void *ctx, unsigned int i, struct uprobe_batch_reg *reg)
{
	struct tupk_breg *b = (struct tupk_breg *)ctx + i;

	reg->offset = b->offset;
	reg->ref_ctr_offset = b->ref_ctr_offset;
	reg->uc = &b->uc;
	reg->uprobe = &b->uprobe;
}

static struct uprobe *tupk_breg_put(void *ctx, unsigned int i,
				    struct uprobe_consumer **uc)
{
	struct tupk_breg *b = (struct tupk_breg *)ctx + i;

	*uc = &b->uc;
	return b->uprobe;
}

/*
 * No uprobe is left at @offset: a uprobe there already would refuse a
 * register with another ref_ctr_offset (-EINVAL), so one with an odd
 * ref_ctr_offset must succeed.
 */
static void tupk_expect_no_uprobe(struct kunit *test, struct inode *inode,
				  loff_t offset)
{
	struct uprobe_consumer uc = { .handler = tupk_breg_handler };
	struct uprobe *u;

	u = uprobe_register(inode, offset, 0x7e, &uc);
	KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(u), "a uprobe stayed at %#llx",
			       (unsigned long long)offset);
	if (IS_ERR(u))
		return;
	uprobe_unregister_nosync(u, &uc);
	uprobe_unregister_sync();
}

/* A batch @b of three is refused with @want, and leaves no uprobe. */
static void tupk_expect_batch_refused(struct kunit *test, struct inode *inode,
				      struct tupk_breg *b, int want)
{
	KUNIT_EXPECT_EQ(test, uprobe_register_batch(inode, 3, tupk_breg_get, b),
			want);
	KUNIT_EXPECT_NULL(test, b[0].uprobe);
	tupk_expect_no_uprobe(test, inode, b[0].offset);
	tupk_expect_no_uprobe(test, inode, b[1].offset);
}

static void batched_register_is_all_or_nothing(struct kunit *test)
{
	struct tupk_breg *b;
	struct inode *inode;
	struct path path;
	unsigned int i;
	int ret;

	tupk_need_target(test);
	KUNIT_ASSERT_EQ(test, kern_path(TUPK_PATH, LOOKUP_FOLLOW, &path), 0);
	inode = d_real_inode(path.dentry);
	b = kunit_kcalloc(test, 3, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	for (i = 0; i < 3; i++)
		b[i].uc.handler = tupk_breg_handler;

	/* a probe past the end of the file: refused before any is made */
	b[0].offset = 0x10;
	b[1].offset = 0x20;
	b[2].offset = TUPK_SIZE + 0x100;
	tupk_expect_batch_refused(test, inode, b, -EINVAL);

	/* two reference counters at one offset: what was made is undone */
	b[2].offset = 0x10;
	b[2].ref_ctr_offset = 0x40;
	tupk_expect_batch_refused(test, inode, b, -EINVAL);

	/* two consumers at one offset share its uprobe */
	b[2].ref_ctr_offset = 0;
	ret = uprobe_register_batch(inode, 3, tupk_breg_get, b);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (ret)
		goto out;
	KUNIT_EXPECT_NOT_NULL(test, b[1].uprobe);
	KUNIT_EXPECT_PTR_EQ(test, b[0].uprobe, b[2].uprobe);
	KUNIT_EXPECT_PTR_NE(test, b[0].uprobe, b[1].uprobe);
	uprobe_unregister_batch_nosync(3, tupk_breg_put, b);
	uprobe_unregister_sync();
	tupk_expect_no_uprobe(test, inode, 0x10);
out:
	path_put(&path);
}

static struct kunit_case tupk_cases[] = {
	KUNIT_CASE_PARAM(accepted_definition_is_listed,
			 tupk_listing_gen_params),
	KUNIT_CASE_PARAM(refused_definition_is_logged,
			 tupk_refusal_gen_params),
	KUNIT_CASE(too_many_arguments_are_logged),
	KUNIT_CASE(removal_of_unknown_probe_is_refused),
	KUNIT_CASE(sibling_probes_share_an_event),
	KUNIT_CASE(entry_record_layout),
	KUNIT_CASE(return_record_layout),
	KUNIT_CASE(enabled_event_keeps_its_probes),
	KUNIT_CASE(batched_disable_settles_before_rearm_and_end),
	KUNIT_CASE(failed_enable_in_batch_gives_back_its_share),
	KUNIT_CASE(soft_mode_enable_in_batch_arms_at_once),
	KUNIT_CASE_SLOW(perf_close_waits_for_a_hit_in_flight),
	KUNIT_CASE(hit_after_the_drain_began_reaches_nothing),
	KUNIT_CASE(local_probe_close_frees_after_the_wait),
	KUNIT_CASE(batched_register_is_all_or_nothing),
	{}
};

static struct kunit_suite tupk_suite = {
	.name = "trace_uprobe",
	.suite_init = tupk_suite_init,
	.suite_exit = tupk_suite_exit,
	.exit = tupk_exit,
	.test_cases = tupk_cases,
};

kunit_test_suite(tupk_suite);
