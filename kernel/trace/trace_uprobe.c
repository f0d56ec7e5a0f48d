// SPDX-License-Identifier: GPL-2.0
/*
 * Uprobe events: trace events that fire when a task executes the
 * instruction at PATH:OFFSET of a file, or returns from the function that
 * starts there.
 *
 * A definition written to uprobe_events or dynamic_events is parsed into a
 * struct trace_uprobe by the probe-definition library (trace_probe.h) and
 * shows up as events/<GRP>/<EVENT>/.  While the event is enabled, each of
 * its probes holds a consumer in the uprobes core; the consumer handlers
 * run in the task that hit the breakpoint, so they may sleep and may fault
 * on user memory.  All memory a uprobe argument reads is user memory.
 *
 * Locking and lifetime rules of this file:
 *  - event_mutex guards the dyn_event list, the sibling list of every
 *    trace_probe_event, trace_uprobe::uprobe, the consumer filter pointer,
 *    the enable state and the scratch-area user count.  Creation also
 *    runs under dyn_event_ops_mutex, which serialises the error log.
 *  - A trace_uprobe does not change once it is on the dyn_event list,
 *    except for the fields named above.  It is freed only while its event
 *    is disabled; disabling ends in uprobe_unregister_sync(), so no handler
 *    can still run on a freed trace_uprobe.
 *  - Handlers read the event flags with acquire semantics and walk the
 *    event's file links under RCU.
 *  - The perf filter of an event (struct trace_uprobe_filter) is guarded
 *    by its rwlock; handlers take it for reading.
 *  - UPROBE_EVENTS depends on PERF_EVENTS, so the perf side is always
 *    built here.
 */
#define pr_fmt(fmt)	"trace_uprobe: " fmt

#include <linux/ctype.h>
#include <linux/namei.h>
#include <linux/percpu.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>
#ifdef CONFIG_BPF_EVENTS
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/rcupdate_trace.h>
#endif

#include "trace_dynevent.h"
#include "trace_probe.h"
#include "trace_probe_tmpl.h"

#define UPROBE_DEFAULT_GROUP	"uprobes"
#define UPROBE_ADDR_DIGITS	((int)(2 * sizeof(unsigned long)))

/*
 * Layout of a record: the common header, then the probed address (entry
 * probes) or the function entry followed by the address returned to
 * (return probes), then the argument data laid out by the library.
 */
struct uprobe_record {
	struct trace_entry	ent;
	unsigned long		addr[];
};

/*
 * One probe point.  Probes defined with the same GRP/EVENT are siblings
 * that share one trace_probe_event; the first is the primary probe that
 * the event callbacks use for fields and printing.
 */
struct trace_uprobe {
	struct dyn_event		devent;		/* on dyn_event_list */
	struct uprobe_consumer		consumer;	/* our handlers */
	struct path			path;		/* pins the probed file */
	char				*filename;	/* PATH as written */
	struct uprobe			*uprobe;	/* non-NULL while armed */
	unsigned long			offset;		/* of the probed insn */
	unsigned long			ref_ctr_offset;	/* SDT semaphore or 0 */
	unsigned long __percpu		*nhits;		/* for uprobe_profile */
	bool				fetch_direct;	/* args read no memory */
	bool				has_strings;	/* some dyn_args set */
	bool				bare;		/* entry, no args */
	DECLARE_BITMAP(dyn_args, MAX_TRACE_ARGS);	/* args with strings */
	struct trace_probe		tp;		/* last: has args[] */
};

static struct dyn_event_operations trace_uprobe_ops;

static bool tu_is_return(struct trace_uprobe *tu)
{
	return !!tu->consumer.ret_handler;
}

static int uprobe_record_hdr_size(bool is_return)
{
	return sizeof(struct uprobe_record) +
	       (is_return ? 2 : 1) * sizeof(unsigned long);
}

static bool is_trace_uprobe(struct dyn_event *ev)
{
	return ev->ops == &trace_uprobe_ops;
}

static struct trace_uprobe *to_trace_uprobe(struct dyn_event *ev)
{
	return container_of(ev, struct trace_uprobe, devent);
}

static struct trace_uprobe *tu_of_call(struct trace_event_call *call)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (WARN_ON_ONCE(!tp))
		return NULL;
	return container_of(tp, struct trace_uprobe, tp);
}

/* ---- Fetch stage: everything is read from the probed task's memory ---- */

/*
 * Set when a read of the probed task's memory fails while page faults are
 * disabled, that is while arguments are written straight into a reserved
 * ring-buffer record (see uprobe_trace_one()).  Preemption is off there,
 * so a per-CPU flag is private to that one fill.
 */
static DEFINE_PER_CPU(bool, uprobe_fetch_faulted);

static void uprobe_note_fault(void)
{
	if (pagefault_disabled())
		__this_cpu_write(uprobe_fetch_faulted, true);
}

static unsigned long user_stack_word(struct pt_regs *regs, unsigned int n)
{
	unsigned long sp = user_stack_pointer(regs);
	unsigned long word;

	if (IS_ENABLED(CONFIG_STACK_GROWSUP))
		sp -= n * sizeof(long);
	else
		sp += n * sizeof(long);

	/* A slot that cannot be read counts as 0, as for kernel stacks. */
	if (copy_from_user(&word, (void __user *)sp, sizeof(word))) {
		uprobe_note_fault();
		return 0;
	}
	return word;
}

static nokprobe_inline int probe_mem_read(void *dest, void *src, size_t size)
{
	if (copy_from_user(dest, (void __force __user *)src, size)) {
		uprobe_note_fault();
		return -EFAULT;
	}
	return 0;
}

static nokprobe_inline int
probe_mem_read_user(void *dest, void *src, size_t size)
{
	return probe_mem_read(dest, src, size);
}

/* Bytes the string at @addr takes in a record, NUL included; 0 if none. */
static nokprobe_inline int fetch_store_strlen(unsigned long addr)
{
	long len;

	if (addr == FETCH_TOKEN_COMM)
		return strlen(current->comm) + 1;

	len = strnlen_user((const char __user *)addr, MAX_STRING_SIZE);
	return len <= MAX_STRING_SIZE ? len : 0;
}

static nokprobe_inline int fetch_store_strlen_user(unsigned long addr)
{
	return fetch_store_strlen(addr);
}

/*
 * Copy the string at @addr into the dynamic area that the data_loc word at
 * @dest points to (relative to @base), truncating it to the room recorded
 * there, and record the bytes used.  Returns those bytes or an error.
 */
static nokprobe_inline int
fetch_store_string(unsigned long addr, void *dest, void *base)
{
	u32 room = get_loc_len(*(u32 *)dest);
	char *dst = get_loc_data(dest, base);
	u32 where = dst - (char *)base;
	long len;

	if (unlikely(!room))
		return -ENOMEM;

	if (addr == FETCH_TOKEN_COMM) {
		len = strscpy(dst, current->comm, room);
		if (len < 0)	/* truncated, but terminated */
			len = room;
	} else {
		len = strncpy_from_user(dst, (const char __user *)addr, room);
	}

	if (len < 0) {
		uprobe_note_fault();
		*(u32 *)dest = make_data_loc(0, where);
		return len;
	}
	if (len >= room) {
		dst[room - 1] = '\0';
		len = room;
	} else {
		len++;		/* the NUL was copied but not counted */
	}
	*(u32 *)dest = make_data_loc(len, where);
	return len;
}

static nokprobe_inline int
fetch_store_string_user(unsigned long addr, void *dest, void *base)
{
	return fetch_store_string(addr, dest, base);
}

/* Load the first value of a fetch program (its stage-1 instruction). */
static int uprobe_fetch_base(struct fetch_insn *code, struct pt_regs *regs,
			     struct uprobe_dispatch_data *udd,
			     unsigned long *val)
{
	switch (code->op) {
	case FETCH_OP_REG:
		*val = regs_get_register(regs, code->param);
		return 0;
	case FETCH_OP_STACK:
		*val = user_stack_word(regs, code->param);
		return 0;
	case FETCH_OP_STACKP:
		*val = user_stack_pointer(regs);
		return 0;
	case FETCH_OP_RETVAL:
		*val = regs_return_value(regs);
		return 0;
	case FETCH_OP_COMM:
		*val = FETCH_TOKEN_COMM;
		return 0;
	case FETCH_OP_FOFFS:
		/* Where the file is mapped, plus the offset asked for. */
		*val = udd->bp_addr - udd->tu->offset + code->immediate;
		return 0;
	default:
		return process_common_fetch_insn(code, val);
	}
}

/*
 * The library's quick load (trace_probe_tmpl.h): none, every argument goes
 * through process_fetch_insn().
 */
static nokprobe_inline bool
tprobe_load_hit(const struct fetch_insn *code, void *rec, void *edata,
		unsigned long *val)
{
	return false;
}

/*
 * @rec is the pt_regs of the hit and @edata its struct uprobe_dispatch_data
 * (uprobes keep no entry data, so that slot carries the hit context).
 */
static int
process_fetch_insn(struct fetch_insn *code, void *rec, void *edata,
		   void *dest, void *base)
{
	unsigned long val;
	int ret;

	ret = uprobe_fetch_base(code, rec, edata, &val);
	if (ret < 0)
		return ret;
	return process_fetch_insn_bottom(code + 1, val, dest, base);
}

NOKPROBE_SYMBOL(process_fetch_insn)

/*
 * True if no instruction of @arg can sleep, fault or fail, so that the
 * argument can be fetched straight into a reserved record.
 */
static bool probe_arg_is_direct(struct probe_arg *arg)
{
	int i;

	if (arg->dynamic)
		return false;

	for (i = 0; i < FETCH_INSN_MAX; i++) {
		switch (arg->code[i].op) {
		case FETCH_OP_REG:
		case FETCH_OP_STACKP:
		case FETCH_OP_RETVAL:
		case FETCH_OP_IMM:
		case FETCH_OP_FOFFS:
		case FETCH_OP_ST_RAW:
		case FETCH_OP_MOD_BF:
			continue;
		case FETCH_OP_END:
			return true;
		default:
			return false;
		}
	}
	return false;
}

static bool trace_uprobe_args_direct(struct trace_uprobe *tu)
{
	int i;

	for (i = 0; i < tu->tp.nr_args; i++) {
		if (!probe_arg_is_direct(&tu->tp.args[i]))
			return false;
	}
	return true;
}

/* ---- Per-CPU scratch areas for arguments that read user memory ---- */

/*
 * A record may not be reserved while fetching can fault, so arguments that
 * read user memory are fetched into a scratch area first and copied into
 * the record afterwards.  The areas exist while at least one uprobe event
 * is enabled (uprobe_scratch_users counts enabled events, under
 * event_mutex).  A handler may migrate or sleep while it uses its CPU's
 * area, hence the mutex in each; it is contended only after a migration.
 */
#define UPROBE_SCRATCH_SIZE	PAGE_SIZE

struct uprobe_scratch {
	struct mutex	lock;	/* held by the one handler using the area */
	int		len;	/* bytes of argument data held */
	char		*data;
};

static struct uprobe_scratch __percpu *uprobe_scratch;
static unsigned int uprobe_scratch_users;

static void uprobe_scratch_free(struct uprobe_scratch __percpu *areas)
{
	int cpu;

	for_each_possible_cpu(cpu)
		kfree(per_cpu_ptr(areas, cpu)->data);
	free_percpu(areas);
}

static struct uprobe_scratch __percpu *uprobe_scratch_alloc(void)
{
	struct uprobe_scratch __percpu *areas;
	struct uprobe_scratch *s;
	int cpu;

	areas = alloc_percpu(struct uprobe_scratch);
	if (!areas)
		return NULL;

	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(areas, cpu);
		mutex_init(&s->lock);
		s->data = kmalloc_node(UPROBE_SCRATCH_SIZE, GFP_KERNEL,
				       cpu_to_node(cpu));
		if (!s->data) {
			uprobe_scratch_free(areas);
			return NULL;
		}
	}
	return areas;
}

static int uprobe_scratch_get(void)
{
	struct uprobe_scratch __percpu *areas;

	lockdep_assert_held(&event_mutex);
	if (!uprobe_scratch_users) {
		areas = uprobe_scratch_alloc();
		if (!areas)
			return -ENOMEM;
		WRITE_ONCE(uprobe_scratch, areas);
	}
	uprobe_scratch_users++;
	return 0;
}

/* Only after the last event's handlers are known to have finished. */
static void uprobe_scratch_put(void)
{
	struct uprobe_scratch __percpu *areas = uprobe_scratch;

	lockdep_assert_held(&event_mutex);
	if (--uprobe_scratch_users)
		return;
	WRITE_ONCE(uprobe_scratch, NULL);
	uprobe_scratch_free(areas);
}

/* ---- Perf: which processes a perf-enabled event should trap in ---- */

static void uprobe_filter_init(struct trace_uprobe_filter *filter)
{
	rwlock_init(&filter->rwlock);
	filter->nr_systemwide = 0;
	INIT_LIST_HEAD(&filter->perf_events);
}

/* Caller holds filter->rwlock. */
static bool uprobe_filter_has_mm(struct trace_uprobe_filter *filter,
				 struct mm_struct *mm)
{
	struct perf_event *event;

	list_for_each_entry(event, &filter->perf_events, hw.tp_list) {
		if (event->hw.target->mm == mm)
			return true;
	}
	return false;
}

/*
 * Account @event in @filter.  Returns true when the breakpoints already
 * installed serve @event too, so that nothing needs to be applied.
 */
static bool uprobe_filter_add(struct trace_uprobe_filter *filter,
			      struct perf_event *event)
{
	struct task_struct *task = event->hw.target;
	bool covered;

	write_lock(&filter->rwlock);
	if (!task) {
		covered = filter->nr_systemwide > 0;
		filter->nr_systemwide++;
	} else {
		/*
		 * A child event created by fork() runs in a copy of an mm
		 * that is traced already (fork keeps the breakpoints), and an
		 * enable_on_exec event gets them when exec maps the file.
		 */
		covered = filter->nr_systemwide || event->parent ||
			  event->attr.enable_on_exec ||
			  uprobe_filter_has_mm(filter, task->mm);
		list_add(&event->hw.tp_list, &filter->perf_events);
	}
	write_unlock(&filter->rwlock);
	return covered;
}

/*
 * Drop @event from @filter.  Returns true when the installed breakpoints
 * must stay as they are (someone else still wants them, or the task is
 * exiting anyway).
 */
static bool uprobe_filter_remove(struct trace_uprobe_filter *filter,
				 struct perf_event *event)
{
	struct task_struct *task = event->hw.target;
	bool keep;

	write_lock(&filter->rwlock);
	if (!task) {
		filter->nr_systemwide--;
		keep = filter->nr_systemwide > 0;
	} else {
		list_del(&event->hw.tp_list);
		keep = filter->nr_systemwide || (task->flags & PF_EXITING) ||
		       uprobe_filter_has_mm(filter, task->mm);
	}
	write_unlock(&filter->rwlock);
	return keep;
}

/* The consumer filter while an event is enabled for perf. */
static bool uprobe_perf_filter(struct uprobe_consumer *self,
			       struct mm_struct *mm)
{
	struct trace_uprobe *tu = container_of(self, struct trace_uprobe,
					       consumer);
	struct trace_uprobe_filter *filter = tu->tp.event->filter;
	/* A system-wide event wants every mm: no need for the lock then. */
	bool wanted = READ_ONCE(filter->nr_systemwide) > 0;

	if (!wanted) {
		read_lock(&filter->rwlock);
		wanted = uprobe_filter_has_mm(filter, mm);
		read_unlock(&filter->rwlock);
	}
	return wanted;
}

/* ---- Handling a hit ---- */

/*
 * Context of one handler call.  @udd is also handed to the fetch programs
 * (see process_fetch_insn()).  @scratch is taken at most once per hit, the
 * first time staged arguments are needed, and released by uprobe_hit_end().
 * @dyn is the variable-length room of a record filled in place.
 */
struct uprobe_hit {
	struct trace_uprobe		*tu;
	struct pt_regs			*regs;
	unsigned long			func;	/* return probes only */
	struct uprobe_dispatch_data	udd;
	struct uprobe_scratch		*scratch;
	int				dyn;
};

static void uprobe_hit_begin(struct uprobe_hit *hit, struct trace_uprobe *tu,
			     struct pt_regs *regs, unsigned long func)
{
	hit->tu = tu;
	hit->regs = regs;
	hit->func = func;
	hit->udd.tu = tu;
	/* The probed address, or for a return the function's entry. */
	hit->udd.bp_addr = func ? func : instruction_pointer(regs);
	hit->scratch = NULL;
	hit->dyn = 0;
}

static void uprobe_hit_end(struct uprobe_hit *hit)
{
	if (hit->scratch)
		mutex_unlock(&hit->scratch->lock);
}

/*
 * Bytes of strings this hit records, measured before any record is
 * reserved (measuring may fault pages in).  Strings that do not fit the
 * scratch area are cut short, not dropped, whichever way they are stored.
 */
static int uprobe_hit_measure(struct uprobe_hit *hit)
{
	struct trace_probe *tp = &hit->tu->tp;
	unsigned int i;
	int len, dyn = 0;

	/* Only the string arguments: the others have a fixed size. */
	for_each_set_bit(i, hit->tu->dyn_args, tp->nr_args) {
		len = process_fetch_insn(tp->args[i].code, hit->regs, &hit->udd,
					 NULL, NULL);
		if (len > 0)
			dyn += len;
	}
	return min_t(int, dyn, UPROBE_SCRATCH_SIZE - tp->size);
}

/*
 * Fetch the arguments into this CPU's scratch area unless they can go
 * straight into the record.  May sleep: call before reserving a record
 * and outside RCU read sections.
 */
static void uprobe_hit_stage(struct uprobe_hit *hit)
{
	struct uprobe_scratch __percpu *areas = READ_ONCE(uprobe_scratch);
	struct trace_probe *tp = &hit->tu->tp;
	struct uprobe_scratch *s;
	int hdr, dyn;

	if (hit->tu->fetch_direct || hit->scratch)
		return;
	/* The areas exist while any uprobe event is enabled. */
	if (WARN_ON_ONCE(!areas))
		return;

	hdr = uprobe_record_hdr_size(tu_is_return(hit->tu));
	dyn = uprobe_hit_measure(hit);

	s = raw_cpu_ptr(areas);
	mutex_lock(&s->lock);
	/*
	 * Arguments whose fetch faults read as zero, never as stale data;
	 * the dynamic part too: a string that shrinks between the measure
	 * and the copy (another thread's write) leaves a tail that would
	 * otherwise carry an earlier hit's bytes, of any process.
	 */
	memset(s->data, 0, tp->size + dyn);
	store_trace_args(s->data, tp, hit->regs, &hit->udd, hdr, dyn);
	s->len = tp->size + dyn;
	hit->scratch = s;
}

static int uprobe_hit_args_size(struct uprobe_hit *hit)
{
	return hit->scratch ? hit->scratch->len : hit->tu->tp.size + hit->dyn;
}

/* Fill in the addresses of @rec; returns where the arguments go. */
static void *uprobe_fill_addrs(struct uprobe_hit *hit,
			       struct uprobe_record *rec)
{
	unsigned long ip = instruction_pointer(hit->regs);

	if (!tu_is_return(hit->tu)) {
		rec->addr[0] = ip;
		return &rec->addr[1];
	}
	rec->addr[0] = hit->func;
	rec->addr[1] = ip;
	return &rec->addr[2];
}

/*
 * Write the arguments at @data.  Staged ones are copied; the others are
 * fetched in place.  A fetch in place that reads memory runs with page
 * faults disabled (a record is reserved: no sleeping) and returns false
 * when a read faulted: the record must then be discarded.
 */
static bool uprobe_fill_args(struct uprobe_hit *hit, void *data)
{
	int hdr = uprobe_record_hdr_size(tu_is_return(hit->tu));
	struct trace_probe *tp = &hit->tu->tp;
	bool faulted;

	if (hit->scratch) {
		memcpy(data, hit->scratch->data, hit->scratch->len);
		return true;
	}
	if (!tp->nr_args)
		return true;
	if (hit->tu->fetch_direct) {
		store_trace_args(data, tp, hit->regs, &hit->udd, hdr, 0);
		return true;
	}

	/* Every slot is written unless a read faults, and then we retry. */
	pagefault_disable();
	__this_cpu_write(uprobe_fetch_faulted, false);
	store_trace_args(data, tp, hit->regs, &hit->udd, hdr, hit->dyn);
	faulted = __this_cpu_read(uprobe_fetch_faulted);
	pagefault_enable();
	return !faulted;
}

/*
 * The record of uprobe_trace_one() written straight into the instance's
 * ring buffer, for a file that has nothing to decide per record (see
 * tprobe_rec_direct()); the same bytes, without the general pair's
 * bookkeeping.
 */
static bool uprobe_trace_direct(struct uprobe_hit *hit,
				struct trace_event_file *file, int size)
{
	struct tprobe_rec direct;
	struct uprobe_record *rec;

	rec = tprobe_rec_reserve(&direct, file, size);
	if (!rec)
		return true;
	if (!uprobe_fill_args(hit, uprobe_fill_addrs(hit, rec))) {
		__trace_event_discard_commit(direct.buffer, direct.event);
		return false;
	}
	tprobe_rec_commit(&direct);
	return true;
}

/*
 * Record the hit in one instance.  Returns false, having discarded the
 * record, when an argument could not be read without faulting a page in;
 * the caller then stages the arguments (which may sleep) and retries.
 */
static bool uprobe_trace_one(struct uprobe_hit *hit,
			     struct trace_event_file *file)
{
	struct trace_event_buffer fbuffer;
	struct uprobe_record *rec;
	int size;

	if (trace_trigger_soft_disabled(file))
		return true;

	size = uprobe_record_hdr_size(tu_is_return(hit->tu)) +
	       uprobe_hit_args_size(hit);
	if (tprobe_rec_direct(file))
		return uprobe_trace_direct(hit, file, size);
	rec = trace_event_buffer_reserve(&fbuffer, file, size);
	if (!rec)
		return true;

	if (!uprobe_fill_args(hit, uprobe_fill_addrs(hit, rec))) {
		__trace_event_discard_commit(fbuffer.buffer, fbuffer.event);
		return false;
	}
	trace_event_buffer_commit(&fbuffer);
	return true;
}

/*
 * Write records to the instances the event is enabled in, skipping the
 * first @skip of them.  Returns how many were handled before one faulted,
 * or -1 when all were written.
 */
static int uprobe_trace_links(struct uprobe_hit *hit, int skip)
{
	struct event_file_link *link;
	int done = 0;

	rcu_read_lock();
	trace_probe_for_each_link_rcu(link, &hit->tu->tp) {
		if (done++ < skip)
			continue;
		if (!uprobe_trace_one(hit, link->file)) {
			rcu_read_unlock();
			return done - 1;
		}
	}
	rcu_read_unlock();
	return -1;
}

/*
 * uprobe_trace_links() for an event whose arguments read no memory (none
 * at all, or registers and constants only): no fetch can fault, so a
 * record is written in one pass, straight into the ring buffer where the
 * file allows it.
 */
static void uprobe_trace_regs_only(struct uprobe_hit *hit)
{
	struct trace_uprobe *tu = hit->tu;
	int hdr = uprobe_record_hdr_size(tu_is_return(tu));
	struct trace_event_file *file;
	struct event_file_link *link;
	struct tprobe_rec direct;
	void *rec;

	rcu_read_lock();
	trace_probe_for_each_link_rcu(link, &tu->tp) {
		file = link->file;
		if (unlikely(!tprobe_rec_direct(file))) {
			uprobe_trace_one(hit, file);
			continue;
		}
		rec = tprobe_rec_reserve(&direct, file, hdr + tu->tp.size);
		if (!rec)
			continue;
		rec = uprobe_fill_addrs(hit, rec);
		if (tu->tp.nr_args)
			store_trace_args(rec, &tu->tp, hit->regs, &hit->udd,
					 hdr, 0);
		tprobe_rec_commit(&direct);
	}
	rcu_read_unlock();
}

/*
 * Write one record to every instance the event is enabled in.  Arguments
 * are first fetched straight into each record; the pages they live in are
 * nearly always present, as the probed code has just used them.  Only when
 * a read would fault are they staged (faulting pages in) and copied.
 */
static void uprobe_trace_hit(struct uprobe_hit *hit)
{
	int done;

	if (hit->tu->fetch_direct && !hit->scratch) {
		uprobe_trace_regs_only(hit);
		return;
	}
	if (hit->tu->has_strings && !hit->scratch)
		hit->dyn = uprobe_hit_measure(hit);

	done = uprobe_trace_links(hit, 0);
	if (done < 0)
		return;
	uprobe_hit_stage(hit);
	uprobe_trace_links(hit, done);
}

/*
 * The rest of uprobe_trace_bare(), from a file that decides per record on:
 * the first @done instances already have their record.
 */
static noinline void uprobe_trace_bare_rest(struct trace_uprobe *tu,
					    struct pt_regs *regs, int done)
{
	struct uprobe_hit hit;

	uprobe_hit_begin(&hit, tu, regs, 0);
	uprobe_trace_links(&hit, done);
	uprobe_hit_end(&hit);
}

/*
 * uprobe_trace_hit() for an entry probe without arguments (a bare "p:"
 * event, as on a USDT site): the record is the common header and the
 * probed address, nothing to fetch or stage, so it is written inline.
 *
 * The links are walked with preemption disabled, which is an RCU read
 * section too, and cheaper here than rcu_read_lock().  The context word is
 * taken where uprobe_trace_links() would take it, inside rcu_read_lock():
 * before disabling preemption when rcu_read_lock() leaves the preemption
 * count alone (preemptible RCU), after it otherwise.  The first file that
 * decides per record sends this instance and the ones after it to the
 * general walk.
 */
static void uprobe_trace_bare(struct trace_uprobe *tu, struct pt_regs *regs)
{
	struct event_file_link *link;
	struct uprobe_record *rec;
	struct tprobe_rec direct;
	unsigned int ctx = 0;
	int done = 0;

	if (IS_ENABLED(CONFIG_PREEMPT_RCU))
		ctx = tprobe_rec_ctx();
	preempt_disable_notrace();
	if (!IS_ENABLED(CONFIG_PREEMPT_RCU))
		ctx = tprobe_rec_ctx();
	trace_probe_for_each_link_rcu(link, &tu->tp) {
		if (unlikely(!tprobe_rec_direct(link->file))) {
			preempt_enable_notrace();
			uprobe_trace_bare_rest(tu, regs, done);
			return;
		}
		done++;
		rec = tprobe_rec_reserve_ctx(&direct, link->file,
					     struct_size(rec, addr, 1), ctx);
		if (!rec)
			continue;
		rec->addr[0] = instruction_pointer(regs);
		tprobe_rec_commit(&direct);
	}
	preempt_enable_notrace();
}

#ifdef CONFIG_BPF_EVENTS
/* Run the attached BPF programs; false when they ask to drop the hit. */
static bool uprobe_hit_run_bpf(struct trace_event_call *call,
			       struct uprobe_hit *hit)
{
	struct uprobe_task *utask = current->utask;
	const struct bpf_prog_array *progs;
	unsigned long saved;
	u32 keep;

	if (!bpf_prog_array_valid(call))
		return true;

	/* bpf_get_func_ip() looks for our dispatch data in utask->vaddr. */
	saved = utask->vaddr;
	utask->vaddr = (unsigned long)&hit->udd;
	rcu_read_lock_trace();
	progs = rcu_dereference_check(call->prog_array,
				      rcu_read_lock_trace_held());
	keep = bpf_prog_run_array_uprobe(progs, hit->regs, bpf_prog_run);
	rcu_read_unlock_trace();
	utask->vaddr = saved;
	return keep;
}
#else
static bool uprobe_hit_run_bpf(struct trace_event_call *call,
			       struct uprobe_hit *hit)
{
	return true;
}
#endif

/* Caller has disabled preemption (per-CPU perf lists and buffers). */
static void uprobe_perf_submit(struct uprobe_hit *hit, int size)
{
	struct trace_event_call *call = trace_probe_event_call(&hit->tu->tp);
	int hdr = uprobe_record_hdr_size(tu_is_return(hit->tu));
	int used = hdr + uprobe_hit_args_size(hit);
	struct uprobe_record *rec;
	struct hlist_head *head;
	int rctx;

	head = this_cpu_ptr(call->perf_events);
	if (hlist_empty(head))
		return;

	rec = perf_trace_buf_alloc(size, NULL, &rctx);
	if (!rec)
		return;

	uprobe_fill_args(hit, uprobe_fill_addrs(hit, rec));
	memset((char *)rec + used, 0, size - used);
	perf_trace_buf_submit(rec, size, rctx, call->event.type, 1, hit->regs,
			      head, NULL);
}

static void uprobe_perf_hit(struct uprobe_hit *hit)
{
	struct trace_event_call *call = trace_probe_event_call(&hit->tu->tp);
	int size;

	if (!uprobe_hit_run_bpf(call, hit))
		return;

	uprobe_hit_stage(hit);
	/* perf wants the raw size plus its u32 length to be u64-aligned. */
	size = uprobe_record_hdr_size(tu_is_return(hit->tu)) +
	       uprobe_hit_args_size(hit);
	size = ALIGN(size + sizeof(u32), sizeof(u64)) - sizeof(u32);
	if (size > PERF_MAX_TRACE_SIZE)
		return;

	preempt_disable();
	uprobe_perf_submit(hit, size);
	preempt_enable();
}

/* Fetch a hit once, write it where @flags say (@func: 0 on entry). */
static void uprobe_record_hit(struct trace_uprobe *tu, struct pt_regs *regs,
			      unsigned long func, unsigned int flags)
{
	struct uprobe_hit hit;

	uprobe_hit_begin(&hit, tu, regs, func);
	if (flags & TP_FLAG_TRACE)
		uprobe_trace_hit(&hit);
	if (flags & TP_FLAG_PROFILE)
		uprobe_perf_hit(&hit);
	uprobe_hit_end(&hit);
}

/* uprobe_dispatcher() for every hit but the common one. */
static noinline int uprobe_dispatch_general(struct trace_uprobe *tu,
					    struct pt_regs *regs,
					    unsigned int flags)
{
	if ((flags & TP_FLAG_PROFILE) &&
	    !uprobe_perf_filter(&tu->consumer, current->mm))
		return UPROBE_HANDLER_REMOVE;
	if (tu_is_return(tu))
		return 0;

	uprobe_record_hit(tu, regs, 0, flags);
	return 0;
}

/*
 * Entry handler, installed for both kinds of probe.  It counts the hit,
 * drops breakpoints from processes perf does not want and, for entry
 * probes, records the event.
 */
static int uprobe_dispatcher(struct uprobe_consumer *self,
			     struct pt_regs *regs)
{
	struct trace_uprobe *tu = container_of(self, struct trace_uprobe,
					       consumer);
	unsigned int flags;

	this_cpu_inc(*tu->nhits);
	flags = trace_probe_load_flag(&tu->tp);
	/* The common case first: an ftrace event only, nothing to fetch. */
	if (likely((flags & (TP_FLAG_TRACE | TP_FLAG_PROFILE)) == TP_FLAG_TRACE &&
		   tu->bare)) {
		uprobe_trace_bare(tu, regs);
		return 0;
	}
	return uprobe_dispatch_general(tu, regs, flags);
}

/* Return handler of return probes: @func is the probed function's entry. */
static int uretprobe_dispatcher(struct uprobe_consumer *self,
				unsigned long func, struct pt_regs *regs)
{
	struct trace_uprobe *tu = container_of(self, struct trace_uprobe,
					       consumer);

	uprobe_record_hit(tu, regs, func, trace_probe_load_flag(&tu->tp));
	return 0;
}

/* ---- Arming probes in the uprobes core; enable and disable ---- */

typedef bool (*uprobe_filter_fn)(struct uprobe_consumer *self,
				 struct mm_struct *mm);

/* ftrace wants every process; perf only the ones its filter names. */
static uprobe_filter_fn uprobe_event_filter(struct trace_probe *tp)
{
	if (trace_probe_test_flag(tp, TP_FLAG_PROFILE))
		return uprobe_perf_filter;
	return NULL;
}

static int trace_uprobe_arm(struct trace_uprobe *tu, uprobe_filter_fn filter)
{
	struct inode *inode = d_real_inode(tu->path.dentry);
	struct uprobe *uprobe;

	tu->consumer.filter = filter;
	uprobe = uprobe_register(inode, tu->offset, tu->ref_ctr_offset,
				 &tu->consumer);
	if (!IS_ERR(uprobe))
		tu->uprobe = uprobe;
	return PTR_ERR_OR_ZERO(uprobe);
}

/*
 * Start detaching @tu; its handlers may still be running until the next
 * uprobe_unregister_sync().  Returns false if @tu was not armed.
 */
static bool trace_uprobe_disarm_nosync(struct trace_uprobe *tu)
{
	if (!tu->uprobe)
		return false;
	uprobe_unregister_nosync(tu->uprobe, &tu->consumer);
	tu->uprobe = NULL;
	return true;
}

/* Detach every armed probe of the event, then wait for their handlers. */
static void uprobe_event_disarm(struct trace_probe *tp)
{
	struct trace_uprobe *tu;
	int detached = 0;

	list_for_each_entry(tu, trace_probe_probe_list(tp), tp.list)
		detached += trace_uprobe_disarm_nosync(tu);
	/* One wait covers all of them. */
	if (detached)
		uprobe_unregister_sync();
}

static int uprobe_event_arm(struct trace_probe *tp)
{
	uprobe_filter_fn filter = uprobe_event_filter(tp);
	struct trace_uprobe *tu;
	int ret = 0;

	list_for_each_entry(tu, trace_probe_probe_list(tp), tp.list) {
		ret = trace_uprobe_arm(tu, filter);
		if (ret)
			break;
	}
	if (ret)
		uprobe_event_disarm(tp);
	return ret;
}

/*
 * Record who uses the event: an ftrace instance (@file) or perf (NULL).
 * The two filter processes differently, so an event serves one at a time.
 */
static int uprobe_event_claim(struct trace_probe *tp,
			      struct trace_event_file *file)
{
	if (file) {
		if (trace_probe_test_flag(tp, TP_FLAG_PROFILE))
			return -EINTR;
		return trace_probe_add_file(tp, file);
	}
	if (trace_probe_test_flag(tp, TP_FLAG_TRACE))
		return -EINTR;
	trace_probe_set_flag(tp, TP_FLAG_PROFILE);
	return 0;
}

static void uprobe_event_unclaim(struct trace_probe *tp,
				 struct trace_event_file *file)
{
	if (file)
		trace_probe_remove_file(tp, file);
	else
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
}

/* Called with event_mutex held. */
static int uprobe_event_enable(struct trace_event_call *call,
			       struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	bool was_enabled;
	int ret;

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;

	was_enabled = trace_probe_is_enabled(tp);
	ret = uprobe_event_claim(tp, file);
	if (ret < 0)
		return ret;
	if (was_enabled)
		return 0;

	ret = uprobe_scratch_get();
	if (!ret) {
		ret = uprobe_event_arm(tp);
		if (ret)
			uprobe_scratch_put();
	}
	if (ret)
		uprobe_event_unclaim(tp, file);
	return ret;
}

/* Called with event_mutex held. */
static void uprobe_event_disable(struct trace_event_call *call,
				 struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (WARN_ON_ONCE(!tp) || !trace_probe_is_enabled(tp))
		return;

	if (file) {
		if (trace_probe_remove_file(tp, file) < 0)
			return;
		if (trace_probe_is_enabled(tp))
			return;	/* other instances still trace it */
	} else {
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	}

	uprobe_event_disarm(tp);
	uprobe_scratch_put();
}

/* Install (@add) or drop breakpoints as the perf filter now says. */
static int uprobe_event_apply(struct trace_probe *tp, bool add)
{
	struct trace_uprobe *tu;
	int ret;

	list_for_each_entry(tu, trace_probe_probe_list(tp), tp.list) {
		if (!tu->uprobe)
			continue;
		ret = uprobe_apply(tu->uprobe, &tu->consumer, add);
		if (ret)
			return ret;
	}
	return 0;
}

static int uprobe_perf_close(struct trace_event_call *call,
			     struct perf_event *event)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;
	if (uprobe_filter_remove(tp->event->filter, event))
		return 0;
	return uprobe_event_apply(tp, false);
}

static int uprobe_perf_open(struct trace_event_call *call,
			    struct perf_event *event)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	int ret;

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;
	if (uprobe_filter_add(tp->event->filter, event))
		return 0;

	ret = uprobe_event_apply(tp, true);
	if (ret)
		uprobe_perf_close(call, event);
	return ret;
}

/* trace_event_class::reg of every uprobe event. */
static int uprobe_event_reg(struct trace_event_call *call,
			    enum trace_reg type, void *data)
{
	bool by_perf = type == TRACE_REG_PERF_REGISTER ||
		       type == TRACE_REG_PERF_UNREGISTER;
	/* ftrace names its instance; perf's user is known as NULL. */
	struct trace_event_file *file = by_perf ? NULL : data;

	switch (type) {
	case TRACE_REG_REGISTER:
	case TRACE_REG_PERF_REGISTER:
		return uprobe_event_enable(call, file);
	case TRACE_REG_UNREGISTER:
	case TRACE_REG_PERF_UNREGISTER:
		uprobe_event_disable(call, file);
		return 0;
	case TRACE_REG_PERF_OPEN:
		return uprobe_perf_open(call, data);
	case TRACE_REG_PERF_CLOSE:
		return uprobe_perf_close(call, data);
	default:
		return 0;
	}
}

/* ---- The trace event: fields, output, callbacks ---- */

static int uprobe_event_define_fields(struct trace_event_call *call)
{
	static const char * const entry_names[] = { FIELD_STRING_IP };
	static const char * const return_names[] = {
		FIELD_STRING_FUNC, FIELD_STRING_RETIP,
	};
	struct trace_uprobe *tu = tu_of_call(call);
	const char * const *names;
	int i, n, ret;

	if (!tu)
		return -ENODEV;

	names = tu_is_return(tu) ? return_names : entry_names;
	n = tu_is_return(tu) ? ARRAY_SIZE(return_names) : ARRAY_SIZE(entry_names);
	for (i = 0; i < n; i++) {
		ret = trace_define_field(call, "unsigned long", names[i],
					 offsetof(struct uprobe_record, addr) +
					 i * sizeof(unsigned long),
					 sizeof(unsigned long), 0, FILTER_OTHER);
		if (ret)
			return ret;
	}
	return traceprobe_define_arg_fields(call,
					    uprobe_record_hdr_size(tu_is_return(tu)),
					    &tu->tp);
}

static enum print_line_t uprobe_print_record(struct trace_iterator *iter,
					     int flags,
					     struct trace_event *event)
{
	struct uprobe_record *rec = (struct uprobe_record *)iter->ent;
	struct trace_seq *s = &iter->seq;
	struct trace_uprobe *tu;
	unsigned long *args;

	tu = tu_of_call(container_of(event, struct trace_event_call, event));
	if (unlikely(!tu))
		return trace_handle_return(s);

	trace_seq_printf(s, "%s: (", trace_probe_name(&tu->tp));
	if (tu_is_return(tu)) {
		trace_seq_printf(s, "0x%lx <- 0x%lx)", rec->addr[1],
				 rec->addr[0]);
		args = &rec->addr[2];
	} else {
		trace_seq_printf(s, "0x%lx)", rec->addr[0]);
		args = &rec->addr[1];
	}

	if (trace_probe_print_args(s, tu->tp.args, tu->tp.nr_args,
				   (u8 *)args, rec) >= 0)
		trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static struct trace_event_functions uprobe_event_funcs = {
	.trace		= uprobe_print_record,
};

static struct trace_event_fields uprobe_event_fields[] = {
	{ .type = TRACE_FUNCTION_TYPE,
	  .define_fields = uprobe_event_define_fields },
	{}
};

static void uprobe_event_setup_call(struct trace_uprobe *tu)
{
	struct trace_event_call *call = trace_probe_event_call(&tu->tp);

	call->event.funcs = &uprobe_event_funcs;
	call->class->fields_array = uprobe_event_fields;
	call->class->reg = uprobe_event_reg;
	/* perf lets users without CAP_SYS_ADMIN open uprobe events. */
	call->flags = TRACE_EVENT_FL_UPROBE | TRACE_EVENT_FL_CAP_ANY;
}

/* ---- trace_uprobe objects ---- */

/*
 * @tu must be disarmed and off the dyn_event list (or never on it).  Any
 * field may still be empty: this also undoes a partial setup.
 */
static void trace_uprobe_free(struct trace_uprobe *tu)
{
	path_put(&tu->path);
	trace_probe_cleanup(&tu->tp);
	kfree(tu->filename);
	free_percpu(tu->nhits);
	kfree(tu);
}

static struct trace_uprobe *trace_uprobe_alloc(const char *group,
					       const char *event, int nargs,
					       bool is_return)
{
	struct trace_uprobe *tu;
	int ret;

	tu = kzalloc(struct_size(tu, tp.args, nargs), GFP_KERNEL);
	if (!tu)
		return ERR_PTR(-ENOMEM);

	/* The probe and its own event (with a perf filter) come first. */
	ret = trace_probe_init(&tu->tp, event, group, true, nargs);
	if (ret < 0) {
		kfree(tu);
		return ERR_PTR(ret);
	}
	uprobe_filter_init(tu->tp.event->filter);
	dyn_event_init(&tu->devent, &trace_uprobe_ops);

	tu->consumer.handler = uprobe_dispatcher;
	if (is_return)
		tu->consumer.ret_handler = uretprobe_dispatcher;
	tu->fetch_direct = true;	/* until arguments are parsed */
	tu->bare = !is_return;

	tu->nhits = alloc_percpu(unsigned long);
	if (!tu->nhits) {
		trace_uprobe_free(tu);
		return ERR_PTR(-ENOMEM);
	}
	return tu;
}

/* Called with event_mutex held. */
static struct trace_uprobe *trace_uprobe_find(const char *event,
					      const char *group)
{
	struct trace_uprobe *tu;
	struct dyn_event *pos;

	for_each_dyn_event(pos) {
		if (!is_trace_uprobe(pos))
			continue;
		tu = to_trace_uprobe(pos);
		if (trace_probe_match_event(&tu->tp, group, event))
			return tu;
	}
	return NULL;
}

static bool trace_uprobe_same_site(struct trace_uprobe *a,
				   struct trace_uprobe *b)
{
	return d_real_inode(a->path.dentry) == d_real_inode(b->path.dentry) &&
	       a->offset == b->offset;
}

/*
 * One uprobe (file and offset) has one reference counter: refuse a probe
 * that names another one than the probes already defined there.
 */
static int trace_uprobe_check_ref_ctr(struct trace_uprobe *tu, int caret)
{
	struct trace_uprobe *other;
	struct dyn_event *pos;

	for_each_dyn_event(pos) {
		if (!is_trace_uprobe(pos))
			continue;
		other = to_trace_uprobe(pos);
		if (trace_uprobe_same_site(tu, other) &&
		    tu->ref_ctr_offset != other->ref_ctr_offset) {
			trace_probe_log_set_index(1);
			trace_probe_log_err(caret, BAD_REFCNT);
			return -EINVAL;
		}
	}
	return 0;
}

/* True if a sibling of @event probes the same place with the same args. */
static bool trace_uprobe_duplicates(struct trace_uprobe *event,
				    struct trace_uprobe *tu)
{
	struct trace_uprobe *sib;
	int i;

	/* compare_arg_type() has matched count, names and types already. */
	list_for_each_entry(sib, trace_probe_probe_list(&event->tp), tp.list) {
		if (!trace_uprobe_same_site(sib, tu))
			continue;
		for (i = 0; i < tu->tp.nr_args; i++) {
			if (strcmp(sib->tp.args[i].comm, tu->tp.args[i].comm))
				break;
		}
		if (i == tu->tp.nr_args)
			return true;
	}
	return false;
}

/* Add @tu as a sibling of the existing event of @old. */
static int trace_uprobe_join(struct trace_uprobe *tu, struct trace_uprobe *old)
{
	struct trace_probe *tp = &tu->tp;
	int ret;

	trace_probe_log_set_index(0);
	if (tu_is_return(tu) != tu_is_return(old)) {
		trace_probe_log_err(0, DIFF_PROBE_TYPE);
		return -EEXIST;
	}
	ret = trace_probe_compare_arg_type(tp, &old->tp);
	if (ret) {
		/* @ret counts arguments from 1; they start at argv[2]. */
		trace_probe_log_set_index(ret + 1);
		trace_probe_log_err(0, DIFF_ARG_TYPE);
		return -EEXIST;
	}
	if (trace_uprobe_duplicates(old, tu)) {
		trace_probe_log_err(0, SAME_PROBE);
		return -EEXIST;
	}

	ret = trace_probe_append(tp, &old->tp);
	if (ret)
		return ret;
	/* Joining an enabled event: the new probe must fire at once. */
	if (trace_probe_is_enabled(tp)) {
		ret = trace_uprobe_arm(tu, uprobe_event_filter(tp));
		if (ret) {
			trace_probe_unlink(tp);
			trace_probe_log_set_index(1);
			trace_probe_log_err(0, FAIL_REG_PROBE);
			return ret;
		}
	}
	dyn_event_add(&tu->devent, trace_probe_event_call(tp));
	return 0;
}

static int trace_uprobe_new_event(struct trace_uprobe *tu)
{
	int ret;

	uprobe_event_setup_call(tu);
	ret = trace_probe_register_event_call(&tu->tp);
	if (ret == -EEXIST) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, EVENT_EXIST);
	} else if (ret) {
		pr_warn("cannot register event %s/%s: %d\n",
			trace_probe_group_name(&tu->tp),
			trace_probe_name(&tu->tp), ret);
	}
	if (ret)
		return ret;

	dyn_event_add(&tu->devent, trace_probe_event_call(&tu->tp));
	return 0;
}

/*
 * Publish a fully parsed @tu: as a new event, or as one more probe of the
 * event with the same name.  @ref_caret is where the reference counter
 * was written, for the error log.  On failure nothing has changed.
 */
static int trace_uprobe_register(struct trace_uprobe *tu, int ref_caret)
{
	struct trace_uprobe *old;
	int ret;

	mutex_lock(&event_mutex);
	ret = trace_uprobe_check_ref_ctr(tu, ref_caret);
	if (!ret) {
		old = trace_uprobe_find(trace_probe_name(&tu->tp),
					trace_probe_group_name(&tu->tp));
		ret = old ? trace_uprobe_join(tu, old) :
			    trace_uprobe_new_event(tu);
	}
	mutex_unlock(&event_mutex);
	return ret;
}

/* Remove and free @tu.  Called with event_mutex held. */
static int trace_uprobe_unregister(struct trace_uprobe *tu)
{
	struct trace_probe *tp = &tu->tp;
	int ret;

	/* An enabled probe may be inside its handlers right now. */
	if (trace_probe_is_enabled(tp))
		return -EBUSY;

	if (!trace_probe_has_sibling(tp)) {
		/* The last probe takes its event along. */
		if (trace_event_dyn_busy(trace_probe_event_call(tp)))
			return -EBUSY;
		ret = trace_probe_unregister_event_call(tp);
		if (ret)
			return ret;
	}

	dyn_event_remove(&tu->devent);
	trace_probe_unlink(tp);
	trace_uprobe_free(tu);
	return 0;
}

/* ---- Parsing a definition ---- */

/*
 * The probed place, from PATH:OFFSET[%return][(REF_CTR_OFFSET)].  Carets
 * are byte positions in that token, for the error log.
 */
struct uprobe_site {
	char		*filename;	/* owned until handed to a probe */
	struct path	path;		/* holds a reference when set */
	unsigned long	offset;
	unsigned long	ref_ctr_offset;
	bool		is_return;
	int		offset_caret;
	int		ref_ctr_caret;
};

static void uprobe_site_release(struct uprobe_site *site)
{
	path_put(&site->path);
	kfree(site->filename);
}

/* Move the site's file into @tu. */
static void trace_uprobe_take_site(struct trace_uprobe *tu,
				   struct uprobe_site *site)
{
	tu->filename = site->filename;
	tu->path = site->path;
	tu->offset = site->offset;
	tu->ref_ctr_offset = site->ref_ctr_offset;
	site->filename = NULL;
	site->path = (struct path) { };
}

static int uprobe_resolve_path(const char *name, struct path *path)
{
	int ret;

	ret = kern_path(name, LOOKUP_FOLLOW, path);
	if (ret)
		return ret;
	if (!d_is_reg(path->dentry)) {
		path_put(path);
		*path = (struct path) { };
		return -EINVAL;
	}
	return 0;
}

static int uprobe_site_lookup(struct uprobe_site *site)
{
	int ret = uprobe_resolve_path(site->filename, &site->path);

	if (ret == -EINVAL)
		trace_probe_log_err(0, NO_REGULAR_FILE);
	else if (ret)
		trace_probe_log_err(0, FILE_NOT_FOUND);
	return ret;
}

/* Split off and parse "(REF_CTR_OFFSET)", which must end the token. */
static int uprobe_site_ref_ctr(struct uprobe_site *site, char *addr)
{
	char *open = strchr(addr, '(');
	char *close;
	int ret;

	if (!open)
		return 0;

	close = strchr(open, ')');
	if (!close) {
		trace_probe_log_err(open + strlen(open) - site->filename,
				    REFCNT_OPEN_BRACE);
		return -EINVAL;
	}
	if (close[1] != '\0') {
		trace_probe_log_err(close + 1 - site->filename,
				    BAD_REFCNT_SUFFIX);
		return -EINVAL;
	}

	*open++ = '\0';
	*close = '\0';
	site->ref_ctr_caret = open - site->filename;
	ret = kstrtoul(open, 0, &site->ref_ctr_offset);
	if (ret)
		trace_probe_log_err(site->ref_ctr_caret, BAD_REFCNT);
	return ret;
}

/* Split off "%return", the only suffix an offset may have. */
static int uprobe_site_suffix(struct uprobe_site *site, char *addr)
{
	char *pct = strchr(addr, '%');

	if (!pct)
		return 0;
	if (strcmp(pct, "%return")) {
		trace_probe_log_err(pct - site->filename, BAD_ADDR_SUFFIX);
		return -EINVAL;
	}
	*pct = '\0';
	site->is_return = true;
	return 0;
}

static int uprobe_site_offset(struct uprobe_site *site, char *addr)
{
	struct inode *inode = d_real_inode(site->path.dentry);
	int ret;

	site->offset_caret = addr - site->filename;
	ret = kstrtoul(addr, 0, &site->offset);
	if (!ret && site->offset >= i_size_read(inode))
		ret = -EINVAL;	/* no instruction there */
	if (ret)
		trace_probe_log_err(site->offset_caret, BAD_UPROBE_OFFS);
	return ret;
}

/* Parse the PATH:OFFSET token; the caller checked its shape. */
static int uprobe_site_parse(const char *token, struct uprobe_site *site)
{
	char *addr;
	int ret;

	site->filename = kstrdup(token, GFP_KERNEL);
	if (!site->filename)
		return -ENOMEM;

	trace_probe_log_set_index(1);
	/* PATH may hold ':' itself: OFFSET follows the last one. */
	addr = strrchr(site->filename, ':');
	*addr++ = '\0';
	site->ref_ctr_caret = addr - site->filename;

	ret = uprobe_site_lookup(site);
	if (!ret)
		ret = uprobe_site_ref_ctr(site, addr);
	if (!ret)
		ret = uprobe_site_suffix(site, addr);
	if (!ret)
		ret = uprobe_site_offset(site, addr);
	return ret;
}

/* Does @token look like PATH:OFFSET, i.e. is the definition ours? */
static bool uprobe_token_is_site(const char *token)
{
	const char *colon = strrchr(token, ':');

	return strchr(token, '/') && colon && isdigit(colon[1]);
}

/* "p_<first word of the file name>_0x<offset>", as users expect. */
static void uprobe_default_name(char *buf, size_t size,
				const struct uprobe_site *site)
{
	const char *base = kbasename(site->filename);
	int len = strcspn(base, ".-_");

	snprintf(buf, size, "p_%.*s_0x%lx", len, base, site->offset);
}

static int trace_uprobe_parse_args(struct trace_uprobe *tu, int argc,
				   const char **argv)
{
	unsigned int flags = TPARG_FL_USER;
	int i, ret;

	if (tu_is_return(tu))
		flags |= TPARG_FL_RETURN;

	for (i = 0; i < argc; i++) {
		struct traceprobe_parse_context ctx = { .flags = flags };

		trace_probe_log_set_index(i + 2);
		ret = traceprobe_parse_probe_arg(&tu->tp, i, argv[i], &ctx);
		traceprobe_finish_parse(&ctx);
		if (ret)
			return ret;
	}
	/* Staged arguments must fit the scratch area with room to spare. */
	if (tu->tp.size >= UPROBE_SCRATCH_SIZE) {
		trace_probe_log_set_index(2);
		trace_probe_log_err(0, EVENT_TOO_BIG);
		return -E2BIG;
	}
	tu->fetch_direct = trace_uprobe_args_direct(tu);
	bitmap_zero(tu->dyn_args, MAX_TRACE_ARGS);
	for (i = 0; i < tu->tp.nr_args; i++) {
		if (tu->tp.args[i].dynamic)
			__set_bit(i, tu->dyn_args);
	}
	tu->has_strings = !bitmap_empty(tu->dyn_args, MAX_TRACE_ARGS);
	tu->bare = !tu_is_return(tu) && !tu->tp.nr_args;
	return 0;
}

static enum probe_print_type trace_uprobe_print_type(struct trace_uprobe *tu)
{
	return tu_is_return(tu) ? PROBE_PRINT_RETURN : PROBE_PRINT_NORMAL;
}

/* Build the probe that @argv defines at @site and publish it. */
static int trace_uprobe_build(int argc, const char **argv,
			      struct uprobe_site *site)
{
	const char *group = UPROBE_DEFAULT_GROUP, *event = NULL;
	char gbuf[MAX_EVENT_NAME_LEN], nbuf[MAX_EVENT_NAME_LEN];
	struct trace_uprobe *tu;
	int ret;

	trace_probe_log_set_index(0);
	if (argv[0][1] == ':') {
		event = &argv[0][2];
		ret = traceprobe_parse_event_name(&event, &group, gbuf, 2);
		if (ret)
			return ret;
	}
	if (!event) {
		uprobe_default_name(nbuf, sizeof(nbuf), site);
		event = nbuf;
	}

	tu = trace_uprobe_alloc(group, event, argc - 2, site->is_return);
	if (IS_ERR(tu))
		return PTR_ERR(tu);
	trace_uprobe_take_site(tu, site);

	ret = trace_uprobe_parse_args(tu, argc - 2, argv + 2);
	if (!ret)
		ret = traceprobe_set_print_fmt(&tu->tp,
					       trace_uprobe_print_type(tu));
	if (ret >= 0)
		ret = trace_uprobe_register(tu, site->ref_ctr_caret);
	if (ret)
		trace_uprobe_free(tu);
	return ret < 0 ? ret : 0;
}

/*
 * A line that names no uprobe.  From dynamic_events it may be another
 * probe type's: -ECANCELED lets the next parser have it.  uprobe_events
 * (@final) takes nothing else, so there the line is bad input and
 * error_log says why (6.12 refuses it without an entry).
 */
static int uprobe_not_a_uprobe(int argc, const char **argv, bool final,
			       bool kind_ok)
{
	const char *colon;

	if (!final)
		return -ECANCELED;
	trace_probe_log_init("trace_uprobe", argc, argv);
	if (!kind_ok) {
		trace_probe_log_err(0, BAD_PROBE_TYPE);
	} else if (argc < 2) {
		trace_probe_log_err(strlen(argv[0]), NO_PROBE_POINT);
	} else {
		trace_probe_log_set_index(1);
		colon = strrchr(argv[1], ':');
		if (strchr(argv[1], '/') && colon)
			trace_probe_log_err(colon + 1 - argv[1], BAD_UPROBE_OFFS);
		else
			trace_probe_log_err(0, BAD_UPROBE_SITE);
	}
	trace_probe_log_clear();
	return -EINVAL;
}

/*
 * p[:[GRP/][EVENT]] PATH:OFFSET[%return][(REF_CTR_OFFSET)] [FETCHARGS]
 * r[:[GRP/][EVENT]] PATH:OFFSET[(REF_CTR_OFFSET)] [FETCHARGS]
 *
 * @final: the line came from uprobe_events, where it can be nothing else
 * (see uprobe_not_a_uprobe()).
 */
static int trace_uprobe_create_argv(int argc, const char **argv, bool final)
{
	struct uprobe_site site = { };
	const char *kind = argv[0];
	bool kind_ok;
	int ret;

	kind_ok = (kind[0] == 'p' || kind[0] == 'r') &&
		  (kind[1] == '\0' || kind[1] == ':');
	if (!kind_ok || argc < 2 || !uprobe_token_is_site(argv[1]))
		return uprobe_not_a_uprobe(argc, argv, final, kind_ok);

	trace_probe_log_init("trace_uprobe", argc, argv);
	if (argc - 2 > MAX_TRACE_ARGS) {
		trace_probe_log_set_index(2 + MAX_TRACE_ARGS);
		trace_probe_log_err(0, TOO_MANY_ARGS);
		trace_probe_log_clear();
		return -E2BIG;
	}
	site.is_return = kind[0] == 'r';
	ret = uprobe_site_parse(argv[1], &site);
	if (!ret)
		ret = trace_uprobe_build(argc, argv, &site);
	uprobe_site_release(&site);
	trace_probe_log_clear();
	return ret;
}

static int uprobe_dyn_create_argv(int argc, const char **argv)
{
	return trace_uprobe_create_argv(argc, argv, false);
}

static int uprobe_events_create_argv(int argc, const char **argv)
{
	return trace_uprobe_create_argv(argc, argv, true);
}

static int uprobe_dyn_create(const char *raw_command)
{
	return trace_probe_create(raw_command, uprobe_dyn_create_argv);
}

/* ---- dyn_event callbacks ---- */

/* "0x<offset, zero-padded>" and "(0x<ref ctr>)" when there is one. */
static void trace_uprobe_format_addr(struct trace_uprobe *tu, char *buf,
				     size_t size)
{
	int n = snprintf(buf, size, "0x%0*lx", UPROBE_ADDR_DIGITS, tu->offset);

	if (tu->ref_ctr_offset && n < (int)size)
		snprintf(buf + n, size - n, "(0x%lx)", tu->ref_ctr_offset);
}

static int uprobe_dyn_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_uprobe *tu = to_trace_uprobe(ev);
	char addr[MAX_ARGSTR_LEN + 1];
	int i;

	trace_uprobe_format_addr(tu, addr, sizeof(addr));
	seq_printf(m, "%c:%s/%s %s:%s", tu_is_return(tu) ? 'r' : 'p',
		   trace_probe_group_name(&tu->tp), trace_probe_name(&tu->tp),
		   tu->filename, addr);
	for (i = 0; i < tu->tp.nr_args; i++)
		seq_printf(m, " %s=%s", tu->tp.args[i].name,
			   tu->tp.args[i].comm);
	seq_putc(m, '\n');
	return 0;
}

/* Does "PATH:ADDR [ARGS]" in @argv describe @tu (no @argv: yes)? */
static bool trace_uprobe_match_head(struct trace_uprobe *tu, int argc,
				    const char **argv)
{
	char addr[MAX_ARGSTR_LEN + 1];
	size_t len;

	if (!argc)
		return true;

	len = strlen(tu->filename);
	if (strncmp(argv[0], tu->filename, len) || argv[0][len] != ':')
		return false;
	trace_uprobe_format_addr(tu, addr, sizeof(addr));
	if (strcmp(argv[0] + len + 1, addr))
		return false;

	return trace_probe_match_command_args(&tu->tp, argc - 1, argv + 1);
}

static bool uprobe_dyn_match(const char *system, const char *event,
			     int argc, const char **argv, struct dyn_event *ev)
{
	struct trace_uprobe *tu = to_trace_uprobe(ev);

	if (!trace_probe_match_event(&tu->tp, system, event))
		return false;
	return trace_uprobe_match_head(tu, argc, argv);
}

static bool uprobe_dyn_is_busy(struct dyn_event *ev)
{
	return trace_probe_is_enabled(&to_trace_uprobe(ev)->tp);
}

static int uprobe_dyn_free(struct dyn_event *ev)
{
	return trace_uprobe_unregister(to_trace_uprobe(ev));
}

static struct dyn_event_operations trace_uprobe_ops = {
	.create		= uprobe_dyn_create,
	.match		= uprobe_dyn_match,
	.show		= uprobe_dyn_show,
	.is_busy	= uprobe_dyn_is_busy,
	.free		= uprobe_dyn_free,
};

/* ---- tracefs: uprobe_events and uprobe_profile ---- */

/*
 * Both files list the uprobe events; they differ in what they print for
 * each and in what opening with O_TRUNC means.  The view is the inode's
 * private data and becomes the seq_file's.
 */
struct uprobe_list_view {
	int	(*show)(struct seq_file *m, struct dyn_event *ev);
	bool	clear_on_trunc;	/* "echo > FILE" removes every uprobe event */
};

static int uprobe_dyn_show_hits(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_uprobe *tu = to_trace_uprobe(ev);
	unsigned long hits = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		hits += *per_cpu_ptr(tu->nhits, cpu);

	seq_printf(m, "  %s %-44s %15lu\n", tu->filename,
		   trace_probe_name(&tu->tp), hits);
	return 0;
}

static struct uprobe_list_view uprobe_events_view = {
	.show		= uprobe_dyn_show,
	.clear_on_trunc	= true,
};

static struct uprobe_list_view uprobe_profile_view = {
	.show		= uprobe_dyn_show_hits,
};

static int uprobe_list_show(struct seq_file *m, void *v)
{
	struct uprobe_list_view *view = m->private;
	struct dyn_event *ev = v;

	return is_trace_uprobe(ev) ? view->show(m, ev) : 0;
}

static const struct seq_operations uprobe_list_seq_ops = {
	.start	= dyn_event_seq_start,
	.next	= dyn_event_seq_next,
	.stop	= dyn_event_seq_stop,
	.show	= uprobe_list_show,
};

static int uprobe_list_open(struct inode *inode, struct file *file)
{
	struct uprobe_list_view *view = inode->i_private;
	int ret;

	ret = security_locked_down(LOCKDOWN_TRACEFS);
	if (ret)
		return ret;

	/* All or nothing: -EBUSY, and no change, if one event is in use. */
	if (view->clear_on_trunc && (file->f_mode & FMODE_WRITE) &&
	    (file->f_flags & O_TRUNC)) {
		ret = dyn_events_release_all(&trace_uprobe_ops);
		if (ret)
			return ret;
	}

	ret = seq_open(file, &uprobe_list_seq_ops);
	if (!ret)
		((struct seq_file *)file->private_data)->private = view;
	return ret;
}

/* One line written to uprobe_events: a definition or a removal. */
static int uprobe_events_run(const char *cmd)
{
	if (cmd[0] == '-')
		return dyn_event_release(cmd, &trace_uprobe_ops);

	/* Nobody else may take the line here: parsed as final. */
	return trace_probe_create_locked(cmd, uprobe_events_create_argv);
}

static ssize_t uprobe_events_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	return trace_parse_run_command(file, ubuf, count, ppos,
				       uprobe_events_run);
}

static const struct file_operations uprobe_events_fops = {
	.open		= uprobe_list_open,
	.read		= seq_read,
	.write		= uprobe_events_write,
	.llseek		= seq_lseek,
	.release	= seq_release,
};

static const struct file_operations uprobe_profile_fops = {
	.open		= uprobe_list_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release,
};

/* ---- Local probes of perf's uprobe PMU (trace_event_perf.c) ---- */

/**
 * create_local_trace_uprobe - make an unlisted uprobe event for perf
 * @name: path of the file to probe
 * @offs: offset of the probed instruction in that file
 * @ref_ctr_offset: offset of the SDT reference counter, or 0
 * @is_return: probe the function's return instead of the instruction
 *
 * The event has no arguments, is not on the dyn_event list and is not
 * registered as a trace event; perf drives it through its class's reg
 * callback.  Context: process, may sleep; perf_uprobe_init() holds
 * event_mutex around the use of the event, not around this call.
 *
 * Return: the event's trace_event_call, or an ERR_PTR() (-ENOENT and the
 * other lookup errors for @name, -EINVAL if it is not a regular file,
 * -ENOMEM).
 */
struct trace_event_call *
create_local_trace_uprobe(char *name, unsigned long offs,
			  unsigned long ref_ctr_offset, bool is_return)
{
	struct uprobe_site site = {
		.offset = offs,
		.ref_ctr_offset = ref_ctr_offset,
	};
	struct trace_uprobe *tu;
	int ret;

	site.filename = kstrdup(name, GFP_KERNEL);
	if (!site.filename)
		return ERR_PTR(-ENOMEM);
	ret = uprobe_resolve_path(name, &site.path);
	if (ret)
		goto out;

	/* Never listed, so the fixed name cannot collide. */
	tu = trace_uprobe_alloc(UPROBE_DEFAULT_GROUP, "DUMMY_EVENT", 0,
				is_return);
	if (IS_ERR(tu)) {
		ret = PTR_ERR(tu);
		goto out;
	}
	trace_uprobe_take_site(tu, &site);
	uprobe_event_setup_call(tu);
	if (traceprobe_set_print_fmt(&tu->tp, trace_uprobe_print_type(tu)) < 0) {
		trace_uprobe_free(tu);
		ret = -ENOMEM;
		goto out;
	}
	return trace_probe_event_call(&tu->tp);

out:
	uprobe_site_release(&site);
	return ERR_PTR(ret);
}

/**
 * destroy_local_trace_uprobe - free an event made by create_local_trace_uprobe()
 * @event_call: the event; perf has disabled and closed it already
 */
void destroy_local_trace_uprobe(struct trace_event_call *event_call)
{
	struct trace_uprobe *tu = tu_of_call(event_call);

	if (tu)
		trace_uprobe_free(tu);
}

#ifdef CONFIG_BPF_EVENTS
/**
 * bpf_get_uprobe_info - describe the uprobe behind a perf event for BPF
 * @event: a perf event on a uprobe event (tracepoint or local probe)
 * @fd_type: set to BPF_FD_TYPE_UPROBE or BPF_FD_TYPE_URETPROBE
 * @filename: set to the probed file's path as written
 * @probe_offset: set to the probed offset in that file
 * @probe_addr: set to 0 (uprobes have no fixed address)
 * @perf_type_tracepoint: @event was opened through the tracepoint PMU
 *
 * Return: 0, or -EINVAL if @event has no uprobe behind it.
 */
int bpf_get_uprobe_info(const struct perf_event *event, u32 *fd_type,
			const char **filename, u64 *probe_offset,
			u64 *probe_addr, bool perf_type_tracepoint)
{
	struct trace_event_call *call = event->tp_event;
	struct trace_uprobe *tu;

	if (perf_type_tracepoint)
		tu = trace_uprobe_find(trace_event_name(call),
				       call->class->system);
	else
		tu = tu_of_call(call);
	if (!tu)
		return -EINVAL;

	*fd_type = tu_is_return(tu) ? BPF_FD_TYPE_URETPROBE :
				      BPF_FD_TYPE_UPROBE;
	*filename = tu->filename;
	*probe_offset = tu->offset;
	*probe_addr = 0;
	return 0;
}
#endif /* CONFIG_BPF_EVENTS */

static __init int init_uprobe_trace(void)
{
	int ret = dyn_event_register(&trace_uprobe_ops);

	if (ret)
		return ret;
	if (tracing_init_dentry())
		return 0;

	trace_create_file("uprobe_events", TRACE_MODE_WRITE, NULL,
			  &uprobe_events_view, &uprobe_events_fops);
	trace_create_file("uprobe_profile", TRACE_MODE_READ, NULL,
			  &uprobe_profile_view, &uprobe_profile_fops);
	return 0;
}
fs_initcall(init_uprobe_trace);
