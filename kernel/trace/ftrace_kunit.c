// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "ftrace_core": the function-hook core as its users see it.
 *
 * Every case hooks real call sites, those of the functions in
 * ftrace_kunit_funcs.c (the one object of this directory built with fentry).
 * Nothing but this suite calls them, so the number of callbacks an ops gets
 * for one of them is exact: the number of calls made while it was hooked.
 * Callbacks only count with atomics and record what they saw; the case
 * checks afterwards in its own context, never inside a callback.
 *
 * Lifetime: each ops is embedded in a struct fk_probe, allocated with
 * kunit_kzalloc() (or static where a case says so) together with a KUnit
 * action that unregisters the ops if it is still registered and then frees
 * its filter and notrace hashes.  Actions run in reverse order of creation,
 * so an ops is unregistered before its memory is released, and a helper
 * thread started after an ops is stopped before that ops goes away.
 * ftrace_enabled is put back by an action too, on every path.
 *
 * Threads: cases that need a second CPU run a kthread bound to another
 * online CPU (skipped on one CPU).  It sleeps briefly after every batch of
 * calls: unregistering may wait for an RCU-tasks grace period (direct ops,
 * arm64), which needs every task to schedule voluntarily now and then.
 *
 * Cost: most of the run time is grace periods (an unregister waits for one
 * or two) and record matching of string filters, so cases use
 * ftrace_set_filter_ip() unless they test string patterns.
 *
 * The unregister cases check the core's promise while other CPUs keep
 * calling the hooked function: once unregister_ftrace_function() returns,
 * the callback neither runs nor starts again, also for an ops freed at
 * once (its poisoned state word, then its poisoned memory, would show a
 * late call), for several ops unregistered at the same time from as many
 * threads, and for ops with FTRACE_OPS_FL_RCU or RECURSION (called through
 * the dispatcher and the assist wrapper).
 *
 * Private interface used: ftrace_enabled, ftrace_enabled_set() and
 * ftrace_core_dead() from ftrace_internal.h; the call-site cases also
 * build groups of made-up addresses (fk_group_build()) and look
 * at the live records' encoding and states under ftrace_lock.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/ftrace_quiet.h>
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/trace_recursion.h>
#include <asm/trace_kunit.h>

#include "ftrace_internal.h"
#include "ftrace_kunit.h"

/* The hooked functions, indexes into fk_funcs[] and bits of a hit mask. */
enum fk_target { FK_A, FK_B, FK_C, FK_D, FK_FROM, FK_TO, FK_NR };

#define FK_ALL		(BIT(FK_NR) - 1)
#define FK_TARGETS	(BIT(FK_A) | BIT(FK_B) | BIT(FK_C) | BIT(FK_D))

struct fk_func {
	const char	*name;
	unsigned long	(*fn)(unsigned long x);
	unsigned int	calls;		/* calls per fk_call_all() */
};

/* Call counts are distinct primes, so hits of one can't pass for another. */
static const struct fk_func fk_funcs[FK_NR] = {
	[FK_A]		= { "ftrace_kunit_target_a", ftrace_kunit_target_a, 3 },
	[FK_B]		= { "ftrace_kunit_target_b", ftrace_kunit_target_b, 5 },
	[FK_C]		= { "ftrace_kunit_target_c", ftrace_kunit_target_c, 7 },
	[FK_D]		= { "ftrace_kunit_target_d", ftrace_kunit_target_d, 11 },
	[FK_FROM]	= { "ftrace_kunit_redirect_from", ftrace_kunit_redirect_from, 13 },
	[FK_TO]		= { "ftrace_kunit_redirect_to", ftrace_kunit_redirect_to, 17 },
};

/* fentry call site of each function; filled in by fk_init(). */
static unsigned long fk_site[FK_NR];

/*
 * How far into a function its call site may be: x86 puts the fentry call
 * first, or after a 4-byte endbr with IBT; arm64 puts the BL after the
 * "mov x9, x30" (and a "bti c" with BTI).  Allow a little more.
 */
#define FK_SITE_MAX_OFFSET	16
#define FK_ARG			0x5eedUL
#define FK_WAIT_MS		5000
#define FK_RUNNER_BATCH		32
#define FK_SWITCHES		16
#define FK_UNREG_ROUNDS		8
/* How deep fk_recurse_cb() lets itself nest when nothing stops it. */
#define FK_NEST_CAP		8

/*
 * An ops and what its callbacks saw.  hits[]/foreign are kept by every
 * callback; the other fields by the callbacks named beside them.
 */
struct fk_probe {
	struct ftrace_ops	ops;
	bool			registered;
	atomic_t		hits[FK_NR];
	atomic_t		foreign;	/* calls from any other site */
	unsigned long		foreign_ip;	/* the latest of those */

	/* fk_record_cb, for calls of FK_A */
	unsigned long		ip;
	unsigned long		parent_ip;
	struct ftrace_ops	*op;
	bool			had_fregs;
	bool			had_regs;
	unsigned long		fregs_ip;
	unsigned long		fregs_arg0;
	unsigned long		regs_ip;
	unsigned long		regs_arg0;

	/* fk_recurse_cb, fk_rcu_cb */
	atomic_t		preemptible_seen;
	atomic_t		rcu_unwatched;
	int			nesting;
	int			max_nesting;

	/* fk_window_cb */
	int			in_callback;
};

static inline struct fk_probe *fk_probe_of(struct ftrace_ops *op)
{
	return container_of(op, struct fk_probe, ops);
}

static int notrace fk_site_index(unsigned long ip)
{
	int i;

	for (i = 0; i < FK_NR; i++) {
		if (fk_site[i] == ip)
			return i;
	}
	return -1;
}

/* Count a callback for @ip; returns its fk_target or -1 (foreign). */
static int notrace fk_count(struct fk_probe *p, unsigned long ip)
{
	int i = fk_site_index(ip);

	if (i < 0) {
		WRITE_ONCE(p->foreign_ip, ip);
		atomic_inc(&p->foreign);
		return -1;
	}
	atomic_inc(&p->hits[i]);
	return i;
}

/* ---- callbacks ------------------------------------------------------ */

static void notrace fk_count_cb(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	fk_count(fk_probe_of(op), ip);
}

static void notrace fk_record_cb(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct fk_probe *p = fk_probe_of(op);
	struct pt_regs *regs;

	if (fk_count(p, ip) != FK_A)
		return;
	p->ip = ip;
	p->parent_ip = parent_ip;
	p->op = op;
	p->had_fregs = !!fregs;
	if (!fregs)
		return;
	p->fregs_ip = ftrace_regs_get_instruction_pointer(fregs);
	p->fregs_arg0 = ftrace_regs_get_argument(fregs, 0);
	regs = ftrace_get_regs(fregs);
	p->had_regs = !!regs;
	if (!regs)
		return;
	p->regs_ip = instruction_pointer(regs);
	p->regs_arg0 = regs_get_kernel_argument(regs, 0);
}

/*
 * The pt_regs view for pt_regs-only users (BPF): taken and given back, as
 * kprobe_multi's handlers do; notes what it showed against the fregs.
 */
static void notrace fk_ptregs_cb(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct fk_probe *p = fk_probe_of(op);
	bool completed = !ftrace_get_regs(fregs);
	struct pt_regs *regs;

	if (fk_count(p, ip) != FK_A)
		return;
	regs = ftrace_regs_get_pt_regs(fregs);
	p->had_regs = !!regs;
	if (!regs)
		return;
	p->fregs_ip = ftrace_regs_get_instruction_pointer(fregs);
	p->fregs_arg0 = ftrace_regs_get_argument(fregs, 0);
	p->regs_ip = instruction_pointer(regs);
	p->regs_arg0 = regs_get_kernel_argument(regs, 0);
	/* a kernel-mode frame, whose unsaved registers read as zero */
	if (user_mode(regs) || !trace_kunit_unsaved_regs_zero(regs))
		p->regs_arg0 = ~0UL;
	ftrace_regs_put_pt_regs(fregs, regs, completed);
}

/* IPMODIFY: calls of ftrace_kunit_redirect_from() continue in _to(). */
static void notrace fk_redirect_cb(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	if (fk_count(fk_probe_of(op), ip) != FK_FROM)
		return;
	ftrace_regs_set_instruction_pointer(fregs,
					    (unsigned long)ftrace_kunit_redirect_to);
}

/*
 * Calls the function it hooks, so it would nest without end if nothing
 * stopped it; it stops itself at FK_NEST_CAP levels and notes the deepest.
 */
static void notrace fk_recurse_cb(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op,
				  struct ftrace_regs *fregs)
{
	struct fk_probe *p = fk_probe_of(op);
	int depth;

	if (fk_count(p, ip) != FK_A)
		return;
	if (preemptible())
		atomic_inc(&p->preemptible_seen);
	depth = READ_ONCE(p->nesting) + 1;
	if (depth > READ_ONCE(p->max_nesting))
		WRITE_ONCE(p->max_nesting, depth);
	if (depth >= FK_NEST_CAP)
		return;
	WRITE_ONCE(p->nesting, depth);
	ftrace_kunit_target_a(0);
	WRITE_ONCE(p->nesting, depth - 1);
}

static void notrace fk_rcu_cb(unsigned long ip, unsigned long parent_ip,
			      struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct fk_probe *p = fk_probe_of(op);

	fk_count(p, ip);
	if (!rcu_is_watching())
		atomic_inc(&p->rcu_unwatched);
}

/* Marks the time spent inside, and makes that time a little longer. */
static void notrace fk_window_cb(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct fk_probe *p = fk_probe_of(op);

	WRITE_ONCE(p->in_callback, 1);
	fk_count(p, ip);
	udelay(1);
	WRITE_ONCE(p->in_callback, 0);
}

/* ---- probes --------------------------------------------------------- */

static int fk_register(struct fk_probe *p)
{
	int ret = register_ftrace_function(&p->ops);

	if (!ret)
		p->registered = true;
	return ret;
}

static int fk_unregister(struct fk_probe *p)
{
	int ret = unregister_ftrace_function(&p->ops);

	if (!ret)
		p->registered = false;
	return ret;
}

static void fk_probe_release(void *arg)
{
	struct fk_probe *p = arg;

	/* If it would not unregister, its hashes may still be read: keep them. */
	if (p->registered && fk_unregister(p))
		return;
	ftrace_free_filter(&p->ops);
}

static void fk_probe_setup(struct kunit *test, struct fk_probe *p,
			   ftrace_func_t func, unsigned long flags)
{
	memset(p, 0, sizeof(*p));
	p->ops.func = func;
	p->ops.flags = flags;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fk_probe_release, p), 0);
}

static struct fk_probe *fk_probe_new(struct kunit *test, ftrace_func_t func,
				     unsigned long flags)
{
	struct fk_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	fk_probe_setup(test, p, func, flags);
	return p;
}

static void fk_probe_clear(struct fk_probe *p)
{
	int i;

	for (i = 0; i < FK_NR; i++)
		atomic_set(&p->hits[i], 0);
	atomic_set(&p->foreign, 0);
}

/* Hook exactly @target (reset) or add it to the filter. */
static void fk_filter_ip(struct kunit *test, struct fk_probe *p,
			 enum fk_target target, int reset)
{
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&p->ops, fk_site[target], 0, reset), 0);
}

typedef int (*fk_set_fn)(struct ftrace_ops *ops, unsigned char *buf, int len, int reset);

/* The setters may cut the buffer up while parsing: hand them a copy. */
static int fk_set(fk_set_fn set, struct fk_probe *p, const char *pattern,
		  int reset)
{
	char buf[64];
	ssize_t len = strscpy(buf, pattern, sizeof(buf));

	if (len < 0)
		return -E2BIG;
	return set(&p->ops, (unsigned char *)buf, len, reset);
}

static int fk_set_filter(struct fk_probe *p, const char *pattern, int reset)
{
	return fk_set(ftrace_set_filter, p, pattern, reset);
}

static int fk_set_notrace(struct fk_probe *p, const char *pattern, int reset)
{
	return fk_set(ftrace_set_notrace, p, pattern, reset);
}

/* ---- calls and checks ----------------------------------------------- */

static void fk_call(enum fk_target target, unsigned int times)
{
	unsigned int i;

	for (i = 0; i < times; i++)
		fk_funcs[target].fn(i);
}

static void fk_call_all(void)
{
	int i;

	for (i = 0; i < FK_NR; i++)
		fk_call(i, fk_funcs[i].calls);
}

/*
 * After @rounds calls of fk_call_all(), exactly the functions in @mask were
 * seen by @p (each of them every time), and nothing else was.
 */
static void fk_expect_hits(struct kunit *test, struct fk_probe *p,
			   unsigned long mask, unsigned int rounds)
{
	int i;

	for (i = 0; i < FK_NR; i++) {
		unsigned int want = (mask & BIT(i)) ? fk_funcs[i].calls * rounds : 0;

		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p->hits[i]), want,
				    "callbacks for %s", fk_funcs[i].name);
	}
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p->foreign), 0,
			    "latest foreign call site %pS",
			    (void *)READ_ONCE(p->foreign_ip));
}

/* Register @p, call everything once, unregister, and check the hits. */
static void fk_expect_selection(struct kunit *test, struct fk_probe *p,
				unsigned long mask)
{
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	fk_expect_hits(test, p, mask, 1);
}

static bool fk_wait_atomic(atomic_t *v, int min)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(FK_WAIT_MS);

	while (atomic_read(v) < min) {
		if (time_after(jiffies, deadline))
			return false;
		usleep_range(100, 200);
	}
	return true;
}

/* ---- a caller on another CPU ---------------------------------------- */

struct fk_runner {
	struct task_struct	*task;
	void			(*body)(void);
	atomic_t		rounds;		/* batches of calls completed */
};

static int fk_runner_fn(void *arg)
{
	struct fk_runner *r = arg;
	unsigned int i;

	while (!kthread_should_stop()) {
		for (i = 0; i < FK_RUNNER_BATCH; i++)
			r->body();
		atomic_inc(&r->rounds);
		/* Schedule voluntarily, for RCU-tasks grace periods. */
		usleep_range(20, 50);
	}
	return 0;
}

static void fk_runner_stop(void *arg)
{
	struct fk_runner *r = arg;

	kthread_stop(r->task);
}

/* Start a thread calling @body in a loop on a CPU other than ours. */
static struct fk_runner *fk_runner_start(struct kunit *test, void (*body)(void))
{
	struct fk_runner *r;
	unsigned int cpu;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second online CPU");
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	KUNIT_ASSERT_LT(test, cpu, nr_cpu_ids);

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->body = body;
	r->task = kthread_create(fk_runner_fn, r, "ftrace_kunit/%u", cpu);
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->task));
	kthread_bind(r->task, cpu);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fk_runner_stop, r), 0);
	wake_up_process(r->task);
	return r;
}

/* Wait until the runner has completed @n more batches than now. */
static void fk_runner_wait(struct kunit *test, struct fk_runner *r, int n)
{
	KUNIT_ASSERT_TRUE_MSG(test, fk_wait_atomic(&r->rounds, atomic_read(&r->rounds) + n),
			      "the runner thread made no progress");
}

static void fk_body_abc(void)
{
	ftrace_kunit_target_a(1);
	ftrace_kunit_target_b(2);
	ftrace_kunit_target_c(3);
}

static void fk_body_d(void)
{
	ftrace_kunit_target_d(4);
}

/* ---- suite setup ---------------------------------------------------- */

static int fk_init(struct kunit *test)
{
	int i;

	KUNIT_ASSERT_FALSE_MSG(test, ftrace_core_dead(), "ftrace is disabled");
	KUNIT_ASSERT_TRUE_MSG(test, READ_ONCE(ftrace_enabled),
			      "kernel.ftrace_enabled is 0");
	for (i = 0; i < FK_NR; i++) {
		unsigned long fn = (unsigned long)fk_funcs[i].fn;

		fk_site[i] = ftrace_location(fn);
		KUNIT_ASSERT_GE_MSG(test, fk_site[i], fn, "%s has no call site",
				    fk_funcs[i].name);
		KUNIT_ASSERT_LT(test, fk_site[i], fn + FK_SITE_MAX_OFFSET);
	}
	return 0;
}

static void fk_enable_ftrace(void *unused)
{
	ftrace_enabled_set(true);
}

static void fk_restore_enabled_later(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fk_enable_ftrace, NULL), 0);
}

/* ---- one ops -------------------------------------------------------- */

static void ops_counts_only_filtered_function(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, 0);

	fk_filter_ip(test, p, FK_A, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	fk_expect_hits(test, p, BIT(FK_A), 1);

	/* Unhooked: calls are no longer seen. */
	fk_call_all();
	fk_expect_hits(test, p, BIT(FK_A), 1);
}

static void callback_gets_site_caller_and_ops(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_record_cb, 0);
	char parent[KSYM_SYMBOL_LEN];
	unsigned long ret;

	fk_filter_ip(test, p, FK_A, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	ret = ftrace_kunit_target_a(FK_ARG);
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);

	KUNIT_EXPECT_EQ(test, ret, FK_ARG + FTRACE_KUNIT_A_ADD);
	KUNIT_ASSERT_EQ(test, atomic_read(&p->hits[FK_A]), 1);
	KUNIT_EXPECT_EQ(test, p->ip, fk_site[FK_A]);
	KUNIT_EXPECT_PTR_EQ(test, p->op, &p->ops);
	/*
	 * The parent is the return address in this function (or in a part
	 * the compiler split off it, hence the prefix match).
	 */
	sprint_symbol_no_offset(parent, p->parent_ip);
	KUNIT_EXPECT_TRUE_MSG(test, strstarts(parent, __func__),
			      "parent_ip %pS", (void *)p->parent_ip);
	KUNIT_ASSERT_TRUE(test, p->had_fregs);
	KUNIT_EXPECT_FALSE_MSG(test, p->had_regs, "pt_regs without SAVE_REGS");
	KUNIT_EXPECT_EQ(test, p->fregs_arg0, FK_ARG);
	/*
	 * The ip is where the function goes on after its call site: the
	 * return address of x86's 5-byte fentry call, the instruction after
	 * arm64's BL; site + MCOUNT_INSN_SIZE either way.
	 */
	KUNIT_EXPECT_EQ(test, p->fregs_ip, fk_site[FK_A] + MCOUNT_INSN_SIZE);
}

static const unsigned long fk_regs_flags[] = {
	FTRACE_OPS_FL_SAVE_REGS,
	FTRACE_OPS_FL_SAVE_REGS_IF_SUPPORTED,
};

static void fk_regs_flags_desc(const unsigned long *flags, char *desc)
{
	strscpy(desc, *flags == FTRACE_OPS_FL_SAVE_REGS ? "SAVE_REGS" :
		"SAVE_REGS_IF_SUPPORTED", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fk_regs_flags, fk_regs_flags, fk_regs_flags_desc);

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
static void save_regs_gives_pt_regs(struct kunit *test)
{
	const unsigned long *flags = test->param_value;
	struct fk_probe *p = fk_probe_new(test, fk_record_cb, *flags);

	fk_filter_ip(test, p, FK_A, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	ftrace_kunit_target_a(FK_ARG);
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);

	KUNIT_ASSERT_EQ(test, atomic_read(&p->hits[FK_A]), 1);
	KUNIT_EXPECT_EQ(test, p->ip, fk_site[FK_A]);
	KUNIT_ASSERT_TRUE(test, p->had_regs);
	/* regs->ip is where the fentry call returns to: site + 5. */
	KUNIT_EXPECT_EQ(test, p->regs_ip, fk_site[FK_A] + MCOUNT_INSN_SIZE);
	KUNIT_EXPECT_EQ(test, p->regs_arg0, FK_ARG);
}
#else
/*
 * No call site saves a pt_regs here (arm64 has only the argument frame):
 * an ops that insists on one is refused and never called; one that takes
 * it only if supported loses the flag and runs on the argument frame,
 * with the same ip and arguments as any other ops.
 */
static void save_regs_without_pt_regs_frame(struct kunit *test)
{
	const unsigned long *flags = test->param_value;
	struct fk_probe *p = fk_probe_new(test, fk_record_cb, *flags);

	fk_filter_ip(test, p, FK_A, 1);
	if (*flags == FTRACE_OPS_FL_SAVE_REGS) {
		KUNIT_EXPECT_EQ(test, fk_register(p), -EINVAL);
		KUNIT_EXPECT_EQ(test, ftrace_kunit_target_a(FK_ARG),
				FK_ARG + FTRACE_KUNIT_A_ADD);
		KUNIT_EXPECT_EQ(test, atomic_read(&p->hits[FK_A]), 0);
		KUNIT_EXPECT_FALSE(test, p->ops.flags & FTRACE_OPS_FL_ENABLED);
		return;
	}
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	KUNIT_EXPECT_FALSE(test, p->ops.flags & FTRACE_OPS_FL_SAVE_REGS);
	ftrace_kunit_target_a(FK_ARG);
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);

	KUNIT_ASSERT_EQ(test, atomic_read(&p->hits[FK_A]), 1);
	KUNIT_EXPECT_EQ(test, p->ip, fk_site[FK_A]);
	KUNIT_ASSERT_TRUE(test, p->had_fregs);
	KUNIT_EXPECT_FALSE(test, p->had_regs);
	KUNIT_EXPECT_EQ(test, p->fregs_ip, fk_site[FK_A] + MCOUNT_INSN_SIZE);
	KUNIT_EXPECT_EQ(test, p->fregs_arg0, FK_ARG);
}
#endif

/* ---- several ops ---------------------------------------------------- */

/*
 * @p1 then @p2 on FK_A, one round of calls, both taken off; each saw
 * exactly FK_A's calls.
 */
static void fk_two_on_a(struct kunit *test, struct fk_probe *p1,
			struct fk_probe *p2)
{
	fk_filter_ip(test, p1, FK_A, 1);
	fk_filter_ip(test, p2, FK_A, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p1), 0);
	KUNIT_ASSERT_EQ(test, fk_register(p2), 0);
	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(p2), 0);
	KUNIT_ASSERT_EQ(test, fk_unregister(p1), 0);
	fk_expect_hits(test, p1, BIT(FK_A), 1);
	fk_expect_hits(test, p2, BIT(FK_A), 1);
}

static void two_ops_on_one_function_both_called(struct kunit *test)
{
	fk_two_on_a(test, fk_probe_new(test, fk_count_cb, 0),
		    fk_probe_new(test, fk_count_cb, 0));
}

/*
 * A callback that views the frame as a pt_regs sees the call's arguments
 * and ip there, and the callback after it on the same call gets the
 * argument-only frame back (no pt_regs from ftrace_get_regs()).  Where
 * the architecture cannot complete an argument-only frame (no
 * arch_ftrace_get_pt_regs(), arm64), the view is NULL and the frame is
 * left as it was for the next callback.
 */
static void pt_regs_view_is_given_back(struct kunit *test)
{
	struct fk_probe *p1 = fk_probe_new(test, fk_ptregs_cb, 0);
	struct fk_probe *p2 = fk_probe_new(test, fk_record_cb, 0);

	fk_two_on_a(test, p1, p2);
#ifndef arch_ftrace_get_pt_regs
	KUNIT_EXPECT_FALSE(test, p1->had_regs);
	KUNIT_EXPECT_TRUE(test, p2->had_fregs);
	KUNIT_EXPECT_FALSE(test, p2->had_regs);
	KUNIT_EXPECT_EQ(test, p2->fregs_arg0, (unsigned long)fk_funcs[FK_A].calls - 1);
	KUNIT_EXPECT_EQ(test, p2->fregs_ip, fk_site[FK_A] + MCOUNT_INSN_SIZE);
	return;
#endif
	KUNIT_ASSERT_TRUE_MSG(test, p1->had_regs,
			      "no pt_regs view of an argument-only frame");
	KUNIT_EXPECT_EQ(test, p1->regs_arg0, p1->fregs_arg0);
	KUNIT_EXPECT_EQ(test, p1->regs_ip, p1->fregs_ip);
	KUNIT_EXPECT_EQ(test, p1->regs_arg0, (unsigned long)fk_funcs[FK_A].calls - 1);
	/* the second callback: arguments intact, no complete regs */
	KUNIT_EXPECT_TRUE(test, p2->had_fregs);
	KUNIT_EXPECT_FALSE(test, p2->had_regs);
	KUNIT_EXPECT_EQ(test, p2->fregs_arg0, p1->fregs_arg0);
}

/* ---- symbol lookup -------------------------------------------------- */

/* Pairs of names to look up: the API takes writable arrays of them. */
static const char * const fk_lookup_names[][2] = {
	/* 6.12's callers sort the names; ours need not */
	{ "ftrace_kunit_target_b", "ftrace_kunit_target_a" },
	{ "ftrace_kunit_target_a", "wb_no_such_function" },
	{ "ftrace_kunit_target_c", "ftrace_kunit_target_c" },
	/* kernel/trace is built without call sites */
	{ "ftrace_lookup_symbols", NULL },
};

static int fk_lookup(int pair, size_t cnt, unsigned long *addrs)
{
	const char *names[2];

	memcpy(names, fk_lookup_names[pair], sizeof(names));
	return ftrace_lookup_symbols(names, cnt, addrs);
}

static void lookup_symbols_finds_traceable_functions(struct kunit *test)
{
	unsigned long addrs[2];

	KUNIT_EXPECT_EQ(test, fk_lookup(0, 2, addrs), 0);
	KUNIT_EXPECT_EQ(test, addrs[0], (unsigned long)ftrace_kunit_target_b);
	KUNIT_EXPECT_EQ(test, addrs[1], (unsigned long)ftrace_kunit_target_a);
	KUNIT_EXPECT_EQ(test, ftrace_location(addrs[1]), fk_site[FK_A]);

	KUNIT_EXPECT_EQ(test, fk_lookup(1, 2, addrs), -ESRCH);
	KUNIT_EXPECT_EQ(test, addrs[0], (unsigned long)ftrace_kunit_target_a);
	KUNIT_EXPECT_EQ(test, addrs[1], 0UL);

	KUNIT_EXPECT_EQ(test, fk_lookup(2, 2, addrs), -ESRCH);
	KUNIT_EXPECT_EQ(test, fk_lookup(3, 1, addrs), -ESRCH);
	KUNIT_EXPECT_EQ(test, addrs[0], 0UL);
}

static int fk_cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * The batch form walks vmlinux's records once; each answer must be the
 * one ftrace_location() gives: function starts, sites themselves, a
 * repeated address, a core function, and one with no call site at all.
 */
static void locations_sorted_match_location(struct kunit *test)
{
	unsigned long ips[FK_NR + 4], want[FK_NR + 4];
	unsigned int i, n = 0;

	for (i = 0; i < FK_NR; i++)
		ips[n++] = (unsigned long)fk_funcs[i].fn;
	ips[n++] = fk_site[FK_B];
	ips[n++] = (unsigned long)fk_funcs[FK_C].fn;
	ips[n++] = (unsigned long)schedule;
	sort(ips, n, sizeof(*ips), fk_cmp_ulong, NULL);
	for (i = 0; i < n; i++)
		want[i] = ftrace_location(ips[i]);
	KUNIT_ASSERT_NE(test, want[0], 0UL);
	KUNIT_EXPECT_TRUE(test, ftrace_locations_sorted(ips, n));
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, ips[i], want[i]);
		if (i)
			KUNIT_EXPECT_GE(test, ips[i], ips[i - 1]);
	}

	/* kernel/trace has no call sites: the batch says so, leaving 0 */
	ips[0] = (unsigned long)fk_funcs[FK_A].fn;
	ips[1] = (unsigned long)ftrace_locations_sorted;
	if (ips[1] < ips[0])
		swap(ips[0], ips[1]);
	KUNIT_EXPECT_FALSE(test, ftrace_locations_sorted(ips, 2));
	KUNIT_EXPECT_TRUE(test, !ips[0] != !ips[1]);
}

/*
 * More than 64 addresses take the batch path when they are ascending and
 * the one-by-one path when not; both must build the same filter, dropping
 * repeats and mapping function starts to their sites, and both must
 * refuse the whole list, filter untouched, for one bad address.
 */
static void filter_ips_many(struct kunit *test)
{
	const unsigned int n = 96;
	unsigned long *ips = kunit_kcalloc(test, n, sizeof(*ips), GFP_KERNEL);
	unsigned long want = BIT(FK_A) | BIT(FK_B) | BIT(FK_C) | BIT(FK_D);
	struct fk_probe *up = fk_probe_new(test, fk_count_cb, 0);
	struct fk_probe *down = fk_probe_new(test, fk_count_cb, 0);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, ips);
	for (i = 0; i < n; i++)
		ips[i] = i % 2 ? fk_site[FK_A + i % 4] :
			 (unsigned long)fk_funcs[FK_A + i % 4].fn;
	sort(ips, n, sizeof(*ips), fk_cmp_ulong, NULL);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ips(&up->ops, ips, n, 0, 1), 0);
	for (i = 0; i < n / 2; i++)
		swap(ips[i], ips[n - 1 - i]);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ips(&down->ops, ips, n, 0, 1), 0);

	/* kernel/trace has no call sites: the whole list is refused */
	ips[n - 1] = (unsigned long)filter_ips_many;
	sort(ips, n, sizeof(*ips), fk_cmp_ulong, NULL);
	KUNIT_EXPECT_EQ(test, ftrace_set_filter_ips(&up->ops, ips, n, 0, 0), -EINVAL);

	KUNIT_ASSERT_EQ(test, fk_register(up), 0);
	KUNIT_ASSERT_EQ(test, fk_register(down), 0);
	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(down), 0);
	KUNIT_ASSERT_EQ(test, fk_unregister(up), 0);
	fk_expect_hits(test, up, want, 1);
	fk_expect_hits(test, down, want, 1);
}

static void two_ops_on_two_functions_kept_apart(struct kunit *test)
{
	struct fk_probe *p1 = fk_probe_new(test, fk_count_cb, 0);
	struct fk_probe *p2 = fk_probe_new(test, fk_count_cb, 0);

	fk_filter_ip(test, p1, FK_A, 1);
	fk_filter_ip(test, p2, FK_B, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p1), 0);
	KUNIT_ASSERT_EQ(test, fk_register(p2), 0);
	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(p1), 0);
	KUNIT_ASSERT_EQ(test, fk_unregister(p2), 0);
	fk_expect_hits(test, p1, BIT(FK_A), 1);
	fk_expect_hits(test, p2, BIT(FK_B), 1);
}

static void unrelated_ops_leaves_counts_alone(struct kunit *test)
{
	struct fk_probe *p1 = fk_probe_new(test, fk_count_cb, 0);
	struct fk_probe *p2 = fk_probe_new(test, fk_count_cb, 0);
	struct fk_probe *p3 = fk_probe_new(test, fk_count_cb, 0);

	fk_filter_ip(test, p1, FK_A, 1);
	fk_filter_ip(test, p2, FK_A, 1);
	fk_filter_ip(test, p3, FK_C, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p1), 0);
	KUNIT_ASSERT_EQ(test, fk_register(p2), 0);
	fk_call_all();

	KUNIT_ASSERT_EQ(test, fk_register(p3), 0);
	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(p3), 0);

	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(p2), 0);
	KUNIT_ASSERT_EQ(test, fk_unregister(p1), 0);
	fk_expect_hits(test, p1, BIT(FK_A), 3);
	fk_expect_hits(test, p2, BIT(FK_A), 3);
	fk_expect_hits(test, p3, BIT(FK_C), 1);
}

/* ---- filter and notrace --------------------------------------------- */

struct fk_glob {
	const char	*pattern;
	unsigned long	mask;
};

static const struct fk_glob fk_globs[] = {
	{ "ftrace_kunit_target_*",	FK_TARGETS },
	{ "*_target_a",			BIT(FK_A) },
	{ "*kunit_target*",		FK_TARGETS },
	{ "ftrace_kunit_redirect_to",	BIT(FK_TO) },
};

KUNIT_ARRAY_PARAM_DESC(fk_globs, fk_globs, pattern);

static void filter_glob_selects_matches(struct kunit *test)
{
	const struct fk_glob *g = test->param_value;
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, 0);

	KUNIT_ASSERT_EQ(test, fk_set_filter(p, g->pattern, 1), 0);
	fk_expect_selection(test, p, g->mask);
}

static void filter_bang_removes_function(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, 0);

	KUNIT_ASSERT_EQ(test, fk_set_filter(p, "ftrace_kunit_target_*", 1), 0);
	KUNIT_ASSERT_EQ(test, fk_set_filter(p, "!ftrace_kunit_target_c", 0), 0);
	fk_expect_selection(test, p, FK_TARGETS & ~BIT(FK_C));
}

static void filter_reset_replaces_set(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, 0);

	KUNIT_ASSERT_EQ(test, fk_set_filter(p, "ftrace_kunit_target_a", 1), 0);
	KUNIT_ASSERT_EQ(test, fk_set_filter(p, "ftrace_kunit_target_b", 1), 0);
	fk_expect_selection(test, p, BIT(FK_B));
}

static void filter_append_keeps_set(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, 0);

	KUNIT_ASSERT_EQ(test, fk_set_filter(p, "ftrace_kunit_target_a", 1), 0);
	KUNIT_ASSERT_EQ(test, fk_set_filter(p, "ftrace_kunit_target_b", 0), 0);
	fk_expect_selection(test, p, BIT(FK_A) | BIT(FK_B));
}

/*
 * A NULL pattern with reset empties the filter: every function.  Hooking
 * the whole kernel would be slow, so a notrace hash of everything but this
 * suite's functions narrows it again; with the old filter (target_c) still
 * in place only target_c would be seen.
 */
static void filter_null_reset_selects_all(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, 0);

	KUNIT_ASSERT_EQ(test, fk_set_filter(p, "ftrace_kunit_target_c", 1), 0);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter(&p->ops, NULL, 0, 1), 0);
	KUNIT_ASSERT_EQ(test, fk_set_notrace(p, "*", 1), 0);
	KUNIT_ASSERT_EQ(test, fk_set_notrace(p, "!ftrace_kunit_*", 0), 0);
	fk_expect_selection(test, p, FK_ALL);
}

static void notrace_wins_over_filter(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, 0);

	KUNIT_ASSERT_EQ(test, fk_set_filter(p, "ftrace_kunit_target_*", 1), 0);
	KUNIT_ASSERT_EQ(test, fk_set_notrace(p, "ftrace_kunit_target_b", 1), 0);
	fk_expect_selection(test, p, FK_TARGETS & ~BIT(FK_B));
}

static void filter_without_match_keeps_previous(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, 0);

	KUNIT_ASSERT_EQ(test, fk_set_filter(p, "ftrace_kunit_target_a", 1), 0);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	KUNIT_EXPECT_EQ(test, fk_set_filter(p, "ftrace_kunit_no_such_function", 1), -EINVAL);
	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	fk_expect_hits(test, p, BIT(FK_A), 1);
}

static void filter_change_while_registered_applies(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, 0);

	fk_filter_ip(test, p, FK_A, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	fk_call_all();
	fk_expect_hits(test, p, BIT(FK_A), 1);

	fk_probe_clear(p);
	KUNIT_ASSERT_EQ(test, fk_set_filter(p, "ftrace_kunit_target_b", 1), 0);
	fk_call_all();
	fk_expect_hits(test, p, BIT(FK_B), 1);

	fk_probe_clear(p);
	KUNIT_ASSERT_EQ(test, fk_set_filter(p, "ftrace_kunit_target_c", 0), 0);
	fk_call_all();
	fk_expect_hits(test, p, BIT(FK_B) | BIT(FK_C), 1);

	fk_probe_clear(p);
	KUNIT_ASSERT_EQ(test, fk_set_notrace(p, "ftrace_kunit_target_b", 0), 0);
	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	fk_expect_hits(test, p, BIT(FK_C), 1);
}

/*
 * An ip that is no call site fails, and leaves the filter as it was.  The
 * byte after the call instruction of the site is inside the function but
 * outside its site (an ip inside x86's 5-byte call itself resolves to the
 * site, as in 6.12).
 */
static void filter_ip_rejects_non_site(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, 0);
	unsigned long not_traced = (unsigned long)fk_count_cb;
	unsigned long past_site;

	fk_filter_ip(test, p, FK_A, 1);
	KUNIT_EXPECT_LT(test, ftrace_set_filter_ip(&p->ops, not_traced, 0, 0), 0);
	past_site = fk_site[FK_B] + MCOUNT_INSN_SIZE;
	KUNIT_EXPECT_LT(test, ftrace_set_filter_ip(&p->ops, past_site, 0, 1), 0);
	fk_expect_selection(test, p, BIT(FK_A));
}

static void filter_ips_adds_and_removes(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, 0);
	unsigned long ips[] = { fk_site[FK_A], fk_site[FK_C] };
	unsigned long bad[] = { fk_site[FK_B], fk_site[FK_B] + MCOUNT_INSN_SIZE };

	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ips(&p->ops, ips, ARRAY_SIZE(ips), 0, 1), 0);
	/* One bad ip fails the whole call: target_b is not added either. */
	KUNIT_EXPECT_LT(test, ftrace_set_filter_ips(&p->ops, bad, ARRAY_SIZE(bad), 0, 0), 0);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	fk_call_all();
	fk_expect_hits(test, p, BIT(FK_A) | BIT(FK_C), 1);

	fk_probe_clear(p);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ips(&p->ops, &ips[1], 1, 1, 0), 0);
	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	fk_expect_hits(test, p, BIT(FK_A), 1);
}

/*
 * Switch a registered ops between target_a and target_b while another CPU
 * calls a, b and c.  c must never be seen: at no moment may the old filter
 * be gone without the new one in place (an empty filter means everything).
 * Each switch must also be complete when the call returns.
 */
static void filter_switch_never_widens(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, 0);
	struct fk_runner *r;
	int i;

	fk_filter_ip(test, p, FK_A, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	r = fk_runner_start(test, fk_body_abc);
	fk_runner_wait(test, r, 1);

	for (i = 0; i < FK_SWITCHES; i++) {
		enum fk_target to = (i & 1) ? FK_A : FK_B;
		enum fk_target from = (i & 1) ? FK_B : FK_A;
		int old_hits, new_hits;

		if (i & 2)
			KUNIT_ASSERT_EQ(test, fk_set_filter(p, fk_funcs[to].name, 1), 0);
		else
			fk_filter_ip(test, p, to, 1);

		/* Let a call that was inside the callback finish. */
		fk_runner_wait(test, r, 1);
		old_hits = atomic_read(&p->hits[from]);
		new_hits = atomic_read(&p->hits[to]);
		fk_runner_wait(test, r, 2);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p->hits[from]), old_hits,
				    "switch %d: %s still hooked", i, fk_funcs[from].name);
		KUNIT_EXPECT_GT_MSG(test, atomic_read(&p->hits[to]), new_hits,
				    "switch %d: %s not hooked", i, fk_funcs[to].name);
	}

	KUNIT_EXPECT_EQ(test, atomic_read(&p->hits[FK_C]), 0);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p->foreign), 0,
			    "latest foreign call site %pS",
			    (void *)READ_ONCE(p->foreign_ip));
}

/* ---- flags ---------------------------------------------------------- */

/*
 * IPMODIFY alone: with ftrace_regs that can move the call (WITH_ARGS, how
 * livepatch registers on x86-64; fregs->pc on arm64), it redirects;
 * elsewhere it needs SAVE_REGS and is refused.
 */
static void ipmodify_without_save_regs(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_redirect_cb, FTRACE_OPS_FL_IPMODIFY);

	fk_filter_ip(test, p, FK_FROM, 1);
	if (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)) {
		KUNIT_EXPECT_EQ(test, fk_register(p), -EINVAL);
		KUNIT_EXPECT_EQ(test, ftrace_kunit_redirect_from(FK_ARG),
				FK_ARG + FTRACE_KUNIT_FROM_ADD);
		KUNIT_EXPECT_EQ(test, atomic_read(&p->hits[FK_FROM]), 0);
		return;
	}
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	KUNIT_EXPECT_EQ(test, ftrace_kunit_redirect_from(FK_ARG), FK_ARG + FTRACE_KUNIT_TO_ADD);
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	KUNIT_EXPECT_EQ(test, ftrace_kunit_redirect_from(FK_ARG), FK_ARG + FTRACE_KUNIT_FROM_ADD);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->hits[FK_FROM]), 1);
}

/*
 * The ip-modifiers of the cases below.  Where call sites can save a
 * pt_regs (x86) they take it, as kprobes on ftrace do; arm64 refuses
 * SAVE_REGS alone, so there they take it only if supported and move the
 * call through the argument frame.
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
#define FK_IPMODIFY	(FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_SAVE_REGS)
#else
#define FK_IPMODIFY	(FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_SAVE_REGS_IF_SUPPORTED)
#endif

static void ipmodify_redirects_call(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_redirect_cb, FK_IPMODIFY);
	unsigned long from_runs, to_runs, i;

	fk_filter_ip(test, p, FK_FROM, 1);
	KUNIT_EXPECT_EQ(test, ftrace_kunit_redirect_from(FK_ARG), FK_ARG + FTRACE_KUNIT_FROM_ADD);

	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	from_runs = READ_ONCE(ftrace_kunit_from_runs);
	to_runs = READ_ONCE(ftrace_kunit_to_runs);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, ftrace_kunit_redirect_from(i), i + FTRACE_KUNIT_TO_ADD);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ftrace_kunit_from_runs), from_runs);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ftrace_kunit_to_runs), to_runs + 8);
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);

	KUNIT_EXPECT_EQ(test, ftrace_kunit_redirect_from(FK_ARG), FK_ARG + FTRACE_KUNIT_FROM_ADD);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->hits[FK_FROM]), 8);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->hits[FK_TO]), 0);
}

/* An empty filter would mean "every function": refused while in use. */
static void ipmodify_filter_cannot_empty(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_redirect_cb, FK_IPMODIFY);

	fk_filter_ip(test, p, FK_FROM, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	KUNIT_EXPECT_EQ(test, ftrace_set_filter_ip(&p->ops, fk_site[FK_FROM], 1, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ftrace_set_filter(&p->ops, NULL, 0, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, fk_set_notrace(p, "ftrace_kunit_target_b", 0), -EINVAL);
	/* still redirecting exactly the one function */
	KUNIT_EXPECT_EQ(test, ftrace_kunit_redirect_from(FK_ARG), FK_ARG + FTRACE_KUNIT_TO_ADD);
	KUNIT_EXPECT_EQ(test, ftrace_kunit_target_a(FK_ARG), FK_ARG + FTRACE_KUNIT_A_ADD);
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->hits[FK_FROM]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->foreign), 0);
	/* unregistered, it may be emptied again */
	KUNIT_EXPECT_EQ(test, ftrace_set_filter_ip(&p->ops, fk_site[FK_FROM], 1, 0), 0);
}

static void ipmodify_second_ops_busy(struct kunit *test)
{
	struct fk_probe *p1 = fk_probe_new(test, fk_redirect_cb, FK_IPMODIFY);
	struct fk_probe *p2 = fk_probe_new(test, fk_redirect_cb, FK_IPMODIFY);

	fk_filter_ip(test, p1, FK_FROM, 1);
	fk_filter_ip(test, p2, FK_FROM, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p1), 0);
	KUNIT_EXPECT_EQ(test, fk_register(p2), -EBUSY);

	/* The first one still owns the function. */
	KUNIT_EXPECT_EQ(test, ftrace_kunit_redirect_from(FK_ARG), FK_ARG + FTRACE_KUNIT_TO_ADD);
	KUNIT_EXPECT_EQ(test, atomic_read(&p1->hits[FK_FROM]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p2->hits[FK_FROM]), 0);

	/* Once it is gone, the second one may have it. */
	KUNIT_ASSERT_EQ(test, fk_unregister(p1), 0);
	KUNIT_ASSERT_EQ(test, fk_register(p2), 0);
	KUNIT_EXPECT_EQ(test, ftrace_kunit_redirect_from(FK_ARG), FK_ARG + FTRACE_KUNIT_TO_ADD);
	KUNIT_ASSERT_EQ(test, fk_unregister(p2), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p1->hits[FK_FROM]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p2->hits[FK_FROM]), 1);
}

static void ipmodify_clash_on_filter_change_busy(struct kunit *test)
{
	struct fk_probe *p1 = fk_probe_new(test, fk_redirect_cb, FK_IPMODIFY);
	struct fk_probe *p2 = fk_probe_new(test, fk_redirect_cb, FK_IPMODIFY);

	fk_filter_ip(test, p1, FK_FROM, 1);
	fk_filter_ip(test, p2, FK_B, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p1), 0);
	KUNIT_ASSERT_EQ(test, fk_register(p2), 0);

	KUNIT_EXPECT_EQ(test, ftrace_set_filter_ip(&p2->ops, fk_site[FK_FROM], 0, 1), -EBUSY);
	KUNIT_EXPECT_EQ(test, fk_set_filter(p2, "ftrace_kunit_redirect_from", 0), -EBUSY);

	/* Both keep what they had. */
	KUNIT_EXPECT_EQ(test, ftrace_kunit_redirect_from(FK_ARG), FK_ARG + FTRACE_KUNIT_TO_ADD);
	fk_call(FK_B, fk_funcs[FK_B].calls);
	KUNIT_ASSERT_EQ(test, fk_unregister(p2), 0);
	KUNIT_ASSERT_EQ(test, fk_unregister(p1), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p1->hits[FK_FROM]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p2->hits[FK_FROM]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p2->hits[FK_B]), fk_funcs[FK_B].calls);
}

/* ---- an ip-modifier and a direct call on one function ------------------ */

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
unsigned long fk_tramp_hits;
void fk_direct_tramp(void);

/* A direct-call trampoline that only counts, in fk_tramp_hits. */
TRACE_KUNIT_DIRECT_TRAMP(fk_direct_tramp, fk_tramp_hits);

/* A direct ops that counts the commands its ops_func gets. */
struct fk_direct {
	struct ftrace_ops	ops;
	int			answer;		/* to the ENABLE_* commands */
	unsigned int		cmds[3];	/* per enum ftrace_ops_cmd */
	bool			registered;
};

static int fk_direct_ops_func(struct ftrace_ops *op, enum ftrace_ops_cmd cmd)
{
	struct fk_direct *d = container_of(op, struct fk_direct, ops);

	if (cmd >= ARRAY_SIZE(d->cmds))
		return -EINVAL;
	d->cmds[cmd]++;
	return cmd == FTRACE_OPS_CMD_DISABLE_SHARE_IPMODIFY_PEER ? 0 : d->answer;
}

static void fk_direct_release(void *arg)
{
	struct fk_direct *d = arg;

	if (d->registered &&
	    unregister_ftrace_direct(&d->ops, (unsigned long)fk_direct_tramp, false))
		return;
	ftrace_free_filter(&d->ops);
}

/* A direct ops on ftrace_kunit_redirect_from(), with or without ops_func. */
static struct fk_direct *fk_direct_new(struct kunit *test, bool with_ops_func,
				       int answer)
{
	struct fk_direct *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->answer = answer;
	if (with_ops_func)
		d->ops.ops_func = fk_direct_ops_func;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fk_direct_release, d), 0);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&d->ops, fk_site[FK_FROM], 0, 1), 0);
	return d;
}

static int fk_direct_register(struct fk_direct *d)
{
	int ret = register_ftrace_direct(&d->ops, (unsigned long)fk_direct_tramp);

	if (!ret)
		d->registered = true;
	return ret;
}

static int fk_direct_unregister(struct fk_direct *d)
{
	int ret = unregister_ftrace_direct(&d->ops, (unsigned long)fk_direct_tramp,
					   false);

	if (!ret)
		d->registered = false;
	return ret;
}

/* Call ftrace_kunit_redirect_from() once: which body ran, did the tramp? */
static void fk_expect_call(struct kunit *test, unsigned long add, bool tramp)
{
	unsigned long hits = READ_ONCE(fk_tramp_hits);

	KUNIT_EXPECT_EQ(test, ftrace_kunit_redirect_from(FK_ARG), FK_ARG + add);
	KUNIT_EXPECT_EQ(test, READ_ONCE(fk_tramp_hits), hits + tramp);
}

#define FK_CMD_SELF	FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_SELF
#define FK_CMD_PEER	FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_PEER
#define FK_CMD_UNPEER	FTRACE_OPS_CMD_DISABLE_SHARE_IPMODIFY_PEER

/* Without ops_func a direct call shares with no ip-modifier, either way. */
static void direct_ipmodify_need_ops_func(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_redirect_cb, FK_IPMODIFY);
	struct fk_direct *d = fk_direct_new(test, false, 0);

	fk_filter_ip(test, p, FK_FROM, 1);
	KUNIT_ASSERT_EQ(test, fk_direct_register(d), 0);
	fk_expect_call(test, FTRACE_KUNIT_FROM_ADD, true);
	KUNIT_EXPECT_EQ(test, fk_register(p), -EBUSY);
	fk_expect_call(test, FTRACE_KUNIT_FROM_ADD, true);
	KUNIT_ASSERT_EQ(test, fk_direct_unregister(d), 0);

	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	KUNIT_EXPECT_EQ(test, fk_direct_register(d), -EBUSY);
	fk_expect_call(test, FTRACE_KUNIT_TO_ADD, false);
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->hits[FK_FROM]), 1);
}

/* Direct call first: PEER before the ip-modifier comes, UNPEER after. */
static void direct_then_ipmodify_shared(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_redirect_cb, FK_IPMODIFY);
	struct fk_direct *d = fk_direct_new(test, true, 0);
	unsigned long to_runs, from_runs;
	int i;

	fk_filter_ip(test, p, FK_FROM, 1);
	KUNIT_ASSERT_EQ(test, fk_direct_register(d), 0);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	KUNIT_EXPECT_EQ(test, d->cmds[FK_CMD_PEER], 1);
	KUNIT_EXPECT_EQ(test, d->cmds[FK_CMD_SELF], 0);

	/* Both act on every call: the trampoline, then the new body. */
	from_runs = READ_ONCE(ftrace_kunit_from_runs);
	to_runs = READ_ONCE(ftrace_kunit_to_runs);
	for (i = 0; i < 4; i++)
		fk_expect_call(test, FTRACE_KUNIT_TO_ADD, true);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ftrace_kunit_from_runs), from_runs);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ftrace_kunit_to_runs), to_runs + 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->hits[FK_FROM]), 4);

	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	KUNIT_EXPECT_EQ(test, d->cmds[FK_CMD_UNPEER], 1);
	fk_expect_call(test, FTRACE_KUNIT_FROM_ADD, true);
	KUNIT_ASSERT_EQ(test, fk_direct_unregister(d), 0);
	fk_expect_call(test, FTRACE_KUNIT_FROM_ADD, false);
	KUNIT_EXPECT_EQ(test, d->cmds[FK_CMD_PEER], 1);
}

/* Ip-modifier first: the direct ops is asked SELF when it registers. */
static void ipmodify_then_direct_shared(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_redirect_cb, FK_IPMODIFY);
	struct fk_direct *d = fk_direct_new(test, true, 0);

	fk_filter_ip(test, p, FK_FROM, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	KUNIT_ASSERT_EQ(test, fk_direct_register(d), 0);
	KUNIT_EXPECT_EQ(test, d->cmds[FK_CMD_SELF], 1);
	KUNIT_EXPECT_EQ(test, d->cmds[FK_CMD_PEER], 0);
	fk_expect_call(test, FTRACE_KUNIT_TO_ADD, true);

	KUNIT_ASSERT_EQ(test, fk_direct_unregister(d), 0);
	fk_expect_call(test, FTRACE_KUNIT_TO_ADD, false);
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	fk_expect_call(test, FTRACE_KUNIT_FROM_ADD, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->hits[FK_FROM]), 2);
	/* The direct ops had left: nobody to tell. */
	KUNIT_EXPECT_EQ(test, d->cmds[FK_CMD_UNPEER], 0);
}

/* An ops_func that says no: its error, and nothing changed. */
static void direct_ipmodify_refusal_kept(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_redirect_cb, FK_IPMODIFY);
	struct fk_direct *d = fk_direct_new(test, true, -EAGAIN);

	fk_filter_ip(test, p, FK_FROM, 1);
	KUNIT_ASSERT_EQ(test, fk_direct_register(d), 0);
	KUNIT_EXPECT_EQ(test, fk_register(p), -EAGAIN);
	KUNIT_EXPECT_EQ(test, d->cmds[FK_CMD_PEER], 1);
	KUNIT_EXPECT_EQ(test, d->cmds[FK_CMD_UNPEER], 0);
	fk_expect_call(test, FTRACE_KUNIT_FROM_ADD, true);
	KUNIT_ASSERT_EQ(test, fk_direct_unregister(d), 0);

	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	KUNIT_EXPECT_EQ(test, fk_direct_register(d), -EAGAIN);
	KUNIT_EXPECT_EQ(test, d->cmds[FK_CMD_SELF], 1);
	fk_expect_call(test, FTRACE_KUNIT_TO_ADD, false);

	/* Once it agrees, the retry works (what a BPF trampoline does). */
	d->answer = 0;
	KUNIT_ASSERT_EQ(test, fk_direct_register(d), 0);
	fk_expect_call(test, FTRACE_KUNIT_TO_ADD, true);
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	KUNIT_EXPECT_EQ(test, d->cmds[FK_CMD_UNPEER], 1);
	fk_expect_call(test, FTRACE_KUNIT_FROM_ADD, true);
}
#endif

/*
 * The callback calls the function it hooks.  The recursion guard the core
 * wraps around it (the ftrace_test_recursion_trylock() bits) lets one
 * nested entry through in the same context, for the interrupt-entry
 * transition, and stops the next: every outer call nests at most once.
 */
static void recursion_flag_blocks_reentry(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_recurse_cb, FTRACE_OPS_FL_RECURSION);
	unsigned int calls = fk_funcs[FK_A].calls;

	fk_filter_ip(test, p, FK_A, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	fk_call(FK_A, calls);
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);

	KUNIT_EXPECT_LE(test, p->max_nesting, 2);
	KUNIT_EXPECT_GE(test, atomic_read(&p->hits[FK_A]), calls);
	KUNIT_EXPECT_LE(test, atomic_read(&p->hits[FK_A]), 2 * calls);
	KUNIT_EXPECT_EQ(test, p->nesting, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->preemptible_seen), 0);
}

static void rcu_flag_called_where_rcu_watches(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_rcu_cb, FTRACE_OPS_FL_RCU);

	fk_filter_ip(test, p, FK_A, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	fk_expect_hits(test, p, BIT(FK_A), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->rcu_unwatched), 0);
}

static void permanent_ops_blocks_disable(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, FTRACE_OPS_FL_PERMANENT);

	fk_restore_enabled_later(test);
	fk_filter_ip(test, p, FK_A, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	KUNIT_EXPECT_EQ(test, ftrace_enabled_set(false), -EBUSY);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(ftrace_enabled));
	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	fk_expect_hits(test, p, BIT(FK_A), 1);

	/* Without it, disabling works. */
	KUNIT_EXPECT_EQ(test, ftrace_enabled_set(false), 0);
	KUNIT_EXPECT_EQ(test, ftrace_enabled_set(true), 0);
}

static void permanent_ops_refused_while_disabled(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, FTRACE_OPS_FL_PERMANENT);

	fk_restore_enabled_later(test);
	fk_filter_ip(test, p, FK_A, 1);
	KUNIT_ASSERT_EQ(test, ftrace_enabled_set(false), 0);
	KUNIT_EXPECT_EQ(test, fk_register(p), -EBUSY);
	KUNIT_ASSERT_EQ(test, ftrace_enabled_set(true), 0);

	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	fk_expect_hits(test, p, BIT(FK_A), 1);
}

static void ftrace_disabled_silences_ops(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, 0);

	fk_restore_enabled_later(test);
	fk_filter_ip(test, p, FK_A, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	fk_call_all();

	KUNIT_ASSERT_EQ(test, ftrace_enabled_set(false), 0);
	fk_call_all();
	fk_expect_hits(test, p, BIT(FK_A), 1);

	KUNIT_ASSERT_EQ(test, ftrace_enabled_set(true), 0);
	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	fk_expect_hits(test, p, BIT(FK_A), 2);
}

/*
 * The trylock allows one nested taker in the same context (the
 * "transition" bit, for an interrupt not yet visible in preempt_count) and
 * refuses the next; it holds preemption off until the last unlock.
 */
static void recursion_trylock_allows_one_transition(struct kunit *test)
{
	unsigned long ip = fk_site[FK_A], pip = _THIS_IP_;
	bool was_preemptible = preemptible();
	int first, second, third, again;
	bool held_preemptible;

	first = ftrace_test_recursion_trylock(ip, pip);
	held_preemptible = preemptible();
	second = ftrace_test_recursion_trylock(ip, pip);
	third = ftrace_test_recursion_trylock(ip, pip);
	if (third >= 0)
		ftrace_test_recursion_unlock(third);
	if (second >= 0)
		ftrace_test_recursion_unlock(second);
	if (first >= 0)
		ftrace_test_recursion_unlock(first);
	again = ftrace_test_recursion_trylock(ip, pip);
	if (again >= 0)
		ftrace_test_recursion_unlock(again);

	KUNIT_EXPECT_GE(test, first, 0);
	KUNIT_EXPECT_FALSE(test, held_preemptible);
	KUNIT_EXPECT_GE(test, second, 0);
	KUNIT_EXPECT_NE(test, second, first);
	KUNIT_EXPECT_EQ(test, third, -1);
	KUNIT_EXPECT_EQ(test, again, first);
	KUNIT_EXPECT_EQ(test, (bool)preemptible(), was_preemptible);
}

/* ---- unregister ----------------------------------------------------- */

struct fk_unreg_param {
	const char	*desc;
	bool		static_ops;
	unsigned long	flags;
};

static const struct fk_unreg_param fk_unreg_params[] = {
	{ "allocated ops", false, 0 },
	{ "static ops", true, 0 },
	{ "RCU ops", false, FTRACE_OPS_FL_RCU },
	{ "recursion-safe ops", false, FTRACE_OPS_FL_RECURSION },
	{ "regs ops", false, FTRACE_OPS_FL_SAVE_REGS_IF_SUPPORTED },
};

KUNIT_ARRAY_PARAM_DESC(fk_unreg, fk_unreg_params, desc);

static struct fk_probe fk_static_probe;

/*
 * Another CPU calls target_d without pause while the ops is registered and
 * unregistered again and again.  Once unregister returns, the callback is
 * neither running nor started again.
 */
static void no_callback_after_unregister(struct kunit *test)
{
	const struct fk_unreg_param *param = test->param_value;
	struct fk_probe *p;
	int i;

	if (param->static_ops) {
		p = &fk_static_probe;
		fk_probe_setup(test, p, fk_window_cb, param->flags);
	} else {
		p = fk_probe_new(test, fk_window_cb, param->flags);
	}
	fk_filter_ip(test, p, FK_D, 1);
	fk_runner_start(test, fk_body_d);
	/* A second caller on that CPU: the two preempt each other there. */
	fk_runner_start(test, fk_body_d);

	for (i = 0; i < FK_UNREG_ROUNDS; i++) {
		int before = atomic_read(&p->hits[FK_D]);
		int after;
		bool busy;

		KUNIT_ASSERT_EQ(test, fk_register(p), 0);
		KUNIT_ASSERT_TRUE_MSG(test, fk_wait_atomic(&p->hits[FK_D], before + 1),
				      "round %d: callback never ran", i);
		KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
		busy = READ_ONCE(p->in_callback);
		after = atomic_read(&p->hits[FK_D]);
		msleep(20);
		KUNIT_EXPECT_FALSE_MSG(test, busy, "round %d: callback still running", i);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p->hits[FK_D]), after,
				    "round %d: callback after unregister", i);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&p->foreign), 0);
}

/*
 * A callback that stays inside for FK_HOLD_NS from its first entry, with
 * preemption as the callers left it: enabled on arm64, whose callers call
 * preemptibly, off on x86-64.  It leaves on its own clock, so nothing
 * that runs on another CPU can hold it up or let it go early.
 */
#define FK_HOLD_NS		(300 * NSEC_PER_MSEC)
#define FK_QUIET_TRIES		5

static atomic_t fk_hold_entered;
static u64 fk_hold_until;

static void notrace fk_hold_cb(unsigned long ip, unsigned long parent_ip,
			       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct fk_probe *p = fk_probe_of(op);

	if (fk_count(p, ip) != FK_D)
		return;
	WRITE_ONCE(p->in_callback, 1);
	WRITE_ONCE(fk_hold_until, ktime_get_mono_fast_ns() + FK_HOLD_NS);
	atomic_inc(&fk_hold_entered);
	while (ktime_get_mono_fast_ns() < READ_ONCE(fk_hold_until))
		cpu_relax();
	WRITE_ONCE(p->in_callback, 0);
}

/* Calls target_d once, then idles until stopped. */
static int fk_call_d_once(void *unused)
{
	fk_body_d();
	while (!kthread_should_stop())
		usleep_range(500, 1000);
	return 0;
}

/* Runs without sleeping while the held callback is inside. */
static int fk_hog(void *unused)
{
	while (ktime_get_mono_fast_ns() < READ_ONCE(fk_hold_until))
		cpu_relax();
	while (!kthread_should_stop())
		usleep_range(500, 1000);
	return 0;
}

static void fk_thread_stop(void *arg)
{
	kthread_stop(arg);
}

/* A kthread on @cpu, stopped (and waited for) when the case ends. */
static void fk_thread_on(struct kunit *test, int (*fn)(void *), unsigned int cpu,
			 const char *name)
{
	struct task_struct *t = kthread_create(fn, NULL, "%s/%u", name, cpu);

	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	kthread_bind(t, cpu);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fk_thread_stop, t), 0);
	wake_up_process(t);
}

/* Does ftrace_arch_callers_quiet() see every task outside, within a few tries? */
static bool fk_callers_quiet_soon(void)
{
	int i;

	for (i = 0; i < FK_QUIET_TRIES; i++) {
		if (ftrace_arch_callers_quiet())
			return true;
		msleep(20);
	}
	return false;
}

/*
 * A task is inside the callback of an ops on another CPU, where a second
 * task competes for the CPU, so that it is preempted there (arm64) or
 * holds the CPU with preemption off (x86-64), when the ops is
 * unregistered.  Unregister must not return before it left.  Where the
 * arch looks at tasks for its callers (arm64), the look must also see the
 * task inside while it is, and every task outside once it left: the
 * removal must neither miss it nor always fall back to RCU-tasks.
 */
static void unregister_waits_for_task_inside(struct kunit *test)
{
	struct fk_probe *p;
	unsigned int cpu;
	bool before, after;
	int ret;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second online CPU");
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	KUNIT_ASSERT_LT(test, cpu, nr_cpu_ids);

	atomic_set(&fk_hold_entered, 0);
	WRITE_ONCE(fk_hold_until, U64_MAX);

	/* No FTRACE_OPS_FL_RECURSION: the callers call it, nothing between. */
	p = fk_probe_new(test, fk_hold_cb, 0);
	fk_filter_ip(test, p, FK_D, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);

	fk_thread_on(test, fk_call_d_once, cpu, "fk_inside");
	KUNIT_ASSERT_TRUE_MSG(test, fk_wait_atomic(&fk_hold_entered, 1),
			      "the callback never ran");
	fk_thread_on(test, fk_hog, cpu, "fk_hog");

	if (TRACE_KUNIT_CALLERS_QUIET)
		KUNIT_EXPECT_FALSE_MSG(test, ftrace_arch_callers_quiet(),
				       "a task inside the callback was not seen");

	before = READ_ONCE(p->in_callback);
	ret = fk_unregister(p);
	after = READ_ONCE(p->in_callback);

	KUNIT_EXPECT_TRUE_MSG(test, before,
			      "the task left before unregister: nothing was tried");
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_FALSE_MSG(test, after,
			       "unregister returned with a task inside the callback");
	KUNIT_EXPECT_EQ(test, atomic_read(&fk_hold_entered), 1);

	if (TRACE_KUNIT_CALLERS_QUIET)
		KUNIT_EXPECT_TRUE_MSG(test, fk_callers_quiet_soon(),
				      "every task is outside, the look never said so");
}

/*
 * An ops that is freed as soon as unregister returns.  Its callback checks
 * a word that says whether the owner still considers it registered; once
 * unregistered the word is poisoned, then the whole object, then it is
 * freed.  A callback that runs late counts in fk_late_calls (or, on freed
 * memory, crashes; KASAN names it in the debug flavour).
 */
#define FK_OPS_ALIVE	0x600dca11UL
#define FK_OPS_DEAD	0xdeadca11UL

struct fk_doomed {
	struct ftrace_ops	ops;
	unsigned long		state;	/* FK_OPS_ALIVE or FK_OPS_DEAD */
	atomic_t		hits;
	int			unreg_ret;
};

static atomic_t fk_late_calls;

static void notrace fk_doomed_cb(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct fk_doomed *d = container_of(op, struct fk_doomed, ops);

	if (READ_ONCE(d->state) != FK_OPS_ALIVE) {
		atomic_inc(&fk_late_calls);
		return;
	}
	atomic_inc(&d->hits);
	/* Stay a while, so that callers get preempted inside. */
	udelay(2);
	if (READ_ONCE(d->state) != FK_OPS_ALIVE)
		atomic_inc(&fk_late_calls);
}

static struct fk_doomed *fk_doomed_new(struct kunit *test, unsigned long flags)
{
	struct fk_doomed *d = kzalloc(sizeof(*d), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->ops.func = fk_doomed_cb;
	d->ops.flags = flags;
	d->state = FK_OPS_ALIVE;
	if (ftrace_set_filter_ip(&d->ops, fk_site[FK_D], 0, 1)) {
		kfree(d);
		KUNIT_FAIL_AND_ABORT(test, "cannot filter on target_d");
	}
	return d;
}

/* After a successful unregister: poison, check it stays quiet, free. */
static void fk_doomed_bury(struct kunit *test, struct fk_doomed *d, int round)
{
	int after;

	WRITE_ONCE(d->state, FK_OPS_DEAD);
	after = atomic_read(&d->hits);
	ftrace_free_filter(&d->ops);
	usleep_range(5000, 6000);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&d->hits), after,
			    "round %d: callback after unregister", round);
	memset(d, 0x6b, sizeof(*d));
	kfree(d);
}

static const unsigned long fk_doomed_flags[] = {
	0, FTRACE_OPS_FL_RCU, FTRACE_OPS_FL_RECURSION,
};

/*
 * Other CPUs keep calling target_d (two callers on one of them, so they
 * preempt each other inside the hooks); each round an allocated ops is
 * registered, seen to run, unregistered and freed at once.
 */
static void freed_ops_never_called_after_unregister(struct kunit *test)
{
	int i;

	atomic_set(&fk_late_calls, 0);
	fk_runner_start(test, fk_body_d);
	fk_runner_start(test, fk_body_d);

	for (i = 0; i < FK_UNREG_ROUNDS; i++) {
		unsigned long flags = fk_doomed_flags[i % ARRAY_SIZE(fk_doomed_flags)];
		struct fk_doomed *d = fk_doomed_new(test, flags);
		int ret;

		ret = register_ftrace_function(&d->ops);
		if (ret) {
			ftrace_free_filter(&d->ops);
			kfree(d);
			KUNIT_FAIL_AND_ABORT(test, "round %d: register: %d", i, ret);
		}
		if (!fk_wait_atomic(&d->hits, 1))
			KUNIT_FAIL(test, "round %d: callback never ran", i);
		ret = unregister_ftrace_function(&d->ops);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "round %d: unregister", i);
		fk_doomed_bury(test, d, i);
	}
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&fk_late_calls), 0);
}

#define FK_TOGETHER	4

/* unreg_ret until the thread's unregister returned */
#define FK_UNREG_PENDING	(-EINPROGRESS)

static int fk_unregister_thread(void *arg)
{
	struct fk_doomed *d = arg;

	WRITE_ONCE(d->unreg_ret, unregister_ftrace_function(&d->ops));
	while (!kthread_should_stop())
		usleep_range(100, 200);
	return 0;
}

/*
 * Several ops on one function, unregistered at the same time from as many
 * threads while other CPUs call it: when each unregister returns its own
 * callback is done for good, whatever the others are doing.
 */
static void ops_unregistered_together_stay_quiet(struct kunit *test)
{
	struct task_struct *thr[FK_TOGETHER];
	struct fk_doomed *d[FK_TOGETHER];
	int i, round;

	atomic_set(&fk_late_calls, 0);
	fk_runner_start(test, fk_body_d);
	fk_runner_start(test, fk_body_d);

	for (round = 0; round < 3; round++) {
		for (i = 0; i < FK_TOGETHER; i++) {
			d[i] = fk_doomed_new(test, fk_doomed_flags[i %
						ARRAY_SIZE(fk_doomed_flags)]);
			d[i]->unreg_ret = FK_UNREG_PENDING;
			KUNIT_ASSERT_EQ(test, register_ftrace_function(&d[i]->ops), 0);
		}
		for (i = 0; i < FK_TOGETHER; i++)
			KUNIT_EXPECT_TRUE(test, fk_wait_atomic(&d[i]->hits, 1));

		for (i = 0; i < FK_TOGETHER; i++) {
			thr[i] = kthread_run(fk_unregister_thread, d[i], "fk_unreg/%d", i);
			KUNIT_ASSERT_FALSE(test, IS_ERR(thr[i]));
		}
		/*
		 * Each ops is buried as soon as its own unregister returned.
		 * A thread stopped before it ever ran would not call its
		 * function at all, so wait for the result first.
		 */
		for (i = 0; i < FK_TOGETHER; i++) {
			while (READ_ONCE(d[i]->unreg_ret) == FK_UNREG_PENDING)
				usleep_range(100, 200);
			kthread_stop(thr[i]);
			KUNIT_EXPECT_EQ(test, d[i]->unreg_ret, 0);
			fk_doomed_bury(test, d[i], round);
		}
	}
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&fk_late_calls), 0);
}

static void unregister_unknown_ops_fails(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, 0);

	KUNIT_EXPECT_LT(test, unregister_ftrace_function(&p->ops), 0);

	/* Nor may a registration be undone twice. */
	fk_filter_ip(test, p, FK_A, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	KUNIT_EXPECT_LT(test, unregister_ftrace_function(&p->ops), 0);

	/* And the ops is still good for another round. */
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	fk_expect_hits(test, p, BIT(FK_A), 1);
}

/* ---- call-site records: encoding and per-site state --------------------- */

/* A module pointer for groups built from made-up addresses; never read. */
static struct module fk_fake_mod;

/* Made-up module text address, 4 GiB below the top: only used as a number. */
#define FK_MOD_BASE	0xffffffff00000000UL

/*
 * A group of the @nr call sites at @addrs (zeros ignored), as a module's
 * are built, but neither NOPed nor published; NULL with *@err set on
 * failure.  Free it with site_group_free().
 */
static struct ftrace_site_group *fk_group_build(struct module *mod,
						const unsigned long *addrs,
						unsigned int nr, int *err)
{
	struct ftrace_site_group *g = site_group_alloc(mod, nr);

	if (!g) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = site_group_fill(g, addrs, addrs + nr, false);
	if (*err) {
		site_group_free(g);
		return NULL;
	}
	return g;
}

static void fk_expect_sites(struct kunit *test, struct ftrace_site_group *g,
			    const unsigned long *want, unsigned int nr)
{
	unsigned int i;

	KUNIT_ASSERT_EQ(test, g->nr, nr);
	for (i = 0; i < nr; i++) {
		KUNIT_EXPECT_EQ_MSG(test, ftrace_site_ip(g, i), want[i],
				    "site %u", i);
		KUNIT_EXPECT_FALSE(test, ftrace_site_disabled(g, i));
		KUNIT_EXPECT_PTR_EQ(test, ftrace_site_state(g, i), NULL);
	}
}

static void site_encoding_module_any_order(struct kunit *test)
{
	const unsigned long addrs[] = {
		FK_MOD_BASE + 0x7ffffff0, 0, FK_MOD_BASE + 0x10, FK_MOD_BASE,
		FK_MOD_BASE + 0x40, 0,
	};
	unsigned long want[] = {
		FK_MOD_BASE,
		FK_MOD_BASE + 0x10,
		FK_MOD_BASE + 0x40,
		FK_MOD_BASE + 0x7ffffff0,
	};
	struct ftrace_site_group *g;
	int err;

	g = fk_group_build(&fk_fake_mod, addrs, ARRAY_SIZE(addrs), &err);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_NOT_NULL(test, g);
	fk_expect_sites(test, g, want, ARRAY_SIZE(want));
	/* Offsets count from the lowest site; an untraced site is 4 bytes. */
	KUNIT_EXPECT_EQ(test, g->base, want[0]);
	KUNIT_EXPECT_EQ(test, sizeof(g->offs[0]), 4);
	site_group_free(g);
}

static void site_encoding_span_limit(struct kunit *test)
{
	const unsigned long widest[] = { FK_MOD_BASE + FTRACE_SITE_OFF_MASK,
					 FK_MOD_BASE };
	const unsigned long too_wide[] = { FK_MOD_BASE,
					   FK_MOD_BASE + FTRACE_SITE_OFF_MASK + 1 };
	const unsigned long none[] = { 0, 0 };
	struct ftrace_site_group *g;
	int err;

	g = fk_group_build(&fk_fake_mod, widest, 2, &err);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, ftrace_site_ip(g, 1) - ftrace_site_ip(g, 0),
			(unsigned long)FTRACE_SITE_OFF_MASK);
	site_group_free(g);

	g = fk_group_build(&fk_fake_mod, too_wide, 2, &err);
	KUNIT_EXPECT_EQ(test, err, -ERANGE);
	KUNIT_EXPECT_PTR_EQ(test, g, NULL);

	g = fk_group_build(&fk_fake_mod, none, 2, &err);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, g->nr, 0);
	site_group_free(g);
}

static void site_encoding_vmlinux_text_edges(struct kunit *test)
{
	unsigned long first = (unsigned long)_stext;
	unsigned long last = (unsigned long)_etext - 1;
	unsigned long init = (unsigned long)_sinittext;
	/* Not text: left out, as the linker's stray entries are. */
	const unsigned long addrs[] = {
		last, (unsigned long)&fk_fake_mod, init, 0, first,
	};
	unsigned long want[] = { first, last, init };
	struct ftrace_site_group *g;
	int err;

	/* Init text follows the kernel's text on both architectures here. */
	KUNIT_ASSERT_LT(test, last, init);
	g = fk_group_build(NULL, addrs, ARRAY_SIZE(addrs), &err);
	KUNIT_ASSERT_EQ(test, err, 0);
	fk_expect_sites(test, g, want, ARRAY_SIZE(want));
	site_group_free(g);
}

static void site_flags_and_state_on_demand(struct kunit *test)
{
	unsigned int nr = 2 * FTRACE_SITE_CHUNK + 3, i;
	const unsigned int at = FTRACE_SITE_CHUNK + 1;
	struct ftrace_site_state *st;
	struct ftrace_site_group *g;
	unsigned long *addrs;
	int err;

	addrs = kunit_kcalloc(test, nr, sizeof(*addrs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, addrs);
	for (i = 0; i < nr; i++)	/* descending: the group sorts them */
		addrs[i] = FK_MOD_BASE + 0x100000 - 16 * i;
	g = fk_group_build(&fk_fake_mod, addrs, nr, &err);
	KUNIT_ASSERT_EQ(test, err, 0);

	/* The disabled mark lives in the offset's spare bit, ip unchanged. */
	ftrace_site_set_disabled(g, at, true);
	KUNIT_EXPECT_TRUE(test, ftrace_site_disabled(g, at));
	KUNIT_EXPECT_FALSE(test, ftrace_site_disabled(g, at - 1));
	KUNIT_EXPECT_FALSE(test, ftrace_site_disabled(g, at + 1));
	KUNIT_EXPECT_EQ(test, ftrace_site_ip(g, at),
			addrs[nr - 1 - at]);
	KUNIT_EXPECT_EQ(test, ftrace_site_flags(g, at),
			(unsigned long)FTRACE_FL_DISABLED);
	KUNIT_EXPECT_EQ(test, ftrace_site_flags(g, at - 1), 0UL);

	/* A state is made for its chunk only, and starts as an idle NOP. */
	KUNIT_EXPECT_EQ(test, g->nr_chunks, 0U);
	st = ftrace_site_state_get(g, at);
	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_EXPECT_EQ(test, g->nr_chunks, 1U);
	KUNIT_EXPECT_PTR_EQ(test, ftrace_site_state(g, at), st);
	KUNIT_EXPECT_PTR_EQ(test, ftrace_site_state(g, 0), NULL);
	KUNIT_EXPECT_PTR_EQ(test, ftrace_site_state(g, nr - 1), NULL);
	KUNIT_EXPECT_NOT_NULL(test, ftrace_site_state(g, FTRACE_SITE_CHUNK));
	KUNIT_EXPECT_EQ(test, st->rec.ip, ftrace_site_ip(g, at));
	KUNIT_EXPECT_EQ(test, st->rec.flags, (unsigned long)FTRACE_FL_DISABLED);
	KUNIT_EXPECT_EQ(test, st->cur_addr, 0UL);
	KUNIT_EXPECT_PTR_EQ(test, st->set, NULL);
	KUNIT_EXPECT_EQ(test, ftrace_site_state(g, at + 1)->rec.flags, 0UL);

	/* Clearing the mark clears it in the state's record too. */
	st->rec.flags |= FTRACE_FL_TOUCHED;
	ftrace_site_set_disabled(g, at, false);
	KUNIT_EXPECT_FALSE(test, ftrace_site_disabled(g, at));
	KUNIT_EXPECT_EQ(test, st->rec.flags, (unsigned long)FTRACE_FL_TOUCHED);
	KUNIT_EXPECT_EQ(test, ftrace_site_flags(g, at),
			(unsigned long)FTRACE_FL_TOUCHED);
	site_group_free(g);
}

/* The live records: a hooked site gets a state; an idle one costs 8 bytes. */
static void site_state_follows_hooking(struct kunit *test)
{
	struct fk_probe *p = fk_probe_new(test, fk_count_cb, 0);
	struct ftrace_site_group *g, *vmlinux = NULL;
	struct ftrace_site_state *st;
	unsigned int i;

	mutex_lock(&ftrace_lock);
	for_each_site_group(g)
		if (!g->mod)
			vmlinux = g;
	KUNIT_ASSERT_NOT_NULL_MSG(test, vmlinux, "no vmlinux group");
	/* Header, chunk pointers and offsets, over every vmlinux site. */
	KUNIT_EXPECT_LE(test, vmlinux->bytes, 8UL * vmlinux->nr);
	g = ftrace_site_find(fk_site[FK_A], &i);
	KUNIT_ASSERT_PTR_EQ(test, g, vmlinux);
	KUNIT_EXPECT_EQ(test, ftrace_site_ip(g, i), fk_site[FK_A]);
	KUNIT_EXPECT_PTR_EQ(test, ftrace_site_find(fk_site[FK_A] + 1, &i), NULL);
	mutex_unlock(&ftrace_lock);

	fk_filter_ip(test, p, FK_A, 1);
	KUNIT_ASSERT_EQ(test, fk_register(p), 0);
	mutex_lock(&ftrace_lock);
	g = ftrace_site_find(fk_site[FK_A], &i);
	st = ftrace_site_state(g, i);
	KUNIT_EXPECT_NOT_NULL(test, st);
	if (st) {
		KUNIT_EXPECT_EQ(test, st->rec.ip, fk_site[FK_A]);
		KUNIT_EXPECT_NE(test, st->cur_addr, 0UL);
		KUNIT_EXPECT_NOT_NULL(test, st->set);
		KUNIT_EXPECT_TRUE(test, st->rec.flags & FTRACE_FL_ENABLED);
		KUNIT_EXPECT_EQ(test, ftrace_rec_count(&st->rec), 1UL);
		/* The arch patcher's view of the record agrees. */
		KUNIT_EXPECT_EQ(test, ftrace_get_addr_curr(&st->rec), st->cur_addr);
		KUNIT_EXPECT_EQ(test, ftrace_get_addr_new(&st->rec), st->cur_addr);
	}
	mutex_unlock(&ftrace_lock);
	fk_call_all();
	KUNIT_ASSERT_EQ(test, fk_unregister(p), 0);
	fk_expect_hits(test, p, BIT(FK_A), 1);

	/*
	 * Idle again: the reclaim the update queued frees the chunk (nothing
	 * else hooks the neighbours of this suite's functions; run it now
	 * rather than wait a second), and the site is still known as touched.
	 */
	mutex_lock(&ftrace_lock);
	ftrace_sites_reclaim();
	g = ftrace_site_find(fk_site[FK_A], &i);
	KUNIT_EXPECT_PTR_EQ(test, ftrace_site_state(g, i), NULL);
	KUNIT_EXPECT_EQ(test, ftrace_site_cur_addr(g, i), 0UL);
	KUNIT_EXPECT_EQ(test, ftrace_site_flags(g, i) &
			(FTRACE_FL_ENABLED | FTRACE_FL_TOUCHED),
			(unsigned long)FTRACE_FL_TOUCHED);
	mutex_unlock(&ftrace_lock);
}

static void site_idle_chunks_reclaimed(struct kunit *test)
{
	unsigned int nr = 3 * FTRACE_SITE_CHUNK, i;
	const unsigned int touched = 5, busy = FTRACE_SITE_CHUNK + 7;
	const unsigned int modified = 2 * FTRACE_SITE_CHUNK + 1;
	struct ftrace_site_state *st;
	struct ftrace_site_group *g;
	unsigned long *addrs;
	int err;

	addrs = kunit_kcalloc(test, nr, sizeof(*addrs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, addrs);
	for (i = 0; i < nr; i++)
		addrs[i] = FK_MOD_BASE + 32 * i;
	g = fk_group_build(&fk_fake_mod, addrs, nr, &err);
	KUNIT_ASSERT_EQ(test, err, 0);

	st = ftrace_site_state_get(g, touched);
	KUNIT_ASSERT_NOT_NULL(test, st);
	st->rec.flags |= FTRACE_FL_TOUCHED;
	st = ftrace_site_state_get(g, busy);
	KUNIT_ASSERT_NOT_NULL(test, st);
	st->cur_addr = FTRACE_ADDR;
	st->rec.flags |= FTRACE_FL_TOUCHED | FTRACE_FL_ENABLED;
	st = ftrace_site_state_get(g, modified);
	KUNIT_ASSERT_NOT_NULL(test, st);
	st->rec.flags |= FTRACE_FL_TOUCHED | FTRACE_FL_MODIFIED;
	KUNIT_EXPECT_EQ(test, g->nr_chunks, 3U);
	KUNIT_EXPECT_PTR_EQ(test, g->history, NULL);

	ftrace_site_group_reclaim(g);
	/* Only the chunk with a site that calls something stays. */
	KUNIT_EXPECT_EQ(test, g->nr_chunks, 1U);
	KUNIT_EXPECT_PTR_EQ(test, ftrace_site_state(g, touched), NULL);
	KUNIT_EXPECT_PTR_EQ(test, ftrace_site_state(g, modified), NULL);
	KUNIT_EXPECT_NOT_NULL(test, ftrace_site_state(g, busy));
	KUNIT_EXPECT_EQ(test, ftrace_site_flags(g, touched),
			(unsigned long)FTRACE_FL_TOUCHED);
	KUNIT_EXPECT_EQ(test, ftrace_site_flags(g, modified),
			(unsigned long)(FTRACE_FL_TOUCHED | FTRACE_FL_MODIFIED));
	KUNIT_EXPECT_EQ(test, ftrace_site_flags(g, touched + 1), 0UL);
	KUNIT_EXPECT_EQ(test, ftrace_site_flags(g, busy),
			(unsigned long)(FTRACE_FL_TOUCHED | FTRACE_FL_ENABLED));

	/* A state made again starts from the kept history. */
	st = ftrace_site_state_get(g, touched);
	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_EXPECT_EQ(test, st->rec.flags, (unsigned long)FTRACE_FL_TOUCHED);
	KUNIT_EXPECT_EQ(test, st->rec.ip, ftrace_site_ip(g, touched));
	site_group_free(g);
}

static struct kunit_case ftrace_core_cases[] = {
	KUNIT_CASE(ops_counts_only_filtered_function),
	KUNIT_CASE(site_encoding_module_any_order),
	KUNIT_CASE(site_encoding_span_limit),
	KUNIT_CASE(site_encoding_vmlinux_text_edges),
	KUNIT_CASE(site_flags_and_state_on_demand),
	KUNIT_CASE(site_state_follows_hooking),
	KUNIT_CASE(site_idle_chunks_reclaimed),
	KUNIT_CASE(callback_gets_site_caller_and_ops),
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
	KUNIT_CASE_PARAM(save_regs_gives_pt_regs, fk_regs_flags_gen_params),
#else
	KUNIT_CASE_PARAM(save_regs_without_pt_regs_frame, fk_regs_flags_gen_params),
#endif
	KUNIT_CASE(two_ops_on_one_function_both_called),
	KUNIT_CASE(pt_regs_view_is_given_back),
	KUNIT_CASE(lookup_symbols_finds_traceable_functions),
	KUNIT_CASE(locations_sorted_match_location),
	KUNIT_CASE(filter_ips_many),
	KUNIT_CASE(two_ops_on_two_functions_kept_apart),
	KUNIT_CASE(unrelated_ops_leaves_counts_alone),
	KUNIT_CASE_PARAM(filter_glob_selects_matches, fk_globs_gen_params),
	KUNIT_CASE(filter_bang_removes_function),
	KUNIT_CASE(filter_reset_replaces_set),
	KUNIT_CASE(filter_append_keeps_set),
	KUNIT_CASE(filter_null_reset_selects_all),
	KUNIT_CASE(notrace_wins_over_filter),
	KUNIT_CASE(filter_without_match_keeps_previous),
	KUNIT_CASE(filter_change_while_registered_applies),
	KUNIT_CASE(filter_ip_rejects_non_site),
	KUNIT_CASE(filter_ips_adds_and_removes),
	KUNIT_CASE(filter_switch_never_widens),
	KUNIT_CASE(ipmodify_without_save_regs),
	KUNIT_CASE(ipmodify_redirects_call),
	KUNIT_CASE(ipmodify_filter_cannot_empty),
	KUNIT_CASE(ipmodify_second_ops_busy),
	KUNIT_CASE(ipmodify_clash_on_filter_change_busy),
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	KUNIT_CASE(direct_ipmodify_need_ops_func),
	KUNIT_CASE(direct_then_ipmodify_shared),
	KUNIT_CASE(ipmodify_then_direct_shared),
	KUNIT_CASE(direct_ipmodify_refusal_kept),
#endif
	KUNIT_CASE(recursion_flag_blocks_reentry),
	KUNIT_CASE(rcu_flag_called_where_rcu_watches),
	KUNIT_CASE(permanent_ops_blocks_disable),
	KUNIT_CASE(permanent_ops_refused_while_disabled),
	KUNIT_CASE(ftrace_disabled_silences_ops),
	KUNIT_CASE(recursion_trylock_allows_one_transition),
	KUNIT_CASE_PARAM(no_callback_after_unregister, fk_unreg_gen_params),
	KUNIT_CASE(unregister_waits_for_task_inside),
	KUNIT_CASE(freed_ops_never_called_after_unregister),
	KUNIT_CASE(ops_unregistered_together_stay_quiet),
	KUNIT_CASE(unregister_unknown_ops_fails),
	{}
};

static struct kunit_suite ftrace_core_suite = {
	.name = "ftrace_core",
	.init = fk_init,
	.test_cases = ftrace_core_cases,
};

kunit_test_suite(ftrace_core_suite);
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
