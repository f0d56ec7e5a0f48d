/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hook through which the function-hook core asks an arch whose shared
 * callers call callbacks preemptibly (arm64) whether every task has left
 * them, so that a removal need not wait for an RCU-tasks grace period.
 * kernel/trace/ftrace.c has a weak default that says "not known"; arm64
 * implements it in arch/arm64/kernel/ftrace_callers_quiet.c.  Internal to
 * the core and the arch, in a header of its own so that <linux/ftrace.h>
 * stays as it is.
 */
#ifndef _LINUX_FTRACE_QUIET_H
#define _LINUX_FTRACE_QUIET_H

#include <linux/types.h>

/* True once every task was seen outside the callers since the call began. */
bool ftrace_arch_callers_quiet(void);

#endif /* _LINUX_FTRACE_QUIET_H */
