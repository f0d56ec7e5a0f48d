// SPDX-License-Identifier: GPL-2.0
/*
 * wb-kmulti: the BPF kprobe_multi link benchmark rows, with raw bpf(2)
 * calls (no libbpf in the guest).  The program is "return 0".
 *
 *   wb-kmulti all            attach one kprobe_multi link to every
 *                            function of available_filter_functions less
 *                            the ones BPF's own selftests leave out, and
 *                            detach it; prints the times
 *   wb-kmulti hit N [ret]    N getpgid() calls with a link (entry, or
 *                            with "ret" a kretprobe_multi link) on
 *                            __x64_sys_getpgid and N without; prints the
 *                            cost of a hit
 *   wb-kmulti spin S [ret]   the same link, then getpgid() in a loop for S
 *                            seconds (workbench/itrace.py steps one call)
 *   wb-kmulti umulti PATH OFFS N
 *                            attach one uprobe_multi link to the first N
 *                            offsets of the file OFFS ("NAME 0xOFFSET"
 *                            lines) in PATH, and detach it; prints the
 *                            times as umulti-{attach,detach}-N
 *   wb-kmulti udrain ROUNDS  a counting program on a uprobe_multi link
 *                            over functions of this program, while one
 *                            thread per CPU calls them: every call made
 *                            while the link is attached is counted, and
 *                            nothing is counted once close() of the link
 *                            returned, though the threads keep calling,
 *                            and the text is the file's again, in the
 *                            file's pages; ROUNDS attach/detach rounds,
 *                            exits 0 when all hold
 *   wb-kmulti uatomic        a uprobe_multi link whose sites include a
 *                            breakpoint instruction of this program (after
 *                            two good sites) must
 *                            fail as a whole (ENOTSUPP), leaving no site
 *                            counted and the text the file's, in the
 *                            file's pages; the link without that site
 *                            then counts every call; exits 0 when all hold
 *   wb-kmulti ufork PATH OFFS N
 *                            links on the first N offsets of OFFS in PATH
 *                            (wb-ufuncs) attached while "PATH forks" forks
 *                            children: each child calls every function
 *                            once after the attach returned, and every
 *                            call must be counted; three rounds (40
 *                            children 1 ms and 0.7 ms apart, up to 400
 *                            children 0.2 ms apart, the attach 0.1 s
 *                            after the first); exits 0 when all hold
 *   wb-kmulti info           check the order of a link's addresses in link
 *                            info, as 6.12 gives it: a link by names
 *                            without cookies lists them in the names'
 *                            strcmp() order, one with cookies by address
 *                            with each cookie beside its address; exits 0
 *                            when both hold
 *
 * Output lines: BENCH <name> <value> <unit>, as the bench job prints them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/bpf.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Load a kprobe-type program of @cnt instructions for @attach_type. */
static int prog_load(const struct bpf_insn *insns, unsigned int cnt,
		     int attach_type, unsigned int flags)
{
	static char log[16384];
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_KPROBE;
	a.expected_attach_type = attach_type;
	a.prog_flags = flags;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = cnt;
	a.license = (uintptr_t)"GPL";
	a.log_buf = (uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	fd = bpf(BPF_PROG_LOAD, &a);
	if (fd < 0)
		printf("BENCH-ERROR kmulti: prog load: %s %s\n", strerror(errno), log);
	return fd;
}

static int load_prog_as(int attach_type)
{
	/* r0 = 0; exit */
	static const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return prog_load(insns, 2, attach_type, 0);
}

/* A uprobe_multi link of @prog on @n offsets of the file @path. */
static int umulti_link(int prog, const char *path,
		       const unsigned long long *offs, unsigned int n)
{
	union bpf_attr a;
	int link;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = prog;
	a.link_create.attach_type = BPF_TRACE_UPROBE_MULTI;
	a.link_create.uprobe_multi.path = (uintptr_t)path;
	a.link_create.uprobe_multi.offsets = (uintptr_t)offs;
	a.link_create.uprobe_multi.cnt = n;
	link = bpf(BPF_LINK_CREATE, &a);
	if (link < 0)
		printf("BENCH-ERROR umulti: link create (%u offsets): %s\n",
		       n, strerror(errno));
	return link;
}

static int load_prog(void)
{
	return load_prog_as(BPF_TRACE_KPROBE_MULTI);
}

static int attach(int prog, const char **syms, unsigned int n, int ret)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = prog;
	a.link_create.attach_type = BPF_TRACE_KPROBE_MULTI;
	a.link_create.kprobe_multi.syms = (uintptr_t)syms;
	a.link_create.kprobe_multi.cnt = n;
	a.link_create.kprobe_multi.flags = ret ? BPF_F_KPROBE_MULTI_RETURN : 0;
	fd = bpf(BPF_LINK_CREATE, &a);
	if (fd < 0)
		printf("BENCH-ERROR kmulti: link create (%u functions): %s\n",
		       n, strerror(errno));
	return fd;
}

/* What tools/testing/selftests/bpf leaves out of its attach-all test. */
static int skip(const char *name)
{
	static const char *const pat[] = {
		"arch_cpu_idle", "default_idle", "bpf_dispatcher_xdp_func",
		"__ftrace_invalid_address__", "rcu_*", "__rcu_*", "trace_*",
		"kprobe*", "*.*", "__x64_sys_bpf",
	};
	unsigned int i;

	for (i = 0; i < sizeof(pat) / sizeof(pat[0]); i++)
		if (!fnmatch(pat[i], name, 0))
			return 1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static unsigned int read_names(const char *path, char ***out, int field)
{
	unsigned int n = 0, cap = 1024;
	char **v = malloc(cap * sizeof(*v));
	char line[512], *tok, *save;
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f)) {
		int i;

		tok = strtok_r(line, " \t\n", &save);
		for (i = 0; i < field && tok; i++)
			tok = strtok_r(NULL, " \t\n", &save);
		if (!tok)
			continue;
		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof(*v));
		v[n++] = strdup(tok);
	}
	if (f)
		fclose(f);
	*out = v;
	return n;
}

static int bench_all(int prog)
{
	char **avail, **black;
	const char **syms;
	unsigned int na, nb, n = 0, i, j;
	uint64_t t0, t1, t2;
	int link;

	na = read_names("/sys/kernel/tracing/available_filter_functions",
			&avail, 0);
	/* "0xaddr-0xaddr\tname" */
	nb = read_names("/sys/kernel/debug/kprobes/blacklist", &black, 1);
	qsort(avail, na, sizeof(*avail), cmp_str);
	qsort(black, nb, sizeof(*black), cmp_str);
	syms = malloc(na * sizeof(*syms));
	/* sorted: duplicates are neighbours, the blacklist is merged in */
	for (i = 0, j = 0; i < na; i++) {
		while (j < nb && strcmp(black[j], avail[i]) < 0)
			j++;
		if (j < nb && !strcmp(black[j], avail[i]))
			continue;
		if (skip(avail[i]) || (n && !strcmp(syms[n - 1], avail[i])))
			continue;
		syms[n++] = avail[i];
	}
	t0 = now_ns();
	link = attach(prog, syms, n, 0);
	t1 = now_ns();
	if (link < 0)
		return 1;
	close(link);
	t2 = now_ns();
	printf("# kprobe_multi on %u functions\n", n);
	printf("BENCH kmulti-attach-all %llu us\n",
	       (unsigned long long)(t1 - t0) / 1000);
	printf("BENCH kmulti-detach-all %llu us\n",
	       (unsigned long long)(t2 - t1) / 1000);
	return 0;
}

static uint64_t calls(long n)
{
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		syscall(SYS_getpgid, 0);
	return now_ns() - t0;
}

static int bench_hit(int prog, long n, int ret)
{
	const char *sym[] = { "__x64_sys_getpgid" };
	uint64_t base, with;
	int link;

	calls(n / 10);	/* warm */
	base = calls(n);
	link = attach(prog, sym, 1, ret);
	if (link < 0)
		return 1;
	with = calls(n);
	close(link);
	printf("BENCH %s %llu.%02llu ns/hit\n",
	       ret ? "kretmulti-hit" : "kmulti-hit",
	       (unsigned long long)(with - base) / n,
	       (unsigned long long)((with - base) % n) * 100 / n);
	return 0;
}

static int spin(int prog, long secs, int ret)
{
	const char *sym[] = { "__x64_sys_getpgid" };
	uint64_t end = now_ns() + secs * 1000000000ULL;
	int link = attach(prog, sym, 1, ret);

	if (link < 0)
		return 1;
	printf("wb-kmulti: spinning for %ld s\n", secs);
	while (now_ns() < end)
		calls(1000);
	close(link);
	return 0;
}

/* The address /proc/kallsyms gives @name, or 0. */
static uint64_t ksym_addr(const char *name)
{
	char line[512], sym[256], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "r");
	uint64_t found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name))
			found = addr;
	if (f)
		fclose(f);
	return found;
}

static int link_addrs(int link, uint64_t *addrs, uint64_t *cookies,
		      unsigned int n)
{
	struct bpf_link_info info;
	union bpf_attr a;

	memset(&info, 0, sizeof(info));
	info.kprobe_multi.addrs = (uintptr_t)addrs;
	info.kprobe_multi.cookies = (uintptr_t)cookies;
	info.kprobe_multi.count = n;
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = link;
	a.info.info_len = sizeof(info);
	a.info.info = (uintptr_t)&info;
	if (bpf(BPF_OBJ_GET_INFO_BY_FD, &a) || info.kprobe_multi.count != n) {
		printf("link info: %s, count %u\n", strerror(errno),
		       info.kprobe_multi.count);
		return -1;
	}
	return 0;
}

static int check_info(int prog)
{
	/* not in strcmp() order, and not in address order either */
	const char *names[] = {
		"__x64_sys_getppid", "__x64_sys_getpgid", "__x64_sys_getpid",
	};
	uint64_t cookies[] = { 30, 10, 20 }, want[3], got[3], gotc[3];
	unsigned int i, j, bad = 0;
	const char *sorted[3];
	union bpf_attr a;
	int link;

	/* without cookies: the names' strcmp() order */
	link = attach(prog, names, 3, 0);
	if (link < 0 || link_addrs(link, got, gotc, 3))
		return 1;
	close(link);
	memcpy(sorted, names, sizeof(sorted));
	qsort(sorted, 3, sizeof(*sorted), cmp_str);
	for (i = 0; i < 3; i++) {
		/* the link holds call sites: at most an ENDBR past the start */
		want[i] = ksym_addr(sorted[i]);
		printf("no cookies: %s want %llx got %llx cookie %llu\n",
		       sorted[i], (unsigned long long)want[i],
		       (unsigned long long)got[i], (unsigned long long)gotc[i]);
		bad += !want[i] || want[i] > got[i] || got[i] - want[i] > 16 ||
		       gotc[i];
	}

	/* with cookies: by address, each cookie beside its address */
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = prog;
	a.link_create.attach_type = BPF_TRACE_KPROBE_MULTI;
	a.link_create.kprobe_multi.syms = (uintptr_t)names;
	a.link_create.kprobe_multi.cookies = (uintptr_t)cookies;
	a.link_create.kprobe_multi.cnt = 3;
	link = bpf(BPF_LINK_CREATE, &a);
	if (link < 0 || link_addrs(link, got, gotc, 3)) {
		printf("cookie link: %s\n", strerror(errno));
		return 1;
	}
	close(link);
	for (i = 0; i < 3; i++) {
		uint64_t addr = 0, cookie = 0;

		for (j = 0; j < 3; j++) {
			uint64_t w = ksym_addr(names[j]);

			if (w <= got[i] && got[i] - w <= 16) {
				addr = w;
				cookie = cookies[j];
			}
		}
		printf("cookies: got %llx cookie %llu (want cookie %llu)\n",
		       (unsigned long long)got[i], (unsigned long long)gotc[i],
		       (unsigned long long)cookie);
		bad += !addr || gotc[i] != cookie || (i && got[i] <= got[i - 1]);
	}
	printf("%s\n", bad ? "FAIL" : "PASS");
	return bad ? 1 : 0;
}

/* One uprobe_multi link on the first @n offsets listed in @offs_path. */
static int bench_umulti(const char *path, const char *offs_path, long n)
{
	unsigned long long *offs;
	char name[128];
	uint64_t t0, t1, t2;
	int prog, link;
	FILE *f;
	long i;

	if (n <= 0)
		return 2;
	prog = load_prog_as(BPF_TRACE_UPROBE_MULTI);
	if (prog < 0)
		return 1;
	offs = calloc(n, sizeof(*offs));
	f = fopen(offs_path, "r");
	if (!offs || !f) {
		printf("BENCH-ERROR umulti: %s: %s\n", offs_path, strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (fscanf(f, "%127s %llx", name, &offs[i]) != 2) {
			printf("BENCH-ERROR umulti: only %ld offsets\n", i);
			return 1;
		}
	}
	fclose(f);

	t0 = now_ns();
	link = umulti_link(prog, path, offs, n);
	t1 = now_ns();
	if (link < 0)
		return 1;
	close(link);
	t2 = now_ns();
	printf("BENCH umulti-attach-%ld %llu us\n", n,
	       (unsigned long long)(t1 - t0) / 1000);
	printf("BENCH umulti-detach-%ld %llu us\n", n,
	       (unsigned long long)(t2 - t1) / 1000);
	return 0;
}

/* udrain: the functions probed, called by the worker threads */
#define UD_FUNCS 4
#define UD_CALLS 500

static volatile unsigned long ud_sink;

#define UD_FUNC(n) \
	__attribute__((noinline)) void ud_func##n(void) \
	{ \
		ud_sink += n; \
		__asm__ volatile("" ::: "memory"); \
	}
UD_FUNC(0)
UD_FUNC(1)
UD_FUNC(2)
UD_FUNC(3)

static void (*const ud_funcs[UD_FUNCS])(void) = {
	ud_func0, ud_func1, ud_func2, ud_func3,
};

/*
 * ud_mode 0: wait; 1: UD_CALLS calls of each function once per value of
 * ud_gen, then report; 2: call without pause; -1: leave.
 */
static atomic_int ud_mode, ud_gen, ud_done, ud_epoch, ud_parked;

/* Stop every worker's calls: when this returns, none is between calls. */
static void ud_park(long nth)
{
	atomic_store(&ud_parked, 0);
	atomic_store(&ud_mode, 0);
	atomic_fetch_add(&ud_epoch, 1);
	while (atomic_load(&ud_parked) < nth)
		sched_yield();
}

static void *ud_worker(void *arg)
{
	int done_gen = 0, parked_epoch = 0;

	(void)arg;
	for (;;) {
		int m = atomic_load(&ud_mode);
		int g = atomic_load(&ud_gen);
		int e = atomic_load(&ud_epoch);

		if (m < 0)
			return NULL;
		if (m == 0 && e != parked_epoch) {
			parked_epoch = e;
			atomic_fetch_add(&ud_parked, 1);
		} else if (m == 1 && g != done_gen) {
			for (int i = 0; i < UD_CALLS; i++)
				for (int f = 0; f < UD_FUNCS; f++)
					ud_funcs[f]();
			done_gen = g;
			atomic_fetch_add(&ud_done, 1);
		} else if (m == 2) {
			for (int f = 0; f < UD_FUNCS; f++)
				ud_funcs[f]();
		} else {
			sched_yield();
		}
	}
}

/* The offset in the executable's file of the code at @addr. */
static unsigned long long ud_file_offset(const void *addr)
{
	unsigned long long start, end, off;
	char line[512], perm[8];
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long a = (uintptr_t)addr, ret = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s %llx", &start, &end, perm, &off) != 4)
			continue;
		if (a >= start && a < end && strchr(perm, 'x')) {
			ret = a - start + off;
			break;
		}
	}
	if (f)
		fclose(f);
	return ret;
}

/*
 * Whether the first bytes of @fn in memory are the file's, and whether
 * its page is the file's page again (pagemap bit 61) and not a private
 * copy that a breakpoint left.
 */
static void ud_text_state(const void *fn, int *same, int *file_page)
{
	unsigned char mem[16], file[16];
	uint64_t ent = 0;
	int fd;

	*same = *file_page = 0;
	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0 || pread(fd, file, sizeof(file), ud_file_offset(fn)) != sizeof(file))
		return;
	close(fd);
	memcpy(mem, fn, sizeof(mem));
	*same = !memcmp(mem, file, sizeof(mem));
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0 || pread(fd, &ent, 8, (uintptr_t)fn / 4096 * 8) != 8)
		return;
	close(fd);
	*file_page = (ent >> 61) & 1;
}

static int ud_map_value(int map, uint64_t *val)
{
	union bpf_attr a;
	uint32_t key = 0;

	memset(&a, 0, sizeof(a));
	a.map_fd = map;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)val;
	return bpf(BPF_MAP_LOOKUP_ELEM, &a);
}

static int ud_map_zero(int map)
{
	union bpf_attr a;
	uint32_t key = 0;
	uint64_t val = 0;

	memset(&a, 0, sizeof(a));
	a.map_fd = map;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&val;
	return bpf(BPF_MAP_UPDATE_ELEM, &a);
}

/*
 * A uprobe_multi program that adds one to element 0 of @map.  With @uaddr,
 * it is sleepable and first copies 8 bytes from that user address, so a
 * hit sleeps while the page is missing under userfaultfd.
 */
static int ud_load(int map, uint64_t uaddr)
{
	struct bpf_insn insns[] = {
		/* r3 = uaddr (two slots); r1 = r10 - 8; r2 = 8 */
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = 3,
		  .imm = (int32_t)uaddr },
		{ .imm = (int32_t)(uaddr >> 32) },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 1, .src_reg = 10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = 1, .imm = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 2, .imm = 8 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_copy_from_user },
		/* the count: r1 = map (two slots) */
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = 1,
		  .src_reg = BPF_PSEUDO_MAP_FD, .imm = map },
		{ 0 },
		/* *(u32 *)(r10 - 16) = 0; r2 = r10 - 16 */
		{ .code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = 10, .off = -16 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 2, .src_reg = 10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = 2, .imm = -16 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem },
		/* if r0 == 0 goto out */
		{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = 0, .off = 2 },
		/* r1 = 1; lock *(u64 *)(r0 + 0) += r1 */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = 0,
		  .src_reg = 1, .imm = BPF_ADD },
		/* out: r0 = 0; exit */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	unsigned int skip = uaddr ? 0 : 6;

	return prog_load(insns + skip, sizeof(insns) / sizeof(insns[0]) - skip,
			 BPF_TRACE_UPROBE_MULTI, uaddr ? BPF_F_SLEEPABLE : 0);
}


/* The blocked round: a closer thread, and a hitter whose hit sleeps. */
static int ud_link, ud_map;
static atomic_int ud_closed;
static uint64_t ud_at_close;

static void *ud_closer(void *arg)
{
	(void)arg;
	close(ud_link);
	ud_map_value(ud_map, &ud_at_close);
	atomic_store(&ud_closed, 1);
	return NULL;
}

static void *ud_hitter(void *arg)
{
	(void)arg;
	ud_func0();
	return NULL;
}

/*
 * A hit that sleeps in its program (a userfaultfd page) while the link
 * is closed: when close() returns, the program must have finished, so
 * the count read right after close() is the final one.  Without a wait
 * for hits in progress, close() returns while the hit sleeps and the
 * count moves once the page is given.
 */
static int ud_blocked_round(int prog, int uffd, char *page, const char *path,
			    unsigned long long *offs, long r)
{
	struct uffdio_range range = { (uintptr_t)page, 4096 };
	struct uffdio_zeropage zp = { .range = range };
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;
	pthread_t closer, hitter;
	uint64_t final = 0;
	int closed_early, bad = 0;

	madvise(page, 4096, MADV_DONTNEED);
	ud_map_zero(ud_map);
	ud_link = umulti_link(prog, path, offs, UD_FUNCS);
	if (ud_link < 0)
		return 1;
	atomic_store(&ud_closed, 0);
	pthread_create(&hitter, NULL, ud_hitter, NULL);
	if (poll(&pfd, 1, 20000) != 1 || read(uffd, &msg, sizeof(msg)) != sizeof(msg)) {
		printf("udrain: blocked round %ld: the hit did not fault\n", r);
		bad = 1;
	}
	pthread_create(&closer, NULL, ud_closer, NULL);
	usleep(300000);
	closed_early = atomic_load(&ud_closed);
	if (ioctl(uffd, UFFDIO_ZEROPAGE, &zp))
		printf("udrain: UFFDIO_ZEROPAGE: %s\n", strerror(errno));
	pthread_join(closer, NULL);
	pthread_join(hitter, NULL);
	usleep(20000);
	ud_map_value(ud_map, &final);
	printf("udrain: blocked round %ld: close %s the sleeping hit; %llu at close, %llu after\n",
	       r, closed_early ? "returned before" : "waited for",
	       (unsigned long long)ud_at_close, (unsigned long long)final);
	if (final != 1 || ud_at_close != final)
		bad = 1;
	return bad;
}

static int udrain(long rounds)
{
	unsigned long long offs[UD_FUNCS];
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	char path[256], *page;
	pthread_t th[64];
	long nth = sysconf(_SC_NPROCESSORS_ONLN), r, bad = 0;
	union bpf_attr a;
	int prog, sprog, uffd, f;
	ssize_t len;

	if (nth < 1)
		nth = 1;
	if (nth > 64)
		nth = 64;
	len = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (len <= 0)
		return 1;
	path[len] = 0;
	for (f = 0; f < UD_FUNCS; f++) {
		offs[f] = ud_file_offset((const void *)ud_funcs[f]);
		if (!offs[f]) {
			printf("udrain: no offset for function %d\n", f);
			return 1;
		}
	}
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1;
	ud_map = bpf(BPF_MAP_CREATE, &a);
	if (ud_map < 0) {
		printf("udrain: map create: %s\n", strerror(errno));
		return 1;
	}
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (page == MAP_FAILED || uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		printf("udrain: userfaultfd: %s\n", strerror(errno));
		return 1;
	}
	reg.range.start = (uintptr_t)page;
	reg.range.len = 4096;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		printf("udrain: UFFDIO_REGISTER: %s\n", strerror(errno));
		return 1;
	}
	prog = ud_load(ud_map, 0);
	sprog = ud_load(ud_map, (uintptr_t)page);
	if (prog < 0 || sprog < 0)
		return 1;

	/* first the sleeping hits, with no worker threads calling */
	for (r = 0; r < 3; r++)
		bad += ud_blocked_round(sprog, uffd, page, path, offs, r);

	for (r = 0; r < nth; r++)
		pthread_create(&th[r], NULL, ud_worker, NULL);
	for (r = 0; r < rounds; r++) {
		uint64_t want = (uint64_t)nth * UD_CALLS * UD_FUNCS;
		uint64_t v0, v1, v2;
		int link;

		ud_park(nth);
		ud_map_zero(ud_map);
		link = umulti_link(prog, path, offs, UD_FUNCS);
		if (link < 0) {
			bad++;
			break;
		}
		/* every call made while attached is counted */
		atomic_store(&ud_done, 0);
		atomic_fetch_add(&ud_gen, 1);
		atomic_store(&ud_mode, 1);
		while (atomic_load(&ud_done) < nth)
			sched_yield();
		if (ud_map_value(ud_map, &v0) || v0 != want) {
			printf("udrain: round %ld: %llu hits, want %llu\n", r,
			       (unsigned long long)v0, (unsigned long long)want);
			bad++;
		}
		/* the threads call without pause while the link closes */
		atomic_store(&ud_mode, 2);
		usleep(2000);
		close(link);
		ud_map_value(ud_map, &v1);
		usleep(20000);
		ud_map_value(ud_map, &v2);
		if (v2 != v1 || v1 <= v0) {
			printf("udrain: round %ld: %llu hits at close, %llu after (%llu before the calls without pause)\n",
			       r, (unsigned long long)v1, (unsigned long long)v2,
			       (unsigned long long)v0);
			bad++;
		}
		/* the text is the file's again, in the file's own pages */
		for (f = 0; f < UD_FUNCS; f++) {
			int same, file_page;

			ud_text_state((const void *)ud_funcs[f], &same, &file_page);
			if (!same || !file_page) {
				printf("udrain: round %ld: function %d after close: %s, %s\n",
				       r, f, same ? "text restored" : "text differs from the file",
				       file_page ? "file page" : "private copy");
				bad++;
			}
		}
	}
	atomic_store(&ud_mode, -1);
	for (r = 0; r < nth; r++)
		pthread_join(th[r], NULL);
	printf("udrain: %ld rounds, %ld threads, %ld bad\n", rounds, nth, bad);
	printf("%s\n", bad ? "FAIL" : "PASS");
	return bad ? 1 : 0;
}

/*
 * uatomic: three functions and, between the second and the third, a site
 * the uprobes core refuses (a breakpoint instruction), in one block so
 * that their order in the file is fixed: the batch installs the first two
 * before it meets the refused site.
 */
#if defined(__x86_64__)
#define UA_TRAP "int3"
#elif defined(__aarch64__)
#define UA_TRAP "brk #0x5"
#endif
__asm__(".pushsection .text\n"
	".p2align 4\n.globl ua_f0\n.type ua_f0, @function\nua_f0:\n\tnop\n\tret\n"
	".p2align 4\n.globl ua_f1\n.type ua_f1, @function\nua_f1:\n\tnop\n\tret\n"
	".p2align 4\n.globl ua_trap\nua_trap:\n\t" UA_TRAP "\n\tret\n"
	".p2align 4\n.globl ua_f2\n.type ua_f2, @function\nua_f2:\n\tnop\n\tret\n"
	".popsection\n");
extern void ua_f0(void), ua_f1(void), ua_f2(void), ua_trap(void);

#define UA_FUNCS 3
static void (*const ua_funcs[UA_FUNCS])(void) = { ua_f0, ua_f1, ua_f2 };

static int ud_map_create(void)
{
	union bpf_attr a;
	int map;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1;
	map = bpf(BPF_MAP_CREATE, &a);
	if (map < 0)
		printf("map create: %s\n", strerror(errno));
	return map;
}

static int uatomic(void)
{
	unsigned long long offs[UA_FUNCS + 1], trap;
	int prog, map, link, f, bad = 0, below = 0;
	union bpf_attr a;
	char path[256];
	uint64_t v = 0;
	ssize_t len;

	len = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (len <= 0)
		return 1;
	path[len] = 0;
	trap = ud_file_offset((const void *)ua_trap);
	for (f = 0; f < UA_FUNCS; f++) {
		offs[f] = ud_file_offset((const void *)ua_funcs[f]);
		below += offs[f] < trap;
		if (!offs[f])
			trap = 0;
	}
	offs[UA_FUNCS] = trap;
	if (!trap || below != 2) {
		printf("uatomic: sites not found in their order (%d before the refused one)\n",
		       below);
		return 1;
	}
	map = ud_map_create();
	prog = map < 0 ? -1 : ud_load(map, 0);
	if (prog < 0)
		return 1;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = prog;
	a.link_create.attach_type = BPF_TRACE_UPROBE_MULTI;
	a.link_create.uprobe_multi.path = (uintptr_t)path;
	a.link_create.uprobe_multi.offsets = (uintptr_t)offs;
	a.link_create.uprobe_multi.cnt = UA_FUNCS + 1;
	link = bpf(BPF_LINK_CREATE, &a);
	if (link >= 0) {
		printf("uatomic: a link with a breakpoint site attached\n");
		close(link);
		bad++;
	} else if (errno != 524 /* ENOTSUPP */) {
		printf("uatomic: link with a breakpoint site: %s, want ENOTSUPP\n",
		       strerror(errno));
		bad++;
	}
	/* nothing of the failed link is left */
	for (f = 0; f < UA_FUNCS; f++)
		ua_funcs[f]();
	if (ud_map_value(map, &v) || v) {
		printf("uatomic: %llu calls counted after the failed attach\n",
		       (unsigned long long)v);
		bad++;
	}
	for (f = 0; f < UA_FUNCS; f++) {
		int same, file_page;

		ud_text_state((const void *)ua_funcs[f], &same, &file_page);
		if (!same || !file_page) {
			printf("uatomic: function %d after the failed attach: %s, %s\n",
			       f, same ? "text is the file's" : "text differs from the file",
			       file_page ? "file page" : "private copy");
			bad++;
		}
	}
	/* without the refused site the same link attaches and counts */
	link = umulti_link(prog, path, offs, UA_FUNCS);
	if (link < 0)
		return 1;
	for (f = 0; f < UA_FUNCS; f++)
		ua_funcs[f]();
	if (ud_map_value(map, &v) || v != UA_FUNCS) {
		printf("uatomic: %llu calls counted, want %d\n",
		       (unsigned long long)v, UA_FUNCS);
		bad++;
	}
	close(link);
	printf("uatomic: %s\n", bad ? "FAIL" : "PASS");
	return bad ? 1 : 0;
}

static unsigned long long *read_offsets(const char *offs_path, long n)
{
	unsigned long long *offs = calloc(n, sizeof(*offs));
	char name[128];
	FILE *f = fopen(offs_path, "r");
	long i;

	if (!offs || !f) {
		printf("%s: %s\n", offs_path, strerror(errno));
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (fscanf(f, "%127s %llx", name, &offs[i]) != 2) {
			printf("%s: only %ld offsets\n", offs_path, i);
			return NULL;
		}
	}
	fclose(f);
	return offs;
}

/* Wait up to 10 s for @dir/@name to exist (with @text in it, if given). */
static int uf_wait_file(const char *dir, const char *name, const char *text,
			char *buf, size_t size)
{
	char path[512];
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (i = 0; i < 1000; i++) {
		FILE *f = fopen(path, "r");
		size_t got = 0;

		if (f) {
			got = fread(buf, 1, size - 1, f);
			fclose(f);
			buf[got] = 0;
			if (!text || strstr(buf, text))
				return 0;
		}
		usleep(10000);
	}
	return -1;
}

static void uf_touch(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f)
		fclose(f);
}

static int ufork(const char *prog_path, const char *offs_path, long n)
{
	static const char *const storms[][2] = {
		{ "40", "1000" }, { "40", "700" }, { "400", "200" },
	};
	/* round 2 lets some children be forked first: many mms to walk */
	static const unsigned int settle_us[] = { 0, 0, 100000 };
	unsigned long long *offs = read_offsets(offs_path, n);
	int prog, map, link, r, bad = 0, status;
	char dir[64], out[512], buf[256];
	uint64_t v;
	long kids;
	pid_t pid;

	if (!offs || n <= 0)
		return 1;
	map = ud_map_create();
	prog = map < 0 ? -1 : ud_load(map, 0);
	if (prog < 0)
		return 1;
	for (r = 0; r < 3; r++) {
		snprintf(dir, sizeof(dir), "/tmp/ufork.%d", r);
		mkdir(dir, 0700);
		snprintf(out, sizeof(out), "%s/out", dir);
		pid = fork();
		if (pid < 0)
			return 1;
		if (!pid) {
			if (!freopen(out, "w", stdout))
				_exit(1);
			execl(prog_path, "wb-ufuncs", "forks", dir, storms[r][0],
			      storms[r][1], (char *)NULL);
			_exit(1);
		}
		if (uf_wait_file(dir, "out", "ready", buf, sizeof(buf))) {
			printf("ufork: round %d: %s did not start forking\n", r, prog_path);
			kill(pid, 9);
			return 1;
		}
		ud_map_zero(map);
		usleep(settle_us[r]);
		link = umulti_link(prog, prog_path, offs, n);
		uf_touch(dir, "stop");
		if (uf_wait_file(dir, "count", NULL, buf, sizeof(buf))) {
			printf("ufork: round %d: no count of children\n", r);
			kill(pid, 9);
			return 1;
		}
		kids = atol(buf);
		uf_touch(dir, "go");
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			printf("ufork: round %d: a child of %s failed\n", r, prog_path);
			bad++;
		}
		if (link < 0)
			return 1;
		v = 0;
		ud_map_value(map, &v);
		printf("ufork: round %d: %ld children, %llu of %llu calls counted\n",
		       r, kids, (unsigned long long)v,
		       (unsigned long long)kids * n);
		if (kids < 2 || v != (uint64_t)kids * n)
			bad++;
		close(link);
	}
	printf("%s\n", bad ? "FAIL" : "PASS");
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	int prog;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "umulti") && argc > 4)
		return bench_umulti(argv[2], argv[3], atol(argv[4]));
	if (!strcmp(argv[1], "uatomic"))
		return uatomic();
	if (!strcmp(argv[1], "ufork") && argc > 4)
		return ufork(argv[2], argv[3], atol(argv[4]));
	if (!strcmp(argv[1], "udrain") && argc > 2)
		return udrain(atol(argv[2]));
	prog = load_prog();
	if (prog < 0)
		return 1;
	if (!strcmp(argv[1], "all"))
		return bench_all(prog);
	if (!strcmp(argv[1], "hit") && argc > 2)
		return bench_hit(prog, atol(argv[2]), argc > 3);
	if (!strcmp(argv[1], "spin") && argc > 2)
		return spin(prog, atol(argv[2]), argc > 3);
	if (!strcmp(argv[1], "info"))
		return check_info(prog);
	return 2;
}
