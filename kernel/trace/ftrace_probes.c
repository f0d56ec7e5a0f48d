// SPDX-License-Identifier: GPL-2.0
/*
 * Function probes: "func:command[:arg]" triggers of set_ftrace_filter.
 *
 * A probe user (traceon/traceoff/stacktrace/dump/cpudump, snapshot,
 * enable_event/disable_event) supplies a struct ftrace_probe_ops.  For each
 * (trace array, probe_ops) pair we keep one struct probe_hook, linked on
 * tr->func_probes.  The hook owns a private ftrace_ops whose filter hash is
 * exactly the set of functions the probe is attached to; the callback of
 * that ops forwards each hit to probe_ops->func() together with the hook's
 * data pointer.
 *
 * Data pointer: hook->data starts out NULL.  probe_ops->init() is called once
 * for every function that joins the hook, with a pointer to hook->data (the
 * users allocate a per-ip mapper there on first use).  probe_ops->free() is
 * called once for every function that leaves, and once more with ip == 0
 * when the hook itself goes away, so the user can free what hook->data
 * points to.
 *
 * Locking and lifetime:
 *  - probe_mutex serialises every registration change of every hook, so a
 *    hook is never changed by two callers at once.  Order: probe_mutex ->
 *    hook regex_lock -> ftrace_lock.
 *  - ftrace_lock additionally protects what the set_ftrace_filter listing
 *    reads: tr->func_probes membership, hook->ips/nr_ips and the data the
 *    ->print() callbacks look at (init/free run under it).
 *  - The hot path reads hook->probe_ops, hook->tr and hook->data.  A hook is
 *    only freed when it has no functions, i.e. after ftrace_shutdown() of its
 *    ops returned (no callback runs after that).  Per-function data of a
 *    still registered hook is released only after the new filter hash is in
 *    place and synchronize_rcu_tasks_rude() has passed, since probe
 *    callbacks run with preemption disabled but possibly where RCU is not
 *    watching.
 *  - A hook exists only while it has at least one function (apart from the
 *    short window inside register/unregister, under probe_mutex).
 */
#include <linux/kallsyms.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/ftrace.h>
#include <linux/mm.h>

#include "trace.h"
#include "ftrace_internal.h"

struct probe_hook {
	struct list_head	list;		/* on tr->func_probes */
	struct trace_array	*tr;
	struct ftrace_probe_ops	*probe_ops;
	void			*data;		/* owned by probe_ops */
	bool			registered;	/* ops started */
	unsigned long		*ips;		/* sorted, what the hook covers */
	unsigned long		nr_ips;
	struct ftrace_ops	ops;
};

static DEFINE_MUTEX(probe_mutex);

static void notrace probe_hook_call(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op,
				    struct ftrace_regs *fregs)
{
	struct probe_hook *hook = container_of(op, struct probe_hook, ops);
	struct ftrace_probe_ops *probe_ops = hook->probe_ops;

	/*
	 * The unregister path waits for every CPU to leave a
	 * preemption-disabled section before releasing per-ip data.
	 */
	preempt_disable_notrace();
	probe_ops->func(ip, parent_ip, hook->tr, probe_ops,
			READ_ONCE(hook->data));
	preempt_enable_notrace();
}

/* The hook's filter hash; stable under probe_mutex or ftrace_lock. */
static struct ftrace_hash *hook_filter(struct probe_hook *hook)
{
	return rcu_dereference_protected(hook->ops.func_hash->filter_hash,
					 lockdep_is_held(&probe_mutex) ||
					 lockdep_is_held(&ftrace_lock));
}

static bool hash_has(struct ftrace_hash *hash, unsigned long ip)
{
	return !ftrace_hash_empty(hash) && ftrace_lookup_ip(hash, ip);
}

static int cmp_ip(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	if (x == y)
		return 0;
	return x < y ? -1 : 1;
}

/* The entries of @hash as a sorted array (NULL when @hash is empty). */
static unsigned long *hash_to_sorted_ips(struct ftrace_hash *hash,
					 unsigned long *nr)
{
	struct ftrace_func_entry *e;
	unsigned long *ips, n = 0;
	int i;

	*nr = 0;
	if (ftrace_hash_empty(hash) || !hash->count)
		return NULL;
	ips = kvmalloc_array(hash->count, sizeof(*ips), GFP_KERNEL);
	if (!ips)
		return ERR_PTR(-ENOMEM);
	for_each_hash_entry(hash, i, e)
		if (e->ip)	/* 0: a function whose module went away */
			ips[n++] = e->ip;
	sort(ips, n, sizeof(*ips), cmp_ip, NULL);
	*nr = n;
	return ips;
}

static struct probe_hook *hook_find(struct trace_array *tr,
				    struct ftrace_probe_ops *probe_ops)
{
	struct probe_hook *hook;

	list_for_each_entry(hook, &tr->func_probes, list)
		if (hook->probe_ops == probe_ops)
			return hook;
	return NULL;
}

static struct probe_hook *hook_create(struct trace_array *tr,
				      struct ftrace_probe_ops *probe_ops)
{
	struct probe_hook *hook;

	hook = kzalloc(sizeof(*hook), GFP_KERNEL);
	if (!hook)
		return NULL;
	hook->tr = tr;
	hook->probe_ops = probe_ops;
	hook->ops.func = probe_hook_call;
	hook->ops.func_hash = &hook->ops.local_hash;
	hook->ops.local_hash.filter_hash = FTRACE_EMPTY_HASH;
	hook->ops.local_hash.notrace_hash = FTRACE_EMPTY_HASH;
	mutex_init(&hook->ops.local_hash.regex_lock);
	INIT_LIST_HEAD(&hook->ops.list);
	INIT_LIST_HEAD(&hook->ops.subop_list);
	hook->ops.flags = FTRACE_OPS_FL_INITIALIZED;

	mutex_lock(&ftrace_lock);
	list_add_tail(&hook->list, &tr->func_probes);
	mutex_unlock(&ftrace_lock);
	return hook;
}

/* Drop a hook that covers no function (its ops is not registered). */
static void hook_destroy(struct probe_hook *hook)
{
	struct ftrace_probe_ops *probe_ops = hook->probe_ops;

	if (WARN_ON_ONCE(hook->registered || hook->nr_ips))
		return;

	mutex_lock(&ftrace_lock);
	list_del(&hook->list);
	/* ip 0: release whatever hook->data refers to */
	if (probe_ops->free)
		probe_ops->free(probe_ops, hook->tr, 0, hook->data);
	mutex_unlock(&ftrace_lock);

	ftrace_hash_free(hook_filter(hook));
	mutex_destroy(&hook->ops.local_hash.regex_lock);
	kvfree(hook->ips);
	kfree(hook);
}

/* Call ->free() for each ip of @ips not in @keep.  Caller holds ftrace_lock. */
static void hook_release_ips(struct probe_hook *hook, unsigned long *ips,
			     unsigned long nr, struct ftrace_hash *keep)
{
	struct ftrace_probe_ops *probe_ops = hook->probe_ops;
	unsigned long i;

	if (!probe_ops->free)
		return;
	for (i = 0; i < nr; i++)
		if (!hash_has(keep, ips[i]))
			probe_ops->free(probe_ops, hook->tr, ips[i], hook->data);
}

/* Stop the hook entirely: it no longer covers any function. */
static int hook_stop(struct probe_hook *hook)
{
	struct ftrace_hash *old;
	int ret;

	mutex_lock(&ftrace_lock);
	ret = ftrace_shutdown(&hook->ops, 0);
	if (ret) {
		mutex_unlock(&ftrace_lock);
		return ret;
	}
	hook->registered = false;
	old = hook_filter(hook);
	rcu_assign_pointer(hook->ops.func_hash->filter_hash, FTRACE_EMPTY_HASH);
	mutex_unlock(&ftrace_lock);

	ftrace_hash_free(old);
	return 0;
}

/*
 * Functions can leave the filter hash behind our back: when a module goes
 * away its call sites are dropped from every ops hash.  Release their data
 * and forget them, and stop the hook if nothing is left.  Called before
 * every change, under probe_mutex and the hook's regex_lock.
 */
static void hook_prune(struct probe_hook *hook)
{
	struct ftrace_hash *filter;
	unsigned long i, n = 0;

	mutex_lock(&ftrace_lock);
	filter = hook_filter(hook);
	hook_release_ips(hook, hook->ips, hook->nr_ips, filter);
	for (i = 0; i < hook->nr_ips; i++)
		if (hash_has(filter, hook->ips[i]))
			hook->ips[n++] = hook->ips[i];
	hook->nr_ips = n;
	mutex_unlock(&ftrace_lock);

	if (!n && hook->registered)
		WARN_ON_ONCE(hook_stop(hook));
}

/* How many of @ips are not in @old. */
static unsigned long count_new_ips(unsigned long *ips, unsigned long nr,
				   struct ftrace_hash *old)
{
	unsigned long i, n = 0;

	for (i = 0; i < nr; i++)
		if (!hash_has(old, ips[i]))
			n++;
	return n;
}

/*
 * Call ->init() for each ip of @ips that is not in @old.  On failure the
 * ones already initialised are freed again.  Caller holds ftrace_lock.
 */
static int hook_init_ips(struct probe_hook *hook, unsigned long *ips,
			 unsigned long nr, struct ftrace_hash *old,
			 void *init_data)
{
	struct ftrace_probe_ops *probe_ops = hook->probe_ops;
	unsigned long i;
	int ret;

	if (!probe_ops->init)
		return 0;
	for (i = 0; i < nr; i++) {
		if (hash_has(old, ips[i]))
			continue;
		ret = probe_ops->init(probe_ops, hook->tr, ips[i], init_data,
				      &hook->data);
		if (ret < 0) {
			hook_release_ips(hook, ips, i, old);
			return ret;
		}
	}
	return 0;
}

/*
 * Make @new the filter of the hook's ops: start the ops if this is its
 * first set of functions, otherwise swap the hash of the running ops.
 * Consumes @new.
 */
static int hook_apply_filter(struct probe_hook *hook, struct ftrace_hash *new)
{
	struct ftrace_ops_hash *fh = hook->ops.func_hash;
	struct ftrace_hash *old;
	int ret;

	if (hook->registered)
		return ftrace_hash_install(&hook->ops, &fh->filter_hash, new);

	mutex_lock(&ftrace_lock);
	old = hook_filter(hook);
	rcu_assign_pointer(fh->filter_hash, new);
	ret = ftrace_startup(&hook->ops, 0);
	if (ret < 0) {
		rcu_assign_pointer(fh->filter_hash, old);
		old = new;
	} else {
		hook->registered = true;
	}
	mutex_unlock(&ftrace_lock);

	/* a failed start may have let a lockless reader see @new */
	ftrace_hash_free_rcu(old);
	return ret;
}

/* Publish the new sorted ip array of the hook (the listing reads it). */
static void hook_set_ips(struct probe_hook *hook, unsigned long *ips,
			 unsigned long nr)
{
	unsigned long *old;

	mutex_lock(&ftrace_lock);
	old = hook->ips;
	hook->ips = ips;
	hook->nr_ips = nr;
	mutex_unlock(&ftrace_lock);
	kvfree(old);
}

/* Run ->init() for the new functions of @ips, then switch to @new. */
static int hook_grow(struct probe_hook *hook, struct ftrace_hash *new,
		     unsigned long *ips, unsigned long nr, void *init_data)
{
	struct ftrace_hash *old = hook_filter(hook);
	int ret;

	mutex_lock(&ftrace_lock);
	ret = hook_init_ips(hook, ips, nr, old, init_data);
	mutex_unlock(&ftrace_lock);
	if (ret) {
		ftrace_hash_free(new);
		return ret;
	}

	ret = hook_apply_filter(hook, new);	/* consumes new */
	if (ret) {
		mutex_lock(&ftrace_lock);
		hook_release_ips(hook, ips, nr, old);
		mutex_unlock(&ftrace_lock);
	}
	return ret;
}

/* Attach the hook to every function matching @glob; returns how many are new. */
static int hook_add(struct probe_hook *hook, char *glob, void *init_data)
{
	struct ftrace_hash *new;
	unsigned long *ips, nr, added;
	int ret;

	hook_prune(hook);
	new = ftrace_hash_copy(FTRACE_HASH_DEFAULT_BITS, hook_filter(hook));
	if (!new)
		return -ENOMEM;
	ret = ftrace_match_records(new, glob, strlen(glob));
	if (ret <= 0)
		goto free_hash;

	ips = hash_to_sorted_ips(new, &nr);
	ret = PTR_ERR_OR_ZERO(ips);
	if (ret)
		goto free_hash;

	added = count_new_ips(ips, nr, hook_filter(hook));
	ret = -EINVAL;			/* matched, but nothing new */
	if (!added)
		goto free_ips;

	ret = hook_grow(hook, new, ips, nr, init_data);	/* consumes new */
	if (ret) {
		kvfree(ips);
		return ret;
	}
	hook_set_ips(hook, ips, nr);
	return added;

free_ips:
	kvfree(ips);
free_hash:
	ftrace_hash_free(new);
	return ret ? ret : -EINVAL;
}

/**
 * register_ftrace_function_probe - attach a function probe to functions
 * @glob: glob of the functions ("sched*", "*lock*", ...; no leading '!')
 * @tr: trace array the probe belongs to
 * @probe_ops: the probe; one hook is kept per (@tr, @probe_ops)
 * @data: passed as init_data to @probe_ops->init() for every newly
 *	attached function
 *
 * Functions the probe already covers are left alone.  Takes probe_mutex
 * and ftrace_lock; may sleep.
 *
 * Return: the number of functions newly attached, -EINVAL if @glob matches
 * no function or only functions the probe already covers, or another
 * negative errno (nothing is changed then).
 */
int register_ftrace_function_probe(char *glob, struct trace_array *tr,
				   struct ftrace_probe_ops *probe_ops,
				   void *data)
{
	struct probe_hook *hook;
	int ret;

	if (WARN_ON(!tr || !glob) || WARN_ON(glob[0] == '!'))
		return -EINVAL;

	mutex_lock(&probe_mutex);
	hook = hook_find(tr, probe_ops);
	if (!hook)
		hook = hook_create(tr, probe_ops);
	if (!hook) {
		mutex_unlock(&probe_mutex);
		return -ENOMEM;
	}

	mutex_lock(&hook->ops.func_hash->regex_lock);
	ret = hook_add(hook, glob, data);
	mutex_unlock(&hook->ops.func_hash->regex_lock);

	if (!hook->nr_ips)
		hook_destroy(hook);
	mutex_unlock(&probe_mutex);
	return ret;
}

/* Does the function at @ip match @g?  (NULL @g: everything) */
static bool ip_matches(unsigned long ip, const struct ftrace_glob *g,
		       char *name)
{
	if (!g)
		return true;
	if (!kallsyms_lookup(ip, NULL, NULL, NULL, name))
		return false;
	return ftrace_glob_match(g, name);
}

/* Split hook->ips into the ones to keep (returned) and *@nr_drop dropped. */
static unsigned long *hook_split(struct probe_hook *hook,
				 const struct ftrace_glob *g,
				 unsigned long *nr_keep, unsigned long *nr_drop)
{
	unsigned long *keep, i;
	char *name;

	*nr_keep = 0;
	*nr_drop = 0;
	name = kmalloc(KSYM_NAME_LEN, GFP_KERNEL);
	keep = kvmalloc_array(hook->nr_ips, sizeof(*keep), GFP_KERNEL);
	if (!name || !keep) {
		kfree(name);
		kvfree(keep);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < hook->nr_ips; i++) {
		if (ip_matches(hook->ips[i], g, name))
			(*nr_drop)++;
		else
			keep[(*nr_keep)++] = hook->ips[i];
		cond_resched();
	}
	kfree(name);
	return keep;
}

/* Narrow the running hook down to @keep, then wait out its callbacks. */
static int hook_narrow(struct probe_hook *hook, unsigned long *keep,
		       unsigned long nr_keep)
{
	struct ftrace_hash *new;
	unsigned long i;
	int ret;

	new = ftrace_hash_alloc(FTRACE_HASH_DEFAULT_BITS);
	if (!new)
		return -ENOMEM;
	for (i = 0; i < nr_keep; i++) {
		if (!ftrace_hash_add(new, keep[i])) {
			ftrace_hash_free(new);
			return -ENOMEM;
		}
	}
	ret = ftrace_hash_install(&hook->ops, &hook->ops.func_hash->filter_hash,
				  new);
	if (ret)
		return ret;
	/* callbacks still running for a dropped ip run preempt-disabled */
	synchronize_rcu_tasks_rude();
	return 0;
}

/* Detach the hook from the functions matching @g (NULL: all of them). */
static int hook_remove(struct probe_hook *hook, const struct ftrace_glob *g)
{
	struct ftrace_hash *kept;
	unsigned long *keep, nr_keep, nr_drop;
	int ret;

	hook_prune(hook);
	if (!hook->nr_ips)
		return -EINVAL;
	keep = hook_split(hook, g, &nr_keep, &nr_drop);
	if (IS_ERR(keep))
		return PTR_ERR(keep);
	ret = -EINVAL;
	if (!nr_drop)
		goto out_free;

	ret = nr_keep ? hook_narrow(hook, keep, nr_keep) : hook_stop(hook);
	if (ret)
		goto out_free;

	mutex_lock(&ftrace_lock);
	kept = hook_filter(hook);
	hook_release_ips(hook, hook->ips, hook->nr_ips, kept);
	mutex_unlock(&ftrace_lock);
	if (!nr_keep) {
		kvfree(keep);
		keep = NULL;
	}
	hook_set_ips(hook, keep, nr_keep);
	return 0;

out_free:
	kvfree(keep);
	return ret;
}

/**
 * unregister_ftrace_function_probe_func - detach a probe from functions
 * @glob: glob of the functions to detach; NULL, "" or "*" means all
 * @tr: trace array the probe belongs to
 * @probe_ops: the probe given to register_ftrace_function_probe()
 *
 * @probe_ops->free() is called for every detached function after no
 * callback can still be running for it.  When the probe covers no function
 * any more it is stopped and @probe_ops->free() is called with ip 0.
 * Takes probe_mutex and ftrace_lock; may sleep.
 *
 * Return: 0 on success, -ENODEV if @probe_ops is not registered on @tr,
 * -EINVAL if @glob is a '!' pattern or matches none of the probe's
 * functions, or another negative errno (nothing is changed then).
 */
int unregister_ftrace_function_probe_func(char *glob, struct trace_array *tr,
					  struct ftrace_probe_ops *probe_ops)
{
	struct ftrace_glob g, *gp = NULL;
	struct probe_hook *hook;
	int not = 0;
	int ret;

	if (glob && glob[0] && strcmp(glob, "*")) {
		g.type = filter_parse_regex(glob, strlen(glob), &g.search, &not);
		g.len = strlen(g.search);
		gp = &g;
	}
	/* "!!func:cmd" reaches here from user input: refuse it quietly */
	if (not)
		return -EINVAL;
	if (!tr)
		return -ENODEV;

	mutex_lock(&probe_mutex);
	hook = hook_find(tr, probe_ops);
	if (!hook) {
		mutex_unlock(&probe_mutex);
		return -ENODEV;
	}

	mutex_lock(&hook->ops.func_hash->regex_lock);
	ret = hook_remove(hook, gp);
	mutex_unlock(&hook->ops.func_hash->regex_lock);

	if (!hook->nr_ips)
		hook_destroy(hook);
	mutex_unlock(&probe_mutex);
	return ret;
}

/**
 * clear_ftrace_function_probes - detach every function probe of a trace array
 * @tr: the trace array (being removed)
 *
 * Context: may sleep; takes probe_mutex and ftrace_lock.
 */
void clear_ftrace_function_probes(struct trace_array *tr)
{
	struct probe_hook *hook, *tmp;
	int ret;

	mutex_lock(&probe_mutex);
	list_for_each_entry_safe(hook, tmp, &tr->func_probes, list) {
		mutex_lock(&hook->ops.func_hash->regex_lock);
		ret = hook_remove(hook, NULL);
		mutex_unlock(&hook->ops.func_hash->regex_lock);
		/* -EINVAL with nothing left: its functions all went away */
		WARN_ON_ONCE(ret && hook->nr_ips);
		if (!hook->nr_ips)
			hook_destroy(hook);
	}
	mutex_unlock(&probe_mutex);
}

/* ---- listing (set_ftrace_filter) ------------------------------------- */

static void hook_show_ip(struct seq_file *m, struct probe_hook *hook,
			 unsigned long ip)
{
	struct ftrace_probe_ops *probe_ops = hook->probe_ops;

	/* gone with its module; hook_prune() forgets it at the next change */
	if (!hash_has(hook_filter(hook), ip))
		return;
	if (probe_ops->print) {
		probe_ops->print(m, ip, probe_ops, hook->data);
		return;
	}
	seq_printf(m, "%ps:%ps\n", (void *)ip, (void *)probe_ops->func);
}

/**
 * ftrace_probes_count - number of lines of the probe listing of @tr
 * @tr: trace array (may be NULL: no probes)
 *
 * Context: caller holds ftrace_lock.
 * Return: one line per (probe, function) pair.
 */
unsigned long ftrace_probes_count(struct trace_array *tr)
{
	struct probe_hook *hook;
	unsigned long n = 0;

	lockdep_assert_held(&ftrace_lock);
	if (!tr)
		return 0;
	list_for_each_entry(hook, &tr->func_probes, list)
		n += hook->nr_ips;
	return n;
}

/**
 * ftrace_probes_show_line - print one line of the probe listing of @tr
 * @m: seq_file to print to
 * @tr: trace array
 * @n: line number, 0 .. ftrace_probes_count(@tr) - 1
 *
 * Lines are ordered by probe registration, then by function address.
 *
 * Context: caller holds ftrace_lock.
 * Return: 0, or -ENOENT if there is no line @n.
 */
int ftrace_probes_show_line(struct seq_file *m, struct trace_array *tr,
			    unsigned long n)
{
	struct probe_hook *hook;

	lockdep_assert_held(&ftrace_lock);
	if (!tr)
		return -ENOENT;
	list_for_each_entry(hook, &tr->func_probes, list) {
		if (n < hook->nr_ips) {
			hook_show_ip(m, hook, hook->ips[n]);
			return 0;
		}
		n -= hook->nr_ips;
	}
	return -ENOENT;
}
