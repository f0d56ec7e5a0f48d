/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running the consumers of a uprobe from an architecture's own entry into
 * the kernel, for probe sites that an architecture rewrote so that they no
 * longer trap (x86-64: 5-byte NOPs that jump to a trampoline).
 */
#ifndef _LINUX_UPROBE_SITE_H
#define _LINUX_UPROBE_SITE_H

#include <linux/types.h>

struct pt_regs;

bool uprobe_run_site(struct pt_regs *regs, unsigned long vaddr);

#endif /* _LINUX_UPROBE_SITE_H */
