// SPDX-License-Identifier: GPL-2.0
/*
 * Batched updates of arm64 call sites: the core's update runs through here
 * (ftrace_replace_code()), and so do the one-site hooks.
 *
 * A change of a site is at most two writes: its ops literal (CALL_OPS) and
 * its BL slot.  Changes are queued in record order, up to SITE_BATCH sites,
 * and a full queue is written in two phases: every literal of the queue,
 * then every instruction, each phase one aarch64_insn_poke_custom() per
 * page of text it touches (that call does the cache maintenance of what it
 * wrote).  One IPI round (kick_all_cpus_sync()) at the end of the update
 * makes every CPU refetch the text.  No CPU is stopped: what a site may
 * hold, and why each write is safe on live code, is stated in ftrace.c.
 *
 * Invariants:
 *  - text_mutex serialises the queue (site_batch, site_batch_nr,
 *    site_batch_wrote) and every write: the core takes it around the whole
 *    update (ftrace_arch_code_modify_prepare()), and every other writer of
 *    kernel text takes it too, so a slot checked here still holds what was
 *    checked when the queue is written.  ftrace_lock is held as well.
 *  - A site is queued only after its BL slot was checked against what its
 *    record says it calls (arm64_site_check()).  A mismatch stops the
 *    update: what was queued before it (whose records were already
 *    updated) is written, the site itself is not, and ftrace_bug() reports
 *    it, which kills the core.
 *  - Within a queue the literals are written before the instructions, so
 *    a new BL never reaches a literal that still names the old ops.
 *  - The queue is empty between updates; site_batch_wrote is set from the
 *    first write of an update until the IPI round that follows it.
 */

#include <linux/ftrace.h>
#include <linux/lockdep.h>
#include <linux/memory.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/smp.h>

#include <asm/insn.h>
#include <asm/patching.h>

#include "ftrace_site.h"

/* ---- the queue ------------------------------------------------------------ */

/*
 * A queued change: the new instruction of a BL slot and/or the new
 * literal.
 */
struct site_write {
	unsigned long		ip;
	const struct ftrace_ops	*ops;	/* new literal; NULL: keep it */
	u32			insn;
	bool			set_insn;
};

#define SITE_BATCH	256

/* Under text_mutex; see the invariants. */
static struct site_write site_batch[SITE_BATCH];
static unsigned int site_batch_nr;
static bool site_batch_wrote;	/* since the last kick */

enum site_phase { SITE_LITERALS, SITE_INSNS };

/* The word @w changes in @phase, 0 if none. */
static unsigned long site_write_addr(const struct site_write *w,
				     enum site_phase phase)
{
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
	if (phase == SITE_LITERALS)
		return w->ops ? arm64_site_literal(w->ip) : 0;
#endif
	if (phase == SITE_INSNS && w->set_insn)
		return w->ip;
	return 0;
}

/* The writes of one phase that fall in one page. */
struct site_run {
	unsigned long		start;	/* lowest address written */
	unsigned int		first;	/* site_batch[first..last] */
	unsigned int		last;
	enum site_phase		phase;
};

/*
 * aarch64_insn_poke_custom() writer: @dst is the writable alias of
 * [run->start + done, + len), one page.  Each word is one store.
 */
static void site_run_fill(void *dst, void *arg, size_t done, size_t len)
{
	const struct site_run *run = arg;
	unsigned long base = run->start + done;
	unsigned int i;

	for (i = run->first; i <= run->last; i++) {
		const struct site_write *w = &site_batch[i];
		unsigned long addr = site_write_addr(w, run->phase);

		if (addr < base || addr >= base + len)
			continue;
		if (run->phase == SITE_LITERALS)
			WRITE_ONCE(*(u64 *)(dst + (addr - base)), (u64)w->ops);
		else
			WRITE_ONCE(*(__le32 *)(dst + (addr - base)),
				   cpu_to_le32(w->insn));
	}
}

/* Write one phase of the queue: one poke per run of writes in one page. */
static void site_batch_phase(enum site_phase phase)
{
	unsigned int i = 0, size;

	size = phase == SITE_LITERALS ? sizeof(u64) : AARCH64_INSN_SIZE;
	while (i < site_batch_nr) {
		unsigned long addr = site_write_addr(&site_batch[i], phase);
		struct site_run run = { .phase = phase };
		unsigned long end, page;

		if (!addr) {
			i++;
			continue;
		}
		page = addr & PAGE_MASK;
		run.start = addr;
		end = addr + size;
		run.first = i;
		run.last = i;
		for (i++; i < site_batch_nr; i++) {
			addr = site_write_addr(&site_batch[i], phase);
			if (!addr)
				continue;
			if ((addr & PAGE_MASK) != page)
				break;
			run.start = min(run.start, addr);
			end = max(end, addr + size);
			run.last = i;
		}
		aarch64_insn_poke_custom(site_run_fill, (void *)run.start, &run,
					 end - run.start);
	}
}

/* Literals first, so that a new BL never reaches a stale literal. */
static void site_batch_flush(void)
{
	if (!site_batch_nr)
		return;
	site_batch_phase(SITE_LITERALS);
	site_batch_phase(SITE_INSNS);
	site_batch_nr = 0;
	site_batch_wrote = true;
}

/* Make every CPU refetch the text written so far. */
static void site_batch_kick(void)
{
	if (site_batch_wrote)
		kick_all_cpus_sync();
	site_batch_wrote = false;
}

/*
 * Queue the change of @rec's site from calling @old to calling @new (0:
 * the NOP) after checking that the slot holds what @old means.  The
 * literal becomes what the core wants for a calling site, or the stub.
 */
static int site_queue(struct dyn_ftrace *rec, unsigned long old,
		      unsigned long new)
{
	u32 old_insn = arm64_site_insn(rec->ip, old);
	u32 new_insn = arm64_site_insn(rec->ip, new);
	struct site_write *w;
	int err;

	lockdep_assert_held(&text_mutex);

	if (new_insn == AARCH64_BREAK_FAULT || old_insn == AARCH64_BREAK_FAULT)
		return -EINVAL;
	err = arm64_site_check(rec->ip, old_insn);
	if (err)
		return err;

	if (site_batch_nr == SITE_BATCH)
		site_batch_flush();
	w = &site_batch[site_batch_nr++];
	w->ip = rec->ip;
	w->insn = new_insn;
	w->set_insn = new_insn != old_insn;
	w->ops = NULL;
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
	w->ops = new ? ftrace_rec_call_ops(rec) : &ftrace_nop_ops;
	if (w->ops == ftrace_arch_rec_call_ops(rec))
		w->ops = NULL;
#endif
	if (!w->set_insn && !w->ops)
		site_batch_nr--;
	return 0;
}

/* One site on its own: queue, write, resynchronise. */
static int site_change_one(struct dyn_ftrace *rec, unsigned long old,
			   unsigned long new)
{
	int err = site_queue(rec, old, new);

	site_batch_flush();
	site_batch_kick();
	return err;
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
	return site_change_one(rec, 0, addr);
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
	return site_change_one(rec, addr, 0);
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
	return site_change_one(rec, old_addr, addr);
}

/**
 * ftrace_replace_code - patch every record the core lists, in batches
 * @mod_flags: bit 0 set: calls enabled; clear: every site becomes a NOP
 *
 * Context: from ftrace_modify_all_code(), ftrace_lock and text_mutex held.
 */
void ftrace_replace_code(int mod_flags)
{
	bool enable = mod_flags & 1;
	struct ftrace_rec_iter *iter;
	struct dyn_ftrace *rec;
	int err;

	for_ftrace_rec_iter(iter) {
		unsigned long old, new;

		rec = ftrace_rec_iter_record(iter);
		if (ftrace_test_record(rec, enable) == FTRACE_UPDATE_IGNORE)
			continue;
		old = ftrace_get_addr_curr(rec);
		new = enable ? ftrace_get_addr_new(rec) : 0;
		err = site_queue(rec, old, new);
		if (err) {
			site_batch_flush();
			site_batch_kick();
			ftrace_bug(err, rec);
			return;
		}
		ftrace_update_record(rec, enable);
	}
	site_batch_flush();
	site_batch_kick();
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
