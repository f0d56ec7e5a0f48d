// SPDX-License-Identifier: GPL-2.0
/*
 * Kprobe events: the ways in and out.
 *
 * dynamic_events reaches the layer through the dyn_event callbacks
 * (trace_kprobe_ops).  kprobe_events takes definition and removal lines
 * and lists the kprobe events; kprobe_profile lists their hits and
 * misses.  Kernel code defines and deletes kprobe events through the
 * dynevent API of include/linux/trace_events.h, and "kprobe_event="
 * defines events at boot and enables them.  The initcalls register the
 * dyn_event operations (core_initcall, so that other initcalls may define
 * kprobe events), the hook at the end of event batches, the module
 * notifier and the tracefs files.
 *
 * Locks: the dyn_event core calls show, match, is_busy, free and settle
 * with event_mutex held and create with dyn_event_ops_mutex held; the
 * listings hold event_mutex through the dyn_event seq_file iterator.
 * This file calls trace_kprobe_parse.c, trace_kprobe_register.c and
 * trace_kprobe.c.
 */
#define pr_fmt(fmt)	"trace_kprobe: " fmt

#include <kunit/visibility.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <asm/setup.h>		/* COMMAND_LINE_SIZE */

#include "trace_kprobe.h"

/* ---- dyn_event callbacks ---- */

/**
 * tk_dyn_show - the kprobe_events line of one probe
 * @m: the seq_file to print into
 * @ev: the probe's dyn_event (a kprobe event's)
 *
 * The dyn_event show callback, and the lines of kprobe_events.
 *
 * Context: event_mutex held.
 * Return: 0.
 */
VISIBLE_IF_KUNIT int tk_dyn_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_kprobe *tk = tk_of_dyn(ev);
	char site[MAX_ARGSTR_LEN + 1];
	int i;

	seq_putc(m, tk->is_return ? 'r' : 'p');
	if (tk->is_return && tk->rp.maxactive)
		seq_printf(m, "%d", tk->rp.maxactive);
	tk_format_site(tk, site, sizeof(site));
	seq_printf(m, ":%s/%s %s", trace_probe_group_name(&tk->tp),
		   trace_probe_name(&tk->tp), site);
	for (i = 0; i < tk->tp.nr_args; i++)
		seq_printf(m, " %s=%s", tk->tp.args[i].name,
			   tk->tp.args[i].comm);
	seq_putc(m, '\n');
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(tk_dyn_show);

/* Is @word the site of @tp as the listing shows it ("SYM+OFFS", "ADDR")? */
static bool tk_site_matches(struct trace_probe *tp, const char *word)
{
	char site[MAX_ARGSTR_LEN + 1];

	tk_format_site(container_of(tp, struct trace_kprobe, tp), site,
		       sizeof(site));
	return !strcmp(site, word);
}

static bool tk_dyn_match(const char *system, const char *event, int argc,
			 const char **argv, struct dyn_event *ev)
{
	return trace_probe_match_command(&tk_of_dyn(ev)->tp, system, event,
					 argc, argv, tk_site_matches);
}

static bool tk_dyn_is_busy(struct dyn_event *ev)
{
	return trace_probe_is_enabled(&tk_of_dyn(ev)->tp);
}

static int tk_dyn_free(struct dyn_event *ev)
{
	return tk_remove(tk_of_dyn(ev));
}

struct dyn_event_operations trace_kprobe_ops = {
	.create		= tk_dyn_create,
	.show		= tk_dyn_show,
	.is_busy	= tk_dyn_is_busy,
	.free		= tk_dyn_free,
	.match		= tk_dyn_match,
	.settle		= tk_reap,
};

/* ---- tracefs: kprobe_events and kprobe_profile ---- */

/* "  EVENT  HITS  MISSED", columns as in 6.12 */
static int tk_show_profile(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_kprobe *tk = tk_of_dyn(ev);

	seq_printf(m, "  %-44s %15lu %15lu\n", trace_probe_name(&tk->tp),
		   tk_hits(tk), tk_missed(tk));
	return 0;
}

/*
 * Both files list the kprobe events, each with its own line format; the
 * show function is the inode's private data and becomes the seq_file's.
 */
typedef int (*tk_show_fn)(struct seq_file *m, struct dyn_event *ev);

static int tk_list_show(struct seq_file *m, void *v)
{
	tk_show_fn show = m->private;
	struct dyn_event *ev = v;

	return tk_of_dyn(ev) ? show(m, ev) : 0;
}

static const struct seq_operations tk_list_seq_ops = {
	.start	= dyn_event_seq_start,
	.next	= dyn_event_seq_next,
	.stop	= dyn_event_seq_stop,
	.show	= tk_list_show,
};

static int tk_list_open(struct file *file, tk_show_fn show)
{
	int ret = seq_open(file, &tk_list_seq_ops);

	if (!ret)
		((struct seq_file *)file->private_data)->private = show;
	return ret;
}

static int tk_events_open(struct inode *inode, struct file *file)
{
	int ret;

	ret = security_locked_down(LOCKDOWN_TRACEFS);
	if (ret)
		return ret;

	/* "echo > kprobe_events": all or nothing, -EBUSY if one is in use */
	if ((file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC)) {
		mutex_lock(&event_mutex);
		ret = tk_remove_all();
		tracing_reset_all_online_cpus();
		mutex_unlock(&event_mutex);
		if (ret < 0)
			return ret;
	}
	return tk_list_open(file, tk_dyn_show);
}

/*
 * One removal batch for the whole write: the probes of its "-:" lines are
 * unregistered together, with one wait, when the lines have run (also
 * after a line that failed), before the write returns.
 */
static ssize_t tk_events_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	bool batched = dyn_event_batch_begin();
	ssize_t ret;

	ret = trace_parse_run_command(file, ubuf, count, ppos, tk_events_run);
	if (batched)
		dyn_event_batch_end();
	return ret;
}

static int tk_profile_open(struct inode *inode, struct file *file)
{
	int ret;

	ret = security_locked_down(LOCKDOWN_TRACEFS);
	if (ret)
		return ret;
	return tk_list_open(file, tk_show_profile);
}

static const struct file_operations tk_events_fops = {
	.owner		= THIS_MODULE,
	.open		= tk_events_open,
	.read		= seq_read,
	.write		= tk_events_write,
	.llseek		= seq_lseek,
	.release	= seq_release,
};

static const struct file_operations tk_profile_fops = {
	.owner		= THIS_MODULE,
	.open		= tk_profile_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release,
};

/* ---- In-kernel dynevent API (include/linux/trace_events.h) ---- */

static int tk_cmd_run(struct dynevent_cmd *cmd)
{
	return tk_events_run(cmd->seq.buffer);
}

/**
 * kprobe_event_cmd_init - prepare a command that defines a kprobe event
 * @cmd: the command object
 * @buf: buffer the command text is built in
 * @maxlen: size of @buf
 *
 * Call before __kprobe_event_gen_cmd_start() and __kprobe_event_add_fields();
 * kprobe_event_gen_cmd_end() then runs the command as a line written to
 * kprobe_events would be.
 *
 * Context: process context.
 */
void kprobe_event_cmd_init(struct dynevent_cmd *cmd, char *buf, int maxlen)
{
	dynevent_cmd_init(cmd, buf, maxlen, DYNEVENT_TYPE_KPROBE, tk_cmd_run);
}
EXPORT_SYMBOL_GPL(kprobe_event_cmd_init);

/* Append " @word" to @cmd. */
static int tk_cmd_add_word(struct dynevent_cmd *cmd, const char *word)
{
	struct dynevent_arg arg;

	dynevent_arg_init(&arg, 0);
	arg.str = word;
	return dynevent_arg_add(cmd, &arg, NULL);
}

/* Append the NULL-terminated list of fetch arguments @args to @cmd. */
static int tk_cmd_add_args(struct dynevent_cmd *cmd, va_list args)
{
	const char *field;
	int ret = 0;

	while (!ret && (field = va_arg(args, const char *))) {
		if (++cmd->n_fields > MAX_TRACE_ARGS)
			return -EINVAL;
		ret = tk_cmd_add_word(cmd, field);
	}
	return ret;
}

/**
 * __kprobe_event_gen_cmd_start - start the text of a kprobe event definition
 * @cmd: a command set up by kprobe_event_cmd_init()
 * @kretprobe: define a return probe ("r") instead of an entry probe ("p")
 * @name: event name; the event goes in the "kprobes" group
 * @loc: the probe point, as written in kprobe_events ("SYM[+OFFS]" ...)
 * @...: fetch arguments as strings, ending with NULL (the
 *	kprobe_event_gen_cmd_start() macros add the NULL)
 *
 * Only builds the text; kprobe_event_gen_cmd_end() runs it.
 *
 * Context: process context.
 * Return: 0; -EINVAL for a command of another kind, a NULL @loc, or more
 * than MAX_TRACE_ARGS arguments; -E2BIG when the buffer is full.
 */
int __kprobe_event_gen_cmd_start(struct dynevent_cmd *cmd, bool kretprobe,
				 const char *name, const char *loc, ...)
{
	char head[MAX_EVENT_NAME_LEN];
	va_list args;
	int ret;

	if (cmd->type != DYNEVENT_TYPE_KPROBE || !loc)
		return -EINVAL;

	snprintf(head, sizeof(head), "%c:%s/%s", kretprobe ? 'r' : 'p',
		 KPROBE_EVENT_SYSTEM, name);
	ret = dynevent_str_add(cmd, head) ?: tk_cmd_add_word(cmd, loc);
	if (ret)
		return ret;

	va_start(args, loc);
	ret = tk_cmd_add_args(cmd, args);
	va_end(args);
	return ret;
}
EXPORT_SYMBOL_GPL(__kprobe_event_gen_cmd_start);

/**
 * __kprobe_event_add_fields - append fetch arguments to a kprobe command
 * @cmd: a command started with __kprobe_event_gen_cmd_start()
 * @...: fetch arguments as strings, ending with NULL (the
 *	kprobe_event_add_fields() macro adds the NULL)
 *
 * Context: process context.
 * Return: 0; -EINVAL for a command of another kind or more than
 * MAX_TRACE_ARGS arguments in all; -E2BIG when the buffer is full.
 */
int __kprobe_event_add_fields(struct dynevent_cmd *cmd, ...)
{
	va_list args;
	int ret;

	if (cmd->type != DYNEVENT_TYPE_KPROBE)
		return -EINVAL;

	va_start(args, cmd);
	ret = tk_cmd_add_args(cmd, args);
	va_end(args);
	return ret;
}
EXPORT_SYMBOL_GPL(__kprobe_event_add_fields);

/**
 * kprobe_event_delete - remove a kprobe event
 * @name: the event's name, "EVENT" or "GROUP/EVENT"
 *
 * As "-:@name" written to kprobe_events: every probe of the event goes.
 *
 * Context: process context.
 * Return: 0, -ENOENT when there is no such event, -EBUSY when it is in use.
 */
int kprobe_event_delete(const char *name)
{
	char cmd[MAX_EVENT_NAME_LEN];

	snprintf(cmd, sizeof(cmd), "-:%s", name);
	return tk_events_run(cmd);
}
EXPORT_SYMBOL_GPL(kprobe_event_delete);

/* ---- Boot: kprobe_event= and the tracefs files ---- */

/* "kprobe_event=DEF[;DEF...]", with ',' for ' ' in each DEF */
static char tk_boot_defs[COMMAND_LINE_SIZE] __initdata;

static int __init tk_boot_param(char *str)
{
	strscpy(tk_boot_defs, str, sizeof(tk_boot_defs));
	/* the boot-time selftests would see the events fire */
	disable_tracing_selftest("running kprobe events");
	return 1;
}
__setup("kprobe_event=", tk_boot_param);

/* Define the boot-time events, then enable them in the top instance. */
static void __init tk_boot_setup(void)
{
	struct trace_array *tr = top_trace_array();
	char *next = tk_boot_defs, *def;
	struct trace_event_file *file;
	struct trace_kprobe *tk;
	struct dyn_event *pos;
	int ret;

	strreplace(tk_boot_defs, ',', ' ');
	while ((def = strsep(&next, ";"))) {
		if (!*def)
			continue;
		ret = tk_events_run(def);
		if (ret)
			pr_warn("kprobe_event=: \"%s\" refused: %d\n", def, ret);
	}

	if (!tr)
		return;
	guard(mutex)(&event_mutex);
	/* One batch: the call sites of all of them are armed at once. */
	trace_event_batch_begin();
	for_each_dyn_event(pos) {
		tk = tk_of_dyn(pos);
		if (!tk)
			continue;
		file = find_event_file(tr, trace_probe_group_name(&tk->tp),
				       trace_probe_name(&tk->tp));
		if (file)
			trace_event_enable_disable(file, 1, 0);
	}
	/* Those it could not arm are disabled again, named in error_log. */
	ret = trace_event_batch_end();
	if (ret)
		pr_warn("kprobe_event=: could not arm all (%d): see error_log\n",
			ret);
}

/* dyn_event ops early, so that other initcalls may define kprobe events */
static __init int tk_init_early(void)
{
	int ret = dyn_event_register(&trace_kprobe_ops);

	if (ret)
		return ret;
	tk_batch_init();
	return tk_watch_modules() ? -EINVAL : 0;
}
core_initcall(tk_init_early);

static __init int tk_init_tracefs(void)
{
	if (tracing_init_dentry())
		return 0;

	trace_create_file("kprobe_events", TRACE_MODE_WRITE, NULL, NULL,
			  &tk_events_fops);
	trace_create_file("kprobe_profile", TRACE_MODE_READ, NULL, NULL,
			  &tk_profile_fops);
	tk_boot_setup();
	return 0;
}
fs_initcall(tk_init_tracefs);
