// SPDX-License-Identifier: GPL-2.0
/*
 * Uprobe events: how users see them.  The dyn_event callbacks (the
 * dynamic_events listing, removal matching, busy test, freeing), the
 * tracefs files uprobe_events (definitions in, listing out) and
 * uprobe_profile (hit counts), and the initcall that registers both.
 *
 * Locks: the listing runs under event_mutex (dyn_event_seq_start() takes
 * it), as do the match, is_busy and free callbacks; a line written to
 * uprobe_events is parsed under dyn_event_ops_mutex.  Clearing all events
 * on open(O_TRUNC) is all or nothing.
 */
#include <linux/export.h>
#include <linux/percpu.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <kunit/visibility.h>

#include "trace_uprobe.h"

/* ---- dyn_event callbacks ---- */

/* "0x<offset, zero-padded>" and "(0x<ref ctr>)" when there is one. */
static void trace_uprobe_format_addr(struct trace_uprobe *tu, char *buf,
				     size_t size)
{
	int n = snprintf(buf, size, "0x%0*lx", UPROBE_ADDR_DIGITS, tu->offset);

	if (tu->ref_ctr_offset && n < (int)size)
		snprintf(buf + n, size - n, "(0x%lx)", tu->ref_ctr_offset);
}

/**
 * uprobe_dyn_show - list one uprobe as uprobe_events and dynamic_events do
 * @m: where the line goes
 * @ev: a uprobe's dyn_event
 *
 * Prints the definition with the group and event names, the offset
 * zero-padded and every argument as "NAME=EXPR", then a newline.
 *
 * Context: event_mutex held.
 * Return: 0.
 */
VISIBLE_IF_KUNIT int uprobe_dyn_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_uprobe *tu = to_trace_uprobe(ev);
	char addr[MAX_ARGSTR_LEN + 1];
	int i;

	trace_uprobe_format_addr(tu, addr, sizeof(addr));
	seq_printf(m, "%c:%s/%s %s:%s", tu_is_return(tu) ? 'r' : 'p',
		   trace_probe_group_name(&tu->tp), trace_probe_name(&tu->tp),
		   tu->filename, addr);
	for (i = 0; i < tu->tp.nr_args; i++)
		seq_printf(m, " %s=%s", tu->tp.args[i].name,
			   tu->tp.args[i].comm);
	seq_putc(m, '\n');
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(uprobe_dyn_show);

/* Is @word the site of @tp as the listing shows it ("PATH:ADDR")? */
static bool trace_uprobe_site_matches(struct trace_probe *tp, const char *word)
{
	struct trace_uprobe *tu = container_of(tp, struct trace_uprobe, tp);
	char addr[MAX_ARGSTR_LEN + 1];
	size_t len = strlen(tu->filename);

	if (strncmp(word, tu->filename, len) || word[len] != ':')
		return false;
	trace_uprobe_format_addr(tu, addr, sizeof(addr));
	return !strcmp(word + len + 1, addr);
}

static bool uprobe_dyn_match(const char *system, const char *event,
			     int argc, const char **argv, struct dyn_event *ev)
{
	return trace_probe_match_command(&to_trace_uprobe(ev)->tp, system,
					 event, argc, argv,
					 trace_uprobe_site_matches);
}

static bool uprobe_dyn_is_busy(struct dyn_event *ev)
{
	return trace_probe_is_enabled(&to_trace_uprobe(ev)->tp);
}

static int uprobe_dyn_free(struct dyn_event *ev)
{
	return trace_uprobe_unregister(to_trace_uprobe(ev));
}

struct dyn_event_operations trace_uprobe_ops = {
	.create		= uprobe_dyn_create,
	.match		= uprobe_dyn_match,
	.show		= uprobe_dyn_show,
	.is_busy	= uprobe_dyn_is_busy,
	.free		= uprobe_dyn_free,
};

/* ---- tracefs: uprobe_events and uprobe_profile ---- */

/*
 * Both files list the uprobe events; they differ in what they print for
 * each and in what opening with O_TRUNC means.  The view is the inode's
 * private data and becomes the seq_file's.
 */
struct uprobe_list_view {
	int	(*show)(struct seq_file *m, struct dyn_event *ev);
	bool	clear_on_trunc;	/* "echo > FILE" removes every uprobe event */
};

static int uprobe_dyn_show_hits(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_uprobe *tu = to_trace_uprobe(ev);
	unsigned long hits = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		hits += *per_cpu_ptr(tu->nhits, cpu);

	seq_printf(m, "  %s %-44s %15lu\n", tu->filename,
		   trace_probe_name(&tu->tp), hits);
	return 0;
}

static struct uprobe_list_view uprobe_events_view = {
	.show		= uprobe_dyn_show,
	.clear_on_trunc	= true,
};

static struct uprobe_list_view uprobe_profile_view = {
	.show		= uprobe_dyn_show_hits,
};

static int uprobe_list_show(struct seq_file *m, void *v)
{
	struct uprobe_list_view *view = m->private;
	struct dyn_event *ev = v;

	return is_trace_uprobe(ev) ? view->show(m, ev) : 0;
}

static const struct seq_operations uprobe_list_seq_ops = {
	.start	= dyn_event_seq_start,
	.next	= dyn_event_seq_next,
	.stop	= dyn_event_seq_stop,
	.show	= uprobe_list_show,
};

static int uprobe_list_open(struct inode *inode, struct file *file)
{
	struct uprobe_list_view *view = inode->i_private;
	int ret;

	ret = security_locked_down(LOCKDOWN_TRACEFS);
	if (ret)
		return ret;

	/* All or nothing: -EBUSY, and no change, if one event is in use. */
	if (view->clear_on_trunc && (file->f_mode & FMODE_WRITE) &&
	    (file->f_flags & O_TRUNC)) {
		ret = dyn_events_release_all(&trace_uprobe_ops);
		if (ret)
			return ret;
	}

	ret = seq_open(file, &uprobe_list_seq_ops);
	if (!ret)
		((struct seq_file *)file->private_data)->private = view;
	return ret;
}

/**
 * uprobe_events_run - run one line written to uprobe_events
 * @cmd: a definition, or a removal ("-:[GRP/]EVENT [PATH:ADDR [ARGS]]")
 *
 * Context: process context, sleeps; takes dyn_event_ops_mutex (a
 * definition) or event_mutex (a removal) itself.
 * Return: 0 or a negative errno; a refused definition leaves an error_log
 * entry.
 */
VISIBLE_IF_KUNIT int uprobe_events_run(const char *cmd)
{
	if (cmd[0] == '-')
		return dyn_event_release(cmd, &trace_uprobe_ops);

	/* Nobody else may take the line here: parsed as final. */
	return trace_probe_create_locked(cmd, uprobe_events_create_argv);
}
EXPORT_SYMBOL_IF_KUNIT(uprobe_events_run);

static ssize_t uprobe_events_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	return trace_parse_run_command(file, ubuf, count, ppos,
				       uprobe_events_run);
}

static const struct file_operations uprobe_events_fops = {
	.open		= uprobe_list_open,
	.read		= seq_read,
	.write		= uprobe_events_write,
	.llseek		= seq_lseek,
	.release	= seq_release,
};

static const struct file_operations uprobe_profile_fops = {
	.open		= uprobe_list_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release,
};

static __init int init_uprobe_trace(void)
{
	int ret = dyn_event_register(&trace_uprobe_ops);

	if (ret)
		return ret;
	uprobe_event_batch_init();
	if (tracing_init_dentry())
		return 0;

	trace_create_file("uprobe_events", TRACE_MODE_WRITE, NULL,
			  &uprobe_events_view, &uprobe_events_fops);
	trace_create_file("uprobe_profile", TRACE_MODE_READ, NULL,
			  &uprobe_profile_view, &uprobe_profile_fops);
	return 0;
}
fs_initcall(init_uprobe_trace);
