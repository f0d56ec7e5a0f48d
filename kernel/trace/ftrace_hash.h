/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip hashes: layer "hash" of the function-hook core (see ftrace_internal.h
 * for the layers).
 *
 * Offers struct ftrace_hash's operations (the container every filter and
 * notrace set is made of), the shared empty hash, the ops filter test
 * (does an ops, or one of a manager's subops, want an ip) and glob
 * matching.  Plain data structures: nothing here knows the list of
 * registered ops, the records or tracefs, and nothing here may name a
 * symbol of a higher layer.  The users of the core get all of it through
 * ftrace_user.h.
 */
#ifndef _LINUX_KERNEL_FTRACE_HASH_H
#define _LINUX_KERNEL_FTRACE_HASH_H

#include <linux/ftrace.h>
#include <linux/hash.h>

#ifdef CONFIG_FUNCTION_TRACER
#ifdef CONFIG_DYNAMIC_FTRACE

#define FTRACE_HASH_DEFAULT_BITS	10
#define FTRACE_HASH_MAX_BITS		12

/* The shared empty hash; never freed, never written. */
extern struct ftrace_hash ftrace_empty_hash;
#define FTRACE_EMPTY_HASH	(&ftrace_empty_hash)

struct ftrace_hash *ftrace_hash_alloc(int size_bits);
/* Copy of @src (NULL/empty gives an empty new hash) sized for its count. */
struct ftrace_hash *ftrace_hash_copy(int size_bits, struct ftrace_hash *src);
void ftrace_hash_free(struct ftrace_hash *hash);	/* NULL/empty ok */
void ftrace_hash_free_rcu(struct ftrace_hash *hash);	/* after a grace period */
void ftrace_hash_clear(struct ftrace_hash *hash);
struct ftrace_func_entry *ftrace_hash_add(struct ftrace_hash *hash,
					  unsigned long ip);
/* Up to FTRACE_HASH_BULK addresses absent from @hash, added in one go. */
#define FTRACE_HASH_BULK	64
int ftrace_hash_add_unique(struct ftrace_hash *hash, const unsigned long *ips,
			   unsigned int n);
/* Creates the entry cache; ftrace_init() calls it before any filter. */
void __init ftrace_hash_init(void);
void ftrace_hash_remove(struct ftrace_hash *hash,
			struct ftrace_func_entry *entry);
/* Grow a private hash's table for @count entries / size it for its count. */
int ftrace_hash_reserve(struct ftrace_hash *hash, unsigned long count);
void ftrace_hash_compact(struct ftrace_hash *hash);
bool ftrace_hash_equal(struct ftrace_hash *a, struct ftrace_hash *b);

#define for_each_hash_entry(hash, i, e)					\
	for (i = 0; (hash) && (hash)->buckets &&			\
		    i < (1UL << (hash)->size_bits); i++)		\
		hlist_for_each_entry(e, &(hash)->buckets[i], hlist)

/* A manager (fgraph's graph_ops) is an ops with subops on its subop_list. */
static inline bool ftrace_ops_has_subops(struct ftrace_ops *ops)
{
	/* A never-initialised ops has a zeroed, not an empty, list head. */
	return ops->subop_list.next && !list_empty(&ops->subop_list);
}

/* Does @ops want @ip by its own hashes?  (filter empty or has ip) && !notrace */
bool ftrace_ops_wants_ip(struct ftrace_ops *ops, unsigned long ip);
/* Same for a manager: true if any of its subops wants @ip. */
bool ftrace_ops_or_subops_want_ip(struct ftrace_ops *ops, unsigned long ip);
int ftrace_ops_test(struct ftrace_ops *ops, unsigned long ip, void *regs);

/* A parsed glob: filter_parse_regex() type and search text. */
struct ftrace_glob {
	char		*search;
	unsigned int	len;
	int		type;		/* MATCH_* from trace.h */
};

bool ftrace_glob_match(const struct ftrace_glob *g, const char *str);

#endif /* CONFIG_DYNAMIC_FTRACE */
#endif /* CONFIG_FUNCTION_TRACER */

#endif /* _LINUX_KERNEL_FTRACE_HASH_H */
