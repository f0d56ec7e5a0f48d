// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "kprobe_ftrace": kprobes on function-hook call sites, as
 * users of register_kprobe() see them on x86-64 and arm64
 * (arch/{x86,arm64}/kernel/{kprobes,probes}/ftrace.c).  What differs
 * between the two, the pc a breakpoint shows and where the flags and the
 * return address are, sits in the arch's <asm/trace_kunit.h>
 * (HAVE_ARCH_TRACE_KUNIT): TRACE_KUNIT_TRAP_IP() and trace_kunit_*().
 *
 * The probes go on the functions of ftrace_kunit_funcs.c, the object of
 * this directory built with fentry call sites, which only the KUnit suites
 * call, one suite at a time; so hit and miss counts are exact.  Every
 * probe is a struct kpf_probe: its handlers count hits and record what
 * they saw (the pt_regs values, the kprobe state, the context); the case
 * checks all of it afterwards, in its own context.  A handler can also
 * call a probed function (nested hits) and redirect the call.
 *
 * Lifetime: probes are allocated with kunit_kzalloc() together with an
 * action that unregisters them (harmless when the case already did), so a
 * failed assertion leaves nothing armed.  The helper thread of the
 * two-CPU cases is started after its probes, so its stop action runs
 * before they are unregistered.
 *
 * The handler is also called directly, with frames the case builds: the
 * only way to hand it a frame without pt_regs, or a pre_handler that
 * claims a redirect without moving the ip, without crashing the test.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <asm/trace_kunit.h>

#include "ftrace_kunit.h"

/* Calls of the helper thread in the exact-count case. */
#define KPF_WORKER_CALLS	1000
/* Calls per round of the helper thread while it runs freely. */
#define KPF_WORKER_BATCH	64
/* How long a case waits for the helper thread. */
#define KPF_WAIT		(30 * HZ)

/* What one handler call saw. */
struct kpf_seen {
	unsigned long	ip;
	unsigned long	arg0;
	bool		irqs_on;	/* as regs has it */
	bool		kernel_frame;
	unsigned long	ret_addr;	/* the function's return address */
	struct kprobe	*running;	/* kprobe_running() */
	int		status;		/* kprobe_status of this CPU */
	bool		preemptible;
};

struct kpf_probe {
	struct kprobe	kp;
	atomic_t	pre_hits;
	atomic_t	post_hits;
	atomic_t	worker_hits;	/* pre_handler calls in the helper */
	struct kpf_seen	pre;		/* the last pre_handler call */
	struct kpf_seen	post;		/* the last post_handler call */
	unsigned long	redirect_to;	/* the pre_handler moves the pc here */
	bool		claim_redirect;	/* the pre_handler returns 1 */
	/* Both handlers call nest(0) and expect nest_add back. */
	unsigned long	(*nest)(unsigned long x);
	unsigned long	nest_add;
	atomic_t	nest_wrong;
};

/* The helper thread of the two-CPU cases, while one runs. */
static struct task_struct *kpf_worker_task;

static void kpf_record(struct kpf_seen *seen, struct pt_regs *regs)
{
	seen->ip = instruction_pointer(regs);
	seen->arg0 = regs_get_kernel_argument(regs, 0);
	seen->irqs_on = trace_kunit_irqs_on(regs);
	seen->kernel_frame = trace_kunit_kernel_frame(regs);
	seen->ret_addr = trace_kunit_entry_ret_addr(regs);
	seen->running = kprobe_running();
	seen->status = get_kprobe_ctlblk()->kprobe_status;
	seen->preemptible = preemptible();
}

static void kpf_call_nested(struct kpf_probe *kpf)
{
	unsigned long (*fn)(unsigned long x) = READ_ONCE(kpf->nest);

	if (fn && fn(0) != READ_ONCE(kpf->nest_add))
		atomic_inc(&kpf->nest_wrong);
}

static int kpf_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kpf_probe *kpf = container_of(p, struct kpf_probe, kp);

	kpf_record(&kpf->pre, regs);
	atomic_inc(&kpf->pre_hits);
	if (current == READ_ONCE(kpf_worker_task))
		atomic_inc(&kpf->worker_hits);
	kpf_call_nested(kpf);
	if (kpf->redirect_to)
		instruction_pointer_set(regs, kpf->redirect_to);
	return kpf->claim_redirect;
}

static void kpf_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	struct kpf_probe *kpf = container_of(p, struct kpf_probe, kp);

	kpf_record(&kpf->post, regs);
	atomic_inc(&kpf->post_hits);
	kpf_call_nested(kpf);
}

static void kpf_unregister_action(void *arg)
{
	struct kpf_probe *kpf = arg;

	unregister_kprobe(&kpf->kp);
}

/* A probe at @sym + @offset, with a post_handler if @post; not registered. */
static struct kpf_probe *kpf_new(struct kunit *test, const char *sym,
				 unsigned int offset, bool post)
{
	struct kpf_probe *kpf;

	kpf = kunit_kzalloc(test, sizeof(*kpf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kpf);
	kpf->kp.symbol_name = sym;
	kpf->kp.offset = offset;
	kpf->kp.pre_handler = kpf_pre;
	if (post)
		kpf->kp.post_handler = kpf_post;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpf_unregister_action, kpf), 0);
	return kpf;
}

static void kpf_register(struct kunit *test, struct kpf_probe *kpf)
{
	KUNIT_ASSERT_EQ(test, register_kprobe(&kpf->kp), 0);
}

/* Register a probe at the entry of @sym and check it went on the call site. */
static struct kpf_probe *kpf_new_on_site(struct kunit *test, const char *sym,
					 void *fn, bool post)
{
	unsigned long site = ftrace_location((unsigned long)fn);
	struct kpf_probe *kpf = kpf_new(test, sym, 0, post);

	KUNIT_ASSERT_NE_MSG(test, site, 0, "%s has no call site", sym);
	kpf_register(test, kpf);
	KUNIT_ASSERT_TRUE(test, kprobe_ftrace(&kpf->kp));
	KUNIT_ASSERT_EQ(test, (unsigned long)kpf->kp.addr, site);
	return kpf;
}

static unsigned long kpf_site(struct kpf_probe *kpf)
{
	return (unsigned long)kpf->kp.addr;
}

static struct kprobe *kpf_running_here(void)
{
	struct kprobe *p;

	preempt_disable();
	p = kprobe_running();
	preempt_enable();
	return p;
}

/* ---- the helper thread ------------------------------------------------ */

struct kpf_worker {
	struct task_struct	*task;
	unsigned int		exact;	/* calls to make on go; 0: run freely */
	bool			go;
	struct completion	done;	/* the exact calls are made */
	atomic_t		calls;
	atomic_t		wrong;	/* calls that returned a wrong value */
};

static void kpf_worker_call(struct kpf_worker *w)
{
	unsigned long n = atomic_inc_return(&w->calls);

	if (ftrace_kunit_target_d(n) != n + FTRACE_KUNIT_D_ADD)
		atomic_inc(&w->wrong);
}

static int kpf_worker_fn(void *arg)
{
	struct kpf_worker *w = arg;
	unsigned int i;

	while (!kthread_should_stop()) {
		/* Pairs with the release in the case: the probe is armed. */
		bool go = smp_load_acquire(&w->go);

		if (!w->exact) {
			for (i = 0; i < KPF_WORKER_BATCH; i++)
				kpf_worker_call(w);
		} else if (go) {
			for (i = 0; i < w->exact; i++)
				kpf_worker_call(w);
			WRITE_ONCE(w->go, false);
			complete(&w->done);
		}
		/* Sleep now and then: unregistering waits for RCU-tasks. */
		usleep_range(50, 100);
	}
	return 0;
}

static void kpf_worker_stop(void *arg)
{
	struct kpf_worker *w = arg;

	kthread_stop(w->task);
	WRITE_ONCE(kpf_worker_task, NULL);
}

/* Start a thread that calls ftrace_kunit_target_d() on a CPU other than ours. */
static struct kpf_worker *kpf_worker_start(struct kunit *test,
					   unsigned int exact)
{
	struct kpf_worker *w;
	unsigned int cpu;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	KUNIT_ASSERT_LT(test, cpu, nr_cpu_ids);

	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	w->exact = exact;
	init_completion(&w->done);
	w->task = kthread_create(kpf_worker_fn, w, "kpf_kunit/%u", cpu);
	KUNIT_ASSERT_FALSE(test, IS_ERR(w->task));
	kthread_bind(w->task, cpu);
	WRITE_ONCE(kpf_worker_task, w->task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpf_worker_stop, w), 0);
	wake_up_process(w->task);
	return w;
}

/* Poll until *@v reaches @target; false after KPF_WAIT. */
static bool kpf_wait_for(atomic_t *v, int target)
{
	unsigned long end = jiffies + KPF_WAIT;

	while (atomic_read(v) < target) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(2000, 5000);
	}
	return true;
}

/* ---- cases ------------------------------------------------------------ */

/*
 * A probe at a function's entry goes on its call site and is served by
 * the hook; one an instruction further in is a breakpoint.  Both see
 * the pc a breakpoint at their address would show in the pre_handler.
 */
static void entry_probe_uses_call_site(struct kunit *test)
{
	unsigned long fn = (unsigned long)ftrace_kunit_target_b;
	struct kpf_probe *site_kpf, *brk;
	unsigned long site, offset;

	/*
	 * Keep the compiler from folding the arithmetic below into a
	 * relocation to fn - MCOUNT_INSN_SIZE, which objtool reports as a
	 * code reference without ENDBR under IBT.
	 */
	OPTIMIZER_HIDE_VAR(fn);
	site_kpf = kpf_new_on_site(test, "ftrace_kunit_target_b", ftrace_kunit_target_b, true);
	site = kpf_site(site_kpf);
	offset = site - fn + MCOUNT_INSN_SIZE;
	brk = kpf_new(test, "ftrace_kunit_target_b", offset, true);
	kpf_register(test, brk);
	KUNIT_EXPECT_FALSE(test, kprobe_ftrace(&brk->kp));
	KUNIT_EXPECT_EQ(test, kpf_site(brk), site + MCOUNT_INSN_SIZE);

	KUNIT_EXPECT_EQ(test, ftrace_kunit_target_b(5), 5 + FTRACE_KUNIT_B_ADD);

	KUNIT_EXPECT_EQ(test, atomic_read(&site_kpf->pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&site_kpf->post_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&brk->pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&brk->post_hits), 1);
	KUNIT_EXPECT_EQ(test, site_kpf->pre.ip, TRACE_KUNIT_TRAP_IP(site));
	KUNIT_EXPECT_EQ(test, brk->pre.ip, TRACE_KUNIT_TRAP_IP(kpf_site(brk)));
	KUNIT_EXPECT_EQ(test, site_kpf->pre.arg0, 5);
	KUNIT_EXPECT_EQ(test, brk->pre.arg0, 5);
}

/* Exact counts, and pt_regs as a breakpoint at the call site gives them. */
static void handlers_see_breakpoint_regs(struct kunit *test)
{
	unsigned long size = 0, offset = 0, site, irqflags, i;
	struct kpf_probe *kpf;

	kpf = kpf_new_on_site(test, "ftrace_kunit_target_b", ftrace_kunit_target_b, true);
	site = kpf_site(kpf);

	for (i = 0; i < 7; i++)
		KUNIT_EXPECT_EQ(test, ftrace_kunit_target_outer(100 + i),
				100 + i + FTRACE_KUNIT_B_ADD + FTRACE_KUNIT_OUTER_ADD);

	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->pre_hits), 7);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->post_hits), 7);
	KUNIT_EXPECT_EQ(test, kpf->kp.nmissed, 0);
	KUNIT_EXPECT_PTR_EQ(test, kpf_running_here(), NULL);

	KUNIT_EXPECT_EQ(test, kpf->pre.ip, TRACE_KUNIT_TRAP_IP(site));
	KUNIT_EXPECT_EQ(test, kpf->post.ip, site + MCOUNT_INSN_SIZE);
	KUNIT_EXPECT_EQ(test, kpf->pre.arg0, 106);
	KUNIT_EXPECT_EQ(test, kpf->post.arg0, 106);
	KUNIT_EXPECT_TRUE(test, kpf->pre.kernel_frame);
	KUNIT_EXPECT_TRUE(test, kpf->pre.irqs_on);
	KUNIT_EXPECT_FALSE(test, kpf->pre.preemptible);
	KUNIT_EXPECT_FALSE(test, kpf->post.preemptible);
	KUNIT_EXPECT_PTR_EQ(test, kpf->pre.running, &kpf->kp);
	KUNIT_EXPECT_PTR_EQ(test, kpf->post.running, &kpf->kp);
	KUNIT_EXPECT_EQ(test, kpf->pre.status, KPROBE_HIT_ACTIVE);
	KUNIT_EXPECT_EQ(test, kpf->post.status, KPROBE_HIT_SSDONE);

	/* The return address into the caller. */
	KUNIT_EXPECT_TRUE(test, kallsyms_lookup_size_offset(kpf->pre.ret_addr,
							    &size, &offset));
	KUNIT_EXPECT_EQ(test, kpf->pre.ret_addr - offset,
			(unsigned long)ftrace_kunit_target_outer);

	/* The flags are the caller's: interrupts off shows. */
	local_irq_save(irqflags);
	ftrace_kunit_target_outer(1);
	local_irq_restore(irqflags);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->pre_hits), 8);
	KUNIT_EXPECT_FALSE(test, kpf->pre.irqs_on);

	unregister_kprobe(&kpf->kp);
	ftrace_kunit_target_outer(2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->pre_hits), 8);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->post_hits), 8);
}

/* Several probes at one call site all run, and leave one by one. */
static void probes_on_one_site_all_run(struct kunit *test)
{
	struct kpf_probe *a, *b;

	a = kpf_new_on_site(test, "ftrace_kunit_target_b", ftrace_kunit_target_b, true);
	b = kpf_new_on_site(test, "ftrace_kunit_target_b", ftrace_kunit_target_b, false);

	ftrace_kunit_target_b(1);
	ftrace_kunit_target_b(2);
	ftrace_kunit_target_b(3);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->pre_hits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->post_hits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->pre_hits), 3);
	KUNIT_EXPECT_EQ(test, a->pre.ip, TRACE_KUNIT_TRAP_IP(kpf_site(a)));
	KUNIT_EXPECT_EQ(test, b->pre.ip, TRACE_KUNIT_TRAP_IP(kpf_site(b)));
	KUNIT_EXPECT_EQ(test, a->post.ip, kpf_site(a) + MCOUNT_INSN_SIZE);

	unregister_kprobe(&a->kp);
	ftrace_kunit_target_b(4);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->pre_hits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->pre_hits), 4);
	KUNIT_EXPECT_EQ(test, a->kp.nmissed + b->kp.nmissed, 0);
}

/* A disabled probe runs nothing and misses nothing until enabled again. */
static void disabled_probe_is_silent(struct kunit *test)
{
	struct kpf_probe *kpf;

	kpf = kpf_new_on_site(test, "ftrace_kunit_target_b", ftrace_kunit_target_b, true);
	ftrace_kunit_target_b(1);
	KUNIT_ASSERT_EQ(test, disable_kprobe(&kpf->kp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&kpf->kp));
	ftrace_kunit_target_b(2);
	ftrace_kunit_target_b(3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->post_hits), 1);

	KUNIT_ASSERT_EQ(test, enable_kprobe(&kpf->kp), 0);
	ftrace_kunit_target_b(4);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->pre_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->post_hits), 2);
	KUNIT_EXPECT_EQ(test, kpf->pre.arg0, 4);
	KUNIT_EXPECT_EQ(test, kpf->kp.nmissed, 0);
}

/*
 * A pre_handler that moves regs->ip and returns 1 redirects the call: the
 * other body runs, no post_handler runs, and the probe is not left current
 * (the next hit is not a miss).  With a post_handler the probe sits on
 * kprobes' IPMODIFY ops, without one on the plain ops: both are checked.
 */
static void pre_handler_redirects_call(struct kunit *test)
{
	const bool *with_post = test->param_value;
	unsigned long from_runs, to_runs;
	struct kpf_probe *kpf;

	kpf = kpf_new_on_site(test, "ftrace_kunit_redirect_from",
			      ftrace_kunit_redirect_from, *with_post);
	kpf->redirect_to = (unsigned long)ftrace_kunit_redirect_to;
	kpf->claim_redirect = true;
	from_runs = READ_ONCE(ftrace_kunit_from_runs);
	to_runs = READ_ONCE(ftrace_kunit_to_runs);

	KUNIT_EXPECT_EQ(test, ftrace_kunit_redirect_from(3), 3 + FTRACE_KUNIT_TO_ADD);
	KUNIT_EXPECT_PTR_EQ(test, kpf_running_here(), NULL);
	KUNIT_EXPECT_EQ(test, ftrace_kunit_redirect_from(4), 4 + FTRACE_KUNIT_TO_ADD);

	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->pre_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->post_hits), 0);
	KUNIT_EXPECT_EQ(test, kpf->kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ftrace_kunit_from_runs), from_runs);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ftrace_kunit_to_runs), to_runs + 2);

	unregister_kprobe(&kpf->kp);
	KUNIT_EXPECT_EQ(test, ftrace_kunit_redirect_from(5), 5 + FTRACE_KUNIT_FROM_ADD);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ftrace_kunit_from_runs), from_runs + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->pre_hits), 2);
}

static const bool kpf_with_post[] = { false, true };

static void kpf_with_post_desc(const bool *with_post, char *desc)
{
	strscpy(desc, *with_post ? "with post_handler" : "pre_handler only",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpf_with_post, kpf_with_post, kpf_with_post_desc);

/*
 * A hit while a kprobe runs on this CPU (from either handler) runs nothing
 * and counts as missed, whether it is another probe's site or the running
 * probe's own; the function itself still runs.
 */
static void nested_hit_counts_as_missed(struct kunit *test)
{
	struct kpf_probe *outer, *inner;

	inner = kpf_new_on_site(test, "ftrace_kunit_target_c", ftrace_kunit_target_c, true);
	outer = kpf_new_on_site(test, "ftrace_kunit_target_b", ftrace_kunit_target_b, true);
	WRITE_ONCE(outer->nest_add, FTRACE_KUNIT_C_ADD);
	WRITE_ONCE(outer->nest, ftrace_kunit_target_c);

	KUNIT_EXPECT_EQ(test, ftrace_kunit_target_b(1), 1 + FTRACE_KUNIT_B_ADD);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->post_hits), 1);
	KUNIT_EXPECT_EQ(test, outer->kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&inner->pre_hits), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&inner->post_hits), 0);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->nest_wrong), 0);

	/* Outside a handler the inner probe works. */
	ftrace_kunit_target_c(2);
	KUNIT_EXPECT_EQ(test, atomic_read(&inner->pre_hits), 1);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 2);

	/* The running probe's own site. */
	WRITE_ONCE(outer->nest, NULL);
	WRITE_ONCE(outer->nest_add, FTRACE_KUNIT_B_ADD);
	WRITE_ONCE(outer->nest, ftrace_kunit_target_b);
	ftrace_kunit_target_b(3);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->pre_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->post_hits), 2);
	KUNIT_EXPECT_EQ(test, outer->kp.nmissed, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->nest_wrong), 0);
}

/*
 * The handler called with frames built here: without pt_regs it counts a
 * miss; with them it gives regs->ip back as it came, moves it where a
 * redirecting pre_handler put it, and keeps it when a pre_handler claims
 * a redirect without moving it.  It disables preemption itself.
 */
static void handler_frames(struct kunit *test)
{
	unsigned long resume = (unsigned long)ftrace_kunit_target_d;
	unsigned long ret_slot = resume;
	struct ftrace_regs *fregs;
	struct kpf_probe *kpf;
	struct pt_regs *regs;
	unsigned long site;

	kpf = kpf_new_on_site(test, "ftrace_kunit_target_b", ftrace_kunit_target_b, true);
	site = kpf_site(kpf);
	/*
	 * struct ftrace_regs is opaque: the arch's frame is the real size,
	 * and on arm64 a pt_regs frame is larger than an ftrace_regs.
	 */
	fregs = kunit_kzalloc(test, max(ftrace_regs_size(), sizeof(*regs)),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fregs);
	regs = trace_kunit_fregs_pt_regs(fregs);
	instruction_pointer_set(regs, resume);

	/* All zero: an argument-only frame */
	KUNIT_ASSERT_PTR_EQ(test, ftrace_get_regs(fregs), NULL);
	kprobe_ftrace_handler(site, 0, NULL, fregs);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->pre_hits), 0);
	KUNIT_EXPECT_EQ(test, kpf->kp.nmissed, 1);

	trace_kunit_make_full_regs(regs, &ret_slot);
	KUNIT_ASSERT_PTR_EQ(test, ftrace_get_regs(fregs), regs);
	kprobe_ftrace_handler(site, 0, NULL, fregs);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->pre_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->post_hits), 1);
	KUNIT_EXPECT_EQ(test, kpf->pre.ip, TRACE_KUNIT_TRAP_IP(site));
	KUNIT_EXPECT_EQ(test, kpf->post.ip, site + MCOUNT_INSN_SIZE);
	KUNIT_EXPECT_TRUE(test, kpf->pre.kernel_frame);
	KUNIT_EXPECT_EQ(test, kpf->pre.ret_addr, resume);
	KUNIT_EXPECT_FALSE(test, kpf->pre.preemptible);
	KUNIT_EXPECT_EQ(test, instruction_pointer(regs), resume);

	kpf->claim_redirect = true;
	kprobe_ftrace_handler(site, 0, NULL, fregs);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->pre_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->post_hits), 1);
	KUNIT_EXPECT_EQ(test, instruction_pointer(regs), resume);

	kpf->redirect_to = (unsigned long)ftrace_kunit_redirect_to;
	kprobe_ftrace_handler(site, 0, NULL, fregs);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->pre_hits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->post_hits), 1);
	KUNIT_EXPECT_EQ(test, instruction_pointer(regs), (unsigned long)ftrace_kunit_redirect_to);
	KUNIT_EXPECT_PTR_EQ(test, kpf_running_here(), NULL);

	/* A site without a probe, and a disabled probe: nothing at all. */
	instruction_pointer_set(regs, resume);
	kprobe_ftrace_handler(site + 1, 0, NULL, fregs);
	KUNIT_ASSERT_EQ(test, disable_kprobe(&kpf->kp), 0);
	kprobe_ftrace_handler(site, 0, NULL, fregs);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->pre_hits), 3);
	KUNIT_EXPECT_EQ(test, kpf->kp.nmissed, 1);
	KUNIT_EXPECT_EQ(test, instruction_pointer(regs), resume);
}

/* Exact counts while another CPU calls the probed function too. */
static void exact_hits_with_other_cpu(struct kunit *test)
{
	struct kpf_worker *w;
	struct kpf_probe *kpf;
	unsigned long i;

	kpf = kpf_new_on_site(test, "ftrace_kunit_target_d", ftrace_kunit_target_d, true);
	w = kpf_worker_start(test, KPF_WORKER_CALLS);
	/* The probe is armed before the helper's first call. */
	smp_store_release(&w->go, true);
	for (i = 0; i < 300; i++)
		KUNIT_EXPECT_EQ(test, ftrace_kunit_target_d(i), i + FTRACE_KUNIT_D_ADD);
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&w->done, KPF_WAIT),
			      "the helper thread did not finish its calls");

	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->pre_hits), KPF_WORKER_CALLS + 300);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->post_hits), KPF_WORKER_CALLS + 300);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpf->worker_hits), KPF_WORKER_CALLS);
	KUNIT_EXPECT_EQ(test, kpf->kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->wrong), 0);
}

/*
 * Probes come and go while another CPU keeps calling the function: each
 * one gets hits, a hit runs both handlers or none, none comes after
 * unregister_kprobe() returned, and every call returns its right value.
 */
static void probes_come_and_go_under_calls(struct kunit *test)
{
	struct kpf_worker *w;
	struct kpf_probe *kpf;
	int round, hits;

	w = kpf_worker_start(test, 0);
	for (round = 0; round < 3; round++) {
		kpf = kpf_new_on_site(test, "ftrace_kunit_target_d", ftrace_kunit_target_d, true);
		KUNIT_EXPECT_TRUE_MSG(test, kpf_wait_for(&kpf->worker_hits, 50),
				      "round %d: no hits from the other CPU", round);
		unregister_kprobe(&kpf->kp);
		hits = atomic_read(&kpf->pre_hits);
		KUNIT_EXPECT_EQ(test, atomic_read(&kpf->post_hits), hits);

		KUNIT_ASSERT_TRUE(test, kpf_wait_for(&w->calls, atomic_read(&w->calls) + 500));
		KUNIT_EXPECT_EQ(test, atomic_read(&kpf->pre_hits), hits);
		KUNIT_EXPECT_EQ(test, atomic_read(&kpf->post_hits), hits);
		KUNIT_EXPECT_EQ(test, kpf->kp.nmissed, 0);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&w->wrong), 0);
}

static struct kunit_case kpf_cases[] = {
	KUNIT_CASE(entry_probe_uses_call_site),
	KUNIT_CASE(handlers_see_breakpoint_regs),
	KUNIT_CASE(probes_on_one_site_all_run),
	KUNIT_CASE(disabled_probe_is_silent),
	KUNIT_CASE_PARAM(pre_handler_redirects_call, kpf_with_post_gen_params),
	KUNIT_CASE(nested_hit_counts_as_missed),
	KUNIT_CASE(handler_frames),
	KUNIT_CASE(exact_hits_with_other_cpu),
	KUNIT_CASE(probes_come_and_go_under_calls),
	{}
};

static struct kunit_suite kpf_suite = {
	.name		= "kprobe_ftrace",
	.test_cases	= kpf_cases,
};

kunit_test_suite(kpf_suite);
