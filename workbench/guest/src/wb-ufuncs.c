// SPDX-License-Identifier: GPL-2.0
/*
 * wb-ufuncs: a program with 1,000 distinct functions, wb_uf_000 to
 * wb_uf_999, for uprobes in bulk (the bench's ubulk group and
 * dynevent/uprobe_batch_disable.tc).  Each returns a constant of its own
 * so that the compiler merges none of them; the build writes their file
 * offsets to /wb/share/wb-ufuncs.offsets (workbench/elf_offsets.py).
 *
 * usage:
 *   wb-ufuncs pause         call every function once, print "ready", then
 *                           sleep until killed (keeps the mapping alive)
 *   wb-ufuncs loop R U      R rounds (0: until killed), each calling every
 *                           function once, U microseconds apart; prints
 *                           "ready" after the first round
 *   wb-ufuncs call FIRST N  call wb_uf_FIRST .. wb_uf_(FIRST+N-1) once
 *   wb-ufuncs perf OFFS N   open N perf events of the uprobe PMU on this
 *                           program, on the first N offsets of the file
 *                           OFFS ("NAME 0xOFFSET" lines), each counting
 *                           this process; call every function once; read
 *                           the counts (each must be 1); close them all.
 *                           Prints "open US close US" (microseconds of
 *                           CLOCK_MONOTONIC for all opens, all closes).
 *
 * Errors go to stderr, with a non-zero exit.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NFUNCS		1000
#define SELF		"/usr/bin/wb-ufuncs"
#define PMU_TYPE	"/sys/bus/event_source/devices/uprobe/type"

/* wb_uf_NNN returns 3x + 1NNN: a constant of its own, in decimal. */
#define UF(n)							\
	__attribute__((noinline)) int wb_uf_##n(int x)		\
	{							\
		__asm__ volatile("" : "+r" (x));		\
		return 3 * x + 1##n;				\
	}
#define UF10(a)		UF(a##0) UF(a##1) UF(a##2) UF(a##3) UF(a##4) \
			UF(a##5) UF(a##6) UF(a##7) UF(a##8) UF(a##9)
#define UF100(a)	UF10(a##0) UF10(a##1) UF10(a##2) UF10(a##3) \
			UF10(a##4) UF10(a##5) UF10(a##6) UF10(a##7) \
			UF10(a##8) UF10(a##9)
UF100(0) UF100(1) UF100(2) UF100(3) UF100(4)
UF100(5) UF100(6) UF100(7) UF100(8) UF100(9)

#define T(n)		wb_uf_##n,
#define T10(a)		T(a##0) T(a##1) T(a##2) T(a##3) T(a##4) \
			T(a##5) T(a##6) T(a##7) T(a##8) T(a##9)
#define T100(a)		T10(a##0) T10(a##1) T10(a##2) T10(a##3) \
			T10(a##4) T10(a##5) T10(a##6) T10(a##7) \
			T10(a##8) T10(a##9)
static int (*const wb_uf_table[NFUNCS])(int) = {
	T100(0) T100(1) T100(2) T100(3) T100(4)
	T100(5) T100(6) T100(7) T100(8) T100(9)
};

static const char *prog = "wb-ufuncs";
static volatile int sink;

static void fail(const char *what)
{
	fprintf(stderr, "%s: %s: %s (errno %d)\n", prog, what, strerror(errno),
		errno);
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: %s pause | loop ROUNDS USLEEP | call FIRST N | perf OFFSETS N\n",
		prog);
	exit(2);
}

static long num(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < 0)
		usage();
	return v;
}

static void call_range(long first, long n)
{
	long i;

	for (i = first; i < first + n && i < NFUNCS; i++)
		sink += wb_uf_table[i]((int)i);
}

static void ready(void)
{
	printf("ready\n");
	fflush(stdout);
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* The first @n offsets of @path, "NAME 0xOFFSET" a line. */
static void read_offsets(const char *path, unsigned long long *offs, long n)
{
	char name[128];
	FILE *f = fopen(path, "r");
	long i;

	if (!f)
		fail(path);
	for (i = 0; i < n; i++) {
		if (fscanf(f, "%127s %llx", name, &offs[i]) != 2) {
			fprintf(stderr, "%s: %s: only %ld offsets\n", prog,
				path, i);
			exit(1);
		}
	}
	fclose(f);
}

static int perf_bulk(const char *offsets, long n)
{
	struct perf_event_attr attr;
	unsigned long long *offs, count;
	long long t0, t1, t2, t3;
	struct rlimit rl;
	FILE *tf;
	int *fds, type;
	long i, bad = 0;

	if (n > NFUNCS)
		usage();
	tf = fopen(PMU_TYPE, "r");
	if (!tf || fscanf(tf, "%d", &type) != 1)
		fail(PMU_TYPE);
	fclose(tf);

	/* n events and stdio */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < (rlim_t)n + 16) {
		rl.rlim_cur = n + 16;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			fail("setrlimit");
	}
	offs = calloc(n, sizeof(*offs));
	fds = calloc(n, sizeof(*fds));
	if (!offs || !fds)
		fail("calloc");
	read_offsets(offsets, offs, n);

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config1 = (unsigned long long)(unsigned long)SELF;

	t0 = now_us();
	for (i = 0; i < n; i++) {
		attr.config2 = offs[i];
		fds[i] = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
				 PERF_FLAG_FD_CLOEXEC);
		if (fds[i] < 0)
			fail("perf_event_open");
	}
	t1 = now_us();

	call_range(0, NFUNCS);
	for (i = 0; i < n; i++) {
		if (read(fds[i], &count, sizeof(count)) != sizeof(count))
			fail("read counter");
		bad += count != 1;
	}

	t2 = now_us();
	for (i = 0; i < n; i++)
		close(fds[i]);
	t3 = now_us();

	if (bad) {
		fprintf(stderr, "%s: %ld of %ld counters did not count one hit\n",
			prog, bad, n);
		return 1;
	}
	printf("open %lld close %lld\n", t1 - t0, t3 - t2);
	return 0;
}

int main(int argc, char **argv)
{
	long rounds, us, r;

	if (argc == 2 && !strcmp(argv[1], "pause")) {
		call_range(0, NFUNCS);
		ready();
		for (;;)
			pause();
	}
	if (argc == 4 && !strcmp(argv[1], "loop")) {
		rounds = num(argv[2]);
		us = num(argv[3]);
		for (r = 0; !rounds || r < rounds; r++) {
			call_range(0, NFUNCS);
			if (!r)
				ready();
			if (us)
				usleep(us);
		}
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "call")) {
		call_range(num(argv[2]), num(argv[3]));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "perf"))
		return perf_bulk(argv[2], num(argv[3]));
	usage();
	return 2;
}
