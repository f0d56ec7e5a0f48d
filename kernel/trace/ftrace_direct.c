// SPDX-License-Identifier: GPL-2.0
/*
 * Direct-call trampolines of the function-hook core.
 *
 * A "direct ops" is a struct ftrace_ops handed to register_ftrace_direct():
 * its filter hash names the functions, ops->direct_call the one address
 * (a custom trampoline that saves and restores the traced function's
 * arguments itself) their fentry sites should call.
 *
 * How a call site reaches the trampoline:
 *  - The direct ops is the only ops that wants the site: the patcher
 *    (ftrace_patch.c) points the site's call at the trampoline itself.  It
 *    learns the address through the lookup ftrace_direct_init() registered
 *    with it (ftrace_find_rec_direct()).
 *  - Other ops want the site too: the site calls ftrace_regs_caller, whose
 *    dispatcher calls every member, among them direct_ops_func().  That
 *    leaves ops->direct_call in the saved registers
 *    (arch_ftrace_set_direct_caller()), and ftrace_regs_caller returns into
 *    the trampoline instead of into the traced function.
 *
 * The address map
 *   One open-addressing table, ip -> (trampoline, owner ops), for every
 *   function a direct ops was registered on.  It answers "does this site
 *   already have a trampoline?" (a second direct ops gets -EBUSY) and
 *   "where does a lone direct site jump to?" (the patcher).  Invariant: the
 *   address of a live slot always equals its owner's ops->direct_call.
 *
 * Locking and lifetime
 *  - direct_mutex serialises the direct API.  It nests outside ftrace_lock.
 *    The ops layer takes it around the registration and removal of an
 *    ip-modifier through the share hooks registered with it.
 *  - The map pointer and the slot contents change only with both locks
 *    held, so anything under ftrace_lock (the patcher, mid-update) sees a
 *    stable map.  Lockless readers use rcu_read_lock() or preemption off.
 *  - A published map is never restructured: a removed slot becomes a
 *    tombstone (ip kept, owner NULL, address 0) so probe chains stay
 *    intact, and a live slot's address is only rewritten in place with
 *    WRITE_ONCE().  New entries go into a fresh copy that replaces the old
 *    one with rcu_assign_pointer(); the old copy is freed after an RCU
 *    grace period.  Every copy keeps at least half its slots never used,
 *    so a probe always ends.
 *  - direct_ops_func() reads nothing but ops->direct_call, so it needs no
 *    RCU protection and may run where RCU is not watching.
 *
 * Sharing a site with an ip-modifier
 *   An IPMODIFY ops (livepatch) and a direct call (a BPF trampoline) on one
 *   function only work together if the trampoline calls on to wherever the
 *   ip-modifier sent the call, which only its owner can arrange.  So the
 *   owner is asked through ops->ops_func, and a site may hold one of each
 *   only if its slot says the owner agreed (slot->shared; the patcher
 *   refuses the site otherwise):
 *  - a direct ops registered on a function that has an ip-modifier is
 *    asked FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_SELF, with direct_mutex
 *    and ftrace_lock held;
 *  - before an IPMODIFY ops is registered, the owner of each direct call
 *    on its functions is asked FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_PEER,
 *    with direct_mutex held only (the owner may then move its trampoline
 *    with modify_ftrace_direct_nolock());
 *  - after an ip-modifier left a shared site (unregistered, or its
 *    registration failed), the owner is told DISABLE_SHARE_IPMODIFY_PEER.
 *   A direct ops without ops_func, or whose ops_func says no, keeps 6.12's
 *   answer: the registration that would share fails (-EBUSY, or the
 *   owner's error) and nothing changes.
 */
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "ftrace_records.h"
#include "ftrace_patch.h"
#include "ftrace_user.h"
#include "ftrace_direct.h"
#include "trace.h"

/*
 * Flags every direct ops carries: x86 passes the address back in pt_regs;
 * where there is no pt_regs frame (arm64) ftrace_regs carries it.
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
#define DIRECT_OPS_FLAGS	(FTRACE_OPS_FL_DIRECT | FTRACE_OPS_FL_SAVE_REGS)
#else
#define DIRECT_OPS_FLAGS	FTRACE_OPS_FL_DIRECT
#endif

/* Smallest table we allocate; the table is always at most half full. */
#define DIRECT_MAP_MIN_SLOTS	16UL

/*
 * Serialises register/unregister/modify of direct ops; taken before
 * ftrace_lock.  The ops layer holds it (direct_share_lock()) around an
 * ip-modifier's registration, whose ops_func() calls into direct ops may
 * then use modify_ftrace_direct_nolock().
 */
static DEFINE_MUTEX(direct_mutex);

struct direct_slot {
	unsigned long		ip;	/* 0: never used */
	unsigned long		addr;	/* trampoline; 0 in a tombstone */
	struct ftrace_ops	*ops;	/* owner; NULL in a tombstone */
	bool			shared;	/* owner agreed to an ip-modifier here */
};

struct direct_map {
	struct rcu_head		rcu;
	unsigned int		mask;	/* slots - 1, slots a power of two */
	unsigned int		live;	/* slots with an owner */
	struct direct_slot	slots[];
};

static struct direct_map __rcu *direct_map;

/* The current map, for writers and for readers holding ftrace_lock. */
static struct direct_map *direct_map_locked(void)
{
	return rcu_dereference_protected(direct_map,
					 lockdep_is_held(&ftrace_lock));
}

/* Slot holding @ip (live or tombstone), or NULL. */
static struct direct_slot *direct_map_find(struct direct_map *map,
					   unsigned long ip)
{
	unsigned int i;

	if (!map)
		return NULL;

	for (i = hash_long(ip, 32) & map->mask;; i = (i + 1) & map->mask) {
		struct direct_slot *slot = &map->slots[i];

		if (slot->ip == ip)
			return slot;
		if (!slot->ip)
			return NULL;
	}
}

/* A table for @nr entries, empty; not yet visible to anyone. */
static struct direct_map *direct_map_alloc(unsigned long nr)
{
	struct direct_map *map;
	unsigned long slots;

	if (nr > U32_MAX / 4)
		return NULL;

	slots = roundup_pow_of_two(max(2 * nr, DIRECT_MAP_MIN_SLOTS));
	map = kvzalloc(struct_size(map, slots, slots), GFP_KERNEL);
	if (!map)
		return NULL;

	map->mask = slots - 1;
	return map;
}

/* Insert into an unpublished table; @ip must not be in it yet. */
static void direct_map_put(struct direct_map *map, unsigned long ip,
			   unsigned long addr, struct ftrace_ops *ops)
{
	unsigned int i = hash_long(ip, 32) & map->mask;

	while (map->slots[i].ip)
		i = (i + 1) & map->mask;

	map->slots[i].ip = ip;
	map->slots[i].addr = addr;
	map->slots[i].ops = ops;
	map->live++;
}

/*
 * A copy of @old's live entries plus every function of @hash going to
 * @addr for @ops.  Tombstones are left behind.  NULL on allocation failure.
 */
static struct direct_map *direct_map_with(struct direct_map *old,
					  struct ftrace_hash *hash,
					  struct ftrace_ops *ops,
					  unsigned long addr)
{
	unsigned long nr = hash->count + (old ? old->live : 0);
	struct ftrace_func_entry *entry;
	struct direct_map *map;
	unsigned long bucket;
	unsigned int i;

	map = direct_map_alloc(nr);
	if (!map)
		return NULL;

	for (i = 0; old && i <= old->mask; i++) {
		struct direct_slot *slot = &old->slots[i];

		if (slot->ops) {
			direct_map_put(map, slot->ip, slot->addr, slot->ops);
			direct_map_find(map, slot->ip)->shared = slot->shared;
		}
	}

	for_each_hash_entry(hash, bucket, entry)
		direct_map_put(map, entry->ip, addr, ops);

	return map;
}

/* Point every live slot of @ops, and the ops itself, at @addr. */
static void direct_set_addr(struct direct_map *map, struct ftrace_ops *ops,
			    unsigned long addr)
{
	unsigned int i;

	WRITE_ONCE(ops->direct_call, addr);

	for (i = 0; map && i <= map->mask; i++) {
		if (map->slots[i].ops == ops)
			WRITE_ONCE(map->slots[i].addr, addr);
	}
}

/* Turn the slots of @ops into tombstones; drop the map once it is empty. */
static void direct_map_drop(struct ftrace_ops *ops)
{
	struct direct_map *map = direct_map_locked();
	unsigned int i;

	for (i = 0; map && i <= map->mask; i++) {
		struct direct_slot *slot = &map->slots[i];

		if (slot->ops != ops)
			continue;
		WRITE_ONCE(slot->addr, 0);
		WRITE_ONCE(slot->ops, NULL);
		slot->shared = false;
		map->live--;
	}

	if (map && !map->live) {
		RCU_INIT_POINTER(direct_map, NULL);
		kvfree_rcu(map, rcu);
	}
}

/*
 * Is @ip already served by a direct ops?  Either it has a live slot, or a
 * registered direct ops wants it (its filter grew after registration, which
 * the map does not follow).  Caller holds ftrace_lock.
 */
static bool direct_ip_taken(struct direct_map *map, unsigned long ip)
{
	struct direct_slot *slot = direct_map_find(map, ip);
	struct ftrace_ops *op;

	if (slot && slot->ops)
		return true;

	do_for_each_ftrace_op(op, ftrace_ops_list) {
		if (op == &ftrace_list_end)
			break;
		if ((op->flags & FTRACE_OPS_FL_DIRECT) &&
		    ftrace_ops_wants_ip(op, ip))
			return true;
	} while_for_each_ftrace_op(op);

	return false;
}

static bool direct_hash_taken(struct direct_map *map, struct ftrace_hash *hash)
{
	struct ftrace_func_entry *entry;
	unsigned long bucket;

	for_each_hash_entry(hash, bucket, entry) {
		if (direct_ip_taken(map, entry->ip))
			return true;
	}
	return false;
}

/*
 * ops->func of every direct ops: reached only from a site shared with other
 * ops (a lone site calls the trampoline itself).  Hands the trampoline to
 * ftrace_regs_caller, which jumps there on its way out.
 */
static void notrace direct_ops_func(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op,
				    struct ftrace_regs *fregs)
{
	unsigned long addr = READ_ONCE(op->direct_call);

	if (addr)
		arch_ftrace_set_direct_caller(fregs, addr);
}

/**
 * ftrace_find_rec_direct - trampoline a direct ops put on a call site
 * @ip: address of the fentry call site
 *
 * Used by the patcher to aim a site whose only user is a direct ops, and by
 * the enabled_functions listing.
 *
 * Context: any; lockless (RCU).  Under ftrace_lock the answer is stable.
 * Return: the trampoline address, or 0 if no direct ops claimed @ip.
 */
unsigned long ftrace_find_rec_direct(unsigned long ip)
{
	struct direct_slot *slot;
	struct direct_map *map;
	unsigned long addr = 0;

	rcu_read_lock();
	map = rcu_dereference_check(direct_map, lockdep_is_held(&ftrace_lock));
	slot = direct_map_find(map, ip);
	if (slot)
		addr = READ_ONCE(slot->addr);
	rcu_read_unlock();

	return addr;
}

/* The @ops went through register_ftrace_direct() and is still registered. */
static int direct_ops_check_live(struct ftrace_ops *ops)
{
	if ((ops->flags & DIRECT_OPS_FLAGS) != DIRECT_OPS_FLAGS)
		return -EINVAL;
	if (!(ops->flags & FTRACE_OPS_FL_ENABLED))
		return -EINVAL;
	return 0;
}

/* Ask a direct ops' owner through its ops_func; without one, it is a no. */
static int direct_ask_owner(struct ftrace_ops *ops, enum ftrace_ops_cmd cmd)
{
	return ops->ops_func ? ops->ops_func(ops, cmd) : -EBUSY;
}

/* Does an ip-modifier hold the site at @ip?  Caller holds ftrace_lock. */
static bool direct_site_has_ipmodify(unsigned long ip)
{
	struct ftrace_site_group *g;
	unsigned int i;

	g = ftrace_site_find(ip, &i);
	return g && (ftrace_site_flags(g, i) & FTRACE_FL_IPMODIFY);
}

static bool direct_hash_has_ipmodify(struct ftrace_hash *hash)
{
	struct ftrace_func_entry *entry;
	unsigned long bucket;

	for_each_hash_entry(hash, bucket, entry) {
		if (direct_site_has_ipmodify(entry->ip))
			return true;
	}
	return false;
}

/* The owner agreed (SELF): mark the slots of @hash's ip-modifier sites. */
static void direct_map_share_ipmodify_sites(struct direct_map *map,
					    struct ftrace_hash *hash)
{
	struct ftrace_func_entry *entry;
	unsigned long bucket;

	for_each_hash_entry(hash, bucket, entry) {
		if (direct_site_has_ipmodify(entry->ip))
			direct_map_find(map, entry->ip)->shared = true;
	}
}

static int direct_register_locked(struct ftrace_ops *ops, unsigned long addr)
{
	struct direct_map *old = direct_map_locked();
	unsigned long saved_flags = ops->flags;
	struct ftrace_hash *hash;
	struct direct_map *map;
	bool shared;
	int err;

	/* In use (by us or as a plain ops), or never given a filter. */
	if (ops->func || ops->trampoline || !ops->func_hash ||
	    (ops->flags & FTRACE_OPS_FL_ENABLED))
		return -EINVAL;

	/* Filter swaps happen under ftrace_lock, which we hold. */
	hash = rcu_dereference_protected(ops->func_hash->filter_hash,
					 lockdep_is_held(&ftrace_lock));
	if (!hash || !hash->count)
		return -EINVAL;

	if (direct_hash_taken(old, hash))
		return -EBUSY;

	/* An ip-modifier holds some of the functions: may we join it? */
	shared = direct_hash_has_ipmodify(hash);
	err = shared ? direct_ask_owner(ops, FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_SELF) : 0;
	if (err)
		return err;

	map = direct_map_with(old, hash, ops, addr);
	if (!map)
		return -ENOMEM;
	if (shared)
		direct_map_share_ipmodify_sites(map, hash);

	/*
	 * trampoline = ftrace_regs_caller: a lone site never uses it (the
	 * patcher aims it at @addr), and it keeps the arch code from building
	 * a private trampoline for this ops.
	 */
	ops->func = direct_ops_func;
	ops->flags = (saved_flags & FTRACE_OPS_FL_INITIALIZED) | DIRECT_OPS_FLAGS;
	ops->trampoline = FTRACE_REGS_ADDR;
	ops->direct_call = addr;
	rcu_assign_pointer(direct_map, map);

	err = ftrace_startup(ops, 0);
	if (err) {
		rcu_assign_pointer(direct_map, old);
		ops->func = NULL;
		ops->flags = saved_flags;
		ops->trampoline = 0;
		ops->direct_call = 0;
		kvfree_rcu(map, rcu);
		return err;
	}

	if (old)
		kvfree_rcu(old, rcu);
	return 0;
}

/**
 * register_ftrace_direct - make functions call a custom trampoline
 * @ops: ops whose filter hash (ftrace_set_filter_ip() and friends) names
 *	 the functions; func and trampoline must be unset
 * @addr: the trampoline; it must save and restore the traced function's
 *	  arguments and return like the x86 samples in samples/ftrace do
 *
 * Registers @ops as a direct ops: from now on each function of its filter
 * calls @addr from its fentry site, directly when no other ops traces the
 * function, else through ftrace_regs_caller.  @ops gets FTRACE_OPS_FL_DIRECT
 * and FTRACE_OPS_FL_SAVE_REGS and its own func; its other flags are dropped.
 * On failure @ops and all direct-call state are as before.
 *
 * Context: process context, may sleep.  Takes direct_mutex and ftrace_lock.
 * Return: 0 on success;
 * -EINVAL if @ops is in use, its filter is empty or @addr is 0;
 * -EBUSY if one of the functions already calls a direct trampoline (or
 * the update finds a clash on a site);
 * -ENOMEM on allocation failure;
 * or another error from registering the ops.
 */
int register_ftrace_direct(struct ftrace_ops *ops, unsigned long addr)
{
	int err;

	if (!addr)
		return -EINVAL;

	mutex_lock(&direct_mutex);
	mutex_lock(&ftrace_lock);
	err = direct_register_locked(ops, addr);
	mutex_unlock(&ftrace_lock);
	mutex_unlock(&direct_mutex);

	return err;
}
EXPORT_SYMBOL_GPL(register_ftrace_direct);

static int direct_unregister_locked(struct ftrace_ops *ops)
{
	int err;

	err = direct_ops_check_live(ops);
	if (err)
		return err;

	/* Returns once no CPU can be in the trampoline or direct_ops_func(). */
	err = ftrace_shutdown(ops, 0);
	if (err)
		return err;

	direct_map_drop(ops);
	ops->func = NULL;
	ops->trampoline = 0;
	return 0;
}

/**
 * unregister_ftrace_direct - stop the calls set up by register_ftrace_direct()
 * @ops: the direct ops
 * @addr: its trampoline; informational only, the map entries are found by
 *	  their owner @ops (so a modified ops is removed whatever @addr says)
 * @free_filters: also free the filter and notrace hashes of @ops
 *
 * Unregisters @ops; when this returns no function calls its trampoline any
 * more and no CPU is still running it, so the trampoline may be freed.  The
 * ops may then be registered again.  On error nothing changed (and the
 * filters are kept).
 *
 * Context: process context, may sleep.  Takes direct_mutex and ftrace_lock.
 * Return: 0 on success; -EINVAL if @ops is not a registered direct ops;
 * or the error of unregistering the ops.
 */
int unregister_ftrace_direct(struct ftrace_ops *ops, unsigned long addr,
			     bool free_filters)
{
	int err;

	mutex_lock(&direct_mutex);
	mutex_lock(&ftrace_lock);
	err = direct_unregister_locked(ops);
	mutex_unlock(&ftrace_lock);
	mutex_unlock(&direct_mutex);

	if (!err && free_filters)
		ftrace_free_filter(ops);
	return err;
}
EXPORT_SYMBOL_GPL(unregister_ftrace_direct);

/*
 * Move @ops to @addr in one site update.  Until a lone site is repatched it
 * still calls the old trampoline; shared sites pick the new one up through
 * direct_ops_func() right away.  So every call goes to one of the two and
 * none is missed.  The arch patches a call into another call atomically.
 */
static int direct_modify_locked(struct ftrace_ops *ops, unsigned long addr)
{
	struct direct_map *map = direct_map_locked();
	unsigned long old_addr = ops->direct_call;
	int err;

	err = direct_ops_check_live(ops);
	if (err)
		return err;
	if (!addr)
		return -EINVAL;
	if (addr == old_addr)
		return 0;

	direct_set_addr(map, ops, addr);

	err = ftrace_sites_update(0);
	if (err)
		direct_set_addr(map, ops, old_addr);
	return err;
}

/**
 * modify_ftrace_direct_nolock - move a direct ops to another trampoline
 * @ops: a registered direct ops
 * @addr: the new trampoline
 *
 * Like modify_ftrace_direct(), for callers that already hold direct_mutex
 * (an ops_func() callback invoked by the core).
 *
 * Context: process context, may sleep.  Caller holds direct_mutex and not
 * ftrace_lock; takes ftrace_lock.
 * Return: 0 on success; -EINVAL if @ops is not a registered direct ops or
 * @addr is 0; or the error of the site update (nothing changed then).
 */
int modify_ftrace_direct_nolock(struct ftrace_ops *ops, unsigned long addr)
{
	int err;

	lockdep_assert_held(&direct_mutex);

	mutex_lock(&ftrace_lock);
	err = direct_modify_locked(ops, addr);
	mutex_unlock(&ftrace_lock);

	return err;
}
EXPORT_SYMBOL_GPL(modify_ftrace_direct_nolock);

/**
 * modify_ftrace_direct - move a direct ops to another trampoline
 * @ops: a registered direct ops
 * @addr: the new trampoline
 *
 * Makes every function of @ops call @addr instead of its current
 * trampoline, without a moment where a call reaches neither: each call
 * goes to the old or to the new one.  Once this returns, sites call @addr;
 * a CPU may still be inside the old trampoline, so its owner must wait
 * (e.g. synchronize_rcu_tasks()) before freeing it.
 *
 * Context: process context, may sleep.  Takes direct_mutex and ftrace_lock.
 * Return: 0 on success; -EINVAL if @ops is not a registered direct ops or
 * @addr is 0; or the error of the site update (nothing changed then).
 */
int modify_ftrace_direct(struct ftrace_ops *ops, unsigned long addr)
{
	int err;

	mutex_lock(&direct_mutex);
	err = modify_ftrace_direct_nolock(ops, addr);
	mutex_unlock(&direct_mutex);

	return err;
}
EXPORT_SYMBOL_GPL(modify_ftrace_direct);

/* ---- sharing with ip-modifiers ------------------------------------------ */

/*
 * May the direct call at @ip share its site?  True if a direct ops owns
 * @ip and agreed to share it with an IPMODIFY ops.  The patcher asks,
 * under ftrace_lock, while it builds a site generation.
 */
static bool ftrace_direct_shares_ip(unsigned long ip)
{
	struct direct_slot *slot = direct_map_find(direct_map_locked(), ip);

	return slot && slot->ops && slot->shared;
}

/* Add @ops to @owners[0..*nr) unless it is there. */
static void direct_owner_add(struct ftrace_ops **owners, unsigned int *nr,
			     struct ftrace_ops *ops)
{
	unsigned int i;

	for (i = 0; i < *nr; i++)
		if (owners[i] == ops)
			return;
	owners[(*nr)++] = ops;
}

/*
 * The owners of unshared direct calls on the functions of @hash, in a new
 * array (*@owners, NULL when there are none).  Caller holds ftrace_lock.
 */
static int direct_owners_on(struct ftrace_hash *hash,
			    struct ftrace_ops ***owners, unsigned int *nr)
{
	struct direct_map *map = direct_map_locked();
	struct ftrace_func_entry *entry;
	unsigned long bucket;

	*owners = NULL;
	*nr = 0;
	if (!map || ftrace_hash_empty(hash))
		return 0;

	for_each_hash_entry(hash, bucket, entry) {
		struct direct_slot *slot = direct_map_find(map, entry->ip);

		if (!slot || !slot->ops || slot->shared)
			continue;
		if (!*owners) {
			*owners = kcalloc(map->live, sizeof(**owners), GFP_KERNEL);
			if (!*owners)
				return -ENOMEM;
		}
		direct_owner_add(*owners, nr, slot->ops);
	}
	return 0;
}

/*
 * ftrace_direct_share_prepare - ask direct calls to make room for an ip-modifier
 * @ops: an IPMODIFY ops about to be registered
 *
 * Every direct ops that owns a function of @ops' filter is asked, through
 * its ops_func, to share the function with an ip-modifier
 * (FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_PEER); once all agreed, their
 * slots are marked so that the patcher lets the sites be shared.  If one
 * has no ops_func nothing is asked; if one refuses, those that agreed are
 * told DISABLE_SHARE_IPMODIFY_PEER again.  After a failed registration of
 * @ops, ftrace_direct_share_cleanup() undoes a successful prepare.
 *
 * Context: direct_mutex held, ftrace_lock not held; may sleep.
 * Return: 0; -EBUSY if a direct ops on these functions has no ops_func;
 * the error of an ops_func; -ENOMEM.
 */
static int ftrace_direct_share_prepare(struct ftrace_ops *ops)
{
	struct ftrace_func_entry *entry;
	struct ftrace_ops **owners;
	struct ftrace_hash *hash;
	unsigned long bucket;
	unsigned int nr, i;
	int err;

	lockdep_assert_held(&direct_mutex);

	if (!(ops->flags & FTRACE_OPS_FL_IPMODIFY) || !ops->func_hash)
		return 0;

	mutex_lock(&ftrace_lock);
	hash = rcu_dereference_protected(ops->func_hash->filter_hash,
					 lockdep_is_held(&ftrace_lock));
	err = direct_owners_on(hash, &owners, &nr);
	mutex_unlock(&ftrace_lock);
	if (err || !nr)
		return err;

	for (i = 0; i < nr; i++) {
		if (!owners[i]->ops_func) {
			err = -EBUSY;
			goto out;
		}
	}
	for (i = 0; i < nr && !err; i++)
		err = direct_ask_owner(owners[i],
				       FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_PEER);
	if (err) {
		/* owners[i - 1] said no; those before it said yes. */
		for (i--; i > 0; i--)
			direct_ask_owner(owners[i - 1],
					 FTRACE_OPS_CMD_DISABLE_SHARE_IPMODIFY_PEER);
		goto out;
	}

	/* direct_mutex kept the map's owners as they were. */
	mutex_lock(&ftrace_lock);
	hash = rcu_dereference_protected(ops->func_hash->filter_hash,
					 lockdep_is_held(&ftrace_lock));
	for_each_hash_entry(hash, bucket, entry) {
		struct direct_slot *slot = direct_map_find(direct_map_locked(),
							   entry->ip);

		if (slot && slot->ops)
			slot->shared = true;
	}
	mutex_unlock(&ftrace_lock);
out:
	kfree(owners);
	return err;
}

/*
 * ftrace_direct_share_cleanup - end the sharing of sites an ip-modifier left
 *
 * For every shared direct-call site that no ip-modifier holds any more,
 * the mark is cleared and the owner is told
 * FTRACE_OPS_CMD_DISABLE_SHARE_IPMODIFY_PEER (once per owner).  Called
 * after an IPMODIFY ops was unregistered or failed to register.
 *
 * Context: direct_mutex held, ftrace_lock not held; may sleep.
 */
static void ftrace_direct_share_cleanup(void)
{
	struct ftrace_ops **owners = NULL;
	struct direct_map *map;
	unsigned int nr = 0, i;

	lockdep_assert_held(&direct_mutex);

	mutex_lock(&ftrace_lock);
	map = direct_map_locked();
	for (i = 0; map && i <= map->mask; i++) {
		struct direct_slot *slot = &map->slots[i];

		if (!slot->ops || !slot->shared ||
		    direct_site_has_ipmodify(slot->ip))
			continue;
		slot->shared = false;
		if (!owners)
			owners = kcalloc(map->live, sizeof(*owners), GFP_KERNEL);
		/* Without memory the owner is not told; the site is unshared. */
		if (owners)
			direct_owner_add(owners, &nr, slot->ops);
	}
	mutex_unlock(&ftrace_lock);

	for (i = 0; i < nr; i++)
		direct_ask_owner(owners[i], FTRACE_OPS_CMD_DISABLE_SHARE_IPMODIFY_PEER);
	kfree(owners);
}

/* ---- registration with the layers below --------------------------------- */

static void direct_share_lock(void)
	__acquires(&direct_mutex)
{
	mutex_lock(&direct_mutex);
}

static void direct_share_unlock(void)
	__releases(&direct_mutex)
{
	mutex_unlock(&direct_mutex);
}

/* The ops layer's steps around an ip-modifier. */
static const struct ftrace_ipmodify_share direct_ipmodify_share = {
	.lock		= direct_share_lock,
	.unlock		= direct_share_unlock,
	.prepare	= ftrace_direct_share_prepare,
	.cleanup	= ftrace_direct_share_cleanup,
};

/* The patcher's view of a site's direct call. */
static const struct ftrace_sites_direct direct_sites = {
	.addr_of	= ftrace_find_rec_direct,
	.shares		= ftrace_direct_shares_ip,
};

/**
 * ftrace_direct_init - register direct calls with the core
 *
 * The patcher learns where a lone direct site jumps to and which sites a
 * direct call shares with an ip-modifier; the ops layer learns how to
 * register an ip-modifier beside direct calls (under direct_mutex).
 *
 * Context: once, from ftrace_init(), before any ops can be registered.
 */
void __init ftrace_direct_init(void)
{
	ftrace_sites_set_direct(&direct_sites);
	ftrace_ops_set_ipmodify_share(&direct_ipmodify_share);
}
