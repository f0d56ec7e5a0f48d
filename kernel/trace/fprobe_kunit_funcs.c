// SPDX-License-Identifier: GPL-2.0
/*
 * Call sites for the fprobe_core KUnit suite (fprobe_kunit.c).
 *
 * The Makefile builds this object with CC_FLAGS_FTRACE, so every function
 * here starts with an fentry call site the suite can probe.  The callers
 * live in another object, which keeps the compiler from inlining or
 * dropping calls; distinct constants keep identical-code folding from
 * merging two functions, and the empty asm statements keep bodies from
 * being treated as pure.  A barrier after a call keeps it from becoming a
 * tail call, which would hand the callee this function's return address.
 */
#include <linux/completion.h>
#include <linux/compiler.h>

#include "fprobe_kunit.h"

noinline unsigned long fprobe_kunit_inner(unsigned long x)
{
	asm volatile("");
	return x + FPROBE_KUNIT_INNER_ADD;
}

noinline unsigned long fprobe_kunit_outer(unsigned long x)
{
	unsigned long r = fprobe_kunit_inner(x + 1);

	barrier();
	return r + FPROBE_KUNIT_OUTER_ADD;
}

noinline unsigned long fprobe_kunit_fill(unsigned long x)
{
	asm volatile("");
	return x + FPROBE_KUNIT_FILL_ADD;
}

noinline unsigned long fprobe_kunit_recurse(unsigned long depth,
					    const unsigned long *stop)
{
	unsigned long sum;

	if (!depth || READ_ONCE(*stop))
		return 0;
	sum = fprobe_kunit_fill(depth);
	sum += fprobe_kunit_recurse(depth - 1, stop);
	barrier();
	return sum;
}

noinline unsigned long fprobe_kunit_wait(struct completion *go, unsigned long x)
{
	wait_for_completion(go);
	barrier();
	return x + FPROBE_KUNIT_WAIT_ADD;
}

noinline unsigned long fprobe_kunit_glob1(unsigned long x)
{
	asm volatile("");
	return x + FPROBE_KUNIT_GLOB_ADD;
}

noinline unsigned long fprobe_kunit_glob2(unsigned long x)
{
	asm volatile("");
	return x + 2 * FPROBE_KUNIT_GLOB_ADD;
}

noinline unsigned long fprobe_kunit_glob3(unsigned long x)
{
	asm volatile("");
	return x + 3 * FPROBE_KUNIT_GLOB_ADD;
}

noinline unsigned long fprobe_kunit_call(unsigned long (*fn)(unsigned long),
					 unsigned long x)
{
	unsigned long r = fn(x);

	barrier();
	return r;
}
