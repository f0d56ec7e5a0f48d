// SPDX-License-Identifier: GPL-2.0
/*
 * Batched updates of x86 call sites: one int3 protocol for a whole update.
 *
 * ftrace_replace_code() gets every record whose target changes.  Each site
 * is changed the usual safe way -- int3 on its first byte, sync, the other
 * four bytes, sync, the new first byte, sync -- but every step covers all
 * sites at once, and all sites within a span of text (at most two pages)
 * are written under one mapping of the span (text_poke_custom()), which
 * writes the bytes of the sites and nothing else.  An update of every site
 * in vmlinux thus costs about three mappings per two pages of text and six
 * IPI rounds, where one text_poke_queue() per site costs three text_poke()
 * calls per site.
 *
 * While our int3s are in the text, a CPU that hits one ends up in
 * ftrace_batch_int3(), which do_int3() calls first for a kernel-mode int3
 * (patches/x86-ftrace-int3-first.patch); it finds the site in the live
 * batch and emulates the new instruction.  User-mode int3s (uprobes) never
 * reach it.
 *
 * Invariants:
 *  - The caller holds text_mutex for the whole update, and every writer
 *    of kernel text takes it.  So the sites we checked stay what we checked
 *    until we are done; bytes between the sites of a span are not written.
 *  - Nothing is written before every site was checked against what its
 *    record says it holds; a mismatch reports through ftrace_bug() and
 *    leaves all text as it was.
 *  - fb_live points at the batch from before its first int3 is written
 *    until after the text_poke_sync() that follows its last first-byte
 *    write.  The handler only reads the batch (and sets ->trapped).  After
 *    fb_live is cleared, one more text_poke_sync() returns only when every
 *    CPU has left any handler that could still have read it (handlers run
 *    with interrupts off); only then is the batch (on the patching task's
 *    stack, its arrays in kvmalloc memory) freed.
 *  - Our int3 is never put on a site that runs between the trap and our
 *    handler (the fb_trap_path functions): a trap there would trap again
 *    before we could handle it.  Those sites go through text_poke_queue(),
 *    whose handler runs before ours and calls nothing traceable.  Since
 *    our handler runs before kprobes, kgdb and the die chain, an int3 of
 *    the live batch is ours even on a site that carries a kprobe.
 *  - Sites the patching task itself runs ("hot": text_poke(), IPIs,
 *    perf's text-poke event...) get a round of their own, after the others
 *    when calls are being added and before them when removed, so that the
 *    patching task does not trap on every call it makes in between.  The
 *    list below seeds them; the handler learns the rest.
 */

#define pr_fmt(fmt) "ftrace: " fmt

#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>

#include <asm/ftrace.h>
#include <asm/insn.h>
#include <asm/nops.h>
#include <asm/text-patching.h>

/* Bit 0 of ftrace_replace_code()'s argument: calls enabled. */
#define FB_ENABLE		BIT(0)

/*
 * text_poke_custom() maps up to 16 pages with one switch to the poking mm
 * (the switches, three per span, were most of an update's time).
 */
#define FB_SPAN_MAX		(16 * PAGE_SIZE)

/* Learned hot sites kept between updates. */
#define FB_LEARNED_MAX		64
/* Function ranges of the trap path (with their callees) and hot seeds. */
#define FB_RANGES_MAX		192

enum fb_how {
	FB_INT3,	/* in a span, written by the int3 rounds */
	FB_QUEUE,	/* must not get our int3: text_poke_queue() */
	FB_SAME,	/* the new bytes are the old ones */
	FB_DONE,	/* was FB_QUEUE, already written */
};

struct fb_site {
	unsigned long		ip;
	struct dyn_ftrace	*rec;
	u8			old[MCOUNT_INSN_SIZE];
	u8			new[MCOUNT_INSN_SIZE];
	u8			how;		/* enum fb_how */
	u8			hot;		/* goes in the hot round */
	u8			trapped;	/* the patching task hit our int3 */
};

/* Sites [first, last] written by one text_poke() of [start, start + len). */
struct fb_span {
	unsigned long	start;
	unsigned int	len;
	unsigned int	first;
	unsigned int	last;
	bool		hot;
};

struct fb_batch {
	struct fb_site		*sites;		/* sorted by ip */
	unsigned int		nr;
	struct fb_span		*spans;		/* sorted */
	unsigned int		nr_spans;
	struct task_struct	*patcher;
	bool			enable;
};

enum fb_step {
	FB_STEP_TRAP,	/* int3 on the first byte */
	FB_STEP_TAIL,	/* the new bytes 1..4 */
	FB_STEP_HEAD,	/* the new first byte */
};

/* The batch whose int3s may be in the text; see the invariants. */
static struct fb_batch *fb_live;

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

/* Index of the first site at or above @ip. */
static __always_inline unsigned int fb_lower_bound(const struct fb_batch *b,
						   unsigned long ip)
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

static __always_inline struct fb_site *fb_find(struct fb_batch *b,
					       unsigned long ip)
{
	unsigned int i = fb_lower_bound(b, ip);

	if (i < b->nr && b->sites[i].ip == ip)
		return &b->sites[i];
	return NULL;
}

/* Do what the site's new instruction does. */
static __always_inline void fb_emulate(struct pt_regs *regs,
				       const struct fb_site *s)
{
	if (s->new[0] == CALL_INSN_OPCODE) {
		s32 disp = get_unaligned((const s32 *)&s->new[1]);

		int3_emulate_call(regs, s->ip + CALL_INSN_SIZE + disp);
		return;
	}
	int3_emulate_jmp(regs, s->ip + MCOUNT_INSN_SIZE);
}

/**
 * ftrace_batch_int3 - handle an int3 of the call-site batch being written
 * @regs: the trap's registers, kernel mode
 *
 * Called by do_int3() before anything else.  If the int3 is one the live
 * batch wrote on a call site, emulates the site's new instruction.
 *
 * Context: the int3 trap, interrupts off, maybe inside an NMI: no locks,
 * nothing traceable, only reads of the published batch.
 * Return: true if the int3 was ours and is handled.
 */
bool notrace ftrace_batch_int3(struct pt_regs *regs)
{
	struct fb_batch *b;
	struct fb_site *s;

	b = READ_ONCE(fb_live);
	if (!b)
		return false;
	s = fb_find(b, regs->ip - INT3_INSN_SIZE);
	if (!s || s->how != FB_INT3)
		return false;

	if (b->patcher == current && !s->trapped)
		WRITE_ONCE(s->trapped, 1);
	fb_emulate(regs, s);
	return true;
}

NOKPROBE_SYMBOL(ftrace_batch_int3);

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

/* ---- collecting the update ------------------------------------------------ */

static void fb_insn(u8 *insn, unsigned long ip, unsigned long target)
{
	if (!target) {
		memcpy(insn, x86_nops[MCOUNT_INSN_SIZE], MCOUNT_INSN_SIZE);
		return;
	}
	__text_gen_insn(insn, CALL_INSN_OPCODE, (void *)ip, (void *)target,
			CALL_INSN_SIZE);
}

/* What @rec's site holds now and what it should hold. */
static void fb_rec_insns(struct dyn_ftrace *rec, bool enable, u8 *old, u8 *new)
{
	fb_insn(old, rec->ip, ftrace_get_addr_curr(rec));
	fb_insn(new, rec->ip, enable ? ftrace_get_addr_new(rec) : 0);
}

/*
 * The same for a record ftrace_test_record() gave @action: a call being
 * made was the NOP, a call being removed becomes it, so only the other
 * side needs asking.
 */
static void fb_action_insns(struct dyn_ftrace *rec, int action, u8 *old,
			    u8 *new)
{
	fb_insn(old, rec->ip, action == FTRACE_UPDATE_MAKE_CALL ? 0 :
			      ftrace_get_addr_curr(rec));
	fb_insn(new, rec->ip, action == FTRACE_UPDATE_MAKE_NOP ? 0 :
			      ftrace_get_addr_new(rec));
}

static int fb_site_cmp(const void *a, const void *b)
{
	const struct fb_site *x = a, *y = b;

	if (x->ip == y->ip)
		return 0;
	return x->ip < y->ip ? -1 : 1;
}

/*
 * Records come sorted per image (vmlinux, then each module in load
 * order); modules usually load at rising addresses, so this rarely sorts.
 */
static void fb_sort(struct fb_batch *b)
{
	unsigned int i;

	for (i = 1; i < b->nr; i++)
		if (b->sites[i - 1].ip > b->sites[i].ip)
			break;
	if (i < b->nr)
		sort(b->sites, b->nr, sizeof(*b->sites), fb_site_cmp, NULL);
}

/* Every record that changes, into b->sites.  0 or -ENOMEM. */
static int fb_collect(struct fb_batch *b)
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
		int action = ftrace_test_record(rec, b->enable);
		struct fb_site *s;

		if (action == FTRACE_UPDATE_IGNORE)
			continue;
		s = &b->sites[b->nr++];
		s->ip = rec->ip;
		s->rec = rec;
		fb_action_insns(rec, action, s->old, s->new);
		s->hot = 0;
		s->trapped = 0;
		if (!memcmp(s->old, s->new, MCOUNT_INSN_SIZE))
			s->how = FB_SAME;
		else
			s->how = FB_INT3;
	}
	fb_sort(b);
	return 0;
}

static void fb_mark_range(struct fb_batch *b, const struct fb_range *r)
{
	unsigned int i;

	for (i = fb_lower_bound(b, r->start);
	     i < b->nr && b->sites[i].ip < r->end; i++) {
		struct fb_site *s = &b->sites[i];

		if (r->kind == FB_RANGE_HOT)
			s->hot = 1;
		else if (s->how == FB_INT3)
			s->how = FB_QUEUE;
	}
}

/* Keep the sites of the trap path away from our int3; mark hot sites. */
static void fb_classify(struct fb_batch *b)
{
	unsigned int i;

	for (i = 0; i < fb_nr_ranges; i++)
		fb_mark_range(b, &fb_ranges[i]);
	for (i = 0; i < FB_LEARNED_MAX; i++) {
		struct fb_site *s;

		if (!fb_learned[i])
			continue;
		s = fb_find(b, fb_learned[i]);
		if (s)
			s->hot = 1;
	}
}

/* ---- spans ---------------------------------------------------------------- */

static bool fb_span_takes(const struct fb_span *sp, unsigned long ip)
{
	unsigned long end = sp->start + sp->len;

	/*
	 * Sorted, 5 bytes apart at least: ip >= end.  The gap is never
	 * written, but all of it is mapped: a gap shorter than a page skips
	 * no page, so every page of the span holds a site of one image.
	 */
	return ip >= end && ip - end < PAGE_SIZE &&
	       ip + MCOUNT_INSN_SIZE - (sp->start & PAGE_MASK) <= FB_SPAN_MAX;
}

static void fb_span_close(struct fb_span *out, unsigned int idx,
			  struct fb_span *sp)
{
	if (out)
		out[idx] = *sp;
}

/*
 * Group the FB_INT3 sites into spans; into @out if not NULL.  Returns the
 * number of spans.
 */
static unsigned int fb_make_spans(const struct fb_batch *b,
				  struct fb_span *out)
{
	struct fb_span sp = {};
	unsigned int n = 0, i;

	for (i = 0; i < b->nr; i++) {
		const struct fb_site *s = &b->sites[i];

		if (s->how != FB_INT3)
			continue;
		if (n && fb_span_takes(&sp, s->ip)) {
			sp.last = i;
			sp.len = s->ip + MCOUNT_INSN_SIZE - sp.start;
			sp.hot |= s->hot;
			continue;
		}
		if (n)
			fb_span_close(out, n - 1, &sp);
		sp = (struct fb_span){
			.start	= s->ip,
			.len	= MCOUNT_INSN_SIZE,
			.first	= i,
			.last	= i,
			.hot	= s->hot,
		};
		n++;
	}
	if (n)
		fb_span_close(out, n - 1, &sp);
	return n;
}

/* The spans of the batch.  0 or -ENOMEM. */
static int fb_plan_spans(struct fb_batch *b)
{
	unsigned int n;

	n = fb_make_spans(b, NULL);
	if (!n)
		return 0;
	b->spans = kvmalloc_array(n, sizeof(*b->spans), GFP_KERNEL);
	if (!b->spans)
		return -ENOMEM;
	b->nr_spans = fb_make_spans(b, b->spans);
	return 0;
}

/* No memory for spans: the same update through text_poke_queue(). */
static void fb_demote_all(struct fb_batch *b)
{
	unsigned int i;

	for (i = 0; i < b->nr; i++)
		if (b->sites[i].how == FB_INT3)
			b->sites[i].how = FB_QUEUE;
}

/* ---- checking ------------------------------------------------------------- */

/* Stop the core: @rec's site does not hold @old (-EINVAL) or reads fail. */
static void fb_report(struct dyn_ftrace *rec, bool enable, const u8 *old,
		      int err)
{
	if (err == -EINVAL) {
		memcpy(fb_expected, old, MCOUNT_INSN_SIZE);
		ftrace_expected = fb_expected;
	}
	/* Sets ftrace_bug_type for this record. */
	ftrace_test_record(rec, enable);
	ftrace_bug(err, rec);
	ftrace_expected = NULL;
}

static int fb_check_text(unsigned long ip, const u8 *old)
{
	u8 cur[MCOUNT_INSN_SIZE];

	if (copy_from_kernel_nofault(cur, (void *)ip, MCOUNT_INSN_SIZE))
		return -EFAULT;
	return memcmp(cur, old, MCOUNT_INSN_SIZE) ? -EINVAL : 0;
}

/*
 * Every site holds what its record says.  Read directly, without a
 * traceable call per site: each site was read with a fault check when it
 * was NOPed, and text stays mapped while its records exist.
 */
static int fb_verify(struct fb_batch *b)
{
	unsigned int i;

	for (i = 0; i < b->nr; i++) {
		struct fb_site *s = &b->sites[i];

		if (!memcmp((void *)s->ip, s->old, MCOUNT_INSN_SIZE))
			continue;
		fb_report(s->rec, b->enable, s->old, -EINVAL);
		return -EINVAL;
	}
	return 0;
}

/* ---- writing -------------------------------------------------------------- */

/* fb_span_fill() writes a site's bytes after the first as one u32. */
static_assert(MCOUNT_INSN_SIZE - 1 == sizeof(u32));

/* One step of one span, for text_poke_custom(). */
struct fb_span_step {
	const struct fb_batch	*b;
	const struct fb_span	*sp;
	enum fb_step		step;
};

/*
 * @text is the writable alias of the span's start; only sites are written.
 *
 * The alias lives in text_poke()'s temporary mm, at an address in the user
 * half, which has no KASAN shadow: an instrumented store there makes KASAN
 * read shadow that is not mapped (a general protection fault on a
 * non-canonical address).  So the writer is not instrumented, and its tail
 * store is one unaligned word rather than a memcpy() that KASAN intercepts.
 * What it reads is our own batch, checked where it was built.
 */
static void __no_sanitize_address fb_span_fill(void *text, const void *arg,
					       size_t len)
{
	const struct fb_span_step *w = arg;
	const struct fb_span *sp = w->sp;
	unsigned int i;

	for (i = sp->first; i <= sp->last; i++) {
		const struct fb_site *s = &w->b->sites[i];
		u8 *p = text + (s->ip - sp->start);

		if (s->how != FB_INT3)
			continue;
		switch (w->step) {
		case FB_STEP_TRAP:
			p[0] = INT3_INSN_OPCODE;
			break;
		case FB_STEP_TAIL:
			put_unaligned(get_unaligned((const u32 *)(s->new + 1)),
				      (u32 *)(p + 1));
			break;
		case FB_STEP_HEAD:
			p[0] = s->new[0];
			break;
		}
	}
}

/* After the last step: every site holds its new bytes, or we are lost. */
static void fb_span_check(const struct fb_batch *b, const struct fb_span *sp)
{
	unsigned int i;

	for (i = sp->first; i <= sp->last; i++) {
		const struct fb_site *s = &b->sites[i];

		if (s->how == FB_INT3)
			BUG_ON(memcmp((void *)s->ip, s->new, MCOUNT_INSN_SIZE));
	}
}

static void fb_span_write(struct fb_batch *b, const struct fb_span *sp,
			  enum fb_step step)
{
	struct fb_span_step w = { .b = b, .sp = sp, .step = step };
	unsigned int i;

	text_poke_custom(fb_span_fill, (void *)sp->start, &w, sp->len);

	if (step == FB_STEP_HEAD)
		fb_span_check(b, sp);
	if (step != FB_STEP_TAIL)
		return;
	/*
	 * While the sites trap: a trace decoder (Intel PT) switches to the
	 * new bytes at this event, whichever way each CPU goes meanwhile.
	 */
	for (i = sp->first; i <= sp->last; i++) {
		const struct fb_site *s = &b->sites[i];

		if (s->how == FB_INT3)
			perf_event_text_poke((void *)s->ip, s->old,
					     MCOUNT_INSN_SIZE, s->new,
					     MCOUNT_INSN_SIZE);
	}
}

static bool fb_step(struct fb_batch *b, bool hot, enum fb_step step)
{
	bool wrote = false;
	unsigned int k;

	for (k = 0; k < b->nr_spans; k++) {
		if (b->spans[k].hot != hot)
			continue;
		fb_span_write(b, &b->spans[k], step);
		wrote = true;
	}
	return wrote;
}

/*
 * The three steps for the hot or the other spans.  Ends with the first
 * bytes written but not yet synced: the next round's first sync, or the
 * final one, completes it.
 */
static void fb_round(struct fb_batch *b, bool hot)
{
	if (!fb_step(b, hot, FB_STEP_TRAP))
		return;
	text_poke_sync();
	fb_step(b, hot, FB_STEP_TAIL);
	text_poke_sync();
	fb_step(b, hot, FB_STEP_HEAD);
}

static void fb_run_int3(struct fb_batch *b)
{
	bool hot_first = !b->enable;

	if (!b->nr_spans)
		return;

	/* The batch is complete before any CPU can trap on it. */
	smp_store_release(&fb_live, b);
	fb_round(b, hot_first);
	fb_round(b, !hot_first);
	text_poke_sync();

	/* No CPU traps on our sites any more; wait out those reading @b. */
	WRITE_ONCE(fb_live, NULL);
	text_poke_sync();
}

static void fb_run_queued(struct fb_batch *b)
{
	bool queued = false;
	unsigned int i;

	for (i = 0; i < b->nr; i++) {
		struct fb_site *s = &b->sites[i];

		if (s->how != FB_QUEUE)
			continue;
		text_poke_queue((void *)s->ip, s->new, MCOUNT_INSN_SIZE, NULL);
		s->how = FB_DONE;
		queued = true;
	}
	if (queued)
		text_poke_finish();
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

/* The text is final: tell the core, and remember where we trapped. */
static void fb_commit(struct fb_batch *b)
{
	unsigned int i;

	for (i = 0; i < b->nr; i++) {
		struct fb_site *s = &b->sites[i];

		ftrace_update_record(s->rec, b->enable);
		if (s->trapped && !s->hot)
			fb_learn(s->ip);
	}
}

/* ---- without a batch --------------------------------------------------------- */

/*
 * Site by site, for when there is no memory or no trap path: still checks
 * every site before writing any.  Before text_poke() works (never the case
 * for ftrace_init()'s callers, but cheap to allow) the one CPU writes
 * directly.  __ref: text_poke_early() is init text without modules.
 */
static void __ref fb_replace_unbatched(bool enable)
{
	bool early = !poking_mm;
	u8 old[MCOUNT_INSN_SIZE], new[MCOUNT_INSN_SIZE];
	struct ftrace_rec_iter *iter;
	struct dyn_ftrace *rec;
	int err;

	for_ftrace_rec_iter(iter) {
		rec = ftrace_rec_iter_record(iter);
		if (ftrace_test_record(rec, enable) == FTRACE_UPDATE_IGNORE)
			continue;
		fb_rec_insns(rec, enable, old, new);
		err = fb_check_text(rec->ip, old);
		if (err) {
			fb_report(rec, enable, old, err);
			return;
		}
	}

	for_ftrace_rec_iter(iter) {
		rec = ftrace_rec_iter_record(iter);
		if (ftrace_test_record(rec, enable) == FTRACE_UPDATE_IGNORE)
			continue;
		fb_rec_insns(rec, enable, old, new);
		if (early)
			text_poke_early((void *)rec->ip, new, MCOUNT_INSN_SIZE);
		else if (memcmp(old, new, MCOUNT_INSN_SIZE))
			text_poke_queue((void *)rec->ip, new, MCOUNT_INSN_SIZE,
					NULL);
		ftrace_update_record(rec, enable);
	}
	if (!early)
		text_poke_finish();
}

/**
 * ftrace_replace_code - patch every call site whose target changed
 * @mod_flags: bit 0 set: calls are enabled; clear: every site becomes the NOP
 *
 * Collects the records the iterator yields (ftrace_test_record() says
 * which change), checks that every site holds what its record says, writes
 * them all in one int3 batch (or, for the sites that must not carry our
 * int3, through text_poke_queue()), and then records each change with
 * ftrace_update_record().  A site that does not hold what its record says
 * stops the update before anything is written and reports through
 * ftrace_bug(), which kills the core.
 *
 * Context: from ftrace_modify_all_code(); ftrace_lock and text_mutex held;
 * may sleep.
 */
void ftrace_replace_code(int mod_flags)
{
	struct fb_batch b = {
		.enable		= mod_flags & FB_ENABLE,
		.patcher	= current,
	};

	lockdep_assert_held(&text_mutex);

	if (!fb_ready || !poking_mm || fb_collect(&b)) {
		fb_replace_unbatched(b.enable);
		return;
	}
	if (!b.nr || fb_verify(&b))
		goto out;

	fb_classify(&b);
	/* Removing calls: the trap path stops being traced first. */
	if (!b.enable)
		fb_run_queued(&b);
	if (fb_plan_spans(&b))
		fb_demote_all(&b);

	fb_run_int3(&b);
	fb_run_queued(&b);
	fb_commit(&b);
out:
	kvfree(b.spans);
	kvfree(b.sites);
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
