// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe: registration.  The API (register_fprobe(), register_fprobe_ips(),
 * register_fprobe_syms(), unregister_fprobe()), the bindings that tie a
 * probe to its nodes, the table of live registrations that the return
 * side finds a record's probe in, and the removal of sites whose text goes
 * away (module unload, module init text freed).
 *
 * Every change takes fprobe_mutex here and calls down into the map
 * (fprobe_map.c) and the hooks (fprobe.c); nothing there calls back up.
 */
#include <linux/bug.h>
#include <linux/cleanup.h>
#include <linux/export.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/list.h>
#include <linux/math.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/sprintf.h>
#include <linux/string.h>

#include "trace.h"
#include "ftrace_user.h"
#include "ftrace_filter.h"
#include "fprobe_internal.h"

/* The first size of the table of live registrations. */
#define FPROBE_REGS_MIN		64

/*
 * What a free slot of the table holds: id 0, which no record names (a
 * record's generation is never 0), so the return path's lookup needs no
 * NULL test.  Its probe is never read.
 */
static struct fprobe_binding fprobe_binding_none;
/* The table before the first graph-kind registration: no slot at all. */
static struct fprobe_regs fprobe_regs_empty;

/* Serialises every change ("Locking and lifetime" in fprobe.c). */
DEFINE_MUTEX(fprobe_mutex);
struct fprobe_regs __rcu *fprobe_regs = RCU_INITIALIZER(&fprobe_regs_empty);
static LIST_HEAD(fprobe_bindings);
static unsigned long fprobe_last_id;

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
