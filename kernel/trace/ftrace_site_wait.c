// SPDX-License-Identifier: GPL-2.0
/*
 * How long a replaced site generation lives: the waits for its readers.
 *
 * One concept of the patch layer.  Traced code reads the current site
 * generation, its table and its sets without locks, with preemption off
 * (the dispatcher, ftrace_dispatch_find()).  A generation an update
 * replaced is therefore freed only after every online CPU passed through
 * the scheduler since it was replaced.  The update itself does not wait:
 * it puts the old generation on the retired list here
 * (ftrace_sites_retire()).  The list is freed after one wait by whoever
 * needs a wait anyway (ftrace_sites_wait_readers(), which every removal of
 * an ops that needs one calls, or a removal waiting without ftrace_lock
 * through ftrace_sites_retired_take() and ftrace_sites_wait_free()), or
 * else by a reaper a second later.  One wait serves many updates, and at
 * most SITE_RETIRED_MAX generations are kept.
 *
 * Locking: the retired list is changed under ftrace_lock.  The waits sleep;
 * ftrace_sites_wait_free() needs no lock, so removals can share one wait
 * without holding up updates.  Before the scheduler runs (boot) there is
 * one CPU and nothing in flight: nothing waits and a replaced generation
 * is freed at once.
 */
#include <linux/ftrace.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "trace.h"
#include "ftrace_records.h"
#include "ftrace_hash.h"
#include "ftrace_patch.h"

static void site_cpu_passed(struct work_struct *work)
{
}

/*
 * Nothing can be running on a generation once this returns.
 *
 * A work item queued on a CPU runs there only after the CPU left the
 * region with preemption off it may have been in (RCU watching or not),
 * so one item per online CPU, waited for, is the guarantee we need.  It
 * is what a rude RCU-tasks grace period does too, but that one comes
 * from a kthread that sleeps HZ/10 after each grace period: a removal
 * right after another one waited up to 100 ms for nothing.
 */
static void site_wait_readers(void)
{
	/* Before the scheduler runs there is one CPU and nothing in flight. */
	if (system_state == SYSTEM_BOOTING)
		return;
	/* Only fails without memory for the work items. */
	if (schedule_on_each_cpu(site_cpu_passed))
		synchronize_rcu_tasks_rude();
}

/* Replaced generations, newest first; ftrace_lock. */
static struct ftrace_site_gen *site_retired;
static unsigned int site_nr_retired;

/* A generation of every site is about a megabyte: keep only a few. */
#define SITE_RETIRED_MAX	4

static void site_gen_free_list(struct ftrace_site_gen *gen)
{
	struct ftrace_site_gen *next;

	for (; gen; gen = next) {
		next = gen->retired_next;
		ftrace_site_gen_free(gen);
	}
}

/* Everything on the list returned was replaced before this call. */
static struct ftrace_site_gen *site_retired_take(void)
{
	struct ftrace_site_gen *list = site_retired;

	site_retired = NULL;
	site_nr_retired = 0;
	return list;
}

static void site_reap_fn(struct work_struct *work)
{
	struct ftrace_site_gen *list;

	scoped_guard(mutex, &ftrace_lock)
		list = site_retired_take();
	if (list)
		ftrace_sites_wait_free(list);
}

/**
 * ftrace_sites_retired_take - take the generations replaced so far
 *
 * For a wait without ftrace_lock: hand the list to ftrace_sites_wait_free().
 *
 * Context: ftrace_lock held.
 * Return: the list (NULL if empty).
 */
struct ftrace_site_gen *ftrace_sites_retired_take(void)
{
	lockdep_assert_held(&ftrace_lock);
	return site_retired_take();
}

/**
 * ftrace_sites_wait_free - wait out the readers, free what was taken
 * @list: from ftrace_sites_retired_take(), taken before this call
 *
 * One rude wait (see ftrace_sites_wait_readers()).
 *
 * Context: process context, no ftrace lock needed; sleeps.
 */
void ftrace_sites_wait_free(struct ftrace_site_gen *list)
{
	site_wait_readers();
	site_gen_free_list(list);
}

static DECLARE_DELAYED_WORK(site_reap_work, site_reap_fn);

/**
 * ftrace_sites_wait_readers - wait out every reader of older generations
 *
 * After one rude wait (every online CPU ran a work item, as in a rude
 * RCU-tasks grace period) no CPU is still inside a region
 * with preemption off that began before the call: the dispatcher's lookup
 * and the members it calls, the arch callers' spans around the op load and
 * call (see "Removal" in ftrace.c), lookups of the trampoline list.  The
 * generations replaced before the call are freed.
 *
 * Context: ftrace_lock held; sleeps.
 */
void ftrace_sites_wait_readers(void)
{
	struct ftrace_site_gen *list;

	lockdep_assert_held(&ftrace_lock);
	list = site_retired_take();
	ftrace_sites_wait_free(list);
}

/**
 * ftrace_sites_retire - free a replaced generation once no reader is on it
 * @old: the generation the update just replaced
 *
 * Does not wait: @old joins the retired list, which the next
 * ftrace_sites_wait_readers() or, a second later, the reaper frees after
 * its wait.  The SITE_RETIRED_MAX-th generation on the list waits here.
 *
 * Context: ftrace_lock held; may sleep.
 */
void ftrace_sites_retire(struct ftrace_site_gen *old)
{
	if (system_state == SYSTEM_BOOTING) {
		ftrace_site_gen_free(old);
		return;
	}
	old->retired_next = site_retired;
	site_retired = old;
	if (++site_nr_retired >= SITE_RETIRED_MAX)
		ftrace_sites_wait_readers();
	else
		schedule_delayed_work(&site_reap_work, HZ);
}
