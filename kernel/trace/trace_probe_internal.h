/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private interface between the files of the probe-definition library
 * (trace_probe*.c).  Front ends (kprobe, fprobe, eprobe and uprobe events)
 * use trace_probe.h only.
 */
#ifndef _TRACE_PROBE_INTERNAL_H
#define _TRACE_PROBE_INTERNAL_H

#include "trace_probe.h"

/*
 * Type table (trace_probe_types.c).  @name need not be NUL-terminated:
 * @len bytes are compared.  Returns NULL when no basic type has that name.
 * Names: u8..u64, s8..s64, x8..x64, char, string, ustring, symstr, symbol.
 */
const struct fetch_type *tprobe_find_type(const char *name, size_t len);

/*
 * Error log (trace_probe_log.c).  Besides writing error_log, the log keeps
 * the last error it reported, so that KUnit tests can check the error code
 * and the caret position (counted in bytes from the start of the command
 * as error_log prints it) without parsing tracefs.
 */
struct tprobe_log_last {
	int err;	/* TP_ERR_* code, or -1 when nothing was reported */
	int pos;	/* caret position in the printed command */
};

void tprobe_log_get_last(struct tprobe_log_last *last);
void tprobe_log_forget_last(void);

/*
 * BTF view of the probed function (trace_probe_btf.c), built with
 * CONFIG_PROBE_EVENTS_BTF_ARGS.  tprobe_btf_query() fills ctx->btf,
 * ctx->proto, ctx->params and ctx->nr_params; the other helpers need a
 * successful query.  "nth" counts the parameters the user sees from 0.
 */
#define TPROBE_BTF_TYPE_LEN	40	/* "s64", "x64", "b<W>@<O>/<C>" */

struct tprobe_btf_member {
	u32			bit_offset;	/* from the containing type */
	u32			bit_size;	/* bitfield width, or 0 */
	const struct btf_type	*type;		/* modifiers skipped */
};

#ifdef CONFIG_PROBE_EVENTS_BTF_ARGS
int tprobe_btf_query(struct traceprobe_parse_context *ctx);
void tprobe_btf_release(struct traceprobe_parse_context *ctx);
int tprobe_btf_nr_args(const struct traceprobe_parse_context *ctx);
const char *tprobe_btf_arg_name(const struct traceprobe_parse_context *ctx,
				int nth);
int tprobe_btf_arg_index(const struct traceprobe_parse_context *ctx,
			 const char *name, size_t len);
const struct btf_type *
tprobe_btf_arg_type(const struct traceprobe_parse_context *ctx, int nth);
const struct btf_type *
tprobe_btf_ret_type(const struct traceprobe_parse_context *ctx);
const struct btf_type *
tprobe_btf_pointee(const struct traceprobe_parse_context *ctx,
		   const struct btf_type *t);
int tprobe_btf_member(const struct traceprobe_parse_context *ctx,
		      const struct btf_type *t, const char *name, size_t len,
		      struct tprobe_btf_member *m);
bool tprobe_btf_is_char_ptr(const struct traceprobe_parse_context *ctx,
			    const struct btf_type *t);
bool tprobe_btf_is_char_array(const struct traceprobe_parse_context *ctx,
			      const struct btf_type *t);
const char *tprobe_btf_fetch_type(const struct btf_type *t, char *buf);
#else
static inline int tprobe_btf_query(struct traceprobe_parse_context *ctx)
{
	return -EOPNOTSUPP;
}

static inline void tprobe_btf_release(struct traceprobe_parse_context *ctx)
{
}

static inline int tprobe_btf_nr_args(const struct traceprobe_parse_context *ctx)
{
	return 0;
}
#endif

/*
 * Serialises dynamic event commands (defined in trace_dynevent.c); the
 * error log state belongs to the command holding it.  (Added by H1.)
 */
extern struct mutex dyn_event_ops_mutex;

#endif /* _TRACE_PROBE_INTERNAL_H */
