/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probe-definition library: the interface shared by the probe event front
 * ends (kprobe, fprobe, eprobe and uprobe events).
 *
 * A probe definition is parsed into a struct trace_probe: a probe point
 * owned by the front end plus an array of fetch arguments.  Each argument
 * carries a small fetch program (struct fetch_insn[]) which the front end
 * runs when the probe hits, writing the value into the event record.  The
 * library also owns the trace event (struct trace_probe_event) that one or
 * more probes ("siblings") share, its fields, print format and output.
 *
 * Files: trace_probe.c (probe and event objects), trace_probe_types.c
 * (types, fields, formats, output), trace_probe_log.c (error_log) and
 * the definition and argument parser: trace_probe_parse.c (one argument),
 * trace_probe_expr.c (its expression) and trace_probe_argv.c (the words
 * around the arguments), mapped in trace_probe_parse.h.  The run-time
 * interpreter lives in trace_probe_tmpl.h; memory access helpers for kernel
 * front ends in trace_probe_kernel.h.
 */
#ifndef _KERNEL_TRACE_PROBE_H
#define _KERNEL_TRACE_PROBE_H

#include <linux/bitops.h>
#include <linux/btf.h>
#include <linux/kprobes.h>
#include <linux/limits.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/tracefs.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <asm/bitsperlong.h>

#include "trace.h"
#include "trace_output.h"

/* Limits of a definition */
#define MAX_TRACE_ARGS		128	/* fetch arguments per probe */
#define MAX_ARGSTR_LEN		63	/* one argument expression */
#define MAX_ARRAY_LEN		64	/* elements of an array argument */
#define MAX_ARG_NAME_LEN	32	/* one argument name */
#define MAX_BTF_ARGS_LEN	128	/* buffer for $arg* expansion */
#define MAX_DENTRY_ARGS_LEN	256	/* buffer for %pd/%pD expansion */
#define MAX_STRING_SIZE		PATH_MAX /* one fetched string */
#define MAX_PROBE_EVENT_SIZE	3072	/* fixed part of one record */

/* Names of the fields every probe event has besides its arguments */
#define FIELD_STRING_IP		"__probe_ip"
#define FIELD_STRING_RETIP	"__probe_ret_ip"
#define FIELD_STRING_FUNC	"__probe_func"

/*
 * DEFINE_FIELD - declare member @item of the local record variable "field"
 * as an event field called @name.  Used inside a define_fields callback that
 * has "event_call" and "ret" in scope; returns from it on failure.
 */
#undef DEFINE_FIELD
#define DEFINE_FIELD(type, item, name, is_signed)			\
	do {								\
		ret = trace_define_field(event_call, #type, name,	\
					 offsetof(typeof(field), item),	\
					 sizeof(field.item), is_signed,	\
					 FILTER_OTHER);			\
		if (ret)						\
			return ret;					\
	} while (0)

/* trace_probe_event.flags: which kind of consumer has the event enabled */
#define TP_FLAG_TRACE		1	/* ftrace ring buffer (a trace file) */
#define TP_FLAG_PROFILE		2	/* perf */

/*
 * Variable-length data (strings, string arrays) lives after the fixed part
 * of a record.  Its 32-bit "data_loc" word packs the length (high 16 bits)
 * and the offset from the start of the record (low 16 bits).  While
 * recording, the length part holds the space still available.
 */
#define make_data_loc(len, offs)	\
	(((u32)(len) << 16) | ((u32)(offs) & 0xffff))
#define get_loc_len(dl)		((u32)(dl) >> 16)
#define get_loc_offs(dl)	((u32)(dl) & 0xffff)

static nokprobe_inline void *get_loc_data(u32 *dl, void *ent)
{
	return (u8 *)ent + get_loc_offs(*dl);
}

/* Advance a data_loc past @consumed bytes that were just written. */
static nokprobe_inline u32 update_data_loc(u32 loc, int consumed)
{
	return make_data_loc(get_loc_len(loc) - consumed,
			     get_loc_offs(loc) + consumed);
}

/* Prints one value of a type: @data points at it, @ent at the record. */
typedef int (*print_type_func_t)(struct trace_seq *, void *, void *);

/*
 * Fetch program opcodes.  A program is a sequence of stages, each optional
 * except load, store and END:
 *   load:   REG .. EDATA, NOP_SYMBOL (rewritten to IMM once resolved);
 *   deref:  DEREF/UDEREF, any number of times;
 *   store:  ST_*;
 *   modify: MOD_BF;
 *   loop:   LP_ARRAY (repeat the store stage .param times);
 *   END.
 * The operand each op uses is noted after it.
 */
enum fetch_op {
	FETCH_OP_NOP = 0,
	FETCH_OP_REG,		/* .param: offset in struct pt_regs */
	FETCH_OP_STACK,		/* .param: stack slot number */
	FETCH_OP_STACKP,	/* the stack pointer itself */
	FETCH_OP_RETVAL,	/* the return value */
	FETCH_OP_IMM,		/* .immediate */
	FETCH_OP_COMM,		/* current->comm */
	FETCH_OP_ARG,		/* .param: function argument number */
	FETCH_OP_FOFFS,		/* .immediate: offset in the probed file */
	FETCH_OP_DATA,		/* .data: allocated constant (string) */
	FETCH_OP_EDATA,		/* .offset: into the entry data */
	FETCH_OP_DEREF,		/* .offset: load a word from kernel memory */
	FETCH_OP_UDEREF,	/* .offset: load a word from user memory */
	FETCH_OP_ST_RAW,	/* .size: store the value itself */
	FETCH_OP_ST_MEM,	/* .offset, .size: copy kernel memory */
	FETCH_OP_ST_UMEM,	/* .offset, .size: copy user memory */
	FETCH_OP_ST_STRING,	/* .offset: copy a kernel string */
	FETCH_OP_ST_USTRING,	/* .offset: copy a user string */
	FETCH_OP_ST_SYMSTR,	/* .offset: print the address as symbol+off */
	FETCH_OP_ST_EDATA,	/* .offset: store into the entry data */
	FETCH_OP_MOD_BF,	/* .basesize, .lshift, .rshift: bitfield */
	FETCH_OP_LP_ARRAY,	/* .param: number of elements */
	FETCH_OP_TP_ARG,	/* .data: field of the attached event */
	FETCH_OP_END,
	FETCH_NOP_SYMBOL,	/* .data: symbol name not resolved yet */
};

/* One instruction of a fetch program; which operand is valid depends on op */
struct fetch_insn {
	enum fetch_op op;
	union {
		unsigned int param;
		struct {
			unsigned int size;
			int offset;
		};
		struct {
			unsigned char basesize;
			unsigned char lshift;
			unsigned char rshift;
		};
		unsigned long immediate;
		void *data;
	};
};

/* Room for one load, 12 dereferences, store, modify, loop and END */
#define FETCH_INSN_MAX		16
/* Placeholder register offset the uprobe parser uses for $comm */
#define FETCH_TOKEN_COMM	(-ECOMM)

/*
 * A basic type of fetched values.  The table of them is constant
 * (trace_probe_types.c); probe_arg.type points into it.
 */
struct fetch_type {
	const char		*name;		/* as written after ':' */
	size_t			size;		/* bytes in the record */
	bool			is_signed;
	bool			is_string;	/* stored as a data_loc */
	print_type_func_t	print;		/* trace output */
	const char		*fmt;		/* print fmt conversion */
	const char		*fmttype;	/* C type in the format file */
};

/* The type used when an argument has none: a hex machine word */
#define DEFAULT_FETCH_TYPE_STR	"x" __stringify(BITS_PER_LONG)

#ifdef CONFIG_KPROBE_EVENTS
bool trace_kprobe_on_func_entry(struct trace_event_call *call);
bool trace_kprobe_error_injectable(struct trace_event_call *call);
#else
static inline bool trace_kprobe_on_func_entry(struct trace_event_call *call)
{
	return false;
}

static inline bool trace_kprobe_error_injectable(struct trace_event_call *call)
{
	return false;
}
#endif /* CONFIG_KPROBE_EVENTS */

/*
 * One fetch argument of a probe.  Built by the parser, read-only once the
 * probe is registered; freed with traceprobe_free_probe_arg().
 */
struct probe_arg {
	struct fetch_insn	*code;	/* fetch program, ends with END */
	bool			dynamic;/* stored as data_loc (strings) */
	bool			simple;	/* one load op, ST_RAW, END */
	unsigned int		offset;	/* of the value in the record */
	unsigned int		count;	/* array elements, 0 if scalar */
	const char		*name;	/* field name */
	const char		*comm;	/* the argument as written */
	char			*fmt;	/* print fmt for arrays, or NULL */
	const struct fetch_type	*type;
};

/*
 * Values a return probe saves at function entry ($argN of a return probe).
 * @code stores them into the entry data (FETCH_OP_ST_EDATA); @size is the
 * number of bytes needed.
 */
struct probe_entry_arg {
	struct fetch_insn	*code;
	unsigned int		size;
};

/*
 * Perf-event filter of a uprobe event.  @rwlock protects both members;
 * the uprobe layer owns their meaning.
 */
struct trace_uprobe_filter {
	rwlock_t		rwlock;
	int			nr_systemwide;
	struct list_head	perf_events;
};

/*
 * The trace event behind one or more probes with the same group/event.
 *
 * Lifetime: created by trace_probe_init() of the first probe, shared by
 * every sibling appended with trace_probe_append(), freed when the last
 * probe leaves it (trace_probe_unlink()/trace_probe_cleanup()).  A probe
 * detached with trace_probe_detach() is no longer one of its probes.
 *
 * Locking: @probes, @files and @flags change only under event_mutex.
 * Probe handlers read @flags without locks (acquire/release pairs in the
 * flag helpers) and walk @files under RCU (sched-RCU in kprobe context):
 * a removed link is freed only after a grace period.
 *
 * @field_text holds copies of the names and types of the argument fields
 * (the event's field list points into it, not into a probe's arguments,
 * so that the fields outlive the probe that defined them).
 */
struct trace_probe_event {
	unsigned int			flags;		/* TP_FLAG_* */
	struct trace_event_class	class;
	struct trace_event_call		call;
	struct list_head		files;		/* event_file_link */
	struct list_head		probes;		/* trace_probe.list */
	char				*field_text;	/* see below */
	struct trace_uprobe_filter	filter[];	/* uprobe events only */
};

/*
 * One probe point's definition.  Embedded in the front end's probe object
 * (the args array is its last member).  @list links the siblings of @event;
 * @size is the fixed size of the arguments' part of a record.
 * Filled while parsing, then read-only until freed by trace_probe_cleanup().
 */
struct trace_probe {
	struct list_head		list;
	struct trace_probe_event	*event;
	ssize_t				size;
	unsigned int			nr_args;
	bool				dynamic_args;	/* some args[].dynamic */
	struct probe_entry_arg		*entry_arg;	/* return probes only */
	struct probe_arg		args[];
};

/*
 * A trace instance (tracefs "trace" file) the event writes to.  Added and
 * removed under event_mutex, read under RCU by the probe handlers.
 */
struct event_file_link {
	struct trace_event_file		*file;
	struct list_head		list;
};

static inline unsigned int trace_probe_load_flag(struct trace_probe *tp)
{
	/*
	 * Handlers read the flags locklessly: pairs with the release in
	 * trace_probe_set_flag(), so a handler that sees a flag also sees
	 * the links and state set up before it.
	 */
	return smp_load_acquire(&tp->event->flags);
}

static inline bool trace_probe_test_flag(struct trace_probe *tp,
					 unsigned int flag)
{
	return (trace_probe_load_flag(tp) & flag) != 0;
}

/* Caller holds event_mutex; pairs with trace_probe_load_flag(). */
static inline void trace_probe_set_flag(struct trace_probe *tp,
					unsigned int flag)
{
	/* publish everything set up for this consumer before the flag */
	smp_store_release(&tp->event->flags, tp->event->flags | flag);
}

/* Caller holds event_mutex; handlers may read the flags meanwhile. */
static inline void trace_probe_clear_flag(struct trace_probe *tp,
					  unsigned int flag)
{
	WRITE_ONCE(tp->event->flags, tp->event->flags & ~flag);
}

static inline bool trace_probe_is_enabled(struct trace_probe *tp)
{
	return trace_probe_test_flag(tp, TP_FLAG_TRACE | TP_FLAG_PROFILE);
}

static inline struct trace_event_call *
trace_probe_event_call(struct trace_probe *tp)
{
	return &tp->event->call;
}

static inline const char *trace_probe_name(struct trace_probe *tp)
{
	return trace_event_name(trace_probe_event_call(tp));
}

static inline const char *trace_probe_group_name(struct trace_probe *tp)
{
	return trace_probe_event_call(tp)->class->system;
}

static inline struct trace_probe_event *
trace_probe_event_from_call(struct trace_event_call *event_call)
{
	return container_of(event_call, struct trace_probe_event, call);
}

/* The first probe of the event: the one whose definition is shown first */
static inline struct trace_probe *
trace_probe_primary_from_call(struct trace_event_call *call)
{
	struct list_head *probes = &trace_probe_event_from_call(call)->probes;

	return list_first_entry_or_null(probes, struct trace_probe, list);
}

static inline struct list_head *trace_probe_probe_list(struct trace_probe *tp)
{
	return &tp->event->probes;
}

static inline bool trace_probe_has_sibling(struct trace_probe *tp)
{
	struct list_head *probes = trace_probe_probe_list(tp);

	/* two or more entries: the first one is not also the last one */
	return !list_empty(probes) && probes->next != probes->prev;
}

/* The event memory stays with the probes; only the tracefs side goes. */
static inline int trace_probe_unregister_event_call(struct trace_probe *tp)
{
	return trace_remove_event_call(trace_probe_event_call(tp));
}

static inline bool trace_probe_has_single_file(struct trace_probe *tp)
{
	return list_is_singular(&tp->event->files);
}

int trace_probe_init(struct trace_probe *tp, const char *event,
		     const char *group, bool alloc_filter, int nargs);
void trace_probe_cleanup(struct trace_probe *tp);
int trace_probe_append(struct trace_probe *tp, struct trace_probe *to);
void trace_probe_unlink(struct trace_probe *tp);
void trace_probe_detach(struct trace_probe *tp);
int trace_probe_register_event_call(struct trace_probe *tp);
int trace_probe_add_file(struct trace_probe *tp, struct trace_event_file *file);
int trace_probe_remove_file(struct trace_probe *tp,
			    struct trace_event_file *file);
void trace_probe_disable_files(struct trace_probe *tp, const char *subsys,
			       const char **errs);
struct event_file_link *trace_probe_get_file_link(struct trace_probe *tp,
						  struct trace_event_file *file);
int trace_probe_compare_arg_type(struct trace_probe *a, struct trace_probe *b);
bool trace_probe_match_command_args(struct trace_probe *tp,
				    int argc, const char **argv);
bool trace_probe_match_event(struct trace_probe *tp, const char *system,
			     const char *event);
bool trace_probe_match_command(struct trace_probe *tp, const char *system,
			       const char *event, int argc, const char **argv,
			       bool (*site_matches)(struct trace_probe *tp,
						    const char *word));
int trace_probe_create(const char *raw_command,
		       int (*createfn)(int, const char **));
int trace_probe_create_locked(const char *raw_command,
			      int (*createfn)(int, const char **));
int trace_probe_print_args(struct trace_seq *s, struct probe_arg *args,
			   int nr_args, u8 *data, void *field);

#ifdef CONFIG_HAVE_FUNCTION_ARG_ACCESS_API
int traceprobe_get_entry_data_size(struct trace_probe *tp);
/* Runs in the entry handler of a return probe: fills the entry data. */
void store_trace_entry_data(void *edata, struct trace_probe *tp,
			    struct pt_regs *regs);
#else
static inline int traceprobe_get_entry_data_size(struct trace_probe *tp)
{
	return 0;
}

static inline void store_trace_entry_data(void *edata, struct trace_probe *tp,
					  struct pt_regs *regs)
{
}
#endif

/* Walk the trace instances of an event (event_mutex held) */
#define trace_probe_for_each_link(pos, tp)	\
	list_for_each_entry(pos, &(tp)->event->files, list)
/* Same, from a probe handler (RCU read side) */
#define trace_probe_for_each_link_rcu(pos, tp)	\
	list_for_each_entry_rcu(pos, &(tp)->event->files, list)

/*
 * Where a probe sits, for the argument parser.  Exactly one location bit of
 * RETURN, FENTRY and TEVENT at most, and one of KERNEL and USER; FPROBE and
 * TPOINT only together with KERNEL.
 */
#define TPARG_FL_RETURN		BIT(0)	/* function exit */
#define TPARG_FL_KERNEL		BIT(1)	/* kernel probe */
#define TPARG_FL_FENTRY		BIT(2)	/* function entry */
#define TPARG_FL_TEVENT		BIT(3)	/* on a trace event (eprobe) */
#define TPARG_FL_USER		BIT(4)	/* user-space probe */
#define TPARG_FL_FPROBE		BIT(5)	/* fprobe based */
#define TPARG_FL_TPOINT		BIT(6)	/* on a tracepoint */
#define TPARG_FL_LOC_MASK	GENMASK(4, 0)

static inline bool tparg_is_function_entry(unsigned int flags)
{
	return (flags & TPARG_FL_LOC_MASK) ==
		(TPARG_FL_KERNEL | TPARG_FL_FENTRY);
}

static inline bool tparg_is_function_return(unsigned int flags)
{
	return (flags & TPARG_FL_LOC_MASK) ==
		(TPARG_FL_KERNEL | TPARG_FL_RETURN);
}

/*
 * State of parsing one definition's arguments.  The front end sets
 * @flags (and @event for eprobes, @funcname when known) and passes the
 * same context for every argument; @offset is the byte offset of the
 * argument being parsed within its argv word, for error positions.
 * Release with traceprobe_finish_parse().
 */
struct btf;
struct btf_param;
struct btf_type;

/*
 * The funcname's BTF prototype (PROBE_EVENTS_BTF_ARGS): looked up on first
 * use by the library, released by traceprobe_finish_parse().
 */
struct traceprobe_parse_context {
	struct trace_event_call	*event;		/* eprobe: attached event */
	const char		*funcname;	/* probed function, or NULL */
	struct trace_probe	*tp;		/* probe being built */
	unsigned int		flags;		/* TPARG_FL_* */
	int			offset;
	struct btf		*btf;		/* holds a reference, or NULL */
	const struct btf_type	*proto;		/* BTF_KIND_FUNC_PROTO, or NULL */
	const struct btf_param	*params;
	s32			nr_params;
	bool			btf_queried;	/* looked up already */
};

int traceprobe_parse_probe_arg(struct trace_probe *tp, int i, const char *argv,
			       struct traceprobe_parse_context *ctx);
const char **traceprobe_expand_meta_args(int argc, const char *argv[],
					 int *new_argc, char *buf, int bufsize,
					 struct traceprobe_parse_context *ctx);
int traceprobe_expand_dentry_args(int argc, const char *argv[], char **buf);
int traceprobe_update_arg(struct probe_arg *arg);
void traceprobe_free_probe_arg(struct probe_arg *arg);
void traceprobe_finish_parse(struct traceprobe_parse_context *ctx);
int traceprobe_split_symbol_offset(char *symbol, long *offset);
int traceprobe_parse_event_name(const char **pevent, const char **pgroup,
				char *buf, int offset);

/* What the print fmt starts with */
enum probe_print_type {
	PROBE_PRINT_NORMAL,	/* (probe address) */
	PROBE_PRINT_RETURN,	/* (return address <- function) */
	PROBE_PRINT_EVENT,	/* nothing: eprobe */
};

int traceprobe_set_print_fmt(struct trace_probe *tp,
			     enum probe_print_type ptype);
int traceprobe_define_arg_fields(struct trace_event_call *event_call,
				 size_t offset, struct trace_probe *tp);

#ifdef CONFIG_PERF_EVENTS
struct trace_event_call *
create_local_trace_kprobe(char *func, void *addr, unsigned long offs,
			  bool is_return);
void destroy_local_trace_kprobe(struct trace_event_call *event_call);

struct trace_event_call *
create_local_trace_uprobe(char *name, unsigned long offs,
			  unsigned long ref_ctr_offset, bool is_return);
void destroy_local_trace_uprobe(struct trace_event_call *event_call);
#endif

/*
 * Error codes of the probe definition syntax, reported to error_log by
 * trace_probe_log_err().  The texts are in trace_probe_log.c.
 */
enum tp_err_code {
	/* probe point */
	TP_ERR_FILE_NOT_FOUND,
	TP_ERR_NO_REGULAR_FILE,
	TP_ERR_BAD_REFCNT,
	TP_ERR_REFCNT_OPEN_BRACE,
	TP_ERR_BAD_REFCNT_SUFFIX,
	TP_ERR_BAD_UPROBE_OFFS,
	TP_ERR_BAD_MAXACT_TYPE,
	TP_ERR_BAD_MAXACT,
	TP_ERR_MAXACT_TOO_BIG,
	TP_ERR_BAD_PROBE_ADDR,
	TP_ERR_NON_UNIQ_SYMBOL,
	TP_ERR_BAD_RETPROBE,
	TP_ERR_NO_TRACEPOINT,
	TP_ERR_BAD_TP_NAME,
	TP_ERR_BAD_ADDR_SUFFIX,
	TP_ERR_BAD_PROBE_TYPE,
	TP_ERR_NO_PROBE_POINT,
	TP_ERR_BAD_UPROBE_SITE,
	TP_ERR_TOO_MANY_ARGS,
	/* group and event names */
	TP_ERR_NO_GROUP_NAME,
	TP_ERR_GROUP_TOO_LONG,
	TP_ERR_BAD_GROUP_NAME,
	TP_ERR_NO_EVENT_NAME,
	TP_ERR_EVENT_TOO_LONG,
	TP_ERR_BAD_EVENT_NAME,
	TP_ERR_EVENT_EXIST,
	/* fetch arguments */
	TP_ERR_RETVAL_ON_PROBE,
	TP_ERR_NO_RETVAL,
	TP_ERR_BAD_STACK_NUM,
	TP_ERR_BAD_ARG_NUM,
	TP_ERR_BAD_VAR,
	TP_ERR_BAD_REG_NAME,
	TP_ERR_BAD_MEM_ADDR,
	TP_ERR_BAD_IMM,
	TP_ERR_IMMSTR_NO_CLOSE,
	TP_ERR_FILE_ON_KPROBE,
	TP_ERR_BAD_FILE_OFFS,
	TP_ERR_SYM_ON_UPROBE,
	TP_ERR_TOO_MANY_OPS,
	TP_ERR_DEREF_NEED_BRACE,
	TP_ERR_BAD_DEREF_OFFS,
	TP_ERR_DEREF_OPEN_BRACE,
	TP_ERR_COMM_CANT_DEREF,
	TP_ERR_BAD_FETCH_ARG,
	TP_ERR_ARRAY_NO_CLOSE,
	TP_ERR_BAD_ARRAY_SUFFIX,
	TP_ERR_BAD_ARRAY_NUM,
	TP_ERR_ARRAY_TOO_BIG,
	TP_ERR_BAD_TYPE,
	TP_ERR_BAD_STRING,
	TP_ERR_BAD_SYMSTRING,
	TP_ERR_BAD_BITFIELD,
	TP_ERR_ARG_NAME_TOO_LONG,
	TP_ERR_NO_ARG_NAME,
	TP_ERR_BAD_ARG_NAME,
	TP_ERR_USED_ARG_NAME,
	TP_ERR_ARG_TOO_LONG,
	TP_ERR_NO_ARG_BODY,
	/* registration */
	TP_ERR_BAD_INSN_BNDRY,
	TP_ERR_FAIL_REG_PROBE,
	TP_ERR_DIFF_PROBE_TYPE,
	TP_ERR_DIFF_ARG_TYPE,
	TP_ERR_SAME_PROBE,
	/* event probes */
	TP_ERR_NO_EVENT_INFO,
	TP_ERR_BAD_ATTACH_EVENT,
	TP_ERR_BAD_ATTACH_ARG,
	TP_ERR_NO_EP_FILTER,
	/* BTF and $arg* */
	TP_ERR_NOSUP_BTFARG,
	TP_ERR_NO_BTFARG,
	TP_ERR_NO_BTF_ENTRY,
	TP_ERR_BAD_VAR_ARGS,
	TP_ERR_NOFENTRY_ARGS,
	TP_ERR_DOUBLE_ARGS,
	TP_ERR_ARGS_2LONG,
	TP_ERR_ARGIDX_2BIG,
	TP_ERR_NO_PTR_STRCT,
	TP_ERR_NOSUP_DAT_ARG,
	TP_ERR_BAD_HYPHEN,
	TP_ERR_NO_BTF_FIELD,
	TP_ERR_BAD_BTF_TID,
	TP_ERR_BAD_TYPE4STR,
	TP_ERR_NEED_STRING_TYPE,
	TP_ERR_EVENT_TOO_BIG,
	TP_ERR_NR_CODES		/* number of codes, not an error */
};

/*
 * Error log.  A front end calls trace_probe_log_init() with the words of
 * the definition it is parsing, trace_probe_log_set_index() when it moves
 * to another word, and trace_probe_log_clear() when done.  All of it runs
 * under dyn_event_ops_mutex / event_mutex, one definition at a time.
 */
void trace_probe_log_init(const char *subsystem, int argc, const char **argv);
void trace_probe_log_set_index(int index);
void trace_probe_log_clear(void);
void __trace_probe_log_err(int offset, int err);

/* Report error TP_ERR_@err at byte @offs of the current word */
#define trace_probe_log_err(offs, err)	\
	__trace_probe_log_err(offs, TP_ERR_##err)

/* What the uprobe handlers pass down to the fetch program */
struct uprobe_dispatch_data {
	struct trace_uprobe	*tu;
	unsigned long		bp_addr;
};

#endif /* _KERNEL_TRACE_PROBE_H */
