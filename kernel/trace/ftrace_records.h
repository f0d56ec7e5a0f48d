/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call-site records: layer "sites" of the function-hook core (see
 * ftrace_internal.h for the layers).
 *
 * Offers the layers above the site groups of vmlinux and of each module,
 * the per-site state (struct dyn_ftrace, what the site calls, its ops
 * set), lookups by ip and by record, the records' part of boot, module
 * load and unload and freed text, ftrace_bug()'s detail hook and the kept
 * names of freed module init text.
 *
 * The records know nothing of ops, filters or generations: they hold a
 * pointer to a site's ops set for the patch layer, and ftrace_bug() asks
 * whoever registered with ftrace_sites_set_bug_detail() to describe a
 * record's state.  Nothing here may name a symbol of a higher layer.
 */
#ifndef _LINUX_KERNEL_FTRACE_RECORDS_H
#define _LINUX_KERNEL_FTRACE_RECORDS_H

#include <linux/ftrace.h>
#include <linux/rcupdate.h>
#include <asm/sections.h>

#include "ftrace_base.h"

#ifdef CONFIG_FUNCTION_TRACER

#ifdef CONFIG_DYNAMIC_FTRACE

/*
 * A group holds the call sites of vmlinux or of one module, sorted by ip.
 *
 * Most sites are never traced, so a site costs one u32 here: its distance
 * from @base (the group's lowest site) in the low 31 bits, and
 * FTRACE_SITE_OFF_DISABLED in the top bit.  Everything else a site needs
 * once it is used (its struct dyn_ftrace with the FTRACE_FL_* state, what
 * it calls now, its ops set) lives in a struct ftrace_site_state, allocated
 * FTRACE_SITE_CHUNK sites at a time the first time one of them is wanted
 * by an ops, and freed again after an update that leaves all of them idle
 * (a NOP no ops wants).  What must outlive that, whether a site was ever
 * hooked (FTRACE_FL_TOUCHED) or ever modified by an ip-modifier or direct
 * call (FTRACE_FL_MODIFIED), goes into @history, two bits a site,
 * allocated on the first need.  A site without state is a NOP no ops
 * wants.
 *
 * offs[] never moves while the group is linked; a group whose records must
 * shrink (init text freed) is replaced by a copy.
 */
#define FTRACE_SITE_OFF_DISABLED	BIT(31)
#define FTRACE_SITE_OFF_MASK		(FTRACE_SITE_OFF_DISABLED - 1)
#define FTRACE_SITE_CHUNK_SHIFT		6
#define FTRACE_SITE_CHUNK		BIT(FTRACE_SITE_CHUNK_SHIFT)

struct ftrace_site_state {
	struct dyn_ftrace		rec;	/* stable while the group lives */
	unsigned long			cur_addr;	/* 0: the NOP */
	struct ftrace_site_set		*set;	/* current generation's; or NULL */
};

struct ftrace_site_chunk {
	struct ftrace_site_state	st[FTRACE_SITE_CHUNK];
};

struct ftrace_site_group {
	struct ftrace_site_group __rcu	*next;
	struct module			*mod;	/* NULL: vmlinux */
	unsigned int			nr;
	unsigned int			nr_chunks;	/* allocated */
	unsigned long			base;	/* ip of offset 0 */
	size_t				bytes;	/* this allocation */
	u32				*offs;
	struct ftrace_site_chunk	**chunks;	/* one per CHUNK sites */
	unsigned long			*history;	/* 2 bits a site, or NULL */
	struct rcu_head			rcu;
};

extern struct ftrace_site_group __rcu *ftrace_site_groups;
/* Bytes of every group and state chunk (dyn_ftrace_total_info, boot log). */
extern unsigned long ftrace_site_bytes;

#define for_each_site_group(g)						\
	for (g = rcu_dereference_check(ftrace_site_groups,		\
				       lockdep_is_held(&ftrace_lock));	\
	     g; g = rcu_dereference_check(g->next,			\
					  lockdep_is_held(&ftrace_lock)))

static inline unsigned long ftrace_site_ip(const struct ftrace_site_group *g,
					   unsigned int i)
{
	return g->base + (READ_ONCE(g->offs[i]) & FTRACE_SITE_OFF_MASK);
}

/* A record that must never be used (disabled module, weak leftover). */
static inline bool ftrace_site_disabled(const struct ftrace_site_group *g,
					unsigned int i)
{
	return READ_ONCE(g->offs[i]) & FTRACE_SITE_OFF_DISABLED;
}

/* The state of site @i, or NULL if it has none.  ftrace_lock held. */
static inline struct ftrace_site_state *
ftrace_site_state(const struct ftrace_site_group *g, unsigned int i)
{
	struct ftrace_site_chunk *c;

	/* pairs with ftrace_site_state_get(): a chunk is seen filled in */
	c = smp_load_acquire(&g->chunks[i >> FTRACE_SITE_CHUNK_SHIFT]);

	return c ? &c->st[i & (FTRACE_SITE_CHUNK - 1)] : NULL;
}

/* The state of site @i, allocated if needed; NULL on -ENOMEM.  ftrace_lock. */
struct ftrace_site_state *ftrace_site_state_get(struct ftrace_site_group *g,
						unsigned int i);

static inline unsigned long ftrace_site_cur_addr(const struct ftrace_site_group *g,
						 unsigned int i)
{
	struct ftrace_site_state *st = ftrace_site_state(g, i);

	return st ? st->cur_addr : 0;
}

static inline struct ftrace_site_set *
ftrace_site_set_of(const struct ftrace_site_group *g, unsigned int i)
{
	struct ftrace_site_state *st = ftrace_site_state(g, i);

	return st ? st->set : NULL;
}

/* FTRACE_FL_TOUCHED/MODIFIED kept for site @i while it has no state. */
static inline unsigned long ftrace_site_history(const struct ftrace_site_group *g,
						unsigned int i)
{
	unsigned long flags = 0;

	if (!g->history)
		return 0;
	if (test_bit(2 * i, g->history))
		flags |= FTRACE_FL_TOUCHED;
	if (test_bit(2 * i + 1, g->history))
		flags |= FTRACE_FL_MODIFIED;
	return flags;
}

static inline unsigned long ftrace_site_flags(const struct ftrace_site_group *g,
					      unsigned int i)
{
	struct ftrace_site_state *st = ftrace_site_state(g, i);

	if (st)
		return st->rec.flags;
	return (ftrace_site_disabled(g, i) ? FTRACE_FL_DISABLED : 0) |
	       ftrace_site_history(g, i);
}

/* Free the state chunks whose sites are all idle.  ftrace_lock held. */
void ftrace_sites_reclaim(void);
void ftrace_sites_reclaim_later(void);
void ftrace_site_group_reclaim(struct ftrace_site_group *g);

/* Set or clear FTRACE_SITE_OFF_DISABLED (and the state's flag).  ftrace_lock. */
void ftrace_site_set_disabled(struct ftrace_site_group *g, unsigned int i,
			      bool disabled);

/* Group and index of the record with exactly this ip, or NULL.  ftrace_lock or RCU. */
struct ftrace_site_group *ftrace_site_find(unsigned long ip, unsigned int *idx);
/* Group and index of @rec (by its ip); cached for sequential walks.  ftrace_lock. */
struct ftrace_site_group *ftrace_site_group_of(const struct dyn_ftrace *rec,
					       unsigned int *idx);
/*
 * Symbol of the site at @ip: fills @name (KSYM_NAME_LEN) and *@modname
 * (NULL for vmlinux).  Returns 0 or -ENOENT.
 */
int ftrace_site_name(unsigned long ip, char *name, const char **modname);

/*
 * The records' part of the kernel's entry points (ftrace_lifecycle.c):
 * build and NOP the vmlinux records at boot; drop the records of freed
 * text (true if any were dropped); enable a module's records (true if it
 * has any), unlink them when it goes, and free them after their readers.
 */
int __init ftrace_sites_boot(void);
bool ftrace_sites_drop_text(struct module *mod, unsigned long start,
			    unsigned long end);
#ifdef CONFIG_MODULES
bool ftrace_sites_module_enable(struct module *mod);
struct ftrace_site_group *ftrace_sites_module_unlink(struct module *mod);
void ftrace_sites_group_retire(struct ftrace_site_group *g);
#endif

/*
 * ftrace_bug() prints the record's flags, then lets the owner of the site
 * states describe them through this hook.  ftrace_lock held.
 */
void ftrace_sites_set_bug_detail(void (*detail)(struct dyn_ftrace *rec));

#ifdef CONFIG_MODULES
/* Keep the name of a freed module-init function for kallsyms; ftrace_lock. */
void ftrace_mod_syms_keep(struct module *mod, unsigned long ip);
void ftrace_mod_syms_drop(struct module *mod);
/* Kept function *@symnum, else *@symnum less their count; under RCU. */
bool ftrace_sites_kept_sym_nth(unsigned int *symnum, unsigned long *value,
			       char *type, char *name, char *module_name,
			       int *exported);
#else
static inline bool ftrace_sites_kept_sym_nth(unsigned int *symnum,
					     unsigned long *value, char *type,
					     char *name, char *module_name,
					     int *exported)
{
	return false;
}
#endif

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * ftrace_sites.c's group builders, VISIBLE_IF_KUNIT: the suite builds
 * groups of made-up addresses that are neither NOPed nor published.
 */
struct ftrace_site_group *site_group_alloc(struct module *mod,
					   unsigned int cap);
int site_group_fill(struct ftrace_site_group *g, const unsigned long *start,
		    const unsigned long *end, bool adjust);
void site_group_free(struct ftrace_site_group *g);
#endif

#endif /* CONFIG_DYNAMIC_FTRACE */

/* The name shown for a weak-function leftover record. */
#define FTRACE_INVALID_FUNCTION	"__ftrace_invalid_address__"

extern unsigned long ftrace_update_tot_cnt;
extern unsigned long ftrace_number_of_pages;
extern unsigned long ftrace_number_of_groups;
extern unsigned long ftrace_update_time;	/* ns spent NOPing at boot */

#endif /* CONFIG_FUNCTION_TRACER */

#endif /* _LINUX_KERNEL_FTRACE_RECORDS_H */
