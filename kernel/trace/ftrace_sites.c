// SPDX-License-Identifier: GPL-2.0
/*
 * Call-site records of the function-hook core: the groups and what is
 * kept per site, and the lookups by address.
 *
 * The compiler plants a "call __fentry__" at the start of every traceable
 * function and lists the addresses.  Each image (vmlinux, a module) gets one
 * group: its sites as 32-bit offsets from the lowest, sorted by ip (see
 * struct ftrace_site_group).  This file allocates and frees groups, links
 * and unlinks them, makes the per-site states on first use and frees idle
 * ones again, and answers "is there a call site at, or in, ...?" for
 * kprobes, fprobe, the filter code and the tracefs files.  Where groups
 * come from and when they go (boot, modules, freed text) is
 * ftrace_sites_images.c; names are ftrace_sites_names.c; the report of a
 * site that could not be patched is ftrace_sites_report.c.
 *
 * Layer: sites (the bottom of the core); calls nothing above it.
 *
 * Locking and lifetime:
 *  - ftrace_lock serialises every change to the group list and to the
 *    contents of a group.
 *  - A linked group's offs[] never move and its nr never changes, with one
 *    exception: when freed text cannot be cut out of a group for lack of
 *    memory, its sites are marked FTRACE_SITE_OFF_DISABLED in place (they
 *    are then never patched or matched, but ftrace_location() still
 *    reports them).
 *  - Readers without ftrace_lock walk the list and search offs[] under
 *    rcu_read_lock() (or with preemption disabled).  A group leaves the list
 *    with rcu_assign_pointer() and is freed only after grace periods, see
 *    site_group_retire().
 *  - Once a group is linked, the site states (cur_addr, set and the
 *    FTRACE_FL_* flags) belong to the patcher (ftrace_patch.c).  The sites
 *    layer creates states (ftrace_site_state_get(), under ftrace_lock) and
 *    afterwards only sets or clears the disabled mark.  Only holders of
 *    ftrace_lock look at states; they are freed with their group.
 */
#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "trace.h"
#include "ftrace_records.h"
#include "ftrace_sites.h"

/* Accounting shown by dyn_ftrace_total_info and at boot. */
unsigned long ftrace_update_tot_cnt;	/* records in all groups */
unsigned long ftrace_number_of_pages;	/* ftrace_site_bytes, in pages */
unsigned long ftrace_site_bytes;	/* groups and state chunks */
unsigned long ftrace_number_of_groups;	/* vmlinux + one per module */
unsigned long ftrace_update_time;	/* ns spent NOPing vmlinux at boot */

struct ftrace_site_group __rcu *ftrace_site_groups;

static atomic_long_t site_bytes = ATOMIC_LONG_INIT(0);

static void site_bytes_add(long delta)
{
	unsigned long now = atomic_long_add_return(delta, &site_bytes);

	WRITE_ONCE(ftrace_site_bytes, now);
	WRITE_ONCE(ftrace_number_of_pages, DIV_ROUND_UP(now, PAGE_SIZE));
}

/*
 * Last group ftrace_site_group_of() found by walking the list, and the
 * index it found there (only a hint: checked before use).  Any reader
 * may store to it, so it may briefly name a group that was just unlinked;
 * such a group is cleared from it when unlinked and again after a grace
 * period, and freed only after a second one (site_group_retire()), so no
 * reader follows it to freed memory.
 */
static struct ftrace_site_group *site_group_hint;
static unsigned int site_index_hint;

/* ---- allocation and list maintenance ---------------------------------- */

/*
 * A group and its two arrays are one allocation: [group][chunks: one per
 * FTRACE_SITE_CHUNK sites][offs: cap].  Large ones (vmlinux) come from
 * vmalloc, which rounds to pages rather than to a power of two.
 */
struct ftrace_site_group *site_group_alloc(struct module *mod, unsigned int cap)
{
	unsigned int nr_chunks = DIV_ROUND_UP(cap, FTRACE_SITE_CHUNK);
	struct ftrace_site_group *g;
	size_t size;

	size = size_add(sizeof(*g), size_mul(nr_chunks, sizeof(*g->chunks)));
	size = size_add(size, size_mul(cap, sizeof(*g->offs)));
	if (size > PAGE_SIZE) {
		g = vzalloc(size);
		size = PAGE_ALIGN(size);
	} else {
		g = kzalloc(size, GFP_KERNEL);
		size = kmalloc_size_roundup(size);
	}
	if (!g)
		return NULL;
	g->mod = mod;
	g->chunks = (struct ftrace_site_chunk **)(g + 1);
	g->offs = (u32 *)(g->chunks + nr_chunks);
	g->bytes = size;
	site_bytes_add(size);
	return g;
}
EXPORT_SYMBOL_IF_KUNIT(site_group_alloc);

static size_t site_history_bytes(const struct ftrace_site_group *g)
{
	return kmalloc_size_roundup(BITS_TO_LONGS(2 * g->nr) * sizeof(long));
}

/* The history bitmap of @g, allocated if needed; NULL on -ENOMEM. */
unsigned long *site_history(struct ftrace_site_group *g)
{
	if (!g->history && g->nr) {
		g->history = bitmap_zalloc(2 * g->nr, GFP_KERNEL);
		if (g->history)
			site_bytes_add(site_history_bytes(g));
	}
	return g->history;
}

/* Free @g and its states; @g is unlinked and no reader can reach it. */
void site_group_free(struct ftrace_site_group *g)
{
	unsigned int c;

	if (!g)
		return;
	for (c = 0; c < DIV_ROUND_UP(g->nr, FTRACE_SITE_CHUNK); c++)
		kfree(g->chunks[c]);
	site_bytes_add(-(long)(g->bytes + g->nr_chunks *
			       sizeof(struct ftrace_site_chunk)));
	if (g->history)
		site_bytes_add(-(long)site_history_bytes(g));
	kfree(g->history);
	kvfree(g);
}
EXPORT_SYMBOL_IF_KUNIT(site_group_free);

static void site_group_free_rcu(struct rcu_head *head)
{
	site_group_free(container_of(head, struct ftrace_site_group, rcu));
}

/**
 * ftrace_site_state_get - the state of a call site, made on first use
 * @g: the site's group
 * @i: the site's index in @g
 *
 * States come FTRACE_SITE_CHUNK at a time; a new chunk starts with every
 * site a NOP wanted by nobody, its record's ip and disabled flag filled in.
 *
 * Context: ftrace_lock held, or @g not published yet.
 * Return: the state, or NULL if no memory was left for a new chunk.
 */
struct ftrace_site_state *ftrace_site_state_get(struct ftrace_site_group *g,
						unsigned int i)
{
	unsigned int c = i >> FTRACE_SITE_CHUNK_SHIFT;
	unsigned int first = c << FTRACE_SITE_CHUNK_SHIFT;
	struct ftrace_site_chunk *chunk = g->chunks[c];
	unsigned int k;

	if (chunk)
		return &chunk->st[i - first];
	chunk = kzalloc(sizeof(*chunk), GFP_KERNEL);
	if (!chunk)
		return NULL;
	for (k = 0; k < FTRACE_SITE_CHUNK && first + k < g->nr; k++) {
		chunk->st[k].rec.ip = ftrace_site_ip(g, first + k);
		chunk->st[k].rec.flags = ftrace_site_history(g, first + k);
		if (ftrace_site_disabled(g, first + k))
			chunk->st[k].rec.flags |= FTRACE_FL_DISABLED;
	}
	/* Lockless ftrace_site_group_of() callers see it filled in. */
	smp_store_release(&g->chunks[c], chunk);
	g->nr_chunks++;
	site_bytes_add(sizeof(*chunk));
	return &chunk->st[i - first];
}

/**
 * ftrace_site_set_disabled - mark a call site unusable, or usable again
 * @g: the site's group
 * @i: the site's index in @g
 * @disabled: the new mark
 *
 * Context: ftrace_lock held, or @g not published yet.
 */
void ftrace_site_set_disabled(struct ftrace_site_group *g, unsigned int i,
			      bool disabled)
{
	struct ftrace_site_state *st = ftrace_site_state(g, i);
	u32 off = g->offs[i];

	if (disabled)
		off |= FTRACE_SITE_OFF_DISABLED;
	else
		off &= ~FTRACE_SITE_OFF_DISABLED;
	WRITE_ONCE(g->offs[i], off);
	if (!st)
		return;
	if (disabled)
		st->rec.flags |= FTRACE_FL_DISABLED;
	else
		st->rec.flags &= ~FTRACE_FL_DISABLED;
}

/* The link that points at @g, or the list's terminating link for NULL. */
static struct ftrace_site_group __rcu **site_group_link(struct ftrace_site_group *g)
{
	struct ftrace_site_group __rcu **pp = &ftrace_site_groups;
	struct ftrace_site_group *cur;

	while ((cur = site_group_deref(pp)) && cur != g)
		pp = &cur->next;
	return pp;
}

/* Append @g (filled, NOPed) to the list; it becomes visible to readers. */
void site_group_publish(struct ftrace_site_group *g)
{
	RCU_INIT_POINTER(g->next, NULL);
	rcu_assign_pointer(*site_group_link(NULL), g);
	ftrace_update_tot_cnt += g->nr;
	ftrace_number_of_groups++;
}

static void site_group_forget_hint(struct ftrace_site_group *g)
{
	if (READ_ONCE(site_group_hint) == g)
		WRITE_ONCE(site_group_hint, NULL);
}

/* Take @g off the list; the caller retires it after dropping the lock. */
void site_group_unlink(struct ftrace_site_group *g)
{
	rcu_assign_pointer(*site_group_link(g), site_group_deref(&g->next));
	site_group_forget_hint(g);
	ftrace_update_tot_cnt -= g->nr;
	ftrace_number_of_groups--;
}

/* Put @new where @old is on the list (same image, fewer records). */
void site_group_replace(struct ftrace_site_group *old,
			struct ftrace_site_group *new)
{
	RCU_INIT_POINTER(new->next, site_group_deref(&old->next));
	rcu_assign_pointer(*site_group_link(old), new);
	site_group_forget_hint(old);
	ftrace_update_tot_cnt -= old->nr - new->nr;
}

/*
 * Free a group that left the list.  Called without ftrace_lock; sleeps.
 * After the first grace period nobody can find @g on the list any more, but a
 * reader may have stored it in the hint meanwhile; clear it again, and let a
 * second grace period cover readers that picked it up from the hint.
 */
void site_group_retire(struct ftrace_site_group *g)
{
	synchronize_rcu();
	cmpxchg(&site_group_hint, g, NULL);
	call_rcu(&g->rcu, site_group_free_rcu);
}

/* Can chunk @c of @g go?  All its sites idle, and their history kept. */
static bool site_chunk_idle(struct ftrace_site_group *g, unsigned int c)
{
	const struct ftrace_site_chunk *chunk = g->chunks[c];
	bool history = false;
	unsigned int k;

	for (k = 0; k < FTRACE_SITE_CHUNK; k++) {
		const struct ftrace_site_state *st = &chunk->st[k];

		if (st->cur_addr || st->set)
			return false;
		if (st->rec.flags & (FTRACE_FL_TOUCHED | FTRACE_FL_MODIFIED))
			history = true;
	}
	return !history || site_history(g);
}

/**
 * ftrace_site_group_reclaim - free the state chunks of @g that hold only idle sites
 * @g: the group
 *
 * Their FTRACE_FL_TOUCHED and FTRACE_FL_MODIFIED flags move to the
 * group's history bitmap; a chunk stays if that cannot be allocated.
 * Freed at once: everything that looks at states, ftrace_site_group_of()
 * included, holds ftrace_lock.
 *
 * Context: ftrace_lock held (or @g not published), no update running.
 */
void ftrace_site_group_reclaim(struct ftrace_site_group *g)
{
	struct ftrace_site_chunk *chunk;
	unsigned int c, k, first;
	unsigned long flags;

	for (c = 0; c < DIV_ROUND_UP(g->nr, FTRACE_SITE_CHUNK); c++) {
		chunk = g->chunks[c];
		if (!chunk || !site_chunk_idle(g, c))
			continue;
		first = c << FTRACE_SITE_CHUNK_SHIFT;
		for (k = 0; k < FTRACE_SITE_CHUNK && first + k < g->nr; k++) {
			flags = chunk->st[k].rec.flags;
			if (flags & FTRACE_FL_TOUCHED)
				__set_bit(2 * (first + k), g->history);
			if (flags & FTRACE_FL_MODIFIED)
				__set_bit(2 * (first + k) + 1, g->history);
		}
		WRITE_ONCE(g->chunks[c], NULL);
		g->nr_chunks--;
		site_bytes_add(-(long)sizeof(*chunk));
		/* states are only looked at under ftrace_lock */
		kfree(chunk);
	}
}

/**
 * ftrace_sites_reclaim - free the state chunks that hold only idle sites
 *
 * Called at the end of each update, so that sites nobody uses any more go
 * back to costing their offset only.
 *
 * Context: ftrace_lock held; may sleep.
 */
void ftrace_sites_reclaim(void)
{
	struct ftrace_site_group *g;

	lockdep_assert_held(&ftrace_lock);
	for_each_site_group(g)
		if (g->nr_chunks)
			ftrace_site_group_reclaim(g);
}

static void site_reclaim_work_fn(struct work_struct *work)
{
	mutex_lock(&ftrace_lock);
	ftrace_sites_reclaim();
	mutex_unlock(&ftrace_lock);
}

static DECLARE_DELAYED_WORK(site_reclaim_work, site_reclaim_work_fn);

/**
 * ftrace_sites_reclaim_later - free idle state chunks a second from now
 *
 * Called at the end of each update.  The delay keeps the chunks of a
 * detach for an attach that follows at once (tools that switch tracers or
 * filters do that), which would otherwise allocate and fill them again;
 * each further update pushes the reclaim back.  Nothing that reads a
 * site generation touches the chunks, so they may go at any time.
 *
 * Context: any that may queue work.
 */
void ftrace_sites_reclaim_later(void)
{
	/* Updates at boot can come before workqueues exist: the next one will do. */
	if (system_unbound_wq)
		mod_delayed_work(system_unbound_wq, &site_reclaim_work, HZ);
}

/* ---- lookups (ftrace_lock or RCU) --------------------------------------- */

/* Is @ip within the span of @g's records?  Then the index of the first >= @ip. */
static bool site_group_spans(const struct ftrace_site_group *g,
			     unsigned long from, unsigned long to,
			     unsigned int nr, unsigned int *idx)
{
	if (!nr || to < g->base || from > ftrace_site_ip(g, nr - 1))
		return false;
	*idx = site_lower_bound(g, nr, from);
	return true;
}

/**
 * ftrace_site_find - the record whose call site is exactly at @ip
 * @ip: address of a call instruction
 * @idx: receives the record's index in its group
 *
 * Context: ftrace_lock held, or inside an RCU read-side section.
 * Return: the record's group, or NULL.
 */
struct ftrace_site_group *ftrace_site_find(unsigned long ip, unsigned int *idx)
{
	struct ftrace_site_group *g;

	for_each_site_group(g) {
		unsigned int nr = READ_ONCE(g->nr);
		unsigned int i;

		if (!site_group_spans(g, ip, ip, nr, &i))
			continue;
		if (i < nr && ftrace_site_ip(g, i) == ip) {
			*idx = i;
			return g;
		}
	}
	return NULL;
}

/* How many chunks ftrace_site_group_of() looks ahead of its hint. */
#define SITE_HINT_AHEAD	8

/*
 * The index of @rec in @g if it is the record of a state in one of the
 * chunks from the one holding site @from on (a few of them), else UINT_MAX.
 */
static unsigned int site_state_index(const struct ftrace_site_group *g,
				     unsigned int from,
				     const struct dyn_ftrace *rec)
{
	unsigned int c = from >> FTRACE_SITE_CHUNK_SHIFT;
	unsigned int end = DIV_ROUND_UP(READ_ONCE(g->nr), FTRACE_SITE_CHUNK);
	const struct ftrace_site_state *st;
	struct ftrace_site_chunk *chunk;

	st = container_of(rec, struct ftrace_site_state, rec);
	for (end = min(end, c + SITE_HINT_AHEAD); c < end; c++) {
		/* pairs with ftrace_site_state_get() */
		chunk = smp_load_acquire(&g->chunks[c]);
		if (chunk && st >= chunk->st && st < chunk->st + FTRACE_SITE_CHUNK)
			return (c << FTRACE_SITE_CHUNK_SHIFT) + (st - chunk->st);
	}
	return UINT_MAX;
}

/**
 * ftrace_site_group_of - the group holding a record, and its index there
 * @rec: a record: a site's state, or any struct dyn_ftrace naming a site
 *	 by its ip
 * @idx: if not NULL, receives the index of the site in the group
 *
 * The arch patcher walks the records in order and asks several questions
 * about each: the last answer is kept, and a state's record at or a little
 * after it is placed from its address alone.  Anything else is looked up
 * by ip.
 *
 * Context: ftrace_lock held (the arch patchers and ftrace_bug() run under
 * it).
 * Return: the group, or NULL if no linked group has a site at rec->ip.
 */
struct ftrace_site_group *ftrace_site_group_of(const struct dyn_ftrace *rec,
					       unsigned int *idx)
{
	struct ftrace_site_group *g = READ_ONCE(site_group_hint);
	unsigned int i = READ_ONCE(site_index_hint);
	struct ftrace_site_state *st;

	if (g && i < READ_ONCE(g->nr)) {
		/* the same record again: the patcher asks several questions */
		st = ftrace_site_state(g, i);
		if (st && &st->rec == rec)
			goto out;
		i = site_state_index(g, i, rec);
		if (i < READ_ONCE(g->nr))
			goto found;
	}
	g = ftrace_site_find(rec->ip, &i);
	if (!g)
		return NULL;
found:
	WRITE_ONCE(site_group_hint, g);
	WRITE_ONCE(site_index_hint, i);
out:
	if (idx)
		*idx = i;
	return g;
}

/*
 * ip of the lowest record whose call instruction overlaps [start, end], or 0.
 * A record at ip overlaps when ip <= end and ip + MCOUNT_INSN_SIZE > start.
 */
static unsigned long site_first_overlap(unsigned long start, unsigned long end)
{
	unsigned long from = start > MCOUNT_INSN_SIZE - 1 ?
			     start - (MCOUNT_INSN_SIZE - 1) : 0;
	unsigned long found = ULONG_MAX;
	struct ftrace_site_group *g;

	for_each_site_group(g) {
		unsigned int nr = READ_ONCE(g->nr);
		unsigned int i;

		unsigned long ip;

		if (!site_group_spans(g, from, end, nr, &i) || i >= nr)
			continue;
		ip = ftrace_site_ip(g, i);
		if (ip <= end)
			found = min(found, ip);
	}
	return found == ULONG_MAX ? 0 : found;
}

/**
 * ftrace_location_range - the first call site in an address range
 * @start: first byte of the range
 * @end: last byte of the range (inclusive)
 *
 * Context: any; takes rcu_read_lock().
 * Return: the ip of the lowest call site whose instruction overlaps
 * [@start, @end], or 0.
 */
unsigned long ftrace_location_range(unsigned long start, unsigned long end)
{
	unsigned long found;

	rcu_read_lock();
	found = site_first_overlap(start, end);
	rcu_read_unlock();
	return found;
}

/* Without the architecture's help a function's call site is found by size. */
#ifndef ftrace_arch_entry_site
static inline unsigned long ftrace_arch_entry_site(unsigned long ip)
{
	return ip;
}
#endif

/**
 * ftrace_location - the call site at an address or of a function
 * @ip: an address inside a call site, or the start of a function
 *
 * With IBT the call site is not at the function's first byte (an ENDBR
 * precedes it), hence the second form.
 *
 * Return: the call site's ip if @ip lies in its instruction; else, if @ip
 * is the start of a symbol, the call site inside that symbol; else 0.
 */
unsigned long ftrace_location(unsigned long ip)
{
	unsigned long site = ftrace_location_range(ip, ip);
	unsigned long entry, size, offset;

	if (site)
		return site;
	/*
	 * Where the architecture can tell from a function's first bytes
	 * where its call site is, that saves the symbol lookup below (most
	 * of this function's cost when thousands of functions are named).
	 */
	entry = ftrace_arch_entry_site(ip);
	if (entry != ip && ftrace_location_range(entry, entry) == entry)
		return entry;
	if (!kallsyms_lookup_size_offset(ip, &size, &offset))
		return 0;
	/* Only the very start of a function stands for its call site. */
	if (offset || !size)
		return 0;
	return ftrace_location_range(ip, ip + size - 1);
}

/*
 * From recs[*cur] on, skip the records that end before @ip; return the
 * record's ip if its instruction holds @ip, else 0.
 */
static unsigned long site_walk_to(const struct ftrace_site_group *g,
				  unsigned int nr, unsigned int *cur,
				  unsigned long ip)
{
	unsigned long from = ip > MCOUNT_INSN_SIZE - 1 ?
			     ip - (MCOUNT_INSN_SIZE - 1) : 0;
	unsigned long site;

	while (*cur < nr && ftrace_site_ip(g, *cur) < from)
		(*cur)++;
	if (*cur >= nr)
		return 0;
	site = ftrace_site_ip(g, *cur);
	return site <= ip ? site : 0;
}

/**
 * ftrace_locations_sorted - ftrace_location() of many addresses at once
 * @ips: addresses in ascending order; each is replaced by its call site
 * @nr: number of addresses
 *
 * Gives each address the answer ftrace_location() would, but finds the
 * ones in vmlinux by one walk along vmlinux's records, which are sorted
 * too, instead of two binary searches each: what an attach by BPF or
 * fprobe to tens of thousands of functions spends most of its lookup on.
 * Addresses the walk cannot place (module text, a function whose call
 * site is found only by its size) take ftrace_location().  Call sites
 * keep the order of the functions they sit in, so @ips stays sorted.
 *
 * Context: any; takes rcu_read_lock().
 * Return: true if every address has a call site; an address without one
 * is left 0.
 */
bool ftrace_locations_sorted(unsigned long *ips, unsigned int nr)
{
	const struct ftrace_site_group *recs = NULL;
	struct ftrace_site_group *g;
	unsigned int i, cur = 0, peek, nrecs = 0;
	unsigned long site, entry;
	bool all = true;

	rcu_read_lock();
	for_each_site_group(g) {
		if (!g->mod) {
			recs = g;
			nrecs = READ_ONCE(g->nr);
			break;
		}
	}
	for (i = 0; i < nr; i++) {
		site = recs ? site_walk_to(recs, nrecs, &cur, ips[i]) : 0;
		if (!site && recs) {
			entry = ftrace_arch_entry_site(ips[i]);
			peek = cur;
			if (entry != ips[i])
				site = site_walk_to(recs, nrecs, &peek, entry);
		}
		if (!site)
			site = ftrace_location(ips[i]);
		ips[i] = site;
		all &= !!site;
	}
	rcu_read_unlock();
	return all;
}

/**
 * ftrace_text_reserved - does a range contain a call site?
 * @start: first byte of the range
 * @end: last byte of the range (inclusive)
 *
 * Return: 1 if a call site overlaps [@start, @end], 0 otherwise.
 */
int ftrace_text_reserved(const void *start, const void *end)
{
	return ftrace_location_range((unsigned long)start,
				     (unsigned long)end) != 0;
}
