// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs files of the function-hook core.
 *
 * Read-only views of the call-site records:
 *   available_filter_functions        every record: "name" or "name [module]"
 *   available_filter_functions_addrs  the same, prefixed by the site address
 *   enabled_functions                 sites that call something now, with
 *                                     their user count, flags and target
 *   touched_functions                 sites that were ever hooked since boot
 * and the places where the other files of the core get their tracefs
 * entries: set_ftrace_filter/notrace (per trace array, ftrace_regex.c does
 * the work), set_graph_function/notrace (ftrace_regex.c), set_ftrace_pid and
 * set_ftrace_notrace_pid (ftrace_pid.c) and the profiler (ftrace_profile.c);
 * and the setup of a trace array's part of the core (its ops and lists).
 *
 * Walking the records: the site groups may be unlinked (module unload) or
 * replaced (init text freed) whenever ftrace_lock is not held.  A reader
 * therefore holds ftrace_lock only from ->start to ->stop of one seq_file
 * fill, and between two fills it keeps no pointer into a group: it keeps
 * the address of the last record it returned.  The next ->start looks that
 * address up again; if it is gone, the walk restarts from the first group
 * and skips as many matching records as the file position says.
 */
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/tracefs.h>

#include "trace.h"
#include "ftrace_internal.h"

#ifdef CONFIG_DYNAMIC_FTRACE

/* What a record whose address has no function symbol is listed as. */
#define SITE_NO_SYMBOL		"__ftrace_invalid_address__"

enum site_view {
	SITE_VIEW_AVAIL,	/* available_filter_functions */
	SITE_VIEW_ADDRS,	/* available_filter_functions_addrs */
	SITE_VIEW_ENABLED,	/* enabled_functions */
	SITE_VIEW_TOUCHED,	/* touched_functions */
};

/*
 * Per open file.  @grp and @idx are only meaningful between ->start and
 * ->stop (ftrace_lock held); @ip and @pos survive between fills.
 */
struct site_cursor {
	enum site_view			view;
	bool				placed;	/* @ip/@pos name a record */
	unsigned long			ip;	/* record shown at @pos */
	loff_t				pos;
	struct ftrace_site_group	*grp;
	unsigned int			idx;
};

/* ---- which records a view lists ------------------------------------- */

static bool site_is_live(struct ftrace_site_group *g, unsigned int i)
{
	return ftrace_site_cur_addr(g, i) ||
	       (ftrace_site_flags(g, i) & FTRACE_FL_ENABLED);
}

static bool site_in_view(struct site_cursor *cur, struct ftrace_site_group *g,
			 unsigned int i)
{
	switch (cur->view) {
	case SITE_VIEW_ENABLED:
		return site_is_live(g, i);
	case SITE_VIEW_TOUCHED:
		return (ftrace_site_flags(g, i) & FTRACE_FL_TOUCHED) ||
			site_is_live(g, i);
	default:
		/* Like upstream, unusable records are listed too (by address). */
		return true;
	}
}

/* ---- cursor movement (ftrace_lock held) ----------------------------- */

static struct ftrace_site_group *site_first_group(void)
{
	return rcu_dereference_protected(ftrace_site_groups,
					 lockdep_is_held(&ftrace_lock));
}

static struct ftrace_site_group *site_next_group(struct ftrace_site_group *g)
{
	return rcu_dereference_protected(g->next, lockdep_is_held(&ftrace_lock));
}

/*
 * Move to the first record at or after (@g, @i) that the view lists.
 * Returns false at the end of the last group.
 */
static bool site_settle(struct site_cursor *cur, struct ftrace_site_group *g,
			unsigned int i)
{
	bool all = cur->view != SITE_VIEW_ENABLED &&
		   cur->view != SITE_VIEW_TOUCHED;

	for (; g; g = site_next_group(g), i = 0) {
		for (; i < g->nr; i++) {
			/* a site without a state was never enabled or touched */
			if (!all && !g->history && !ftrace_site_state(g, i)) {
				i |= FTRACE_SITE_CHUNK - 1;
				continue;
			}
			if (!site_in_view(cur, g, i))
				continue;
			cur->grp = g;
			cur->idx = i;
			return true;
		}
	}
	cur->grp = NULL;
	return false;
}

static bool site_advance(struct site_cursor *cur)
{
	return site_settle(cur, cur->grp, cur->idx + 1);
}

/* Find the group and index of the record at @ip. */
static bool site_find_ip(struct site_cursor *cur, unsigned long ip)
{
	cur->grp = ftrace_site_find(ip, &cur->idx);
	return cur->grp;
}

/* Walk from the first record to the @pos-th listed one. */
static bool site_seek(struct site_cursor *cur, loff_t pos)
{
	loff_t n;

	if (!site_settle(cur, site_first_group(), 0))
		return false;
	for (n = 0; n < pos; n++) {
		if (!site_advance(cur))
			return false;
	}
	return true;
}

enum site_resume_result {
	SITE_LOST,	/* no usable bookmark: walk from the start */
	SITE_RESUMED,	/* cursor placed on the record for the position */
	SITE_AT_END,	/* the bookmarked record was the last one listed */
};

/* Continue where the previous fill stopped, if that record still exists. */
static enum site_resume_result site_resume(struct site_cursor *cur, loff_t pos)
{
	if (!cur->placed || (pos != cur->pos && pos != cur->pos + 1))
		return SITE_LOST;
	if (!site_find_ip(cur, cur->ip))
		return SITE_LOST;
	if (pos == cur->pos)
		return site_in_view(cur, cur->grp, cur->idx) ? SITE_RESUMED : SITE_LOST;
	return site_advance(cur) ? SITE_RESUMED : SITE_AT_END;
}

static void *site_remember(struct site_cursor *cur, loff_t pos)
{
	cur->placed = true;
	cur->pos = pos;
	cur->ip = ftrace_site_ip(cur->grp, cur->idx);
	return cur;
}

static void *site_start(struct seq_file *m, loff_t *pos)
	__acquires(&ftrace_lock)
{
	struct site_cursor *cur = m->private;

	mutex_lock(&ftrace_lock);
	if (ftrace_core_dead())
		return NULL;

	switch (site_resume(cur, *pos)) {
	case SITE_RESUMED:
		break;
	case SITE_LOST:
		if (site_seek(cur, *pos))
			break;
		return NULL;
	case SITE_AT_END:
		/* Keep the bookmark: reads at EOF stay cheap. */
		return NULL;
	}
	return site_remember(cur, *pos);
}

static void *site_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct site_cursor *cur = v;

	(*pos)++;
	if (ftrace_core_dead() || !site_advance(cur))
		return NULL;
	return site_remember(cur, *pos);
}

static void site_stop(struct seq_file *m, void *v)
	__releases(&ftrace_lock)
{
	struct site_cursor *cur = m->private;

	cur->grp = NULL;
	mutex_unlock(&ftrace_lock);
}

/* ---- printing ------------------------------------------------------- */

/*
 * Print the function of a call site, and its module in brackets.  Returns
 * -ENOENT (after printing a placeholder) when the address is not at the
 * start of a known function, as happens for leftovers of overridden weak
 * functions.
 */
static int site_print_name(struct seq_file *m, unsigned long ip)
{
#ifdef FTRACE_MCOUNT_MAX_OFFSET
	char name[KSYM_SYMBOL_LEN];
	unsigned long offset = 0;
	char *modname = NULL;
	bool known;

	known = kallsyms_lookup(ip, NULL, &offset, &modname, name) &&
		offset <= FTRACE_MCOUNT_MAX_OFFSET;
	if (!known)
		snprintf(name, sizeof(name), SITE_NO_SYMBOL "_%ld", offset);
	seq_puts(m, name);
	if (modname)
		seq_printf(m, " [%s]", modname);
	return known ? 0 : -ENOENT;
#else
	seq_printf(m, "%ps", (void *)ip);
	return 0;
#endif
}

/*
 * The function @ops' own trampoline calls, or, for @ops NULL, the one the
 * shared callers call (unless each site's ops literal chooses: CALL_OPS).
 * Nothing for a trampoline the ops' owner supplied.
 */
static void site_print_tramp_target(struct seq_file *m, struct ftrace_ops *ops)
{
	ftrace_func_t fn = NULL;

	if (ops) {
		if (ops->flags & FTRACE_OPS_FL_ALLOC_TRAMP)
			fn = ftrace_ops_tramp_target(ops);
	} else if (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS)) {
		fn = ftrace_sites_caller_func();
	}
	if (fn)
		seq_printf(m, " ->%pS", (void *)fn);
}

/* The ops whose own trampoline the site calls, or NULL. */
static struct ftrace_ops *site_tramp_ops(struct ftrace_site_set *set,
					 unsigned long target)
{
	struct ftrace_ops *ops;

	if (!set || set->nr != 1 || !target)
		return NULL;
	ops = set->ops[0];
	if (!ops->trampoline || ops->trampoline != target)
		return NULL;
	return ops;
}

/*
 * The part of an enabled_functions / touched_functions line after the
 * name: " (users)", one two-column field per flag (R: saves regs,
 * I: may change the ip, D: has a direct caller, O: per-site ops (not on
 * this architecture), M: was ever modified by I or D), then the
 * trampoline and, for direct sites, the direct target.
 */
static void site_print_state(struct seq_file *m, struct ftrace_site_group *g,
			     unsigned int i)
{
	struct ftrace_site_state *st = ftrace_site_state(g, i);
	struct dyn_ftrace plain = {
		.ip = ftrace_site_ip(g, i),
		.flags = ftrace_site_flags(g, i),
	};
	struct dyn_ftrace *rec = st ? &st->rec : &plain;
	struct ftrace_site_set *set = st ? st->set : NULL;
	unsigned long target = st ? st->cur_addr : 0;
	unsigned int sflags = set ? set->flags : 0;
	long users = set ? set->nr : ftrace_rec_count(rec);
	bool regs, ipmod, direct, modified;
	struct ftrace_ops *tramp_ops;

	regs = (sflags & FTRACE_SET_SAVE_REGS) || (rec->flags & FTRACE_FL_REGS);
	ipmod = (sflags & FTRACE_SET_IPMODIFY) || (rec->flags & FTRACE_FL_IPMODIFY);
	direct = (sflags & FTRACE_SET_DIRECT) || (rec->flags & FTRACE_FL_DIRECT);
	modified = (rec->flags & FTRACE_FL_MODIFIED) ||
		   (target && (ipmod || direct));

	seq_printf(m, " (%ld)", users);
	seq_puts(m, regs ? " R" : "  ");
	seq_puts(m, ipmod ? " I" : "  ");
	seq_puts(m, direct ? " D" : "  ");
	seq_puts(m, "  ");
	seq_puts(m, modified ? " M " : "   ");

	tramp_ops = site_tramp_ops(set, target);
	if (tramp_ops) {
		seq_printf(m, "\ttramp: %pS (%pS)", (void *)tramp_ops->trampoline,
			   (void *)tramp_ops->func);
	}
	site_print_tramp_target(m, tramp_ops);

	if (direct) {
		unsigned long addr = ftrace_find_rec_direct(rec->ip);

		if (addr)
			seq_printf(m, "\n\tdirect-->%pS", (void *)addr);
	}
}

static int site_show(struct seq_file *m, void *v)
{
	struct site_cursor *cur = v;
	struct ftrace_site_group *g = cur->grp;
	unsigned int i = cur->idx;
	bool detailed;

	if (cur->view == SITE_VIEW_ADDRS)
		seq_printf(m, "%lx ", ftrace_site_ip(g, i));

	detailed = cur->view == SITE_VIEW_ENABLED ||
		   cur->view == SITE_VIEW_TOUCHED;
	if (site_print_name(m, ftrace_site_ip(g, i)) == 0 && detailed)
		site_print_state(m, g, i);

	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations site_seq_ops = {
	.start	= site_start,
	.next	= site_next,
	.stop	= site_stop,
	.show	= site_show,
};

/* ---- open ----------------------------------------------------------- */

static int site_open(struct file *file, enum site_view view)
{
	struct site_cursor *cur;

	if (ftrace_core_dead())
		return -ENODEV;

	cur = __seq_open_private(file, &site_seq_ops, sizeof(*cur));
	if (!cur)
		return -ENOMEM;
	cur->view = view;
	return 0;
}

/* The function lists are hidden by lockdown, like the rest of tracefs. */
static int site_open_locked_down(struct file *file, enum site_view view)
{
	int ret = security_locked_down(LOCKDOWN_TRACEFS);

	if (ret)
		return ret;
	return site_open(file, view);
}

static int avail_open(struct inode *inode, struct file *file)
{
	return site_open_locked_down(file, SITE_VIEW_AVAIL);
}

static int avail_addrs_open(struct inode *inode, struct file *file)
{
	return site_open_locked_down(file, SITE_VIEW_ADDRS);
}

/*
 * What is hooked right now (or ever was) stays visible under lockdown: an
 * administrator must be able to see what is modifying the kernel.
 */
static int enabled_open(struct inode *inode, struct file *file)
{
	return site_open(file, SITE_VIEW_ENABLED);
}

static int touched_open(struct inode *inode, struct file *file)
{
	return site_open(file, SITE_VIEW_TOUCHED);
}

#define SITE_LIST_FOPS(_name, _open)				\
	static const struct file_operations _name = {		\
		.open		= _open,			\
		.llseek		= seq_lseek,			\
		.read		= seq_read,			\
		.release	= seq_release_private,		\
	}

SITE_LIST_FOPS(avail_fops, avail_open);
SITE_LIST_FOPS(avail_addrs_fops, avail_addrs_open);
SITE_LIST_FOPS(enabled_fops, enabled_open);
SITE_LIST_FOPS(touched_fops, touched_open);

/* ---- set_ftrace_filter / set_ftrace_notrace ------------------------- */

/*
 * i_private is the trace array, or NULL for the top-level files, which
 * ftrace_regex_open() maps to global_ops.
 */
static int filter_open(struct inode *inode, struct file *file)
{
	return ftrace_regex_open(inode->i_private, NULL,
				 FTRACE_ITER_FILTER | FTRACE_ITER_DO_PROBES,
				 inode, file);
}

static int notrace_open(struct inode *inode, struct file *file)
{
	return ftrace_regex_open(inode->i_private, NULL, FTRACE_ITER_NOTRACE,
				 inode, file);
}

static const struct file_operations filter_fops = {
	.open		= filter_open,
	.llseek		= tracing_lseek,
	.read		= seq_read,
	.write		= ftrace_filter_write,
	.release	= ftrace_regex_release,
};

static const struct file_operations notrace_fops = {
	.open		= notrace_open,
	.llseek		= tracing_lseek,
	.read		= seq_read,
	.write		= ftrace_notrace_write,
	.release	= ftrace_regex_release,
};

/**
 * ftrace_create_filter_files - create set_ftrace_filter and set_ftrace_notrace
 * @tr: trace array whose ops the files edit (NULL: the top level, global_ops)
 * @parent: tracefs directory to create them in
 *
 * Context: process context, may sleep.
 */
void ftrace_create_filter_files(struct trace_array *tr, struct dentry *parent)
{
	trace_create_file("set_ftrace_filter", TRACE_MODE_WRITE, parent, tr,
			  &filter_fops);
	trace_create_file("set_ftrace_notrace", TRACE_MODE_WRITE, parent, tr,
			  &notrace_fops);
}

/**
 * ftrace_destroy_filter_files - retire the ops behind an instance's filter files
 * @ops: the ops the files of ftrace_create_filter_files() edited
 *
 * The tracefs entries go away with their directory.  What this does is
 * make @ops safe to free: it is shut down if still hooked (after which no
 * callback of it runs), marked deleted so it can never be registered
 * again, and its filter and notrace hashes are freed.
 *
 * Context: process context, may sleep; takes ftrace_lock.
 */
void ftrace_destroy_filter_files(struct ftrace_ops *ops)
{
	mutex_lock(&ftrace_lock);
	if (ops->flags & FTRACE_OPS_FL_ENABLED)
		WARN_ON_ONCE(ftrace_shutdown(ops, 0));
	ops->flags |= FTRACE_OPS_FL_DELETED;
	mutex_unlock(&ftrace_lock);

	ftrace_free_filter(ops);
}

#endif /* CONFIG_DYNAMIC_FTRACE */

/* ---- directory setup ------------------------------------------------ */

/**
 * ftrace_init_tracefs - per trace array files of the function-hook core
 * @tr: the trace array (top level or instance)
 * @d_tracer: its tracefs directory
 */
void ftrace_init_tracefs(struct trace_array *tr, struct dentry *d_tracer)
{
	/* Before a pid list can be set: pid-filtered ops call the pid check. */
	ftrace_ops_set_pid_func(ftrace_pid_func);
	trace_create_file("set_ftrace_pid", TRACE_MODE_WRITE, d_tracer, tr,
			  &ftrace_pid_fops);
	trace_create_file("set_ftrace_notrace_pid", TRACE_MODE_WRITE, d_tracer,
			  tr, &ftrace_no_pid_fops);
}

/**
 * ftrace_init_tracefs_toplevel - files that exist only in the top directory
 * @tr: the global trace array
 * @d_tracer: the tracefs root (NULL: the default root)
 *
 * The record lists, the global filter files, the graph filter files and
 * the function profiler.
 */
void __init ftrace_init_tracefs_toplevel(struct trace_array *tr,
					 struct dentry *d_tracer)
{
	WARN_ON(!(tr->flags & TRACE_ARRAY_FL_GLOBAL));

#ifdef CONFIG_DYNAMIC_FTRACE
	trace_create_file("available_filter_functions", TRACE_MODE_READ,
			  d_tracer, NULL, &avail_fops);
	trace_create_file("available_filter_functions_addrs", TRACE_MODE_READ,
			  d_tracer, NULL, &avail_addrs_fops);
	trace_create_file("enabled_functions", TRACE_MODE_READ, d_tracer, NULL,
			  &enabled_fops);
	trace_create_file("touched_functions", TRACE_MODE_READ, d_tracer, NULL,
			  &touched_fops);

	ftrace_create_filter_files(NULL, d_tracer);

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	trace_create_file("set_graph_function", TRACE_MODE_WRITE, d_tracer,
			  NULL, &ftrace_graph_fops);
	trace_create_file("set_graph_notrace", TRACE_MODE_WRITE, d_tracer,
			  NULL, &ftrace_graph_notrace_fops);
#endif
#endif /* CONFIG_DYNAMIC_FTRACE */

	ftrace_profile_create_files(d_tracer);
}

/**
 * ftrace_init_global_array_ops - give the top-level trace array its ops
 * @tr: the global trace array
 *
 * Context: boot.
 */
__init void ftrace_init_global_array_ops(struct trace_array *tr)
{
	tr->ops = &global_ops;
	global_ops.private = tr;
	ftrace_init_trace_array(tr);
	init_array_fgraph_ops(tr, tr->ops);
}

/**
 * ftrace_init_array_ops - set the callback of a trace array's ops
 * @tr: the trace array
 * @func: the tracer's callback
 *
 * Context: tracer init, with the ops unregistered.
 */
void ftrace_init_array_ops(struct trace_array *tr, ftrace_func_t func)
{
	/* The global ops passes from tracer to tracer; it must be free. */
	if (tr->flags & TRACE_ARRAY_FL_GLOBAL)
		WARN(tr->ops->func != ftrace_stub,
		     "ftrace: global ops still calls %ps\n", tr->ops->func);
	tr->ops->func = func;
	tr->ops->private = tr;
}

/**
 * ftrace_reset_array_ops - clear the callback of a trace array's ops
 * @tr: the trace array
 *
 * Context: tracer reset, with the ops unregistered.
 */
void ftrace_reset_array_ops(struct trace_array *tr)
{
	tr->ops->func = ftrace_stub;
}

#ifdef CONFIG_DYNAMIC_FTRACE
/**
 * ftrace_init_trace_array - initialise the core's lists in a trace array
 * @tr: a new trace array
 *
 * Function probes and the :mod: caches of its filter and notrace files.
 */
void ftrace_init_trace_array(struct trace_array *tr)
{
	INIT_LIST_HEAD(&tr->func_probes);
	INIT_LIST_HEAD(&tr->mod_trace);
	INIT_LIST_HEAD(&tr->mod_notrace);
}
#endif
