/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one hook through which the function-hook core has an arch build or
 * retarget an ftrace_ops' own trampoline: kernel/trace/ftrace_tramp.c
 * calls it under ftrace_lock (a weak no-op there), and an arch with
 * per-ops trampolines (x86) implements it.  It is internal to the core
 * and the arch, and lives in a header of its own so that it is not in
 * <linux/ftrace.h>, which most of the kernel includes.
 */
#ifndef _LINUX_FTRACE_TRAMP_H
#define _LINUX_FTRACE_TRAMP_H

#include <linux/ftrace.h>

/* Create or retarget @ops' own trampoline so that it calls @func. */
void ftrace_arch_tramp_update(struct ftrace_ops *ops, ftrace_func_t func);

#endif /* _LINUX_FTRACE_TRAMP_H */
