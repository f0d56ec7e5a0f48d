// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe: the return of a call whose exit fprobe hooked to the arch's own
 * trampoline, fprobe_return_handler (x86-64: arch/x86/kernel/ftrace_64.S).
 *
 * fprobe.c's entry callback pushed the call's direct frame inline and put
 * fprobe_return_handler in the return-address slot; fprobe_return() here
 * reads that frame, runs the exit handlers its records ask for, pops it
 * and hands the real return address back to the trampoline.  The common
 * frame costs no call into fgraph.c; the others may (a slot hooked twice,
 * a top frame that is not fprobe's).  Built only where the arch provides
 * the trampoline (CONFIG_HAVE_FPROBE_RETURN_HANDLER); elsewhere exits come
 * back through fgraph's return_to_handler and fprobe_graph_return().
 */
#include <linux/compiler.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/preempt.h>
#include <linux/sched.h>

#include "fgraph_frame.h"
#include "fprobe_internal.h"

#define FPROBE_DATA_WORDS_MAX	(FPROBE_ENTRY_DATA_MAX / sizeof(long))

/* fprobe_run_one_exit() for a live FPROBE_FL_KPROBE_SHARED probe. */
static noinline void fprobe_one_exit_shared(struct fprobe *fp, unsigned long ip,
					    unsigned long hdr,
					    unsigned long *data,
					    struct ftrace_regs *fregs)
{
	unsigned int bit = fprobe_busy_enter();

	if (unlikely(!bit) || kprobe_running())
		fp->nmissed++;
	else
		fprobe_call_exit_busy(fp, ip,
				      ftrace_regs_get_instruction_pointer(fregs),
				      fregs, (hdr & FPROBE_HDR_WORDS) ? data : NULL);
	if (bit)
		fprobe_busy_exit(bit);
}

NOKPROBE_SYMBOL(fprobe_one_exit_shared);

/*
 * The exit of a call whose block is one record, @hdr (its CALL bit set),
 * followed by the probe's entry data @data: fprobe_run_exits() for one
 * record, with preemption disabled and the instruction pointer of @fregs
 * the real return address.
 */
static __always_inline void fprobe_run_one_exit(unsigned long ip,
						unsigned long hdr,
						unsigned long *data,
						struct ftrace_regs *fregs)
{
	unsigned int flags, bit;
	struct fprobe *fp;

	if (unlikely(!fprobe_rcu_ok()))
		return;
	if (unlikely(!fprobe_find_live(hdr, &fp)))
		return;
	flags = READ_ONCE(fp->flags);
	if (unlikely(flags & (FPROBE_FL_DISABLED | FPROBE_FL_KPROBE_SHARED))) {
		/* One test of the flags for the common probe. */
		if (!(flags & FPROBE_FL_DISABLED))
			fprobe_one_exit_shared(fp, ip, hdr, data, fregs);
		return;
	}
	bit = fprobe_busy_enter();
	if (unlikely(!bit)) {
		fp->nmissed++;
		return;
	}
	fp->exit_handler(fp, ip, ftrace_regs_get_instruction_pointer(fregs),
			 fregs, (hdr & FPROBE_HDR_WORDS) ? data : NULL);
	fprobe_busy_exit(bit);
}

/*
 * The return-address slot fprobe_return_handler pushed: its own address
 * there while fprobe_return() runs, what RET takes it to after.  The
 * trampoline builds the register frame right below it, so its address
 * is known without reading the frame's sp (the word just below that sp).
 */
static __always_inline unsigned long *fprobe_handler_slot(struct ftrace_regs *fregs)
{
	return (unsigned long *)(&arch_ftrace_regs(fregs)->regs + 1);
}

/* fprobe_return() for any frame: several records, or not a frame of ours. */
static noinline unsigned long fprobe_return_general(struct ftrace_regs *fregs)
{
	struct task_struct *t = current;
	unsigned long *ws = t->ret_stack;
	unsigned int base, words;
	unsigned long *data, ret;
	struct ftrace_ret_stack *hdr;

	base = ws ? fgraph_top_direct_frame(t, ws, &data, &words) : 0;
	if (unlikely(!base))
		return ftrace_return_to_handler(fregs);
	hdr = fg_hdr(ws, base);
	ret = hdr->ret;
	ftrace_regs_set_instruction_pointer(fregs, fgraph_real_ret(ws, base, ret));

	preempt_disable_notrace();
	fprobe_run_exits(hdr->func, data, words, fregs);
	preempt_enable_notrace();

	fgraph_pop_frame(t, ws, base);
	return ret;
}

/* The largest frame of one fprobe record, in words. */
#define FPROBE_FRAME_MAX	(FGRAPH_FRAME_MIN + 2 + FPROBE_DATA_WORDS_MAX)

/*
 * fprobe_return() for every frame but the common one: a record with entry
 * data (the handler reads the data on the shadow stack, so the frame is
 * popped after it), a slot hooked twice, or any frame of several records
 * or not of ours (fprobe_return_general()).
 */
static noinline void fprobe_return_slow(struct ftrace_regs *fregs)
{
	struct task_struct *t = current;
	unsigned long *ws = t->ret_stack;
	unsigned int state = READ_ONCE(t->curr_ret_stack);
	unsigned int base = fg_base(state), top = fg_top(state);
	/* The entry data words, if the frame holds one fprobe record. */
	unsigned int words = top - base - (FGRAPH_FRAME_MIN + 2);
	struct ftrace_ret_stack *frame;
	unsigned long link, hdr, ret;

	/*
	 * A frame's words in the stack: one test of the base covers the top
	 * too, given the words (frames in the last FPROBE_FRAME_MAX words go
	 * the general way).
	 */
	if (!ws || base - FGRAPH_FIRST_WORD >
	    FGRAPH_STACK_WORDS - FGRAPH_FIRST_WORD - FPROBE_FRAME_MAX ||
	    words > FPROBE_DATA_WORDS_MAX)
		goto general;
	link = ws[fg_link_word(base)];
	hdr = ws[fg_link_word(base) + 1];
	if ((link & (FG_LINK_DIRECT | FG_BASE_MASK << FG_TOP_SHIFT)) !=
	    (FG_LINK_DIRECT | base << FG_TOP_SHIFT) ||
	    (hdr & FPROBE_HDR_WORDS) != words)
		goto general;

	frame = fg_hdr(ws, base);
	ret = frame->ret;
	ftrace_regs_set_instruction_pointer(fregs, fgraph_real_ret(ws, base, ret));
	if (hdr & FPROBE_HDR_CALL) {
		preempt_disable_notrace();
		fprobe_run_one_exit(frame->func, hdr, &ws[fg_link_word(base) + 2],
				    fregs);
		preempt_enable_notrace();
	}
	/* Pop: back to the state the link saved. */
	barrier();
	WRITE_ONCE(t->curr_ret_stack, link & ~FG_LINK_DIRECT);
	*fprobe_handler_slot(fregs) = ret;
	return;
general:
	*fprobe_handler_slot(fregs) = fprobe_return_general(fregs);
}

/* The frame of one fprobe record without entry data, in words. */
#define FPROBE_FRAME_ONE	(FGRAPH_FRAME_MIN + 2)

/**
 * fprobe_return - the return of a call whose exit fprobe hooked
 * @fregs: the registers fprobe_return_handler saved (return value, frame)
 *
 * The top frame of the task's shadow stack is the direct frame fprobe
 * pushed for this call (the slot held fprobe_return_handler, and frames
 * pushed since have been popped).  Runs the exit handlers its records ask
 * for, pops it and stores where the call really returns to into the
 * trampoline's return-address slot (fprobe_return_handler leaves that, and
 * the instruction pointer of @fregs, to us).  The common frame, one
 * probe's record without entry data and with its CALL bit, is read here;
 * any other goes to fprobe_return_slow(), and a top that is not a direct
 * frame is not ours: fgraph's return path then takes the call (and stops
 * graph tracing if the stack is corrupt).
 *
 * The common frame leaves nothing on the shadow stack that the handler
 * needs, so it is popped first, and the address it saved goes into the
 * trampoline's slot before the handler runs: an unwinder in the handler
 * reads the caller there directly (or a hook that a frame still below it
 * translates), and the function keeps fewer values across the handler
 * call.
 *
 * Context: fprobe_return_handler, any context.
 */
void fprobe_return(struct ftrace_regs *fregs)
{
	struct task_struct *t = current;
	unsigned long *ws = t->ret_stack;
	unsigned int state = READ_ONCE(t->curr_ret_stack);
	unsigned long base = fg_base(state);
	unsigned long link, hdr, ret, func;
	struct ftrace_ret_stack *frame;
	unsigned long *f;

	/*
	 * Exactly the common frame's words, all of them in the page (the one
	 * test of the base covers the top; a base among the task vars would
	 * only read words of the page, and no such frame passes the link
	 * test), then: a direct frame whose link names a state with its top
	 * at our base, and a record asking for the exit handler without
	 * entry data.  The link's bits above the state's must be
	 * FG_LINK_DIRECT alone.
	 */
	if (unlikely(!ws || base > FGRAPH_STACK_WORDS - FPROBE_FRAME_ONE ||
		     fg_top(state) - base != FPROBE_FRAME_ONE))
		goto slow;
	/* The frame's words, from one address. */
	f = &ws[base];
	link = f[FGRAPH_HDR_WORDS];
	hdr = f[FGRAPH_HDR_WORDS + 1];
	if (unlikely(link >> FG_TOP_SHIFT !=
		     base + (FG_LINK_DIRECT >> FG_TOP_SHIFT) ||
		     (hdr & (FPROBE_HDR_WORDS | FPROBE_HDR_CALL)) != FPROBE_HDR_CALL))
		goto slow;

	frame = (struct ftrace_ret_stack *)f;
	ret = frame->ret;
	/*
	 * A function hooked twice (another hook saved below ours) is rare:
	 * the slow way finds the real return address, and no call out of
	 * line is left before the handler's (fewer values to keep).
	 */
	if (unlikely(fgraph_is_hook(ret)))
		goto slow;
	func = frame->func;
	ftrace_regs_set_instruction_pointer(fregs, ret);
	*fprobe_handler_slot(fregs) = ret;
	/* Pop: back to the state the link saved. */
	barrier();
	WRITE_ONCE(t->curr_ret_stack, link & ~FG_LINK_DIRECT);

	preempt_disable_notrace();
	fprobe_run_one_exit(func, hdr, NULL, fregs);
	preempt_enable_notrace();
	return;
slow:
	fprobe_return_slow(fregs);
}

NOKPROBE_SYMBOL(fprobe_return_general);
NOKPROBE_SYMBOL(fprobe_return_slow);
NOKPROBE_SYMBOL(fprobe_return);
