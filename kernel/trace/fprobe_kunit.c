// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "fprobe_core": the rules of fprobe as its users see them.
 *
 * Probed functions: ftrace_kunit_target_[a-d]() (ftrace_kunit_funcs.c) and
 * the nested, recursive and glob targets of fprobe_kunit_funcs.c; both
 * objects are built with fentry call sites and only KUnit calls them, so
 * the number of handler calls a case sees is exact.
 *
 * Handlers never use KUnit expectations (they run with preemption off):
 * they count with atomics and record what they saw in their struct
 * fpk_probe; a handler that finds something wrong bumps ->bad.  The case
 * checks afterwards, in its own context.
 *
 * Lifetime: a struct fpk_probe comes from kunit_kzalloc() followed by a
 * KUnit action that unregisters it if still registered.  Actions run in
 * reverse order of creation, so a probe is unregistered before its memory
 * goes, and a caller thread started after a probe is stopped before the
 * probe is unregistered.
 *
 * Threads: caller threads sleep a little between batches, since removing
 * the last probe of a kind unregisters an ftrace hook, which waits for
 * RCU-tasks grace periods (every task must schedule voluntarily).
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#ifdef CONFIG_HAVE_ARCH_TRACE_KUNIT
#include <asm/trace_kunit.h>
#endif

#include "fgraph_frame.h"
#include "ftrace_kunit.h"
#include "fprobe_kunit.h"

#define FPK_MAGIC		0x7a5e0000UL
#define FPK_ARG			0x1234UL
#define FPK_WAIT_MS		5000
#define FPK_BATCH		64
/* Deepest recursion tried to fill a shadow stack; bounded by the kernel stack. */
#define FPK_MAX_DEPTH		160

/* A probed function and what it adds to its argument. */
struct fpk_func {
	unsigned long	(*fn)(unsigned long x);
	unsigned long	add;
	unsigned long	site;		/* fentry call site, set by fpk_init() */
};

enum {
	FPK_A, FPK_B, FPK_C, FPK_D, FPK_INNER, FPK_OUTER, FPK_FILL,
	FPK_GLOB1, FPK_GLOB2, FPK_GLOB3, FPK_NR
};

/* fprobe_kunit_wait()'s call site (it takes a completion: not in the table). */
static unsigned long fpk_wait_site;

static struct fpk_func fpk_funcs[FPK_NR] = {
	[FPK_A]		= { ftrace_kunit_target_a, FTRACE_KUNIT_A_ADD },
	[FPK_B]		= { ftrace_kunit_target_b, FTRACE_KUNIT_B_ADD },
	[FPK_C]		= { ftrace_kunit_target_c, FTRACE_KUNIT_C_ADD },
	[FPK_D]		= { ftrace_kunit_target_d, FTRACE_KUNIT_D_ADD },
	[FPK_INNER]	= { fprobe_kunit_inner, FPROBE_KUNIT_INNER_ADD },
	[FPK_OUTER]	= { fprobe_kunit_outer,
			    1 + FPROBE_KUNIT_INNER_ADD + FPROBE_KUNIT_OUTER_ADD },
	[FPK_FILL]	= { fprobe_kunit_fill, FPROBE_KUNIT_FILL_ADD },
	[FPK_GLOB1]	= { fprobe_kunit_glob1, FPROBE_KUNIT_GLOB_ADD },
	[FPK_GLOB2]	= { fprobe_kunit_glob2, 2 * FPROBE_KUNIT_GLOB_ADD },
	[FPK_GLOB3]	= { fprobe_kunit_glob3, 3 * FPROBE_KUNIT_GLOB_ADD },
};

/*
 * struct fpk_probe - an fprobe and what its handlers saw
 * @entries, @exits: handler calls
 * @bad: handler calls that found their entry data or arguments wrong
 * @entry_ret: what the entry handler returns
 * @disable_on_entry: the entry handler disables the probe
 * @reenter: called once (per probe) from the entry handler: a nested hit
 * @reenter_exit: same, from the exit handler
 * @reentered: @reenter/@reenter_exit already called
 * @entry_ip...@exit_data: values of the last calls
 * @bad_context: a handler ran preemptible
 * @saw_kprobe: kprobe_running() was set inside a handler
 * @trace_stack: the exit handler takes a stack trace
 * @stack_caller: that trace named fprobe_kunit_call(), the probed
 *	function's caller
 * @stack_hook: that trace named a return hook instead of a real address
 */
struct fpk_probe {
	struct fprobe	fp;
	atomic_long_t	entries;
	atomic_long_t	exits;
	atomic_long_t	bad;
	int		entry_ret;
	bool		disable_on_entry;
	unsigned long	(*reenter)(unsigned long x);
	unsigned long	(*reenter_exit)(unsigned long x);
	bool		reentered;
	unsigned long	entry_ip;
	unsigned long	ret_ip;
	unsigned long	arg;
	void		*entry_data;
	unsigned long	exit_ip;
	unsigned long	exit_ret_ip;
	unsigned long	retval;
	void		*exit_data;
	bool		bad_context;
	bool		saw_kprobe;
	bool		trace_stack;
	bool		stack_caller;
	bool		stack_hook;
};

static struct fpk_probe *to_fpk(struct fprobe *fp)
{
	return container_of(fp, struct fpk_probe, fp);
}

/* The argument a call of the function at @site must have had to return @ret. */
static bool fpk_arg_of(unsigned long site, unsigned long ret, unsigned long *arg)
{
	int i;

	for (i = 0; i < FPK_NR; i++) {
		if (fpk_funcs[i].site == site) {
			*arg = ret - fpk_funcs[i].add;
			return true;
		}
	}
	return false;
}

static void fpk_note_context(struct fpk_probe *p)
{
	if (preemptible())
		p->bad_context = true;
	if (IS_ENABLED(CONFIG_KPROBES) && kprobe_running())
		p->saw_kprobe = true;
}

static int fpk_entry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
		     struct ftrace_regs *fregs, void *data)
{
	struct fpk_probe *p = to_fpk(fp);
	unsigned long arg = ftrace_regs_get_argument(fregs, 0);

	atomic_long_inc(&p->entries);
	fpk_note_context(p);
	p->entry_ip = ip;
	p->ret_ip = ret_ip;
	p->arg = arg;
	p->entry_data = data;
	if (data)
		*(unsigned long *)data = arg ^ FPK_MAGIC;
	if (p->disable_on_entry)
		disable_fprobe(fp);
	if (p->reenter && !p->reentered) {
		p->reentered = true;
		p->reenter(arg);
	}
	return p->entry_ret;
}

/*
 * Whether an unwind from an exit handler reaches the probed function's
 * caller: <asm/trace_kunit.h> says so, and how.  Elsewhere the trampoline
 * may keep no record and the caller may be missing.
 */
#ifdef CONFIG_HAVE_ARCH_TRACE_KUNIT
#define FPK_STACK_HAS_CALLER	TRACE_KUNIT_EXIT_UNWIND_SEES_CALLER
#else
#define FPK_STACK_HAS_CALLER	false
#endif

/* What an unwind from an exit handler sees: the caller, and no hook. */
static void fpk_trace_stack(struct fpk_probe *p)
{
	unsigned long entries[24], start, size, offset;
	unsigned int nr, i;

	if (!kallsyms_lookup_size_offset((unsigned long)fprobe_kunit_call,
					 &size, &offset))
		return;
	start = (unsigned long)fprobe_kunit_call - offset;
	nr = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < nr; i++) {
		if (entries[i] > start && entries[i] < start + size)
			p->stack_caller = true;
		if (fgraph_is_hook(entries[i]))
			p->stack_hook = true;
	}
}

static void fpk_exit(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
		     struct ftrace_regs *fregs, void *data)
{
	struct fpk_probe *p = to_fpk(fp);
	unsigned long ret = ftrace_regs_get_return_value(fregs);
	unsigned long arg;

	atomic_long_inc(&p->exits);
	fpk_note_context(p);
	p->exit_ip = ip;
	p->exit_ret_ip = ret_ip;
	p->retval = ret;
	p->exit_data = data;
	/* Entry data written by fpk_entry() must name this very call. */
	if (data && p->fp.entry_handler && fpk_arg_of(ip, ret, &arg) &&
	    *(unsigned long *)data != (arg ^ FPK_MAGIC))
		atomic_long_inc(&p->bad);
	if (p->reenter_exit && !p->reentered) {
		p->reentered = true;
		p->reenter_exit(ret);
	}
	if (p->trace_stack)
		fpk_trace_stack(p);
}

static void fpk_release(void *arg)
{
	struct fpk_probe *p = arg;

	if (fprobe_is_registered(&p->fp))
		unregister_fprobe(&p->fp);
}

/* A probe with the chosen handlers; unregistered by KUnit at the end. */
static struct fpk_probe *fpk_new(struct kunit *test, bool entry, bool exit,
				 size_t data_size)
{
	struct fpk_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	if (entry)
		p->fp.entry_handler = fpk_entry;
	if (exit)
		p->fp.exit_handler = fpk_exit;
	p->fp.entry_data_size = data_size;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpk_release, p), 0);
	return p;
}

static int fpk_register(struct fpk_probe *p, int idx)
{
	return register_fprobe_ips(&p->fp, &fpk_funcs[idx].site, 1);
}

static unsigned long fpk_call(int idx, unsigned long x)
{
	return fprobe_kunit_call(fpk_funcs[idx].fn, x);
}

static long fpk_entries(struct fpk_probe *p)
{
	return atomic_long_read(&p->entries);
}

static long fpk_exits(struct fpk_probe *p)
{
	return atomic_long_read(&p->exits);
}

/* ---- handler arguments and entry data ------------------------------- */

static void fprobe_handler_arguments(struct kunit *test)
{
	struct fpk_probe *p = fpk_new(test, true, true, 0);
	unsigned long start, size, offset;

	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)fprobe_kunit_call,
							    &size, &offset));
	start = (unsigned long)fprobe_kunit_call - offset;

	KUNIT_ASSERT_EQ(test, fpk_register(p, FPK_A), 0);
	KUNIT_EXPECT_EQ(test, fpk_call(FPK_A, FPK_ARG), FPK_ARG + FTRACE_KUNIT_A_ADD);

	KUNIT_EXPECT_EQ(test, fpk_entries(p), 1);
	KUNIT_EXPECT_EQ(test, fpk_exits(p), 1);
	KUNIT_EXPECT_EQ(test, p->entry_ip, fpk_funcs[FPK_A].site);
	KUNIT_EXPECT_EQ(test, p->exit_ip, fpk_funcs[FPK_A].site);
	KUNIT_EXPECT_EQ(test, p->arg, FPK_ARG);
	KUNIT_EXPECT_EQ(test, p->retval, FPK_ARG + FTRACE_KUNIT_A_ADD);
	/* ret_ip: just after the call instruction in fprobe_kunit_call(). */
	KUNIT_EXPECT_GT(test, p->ret_ip, start);
	KUNIT_EXPECT_LT(test, p->ret_ip, start + size);
	KUNIT_EXPECT_EQ(test, p->exit_ret_ip, p->ret_ip);
	KUNIT_EXPECT_NULL(test, p->entry_data);
	KUNIT_EXPECT_NULL(test, p->exit_data);
	KUNIT_EXPECT_FALSE(test, p->bad_context);
	KUNIT_EXPECT_EQ(test, p->fp.nmissed, 0UL);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&p->fp), 0);
}

static void fprobe_entry_data_shared(struct kunit *test)
{
	struct fpk_probe *p = fpk_new(test, true, true, sizeof(long));
	struct fpk_probe *only = fpk_new(test, true, false, sizeof(long));

	KUNIT_ASSERT_EQ(test, fpk_register(p, FPK_B), 0);
	KUNIT_ASSERT_EQ(test, fpk_register(only, FPK_B), 0);
	fpk_call(FPK_B, FPK_ARG);

	KUNIT_EXPECT_EQ(test, fpk_exits(p), 1);
	KUNIT_EXPECT_NOT_NULL(test, p->entry_data);
	KUNIT_EXPECT_PTR_EQ(test, p->exit_data, p->entry_data);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)p->entry_data, sizeof(long)));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&p->bad), 0);
	/* Without an exit handler there is no entry data. */
	KUNIT_EXPECT_EQ(test, fpk_entries(only), 1);
	KUNIT_EXPECT_NULL(test, only->entry_data);
}

/*
 * The probes of one call share its record, in registration order: each
 * takes a header word and its data rounded up to whole longs.
 */
static void fprobe_entry_data_rounding(struct kunit *test)
{
	struct fpk_probe *p1 = fpk_new(test, true, true, 1);
	struct fpk_probe *p2 = fpk_new(test, true, true, sizeof(long) + 1);
	struct fpk_probe *p3 = fpk_new(test, true, true, 0);
	struct fpk_probe *p4 = fpk_new(test, true, true, 1);

	KUNIT_ASSERT_EQ(test, fpk_register(p1, FPK_C), 0);
	KUNIT_ASSERT_EQ(test, fpk_register(p2, FPK_C), 0);
	KUNIT_ASSERT_EQ(test, fpk_register(p3, FPK_C), 0);
	KUNIT_ASSERT_EQ(test, fpk_register(p4, FPK_C), 0);
	fpk_call(FPK_C, FPK_ARG);

	KUNIT_ASSERT_NOT_NULL(test, p1->entry_data);
	KUNIT_ASSERT_NOT_NULL(test, p2->entry_data);
	KUNIT_ASSERT_NOT_NULL(test, p4->entry_data);
	KUNIT_EXPECT_NULL(test, p3->entry_data);
	/* p1: one word for 1 byte, then p2's header. */
	KUNIT_EXPECT_EQ(test, (char *)p2->entry_data - (char *)p1->entry_data,
			2 * (long)sizeof(long));
	/* p2: two words, p3: a header alone, then p4's header. */
	KUNIT_EXPECT_EQ(test, (char *)p4->entry_data - (char *)p2->entry_data,
			4 * (long)sizeof(long));
	KUNIT_EXPECT_PTR_EQ(test, p2->exit_data, p2->entry_data);
	KUNIT_EXPECT_PTR_EQ(test, p4->exit_data, p4->entry_data);
	KUNIT_EXPECT_EQ(test, fpk_exits(p1) + fpk_exits(p2) + fpk_exits(p3) +
			fpk_exits(p4), 4);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&p1->bad) + atomic_long_read(&p2->bad) +
			atomic_long_read(&p4->bad), 0);
}

static void fprobe_entry_data_nested(struct kunit *test)
{
	struct fpk_probe *p = fpk_new(test, true, true, 2 * sizeof(long));
	unsigned long ips[] = { fpk_funcs[FPK_OUTER].site, fpk_funcs[FPK_INNER].site };

	KUNIT_ASSERT_EQ(test, register_fprobe_ips(&p->fp, ips, ARRAY_SIZE(ips)), 0);
	KUNIT_EXPECT_EQ(test, fprobe_kunit_outer(FPK_ARG),
			FPK_ARG + fpk_funcs[FPK_OUTER].add);

	KUNIT_EXPECT_EQ(test, fpk_entries(p), 2);
	KUNIT_EXPECT_EQ(test, fpk_exits(p), 2);
	/* The outer exit came last and found its own data, not inner's. */
	KUNIT_EXPECT_EQ(test, p->exit_ip, fpk_funcs[FPK_OUTER].site);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&p->bad), 0);
}

/* ---- threads calling probed functions -------------------------------- */

struct fpk_caller {
	struct task_struct	*task;
	int			func;
	unsigned long		base;	/* arguments are base + a counter */
	atomic_long_t		calls;
};

static int fpk_caller_fn(void *arg)
{
	struct fpk_caller *c = arg;
	unsigned long i = 0;
	int n;

	while (!kthread_should_stop()) {
		for (n = 0; n < FPK_BATCH; n++)
			fpk_call(c->func, c->base + (i++ & 0xffff));
		atomic_long_add(FPK_BATCH, &c->calls);
		/* Let RCU-tasks grace periods end. */
		usleep_range(10, 30);
	}
	return 0;
}

static void fpk_caller_stop(void *arg)
{
	struct fpk_caller *c = arg;

	kthread_stop(c->task);
}

/* A thread calling function @func in a loop, on @cpu if not negative. */
static struct fpk_caller *fpk_caller_start(struct kunit *test, int func,
					   unsigned long base, int cpu)
{
	struct fpk_caller *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->func = func;
	c->base = base;
	c->task = kthread_create(fpk_caller_fn, c, "fprobe_kunit/%lx", base);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c->task));
	if (cpu >= 0)
		kthread_bind(c->task, cpu);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpk_caller_stop, c), 0);
	wake_up_process(c->task);
	return c;
}

/* Wait until *@v reaches @n; false after FPK_WAIT_MS. */
static bool fpk_wait(atomic_long_t *v, long n)
{
	unsigned long until = jiffies + msecs_to_jiffies(FPK_WAIT_MS);

	while (atomic_long_read(v) < n) {
		if (time_after(jiffies, until))
			return false;
		usleep_range(500, 1000);
	}
	return true;
}

static void fprobe_entry_data_concurrent(struct kunit *test)
{
	struct fpk_probe *p = fpk_new(test, true, true, sizeof(long));
	struct fpk_caller *c1, *c2;

	KUNIT_ASSERT_EQ(test, fpk_register(p, FPK_A), 0);
	c1 = fpk_caller_start(test, FPK_A, 1UL << 24, -1);
	c2 = fpk_caller_start(test, FPK_A, 2UL << 24, -1);

	KUNIT_EXPECT_TRUE(test, fpk_wait(&p->exits, 4000));
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&p->fp), 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&c1->calls), 0L);
	KUNIT_EXPECT_GT(test, atomic_long_read(&c2->calls), 0L);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&p->bad), 0);
	KUNIT_EXPECT_FALSE(test, p->bad_context);
}

/* ---- exit control ------------------------------------------------------ */

static void fprobe_entry_cancels_exit(struct kunit *test)
{
	struct fpk_probe *skip = fpk_new(test, true, true, sizeof(long));
	struct fpk_probe *keep = fpk_new(test, true, true, sizeof(long));

	skip->entry_ret = 1;
	KUNIT_ASSERT_EQ(test, fpk_register(skip, FPK_D), 0);
	KUNIT_ASSERT_EQ(test, fpk_register(keep, FPK_D), 0);
	fpk_call(FPK_D, FPK_ARG);

	KUNIT_EXPECT_EQ(test, fpk_entries(skip), 1);
	KUNIT_EXPECT_EQ(test, fpk_exits(skip), 0);
	KUNIT_EXPECT_EQ(test, fpk_entries(keep), 1);
	KUNIT_EXPECT_EQ(test, fpk_exits(keep), 1);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&keep->bad), 0);
	/* A cancelled exit is not a miss. */
	KUNIT_EXPECT_EQ(test, skip->fp.nmissed, 0UL);
}

static void fprobe_enable_disable(struct kunit *test)
{
	struct fpk_probe *p = fpk_new(test, true, true, 0);
	struct fpk_probe *q = fpk_new(test, true, false, 0);

	KUNIT_ASSERT_EQ(test, fpk_register(p, FPK_A), 0);
	KUNIT_ASSERT_EQ(test, fpk_register(q, FPK_A), 0);

	disable_fprobe(&p->fp);
	disable_fprobe(&q->fp);
	KUNIT_EXPECT_TRUE(test, fprobe_disabled(&p->fp));
	KUNIT_EXPECT_TRUE(test, fprobe_is_registered(&p->fp));
	fpk_call(FPK_A, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(p) + fpk_exits(p) + fpk_entries(q), 0);

	enable_fprobe(&p->fp);
	enable_fprobe(&q->fp);
	KUNIT_EXPECT_FALSE(test, fprobe_disabled(&p->fp));
	fpk_call(FPK_A, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(p), 1);
	KUNIT_EXPECT_EQ(test, fpk_exits(p), 1);
	KUNIT_EXPECT_EQ(test, fpk_entries(q), 1);

	/* Disabled between entry and exit: that call gets no exit. */
	p->disable_on_entry = true;
	fpk_call(FPK_A, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(p), 2);
	KUNIT_EXPECT_EQ(test, fpk_exits(p), 1);
	KUNIT_EXPECT_EQ(test, p->fp.nmissed, 0UL);
}

static void fprobe_data_size_limit(struct kunit *test)
{
	struct fpk_probe *big = fpk_new(test, true, true, FPROBE_ENTRY_DATA_MAX);
	struct fpk_probe *over = fpk_new(test, true, true, FPROBE_ENTRY_DATA_MAX + 1);

	KUNIT_EXPECT_EQ(test, fpk_register(over, FPK_B), -E2BIG);
	KUNIT_EXPECT_FALSE(test, fprobe_is_registered(&over->fp));
	KUNIT_EXPECT_NE(test, register_fprobe(&over->fp, "ftrace_kunit_target_b", NULL), 0);

	KUNIT_ASSERT_EQ(test, fpk_register(big, FPK_B), 0);
	fpk_call(FPK_B, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_exits(big), 1);
	KUNIT_EXPECT_NOT_NULL(test, big->entry_data);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&big->bad), 0);
	/* The refused probe never ran. */
	KUNIT_EXPECT_EQ(test, fpk_entries(over), 0);
}

/* ---- nmissed ------------------------------------------------------------ */

/* A handler calling its own probed function: the nested hit is a miss. */
static void fprobe_missed_on_nesting(struct kunit *test)
{
	struct fpk_probe *entry = fpk_new(test, true, false, 0);
	struct fpk_probe *graph = fpk_new(test, true, true, sizeof(long));
	struct fpk_probe *atexit = fpk_new(test, false, true, 0);

	entry->reenter = ftrace_kunit_target_b;
	KUNIT_ASSERT_EQ(test, fpk_register(entry, FPK_B), 0);
	fpk_call(FPK_B, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(entry), 1);
	KUNIT_EXPECT_EQ(test, entry->fp.nmissed, 1UL);

	graph->reenter = ftrace_kunit_target_c;
	KUNIT_ASSERT_EQ(test, fpk_register(graph, FPK_C), 0);
	fpk_call(FPK_C, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(graph), 1);
	KUNIT_EXPECT_EQ(test, fpk_exits(graph), 1);
	KUNIT_EXPECT_EQ(test, graph->fp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&graph->bad), 0);

	/* From an exit handler too. */
	atexit->reenter_exit = ftrace_kunit_target_d;
	KUNIT_ASSERT_EQ(test, fpk_register(atexit, FPK_D), 0);
	fpk_call(FPK_D, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_exits(atexit), 1);
	KUNIT_EXPECT_EQ(test, atexit->fp.nmissed, 1UL);
}

/*
 * Fill the shadow stack: every level of fprobe_kunit_recurse() keeps a
 * small fgraph frame (probe @level), and each level first calls
 * fprobe_kunit_fill(), whose probe @big needs a full record.  Near the top
 * of the shadow stack a level still has room for fill()'s frame but not
 * for its record: @big misses that exit, and the recursion stops.
 */
static void fprobe_missed_without_room(struct kunit *test)
{
	struct fpk_probe *level = fpk_new(test, false, true, 0);
	struct fpk_probe *big = fpk_new(test, true, true, FPROBE_ENTRY_DATA_MAX);
	unsigned long site = ftrace_location((unsigned long)fprobe_kunit_recurse);

	KUNIT_ASSERT_NE(test, site, 0UL);
	KUNIT_ASSERT_EQ(test, register_fprobe_ips(&level->fp, &site, 1), 0);
	KUNIT_ASSERT_EQ(test, fpk_register(big, FPK_FILL), 0);

	fprobe_kunit_recurse(FPK_MAX_DEPTH, &big->fp.nmissed);
	if (!big->fp.nmissed)
		kunit_skip(test, "shadow stack deeper than %d calls", FPK_MAX_DEPTH);

	/* A record that did not fit: neither handler of @big ran for it. */
	KUNIT_EXPECT_EQ(test, fpk_entries(big), fpk_exits(big));
	KUNIT_EXPECT_GT(test, fpk_exits(big), 0L);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&big->bad), 0);

	/* With room again, nothing is missed. */
	big->fp.nmissed = 0;
	fpk_call(FPK_FILL, FPK_ARG);
	KUNIT_EXPECT_EQ(test, big->fp.nmissed, 0UL);
	KUNIT_EXPECT_EQ(test, fpk_entries(big), fpk_exits(big));
}

/* ---- several probes, registration forms ------------------------------ */

static void fprobe_several_on_one_function(struct kunit *test)
{
	struct fpk_probe *e = fpk_new(test, true, false, 0);
	struct fpk_probe *ee = fpk_new(test, true, true, 2 * sizeof(long));
	struct fpk_probe *x = fpk_new(test, false, true, 0);

	KUNIT_ASSERT_EQ(test, fpk_register(e, FPK_D), 0);
	KUNIT_ASSERT_EQ(test, fpk_register(ee, FPK_D), 0);
	KUNIT_ASSERT_EQ(test, fpk_register(x, FPK_D), 0);
	fpk_call(FPK_D, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(e), 1);
	KUNIT_EXPECT_EQ(test, fpk_entries(ee), 1);
	KUNIT_EXPECT_EQ(test, fpk_exits(ee), 1);
	KUNIT_EXPECT_EQ(test, fpk_exits(x), 1);
	KUNIT_EXPECT_EQ(test, e->ret_ip, ee->ret_ip);
	KUNIT_EXPECT_EQ(test, x->exit_ret_ip, ee->exit_ret_ip);
	KUNIT_EXPECT_EQ(test, x->retval, FPK_ARG + FTRACE_KUNIT_D_ADD);

	/* Removing one leaves the others working. */
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&ee->fp), 0);
	fpk_call(FPK_D, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(e), 2);
	KUNIT_EXPECT_EQ(test, fpk_exits(x), 2);
	KUNIT_EXPECT_EQ(test, fpk_entries(ee), 1);
	KUNIT_EXPECT_EQ(test, fpk_exits(ee), 1);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&ee->bad), 0);
}

static void fprobe_register_glob(struct kunit *test)
{
	struct fpk_probe *p = fpk_new(test, true, true, sizeof(long));
	struct fpk_probe *none = fpk_new(test, true, false, 0);

	KUNIT_ASSERT_EQ(test, register_fprobe(&p->fp, "fprobe_kunit_glob*",
					      "fprobe_kunit_glob2"), 0);
	fprobe_kunit_glob1(FPK_ARG);
	KUNIT_EXPECT_EQ(test, p->entry_ip, fpk_funcs[FPK_GLOB1].site);
	fprobe_kunit_glob2(FPK_ARG);
	KUNIT_EXPECT_EQ(test, p->entry_ip, fpk_funcs[FPK_GLOB1].site);
	fprobe_kunit_glob3(FPK_ARG);
	KUNIT_EXPECT_EQ(test, p->entry_ip, fpk_funcs[FPK_GLOB3].site);
	KUNIT_EXPECT_EQ(test, fpk_entries(p), 2);
	KUNIT_EXPECT_EQ(test, fpk_exits(p), 2);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&p->bad), 0);

	KUNIT_EXPECT_EQ(test, register_fprobe(&none->fp, "fprobe_kunit_no_such_fn*", NULL),
			-ENOENT);
	KUNIT_EXPECT_NE(test, register_fprobe(&none->fp, "fprobe_kunit_glob2",
					      "fprobe_kunit_glob*"), 0);
	KUNIT_EXPECT_FALSE(test, fprobe_is_registered(&none->fp));
	fprobe_kunit_glob2(FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(none), 0);
}

static void fprobe_register_ips(struct kunit *test)
{
	struct fpk_probe *p = fpk_new(test, true, false, 0);
	struct fpk_probe *bad = fpk_new(test, true, false, 0);
	/* A function address, a call site, and a duplicate. */
	unsigned long ips[] = {
		(unsigned long)ftrace_kunit_target_a, fpk_funcs[FPK_B].site,
		fpk_funcs[FPK_A].site,
	};
	unsigned long wrong[] = { fpk_funcs[FPK_C].site, (unsigned long)&fpk_funcs };

	KUNIT_ASSERT_EQ(test, register_fprobe_ips(&p->fp, ips, ARRAY_SIZE(ips)), 0);
	fpk_call(FPK_A, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(p), 1);
	fpk_call(FPK_B, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(p), 2);
	KUNIT_EXPECT_EQ(test, p->entry_ip, fpk_funcs[FPK_B].site);

	KUNIT_EXPECT_EQ(test, register_fprobe_ips(&bad->fp, wrong, ARRAY_SIZE(wrong)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, register_fprobe_ips(&bad->fp, ips, 0), -EINVAL);
	KUNIT_EXPECT_FALSE(test, fprobe_is_registered(&bad->fp));
	fpk_call(FPK_C, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(bad), 0);
}

/* Enough addresses for the radix sort, out of order and repeated. */
static void fprobe_register_many_ips(struct kunit *test)
{
	static const int pick[] = { FPK_C, FPK_A, FPK_GLOB2, FPK_B, FPK_A };
	struct fpk_probe *p = fpk_new(test, true, false, 0);
	const unsigned int n = 300;
	unsigned long *ips;
	unsigned int i;

	ips = kunit_kmalloc_array(test, n, sizeof(*ips), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ips);
	for (i = 0; i < n; i++)
		ips[i] = fpk_funcs[pick[(i * 7) % ARRAY_SIZE(pick)]].site;
	ips[n / 2] = (unsigned long)ftrace_kunit_target_d;
	KUNIT_ASSERT_EQ(test, register_fprobe_ips(&p->fp, ips, n), 0);
	/* each function once, whatever the number of its copies */
	fpk_call(FPK_A, FPK_ARG);
	fpk_call(FPK_B, FPK_ARG);
	fpk_call(FPK_C, FPK_ARG);
	fpk_call(FPK_D, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(p), 4);
	fpk_call(FPK_GLOB2, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(p), 5);
	fpk_call(FPK_GLOB1, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(p), 5);
}

static void fprobe_register_syms(struct kunit *test)
{
	static const char * const names[] = {
		"ftrace_kunit_target_d", "ftrace_kunit_target_c",
		"ftrace_kunit_target_d",
		"ftrace_kunit_target_b", "fprobe_kunit_no_such_fn",
	};
	struct fpk_probe *p = fpk_new(test, true, true, 0);
	struct fpk_probe *bad = fpk_new(test, true, false, 0);
	const char *syms[3], *wrong[2];

	/* Writable copies: the API takes const char **. */
	memcpy(syms, names, sizeof(syms));
	memcpy(wrong, names + ARRAY_SIZE(syms), sizeof(wrong));
	KUNIT_ASSERT_EQ(test, register_fprobe_syms(&p->fp, syms, ARRAY_SIZE(syms)), 0);
	/* The caller's array is left as it was. */
	KUNIT_EXPECT_STREQ(test, syms[0], "ftrace_kunit_target_d");
	fpk_call(FPK_C, FPK_ARG);
	fpk_call(FPK_D, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(p), 2);
	KUNIT_EXPECT_EQ(test, fpk_exits(p), 2);
	KUNIT_EXPECT_EQ(test, p->exit_ip, fpk_funcs[FPK_D].site);

	KUNIT_EXPECT_EQ(test, register_fprobe_syms(&bad->fp, wrong, ARRAY_SIZE(wrong)),
			-ENOENT);
	KUNIT_EXPECT_FALSE(test, fprobe_is_registered(&bad->fp));
	fpk_call(FPK_B, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(bad), 0);
}

static void fprobe_register_rules(struct kunit *test)
{
	struct fpk_probe *p = fpk_new(test, true, false, 0);

	KUNIT_EXPECT_EQ(test, unregister_fprobe(&p->fp), -EINVAL);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(NULL), -EINVAL);
	KUNIT_EXPECT_FALSE(test, fprobe_is_registered(&p->fp));

	KUNIT_ASSERT_EQ(test, fpk_register(p, FPK_A), 0);
	KUNIT_EXPECT_TRUE(test, fprobe_is_registered(&p->fp));
	KUNIT_EXPECT_EQ(test, fpk_register(p, FPK_B), -EBUSY);
	fpk_call(FPK_B, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(p), 0);

	KUNIT_EXPECT_EQ(test, unregister_fprobe(&p->fp), 0);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&p->fp), -EINVAL);
	KUNIT_EXPECT_FALSE(test, fprobe_is_registered(&p->fp));
	fpk_call(FPK_A, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(p), 0);

	/* Registering again after unregistering is allowed. */
	KUNIT_ASSERT_EQ(test, fpk_register(p, FPK_B), 0);
	fpk_call(FPK_B, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(p), 1);
}

/*
 * A thread on another CPU calls the probed function all the time.  Once
 * unregister_fprobe() has returned, the counts must not move any more.
 */
static void fprobe_unregister_under_load(struct kunit *test)
{
	struct fpk_caller *c;
	int cpu, round;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second online CPU");
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	KUNIT_ASSERT_LT(test, cpu, (int)nr_cpu_ids);
	c = fpk_caller_start(test, FPK_A, 3UL << 24, cpu);

	for (round = 0; round < 4; round++) {
		struct fpk_probe *g = fpk_new(test, true, true, sizeof(long));
		struct fpk_probe *e = fpk_new(test, true, false, 0);
		long ge, gx, ee, calls;

		KUNIT_ASSERT_EQ(test, fpk_register(g, FPK_A), 0);
		KUNIT_ASSERT_EQ(test, fpk_register(e, FPK_A), 0);
		KUNIT_EXPECT_TRUE(test, fpk_wait(&g->exits, 500));
		KUNIT_EXPECT_TRUE(test, fpk_wait(&e->entries, 500));

		KUNIT_EXPECT_EQ(test, unregister_fprobe(&e->fp), 0);
		KUNIT_EXPECT_EQ(test, unregister_fprobe(&g->fp), 0);
		ge = fpk_entries(g);
		gx = fpk_exits(g);
		ee = fpk_entries(e);
		calls = atomic_long_read(&c->calls);

		KUNIT_EXPECT_TRUE(test, fpk_wait(&c->calls, calls + 4 * FPK_BATCH));
		msleep(20);
		KUNIT_EXPECT_EQ(test, fpk_entries(g), ge);
		KUNIT_EXPECT_EQ(test, fpk_exits(g), gx);
		KUNIT_EXPECT_EQ(test, fpk_entries(e), ee);
		KUNIT_EXPECT_LE(test, gx, ge);
		KUNIT_EXPECT_EQ(test, atomic_long_read(&g->bad), 0);
	}
}

/* ---- the return path among other return hooks ------------------------- */

/*
 * A stack trace taken in an exit handler goes through the hooked return
 * address to the real caller: no return hook shows in it.
 */
static void fprobe_exit_stack_trace_sees_caller(struct kunit *test)
{
	struct fpk_probe *p = fpk_new(test, true, true, sizeof(long));

	if (!FPK_STACK_HAS_CALLER)
		kunit_skip(test, "the unwinder loses the caller through return_to_handler");
	p->trace_stack = true;
	KUNIT_ASSERT_EQ(test, fpk_register(p, FPK_A), 0);
	KUNIT_EXPECT_EQ(test, fpk_call(FPK_A, FPK_ARG), FPK_ARG + FTRACE_KUNIT_A_ADD);

	KUNIT_EXPECT_EQ(test, fpk_exits(p), 1);
	KUNIT_EXPECT_TRUE(test, p->stack_caller);
	KUNIT_EXPECT_FALSE(test, p->stack_hook);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&p->bad), 0);
}

/* A managed function-graph user on the probed function, counting. */
struct fpk_graph {
	struct fgraph_ops	gops;
	atomic_long_t		entries;
	atomic_long_t		returns;
	unsigned long		retval;
};

static int fpk_graph_entry(struct ftrace_graph_ent *trace,
			   struct fgraph_ops *gops, struct ftrace_regs *fregs)
{
	struct fpk_graph *g = container_of(gops, struct fpk_graph, gops);

	atomic_long_inc(&g->entries);
	return 1;
}

static void fpk_graph_return(struct ftrace_graph_ret *trace,
			     struct fgraph_ops *gops, struct ftrace_regs *fregs)
{
	struct fpk_graph *g = container_of(gops, struct fpk_graph, gops);

	g->retval = ftrace_regs_get_return_value(fregs);
	atomic_long_inc(&g->returns);
}

static void fpk_graph_release(void *arg)
{
	struct fpk_graph *g = arg;

	unregister_ftrace_graph(&g->gops);
	ftrace_free_filter(&g->gops.ops);
}

/*
 * The function-graph user and an fprobe exit hook the same call; their
 * hooks chain through the one return-address slot.  Both see one entry
 * and one return with the right value, the exit handler gets the real
 * return address, and a stack trace from it still names the caller.
 */
static void fprobe_exit_with_graph_user(struct kunit *test)
{
	struct fpk_probe *p = fpk_new(test, true, true, sizeof(long));
	struct fpk_graph *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	unsigned long want = FPK_ARG + FTRACE_KUNIT_A_ADD;
	int round;

	KUNIT_ASSERT_NOT_NULL(test, g);
	g->gops.entryfunc = fpk_graph_entry;
	g->gops.retfunc = fpk_graph_return;
	p->trace_stack = true;

	/* Graph user first, then the fprobe; the second round the other way. */
	for (round = 0; round < 2; round++) {
		/* fpk_graph_release() dropped the filter of the round before. */
		KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&g->gops.ops,
							   fpk_funcs[FPK_A].site,
							   0, 0), 0);
		if (round == 0) {
			KUNIT_ASSERT_EQ(test, register_ftrace_graph(&g->gops), 0);
			KUNIT_ASSERT_EQ(test, fpk_register(p, FPK_A), 0);
		} else {
			KUNIT_ASSERT_EQ(test, fpk_register(p, FPK_A), 0);
			KUNIT_ASSERT_EQ(test, register_ftrace_graph(&g->gops), 0);
		}
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpk_graph_release, g), 0);
		p->stack_caller = false;
		KUNIT_EXPECT_EQ(test, fpk_call(FPK_A, FPK_ARG), want);
		KUNIT_EXPECT_EQ(test, fpk_exits(p), round + 1);
		KUNIT_EXPECT_EQ(test, atomic_long_read(&g->returns), round + 1);
		KUNIT_EXPECT_EQ(test, atomic_long_read(&g->entries), round + 1);
		KUNIT_EXPECT_EQ(test, p->retval, want);
		KUNIT_EXPECT_EQ(test, g->retval, want);
		KUNIT_EXPECT_EQ(test, p->exit_ret_ip, p->ret_ip);
		KUNIT_EXPECT_FALSE(test, fgraph_is_hook(p->ret_ip));
		if (FPK_STACK_HAS_CALLER)
			KUNIT_EXPECT_TRUE(test, p->stack_caller);
		KUNIT_EXPECT_FALSE(test, p->stack_hook);
		kunit_release_action(test, fpk_graph_release, g);
		KUNIT_EXPECT_EQ(test, unregister_fprobe(&p->fp), 0);
	}
	KUNIT_EXPECT_EQ(test, atomic_long_read(&p->bad), 0);
}

#ifdef CONFIG_KRETPROBES
struct fpk_kret {
	struct kretprobe	krp;
	atomic_long_t		returns;
	unsigned long		retval;
};

static int fpk_kret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct fpk_kret *k = container_of(get_kretprobe(ri), struct fpk_kret, krp);

	k->retval = regs_return_value(regs);
	atomic_long_inc(&k->returns);
	return 0;
}

static void fpk_kret_release(void *arg)
{
	unregister_kretprobe(arg);
}

/* A kretprobe (rethook) and an fprobe exit on one function. */
static void fprobe_exit_with_kretprobe(struct kunit *test)
{
	struct fpk_probe *p = fpk_new(test, true, true, 0);
	struct fpk_kret *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	unsigned long want = FPK_ARG + FTRACE_KUNIT_B_ADD;

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->krp.kp.addr = (kprobe_opcode_t *)ftrace_kunit_target_b;
	k->krp.handler = fpk_kret_handler;
	k->krp.maxactive = 4;
	p->trace_stack = true;
	KUNIT_ASSERT_EQ(test, fpk_register(p, FPK_B), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&k->krp), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpk_kret_release, &k->krp), 0);

	KUNIT_EXPECT_EQ(test, fpk_call(FPK_B, FPK_ARG), want);
	KUNIT_EXPECT_EQ(test, fpk_call(FPK_B, FPK_ARG), want);
	KUNIT_EXPECT_EQ(test, fpk_exits(p), 2);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&k->returns), 2);
	KUNIT_EXPECT_EQ(test, p->retval, want);
	KUNIT_EXPECT_EQ(test, k->retval, want);
	KUNIT_EXPECT_EQ(test, p->exit_ret_ip, p->ret_ip);
	if (FPK_STACK_HAS_CALLER)
		KUNIT_EXPECT_TRUE(test, p->stack_caller);
	KUNIT_EXPECT_FALSE(test, p->stack_hook);
	KUNIT_EXPECT_EQ(test, k->krp.nmissed, 0);
}
#endif

/* ---- sharing with kprobes --------------------------------------------- */

#ifdef CONFIG_KPROBES
static int fpk_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	fpk_call(FPK_C, FPK_ARG);
	return 0;
}

static void fpk_kprobe_release(void *arg)
{
	unregister_kprobe(arg);
}

static void fprobe_kprobe_shared(struct kunit *test)
{
	struct fpk_probe *shared = fpk_new(test, true, false, 0);
	struct fpk_probe *gshared = fpk_new(test, true, true, 0);
	struct fpk_probe *plain = fpk_new(test, true, false, 0);
	struct kprobe *kp;

	shared->fp.flags = FPROBE_FL_KPROBE_SHARED;
	gshared->fp.flags = FPROBE_FL_KPROBE_SHARED;
	KUNIT_ASSERT_EQ(test, fpk_register(shared, FPK_C), 0);
	KUNIT_ASSERT_EQ(test, fpk_register(gshared, FPK_C), 0);
	KUNIT_ASSERT_EQ(test, fpk_register(plain, FPK_C), 0);

	/* Alone, a shared probe runs and looks like a running kprobe. */
	fpk_call(FPK_C, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(shared), 1);
	KUNIT_EXPECT_TRUE(test, shared->saw_kprobe);
	KUNIT_EXPECT_EQ(test, fpk_exits(gshared), 1);
	KUNIT_EXPECT_TRUE(test, gshared->saw_kprobe);
	KUNIT_EXPECT_FALSE(test, plain->saw_kprobe);

	/* Called from a kprobe handler, shared probes are skipped. */
	kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kp);
	kp->symbol_name = "ftrace_kunit_target_b";
	kp->pre_handler = fpk_kprobe_pre;
	if (register_kprobe(kp))
		kunit_skip(test, "cannot put a kprobe on ftrace_kunit_target_b");
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpk_kprobe_release, kp), 0);

	fpk_call(FPK_B, FPK_ARG);
	KUNIT_EXPECT_EQ(test, fpk_entries(shared), 1);
	KUNIT_EXPECT_EQ(test, shared->fp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, fpk_entries(gshared), 1);
	KUNIT_EXPECT_EQ(test, fpk_exits(gshared), 1);
	KUNIT_EXPECT_EQ(test, gshared->fp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, fpk_entries(plain), 2);
	KUNIT_EXPECT_TRUE(test, plain->saw_kprobe);
}
#endif /* CONFIG_KPROBES */

/* ---- a call that outlives its probe ------------------------------------ */

struct fpk_sleeper {
	struct completion	go;
	struct task_struct	*task;
	unsigned long		ret;
	atomic_long_t		done;
};

static int fpk_sleeper_fn(void *arg)
{
	struct fpk_sleeper *s = arg;

	s->ret = fprobe_kunit_wait(&s->go, FPK_ARG);
	atomic_long_set(&s->done, 1);
	while (!kthread_should_stop())
		usleep_range(1000, 2000);
	return 0;
}

static void fpk_sleeper_stop(void *arg)
{
	struct fpk_sleeper *s = arg;

	complete(&s->go);
	kthread_stop(s->task);
}

/* A thread asleep inside fprobe_kunit_wait() until ->go is completed. */
static struct fpk_sleeper *fpk_sleeper_start(struct kunit *test)
{
	struct fpk_sleeper *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	init_completion(&s->go);
	s->task = kthread_run(fpk_sleeper_fn, s, "fprobe_kunit/sleeper");
	KUNIT_ASSERT_FALSE(test, IS_ERR(s->task));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fpk_sleeper_stop, s), 0);
	return s;
}

/*
 * A call entered under one probe returns after that probe was unregistered
 * and another one registered on the same function, in the same
 * registration slot: neither exit handler runs for it.  A third probe
 * keeps the exit hook registered all along, so it is fprobe's record
 * check (slot and generation), not the function graph's key, that drops
 * the record.
 */
static void fprobe_stale_record_dropped(struct kunit *test)
{
	struct fpk_probe *a = fpk_new(test, true, true, sizeof(long));
	struct fpk_probe *b = fpk_new(test, true, true, sizeof(long));
	struct fpk_probe *keep = fpk_new(test, true, true, 0);
	struct completion open;
	struct fpk_sleeper *s;

	KUNIT_ASSERT_EQ(test, fpk_register(keep, FPK_D), 0);
	KUNIT_ASSERT_EQ(test, register_fprobe_ips(&a->fp, &fpk_wait_site, 1), 0);
	s = fpk_sleeper_start(test);
	KUNIT_ASSERT_TRUE(test, fpk_wait(&a->entries, 1));

	KUNIT_EXPECT_EQ(test, unregister_fprobe(&a->fp), 0);
	KUNIT_ASSERT_EQ(test, register_fprobe_ips(&b->fp, &fpk_wait_site, 1), 0);
	complete(&s->go);
	KUNIT_ASSERT_TRUE(test, fpk_wait(&s->done, 1));

	KUNIT_EXPECT_EQ(test, s->ret, FPK_ARG + FPROBE_KUNIT_WAIT_ADD);
	KUNIT_EXPECT_EQ(test, fpk_exits(a), 0);
	KUNIT_EXPECT_EQ(test, fpk_entries(b), 0);
	KUNIT_EXPECT_EQ(test, fpk_exits(b), 0);

	/* The new probe gets the calls that enter under it. */
	init_completion(&open);
	complete(&open);
	KUNIT_EXPECT_EQ(test, fprobe_kunit_wait(&open, 1), 1 + FPROBE_KUNIT_WAIT_ADD);
	KUNIT_EXPECT_EQ(test, fpk_entries(b), 1);
	KUNIT_EXPECT_EQ(test, fpk_exits(b), 1);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&b->bad), 0);
}

/*
 * The last probe with an exit handler goes (the exit hook and fprobe's
 * function-graph user with it) while a call it hooked sleeps: the call
 * still returns to its caller with its value, and no exit handler runs.
 */
static void fprobe_return_after_last_unregister(struct kunit *test)
{
	struct fpk_probe *a = fpk_new(test, true, true, sizeof(long));
	struct fpk_sleeper *s;

	KUNIT_ASSERT_EQ(test, register_fprobe_ips(&a->fp, &fpk_wait_site, 1), 0);
	s = fpk_sleeper_start(test);
	KUNIT_ASSERT_TRUE(test, fpk_wait(&a->entries, 1));

	KUNIT_EXPECT_EQ(test, unregister_fprobe(&a->fp), 0);
	complete(&s->go);
	KUNIT_ASSERT_TRUE(test, fpk_wait(&s->done, 1));

	KUNIT_EXPECT_EQ(test, s->ret, FPK_ARG + FPROBE_KUNIT_WAIT_ADD);
	KUNIT_EXPECT_EQ(test, fpk_exits(a), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&a->bad), 0);
}

static int fpk_init(struct kunit *test)
{
	int i;

	fpk_wait_site = ftrace_location((unsigned long)fprobe_kunit_wait);
	KUNIT_ASSERT_NE(test, fpk_wait_site, 0UL);

	for (i = 0; i < FPK_NR; i++) {
		fpk_funcs[i].site = ftrace_location((unsigned long)fpk_funcs[i].fn);
		KUNIT_ASSERT_NE_MSG(test, fpk_funcs[i].site, 0UL,
				    "%ps has no fentry call site", fpk_funcs[i].fn);
	}
	return 0;
}

static struct kunit_case fprobe_core_cases[] = {
	KUNIT_CASE(fprobe_handler_arguments),
	KUNIT_CASE(fprobe_entry_data_shared),
	KUNIT_CASE(fprobe_entry_data_rounding),
	KUNIT_CASE(fprobe_entry_data_nested),
	KUNIT_CASE(fprobe_entry_data_concurrent),
	KUNIT_CASE(fprobe_entry_cancels_exit),
	KUNIT_CASE(fprobe_enable_disable),
	KUNIT_CASE(fprobe_data_size_limit),
	KUNIT_CASE(fprobe_missed_on_nesting),
	KUNIT_CASE(fprobe_missed_without_room),
	KUNIT_CASE(fprobe_several_on_one_function),
	KUNIT_CASE(fprobe_register_glob),
	KUNIT_CASE(fprobe_register_ips),
	KUNIT_CASE(fprobe_register_many_ips),
	KUNIT_CASE(fprobe_register_syms),
	KUNIT_CASE(fprobe_register_rules),
	KUNIT_CASE_SLOW(fprobe_unregister_under_load),
	KUNIT_CASE(fprobe_stale_record_dropped),
	KUNIT_CASE(fprobe_return_after_last_unregister),
	KUNIT_CASE(fprobe_exit_stack_trace_sees_caller),
	KUNIT_CASE(fprobe_exit_with_graph_user),
#ifdef CONFIG_KRETPROBES
	KUNIT_CASE(fprobe_exit_with_kretprobe),
#endif
#ifdef CONFIG_KPROBES
	KUNIT_CASE(fprobe_kprobe_shared),
#endif
	{}
};

static struct kunit_suite fprobe_core_suite = {
	.name		= "fprobe_core",
	.init		= fpk_init,
	.test_cases	= fprobe_core_cases,
};

kunit_test_suite(fprobe_core_suite);
