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
 * This file is the hit path: the fetch stage the argument programs run on,
 * the per-CPU scratch areas arguments are staged in, the perf process
 * filter, the record writers for trace instances and perf, and the
 * handlers the uprobes core calls.  It is one translation unit on purpose,
 * so that the compiler sees every static helper of a hit; keep cold code
 * in the other files of the layer (see trace_uprobe.h, which also states
 * the locking rules).
 *
 * Rules of the hit path:
 *  - Handlers run in the probed task, preemptible, and read the event
 *    flags with acquire semantics; they walk the event's file links under
 *    RCU (or with preemption disabled, which is an RCU read section too).
 *  - A record is never reserved while a fetch may sleep: arguments are
 *    fetched into it with page faults disabled, and staged in a scratch
 *    area (faulting pages in) only when a read would fault.
 *  - The scratch areas exist while any uprobe event is enabled; their user
 *    count and lifetime are under event_mutex.
 *  - The perf filter is read under its rwlock (or lock-free for a
 *    system-wide event).
 *  - The perf part of a hit is counted in its trace_uprobe while it runs,
 *    so that perf's close can wait for exactly those hits instead of a
 *    grace period (uprobe_perf_enter(), trace_uprobe.h).
 */
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>
#ifdef CONFIG_BPF_EVENTS
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/rcupdate_trace.h>
#endif

#include "trace_uprobe.h"
/* This front end gives the library a quick load: tprobe_load_hit(). */
#define TPROBE_HAS_LOAD_HIT
#include "trace_probe_tmpl.h"

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

/* Can every argument of @tu be fetched straight into a record?  (Parse time.) */
bool trace_uprobe_args_direct(struct trace_uprobe *tu)
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
 * read user memory are fetched into a scratch area (UPROBE_SCRATCH_SIZE
 * bytes) first and copied into the record afterwards.  The areas exist
 * while at least one uprobe event is enabled (uprobe_scratch_users counts
 * enabled events, under event_mutex).  A handler may migrate or sleep
 * while it uses its CPU's area, hence the mutex in each; it is contended
 * only after a migration.
 */
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
		s->data = kmalloc_node(UPROBE_SCRATCH_SIZE, GFP_KERNEL_ACCOUNT,
				       cpu_to_node(cpu));
		if (!s->data) {
			uprobe_scratch_free(areas);
			return NULL;
		}
	}
	return areas;
}

/* One more enabled event: the areas exist from the first one on. */
int uprobe_scratch_get(void)
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
void uprobe_scratch_put(void)
{
	struct uprobe_scratch __percpu *areas = uprobe_scratch;

	lockdep_assert_held(&event_mutex);
	if (--uprobe_scratch_users)
		return;
	WRITE_ONCE(uprobe_scratch, NULL);
	uprobe_scratch_free(areas);
}

/* ---- Perf: which processes a perf-enabled event should trap in ---- */

/* An empty filter: no perf event wants the breakpoints yet. */
void uprobe_filter_init(struct trace_uprobe_filter *filter)
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
bool uprobe_filter_add(struct trace_uprobe_filter *filter,
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
bool uprobe_filter_remove(struct trace_uprobe_filter *filter,
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

/* ftrace wants every process; perf only the ones its filter names. */
uprobe_filter_fn uprobe_event_filter(struct trace_probe *tp)
{
	if (trace_probe_test_flag(tp, TP_FLAG_PROFILE))
		return uprobe_perf_filter;
	return NULL;
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

/*
 * Fetch a hit once, write it where @flags say (@func: 0 on entry).  The
 * perf part, from the BPF programs to the release of the scratch area,
 * runs counted in tu->perf_busy, so that perf's close can wait for it
 * (trace_uprobe.h); an event serves trace instances or perf, not both.
 */
static void uprobe_record_hit(struct trace_uprobe *tu, struct pt_regs *regs,
			      unsigned long func, unsigned int flags)
{
	bool perf = flags & TP_FLAG_PROFILE;
	struct uprobe_hit hit;

	if (perf && !uprobe_perf_enter(tu))
		return;
	uprobe_hit_begin(&hit, tu, regs, func);
	if (flags & TP_FLAG_TRACE)
		uprobe_trace_hit(&hit);
	if (perf)
		uprobe_perf_hit(&hit);
	uprobe_hit_end(&hit);
	if (perf)
		uprobe_perf_leave(tu);
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
int uprobe_dispatcher(struct uprobe_consumer *self, struct pt_regs *regs)
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
int uretprobe_dispatcher(struct uprobe_consumer *self, unsigned long func,
			 struct pt_regs *regs)
{
	struct trace_uprobe *tu = container_of(self, struct trace_uprobe,
					       consumer);

	uprobe_record_hit(tu, regs, func, trace_probe_load_flag(&tu->tp));
	return 0;
}
