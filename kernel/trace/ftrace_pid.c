// SPDX-License-Identifier: GPL-2.0
/*
 * Function tracing by task: set_ftrace_pid and set_ftrace_notrace_pid.
 *
 * A trace array has two pid lists, tr->function_pids (trace only these)
 * and tr->function_no_pids (never trace these).  Looking a pid up on every
 * traced call would be too slow, so each CPU caches the verdict for the
 * task running on it in tr->array_buffer.data->ftrace_ignore_pid:
 *
 *   FTRACE_PID_TRACE   no list is set: trace every task
 *   FTRACE_PID_IGNORE  the running task is filtered out
 *   <pid>              the task with this pid is traced
 *
 * While at least one list is set, a sched_switch probe recomputes the
 * verdict for the incoming task, and an ops with FTRACE_OPS_FL_PID calls
 * ftrace_pid_func(), which checks the verdict, instead of its own func
 * (ftrace.c switches ops->func in ftrace_update_pid_func(), to the function
 * ftrace_init_tracefs() registered with ftrace_ops_set_pid_func() before
 * the files of the lists exist).  fgraph's users get a pid check of their
 * own (fgraph_update_pid_func()), told right after the ops.  The function
 * graph tracer reads the same verdict through ftrace_trace_task().
 *
 * With the function-fork option, children of a listed task are added to
 * the list at fork, and every task is removed from it when it is freed.
 *
 * Locking and lifetime:
 *  - ftrace_lock serialises every replacement of a list pointer, the
 *    registration of the sched_switch probe and the per-CPU reset.
 *  - Probes read the list pointers with rcu_dereference_sched() (tracepoint
 *    probes run with preemption disabled); a replaced list is freed after
 *    synchronize_rcu().
 *  - The sched_switch probe is registered exactly while one of the two
 *    pointers is non-NULL; every writer keeps that rule.
 */
#include <linux/ftrace.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>

#include "trace.h"
#include "ftrace_internal.h"

/* Both pid list types, for clearing. */
#define FPID_ALL_TYPES	(TRACE_PIDS | TRACE_NO_PIDS)

/**
 * ftrace_pid_func - the func of a pid-filtered ops
 * @ip: address of the traced function's call site
 * @parent_ip: its caller
 * @op: the ops; its trace array is op->private
 * @fregs: register state at the call site
 *
 * Calls op->saved_func only when the running task may be traced on this
 * CPU.  Runs in any context; reads nothing but this CPU's cached verdict,
 * which a single this_cpu_read() gets safely even when preemptible.
 */
void notrace ftrace_pid_func(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct trace_array *tr = op->private;

	if (tr) {
		int verdict = this_cpu_read(tr->array_buffer.data->ftrace_ignore_pid);

		if (verdict == FTRACE_PID_IGNORE)
			return;
		/* A cached pid of another task: the switch probe has not run yet. */
		if (verdict != FTRACE_PID_TRACE && verdict != current->pid)
			return;
	}
	op->saved_func(ip, parent_ip, op, fregs);
}

/* ---- per-CPU verdicts ----------------------------------------------- */

/*
 * The lists of a trace array changed: point the pid-filtered ops and the
 * pid-filtered fgraph users at their pid check, or back.  ftrace_lock held.
 */
static void fpid_update_users(void)
{
	if (ftrace_core_dead())
		return;
	ftrace_update_pid_func();
	fgraph_update_pid_func();
}

static struct trace_pid_list __rcu **fpid_slot(struct trace_array *tr,
					       int type)
{
	return type == TRACE_PIDS ? &tr->function_pids : &tr->function_no_pids;
}

static bool fpid_filtering(struct trace_array *tr)
{
	return rcu_dereference_protected(tr->function_pids,
					 lockdep_is_held(&ftrace_lock)) ||
	       rcu_dereference_protected(tr->function_no_pids,
					 lockdep_is_held(&ftrace_lock));
}

static void fpid_set_verdict(struct trace_array *tr,
			     struct trace_pid_list *pids,
			     struct trace_pid_list *no_pids,
			     struct task_struct *task)
{
	int verdict = task->pid;

	if (trace_ignore_this_task(pids, no_pids, task))
		verdict = FTRACE_PID_IGNORE;
	this_cpu_write(tr->array_buffer.data->ftrace_ignore_pid, verdict);
}

static void fpid_sched_switch(void *data, bool preempt,
			      struct task_struct *prev,
			      struct task_struct *next,
			      unsigned int prev_state)
{
	struct trace_array *tr = data;

	fpid_set_verdict(tr, rcu_dereference_sched(tr->function_pids),
			 rcu_dereference_sched(tr->function_no_pids), next);
}

/* IPI handler: the lists changed, re-judge the task running here. */
static void fpid_refresh_cpu(void *data)
{
	struct trace_array *tr = data;

	/* The CPU that sent the IPI holds ftrace_lock and waits for us. */
	fpid_set_verdict(tr,
			 rcu_dereference_protected(tr->function_pids,
						   mutex_is_locked(&ftrace_lock)),
			 rcu_dereference_protected(tr->function_no_pids,
						   mutex_is_locked(&ftrace_lock)),
			 current);
}

static void fpid_trace_all(struct trace_array *tr)
{
	int cpu;

	for_each_possible_cpu(cpu)
		per_cpu_ptr(tr->array_buffer.data, cpu)->ftrace_ignore_pid =
			FTRACE_PID_TRACE;
}

/* ---- replacing a list ----------------------------------------------- */

/*
 * Make @new (may be NULL) the list of @type and bring the switch probe and
 * the per-CPU verdicts in line.  The previous list is freed.  On error
 * (the probe could not be registered) nothing changed and @new is freed.
 * Caller holds ftrace_lock.  Does not refresh the ops funcs.
 */
static int fpid_install(struct trace_array *tr, int type,
			struct trace_pid_list *new)
{
	struct trace_pid_list __rcu **slot = fpid_slot(tr, type);
	struct trace_pid_list *old;
	bool was_on = fpid_filtering(tr);
	bool now_on;
	int ret;

	old = rcu_dereference_protected(*slot, lockdep_is_held(&ftrace_lock));
	if (!was_on && new) {
		ret = register_trace_sched_switch(fpid_sched_switch, tr);
		if (ret) {
			trace_pid_list_free(new);
			return ret;
		}
	}

	rcu_assign_pointer(*slot, new);
	now_on = fpid_filtering(tr);

	if (now_on) {
		/* Tasks running now were judged by the old lists. */
		on_each_cpu(fpid_refresh_cpu, tr, 1);
	} else if (was_on) {
		unregister_trace_sched_switch(fpid_sched_switch, tr);
		/* No switch probe may overwrite the reset below. */
		tracepoint_synchronize_unregister();
		fpid_trace_all(tr);
	}

	if (old) {
		synchronize_rcu();
		trace_pid_list_free(old);
	}
	return 0;
}

static void fpid_clear(struct trace_array *tr, int types)
{
	if (types & TRACE_PIDS)
		fpid_install(tr, TRACE_PIDS, NULL);
	if (types & TRACE_NO_PIDS)
		fpid_install(tr, TRACE_NO_PIDS, NULL);
}

/**
 * ftrace_clear_pids - drop both pid lists of a trace array
 * @tr: the trace array (an instance being removed)
 *
 * The instance's ops is no longer registered, so no ops func needs to be
 * refreshed.  Context: process context, may sleep; takes ftrace_lock.
 */
void ftrace_clear_pids(struct trace_array *tr)
{
	mutex_lock(&ftrace_lock);
	fpid_clear(tr, FPID_ALL_TYPES);
	mutex_unlock(&ftrace_lock);
}

/* ---- function-fork option ------------------------------------------- */

static void fpid_follow_fork(void *data, struct task_struct *parent,
			     struct task_struct *child)
{
	struct trace_array *tr = data;

	trace_filter_add_remove_task(rcu_dereference_sched(tr->function_pids),
				     parent, child);
	trace_filter_add_remove_task(rcu_dereference_sched(tr->function_no_pids),
				     parent, child);
}

static void fpid_follow_free(void *data, struct task_struct *task)
{
	struct trace_array *tr = data;

	trace_filter_add_remove_task(rcu_dereference_sched(tr->function_pids),
				     NULL, task);
	trace_filter_add_remove_task(rcu_dereference_sched(tr->function_no_pids),
				     NULL, task);
}

/**
 * ftrace_pid_follow_fork - make the pid lists follow forks (function-fork)
 * @tr: the trace array whose option changed
 * @enable: true when the option was set, false when cleared
 *
 * Called only when the option changes value.
 */
void ftrace_pid_follow_fork(struct trace_array *tr, bool enable)
{
	if (!enable) {
		unregister_trace_sched_process_fork(fpid_follow_fork, tr);
		unregister_trace_sched_process_free(fpid_follow_free, tr);
		return;
	}

	if (register_trace_sched_process_fork(fpid_follow_fork, tr)) {
		pr_warn("ftrace: cannot follow forks for pid filtering\n");
		return;
	}
	if (register_trace_sched_process_free(fpid_follow_free, tr)) {
		unregister_trace_sched_process_fork(fpid_follow_fork, tr);
		pr_warn("ftrace: cannot follow forks for pid filtering\n");
	}
}

/* ---- set_ftrace_pid / set_ftrace_notrace_pid ------------------------ */

/*
 * seq_file element: a pid + 1 (so that pid 0 is not NULL), as produced by
 * trace_pid_start()/trace_pid_next(), or FPID_NONE for an unset list (an
 * address no pid + 1 can equal).
 */
static const char fpid_none_marker;
#define FPID_NONE	((void *)&fpid_none_marker)

/* seq_file private data of an open pid file. */
struct fpid_reader {
	struct trace_array	*tr;
	int			type;	/* TRACE_PIDS or TRACE_NO_PIDS */
};

static struct trace_pid_list *fpid_reader_list(struct fpid_reader *rd)
{
	return rcu_dereference_protected(*fpid_slot(rd->tr, rd->type),
					 lockdep_is_held(&ftrace_lock));
}

static void *fpid_start(struct seq_file *m, loff_t *pos)
	__acquires(&ftrace_lock)
{
	struct fpid_reader *rd = m->private;
	struct trace_pid_list *list;

	mutex_lock(&ftrace_lock);
	list = fpid_reader_list(rd);
	if (!list)
		return *pos ? NULL : FPID_NONE;
	return trace_pid_start(list, pos);
}

static void *fpid_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct fpid_reader *rd = m->private;

	if (v == FPID_NONE) {
		(*pos)++;
		return NULL;
	}
	return trace_pid_next(fpid_reader_list(rd), v, pos);
}

static void fpid_stop(struct seq_file *m, void *v)
	__releases(&ftrace_lock)
{
	mutex_unlock(&ftrace_lock);
}

static int fpid_show(struct seq_file *m, void *v)
{
	if (v != FPID_NONE)
		return trace_pid_show(m, v);
	seq_puts(m, "no pid\n");
	return 0;
}

static const struct seq_operations fpid_sops = {
	.start	= fpid_start,
	.show	= fpid_show,
	.next	= fpid_next,
	.stop	= fpid_stop,
};

/* Opening for write with O_TRUNC empties the list of @type. */
static int fpid_open(struct inode *inode, struct file *file, int type)
{
	struct trace_array *tr = inode->i_private;
	struct fpid_reader *rd;
	int ret;

	ret = tracing_check_open_get_tr(tr);
	if (ret)
		return ret;

	rd = __seq_open_private(file, &fpid_sops, sizeof(*rd));
	if (!rd) {
		trace_array_put(tr);
		return -ENOMEM;
	}
	rd->tr = tr;
	rd->type = type;

	if ((file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC)) {
		mutex_lock(&ftrace_lock);
		fpid_clear(tr, type);
		fpid_update_users();
		mutex_unlock(&ftrace_lock);
	}
	return 0;
}

static int fpid_open_pids(struct inode *inode, struct file *file)
{
	return fpid_open(inode, file, TRACE_PIDS);
}

static int fpid_open_no_pids(struct inode *inode, struct file *file)
{
	return fpid_open(inode, file, TRACE_NO_PIDS);
}

/*
 * Writing adds the pids in @ubuf to the list (trace_pid_write() builds a
 * new list from the old one and the input; nothing changes on bad input).
 */
static ssize_t fpid_write(struct file *file, const char __user *ubuf,
			  size_t cnt, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	struct fpid_reader *rd = m->private;
	struct trace_pid_list *new;
	ssize_t ret;
	int err;

	if (!cnt)
		return 0;

	mutex_lock(&ftrace_lock);
	ret = trace_pid_write(fpid_reader_list(rd), &new, ubuf, cnt);
	if (ret < 0)
		goto unlock;

	err = fpid_install(rd->tr, rd->type, new);
	if (err) {
		ret = err;
		goto unlock;
	}
	fpid_update_users();
	*ppos += ret;
unlock:
	mutex_unlock(&ftrace_lock);
	return ret;
}

static int fpid_release(struct inode *inode, struct file *file)
{
	trace_array_put(inode->i_private);
	return seq_release_private(inode, file);
}

/* Used by ftrace_init_tracefs() in ftrace_files.c. */
const struct file_operations ftrace_pid_fops = {
	.open		= fpid_open_pids,
	.llseek		= tracing_lseek,
	.read		= seq_read,
	.write		= fpid_write,
	.release	= fpid_release,
};

const struct file_operations ftrace_no_pid_fops = {
	.open		= fpid_open_no_pids,
	.llseek		= tracing_lseek,
	.read		= seq_read,
	.write		= fpid_write,
	.release	= fpid_release,
};
