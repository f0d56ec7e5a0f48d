/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Traced functions for the fprobe_core KUnit suite (fprobe_kunit.c), in
 * fprobe_kunit_funcs.c, the object built with fentry call sites.  Only the
 * suite calls them.  Each adds its own constant to its argument, so the
 * suite can tell from a return value which function returned and with
 * which argument it was called.
 */
#ifndef _KERNEL_TRACE_FPROBE_KUNIT_H
#define _KERNEL_TRACE_FPROBE_KUNIT_H

#define FPROBE_KUNIT_INNER_ADD	0x100UL
#define FPROBE_KUNIT_OUTER_ADD	0x2000UL
#define FPROBE_KUNIT_FILL_ADD	0x30000UL
#define FPROBE_KUNIT_GLOB_ADD	0x400000UL
#define FPROBE_KUNIT_WAIT_ADD	0x5000000UL

struct completion;

/* inner(x) = x + INNER_ADD; outer(x) = inner(x + 1) + OUTER_ADD */
unsigned long fprobe_kunit_inner(unsigned long x);
unsigned long fprobe_kunit_outer(unsigned long x);

/* fill(x) = x + FILL_ADD; a call that several probes may watch */
unsigned long fprobe_kunit_fill(unsigned long x);

/*
 * Calls fill() then itself, @depth levels deep, or fewer: it stops going
 * deeper as soon as *@stop is non-zero.  Never a tail call, so every level
 * keeps its frame (and its shadow-stack entry).
 */
unsigned long fprobe_kunit_recurse(unsigned long depth,
				   const unsigned long *stop);

/* wait(go, x) = x + WAIT_ADD, once @go is completed: a call that sleeps */
unsigned long fprobe_kunit_wait(struct completion *go, unsigned long x);

/* globN(x) = x + N * GLOB_ADD, for the glob registration cases */
unsigned long fprobe_kunit_glob1(unsigned long x);
unsigned long fprobe_kunit_glob2(unsigned long x);
unsigned long fprobe_kunit_glob3(unsigned long x);

/*
 * Returns @fn(@x) through an indirect, non-tail call: the traced @fn
 * returns into fprobe_kunit_call(), which gives the suite a known ret_ip.
 */
unsigned long fprobe_kunit_call(unsigned long (*fn)(unsigned long),
				unsigned long x);

#endif /* _KERNEL_TRACE_FPROBE_KUNIT_H */
