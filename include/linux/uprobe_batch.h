/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Removing many uprobe consumers at once.
 *
 * uprobe_unregister_batch_nosync() does for a set of consumers what
 * uprobe_unregister_nosync() does for one, sharing the work it can: the
 * fork lock, the walk of a file's mappings, each address space's
 * mmap_lock, and the copy of a text page that holds several of the sites.
 * Users: the uprobe event layer (a write that disables many events) and
 * BPF's uprobe_multi links.  Kept apart from <linux/uprobes.h>, which half
 * the kernel includes, so that the interface costs no rebuild of it.
 */
#ifndef _LINUX_UPROBE_BATCH_H
#define _LINUX_UPROBE_BATCH_H

struct uprobe;
struct uprobe_consumer;

/* The @i-th uprobe of a batch, and its consumer in *@uc. */
typedef struct uprobe *(*uprobe_batch_get_t)(void *ctx, unsigned int i,
					     struct uprobe_consumer **uc);

#ifdef CONFIG_UPROBES
void uprobe_unregister_batch_nosync(unsigned int cnt, uprobe_batch_get_t get,
				    void *ctx);
#else
static inline void
uprobe_unregister_batch_nosync(unsigned int cnt, uprobe_batch_get_t get,
			       void *ctx)
{
}
#endif

#endif /* _LINUX_UPROBE_BATCH_H */
