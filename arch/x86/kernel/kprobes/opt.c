// SPDX-License-Identifier: GPL-2.0
/*
 * x86 kprobes: jump optimization.
 *
 * An armed breakpoint aggregate with no post_handler may have its int3
 * replaced by a 5-byte "jmp buffer" (the generic side, which decides when,
 * is kernel/kprobes_opt.c).  The buffer, one optinsn slot a probe:
 *
 *   buf + 0    the struct optimized_kprobe's address (8 bytes, data)
 *   buf + 8    call kprobe_opt_entry        (optjump_64.S: pt_regs,
 *                                            kprobe_opt_hit(), return)
 *   buf + 13   the instructions the jump covers, copied and rebased
 *   ...        jmp <probe address + their length>
 *
 * The code every probe shares is kprobe_opt_entry in kernel text; a
 * buffer holds 8 + 5 + at most 19 + 5 bytes.
 *
 * What may be covered (can_optimize(), copy_region()): the probe's
 * instruction and those after it, up to 5 bytes, all in one function that
 * is not entry code, each one can_boost() accepts (it runs correctly from
 * the buffer with interrupts on and goes on to the next instruction), none of them reserved
 * by ftrace, alternatives, jump labels or static calls, and no jump of
 * the function (nor an exception fixup, nor, without retpolines and IBT,
 * a jump table) able to land inside the covered bytes after the first.
 *
 * Invariants:
 *  - The 4 bytes after the int3 are saved in op->optinsn.copied_insn
 *    before the jump is written and written back after the int3 is back:
 *    __recover_optprobed_insn() rebuilds the original text from them for
 *    as long as the jump may be there (OPTIMIZED and not on a queue, or
 *    queued to be unoptimized).
 *  - A buffer is freed dirty (a CPU or a preempted task may be inside it;
 *    the generic side waits with synchronize_rcu_tasks() before the slot
 *    is swept).
 *  - Jumps are written and taken out by batches of the generic worker,
 *    under kprobe_mutex and text_mutex, each batch with one set of
 *    text_poke syncs.
 */
#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/list_sort.h>
#include <linux/perf_event.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/alternative.h>
#include <asm/insn.h>
#include <asm/nospec-branch.h>
#include <asm/sections.h>
#include <asm/text-patching.h>

#include "common.h"

#define OPT_OP_OFF	0
#define OPT_CALL_OFF	8
#define OPT_COPY_OFF	(OPT_CALL_OFF + CALL_INSN_SIZE)

static_assert(OPT_COPY_OFF + MAX_OPTIMIZED_LENGTH + JMP32_INSN_SIZE <=
	      MAX_OPTINSN_SIZE);

static struct optimized_kprobe *opt_of(struct kprobe *p)
{
	return container_of(p, struct optimized_kprobe, kp);
}

/*
 * The bytes at @addr may be under a jump of ours if @addr is within the 5
 * bytes that start at an optimized aggregate.
 */
static struct optimized_kprobe *jump_covering(unsigned long addr)
{
	struct optimized_kprobe *op;
	struct kprobe *kp;
	int back;

	for (back = 0; back < JMP32_INSN_SIZE; back++) {
		kp = get_kprobe((void *)(addr - back));
		if (!kp || !kprobe_optimized(kp))
			continue;
		op = opt_of(kp);
		/* The jump is in, or is still in until the worker runs. */
		if (list_empty(&op->list) || optprobe_queued_unopt(op))
			return op;
	}
	return NULL;
}

/**
 * __recover_optprobed_insn() - the original bytes under a probe's jump
 * @buf: MAX_INSN_SIZE bytes of scratch
 * @addr: an address in kernel text
 *
 * Context: kprobe_mutex held, or preemption off.
 *
 * Return: @addr when no jump of ours covers it, else @buf holding the
 * text at @addr as it was before the jump; 0 when it cannot be read.
 */
unsigned long __recover_optprobed_insn(kprobe_opcode_t *buf,
				       unsigned long addr)
{
	struct optimized_kprobe *op = jump_covering(addr);
	u8 orig[JMP32_INSN_SIZE];
	unsigned long start, off;

	if (!op)
		return addr;
	if (copy_from_kernel_nofault(buf, (void *)addr, MAX_INSN_SIZE))
		return 0;

	/* The 5 bytes the jump took, as they were; then lay them over buf. */
	start = (unsigned long)op->kp.addr;
	orig[0] = op->kp.opcode;
	memcpy(orig + 1, op->optinsn.copied_insn, DISP32_SIZE);
	off = addr - start;
	memcpy(buf, orig + off, JMP32_INSN_SIZE - off);
	return (unsigned long)buf;
}

/* --- the hit ------------------------------------------------------------ */

/**
 * kprobe_opt_hit() - an optimized probe's jump was taken
 * @regs: what kprobe_opt_entry saved; ip and sp are filled in here.  The
 *	word above it is the return address into the buffer, which names
 *	the probe.
 *
 * Runs the enabled children's pre_handlers (kernel/kprobes_opt.c) as a
 * hit of the int3 would, regs->ip one past the probe address; a probe
 * hit inside a handler meets kprobe_running() and counts as missed.
 * Changes the handlers make to the general registers and flags stay;
 * regs->ip cannot move a jump, and is ignored.
 *
 * Context: kprobe_opt_entry, interrupts as the probed code had them.
 */
__visible void kprobe_opt_hit(struct pt_regs *regs)
{
	unsigned long *ret = (unsigned long *)(regs + 1);
	u8 *buf = (u8 *)(*ret - OPT_COPY_OFF);
	struct optimized_kprobe *op;

	op = *(struct optimized_kprobe **)(buf + OPT_OP_OFF);
	regs->sp = (unsigned long)(ret + 1);
	regs->ip = (unsigned long)op->kp.addr + INT3_INSN_SIZE;

	/* Disabled while its jump waits for the worker to take it out. */
	if (!kprobe_disabled(&op->kp)) {
		/*
		 * _notrace: the preempt tracer's hooks would cost more than
		 * the whole hit, and are themselves traced code.
		 */
		preempt_disable_notrace();
		if (kprobe_running()) {
			kprobes_inc_nmissed_count(&op->kp);
		} else {
			__this_cpu_write(current_kprobe, &op->kp);
			get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
			opt_pre_handler(&op->kp, regs);
			__this_cpu_write(current_kprobe, NULL);
		}
		preempt_enable_notrace();
	}
	/*
	 * The way out pops the flags from the ss word (optjump_64.S): sp
	 * stays right for an unwinder interrupting the way out.
	 */
	regs->ss = regs->flags;
}
NOKPROBE_SYMBOL(kprobe_opt_hit);

/**
 * setup_detour_execution() - a hit on the int3 of an optimized probe
 * @p: the probe hit
 * @regs: the trapped registers
 * @reenter: nonzero when another probe is current on this CPU
 *
 * Between being marked OPTIMIZED and getting its jump, a probe still has
 * its int3: its handlers ran in the trap, and the displaced instructions
 * are run from the buffer, after the call.
 *
 * Return: 1 when @p is optimized and the trap returns into its buffer.
 */
int setup_detour_execution(struct kprobe *p, struct pt_regs *regs,
			   int reenter)
{
	if (!(p->flags & KPROBE_FLAG_OPTIMIZED))
		return 0;
	regs->ip = (unsigned long)opt_of(p)->optinsn.insn + OPT_COPY_OFF;
	if (!reenter)
		reset_current_kprobe();
	return 1;
}
NOKPROBE_SYMBOL(setup_detour_execution);

/* --- building the buffer ------------------------------------------------ */

/* Could a jump of this function land in (@start, @end)? */
static bool lands_inside(struct insn *insn, unsigned long start,
			 unsigned long end)
{
	u8 op0 = insn->opcode.bytes[0];
	unsigned long to;

	switch (op0) {
	case 0x70 ... 0x7f:
	case 0xe0 ... 0xe3:
	case 0xe9:
	case 0xeb:
		break;
	case 0x0f:
		if ((insn->opcode.bytes[1] & 0xf0) != 0x80)
			return false;
		break;
	default:
		return false;
	}
	to = (unsigned long)insn->next_byte + insn->immediate.value;
	return to > start && to < end;
}

/* Is @to one of the retpoline or ITS thunks that stand for "jmp *%reg"? */
static bool is_indirect_thunk(unsigned long to)
{
	unsigned long n = 16 * RETPOLINE_THUNK_SIZE;

	unsigned long t;

	if (IS_ENABLED(CONFIG_MITIGATION_RETPOLINE)) {
		t = (unsigned long)__x86_indirect_thunk_array;
		if (to >= t && to < t + n)
			return true;
	}
	if (IS_ENABLED(CONFIG_MITIGATION_CALL_DEPTH_TRACKING)) {
		t = (unsigned long)__x86_indirect_jump_thunk_array;
		if (to >= t && to < t + n)
			return true;
	}
	return false;
}

/*
 * Could a jump whose target we cannot see land anywhere in the function:
 * a jump through a register or memory (a jump table, a computed goto),
 * or a jump to the thunk a retpoline build turns one into?  Builds with
 * retpolines or IBT have no jump tables, but computed gotos remain.
 */
static bool jumps_anywhere(struct insn *insn)
{
	u8 op0 = insn->opcode.bytes[0];
	unsigned long to;

	if (op0 == 0xea)
		return true;
	if (op0 == 0xff)
		return X86_MODRM_REG(insn->modrm.value) == 4 ||
		       X86_MODRM_REG(insn->modrm.value) == 5;
	if (op0 != 0xe9 && op0 != 0xeb && (op0 & 0xf0) != 0x70 &&
	    !(op0 == 0x0f && (insn->opcode.bytes[1] & 0xf0) == 0x80))
		return false;
	to = (unsigned long)insn->next_byte + insn->immediate.value;
	return is_indirect_thunk(to);
}

/* Walk the whole function of @addr: may @len bytes at @addr be covered? */
static bool can_optimize(unsigned long addr, unsigned long len)
{
	unsigned long size, offset, at, end;
	struct insn insn;

	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return false;
	if (addr >= (unsigned long)__entry_text_start &&
	    addr < (unsigned long)__entry_text_end)
		return false;
	if (offset + len > size)
		return false;

	end = addr - offset + size;
	for (at = addr - offset; at < end; at += insn.length) {
		/* Its fixup code may jump back anywhere in the function. */
		if (search_exception_tables(at))
			return false;
		if (!kprobe_decode_text(&insn, at))
			return false;
		if (jumps_anywhere(&insn) ||
		    lands_inside(&insn, addr, addr + len))
			return false;
	}
	return true;
}

/* May someone else rewrite any byte of [@first, @last] at any time? */
static bool rewritten_by_others(u8 *first, u8 *last)
{
	return ftrace_text_reserved(first, last) ||
	       alternatives_text_reserved(first, last) ||
	       jump_label_text_reserved(first, last) ||
	       static_call_text_reserved(first, last);
}

/*
 * Copy whole instructions from @src until at least a jump's 5 bytes are
 * covered, into @dest, to run at @real.
 *
 * Return: the bytes covered, or a negative error.
 */
static int copy_region(u8 *dest, u8 *src, u8 *real)
{
	struct insn insn;
	int len, n;

	for (len = 0; len < JMP32_INSN_SIZE; len += n) {
		n = __copy_instruction(dest + len, src + len, real + len, &insn);
		if (!n)
			return -EINVAL;
		/* It must run from the buffer and go on to the next one. */
		if (!can_boost(&insn, src + len))
			return -EINVAL;
	}
	return rewritten_by_others(src, src + len - 1) ? -EBUSY : len;
}

static void free_buffer(struct optimized_kprobe *op, bool dirty)
{
	u8 *slot = op->optinsn.insn;

	if (!slot)
		return;
	if (dirty)
		perf_event_text_poke(slot, slot, OPT_COPY_OFF + op->optinsn.size +
				     JMP32_INSN_SIZE, NULL, 0);
	op->optinsn.insn = NULL;
	op->optinsn.size = 0;
	free_optinsn_slot(slot, dirty);
}

/**
 * arch_prepare_optimized_kprobe() - build an aggregate's jump buffer
 * @op: the aggregate; op->kp.addr is set
 * @orig: the probe the aggregate was made for (unused)
 *
 * Context: kprobe_mutex and text_mutex held.
 *
 * Return: 0, and op->optinsn.size set, when the probe can become a jump;
 * -EILSEQ, -EINVAL, -EBUSY, -ERANGE or -ENOMEM when not (the probe then
 * stays a breakpoint).
 */
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *orig)
{
	u8 buf[MAX_OPTINSN_SIZE] = {};
	u8 *addr = (u8 *)op->kp.addr;
	int len, total;
	u8 *slot;

	slot = get_optinsn_slot();
	if (!slot)
		return -ENOMEM;
	op->optinsn.insn = slot;

	/* The jump at the probe and the one back are rel32. */
	if (abs((long)slot - (long)addr) > INT_MAX - PAGE_SIZE) {
		free_buffer(op, false);
		return -ERANGE;
	}

	len = copy_region(buf + OPT_COPY_OFF, addr, slot + OPT_COPY_OFF);
	if (len < 0 || !can_optimize((unsigned long)addr, len)) {
		free_buffer(op, false);
		return len < 0 ? len : -EILSEQ;
	}
	op->optinsn.size = len;

	memcpy(buf + OPT_OP_OFF, &op, sizeof(op));
	synthesize_relcall(buf + OPT_CALL_OFF, slot + OPT_CALL_OFF,
			   (void *)kprobe_opt_entry);
	total = OPT_COPY_OFF + len;
	synthesize_reljump(buf + total, slot + total, addr + len);
	total += JMP32_INSN_SIZE;

	perf_event_text_poke(slot, NULL, 0, buf, total);
	text_poke(slot, buf, total);
	return 0;
}

/**
 * arch_remove_optimized_kprobe() - free an aggregate's buffer
 * @op: the aggregate, whose jump is out
 */
void arch_remove_optimized_kprobe(struct optimized_kprobe *op)
{
	free_buffer(op, true);
}

/**
 * arch_check_optimized_kprobe() - may the jump be written now
 * @op: the aggregate
 *
 * Return: 0, or -EEXIST while another armed probe sits on a byte the jump
 * would cover.
 */
int arch_check_optimized_kprobe(struct optimized_kprobe *op)
{
	kprobe_opcode_t *at = op->kp.addr + 1;
	kprobe_opcode_t *end = op->kp.addr + op->optinsn.size;
	struct kprobe *other;

	for (; at < end; at++) {
		other = get_kprobe(at);
		/* Its int3 would be overwritten by the jump. */
		if (other && !kprobe_disarmed(other))
			return -EEXIST;
	}
	return 0;
}

/**
 * arch_within_optimized_kprobe() - is an address under an aggregate's jump
 * @op: the aggregate
 * @addr: the address
 *
 * Return: nonzero when @addr is one of the bytes the buffer copied.
 */
int arch_within_optimized_kprobe(struct optimized_kprobe *op,
				 kprobe_opcode_t *addr)
{
	return addr >= op->kp.addr && addr < op->kp.addr + op->optinsn.size;
}

/* --- writing and taking out jumps --------------------------------------- */

static int by_address(void *priv, const struct list_head *a,
		      const struct list_head *b)
{
	kprobe_opcode_t *x = list_entry(a, struct optimized_kprobe, list)->kp.addr;
	kprobe_opcode_t *y = list_entry(b, struct optimized_kprobe, list)->kp.addr;

	return x < y ? -1 : x > y;
}

/**
 * arch_optimize_kprobes() - write the jumps of a batch
 * @oplist: aggregates whose int3 is armed and whose covered instructions
 *	no task can be inside (the worker waited for that)
 *
 * Each aggregate leaves @oplist.  All the jumps go in with one pass of
 * text_poke_queue(): the int3 protocol and its syncs once for the batch.
 *
 * Context: kprobe_mutex and text_mutex held.
 */
void arch_optimize_kprobes(struct list_head *oplist)
{
	struct optimized_kprobe *op, *tmp;
	u8 jmp[JMP32_INSN_SIZE];

	/* text_poke_queue() flushes on every address lower than the last. */
	list_sort(NULL, oplist, by_address);
	list_for_each_entry_safe(op, tmp, oplist, list) {
		u8 *addr = (u8 *)op->kp.addr;

		WARN_ON(kprobe_disabled(&op->kp));
		memcpy(op->optinsn.copied_insn, addr + INT3_INSN_SIZE,
		       DISP32_SIZE);
		synthesize_reljump(jmp, addr, op->optinsn.insn + OPT_CALL_OFF);
		text_poke_queue(addr, jmp, JMP32_INSN_SIZE, NULL);
		list_del_init(&op->list);
	}
	text_poke_finish();
}

/* The int3 first: a CPU may be in the buffer's jump until then. */
static void put_int3_back(struct optimized_kprobe *op)
{
	u8 int3 = INT3_INSN_OPCODE;

	text_poke(op->kp.addr, &int3, INT3_INSN_SIZE);
}

/* Once every CPU sees the int3, the 4 bytes behind it are unused. */
static void put_tail_back(struct optimized_kprobe *op)
{
	u8 *addr = (u8 *)op->kp.addr;
	u8 was[JMP32_INSN_SIZE], now[JMP32_INSN_SIZE];

	now[0] = INT3_INSN_OPCODE;
	memcpy(now + 1, op->optinsn.copied_insn, DISP32_SIZE);
	memcpy(was, addr, JMP32_INSN_SIZE);
	was[0] = JMP32_INSN_OPCODE;
	text_poke(addr + INT3_INSN_SIZE, now + 1, DISP32_SIZE);
	perf_event_text_poke(addr, was, JMP32_INSN_SIZE, now, JMP32_INSN_SIZE);
}

/**
 * arch_unoptimize_kprobe() - put one aggregate's int3 back
 * @op: an aggregate whose jump is in
 *
 * Context: kprobe_mutex and text_mutex held.
 */
void arch_unoptimize_kprobe(struct optimized_kprobe *op)
{
	put_int3_back(op);
	text_poke_sync();
	put_tail_back(op);
	text_poke_sync();
}

/**
 * arch_unoptimize_kprobes() - put a batch of int3s back
 * @oplist: aggregates whose jumps are in
 * @done_list: where each of them goes once its int3 is back
 *
 * Two syncs for the batch: all first bytes, then all tails.
 *
 * Context: kprobe_mutex and text_mutex held.
 */
void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list)
{
	struct optimized_kprobe *op, *tmp;

	if (list_empty(oplist))
		return;
	list_for_each_entry(op, oplist, list)
		put_int3_back(op);
	text_poke_sync();
	list_for_each_entry_safe(op, tmp, oplist, list) {
		put_tail_back(op);
		list_move(&op->list, done_list);
	}
	text_poke_sync();
}
