// SPDX-License-Identifier: GPL-2.0
/*
 * wb_kprobe_bench: costs of the kprobes core itself, timed inside the
 * kernel with ktime_get_ns() (guest instructions under QEMU's icount):
 *
 *  - a kprobe hit in the middle of a function: a probe with a pre_handler
 *    only (which x86 turns into a jump once the optimizer has run) or with
 *    a pre_handler and a post_handler (never optimized), on
 *    wb_kpb_target() of this module;
 *  - register_kprobes() and unregister_kprobes() of many probes, on
 *    functions the guest script names (kallsyms_lookup_name() is not
 *    exported, so the module cannot pick them itself).
 *
 * Built against both kernels of the workbench with nothing but the API of
 * <linux/kprobes.h>.  It stays loaded and is driven through
 * /sys/kernel/debug/wb_kprobe_bench/:
 *
 *   names   append function names, separated by newlines or blanks; a
 *           name may be split across two writes
 *   ctl     one command a write; the write fails with the command's error:
 *             find         pick the mid-function place (below)
 *             arm pre      register a kprobe there with a pre_handler
 *             arm post     the same with a pre_handler and a post_handler
 *             disarm       unregister it
 *             time N       time N calls of wb_kpb_target(): last_ps, hits
 *             keep N       try the names in order, each registered alone
 *                          and disabled (untimed), until N were accepted on
 *                          distinct addresses; unregister them in one call
 *             keepmid N    the same, but each probe goes on the first
 *                          offset from 1 on that takes a breakpoint probe
 *                          (not a call site) with a post_handler: after
 *                          the call site, an instruction of the body
 *                          (the post_handler keeps x86's optimizer off)
 *             register     register_kprobes() of the kept names, armed,
 *                          in one call: register_ns
 *             unregister   unregister_kprobes() of them: unregister_ns
 *             crowd        register_kprobes() of the kept names, disabled
 *                          (untimed): a table full of probes that never
 *                          fire, for the hit rows to be timed against
 *             uncrowd      unregister them
 *             clear        forget the names and the kept probes
 *   result  "key value" lines, the figures of the last commands
 *   kept    the kept names, one a line, in the order registered
 *
 * The mid-function place: the second offset from wb_kpb_target()'s start
 * (1 to WB_KPB_MAX_OFF) where register_kprobe() accepts a probe that is
 * not on the function-hook call site (KPROBE_FLAG_FTRACE), sits where it
 * was asked to, and is hit once by every call (checked with a test loop).
 * Offsets inside an instruction are refused by the core, so the places
 * are instruction boundaries; the second one has at least one instruction
 * of the body before it.  The body is straight-line code, so every call
 * runs every instruction.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define WB_KPB_MAX_OFF		32	/* offsets tried by "find" */
#define WB_KPB_MID_NTH		2	/* the place "find" keeps */
#define WB_KPB_FIND_CALLS	100	/* calls of the test loop */
#define WB_KPB_MAX_CALLS	10000000UL
#define WB_KPB_MAX_NAMES	200000U
#define WB_KPB_CHUNK		4096

/*
 * The probed function.  noipa: no clone under another name and no
 * inlining; each OPTIMIZER_HIDE_VAR() ends a step, so the steps stay
 * separate instructions in this order.
 */
static __attribute__((__noipa__)) unsigned long wb_kpb_target(unsigned long x)
{
	unsigned long y = x * 3 + 1;

	OPTIMIZER_HIDE_VAR(y);
	y ^= y >> 7;
	OPTIMIZER_HIDE_VAR(y);
	y += x << 2;
	OPTIMIZER_HIDE_VAR(y);
	return y ^ 0x5a5a;
}

static DEFINE_MUTEX(wb_kpb_lock);	/* every file and command */
static struct dentry *wb_kpb_dir;

/* --- the mid-function probe --- */

static struct kprobe wb_kpb_mid;
static bool wb_kpb_mid_armed;
static unsigned int wb_kpb_mid_off;
static unsigned long wb_kpb_mid_hits;	/* only the timing loop calls */

/* Figures for the result file. */
static u64 wb_kpb_last_ps;
static unsigned long wb_kpb_last_hits;

static notrace int wb_kpb_mid_pre(struct kprobe *p, struct pt_regs *regs)
{
	wb_kpb_mid_hits++;
	return 0;
}

static notrace void wb_kpb_mid_post(struct kprobe *p, struct pt_regs *regs,
				    unsigned long flags)
{
}

/* @n calls of the target; the time they took, in ns. */
static notrace u64 wb_kpb_calls(unsigned long n)
{
	unsigned long i, acc = 0;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i++)
		acc += wb_kpb_target(i);
	OPTIMIZER_HIDE_VAR(acc);
	return ktime_get_ns() - t0;
}

/* Describe a probe at @off in the target afresh (the core kept nothing). */
static void wb_kpb_mid_describe(unsigned int off, bool post)
{
	memset(&wb_kpb_mid, 0, sizeof(wb_kpb_mid));
	wb_kpb_mid.addr = (kprobe_opcode_t *)((unsigned long)wb_kpb_target +
					      off);
	wb_kpb_mid.pre_handler = wb_kpb_mid_pre;
	if (post)
		wb_kpb_mid.post_handler = wb_kpb_mid_post;
}

/* Is the probe just registered at @off a mid-function place? */
static bool wb_kpb_mid_usable(unsigned int off)
{
	unsigned long want = (unsigned long)wb_kpb_target + off;

	if ((wb_kpb_mid.flags & KPROBE_FLAG_FTRACE) ||
	    (unsigned long)wb_kpb_mid.addr != want)
		return false;
	wb_kpb_mid_hits = 0;
	wb_kpb_calls(WB_KPB_FIND_CALLS);
	return wb_kpb_mid_hits == WB_KPB_FIND_CALLS;
}

static int wb_kpb_find(void)
{
	unsigned int off, found = 0;
	bool usable;

	if (wb_kpb_mid_armed)
		return -EBUSY;
	wb_kpb_mid_off = 0;
	for (off = 1; off <= WB_KPB_MAX_OFF; off++) {
		wb_kpb_mid_describe(off, false);
		if (register_kprobe(&wb_kpb_mid))
			continue;	/* not a boundary, or refused */
		usable = wb_kpb_mid_usable(off);
		unregister_kprobe(&wb_kpb_mid);
		if (usable && ++found == WB_KPB_MID_NTH) {
			wb_kpb_mid_off = off;
			return 0;
		}
	}
	return -ENOENT;
}

static int wb_kpb_arm(const char *how)
{
	bool post = !strcmp(how, "post");
	int err;

	if (!post && strcmp(how, "pre"))
		return -EINVAL;
	if (!wb_kpb_mid_off)
		return -ENOENT;		/* no "find" yet */
	if (wb_kpb_mid_armed)
		return -EBUSY;
	wb_kpb_mid_describe(wb_kpb_mid_off, post);
	err = register_kprobe(&wb_kpb_mid);
	if (!err)
		wb_kpb_mid_armed = true;
	return err;
}

static int wb_kpb_disarm(void)
{
	if (!wb_kpb_mid_armed)
		return -ENOENT;
	unregister_kprobe(&wb_kpb_mid);
	wb_kpb_mid_armed = false;
	return 0;
}

static int wb_kpb_time(unsigned long n)
{
	u64 ns;

	wb_kpb_mid_hits = 0;
	ns = wb_kpb_calls(n);
	wb_kpb_last_hits = wb_kpb_mid_hits;
	wb_kpb_last_ps = div64_u64(ns * 1000, n);
	return 0;
}

/* --- many probes at once --- */

/* The names handed in, and the one being written. */
static char **wb_kpb_names;
static unsigned int wb_kpb_nr_names, wb_kpb_names_cap;
static char wb_kpb_partial[KSYM_NAME_LEN];
static unsigned int wb_kpb_partial_len;

struct wb_kpb_bulk {
	struct kprobe kp;
	struct hlist_node node;		/* in wb_kpb_addrs, by address */
	const char *name;		/* one of wb_kpb_names */
	unsigned int off;		/* "keepmid": the probe's offset */
};

static struct wb_kpb_bulk *wb_kpb_bulk;
static struct kprobe **wb_kpb_bulk_kps;
static unsigned int wb_kpb_kept, wb_kpb_tried, wb_kpb_refused, wb_kpb_dups;
static bool wb_kpb_bulk_registered;
static atomic_long_t wb_kpb_bulk_hits;
static DEFINE_HASHTABLE(wb_kpb_addrs, 12);

static u64 wb_kpb_register_ns, wb_kpb_unregister_ns;
static int wb_kpb_register_err;

static notrace int wb_kpb_bulk_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&wb_kpb_bulk_hits);
	return 0;
}

static notrace void wb_kpb_bulk_post(struct kprobe *p, struct pt_regs *regs,
				     unsigned long flags)
{
}

static int wb_kpb_add_name(void)
{
	char *name;

	if (wb_kpb_nr_names == WB_KPB_MAX_NAMES)
		return -ENOSPC;
	if (wb_kpb_nr_names == wb_kpb_names_cap) {
		unsigned int cap = max(1024U, wb_kpb_names_cap * 2);
		char **names = kvmalloc_array(cap, sizeof(*names),
					      GFP_KERNEL_ACCOUNT);

		if (!names)
			return -ENOMEM;
		if (wb_kpb_nr_names)
			memcpy(names, wb_kpb_names,
			       wb_kpb_nr_names * sizeof(*names));
		kvfree(wb_kpb_names);
		wb_kpb_names = names;
		wb_kpb_names_cap = cap;
	}
	name = kmemdup_nul(wb_kpb_partial, wb_kpb_partial_len,
			   GFP_KERNEL_ACCOUNT);
	if (!name)
		return -ENOMEM;
	wb_kpb_names[wb_kpb_nr_names++] = name;
	wb_kpb_partial_len = 0;
	return 0;
}

/* One more character of the names file. */
static int wb_kpb_name_char(char c)
{
	if (c == '\n' || c == ' ' || c == '\t' || c == '\r')
		return wb_kpb_partial_len ? wb_kpb_add_name() : 0;
	if (c == '\0')
		return -EINVAL;
	if (wb_kpb_partial_len == sizeof(wb_kpb_partial) - 1)
		return -ENAMETOOLONG;
	wb_kpb_partial[wb_kpb_partial_len++] = c;
	return 0;
}

/* Forget the kept probes (none registered). */
static void wb_kpb_drop_bulk(void)
{
	hash_init(wb_kpb_addrs);
	kvfree(wb_kpb_bulk);
	kvfree(wb_kpb_bulk_kps);
	wb_kpb_bulk = NULL;
	wb_kpb_bulk_kps = NULL;
	wb_kpb_kept = 0;
}

static int wb_kpb_clear(void)
{
	unsigned int i;

	if (wb_kpb_bulk_registered)
		return -EBUSY;
	wb_kpb_drop_bulk();
	for (i = 0; i < wb_kpb_nr_names; i++)
		kfree(wb_kpb_names[i]);
	kvfree(wb_kpb_names);
	wb_kpb_names = NULL;
	wb_kpb_nr_names = 0;
	wb_kpb_names_cap = 0;
	wb_kpb_partial_len = 0;
	wb_kpb_tried = 0;
	wb_kpb_refused = 0;
	wb_kpb_dups = 0;
	return 0;
}

/* Describe kept probe @b afresh; @disabled: register it disarmed. */
static void wb_kpb_bulk_describe(struct wb_kpb_bulk *b, bool disabled)
{
	memset(&b->kp, 0, sizeof(b->kp));
	b->kp.symbol_name = b->name;
	b->kp.offset = b->off;
	b->kp.pre_handler = wb_kpb_bulk_pre;
	if (b->off)
		b->kp.post_handler = wb_kpb_bulk_post;
	if (disabled)
		b->kp.flags = KPROBE_FLAG_DISABLED;
}

static bool wb_kpb_addr_kept(kprobe_opcode_t *addr)
{
	struct wb_kpb_bulk *b;

	hash_for_each_possible(wb_kpb_addrs, b, node, (unsigned long)addr) {
		if (b->kp.addr == addr)
			return true;
	}
	return false;
}

/*
 * Register @b alone and disabled: at its function's entry, or with @mid
 * at the first offset that takes a breakpoint probe.  0 or an error.
 */
static int wb_kpb_try(struct wb_kpb_bulk *b, bool mid)
{
	unsigned int off;

	b->off = 0;
	if (!mid) {
		wb_kpb_bulk_describe(b, true);
		return register_kprobe(&b->kp);
	}
	for (off = 1; off <= WB_KPB_MAX_OFF; off++) {
		b->off = off;
		wb_kpb_bulk_describe(b, true);
		if (register_kprobe(&b->kp))
			continue;	/* not a boundary, or refused */
		if (!(b->kp.flags & KPROBE_FLAG_FTRACE))
			return 0;
		unregister_kprobe(&b->kp);
	}
	b->off = 0;
	return -ENOENT;
}

/*
 * Register the names in order, each alone and disabled (nothing is
 * patched), until @n were accepted on addresses not taken yet (two
 * names of one function, or one alias, would make an aggregate, not
 * two probes); then unregister the kept ones in one call, which waits
 * once.  What the core refused stays out.  @mid: "keepmid".
 */
static int wb_kpb_keep(unsigned long n, bool mid)
{
	struct wb_kpb_bulk *b;
	unsigned int i;
	int err = 0;

	if (wb_kpb_bulk_registered)
		return -EBUSY;
	if (wb_kpb_partial_len) {
		err = wb_kpb_add_name();
		if (err)
			return err;
	}
	wb_kpb_drop_bulk();
	wb_kpb_tried = wb_kpb_refused = wb_kpb_dups = 0;
	n = min_t(unsigned long, n, wb_kpb_nr_names);
	if (!n)
		return -ENOENT;
	wb_kpb_bulk = kvcalloc(n, sizeof(*wb_kpb_bulk), GFP_KERNEL_ACCOUNT);
	wb_kpb_bulk_kps = kvcalloc(n, sizeof(*wb_kpb_bulk_kps),
				   GFP_KERNEL_ACCOUNT);
	if (!wb_kpb_bulk || !wb_kpb_bulk_kps) {
		wb_kpb_drop_bulk();
		return -ENOMEM;
	}

	for (i = 0; i < wb_kpb_nr_names && wb_kpb_kept < n; i++) {
		b = &wb_kpb_bulk[wb_kpb_kept];
		b->name = wb_kpb_names[i];
		wb_kpb_tried++;
		if (wb_kpb_try(b, mid)) {
			wb_kpb_refused++;
		} else if (wb_kpb_addr_kept(b->kp.addr)) {
			unregister_kprobe(&b->kp);
			wb_kpb_dups++;
		} else {
			hash_add(wb_kpb_addrs, &b->node,
				 (unsigned long)b->kp.addr);
			wb_kpb_bulk_kps[wb_kpb_kept++] = &b->kp;
		}
		if (!(wb_kpb_tried % 1000))
			pr_info("wb_kprobe_bench: tried %u names, kept %u\n",
				wb_kpb_tried, wb_kpb_kept);
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		cond_resched();
	}
	if (wb_kpb_kept)
		unregister_kprobes(wb_kpb_bulk_kps, wb_kpb_kept);
	pr_info("wb_kprobe_bench: kept %u of %u names (%u refused, %u on a kept address)\n",
		wb_kpb_kept, wb_kpb_tried, wb_kpb_refused, wb_kpb_dups);
	return err;
}

/*
 * register_kprobes() of the kept names in one call: armed and timed
 * (register_ns), or @disabled and untimed ("crowd").
 */
static int wb_kpb_register(bool disabled)
{
	unsigned int i;
	u64 t0;
	int err;

	if (wb_kpb_bulk_registered)
		return -EBUSY;
	if (!wb_kpb_kept)
		return -ENOENT;		/* no "keep" yet */
	for (i = 0; i < wb_kpb_kept; i++)
		wb_kpb_bulk_describe(&wb_kpb_bulk[i], disabled);
	atomic_long_set(&wb_kpb_bulk_hits, 0);
	t0 = ktime_get_ns();
	err = register_kprobes(wb_kpb_bulk_kps, wb_kpb_kept);
	if (!disabled)
		wb_kpb_register_ns = ktime_get_ns() - t0;
	wb_kpb_register_err = err;
	if (!err)
		wb_kpb_bulk_registered = true;
	return err;
}

static int wb_kpb_unregister(void)
{
	u64 t0;

	if (!wb_kpb_bulk_registered)
		return -ENOENT;
	t0 = ktime_get_ns();
	unregister_kprobes(wb_kpb_bulk_kps, wb_kpb_kept);
	wb_kpb_unregister_ns = ktime_get_ns() - t0;
	wb_kpb_bulk_registered = false;
	return 0;
}

/* --- the files --- */

static ssize_t wb_kpb_names_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	size_t done = 0, len, i;
	char *buf;
	int err = 0;

	buf = kmalloc(WB_KPB_CHUNK, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&wb_kpb_lock);
	while (done < count && !err) {
		len = min_t(size_t, count - done, WB_KPB_CHUNK);
		if (copy_from_user(buf, ubuf + done, len)) {
			err = -EFAULT;
			break;
		}
		for (i = 0; i < len && !err; i++)
			err = wb_kpb_name_char(buf[i]);
		done += len;
	}
	mutex_unlock(&wb_kpb_lock);
	kfree(buf);
	return err ? err : count;
}

static const struct file_operations wb_kpb_names_fops = {
	.owner	= THIS_MODULE,
	.write	= wb_kpb_names_write,
	.llseek	= noop_llseek,
};

/* "time N" and "keep N": N in 1..@max. */
static int wb_kpb_count_arg(const char *arg, unsigned long max,
			    unsigned long *n)
{
	int err = kstrtoul(arg, 0, n);

	if (err)
		return err;
	return *n && *n <= max ? 0 : -EINVAL;
}

static int wb_kpb_command(const char *cmd, const char *arg)
{
	unsigned long n;
	int err;

	if (!strcmp(cmd, "find"))
		return wb_kpb_find();
	if (!strcmp(cmd, "arm"))
		return wb_kpb_arm(arg);
	if (!strcmp(cmd, "disarm"))
		return wb_kpb_disarm();
	if (!strcmp(cmd, "time")) {
		err = wb_kpb_count_arg(arg, WB_KPB_MAX_CALLS, &n);
		return err ? err : wb_kpb_time(n);
	}
	if (!strcmp(cmd, "keep") || !strcmp(cmd, "keepmid")) {
		err = wb_kpb_count_arg(arg, WB_KPB_MAX_NAMES, &n);
		return err ? err : wb_kpb_keep(n, !strcmp(cmd, "keepmid"));
	}
	if (!strcmp(cmd, "register") || !strcmp(cmd, "crowd"))
		return wb_kpb_register(!strcmp(cmd, "crowd"));
	if (!strcmp(cmd, "unregister") || !strcmp(cmd, "uncrowd"))
		return wb_kpb_unregister();
	if (!strcmp(cmd, "clear"))
		return wb_kpb_clear();
	return -EINVAL;
}

static ssize_t wb_kpb_ctl_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char buf[32], *cmd, *rest;
	const char *arg;
	int err;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	rest = strim(buf);
	cmd = strsep(&rest, " ");
	arg = rest ? skip_spaces(rest) : "";

	mutex_lock(&wb_kpb_lock);
	err = wb_kpb_command(cmd, arg);
	mutex_unlock(&wb_kpb_lock);
	return err ? err : count;
}

static const struct file_operations wb_kpb_ctl_fops = {
	.owner	= THIS_MODULE,
	.write	= wb_kpb_ctl_write,
	.llseek	= noop_llseek,
};

static int wb_kpb_result_show(struct seq_file *m, void *v)
{
	mutex_lock(&wb_kpb_lock);
	seq_printf(m, "mid_offset 0x%x\n", wb_kpb_mid_off);
	seq_printf(m, "mid_armed %d\n", wb_kpb_mid_armed);
	seq_printf(m, "last_ps %llu\n", wb_kpb_last_ps);
	seq_printf(m, "hits %lu\n", wb_kpb_last_hits);
	seq_printf(m, "names %u\n", wb_kpb_nr_names);
	seq_printf(m, "tried %u\n", wb_kpb_tried);
	seq_printf(m, "kept %u\n", wb_kpb_kept);
	seq_printf(m, "refused %u\n", wb_kpb_refused);
	seq_printf(m, "dups %u\n", wb_kpb_dups);
	seq_printf(m, "registered %d\n", wb_kpb_bulk_registered);
	seq_printf(m, "register_err %d\n", wb_kpb_register_err);
	seq_printf(m, "register_ns %llu\n", wb_kpb_register_ns);
	seq_printf(m, "unregister_ns %llu\n", wb_kpb_unregister_ns);
	seq_printf(m, "bulk_hits %ld\n", atomic_long_read(&wb_kpb_bulk_hits));
	mutex_unlock(&wb_kpb_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(wb_kpb_result);

static int wb_kpb_kept_show(struct seq_file *m, void *v)
{
	unsigned int i;

	mutex_lock(&wb_kpb_lock);
	for (i = 0; i < wb_kpb_kept; i++)
		seq_printf(m, "%s\n", wb_kpb_bulk[i].name);
	mutex_unlock(&wb_kpb_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(wb_kpb_kept);

static int __init wb_kprobe_bench_init(void)
{
	wb_kpb_dir = debugfs_create_dir("wb_kprobe_bench", NULL);
	if (IS_ERR(wb_kpb_dir))
		return PTR_ERR(wb_kpb_dir);
	debugfs_create_file("names", 0200, wb_kpb_dir, NULL,
			    &wb_kpb_names_fops);
	debugfs_create_file("ctl", 0200, wb_kpb_dir, NULL, &wb_kpb_ctl_fops);
	debugfs_create_file("result", 0400, wb_kpb_dir, NULL,
			    &wb_kpb_result_fops);
	debugfs_create_file("kept", 0400, wb_kpb_dir, NULL,
			    &wb_kpb_kept_fops);
	return 0;
}
module_init(wb_kprobe_bench_init);

static void __exit wb_kprobe_bench_exit(void)
{
	/* No command runs once the files are gone. */
	debugfs_remove(wb_kpb_dir);
	if (wb_kpb_mid_armed)
		wb_kpb_disarm();
	if (wb_kpb_bulk_registered)
		wb_kpb_unregister();
	wb_kpb_clear();
}
module_exit(wb_kprobe_bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kprobe hits in mid-function and many kprobes registered at once");
