/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run-time interpreter of fetch programs, shared by the probe front ends.
 *
 * A front end includes this file after trace_probe.h and defines the hooks
 * declared below: process_fetch_insn() runs the load stage (registers,
 * stack, arguments ... all front-end specific) and then hands the value to
 * process_fetch_insn_bottom(), which does the rest of the program.  The
 * memory access hooks decide how kernel and user memory are read.
 *
 * Everything here runs in probe context (kprobe, uprobe or tracepoint
 * handler): no sleeping, no locks, and nothing in it may itself be probed,
 * hence nokprobe_inline throughout.
 *
 * Return convention of the program runners: with a @dest, the number of
 * bytes of variable-length data written (0 for fixed-size values), or a
 * negative errno; without @dest (sizing pass, used only for arguments
 * stored as data_loc), the number of bytes the data will need.
 */
#ifndef _KERNEL_TRACE_PROBE_TMPL_H
#define _KERNEL_TRACE_PROBE_TMPL_H

/* Hooks every front end provides (see the comment at the top). */
static int
process_fetch_insn(struct fetch_insn *code, void *rec, void *edata,
		   void *dest, void *base);
static nokprobe_inline int fetch_store_strlen(unsigned long addr);
static nokprobe_inline int
fetch_store_string(unsigned long addr, void *dest, void *base);
static nokprobe_inline int fetch_store_strlen_user(unsigned long addr);
static nokprobe_inline int
fetch_store_string_user(unsigned long addr, void *dest, void *base);
static nokprobe_inline int
probe_mem_read(void *dest, void *src, size_t size);
static nokprobe_inline int
probe_mem_read_user(void *dest, void *src, size_t size);
/*
 * Quick load for arguments marked probe_arg::simple (one load, stored as
 * is): put the value @code loads from the hit in *@val and answer true, or
 * answer false to leave the argument to process_fetch_insn().  Must load
 * what process_fetch_insn() would.  A front end that has one defines
 * TPROBE_HAS_LOAD_HIT before including this header; without it every
 * argument goes through process_fetch_insn().
 */
#ifdef TPROBE_HAS_LOAD_HIT
static nokprobe_inline bool
tprobe_load_hit(const struct fetch_insn *code, void *rec, void *edata,
		unsigned long *val);
#else
static nokprobe_inline bool
tprobe_load_hit(const struct fetch_insn *code, void *rec, void *edata,
		unsigned long *val)
{
	return false;
}
#endif

/* Bytes "symbol+offset/size" of @addr needs, with its NUL. */
static nokprobe_inline int fetch_store_symstrlen(unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];
	int len = sprint_symbol(sym, addr);

	return len < 0 ? 0 : len + 1;
}

/*
 * Write "symbol+offset/size" of @addr at the place the data_loc word at
 * @dest points to.  The caller has set that word up (space and offset).
 */
static nokprobe_inline int
fetch_store_symstring(unsigned long addr, void *dest, void *base)
{
	if (unlikely(!get_loc_len(*(u32 *)dest)))
		return -ENOMEM;

	return sprint_symbol(get_loc_data(dest, base), addr);
}

/*
 * Load ops whose value does not depend on the probe context.
 * Returns 0 and sets *@val, or -EILSEQ when @code is some other op.
 */
static nokprobe_inline int
process_common_fetch_insn(struct fetch_insn *code, unsigned long *val)
{
	if (code->op == FETCH_OP_IMM)
		*val = code->immediate;
	else if (code->op == FETCH_OP_COMM)
		*val = (unsigned long)current->comm;
	else if (code->op == FETCH_OP_DATA)
		*val = (unsigned long)code->data;
	else
		return -EILSEQ;
	return 0;
}

/* Store the low @size bytes of @val at @dest. */
static nokprobe_inline void
tprobe_store_raw(unsigned long val, unsigned int size, void *dest)
{
	if (size == sizeof(u8))
		*(u8 *)dest = val;
	else if (size == sizeof(u16))
		*(u16 *)dest = val;
	else if (size == sizeof(u32))
		*(u32 *)dest = val;
	else if (size == sizeof(u64))
		*(u64 *)dest = val;
	else
		*(unsigned long *)dest = val;
}

/* Keep only the bitfield of the stored container, moved to bit 0. */
static nokprobe_inline void
tprobe_extract_bitfield(const struct fetch_insn *code, void *dest)
{
	unsigned char l = code->lshift, r = code->rshift;

	switch (code->basesize) {
	case sizeof(u8):
		*(u8 *)dest = (u8)(*(u8 *)dest << l) >> r;
		break;
	case sizeof(u16):
		*(u16 *)dest = (u16)(*(u16 *)dest << l) >> r;
		break;
	case sizeof(u32):
		*(u32 *)dest = (u32)(*(u32 *)dest << l) >> r;
		break;
	case sizeof(u64):
		*(u64 *)dest = (*(u64 *)dest << l) >> r;
		break;
	}
}

/*
 * Run the dereference stage starting at *@pcode.  *@val is the current
 * value and becomes the loaded one; *@ptr gets the pointer the last load
 * was relative to (needed to walk arrays of string pointers).  Leaves
 * *@pcode at the first instruction after the stage.
 */
static nokprobe_inline int
tprobe_run_derefs(struct fetch_insn **pcode, unsigned long *val,
		  unsigned long *ptr)
{
	struct fetch_insn *code = *pcode;
	void *src;
	int err;

	for (;; code++) {
		src = (void *)*val + code->offset;
		if (code->op == FETCH_OP_DEREF)
			err = probe_mem_read(val, src, sizeof(*val));
		else if (code->op == FETCH_OP_UDEREF)
			err = probe_mem_read_user(val, src, sizeof(*val));
		else
			break;
		if (err)
			return err;
		*ptr = (unsigned long)src - code->offset;
	}
	*pcode = code;
	return 0;
}

static nokprobe_inline bool tprobe_is_string_store(const struct fetch_insn *code)
{
	return code->op == FETCH_OP_ST_STRING ||
	       code->op == FETCH_OP_ST_USTRING;
}

/* Sizing pass of the store stage: only variable-length stores are valid. */
static nokprobe_inline struct fetch_insn *
tprobe_size_store(struct fetch_insn *code, unsigned long val, int *ret)
{
	unsigned long addr = val + code->offset;

	if (code->op == FETCH_OP_ST_STRING)
		*ret = fetch_store_strlen(addr);
	else if (code->op == FETCH_OP_ST_USTRING)
		*ret = fetch_store_strlen_user(addr);
	else if (code->op == FETCH_OP_ST_SYMSTR)
		*ret = fetch_store_symstrlen(addr);
	else
		return NULL;
	return code + 1;
}

/*
 * Store stage plus the optional bitfield stage.  Returns the instruction
 * after them, or NULL when @code is not a store.  *@ret gets the bytes of
 * variable-length data written, or the error of a string copy.
 */
static nokprobe_inline struct fetch_insn *
tprobe_store(struct fetch_insn *code, unsigned long val, void *dest,
	     void *base, int *ret)
{
	void *src = (void *)val + code->offset;

	*ret = 0;
	switch (code->op) {
	case FETCH_OP_ST_RAW:
		tprobe_store_raw(val, code->size, dest);
		break;
	case FETCH_OP_ST_MEM:
		probe_mem_read(dest, src, code->size);
		break;
	case FETCH_OP_ST_UMEM:
		probe_mem_read_user(dest, src, code->size);
		break;
	case FETCH_OP_ST_STRING:
		*ret = fetch_store_string((unsigned long)src, dest, base);
		break;
	case FETCH_OP_ST_USTRING:
		*ret = fetch_store_string_user((unsigned long)src, dest, base);
		break;
	case FETCH_OP_ST_SYMSTR:
		*ret = fetch_store_symstring((unsigned long)src, dest, base);
		break;
	default:
		return NULL;
	}
	code++;
	if (code->op == FETCH_OP_MOD_BF) {
		tprobe_extract_bitfield(code, dest);
		code++;
	}
	return code;
}

/*
 * Run a fetch program from its dereference stage on, @val being the
 * result of the load stage.  For an array (LP_ARRAY) the store stage is
 * repeated: fixed-size elements are read one after the other; strings are
 * taken from consecutive pointers, each with its own data_loc word.
 */
static nokprobe_inline int
process_fetch_insn_bottom(struct fetch_insn *code, unsigned long val,
			  void *dest, void *base)
{
	struct fetch_insn *store, *next;
	unsigned long ptr = val;
	unsigned int idx = 0;
	int total = 0, len, ret;
	u32 loc;

	ret = tprobe_run_derefs(&code, &val, &ptr);
	if (ret)
		return ret;
	store = code;

	for (;;) {
		/* a string element's data_loc, set up by the previous round */
		loc = dest && tprobe_is_string_store(store) ? *(u32 *)dest : 0;
		if (dest)
			next = tprobe_store(store, val, dest, base, &ret);
		else
			next = tprobe_size_store(store, val, &ret);
		if (!next)
			return -EILSEQ;
		if (next->op != FETCH_OP_LP_ARRAY)
			break;

		len = max(ret, 0);
		total += len;
		if (++idx >= next->param) {
			next++;
			ret = total;
			break;
		}
		if (!tprobe_is_string_store(store)) {
			if (dest)
				dest += store->size;
			val += store->size;
			continue;
		}
		/* Next element: reload the following pointer of the array */
		code = store - 1;
		val = ptr + sizeof(char *);
		ret = tprobe_run_derefs(&code, &val, &ptr);
		if (ret)
			return ret;
		if (dest) {
			dest += sizeof(u32);
			*(u32 *)dest = update_data_loc(loc, len);
		}
	}

	return next->op == FETCH_OP_END ? ret : -EILSEQ;
}

/* Bytes of variable-length data the arguments of @tp need for this hit. */
static nokprobe_inline int
__get_data_size(struct trace_probe *tp, struct pt_regs *regs, void *edata)
{
	int i, len, sum = 0;

	/* No string argument: nothing variable to size (the common case). */
	if (likely(!tp->dynamic_args))
		return 0;
	for (i = 0; i < tp->nr_args; i++) {
		if (likely(!tp->args[i].dynamic))
			continue;
		len = process_fetch_insn(tp->args[i].code, regs, edata,
					 NULL, NULL);
		if (len > 0)
			sum += len;
	}
	return sum;
}

/* Where the next variable-length value of a record goes */
struct tprobe_dyn_area {
	void	*base;	/* start of the record: data_loc offsets count from it */
	void	*next;	/* first free byte */
	int	room;	/* bytes left */
};

static nokprobe_inline void
tprobe_store_arg(struct probe_arg *arg, void *args_start, void *rec,
		 void *edata, struct tprobe_dyn_area *dyn, bool quick)
{
	u32 *slot = args_start + arg->offset;
	unsigned long val;
	int used;

	/*
	 * The common "$arg1", "%ax", "$retval" or "$field": read the value
	 * and store it, without a call into the interpreter.  The record
	 * bytes are the ones the interpreter's ST_RAW step would write.
	 */
	if (quick && arg->simple &&
	    tprobe_load_hit(arg->code, rec, edata, &val)) {
		tprobe_store_raw(val, arg->code[1].size, slot);
		return;
	}
	if (likely(!arg->dynamic)) {
		process_fetch_insn(arg->code, rec, edata, slot, dyn->base);
		return;
	}
	*slot = make_data_loc(dyn->room, dyn->next - dyn->base);
	used = process_fetch_insn(arg->code, rec, edata, slot, dyn->base);
	if (likely(used > 0)) {
		dyn->next += used;
		dyn->room -= used;
	}
}

/*
 * Fill the argument part of a record.  @data is where the arguments start,
 * @header_size the bytes of record before them; variable-length data goes
 * after the fixed part, @maxlen bytes being reserved for it.
 */
static nokprobe_inline void
__store_trace_args(void *data, struct trace_probe *tp, void *rec, void *edata,
		   int header_size, int maxlen, bool quick)
{
	struct tprobe_dyn_area dyn = {
		.base = data - header_size,
		.next = data + tp->size,
		.room = maxlen,
	};
	unsigned int i;

	for (i = 0; i < tp->nr_args; i++)
		tprobe_store_arg(&tp->args[i], data, rec, edata, &dyn, quick);
}

static nokprobe_inline void
store_trace_args(void *data, struct trace_probe *tp, void *rec, void *edata,
		 int header_size, int maxlen)
{
	__store_trace_args(data, tp, rec, edata, header_size, maxlen, true);
}

/*
 * The same record, every argument through process_fetch_insn(): what the
 * quick loads are checked against (KUnit).
 */
static nokprobe_inline void
store_trace_args_slow(void *data, struct trace_probe *tp, void *rec,
		      void *edata, int header_size, int maxlen)
{
	__store_trace_args(data, tp, rec, edata, header_size, maxlen, false);
}

/*
 * Records written straight into an instance's ring buffer.
 *
 * trace_event_buffer_reserve() and trace_event_buffer_commit() decide per
 * record about pid filters, soft-disable, filters (through a per-CPU
 * staging buffer), conditional triggers, printk and export copies of
 * events, and stack traces after the record.  When an event file uses none
 * of them, all they do is: take the context word, reserve in the
 * instance's buffer, fill the common header, commit.  tprobe_rec_direct()
 * tells whether that holds for @file now; the front end then writes its
 * record with tprobe_rec_reserve() and tprobe_rec_commit(), else through
 * the general pair.  Either way the record bytes are the same.
 */
#define TPROBE_REC_PER_RECORD	(EVENT_FILE_FL_SOFT_DISABLED |		\
				 EVENT_FILE_FL_FILTERED |		\
				 EVENT_FILE_FL_PID_FILTER |		\
				 EVENT_FILE_FL_TRIGGER_MODE |		\
				 EVENT_FILE_FL_TRIGGER_COND)
#define TPROBE_REC_TR_STACKS	(TRACE_ITER_STACKTRACE | TRACE_ITER_USERSTACKTRACE)

struct tprobe_rec {
	struct trace_buffer		*buffer;
	struct ring_buffer_event	*event;
};

static nokprobe_inline bool tprobe_rec_direct(struct trace_event_file *file)
{
	return !(READ_ONCE(file->flags) & TPROBE_REC_PER_RECORD) &&
	       !(READ_ONCE(file->tr->trace_flags) & TPROBE_REC_TR_STACKS) &&
	       !static_branch_unlikely(&trace_event_exports_enabled) &&
	       !READ_ONCE(tracepoint_printk);
}

/*
 * The context word of trace_event_buffer_reserve() (tracing_gen_ctx_dec()),
 * computed inline.  A probe hit nearly always comes from task context or
 * with only preemption disabled, less than 16 levels deep either way: then
 * the NMI, hardirq, softirq and bottom-half bits are known to be clear, no
 * depth needs clamping, and only the interrupt flag and the two reschedule
 * bits remain to read.  Anything else (and PREEMPT_RT, which counts
 * softirqs elsewhere) takes the generic function.  The bits are the same
 * either way.
 */
static nokprobe_inline unsigned int tprobe_rec_ctx(void)
{
	unsigned int pc = preempt_count();
	unsigned int bits = 0, depth;
	unsigned long irqflags;

	if (IS_ENABLED(CONFIG_PREEMPT_RT) ||
	    !IS_ENABLED(CONFIG_TRACE_IRQFLAGS_SUPPORT) ||
	    unlikely(pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_MASK | 0xf0)))
		return tracing_gen_ctx_dec();
	depth = pc;
#ifdef CONFIG_SMP
	if (unlikely(current->migration_disabled > 0xf))
		return tracing_gen_ctx_dec();
	depth |= current->migration_disabled << 4;
#endif

	local_save_flags(irqflags);
	if (irqs_disabled_flags(irqflags))
		bits |= TRACE_FLAG_IRQS_OFF;
	if (tif_need_resched())
		bits |= TRACE_FLAG_NEED_RESCHED;
	if (test_preempt_need_resched())
		bits |= TRACE_FLAG_PREEMPT_RESCHED;
	/* as tracing_gen_ctx_dec(): one level of preemption is the tracer's */
	return ((bits << 16) | depth) - IS_ENABLED(CONFIG_PREEMPTION);
}

/*
 * Reserve @len bytes for @file's event, in the context @trace_ctx (from
 * tprobe_rec_ctx()); returns the record or NULL.
 */
static nokprobe_inline void *
tprobe_rec_reserve_ctx(struct tprobe_rec *r, struct trace_event_file *file,
		       unsigned long len, unsigned int trace_ctx)
{
	struct trace_entry *ent;

	r->buffer = file->tr->array_buffer.buffer;
	r->event = ring_buffer_lock_reserve(r->buffer, len);
	if (!r->event)
		return NULL;
	/*
	 * A record this small keeps its length in type_len and its data
	 * right after the event word; anything else asks the ring buffer.
	 */
	if (likely(r->event->type_len &&
		   r->event->type_len <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX))
		ent = (struct trace_entry *)r->event->array;
	else
		ent = ring_buffer_event_data(r->event);
	/* the common header, as trace_buffer_lock_reserve() fills it */
	tracing_generic_entry_update(ent, file->event_call->event.type,
				     trace_ctx);
	return ent;
}

/* Reserve @len bytes for @file's event; returns the record or NULL. */
static nokprobe_inline void *
tprobe_rec_reserve(struct tprobe_rec *r, struct trace_event_file *file,
		   unsigned long len)
{
	/* The context the hit came from, as trace_event_buffer_reserve() takes it */
	return tprobe_rec_reserve_ctx(r, file, len, tprobe_rec_ctx());
}

static nokprobe_inline void tprobe_rec_commit(struct tprobe_rec *r)
{
	trace_buffer_unlock_commit_nostack(r->buffer, r->event);
}

#endif /* _KERNEL_TRACE_PROBE_TMPL_H */
