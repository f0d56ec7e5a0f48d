/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arming and disarming one probe, a batch of them, or all of them
 * (kprobes_arm.c).
 */
#ifndef _KERNEL_KPROBES_ARM_H
#define _KERNEL_KPROBES_ARM_H

#include "kprobes_opt.h"

/* --- arm (kprobes_arm.c) --- */

/* Call sites a batch keeps without allocating (a batch of one needs one). */
#define KPROBE_BATCH_INLINE	4

/* What a batch does to its probes (see struct kprobe_batch). */
enum kprobe_batch_kind {
	KPROBE_BATCH_ARM,	/* register_kprobes(), enable_kprobes() */
	KPROBE_BATCH_REMOVE,	/* unregister_kprobes() */
	KPROBE_BATCH_DISABLE,	/* disable_kprobes() */
};

/*
 * A batch: the probes of one register_kprobes(), unregister_kprobes(),
 * enable_kprobes() or disable_kprobes() call, armed or disarmed under one
 * hold of the text locks, their call sites applied with one filter change
 * per ftrace_ops.  Rules, all under
 * kprobe_mutex from kprobe_batch_start() to kprobe_batch_commit() or
 * kprobe_batch_cancel():
 *  - between start and commit the batch holds cpus_read_lock(),
 *    jump_label_lock() and text_mutex: its user may write text, and must
 *    not call into ftrace or take a lock that ftrace takes under them;
 *  - a batch queues the breakpoints it writes or takes out, handed
 *    together to the arch before the text locks are let go (commit,
 *    cancel, or a full call-site queue) or when its user asks
 *    (kprobe_batch_flush()); without memory for that queue, or in a
 *    batch of one, each is written at once;
 *  - a probe whose breakpoint is queued to go stays in the table until
 *    the queue is flushed (kprobe_unregister_begin() flushes first);
 *  - call sites are queued, at most one per probe of the batch, and
 *    applied by commit (or earlier, with the locks dropped for the time,
 *    when the queue is full because its array could not be allocated);
 *  - a register batch queues the top probes to arm (flagged
 *    KPROBE_FLAG_ARM_QUEUED, by address: an aggregate may take a queued
 *    probe's place, and then it is the one armed, with the ops its
 *    handlers want at commit) and the armed ones a post_handler joined,
 *    which move to the IPMODIFY ops after the arming;
 *  - an unregister batch queues the addresses to take out of each ops;
 *    the top probes may be freed as soon as the caller's grace period
 *    after commit has passed;
 *  - a disable batch queues them the same way, its top probes staying in
 *    the table, DISABLED; a site that cannot leave its ops' filter is
 *    left armed and its top probe not DISABLED again (the caller puts
 *    back the probe whose disable had emptied it), and the error is
 *    returned by commit.
 *
 * @ips: the queue: arming batches put arms at the front and moves at the
 *	 back; the others put the plain ops' sites at the front and the
 *	 IPMODIFY ops' at the back
 * @room: entries in @ips
 * @head: entries used at the front
 * @tail: first entry used at the back (@room when none)
 * @kind: what the batch does
 * @err: the first error of a disable batch's applied queues
 * @bps: the breakpoint probes whose breakpoint is not written (arming)
 *	 or not taken out (the others) yet, or NULL until the first
 * @nr_bps: entries used in @bps
 * @bps_room: entries @bps has (or will have), 0 where nothing is queued
 * @inline_ips: @ips of a small batch
 */
struct kprobe_batch {
	unsigned long		*ips;
	unsigned int		room;
	unsigned int		head;
	unsigned int		tail;
	enum kprobe_batch_kind	kind;
	int			err;
	struct kprobe		**bps;
	unsigned int		nr_bps;
	unsigned int		bps_room;
	unsigned long		inline_ips[KPROBE_BATCH_INLINE];
};

int kprobe_arm(struct kprobe *p);
int kprobe_disarm(struct kprobe *p);
int kprobe_ftrace_sync_ops(struct kprobe *ap);
void kprobe_disarm_gone(struct kprobe *p);
int kprobes_arm_all(void);
int kprobes_disarm_all(void);

void kprobe_batch_start(struct kprobe_batch *b, unsigned int num,
			enum kprobe_batch_kind kind);
int kprobe_batch_arm(struct kprobe_batch *b, struct kprobe *p);
int kprobe_batch_sync_ops(struct kprobe_batch *b, struct kprobe *ap);
void kprobe_batch_disarm(struct kprobe_batch *b, struct kprobe *p);
void kprobe_batch_flush(struct kprobe_batch *b);
int kprobe_batch_commit(struct kprobe_batch *b);
void kprobe_batch_cancel(struct kprobe_batch *b);

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * Updates of the call sites asked of ftrace since boot (registering or
 * unregistering a call-site ops, changing a registered one's filter),
 * under kprobe_mutex.  System-wide: kprobes.c takes the difference over
 * one hold of kprobe_mutex to tell what one call made, for KUnit
 * (kprobes_array_get_stats()).
 */
extern unsigned long kprobe_site_changes;
#endif

#endif /* _KERNEL_KPROBES_ARM_H */
