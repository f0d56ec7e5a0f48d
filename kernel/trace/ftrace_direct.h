/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Direct calls: layer "direct" of the function-hook core (see
 * ftrace_internal.h for the layers).
 *
 * Offers ftrace_find_rec_direct(), the direct trampoline a call site
 * calls, which enabled_functions (tracefs) shows.  The rest is what ops
 * and the patcher still call here until direct calls register their lock,
 * their hooks for ip-modifiers and their site lookup with the layers
 * below (workbench/LAYERS-PLAN.md, step 8): only the lookup stays then.
 */
#ifndef _LINUX_KERNEL_FTRACE_DIRECT_H
#define _LINUX_KERNEL_FTRACE_DIRECT_H

#include <linux/ftrace.h>
#include <linux/mutex.h>

#ifdef CONFIG_FUNCTION_TRACER
#ifdef CONFIG_DYNAMIC_FTRACE

unsigned long ftrace_find_rec_direct(unsigned long ip);
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
/* Register with the patcher and the ops layer; ftrace_init(), early. */
void __init ftrace_direct_init(void);
#else
static inline void ftrace_direct_init(void) { }
#endif

#endif /* CONFIG_DYNAMIC_FTRACE */
#endif /* CONFIG_FUNCTION_TRACER */

#endif /* _LINUX_KERNEL_FTRACE_DIRECT_H */
