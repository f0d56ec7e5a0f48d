// SPDX-License-Identifier: GPL-2.0
/*
 * Where a probe goes: from a symbol or address and an offset to the
 * probed address, and whether a probe may go there.
 *
 * An address is the symbol's (kprobe_lookup_name()) or the caller's,
 * plus the offset, then split again by kallsyms into the start of the
 * function that holds it and the offset in it, so that the arch can
 * recognize the function's entry (arch_adjust_kprobe_addr()) whichever
 * way the caller named it.  A batch of many probes has its names looked
 * up in one walk of kallsyms (kprobe_lookup_names()).
 *
 * A probe may go on kernel or module text that is no trap of another
 * kind: not the gate area, the blacklist, jump label or static call
 * sites, BUG() sites, or CFI and padding preambles.  Nothing here keeps
 * state; the checks read what their owners protect.
 */
#include <linux/bug.h>
#include <linux/err.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <linux/stringhash.h>

#include "kallsyms_internal.h"
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
	if (!addr == !sym)
		return ERR_PTR(-EINVAL);
	if (sym) {
		/* Returns the symbol's address; the offset is ours to add. */
		addr = kprobe_lookup_name(sym, offset);
		if (!addr)
			return ERR_PTR(-ENOENT);
	}
	return kprobe_resolve_found(addr, offset, on_func_entry);
}

/**
 * kprobe_resolve_found - kprobe_resolve_addr() from a known symbol address
 * @sym_addr: the address of the probe's symbol (kprobe_lookup_names()),
 *	or the address the probe was given
 * @offset: the probe's offset from it
 * @on_func_entry: set to whether the result is the function's entry
 *
 * Return: as kprobe_resolve_addr().
 */
kprobe_opcode_t *kprobe_resolve_found(kprobe_opcode_t *sym_addr,
				      unsigned long offset, bool *on_func_entry)
{
	unsigned long where = (unsigned long)sym_addr + offset;
	unsigned long in_func;
	kprobe_opcode_t *addr;

	/* Split into the function's start and the offset in it ... */
	if (!kallsyms_lookup_size_offset(where, NULL, &in_func))
		return ERR_PTR(-ENOENT);

	/* ... and let the arch say where that is and if it is the entry. */
	addr = arch_adjust_kprobe_addr(where - in_func, in_func, on_func_entry);
	return addr ? addr : ERR_PTR(-EINVAL);
}

/*
 * Many names in one walk.  kallsyms_lookup_name() searches the sorted
 * names by halves and decompresses a name at each step, after skipping
 * to it from the last marker: some 20,000 instructions a lookup with
 * 60,000 symbols.  A walk over every symbol decompresses each name once
 * and looks it up in a hash of the batch's names, so a batch with more
 * than about one name for every 64 symbols costs less that way.
 *
 * The walk meets the symbols in address order and keeps the first one
 * of each name.  That is the one kallsyms_lookup_name() returns: its
 * table of names breaks ties by address, then by place in the address
 * order.  The walk covers the kernel image only; a name it misses goes
 * to kprobe_lookup_name() one by one, which looks in modules as well.
 * Only the generic kprobe_lookup_name() is known to be kallsyms' own:
 * powerpc's has rules of its own (function descriptors), so it has no
 * walk.
 */
#define NAME_WALK_SYMS_PER_NAME	64

struct name_walk {
	struct kprobe **kps;
	kprobe_opcode_t **found;	/* per probe, the result */
	u64 *hashlen;			/* per probe, 0 once found */
	int *next;			/* per probe, next in its bucket */
	int *head;			/* per bucket, first probe or -1 */
	unsigned int bits;
	unsigned int left;		/* distinct names not found yet */
};

/* Is @p named by a symbol alone, a name the walk can find? */
static bool walk_can_name(struct kprobe *p)
{
	return !p->addr && p->symbol_name && p->symbol_name[0];
}

/* The probe before @i whose name is @i's, or -1; @i not in yet. */
static int walk_find(struct name_walk *w, u64 hashlen, const char *name)
{
	int j = w->head[hash_32(hashlen_hash(hashlen), w->bits)];

	for (; j >= 0; j = w->next[j]) {
		if (w->hashlen[j] == hashlen &&
		    !strcmp(w->kps[j]->symbol_name, name))
			return j;
	}
	return -1;
}

static int walk_one(void *data, const char *name, unsigned long addr)
{
	struct name_walk *w = data;
	u64 hashlen = hashlen_string(NULL, name);
	int j = walk_find(w, hashlen, name);

	if (j < 0)
		return 0;
	/* First of its name: the lookup's answer.  Later ones do not match. */
	w->found[j] = (kprobe_opcode_t *)addr;
	w->hashlen[j] = 0;
	/* Every name found: the rest of the walk cannot change a result. */
	return --w->left ? 0 : 1;
}

/* Hash the names of @w->kps; one entry a distinct name, @dup[i] its first. */
static void walk_hash_names(struct name_walk *w, int num, int *dup)
{
	unsigned int b;
	u64 hashlen;
	int i;

	memset(w->head, 0xff, sizeof(*w->head) << w->bits);
	for (i = 0; i < num; i++) {
		dup[i] = -1;
		w->hashlen[i] = 0;
		if (!walk_can_name(w->kps[i]))
			continue;
		hashlen = hashlen_string(NULL, w->kps[i]->symbol_name);
		dup[i] = walk_find(w, hashlen, w->kps[i]->symbol_name);
		if (dup[i] >= 0)
			continue;
		dup[i] = i;
		w->hashlen[i] = hashlen;
		b = hash_32(hashlen_hash(hashlen), w->bits);
		w->next[i] = w->head[b];
		w->head[b] = i;
		w->left++;
	}
}

/**
 * kprobe_lookup_names - look up the symbols of many probes in one walk
 * @kps: the probes
 * @num: how many
 * @force: walk even for a batch small enough for one lookup a name
 *
 * Context: process context; may sleep.
 * Return: an array of @num addresses for the caller to kvfree(): for a
 * probe named by a symbol alone, the address kprobe_lookup_name() gives
 * that symbol, or NULL if it is not in the kernel image; NULL for the
 * other probes.  NULL instead of an array when the batch is smaller than
 * the walk is worth (unless @force), the arch has a lookup of its own,
 * or memory is short: the caller then looks names up one by one.
 */
kprobe_opcode_t **kprobe_lookup_names(struct kprobe **kps, int num, bool force)
{
	struct name_walk w = { .kps = kps };
	int *dup;
	int i;

	if (IS_ENABLED(CONFIG_PPC) || num <= 0 ||
	    (!force &&
	     (unsigned int)num < kallsyms_num_syms / NAME_WALK_SYMS_PER_NAME))
		return NULL;

	w.bits = ilog2(roundup_pow_of_two(num)) + 1;
	w.found = kvcalloc(num, sizeof(*w.found), GFP_KERNEL | __GFP_NOWARN);
	w.hashlen = kvmalloc_array(num, sizeof(*w.hashlen),
				   GFP_KERNEL | __GFP_NOWARN);
	w.next = kvmalloc_array(num, sizeof(*w.next), GFP_KERNEL | __GFP_NOWARN);
	dup = kvmalloc_array(num, sizeof(*dup), GFP_KERNEL | __GFP_NOWARN);
	w.head = kvmalloc_array(1U << w.bits, sizeof(*w.head),
				GFP_KERNEL | __GFP_NOWARN);
	if (!w.found || !w.hashlen || !w.next || !dup || !w.head) {
		kvfree(w.found);
		w.found = NULL;
		goto out;
	}

	walk_hash_names(&w, num, dup);
	if (w.left)
		kallsyms_on_each_symbol(walk_one, &w);
	/* A name given twice gets what its first probe got. */
	for (i = 0; i < num; i++) {
		if (dup[i] >= 0)
			w.found[i] = w.found[dup[i]];
	}
out:
	kvfree(w.head);
	kvfree(dup);
	kvfree(w.next);
	kvfree(w.hashlen);
	return w.found;
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

/*
 * Is @addr the place of another kind of trap or patched code?  A
 * function-hook call site (@call_site) is the call the compiler emitted
 * for the hook core (x86: "call __fentry__" at the entry or after its
 * ENDBR; arm64: the BL slot of the patchable entry), found at build time
 * in the function's body, never in a preamble, and no BUG() trap, jump
 * label or static call.  A probe there writes no text of its own either:
 * it is armed through the hook core's ftrace_ops.  So there only the
 * blacklist and the gate area are asked.  That spares a
 * batch of entry probes a walk of the whole bug table and a symbol name
 * lookup per probe, which were most of a register_kprobes() of
 * thousands of functions.
 */
static bool text_reserved(kprobe_opcode_t *addr, bool call_site)
{
	unsigned long a = (unsigned long)addr;

	if (in_gate_area_no_mm(a) || within_kprobe_blacklist(a))
		return true;
	if (call_site)
		return false;
	return jump_label_text_reserved(addr, addr) ||
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
	if (text_reserved(p->addr, p->flags & KPROBE_FLAG_FTRACE))
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
