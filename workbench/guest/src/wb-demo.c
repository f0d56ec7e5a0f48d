// SPDX-License-Identifier: GPL-2.0
/*
 * wb-demo: a small guest program with known functions, arguments, return
 * values and global data, for uprobe demos, tests and benchmarks.  The
 * workbench records the file offset of each wb_demo_* function in
 * /wb/share/wb-demo.offsets.
 *
 * usage:
 *   wb-demo [N]       wb_demo_add(i, 10 * i) for i = 1..N (default 3), then
 *                     wb_demo_greet("tracer")
 *   wb-demo calls [N] N times (default 1): wb_demo_mix(), wb_demo_rec() and
 *                     wb_demo_str() with the arguments documented below
 *   wb-demo loop N    wb_demo_loop(i, 2 * i, &wb_demo_rec_a) for i = 1..N,
 *                     as fast as possible (the benchmark's workload)
 *   wb-demo where     "NAME 0xVADDR 0xFILEOFFSET" of each global and function
 *                     below, the file offset as the kernel maps it (taken
 *                     from /proc/self/maps; the binary is static, not PIE)
 *   wb-demo sema      the value of wb_demo_sema[0] (a uprobe reference
 *                     counter: the kernel raises it while a probe that names
 *                     it is enabled)
 *
 * The probed functions are noipa: no inlining, no cloning, no constant
 * propagation into them, so they are called with exactly these values.
 */
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define wb_probed __attribute__((noipa))

/*
 * A record with fields of each width at fixed offsets (the same on x86_64
 * and arm64):
 * +0 id, +4 port, +6 flags, +7 kind, +8 bits, +12 spare, +16 name, +24 next,
 * +32 big.
 */
struct wb_demo_rec {
	__s32 id;
	__u16 port;
	__u8 flags;
	__u8 kind;
	__u32 bits;
	__u32 spare;
	const char *name;
	struct wb_demo_rec *next;
	__s64 big;
};

struct wb_demo_rec wb_demo_rec_b = {
	.id = 42, .port = 443, .flags = 0x0f, .kind = 'b', .bits = 0xcafef00d,
	.spare = 0, .name = "second", .next = NULL, .big = 7,
};

struct wb_demo_rec wb_demo_rec_a = {
	.id = -7, .port = 8080, .flags = 0xa5, .kind = 'a', .bits = 0x12345678,
	.spare = 0xdeadbeef, .name = "wb-record", .next = &wb_demo_rec_b,
	.big = -1234567890123LL,
};

/* Plain globals for @ADDR and @+OFFSET fetches. */
__u64 wb_demo_counter = 0x1122334455667788ULL;
char wb_demo_banner[] = "wb-demo banner";

/*
 * A reference counter (semaphore) for PATH:OFFSET(REF_CTR_OFFSET) probes is
 * wb_demo_sema[0].  It must live in the file-backed writable mapping: the
 * non-zero second element keeps the array in .data, out of .bss.
 */
__u16 wb_demo_sema[2] = { 0, 0x5e3a };

/*
 * 1 MiB of read-only data that no mode of wb-demo reads: a probe fetching
 * the word in the middle finds its page not yet mapped in the probed
 * process (fault-around maps at most 64 KiB around other faults), so the
 * tracer has to fault it in.
 */
#define WB_DEMO_COLD_WORDS	262144
const __u32 wb_demo_cold[WB_DEMO_COLD_WORDS] = {
	[WB_DEMO_COLD_WORDS / 2] = 0xc01dc0de,
};

wb_probed long wb_demo_add(long a, long b)
{
	return a + b;
}

wb_probed int wb_demo_greet(const char *who)
{
	return printf("wb-demo: hello %s\n", who);
}

/*
 * Called as wb_demo_mix(-5, 200, -1234, 54321, -100000, 4000000000,
 * -5000000000, 0xfedcba9876543210).  On x86_64 a..f arrive in %di %si %dx
 * %cx %r8 %r9, g and h on the stack ($stack1, $stack2); on arm64 a..h arrive
 * in %x0..%x7.  Returns a + b + ... + g, that is -1000046718.
 */
wb_probed __s64 wb_demo_mix(__s8 a, __u8 b, __s16 c, __u16 d,
			    __s32 e, __u32 f, __s64 g, __u64 h)
{
	(void)h;
	return (__s64)a + b + c + d + e + f + g;
}

/*
 * Called as wb_demo_rec(&wb_demo_rec_a, &wb_demo_rec_a.big): the first
 * argument (%di, %x0 on arm64) points to the record, the second (%si, %x1)
 * to its last field.  Returns r->id + r->next->id (35).
 */
wb_probed int wb_demo_rec(const struct wb_demo_rec *r, const __s64 *tail)
{
	(void)tail;
	return r->id + (r->next ? r->next->id : 0);
}

/*
 * Called as wb_demo_str("hello uprobes", "", NULL): returns the length of
 * the first string (13).
 */
wb_probed size_t wb_demo_str(const char *s, const char *empty,
			     const char *null)
{
	(void)empty;
	(void)null;
	return strlen(s);
}

/* The benchmark's probed function: wb_demo_loop(i, 2 * i, &wb_demo_rec_a). */
wb_probed long wb_demo_loop(long i, long x, const struct wb_demo_rec *r)
{
	return i + x + r->id;
}

static void calls(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		wb_demo_mix(-5, 200, -1234, 54321, -100000, 4000000000U,
			    -5000000000LL, 0xfedcba9876543210ULL);
		wb_demo_rec(&wb_demo_rec_a, &wb_demo_rec_a.big);
		wb_demo_str("hello uprobes", "", NULL);
	}
	printf("wb-demo: %d x (mix, rec, str)\n", n);
}

static void loop(long n)
{
	long i, sum = 0;

	for (i = 1; i <= n; i++)
		sum += wb_demo_loop(i, 2 * i, &wb_demo_rec_a);
	printf("wb-demo: %ld calls of wb_demo_loop, sum %ld\n", n, sum);
}

/* Print the file offset at which the kernel maps @addr of this program. */
static void where_one(const char *name, const void *addr)
{
	unsigned long a = (unsigned long)addr, lo, hi, pgoff;
	char line[512], perm[8];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f) {
		perror("/proc/self/maps");
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perm, &pgoff) != 4)
			continue;
		if (a >= lo && a < hi) {
			printf("%s 0x%lx 0x%lx\n", name, a, a - lo + pgoff);
			fclose(f);
			return;
		}
	}
	fclose(f);
	fprintf(stderr, "wb-demo: %s (%#lx) is not mapped\n", name, a);
	exit(1);
}

static void where(void)
{
	where_one("wb_demo_add", (const void *)wb_demo_add);
	where_one("wb_demo_mix", (const void *)wb_demo_mix);
	where_one("wb_demo_rec", (const void *)wb_demo_rec);
	where_one("wb_demo_str", (const void *)wb_demo_str);
	where_one("wb_demo_loop", (const void *)wb_demo_loop);
	where_one("wb_demo_rec_a", &wb_demo_rec_a);
	where_one("wb_demo_counter", &wb_demo_counter);
	where_one("wb_demo_banner", wb_demo_banner);
	where_one("wb_demo_sema", wb_demo_sema);
	where_one("wb_demo_cold_word", &wb_demo_cold[WB_DEMO_COLD_WORDS / 2]);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "3";
	long sum = 0;
	int n, i;

	if (!strcmp(mode, "calls")) {
		calls(argc > 2 ? atoi(argv[2]) : 1);
		return 0;
	}
	if (!strcmp(mode, "loop")) {
		loop(argc > 2 ? atol(argv[2]) : 1000);
		return 0;
	}
	if (!strcmp(mode, "where")) {
		where();
		return 0;
	}
	if (!strcmp(mode, "getpgid")) {
		/*
		 * A known number of one system call, for kernel-side probes.
		 * getpgid, not a system call without arguments: the x86-64
		 * entry of those shares its address with the ia32 one, and
		 * available_filter_functions names only one of them.
		 */
		n = argc > 2 ? atoi(argv[2]) : 1000;
		for (i = 0; i < n; i++)
			syscall(SYS_getpgid, 0);
		printf("wb-demo: %d getpgid calls\n", n);
		return 0;
	}
	if (!strcmp(mode, "sema")) {
		printf("%u\n", (unsigned int)wb_demo_sema[0]);
		return 0;
	}

	n = atoi(mode);
	for (i = 1; i <= n; i++)
		sum += wb_demo_add(i, 10L * i);
	wb_demo_greet("tracer");
	printf("wb-demo: %d calls, sum %ld\n", n, sum);
	return 0;
}
