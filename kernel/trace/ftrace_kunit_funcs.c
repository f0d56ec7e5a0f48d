// SPDX-License-Identifier: GPL-2.0
/*
 * Call sites for the ftrace_core KUnit suite (ftrace_kunit.c).
 *
 * The Makefile builds this object, and no other one in kernel/trace, with
 * CC_FLAGS_FTRACE: every function below starts with an fentry call site
 * that the suite's ops hook.  The callers are in another object, so the
 * compiler can neither inline nor drop a call; the bodies differ (each has
 * its own constant) so that identical-code folding cannot merge two symbols,
 * and the empty asm statement keeps a body from being treated as pure.
 */
#include <linux/compiler.h>

#include "ftrace_kunit.h"

unsigned long ftrace_kunit_from_runs;
unsigned long ftrace_kunit_to_runs;

noinline unsigned long ftrace_kunit_target_a(unsigned long x)
{
	asm volatile("");
	return x + FTRACE_KUNIT_A_ADD;
}

noinline unsigned long ftrace_kunit_target_b(unsigned long x)
{
	asm volatile("");
	return x + FTRACE_KUNIT_B_ADD;
}

noinline unsigned long ftrace_kunit_target_c(unsigned long x)
{
	asm volatile("");
	return x + FTRACE_KUNIT_C_ADD;
}

noinline unsigned long ftrace_kunit_target_d(unsigned long x)
{
	asm volatile("");
	return x + FTRACE_KUNIT_D_ADD;
}

noinline unsigned long ftrace_kunit_target_outer(unsigned long x)
{
	unsigned long r = ftrace_kunit_target_b(x);

	/* Use the result, so that the call to b cannot become a tail call. */
	asm volatile("" : "+r" (r));
	return r + FTRACE_KUNIT_OUTER_ADD;
}

/* An IPMODIFY callback sends calls of this one to ftrace_kunit_redirect_to(). */
noinline unsigned long ftrace_kunit_redirect_from(unsigned long x)
{
	WRITE_ONCE(ftrace_kunit_from_runs, ftrace_kunit_from_runs + 1);
	return x + FTRACE_KUNIT_FROM_ADD;
}

noinline unsigned long ftrace_kunit_redirect_to(unsigned long x)
{
	WRITE_ONCE(ftrace_kunit_to_runs, ftrace_kunit_to_runs + 1);
	return x + FTRACE_KUNIT_TO_ADD;
}
