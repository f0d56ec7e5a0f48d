// SPDX-License-Identifier: GPL-2.0
/*
 * Fetch-argument compiler of the probe-definition library: the EXPR of an
 * argument.
 *
 * An EXPR compiles into the first stages of the argument's fetch program
 * (the whole shape is described in trace_probe_parse.c): one load of a
 * leaf, then one FETCH_OP_DEREF or _UDEREF per memory load, innermost
 * first.  This file holds
 *
 *	the program builder	the instructions a struct tpp_compiler
 *				collects, and their release on failure
 *	entry-argument capture	the $argN words a return probe saves at the
 *				function's entry (store_trace_entry_data())
 *	leaves			$vars, BTF parameter names and members,
 *				%REG, @ADDR, @SYM, @+FOFFS, \IMM, \"TEXT"
 *	expressions		+|-[u]OFFS(EXPR), and the dispatch on the
 *				first byte of an EXPR
 *
 * trace_probe_parse.c drives it (tpp_expr()) and appends the store stages;
 * this file calls back into neither it nor trace_probe_argv.c.
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
 *
 * Context: process context with dyn_event_ops_mutex held (the error log
 * requires it), except store_trace_entry_data(), which runs in the probe
 * handler and must neither sleep nor be probed.
 */
#include <linux/ctype.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "trace_probe_parse.h"

/* Largest $stackN / $argN accepted: one kernel stack worth of words. */
#define TPP_MAX_WORD_INDEX	(THREAD_SIZE / sizeof(unsigned long))

/* Program slots available to the stages; the last one holds FETCH_OP_END. */
#define TPP_PROG_ROOM		(FETCH_INSN_MAX - 1)

static bool tpp_is_comm(const char *name)
{
	return !strcmp(name, "comm") || !strcmp(name, "COMM");
}

/* ---- program builder ---------------------------------------------- */

bool tpp_insn_owns_data(const struct fetch_insn *insn)
{
	return insn->op == FETCH_NOP_SYMBOL || insn->op == FETCH_OP_DATA;
}

void tpp_release(struct tpp_compiler *c)
{
	int i;

	for (i = 0; i < c->nr; i++)
		if (tpp_insn_owns_data(&c->insn[i]))
			kfree(c->insn[i].data);
	c->nr = 0;
}

/* Append one instruction; NULL when only the terminator slot is left. */
struct fetch_insn *tpp_emit(struct tpp_compiler *c, enum fetch_op op)
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

struct fetch_insn *tpp_last(struct tpp_compiler *c)
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

	code = kmalloc_array(slots, sizeof(*code), GFP_KERNEL_ACCOUNT);
	earg = kzalloc(sizeof(*earg), GFP_KERNEL_ACCOUNT);
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
	insn->data = kstrdup(s, GFP_KERNEL_ACCOUNT);
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
	text = kstrndup(s, len - 1, GFP_KERNEL_ACCOUNT);
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
int tpp_expr(struct tpp_compiler *c, char *s, int pos)
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
