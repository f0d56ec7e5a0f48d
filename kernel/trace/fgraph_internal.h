/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What fgraph (kernel/trace/fgraph.c, layer "fgraph" of the function-hook
 * core: see ftrace_internal.h for the layers) offers the rest of the core
 * and its users beyond linux/ftrace.h: whether a graph user is registered,
 * the refresh after a pid filter change, the untimed registration, and
 * the API of direct users, which push their own frames from an ftrace_ops
 * callback (fprobe) or from a kprobe handler (return probes,
 * kernel/kretprobes_fgraph.c).  fgraph_direct_hook() and
 * ftrace_regs_return_slot() run on fprobe's hit path and stay inline.
 *
 * fgraph sits on the users' interface (ftrace_user.h); the shadow stack's
 * format is in fgraph_frame.h.
 */
#ifndef _LINUX_KERNEL_FGRAPH_INTERNAL_H
#define _LINUX_KERNEL_FGRAPH_INTERNAL_H

#include <linux/ftrace.h>

#ifdef CONFIG_FUNCTION_TRACER

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
extern int ftrace_graph_active;
void fgraph_update_pid_func(void);
/*
 * register_ftrace_graph() for a user that never reads calltime/rettime
 * (fprobe): while only such users are registered fgraph reads no clock.
 */
int register_ftrace_graph_untimed(struct fgraph_ops *gops);
/*
 * Users that push their own frames from an ftrace_ops callback (fprobe).
 * Their return callback gets the call site, the data pushed and the
 * return registers (instruction pointer: the real return address).
 */
typedef void (*fgraph_direct_ret_t)(unsigned long func, unsigned long *data,
				    unsigned int words,
				    struct ftrace_regs *fregs);
int register_fgraph_direct(struct fgraph_ops *gops, fgraph_direct_ret_t ret);

/*
 * Where the return address of the call whose entry @fregs describes is
 * kept, and the key unwinders know a hook of it by (ftrace_graph_ret_addr()
 * gets it as @retp).  Unless the architecture says otherwise: the slot at
 * the stack pointer of the function's entry (x86), its own key.
 */
#ifndef ftrace_regs_return_slot
static __always_inline unsigned long *
ftrace_regs_return_slot(struct ftrace_regs *fregs)
{
	return (unsigned long *)ftrace_regs_get_stack_pointer(fregs);
}

#define ftrace_regs_return_key(fregs) ftrace_regs_return_slot(fregs)
#endif

/* The most data words one direct frame carries. */
#define FGRAPH_DIRECT_MAX_WORDS	32

unsigned long *fgraph_direct_push(struct fgraph_ops *gops, unsigned long func,
				  struct ftrace_regs *fregs,
				  unsigned int words);
void fgraph_direct_done(struct ftrace_regs *fregs, bool hook);
/*
 * The same for a user without the call's ftrace_regs (return probes, from
 * a kprobe on the function's first instruction): it names the slot that
 * holds the return address and the key of that slot itself.
 */
unsigned long *fgraph_direct_push_at(struct fgraph_ops *gops,
				     unsigned long func, unsigned long *slot,
				     unsigned long *key, unsigned int words);
void fgraph_direct_done_at(unsigned long *slot, bool hook);
unsigned long fgraph_direct_key(struct fgraph_ops *gops);

/* fgraph_direct_done(@fregs, true), inline: the common case of a hit. */
static inline void fgraph_direct_hook(struct ftrace_regs *fregs)
{
	*ftrace_regs_return_slot(fregs) =
		(unsigned long)dereference_kernel_function_descriptor(return_to_handler);
}
#else
# define ftrace_graph_active 0
static inline void fgraph_update_pid_func(void) {}
#endif

#endif /* CONFIG_FUNCTION_TRACER */

#endif /* _LINUX_KERNEL_FGRAPH_INTERNAL_H */
