// SPDX-License-Identifier: GPL-2.0
/*
 * BTF view of a probed function, for the fetch-argument compiler.
 *
 * With CONFIG_PROBE_EVENTS_BTF_ARGS a kprobe at a function's entry, an
 * fprobe and a tracepoint probe may name the function's parameters
 * ("file", "$arg*" expands to all of them), follow pointers into structure
 * members ("file->f_path.dentry"), and get the types of parameters,
 * members and the return value from the kernel's BTF.  This file answers
 * the compiler's questions about types; trace_probe_expr.c and
 * trace_probe_argv.c turn the answers into fetch programs, argument
 * names and error-log entries.
 *
 * The parse context holds the function's BTF prototype.  It is looked up
 * once, on first use (tprobe_btf_query()), with a reference on the BTF
 * object (vmlinux or a module's) that traceprobe_finish_parse() drops.
 * Every btf_type pointer handed out lives as long as that reference.
 *
 * Tracepoint probes are probed through the tracepoint's stub
 * (__probestub_<tp>), whose first parameter is the probe's private data:
 * that parameter is hidden, so $arg1 and the first name are the
 * tracepoint's first argument.
 */
#include <linux/btf.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "trace_btf.h"
#include "trace_probe_internal.h"

/* Parameters the user does not see: a tracepoint stub's data pointer. */
static int tprobe_btf_hidden(const struct traceprobe_parse_context *ctx)
{
	return (ctx->flags & TPARG_FL_TPOINT) ? 1 : 0;
}

/**
 * tprobe_btf_query - look up the BTF prototype of the probed function
 * @ctx: parse context; ctx->funcname names the function (or stub)
 *
 * Context: process context.  Safe to call again: only the first call
 * looks the function up.
 * Return: 0 when ctx->proto is set; -ENOENT when the function has no BTF
 * prototype (or there is no function name).
 */
int tprobe_btf_query(struct traceprobe_parse_context *ctx)
{
	const struct btf_param *params;
	struct btf *btf = NULL;
	s32 nr = 0;

	if (ctx->proto)
		return 0;
	if (ctx->btf_queried || !ctx->funcname)
		return -ENOENT;
	ctx->btf_queried = true;

	/* On failure the lookup holds no reference. */
	ctx->proto = btf_find_func_proto(ctx->funcname, &btf);
	if (!ctx->proto)
		return -ENOENT;
	ctx->btf = btf;
	params = btf_get_func_param(ctx->proto, &nr);
	if (IS_ERR(params)) {
		tprobe_btf_release(ctx);
		return -ENOENT;
	}
	ctx->params = params;
	ctx->nr_params = nr;
	/* A variadic function ends with a nameless, typeless parameter. */
	if (nr && !params[nr - 1].type && !params[nr - 1].name_off)
		ctx->nr_params--;
	return 0;
}

/**
 * tprobe_btf_release - drop what tprobe_btf_query() took
 * @ctx: parse context
 */
void tprobe_btf_release(struct traceprobe_parse_context *ctx)
{
	if (ctx->btf)
		btf_put(ctx->btf);
	ctx->btf = NULL;
	ctx->proto = NULL;
	ctx->params = NULL;
	ctx->nr_params = 0;
}

/* Number of parameters the user sees. */
int tprobe_btf_nr_args(const struct traceprobe_parse_context *ctx)
{
	return max(0, ctx->nr_params - tprobe_btf_hidden(ctx));
}

/* Name of visible parameter @nth (0-based); "" when it has none. */
const char *tprobe_btf_arg_name(const struct traceprobe_parse_context *ctx,
				int nth)
{
	const struct btf_param *p = &ctx->params[nth + tprobe_btf_hidden(ctx)];
	const char *name = btf_name_by_offset(ctx->btf, p->name_off);

	return name ?: "";
}

/* Visible index of the parameter called @name (@len bytes), or -ENOENT. */
int tprobe_btf_arg_index(const struct traceprobe_parse_context *ctx,
			 const char *name, size_t len)
{
	int i;

	for (i = 0; i < tprobe_btf_nr_args(ctx); i++) {
		const char *pname = tprobe_btf_arg_name(ctx, i);

		if (strlen(pname) == len && !strncmp(pname, name, len))
			return i;
	}
	return -ENOENT;
}

/* Type of visible parameter @nth, modifiers and typedefs skipped. */
const struct btf_type *
tprobe_btf_arg_type(const struct traceprobe_parse_context *ctx, int nth)
{
	const struct btf_param *p = &ctx->params[nth + tprobe_btf_hidden(ctx)];

	return btf_type_skip_modifiers(ctx->btf, p->type, NULL);
}

/* The function's return type, or NULL for void. */
const struct btf_type *
tprobe_btf_ret_type(const struct traceprobe_parse_context *ctx)
{
	if (!ctx->proto->type)
		return NULL;
	return btf_type_skip_modifiers(ctx->btf, ctx->proto->type, NULL);
}

/* What a pointer type points to (modifiers skipped), or NULL. */
const struct btf_type *
tprobe_btf_pointee(const struct traceprobe_parse_context *ctx,
		   const struct btf_type *t)
{
	if (!t || !btf_type_is_ptr(t))
		return NULL;
	return btf_type_skip_modifiers(ctx->btf, t->type, NULL);
}

/**
 * tprobe_btf_member - find a member of a structure or union
 * @ctx: parse context
 * @t: the structure or union type
 * @name: member name, @len bytes, not NUL-terminated
 * @len: length of @name
 * @m: filled: bit offset from the start of @t (members of anonymous
 *	structures and unions included), bitfield width (0 if none), type
 *
 * Return: 0, -ENOENT when there is no such member, -ENOMEM.
 */
int tprobe_btf_member(const struct traceprobe_parse_context *ctx,
		      const struct btf_type *t, const char *name, size_t len,
		      struct tprobe_btf_member *m)
{
	const struct btf_type *container = NULL;
	const struct btf_member *member;
	u32 anon = 0;
	char *buf;

	buf = kmemdup_nul(name, len, GFP_KERNEL_ACCOUNT);
	if (!buf)
		return -ENOMEM;
	member = btf_find_struct_member(ctx->btf, t, buf, &anon, &container);
	kfree(buf);
	if (IS_ERR(member))
		return PTR_ERR(member);
	if (!member || !container)
		return -ENOENT;

	m->bit_offset = anon + __btf_member_bit_offset(container, member);
	m->bit_size = __btf_member_bitfield_size(container, member);
	m->type = btf_type_skip_modifiers(ctx->btf, member->type, NULL);
	return m->type ? 0 : -ENOENT;
}

static bool tprobe_btf_is_char(const struct btf_type *t)
{
	return t && btf_type_is_int(t) && t->size == 1;
}

/* A pointer to char: the address of a string. */
bool tprobe_btf_is_char_ptr(const struct traceprobe_parse_context *ctx,
			    const struct btf_type *t)
{
	return tprobe_btf_is_char(tprobe_btf_pointee(ctx, t));
}

/* An array of char: a string in place. */
bool tprobe_btf_is_char_array(const struct traceprobe_parse_context *ctx,
			      const struct btf_type *t)
{
	if (!t || !btf_type_is_array(t))
		return false;
	return tprobe_btf_is_char(btf_type_skip_modifiers(ctx->btf,
							  btf_array(t)->type,
							  NULL));
}

/**
 * tprobe_btf_fetch_type - the fetch type that prints a value of BTF type @t
 * @t: a type, modifiers skipped; NULL for void
 * @buf: TPROBE_BTF_TYPE_LEN bytes for the name
 *
 * Integers get their size and signedness (bool is an u8), enums their
 * size and a sign (as in 6.12), pointers are printed in hex with the size
 * of a pointer.
 *
 * Return: the type name in @buf, or NULL for a type that is not fetched as
 * one value (void, structures, unions, other arrays, functions).
 */
const char *tprobe_btf_fetch_type(const struct btf_type *t, char *buf)
{
	if (!t)
		return NULL;

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		if (t->size > sizeof(u64) || !is_power_of_2(t->size))
			return NULL;
		snprintf(buf, TPROBE_BTF_TYPE_LEN, "%c%u",
			 (btf_int_encoding(t) & BTF_INT_SIGNED) &&
			 !(btf_int_encoding(t) & BTF_INT_BOOL) ? 's' : 'u',
			 t->size * BITS_PER_BYTE);
		return buf;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (t->size > sizeof(u64) || !is_power_of_2(t->size))
			return NULL;
		snprintf(buf, TPROBE_BTF_TYPE_LEN, "s%u", t->size * BITS_PER_BYTE);
		return buf;
	case BTF_KIND_PTR:
		snprintf(buf, TPROBE_BTF_TYPE_LEN, "x%zu",
			 sizeof(void *) * BITS_PER_BYTE);
		return buf;
	}
	return NULL;
}
