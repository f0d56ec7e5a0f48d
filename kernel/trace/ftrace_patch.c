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
 * callers' ftrace_call, and retires the previous generation.  What the
 * arch's batch patcher talks to while it patches (the record iterator,
 * each record's action, ftrace_modify_all_code()) is ftrace_patch_arch.c;
 * how long a replaced generation lives is ftrace_site_wait.c.
 *
 * Invariants:
 *  - A site's state (struct ftrace_site_state) has cur_addr, what the site
 *    executes now: 0 for the NOP, else the call target.  Only
 *    ftrace_update_record() and ftrace_site_changed() (ftrace_patch_arch.c)
 *    change it, i.e. the arch patcher right after it queued the matching
 *    text change; ftrace_lock is held.  A site without a state is the NOP.
 *  - The state's set is the set of the current generation that wants the
 *    site, NULL when none (always NULL for disabled sites).  It is written
 *    when a generation is published and read under ftrace_lock only.  Every
 *    site a generation gives a set has a state (made before publication).
 *  - The target of a record (ftrace_site_target()) is a function of its set, of
 *    whether calls are enabled, of the ops' trampoline and of the direct
 *    address registered for its ip.  An update patches the records whose
 *    target differs from cur_addr, and no others.
 *  - Traced code reads ftrace_site_gen, its table and its sets without locks
 *    (preemption disabled).  A generation is freed only after its successor
 *    was published and every online CPU passed through the scheduler (a
 *    rude RCU-tasks grace period in effect).  An update does not wait for
 *    that itself: it hands the generation it replaced to
 *    ftrace_sites_retire() (ftrace_site_wait.c, which keeps the waits), so
 *    one wait serves many updates.
 *  - Between publication and patching a site may still call what its old
 *    set needed (a trampoline, or ftrace_caller); a site that reaches the
 *    dispatcher gets exactly the ops of its new set.
 *  - ftrace_call is retargeted in this order: the list dispatcher first
 *    (right for any set), then the sites are patched, then the function
 *    the client's pick chose.  function_trace_op belongs to the ops layer,
 *    which only changes it while ftrace_call ignores it and only picks an
 *    ops' own function once every task loaded that ops as op.
 *  - The ops layer above is known only through the client it registered
 *    (ftrace_sites_set_client(), once at boot before the first update):
 *    its pick, its dispatcher and the dispatcher's ops.  Direct calls are
 *    known only through their lookup and sharing test
 *    (ftrace_sites_set_direct(), likewise).  Nothing here names a symbol
 *    of a layer above.
 */
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "trace.h"
#include "ftrace_records.h"
#include "ftrace_hash.h"
#include "ftrace_patch.h"
#include "ftrace_patch_internal.h"

struct ftrace_site_gen __rcu *ftrace_site_gen;

/* The ops layer, as registered by ftrace_init(); never NULL in an update. */
static const struct ftrace_sites_client *site_client __ro_after_init;
/* Direct calls, as registered by ftrace_init(); NULL without them. */
static const struct ftrace_sites_direct *site_direct __ro_after_init;

/**
 * ftrace_sites_set_client - tell the patcher about the ops layer
 * @client: the pick, the dispatcher and (CALL_OPS) the dispatcher's ops;
 *	    must stay valid for good
 *
 * Context: once, from ftrace_init(), before the first update.
 */
void __init ftrace_sites_set_client(const struct ftrace_sites_client *client)
{
	site_client = client;
}

/**
 * ftrace_sites_set_direct - tell the patcher about direct calls
 * @direct: the lookup of a site's direct trampoline and the test whether
 *	    that direct call shares its site with an ip-modifier; must stay
 *	    valid for good
 *
 * Until this is called no site has a direct trampoline and none may be
 * shared, which holds because no direct ops can exist yet.
 *
 * Context: once, from ftrace_init(), before the first update.
 */
void __init ftrace_sites_set_direct(const struct ftrace_sites_direct *direct)
{
	site_direct = direct;
}

/**
 * ftrace_sites_list_func - the dispatcher of the registered client
 *
 * Return: what ftrace_call calls while an update patches.
 */
ftrace_func_t ftrace_sites_list_func(void)
{
	return site_client->list_func;
}

/* Sets whose members need the register-saving caller when sharing a site. */
#define SITE_SET_REGS_CALLER \
	(FTRACE_SET_SAVE_REGS | FTRACE_SET_IPMODIFY | FTRACE_SET_DIRECT)

/* Record flags that describe the wanting set, and those that describe the code. */
#define SITE_FL_WANTED	(FTRACE_REF_MAX | FTRACE_FL_REGS | FTRACE_FL_TRAMP | \
			 FTRACE_FL_IPMODIFY | FTRACE_FL_DIRECT)
#define SITE_FL_CODE	(FTRACE_FL_ENABLED | FTRACE_FL_REGS_EN | \
			 FTRACE_FL_TRAMP_EN | FTRACE_FL_DIRECT_EN)

/* ---- targets ------------------------------------------------------------ */

/* The trampoline a direct ops put on the site at @ip, or 0. */
static unsigned long site_direct_addr(unsigned long ip)
{
	return site_direct ? site_direct->addr_of(ip) : 0;
}

/* The trampoline a site wanted by @set alone may call, or 0. */
static unsigned long site_set_tramp(const struct ftrace_site_set *set)
{
	if (set->nr != 1 || (set->flags & FTRACE_SET_DIRECT))
		return 0;
	return set->ops[0]->trampoline;
}

/**
 * ftrace_site_target - what a call site should call
 * @ip: the site
 * @set: the ops set that wants it, or NULL
 * @enable: false when every site must be the NOP (ftrace_enabled off)
 * @kind: gets which kind of target it is
 *
 * Context: ftrace_lock held.
 * Return: the call target; 0 for the NOP.
 */
unsigned long ftrace_site_target(unsigned long ip,
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
/**
 * ftrace_site_call_ops - the ops a site's literal should hold
 * @set: the ops set that wants the site, or NULL
 * @addr: what the site calls (0: the NOP)
 *
 * Only stable objects: an update rewrites a literal only when this choice
 * changes.
 *
 * Return: the only member of @set when it may be called straight, else
 * the dispatcher's ops (the client's list_ops); ftrace_nop_ops while the
 * site calls nothing.
 */
const struct ftrace_ops *ftrace_site_call_ops(const struct ftrace_site_set *set,
					      unsigned long addr)
{
	if (!addr || !set)
		return &ftrace_nop_ops;
	if (set->nr == 1 && !(set->ops[0]->flags & FTRACE_OPS_CALL_CHECKS))
		return set->ops[0];
	return site_client->list_ops;
}

/**
 * ftrace_site_call_ops_stale - must a site's literal be rewritten?
 * @rec: the record of the site
 * @set: the ops set that wants it, or NULL
 * @addr: what it calls, and keeps calling
 *
 * A site becoming a NOP gets ftrace_nop_ops with the NOP, so this is
 * about a site that keeps calling.
 *
 * Return: true if @rec's literal does not hold ftrace_site_call_ops().
 */
bool ftrace_site_call_ops_stale(struct dyn_ftrace *rec,
				const struct ftrace_site_set *set,
				unsigned long addr)
{
	return addr &&
	       ftrace_arch_rec_call_ops(rec) != ftrace_site_call_ops(set, addr);
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

/**
 * ftrace_site_mark_code - set a record's flags for the code at its site
 * @rec: the record
 * @set: the ops set that wants it, or NULL
 * @addr: what the site calls now (0: the NOP)
 * @kind: which kind of target @addr is
 *
 * Context: ftrace_lock held.
 */
void ftrace_site_mark_code(struct dyn_ftrace *rec,
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

/**
 * ftrace_site_gen_free - free a site generation and its sets
 * @gen: a generation no reader can be on any more (never published, or
 *	 retired and waited for); NULL is fine
 */
void ftrace_site_gen_free(struct ftrace_site_gen *gen)
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
	ftrace_site_gen_free(b->gen);
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
	return !site_direct || !site_direct->shares(ip);
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
		ftrace_site_gen_free(gen);
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
			addr = ftrace_site_target(rec->ip, set, enable, &kind);
			if (addr == st->cur_addr &&
			    !ftrace_site_call_ops_stale(rec, set, addr))
				ftrace_site_mark_code(rec, set, addr, kind);
			else
				b->scratch[nr_patch++].rec = rec;	/* <= index read */
		}
	}
	b->nr_patch = nr_patch;
	return old;
}

/* ---- the update --------------------------------------------------------- */

/*
 * The graph caller (ftrace_enable/disable_ftrace_graph_caller()).  Its
 * users ask for it with FTRACE_START_FUNC_RET and give it up with
 * FTRACE_STOP_FUNC_RET; site_graph_wanted remembers which came last.
 * While it is wanted it follows ftrace_enabled: the first update that
 * finds calls switched off or on again since the previous update
 * (site_calls_enabled) stops or starts it in the same batch.  Both are
 * changed only by an update that ran; ftrace_lock.
 */
static bool site_graph_wanted;
static bool site_calls_enabled;

/* @command plus the graph caller's start or stop that @enable calls for. */
static int site_graph_command(int command, bool enable)
{
	if (command & (FTRACE_START_FUNC_RET | FTRACE_STOP_FUNC_RET))
		return command;
	if (site_graph_wanted && enable != site_calls_enabled)
		command |= enable ? FTRACE_START_FUNC_RET : FTRACE_STOP_FUNC_RET;
	return command;
}

/* An update with the users' @command ran with calls @enable. */
static void site_graph_ran(int command, bool enable)
{
	if (command & FTRACE_START_FUNC_RET)
		site_graph_wanted = true;
	else if (command & FTRACE_STOP_FUNC_RET)
		site_graph_wanted = false;
	site_calls_enabled = enable;
}

static int site_build_run(struct site_build *b, bool with_table)
{
	int err;

	/* States appear only here: ftrace_bug() can describe them from now. */
	ftrace_sites_set_bug_detail(ftrace_sites_bug_state);
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

/**
 * ftrace_sites_update - make every call site call what the registered ops want
 * @command: extra FTRACE_* commands to run in the same update
 *	     (FTRACE_START/STOP_FUNC_RET when the graph caller's first user
 *	     comes or its last one goes; FTRACE_UPDATE_TRACE_FUNC is accepted
 *	     but implied: ftrace_call is retargeted whenever the client's pick
 *	     chose something else than it calls)
 *
 * Recomputes the ops set of every record, publishes it as a new generation,
 * patches the sites whose target changed in one batch, retargets ftrace_call
 * if needed, and retires the previous generation (freed once no CPU can use
 * it; nothing here waits for that).  A wanted graph caller is stopped and
 * started again with ftrace_enabled.
 *
 * Context: ftrace_lock held; sleeps.
 * Return: 0; -EBUSY (a site would get two IPMODIFY/direct ops) or -ENOMEM
 * with nothing changed; -ENODEV after ftrace was killed.
 */
int ftrace_sites_update(int command)
{
	struct ftrace_site_gen *old;
	struct site_build b;
	int err, users;
	bool enable;

	lockdep_assert_held(&ftrace_lock);
	if (ftrace_core_dead() || WARN_ON_ONCE(!site_client))
		return -ENODEV;

	err = site_build_run(&b, true);
	if (err)
		return err;

	enable = ftrace_enabled;
	old = site_publish(&b, enable);

	/* Step 4: what ftrace_call should call; retarget only if it changed. */
	command &= ~(FTRACE_UPDATE_CALLS | FTRACE_DISABLE_CALLS |
		     FTRACE_UPDATE_TRACE_FUNC);
	users = command & (FTRACE_START_FUNC_RET | FTRACE_STOP_FUNC_RET);
	command = site_graph_command(command, enable);
	site_client->pick();
	if (ftrace_sites_caller_stale())
		command |= FTRACE_UPDATE_TRACE_FUNC;

	if (b.nr_patch || (command & (FTRACE_UPDATE_TRACE_FUNC |
				      FTRACE_START_FUNC_RET |
				      FTRACE_STOP_FUNC_RET)))
		/* Step 5: patch the listed records, retarget ftrace_call. */
		ftrace_sites_patch(b.scratch, b.nr_patch,
				   command | (enable ? FTRACE_UPDATE_CALLS :
						       FTRACE_DISABLE_CALLS));
	site_graph_ran(users, enable);
	site_build_free(&b);

	if (old)
		ftrace_sites_retire(old);
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
