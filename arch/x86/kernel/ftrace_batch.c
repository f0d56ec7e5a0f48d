// SPDX-License-Identifier: GPL-2.0
/*
 * x86's hooks of the call-site batch patcher (<linux/ftrace_batch.h>,
 * kernel/trace/ftrace_batch.c): one int3 protocol for a whole update.
 *
 * The core collects and checks the sites and orders the writes; a site
 * is encoded (the 5-byte NOP or call) and checked by the inline hooks of
 * <asm/ftrace_batch.h>, and here each step of the protocol
 * -- int3 on the first byte of every site, sync, the other four bytes,
 * sync, the new first bytes -- is written span by span, all sites within
 * a span of text (up to 16 pages) under one mapping (text_poke_custom()),
 * which writes the bytes of the sites and nothing else.  An update of
 * every site in vmlinux thus costs about three mappings per span and six
 * IPI rounds, where one text_poke_queue() per site costs three
 * text_poke() calls per site.
 *
 * While our int3s are in the text, a CPU that hits one ends up in
 * ftrace_batch_int3(), which do_int3() calls first for a kernel-mode int3
 * (patches/x86-ftrace-int3-first.patch); it finds the site in the live
 * batch and emulates the new instruction.  User-mode int3s (uprobes) never
 * reach it.
 *
 * Invariants:
 *  - text_mutex is held for the whole update (the core's rule), and every
 *    writer of kernel text takes it; bytes between the sites of a span are
 *    not written.
 *  - ftrace_batch_live points at the batch from before its first int3 is
 *    written (ftrace_arch_batch_begin()) until after the sync that follows
 *    its last first-byte write.  The handler only reads the batch (and
 *    sets ->arch.trapped).  After ftrace_batch_live is cleared, one more
 *    text_poke_sync() returns only when every CPU has left any handler
 *    that could still have read it (handlers run with interrupts off);
 *    only then does ftrace_arch_batch_end() return and the core may free
 *    the batch.
 *  - Our int3 is never put on a site that runs between the trap and our
 *    handler (the fb_trap_path functions): a trap there would trap again
 *    before we could handle it.  ftrace_arch_batch_plan() sets those sites
 *    aside; they go through text_poke_queue(), whose handler runs before
 *    ours and calls nothing traceable.  Since our handler runs before
 *    kprobes, kgdb and the die chain, an int3 of the live batch is ours
 *    even on a site that carries a kprobe.
 *  - Sites the patching task itself runs ("hot": text_poke(), IPIs,
 *    perf's text-poke event...) go in round 1, which the core writes after
 *    the others when calls are being added and before them when removed,
 *    so that the patching task does not trap on every call it makes in
 *    between.  The list below seeds them; the handler learns the rest.
 */

#define pr_fmt(fmt) "ftrace: " fmt

#include <linux/ftrace.h>
#include <linux/ftrace_batch.h>
#include <linux/kallsyms.h>
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include <asm/ftrace.h>
#include <asm/insn.h>
#include <asm/text-patching.h>

/* Learned hot sites kept between updates. */
#define FB_LEARNED_MAX		64
/* Function ranges of the trap path (with their callees) and hot seeds. */
#define FB_RANGES_MAX		192

/* The batch whose int3s may be in the text; see the invariants. */
/* Read without a call by ftrace_batch_int3() in <asm/text-patching.h>. */
struct ftrace_batch *ftrace_batch_live;

/* The patching task hit an int3 of the live batch (cleared on publishing). */
static bool fb_any_trapped;

/* Set once the function ranges are known. */
static bool fb_ready __ro_after_init;

enum fb_range_kind {
	FB_RANGE_TRAP_PATH,
	FB_RANGE_HOT,
};

struct fb_range {
	unsigned long	start;
	unsigned long	end;
	enum fb_range_kind kind;
};

/*
 * exc_int3() -> do_int3() -> ftrace_batch_int3(): the functions a kernel
 * int3 runs before our handler that could carry a call site (the entry
 * code in between is noinstr).  The functions each of them calls directly
 * are added too, so a compiler clone ("foo.isra.0") or a helper not named
 * here is still covered.  Names that do not exist in a configuration are
 * skipped.
 */
static const char * const fb_trap_path[] __initconst = {
	"exc_int3", "do_int3",
};

/* What the patching task runs between our steps (seeds of the hot set). */
static const char * const fb_hot_path[] __initconst = {
	"text_poke", "__text_poke", "text_poke_memcpy", "__get_locked_pte",
	"walk_to_pmd", "__pte_offset_map_lock", "__pte_offset_map",
	"_raw_spin_lock", "_raw_spin_unlock", "preempt_count_add",
	"preempt_count_sub", "switch_mm_irqs_off", "leave_mm",
	"hw_breakpoint_restore", "flush_tlb_mm_range", "flush_tlb_func",
	"flush_tlb_one_user", "native_flush_tlb_one_user", "vmalloc_to_page",
	"vmalloc_to_pfn", "is_vmalloc_addr", "text_poke_sync",
	"on_each_cpu_cond_mask", "smp_call_function_many",
	"smp_call_function_many_cond", "native_send_call_func_ipi",
	"do_sync_core", "perf_event_text_poke",
};

static struct fb_range fb_ranges[FB_RANGES_MAX] __ro_after_init;
static unsigned int fb_nr_ranges __ro_after_init;

/* Hot sites the handler caught; a ring, under text_mutex. */
static unsigned long fb_learned[FB_LEARNED_MAX];
static unsigned int fb_learned_next;

/* ftrace_bug() prints this as "expected". */
static u8 fb_expected[MCOUNT_INSN_SIZE];

/* ---- the int3 handler ---------------------------------------------------- */

/* Do what the site's new instruction does. */
static __always_inline void fb_emulate(struct pt_regs *regs,
				       const struct ftrace_batch_site *s)
{
	if (s->arch.new[0] == CALL_INSN_OPCODE) {
		s32 disp = get_unaligned((const s32 *)&s->arch.new[1]);

		int3_emulate_call(regs, s->ip + CALL_INSN_SIZE + disp);
		return;
	}
	int3_emulate_jmp(regs, s->ip + MCOUNT_INSN_SIZE);
}

/**
 * __ftrace_batch_int3 - handle an int3 of the call-site batch being written
 * @regs: the trap's registers, kernel mode
 *
 * Called by do_int3() before anything else, through ftrace_batch_int3(),
 * which calls only while a batch is live.  If the int3 is one the live
 * batch wrote on a call site, emulates the site's new instruction.
 *
 * Context: the int3 trap, interrupts off, maybe inside an NMI: no locks,
 * nothing traceable, only reads of the published batch.
 * Return: true if the int3 was ours and is handled.
 */
bool notrace __ftrace_batch_int3(struct pt_regs *regs)
{
	struct ftrace_batch *b;
	struct ftrace_batch_site *s;

	b = READ_ONCE(ftrace_batch_live);
	if (!b)
		return false;
	s = ftrace_batch_find(b, regs->ip - INT3_INSN_SIZE);
	if (!s || s->state != FTRACE_BATCH_STEPS)
		return false;

	if (b->patcher == current && !s->arch.trapped) {
		WRITE_ONCE(s->arch.trapped, 1);
		WRITE_ONCE(fb_any_trapped, true);
	}
	fb_emulate(regs, s);
	return true;
}

NOKPROBE_SYMBOL(__ftrace_batch_int3);

/* ---- setup --------------------------------------------------------------- */

/* Note the function containing @addr; false when the table is full. */
static bool __init fb_add_function(unsigned long addr, enum fb_range_kind kind)
{
	unsigned long size, offset, start;
	unsigned int i;

	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return true;
	start = addr - offset;
	for (i = 0; i < fb_nr_ranges; i++)
		if (fb_ranges[i].start == start && fb_ranges[i].kind == kind)
			return true;
	if (fb_nr_ranges == FB_RANGES_MAX)
		return false;
	fb_ranges[fb_nr_ranges++] = (struct fb_range){
		.start	= start,
		.end	= start + size,
		.kind	= kind,
	};
	return true;
}

/* Where a direct call or jump at @ip goes, or 0. */
static unsigned long __init fb_branch_dest(const struct insn *insn,
					   unsigned long ip)
{
	u8 op = insn->opcode.bytes[0];

	switch (op) {
	case CALL_INSN_OPCODE:
	case JMP32_INSN_OPCODE:
	case JMP8_INSN_OPCODE:
	case 0x70 ... 0x7f:			/* jcc rel8 */
		break;
	case 0x0f:				/* jcc rel32 */
		if ((insn->opcode.bytes[1] & 0xf0) != 0x80)
			return 0;
		break;
	default:
		return 0;
	}
	return ip + insn->length + insn->immediate.value;
}

/* Note every function that [start, end) branches to directly, as trap path. */
static bool __init fb_add_callees(unsigned long start, unsigned long end)
{
	unsigned long ip = start;
	struct insn insn;

	while (ip < end && !insn_decode_kernel(&insn, (void *)ip)) {
		unsigned long dest = fb_branch_dest(&insn, ip);

		ip += insn.length;
		if (!dest || (dest >= start && dest < end) ||
		    dest == (unsigned long)__fentry__)
			continue;
		if (!fb_add_function(dest, FB_RANGE_TRAP_PATH))
			return false;
	}
	return true;
}

static bool __init fb_add_trap_path(void)
{
	unsigned int i, named;

	for (i = 0; i < ARRAY_SIZE(fb_trap_path); i++) {
		unsigned long addr = kallsyms_lookup_name(fb_trap_path[i]);

		if (addr && !fb_add_function(addr, FB_RANGE_TRAP_PATH))
			return false;
	}
	named = fb_nr_ranges;
	for (i = 0; i < named; i++)
		if (!fb_add_callees(fb_ranges[i].start, fb_ranges[i].end))
			return false;
	return true;
}

/**
 * ftrace_dyn_arch_init - set up batched call-site updates
 *
 * Looks up the functions on the int3 path and on the patching path.
 * Without kallsyms the trap path cannot be known: every update then goes
 * site by site through text_poke_queue().
 *
 * Context: ftrace_init(), early boot, interrupts off.
 * Return: 0; batching stays off on failure, function tracing works anyway.
 */
int __init ftrace_dyn_arch_init(void)
{
	unsigned int i;

	if (!IS_ENABLED(CONFIG_KALLSYMS) || !fb_add_trap_path()) {
		pr_info("int3 path unknown: call sites are patched one at a time\n");
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(fb_hot_path); i++) {
		unsigned long addr = kallsyms_lookup_name(fb_hot_path[i]);

		if (addr)
			fb_add_function(addr, FB_RANGE_HOT);
	}
	fb_ready = true;
	return 0;
}

/* ---- readiness and the check's report ------------------------------------ */

/**
 * ftrace_arch_batch_ready - can the int3 steps run now
 *
 * Return: false before the trap path is known (ftrace_dyn_arch_init())
 * or before text_poke() works: every site is then written alone.
 */
bool ftrace_arch_batch_ready(void)
{
	return fb_ready && poking_mm;
}

/**
 * ftrace_arch_site_mismatch - report a site that does not hold its old bytes
 * @a: the site's encoding
 *
 * The out-of-line half of ftrace_arch_site_check() (<asm/ftrace_batch.h>),
 * for the ftrace_bug() report that follows.
 *
 * Context: ftrace_lock held (ftrace_expected is under it).
 * Return: -EINVAL, with ftrace_expected pointing at a copy of the old bytes.
 */
int ftrace_arch_site_mismatch(const struct ftrace_arch_site *a)
{
	memcpy(fb_expected, a->old, MCOUNT_INSN_SIZE);
	ftrace_expected = fb_expected;
	return -EINVAL;
}

/* ---- planning: the trap path and the hot sites ------------------------------ */

static void fb_mark_range(struct ftrace_batch *b, const struct fb_range *r)
{
	unsigned int i;

	for (i = ftrace_batch_lower_bound(b, r->start);
	     i < b->nr && b->sites[i].ip < r->end; i++) {
		struct ftrace_batch_site *s = &b->sites[i];

		if (r->kind == FB_RANGE_HOT)
			s->round = 1;
		else if (s->state == FTRACE_BATCH_STEPS)
			s->state = FTRACE_BATCH_ASIDE;
	}
}

/**
 * ftrace_arch_batch_plan - keep the trap path away from our int3s
 * @b: the checked batch
 *
 * Sites of the trap path are set aside (text_poke_queue()); hot sites, seeded
 * or learned, go in round 1.
 */
void ftrace_arch_batch_plan(struct ftrace_batch *b)
{
	unsigned int i;

	for (i = 0; i < fb_nr_ranges; i++)
		fb_mark_range(b, &fb_ranges[i]);
	for (i = 0; i < FB_LEARNED_MAX; i++) {
		struct ftrace_batch_site *s;

		if (!fb_learned[i])
			continue;
		s = ftrace_batch_find(b, fb_learned[i]);
		if (s)
			s->round = 1;
	}
}

/* ---- writing ------------------------------------------------------------------ */

/* One step of one span, for text_poke_custom(). */
struct fb_span_step {
	const struct ftrace_batch	*b;
	const struct ftrace_batch_span	*sp;
	unsigned int			step;
};

/*
 * @text is the writable alias of the span's start; only sites are written.
 *
 * The alias lives in text_poke()'s temporary mm, at an address in the user
 * half, which has no KASAN shadow: an instrumented store there makes KASAN
 * read shadow that is not mapped (a general protection fault on a
 * non-canonical address).  So the writer is not instrumented, and its tail
 * store is one unaligned word rather than a memcpy() that KASAN intercepts.
 * What it reads is our own batch, checked where it was built; what it
 * loops on is in locals, since its byte stores may alias anything.
 */
static void __no_sanitize_address fb_span_fill(void *text, const void *arg,
					       size_t len)
{
	const struct fb_span_step *w = arg;
	const struct ftrace_batch_span *sp = w->sp;
	const struct ftrace_batch_site *s = &w->b->sites[sp->first];
	const struct ftrace_batch_site *end = &w->b->sites[sp->last + 1];
	unsigned long start = sp->start;
	unsigned int step = w->step;

	for (; s < end; s++) {
		u8 *p = text + (s->ip - start);

		if (s->state != FTRACE_BATCH_STEPS)
			continue;
		if (step == FTRACE_BATCH_X86_TRAP)
			p[0] = INT3_INSN_OPCODE;
		else if (step == FTRACE_BATCH_X86_TAIL)
			put_unaligned(get_unaligned((const u32 *)(s->arch.new + 1)),
				      (u32 *)(p + 1));
		else
			p[0] = s->arch.new[0];
	}
}

/* After the last step: every site holds its new bytes, or we are lost. */
static void fb_span_check(const struct ftrace_batch *b,
			  const struct ftrace_batch_span *sp)
{
	unsigned int i;

	for (i = sp->first; i <= sp->last; i++) {
		const struct ftrace_batch_site *s = &b->sites[i];

		if (s->state == FTRACE_BATCH_STEPS)
			BUG_ON(!ftrace_arch_insn_eq((const u8 *)s->ip,
						    s->arch.new));
	}
}

/**
 * ftrace_arch_batch_poke - write one step of a span under one mapping
 * @b: the batch
 * @sp: the span
 * @step: FTRACE_BATCH_X86_TRAP, _TAIL or _HEAD
 *
 * After the tail bytes, reports each site to perf (a trace decoder such as
 * Intel PT switches to the new bytes at this event, whichever way each CPU
 * goes meanwhile, since the sites trap); after the first bytes, checks
 * that every site holds its new bytes.
 */
void ftrace_arch_batch_poke(const struct ftrace_batch *b,
			    const struct ftrace_batch_span *sp,
			    unsigned int step)
{
	struct fb_span_step w = { .b = b, .sp = sp, .step = step };
	unsigned int i;

	text_poke_custom(fb_span_fill, (void *)sp->start, &w, sp->len);

	if (step == FTRACE_BATCH_X86_HEAD)
		fb_span_check(b, sp);
	if (step != FTRACE_BATCH_X86_TAIL)
		return;
	for (i = sp->first; i <= sp->last; i++) {
		const struct ftrace_batch_site *s = &b->sites[i];

		if (s->state == FTRACE_BATCH_STEPS)
			perf_event_text_poke((void *)s->ip, s->arch.old,
					     MCOUNT_INSN_SIZE, s->arch.new,
					     MCOUNT_INSN_SIZE);
	}
}

/**
 * ftrace_arch_batch_sync - make every CPU execute what the steps wrote
 */
void ftrace_arch_batch_sync(void)
{
	text_poke_sync();
}

/**
 * ftrace_arch_batch_begin - publish the batch for the int3 handler
 * @b: the batch, complete
 */
void ftrace_arch_batch_begin(struct ftrace_batch *b)
{
	WRITE_ONCE(fb_any_trapped, false);
	/* The batch is complete before any CPU can trap on it. */
	smp_store_release(&ftrace_batch_live, b);
}

static void fb_learn(unsigned long ip)
{
	unsigned int i;

	for (i = 0; i < FB_LEARNED_MAX; i++)
		if (fb_learned[i] == ip)
			return;
	fb_learned[fb_learned_next] = ip;
	fb_learned_next = (fb_learned_next + 1) % FB_LEARNED_MAX;
}

/**
 * ftrace_arch_batch_end - unpublish the batch, and remember where we trapped
 * @b: the batch; every step written and synced
 */
void ftrace_arch_batch_end(struct ftrace_batch *b)
{
	unsigned int i;

	/* No CPU traps on our sites any more; wait out those reading @b. */
	WRITE_ONCE(ftrace_batch_live, NULL);
	text_poke_sync();

	/* Learn only if the handler caught the patching task (this one). */
	if (!READ_ONCE(fb_any_trapped))
		return;
	for (i = 0; i < b->nr; i++) {
		const struct ftrace_batch_site *s = &b->sites[i];

		if (s->arch.trapped && !s->round)
			fb_learn(s->ip);
	}
}

/**
 * ftrace_arch_batch_write_one - write a site on its own
 * @s: the site
 *
 * Before text_poke() works (never the case for ftrace_init()'s callers,
 * but cheap to allow) the one CPU writes directly; else the site goes to
 * text_poke_queue(), whose own int3 handler runs before ours, unless its
 * bytes stay (FTRACE_BATCH_SAME).  __ref: text_poke_early() is init text
 * without modules.
 */
void __ref ftrace_arch_batch_write_one(struct ftrace_batch_site *s)
{
	if (!poking_mm)
		text_poke_early((void *)s->ip, s->arch.new, MCOUNT_INSN_SIZE);
	else if (s->state != FTRACE_BATCH_SAME)
		text_poke_queue((void *)s->ip, s->arch.new, MCOUNT_INSN_SIZE,
				NULL);
}

/**
 * ftrace_arch_batch_one_done - finish the sites written on their own
 */
void ftrace_arch_batch_one_done(void)
{
	if (poking_mm)
		text_poke_finish();
}

/**
 * arch_ftrace_update_code - carry out an update command
 * @command: FTRACE_* command bits
 *
 * Live patching with int3 needs no stopped machine: the generic update
 * runs here, and its site changes come back to ftrace_replace_code().
 *
 * Context: ftrace_lock and text_mutex held.
 */
void arch_ftrace_update_code(int command)
{
	ftrace_modify_all_code(command);
}
