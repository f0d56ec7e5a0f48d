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
 *  - A record is updated (ftrace_update_record()) only after its text was
 *    written.  On a failure no record of the update is.
 *  - Without memory for the batch, or while the arch cannot run the steps,
 *    every site is written alone, still after all were checked.
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

/* Bit 0 of ftrace_replace_code()'s argument: calls enabled. */
#define BATCH_ENABLE	BIT(0)

/* ---- collecting and checking ----------------------------------------------- */

/*
 * Fill @s for @rec.  A call being made was the NOP, a call being removed
 * becomes it, so only the other side needs asking.
 *
 * Return: 1 if the record does not change, 0 if @s holds its change, or
 * the encoder's error.
 */
static int batch_site_fill(struct ftrace_batch_site *s, struct dyn_ftrace *rec,
			   bool enable)
{
	int action = ftrace_test_record(rec, enable);
	unsigned long old, new;
	int ret;

	if (action == FTRACE_UPDATE_IGNORE)
		return 1;
	old = action == FTRACE_UPDATE_MAKE_CALL ? 0 : ftrace_get_addr_curr(rec);
	new = action == FTRACE_UPDATE_MAKE_NOP ? 0 : ftrace_get_addr_new(rec);

	s->ip = rec->ip;
	s->rec = rec;
	s->round = 0;
	ret = ftrace_arch_batch_encode(s, old, new);
	if (ret < 0)
		return ret;
	s->state = ret;
	return 0;
}

/*
 * Stop the core: @rec's site cannot be changed.  ftrace_expected is what
 * the check left (NULL after an encoding error).
 */
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

/*
 * Records come sorted per image (vmlinux, then each module in load
 * order); modules usually load at rising addresses, so this rarely sorts.
 */
static void batch_sort(struct ftrace_batch *b)
{
	unsigned int i;

	for (i = 1; i < b->nr; i++)
		if (b->sites[i - 1].ip > b->sites[i].ip)
			break;
	if (i < b->nr)
		sort(b->sites, b->nr, sizeof(*b->sites), batch_site_cmp, NULL);
}

/*
 * Every record that changes, into b->sites, sorted.  0; -ENOMEM (nothing
 * collected); or an encoder's error, already reported.
 */
static int batch_collect(struct ftrace_batch *b)
{
	struct ftrace_rec_iter *iter;
	unsigned int n = 0;

	for_ftrace_rec_iter(iter)
		n++;
	if (!n)
		return 0;
	b->sites = kvmalloc_array(n, sizeof(*b->sites), GFP_KERNEL);
	if (!b->sites)
		return -ENOMEM;

	for_ftrace_rec_iter(iter) {
		struct dyn_ftrace *rec = ftrace_rec_iter_record(iter);
		int ret = batch_site_fill(&b->sites[b->nr], rec, b->enable);

		if (ret > 0)
			continue;
		if (ret < 0) {
			ftrace_expected = NULL;
			batch_report(rec, b->enable, ret);
			return ret;
		}
		b->nr++;
	}
	batch_sort(b);
	return 0;
}

/* Every site holds what its record says.  0, or the error reported. */
static int batch_check(struct ftrace_batch *b)
{
	unsigned int i;
	int err;

	for (i = 0; i < b->nr; i++) {
		err = ftrace_arch_batch_check(&b->sites[i]);
		if (err) {
			batch_report(b->sites[i].rec, b->enable, err);
			return err;
		}
	}
	return 0;
}

/* ---- the steps ------------------------------------------------------------- */

/* May the span @sp grow to the write of @size bytes at @addr? */
static bool batch_span_takes(const struct ftrace_batch_span *sp,
			     unsigned long addr, unsigned int size)
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
 * Walk the spans of @step and write (if @write) those of @round.
 * Returns how many spans of @round the step has; without @write, stops
 * at the first one.
 */
static unsigned int batch_walk(struct ftrace_batch *b, unsigned int step,
			       u8 round, bool write)
{
	unsigned int size = FTRACE_BATCH_STEP_SIZE(step);
	struct ftrace_batch_span sp = {};
	unsigned int n = 0, i;
	bool open = false;

	for (i = 0; i < b->nr; i++) {
		const struct ftrace_batch_site *s = &b->sites[i];
		unsigned long addr;

		if (s->state != FTRACE_BATCH_STEPS)
			continue;
		addr = ftrace_arch_batch_where(s, step);
		if (!addr)
			continue;
		if (open && batch_span_takes(&sp, addr, size)) {
			sp.last = i;
			sp.len = addr + size - sp.start;
			sp.round = max(sp.round, s->round);
			continue;
		}
		if (open) {
			n += batch_span_done(b, &sp, step, round, write);
			if (n && !write)
				return n;
		}
		sp = (struct ftrace_batch_span){
			.start	= addr,
			.len	= size,
			.first	= i,
			.last	= i,
			.round	= s->round,
		};
		open = true;
	}
	if (open)
		n += batch_span_done(b, &sp, step, round, write);
	return n;
}

/* Does any step write a span of @round? */
static bool batch_round_writes(struct ftrace_batch *b, u8 round)
{
	unsigned int step;

	for (step = 0; step < FTRACE_BATCH_NR_STEPS; step++)
		if (batch_walk(b, step, round, false))
			return true;
	return false;
}

/*
 * Every step for the spans of @round.  Ends with the last step written
 * but not yet synced: the next round's first sync, or the final one,
 * completes it.
 */
static void batch_round(struct ftrace_batch *b, u8 round)
{
	unsigned int step;

	for (step = 0; step < FTRACE_BATCH_NR_STEPS; step++) {
		batch_walk(b, step, round, true);
		if (FTRACE_BATCH_SYNC_STEPS && step + 1 < FTRACE_BATCH_NR_STEPS)
			ftrace_arch_batch_sync();
	}
}

/* Round 1 after round 0 when calls are added, before it when removed. */
static void batch_run_steps(struct ftrace_batch *b)
{
	u8 first = b->enable ? 0 : 1;
	bool w_first = batch_round_writes(b, first);
	bool w_second = batch_round_writes(b, !first);

	if (!w_first && !w_second)
		return;
	ftrace_arch_batch_begin(b);
	if (w_first)
		batch_round(b, first);
	if (w_second)
		batch_round(b, !first);
	ftrace_arch_batch_sync();
	ftrace_arch_batch_end(b);
}

/* The sites set aside and not yet written, each alone. */
static void batch_write_aside(struct ftrace_batch *b)
{
	bool wrote = false;
	unsigned int i;

	for (i = 0; i < b->nr; i++) {
		struct ftrace_batch_site *s = &b->sites[i];

		if (s->state != FTRACE_BATCH_ASIDE)
			continue;
		ftrace_arch_batch_write_one(s);
		s->state = FTRACE_BATCH_DONE;
		wrote = true;
	}
	if (wrote)
		ftrace_arch_batch_one_done();
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
		ret = batch_site_fill(&s, rec, enable);
		if (ret > 0)
			continue;
		if (ret < 0)
			ftrace_expected = NULL;
		else
			ret = ftrace_arch_batch_check(&s);
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
		ftrace_update_record(rec, enable);
	}
	ftrace_arch_batch_one_done();
}

/* ---- the core's hooks ------------------------------------------------------ */

/**
 * ftrace_replace_code - patch every call site whose target changed
 * @mod_flags: bit 0 set: calls are enabled; clear: every site becomes the NOP
 *
 * Collects the records the iterator yields (ftrace_test_record() says
 * which change), checks that every site holds what its record says, has
 * the arch write them in its steps (see <linux/ftrace_batch.h>), and then
 * records each change with ftrace_update_record().  A site that cannot be
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
	if (err || !b.nr || batch_check(&b))
		goto out;

	ftrace_arch_batch_plan(&b);
	/* Removing calls: the sites set aside stop calling first. */
	if (!b.enable)
		batch_write_aside(&b);
	batch_run_steps(&b);
	batch_write_aside(&b);

	for (i = 0; i < b.nr; i++)
		ftrace_update_record(b.sites[i].rec, b.enable);
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
	struct ftrace_batch_site s = { .ip = rec->ip, .rec = rec };
	int ret;

	lockdep_assert_held(&text_mutex);

	ret = ftrace_arch_batch_encode(&s, old, new);
	if (ret < 0)
		return ret;
	s.state = ret;
	ret = ftrace_arch_batch_check(&s);
	if (ret)
		return ret;
	ftrace_arch_batch_write_one(&s);
	ftrace_arch_batch_one_done();
	return 0;
}
