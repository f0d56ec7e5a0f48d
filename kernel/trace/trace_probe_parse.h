/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private interface between the three files of the probe library's
 * fetch-argument parser.  The front ends reach the parser through
 * trace_probe.h; the library's other files do not include this header.
 *
 * Layering: a file calls functions of the files listed below it only,
 * never of one above it.
 *
 *	trace_probe_parse.c	one argument as a whole: its name, its
 *				":TYPE[N]", the store, modify and loop stages
 *				after its expression, the finished program;
 *				freeing an argument, resolving its symbols
 *	trace_probe_expr.c	the EXPR of one argument: the program builder,
 *				the leaves ($vars, BTF names, registers,
 *				memory, immediates) and the dereferences, that
 *				is the load and deref stages; the entry-argument
 *				capture of return probes
 *	trace_probe_argv.c	the words of a definition around its
 *				arguments: $arg*, $argN, %pd and %pD rewritten
 *				in the argument list, SYM+OFFS, GROUP/EVENT;
 *				calls neither of the others
 *
 * trace_probe_parse.c calls into trace_probe_expr.c for tpp_expr() and the
 * builder (tpp_emit(), tpp_last(), tpp_release(), tpp_insn_owns_data()).
 * tpp_fail() is inline below, as all three files log through it.
 *
 * Locks: parsing runs in process context with dyn_event_ops_mutex held,
 * which the error log needs.  traceprobe_update_arg() and
 * traceprobe_free_probe_arg() run in process context whenever the front
 * end hooks or frees a probe (event_mutex, or nothing for a probe no one
 * else sees).  store_trace_entry_data() alone runs in the probe handler.
 */
#ifndef _TRACE_PROBE_PARSE_H
#define _TRACE_PROBE_PARSE_H

#include "trace_probe_internal.h"

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

/* Log @err at caret @pos and hand back @ret, so callers can return it. */
static inline int tpp_fail(int pos, int err, int ret)
{
	__trace_probe_log_err(pos, err);
	return ret;
}

/* trace_probe_expr.c: the program builder */
bool tpp_insn_owns_data(const struct fetch_insn *insn);
void tpp_release(struct tpp_compiler *c);
struct fetch_insn *tpp_emit(struct tpp_compiler *c, enum fetch_op op);
struct fetch_insn *tpp_last(struct tpp_compiler *c);

/* trace_probe_expr.c: compile EXPR @s, whose first byte is at caret @pos */
int tpp_expr(struct tpp_compiler *c, char *s, int pos);

#endif /* _TRACE_PROBE_PARSE_H */
