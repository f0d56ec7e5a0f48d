// SPDX-License-Identifier: GPL-2.0
/*
 * The names of the functions that hold call sites: the symbol a site
 * belongs to, the addresses of traceable functions looked up by name (BPF
 * kprobe_multi links and fprobe attach by name), and the names of traced
 * functions of a module's init text, kept for kallsyms after that text is
 * freed so that addresses already in trace buffers still resolve.
 *
 * Layer: sites; uses the records (lookups by address) and kallsyms,
 * nothing above.
 *
 * Locking: a lookup by name holds ftrace_lock while it walks vmlinux's
 * records, which keeps them in place.  The kept names are added and
 * dropped under ftrace_lock and read under RCU; a dropped one is freed
 * after a grace period.
 */
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "trace.h"
#include "../kallsyms_internal.h"
#include "ftrace_records.h"
#include "ftrace_sites.h"

/* ---- the function of a call site ---------------------------------------- */

/**
 * ftrace_site_name - the function a call site belongs to
 * @ip: the call site
 * @name: buffer of KSYM_NAME_LEN bytes for the symbol name
 * @modname: if not NULL, receives the module name (NULL for vmlinux)
 *
 * Return: 0, or -ENOENT if kallsyms does not know the address or the site
 * is not at the start of the symbol (a leftover of an overridden weak
 * function).
 */
int ftrace_site_name(unsigned long ip, char *name, const char **modname)
{
	unsigned long size, offset;
	char *mod = NULL;

	if (!kallsyms_lookup(ip, &size, &offset, &mod, name))
		return -ENOENT;
#ifdef FTRACE_MCOUNT_MAX_OFFSET
	if (offset > FTRACE_MCOUNT_MAX_OFFSET)
		return -ENOENT;
#endif
	if (modname)
		*modname = mod;
	return 0;
}

/* ---- traceable functions by name ---------------------------------------- */

/* vmlinux's group, and its number of records.  ftrace_lock held. */
static const struct ftrace_site_group *site_vmlinux_recs(unsigned int *nr)
{
	struct ftrace_site_group *g;

	for_each_site_group(g) {
		if (!g->mod) {
			*nr = g->nr;
			return g;
		}
	}
	*nr = 0;
	return NULL;
}

/*
 * ftrace_lookup_symbols() walks every kallsyms symbol once.  A binary
 * search of the sorted names per symbol cost about 600 instructions (there
 * are some 180,000 symbols in a distribution's vmlinux); a hash of the
 * names costs a tenth of that.  And since vmlinux's symbols come in
 * address order, a symbol's extent is known when the next one arrives, so
 * the call site check of a match is one range lookup rather than
 * ftrace_location()'s symbol size lookup.  Most of what remains is
 * kallsyms decompressing names (about 385 instructions a symbol); a
 * cursor over vmlinux's records, which are sorted by address too, tells
 * which symbols have a call site near their start, and only their names
 * are decompressed.  A function whose call site lies further in than
 * SITE_SYMBOL_SPAN is not found by name (6.12 would find it; no compiler
 * option in use puts one there).
 */
struct site_symbol_search {
	const char	**names;	/* in the caller's order */
	size_t		cnt;
	unsigned long	*addrs;
	size_t		found;
	u32		*slots;		/* name index + 1; 0: empty */
	unsigned int	bits;
	/* a vmlinux match waiting for the next symbol's address */
	long		pending;	/* name index, or -1 */
	unsigned long	pending_addr;
	/* vmlinux's records, and the first one not below the last symbol */
	const struct ftrace_site_group *recs;
	unsigned int	nr;
	unsigned int	cursor;
};

/*
 * How far into a symbol its call site may lie: the call comes first, after
 * at most a landing pad (ENDBR, BTI) and arm64's "mov x9, x30".
 */
#define SITE_SYMBOL_SPAN	16

static u32 site_symbol_hash(const char *name)
{
	u32 h = 2166136261u;

	while (*name)
		h = (h ^ (unsigned char)*name++) * 16777619u;
	return h;
}

/* The index of @name in s->names, or -1. */
static long site_symbol_find(struct site_symbol_search *s, const char *name)
{
	u32 mask = (1U << s->bits) - 1;
	u32 i = hash_32(site_symbol_hash(name), s->bits);
	u32 v;

	while ((v = s->slots[i])) {
		if (!strcmp(s->names[v - 1], name))
			return v - 1;
		i = (i + 1) & mask;
	}
	return -1;
}

static int site_symbol_index(struct site_symbol_search *s)
{
	u32 mask, i, k;

	s->bits = max(ilog2(roundup_pow_of_two(s->cnt)) + 1, 4);
	s->slots = kvcalloc(1U << s->bits, sizeof(*s->slots), GFP_KERNEL);
	if (!s->slots)
		return -ENOMEM;
	mask = (1U << s->bits) - 1;
	for (k = 0; k < s->cnt; k++) {
		i = hash_32(site_symbol_hash(s->names[k]), s->bits);
		/* a repeated name keeps its first index, as the search did */
		while (s->slots[i] && strcmp(s->names[s->slots[i] - 1], s->names[k]))
			i = (i + 1) & mask;
		if (!s->slots[i])
			s->slots[i] = k + 1;
	}
	return 0;
}

static void site_symbol_found(struct site_symbol_search *s, long i,
			      unsigned long addr)
{
	s->addrs[i] = addr;
	s->found++;
}

/* Settle the pending match: its symbol ends before @end (0: unknown). */
static void site_symbol_settle(struct site_symbol_search *s, unsigned long end)
{
	long i = s->pending;
	unsigned long addr = s->pending_addr;

	s->pending = -1;
	if (s->addrs[i])
		return;
	if (end > addr ? ftrace_location_range(addr, end - 1) :
			 ftrace_location(addr))
		site_symbol_found(s, i, addr);
}

/*
 * vmlinux's address filter, shown every symbol in address order: settles
 * the pending match, whose symbol ends here, and lets through only the
 * symbols with a call site near their start, whose names are worth
 * decompressing (about a third of them).
 */
static bool site_symbol_want(void *data, unsigned long addr)
{
	struct site_symbol_search *s = data;

	if (s->pending >= 0 && addr != s->pending_addr)
		site_symbol_settle(s, addr);
	if (s->found == s->cnt)
		return false;
	while (s->cursor < s->nr && ftrace_site_ip(s->recs, s->cursor) < addr)
		s->cursor++;
	return s->cursor < s->nr &&
	       ftrace_site_ip(s->recs, s->cursor) - addr < SITE_SYMBOL_SPAN;
}

/* vmlinux's kallsyms visitor; returns 1 to stop once every name is found. */
static int site_symbol_visit(void *data, const char *name, unsigned long addr)
{
	struct site_symbol_search *s = data;
	long i;

	if (s->found == s->cnt)
		return 1;
	i = site_symbol_find(s, name);
	if (i < 0 || s->addrs[i])
		return 0;
	if (s->pending >= 0)	/* an alias of the pending symbol's address */
		site_symbol_settle(s, 0);
	s->pending = i;
	s->pending_addr = addr;
	return 0;
}

/* Modules' visitor: their symbols come in no useful order. */
static int site_symbol_visit_mod(void *data, const char *name,
				 unsigned long addr)
{
	struct site_symbol_search *s = data;
	long i = site_symbol_find(s, name);

	if (i >= 0 && !s->addrs[i] && ftrace_location(addr))
		site_symbol_found(s, i, addr);
	return s->found == s->cnt;
}

/**
 * ftrace_lookup_symbols - find the addresses of traceable functions by name
 * @sorted_syms: function names (6.12 wants them sorted by strcmp(); any
 *		 order works here)
 * @cnt: number of names (and of entries in @addrs)
 * @addrs: receives, for each name, the address of the symbol; 0 if the name
 *	   is unknown or has no call site
 *
 * vmlinux is searched first, then the modules; the first traceable symbol
 * with each name wins.
 *
 * Context: process context; walks all kallsyms.
 * Return: 0 if every name was found, -ESRCH otherwise, -ENOMEM if the
 * names could not be indexed.
 */
int ftrace_lookup_symbols(const char **sorted_syms, size_t cnt,
			  unsigned long *addrs)
{
	struct site_symbol_search s = {
		.names = sorted_syms,
		.cnt = cnt,
		.addrs = addrs,
		.pending = -1,
	};
	int ret;

	if (!cnt)
		return -ESRCH;
	memset(addrs, 0, cnt * sizeof(*addrs));
	ret = site_symbol_index(&s);
	if (ret)
		return ret;
	/* ftrace_lock keeps vmlinux's records in place for the cursor */
	mutex_lock(&ftrace_lock);
	s.recs = site_vmlinux_recs(&s.nr);
	if (s.recs)
		kallsyms_on_each_symbol_filtered(site_symbol_want,
						 site_symbol_visit, &s);
	if (s.pending >= 0)
		site_symbol_settle(&s, 0);
	mutex_unlock(&ftrace_lock);
	if (s.found < cnt)
		module_kallsyms_on_each_symbol(NULL, site_symbol_visit_mod, &s);
	kvfree(s.slots);
	return s.found == cnt ? 0 : -ESRCH;
}

/* ---- kept names of freed module init text ----------------------------- */

#ifdef CONFIG_MODULES
/*
 * A traced function of a module's init text, kept after that text is freed
 * so that addresses already in trace buffers still resolve.  Added and
 * removed under ftrace_lock, read under RCU, freed after a grace period.
 */
struct ftrace_kept_sym {
	struct list_head	list;
	struct rcu_head		rcu;
	struct module		*mod;
	unsigned long		addr;
	unsigned long		size;
	char			name[];
};

static LIST_HEAD(ftrace_kept_syms);

/**
 * ftrace_mod_syms_keep - remember the function of a call site being freed
 * @mod: the module whose init text is freed
 * @ip: a call site in that text
 *
 * Called by ftrace_free_mem() for each site of a module's init text while
 * some ops is registered, before the text and its symbols go away.
 * Allocation failure only loses the name.
 *
 * Context: ftrace_lock held; may sleep.
 */
void ftrace_mod_syms_keep(struct module *mod, unsigned long ip)
{
	char name[KSYM_NAME_LEN];
	struct ftrace_kept_sym *ks;
	unsigned long size, off;
	char *modname;
	size_t len;

	lockdep_assert_held(&ftrace_lock);

	if (!kallsyms_lookup(ip, &size, &off, &modname, name))
		return;
	len = strlen(name) + 1;
	ks = kmalloc(struct_size(ks, name, len), GFP_KERNEL);
	if (!ks)
		return;
	ks->mod = mod;
	ks->addr = ip - off;
	ks->size = size;
	memcpy(ks->name, name, len);
	list_add_tail_rcu(&ks->list, &ftrace_kept_syms);
}

/**
 * ftrace_mod_syms_drop - forget the kept functions of a module
 * @mod: a module going away
 *
 * Context: ftrace_lock held.
 */
void ftrace_mod_syms_drop(struct module *mod)
{
	struct ftrace_kept_sym *ks, *tmp;

	lockdep_assert_held(&ftrace_lock);

	list_for_each_entry_safe(ks, tmp, &ftrace_kept_syms, list) {
		if (ks->mod != mod)
			continue;
		list_del_rcu(&ks->list);
		kfree_rcu(ks, rcu);
	}
}

/**
 * ftrace_mod_address_lookup - resolve an address of freed module init text
 * @addr: the address
 * @size: if not NULL, gets the function's size
 * @off: if not NULL, gets @addr's offset in the function
 * @modname: if not NULL, gets the module name
 * @modbuildid: if not NULL, gets the module build id
 * @sym: gets the function name (KSYM_NAME_LEN bytes)
 *
 * Return: the length of the name, or 0 if @addr is not a kept function.
 *
 * Context: any; lockless.
 */
int ftrace_mod_address_lookup(unsigned long addr, unsigned long *size,
			      unsigned long *off, char **modname,
			      const unsigned char **modbuildid, char *sym)
{
	struct ftrace_kept_sym *ks;

	guard(rcu)();
	list_for_each_entry_rcu(ks, &ftrace_kept_syms, list) {
		if (addr < ks->addr || addr - ks->addr >= ks->size)
			continue;
		if (size)
			*size = ks->size;
		if (off)
			*off = addr - ks->addr;
		if (modname)
			*modname = ks->mod->name;
		if (modbuildid)
			*modbuildid = module_buildid(ks->mod);
		return strscpy(sym, ks->name, KSYM_NAME_LEN);
	}
	return 0;
}

/**
 * ftrace_sites_kept_sym_nth - one kept function, for /proc/kallsyms
 * @symnum: the index wanted; on a miss, decreased by the number kept
 * @value: gets the function's address
 * @type: gets its type letter
 * @name: gets its name (KSYM_NAME_LEN bytes)
 * @module_name: gets its module name (MODULE_NAME_LEN bytes)
 * @exported: gets whether it counts as exported
 *
 * Lets ftrace_mod_get_kallsym() list the kept functions first and go on
 * with its own symbols from the index that is left in *@symnum.
 *
 * Context: rcu_read_lock() held.
 * Return: true if kept function *@symnum exists (filled in).
 */
bool ftrace_sites_kept_sym_nth(unsigned int *symnum, unsigned long *value,
			       char *type, char *name, char *module_name,
			       int *exported)
{
	struct ftrace_kept_sym *ks;

	list_for_each_entry_rcu(ks, &ftrace_kept_syms, list) {
		if (*symnum) {
			(*symnum)--;
			continue;
		}
		*value = ks->addr;
		*type = 'T';
		strscpy(name, ks->name, KSYM_NAME_LEN);
		strscpy(module_name, ks->mod->name, MODULE_NAME_LEN);
		*exported = 1;
		return true;
	}
	return false;
}
#endif /* CONFIG_MODULES */
