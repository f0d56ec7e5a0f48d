// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe: entry and exit handlers on kernel functions, built on two shared
 * hooks of the function-hook core:
 *
 *   fprobe_ftrace_ops   an ftrace_ops for fprobes without an exit handler
 *                       ("entry" kind): one callback, no shadow-stack work;
 *   fprobe_exit_ops     an ftrace_ops for fprobes with an exit handler
 *                       ("graph" kind), with fprobe_graph_ops, a direct
 *                       fgraph user: the callback runs the entry handlers
 *                       and, when an exit is wanted, pushes the call's
 *                       record on the task's shadow stack and hooks the
 *                       return itself (fgraph_direct_push()), so a hit
 *                       costs one callback and one frame, with no pass
 *                       through the graph manager's users.
 *
 * Return (x86-64).  The graph kind pushes its frame inline
 * (fgraph_push_direct_frame()) and hooks the return to fprobe's own
 * trampoline, fprobe_return_handler (arch/x86/kernel/ftrace_64.S), whose C
 * half fprobe_return() (fprobe_return.c) reads the frame, runs the exit
 * handlers and pops it: no call into fgraph and no dispatch by slot.  The
 * frame is a complete direct frame (kernel/trace/fgraph_frame.h), so
 * walkers and unwinders treat it as any other, and fgraph_is_hook() knows
 * the trampoline.  Elsewhere frames are hooked to return_to_handler and
 * come back through fprobe_graph_return().
 *
 * The filter of each hook is the union of the call sites of its kind; a
 * hook is registered exactly while some probe of its kind is attached.
 *
 * Lookup.  Every (fprobe, call site) pair is a node.  Nodes live in one
 * hash map keyed by the site address, chained per bucket in registration
 * order, so a site's probes are found with one hash and a short walk
 * whatever the number of probed functions.  The map is sized to hold at
 * most one node per bucket on average; growing or shrinking builds a new
 * bucket array and publishes it.  Each node has two chain links and a map
 * uses one of them (map->link), so a new map is threaded through the other
 * link while readers still walk the current one.  A replaced map is freed
 * only after a grace period, and before a newer map reuses its link.
 *
 * Per-call record (graph kind).  The entry callback pushes one block of
 * fgraph data for all graph probes of the site: for each probe taking
 * part, a header word followed by its entry data (entry_data_size rounded
 * up to whole longs, at most 15).  The header is
 *     slot | generation | FPROBE_HDR_CALL? | data words
 * where slot is the registration's index in the table of live
 * registrations (fprobe_regs), generation is unique to the registration
 * for the life of the kernel, and CALL says the exit handler is wanted.
 * A zero word ends a block that was reserved larger than used.  The return
 * callback finds the registration by its slot and accepts it only if the
 * generation matches: a probe unregistered (or re-registered) since the
 * entry is not found, so a stale record never reaches a handler, even
 * when the struct fprobe memory or the slot is reused.
 *
 * Recursion.  A handler that hits a probed function (directly or through
 * what it calls) must not run a handler again: a per-CPU word holds one
 * bit per context (task, softirq, each hardirq and NMI nesting level, one
 * bit per power of two of the count) while handlers run there.  A hit
 * finding its bit set calls no handler and counts a miss in each enabled
 * probe of that site and kind.  This check is ours, not
 * ftrace's recursion lock: a nested hit refused by that lock could not be
 * counted, and our two ops do without it (no FTRACE_OPS_FL_RECURSION).
 *
 * Locking and lifetime:
 *  - fprobe_mutex serialises every change: bindings, nodes, the map, the
 *    hooks' filters and registration, the id counter.  It is taken before
 *    the function-hook core's own locks.
 *  - Callbacks run with preemption disabled and RCU watching (checked);
 *    they read the map and nodes without locks.  Nodes are linked with
 *    their fields complete (release), and unlinked nodes are freed only
 *    after synchronize_rcu(), which also waits for every handler that
 *    found them.  Hence: when unregister_fprobe() returns, no handler of
 *    the probe runs anywhere and none will.
 *  - A node leaves the map when its probe is unregistered, or when its
 *    function's text goes away (module unload, module init text freed);
 *    the latter nodes stay in their binding until it is freed.
 *  - nmissed is incremented without atomics, as an approximate counter.
 *
 * Files.  This one holds the hot path and the hooks; fprobe_return.c the
 * return through fprobe_return_handler; fprobe_map.c the map and the
 * release of sites from the hooks; fprobe_register.c the registration
 * API, the bindings, the table of live registrations and text going away.
 * fprobe_internal.h says which of them calls which.
 */
#define pr_fmt(fmt) "fprobe: " fmt

#include <linux/context_tracking.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>

#include "trace.h"
#include "ftrace_user.h"
#include "ftrace_filter.h"
#include "fgraph_internal.h"
#include "fgraph_frame.h"
#include "fprobe_internal.h"

/* Words one call may reserve for all graph probes of a site (fgraph's limit). */
#define FPROBE_CALL_WORDS	32

static bool fprobe_hook_on[FPROBE_NR_KINDS];

/* Bit n set: fprobe handlers run on this CPU at context level n. */
DEFINE_PER_CPU(unsigned int, fprobe_running);

/* ---- the hot path ----------------------------------------------------------- */

/* The direct fgraph user behind fprobe_exit_ops: its slot on the stacks. */
static struct fgraph_ops fprobe_graph_ops;
/* Its record key, set while fprobe_exit_ops may run (fprobe_hook_start()). */
static unsigned long fprobe_graph_key __read_mostly;

/*
 * Push the frame of a call whose exit is wanted: @words of data for the
 * probes' records.  With a return handler of fprobe's own (x86-64) the
 * push is inline; the key is live while fprobe_exit_ops can call us.
 */
static __always_inline unsigned long *fprobe_push(unsigned long ip,
						  struct ftrace_regs *fregs,
						  unsigned int words)
{
#ifdef FGRAPH_HAVE_FPROBE_HANDLER
	return fgraph_push_direct_frame(READ_ONCE(fprobe_graph_key), ip, fregs,
					words);
#else
	return fgraph_direct_push(&fprobe_graph_ops, ip, fregs, words);
#endif
}

/*
 * fprobe_push() of a frame whose one record is @hdr, without entry data,
 * and fprobe_hook_return() when it was pushed.
 */
static __always_inline bool fprobe_push_hooked(unsigned long ip,
					       struct ftrace_regs *fregs,
					       unsigned long hdr)
{
#ifdef FGRAPH_HAVE_FPROBE_HANDLER
	/* Read before the stores below: not read again for the hook. */
	unsigned long *slot = ftrace_regs_return_slot(fregs);
	unsigned long *ws;
	unsigned int top;

	/* The entry callback read current and per-CPU data already. */
	top = __fgraph_push_direct_top(READ_ONCE(fprobe_graph_key), ip, fregs,
				       1, &ws);
	if (unlikely(!top))
		return false;
	ws[top - 2] = hdr;
	/* Hook the return (fprobe_hook_return(), from the slot read above). */
	*slot = (unsigned long)fprobe_return_handler;
	return true;
#else
	unsigned long *data = fgraph_direct_push(&fprobe_graph_ops, ip, fregs, 1);

	if (unlikely(!data))
		return false;
	*data = hdr;
	fgraph_direct_hook(fregs);
	return true;
#endif
}

/*
 * Hook the return of the call just pushed: to fprobe_return_handler where
 * there is one (the return then skips fgraph's dispatch), else to fgraph's
 * return_to_handler.
 */
static __always_inline void fprobe_hook_return(struct ftrace_regs *fregs)
{
#ifdef FGRAPH_HAVE_FPROBE_HANDLER
	*ftrace_regs_return_slot(fregs) = (unsigned long)fprobe_return_handler;
#else
	fgraph_direct_hook(fregs);
#endif
}

/*
 * The lockless walk.  Readers run with preemption disabled and RCU
 * watching; the plain rcu_dereference_raw() is deliberate: lockdep's
 * checking variants are themselves traceable functions in some configs.
 */
static __always_inline struct fprobe_node *
fprobe_skip_to(struct fprobe_node *node, unsigned int link, unsigned long ip)
{
	while (node && node->ip != ip)
		node = rcu_dereference_raw(node->next[link]);
	return node;
}

static __always_inline struct fprobe_node *
fprobe_first(unsigned long ip, unsigned int *link)
{
	struct fprobe_map *map = rcu_dereference_raw(fprobe_map);

	*link = map->link;
	return fprobe_skip_to(rcu_dereference_raw(map->heads[hash_long(ip, map->bits)]),
			      map->link, ip);
}

static __always_inline struct fprobe_node *
fprobe_next(struct fprobe_node *node, unsigned int link)
{
	return fprobe_skip_to(rcu_dereference_raw(node->next[link]), link,
			      node->ip);
}

/* A nested hit: count a miss in each enabled probe of @kind on @ip. */
static void fprobe_count_nested(unsigned long ip, u8 kind)
{
	struct fprobe_node *node;
	unsigned int link;

	for (node = fprobe_first(ip, &link); node; node = fprobe_next(node, link)) {
		if (node->kind == kind && !fprobe_disabled(node->fp))
			node->fp->nmissed++;
	}
}

NOKPROBE_SYMBOL(fprobe_count_nested);

/*
 * Start a hit of @kind at @ip: preemption off, RCU watching, no handler
 * running in this context already.  Returns the token of
 * fprobe_busy_enter() for fprobe_hit_end(), or 0 when the hit runs no
 * handler (a nested one is counted as missed);
 * preemption is then on again.
 */
static __always_inline unsigned int fprobe_hit_begin(unsigned long ip, u8 kind)
{
	unsigned int bit;

	preempt_disable_notrace();
	if (likely(fprobe_rcu_ok())) {
		bit = fprobe_busy_enter();
		if (likely(bit))
			return bit;
		fprobe_count_nested(ip, kind);
	}
	preempt_enable_notrace();
	return 0;
}

static __always_inline void fprobe_hit_end(unsigned int bit)
{
	fprobe_busy_exit(bit);
	preempt_enable_notrace();
}

/*
 * The handler calls of FPROBE_FL_KPROBE_SHARED probes, inside a kprobe
 * busy section.  Out of line: the values they keep across their three
 * calls would otherwise cost callee-saved registers on every hit.
 */
static noinline int fprobe_call_entry_busy(struct fprobe *fp, unsigned long ip,
					   unsigned long ret_ip,
					   struct ftrace_regs *fregs, void *data)
{
	int ret;

	kprobe_busy_begin();
	ret = fp->entry_handler(fp, ip, ret_ip, fregs, data);
	kprobe_busy_end();
	return ret;
}

NOKPROBE_SYMBOL(fprobe_call_entry_busy);

noinline void fprobe_call_exit_busy(struct fprobe *fp, unsigned long ip,
				    unsigned long ret_ip,
				    struct ftrace_regs *fregs, void *data)
{
	kprobe_busy_begin();
	fp->exit_handler(fp, ip, ret_ip, fregs, data);
	kprobe_busy_end();
}

NOKPROBE_SYMBOL(fprobe_call_exit_busy);

static __always_inline int
fprobe_call_entry(struct fprobe *fp, unsigned int flags, unsigned long ip,
		  unsigned long ret_ip, struct ftrace_regs *fregs, void *data)
{
	if (likely(!(flags & FPROBE_FL_KPROBE_SHARED)))
		return fp->entry_handler(fp, ip, ret_ip, fregs, data);
	return fprobe_call_entry_busy(fp, ip, ret_ip, fregs, data);
}

/* Entry of a function with entry-kind probes (fprobe_ftrace_ops.func). */
static void fprobe_ftrace_entry(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct fprobe_node *node;
	unsigned int link, bit, flags;
	struct fprobe *fp;

	bit = fprobe_hit_begin(ip, FPROBE_KIND_ENTRY);
	if (!bit)
		return;

	for (node = fprobe_first(ip, &link); node; node = fprobe_next(node, link)) {
		if (node->kind != FPROBE_KIND_ENTRY)
			continue;
		fp = node->fp;
		flags = READ_ONCE(fp->flags);
		if ((flags & FPROBE_FL_DISABLED) || !fp->entry_handler)
			continue;
		if (fprobe_kprobe_blocks(flags)) {
			fp->nmissed++;
			continue;
		}
		fprobe_call_entry(fp, flags, ip, parent_ip, fregs, NULL);
	}

	fprobe_hit_end(bit);
}

NOKPROBE_SYMBOL(fprobe_ftrace_entry);

/*
 * fprobe_exit_entry_one() for a probe with entry data: the record is
 * pushed first, for the entry handler to fill.  Out of line, so that the
 * values it keeps across the handler call cost the common case nothing.
 */
static noinline void fprobe_exit_entry_data(struct fprobe_node *node,
					    unsigned long ip,
					    unsigned long parent_ip,
					    struct ftrace_regs *fregs,
					    unsigned int flags,
					    unsigned int words)
{
	struct fprobe *fp = node->fp;
	unsigned long *data;

	data = fprobe_push(ip, fregs, 1 + words);
	if (unlikely(!data)) {
		/* No room for this call's record: no exit handler. */
		fp->nmissed++;
		return;
	}
	if (fp->entry_handler &&
	    fprobe_call_entry(fp, flags, ip, parent_ip, fregs, data + 1)) {
		fgraph_direct_done(fregs, false);
		return;
	}
	data[0] = node->hdr;
	fprobe_hook_return(fregs);
}

NOKPROBE_SYMBOL(fprobe_exit_entry_data);

/*
 * A live probe without entry data (@flags its flags): the entry handler
 * runs first and the frame is pushed only if it wants the exit (fewer
 * values to keep across the call; the same handler calls and misses).
 */
static __always_inline void fprobe_exit_entry_plain(struct fprobe_node *node,
						    unsigned long ip,
						    unsigned long parent_ip,
						    struct ftrace_regs *fregs,
						    unsigned int flags)
{
	struct fprobe *fp = node->fp;

	if (fp->entry_handler &&
	    fprobe_call_entry(fp, flags, ip, parent_ip, fregs, NULL))
		return;
	if (unlikely(!fprobe_push_hooked(ip, fregs, node->hdr)))
		node->fp->nmissed++;
}

/*
 * fprobe_exit_entry_one() for a probe that is disabled, shares kprobes'
 * busy state or has entry data.  Out of line: the common probe pays two
 * tests for all three.
 */
static noinline void fprobe_exit_entry_rare(struct fprobe_node *node,
					    unsigned long ip,
					    unsigned long parent_ip,
					    struct ftrace_regs *fregs)
{
	unsigned int words = node->hdr & FPROBE_HDR_WORDS;
	unsigned int flags = READ_ONCE(node->fp->flags);

	if (flags & FPROBE_FL_DISABLED)
		return;
	if (fprobe_kprobe_blocks(flags)) {
		node->fp->nmissed++;
		return;
	}
	if (words)
		fprobe_exit_entry_data(node, ip, parent_ip, fregs, flags, words);
	else
		fprobe_exit_entry_plain(node, ip, parent_ip, fregs, flags);
}

NOKPROBE_SYMBOL(fprobe_exit_entry_rare);

/*
 * The common case of fprobe_exit_entry(): @node is the only graph-kind
 * probe of the site.  The same rules, without the block bookkeeping.
 */
static __always_inline void fprobe_exit_entry_one(struct fprobe_node *node,
						  unsigned long ip,
						  unsigned long parent_ip,
						  struct ftrace_regs *fregs)
{
	/*
	 * Two tests for the common probe; the rare cases read the flags
	 * again (a change in between is as if it came a little later).
	 */
	if (unlikely((node->hdr & FPROBE_HDR_WORDS) ||
		     (READ_ONCE(node->fp->flags) &
		      (FPROBE_FL_DISABLED | FPROBE_FL_KPROBE_SHARED))))
		fprobe_exit_entry_rare(node, ip, parent_ip, fregs);
	else
		fprobe_exit_entry_plain(node, ip, parent_ip, fregs, 0);
}

/*
 * Several graph-kind probes on the site (or one after entry-kind ones):
 * one block with a record per probe, as many as fit.
 */
static noinline void fprobe_exit_entry_many(struct fprobe_node *first,
					    unsigned int link,
					    unsigned long ip,
					    unsigned long parent_ip,
					    struct ftrace_regs *fregs)
{
	unsigned int flags, words, room = 0, used = 0;
	unsigned long *data = NULL;
	struct fprobe_node *node;
	bool want_exit = false;
	struct fprobe *fp;

	words = READ_ONCE(first->site_words);
	if (words) {
		room = min_t(unsigned int, words, FPROBE_CALL_WORDS);
		data = fprobe_push(ip, fregs, room);
		if (!data)
			room = 0;
	}

	for (node = first; node; node = fprobe_next(node, link)) {
		unsigned long *slot;
		int ret = 0;

		if (node->kind != FPROBE_KIND_GRAPH)
			continue;
		fp = node->fp;
		flags = READ_ONCE(fp->flags);
		if (flags & FPROBE_FL_DISABLED)
			continue;
		words = node->hdr & FPROBE_HDR_WORDS;

		if (used + 1 + words > room) {
			/* No room for this call's record: no exit handler. */
			fp->nmissed++;
			if (!words && fp->entry_handler && !fprobe_kprobe_blocks(flags))
				fprobe_call_entry(fp, flags, ip, parent_ip, fregs, NULL);
			continue;
		}
		slot = data + used;
		used += 1 + words;
		if (fprobe_kprobe_blocks(flags)) {
			fp->nmissed++;
			*slot = node->hdr & ~FPROBE_HDR_CALL;
			continue;
		}
		if (fp->entry_handler)
			ret = fprobe_call_entry(fp, flags, ip, parent_ip, fregs,
						words ? slot + 1 : NULL);
		*slot = ret ? node->hdr & ~FPROBE_HDR_CALL : node->hdr;
		want_exit |= !ret;
	}
	if (data) {
		if (used < room)
			data[used] = 0;
		if (want_exit)
			fprobe_hook_return(fregs);
		else
			fgraph_direct_done(fregs, false);
	}
}

NOKPROBE_SYMBOL(fprobe_exit_entry_many);

/*
 * Entry of a function with graph-kind probes (fprobe_exit_ops.func): run
 * the entry handlers and, if some probe wants its exit handler for this
 * call, push the call's record and hook the return.
 */
static void fprobe_exit_entry(unsigned long ip, unsigned long parent_ip,
			      struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct fprobe_node *first;
	unsigned int link, bit;

	bit = fprobe_hit_begin(ip, FPROBE_KIND_GRAPH);
	if (!bit)
		return;

	first = fprobe_first(ip, &link);
	if (unlikely(!first))
		goto out;
	/* A plain read (one compare of memory): a bool, read once. */
	if (likely(data_race(first->sole)))
		fprobe_exit_entry_one(first, ip, parent_ip, fregs);
	else
		fprobe_exit_entry_many(first, link, ip, parent_ip, fregs);
out:
	fprobe_hit_end(bit);
}

NOKPROBE_SYMBOL(fprobe_exit_entry);

/*
 * Return of a call hooked to return_to_handler (fprobe_graph_ops' return
 * callback, preemption disabled), on architectures without
 * fprobe_return_handler.
 */
static void fprobe_graph_return(unsigned long ip, unsigned long *data,
				unsigned int nr, struct ftrace_regs *fregs)
{
	fprobe_run_exits(ip, data, nr, fregs);
}

NOKPROBE_SYMBOL(fprobe_graph_return);

static struct ftrace_ops fprobe_ftrace_ops = {
	.func	= fprobe_ftrace_entry,
	.flags	= FTRACE_OPS_FL_SAVE_ARGS,
};

static struct ftrace_ops fprobe_exit_ops = {
	.func	= fprobe_exit_entry,
	.flags	= FTRACE_OPS_FL_SAVE_ARGS,
};

/* ---- the hooks ------------------------------------------------------------- */

static struct ftrace_ops *fprobe_hook_ops(u8 kind)
{
	return kind == FPROBE_KIND_GRAPH ? &fprobe_exit_ops : &fprobe_ftrace_ops;
}

static int fprobe_hook_start(u8 kind)
{
	int ret;

	if (kind != FPROBE_KIND_GRAPH)
		return register_ftrace_function(&fprobe_ftrace_ops);
	/* The frames' user first: the callback pushes as soon as it runs. */
	ret = register_fgraph_direct(&fprobe_graph_ops, fprobe_graph_return);
	if (ret)
		return ret;
	WRITE_ONCE(fprobe_graph_key, fgraph_direct_key(&fprobe_graph_ops));
	ret = register_ftrace_function(&fprobe_exit_ops);
	if (ret)
		unregister_ftrace_graph(&fprobe_graph_ops);
	return ret;
}

/* Returns non-zero if the hook's ops is still in use (its filter with it). */
static int fprobe_hook_stop(u8 kind)
{
	int ret;

	if (kind != FPROBE_KIND_GRAPH)
		return unregister_ftrace_function(&fprobe_ftrace_ops);
	/* No new frame after this; frames left call nobody after the next. */
	ret = unregister_ftrace_function(&fprobe_exit_ops);
	if (ret)
		return ret;
	unregister_ftrace_graph(&fprobe_graph_ops);
	return 0;
}

/* Install @hash as the filter of @ops, in one update.  Consumes @hash. */
static int fprobe_filter_install(struct ftrace_ops *ops,
				 struct ftrace_hash *hash)
{
	int ret;

	ftrace_ops_init(ops);
	mutex_lock(&ops->func_hash->regex_lock);
	ret = ftrace_hash_install(ops, &ops->func_hash->filter_hash, hash);
	mutex_unlock(&ops->func_hash->regex_lock);
	return ret;
}

/*
 * Make the hook of @kind call the @nr sites @ips too. All or nothing.
 * @hash, if not NULL, points to a hash of exactly the sites @ips: a hook
 * starting takes it as its filter as it is, instead of adding the sites
 * one by one, and *@hash becomes NULL.
 */
int fprobe_hook_add(u8 kind, unsigned long *ips, unsigned int nr,
		    struct ftrace_hash **hash)
{
	struct ftrace_ops *ops = fprobe_hook_ops(kind);
	int ret;

	lockdep_assert_held(&fprobe_mutex);

	if (!nr)
		return 0;
	if (fprobe_hook_on[kind])
		return ftrace_set_filter_ips(ops, ips, nr, 0, 0);

	if (hash && *hash) {
		ret = fprobe_filter_install(ops, *hash);
		*hash = NULL;
	} else {
		ret = ftrace_set_filter_ips(ops, ips, nr, 0, 1);
	}
	if (!ret)
		ret = fprobe_hook_start(kind);
	if (ret) {
		ftrace_free_filter(ops);
		return ret;
	}
	fprobe_hook_on[kind] = true;
	return 0;
}

/*
 * Stop hooking the @nr sites @ips (no node of @kind left on them), or stop
 * the hook when no node of @kind is left at all.  A site that cannot be
 * taken out stays hooked; its calls then find no probe, which is harmless.
 */
void fprobe_hook_remove(u8 kind, unsigned long *ips, unsigned int nr)
{
	struct ftrace_ops *ops = fprobe_hook_ops(kind);
	unsigned int i, left = 0;

	lockdep_assert_held(&fprobe_mutex);

	if (!fprobe_hook_on[kind])
		return;
	if (!fprobe_kind_linked[kind]) {
		/*
		 * Only a dead function-hook core refuses; its sites stay as
		 * they are, so keep the hook and its filter rather than leave
		 * a registered ops without a filter (that would mean "all").
		 */
		if (fprobe_hook_stop(kind)) {
			WARN_ON_ONCE(!ftrace_is_dead());
			return;
		}
		ftrace_free_filter(ops);
		fprobe_hook_on[kind] = false;
		return;
	}
	if (!nr || !ftrace_set_filter_ips(ops, ips, nr, 1, 0))
		return;

	/* Some functions' text is gone (init text, a module): skip them. */
	for (i = 0; i < nr; i++)
		if (ftrace_location(ips[i]))
			ips[left++] = ips[i];
	if (left && ftrace_set_filter_ips(ops, ips, left, 1, 0))
		pr_warn_once("%u functions stay hooked without a probe\n", left);
}
