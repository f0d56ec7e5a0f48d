/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private interface of the function-hook core (kernel/trace/ftrace*.c).
 *
 * The core is split by concept:
 *   ftrace_base.c     the shared state: ftrace_lock, the dead flag,
 *                     ftrace_enabled, the shared callers' slots, the ops list
 *   ftrace.c          ops registration, what the shared callers call, removal
 *                     waits, the ftrace_enabled sysctl
 *   ftrace_dispatch.c the per-site dispatcher, the recursion and RCU assist
 *   ftrace_tramp.c    the trampolines the arch allocates for an ops: lookups,
 *                     kallsyms, perf events
 *   ftrace_sites.c    call-site records: boot, modules, init text, lookups
 *   ftrace_patch.c    what each site should call, and the batched update
 *   ftrace_patch_arch.c the update's side the arch batch patcher talks to:
 *                     record iterator and actions, ftrace_call, arch hooks
 *   ftrace_site_wait.c how long a replaced site generation lives (the
 *                     waits for its readers)
 *   ftrace_hash.c     ip hashes, ops filter test, glob matching, func mapper
 *   ftrace_filter.c   filter/notrace API, record matching, boot parameters
 *   ftrace_regex.c    set_ftrace_filter/notrace/set_graph_* files, commands
 *   ftrace_probes.c   function probes (traceon, snapshot, enable_event, ...)
 *   ftrace_files.c    available_filter_functions, enabled_functions, tracefs
 *   ftrace_pid.c      set_ftrace_pid / set_ftrace_notrace_pid
 *   ftrace_profile.c  function profiler
 *   ftrace_direct.c   direct-call trampolines
 *   ftrace_lifecycle.c what the rest of the kernel calls: boot, module
 *                     load and unload, freeing of text
 *   ftrace_static.c   the update without call-site records (!DYNAMIC_FTRACE):
 *                     one set of every enabled ops for every function
 *
 * Locking, for everything below unless said otherwise:
 *  - ftrace_lock (mutex) serialises every change: the ops list, the site
 *    groups, record state, the site generation and ops hash pointers.
 *  - The hot path (a traced call) reads the current site generation and the
 *    ops hashes without locks, with preemption disabled.  Anything a traced
 *    call may read is freed only after a rude wait (or, for
 *    hashes, an RCU grace period through call_rcu()).
 *  - Site groups are read locklessly by ftrace_location() and friends under
 *    rcu_read_lock() (or preemption disabled); they are unlinked with
 *    rcu_assign_pointer() and freed after synchronize_rcu().
 */
#ifndef _LINUX_KERNEL_FTRACE_INTERNAL_H
#define _LINUX_KERNEL_FTRACE_INTERNAL_H

#include <linux/ftrace.h>
#include <linux/hash.h>
#include <asm/sections.h>

#include "ftrace_base.h"

#ifdef CONFIG_FUNCTION_TRACER

/* The top-level function tracer's ops. */
extern struct ftrace_ops global_ops;

/* ---- ftrace.c: ops registration ------------------------------------- */

/* Add/remove @ops; with ftrace_lock held, and the command for the update. */
int ftrace_startup(struct ftrace_ops *ops, int command);
int ftrace_shutdown(struct ftrace_ops *ops, int command);
/* Link/unlink @ops in ftrace_ops_list only (no update); ftrace_lock held. */
int __register_ftrace_function(struct ftrace_ops *ops);
int __unregister_ftrace_function(struct ftrace_ops *ops);
int ftrace_startup_subops(struct ftrace_ops *ops, struct ftrace_ops *subops,
			  int command);
int ftrace_shutdown_subops(struct ftrace_ops *ops, struct ftrace_ops *subops,
			   int command);

/*
 * What writing kernel.ftrace_enabled does: 0 fails with -EBUSY while a
 * PERMANENT ops is registered.  Returns 0, -EBUSY, -ENODEV (dead) or
 * -ENOMEM.  Takes ftrace_lock.
 */
int ftrace_enabled_set(bool on);

/*
 * Re-derive every call site's target after @ops (registered, a subop of a
 * registered manager, or the owner of a hash a registered subop shares)
 * changed its filter or notrace hash.  Returns 0, or the error of the
 * update (for example -EBUSY on an IPMODIFY clash), in which case nothing
 * was changed.  Caller holds ftrace_lock.
 */
int ftrace_ops_hash_changed(struct ftrace_ops *ops);

/* Give @ops its own hashes (func_hash = &local_hash) unless initialised. */
void ftrace_ops_init(struct ftrace_ops *ops);

/* The func ftrace_call/ftrace_regs_call in ftrace_caller should call now. */
void ftrace_pick_trace_func(void);
/* Register the ops layer with the patcher; ftrace_init(), first thing. */
void __init ftrace_ops_sites_init(void);

/*
 * How an ip-modifier is registered beside direct calls, registered by
 * ftrace_direct.c (ftrace_direct_init()): @lock/@unlock wrap the whole
 * registration or removal and nest outside ftrace_lock; @prepare asks the
 * direct calls on @ops' functions to share them (ftrace_lock not held);
 * @cleanup ends the sharing of sites no ip-modifier holds any more.
 */
struct ftrace_ipmodify_share {
	void	(*lock)(void);
	void	(*unlock)(void);
	int	(*prepare)(struct ftrace_ops *ops);
	void	(*cleanup)(void);
};

void __init
ftrace_ops_set_ipmodify_share(const struct ftrace_ipmodify_share *share);

/* Called when a pid filter changed: refresh ops->func of FTRACE_OPS_FL_PID ops. */
void ftrace_update_pid_func(void);
/* Register the func a pid-filtered ops calls (before any pid list is set). */
void ftrace_ops_set_pid_func(ftrace_func_t func);
/* FTRACE_OPS_FL_PID and its trace array has a pid or notrace-pid list. */
bool ftrace_ops_pid_filtered(struct ftrace_ops *ops);

/* ftrace_pid.c: the func used for an ops with FTRACE_OPS_FL_PID and pids set. */
void ftrace_pid_func(unsigned long ip, unsigned long parent_ip,
		     struct ftrace_ops *op, struct ftrace_regs *fregs);

#ifdef CONFIG_DYNAMIC_FTRACE

/* ---- ftrace_sites.c: call-site records ------------------------------ */

/*
 * A group holds the call sites of vmlinux or of one module, sorted by ip.
 *
 * Most sites are never traced, so a site costs one u32 here: its distance
 * from @base (the group's lowest site) in the low 31 bits, and
 * FTRACE_SITE_OFF_DISABLED in the top bit.  Everything else a site needs
 * once it is used (its struct dyn_ftrace with the FTRACE_FL_* state, what
 * it calls now, its ops set) lives in a struct ftrace_site_state, allocated
 * FTRACE_SITE_CHUNK sites at a time the first time one of them is wanted
 * by an ops, and freed again after an update that leaves all of them idle
 * (a NOP no ops wants).  What must outlive that, whether a site was ever
 * hooked (FTRACE_FL_TOUCHED) or ever modified by an ip-modifier or direct
 * call (FTRACE_FL_MODIFIED), goes into @history, two bits a site,
 * allocated on the first need.  A site without state is a NOP no ops
 * wants.
 *
 * offs[] never moves while the group is linked; a group whose records must
 * shrink (init text freed) is replaced by a copy.
 */
#define FTRACE_SITE_OFF_DISABLED	BIT(31)
#define FTRACE_SITE_OFF_MASK		(FTRACE_SITE_OFF_DISABLED - 1)
#define FTRACE_SITE_CHUNK_SHIFT		6
#define FTRACE_SITE_CHUNK		BIT(FTRACE_SITE_CHUNK_SHIFT)

struct ftrace_site_state {
	struct dyn_ftrace		rec;	/* stable while the group lives */
	unsigned long			cur_addr;	/* 0: the NOP */
	struct ftrace_site_set		*set;	/* current generation's; or NULL */
};

struct ftrace_site_chunk {
	struct ftrace_site_state	st[FTRACE_SITE_CHUNK];
};

struct ftrace_site_group {
	struct ftrace_site_group __rcu	*next;
	struct module			*mod;	/* NULL: vmlinux */
	unsigned int			nr;
	unsigned int			nr_chunks;	/* allocated */
	unsigned long			base;	/* ip of offset 0 */
	size_t				bytes;	/* this allocation */
	u32				*offs;
	struct ftrace_site_chunk	**chunks;	/* one per CHUNK sites */
	unsigned long			*history;	/* 2 bits a site, or NULL */
	struct rcu_head			rcu;
};

extern struct ftrace_site_group __rcu *ftrace_site_groups;
/* Bytes of every group and state chunk (dyn_ftrace_total_info, boot log). */
extern unsigned long ftrace_site_bytes;

#define for_each_site_group(g)						\
	for (g = rcu_dereference_check(ftrace_site_groups,		\
				       lockdep_is_held(&ftrace_lock));	\
	     g; g = rcu_dereference_check(g->next,			\
					  lockdep_is_held(&ftrace_lock)))

static inline unsigned long ftrace_site_ip(const struct ftrace_site_group *g,
					   unsigned int i)
{
	return g->base + (READ_ONCE(g->offs[i]) & FTRACE_SITE_OFF_MASK);
}

/* A record that must never be used (disabled module, weak leftover). */
static inline bool ftrace_site_disabled(const struct ftrace_site_group *g,
					unsigned int i)
{
	return READ_ONCE(g->offs[i]) & FTRACE_SITE_OFF_DISABLED;
}

/* The state of site @i, or NULL if it has none.  ftrace_lock held. */
static inline struct ftrace_site_state *
ftrace_site_state(const struct ftrace_site_group *g, unsigned int i)
{
	struct ftrace_site_chunk *c;

	/* pairs with ftrace_site_state_get(): a chunk is seen filled in */
	c = smp_load_acquire(&g->chunks[i >> FTRACE_SITE_CHUNK_SHIFT]);

	return c ? &c->st[i & (FTRACE_SITE_CHUNK - 1)] : NULL;
}

/* The state of site @i, allocated if needed; NULL on -ENOMEM.  ftrace_lock. */
struct ftrace_site_state *ftrace_site_state_get(struct ftrace_site_group *g,
						unsigned int i);

static inline unsigned long ftrace_site_cur_addr(const struct ftrace_site_group *g,
						 unsigned int i)
{
	struct ftrace_site_state *st = ftrace_site_state(g, i);

	return st ? st->cur_addr : 0;
}

static inline struct ftrace_site_set *
ftrace_site_set_of(const struct ftrace_site_group *g, unsigned int i)
{
	struct ftrace_site_state *st = ftrace_site_state(g, i);

	return st ? st->set : NULL;
}

/* FTRACE_FL_TOUCHED/MODIFIED kept for site @i while it has no state. */
static inline unsigned long ftrace_site_history(const struct ftrace_site_group *g,
						unsigned int i)
{
	unsigned long flags = 0;

	if (!g->history)
		return 0;
	if (test_bit(2 * i, g->history))
		flags |= FTRACE_FL_TOUCHED;
	if (test_bit(2 * i + 1, g->history))
		flags |= FTRACE_FL_MODIFIED;
	return flags;
}

static inline unsigned long ftrace_site_flags(const struct ftrace_site_group *g,
					      unsigned int i)
{
	struct ftrace_site_state *st = ftrace_site_state(g, i);

	if (st)
		return st->rec.flags;
	return (ftrace_site_disabled(g, i) ? FTRACE_FL_DISABLED : 0) |
	       ftrace_site_history(g, i);
}

/* Free the state chunks whose sites are all idle.  ftrace_lock held. */
void ftrace_sites_reclaim(void);
void ftrace_sites_reclaim_later(void);
void ftrace_site_group_reclaim(struct ftrace_site_group *g);

/* Set or clear FTRACE_SITE_OFF_DISABLED (and the state's flag).  ftrace_lock. */
void ftrace_site_set_disabled(struct ftrace_site_group *g, unsigned int i,
			      bool disabled);

/* ftrace_location() of each of @nr ascending addresses, in place. */
bool ftrace_locations_sorted(unsigned long *ips, unsigned int nr);
/* Group and index of the record with exactly this ip, or NULL.  ftrace_lock or RCU. */
struct ftrace_site_group *ftrace_site_find(unsigned long ip, unsigned int *idx);
/* Group and index of @rec (by its ip); cached for sequential walks.  ftrace_lock. */
struct ftrace_site_group *ftrace_site_group_of(const struct dyn_ftrace *rec,
					       unsigned int *idx);
/*
 * Symbol of the site at @ip: fills @name (KSYM_NAME_LEN) and *@modname
 * (NULL for vmlinux).  Returns 0 or -ENOENT.
 */
int ftrace_site_name(unsigned long ip, char *name, const char **modname);

/*
 * The records' part of the kernel's entry points (ftrace_lifecycle.c):
 * build and NOP the vmlinux records at boot; drop the records of freed
 * text (true if any were dropped); enable a module's records (true if it
 * has any), unlink them when it goes, and free them after their readers.
 */
int __init ftrace_sites_boot(void);
bool ftrace_sites_drop_text(struct module *mod, unsigned long start,
			    unsigned long end);
#ifdef CONFIG_MODULES
bool ftrace_sites_module_enable(struct module *mod);
struct ftrace_site_group *ftrace_sites_module_unlink(struct module *mod);
void ftrace_sites_group_retire(struct ftrace_site_group *g);
#endif

/*
 * ftrace_bug() prints the record's flags, then lets the owner of the site
 * states describe them through this hook.  ftrace_lock held.
 */
void ftrace_sites_set_bug_detail(void (*detail)(struct dyn_ftrace *rec));

#ifdef CONFIG_MODULES
/* Keep the name of a freed module-init function for kallsyms; ftrace_lock. */
void ftrace_mod_syms_keep(struct module *mod, unsigned long ip);
void ftrace_mod_syms_drop(struct module *mod);
/* Kept function *@symnum, else *@symnum less their count; under RCU. */
bool ftrace_sites_kept_sym_nth(unsigned int *symnum, unsigned long *value,
			       char *type, char *name, char *module_name,
			       int *exported);
#else
static inline bool ftrace_sites_kept_sym_nth(unsigned int *symnum,
					     unsigned long *value, char *type,
					     char *name, char *module_name,
					     int *exported)
{
	return false;
}
#endif

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * ftrace_sites.c's group builders, VISIBLE_IF_KUNIT: the suite builds
 * groups of made-up addresses that are neither NOPed nor published.
 */
struct ftrace_site_group *site_group_alloc(struct module *mod,
					   unsigned int cap);
int site_group_fill(struct ftrace_site_group *g, const unsigned long *start,
		    const unsigned long *end, bool adjust);
void site_group_free(struct ftrace_site_group *g);
#endif

#endif /* CONFIG_DYNAMIC_FTRACE */

/* ---- ftrace_patch.c: site generations and updates ------------------- */

/*
 * An ops set: the ops that want a call site, in ftrace_ops_list order.
 * Sets belong to one site generation and are freed with it.  A site whose
 * set has one member with a trampoline calls that trampoline; any other
 * site with a set calls ftrace_caller or ftrace_regs_caller, whose dispatcher
 * finds the set through the generation's ip table.
 */
enum {
	FTRACE_SET_SAVE_REGS	= BIT(0),	/* some member wants pt_regs */
	FTRACE_SET_IPMODIFY	= BIT(1),
	FTRACE_SET_DIRECT	= BIT(2),	/* a direct-call ops is a member */
};

struct ftrace_site_set {
	struct ftrace_site_set	*next_in_gen;
	unsigned int		nr;
	unsigned int		flags;
	struct ftrace_ops	*ops[];	/* nr members, then NULL */
};

/*
 * Member flags that need a closer look before the member's function is
 * called: such a member is only ever called through the dispatcher.
 */
#define FTRACE_OPS_CALL_CHECKS	\
	(FTRACE_OPS_FL_STUB | FTRACE_OPS_FL_RCU | FTRACE_OPS_FL_SAVE_REGS | \
	 FTRACE_OPS_FL_RECURSION)

/*
 * Private ops flag, above the ones linux/ftrace.h defines: the ops was a
 * member of a published site set since it was registered, so some CPU or
 * task may have reached its callback.  Set by the site updater, cleared
 * when the ops is registered and when it is removed; ftrace_lock.
 */
#define FTRACE_OPS_FL_SITE_LIVE		BIT(30)

/* What ftrace_dispatch_find() returns for a site without a set. */
extern struct ftrace_site_set ftrace_no_site_set;

#ifdef CONFIG_DYNAMIC_FTRACE

struct ftrace_site_slot {
	unsigned long		ip;	/* 0: empty */
	struct ftrace_site_set	*set;
};

struct ftrace_site_gen {
	unsigned int		mask;	/* slots - 1; slots is a power of two */
	unsigned int		used;
	struct ftrace_site_set	*sets;	/* every set of this generation */
	struct ftrace_site_slot	*slots;
	struct ftrace_site_gen	*retired_next;	/* replaced, not yet freed */
};

extern struct ftrace_site_gen __rcu *ftrace_site_gen;

/*
 * Slot of @ip before probing.  Call sites sit at function entries, which
 * the compiler aligns (16 bytes here), so dropping the low bits gives
 * distinct consecutive keys for neighbouring functions: a table at most
 * half full then rarely probes twice, and the hash costs one shift.
 */
static __always_inline unsigned int ftrace_dispatch_hash(unsigned long ip)
{
	return ip >> 4;
}

/*
 * Hot path: the set wanting @ip in the current generation, or the empty
 * set ftrace_no_site_set (its ops[] is just the NULL end mark).
 */
static __always_inline struct ftrace_site_set *
ftrace_dispatch_find(unsigned long ip)
{
	struct ftrace_site_gen *gen = rcu_dereference_raw(ftrace_site_gen);
	unsigned int i;

	if (!gen)
		return &ftrace_no_site_set;
	for (i = ftrace_dispatch_hash(ip) & gen->mask;; i = (i + 1) & gen->mask) {
		struct ftrace_site_slot *s = &gen->slots[i];

		if (s->ip == ip)
			return s->set;
		if (!s->ip)
			return &ftrace_no_site_set;
	}
}

#else /* !CONFIG_DYNAMIC_FTRACE */

/*
 * ftrace_static.c: without records every traced function calls in, and
 * every enabled ops wants every function, so one set serves all of them.
 */
extern struct ftrace_site_set __rcu *ftrace_static_set;

static __always_inline struct ftrace_site_set *
ftrace_dispatch_find(unsigned long ip)
{
	struct ftrace_site_set *set = rcu_dereference_raw(ftrace_static_set);

	return set ? set : &ftrace_no_site_set;
}

#endif /* CONFIG_DYNAMIC_FTRACE */

/*
 * Recompute what every call site wants from the registered ops, publish a
 * new generation, patch the sites that changed in one text_poke batch,
 * retarget ftrace_call, and free the previous generation.  Returns 0, or
 * -EBUSY (two IPMODIFY/direct ops on one site) / -ENOMEM with nothing
 * changed.  Caller holds ftrace_lock.  @command carries extra
 * FTRACE_* commands (graph caller start/stop) to run in the same update.
 */
int ftrace_sites_update(int command);
/* Like ftrace_sites_update() but only checks for clashes; changes nothing. */
int ftrace_sites_check(void);

/*
 * What the patcher must know of the ops layer above it, registered by that
 * layer (ftrace_ops_sites_init()) before the first update:
 *  @pick:      chooses ftrace_trace_function (and function_trace_op) for
 *              the registered ops; run by every update before it patches
 *  @list_func: the dispatcher, which ftrace_call calls while an update
 *              patches and whenever the pick chose it
 *  @list_ops:  (CALL_OPS) the ops a site's literal holds when its set has
 *              to go through the dispatcher
 */
struct ftrace_sites_client {
	void			(*pick)(void);
	ftrace_func_t		list_func;
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
	const struct ftrace_ops	*list_ops;
#endif
};

void __init ftrace_sites_set_client(const struct ftrace_sites_client *client);

/*
 * What the patcher must know of direct calls, registered by ftrace_direct.c
 * (ftrace_direct_init()) before the first update; both run under
 * ftrace_lock while an update builds or patches:
 *  @addr_of: the trampoline a direct ops put on the site at @ip, or 0
 *  @shares:  whether the direct call at @ip agreed to share its site with
 *            an ip-modifier
 */
struct ftrace_sites_direct {
	unsigned long	(*addr_of)(unsigned long ip);
	bool		(*shares)(unsigned long ip);
};

void __init ftrace_sites_set_direct(const struct ftrace_sites_direct *direct);

/* What ftrace_call and ftrace_regs_call call now; ftrace_lock held. */
ftrace_func_t ftrace_sites_caller_func(void);
/*
 * One rude wait (a work item on every online CPU, as a rude RCU-tasks
 * grace period does): afterwards no CPU runs anything it
 * reached through a generation, a set or a shared caller's span as they
 * were before the call; replaced generations are freed.  ftrace_lock held.
 */
void ftrace_sites_wait_readers(void);
#ifdef CONFIG_DYNAMIC_FTRACE
/* The same wait without ftrace_lock: take the list, then wait and free. */
struct ftrace_site_gen *ftrace_sites_retired_take(void);
void ftrace_sites_wait_free(struct ftrace_site_gen *list);
/* ftrace_site_wait.c: free a replaced generation after its readers. */
void ftrace_sites_retire(struct ftrace_site_gen *old);
/* ftrace_patch.c: free a generation no reader can be on. */
void ftrace_site_gen_free(struct ftrace_site_gen *gen);
#endif

#ifdef CONFIG_DYNAMIC_FTRACE

/* x86 and friends: weak hooks the patcher calls. */
void ftrace_run_update_code(int command);

/* ---- ftrace_hash.c: hashes and globs -------------------------------- */

#define FTRACE_HASH_DEFAULT_BITS	10
#define FTRACE_HASH_MAX_BITS		12

/* The shared empty hash; never freed, never written. */
extern struct ftrace_hash ftrace_empty_hash;
#define FTRACE_EMPTY_HASH	(&ftrace_empty_hash)

struct ftrace_hash *ftrace_hash_alloc(int size_bits);
/* Copy of @src (NULL/empty gives an empty new hash) sized for its count. */
struct ftrace_hash *ftrace_hash_copy(int size_bits, struct ftrace_hash *src);
void ftrace_hash_free(struct ftrace_hash *hash);	/* NULL/empty ok */
void ftrace_hash_free_rcu(struct ftrace_hash *hash);	/* after a grace period */
void ftrace_hash_clear(struct ftrace_hash *hash);
struct ftrace_func_entry *ftrace_hash_add(struct ftrace_hash *hash,
					  unsigned long ip);
/* Up to FTRACE_HASH_BULK addresses absent from @hash, added in one go. */
#define FTRACE_HASH_BULK	64
int ftrace_hash_add_unique(struct ftrace_hash *hash, const unsigned long *ips,
			   unsigned int n);
/* Creates the entry cache; ftrace_init() calls it before any filter. */
void __init ftrace_hash_init(void);
void ftrace_hash_remove(struct ftrace_hash *hash,
			struct ftrace_func_entry *entry);
/* Grow a private hash's table for @count entries / size it for its count. */
int ftrace_hash_reserve(struct ftrace_hash *hash, unsigned long count);
void ftrace_hash_compact(struct ftrace_hash *hash);
bool ftrace_hash_equal(struct ftrace_hash *a, struct ftrace_hash *b);

#define for_each_hash_entry(hash, i, e)					\
	for (i = 0; (hash) && (hash)->buckets &&			\
		    i < (1UL << (hash)->size_bits); i++)		\
		hlist_for_each_entry(e, &(hash)->buckets[i], hlist)

/* A manager (fgraph's graph_ops) is an ops with subops on its subop_list. */
static inline bool ftrace_ops_has_subops(struct ftrace_ops *ops)
{
	/* A never-initialised ops has a zeroed, not an empty, list head. */
	return ops->subop_list.next && !list_empty(&ops->subop_list);
}

/* Does @ops want @ip by its own hashes?  (filter empty or has ip) && !notrace */
bool ftrace_ops_wants_ip(struct ftrace_ops *ops, unsigned long ip);
/* Same for a manager: true if any of its subops wants @ip. */
bool ftrace_ops_or_subops_want_ip(struct ftrace_ops *ops, unsigned long ip);
int ftrace_ops_test(struct ftrace_ops *ops, unsigned long ip, void *regs);

/* A parsed glob: filter_parse_regex() type and search text. */
struct ftrace_glob {
	char		*search;
	unsigned int	len;
	int		type;		/* MATCH_* from trace.h */
};

bool ftrace_glob_match(const struct ftrace_glob *g, const char *str);

/* ---- ftrace_filter.c: matching records ------------------------------ */

/*
 * Add (or, with a leading '!', remove) to @hash every record matching
 * @buf: "glob", "glob:mod:module", "!glob", "*:mod:module".  Returns the
 * number of records matched (0: none), or a negative errno.
 */
int ftrace_match_records(struct ftrace_hash *hash, char *buf, int len);
/* Same, with the module restriction split out (mod may be NULL). */
int ftrace_match_records_mod(struct ftrace_hash *hash, char *func, int len,
			     char *mod);

/*
 * Replace *@dst (an ops filter or notrace hash pointer) by @src and apply it:
 * registered users see the change in one update, and on error the old hash
 * is back in place.  @ops is the hash owner.  Caller holds ops regex_lock;
 * takes ftrace_lock.  Consumes @src on success (and on failure frees it).
 */
int ftrace_hash_install(struct ftrace_ops *ops, struct ftrace_hash __rcu **dst,
			struct ftrace_hash *src);

/* Swap the set_graph_function (or _notrace) hash; frees the old one. */
int ftrace_graph_hash_install(bool is_notrace, struct ftrace_hash *hash);

/* Early boot filters (ftrace_filter= and friends), applied by ftrace_init(). */
void __init ftrace_apply_boot_filters(void);

/*
 * Retire every entry in [start, end) of every ops and graph hash.  Takes
 * trace_types_lock and ftrace_lock itself: call it with neither held.
 */
void ftrace_hashes_drop_range(unsigned long start, unsigned long end);

/* ---- ftrace_regex.c / ftrace_probes.c ------------------------------- */

/* Apply the :mod: cache of every trace array to a module being enabled. */
void ftrace_mod_cache_apply(struct module *mod);
/*
 * Function-probe lines of set_ftrace_filter, one at a time (a seq_file
 * may stop after any line).  Caller holds ftrace_lock.
 */
unsigned long ftrace_probes_count(struct trace_array *tr);
int ftrace_probes_show_line(struct seq_file *m, struct trace_array *tr,
			    unsigned long n);

/* ---- ftrace_direct.c ------------------------------------------------- */

unsigned long ftrace_find_rec_direct(unsigned long ip);
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
/* Register with the patcher and the ops layer; ftrace_init(), early. */
void __init ftrace_direct_init(void);
#else
static inline void ftrace_direct_init(void) { }
#endif

#endif /* CONFIG_DYNAMIC_FTRACE */

/* ---- ftrace_files.c, ftrace_pid.c, ftrace_profile.c ------------------ */

extern const struct file_operations ftrace_pid_fops;
extern const struct file_operations ftrace_no_pid_fops;
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
extern const struct file_operations ftrace_graph_fops;
extern const struct file_operations ftrace_graph_notrace_fops;
#endif
#ifdef CONFIG_FUNCTION_PROFILER
void __init ftrace_profile_create_files(struct dentry *d_tracer);
#else
static inline void ftrace_profile_create_files(struct dentry *d_tracer) { }
#endif
/* The name shown for a weak-function leftover record. */
#define FTRACE_INVALID_FUNCTION	"__ftrace_invalid_address__"

extern unsigned long ftrace_update_tot_cnt;
extern unsigned long ftrace_number_of_pages;
extern unsigned long ftrace_number_of_groups;
extern unsigned long ftrace_update_time;	/* ns spent NOPing at boot */

/* ---- ftrace_tramp.c: the trampolines the arch allocates for an ops ---- */

#ifdef CONFIG_DYNAMIC_FTRACE
/* Publish a new trampoline / unpublish, wait for readers and free it. */
void ftrace_trampoline_add(struct ftrace_ops *ops);
void ftrace_trampoline_free(struct ftrace_ops *ops);
/* A removed ops' trampoline stops calling it and is unlisted; ftrace_lock. */
void ftrace_trampoline_retire(struct ftrace_ops *ops);
/* Let the arch create or retarget @ops' trampoline; ftrace_lock. */
void ftrace_ops_refresh_trampoline(struct ftrace_ops *ops);
/* What @ops' trampoline calls: ftrace_stub while removing, else its func. */
ftrace_func_t ftrace_ops_tramp_target(struct ftrace_ops *ops);
#else
/* Trampolines need a call site to point at them: there are none. */
static inline void ftrace_trampoline_free(struct ftrace_ops *ops) { }
static inline void ftrace_trampoline_retire(struct ftrace_ops *ops) { }
static inline void ftrace_ops_refresh_trampoline(struct ftrace_ops *ops) { }
#endif

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
extern int ftrace_graph_active;
void fgraph_update_pid_func(void);
/*
 * register_ftrace_graph() for a user that never reads calltime/rettime
 * (fprobe): while only such users are registered fgraph reads no clock.
 */
int register_ftrace_graph_untimed(struct fgraph_ops *gops);
/*
 * Users that push their own frames from an ftrace_ops callback (fprobe).
 * Their return callback gets the call site, the data pushed and the
 * return registers (instruction pointer: the real return address).
 */
typedef void (*fgraph_direct_ret_t)(unsigned long func, unsigned long *data,
				    unsigned int words,
				    struct ftrace_regs *fregs);
int register_fgraph_direct(struct fgraph_ops *gops, fgraph_direct_ret_t ret);

/*
 * Where the return address of the call whose entry @fregs describes is
 * kept, and the key unwinders know a hook of it by (ftrace_graph_ret_addr()
 * gets it as @retp).  Unless the architecture says otherwise: the slot at
 * the stack pointer of the function's entry (x86), its own key.
 */
#ifndef ftrace_regs_return_slot
static __always_inline unsigned long *
ftrace_regs_return_slot(struct ftrace_regs *fregs)
{
	return (unsigned long *)ftrace_regs_get_stack_pointer(fregs);
}
#define ftrace_regs_return_key(fregs) ftrace_regs_return_slot(fregs)
#endif

unsigned long *fgraph_direct_push(struct fgraph_ops *gops, unsigned long func,
				  struct ftrace_regs *fregs,
				  unsigned int words);
void fgraph_direct_done(struct ftrace_regs *fregs, bool hook);
unsigned long fgraph_direct_key(struct fgraph_ops *gops);

/* fgraph_direct_done(@fregs, true), inline: the common case of a hit. */
static inline void fgraph_direct_hook(struct ftrace_regs *fregs)
{
	*ftrace_regs_return_slot(fregs) =
		(unsigned long)dereference_kernel_function_descriptor(return_to_handler);
}
#else
# define ftrace_graph_active 0
static inline void fgraph_update_pid_func(void) {}
#endif

#endif /* CONFIG_FUNCTION_TRACER */

#endif /* _LINUX_KERNEL_FTRACE_INTERNAL_H */
