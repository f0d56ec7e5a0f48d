/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Adding and removing many uprobe consumers at once.
 *
 * uprobe_unregister_batch_nosync() does for a set of consumers what
 * uprobe_unregister_nosync() does for one, sharing the work it can: the
 * fork lock, the walk of a file's mappings, each address space's
 * mmap_lock, and the copy of a text page that holds several of the sites.
 * uprobe_register_batch() is its counterpart for uprobe_register(), for
 * the consumers of one file: one walk of the file's mappings and one
 * mmap_lock per address space for the whole set, all or nothing.
 * Users: the uprobe event layer (a write that disables many events) and
 * BPF's uprobe_multi links.  Kept apart from <linux/uprobes.h>, which half
 * the kernel includes, so that the interface costs no rebuild of it.
 */
#ifndef _LINUX_UPROBE_BATCH_H
#define _LINUX_UPROBE_BATCH_H

#include <linux/errno.h>
#include <linux/types.h>

struct inode;
struct uprobe;
struct uprobe_consumer;

/*
 * One probe of a batched register, filled in by the caller's callback:
 * where it goes in the file, its consumer, and where uprobe_register_batch()
 * stores its uprobe once the whole batch is registered.
 */
struct uprobe_batch_reg {
	loff_t offset;
	loff_t ref_ctr_offset;
	struct uprobe_consumer *uc;
	struct uprobe **uprobe;
};

typedef void (*uprobe_batch_reg_t)(void *ctx, unsigned int i,
				   struct uprobe_batch_reg *reg);

/* The @i-th uprobe of a batch, and its consumer in *@uc. */
typedef struct uprobe *(*uprobe_batch_get_t)(void *ctx, unsigned int i,
					     struct uprobe_consumer **uc);

#ifdef CONFIG_UPROBES
void uprobe_unregister_batch_nosync(unsigned int cnt, uprobe_batch_get_t get,
				    void *ctx);
int uprobe_register_batch(struct inode *inode, unsigned int cnt,
			  uprobe_batch_reg_t get, void *ctx);
#else
static inline int uprobe_register_batch(struct inode *inode, unsigned int cnt,
					uprobe_batch_reg_t get, void *ctx)
{
	return -ENOSYS;
}

static inline void
uprobe_unregister_batch_nosync(unsigned int cnt, uprobe_batch_get_t get,
			       void *ctx)
{
}
#endif

#endif /* _LINUX_UPROBE_BATCH_H */
