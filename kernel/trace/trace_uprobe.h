/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private interface between the files of the uprobe event layer.  Nothing
 * outside them includes it, except the layer's KUnit suite.
 *
 * Files, and who calls whom.  Calls go one way: each file calls only
 * files listed above it.
 *
 *	trace_uprobe.c		the hit path: fetch stage, per-CPU scratch
 *				areas, perf process filter, trace and perf
 *				record writers, the handlers the uprobes core
 *				calls.  Calls no other file of the layer.
 *	trace_uprobe_event.c	the trace event: enable and disable (arming
 *				the probes in the uprobes core, the waits an
 *				event batch leaves pending), perf open and
 *				close, fields, output.  Calls trace_uprobe.c.
 *	trace_uprobe_objects.c	struct trace_uprobe: allocation, lookup,
 *				joining an event, registration, removal.
 *				Calls trace_uprobe_event.c and trace_uprobe.c.
 *	trace_uprobe_parse.c	definitions: PATH:OFFSET, names, arguments.
 *				Calls trace_uprobe_objects.c and trace_uprobe.c.
 *	trace_uprobe_files.c	dyn_event callbacks, uprobe_events and
 *				uprobe_profile, the initcall.  Calls
 *				trace_uprobe_parse.c, trace_uprobe_objects.c
 *				and (the initcall) trace_uprobe_event.c.
 *	trace_uprobe_perf.c	perf's uprobe PMU local probes and the BPF
 *				query.  Calls trace_uprobe_parse.c,
 *				trace_uprobe_objects.c and trace_uprobe_event.c.
 *
 * The one reference against that order is data, not a call:
 * trace_uprobe_objects.c tags every trace_uprobe with trace_uprobe_ops
 * (defined in trace_uprobe_files.c), whose callbacks the dyn_event core
 * calls.
 *
 * Locking (the rules every file follows):
 *  - event_mutex guards the dyn_event list, the sibling list of every
 *    trace_probe_event, trace_uprobe::uprobe, the consumer filter pointer,
 *    the enable state and the scratch-area user count.  Creation also runs
 *    under dyn_event_ops_mutex, which serialises the error log.
 *  - A trace_uprobe does not change once it is on the dyn_event list,
 *    except for the fields named above.  It is freed only while its event
 *    is disabled; disabling ends in uprobe_unregister_sync(), so no handler
 *    can still run on a freed trace_uprobe.  Inside an event batch (one
 *    write that disables many events) that wait is left pending until the
 *    batch ends or a consumer is armed or a probe freed, whichever comes
 *    first (uprobe_event_settle(), trace_uprobe_event.c); event_mutex is
 *    held throughout, so nobody else sees the pending state.  The same
 *    holds for an enable inside a batch, whose probes are queued on
 *    trace_uprobe::arm_node and armed together at the batch's end.
 *  - The exception: perf's close of a local probe (perf's uprobe PMU)
 *    does not wait.  Every perf disable first drains the event's perf
 *    handlers (uprobe_perf_drain(), the pairing below), after which none
 *    of them touches perf's lists, the scratch areas or perf's buffers; a
 *    local probe is then disarmed without the wait, and its object, which
 *    a late handler may still read, is freed after a later
 *    uprobe_unregister_sync() that serves many closes
 *    (trace_uprobe_free_deferred(), trace_uprobe_objects.c).  A local
 *    probe is never armed again.
 *  - Handlers read the event flags with acquire semantics and walk the
 *    event's file links under RCU.
 *  - The perf filter of an event (struct trace_uprobe_filter) is guarded by
 *    its rwlock; handlers take it for reading.
 *  - UPROBE_EVENTS depends on PERF_EVENTS, so the perf side is always built.
 */
#ifndef _KERNEL_TRACE_UPROBE_H
#define _KERNEL_TRACE_UPROBE_H

#include <linux/atomic.h>
#include <linux/llist.h>
#include <linux/path.h>
#include <linux/types.h>
#include <linux/uprobes.h>
#include <linux/wait_bit.h>

#include "trace_dynevent.h"
#include "trace_probe.h"

#define UPROBE_DEFAULT_GROUP	"uprobes"
#define UPROBE_ADDR_DIGITS	((int)(2 * sizeof(unsigned long)))

/* Room of one per-CPU scratch area; a probe's fixed part must fit below. */
#define UPROBE_SCRATCH_SIZE	PAGE_SIZE

/*
 * Layout of a record: the common header, then the probed address (entry
 * probes) or the function entry followed by the address returned to
 * (return probes), then the argument data laid out by the library.
 */
struct uprobe_record {
	struct trace_entry	ent;
	unsigned long		addr[];
};

/*
 * One probe point.  Probes defined with the same GRP/EVENT are siblings
 * that share one trace_probe_event; the first is the primary probe that
 * the event callbacks use for fields and printing.
 */
struct trace_uprobe {
	struct dyn_event		devent;		/* on dyn_event_list */
	struct uprobe_consumer		consumer;	/* our handlers */
	struct path			path;		/* pins the probed file */
	char				*filename;	/* PATH as written */
	struct uprobe			*uprobe;	/* non-NULL while armed */
	unsigned long			offset;		/* of the probed insn */
	unsigned long			ref_ctr_offset;	/* SDT semaphore or 0 */
	unsigned long __percpu		*nhits;		/* for uprobe_profile */
	atomic_t			perf_busy;	/* hits in their perf part */
	struct llist_node		reap_node;	/* waiting to be freed */
	struct list_head		arm_node;	/* queued to be armed */
	bool				fetch_direct;	/* args read no memory */
	bool				has_strings;	/* some dyn_args set */
	bool				bare;		/* entry, no args */
	DECLARE_BITMAP(dyn_args, MAX_TRACE_ARGS);	/* args with strings */
	struct trace_probe		tp;		/* last: has args[] */
};

/*
 * The probed place, from PATH:OFFSET[%return][(REF_CTR_OFFSET)].  Carets
 * are byte positions in that token, for the error log.
 */
struct uprobe_site {
	char		*filename;	/* owned until handed to a probe */
	struct path	path;		/* holds a reference when set */
	unsigned long	offset;
	unsigned long	ref_ctr_offset;
	bool		is_return;
	int		offset_caret;
	int		ref_ctr_caret;
};

typedef bool (*uprobe_filter_fn)(struct uprobe_consumer *self,
				 struct mm_struct *mm);

/* The dyn_event type of uprobe events (trace_uprobe_files.c). */
extern struct dyn_event_operations trace_uprobe_ops;

static inline bool tu_is_return(struct trace_uprobe *tu)
{
	return !!tu->consumer.ret_handler;
}

static inline int uprobe_record_hdr_size(bool is_return)
{
	return sizeof(struct uprobe_record) +
	       (is_return ? 2 : 1) * sizeof(unsigned long);
}

/*
 * The perf part of a hit and perf's close of the event meet here.  A hit
 * about to record for perf (uprobe_record_hit()) counts itself in
 * tu->perf_busy and only then looks at TP_FLAG_PROFILE again; the close
 * (uprobe_perf_drain()) clears the flag and only then reads the counts,
 * and sleeps until each is zero.  Each side has a full barrier between
 * its write and its read, so at least one sees the other: either the hit
 * finds the flag gone and leaves before it touches anything of perf's,
 * or the close finds the hit counted and waits until it has left.  The
 * close sleeps because a hit may: fetching arguments faults user pages in.
 *
 * A hit that leaves last while the flag is clear wakes the close.  Both
 * run where @tu cannot be freed: the hit inside the uprobes core's RCU
 * tasks-trace read section, the close before the disarm's wait.
 */
static inline void uprobe_perf_leave(struct trace_uprobe *tu)
{
	/* fully ordered: the count is down before the flag is read */
	if (atomic_dec_and_test(&tu->perf_busy) &&
	    !trace_probe_test_flag(&tu->tp, TP_FLAG_PROFILE))
		wake_up_var(&tu->perf_busy);
}

/* True when the hit may record for perf; then uprobe_perf_leave() after. */
static inline bool uprobe_perf_enter(struct trace_uprobe *tu)
{
	atomic_inc(&tu->perf_busy);
	smp_mb__after_atomic();	/* counted before the flag is read */
	if (likely(trace_probe_test_flag(&tu->tp, TP_FLAG_PROFILE)))
		return true;
	uprobe_perf_leave(tu);
	return false;
}

static inline bool is_trace_uprobe(struct dyn_event *ev)
{
	return ev->ops == &trace_uprobe_ops;
}

static inline struct trace_uprobe *to_trace_uprobe(struct dyn_event *ev)
{
	return container_of(ev, struct trace_uprobe, devent);
}

/* trace_uprobe.c: the hit path and the state it reads */
bool trace_uprobe_args_direct(struct trace_uprobe *tu);
int uprobe_scratch_get(void);
void uprobe_scratch_put(void);
void uprobe_filter_init(struct trace_uprobe_filter *filter);
bool uprobe_filter_add(struct trace_uprobe_filter *filter,
		       struct perf_event *event);
bool uprobe_filter_remove(struct trace_uprobe_filter *filter,
			  struct perf_event *event);
uprobe_filter_fn uprobe_event_filter(struct trace_probe *tp);
int uprobe_dispatcher(struct uprobe_consumer *self, struct pt_regs *regs);
int uretprobe_dispatcher(struct uprobe_consumer *self, unsigned long func,
			 struct pt_regs *regs);

/* trace_uprobe_event.c: the trace event */
struct trace_uprobe *tu_of_call(struct trace_event_call *call);
void uprobe_event_settle(void);
void uprobe_event_batch_init(void);
int trace_uprobe_arm(struct trace_uprobe *tu, uprobe_filter_fn filter);
void uprobe_event_setup_call(struct trace_uprobe *tu);

/* trace_uprobe_objects.c: struct trace_uprobe */
void trace_uprobe_free(struct trace_uprobe *tu);
void trace_uprobe_free_deferred(struct trace_uprobe *tu);
struct trace_uprobe *trace_uprobe_alloc(const char *group, const char *event,
					int nargs, bool is_return);
struct trace_uprobe *trace_uprobe_find(const char *event, const char *group);
int trace_uprobe_register(struct trace_uprobe *tu, int ref_caret);
int trace_uprobe_unregister(struct trace_uprobe *tu);

/* trace_uprobe_parse.c: definitions */
void uprobe_site_release(struct uprobe_site *site);
void trace_uprobe_take_site(struct trace_uprobe *tu, struct uprobe_site *site);
int uprobe_resolve_path(const char *name, struct path *path);
enum probe_print_type trace_uprobe_print_type(struct trace_uprobe *tu);
int uprobe_events_create_argv(int argc, const char **argv);
int uprobe_dyn_create(const char *raw_command);

/*
 * Seen by the KUnit suite (trace_uprobe_kunit.c) only; static without
 * KUnit.  trace_uprobe_find() above is exported to the suite as well.
 */
#if IS_ENABLED(CONFIG_KUNIT)
/* trace_uprobe_event.c */
unsigned int uprobe_event_pending(bool *sync);
void uprobe_perf_drain(struct trace_probe *tp);
/* trace_uprobe_objects.c */
unsigned long trace_uprobe_reap_flush(void);
/* trace_uprobe_files.c */
int uprobe_dyn_show(struct seq_file *m, struct dyn_event *ev);
int uprobe_events_run(const char *cmd);
#endif

#endif /* _KERNEL_TRACE_UPROBE_H */
