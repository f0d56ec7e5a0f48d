// SPDX-License-Identifier: GPL-2.0
/*
 * Choosing which call sites an ops traces: matching function names against
 * the call-site records, the filter/notrace API of include/linux/ftrace.h,
 * installing a new hash into an ops, the set_graph_* hashes, the
 * ftrace_filter= family of boot parameters, and retiring the addresses of
 * text that went away from all of these hashes (ftrace_hashes_drop_range()).
 *
 * Locking, outermost first:
 *   ops->func_hash->regex_lock  one filter change of an ops at a time
 *   ftrace_lock                 records, hash pointers, site updates
 * A filter change holds both from the moment it copies the current hash
 * until the new one is installed, so text that goes away meanwhile
 * (ftrace_hashes_drop_range(), under ftrace_lock) cannot leave a stale
 * address in the copy.
 *
 * Matching.  Records are walked group by group (vmlinux, then modules).
 * The module part of a pattern is decided once per group, never per
 * record.  A pattern that selects every function adds records without
 * looking up a single name; an exact name is found through kallsyms'
 * sorted name index for vmlinux and skips every module that lacks the
 * symbol; any other glob resolves vmlinux names in one ordered pass over
 * kallsyms instead of one symbol lookup per record.
 *
 * Hash lifetime: see ftrace_hash.c.  Ops hashes replaced here are freed
 * through call_rcu(); the set_graph_* hashes are read by the graph tracer
 * in places RCU may not watch, so their old versions are freed only after
 * synchronize_rcu_tasks_rude().
 */
#define pr_fmt(fmt) "ftrace: " fmt

#include <linux/ftrace.h>
#include <linux/init.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <asm/setup.h>

#include "trace.h"
#include "ftrace_records.h"
#include "ftrace_ops.h"
#include "ftrace_filter.h"

/* Records walked between two voluntary reschedules. */
#define FTRACE_MATCH_BATCH	1024

/* A hash pointer that is only changed under ftrace_lock, which we hold. */
static struct ftrace_hash *ftrace_hash_held(struct ftrace_hash __rcu **slot)
{
	return rcu_dereference_protected(*slot, lockdep_is_held(&ftrace_lock));
}

/* ---- matching records ------------------------------------------------------ */

/* What the function part of a pattern asks for. */
enum ftrace_match_kind {
	FTRACE_MATCH_NONE,	/* nothing can match */
	FTRACE_MATCH_ALL,	/* every function (of the chosen groups) */
	FTRACE_MATCH_EXACT,	/* one name, no wildcard */
	FTRACE_MATCH_NAMES,	/* any other glob: names must be looked at */
	FTRACE_MATCH_INDEX,	/* "N": the N-th record, counting from 1 */
};

struct ftrace_match {
	struct ftrace_hash	*hash;
	struct ftrace_glob	func;
	struct ftrace_glob	mod;
	enum ftrace_match_kind	kind;
	bool			has_mod;
	bool			exclude_mod;	/* "!module": all but it */
	bool			remove;		/* "!glob": take out of @hash */
	bool			fresh;		/* @hash was empty at the start */
	int			found;		/* records matched */
	int			err;
};

static bool ftrace_glob_is_all_stars(const struct ftrace_glob *g)
{
	return g->type == MATCH_GLOB &&
	       strspn(g->search, "*") == g->len;
}

static enum ftrace_match_kind ftrace_match_classify(struct ftrace_match *m)
{
	if (m->func.type == MATCH_INDEX)
		return FTRACE_MATCH_INDEX;
	/* An empty function part means "all of it" only with a module. */
	if (!m->func.len)
		return (m->has_mod || m->func.type != MATCH_FULL) ?
			FTRACE_MATCH_ALL : FTRACE_MATCH_NONE;
	if (ftrace_glob_is_all_stars(&m->func))
		return FTRACE_MATCH_ALL;
	if (m->func.type == MATCH_FULL)
		return FTRACE_MATCH_EXACT;
	return FTRACE_MATCH_NAMES;
}

/* Split @func (and @mod) in place; filter_parse_regex() may write to them. */
static void ftrace_match_parse(struct ftrace_match *m, char *func, int len,
			       char *mod)
{
	int not = 0;

	m->func.type = MATCH_FULL;
	m->func.search = "";
	if (func) {
		m->func.type = filter_parse_regex(func, len, &m->func.search,
						  &not);
		m->remove = not;
	}
	m->func.len = strlen(m->func.search);

	if (mod) {
		m->mod.type = filter_parse_regex(mod, strlen(mod),
						 &m->mod.search, &not);
		m->mod.len = strlen(m->mod.search);
		m->exclude_mod = not;
		m->has_mod = true;
	}
	m->kind = ftrace_match_classify(m);
}

static const char *ftrace_group_modname(struct ftrace_site_group *g)
{
#ifdef CONFIG_MODULES
	return g->mod ? g->mod->name : NULL;
#else
	return NULL;
#endif
}

/* Does the module part of the pattern select group @g? */
static bool ftrace_match_group(struct ftrace_match *m,
			       struct ftrace_site_group *g)
{
	const char *modname = ftrace_group_modname(g);
	bool hit;

	if (!m->has_mod)
		return true;
	/* ":mod:" selects every module, ":mod:!" only vmlinux. */
	if (!m->mod.len)
		return m->exclude_mod ? !modname : !!modname;
	hit = modname && ftrace_glob_match(&m->mod, modname);
	return hit != m->exclude_mod;
}

/* Apply the pattern's verdict to one matching address. */
static void ftrace_match_take(struct ftrace_match *m, unsigned long ip)
{
	struct ftrace_func_entry *entry;

	m->found++;
	if (m->remove) {
		entry = ftrace_lookup_ip(m->hash, ip);
		if (entry)
			ftrace_hash_remove(m->hash, entry);
		return;
	}
	if (!ftrace_hash_add(m->hash, ip))
		m->err = -ENOMEM;
}

static void ftrace_match_breathe(unsigned int i)
{
	if (!(i % FTRACE_MATCH_BATCH))
		cond_resched();
}

/*
 * Every usable record of @g into a hash that held nothing when the match
 * began: records of all groups have distinct addresses, so none can be
 * there already, and the entries go in without lookups, in batches.
 */
static void ftrace_match_all_fresh(struct ftrace_match *m,
				   struct ftrace_site_group *g)
{
	unsigned long ips[FTRACE_HASH_BULK];
	unsigned int i, n = 0;

	for (i = 0; i < g->nr && !m->err; i++) {
		if (!ftrace_site_disabled(g, i))
			ips[n++] = ftrace_site_ip(g, i);
		if (n == FTRACE_HASH_BULK || (n && i + 1 == g->nr)) {
			m->err = ftrace_hash_add_unique(m->hash, ips, n);
			m->found += n;
			n = 0;
			cond_resched();
		}
	}
}

/* FTRACE_MATCH_ALL: every usable record of @g, no name needed. */
static void ftrace_match_all_of(struct ftrace_match *m,
				struct ftrace_site_group *g)
{
	unsigned int i;

	/* Size the table once, so that each add below is a short lookup. */
	if (!m->remove && ftrace_hash_reserve(m->hash, m->hash->count + g->nr)) {
		m->err = -ENOMEM;
		return;
	}
	if (m->fresh && !m->remove) {
		ftrace_match_all_fresh(m, g);
		return;
	}
	for (i = 0; i < g->nr && !m->err; i++) {
		ftrace_match_breathe(i + 1);
		if (!ftrace_site_disabled(g, i))
			ftrace_match_take(m, ftrace_site_ip(g, i));
	}
}

/* Look each record's name up (modules, or when kallsyms cannot be walked). */
static void ftrace_match_names_of(struct ftrace_match *m,
				  struct ftrace_site_group *g)
{
	char name[KSYM_NAME_LEN];
	const char *modname;
	unsigned long ip;
	unsigned int i;

	for (i = 0; i < g->nr && !m->err; i++) {
		ftrace_match_breathe(i + 1);
		if (ftrace_site_disabled(g, i))
			continue;
		ip = ftrace_site_ip(g, i);
		if (ftrace_site_name(ip, name, &modname))
			continue;
		if (ftrace_glob_match(&m->func, name))
			ftrace_match_take(m, ip);
	}
}

/*
 * One pass over vmlinux's symbols, in address order, alongside the sorted
 * records: each record belongs to the last symbol at or below it (the first
 * one listed, for aliases), which is what a kallsyms lookup of the record
 * would return, but each name is expanded and matched once.
 */
struct ftrace_sym_walk {
	struct ftrace_match		*m;
	struct ftrace_site_group	*g;
	unsigned int			next;	/* first record not yet owned */
	unsigned long			sym;	/* address of the current owner */
	bool				have_sym;
	bool				sym_match;
};

static bool ftrace_sym_walk_offset_ok(struct ftrace_sym_walk *w,
				      unsigned long ip)
{
#ifdef FTRACE_MCOUNT_MAX_OFFSET
	return ip - w->sym <= FTRACE_MCOUNT_MAX_OFFSET;
#else
	return true;
#endif
}

/* Hand the records below @limit to the current symbol. */
static void ftrace_sym_walk_settle(struct ftrace_sym_walk *w,
				   unsigned long limit)
{
	unsigned long ip;
	unsigned int i;

	while (w->next < w->g->nr && !w->m->err) {
		i = w->next;
		ip = ftrace_site_ip(w->g, i);
		if (ip >= limit)
			break;
		w->next++;
		if (!w->have_sym || !w->sym_match || ftrace_site_disabled(w->g, i))
			continue;
		if (ftrace_sym_walk_offset_ok(w, ip))
			ftrace_match_take(w->m, ip);
	}
}

static int ftrace_sym_walk_one(void *data, const char *name,
			       unsigned long addr)
{
	struct ftrace_sym_walk *w = data;

	if (w->have_sym && addr == w->sym)
		return 0;
	ftrace_sym_walk_settle(w, addr);
	if (w->m->err || w->next >= w->g->nr)
		return 1;
	w->have_sym = true;
	w->sym = addr;
	w->sym_match = ftrace_glob_match(&w->m->func, name);
	return 0;
}

static void ftrace_match_vmlinux_names(struct ftrace_match *m,
				       struct ftrace_site_group *g)
{
	struct ftrace_sym_walk w = { .m = m, .g = g };

	if (!IS_ENABLED(CONFIG_KALLSYMS)) {
		ftrace_match_names_of(m, g);
		return;
	}
	kallsyms_on_each_symbol(ftrace_sym_walk_one, &w);
	ftrace_sym_walk_settle(&w, ULONG_MAX);
}

/* FTRACE_MATCH_EXACT in vmlinux: every symbol of that name, via its index. */
static int ftrace_match_exact_one(void *data, unsigned long addr)
{
	struct ftrace_match *m = data;
	char name[KSYM_NAME_LEN];
	struct ftrace_site_group *g;
	const char *modname;
	unsigned long ip;
	unsigned int i;

	ip = ftrace_location(addr);
	if (!ip)
		return 0;
	g = ftrace_site_find(ip, &i);
	if (!g || ftrace_site_disabled(g, i))
		return 0;
	/* The record must resolve back to this very name (no aliases). */
	if (ftrace_site_name(ip, name, &modname) || modname ||
	    !ftrace_glob_match(&m->func, name))
		return 0;
	ftrace_match_take(m, ip);
	return m->err;
}

static void ftrace_match_vmlinux_exact(struct ftrace_match *m,
				       struct ftrace_site_group *g)
{
	if (kallsyms_on_each_match_symbol(ftrace_match_exact_one,
					  m->func.search, m) == -EOPNOTSUPP)
		ftrace_match_names_of(m, g);
}

/* FTRACE_MATCH_EXACT in a module: skip it unless it has such a symbol. */
static void ftrace_match_module_exact(struct ftrace_match *m,
				      struct ftrace_site_group *g)
{
	if (IS_ENABLED(CONFIG_KALLSYMS) &&
	    !find_kallsyms_symbol_value(g->mod, m->func.search))
		return;
	ftrace_match_names_of(m, g);
}

static void ftrace_match_group_records(struct ftrace_match *m,
				       struct ftrace_site_group *g)
{
	switch (m->kind) {
	case FTRACE_MATCH_ALL:
		ftrace_match_all_of(m, g);
		break;
	case FTRACE_MATCH_EXACT:
		if (g->mod)
			ftrace_match_module_exact(m, g);
		else
			ftrace_match_vmlinux_exact(m, g);
		break;
	case FTRACE_MATCH_NAMES:
		if (g->mod)
			ftrace_match_names_of(m, g);
		else
			ftrace_match_vmlinux_names(m, g);
		break;
	default:
		break;
	}
}

/*
 * "N" picks the N-th line of available_filter_functions: records are
 * counted over every group in list order, disabled ones included.
 */
static void ftrace_match_by_index(struct ftrace_match *m)
{
	struct ftrace_site_group *g;
	unsigned long index;

	if (kstrtoul(m->func.search, 0, &index) || !index)
		return;
	index--;
	for_each_site_group(g) {
		if (index < g->nr) {
			ftrace_match_take(m, ftrace_site_ip(g, index));
			return;
		}
		index -= g->nr;
	}
}

/* Caller holds ftrace_lock; @hash is private to the caller. */
static int ftrace_match_locked(struct ftrace_hash *hash, char *func, int len,
			       char *mod)
{
	struct ftrace_match m = { .hash = hash, .fresh = !hash->count };
	struct ftrace_site_group *g;

	lockdep_assert_held(&ftrace_lock);
	if (ftrace_core_dead())
		return -ENODEV;

	ftrace_match_parse(&m, func, len, mod);
	if (m.kind == FTRACE_MATCH_NONE)
		return 0;
	if (m.kind == FTRACE_MATCH_INDEX) {
		ftrace_match_by_index(&m);
		return m.err ? m.err : m.found;
	}

	for_each_site_group(g) {
		if (m.err)
			break;
		if (ftrace_match_group(&m, g))
			ftrace_match_group_records(&m, g);
	}
	return m.err ? m.err : m.found;
}

/*
 * Split "glob:mod:module" (a module of "" means every module, "!module" all
 * but that one).  "glob:mod" restricts nothing; any other command is an
 * error here (commands other than mod belong to set_ftrace_filter).
 */
static int ftrace_match_pattern_locked(struct ftrace_hash *hash, char *buf,
				       int len)
{
	char *cmd, *mod;

	cmd = strnchr(buf, len, ':');
	if (!cmd)
		return ftrace_match_locked(hash, buf, len, NULL);

	*cmd++ = '\0';
	mod = strchr(cmd, ':');
	if (mod)
		*mod++ = '\0';
	if (strcmp(cmd, "mod"))
		return -EINVAL;
	return ftrace_match_locked(hash, buf, strlen(buf), mod);
}

/**
 * ftrace_match_records - add or remove the records matching a pattern
 * @hash: a private hash (not visible to any reader)
 * @buf: "glob", "!glob", "glob:mod:module" or "N"; written to while parsed
 * @len: length of @buf
 *
 * Context: takes ftrace_lock.
 * Return: the number of records matched (0 for none) or a negative errno.
 */
int ftrace_match_records(struct ftrace_hash *hash, char *buf, int len)
{
	guard(mutex)(&ftrace_lock);
	return ftrace_match_pattern_locked(hash, buf, len);
}

/**
 * ftrace_match_records_mod - like ftrace_match_records() with the module
 *			      part already split off
 * @hash: a private hash
 * @func: the function glob, "!" first to remove; NULL or "" means every
 *	  function of the selected modules
 * @len: length of @func
 * @mod: the module glob, "!" first for all but it; NULL for no restriction
 *
 * Context: takes ftrace_lock.
 * Return: the number of records matched (0 for none) or a negative errno.
 */
int ftrace_match_records_mod(struct ftrace_hash *hash, char *func, int len,
			     char *mod)
{
	guard(mutex)(&ftrace_lock);
	return ftrace_match_locked(hash, func, len, mod);
}

/* ---- installing a hash ------------------------------------------------------ */

/* The form a hash is published in: sized for its count, or the empty hash. */
static struct ftrace_hash *ftrace_hash_finish(struct ftrace_hash *hash)
{
	if (hash != FTRACE_EMPTY_HASH && ftrace_hash_empty(hash)) {
		ftrace_hash_free(hash);
		return FTRACE_EMPTY_HASH;
	}
	ftrace_hash_compact(hash);
	return hash;
}

static int ftrace_hash_install_locked(struct ftrace_ops *ops,
				      struct ftrace_hash __rcu **dst,
				      struct ftrace_hash *src)
{
	struct ftrace_hash *old;
	int ret;

	lockdep_assert_held(&ftrace_lock);

	old = ftrace_hash_held(dst);
	if (ftrace_hash_equal(old, src)) {
		/* Same set: nothing for the call sites to learn. */
		if (src != old)
			ftrace_hash_free(src);
		return 0;
	}

	/*
	 * An empty filter stands for every function: an ip-modifier or a
	 * direct caller in use must keep naming its functions (6.12 refuses
	 * the same with -EINVAL).
	 */
	if (ftrace_hash_empty(src) && dst == &ops->func_hash->filter_hash &&
	    (ops->flags & FTRACE_OPS_FL_ENABLED) &&
	    (ops->flags & (FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_DIRECT))) {
		ftrace_hash_free(src);
		return -EINVAL;
	}
	/* Nor may an ip-modifier leave functions out by a notrace set. */
	if (!ftrace_hash_empty(src) && dst == &ops->func_hash->notrace_hash &&
	    (ops->flags & FTRACE_OPS_FL_IPMODIFY)) {
		ftrace_hash_free(src);
		return -EINVAL;
	}

	src = ftrace_hash_finish(src);
	rcu_assign_pointer(*dst, src);
	ret = ftrace_ops_hash_changed(ops);
	if (ret) {
		/* The update changed nothing; readers may have seen @src. */
		rcu_assign_pointer(*dst, old);
		ftrace_hash_free_rcu(src);
		return ret;
	}
	ftrace_hash_free_rcu(old);
	return 0;
}

/**
 * ftrace_hash_install - publish a new filter or notrace hash of an ops
 * @ops: the ops owning *@dst
 * @dst: &ops->func_hash->filter_hash or &ops->func_hash->notrace_hash
 * @src: the new private hash; consumed whatever the outcome
 *
 * Swaps the pointer and re-derives the call sites in one update.  On error
 * the old hash is back in place and the sites are as they were.
 *
 * Context: caller holds @ops' regex_lock; takes ftrace_lock.
 * Return: 0, or the error of the update (-EBUSY, -ENOMEM, ...).
 */
int ftrace_hash_install(struct ftrace_ops *ops, struct ftrace_hash __rcu **dst,
			struct ftrace_hash *src)
{
	guard(mutex)(&ftrace_lock);
	return ftrace_hash_install_locked(ops, dst, src);
}

/* ---- filter and notrace API ------------------------------------------------ */

/* One requested change of an ops' filter or notrace set. */
struct ftrace_filter_req {
	bool		is_notrace;	/* the notrace hash, not the filter */
	bool		reset;		/* start from an empty set */
	bool		remove;		/* @ips: take out instead of add */
	char		*pattern;	/* NUL-terminated, or NULL */
	unsigned long	*ips;		/* or NULL */
	unsigned int	cnt;
};

static int ftrace_filter_add_ip(struct ftrace_hash *hash, unsigned long ip,
				bool remove)
{
	struct ftrace_func_entry *entry;
	unsigned long site = ftrace_location(ip);

	if (!site)
		return -EINVAL;
	if (!remove)
		return ftrace_hash_add(hash, site) ? 0 : -ENOMEM;
	entry = ftrace_lookup_ip(hash, site);
	if (!entry)
		return -ENOENT;
	ftrace_hash_remove(hash, entry);
	return 0;
}

/*
 * Add thousands of addresses in ascending order (what BPF and fprobe hand
 * over when they attach to many functions): their call sites come from
 * one walk along the site records, repeats are neighbours, and the
 * entries absent from @hash are allocated FTRACE_HASH_BULK at a time.
 * Returns -EAGAIN, having changed nothing, when @ips is not ascending.
 */
static int ftrace_filter_add_sorted(struct ftrace_hash *hash,
				    const unsigned long *ips, unsigned int cnt)
{
	unsigned long batch[FTRACE_HASH_BULK], *sites;
	unsigned int i, n = 0;
	int ret = 0;

	for (i = 1; i < cnt; i++)
		if (ips[i] < ips[i - 1])
			return -EAGAIN;
	sites = kvmalloc_array(cnt, sizeof(*sites), GFP_KERNEL);
	if (!sites)
		return -ENOMEM;
	memcpy(sites, ips, cnt * sizeof(*sites));
	if (!ftrace_locations_sorted(sites, cnt)) {
		ret = -EINVAL;
		goto out;
	}
	ret = ftrace_hash_reserve(hash, hash->count + cnt);
	for (i = 0; !ret && i < cnt; i++) {
		if ((i && sites[i] == sites[i - 1]) ||
		    (hash->count && ftrace_lookup_ip(hash, sites[i])))
			continue;
		batch[n++] = sites[i];
		if (n == FTRACE_HASH_BULK) {
			ret = ftrace_hash_add_unique(hash, batch, n);
			n = 0;
		}
	}
	if (!ret && n)
		ret = ftrace_hash_add_unique(hash, batch, n);
out:
	kvfree(sites);
	return ret;
}

/* Apply @req to @hash.  Caller holds ftrace_lock. */
static int ftrace_filter_build(struct ftrace_hash *hash,
			       const struct ftrace_filter_req *req)
{
	unsigned int i;
	int ret;

	if (req->pattern) {
		ret = ftrace_match_pattern_locked(hash, req->pattern,
						  strlen(req->pattern));
		if (ret <= 0)
			return ret ? ret : -EINVAL;
	}
	/* thousands of addresses (a BPF attach): short buckets from the start */
	if (req->ips && !req->remove && req->cnt > 64) {
		ret = ftrace_filter_add_sorted(hash, req->ips, req->cnt);
		if (ret != -EAGAIN)
			return ret;
		ret = ftrace_hash_reserve(hash, hash->count + req->cnt);
		if (ret)
			return ret;
	}
	for (i = 0; req->ips && i < req->cnt; i++) {
		ret = ftrace_filter_add_ip(hash, req->ips[i], req->remove);
		if (ret)
			return ret;
	}
	return 0;
}

static int ftrace_filter_apply(struct ftrace_ops *ops,
			       const struct ftrace_filter_req *req)
{
	struct ftrace_hash __rcu **dst;
	struct ftrace_hash *hash;
	int ret;

	ftrace_ops_init(ops);
	if (ftrace_core_dead())
		return -ENODEV;

	mutex_lock(&ops->func_hash->regex_lock);
	mutex_lock(&ftrace_lock);

	dst = req->is_notrace ? &ops->func_hash->notrace_hash :
			     &ops->func_hash->filter_hash;
	if (req->reset)
		hash = ftrace_hash_alloc(FTRACE_HASH_DEFAULT_BITS);
	else
		hash = ftrace_hash_copy(FTRACE_HASH_DEFAULT_BITS,
					ftrace_hash_held(dst));
	if (!hash) {
		ret = -ENOMEM;
		goto out;
	}

	ret = ftrace_filter_build(hash, req);
	if (ret)
		ftrace_hash_free(hash);
	else
		ret = ftrace_hash_install_locked(ops, dst, hash);
out:
	mutex_unlock(&ftrace_lock);
	mutex_unlock(&ops->func_hash->regex_lock);
	return ret;
}

/* The text API: copy the caller's buffer, which may be read-only or unterminated. */
static int ftrace_filter_apply_text(struct ftrace_ops *ops, unsigned char *buf,
				    int len, bool reset, bool is_notrace)
{
	struct ftrace_filter_req req = { .is_notrace = is_notrace, .reset = reset };
	int ret;

	if (buf) {
		if (len < 0)
			return -EINVAL;
		req.pattern = kmemdup_nul(buf, len, GFP_KERNEL);
		if (!req.pattern)
			return -ENOMEM;
	}
	ret = ftrace_filter_apply(ops, &req);
	kfree(req.pattern);
	return ret;
}

/**
 * ftrace_set_filter_ip - add or remove one function of an ops' filter
 * @ops: the ops
 * @ip: a call site, or the address of a traceable function
 * @remove: non-zero to take @ip out of the filter
 * @reset: non-zero to start from an empty filter
 *
 * The filter may change while @ops is registered.  Entries allocated here
 * must be released with ftrace_free_filter() before @ops is freed.
 *
 * Context: process context; sleeps.
 * Return: 0; -EINVAL if @ip is not a traceable function; -ENOENT when
 * removing an address that is not in the filter; -ENOMEM; -ENODEV when
 * function tracing is dead; or the error of the call-site update (the old
 * filter then stays in force).
 */
int ftrace_set_filter_ip(struct ftrace_ops *ops, unsigned long ip,
			 int remove, int reset)
{
	struct ftrace_filter_req req = {
		.reset = reset, .remove = remove, .ips = &ip, .cnt = 1,
	};

	return ftrace_filter_apply(ops, &req);
}
EXPORT_SYMBOL_GPL(ftrace_set_filter_ip);

/**
 * ftrace_set_filter_ips - add or remove several functions of an ops' filter
 * @ops: the ops
 * @ips: call sites, or addresses of traceable functions
 * @cnt: number of entries in @ips
 * @remove: non-zero to take them out of the filter
 * @reset: non-zero to start from an empty filter
 *
 * All or nothing: if one address fails, the filter is left unchanged.
 * Entries allocated here must be released with ftrace_free_filter()
 * before @ops is freed.
 *
 * Context: process context; sleeps.
 * Return: as ftrace_set_filter_ip().
 */
int ftrace_set_filter_ips(struct ftrace_ops *ops, unsigned long *ips,
			  unsigned int cnt, int remove, int reset)
{
	struct ftrace_filter_req req = {
		.reset = reset, .remove = remove, .ips = ips, .cnt = cnt,
	};

	return ftrace_filter_apply(ops, &req);
}
EXPORT_SYMBOL_GPL(ftrace_set_filter_ips);

/**
 * ftrace_set_filter - choose the functions an ops traces, by name
 * @ops: the ops
 * @buf: a glob ("foo", "foo*", "*foo", "*foo*", "*"), "!glob" to take
 *	 functions out, optionally followed by ":mod:module"; NULL for none
 * @len: length of @buf
 * @reset: non-zero to start from an empty filter
 *
 * An empty filter traces every function, so @buf NULL with @reset set
 * traces everything.  Entries allocated here must be released with
 * ftrace_free_filter() before @ops is freed.
 *
 * Context: process context; sleeps.
 * Return: 0; -EINVAL if @buf matches no function (the filter is then
 * unchanged); -ENOMEM; -ENODEV when function tracing is dead; or the
 * error of the call-site update.
 */
int ftrace_set_filter(struct ftrace_ops *ops, unsigned char *buf,
		      int len, int reset)
{
	return ftrace_filter_apply_text(ops, buf, len, reset, false);
}
EXPORT_SYMBOL_GPL(ftrace_set_filter);

/**
 * ftrace_set_notrace - choose functions an ops must never trace, by name
 * @ops: the ops
 * @buf: a pattern as for ftrace_set_filter(); NULL for none
 * @len: length of @buf
 * @reset: non-zero to start from an empty notrace set
 *
 * The notrace set wins over the filter.  Entries allocated here must be
 * released with ftrace_free_filter() before @ops is freed.
 *
 * Context: process context; sleeps.
 * Return: as ftrace_set_filter().
 */
int ftrace_set_notrace(struct ftrace_ops *ops, unsigned char *buf,
		       int len, int reset)
{
	return ftrace_filter_apply_text(ops, buf, len, reset, true);
}
EXPORT_SYMBOL_GPL(ftrace_set_notrace);

/**
 * ftrace_set_global_filter - set the filter of the global tracers
 * @buf: a pattern as for ftrace_set_filter(); NULL for none
 * @len: length of @buf
 * @reset: non-zero to start from an empty filter
 *
 * Applies to global_ops and to every ops sharing its filter
 * (ftrace_ops_set_global_filter()).  Errors are ignored.
 */
void ftrace_set_global_filter(unsigned char *buf, int len, int reset)
{
	ftrace_filter_apply_text(&global_ops, buf, len, reset, false);
}
EXPORT_SYMBOL_GPL(ftrace_set_global_filter);

/**
 * ftrace_set_global_notrace - set the notrace set of the global tracers
 * @buf: a pattern as for ftrace_set_filter(); NULL for none
 * @len: length of @buf
 * @reset: non-zero to start from an empty notrace set
 *
 * Errors are ignored.
 */
void ftrace_set_global_notrace(unsigned char *buf, int len, int reset)
{
	ftrace_filter_apply_text(&global_ops, buf, len, reset, true);
}
EXPORT_SYMBOL_GPL(ftrace_set_global_notrace);

static void ftrace_ops_drop_hash(struct ftrace_hash __rcu **slot)
{
	struct ftrace_hash *old;

	old = unrcu_pointer(xchg(slot, RCU_INITIALIZER(FTRACE_EMPTY_HASH)));
	ftrace_hash_free_rcu(old);
}

/**
 * ftrace_free_filter - release the filter and notrace sets of an ops
 * @ops: an ops that is not registered
 *
 * Afterwards @ops has no filters (it would trace every function).  Takes
 * no ftrace lock, so it may be called with ftrace_lock held.
 */
void ftrace_free_filter(struct ftrace_ops *ops)
{
	ftrace_ops_init(ops);
	WARN_ON_ONCE(ops->flags & FTRACE_OPS_FL_ENABLED);
	ftrace_ops_drop_hash(&ops->func_hash->filter_hash);
	ftrace_ops_drop_hash(&ops->func_hash->notrace_hash);
}
EXPORT_SYMBOL_GPL(ftrace_free_filter);

/* ---- set_graph_function / set_graph_notrace -------------------------------- */

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
struct ftrace_hash __rcu *ftrace_graph_hash = RCU_INITIALIZER(FTRACE_EMPTY_HASH);
struct ftrace_hash __rcu *ftrace_graph_notrace_hash =
	RCU_INITIALIZER(FTRACE_EMPTY_HASH);

/**
 * ftrace_graph_hash_install - publish a new set_graph_function or
 *			       set_graph_notrace hash
 * @is_notrace: true for set_graph_notrace
 * @hash: the new private hash, consumed
 *
 * Returns once no CPU can still be reading the old hash, which is freed.
 *
 * Context: process context; sleeps; takes ftrace_lock.
 * Return: 0.
 */
int ftrace_graph_hash_install(bool is_notrace, struct ftrace_hash *hash)
{
	struct ftrace_hash __rcu **slot;
	struct ftrace_hash *old;

	slot = is_notrace ? &ftrace_graph_notrace_hash : &ftrace_graph_hash;
	hash = ftrace_hash_finish(hash);

	mutex_lock(&ftrace_lock);
	old = ftrace_hash_held(slot);
	rcu_assign_pointer(*slot, hash);
	mutex_unlock(&ftrace_lock);

	/* Readers only disable preemption, possibly where RCU is not watching. */
	if (old != FTRACE_EMPTY_HASH)
		synchronize_rcu_tasks_rude();
	ftrace_hash_free(old);
	return 0;
}
#endif /* CONFIG_FUNCTION_GRAPH_TRACER */

/* ---- dropping addresses of text that went away --------------------------- */

/* A list pointer that only changes under ftrace_lock, which we hold. */
static struct ftrace_ops *ftrace_ops_held(struct ftrace_ops __rcu **slot)
{
	return rcu_dereference_protected(*slot, lockdep_is_held(&ftrace_lock));
}

/* The text being dropped: [start, end). */
struct ftrace_dead_text {
	unsigned long	start;
	unsigned long	end;
};

static void ftrace_hash_retire(struct ftrace_hash *hash,
			       const struct ftrace_dead_text *dead)
{
	struct ftrace_func_entry *entry;
	unsigned long i;

	if (ftrace_hash_empty(hash))
		return;
	for_each_hash_entry(hash, i, entry) {
		if (entry->ip >= dead->start && entry->ip < dead->end)
			WRITE_ONCE(entry->ip, 0);
	}
}

static void ftrace_ops_retire(struct ftrace_ops *ops,
			      const struct ftrace_dead_text *dead)
{
	struct ftrace_ops_hash *fh = ops ? ops->func_hash : NULL;

	if (!fh)
		return;
	ftrace_hash_retire(ftrace_hash_held(&fh->filter_hash), dead);
	ftrace_hash_retire(ftrace_hash_held(&fh->notrace_hash), dead);
}

/* Registered ops, and the subops of the managers among them. */
static void ftrace_registered_retire(const struct ftrace_dead_text *dead)
{
	struct ftrace_ops *op, *subops;

	for (op = ftrace_ops_held(&ftrace_ops_list);
	     op && op != &ftrace_list_end; op = ftrace_ops_held(&op->next)) {
		ftrace_ops_retire(op, dead);
		if (!ftrace_ops_has_subops(op))
			continue;
		list_for_each_entry(subops, &op->subop_list, list)
			ftrace_ops_retire(subops, dead);
	}
}

/**
 * ftrace_hashes_drop_range - forget call sites of text that went away
 * @start: first address of the dead text
 * @end: first address after it
 *
 * Retires (see the top of ftrace_hash.c) every entry in [@start, @end) of the
 * filter and notrace hashes of each registered ops and of the subops it
 * manages, of global_ops, of every trace array's ops and of the set_graph_*
 * hashes, so that text loaded later at the same addresses is not selected
 * by a stale entry.  Call it after the records of the range are gone and
 * before the text can be reused.
 *
 * Context: process context; takes trace_types_lock, then ftrace_lock (the
 * caller holds neither).
 */
void ftrace_hashes_drop_range(unsigned long start, unsigned long end)
{
	const struct ftrace_dead_text dead = { .start = start, .end = end };
	struct trace_array *tr;

	lockdep_assert_not_held(&ftrace_lock);

	/* Trace arrays and their ops stay put under trace_types_lock. */
	mutex_lock(&trace_types_lock);
	mutex_lock(&ftrace_lock);

	ftrace_registered_retire(&dead);
	ftrace_ops_retire(&global_ops, &dead);
	list_for_each_entry(tr, &ftrace_trace_arrays, list)
		ftrace_ops_retire(tr->ops, &dead);
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	ftrace_hash_retire(ftrace_hash_held(&ftrace_graph_hash), &dead);
	ftrace_hash_retire(ftrace_hash_held(&ftrace_graph_notrace_hash), &dead);
#endif

	mutex_unlock(&ftrace_lock);
	mutex_unlock(&trace_types_lock);
}

/* ---- boot parameters ------------------------------------------------------- */

/* The comma-separated lists given on the command line, kept until applied. */
enum ftrace_boot_list {
	FTRACE_BOOT_FILTER,		/* ftrace_filter= */
	FTRACE_BOOT_NOTRACE,		/* ftrace_notrace= */
	FTRACE_BOOT_GRAPH,		/* ftrace_graph_filter= */
	FTRACE_BOOT_GRAPH_NOTRACE,	/* ftrace_graph_notrace= */
	FTRACE_BOOT_NR_LISTS,
};

static char ftrace_boot_lists[FTRACE_BOOT_NR_LISTS][COMMAND_LINE_SIZE] __initdata;

/* Set when ftrace_filter= or ftrace_notrace= is given (the selftests look). */
bool ftrace_filter_param __initdata;

static int __init ftrace_boot_keep(enum ftrace_boot_list which, const char *str)
{
	if (which == FTRACE_BOOT_FILTER || which == FTRACE_BOOT_NOTRACE)
		ftrace_filter_param = true;
	strscpy(ftrace_boot_lists[which], str, sizeof(ftrace_boot_lists[which]));
	return 1;
}

static int __init ftrace_boot_filter_setup(char *str)
{
	return ftrace_boot_keep(FTRACE_BOOT_FILTER, str);
}
__setup("ftrace_filter=", ftrace_boot_filter_setup);

static int __init ftrace_boot_notrace_setup(char *str)
{
	return ftrace_boot_keep(FTRACE_BOOT_NOTRACE, str);
}
__setup("ftrace_notrace=", ftrace_boot_notrace_setup);

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
static int __init ftrace_boot_graph_setup(char *str)
{
	return ftrace_boot_keep(FTRACE_BOOT_GRAPH, str);
}
__setup("ftrace_graph_filter=", ftrace_boot_graph_setup);

static int __init ftrace_boot_graph_notrace_setup(char *str)
{
	return ftrace_boot_keep(FTRACE_BOOT_GRAPH_NOTRACE, str);
}
__setup("ftrace_graph_notrace=", ftrace_boot_graph_notrace_setup);

/* ftrace_graph_max_depth=N: how deep the function_graph tracer records. */
static int __init ftrace_boot_graph_depth_setup(char *str)
{
	unsigned int depth;

	if (!str || kstrtouint(str, 0, &depth))
		return 0;
	fgraph_max_depth = depth;
	return 1;
}
__setup("ftrace_graph_max_depth=", ftrace_boot_graph_depth_setup);
#endif

/* Apply each comma-separated pattern of @list to @hash; misses are reported. */
static void __init ftrace_boot_match_list(struct ftrace_hash *hash, char *list,
					  const char *what)
{
	char *pattern;

	while ((pattern = strsep(&list, ",")) != NULL) {
		if (!*pattern)
			continue;
		if (ftrace_match_pattern_locked(hash, pattern, strlen(pattern)) <= 0)
			pr_info("%s: '%s' selects no function\n",
				what, pattern);
	}
}

/**
 * ftrace_set_early_filter - apply a boot-time list of patterns to an ops
 * @ops: the ops
 * @buf: comma-separated patterns (as for ftrace_set_filter()); consumed
 * @enable: non-zero for the filter, zero for the notrace set
 *
 * Patterns that match nothing are skipped; the rest are applied in order
 * on top of the current set, and installed in one update.
 */
void __init ftrace_set_early_filter(struct ftrace_ops *ops, char *buf, int enable)
{
	struct ftrace_hash __rcu **dst;
	struct ftrace_hash *hash;

	ftrace_ops_init(ops);
	if (ftrace_core_dead())
		return;

	mutex_lock(&ops->func_hash->regex_lock);
	mutex_lock(&ftrace_lock);
	dst = enable ? &ops->func_hash->filter_hash :
		       &ops->func_hash->notrace_hash;
	hash = ftrace_hash_copy(FTRACE_HASH_DEFAULT_BITS, ftrace_hash_held(dst));
	if (hash) {
		ftrace_boot_match_list(hash, buf, enable ? "filter" : "notrace");
		if (ftrace_hash_install_locked(ops, dst, hash))
			pr_warn("boot-time %s could not be applied\n",
				enable ? "filter" : "notrace");
	}
	mutex_unlock(&ftrace_lock);
	mutex_unlock(&ops->func_hash->regex_lock);
}

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
static void __init ftrace_boot_graph_apply(char *list, bool is_notrace)
{
	struct ftrace_hash *hash;

	hash = ftrace_hash_alloc(FTRACE_HASH_DEFAULT_BITS);
	if (!hash) {
		pr_warn("no memory for the boot-time graph %s\n",
			is_notrace ? "notrace set" : "filter");
		return;
	}
	mutex_lock(&ftrace_lock);
	ftrace_boot_match_list(hash, list,
			       is_notrace ? "graph notrace" : "graph filter");
	mutex_unlock(&ftrace_lock);
	ftrace_graph_hash_install(is_notrace, hash);
}
#endif

/**
 * ftrace_apply_boot_filters - apply ftrace_filter= and friends
 *
 * Called once, by ftrace_init(), when the call-site records exist.
 */
void __init ftrace_apply_boot_filters(void)
{
	char (*list)[COMMAND_LINE_SIZE] = ftrace_boot_lists;

	if (list[FTRACE_BOOT_FILTER][0])
		ftrace_set_early_filter(&global_ops, list[FTRACE_BOOT_FILTER], 1);
	if (list[FTRACE_BOOT_NOTRACE][0])
		ftrace_set_early_filter(&global_ops, list[FTRACE_BOOT_NOTRACE], 0);
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	if (list[FTRACE_BOOT_GRAPH][0])
		ftrace_boot_graph_apply(list[FTRACE_BOOT_GRAPH], false);
	if (list[FTRACE_BOOT_GRAPH_NOTRACE][0])
		ftrace_boot_graph_apply(list[FTRACE_BOOT_GRAPH_NOTRACE], true);
#endif
}
