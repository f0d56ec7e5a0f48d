/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a probe may go and what it runs from, the kprobes core's second
 * layer (see kprobes_internal.h): instruction slots, the blacklist, and
 * the address of a probe given by symbol and offset.
 */
#ifndef _KERNEL_KPROBES_PLACE_H
#define _KERNEL_KPROBES_PLACE_H

#include "kprobes_internal.h"

/* --- slots (kprobes_insn_slot.c) --- */

void __init kprobe_insn_caches_init(void);

/* --- blacklist (kprobes_blacklist.c) --- */

extern struct list_head kprobe_blacklist;
extern struct mutex kprobe_blacklist_mutex;

int __init kprobe_blacklist_init(void);
void kprobe_blacklist_add_module(struct module *mod);
void kprobe_blacklist_remove_module(struct module *mod);

/* --- addr (kprobes_addr.c) --- */

kprobe_opcode_t *kprobe_resolve_addr(kprobe_opcode_t *addr, const char *sym,
				     unsigned long offset, bool *on_func_entry);
kprobe_opcode_t *kprobe_resolve_found(kprobe_opcode_t *sym_addr,
				      unsigned long offset, bool *on_func_entry);
kprobe_opcode_t **kprobe_lookup_names(struct kprobe **kps, int num, bool force);
int kprobe_check_site(struct kprobe *p, struct module **modp);
bool kprobe_site_alive(struct kprobe *p, struct module *mod);

#endif /* _KERNEL_KPROBES_PLACE_H */
