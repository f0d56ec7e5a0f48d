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
 * that are marked "ABI" where they are made (here and in
 * trace_probe_expr.c).
 *
 * This file holds the argument as a whole: its name, its ":TYPE[N]", the
 * store, modify and loop stages and the finished program, and freeing an
 * argument and resolving its symbols.  The EXPR (the load and deref
 * stages, the BTF forms of it, the entry-argument capture of return
 * probes) is compiled by trace_probe_expr.c, which this file calls; the
 * words of a definition around its arguments are trace_probe_argv.c's.
 * trace_probe_parse.h maps the three.
 *
 * Context: parsing runs in process context with dyn_event_ops_mutex held
 * (the error log requires it); traceprobe_update_arg() and
 * traceprobe_free_probe_arg() run in process context when the front end
 * hooks or frees a probe.
 */
#define pr_fmt(fmt)	"trace_probe: " fmt

#include <linux/ctype.h>
#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "trace_probe_parse.h"

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

static const struct fetch_type *tpp_type(const char *name)
{
	return tprobe_find_type(name, strlen(name));
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

	parg->comm = kstrdup(body, GFP_KERNEL_ACCOUNT);
	arg = kstrdup(body, GFP_KERNEL_ACCOUNT);
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
		parg->fmt = kasprintf(GFP_KERNEL_ACCOUNT, "%s[%u]",
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
			     GFP_KERNEL_ACCOUNT);
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
		name = kmemdup_nul(arg, len, GFP_KERNEL_ACCOUNT);
		if (name && is_good_name(name))
			return name;
		kfree(name);
	}
	return kasprintf(GFP_KERNEL_ACCOUNT, "arg%d", i + 1);
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
		parg->name = kmemdup_nul(arg, eq - arg, GFP_KERNEL_ACCOUNT);
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
