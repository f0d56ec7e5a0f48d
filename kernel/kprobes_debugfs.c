// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/kprobes/: what kprobes holds, for root.
 *
 *   list       one line per registered probe (children of an aggregate
 *              one by one):
 *                "ADDR  TYPE  SYMBOL+0xOFF  MODULE FLAGS" or, without a
 *                symbol, "ADDR  TYPE  %pS FLAGS"; TYPE k (kprobe) or r
 *                (kretprobe); FLAGS [GONE] [DISABLED] [OPTIMIZED]
 *                [FTRACE], the last two those of the top probe
 *   enabled    "1" or "0"; writing a boolean arms or disarms every probe
 *   blacklist  "0xSTART-0xEND\tSYMBOL" per blacklisted function
 *
 * Who may call: the files are root's (0400, 0600), but debugfs may be
 * opened up, so addresses are shown only to readers kallsyms would show
 * them to (kallsyms_show_value() of the opener's credentials), as
 * /proc/kallsyms does.  Nothing here touches user memory under a lock:
 * seq_file copies out after ->stop() has dropped it.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "kprobes_internal.h"

static void show_one(struct seq_file *m, struct kprobe *p, struct kprobe *top,
		     const char *sym, unsigned long offset, const char *modname)
{
	void *addr = kallsyms_show_value(m->file->f_cred) ? p->addr : NULL;
	const char *type = kprobe_is_retprobe(p) ? "r" : "k";

	if (sym)
		seq_printf(m, "%px  %s  %s+0x%x  %s ", addr, type, sym,
			   (unsigned int)offset, modname ? modname : " ");
	else
		seq_printf(m, "%px  %s  %pS ", addr, type, p->addr);

	seq_printf(m, "%s%s%s%s\n",
		   kprobe_gone(p) ? "[GONE]" : "",
		   kprobe_disabled(p) && !kprobe_gone(p) ? "[DISABLED]" : "",
		   kprobe_optimized(top) ? "[OPTIMIZED]" : "",
		   kprobe_ftrace(top) ? "[FTRACE]" : "");
}

static int list_show(struct seq_file *m, void *v)
{
	struct kprobe *top = hlist_entry(v, struct kprobe, hlist);
	char *modname, name[KSYM_NAME_LEN];
	unsigned long offset = 0;
	const char *sym;
	struct kprobe *kp;

	sym = kallsyms_lookup((unsigned long)top->addr, NULL, &offset,
			      &modname, name);
	if (!kprobe_is_aggr(top)) {
		show_one(m, top, top, sym, offset, modname);
		return 0;
	}
	list_for_each_entry(kp, &top->list, list)
		show_one(m, kp, top, sym, offset, modname);
	return 0;
}

/* The registry changes only under kprobe_mutex, held from start to stop. */
static void *list_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&kprobe_mutex);
	return seq_hlist_start(&kprobe_registry, *pos);
}

static void *list_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_hlist_next(v, &kprobe_registry, pos);
}

static void list_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&kprobe_mutex);
}

static const struct seq_operations kprobes_list_sops = {
	.start	= list_start,
	.next	= list_next,
	.stop	= list_stop,
	.show	= list_show,
};
DEFINE_SEQ_ATTRIBUTE(kprobes_list);

static void *blacklist_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&kprobe_blacklist_mutex);
	return seq_list_start(&kprobe_blacklist, *pos);
}

static void *blacklist_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, &kprobe_blacklist, pos);
}

static void blacklist_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&kprobe_blacklist_mutex);
}

static int blacklist_show(struct seq_file *m, void *v)
{
	struct kprobe_blacklist_entry *ent =
		list_entry(v, struct kprobe_blacklist_entry, list);
	void *start = (void *)ent->start_addr;
	void *end = (void *)ent->end_addr;

	/* The name is always shown; the range only as kallsyms would. */
	if (!kallsyms_show_value(m->file->f_cred))
		start = end = NULL;
	seq_printf(m, "0x%px-0x%px\t%ps\n", start, end,
		   (void *)ent->start_addr);
	return 0;
}

static const struct seq_operations kprobes_blacklist_sops = {
	.start	= blacklist_start,
	.next	= blacklist_next,
	.stop	= blacklist_stop,
	.show	= blacklist_show,
};
DEFINE_SEQ_ATTRIBUTE(kprobes_blacklist);

static ssize_t enabled_read(struct file *file, char __user *buf,
			    size_t count, loff_t *ppos)
{
	const char *state = READ_ONCE(kprobes_all_disarmed) ? "0\n" : "1\n";

	return simple_read_from_buffer(buf, count, ppos, state, 2);
}

static ssize_t enabled_write(struct file *file, const char __user *buf,
			     size_t count, loff_t *ppos)
{
	bool enable;
	int ret;

	ret = kstrtobool_from_user(buf, count, &enable);
	if (ret)
		return ret;
	ret = enable ? kprobes_arm_all() : kprobes_disarm_all();
	return ret ? ret : count;
}

static const struct file_operations kprobes_enabled_fops = {
	.read	= enabled_read,
	.write	= enabled_write,
	.llseek	= default_llseek,
};

static int __init kprobes_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("kprobes", NULL);

	debugfs_create_file("list", 0400, dir, NULL, &kprobes_list_fops);
	debugfs_create_file("enabled", 0600, dir, NULL, &kprobes_enabled_fops);
	debugfs_create_file("blacklist", 0400, dir, NULL,
			    &kprobes_blacklist_fops);
	return 0;
}
late_initcall(kprobes_debugfs_init);
