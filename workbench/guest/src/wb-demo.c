// SPDX-License-Identifier: GPL-2.0
/*
 * wb-demo: a small guest program with known functions, arguments and return
 * values, for uprobe demos and tests.  The workbench records the file offset
 * of each wb_demo_* function in /wb/share/wb-demo.offsets.
 *
 * usage: wb-demo [N]   calls wb_demo_add(i, 10 * i) for i = 1..N (default 3)
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long wb_demo_add(long a, long b)
{
	asm volatile("" ::: "memory");	/* keep the call */
	return a + b;
}

__attribute__((noinline)) int wb_demo_greet(const char *who)
{
	asm volatile("" ::: "memory");
	return printf("wb-demo: hello %s\n", who);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	long sum = 0;
	int i;

	for (i = 1; i <= n; i++)
		sum += wb_demo_add(i, 10L * i);
	wb_demo_greet("tracer");
	printf("wb-demo: %d calls, sum %ld\n", n, sum);
	return 0;
}
