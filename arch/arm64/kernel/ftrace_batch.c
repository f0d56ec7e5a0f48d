// SPDX-License-Identifier: GPL-2.0
/*
 * arm64's hooks of the call-site batch patcher (<linux/ftrace_batch.h>,
 * kernel/trace/ftrace_batch.c) for a whole update, and the one-site hooks
 * on top of them; the per-site hooks are inline in <asm/ftrace_batch.h>.
 *
 * A change of a site is at most two writes: its ops literal (CALL_OPS) and
 * its BL slot.  The core writes them in two steps, every literal of the
 * update, then every BL slot that changes, each step one
 * aarch64_insn_poke_custom() per page of text it touches (which does the
 * cache maintenance of what it wrote), and ends with one IPI round
 * (kick_all_cpus_sync()) that makes every CPU refetch the text.  No CPU
 * is stopped: what a site may hold, and why each write is safe on live
 * code, is stated in ftrace.c.
 *
 * Invariants:
 *  - text_mutex serialises every write and site_wrote: the core holds it
 *    around the whole update (ftrace_arch_code_modify_prepare()), and every
 *    other writer of kernel text takes it too, so a slot checked still
 *    holds what was checked when it is written.  ftrace_lock is held as
 *    well.
 *  - The literals are written before the BL slots, so a new BL never
 *    reaches a literal that still names the old ops.  A site whose BL
 *    becomes the NOP gets &ftrace_nop_ops first.
 *  - site_wrote is set from the first write of an update (or of a site
 *    written alone) until the IPI round that follows it.
 */

#include <linux/ftrace.h>
#include <linux/ftrace_batch.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/smp.h>

#include <asm/insn.h>
#include <asm/patching.h>

/* Text written since the last IPI round; under text_mutex. */
static bool site_wrote;

/**
 * ftrace_arch_batch_ready - can the steps run now
 *
 * Return: true; the fixmap writes work from the first update on.
 */
bool ftrace_arch_batch_ready(void)
{
	return true;
}

/**
 * ftrace_arch_batch_plan - nothing to plan
 * @b: the batch
 *
 * Every write is safe on live code: no site is set aside, one round.
 */
void ftrace_arch_batch_plan(struct ftrace_batch *b)
{
}

/* One step of one span, for aarch64_insn_poke_custom(). */
struct site_span_step {
	const struct ftrace_batch	*b;
	const struct ftrace_batch_span	*sp;
	unsigned int			step;
};

/*
 * aarch64_insn_poke_custom() writer: @dst is the writable alias of
 * [sp->start + done, + len), one page.  Each word is one store.
 */
static void site_span_fill(void *dst, void *arg, size_t done, size_t len)
{
	const struct site_span_step *w = arg;
	unsigned long base = w->sp->start + done;
	unsigned int i;

	for (i = w->sp->first; i <= w->sp->last; i++) {
		const struct ftrace_batch_site *s = &w->b->sites[i];
		unsigned long addr;

		if (s->state != FTRACE_BATCH_STEPS)
			continue;
		addr = ftrace_arch_site_where(&s->arch, s->ip, w->step);
		if (addr < base || addr >= base + len)
			continue;
		if (w->step == FTRACE_BATCH_ARM64_LITERALS)
			WRITE_ONCE(*(u64 *)(dst + (addr - base)),
				   (u64)s->arch.ops);
		else
			WRITE_ONCE(*(__le32 *)(dst + (addr - base)),
				   cpu_to_le32(s->arch.insn));
	}
}

/**
 * ftrace_arch_batch_poke - write one step of a span, one page
 * @b: the batch
 * @sp: the span (within one page)
 * @step: FTRACE_BATCH_ARM64_LITERALS or _INSNS
 */
void ftrace_arch_batch_poke(const struct ftrace_batch *b,
			    const struct ftrace_batch_span *sp,
			    unsigned int step)
{
	struct site_span_step w = { .b = b, .sp = sp, .step = step };

	aarch64_insn_poke_custom(site_span_fill, (void *)sp->start, &w,
				 sp->len);
	site_wrote = true;
}

/**
 * ftrace_arch_batch_sync - make every CPU refetch the text written so far
 */
void ftrace_arch_batch_sync(void)
{
	kick_all_cpus_sync();
	site_wrote = false;
}

/**
 * ftrace_arch_batch_begin - nothing to publish
 * @b: the batch
 */
void ftrace_arch_batch_begin(struct ftrace_batch *b)
{
}

/**
 * ftrace_arch_batch_end - nothing to unpublish
 * @b: the batch
 */
void ftrace_arch_batch_end(struct ftrace_batch *b)
{
}

/**
 * ftrace_arch_batch_write_one - write one site on its own
 * @s: the site, in any state but FTRACE_BATCH_SAME
 *
 * Its literal, then its BL slot, each a span of its own, through a batch
 * of one copy of @s that the steps' writer takes.
 */
void ftrace_arch_batch_write_one(struct ftrace_batch_site *s)
{
	struct ftrace_batch_site alone = *s;
	struct ftrace_batch one = { .sites = &alone, .nr = 1 };
	unsigned int step;

	if (s->state == FTRACE_BATCH_SAME)
		return;
	alone.state = FTRACE_BATCH_STEPS;
	for (step = 0; step < FTRACE_BATCH_NR_STEPS; step++) {
		struct ftrace_batch_span sp = {
			.start	= ftrace_arch_site_where(&alone.arch, alone.ip,
							 step),
			.len	= FTRACE_BATCH_STEP_SIZE(step),
		};

		if (sp.start)
			ftrace_arch_batch_poke(&one, &sp, step);
	}
}

/**
 * ftrace_arch_batch_one_done - resynchronise after sites written alone
 */
void ftrace_arch_batch_one_done(void)
{
	if (site_wrote)
		ftrace_arch_batch_sync();
}

/* ---- the hooks of the core ------------------------------------------------ */

/**
 * ftrace_make_call - make a NOP site call @addr
 * @rec: the record
 * @addr: ftrace_caller or a direct trampoline
 *
 * Context: ftrace_lock and text_mutex held.
 * Return: 0, -EFAULT, or -EINVAL (unexpected text, or no way to reach @addr).
 */
int ftrace_make_call(struct dyn_ftrace *rec, unsigned long addr)
{
	return ftrace_batch_change_one(rec, 0, addr);
}

/**
 * ftrace_make_nop - make a site that calls @addr the NOP
 * @mod: unused (sites are prepared by ftrace_init_nop())
 * @rec: the record
 * @addr: what the site calls now
 *
 * Context: ftrace_lock and text_mutex held.
 * Return: 0, -EFAULT or -EINVAL.
 */
int ftrace_make_nop(struct module *mod, struct dyn_ftrace *rec,
		    unsigned long addr)
{
	return ftrace_batch_change_one(rec, addr, 0);
}

/**
 * ftrace_modify_call - move a calling site from @old_addr to @addr
 * @rec: the record
 * @old_addr: what it calls now
 * @addr: what it should call (may be @old_addr when only its literal changes)
 *
 * Context: ftrace_lock and text_mutex held.
 * Return: 0, -EFAULT or -EINVAL.
 */
int ftrace_modify_call(struct dyn_ftrace *rec, unsigned long old_addr,
		       unsigned long addr)
{
	return ftrace_batch_change_one(rec, old_addr, addr);
}

/**
 * ftrace_arch_code_modify_prepare - take text_mutex for an update
 *
 * Writes to kernel text are serialised with kprobes, jump labels, static
 * calls and module loading, which take text_mutex too.
 */
void ftrace_arch_code_modify_prepare(void)
	__acquires(&text_mutex)
{
	mutex_lock(&text_mutex);
}

/**
 * ftrace_arch_code_modify_post_process - release text_mutex after an update
 */
void ftrace_arch_code_modify_post_process(void)
	__releases(&text_mutex)
{
	mutex_unlock(&text_mutex);
}

/**
 * arch_ftrace_update_code - carry out an update command
 * @command: the update command
 *
 * Every write is safe against CPUs running the code, so no CPU is stopped.
 *
 * Context: ftrace_lock and text_mutex held.
 */
void arch_ftrace_update_code(int command)
{
	ftrace_modify_all_code(command);
}
