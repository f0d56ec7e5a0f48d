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
 */
#define pr_fmt(fmt) "fprobe: " fmt

#include <linux/context_tracking.h>
#include <linux/err.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "trace.h"
#include "ftrace_internal.h"
#include "fgraph_frame.h"
#include "fprobe_internal.h"

/* The first size of the table of live registrations. */
#define FPROBE_REGS_MIN		64

/* Words one call may reserve for all graph probes of a site (fgraph's limit). */
#define FPROBE_CALL_WORDS	32

/* Map size bounds, in bits of the bucket index. */
#define FPROBE_MAP_MIN_BITS	4
#define FPROBE_MAP_MAX_BITS	20

/*
 * struct fprobe_map - the site -> nodes hash map
 * @bits: log2 of the number of buckets
 * @link: which of a node's links this map's chains use
 * @heads: bucket chains
 */
struct fprobe_map {
	unsigned int			bits;
	unsigned int			link;
	struct fprobe_node __rcu	*heads[];
};

/*
 * What a free slot of the table holds: id 0, which no record names (a
 * record's generation is never 0), so the return path's lookup needs no
 * NULL test.  Its probe is never read.
 */
static struct fprobe_binding fprobe_binding_none;
/* The table before the first graph-kind registration: no slot at all. */
static struct fprobe_regs fprobe_regs_empty;

/*
 * The map before the first one is allocated: the smallest size, empty,
 * never freed.  So fprobe_map is never NULL and a hit tests no pointer.
 */
static union {
	struct fprobe_map	map;
	u8			room[struct_size_t(struct fprobe_map, heads,
						   1U << FPROBE_MAP_MIN_BITS)];
} fprobe_map_first = { .map.bits = FPROBE_MAP_MIN_BITS };

static DEFINE_MUTEX(fprobe_mutex);
struct fprobe_regs __rcu *fprobe_regs = RCU_INITIALIZER(&fprobe_regs_empty);
static struct fprobe_map __rcu *fprobe_map = RCU_INITIALIZER(&fprobe_map_first.map);
/* The map replaced last, and the grace-period cookie after which it is unused. */
static struct fprobe_map *fprobe_retired;
static unsigned long fprobe_retired_gp;
static LIST_HEAD(fprobe_bindings);
static unsigned long fprobe_last_id;
static unsigned int fprobe_nr_linked;
static unsigned int fprobe_kind_linked[FPROBE_NR_KINDS];
static bool fprobe_hook_on[FPROBE_NR_KINDS];

/* Bit n set: fprobe handlers run on this CPU at context level n. */
DEFINE_PER_CPU(unsigned int, fprobe_running);

#define fprobe_deref(p)	rcu_dereference_protected(p, lockdep_is_held(&fprobe_mutex))

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
static int fprobe_hook_add(u8 kind, unsigned long *ips, unsigned int nr,
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
static void fprobe_hook_remove(u8 kind, unsigned long *ips, unsigned int nr)
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

/* ---- the map (fprobe_mutex held) -------------------------------------------- */

static struct fprobe_map *fprobe_map_locked(void)
{
	return fprobe_deref(fprobe_map);
}

static struct fprobe_node __rcu **fprobe_bucket(struct fprobe_map *map,
						unsigned long ip)
{
	return &map->heads[hash_long(ip, map->bits)];
}

/* Append @node to its chain: a site's nodes stay in registration order. */
static void fprobe_map_append(struct fprobe_map *map, struct fprobe_node *node)
{
	struct fprobe_node __rcu **pos = fprobe_bucket(map, node->ip);
	struct fprobe_node *cur;

	while ((cur = fprobe_deref(*pos)))
		pos = &cur->next[map->link];
	RCU_INIT_POINTER(node->next[map->link], NULL);
	rcu_assign_pointer(*pos, node);
}

static void fprobe_map_delete(struct fprobe_map *map, struct fprobe_node *node)
{
	struct fprobe_node __rcu **pos = fprobe_bucket(map, node->ip);
	struct fprobe_node *cur;

	while ((cur = fprobe_deref(*pos)) != node) {
		if (WARN_ON_ONCE(!cur))
			return;
		pos = &cur->next[map->link];
	}
	/* A reader standing on @node still finds the rest of the chain. */
	RCU_INIT_POINTER(*pos, fprobe_deref(node->next[map->link]));
}

static bool fprobe_site_has_kind(struct fprobe_map *map, unsigned long ip,
				 u8 kind)
{
	struct fprobe_node *node;

	for (node = fprobe_deref(*fprobe_bucket(map, ip)); node;
	     node = fprobe_deref(node->next[map->link]))
		if (node->ip == ip && node->kind == kind)
			return true;
	return false;
}

/* Free the previously replaced map once no reader can be on it. */
static void fprobe_map_reap(void)
{
	if (!fprobe_retired)
		return;
	cond_synchronize_rcu(fprobe_retired_gp);
	if (fprobe_retired != &fprobe_map_first.map)
		kvfree(fprobe_retired);
	fprobe_retired = NULL;
}

/*
 * Publish a map of 2^@bits buckets holding every linked node.  The new
 * chains use the link the old map does not, so readers of the old map are
 * undisturbed; the old map is retired and freed after a grace period.
 */
static int fprobe_map_resize(unsigned int bits)
{
	struct fprobe_map *old = fprobe_map_locked(), *map;
	struct fprobe_node *node;
	unsigned long i;

	/* The retired map's readers may still follow the link we reuse. */
	fprobe_map_reap();

	map = kvzalloc(struct_size(map, heads, 1UL << bits), GFP_KERNEL);
	if (!map)
		return -ENOMEM;
	map->bits = bits;
	map->link = old ? !old->link : 0;

	for (i = 0; old && i < (1UL << old->bits); i++)
		for (node = fprobe_deref(old->heads[i]); node;
		     node = fprobe_deref(node->next[old->link]))
			fprobe_map_append(map, node);

	rcu_assign_pointer(fprobe_map, map);
	if (old) {
		fprobe_retired = old;
		fprobe_retired_gp = get_state_synchronize_rcu();
	}
	return 0;
}

/* Make room for @extra more nodes at about one node per bucket. */
static int fprobe_map_fit(unsigned int extra)
{
	struct fprobe_map *map = fprobe_map_locked();
	unsigned long want = (unsigned long)fprobe_nr_linked + extra;
	unsigned int bits;

	if (map && want <= (1UL << map->bits))
		return 0;
	bits = clamp_t(unsigned int, order_base_2(want), FPROBE_MAP_MIN_BITS,
		       FPROBE_MAP_MAX_BITS);
	if (map && bits <= map->bits)
		return 0;
	return fprobe_map_resize(bits);
}

/* After removals: a map at most 1/8 full is halved down to 1/2 full. */
static void fprobe_map_trim(void)
{
	struct fprobe_map *map = fprobe_map_locked();
	unsigned int bits;

	if (!map || map->bits <= FPROBE_MAP_MIN_BITS ||
	    fprobe_nr_linked > (1UL << map->bits) / 8)
		return;
	bits = max_t(unsigned int, order_base_2(2UL * fprobe_nr_linked + 1),
		     FPROBE_MAP_MIN_BITS);
	/* On failure the larger map simply stays. */
	fprobe_map_resize(bits);
}

static void fprobe_node_set_words(struct fprobe_node *node, unsigned int words)
{
	WRITE_ONCE(node->site_words, words);
	WRITE_ONCE(node->sole, node->kind == FPROBE_KIND_GRAPH &&
		   words == 1 + (node->hdr & FPROBE_HDR_WORDS));
}

/*
 * Give every node of @ip's site the site's graph words (fprobe_node::
 * site_words), with @extra (not linked yet) counted too.
 */
static void fprobe_site_words_update(struct fprobe_map *map, unsigned long ip,
				     struct fprobe_node *extra)
{
	struct fprobe_node *node, *head = fprobe_deref(*fprobe_bucket(map, ip));
	unsigned int words = 0;

	for (node = head; node; node = fprobe_deref(node->next[map->link]))
		if (node->ip == ip && node->kind == FPROBE_KIND_GRAPH)
			words += 1 + (node->hdr & FPROBE_HDR_WORDS);
	if (extra && extra->kind == FPROBE_KIND_GRAPH)
		words += 1 + (extra->hdr & FPROBE_HDR_WORDS);
	words = min_t(unsigned int, words, U16_MAX);

	for (node = head; node; node = fprobe_deref(node->next[map->link]))
		if (node->ip == ip)
			fprobe_node_set_words(node, words);
	if (extra)
		fprobe_node_set_words(extra, words);
}

/*
 * The site's words grow before the node can be found and shrink after it
 * is gone: a reader may find fewer nodes than the words it reserved for,
 * and finds more only while a probe is being added (that probe then
 * misses the call, counted in nmissed).
 */
static void fprobe_node_link(struct fprobe_map *map, struct fprobe_node *node)
{
	fprobe_site_words_update(map, node->ip, node);
	fprobe_map_append(map, node);
	node->linked = true;
	fprobe_nr_linked++;
	fprobe_kind_linked[node->kind]++;
}

static void fprobe_node_unlink(struct fprobe_map *map, struct fprobe_node *node)
{
	fprobe_map_delete(map, node);
	fprobe_site_words_update(map, node->ip, NULL);
	node->linked = false;
	node->released = true;
	fprobe_nr_linked--;
	fprobe_kind_linked[node->kind]--;
}

/* ---- the table of live registrations (fprobe_mutex held) ----------------- */

static struct fprobe_regs *fprobe_regs_locked(void)
{
	return fprobe_deref(fprobe_regs);
}

static bool fprobe_slot_free(struct fprobe_regs *regs, unsigned int i)
{
	return fprobe_deref(regs->slot[i]) == &fprobe_binding_none;
}

/* Make sure a slot is free, growing the table if needed. */
static int fprobe_regs_fit(void)
{
	struct fprobe_regs *old = fprobe_regs_locked(), *regs;
	unsigned int i, size;

	for (i = 0; i < old->size; i++)
		if (fprobe_slot_free(old, i))
			return 0;
	if (old->size > FPROBE_SLOT_MASK / 2)
		return -ENOSPC;
	size = old->size ? 2 * old->size : FPROBE_REGS_MIN;
	regs = kvmalloc(struct_size(regs, slot, size), GFP_KERNEL);
	if (!regs)
		return -ENOMEM;
	regs->size = size;
	for (i = 0; i < size; i++)
		RCU_INIT_POINTER(regs->slot[i], i < old->size ?
				 fprobe_deref(old->slot[i]) : &fprobe_binding_none);
	rcu_assign_pointer(fprobe_regs, regs);
	if (old != &fprobe_regs_empty)
		kvfree_rcu_mightsleep(old);
	return 0;
}

/* Give @b a free slot (fprobe_regs_fit() made one) and a new id. */
static void fprobe_regs_enter(struct fprobe_binding *b)
{
	struct fprobe_regs *regs = fprobe_regs_locked();
	unsigned int i;

	for (i = 0; i < regs->size; i++)
		if (fprobe_slot_free(regs, i))
			break;
	if (++fprobe_last_id > FPROBE_GEN_LIMIT)
		fprobe_last_id = 1;
	b->id = fprobe_last_id << FPROBE_HDR_GEN_SHIFT |
		(unsigned long)i << FPROBE_HDR_SLOT_SHIFT;
	/* The id is set before a reader can find @b. */
	rcu_assign_pointer(regs->slot[i], b);
}

/* Records naming @b find nothing once the caller's grace period is over. */
static void fprobe_regs_leave(struct fprobe_binding *b)
{
	struct fprobe_regs *regs = fprobe_regs_locked();
	unsigned int i;

	if (!b->id)
		return;
	i = b->id >> FPROBE_HDR_SLOT_SHIFT;
	if (!WARN_ON_ONCE(i >= regs->size || fprobe_deref(regs->slot[i]) != b))
		RCU_INIT_POINTER(regs->slot[i], &fprobe_binding_none);
}

/* ---- releasing sites -------------------------------------------------------- */

/* Sites no longer wanted by any node of one kind. */
struct fprobe_site_list {
	unsigned long	*ips;
	unsigned int	nr;
};

static int fprobe_cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Sort @ips by a radix sort on bytes, least significant first, skipping a
 * byte every address shares (the upper half of kernel text addresses on
 * x86-64).  For the tens of thousands of sites of a BPF attach-all this is
 * about a tenth of sort()'s cost, whose comparisons are indirect calls.
 * Returns false without memory for the second buffer.
 */
static bool fprobe_radix_sort(unsigned long *ips, unsigned int nr)
{
	unsigned long *tmp, *src = ips, *dst;
	unsigned int count[256], i, shift, byte;

	tmp = kvmalloc_array(nr, sizeof(*ips), GFP_KERNEL);
	if (!tmp)
		return false;
	dst = tmp;
	for (shift = 0; shift < BITS_PER_LONG; shift += 8) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < nr; i++)
			count[(src[i] >> shift) & 0xff]++;
		if (count[(src[0] >> shift) & 0xff] == nr)
			continue;
		for (byte = 1; byte < 256; byte++)
			count[byte] += count[byte - 1];
		/* backwards from each bucket's end: stable */
		for (i = nr; i-- > 0; )
			dst[--count[(src[i] >> shift) & 0xff]] = src[i];
		swap(src, dst);
	}
	if (src != ips)
		memcpy(ips, src, nr * sizeof(*ips));
	kvfree(tmp);
	return true;
}

/* Sort @ips and drop duplicates; returns the new count. */
static unsigned int fprobe_sort_unique(unsigned long *ips, unsigned int nr)
{
	unsigned int i, out = 0;

	if (nr < 64 || !fprobe_radix_sort(ips, nr))
		sort(ips, nr, sizeof(*ips), fprobe_cmp_ulong, NULL);
	for (i = 0; i < nr; i++)
		if (!out || ips[out - 1] != ips[i])
			ips[out++] = ips[i];
	return out;
}

/*
 * Room for the sites that @count released nodes of each kind may free;
 * called once they are unlinked.  A kind with no node left needs no list:
 * its hook goes as a whole.  Without memory the sites stay hooked (see
 * fprobe_hook_remove()), nothing worse.
 */
static void fprobe_lists_alloc(struct fprobe_site_list *lists,
			       const unsigned int *count)
{
	u8 kind;

	for (kind = 0; kind < FPROBE_NR_KINDS; kind++) {
		lists[kind].nr = 0;
		lists[kind].ips = NULL;
		if (count[kind] && fprobe_kind_linked[kind])
			lists[kind].ips = kvmalloc_array(count[kind], sizeof(unsigned long),
							 GFP_KERNEL);
	}
}

/* Note the sites of @b's released nodes that no node of their kind needs. */
static void fprobe_collect_released(struct fprobe_binding *b,
				    struct fprobe_site_list *lists)
{
	struct fprobe_map *map = fprobe_map_locked();
	struct fprobe_node *node;
	unsigned int i;

	for (i = 0; i < b->nr; i++) {
		node = &b->nodes[i];
		if (!node->released)
			continue;
		node->released = false;
		if (lists[node->kind].ips &&
		    !fprobe_site_has_kind(map, node->ip, node->kind))
			lists[node->kind].ips[lists[node->kind].nr++] = node->ip;
	}
}

static void fprobe_release_sites(struct fprobe_site_list *lists)
{
	u8 kind;

	for (kind = 0; kind < FPROBE_NR_KINDS; kind++) {
		struct fprobe_site_list *l = &lists[kind];

		l->nr = fprobe_sort_unique(l->ips, l->nr);
		fprobe_hook_remove(kind, l->ips, l->nr);
		kvfree(l->ips);
	}
}

/* ---- bindings --------------------------------------------------------------- */

static struct fprobe_binding *fprobe_find_binding(struct fprobe *fp)
{
	struct fprobe_binding *b;

	lockdep_assert_held(&fprobe_mutex);

	list_for_each_entry(b, &fprobe_bindings, list)
		if (b->fp == fp)
			return b;
	return NULL;
}

/*
 * Attach @fp to the @nr distinct call sites @ips.  Everything that can
 * fail happens before the first node is linked, so on error nothing of
 * @fp is visible and no handler of it has run.  @hash, if not NULL, points
 * to a hash of exactly @ips that the hook may take (fprobe_hook_add()).
 */
static int fprobe_attach(struct fprobe *fp, const unsigned long *ips,
			 unsigned int nr, struct ftrace_hash **hash)
{
	u8 kind = fp->exit_handler ? FPROBE_KIND_GRAPH : FPROBE_KIND_ENTRY;
	unsigned long words = 0, *fresh;
	struct fprobe_binding *b;
	unsigned int i, nfresh = 0;
	struct fprobe_map *map;
	int ret;

	if (kind == FPROBE_KIND_GRAPH)
		words = DIV_ROUND_UP(fp->entry_data_size, sizeof(long));

	b = kvzalloc(struct_size(b, nodes, nr), GFP_KERNEL);
	fresh = kvmalloc_array(nr, sizeof(*fresh), GFP_KERNEL);
	if (!b || !fresh) {
		ret = -ENOMEM;
		goto out;
	}
	b->nr = nr;
	b->fp = fp;

	mutex_lock(&fprobe_mutex);
	if (fprobe_find_binding(fp)) {
		ret = -EBUSY;
		goto unlock;
	}
	ret = fprobe_map_fit(nr);
	if (!ret && kind == FPROBE_KIND_GRAPH)
		ret = fprobe_regs_fit();
	if (ret)
		goto unlock;
	map = fprobe_map_locked();

	/* With no node of @kind linked, every site is fresh. */
	for (i = 0; i < nr; i++)
		if (!fprobe_kind_linked[kind] ||
		    !fprobe_site_has_kind(map, ips[i], kind))
			fresh[nfresh++] = ips[i];
	ret = fprobe_hook_add(kind, fresh, nfresh, nfresh == nr ? hash : NULL);
	if (ret)
		goto unlock;

	/* Nothing below fails: the probe goes live site by site. */
	fp->nmissed = 0;
	if (kind == FPROBE_KIND_GRAPH)
		fprobe_regs_enter(b);
	for (i = 0; i < nr; i++) {
		struct fprobe_node *node = &b->nodes[i];

		node->ip = ips[i];
		node->fp = fp;
		node->kind = kind;
		node->hdr = b->id | FPROBE_HDR_CALL | words;
		fprobe_node_link(map, node);
	}
	list_add_tail(&b->list, &fprobe_bindings);
	WRITE_ONCE(fp->binding, b);
	b = NULL;
unlock:
	mutex_unlock(&fprobe_mutex);
out:
	kvfree(fresh);
	kvfree(b);
	return ret;
}

/* Take all of @b out of the map and the hooks, wait, and free it. */
static void fprobe_detach(struct fprobe_binding *b)
{
	struct fprobe_site_list lists[FPROBE_NR_KINDS];
	unsigned int count[FPROBE_NR_KINDS] = { };
	struct fprobe_map *map = fprobe_map_locked();
	unsigned int i;

	lockdep_assert_held(&fprobe_mutex);

	for (i = 0; i < b->nr; i++) {
		if (b->nodes[i].linked) {
			count[b->nodes[i].kind]++;
			fprobe_node_unlink(map, &b->nodes[i]);
		}
	}
	fprobe_regs_leave(b);
	fprobe_lists_alloc(lists, count);
	fprobe_collect_released(b, lists);
	fprobe_release_sites(lists);
	fprobe_map_trim();

	/* Every handler that found a node of @b has returned after this. */
	synchronize_rcu();
	fprobe_map_reap();
	kvfree(b);
}

/* ---- registration API ------------------------------------------------------- */

/* Turn function addresses into their call sites; false if one has none. */
static bool fprobe_to_sites(unsigned long *addrs, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		addrs[i] = ftrace_location(addrs[i]);
		if (!addrs[i])
			return false;
	}
	return true;
}

/* Sort and de-duplicate the call sites, then attach. */
static int fprobe_register_sites(struct fprobe *fp, unsigned long *ips,
				 unsigned int nr)
{
	nr = fprobe_sort_unique(ips, nr);
	if (!nr)
		return -ENOENT;
	return fprobe_attach(fp, ips, nr, NULL);
}

/* Attach to sites that are sorted already: drop repeats, no second sort. */
static int fprobe_attach_sorted_sites(struct fprobe *fp, unsigned long *ips,
				      unsigned int nr)
{
	unsigned int i, out = 0;

	for (i = 1; i < nr; i++)
		if (ips[i] < ips[i - 1])
			return fprobe_register_sites(fp, ips, nr);
	for (i = 0; i < nr; i++)
		if (!out || ips[i] != ips[out - 1])
			ips[out++] = ips[i];
	if (!out)
		return -ENOENT;
	return fprobe_attach(fp, ips, out, NULL);
}

static int fprobe_check(struct fprobe *fp)
{
	if (!fp)
		return -EINVAL;
	if (fp->entry_data_size > FPROBE_ENTRY_DATA_MAX)
		return -E2BIG;
	return 0;
}

/* Add (or, with @negate, take out) the functions matching @glob. */
static int fprobe_match_glob(struct ftrace_hash *hash, const char *glob,
			     bool negate)
{
	char *buf;
	int ret;

	buf = kasprintf(GFP_KERNEL, "%s%s", negate ? "!" : "", glob);
	if (!buf)
		return -ENOMEM;
	ret = ftrace_match_records(hash, buf, strlen(buf));
	kfree(buf);
	return ret;
}

/**
 * register_fprobe() - attach an fprobe to the functions matching a glob
 * @fp: the probe; handlers and entry_data_size set
 * @filter: glob of the functions to probe ("vfs_*", "func", "func:mod:m")
 * @notfilter: glob of functions to leave out, or NULL
 *
 * Context: process context; sleeps.
 * Return: 0; -EINVAL for a NULL argument; -E2BIG if entry_data_size is
 * larger than %FPROBE_ENTRY_DATA_MAX; -ENOENT if no traceable function
 * remains; -EBUSY if @fp is registered already; -ENOMEM; or the error of
 * the function-hook core.  On error nothing of @fp is registered.
 */
int register_fprobe(struct fprobe *fp, const char *filter, const char *notfilter)
{
	struct ftrace_func_entry *entry;
	struct ftrace_hash *hash;
	unsigned long *ips;
	unsigned int i, nr = 0;
	int ret;

	ret = fprobe_check(fp);
	if (ret || !filter)
		return ret ?: -EINVAL;

	hash = ftrace_hash_alloc(FTRACE_HASH_DEFAULT_BITS);
	if (!hash)
		return -ENOMEM;
	ret = fprobe_match_glob(hash, filter, false);
	if (ret > 0 && notfilter)
		ret = fprobe_match_glob(hash, notfilter, true);
	if (ret < 0)
		goto out;
	if (!hash->count) {
		ret = -ENOENT;
		goto out;
	}

	ips = kvmalloc_array(hash->count, sizeof(*ips), GFP_KERNEL);
	if (!ips) {
		ret = -ENOMEM;
		goto out;
	}
	/* Hash entries are distinct call sites: no sorting needed. */
	for_each_hash_entry(hash, i, entry)
		ips[nr++] = entry->ip;
	ret = fprobe_attach(fp, ips, nr, &hash);
	kvfree(ips);
out:
	ftrace_hash_free(hash);
	return ret;
}
EXPORT_SYMBOL_GPL(register_fprobe);

/**
 * register_fprobe_ips() - attach an fprobe to functions given by address
 * @fp: the probe; handlers and entry_data_size set
 * @addrs: ftrace locations, or start addresses of traceable functions;
 *	duplicates are allowed; the array is not modified
 * @num: number of entries in @addrs
 *
 * Context: process context; sleeps.
 * Return: 0; -EINVAL for a bad argument or an address that is not a
 * traceable function; otherwise as register_fprobe().
 */
int register_fprobe_ips(struct fprobe *fp, unsigned long *addrs, int num)
{
	unsigned long *ips;
	unsigned int nr;
	int ret;

	ret = fprobe_check(fp);
	if (ret || !addrs || num <= 0)
		return ret ?: -EINVAL;

	ips = kvmalloc_array(num, sizeof(*ips), GFP_KERNEL);
	if (!ips)
		return -ENOMEM;
	memcpy(ips, addrs, num * sizeof(*ips));
	/*
	 * Sorted addresses turn into their call sites in one walk along the
	 * site records (BPF hands over tens of thousands), and the sites
	 * come out sorted: only neighbours can repeat.
	 */
	nr = fprobe_sort_unique(ips, num);
	if (ftrace_locations_sorted(ips, nr))
		ret = fprobe_attach_sorted_sites(fp, ips, nr);
	else
		ret = -EINVAL;
	kvfree(ips);
	return ret;
}
EXPORT_SYMBOL_GPL(register_fprobe_ips);

static int fprobe_cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char * const *)a, *(const char * const *)b);
}

/**
 * register_fprobe_syms() - attach an fprobe to functions given by name
 * @fp: the probe; handlers and entry_data_size set
 * @syms: function names; duplicates are allowed; the array is not modified
 * @num: number of entries in @syms
 *
 * Context: process context; sleeps (walks kallsyms).
 * Return: 0; -EINVAL for a bad argument; -ENOENT if a name is not a
 * traceable function; otherwise as register_fprobe().
 */
int register_fprobe_syms(struct fprobe *fp, const char **syms, int num)
{
	unsigned long *addrs = NULL;
	const char **names;
	int i, nr = 0, ret;

	ret = fprobe_check(fp);
	if (ret || !syms || num <= 0)
		return ret ?: -EINVAL;

	names = kvmalloc_array(num, sizeof(*names), GFP_KERNEL);
	if (!names)
		return -ENOMEM;
	for (i = 0; i < num; i++) {
		if (!syms[i]) {
			ret = -EINVAL;
			goto out;
		}
		names[i] = syms[i];
	}
	/* ftrace_lookup_symbols() wants the names sorted and distinct. */
	sort(names, num, sizeof(*names), fprobe_cmp_name, NULL);
	for (i = 0; i < num; i++)
		if (!nr || strcmp(names[nr - 1], names[i]))
			names[nr++] = names[i];

	addrs = kvmalloc_array(nr, sizeof(*addrs), GFP_KERNEL);
	if (!addrs) {
		ret = -ENOMEM;
		goto out;
	}
	if (ftrace_lookup_symbols(names, nr, addrs) ||
	    !fprobe_to_sites(addrs, nr)) {
		ret = -ENOENT;
		goto out;
	}
	ret = fprobe_register_sites(fp, addrs, nr);
out:
	kvfree(addrs);
	kvfree(names);
	return ret;
}
EXPORT_SYMBOL_GPL(register_fprobe_syms);

/**
 * fprobe_is_registered() - is an fprobe attached?
 * @fp: the probe, or NULL
 *
 * Context: any; a lockless snapshot.
 * Return: true between a successful register and the matching unregister.
 */
bool fprobe_is_registered(struct fprobe *fp)
{
	return fp && READ_ONCE(fp->binding);
}
EXPORT_SYMBOL_GPL(fprobe_is_registered);

/**
 * unregister_fprobe() - detach an fprobe from all its functions
 * @fp: a registered probe
 *
 * When this returns 0, no handler of @fp runs on any CPU and none will:
 * entries in flight have returned, and calls that entered before return
 * without calling @fp's exit handler.  @fp may then be freed or registered
 * again.
 *
 * Context: process context; sleeps (a grace period, and the hooks' own
 * waits when the last probe of a kind goes).
 * Return: 0, or -EINVAL if @fp is not registered.
 */
int unregister_fprobe(struct fprobe *fp)
{
	struct fprobe_binding *b;

	if (!fp)
		return -EINVAL;

	guard(mutex)(&fprobe_mutex);
	b = fprobe_find_binding(fp);
	if (!b)
		return -EINVAL;
	list_del(&b->list);
	WRITE_ONCE(fp->binding, NULL);
	fprobe_detach(b);
	return 0;
}
EXPORT_SYMBOL_GPL(unregister_fprobe);

/* ---- text going away -------------------------------------------------------- */

#ifdef CONFIG_MODULES
static bool fprobe_site_in(unsigned long ip, struct module *mod, bool init_only)
{
	return init_only ? within_module_init(ip, mod) : within_module(ip, mod);
}

/*
 * The module's text (or, once it is live, its init text) goes away: take
 * its sites out of the map and the hooks, so that a function loaded later
 * at the same address is not mistaken for a probed one.  The probes stay
 * registered on their other sites; their nodes are freed with them.
 */
static void fprobe_drop_module_sites(struct module *mod, bool init_only)
{
	struct fprobe_site_list lists[FPROBE_NR_KINDS];
	unsigned int count[FPROBE_NR_KINDS] = { };
	struct fprobe_map *map = fprobe_map_locked();
	struct fprobe_binding *b;
	struct fprobe_node *node;
	unsigned int i;

	list_for_each_entry(b, &fprobe_bindings, list) {
		for (i = 0; i < b->nr; i++) {
			node = &b->nodes[i];
			if (node->linked && fprobe_site_in(node->ip, mod, init_only)) {
				count[node->kind]++;
				fprobe_node_unlink(map, node);
			}
		}
	}
	if (!count[FPROBE_KIND_ENTRY] && !count[FPROBE_KIND_GRAPH])
		return;
	fprobe_lists_alloc(lists, count);
	list_for_each_entry(b, &fprobe_bindings, list)
		fprobe_collect_released(b, lists);
	fprobe_release_sites(lists);
}

static int fprobe_module_notify(struct notifier_block *nb, unsigned long state,
				void *data)
{
	if (state != MODULE_STATE_GOING && state != MODULE_STATE_LIVE)
		return NOTIFY_DONE;

	guard(mutex)(&fprobe_mutex);
	fprobe_drop_module_sites(data, state == MODULE_STATE_LIVE);
	return NOTIFY_DONE;
}

static struct notifier_block fprobe_module_nb = {
	.notifier_call	= fprobe_module_notify,
};

static int __init fprobe_init(void)
{
	return register_module_notifier(&fprobe_module_nb);
}
core_initcall(fprobe_init);
#endif /* CONFIG_MODULES */
