/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracefs side of the function-hook core: layer "tracefs" (see
 * ftrace_internal.h for the layers).
 *
 * Offers what the tracefs files of ftrace_regex.c, ftrace_probes.c,
 * ftrace_files.c, ftrace_pid.c and ftrace_profile.c give each other and
 * the lifecycle layer: the :mod: cache, the function-probe lines of
 * set_ftrace_filter, the pid filter func and the file operations that
 * ftrace_files.c creates.  Nothing below tracefs may include this header;
 * the pid filter reaches ops through ftrace_ops_set_pid_func().
 */
#ifndef _LINUX_KERNEL_FTRACE_TRACEFS_H
#define _LINUX_KERNEL_FTRACE_TRACEFS_H

#include <linux/ftrace.h>

#ifdef CONFIG_FUNCTION_TRACER

/* ftrace_pid.c: the func used for an ops with FTRACE_OPS_FL_PID and pids set. */
void ftrace_pid_func(unsigned long ip, unsigned long parent_ip,
		     struct ftrace_ops *op, struct ftrace_regs *fregs);

#ifdef CONFIG_DYNAMIC_FTRACE
/* Apply the :mod: cache of every trace array to a module being enabled. */
void ftrace_mod_cache_apply(struct module *mod);
/*
 * Function-probe lines of set_ftrace_filter, one at a time (a seq_file
 * may stop after any line).  Caller holds ftrace_lock.
 */
unsigned long ftrace_probes_count(struct trace_array *tr);
int ftrace_probes_show_line(struct seq_file *m, struct trace_array *tr,
			    unsigned long n);
#endif /* CONFIG_DYNAMIC_FTRACE */

extern const struct file_operations ftrace_pid_fops;
extern const struct file_operations ftrace_no_pid_fops;
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
extern const struct file_operations ftrace_graph_fops;
extern const struct file_operations ftrace_graph_notrace_fops;
#endif
#ifdef CONFIG_FUNCTION_PROFILER
void __init ftrace_profile_create_files(struct dentry *d_tracer);
#else
static inline void ftrace_profile_create_files(struct dentry *d_tracer) { }
#endif

#endif /* CONFIG_FUNCTION_TRACER */

#endif /* _LINUX_KERNEL_FTRACE_TRACEFS_H */
