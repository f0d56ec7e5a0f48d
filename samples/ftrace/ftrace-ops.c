// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace-ops: time calls of a traced function with ftrace_ops attached.
 *
 * At load it hooks nr_ops_relevant ops to a function of its own
 * (tracee_relevant) and nr_ops_irrelevant ops to another one that is never
 * called in the loop (tracee_irrelevant), calls tracee_relevant
 * nr_function_calls times, prints
 *
 *	Attempted N calls to tracee_relevant [ftrace_ops] in Tns (Cns / call)
 *
 * and takes every ops off again.  Scripts read that line: its shape and the
 * module's parameters are those of the 6.12 sample of the same name.  The
 * load then fails with -EINVAL so that the next run can load it again, unless
 * persist=1 leaves the ops registered until the module is removed.
 *
 * The irrelevant ops show what ops on other functions cost a call (nothing,
 * with per-site dispatch); save_regs, assist_recursion and assist_rcu give
 * every ops FTRACE_OPS_FL_SAVE_REGS, _RECURSION or _RCU.  check_count
 * verifies afterwards that each relevant ops saw every call and each
 * irrelevant one saw none.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>

static unsigned int nr_function_calls = 100000;
module_param(nr_function_calls, uint, 0);
MODULE_PARM_DESC(nr_function_calls, "How often the loop calls the relevant function");

static unsigned int nr_ops_relevant = 1;
module_param(nr_ops_relevant, uint, 0);
MODULE_PARM_DESC(nr_ops_relevant, "Number of ftrace_ops on the called function");

static unsigned int nr_ops_irrelevant;
module_param(nr_ops_irrelevant, uint, 0);
MODULE_PARM_DESC(nr_ops_irrelevant, "Number of ftrace_ops on a function the loop does not call");

static bool save_regs;
module_param(save_regs, bool, 0);
MODULE_PARM_DESC(save_regs, "Give every ops FTRACE_OPS_FL_SAVE_REGS (full pt_regs)");

static bool assist_recursion;
module_param(assist_recursion, bool, 0);
MODULE_PARM_DESC(assist_recursion, "Give every ops FTRACE_OPS_FL_RECURSION");

static bool assist_rcu;
module_param(assist_rcu, bool, 0);
MODULE_PARM_DESC(assist_rcu, "Give every ops FTRACE_OPS_FL_RCU");

static bool check_count;
module_param(check_count, bool, 0);
MODULE_PARM_DESC(check_count, "Check that every ops was called exactly as often as expected");

static bool persist;
module_param(persist, bool, 0);
MODULE_PARM_DESC(persist, "Load successfully and keep the ops registered until unload");

/* An ops and how often it ran. */
struct sample_ops {
	struct ftrace_ops	ops;
	unsigned long		calls;
};

static struct sample_ops *relevant_ops, *irrelevant_ops;

/*
 * The two traced functions.  noinline and the empty asm keep each an
 * out-of-line function with a call site that the loop really calls.
 */
static noinline void tracee_relevant(void)
{
	asm volatile("");
}

static noinline void tracee_irrelevant(void)
{
	asm volatile("");
}

/*
 * The callback does nothing, so the loop times the hook itself; with
 * check_count it counts (the loop is the only caller: no atomics).
 */
static void sample_nop(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

static void sample_count(unsigned long ip, unsigned long parent_ip,
			 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	container_of(op, struct sample_ops, ops)->calls++;
}

/* Register @nr ops on @func with @flags; NULL (nothing left) on failure. */
static struct sample_ops *sample_attach(void (*func)(void), unsigned int nr,
					unsigned long flags)
{
	struct sample_ops *all;
	unsigned int i;
	int err;

	all = kcalloc(nr, sizeof(*all), GFP_KERNEL);
	if (!all)
		return NULL;
	for (i = 0; i < nr; i++) {
		all[i].ops.func = check_count ? sample_count : sample_nop;
		all[i].ops.flags = flags;
		err = ftrace_set_filter_ip(&all[i].ops, (unsigned long)func, 0, 0);
		if (!err)
			err = register_ftrace_function(&all[i].ops);
		if (err) {
			pr_err("ops %u on %ps: %d\n", i, func, err);
			while (i--)
				unregister_ftrace_function(&all[i].ops);
			kfree(all);
			return NULL;
		}
	}
	return all;
}

static void sample_detach(struct sample_ops *all, unsigned int nr)
{
	unsigned int i;

	for (i = 0; all && i < nr; i++) {
		unregister_ftrace_function(&all[i].ops);
		ftrace_free_filter(&all[i].ops);
	}
	kfree(all);
}

/* With check_count: does every ops of @all show @want calls? */
static bool sample_counts_ok(const struct sample_ops *all, unsigned int nr,
			     unsigned long want, const char *what)
{
	unsigned int i;
	bool ok = true;

	for (i = 0; i < nr; i++) {
		if (all[i].calls == want)
			continue;
		pr_err("%s ops %u ran %lu times, expected %lu\n", what, i,
		       all[i].calls, want);
		ok = false;
	}
	return ok;
}

static int __init ftrace_ops_sample_init(void)
{
	unsigned long flags = 0;
	unsigned int i;
	u64 start, took;

	if (save_regs && !IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_REGS)) {
		pr_info("no pt_regs saving in this kernel: save_regs ignored\n");
		save_regs = false;
	}
	if (save_regs)
		flags |= FTRACE_OPS_FL_SAVE_REGS;
	if (assist_recursion)
		flags |= FTRACE_OPS_FL_RECURSION;
	if (assist_rcu)
		flags |= FTRACE_OPS_FL_RCU;

	pr_info("%u ops on %ps, %u on %ps; save_regs %d, recursion %d, rcu %d\n",
		nr_ops_relevant, tracee_relevant, nr_ops_irrelevant,
		tracee_irrelevant, save_regs, assist_recursion, assist_rcu);

	relevant_ops = sample_attach(tracee_relevant, nr_ops_relevant, flags);
	irrelevant_ops = sample_attach(tracee_irrelevant, nr_ops_irrelevant, flags);
	if ((nr_ops_relevant && !relevant_ops) ||
	    (nr_ops_irrelevant && !irrelevant_ops)) {
		sample_detach(relevant_ops, nr_ops_relevant);
		sample_detach(irrelevant_ops, nr_ops_irrelevant);
		return -ENOMEM;
	}

	start = ktime_get_ns();
	for (i = 0; i < nr_function_calls; i++)
		tracee_relevant();
	took = ktime_get_ns() - start;

	pr_info("Attempted %u calls to %ps in %lluns (%lluns / call)\n",
		nr_function_calls, tracee_relevant, took,
		nr_function_calls ? div_u64(took, nr_function_calls) : 0);

	if (check_count) {
		/* Counted before removal: nothing else calls these. */
		sample_counts_ok(relevant_ops, nr_ops_relevant,
				 nr_function_calls, "relevant");
		sample_counts_ok(irrelevant_ops, nr_ops_irrelevant, 0,
				 "irrelevant");
	}

	if (persist)
		return 0;
	sample_detach(relevant_ops, nr_ops_relevant);
	sample_detach(irrelevant_ops, nr_ops_irrelevant);
	/* Refuse the load: the measurement is done, and it can run again. */
	return -EINVAL;
}

static void __exit ftrace_ops_sample_exit(void)
{
	sample_detach(relevant_ops, nr_ops_relevant);
	sample_detach(irrelevant_ops, nr_ops_irrelevant);
}

module_init(ftrace_ops_sample_init);
module_exit(ftrace_ops_sample_exit);
MODULE_DESCRIPTION("Time calls of a function with ftrace_ops attached");
MODULE_LICENSE("GPL");
