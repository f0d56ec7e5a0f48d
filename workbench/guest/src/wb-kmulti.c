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
#include <fnmatch.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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

static int load_prog_as(int attach_type)
{
	/* r0 = 0; exit */
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static char log[4096];
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_KPROBE;
	a.expected_attach_type = attach_type;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = 2;
	a.license = (uintptr_t)"GPL";
	a.log_buf = (uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	fd = bpf(BPF_PROG_LOAD, &a);
	if (fd < 0)
		printf("BENCH-ERROR kmulti: prog load: %s %s\n", strerror(errno), log);
	return fd;
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
	union bpf_attr a;
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

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = prog;
	a.link_create.attach_type = BPF_TRACE_UPROBE_MULTI;
	a.link_create.uprobe_multi.path = (uintptr_t)path;
	a.link_create.uprobe_multi.offsets = (uintptr_t)offs;
	a.link_create.uprobe_multi.cnt = n;
	t0 = now_ns();
	link = bpf(BPF_LINK_CREATE, &a);
	t1 = now_ns();
	if (link < 0) {
		printf("BENCH-ERROR umulti: link create (%ld offsets): %s\n",
		       n, strerror(errno));
		return 1;
	}
	close(link);
	t2 = now_ns();
	printf("BENCH umulti-attach-%ld %llu us\n", n,
	       (unsigned long long)(t1 - t0) / 1000);
	printf("BENCH umulti-detach-%ld %llu us\n", n,
	       (unsigned long long)(t2 - t1) / 1000);
	return 0;
}

int main(int argc, char **argv)
{
	int prog;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "umulti") && argc > 4)
		return bench_umulti(argv[2], argv[3], atol(argv[4]));
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
