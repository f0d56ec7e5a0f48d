// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the probe-definition library (trace_probe*.c).
 *
 * The suite drives the library the way the kprobe, fprobe, eprobe and
 * uprobe front ends do: a trace_probe with room for its arguments is
 * initialised, the error log is pointed at a made-up command line, each
 * fetch argument is parsed with the front end's TPARG_FL_* flags, and the
 * print format and event fields are generated.  The tables state what a
 * user observes: the argument's name, type and canonical text, the fetch
 * program the argument compiles to, the print fmt and fields in the
 * event's format file, and for bad input the errno, the error-log code
 * and the caret position.
 *
 * Nothing is registered with tracefs.  The event fields made by
 * traceprobe_define_arg_fields() are released by the test itself, because
 * no event call owns them.  Expected values are those of a 64-bit
 * architecture (the x64 default type); register names, their pt_regs
 * offsets and the function-argument registers are the architecture's
 * (<asm/trace_kunit.h>, HAVE_ARCH_TRACE_KUNIT), through the TPK_R* macros
 * below.
 */
#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_seq.h>
#include <asm/trace_kunit.h>

#include "trace_probe_internal.h"

#define TPK_MAX_ARGS	8
#define TPK_EVENT	"kunit_event"
#define TPK_GROUP	"kunit"
/* Where the argument fields start in the made-up trace record. */
#define TPK_FIELD_BASE	24

/* The front ends' flag sets. */
#define UPROBE		TPARG_FL_USER
#define URETPROBE	(TPARG_FL_USER | TPARG_FL_RETURN)
#define KPROBE_FUNC	(TPARG_FL_KERNEL | TPARG_FL_FENTRY)
#define KPROBE_OFFS	TPARG_FL_KERNEL
#define KRETPROBE	(TPARG_FL_KERNEL | TPARG_FL_RETURN)
#define FPROBE		(TPARG_FL_KERNEL | TPARG_FL_FPROBE | TPARG_FL_FENTRY)
#define TPROBE		(FPROBE | TPARG_FL_TPOINT)
#define EPROBE		(TPARG_FL_KERNEL | TPARG_FL_TEVENT)

/*
 * The error log sees "p:kunit/kunit_event /bin/true:0x10 ARG...": the
 * arguments are words 2.. of the command, as in a uprobe definition.
 */
static const char * const tpk_cmd_head[] = { "p:" TPK_GROUP "/" TPK_EVENT, "/bin/true:0x10" };
#define TPK_HEAD_WORDS	ARRAY_SIZE(tpk_cmd_head)

/*
 * The registers the tables name, as the architecture spells them in a
 * fetch argument, and the pt_regs offset each one compiles to: seven
 * general registers, the stack pointer and the instruction pointer, from
 * <asm/trace_kunit.h>.  Every name is three characters long with its '%',
 * so the caret positions of the tables are the same on every architecture.
 */
#define TPK_R0		TRACE_KUNIT_REG0
#define TPK_R1		TRACE_KUNIT_REG1
#define TPK_R2		TRACE_KUNIT_REG2
#define TPK_R3		TRACE_KUNIT_REG3
#define TPK_R4		TRACE_KUNIT_REG4
#define TPK_R5		TRACE_KUNIT_REG5
#define TPK_R6		TRACE_KUNIT_REG6
#define TPK_SP		TRACE_KUNIT_REG_SP
#define TPK_PC		TRACE_KUNIT_REG_PC
#define TPK_R0_OFF	TRACE_KUNIT_REG0_OFFSET
#define TPK_R1_OFF	TRACE_KUNIT_REG1_OFFSET
#define TPK_R2_OFF	TRACE_KUNIT_REG2_OFFSET
#define TPK_R3_OFF	TRACE_KUNIT_REG3_OFFSET
#define TPK_R4_OFF	TRACE_KUNIT_REG4_OFFSET
#define TPK_R5_OFF	TRACE_KUNIT_REG5_OFFSET
#define TPK_R6_OFF	TRACE_KUNIT_REG6_OFFSET
#define TPK_SP_OFF	TRACE_KUNIT_REG_SP_OFFSET
#define TPK_PC_OFF	TRACE_KUNIT_REG_PC_OFFSET
/* A kernel frame whose first three function arguments are @a, @b, @c. */
#define TPK_ARG_REGS(a, b, c)	TRACE_KUNIT_ARG_REGS(a, b, c)

/* ---- expected fetch programs ---- */

/*
 * One expected fetch instruction.  Only the operands the op uses are
 * compared: @val is the param (REG, STACK, ARG, LP_ARRAY) or immediate
 * (IMM, FOFFS); @offset the dereference or store offset; @size the store
 * size; @bf the MOD_BF basesize, lshift and rshift; @data the string of
 * DATA and FETCH_NOP_SYMBOL.
 */
struct tpk_insn {
	enum fetch_op op;
	unsigned long val;
	int offset;
	unsigned int size;
	unsigned char bf[3];
	const char *data;
};

#define OP_REG(off)		{ .op = FETCH_OP_REG, .val = (off) }
#define OP_STACK(n)		{ .op = FETCH_OP_STACK, .val = (n) }
#define OP_STACKP		{ .op = FETCH_OP_STACKP }
#define OP_RETVAL		{ .op = FETCH_OP_RETVAL }
#define OP_IMM(v)		{ .op = FETCH_OP_IMM, .val = (unsigned long)(v) }
#define OP_COMM			{ .op = FETCH_OP_COMM }
#define OP_ARG(n)		{ .op = FETCH_OP_ARG, .val = (n) }
#define OP_FOFFS(v)		{ .op = FETCH_OP_FOFFS, .val = (v) }
#define OP_DATA(s)		{ .op = FETCH_OP_DATA, .data = (s) }
#define OP_EDATA(o)		{ .op = FETCH_OP_EDATA, .offset = (o) }
#define OP_SYMBOL(s)		{ .op = FETCH_NOP_SYMBOL, .data = (s) }
#define OP_DEREF(o)		{ .op = FETCH_OP_DEREF, .offset = (o) }
#define OP_ST_RAW(sz)		{ .op = FETCH_OP_ST_RAW, .size = (sz) }
#define OP_ST_MEM(o, sz)	{ .op = FETCH_OP_ST_MEM, .offset = (o), .size = (sz) }
#define OP_ST_UMEM(o, sz)	{ .op = FETCH_OP_ST_UMEM, .offset = (o), .size = (sz) }
#define OP_ST_STRING(o)		{ .op = FETCH_OP_ST_STRING, .offset = (o), .size = 4 }
#define OP_ST_USTRING(o)	{ .op = FETCH_OP_ST_USTRING, .offset = (o), .size = 4 }
#define OP_ST_SYMSTR(o)		{ .op = FETCH_OP_ST_SYMSTR, .offset = (o), .size = 4 }
#define OP_MOD_BF(b, l, r)	{ .op = FETCH_OP_MOD_BF, .bf = { (b), (l), (r) } }
#define OP_LP_ARRAY(n)		{ .op = FETCH_OP_LP_ARRAY, .val = (n) }
#define OP_END			{ .op = FETCH_OP_END }
/* A whole program: the listed instructions, then FETCH_OP_END. */
#define PROG(...)		((const struct tpk_insn[]){ __VA_ARGS__, OP_END })

static const char * const tpk_op_names[] = {
	[FETCH_OP_NOP] = "NOP",		[FETCH_OP_REG] = "REG",
	[FETCH_OP_STACK] = "STACK",	[FETCH_OP_STACKP] = "STACKP",
	[FETCH_OP_RETVAL] = "RETVAL",	[FETCH_OP_IMM] = "IMM",
	[FETCH_OP_COMM] = "COMM",	[FETCH_OP_ARG] = "ARG",
	[FETCH_OP_FOFFS] = "FOFFS",	[FETCH_OP_DATA] = "DATA",
	[FETCH_OP_EDATA] = "EDATA",	[FETCH_OP_DEREF] = "DEREF",
	[FETCH_OP_UDEREF] = "UDEREF",	[FETCH_OP_ST_RAW] = "ST_RAW",
	[FETCH_OP_ST_MEM] = "ST_MEM",	[FETCH_OP_ST_UMEM] = "ST_UMEM",
	[FETCH_OP_ST_STRING] = "ST_STRING", [FETCH_OP_ST_USTRING] = "ST_USTRING",
	[FETCH_OP_ST_SYMSTR] = "ST_SYMSTR", [FETCH_OP_ST_EDATA] = "ST_EDATA",
	[FETCH_OP_MOD_BF] = "MOD_BF",	[FETCH_OP_LP_ARRAY] = "LP_ARRAY",
	[FETCH_OP_TP_ARG] = "TP_ARG",	[FETCH_OP_END] = "END",
	[FETCH_NOP_SYMBOL] = "NOP_SYMBOL",
};

static const char *tpk_op_name(enum fetch_op op)
{
	if ((unsigned int)op < ARRAY_SIZE(tpk_op_names) && tpk_op_names[op])
		return tpk_op_names[op];
	return "?";
}

/* ---- helpers ---- */

/* A library string compared with NULL-safety; @what names it in messages. */
static void tpk_expect_str(struct kunit *test, const char *got,
			   const char *want, const char *what)
{
	if (!want) {
		KUNIT_EXPECT_NULL_MSG(test, got, "%s", what);
		return;
	}
	KUNIT_EXPECT_NOT_NULL_MSG(test, got, "%s", what);
	if (got)
		KUNIT_EXPECT_STREQ_MSG(test, got, want, "%s", what);
}

static void tpk_expect_operands(struct kunit *test, const struct fetch_insn *got,
				const struct tpk_insn *want, int i)
{
	switch (want->op) {
	case FETCH_OP_REG:
	case FETCH_OP_STACK:
	case FETCH_OP_ARG:
	case FETCH_OP_LP_ARRAY:
		KUNIT_EXPECT_EQ_MSG(test, got->param, want->val, "insn %d param", i);
		break;
	case FETCH_OP_IMM:
	case FETCH_OP_FOFFS:
		KUNIT_EXPECT_EQ_MSG(test, got->immediate, want->val, "insn %d imm", i);
		break;
	case FETCH_OP_DEREF:
	case FETCH_OP_UDEREF:
	case FETCH_OP_EDATA:
	case FETCH_OP_ST_EDATA:
		KUNIT_EXPECT_EQ_MSG(test, got->offset, want->offset, "insn %d offset", i);
		break;
	case FETCH_OP_ST_MEM:
	case FETCH_OP_ST_UMEM:
	case FETCH_OP_ST_STRING:
	case FETCH_OP_ST_USTRING:
	case FETCH_OP_ST_SYMSTR:
		KUNIT_EXPECT_EQ_MSG(test, got->offset, want->offset, "insn %d offset", i);
		fallthrough;
	case FETCH_OP_ST_RAW:
		KUNIT_EXPECT_EQ_MSG(test, got->size, want->size, "insn %d size", i);
		break;
	case FETCH_OP_MOD_BF:
		KUNIT_EXPECT_EQ_MSG(test, got->basesize, want->bf[0], "insn %d basesize", i);
		KUNIT_EXPECT_EQ_MSG(test, got->lshift, want->bf[1], "insn %d lshift", i);
		KUNIT_EXPECT_EQ_MSG(test, got->rshift, want->bf[2], "insn %d rshift", i);
		break;
	case FETCH_OP_DATA:
	case FETCH_NOP_SYMBOL:
		tpk_expect_str(test, got->data, want->data, "insn data");
		break;
	default:
		break;
	}
}

/* Compare a fetch program with @want, up to and including FETCH_OP_END. */
static void tpk_expect_code(struct kunit *test, const struct fetch_insn *got,
			    const struct tpk_insn *want)
{
	int i;

	KUNIT_ASSERT_NOT_NULL(test, got);
	for (i = 0; i < FETCH_INSN_MAX; i++) {
		KUNIT_EXPECT_EQ_MSG(test, got[i].op, want[i].op,
				    "insn %d is %s, want %s", i,
				    tpk_op_name(got[i].op), tpk_op_name(want[i].op));
		if (got[i].op != want[i].op)
			return;
		tpk_expect_operands(test, &got[i], &want[i], i);
		if (want[i].op == FETCH_OP_END)
			return;
	}
	KUNIT_FAIL(test, "expected program has no END within FETCH_INSN_MAX");
}

static void tpk_free_probe(void *data)
{
	struct trace_probe *tp = data;

	trace_probe_cleanup(tp);
	kfree(tp);
}

/* A probe with room for @nargs arguments, freed when the test ends. */
static struct trace_probe *tpk_new_probe(struct kunit *test, int nargs,
					 bool user)
{
	struct trace_probe *tp;
	int ret;

	tp = kzalloc(struct_size(tp, args, nargs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tp);
	ret = trace_probe_init(tp, TPK_EVENT, TPK_GROUP, user, nargs);
	if (ret)
		kfree(tp);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = kunit_add_action_or_reset(test, tpk_free_probe, tp);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return tp;
}

/* The probed function that BTF arguments refer to, or NULL. */
static const char *tpk_funcname;

/* What happened to one definition's arguments. */
struct tpk_run {
	struct trace_probe *tp;
	int ret;		/* first non-zero parse result, or 0 */
	int failed_at;		/* index of that argument, or -1 */
	struct tprobe_log_last last;	/* the error log's last report */
};

/*
 * Parse @args as a front end would for a definition whose arguments are
 * words 2.. of the command.  No assertion runs while the log is held.
 */
static void tpk_parse(struct kunit *test, unsigned int flags,
		      const char * const *args, int nargs, struct tpk_run *run)
{
	const char *argv[TPK_HEAD_WORDS + TPK_MAX_ARGS];
	int i;

	KUNIT_ASSERT_LE(test, nargs, TPK_MAX_ARGS);
	run->tp = tpk_new_probe(test, nargs, flags & TPARG_FL_USER);
	run->ret = 0;
	run->failed_at = -1;
	memcpy(argv, tpk_cmd_head, sizeof(tpk_cmd_head));
	memcpy(argv + TPK_HEAD_WORDS, args, nargs * sizeof(*args));

	mutex_lock(&dyn_event_ops_mutex);
	trace_probe_log_init("trace_probe_kunit", TPK_HEAD_WORDS + nargs, argv);
	tprobe_log_forget_last();
	for (i = 0; i < nargs; i++) {
		struct traceprobe_parse_context ctx = {
			.flags = flags, .funcname = tpk_funcname,
		};
		int ret;

		trace_probe_log_set_index(TPK_HEAD_WORDS + i);
		ret = traceprobe_parse_probe_arg(run->tp, i, args[i], &ctx);
		traceprobe_finish_parse(&ctx);
		if (ret) {
			run->ret = ret;
			run->failed_at = i;
			break;
		}
	}
	tprobe_log_get_last(&run->last);
	trace_probe_log_clear();
	mutex_unlock(&dyn_event_ops_mutex);
}

/* Caret position of byte @offs of argument @idx in the logged command. */
static int tpk_caret(const char * const *args, int idx, int offs)
{
	int i, pos = 0;

	for (i = 0; i < TPK_HEAD_WORDS; i++)
		pos += strlen(tpk_cmd_head[i]) + 1;
	for (i = 0; i < idx; i++)
		pos += strlen(args[i]) + 1;
	return pos + offs;
}

/* One field of the event's format file. */
struct tpk_field {
	const char *name;
	const char *type;
	int offset;	/* from the start of the argument area */
	int size;
	bool is_signed;
};

/* Drop the fields traceprobe_define_arg_fields() created: no event owns them. */
static void tpk_drop_fields(struct list_head *head)
{
	struct ftrace_event_field *field, *next;

	list_for_each_entry_safe(field, next, head, link) {
		list_del(&field->link);
		kfree(field);
	}
}

/* Define the argument fields of @tp and compare them, in order, with @want. */
static void tpk_expect_fields(struct kunit *test, struct trace_probe *tp,
			      const struct tpk_field *want, int n)
{
	struct trace_event_call *call = trace_probe_event_call(tp);
	struct list_head *head = trace_get_fields(call);
	struct ftrace_event_field *field;
	int i = 0;

	KUNIT_EXPECT_EQ(test, traceprobe_define_arg_fields(call, TPK_FIELD_BASE, tp), 0);
	/* trace_define_field() adds at the head: walk back for definition order. */
	list_for_each_entry_reverse(field, head, link) {
		if (i >= n) {
			i++;
			continue;
		}
		tpk_expect_str(test, field->name, want[i].name, "field name");
		tpk_expect_str(test, field->type, want[i].type, "field type");
		KUNIT_EXPECT_EQ_MSG(test, field->offset, TPK_FIELD_BASE + want[i].offset,
				    "field %d offset", i);
		KUNIT_EXPECT_EQ_MSG(test, field->size, want[i].size, "field %d size", i);
		KUNIT_EXPECT_EQ_MSG(test, (bool)field->is_signed, want[i].is_signed,
				    "field %d signed", i);
		i++;
	}
	KUNIT_EXPECT_EQ(test, i, n);
	tpk_drop_fields(head);
}

static void tpk_expect_print_fmt(struct kunit *test, struct trace_probe *tp,
				 enum probe_print_type ptype, const char *want)
{
	KUNIT_ASSERT_EQ(test, traceprobe_set_print_fmt(tp, ptype), 0);
	tpk_expect_str(test, trace_probe_event_call(tp)->print_fmt, want, "print fmt");
}

static enum probe_print_type tpk_ptype(unsigned int flags)
{
	if (flags & TPARG_FL_TEVENT)
		return PROBE_PRINT_EVENT;
	return (flags & TPARG_FL_RETURN) ? PROBE_PRINT_RETURN : PROBE_PRINT_NORMAL;
}

/* ---- one valid argument: probe_arg, fetch program, print fmt, field ---- */

struct tpk_arg_case {
	const char *desc;
	unsigned int flags;
	const char *arg;
	const char *name;
	const char *type;	/* fetch_type name */
	const char *comm;	/* canonical text after "name=" */
	unsigned int count;
	bool dynamic;
	struct tpk_field field;	/* .name is @name, .offset is 0 */
	const char *print_fmt;
	const struct tpk_insn *code;
};

/*
 * An expected print fmt: the quoted format @f, a comma, then the values
 * @v.  Entry probes start with the probed address, return probes with the
 * function and the return address.
 */
#define PRINT_FMT(f, v)	"\"" f "\", " v
#define IP_FMT		"(%lx)"
#define IP_VAL		"REC->__probe_ip"
#define RET_FMT		"(%lx <- %lx)"
#define RET_VAL		"REC->__probe_func, REC->__probe_ret_ip"
/* A one-argument probe whose argument is named arg1. */
#define FMT_IP(f, a)	PRINT_FMT(IP_FMT " arg1=" f, IP_VAL ", " a)
#define FMT_RET(f, a)	PRINT_FMT(RET_FMT " arg1=" f, RET_VAL ", " a)

/*
 * The type table's print formats as the format file spells them.  The
 * 64-bit ones use the kernel's %L length modifier: this is tracefs text
 * that user space parses, not a printf format of this file.
 */
#define U64_FMT		"%Lu"
#define S64_FMT		"%Ld"
#define X64_FMT		"0x%Lx"
#define STR_FMT		"\\\"%s\\\""
#define DATA_LOC	"__data_loc char[]"

static const struct tpk_arg_case tpk_arg_cases[] = {
	{ "uprobe_arg_register_default_type_is_x64", UPROBE, TPK_R0,
	  "arg1", "x64", TPK_R0, 0, false, { .type = "u64", .size = 8 },
	  FMT_IP(X64_FMT, "REC->arg1"), PROG(OP_REG(TPK_R0_OFF), OP_ST_RAW(8)) },
	{ "uprobe_arg_deref_u32_stores_from_memory", UPROBE, "+8(" TPK_R5 "):u32",
	  "arg1", "u32", "+8(" TPK_R5 "):u32", 0, false, { .type = "u32", .size = 4 },
	  FMT_IP("%u", "REC->arg1"), PROG(OP_REG(TPK_R5_OFF), OP_ST_MEM(8, 4)) },
	{ "uprobe_arg_negative_deref_offset_is_signed_s64", UPROBE, "-16(" TPK_R6 "):s64",
	  "arg1", "s64", "-16(" TPK_R6 "):s64", 0, false,
	  { .type = "s64", .size = 8, .is_signed = true },
	  FMT_IP(S64_FMT, "REC->arg1"), PROG(OP_REG(TPK_R6_OFF), OP_ST_MEM(-16, 8)) },
	{ "uprobe_arg_double_deref_keeps_inner_deref", UPROBE, "+0(+24(" TPK_R4 ")):x32",
	  "arg1", "x32", "+0(+24(" TPK_R4 ")):x32", 0, false, { .type = "u32", .size = 4 },
	  FMT_IP("0x%x", "REC->arg1"), PROG(OP_REG(TPK_R4_OFF), OP_DEREF(24), OP_ST_MEM(0, 4)) },
	{ "uprobe_arg_user_deref_stores_user_memory", UPROBE, "+u4(" TPK_R4 "):x16",
	  "arg1", "x16", "+u4(" TPK_R4 "):x16", 0, false, { .type = "u16", .size = 2 },
	  FMT_IP("0x%x", "REC->arg1"), PROG(OP_REG(TPK_R4_OFF), OP_ST_UMEM(4, 2)) },
	{ "uprobe_arg_stack_pointer", UPROBE, "$stack",
	  "arg1", "x64", "$stack", 0, false, { .type = "u64", .size = 8 },
	  FMT_IP(X64_FMT, "REC->arg1"), PROG(OP_STACKP, OP_ST_RAW(8)) },
	{ "uprobe_arg_stack_slot_s32", UPROBE, "$stack3:s32",
	  "arg1", "s32", "$stack3:s32", 0, false,
	  { .type = "s32", .size = 4, .is_signed = true },
	  FMT_IP("%d", "REC->arg1"), PROG(OP_STACK(3), OP_ST_RAW(4)) },
	{ "uprobe_arg_stack_index_not_limited_to_kernel_stack", UPROBE, "$stack100000",
	  "arg1", "x64", "$stack100000", 0, false, { .type = "u64", .size = 8 },
	  FMT_IP(X64_FMT, "REC->arg1"), PROG(OP_STACK(100000), OP_ST_RAW(8)) },
	{ "uprobe_arg_comm_defaults_to_string", UPROBE, "$comm",
	  "arg1", "string", "$comm", 0, true,
	  { .type = DATA_LOC, .size = 4, .is_signed = true },
	  FMT_IP(STR_FMT, "__get_str(arg1)"), PROG(OP_COMM, OP_ST_STRING(0)) },
	{ "uprobe_arg_upper_case_comm_is_comm", UPROBE, "$COMM:string",
	  "arg1", "string", "$COMM:string", 0, true,
	  { .type = DATA_LOC, .size = 4, .is_signed = true },
	  FMT_IP(STR_FMT, "__get_str(arg1)"), PROG(OP_COMM, OP_ST_STRING(0)) },
	{ "uprobe_arg_immediate_u16", UPROBE, "\\1234:u16",
	  "arg1", "u16", "\\1234:u16", 0, false, { .type = "u16", .size = 2 },
	  FMT_IP("%u", "REC->arg1"), PROG(OP_IMM(1234), OP_ST_RAW(2)) },
	{ "uprobe_arg_negative_immediate_s8", UPROBE, "\\-1:s8",
	  "arg1", "s8", "\\-1:s8", 0, false,
	  { .type = "s8", .size = 1, .is_signed = true },
	  FMT_IP("%d", "REC->arg1"), PROG(OP_IMM(-1L), OP_ST_RAW(1)) },
	{ "uprobe_arg_immediate_string_is_data", UPROBE, "\\\"hi\"",
	  "arg1", "string", "\\\"hi\"", 0, true,
	  { .type = DATA_LOC, .size = 4, .is_signed = true },
	  FMT_IP(STR_FMT, "__get_str(arg1)"), PROG(OP_DATA("hi"), OP_ST_STRING(0)) },
	{ "uprobe_arg_absolute_address_u64", UPROBE, "@0x1000:u64",
	  "arg1", "u64", "@0x1000:u64", 0, false, { .type = "u64", .size = 8 },
	  FMT_IP(U64_FMT, "REC->arg1"), PROG(OP_IMM(0x1000), OP_ST_MEM(0, 8)) },
	{ "uprobe_arg_file_offset_s8", UPROBE, "@+0x40:s8",
	  "arg1", "s8", "@+0x40:s8", 0, false,
	  { .type = "s8", .size = 1, .is_signed = true },
	  FMT_IP("%d", "REC->arg1"), PROG(OP_FOFFS(0x40), OP_ST_MEM(0, 1)) },
	{ "uprobe_arg_string_keeps_deref_offset", UPROBE, "+8(" TPK_R5 "):string",
	  "arg1", "string", "+8(" TPK_R5 "):string", 0, true,
	  { .type = DATA_LOC, .size = 4, .is_signed = true },
	  FMT_IP(STR_FMT, "__get_str(arg1)"), PROG(OP_REG(TPK_R5_OFF), OP_ST_STRING(8)) },
	{ "uprobe_arg_ustring_stores_user_string", UPROBE, "+0(" TPK_R5 "):ustring",
	  "arg1", "ustring", "+0(" TPK_R5 "):ustring", 0, true,
	  { .type = DATA_LOC, .size = 4, .is_signed = true },
	  FMT_IP(STR_FMT, "__get_str(arg1)"), PROG(OP_REG(TPK_R5_OFF), OP_ST_USTRING(0)) },
	{ "uprobe_arg_bitfield_in_register", UPROBE, TPK_R0 ":b4@2/32",
	  "arg1", "u32", TPK_R0 ":b4@2/32", 0, false, { .type = "u32", .size = 4 },
	  FMT_IP("%u", "REC->arg1"),
	  PROG(OP_REG(TPK_R0_OFF), OP_ST_RAW(4), OP_MOD_BF(4, 26, 28)) },
	{ "uprobe_arg_bitfield_top_bit_of_byte", UPROBE, "+0(" TPK_SP "):b1@7/8",
	  "arg1", "u8", "+0(" TPK_SP "):b1@7/8", 0, false, { .type = "u8", .size = 1 },
	  FMT_IP("%u", "REC->arg1"),
	  PROG(OP_REG(TPK_SP_OFF), OP_ST_MEM(0, 1), OP_MOD_BF(1, 0, 7)) },
	{ "uprobe_arg_array_of_u8_loops", UPROBE, "+0($stack):u8[4]",
	  "arg1", "u8", "+0($stack):u8[4]", 4, false, { .type = "u8[4]", .size = 4 },
	  PRINT_FMT(IP_FMT " arg1={%u,%u,%u,%u}",
		    IP_VAL ", REC->arg1[0], REC->arg1[1], REC->arg1[2], REC->arg1[3]"),
	  PROG(OP_STACKP, OP_ST_MEM(0, 1), OP_LP_ARRAY(4)) },
	{ "uprobe_arg_array_of_strings_keeps_pointer_deref", UPROBE, "+0(" TPK_R4 "):string[2]",
	  "arg1", "string", "+0(" TPK_R4 "):string[2]", 2, true,
	  { .type = DATA_LOC "[2]", .size = 8, .is_signed = true },
	  PRINT_FMT(IP_FMT " arg1={" STR_FMT "," STR_FMT "}",
		    IP_VAL ", __get_str(arg1[0]), __get_str(arg1[1])"),
	  PROG(OP_REG(TPK_R4_OFF), OP_DEREF(0), OP_ST_STRING(0), OP_LP_ARRAY(2)) },
	{ "uprobe_arg_name_given_by_user", UPROBE, "len=" TPK_R3 ":u32",
	  "len", "u32", TPK_R3 ":u32", 0, false, { .type = "u32", .size = 4 },
	  PRINT_FMT(IP_FMT " len=%u", IP_VAL ", REC->len"),
	  PROG(OP_REG(TPK_R3_OFF), OP_ST_RAW(4)) },
	{ "uprobe_arg_name_of_32_chars_accepted", UPROBE,
	  "n0123456789012345678901234567890=" TPK_PC,
	  "n0123456789012345678901234567890", "x64", TPK_PC, 0, false,
	  { .type = "u64", .size = 8 },
	  PRINT_FMT(IP_FMT " n0123456789012345678901234567890=" X64_FMT,
		    IP_VAL ", REC->n0123456789012345678901234567890"),
	  PROG(OP_REG(TPK_PC_OFF), OP_ST_RAW(8)) },
	{ "uprobe_arg_fourteen_derefs_fill_the_program", UPROBE,
	  "+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(\\1))))))))))))))",
	  "arg1", "x64", "+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(\\1))))))))))))))",
	  0, false, { .type = "u64", .size = 8 }, FMT_IP(X64_FMT, "REC->arg1"),
	  PROG(OP_IMM(1), OP_DEREF(0), OP_DEREF(0), OP_DEREF(0), OP_DEREF(0),
	       OP_DEREF(0), OP_DEREF(0), OP_DEREF(0), OP_DEREF(0), OP_DEREF(0),
	       OP_DEREF(0), OP_DEREF(0), OP_DEREF(0), OP_DEREF(0), OP_ST_MEM(0, 8)) },
	{ "uretprobe_arg_retval", URETPROBE, "$retval",
	  "arg1", "x64", "$retval", 0, false, { .type = "u64", .size = 8 },
	  FMT_RET(X64_FMT, "REC->arg1"), PROG(OP_RETVAL, OP_ST_RAW(8)) },
	{ "uretprobe_arg_string_at_retval", URETPROBE, "+0($retval):string",
	  "arg1", "string", "+0($retval):string", 0, true,
	  { .type = DATA_LOC, .size = 4, .is_signed = true },
	  FMT_RET(STR_FMT, "__get_str(arg1)"), PROG(OP_RETVAL, OP_ST_STRING(0)) },
	{ "kprobe_arg_function_argument_counts_from_one", KPROBE_FUNC, "$arg2",
	  "arg1", "x64", "$arg2", 0, false, { .type = "u64", .size = 8 },
	  FMT_IP(X64_FMT, "REC->arg1"), PROG(OP_ARG(1), OP_ST_RAW(8)) },
	{ "fprobe_arg_function_argument", FPROBE, "$arg1:u32",
	  "arg1", "u32", "$arg1:u32", 0, false, { .type = "u32", .size = 4 },
	  FMT_IP("%u", "REC->arg1"), PROG(OP_ARG(0), OP_ST_RAW(4)) },
	{ "tprobe_arg_skips_tracepoint_data_argument", TPROBE, "$arg1",
	  "arg1", "x64", "$arg1", 0, false, { .type = "u64", .size = 8 },
	  FMT_IP(X64_FMT, "REC->arg1"), PROG(OP_ARG(1), OP_ST_RAW(8)) },
	{ "kretprobe_arg_entry_argument_reads_entry_data", KRETPROBE, "$arg1",
	  "arg1", "x64", "$arg1", 0, false, { .type = "u64", .size = 8 },
	  FMT_RET(X64_FMT, "REC->arg1"), PROG(OP_EDATA(0), OP_ST_RAW(8)) },
	{ "kprobe_arg_symbol_kept_for_later_resolution", KPROBE_FUNC, "@schedule+8:u32",
	  "arg1", "u32", "@schedule+8:u32", 0, false, { .type = "u32", .size = 4 },
	  FMT_IP("%u", "REC->arg1"),
	  PROG(OP_SYMBOL("schedule+8"), OP_IMM(0), OP_ST_MEM(0, 4)) },
	{ "kprobe_arg_user_deref_string_is_ustring", KPROBE_FUNC, "+u0(" TPK_R5 "):string",
	  "arg1", "string", "+u0(" TPK_R5 "):string", 0, true,
	  { .type = DATA_LOC, .size = 4, .is_signed = true },
	  FMT_IP(STR_FMT, "__get_str(arg1)"), PROG(OP_REG(TPK_R5_OFF), OP_ST_USTRING(0)) },
	{ "kprobe_arg_symstr_from_register", KPROBE_FUNC, TPK_R0 ":symstr",
	  "arg1", "symstr", TPK_R0 ":symstr", 0, true,
	  { .type = DATA_LOC, .size = 4, .is_signed = true },
	  FMT_IP(STR_FMT, "__get_str(arg1)"), PROG(OP_REG(TPK_R0_OFF), OP_ST_SYMSTR(0)) },
	{ "kprobe_arg_symbol_type_prints_symbol", KPROBE_OFFS, TPK_R0 ":symbol",
	  "arg1", "symbol", TPK_R0 ":symbol", 0, false, { .type = "u64", .size = 8 },
	  FMT_IP("%pS", "REC->arg1"), PROG(OP_REG(TPK_R0_OFF), OP_ST_RAW(8)) },
	{ "kprobe_arg_char_type_prints_character", KPROBE_OFFS, "\\65:char",
	  "arg1", "char", "\\65:char", 0, false, { .type = "u8", .size = 1 },
	  FMT_IP("'%c'", "REC->arg1"), PROG(OP_IMM(65), OP_ST_RAW(1)) },
};

static void tpk_arg_desc(const struct tpk_arg_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tpk_arg, tpk_arg_cases, tpk_arg_desc);

static void valid_arg_compiles_as_upstream(struct kunit *test)
{
	const struct tpk_arg_case *c = test->param_value;
	struct tpk_field field = c->field;
	struct probe_arg *parg;
	struct tpk_run run;

	tpk_parse(test, c->flags, &c->arg, 1, &run);
	KUNIT_ASSERT_EQ(test, run.ret, 0);
	KUNIT_EXPECT_EQ_MSG(test, run.last.err, -1, "a valid argument logged an error");

	parg = &run.tp->args[0];
	tpk_expect_str(test, parg->name, c->name, "name");
	tpk_expect_str(test, parg->comm, c->comm, "comm");
	KUNIT_ASSERT_NOT_NULL(test, parg->type);
	tpk_expect_str(test, parg->type->name, c->type, "type");
	KUNIT_EXPECT_EQ(test, parg->offset, 0);
	KUNIT_EXPECT_EQ(test, parg->count, c->count);
	KUNIT_EXPECT_EQ(test, parg->dynamic, c->dynamic);
	KUNIT_EXPECT_EQ(test, run.tp->size, (ssize_t)c->field.size);
	tpk_expect_code(test, parg->code, c->code);

	tpk_expect_print_fmt(test, run.tp, tpk_ptype(c->flags), c->print_fmt);
	field.name = c->name;
	tpk_expect_fields(test, run.tp, &field, 1);
}

/* ---- whole definitions: offsets, canonical text, print fmt, fields ---- */

struct tpk_def_case {
	const char *desc;
	unsigned int flags;
	int nargs;
	const char *args[TPK_MAX_ARGS];
	const char *canonical;	/* the arguments as uprobe_events lists them */
	ssize_t size;		/* bytes of argument data in a record */
	const char *print_fmt;
	struct tpk_field fields[TPK_MAX_ARGS];
};

static const struct tpk_def_case tpk_def_cases[] = {
	{ "uprobe_def_without_args_prints_only_ip", UPROBE, 0, { },
	  "", 0, PRINT_FMT(IP_FMT, IP_VAL), { } },
	{ "uretprobe_def_without_args_prints_func_and_ret_ip", URETPROBE, 0, { },
	  "", 0, PRINT_FMT(RET_FMT, RET_VAL), { } },
	{ "uprobe_def_generated_names_follow_position", UPROBE, 2, { TPK_R0, TPK_R3 },
	  "arg1=" TPK_R0 " arg2=" TPK_R3, 16,
	  PRINT_FMT(IP_FMT " arg1=" X64_FMT " arg2=" X64_FMT, IP_VAL ", REC->arg1, REC->arg2"),
	  { { "arg1", "u64", 0, 8 }, { "arg2", "u64", 8, 8 } } },
	{ "uprobe_def_args_packed_without_padding", UPROBE, 4,
	  { "a=" TPK_R0 ":u8", "b=" TPK_R1 ":u64", "c=$comm", "d=$stack0:s16" },
	  "a=" TPK_R0 ":u8 b=" TPK_R1 ":u64 c=$comm d=$stack0:s16", 15,
	  PRINT_FMT(IP_FMT " a=%u b=" U64_FMT " c=" STR_FMT " d=%d",
		    IP_VAL ", REC->a, REC->b, __get_str(c), REC->d"),
	  { { "a", "u8", 0, 1 }, { "b", "u64", 1, 8 },
	    { "c", DATA_LOC, 9, 4, true }, { "d", "s16", 13, 2, true } } },
	{ "uretprobe_def_mixes_retval_and_stack", URETPROBE, 2,
	  { "$retval", "r=+0($stack):x32" },
	  "arg1=$retval r=+0($stack):x32", 12,
	  PRINT_FMT(RET_FMT " arg1=" X64_FMT " r=0x%x", RET_VAL ", REC->arg1, REC->r"),
	  { { "arg1", "u64", 0, 8 }, { "r", "u32", 8, 4 } } },
	{ "uprobe_def_arrays_print_each_element", UPROBE, 2,
	  { "+0($stack):u8[3]", "s=+0(" TPK_R4 "):string[2]" },
	  "arg1=+0($stack):u8[3] s=+0(" TPK_R4 "):string[2]", 11,
	  PRINT_FMT(IP_FMT " arg1={%u,%u,%u} s={" STR_FMT "," STR_FMT "}", IP_VAL
		    ", REC->arg1[0], REC->arg1[1], REC->arg1[2], __get_str(s[0]), __get_str(s[1])"),
	  { { "arg1", "u8[3]", 0, 3 }, { "s", DATA_LOC "[2]", 3, 8, true } } },
	{ "kprobe_def_symbol_char_and_signed_arg", KPROBE_FUNC, 3,
	  { TPK_R0 ":symbol", "c=\\65:char", "$arg1:s64" },
	  "arg1=" TPK_R0 ":symbol c=\\65:char arg3=$arg1:s64", 17,
	  PRINT_FMT(IP_FMT " arg1=%pS c='%c' arg3=" S64_FMT,
		    IP_VAL ", REC->arg1, REC->c, REC->arg3"),
	  { { "arg1", "u64", 0, 8 }, { "c", "u8", 8, 1 },
	    { "arg3", "s64", 9, 8, true } } },
	{ "kretprobe_def_retval_and_entry_arg", KRETPROBE, 2,
	  { "$retval:s32", "$arg2:x8" },
	  "arg1=$retval:s32 arg2=$arg2:x8", 5,
	  PRINT_FMT(RET_FMT " arg1=%d arg2=0x%x", RET_VAL ", REC->arg1, REC->arg2"),
	  { { "arg1", "s32", 0, 4, true }, { "arg2", "u8", 4, 1 } } },
	{ "eprobe_def_print_fmt_has_no_ip", EPROBE, 1, { "v=\\7:u8" },
	  "v=\\7:u8", 1, PRINT_FMT(" v=%u", "REC->v"), { { "v", "u8", 0, 1 } } },
};

static void tpk_def_desc(const struct tpk_def_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tpk_def, tpk_def_cases, tpk_def_desc);

/* The "name=comm" words a front end lists for @tp, joined by spaces. */
static char *tpk_canonical(struct kunit *test, struct trace_probe *tp)
{
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	int i, len = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < tp->nr_args; i++) {
		KUNIT_ASSERT_NOT_NULL(test, tp->args[i].name);
		KUNIT_ASSERT_NOT_NULL(test, tp->args[i].comm);
		len += scnprintf(buf + len, PAGE_SIZE - len, "%s%s=%s", i ? " " : "",
				 tp->args[i].name, tp->args[i].comm);
	}
	return buf;
}

static void definition_lists_fields_and_print_fmt(struct kunit *test)
{
	const struct tpk_def_case *c = test->param_value;
	struct tpk_run run;
	int i;

	tpk_parse(test, c->flags, c->args, c->nargs, &run);
	KUNIT_ASSERT_EQ(test, run.ret, 0);
	KUNIT_EXPECT_EQ(test, run.tp->size, c->size);
	KUNIT_EXPECT_STREQ(test, tpk_canonical(test, run.tp), c->canonical);
	for (i = 0; i < c->nargs; i++)
		KUNIT_EXPECT_EQ_MSG(test, run.tp->args[i].offset, c->fields[i].offset,
				    "arg %d offset", i);

	tpk_expect_print_fmt(test, run.tp, tpk_ptype(c->flags), c->print_fmt);
	tpk_expect_fields(test, run.tp, c->fields, c->nargs);
}

/* ---- invalid definitions: errno, error-log code and caret ---- */

struct tpk_bad_case {
	const char *desc;
	unsigned int flags;
	int nargs;
	const char *args[TPK_MAX_ARGS];	/* the last one is the bad one */
	int ret;
	int err;	/* TP_ERR_* of the last error-log entry */
	int pos;	/* caret, in bytes from the start of the bad argument */
	int alt_err;	/* another acceptable last entry, or 0 */
};

/* 512 bytes of record; @ADDR keeps the caret at the argument's start. */
#define ARR64	"@4096:u64[64]"

static const struct tpk_bad_case tpk_bad_cases[] = {
	{ "retval_rejected_on_uprobe_entry", UPROBE, 1, { "$retval" },
	  -EINVAL, TP_ERR_RETVAL_ON_PROBE, 0 },
	{ "retval_rejected_on_kprobe_entry_caret_after_name", KPROBE_FUNC, 1,
	  { "r=$retval" }, -EINVAL, TP_ERR_RETVAL_ON_PROBE, 2 },
	{ "unknown_register_rejected", UPROBE, 1, { "%none_reg" },
	  -EINVAL, TP_ERR_BAD_REG_NAME, 0 },
	{ "unknown_register_inside_deref_caret_at_register", UPROBE, 1, { "+8(%xyz)" },
	  -EINVAL, TP_ERR_BAD_REG_NAME, 3 },
	{ "unknown_register_inside_negative_deref", UPROBE, 1, { "-8(%xyz)" },
	  -EINVAL, TP_ERR_BAD_REG_NAME, 3 },
	{ "unknown_register_two_derefs_deep", UPROBE, 1, { "+0(+8(%xyz))" },
	  -EINVAL, TP_ERR_BAD_REG_NAME, 6 },
	{ "register_rejected_on_fprobe", FPROBE, 1, { TPK_R0 },
	  -EINVAL, TP_ERR_BAD_VAR, 0, TP_ERR_BAD_FETCH_ARG },
	{ "unknown_dollar_variable_rejected", UPROBE, 1, { "v=$none_var" },
	  -EINVAL, TP_ERR_BAD_VAR, 2 },
	{ "stack_with_non_numeric_suffix_rejected", UPROBE, 1, { "$stackx" },
	  -EINVAL, TP_ERR_BAD_VAR, 0 },
	{ "kernel_stack_index_beyond_stack_rejected", KPROBE_FUNC, 1, { "$stack100000" },
	  -EINVAL, TP_ERR_BAD_STACK_NUM, 0 },
	{ "function_arg_zero_rejected", KPROBE_FUNC, 1, { "$arg0" },
	  -EINVAL, TP_ERR_BAD_ARG_NUM, 0 },
	{ "function_arg_rejected_on_uprobe", UPROBE, 1, { "$arg1" },
	  -EINVAL, TP_ERR_NOFENTRY_ARGS, 0 },
	{ "function_arg_rejected_on_kprobe_at_offset", KPROBE_OFFS, 1, { "$arg1" },
	  -EINVAL, TP_ERR_NOFENTRY_ARGS, 0 },
	{ "file_offset_rejected_on_kprobe", KPROBE_FUNC, 1, { "@+10" },
	  -EINVAL, TP_ERR_FILE_ON_KPROBE, 0 },
	{ "symbol_rejected_on_uprobe", UPROBE, 1, { "@symbol" },
	  -EINVAL, TP_ERR_SYM_ON_UPROBE, 0 },
	{ "bad_memory_address_rejected", UPROBE, 1, { "@12345678abcde" },
	  -EINVAL, TP_ERR_BAD_MEM_ADDR, 0 },
	{ "bad_file_offset_rejected", UPROBE, 1, { "@+ab" },
	  -EINVAL, TP_ERR_BAD_FILE_OFFS, 0 },
	{ "deref_without_brace_rejected", UPROBE, 1, { "+0@0)" },
	  -EINVAL, TP_ERR_DEREF_NEED_BRACE, 0 },
	{ "deref_with_bad_offset_rejected", UPROBE, 1, { "+0ab1(@0)" },
	  -EINVAL, TP_ERR_BAD_DEREF_OFFS, 0 },
	{ "unclosed_inner_deref_caret_at_end", UPROBE, 1, { "+0(+0(@0)" },
	  -EINVAL, TP_ERR_DEREF_OPEN_BRACE, 8 },
	{ "comm_cannot_be_dereferenced", UPROBE, 1, { "+0($comm)" },
	  -EINVAL, TP_ERR_COMM_CANT_DEREF, 3 },
	{ "bad_immediate_caret_after_backslash", UPROBE, 1, { "arg1=\\x" },
	  -EINVAL, TP_ERR_BAD_IMM, 6 },
	{ "unclosed_immediate_string_caret_at_end", UPROBE, 1, { "arg1=\\\"abcd" },
	  -EINVAL, TP_ERR_IMMSTR_NO_CLOSE, 11 },
	{ "immediate_string_needs_string_type", UPROBE, 1, { "\\\"abc\":u32" },
	  -EINVAL, TP_ERR_NEED_STRING_TYPE, 7 },
	{ "comm_needs_string_type", UPROBE, 1, { "$comm:u32" },
	  -EINVAL, TP_ERR_NEED_STRING_TYPE, 6 },
	{ "comm_cannot_be_an_array", UPROBE, 1, { "$comm:string[2]" },
	  -EINVAL, TP_ERR_NEED_STRING_TYPE, 6 },
	{ "unknown_type_rejected", UPROBE, 1, { "@11:unknown_type" },
	  -EINVAL, TP_ERR_BAD_TYPE, 4 },
	{ "symbol_type_rejected_on_uprobe", UPROBE, 1, { TPK_R0 ":symbol" },
	  -EINVAL, TP_ERR_BAD_TYPE, 4 },
	{ "symstr_type_rejected_on_uprobe", UPROBE, 1, { "$stack0:symstr" },
	  -EINVAL, TP_ERR_BAD_TYPE, 8 },
	{ "string_from_stack_slot_rejected", KPROBE_FUNC, 1, { "$stack0:string" },
	  -EINVAL, TP_ERR_BAD_STRING, 8 },
	{ "symstr_from_immediate_rejected", KPROBE_FUNC, 1, { "\\1:symstr" },
	  -EINVAL, TP_ERR_BAD_SYMSTRING, 3 },
	{ "bitfield_without_container_is_bad_type", UPROBE, 1, { TPK_R0 ":b4@2" },
	  -EINVAL, TP_ERR_BAD_TYPE, 4 },
	{ "bitfield_with_odd_container_is_bad_type", UPROBE, 1, { TPK_R0 ":b4@2/12" },
	  -EINVAL, TP_ERR_BAD_TYPE, 4 },
	{ "bitfield_with_bad_offset_rejected", UPROBE, 1, { "@11:b10@a/16" },
	  -EINVAL, TP_ERR_BAD_BITFIELD, 4 },
	{ "bitfield_of_zero_width_rejected", UPROBE, 1, { TPK_R0 ":b0@2/32" },
	  -EINVAL, TP_ERR_BAD_BITFIELD, 4 },
	{ "bitfield_past_container_rejected", UPROBE, 1, { TPK_R0 ":b30@4/32" },
	  -EINVAL, TP_ERR_BAD_BITFIELD, 4 },
	{ "unclosed_array_caret_at_end", UPROBE, 1, { "+0(@11):u8[10" },
	  -EINVAL, TP_ERR_ARRAY_NO_CLOSE, 13 },
	{ "array_suffix_rejected", UPROBE, 1, { "+0(@11):u8[10]a" },
	  -EINVAL, TP_ERR_BAD_ARRAY_SUFFIX, 14 },
	{ "array_size_not_a_number", UPROBE, 1, { "+0(@11):u8[10a]" },
	  -EINVAL, TP_ERR_BAD_ARRAY_NUM, 11 },
	{ "array_size_zero_rejected", UPROBE, 1, { "+0(@11):u8[0]" },
	  -EINVAL, TP_ERR_BAD_ARRAY_NUM, 11 },
	{ "array_size_over_64_rejected", UPROBE, 1, { "+0(@11):u8[65]" },
	  -EINVAL, TP_ERR_ARRAY_TOO_BIG, 11 },
	{ "array_of_register_rejected", UPROBE, 1, { TPK_R0 ":u8[2]" },
	  -EINVAL, TP_ERR_BAD_STRING, 4 },
	{ "arg_name_of_33_chars_rejected", UPROBE, 1,
	  { "arg123456789012345678901234567890=@11" },
	  -EINVAL, TP_ERR_ARG_NAME_TOO_LONG, 0 },
	{ "empty_arg_name_rejected", UPROBE, 1, { "=@11" },
	  -EINVAL, TP_ERR_NO_ARG_NAME, 0 },
	{ "arg_name_must_be_identifier", UPROBE, 1, { "var.1=@11" },
	  -EINVAL, TP_ERR_BAD_ARG_NAME, 0 },
	{ "arg_name_starting_with_digit_rejected", UPROBE, 1, { "1x=" TPK_R0 },
	  -EINVAL, TP_ERR_BAD_ARG_NAME, 0 },
	{ "arg_name_used_twice_rejected_on_second", UPROBE, 2,
	  { "var1=@11", "var1=@12" }, -EINVAL, TP_ERR_USED_ARG_NAME, 0 },
	{ "generated_name_clash_rejected", UPROBE, 2, { "arg2=" TPK_R0, TPK_R1 },
	  -EINVAL, TP_ERR_USED_ARG_NAME, 0 },
	{ "reserved_probe_ip_name_rejected", UPROBE, 1, { "__probe_ip=" TPK_R0 },
	  -EINVAL, TP_ERR_USED_ARG_NAME, 0 },
	{ "reserved_common_field_name_rejected", KPROBE_FUNC, 1, { "common_pid=" TPK_R0 },
	  -EINVAL, TP_ERR_USED_ARG_NAME, 0 },
	{ "arg_expression_over_63_chars_rejected", UPROBE, 1,
	  { "x=+1234567(+1234567(+1234567(+1234567(+1234567(+1234567(@1234))))))" },
	  -E2BIG, TP_ERR_ARG_TOO_LONG, 2 },
	{ "empty_arg_expression_rejected", UPROBE, 1, { "arg1=" },
	  -EINVAL, TP_ERR_NO_ARG_BODY, 5 },
	{ "fifteen_derefs_overflow_the_program", UPROBE, 1,
	  { "+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(\\1)))))))))))))))" },
	  -EINVAL, TP_ERR_TOO_MANY_OPS, 3 },
	{ "record_over_3072_bytes_rejected", UPROBE, 7,
	  { ARR64, ARR64, ARR64, ARR64, ARR64, ARR64, ARR64 },
	  -E2BIG, TP_ERR_EVENT_TOO_BIG, 0 },
	{ "bare_identifier_needs_btf_on_uprobe", UPROBE, 1, { "foo" },
	  -EINVAL, TP_ERR_NOSUP_BTFARG, 0 },
#ifdef CONFIG_PROBE_EVENTS_BTF_ARGS
	{ "bare_identifier_needs_function_btf", KPROBE_FUNC, 1, { "foo" },
	  -ENOENT, TP_ERR_NO_BTF_ENTRY, 0 },
#else
	{ "bare_identifier_needs_btf_on_kprobe", KPROBE_FUNC, 1, { "foo" },
	  -EOPNOTSUPP, TP_ERR_NOSUP_BTFARG, 0 },
#endif
	{ "unknown_fetch_argument_rejected", UPROBE, 1, { "&1" },
	  -EINVAL, TP_ERR_BAD_FETCH_ARG, 0 },
};

static void tpk_bad_desc(const struct tpk_bad_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tpk_bad, tpk_bad_cases, tpk_bad_desc);

static void invalid_arg_reports_error_and_caret(struct kunit *test)
{
	const struct tpk_bad_case *c = test->param_value;
	struct tpk_run run;

	tpk_parse(test, c->flags, c->args, c->nargs, &run);
	KUNIT_EXPECT_EQ(test, run.failed_at, c->nargs - 1);
	KUNIT_EXPECT_EQ(test, run.ret, c->ret);
	if (c->alt_err && run.last.err == c->alt_err)
		kunit_info(test, "last error is the alternative %d", c->alt_err);
	else
		KUNIT_EXPECT_EQ(test, run.last.err, c->err);
	KUNIT_EXPECT_EQ(test, run.last.pos, tpk_caret(c->args, c->nargs - 1, c->pos));
}

/* ---- BTF arguments ---- */

#ifdef CONFIG_PROBE_EVENTS_BTF_ARGS
#include <linux/fs.h>

/*
 * Parse @args as arguments of a probe on vfs_read(struct file *file,
 * char __user *buf, size_t count, loff_t *pos), or of @func.
 */
static void tpk_parse_on(struct kunit *test, const char *func,
			 unsigned int flags, const char * const *args, int nargs,
			 struct tpk_run *run)
{
	tpk_funcname = func;
	tpk_parse(test, flags, args, nargs, run);
	tpk_funcname = NULL;
}

static void btf_params_named_and_typed(struct kunit *test)
{
	static const char * const args[] = {
		"file", "count", "file->f_pos", "len=count:x32", "file->f_flags",
		"w=+0(file->f_pos)",
	};
	struct trace_probe *tp;
	struct tpk_run run;

	tpk_parse_on(test, "vfs_read", FPROBE, args, ARRAY_SIZE(args), &run);
	KUNIT_ASSERT_EQ(test, run.ret, 0);
	tp = run.tp;

	KUNIT_EXPECT_STREQ(test, tp->args[0].name, "file");
	KUNIT_EXPECT_STREQ(test, tp->args[0].type->name, "x64");
	KUNIT_EXPECT_EQ(test, tp->args[0].code[0].op, FETCH_OP_ARG);
	KUNIT_EXPECT_EQ(test, tp->args[0].code[0].param, 0);

	KUNIT_EXPECT_STREQ(test, tp->args[1].name, "count");
	KUNIT_EXPECT_STREQ(test, tp->args[1].type->name, "u64");
	KUNIT_EXPECT_EQ(test, tp->args[1].code[0].param, 2);

	/* A member: not a good name, so "argN"; the member's own type. */
	KUNIT_EXPECT_STREQ(test, tp->args[2].name, "arg3");
	KUNIT_EXPECT_STREQ(test, tp->args[2].type->name, "s64");
	KUNIT_EXPECT_EQ(test, tp->args[2].code[1].op, FETCH_OP_ST_MEM);
	KUNIT_EXPECT_EQ(test, tp->args[2].code[1].offset,
			(int)offsetof(struct file, f_pos));
	KUNIT_EXPECT_EQ(test, tp->args[2].code[1].size, 8);

	/* A type written by the user wins. */
	KUNIT_EXPECT_STREQ(test, tp->args[3].name, "len");
	KUNIT_EXPECT_STREQ(test, tp->args[3].type->name, "x32");

	KUNIT_EXPECT_STREQ(test, tp->args[4].type->name, "u32");
	KUNIT_EXPECT_EQ(test, tp->args[4].code[1].offset,
			(int)offsetof(struct file, f_flags));

	/* Inside a dereference a member is only an address: default type. */
	KUNIT_EXPECT_STREQ(test, tp->args[5].type->name, DEFAULT_FETCH_TYPE_STR);
	KUNIT_EXPECT_EQ(test, tp->args[5].code[1].op, FETCH_OP_DEREF);
	KUNIT_EXPECT_EQ(test, tp->args[5].code[1].offset,
			(int)offsetof(struct file, f_pos));
	KUNIT_EXPECT_EQ(test, tp->args[5].code[2].op, FETCH_OP_ST_MEM);
	KUNIT_EXPECT_EQ(test, tp->args[5].code[2].offset, 0);
}

static void btf_retval_typed_or_refused(struct kunit *test)
{
	static const char * const ret[] = { "$retval" };
	struct tpk_run run;

	tpk_parse_on(test, "vfs_read", KRETPROBE, ret, 1, &run);
	KUNIT_ASSERT_EQ(test, run.ret, 0);
	KUNIT_EXPECT_STREQ(test, run.tp->args[0].type->name, "s64");

	/* kfree() returns nothing. */
	tpk_parse_on(test, "kfree", KRETPROBE, ret, 1, &run);
	KUNIT_EXPECT_EQ(test, run.ret, -ENOENT);
	KUNIT_EXPECT_EQ(test, run.last.err, TP_ERR_NO_RETVAL);
	KUNIT_EXPECT_EQ(test, run.last.pos, tpk_caret(ret, 0, 0));
}

static const struct tpk_bad_case tpk_btf_bad_cases[] = {
	{ "no_such_parameter", FPROBE, 1, { "hoge" },
	  -ENOENT, TP_ERR_NO_BTFARG, 0 },
	{ "no_such_member_caret_at_member", FPROBE, 1, { "file->foo" },
	  -ENOENT, TP_ERR_NO_BTF_FIELD, 6 },
	{ "lone_hyphen_caret_at_hyphen", FPROBE, 1, { "file-.foo" },
	  -EINVAL, TP_ERR_BAD_HYPHEN, 4 },
	{ "string_of_a_struct_pointer_caret_at_start", FPROBE, 1, { "file:string" },
	  -EINVAL, TP_ERR_BAD_TYPE4STR, 0 },
	{ "arrow_on_an_integer", FPROBE, 1, { "c=count->x" },
	  -EINVAL, TP_ERR_NO_PTR_STRCT, 9 },
	{ "dot_on_a_value_in_a_register", FPROBE, 1, { "file.f_pos" },
	  -EOPNOTSUPP, TP_ERR_NOSUP_DAT_ARG, 5 },
	{ "arrow_through_a_char_pointer", FPROBE, 1, { "buf->x" },
	  -EINVAL, TP_ERR_BAD_BTF_TID, 5 },
	{ "name_on_kprobe_at_offset", KPROBE_OFFS, 1, { "file" },
	  -EINVAL, TP_ERR_NOSUP_BTFARG, 0 },
};

KUNIT_ARRAY_PARAM(tpk_btf_bad, tpk_btf_bad_cases, tpk_bad_desc);

static void btf_bad_arg_reports_error_and_caret(struct kunit *test)
{
	const struct tpk_bad_case *c = test->param_value;
	struct tpk_run run;

	tpk_parse_on(test, "vfs_read", c->flags, c->args, c->nargs, &run);
	KUNIT_EXPECT_EQ(test, run.failed_at, c->nargs - 1);
	KUNIT_EXPECT_EQ(test, run.ret, c->ret);
	KUNIT_EXPECT_EQ(test, run.last.err, c->err);
	KUNIT_EXPECT_EQ(test, run.last.pos, tpk_caret(c->args, c->nargs - 1, c->pos));
}

/* Run traceprobe_expand_meta_args() on vfs_read's arguments. */
static const char **tpk_expand(const char * const *args, int argc,
			       int *new_argc, char *buf,
			       struct tprobe_log_last *last)
{
	struct traceprobe_parse_context ctx = {
		.flags = FPROBE, .funcname = "vfs_read",
	};
	const char *cmd[TPK_HEAD_WORDS + TPK_MAX_ARGS];
	const char **argv = cmd + TPK_HEAD_WORDS;
	const char **out;

	memcpy(cmd, tpk_cmd_head, sizeof(tpk_cmd_head));
	memcpy(argv, args, argc * sizeof(*args));
	mutex_lock(&dyn_event_ops_mutex);
	trace_probe_log_init("trace_probe_kunit", TPK_HEAD_WORDS + argc, cmd);
	tprobe_log_forget_last();
	out = traceprobe_expand_meta_args(argc, argv, new_argc, buf,
					  MAX_BTF_ARGS_LEN, &ctx);
	traceprobe_finish_parse(&ctx);
	tprobe_log_get_last(last);
	trace_probe_log_clear();
	mutex_unlock(&dyn_event_ops_mutex);
	return out;
}

static void btf_meta_args_expand_to_names(struct kunit *test)
{
	static const char * const all[] = { "$comm", "$arg*" };
	static const char * const nth[] = { "$arg3:x32", "$arg2" };
	static const char * const over[] = { "$arg9" };
	char buf[MAX_BTF_ARGS_LEN];
	struct tprobe_log_last last;
	const char **out;
	int n = 0;

	out = tpk_expand(all, ARRAY_SIZE(all), &n, buf, &last);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(out));
	KUNIT_EXPECT_EQ(test, n, 5);
	if (n == 5) {
		KUNIT_EXPECT_STREQ(test, out[0], "$comm");
		KUNIT_EXPECT_STREQ(test, out[1], "file");
		KUNIT_EXPECT_STREQ(test, out[2], "buf");
		KUNIT_EXPECT_STREQ(test, out[3], "count");
		KUNIT_EXPECT_STREQ(test, out[4], "pos");
	}
	kfree(out);

	out = tpk_expand(nth, ARRAY_SIZE(nth), &n, buf, &last);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(out));
	KUNIT_EXPECT_EQ(test, n, 2);
	KUNIT_EXPECT_STREQ(test, out[0], "count:x32");
	KUNIT_EXPECT_STREQ(test, out[1], "buf");
	kfree(out);

	out = tpk_expand(over, ARRAY_SIZE(over), &n, buf, &last);
	KUNIT_EXPECT_EQ(test, PTR_ERR(out), -ENOENT);
	KUNIT_EXPECT_EQ(test, last.err, TP_ERR_NO_BTFARG);
	KUNIT_EXPECT_EQ(test, last.pos, tpk_caret(over, 0, 0));
}
#endif /* CONFIG_PROBE_EVENTS_BTF_ARGS */

/* ---- event names ---- */

struct tpk_name_case {
	const char *desc;
	const char *name;	/* what follows "p:" */
	int ret;
	const char *group;	/* NULL: the default group stays */
	const char *event;	/* NULL: no event name */
	int err;
	int pos;		/* caret from the start of @name */
};

#define LONG64	"a123456789012345678901234567890123456789012345678901234567890123"

static const struct tpk_name_case tpk_name_cases[] = {
	{ "event_name_with_group", "grp/ev", 0, "grp", "ev" },
	{ "event_name_alone_keeps_default_group", "ev", 0, NULL, "ev" },
	{ "event_name_dot_separates_group", "grp.ev", 0, "grp", "ev" },
	{ "event_name_omitted_after_group", "grp/", 0, "grp", NULL },
	{ "event_name_group_with_hyphen_accepted", "my-grp/ev", 0, "my-grp", "ev" },
	{ "event_name_empty_group_rejected", "/ev", -EINVAL, NULL, NULL,
	  TP_ERR_NO_GROUP_NAME, 0 },
	{ "event_name_group_of_64_chars_rejected", LONG64 "/ev", -EINVAL, NULL, NULL,
	  TP_ERR_GROUP_TOO_LONG, 0 },
	{ "event_name_bad_group_rejected", "foo.1/bar", -EINVAL, NULL, NULL,
	  TP_ERR_BAD_GROUP_NAME, 0 },
	{ "event_name_empty_rejected", "", -EINVAL, NULL, NULL,
	  TP_ERR_NO_EVENT_NAME, 0 },
	{ "event_name_of_64_chars_rejected", "foo/" LONG64, -EINVAL, NULL, NULL,
	  TP_ERR_EVENT_TOO_LONG, 4 },
	{ "event_name_not_identifier_rejected", "foo/bar.1", -EINVAL, NULL, NULL,
	  TP_ERR_BAD_EVENT_NAME, 4 },
};

#define TPK_CMD_LEN	128

static void tpk_name_desc(const struct tpk_name_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tpk_name, tpk_name_cases, tpk_name_desc);

static void event_name_splits_group_and_event(struct kunit *test)
{
	static const char default_group[] = "default_group";
	const struct tpk_name_case *c = test->param_value;
	const char *event, *group = default_group;
	struct tprobe_log_last last;
	const char *argv[2];
	char *cmd, *gbuf;
	int ret;

	cmd = kunit_kzalloc(test, TPK_CMD_LEN, GFP_KERNEL);
	gbuf = kunit_kzalloc(test, MAX_EVENT_NAME_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_ASSERT_NOT_NULL(test, gbuf);
	snprintf(cmd, TPK_CMD_LEN, "p:%s", c->name);
	argv[0] = cmd;
	argv[1] = "/bin/true:0x10";
	event = cmd + 2;

	mutex_lock(&dyn_event_ops_mutex);
	trace_probe_log_init("trace_probe_kunit", 2, argv);
	tprobe_log_forget_last();
	ret = traceprobe_parse_event_name(&event, &group, gbuf, 2);
	tprobe_log_get_last(&last);
	trace_probe_log_clear();
	mutex_unlock(&dyn_event_ops_mutex);

	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (c->ret) {
		KUNIT_EXPECT_EQ(test, last.err, c->err);
		KUNIT_EXPECT_EQ(test, last.pos, 2 + c->pos);
		return;
	}
	KUNIT_EXPECT_EQ(test, last.err, -1);
	tpk_expect_str(test, group, c->group ?: default_group, "group");
	tpk_expect_str(test, event, c->event, "event");
}

/* ---- symbol+offset splitting ---- */

struct tpk_symoff_case {
	const char *desc;
	const char *in;
	int ret;
	const char *symbol;
	long offset;
};

static const struct tpk_symoff_case tpk_symoff_cases[] = {
	{ "symbol_plus_hex_offset", "vfs_read+0x10", 0, "vfs_read", 0x10 },
	{ "symbol_minus_offset", "do_exit-8", 0, "do_exit", -8 },
	{ "symbol_without_offset_is_zero", "schedule", 0, "schedule", 0 },
	{ "symbol_with_bad_offset_rejected", "schedule+zz", -EINVAL },
};

static void tpk_symoff_desc(const struct tpk_symoff_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tpk_symoff, tpk_symoff_cases, tpk_symoff_desc);

static void symbol_offset_is_split(struct kunit *test)
{
	const struct tpk_symoff_case *c = test->param_value;
	char *sym = kunit_kstrdup(test, c->in, GFP_KERNEL);
	long offset = 12345;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, sym);
	ret = traceprobe_split_symbol_offset(sym, &offset);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (ret)
		return;
	KUNIT_EXPECT_STREQ(test, sym, c->symbol);
	KUNIT_EXPECT_EQ(test, offset, c->offset);
}

static void symbol_offset_needs_result_pointer(struct kunit *test)
{
	char sym[] = "vfs_read+4";

	KUNIT_EXPECT_EQ(test, traceprobe_split_symbol_offset(sym, NULL), -EINVAL);
	KUNIT_EXPECT_STREQ(test, sym, "vfs_read+4");
}

/* ---- the type table ---- */

struct tpk_type_case {
	const char *name;
	size_t len;		/* bytes of @name to look up */
	const char *want;	/* NULL: no such basic type */
	size_t size;
	bool is_signed;
	bool is_string;
	const char *fmttype;
	const char *fmt;
};

static const struct tpk_type_case tpk_type_cases[] = {
	{ "u8", 2, "u8", 1, false, false, "u8", "%u" },
	{ "u16", 3, "u16", 2, false, false, "u16", "%u" },
	{ "u32", 3, "u32", 4, false, false, "u32", "%u" },
	{ "u64", 3, "u64", 8, false, false, "u64", U64_FMT },
	{ "s8", 2, "s8", 1, true, false, "s8", "%d" },
	{ "s16", 3, "s16", 2, true, false, "s16", "%d" },
	{ "s32", 3, "s32", 4, true, false, "s32", "%d" },
	{ "s64", 3, "s64", 8, true, false, "s64", S64_FMT },
	{ "x8", 2, "x8", 1, false, false, "u8", "0x%x" },
	{ "x16", 3, "x16", 2, false, false, "u16", "0x%x" },
	{ "x32", 3, "x32", 4, false, false, "u32", "0x%x" },
	{ "x64", 3, "x64", 8, false, false, "u64", X64_FMT },
	{ "char", 4, "char", 1, false, false, "u8", "'%c'" },
	{ "symbol", 6, "symbol", 8, false, false, "u64", "%pS" },
	{ "string", 6, "string", 4, true, true, DATA_LOC, STR_FMT },
	{ "ustring", 7, "ustring", 4, true, true, DATA_LOC, STR_FMT },
	{ "symstr", 6, "symstr", 4, true, true, DATA_LOC, STR_FMT },
	{ "u16[4]", 3, "u16", 2, false, false, "u16", "%u" },
	{ "u128", 4, NULL },
	{ "u6", 2, NULL },
	{ "b4@0/8", 6, NULL },
	{ "string", 3, NULL },
};

static void tpk_type_desc(const struct tpk_type_case *c, char *desc)
{
	const char *kind = c->want ? "found" : "unknown";

	if (c->len < strlen(c->name))
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "type_prefix_%.*s_of_%s_%s",
			 (int)c->len, c->name, c->name, kind);
	else
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "type_%s_%s", c->name, kind);
}

KUNIT_ARRAY_PARAM(tpk_type, tpk_type_cases, tpk_type_desc);

static void type_table_describes_type(struct kunit *test)
{
	const struct tpk_type_case *c = test->param_value;
	const struct fetch_type *t = tprobe_find_type(c->name, c->len);

	if (!c->want) {
		KUNIT_EXPECT_NULL(test, t);
		return;
	}
	KUNIT_ASSERT_NOT_NULL(test, t);
	tpk_expect_str(test, t->name, c->want, "name");
	KUNIT_EXPECT_EQ(test, t->size, c->size);
	KUNIT_EXPECT_EQ(test, t->is_signed, c->is_signed);
	KUNIT_EXPECT_EQ(test, t->is_string, c->is_string);
	tpk_expect_str(test, t->fmttype, c->fmttype, "fmttype");
	tpk_expect_str(test, t->fmt, c->fmt, "fmt");
	KUNIT_EXPECT_NOT_NULL(test, t->print);
}

/* ---- argument type comparison between sibling probes ---- */

struct tpk_cmp_case {
	const char *desc;
	int na, nb;
	const char *a[3];
	const char *b[3];
	int want;	/* 0, or the 1-based index of the first difference */
};

static const struct tpk_cmp_case tpk_cmp_cases[] = {
	{ "compare_same_args_is_zero", 2, 2,
	  { "x=" TPK_R0 ":u32", "y=$comm" }, { "x=" TPK_R1 ":u32", "y=$comm" }, 0 },
	{ "compare_type_difference_at_second", 2, 2,
	  { "x=" TPK_R0 ":u32", "y=" TPK_R1 ":u32" },
	  { "x=" TPK_R0 ":u32", "y=" TPK_R1 ":s32" }, 2 },
	{ "compare_name_difference_at_first", 1, 1,
	  { "x=" TPK_R0 }, { "z=" TPK_R0 }, 1 },
	{ "compare_array_length_difference", 1, 1,
	  { "+0(" TPK_R0 "):u8[2]" }, { "+0(" TPK_R0 "):u8[3]" }, 1 },
	{ "compare_fewer_args_after_last_common", 2, 1,
	  { "x=" TPK_R0, "y=" TPK_R1 }, { "x=" TPK_R0 }, 2 },
	{ "compare_more_args_after_last_common", 1, 3,
	  { "x=" TPK_R0 }, { "x=" TPK_R0, "y=" TPK_R1, "z=" TPK_R2 }, 2 },
};

static void tpk_cmp_desc(const struct tpk_cmp_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tpk_cmp, tpk_cmp_cases, tpk_cmp_desc);

static void sibling_arg_types_compared(struct kunit *test)
{
	const struct tpk_cmp_case *c = test->param_value;
	struct tpk_run a, b;

	tpk_parse(test, UPROBE, c->a, c->na, &a);
	tpk_parse(test, UPROBE, c->b, c->nb, &b);
	KUNIT_ASSERT_EQ(test, a.ret, 0);
	KUNIT_ASSERT_EQ(test, b.ret, 0);
	KUNIT_EXPECT_EQ(test, trace_probe_compare_arg_type(a.tp, b.tp), c->want);
	KUNIT_EXPECT_EQ(test, trace_probe_compare_arg_type(b.tp, a.tp), c->want);
}

/* ---- matching a removal command against a probe's arguments ---- */

struct tpk_match_case {
	const char *desc;
	int argc;
	const char *argv[3];
	bool want;
};

static const char * const tpk_match_args[] = { "x=" TPK_R0 ":u32", "+0(" TPK_SP "):string" };

static const struct tpk_match_case tpk_match_cases[] = {
	{ "match_all_canonical_args", 2,
	  { "x=" TPK_R0 ":u32", "arg2=+0(" TPK_SP "):string" }, true },
	{ "match_leading_args_only", 1, { "x=" TPK_R0 ":u32" }, true },
	{ "match_no_args", 0, { }, true },
	{ "match_fails_on_other_type", 1, { "x=" TPK_R0 }, false },
	{ "match_fails_on_other_name", 1, { "y=" TPK_R0 ":u32" }, false },
	{ "match_fails_without_generated_name", 2, { "x=" TPK_R0 ":u32", "+0(" TPK_SP "):string" },
	  false },
	{ "match_fails_with_extra_arg", 3,
	  { "x=" TPK_R0 ":u32", "arg2=+0(" TPK_SP "):string", "z=" TPK_R1 }, false },
};

static void tpk_match_desc(const struct tpk_match_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tpk_match, tpk_match_cases, tpk_match_desc);

static void command_args_matched_against_probe(struct kunit *test)
{
	const struct tpk_match_case *c = test->param_value;
	const char *argv[3];
	struct tpk_run run;

	tpk_parse(test, UPROBE, tpk_match_args, ARRAY_SIZE(tpk_match_args), &run);
	KUNIT_ASSERT_EQ(test, run.ret, 0);
	memcpy(argv, c->argv, sizeof(argv));
	KUNIT_EXPECT_EQ(test, trace_probe_match_command_args(run.tp, c->argc, argv),
			c->want);
}

/* The site test of the removal match below: the site is "SITE". */
static int tpk_site_calls;

static bool tpk_site_is_site(struct trace_probe *tp, const char *word)
{
	tpk_site_calls++;
	return !strcmp(word, "SITE");
}

/*
 * The removal match every front end uses: the name first, the site word
 * only when one is given, then the arguments.
 */
static void removal_command_matches_name_site_and_args(struct kunit *test)
{
	const char *site_only[1] = { "SITE" };
	const char *other_site[1] = { "ELSEWHERE" };
	const char *site_arg[2] = { "SITE", "x=" TPK_R0 ":u32" };
	const char *site_other_arg[2] = { "SITE", "y=" TPK_R0 ":u32" };
	struct tpk_run run;

	tpk_parse(test, UPROBE, tpk_match_args, ARRAY_SIZE(tpk_match_args), &run);
	KUNIT_ASSERT_EQ(test, run.ret, 0);

	tpk_site_calls = 0;
	KUNIT_EXPECT_TRUE(test, trace_probe_match_command(run.tp, NULL, "", 0,
							  NULL, tpk_site_is_site));
	KUNIT_EXPECT_TRUE(test, trace_probe_match_command(run.tp, TPK_GROUP,
							  TPK_EVENT, 0, NULL,
							  tpk_site_is_site));
	KUNIT_EXPECT_EQ_MSG(test, tpk_site_calls, 0, "no site word, no site test");
	KUNIT_EXPECT_FALSE(test, trace_probe_match_command(run.tp, "other", "",
							   1, site_only,
							   tpk_site_is_site));
	KUNIT_EXPECT_FALSE(test, trace_probe_match_command(run.tp, NULL, "other",
							   1, site_only,
							   tpk_site_is_site));
	KUNIT_EXPECT_EQ_MSG(test, tpk_site_calls, 0, "name first");
	KUNIT_EXPECT_TRUE(test, trace_probe_match_command(run.tp, NULL, TPK_EVENT,
							  1, site_only,
							  tpk_site_is_site));
	KUNIT_EXPECT_FALSE(test, trace_probe_match_command(run.tp, NULL, TPK_EVENT,
							   1, other_site,
							   tpk_site_is_site));
	KUNIT_EXPECT_TRUE(test, trace_probe_match_command(run.tp, NULL, TPK_EVENT,
							  2, site_arg,
							  tpk_site_is_site));
	KUNIT_EXPECT_FALSE(test, trace_probe_match_command(run.tp, NULL, TPK_EVENT,
							   2, site_other_arg,
							   tpk_site_is_site));
	KUNIT_EXPECT_EQ(test, tpk_site_calls, 4);
}

/* ---- single behaviours ---- */

static void probe_init_names_event_and_group(struct kunit *test)
{
	struct trace_probe *tp = tpk_new_probe(test, 3, true);
	struct trace_event_call *call = trace_probe_event_call(tp);
	int i;

	tpk_expect_str(test, trace_probe_name(tp), TPK_EVENT, "event");
	tpk_expect_str(test, trace_probe_group_name(tp), TPK_GROUP, "group");
	KUNIT_EXPECT_EQ(test, tp->nr_args, 3);
	KUNIT_EXPECT_EQ(test, tp->size, 0);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_NULL(test, tp->args[i].name);
		KUNIT_EXPECT_NULL(test, tp->args[i].code);
	}
	KUNIT_EXPECT_PTR_EQ(test, trace_probe_primary_from_call(call), tp);
	KUNIT_EXPECT_FALSE(test, trace_probe_has_sibling(tp));
	KUNIT_EXPECT_FALSE(test, trace_probe_is_enabled(tp));
	KUNIT_EXPECT_TRUE(test, list_empty(trace_get_fields(call)));
}

static void probe_init_requires_event_and_group(struct kunit *test)
{
	struct trace_probe *tp;

	tp = kunit_kzalloc(test, struct_size(tp, args, 1), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tp);
	KUNIT_EXPECT_EQ(test, trace_probe_init(tp, NULL, TPK_GROUP, false, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, trace_probe_init(tp, TPK_EVENT, NULL, false, 1), -EINVAL);
}

/*
 * A return probe that reads entry arguments records each distinct one once
 * at entry, one unsigned long per slot, in order of first use.
 */
static void kretprobe_entry_args_share_entry_data(struct kunit *test)
{
	static const char * const args[] = { "$arg1", "$arg3", "again=$arg1" };
	unsigned long edata[4] = { };
	struct pt_regs regs = TPK_ARG_REGS(0x11, 0x22, 0x33);
	struct tpk_run run;

	tpk_parse(test, KRETPROBE, args, ARRAY_SIZE(args), &run);
	KUNIT_ASSERT_EQ(test, run.ret, 0);
	tpk_expect_code(test, run.tp->args[0].code, PROG(OP_EDATA(0), OP_ST_RAW(8)));
	tpk_expect_code(test, run.tp->args[1].code, PROG(OP_EDATA(8), OP_ST_RAW(8)));
	tpk_expect_code(test, run.tp->args[2].code, PROG(OP_EDATA(0), OP_ST_RAW(8)));
	KUNIT_EXPECT_EQ(test, traceprobe_get_entry_data_size(run.tp), 16);

	store_trace_entry_data(edata, run.tp, &regs);
	KUNIT_EXPECT_EQ(test, edata[0], 0x11UL);
	KUNIT_EXPECT_EQ(test, edata[1], 0x33UL);
	KUNIT_EXPECT_EQ(test, edata[2], 0UL);
}

static void uretprobe_has_no_entry_data(struct kunit *test)
{
	static const char * const args[] = { "$retval", "+0($stack):u32" };
	struct tpk_run run;

	tpk_parse(test, URETPROBE, args, ARRAY_SIZE(args), &run);
	KUNIT_ASSERT_EQ(test, run.ret, 0);
	KUNIT_EXPECT_NULL(test, run.tp->entry_arg);
	KUNIT_EXPECT_EQ(test, traceprobe_get_entry_data_size(run.tp), 0);
}

static void kprobe_symbol_resolved_by_update_arg(struct kunit *test)
{
	static const char * const args[] = { "@schedule+8:u32" };
	unsigned long addr = kallsyms_lookup_name("schedule");
	struct probe_arg *parg;
	struct tpk_run run;

	if (!addr)
		kunit_skip(test, "kallsyms does not know schedule");
	tpk_parse(test, KPROBE_FUNC, args, 1, &run);
	KUNIT_ASSERT_EQ(test, run.ret, 0);
	parg = &run.tp->args[0];
	KUNIT_EXPECT_EQ(test, traceprobe_update_arg(parg), 0);
	tpk_expect_code(test, parg->code,
			PROG(OP_SYMBOL("schedule+8"), OP_IMM(addr + 8), OP_ST_MEM(0, 4)));
}

static void kprobe_unknown_symbol_fails_update_arg(struct kunit *test)
{
	static const char * const args[] = { "@kunit_no_such_symbol_xyz" };
	struct tpk_run run;

	tpk_parse(test, KPROBE_FUNC, args, 1, &run);
	KUNIT_ASSERT_EQ(test, run.ret, 0);
	KUNIT_EXPECT_EQ(test, traceprobe_update_arg(&run.tp->args[0]), -ENOENT);
}

/* Store @len bytes of @val at @off of the argument area (unaligned). */
static void tpk_put(u8 *data, const struct probe_arg *parg, const void *val,
		    size_t len)
{
	memcpy(data + parg->offset, val, len);
}

#define TPK_PRINTED	" a=5 b=-3 c=0x10 d={1,2,3} s=\"abc\" ch='A' big=18446744073709551615 f=(fault)"

/*
 * Values in a record print by type: decimal for u/s, hex for x, a quoted
 * string, a quoted character, braces around arrays, "(fault)" for a
 * string that could not be read.
 */
static void print_args_formats_values_by_type(struct kunit *test)
{
	static const char * const args[] = {
		"a=\\5:u8", "b=\\-3:s32", "c=\\0x10:x16", "d=+0($stack):u32[3]",
		"s=$comm", "ch=\\65:char", "big=\\-1:u64", "f=$comm",
	};
	static const u32 d[3] = { 1, 2, 3 };
	u8 a = 5, ch = 'A';
	s32 b = -3;
	u16 c = 0x10;
	u64 big = -1ULL;
	u32 loc, noloc = make_data_loc(0, 0);
	struct trace_seq *s;
	struct probe_arg *p;
	struct tpk_run run;
	u8 *rec, *data;
	int ret;

	tpk_parse(test, UPROBE, args, ARRAY_SIZE(args), &run);
	KUNIT_ASSERT_EQ(test, run.ret, 0);
	KUNIT_ASSERT_LE(test, run.tp->size, (ssize_t)64);
	rec = kunit_kzalloc(test, 128, GFP_KERNEL);
	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_ASSERT_NOT_NULL(test, s);

	/* Record: 8 header bytes, the arguments, then the string "abc". */
	data = rec + 8;
	loc = make_data_loc(4, 8 + run.tp->size);
	memcpy(data + run.tp->size, "abc", 4);
	p = run.tp->args;
	tpk_put(data, &p[0], &a, sizeof(a));
	tpk_put(data, &p[1], &b, sizeof(b));
	tpk_put(data, &p[2], &c, sizeof(c));
	tpk_put(data, &p[3], d, sizeof(d));
	tpk_put(data, &p[4], &loc, sizeof(loc));
	tpk_put(data, &p[5], &ch, sizeof(ch));
	tpk_put(data, &p[6], &big, sizeof(big));
	tpk_put(data, &p[7], &noloc, sizeof(noloc));

	trace_seq_init(s);
	ret = trace_probe_print_args(s, run.tp->args, run.tp->nr_args, data, rec);
	KUNIT_EXPECT_EQ(test, ret, 0);
	trace_seq_putc(s, '\0');
	KUNIT_EXPECT_STREQ(test, s->buffer, TPK_PRINTED);
}

static struct kunit_case trace_probe_kunit_cases[] = {
	KUNIT_CASE_PARAM(valid_arg_compiles_as_upstream, tpk_arg_gen_params),
	KUNIT_CASE_PARAM(definition_lists_fields_and_print_fmt, tpk_def_gen_params),
	KUNIT_CASE_PARAM(invalid_arg_reports_error_and_caret, tpk_bad_gen_params),
#ifdef CONFIG_PROBE_EVENTS_BTF_ARGS
	KUNIT_CASE(btf_params_named_and_typed),
	KUNIT_CASE(btf_retval_typed_or_refused),
	KUNIT_CASE_PARAM(btf_bad_arg_reports_error_and_caret, tpk_btf_bad_gen_params),
	KUNIT_CASE(btf_meta_args_expand_to_names),
#endif
	KUNIT_CASE_PARAM(event_name_splits_group_and_event, tpk_name_gen_params),
	KUNIT_CASE_PARAM(symbol_offset_is_split, tpk_symoff_gen_params),
	KUNIT_CASE(symbol_offset_needs_result_pointer),
	KUNIT_CASE_PARAM(type_table_describes_type, tpk_type_gen_params),
	KUNIT_CASE_PARAM(sibling_arg_types_compared, tpk_cmp_gen_params),
	KUNIT_CASE_PARAM(command_args_matched_against_probe, tpk_match_gen_params),
	KUNIT_CASE(removal_command_matches_name_site_and_args),
	KUNIT_CASE(probe_init_names_event_and_group),
	KUNIT_CASE(probe_init_requires_event_and_group),
	KUNIT_CASE(kretprobe_entry_args_share_entry_data),
	KUNIT_CASE(uretprobe_has_no_entry_data),
	KUNIT_CASE(kprobe_symbol_resolved_by_update_arg),
	KUNIT_CASE(kprobe_unknown_symbol_fails_update_arg),
	KUNIT_CASE(print_args_formats_values_by_type),
	{}
};

static struct kunit_suite trace_probe_kunit_suite = {
	.name = "trace_probe",
	.test_cases = trace_probe_kunit_cases,
};

kunit_test_suite(trace_probe_kunit_suite);
