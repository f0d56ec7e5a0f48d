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
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kstrtox.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "kretprobes_internal.h"

/* Addresses print as %px would: zero-padded hex, pointer wide. */
#define ADDR_DIGITS	((int)(2 * sizeof(void *)))

static void show_one(struct seq_file *m, struct kprobe *p, struct kprobe *top,
		     const char *sym, unsigned long offset, const char *modname)
{
	const char *type = kprobe_is_retprobe(p) ? "r" : "k";
	unsigned long addr = 0;

	if (kallsyms_show_value(m->file->f_cred))
		addr = (unsigned long)p->addr;
	if (sym)
		seq_printf(m, "%0*lx  %s  %s+0x%x  %s ", ADDR_DIGITS, addr, type,
			   sym, (unsigned int)offset, modname ? modname : " ");
	else	/* No symbol (its module is gone): %pS prints the address. */
		seq_printf(m, "%0*lx  %s  %pS ", ADDR_DIGITS, addr, type,
			   (void *)addr);

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

/*
 * The registry changes only under kprobe_mutex, held from ->start() to
 * ->stop(); a reader waiting for it can be interrupted.  ->stop() gets
 * an ERR_PTR only when ->start() failed to lock.
 */
static void *list_start(struct seq_file *m, loff_t *pos)
{
	if (mutex_lock_interruptible(&kprobe_mutex))
		return ERR_PTR(-EINTR);
	return seq_hlist_start(&kprobe_registry, *pos);
}

static void *list_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_hlist_next(v, &kprobe_registry, pos);
}

static void list_stop(struct seq_file *m, void *v)
{
	if (!IS_ERR(v))
		mutex_unlock(&kprobe_mutex);
}

static const struct seq_operations kprobes_list_sops = {
	.start = list_start, .next = list_next,
	.stop = list_stop, .show = list_show,
};
DEFINE_SEQ_ATTRIBUTE(kprobes_list);

/* The same for the blacklist and its own mutex. */
static void *blacklist_start(struct seq_file *m, loff_t *pos)
{
	if (mutex_lock_interruptible(&kprobe_blacklist_mutex))
		return ERR_PTR(-EINTR);
	return seq_list_start(&kprobe_blacklist, *pos);
}

static void blacklist_stop(struct seq_file *m, void *v)
{
	if (!IS_ERR(v))
		mutex_unlock(&kprobe_blacklist_mutex);
}

static void *blacklist_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, &kprobe_blacklist, pos);
}

static int blacklist_show(struct seq_file *m, void *v)
{
	struct kprobe_blacklist_entry *ent =
		list_entry(v, struct kprobe_blacklist_entry, list);
	unsigned long start = 0, end = 0;

	/* The name is always shown; the range only as kallsyms would. */
	if (kallsyms_show_value(m->file->f_cred)) {
		start = ent->start_addr;
		end = ent->end_addr;
	}
	seq_printf(m, "0x%0*lx-0x%0*lx\t%ps\n", ADDR_DIGITS, start,
		   ADDR_DIGITS, end, (void *)ent->start_addr);
	return 0;
}

static const struct seq_operations kprobes_blacklist_sops = {
	.start = blacklist_start, .next = blacklist_next,
	.stop = blacklist_stop, .show = blacklist_show,
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

	/* 1/0, y/n, on/off, as any debugfs boolean. */
	ret = kstrtobool_from_user(buf, count, &enable);
	if (!ret)
		ret = enable ? kprobes_arm_all() : kprobes_disarm_all();
	return ret ?: count;
}

static const struct file_operations kprobes_enabled_fops = {
	.read	= enabled_read,
	.write	= enabled_write,
	.llseek	= default_llseek,
};

static int __init kprobes_debugfs_init(void)
{
	static const struct {
		const char *name;
		umode_t mode;
		const struct file_operations *fops;
	} files[] = {
		{ "list",	0400, &kprobes_list_fops },
		{ "enabled",	0600, &kprobes_enabled_fops },
		{ "blacklist",	0400, &kprobes_blacklist_fops },
	};
	struct dentry *dir = debugfs_create_dir("kprobes", NULL);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(files); i++)
		debugfs_create_file(files[i].name, files[i].mode, dir, NULL,
				    files[i].fops);
	return 0;
}
late_initcall(kprobes_debugfs_init);
