// SPDX-License-Identifier: GPL-2.0
/*
 * Types of fetched values, and everything the library derives from them:
 * the event's fields (format file), its print fmt, and the trace output.
 *
 * The type table is constant; probe arguments point into it.  Field and
 * print fmt generation run under event_mutex when a probe event is
 * created; printing runs wherever the trace output is read.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/string.h>

#include "trace_probe_internal.h"

/*
 * Printers of the basic types.  Each returns nonzero while the trace_seq
 * still has room, as print_type_func_t requires; @ent is the record, which
 * only variable-length values need.
 */
static __printf(2, 3) int tprobe_seq_printf(struct trace_seq *s,
					    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace_seq_vprintf(s, fmt, ap);
	va_end(ap);
	return !trace_seq_has_overflowed(s);
}

static int tprobe_print_u8(struct trace_seq *s, void *data, void *ent)
{
	return tprobe_seq_printf(s, "%u", *(u8 *)data);
}

static int tprobe_print_u16(struct trace_seq *s, void *data, void *ent)
{
	return tprobe_seq_printf(s, "%u", *(u16 *)data);
}

static int tprobe_print_u32(struct trace_seq *s, void *data, void *ent)
{
	return tprobe_seq_printf(s, "%u", *(u32 *)data);
}

static int tprobe_print_u64(struct trace_seq *s, void *data, void *ent)
{
	return tprobe_seq_printf(s, "%llu", *(u64 *)data);
}

static int tprobe_print_s8(struct trace_seq *s, void *data, void *ent)
{
	return tprobe_seq_printf(s, "%d", *(s8 *)data);
}

static int tprobe_print_s16(struct trace_seq *s, void *data, void *ent)
{
	return tprobe_seq_printf(s, "%d", *(s16 *)data);
}

static int tprobe_print_s32(struct trace_seq *s, void *data, void *ent)
{
	return tprobe_seq_printf(s, "%d", *(s32 *)data);
}

static int tprobe_print_s64(struct trace_seq *s, void *data, void *ent)
{
	return tprobe_seq_printf(s, "%lld", *(s64 *)data);
}

static int tprobe_print_x8(struct trace_seq *s, void *data, void *ent)
{
	return tprobe_seq_printf(s, "0x%x", *(u8 *)data);
}

static int tprobe_print_x16(struct trace_seq *s, void *data, void *ent)
{
	return tprobe_seq_printf(s, "0x%x", *(u16 *)data);
}

static int tprobe_print_x32(struct trace_seq *s, void *data, void *ent)
{
	return tprobe_seq_printf(s, "0x%x", *(u32 *)data);
}

static int tprobe_print_x64(struct trace_seq *s, void *data, void *ent)
{
	return tprobe_seq_printf(s, "0x%llx", *(u64 *)data);
}

static int tprobe_print_char(struct trace_seq *s, void *data, void *ent)
{
	return tprobe_seq_printf(s, "'%c'", *(u8 *)data);
}

/* A code address, shown as symbol+offset/size. */
static int tprobe_print_symbol(struct trace_seq *s, void *data, void *ent)
{
	trace_seq_printf(s, "%pS", (void *)*(unsigned long *)data);
	return !trace_seq_has_overflowed(s);
}

/* A string stored behind a data_loc word; length 0 means it faulted. */
static int tprobe_print_string(struct trace_seq *s, void *data, void *ent)
{
	u32 loc = *(u32 *)data;

	if (get_loc_len(loc))
		trace_seq_printf(s, "\"%s\"", (char *)get_loc_data(data, ent));
	else
		trace_seq_puts(s, FAULT_STRING);
	return !trace_seq_has_overflowed(s);
}

/* print fmt conversions; the string one sits inside a quoted fmt */
#define TPROBE_FMT_STRING	"\\\"%s\\\""
#define TPROBE_STR_FIELD	"__data_loc char[]"

#define TPROBE_TYPE(tname, bytes, sign, printer, conv, ftype)		\
	{ .name = tname, .size = bytes, .is_signed = sign,		\
	  .is_string = false, .print = printer, .fmt = conv,		\
	  .fmttype = ftype }

#define TPROBE_STR_TYPE(tname)						\
	{ .name = tname, .size = sizeof(u32), .is_signed = true,	\
	  .is_string = true, .print = tprobe_print_string,		\
	  .fmt = TPROBE_FMT_STRING, .fmttype = TPROBE_STR_FIELD }

/*
 * The basic types.  Hex and char types show as unsigned integers in the
 * format file; a symbol is an unsigned machine word.  The 64-bit print fmt
 * conversions are spelt %L (not %ll) because that is what the format files
 * of probe events have always shown, and tools compare them.
 */
static const struct fetch_type tprobe_types[] = {
	TPROBE_STR_TYPE("string"),
	TPROBE_STR_TYPE("ustring"),
	TPROBE_STR_TYPE("symstr"),
	TPROBE_TYPE("u8", 1, false, tprobe_print_u8, "%u", "u8"),
	TPROBE_TYPE("u16", 2, false, tprobe_print_u16, "%u", "u16"),
	TPROBE_TYPE("u32", 4, false, tprobe_print_u32, "%u", "u32"),
	TPROBE_TYPE("u64", 8, false, tprobe_print_u64, "%Lu", "u64"),
	TPROBE_TYPE("s8", 1, true, tprobe_print_s8, "%d", "s8"),
	TPROBE_TYPE("s16", 2, true, tprobe_print_s16, "%d", "s16"),
	TPROBE_TYPE("s32", 4, true, tprobe_print_s32, "%d", "s32"),
	TPROBE_TYPE("s64", 8, true, tprobe_print_s64, "%Ld", "s64"),
	TPROBE_TYPE("x8", 1, false, tprobe_print_x8, "0x%x", "u8"),
	TPROBE_TYPE("x16", 2, false, tprobe_print_x16, "0x%x", "u16"),
	TPROBE_TYPE("x32", 4, false, tprobe_print_x32, "0x%x", "u32"),
	TPROBE_TYPE("x64", 8, false, tprobe_print_x64, "0x%Lx", "u64"),
	TPROBE_TYPE("char", 1, false, tprobe_print_char, "'%c'", "u8"),
	TPROBE_TYPE("symbol", sizeof(long), false, tprobe_print_symbol,
		    "%pS", "u" __stringify(BITS_PER_LONG)),
};

/**
 * tprobe_find_type - look a basic type up by name
 * @name: the type name, not necessarily NUL-terminated
 * @len: bytes of @name to compare
 *
 * Return: the table entry, or NULL when there is no such basic type.
 */
const struct fetch_type *tprobe_find_type(const char *name, size_t len)
{
	const struct fetch_type *t;

	for (t = tprobe_types; t < tprobe_types + ARRAY_SIZE(tprobe_types); t++) {
		if (strlen(t->name) == len && !memcmp(t->name, name, len))
			return t;
	}
	return NULL;
}

/**
 * trace_probe_print_args - append the arguments of a record to the output
 * @s: the output
 * @args: the probe's arguments
 * @nr_args: how many
 * @data: where the arguments start in the record
 * @field: the record (base of the data_loc offsets)
 *
 * Each argument reads " name=value"; an array reads " name={v1,v2,...}".
 *
 * Return: 0, or -ENOMEM when @s ran out of room.
 */
int trace_probe_print_args(struct trace_seq *s, struct probe_arg *args,
			   int nr_args, u8 *data, void *field)
{
	const struct probe_arg *arg;
	unsigned int n, i;
	u8 *val;

	for (arg = args; arg < args + nr_args; arg++) {
		trace_seq_printf(s, " %s=", arg->name);
		val = data + arg->offset;
		n = arg->count ? arg->count : 1;
		if (arg->count)
			trace_seq_putc(s, '{');
		for (i = 0; i < n; i++, val += arg->type->size) {
			if (i)
				trace_seq_putc(s, ',');
			if (!arg->type->print(s, val, field))
				return -ENOMEM;
		}
		if (arg->count)
			trace_seq_putc(s, '}');
	}
	return 0;
}

/*
 * Text that is built twice: once with no buffer to learn its length, then
 * into a buffer of that length.
 */
struct tprobe_text {
	char	*buf;	/* NULL while measuring */
	size_t	size;
	size_t	len;
};

static __printf(2, 3) void tprobe_text_add(struct tprobe_text *t,
					   const char *fmt, ...)
{
	size_t room = t->len < t->size ? t->size - t->len : 0;
	va_list ap;

	va_start(ap, fmt);
	t->len += vsnprintf(t->buf ? t->buf + t->len : NULL, room, fmt, ap);
	va_end(ap);
}

/* " name=FMT" or " name={FMT,FMT,...}" */
static void tprobe_fmt_arg_conv(struct tprobe_text *t,
				const struct probe_arg *arg)
{
	unsigned int i;

	tprobe_text_add(t, " %s=", arg->name);
	if (!arg->count) {
		tprobe_text_add(t, "%s", arg->type->fmt);
		return;
	}
	for (i = 0; i < arg->count; i++)
		tprobe_text_add(t, "%c%s", i ? ',' : '{', arg->type->fmt);
	tprobe_text_add(t, "}");
}

/* ", REC->name" or ", __get_str(name)", per element for arrays */
static void tprobe_fmt_arg_value(struct tprobe_text *t,
				 const struct probe_arg *arg)
{
	bool str = arg->type->is_string;
	unsigned int i;

	if (!arg->count) {
		tprobe_text_add(t, str ? ", __get_str(%s)" : ", REC->%s",
				arg->name);
		return;
	}
	for (i = 0; i < arg->count; i++)
		tprobe_text_add(t, str ? ", __get_str(%s[%u])" : ", REC->%s[%u]",
				arg->name, i);
}

/*
 * What a print fmt starts with, per probe_print_type: the conversions for
 * the probe's own addresses and the fields that feed them.
 */
struct tprobe_fmt_head {
	const char *conv;
	const char *values;
};

static const struct tprobe_fmt_head tprobe_fmt_heads[] = {
	[PROBE_PRINT_NORMAL] = {
		.conv = "(%lx)",
		.values = ", REC->" FIELD_STRING_IP,
	},
	[PROBE_PRINT_RETURN] = {
		.conv = "(%lx <- %lx)",
		.values = ", REC->" FIELD_STRING_FUNC ", REC->" FIELD_STRING_RETIP,
	},
	[PROBE_PRINT_EVENT] = {
		.conv = "",
		.values = "",
	},
};

static void tprobe_build_print_fmt(struct tprobe_text *t,
				   struct trace_probe *tp,
				   const struct tprobe_fmt_head *h)
{
	unsigned int i;

	tprobe_text_add(t, "\"%s", h->conv);
	for (i = 0; i < tp->nr_args; i++)
		tprobe_fmt_arg_conv(t, &tp->args[i]);
	tprobe_text_add(t, "\"%s", h->values);
	for (i = 0; i < tp->nr_args; i++)
		tprobe_fmt_arg_value(t, &tp->args[i]);
}

/**
 * traceprobe_set_print_fmt - generate the event's print fmt
 * @tp: the probe (its arguments are parsed)
 * @ptype: what the output starts with: the probe address, the return and
 *	function addresses, or nothing (event probes)
 *
 * A print fmt the event had before is freed and replaced.
 *
 * Return: 0, -ENOMEM, or -EINVAL for an unknown @ptype.
 */
int traceprobe_set_print_fmt(struct trace_probe *tp,
			     enum probe_print_type ptype)
{
	const struct tprobe_fmt_head *h;
	struct trace_event_call *call;
	struct tprobe_text t = { };

	if (WARN_ON_ONCE((unsigned int)ptype >= ARRAY_SIZE(tprobe_fmt_heads)))
		return -EINVAL;
	h = &tprobe_fmt_heads[ptype];

	/* measure, then write */
	tprobe_build_print_fmt(&t, tp, h);
	t.size = t.len + 1;
	t.len = 0;
	t.buf = kmalloc(t.size, GFP_KERNEL_ACCOUNT);
	if (!t.buf)
		return -ENOMEM;
	tprobe_build_print_fmt(&t, tp, h);

	call = trace_probe_event_call(tp);
	kfree(call->print_fmt);
	call->print_fmt = t.buf;
	return 0;
}

/* The C type an argument shows in the format file */
static const char *tprobe_field_type(const struct probe_arg *arg)
{
	return arg->fmt ? arg->fmt : arg->type->fmttype;
}

/*
 * Copy every argument's name and field type into one buffer owned by the
 * event, as consecutive NUL-terminated strings: name0, type0, name1, ...
 */
static char *tprobe_copy_field_text(struct trace_probe *tp)
{
	size_t size = 0;
	unsigned int i;
	char *text, *p;

	for (i = 0; i < tp->nr_args; i++)
		size += strlen(tp->args[i].name) + 1 +
			strlen(tprobe_field_type(&tp->args[i])) + 1;

	text = kmalloc(size ? size : 1, GFP_KERNEL_ACCOUNT);
	if (!text)
		return NULL;

	p = text;
	for (i = 0; i < tp->nr_args; i++) {
		p += sprintf(p, "%s", tp->args[i].name) + 1;
		p += sprintf(p, "%s", tprobe_field_type(&tp->args[i])) + 1;
	}
	return text;
}

/**
 * traceprobe_define_arg_fields - declare the argument fields of an event
 * @event_call: the probe event
 * @offset: where the arguments start in the record
 * @tp: the probe whose arguments define the layout
 *
 * One field per argument, with the argument's name and C type (an array
 * type for arrays, "__data_loc char[]" for strings).  The names and types
 * are copied into the event, so the fields stay valid when @tp goes away
 * while sibling probes keep the event.  Calling it again replaces the
 * copies (the field list itself must be empty then).
 *
 * Context: event_mutex held.
 * Return: 0, -ENOMEM, or the error of trace_define_field().
 */
int traceprobe_define_arg_fields(struct trace_event_call *event_call,
				 size_t offset, struct trace_probe *tp)
{
	struct trace_probe_event *tpe = trace_probe_event_from_call(event_call);
	const struct probe_arg *arg;
	const char *name, *type;
	unsigned int i, size;
	int ret;

	kfree(tpe->field_text);
	tpe->field_text = tprobe_copy_field_text(tp);
	if (!tpe->field_text)
		return -ENOMEM;

	name = tpe->field_text;
	for (i = 0; i < tp->nr_args; i++) {
		arg = &tp->args[i];
		type = name + strlen(name) + 1;
		size = arg->type->size * (arg->count ? arg->count : 1);
		ret = trace_define_field(event_call, type, name,
					 offset + arg->offset, size,
					 arg->type->is_signed, FILTER_OTHER);
		if (ret)
			return ret;
		name = type + strlen(type) + 1;
	}
	return 0;
}
