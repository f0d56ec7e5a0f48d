/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What registration (kprobes.c) offers its users in the core: the
 * return probes and debugfs.
 */
#ifndef _KERNEL_KPROBES_CORE_H
#define _KERNEL_KPROBES_CORE_H

#include "kprobes_arm.h"

/* --- core (kprobes.c), for the users --- */

void kprobe_unregister_disarm(struct kprobe *p, struct kprobe_batch *b);
int kprobe_unregister_begin(struct kprobe *p, struct kprobe_batch *b);
void kprobe_unregister_finish(struct kprobe *p);
bool kprobe_is_registered(struct kprobe *p);

#if IS_ENABLED(CONFIG_KUNIT)
void kprobe_count_unregister_wait(void);
#else
static inline void kprobe_count_unregister_wait(void)
{
}
#endif

#endif /* _KERNEL_KPROBES_CORE_H */
