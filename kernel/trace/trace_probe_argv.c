// SPDX-License-Identifier: GPL-2.0
/*
 * Probe-definition library: the words of a definition around its fetch
 * arguments, for the front ends' parsers.
 *
 * Before the arguments are compiled one by one (trace_probe_parse.c), the
 * front end hands their list here to be rewritten: with BTF, "$arg*"
 * becomes one argument per parameter of the probed function and "$argN"
 * the Nth parameter's name (traceprobe_expand_meta_args()); "EXPR:%pd"
 * and "EXPR:%pD" become the dereference chain that reads a dentry's name
 * (traceprobe_expand_dentry_args()).  The probe's own words are split and
 * checked here too: "SYM+OFFS" (traceprobe_split_symbol_offset()) and
 * "[GROUP/]EVENT" (traceprobe_parse_event_name()).  traceprobe_finish_parse()
 * drops what a parse context holds once the definition is parsed.
 *
 * This file calls no other file of the parser (trace_probe_parse.h); the
 * BTF answers come from trace_probe_btf.c.  Error kinds and carets are
 * tracefs ABI, as for the arguments themselves.
 *
 * Context: process context with dyn_event_ops_mutex held (the error log
 * requires it) for everything that logs; the log index is set here for
 * the argument being looked at.
 */
#include <linux/ctype.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/glob.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "trace_probe_parse.h"

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
	out = kcalloc(max(total, 1), sizeof(*out), GFP_KERNEL_ACCOUNT);
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
			out = kmalloc(MAX_DENTRY_ARGS_LEN, GFP_KERNEL_ACCOUNT);
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
