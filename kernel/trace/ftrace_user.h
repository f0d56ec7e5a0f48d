/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The users' interface of the function-hook core: what direct calls,
 * fgraph and fprobe (and any new user of the core) are given.  It sits in
 * layer "ops" (see ftrace_internal.h for the layers).
 *
 * A user gets ftrace_lock, the registered ops list and the callers' slots
 * (ftrace_base.h), ftrace_locations_sorted(), the ip hashes and the ops
 * filter test (ftrace_hash.h) and, declared here, adding and removing an
 * ops (or a manager's subops), its pid filter test, and the registration
 * of the ip-modifier share hooks that only direct calls make.  The filter
 * API it needs, ftrace_match_records() and ftrace_hash_install(), is in
 * ftrace_filter.h.  The records, the generations and the rest of the ops
 * layer (ftrace_records.h, ftrace_patch.h, ftrace_ops.h) are the core's
 * own: a user that needs more asks the core for a new call here.
 */
#ifndef _LINUX_KERNEL_FTRACE_USER_H
#define _LINUX_KERNEL_FTRACE_USER_H

#include <linux/ftrace.h>

#include "ftrace_base.h"
#include "ftrace_hash.h"

#ifdef CONFIG_FUNCTION_TRACER

/* Add/remove @ops; with ftrace_lock held, and the command for the update. */
int ftrace_startup(struct ftrace_ops *ops, int command);
int ftrace_shutdown(struct ftrace_ops *ops, int command);
int ftrace_startup_subops(struct ftrace_ops *ops, struct ftrace_ops *subops,
			  int command);
int ftrace_shutdown_subops(struct ftrace_ops *ops, struct ftrace_ops *subops,
			   int command);

/* Give @ops its own hashes (func_hash = &local_hash) unless initialised. */
void ftrace_ops_init(struct ftrace_ops *ops);

/* FTRACE_OPS_FL_PID and its trace array has a pid or notrace-pid list. */
bool ftrace_ops_pid_filtered(struct ftrace_ops *ops);

/*
 * How an ip-modifier is registered beside direct calls, registered by
 * ftrace_direct.c (ftrace_direct_init()): @lock/@unlock wrap the whole
 * registration or removal and nest outside ftrace_lock; @prepare asks the
 * direct calls on @ops' functions to share them (ftrace_lock not held);
 * @cleanup ends the sharing of sites no ip-modifier holds any more.
 */
struct ftrace_ipmodify_share {
	void	(*lock)(void);
	void	(*unlock)(void);
	int	(*prepare)(struct ftrace_ops *ops);
	void	(*cleanup)(void);
};

void __init
ftrace_ops_set_ipmodify_share(const struct ftrace_ipmodify_share *share);

#endif /* CONFIG_FUNCTION_TRACER */

#endif /* _LINUX_KERNEL_FTRACE_USER_H */
