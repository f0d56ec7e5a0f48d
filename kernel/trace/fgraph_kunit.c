// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "fgraph": the function graph layer (fgraph.c) as its users
 * see it.
 *
 * Every case hooks real call sites, those of the functions in
 * ftrace_kunit_funcs.c (built with fentry; nothing else calls them), and
 * calls them from the case's own thread.  Callbacks ignore every other task
 * and only count and record; the case checks afterwards, in its own
 * context.  So the counts are exact: one entry and one return per call.
 *
 * The nested-call cases need a traced function that calls another one;
 * they run once ftrace_kunit.h provides ftrace_kunit_target_outer() (it
 * defines FTRACE_KUNIT_OUTER_ADD then), and are skipped before.
 *
 * Lifetime: each user (struct fg_user, an fgraph_ops and what its
 * callbacks saw) is allocated with kunit_kzalloc() together with a KUnit
 * action that unregisters it if needed and frees its filter; actions run
 * in reverse order, before the memory goes.  A helper thread is released
 * and stopped by an action created after the users it reports to.
 *
 * Direct users (register_fgraph_direct()) are exercised through one
 * static user, fg_direct, whose ftrace_ops callback pushes, fills and
 * hooks (or drops) a frame on target A and whose return callback records
 * what it got back.
 *
 * Private interface used: ftrace_graph_active, ftrace_core_dead() and the
 * direct-user calls (ftrace_internal.h).
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>

#include "ftrace_internal.h"
#include "ftrace_kunit.h"

/* fgraph.c's limits: users at once, bytes one user reserves per call. */
#define FG_MAX_USERS		16
#define FG_MAX_DATA		(32 * sizeof(long))

#define FG_CALLS		5
#define FG_ARG			0x5eedUL
#define FG_WAIT_MS		10000
#define FG_WALK_DEPTH		32

/* The hooked functions, indexes into fg_funcs[]. */
enum fg_target { FG_A, FG_B, FG_OUTER, FG_WAIT, FG_NR };

#ifdef FTRACE_KUNIT_OUTER_ADD
# define FG_OUTER_FN	((unsigned long)ftrace_kunit_target_outer)
#else
# define FG_OUTER_FN	0UL
#endif

static const char * const fg_names[FG_NR] = {
	[FG_A]		= "ftrace_kunit_target_a",
	[FG_B]		= "ftrace_kunit_target_b",
	[FG_OUTER]	= "ftrace_kunit_target_outer",
	[FG_WAIT]	= "wait_for_completion",
};

/* Call site of each target (0: not available); filled by fg_init(). */
static unsigned long fg_site[FG_NR];

/* What a user's callbacks do beyond counting. */
enum {
	FG_DO_STORE	= BIT(0),	/* reserve and check data */
	FG_DO_LIMITS	= BIT(1),	/* try invalid reservations */
	FG_DO_FRAME	= BIT(2),	/* look at the frame and ret_addr */
	FG_DO_WALK	= BIT(3),	/* stack trace at the entry of B */
};

struct fg_user {
	struct fgraph_ops	gops;
	bool			registered;
	struct task_struct	*task;		/* the only task counted */
	int			accept;		/* the entry callback's verdict */
	unsigned int		does;		/* FG_DO_* */
	int			store;		/* bytes reserved per call */
	u8			seed;		/* first byte of the data */

	atomic_t		entries[FG_NR];
	atomic_t		returns[FG_NR];
	atomic_t		foreign;
	int			entry_seq[FG_NR];
	int			return_seq[FG_NR];
	int			entry_depth[FG_NR];
	int			return_depth[FG_NR];
	unsigned long		entry_func[FG_NR];
	unsigned long		parent_func[FG_NR];	/* frame 1 at entry */
	unsigned long		return_func[FG_NR];
	unsigned long		retval[FG_NR];
	unsigned long long	calltime;
	unsigned long long	rettime;

	/* FG_DO_STORE, FG_DO_LIMITS */
	atomic_t		store_failed;
	atomic_t		second_store;
	atomic_t		data_missing;
	atomic_t		data_bad;
	atomic_t		limits_bad;
	int			data_size;

	/* task var: what the entry found, what the return found */
	unsigned long		var_at_entry;
	unsigned long		var_at_return;

	/* FG_DO_FRAME, for calls of A */
	unsigned long		frame_func;
	unsigned long		frame_ret;
	unsigned long		frame_slot;	/* the return slot at the entry */
	bool			frame_key_ok;	/* retp is the frame's key */
	unsigned long		frame_func_at_return;
	unsigned long		mapped;
	unsigned long		unmapped_other;
	unsigned long		unmapped_bad_retp;

	/* FG_DO_WALK */
	unsigned long		walk[FG_WALK_DEPTH];
	unsigned int		walk_nr;
};

/* Orders callbacks of all users: entry and return sequence numbers. */
static atomic_t fg_seq;

static inline struct fg_user *fg_user_of(struct fgraph_ops *gops)
{
	return container_of(gops, struct fg_user, gops);
}

static int fg_target_of(unsigned long func)
{
	int i;

	for (i = 0; i < FG_NR; i++) {
		if (fg_site[i] && fg_site[i] == func)
			return i;
	}
	return -1;
}

/* ---- the callers (return addresses land in these) --------------------- */

static noinline unsigned long fg_call_a(unsigned long x)
{
	unsigned long r = ftrace_kunit_target_a(x);

	/* Use the result here, so that the call is not a tail call. */
	asm volatile("" : "+r" (r));
	return r;
}

static noinline unsigned long fg_call_b(unsigned long x)
{
	unsigned long r = ftrace_kunit_target_b(x);

	asm volatile("" : "+r" (r));
	return r;
}

#ifdef FTRACE_KUNIT_OUTER_ADD
static noinline unsigned long fg_call_outer(unsigned long x)
{
	unsigned long r = ftrace_kunit_target_outer(x);

	asm volatile("" : "+r" (r));
	return r;
}
#endif

static bool fg_addr_in(unsigned long addr, void *fn)
{
	unsigned long size, off;

	if (!kallsyms_lookup_size_offset((unsigned long)fn, &size, &off))
		return false;
	return addr - (unsigned long)fn < size;
}

/* ---- callbacks -------------------------------------------------------- */

static u8 fg_byte(struct fg_user *u, int i)
{
	return u->seed + i * 7;
}

/* Reserve and fill the user's data; false if fgraph refused. */
static bool fg_store(struct fg_user *u)
{
	u8 *p = fgraph_reserve_data(u->gops.idx, u->store);
	int i;

	if (!p) {
		atomic_inc(&u->store_failed);
		return false;
	}
	for (i = 0; i < u->store; i++)
		p[i] = fg_byte(u, i);
	/* Once per entry callback. */
	if (fgraph_reserve_data(u->gops.idx, sizeof(long)))
		atomic_inc(&u->second_store);
	return true;
}

static void fg_check_store(struct fg_user *u)
{
	int size = -1, i;
	u8 *p;

	p = fgraph_retrieve_data(u->gops.idx, &size);
	if (!p) {
		atomic_inc(&u->data_missing);
		return;
	}
	u->data_size = size;
	for (i = 0; i < u->store; i++) {
		if (p[i] != fg_byte(u, i)) {
			atomic_inc(&u->data_bad);
			return;
		}
	}
}

/* Reservations that must fail; then a valid one of the largest size. */
static void fg_try_limits(struct fg_user *u)
{
	int idx = u->gops.idx;

	if (fgraph_reserve_data(idx, FG_MAX_DATA + 1) ||
	    fgraph_reserve_data(idx, 0) || fgraph_reserve_data(idx, -1) ||
	    fgraph_reserve_data((idx + 1) % FG_MAX_USERS, 8))
		atomic_inc(&u->limits_bad);
	/* Nothing was reserved: there is nothing to retrieve either. */
	if (fgraph_retrieve_data(idx, NULL))
		atomic_inc(&u->limits_bad);
}

/*
 * The frame's retp is the key unwinders look a hooked return up by, and
 * the return address is in the call's return slot: both the stack slot
 * at the entry's stack pointer on x86, so there *retp is the address;
 * on arm64 the key is the frame pointer at the entry and the slot the
 * saved x30 (fregs->lr).
 */
static void fg_frame_at_entry(struct fg_user *u, struct ftrace_regs *fregs)
{
	struct ftrace_ret_stack *frame = ftrace_graph_get_ret_stack(current, 0);

	if (!frame || !fregs)
		return;
	u->frame_func = frame->func;
	u->frame_ret = frame->ret;
	u->frame_key_ok = frame->retp == ftrace_regs_return_key(fregs);
	/* Not hooked yet: the slot still holds the real address. */
	u->frame_slot = *ftrace_regs_return_slot(fregs);
}

static void fg_frame_at_return(struct fg_user *u)
{
	unsigned long handler = (unsigned long)return_to_handler;
	struct ftrace_ret_stack *frame = ftrace_graph_get_ret_stack(current, 0);
	int idx = 0;

	if (!frame)
		return;
	u->frame_func_at_return = frame->func;
	u->mapped = ftrace_graph_ret_addr(current, &idx, handler, frame->retp);
	idx = 0;
	u->unmapped_other = ftrace_graph_ret_addr(current, &idx, FG_ARG,
						  frame->retp);
	idx = 0;
	u->unmapped_bad_retp = ftrace_graph_ret_addr(current, &idx, handler,
						     (unsigned long *)&idx);
}

static int notrace fg_entry(struct ftrace_graph_ent *trace,
			    struct fgraph_ops *gops, struct ftrace_regs *fregs)
{
	struct fg_user *u = fg_user_of(gops);
	struct ftrace_ret_stack *frame;
	unsigned long *var;
	int i;

	if (current != u->task)
		return 0;
	i = fg_target_of(trace->func);
	if (i < 0) {
		atomic_inc(&u->foreign);
		return 0;
	}
	atomic_inc(&u->entries[i]);
	u->entry_seq[i] = atomic_inc_return(&fg_seq);
	u->entry_depth[i] = trace->depth;
	u->entry_func[i] = trace->func;
	frame = ftrace_graph_get_ret_stack(current, 1);
	u->parent_func[i] = frame ? frame->func : 0;

	var = fgraph_get_task_var(gops);
	u->var_at_entry = *var;
	*var = u->seed;

	if ((u->does & FG_DO_LIMITS) && i == FG_A)
		fg_try_limits(u);
	if ((u->does & FG_DO_STORE) && !fg_store(u))
		return 0;
	if ((u->does & FG_DO_FRAME) && i == FG_A)
		fg_frame_at_entry(u, fregs);
	if ((u->does & FG_DO_WALK) && i == FG_B)
		u->walk_nr = stack_trace_save(u->walk, FG_WALK_DEPTH, 0);
	return u->accept;
}

static void notrace fg_return(struct ftrace_graph_ret *trace,
			      struct fgraph_ops *gops, struct ftrace_regs *fregs)
{
	struct fg_user *u = fg_user_of(gops);
	int i;

	if (current != u->task)
		return;
	i = fg_target_of(trace->func);
	if (i < 0) {
		atomic_inc(&u->foreign);
		return;
	}
	atomic_inc(&u->returns[i]);
	u->return_seq[i] = atomic_inc_return(&fg_seq);
	u->return_depth[i] = trace->depth;
	u->return_func[i] = trace->func;
	u->retval[i] = trace->retval;
	u->calltime = trace->calltime;
	u->rettime = trace->rettime;
	u->var_at_return = *fgraph_get_task_var(gops);

	if (u->does & FG_DO_STORE)
		fg_check_store(u);
	if (u->does & FG_DO_LIMITS) {
		/* Only an entry callback may reserve. */
		if (fgraph_reserve_data(u->gops.idx, 8))
			atomic_inc(&u->limits_bad);
	}
	if ((u->does & FG_DO_FRAME) && i == FG_A)
		fg_frame_at_return(u);
}

/* ---- users ------------------------------------------------------------ */

static int fg_register(struct fg_user *u)
{
	int ret = register_ftrace_graph(&u->gops);

	if (!ret)
		u->registered = true;
	return ret;
}

static int fg_register_untimed(struct fg_user *u)
{
	int ret = register_ftrace_graph_untimed(&u->gops);

	if (!ret)
		u->registered = true;
	return ret;
}

static void fg_unregister(struct fg_user *u)
{
	unregister_ftrace_graph(&u->gops);
	u->registered = false;
}

static void fg_user_release(void *arg)
{
	struct fg_user *u = arg;

	if (u->registered)
		fg_unregister(u);
	ftrace_free_filter(&u->gops.ops);
}

/* A user hooking the targets in @mask, counting calls of the case's task. */
static struct fg_user *fg_user_new(struct kunit *test, unsigned long mask)
{
	struct fg_user *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, u);
	u->gops.entryfunc = fg_entry;
	u->gops.retfunc = fg_return;
	u->task = current;
	u->accept = 1;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fg_user_release, u), 0);

	for (i = 0; i < FG_NR; i++) {
		if (!(mask & BIT(i)))
			continue;
		KUNIT_ASSERT_NE_MSG(test, fg_site[i], 0UL, "%s not traceable",
				    fg_names[i]);
		KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&u->gops.ops, fg_site[i],
							   0, 0), 0);
	}
	return u;
}

static bool fg_wait_atomic(atomic_t *v, int min)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(FG_WAIT_MS);

	while (atomic_read(v) < min) {
		if (time_after(jiffies, deadline))
			return false;
		usleep_range(500, 1000);
	}
	return true;
}

static void fg_skip_without_outer(struct kunit *test)
{
	if (!fg_site[FG_OUTER])
		kunit_skip(test, "needs ftrace_kunit_target_outer() in ftrace_kunit_funcs.c");
}

/* ---- cases ------------------------------------------------------------ */

/* One entry and one return per call, for the hooked function only. */
static void entry_and_return_once_per_call(struct kunit *test)
{
	struct fg_user *u = fg_user_new(test, BIT(FG_A));
	int i;

	KUNIT_ASSERT_EQ(test, fg_register(u), 0);
	for (i = 0; i < FG_CALLS; i++) {
		fg_call_a(i);
		fg_call_b(i);
	}
	fg_unregister(u);

	KUNIT_EXPECT_EQ(test, atomic_read(&u->entries[FG_A]), FG_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->returns[FG_A]), FG_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->entries[FG_B]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->returns[FG_B]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->foreign), 0);
	KUNIT_EXPECT_EQ(test, u->entry_func[FG_A], fg_site[FG_A]);
	KUNIT_EXPECT_EQ(test, u->return_func[FG_A], fg_site[FG_A]);
	KUNIT_EXPECT_GE(test, u->entry_depth[FG_A], 0);
	KUNIT_EXPECT_EQ(test, u->return_depth[FG_A], u->entry_depth[FG_A]);
	KUNIT_EXPECT_GT(test, u->return_seq[FG_A], u->entry_seq[FG_A]);
	KUNIT_EXPECT_NE(test, u->calltime, 0ULL);
	KUNIT_EXPECT_LE(test, u->calltime, u->rettime);
}

/* A traced call inside a traced call is one level deeper, and nests. */
static void nested_call_is_one_deeper(struct kunit *test)
{
	struct fg_user *u;

	fg_skip_without_outer(test);
	u = fg_user_new(test, BIT(FG_OUTER) | BIT(FG_B));
	KUNIT_ASSERT_EQ(test, fg_register(u), 0);
#ifdef FTRACE_KUNIT_OUTER_ADD
	KUNIT_EXPECT_EQ(test, fg_call_outer(FG_ARG),
			FG_ARG + FTRACE_KUNIT_B_ADD + FTRACE_KUNIT_OUTER_ADD);
#endif
	fg_unregister(u);

	KUNIT_ASSERT_EQ(test, atomic_read(&u->entries[FG_OUTER]), 1);
	KUNIT_ASSERT_EQ(test, atomic_read(&u->entries[FG_B]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->returns[FG_OUTER]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->returns[FG_B]), 1);
	KUNIT_EXPECT_EQ(test, u->entry_depth[FG_B], u->entry_depth[FG_OUTER] + 1);
	/* The frame below B's is the outer call's. */
	KUNIT_EXPECT_EQ(test, u->parent_func[FG_B], fg_site[FG_OUTER]);
	KUNIT_EXPECT_EQ(test, u->return_depth[FG_B], u->entry_depth[FG_B]);
	KUNIT_EXPECT_EQ(test, u->return_depth[FG_OUTER], u->entry_depth[FG_OUTER]);
	/* outer enters, B enters, B returns, outer returns. */
	KUNIT_EXPECT_LT(test, u->entry_seq[FG_OUTER], u->entry_seq[FG_B]);
	KUNIT_EXPECT_LT(test, u->entry_seq[FG_B], u->return_seq[FG_B]);
	KUNIT_EXPECT_LT(test, u->return_seq[FG_B], u->return_seq[FG_OUTER]);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->foreign), 0);
}

static void two_users_on_one_function(struct kunit *test)
{
	struct fg_user *u1 = fg_user_new(test, BIT(FG_A));
	struct fg_user *u2 = fg_user_new(test, BIT(FG_A));
	int i;

	KUNIT_ASSERT_EQ(test, fg_register(u1), 0);
	KUNIT_ASSERT_EQ(test, fg_register(u2), 0);
	KUNIT_EXPECT_NE(test, u1->gops.idx, u2->gops.idx);
	for (i = 0; i < FG_CALLS; i++)
		fg_call_a(i);
	fg_unregister(u2);
	fg_unregister(u1);

	KUNIT_EXPECT_EQ(test, atomic_read(&u1->entries[FG_A]), FG_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&u1->returns[FG_A]), FG_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&u2->entries[FG_A]), FG_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&u2->returns[FG_A]), FG_CALLS);
	KUNIT_EXPECT_EQ(test, u1->entry_depth[FG_A], u2->entry_depth[FG_A]);
	KUNIT_EXPECT_EQ(test, u1->return_depth[FG_A], u2->return_depth[FG_A]);
}

/*
 * A user registered untimed gets no times while it is alone, and times
 * again while a timed user is registered beside it; the timed one always
 * gets them.
 */
static void untimed_user_reads_no_clock(struct kunit *test)
{
	struct fg_user *quiet = fg_user_new(test, BIT(FG_A));
	struct fg_user *timed = fg_user_new(test, BIT(FG_A));

	KUNIT_ASSERT_EQ(test, fg_register_untimed(quiet), 0);
	fg_call_a(FG_ARG);
	KUNIT_EXPECT_EQ(test, atomic_read(&quiet->returns[FG_A]), 1);
	KUNIT_EXPECT_EQ(test, quiet->calltime, 0ULL);
	KUNIT_EXPECT_EQ(test, quiet->rettime, 0ULL);

	KUNIT_ASSERT_EQ(test, fg_register(timed), 0);
	fg_call_a(FG_ARG);
	KUNIT_EXPECT_EQ(test, atomic_read(&timed->returns[FG_A]), 1);
	KUNIT_EXPECT_NE(test, timed->calltime, 0ULL);
	KUNIT_EXPECT_LE(test, timed->calltime, timed->rettime);
	fg_unregister(timed);

	fg_call_a(FG_ARG);
	fg_unregister(quiet);
	KUNIT_EXPECT_EQ(test, atomic_read(&quiet->returns[FG_A]), 3);
	KUNIT_EXPECT_EQ(test, quiet->calltime, 0ULL);
	KUNIT_EXPECT_EQ(test, quiet->rettime, 0ULL);
}

/*
 * A user alone is on exactly the sites of its filter, and its entry skips
 * the filter test; once a second user with another filter came (and even
 * after it left), each user still sees only its own functions.
 */
static void each_user_keeps_its_filter(struct kunit *test)
{
	struct fg_user *ua = fg_user_new(test, BIT(FG_A));
	struct fg_user *ub = fg_user_new(test, BIT(FG_B));

	KUNIT_ASSERT_EQ(test, fg_register(ua), 0);
	fg_call_a(FG_ARG);
	fg_call_b(FG_ARG);
	KUNIT_ASSERT_EQ(test, fg_register(ub), 0);
	fg_call_a(FG_ARG);
	fg_call_b(FG_ARG);
	fg_unregister(ub);
	fg_call_a(FG_ARG);
	fg_call_b(FG_ARG);
	fg_unregister(ua);

	KUNIT_EXPECT_EQ(test, atomic_read(&ua->entries[FG_A]), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&ua->returns[FG_A]), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&ua->entries[FG_B]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ub->entries[FG_B]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ub->returns[FG_B]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ub->entries[FG_A]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ua->foreign), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ub->foreign), 0);
}

struct fg_store_param {
	int	size1;
	int	size2;
};

static const struct fg_store_param fg_store_params[] = {
	{ 1, 2 }, { 4, 8 }, { 3, 24 }, { 17, 1 }, { FG_MAX_DATA, 5 },
	{ FG_MAX_DATA, FG_MAX_DATA },
};

static void fg_store_desc(const struct fg_store_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%d and %d bytes", p->size1, p->size2);
}

KUNIT_ARRAY_PARAM(fg_store, fg_store_params, fg_store_desc);

static void fg_expect_store(struct kunit *test, struct fg_user *u, int calls)
{
	KUNIT_EXPECT_EQ(test, atomic_read(&u->store_failed), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->second_store), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->returns[FG_A]), calls);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->data_missing), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->data_bad), 0);
	KUNIT_EXPECT_EQ(test, u->data_size,
			(int)round_up(u->store, sizeof(long)));
}

/* Each user gets its own data back at the return, whatever the sizes. */
static void data_round_trip_per_user(struct kunit *test)
{
	const struct fg_store_param *param = test->param_value;
	struct fg_user *u1 = fg_user_new(test, BIT(FG_A));
	struct fg_user *u2 = fg_user_new(test, BIT(FG_A));
	int i;

	u1->does = FG_DO_STORE;
	u1->store = param->size1;
	u1->seed = 0x11;
	u2->does = FG_DO_STORE;
	u2->store = param->size2;
	u2->seed = 0x80;

	KUNIT_ASSERT_EQ(test, fg_register(u1), 0);
	KUNIT_ASSERT_EQ(test, fg_register(u2), 0);
	for (i = 0; i < FG_CALLS; i++)
		fg_call_a(i);
	fg_unregister(u2);
	fg_unregister(u1);

	fg_expect_store(test, u1, FG_CALLS);
	fg_expect_store(test, u2, FG_CALLS);
}

static void data_limits_refused(struct kunit *test)
{
	struct fg_user *u = fg_user_new(test, BIT(FG_A));

	u->does = FG_DO_LIMITS;
	KUNIT_ASSERT_EQ(test, fg_register(u), 0);
	fg_call_a(0);
	fg_unregister(u);

	KUNIT_EXPECT_EQ(test, atomic_read(&u->returns[FG_A]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->limits_bad), 0);
	/* Outside a callback nothing can be reserved either. */
	KUNIT_EXPECT_NULL(test, fgraph_reserve_data(0, 8));
}

/*
 * An entry callback returning 0 gets no return callback, and the data it
 * reserved is dropped without disturbing a user that accepted.
 */
static void refused_entry_gets_no_return(struct kunit *test)
{
	struct fg_user *no = fg_user_new(test, BIT(FG_A));
	struct fg_user *yes = fg_user_new(test, BIT(FG_A));
	struct fg_user *no2 = fg_user_new(test, BIT(FG_A));
	int i;

	no->accept = 0;
	no->does = FG_DO_STORE;
	no->store = 40;
	no->seed = 0x33;
	yes->does = FG_DO_STORE;
	yes->store = 16;
	yes->seed = 0x44;
	no2->accept = 0;

	/* Refusals before and after the accepting user. */
	KUNIT_ASSERT_EQ(test, fg_register(no), 0);
	KUNIT_ASSERT_EQ(test, fg_register(yes), 0);
	KUNIT_ASSERT_EQ(test, fg_register(no2), 0);
	for (i = 0; i < FG_CALLS; i++)
		fg_call_a(i);
	fg_unregister(no2);
	fg_unregister(yes);
	fg_unregister(no);

	KUNIT_EXPECT_EQ(test, atomic_read(&no->entries[FG_A]), FG_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&no->returns[FG_A]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&no2->entries[FG_A]), FG_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&no2->returns[FG_A]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&yes->entries[FG_A]), FG_CALLS);
	fg_expect_store(test, yes, FG_CALLS);
}

/* When nobody accepts, the call is not hooked at all. */
static void all_refused_leaves_call_alone(struct kunit *test)
{
	struct fg_user *u = fg_user_new(test, BIT(FG_A));

	u->accept = 0;
	KUNIT_ASSERT_EQ(test, fg_register(u), 0);
	KUNIT_EXPECT_EQ(test, fg_call_a(FG_ARG), FG_ARG + FTRACE_KUNIT_A_ADD);
	fg_unregister(u);

	KUNIT_EXPECT_EQ(test, atomic_read(&u->entries[FG_A]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->returns[FG_A]), 0);
}

static void return_sees_return_value(struct kunit *test)
{
	struct fg_user *u = fg_user_new(test, BIT(FG_A));
	unsigned long r;

	KUNIT_ASSERT_EQ(test, fg_register(u), 0);
	r = fg_call_a(FG_ARG);
	fg_unregister(u);

	KUNIT_EXPECT_EQ(test, r, FG_ARG + FTRACE_KUNIT_A_ADD);
	KUNIT_ASSERT_EQ(test, atomic_read(&u->returns[FG_A]), 1);
	KUNIT_EXPECT_EQ(test, u->retval[FG_A], r);
}

/*
 * The frame names the call and its caller; at the return the unwinder's
 * lookup maps return_to_handler in the frame's slot back to the caller.
 */
static void frame_and_ret_addr(struct kunit *test)
{
	unsigned long handler = (unsigned long)return_to_handler;
	struct fg_user *u = fg_user_new(test, BIT(FG_A));

	u->does = FG_DO_FRAME;
	KUNIT_ASSERT_EQ(test, fg_register(u), 0);
	fg_call_a(0);
	fg_unregister(u);

	KUNIT_ASSERT_EQ(test, atomic_read(&u->returns[FG_A]), 1);
	KUNIT_EXPECT_EQ(test, u->frame_func, fg_site[FG_A]);
	KUNIT_EXPECT_TRUE_MSG(test, fg_addr_in(u->frame_ret, fg_call_a),
			      "saved return address %pS", (void *)u->frame_ret);
	KUNIT_EXPECT_TRUE(test, u->frame_key_ok);
	KUNIT_EXPECT_EQ(test, u->frame_slot, u->frame_ret);
	KUNIT_EXPECT_EQ(test, u->frame_func_at_return, fg_site[FG_A]);
	KUNIT_EXPECT_EQ(test, u->mapped, u->frame_ret);
	KUNIT_EXPECT_EQ(test, u->unmapped_other, FG_ARG);
	KUNIT_EXPECT_EQ(test, u->unmapped_bad_retp, handler);
}

/*
 * A stack trace taken inside a nested traced call shows the real caller
 * of the outer call, not return_to_handler (the unwinder asks fgraph).
 */
static void stack_walk_sees_real_caller(struct kunit *test)
{
	unsigned long handler = (unsigned long)return_to_handler;
	bool caller_seen = false;
	struct fg_user *u;
	unsigned int i;

	fg_skip_without_outer(test);
	u = fg_user_new(test, BIT(FG_OUTER) | BIT(FG_B));
	u->does = FG_DO_WALK;
	KUNIT_ASSERT_EQ(test, fg_register(u), 0);
#ifdef FTRACE_KUNIT_OUTER_ADD
	fg_call_outer(0);
#endif
	fg_unregister(u);

	KUNIT_ASSERT_EQ(test, atomic_read(&u->entries[FG_B]), 1);
	KUNIT_ASSERT_GT(test, u->walk_nr, 0U);
	for (i = 0; i < u->walk_nr; i++) {
		KUNIT_EXPECT_NE_MSG(test, u->walk[i], handler,
				    "entry %u of the trace", i);
#ifdef FTRACE_KUNIT_OUTER_ADD
		if (fg_addr_in(u->walk[i], fg_call_outer))
			caller_seen = true;
#endif
	}
	KUNIT_EXPECT_TRUE_MSG(test, caller_seen,
			      "the unwinder did not get back to the outer call's caller");
}

static void no_callback_after_unregister(struct kunit *test)
{
	struct fg_user *u = fg_user_new(test, BIT(FG_A));
	int i;

	KUNIT_ASSERT_EQ(test, fg_register(u), 0);
	fg_call_a(0);
	fg_unregister(u);
	for (i = 0; i < FG_CALLS; i++)
		fg_call_a(i);

	KUNIT_EXPECT_EQ(test, atomic_read(&u->entries[FG_A]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->returns[FG_A]), 1);

	/* And it works again after registering anew. */
	KUNIT_ASSERT_EQ(test, fg_register(u), 0);
	fg_call_a(0);
	fg_unregister(u);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->entries[FG_A]), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->returns[FG_A]), 2);
}

/* A thread blocked in wait_for_completion() until the case releases it. */
struct fg_sleeper {
	struct task_struct	*task;
	struct completion	release;
	bool			woke;
};

static int fg_sleeper_fn(void *arg)
{
	struct fg_sleeper *s = arg;

	wait_for_completion(&s->release);
	WRITE_ONCE(s->woke, true);
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

static void fg_sleeper_stop(void *arg)
{
	struct fg_sleeper *s = arg;

	complete(&s->release);
	kthread_stop(s->task);
	put_task_struct(s->task);
}

static struct fg_sleeper *fg_sleeper_new(struct kunit *test)
{
	struct fg_sleeper *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	init_completion(&s->release);
	s->task = kthread_create(fg_sleeper_fn, s, "fgraph_kunit");
	KUNIT_ASSERT_FALSE(test, IS_ERR(s->task));
	get_task_struct(s->task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fg_sleeper_stop, s), 0);
	return s;
}

/*
 * A call entered while its user was registered returns after the user
 * left, and after another user took the same slot: neither is called.
 */
static void frame_outlives_its_user(struct kunit *test)
{
	struct fg_user *old, *new;
	struct fg_sleeper *s;
	unsigned long deadline;

	if (!fg_site[FG_WAIT])
		kunit_skip(test, "wait_for_completion() is not traceable");
	old = fg_user_new(test, BIT(FG_WAIT));
	new = fg_user_new(test, BIT(FG_WAIT));
	s = fg_sleeper_new(test);
	old->task = s->task;
	new->task = s->task;
	KUNIT_ASSERT_EQ(test, fg_register(old), 0);
	wake_up_process(s->task);
	KUNIT_ASSERT_TRUE_MSG(test, fg_wait_atomic(&old->entries[FG_WAIT], 1),
			      "the thread never entered wait_for_completion()");

	fg_unregister(old);
	KUNIT_ASSERT_EQ(test, fg_register(new), 0);
	if (new->gops.idx != old->gops.idx)
		kunit_info(test, "slot %d not reused (other graph users?)",
			   old->gops.idx);

	complete(&s->release);
	deadline = jiffies + msecs_to_jiffies(FG_WAIT_MS);
	while (!READ_ONCE(s->woke) && time_before(jiffies, deadline))
		usleep_range(500, 1000);
	KUNIT_ASSERT_TRUE_MSG(test, READ_ONCE(s->woke), "the thread did not return");
	fg_unregister(new);

	KUNIT_EXPECT_EQ(test, atomic_read(&old->returns[FG_WAIT]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&new->entries[FG_WAIT]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&new->returns[FG_WAIT]), 0);
}

/* Sixteen users at once; the seventeenth is refused with -ENOSPC. */
static void seventeenth_user_refused(struct kunit *test)
{
	struct fg_user *u[FG_MAX_USERS + 1];
	int others = READ_ONCE(ftrace_graph_active);
	int i, n, ret = 0;

	for (n = 0; n <= FG_MAX_USERS; n++) {
		u[n] = fg_user_new(test, BIT(FG_A));
		ret = fg_register(u[n]);
		if (ret)
			break;
	}
	KUNIT_EXPECT_EQ(test, ret, -ENOSPC);
	KUNIT_EXPECT_EQ(test, n, FG_MAX_USERS - others);

	fg_call_a(0);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&u[i]->entries[FG_A]), 1,
				    "user %d", i);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&u[i]->returns[FG_A]), 1,
				    "user %d", i);
	}

	/* One slot free again: the refused user gets in. */
	if (n > 0 && ret == -ENOSPC) {
		fg_unregister(u[0]);
		KUNIT_EXPECT_EQ(test, fg_register(u[n]), 0);
	}
}

/*
 * Sixteen users reserving the most they may on one call: that is more
 * than the shadow stack (one page) holds.  The first users get their
 * data, the rest are refused (and, refusing the call, get no return);
 * nobody's data is damaged.
 */
static void full_stack_refuses_reservation(struct kunit *test)
{
	struct fg_user *u[FG_MAX_USERS];
	int n, stored = 0;

	if (READ_ONCE(ftrace_graph_active))
		kunit_skip(test, "other graph users are registered");
	for (n = 0; n < FG_MAX_USERS; n++) {
		u[n] = fg_user_new(test, BIT(FG_A));
		u[n]->does = FG_DO_STORE;
		u[n]->store = FG_MAX_DATA;
		u[n]->seed = n * 16;
		KUNIT_ASSERT_EQ(test, fg_register(u[n]), 0);
	}
	fg_call_a(0);

	for (n = 0; n < FG_MAX_USERS; n++) {
		if (atomic_read(&u[n]->store_failed))
			break;
		fg_expect_store(test, u[n], 1);
		stored++;
	}
	for (; n < FG_MAX_USERS; n++) {
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&u[n]->store_failed), 1,
				    "user %d stored after a refusal", n);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&u[n]->returns[FG_A]), 0,
				    "user %d", n);
	}
	KUNIT_EXPECT_LT(test, stored, FG_MAX_USERS);
	KUNIT_EXPECT_GE(test, stored, FG_MAX_USERS * 3 / 4);
}

/* Each user has its own task word, zero when it registers. */
static void task_var_per_user(struct kunit *test)
{
	struct fg_user *u1 = fg_user_new(test, BIT(FG_A));
	struct fg_user *u2 = fg_user_new(test, BIT(FG_A));

	u1->seed = 0x5a;
	u2->seed = 0xa5;
	KUNIT_ASSERT_EQ(test, fg_register(u1), 0);
	KUNIT_ASSERT_EQ(test, fg_register(u2), 0);

	fg_call_a(0);
	KUNIT_EXPECT_EQ(test, u1->var_at_entry, 0UL);
	KUNIT_EXPECT_EQ(test, u2->var_at_entry, 0UL);
	KUNIT_EXPECT_EQ(test, u1->var_at_return, 0x5aUL);
	KUNIT_EXPECT_EQ(test, u2->var_at_return, 0xa5UL);

	fg_call_a(0);
	KUNIT_EXPECT_EQ(test, u1->var_at_entry, 0x5aUL);
	KUNIT_EXPECT_EQ(test, u2->var_at_entry, 0xa5UL);

	/* A new registration starts from zero again. */
	fg_unregister(u1);
	KUNIT_ASSERT_EQ(test, fg_register(u1), 0);
	fg_call_a(0);
	KUNIT_EXPECT_EQ(test, u1->var_at_entry, 0UL);
	KUNIT_EXPECT_EQ(test, u2->var_at_entry, 0xa5UL);
	fg_unregister(u2);
	fg_unregister(u1);
}

static void double_register_refused(struct kunit *test)
{
	struct fg_user *u = fg_user_new(test, BIT(FG_A));

	KUNIT_ASSERT_EQ(test, fg_register(u), 0);
	KUNIT_EXPECT_EQ(test, register_ftrace_graph(&u->gops), -EBUSY);
	fg_call_a(0);
	fg_unregister(u);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->entries[FG_A]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->returns[FG_A]), 1);

	/* Unregistering again is harmless. */
	fg_unregister(u);
}

/* ---- direct users ------------------------------------------------------ */

#define FGD_WORDS	3
#define FGD_MAGIC	0xd1ec7000UL

static struct fg_direct {
	struct fgraph_ops	gops;
	struct ftrace_ops	ops;
	bool			registered;
	struct task_struct	*task;
	bool			hook;		/* hook the return, or drop */
	atomic_t		pushes;
	atomic_t		push_failed;
	atomic_t		returns;
	atomic_t		bad_words;
	atomic_t		bad_data;
	int			depth_before;	/* curr_ret_depth around the push */
	int			depth_after;
	int			depth_at_return;
	unsigned long		func;
	unsigned long		ret_ip;		/* fregs' ip at the return */
	unsigned long		retval;
} fg_direct;

static void notrace fg_direct_entry(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op,
				    struct ftrace_regs *fregs)
{
	struct fg_direct *d = &fg_direct;
	unsigned long *data;
	int i;

	if (current != d->task)
		return;
	preempt_disable_notrace();
	d->depth_before = current->curr_ret_depth;
	data = fgraph_direct_push(&d->gops, ip, fregs, FGD_WORDS);
	if (!data) {
		atomic_inc(&d->push_failed);
		goto out;
	}
	atomic_inc(&d->pushes);
	d->depth_after = current->curr_ret_depth;
	for (i = 0; i < FGD_WORDS; i++)
		data[i] = FGD_MAGIC + i;
	fgraph_direct_done(fregs, d->hook);
out:
	preempt_enable_notrace();
}

static void notrace fg_direct_return(unsigned long func, unsigned long *data,
				     unsigned int words,
				     struct ftrace_regs *fregs)
{
	struct fg_direct *d = &fg_direct;
	unsigned int i;

	if (current != d->task)
		return;
	atomic_inc(&d->returns);
	d->func = func;
	d->ret_ip = ftrace_regs_get_instruction_pointer(fregs);
	d->retval = ftrace_regs_get_return_value(fregs);
	d->depth_at_return = current->curr_ret_depth;
	if (words != FGD_WORDS) {
		atomic_inc(&d->bad_words);
		return;
	}
	for (i = 0; i < words; i++)
		if (data[i] != FGD_MAGIC + i)
			atomic_inc(&d->bad_data);
}

static void fg_direct_stop(struct fg_direct *d)
{
	if (!d->registered)
		return;
	unregister_ftrace_function(&d->ops);
	unregister_ftrace_graph(&d->gops);
	d->registered = false;
}

static void fg_direct_release(void *arg)
{
	struct fg_direct *d = arg;

	fg_direct_stop(d);
	ftrace_free_filter(&d->ops);
}

/* Register fg_direct on target A: the direct user first, then its ops. */
static struct fg_direct *fg_direct_start(struct kunit *test, bool hook)
{
	struct fg_direct *d = &fg_direct;
	int ret;

	memset(d, 0, sizeof(*d));
	d->task = current;
	d->hook = hook;
	d->ops.func = fg_direct_entry;
	d->ops.flags = FTRACE_OPS_FL_SAVE_ARGS;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fg_direct_release, d), 0);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&d->ops, fg_site[FG_A], 0, 0), 0);
	KUNIT_ASSERT_EQ(test, register_fgraph_direct(&d->gops, fg_direct_return), 0);
	ret = register_ftrace_function(&d->ops);
	if (ret)
		unregister_ftrace_graph(&d->gops);
	KUNIT_ASSERT_EQ(test, ret, 0);
	d->registered = true;
	return d;
}

/*
 * A direct frame: the data comes back unchanged with the call site, the
 * real return address and the return value; the frame is not a depth.
 */
static void direct_frame_round_trip(struct kunit *test)
{
	struct fg_direct *d = fg_direct_start(test, true);
	unsigned long r = 0;
	int i;

	for (i = 0; i < FG_CALLS; i++)
		r = fg_call_a(FG_ARG);
	fg_direct_stop(d);

	KUNIT_EXPECT_EQ(test, r, FG_ARG + FTRACE_KUNIT_A_ADD);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->pushes), FG_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->returns), FG_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->bad_words), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->bad_data), 0);
	KUNIT_EXPECT_EQ(test, d->func, fg_site[FG_A]);
	KUNIT_EXPECT_TRUE_MSG(test, fg_addr_in(d->ret_ip, fg_call_a),
			      "return address %pS", (void *)d->ret_ip);
	KUNIT_EXPECT_EQ(test, d->retval, r);
	KUNIT_EXPECT_EQ(test, d->depth_after, d->depth_before);
	KUNIT_EXPECT_EQ(test, d->depth_at_return, d->depth_before);

	/* Gone: no frame is pushed for it any more (nor the frame read). */
	KUNIT_EXPECT_NULL(test, fgraph_direct_push(&d->gops, fg_site[FG_A],
						   NULL, 1));
}

/* A dropped frame leaves the stack as it was and calls nobody back. */
static void direct_frame_dropped(struct kunit *test)
{
	struct fg_direct *d = fg_direct_start(test, false);
	int before = current->curr_ret_stack;
	unsigned long r;

	r = fg_call_a(FG_ARG);
	KUNIT_EXPECT_EQ(test, current->curr_ret_stack, before);
	fg_direct_stop(d);

	KUNIT_EXPECT_EQ(test, r, FG_ARG + FTRACE_KUNIT_A_ADD);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->pushes), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->returns), 0);
}

/*
 * A direct frame and a managed user's frame on one call: both return
 * callbacks run once, the direct one gets the real return address (not
 * the other hook's return_to_handler), the managed user's depths match.
 */
static void direct_and_managed_on_one_call(struct kunit *test)
{
	struct fg_user *u = fg_user_new(test, BIT(FG_A));
	struct fg_direct *d;
	unsigned long r;

	KUNIT_ASSERT_EQ(test, fg_register(u), 0);
	d = fg_direct_start(test, true);
	r = fg_call_a(FG_ARG);
	fg_direct_stop(d);
	fg_call_a(FG_ARG);
	fg_unregister(u);

	KUNIT_EXPECT_EQ(test, r, FG_ARG + FTRACE_KUNIT_A_ADD);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->returns), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->bad_data), 0);
	KUNIT_EXPECT_TRUE_MSG(test, fg_addr_in(d->ret_ip, fg_call_a),
			      "return address %pS", (void *)d->ret_ip);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->entries[FG_A]), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->returns[FG_A]), 2);
	KUNIT_EXPECT_EQ(test, u->return_depth[FG_A], u->entry_depth[FG_A]);
	KUNIT_EXPECT_EQ(test, u->retval[FG_A], r);
}

static int fg_init(struct kunit *test)
{
	static const unsigned long fns[FG_NR] = {
		[FG_A]		= (unsigned long)ftrace_kunit_target_a,
		[FG_B]		= (unsigned long)ftrace_kunit_target_b,
		[FG_OUTER]	= FG_OUTER_FN,
		[FG_WAIT]	= (unsigned long)wait_for_completion,
	};
	int i;

	KUNIT_ASSERT_FALSE_MSG(test, ftrace_core_dead(), "ftrace is disabled");
	KUNIT_ASSERT_FALSE_MSG(test, ftrace_graph_is_dead(),
			       "function graph tracing was stopped");
	for (i = 0; i < FG_NR; i++)
		fg_site[i] = fns[i] ? ftrace_location(fns[i]) : 0;
	KUNIT_ASSERT_NE(test, fg_site[FG_A], 0UL);
	KUNIT_ASSERT_NE(test, fg_site[FG_B], 0UL);
	return 0;
}

static struct kunit_case fgraph_cases[] = {
	KUNIT_CASE(entry_and_return_once_per_call),
	KUNIT_CASE(nested_call_is_one_deeper),
	KUNIT_CASE(two_users_on_one_function),
	KUNIT_CASE(untimed_user_reads_no_clock),
	KUNIT_CASE(each_user_keeps_its_filter),
	KUNIT_CASE_PARAM(data_round_trip_per_user, fg_store_gen_params),
	KUNIT_CASE(data_limits_refused),
	KUNIT_CASE(refused_entry_gets_no_return),
	KUNIT_CASE(all_refused_leaves_call_alone),
	KUNIT_CASE(return_sees_return_value),
	KUNIT_CASE(frame_and_ret_addr),
	KUNIT_CASE(stack_walk_sees_real_caller),
	KUNIT_CASE(no_callback_after_unregister),
	KUNIT_CASE(frame_outlives_its_user),
	KUNIT_CASE(seventeenth_user_refused),
	KUNIT_CASE(full_stack_refuses_reservation),
	KUNIT_CASE(task_var_per_user),
	KUNIT_CASE(double_register_refused),
	KUNIT_CASE(direct_frame_round_trip),
	KUNIT_CASE(direct_frame_dropped),
	KUNIT_CASE(direct_and_managed_on_one_call),
	{}
};

static struct kunit_suite fgraph_suite = {
	.name = "fgraph",
	.init = fg_init,
	.test_cases = fgraph_cases,
};

kunit_test_suite(fgraph_suite);
