/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the call-site records share and nobody else needs:
 * the group list's upkeep (ftrace_sites.c), used by the code that builds
 * and drops the groups of each image (ftrace_sites_images.c), and the
 * search of a group's sorted offsets.  The records' interface for the
 * layers above is in ftrace_internal.h.
 *
 * Layer: sites, private to it.
 *
 * Locking: what each function says; every change of the list or of a
 * linked group is made under ftrace_lock, and a group that left the list
 * goes to site_group_retire() after the lock is dropped.
 */
#ifndef _LINUX_KERNEL_FTRACE_SITES_H
#define _LINUX_KERNEL_FTRACE_SITES_H

#include <linux/compiler.h>
#include <linux/lockdep.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "ftrace_records.h"

struct module;

/* A link of the group list, read by a holder of ftrace_lock. */
static inline struct ftrace_site_group *
site_group_deref(struct ftrace_site_group __rcu *const *pp)
{
	return rcu_dereference_protected(*pp, lockdep_is_held(&ftrace_lock));
}

/* Index of the first of the @nr first records of @g with ip >= @ip (or @nr). */
static inline unsigned int site_lower_bound(const struct ftrace_site_group *g,
					    unsigned int nr, unsigned long ip)
{
	unsigned int lo = 0, hi = nr;
	u32 off;

	if (ip <= g->base)
		return 0;
	if (ip - g->base > FTRACE_SITE_OFF_MASK)
		return nr;
	off = ip - g->base;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if ((READ_ONCE(g->offs[mid]) & FTRACE_SITE_OFF_MASK) < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A group with room for @cap sites, not linked; NULL on -ENOMEM. */
struct ftrace_site_group *site_group_alloc(struct module *mod,
					   unsigned int cap);
/* Free @g and its states; @g is unlinked and no reader can reach it. */
void site_group_free(struct ftrace_site_group *g);
/* The history bitmap of @g, allocated if needed; NULL on -ENOMEM. */
unsigned long *site_history(struct ftrace_site_group *g);

/* The list, under ftrace_lock: append, take off, swap for a smaller copy. */
void site_group_publish(struct ftrace_site_group *g);
void site_group_unlink(struct ftrace_site_group *g);
void site_group_replace(struct ftrace_site_group *old,
			struct ftrace_site_group *new);
/* Free a group that left the list, after its readers; no lock held, sleeps. */
void site_group_retire(struct ftrace_site_group *g);

#endif /* _LINUX_KERNEL_FTRACE_SITES_H */
