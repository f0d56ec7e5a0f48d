// SPDX-License-Identifier: GPL-2.0
/*
 * Function-hook core: the trampolines the arch allocates for an ops.
 *
 * One concept: the bookkeeping around an ops' own trampoline, so that the
 * rest of the kernel knows the text is there -- kernel_text_address() and
 * unwinders (is_ftrace_trampoline(), ftrace_ops_trampoline()),
 * /proc/kallsyms (ftrace_mod_get_kallsym()) and perf (ksymbol and
 * text-poke events).  The arch makes, retargets and frees the text
 * (ftrace_arch_tramp_update(), arch_ftrace_trampoline_free(); the weak
 * defaults here have none); ftrace.c decides when, while it registers and
 * removes ops, and this file decides what a trampoline calls
 * (ftrace_ops_tramp_target()), so the arch never asks the ops layer.
 *
 * Locking and lifetime:
 *  - A registered top-level ops whose trampoline the arch allocated
 *    (FTRACE_OPS_FL_ALLOC_TRAMP) is linked on ftrace_tramp_list through
 *    ops->list.  The list is changed under ftrace_lock; readers walk it
 *    locklessly (RCU or preemption off).
 *  - A trampoline is unlisted before it is freed, and freed only after
 *    the list's readers are done with it (an RCU grace period, or the wait
 *    of the removal that retired it).
 */
#include <linux/ftrace.h>
#include <linux/ftrace_tramp.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>

#include "trace.h"
#include "ftrace_records.h"
#include "ftrace_ops.h"

/* What /proc/kallsyms calls an arch-allocated trampoline, and its "module". */
#define FTRACE_TRAMPOLINE_SYM	"ftrace_trampoline"
#define FTRACE_TRAMPOLINE_MOD	"__builtin__ftrace"

/**
 * ftrace_arch_tramp_update - arch hook: create or retarget an ops' trampoline
 * @ops: an ops being registered, removed, or whose function changed
 * @func: what the trampoline should call (ftrace_ops_tramp_target())
 *
 * Default: no trampolines, so every site goes through the shared callers.
 *
 * Context: ftrace_lock held; may sleep.
 */
void __weak ftrace_arch_tramp_update(struct ftrace_ops *ops, ftrace_func_t func)
{
}

void __weak arch_ftrace_trampoline_free(struct ftrace_ops *ops)
{
}

/**
 * ftrace_ops_tramp_target - what an ops' own trampoline should call
 * @ops: the ops
 *
 * Its function as a caller dedicated to it calls it (ftrace_ops_get_func()),
 * or ftrace_stub once the ops is being removed, so that a task preempted in
 * the trampoline before it loads the target calls nothing of the ops when
 * it goes on.
 *
 * Context: ftrace_lock held.
 * Return: the function.
 */
ftrace_func_t ftrace_ops_tramp_target(struct ftrace_ops *ops)
{
	if (ops->flags & FTRACE_OPS_FL_REMOVING)
		return ftrace_stub;
	return ftrace_ops_get_func(ops);
}

/* Ops with an arch-allocated trampoline, linked through ops->list. */
static LIST_HEAD(ftrace_tramp_list);

static bool ftrace_tramp_listed(struct ftrace_ops *ops)
{
	struct ftrace_ops *op;

	list_for_each_entry(op, &ftrace_tramp_list, list)
		if (op == ops)
			return true;
	return false;
}

/**
 * ftrace_trampoline_add - publish an ops' newly allocated trampoline
 * @ops: an ops whose trampoline the arch code just allocated
 *
 * Makes the trampoline known to is_ftrace_trampoline(), /proc/kallsyms
 * and perf.  Does nothing for a trampoline the arch did not allocate
 * (FTRACE_OPS_FL_ALLOC_TRAMP unset) or one already published.
 *
 * Context: ftrace_lock held.
 */
void ftrace_trampoline_add(struct ftrace_ops *ops)
{
	lockdep_assert_held(&ftrace_lock);

	if (!(ops->flags & FTRACE_OPS_FL_ALLOC_TRAMP) || !ops->trampoline ||
	    ftrace_tramp_listed(ops))
		return;

	list_add_rcu(&ops->list, &ftrace_tramp_list);
	/* The symbol first, then the text that appeared under it. */
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL, ops->trampoline,
			   ops->trampoline_size, false, FTRACE_TRAMPOLINE_SYM);
	perf_event_text_poke((void *)ops->trampoline, NULL, 0,
			     (void *)ops->trampoline, ops->trampoline_size);
}

static bool ftrace_trampoline_unlist(struct ftrace_ops *ops);

/**
 * ftrace_trampoline_free - retire and free an ops' trampoline
 * @ops: an ops no site and no task can reach any more
 *
 * Unpublishes the trampoline (perf events, kallsyms, lookups), waits until
 * lockless readers are done with @ops, then lets the arch free it.
 *
 * Context: ftrace_lock held; sleeps.
 */
void ftrace_trampoline_free(struct ftrace_ops *ops)
{
	lockdep_assert_held(&ftrace_lock);

	if (ftrace_trampoline_unlist(ops))
		synchronize_rcu();
	arch_ftrace_trampoline_free(ops);
}

/*
 * Unpublish @ops' trampoline; the caller waits for the list's lockless
 * readers before it frees the trampoline.  Returns whether it was listed.
 */
static bool ftrace_trampoline_unlist(struct ftrace_ops *ops)
{
	void *tramp = (void *)ops->trampoline;

	if (!ftrace_tramp_listed(ops))
		return false;
	perf_event_text_poke(tramp, tramp, ops->trampoline_size, NULL, 0);
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL, ops->trampoline,
			   ops->trampoline_size, true, FTRACE_TRAMPOLINE_SYM);
	list_del_rcu(&ops->list);
	return true;
}

/**
 * ftrace_trampoline_retire - stop an allocated trampoline and unpublish it
 * @ops: an ops being removed, whose sites no longer call its trampoline
 *
 * A trampoline of ours stops calling the ops' function ((c) under
 * "Removal" in ftrace.c) and leaves the list.  The caller's wait covers
 * the list readers; ftrace_trampoline_free() then frees it.
 *
 * Context: ftrace_lock held.
 */
void ftrace_trampoline_retire(struct ftrace_ops *ops)
{
	if (!(ops->flags & FTRACE_OPS_FL_ALLOC_TRAMP) || !ops->trampoline)
		return;
	ftrace_arch_tramp_update(ops, ftrace_ops_tramp_target(ops));
	ftrace_trampoline_unlist(ops);
}

/**
 * ftrace_ops_refresh_trampoline - create or retarget an ops' trampoline
 * @ops: an ops being registered, or a registered one whose function changed
 *
 * Lets the arch create the trampoline or point it at what it should call
 * now (ftrace_ops_tramp_target()), and publishes a trampoline that is new.
 *
 * Context: ftrace_lock held; may sleep.
 */
void ftrace_ops_refresh_trampoline(struct ftrace_ops *ops)
{
	unsigned long before = ops->trampoline;

	ftrace_arch_tramp_update(ops, ftrace_ops_tramp_target(ops));
	if (ops->trampoline && ops->trampoline != before)
		ftrace_trampoline_add(ops);
}

/**
 * ftrace_ops_trampoline - find the ops owning an allocated trampoline
 * @addr: a text address
 *
 * Return: the ops whose arch-allocated trampoline contains @addr, or NULL.
 * The ops stays valid only while the caller can be sure its trampoline is
 * in use (for example, while unwinding a task running in it).
 *
 * Context: any, lockless.
 */
struct ftrace_ops *ftrace_ops_trampoline(unsigned long addr)
{
	struct ftrace_ops *op, *found = NULL;

	preempt_disable_notrace();
	list_for_each_entry_rcu(op, &ftrace_tramp_list, list, true) {
		if (addr >= op->trampoline &&
		    addr - op->trampoline < op->trampoline_size) {
			found = op;
			break;
		}
	}
	preempt_enable_notrace();
	return found;
}

/**
 * is_ftrace_trampoline - is an address inside an allocated trampoline?
 * @addr: a text address
 *
 * Return: true if @addr is in the trampoline the arch allocated for a
 * registered ops (kernel_text_address() counts it as kernel text).
 *
 * Context: any, lockless.
 */
bool is_ftrace_trampoline(unsigned long addr)
{
	return ftrace_ops_trampoline(addr);
}

/* ---- kallsyms ---------------------------------------------------------- */

/**
 * ftrace_mod_get_kallsym - the symbols /proc/kallsyms lists for ftrace
 * @symnum: index of the symbol wanted
 * @value: gets its address
 * @type: gets its type letter
 * @name: gets its name (KSYM_NAME_LEN bytes)
 * @module_name: gets its module name (MODULE_NAME_LEN bytes)
 * @exported: gets whether it counts as exported
 *
 * Lists the kept functions of freed module init text, then one
 * "ftrace_trampoline" in module "__builtin__ftrace" per allocated
 * trampoline.
 *
 * Return: 0 if symbol @symnum exists, -ERANGE otherwise.
 *
 * Context: process context; lockless.
 */
int ftrace_mod_get_kallsym(unsigned int symnum, unsigned long *value,
			   char *type, char *name, char *module_name,
			   int *exported)
{
	struct ftrace_ops *op;

	guard(rcu)();
	if (ftrace_sites_kept_sym_nth(&symnum, value, type, name, module_name,
				      exported))
		return 0;

	list_for_each_entry_rcu(op, &ftrace_tramp_list, list) {
		if (symnum) {
			symnum--;
			continue;
		}
		*value = op->trampoline;
		*type = 't';
		strscpy(name, FTRACE_TRAMPOLINE_SYM, KSYM_NAME_LEN);
		strscpy(module_name, FTRACE_TRAMPOLINE_MOD, MODULE_NAME_LEN);
		*exported = 0;
		return 0;
	}
	return -ERANGE;
}
