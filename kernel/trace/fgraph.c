// SPDX-License-Identifier: GPL-2.0
/*
 * Function graph: callbacks on the entry *and* the return of traced
 * functions, for up to FGRAPH_ARRAY_SIZE users (struct fgraph_ops) at once.
 *
 * How it sits on the function-hook core: one manager ops, graph_ops, whose
 * func is the arch's ftrace_graph_func(); the ops embedded in each
 * fgraph_ops is a subop of it (ftrace_startup_subops()), so a call site
 * calls graph_ops when any user's filter selects it.  The arch code then
 * calls function_graph_enter_regs(), which pushes a frame on the task's
 * shadow stack and runs the entry callback of every user whose own filter
 * selects the function; if one of them wants the return, the arch code
 * replaces the return address with return_to_handler, which later calls
 * ftrace_return_to_handler() to run the return callbacks, pop the frame and
 * get the real return address back.
 *
 * The shadow stack: an array of FGRAPH_STACK_WORDS longs per task
 * (task->ret_stack), allocated for every task when the first user
 * registers, at fork while any user is registered, and freed when the task
 * is freed.  Stacks outlive their users: a task may sleep in a traced
 * function across unregistering and registering again.
 *
 *   ws[0 .. FGRAPH_ARRAY_SIZE)	one word per user slot, fgraph_get_task_var()
 *   ws[FGRAPH_FIRST_WORD ..)	frames, growing upwards
 *
 * A frame at word @base:
 *
 *   ws[base .. base + H)	struct ftrace_ret_stack (H = FGRAPH_HDR_WORDS)
 *   ws[base + H]		link: the stack state before this frame was pushed
 *   ws[base + H + 1 .. top)	one chunk per user that accepted the call, in
 *				the order they ran: the user's reserved data
 *				(0..FGRAPH_MAX_DATA_WORDS words), then its
 *				record word (slot, registration key, size)
 *
 * The stack state: task->curr_ret_stack packs two word indexes into one
 * int, @top (first free word) and @base (the top frame, 0 when the stack
 * holds no frame).  Every change of the stack is a single store of that
 * int.  The invariant, true at every instruction even while interrupts and
 * NMIs push and pop frames of their own on top, is "@base names a complete
 * frame (or none), and the words below @top belong to their owner":
 *
 *   - Words at or above @top are free; anything may scribble there.  An
 *     interrupt only writes at or above the @top it found, and puts
 *     curr_ret_stack back to exactly that value before it returns.
 *   - Words are claimed first (@top raised, @base kept) and written after;
 *     so no interrupt can overwrite what we then write.
 *   - A frame becomes visible only when @base is moved to it, after its
 *     header and link are written.  From then on, @base names a complete
 *     frame whose link names the complete frame below, down to an empty
 *     state: a walker (an unwinder in an NMI, the sched_switch probe, the
 *     profiler) may follow the chain from any state it reads.
 *   - Popping is storing the link back: one store drops the frame, its
 *     data and anything above.
 *   - A link always points at the word just below its own frame (its @top
 *     is the frame's @base); walkers check that, which bounds every walk
 *     and detects a corrupt stack.
 *
 * Users: slot i (fgraph_ops::idx) belongs to at most one registered user
 * at a time.  Each registration gets a key (slot and a generation number)
 * that its frame records carry; the return path calls a user only while
 * its slot still holds that key.  So a frame made for a user that has
 * unregistered since (and perhaps left its slot to another user) never
 * calls anyone.  The entry path walks a compact table of the registered
 * users (fg_live), not the slots: with one user, one filter test and one
 * callback per call.
 *
 * Direct users (register_fgraph_direct()) have no filter and no entry
 * callback: their own ftrace_ops callback decides at a call site whether
 * to hook the return, pushes a frame of its own with fgraph_direct_push()
 * (header, link, the user's data and record in one go) and then hooks the
 * return or drops the frame with fgraph_direct_done().  Such a frame is
 * popped like any other and calls the user's return callback through its
 * record; its link word carries FG_LINK_DIRECT, and it does not count in
 * curr_ret_depth, which stays the depth of the managed users' calls.  When
 * a function is hooked twice (a managed frame and a direct one, or two
 * direct ones), the upper frame saved a hook as its return address; the
 * return path then reports the address saved below it.
 *
 * A direct user may also push inline and hook the return to a trampoline
 * of its own (fprobe and return probes on x86-64, fgraph_frame.h): its
 * frames are ordinary direct frames, popped by its own return code.
 * Every such trampoline is permanent text listed in fgraph_is_hook(),
 * which the unwinder lookup and the real-return search use, so a pending
 * frame is translated correctly even after its user left.
 *
 * Files: this one holds what a traced call and its return run through
 * (entry, return, direct frames, per-call data), the walks of a task's
 * frames and the stop switch; fgraph_tasks.c gives tasks their stacks and
 * takes sleep time out of durations; fgraph_register.c registers users;
 * fgraph_users.h is what they share.
 *
 * Locking and lifetime:
 *  - ftrace_lock serialises registration, unregistration, the slots, the
 *    user tables, the pid switch and the start/stop of the per-task state.
 *  - The entry path runs with preemption disabled (the arch code holds the
 *    recursion lock); the return path disables preemption around the
 *    callbacks.  Unregistering clears the slot key, takes the user out of
 *    the table and then waits for synchronize_rcu_tasks_rude(): after that
 *    no callback of the user runs and none will.
 *  - A user is added to the live table in place (entries first, count
 *    last); removing builds the other table of the pair, publishes it and
 *    waits as above, after which the old table is unused until the next
 *    removal rewrites it.
 */
#include <linux/ftrace.h>
#include <linux/irq_work.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/trace_clock.h>
#include <linux/workqueue.h>

#include <asm/sections.h>

#include "ftrace_user.h"
#include "fgraph_internal.h"
#include "trace.h"

/* return_to_handler hands over the registers (the return value above all). */
#ifndef CONFIG_HAVE_FUNCTION_GRAPH_FREGS
# error "fgraph needs HAVE_FUNCTION_GRAPH_FREGS"
#endif

#include "fgraph_frame.h"
#include "fgraph_users.h"

DEFINE_STATIC_KEY_FALSE(kill_ftrace_graph);

/* Registered users; read by ftrace.c (sysctl) and fork. */
int ftrace_graph_active;

/* ---- users ------------------------------------------------------------ */

/*
 * Defined here, beside the entry and return paths that read them; written
 * by registration (fgraph_register.c).  See fgraph_users.h.
 */
struct fg_slot fg_slots[FGRAPH_ARRAY_SIZE];
struct fg_users fg_user_tables[2];
struct fg_users *fg_live __read_mostly = &fg_user_tables[0];

/* Set by ftrace_graph_stop(), in any context, before the static key. */
bool fgraph_killed __read_mostly;

/*
 * Registered users that read times (all but register_ftrace_graph_untimed()
 * ones).  While it is 0 no clock is read: frames get calltime 0, and a
 * frame with calltime 0 gets rettime 0 and no sleep-time shift.  It is
 * raised before the user enters the live table and lowered once no call
 * can see the user, so a frame carrying a timed user's record is timed.
 */
unsigned int fg_nr_timed __read_mostly;

/*
 * The only managed user (direct users do not count), registered while no
 * other one was: graph_ops then reaches exactly the sites its filter
 * selects, so the entry path need not test that filter again.  Cleared as
 * soon as a second one registers (before its sites are patched in) and
 * stays clear until the last managed user left:
 * ftrace_shutdown() of graph_ops then waits for every stale caller, where
 * taking out one of several subops does not.
 */
bool fg_one_filter __read_mostly;

/* The user of a record, or NULL if that registration is gone. */
static struct fgraph_ops *fg_rec_user(unsigned long rec)
{
	struct fg_slot *slot = &fg_slots[rec & FG_REC_SLOT_MASK];

	if (READ_ONCE(slot->key) != (rec & FG_REC_KEY_MASK))
		return NULL;
	return READ_ONCE(slot->gops);
}

/* ---- per-call data and task vars -------------------------------------- */

/**
 * fgraph_reserve_data - reserve per-call storage on the shadow stack
 * @idx: the caller's slot, fgraph_ops::idx
 * @size_bytes: bytes wanted, 1 to FGRAPH_MAX_DATA_SIZE
 *
 * For an entry callback: the storage belongs to this call of the traced
 * function and is handed back by fgraph_retrieve_data() in the user's
 * return callback for the same call.  If the entry callback returns 0 the
 * storage is dropped.  Once per entry callback.
 *
 * Context: the entry callback of the user owning @idx.
 * Return: the storage, long-aligned and rounded up to whole longs; NULL if
 * @size_bytes is out of range, if this is not called from that user's
 * entry callback or was called already, or if the shadow stack is full.
 */
void *fgraph_reserve_data(int idx, int size_bytes)
{
	struct task_struct *t = current;
	unsigned long *ws = t->ret_stack;
	unsigned int state, top, base, words;
	unsigned long rec;

	if (!ws || idx < 0 || idx >= FGRAPH_ARRAY_SIZE || size_bytes <= 0 ||
	    size_bytes > FGRAPH_MAX_DATA_SIZE)
		return NULL;

	/*
	 * The open record of this user must be the last word.  Only an
	 * entry callback of the user finds it: the key names this
	 * registration and is open only between fg_run_entry()'s push
	 * and its close.  The frame below it is the one being entered.
	 */
	state = READ_ONCE(t->curr_ret_stack);
	base = fg_base(state);
	top = fg_top(state);
	if (base < FGRAPH_FIRST_WORD || top <= fg_link_word(base) + 1)
		return NULL;
	rec = ws[top - 1];
	if (!(rec & FG_REC_OPEN) ||
	    (rec & FG_REC_KEY_MASK) != READ_ONCE(fg_slots[idx].key))
		return NULL;

	words = DIV_ROUND_UP(size_bytes, sizeof(long));
	if (top + words > FGRAPH_STACK_WORDS)
		return NULL;

	/* The record moves above the data, closed: no second reservation. */
	WRITE_ONCE(t->curr_ret_stack, fg_state(top + words, base));
	barrier();
	ws[top + words - 1] = (rec & FG_REC_KEY_MASK) |
			      (unsigned long)words << FG_REC_SIZE_SHIFT;
	return &ws[top - 1];
}

/**
 * fgraph_retrieve_data - get the storage fgraph_reserve_data() gave
 * @idx: the caller's slot, fgraph_ops::idx
 * @size_bytes: if not NULL, gets the size of the storage (whole longs)
 *
 * Context: the return callback of the user owning @idx.
 * Return: the storage reserved by the user's entry callback for the call
 * now returning, or NULL if it reserved none.
 */
void *fgraph_retrieve_data(int idx, int *size_bytes)
{
	struct task_struct *t = current;
	unsigned long *ws = t->ret_stack;
	unsigned int state, pos, link;

	if (!ws || idx < 0 || idx >= FGRAPH_ARRAY_SIZE)
		return NULL;
	/* The return path checked the top frame before calling back. */
	state = READ_ONCE(t->curr_ret_stack);
	if (fg_base(state) < FGRAPH_FIRST_WORD)
		return NULL;

	link = fg_link_word(fg_base(state));
	for (pos = fg_top(state); pos > link + 1; ) {
		unsigned long rec = ws[--pos];
		unsigned int words = fg_rec_words(rec);

		if (words > pos - link - 1)
			break;
		if ((rec & FG_REC_SLOT_MASK) == idx && words) {
			if (size_bytes)
				*size_bytes = words * sizeof(long);
			return &ws[pos - words];
		}
		pos -= words;
	}
	return NULL;
}

/**
 * fgraph_get_task_var - the current task's word for a user
 * @gops: a registered user
 *
 * Every task has one word per user slot, zeroed when the user registers
 * and private to it (trace.h keeps the graph filter state there).
 *
 * Context: a callback of @gops (the task then has a shadow stack).
 * Return: the address of the word.
 */
unsigned long *fgraph_get_task_var(struct fgraph_ops *gops)
{
	return &current->ret_stack[gops->idx];
}

/* ---- entry -------------------------------------------------------------- */

/**
 * ftrace_graph_entry_stub - an entry callback that wants nothing
 * @trace: the call
 * @gops: the user
 * @fregs: the registers at the traced function's entry, or NULL
 *
 * Return: 0, no return callback.
 */
int ftrace_graph_entry_stub(struct ftrace_graph_ent *trace,
			    struct fgraph_ops *gops, struct ftrace_regs *fregs)
{
	return 0;
}

/*
 * Run one user's entry callback on the frame just published.  Its record
 * goes on top first, open, so that fgraph_reserve_data() can find it; a
 * refusal drops it and whatever was reserved.  Returns 1 if the user wants
 * the return callback.
 */
static __always_inline int fg_run_entry(struct task_struct *t,
					unsigned long *ws,
					struct fgraph_ops *gops,
					unsigned long key,
					struct ftrace_graph_ent *trace,
					struct ftrace_regs *fregs)
{
	trace_func_graph_ent_t entry = READ_ONCE(gops->entryfunc);
	unsigned int before = READ_ONCE(t->curr_ret_stack);
	unsigned int pos = fg_top(before);

	if (unlikely(pos >= FGRAPH_STACK_WORDS))
		return 0;

	WRITE_ONCE(t->curr_ret_stack, fg_state(pos + 1, fg_base(before)));
	barrier();
	ws[pos] = key | FG_REC_OPEN;

	if (!entry(trace, gops, fregs)) {
		barrier();
		WRITE_ONCE(t->curr_ret_stack, before);
		return 0;
	}

	/* Still the last word: nothing reserved, so close it in place. */
	if (fg_top(READ_ONCE(t->curr_ret_stack)) == pos + 1)
		ws[pos] = key;
	return 1;
}

/**
 * function_graph_enter_regs - a traced function was entered
 * @ret: its return address
 * @func: its call-site address
 * @frame_pointer: the frame pointer, for arches that check it at return
 * @retp: where @ret sits on the stack
 * @fregs: the registers at the entry, or NULL
 *
 * Pushes a frame and runs the entry callback of every registered user
 * whose filter selects @func.  Users that return non-zero get their return
 * callback when the function returns, provided the caller then replaces
 * *@retp with return_to_handler.
 *
 * Context: with preemption disabled and the function recursion lock held
 * (the arch's ftrace_graph_func()), any context including NMI.
 * Return: 0 if the return must be hooked; -EBUSY (nothing pushed) if no
 * user wants it, the task has no shadow stack, the stack is full (counted
 * in task->trace_overrun) or the graph tracer was stopped.
 */
int function_graph_enter_regs(unsigned long ret, unsigned long func,
			      unsigned long frame_pointer, unsigned long *retp,
			      struct ftrace_regs *fregs)
{
	struct task_struct *t = current;
	struct ftrace_graph_ent trace;
	struct ftrace_ret_stack *hdr;
	struct fg_users *users;
	unsigned int before, base, nr, i;
	unsigned long *ws;
	int wanted = 0;

	ws = fg_stack_of(t);
	if (unlikely(!ws || READ_ONCE(fgraph_killed)))
		return -EBUSY;
	users = READ_ONCE(fg_live);
	/* Pairs with fg_users_add(): entries below nr are complete. */
	nr = smp_load_acquire(&users->nr);
	if (unlikely(!nr))
		return -EBUSY;

	before = READ_ONCE(t->curr_ret_stack);
	base = fg_top(before);
	if (unlikely(base + FGRAPH_FRAME_MIN + 1 > FGRAPH_STACK_WORDS)) {
		atomic_inc(&t->trace_overrun);
		return -EBUSY;
	}

	/* Deeper first: interrupts from here on nest below this call. */
	trace.func = func;
	trace.depth = ++t->curr_ret_depth;

	/* Claim the words; an interrupt from here on builds above them. */
	WRITE_ONCE(t->curr_ret_stack,
		   fg_state(base + FGRAPH_FRAME_MIN, fg_base(before)));
	barrier();
	hdr = fg_hdr(ws, base);
	hdr->ret = ret;
	hdr->func = func;
	hdr->retp = retp;
	/* After the load of nr: a timed user seen there was counted first. */
	hdr->calltime = READ_ONCE(fg_nr_timed) ? trace_clock_local() : 0;
#ifdef CONFIG_FUNCTION_PROFILER
	hdr->subtime = 0;
#endif
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	hdr->fp = frame_pointer;
#endif
	ws[fg_link_word(base)] = before;
	barrier();
	/* Publish: the frame is complete and walkers may see it. */
	WRITE_ONCE(t->curr_ret_stack, fg_state(base + FGRAPH_FRAME_MIN, base));

	/* Pairs with the site update that follows clearing fg_one_filter. */
	smp_rmb();
	if (READ_ONCE(fg_one_filter) && nr == 1)
		wanted = fg_run_entry(t, ws, READ_ONCE(users->gops[0]),
				      users->key[0], &trace, fregs);
	else
		for (i = 0; i < nr; i++) {
			struct fgraph_ops *gops = READ_ONCE(users->gops[i]);

			if (ftrace_ops_test(&gops->ops, func, NULL))
				wanted |= fg_run_entry(t, ws, gops,
						       users->key[i], &trace,
						       fregs);
		}
	if (likely(wanted))
		return 0;

	WRITE_ONCE(t->curr_ret_stack, before);
	barrier();
	t->curr_ret_depth--;
	return -EBUSY;
}

/*
 * No kprobe in what pushes or pops frames for calls other than its own:
 * a return probe there (CONFIG_KRETPROBE_ON_FGRAPH) would push its frame
 * between the one being pushed and its hook, or on top of the one being
 * popped, and the two returns would take each other's addresses.
 */
NOKPROBE_SYMBOL(function_graph_enter_regs);

/* ---- direct users ------------------------------------------------------- */

/* What fgraph_internal.h promises direct users. */
static_assert(FGRAPH_DIRECT_MAX_WORDS == FGRAPH_MAX_DATA_WORDS);

/*
 * The slot key of direct user @gops, or 0 if it left: the hit-path form
 * of fgraph_direct_key(), which finds the slot by a walk.
 */
static __always_inline unsigned long direct_user_key(struct fgraph_ops *gops)
{
	struct fg_slot *slot = &fg_slots[gops->idx & FG_REC_SLOT_MASK];
	unsigned long key = READ_ONCE(slot->key);

	if (unlikely(!key || READ_ONCE(slot->gops) != gops))
		return 0;
	return key;
}

/* Pop the frame a direct push just made on current's stack. */
static __always_inline void fgraph_direct_drop(void)
{
	struct task_struct *t = current;
	unsigned int base = fg_base(READ_ONCE(t->curr_ret_stack));

	barrier();
	WRITE_ONCE(t->curr_ret_stack, fg_below(t->ret_stack, base));
}

/**
 * fgraph_direct_push - push a direct user's frame for a call being entered
 * @gops: a user registered with register_fgraph_direct()
 * @func: the call site of the function entered
 * @fregs: the register frame of the call (ftrace_regs_return_slot() holds
 *	   its return address)
 * @words: words of data wanted, 1 to FGRAPH_MAX_DATA_WORDS
 *
 * Pushes, in one step, a frame whose only record is @gops' with @words of
 * data.  The caller fills the data, then calls fgraph_direct_done() with
 * the same @fregs before anything else can push on this task's stack but
 * interrupts (which leave it as they found it).  Until then the return is
 * not hooked.  When the hooked call returns, the user's return callback
 * gets the data back.
 *
 * Context: an ftrace_ops callback at @func's call site, preemption
 * disabled, the caller guarding against its own recursion.
 * Return: the data (@words longs, contents undefined), or NULL: the task
 * has no shadow stack or no room (counted in trace_overrun), graph tracing
 * is stopped or paused for the task, or @gops is not registered.
 */
unsigned long *fgraph_direct_push(struct fgraph_ops *gops, unsigned long func,
				  struct ftrace_regs *fregs,
				  unsigned int words)
{
	unsigned long key;

	if (unlikely(words - 1 >= FGRAPH_MAX_DATA_WORDS))
		return NULL;
	/* 0 if @gops left: no frame then. */
	key = direct_user_key(gops);
	if (unlikely(!key))
		return NULL;
	return fgraph_push_direct_frame(key, func, fregs, words);
}

NOKPROBE_SYMBOL(fgraph_direct_push);

/**
 * fgraph_direct_done - hook the return of a direct push, or drop it
 * @fregs: the register frame given to fgraph_direct_push()
 * @hook: true to hook the return (the return callback will run), false
 *	  to pop the frame again
 *
 * Context: right after a successful fgraph_direct_push(), same context.
 */
void fgraph_direct_done(struct ftrace_regs *fregs, bool hook)
{
	if (hook)
		fgraph_direct_hook(fregs);
	else
		fgraph_direct_drop();
}

NOKPROBE_SYMBOL(fgraph_direct_done);

/**
 * fgraph_direct_push_at - fgraph_direct_push() without the call's fregs
 * @gops: a user registered with register_fgraph_direct()
 * @func: the address the function was entered at
 * @slot: where the function's return address is until it returns: the
 *	  stack word at its entry (x86-64), or the saved link register of
 *	  the frame the caller resumes the function with (arm64)
 * @key: what unwinders know a hook of @slot by, the @retp that
 *	 ftrace_graph_ret_addr() gets: @slot itself on x86-64, the frame
 *	 pointer at the function's entry on arm64 (what
 *	 ftrace_regs_return_key() gives for a call site)
 * @words: words of data wanted, 1 to FGRAPH_DIRECT_MAX_WORDS
 *
 * For a user that enters from a kprobe on the function's first
 * instruction, breakpoint or call site, whose handler has a pt_regs and
 * no ftrace_regs.  The frame is that of fgraph_direct_push(), and so are
 * the rules: hook or drop it with fgraph_direct_done_at() on the same
 * @slot before anything but interrupts and calls that return (both leave
 * the stack as they found it) could push on this task's stack.
 *
 * Context: the function's entry, preemption disabled, the caller guarding
 * against its own recursion; any context, NMI included.
 * Return: the data, or NULL, as fgraph_direct_push(); NULL too when the
 * top frame is of a function entered after this one and still running
 * (a traced function on the way from the entry to here).
 */
unsigned long *fgraph_direct_push_at(struct fgraph_ops *gops,
				     unsigned long func, unsigned long *slot,
				     unsigned long *key, unsigned int words)
{
	unsigned long rkey, *ws;
	unsigned int top;

	if (unlikely(words - 1 >= FGRAPH_MAX_DATA_WORDS))
		return NULL;
	/* Not before the CPU has a kernel stack and a current of its own. */
	if (unlikely((long)current_stack_pointer >= 0))
		return NULL;
	rkey = direct_user_key(gops);
	if (unlikely(!rkey || fgraph_open_frame_below(key)))
		return NULL;
	top = __fgraph_push_direct_slot(rkey, func, slot, key, words, &ws);
	return top ? &ws[top - 1 - words] : NULL;
}

NOKPROBE_SYMBOL(fgraph_direct_push_at);

/**
 * fgraph_direct_done_at - hook the return of fgraph_direct_push_at(), or
 *			   drop its frame
 * @slot: the slot given to fgraph_direct_push_at()
 * @hook: true to hook the return (the return callback will run), false
 *	  to pop the frame again
 *
 * Context: right after a successful fgraph_direct_push_at(), same context.
 */
void fgraph_direct_done_at(unsigned long *slot, bool hook)
{
	if (hook)
		*slot = (unsigned long)
			dereference_kernel_function_descriptor(return_to_handler);
	else
		fgraph_direct_drop();
}

NOKPROBE_SYMBOL(fgraph_direct_done_at);

/* ---- return ------------------------------------------------------------- */

/*
 * The return of a direct user's frame at @state: its one record names the
 * user and the data below it.  No trace data, no depth.
 */
static __always_inline void fg_direct_return(unsigned long *ws,
					     unsigned int state,
					     struct ftrace_regs *fregs)
{
	unsigned int base = fg_base(state), top = fg_top(state);
	unsigned long rec = ws[top - 1];
	unsigned int words = fg_rec_words(rec);
	struct fg_slot *slot = &fg_slots[rec & FG_REC_SLOT_MASK];
	fgraph_direct_ret_t done;

	if (unlikely(top < fg_link_word(base) + 2 + words))
		return;
	/* The key is read with preemption off: see fg_wait_callbacks(). */
	preempt_disable_notrace();
	if (likely(READ_ONCE(slot->key) == (rec & FG_REC_KEY_MASK))) {
		done = READ_ONCE(slot->direct_ret);
		done(fg_hdr(ws, base)->func, &ws[top - 1 - words], words, fregs);
	}
	preempt_enable_notrace();
}

/**
 * fgraph_real_ret_below - the real return address under a doubled hook
 * @ws: a task's shadow stack
 * @base: a frame of it whose saved return address is a hook (the function
 *	  was hooked again after a first hook: two users, or a tail call)
 *
 * Context: the task is current, or does not run.
 * Return: what the first hook of the same slot saved, in a frame further
 * down; return_to_handler if no frame below has it.
 */
unsigned long fgraph_real_ret_below(unsigned long *ws, unsigned int base)
{
	unsigned long *retp = fg_hdr(ws, base)->retp;
	unsigned int state;

	state = fg_below(ws, base);
	while ((base = fg_frame_base(ws, state))) {
		struct ftrace_ret_stack *hdr = fg_hdr(ws, base);

		if (hdr->retp == retp && !fgraph_is_hook(hdr->ret))
			return hdr->ret;
		state = fg_below(ws, base);
	}
	return (unsigned long)dereference_kernel_function_descriptor(return_to_handler);
}

/*
 * The top frame is not a frame: nowhere is known to be safe to return to.
 * Stop graph tracing and send the task into panic() instead of into
 * whatever the corrupt stack would name.
 */
static unsigned long fg_corrupt(struct task_struct *t, unsigned int state)
{
	ftrace_graph_stop();
	WARN_ONCE(1, "fgraph: %s/%d returned through a corrupt shadow stack (state %#x)\n",
		  t->comm, t->pid, state);
	return (unsigned long)panic;
}

/* Return callbacks of the top frame's users, the last one to enter first. */
static void fg_run_returns(unsigned long *ws, unsigned int state,
			   struct ftrace_graph_ret *trace,
			   struct ftrace_regs *fregs)
{
	unsigned int link = fg_link_word(fg_base(state));
	unsigned int pos = fg_top(state);

	preempt_disable_notrace();
	while (pos > link + 1) {
		unsigned long rec = ws[--pos];
		unsigned int words = fg_rec_words(rec);
		struct fgraph_ops *gops = fg_rec_user(rec);
		trace_func_graph_ret_t done;

		if (gops) {
			done = READ_ONCE(gops->retfunc);
			done(trace, gops, fregs);
		}
		if (words > pos - link - 1)
			break;
		pos -= words;
	}
	preempt_enable_notrace();
}

/*
 * The return of a managed frame: the users' return callbacks get the
 * call's trace data; the depth drops.  Out of line, so that the direct
 * frames' path does not pay for its stack frame.
 */
static noinline void fg_managed_return(struct task_struct *t,
				       unsigned long *ws, unsigned int state,
				       struct ftrace_regs *fregs)
{
	struct ftrace_ret_stack *hdr = fg_hdr(ws, fg_base(state));
	struct ftrace_graph_ret trace;

	trace.func = hdr->func;
	trace.calltime = hdr->calltime;
	trace.depth = t->curr_ret_depth;
	trace.overrun = atomic_read(&t->trace_overrun);
#ifdef CONFIG_FUNCTION_GRAPH_RETVAL
	trace.retval = ftrace_regs_get_return_value(fregs);
#endif
	/* Untimed frames (no timed user at entry) stay untimed. */
	trace.rettime = trace.calltime ? trace_clock_local() : 0;

	/* The frame stays on top meanwhile: the profiler looks at it. */
	fg_run_returns(ws, state, &trace, fregs);
	t->curr_ret_depth--;
}

/*
 * Where the arch's return_to_handler makes a frame record of the returning
 * call in fregs, its return slot holding the hook (HAVE_FGRAPH_RETURN_FRAME,
 * arm64: fp and lr), give it the real return address while the frame is
 * still on the shadow stack: from then on an unwind from a return callback,
 * or from an interrupt until the record is gone, reads the caller there
 * without ftrace_graph_ret_addr().
 */
static __always_inline void fg_show_caller(struct ftrace_regs *fregs,
					   unsigned long real)
{
	if (IS_ENABLED(CONFIG_HAVE_FGRAPH_RETURN_FRAME))
		WRITE_ONCE(*ftrace_regs_return_slot(fregs), real);
}

/**
 * ftrace_return_to_handler - a hooked function returned
 * @fregs: the registers return_to_handler saved (return value, frame)
 *
 * Runs the return callbacks of the top frame's users and pops the frame.
 *
 * Context: return_to_handler, any context.
 * Return: the address the function really returns to.
 */
unsigned long ftrace_return_to_handler(struct ftrace_regs *fregs)
{
	struct task_struct *t = current;
	unsigned long *ws = t->ret_stack;
	struct ftrace_ret_stack *hdr;
	unsigned int state, base;
	unsigned long ret, real;
	bool direct;

	state = READ_ONCE(t->curr_ret_stack);
	base = ws ? fg_frame_base(ws, state) : 0;
	if (unlikely(!base))
		return fg_corrupt(t, state);

	hdr = fg_hdr(ws, base);
	direct = fg_is_direct(ws, base);
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	/* The compiler copied the return address instead of using it. */
	if (unlikely(!direct &&
		     hdr->fp != ftrace_regs_get_frame_pointer(fregs)))
		return fg_corrupt(t, state);
#endif
	ret = hdr->ret;
	/* Return callbacks (fprobe exits) read the real return address here. */
	real = fgraph_real_ret(ws, base, ret);
	ftrace_regs_set_instruction_pointer(fregs, real);
	fg_show_caller(fregs, real);

	if (direct)
		fg_direct_return(ws, state, fregs);
	else
		fg_managed_return(t, ws, state, fregs);
	barrier();
	WRITE_ONCE(t->curr_ret_stack, fg_below(ws, base));
	return ret;
}

/* The return path of every return probe: see function_graph_enter_regs(). */
NOKPROBE_SYMBOL(ftrace_return_to_handler);

/* ---- stop ------------------------------------------------------------- */

/* The static key can only be flipped where one may sleep: in a work item. */
static void fg_kill_key(struct work_struct *work)
{
	static_branch_enable(&kill_ftrace_graph);
}

static DECLARE_WORK(fg_kill_work, fg_kill_key);

static void fg_kill_deferred(struct irq_work *work)
{
	schedule_work(&fg_kill_work);
}

static DEFINE_IRQ_WORK(fg_kill_irq_work, fg_kill_deferred);

/**
 * ftrace_graph_stop - stop function graph tracing for good
 *
 * For a state graph tracing cannot recover from (a corrupt shadow stack, a
 * hang caught by a self test).  No call is hooked any more; calls hooked
 * already still return through their frames.
 *
 * Context: any, NMI included.  The entry path refuses calls at once;
 * ftrace_graph_is_dead() turns true shortly after, when a work item has
 * flipped the static key.
 */
void ftrace_graph_stop(void)
{
	WRITE_ONCE(fgraph_killed, true);
	irq_work_queue(&fg_kill_irq_work);
}

/* ---- walking a task's frames ------------------------------------------- */

/**
 * ftrace_graph_get_ret_stack - a frame of a task's shadow stack
 * @task: the task
 * @skip: 0 for the top frame, 1 for the one below, and so on
 *
 * During an entry callback the top frame is the call being entered;
 * during a return callback, the call returning.  Direct users' frames are
 * not counted: the frames are those of the calls the managed users see,
 * as their depths are.
 *
 * Context: @task is current or does not run.
 * Return: the frame, or NULL if there are not that many.
 */
struct ftrace_ret_stack *
ftrace_graph_get_ret_stack(struct task_struct *task, int skip)
{
	unsigned long *ws = fg_stack_of(task);
	unsigned int state, base;

	if (!ws)
		return NULL;
	state = READ_ONCE(task->curr_ret_stack);
	while ((base = fg_frame_base(ws, state))) {
		if (!fg_is_direct(ws, base) && skip-- <= 0)
			return fg_hdr(ws, base);
		state = fg_below(ws, base);
	}
	return NULL;
}

/**
 * ftrace_graph_ret_addr - undo the return hook for an unwinder
 * @task: the task being unwound
 * @idx: walk state, 0 before the first call of an unwind
 * @ret: a return address found on the stack
 * @retp: where it was found
 *
 * If @ret is a return hook (return_to_handler, or fprobe's or the return
 * probes' own on x86-64: fgraph_is_hook()), finds the frame that saved the
 * slot @retp and gives the address the slot held.  Frames whose saved
 * address is a hook itself (a slot hooked twice) are passed over.
 * @idx remembers where the walk stopped, so that unwinding the real stack
 * from the top down visits every frame once.
 *
 * Context: any, also from an interrupt unwinding current.
 * Return: the real return address, or @ret if it is not a hook or no
 * frame matches.
 */
unsigned long ftrace_graph_ret_addr(struct task_struct *task, int *idx,
				    unsigned long ret, unsigned long *retp)
{
	unsigned int state, base;
	unsigned long *ws;

	if (!fgraph_is_hook(ret) || !idx)
		return ret;
	ws = fg_stack_of(task);
	if (!ws)
		return ret;

	state = *idx ? *idx : READ_ONCE(task->curr_ret_stack);
	while ((base = fg_frame_base(ws, state))) {
		struct ftrace_ret_stack *hdr = fg_hdr(ws, base);
		unsigned long saved = READ_ONCE(hdr->ret);

		state = fg_below(ws, base);
		if (READ_ONCE(hdr->retp) == retp && !fgraph_is_hook(saved)) {
			*idx = state;
			return saved;
		}
	}
	return ret;
}
