/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Jump optimization, as the layers above it see it (kprobes_opt.c; the
 * stand-ins below keep them free of #ifdefs when CONFIG_OPTPROBES is off).
 */
#ifndef _KERNEL_KPROBES_OPT_H
#define _KERNEL_KPROBES_OPT_H

#include "kprobes_place.h"

/* --- opt (kprobes_opt.c) --- */

#ifdef CONFIG_OPTPROBES
struct kprobe *kprobe_aggr_alloc(struct kprobe *p);
void kprobe_aggr_free(struct kprobe *ap);
void kprobe_aggr_release(struct kprobe *ap);
bool kprobe_opt_ready(struct kprobe *p);
bool kprobe_opt_pending(struct kprobe *p);
void kprobe_opt_prepare(struct kprobe *ap);
void kprobe_opt_try(struct kprobe *p);
bool kprobe_opt_cancel(struct kprobe *p, bool now);
void kprobe_opt_break_covering(kprobe_opcode_t *addr);
void kprobe_opt_retry_covering(kprobe_opcode_t *addr);
void kprobe_opt_kill(struct kprobe *ap);
void kprobe_opt_hold_kicks(void);
void kprobe_opt_release_kicks(void);
#else
static inline struct kprobe *kprobe_aggr_alloc(struct kprobe *p)
{
	struct kprobe *ap = kzalloc(sizeof(*ap), GFP_KERNEL);

	if (ap) {
		ap->addr = p->addr;
		ap->pre_handler = kprobe_aggr_pre_handler;
	}
	return ap;
}

static inline void kprobe_aggr_free(struct kprobe *ap)
{
	arch_remove_kprobe(ap);
	kfree(ap);
}

static inline void kprobe_aggr_release(struct kprobe *ap)
{
	kprobe_aggr_free(ap);
}

static inline bool kprobe_opt_ready(struct kprobe *p) { return false; }
static inline bool kprobe_opt_pending(struct kprobe *p) { return false; }
static inline void kprobe_opt_prepare(struct kprobe *ap) { }
static inline void kprobe_opt_try(struct kprobe *p) { }
static inline bool kprobe_opt_cancel(struct kprobe *p, bool now) { return false; }
static inline void kprobe_opt_break_covering(kprobe_opcode_t *addr) { }
static inline void kprobe_opt_retry_covering(kprobe_opcode_t *addr) { }
static inline void kprobe_opt_kill(struct kprobe *ap) { }
static inline void kprobe_opt_hold_kicks(void) { }
static inline void kprobe_opt_release_kicks(void) { }

static inline bool kprobe_disarmed(struct kprobe *p)
{
	return kprobe_disabled(p);
}
#endif /* CONFIG_OPTPROBES */

#endif /* _KERNEL_KPROBES_OPT_H */
