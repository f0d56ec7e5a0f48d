/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Traced functions for the ftrace_core KUnit suite.
 *
 * They live in ftrace_kunit_funcs.c, the one object of kernel/trace that is
 * compiled with fentry call sites, and only the suite calls them.  Each
 * returns its argument plus a constant of its own, so a caller can tell
 * which body ran (the IPMODIFY case relies on it).  The redirect pair also
 * count how often their bodies ran; only the suite's own thread calls them.
 */
#ifndef _KERNEL_TRACE_FTRACE_KUNIT_H
#define _KERNEL_TRACE_FTRACE_KUNIT_H

#define FTRACE_KUNIT_A_ADD	0x0a1UL
#define FTRACE_KUNIT_B_ADD	0x0b2UL
#define FTRACE_KUNIT_C_ADD	0x0c3UL
#define FTRACE_KUNIT_D_ADD	0x0d4UL
#define FTRACE_KUNIT_FROM_ADD	0x1000UL
#define FTRACE_KUNIT_TO_ADD	0x2000UL
#define FTRACE_KUNIT_OUTER_ADD	0x0e5UL

unsigned long ftrace_kunit_target_a(unsigned long x);
unsigned long ftrace_kunit_target_b(unsigned long x);
unsigned long ftrace_kunit_target_c(unsigned long x);
unsigned long ftrace_kunit_target_d(unsigned long x);
unsigned long ftrace_kunit_redirect_from(unsigned long x);
unsigned long ftrace_kunit_redirect_to(unsigned long x);
/* Calls ftrace_kunit_target_b(): a traced call inside a traced call. */
unsigned long ftrace_kunit_target_outer(unsigned long x);

/* Number of times each redirect body ran. */
extern unsigned long ftrace_kunit_from_runs;
extern unsigned long ftrace_kunit_to_runs;

#endif /* _KERNEL_TRACE_FTRACE_KUNIT_H */
