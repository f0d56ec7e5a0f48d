// SPDX-License-Identifier: GPL-2.0
/*
 * Uprobe events: the trace event side.  What the event core and perf call
 * on a uprobe event through its class (trace_event_class::reg): enabling
 * and disabling, which arm and disarm the event's probes in the uprobes
 * core, and perf's open and close, which apply the perf process filter;
 * and the event's fields and output.
 *
 * Locks: the reg callback (enable, disable, perf open and close) and
 * define_fields run with event_mutex held (the event core and perf take
 * it); the output callback runs wherever the trace is read, under no lock
 * of this layer.  An event serves either trace instances or perf, never
 * both at once.  Disarming ends in uprobe_unregister_sync(), after which
 * no handler runs on the event's probes; the scratch areas are released
 * only then (perf's close of a local probe drains its handlers instead:
 * see below).  See trace_uprobe.h for the layer's other rules.
 *
 * Batched disables.  When one write disables many events (an "enable"
 * file, set_event), the event core brackets its loop with
 * trace_event_batch_begin() and _end().  Inside such a batch a disable
 * leaves three things pending: the unregistration of its consumers (their
 * events no longer record, see trace_uprobe.h), the
 * uprobe_unregister_sync() and the scratch-area references the disabled
 * events held.  uprobe_event_settle() does all three, in that order: the
 * consumers in one uprobe_unregister_batch_nosync(), which walks each file's
 * mappings once and restores a text page in one copy, then one wait.  It
 * runs
 *  - at the end of the batch (the core's ->end() callback), before the
 *    write returns, so a write that returns has no handler of an event it
 *    disabled still running, as if each had been disabled alone;
 *  - before any consumer is registered again (trace_uprobe_arm()): a
 *    consumer put back on a uprobe's list while a handler may still walk
 *    its old place would send that walker along the new list;
 *  - before a trace_uprobe is freed (trace_uprobe_unregister()).
 * The pending state is guarded by event_mutex, which the whole batch
 * holds, so outside a batch nothing is ever pending.
 *
 * Batched enables.  Inside a batch, the enable of an event by a trace
 * instance claims the event and takes its scratch-area reference as
 * usual, but only queues its probes (trace_uprobe::arm_node); the end of
 * the batch settles the disables first and then arms the whole queue,
 * with one uprobe_register_batch() per probed file: one walk of that
 * file's mappings instead of one per probe.  Until then the event records
 * nothing, as its probes are not registered.  An event disabled again in
 * the same batch takes its probes off the queue.  When a file's batch
 * fails (it is all or nothing), its probes are armed one by one, and an
 * event with a probe that cannot be armed is disabled again in every
 * instance through the event core, with an error_log entry naming it;
 * the write returns the first such error, as it would have returned the
 * reg callback's.  Perf, and a file in soft mode (its triggers keep the
 * event registered, so the event core could not undo it at the end), arm
 * at once, taking off the queue whatever probes of the event an earlier
 * enable of the batch queued.
 *
 * Perf's close.  A perf disable first drains the event's perf handlers:
 * it clears TP_FLAG_PROFILE and sleeps until every hit counted in the perf
 * part of a hit has left (uprobe_perf_drain(); the pairing is described in
 * trace_uprobe.h).  After that no handler of the event reads perf's
 * per-CPU lists, perf's buffers, the BPF programs or the scratch areas.
 * For an event of the trace event list nothing else changes: its
 * consumers are unregistered and waited for as before.  A local probe of
 * perf's uprobe PMU (TRACE_EVENT_FL_PERF_DRAINS, set by
 * create_local_trace_uprobe()) has one perf user and is freed right after
 * its close, so it skips the wait: its consumer is unregistered without
 * one, its scratch-area reference is dropped at once, perf does not wait
 * either (trace_event_perf.c), and the probe object, which a handler late
 * in the uprobes core's list walk may still read, is freed after a wait
 * shared by many closes (trace_uprobe_free_deferred()).
 */
#include <linux/dcache.h>
#include <linux/export.h>
#include <linux/sort.h>
#include <linux/uprobe_batch.h>
#include <linux/uprobes.h>
#include <linux/wait_bit.h>
#include <kunit/visibility.h>

#include "trace_uprobe.h"

/* The primary probe of a uprobe event, or NULL (and a warning). */
struct trace_uprobe *tu_of_call(struct trace_event_call *call)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (WARN_ON_ONCE(!tp))
		return NULL;
	return container_of(tp, struct trace_uprobe, tp);
}

/* ---- Arming probes in the uprobes core; enable and disable ---- */

/* A consumer that a disable inside an event batch left registered. */
struct uprobe_unreg {
	struct uprobe		*uprobe;
	struct uprobe_consumer	*uc;
};

/*
 * What disables inside an event batch left for its end (event_mutex).
 * @sync: a consumer was unregistered without uprobe_unregister_sync(), or
 *	is in @unregs.
 * @scratch_puts: scratch-area references to drop once that wait is done.
 * @unregs, @nr_unregs, @cap_unregs: consumers still to unregister; each
 *	trace_uprobe stays allocated until the batch settles.
 */
static struct {
	bool			sync;
	unsigned int		scratch_puts;
	struct uprobe_unreg	*unregs;
	unsigned int		nr_unregs, cap_unregs;
} uprobe_pending;

static struct uprobe *uprobe_unreg_get(void *ctx, unsigned int i,
				       struct uprobe_consumer **uc)
{
	struct uprobe_unreg *unregs = ctx;

	*uc = unregs[i].uc;
	return unregs[i].uprobe;
}

/*
 * Queue @uprobe's consumer @uc for the batch's end.  Returns false when
 * the queue cannot grow; the caller then unregisters it at once.
 */
static bool uprobe_unreg_queue(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	if (uprobe_pending.nr_unregs == uprobe_pending.cap_unregs) {
		unsigned int cap = max(64U, uprobe_pending.cap_unregs * 2);
		struct uprobe_unreg *n;

		n = kvrealloc(uprobe_pending.unregs, cap * sizeof(*n),
			      GFP_KERNEL_ACCOUNT);
		if (!n)
			return false;
		uprobe_pending.unregs = n;
		uprobe_pending.cap_unregs = cap;
	}
	uprobe_pending.unregs[uprobe_pending.nr_unregs++] =
		(struct uprobe_unreg){ .uprobe = uprobe, .uc = uc };
	return true;
}

/**
 * uprobe_event_settle - finish the detaches an event batch left pending
 *
 * Waits for the handlers of every consumer unregistered without a wait,
 * then drops the scratch-area references their events held.  Does nothing
 * when nothing is pending.
 *
 * Context: event_mutex held; may sleep.
 */
void uprobe_event_settle(void)
{
	lockdep_assert_held(&event_mutex);
	if (uprobe_pending.nr_unregs) {
		uprobe_unregister_batch_nosync(uprobe_pending.nr_unregs,
					       uprobe_unreg_get,
					       uprobe_pending.unregs);
		uprobe_pending.nr_unregs = 0;
	}
	if (uprobe_pending.cap_unregs > 64) {
		/* a large batch does not keep its queue */
		kvfree(uprobe_pending.unregs);
		uprobe_pending.unregs = NULL;
		uprobe_pending.cap_unregs = 0;
	}
	if (uprobe_pending.sync) {
		uprobe_unregister_sync();
		uprobe_pending.sync = false;
	}
	for (; uprobe_pending.scratch_puts; uprobe_pending.scratch_puts--)
		uprobe_scratch_put();
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * uprobe_event_pending - what event batches have left pending so far
 * @sync: set to whether a uprobe_unregister_sync() is pending
 *
 * For the KUnit suite only (nothing else reads the pending state).
 * Context: event_mutex held.
 * Return: the scratch-area references waiting to be dropped.
 */
unsigned int uprobe_event_pending(bool *sync)
{
	lockdep_assert_held(&event_mutex);
	*sync = uprobe_pending.sync;
	return uprobe_pending.scratch_puts;
}
EXPORT_SYMBOL_IF_KUNIT(uprobe_event_pending);
#endif

/* Probes whose events were enabled inside the batch (event_mutex). */
static LIST_HEAD(uprobe_arm_queue);

static const char *uprobe_batch_errs[] = {
	"A probe could not be armed when the batch ended; event disabled again",
};

/* Register @tu's consumer, whose filter is set; nothing to settle. */
static int trace_uprobe_arm_one(struct trace_uprobe *tu)
{
	struct uprobe *uprobe;

	uprobe = uprobe_register(d_real_inode(tu->path.dentry), tu->offset,
				 tu->ref_ctr_offset, &tu->consumer);
	if (IS_ERR(uprobe))
		return PTR_ERR(uprobe);
	tu->uprobe = uprobe;
	return 0;
}

/* A queued probe and the file it probes, for sorting by file. */
struct uprobe_arm_ent {
	struct inode		*inode;
	struct trace_uprobe	*tu;
};

static int uprobe_arm_ent_cmp(const void *a, const void *b)
{
	const struct uprobe_arm_ent *x = a, *y = b;

	if (x->inode == y->inode)
		return 0;
	return x->inode < y->inode ? -1 : 1;
}

static void uprobe_arm_ent_get(void *ctx, unsigned int i,
			       struct uprobe_batch_reg *reg)
{
	struct trace_uprobe *tu = ((struct uprobe_arm_ent *)ctx)[i].tu;

	reg->offset = tu->offset;
	reg->ref_ctr_offset = tu->ref_ctr_offset;
	reg->uc = &tu->consumer;
	reg->uprobe = &tu->uprobe;
}

/*
 * Arm the probes on @queue with one batch per probed file, taking each
 * armed probe off @queue; what is left could not be armed that way.
 */
static void uprobe_arm_by_file(struct list_head *queue)
{
	struct uprobe_arm_ent *ents;
	struct trace_uprobe *tu;
	unsigned int n = 0, i, j, k;

	list_for_each_entry(tu, queue, arm_node)
		n++;
	ents = kvmalloc_array(n, sizeof(*ents), GFP_KERNEL_ACCOUNT);
	if (!ents)
		return;		/* armed one by one, without the array */
	i = 0;
	list_for_each_entry(tu, queue, arm_node)
		ents[i++] = (struct uprobe_arm_ent){
			.inode = d_real_inode(tu->path.dentry), .tu = tu,
		};
	sort(ents, n, sizeof(*ents), uprobe_arm_ent_cmp, NULL);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && ents[j].inode == ents[i].inode; j++)
			;
		if (uprobe_register_batch(ents[i].inode, j - i,
					  uprobe_arm_ent_get, &ents[i]))
			continue;
		for (k = i; k < j; k++)
			list_del_init(&ents[k].tu->arm_node);
		cond_resched();
	}
	kvfree(ents);
}

/*
 * Undo the enable of the event of @tp, one of whose probes could not be
 * armed at the end of a batch: disable it in each instance that enabled
 * it, as the event core would have had the reg callback failed.  The
 * last of those disables disarms the probes that were armed and waits.
 * No such instance is in soft mode (a soft-mode file arms at once), and
 * perf, which never enables inside a batch, is no user of the event.
 */
static void uprobe_event_arm_failed(struct trace_probe *tp)
{
	trace_probe_disable_files(tp, "trace_uprobe", uprobe_batch_errs);
	/* Only a soft-mode file, which arms at once, could keep it. */
	WARN_ON_ONCE(trace_probe_is_enabled(tp));
}

/*
 * Arm what the batch's enables queued: by file, then whatever a failed
 * batch left, one by one.  Returns 0, or the first error of a probe that
 * could not be armed, whose event was disabled again.
 */
static int uprobe_arm_queued(void)
{
	struct trace_uprobe *tu, *next;
	LIST_HEAD(queue);
	LIST_HEAD(failed);
	int err, ret = 0;

	if (list_empty(&uprobe_arm_queue))
		return 0;
	list_splice_init(&uprobe_arm_queue, &queue);
	uprobe_arm_by_file(&queue);

	list_for_each_entry_safe(tu, next, &queue, arm_node) {
		list_del_init(&tu->arm_node);
		err = trace_uprobe_arm_one(tu);
		if (!err)
			continue;
		if (!ret)
			ret = err;
		list_add_tail(&tu->arm_node, &failed);
	}
	/*
	 * Undoing an event takes its other failed probes off @failed (the
	 * disable's disarm does), so take one entry at a time.
	 */
	while (!list_empty(&failed)) {
		tu = list_first_entry(&failed, struct trace_uprobe, arm_node);
		list_del_init(&tu->arm_node);
		if (trace_probe_is_enabled(&tu->tp))
			uprobe_event_arm_failed(&tu->tp);
	}
	return ret;
}

/*
 * The end of an event batch: the disables' waits first, so that no
 * consumer goes back on a uprobe's list while a handler may still walk
 * its old place; then the enables' arming.
 */
static int uprobe_event_batch_end(void)
{
	uprobe_event_settle();
	return uprobe_arm_queued();
}

static struct trace_event_batch_ops uprobe_batch_ops = {
	.end	= uprobe_event_batch_end,
};

/* Called once, by the layer's initcall. */
void uprobe_event_batch_init(void)
{
	trace_event_batch_register(&uprobe_batch_ops);
}

/*
 * Register @tu's consumer.  Called with event_mutex held; settles first,
 * as the consumer may have been unregistered in this batch.
 */
int trace_uprobe_arm(struct trace_uprobe *tu, uprobe_filter_fn filter)
{
	uprobe_event_settle();
	tu->consumer.filter = filter;
	return trace_uprobe_arm_one(tu);
}

/*
 * Start detaching @tu; its handlers may still be running until the next
 * uprobe_unregister_sync().  Inside an event batch its consumer is only
 * queued for uprobe_event_settle().  A probe queued to be armed at the
 * end of the batch only leaves the queue.  Returns false if @tu was not
 * armed.
 */
static bool trace_uprobe_disarm_nosync(struct trace_uprobe *tu)
{
	if (!list_empty(&tu->arm_node)) {
		list_del_init(&tu->arm_node);
		return false;
	}
	if (!tu->uprobe)
		return false;
	if (!trace_event_batching() ||
	    !uprobe_unreg_queue(tu->uprobe, &tu->consumer))
		uprobe_unregister_nosync(tu->uprobe, &tu->consumer);
	tu->uprobe = NULL;
	return true;
}

/*
 * Detach every armed probe of the event and give back the event's
 * scratch-area reference.  Alone, one wait covers all its probes and the
 * reference goes after it; inside an event batch both are left to
 * uprobe_event_settle().
 */
static void uprobe_event_disarm_put(struct trace_probe *tp)
{
	struct trace_uprobe *tu;
	bool detached = false;

	list_for_each_entry(tu, trace_probe_probe_list(tp), tp.list)
		detached |= trace_uprobe_disarm_nosync(tu);

	if (trace_event_batching()) {
		uprobe_pending.sync |= detached;
		uprobe_pending.scratch_puts++;
		return;
	}
	if (detached)
		uprobe_unregister_sync();
	uprobe_scratch_put();
}

/*
 * Arm every probe of the event not armed yet, taking it off the batch's
 * queue if an earlier enable put it there; stops at the first failure.
 */
static int uprobe_event_arm(struct trace_probe *tp)
{
	uprobe_filter_fn filter = uprobe_event_filter(tp);
	struct trace_uprobe *tu;
	int ret = 0;

	list_for_each_entry(tu, trace_probe_probe_list(tp), tp.list) {
		if (tu->uprobe)
			continue;
		list_del_init(&tu->arm_node);
		ret = trace_uprobe_arm(tu, filter);
		if (ret)
			break;
	}
	return ret;
}

/* Queue every probe of the event to be armed at the batch's end. */
static void uprobe_event_queue(struct trace_probe *tp)
{
	uprobe_filter_fn filter = uprobe_event_filter(tp);
	struct trace_uprobe *tu;

	list_for_each_entry(tu, trace_probe_probe_list(tp), tp.list) {
		if (tu->uprobe || !list_empty(&tu->arm_node))
			continue;
		tu->consumer.filter = filter;
		list_add_tail(&tu->arm_node, &uprobe_arm_queue);
	}
}

/*
 * Record who uses the event: an ftrace instance (@file) or perf (NULL).
 * The two filter processes differently, so an event serves one at a time.
 */
static int uprobe_event_claim(struct trace_probe *tp,
			      struct trace_event_file *file)
{
	if (file) {
		if (trace_probe_test_flag(tp, TP_FLAG_PROFILE))
			return -EINTR;
		return trace_probe_add_file(tp, file);
	}
	if (trace_probe_test_flag(tp, TP_FLAG_TRACE))
		return -EINTR;
	trace_probe_set_flag(tp, TP_FLAG_PROFILE);
	return 0;
}

static void uprobe_event_unclaim(struct trace_probe *tp,
				 struct trace_event_file *file)
{
	if (file)
		trace_probe_remove_file(tp, file);
	else
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
}

/* Called with event_mutex held. */
static int uprobe_event_enable(struct trace_event_call *call,
			       struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	bool was_enabled, defer;
	int ret;

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;

	/* Perf and soft-mode files arm now: see "Batched enables" above. */
	defer = file && !(file->flags & EVENT_FILE_FL_SOFT_MODE) &&
		trace_event_batching();
	was_enabled = trace_probe_is_enabled(tp);
	ret = uprobe_event_claim(tp, file);
	if (ret < 0)
		return ret;
	if (was_enabled) {
		/*
		 * Every probe is armed already, or queued by an earlier enable
		 * of this batch.  Queueing again skips both, and would put
		 * back on the queue a probe left out some other way.
		 */
		if (defer) {
			uprobe_event_queue(tp);
			return 0;
		}
		/* Outside a batch this finds every probe armed. */
		ret = uprobe_event_arm(tp);
		if (ret) {
			/* Left for the earlier enable's end to retry or undo. */
			if (trace_event_batching())
				uprobe_event_queue(tp);
			uprobe_event_unclaim(tp, file);
		}
		return ret;
	}

	ret = uprobe_scratch_get();
	if (ret) {
		uprobe_event_unclaim(tp, file);
		return ret;
	}
	if (defer) {
		uprobe_event_queue(tp);
		return 0;
	}
	ret = uprobe_event_arm(tp);
	if (ret) {
		/* The probes armed so far may already have fired. */
		uprobe_event_unclaim(tp, file);
		uprobe_event_disarm_put(tp);
	}
	return ret;
}

/**
 * uprobe_perf_drain - stop the perf handlers of an event and wait for them
 * @tp: the primary probe of an event enabled for perf
 *
 * Clears TP_FLAG_PROFILE, then waits until no hit of any probe of the
 * event is in its perf part.  When this returns, no handler of the event
 * touches perf's state again: one that comes later sees the flag gone
 * and leaves (uprobe_perf_enter()).  The consumers stay registered.
 *
 * Context: event_mutex held; sleeps for as long as a counted hit runs.
 */
VISIBLE_IF_KUNIT void uprobe_perf_drain(struct trace_probe *tp)
{
	struct trace_uprobe *tu;

	lockdep_assert_held(&event_mutex);
	trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	smp_mb();	/* the flag is clear before the counts are read */
	list_for_each_entry(tu, trace_probe_probe_list(tp), tp.list)
		wait_var_event(&tu->perf_busy,
			       !atomic_read_acquire(&tu->perf_busy));
}
EXPORT_SYMBOL_IF_KUNIT(uprobe_perf_drain);

/*
 * Perf's close of a local probe, its perf handlers drained: detach its
 * consumers without waiting for the handlers that may still be walking
 * the uprobes core's lists towards them.  Those read only the probe
 * object, which destroy_local_trace_uprobe() frees after such a wait,
 * and return at once, the flag being clear.  Nothing of the scratch areas
 * is in use by the event any more: its reference goes now.
 */
static void uprobe_event_disarm_drained(struct trace_probe *tp)
{
	struct trace_uprobe *tu;

	list_for_each_entry(tu, trace_probe_probe_list(tp), tp.list)
		trace_uprobe_disarm_nosync(tu);
	uprobe_scratch_put();
}

/* Called with event_mutex held. */
static void uprobe_event_disable(struct trace_event_call *call,
				 struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (WARN_ON_ONCE(!tp) || !trace_probe_is_enabled(tp))
		return;

	if (file) {
		if (trace_probe_remove_file(tp, file) < 0)
			return;
		if (trace_probe_is_enabled(tp))
			return;	/* other instances still trace it */
	} else {
		uprobe_perf_drain(tp);
		if (call->flags & TRACE_EVENT_FL_PERF_DRAINS) {
			uprobe_event_disarm_drained(tp);
			return;
		}
	}

	uprobe_event_disarm_put(tp);
}

/* Install (@add) or drop breakpoints as the perf filter now says. */
static int uprobe_event_apply(struct trace_probe *tp, bool add)
{
	struct trace_uprobe *tu;
	int ret;

	list_for_each_entry(tu, trace_probe_probe_list(tp), tp.list) {
		if (!tu->uprobe)
			continue;
		ret = uprobe_apply(tu->uprobe, &tu->consumer, add);
		if (ret)
			return ret;
	}
	return 0;
}

static int uprobe_perf_close(struct trace_event_call *call,
			     struct perf_event *event)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;
	if (uprobe_filter_remove(tp->event->filter, event))
		return 0;
	return uprobe_event_apply(tp, false);
}

static int uprobe_perf_open(struct trace_event_call *call,
			    struct perf_event *event)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	int ret;

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;
	if (uprobe_filter_add(tp->event->filter, event))
		return 0;

	ret = uprobe_event_apply(tp, true);
	if (ret)
		uprobe_perf_close(call, event);
	return ret;
}

/* trace_event_class::reg of every uprobe event. */
static int uprobe_event_reg(struct trace_event_call *call,
			    enum trace_reg type, void *data)
{
	bool by_perf = type == TRACE_REG_PERF_REGISTER ||
		       type == TRACE_REG_PERF_UNREGISTER;
	/* ftrace names its instance; perf's user is known as NULL. */
	struct trace_event_file *file = by_perf ? NULL : data;

	switch (type) {
	case TRACE_REG_REGISTER:
	case TRACE_REG_PERF_REGISTER:
		return uprobe_event_enable(call, file);
	case TRACE_REG_UNREGISTER:
	case TRACE_REG_PERF_UNREGISTER:
		uprobe_event_disable(call, file);
		return 0;
	case TRACE_REG_PERF_OPEN:
		return uprobe_perf_open(call, data);
	case TRACE_REG_PERF_CLOSE:
		return uprobe_perf_close(call, data);
	default:
		return 0;
	}
}

/* ---- The trace event: fields, output, callbacks ---- */

static int uprobe_event_define_fields(struct trace_event_call *call)
{
	static const char * const entry_names[] = { FIELD_STRING_IP };
	static const char * const return_names[] = {
		FIELD_STRING_FUNC, FIELD_STRING_RETIP,
	};
	struct trace_uprobe *tu = tu_of_call(call);
	const char * const *names;
	int i, n, ret;

	if (!tu)
		return -ENODEV;

	names = tu_is_return(tu) ? return_names : entry_names;
	n = tu_is_return(tu) ? ARRAY_SIZE(return_names) : ARRAY_SIZE(entry_names);
	for (i = 0; i < n; i++) {
		ret = trace_define_field(call, "unsigned long", names[i],
					 offsetof(struct uprobe_record, addr) +
					 i * sizeof(unsigned long),
					 sizeof(unsigned long), 0, FILTER_OTHER);
		if (ret)
			return ret;
	}
	return traceprobe_define_arg_fields(call,
					    uprobe_record_hdr_size(tu_is_return(tu)),
					    &tu->tp);
}

static enum print_line_t uprobe_print_record(struct trace_iterator *iter,
					     int flags,
					     struct trace_event *event)
{
	struct uprobe_record *rec = (struct uprobe_record *)iter->ent;
	struct trace_seq *s = &iter->seq;
	struct trace_uprobe *tu;
	unsigned long *args;

	tu = tu_of_call(container_of(event, struct trace_event_call, event));
	if (unlikely(!tu))
		return trace_handle_return(s);

	trace_seq_printf(s, "%s: (", trace_probe_name(&tu->tp));
	if (tu_is_return(tu)) {
		trace_seq_printf(s, "0x%lx <- 0x%lx)", rec->addr[1],
				 rec->addr[0]);
		args = &rec->addr[2];
	} else {
		trace_seq_printf(s, "0x%lx)", rec->addr[0]);
		args = &rec->addr[1];
	}

	if (trace_probe_print_args(s, tu->tp.args, tu->tp.nr_args,
				   (u8 *)args, rec) >= 0)
		trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static struct trace_event_functions uprobe_event_funcs = {
	.trace		= uprobe_print_record,
};

static struct trace_event_fields uprobe_event_fields[] = {
	{ .type = TRACE_FUNCTION_TYPE,
	  .define_fields = uprobe_event_define_fields },
	{}
};

void uprobe_event_setup_call(struct trace_uprobe *tu)
{
	struct trace_event_call *call = trace_probe_event_call(&tu->tp);

	call->event.funcs = &uprobe_event_funcs;
	call->class->fields_array = uprobe_event_fields;
	call->class->reg = uprobe_event_reg;
	/* perf lets users without CAP_SYS_ADMIN open uprobe events. */
	call->flags = TRACE_EVENT_FL_UPROBE | TRACE_EVENT_FL_CAP_ANY;
}
