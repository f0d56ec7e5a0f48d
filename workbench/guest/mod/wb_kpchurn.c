// SPDX-License-Identifier: GPL-2.0
/*
 * wb_kpchurn: the kprobes part of the stress job (workbench/guest/jobs/
 * stress.sh loads it beside wb_stress and the tracefs loops).
 *
 * For @seconds it runs, at once:
 *  - one worker thread per online CPU calling each of WB_KC_NR_TARGETS
 *    functions of this module in turn, and counting every call per
 *    function; half of the functions are notrace (a probe on their entry
 *    is a breakpoint, or a jump once optimized), half are traceable (a
 *    probe on their entry sits on the function-hook call site where the
 *    kernel has that); some also have a place in the middle of their body
 *    found at load time;
 *  - one churn thread doing rounds: register_kprobes() of a batch of 1 to
 *    WB_KC_MAX_KP probes (pre_handler on every one, post_handler on a
 *    third, entry and mid-body places, two probes on one place once the
 *    batch is larger than the number of functions) and register_kretprobes()
 *    of 1 to WB_KC_MAX_RP return probes (entry_handler and handler, with
 *    per-instance data), all while the workers call; then a counted
 *    window; then unregistering both while the workers call again.
 *
 * The counted window: the workers are asked to stop calling and each
 * says so (a command word with a generation, no sleeping on faith); the
 * churn thread reads every count; the workers make exactly WB_KC_CALLS
 * calls of each function and stop again; now for each probe its hits in
 * the window must equal the calls of its function in the window, its
 * post_handler hits (where it has one) its pre_handler hits, a return
 * probe's entries and returns the calls, and no probe may count a missed
 * hit (nmissed) in the window.  Outside the windows a miss is allowed: a
 * hit that races with the probe's own arming or removal may find no
 * frame or no instance to use; those are only summed up (churn_missed).
 *
 * Right after an unregister call returns, each probe of it is marked
 * gone; a handler that finds its probe gone is a violation of "no
 * handler runs once unregister returned".  A batch is freed only after
 * the next round's unregister, so a late handler finds valid memory.
 *
 * Then it prints one result line and stays loaded with nothing registered
 * (the job reads the line from /sys/module/wb_kpchurn/parameters/result,
 * checks that /sys/kernel/debug/kprobes/list shows nothing of the module,
 * and unloads it; an init that failed would make busybox's insmod load it
 * a second time):
 *	rounds R kprobes P kretprobes Q windows W inexact I missed M
 *	violations V errors E churn_missed C
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/wait.h>

#define WB_KC_NR_TARGETS	32	/* the first half notrace */
#define WB_KC_MAX_KP		48	/* kprobes in a batch */
#define WB_KC_MAX_RP		8	/* kretprobes in a batch */
#define WB_KC_CALLS		16	/* calls of each function in a window */
#define WB_KC_MAX_OFF		24	/* offsets tried for a mid-body place */
#define WB_KC_FIND_CALLS	8	/* calls that must each hit it once */
#define WB_KC_ACK_TIMEOUT	(30 * HZ)
#define WB_KC_WORK_NS		(1000 * NSEC_PER_USEC)
#define WB_KC_COOKIE		0x6b70636875726eUL
#define WB_KC_REPORTS		8	/* detail lines printed at most */

static int seconds = 30;
module_param(seconds, int, 0444);
MODULE_PARM_DESC(seconds, "how long to run");

static unsigned long wb_kc_deadline;
static atomic_long_t wb_kc_rounds, wb_kc_nr_kp, wb_kc_nr_rp, wb_kc_windows;
static atomic_long_t wb_kc_missed, wb_kc_churn_missed;
static atomic_t wb_kc_inexact, wb_kc_violations, wb_kc_errors;
static atomic_t wb_kc_reports;
static char wb_kc_result[192] = "running";

/*
 * The probed functions.  Each has constants of its own, so no two bodies
 * are alike and none can be merged; noipa keeps every call a call of
 * this very function (no clone, no inlining, no folding); each
 * OPTIMIZER_HIDE_VAR() ends a step, so the body is a few straight-line
 * instructions that every call runs.  @attr: notrace, or WB_KC_TRACED
 * (nothing: the function keeps its function-hook call site).
 */
#define WB_KC_TRACED
#define WB_KC_TARGET(n, attr)						\
static noinline attr __noipa unsigned long wb_kc_t##n(unsigned long x)	\
{									\
	unsigned long y = x * (2 * (n) + 0x10001UL) +			\
			  0x9e3779b9UL * ((n) + 1);			\
									\
	OPTIMIZER_HIDE_VAR(y);						\
	y ^= y >> ((n) % 13 + 3);					\
	OPTIMIZER_HIDE_VAR(y);						\
	return y + (n);							\
}

WB_KC_TARGET(0, notrace)
WB_KC_TARGET(1, notrace)
WB_KC_TARGET(2, notrace)
WB_KC_TARGET(3, notrace)
WB_KC_TARGET(4, notrace)
WB_KC_TARGET(5, notrace)
WB_KC_TARGET(6, notrace)
WB_KC_TARGET(7, notrace)
WB_KC_TARGET(8, notrace)
WB_KC_TARGET(9, notrace)
WB_KC_TARGET(10, notrace)
WB_KC_TARGET(11, notrace)
WB_KC_TARGET(12, notrace)
WB_KC_TARGET(13, notrace)
WB_KC_TARGET(14, notrace)
WB_KC_TARGET(15, notrace)
WB_KC_TARGET(16, WB_KC_TRACED)
WB_KC_TARGET(17, WB_KC_TRACED)
WB_KC_TARGET(18, WB_KC_TRACED)
WB_KC_TARGET(19, WB_KC_TRACED)
WB_KC_TARGET(20, WB_KC_TRACED)
WB_KC_TARGET(21, WB_KC_TRACED)
WB_KC_TARGET(22, WB_KC_TRACED)
WB_KC_TARGET(23, WB_KC_TRACED)
WB_KC_TARGET(24, WB_KC_TRACED)
WB_KC_TARGET(25, WB_KC_TRACED)
WB_KC_TARGET(26, WB_KC_TRACED)
WB_KC_TARGET(27, WB_KC_TRACED)
WB_KC_TARGET(28, WB_KC_TRACED)
WB_KC_TARGET(29, WB_KC_TRACED)
WB_KC_TARGET(30, WB_KC_TRACED)
WB_KC_TARGET(31, WB_KC_TRACED)

typedef unsigned long (*wb_kc_fn_t)(unsigned long);

static wb_kc_fn_t wb_kc_targets[WB_KC_NR_TARGETS] = {
	wb_kc_t0, wb_kc_t1, wb_kc_t2, wb_kc_t3,
	wb_kc_t4, wb_kc_t5, wb_kc_t6, wb_kc_t7,
	wb_kc_t8, wb_kc_t9, wb_kc_t10, wb_kc_t11,
	wb_kc_t12, wb_kc_t13, wb_kc_t14, wb_kc_t15,
	wb_kc_t16, wb_kc_t17, wb_kc_t18, wb_kc_t19,
	wb_kc_t20, wb_kc_t21, wb_kc_t22, wb_kc_t23,
	wb_kc_t24, wb_kc_t25, wb_kc_t26, wb_kc_t27,
	wb_kc_t28, wb_kc_t29, wb_kc_t30, wb_kc_t31,
};

/* Calls of each function by the workers, counted after the call. */
static atomic_long_t wb_kc_calls[WB_KC_NR_TARGETS];

/* The mid-body offset of each function, 0 where none was found. */
static unsigned int wb_kc_mid[WB_KC_NR_TARGETS];

/* --- the probes and their handlers --- */

struct wb_kc_kp {
	struct kprobe kp;
	unsigned int target;
	bool gone;		/* its unregister returned */
	atomic_long_t hits, post_hits;
	long hits0, post_hits0;	/* at the start of the window */
	unsigned long missed0;
};

struct wb_kc_rp {
	struct kretprobe rp;
	unsigned int target;
	bool gone;
	atomic_long_t entries, returns;
	long entries0, returns0;
	unsigned long missed0;
};

struct wb_kc_batch {
	int nr_kp, nr_rp;
	bool kp_on, rp_on;	/* registered */
	struct wb_kc_kp kps[WB_KC_MAX_KP];
	struct kprobe *kpp[WB_KC_MAX_KP];
	struct wb_kc_rp rps[WB_KC_MAX_RP];
	struct kretprobe *rpp[WB_KC_MAX_RP];
};

static notrace int wb_kc_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct wb_kc_kp *w = container_of(p, struct wb_kc_kp, kp);

	if (READ_ONCE(w->gone))
		atomic_inc(&wb_kc_violations);
	atomic_long_inc(&w->hits);
	return 0;
}

static notrace void wb_kc_post(struct kprobe *p, struct pt_regs *regs,
			       unsigned long flags)
{
	struct wb_kc_kp *w = container_of(p, struct wb_kc_kp, kp);

	if (READ_ONCE(w->gone))
		atomic_inc(&wb_kc_violations);
	atomic_long_inc(&w->post_hits);
}

static notrace int wb_kc_entry(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct wb_kc_rp *w = container_of(get_kretprobe(ri), struct wb_kc_rp,
					  rp);

	if (READ_ONCE(w->gone))
		atomic_inc(&wb_kc_violations);
	/* the return must get back this very instance's data */
	*(unsigned long *)ri->data = (unsigned long)w ^ WB_KC_COOKIE;
	atomic_long_inc(&w->entries);
	return 0;
}

static notrace int wb_kc_return(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct wb_kc_rp *w = container_of(get_kretprobe(ri), struct wb_kc_rp,
					  rp);

	if (READ_ONCE(w->gone))
		atomic_inc(&wb_kc_violations);
	if (*(unsigned long *)ri->data != ((unsigned long)w ^ WB_KC_COOKIE))
		atomic_inc(&wb_kc_inexact);
	atomic_long_inc(&w->returns);
	return 0;
}

/* --- the workers and the command word --- */

enum { WB_KC_RUN, WB_KC_PAUSE, WB_KC_COUNT };

/*
 * (generation << 2) | command, one word so that a worker never pairs a
 * command with another command's generation.  Only the churn thread
 * writes it; each worker acts once on each value it sees.  RUN: call
 * freely.  PAUSE: say so and wait for the next command.  COUNT: make
 * WB_KC_CALLS calls of each function, say so and wait.
 */
static unsigned long wb_kc_state;
static DECLARE_WAIT_QUEUE_HEAD(wb_kc_cmd_wq);	/* the workers wait here */
static DECLARE_WAIT_QUEUE_HEAD(wb_kc_ack_wq);	/* the churn thread here */
static atomic_t wb_kc_acks;
static int wb_kc_nr_workers;
static bool wb_kc_sync_lost;	/* a worker did not answer in time */

static unsigned long wb_kc_call_all(unsigned long v)
{
	unsigned int t;

	for (t = 0; t < WB_KC_NR_TARGETS; t++) {
		v = wb_kc_targets[t](v);
		atomic_long_inc(&wb_kc_calls[t]);
	}
	return v;
}

static int wb_kc_worker(void *arg)
{
	unsigned long v = (unsigned long)arg, seen = 0, s;
	u64 t0 = ktime_get_ns();
	unsigned int i;

	while (!kthread_should_stop()) {
		/* pairs with wb_kc_command(): the reset of the answers */
		s = smp_load_acquire(&wb_kc_state);
		if (s != seen) {
			seen = s;
			if ((s & 3) != WB_KC_RUN) {
				if ((s & 3) == WB_KC_COUNT)
					for (i = 0; i < WB_KC_CALLS; i++)
						v = wb_kc_call_all(v);
				/* the counts first, then the answer */
				smp_mb__before_atomic();
				atomic_inc(&wb_kc_acks);
				wake_up(&wb_kc_ack_wq);
				wait_event_interruptible(wb_kc_cmd_wq,
							 READ_ONCE(wb_kc_state) != seen ||
							 kthread_should_stop());
				t0 = ktime_get_ns();
				continue;
			}
		}
		if (time_after(jiffies, wb_kc_deadline)) {
			/* the churn thread may still want a window */
			msleep(20);
			continue;
		}
		v = wb_kc_call_all(v);
		/* a third of the CPU at most: the job's loops need the rest */
		if (ktime_get_ns() - t0 > WB_KC_WORK_NS) {
			usleep_range(2000, 3000);
			t0 = ktime_get_ns();
		} else {
			cond_resched();
		}
	}
	return 0;
}

/*
 * Give the workers @cmd; for PAUSE and COUNT wait until each has done
 * it.  False if one did not answer in time: from then on the counts of a
 * window mean nothing, so no more windows are made.
 */
static bool wb_kc_command(int cmd)
{
	unsigned long s = ((READ_ONCE(wb_kc_state) >> 2) + 1) << 2 | cmd;

	atomic_set(&wb_kc_acks, 0);
	/* the reset is seen by any worker that sees the new command */
	smp_store_release(&wb_kc_state, s);
	wake_up_all(&wb_kc_cmd_wq);
	if (cmd == WB_KC_RUN)
		return true;
	if (wait_event_timeout(wb_kc_ack_wq,
			       atomic_read(&wb_kc_acks) >= wb_kc_nr_workers,
			       WB_KC_ACK_TIMEOUT)) {
		/* pairs with the workers' barrier: their counts are in */
		smp_mb();
		return true;
	}
	pr_info("wb_kpchurn: %d of %d workers answered command %d\n",
		atomic_read(&wb_kc_acks), wb_kc_nr_workers, cmd);
	atomic_inc(&wb_kc_errors);
	wb_kc_sync_lost = true;
	return false;
}

/* --- the churn --- */

static bool wb_kc_report(void)
{
	return atomic_inc_return(&wb_kc_reports) <= WB_KC_REPORTS;
}

static void wb_kc_error(const char *what, unsigned long n, int err)
{
	pr_info("wb_kpchurn: round %lu: %s: %d\n", n, what, err);
	atomic_inc(&wb_kc_errors);
}

static unsigned long wb_kc_addr(unsigned int t, unsigned int off)
{
	return (unsigned long)wb_kc_targets[t] + off;
}

/* Hits a return probe missed: no instance, or its kprobe busy. */
static unsigned long wb_kc_rp_missed(struct wb_kc_rp *w)
{
	return READ_ONCE(w->rp.nmissed) + READ_ONCE(w->rp.kp.nmissed);
}

/* Describe round @n's probes in @b (zeroed). */
static void wb_kc_batch_fill(struct wb_kc_batch *b, unsigned long n)
{
	unsigned int first = n % WB_KC_NR_TARGETS;
	unsigned int step = 1 + 2 * (n % 8);	/* odd: all 32 before a repeat */
	unsigned int t, off;
	int i;

	b->nr_kp = 1 + (n * 13) % WB_KC_MAX_KP;
	for (i = 0; i < b->nr_kp; i++) {
		struct wb_kc_kp *w = &b->kps[i];

		/* past WB_KC_NR_TARGETS a place comes again: an aggregate */
		t = (first + i * step) % WB_KC_NR_TARGETS;
		off = (i % 4 == 3) ? wb_kc_mid[t] : 0;
		w->target = t;
		w->kp.addr = (kprobe_opcode_t *)wb_kc_addr(t, off);
		w->kp.pre_handler = wb_kc_pre;
		if ((i + n) % 3 == 0)
			w->kp.post_handler = wb_kc_post;
		b->kpp[i] = &w->kp;
	}

	b->nr_rp = 1 + (n * 5) % WB_KC_MAX_RP;
	for (i = 0; i < b->nr_rp; i++) {
		struct wb_kc_rp *w = &b->rps[i];

		t = (n * 7 + i * 5) % WB_KC_NR_TARGETS;
		w->target = t;
		w->rp.kp.addr = (kprobe_opcode_t *)wb_kc_addr(t, 0);
		w->rp.entry_handler = wb_kc_entry;
		w->rp.handler = wb_kc_return;
		w->rp.data_size = sizeof(unsigned long);
		b->rpp[i] = &w->rp;
	}
}

static void wb_kc_inexact_one(unsigned long n, const char *what, int i,
			      unsigned int t, long got, long want)
{
	atomic_inc(&wb_kc_inexact);
	if (wb_kc_report())
		pr_info("wb_kpchurn: round %lu: %s %d on wb_kc_t%u: %ld, want %ld\n",
			n, what, i, t, got, want);
}

/* Read the counts at the start of a window (workers paused). */
static void wb_kc_snapshot(struct wb_kc_batch *b, long *calls0)
{
	int i;

	for (i = 0; i < WB_KC_NR_TARGETS; i++)
		calls0[i] = atomic_long_read(&wb_kc_calls[i]);
	for (i = 0; b->kp_on && i < b->nr_kp; i++) {
		b->kps[i].hits0 = atomic_long_read(&b->kps[i].hits);
		b->kps[i].post_hits0 = atomic_long_read(&b->kps[i].post_hits);
		b->kps[i].missed0 = READ_ONCE(b->kps[i].kp.nmissed);
	}
	for (i = 0; b->rp_on && i < b->nr_rp; i++) {
		b->rps[i].entries0 = atomic_long_read(&b->rps[i].entries);
		b->rps[i].returns0 = atomic_long_read(&b->rps[i].returns);
		b->rps[i].missed0 = wb_kc_rp_missed(&b->rps[i]);
	}
}

/* Compare the window's counts (workers paused again). */
static void wb_kc_compare(struct wb_kc_batch *b, unsigned long n,
			  const long *calls0)
{
	long calls[WB_KC_NR_TARGETS], want = (long)WB_KC_CALLS *
					     wb_kc_nr_workers;
	long got, missed;
	int i;

	for (i = 0; i < WB_KC_NR_TARGETS; i++) {
		calls[i] = atomic_long_read(&wb_kc_calls[i]) - calls0[i];
		if (calls[i] != want)
			wb_kc_inexact_one(n, "calls of function", i, i,
					  calls[i], want);
	}
	for (i = 0; b->kp_on && i < b->nr_kp; i++) {
		struct wb_kc_kp *w = &b->kps[i];

		got = atomic_long_read(&w->hits) - w->hits0;
		if (got != calls[w->target])
			wb_kc_inexact_one(n, "hits of kprobe", i, w->target,
					  got, calls[w->target]);
		if (w->kp.post_handler) {
			long post = atomic_long_read(&w->post_hits) -
				    w->post_hits0;

			if (post != got)
				wb_kc_inexact_one(n, "post hits of kprobe", i,
						  w->target, post, got);
		}
		missed = READ_ONCE(w->kp.nmissed) - w->missed0;
		if (missed) {
			atomic_long_add(missed, &wb_kc_missed);
			if (wb_kc_report())
				pr_info("wb_kpchurn: round %lu: kprobe %d on wb_kc_t%u missed %ld\n",
					n, i, w->target, missed);
		}
	}
	for (i = 0; b->rp_on && i < b->nr_rp; i++) {
		struct wb_kc_rp *w = &b->rps[i];

		got = atomic_long_read(&w->entries) - w->entries0;
		if (got != calls[w->target])
			wb_kc_inexact_one(n, "entries of kretprobe", i,
					  w->target, got, calls[w->target]);
		got = atomic_long_read(&w->returns) - w->returns0;
		if (got != calls[w->target])
			wb_kc_inexact_one(n, "returns of kretprobe", i,
					  w->target, got, calls[w->target]);
		missed = wb_kc_rp_missed(w) - w->missed0;
		if (missed) {
			atomic_long_add(missed, &wb_kc_missed);
			if (wb_kc_report())
				pr_info("wb_kpchurn: round %lu: kretprobe %d on wb_kc_t%u missed %ld\n",
					n, i, w->target, missed);
		}
	}
	atomic_long_inc(&wb_kc_windows);
}

/* The counted window of round @n; the workers run freely again after. */
static void wb_kc_window(struct wb_kc_batch *b, unsigned long n)
{
	long calls0[WB_KC_NR_TARGETS];

	if (wb_kc_sync_lost || !wb_kc_nr_workers)
		return;
	if (wb_kc_command(WB_KC_PAUSE)) {
		wb_kc_snapshot(b, calls0);
		if (wb_kc_command(WB_KC_COUNT))
			wb_kc_compare(b, n, calls0);
	}
	wb_kc_command(WB_KC_RUN);
}

static void wb_kc_unregister_kps(struct wb_kc_batch *b)
{
	int i;

	if (!b->kp_on)
		return;
	unregister_kprobes(b->kpp, b->nr_kp);
	for (i = 0; i < b->nr_kp; i++) {
		WRITE_ONCE(b->kps[i].gone, true);
		atomic_long_add(b->kps[i].kp.nmissed, &wb_kc_churn_missed);
	}
	b->kp_on = false;
}

static void wb_kc_unregister_rps(struct wb_kc_batch *b)
{
	int i;

	if (!b->rp_on)
		return;
	unregister_kretprobes(b->rpp, b->nr_rp);
	for (i = 0; i < b->nr_rp; i++) {
		WRITE_ONCE(b->rps[i].gone, true);
		atomic_long_add(wb_kc_rp_missed(&b->rps[i]),
				&wb_kc_churn_missed);
	}
	b->rp_on = false;
}

static void wb_kc_round(struct wb_kc_batch *b, unsigned long n)
{
	unsigned long us = 2000 + n % 4 * 2000;
	int err;

	wb_kc_batch_fill(b, n);
	err = register_kprobes(b->kpp, b->nr_kp);
	if (err)
		wb_kc_error("register_kprobes", n, err);
	else
		b->kp_on = true;
	err = register_kretprobes(b->rpp, b->nr_rp);
	if (err)
		wb_kc_error("register_kretprobes", n, err);
	else
		b->rp_on = true;

	if (b->kp_on || b->rp_on) {
		usleep_range(us, us + 1000);	/* hit while calls go on */
		wb_kc_window(b, n);
		usleep_range(us, us + 1000);
	}
	if (b->kp_on)
		atomic_long_add(b->nr_kp, &wb_kc_nr_kp);
	if (b->rp_on)
		atomic_long_add(b->nr_rp, &wb_kc_nr_rp);

	/* out again while the workers call, in either order */
	if (n & 1) {
		wb_kc_unregister_rps(b);
		wb_kc_unregister_kps(b);
	} else {
		wb_kc_unregister_kps(b);
		wb_kc_unregister_rps(b);
	}
	atomic_long_inc(&wb_kc_rounds);
}

static int wb_kc_churn(void *arg)
{
	struct wb_kc_batch *b, *prev = NULL;
	unsigned long n = 0;

	while (!kthread_should_stop() && time_before(jiffies, wb_kc_deadline)) {
		b = kvzalloc(sizeof(*b), GFP_KERNEL);
		if (!b) {
			wb_kc_error("batch", n, -ENOMEM);
			break;
		}
		wb_kc_round(b, n++);
		/* a round late: a handler after its unregister finds it gone */
		kvfree(prev);
		prev = b;
		usleep_range(1000, 2000);
	}
	kvfree(prev);
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

/* --- set-up --- */

static struct wb_kc_kp wb_kc_finder;

/*
 * The second offset into function @t where a probe is accepted, lands
 * where it was asked to, is not on the call site, and is hit by every
 * call; 0 if none.  Offsets inside an instruction are refused by the
 * core; the second place has at least one instruction of the body before
 * it.  Runs before the workers start.
 */
static unsigned int __init wb_kc_find_mid(unsigned int t)
{
	struct wb_kc_kp *w = &wb_kc_finder;
	unsigned int off, found = 0, i;
	bool usable;

	for (off = 1; off <= WB_KC_MAX_OFF; off++) {
		memset(w, 0, sizeof(*w));
		w->target = t;
		w->kp.addr = (kprobe_opcode_t *)wb_kc_addr(t, off);
		w->kp.pre_handler = wb_kc_pre;
		if (register_kprobe(&w->kp))
			continue;
		usable = !(w->kp.flags & KPROBE_FLAG_FTRACE) &&
			 (unsigned long)w->kp.addr == wb_kc_addr(t, off);
		for (i = 0; usable && i < WB_KC_FIND_CALLS; i++)
			wb_kc_targets[t](i);
		usable = usable &&
			 atomic_long_read(&w->hits) == WB_KC_FIND_CALLS;
		unregister_kprobe(&w->kp);
		if (usable && ++found == 2)
			return off;
	}
	return 0;
}

static int wb_kc_result_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", wb_kc_result);
}

static int wb_kc_result_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops wb_kc_result_ops = {
	.set = wb_kc_result_set,
	.get = wb_kc_result_get,
};
module_param_cb(result, &wb_kc_result_ops, NULL, 0444);
MODULE_PARM_DESC(result, "the result line, once the run is over");

static int __init wb_kc_init(void)
{
	struct task_struct **t, *churn;
	int nr = 0, cpu, i, mids = 0;

	t = kcalloc(nr_cpu_ids, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	/* the search below counts in the job's time too */
	wb_kc_deadline = jiffies + seconds * HZ;
	for (i = 1; i < WB_KC_NR_TARGETS; i += 4) {
		wb_kc_mid[i] = wb_kc_find_mid(i);
		mids += !!wb_kc_mid[i];
	}
	pr_info("wb_kpchurn: mid-body places on %d of %d functions\n", mids,
		WB_KC_NR_TARGETS / 4);

	for_each_online_cpu(cpu) {
		if (nr >= nr_cpu_ids)
			break;
		t[nr] = kthread_create(wb_kc_worker, (void *)(unsigned long)cpu,
				       "wb_kc_worker/%d", cpu);
		if (!IS_ERR(t[nr])) {
			kthread_bind(t[nr], cpu);
			wake_up_process(t[nr++]);
		}
	}
	wb_kc_nr_workers = nr;
	if (!nr)
		wb_kc_error("workers", 0, -ESRCH);

	churn = kthread_run(wb_kc_churn, NULL, "wb_kc_churn");
	if (IS_ERR(churn)) {
		wb_kc_error("churn thread", 0, PTR_ERR(churn));
		churn = NULL;
	}

	while (time_before(jiffies, wb_kc_deadline + HZ / 10))
		msleep(100);
	/* the churn thread first: it may still be in a window */
	if (churn)
		kthread_stop(churn);
	for (i = 0; i < nr; i++)
		kthread_stop(t[i]);
	kfree(t);

	scnprintf(wb_kc_result, sizeof(wb_kc_result),
		  "rounds %ld kprobes %ld kretprobes %ld windows %ld inexact %d missed %ld violations %d errors %d churn_missed %ld",
		  atomic_long_read(&wb_kc_rounds),
		  atomic_long_read(&wb_kc_nr_kp),
		  atomic_long_read(&wb_kc_nr_rp),
		  atomic_long_read(&wb_kc_windows),
		  atomic_read(&wb_kc_inexact),
		  atomic_long_read(&wb_kc_missed),
		  atomic_read(&wb_kc_violations),
		  atomic_read(&wb_kc_errors),
		  atomic_long_read(&wb_kc_churn_missed));
	pr_info("wb_kpchurn: %s\n", wb_kc_result);
	return 0;
}

static void __exit wb_kc_exit(void)
{
}

module_init(wb_kc_init);
module_exit(wb_kc_exit);
MODULE_DESCRIPTION("workbench: kprobes and kretprobes churned on functions being called, counted exactly");
MODULE_LICENSE("GPL");
