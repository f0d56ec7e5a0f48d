// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 side of the function hooks: what a call site holds, the call slots
 * of the shared callers, per-ops trampolines and the function-graph hook.
 * Whole updates of many sites are batched in ftrace_batch.c.
 *
 * A call site is the 5 bytes gcc emitted as "call __fentry__" at a
 * function's entry (MCOUNT_INSN_SIZE, no ENDBR in front here).  The core
 * turns them into the 5-byte NOP at boot or module load; from then on a
 * site holds that NOP or "call <target>".
 *
 * Locking and safety:
 *  - A site is only rewritten after checking it holds exactly what the
 *    record says it holds; on a mismatch the write is refused with -EINVAL
 *    and ftrace_expected points at what was expected, for ftrace_bug().
 *  - Boot NOPing (old target MCOUNT_ADDR) writes with text_poke_early():
 *    vmlinux sites before SMP with interrupts off, module sites while the
 *    module is still being formed and cannot run.
 *  - Every other write goes to live text, holds text_mutex and uses
 *    text_poke_bp()/text_poke_queue().  Their int3 handler runs first in
 *    the trap and calls nothing traceable, so they suit any site, including
 *    ftrace_call and trampolines, which every traced function may reach
 *    from inside an int3 trap.
 *
 * Trampolines (FTRACE_OPS_FL_ALLOC_TRAMP):
 *  - A copy of ftrace_regs_caller (ops with SAVE_REGS) or ftrace_caller
 *    (the others) up to its *_end label, with the ops as an immediate in
 *    place of the function_trace_op load and the call slot aimed at the
 *    function the core hands in (ftrace_arch_tramp_update()).  Same size
 *    and layout as the template: the ORC unwinder looks a trampoline's
 *    unwind data up at the same offset in the template, chosen by the same
 *    SAVE_REGS test.
 *  - Made when the ops is registered (ftrace_lock held), retargeted with
 *    text_poke_bp() when the core hands in another function, freed once
 *    the core made sure no site calls it and no task runs in it.  What the
 *    call slot holds is only ever what the core handed in last.
 */

#define pr_fmt(fmt) "ftrace: " fmt

#include <linux/execmem.h>
#include <linux/ftrace.h>
#include <linux/ftrace_tramp.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/set_memory.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/workqueue.h>

#include <asm/ftrace.h>
#include <asm/ibt.h>
#include <asm/nops.h>
#include <asm/text-patching.h>

/*
 * Without CONFIG_DYNAMIC_FTRACE nothing is patched: __fentry__ itself is
 * the hook (ftrace_64.S), and only the graph hook below may be built.
 */
#ifdef CONFIG_DYNAMIC_FTRACE

/* ---- the instruction at a call site ------------------------------------ */

/* The site's instruction when it calls @target (0: the NOP). */
static void site_insn(u8 *insn, unsigned long ip, unsigned long target)
{
	if (!target) {
		memcpy(insn, x86_nops[MCOUNT_INSN_SIZE], MCOUNT_INSN_SIZE);
		return;
	}
	__text_gen_insn(insn, CALL_INSN_OPCODE, (void *)ip, (void *)target,
			CALL_INSN_SIZE);
}

/* What ftrace_bug() prints as "expected" after a refused write. */
static u8 site_expected[MCOUNT_INSN_SIZE];

/* Does the site at @ip hold @expect?  0, -EFAULT or -EINVAL. */
static int site_check(unsigned long ip, const u8 *expect)
{
	u8 cur[MCOUNT_INSN_SIZE];

	if (copy_from_kernel_nofault(cur, (void *)ip, MCOUNT_INSN_SIZE))
		return -EFAULT;
	if (!memcmp(cur, expect, MCOUNT_INSN_SIZE))
		return 0;
	memcpy(site_expected, expect, MCOUNT_INSN_SIZE);
	ftrace_expected = site_expected;
	return -EINVAL;
}

/*
 * A site nothing can execute yet: vmlinux before SMP, or a module not yet
 * formed.  __ref: text_poke_early() is init text without modules, and is
 * only reached from boot then.
 */
static int __ref site_write_quiet(unsigned long ip, const u8 *old,
				  const u8 *new)
{
	int err = site_check(ip, old);

	if (err)
		return err;
	text_poke_early((void *)ip, new, MCOUNT_INSN_SIZE);
	return 0;
}

static int site_write_live(unsigned long ip, const u8 *old, const u8 *new)
{
	int err;

	lockdep_assert_held(&text_mutex);
	err = site_check(ip, old);
	if (err)
		return err;
	text_poke_bp((void *)ip, new, MCOUNT_INSN_SIZE, NULL);
	return 0;
}

/**
 * ftrace_make_nop - turn a call site into the NOP
 * @mod: the module being loaded, or NULL
 * @rec: the site
 * @addr: what it calls now; MCOUNT_ADDR for the compiler's call
 *
 * With @addr MCOUNT_ADDR the site cannot be running (boot before SMP, or
 * a module being formed) and is written directly.  Otherwise it is live
 * text: the caller holds text_mutex (ftrace_arch_code_modify_prepare()).
 *
 * Return: 0, -EFAULT if the site cannot be read, -EINVAL if it does not
 * call @addr.
 */
int ftrace_make_nop(struct module *mod, struct dyn_ftrace *rec,
		    unsigned long addr)
{
	u8 old[MCOUNT_INSN_SIZE], new[MCOUNT_INSN_SIZE];

	site_insn(old, rec->ip, addr);
	site_insn(new, rec->ip, 0);
	if (addr == MCOUNT_ADDR)
		return site_write_quiet(rec->ip, old, new);
	return site_write_live(rec->ip, old, new);
}

/**
 * ftrace_make_call - turn a NOPed call site into a call
 * @rec: the site
 * @addr: the target
 *
 * Context: text_mutex held.  Updates of many sites use
 * ftrace_replace_code() instead.
 * Return: 0, -EFAULT, or -EINVAL if the site is not the NOP.
 */
int ftrace_make_call(struct dyn_ftrace *rec, unsigned long addr)
{
	u8 old[MCOUNT_INSN_SIZE], new[MCOUNT_INSN_SIZE];

	site_insn(old, rec->ip, 0);
	site_insn(new, rec->ip, addr);
	return site_write_live(rec->ip, old, new);
}

/**
 * ftrace_modify_call - retarget the call at a call site
 * @rec: the site
 * @old_addr: what it calls now
 * @addr: what it should call
 *
 * Context: text_mutex held.
 * Return: 0, -EFAULT, or -EINVAL if the site does not call @old_addr.
 */
int ftrace_modify_call(struct dyn_ftrace *rec, unsigned long old_addr,
		       unsigned long addr)
{
	u8 old[MCOUNT_INSN_SIZE], new[MCOUNT_INSN_SIZE];

	site_insn(old, rec->ip, old_addr);
	site_insn(new, rec->ip, addr);
	return site_write_live(rec->ip, old, new);
}

/* ---- the update hooks of the core --------------------------------------- */

/**
 * ftrace_arch_entry_site - where the call site of a function should be
 * @ip: the first byte of a function
 *
 * With IBT a function starts with ENDBR and its "call __fentry__" follows;
 * without, the call is the first instruction.  The core checks that a call
 * site really is there.
 *
 * Return: @ip + ENDBR_INSN_SIZE after an ENDBR, else @ip.
 */
unsigned long ftrace_arch_entry_site(unsigned long ip)
{
	u32 insn;

	if (!IS_ENABLED(CONFIG_X86_KERNEL_IBT) ||
	    get_kernel_nofault(insn, (u32 *)ip) || !is_endbr(insn))
		return ip;
	return ip + ENDBR_INSN_SIZE;
}

/**
 * ftrace_arch_code_modify_prepare - take text_mutex for an update
 *
 * Module loading, static calls, jump labels and kprobes write kernel text
 * under text_mutex too, so nothing else changes text while we patch.
 */
void ftrace_arch_code_modify_prepare(void)
	__acquires(&text_mutex)
{
	mutex_lock(&text_mutex);
}

/**
 * ftrace_arch_code_modify_post_process - release text_mutex after an update
 */
void ftrace_arch_code_modify_post_process(void)
	__releases(&text_mutex)
{
	/* Nothing may stay queued past the lock; finishing an empty queue is free. */
	text_poke_finish();
	mutex_unlock(&text_mutex);
}

/* Queue "call @func" into the call slot at @slot; 0 or -EINVAL. */
static int caller_slot_queue(void *slot, void *func)
{
	u8 insn[CALL_INSN_SIZE];

	if (WARN_ON_ONCE(*(u8 *)slot != CALL_INSN_OPCODE))
		return -EINVAL;
	__text_gen_insn(insn, CALL_INSN_OPCODE, slot, func, CALL_INSN_SIZE);
	if (!memcmp(slot, insn, CALL_INSN_SIZE))
		return 0;
	text_poke_queue(slot, insn, CALL_INSN_SIZE, NULL);
	return 0;
}

/**
 * ftrace_update_ftrace_func - retarget the shared callers
 * @func: what ftrace_call and ftrace_regs_call should call
 *
 * Both slots change in one int3 batch.
 *
 * Context: text_mutex held (from ftrace_modify_all_code()).
 * Return: 0, or -EINVAL if a slot does not hold a call.
 */
int ftrace_update_ftrace_func(ftrace_func_t func)
{
	int err;

	err = caller_slot_queue((void *)ftrace_call, (void *)func);
	if (!err)
		err = caller_slot_queue((void *)ftrace_regs_call, (void *)func);
	text_poke_finish();
	return err;
}

/* ---- trampolines --------------------------------------------------------- */

/* ftrace_64.S finds the preemption counter one word after current_task. */
#ifdef CONFIG_PREEMPTION
static_assert(offsetof(struct pcpu_hot, preempt_count) ==
	      offsetof(struct pcpu_hot, current_task) + 8);
#endif

/* Labels in ftrace_64.S, declared nowhere else. */
extern const u8 ftrace_caller_op_ref[], ftrace_caller_end[];
extern const u8 ftrace_regs_caller_op_ref[], ftrace_regs_caller_end[];

/* "movq disp32(%rip), %rdx" behind three DS prefixes in the template ... */
static const u8 tramp_op_template[] = { 0x3e, 0x3e, 0x3e, 0x48, 0x8b, 0x15 };
/* ... becomes "movabs $ops, %rdx" in a trampoline. */
static const u8 tramp_op_movabs[] = { 0x48, 0xba };
#define TRAMP_OP_LEN		10	/* both forms are this long */
static_assert(sizeof(tramp_op_movabs) + sizeof(long) == TRAMP_OP_LEN);

/* Where the pieces of a template are. */
struct tramp_layout {
	const u8	*start;
	const u8	*end;
	const u8	*op_ref;
	const u8	*call;
};

/* Must pick the template exactly as orc_ftrace_find() does. */
static void tramp_layout_of(const struct ftrace_ops *ops,
			    struct tramp_layout *t)
{
	if (ops->flags & FTRACE_OPS_FL_SAVE_REGS) {
		t->start = (const u8 *)ftrace_regs_caller;
		t->end = ftrace_regs_caller_end;
		t->op_ref = ftrace_regs_caller_op_ref;
		t->call = (const u8 *)ftrace_regs_call;
	} else {
		t->start = (const u8 *)ftrace_caller;
		t->end = ftrace_caller_end;
		t->op_ref = ftrace_caller_op_ref;
		t->call = (const u8 *)ftrace_call;
	}
}

/* The template's ops load and call slot look as the copy code expects. */
static bool tramp_template_ok(const struct tramp_layout *t)
{
	const u8 *op = t->op_ref;

	if (memcmp(op, tramp_op_template, sizeof(tramp_op_template)))
		return false;
	return *t->call == CALL_INSN_OPCODE && t->call >= op + TRAMP_OP_LEN &&
	       t->call + CALL_INSN_SIZE <= t->end;
}

/* Fill @tramp (writable, not executable yet) for @ops, calling @func. */
static void tramp_fill(u8 *tramp, const struct tramp_layout *t,
		       struct ftrace_ops *ops, ftrace_func_t func)
{
	size_t size = t->end - t->start;
	u8 *op = tramp + (t->op_ref - t->start);
	u8 *call = tramp + (t->call - t->start);

	memcpy(tramp, t->start, size);

	/* Before relocating: an absolute operand needs no fix-up. */
	memcpy(op, tramp_op_movabs, sizeof(tramp_op_movabs));
	put_unaligned((unsigned long)ops,
		      (unsigned long *)(op + sizeof(tramp_op_movabs)));

	/* rel32 branches and calls leaving the template must still reach. */
	text_poke_apply_relocation(tramp, tramp, size, (u8 *)t->start, size);

	/* After relocating, which would "fix" this call once more. */
	__text_gen_insn(call, CALL_INSN_OPCODE, call, func, CALL_INSN_SIZE);
}

static void tramp_create(struct ftrace_ops *ops, ftrace_func_t func)
{
	struct tramp_layout t;
	unsigned int size;
	u8 *tramp;

	tramp_layout_of(ops, &t);
	if (WARN_ONCE(!tramp_template_ok(&t), "unexpected ftrace caller template\n"))
		return;

	size = t.end - t.start;
	tramp = execmem_alloc(EXECMEM_FTRACE, size);
	if (!tramp)
		return;
	tramp_fill(tramp, &t, ops, func);
	if (set_memory_rox((unsigned long)tramp, DIV_ROUND_UP(size, PAGE_SIZE))) {
		execmem_free(tramp);
		return;
	}

	ops->trampoline = (unsigned long)tramp;
	ops->trampoline_size = size;
	ops->flags |= FTRACE_OPS_FL_ALLOC_TRAMP;
}

/* The call slot of @ops' trampoline. */
static u8 *tramp_call_slot(const struct ftrace_ops *ops)
{
	struct tramp_layout t;

	tramp_layout_of(ops, &t);
	return (u8 *)ops->trampoline + (t.call - t.start);
}

/* The trampoline may be running: go through an int3 batch. */
static void tramp_retarget(struct ftrace_ops *ops, ftrace_func_t func)
{
	u8 *slot = tramp_call_slot(ops);
	u8 insn[CALL_INSN_SIZE];

	__text_gen_insn(insn, CALL_INSN_OPCODE, slot, func, CALL_INSN_SIZE);
	mutex_lock(&text_mutex);
	if (memcmp(slot, insn, CALL_INSN_SIZE))
		text_poke_bp(slot, insn, CALL_INSN_SIZE, NULL);
	mutex_unlock(&text_mutex);
}

/**
 * ftrace_arch_tramp_update - give @ops a trampoline, or retarget it
 * @ops: an ops being registered or removed, or whose function changed
 * @func: what the trampoline should call: the ops' function as the core
 *	  wraps it, or ftrace_stub while @ops is being removed
 *
 * An ops without a trampoline gets one calling @func (left without on
 * failure: the core then sends its sites to the shared callers).  A
 * trampoline we made is pointed at @func; one the owner supplied is left
 * alone.  Direct-call ops never run through a trampoline of their own.
 *
 * Context: ftrace_lock held, text_mutex not held; may sleep.
 */
void ftrace_arch_tramp_update(struct ftrace_ops *ops, ftrace_func_t func)
{
	if (!ops->trampoline) {
		if (!(ops->flags & FTRACE_OPS_FL_DIRECT))
			tramp_create(ops, func);
		return;
	}
	if (ops->flags & FTRACE_OPS_FL_ALLOC_TRAMP)
		tramp_retarget(ops, func);
}

/*
 * A retired trampoline: no site calls it and its slot calls nothing of the
 * ops, but a task may still be preempted inside it until every task passed
 * a voluntary switch.  Freed from a work item (execmem_free() may sleep).
 */
struct tramp_dead {
	union {
		struct rcu_head		rcu;
		struct work_struct	work;
	};
	void			*text;
};

static void tramp_dead_work(struct work_struct *work)
{
	struct tramp_dead *dead = container_of(work, struct tramp_dead, work);

	execmem_free(dead->text);
	kfree(dead);
}

static void tramp_dead_rcu(struct rcu_head *rcu)
{
	struct tramp_dead *dead = container_of(rcu, struct tramp_dead, rcu);

	INIT_WORK(&dead->work, tramp_dead_work);
	schedule_work(&dead->work);
}

/**
 * arch_ftrace_trampoline_free - free a trampoline ftrace_arch_tramp_update() made
 * @ops: the ops; no site calls its trampoline, nor the trampoline its function
 *
 * The text itself goes after an RCU-tasks grace period, without waiting
 * here: a task may still be preempted inside it.
 *
 * Context: ftrace_lock held; may sleep.
 */
void arch_ftrace_trampoline_free(struct ftrace_ops *ops)
{
	struct tramp_dead *dead;

	if (!ops || !(ops->flags & FTRACE_OPS_FL_ALLOC_TRAMP))
		return;
	dead = kmalloc(sizeof(*dead), GFP_KERNEL);
	if (dead) {
		dead->text = (void *)ops->trampoline;
		call_rcu_tasks(&dead->rcu, tramp_dead_rcu);
	} else {
		synchronize_rcu_tasks();
		execmem_free((void *)ops->trampoline);
	}
	ops->trampoline = 0;
	ops->trampoline_size = 0;
	ops->flags &= ~FTRACE_OPS_FL_ALLOC_TRAMP;
}

/**
 * set_ftrace_ops_ro - make the trampolines of registered ops read-only
 *
 * Trampolines are read-only and executable from the start; this keeps
 * them so when mark_rodata_ro() runs.
 *
 * Context: boot, from mark_rodata_ro(), before anything can unregister.
 */
void set_ftrace_ops_ro(void)
{
	struct ftrace_ops *op;

	for (op = rcu_dereference_raw(ftrace_ops_list);
	     op && op != &ftrace_list_end; op = rcu_dereference_raw(op->next)) {
		if (!(op->flags & FTRACE_OPS_FL_ALLOC_TRAMP))
			continue;
		if (set_memory_ro(op->trampoline,
				  DIV_ROUND_UP(op->trampoline_size, PAGE_SIZE)))
			pr_warn("trampoline %pS stays writable\n",
				(void *)op->trampoline);
	}
}

#endif /* CONFIG_DYNAMIC_FTRACE */

/* ---- function graph ------------------------------------------------------ */

#ifdef CONFIG_FUNCTION_GRAPH_TRACER

/*
 * May a return be hooked here and now?  Not on a stack below the kernel's
 * half of the address space (a CPU still coming up in real mode on
 * resume), not after ftrace_graph_stop(), not while this task paused it.
 */
static __always_inline bool fgraph_may_hook(void)
{
	if ((long)__builtin_frame_address(0) >= 0)
		return false;
	return !ftrace_graph_is_dead() &&
	       !atomic_read(&current->tracing_graph_pause);
}

/*
 * Hook the return of the function at @ip, whose return address is in @slot:
 * once fgraph accepted the entry, the slot sends it to return_to_handler.
 */
static void fgraph_hook_return(unsigned long ip, unsigned long *slot,
			       unsigned long frame_pointer,
			       struct ftrace_regs *fregs)
{
	unsigned long ret = *slot;
	int bit, refused;

	if (unlikely(!fgraph_may_hook()))
		return;
	bit = ftrace_test_recursion_trylock(ip, ret);
	if (bit < 0)
		return;
	refused = function_graph_enter_regs(ret, ip, frame_pointer, slot, fregs);
	ftrace_test_recursion_unlock(bit);
	if (!refused)
		*slot = (unsigned long)return_to_handler;
}

/*
 * Between the push of a frame for the traced call and the hook of its
 * slot no return probe may push one of its own (kernel/trace/fgraph.c).
 */
NOKPROBE_SYMBOL(fgraph_hook_return);

/**
 * prepare_ftrace_return - hook a function's return without a register frame
 * @ip: the traced function's call site
 * @parent: the slot holding its return address
 * @frame_pointer: the frame pointer at entry, or 0
 */
void prepare_ftrace_return(unsigned long ip, unsigned long *parent,
			   unsigned long frame_pointer)
{
	fgraph_hook_return(ip, parent, frame_pointer, NULL);
}

NOKPROBE_SYMBOL(prepare_ftrace_return);

#ifdef CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS
/**
 * ftrace_graph_func - the callback of the function-graph manager ops
 * @ip: the traced function's call site
 * @parent_ip: its return address
 * @op: the manager ops
 * @fregs: the frame; its sp is the traced function's entry stack pointer,
 *	   which points at the return-address slot
 */
void ftrace_graph_func(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	unsigned long *slot = (unsigned long *)ftrace_regs_get_stack_pointer(fregs);

	fgraph_hook_return(ip, slot, 0, fregs);
}

NOKPROBE_SYMBOL(ftrace_graph_func);
#endif

#endif /* CONFIG_FUNCTION_GRAPH_TRACER */
