// SPDX-License-Identifier: GPL-2.0
/*
 * Function-hook core: what the rest of the kernel calls into it.
 *
 * One concept: the kernel's entry points of the core's life -- boot
 * (ftrace_init()), module load and unload (ftrace_module_enable(),
 * ftrace_release_mod()) and freeing of text (ftrace_free_mem(),
 * ftrace_free_init_mem()).  Each is a fixed sequence of calls down into
 * the layers (records, hashes, patcher, filters, the :mod: cache), so the
 * order in which they are told lives in one place and no lower layer has
 * to call up.  ftrace_module_init() is not here: it only builds and NOPs
 * records, which is the records' own business.
 *
 * Locking and order:
 *  - ftrace_init() runs once from start_kernel(), before SMP; the arch
 *    setup runs with interrupts off.
 *  - The module and text hooks take ftrace_lock around the records' part
 *    and the site update, and drop it before they touch the filters:
 *    ftrace_hashes_drop_range() takes trace_types_lock, then ftrace_lock,
 *    and the :mod: cache installs filters through ftrace_hash_install(),
 *    which takes ftrace_lock.
 *  - Text leaves the filters only after its records are gone, so that no
 *    update can use its addresses any more, and before it can be reused.
 */
#include <linux/ftrace.h>
#include <linux/init.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/mutex.h>

#include <asm/sections.h>

#include "trace.h"
#include "ftrace_internal.h"

/**
 * ftrace_init - make the function-hook core usable
 *
 * Registers the upper layers' hooks with the lower ones (the ops layer
 * with the patcher, direct calls with both), sets up the hash entry cache and the arch, builds the
 * vmlinux call-site records and NOPs every site.  On success the core becomes usable
 * (ftrace_enabled = 1) and the boot filters are applied; on failure
 * function tracing is killed for this boot.
 *
 * Context: once, from start_kernel(), before SMP, with interrupts disabled.
 */
void __init ftrace_init(void)
{
	unsigned long flags;
	int err;

	/* Before anything can run a site update or register an ops. */
	ftrace_ops_sites_init();
	ftrace_direct_init();

	ftrace_hash_init();
	local_irq_save(flags);
	err = ftrace_dyn_arch_init();
	local_irq_restore(flags);
	if (!err)
		err = ftrace_sites_boot();
	if (err) {
		pr_warn("ftrace: function tracing disabled (%d)\n", err);
		ftrace_kill();
		return;
	}

	ftrace_enabled = 1;
	last_ftrace_enabled = 1;
	ftrace_apply_boot_filters();
}

#ifdef CONFIG_MODULES

/**
 * ftrace_module_enable - let a loaded module's call sites be traced
 * @mod: the module, MODULE_STATE_COMING (text final and read-only)
 *
 * Clears FTRACE_FL_DISABLED on the module's records (except leftovers of
 * overridden weak functions), patches the sites that registered ops want,
 * then applies the ":mod:" filters cached for this module.
 *
 * Context: process context; takes ftrace_lock; sleeps.
 */
void ftrace_module_enable(struct module *mod)
{
	int err;

	mutex_lock(&ftrace_lock);
	if (ftrace_core_dead()) {
		mutex_unlock(&ftrace_lock);
		return;
	}
	if (ftrace_sites_module_enable(mod) && ftrace_ops_registered()) {
		err = ftrace_sites_update(0);
		if (err)
			pr_warn("ftrace: module '%s' not hooked yet (%d)\n",
				mod->name, err);
	}
	mutex_unlock(&ftrace_lock);

	/* Installs filters through ftrace_hash_install(): takes ftrace_lock. */
	ftrace_mod_cache_apply(mod);
}

/* Retire the module's text, core and init, from every filter. */
static void lifecycle_drop_module_text(struct module *mod)
{
	static const enum mod_mem_type text[] = { MOD_TEXT, MOD_INIT_TEXT };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(text); i++) {
		unsigned long base = (unsigned long)mod->mem[text[i]].base;
		unsigned long size = mod->mem[text[i]].size;

		if (base && size)
			ftrace_hashes_drop_range(base, base + size);
	}
}

/**
 * ftrace_release_mod - forget the call sites of a module going away
 * @mod: the module (unloading, or its load failed)
 *
 * Unlinks its records, publishes a generation without its sites, forgets
 * the names kept for its freed init functions, removes its functions from
 * every filter, and frees the records after a grace period.  Nothing is
 * patched: the module's text is going away.
 *
 * Context: process context; takes ftrace_lock, then (without it)
 * trace_types_lock and ftrace_lock; sleeps.
 */
void ftrace_release_mod(struct module *mod)
{
	struct ftrace_site_group *g;

	mutex_lock(&ftrace_lock);
	g = ftrace_sites_module_unlink(mod);
	if (g && !ftrace_core_dead() && ftrace_ops_registered())
		ftrace_sites_update(0);
	ftrace_mod_syms_drop(mod);
	mutex_unlock(&ftrace_lock);

	if (!g)
		return;
	/*
	 * Its records are gone, so no update can use its addresses any more;
	 * now retire them from the filters (this takes trace_types_lock and
	 * ftrace_lock itself), before another module can reuse the text.
	 */
	lifecycle_drop_module_text(mod);
	ftrace_sites_group_retire(g);
}

#endif /* CONFIG_MODULES */

/**
 * ftrace_free_mem - forget the call sites in text that is being freed
 * @mod: the module whose init text is freed, NULL for vmlinux
 * @start_ptr: start of the text
 * @end_ptr: end of the text (exclusive)
 *
 * Drops the records of the range (keeping the names of module init
 * functions for later symbol lookups), then removes the range from every
 * filter.  The sites are not patched: their text is going away.
 *
 * Context: process context; takes ftrace_lock, then (without it)
 * trace_types_lock and ftrace_lock; sleeps.
 */
void ftrace_free_mem(struct module *mod, void *start_ptr, void *end_ptr)
{
	unsigned long start = (unsigned long)start_ptr;
	unsigned long end = (unsigned long)end_ptr;

	if (start >= end)
		return;
	/* Takes trace_types_lock and ftrace_lock itself. */
	if (ftrace_sites_drop_text(mod, start, end))
		ftrace_hashes_drop_range(start, end);
}

/**
 * ftrace_free_init_mem - forget the call sites of vmlinux init text
 *
 * Context: once, right before the init sections are freed.
 */
void __init ftrace_free_init_mem(void)
{
	ftrace_boot_snapshot();
	ftrace_free_mem(NULL, __init_begin, __init_end);
}
