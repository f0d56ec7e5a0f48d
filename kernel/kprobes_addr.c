// SPDX-License-Identifier: GPL-2.0
/*
 * Where a probe goes: from a symbol or address and an offset to the
 * probed address, and whether a probe may go there.
 *
 * An address is the symbol's (kprobe_lookup_name()) or the caller's,
 * plus the offset, then split again by kallsyms into the start of the
 * function that holds it and the offset in it, so that the arch can
 * recognize the function's entry (arch_adjust_kprobe_addr()) whichever
 * way the caller named it.
 *
 * A probe may go on kernel or module text that is no trap of another
 * kind: not the gate area, the blacklist, jump label or static call
 * sites, BUG() sites, or CFI and padding preambles.  Nothing here keeps
 * state; the checks read what their owners protect.
 */
#include <linux/bug.h>
#include <linux/err.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/static_call.h>
#include <linux/string.h>

#include "kprobes_place.h"

/**
 * arch_adjust_kprobe_addr - where a probe at @addr + @offset really goes
 * @addr: start of the probed function
 * @offset: offset of the probe in it
 * @on_func_entry: set to whether the probe counts as on the entry
 *
 * An arch whose functions may start with a landing pad (ENDBR, BTI) or a
 * call site moves an entry probe past it.  The default does not.
 *
 * Return: the probe address, or NULL to refuse it.
 */
kprobe_opcode_t *__weak arch_adjust_kprobe_addr(unsigned long addr,
						unsigned long offset,
						bool *on_func_entry)
{
	kprobe_opcode_t *probe = (kprobe_opcode_t *)(addr + offset);

	*on_func_entry = offset == 0;
	return probe;
}

/**
 * kprobe_resolve_addr - the address a probe description designates
 * @addr: the address given, or NULL
 * @sym: the symbol given, or NULL; exactly one of @addr and @sym
 * @offset: offset from @addr or @sym
 * @on_func_entry: set to whether the result is the function's entry
 *
 * Return: the probe address, ERR_PTR(-EINVAL) for a bad combination or an
 * address the arch refuses, ERR_PTR(-ENOENT) for an unknown symbol or an
 * address outside any symbol.
 */
kprobe_opcode_t *kprobe_resolve_addr(kprobe_opcode_t *addr, const char *sym,
				     unsigned long offset, bool *on_func_entry)
{
	unsigned long where, in_func;

	if (!addr == !sym)
		return ERR_PTR(-EINVAL);
	if (sym) {
		/* Returns the symbol's address; the offset is ours to add. */
		addr = kprobe_lookup_name(sym, offset);
		if (!addr)
			return ERR_PTR(-ENOENT);
	}

	/* Split into the function's start and the offset in it ... */
	where = (unsigned long)addr + offset;
	if (!kallsyms_lookup_size_offset(where, NULL, &in_func))
		return ERR_PTR(-ENOENT);

	/* ... and let the arch say where that is and if it is the entry. */
	addr = arch_adjust_kprobe_addr(where - in_func, in_func, on_func_entry);
	return addr ? addr : ERR_PTR(-EINVAL);
}

/**
 * kprobe_on_func_entry - is a location a function's entry
 * @addr: the address, or NULL
 * @sym: the symbol, or NULL; exactly one of @addr and @sym
 * @offset: offset from @addr or @sym
 *
 * Return: 0 if it is, -EINVAL if not (or for a bad combination),
 * -ENOENT if it cannot be resolved.
 */
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset)
{
	bool on_entry;

	addr = kprobe_resolve_addr(addr, sym, offset, &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	return on_entry ? 0 : -EINVAL;
}

static bool in_cfi_preamble(unsigned long addr)
{
	char name[KSYM_NAME_LEN];

	if (lookup_symbol_name(addr, name))
		return false;
	return str_has_prefix(name, "__cfi_") || str_has_prefix(name, "__pfx_");
}

static bool text_reserved(kprobe_opcode_t *addr)
{
	unsigned long a = (unsigned long)addr;

	return in_gate_area_no_mm(a) || within_kprobe_blacklist(a) ||
	       jump_label_text_reserved(addr, addr) ||
	       static_call_text_reserved(addr, addr) ||
	       find_bug(a) || in_cfi_preamble(a);
}

/* The text checks of kprobe_check_site(), with the text held still. */
static int check_text(struct kprobe *p, struct module **modp)
{
	unsigned long addr = (unsigned long)p->addr;
	struct module *mod = NULL;

	if (!core_kernel_text(addr)) {
		mod = __module_text_address(addr);
		if (!mod)
			return -EINVAL;
	}
	if (text_reserved(p->addr))
		return -EINVAL;
	if (!IS_ENABLED(CONFIG_MODULES) || !mod)
		return 0;

	/* The module must stay while its text is written ... */
	if (unlikely(!try_module_get(mod)))
		return -ENOENT;
	/* ... and its init text is gone once it is live. */
	if (within_module_init(addr, mod) && !module_is_coming(mod)) {
		module_put(mod);
		return -ENOENT;
	}
	*modp = mod;
	return 0;
}

/**
 * kprobe_check_site - may a probe go at its address
 * @p: the probe, with ->addr resolved
 * @modp: set to the module whose text @p is in, or NULL
 *
 * Marks a probe on a function-hook call site KPROBE_FLAG_FTRACE.  For
 * module text, returns with a reference on the module, which the caller
 * drops once the probe is in (or not): the module cannot go meanwhile.
 *
 * Context: process context; takes jump_label_lock().
 * Return: 0; -EINVAL for an address that is not text, is reserved or
 * blacklisted, or a call site without CONFIG_KPROBES_ON_FTRACE; -ENOENT
 * for a module on its way out or its freed init text.
 */
int kprobe_check_site(struct kprobe *p, struct module **modp)
{
	unsigned long addr = (unsigned long)p->addr;
	int ret;

	*modp = NULL;
	if (ftrace_location(addr) == addr) {
		if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
			return -EINVAL;
		p->flags |= KPROBE_FLAG_FTRACE;
	}

	/* No jump label or module may change while we look. */
	jump_label_lock();
	preempt_disable();
	ret = check_text(p, modp);
	preempt_enable();
	jump_label_unlock();
	return ret;
}

/**
 * kprobe_site_alive - is the text kprobe_check_site() accepted still there
 * @p: the probe
 * @mod: the module kprobe_check_site() returned, or NULL
 *
 * A module reference does not keep all of a module's text: its init text
 * goes once it is live, and a module whose init failed is freed even
 * while referenced.  The kernel's init text goes at the end of boot.
 * Whoever frees text marks its probes GONE under kprobe_mutex, after the
 * text is known to go; a probe that passed this under kprobe_mutex is
 * therefore either refused or marked GONE in time.
 *
 * Context: kprobe_mutex held.
 * Return: true if @p's text is still there.
 */
bool kprobe_site_alive(struct kprobe *p, struct module *mod)
{
	unsigned long addr = (unsigned long)p->addr;
	bool alive = false;

	lockdep_assert_held(&kprobe_mutex);

	if (!mod)
		return core_kernel_text(addr);
#ifdef CONFIG_MODULES
	/* Found in the module tree, @mod stays valid until preemption is on. */
	preempt_disable();
	alive = __module_text_address(addr) == mod &&
		mod->state != MODULE_STATE_GOING &&
		(!within_module_init(addr, mod) || module_is_coming(mod));
	preempt_enable();
#endif
	return alive;
}
