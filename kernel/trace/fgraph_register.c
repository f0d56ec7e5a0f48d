// SPDX-License-Identifier: GPL-2.0
/*
 * Function graph: registration of users.  A managed user (struct
 * fgraph_ops with callbacks and filters) becomes a subop of graph_ops, the
 * one ops whose call sites lead into function_graph_enter_regs(); a direct
 * user (register_fgraph_direct(), fprobe) gets only a slot and a key and
 * pushes its frames itself.  Registration also starts and stops what the
 * users share (the tasks' stacks, the sched_switch hook, the suspend
 * notifier), and wraps the entry callbacks of pid-filtered users.
 *
 * Slots, keys and the live table the hit path walks are described at the
 * top of fgraph.c, and declared in fgraph_users.h.
 *
 * Layer: fgraph.
 *
 * Locking and lifetime: ftrace_lock serialises registration,
 * unregistration, the slots, the user tables and the pid switch.  A user
 * leaves the live table, then its slot key is cleared, then
 * synchronize_rcu_tasks_rude() waits out every callback that could still
 * see it; only then is the slot freed for reuse.
 */
#include <linux/cpuhotplug.h>
#include <linux/ftrace.h>
#include <linux/suspend.h>

#include <trace/events/sched.h>

#include "ftrace_user.h"
#include "fgraph_internal.h"
#include "trace.h"
#include "fgraph_frame.h"
#include "fgraph_users.h"

/* The generation of the last key handed out (fg_new_key()). */
static unsigned long fg_last_gen;

/* Registered users that are not direct: they share graph_ops. */
static unsigned int fg_nr_managed;

/* ---- suspend ------------------------------------------------------------ */

/* A hibernation image is taken and restored with the hooks paused. */
static int fg_pm_event(struct notifier_block *nb, unsigned long event,
		       void *unused)
{
	if (event == PM_HIBERNATION_PREPARE)
		pause_graph_tracing();
	else if (event == PM_POST_HIBERNATION)
		unpause_graph_tracing();
	return NOTIFY_DONE;
}

static struct notifier_block fg_pm_nb = {
	.notifier_call = fg_pm_event,
};

/* ---- registration -------------------------------------------------------- */

static void fg_return_stub(struct ftrace_graph_ret *trace,
			   struct fgraph_ops *gops, struct ftrace_regs *fregs)
{
}

/* What ftrace_graph_entry/_return are while a user is registered. */
static int fg_entry_active(struct ftrace_graph_ent *trace,
			   struct fgraph_ops *gops, struct ftrace_regs *fregs)
{
	return 0;
}

static void fg_return_active(struct ftrace_graph_ret *trace,
			     struct fgraph_ops *gops, struct ftrace_regs *fregs)
{
}

/* Not stubs exactly while a user is registered (some arches test that). */
trace_func_graph_ent_t ftrace_graph_entry = ftrace_graph_entry_stub;
trace_func_graph_ret_t ftrace_graph_return = fg_return_stub;

static struct ftrace_ops graph_ops = {
	.func		= ftrace_graph_func,
	.flags		= FTRACE_OPS_GRAPH_STUB,
	.trampoline	= FTRACE_GRAPH_TRAMP_ADDR,
};

/* The entry callback of a pid-filtered user (set_ftrace_pid). */
static int fg_pid_entry(struct ftrace_graph_ent *trace,
			struct fgraph_ops *gops, struct ftrace_regs *fregs)
{
	struct trace_array *tr = gops->ops.private;
	int verdict;

	if (!tr)
		return gops->saved_func(trace, gops, fregs);
	verdict = this_cpu_read(tr->array_buffer.data->ftrace_ignore_pid);
	if (verdict == FTRACE_PID_TRACE || verdict == current->pid)
		return gops->saved_func(trace, gops, fregs);
	return 0;
}

static trace_func_graph_ent_t fg_entry_for(struct fgraph_ops *gops)
{
	if (ftrace_ops_pid_filtered(&gops->ops))
		return fg_pid_entry;
	return gops->saved_func;
}

/**
 * fgraph_update_pid_func - follow a change of the pid filters
 *
 * Every registered user that asked for pid filtering (FTRACE_OPS_FL_PID)
 * gets its entry callback wrapped by the pid check, or unwrapped.
 *
 * Context: ftrace_lock held.
 */
void fgraph_update_pid_func(void)
{
	int i;

	lockdep_assert_held(&ftrace_lock);

	for (i = 0; i < FGRAPH_ARRAY_SIZE; i++) {
		struct fgraph_ops *gops = fg_slots[i].gops;

		if (!fg_slots[i].key || !(gops->ops.flags & FTRACE_OPS_FL_PID))
			continue;
		WRITE_ONCE(gops->entryfunc, fg_entry_for(gops));
	}
}

/**
 * fgraph_init_ops - prepare the ops of a trace array's graph user
 * @dst_ops: the ops embedded in the fgraph_ops
 * @src_ops: the trace array's function ops, or NULL
 *
 * The user follows the pid filters of its trace array and, with @src_ops,
 * that ops' filter and notrace hashes (shared, not copied).
 *
 * Context: before @dst_ops is used.
 */
void fgraph_init_ops(struct ftrace_ops *dst_ops, struct ftrace_ops *src_ops)
{
	unsigned long flags = FTRACE_OPS_FL_PID | FTRACE_OPS_GRAPH_STUB;

	dst_ops->flags = flags;
	if (!src_ops)
		return;

	mutex_init(&dst_ops->local_hash.regex_lock);
	INIT_LIST_HEAD(&dst_ops->subop_list);
	if (!rcu_access_pointer(dst_ops->local_hash.filter_hash))
		RCU_INIT_POINTER(dst_ops->local_hash.filter_hash,
				 FTRACE_EMPTY_HASH);
	if (!rcu_access_pointer(dst_ops->local_hash.notrace_hash))
		RCU_INIT_POINTER(dst_ops->local_hash.notrace_hash,
				 FTRACE_EMPTY_HASH);
	dst_ops->func_hash = &src_ops->local_hash;
	dst_ops->private = src_ops->private;
	/* Pairs with the lockless test of ftrace_ops_init(). */
	smp_store_release(&dst_ops->flags, flags | FTRACE_OPS_FL_INITIALIZED);
}

/* The slot @gops is registered in, or -1. */
static int fg_slot_of(struct fgraph_ops *gops)
{
	int idx = gops->idx;

	if (idx < 0 || idx >= FGRAPH_ARRAY_SIZE ||
	    fg_slots[idx].gops != gops || !fg_slots[idx].key)
		return -1;
	return idx;
}

static int fg_free_slot(void)
{
	int i;

	for (i = 0; i < FGRAPH_ARRAY_SIZE; i++) {
		if (!fg_slots[i].key)
			return i;
	}
	return -1;
}

static unsigned long fg_new_key(int idx)
{
	if (++fg_last_gen > FG_GEN_LIMIT)
		fg_last_gen = 1;
	return fg_last_gen << FG_REC_GEN_SHIFT | idx;
}

/* Append to the live table: the entry is complete before it is counted. */
static void fg_users_add(struct fgraph_ops *gops, unsigned long key)
{
	struct fg_users *users = fg_live;
	unsigned int nr = users->nr;

	WRITE_ONCE(users->gops[nr], gops);
	users->key[nr] = key;
	/* Pairs with the entry path's load of nr. */
	smp_store_release(&users->nr, nr + 1);
}

/* Publish the other table, without @gops; the caller then waits. */
static void fg_users_remove(struct fgraph_ops *gops)
{
	struct fg_users *old = fg_live;
	struct fg_users *new = &fg_user_tables[old == &fg_user_tables[0]];
	unsigned int i, nr = 0;

	for (i = 0; i < old->nr; i++) {
		if (old->gops[i] == gops)
			continue;
		new->gops[nr] = old->gops[i];
		new->key[nr] = old->key[i];
		nr++;
	}
	new->nr = nr;
	/* The table is complete before the entry path can find it. */
	smp_store_release(&fg_live, new);
}

/* After this, no callback that could see the old users still runs. */
static void fg_wait_callbacks(void)
{
	/* Before the scheduler runs, nothing else can be in a callback. */
	if (system_state == SYSTEM_BOOTING)
		return;
	synchronize_rcu_tasks_rude();
}

/* The CPU hotplug state, set up on the first registration ever. */
static int fg_cpuhp_once(void)
{
	static bool done;
	int ret;

	if (done)
		return 0;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "fgraph:online",
				fg_cpu_online, NULL);
	if (ret < 0)
		return ret;
	done = true;
	return 0;
}

/* The first user arrives: stacks for every task, probes. */
static int fg_start(void)
{
	int ret;

	ret = fg_attach_all();
	if (ret)
		return ret;
	ret = register_trace_sched_switch(fg_sched_switch, NULL);
	if (ret)
		return ret;
	register_pm_notifier(&fg_pm_nb);
	WRITE_ONCE(ftrace_graph_entry, fg_entry_active);
	WRITE_ONCE(ftrace_graph_return, fg_return_active);
	return 0;
}

/* The last user left.  Stacks stay: frames may still be on them. */
static void fg_stop(void)
{
	WRITE_ONCE(ftrace_graph_entry, ftrace_graph_entry_stub);
	WRITE_ONCE(ftrace_graph_return, fg_return_stub);
	unregister_pm_notifier(&fg_pm_nb);
	unregister_trace_sched_switch(fg_sched_switch, NULL);
}

/*
 * Register @gops; @timed: it reads calltime/rettime (see fg_nr_timed);
 * @direct_ret: NULL, or the return callback of a direct user, which stays
 * outside graph_ops and the live table.
 */
static int fg_register(struct fgraph_ops *gops, bool timed,
		       fgraph_direct_ret_t direct_ret)
{
	bool direct = direct_ret, first, first_managed;
	unsigned long key;
	int idx, ret;

	guard(mutex)(&ftrace_lock);

	ret = fg_cpuhp_once();
	if (ret)
		return ret;
	if (fg_slot_of(gops) >= 0)
		return -EBUSY;
	idx = fg_free_slot();
	if (idx < 0)
		return -ENOSPC;

	/* Counted first, so that tasks forked from now on get a stack. */
	first = !ftrace_graph_active;
	first_managed = !direct && !fg_nr_managed;
	WRITE_ONCE(ftrace_graph_active, ftrace_graph_active + 1);
	/* Cleared before a second user's sites can reach the entry path. */
	if (!direct)
		WRITE_ONCE(fg_one_filter, first_managed &&
			   !(gops->ops.flags & FTRACE_OPS_FL_SAVE_REGS));
	if (first) {
		ret = fg_start();
		if (ret)
			goto out_count;
	}
	fg_clear_task_vars(idx);

	gops->idx = idx;
	if (!direct) {
		gops->saved_func = gops->entryfunc;
		gops->entryfunc = fg_entry_for(gops);
	}
	key = fg_new_key(idx);
	fg_slots[idx].gops = gops;
	fg_slots[idx].timed = timed;
	fg_slots[idx].direct = direct;
	fg_slots[idx].direct_ret = direct_ret;
	if (timed)
		WRITE_ONCE(fg_nr_timed, fg_nr_timed + 1);
	WRITE_ONCE(fg_slots[idx].key, key);
	if (direct)
		return 0;

	ret = ftrace_startup_subops(&graph_ops, &gops->ops,
				    first_managed ? FTRACE_START_FUNC_RET : 0);
	if (ret)
		goto out_slot;

	fg_users_add(gops, key);
	fg_nr_managed++;
	return 0;

out_slot:
	/* Not in the table yet: no call can have seen the user. */
	WRITE_ONCE(fg_slots[idx].key, 0);
	fg_slots[idx].gops = NULL;
	if (timed)
		WRITE_ONCE(fg_nr_timed, fg_nr_timed - 1);
	gops->entryfunc = gops->saved_func;
	gops->saved_func = NULL;
	if (first)
		fg_stop();
out_count:
	WRITE_ONCE(ftrace_graph_active, ftrace_graph_active - 1);
	return ret;
}

/**
 * register_ftrace_graph - start calling a graph user's callbacks
 * @gops: the user: entryfunc and retfunc set; ops may carry filters
 *
 * From now on (callbacks may begin before this returns), every call of a
 * function selected by @gops->ops' filter and notrace hashes (every
 * function if the filter is empty) calls @gops->entryfunc, and, if that
 * returns non-zero, @gops->retfunc when the call returns.  Sets
 * @gops->idx, the user's slot.  The callbacks get calltime and rettime.
 *
 * Context: process context; takes ftrace_lock; may sleep.
 * Return: 0; -EBUSY if @gops is registered already; -ENOSPC if
 * FGRAPH_ARRAY_SIZE users are registered; -ENOMEM; or an error of the
 * hotplug state, the sched_switch probe or the core's update (-ENODEV once
 * ftrace is dead).  On error nothing changed.
 */
int register_ftrace_graph(struct fgraph_ops *gops)
{
	return fg_register(gops, true, NULL);
}

/**
 * register_ftrace_graph_untimed - register a graph user that reads no time
 * @gops: as for register_ftrace_graph()
 *
 * As register_ftrace_graph(), but the user does not need calltime and
 * rettime: while only such users are registered no clock is read, and the
 * calls they hook get 0 in both.
 *
 * Context: process context; takes ftrace_lock; may sleep.
 * Return: as register_ftrace_graph().
 */
int register_ftrace_graph_untimed(struct fgraph_ops *gops)
{
	return fg_register(gops, false, NULL);
}

/**
 * register_fgraph_direct - register a user that hooks returns itself
 * @gops: the user; only its slot (idx) is used: no filter, no callbacks
 * @ret: the user's return callback
 *
 * Gives @gops a slot and a key and every task a shadow stack, but no call
 * site: the user's own ftrace_ops callback pushes frames with
 * fgraph_direct_push() and hooks them with fgraph_direct_done(); @ret
 * then runs, with preemption disabled, when such a call returns, and gets
 * the data pushed.  No clock is read for these frames.  Unregister with
 * unregister_ftrace_graph(), after the ftrace_ops that pushes is gone;
 * when that returns, @ret runs nowhere.
 *
 * Context: process context; takes ftrace_lock; may sleep.
 * Return: as register_ftrace_graph(); -EINVAL without @ret.
 */
int register_fgraph_direct(struct fgraph_ops *gops, fgraph_direct_ret_t ret)
{
	if (!ret)
		return -EINVAL;
	return fg_register(gops, false, ret);
}

/**
 * fgraph_direct_key - the record key of a direct user
 * @gops: a user registered with register_fgraph_direct()
 *
 * For a user that pushes its frames inline (fgraph_push_direct_frame()):
 * the key stays valid until @gops is unregistered.
 *
 * Context: after register_fgraph_direct() returned 0.
 * Return: the key, or 0 if @gops is not registered.
 */
unsigned long fgraph_direct_key(struct fgraph_ops *gops)
{
	int idx = fg_slot_of(gops);

	return idx < 0 ? 0 : READ_ONCE(fg_slots[idx].key);
}

/**
 * unregister_ftrace_graph - stop calling a graph user's callbacks
 * @gops: a user registered with register_ftrace_graph(),
 *	  register_ftrace_graph_untimed() or register_fgraph_direct()
 *
 * When this returns, no callback of @gops runs and none will: calls that
 * entered before and return later skip it.  Does nothing for a user that
 * is not registered.
 *
 * Context: process context; takes ftrace_lock; sleeps.
 */
void unregister_ftrace_graph(struct fgraph_ops *gops)
{
	bool last, direct;
	int idx;

	guard(mutex)(&ftrace_lock);

	idx = fg_slot_of(gops);
	if (idx < 0)
		return;
	last = ftrace_graph_active == 1;
	direct = fg_slots[idx].direct;

	if (direct) {
		/* Its frames call nobody once the key is gone. */
		WRITE_ONCE(fg_slots[idx].key, 0);
	} else {
		fg_users_remove(gops);
		WRITE_ONCE(fg_slots[idx].key, 0);
		/* On error the core warned; the user is out of our tables. */
		ftrace_shutdown_subops(&graph_ops, &gops->ops,
				       fg_nr_managed == 1 ? FTRACE_STOP_FUNC_RET : 0);
		fg_nr_managed--;
	}
	fg_wait_callbacks();

	/* No call sees the user any more: no new frame needs its times. */
	if (fg_slots[idx].timed)
		WRITE_ONCE(fg_nr_timed, fg_nr_timed - 1);
	fg_slots[idx].gops = NULL;
	fg_slots[idx].direct = false;
	fg_slots[idx].direct_ret = NULL;
	if (!direct) {
		gops->entryfunc = gops->saved_func;
		gops->saved_func = NULL;
	}
	if (last)
		fg_stop();
	WRITE_ONCE(ftrace_graph_active, ftrace_graph_active - 1);
}
