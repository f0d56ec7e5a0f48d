// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe table: which top probe sits at an address.
 *
 * get_kprobe() runs in breakpoint, call-site and jump handlers, with
 * preemption off and no lock, so the table is made for lock-free readers
 * and one writer at a time (kprobe_mutex):
 *
 *  - It is an array of slots, a power of two in number, searched by
 *    linear probing from the slot the address hashes to (first_slot(),
 *    hash_ptr()'s multiply with the shift kept in the table).  A slot
 *    is empty (NULL), a tombstone (a probe left it) or a top probe.
 *  - A slot only goes from empty to a probe, from a probe to a tombstone
 *    or to another probe at the same address (an aggregate taking over),
 *    and from a tombstone to a probe.  So a reader that walks from the
 *    home slot to the first empty one cannot miss a probe that stays in
 *    the table, whatever the writer does meanwhile.
 *  - The array is rebuilt, twice as large, when more than half of its
 *    slots are probes or tombstones, and smaller when an eighth or less
 *    holds probes; a rebuild aims at a quarter.  The new array is filled
 *    before rcu_assign_pointer() publishes it, and the old one is freed
 *    after a grace period.  A lookup is one hash and a short walk at any
 *    size: 100,000 probes take 524,288 slots (4 MiB on 64-bit).
 *
 * Each top probe is also on kprobe_registry, by its ->hlist, which only
 * kprobe_mutex holders walk: arming everything, freed text, debugfs.
 * kprobe_mutex and the global switches live here too, as the bottom of
 * the core (see kprobes_internal.h).
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "kprobes_internal.h"

/* Serializes every change of kprobes' state (kprobes_internal.h). */
DEFINE_MUTEX(kprobe_mutex);
HLIST_HEAD(kprobe_registry);
bool kprobes_all_disarmed;
bool kprobes_ready;

/* The smallest array; also the first one. */
#define KPROBE_TABLE_MIN_BITS	6

/*
 * @bits, @mask: the array has 1 << @bits slots.
 * @live: slots holding a probe; @used: @live plus tombstones.  Both are
 * the writer's only.
 */
struct kprobe_table {
	struct rcu_head rcu;
	unsigned int bits;
	unsigned int shift;
	unsigned long mask;
	unsigned int live;
	unsigned int used;
	struct kprobe __rcu *slot[];
};

static struct kprobe_table __rcu *kprobe_table;

/*
 * What a slot holds after its probe left.  Its address is the last byte
 * of the address space, where no kernel text is, so that a lookup needs
 * no test of its own for it.
 */
static struct kprobe kprobe_tombstone = {
	.addr = (kprobe_opcode_t *)~0UL,
};

/* @addr's first slot: hash_ptr() with the table's shift kept ready. */
static nokprobe_inline unsigned long first_slot(struct kprobe_table *t,
						void *addr)
{
	return ((u64)(unsigned long)addr * GOLDEN_RATIO_64) >> t->shift;
}

static nokprobe_inline struct kprobe_table *table_for_reader(void)
{
	return rcu_dereference_check(kprobe_table,
				     lockdep_is_held(&kprobe_mutex) ||
				     rcu_read_lock_any_held());
}

static struct kprobe_table *table_for_writer(void)
{
	return rcu_dereference_protected(kprobe_table,
					 lockdep_is_held(&kprobe_mutex));
}

static struct kprobe *slot_for_writer(struct kprobe_table *t, unsigned int i)
{
	return rcu_dereference_protected(t->slot[i],
					 lockdep_is_held(&kprobe_mutex));
}

/**
 * get_kprobe - find the top probe at an address
 * @addr: the probed address
 *
 * Context: with kprobe_mutex held, or in an RCU read-side section of any
 * flavour (breakpoint and call-site handlers run with preemption off).
 *
 * Return: the lone probe or the aggregate at @addr, or NULL.  Outside
 * kprobe_mutex it stays valid until the read-side section ends.
 */
struct kprobe *get_kprobe(void *addr)
{
	struct kprobe_table *t = table_for_reader();
	unsigned long i;
	struct kprobe *p;

	if (unlikely(!t))
		return NULL;
	/*
	 * No bound on the walk: an array is never more than three quarters
	 * used (kprobe_table_insert()) and a published one never changes
	 * size, so an empty slot ends every walk.  The tombstone's address
	 * matches no probed one.
	 */
	for (i = first_slot(t, addr);; i = (i + 1) & t->mask) {
		p = rcu_dereference_check(t->slot[i],
					  lockdep_is_held(&kprobe_mutex) ||
					  rcu_read_lock_any_held());
		if (!p || p->addr == addr)
			return p;
	}
}

NOKPROBE_SYMBOL(get_kprobe);

/* The first slot on @addr's walk that a new probe may take. */
static unsigned int free_slot(struct kprobe_table *t, void *addr)
{
	unsigned int i = first_slot(t, addr);
	struct kprobe *p;

	for (;;) {
		p = slot_for_writer(t, i);
		if (!p || p == &kprobe_tombstone)
			return i;
		i = (i + 1) & t->mask;
	}
}

/* The slot that holds @p, or -1 (a bug). */
static int slot_of(struct kprobe_table *t, struct kprobe *p)
{
	unsigned int i = first_slot(t, p->addr);
	unsigned int n;
	struct kprobe *cur;

	for (n = 0; n <= t->mask; n++) {
		cur = slot_for_writer(t, i);
		if (cur == p)
			return i;
		if (!cur)
			break;
		i = (i + 1) & t->mask;
	}
	return -1;
}

/* The size a rebuild for @live probes aims at: a quarter full. */
static unsigned int target_bits(unsigned int live)
{
	unsigned int bits = order_base_2(4 * ((unsigned long)live + 1));

	return max_t(unsigned int, bits, KPROBE_TABLE_MIN_BITS);
}

/*
 * Move every probe into a new array of 1 << @bits slots and publish it.
 * Readers see the old array or the new one, each complete.
 */
static int rebuild(unsigned int bits)
{
	struct kprobe_table *old = table_for_writer();
	struct kprobe_table *t;
	struct kprobe *p;
	unsigned int i;

	t = kvzalloc(struct_size(t, slot, 1UL << bits), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->bits = bits;
	t->shift = 64 - bits;
	t->mask = (1U << bits) - 1;

	for (i = 0; old && i <= old->mask; i++) {
		p = slot_for_writer(old, i);
		if (!p || p == &kprobe_tombstone)
			continue;
		RCU_INIT_POINTER(t->slot[free_slot(t, p->addr)], p);
		t->live++;
	}
	t->used = t->live;

	rcu_assign_pointer(kprobe_table, t);
	if (old)
		kvfree_rcu(old, rcu);
	return 0;
}

/**
 * kprobe_table_insert - put a top probe into the table and the registry
 * @p: a prepared probe whose address has no top probe yet
 *
 * @p is visible to get_kprobe() on return.
 *
 * Context: kprobe_mutex held; may sleep.
 * Return: 0, or -ENOMEM when the table is full and cannot grow.
 */
int kprobe_table_insert(struct kprobe *p)
{
	struct kprobe_table *t = table_for_writer();
	unsigned int i;

	lockdep_assert_held(&kprobe_mutex);

	if (!t || 2 * (t->used + 1) > t->mask + 1) {
		/* A failed rebuild is fine while a slot in four is free. */
		if (rebuild(target_bits(t ? t->live : 0)) &&
		    (!t || 4 * (t->used + 1) > 3 * (t->mask + 1)))
			return -ENOMEM;
		t = table_for_writer();
	}

	i = free_slot(t, p->addr);
	if (!slot_for_writer(t, i))
		t->used++;
	t->live++;
	rcu_assign_pointer(t->slot[i], p);
	hlist_add_head(&p->hlist, &kprobe_registry);
	return 0;
}

/**
 * kprobe_table_remove - take a top probe out of the table and the registry
 * @p: a top probe in the table
 *
 * Lookups that started before may still return @p until a grace period
 * has passed; the caller frees it only after one.
 *
 * Context: kprobe_mutex held; may sleep.
 */
void kprobe_table_remove(struct kprobe *p)
{
	struct kprobe_table *t = table_for_writer();
	int i;

	lockdep_assert_held(&kprobe_mutex);

	i = t ? slot_of(t, p) : -1;
	if (WARN_ON_ONCE(i < 0))
		return;
	RCU_INIT_POINTER(t->slot[i], &kprobe_tombstone);
	t->live--;
	hlist_del_init(&p->hlist);

	/* Shrink; a failure keeps the old array. */
	if (t->bits > KPROBE_TABLE_MIN_BITS && 8 * t->live <= t->mask + 1)
		rebuild(target_bits(t->live));
}

/**
 * kprobe_table_replace - let another top probe take a probe's place
 * @old: a top probe in the table
 * @new: a fully set up probe at the same address
 *
 * Readers see @old or @new, never neither.
 *
 * Context: kprobe_mutex held.
 */
void kprobe_table_replace(struct kprobe *old, struct kprobe *new)
{
	struct kprobe_table *t = table_for_writer();
	int i;

	lockdep_assert_held(&kprobe_mutex);

	i = t ? slot_of(t, old) : -1;
	if (WARN_ON_ONCE(i < 0 || old->addr != new->addr))
		return;
	rcu_assign_pointer(t->slot[i], new);
	hlist_add_before(&new->hlist, &old->hlist);
	hlist_del_init(&old->hlist);
}
