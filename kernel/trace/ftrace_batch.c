// SPDX-License-Identifier: GPL-2.0
/*
 * The call-site batch patcher: which sites an update changes, the check
 * that each holds what its record says, and the order of the writes; the
 * arch encodes and writes (<linux/ftrace_batch.h> states the order and
 * every hook's contract).
 *
 * Invariants:
 *  - ftrace_lock and text_mutex are held from the first record asked
 *    about to the last one updated, so the records and the text stay what
 *    was collected and checked.
 *  - Nothing is written before every site of the update was encoded and
 *    checked; a failure reports through ftrace_bug() (which kills the
 *    core) and leaves all text as it was.
 *  - A record is updated (ftrace_site_changed()) only after its text was
 *    written.  On a failure no record of the update is.
 *  - Without memory for the batch, or while the arch cannot run the steps,
 *    every site is written alone, still after all were checked.  Without
 *    memory for the spans, each step walks the sites to group them again.
 *
 * Cost: an update of every site walks the records once (the collect: one
 * question to the patch layer per record, the arch's encode and check,
 * inline on x86 and arm64) and the sites twice (group every step's spans
 * at once, then update the records); each step walks only its spans, and
 * the arch the sites of each span.
 */

#include <linux/ftrace.h>
#include <linux/ftrace_batch.h>
#include <linux/lockdep.h>
#include <linux/memory.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "ftrace_patch_internal.h"

/* Bit 0 of ftrace_replace_code()'s argument: calls enabled. */
#define BATCH_ENABLE	BIT(0)

/* Rounds of the steps: 0, and 1 for the arch's second round. */
#define BATCH_NR_ROUNDS	2

/*
 * How many groupings of the sites into spans the steps need, and the one
 * @step writes by: one for all steps if they write at the same places.
 */
#define BATCH_NR_LAYOUTS \
	(FTRACE_BATCH_SAME_SPANS ? 1 : FTRACE_BATCH_NR_STEPS)
#define BATCH_LAYOUT(step)	(FTRACE_BATCH_SAME_SPANS ? 0 : (step))

/*
 * A span as the plan keeps it: its first and last site, the grouping it
 * belongs to and its round.  Its address and length come back from the
 * two sites' writes.
 */
struct batch_span_ref {
	unsigned int	first;
	unsigned int	last;
	u8		layout;
	u8		round;
};

/**
 * struct batch_plan - the spans of an update, grouped once
 * @spans: every grouping's spans, each grouping's in ascending order; NULL
 *	   when there was no memory: each step then walks the sites
 * @nr_spans: how many
 * @nr_aside: sites left to write alone (FTRACE_BATCH_ASIDE); an upper
 *	      bound without @spans
 * @writes: some step writes a span of the round
 */
struct batch_plan {
	struct batch_span_ref	*spans;
	unsigned int		nr_spans;
	unsigned int		nr_aside;
	bool			writes[BATCH_NR_ROUNDS];
};

/* ---- collecting and checking ----------------------------------------------- */

/* Fill @s for the change @c of @rec's site.  Return: 0 or the encoder's error. */
static __always_inline int batch_site_encode(struct ftrace_batch_site *s,
					     struct dyn_ftrace *rec,
					     const struct ftrace_batch_change *c)
{
	int ret;

	s->ip = rec->ip;
	s->rec = rec;
	s->round = 0;
	ret = ftrace_arch_site_encode(&s->arch, s->ip, c);
	if (ret < 0)
		return ret;
	s->state = ret;
	return 0;
}

/*
 * Fill @s for @rec, asking the patch layer once what changes.
 *
 * Return: 1 if the record does not change, 0 if @s holds its change, or
 * the encoder's error.
 */
static __always_inline int batch_site_fill(struct ftrace_batch_site *s,
					   struct dyn_ftrace *rec, bool enable)
{
	struct ftrace_batch_change c;

	if (!ftrace_site_change(rec, enable, &c))
		return 1;
	return batch_site_encode(s, rec, &c);
}

/*
 * Fill @s for @rec and check its text.  Return: 1 if the record does not
 * change, 0 if @s holds its change and the text what @s says, or an error
 * (ftrace_expected is what the check left, NULL after an encoding error).
 */
static __always_inline int batch_site_take(struct ftrace_batch_site *s,
					   struct dyn_ftrace *rec, bool enable)
{
	int ret = batch_site_fill(s, rec, enable);

	if (ret < 0)
		ftrace_expected = NULL;
	else if (!ret)
		ret = ftrace_arch_site_check(&s->arch, s->ip);
	return ret;
}

/* Stop the core: @rec's site cannot be changed. */
static void batch_report(struct dyn_ftrace *rec, bool enable, int err)
{
	/* Sets ftrace_bug_type for this record. */
	ftrace_test_record(rec, enable);
	ftrace_bug(err, rec);
	ftrace_expected = NULL;
}

static int batch_site_cmp(const void *a, const void *b)
{
	const struct ftrace_batch_site *x = a, *y = b;

	if (x->ip == y->ip)
		return 0;
	return x->ip < y->ip ? -1 : 1;
}

/* Runs batch_order() reorders rather than sorting every site. */
#define BATCH_MAX_RUNS	16

struct batch_run {
	unsigned int start, len;
};

static unsigned long batch_run_first(struct ftrace_batch *b,
				     const struct batch_run *r)
{
	return b->sites[r->start].ip;
}

static unsigned long batch_run_last(struct ftrace_batch *b,
				    const struct batch_run *r)
{
	return b->sites[r->start + r->len - 1].ip;
}

/*
 * Put b->sites in address order.  They come as ascending runs, one per
 * image, in the order the images were loaded; where modules sit below
 * the kernel (arm64 without KASLR) the runs are out of order.  Runs that
 * do not overlap are put in order with one copy; anything else (more
 * runs than BATCH_MAX_RUNS, overlapping runs, no memory for the copy)
 * is sorted site by site.
 */
static void batch_order(struct ftrace_batch *b)
{
	struct batch_run runs[BATCH_MAX_RUNS];
	struct ftrace_batch_site *out;
	unsigned int nruns = 0, i, j, k;

	for (i = 0; i < b->nr; i++) {
		if (i && b->sites[i - 1].ip < b->sites[i].ip) {
			runs[nruns - 1].len++;
			continue;
		}
		if (nruns == BATCH_MAX_RUNS)
			goto sort_all;
		runs[nruns].start = i;
		runs[nruns].len = 1;
		nruns++;
	}
	for (i = 1; i < nruns; i++) {
		for (j = i; j > 0 && batch_run_first(b, &runs[j - 1]) >
				     batch_run_first(b, &runs[j]); j--)
			swap(runs[j - 1], runs[j]);
	}
	for (i = 1; i < nruns; i++) {
		if (batch_run_last(b, &runs[i - 1]) >= batch_run_first(b, &runs[i]))
			goto sort_all;
	}
	out = kvmalloc_array(b->nr, sizeof(*out), GFP_KERNEL);
	if (!out)
		goto sort_all;
	for (i = 0, k = 0; i < nruns; i++) {
		memcpy(&out[k], &b->sites[runs[i].start],
		       runs[i].len * sizeof(*out));
		k += runs[i].len;
	}
	kvfree(b->sites);
	b->sites = out;
	return;

sort_all:
	sort(b->sites, b->nr, sizeof(*b->sites), batch_site_cmp, NULL);
}

/*
 * Every record that changes, into b->sites, each checked against the text
 * as it is taken, sorted.  Records come sorted per image (vmlinux, then
 * each module in load order), so ordering them is at most a reordering
 * of those runs (batch_order()).
 *
 * Return: 0; -ENOMEM (nothing collected); or an encoder's or a check's
 * error, already reported (nothing may be written then).
 */
static int batch_collect(struct ftrace_batch *b)
{
	unsigned int n = ftrace_rec_iter_count();
	struct ftrace_rec_iter *iter;
	bool sorted = true;

	if (!n)
		return 0;
	b->sites = kvmalloc_array(n, sizeof(*b->sites), GFP_KERNEL);
	if (!b->sites)
		return -ENOMEM;

	for_ftrace_rec_iter(iter) {
		struct dyn_ftrace *rec = ftrace_rec_iter_record(iter);
		struct ftrace_batch_site *s = &b->sites[b->nr];
		int ret = batch_site_take(s, rec, b->enable);

		if (ret > 0)
			continue;
		if (ret < 0) {
			batch_report(rec, b->enable, ret);
			return ret;
		}
		if (b->nr && s[-1].ip > s->ip)
			sorted = false;
		b->nr++;
	}
	if (!sorted)
		batch_order(b);
	return 0;
}

/* ---- spans ----------------------------------------------------------------- */

/* May the span @sp grow to the write of @size bytes at @addr? */
static __always_inline bool batch_span_takes(const struct ftrace_batch_span *sp,
					     unsigned long addr,
					     unsigned int size)
{
	unsigned long end = sp->start + sp->len;

	/*
	 * Sorted, so addr >= end.  The gap is never written, but all of it
	 * is mapped: a gap shorter than a page skips no page, so every page
	 * of the span holds a write of one image.
	 */
	return addr >= end && addr - end < PAGE_SIZE &&
	       addr + size - (sp->start & PAGE_MASK) <= FTRACE_BATCH_SPAN_MAX;
}

/*
 * Site @i writes @size bytes at @addr in round @round: add it to the span
 * @sp being grouped (none yet if its len is 0).  Return: false if @sp is
 * complete (or none): the caller then ends it and starts the next one
 * with batch_span_start().
 */
static __always_inline bool batch_span_grow(struct ftrace_batch_span *sp,
					    unsigned long addr,
					    unsigned int size, unsigned int i,
					    u8 round)
{
	if (!sp->len || !batch_span_takes(sp, addr, size))
		return false;
	sp->last = i;
	sp->len = addr + size - sp->start;
	sp->round = max(sp->round, round);
	return true;
}

static __always_inline void batch_span_start(struct ftrace_batch_span *sp,
					     unsigned long addr,
					     unsigned int size, unsigned int i,
					     u8 round)
{
	*sp = (struct ftrace_batch_span){
		.start	= addr,
		.len	= size,
		.first	= i,
		.last	= i,
		.round	= round,
	};
}

static __always_inline void batch_plan_add(struct batch_plan *p,
					   const struct ftrace_batch_span *sp,
					   unsigned int layout)
{
	p->spans[p->nr_spans++] = (struct batch_span_ref){
		.first	= sp->first,
		.last	= sp->last,
		.layout	= layout,
		.round	= sp->round,
	};
	p->writes[sp->round] = true;
}

/*
 * Group the sites the steps write into the spans of every grouping, in
 * one walk, and count the sites set aside.  A grouping has at most one
 * span per site, so the array is allocated once, for all of them.
 * Without memory, @p says to walk the sites in every step.
 */
static void batch_plan_spans(struct ftrace_batch *b, struct batch_plan *p)
{
	struct ftrace_batch_span open[BATCH_NR_LAYOUTS] = {};
	unsigned int i, l;

	*p = (struct batch_plan){ .nr_aside = b->nr };
	p->spans = kvmalloc_array(b->nr, BATCH_NR_LAYOUTS * sizeof(*p->spans),
				  GFP_KERNEL);
	if (!p->spans)
		return;

	p->nr_aside = 0;
	for (i = 0; i < b->nr; i++) {
		const struct ftrace_batch_site *s = &b->sites[i];

		if (s->state != FTRACE_BATCH_STEPS) {
			p->nr_aside += s->state == FTRACE_BATCH_ASIDE;
			continue;
		}
		for (l = 0; l < BATCH_NR_LAYOUTS; l++) {
			unsigned int size = FTRACE_BATCH_STEP_SIZE(l);
			unsigned long addr;

			addr = ftrace_arch_site_where(&s->arch, s->ip, l);
			if (!addr ||
			    batch_span_grow(&open[l], addr, size, i, s->round))
				continue;
			if (open[l].len)
				batch_plan_add(p, &open[l], l);
			batch_span_start(&open[l], addr, size, i, s->round);
		}
	}
	for (l = 0; l < BATCH_NR_LAYOUTS; l++)
		if (open[l].len)
			batch_plan_add(p, &open[l], l);
}

/* ---- the steps ------------------------------------------------------------- */

/* A span is complete: write it if it is of @round.  1 if it is. */
static unsigned int batch_span_done(struct ftrace_batch *b,
				    const struct ftrace_batch_span *sp,
				    unsigned int step, u8 round, bool write)
{
	if (sp->round != round)
		return 0;
	if (write)
		ftrace_arch_batch_poke(b, sp, step);
	return 1;
}

/*
 * Without a plan: walk the spans of @step and write (if @write) those of
 * @round.  Returns how many spans of @round the step has; without @write,
 * stops at the first one.
 */
static unsigned int batch_walk(struct ftrace_batch *b, unsigned int step,
			       u8 round, bool write)
{
	unsigned int size = FTRACE_BATCH_STEP_SIZE(step);
	struct ftrace_batch_span sp = {};
	unsigned int n = 0, i;

	for (i = 0; i < b->nr; i++) {
		const struct ftrace_batch_site *s = &b->sites[i];
		unsigned long addr;

		if (s->state != FTRACE_BATCH_STEPS)
			continue;
		addr = ftrace_arch_site_where(&s->arch, s->ip, step);
		if (!addr || batch_span_grow(&sp, addr, size, i, s->round))
			continue;
		if (sp.len) {
			n += batch_span_done(b, &sp, step, round, write);
			if (n && !write)
				return n;
		}
		batch_span_start(&sp, addr, size, i, s->round);
	}
	if (sp.len)
		n += batch_span_done(b, &sp, step, round, write);
	return n;
}

/* Without a plan: does any step write a span of @round? */
static bool batch_round_writes(struct ftrace_batch *b, u8 round)
{
	unsigned int step;

	for (step = 0; step < FTRACE_BATCH_NR_STEPS; step++)
		if (batch_walk(b, step, round, false))
			return true;
	return false;
}

/* Write the spans of @round in @step, from the plan or by a walk. */
static void batch_step(struct ftrace_batch *b, const struct batch_plan *p,
		       unsigned int step, u8 round)
{
	unsigned int size = FTRACE_BATCH_STEP_SIZE(step);
	unsigned int layout = BATCH_LAYOUT(step);
	unsigned int k;

	if (!p->spans) {
		batch_walk(b, step, round, true);
		return;
	}
	for (k = 0; k < p->nr_spans; k++) {
		const struct batch_span_ref *r = &p->spans[k];
		const struct ftrace_batch_site *first, *last;
		struct ftrace_batch_span sp;

		if (r->layout != layout || r->round != round)
			continue;
		first = &b->sites[r->first];
		last = &b->sites[r->last];
		sp = (struct ftrace_batch_span){
			.start	= ftrace_arch_site_where(&first->arch, first->ip,
							 step),
			.first	= r->first,
			.last	= r->last,
			.round	= r->round,
		};
		sp.len = ftrace_arch_site_where(&last->arch, last->ip, step) +
			 size - sp.start;
		ftrace_arch_batch_poke(b, &sp, step);
	}
}

/*
 * Every step for the spans of @round.  Ends with the last step written
 * but not yet synced: the next round's first sync, or the final one,
 * completes it.
 */
static void batch_round(struct ftrace_batch *b, const struct batch_plan *p,
			u8 round)
{
	unsigned int step;

	for (step = 0; step < FTRACE_BATCH_NR_STEPS; step++) {
		batch_step(b, p, step, round);
		if (FTRACE_BATCH_SYNC_STEPS && step + 1 < FTRACE_BATCH_NR_STEPS)
			ftrace_arch_batch_sync();
	}
}

/* Round 1 after round 0 when calls are added, before it when removed. */
static void batch_run_steps(struct ftrace_batch *b, const struct batch_plan *p)
{
	u8 first = b->enable ? 0 : 1;
	bool w_first, w_second;

	if (p->spans) {
		w_first = p->writes[first];
		w_second = p->writes[!first];
	} else {
		w_first = batch_round_writes(b, first);
		w_second = batch_round_writes(b, !first);
	}
	if (!w_first && !w_second)
		return;
	ftrace_arch_batch_begin(b);
	if (w_first)
		batch_round(b, p, first);
	if (w_second)
		batch_round(b, p, !first);
	ftrace_arch_batch_sync();
	ftrace_arch_batch_end(b);
}

/* The sites set aside and not yet written, each alone. */
static void batch_write_aside(struct ftrace_batch *b, struct batch_plan *p)
{
	bool wrote = false;
	unsigned int i;

	for (i = 0; i < b->nr && p->nr_aside; i++) {
		struct ftrace_batch_site *s = &b->sites[i];

		if (s->state != FTRACE_BATCH_ASIDE)
			continue;
		ftrace_arch_batch_write_one(s);
		s->state = FTRACE_BATCH_DONE;
		p->nr_aside--;
		wrote = true;
	}
	if (wrote)
		ftrace_arch_batch_one_done();
	/* All are written now (the bound without spans is over, too). */
	p->nr_aside = 0;
}

/* ---- without a batch ------------------------------------------------------- */

/*
 * Site by site, when there is no memory for the batch or the arch cannot
 * run the steps: still checks every site before writing any.
 */
static void batch_replace_unbatched(bool enable)
{
	struct ftrace_batch_site s;
	struct ftrace_rec_iter *iter;
	struct dyn_ftrace *rec;
	int ret;

	for_ftrace_rec_iter(iter) {
		rec = ftrace_rec_iter_record(iter);
		ret = batch_site_take(&s, rec, enable);
		if (ret > 0)
			continue;
		if (ret) {
			batch_report(rec, enable, ret);
			return;
		}
	}

	for_ftrace_rec_iter(iter) {
		rec = ftrace_rec_iter_record(iter);
		/* Not 0 only for records that do not change: all were checked. */
		if (batch_site_fill(&s, rec, enable))
			continue;
		ftrace_arch_batch_write_one(&s);
		ftrace_site_changed(rec, enable);
	}
	ftrace_arch_batch_one_done();
}

/* ---- the core's hooks ------------------------------------------------------ */

/**
 * ftrace_replace_code - patch every call site whose target changed
 * @mod_flags: bit 0 set: calls are enabled; clear: every site becomes the NOP
 *
 * Collects the records the iterator yields that change (ftrace_site_change()
 * says which, and how) and checks, as it takes each, that its site holds
 * what the record says; groups the writes into spans once, has the arch
 * write them in its steps (see <linux/ftrace_batch.h>), and then records
 * each change as made.  A site that cannot be
 * changed stops the update before anything is written and is reported
 * through ftrace_bug(), which kills the core.
 *
 * Context: from ftrace_modify_all_code(); ftrace_lock and text_mutex held;
 * may sleep.
 */
void ftrace_replace_code(int mod_flags)
{
	struct ftrace_batch b = {
		.enable		= mod_flags & BATCH_ENABLE,
		.patcher	= current,
	};
	struct batch_plan p;
	unsigned int i;
	int err;

	lockdep_assert_held(&text_mutex);

	if (!ftrace_arch_batch_ready()) {
		batch_replace_unbatched(b.enable);
		return;
	}
	err = batch_collect(&b);
	if (err == -ENOMEM) {
		batch_replace_unbatched(b.enable);
		return;
	}
	if (err || !b.nr)
		goto out;

	ftrace_arch_batch_plan(&b);
	batch_plan_spans(&b, &p);
	/* Removing calls: the sites set aside stop calling first. */
	if (!b.enable)
		batch_write_aside(&b, &p);
	batch_run_steps(&b, &p);
	batch_write_aside(&b, &p);

	for (i = 0; i < b.nr; i++)
		ftrace_site_changed(b.sites[i].rec, b.enable);
	kvfree(p.spans);
out:
	kvfree(b.sites);
}

/**
 * ftrace_batch_change_one - change one call site on its own
 * @rec: the site's record
 * @old: what it calls now (0: the NOP)
 * @new: what it should call (0: the NOP)
 *
 * For the arch's ftrace_make_call(), ftrace_make_nop() and
 * ftrace_modify_call(): encode, check, write alone and finish.  The
 * record is the caller's to update.
 *
 * Context: ftrace_lock and text_mutex held; may sleep.
 * Return: 0, or the encoder's or the check's error (-EINVAL, -EFAULT);
 * nothing is written then.
 */
int ftrace_batch_change_one(struct dyn_ftrace *rec, unsigned long old,
			    unsigned long new)
{
	struct ftrace_batch_change c = { .old = old, .new = new };
	struct ftrace_batch_site s;
	int ret;

	lockdep_assert_held(&text_mutex);

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
	c.ops = new ? ftrace_rec_call_ops(rec) : &ftrace_nop_ops;
	if (c.ops == ftrace_arch_rec_call_ops(rec))
		c.ops = NULL;
#endif
	ret = batch_site_encode(&s, rec, &c);
	if (ret < 0)
		return ret;
	ret = ftrace_arch_site_check(&s.arch, s.ip);
	if (ret)
		return ret;
	ftrace_arch_batch_write_one(&s);
	ftrace_arch_batch_one_done();
	return 0;
}
