// SPDX-License-Identifier: GPL-2.0
/*
 * Fetch-argument compiler of the probe-definition library.
 *
 * Every probe event (kprobe, fprobe, tprobe, eprobe, uprobe) may record
 * fetch arguments, each written by the user as
 *
 *	[NAME=]EXPR[:TYPE[[N]]]
 *
 * with EXPR one of
 *
 *	%REG   $stack  $stackN  $retval  $comm  $argN  $FIELD (event probes)
 *	@ADDR  @SYM[+|-OFFS] (kernel)  @+FOFFS (user)  \IMM  \"TEXT"
 *	+|-[u]OFFS(EXPR)	load from (EXPR + OFFS), 'u' for user memory
 *
 * and TYPE a basic type (u8..u64, s8..s64, x8..x64, char, symbol), a
 * string type (string, ustring, symstr) or a bitfield b<W>@<O>/<C>.
 *
 * One argument compiles into a short program of struct fetch_insn that the
 * front end runs each time the probe hits.  The program always has the
 * same shape:
 *
 *	load	the leaf (FETCH_OP_REG, _STACK, _IMM, ...); a kernel symbol
 *		is a FETCH_NOP_SYMBOL placeholder followed by FETCH_OP_IMM,
 *		resolved later by traceprobe_update_arg()
 *	deref*	one FETCH_OP_DEREF/_UDEREF per memory load, innermost first
 *	store	one FETCH_OP_ST_*; it may take the place of the last deref
 *	modify	FETCH_OP_MOD_BF, bitfield types only
 *	loop	FETCH_OP_LP_ARRAY, array types only
 *	end	FETCH_OP_END
 *
 * and never needs more than FETCH_INSN_MAX slots, terminator included.
 *
 * Errors are reported in the probe error log.  Caret positions count bytes
 * from the start of the argument as typed; the caller's log index selects
 * the argument.  Error kinds and caret positions are part of the tracefs
 * ABI (user tools and the ftrace selftests rely on them), so this parser
 * keeps them as they have always been, including a few irregular carets
 * that are marked "ABI" below.
 *
 * Context: all of this runs in process context with dyn_event_ops_mutex
 * held (the error log requires it), except store_trace_entry_data(), which
 * runs in the probe handler.
 *
 * BTF (CONFIG_PROBE_EVENTS_BTF_ARGS; types from trace_probe_btf.c): at a
 * function's entry or exit an EXPR may also be
 *
 *	NAME[->MEMBER|.MEMBER...]	a parameter of the function
 *	$retval[->MEMBER|.MEMBER...]	(exit) the return value
 *
 * "->" loads a pointer and steps into the structure it points to, "."
 * steps into an embedded structure; the last member is loaded.  Without a
 * ":TYPE" such an argument gets the BTF type of what it reads, and
 * traceprobe_expand_meta_args() turns "$arg*" into every parameter's name
 * and "$argN" into the Nth one's.  Without BTF, or where the function has
 * none, these forms get an error-log entry that says why.
 */
#define pr_fmt(fmt)	"trace_probe: " fmt

#include <linux/ctype.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/glob.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "trace_probe_internal.h"

/* Largest $stackN / $argN accepted: one kernel stack worth of words. */
#define TPP_MAX_WORD_INDEX	(THREAD_SIZE / sizeof(unsigned long))

/* Program slots available to the stages; the last one holds FETCH_OP_END. */
#define TPP_PROG_ROOM		(FETCH_INSN_MAX - 1)

/*
 * struct tpp_compiler - state while one fetch argument is compiled
 * @ctx:	the caller's parse context (flags, event, probe)
 * @insn:	program under construction; unused slots are FETCH_OP_NOP
 * @nr:		number of slots in use
 * @tail_pos:	caret for errors found once the expression is compiled: the
 *		operand of the outermost dereference, or the start of the
 *		expression when it has none (ABI)
 * @depth:	dereference operands being compiled around the current point
 * @want:	the argument's type as written, NULL when none was given
 * @btf_tname:	the fetch type the BTF type maps to, "" when none
 *
 * Lifetime: on the stack of one traceprobe_parse_probe_arg() call and owned
 * by it alone.  The payloads of FETCH_NOP_SYMBOL and FETCH_OP_DATA slots
 * (kmalloc'ed strings) belong to the compiler until the finished program is
 * handed to the probe_arg; tpp_release() frees them on failure.
 */
struct tpp_compiler {
	struct traceprobe_parse_context *ctx;
	struct fetch_insn insn[FETCH_INSN_MAX];
	int nr;
	int tail_pos;
	int depth;
	const struct fetch_type *want;
	char btf_tname[TPROBE_BTF_TYPE_LEN];
};

/*
 * struct tpp_type_spec - the ":TYPE[N]" part of one argument
 * @type:	resolved fetch type
 * @text:	the type as written, "[N]" cut off; NULL when none was given
 * @off:	offset of @text in the argument; 0 when there is no @text
 * @count:	array length, 0 for a scalar
 */
struct tpp_type_spec {
	const struct fetch_type *type;
	char *text;
	int off;
	unsigned int count;
};

/* Field names every probe event already has, or that the library adds. */
static const char * const tpp_reserved_names[] = {
	FIELD_STRING_IP, FIELD_STRING_RETIP, FIELD_STRING_FUNC,
	"common_type", "common_flags", "common_preempt_count",
	"common_pid", "common_tgid",
};

/* Log @err at caret @pos and hand back @ret, so callers can return it. */
static int tpp_fail(int pos, int err, int ret)
{
	__trace_probe_log_err(pos, err);
	return ret;
}

static const struct fetch_type *tpp_type(const char *name)
{
	return tprobe_find_type(name, strlen(name));
}

static bool tpp_is_comm(const char *name)
{
	return !strcmp(name, "comm") || !strcmp(name, "COMM");
}

/* ---- program builder ---------------------------------------------- */

static bool tpp_insn_owns_data(const struct fetch_insn *insn)
{
	return insn->op == FETCH_NOP_SYMBOL || insn->op == FETCH_OP_DATA;
}

static void tpp_release(struct tpp_compiler *c)
{
	int i;

	for (i = 0; i < c->nr; i++)
		if (tpp_insn_owns_data(&c->insn[i]))
			kfree(c->insn[i].data);
	c->nr = 0;
}

/* Append one instruction; NULL when only the terminator slot is left. */
static struct fetch_insn *tpp_emit(struct tpp_compiler *c, enum fetch_op op)
{
	struct fetch_insn *insn;

	if (c->nr >= TPP_PROG_ROOM)
		return NULL;
	insn = &c->insn[c->nr++];
	insn->op = op;
	return insn;
}

/* The load is the first instruction of every program: it always fits. */
static struct fetch_insn *tpp_load(struct tpp_compiler *c, enum fetch_op op)
{
	WARN_ON_ONCE(c->nr);
	c->nr = 1;
	c->insn[0].op = op;
	return &c->insn[0];
}

static struct fetch_insn *tpp_last(struct tpp_compiler *c)
{
	return &c->insn[c->nr - 1];
}

/* ---- entry-argument capture for return probes --------------------- */

#ifdef CONFIG_HAVE_FUNCTION_ARG_ACCESS_API
/*
 * tp->entry_arg->code is a list of (FETCH_OP_ARG n, FETCH_OP_ST_EDATA offs)
 * pairs, one per distinct function argument some $argN of a return probe
 * needs, padded with FETCH_OP_END.  Pair k saves its argument in word k of
 * the per-instance entry data buffer, so offs == k * sizeof(long).
 *
 * Lifetime: built while the probe is parsed (dyn_event_ops_mutex held),
 * read-only once the probe is registered, freed with the probe by
 * trace_probe_cleanup().  There is room for one pair per probe argument.
 */
static int tpp_entry_arg_alloc(struct trace_probe *tp)
{
	unsigned int slots = 2 * tp->nr_args + 1;	/* pairs, then the end */
	struct probe_entry_arg *earg;
	struct fetch_insn *code;

	code = kmalloc_array(slots, sizeof(*code), GFP_KERNEL);
	earg = kzalloc(sizeof(*earg), GFP_KERNEL);
	if (!code || !earg) {
		kfree(code);
		kfree(earg);
		return -ENOMEM;
	}
	earg->code = code;
	earg->size = slots;
	while (slots--) {
		memset(&code[slots], 0, sizeof(*code));
		code[slots].op = FETCH_OP_END;
	}
	tp->entry_arg = earg;
	return 0;
}

/* Return the entry data offset where argument @nth will be saved. */
static int tpp_capture_entry_arg(struct trace_probe *tp, unsigned int nth)
{
	struct fetch_insn *pair;
	unsigned int i;
	int ret;

	if (!tp->entry_arg) {
		ret = tpp_entry_arg_alloc(tp);
		if (ret)
			return ret;
	}

	for (i = 0; i + 1 < tp->entry_arg->size; i += 2) {
		pair = &tp->entry_arg->code[i];
		if (pair[0].op == FETCH_OP_END) {
			pair[0].op = FETCH_OP_ARG;
			pair[0].param = nth;
			pair[1].op = FETCH_OP_ST_EDATA;
			pair[1].offset = (i / 2) * sizeof(unsigned long);
			return pair[1].offset;
		}
		if (pair[0].param == nth)
			return pair[1].offset;
	}
	return -ENOSPC;
}

/**
 * traceprobe_get_entry_data_size - entry data a return probe needs
 * @tp: the parsed probe
 *
 * Context: process context, after all arguments of @tp were parsed.
 * Return: bytes of per-instance entry data that store_trace_entry_data()
 * fills for @tp; 0 when no argument reads a function argument at return.
 */
int traceprobe_get_entry_data_size(struct trace_probe *tp)
{
	struct probe_entry_arg *earg = tp->entry_arg;
	unsigned int i;
	int size = 0;

	for (i = 0; earg && i < earg->size; i++) {
		if (earg->code[i].op == FETCH_OP_END)
			break;
		if (earg->code[i].op == FETCH_OP_ST_EDATA)
			size += sizeof(unsigned long);
	}
	return size;
}

/**
 * store_trace_entry_data - save function arguments at function entry
 * @edata: the instance's entry data buffer, traceprobe_get_entry_data_size()
 *	bytes long
 * @tp: the probe
 * @regs: registers at function entry
 *
 * Context: probe handler (any context, must not sleep or be probed).
 * Saves the arguments that $argN of the return probe @tp will print.
 */
void store_trace_entry_data(void *edata, struct trace_probe *tp, struct pt_regs *regs)
{
	struct probe_entry_arg *earg = tp->entry_arg;
	const struct fetch_insn *pair;
	unsigned long *word;
	unsigned int i;

	if (!earg)
		return;
	for (i = 0; i + 1 < earg->size; i += 2) {
		pair = &earg->code[i];
		if (pair[0].op != FETCH_OP_ARG)
			break;
		word = edata + pair[1].offset;
		*word = regs_get_kernel_argument(regs, pair[0].param);
	}
}

NOKPROBE_SYMBOL(store_trace_entry_data);
#else
static int tpp_capture_entry_arg(struct trace_probe *tp, unsigned int nth)
{
	return -EOPNOTSUPP;
}
#endif /* CONFIG_HAVE_FUNCTION_ARG_ACCESS_API */

/* ---- leaves: $vars ------------------------------------------------ */

static int tpp_event_field(struct tpp_compiler *c, const char *name, int pos)
{
	struct ftrace_event_field *field;

	list_for_each_entry(field, trace_get_fields(c->ctx->event), link) {
		if (!strcmp(field->name, name)) {
			tpp_load(c, FETCH_OP_TP_ARG)->data = field;
			return 0;
		}
	}
	if (!tpp_is_comm(name))
		return tpp_fail(pos, TP_ERR_BAD_VAR, -EINVAL);
	tpp_load(c, FETCH_OP_COMM);
	return 0;
}

static int tpp_stack(struct tpp_compiler *c, const char *num, int pos)
{
	unsigned long idx;

	if (!*num) {
		tpp_load(c, FETCH_OP_STACKP);
		return 0;
	}
	if (!isdigit(*num) || kstrtoul(num, 10, &idx))
		return tpp_fail(pos, TP_ERR_BAD_VAR, -EINVAL);
	if ((c->ctx->flags & TPARG_FL_KERNEL) && idx > TPP_MAX_WORD_INDEX)
		return tpp_fail(pos, TP_ERR_BAD_STACK_NUM, -EINVAL);
	tpp_load(c, FETCH_OP_STACK)->param = idx;
	return 0;
}

/* Load the function's argument @nth (0-based), at entry or saved for exit. */
static int tpp_arg_nth(struct tpp_compiler *c, unsigned long nth, int pos)
{
	unsigned int flags = c->ctx->flags;
	int offs;

	if (tparg_is_function_entry(flags)) {
		/* A tracepoint stub has a hidden first parameter. */
		if (flags & TPARG_FL_TPOINT)
			nth++;
		tpp_load(c, FETCH_OP_ARG)->param = nth;
		return 0;
	}
	if (!tparg_is_function_return(flags))
		return tpp_fail(pos, TP_ERR_NOFENTRY_ARGS, -EINVAL);

	/* At return, read the copy saved by store_trace_entry_data(). */
	offs = tpp_capture_entry_arg(c->ctx->tp, nth);
	if (offs < 0)
		return offs;
	tpp_load(c, FETCH_OP_EDATA)->offset = offs;
	return 0;
}

static int tpp_func_arg(struct tpp_compiler *c, const char *num, int pos)
{
	unsigned long nth;

	/* "$arg*" only works as a whole argument (traceprobe_expand_meta_args). */
	if (!strcmp(num, "*"))
		return tpp_fail(pos, TP_ERR_BAD_VAR_ARGS, -EINVAL);
	if (kstrtoul(num, 10, &nth))
		return tpp_fail(pos, TP_ERR_BAD_VAR, -EINVAL);
	if (!nth || nth > TPP_MAX_WORD_INDEX)
		return tpp_fail(pos, TP_ERR_BAD_ARG_NUM, -EINVAL);
	/* users count from $arg1, registers from 0 */
	return tpp_arg_nth(c, nth - 1, pos);
}

#ifdef CONFIG_PROBE_EVENTS_BTF_ARGS
/* A kernel function's entry or exit: where BTF names and types apply. */
static bool tpp_btf_place(const struct traceprobe_parse_context *ctx)
{
	return !(ctx->flags & TPARG_FL_USER) &&
	       (tparg_is_function_entry(ctx->flags) ||
		tparg_is_function_return(ctx->flags));
}

/* Emit a load of the word at (top of program + @off). */
static int tpp_btf_load(struct tpp_compiler *c, long off, int pos)
{
	struct fetch_insn *insn = tpp_emit(c, FETCH_OP_DEREF);

	if (!insn)
		return tpp_fail(pos, TP_ERR_TOO_MANY_OPS, -E2BIG);
	insn->offset = off;
	c->tail_pos = pos;
	return 0;
}

/* One "->" step from the item of type *@t, in memory at +*@off or loaded. */
static int tpp_btf_arrow(struct tpp_compiler *c, const struct btf_type **t,
			 bool *in_memory, long off, int npos)
{
	const struct btf_type *pointee;
	int ret;

	if (!*t || !btf_type_is_ptr(*t))
		return tpp_fail(npos, TP_ERR_NO_PTR_STRCT, -EINVAL);
	pointee = tprobe_btf_pointee(c->ctx, *t);
	/* void *, char *, a structure declared but never defined, ... */
	if (!pointee || !btf_type_is_struct(pointee))
		return tpp_fail(npos, TP_ERR_BAD_BTF_TID, -EINVAL);
	if (*in_memory) {
		ret = tpp_btf_load(c, off, npos);
		if (ret)
			return ret;
		*in_memory = false;
	}
	*t = pointee;
	return 0;
}

/*
 * After the member steps: the item, of type @t, is loaded or at +@off
 * (@in_memory).  Finish it for the argument's type: a string's address
 * for a string type, else the value, and note the BTF type when the user
 * gave none.  @m is the last member stepped into, zeroed if none.
 */
static int tpp_btf_finish(struct tpp_compiler *c, const struct btf_type *t,
			  bool in_memory, long off,
			  const struct tprobe_btf_member *m, int pos)
{
	const struct traceprobe_parse_context *ctx = c->ctx;
	bool string = c->want && c->want->is_string &&
		      strcmp(c->want->name, "symstr");
	int ret;

	if (string) {
		if (in_memory && tprobe_btf_is_char_array(ctx, t))
			return tpp_btf_load(c, off, pos);
		/* ABI: placed at the start of the argument */
		if (!tprobe_btf_is_char_ptr(ctx, t))
			return tpp_fail(ctx->offset, TP_ERR_BAD_TYPE4STR, -EINVAL);
		if (in_memory) {
			ret = tpp_btf_load(c, off, pos);
			if (ret)
				return ret;
		}
		return tpp_btf_load(c, 0, pos);
	}

	if (!c->want) {
		if (m->bit_size) {
			unsigned int bits = t->size * BITS_PER_BYTE;

			/* The container: the member's own type, aligned. */
			if (!bits || bits > 64 || !is_power_of_2(t->size))
				return tpp_fail(pos, TP_ERR_BAD_BTF_TID, -EINVAL);
			off += (long)(m->bit_offset / bits) * t->size -
			       m->bit_offset / BITS_PER_BYTE;
			snprintf(c->btf_tname, sizeof(c->btf_tname), "b%u@%u/%u",
				 m->bit_size, m->bit_offset % bits, bits);
		} else if (!tprobe_btf_fetch_type(t, c->btf_tname)) {
			/* structures, arrays, ...: the word, in hex (6.12) */
			snprintf(c->btf_tname, sizeof(c->btf_tname), "x%zu",
				 sizeof(long) * BITS_PER_BYTE);
		}
	}
	return in_memory ? tpp_btf_load(c, off, pos) : 0;
}

/*
 * The "->MEMBER" and ".MEMBER" steps @s (caret @pos) after a value of BTF
 * type @t on top of the program.  While stepping, the item is either that
 * value or, after a member step, the memory at (value + off); a "->" from
 * memory loads the pointer first.  Inside a dereference's operand
 * (c->depth) the steps only compute the address or value: the type and
 * the string rules belong to the outermost expression, as in 6.12.
 */
static int tpp_btf_members(struct tpp_compiler *c, const struct btf_type *t,
			   const char *s, int pos)
{
	const struct traceprobe_parse_context *ctx = c->ctx;
	struct tprobe_btf_member m = { };
	bool in_memory = false;
	const char *p = s;
	long off = 0;
	int ret;

	while (*p) {
		bool arrow = p[0] == '-';
		const char *name = p + (arrow ? 2 : 1);
		size_t len = strcspn(name, "-.");
		int npos = pos + (name - s);

		if (arrow && p[1] != '>')
			return tpp_fail(pos + (p - s), TP_ERR_BAD_HYPHEN, -EINVAL);
		if (!arrow && p[0] != '.')
			return tpp_fail(pos + (p - s), TP_ERR_BAD_FETCH_ARG, -EINVAL);
		if (!len)
			return tpp_fail(npos, TP_ERR_NO_BTF_FIELD, -EINVAL);

		if (arrow) {
			ret = tpp_btf_arrow(c, &t, &in_memory, off, npos);
			if (ret)
				return ret;
			off = 0;
		} else if (!in_memory) {
			/* a structure held in a register */
			return tpp_fail(npos, TP_ERR_NOSUP_DAT_ARG, -EOPNOTSUPP);
		} else if (!t || !btf_type_is_struct(t) || m.bit_size) {
			return tpp_fail(npos, TP_ERR_BAD_BTF_TID, -EINVAL);
		}

		ret = tprobe_btf_member(ctx, t, name, len, &m);
		if (ret == -ENOENT)
			return tpp_fail(npos, TP_ERR_NO_BTF_FIELD, -ENOENT);
		if (ret)
			return ret;
		off += m.bit_offset / BITS_PER_BYTE;
		t = m.type;
		in_memory = true;
		p = name + len;
	}

	if (c->depth)
		return in_memory ? tpp_btf_load(c, off, pos) : 0;
	return tpp_btf_finish(c, t, in_memory, off, &m, pos);
}

/* NAME[->MEMBER|.MEMBER...]: a parameter of the probed function. */
static int tpp_btf_param(struct tpp_compiler *c, const char *s, int pos)
{
	struct traceprobe_parse_context *ctx = c->ctx;
	size_t len = strcspn(s, "-.");
	int nth, ret;

	if (!tpp_btf_place(ctx))
		return tpp_fail(pos, TP_ERR_NOSUP_BTFARG, -EINVAL);
	if (tprobe_btf_query(ctx) || !tprobe_btf_nr_args(ctx))
		return tpp_fail(pos, TP_ERR_NO_BTF_ENTRY, -ENOENT);
	nth = tprobe_btf_arg_index(ctx, s, len);
	if (nth < 0)
		return tpp_fail(pos, TP_ERR_NO_BTFARG, -ENOENT);
	ret = tpp_arg_nth(c, nth, pos);
	if (ret)
		return ret;
	return tpp_btf_members(c, tprobe_btf_arg_type(ctx, nth), s + len,
			       pos + len);
}

/* After "$retval": its BTF type, and members when @rest starts with any. */
static int tpp_btf_retval(struct tpp_compiler *c, const char *rest, int pos,
			  int rest_pos)
{
	struct traceprobe_parse_context *ctx = c->ctx;
	bool members = rest[0] == '.' || rest[0] == '-';
	const struct btf_type *t;

	if (!tpp_btf_place(ctx))
		return 0;	/* user space: untyped, as without BTF */
	if (tprobe_btf_query(ctx)) {
		if (members)
			return tpp_fail(rest_pos + 1 + (rest[0] == '-'),
					TP_ERR_NO_BTF_ENTRY, -ENOENT);
		return 0;	/* untyped, as without BTF */
	}
	/* "$retval" was matched as a prefix (ABI); with BTF it must end. */
	if (rest[0] && !members)
		return tpp_fail(pos, TP_ERR_NO_BTFARG, -ENOENT);
	t = tprobe_btf_ret_type(ctx);
	if (!t)
		return tpp_fail(pos, TP_ERR_NO_RETVAL, -ENOENT);
	return tpp_btf_members(c, t, rest, rest_pos);
}
#else
static int tpp_btf_param(struct tpp_compiler *c, const char *s, int pos)
{
	unsigned int flags = c->ctx->flags;

	/* A bare name would be a BTF variable, which is not built in. */
	return tpp_fail(pos, TP_ERR_NOSUP_BTFARG,
			tparg_is_function_entry(flags) ||
			tparg_is_function_return(flags) ? -EOPNOTSUPP : -EINVAL);
}

static int tpp_btf_retval(struct tpp_compiler *c, const char *rest, int pos,
			  int rest_pos)
{
	return 0;
}
#endif /* CONFIG_PROBE_EVENTS_BTF_ARGS */

static int tpp_variable(struct tpp_compiler *c, const char *s, int pos)
{
	unsigned int flags = c->ctx->flags;
	const char *name = s + 1;

	/* Event probes: $NAME is a field of the attached event. */
	if (flags & TPARG_FL_TEVENT)
		return tpp_event_field(c, name, pos);

	/* "$retval" is matched as a prefix (ABI). */
	if (str_has_prefix(name, "retval")) {
		if (!(flags & TPARG_FL_RETURN))
			return tpp_fail(pos, TP_ERR_RETVAL_ON_PROBE, -EINVAL);
		tpp_load(c, FETCH_OP_RETVAL);
		return tpp_btf_retval(c, name + strlen("retval"), pos,
				      pos + 1 + strlen("retval"));
	}
	if (str_has_prefix(name, "stack"))
		return tpp_stack(c, name + strlen("stack"), pos);
	if (tpp_is_comm(name)) {
		tpp_load(c, FETCH_OP_COMM);
		return 0;
	}
	if (IS_ENABLED(CONFIG_HAVE_FUNCTION_ARG_ACCESS_API) &&
	    str_has_prefix(name, "arg"))
		return tpp_func_arg(c, name + strlen("arg"), pos);
	return tpp_fail(pos, TP_ERR_BAD_VAR, -EINVAL);
}

/* ---- leaves: registers, memory, immediates ------------------------ */

static int tpp_register(struct tpp_compiler *c, const char *s, int pos)
{
	int offs;

	/* fprobes and event probes have no complete register frame. */
	if (c->ctx->flags & (TPARG_FL_TEVENT | TPARG_FL_FPROBE))
		return tpp_fail(pos, TP_ERR_BAD_VAR, -EINVAL);
	offs = regs_query_register_offset(s + 1);
	if (offs < 0)
		return tpp_fail(pos, TP_ERR_BAD_REG_NAME, offs);
	tpp_load(c, FETCH_OP_REG)->param = offs;
	return 0;
}

static int tpp_abs_address(struct tpp_compiler *c, const char *s, int pos)
{
	unsigned long addr;
	int ret;

	ret = kstrtoul(s, 0, &addr);
	if (ret)
		return tpp_fail(pos, TP_ERR_BAD_MEM_ADDR, ret);
	tpp_load(c, FETCH_OP_IMM)->immediate = addr;
	return 0;
}

static int tpp_file_offset(struct tpp_compiler *c, const char *s, int pos)
{
	long offs;
	int ret;

	if (c->ctx->flags & TPARG_FL_KERNEL)
		return tpp_fail(pos, TP_ERR_FILE_ON_KPROBE, -EINVAL);
	ret = kstrtol(s, 0, &offs);
	if (ret)
		return tpp_fail(pos, TP_ERR_BAD_FILE_OFFS, ret);
	tpp_load(c, FETCH_OP_FOFFS)->immediate = (unsigned long)offs;
	return 0;
}

static int tpp_symbol(struct tpp_compiler *c, const char *s, int pos)
{
	struct fetch_insn *insn;

	if (!(c->ctx->flags & TPARG_FL_KERNEL))
		return tpp_fail(pos, TP_ERR_SYM_ON_UPROBE, -EINVAL);

	/* Keep "SYM[+-OFFS]"; traceprobe_update_arg() fills the address in. */
	insn = tpp_load(c, FETCH_NOP_SYMBOL);
	insn->data = kstrdup(s, GFP_KERNEL);
	if (!insn->data)
		return -ENOMEM;
	insn = tpp_emit(c, FETCH_OP_IMM);
	if (!insn)
		return tpp_fail(pos, TP_ERR_TOO_MANY_OPS, -EINVAL);
	insn->immediate = 0;
	return 0;
}

/* "@..." loads the word at an address, a file offset or a symbol. */
static int tpp_memory(struct tpp_compiler *c, const char *s, int pos)
{
	struct fetch_insn *deref;
	int ret;

	if (isdigit(s[1]))
		ret = tpp_abs_address(c, s + 1, pos);
	else if (s[1] == '+')
		ret = tpp_file_offset(c, s + 2, pos);
	else
		ret = tpp_symbol(c, s + 1, pos);
	if (ret)
		return ret;

	deref = tpp_emit(c, FETCH_OP_DEREF);
	if (!deref)
		return tpp_fail(pos, TP_ERR_TOO_MANY_OPS, -EINVAL);
	deref->offset = 0;
	return 0;
}

static int tpp_imm_string(struct tpp_compiler *c, const char *s, int pos)
{
	size_t len = strlen(s);
	char *text;

	if (!len || s[len - 1] != '"')
		return tpp_fail(pos + len, TP_ERR_IMMSTR_NO_CLOSE, -EINVAL);
	text = kstrndup(s, len - 1, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	tpp_load(c, FETCH_OP_DATA)->data = text;
	return 0;
}

/* An immediate number: unsigned, or signed when it starts with +/-. */
static int tpp_parse_imm(const char *s, unsigned long *val)
{
	long sval;
	int ret;

	if (isdigit(*s))
		return kstrtoul(s, 0, val);
	if (*s != '-' && *s != '+')
		return -EINVAL;
	ret = kstrtol(*s == '+' ? s + 1 : s, 0, &sval);
	if (!ret)
		*val = sval;
	return ret;
}

static int tpp_immediate(struct tpp_compiler *c, const char *s, int pos)
{
	unsigned long val;
	int ret;

	if (s[1] == '"')
		return tpp_imm_string(c, s + 2, pos + 2);
	ret = tpp_parse_imm(s + 1, &val);
	if (ret)
		return tpp_fail(pos + 1, TP_ERR_BAD_IMM, ret);
	tpp_load(c, FETCH_OP_IMM)->immediate = val;
	return 0;
}

/* ---- expressions -------------------------------------------------- */

static int tpp_expr(struct tpp_compiler *c, char *s, int pos);

/*
 * "+|-[u]OFFS(EXPR)": compile EXPR, then load from its value + OFFS.
 * @s is our private copy and is cut up in place.  Recursion depth is
 * bounded by MAX_ARGSTR_LEN (every level costs at least three bytes).
 */
static int tpp_deref(struct tpp_compiler *c, char *s, int pos)
{
	bool user = s[1] == 'u';
	char *num = s + 1 + user;
	struct fetch_insn *insn;
	char *open, *close;
	int inner_pos, ret;
	long offs;

	open = strchr(num, '(');
	if (!open)
		return tpp_fail(pos, TP_ERR_DEREF_NEED_BRACE, -EINVAL);

	/*
	 * ABI: the caret of the operand does not count the 'u' marker, nor
	 * a sign written right after a '+'.
	 */
	inner_pos = pos + (open + 1 - s) - user - (s[0] == '+' && *num == '-');

	*open = '\0';
	if (s[0] == '-')
		*--num = '-';	/* the digits keep their sign (over any 'u') */
	ret = kstrtol(num, 0, &offs);
	if (ret)
		return tpp_fail(pos, TP_ERR_BAD_DEREF_OFFS, ret);

	/* The operand ends at the last ')'; anything after it is ignored. */
	close = strrchr(open + 1, ')');
	if (!close)
		return tpp_fail(inner_pos + strlen(open + 1),
				TP_ERR_DEREF_OPEN_BRACE, -EINVAL);
	*close = '\0';

	c->depth++;
	ret = tpp_expr(c, open + 1, inner_pos);
	c->depth--;
	if (ret)
		return ret;

	/* $comm and immediate strings have no address to load from. */
	insn = tpp_last(c);
	if (insn->op == FETCH_OP_COMM || insn->op == FETCH_OP_DATA)
		return tpp_fail(inner_pos, TP_ERR_COMM_CANT_DEREF, -EINVAL);

	insn = tpp_emit(c, user ? FETCH_OP_UDEREF : FETCH_OP_DEREF);
	if (!insn)
		return tpp_fail(inner_pos, TP_ERR_TOO_MANY_OPS, -EINVAL);
	insn->offset = offs;
	c->tail_pos = inner_pos;
	return 0;
}

/* Compile the expression @s, whose first byte is at caret @pos. */
static int tpp_expr(struct tpp_compiler *c, char *s, int pos)
{
	unsigned int flags = c->ctx->flags;

	switch (s[0]) {
	case '$':
		return tpp_variable(c, s, pos);
	case '%':
		return tpp_register(c, s, pos);
	case '@':
		return tpp_memory(c, s, pos);
	case '+':
	case '-':
		return tpp_deref(c, s, pos);
	case '\\':
		return tpp_immediate(c, s, pos);
	}

	/* A bare name: a BTF parameter (not for event probes). */
	if ((isalpha(s[0]) || s[0] == '_') && !(flags & TPARG_FL_TEVENT))
		return tpp_btf_param(c, s, pos);
	if (isalpha(s[0]) || s[0] == '_')
		return tpp_fail(pos, TP_ERR_NOSUP_BTFARG, -EINVAL);
	return tpp_fail(pos, TP_ERR_BAD_FETCH_ARG, -EINVAL);
}

/* ---- types -------------------------------------------------------- */

/* "b<W>@<O>/<C>" stores its bits in a u<C> container. */
static const struct fetch_type *tpp_bitfield_container(const char *text)
{
	const char *slash = strchr(text, '/');
	unsigned long bits;

	if (!slash || kstrtoul(slash + 1, 0, &bits))
		return NULL;
	switch (bits) {
	case 8:
		return tpp_type("u8");
	case 16:
		return tpp_type("u16");
	case 32:
		return tpp_type("u32");
	case 64:
		return tpp_type("u64");
	}
	return NULL;
}

static const struct fetch_type *tpp_lookup_type(const char *text, unsigned int flags)
{
	if (!text)
		return tpp_type(DEFAULT_FETCH_TYPE_STR);
	/* User space probes have no kernel symbols to print. */
	if ((flags & TPARG_FL_USER) &&
	    (!strcmp(text, "symbol") || !strcmp(text, "symstr")))
		return NULL;
	if (text[0] == 'b')
		return tpp_bitfield_container(text);
	return tpp_type(text);
}

/* Cut a "[N]" suffix off spec->text and read N into spec->count. */
static int tpp_parse_array(char *arg, int base, struct tpp_type_spec *spec)
{
	char *open = strchr(spec->text, '[');
	char *num, *close;

	if (!open)
		return 0;
	*open = '\0';
	num = open + 1;
	close = strchr(num, ']');
	if (!close)
		return tpp_fail(base + (num - arg) + strlen(num),
				TP_ERR_ARRAY_NO_CLOSE, -EINVAL);
	if (close[1])
		return tpp_fail(base + (close + 1 - arg),
				TP_ERR_BAD_ARRAY_SUFFIX, -EINVAL);
	*close = '\0';
	if (kstrtouint(num, 0, &spec->count) || !spec->count)
		return tpp_fail(base + (num - arg), TP_ERR_BAD_ARRAY_NUM, -EINVAL);
	if (spec->count > MAX_ARRAY_LEN)
		return tpp_fail(base + (num - arg), TP_ERR_ARRAY_TOO_BIG, -EINVAL);
	return 0;
}

/* $comm and "\"text\"" only make sense as a string. */
static bool tpp_is_string_only(const char *expr)
{
	return !strcmp(expr, "$comm") || !strcmp(expr, "$COMM") ||
	       !strncmp(expr, "\\\"", 2);
}

/*
 * Split ":TYPE[N]" off @arg (in place) and resolve it into @spec.
 * @base is the caret of @arg's first byte.
 */
static int tpp_parse_type(char *arg, int base, unsigned int flags,
			  struct tpp_type_spec *spec)
{
	char *colon = strchr(arg, ':');
	int ret;

	memset(spec, 0, sizeof(*spec));
	if (colon) {
		*colon = '\0';
		spec->text = colon + 1;
		spec->off = spec->text - arg;
		ret = tpp_parse_array(arg, base, spec);
		if (ret)
			return ret;
	}

	/* Event probes may name an event field "comm": no check there. */
	if (!(flags & TPARG_FL_TEVENT) && tpp_is_string_only(arg)) {
		if (spec->count || (spec->text && strcmp(spec->text, "string")))
			return tpp_fail(base + spec->off,
					TP_ERR_NEED_STRING_TYPE, -EINVAL);
		spec->type = tpp_type("string");
	} else {
		spec->type = tpp_lookup_type(spec->text, flags);
	}
	if (!spec->type)
		return tpp_fail(base + spec->off, TP_ERR_BAD_TYPE, -EINVAL);
	return 0;
}

/* ---- store, modify and loop stages -------------------------------- */

/* Loads whose value already is the address of the string. */
static bool tpp_load_is_address(enum fetch_op op)
{
	return op == FETCH_OP_IMM || op == FETCH_OP_COMM ||
	       op == FETCH_OP_DATA || op == FETCH_OP_TP_ARG;
}

static bool tpp_string_source_ok(enum fetch_op op, bool symstr)
{
	if (symstr)	/* a symstr is printed from an address value */
		return op == FETCH_OP_REG || op == FETCH_OP_STACK ||
		       op == FETCH_OP_RETVAL || op == FETCH_OP_ARG ||
		       op == FETCH_OP_DEREF || op == FETCH_OP_TP_ARG;
	return op == FETCH_OP_DEREF || op == FETCH_OP_UDEREF ||
	       tpp_load_is_address(op);
}

static int tpp_store_string(struct tpp_compiler *c, struct probe_arg *parg,
			    int type_pos)
{
	const char *tname = parg->type->name;
	bool symstr = !strcmp(tname, "symstr");
	struct fetch_insn *st = tpp_last(c);
	bool user;

	if (!tpp_string_source_ok(st->op, symstr))
		return tpp_fail(type_pos, symstr ? TP_ERR_BAD_SYMSTRING :
				TP_ERR_BAD_STRING, -EINVAL);

	/*
	 * A final load of the string's address folds into the string store;
	 * symbols, addresses held by the load itself and arrays of string
	 * pointers need a store instruction of their own.
	 */
	if (symstr || parg->count || tpp_load_is_address(st->op)) {
		st = tpp_emit(c, FETCH_OP_NOP);
		if (!st)
			return tpp_fail(c->tail_pos, TP_ERR_TOO_MANY_OPS, -EINVAL);
	}
	user = !strcmp(tname, "ustring") || st->op == FETCH_OP_UDEREF;

	if (user)
		st->op = FETCH_OP_ST_USTRING;
	else if (symstr)
		st->op = FETCH_OP_ST_SYMSTR;
	else
		st->op = FETCH_OP_ST_STRING;
	st->size = parg->type->size;
	parg->dynamic = true;
	return 0;
}

static int tpp_store_value(struct tpp_compiler *c, struct probe_arg *parg)
{
	struct fetch_insn *st = tpp_last(c);

	/* A final memory load becomes a sized load into the entry. */
	if (st->op == FETCH_OP_DEREF) {
		st->op = FETCH_OP_ST_MEM;
	} else if (st->op == FETCH_OP_UDEREF) {
		st->op = FETCH_OP_ST_UMEM;
	} else {
		st = tpp_emit(c, FETCH_OP_ST_RAW);
		if (!st)
			return tpp_fail(c->tail_pos, TP_ERR_TOO_MANY_OPS, -E2BIG);
	}
	st->size = parg->type->size;
	return 0;
}

/* Read a number (C base prefixes allowed) that ends at @stop; step past it. */
static int tpp_read_uint(const char **p, char stop, unsigned long *val)
{
	const char *s = *p, *end = strchr(s, stop);
	char buf[24];
	size_t len;

	if (!end || !isdigit(*s))
		return -EINVAL;
	len = end - s;
	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (kstrtoul(buf, 0, val))
		return -EINVAL;
	*p = end + 1;
	return 0;
}

/* "b<W>@<O>/<C>": keep bits O..O+W-1 of the stored container. */
static int tpp_add_bitfield(struct tpp_compiler *c, const char *text,
			    const struct fetch_type *t)
{
	unsigned long width, lsb, bits = BYTES_TO_BITS(t->size);
	struct fetch_insn *mod;

	if (!text || text[0] != 'b')
		return 0;
	text++;
	if (tpp_read_uint(&text, '@', &width) || !width ||
	    tpp_read_uint(&text, '/', &lsb))
		return -EINVAL;
	if (width > bits || lsb > bits - width)
		return -EINVAL;

	mod = tpp_emit(c, FETCH_OP_MOD_BF);
	if (!mod)
		return -EINVAL;
	mod->basesize = t->size;
	mod->lshift = bits - (width + lsb);
	mod->rshift = bits - width;
	return 0;
}

static int tpp_add_loop(struct tpp_compiler *c, const struct fetch_insn *st,
			unsigned int count, int type_pos)
{
	struct fetch_insn *loop;

	if (st->op != FETCH_OP_ST_MEM && st->op != FETCH_OP_ST_STRING &&
	    st->op != FETCH_OP_ST_USTRING)
		return tpp_fail(type_pos, TP_ERR_BAD_STRING, -EINVAL);
	loop = tpp_emit(c, FETCH_OP_LP_ARRAY);
	if (!loop)
		return tpp_fail(c->tail_pos, TP_ERR_TOO_MANY_OPS, -E2BIG);
	loop->param = count;
	return 0;
}

/* Append the store, modify, loop and end stages for @parg's type. */
static int tpp_finish(struct tpp_compiler *c, struct probe_arg *parg,
		      const struct tpp_type_spec *spec)
{
	/* ABI: type errors found this late are placed from tail_pos. */
	int type_pos = c->tail_pos + spec->off;
	int store, ret;

	if (parg->type->is_string)
		ret = tpp_store_string(c, parg, type_pos);
	else
		ret = tpp_store_value(c, parg);
	if (ret)
		return ret;
	store = c->nr - 1;

	ret = tpp_add_bitfield(c, spec->text, parg->type);
	if (ret)
		return tpp_fail(type_pos, TP_ERR_BAD_BITFIELD, ret);

	if (parg->count) {
		ret = tpp_add_loop(c, &c->insn[store], parg->count, type_pos);
		if (ret)
			return ret;
	}
	c->insn[c->nr].op = FETCH_OP_END;
	return 0;
}

/*
 * A program that loads one value from the hit and stores it as it is: a
 * front end may run it without the interpreter (tprobe_load_hit()).
 */
static bool tpp_is_simple(const struct fetch_insn *code)
{
	switch (code[0].op) {
	case FETCH_OP_REG:
	case FETCH_OP_STACK:
	case FETCH_OP_STACKP:
	case FETCH_OP_RETVAL:
	case FETCH_OP_ARG:
	case FETCH_OP_EDATA:
	case FETCH_OP_TP_ARG:
		break;
	default:
		return false;
	}
	return code[1].op == FETCH_OP_ST_RAW && code[2].op == FETCH_OP_END;
}

/* ---- one argument ------------------------------------------------- */

/*
 * Compile @body (the argument without "NAME=") into @parg and reserve its
 * room in the entry, whose current size is *@size.  On failure *@size is
 * unchanged and the caller frees what was set in @parg.
 */
static int tpp_compile(struct tpp_compiler *c, struct probe_arg *parg,
		       const char *body, ssize_t *size)
{
	int base = c->ctx->offset;
	size_t len = strlen(body);
	struct tpp_type_spec spec;
	ssize_t end;
	char *arg;
	int ret;

	if (len > MAX_ARGSTR_LEN)
		return tpp_fail(base, TP_ERR_ARG_TOO_LONG, -E2BIG);
	if (!len)
		return tpp_fail(base, TP_ERR_NO_ARG_BODY, -EINVAL);

	parg->comm = kstrdup(body, GFP_KERNEL);
	arg = kstrdup(body, GFP_KERNEL);
	if (!parg->comm || !arg) {
		ret = -ENOMEM;
		goto out;
	}

	ret = tpp_parse_type(arg, base, c->ctx->flags, &spec);
	if (ret)
		goto out;
	parg->type = spec.type;
	parg->count = spec.count;

	c->tail_pos = base;
	c->want = spec.text ? spec.type : NULL;
	ret = tpp_expr(c, arg, base);
	if (ret)
		goto out;

	/* No type given: a BTF-typed expression brings its own. */
	if (!spec.text && c->btf_tname[0]) {
		spec.text = c->btf_tname;
		spec.type = tpp_lookup_type(spec.text, c->ctx->flags);
		if (!spec.type) {
			ret = tpp_fail(base, TP_ERR_BAD_BTF_TID, -EINVAL);
			goto out;
		}
		parg->type = spec.type;
	}

	end = *size + parg->type->size * (parg->count ?: 1);
	if (end > MAX_PROBE_EVENT_SIZE) {
		ret = tpp_fail(c->tail_pos, TP_ERR_EVENT_TOO_BIG, -E2BIG);
		goto out;
	}

	if (parg->count) {
		parg->fmt = kasprintf(GFP_KERNEL, "%s[%u]",
				      parg->type->fmttype, parg->count);
		if (!parg->fmt) {
			ret = -ENOMEM;
			goto out;
		}
	}

	ret = tpp_finish(c, parg, &spec);
	if (ret)
		goto out;

	parg->code = kmemdup(c->insn, (c->nr + 1) * sizeof(c->insn[0]),
			     GFP_KERNEL);
	if (!parg->code) {
		ret = -ENOMEM;
		goto out;
	}
	parg->simple = tpp_is_simple(parg->code);
	parg->offset = *size;
	*size = end;
out:
	if (ret)
		tpp_release(c);
	kfree(arg);
	return ret;
}

static bool tpp_name_taken(const char *name, const struct probe_arg *args, int nr)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(tpp_reserved_names); i++)
		if (!strcmp(name, tpp_reserved_names[i]))
			return true;
	for (i = 0; i < nr; i++)
		if (!strcmp(name, args[i].name))
			return true;
	return false;
}

/*
 * Name of argument @i written without "NAME=": a BTF parameter written
 * alone ("file", or "file:x64") names it, anything else is "arg<i+1>".
 */
static char *tpp_default_name(const char *arg, int i)
{
	size_t len = strcspn(arg, ":");
	char *name = NULL;

	if (IS_ENABLED(CONFIG_PROBE_EVENTS_BTF_ARGS) && len &&
	    (isalpha(arg[0]) || arg[0] == '_')) {
		name = kmemdup_nul(arg, len, GFP_KERNEL);
		if (name && is_good_name(name))
			return name;
		kfree(name);
	}
	return kasprintf(GFP_KERNEL, "arg%d", i + 1);
}

/* Set the name of argument @i; *@body gets the text after any "NAME=". */
static int tpp_name_arg(struct trace_probe *tp, int i, const char *arg,
			const char **body)
{
	struct probe_arg *parg = &tp->args[i];
	const char *eq = strchr(arg, '=');

	if (eq) {
		if (eq - arg > MAX_ARG_NAME_LEN)
			return tpp_fail(0, TP_ERR_ARG_NAME_TOO_LONG, -EINVAL);
		if (eq == arg)
			return tpp_fail(0, TP_ERR_NO_ARG_NAME, -EINVAL);
		parg->name = kmemdup_nul(arg, eq - arg, GFP_KERNEL);
		*body = eq + 1;
	} else {
		parg->name = tpp_default_name(arg, i);
		*body = arg;
	}
	if (!parg->name)
		return -ENOMEM;
	if (!is_good_name(parg->name))
		return tpp_fail(0, TP_ERR_BAD_ARG_NAME, -EINVAL);
	if (tpp_name_taken(parg->name, tp->args, i))
		return tpp_fail(0, TP_ERR_USED_ARG_NAME, -EINVAL);
	return 0;
}

/**
 * traceprobe_parse_probe_arg - compile one fetch argument of a probe
 * @tp: the probe; its args[] has room for argument @i
 * @i: index of the argument; args[0..@i-1] are already parsed
 * @arg: the argument as the user wrote it: [NAME=]EXPR[:TYPE[[N]]]
 * @ctx: parse context: flags (TPARG_FL_*), the attached event for event
 *	probes; ctx->tp and ctx->offset are set here
 *
 * Fills tp->args[@i]: name (given or "argN"), comm (the text after "NAME="),
 * type, count (array length or 0), fmt (print type of an array, else
 * NULL), dynamic (string types), offset (place in the entry's argument
 * area) and code (the fetch program, FETCH_OP_END terminated), and grows
 * tp->size by the argument's room.  Return probes reading $argN also get
 * an entry in tp->entry_arg.
 *
 * Context: process context, dyn_event_ops_mutex held, error log set up.
 * Return: 0, or a negative errno after logging the reason (except for
 * -ENOMEM); on failure tp->args[@i] is left empty and tp->size unchanged.
 */
int traceprobe_parse_probe_arg(struct trace_probe *tp, int i, const char *arg,
			       struct traceprobe_parse_context *ctx)
{
	struct tpp_compiler c = { .ctx = ctx };
	struct probe_arg *parg = &tp->args[i];
	const char *body;
	int ret;

	ctx->tp = tp;
	ret = tpp_name_arg(tp, i, arg, &body);
	if (!ret) {
		ctx->offset = body - arg;
		ret = tpp_compile(&c, parg, body, &tp->size);
	}
	if (!ret && parg->dynamic)
		tp->dynamic_args = true;
	if (ret) {
		traceprobe_free_probe_arg(parg);
		memset(parg, 0, sizeof(*parg));
	}
	return ret;
}

/**
 * traceprobe_free_probe_arg - release what parsing allocated for an argument
 * @arg: a parsed, partially parsed or zeroed argument
 *
 * Frees the fetch program with the strings it owns, the name, the comm and
 * the fmt.  Does not clear @arg.
 */
void traceprobe_free_probe_arg(struct probe_arg *arg)
{
	struct fetch_insn *insn;

	for (insn = arg->code; insn && insn->op != FETCH_OP_END; insn++)
		if (tpp_insn_owns_data(insn))
			kfree(insn->data);
	kfree(arg->name);
	kfree(arg->comm);
	kfree(arg->fmt);
	kfree(arg->code);
}

/* Resolve "SYM[+|-OFFS]" held by @insn into the FETCH_OP_IMM after it. */
static int tpp_resolve_symbol(struct fetch_insn *insn)
{
	char *spec = insn->data;
	char *sign = strpbrk(spec, "+-");
	unsigned long addr;
	long offs = 0;
	char saved;
	int ret;

	if (insn[1].op != FETCH_OP_IMM)
		return -EINVAL;
	if (sign) {
		ret = kstrtol(sign, 0, &offs);
		if (ret)
			return ret;
		saved = *sign;
		*sign = '\0';
	}
	addr = kallsyms_lookup_name(spec);
	if (sign)
		*sign = saved;
	if (!addr)
		return -ENOENT;
	insn[1].immediate = addr + offs;
	return 0;
}

/**
 * traceprobe_update_arg - resolve the kernel symbols an argument reads
 * @arg: a parsed argument
 *
 * Looks up every @SYM of @arg in kallsyms and stores its address (plus
 * offset) in the program.  May be called again, e.g. when a module that
 * defines the symbol is loaded.
 *
 * Context: process context.
 * Return: 0, -ENOENT for an unknown symbol, -EINVAL or -ERANGE for a bad
 * offset or a malformed program.
 */
int traceprobe_update_arg(struct probe_arg *arg)
{
	struct fetch_insn *insn;
	int ret;

	for (insn = arg->code; insn && insn->op != FETCH_OP_END; insn++) {
		if (insn->op != FETCH_NOP_SYMBOL)
			continue;
		ret = tpp_resolve_symbol(insn);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- argument list helpers ---------------------------------------- */

#ifdef CONFIG_PROBE_EVENTS_BTF_ARGS
/* Append @len bytes of @text and a NUL to @buf; the copy, or NULL if full. */
static const char *tpp_buf_add(char *buf, int bufsize, int *used,
			       const char *text, size_t len)
{
	char *dst = buf + *used;

	if (len + 1 > bufsize - *used)
		return NULL;
	memcpy(dst, text, len);
	dst[len] = '\0';
	*used += len + 1;
	return dst;
}

/*
 * "$argN[:TYPE]" with N a parameter of the function: its name instead
 * (written to @buf), so that it is named, typed and printed as the
 * parameter.  Other text is kept.  NULL when @buf is full.
 */
static const char *tpp_rename_arg(const char *a, char *buf, int bufsize,
				  int *used, struct traceprobe_parse_context *ctx)
{
	size_t digits = strspn(a + 4, "0123456789");
	const char *suffix = a + 4 + digits;
	char num[12], *out, *end;
	const char *name;
	unsigned long n;

	if ((*suffix && *suffix != ':') || digits >= sizeof(num))
		return a;	/* not "$argN": the compiler reports it */
	memcpy(num, a + 4, digits);
	num[digits] = '\0';
	/* $arg0: the compiler reports it (BAD_ARG_NUM) */
	if (kstrtoul(num, 10, &n) || !n)
		return a;
	if (n > tprobe_btf_nr_args(ctx))
		return ERR_PTR(tpp_fail(0, TP_ERR_NO_BTFARG, -ENOENT));
	name = tprobe_btf_arg_name(ctx, n - 1);
	if (!*name)
		return a;
	out = (char *)tpp_buf_add(buf, bufsize, used, name, strlen(name));
	if (!out || strlen(suffix) > bufsize - *used)
		return NULL;
	end = out + strlen(out);
	strscpy(end, suffix, bufsize - (end - buf));
	*used += strlen(suffix);
	return out;
}

/* The argument list with $arg* and $argN replaced by parameter names. */
static const char **tpp_expand_btf_args(int argc, const char *argv[],
					int *new_argc, char *buf, int bufsize,
					int wildcard,
					struct traceprobe_parse_context *ctx)
{
	int nr = tprobe_btf_nr_args(ctx), total, used = 0, i, n, k = 0;
	const char **out;
	const char *a;

	total = argc + (wildcard >= 0 ? nr - 1 : 0);
	if (total > MAX_TRACE_ARGS) {
		trace_probe_log_set_index(wildcard + 2);
		return ERR_PTR(tpp_fail(0, TP_ERR_ARGS_2LONG, -E2BIG));
	}
	out = kcalloc(max(total, 1), sizeof(*out), GFP_KERNEL);
	if (!out)
		return ERR_PTR(-ENOMEM);

	for (i = 0; i < argc; i++) {
		trace_probe_log_set_index(i + 2);
		if (i == wildcard) {
			for (n = 0; n < nr; n++) {
				char tmp[16];
				const char *name = tprobe_btf_arg_name(ctx, n);

				if (!*name) {	/* a nameless parameter */
					snprintf(tmp, sizeof(tmp), "$arg%d", n + 1);
					name = tmp;
				}
				a = tpp_buf_add(buf, bufsize, &used, name, strlen(name));
				if (!a)
					goto full;
				out[k++] = a;
			}
			continue;
		}
		a = argv[i];
		if (str_has_prefix(a, "$arg") && isdigit(a[4])) {
			a = tpp_rename_arg(a, buf, bufsize, &used, ctx);
			if (!a)
				goto full;
			if (IS_ERR(a)) {
				kfree(out);
				return (const char **)a;
			}
		}
		out[k++] = a;
	}
	*new_argc = k;
	return out;
full:
	kfree(out);
	return ERR_PTR(tpp_fail(0, TP_ERR_ARGS_2LONG, -E2BIG));
}
#endif /* CONFIG_PROBE_EVENTS_BTF_ARGS */

/**
 * traceprobe_expand_meta_args - expand $arg* style arguments
 * @argc: number of fetch arguments
 * @argv: the fetch arguments
 * @new_argc: set to the number of arguments after expansion
 * @buf: room for expanded argument text
 * @bufsize: size of @buf
 * @ctx: parse context (flags, funcname)
 *
 * Checks the $arg-prefixed arguments: they need a function entry or exit
 * probe, must be $argN or a single $arg*.  With BTF for the function,
 * "$arg*" becomes one argument per parameter, named as the parameter,
 * and "$argN[:TYPE]" becomes "NAME[:TYPE]" (an N beyond the parameters is
 * an error).  Without BTF, "$arg*" is refused and "$argN" kept.
 *
 * Context: process context, error log set up; sets the log index.
 * Return: NULL with *@new_argc == @argc (nothing to expand), a new
 * argument array (kfree() it; its strings live in @argv and @buf), or an
 * ERR_PTR.
 */
const char **traceprobe_expand_meta_args(int argc, const char *argv[],
					 int *new_argc, char *buf, int bufsize,
					 struct traceprobe_parse_context *ctx)
{
	int i, wildcard = -1, numbered = 0;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!str_has_prefix(a, "$arg"))
			continue;
		trace_probe_log_set_index(i + 2);
		if (!tparg_is_function_entry(ctx->flags) &&
		    !tparg_is_function_return(ctx->flags))
			return ERR_PTR(tpp_fail(0, TP_ERR_NOFENTRY_ARGS, -EINVAL));
		if (isdigit(a[4])) {
			numbered++;
			continue;
		}
		if (a[4] != '*')
			return ERR_PTR(tpp_fail(0, TP_ERR_BAD_VAR, -EINVAL));
		if (wildcard >= 0)
			return ERR_PTR(tpp_fail(0, TP_ERR_DOUBLE_ARGS, -EINVAL));
		if (a[5])
			return ERR_PTR(tpp_fail(0, TP_ERR_BAD_VAR_ARGS, -EINVAL));
		wildcard = i;
	}

	*new_argc = argc;
	if (wildcard < 0 && !numbered)
		return NULL;
	/* The caret stays on the last $arg-prefixed argument seen (ABI). */
	if (!IS_ENABLED(CONFIG_PROBE_EVENTS_BTF_ARGS))
		return wildcard < 0 ? NULL :
			ERR_PTR(tpp_fail(0, TP_ERR_NOSUP_BTFARG, -EOPNOTSUPP));
	/* No BTF, or no parameters: $argN stays a register, $arg* fails. */
	if (tprobe_btf_query(ctx) || !tprobe_btf_nr_args(ctx))
		return wildcard < 0 ? NULL :
			ERR_PTR(tpp_fail(0, TP_ERR_NOSUP_BTFARG, -EOPNOTSUPP));
#ifdef CONFIG_PROBE_EVENTS_BTF_ARGS
	return tpp_expand_btf_args(argc, argv, new_argc, buf, bufsize,
				   wildcard, ctx);
#else
	return NULL;
#endif
}

/*
 * Write the expansion of one "[NAME=]EXPR:%pd" (dentry) or ":%pD" (file)
 * argument into @dst: the name string of the dentry, read as a string.
 */
static int tpp_print_dentry_arg(char *dst, size_t room, const char *arg)
{
	size_t total = strlen(arg);
	const char *eq = strchr(arg, '=');
	int name_len = eq ? eq - arg + 1 : 0;		/* "NAME=" */
	int expr_len = total - strlen(":%pd") - name_len;
	const char *expr = arg + name_len;
	size_t d_name = offsetof(struct dentry, d_name.name);
	int len;

	if (arg[total - 1] == 'D')
		len = snprintf(dst, room, "%.*s+0x0(+0x%zx(+0x%zx(%.*s))):string",
			       name_len, arg, d_name,
			       offsetof(struct file, f_path.dentry),
			       expr_len, expr);
	else
		len = snprintf(dst, room, "%.*s+0x0(+0x%zx(%.*s)):string",
			       name_len, arg, d_name, expr_len, expr);
	return len < room ? len : -ENOMEM;
}

/**
 * traceprobe_expand_dentry_args - rewrite %pd / %pD arguments
 * @argc: number of fetch arguments
 * @argv: the fetch arguments; expanded entries are replaced in place
 * @buf: must point to NULL; receives the buffer holding the new text,
 *	which the caller frees with kfree() once @argv is no longer used
 *
 * "EXPR:%pd" (a struct dentry pointer) and "EXPR:%pD" (a struct file
 * pointer) become dereference chains that read the dentry's name as a
 * string.
 *
 * Context: process context.
 * Return: 0, -EINVAL if *@buf was not NULL, -ENOMEM when out of memory or
 * the expansions do not fit in MAX_DENTRY_ARGS_LEN bytes.
 */
int traceprobe_expand_dentry_args(int argc, const char *argv[], char **buf)
{
	char *out = NULL;
	size_t used = 0;
	int i, len;

	if (*buf)
		return -EINVAL;

	for (i = 0; i < argc; i++) {
		if (!glob_match("*:%p[dD]", argv[i]))
			continue;
		if (!out)
			out = kmalloc(MAX_DENTRY_ARGS_LEN, GFP_KERNEL);
		len = out ? tpp_print_dentry_arg(out + used,
						 MAX_DENTRY_ARGS_LEN - used,
						 argv[i]) : -ENOMEM;
		if (len < 0) {
			kfree(out);
			return len;
		}
		argv[i] = out + used;
		used += len + 1;
	}
	*buf = out;
	return 0;
}

/**
 * traceprobe_finish_parse - release what parsing kept in a parse context
 * @ctx: context used by traceprobe_parse_probe_arg() or
 *	traceprobe_expand_meta_args()
 *
 * Must be called once parsing with @ctx is done: drops the reference on
 * the BTF of the probed function, if one was taken.
 */
void traceprobe_finish_parse(struct traceprobe_parse_context *ctx)
{
	tprobe_btf_release(ctx);
}

/* ---- probe names -------------------------------------------------- */

/**
 * traceprobe_split_symbol_offset - split "SYM+OFFS" / "SYM-OFFS"
 * @symbol: the probe point text; cut at the sign on success
 * @offset: receives the signed offset, 0 when there is none
 *
 * Return: 0, -EINVAL if @offset is NULL or the offset is not a number,
 * -ERANGE if it does not fit in a long.  @symbol is unchanged on failure.
 */
int traceprobe_split_symbol_offset(char *symbol, long *offset)
{
	char *sign = strpbrk(symbol, "+-");
	long val = 0;

	if (!offset)
		return -EINVAL;
	if (sign) {
		int ret = kstrtol(sign, 0, &val);

		if (ret)
			return ret;
		*sign = '\0';
	}
	*offset = val;
	return 0;
}

static int tpp_copy_group(const char *group, int len, char *buf, int pos)
{
	if (!len)
		return tpp_fail(pos, TP_ERR_NO_GROUP_NAME, -EINVAL);
	if (len >= MAX_EVENT_NAME_LEN)
		return tpp_fail(pos, TP_ERR_GROUP_TOO_LONG, -EINVAL);
	memcpy(buf, group, len);
	buf[len] = '\0';
	if (!is_good_system_name(buf))
		return tpp_fail(pos, TP_ERR_BAD_GROUP_NAME, -EINVAL);
	return 0;
}

/**
 * traceprobe_parse_event_name - split and check "[GROUP/]EVENT"
 * @pevent: in: the text; out: the event part, or NULL for "GROUP/"
 * @pgroup: set to @buf when a group is given, else untouched
 * @buf: MAX_EVENT_NAME_LEN bytes to hold the group name
 * @offset: caret of the text's first byte in the logged argument
 *
 * '/' separates group and event; '.' does when there is no '/'.
 *
 * Context: process context, error log set up.
 * Return: 0 or -EINVAL after logging what is wrong with the names.
 */
int traceprobe_parse_event_name(const char **pevent, const char **pgroup,
				char *buf, int offset)
{
	const char *name = *pevent;
	const char *sep = strchr(name, '/');
	size_t len;
	int ret;

	if (!sep)
		sep = strchr(name, '.');
	if (sep) {
		ret = tpp_copy_group(name, sep - name, buf, offset);
		if (ret)
			return ret;
		*pgroup = buf;
		offset += sep - name + 1;
		name = sep + 1;
		*pevent = name;
	}

	len = strlen(name);
	if (!len) {
		if (!sep)
			return tpp_fail(offset, TP_ERR_NO_EVENT_NAME, -EINVAL);
		*pevent = NULL;	/* "GROUP/" alone: the caller picks a name */
		return 0;
	}
	if (len >= MAX_EVENT_NAME_LEN)
		return tpp_fail(offset, TP_ERR_EVENT_TOO_LONG, -EINVAL);
	if (!is_good_name(name))
		return tpp_fail(offset, TP_ERR_BAD_EVENT_NAME, -EINVAL);
	return 0;
}
