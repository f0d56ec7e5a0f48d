// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe: the site map, and the release of sites from the hooks.
 *
 * The map holds every linked node, keyed by its call site, for the hot
 * path's lockless lookup (fprobe.c); it is resized with the number of
 * nodes, and a replaced map is freed after a grace period ("Lookup" at the
 * top of fprobe.c).  When nodes leave it, the sites that no node of their
 * kind wants any more are collected, sorted and taken out of that kind's
 * hook filter.
 *
 * Called by the registration side (fprobe_register.c) with fprobe_mutex
 * held; calls down into fprobe.c's hooks only (fprobe_hook_remove()).
 */
#include <linux/bug.h>
#include <linux/hash.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "fprobe_internal.h"

/* Map size bounds, in bits of the bucket index. */
#define FPROBE_MAP_MIN_BITS	4
#define FPROBE_MAP_MAX_BITS	20

/*
 * The map before the first one is allocated: the smallest size, empty,
 * never freed.  So fprobe_map is never NULL and a hit tests no pointer.
 */
static union {
	struct fprobe_map	map;
	u8			room[struct_size_t(struct fprobe_map, heads,
						   1U << FPROBE_MAP_MIN_BITS)];
} fprobe_map_first = { .map.bits = FPROBE_MAP_MIN_BITS };

struct fprobe_map __rcu *fprobe_map = RCU_INITIALIZER(&fprobe_map_first.map);
/* The map replaced last, and the grace-period cookie after which it is unused. */
static struct fprobe_map *fprobe_retired;
static unsigned long fprobe_retired_gp;
static unsigned int fprobe_nr_linked;
unsigned int fprobe_kind_linked[FPROBE_NR_KINDS];

/* ---- the map (fprobe_mutex held) -------------------------------------------- */

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

bool fprobe_site_has_kind(struct fprobe_map *map, unsigned long ip,
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
void fprobe_map_reap(void)
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
int fprobe_map_fit(unsigned int extra)
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
void fprobe_map_trim(void)
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
void fprobe_node_link(struct fprobe_map *map, struct fprobe_node *node)
{
	fprobe_site_words_update(map, node->ip, node);
	fprobe_map_append(map, node);
	node->linked = true;
	fprobe_nr_linked++;
	fprobe_kind_linked[node->kind]++;
}

void fprobe_node_unlink(struct fprobe_map *map, struct fprobe_node *node)
{
	fprobe_map_delete(map, node);
	fprobe_site_words_update(map, node->ip, NULL);
	node->linked = false;
	node->released = true;
	fprobe_nr_linked--;
	fprobe_kind_linked[node->kind]--;
}

/* ---- releasing sites -------------------------------------------------------- */

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
unsigned int fprobe_sort_unique(unsigned long *ips, unsigned int nr)
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
void fprobe_lists_alloc(struct fprobe_site_list *lists,
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
void fprobe_collect_released(struct fprobe_binding *b,
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

void fprobe_release_sites(struct fprobe_site_list *lists)
{
	u8 kind;

	for (kind = 0; kind < FPROBE_NR_KINDS; kind++) {
		struct fprobe_site_list *l = &lists[kind];

		l->nr = fprobe_sort_unique(l->ips, l->nr);
		fprobe_hook_remove(kind, l->ips, l->nr);
		kvfree(l->ips);
	}
}
