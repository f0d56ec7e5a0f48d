// SPDX-License-Identifier: GPL-2.0
/*
 * What each call site should call, and the batched update that makes it so.
 *
 * ftrace_sites_update() recomputes, from the registered ops, the set of ops
 * that wants each call site, and publishes the result as a new *site
 * generation*: the distinct sets (shared between all sites that want the same
 * ops) plus an open-addressing table ip -> set that the dispatcher
 * (ftrace_dispatch_find()) reads.  It then lets the architecture patch, in one
 * batch, exactly the sites whose target changed, retargets the shared
 * callers' ftrace_call, and frees the previous generation.
 *
 * Invariants:
 *  - A site's state (struct ftrace_site_state) has cur_addr, what the site
 *    executes now: 0 for the NOP, else the call target.  Only
 *    ftrace_update_record() changes it, i.e. the arch patcher right after it
 *    queued the matching text change; ftrace_lock is held.  A site without
 *    a state is the NOP.
 *  - The state's set is the set of the current generation that wants the
 *    site, NULL when none (always NULL for disabled sites).  It is written
 *    when a generation is published and read under ftrace_lock only.  Every
 *    site a generation gives a set has a state (made before publication).
 *  - The target of a record (site_target()) is a function of its set, of
 *    whether calls are enabled, of the ops' trampoline and of the direct
 *    address registered for its ip.  An update patches the records whose
 *    target differs from cur_addr, and no others.
 *  - Traced code reads ftrace_site_gen, its table and its sets without locks
 *    (preemption disabled).  A generation is freed only after its successor
 *    was published and every online CPU passed through the scheduler
 *    (site_wait_readers(), a rude RCU-tasks grace period in effect).  An update
 *    does not wait for that itself: it puts the generation it replaced on
 *    the retired list, which the next ftrace_sites_wait_readers() (every
 *    ops removal that needs a wait calls it) or, a second later, a worker
 *    frees after its own wait.  So one wait serves many updates, and no
 *    more than SITE_RETIRED_MAX generations are kept.
 *  - Between publication and patching a site may still call what its old
 *    set needed (a trampoline, or ftrace_caller); a site that reaches the
 *    dispatcher gets exactly the ops of its new set.
 *  - ftrace_call is retargeted in this order: the list dispatcher first
 *    (right for any set), then the sites are patched, then the function
 *    ftrace_pick_trace_func() chose.  function_trace_op belongs to ftrace.c,
 *    which only changes it while ftrace_call ignores it and only picks an
 *    ops' own function once every task loaded that ops as op.
 */
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/stop_machine.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "trace.h"
#include "ftrace_records.h"
#include "ftrace_hash.h"
#include "ftrace_patch.h"
#include "ftrace_ops.h"
#include "ftrace_direct.h"

struct ftrace_site_gen __rcu *ftrace_site_gen;

/* Sets whose members need the register-saving caller when sharing a site. */
#define SITE_SET_REGS_CALLER \
	(FTRACE_SET_SAVE_REGS | FTRACE_SET_IPMODIFY | FTRACE_SET_DIRECT)

/* Record flags that describe the wanting set, and those that describe the code. */
#define SITE_FL_WANTED	(FTRACE_REF_MAX | FTRACE_FL_REGS | FTRACE_FL_TRAMP | \
			 FTRACE_FL_IPMODIFY | FTRACE_FL_DIRECT)
#define SITE_FL_CODE	(FTRACE_FL_ENABLED | FTRACE_FL_REGS_EN | \
			 FTRACE_FL_TRAMP_EN | FTRACE_FL_DIRECT_EN)

enum site_kind {
	SITE_NOP,
	SITE_SHARED,	/* ftrace_caller or ftrace_regs_caller */
	SITE_TRAMP,	/* the trampoline of the set's only ops */
	SITE_DIRECT,	/* the direct trampoline registered for the ip */
};

/* ---- targets ------------------------------------------------------------ */

static unsigned long site_direct_addr(unsigned long ip)
{
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	return ftrace_find_rec_direct(ip);
#else
	return 0;
#endif
}

/* The trampoline a site wanted by @set alone may call, or 0. */
static unsigned long site_set_tramp(const struct ftrace_site_set *set)
{
	if (set->nr != 1 || (set->flags & FTRACE_SET_DIRECT))
		return 0;
	return set->ops[0]->trampoline;
}

/* What a site wanted by @set should call; 0 means the NOP. */
static unsigned long site_target(unsigned long ip,
				 const struct ftrace_site_set *set,
				 bool enable, enum site_kind *kind)
{
	unsigned long addr;

	*kind = SITE_NOP;
	if (!enable || !set)
		return 0;

	if (set->nr == 1 && (set->flags & FTRACE_SET_DIRECT)) {
		addr = site_direct_addr(ip);
		if (addr) {
			*kind = SITE_DIRECT;
			return addr;
		}
	}
	addr = site_set_tramp(set);
	if (addr) {
		*kind = SITE_TRAMP;
		return addr;
	}
	*kind = SITE_SHARED;
	if (set->flags & SITE_SET_REGS_CALLER)
		return FTRACE_REGS_ADDR;
	return FTRACE_ADDR;
}

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
/*
 * The ops a site's literal should hold while the site calls @addr: the
 * only member of its set when that member may be called straight, else
 * the dispatcher's ftrace_list_ops; ftrace_nop_ops while it calls nothing.
 * Only stable objects: an update rewrites a literal only when this choice
 * changes.
 */
static const struct ftrace_ops *site_call_ops(const struct ftrace_site_set *set,
					      unsigned long addr)
{
	if (!addr || !set)
		return &ftrace_nop_ops;
	if (set->nr == 1 && !(set->ops[0]->flags & FTRACE_OPS_CALL_CHECKS))
		return set->ops[0];
	return &ftrace_list_ops;
}

/*
 * Does a site that calls (and keeps calling) @addr need its literal
 * rewritten?  A site becoming a NOP gets ftrace_nop_ops with the NOP.
 */
static bool site_call_ops_stale(struct dyn_ftrace *rec,
				const struct ftrace_site_set *set,
				unsigned long addr)
{
	return addr && ftrace_arch_rec_call_ops(rec) != site_call_ops(set, addr);
}
#else
static inline bool site_call_ops_stale(struct dyn_ftrace *rec,
				       const struct ftrace_site_set *set,
				       unsigned long addr)
{
	return false;
}
#endif

/* Record flags describing @set (FTRACE_FL_DISABLED and the code flags stay). */
static void site_rec_mark_wanted(struct dyn_ftrace *rec,
				 const struct ftrace_site_set *set)
{
	unsigned long flags = rec->flags & ~SITE_FL_WANTED;

	if (set) {
		flags |= min_t(unsigned long, set->nr, FTRACE_REF_MAX);
		if ((set->flags & (FTRACE_SET_SAVE_REGS | FTRACE_SET_IPMODIFY)) ||
		    ((set->flags & FTRACE_SET_DIRECT) && set->nr > 1))
			flags |= FTRACE_FL_REGS;
		if (set->flags & FTRACE_SET_IPMODIFY)
			flags |= FTRACE_FL_IPMODIFY;
		if (set->flags & FTRACE_SET_DIRECT)
			flags |= FTRACE_FL_DIRECT;
		if (site_set_tramp(set))
			flags |= FTRACE_FL_TRAMP;
	}
	rec->flags = flags;
}

/* Record flags describing the code at the site, which now calls @addr. */
static void site_rec_mark_code(struct dyn_ftrace *rec,
			       const struct ftrace_site_set *set,
			       unsigned long addr, enum site_kind kind)
{
	unsigned long flags = rec->flags & ~SITE_FL_CODE;

	if (addr) {
		flags |= FTRACE_FL_ENABLED | FTRACE_FL_TOUCHED;
		if ((flags & FTRACE_FL_REGS) ||
		    (kind == SITE_SHARED && addr == FTRACE_REGS_ADDR))
			flags |= FTRACE_FL_REGS_EN;
		if (kind == SITE_TRAMP)
			flags |= FTRACE_FL_TRAMP_EN;
		if (kind == SITE_DIRECT)
			flags |= FTRACE_FL_DIRECT_EN;
		if (set && (set->flags & (FTRACE_SET_IPMODIFY | FTRACE_SET_DIRECT)))
			flags |= FTRACE_FL_MODIFIED;
	}
	rec->flags = flags;
}

/* ---- building a generation ---------------------------------------------- */

/*
 * A set as allocated: the memo pair remembers which set adding memo_ops to
 * this one gave, so every record that takes the same path through the ops
 * list ends up with the same (interned) set.
 */
struct site_set_node {
	struct ftrace_site_set	*memo_next;
	struct ftrace_ops	*memo_ops;
	struct ftrace_site_set	set;	/* last: ends in ops[] */
};

static struct site_set_node *site_set_node(struct ftrace_site_set *set)
{
	return container_of(set, struct site_set_node, set);
}

static void site_gen_free(struct ftrace_site_gen *gen)
{
	struct ftrace_site_set *set, *next;

	if (!gen)
		return;
	for (set = gen->sets; set; set = next) {
		next = set->next_in_gen;
		kfree(site_set_node(set));
	}
	kvfree(gen->slots);
	kfree(gen);
}

/* Per-record scratch: the wanting set while building, then the patch list. */
union site_scratch {
	struct ftrace_site_set	*set;
	struct dyn_ftrace	*rec;
};

struct site_span {
	struct ftrace_site_group	*group;
	unsigned int			base;	/* scratch index of site 0 */
};

struct site_build {
	struct ftrace_site_gen	*gen;		/* owns every set made */
	union site_scratch	*scratch;	/* one per record */
	struct site_span	*spans;		/* one per group, list order */
	unsigned int		nr_spans;
	unsigned int		last_span;	/* lookup hint */
	unsigned int		entries;	/* records with a set */
	unsigned int		nr_patch;	/* scratch[] entries to patch */
	struct ftrace_site_set	*from_empty;	/* memo of the empty set */
};

static void site_build_free(struct site_build *b)
{
	site_gen_free(b->gen);
	kvfree(b->scratch);
	kfree(b->spans);
	b->gen = NULL;
	b->scratch = NULL;
	b->spans = NULL;
}

static int site_build_begin(struct site_build *b)
{
	struct ftrace_site_group *g;
	unsigned int nr_groups = 0, total = 0, k = 0;

	memset(b, 0, sizeof(*b));
	for_each_site_group(g) {
		nr_groups++;
		total += g->nr;
	}

	b->gen = kzalloc(sizeof(*b->gen), GFP_KERNEL);
	b->spans = kmalloc_array(nr_groups, sizeof(*b->spans), GFP_KERNEL);
	b->scratch = kvcalloc(total, sizeof(*b->scratch), GFP_KERNEL);
	if (!b->gen || !b->spans || !b->scratch) {
		site_build_free(b);
		return -ENOMEM;
	}

	total = 0;
	for_each_site_group(g) {
		b->spans[k].group = g;
		b->spans[k].base = total;
		total += g->nr;
		k++;
	}
	b->nr_spans = k;
	return 0;
}

/*
 * Scratch index of site @i of @g, one of the spanned groups (found under
 * the same ftrace_lock section, so it is there).
 */
static unsigned int site_build_index(struct site_build *b,
				     const struct ftrace_site_group *g,
				     unsigned int i)
{
	unsigned int k = b->last_span;

	if (k >= b->nr_spans || b->spans[k].group != g) {
		for (k = 0; k < b->nr_spans; k++)
			if (b->spans[k].group == g)
				break;
		if (WARN_ON_ONCE(k == b->nr_spans))
			return UINT_MAX;
		b->last_span = k;
	}
	return b->spans[k].base + i;
}

static unsigned int site_ops_set_flags(const struct ftrace_ops *ops)
{
	unsigned int flags = 0;

	if (ops->flags & (FTRACE_OPS_FL_SAVE_REGS |
			  FTRACE_OPS_FL_SAVE_REGS_IF_SUPPORTED))
		flags |= FTRACE_SET_SAVE_REGS;
	if (ops->flags & FTRACE_OPS_FL_IPMODIFY)
		flags |= FTRACE_SET_IPMODIFY;
	if (ops->flags & FTRACE_OPS_FL_DIRECT)
		flags |= FTRACE_SET_DIRECT;
	return flags;
}

/*
 * One site cannot serve two ip-modifiers or two direct calls.  An
 * ip-modifier and a direct call may share a site where the direct ops
 * agreed to (its ops_func); site_build_add() checks that per site, since
 * a set serves many sites.
 */
static bool site_set_flags_clash(unsigned int have, unsigned int add)
{
	return have & add & (FTRACE_SET_IPMODIFY | FTRACE_SET_DIRECT);
}

#define SITE_SET_SHARED	(FTRACE_SET_IPMODIFY | FTRACE_SET_DIRECT)

/* A set with both an ip-modifier and a direct call, on a site not agreed. */
static bool site_set_share_refused(const struct ftrace_site_set *set,
				   unsigned long ip)
{
	if ((set->flags & SITE_SET_SHARED) != SITE_SET_SHARED)
		return false;
	return !ftrace_direct_shares_ip(ip);
}

/* The set @prev plus @ops (appended: list order is kept), newly made. */
static struct ftrace_site_set *site_set_extend(struct site_build *b,
					       struct ftrace_site_set *prev,
					       struct ftrace_ops *ops)
{
	unsigned int have = prev ? prev->flags : 0;
	unsigned int add = site_ops_set_flags(ops);
	unsigned int nr = prev ? prev->nr + 1 : 1;
	struct site_set_node *node;
	struct ftrace_site_set *set;

	if (site_set_flags_clash(have, add))
		return ERR_PTR(-EBUSY);

	/* One more slot: ops[nr] stays NULL, the dispatcher's end mark. */
	node = kzalloc(struct_size(node, set.ops, nr + 1), GFP_KERNEL);
	if (!node)
		return ERR_PTR(-ENOMEM);
	set = &node->set;
	set->nr = nr;
	set->flags = have | add;
	if (prev)
		memcpy(set->ops, prev->ops, prev->nr * sizeof(*prev->ops));
	set->ops[nr - 1] = ops;
	set->next_in_gen = b->gen->sets;
	b->gen->sets = set;
	return set;
}

/* Make the site at @ip, at scratch index @i, wanted by @ops too. */
static int site_build_add(struct site_build *b, unsigned int i,
			  unsigned long ip, struct ftrace_ops *ops)
{
	struct ftrace_site_set *prev = b->scratch[i].set;
	struct ftrace_site_set *next;

	/* A manager's subops may list the same ip twice. */
	if (prev && prev->ops[prev->nr - 1] == ops)
		return 0;

	if (!prev)
		next = b->from_empty;
	else if (site_set_node(prev)->memo_ops == ops)
		next = site_set_node(prev)->memo_next;
	else
		next = NULL;

	if (!next) {
		next = site_set_extend(b, prev, ops);
		if (IS_ERR(next))
			return PTR_ERR(next);
		if (!prev) {
			b->from_empty = next;
		} else {
			site_set_node(prev)->memo_ops = ops;
			site_set_node(prev)->memo_next = next;
		}
	}

	if (site_set_share_refused(next, ip))
		return -EBUSY;

	if (!prev)
		b->entries++;
	b->scratch[i].set = next;
	return 0;
}

static struct ftrace_hash *site_ops_filter(struct ftrace_ops *ops)
{
	if (!ops->func_hash)
		return NULL;
	return rcu_dereference_protected(ops->func_hash->filter_hash,
					 lockdep_is_held(&ftrace_lock));
}

static struct ftrace_hash *site_ops_notrace(struct ftrace_ops *ops)
{
	if (!ops->func_hash)
		return NULL;
	return rcu_dereference_protected(ops->func_hash->notrace_hash,
					 lockdep_is_held(&ftrace_lock));
}

/* subop_list is only initialised once an ops was set up for registration. */
static bool site_ops_has_subops(struct ftrace_ops *ops)
{
	return ops->subop_list.next && !list_empty(&ops->subop_list);
}

/* How to find the records an ops wants. */
enum site_scan {
	SITE_SCAN_ALL,		/* every record, no test needed */
	SITE_SCAN_TEST,		/* every record, ask ftrace_ops_or_subops_want_ip() */
	SITE_SCAN_HASHES,	/* only the ips of the filter hash(es), and ask */
};

static enum site_scan site_ops_scan(struct ftrace_ops *ops)
{
	struct ftrace_ops *sub;

	if (site_ops_has_subops(ops)) {
		/* A manager wants what its enabled subops want. */
		list_for_each_entry(sub, &ops->subop_list, list)
			if ((sub->flags & FTRACE_OPS_FL_ENABLED) &&
			    ftrace_hash_empty(site_ops_filter(sub)))
				return SITE_SCAN_TEST;
		return SITE_SCAN_HASHES;
	}
	if (!ftrace_hash_empty(site_ops_filter(ops)))
		return SITE_SCAN_HASHES;
	if (!ftrace_hash_empty(site_ops_notrace(ops)))
		return SITE_SCAN_TEST;
	return SITE_SCAN_ALL;
}

static int site_build_scan(struct site_build *b, struct ftrace_ops *ops,
			   bool test)
{
	unsigned int k, i;
	int err;

	for (k = 0; k < b->nr_spans; k++) {
		struct ftrace_site_group *g = b->spans[k].group;

		for (i = 0; i < g->nr; i++) {
			unsigned long ip;

			if (ftrace_site_disabled(g, i))
				continue;
			ip = ftrace_site_ip(g, i);
			if (test && !ftrace_ops_or_subops_want_ip(ops, ip))
				continue;
			err = site_build_add(b, b->spans[k].base + i, ip, ops);
			if (err)
				return err;
		}
	}
	return 0;
}

static int site_build_hash(struct site_build *b, struct ftrace_ops *ops,
			   struct ftrace_hash *hash)
{
	struct ftrace_func_entry *entry;
	unsigned long bucket;
	unsigned int i;
	int err;

	for_each_hash_entry(hash, bucket, entry) {
		unsigned long ip = READ_ONCE(entry->ip);
		struct ftrace_site_group *g;

		/* ip 0: an entry of freed text, kept so the hash stays non-empty */
		if (!ip)
			continue;
		g = ftrace_site_find(ip, &i);
		if (!g || ftrace_site_disabled(g, i))
			continue;
		if (!ftrace_ops_or_subops_want_ip(ops, ip))
			continue;
		i = site_build_index(b, g, i);
		if (i == UINT_MAX)
			continue;
		err = site_build_add(b, i, ip, ops);
		if (err)
			return err;
	}
	return 0;
}

static int site_build_ops(struct site_build *b, struct ftrace_ops *ops)
{
	struct ftrace_ops *sub;
	int err;

	b->from_empty = NULL;

	switch (site_ops_scan(ops)) {
	case SITE_SCAN_ALL:
		return site_build_scan(b, ops, false);
	case SITE_SCAN_TEST:
		return site_build_scan(b, ops, true);
	case SITE_SCAN_HASHES:
		break;
	}

	if (!site_ops_has_subops(ops))
		return site_build_hash(b, ops, site_ops_filter(ops));
	list_for_each_entry(sub, &ops->subop_list, list) {
		if (!(sub->flags & FTRACE_OPS_FL_ENABLED))
			continue;
		err = site_build_hash(b, ops, site_ops_filter(sub));
		if (err)
			return err;
	}
	return 0;
}

/* Step 1: the interned set of every record, in ftrace_ops_list order. */
static int site_build_sets(struct site_build *b)
{
	struct ftrace_ops *ops;
	int err;

	for (ops = rcu_dereference_protected(ftrace_ops_list,
					     lockdep_is_held(&ftrace_lock));
	     ops && ops != &ftrace_list_end;
	     ops = rcu_dereference_protected(ops->next,
					     lockdep_is_held(&ftrace_lock))) {
		if (!(ops->flags & FTRACE_OPS_FL_ENABLED))
			continue;
		err = site_build_ops(b, ops);
		if (err)
			return err;
	}
	return 0;
}

/* Same probe sequence as ftrace_dispatch_find(). */
static void site_table_insert(struct ftrace_site_gen *gen, unsigned long ip,
			      struct ftrace_site_set *set)
{
	unsigned int i = ftrace_dispatch_hash(ip) & gen->mask;

	while (gen->slots[i].ip)
		i = (i + 1) & gen->mask;
	gen->slots[i].ip = ip;
	gen->slots[i].set = set;
	gen->used++;
}

/*
 * Step 2: the ip -> set table, at most half full, and a state for every
 * site that gets a set.
 */
static int site_build_table(struct site_build *b)
{
	struct ftrace_site_gen *gen = b->gen;
	unsigned long slots;
	unsigned int k, i;

	if (!b->entries)
		return 0;

	slots = roundup_pow_of_two(2UL * b->entries);
	gen->slots = kvcalloc(slots, sizeof(*gen->slots), GFP_KERNEL);
	if (!gen->slots)
		return -ENOMEM;
	gen->mask = slots - 1;

	for (k = 0; k < b->nr_spans; k++) {
		struct ftrace_site_group *g = b->spans[k].group;

		for (i = 0; i < g->nr; i++) {
			struct ftrace_site_set *set = b->scratch[b->spans[k].base + i].set;

			if (!set)
				continue;
			if (!ftrace_site_state_get(g, i))
				return -ENOMEM;
			site_table_insert(gen, ftrace_site_ip(g, i), set);
		}
	}
	return 0;
}

/* Every member of @gen's sets may be called from now on. */
static void site_mark_live(struct ftrace_site_gen *gen)
{
	struct ftrace_site_set *set;
	unsigned int i;

	for (set = gen->sets; set; set = set->next_in_gen)
		for (i = 0; i < set->nr; i++)
			if (!(set->ops[i]->flags & FTRACE_OPS_FL_SITE_LIVE))
				set->ops[i]->flags |= FTRACE_OPS_FL_SITE_LIVE;
}

/*
 * Step 3: make the new generation current, store every record's set and
 * flags, and turn b->scratch into the list of records to patch.  Returns the
 * previous generation, which readers may still use.
 */
static struct ftrace_site_gen *site_publish(struct site_build *b, bool enable)
{
	struct ftrace_site_gen *old, *gen = b->gen;
	unsigned int k, i, nr_patch = 0;

	old = rcu_dereference_protected(ftrace_site_gen,
					lockdep_is_held(&ftrace_lock));
	if (!b->entries) {
		/* No record is wanted, so no set was made. */
		site_gen_free(gen);
		gen = NULL;
	}
	rcu_assign_pointer(ftrace_site_gen, gen);
	b->gen = NULL;
	if (gen)
		site_mark_live(gen);

	for (k = 0; k < b->nr_spans; k++) {
		struct ftrace_site_group *g = b->spans[k].group;

		for (i = 0; i < g->nr; i++) {
			struct ftrace_site_set *set = b->scratch[b->spans[k].base + i].set;
			struct ftrace_site_state *st = ftrace_site_state(g, i);
			struct dyn_ftrace *rec;
			enum site_kind kind;
			unsigned long addr;

			/* No state and no set: a NOP nobody wants, as before. */
			if (!st)
				continue;
			rec = &st->rec;
			st->set = set;
			site_rec_mark_wanted(rec, set);
			if (ftrace_site_disabled(g, i))
				continue;
			addr = site_target(rec->ip, set, enable, &kind);
			if (addr == st->cur_addr &&
			    !site_call_ops_stale(rec, set, addr))
				site_rec_mark_code(rec, set, addr, kind);
			else
				b->scratch[nr_patch++].rec = rec;	/* <= index read */
		}
	}
	b->nr_patch = nr_patch;
	return old;
}

/* ---- record iteration for the arch patcher ----------------------------- */

/*
 * Walks every record with a state, or, while ftrace_sites_update()
 * patches, only the records whose target changed (any other record would
 * be FTRACE_UPDATE_IGNORE, as is every site without a state: a NOP nobody
 * wants).  One iterator, used under ftrace_lock.
 */
struct ftrace_rec_iter {
	struct ftrace_site_group	*group;	/* full walk */
	unsigned int			index;	/* in group, or in the patch list */
	struct dyn_ftrace		*rec;
};

static struct ftrace_rec_iter site_iter;
static union site_scratch *site_patch_list;
static unsigned int site_patch_nr;
/* Entry of site_patch_list the patcher asked about last. */
static unsigned int site_patch_pos;

/*
 * The state of @rec if it is the record at entry @k of the patch list.
 * Every entry is the record of a state (site_publish() listed it).
 */
static struct ftrace_site_state *site_patch_at(unsigned int k,
					       const struct dyn_ftrace *rec)
{
	if (k >= site_patch_nr || site_patch_list[k].rec != rec)
		return NULL;
	site_patch_pos = k;
	return container_of(site_patch_list[k].rec, struct ftrace_site_state,
			    rec);
}

/*
 * While an update patches, the arch patcher walks the patch list in order,
 * once or twice, and asks a few questions about each record: its state is
 * then the entry asked about last, the one after it, or the first (the
 * start of another pass).  NULL for anything else, or outside an update.
 */
static struct ftrace_site_state *site_patch_state(const struct dyn_ftrace *rec)
{
	struct ftrace_site_state *st;
	unsigned int k = site_patch_pos;

	if (!site_patch_list)
		return NULL;
	st = site_patch_at(k, rec);
	if (!st)
		st = site_patch_at(k + 1, rec);
	if (!st && k)
		st = site_patch_at(0, rec);
	return st;
}

/* The first record with a state at or after site @i of @g. */
static struct ftrace_rec_iter *site_iter_from(struct ftrace_site_group *g,
					      unsigned int i)
{
	struct ftrace_site_state *st;

	for (; g; g = rcu_dereference_check(g->next, lockdep_is_held(&ftrace_lock)),
	     i = 0) {
		for (; i < g->nr; i++) {
			st = ftrace_site_state(g, i);
			if (!st) {
				/* skip the rest of a chunk never made */
				i |= FTRACE_SITE_CHUNK - 1;
				continue;
			}
			site_iter.group = g;
			site_iter.index = i;
			site_iter.rec = &st->rec;
			return &site_iter;
		}
	}
	return NULL;
}

/**
 * ftrace_rec_iter_start - start walking the records for the arch patcher
 *
 * Context: ftrace_lock held.
 * Return: the iterator at the first record, or NULL if there is none.
 */
struct ftrace_rec_iter *ftrace_rec_iter_start(void)
{
	if (site_patch_list) {
		if (!site_patch_nr)
			return NULL;
		site_iter.index = 0;
		site_iter.rec = site_patch_list[0].rec;
		site_patch_pos = 0;
		return &site_iter;
	}
	return site_iter_from(rcu_dereference_check(ftrace_site_groups,
						    lockdep_is_held(&ftrace_lock)), 0);
}

/**
 * ftrace_rec_iter_next - advance the iterator
 * @iter: the iterator
 *
 * Return: @iter at the next record, or NULL at the end.
 */
struct ftrace_rec_iter *ftrace_rec_iter_next(struct ftrace_rec_iter *iter)
{
	if (site_patch_list) {
		if (++iter->index >= site_patch_nr)
			return NULL;
		iter->rec = site_patch_list[iter->index].rec;
		site_patch_pos = iter->index;
		return iter;
	}
	return site_iter_from(iter->group, iter->index + 1);
}

/**
 * ftrace_rec_iter_record - the record the iterator is at
 * @iter: the iterator
 *
 * Return: the record.
 */
struct dyn_ftrace *ftrace_rec_iter_record(struct ftrace_rec_iter *iter)
{
	return iter->rec;
}

/* ---- record state for the arch patcher ---------------------------------- */

static int site_action(unsigned long cur, unsigned long target, bool ops_stale)
{
	if (cur == target && !ops_stale) {
		ftrace_bug_type = FTRACE_BUG_UNKNOWN;
		return FTRACE_UPDATE_IGNORE;
	}
	if (!cur) {
		ftrace_bug_type = FTRACE_BUG_CALL;
		return FTRACE_UPDATE_MAKE_CALL;
	}
	if (!target) {
		ftrace_bug_type = FTRACE_BUG_NOP;
		return FTRACE_UPDATE_MAKE_NOP;
	}
	ftrace_bug_type = FTRACE_BUG_UPDATE;
	return FTRACE_UPDATE_MODIFY_CALL;
}

/* The state of the site @rec names, or NULL if it has none. */
static struct ftrace_site_state *site_state_of(const struct dyn_ftrace *rec)
{
	struct ftrace_site_state *st = site_patch_state(rec);
	struct ftrace_site_group *g;
	unsigned int i;

	if (st)
		return st;
	g = ftrace_site_group_of(rec, &i);
	return g ? ftrace_site_state(g, i) : NULL;
}

/*
 * The state of @rec, or NULL for a record that is never patched (disabled,
 * without a state, or unknown, which would be a bug).  Resets
 * ftrace_bug_type for the action that follows.
 */
static struct ftrace_site_state *site_patchable(struct dyn_ftrace *rec)
{
	struct ftrace_site_state *st;
	struct ftrace_site_group *g;
	unsigned int i;

	ftrace_bug_type = FTRACE_BUG_UNKNOWN;
	if (rec->flags & FTRACE_FL_DISABLED)
		return NULL;
	/* listed records are never disabled sites */
	st = site_patch_state(rec);
	if (st)
		return st;
	g = ftrace_site_group_of(rec, &i);
	WARN_ON_ONCE(!g);
	if (!g || ftrace_site_disabled(g, i))
		return NULL;
	return ftrace_site_state(g, i);
}

/**
 * ftrace_test_record - what patching a record would do
 * @rec: the record
 * @enable: false when all sites must become NOPs
 *
 * Context: ftrace_lock held.  O(1).
 * Return: FTRACE_UPDATE_IGNORE, _MAKE_CALL, _MAKE_NOP or _MODIFY_CALL.
 */
int ftrace_test_record(struct dyn_ftrace *rec, bool enable)
{
	struct ftrace_site_state *st = site_patchable(rec);
	enum site_kind kind;
	unsigned long addr;

	if (!st)
		return FTRACE_UPDATE_IGNORE;
	addr = site_target(rec->ip, st->set, enable, &kind);
	return site_action(st->cur_addr, addr,
			   site_call_ops_stale(&st->rec, st->set, addr));
}

/**
 * ftrace_update_record - record that a site's code was (queued to be) changed
 * @rec: the record
 * @enable: false when all sites must become NOPs
 *
 * Stores the record's target as what it calls now and refreshes its
 * FTRACE_FL_* code flags.  The caller patches the text accordingly.
 *
 * Context: ftrace_lock held.  O(1).
 * Return: the FTRACE_UPDATE_* action this stands for.
 */
int ftrace_update_record(struct dyn_ftrace *rec, bool enable)
{
	struct ftrace_site_state *st = site_patchable(rec);
	enum site_kind kind;
	unsigned long addr;
	int action;

	if (!st)
		return FTRACE_UPDATE_IGNORE;

	addr = site_target(rec->ip, st->set, enable, &kind);
	action = site_action(st->cur_addr, addr,
			     site_call_ops_stale(&st->rec, st->set, addr));
	if (action != FTRACE_UPDATE_IGNORE) {
		st->cur_addr = addr;
		site_rec_mark_code(&st->rec, st->set, addr, kind);
	}
	return action;
}

/**
 * ftrace_get_addr_curr - what a call site calls now
 * @rec: the record
 *
 * Return: the call target, or 0 if the site is the NOP.
 */
unsigned long ftrace_get_addr_curr(struct dyn_ftrace *rec)
{
	struct ftrace_site_state *st = site_state_of(rec);

	return st ? st->cur_addr : 0;
}

/**
 * ftrace_get_addr_new - what a call site should call with calls enabled
 * @rec: the record
 *
 * Return: the call target, or 0 if no registered ops wants the site.
 */
unsigned long ftrace_get_addr_new(struct dyn_ftrace *rec)
{
	struct ftrace_site_state *st = site_state_of(rec);
	enum site_kind kind;

	if (!st)
		return 0;
	return site_target(rec->ip, st->set, true, &kind);
}

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
/**
 * ftrace_rec_call_ops - the ops a call site's literal should hold
 * @rec: the record of a site that is made to call, or kept calling, its
 *	 target (ftrace_get_addr_new())
 *
 * For the architecture's ftrace_make_call() and ftrace_modify_call(),
 * which write the literal before the call (a site becoming a NOP gets
 * &ftrace_nop_ops).  ftrace_caller calls literal->func with the literal as
 * op: a single ops that may be called straight, or &ftrace_list_ops, whose
 * dispatcher finds the site's set in one lookup.
 *
 * Context: ftrace_lock held.
 * Return: the ops; never NULL.
 */
const struct ftrace_ops *ftrace_rec_call_ops(struct dyn_ftrace *rec)
{
	struct ftrace_site_state *st = site_state_of(rec);
	enum site_kind kind;

	if (!st)
		return &ftrace_nop_ops;
	return site_call_ops(st->set, site_target(rec->ip, st->set, true, &kind));
}
#endif

/* ---- ftrace_call and the code update ------------------------------------ */

/* What ftrace_call/ftrace_regs_call call now (ftrace_64.S starts on the stub). */
static ftrace_func_t site_caller_func = ftrace_stub;

static int site_caller_retarget(ftrace_func_t func)
{
	int err;

	if (func == site_caller_func)
		return 0;
	err = ftrace_update_ftrace_func(func);
	if (!err)
		site_caller_func = func;
	return err;
}

/* Does ftrace_call still have to be pointed at ftrace_trace_function? */
static bool site_caller_stale(void)
{
	return ftrace_trace_function != site_caller_func;
}

static void site_caller_failed(int err)
{
	WARN(1, "ftrace: retargeting ftrace_call failed (%d)\n", err);
	ftrace_kill();
}

/**
 * ftrace_modify_all_code - carry out an update command
 * @command: FTRACE_UPDATE_CALLS or FTRACE_DISABLE_CALLS, optionally with
 *	     FTRACE_UPDATE_TRACE_FUNC and FTRACE_START/STOP_FUNC_RET
 *
 * With FTRACE_UPDATE_TRACE_FUNC, ftrace_call first calls the list
 * dispatcher (right for any site), then the sites are patched, and only then
 * ftrace_call calls ftrace_trace_function.  So a site the update turns off
 * never reaches a single ops' function directly on its way out.
 *
 * Context: from arch_ftrace_update_code(), text writable (see
 * ftrace_arch_code_modify_prepare()), ftrace_lock held by the updater.
 */
void ftrace_modify_all_code(int command)
{
	bool retarget = command & FTRACE_UPDATE_TRACE_FUNC;
	int err;

	if (retarget) {
		err = site_caller_retarget(arch_ftrace_ops_list_func);
		if (err) {
			site_caller_failed(err);
			return;
		}
	}

	if (command & FTRACE_UPDATE_CALLS)
		ftrace_replace_code(1);
	else if (command & FTRACE_DISABLE_CALLS)
		ftrace_replace_code(0);

	/* A site could not be patched (ftrace_bug()): touch nothing more. */
	if (ftrace_core_dead())
		return;

	/*
	 * ftrace_pick_trace_func() only picks an ops' own function once
	 * function_trace_op is that ops and every task that may still reach
	 * ftrace_call loaded it, so installing it now is safe.
	 */
	if (retarget && ftrace_trace_function != site_caller_func) {
		err = site_caller_retarget(ftrace_trace_function);
		if (err) {
			site_caller_failed(err);
			return;
		}
	}

	if (command & FTRACE_START_FUNC_RET)
		err = ftrace_enable_ftrace_graph_caller();
	else if (command & FTRACE_STOP_FUNC_RET)
		err = ftrace_disable_ftrace_graph_caller();
	else
		err = 0;
	if (WARN_ON_ONCE(err))
		ftrace_kill();
}

/**
 * ftrace_dyn_arch_init - architecture setup before the call sites are read
 *
 * Run by ftrace_init() before any record exists; an arch whose batch
 * patcher needs boot-time setup overrides it.
 *
 * Context: early boot, interrupts disabled.
 * Return: 0, or an error that leaves function tracing off for this boot.
 */
int __init __weak ftrace_dyn_arch_init(void)
{
	return 0;
}

/**
 * ftrace_arch_code_modify_prepare - make kernel text patchable
 *
 * Default: nothing to do.  Paired with ftrace_arch_code_modify_post_process().
 */
void __weak ftrace_arch_code_modify_prepare(void)
{
}

/**
 * ftrace_arch_code_modify_post_process - finish patching kernel text
 */
void __weak ftrace_arch_code_modify_post_process(void)
{
}

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
/**
 * ftrace_enable_ftrace_graph_caller - arch hook: graph users appeared
 *
 * Run by ftrace_modify_all_code() for FTRACE_START_FUNC_RET.  Arches
 * whose callers need patching for the graph path override it.
 *
 * Return: 0.
 */
int __weak ftrace_enable_ftrace_graph_caller(void)
{
	return 0;
}

/**
 * ftrace_disable_ftrace_graph_caller - arch hook: the last graph user left
 *
 * Run by ftrace_modify_all_code() for FTRACE_STOP_FUNC_RET.
 *
 * Return: 0.
 */
int __weak ftrace_disable_ftrace_graph_caller(void)
{
	return 0;
}
#endif /* CONFIG_FUNCTION_GRAPH_TRACER */

/**
 * ftrace_replace_code - patch every record the iterator yields
 * @mod_flags: bit 0 set: enable calls; clear: make every site a NOP
 *
 * Default one site at a time; architectures batch (x86 does).
 */
void __weak ftrace_replace_code(int mod_flags)
{
	bool enable = mod_flags & 1;
	struct ftrace_rec_iter *iter;
	struct dyn_ftrace *rec;
	unsigned long old, new;
	int err;

	for_ftrace_rec_iter(iter) {
		rec = ftrace_rec_iter_record(iter);
		old = ftrace_get_addr_curr(rec);
		new = ftrace_get_addr_new(rec);

		switch (ftrace_update_record(rec, enable)) {
		case FTRACE_UPDATE_MAKE_CALL:
			err = ftrace_make_call(rec, new);
			break;
		case FTRACE_UPDATE_MAKE_NOP:
			err = ftrace_make_nop(NULL, rec, old);
			break;
		case FTRACE_UPDATE_MODIFY_CALL:
			err = ftrace_modify_call(rec, old, new);
			break;
		default:
			continue;
		}
		if (err) {
			ftrace_bug(err, rec);
			return;
		}
	}
}

static int site_stop_machine_fn(void *data)
{
	ftrace_modify_all_code(*(int *)data);
	return 0;
}

/**
 * ftrace_run_stop_machine - carry out an update with every CPU stopped
 * @command: the update command
 */
void ftrace_run_stop_machine(int command)
{
	stop_machine(site_stop_machine_fn, &command, NULL);
}

/**
 * arch_ftrace_update_code - carry out an update command
 * @command: the update command
 *
 * Default: stop every CPU.  Architectures that patch live override it.
 */
void __weak arch_ftrace_update_code(int command)
{
	ftrace_run_stop_machine(command);
}

/**
 * ftrace_run_update_code - carry out an update command around the arch hooks
 * @command: the update command
 *
 * Context: ftrace_lock held.
 */
void ftrace_run_update_code(int command)
{
	ftrace_arch_code_modify_prepare();
	arch_ftrace_update_code(command);
	ftrace_arch_code_modify_post_process();
}

/* ---- the update --------------------------------------------------------- */

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
		site_gen_free(gen);
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

/* @old was replaced: free it once no reader can be on it. */
static void site_retire(struct ftrace_site_gen *old)
{
	if (system_state == SYSTEM_BOOTING) {
		site_gen_free(old);
		return;
	}
	old->retired_next = site_retired;
	site_retired = old;
	if (++site_nr_retired >= SITE_RETIRED_MAX)
		ftrace_sites_wait_readers();
	else
		schedule_delayed_work(&site_reap_work, HZ);
}

/* ---- the state of a site ftrace_bug() reports ---------------------------- */

/*
 * What the patcher knows of a site that could not be patched: what it
 * calls now, what it should call and the ops that want it.  ftrace_bug()
 * (ftrace_sites.c) prints it after the record's flags; site_build_run()
 * registers it before it makes the first state.
 */
static void site_bug_state(struct dyn_ftrace *rec)
{
	struct ftrace_site_state *st;
	struct ftrace_site_set *set;
	unsigned int k;

	st = site_state_of(rec);
	if (!st)
		return;
	pr_info(" calls now %pS (%lx), wanted %pS (%lx)\n",
		(void *)st->cur_addr, st->cur_addr,
		(void *)ftrace_get_addr_new(rec), ftrace_get_addr_new(rec));
	set = st->set;
	for (k = 0; set && k < set->nr; k++)
		pr_info(" ops %u: func %pS, trampoline %pS\n", k,
			set->ops[k]->func, (void *)set->ops[k]->trampoline);
}

static int site_build_run(struct site_build *b, bool with_table)
{
	int err;

	/* States appear only here: ftrace_bug() can describe them from now. */
	ftrace_sites_set_bug_detail(site_bug_state);
	err = site_build_begin(b);
	if (err)
		return err;
	err = site_build_sets(b);
	if (!err && with_table)
		err = site_build_table(b);
	if (err)
		site_build_free(b);
	return err;
}

/* Step 5: patch the listed records and retarget ftrace_call. */
static void site_patch(struct site_build *b, int command)
{
	site_patch_list = b->scratch;
	site_patch_nr = b->nr_patch;
	site_patch_pos = 0;
	ftrace_run_update_code(command);
	site_patch_list = NULL;
	site_patch_nr = 0;
}

/**
 * ftrace_sites_update - make every call site call what the registered ops want
 * @command: extra FTRACE_* commands to run in the same update
 *	     (FTRACE_START/STOP_FUNC_RET; FTRACE_UPDATE_TRACE_FUNC is accepted
 *	     but implied: ftrace_call is retargeted whenever
 *	     ftrace_pick_trace_func() chose something else than it calls)
 *
 * Recomputes the ops set of every record, publishes it as a new generation,
 * patches the sites whose target changed in one batch, retargets ftrace_call
 * if needed, and retires the previous generation (freed once no CPU can use
 * it; nothing here waits for that).
 *
 * Context: ftrace_lock held; sleeps.
 * Return: 0; -EBUSY (a site would get two IPMODIFY/direct ops) or -ENOMEM
 * with nothing changed; -ENODEV after ftrace was killed.
 */
int ftrace_sites_update(int command)
{
	struct ftrace_site_gen *old;
	struct site_build b;
	bool enable;
	int err;

	lockdep_assert_held(&ftrace_lock);
	if (ftrace_core_dead())
		return -ENODEV;

	err = site_build_run(&b, true);
	if (err)
		return err;

	enable = ftrace_enabled;
	old = site_publish(&b, enable);

	/* Step 4: what ftrace_call should call; retarget only if it changed. */
	command &= ~(FTRACE_UPDATE_CALLS | FTRACE_DISABLE_CALLS |
		     FTRACE_UPDATE_TRACE_FUNC);
	ftrace_pick_trace_func();
	if (site_caller_stale())
		command |= FTRACE_UPDATE_TRACE_FUNC;

	if (b.nr_patch || (command & (FTRACE_UPDATE_TRACE_FUNC |
				      FTRACE_START_FUNC_RET |
				      FTRACE_STOP_FUNC_RET)))
		site_patch(&b, command | (enable ? FTRACE_UPDATE_CALLS :
						   FTRACE_DISABLE_CALLS));
	site_build_free(&b);

	if (old)
		site_retire(old);
	ftrace_sites_reclaim_later();
	return 0;
}

/**
 * ftrace_sites_check - would an update succeed?
 *
 * Computes the sets as ftrace_sites_update() would and throws them away.
 *
 * Context: ftrace_lock held.
 * Return: 0, -EBUSY, -ENOMEM, or -ENODEV after ftrace was killed.
 */
int ftrace_sites_check(void)
{
	struct site_build b;
	int err;

	lockdep_assert_held(&ftrace_lock);
	if (ftrace_core_dead())
		return -ENODEV;
	err = site_build_run(&b, false);
	if (!err)
		site_build_free(&b);
	return err;
}
