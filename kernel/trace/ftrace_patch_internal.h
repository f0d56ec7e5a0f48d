/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the patch layer: what ftrace_patch.c (site generations, the
 * update), ftrace_patch_arch.c (the arch patcher's side) and
 * ftrace_batch.c (the batch patcher) share.  Only these three include it.
 *
 * A record's target is a function of its ops set, of whether calls are
 * enabled, of the set's trampoline and of the direct address registered
 * for its ip (ftrace_site_target()).  The update uses it to find the
 * records to patch; the arch side uses it to answer the arch patcher.
 * Everything here is used under ftrace_lock.
 */
#ifndef _KERNEL_TRACE_FTRACE_PATCH_INTERNAL_H
#define _KERNEL_TRACE_FTRACE_PATCH_INTERNAL_H

#include <linux/ftrace.h>

#include "ftrace_records.h"
#include "ftrace_hash.h"
#include "ftrace_patch.h"

/* Which kind of target a site calls. */
enum site_kind {
	SITE_NOP,
	SITE_SHARED,	/* ftrace_caller or ftrace_regs_caller */
	SITE_TRAMP,	/* the trampoline of the set's only ops */
	SITE_DIRECT,	/* the direct trampoline registered for the ip */
};

/* Per-record scratch of an update: the wanting set, then the patch list. */
union site_scratch {
	struct ftrace_site_set	*set;
	struct dyn_ftrace	*rec;
};

/* ftrace_patch.c: what a site wants and calls, and the registered client. */
unsigned long ftrace_site_target(unsigned long ip,
				 const struct ftrace_site_set *set,
				 bool enable, enum site_kind *kind);
void ftrace_site_mark_code(struct dyn_ftrace *rec,
			   const struct ftrace_site_set *set,
			   unsigned long addr, enum site_kind kind);
ftrace_func_t ftrace_sites_list_func(void);

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
/* The ops a site's literal should hold while it calls @addr. */
const struct ftrace_ops *ftrace_site_call_ops(const struct ftrace_site_set *set,
					      unsigned long addr);
bool ftrace_site_call_ops_stale(struct dyn_ftrace *rec,
				const struct ftrace_site_set *set,
				unsigned long addr);
#else
static inline bool ftrace_site_call_ops_stale(struct dyn_ftrace *rec,
					      const struct ftrace_site_set *set,
					      unsigned long addr)
{
	return false;
}
#endif

/*
 * ftrace_patch_arch.c, for the batch patcher: how many records the
 * iterator yields, one record's whole change in one question, and the
 * change recorded as made once its text is written.
 */
struct ftrace_batch_change;
unsigned int ftrace_rec_iter_count(void);
bool ftrace_site_change(struct dyn_ftrace *rec, bool enable,
			struct ftrace_batch_change *c);
void ftrace_site_changed(struct dyn_ftrace *rec, bool enable);

/* ftrace_patch_arch.c: run the update command over the listed records. */
void ftrace_sites_patch(union site_scratch *list, unsigned int nr, int command);
bool ftrace_sites_caller_stale(void);
/* What ftrace_bug() adds about a record's state (registered by the update). */
void ftrace_sites_bug_state(struct dyn_ftrace *rec);

#endif /* _KERNEL_TRACE_FTRACE_PATCH_INTERNAL_H */
