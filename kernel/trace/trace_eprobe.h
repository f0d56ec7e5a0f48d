/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Functions of the event probe layer (trace_eprobe.c) that its KUnit suite
 * (trace_eprobe_kunit.c) calls.  They are static without CONFIG_KUNIT.
 */
#ifndef _KERNEL_TRACE_EPROBE_H
#define _KERNEL_TRACE_EPROBE_H

#if IS_ENABLED(CONFIG_KUNIT)
int eprobe_dyn_create(const char *raw_command);
#endif

#endif /* _KERNEL_TRACE_EPROBE_H */
