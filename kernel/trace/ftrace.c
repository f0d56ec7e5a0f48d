// SPDX-License-Identifier: GPL-2.0
/*
 * Function-hook core: registering ftrace_ops, and what the shared callers
 * (ftrace_caller / ftrace_regs_caller) call.
 *
 * This file holds
 *  - the rules for adding to and removing from ftrace_ops_list (the list
 *    itself is in ftrace_base.c), for ops, managers and subops;
 *  - the choice of the function the shared callers call, and with which op
 *    (the slots themselves are in ftrace_base.c);
 *  - the sysctl kernel.ftrace_enabled (ftrace_enabled_set()).
 * What a shared call site runs, the dispatcher and the assist wrapper, is
 * in ftrace_dispatch.c; the bookkeeping of the trampolines the arch
 * allocates for an ops is in ftrace_tramp.c.
 *
 * Locking and lifetime:
 *  - ftrace_lock serialises every change made here.  A change reaches the
 *    call sites through one ftrace_sites_update() (ftrace_patch.c), which
 *    either applies it completely or, on error, changes nothing.
 *  - ftrace_ops_list is written under ftrace_lock and published with RCU.
 *    An unlinked ops keeps its next pointer, so a lockless walker standing
 *    on it still reaches ftrace_list_end.
 *  - A top-level ops is on ftrace_ops_list exactly while it has
 *    FTRACE_OPS_FL_ENABLED and not FTRACE_OPS_FL_SUBOP.  A subop has both
 *    flags, is linked on its manager's subop_list through ops->list, and
 *    the manager is registered exactly while that list is not empty.
 *  - When unregistering returns, no CPU and no task can still be running
 *    the ops' callback or trampoline, whether the ops is static or not.
 */
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/ftrace_quiet.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/sysctl.h>

#include <asm/sections.h>

#include "ftrace_ops.h"
#include "trace.h"

/* How often an update that only removes callbacks is retried on -ENOMEM. */
#define FTRACE_REMOVAL_TRIES	50

/* The top-level trace array's ops (tr->ops of the global trace array). */
struct ftrace_ops global_ops = {
	.flags		= FTRACE_OPS_FL_INITIALIZED | FTRACE_OPS_FL_PID,
	.func		= ftrace_stub,
#ifdef CONFIG_DYNAMIC_FTRACE
	.subop_list	= LIST_HEAD_INIT(global_ops.subop_list),
	.func_hash	= &global_ops.local_hash,
	.local_hash	= {
		.filter_hash	= (struct ftrace_hash __rcu *)FTRACE_EMPTY_HASH,
		.notrace_hash	= (struct ftrace_hash __rcu *)FTRACE_EMPTY_HASH,
		.regex_lock	= __MUTEX_INITIALIZER(global_ops.local_hash.regex_lock),
	},
#endif
};

/*
 * The shared callers' slots, ftrace_trace_function and function_trace_op
 * (ftrace_base.c).  ftrace_trace_function is the target chosen by the last
 * ftrace_pick_trace_func(), which the same update installs.  An update that
 * fails changes nothing, so the choice is put back (ftrace_update_sites()).
 *
 * Protocol, so that no task ever calls an ops' function with another op:
 *  - function_trace_op changes only while the installed target ignores it;
 *  - the function of ops X is installed only when function_trace_op and
 *    callers_settled_op are X: every task that may still reach ftrace_call
 *    loaded X.  That holds after a full wait (rude + tasks RCU) since X was
 *    stored, or at once when callers_idle: no site called the shared
 *    callers since such a wait.  Should the patcher store the op itself,
 *    the two differ and the switch waits, which stays safe.
 *  - Otherwise the dispatcher is installed meanwhile; ftrace_shutdown(),
 *    which waits anyway, finishes the switch after its wait.
 * All of it under ftrace_lock.
 */
static struct ftrace_ops *callers_settled_op = &ftrace_list_end;
static bool callers_idle = true;
/* Writes of function_trace_op, for waits made without ftrace_lock. */
static unsigned long callers_op_changes;

/* ---- ops initialisation ---------------------------------------------- */

#ifdef CONFIG_DYNAMIC_FTRACE

/* Serialises first-time initialisation of any ops. */
static DEFINE_MUTEX(ftrace_ops_init_lock);

/* Returns false if @ops was initialised already (then @share is ignored). */
static bool ftrace_ops_init_hash(struct ftrace_ops *ops,
				 struct ftrace_ops_hash *share)
{
	/* The acquire pairs with the release below: the fields are ready. */
	if (smp_load_acquire(&ops->flags) & FTRACE_OPS_FL_INITIALIZED)
		return false;

	guard(mutex)(&ftrace_ops_init_lock);
	if (ops->flags & FTRACE_OPS_FL_INITIALIZED)
		return false;

	mutex_init(&ops->local_hash.regex_lock);
	INIT_LIST_HEAD(&ops->subop_list);
	if (!rcu_access_pointer(ops->local_hash.filter_hash))
		RCU_INIT_POINTER(ops->local_hash.filter_hash, FTRACE_EMPTY_HASH);
	if (!rcu_access_pointer(ops->local_hash.notrace_hash))
		RCU_INIT_POINTER(ops->local_hash.notrace_hash, FTRACE_EMPTY_HASH);
	ops->func_hash = share ?: &ops->local_hash;
	/* Publishes the fields above to the lockless test at the top. */
	smp_store_release(&ops->flags, ops->flags | FTRACE_OPS_FL_INITIALIZED);
	return true;
}

/**
 * ftrace_ops_init - prepare an ops' hashes on first use
 * @ops: the ops
 *
 * Sets func_hash to the ops' own hashes (empty ones where none are set)
 * and initialises their lock and the subop list, once.  Every entry point
 * that touches an ops' hashes or registers it calls this first.
 *
 * Context: process context; may sleep.
 */
void ftrace_ops_init(struct ftrace_ops *ops)
{
	ftrace_ops_init_hash(ops, NULL);
}

/**
 * ftrace_ops_set_global_filter - make an ops follow the global filters
 * @ops: an ops not used yet
 *
 * After this, @ops traces what the top-level function tracer's filter and
 * notrace hashes (set_ftrace_filter, set_ftrace_notrace) select.  Does
 * nothing if @ops was already initialised.
 *
 * Context: process context; may sleep.
 */
void ftrace_ops_set_global_filter(struct ftrace_ops *ops)
{
	ftrace_ops_init_hash(ops, &global_ops.local_hash);
}
EXPORT_SYMBOL_GPL(ftrace_ops_set_global_filter);

#else /* !CONFIG_DYNAMIC_FTRACE */

/* Without records an ops has no hashes: nothing to set up. */
void ftrace_ops_init(struct ftrace_ops *ops)
{
	ops->flags |= FTRACE_OPS_FL_INITIALIZED;
}

#endif /* CONFIG_DYNAMIC_FTRACE */

/* ---- the registered ops list ----------------------------------------- */

static struct ftrace_ops *ftrace_ops_deref(struct ftrace_ops __rcu **slot)
{
	return rcu_dereference_protected(*slot, lockdep_is_held(&ftrace_lock));
}

/* Append, so that callbacks of one site run in registration order. */
static void ftrace_ops_list_append(struct ftrace_ops *ops)
{
	struct ftrace_ops __rcu **slot = &ftrace_ops_list;

	while (ftrace_ops_deref(slot) != &ftrace_list_end)
		slot = &ftrace_ops_deref(slot)->next;

	/* @ops must lead to the end before a walker can reach it. */
	RCU_INIT_POINTER(ops->next, &ftrace_list_end);
	rcu_assign_pointer(*slot, ops);
}

static bool ftrace_ops_list_remove(struct ftrace_ops *ops)
{
	struct ftrace_ops __rcu **slot = &ftrace_ops_list;
	struct ftrace_ops *cur;

	for (cur = ftrace_ops_deref(slot); cur != ops; cur = ftrace_ops_deref(slot)) {
		if (cur == &ftrace_list_end)
			return false;
		slot = &cur->next;
	}
	rcu_assign_pointer(*slot, ftrace_ops_deref(&ops->next));
	return true;
}

static bool ftrace_ops_list_empty(void)
{
	return ftrace_ops_deref(&ftrace_ops_list) == &ftrace_list_end;
}

/* The only registered ops, or NULL if there are none or several. */
static struct ftrace_ops *ftrace_only_ops(void)
{
	struct ftrace_ops *first = ftrace_ops_deref(&ftrace_ops_list);

	if (first == &ftrace_list_end ||
	    ftrace_ops_deref(&first->next) != &ftrace_list_end)
		return NULL;
	return first;
}

/* ---- the shared callers' target ------------------------------------- */

static bool ftrace_func_ignores_op(ftrace_func_t func)
{
	return func == ftrace_stub || func == arch_ftrace_ops_list_func;
}

/* May ftrace_call call @ops' function now?  Moves function_trace_op along. */
static bool ftrace_callers_ready_for(struct ftrace_ops *ops)
{
	if (function_trace_op != ops) {
		if (!ftrace_func_ignores_op(ftrace_trace_function))
			return false;
		WRITE_ONCE(function_trace_op, ops);
		callers_op_changes++;
		/* Installing the new target (text_poke_bp() IPIs) orders it. */
		smp_wmb();
		callers_settled_op = callers_idle ? ops : NULL;
	}
	return callers_settled_op == ops;
}

/**
 * ftrace_pick_trace_func - choose what ftrace_call / ftrace_regs_call call
 *
 * Sets ftrace_trace_function, and function_trace_op when that is safe, for
 * the registered ops: ftrace_stub when none is registered or ftrace is
 * disabled, ftrace_ops_get_func() of the only ops, else the dispatcher.
 * The dispatcher also stands in while switching to one ops' function is
 * not safe yet (see the protocol above ftrace_trace_function).
 *
 * Called by ftrace_sites_update() (as the pick of the sites client
 * registered below), once per update, before it patches anything.  By
 * the end of a successful update the shared callers must call
 * ftrace_trace_function (also when it is ftrace_stub); meanwhile they may
 * call the old target or the dispatcher.  A failed update leaves them alone.
 *
 * Context: ftrace_lock held.
 */
void ftrace_pick_trace_func(void)
{
	struct ftrace_ops *only;
	ftrace_func_t target;

	lockdep_assert_held(&ftrace_lock);

	only = ftrace_only_ops();
	if (ftrace_core_dead() || !ftrace_enabled || ftrace_ops_list_empty())
		target = ftrace_stub;
	else if (only && ftrace_callers_ready_for(only))
		target = ftrace_ops_get_func(only);
	else
		target = arch_ftrace_ops_list_func;

	if (target != ftrace_stub)
		callers_idle = false;
	WRITE_ONCE(ftrace_trace_function, target);
}

#ifdef CONFIG_DYNAMIC_FTRACE
/* What the patcher calls and installs for the ops layer. */
static const struct ftrace_sites_client ftrace_ops_client = {
	.pick		= ftrace_pick_trace_func,
	.list_func	= arch_ftrace_ops_list_func,
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
	.list_ops	= &ftrace_list_ops,
#endif
};

/**
 * ftrace_ops_sites_init - register the ops layer with the patcher
 *
 * From now on every site update asks ftrace_pick_trace_func() what the
 * shared callers should call, and points them and the sites' ops literals
 * at the dispatcher where a set needs it.
 *
 * Context: once, from ftrace_init(), before the first site update.
 */
void __init ftrace_ops_sites_init(void)
{
	ftrace_sites_set_client(&ftrace_ops_client);
}
#endif /* CONFIG_DYNAMIC_FTRACE */

/* @ops leaves for good: do not keep it as the op (the target ignores it). */
static void ftrace_callers_forget(struct ftrace_ops *ops)
{
	if (function_trace_op != ops)
		return;
	WRITE_ONCE(function_trace_op, &ftrace_list_end);
	callers_op_changes++;
	callers_settled_op = callers_idle ? &ftrace_list_end : NULL;
}

/*
 * Removal.  unregister_ftrace_function() promises that once it returns no
 * callback of the ops runs, none is still running and none will start,
 * while other CPUs keep calling the traced functions.  After the update
 * that drops the ops (no published set holds it, no site calls its
 * trampoline, ftrace_call no longer calls its function), what can still
 * lead into its callback, and what ends it:
 *
 *  (a) the dispatcher: it looks the set up and calls the members with
 *      preemption off, in every context (also where RCU does not watch);
 *  (b) the shared callers ftrace_caller/ftrace_regs_caller (x86_64): they
 *      turn preemption off before they load function_trace_op and fetch
 *      the ftrace_call slot, and back on once the callback returned;
 *  (c) the ops' own trampoline (x86_64, a copy of (b)): the same span; a
 *      task preempted in it outside the span calls whatever the slot holds
 *      when it gets there, so on removal the slot is aimed at ftrace_stub
 *      first (ftrace_ops_tramp_target() of a REMOVING ops), and the
 *      text is freed by the arch only after an RCU-tasks grace period;
 *  (d) a direct trampoline or one the ops' owner supplied: it is entered
 *      from the site and runs preemptibly, out of our sight;
 *  (e) arm64's ftrace_caller, which loads the site's ops literal and calls
 *      its function preemptibly (a span there would cost about ten
 *      instructions per hit, against a hit budget met by six), and the
 *      static __fentry__ without call-site records.
 *
 * A CPU inside a region with preemption off is waited for by one rude
 * wait, a work item run on every online CPU (site_wait_readers(), the
 * same guarantee as synchronize_rcu_tasks_rude() without its kthread's
 * pacing): a CPU cannot run that work before it left the region, RCU
 * watching or not.  So where every
 * path is (a)-(c) one rude wait is enough, and it also frees the
 * replaced generations and covers the trampoline-list lookups.
 * unregister_ftrace_function() makes that wait without ftrace_lock, so
 * one grace period serves every removal published before it began
 * (ftrace_removal_wait()).  (d) also needs synchronize_rcu_tasks(), and
 * so does (e) unless the arch can show that every task has been outside
 * its callers since the update (ftrace_arch_callers_quiet(): arm64 looks
 * for the callers' addresses on each task's stack).  An ops
 * that no published set ever held (FTRACE_OPS_FL_SITE_LIVE clear) was
 * never reachable: no wait at all (only the trampoline list, if it is on
 * it, still costs one RCU grace period for its lookups).
 *
 * fgraph and fprobe users are subops or callers of such ops: their entry
 * callbacks run inside (a)-(c); their return paths wait themselves (one
 * rude wait in fgraph).  The same argument lets function_trace_op settle
 * after a rude wait (every span loads the op and fetches the slot with
 * preemption off), but "callers idle" still needs a full wait: a task may
 * sit preempted at the top of ftrace_caller, outside any span.
 */
#if defined(CONFIG_DYNAMIC_FTRACE) && defined(CONFIG_HAVE_FTRACE_NO_PREEMPT_CALLERS)
#define FTRACE_CALLERS_UNPREEMPTIBLE	true
#else
#define FTRACE_CALLERS_UNPREEMPTIBLE	false
#endif

/*
 * Called after a wait: @full for rude + tasks RCU, else rude only.  After
 * it nobody holds an op loaded before it began.
 */
static void ftrace_callers_waited(bool full)
{
	if (!full && !FTRACE_CALLERS_UNPREEMPTIBLE)
		return;
	callers_settled_op = function_trace_op;
	/* ftrace_stub was installed before that wait and every site is a NOP. */
	if (full && ftrace_trace_function == ftrace_stub)
		callers_idle = true;
}

/*
 * Run one update of the call sites.  On error the patcher changed nothing,
 * so the shared callers still call what they called before.
 */
static int ftrace_update_sites(int command)
{
	ftrace_func_t before = ftrace_trace_function;
	int ret;

	ret = ftrace_sites_update(command);
	if (ret)
		WRITE_ONCE(ftrace_trace_function, before);
	return ret;
}

/*
 * An update that only removes callbacks must not fail: callers free their
 * ops once we return.  Only memory can run short; try for a while.
 */
static int ftrace_update_sites_removing(int command)
{
	int tries, ret;

	for (tries = 1; ; tries++) {
		ret = ftrace_update_sites(command);
		if (ret != -ENOMEM || tries == FTRACE_REMOVAL_TRIES)
			break;
		msleep(20);
	}
	WARN_ON_ONCE(ret && !ftrace_core_dead());
	return ret;
}

/* What a removal of an ops waits for after the rude wait. */
enum ftrace_removal_kind {
	FTRACE_REMOVAL_RUDE,	/* nothing more: (a)-(c) */
	FTRACE_REMOVAL_CALLERS,	/* tasks in the arch's callers: (e) */
	FTRACE_REMOVAL_TASKS,	/* an RCU-tasks grace period: (d) */
};

/* Where a removed @ops' callback may still run with preemption on. */
static enum ftrace_removal_kind ftrace_removal_needs(struct ftrace_ops *ops)
{
	if (ops->flags & FTRACE_OPS_FL_DIRECT)
		return FTRACE_REMOVAL_TASKS;		/* (d) */
#ifdef CONFIG_DYNAMIC_FTRACE
	if (ops->trampoline && !(ops->flags & FTRACE_OPS_FL_ALLOC_TRAMP))
		return FTRACE_REMOVAL_TASKS;		/* (d) */
	if (!FTRACE_CALLERS_UNPREEMPTIBLE)
		return FTRACE_REMOVAL_CALLERS;		/* (e), the callers */
	return FTRACE_REMOVAL_RUDE;
#else
	return FTRACE_REMOVAL_TASKS;			/* (e), static calls */
#endif
}

/**
 * ftrace_arch_callers_quiet - has every task left the arch's shared callers
 *
 * The default for an arch that has not shown it: no.  arm64's is in
 * arch/arm64/kernel/ftrace_callers_quiet.c.
 *
 * Return: false, so that the caller waits for RCU-tasks.
 */
bool __weak ftrace_arch_callers_quiet(void)
{
	return false;
}

/*
 * Removals that need only the rude wait share it.  Such a removal takes a
 * ticket under ftrace_lock once its update is published, then waits with
 * ftrace_lock dropped: the first to get ftrace_removal_mutex waits for all
 * removals published so far, and those queued behind it find their ticket
 * covered and return without a grace period of their own.
 */
static unsigned long ftrace_removal_ticket;	/* last one handed out; ftrace_lock */
#ifdef CONFIG_DYNAMIC_FTRACE
/* Without call-site records every removal waits itself: no tickets. */
static DEFINE_MUTEX(ftrace_removal_mutex);
static unsigned long ftrace_removal_covered;	/* ftrace_removal_mutex */
#endif

static void ftrace_removal_wait(unsigned long ticket)
{
#ifdef CONFIG_DYNAMIC_FTRACE
	struct ftrace_site_gen *retired;
	unsigned long last, changes;

	guard(mutex)(&ftrace_removal_mutex);
	if (ftrace_removal_covered >= ticket)
		return;
	scoped_guard(mutex, &ftrace_lock) {
		last = ftrace_removal_ticket;
		changes = callers_op_changes;
		retired = ftrace_sites_retired_take();
	}
	ftrace_sites_wait_free(retired);
	ftrace_removal_covered = last;
	/* function_trace_op as it was before the wait settled, if unchanged. */
	scoped_guard(mutex, &ftrace_lock) {
		if (changes == callers_op_changes)
			ftrace_callers_waited(false);
	}
#endif
}

/*
 * Wait until nothing reached through the previous update still runs: code
 * with preemption off (also where RCU does not watch) for the rude flavour;
 * for @kind CALLERS also tasks preempted inside the arch's callers or a
 * callback they called (the arch looks, else RCU-tasks), for TASKS also
 * tasks preempted inside any trampoline.
 */
static void ftrace_wait_for_callbacks(enum ftrace_removal_kind kind)
{
#ifdef CONFIG_DYNAMIC_FTRACE
	ftrace_sites_wait_readers();
#else
	synchronize_rcu_tasks_rude();
#endif
	if (kind == FTRACE_REMOVAL_CALLERS && !ftrace_arch_callers_quiet())
		kind = FTRACE_REMOVAL_TASKS;
	if (kind == FTRACE_REMOVAL_TASKS)
		synchronize_rcu_tasks();
	/* Every task was seen outside the callers, or RCU-tasks passed. */
	ftrace_callers_waited(kind != FTRACE_REMOVAL_RUDE);
}

/* ---- pid filtering ---------------------------------------------------- */

/*
 * The function a pid-filtered ops calls instead of its own (ftrace_pid.c's
 * check of the running task), registered before any pid list can be set.
 * Read under ftrace_lock; NULL until registered, and then no ops is pid
 * filtered.
 */
static ftrace_func_t ftrace_ops_pid_func;

/**
 * ftrace_ops_set_pid_func - register the pid check of pid-filtered ops
 * @func: called instead of op->func (which it calls, as op->saved_func,
 *	  for the tasks to trace) by every ops that ftrace_ops_pid_filtered()
 *	  says is filtered
 *
 * Must happen before the first pid list of a trace array is set; setting
 * the same function again changes nothing.
 *
 * Context: process context.
 */
void ftrace_ops_set_pid_func(ftrace_func_t func)
{
	WRITE_ONCE(ftrace_ops_pid_func, func);
}

/**
 * ftrace_ops_pid_filtered - is pid filtering in force for an ops?
 * @ops: an ops, possibly a subops of the function graph manager
 *
 * Return: true if @ops asked for pid filtering (FTRACE_OPS_FL_PID) and the
 * trace array it belongs to (ops->private) has a pid or notrace-pid list.
 */
bool ftrace_ops_pid_filtered(struct ftrace_ops *ops)
{
	struct trace_array *tr = ops->private;

	if (!(ops->flags & FTRACE_OPS_FL_PID) || !tr)
		return false;
	return rcu_access_pointer(tr->function_pids) ||
	       rcu_access_pointer(tr->function_no_pids);
}

/**
 * ftrace_pids_enabled - linux/ftrace.h's name of ftrace_ops_pid_filtered()
 * @ops: an ops
 *
 * For the function tracer (trace_functions.c), which skips one more stack
 * frame when the pid check is in between.
 *
 * Return: ftrace_ops_pid_filtered(@ops).
 */
bool ftrace_pids_enabled(struct ftrace_ops *ops)
{
	return ftrace_ops_pid_filtered(ops);
}

/* ---- registration ----------------------------------------------------- */

/* Checks that change nothing; every rejection of a registration is here. */
static int ftrace_ops_check(struct ftrace_ops *ops)
{
	unsigned long flags = ops->flags;

	if (!ops->func || (flags & FTRACE_OPS_FL_DELETED))
		return -EINVAL;
	if (flags & FTRACE_OPS_FL_ENABLED)
		return -EBUSY;

	/*
	 * Only a patched call site can build a complete pt_regs; an ops that
	 * takes regs only if supported runs without them.
	 */
	if ((flags & FTRACE_OPS_FL_SAVE_REGS) &&
	    !(flags & FTRACE_OPS_FL_SAVE_REGS_IF_SUPPORTED) &&
	    !IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_REGS))
		return -EINVAL;

	if (flags & FTRACE_OPS_FL_IPMODIFY) {
#ifdef CONFIG_DYNAMIC_FTRACE
		struct ftrace_hash *filter;

		/*
		 * It moves the call through regs->ip: where ftrace_regs has
		 * no settable ip, only a pt_regs frame can do that.
		 */
		if (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_ARGS) &&
		    !(flags & (FTRACE_OPS_FL_SAVE_REGS |
			       FTRACE_OPS_FL_SAVE_REGS_IF_SUPPORTED)))
			return -EINVAL;
		/* It redirects functions: it has to say which ones. */
		filter = rcu_dereference_protected(ops->func_hash->filter_hash,
						   lockdep_is_held(&ftrace_lock));
		if (ftrace_hash_empty(filter))
			return -EINVAL;
#else
		/* It must name its functions, and without records it cannot. */
		return -EINVAL;
#endif
	}

	if ((flags & FTRACE_OPS_FL_PERMANENT) && !ftrace_enabled)
		return -EBUSY;
	return 0;
}

/**
 * __register_ftrace_function - link an ops into ftrace_ops_list
 * @ops: the ops
 *
 * Validates @ops, completes its flags (SAVE_REGS_IF_SUPPORTED sets
 * SAVE_REGS where call sites can save pt_regs and clears it elsewhere;
 * DYNAMIC unless it lives in core kernel data), sets saved_func and the
 * pid-filtering func, gets it a trampoline and appends it to
 * ftrace_ops_list with FTRACE_OPS_FL_ENABLED.  Patches nothing.
 *
 * Context: ftrace_lock held; may sleep.
 * Return: 0; -EINVAL for an ops without func, a deleted ops, SAVE_REGS
 * alone where no pt_regs can be saved (!DYNAMIC_FTRACE_WITH_REGS), or an
 * IPMODIFY ops without filter (or, where ftrace_regs cannot move the
 * call, without SAVE_REGS; or without call-site records at all); -EBUSY
 * if it is enabled
 * already, or PERMANENT while ftrace_enabled is 0.  On error @ops is
 * unchanged.
 */
int __register_ftrace_function(struct ftrace_ops *ops)
{
	ftrace_func_t pid_func;
	int ret;

	lockdep_assert_held(&ftrace_lock);

	ftrace_ops_init(ops);
	ret = ftrace_ops_check(ops);
	if (ret)
		return ret;

	if (ops->flags & FTRACE_OPS_FL_SAVE_REGS_IF_SUPPORTED) {
		if (IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_REGS))
			ops->flags |= FTRACE_OPS_FL_SAVE_REGS;
		else
			ops->flags &= ~FTRACE_OPS_FL_SAVE_REGS;
	}
	if (!is_kernel_core_data((unsigned long)ops))
		ops->flags |= FTRACE_OPS_FL_DYNAMIC;

	ops->saved_func = ops->func;
	pid_func = READ_ONCE(ftrace_ops_pid_func);
	if (pid_func && ftrace_ops_pid_filtered(ops))
		ops->func = pid_func;
	ops->flags &= ~FTRACE_OPS_FL_SITE_LIVE;

	/* The trampoline calls ftrace_ops_get_func(ops): func is final now. */
	ftrace_ops_refresh_trampoline(ops);

	ops->flags |= FTRACE_OPS_FL_ENABLED;
	ftrace_ops_list_append(ops);
	return 0;
}

/**
 * __unregister_ftrace_function - unlink an ops from ftrace_ops_list
 * @ops: a registered top-level ops
 *
 * Clears FTRACE_OPS_FL_ENABLED and unlinks @ops.  Patches nothing; its
 * func and trampoline are left for ftrace_shutdown() to restore and free.
 *
 * Context: ftrace_lock held.
 * Return: 0; -EBUSY if @ops is not registered; -EINVAL if it is a subop.
 */
int __unregister_ftrace_function(struct ftrace_ops *ops)
{
	lockdep_assert_held(&ftrace_lock);

	if (!(ops->flags & FTRACE_OPS_FL_ENABLED))
		return -EBUSY;
	if (WARN_ON_ONCE(ops->flags & FTRACE_OPS_FL_SUBOP))
		return -EINVAL;
	if (WARN_ON_ONCE(!ftrace_ops_list_remove(ops)))
		return -EINVAL;

	ops->flags &= ~FTRACE_OPS_FL_ENABLED;
	return 0;
}

/*
 * Undo a registration whose update failed.  That update published nothing,
 * so no site and no task ever reached @ops or its trampoline.
 */
static void ftrace_startup_undo(struct ftrace_ops *ops, unsigned long flags)
{
	ftrace_ops_list_remove(ops);
	ftrace_callers_forget(ops);
	ftrace_trampoline_free(ops);
	ops->func = ops->saved_func;
	ops->flags = flags;
}

/**
 * ftrace_startup - register an ops and patch its call sites
 * @ops: the ops
 * @command: extra FTRACE_* commands for the same update (graph caller)
 *
 * Callbacks may start before this returns.  With ftrace_enabled 0 the ops
 * is registered but no site calls it until ftrace is enabled again.
 *
 * Context: ftrace_lock held; may sleep.
 * Return: 0; -ENODEV if the core is dead; an error of
 * __register_ftrace_function(); -EBUSY if the update finds a clash (two
 * IPMODIFY or direct ops on one function); -ENOMEM.  On error @ops is
 * unchanged and nothing calls it.
 */
int ftrace_startup(struct ftrace_ops *ops, int command)
{
	unsigned long flags;
	int ret;

	lockdep_assert_held(&ftrace_lock);

	if (ftrace_core_dead())
		return -ENODEV;

	ftrace_ops_init(ops);
	flags = ops->flags;
	ret = __register_ftrace_function(ops);
	if (ret)
		return ret;

	ops->flags |= FTRACE_OPS_FL_ADDING;
	ret = ftrace_update_sites(command);
	ops->flags &= ~FTRACE_OPS_FL_ADDING;
	if (ret) {
		ftrace_startup_undo(ops, flags);
		return ret;
	}

	if (unlikely(ftrace_core_dead())) {
		/* The patching broke: keep nothing pointing at @ops. */
		__unregister_ftrace_function(ops);
		return -ENODEV;
	}
	return 0;
}

static int ftrace_shutdown_begin(struct ftrace_ops *ops, int command,
				 unsigned long *ticket);
static void ftrace_shutdown_end(struct ftrace_ops *ops);

/**
 * ftrace_shutdown - unregister an ops and unpatch its call sites
 * @ops: a registered top-level ops
 * @command: extra FTRACE_* commands for the same update (graph caller)
 *
 * When this returns 0, no site calls @ops, no CPU or task runs its
 * callback and none will, its func is back to what was registered and its
 * trampoline is retired (freed after an RCU-tasks grace period): the
 * caller may free @ops.  How long it waits: "Removal" above.
 *
 * Context: ftrace_lock held; sleeps (at most one RCU-tasks-rude and one
 * RCU-tasks grace period).
 * Return: 0; -ENODEV if the core is dead; -EBUSY if @ops is not
 * registered; -EINVAL if it is a subop; the error of an update that kept
 * failing (after a warning; @ops is then unregistered but possibly still
 * called).
 */
int ftrace_shutdown(struct ftrace_ops *ops, int command)
{
	int ret;

	ret = ftrace_shutdown_begin(ops, command, NULL);
	if (!ret)
		ftrace_shutdown_end(ops);
	return ret;
}

/*
 * Unregister @ops and patch its sites away.  Then, if it was live, either
 * wait here (@ticket NULL, or a wait that needs RCU-tasks) or hand out a
 * ticket for ftrace_removal_wait() (*@ticket non-zero); 0 when nothing
 * needs waiting for.  ftrace_shutdown_end() completes the removal.
 */
static int ftrace_shutdown_begin(struct ftrace_ops *ops, int command,
				 unsigned long *ticket)
{
	enum ftrace_removal_kind kind;
	int ret;

	lockdep_assert_held(&ftrace_lock);

	if (ticket)
		*ticket = 0;
	if (ftrace_core_dead())
		return -ENODEV;

	ret = __unregister_ftrace_function(ops);
	if (ret)
		return ret;

	ops->flags |= FTRACE_OPS_FL_REMOVING;
	ret = ftrace_update_sites_removing(command);
	if (ret) {
		ops->flags &= ~FTRACE_OPS_FL_REMOVING;
		return ret;
	}
	ftrace_callers_forget(ops);

	if (ops->flags & FTRACE_OPS_FL_SITE_LIVE) {
		ftrace_trampoline_retire(ops);
		kind = ftrace_removal_needs(ops);
		if (ticket && kind == FTRACE_REMOVAL_RUDE)
			*ticket = ++ftrace_removal_ticket;
		else
			ftrace_wait_for_callbacks(kind);
	}
	ops->flags &= ~FTRACE_OPS_FL_SITE_LIVE;
	return 0;
}

/* After the wait: give @ops back its function, free its trampoline. */
static void ftrace_shutdown_end(struct ftrace_ops *ops)
{
	lockdep_assert_held(&ftrace_lock);

	ops->func = ops->saved_func;
	ops->flags &= ~FTRACE_OPS_FL_REMOVING;
	/* Unlisted already if it was live; else one RCU period for lookups. */
	ftrace_trampoline_free(ops);

	/* One ops left: ftrace_call may now call it directly. */
	if (ftrace_only_ops() && ftrace_trace_function == arch_ftrace_ops_list_func)
		ftrace_update_sites(0);
}

#ifdef CONFIG_DYNAMIC_FTRACE
static void ftrace_subops_unlink(struct ftrace_ops *subops)
{
	list_del_init(&subops->list);
	subops->flags &= ~(FTRACE_OPS_FL_ENABLED | FTRACE_OPS_FL_SUBOP);
	subops->managed = NULL;
}

/**
 * ftrace_startup_subops - add a subop to a manager ops
 * @ops: the manager (fgraph's graph_ops)
 * @subops: the ops to add; it is never on ftrace_ops_list
 * @command: extra FTRACE_* commands for the same update
 *
 * The manager wants every function one of its subops wants; its func
 * decides which subops to run.  The first subop registers the manager.
 *
 * Context: ftrace_lock held; may sleep.
 * Return: 0; -ENODEV if the core is dead; -EBUSY if @subops is enabled
 * already; -EINVAL if @ops is itself a subop; or the error of registering
 * the manager or of the update.  On error nothing changed.
 */
int ftrace_startup_subops(struct ftrace_ops *ops, struct ftrace_ops *subops,
			  int command)
{
	int ret;

	lockdep_assert_held(&ftrace_lock);

	if (ftrace_core_dead())
		return -ENODEV;

	ftrace_ops_init(ops);
	ftrace_ops_init(subops);
	if (WARN_ON_ONCE(subops->flags & FTRACE_OPS_FL_ENABLED))
		return -EBUSY;
	if (WARN_ON_ONCE(ops->flags & FTRACE_OPS_FL_SUBOP))
		return -EINVAL;

	list_add_tail(&subops->list, &ops->subop_list);
	subops->flags |= FTRACE_OPS_FL_ENABLED | FTRACE_OPS_FL_SUBOP;
	subops->managed = ops;

	if (ops->flags & FTRACE_OPS_FL_ENABLED)
		ret = ftrace_update_sites(command);
	else
		ret = ftrace_startup(ops, command);
	if (ret)
		ftrace_subops_unlink(subops);
	return ret;
}

/**
 * ftrace_shutdown_subops - remove a subop from its manager
 * @ops: the manager
 * @subops: a subop of @ops
 * @command: extra FTRACE_* commands for the same update
 *
 * The functions only @subops wanted are unpatched; the last subop takes
 * the manager down with ftrace_shutdown(), with its guarantees.
 *
 * Context: ftrace_lock held; may sleep.
 * Return: 0; -ENODEV if the core is dead; -EINVAL if @subops is not a
 * subop of @ops; or the error of the update (then @subops stays).
 */
int ftrace_shutdown_subops(struct ftrace_ops *ops, struct ftrace_ops *subops,
			   int command)
{
	int ret;

	lockdep_assert_held(&ftrace_lock);

	if (ftrace_core_dead())
		return -ENODEV;
	if (WARN_ON_ONCE(!(subops->flags & FTRACE_OPS_FL_ENABLED) ||
			 subops->managed != ops))
		return -EINVAL;

	list_del_init(&subops->list);
	if (list_empty(&ops->subop_list))
		ret = ftrace_shutdown(ops, command);
	else
		ret = ftrace_update_sites_removing(command);
	if (ret) {
		list_add_tail(&subops->list, &ops->subop_list);
		return ret;
	}

	ftrace_subops_unlink(subops);
	return 0;
}

#endif /* CONFIG_DYNAMIC_FTRACE */

/*
 * How ip-modifiers share sites with direct calls: the hooks direct calls
 * registered, or NULL without them.  Set at boot, before any ops can be
 * registered.
 */
static const struct ftrace_ipmodify_share *ftrace_ipmodify_share __ro_after_init;

/**
 * ftrace_ops_set_ipmodify_share - register the hooks an ip-modifier needs
 * @share: the lock, prepare and cleanup steps of direct calls (see struct
 *	   ftrace_ipmodify_share); must stay valid for good
 *
 * Without them an IPMODIFY ops is registered like any other ops, which is
 * right while no direct call can exist.
 *
 * Context: once, from ftrace_init(), before any ops is registered.
 */
void __init
ftrace_ops_set_ipmodify_share(const struct ftrace_ipmodify_share *share)
{
	ftrace_ipmodify_share = share;
}

/*
 * An ip-modifier: the direct calls on its functions are asked to share
 * them first, under the share lock (direct_mutex, outside ftrace_lock) so
 * that none comes or goes meanwhile.
 */
static int ftrace_startup_ipmodify(struct ftrace_ops *ops)
{
	const struct ftrace_ipmodify_share *share = ftrace_ipmodify_share;
	int ret;

	if (!share) {
		guard(mutex)(&ftrace_lock);
		return ftrace_startup(ops, 0);
	}

	share->lock();
	ret = share->prepare(ops);
	if (!ret) {
		scoped_guard(mutex, &ftrace_lock)
			ret = ftrace_startup(ops, 0);
		if (ret)
			share->cleanup();
	}
	share->unlock();
	return ret;
}

static int ftrace_shutdown_ipmodify(struct ftrace_ops *ops)
{
	const struct ftrace_ipmodify_share *share = ftrace_ipmodify_share;
	int ret;

	if (!share) {
		guard(mutex)(&ftrace_lock);
		return ftrace_shutdown(ops, 0);
	}

	share->lock();
	scoped_guard(mutex, &ftrace_lock)
		ret = ftrace_shutdown(ops, 0);
	if (!ret)
		share->cleanup();
	share->unlock();
	return ret;
}

/**
 * register_ftrace_function - start calling an ops' function
 * @ops: the ops; only ->func is required
 *
 * From now on (callbacks may begin before this returns), every function
 * selected by @ops' filter and notrace hashes (all functions if the
 * filter is empty) calls @ops->func(ip, parent_ip, op, fregs) on entry.
 * The callback and everything it calls must be notrace.  Callbacks of
 * several ops on one function run in registration order.
 *
 * An IPMODIFY ops may share a function with a direct call (a BPF
 * trampoline) if the direct ops' ops_func agrees
 * (FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_PEER), never with another
 * IPMODIFY ops.
 *
 * Context: process context; takes direct_mutex (IPMODIFY ops) and
 * ftrace_lock; may sleep.
 * Return: 0; -EINVAL for an ops without func, or an IPMODIFY ops without
 * a filter (or without FTRACE_OPS_FL_SAVE_REGS where ftrace_regs cannot
 * move the call: !DYNAMIC_FTRACE_WITH_ARGS); -EBUSY if @ops is
 * registered already, if it is PERMANENT while ftrace_enabled is 0, or if
 * it would share a function with another IPMODIFY ops or with a direct
 * ops that has no ops_func; the error of a direct ops' ops_func; -ENOMEM;
 * -ENODEV if ftrace is dead.  On error nothing changed.
 */
int register_ftrace_function(struct ftrace_ops *ops)
{
	ftrace_ops_init(ops);

	if (ops->flags & FTRACE_OPS_FL_IPMODIFY)
		return ftrace_startup_ipmodify(ops);

	guard(mutex)(&ftrace_lock);
	return ftrace_startup(ops, 0);
}
EXPORT_SYMBOL_GPL(register_ftrace_function);

/**
 * unregister_ftrace_function - stop calling an ops' function
 * @ops: an ops registered with register_ftrace_function()
 *
 * When this returns 0, no function calls @ops any more and no CPU or task
 * is still running its callback, so @ops may be freed or reused.
 *
 * The owners of direct calls that shared a function with an IPMODIFY
 * @ops are told FTRACE_OPS_CMD_DISABLE_SHARE_IPMODIFY_PEER afterwards.
 *
 * Context: process context; takes direct_mutex (IPMODIFY ops) and
 * ftrace_lock; sleeps.
 * Return: 0; -EBUSY if @ops is not registered; -ENODEV if ftrace is dead.
 */
int unregister_ftrace_function(struct ftrace_ops *ops)
{
	unsigned long ticket;
	int ret;

	if (ops->flags & FTRACE_OPS_FL_IPMODIFY)
		return ftrace_shutdown_ipmodify(ops);

	scoped_guard(mutex, &ftrace_lock) {
		ret = ftrace_shutdown_begin(ops, 0, &ticket);
		if (ret)
			return ret;
		if (!ticket) {
			ftrace_shutdown_end(ops);
			return 0;
		}
	}
	/* Without ftrace_lock: removals racing with this one share the wait. */
	ftrace_removal_wait(ticket);
	guard(mutex)(&ftrace_lock);
	ftrace_shutdown_end(ops);
	return 0;
}
EXPORT_SYMBOL_GPL(unregister_ftrace_function);

/* ---- changes of registered ops -------------------------------------- */

#ifdef CONFIG_DYNAMIC_FTRACE

/* Does a registered ops or subop use @ops' hashes? */
static bool ftrace_ops_hash_live(struct ftrace_ops *ops)
{
	struct ftrace_ops_hash *hash = ops->func_hash;
	struct ftrace_ops *op, *sub;

	if (ops->flags & FTRACE_OPS_FL_ENABLED)
		return true;
	if (!hash)
		return false;

	for_each_registered_ops(op) {
		if (op->func_hash == hash)
			return true;
		list_for_each_entry(sub, &op->subop_list, list)
			if (sub->func_hash == hash)
				return true;
	}
	return false;
}

/**
 * ftrace_ops_hash_changed - apply a new filter or notrace hash of an ops
 * @ops: the owner of the hashes that changed
 *
 * Runs one update if @ops, a subop, or another registered ops or subop
 * sharing @ops' hashes (func_hash) is registered; else there is nothing
 * to patch.
 *
 * Context: ftrace_lock held; may sleep.
 * Return: 0; -ENODEV if the core is dead; or the error of the update
 * (-EBUSY for an IPMODIFY clash, -ENOMEM), which changed nothing.
 */
int ftrace_ops_hash_changed(struct ftrace_ops *ops)
{
	lockdep_assert_held(&ftrace_lock);

	if (ftrace_core_dead())
		return -ENODEV;
	if (!ftrace_ops_hash_live(ops))
		return 0;
	return ftrace_update_sites(0);
}
#endif /* CONFIG_DYNAMIC_FTRACE */

/**
 * ftrace_update_pid_func - follow a change of the pid filters
 *
 * Points every registered FTRACE_OPS_FL_PID ops at the pid check that
 * ftrace_ops_set_pid_func() registered, or back at its own function,
 * retargets its trampoline, and updates the shared callers if a function
 * changed.  fgraph's users are the caller's to tell.
 *
 * Context: ftrace_lock held; may sleep.
 */
void ftrace_update_pid_func(void)
{
	ftrace_func_t pid_func = READ_ONCE(ftrace_ops_pid_func);
	bool changed = false;
	struct ftrace_ops *op;
	ftrace_func_t func;

	lockdep_assert_held(&ftrace_lock);

	if (ftrace_core_dead())
		return;

	for_each_registered_ops(op) {
		if (!(op->flags & FTRACE_OPS_FL_PID))
			continue;
		func = pid_func && ftrace_ops_pid_filtered(op) ?
		       pid_func : op->saved_func;
		if (op->func == func)
			continue;
		WRITE_ONCE(op->func, func);
		ftrace_ops_refresh_trampoline(op);
		changed = true;
	}

	/* The dispatcher reads op->func each time; ftrace_call may not. */
	if (changed)
		ftrace_update_sites(0);
}

/* ---- ftrace_enabled ---------------------------------------------------- */

static bool ftrace_permanent_ops_registered(void)
{
	struct ftrace_ops *op;

	for_each_registered_ops(op)
		if (op->flags & FTRACE_OPS_FL_PERMANENT)
			return true;
	return false;
}

/**
 * ftrace_enabled_set - turn call-site patching on or off
 * @on: the new state
 *
 * Off makes every call site a NOP and ftrace_call call ftrace_stub;
 * registered ops stay registered.  On patches them back.  The patcher
 * stops and restarts a wanted graph caller along with the sites.  What
 * writing sysctl kernel.ftrace_enabled does.
 *
 * Context: process context; takes ftrace_lock; may sleep.
 * Return: 0; -EBUSY when turning off while a FTRACE_OPS_FL_PERMANENT ops
 * is registered; -ENODEV if the core is dead; or the error of the update.
 * On error nothing changed.
 */
int ftrace_enabled_set(bool on)
{
	int before, ret;

	guard(mutex)(&ftrace_lock);

	if (ftrace_core_dead())
		return -ENODEV;

	before = ftrace_enabled;
	if (on == !!last_ftrace_enabled && on == !!before)
		return 0;
	if (!on && ftrace_permanent_ops_registered())
		return -EBUSY;

	ftrace_enabled = on;
	ret = ftrace_update_sites(0);
	if (ret) {
		ftrace_enabled = before;
		return ret;
	}
	last_ftrace_enabled = on;
	return 0;
}

#ifdef CONFIG_SYSCTL
static int ftrace_enabled_sysctl(const struct ctl_table *table, int write,
				 void *buffer, size_t *lenp, loff_t *ppos)
{
	struct ctl_table copy = *table;
	int val = READ_ONCE(ftrace_enabled);
	int ret;

	if (ftrace_core_dead())
		return -ENODEV;

	/* Parse into a copy: a refused write leaves ftrace_enabled alone. */
	copy.data = &val;
	ret = proc_dointvec(&copy, write, buffer, lenp, ppos);
	if (ret || !write)
		return ret;
	return ftrace_enabled_set(val != 0);
}

static struct ctl_table ftrace_sysctl_table[] = {
	{
		.procname	= "ftrace_enabled",
		.mode		= 0644,
		.proc_handler	= ftrace_enabled_sysctl,
		.data		= &ftrace_enabled,
		.maxlen		= sizeof(int),
	},
};

static int __init ftrace_sysctl_init(void)
{
	register_sysctl_init("kernel", ftrace_sysctl_table);
	return 0;
}
late_initcall(ftrace_sysctl_init);
#endif /* CONFIG_SYSCTL */
