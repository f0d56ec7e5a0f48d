// SPDX-License-Identifier: GPL-2.0
/*
 * The function-graph backend of return probes (CONFIG_KRETPROBE_ON_FGRAPH,
 * x86-64 and arm64): no pool of instances.  The instance of a call lives
 * in the call's frame on the task's fgraph shadow stack.  The return comes
 * back through the return probes' own trampoline where the arch has one
 * (CONFIG_HAVE_KRETPROBE_RETURN_HANDLER, x86-64: kretprobe_return_handler),
 * else through fgraph's return_to_handler.
 *
 * Entry.  The kretprobe's kprobe stays what starts a call: a breakpoint,
 * or the call site when the function has one, with kretprobe_hit() as its
 * pre_handler, so enable, disable, aggregates, kprobes/list and
 * kprobe_running() are those of any kprobe.  The hit pushes a direct
 * frame for this kretprobe only (fgraph_direct_push_at(), or on x86-64
 * the same push inline, with fgraph_frame.h), runs the
 * entry_handler on the instance inside it, then hooks the return address
 * where the kprobe found it: the word at the stack pointer on x86-64, the
 * link register of the saved frame on arm64.  Nothing here needs a call
 * site for the return, so a function without one (notrace) is served the
 * same way: no fallback backend is needed where fgraph exists.  Where it
 * does not (no function graph tracer, which on arm64 includes kernels
 * without patchable entries) KRETPROBE_ON_FGRAPH is off and rethook
 * (x86) or the per-task lists (arm64) serve kretprobes as before.
 *
 * Why not one fgraph_ops per kretprobe, filtered to its function: fgraph
 * has FGRAPH_ARRAY_SIZE (16) user slots for the whole kernel, every
 * graph entry tests each user's filter, and the kprobe would lose its
 * part (enable/disable, aggregates, kprobe_running() in the handlers).
 * One direct fgraph user serves every kretprobe here; it is registered
 * while at least one kretprobe exists.
 *
 * The frame's data: word 0 is the kretprobe's id (its slot in krp_live
 * and a generation), then the struct kretprobe_instance handlers get,
 * with data_size bytes of entry data.  A frame carries at most
 * FGRAPH_DIRECT_MAX_WORDS words, so data_size is at most KRP_DATA_MAX
 * (200 bytes on 64-bit); more is refused with -E2BIG, where 6.12 allows
 * KRETPROBE_MAX_DATA_SIZE.  The instance's fields are those of the
 * !CONFIG_KRETPROBE_ON_RETHOOK layout of <linux/kprobes.h>: ->rph is the
 * kretprobe's holder (get_kretprobe() works), ->ret_addr is the real
 * return address (set at the return; NULL for the entry_handler), ->fp
 * the unwinders' key of the hooked slot; ->rcu and ->llist are unused.
 *
 * Return on x86-64.  The hit hooks the return to kretprobe_return_handler
 * (arch/x86/kernel/ftrace_64.S), which saves a whole struct pt_regs of the
 * return, as 6.12's kretprobe trampoline did (every general register, the
 * flags, the kernel segments, sp the stack after the return), and calls
 * kretprobe_return().  That reads the top frame itself: for one of ours
 * whose saved address is the real return address (the common frame) it
 * puts that address into regs->ip and into the hooked slot, runs the
 * handler with the frame still on the shadow stack (the instance is in
 * it) and pops it, without a call into fgraph.c.  Any other top (a slot
 * hooked twice, a frame of an earlier registration) goes through
 * ftrace_return_to_handler() and krp_return(), the generic way below.
 * Only ax and dx, the return value, go back from the pt_regs.
 *
 * Return elsewhere (arm64).  fgraph calls krp_return() with the frame
 * still on the stack and the registers of the return, whose instruction
 * pointer fgraph set to the real return address.  The handler gets a
 * per-CPU copy of them for each context level (x0-x8, fp, lr, sp and pc;
 * the rest 0; x0 is copied back).  On both, instruction_pointer() is the
 * real return address, regs_return_value() the return value,
 * kprobe_running() the kretprobe's kprobe with KPROBE_HIT_ACTIVE.
 *
 * Counts.  There is no pool to run out of: maxactive is accepted (and
 * still defaulted by register_kretprobe(), kprobe events list it) and
 * ignored, as upstream's fprobe-based return events do.  nmissed counts
 * a hit whose frame could not be pushed (no shadow stack for the task,
 * stack full, graph tracing stopped or paused) and a return that found a
 * kprobe running on the CPU.  Recursion: a handler that calls a probed
 * function runs with its kprobe current, so that hit is a missed hit of
 * that kprobe, counted by the kprobes core.
 *
 * Unwinders.  A hooked slot holds kretprobe_return_handler (x86-64) or
 * return_to_handler, both listed by fgraph_is_hook(), which the x86 ORC
 * and arm64 unwinders translate with ftrace_graph_ret_addr() through the
 * frame's key.  While a handler runs on x86-64 the slot holds the real
 * return address already, so an unwind from the handler reads the caller
 * there.  No return goes through __kretprobe_trampoline, so
 * kretprobe_find_ret_addr() never has anything to find.
 *
 * Lifetime and locking:
 *  - krp_mutex serializes the table, the ids and the fgraph user; it
 *    nests inside kprobe_mutex (kretprobe_pool_detach()) and outside
 *    ftrace_lock (fgraph registration).
 *  - A kretprobe owns a struct krp_binding from kretprobe_pool_create()
 *    until kretprobe_pool_release().  Detaching it clears its table slot
 *    and the holder's probe pointer; returns still pending then find no
 *    binding for their id and run nothing.  It is freed after the
 *    unregistration's grace period, so a return that found it (with
 *    preemption disabled) never sees it freed.
 *  - A replaced table is freed after a grace period.
 *  - Frames left when the fgraph user goes are popped by fgraph without a
 *    call; a task that dies inside a probed function takes its frames
 *    with its shadow stack (kprobe_flush_task() has nothing to do).
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/context_tracking.h>
#include <linux/errno.h>
#include <linux/ftrace.h>
#include <linux/idr.h>
#include <linux/kprobes.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/panic.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "kretprobes_internal.h"
#include "trace/fgraph_internal.h"
#include "trace/fgraph_frame.h"

/* Bits of an id that name the table slot; the rest is a generation. */
#define KRP_SLOT_BITS		20
#define KRP_SLOT_MASK		(BIT(KRP_SLOT_BITS) - 1)

/* Words a frame of @size bytes of entry data takes: id, instance, data. */
#define KRP_WORDS(size)		(1 + DIV_ROUND_UP(sizeof(struct kretprobe_instance) + \
						  (size), sizeof(long)))
/* The most entry data a frame holds. */
#define KRP_DATA_MAX		((FGRAPH_DIRECT_MAX_WORDS - 1) * sizeof(long) - \
				 sizeof(struct kretprobe_instance))

/* The table starts with this many slots and doubles. */
#define KRP_TABLE_MIN		64

/*
 * struct krp_binding - what this backend keeps for one kretprobe
 * @holder: what the kretprobe's ->rph and its instances' ->rph point to;
 *	    holder.rp is the kretprobe until it is detached (holder.pool is
 *	    unused)
 * @id: the table slot and generation its frames carry
 * @words: data words of its frames, KRP_WORDS(data_size)
 */
struct krp_binding {
	struct kretprobe_holder	holder;
	unsigned long		id;
	unsigned int		words;
};

/*
 * struct krp_table - the live bindings by slot, for the return path
 * @rcu: frees a replaced table
 * @size: number of slots
 * @slot: the bindings; NULL where none is live
 */
struct krp_table {
	struct rcu_head			rcu;
	unsigned int			size;
	struct krp_binding __rcu	*slot[] __counted_by(size);
};

static DEFINE_MUTEX(krp_mutex);
static DEFINE_IDA(krp_slots);
static struct krp_table __rcu *krp_live;
/* Bindings not yet released; the fgraph user is registered while > 0. */
static unsigned int krp_bound;
/* The generation of the last id handed out. */
static unsigned long krp_gen;
/* The direct fgraph user of every kretprobe. */
static struct fgraph_ops krp_gops;
#ifdef FGRAPH_HAVE_KRETPROBE_HANDLER
/*
 * The record key of krp_gops' registration, read when it registers: our
 * frames end with this key and their size.  A frame of an earlier
 * registration carries another key and returns the generic way.
 */
static unsigned long krp_rec_key;
#endif

#define krp_locked(p)	rcu_dereference_protected(p, lockdep_is_held(&krp_mutex))

/* ---- where the return address is at a function's entry ---------------- */

#if defined(CONFIG_X86_64)
/* The word the stack pointer points at, which is also its own key. */
static __always_inline unsigned long *krp_return_slot(struct pt_regs *regs)
{
	return (unsigned long *)kernel_stack_pointer(regs);
}

static __always_inline unsigned long *krp_return_key(struct pt_regs *regs)
{
	return krp_return_slot(regs);
}
#elif defined(CONFIG_ARM64)
/*
 * The link register, which the function resumes with from this frame
 * (the exception return, or the call site's caller reloading x30 from
 * it); unwinders know it by the frame pointer at the entry, the caller's.
 */
static __always_inline unsigned long *krp_return_slot(struct pt_regs *regs)
{
	return (unsigned long *)&regs->regs[30];
}

static __always_inline unsigned long *krp_return_key(struct pt_regs *regs)
{
	return (unsigned long *)regs->regs[29];
}
#else
# error "kretprobes_fgraph.c: no return-address slot for this architecture"
#endif

/* ---- the handler's pt_regs at the return ------------------------------- */

#ifdef arch_ftrace_get_pt_regs
/*
 * The return frame has the room of a pt_regs: complete it in place.  The
 * frame of kretprobe_return_handler, which reaches here for a frame it
 * does not pop itself, is a whole pt_regs already (cs set): as it is.
 */
static __always_inline struct pt_regs *krp_return_regs(struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	return regs ? regs : arch_ftrace_get_pt_regs(fregs);
}

/*
 * What the handler changed is the frame's own; make it a frame again
 * (kretprobe_return_handler reads only ax and dx back: cs 0 is harmless).
 */
static __always_inline void krp_return_regs_done(struct ftrace_regs *fregs,
						 struct pt_regs *regs)
{
	arch_ftrace_put_pt_regs(fregs);
}
#else
/*
 * A copy per CPU and context level (task, softirq, hardirq, NMI): a level
 * runs one handler at a time, since a handler's kprobe stays current until
 * it returns.  Slots the copy does not fill stay as they were, 0 unless a
 * handler wrote them.
 */
struct krp_regs_area {
	struct pt_regs	regs[4];
};

static DEFINE_PER_CPU(struct krp_regs_area, krp_regs_area);

static __always_inline struct pt_regs *krp_return_regs(struct ftrace_regs *fregs)
{
	struct krp_regs_area *area = this_cpu_ptr(&krp_regs_area);

	return ftrace_partial_regs(fregs, &area->regs[interrupt_context_level()]);
}

/* The return value is what the handler left in the copy. */
static __always_inline void krp_return_regs_done(struct ftrace_regs *fregs,
						 struct pt_regs *regs)
{
	ftrace_regs_set_return_value(fregs, regs_return_value(regs));
}
#endif

/* ---- the hit path ------------------------------------------------------ */

/* The instance in a frame's data, after the id word. */
static __always_inline struct kretprobe_instance *krp_instance(unsigned long *data)
{
	return (struct kretprobe_instance *)&data[1];
}

/* The live binding of @id whose frames have @words words, or NULL. */
static __always_inline struct krp_binding *krp_find(unsigned long id,
						    unsigned int words)
{
	struct krp_table *table = rcu_dereference_check(krp_live,
							rcu_read_lock_any_held());
	unsigned long slot = id & KRP_SLOT_MASK;
	struct krp_binding *b;

	if (unlikely(!table || slot >= table->size))
		return NULL;
	b = rcu_dereference_check(table->slot[slot], rcu_read_lock_any_held());
	if (unlikely(!b || READ_ONCE(b->id) != id || b->words != words))
		return NULL;
	return b;
}

/*
 * RCU watches this CPU, so the table may be read; preemption is disabled.
 * Where the context-tracking state says so, one read of it as per-CPU
 * data (one test of memory on x86-64), what rcu_is_watching() does
 * behind a call.
 */
static __always_inline bool krp_rcu_watching(void)
{
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
	return raw_cpu_read(context_tracking.state.counter) & CT_RCU_WATCHING;
#else
	return rcu_is_watching();
#endif
}

/*
 * The kretprobe whose handler the return of a frame with @data (@words
 * words) runs, or NULL: RCU not watching, the probe gone since or without
 * a handler, or a kprobe running on this CPU (counted in nmissed).
 * Preemption disabled.
 */
static __always_inline struct kretprobe *
krp_return_probe(unsigned long *data, unsigned int words)
{
	struct krp_binding *b;
	struct kretprobe *rp;

	/* Without RCU watching no binding can be trusted: drop it. */
	if (unlikely(!krp_rcu_watching()))
		return NULL;
	b = krp_find(data[0], words);
	if (unlikely(!b))
		return NULL;
	rp = rcu_dereference_check(b->holder.rp, rcu_read_lock_any_held());
	if (unlikely(!rp) || !rp->handler)
		return NULL;
	if (unlikely(kprobe_running())) {
		rp->nmissed++;
		return NULL;
	}
	return rp;
}

/* @rp's handler on @ri, with its kprobe current as in a kprobe handler. */
static __always_inline void krp_call_handler(struct kretprobe *rp,
					     struct kretprobe_instance *ri,
					     struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();

	__this_cpu_write(current_kprobe, &rp->kp);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	rp->handler(ri, regs);
	__this_cpu_write(current_kprobe, NULL);
}

#ifdef FGRAPH_HAVE_KRETPROBE_HANDLER
/*
 * Push the frame of @words data words of a call of @func whose return
 * address is at @slot, unwinders' @key: fgraph_direct_push_at(), inline
 * and with the record key read at registration.  A hit that found its
 * kretprobe bound (kretprobe_hit()) runs inside krp_gops' registration:
 * the fgraph user goes with the last binding, after the grace period
 * that follows its detach.  @words is the binding's, checked when it was
 * made.  The data goes to *@datap; false if nothing was pushed.  A flag,
 * not the pointer: the kernel's compiler keeps a test of a computed
 * pointer for NULL.
 */
static __always_inline bool krp_push(unsigned long func, unsigned long *slot,
				     unsigned long *key, unsigned int words,
				     unsigned long **datap)
{
	unsigned long *ws;
	unsigned int top;

	/* Not before the CPU has a kernel stack and a current of its own. */
	if (unlikely((long)current_stack_pointer >= 0 ||
		     fgraph_open_frame_below(key)))
		return false;
	top = __fgraph_push_direct_slot(READ_ONCE(krp_rec_key), func, slot,
					key, words, &ws);
	if (unlikely(!top))
		return false;
	*datap = &ws[top - 1 - words];
	return true;
}

/* Hook the return of the frame just pushed at @slot to our trampoline. */
static __always_inline void krp_hook(unsigned long *slot)
{
	*slot = (unsigned long)kretprobe_return_handler;
}
#else
/* Push the frame of a call: fgraph_direct_push_at(). */
static __always_inline bool krp_push(unsigned long func, unsigned long *slot,
				     unsigned long *key, unsigned int words,
				     unsigned long **datap)
{
	*datap = fgraph_direct_push_at(&krp_gops, func, slot, key, words);
	return *datap;
}

/* Hook the return of the frame just pushed at @slot to fgraph's hook. */
static __always_inline void krp_hook(unsigned long *slot)
{
	fgraph_direct_done_at(slot, true);
}
#endif

/**
 * kretprobe_hit - the pre_handler of every return probe
 * @p: the kp of the kretprobe
 * @regs: the frame at the function's entry
 *
 * Pushes this call's frame on the shadow stack, lets the entry_handler
 * refuse it, and hooks the function's return.  A frame that cannot be
 * pushed is counted in nmissed.
 *
 * Context: a kprobe hit on the function's first instruction, with @p
 * running.
 * Return: 0: the probed function always goes on.
 */
int kretprobe_hit(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct kretprobe_holder *rph = READ_ONCE(rp->rph);
	unsigned long *slot = krp_return_slot(regs);
	struct kretprobe_instance *ri;
	struct krp_binding *b;
	unsigned long *data;

	/* Being unregistered: pending returns would find nothing. */
	if (unlikely(!rph || !rcu_access_pointer(rph->rp)))
		return 0;
	b = container_of(rph, struct krp_binding, holder);

	if (unlikely(!krp_push((unsigned long)p->addr, slot,
			       krp_return_key(regs), b->words, &data))) {
		rp->nmissed++;
		return 0;
	}
	data[0] = b->id;
	ri = krp_instance(data);
	ri->rph = rph;
	ri->ret_addr = NULL;
	ri->fp = krp_return_key(regs);

	if (rp->entry_handler && rp->entry_handler(ri, regs)) {
		fgraph_direct_done_at(slot, false);
		return 0;
	}
	krp_hook(slot);
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_hit);

/*
 * fgraph's return callback of our frames: @data and @words are the
 * frame's, @fregs the registers of the return with the instruction
 * pointer on the real return address.  Runs with preemption disabled.
 */
static void krp_return(unsigned long func, unsigned long *data,
		       unsigned int words, struct ftrace_regs *fregs)
{
	struct kretprobe_instance *ri = krp_instance(data);
	struct kretprobe *rp;
	struct pt_regs *regs;

	rp = krp_return_probe(data, words);
	if (!rp)
		return;
	ri->ret_addr = (kprobe_opcode_t *)ftrace_regs_get_instruction_pointer(fregs);
	regs = krp_return_regs(fregs);
	krp_call_handler(rp, ri, regs);
	krp_return_regs_done(fregs, regs);
}

NOKPROBE_SYMBOL(krp_return);

#ifdef FGRAPH_HAVE_KRETPROBE_HANDLER
/* kretprobe_return_handler's registers as fgraph's return path takes them. */
static __always_inline struct ftrace_regs *krp_fregs(struct pt_regs *regs)
{
	return (struct ftrace_regs *)container_of(regs, struct __arch_ftrace_regs,
						  regs);
}

/**
 * kretprobe_return - the return of a call kretprobe_hit() hooked
 * @regs: the registers kretprobe_return_handler saved (ip 0); the hooked
 *	  return-address slot is the word right above them
 *
 * The top frame of the task's shadow stack is the one kretprobe_hit()
 * pushed for this call: frames pushed since have been popped.  The common
 * frame (ours, of this registration, with the real return address saved)
 * is read here: its address goes into regs->ip and into the slot, so an
 * unwind from the handler reads the caller there; the handler runs with
 * the frame still on the shadow stack, where its instance and entry data
 * are, and then the frame is popped.  Any other top goes to
 * ftrace_return_to_handler(), which handles it as the generic return path
 * does (a slot hooked twice, a frame of an earlier registration, a
 * corrupt stack) and calls krp_return() for a frame of ours; what it
 * returns goes into the slot.  kretprobe_return_handler returns through
 * the slot.
 *
 * Context: kretprobe_return_handler, any context.
 */
__visible void kretprobe_return(struct pt_regs *regs)
{
	unsigned long *slot = (unsigned long *)(regs + 1);
	struct task_struct *t = current;
	unsigned long *ws = t->ret_stack;
	unsigned int state = READ_ONCE(t->curr_ret_stack);
	unsigned int base = fg_base(state), top = fg_top(state);
	/* The data words, if the top frame holds one record. */
	unsigned int words = top - base - (FGRAPH_FRAME_MIN + 1);
	struct kretprobe_instance *ri;
	unsigned long *f, link, ret;
	struct kretprobe *rp;

	/*
	 * Every word of such a frame in the page: its top, and data a frame
	 * may hold below it.  A base among the task vars only reads words
	 * of the page, and no such frame passes the link and record tests.
	 */
	if (unlikely(!ws || top > FGRAPH_STACK_WORDS ||
		     words - 1 >= FGRAPH_DIRECT_MAX_WORDS))
		goto general;
	f = &ws[base];
	link = f[FGRAPH_HDR_WORDS];
	/*
	 * A direct frame whose link names a state with its top at our base
	 * (the link's bits above the state's are FG_LINK_DIRECT alone), and
	 * one record of ours covering exactly the data.
	 */
	if (unlikely(link >> FG_TOP_SHIFT !=
		     base + (FG_LINK_DIRECT >> FG_TOP_SHIFT) ||
		     ws[top - 1] != (READ_ONCE(krp_rec_key) |
				     (unsigned long)words << FG_REC_SIZE_SHIFT)))
		goto general;
	ret = fg_hdr(ws, base)->ret;
	/* Hooked twice (the other hook's frame is below ours): rare. */
	if (unlikely(fgraph_is_hook(ret)))
		goto general;

	regs->ip = ret;
	*slot = ret;
	preempt_disable_notrace();
	rp = krp_return_probe(&f[FGRAPH_HDR_WORDS + 1], words);
	if (rp) {
		ri = krp_instance(&f[FGRAPH_HDR_WORDS + 1]);
		ri->ret_addr = (kprobe_opcode_t *)ret;
		krp_call_handler(rp, ri, regs);
	}
	preempt_enable_notrace();
	/* Pop: back to the state the link saved. */
	barrier();
	WRITE_ONCE(t->curr_ret_stack, link & ~FG_LINK_DIRECT);
	return;
general:
	*slot = ftrace_return_to_handler(krp_fregs(regs));
}

NOKPROBE_SYMBOL(kretprobe_return);
#endif

/* ---- registration ------------------------------------------------------- */

static struct krp_binding *krp_binding_of(struct kretprobe *rp)
{
	return rp->rph ? container_of(rp->rph, struct krp_binding, holder) : NULL;
}

/* Make the table hold @slot; a replaced table goes after a grace period. */
static int krp_table_fit(unsigned int slot)
{
	struct krp_table *old = krp_locked(krp_live);
	unsigned int size = old ? old->size : 0;
	struct krp_table *new;
	unsigned int i, n;

	if (slot < size)
		return 0;
	n = max3(2 * size, slot + 1, (unsigned int)KRP_TABLE_MIN);
	new = kvzalloc(struct_size(new, slot, n), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->size = n;
	for (i = 0; i < size; i++)
		RCU_INIT_POINTER(new->slot[i], krp_locked(old->slot[i]));
	rcu_assign_pointer(krp_live, new);
	if (old)
		kvfree_rcu(old, rcu);
	return 0;
}

/**
 * kretprobe_pool_create - bind a return probe to this backend
 * @rp: the probe, with data_size set
 *
 * Gives @rp an id its frames carry and a holder for get_kretprobe(), and
 * registers the fgraph user for the first one.  No instance is allocated:
 * they live on the shadow stacks.
 *
 * Context: process context; may sleep.
 * Return: 0; -E2BIG if data_size does not fit in a frame; -ENOMEM; -ENOSPC
 * if no id is left; or an error of register_fgraph_direct() (-ENOSPC when
 * fgraph's user slots are all taken).  @rp->rph is NULL on error.
 */
int kretprobe_pool_create(struct kretprobe *rp)
{
	struct krp_binding *b;
	int slot, ret;

	rp->rph = NULL;
	if (rp->data_size > KRP_DATA_MAX)
		return -E2BIG;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->words = KRP_WORDS(rp->data_size);
	RCU_INIT_POINTER(b->holder.rp, rp);

	mutex_lock(&krp_mutex);
	slot = ida_alloc_max(&krp_slots, KRP_SLOT_MASK, GFP_KERNEL);
	if (slot < 0) {
		ret = slot;
		goto out_free;
	}
	ret = krp_table_fit(slot);
	if (ret)
		goto out_slot;
	if (!krp_bound) {
		ret = register_fgraph_direct(&krp_gops, krp_return);
		if (ret)
			goto out_slot;
#ifdef FGRAPH_HAVE_KRETPROBE_HANDLER
		/* Before any kprobe of ours is armed with it. */
		WRITE_ONCE(krp_rec_key, fgraph_direct_key(&krp_gops));
#endif
	}
	krp_bound++;
	b->id = (++krp_gen << KRP_SLOT_BITS) | slot;
	rcu_assign_pointer(krp_locked(krp_live)->slot[slot], b);
	mutex_unlock(&krp_mutex);
	rp->rph = &b->holder;
	return 0;

out_slot:
	ida_free(&krp_slots, slot);
out_free:
	mutex_unlock(&krp_mutex);
	kfree(b);
	return ret;
}

/**
 * kretprobe_pool_detach - cut pending returns off a return probe
 * @rp: the probe, out of the kprobe table
 *
 * From now on its returns find no binding and run nothing, and a hit
 * still running pushes no frame; get_kretprobe() of its instances is
 * NULL.  The binding stays valid until kretprobe_pool_release().
 *
 * Context: process context, kprobe_mutex held, before the
 * unregistration's grace period.
 */
void kretprobe_pool_detach(struct kretprobe *rp)
{
	struct krp_binding *b = krp_binding_of(rp);
	struct krp_table *table;

	if (!b)
		return;
	RCU_INIT_POINTER(b->holder.rp, NULL);
	mutex_lock(&krp_mutex);
	table = krp_locked(krp_live);
	RCU_INIT_POINTER(table->slot[b->id & KRP_SLOT_MASK], NULL);
	mutex_unlock(&krp_mutex);
}

/**
 * kretprobe_pool_release - free a detached return probe's binding
 * @rp: the probe, after the grace period (or never hit)
 *
 * Unregisters the fgraph user with the last binding; frames still on
 * the shadow stacks then return without a call.
 *
 * Context: process context; may sleep.
 */
void kretprobe_pool_release(struct kretprobe *rp)
{
	struct krp_binding *b = krp_binding_of(rp);

	if (!b)
		return;
	rp->rph = NULL;
	mutex_lock(&krp_mutex);
	ida_free(&krp_slots, b->id & KRP_SLOT_MASK);
	if (!--krp_bound)
		unregister_ftrace_graph(&krp_gops);
	mutex_unlock(&krp_mutex);
	kfree(b);
}

/* ---- what <linux/kprobes.h> wants without rethook --------------------- */

/**
 * kprobe_flush_task - forget the return probes of a dead task
 * @tk: the task, no longer running
 *
 * Nothing to do: its instances were on its shadow stack, which goes with
 * the task.
 */
void kprobe_flush_task(struct task_struct *tk)
{
}

/**
 * kretprobe_find_ret_addr - the real return address behind the kretprobe
 *			     trampoline
 * @tsk: the task being unwound
 * @fp: the frame pointer of the hooked frame
 * @cur: the unwinder's cursor, unused
 *
 * No return is hooked to __kretprobe_trampoline here: hooked slots hold
 * return_to_handler, which unwinders resolve with ftrace_graph_ret_addr().
 *
 * Return: 0, nothing found.
 */
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur)
{
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_find_ret_addr);

/**
 * __kretprobe_trampoline_handler - the arch trampoline's handler
 * @regs: the trampoline's frame
 * @frame_pointer: the frame pointer of the hooked frame
 *
 * An arch with a kretprobe trampoline of its own (arm64) still links a
 * call to this, but no return goes there any more: reaching it means a
 * stray jump, and there is no address to go back to.
 *
 * Return: never.
 */
unsigned long __kretprobe_trampoline_handler(struct pt_regs *regs,
					     void *frame_pointer)
{
	panic("kretprobe trampoline reached at %pS with no return hooked there\n",
	      (void *)instruction_pointer(regs));
}

NOKPROBE_SYMBOL(__kretprobe_trampoline_handler);

/*
 * is_kretprobe_trampoline() compares with this address, so it must exist;
 * an arch with its own trampoline (arm64) overrides it.  Nothing calls or
 * returns to it.
 */
void __weak __kretprobe_trampoline(void)
{
	WARN_ONCE(1, "kprobes: %s() called\n", __func__);
}
