/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The format of fgraph's per-task shadow stack: the stack state, frame
 * headers, links and record words (the rules are at the top of
 * kernel/trace/fgraph.c), and the inline push and pop of direct frames.
 *
 * Private to kernel/trace/ and the return probes (kernel/kretprobes_fgraph.c;
 * the KUnit suites use fgraph_is_hook()): fgraph.c owns the stacks; a
 * direct user with a return trampoline of its own (x86-64: fprobe, return
 * probes) pushes and pops its frames with the helpers at the end of this
 * file, on its hot path, without a call into fgraph.c.  Such a frame is
 * an ordinary direct frame: walkers, unwinders and the generic return
 * path all read it as one.
 */
#ifndef _KERNEL_TRACE_FGRAPH_FRAME_H
#define _KERNEL_TRACE_FGRAPH_FRAME_H

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/ftrace.h>
#include <linux/sched.h>

#include "fgraph_internal.h"

/* How many users may be registered at once (slots, and task vars). */
#define FGRAPH_ARRAY_SIZE	16

/* Size of one task's shadow stack. */
#define FGRAPH_STACK_BYTES	PAGE_SIZE
#define FGRAPH_STACK_WORDS	(FGRAPH_STACK_BYTES / sizeof(long))

/* Frames start above the task vars. */
#define FGRAPH_FIRST_WORD	FGRAPH_ARRAY_SIZE

/* A frame's header in words; the link word follows it. */
#define FGRAPH_HDR_WORDS	\
	DIV_ROUND_UP(sizeof(struct ftrace_ret_stack), sizeof(long))
#define FGRAPH_FRAME_MIN	(FGRAPH_HDR_WORDS + 1)

/* What one user may reserve per call with fgraph_reserve_data(). */
#define FGRAPH_MAX_DATA_WORDS	32
#define FGRAPH_MAX_DATA_SIZE	(FGRAPH_MAX_DATA_WORDS * sizeof(long))

/* curr_ret_stack: (top << FG_TOP_SHIFT) | base. */
#define FG_TOP_SHIFT		16
#define FG_BASE_MASK		GENMASK(FG_TOP_SHIFT - 1, 0)

/*
 * A record word:
 *   bits 0-3	slot of the user
 *   bits 4-9	words of data below the record (0..FGRAPH_MAX_DATA_WORDS)
 *   bit 10	open: the user's entry callback runs and reserved nothing yet
 *   bits 11-	generation of the registration; with the slot, the key
 */
#define FG_REC_SLOT_MASK	GENMASK(3, 0)
#define FG_REC_SIZE_SHIFT	4
#define FG_REC_SIZE_MASK	GENMASK(9, FG_REC_SIZE_SHIFT)
#define FG_REC_OPEN		BIT(10)
#define FG_REC_GEN_SHIFT	11
#define FG_REC_KEY_MASK		(~(FG_REC_SIZE_MASK | FG_REC_OPEN))
#define FG_GEN_LIMIT		(ULONG_MAX >> FG_REC_GEN_SHIFT)

/* Link word flag: a direct user's frame (above any state's bits). */
#define FG_LINK_DIRECT		BIT(31)

static_assert(FGRAPH_ARRAY_SIZE - 1 <= FG_REC_SLOT_MASK);
static_assert(FGRAPH_MAX_DATA_WORDS <= (FG_REC_SIZE_MASK >> FG_REC_SIZE_SHIFT));
/* Both halves of the state fit, and the int stays positive. */
static_assert(FGRAPH_STACK_WORDS < (1UL << (FG_TOP_SHIFT - 1)));
static_assert(sizeof(struct ftrace_ret_stack) % sizeof(long) == 0);

/* ---- stack state and frames ------------------------------------------ */

static inline unsigned int fg_state(unsigned int top, unsigned int base)
{
	return top << FG_TOP_SHIFT | base;
}

static inline unsigned int fg_top(unsigned long state)
{
	return (state >> FG_TOP_SHIFT) & FG_BASE_MASK;
}

static inline unsigned int fg_base(unsigned long state)
{
	return state & FG_BASE_MASK;
}

static inline unsigned int fg_link_word(unsigned int base)
{
	return base + FGRAPH_HDR_WORDS;
}

static inline struct ftrace_ret_stack *fg_hdr(unsigned long *ws,
					      unsigned int base)
{
	return (struct ftrace_ret_stack *)&ws[base];
}

static inline unsigned int fg_rec_words(unsigned long rec)
{
	return (rec & FG_REC_SIZE_MASK) >> FG_REC_SIZE_SHIFT;
}

/*
 * The base of the frame @state names on @ws, or 0 when it names none: the
 * stack is empty, or the words are not a frame (a corrupt stack, or the
 * stack of another task changing under a walker).
 */
static __always_inline unsigned int fg_frame_base(unsigned long *ws,
						  unsigned int state)
{
	unsigned int base = fg_base(state);
	unsigned int top = fg_top(state);
	unsigned long link;

	if (base < FGRAPH_FIRST_WORD || top > FGRAPH_STACK_WORDS ||
	    top < base + FGRAPH_FRAME_MIN)
		return 0;
	link = READ_ONCE(ws[fg_link_word(base)]) & ~FG_LINK_DIRECT;
	if (fg_top(link) != base)
		return 0;
	return base;
}

/* The state below the frame at @base: the next frame of a walk. */
static inline unsigned int fg_below(unsigned long *ws, unsigned int base)
{
	return READ_ONCE(ws[fg_link_word(base)]) & ~FG_LINK_DIRECT;
}

/* A direct user's frame (fgraph_direct_push()). */
static inline bool fg_is_direct(unsigned long *ws, unsigned int base)
{
	return ws[fg_link_word(base)] & FG_LINK_DIRECT;
}

/* A task's shadow stack, or NULL. */
static inline unsigned long *fg_stack_of(struct task_struct *t)
{
	/* Pairs with fg_task_attach(): the state is set before the stack. */
	return smp_load_acquire(&t->ret_stack);
}

/* Set by ftrace_graph_stop(): no return is hooked any more. */
extern bool fgraph_killed;

/*
 * The return trampolines a hooked return-address slot may hold:
 * return_to_handler, and on x86-64 fprobe's and the return probes' own
 * (fprobe_return_handler and kretprobe_return_handler, which pop their
 * users' direct frames without fgraph's dispatch).  All are permanent
 * text, so an unwinder translates any of them at any time.
 */
#if defined(CONFIG_HAVE_FPROBE_RETURN_HANDLER) && defined(CONFIG_FPROBE)
# define FGRAPH_HAVE_FPROBE_HANDLER
void fprobe_return_handler(void);
#endif
#if defined(CONFIG_HAVE_KRETPROBE_RETURN_HANDLER) && \
	defined(CONFIG_KRETPROBE_ON_FGRAPH)
# define FGRAPH_HAVE_KRETPROBE_HANDLER
void kretprobe_return_handler(void);
#endif

static __always_inline bool fgraph_is_hook(unsigned long addr)
{
	if (addr == (unsigned long)dereference_kernel_function_descriptor(return_to_handler))
		return true;
#ifdef FGRAPH_HAVE_FPROBE_HANDLER
	if (addr == (unsigned long)fprobe_return_handler)
		return true;
#endif
#ifdef FGRAPH_HAVE_KRETPROBE_HANDLER
	if (addr == (unsigned long)kretprobe_return_handler)
		return true;
#endif
	return false;
}

/* fgraph.c: the real return address when the frame at @base saved a hook. */
unsigned long fgraph_real_ret_below(unsigned long *ws, unsigned int base);

/*
 * Where the call of the frame at @base really returns to: @ret, what the
 * frame saved, unless that is a hook (the function was hooked twice, by
 * two users or through a tail call); then what a frame further down saved
 * for the same slot.
 */
static __always_inline unsigned long fgraph_real_ret(unsigned long *ws,
						     unsigned int base,
						     unsigned long ret)
{
	if (likely(!fgraph_is_hook(ret)))
		return ret;
	return fgraph_real_ret_below(ws, base);
}

/*
 * __fgraph_push_direct_slot - the push of a direct frame, given where the
 * return address is: @slot holds it until the function returns, and @retp
 * is the key unwinders know a hook of it by.  The other arguments and the
 * return value are those of fgraph_push_direct_top() below, without its
 * test of the stack pointer.  For a caller that has no ftrace_regs of the
 * call (fgraph_direct_push_at(): a kprobe on the first instruction).
 */
static __always_inline unsigned int
__fgraph_push_direct_slot(unsigned long key, unsigned long func,
			  unsigned long *slot, unsigned long *retp,
			  unsigned int words, unsigned long **wsp)
{
	unsigned long rec = key | (unsigned long)words << FG_REC_SIZE_SHIFT;
	struct task_struct *t = current;
	unsigned int before, base, top;
	struct ftrace_ret_stack *hdr;
	unsigned long *ws, ret;

	ws = fg_stack_of(t);
	/*
	 * fgraph_killed is set once and only ever read: a plain read, which
	 * the compiler may test in memory (a late sight of it costs one more
	 * frame, as a push just before it is set would).
	 */
	if (unlikely(!ws || data_race(fgraph_killed) ||
		     atomic_read(&t->tracing_graph_pause)))
		return 0;

	before = READ_ONCE(t->curr_ret_stack);
	base = fg_top(before);
	top = base + FGRAPH_FRAME_MIN + words + 1;
	if (unlikely(top > FGRAPH_STACK_WORDS)) {
		atomic_inc(&t->trace_overrun);
		return 0;
	}
	ret = *slot;

	/* Claim, write, publish: see "The stack state" in fgraph.c. */
	WRITE_ONCE(t->curr_ret_stack, fg_state(top, fg_base(before)));
	barrier();
	hdr = fg_hdr(ws, base);
	hdr->ret = ret;
	hdr->func = func;
	hdr->retp = retp;
	ws[fg_link_word(base)] = before | FG_LINK_DIRECT;
	ws[top - 1] = rec;
	barrier();
	WRITE_ONCE(t->curr_ret_stack, fg_state(top, base));
	*wsp = ws;
	return top;
}

/*
 * fgraph_open_frame_below - is current's top frame that of a function
 * entered after the one whose return @key names, and still running?
 * @key: the key of a return about to be hooked (see
 *	 __fgraph_push_direct_slot())
 *
 * Its key is then deeper on the same kernel stack (x86-64: the return
 * slot; arm64: the frame pointer at entry; both stacks grow down).  A
 * frame pushed for @key above it would be popped by that function's
 * return, which would then resume @key's caller with its own registers: a
 * traced function between a probed entry and a kprobe handler's push,
 * whose return the function graph tracer hooked.  Frames on another stack
 * (an interrupted context) are below any of an interrupt's and are left
 * alone.  For a push from a kprobe handler (fgraph_direct_push_at(), the
 * return probes' inline push), before the push.
 */
static __always_inline bool fgraph_open_frame_below(unsigned long *key)
{
	unsigned long *ws = fg_stack_of(current), *prev;
	unsigned int state;

	if (!ws)
		return false;
	state = READ_ONCE(current->curr_ret_stack);
	/* An empty stack (or none set up yet) has no frame. */
	if (fg_base(state) < FGRAPH_FIRST_WORD)
		return false;
	prev = fg_hdr(ws, fg_base(state))->retp;
	return prev < key &&
	       ((unsigned long)prev ^ (unsigned long)key) < THREAD_SIZE;
}

/*
 * __fgraph_push_direct_top - fgraph_push_direct_top() without the test of
 * the stack pointer, for a caller that has already read current and per-CPU
 * data in this context (a CPU without a proper stack and current would not
 * have got this far).  Arguments and return value as there, below.
 */
static __always_inline unsigned int
__fgraph_push_direct_top(unsigned long key, unsigned long func,
			 struct ftrace_regs *fregs, unsigned int words,
			 unsigned long **wsp)
{
	return __fgraph_push_direct_slot(key, func,
					 ftrace_regs_return_slot(fregs),
					 ftrace_regs_return_key(fregs), words,
					 wsp);
}

/*
 * fgraph_push_direct_top - push a direct frame for the call @fregs enters
 * @key: the direct user's registration key (fgraph_direct_key())
 * @func: the call site of the function entered
 * @fregs: its register frame (ftrace_regs_return_slot() holds the return
 *	   address)
 * @words: words of data, 1 to FGRAPH_MAX_DATA_WORDS (not checked here)
 * @wsp: where to store the task's shadow stack
 *
 * The push of fgraph_direct_push() without the checks of the user's
 * registration: for a caller that knows its key is live.  A direct frame's
 * calltime, subtime and fp words are left as they are: nothing reads them.
 * The data words are (*@wsp)[top - 1 - @words] to (*@wsp)[top - 2].  An
 * index, not a pointer, so a caller's test of the result is the one test
 * of the failure (the kernel's compiler may not assume a computed pointer
 * is not NULL).
 *
 * Context: as fgraph_direct_push().
 * Return: the new top of the stack, or 0 (see fgraph_direct_push()).
 */
static __always_inline unsigned int
fgraph_push_direct_top(unsigned long key, unsigned long func,
		       struct ftrace_regs *fregs, unsigned int words,
		       unsigned long **wsp)
{
	/*
	 * Not on a stack outside the kernel half: a CPU coming back from
	 * suspend runs traced code before it has a proper stack (and current).
	 */
	if (unlikely((long)current_stack_pointer >= 0))
		return 0;
	return __fgraph_push_direct_top(key, func, fregs, words, wsp);
}

/*
 * fgraph_push_direct_frame - fgraph_push_direct_top(), for the data words
 * @key: as fgraph_push_direct_top()
 * @func: as fgraph_push_direct_top()
 * @fregs: as fgraph_push_direct_top()
 * @words: as fgraph_push_direct_top()
 *
 * Context: as fgraph_direct_push().
 * Return: the data words, or NULL (see fgraph_direct_push()).
 */
static __always_inline unsigned long *
fgraph_push_direct_frame(unsigned long key, unsigned long func,
			 struct ftrace_regs *fregs, unsigned int words)
{
	unsigned long *ws;
	unsigned int top;

	top = fgraph_push_direct_top(key, func, fregs, words, &ws);
	return top ? &ws[top - 1 - words] : NULL;
}

/*
 * The top frame of @t, if it is a direct frame: its base, and through
 * @data and @words the data its record covers.  0 if the top is not a
 * well-formed direct frame.
 */
static __always_inline unsigned int
fgraph_top_direct_frame(struct task_struct *t, unsigned long *ws,
			unsigned long **data, unsigned int *words)
{
	unsigned int state = READ_ONCE(t->curr_ret_stack);
	unsigned int base = fg_frame_base(ws, state);
	unsigned int top = fg_top(state);
	unsigned long rec;
	unsigned int nr;

	if (unlikely(!base || !fg_is_direct(ws, base)))
		return 0;
	rec = ws[top - 1];
	nr = fg_rec_words(rec);
	if (unlikely(top < fg_link_word(base) + 2 + nr))
		return 0;
	*data = &ws[top - 1 - nr];
	*words = nr;
	return base;
}

/* Drop the top frame of @t, at @base, and everything above it. */
static __always_inline void fgraph_pop_frame(struct task_struct *t,
					     unsigned long *ws,
					     unsigned int base)
{
	barrier();
	WRITE_ONCE(t->curr_ret_stack, fg_below(ws, base));
}

#endif /* _KERNEL_TRACE_FGRAPH_FRAME_H */
