// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe blacklist: the functions no probe may go into.
 *
 * It holds whole functions, [start, end) as kallsyms sizes them, since a
 * probe need not be on a function's first instruction.  At boot it gets
 * every NOKPROBE_SYMBOL() (the _kprobe_blacklist section), every function
 * of the .kprobes.text and .noinstr.text sections, and whatever the arch
 * adds in arch_populate_kprobe_blacklist() (entry text and the like).  A
 * module's own entries come when it loads and go when it is unloaded.
 * arch_within_kprobe_blacklist() may refuse more, by address.
 *
 * Rules: writers hold kprobe_blacklist_mutex; readers (registration,
 * hw_breakpoint, kgdb) walk the list under RCU; an entry is freed after a
 * grace period.  A lookup may briefly see a removed module's entry, which
 * only refuses a probe that could not be placed anyway.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <asm/sections.h>

#include "kprobes_place.h"

LIST_HEAD(kprobe_blacklist);
/* Serializes changes of kprobe_blacklist; readers use RCU. */
DEFINE_MUTEX(kprobe_blacklist_mutex);

/*
 * The last name kprobe_lookup_name() found in the kernel image, and its
 * address.  One kprobe event definition looks its symbol up three times
 * (its parse, trace_kprobe's notrace check, the registration), each a
 * binary search of kallsyms that expands a name at every step (some
 * 24,000 instructions).
 *
 * Rules: only a name the image itself has is kept (name_in_image()):
 * kallsyms searches the image before modules, so such a name resolves to
 * the same address for good, whatever modules come and go.  The cache
 * is used only from preemptible context; anything else (kgdb checking a
 * breakpoint, an interrupt that came while the lock was held) looks up
 * uncached, so the lock never spins against its own CPU or a stopped one.
 */
static DEFINE_RAW_SPINLOCK(kprobe_name_cache_lock);
static char kprobe_name_cache[KSYM_NAME_LEN];
static unsigned long kprobe_name_cache_addr;

static unsigned long cached_name_addr(const char *name)
{
	unsigned long addr = 0;

	raw_spin_lock(&kprobe_name_cache_lock);
	if (kprobe_name_cache_addr && !strcmp(name, kprobe_name_cache))
		addr = kprobe_name_cache_addr;
	raw_spin_unlock(&kprobe_name_cache_lock);
	return addr;
}

/*
 * Did @name come from the image's own symbols?  Where the image has a
 * symbol of that name at @addr it did; an alias found under another name,
 * or a module symbol whose address lies in the image (arm64's per-CPU
 * ones), is simply not cached.
 */
static bool name_in_image(const char *name, unsigned long addr)
{
	char found[KSYM_NAME_LEN];

	return __is_kernel(addr) && !lookup_symbol_name(addr, found) &&
	       !strcmp(found, name);
}

static void cache_name_addr(const char *name, unsigned long addr)
{
	if (strlen(name) >= KSYM_NAME_LEN || !name_in_image(name, addr))
		return;
	raw_spin_lock(&kprobe_name_cache_lock);
	strscpy(kprobe_name_cache, name, sizeof(kprobe_name_cache));
	kprobe_name_cache_addr = addr;
	raw_spin_unlock(&kprobe_name_cache_lock);
}

/**
 * kprobe_lookup_name - the address of a symbol, for probes
 * @name: the symbol
 * @offset: the offset the caller will add (an arch may use it to pick
 *	among entry points; the default ignores it)
 *
 * What kallsyms_lookup_name() returns; from preemptible context the last
 * name found in the kernel image is remembered, so that looking the same
 * name up again costs a string compare.  Defined here, by its lowest
 * user; kprobes_addr.c and trace_kprobe use it too.
 *
 * Context: any; does not sleep.
 * Return: the symbol's address, not including @offset, or NULL.
 */
kprobe_opcode_t * __weak kprobe_lookup_name(const char *name,
					    unsigned int offset)
{
	bool cache = preemptible();
	unsigned long addr = cache ? cached_name_addr(name) : 0;

	if (addr)
		return (kprobe_opcode_t *)addr;
	addr = kallsyms_lookup_name(name);
	if (addr && cache)
		cache_name_addr(name, addr);
	return (kprobe_opcode_t *)addr;
}

/**
 * kprobe_add_ksym_blacklist - refuse probes in one function
 * @entry: an address in kernel or module text where a symbol starts
 *
 * Context: process context; takes kprobe_blacklist_mutex.
 *
 * Return: the size of the function (0 for an alias of size 0), -EINVAL
 * if @entry is not text kallsyms knows, -ENOMEM.
 */
int kprobe_add_ksym_blacklist(unsigned long entry)
{
	struct kprobe_blacklist_entry *ent;
	unsigned long size = 0, offset = 0;

	if (!kernel_text_address(entry))
		return -EINVAL;
	if (!kallsyms_lookup_size_offset(entry, &size, &offset))
		return -EINVAL;

	ent = kzalloc(sizeof(*ent), GFP_KERNEL);
	if (!ent)
		return -ENOMEM;
	*ent = (struct kprobe_blacklist_entry) {
		.start_addr	= entry,
		.end_addr	= entry + size,
	};

	mutex_lock(&kprobe_blacklist_mutex);
	list_add_tail_rcu(&ent->list, &kprobe_blacklist);
	mutex_unlock(&kprobe_blacklist_mutex);
	return (int)size;
}

/**
 * kprobe_add_area_blacklist - refuse probes in every function of a range
 * @start: first address of the range, where a function starts
 * @end: end of the range
 *
 * Context: process context.
 *
 * Return: 0, or the first error of kprobe_add_ksym_blacklist().
 */
int kprobe_add_area_blacklist(unsigned long start, unsigned long end)
{
	unsigned long addr = start;
	int size;

	while (addr < end) {
		size = kprobe_add_ksym_blacklist(addr);
		if (size < 0)
			return size;
		/* Step over a zero-sized alias to the next byte. */
		addr += size ? size : 1;
	}
	return 0;
}

#ifdef CONFIG_MODULES
/* Drop the entries that start in [@start, @end). */
static void remove_range(unsigned long start, unsigned long end)
{
	struct kprobe_blacklist_entry *ent, *tmp;

	mutex_lock(&kprobe_blacklist_mutex);
	list_for_each_entry_safe(ent, tmp, &kprobe_blacklist, list) {
		if (ent->start_addr >= start && ent->start_addr < end) {
			list_del_rcu(&ent->list);
			kfree_rcu(ent, rcu);
		}
	}
	mutex_unlock(&kprobe_blacklist_mutex);
}

/**
 * kprobe_blacklist_add_module - refuse probes where a coming module says
 * @mod: the module, in MODULE_STATE_COMING
 *
 * Its NOKPROBE_SYMBOL()s and its .kprobes.text and .noinstr.text
 * functions.  Best effort: an entry that fails to be added is skipped.
 */
void kprobe_blacklist_add_module(struct module *mod)
{
	unsigned long start;
	unsigned int i;

	for (i = 0; mod->kprobe_blacklist && i < mod->num_kprobe_blacklist; i++)
		kprobe_add_ksym_blacklist(mod->kprobe_blacklist[i]);

	start = (unsigned long)mod->kprobes_text_start;
	if (start)
		kprobe_add_area_blacklist(start, start + mod->kprobes_text_size);

	start = (unsigned long)mod->noinstr_text_start;
	if (start)
		kprobe_add_area_blacklist(start, start + mod->noinstr_text_size);
}

/**
 * kprobe_blacklist_remove_module - forget a going module's entries
 * @mod: the module, in MODULE_STATE_GOING
 */
void kprobe_blacklist_remove_module(struct module *mod)
{
	unsigned long start;
	unsigned int i;

	for (i = 0; mod->kprobe_blacklist && i < mod->num_kprobe_blacklist; i++)
		remove_range(mod->kprobe_blacklist[i],
			     mod->kprobe_blacklist[i] + 1);

	start = (unsigned long)mod->kprobes_text_start;
	if (start)
		remove_range(start, start + mod->kprobes_text_size);

	start = (unsigned long)mod->noinstr_text_start;
	if (start)
		remove_range(start, start + mod->noinstr_text_size);
}
#endif /* CONFIG_MODULES */

/**
 * arch_within_kprobe_blacklist - may the arch's rules probe an address
 * @addr: the address
 *
 * The default refuses the .kprobes.text section.
 *
 * Return: true if no probe may go at @addr.
 */
bool __weak arch_within_kprobe_blacklist(unsigned long addr)
{
	return addr >= (unsigned long)__kprobes_text_start &&
	       addr < (unsigned long)__kprobes_text_end;
}

static bool listed(unsigned long addr)
{
	struct kprobe_blacklist_entry *ent;
	bool hit = false;

	if (arch_within_kprobe_blacklist(addr))
		return true;

	rcu_read_lock();
	list_for_each_entry_rcu(ent, &kprobe_blacklist, list) {
		hit = ent->start_addr <= addr && addr < ent->end_addr;
		if (hit)
			break;
	}
	rcu_read_unlock();
	return hit;
}

/**
 * within_kprobe_blacklist - may no probe go at an address
 * @addr: the address
 *
 * Besides the list itself, a compiler-made part of a function
 * ("name.cold", "name.isra.0", ...) is refused when the function it was
 * split from ("name") is.
 *
 * Context: any context that may call kallsyms; does not sleep.
 *
 * Return: true if @addr is blacklisted.
 */
bool within_kprobe_blacklist(unsigned long addr)
{
	char name[KSYM_NAME_LEN];
	kprobe_opcode_t *parent;
	char *dot;

	if (listed(addr))
		return true;

	if (lookup_symbol_name(addr, name))
		return false;
	dot = strchr(name, '.');
	if (!dot)
		return false;
	*dot = '\0';
	parent = kprobe_lookup_name(name, 0);
	return parent && listed((unsigned long)parent);
}

/**
 * arch_populate_kprobe_blacklist - add the arch's ranges at boot
 *
 * Return: 0 or an error; the default adds nothing.
 */
int __init __weak arch_populate_kprobe_blacklist(void)
{
	return 0;
}

/**
 * kprobe_blacklist_init - build the blacklist at boot
 *
 * Return: 0, or the first error; what was added until then stays.
 */
int __init kprobe_blacklist_init(void)
{
	/* Whole sections of the kernel no probe may go into. */
	const unsigned long refused_sections[][2] = {
		{ (unsigned long)__kprobes_text_start,
		  (unsigned long)__kprobes_text_end },
		{ (unsigned long)__noinstr_text_start,
		  (unsigned long)__noinstr_text_end },
	};
	unsigned long *iter;
	unsigned long fn;
	unsigned int i;
	int ret;

	for (iter = __start_kprobe_blacklist; iter < __stop_kprobe_blacklist;
	     iter++) {
		fn = (unsigned long)dereference_symbol_descriptor((void *)*iter);
		ret = kprobe_add_ksym_blacklist(fn);
		/* Not text kallsyms knows (e.g. discarded): nothing to refuse. */
		if (ret < 0 && ret != -EINVAL)
			return ret;
	}

	for (i = 0; i < ARRAY_SIZE(refused_sections); i++) {
		ret = kprobe_add_area_blacklist(refused_sections[i][0],
						refused_sections[i][1]);
		if (ret)
			return ret;
	}
	return arch_populate_kprobe_blacklist();
}
