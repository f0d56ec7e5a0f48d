// SPDX-License-Identifier: GPL-2.0
/*
 * Uprobe events: struct trace_uprobe objects.  Allocation and freeing,
 * lookup by event name, the rules for a probe that joins an existing event
 * (same kind, same argument types, not the same probe twice, one reference
 * counter per uprobe), publishing a new event, and removal.
 *
 * Locks: lookup, joining, registration and removal run under event_mutex
 * (trace_uprobe_register() takes it; the other callers hold it).  A probe
 * of an enabled event is never removed: its handlers may be running.  A
 * probe that joins an enabled event is armed before it is listed.  A
 * local probe of perf, whose consumer went without a wait, is freed by a
 * worker after one (trace_uprobe_free_deferred()).
 */
#define pr_fmt(fmt)	"trace_uprobe: " fmt

#include <linux/dcache.h>
#include <linux/export.h>
#include <linux/llist.h>
#include <linux/path.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "trace_uprobe.h"

/*
 * @tu must be disarmed and off the dyn_event list (or never on it).  Any
 * field may still be empty: this also undoes a partial setup.
 */
void trace_uprobe_free(struct trace_uprobe *tu)
{
	path_put(&tu->path);
	trace_probe_cleanup(&tu->tp);
	kfree(tu->filename);
	free_percpu(tu->nhits);
	kfree(tu);
}

/*
 * Probes whose consumers were unregistered without a wait, to be freed
 * after one.  The worker takes every probe queued so far, waits once with
 * uprobe_unregister_sync(), which starts after each of them was queued,
 * and frees them; probes queued while it waits make the next batch.
 */
static LLIST_HEAD(trace_uprobe_reap_list);
static unsigned long trace_uprobe_reaped;	/* freed by the worker */

static void trace_uprobe_reap(struct work_struct *work)
{
	struct llist_node *batch = llist_del_all(&trace_uprobe_reap_list);
	struct trace_uprobe *tu, *next;

	if (!batch)
		return;
	uprobe_unregister_sync();
	llist_for_each_entry_safe(tu, next, batch, reap_node) {
		trace_uprobe_free(tu);
		WRITE_ONCE(trace_uprobe_reaped, trace_uprobe_reaped + 1);
	}
}

static DECLARE_WORK(trace_uprobe_reap_work, trace_uprobe_reap);

/**
 * trace_uprobe_free_deferred - free a probe once its handlers are done
 * @tu: a probe off every list, whose consumer may have been unregistered
 *	with uprobe_unregister_nosync()
 *
 * Handlers still on their way through the uprobes core's consumer list
 * may read @tu (its consumer, counters, flags and perf filter), never its
 * file: the file is let go now, so that it does not stay busy after the
 * caller returns, and the rest after a uprobe_unregister_sync().
 *
 * The uprobes core keeps uprobe->inode without a reference, and it reads
 * the inode through it only for a caller that holds the file:
 * register_for_each_vma() (register, apply and unregister, which for
 * @tu all returned before this call) and copy_insn() (a breakpoint
 * placed for a consumer that wants the mm).  What a late handler does
 * with uprobe->inode (unapply_uprobe(), valid_ref_ctr_vma(),
 * find_node_in_range(), uprobe_site_maps()) is compare it with the
 * inode of a mapping of its own address space, which that mapping pins,
 * before it reads anything; so an inode freed here is never read, and
 * one that reuses its memory is read as itself.  A base whose core reads
 * uprobe->inode any other way must put the file in the worker instead.
 *
 * Context: process; may sleep (putting the file).
 */
void trace_uprobe_free_deferred(struct trace_uprobe *tu)
{
	path_put(&tu->path);
	tu->path = (struct path){};
	if (llist_add(&tu->reap_node, &trace_uprobe_reap_list))
		queue_work(system_unbound_wq, &trace_uprobe_reap_work);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * trace_uprobe_reap_flush - free the probes queued so far
 *
 * For the KUnit suite only.  Context: process; sleeps.
 * Return: how many probes the worker has freed since boot.
 */
unsigned long trace_uprobe_reap_flush(void)
{
	flush_work(&trace_uprobe_reap_work);
	return READ_ONCE(trace_uprobe_reaped);
}
EXPORT_SYMBOL_IF_KUNIT(trace_uprobe_reap_flush);
#endif

/* A probe with its own new event, room for @nargs arguments and no site. */
struct trace_uprobe *trace_uprobe_alloc(const char *group, const char *event,
					int nargs, bool is_return)
{
	struct trace_uprobe *tu;
	int ret;

	tu = kzalloc(struct_size(tu, tp.args, nargs), GFP_KERNEL_ACCOUNT);
	if (!tu)
		return ERR_PTR(-ENOMEM);

	/* The probe and its own event (with a perf filter) come first. */
	ret = trace_probe_init(&tu->tp, event, group, true, nargs);
	if (ret < 0) {
		kfree(tu);
		return ERR_PTR(ret);
	}
	uprobe_filter_init(tu->tp.event->filter);
	dyn_event_init(&tu->devent, &trace_uprobe_ops);
	INIT_LIST_HEAD(&tu->arm_node);

	tu->consumer.handler = uprobe_dispatcher;
	if (is_return)
		tu->consumer.ret_handler = uretprobe_dispatcher;
	tu->fetch_direct = true;	/* until arguments are parsed */
	tu->bare = !is_return;

	tu->nhits = alloc_percpu(unsigned long);
	if (!tu->nhits) {
		trace_uprobe_free(tu);
		return ERR_PTR(-ENOMEM);
	}
	return tu;
}

/**
 * trace_uprobe_find - the first probe of a listed uprobe event
 * @event: event name
 * @group: group (system) name
 *
 * Context: event_mutex held.
 * Return: the probe, or NULL when no listed uprobe event has that name.
 */
struct trace_uprobe *trace_uprobe_find(const char *event, const char *group)
{
	struct trace_uprobe *tu;
	struct dyn_event *pos;

	for_each_dyn_event(pos) {
		if (!is_trace_uprobe(pos))
			continue;
		tu = to_trace_uprobe(pos);
		if (trace_probe_match_event(&tu->tp, group, event))
			return tu;
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(trace_uprobe_find);

static bool trace_uprobe_same_site(struct trace_uprobe *a,
				   struct trace_uprobe *b)
{
	return d_real_inode(a->path.dentry) == d_real_inode(b->path.dentry) &&
	       a->offset == b->offset;
}

/*
 * One uprobe (file and offset) has one reference counter: refuse a probe
 * that names another one than the probes already defined there.
 */
static int trace_uprobe_check_ref_ctr(struct trace_uprobe *tu, int caret)
{
	struct trace_uprobe *other;
	struct dyn_event *pos;

	for_each_dyn_event(pos) {
		if (!is_trace_uprobe(pos))
			continue;
		other = to_trace_uprobe(pos);
		if (trace_uprobe_same_site(tu, other) &&
		    tu->ref_ctr_offset != other->ref_ctr_offset) {
			trace_probe_log_set_index(1);
			trace_probe_log_err(caret, BAD_REFCNT);
			return -EINVAL;
		}
	}
	return 0;
}

/* True if a sibling of @event probes the same place with the same args. */
static bool trace_uprobe_duplicates(struct trace_uprobe *event,
				    struct trace_uprobe *tu)
{
	struct trace_uprobe *sib;
	int i;

	/* compare_arg_type() has matched count, names and types already. */
	list_for_each_entry(sib, trace_probe_probe_list(&event->tp), tp.list) {
		if (!trace_uprobe_same_site(sib, tu))
			continue;
		for (i = 0; i < tu->tp.nr_args; i++) {
			if (strcmp(sib->tp.args[i].comm, tu->tp.args[i].comm))
				break;
		}
		if (i == tu->tp.nr_args)
			return true;
	}
	return false;
}

/* Add @tu as a sibling of the existing event of @old. */
static int trace_uprobe_join(struct trace_uprobe *tu, struct trace_uprobe *old)
{
	struct trace_probe *tp = &tu->tp;
	int ret;

	trace_probe_log_set_index(0);
	if (tu_is_return(tu) != tu_is_return(old)) {
		trace_probe_log_err(0, DIFF_PROBE_TYPE);
		return -EEXIST;
	}
	ret = trace_probe_compare_arg_type(tp, &old->tp);
	if (ret) {
		/* @ret counts arguments from 1; they start at argv[2]. */
		trace_probe_log_set_index(ret + 1);
		trace_probe_log_err(0, DIFF_ARG_TYPE);
		return -EEXIST;
	}
	if (trace_uprobe_duplicates(old, tu)) {
		trace_probe_log_err(0, SAME_PROBE);
		return -EEXIST;
	}

	ret = trace_probe_append(tp, &old->tp);
	if (ret)
		return ret;
	/* Joining an enabled event: the new probe must fire at once. */
	if (trace_probe_is_enabled(tp)) {
		ret = trace_uprobe_arm(tu, uprobe_event_filter(tp));
		if (ret) {
			trace_probe_unlink(tp);
			trace_probe_log_set_index(1);
			trace_probe_log_err(0, FAIL_REG_PROBE);
			return ret;
		}
	}
	dyn_event_add(&tu->devent, trace_probe_event_call(tp));
	return 0;
}

static int trace_uprobe_new_event(struct trace_uprobe *tu)
{
	int ret;

	uprobe_event_setup_call(tu);
	ret = trace_probe_register_event_call(&tu->tp);
	if (ret == -EEXIST) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, EVENT_EXIST);
	} else if (ret) {
		pr_warn("cannot register event %s/%s: %d\n",
			trace_probe_group_name(&tu->tp),
			trace_probe_name(&tu->tp), ret);
	}
	if (ret)
		return ret;

	dyn_event_add(&tu->devent, trace_probe_event_call(&tu->tp));
	return 0;
}

/*
 * Publish a fully parsed @tu: as a new event, or as one more probe of the
 * event with the same name.  @ref_caret is where the reference counter
 * was written, for the error log.  On failure nothing has changed.
 */
int trace_uprobe_register(struct trace_uprobe *tu, int ref_caret)
{
	struct trace_uprobe *old;
	int ret;

	mutex_lock(&event_mutex);
	ret = trace_uprobe_check_ref_ctr(tu, ref_caret);
	if (!ret) {
		old = trace_uprobe_find(trace_probe_name(&tu->tp),
					trace_probe_group_name(&tu->tp));
		ret = old ? trace_uprobe_join(tu, old) :
			    trace_uprobe_new_event(tu);
	}
	mutex_unlock(&event_mutex);
	return ret;
}

/* Remove and free @tu.  Called with event_mutex held. */
int trace_uprobe_unregister(struct trace_uprobe *tu)
{
	struct trace_probe *tp = &tu->tp;
	int ret;

	/* An enabled probe may be inside its handlers right now. */
	if (trace_probe_is_enabled(tp))
		return -EBUSY;
	/* So may a disabled one whose wait an event batch left pending. */
	uprobe_event_settle();

	if (!trace_probe_has_sibling(tp)) {
		/* The last probe takes its event along. */
		if (trace_event_dyn_busy(trace_probe_event_call(tp)))
			return -EBUSY;
		ret = trace_probe_unregister_event_call(tp);
		if (ret)
			return ret;
	}

	dyn_event_remove(&tu->devent);
	trace_probe_unlink(tp);
	trace_uprobe_free(tu);
	return 0;
}
