// SPDX-License-Identifier: GPL-2.0
/*
 * The patcher's side that the arch's batch patcher talks to.
 *
 * One concept of the patch layer: once an update (ftrace_patch.c) has
 * published a site generation and listed the records whose target
 * changed, this file runs the update command.  It walks the records for
 * the arch (ftrace_rec_iter_*()), answers what each record calls now and
 * should call (ftrace_test_record(), ftrace_update_record(),
 * ftrace_get_addr_curr/new(), ftrace_rec_call_ops()), points ftrace_call
 * first at the dispatcher and, once the sites are patched, at the
 * function the client's pick chose (ftrace_modify_all_code()), and holds
 * the weak defaults of the arch hooks around an update.
 *
 * Locking: everything here runs under ftrace_lock, held by the updater;
 * the arch takes text_mutex in ftrace_arch_code_modify_prepare().  The
 * patch list is set only for the length of one ftrace_sites_patch().  A
 * record's cur_addr changes only in ftrace_update_record() or, for the
 * batch patcher, ftrace_site_changed(), right after the arch queued the
 * matching text change.
 */
#include <linux/ftrace.h>
#ifdef CONFIG_HAVE_FTRACE_BATCH_PATCHER
#include <linux/ftrace_batch.h>
#endif
#include <linux/kallsyms.h>
#include <linux/mutex.h>
#include <linux/stop_machine.h>

#include "trace.h"
#include "ftrace_patch_internal.h"

/* ---- record iteration for the arch patcher ----------------------------- */

/*
 * Walks every record with a state, or, while ftrace_sites_update()
 * patches, only the records whose target changed (any other record would
 * be FTRACE_UPDATE_IGNORE, as is every site without a state: a NOP nobody
 * wants).  One iterator, used under ftrace_lock.
 */
struct ftrace_rec_iter {
	struct ftrace_site_group	*group;	/* full walk */
	unsigned int			index;	/* in group, or in the patch list */
	struct dyn_ftrace		*rec;
};

static struct ftrace_rec_iter site_iter;
static union site_scratch *site_patch_list;
static unsigned int site_patch_nr;
/* Entry of site_patch_list the patcher asked about last. */
static unsigned int site_patch_pos;

/*
 * The state of @rec if it is the record at entry @k of the patch list.
 * Every entry is the record of a state (site_publish() listed it).
 */
static struct ftrace_site_state *site_patch_at(unsigned int k,
					       const struct dyn_ftrace *rec)
{
	if (k >= site_patch_nr || site_patch_list[k].rec != rec)
		return NULL;
	site_patch_pos = k;
	return container_of(site_patch_list[k].rec, struct ftrace_site_state,
			    rec);
}

/*
 * While an update patches, the arch patcher walks the patch list in order,
 * once or twice, and asks a few questions about each record: its state is
 * then the entry asked about last, the one after it, or the first (the
 * start of another pass).  NULL for anything else, or outside an update.
 */
static struct ftrace_site_state *site_patch_state(const struct dyn_ftrace *rec)
{
	struct ftrace_site_state *st;
	unsigned int k = site_patch_pos;

	if (!site_patch_list)
		return NULL;
	st = site_patch_at(k, rec);
	if (!st)
		st = site_patch_at(k + 1, rec);
	if (!st && k)
		st = site_patch_at(0, rec);
	return st;
}

/* The first record with a state at or after site @i of @g. */
static struct ftrace_rec_iter *site_iter_from(struct ftrace_site_group *g,
					      unsigned int i)
{
	struct ftrace_site_state *st;

	for (; g; g = rcu_dereference_check(g->next, lockdep_is_held(&ftrace_lock)),
	     i = 0) {
		for (; i < g->nr; i++) {
			st = ftrace_site_state(g, i);
			if (!st) {
				/* skip the rest of a chunk never made */
				i |= FTRACE_SITE_CHUNK - 1;
				continue;
			}
			site_iter.group = g;
			site_iter.index = i;
			site_iter.rec = &st->rec;
			return &site_iter;
		}
	}
	return NULL;
}

/**
 * ftrace_rec_iter_start - start walking the records for the arch patcher
 *
 * Context: ftrace_lock held.
 * Return: the iterator at the first record, or NULL if there is none.
 */
struct ftrace_rec_iter *ftrace_rec_iter_start(void)
{
	if (site_patch_list) {
		if (!site_patch_nr)
			return NULL;
		site_iter.index = 0;
		site_iter.rec = site_patch_list[0].rec;
		site_patch_pos = 0;
		return &site_iter;
	}
	return site_iter_from(rcu_dereference_check(ftrace_site_groups,
						    lockdep_is_held(&ftrace_lock)), 0);
}

/**
 * ftrace_rec_iter_next - advance the iterator
 * @iter: the iterator
 *
 * Return: @iter at the next record, or NULL at the end.
 */
struct ftrace_rec_iter *ftrace_rec_iter_next(struct ftrace_rec_iter *iter)
{
	if (site_patch_list) {
		if (++iter->index >= site_patch_nr)
			return NULL;
		iter->rec = site_patch_list[iter->index].rec;
		site_patch_pos = iter->index;
		return iter;
	}
	return site_iter_from(iter->group, iter->index + 1);
}

/**
 * ftrace_rec_iter_record - the record the iterator is at
 * @iter: the iterator
 *
 * Return: the record.
 */
struct dyn_ftrace *ftrace_rec_iter_record(struct ftrace_rec_iter *iter)
{
	return iter->rec;
}

/* ---- record state for the arch patcher ---------------------------------- */

static int site_action(unsigned long cur, unsigned long target, bool ops_stale)
{
	if (cur == target && !ops_stale) {
		ftrace_bug_type = FTRACE_BUG_UNKNOWN;
		return FTRACE_UPDATE_IGNORE;
	}
	if (!cur) {
		ftrace_bug_type = FTRACE_BUG_CALL;
		return FTRACE_UPDATE_MAKE_CALL;
	}
	if (!target) {
		ftrace_bug_type = FTRACE_BUG_NOP;
		return FTRACE_UPDATE_MAKE_NOP;
	}
	ftrace_bug_type = FTRACE_BUG_UPDATE;
	return FTRACE_UPDATE_MODIFY_CALL;
}

/* The state of the site @rec names, or NULL if it has none. */
static struct ftrace_site_state *site_state_of(const struct dyn_ftrace *rec)
{
	struct ftrace_site_state *st = site_patch_state(rec);
	struct ftrace_site_group *g;
	unsigned int i;

	if (st)
		return st;
	g = ftrace_site_group_of(rec, &i);
	return g ? ftrace_site_state(g, i) : NULL;
}

/*
 * The state of @rec, or NULL for a record that is never patched (disabled,
 * without a state, or unknown, which would be a bug).  Resets
 * ftrace_bug_type for the action that follows.
 */
static struct ftrace_site_state *site_patchable(struct dyn_ftrace *rec)
{
	struct ftrace_site_state *st;
	struct ftrace_site_group *g;
	unsigned int i;

	ftrace_bug_type = FTRACE_BUG_UNKNOWN;
	if (rec->flags & FTRACE_FL_DISABLED)
		return NULL;
	/* listed records are never disabled sites */
	st = site_patch_state(rec);
	if (st)
		return st;
	g = ftrace_site_group_of(rec, &i);
	WARN_ON_ONCE(!g);
	if (!g || ftrace_site_disabled(g, i))
		return NULL;
	return ftrace_site_state(g, i);
}

/**
 * ftrace_test_record - what patching a record would do
 * @rec: the record
 * @enable: false when all sites must become NOPs
 *
 * Context: ftrace_lock held.  O(1).
 * Return: FTRACE_UPDATE_IGNORE, _MAKE_CALL, _MAKE_NOP or _MODIFY_CALL.
 */
int ftrace_test_record(struct dyn_ftrace *rec, bool enable)
{
	struct ftrace_site_state *st = site_patchable(rec);
	enum site_kind kind;
	unsigned long addr;

	if (!st)
		return FTRACE_UPDATE_IGNORE;
	addr = ftrace_site_target(rec->ip, st->set, enable, &kind);
	return site_action(st->cur_addr, addr,
			   ftrace_site_call_ops_stale(&st->rec, st->set, addr));
}

/**
 * ftrace_update_record - record that a site's code was (queued to be) changed
 * @rec: the record
 * @enable: false when all sites must become NOPs
 *
 * Stores the record's target as what it calls now and refreshes its
 * FTRACE_FL_* code flags.  The caller patches the text accordingly.
 *
 * Context: ftrace_lock held.  O(1).
 * Return: the FTRACE_UPDATE_* action this stands for.
 */
int ftrace_update_record(struct dyn_ftrace *rec, bool enable)
{
	struct ftrace_site_state *st = site_patchable(rec);
	enum site_kind kind;
	unsigned long addr;
	int action;

	if (!st)
		return FTRACE_UPDATE_IGNORE;

	addr = ftrace_site_target(rec->ip, st->set, enable, &kind);
	action = site_action(st->cur_addr, addr,
			     ftrace_site_call_ops_stale(&st->rec, st->set, addr));
	if (action != FTRACE_UPDATE_IGNORE) {
		st->cur_addr = addr;
		ftrace_site_mark_code(&st->rec, st->set, addr, kind);
	}
	return action;
}

#ifdef CONFIG_HAVE_FTRACE_BATCH_PATCHER
/**
 * ftrace_rec_iter_count - how many records the iterator yields
 *
 * Context: ftrace_lock held.  O(1) while an update patches its list.
 * Return: the count.
 */
unsigned int ftrace_rec_iter_count(void)
{
	struct ftrace_rec_iter *iter;
	unsigned int n = 0;

	if (site_patch_list)
		return site_patch_nr;
	for_ftrace_rec_iter(iter)
		n++;
	return n;
}

/**
 * ftrace_site_change - a record's whole change, for the batch patcher
 * @rec: a record the iterator yielded
 * @enable: false when all sites must become NOPs
 * @c: gets the change
 *
 * What ftrace_test_record(), ftrace_get_addr_curr(), ftrace_get_addr_new()
 * and ftrace_rec_call_ops() would answer together, from one lookup of the
 * record's state and one computation of its target.  With CALL_OPS the
 * literal is read once here, and @c->ops says whether it must change.
 *
 * Context: ftrace_lock held.  O(1).
 * Return: false if the site does not change (@c untouched), true if @c
 * holds its change.
 */
bool ftrace_site_change(struct dyn_ftrace *rec, bool enable,
			struct ftrace_batch_change *c)
{
	struct ftrace_site_state *st = site_patchable(rec);
	const struct ftrace_ops *ops = NULL;
	enum site_kind kind;
	unsigned long addr;

	if (!st)
		return false;
	addr = ftrace_site_target(rec->ip, st->set, enable, &kind);
	/* a NOP that stays one: its literal is not looked at */
	if (!addr && !st->cur_addr)
		return false;
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
	ops = ftrace_site_call_ops(st->set, addr);
	if (ops == ftrace_arch_rec_call_ops(rec))
		ops = NULL;
#endif
	/* a literal to rewrite is what makes a kept call stale */
	if (site_action(st->cur_addr, addr, addr && ops) == FTRACE_UPDATE_IGNORE)
		return false;
	c->old = st->cur_addr;
	c->new = addr;
	c->ops = ops;
	return true;
}

/**
 * ftrace_site_changed - record that a site's change was written
 * @rec: a record ftrace_site_change() returned a change for, in the same
 *	 update
 * @enable: as given to ftrace_site_change()
 *
 * ftrace_update_record() for a record known to change: every record the
 * iterator yields is a site state's, so no lookup is needed.  Unlike
 * ftrace_update_record() after a change of the literal alone (which then
 * reads back as current, so the action is IGNORE), the record's code
 * flags are always refreshed for its new set.
 *
 * Context: ftrace_lock held.  O(1).
 */
void ftrace_site_changed(struct dyn_ftrace *rec, bool enable)
{
	struct ftrace_site_state *st;
	enum site_kind kind;
	unsigned long addr;

	lockdep_assert_held(&ftrace_lock);
	st = container_of(rec, struct ftrace_site_state, rec);
	addr = ftrace_site_target(rec->ip, st->set, enable, &kind);
	st->cur_addr = addr;
	ftrace_site_mark_code(rec, st->set, addr, kind);
}
#endif /* CONFIG_HAVE_FTRACE_BATCH_PATCHER */

/**
 * ftrace_get_addr_curr - what a call site calls now
 * @rec: the record
 *
 * Return: the call target, or 0 if the site is the NOP.
 */
unsigned long ftrace_get_addr_curr(struct dyn_ftrace *rec)
{
	struct ftrace_site_state *st = site_state_of(rec);

	return st ? st->cur_addr : 0;
}

/**
 * ftrace_get_addr_new - what a call site should call with calls enabled
 * @rec: the record
 *
 * Return: the call target, or 0 if no registered ops wants the site.
 */
unsigned long ftrace_get_addr_new(struct dyn_ftrace *rec)
{
	struct ftrace_site_state *st = site_state_of(rec);
	enum site_kind kind;

	if (!st)
		return 0;
	return ftrace_site_target(rec->ip, st->set, true, &kind);
}

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
/**
 * ftrace_rec_call_ops - the ops a call site's literal should hold
 * @rec: the record of a site that is made to call, or kept calling, its
 *	 target (ftrace_get_addr_new())
 *
 * For the architecture's ftrace_make_call() and ftrace_modify_call(),
 * which write the literal before the call (a site becoming a NOP gets
 * &ftrace_nop_ops).  ftrace_caller calls literal->func with the literal as
 * op: a single ops that may be called straight, or the dispatcher's ops
 * (ftrace_list_ops), whose dispatcher finds the site's set in one lookup.
 *
 * Context: ftrace_lock held.
 * Return: the ops; never NULL.
 */
const struct ftrace_ops *ftrace_rec_call_ops(struct dyn_ftrace *rec)
{
	struct ftrace_site_state *st = site_state_of(rec);
	enum site_kind kind;
	unsigned long addr;

	if (!st)
		return &ftrace_nop_ops;
	addr = ftrace_site_target(rec->ip, st->set, true, &kind);
	return ftrace_site_call_ops(st->set, addr);
}
#endif

/*
 * What the patcher knows of a site that could not be patched: what it
 * calls now, what it should call and the ops that want it.  ftrace_bug()
 * (ftrace_sites.c) prints it after the record's flags; the update
 * registers it before it makes the first state.
 */
void ftrace_sites_bug_state(struct dyn_ftrace *rec)
{
	struct ftrace_site_state *st;
	struct ftrace_site_set *set;
	unsigned int k;

	st = site_state_of(rec);
	if (!st)
		return;
	pr_info(" calls now %pS (%lx), wanted %pS (%lx)\n",
		(void *)st->cur_addr, st->cur_addr,
		(void *)ftrace_get_addr_new(rec), ftrace_get_addr_new(rec));
	set = st->set;
	for (k = 0; set && k < set->nr; k++)
		pr_info(" ops %u: func %pS, trampoline %pS\n", k,
			set->ops[k]->func, (void *)set->ops[k]->trampoline);
}

/* ---- ftrace_call and the code update ------------------------------------ */

/* What ftrace_call/ftrace_regs_call call now (ftrace_64.S starts on the stub). */
static ftrace_func_t site_caller_func = ftrace_stub;

static int site_caller_retarget(ftrace_func_t func)
{
	int err;

	if (func == site_caller_func)
		return 0;
	err = ftrace_update_ftrace_func(func);
	if (!err)
		site_caller_func = func;
	return err;
}

/**
 * ftrace_sites_caller_func - what the shared callers' call slots call now
 *
 * With CALL_OPS a site's ops literal decides instead, and the slots may
 * not be used at all.
 *
 * Context: ftrace_lock held (the answer holds until it is dropped).
 * Return: the function ftrace_call and ftrace_regs_call were pointed at last.
 */
ftrace_func_t ftrace_sites_caller_func(void)
{
	return site_caller_func;
}

/**
 * ftrace_sites_caller_stale - must ftrace_call be pointed elsewhere?
 *
 * Context: ftrace_lock held.
 * Return: true if ftrace_call does not call ftrace_trace_function yet.
 */
bool ftrace_sites_caller_stale(void)
{
	return ftrace_trace_function != site_caller_func;
}

static void site_caller_failed(int err)
{
	WARN(1, "ftrace: retargeting ftrace_call failed (%d)\n", err);
	ftrace_kill();
}

/**
 * ftrace_modify_all_code - carry out an update command
 * @command: FTRACE_UPDATE_CALLS or FTRACE_DISABLE_CALLS, optionally with
 *	     FTRACE_UPDATE_TRACE_FUNC and FTRACE_START/STOP_FUNC_RET
 *
 * With FTRACE_UPDATE_TRACE_FUNC, ftrace_call first calls the list
 * dispatcher (right for any site), then the sites are patched, and only then
 * ftrace_call calls ftrace_trace_function.  So a site the update turns off
 * never reaches a single ops' function directly on its way out.
 *
 * Context: from arch_ftrace_update_code(), text writable (see
 * ftrace_arch_code_modify_prepare()), ftrace_lock held by the updater.
 */
void ftrace_modify_all_code(int command)
{
	bool retarget = command & FTRACE_UPDATE_TRACE_FUNC;
	int err;

	if (retarget) {
		err = site_caller_retarget(ftrace_sites_list_func());
		if (err) {
			site_caller_failed(err);
			return;
		}
	}

	if (command & FTRACE_UPDATE_CALLS)
		ftrace_replace_code(1);
	else if (command & FTRACE_DISABLE_CALLS)
		ftrace_replace_code(0);

	/* A site could not be patched (ftrace_bug()): touch nothing more. */
	if (ftrace_core_dead())
		return;

	/*
	 * The client's pick only chooses an ops' own function once
	 * function_trace_op is that ops and every task that may still reach
	 * ftrace_call loaded it, so installing it now is safe.
	 */
	if (retarget && ftrace_trace_function != site_caller_func) {
		err = site_caller_retarget(ftrace_trace_function);
		if (err) {
			site_caller_failed(err);
			return;
		}
	}

	if (command & FTRACE_START_FUNC_RET)
		err = ftrace_enable_ftrace_graph_caller();
	else if (command & FTRACE_STOP_FUNC_RET)
		err = ftrace_disable_ftrace_graph_caller();
	else
		err = 0;
	if (WARN_ON_ONCE(err))
		ftrace_kill();
}

/**
 * ftrace_dyn_arch_init - architecture setup before the call sites are read
 *
 * Run by ftrace_init() before any record exists; an arch whose batch
 * patcher needs boot-time setup overrides it.
 *
 * Context: early boot, interrupts disabled.
 * Return: 0, or an error that leaves function tracing off for this boot.
 */
int __init __weak ftrace_dyn_arch_init(void)
{
	return 0;
}

/**
 * ftrace_arch_code_modify_prepare - make kernel text patchable
 *
 * Default: nothing to do.  Paired with ftrace_arch_code_modify_post_process().
 */
void __weak ftrace_arch_code_modify_prepare(void)
{
}

/**
 * ftrace_arch_code_modify_post_process - finish patching kernel text
 */
void __weak ftrace_arch_code_modify_post_process(void)
{
}

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
/**
 * ftrace_enable_ftrace_graph_caller - arch hook: graph users appeared
 *
 * Run by ftrace_modify_all_code() for FTRACE_START_FUNC_RET.  Arches
 * whose callers need patching for the graph path override it.
 *
 * Return: 0.
 */
int __weak ftrace_enable_ftrace_graph_caller(void)
{
	return 0;
}

/**
 * ftrace_disable_ftrace_graph_caller - arch hook: the last graph user left
 *
 * Run by ftrace_modify_all_code() for FTRACE_STOP_FUNC_RET.
 *
 * Return: 0.
 */
int __weak ftrace_disable_ftrace_graph_caller(void)
{
	return 0;
}
#endif /* CONFIG_FUNCTION_GRAPH_TRACER */

/**
 * ftrace_replace_code - patch every record the iterator yields
 * @mod_flags: bit 0 set: enable calls; clear: make every site a NOP
 *
 * Default one site at a time; architectures batch (x86 does).
 */
void __weak ftrace_replace_code(int mod_flags)
{
	bool enable = mod_flags & 1;
	struct ftrace_rec_iter *iter;
	struct dyn_ftrace *rec;
	unsigned long old, new;
	int err;

	for_ftrace_rec_iter(iter) {
		rec = ftrace_rec_iter_record(iter);
		old = ftrace_get_addr_curr(rec);
		new = ftrace_get_addr_new(rec);

		switch (ftrace_update_record(rec, enable)) {
		case FTRACE_UPDATE_MAKE_CALL:
			err = ftrace_make_call(rec, new);
			break;
		case FTRACE_UPDATE_MAKE_NOP:
			err = ftrace_make_nop(NULL, rec, old);
			break;
		case FTRACE_UPDATE_MODIFY_CALL:
			err = ftrace_modify_call(rec, old, new);
			break;
		default:
			continue;
		}
		if (err) {
			ftrace_bug(err, rec);
			return;
		}
	}
}

static int site_stop_machine_fn(void *data)
{
	ftrace_modify_all_code(*(int *)data);
	return 0;
}

/**
 * ftrace_run_stop_machine - carry out an update with every CPU stopped
 * @command: the update command
 */
void ftrace_run_stop_machine(int command)
{
	stop_machine(site_stop_machine_fn, &command, NULL);
}

/**
 * arch_ftrace_update_code - carry out an update command
 * @command: the update command
 *
 * Default: stop every CPU.  Architectures that patch live override it.
 */
void __weak arch_ftrace_update_code(int command)
{
	ftrace_run_stop_machine(command);
}

/**
 * ftrace_run_update_code - carry out an update command around the arch hooks
 * @command: the update command
 *
 * Context: ftrace_lock held.
 */
void ftrace_run_update_code(int command)
{
	ftrace_arch_code_modify_prepare();
	arch_ftrace_update_code(command);
	ftrace_arch_code_modify_post_process();
}

/**
 * ftrace_sites_patch - patch the records an update listed
 * @list: the update's scratch, now the records whose code must change
 * @nr: how many there are
 * @command: the update command for ftrace_modify_all_code()
 *
 * While this runs, the record iterator walks only @list (every other
 * record would be FTRACE_UPDATE_IGNORE) and the arch patcher's questions
 * about a record are answered from it.
 *
 * Context: ftrace_lock held; sleeps.
 */
void ftrace_sites_patch(union site_scratch *list, unsigned int nr, int command)
{
	site_patch_list = list;
	site_patch_nr = nr;
	site_patch_pos = 0;
	ftrace_run_update_code(command);
	site_patch_list = NULL;
	site_patch_nr = 0;
}
