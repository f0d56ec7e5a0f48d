// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "kprobes_core": the kprobes API of <linux/kprobes.h> as its
 * callers rely on it, with exact values: which registrations are refused
 * and with which errno, what a handler sees and in which order handlers
 * run, several probes on one address, a pre_handler that sends the call
 * elsewhere, hits that count as missed, kretprobes and their entry data,
 * the register_kprobes() arrays (all or nothing, batches of many
 * call-site and breakpoint probes that each run once per call, and
 * batches large enough that the core looks their names up in one walk of
 * kallsyms, compared with the lookup one by one), the
 * debugfs files (the lines of kprobes/list, GONE and OPTIMIZED ones too,
 * those of kprobes/blacklist, and kprobes/enabled disarming everything)
 * and the debug.kprobes-optimization sysctl.
 *
 * It passes on 6.12's kernel/kprobes.c, and a core that replaces it must
 * pass it too; the two name-walk cases call our core's own functions
 * and are left out where its headers are not there.
 * lib/test_kprobes.c (KPROBES_SANITY_TEST) checks that the handlers run
 * at all; kernel/trace/kprobe_ftrace_kunit.c checks the frames handlers
 * see on a call site.  This suite checks the contract around them.
 *
 * Targets: the kpc_*() functions below.  Each has its own result formula
 * and run counter, so the compiler neither merges two of them nor folds a
 * call, and each is called only through kpc_fns, with READ_ONCE(), by
 * one case at a time: every count is exact.  kpc_target() and
 * kpc_recurse() have call sites when the function tracer is on (kernel/
 * is built with them); kpc_plain() and kpc_sleeper() are notrace, so a
 * probe on their entry is a breakpoint, as is one in the middle of
 * kpc_target().  kpc_forbidden() is on the kprobe blacklist, and so are
 * kpc_kprobes_text() and kpc_noinstr() by their sections.
 * kpc_init_target() is init text, never called.
 *
 * Every kprobe of the suite has a post_handler, so none is ever optimized
 * and each unregistration takes its probe out of the hash table at once;
 * only the jump optimization cases, on kpc_jumpable(), leave it out.
 * What get_kprobe() finds for a lone probe is the probe itself or, where
 * the arch could have optimized it, a probe standing for it alone: the
 * cases accept either (kpc_alone_at()) and check that kprobe_running() in
 * a handler is whatever get_kprobe() finds.
 *
 * The two facts that differ between architectures, the pc a breakpoint
 * shows a pre_handler and the errno of an address inside an instruction,
 * come from <asm/trace_kunit.h>; where an architecture has no such header
 * they are not checked.
 *
 * Lifetime: probes live in kunit_kzalloc() memory with an action that
 * unregisters them if the case left them registered, so a failed
 * assertion leaves nothing armed; a helper thread is stopped before its
 * probe goes.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/mount.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <asm/sections.h>
#ifdef CONFIG_HAVE_ARCH_TRACE_KUNIT
#include <asm/trace_kunit.h>
#endif
#ifdef CONFIG_KRETPROBE_ON_FGRAPH
/* fgraph_is_hook(): the return trampolines a hooked slot may hold. */
#include "trace/fgraph_frame.h"
#endif
/*
 * The core's switch of every probe (debugfs "enabled"; its file takes no
 * kernel writes).  The series adds this suite before our core: without
 * the header, the case that needs it is left out.
 */
#if __has_include("kprobes_arm.h")
#include "kprobes_arm.h"
#define KPC_HAS_ARM_ALL		1
#endif
/*
 * The core's one walk of kallsyms for a batch's names, and its lookup of
 * one name: the name-walk cases compare the two.
 */
#if __has_include("kprobes_place.h")
#include "kallsyms_internal.h"
#include "kprobes_place.h"
#define KPC_HAS_NAME_WALK	1
#endif

#ifdef CONFIG_HAVE_ARCH_TRACE_KUNIT
#define KPC_KNOWS_ARCH		true
#define KPC_TRAP_IP(addr)	TRACE_KUNIT_TRAP_IP(addr)
#define KPC_INSIDE_INSN_ERR	TRACE_KUNIT_KPROBE_INSIDE_INSN_ERR
#else
#define KPC_KNOWS_ARCH		false
#define KPC_TRAP_IP(addr)	(addr)
#define KPC_INSIDE_INSN_ERR	0
#endif

/* Calls a case makes where it only counts; the logs below spell out 5. */
#define KPC_CALLS		5
/* Handler calls the log keeps. */
#define KPC_LOG_LEN		64
/* Entries of a stack trace taken in a return handler. */
#define KPC_STACK_LEN		32
/* Returns a kretprobe records. */
#define KPC_RET_SEEN		8
/* How long a case waits for its helper thread. */
#define KPC_WAIT		(30 * HZ)
/* Room for kprobes/list and for one line of it. */
#define KPC_LIST_SIZE		(16 * 1024)
#define KPC_LINE_LEN		192
/* Room for kprobes/blacklist. */
#define KPC_BLACKLIST_SIZE	(256 * 1024)
/* kpc_sleeper() with this bit waits for kpc_unpark before it sleeps. */
#define KPC_PARK		0x100

/* ---- the targets -------------------------------------------------------- */

#define KPC_TARGET(x)		((x) * 3 + 7)
#define KPC_PLAIN(x)		((x) * 5 + 11)
#define KPC_OTHER(x)		((x) + 1000)
#define KPC_SLEEPER(x)		((x) * 7 + 2)
#define KPC_JUMPABLE(x)		((x) * 9 + 4)

static long kpc_target(long x);
static long kpc_plain(long x);
static long kpc_other(long x);
static long kpc_recurse(long depth);
static long kpc_sleeper(long x);
static long kpc_jumpable(long x);
static long kpc_paired(long x);

/* What kpc_paired() returns (@x used twice: a function, not a macro). */
static inline long kpc_paired_result(long x)
{
	return (x ^ 0x5a) + (x >> 3) * 7;
}

/* The only way the suite calls its targets: the compiler cannot see through it. */
static struct {
	long (*target)(long x);
	long (*plain)(long x);
	long (*other)(long x);
	long (*recurse)(long depth);
	long (*sleeper)(long x);
	long (*jumpable)(long x);
	long (*paired)(long x);
} kpc_fns = {
	.target		= kpc_target,
	.plain		= kpc_plain,
	.other		= kpc_other,
	.recurse	= kpc_recurse,
	.sleeper	= kpc_sleeper,
	.jumpable	= kpc_jumpable,
	.paired		= kpc_paired,
};

/* The target @name, to be called: kpc_fn(target)(x). */
#define kpc_fn(name)		READ_ONCE(kpc_fns.name)

/* How often each target ran; a redirected call shows as a run of the other. */
static struct {
	atomic_t	target;
	atomic_t	plain;
	atomic_t	other;
	atomic_t	recurse;
	atomic_t	sleeper;
} kpc_runs;

static DECLARE_COMPLETION(kpc_parked);
static DECLARE_COMPLETION(kpc_unpark);

/* A variable, for the probe on data. */
static unsigned long kpc_data_word;

static noinline long kpc_target(long x)
{
	atomic_inc(&kpc_runs.target);
	return KPC_TARGET(x);
}

static noinline notrace long kpc_plain(long x)
{
	atomic_inc(&kpc_runs.plain);
	return KPC_PLAIN(x);
}

static noinline long kpc_other(long x)
{
	atomic_inc(&kpc_runs.other);
	return KPC_OTHER(x);
}

static noinline long kpc_recurse(long depth)
{
	long below = 0;

	atomic_inc(&kpc_runs.recurse);
	if (depth > 1)
		below = kpc_fn(recurse)(depth - 1);
	return below + 10 * depth;
}

static noinline notrace long kpc_sleeper(long x)
{
	atomic_inc(&kpc_runs.sleeper);
	if (x & KPC_PARK) {
		complete(&kpc_parked);
		wait_for_completion_timeout(&kpc_unpark, KPC_WAIT);
	}
	usleep_range(1000, 2000);
	return KPC_SLEEPER(x);
}

/*
 * Arithmetic without a branch or a memory operand: where the arch has
 * optprobes, a probe on its entry without a post_handler gets a jump.
 */
static noinline notrace long kpc_jumpable(long x)
{
	return KPC_JUMPABLE(x);
}

/*
 * The same, with short instructions: a jump on its entry covers the start
 * of a second instruction, where another probe can go.
 */
static noinline notrace long kpc_paired(long x)
{
	return kpc_paired_result(x);
}

/* On the kprobe blacklist: no probe may go anywhere in it. */
static noinline long kpc_forbidden(long x)
{
	return x * 13 + 1;
}

NOKPROBE_SYMBOL(kpc_forbidden);

/* In .kprobes.text, which the blacklist holds whole. */
static noinline long __kprobes kpc_kprobes_text(long x)
{
	return x * 15 + 6;
}

/* In .noinstr.text, which the blacklist holds whole too. */
static noinstr long kpc_noinstr(long x)
{
	return x * 17 + 3;
}

/*
 * Holds a WARN_ON(), so a BUG() trap that the bug table lists: no probe
 * may go on it.  Untraced, so it has no call site.  Never called.
 */
static noinline notrace long kpc_warner(long x)
{
	WARN_ON(x == -12345);
	return x * 19 + 5;
}

/*
 * In .init.text, untraced: the probe on its entry is a breakpoint, which
 * kprobe_free_init_mem() marks GONE.  Never called; the cases find it by
 * name, so that no code outside .init.text refers to it.
 */
static int __init __used notrace kpc_init_target(int x)
{
	return x * 19 + 5;
}

/*
 * The batch cases' targets: KPC_BATCH_HALF functions with a call site
 * (where kernel/ is built with them) and as many notrace ones, so that
 * probes on their entries are call-site and breakpoint probes, half and
 * half.  Each has its own result and is called only through
 * kpc_batch_fns[].
 */
#define KPC_BATCH_HALF		16
#define KPC_BATCH		(2 * KPC_BATCH_HALF)
#define KPC_BATCH_RESULT(i, x)	((x) * 11 + (i))

#define KPC_BATCH_SITE_FN(i)						\
	static noinline long kpc_batch_site##i(long x)			\
	{								\
		return KPC_BATCH_RESULT(i, x);				\
	}

#define KPC_BATCH_BREAK_FN(i)						\
	static noinline notrace long kpc_batch_break##i(long x)		\
	{								\
		return KPC_BATCH_RESULT(KPC_BATCH_HALF + (i), x);	\
	}

KPC_BATCH_SITE_FN(0)
KPC_BATCH_SITE_FN(1)
KPC_BATCH_SITE_FN(2)
KPC_BATCH_SITE_FN(3)
KPC_BATCH_SITE_FN(4)
KPC_BATCH_SITE_FN(5)
KPC_BATCH_SITE_FN(6)
KPC_BATCH_SITE_FN(7)
KPC_BATCH_SITE_FN(8)
KPC_BATCH_SITE_FN(9)
KPC_BATCH_SITE_FN(10)
KPC_BATCH_SITE_FN(11)
KPC_BATCH_SITE_FN(12)
KPC_BATCH_SITE_FN(13)
KPC_BATCH_SITE_FN(14)
KPC_BATCH_SITE_FN(15)

KPC_BATCH_BREAK_FN(0)
KPC_BATCH_BREAK_FN(1)
KPC_BATCH_BREAK_FN(2)
KPC_BATCH_BREAK_FN(3)
KPC_BATCH_BREAK_FN(4)
KPC_BATCH_BREAK_FN(5)
KPC_BATCH_BREAK_FN(6)
KPC_BATCH_BREAK_FN(7)
KPC_BATCH_BREAK_FN(8)
KPC_BATCH_BREAK_FN(9)
KPC_BATCH_BREAK_FN(10)
KPC_BATCH_BREAK_FN(11)
KPC_BATCH_BREAK_FN(12)
KPC_BATCH_BREAK_FN(13)
KPC_BATCH_BREAK_FN(14)
KPC_BATCH_BREAK_FN(15)

static long (*kpc_batch_fns[KPC_BATCH])(long x) = {
	kpc_batch_site0, kpc_batch_site1, kpc_batch_site2, kpc_batch_site3,
	kpc_batch_site4, kpc_batch_site5, kpc_batch_site6, kpc_batch_site7,
	kpc_batch_site8, kpc_batch_site9, kpc_batch_site10, kpc_batch_site11,
	kpc_batch_site12, kpc_batch_site13, kpc_batch_site14, kpc_batch_site15,
	kpc_batch_break0, kpc_batch_break1, kpc_batch_break2, kpc_batch_break3,
	kpc_batch_break4, kpc_batch_break5, kpc_batch_break6, kpc_batch_break7,
	kpc_batch_break8, kpc_batch_break9, kpc_batch_break10,
	kpc_batch_break11, kpc_batch_break12, kpc_batch_break13,
	kpc_batch_break14, kpc_batch_break15,
};

/* Batch target @i, to be called: kpc_batch_fn(i)(x). */
#define kpc_batch_fn(i)		READ_ONCE(kpc_batch_fns[i])

/* ---- the handler log ---------------------------------------------------- */

/*
 * Every handler call appends its probe's tag: upper case from a
 * pre_handler, lower case from a post_handler.  Reset before each case.
 */
static char kpc_log[KPC_LOG_LEN + 1];
static atomic_t kpc_log_len;

static void kpc_log_add(char c)
{
	int i = atomic_inc_return(&kpc_log_len) - 1;

	if (i < KPC_LOG_LEN)
		kpc_log[i] = c;
}

/* Whether {@a, @b} is {@x, @y}, in either order. */
static bool kpc_pair(char a, char b, char x, char y)
{
	return (a == x && b == y) || (a == y && b == x);
}

/*
 * Whether the log is @hits hits of probes 'A' and 'B' on one address:
 * both pre_handlers, then both post_handlers, each hit.
 */
static bool kpc_log_is_pairs(int hits)
{
	const char *log = kpc_log;
	int i;

	if (strlen(log) != (size_t)4 * hits)
		return false;
	for (i = 0; i < hits; i++, log += 4) {
		if (!kpc_pair(log[0], log[1], 'A', 'B') ||
		    !kpc_pair(log[2], log[3], 'a', 'b'))
			return false;
	}
	return true;
}

/* ---- kprobes ------------------------------------------------------------ */

/* What one handler call saw. */
struct kpc_seen {
	unsigned long	ip;
	unsigned long	arg0;		/* meaningful on a function's entry */
	struct kprobe	*running;	/* kprobe_running() */
	struct kprobe	*hashed;	/* get_kprobe() of the probe's address */
	int		status;		/* this CPU's kprobe_status */
	bool		preemptible;
};

struct kpc_probe {
	struct kprobe	kp;
	char		tag;		/* what its handlers log */
	bool		registered;	/* by the helpers below */
	atomic_t	pre_hits;
	atomic_t	post_hits;
	struct kpc_seen	pre;		/* the last pre_handler call */
	struct kpc_seen	post;		/* the last post_handler call */
	/* If set, the pre_handler moves the ip here and returns 1. */
	unsigned long	redirect_to;
	/* If set, both handlers call kpc_plain() and check what it returns. */
	bool		call_plain;
	atomic_t	plain_wrong;
};

static void kpc_record(struct kpc_seen *seen, struct kprobe *p,
		       struct pt_regs *regs)
{
	seen->ip = instruction_pointer(regs);
	seen->arg0 = regs_get_kernel_argument(regs, 0);
	seen->running = kprobe_running();
	seen->hashed = get_kprobe(p->addr);
	seen->status = get_kprobe_ctlblk()->kprobe_status;
	seen->preemptible = preemptible();
}

static void kpc_call_plain(struct kpc_probe *kpc)
{
	if (kpc->call_plain && kpc_fn(plain)(2) != KPC_PLAIN(2))
		atomic_inc(&kpc->plain_wrong);
}

static int kpc_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kpc_probe *kpc = container_of(p, struct kpc_probe, kp);

	kpc_record(&kpc->pre, p, regs);
	atomic_inc(&kpc->pre_hits);
	kpc_log_add(toupper(kpc->tag));
	kpc_call_plain(kpc);
	if (!kpc->redirect_to)
		return 0;
	instruction_pointer_set(regs, kpc->redirect_to);
	return 1;
}

static void kpc_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	struct kpc_probe *kpc = container_of(p, struct kpc_probe, kp);

	kpc_record(&kpc->post, p, regs);
	atomic_inc(&kpc->post_hits);
	kpc_log_add(tolower(kpc->tag));
	kpc_call_plain(kpc);
}

static void kpc_unregister_action(void *arg)
{
	struct kpc_probe *kpc = arg;

	if (kpc->registered)
		unregister_kprobe(&kpc->kp);
}

/* A probe at @sym + @offset with both handlers, not registered yet. */
static struct kpc_probe *kpc_new(struct kunit *test, char tag,
				 const char *sym, unsigned int offset)
{
	struct kpc_probe *kpc;

	kpc = kunit_kzalloc(test, sizeof(*kpc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kpc);
	kpc->tag = tag;
	kpc->kp.symbol_name = sym;
	kpc->kp.offset = offset;
	kpc->kp.pre_handler = kpc_pre;
	kpc->kp.post_handler = kpc_post;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpc_unregister_action, kpc), 0);
	return kpc;
}

/*
 * Without KPROBES_ON_FTRACE a probe right on a call site is refused; the
 * cases that need one skip there.
 */
static void kpc_skip_if_site_refused(struct kunit *test, struct kprobe *p,
				     int ret)
{
	unsigned long addr = (unsigned long)p->addr;

	if (ret == -EINVAL && !IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) &&
	    addr && ftrace_location(addr) == addr)
		kunit_skip(test, "%ps is a call site and KPROBES_ON_FTRACE is off",
			   p->addr);
}

static void kpc_register(struct kunit *test, struct kpc_probe *kpc)
{
	int ret = register_kprobe(&kpc->kp);

	kpc_skip_if_site_refused(test, &kpc->kp, ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	kpc->registered = true;
}

static void kpc_unregister(struct kpc_probe *kpc)
{
	unregister_kprobe(&kpc->kp);
	kpc->registered = false;
}

/* get_kprobe() wants preemption off. */
static struct kprobe *kpc_hashed(void *addr)
{
	struct kprobe *p;

	preempt_disable();
	p = get_kprobe(addr);
	preempt_enable();
	return p;
}

/*
 * Whether what get_kprobe() finds at @kp's address stands for @kp alone:
 * @kp itself, or a probe whose list holds @kp and nothing else.  6.12
 * wraps a breakpoint probe in such a one, even while it is alone, when
 * the arch could optimize it (optprobes); a post_handler then keeps it
 * from being optimized, not from being wrapped.
 */
static bool kpc_alone_at(struct kprobe *kp)
{
	struct kprobe *hashed, *child;
	bool alone = false;
	int children = 0;

	preempt_disable();
	hashed = get_kprobe(kp->addr);
	if (hashed == kp) {
		alone = true;
	} else if (hashed) {
		list_for_each_entry_rcu(child, &hashed->list, list) {
			alone = (child == kp);
			children++;
		}
		alone = alone && children == 1;
	}
	preempt_enable();
	return alone;
}

static struct kprobe *kpc_running_here(void)
{
	struct kprobe *p;

	preempt_disable();
	p = kprobe_running();
	preempt_enable();
	return p;
}

static int kpc_idle_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static void kpc_idle_post(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
}

static unsigned int kpc_mid_offset_found;

/*
 * The offset in kpc_target() of its first instruction after the entry,
 * which every call runs: the first offset a probe takes that is neither
 * on the entry nor on or before the call site (on arm64 a "mov x9, x30"
 * may come before it).  Offsets inside an instruction are refused, so
 * the search needs no decoder.
 */
static unsigned int kpc_mid_offset(struct kunit *test)
{
	unsigned long site = ftrace_location((unsigned long)kpc_target);
	unsigned long size = 0, offset = 0;
	struct kprobe kp;
	unsigned int off;
	bool mid;

	if (kpc_mid_offset_found)
		return kpc_mid_offset_found;
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)kpc_target,
							    &size, &offset));
	for (off = 1; off < size; off++) {
		memset(&kp, 0, sizeof(kp));
		kp.symbol_name = "kpc_target";
		kp.offset = off;
		kp.pre_handler = kpc_idle_pre;
		kp.post_handler = kpc_idle_post;
		if (register_kprobe(&kp))
			continue;
		mid = !(kp.flags & (KPROBE_FLAG_FTRACE | KPROBE_FLAG_ON_FUNC_ENTRY)) &&
		      (unsigned long)kp.addr > site;
		unregister_kprobe(&kp);
		if (mid) {
			kpc_mid_offset_found = off;
			return off;
		}
	}
	KUNIT_FAIL_AND_ABORT(test, "no probe takes in kpc_target() past its entry");
	return 0;
}

/* Where a parameterized case puts its probe in kpc_target(). */
struct kpc_where {
	const char	*desc;
	bool		middle;
};

static const struct kpc_where kpc_wheres[] = {
	{ "entry", false },
	{ "middle", true },
};

KUNIT_ARRAY_PARAM_DESC(kpc_where, kpc_wheres, desc);

static unsigned int kpc_where_offset(struct kunit *test)
{
	const struct kpc_where *where = test->param_value;

	return where->middle ? kpc_mid_offset(test) : 0;
}

/* ---- kprobes/list ------------------------------------------------------- */

/* All of @file into @buf, NUL-terminated: its length, or an errno. */
static ssize_t kpc_read_all(struct file *file, char *buf, size_t size)
{
	struct iov_iter iter;
	struct kiocb kiocb;
	struct kvec kvec;
	size_t len = 0;
	ssize_t ret;

	init_sync_kiocb(&kiocb, file);
	while (len < size - 1) {
		kvec.iov_base = buf + len;
		kvec.iov_len = size - 1 - len;
		iov_iter_kvec(&iter, ITER_DEST, &kvec, 1, kvec.iov_len);
		/*
		 * kernel_read() takes only files with ->read_iter and no
		 * ->read.  debugfs puts a proxy with ->read alone in front
		 * of 6.12's seq_file, which the open left in private_data:
		 * read that directly.
		 */
		if (file->f_op->read_iter && !file->f_op->read)
			ret = file->f_op->read_iter(&kiocb, &iter);
		else
			ret = seq_read_iter(&kiocb, &iter);
		if (ret < 0)
			return ret;
		if (!ret)
			break;
		len += ret;
	}
	buf[len] = '\0';
	return len;
}

/*
 * A file of a file system of our own mounting: built-in KUnit runs before
 * user space has mounted anything.
 */
struct kpc_file {
	struct vfsmount	*mnt;
	struct file	*file;
};

/* Open @path in a fresh mount of the file system @fs; 0 or an errno. */
static int kpc_file_open(struct kpc_file *f, const char *fs, const char *path,
			 int flags)
{
	struct file_system_type *type = get_fs_type(fs);

	if (!type)
		return -ENODEV;
	f->mnt = kern_mount(type);
	put_filesystem(type);
	if (IS_ERR(f->mnt))
		return PTR_ERR(f->mnt);
	f->file = file_open_root_mnt(f->mnt, path, flags, 0);
	if (IS_ERR(f->file)) {
		kern_unmount(f->mnt);
		return PTR_ERR(f->file);
	}
	return 0;
}

static void kpc_file_close(struct kpc_file *f)
{
	fput(f->file);
	kern_unmount(f->mnt);
}

/* All of @path in a mount of @fs into @buf: its length, or an errno. */
static ssize_t kpc_read_file(const char *fs, const char *path, char *buf,
			     size_t size)
{
	struct kpc_file f;
	ssize_t len;

	len = kpc_file_open(&f, fs, path, O_RDONLY);
	if (len)
		return len;
	len = kpc_read_all(f.file, buf, size);
	kpc_file_close(&f);
	return len;
}

KUNIT_DEFINE_ACTION_WRAPPER(kpc_kvfree, kvfree, const void *);

/*
 * A buffer of @size with debugfs file @path in it (@buf, or a new one),
 * or a skip where there is no such file.
 */
static char *kpc_debugfs_text(struct kunit *test, const char *path, char *buf,
			      size_t size)
{
	ssize_t len;

	if (!buf) {
		buf = kvzalloc(size, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, buf);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpc_kvfree, buf), 0);
	}
	len = kpc_read_file("debugfs", path, buf, size);
	if (len == -ENODEV || len == -EPERM || len == -ENOENT)
		kunit_skip(test, "no debugfs %s here (%zd)", path, len);
	KUNIT_ASSERT_GE(test, len, 0);
	/* Nothing may be cut off. */
	KUNIT_ASSERT_LT_MSG(test, len, (ssize_t)size - 1, "%s is too long", path);
	return buf;
}

/* A buffer with kprobes/list in it, or a skip where there is none. */
static char *kpc_list(struct kunit *test, char *buf)
{
	return kpc_debugfs_text(test, "kprobes/list", buf, KPC_LIST_SIZE);
}

/* How many lines of @list are @line, which ends in a newline. */
static int kpc_count_line(const char *list, const char *line)
{
	const char *s = list;
	int n = 0;

	while ((s = strstr(s, line))) {
		if (s == list || s[-1] == '\n')
			n++;
		s++;
	}
	return n;
}

/*
 * The line kprobes/list has for @p: its address (zeros for a reader who
 * may not see addresses), its type ("k" or "r"), symbol+offset, a space
 * where a module would be named, then @flags.
 */
static char *kpc_line(struct kunit *test, struct kprobe *p, const char *type,
		      const char *sym, const char *flags)
{
	unsigned long shown = (unsigned long)p->addr;
	unsigned long size = 0, offset = 0;
	char *line;

	line = kunit_kzalloc(test, KPC_LINE_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, line);
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)p->addr,
							    &size, &offset));
	if (!kallsyms_show_value(current_cred()))
		shown = 0;
	/* As %px prints it: zero-padded to the width of a pointer. */
	snprintf(line, KPC_LINE_LEN, "%0*lx  %s  %s+0x%lx    %s\n",
		 (int)(2 * sizeof(void *)), shown, type, sym, offset, flags);
	return line;
}

static void kpc_expect_listed(struct kunit *test, const char *list,
			      const char *line, int times)
{
	KUNIT_EXPECT_EQ_MSG(test, kpc_count_line(list, line), times,
			    "line of a kprobes file: %s", line);
}

/* The line after the one at @s, or the end of the text. */
static const char *kpc_next_line(const char *s)
{
	s = strchrnul(s, '\n');
	return *s ? s + 1 : s;
}

/*
 * Whether @s starts with an address as the kprobes files show one: as
 * many hex digits as a pointer has; its value goes to *@val.
 */
static bool kpc_hex_digits(const char *s, unsigned long *val)
{
	char digits[2 * sizeof(void *) + 1];
	unsigned int i;

	for (i = 0; i < 2 * sizeof(void *); i++) {
		if (!isxdigit(s[i]))
			return false;
		digits[i] = s[i];
	}
	digits[i] = '\0';
	return !kstrtoul(digits, 16, val);
}

/* The same with "0x" before the digits, as kprobes/blacklist has it. */
static bool kpc_hex_addr(const char *s, unsigned long *val)
{
	return s[0] == '0' && s[1] == 'x' && kpc_hex_digits(s + 2, val);
}

/* Whether the line at @s is "0xSTART-0xEND\tSYMBOL" with START <= END. */
static bool kpc_blacklist_line_ok(const char *s)
{
	const int width = 2 + 2 * sizeof(void *);
	unsigned long start, end;

	if (!kpc_hex_addr(s, &start) || s[width] != '-' ||
	    !kpc_hex_addr(s + width + 1, &end) || s[2 * width + 1] != '\t')
		return false;
	s += 2 * width + 2;
	return start <= end && *s && !isspace(*s);
}

/*
 * The line kprobes/blacklist has for the function @fn: its range as
 * kallsyms sizes it (zeros for a reader who may not see addresses) and
 * the symbol kallsyms names its start by.
 */
static char *kpc_range_line(struct kunit *test, void *fn)
{
	unsigned long start = (unsigned long)fn, end, size = 0, offset = 0;
	char *line;

	line = kunit_kzalloc(test, KPC_LINE_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, line);
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset(start, &size, &offset));
	KUNIT_ASSERT_EQ(test, offset, 0);
	end = start + size;
	if (!kallsyms_show_value(current_cred())) {
		start = 0;
		end = 0;
	}
	snprintf(line, KPC_LINE_LEN, "0x%0*lx-0x%0*lx\t%ps\n",
		 (int)(2 * sizeof(void *)), start, (int)(2 * sizeof(void *)),
		 end, fn);
	return line;
}

/* ---- kprobe cases ------------------------------------------------------- */

enum kpc_refused_at {
	KPC_AT_NOWHERE,		/* neither a symbol nor an address */
	KPC_AT_BOTH,		/* a symbol and an address */
	KPC_AT_UNKNOWN,		/* a symbol that does not exist */
	KPC_AT_INSIDE_INSN,	/* one byte into kpc_target()'s call site */
	KPC_AT_BLACKLISTED,	/* kpc_forbidden() by name */
	KPC_AT_BLACKLISTED_ADDR, /* kpc_forbidden() by address */
	KPC_AT_DATA,		/* a variable */
	KPC_AT_KPROBES_TEXT,	/* kpc_kprobes_text(), in .kprobes.text */
	KPC_AT_NOINSTR,		/* kpc_noinstr(), in .noinstr.text */
	KPC_AT_ENTRY_TEXT,	/* the arch's system call or exception entry */
	KPC_AT_ARCH_LISTED,	/* another range the arch blacklists */
	KPC_AT_HIT_PATH,	/* what a hit runs of the core (kprobes_hit.c) */
	KPC_AT_FREED_INIT,	/* kpc_init_target() once init text is freed */
	KPC_AT_BUG_SITE,	/* the BUG() trap of kpc_warner()'s WARN_ON() */
};

struct kpc_refusal {
	const char		*desc;
	enum kpc_refused_at	at;
};

static const struct kpc_refusal kpc_refusals[] = {
	{ "neither symbol nor address", KPC_AT_NOWHERE },
	{ "symbol and address", KPC_AT_BOTH },
	{ "unknown symbol", KPC_AT_UNKNOWN },
	{ "inside an instruction", KPC_AT_INSIDE_INSN },
	{ "blacklisted symbol", KPC_AT_BLACKLISTED },
	{ "blacklisted address", KPC_AT_BLACKLISTED_ADDR },
	{ "variable", KPC_AT_DATA },
	{ ".kprobes.text", KPC_AT_KPROBES_TEXT },
	{ "noinstr", KPC_AT_NOINSTR },
	{ "entry text", KPC_AT_ENTRY_TEXT },
	{ "arch blacklist", KPC_AT_ARCH_LISTED },
	{ "hit path", KPC_AT_HIT_PATH },
	{ "freed init text", KPC_AT_FREED_INIT },
	{ "BUG() trap", KPC_AT_BUG_SITE },
};

KUNIT_ARRAY_PARAM_DESC(kpc_refusal, kpc_refusals, desc);

/*
 * The symbol of x86-64 or of arm64, whichever this is; elsewhere the case
 * skips.
 */
static const char *kpc_arch_sym(struct kunit *test, const char *x86_64,
				const char *arm64)
{
	if (IS_ENABLED(CONFIG_X86_64))
		return x86_64;
	if (IS_ENABLED(CONFIG_ARM64))
		return arm64;
	kunit_skip(test, "no symbol of this arch is known here");
	return NULL;
}

/* The address of kpc_warner()'s BUG() trap; the case skips without one. */
static unsigned long kpc_bug_site(struct kunit *test)
{
	unsigned long start = (unsigned long)kpc_warner;
	unsigned long size, offset, a;

	/* Without GENERIC_BUG, find_bug() finds nothing: the case skips. */
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset(start, &size, &offset));
	for (a = start; a < start + size; a++) {
		if (find_bug(a))
			return a;
	}
	kunit_skip(test, "kpc_warner() has no BUG() trap in the bug table");
	return 0;
}

/* Set @kp up as @at says; return the errno registering it must give. */
static int kpc_refusal_setup(struct kunit *test, struct kprobe *kp,
			     enum kpc_refused_at at)
{
	unsigned long site;

	switch (at) {
	case KPC_AT_NOWHERE:
		return -EINVAL;
	case KPC_AT_BOTH:
		kp->symbol_name = "kpc_target";
		kp->addr = (kprobe_opcode_t *)kpc_target;
		return -EINVAL;
	case KPC_AT_UNKNOWN:
		kp->symbol_name = "kpc_no_such_function";
		return -ENOENT;
	case KPC_AT_INSIDE_INSN:
		if (!KPC_KNOWS_ARCH)
			kunit_skip(test, "the arch's errno is not known here");
		site = ftrace_location((unsigned long)kpc_target);
		if (!site)
			kunit_skip(test, "kpc_target() has no call site to split");
		kp->addr = (kprobe_opcode_t *)(site + 1);
		return KPC_INSIDE_INSN_ERR;
	case KPC_AT_BLACKLISTED:
		kp->symbol_name = "kpc_forbidden";
		return -EINVAL;
	case KPC_AT_BLACKLISTED_ADDR:
		kp->addr = (kprobe_opcode_t *)kpc_forbidden;
		return -EINVAL;
	case KPC_AT_DATA:
		kp->addr = (kprobe_opcode_t *)&kpc_data_word;
		/* Only KALLSYMS_ALL knows a variable's symbol; then it is not text. */
		return IS_ENABLED(CONFIG_KALLSYMS_ALL) ? -EINVAL : -ENOENT;
	case KPC_AT_KPROBES_TEXT:
		kp->addr = (kprobe_opcode_t *)kpc_kprobes_text;
		return -EINVAL;
	case KPC_AT_NOINSTR:
		kp->addr = (kprobe_opcode_t *)kpc_noinstr;
		return -EINVAL;
	case KPC_AT_ENTRY_TEXT:
		/* Both in .entry.text, which the arch blacklists whole. */
		kp->symbol_name = kpc_arch_sym(test, "entry_SYSCALL_64", "vectors");
		return -EINVAL;
	case KPC_AT_ARCH_LISTED:
		/*
		 * x86-64 lists its entry text alone: the int3 exception's
		 * entry is there.  arm64 lists the EL2 stub too.
		 */
		kp->symbol_name = kpc_arch_sym(test, "asm_exc_int3", "__hyp_stub_vectors");
		return -EINVAL;
	case KPC_AT_HIT_PATH:
		/* A probe there would be hit from inside every hit. */
		kp->addr = (kprobe_opcode_t *)kprobes_inc_nmissed_count;
		return -EINVAL;
	case KPC_AT_FREED_INIT:
		/* The built-in run comes before the free: a later run tests it. */
		if (system_state < SYSTEM_FREEING_INITMEM)
			kunit_skip(test, "the init text is not freed yet");
		/* Its name outlives it; its address is no text any more. */
		kp->symbol_name = "kpc_init_target";
		return -EINVAL;
	case KPC_AT_BUG_SITE:
		/* A trap of its own kind: not a call site, checked in full. */
		kp->addr = (kprobe_opcode_t *)kpc_bug_site(test);
		return -EINVAL;
	}
	return 0;
}

/* A refused registration gives its errno and leaves nothing behind. */
static void register_refused_with_errno(struct kunit *test)
{
	const struct kpc_refusal *refusal = test->param_value;
	struct kpc_probe *kpc = kpc_new(test, 'A', NULL, 0);
	int want, ret;

	want = kpc_refusal_setup(test, &kpc->kp, refusal->at);
	ret = register_kprobe(&kpc->kp);
	kpc->registered = !ret;
	KUNIT_EXPECT_EQ(test, ret, want);
	KUNIT_EXPECT_NULL(test, kpc_hashed(kpc->kp.addr));

	KUNIT_EXPECT_EQ(test, kpc_fn(target)(1), KPC_TARGET(1));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc->pre_hits), 0);
	KUNIT_EXPECT_STREQ(test, kpc_log, "");
}

/*
 * enable_kprobe() and disable_kprobe() refuse a probe that is not
 * registered, before and after; register_kprobes() refuses an empty
 * array; registering a registered probe again is refused (its symbol and
 * its resolved address are both set by then) and changes nothing.
 */
static void lifecycle_misuse_is_refused(struct kunit *test)
{
	struct kpc_probe *kpc = kpc_new(test, 'A', "kpc_target", kpc_mid_offset(test));
	struct kprobe *kps[] = { &kpc->kp };

	KUNIT_EXPECT_EQ(test, enable_kprobe(&kpc->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kpc->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 0), -EINVAL);
	KUNIT_EXPECT_NULL(test, kpc->kp.addr);

	kpc_register(test, kpc);
	KUNIT_EXPECT_EQ(test, register_kprobe(&kpc->kp), -EINVAL);
	KUNIT_EXPECT_TRUE(test, kpc_alone_at(&kpc->kp));
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kpc->kp), 0);
	KUNIT_EXPECT_EQ(test, kpc_fn(target)(1), KPC_TARGET(1));
	KUNIT_EXPECT_STREQ(test, kpc_log, "Aa");

	kpc_unregister(kpc);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kpc->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kpc->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpc_fn(target)(2), KPC_TARGET(2));
	KUNIT_EXPECT_STREQ(test, kpc_log, "Aa");
}

/*
 * One breakpoint probe: each call runs the pre_handler, then the
 * post_handler; inside them kprobe_running() is what get_kprobe() finds
 * for the probe, the kprobe status is ACTIVE, then SSDONE, preemption is
 * off, and the pre_handler sees the pc a breakpoint at the probe leaves.
 * Outside, nothing is running; once unregistered, nothing is found.
 */
static void one_probe_runs_pre_then_post(struct kunit *test)
{
	struct kpc_probe *kpc = kpc_new(test, 'A', "kpc_target", kpc_mid_offset(test));
	int runs = atomic_read(&kpc_runs.target);
	struct kprobe *hashed;
	unsigned long addr;
	long i;

	kpc_register(test, kpc);
	addr = (unsigned long)kpc->kp.addr;
	KUNIT_EXPECT_FALSE(test, kprobe_ftrace(&kpc->kp));
	KUNIT_EXPECT_FALSE(test, kprobe_disabled(&kpc->kp));
	KUNIT_EXPECT_TRUE(test, kpc_alone_at(&kpc->kp));
	hashed = kpc_hashed(kpc->kp.addr);

	for (i = 0; i < KPC_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kpc_fn(target)(i), KPC_TARGET(i));

	KUNIT_EXPECT_STREQ(test, kpc_log, "AaAaAaAaAa");
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc->pre_hits), KPC_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc->post_hits), KPC_CALLS);
	KUNIT_EXPECT_EQ(test, kpc->kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc_runs.target), runs + KPC_CALLS);
	if (KPC_KNOWS_ARCH)
		KUNIT_EXPECT_EQ(test, kpc->pre.ip, KPC_TRAP_IP(addr));
	KUNIT_EXPECT_PTR_EQ(test, kpc->pre.running, hashed);
	KUNIT_EXPECT_PTR_EQ(test, kpc->post.running, hashed);
	KUNIT_EXPECT_PTR_EQ(test, kpc->pre.hashed, hashed);
	KUNIT_EXPECT_EQ(test, kpc->pre.status, KPROBE_HIT_ACTIVE);
	KUNIT_EXPECT_EQ(test, kpc->post.status, KPROBE_HIT_SSDONE);
	KUNIT_EXPECT_FALSE(test, kpc->pre.preemptible);
	KUNIT_EXPECT_FALSE(test, kpc->post.preemptible);
	KUNIT_EXPECT_NULL(test, kpc_running_here());

	kpc_unregister(kpc);
	KUNIT_EXPECT_NULL(test, kpc_hashed((void *)addr));
	KUNIT_EXPECT_EQ(test, kpc_fn(target)(9), KPC_TARGET(9));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc->pre_hits), KPC_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc->post_hits), KPC_CALLS);
}

/*
 * A probe on kpc_target()'s entry goes on its call site where kprobes can
 * use it (KPROBES_ON_FTRACE) and counts as on the entry; one further in is
 * a breakpoint and does not.  Each call runs the entry probe's handlers,
 * then the middle one's; each pre_handler sees the pc a breakpoint at its
 * own address leaves, the entry one the call's argument.
 */
static void entry_and_middle_probes_in_call_order(struct kunit *test)
{
	unsigned long site = ftrace_location((unsigned long)kpc_target);
	struct kpc_probe *entry, *mid;
	bool on_site;

	entry = kpc_new(test, 'E', "kpc_target", 0);
	mid = kpc_new(test, 'M', "kpc_target", kpc_mid_offset(test));
	kpc_register(test, entry);
	kpc_register(test, mid);

	on_site = IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) && site;
	KUNIT_EXPECT_EQ(test, kprobe_ftrace(&entry->kp), on_site);
	if (on_site)
		KUNIT_EXPECT_EQ(test, (unsigned long)entry->kp.addr, site);
	KUNIT_EXPECT_TRUE(test, entry->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_FALSE(test, kprobe_ftrace(&mid->kp));
	KUNIT_EXPECT_FALSE(test, mid->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_GT(test, (unsigned long)mid->kp.addr, (unsigned long)entry->kp.addr);

	KUNIT_EXPECT_EQ(test, kpc_fn(target)(10), KPC_TARGET(10));
	KUNIT_EXPECT_EQ(test, kpc_fn(target)(11), KPC_TARGET(11));
	KUNIT_EXPECT_EQ(test, kpc_fn(target)(12), KPC_TARGET(12));

	KUNIT_EXPECT_STREQ(test, kpc_log, "EeMmEeMmEeMm");
	KUNIT_EXPECT_EQ(test, entry->pre.arg0, 12);
	if (KPC_KNOWS_ARCH) {
		KUNIT_EXPECT_EQ(test, entry->pre.ip,
				KPC_TRAP_IP((unsigned long)entry->kp.addr));
		KUNIT_EXPECT_EQ(test, mid->pre.ip,
				KPC_TRAP_IP((unsigned long)mid->kp.addr));
	}
	KUNIT_EXPECT_PTR_EQ(test, entry->pre.running, kpc_hashed(entry->kp.addr));
	KUNIT_EXPECT_PTR_EQ(test, mid->pre.running, kpc_hashed(mid->kp.addr));
	KUNIT_EXPECT_TRUE(test, kpc_alone_at(&entry->kp));
	KUNIT_EXPECT_TRUE(test, kpc_alone_at(&mid->kp));
	KUNIT_EXPECT_EQ(test, entry->kp.nmissed + mid->kp.nmissed, 0);
}

/*
 * What get_kprobe() finds where @a and @b share an address: a probe that
 * stands for both, neither of them, whose list holds exactly the two.
 */
static struct kprobe *kpc_expect_aggregate(struct kunit *test,
					   struct kpc_probe *a,
					   struct kpc_probe *b)
{
	bool has_a = false, has_b = false;
	struct kprobe *hashed, *child;
	int children = 0;

	preempt_disable();
	hashed = get_kprobe(a->kp.addr);
	if (hashed) {
		list_for_each_entry_rcu(child, &hashed->list, list) {
			has_a |= (child == &a->kp);
			has_b |= (child == &b->kp);
			children++;
		}
	}
	preempt_enable();
	KUNIT_ASSERT_NOT_NULL(test, hashed);
	KUNIT_EXPECT_PTR_NE(test, hashed, &a->kp);
	KUNIT_EXPECT_PTR_NE(test, hashed, &b->kp);
	KUNIT_EXPECT_PTR_EQ(test, hashed->addr, a->kp.addr);
	KUNIT_EXPECT_EQ(test, children, 2);
	KUNIT_EXPECT_TRUE(test, has_a && has_b);
	return hashed;
}

/*
 * Two probes on one address: each hit runs both pre_handlers, then both
 * post_handlers, and kprobe_running() in their handlers is the probe
 * get_kprobe() finds for both.  Disabling one silences it alone; enabling
 * it brings it back; with both disabled neither runs; unregistering one
 * leaves the other working, and after the last nothing is at the address.
 */
static void probes_on_one_address_share_hits(struct kunit *test)
{
	unsigned int offset = kpc_where_offset(test);
	struct kpc_probe *a, *b;
	struct kprobe *hashed;
	void *addr;

	a = kpc_new(test, 'A', "kpc_target", offset);
	b = kpc_new(test, 'B', "kpc_target", offset);
	kpc_register(test, a);
	kpc_register(test, b);
	KUNIT_ASSERT_PTR_EQ(test, a->kp.addr, b->kp.addr);
	addr = a->kp.addr;
	hashed = kpc_expect_aggregate(test, a, b);

	kpc_fn(target)(1);
	kpc_fn(target)(2);
	KUNIT_EXPECT_TRUE_MSG(test, kpc_log_is_pairs(2), "log %s", kpc_log);
	KUNIT_EXPECT_PTR_EQ(test, a->pre.running, hashed);
	KUNIT_EXPECT_PTR_EQ(test, b->post.running, hashed);
	KUNIT_EXPECT_PTR_EQ(test, a->pre.hashed, hashed);
	if (KPC_KNOWS_ARCH) {
		KUNIT_EXPECT_EQ(test, a->pre.ip, KPC_TRAP_IP((unsigned long)addr));
		KUNIT_EXPECT_EQ(test, b->pre.ip, KPC_TRAP_IP((unsigned long)addr));
	}

	KUNIT_ASSERT_EQ(test, disable_kprobe(&a->kp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&a->kp));
	KUNIT_EXPECT_FALSE(test, kprobe_disabled(&b->kp));
	kpc_fn(target)(3);
	kpc_fn(target)(4);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->pre_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->post_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->pre_hits), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->post_hits), 4);

	KUNIT_ASSERT_EQ(test, enable_kprobe(&a->kp), 0);
	kpc_fn(target)(5);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->pre_hits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->pre_hits), 5);

	KUNIT_ASSERT_EQ(test, disable_kprobe(&a->kp), 0);
	KUNIT_ASSERT_EQ(test, disable_kprobe(&b->kp), 0);
	kpc_fn(target)(6);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->pre_hits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->pre_hits), 5);
	KUNIT_ASSERT_EQ(test, enable_kprobe(&a->kp), 0);
	KUNIT_ASSERT_EQ(test, enable_kprobe(&b->kp), 0);
	kpc_fn(target)(7);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->pre_hits), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->pre_hits), 6);

	kpc_unregister(a);
	KUNIT_EXPECT_NOT_NULL(test, kpc_hashed(addr));
	KUNIT_EXPECT_EQ(test, kpc_fn(target)(8), KPC_TARGET(8));
	KUNIT_EXPECT_EQ(test, atomic_read(&a->pre_hits), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->post_hits), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->pre_hits), 7);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->post_hits), 7);

	kpc_unregister(b);
	KUNIT_EXPECT_NULL(test, kpc_hashed(addr));
	kpc_fn(target)(9);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->pre_hits), 7);
	KUNIT_EXPECT_EQ(test, a->kp.nmissed + b->kp.nmissed, 0);
}

/* A probe registered with KPROBE_FLAG_DISABLED is silent until enabled. */
static void registered_disabled_until_enabled(struct kunit *test)
{
	struct kpc_probe *kpc = kpc_new(test, 'D', "kpc_target", kpc_mid_offset(test));

	kpc->kp.flags = KPROBE_FLAG_DISABLED;
	kpc_register(test, kpc);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&kpc->kp));
	KUNIT_EXPECT_TRUE(test, kpc_alone_at(&kpc->kp));
	kpc_fn(target)(1);
	kpc_fn(target)(2);
	KUNIT_EXPECT_STREQ(test, kpc_log, "");

	KUNIT_ASSERT_EQ(test, enable_kprobe(&kpc->kp), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_disabled(&kpc->kp));
	kpc_fn(target)(3);
	KUNIT_EXPECT_STREQ(test, kpc_log, "Dd");

	KUNIT_ASSERT_EQ(test, disable_kprobe(&kpc->kp), 0);
	kpc_fn(target)(4);
	KUNIT_EXPECT_STREQ(test, kpc_log, "Dd");
	KUNIT_EXPECT_EQ(test, kpc->kp.nmissed, 0);
}

/*
 * A pre_handler on a function's entry that moves the ip to another
 * function and returns 1 runs that function instead: the call returns its
 * result, the probed body does not run, no post_handler runs, and the
 * probe is not left running.
 */
static void pre_handler_redirects_call(struct kunit *test)
{
	struct kpc_probe *kpc = kpc_new(test, 'R', "kpc_plain", 0);
	int plain_runs, other_runs;

	kpc->redirect_to = (unsigned long)kpc_other;
	kpc_register(test, kpc);
	KUNIT_EXPECT_FALSE(test, kprobe_ftrace(&kpc->kp));
	plain_runs = atomic_read(&kpc_runs.plain);
	other_runs = atomic_read(&kpc_runs.other);

	KUNIT_EXPECT_EQ(test, kpc_fn(plain)(4), KPC_OTHER(4));
	KUNIT_EXPECT_NULL(test, kpc_running_here());
	KUNIT_EXPECT_EQ(test, kpc_fn(plain)(5), KPC_OTHER(5));

	KUNIT_EXPECT_STREQ(test, kpc_log, "RR");
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc->post_hits), 0);
	KUNIT_EXPECT_EQ(test, kpc->pre.arg0, 5);
	KUNIT_EXPECT_EQ(test, kpc->kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc_runs.plain), plain_runs);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc_runs.other), other_runs + 2);

	kpc_unregister(kpc);
	KUNIT_EXPECT_EQ(test, kpc_fn(plain)(6), KPC_PLAIN(6));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc_runs.plain), plain_runs + 1);
	KUNIT_EXPECT_STREQ(test, kpc_log, "RR");
}

/*
 * A probed function called from another probe's handlers: the inner
 * probe's handlers do not run, each such hit adds one to its nmissed, and
 * the function still runs and returns its value.  Outside the handlers
 * the inner probe runs as usual.
 */
static void nested_hit_is_missed(struct kunit *test)
{
	struct kpc_probe *outer, *inner;
	int plain_runs;
	long i;

	inner = kpc_new(test, 'I', "kpc_plain", 0);
	outer = kpc_new(test, 'O', "kpc_target", kpc_where_offset(test));
	outer->call_plain = true;
	kpc_register(test, inner);
	kpc_register(test, outer);
	plain_runs = atomic_read(&kpc_runs.plain);

	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, kpc_fn(target)(i), KPC_TARGET(i));

	KUNIT_EXPECT_STREQ(test, kpc_log, "OoOoOo");
	KUNIT_EXPECT_EQ(test, atomic_read(&inner->pre_hits), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&inner->post_hits), 0);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 6);
	KUNIT_EXPECT_EQ(test, outer->kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->plain_wrong), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc_runs.plain), plain_runs + 6);

	KUNIT_EXPECT_EQ(test, kpc_fn(plain)(1), KPC_PLAIN(1));
	KUNIT_EXPECT_STREQ(test, kpc_log, "OoOoOoIi");
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 6);
}

/*
 * register_kprobes() registers all or none: when one fails, the ones
 * before it are unregistered again and never run.  Without the bad one
 * all register, and unregister_kprobes() takes them all away.
 */
static void register_kprobes_all_or_nothing(struct kunit *test)
{
	struct kpc_probe *a, *b, *bad;
	struct kprobe *kps[3];

	a = kpc_new(test, 'A', "kpc_plain", 0);
	b = kpc_new(test, 'B', "kpc_target", kpc_mid_offset(test));
	bad = kpc_new(test, 'C', "kpc_no_such_function", 0);
	kps[0] = &a->kp;
	kps[1] = &b->kp;
	kps[2] = &bad->kp;

	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 3), -ENOENT);
	KUNIT_EXPECT_NULL(test, kpc_hashed(a->kp.addr));
	KUNIT_EXPECT_NULL(test, kpc_hashed(b->kp.addr));
	kpc_fn(plain)(1);
	kpc_fn(target)(1);
	KUNIT_EXPECT_STREQ(test, kpc_log, "");

	/*
	 * A probe given by symbol is registered again with its address
	 * cleared, and its flags: an unregistered probe keeps the DISABLED
	 * flag that taking it out set, and register_kprobe() keeps that.
	 */
	a->kp.addr = NULL;
	b->kp.addr = NULL;
	a->kp.flags = 0;
	b->kp.flags = 0;
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, 2), 0);
	a->registered = true;
	b->registered = true;
	kpc_fn(plain)(2);
	kpc_fn(target)(2);
	KUNIT_EXPECT_STREQ(test, kpc_log, "AaBb");

	unregister_kprobes(kps, 2);
	a->registered = false;
	b->registered = false;
	KUNIT_EXPECT_NULL(test, kpc_hashed(a->kp.addr));
	KUNIT_EXPECT_NULL(test, kpc_hashed(b->kp.addr));
	kpc_fn(plain)(3);
	kpc_fn(target)(3);
	KUNIT_EXPECT_STREQ(test, kpc_log, "AaBb");
}

/* The batch: a probe on each batch target, and two on kpc_target(). */
#define KPC_BATCH_ALL		(KPC_BATCH + 2)

/*
 * The batch's probes in @kps: one on each batch target's entry, with
 * both handlers, but a pre_handler alone on every fourth call site, so
 * that call sites go to both of kprobes' ftrace_ops (breakpoints keep
 * their post_handler: none may become a jump); then two on
 * kpc_target()'s entry, the first without a post_handler, which the
 * batch makes an aggregate that has one.
 */
static struct kpc_probe **kpc_batch_new(struct kunit *test, struct kprobe **kps)
{
	unsigned long site = ftrace_location((unsigned long)kpc_batch_fn(0));
	struct kpc_probe **kpc;
	int i;

	if (site && !IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		kunit_skip(test, "the batch targets have call sites and KPROBES_ON_FTRACE is off");

	kpc = kunit_kcalloc(test, KPC_BATCH_ALL, sizeof(*kpc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kpc);
	for (i = 0; i < KPC_BATCH; i++) {
		kpc[i] = kpc_new(test, 'a' + i % 26, NULL, 0);
		kpc[i]->kp.addr = (kprobe_opcode_t *)kpc_batch_fn(i);
		site = ftrace_location((unsigned long)kpc_batch_fn(i));
		if (i % 4 == 3 && site)
			kpc[i]->kp.post_handler = NULL;
	}
	kpc[KPC_BATCH] = kpc_new(test, 'X', "kpc_target", 0);
	kpc[KPC_BATCH]->kp.post_handler = NULL;
	kpc[KPC_BATCH + 1] = kpc_new(test, 'Y', "kpc_target", 0);
	for (i = 0; i < KPC_BATCH_ALL; i++)
		kps[i] = &kpc[i]->kp;
	return kpc;
}

static void kpc_batch_mark(struct kpc_probe **kpc, int num, bool registered)
{
	int i;

	for (i = 0; i < num; i++)
		kpc[i]->registered = registered;
}

/* Call every target of the batch once. */
static void kpc_batch_call(struct kunit *test, long x)
{
	int i;

	for (i = 0; i < KPC_BATCH; i++)
		KUNIT_EXPECT_EQ(test, kpc_batch_fn(i)(x), KPC_BATCH_RESULT(i, x));
	KUNIT_EXPECT_EQ(test, kpc_fn(target)(x), KPC_TARGET(x));
}

/* Each of the batch's probes ran @hits times, its post_handler too. */
static void kpc_batch_expect_hits(struct kunit *test, struct kpc_probe **kpc,
				  int hits)
{
	int i;

	for (i = 0; i < KPC_BATCH_ALL; i++) {
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kpc[i]->pre_hits), hits,
				    "probe %d at %ps", i, kpc[i]->kp.addr);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kpc[i]->post_hits),
				    kpc[i]->kp.post_handler ? hits : 0,
				    "probe %d at %ps", i, kpc[i]->kp.addr);
		KUNIT_EXPECT_EQ(test, kpc[i]->kp.nmissed, 0);
	}
}

/*
 * register_kprobes() of many probes, call sites and breakpoints mixed,
 * two of them on one address: each runs exactly once per call of its
 * function; after unregister_kprobes() none runs and none is found.
 */
static void register_kprobes_batch_hits_each_once(struct kunit *test)
{
	struct kprobe **kps;
	struct kpc_probe **kpc;
	unsigned long site;
	int i;

	kps = kunit_kcalloc(test, KPC_BATCH_ALL, sizeof(*kps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kps);
	kpc = kpc_batch_new(test, kps);

	KUNIT_ASSERT_EQ(test, register_kprobes(kps, KPC_BATCH_ALL), 0);
	kpc_batch_mark(kpc, KPC_BATCH_ALL, true);
	for (i = 0; i < KPC_BATCH; i++) {
		site = ftrace_location((unsigned long)kpc_batch_fn(i));
		KUNIT_EXPECT_EQ_MSG(test, kprobe_ftrace(kps[i]),
				    IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) &&
				    site == (unsigned long)kps[i]->addr,
				    "probe %d at %ps", i, kps[i]->addr);
		if (i >= KPC_BATCH_HALF)
			KUNIT_EXPECT_FALSE(test, kprobe_ftrace(kps[i]));
		KUNIT_EXPECT_FALSE(test, kprobe_disabled(kps[i]));
	}
	kpc_expect_aggregate(test, kpc[KPC_BATCH], kpc[KPC_BATCH + 1]);

	kpc_batch_call(test, 1);
	kpc_batch_expect_hits(test, kpc, 1);
	kpc_batch_call(test, 2);
	kpc_batch_expect_hits(test, kpc, 2);

	unregister_kprobes(kps, KPC_BATCH_ALL);
	kpc_batch_mark(kpc, KPC_BATCH_ALL, false);
	for (i = 0; i < KPC_BATCH_ALL; i++)
		KUNIT_EXPECT_NULL(test, kpc_hashed(kps[i]->addr));
	kpc_batch_call(test, 3);
	kpc_batch_expect_hits(test, kpc, 2);
}

/* Where the last probe of a failing batch is refused. */
static const struct kpc_refusal kpc_batch_refusals[] = {
	/* by the checks, before any probe of the batch is in */
	{ "last one unknown", KPC_AT_UNKNOWN },
	/* by the arch, after the others are in and queued */
	{ "last one inside an instruction", KPC_AT_INSIDE_INSN },
};

KUNIT_ARRAY_PARAM_DESC(kpc_batch_refusal, kpc_batch_refusals, desc);

/*
 * A batch whose last probe is refused registers none: the call fails
 * with that probe's errno, no probe of the batch is found or runs, and
 * the same batch without it then registers and runs.
 */
static void register_kprobes_batch_fails_whole(struct kunit *test)
{
	const struct kpc_refusal *refusal = test->param_value;
	struct kpc_probe **kpc, *bad;
	struct kprobe **kps;
	int i, want;

	kps = kunit_kcalloc(test, KPC_BATCH_ALL + 1, sizeof(*kps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kps);
	kpc = kpc_batch_new(test, kps);
	bad = kpc_new(test, 'Z', NULL, 0);
	want = kpc_refusal_setup(test, &bad->kp, refusal->at);
	kps[KPC_BATCH_ALL] = &bad->kp;

	KUNIT_EXPECT_EQ(test, register_kprobes(kps, KPC_BATCH_ALL + 1), want);
	for (i = 0; i < KPC_BATCH_ALL; i++)
		KUNIT_EXPECT_NULL(test, kpc_hashed(kps[i]->addr));
	kpc_batch_call(test, 1);
	kpc_batch_expect_hits(test, kpc, 0);
	KUNIT_EXPECT_STREQ(test, kpc_log, "");

	/* As register_kprobes_all_or_nothing() says: clean them first. */
	for (i = 0; i < KPC_BATCH_ALL; i++)
		kps[i]->flags = 0;
	kps[KPC_BATCH]->addr = NULL;
	kps[KPC_BATCH + 1]->addr = NULL;
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, KPC_BATCH_ALL), 0);
	kpc_batch_mark(kpc, KPC_BATCH_ALL, true);
	kpc_batch_call(test, 2);
	kpc_batch_expect_hits(test, kpc, 1);

	unregister_kprobes(kps, KPC_BATCH_ALL);
	kpc_batch_mark(kpc, KPC_BATCH_ALL, false);
	kpc_batch_call(test, 3);
	kpc_batch_expect_hits(test, kpc, 1);
}

/*
 * kprobe_lookup_name() remembers the last image symbol it found: looking
 * names up in turn, again, as a prefix of one just found, or unknown,
 * each gives what kallsyms gives, never the remembered one's address.
 */
static void lookup_name_cache_keeps_names_apart(struct kunit *test)
{
	static const char * const names[] = {
		"kpc_target", "kpc_target", "kpc_plain", "kpc_target",
		"kpc_targe", "kpc_target_none", "kpc_plain", "",
	};
	unsigned long want, got;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		want = kallsyms_lookup_name(names[i]);
		KUNIT_EXPECT_EQ_MSG(test, (unsigned long)kprobe_lookup_name(names[i], 0),
				    want, "lookup %u of \"%s\"", i, names[i]);
		/* Not preemptible: past the cache, with the same answer. */
		preempt_disable();
		got = (unsigned long)kprobe_lookup_name(names[i], 0);
		preempt_enable();
		KUNIT_EXPECT_EQ_MSG(test, got, want, "atomic lookup %u of \"%s\"",
				    i, names[i]);
	}
	KUNIT_EXPECT_NE(test, kallsyms_lookup_name("kpc_target"), 0);
	KUNIT_EXPECT_EQ(test, kallsyms_lookup_name("kpc_targe"), 0);
}

/*
 * A kthread that calls the batch's notrace targets (breakpoint probes on
 * their entries) round after round, counting the rounds and any wrong
 * result, until it is stopped.
 */
struct kpc_hammer {
	struct task_struct	*task;
	atomic_long_t		rounds;
	atomic_long_t		wrong;
};

static atomic_long_t kpc_hammer_hits;

static int kpc_hammer_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&kpc_hammer_hits);
	return 0;
}

static void kpc_hammer_post(struct kprobe *p, struct pt_regs *regs,
			    unsigned long flags)
{
}

static int kpc_hammer_fn(void *arg)
{
	struct kpc_hammer *h = arg;
	long x = 0;
	int i;

	while (!kthread_should_stop()) {
		for (i = KPC_BATCH_HALF; i < KPC_BATCH; i++) {
			if (kpc_batch_fn(i)(x) != KPC_BATCH_RESULT(i, x))
				atomic_long_inc(&h->wrong);
		}
		atomic_long_inc(&h->rounds);
		/*
		 * A sleep now and then: the optimizer's RCU-tasks wait needs
		 * this task to switch out by itself.
		 */
		if (!(++x % 64))
			usleep_range(50, 100);
	}
	return 0;
}

static void kpc_hammer_stop(void *arg)
{
	struct kpc_hammer *h = arg;

	kthread_stop(h->task);
}

/* Wait until the hammer has made @n more rounds; false after KPC_WAIT. */
static bool kpc_hammer_wait(struct kpc_hammer *h, long n)
{
	long until = atomic_long_read(&h->rounds) + n;
	unsigned long timeout = jiffies + KPC_WAIT;

	while (atomic_long_read(&h->rounds) < until) {
		if (time_after(jiffies, timeout))
			return false;
		usleep_range(100, 200);
	}
	return true;
}

#define KPC_HAMMER_ROUNDS	20

/*
 * unregister_kprobes() of a batch of breakpoint probes while another CPU
 * keeps running into them: their breakpoints leave the text together,
 * before any probe leaves the table, so a CPU never meets a breakpoint
 * without its probe (that would be a fatal trap); every call returns
 * its result, the probes hit while registered, and not once after the
 * call returns.  Every other probe has a post_handler, so that it stays
 * a lone probe which no jump replaces; the others become aggregates the
 * optimizer may take.
 */
static void unregister_kprobes_batch_while_hit(struct kunit *test)
{
	struct kprobe *kp, **kps;
	struct kpc_hammer *h;
	long hits;
	int round, i, ret;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU to run the probed functions");

	kp = kunit_kcalloc(test, KPC_BATCH_HALF, sizeof(*kp), GFP_KERNEL);
	kps = kunit_kcalloc(test, KPC_BATCH_HALF, sizeof(*kps), GFP_KERNEL);
	h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kp);
	KUNIT_ASSERT_NOT_NULL(test, kps);
	KUNIT_ASSERT_NOT_NULL(test, h);
	h->task = kthread_run(kpc_hammer_fn, h, "kpc_hammer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(h->task));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpc_hammer_stop, h), 0);

	for (round = 0; round < KPC_HAMMER_ROUNDS; round++) {
		memset(kp, 0, KPC_BATCH_HALF * sizeof(*kp));
		for (i = 0; i < KPC_BATCH_HALF; i++) {
			kp[i].addr = (kprobe_opcode_t *)kpc_batch_fn(KPC_BATCH_HALF + i);
			kp[i].pre_handler = kpc_hammer_pre;
			if (i % 2)
				kp[i].post_handler = kpc_hammer_post;
			kps[i] = &kp[i];
		}
		hits = atomic_long_read(&kpc_hammer_hits);
		ret = register_kprobes(kps, KPC_BATCH_HALF);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "round %d", round);
		for (i = 0; i < KPC_BATCH_HALF; i++)
			KUNIT_EXPECT_FALSE(test, kprobe_ftrace(kps[i]));
		KUNIT_EXPECT_TRUE(test, kpc_hammer_wait(h, 2));
		unregister_kprobes(kps, KPC_BATCH_HALF);
		KUNIT_EXPECT_GT_MSG(test, atomic_long_read(&kpc_hammer_hits), hits,
				    "round %d", round);

		hits = atomic_long_read(&kpc_hammer_hits);
		KUNIT_EXPECT_TRUE(test, kpc_hammer_wait(h, 2));
		KUNIT_EXPECT_EQ_MSG(test, atomic_long_read(&kpc_hammer_hits), hits,
				    "round %d: a hit after unregister_kprobes()", round);
	}
	KUNIT_EXPECT_EQ(test, atomic_long_read(&h->wrong), 0);
}

#ifdef KPC_HAS_NAME_WALK
/*
 * Names taken from kallsyms for the name-walk cases: every @every-th
 * symbol, or with @call_sites the functions a probe may go on the call
 * site of, until @max.
 */
struct kpc_names {
	struct kprobe	*kps;
	struct kprobe	**ptrs;
	unsigned long	*addrs;		/* where kallsyms listed each */
	char		*pool;
	size_t		pool_used, pool_size;
	unsigned int	nr, max, every, seen;
	bool		call_sites;
};

static int kpc_no_handler(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static void kpc_no_post(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
}

static void kpc_kvfree_action(void *p)
{
	kvfree(p);
}

/* kvzalloc() memory the case's end frees; NULL if there is none. */
static void *kpc_kvzalloc(struct kunit *test, size_t size)
{
	void *p = kvzalloc(size, GFP_KERNEL);

	if (p && kunit_add_action_or_reset(test, kpc_kvfree_action, p))
		return NULL;
	return p;
}

/* Names a name-walk case shows when they come out wrong. */
#define KPC_NAMES_SHOWN		5

/* Is @name, at @addr, a function a probe may go on the call site of? */
static bool kpc_probeable_site(const char *name, unsigned long addr)
{
	struct kprobe scratch = { };
	struct module *mod;
	kprobe_opcode_t *at;
	bool on_entry;

	if (!core_kernel_text(addr) || is_kernel_inittext(addr) ||
	    !ftrace_location(addr))
		return false;
	/* The one-by-one lookup must land on this very symbol. */
	at = kprobe_resolve_addr(NULL, name, 0, &on_entry);
	if (IS_ERR(at) || !on_entry || ftrace_location(addr) != (unsigned long)at)
		return false;
	scratch.addr = at;
	if (kprobe_check_site(&scratch, &mod))
		return false;
	if (mod)
		module_put(mod);
	return scratch.flags & KPROBE_FLAG_FTRACE;
}

static int kpc_take_name(void *data, const char *name, unsigned long addr)
{
	struct kpc_names *n = data;
	size_t len = strlen(name) + 1;

	if (n->nr == n->max || n->pool_used + len > n->pool_size)
		return 1;
	if (n->every && n->seen++ % n->every)
		return 0;
	if (n->call_sites && !kpc_probeable_site(name, addr))
		return 0;

	memcpy(n->pool + n->pool_used, name, len);
	n->kps[n->nr].symbol_name = n->pool + n->pool_used;
	n->kps[n->nr].pre_handler = kpc_no_handler;
	n->kps[n->nr].post_handler = kpc_no_post;
	n->ptrs[n->nr] = &n->kps[n->nr];
	n->addrs[n->nr] = addr;
	n->pool_used += len;
	n->nr++;
	return 0;
}

/* Room for @max names plus @extra probes the case adds itself. */
static void kpc_names_take(struct kunit *test, struct kpc_names *n,
			   unsigned int max, unsigned int extra)
{
	unsigned int i;

	n->max = max;
	n->pool_size = (size_t)max * 48;
	n->kps = kpc_kvzalloc(test, (max + extra) * sizeof(*n->kps));
	n->ptrs = kpc_kvzalloc(test, (max + extra) * sizeof(*n->ptrs));
	n->addrs = kpc_kvzalloc(test, max * sizeof(*n->addrs));
	n->pool = kpc_kvzalloc(test, n->pool_size);
	KUNIT_ASSERT_TRUE(test, n->kps && n->ptrs && n->addrs && n->pool);
	kallsyms_on_each_symbol(kpc_take_name, n);
	for (i = n->nr; i < max + extra; i++)
		n->ptrs[i] = &n->kps[i];
}

/*
 * The batch's one walk of kallsyms finds, for every name, the address
 * the one-by-one lookup gives: for names kallsyms lists more than once
 * too (the walk keeps the first it meets, the lookup the first of its
 * sorted names), and for a name the batch holds twice.  What the walk
 * cannot give it leaves NULL, for the lookup one by one: a name not in
 * the kernel image, an empty one, and a probe given by address.
 */
static void lookup_names_walk_matches_lookup(struct kunit *test)
{
	struct kpc_names n = { .every = 16 };
	kprobe_opcode_t **found, *want;
	unsigned int i, extra = 4, dups = 0, wrong = 0;

	kpc_names_take(test, &n, kallsyms_num_syms / n.every + 1, extra);
	KUNIT_ASSERT_GT(test, n.nr, 100);
	n.kps[n.nr].symbol_name = n.kps[n.nr / 2].symbol_name;
	n.kps[n.nr + 1].symbol_name = "kpc_no_such_function";
	n.kps[n.nr + 2].symbol_name = "";
	n.kps[n.nr + 3].symbol_name = "kpc_target";
	n.kps[n.nr + 3].addr = (kprobe_opcode_t *)kpc_target;

	found = kprobe_lookup_names(n.ptrs, n.nr + extra, true);
	KUNIT_ASSERT_NOT_NULL(test, found);
	for (i = 0; i < n.nr; i++) {
		want = (kprobe_opcode_t *)kallsyms_lookup_name(n.kps[i].symbol_name);
		if ((unsigned long)want != n.addrs[i])
			dups++;
		if (found[i] != want && wrong++ < KPC_NAMES_SHOWN)
			kunit_info(test, "%s: walk %pS, lookup %pS\n",
				   n.kps[i].symbol_name, found[i], want);
	}
	KUNIT_EXPECT_EQ(test, wrong, 0);
	KUNIT_EXPECT_PTR_EQ(test, found[n.nr], found[n.nr / 2]);
	KUNIT_EXPECT_NULL(test, found[n.nr + 1]);
	KUNIT_EXPECT_NULL(test, found[n.nr + 2]);
	KUNIT_EXPECT_NULL(test, found[n.nr + 3]);
	kvfree(found);
	/* Names listed twice, whose later symbol was taken: the ties were tried. */
	kunit_info(test, "%u names, %u of them listed before at another address\n",
		   n.nr, dups);
	KUNIT_EXPECT_GT(test, dups, 0);
}

/*
 * register_kprobes() of as many named probes as make the walk worth it
 * (one for every 64 symbols, kprobes_addr.c): each gets the address a
 * registration of its own gives it, and all come out again; with one
 * probe given twice, the array is refused whole.  The probes start
 * disabled, so no text is written.
 */
static void register_kprobes_many_names_resolve_each(struct kunit *test)
{
	struct kpc_names n = { .call_sites = true };
	kprobe_opcode_t **want;
	unsigned int i, max = kallsyms_num_syms / 64 + 1, wrong = 0;
	bool on_entry;

	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		kunit_skip(test, "probes on call sites need KPROBES_ON_FTRACE");
	kpc_names_take(test, &n, max, 0);
	if (n.nr < max)
		kunit_skip(test, "only %u functions with call sites to probe", n.nr);

	want = kpc_kvzalloc(test, n.nr * sizeof(*want));
	KUNIT_ASSERT_NOT_NULL(test, want);
	for (i = 0; i < n.nr; i++) {
		want[i] = kprobe_resolve_addr(NULL, n.kps[i].symbol_name, 0, &on_entry);
		KUNIT_ASSERT_FALSE(test, IS_ERR(want[i]));
		n.kps[i].flags = KPROBE_FLAG_DISABLED;
	}

	KUNIT_ASSERT_EQ(test, register_kprobes(n.ptrs, n.nr), 0);
	for (i = 0; i < n.nr; i++) {
		if (n.kps[i].addr != want[i] && wrong++ < KPC_NAMES_SHOWN)
			kunit_info(test, "%s: at %pS, alone at %pS\n",
				   n.kps[i].symbol_name, n.kps[i].addr, want[i]);
	}
	kunit_info(test, "%u probes, %u at another address than alone\n",
		   n.nr, wrong);
	KUNIT_EXPECT_EQ(test, wrong, 0);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&n.kps[0]));
	KUNIT_EXPECT_NOT_NULL(test, kpc_hashed(want[0]));
	KUNIT_EXPECT_NOT_NULL(test, kpc_hashed(want[n.nr - 1]));
	unregister_kprobes(n.ptrs, n.nr);
	for (i = 0; i < n.nr; i++)
		KUNIT_EXPECT_NULL(test, kpc_hashed(want[i]));

	/*
	 * One struct twice in such an array: refused with -EINVAL when its
	 * second turn finds its address set, as one by one, and none in.
	 */
	for (i = 0; i < n.nr; i++) {
		n.kps[i].addr = NULL;
		n.kps[i].flags = KPROBE_FLAG_DISABLED;
	}
	n.ptrs[n.nr - 1] = &n.kps[0];
	KUNIT_EXPECT_EQ(test, register_kprobes(n.ptrs, n.nr), -EINVAL);
	for (i = 0; i < n.nr - 1; i++)
		KUNIT_EXPECT_NULL(test, kpc_hashed(want[i]));
}
#endif /* KPC_HAS_NAME_WALK */

#ifdef KPC_HAS_ARM_ALL
static void kpc_noop(unsigned long ip, unsigned long parent_ip,
		     struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
}

/* An ops that may move the ip: a second one on a site is refused. */
static struct ftrace_ops kpc_blocker = {
	.func	= kpc_noop,
	.flags	= FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static void kpc_arm_all_action(void *unused)
{
	kprobes_arm_all();
}

/* Put the blocker on @fn's call site; 0 or its errno. */
static int kpc_block(struct kunit *test, void *fn)
{
	int ret;

	ret = ftrace_set_filter_ip(&kpc_blocker, ftrace_location((unsigned long)fn),
				   0, 1);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = register_ftrace_function(&kpc_blocker);
	if (ret)
		ftrace_free_filter(&kpc_blocker);
	return ret;
}

static void kpc_unblock(void)
{
	unregister_ftrace_function(&kpc_blocker);
	ftrace_free_filter(&kpc_blocker);
}

/*
 * Arming everything again (debugfs "enabled") while another ops that may
 * move the ip holds one probe's call site: that probe cannot be armed and
 * is marked DISABLED, the others are armed.  Unregistering them together
 * then takes every site out of the kprobes ops, which frees the sites for
 * another such ops; 6.12 counted the unarmed probe as armed, and ours,
 * in one batch, then left all the batch's sites hooked.
 */
static void arm_all_failure_leaves_no_site_hooked(struct kunit *test)
{
	struct kpc_probe *a, *b;
	struct kprobe *kps[2];

	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) ||
	    !ftrace_location((unsigned long)kpc_batch_fn(0)) ||
	    !ftrace_location((unsigned long)kpc_batch_fn(1)))
		kunit_skip(test, "no call-site kprobes on the batch targets");

	a = kpc_new(test, 'A', NULL, 0);
	b = kpc_new(test, 'B', NULL, 0);
	a->kp.addr = (kprobe_opcode_t *)kpc_batch_fn(0);
	b->kp.addr = (kprobe_opcode_t *)kpc_batch_fn(1);
	kpc_register(test, a);
	kpc_register(test, b);
	KUNIT_ASSERT_TRUE(test, kprobe_ftrace(&a->kp) && kprobe_ftrace(&b->kp));

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpc_arm_all_action, NULL), 0);
	KUNIT_ASSERT_EQ(test, kprobes_disarm_all(), 0);
	KUNIT_ASSERT_EQ(test, kpc_block(test, kpc_batch_fn(0)), 0);
	KUNIT_EXPECT_LT(test, kprobes_arm_all(), 0);
	kpc_unblock();
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&a->kp));
	KUNIT_EXPECT_FALSE(test, kprobe_disabled(&b->kp));

	kpc_batch_fn(0)(1);
	kpc_batch_fn(1)(1);
	KUNIT_EXPECT_STREQ(test, kpc_log, "Bb");

	kps[0] = &a->kp;
	kps[1] = &b->kp;
	unregister_kprobes(kps, 2);
	a->registered = false;
	b->registered = false;

	/* No kprobes ops keeps either site: another IPMODIFY ops may come. */
	KUNIT_EXPECT_EQ(test, kpc_block(test, kpc_batch_fn(1)), 0);
	kpc_unblock();
	KUNIT_EXPECT_EQ(test, kpc_block(test, kpc_batch_fn(0)), 0);
	kpc_unblock();
	kpc_batch_fn(1)(2);
	KUNIT_EXPECT_STREQ(test, kpc_log, "Bb");
}
#endif /* KPC_HAS_ARM_ALL */

/*
 * kprobes/list has one line per kprobe, with its flags: a breakpoint none,
 * a probe on a call site [FTRACE], a disabled one [DISABLED] first.  The
 * lines follow enable_kprobe() and disable_kprobe(), and an unregistered
 * probe's line goes.
 */
static void debugfs_list_shows_each_probe(struct kunit *test)
{
	struct kpc_probe *plain, *entry, *mid;
	char *list, *plain_line, *mid_line;
	const char *site;

	list = kpc_list(test, NULL);
	KUNIT_EXPECT_NULL(test, strstr(list, "kpc_"));

	plain = kpc_new(test, 'P', "kpc_plain", 0);
	entry = kpc_new(test, 'E', "kpc_target", 0);
	mid = kpc_new(test, 'M', "kpc_target", kpc_mid_offset(test));
	entry->kp.flags = KPROBE_FLAG_DISABLED;
	kpc_register(test, plain);
	kpc_register(test, entry);
	kpc_register(test, mid);
	site = kprobe_ftrace(&entry->kp) ? "[FTRACE]" : "";

	kpc_list(test, list);
	plain_line = kpc_line(test, &plain->kp, "k", "kpc_plain", "");
	mid_line = kpc_line(test, &mid->kp, "k", "kpc_target", "");
	kpc_expect_listed(test, list, plain_line, 1);
	kpc_expect_listed(test, list, mid_line, 1);
	kpc_expect_listed(test, list, kpc_line(test, &entry->kp, "k", "kpc_target",
					       kprobe_ftrace(&entry->kp) ?
					       "[DISABLED][FTRACE]" : "[DISABLED]"), 1);

	KUNIT_ASSERT_EQ(test, disable_kprobe(&plain->kp), 0);
	KUNIT_ASSERT_EQ(test, enable_kprobe(&entry->kp), 0);
	kpc_unregister(mid);

	kpc_list(test, list);
	kpc_expect_listed(test, list, plain_line, 0);
	kpc_expect_listed(test, list, mid_line, 0);
	kpc_expect_listed(test, list, kpc_line(test, &plain->kp, "k", "kpc_plain",
					       "[DISABLED]"), 1);
	kpc_expect_listed(test, list, kpc_line(test, &entry->kp, "k", "kpc_target",
					       site), 1);
}

/*
 * kprobes/blacklist: one "0xSTART-0xEND\tSYMBOL" line per blacklisted
 * function, every address as wide as a pointer, the range that of the
 * function as kallsyms sizes it.  A NOKPROBE_SYMBOL(), a function of
 * .kprobes.text and one of .noinstr.text each have exactly one line; a
 * function that may be probed has none.
 */
static void debugfs_blacklist_lists_ranges(struct kunit *test)
{
	void *listed[] = { kpc_forbidden, kpc_kprobes_text, kpc_noinstr };
	int lines = 0, bad = 0;
	unsigned int i;
	const char *s;
	char *list;

	list = kpc_debugfs_text(test, "kprobes/blacklist", NULL, KPC_BLACKLIST_SIZE);
	for (s = list; *s; s = kpc_next_line(s)) {
		lines++;
		if (kpc_blacklist_line_ok(s))
			continue;
		if (!bad++)
			KUNIT_FAIL(test, "kprobes/blacklist line %d: %.*s", lines,
				   (int)(strchrnul(s, '\n') - s), s);
	}
	KUNIT_EXPECT_GE(test, lines, (int)ARRAY_SIZE(listed));
	KUNIT_EXPECT_EQ(test, bad, 0);

	for (i = 0; i < ARRAY_SIZE(listed); i++)
		kpc_expect_listed(test, list, kpc_range_line(test, listed[i]), 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(list, "\tkpc_forbidden\n"));
	KUNIT_EXPECT_NULL(test, strstr(list, "\tkpc_target\n"));
}

static void kpc_file_close_action(void *arg)
{
	kpc_file_close(arg);
}

/* A page of user memory: kprobes/enabled reads and writes nothing else. */
static char __user *kpc_user_page(struct kunit *test)
{
	unsigned long addr;

	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_TRUE_MSG(test, addr && !IS_ERR_VALUE(addr),
			      "no user memory (%ld)", (long)addr);
	return (char __user *)addr;
}

/* What write(2) of @val to @file from @ubuf returns. */
static ssize_t kpc_user_write(struct file *file, char __user *ubuf,
			      const char *val)
{
	size_t len = strlen(val);
	loff_t pos = 0;

	if (copy_to_user(ubuf, val, len))
		return -EFAULT;
	return vfs_write(file, ubuf, len, &pos);
}

/* The digit kprobes/enabled reads, if it reads a digit and a newline. */
static char kpc_enabled_state(struct file *file, char __user *ubuf)
{
	loff_t pos = 0;
	char got[2];

	if (vfs_read(file, ubuf, 4, &pos) != 2 ||
	    copy_from_user(got, ubuf, sizeof(got)) || got[1] != '\n')
		return '?';
	return got[0];
}

/*
 * Writing 0 to kprobes/enabled disarms every probe without disabling any:
 * none runs, each keeps its own state, the file reads 0, and a word that
 * is no boolean is refused.  Writing 1 arms them again, a call site and a
 * breakpoint alike, and a disabled probe stays off.  The file is read and
 * written from user memory, as a user does.
 */
static void debugfs_enabled_disarms_and_rearms_all(struct kunit *test)
{
	char __user *ubuf = kpc_user_page(test);
	struct kpc_probe *entry, *mid, *off;
	struct kpc_file *f;
	int ret;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	ret = kpc_file_open(f, "debugfs", "kprobes/enabled", O_RDWR);
	if (ret == -ENODEV || ret == -EPERM || ret == -ENOENT)
		kunit_skip(test, "no debugfs kprobes/enabled here (%d)", ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpc_file_close_action, f), 0);
	KUNIT_ASSERT_EQ(test, kpc_enabled_state(f->file, ubuf), '1');

	entry = kpc_new(test, 'E', "kpc_target", 0);
	mid = kpc_new(test, 'M', "kpc_target", kpc_mid_offset(test));
	off = kpc_new(test, 'O', "kpc_plain", 0);
	off->kp.flags = KPROBE_FLAG_DISABLED;
	kpc_register(test, entry);
	kpc_register(test, mid);
	kpc_register(test, off);
#ifdef KPC_HAS_ARM_ALL
	/* Should the write of 1 below fail, nothing stays disarmed. */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpc_arm_all_action, NULL), 0);
#endif
	kpc_fn(target)(1);
	KUNIT_EXPECT_STREQ(test, kpc_log, "EeMm");

	/* Expectations only from here to the write of 1: none ends the case. */
	KUNIT_EXPECT_EQ(test, kpc_user_write(f->file, ubuf, "0\n"), 2);
	KUNIT_EXPECT_EQ(test, kpc_enabled_state(f->file, ubuf), '0');
	KUNIT_EXPECT_EQ(test, kpc_fn(target)(2), KPC_TARGET(2));
	KUNIT_EXPECT_EQ(test, kpc_fn(plain)(2), KPC_PLAIN(2));
	KUNIT_EXPECT_STREQ(test, kpc_log, "EeMm");
	KUNIT_EXPECT_FALSE(test, kprobe_disabled(&entry->kp));
	KUNIT_EXPECT_FALSE(test, kprobe_disabled(&mid->kp));
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&off->kp));
	KUNIT_EXPECT_EQ(test, kpc_user_write(f->file, ubuf, "maybe\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpc_enabled_state(f->file, ubuf), '0');
	KUNIT_EXPECT_EQ(test, kpc_user_write(f->file, ubuf, "1\n"), 2);

	KUNIT_EXPECT_EQ(test, kpc_enabled_state(f->file, ubuf), '1');
	KUNIT_EXPECT_EQ(test, kpc_fn(target)(3), KPC_TARGET(3));
	KUNIT_EXPECT_EQ(test, kpc_fn(plain)(3), KPC_PLAIN(3));
	KUNIT_EXPECT_STREQ(test, kpc_log, "EeMmEeMm");
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&off->kp));
	KUNIT_EXPECT_EQ(test, entry->kp.nmissed + mid->kp.nmissed, 0);
}

/*
 * Skip unless no probe but the case's own can be in the kernel's init
 * memory: kprobe_free_init_mem() marks every probe there GONE.  @list is
 * kprobes/list from before the case registered anything.
 */
static void kpc_skip_if_init_probed(struct kunit *test, const char *list)
{
	unsigned long addr;
	const char *s;

	if (!kallsyms_show_value(current_cred()))
		kunit_skip(test, "kprobes/list hides the addresses");
	for (s = list; *s; s = kpc_next_line(s)) {
		if (kpc_hex_digits(s, &addr) &&
		    addr >= (unsigned long)__init_begin &&
		    addr < (unsigned long)__init_end)
			kunit_skip(test, "another probe is in the init text, at %pS",
				   (void *)addr);
	}
}

/*
 * A probe whose text goes away is GONE.  Without a module, the kernel's
 * own init text is such text: the built-in run, before it is freed,
 * probes kpc_init_target() and calls kprobe_free_init_mem() (which
 * kernel_init() calls again before the free).  kprobes/list then shows
 * the probe's line with [GONE], which hides [DISABLED] once the probe is
 * disabled too; the probe cannot be enabled again, and unregistering it
 * leaves nothing at the address.  Disabling it puts the text back: the
 * init text is still there.
 */
static void debugfs_list_marks_gone_probe(struct kunit *test)
{
	struct kpc_probe *kpc;
	struct kprobe *top;
	char *list, *gone;
	void *addr;

	if (system_state >= SYSTEM_FREEING_INITMEM)
		kunit_skip(test, "the init text is freed already");
	list = kpc_list(test, NULL);
	kpc_skip_if_init_probed(test, list);

	kpc = kpc_new(test, 'G', "kpc_init_target", 0);
	kpc_register(test, kpc);
	addr = kpc->kp.addr;
	KUNIT_ASSERT_TRUE(test, (char *)addr >= __init_begin && (char *)addr < __init_end);
	kpc_list(test, list);
	kpc_expect_listed(test, list, kpc_line(test, &kpc->kp, "k", "kpc_init_target", ""), 1);

	kprobe_free_init_mem();
	KUNIT_EXPECT_TRUE(test, kprobe_gone(&kpc->kp));
	top = kpc_hashed(addr);
	KUNIT_EXPECT_TRUE(test, top && kprobe_gone(top));
	gone = kpc_line(test, &kpc->kp, "k", "kpc_init_target", "[GONE]");
	kpc_list(test, list);
	kpc_expect_listed(test, list, gone, 1);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kpc->kp), -EINVAL);

	KUNIT_EXPECT_EQ(test, disable_kprobe(&kpc->kp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&kpc->kp));
	kpc_list(test, list);
	kpc_expect_listed(test, list, gone, 1);

	kpc_unregister(kpc);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_NULL(test, kpc_hashed(addr));
	kpc_list(test, list);
	KUNIT_EXPECT_NULL(test, strstr(list, "kpc_init_target"));
}

/* ---- jump optimization -------------------------------------------------- */

struct kpc_unreg_thread {
	struct kprobe		*kp;
	struct completion	done;
};

static int kpc_unreg_fn(void *arg)
{
	struct kpc_unreg_thread *t = arg;

	unregister_kprobe(t->kp);
	complete(&t->done);
	return 0;
}

/*
 * Whether the top probe at @addr is an aggregate left without children:
 * the state of a jump probe just unregistered, whose jump the optimizer
 * has still to take out.  *@gone is set once nothing is at @addr.
 */
static bool kpc_childless_at(void *addr, bool *gone)
{
	struct kprobe *top;
	bool childless;

	preempt_disable();
	top = get_kprobe(addr);
	*gone = !top;
	childless = top && top->pre_handler != kpc_pre &&
		    list_empty(&top->list);
	preempt_enable();
	return childless;
}

/* Is the top probe at @addr a jump now? */
static bool kpc_jumps_at(void *addr)
{
	struct kprobe *top;
	bool jump;

	preempt_disable();
	top = get_kprobe(addr);
	jump = top && kprobe_optimized(top);
	preempt_enable();
	return jump;
}

/* The bytes x86's jump takes: a probe on any but the first blocks it. */
#define KPC_JUMP_LEN		5

/*
 * A jump that a neighbour's breakpoint blocked comes back when that
 * neighbour is disabled, and goes again when it is enabled: a probe on
 * kpc_paired()'s entry becomes a jump; a probe with a post_handler (a
 * breakpoint for good) on an instruction the jump covers turns it back
 * into a breakpoint; each probe runs exactly when it is enabled.
 */
static void blocked_jump_returns_when_neighbour_goes(struct kunit *test)
{
	struct kpc_probe *a, *b;
	unsigned int off;
	int ret = -EILSEQ;

	if (!IS_ENABLED(CONFIG_OPTPROBES) || !IS_ENABLED(CONFIG_X86))
		kunit_skip(test, "no x86 jump optimization here");

	a = kpc_new(test, 'A', "kpc_paired", 0);
	a->kp.post_handler = NULL;
	kpc_register(test, a);
	wait_for_kprobe_optimizer();
	if (!kpc_jumps_at(a->kp.addr))
		kunit_skip(test, "the probe at %pS got no jump", a->kp.addr);

	/* The first instruction boundary under the jump. */
	b = kpc_new(test, 'B', NULL, 0);
	for (off = 1; off < KPC_JUMP_LEN && ret == -EILSEQ; off++) {
		b->kp.addr = (kprobe_opcode_t *)a->kp.addr + off;
		b->kp.flags = 0;
		ret = register_kprobe(&b->kp);
	}
	if (ret == -EILSEQ)
		kunit_skip(test, "the first instruction at %pS fills the jump",
			   a->kp.addr);
	KUNIT_ASSERT_EQ(test, ret, 0);
	b->registered = true;
	KUNIT_EXPECT_FALSE(test, kpc_jumps_at(a->kp.addr));
	KUNIT_EXPECT_EQ(test, kpc_fn(paired)(5), kpc_paired_result(5));
	KUNIT_EXPECT_STREQ(test, kpc_log, "ABb");

	KUNIT_ASSERT_EQ(test, disable_kprobe(&b->kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE_MSG(test, kpc_jumps_at(a->kp.addr),
			      "the jump at %pS did not come back", a->kp.addr);
	KUNIT_EXPECT_EQ(test, kpc_fn(paired)(6), kpc_paired_result(6));
	KUNIT_EXPECT_STREQ(test, kpc_log, "ABbA");

	KUNIT_ASSERT_EQ(test, enable_kprobe(&b->kp), 0);
	KUNIT_EXPECT_FALSE(test, kpc_jumps_at(a->kp.addr));
	KUNIT_EXPECT_EQ(test, kpc_fn(paired)(7), kpc_paired_result(7));
	KUNIT_EXPECT_STREQ(test, kpc_log, "ABbAABb");
}

/*
 * Unregistering a jump probe leaves its aggregate in the table, without
 * children, until the optimizer has turned the jump back into a
 * breakpoint and taken it out.  A probe registered disabled at the
 * address in that moment, as trace_kprobe registers all its probes,
 * must leave it off; and once that probe is unregistered too, nothing
 * may stay at the address.
 */
static void disabled_probe_leaves_dying_jump_off(struct kunit *test)
{
	bool childless = false, gone = false;
	struct kpc_unreg_thread *t;
	struct task_struct *task;
	struct kpc_probe *a, *b;
	unsigned long deadline;
	struct kprobe *top;
	void *addr;
	int ret = 0;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, "no jump optimization here");

	a = kpc_new(test, 'J', "kpc_jumpable", 0);
	a->kp.post_handler = NULL;	/* it would keep the breakpoint */
	kpc_register(test, a);
	addr = a->kp.addr;
	wait_for_kprobe_optimizer();
	top = kpc_hashed(addr);
	if (!top || !kprobe_optimized(top))
		kunit_skip(test, "the probe at %pS got no jump", addr);
	KUNIT_EXPECT_EQ(test, kpc_fn(jumpable)(3), KPC_JUMPABLE(3));
	KUNIT_EXPECT_STREQ(test, kpc_log, "J");

	b = kpc_new(test, 'K', "kpc_jumpable", 0);
	b->kp.post_handler = NULL;
	b->kp.flags = KPROBE_FLAG_DISABLED;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->kp = &a->kp;
	init_completion(&t->done);
	/* Another task unregisters it and waits out the grace period. */
	a->registered = false;
	task = kthread_run(kpc_unreg_fn, t, "kpc_unreg");
	if (IS_ERR(task)) {
		a->registered = true;
		KUNIT_FAIL_AND_ABORT(test, "no kthread (%ld)", PTR_ERR(task));
	}

	deadline = jiffies + KPC_WAIT;
	while (!gone && time_before(jiffies, deadline)) {
		childless = kpc_childless_at(addr, &gone);
		if (childless)
			break;
		usleep_range(10, 20);
	}
	/*
	 * At once: the optimizer lets some jiffies pass before it runs.  No
	 * assertion before the kthread is done with @a's memory.
	 */
	if (childless) {
		ret = register_kprobe(&b->kp);
		b->registered = !ret;
	}
	wait_for_completion(&t->done);
	if (!childless)
		kunit_skip(test, "the aggregate at %pS went before it was seen", addr);
	KUNIT_ASSERT_EQ(test, ret, 0);

	/* Its only probe is disabled: nothing at the address may be on. */
	wait_for_kprobe_optimizer();
	top = kpc_hashed(addr);
	KUNIT_ASSERT_NOT_NULL(test, top);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(top));
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(top));
	KUNIT_EXPECT_EQ(test, kpc_fn(jumpable)(4), KPC_JUMPABLE(4));
	KUNIT_EXPECT_STREQ(test, kpc_log, "J");

	/* And once it is gone too, nothing is left there. */
	kpc_unregister(b);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_NULL(test, kpc_hashed(addr));
}

/* debug.kprobes-optimization, in a mount of procfs of our own. */
#define KPC_OPT_SYSCTL		"sys/debug/kprobes-optimization"

/*
 * Write @on to debug.kprobes-optimization as a user does, unless it is
 * negative; then read it: 0 or 1, or an errno.
 */
static int kpc_opt_sysctl(int on)
{
	struct kpc_file f;
	ssize_t len = 0;
	loff_t pos = 0;
	char buf[16];
	int ret, now;

	ret = kpc_file_open(&f, "proc", KPC_OPT_SYSCTL, O_RDWR);
	if (ret)
		return ret;
	if (on >= 0)
		len = kernel_write(f.file, on ? "1\n" : "0\n", 2, &pos);
	if (len >= 0)
		len = kpc_read_all(f.file, buf, sizeof(buf));
	kpc_file_close(&f);
	if (len < 0)
		return len;
	ret = kstrtoint(buf, 10, &now);
	return ret ?: now;
}

/* The sysctl's value before the case that switches it. */
static int kpc_opt_saved;

static void kpc_opt_restore(void *unused)
{
	kpc_opt_sysctl(kpc_opt_saved);
}

/* Skip where no probe gets a jump: no optprobes, or the sysctl is 0. */
static void kpc_skip_unless_jumps(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, "no jump optimization here");
	if (!kpc_opt_sysctl(-1))
		kunit_skip(test, "jump optimization is switched off");
}

/*
 * Register @kpc, a probe on kpc_jumpable()'s entry, without its
 * post_handler and let the optimizer run: the top probe at its address,
 * with a jump.  x86-64 must give it one; another arch may skip the case.
 */
static struct kprobe *kpc_register_jump(struct kunit *test, struct kpc_probe *kpc)
{
	struct kprobe *top;

	kpc->kp.post_handler = NULL;
	kpc_register(test, kpc);
	wait_for_kprobe_optimizer();
	top = kpc_hashed(kpc->kp.addr);
	KUNIT_ASSERT_NOT_NULL(test, top);
	if (!kprobe_optimized(top) && !IS_ENABLED(CONFIG_X86_64))
		kunit_skip(test, "the probe at %pS got no jump", kpc->kp.addr);
	KUNIT_ASSERT_TRUE_MSG(test, kprobe_optimized(top), "no jump at %pS",
			      kpc->kp.addr);
	return top;
}

/*
 * kprobes/list marks a probe that has a jump [OPTIMIZED].  The flag is
 * the top probe's, so two probes at one address both have it.  A third
 * one with a post_handler takes the jump away and the flag from all
 * three lines; when it goes, the jump and the flag come back.  Each call
 * runs every enabled pre_handler once, by jump or by breakpoint.
 */
static void debugfs_list_marks_optimized_probes(struct kunit *test)
{
	struct kpc_probe *a, *b, *post;
	char *list, *jump, *plain;
	struct kprobe *top;

	kpc_skip_unless_jumps(test);
	a = kpc_new(test, 'J', "kpc_jumpable", 0);
	b = kpc_new(test, 'K', "kpc_jumpable", 0);
	post = kpc_new(test, 'P', "kpc_jumpable", 0);
	top = kpc_register_jump(test, a);
	b->kp.post_handler = NULL;
	kpc_register(test, b);
	wait_for_kprobe_optimizer();
	KUNIT_ASSERT_PTR_EQ(test, kpc_hashed(a->kp.addr), top);
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(top));

	/* The two lines are alike: one address, one symbol, one top. */
	jump = kpc_line(test, &a->kp, "k", "kpc_jumpable", "[OPTIMIZED]");
	plain = kpc_line(test, &a->kp, "k", "kpc_jumpable", "");
	list = kpc_list(test, NULL);
	kpc_expect_listed(test, list, jump, 2);
	kpc_expect_listed(test, list, plain, 0);
	KUNIT_EXPECT_EQ(test, kpc_fn(jumpable)(1), KPC_JUMPABLE(1));

	kpc_register(test, post);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(top));
	kpc_list(test, list);
	kpc_expect_listed(test, list, jump, 0);
	kpc_expect_listed(test, list, plain, 3);
	KUNIT_EXPECT_EQ(test, kpc_fn(jumpable)(2), KPC_JUMPABLE(2));

	kpc_unregister(post);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(top));
	kpc_list(test, list);
	kpc_expect_listed(test, list, jump, 2);
	kpc_expect_listed(test, list, plain, 0);
	KUNIT_EXPECT_EQ(test, kpc_fn(jumpable)(3), KPC_JUMPABLE(3));

	KUNIT_EXPECT_EQ(test, atomic_read(&a->pre_hits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->pre_hits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&post->pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&post->post_hits), 1);
	KUNIT_EXPECT_EQ(test, a->kp.nmissed + b->kp.nmissed + post->kp.nmissed, 0);
}

/*
 * debug.kprobes-optimization: writing 0 turns every jump back into a
 * breakpoint before the write returns, and none comes back while it is
 * 0: kprobes/list loses [OPTIMIZED], and every hit still runs the
 * handler.  Writing 1 gives the probe its jump again once the optimizer
 * has run.  The sysctl gets its value back when the case ends, however
 * it ends.
 */
static void opt_sysctl_switches_jumps_off_and_on(struct kunit *test)
{
	char *list, *jump, *plain;
	struct kpc_probe *kpc;
	struct kprobe *top;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, "no jump optimization here");
	kpc_opt_saved = kpc_opt_sysctl(-1);
	if (kpc_opt_saved < 0)
		kunit_skip(test, "no %s here (%d)", KPC_OPT_SYSCTL, kpc_opt_saved);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpc_opt_restore, NULL), 0);
	KUNIT_ASSERT_EQ(test, kpc_opt_sysctl(1), 1);

	kpc = kpc_new(test, 'J', "kpc_jumpable", 0);
	top = kpc_register_jump(test, kpc);
	jump = kpc_line(test, &kpc->kp, "k", "kpc_jumpable", "[OPTIMIZED]");
	plain = kpc_line(test, &kpc->kp, "k", "kpc_jumpable", "");
	list = kpc_list(test, NULL);
	kpc_expect_listed(test, list, jump, 1);
	KUNIT_EXPECT_EQ(test, kpc_fn(jumpable)(1), KPC_JUMPABLE(1));

	KUNIT_EXPECT_EQ(test, kpc_opt_sysctl(0), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(top));
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(top));
	KUNIT_EXPECT_PTR_EQ(test, kpc_hashed(kpc->kp.addr), top);
	kpc_list(test, list);
	kpc_expect_listed(test, list, jump, 0);
	kpc_expect_listed(test, list, plain, 1);
	KUNIT_EXPECT_EQ(test, kpc_fn(jumpable)(2), KPC_JUMPABLE(2));
	KUNIT_EXPECT_EQ(test, kpc_fn(jumpable)(3), KPC_JUMPABLE(3));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc->pre_hits), 3);

	KUNIT_EXPECT_EQ(test, kpc_opt_sysctl(1), 1);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(top));
	kpc_list(test, list);
	kpc_expect_listed(test, list, jump, 1);
	kpc_expect_listed(test, list, plain, 0);
	KUNIT_EXPECT_EQ(test, kpc_fn(jumpable)(4), KPC_JUMPABLE(4));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc->pre_hits), 4);
	KUNIT_EXPECT_EQ(test, kpc->kp.nmissed, 0);
}

/* ---- kretprobes --------------------------------------------------------- */

#ifdef CONFIG_KRETPROBES

/* What the entry_handler leaves in an instance for its return. */
struct kpc_entry_data {
	long			arg;
	struct task_struct	*task;
};

/* What one return handler call saw. */
struct kpc_return {
	long			arg;		/* from the entry data */
	struct task_struct	*entry_task;	/* from the entry data */
	unsigned long		ret;		/* regs_return_value() */
	unsigned long		ip;		/* instruction_pointer() */
	struct task_struct	*task;		/* current on return */
	struct kprobe		*running;	/* kprobe_running() */
	bool			stack_caller;	/* a stack trace names kpc_ret_call() */
	bool			stack_hook;	/* ... or shows a return hook */
};

struct kpc_ret {
	struct kretprobe	rp;
	bool			registered;
	bool			skip_odd;	/* entry_handler declines odd args */
	bool			trace_stack;	/* the handler takes a stack trace */
	atomic_t		entries;
	atomic_t		returns;
	struct kpc_return	seen[KPC_RET_SEEN];	/* in order of return */
};

/*
 * The caller of the probed functions in the stack-trace cases: calls
 * kpc_plain() (@plain) or kpc_target() with @x.  Not a tail call (the
 * barrier after it), so the call returns into this function.
 */
static noinline long kpc_ret_call(bool plain, long x)
{
	long r = plain ? kpc_fn(plain)(x) : kpc_fn(target)(x);

	barrier();
	return r;
}

/*
 * Whether a stack trace taken in a return handler names the probed
 * function's caller: 6.12's promise where the arch selects
 * ARCH_CORRECT_STACKTRACE_ON_KRETPROBE (lib/test_kprobes.c checks it for
 * one call site); this suite checks it on each return path, with entry
 * data, and that no return hook is left in the trace.
 */
#if defined(CONFIG_ARCH_CORRECT_STACKTRACE_ON_KRETPROBE) && \
	defined(CONFIG_STACKTRACE) && defined(CONFIG_KALLSYMS)
#define KPC_STACK_SEES_CALLER	true

/* A return trampoline, as it stands in a hooked slot. */
static bool kpc_is_return_hook(unsigned long addr)
{
	if (is_kretprobe_trampoline(addr))
		return true;
#ifdef CONFIG_KRETPROBE_ON_FGRAPH
	return fgraph_is_hook(addr);
#elif defined(CONFIG_FUNCTION_GRAPH_TRACER)
	return addr == (unsigned long)dereference_kernel_function_descriptor(return_to_handler);
#else
	return false;
#endif
}

/* Whether @addr is inside kpc_ret_call() (an address it returns to). */
static bool kpc_in_ret_call(unsigned long addr)
{
	unsigned long fn = (unsigned long)kpc_ret_call, size, offset;

	if (!kallsyms_lookup_size_offset(fn, &size, &offset))
		return false;
	fn -= offset;
	return addr > fn && addr < fn + size;
}

/* What a stack trace from a return handler shows. */
static void kpc_ret_trace_stack(struct kpc_return *seen)
{
	unsigned long entries[KPC_STACK_LEN];
	unsigned int nr, i;

	nr = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < nr; i++) {
		if (kpc_in_ret_call(entries[i]))
			seen->stack_caller = true;
		if (kpc_is_return_hook(entries[i]))
			seen->stack_hook = true;
	}
}
#else
#define KPC_STACK_SEES_CALLER	false

static void kpc_ret_trace_stack(struct kpc_return *seen)
{
}

static bool kpc_in_ret_call(unsigned long addr)
{
	return false;
}
#endif

static int kpc_ret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpc_ret *kr = container_of(get_kretprobe(ri), struct kpc_ret, rp);
	struct kpc_entry_data *data = (struct kpc_entry_data *)ri->data;

	data->arg = regs_get_kernel_argument(regs, 0);
	data->task = current;
	atomic_inc(&kr->entries);
	return kr->skip_odd && (data->arg & 1);
}

static int kpc_ret_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpc_ret *kr = container_of(get_kretprobe(ri), struct kpc_ret, rp);
	struct kpc_entry_data *data = (struct kpc_entry_data *)ri->data;
	int n = atomic_inc_return(&kr->returns) - 1;
	struct kpc_return *seen;

	if (n >= KPC_RET_SEEN)
		return 0;
	seen = &kr->seen[n];
	seen->arg = data->arg;
	seen->entry_task = data->task;
	seen->ret = regs_return_value(regs);
	seen->ip = instruction_pointer(regs);
	seen->task = current;
	seen->running = kprobe_running();
	if (KPC_STACK_SEES_CALLER && kr->trace_stack)
		kpc_ret_trace_stack(seen);
	return 0;
}

static void kpc_ret_unregister_action(void *arg)
{
	struct kpc_ret *kr = arg;

	if (kr->registered)
		unregister_kretprobe(&kr->rp);
}

/* A kretprobe on @sym with both handlers and entry data, not registered yet. */
static struct kpc_ret *kpc_ret_new(struct kunit *test, const char *sym,
				   int maxactive)
{
	struct kpc_ret *kr;

	kr = kunit_kzalloc(test, sizeof(*kr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kr);
	kr->rp.kp.symbol_name = sym;
	kr->rp.entry_handler = kpc_ret_entry;
	kr->rp.handler = kpc_ret_return;
	kr->rp.data_size = sizeof(struct kpc_entry_data);
	kr->rp.maxactive = maxactive;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpc_ret_unregister_action, kr), 0);
	return kr;
}

static void kpc_ret_register(struct kunit *test, struct kpc_ret *kr)
{
	int ret = register_kretprobe(&kr->rp);

	kpc_skip_if_site_refused(test, &kr->rp.kp, ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	kr->registered = true;
}

/*
 * An array that names one kretprobe twice: registering it is refused
 * with -EINVAL and leaves nothing behind; unregistering a registered
 * probe through such an array takes it out once, so no handler runs
 * afterwards and it can be registered again.
 */
static void kretprobe_array_names_one_twice(struct kunit *test)
{
	struct kpc_ret *kr = kpc_ret_new(test, "kpc_target", 8);
	struct kretprobe *rps[2] = { &kr->rp, &kr->rp };

	KUNIT_EXPECT_EQ(test, register_kretprobes(rps, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpc_fn(target)(1), KPC_TARGET(1));
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->entries), 0);

	kr->rp.kp.addr = NULL;
	kr->rp.kp.flags = 0;
	kpc_ret_register(test, kr);
	KUNIT_EXPECT_EQ(test, kpc_fn(target)(2), KPC_TARGET(2));
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->returns), 1);

	unregister_kretprobes(rps, 2);
	kr->registered = false;
	KUNIT_EXPECT_EQ(test, kpc_fn(target)(4), KPC_TARGET(4));
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->entries), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->returns), 1);

	kr->rp.kp.addr = NULL;
	kr->rp.kp.flags = 0;
	kpc_ret_register(test, kr);
	KUNIT_EXPECT_EQ(test, kpc_fn(target)(6), KPC_TARGET(6));
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->returns), 2);
	KUNIT_EXPECT_EQ(test, kr->rp.nmissed, 0);
}

/*
 * A kretprobe goes only on a function's entry, has at most
 * KRETPROBE_MAX_DATA_SIZE bytes of entry data, and obeys the kprobe
 * rules: each refusal gives its errno and leaves the function unprobed.
 */
static void kretprobe_refused_with_errno(struct kunit *test)
{
	struct kpc_ret *mid, *big, *unknown, *forbidden;

	mid = kpc_ret_new(test, "kpc_target", 4);
	mid->rp.kp.offset = kpc_mid_offset(test);
	KUNIT_EXPECT_EQ(test, register_kretprobe(&mid->rp), -EINVAL);

	big = kpc_ret_new(test, "kpc_target", 4);
	big->rp.data_size = KRETPROBE_MAX_DATA_SIZE + 1;
	KUNIT_EXPECT_EQ(test, register_kretprobe(&big->rp), -E2BIG);

	unknown = kpc_ret_new(test, "kpc_no_such_function", 4);
	KUNIT_EXPECT_EQ(test, register_kretprobe(&unknown->rp), -ENOENT);

	forbidden = kpc_ret_new(test, "kpc_forbidden", 4);
	KUNIT_EXPECT_EQ(test, register_kretprobe(&forbidden->rp), -EINVAL);

	KUNIT_EXPECT_EQ(test, kpc_fn(target)(1), KPC_TARGET(1));
	KUNIT_EXPECT_EQ(test, atomic_read(&mid->entries) + atomic_read(&big->entries), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&mid->returns) + atomic_read(&big->returns), 0);
}

#ifdef CONFIG_KRETPROBE_ON_FGRAPH
/*
 * On the function graph a return probe pushes a frame on the shadow stack,
 * so none may go on what pushes or pops frames for other calls: its frame
 * would land between a frame and its hook, or on top of the frame being
 * popped.  Those functions take no kprobe at all.  A hooked return that
 * goes through the return path afterwards still gets its own entry data.
 */
static void kretprobe_refused_on_shadow_stack_paths(struct kunit *test)
{
	static const char * const paths[] = {
		"ftrace_return_to_handler",
		"function_graph_enter_regs",
		"fgraph_direct_push",
		"fgraph_direct_done",
		"ftrace_graph_func",
#ifdef CONFIG_HAVE_KRETPROBE_RETURN_HANDLER
		/* The return probes' own return path (x86-64). */
		"kretprobe_return_handler",
		"kretprobe_return",
#endif
	};
	struct kpc_ret *kr, *on_path;
	int i;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		on_path = kpc_ret_new(test, paths[i], 0);
		KUNIT_EXPECT_EQ_MSG(test, register_kretprobe(&on_path->rp), -EINVAL,
				    "a return probe on %s", paths[i]);
		KUNIT_EXPECT_NULL(test, on_path->rp.rph);
	}

	kr = kpc_ret_new(test, "kpc_plain", 0);
	kpc_ret_register(test, kr);
	KUNIT_EXPECT_EQ(test, kpc_fn(plain)(4), KPC_PLAIN(4));
	KUNIT_ASSERT_EQ(test, atomic_read(&kr->returns), 1);
	KUNIT_EXPECT_EQ(test, kr->seen[0].arg, 4);
	KUNIT_EXPECT_EQ(test, kr->seen[0].ret, KPC_PLAIN(4));
	KUNIT_EXPECT_EQ(test, kr->rp.nmissed, 0);
}
#endif

/* Which function a kretprobe case probes: one with a call site, or not. */
struct kpc_ret_target {
	const char	*desc;
	const char	*sym;
	bool		plain;
};

static const struct kpc_ret_target kpc_ret_targets[] = {
	{ "call site", "kpc_target", false },
	{ "breakpoint", "kpc_plain", true },
};

KUNIT_ARRAY_PARAM_DESC(kpc_ret_target, kpc_ret_targets, desc);

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
/*
 * A graph user's callbacks are untraced, as every in-tree one is: a traced
 * return callback would hook its own return, whose return would call it
 * again, without end.
 */
static int notrace kpc_graph_entry(struct ftrace_graph_ent *trace,
				   struct fgraph_ops *gops, struct ftrace_regs *fregs)
{
	return 1;
}

static void notrace kpc_graph_return(struct ftrace_graph_ret *trace,
				     struct fgraph_ops *gops,
				     struct ftrace_regs *fregs)
{
}

static struct fgraph_ops kpc_graph_all = {
	.entryfunc	= kpc_graph_entry,
	.retfunc	= kpc_graph_return,
};

static void kpc_graph_all_release(void *unused)
{
	unregister_ftrace_graph(&kpc_graph_all);
}

/*
 * With a function graph user hooking the return of every traced function
 * (the function_graph tracer with no filter), a kretprobe still sees each
 * call and its return exactly, and so does a kprobe with a post_handler
 * on the same entry (which keeps a breakpoint a breakpoint).  A stack
 * trace from the return handler translates every return hook on the way
 * to the caller: the probed function's slot is hooked twice where it has
 * a call site, and the functions around it once by the graph.  On the
 * function graph backend a traced function between the probed entry and
 * the kretprobe's push (6.12's do_int3(), do_el1_brk64()) would have its
 * own return hooked below the push: the push is refused and every call
 * counted in nmissed.
 */
static void kretprobe_exact_under_graph_on_all(struct kunit *test)
{
	const struct kpc_ret_target *t = test->param_value;
	struct kpc_ret *kr = kpc_ret_new(test, t->sym, 8);
	struct kpc_probe *kpc = kpc_new(test, 'g', t->sym, 0);
	long x, want;
	int i;

	kr->trace_stack = true;
	kpc_ret_register(test, kr);
	kpc_register(test, kpc);
	KUNIT_ASSERT_EQ(test, register_ftrace_graph(&kpc_graph_all), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpc_graph_all_release,
							NULL), 0);
	for (x = 1; x <= 16; x++) {
		want = t->plain ? KPC_PLAIN(x) : KPC_TARGET(x);
		KUNIT_EXPECT_EQ(test, kpc_ret_call(t->plain, x), want);
	}
	kunit_release_action(test, kpc_graph_all_release, NULL);

	KUNIT_EXPECT_EQ(test, kr->rp.nmissed + kr->rp.kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->entries), 16);
	KUNIT_ASSERT_EQ(test, atomic_read(&kr->returns), 16);
	KUNIT_EXPECT_EQ(test, kr->seen[KPC_RET_SEEN - 1].arg, KPC_RET_SEEN);
	KUNIT_EXPECT_EQ(test, kr->seen[KPC_RET_SEEN - 1].ret,
			t->plain ? KPC_PLAIN(KPC_RET_SEEN) : KPC_TARGET(KPC_RET_SEEN));
	/* Every return hook in the stack, the graph's too, is translated. */
	for (i = 0; KPC_STACK_SEES_CALLER && i < KPC_RET_SEEN; i++) {
		KUNIT_EXPECT_TRUE_MSG(test, kr->seen[i].stack_caller, "return %d", i);
		KUNIT_EXPECT_FALSE_MSG(test, kr->seen[i].stack_hook, "return %d", i);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc->pre_hits), 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc->post_hits), 16);
	KUNIT_EXPECT_EQ(test, kpc->kp.nmissed, 0);
}
#endif

/*
 * A return handler's view of the return, on every return path: the
 * instruction pointer and a stack trace taken in the handler name the
 * probed function's caller (kpc_ret_call(), where the call returns to),
 * no return trampoline is left in the trace, and the handler reads the
 * entry data its own call's entry_handler wrote.
 */
static void kretprobe_handler_sees_caller(struct kunit *test)
{
	const struct kpc_ret_target *t = test->param_value;
	struct kpc_ret *kr = kpc_ret_new(test, t->sym, 4);
	struct kpc_return *seen;
	long x, want;
	int i;

	if (!KPC_STACK_SEES_CALLER)
		kunit_skip(test, "no unwinder that names a return probe's caller");
	kr->trace_stack = true;
	kpc_ret_register(test, kr);
	for (x = 1; x <= 4; x++) {
		want = t->plain ? KPC_PLAIN(x) : KPC_TARGET(x);
		KUNIT_EXPECT_EQ(test, kpc_ret_call(t->plain, x), want);
	}

	KUNIT_EXPECT_EQ(test, atomic_read(&kr->entries), 4);
	KUNIT_ASSERT_EQ(test, atomic_read(&kr->returns), 4);
	KUNIT_EXPECT_EQ(test, kr->rp.nmissed, 0);
	for (i = 0; i < 4; i++) {
		seen = &kr->seen[i];
		x = i + 1;
		KUNIT_EXPECT_EQ(test, seen->arg, x);
		KUNIT_EXPECT_PTR_EQ(test, seen->entry_task, current);
		KUNIT_EXPECT_EQ(test, seen->ret, t->plain ? KPC_PLAIN(x) : KPC_TARGET(x));
		KUNIT_EXPECT_TRUE_MSG(test, kpc_in_ret_call(seen->ip),
				      "return %d to %pS", i, (void *)seen->ip);
		KUNIT_EXPECT_TRUE_MSG(test, seen->stack_caller, "return %d", i);
		KUNIT_EXPECT_FALSE_MSG(test, seen->stack_hook, "return %d", i);
		KUNIT_EXPECT_PTR_EQ(test, seen->running, &kr->rp.kp);
	}
}

/*
 * The entry data the entry_handler writes is what the return handler of
 * that call reads, beside the call's return value, in the same task; a
 * call whose entry_handler returns non-zero gets no return handler.
 */
static void kretprobe_entry_data_reaches_return(struct kunit *test)
{
	const struct kpc_ret_target *t = test->param_value;
	struct kpc_ret *kr = kpc_ret_new(test, t->sym, 4);
	long x, want;
	int i;

	kr->skip_odd = true;
	kpc_ret_register(test, kr);
	for (x = 1; x <= 6; x++) {
		want = t->plain ? KPC_PLAIN(x) : KPC_TARGET(x);
		KUNIT_EXPECT_EQ(test, t->plain ? kpc_fn(plain)(x) : kpc_fn(target)(x),
				want);
	}

	KUNIT_EXPECT_EQ(test, atomic_read(&kr->entries), 6);
	KUNIT_ASSERT_EQ(test, atomic_read(&kr->returns), 3);
	KUNIT_EXPECT_EQ(test, kr->rp.nmissed, 0);
	for (i = 0; i < 3; i++) {
		struct kpc_return *seen = &kr->seen[i];

		x = 2 * (i + 1);
		want = t->plain ? KPC_PLAIN(x) : KPC_TARGET(x);
		KUNIT_EXPECT_EQ(test, seen->arg, x);
		KUNIT_EXPECT_EQ(test, seen->ret, want);
		KUNIT_EXPECT_PTR_EQ(test, seen->entry_task, current);
		KUNIT_EXPECT_PTR_EQ(test, seen->task, current);
		KUNIT_EXPECT_PTR_EQ(test, seen->running, &kr->rp.kp);
	}
	KUNIT_EXPECT_NULL(test, kpc_running_here());
}

/* What kpc_recurse(@depth) returns: 10 * depth added on each level. */
static long kpc_recursed(long depth)
{
	return 10 * depth * (depth + 1) / 2;
}

/* How many instances a recursive case gives its kretprobe. */
struct kpc_depth {
	const char	*desc;
	int		maxactive;
	int		returns;	/* of the three nested calls */
};

/*
 * With 6.12's pools, maxactive 1 gives the outermost call the instance
 * and the two nested calls miss.  On the function graph
 * (CONFIG_KRETPROBE_ON_FGRAPH) instances live on the task's shadow stack
 * and maxactive is ignored, a difference from 6.12 on purpose: every
 * call returns to its own entry data and none is missed.
 */
static const struct kpc_depth kpc_depths[] = {
	{ "enough instances", 8, 3 },
#ifdef CONFIG_KRETPROBE_ON_FGRAPH
	{ "one instance", 1, 3 },
#else
	{ "one instance", 1, 1 },
#endif
};

KUNIT_ARRAY_PARAM_DESC(kpc_depth, kpc_depths, desc);

/*
 * kpc_recurse(3) calls itself twice.  Each call that gets an instance
 * returns to its own entry data, innermost first; a call that finds none
 * free (maxactive, where the backend has a pool) adds one to nmissed and
 * runs neither handler.  Instances come back after their return, so a
 * second round is the same.
 */
static void kretprobe_recursion_keeps_each_entry(struct kunit *test)
{
	const struct kpc_depth *depth = test->param_value;
	struct kpc_ret *kr = kpc_ret_new(test, "kpc_recurse", depth->maxactive);
	int missed = 3 - depth->returns;
	int round, i, n;

	kpc_ret_register(test, kr);
	for (round = 1; round <= 2; round++) {
		KUNIT_EXPECT_EQ(test, kpc_fn(recurse)(3), kpc_recursed(3));
		KUNIT_EXPECT_EQ(test, atomic_read(&kr->entries), round * depth->returns);
		KUNIT_EXPECT_EQ(test, atomic_read(&kr->returns), round * depth->returns);
		KUNIT_EXPECT_EQ(test, kr->rp.nmissed, round * missed);
	}

	/* The first round: the outermost calls got the instances. */
	for (i = 0; i < depth->returns; i++) {
		n = missed + i + 1;
		KUNIT_EXPECT_EQ(test, kr->seen[i].arg, n);
		KUNIT_EXPECT_EQ(test, kr->seen[i].ret, kpc_recursed(n));
		KUNIT_EXPECT_PTR_EQ(test, kr->seen[i].task, current);
	}
}

struct kpc_sleeper_thread {
	struct task_struct	*task;
	long			ret;
	struct completion	done;
};

static int kpc_sleeper_fn(void *arg)
{
	struct kpc_sleeper_thread *t = arg;

	t->ret = kpc_fn(sleeper)(KPC_PARK | 5);
	complete(&t->done);
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void kpc_sleeper_stop(void *arg)
{
	struct kpc_sleeper_thread *t = arg;

	complete_all(&kpc_unpark);
	kthread_stop(t->task);
}

/*
 * A kthread's call sleeps inside the probed function while this task
 * makes a call of its own that sleeps and returns first: each return gets
 * its own call's entry data, in the task that made the call.
 */
static void kretprobe_entry_survives_sleep(struct kunit *test)
{
	struct kpc_ret *kr = kpc_ret_new(test, "kpc_sleeper", 4);
	struct kpc_sleeper_thread *t;

	kpc_ret_register(test, kr);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	init_completion(&t->done);
	t->task = kthread_run(kpc_sleeper_fn, t, "kpc_sleeper");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->task));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpc_sleeper_stop, t), 0);
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&kpc_parked, KPC_WAIT),
			      "the kthread did not reach kpc_sleeper()");

	KUNIT_EXPECT_EQ(test, kpc_fn(sleeper)(3), KPC_SLEEPER(3));
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->returns), 1);
	complete(&kpc_unpark);
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&t->done, KPC_WAIT),
			      "the kthread did not return from kpc_sleeper()");

	KUNIT_EXPECT_EQ(test, t->ret, KPC_SLEEPER(KPC_PARK | 5));
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->entries), 2);
	KUNIT_ASSERT_EQ(test, atomic_read(&kr->returns), 2);
	KUNIT_EXPECT_EQ(test, kr->rp.nmissed, 0);

	KUNIT_EXPECT_EQ(test, kr->seen[0].arg, 3);
	KUNIT_EXPECT_EQ(test, kr->seen[0].ret, KPC_SLEEPER(3));
	KUNIT_EXPECT_PTR_EQ(test, kr->seen[0].entry_task, current);
	KUNIT_EXPECT_PTR_EQ(test, kr->seen[0].task, current);
	KUNIT_EXPECT_EQ(test, kr->seen[1].arg, KPC_PARK | 5);
	KUNIT_EXPECT_EQ(test, kr->seen[1].ret, KPC_SLEEPER(KPC_PARK | 5));
	KUNIT_EXPECT_PTR_EQ(test, kr->seen[1].entry_task, t->task);
	KUNIT_EXPECT_PTR_EQ(test, kr->seen[1].task, t->task);
}

/*
 * A kretprobe's line in kprobes/list has type "r".  Beside a disabled
 * kprobe on the same entry each keeps its own [DISABLED] state, and both
 * show where the address is served from.
 */
static void debugfs_list_marks_kretprobes(struct kunit *test)
{
	struct kpc_probe *quiet;
	struct kpc_ret *kr;
	const char *site;
	char *list;

	list = kpc_list(test, NULL);
	quiet = kpc_new(test, 'Q', "kpc_target", 0);
	quiet->kp.flags = KPROBE_FLAG_DISABLED;
	kr = kpc_ret_new(test, "kpc_target", 4);
	kpc_register(test, quiet);
	kpc_ret_register(test, kr);
	KUNIT_ASSERT_PTR_EQ(test, kr->rp.kp.addr, quiet->kp.addr);
	site = kprobe_ftrace(&quiet->kp) ? "[FTRACE]" : "";

	kpc_list(test, list);
	kpc_expect_listed(test, list, kpc_line(test, &kr->rp.kp, "r", "kpc_target", site), 1);
	kpc_expect_listed(test, list, kpc_line(test, &quiet->kp, "k", "kpc_target",
					       kprobe_ftrace(&quiet->kp) ?
					       "[DISABLED][FTRACE]" : "[DISABLED]"), 1);

	KUNIT_EXPECT_EQ(test, kpc_fn(target)(2), KPC_TARGET(2));
	KUNIT_EXPECT_EQ(test, atomic_read(&kr->returns), 1);
	KUNIT_EXPECT_STREQ(test, kpc_log, "");
}

#endif /* CONFIG_KRETPROBES */

static int kpc_case_init(struct kunit *test)
{
	memset(kpc_log, 0, sizeof(kpc_log));
	atomic_set(&kpc_log_len, 0);
	reinit_completion(&kpc_parked);
	reinit_completion(&kpc_unpark);
	return 0;
}

static struct kunit_case kpc_cases[] = {
	KUNIT_CASE_PARAM(register_refused_with_errno, kpc_refusal_gen_params),
	KUNIT_CASE(lifecycle_misuse_is_refused),
	KUNIT_CASE(one_probe_runs_pre_then_post),
	KUNIT_CASE(entry_and_middle_probes_in_call_order),
	KUNIT_CASE_PARAM(probes_on_one_address_share_hits, kpc_where_gen_params),
	KUNIT_CASE(registered_disabled_until_enabled),
	KUNIT_CASE(pre_handler_redirects_call),
	KUNIT_CASE_PARAM(nested_hit_is_missed, kpc_where_gen_params),
	KUNIT_CASE(register_kprobes_all_or_nothing),
	KUNIT_CASE(register_kprobes_batch_hits_each_once),
	KUNIT_CASE_PARAM(register_kprobes_batch_fails_whole, kpc_batch_refusal_gen_params),
	KUNIT_CASE(unregister_kprobes_batch_while_hit),
	KUNIT_CASE(lookup_name_cache_keeps_names_apart),
#ifdef KPC_HAS_NAME_WALK
	KUNIT_CASE(lookup_names_walk_matches_lookup),
	KUNIT_CASE(register_kprobes_many_names_resolve_each),
#endif
#ifdef KPC_HAS_ARM_ALL
	KUNIT_CASE(arm_all_failure_leaves_no_site_hooked),
#endif
	KUNIT_CASE(debugfs_list_shows_each_probe),
	KUNIT_CASE(debugfs_blacklist_lists_ranges),
	KUNIT_CASE(debugfs_enabled_disarms_and_rearms_all),
	KUNIT_CASE(debugfs_list_marks_gone_probe),
	KUNIT_CASE(disabled_probe_leaves_dying_jump_off),
	KUNIT_CASE(blocked_jump_returns_when_neighbour_goes),
	KUNIT_CASE(debugfs_list_marks_optimized_probes),
	KUNIT_CASE(opt_sysctl_switches_jumps_off_and_on),
#ifdef CONFIG_KRETPROBES
	KUNIT_CASE(kretprobe_refused_with_errno),
#ifdef CONFIG_KRETPROBE_ON_FGRAPH
	KUNIT_CASE(kretprobe_refused_on_shadow_stack_paths),
#endif
	KUNIT_CASE_PARAM(kretprobe_entry_data_reaches_return, kpc_ret_target_gen_params),
	KUNIT_CASE_PARAM(kretprobe_handler_sees_caller, kpc_ret_target_gen_params),
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	KUNIT_CASE_PARAM(kretprobe_exact_under_graph_on_all, kpc_ret_target_gen_params),
#endif
	KUNIT_CASE_PARAM(kretprobe_recursion_keeps_each_entry, kpc_depth_gen_params),
	KUNIT_CASE(kretprobe_entry_survives_sleep),
	KUNIT_CASE(kretprobe_array_names_one_twice),
	KUNIT_CASE(debugfs_list_marks_kretprobes),
#endif
	{}
};

static struct kunit_suite kpc_suite = {
	.name		= "kprobes_core",
	.init		= kpc_case_init,
	.test_cases	= kpc_cases,
};

kunit_test_suite(kpc_suite);
