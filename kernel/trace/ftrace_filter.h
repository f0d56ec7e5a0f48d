/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Filters: layer "filter" of the function-hook core (see
 * ftrace_internal.h for the layers).
 *
 * Offers matching records against a glob into a hash, installing a hash
 * as an ops' filter or notrace hash (with the update that applies it),
 * the set_graph_function hashes, the boot-time filter parameters and the
 * retirement of the entries of freed text.  ftrace_match_records() and
 * ftrace_hash_install() are part of the users' interface (with
 * ftrace_user.h); the rest is the core's own.  Nothing here may name a
 * symbol of a higher layer.
 */
#ifndef _LINUX_KERNEL_FTRACE_FILTER_H
#define _LINUX_KERNEL_FTRACE_FILTER_H

#include <linux/ftrace.h>

#ifdef CONFIG_FUNCTION_TRACER
#ifdef CONFIG_DYNAMIC_FTRACE

/*
 * Add (or, with a leading '!', remove) to @hash every record matching
 * @buf: "glob", "glob:mod:module", "!glob", "*:mod:module".  Returns the
 * number of records matched (0: none), or a negative errno.
 */
int ftrace_match_records(struct ftrace_hash *hash, char *buf, int len);
/* Same, with the module restriction split out (mod may be NULL). */
int ftrace_match_records_mod(struct ftrace_hash *hash, char *func, int len,
			     char *mod);

/*
 * Replace *@dst (an ops filter or notrace hash pointer) by @src and apply it:
 * registered users see the change in one update, and on error the old hash
 * is back in place.  @ops is the hash owner.  Caller holds ops regex_lock;
 * takes ftrace_lock.  Consumes @src on success (and on failure frees it).
 */
int ftrace_hash_install(struct ftrace_ops *ops, struct ftrace_hash __rcu **dst,
			struct ftrace_hash *src);

/* Swap the set_graph_function (or _notrace) hash; frees the old one. */
int ftrace_graph_hash_install(bool is_notrace, struct ftrace_hash *hash);

/* Early boot filters (ftrace_filter= and friends), applied by ftrace_init(). */
void __init ftrace_apply_boot_filters(void);

/*
 * Retire every entry in [start, end) of every ops and graph hash.  Takes
 * trace_types_lock and ftrace_lock itself: call it with neither held.
 */
void ftrace_hashes_drop_range(unsigned long start, unsigned long end);

#endif /* CONFIG_DYNAMIC_FTRACE */
#endif /* CONFIG_FUNCTION_TRACER */

#endif /* _LINUX_KERNEL_FTRACE_FILTER_H */
