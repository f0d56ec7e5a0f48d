// SPDX-License-Identifier: GPL-2.0
/*
 * Sets of call-site addresses (struct ftrace_hash), the filter test every
 * ops is asked about, glob matching of function names, and the ip -> data
 * mapper used by function probes.
 *
 * Shape.  A hash is an array of 1 << size_bits hlist buckets; an address
 * lives in bucket hash_long(ip, size_bits) (bucket 0 when size_bits is 0).
 * The layout is fixed by kernel/trace/trace.h, whose inline helpers walk it.
 * One shared, read-only empty hash (FTRACE_EMPTY_HASH) stands for "no set";
 * it is never written and never freed.
 *
 * Lifetime and locking.
 *  - A hash being built (a "private" hash) belongs to its builder, who may
 *    add, remove, clear and resize it without locks.
 *  - Once a hash is published through an RCU pointer (an ops filter or
 *    notrace hash, the set_graph_* hashes) it is never edited again, with
 *    one exception below.  Lockless readers (ftrace_ops_test() on every
 *    function-graph entry, the inline graph filters of trace.h) run with
 *    preemption disabled; a replaced ops hash is freed through call_rcu()
 *    (ftrace_hash_free_rcu()).
 *  - The exception: when text goes away (module unload, init memory freed)
 *    ftrace_hashes_drop_range() (ftrace_filter.c) retires the entries
 *    inside the dead range of published hashes in place, under
 *    trace_types_lock and ftrace_lock.  Retiring is a single
 *    store of 0 to entry->ip: the hlist links are not touched, so a reader
 *    walking the bucket at that moment still reaches the end of it, and no
 *    call site ever has address 0, so a retired entry matches nothing.  The
 *    entry count is left alone on purpose: a filter whose every function
 *    disappeared must keep tracing nothing instead of turning into the
 *    empty "trace everything" filter.  Copies leave retired entries behind
 *    (keeping one when nothing else is left, for the same reason).
 *  - The function mapper may be read by probe callbacks while its owner
 *    adds or removes addresses; entries are linked with RCU list primitives
 *    and removed entries are freed after a grace period.
 */
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/glob.h>

#include "trace.h"
#include "ftrace_hash.h"

/* Smallest table a compacted hash gets (four buckets). */
#define FTRACE_HASH_MIN_BITS	2

static const struct hlist_head ftrace_empty_buckets[1];

struct ftrace_hash ftrace_empty_hash __ro_after_init = {
	.buckets	= (struct hlist_head *)ftrace_empty_buckets,
};

/* ---- lookups (lockless readers) ----------------------------------------- */

static __always_inline unsigned long
ftrace_hash_bucket(const struct ftrace_hash *hash, unsigned long ip)
{
	if (!hash->size_bits)
		return 0;
	return hash_long(ip, hash->size_bits);
}

static __always_inline struct hlist_head *
ftrace_hash_head(struct ftrace_hash *hash, unsigned long ip)
{
	return &hash->buckets[ftrace_hash_bucket(hash, ip)];
}

/* @hash must be non-empty (it has buckets and entries). */
static __always_inline struct ftrace_func_entry *
ftrace_hash_find(struct ftrace_hash *hash, unsigned long ip)
{
	struct ftrace_func_entry *entry;

	hlist_for_each_entry_rcu_notrace(entry, ftrace_hash_head(hash, ip), hlist) {
		if (READ_ONCE(entry->ip) == ip)
			return entry;
	}
	return NULL;
}

/**
 * ftrace_lookup_ip - find an address in a hash
 * @hash: the hash to search (NULL and the empty hash hold nothing)
 * @ip: the call-site address
 *
 * Context: any; lockless readers must keep @hash alive (preemption or RCU).
 * Return: the entry holding @ip, or NULL.
 */
notrace struct ftrace_func_entry *
ftrace_lookup_ip(struct ftrace_hash *hash, unsigned long ip)
{
	if (ftrace_hash_empty(hash))
		return NULL;
	return ftrace_hash_find(hash, ip);
}

/* ---- allocation and editing of private hashes --------------------------- */

/* Neither NULL nor the shared empty hash: someone allocated it. */
static bool ftrace_hash_allocated(const struct ftrace_hash *hash)
{
	return hash && hash != FTRACE_EMPTY_HASH;
}

static int ftrace_hash_clamp_bits(int size_bits)
{
	return clamp(size_bits, 0, FTRACE_HASH_MAX_BITS);
}

/* Table size for @count entries: about one entry per bucket. */
static int ftrace_hash_bits_for(unsigned long count)
{
	if (!count)
		return FTRACE_HASH_DEFAULT_BITS;
	if (count >= 1UL << FTRACE_HASH_MAX_BITS)
		return FTRACE_HASH_MAX_BITS;
	return max_t(int, order_base_2(count), FTRACE_HASH_MIN_BITS);
}

static int ftrace_hash_init_buckets(struct ftrace_hash *hash, int size_bits)
{
	size_bits = ftrace_hash_clamp_bits(size_bits);
	hash->buckets = kcalloc(1UL << size_bits, sizeof(*hash->buckets),
				GFP_KERNEL);
	if (!hash->buckets)
		return -ENOMEM;
	hash->size_bits = size_bits;
	return 0;
}

/**
 * ftrace_hash_alloc - allocate an empty private hash
 * @size_bits: log2 of the bucket count (clamped to 0..FTRACE_HASH_MAX_BITS)
 *
 * Return: the new hash, or NULL on allocation failure.
 */
struct ftrace_hash *ftrace_hash_alloc(int size_bits)
{
	struct ftrace_hash *hash;

	hash = kzalloc(sizeof(*hash), GFP_KERNEL);
	if (!hash)
		return NULL;
	if (ftrace_hash_init_buckets(hash, size_bits)) {
		kfree(hash);
		return NULL;
	}
	return hash;
}

/*
 * Entries come from a cache of their own once it exists (ftrace_hash_init(),
 * early in ftrace_init()), so that filling a hash with every call site can
 * take them in bulk.  Whatever frees an entry uses kfree() or kfree_rcu(),
 * which accept objects of any slab cache, so the two sources mix freely.
 */
static struct kmem_cache *ftrace_entry_cache __ro_after_init;

void __init ftrace_hash_init(void)
{
	ftrace_entry_cache = KMEM_CACHE(ftrace_func_entry, 0);
}

static struct ftrace_func_entry *ftrace_entry_alloc(void)
{
	if (ftrace_entry_cache)
		return kmem_cache_alloc(ftrace_entry_cache, GFP_KERNEL);
	return kmalloc(sizeof(struct ftrace_func_entry), GFP_KERNEL);
}

static void ftrace_hash_link(struct ftrace_hash *hash,
			     struct ftrace_func_entry *entry, unsigned long ip)
{
	*entry = (struct ftrace_func_entry){ .ip = ip };
	/* Readers of a published mapper may walk the bucket meanwhile. */
	hlist_add_head_rcu(&entry->hlist, ftrace_hash_head(hash, ip));
	hash->count++;
}

/* Add @ip without looking for a duplicate first. */
static struct ftrace_func_entry *
ftrace_hash_insert(struct ftrace_hash *hash, unsigned long ip)
{
	struct ftrace_func_entry *entry = ftrace_entry_alloc();

	if (entry)
		ftrace_hash_link(hash, entry, ip);
	return entry;
}

/**
 * ftrace_hash_add_unique - put addresses known to be absent into a hash
 * @hash: a private hash (not the shared empty hash)
 * @ips: the addresses; none of them is in @hash, no two are equal
 * @n: how many
 *
 * The bulk path of a filter that names every call site: no lookups, and
 * the entries are allocated together.
 *
 * Return: 0, or -ENOMEM with none of @ips added.
 */
int ftrace_hash_add_unique(struct ftrace_hash *hash, const unsigned long *ips,
			   unsigned int n)
{
	void *got[FTRACE_HASH_BULK];
	unsigned int i;

	if (WARN_ON_ONCE(hash == FTRACE_EMPTY_HASH || n > FTRACE_HASH_BULK))
		return -EINVAL;
	if (!ftrace_entry_cache) {
		for (i = 0; i < n; i++) {
			got[i] = ftrace_entry_alloc();
			if (!got[i])
				goto undo;
		}
	} else if (!kmem_cache_alloc_bulk(ftrace_entry_cache, GFP_KERNEL, n,
					  got)) {
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		ftrace_hash_link(hash, got[i], ips[i]);
	return 0;
undo:
	while (i--)
		kfree(got[i]);
	return -ENOMEM;
}

/**
 * ftrace_hash_add - put an address into a private hash
 * @hash: the hash (not the shared empty hash)
 * @ip: the address
 *
 * Return: the entry for @ip (the one already there, or a new one), or NULL
 * when memory ran out.
 */
struct ftrace_func_entry *ftrace_hash_add(struct ftrace_hash *hash,
					  unsigned long ip)
{
	struct ftrace_func_entry *entry;

	if (WARN_ON_ONCE(hash == FTRACE_EMPTY_HASH))
		return NULL;
	entry = ftrace_lookup_ip(hash, ip);
	if (entry)
		return entry;
	return ftrace_hash_insert(hash, ip);
}

/**
 * ftrace_hash_remove - take an entry out of a private hash and free it
 * @hash: the hash holding @entry
 * @entry: an entry found in @hash
 *
 * The entry is freed at once: @hash must not be visible to lockless readers.
 */
void ftrace_hash_remove(struct ftrace_hash *hash,
			struct ftrace_func_entry *entry)
{
	hlist_del_rcu(&entry->hlist);
	hash->count--;
	kfree(entry);
}

/**
 * ftrace_hash_clear - free every entry of a private hash
 * @hash: the hash; its table and flags are kept
 */
void ftrace_hash_clear(struct ftrace_hash *hash)
{
	struct ftrace_func_entry *entry;
	struct hlist_node *next;
	unsigned long i;

	if (!ftrace_hash_allocated(hash) || !hash->count)
		return;

	for (i = 0; i < 1UL << hash->size_bits; i++) {
		hlist_for_each_entry_safe(entry, next, &hash->buckets[i], hlist) {
			hlist_del(&entry->hlist);
			kfree(entry);
		}
	}
	hash->count = 0;
}

/**
 * ftrace_hash_free - free a hash that no reader can see any more
 * @hash: the hash; NULL and the shared empty hash are ignored
 */
void ftrace_hash_free(struct ftrace_hash *hash)
{
	if (ftrace_hash_allocated(hash)) {
		ftrace_hash_clear(hash);
		kfree(hash->buckets);
		kfree(hash);
	}
}

static void ftrace_hash_free_cb(struct rcu_head *head)
{
	ftrace_hash_free(container_of(head, struct ftrace_hash, rcu));
}

/**
 * ftrace_hash_free_rcu - free a hash after the readers that may see it
 * @hash: an unpublished hash; NULL and the shared empty hash are ignored
 */
void ftrace_hash_free_rcu(struct ftrace_hash *hash)
{
	if (ftrace_hash_allocated(hash))
		call_rcu(&hash->rcu, ftrace_hash_free_cb);
}

/* Add the live entries of @src to the empty hash @dst. */
static int ftrace_hash_copy_entries(struct ftrace_hash *dst,
				    struct ftrace_hash *src)
{
	struct ftrace_func_entry *entry, *copy;
	bool retired = false;
	unsigned long i;

	if (ftrace_hash_empty(src))
		return 0;
	for_each_hash_entry(src, i, entry) {
		if (!entry->ip) {
			retired = true;
			continue;
		}
		copy = ftrace_hash_insert(dst, entry->ip);
		if (!copy)
			return -ENOMEM;
		copy->direct = entry->direct;
	}
	/* Only retired entries: keep one so the set stays "nothing". */
	if (retired && !dst->count && !ftrace_hash_insert(dst, 0))
		return -ENOMEM;
	return 0;
}

/**
 * ftrace_hash_copy - make a private copy of a hash
 * @size_bits: table size of the copy; 0 sizes it for @src's entry count
 * @src: the hash to copy; NULL or empty gives an empty copy
 *
 * The copy keeps @src's flags (FTRACE_HASH_FL_MOD included) and each
 * entry's direct address.  Retired entries (ip 0) are not copied, except
 * that one is kept when @src holds nothing else.
 *
 * Return: the copy, or NULL on allocation failure.
 */
struct ftrace_hash *ftrace_hash_copy(int size_bits, struct ftrace_hash *src)
{
	struct ftrace_hash *hash;

	if (!size_bits)
		size_bits = ftrace_hash_bits_for(src ? src->count : 0);
	hash = ftrace_hash_alloc(size_bits);
	if (hash && src) {
		hash->flags = src->flags;
		if (ftrace_hash_copy_entries(hash, src)) {
			ftrace_hash_free(hash);
			hash = NULL;
		}
	}
	return hash;
}

/* Move every entry of a private hash into a new table of 1 << @size_bits. */
static int ftrace_hash_rehash(struct ftrace_hash *hash, int size_bits)
{
	struct hlist_head *old = hash->buckets;
	unsigned long old_size = 1UL << hash->size_bits;
	struct ftrace_func_entry *entry;
	struct hlist_node *next;
	unsigned long i;

	if (ftrace_hash_init_buckets(hash, size_bits)) {
		hash->buckets = old;
		return -ENOMEM;
	}
	for (i = 0; i < old_size; i++) {
		hlist_for_each_entry_safe(entry, next, &old[i], hlist) {
			hlist_del(&entry->hlist);
			hlist_add_head(&entry->hlist,
				       ftrace_hash_head(hash, entry->ip));
		}
	}
	kfree(old);
	return 0;
}

/**
 * ftrace_hash_reserve - grow a private hash's table for @count entries
 * @hash: the hash
 * @count: the number of entries it is about to hold
 *
 * Never shrinks the table.
 *
 * Return: 0, or -ENOMEM with @hash unchanged.
 */
int ftrace_hash_reserve(struct ftrace_hash *hash, unsigned long count)
{
	int bits = ftrace_hash_bits_for(count);

	if (hash == FTRACE_EMPTY_HASH || bits <= hash->size_bits)
		return 0;
	return ftrace_hash_rehash(hash, bits);
}

/**
 * ftrace_hash_compact - size a private hash's table for its entry count
 * @hash: the hash, about to be published
 *
 * Best effort: the table is changed only when it is four times too small
 * or too large, and kept as it is when memory is short.
 */
void ftrace_hash_compact(struct ftrace_hash *hash)
{
	int bits;

	if (!ftrace_hash_allocated(hash) || !hash->count)
		return;
	bits = ftrace_hash_bits_for(hash->count);
	if (abs(bits - (int)hash->size_bits) < 2)
		return;
	ftrace_hash_rehash(hash, bits);
}

/**
 * ftrace_hash_equal - do two hashes hold the same set?
 * @a: a hash (NULL and the empty hash hold nothing)
 * @b: another
 *
 * Return: true when both hold the same addresses and the same flags.
 */
bool ftrace_hash_equal(struct ftrace_hash *a, struct ftrace_hash *b)
{
	struct ftrace_func_entry *entry;
	unsigned long i;

	if (ftrace_hash_empty(a) || ftrace_hash_empty(b))
		return ftrace_hash_empty(a) == ftrace_hash_empty(b);
	if (a->count != b->count || a->flags != b->flags)
		return false;
	for_each_hash_entry(a, i, entry) {
		if (!ftrace_hash_find(b, entry->ip))
			return false;
	}
	return true;
}

/* ---- the ops filter test ------------------------------------------------- */

/**
 * ftrace_ops_wants_ip - does an ops' own filter select a call site?
 * @ops: the ops
 * @ip: the call-site address
 *
 * An ops that never had filters set wants everything.
 *
 * Context: under ftrace_lock, or with preemption disabled.
 * Return: true when the filter hash is empty or holds @ip, and the notrace
 * hash does not hold @ip.
 */
notrace bool ftrace_ops_wants_ip(struct ftrace_ops *ops, unsigned long ip)
{
	struct ftrace_ops_hash *fh = READ_ONCE(ops->func_hash);
	struct ftrace_hash *filter, *skip;

	if (!fh)
		return true;

	filter = rcu_dereference_raw_check(fh->filter_hash);
	if (!ftrace_hash_empty(filter) && !ftrace_hash_find(filter, ip))
		return false;

	skip = rcu_dereference_raw_check(fh->notrace_hash);
	return ftrace_hash_empty(skip) || !ftrace_hash_find(skip, ip);
}

/**
 * ftrace_ops_or_subops_want_ip - does an ops, or any subops it manages,
 *				  select a call site?
 * @ops: the ops
 * @ip: the call-site address
 *
 * Context: ftrace_lock held (the subops list is stable under it).
 * Return: for a manager, whether one of its enabled subops wants @ip;
 * otherwise ftrace_ops_wants_ip().
 */
bool ftrace_ops_or_subops_want_ip(struct ftrace_ops *ops, unsigned long ip)
{
	struct ftrace_ops *subops;

	if (!ftrace_ops_has_subops(ops))
		return ftrace_ops_wants_ip(ops, ip);

	list_for_each_entry(subops, &ops->subop_list, list) {
		if ((subops->flags & FTRACE_OPS_FL_ENABLED) &&
		    ftrace_ops_wants_ip(subops, ip))
			return true;
	}
	return false;
}

/**
 * ftrace_ops_test - should @ops' callback run for a call site?
 * @ops: the ops
 * @ip: the call-site address
 * @regs: the caller's pt_regs, or NULL when it has none
 *
 * An ops that asked for registers is never chosen by a caller that has
 * none.  Context: preemption disabled (hashes are freed after RCU).
 * Return: 1 if the callback should run, else 0.
 */
notrace int ftrace_ops_test(struct ftrace_ops *ops, unsigned long ip, void *regs)
{
	if (!regs && (ops->flags & FTRACE_OPS_FL_SAVE_REGS))
		return 0;
	return ftrace_ops_wants_ip(ops, ip);
}

/* ---- glob matching -------------------------------------------------------- */

/*
 * Architectures whose symbol names differ from what users type (for
 * example a leading dot) adjust @str here; the default keeps it.
 */
char * __weak arch_ftrace_match_adjust(char *str, const char *search)
{
	return str;
}

/**
 * ftrace_glob_match - match a function or module name against a glob
 * @g: the glob, as split by filter_parse_regex()
 * @str: the name
 *
 * Return: true when @str matches.  MATCH_INDEX never matches a name.
 */
bool ftrace_glob_match(const struct ftrace_glob *g, const char *str)
{
	size_t slen;

	str = arch_ftrace_match_adjust((char *)str, g->search);

	switch (g->type) {
	case MATCH_FULL:
		return !strcmp(str, g->search);
	case MATCH_FRONT_ONLY:
		return !strncmp(str, g->search, g->len);
	case MATCH_MIDDLE_ONLY:
		return strstr(str, g->search);
	case MATCH_END_ONLY:
		slen = strlen(str);
		return slen >= g->len &&
		       !memcmp(str + slen - g->len, g->search, g->len);
	case MATCH_GLOB:
		return glob_match(g->search, str);
	default:
		return false;
	}
}

/* ---- function mapper ------------------------------------------------------ */

/*
 * The mapper is a hash whose entries carry one pointer-sized datum.  Probe
 * callbacks look addresses up without locks while the probe's owner adds
 * or removes them (the owner serialises its own changes); a removed entry
 * is freed after an RCU grace period.
 */
struct ftrace_func_mapper {
	struct ftrace_hash	hash;	/* entries are struct ftrace_func_map */
};

struct ftrace_func_map {
	struct ftrace_func_entry	entry;
	void				*data;
	struct rcu_head			rcu;
};

static struct ftrace_func_map *ftrace_func_map_of(struct ftrace_func_entry *e)
{
	return container_of(e, struct ftrace_func_map, entry);
}

/**
 * allocate_ftrace_func_mapper - create an empty ip -> data map
 *
 * Return: the mapper, or NULL when memory ran out.
 */
struct ftrace_func_mapper *allocate_ftrace_func_mapper(void)
{
	struct ftrace_func_mapper *mapper;

	mapper = kzalloc(sizeof(*mapper), GFP_KERNEL);
	if (!mapper)
		return NULL;
	if (ftrace_hash_init_buckets(&mapper->hash, FTRACE_HASH_DEFAULT_BITS)) {
		kfree(mapper);
		return NULL;
	}
	return mapper;
}

/**
 * ftrace_func_mapper_find_ip - find the datum mapped to an address
 * @mapper: map to search
 * @ip: call-site address
 *
 * The datum slot itself is returned, so callers may keep a counter in it.
 * Context: any; the slot stays valid until @ip is removed.
 * Return: the address of the datum, or NULL if @ip is not mapped.
 */
void **ftrace_func_mapper_find_ip(struct ftrace_func_mapper *mapper,
				  unsigned long ip)
{
	struct ftrace_func_entry *entry = ftrace_lookup_ip(&mapper->hash, ip);

	return entry ? &ftrace_func_map_of(entry)->data : NULL;
}

/**
 * ftrace_func_mapper_add_ip - map a datum to an address
 * @mapper: map to change
 * @ip: call-site address
 * @data: value to keep for it
 *
 * Return: 0, -EBUSY if @ip is already mapped, or -ENOMEM.
 */
int ftrace_func_mapper_add_ip(struct ftrace_func_mapper *mapper,
			      unsigned long ip, void *data)
{
	struct ftrace_func_map *map;

	if (ftrace_lookup_ip(&mapper->hash, ip))
		return -EBUSY;
	map = kmalloc(sizeof(*map), GFP_KERNEL);
	if (map) {
		*map = (struct ftrace_func_map){ .entry.ip = ip, .data = data };
		hlist_add_head_rcu(&map->entry.hlist,
				   ftrace_hash_head(&mapper->hash, ip));
		mapper->hash.count++;
	}
	return map ? 0 : -ENOMEM;
}

/**
 * ftrace_func_mapper_remove_ip - unmap an address
 * @mapper: map to change
 * @ip: call-site address to forget
 *
 * Return: the datum that was mapped to @ip, or NULL if there was none
 * (a datum stored in the slot itself may be NULL too).
 */
void *ftrace_func_mapper_remove_ip(struct ftrace_func_mapper *mapper,
				   unsigned long ip)
{
	struct ftrace_func_entry *entry = ftrace_lookup_ip(&mapper->hash, ip);
	struct ftrace_func_map *map;
	void *data = NULL;

	if (entry) {
		map = ftrace_func_map_of(entry);
		data = map->data;
		hlist_del_rcu(&entry->hlist);
		mapper->hash.count--;
		kfree_rcu(map, rcu);
	}
	return data;
}

/**
 * free_ftrace_func_mapper - free a mapper and, optionally, its data
 * @mapper: the mapper (NULL is ignored); no reader may use it any more
 * @free_func: if not NULL, called with each mapped datum
 */
void free_ftrace_func_mapper(struct ftrace_func_mapper *mapper,
			     ftrace_mapper_func free_func)
{
	struct hlist_head *head, *last;
	struct ftrace_func_entry *entry;
	struct ftrace_func_map *map;

	if (!mapper)
		return;

	head = mapper->hash.buckets;
	last = head + (1UL << mapper->hash.size_bits);
	for (; head < last; head++) {
		while (!hlist_empty(head)) {
			entry = hlist_entry(head->first, typeof(*entry), hlist);
			map = ftrace_func_map_of(entry);
			hlist_del(&map->entry.hlist);
			if (free_func)
				free_func(map->data);
			kfree(map);
		}
	}
	kfree(mapper->hash.buckets);
	kfree(mapper);
}
