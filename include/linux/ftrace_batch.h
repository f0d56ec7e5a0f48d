/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call-site batch patcher: one ftrace_replace_code() for every arch
 * that selects HAVE_FTRACE_BATCH_PATCHER.  The core
 * (kernel/trace/ftrace_batch.c) decides which sites change, checks them,
 * and orders the writes; the arch only encodes a site, writes a span of
 * text and makes the CPUs see it.
 *
 * An update, in this order:
 *  1. Collect every record whose site changes, with its change (struct
 *     ftrace_batch_change: old and new target, and the new literal where
 *     the arch has CALL_OPS), asked of the patch layer once per record;
 *     the arch encodes it (ftrace_arch_site_encode()) and the site is
 *     checked against the live text (ftrace_arch_site_check()) as it is
 *     collected.  The first failure is reported through ftrace_bug() and
 *     nothing is written.  Sort by ip.
 *  2. Let the arch set sites aside (written alone, by
 *     ftrace_arch_batch_write_one()) or put them in round 1
 *     (ftrace_arch_batch_plan()).
 *  3. Group, in one walk over the sites, the writes of every step into
 *     spans: sorted writes (ftrace_arch_site_where()) no more than a page
 *     apart whose pages fit in FTRACE_BATCH_SPAN_MAX from the first one's
 *     page.  A span belongs to the highest round of its sites.  The spans
 *     are kept in one array (kvmalloc, bounded by the number of sites);
 *     without memory for it, every step of every round walks the sites
 *     and groups them again, with the same result.  When calls are
 *     removed, the sites set aside are written now, else after the steps.
 *  4. The steps, FTRACE_BATCH_NR_STEPS of them, for round 0 then round 1
 *     when calls are added, round 1 then round 0 when they are removed;
 *     a round without a span is skipped.  Each span of the round is
 *     written by one ftrace_arch_batch_poke().  With
 *     FTRACE_BATCH_SYNC_STEPS, ftrace_arch_batch_sync() follows every
 *     step but the last of a round.  One ftrace_arch_batch_sync() ends
 *     the steps.  ftrace_arch_batch_begin() and _end() enclose them, and
 *     are only called when some step writes.
 *  5. Record every site's change as made (what ftrace_update_record()
 *     does, without asking again).
 *
 * The arch provides, in <asm/ftrace_batch.h> (which only this header
 * includes, after enum ftrace_batch_state):
 *  - struct ftrace_arch_site (its part of a site), FTRACE_BATCH_NR_STEPS,
 *    FTRACE_BATCH_SYNC_STEPS, FTRACE_BATCH_SPAN_MAX,
 *    FTRACE_BATCH_STEP_SIZE(step) (the bytes a site writes in a step, for
 *    the length of a span) and FTRACE_BATCH_SAME_SPANS (1 if every step
 *    writes at the same address of every site, with the same size: the
 *    core then groups the spans once for all steps);
 *  - the per-site hooks, each either a static inline function there or
 *    declared there and defined out of line.  The core calls them for
 *    every site of an update, so an arch whose hooks are a few
 *    instructions should inline them:
 *
 *    int ftrace_arch_site_encode(struct ftrace_arch_site *a,
 *            unsigned long ip, const struct ftrace_batch_change *c)
 *      Fill @a for the site at @ip, whose change @c is.  Returns
 *      FTRACE_BATCH_STEPS, FTRACE_BATCH_SAME if nothing needs writing,
 *      or -EINVAL if a target cannot be encoded.
 *    int ftrace_arch_site_check(const struct ftrace_arch_site *a,
 *            unsigned long ip)
 *      Does the text at @ip hold what @a says it holds now?  0, -EFAULT,
 *      or -EINVAL with ftrace_expected pointing at the expected bytes.
 *    unsigned long ftrace_arch_site_where(const struct ftrace_arch_site *a,
 *            unsigned long ip, unsigned int step)
 *      The address the site at @ip writes in @step, 0 if none.  No side
 *      effects.
 *
 * Locking and lifetime:
 *  - Every hook runs with ftrace_lock and text_mutex held, and may sleep
 *    unless said otherwise.  Every writer of kernel text takes
 *    text_mutex, so a site checked in 1 still holds what was checked when
 *    it is written.
 *  - The batch lives on the updating task's stack and its sites in
 *    kvmalloc memory; both are freed after ftrace_arch_batch_end()
 *    returned.  An arch whose trap handler reads the batch publishes it in
 *    ftrace_arch_batch_begin() and makes sure in ftrace_arch_batch_end()
 *    that no CPU still reads it.  Sites do not move once the steps begin.
 */
#ifndef _LINUX_FTRACE_BATCH_H
#define _LINUX_FTRACE_BATCH_H

#include <linux/compiler.h>
#include <linux/types.h>

struct dyn_ftrace;
struct ftrace_ops;
struct task_struct;

/* What becomes of a site (struct ftrace_batch_site.state). */
enum ftrace_batch_state {
	FTRACE_BATCH_STEPS,	/* written by the steps */
	FTRACE_BATCH_SAME,	/* nothing to write; the record still changes */
	FTRACE_BATCH_ASIDE,	/* written alone, by write_one() */
	FTRACE_BATCH_DONE,	/* was set aside, and is written */
};

/**
 * struct ftrace_batch_change - one site's change, as the core decided it
 * @old: what the site calls now (0: the NOP)
 * @new: what it should call (0: the NOP)
 * @ops: with CALL_OPS, the ops its literal must get, NULL if the literal
 *	 holds it already; always NULL without CALL_OPS
 *
 * The core answers all of it with one lookup of the site's record, so
 * the arch's encoder asks the core nothing.
 */
struct ftrace_batch_change {
	unsigned long		old;
	unsigned long		new;
	const struct ftrace_ops	*ops;
};

#include <asm/ftrace_batch.h>

/**
 * struct ftrace_batch_site - one call site of an update
 * @ip: the site (rec->ip); the batch is sorted by it
 * @rec: its record
 * @state: an enum ftrace_batch_state
 * @round: 0, or 1 for the arch's second round
 * @arch: what the arch encoded: old and new text
 */
struct ftrace_batch_site {
	unsigned long		ip;
	struct dyn_ftrace	*rec;
	u8			state;
	u8			round;
	struct ftrace_arch_site	arch;
};

/**
 * struct ftrace_batch - the sites of one update
 * @sites: sorted by ip
 * @nr: how many
 * @enable: false when every site becomes the NOP
 * @patcher: the task that writes them
 */
struct ftrace_batch {
	struct ftrace_batch_site	*sites;
	unsigned int			nr;
	bool				enable;
	struct task_struct		*patcher;
};

/**
 * struct ftrace_batch_span - sites whose writes of one step share a mapping
 * @start: the lowest address written
 * @len: from @start to the end of the last write
 * @first: index of the first site in the batch
 * @last: index of the last one; sites in between that write nothing in the
 *	  step are skipped by the arch
 * @round: the highest round of its sites
 */
struct ftrace_batch_span {
	unsigned long	start;
	unsigned long	len;
	unsigned int	first;
	unsigned int	last;
	u8		round;
};

/* Index of the first site of @b at or above @ip.  No locks, no calls. */
static __always_inline unsigned int
ftrace_batch_lower_bound(const struct ftrace_batch *b, unsigned long ip)
{
	unsigned int lo = 0, hi = b->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (b->sites[mid].ip < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The site of @b at @ip, or NULL.  Safe in a trap handler (no calls). */
static __always_inline struct ftrace_batch_site *
ftrace_batch_find(const struct ftrace_batch *b, unsigned long ip)
{
	unsigned int i = ftrace_batch_lower_bound(b, ip);

	if (i < b->nr && b->sites[i].ip == ip)
		return &b->sites[i];
	return NULL;
}

/* ---- the arch's hooks (see the top of this file for when each runs) ---- */

/* Can the steps run now?  If not, every site is written alone. */
bool ftrace_arch_batch_ready(void);
/*
 * The per-site hooks, ftrace_arch_site_encode(), _check() and _where(), are
 * defined or declared in <asm/ftrace_batch.h>; their contract is above.
 */
/* Set sites FTRACE_BATCH_ASIDE or put them in round 1. */
void ftrace_arch_batch_plan(struct ftrace_batch *b);
/* Write @step of the FTRACE_BATCH_STEPS sites of @sp with one mapping. */
void ftrace_arch_batch_poke(const struct ftrace_batch *b,
			    const struct ftrace_batch_span *sp,
			    unsigned int step);
/* Make every CPU execute the text written so far. */
void ftrace_arch_batch_sync(void);
/* Around the steps; see the lifetime rules above. */
void ftrace_arch_batch_begin(struct ftrace_batch *b);
void ftrace_arch_batch_end(struct ftrace_batch *b);
/* Write one site on its own; then, after one or more, finish them. */
void ftrace_arch_batch_write_one(struct ftrace_batch_site *s);
void ftrace_arch_batch_one_done(void);

/* ---- for the arch's one-site hooks (ftrace_make_call() and friends) ---- */

int ftrace_batch_change_one(struct dyn_ftrace *rec, unsigned long old,
			    unsigned long new);

#endif /* _LINUX_FTRACE_BATCH_H */
