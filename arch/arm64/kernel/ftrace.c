// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 side of the function hooks: what a call site holds, its ops
 * literal, the first writes to a site and the function-graph hook.  The
 * entry code (ftrace_caller, return_to_handler) is in entry-ftrace.S; the
 * batch patcher that rewrites live sites is in ftrace_batch.c and
 * <asm/ftrace_batch.h>, which declares the site helpers it uses.
 *
 * A call site, as -fpatchable-function-entry=4,2 (CALL_OPS) lays it out:
 *
 *	func - 8:  literal	8 bytes, 8-aligned: the ops ftrace_caller calls
 *	func:	   [bti c]	only where the compiler put a landing pad
 *	           mov x9, x30	a NOP until ftrace_init_nop()
 *	rec->ip:   bl <target>	or the NOP
 *
 * Without CALL_OPS (-fpatchable-function-entry=2) there is no literal and
 * ftrace_caller always runs the dispatcher, which finds the site's set in
 * one lookup.
 *
 * What may hold what:
 *  - The mov is written once, when the site is first seen (boot, or module
 *    load before the module runs), and never again.
 *  - The BL slot only ever switches between the NOP and a BL, and the
 *    literal is one aligned 64-bit word: both changes are safe while other
 *    CPUs run the code (the architecture permits NOP <-> BL), so nothing is
 *    stopped.
 *  - The literal is written before the BL that makes it reachable, with the
 *    cache maintenance (and its DSB) in between; a site whose BL becomes a
 *    NOP gets &ftrace_nop_ops, so a CPU that passed the BL just before calls
 *    the stub.  Which ops a literal holds is the core's choice
 *    (ftrace_rec_call_ops()): always an object that outlives every CPU
 *    still running on it.
 *  - A BL reaches +-128 MiB.  A module site too far from its target calls
 *    the module's ftrace PLT (which jumps to ftrace_caller); a direct
 *    trampoline out of reach is entered through ftrace_caller instead, whose
 *    literal then names the direct ops.
 *
 * Every write checks first that the slot holds what the record says it
 * holds (arm64_site_check()); on a mismatch nothing more is written and
 * ftrace_bug() reports it.
 */

#define pr_fmt(fmt) "ftrace: " fmt

#include <linux/ftrace.h>
#include <linux/ftrace_batch.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/stddef.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/trace_recursion.h>
#include <linux/uaccess.h>

#include <asm/cacheflush.h>
#include <asm/ftrace.h>
#include <asm/insn.h>
#include <asm/patching.h>

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
/*
 * ftrace_regs_caller's frame is a struct pt_regs that callbacks also get as
 * their ftrace_regs: the registers, sp, pc and pstate must sit where both
 * structures have them (entry-ftrace.S relies on it too).
 */
#define FREGS_AT_PT_REGS(f, r)						\
	static_assert(offsetof(struct __arch_ftrace_regs, f) ==		\
		      offsetof(struct pt_regs, r))
FREGS_AT_PT_REGS(regs[0], regs[0]);
FREGS_AT_PT_REGS(fp, regs[29]);
FREGS_AT_PT_REGS(lr, regs[30]);
FREGS_AT_PT_REGS(sp, sp);
FREGS_AT_PT_REGS(pc, pc);
FREGS_AT_PT_REGS(pstate, pstate);
#undef FREGS_AT_PT_REGS
static_assert(sizeof(struct __arch_ftrace_regs) % 16 == 0);
static_assert(sizeof(struct __arch_ftrace_regs) <= sizeof(struct pt_regs));

/* ---- register names of ftrace_regs, for the probe library --------------- */

static const struct {
	const char	*name;
	unsigned short	offset;
} fregs_names[] = {
#define FREGS_X(n) { "x" #n, offsetof(struct __arch_ftrace_regs, regs[n]) }
	FREGS_X(0), FREGS_X(1), FREGS_X(2), FREGS_X(3), FREGS_X(4),
	FREGS_X(5), FREGS_X(6), FREGS_X(7), FREGS_X(8),
#undef FREGS_X
	{ "fp", offsetof(struct __arch_ftrace_regs, fp) },
	{ "lr", offsetof(struct __arch_ftrace_regs, lr) },
	{ "sp", offsetof(struct __arch_ftrace_regs, sp) },
	{ "pc", offsetof(struct __arch_ftrace_regs, pc) },
};

/**
 * ftrace_regs_query_register_offset - where ftrace_regs keeps a register
 * @name: register name without the '%': x0-x8, fp, lr, sp or pc
 *
 * ftrace_caller saves only the argument registers and the frame of the
 * call; the others are not in ftrace_regs.
 *
 * Return: the byte offset in struct ftrace_regs, or -EINVAL.
 */
int ftrace_regs_query_register_offset(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fregs_names); i++)
		if (!strcmp(name, fregs_names[i].name))
			return fregs_names[i].offset;
	return -EINVAL;
}
#endif

#ifdef CONFIG_DYNAMIC_FTRACE

/* ---- where the parts of a site are ---------------------------------------- */

/**
 * ftrace_call_adjust - the call site of a __patchable_function_entries entry
 * @addr: the entry: the first NOP the compiler emitted for the function
 *
 * With CALL_OPS the entry is the literal, 8 bytes before the function; a
 * "bti c" may open the function.  Either way the BL slot follows the mov.
 *
 * Return: the address of the BL slot (rec->ip).
 */
unsigned long ftrace_call_adjust(unsigned long addr)
{
	if (IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS)) {
		addr += 2 * AARCH64_INSN_SIZE;
		if (aarch64_insn_is_bti(le32_to_cpu(*(__le32 *)addr)))
			addr += AARCH64_INSN_SIZE;
	}
	return addr + AARCH64_INSN_SIZE;
}

/* The mov slot, right before the BL slot. */
static unsigned long site_mov(unsigned long ip)
{
	return ip - AARCH64_INSN_SIZE;
}

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
/**
 * ftrace_arch_rec_call_ops - the ops a call site's literal holds now
 * @rec: the record
 *
 * Context: ftrace_lock held (nothing else writes literals).
 * Return: the literal's value.
 */
const struct ftrace_ops *ftrace_arch_rec_call_ops(struct dyn_ftrace *rec)
{
	return READ_ONCE(*(const struct ftrace_ops **)arm64_site_literal(rec->ip));
}
#endif

/* ---- instructions -------------------------------------------------------- */

/* Does a BL at @ip reach @addr? */
static bool site_in_reach(unsigned long ip, unsigned long addr)
{
	long off = (long)addr - (long)ip;

	return off >= -SZ_128M && off < SZ_128M;
}

/*
 * The module PLT that branches to @addr (ftrace_caller, or
 * ftrace_regs_caller where it exists) from the module that owns @ip (init
 * or core text); 0 if there is none.  ftrace_lock keeps the module from
 * going away; the lookup needs RCU.
 */
static unsigned long site_module_plt(unsigned long ip, unsigned long addr)
{
	unsigned long plt = 0;
#ifdef CONFIG_MODULES
	struct plt_entry *p = NULL;
	struct module *mod;
	int idx;

	if (addr == FTRACE_ADDR)
		idx = FTRACE_PLT_IDX;
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
	else if (addr == FTRACE_REGS_ADDR)
		idx = FTRACE_REGS_PLT_IDX;
#endif
	else
		return 0;

	rcu_read_lock_sched();
	mod = __module_text_address(ip);
	if (mod && within_module_mem_type(ip, mod, MOD_INIT_TEXT))
		p = mod->arch.init_ftrace_trampolines;
	else if (mod)
		p = mod->arch.ftrace_trampolines;
	if (p)
		plt = (unsigned long)&p[idx];
	rcu_read_unlock_sched();
#endif
	return plt;
}

/*
 * The address a BL at @ip branches to so that calling @addr happens: @addr
 * itself; else the module's PLT to it (the two callers have one each);
 * else ftrace_caller or its PLT, for a direct trampoline out of reach,
 * which the direct ops' callback then asks for.  0 if none works.
 */
static unsigned long site_branch_dest(unsigned long ip, unsigned long addr)
{
	unsigned long plt;

	if (site_in_reach(ip, addr))
		return addr;
	plt = site_module_plt(ip, addr);
	if (plt)
		return plt;
	if (site_in_reach(ip, FTRACE_ADDR))
		return FTRACE_ADDR;
	return site_module_plt(ip, FTRACE_ADDR);
}

/**
 * arm64_site_insn - the instruction of a BL slot for a target
 * @ip: the BL slot (rec->ip)
 * @addr: what the site should call; 0 for the NOP
 *
 * Context: ftrace_lock held (keeps a module's PLTs in place).
 * Return: the instruction, or AARCH64_BREAK_FAULT if no branch from @ip
 * reaches @addr.
 */
u32 arm64_site_insn(unsigned long ip, unsigned long addr)
{
	unsigned long dest;

	if (!addr)
		return aarch64_insn_gen_nop();
	dest = site_branch_dest(ip, addr);
	if (!dest)
		return AARCH64_BREAK_FAULT;
	return aarch64_insn_gen_branch_imm(ip, dest, AARCH64_INSN_BRANCH_LINK);
}

/* What ftrace_bug() prints as "expected" after a refused write. */
static u32 site_expected;

/**
 * arm64_site_check - does a slot of a call site hold what it should
 * @addr: the slot (BL, mov, or either word of the literal)
 * @expect: the instruction it should hold
 *
 * On a mismatch, points ftrace_expected at @expect for ftrace_bug().
 *
 * Context: ftrace_lock held.
 * Return: 0, -EFAULT if the slot cannot be read, -EINVAL on a mismatch.
 */
int arm64_site_check(unsigned long addr, u32 expect)
{
	u32 cur;

	if (aarch64_insn_read((void *)addr, &cur))
		return -EFAULT;
	if (cur != expect) {
		site_expected = expect;
		ftrace_expected = &site_expected;
		return -EINVAL;
	}
	return 0;
}

/* The first writes to a site: its literal (if any) and its mov. */
struct site_init {
	unsigned long	start;		/* lowest address written */
	unsigned long	literal;	/* 0: none */
	unsigned long	mov;
};

static void site_init_fill(void *dst, void *arg, size_t done, size_t len)
{
	const struct site_init *si = arg;
	unsigned long base = si->start + done;
	u32 mov;

	if (si->literal >= base && si->literal < base + len)
		WRITE_ONCE(*(u64 *)(dst + (si->literal - base)),
			   (u64)&ftrace_nop_ops);
	if (si->mov >= base && si->mov < base + len) {
		mov = aarch64_insn_gen_move_reg(AARCH64_INSN_REG_9,
						AARCH64_INSN_REG_LR,
						AARCH64_INSN_VARIANT_64BIT);
		WRITE_ONCE(*(__le32 *)(dst + (si->mov - base)),
			   cpu_to_le32(mov));
	}
}

/**
 * ftrace_init_nop - make a call site ready to be patched
 * @mod: the module being loaded, or NULL for vmlinux at boot
 * @rec: the record
 *
 * The compiler left NOPs: the mov slot gets "mov x9, x30", which passes
 * the return address to ftrace_caller, and the literal gets the stub ops,
 * in one write (the range may span two pages).  Nothing can run the site
 * yet (boot before SMP, or a module not formed yet).
 *
 * Return: 0, or -EFAULT/-EINVAL if the site does not hold the NOPs.
 */
int ftrace_init_nop(struct module *mod, struct dyn_ftrace *rec)
{
	struct site_init si = { .mov = site_mov(rec->ip) };
	u32 nop = aarch64_insn_gen_nop();
	int err;

	si.start = si.mov;
	err = arm64_site_check(rec->ip, nop);
	if (!err)
		err = arm64_site_check(si.mov, nop);
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
	si.literal = arm64_site_literal(rec->ip);
	si.start = si.literal;
	if (!err)
		err = arm64_site_check(si.literal, nop);
	if (!err)
		err = arm64_site_check(si.literal + AARCH64_INSN_SIZE, nop);
#endif
	if (err)
		return err;
	aarch64_insn_poke_custom(site_init_fill, (void *)si.start, &si,
				 si.mov + AARCH64_INSN_SIZE - si.start);
	return 0;
}

/**
 * ftrace_update_ftrace_func - retarget the shared caller
 * @func: the function it should call
 *
 * ftrace_caller has no call slot here: every site's literal (or, without
 * CALL_OPS, the dispatcher) says what runs.
 *
 * Return: 0.
 */
int ftrace_update_ftrace_func(ftrace_func_t func)
{
	return 0;
}

#endif /* CONFIG_DYNAMIC_FTRACE */

/* ---- function graph ------------------------------------------------------ */

#ifdef CONFIG_FUNCTION_GRAPH_TRACER

/**
 * ftrace_graph_func - the callback of the function-graph manager ops
 * @ip: the traced function's call site
 * @parent_ip: its return address
 * @op: the manager ops
 * @fregs: the frame ftrace_caller built
 *
 * The return address goes back to the traced function in x30 from
 * fregs->lr: pointing that at return_to_handler hooks the return.  The
 * frame pointer at entry (the caller's frame) identifies the frame for
 * the return check and for unwinders (ftrace_graph_ret_addr()).
 */
void ftrace_graph_func(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct __arch_ftrace_regs *afregs = arch_ftrace_regs(fregs);
	unsigned long ret = afregs->lr;
	int bit;

	if (unlikely(ftrace_graph_is_dead() ||
		     atomic_read(&current->tracing_graph_pause)))
		return;
	bit = ftrace_test_recursion_trylock(ip, ret);
	if (bit < 0)
		return;
	if (!function_graph_enter_regs(ret, ip, afregs->fp,
				       ftrace_regs_return_key(fregs), fregs))
		*ftrace_regs_return_slot(fregs) = (unsigned long)return_to_handler;
	ftrace_test_recursion_unlock(bit);
}

/*
 * Between the push of a frame for the traced call and the hook of its
 * return no return probe may push one of its own (kernel/trace/fgraph.c).
 */
NOKPROBE_SYMBOL(ftrace_graph_func);

#endif /* CONFIG_FUNCTION_GRAPH_TRACER */
