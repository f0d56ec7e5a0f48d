// SPDX-License-Identifier: GPL-2.0
/*
 * Instruction slot caches: executable memory for the instructions a
 * breakpoint probe copies out (kprobe_insn_slots) and for jump buffers
 * (kprobe_optinsn_slots), handed out by the arch through get_insn_slot()
 * and get_optinsn_slot().
 *
 * A cache is a list of pages, each cut into slots of the cache's
 * insn_size; a small descriptor per page says which slots are taken and
 * which of those are dirty.
 *
 * Rules:
 *  - A slot freed "dirty" may still be executed by a CPU that hit the
 *    probe a moment ago, so it stays taken; a sweep reclaims all dirty
 *    slots of a cache after synchronize_rcu(), when the cache has no free
 *    slot left or holds more dirty slots than one page has.  A slot freed
 *    clean (never run) is free at once.
 *  - A page with no slot taken is given back, unless it is the cache's
 *    last one.
 *  - The page list is changed only under the cache's mutex and is an RCU
 *    list: __is_insn_slot_addr() (the unwinders, any context) and
 *    /proc/kallsyms read it without the mutex; descriptors are freed
 *    after a grace period.
 *  - Each page is announced to perf as an out-of-line text symbol named
 *    after the cache, "kprobe_insn_page" or "kprobe_optinsn_page", and
 *    shows in /proc/kallsyms under that name.
 */
#include <linux/bitmap.h>
#include <linux/execmem.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/perf_event.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kprobes_place.h"

#ifdef __ARCH_WANT_KPROBES_INSN_SLOT

/* An arch whose slots hold more than the instruction says how much. */
#ifndef KPROBE_INSN_SLOT_SIZE
#define KPROBE_INSN_SLOT_SIZE	MAX_INSN_SIZE
#endif

/*
 * @node: on the cache's pages (RCU list).
 * @base: the executable page.
 * @nr_taken: slots handed out, dirty ones included.
 * @nr_dirty: slots freed dirty and not swept yet.
 * @map: a bitmap of taken slots followed by one of dirty slots.
 */
struct kprobe_slot_page {
	struct list_head node;
	struct rcu_head rcu;
	kprobe_opcode_t *base;
	unsigned int nr_taken;
	unsigned int nr_dirty;
	unsigned long map[];
};

static unsigned int slots_in_page(struct kprobe_insn_cache *c)
{
	return PAGE_SIZE / (c->insn_size * sizeof(kprobe_opcode_t));
}

static unsigned long *taken_map(struct kprobe_slot_page *pg)
{
	return pg->map;
}

static unsigned long *dirty_map(struct kprobe_insn_cache *c,
				struct kprobe_slot_page *pg)
{
	return pg->map + BITS_TO_LONGS(slots_in_page(c));
}

static kprobe_opcode_t *slot_addr(struct kprobe_insn_cache *c,
				  struct kprobe_slot_page *pg, unsigned int i)
{
	return pg->base + i * c->insn_size;
}

/* The page of @c that holds @addr; under c->mutex or RCU. */
static struct kprobe_slot_page *page_of(struct kprobe_insn_cache *c,
					unsigned long addr)
{
	struct kprobe_slot_page *pg;
	unsigned long start;

	list_for_each_entry_rcu(pg, &c->pages, node,
				lockdep_is_held(&c->mutex)) {
		start = (unsigned long)pg->base;
		if (addr - start < PAGE_SIZE)
			return pg;
	}
	return NULL;
}

/**
 * alloc_insn_page - allocate a page for instruction slots
 *
 * The default takes it from execmem's kprobes range, near the kernel
 * text, so that rip-relative and branch displacements of copied
 * instructions still reach.  An architecture may override it.
 *
 * Return: the page, or NULL.
 */
void * __weak alloc_insn_page(void)
{
	return execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
}

/* Pages of either cache go back to execmem. */
static void free_insn_page(void *page)
{
	execmem_free(page);
}

struct kprobe_insn_cache kprobe_insn_slots = {
	.mutex		= __MUTEX_INITIALIZER(kprobe_insn_slots.mutex),
	.pages		= LIST_HEAD_INIT(kprobe_insn_slots.pages),
	.insn_size	= KPROBE_INSN_SLOT_SIZE,
	.sym		= KPROBE_INSN_PAGE_SYM,
	.alloc		= alloc_insn_page,
	.free		= free_insn_page,
};

#ifdef CONFIG_OPTPROBES
/**
 * alloc_optinsn_page - allocate a page for jump buffers
 *
 * Return: the page, or NULL.  The default is alloc_insn_page().
 */
void * __weak alloc_optinsn_page(void)
{
	return alloc_insn_page();
}

/**
 * free_optinsn_page - give back a page of jump buffers
 * @page: a page from alloc_optinsn_page()
 */
void __weak free_optinsn_page(void *page)
{
	free_insn_page(page);
}

/* .insn_size is set at boot: MAX_OPTINSN_SIZE is not a constant. */
struct kprobe_insn_cache kprobe_optinsn_slots = {
	.mutex		= __MUTEX_INITIALIZER(kprobe_optinsn_slots.mutex),
	.pages		= LIST_HEAD_INIT(kprobe_optinsn_slots.pages),
	.sym		= KPROBE_OPTINSN_PAGE_SYM,
	.alloc		= alloc_optinsn_page,
	.free		= free_optinsn_page,
};
#endif

/* Unlink @pg and give it back; the caller holds c->mutex. */
static void release_page(struct kprobe_insn_cache *c,
			 struct kprobe_slot_page *pg)
{
	list_del_rcu(&pg->node);
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL, (unsigned long)pg->base,
			   PAGE_SIZE, true, c->sym);
	/* Nothing runs in it: all its slots are clean and free. */
	c->free(pg->base);
	kfree_rcu(pg, rcu);
}

static bool page_is_last(struct kprobe_insn_cache *c,
			 struct kprobe_slot_page *pg)
{
	return list_is_singular(&c->pages) && c->pages.next == &pg->node;
}

/* Reclaim every dirty slot of @c; the caller holds c->mutex. */
static void sweep(struct kprobe_insn_cache *c)
{
	struct kprobe_slot_page *pg, *tmp;
	unsigned int n = slots_in_page(c);

	/* CPUs that ran a dirty slot have left it. */
	synchronize_rcu();

	list_for_each_entry_safe(pg, tmp, &c->pages, node) {
		if (!pg->nr_dirty)
			continue;
		bitmap_andnot(taken_map(pg), taken_map(pg), dirty_map(c, pg), n);
		bitmap_zero(dirty_map(c, pg), n);
		pg->nr_taken -= pg->nr_dirty;
		pg->nr_dirty = 0;
		if (!pg->nr_taken && !page_is_last(c, pg))
			release_page(c, pg);
	}
	c->nr_garbage = 0;
}

static kprobe_opcode_t *take_free_slot(struct kprobe_insn_cache *c)
{
	unsigned int n = slots_in_page(c);
	struct kprobe_slot_page *pg;
	unsigned int i;

	list_for_each_entry(pg, &c->pages, node) {
		if (pg->nr_taken >= n)
			continue;
		i = find_first_zero_bit(taken_map(pg), n);
		if (WARN_ON_ONCE(i >= n))
			continue;
		__set_bit(i, taken_map(pg));
		pg->nr_taken++;
		return slot_addr(c, pg, i);
	}
	return NULL;
}

static kprobe_opcode_t *take_new_page(struct kprobe_insn_cache *c)
{
	unsigned int n = slots_in_page(c);
	struct kprobe_slot_page *pg;
	void *base = c->alloc();

	if (!base)
		return NULL;
	pg = kzalloc(struct_size(pg, map, 2 * BITS_TO_LONGS(n)), GFP_KERNEL);
	if (!pg) {
		c->free(base);
		return NULL;
	}
	pg->base = base;
	/* The new page's first slot is the one asked for. */
	__set_bit(0, taken_map(pg));
	pg->nr_taken = 1;
	list_add_rcu(&pg->node, &c->pages);
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL, (unsigned long)pg->base,
			   PAGE_SIZE, false, c->sym);
	return pg->base;
}

/**
 * __get_insn_slot - take an executable slot from a cache
 * @c: the cache
 *
 * Context: process context; takes c->mutex and may sleep (a sweep waits
 * for a grace period).
 *
 * Return: a slot of c->insn_size opcodes, or NULL when memory ran out.
 */
kprobe_opcode_t *__get_insn_slot(struct kprobe_insn_cache *c)
{
	kprobe_opcode_t *slot;

	mutex_lock(&c->mutex);
	slot = take_free_slot(c);
	if (!slot && c->nr_garbage) {
		sweep(c);
		slot = take_free_slot(c);
	}
	if (!slot)
		slot = take_new_page(c);
	mutex_unlock(&c->mutex);
	return slot;
}

/**
 * __free_insn_slot - give a slot back to its cache
 * @c: the cache it came from
 * @slot: the slot
 * @dirty: non-zero if a CPU may have run it; it is then reused only after
 *	a grace period
 *
 * Context: process context; takes c->mutex and may sleep.
 */
void __free_insn_slot(struct kprobe_insn_cache *c,
		      kprobe_opcode_t *slot, int dirty)
{
	struct kprobe_slot_page *pg;
	unsigned int i;

	mutex_lock(&c->mutex);
	pg = page_of(c, (unsigned long)slot);
	if (WARN(!pg, "kprobes: slot %p is not in cache %s\n", slot, c->sym))
		goto out;

	i = (slot - pg->base) / c->insn_size;
	if (WARN_ON_ONCE(!test_bit(i, taken_map(pg)) ||
			 test_bit(i, dirty_map(c, pg))))
		goto out;
	if (dirty) {
		__set_bit(i, dirty_map(c, pg));
		pg->nr_dirty++;
		if (++c->nr_garbage > slots_in_page(c))
			sweep(c);
		goto out;
	}
	__clear_bit(i, taken_map(pg));
	if (!--pg->nr_taken && !page_is_last(c, pg))
		release_page(c, pg);
out:
	mutex_unlock(&c->mutex);
}

/**
 * __is_insn_slot_addr - is an address inside a page of a cache
 * @c: the cache
 * @addr: the address
 *
 * Context: any; does not sleep.
 *
 * Return: true if @addr lies in one of @c's pages.
 */
bool __is_insn_slot_addr(struct kprobe_insn_cache *c, unsigned long addr)
{
	guard(rcu)();
	return page_of(c, addr);
}

/**
 * kprobe_cache_get_kallsym - name the pages of a cache for /proc/kallsyms
 * @c: the cache
 * @symnum: in: the index of the symbol wanted; out: decreased by the
 *	number of pages passed over
 * @value: set to the page address when found
 * @type: set to 't' when found
 * @sym: set to the cache's symbol name when found (KSYM_NAME_LEN bytes)
 *
 * Return: 0 when the @symnum-th page of @c was found, -ERANGE otherwise.
 */
int kprobe_cache_get_kallsym(struct kprobe_insn_cache *c, unsigned int *symnum,
			     unsigned long *value, char *type, char *sym)
{
	struct kprobe_slot_page *pg, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(pg, &c->pages, node) {
		if (!*symnum) {
			found = pg;
			*value = (unsigned long)pg->base;
			break;
		}
		(*symnum)--;
	}
	rcu_read_unlock();
	if (!found)
		return -ERANGE;

	*type = 't';
	strscpy(sym, c->sym, KSYM_NAME_LEN);
	return 0;
}

void __init kprobe_insn_caches_init(void)
{
#ifdef CONFIG_OPTPROBES
	kprobe_optinsn_slots.insn_size = MAX_OPTINSN_SIZE;
#endif
}

#else /* !__ARCH_WANT_KPROBES_INSN_SLOT */

void __init kprobe_insn_caches_init(void)
{
}

#endif /* __ARCH_WANT_KPROBES_INSN_SLOT */

/**
 * arch_kprobe_get_kallsym - name the arch's own kprobes text
 * @symnum: in: index of the symbol wanted; out: decreased by the number
 *	the arch has
 * @value: symbol address
 * @type: symbol type
 * @sym: symbol name
 *
 * Return: 0 if found, -ERANGE otherwise.  The default has none.
 */
int __weak arch_kprobe_get_kallsym(unsigned int *symnum, unsigned long *value,
				   char *type, char *sym)
{
	return -ERANGE;
}

/**
 * kprobe_get_kallsym - the kprobes entries of /proc/kallsyms
 * @symnum: index among kprobes' symbols
 * @value: symbol address
 * @type: symbol type
 * @sym: symbol name (KSYM_NAME_LEN bytes)
 *
 * Lists the pages of the instruction slot cache, then those of the jump
 * buffer cache, then what the arch adds.
 *
 * Return: 0 if there is a @symnum-th symbol, -ERANGE otherwise.
 */
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym)
{
	int ret = -ERANGE;

#ifdef __ARCH_WANT_KPROBES_INSN_SLOT
	ret = kprobe_cache_get_kallsym(&kprobe_insn_slots, &symnum, value,
				       type, sym);
#ifdef CONFIG_OPTPROBES
	if (ret)
		ret = kprobe_cache_get_kallsym(&kprobe_optinsn_slots, &symnum,
					       value, type, sym);
#endif
#endif
	if (ret && arch_kprobe_get_kallsym(&symnum, value, type, sym))
		return -ERANGE;
	return 0;
}
