// SPDX-License-Identifier: GPL-2.0
/*
 * wb-nop5-fuzz: a seeded fuzzer of x86-64 uprobes on 5-byte NOP sites.
 *
 * usage:
 *   wb-nop5-fuzz --offsets
 *        "NAME 0xFILEOFFSET SYMBOL" of each probe site: a and b (5-byte
 *        NOPs, "nopl 0x0(%rax,%rax,1)") and e (a function whose first
 *        instruction is "sub $0x18,%rsp", a site the kernel emulates)
 *   wb-nop5-fuzz [--off] SEED OPS [PROFILE GROUP]
 *        OPS seeded operations on mappings of the sites.  PROFILE is
 *        uprobe_profile and GROUP/a, GROUP/b, GROUP/e are uprobe events on
 *        the three sites (PROG:OFFSET, see --offsets), found in PROFILE by
 *        their names (a, b, e) and the program's file name.  The events
 *        are enabled: every call of a site in a private mapping of this
 *        program, by it or its children, must be exactly one hit, and a
 *        site in such a mapping must not read as the plain instruction.
 *        With --off they are defined but disabled: no hit, every site the
 *        plain instruction, no trampoline page.  Without PROFILE the hits
 *        are not checked and a site may be in any of its valid states.
 *   wb-nop5-fuzz --child-run N [MODE [SEED OP]]   (internal: the exec
 *        operation's process: N calls of each site)
 *   wb-nop5-fuzz --worker ...           (internal: the fuzzing process)
 *
 * The sites live in a two-page region of the program's text that holds
 * nothing else (site a and the function of site e on the first page, site
 * b on the second), so the region's pages can be mapped again from the
 * program file, moved, split, dropped, unmapped and replaced without
 * touching the rest of the program.  The program's own copy of the region
 * is one of the mappings the fuzzer works on, like any other.
 *
 * Run as root, the program writes a victim file, /tmp/wb-nop5-fuzz-victim
 * (mode 0644, owned by root; two pages of the region's bytes, then two
 * pages of a pattern), opens it and PROFILE read-only, then runs the
 * fuzzing process as uid/gid 65534 with address space randomization off
 * (so that a seed replays the same run) and waits for it, with a time
 * limit.  After it, the victim file and the region's bytes in the program
 * file must read as they did before, and the victim file is removed.
 *
 * The operations (each picked by a xorshift64* generator from SEED):
 *   call      a site of a mapping, 1..32 times
 *   map       a new private copy of one or both region pages: where the
 *             kernel likes, near another mapping, far away, back at the
 *             region's own place, or over (part of) another mapping
 *   shmap     a shared copy (no breakpoints there: never counted)
 *   unmap     (part of) a mapping; a victim mapping may take its place
 *   mremap    (part of) a mapping to a random place, near or far
 *   shrink    a two-page mapping to its first page, in place
 *   dontneed  MADV_DONTNEED on (part of) a mapping: a copy's sites are
 *             then the file's plain instructions, called without a hit,
 *             and the pages are unmapped
 *   tramp-dontneed   MADV_DONTNEED on the [uprobes-nop5] pages: dropped
 *             (the fault brings the page back) or refused with EPERM
 *             (the pages are sealed)
 *   tramp-attack     munmap, mremap, mprotect, MAP_FIXED over, the other
 *             discarding madvise calls (MADV_DONTFORK, MADV_FREE,
 *             MADV_REMOVE, MADV_WIPEONFORK) or /proc/self/mem on a
 *             trampoline page: each must fail (EPERM; EACCES for write
 *             access; EINVAL for the madvise calls too)
 *   mprotect  a page of a copy made non-executable, or executable again;
 *             write access to the shared victim mapping (must fail)
 *   fork      a child that runs operations of its own (or, with a thread
 *             running, only calls the sites); its hits count too
 *   exec      "PROG --child-run N": the sites of a fresh process, N times
 *   thread    start (or stop) a thread that calls the sites of one
 *             mapping, which no operation touches while it runs
 *   poke      bytes written through /proc/self/mem: at a site of a copy
 *             (which is then unmapped), into a private victim mapping, or
 *             into a shared mapping of a file (must fail)
 *   peek      a site's bytes read through /proc/self/mem
 *   replace   a mapping's range replaced by MAP_SHARED|MAP_ANONYMOUS
 *             memory, filled with the old bytes (jumps included) or a
 *             pattern; the kernel must not write there
 *   victim    a new read-only mapping of the victim file
 *   rogue     system call 336 from the program's text or from a page of
 *             its own that looks like a trampoline: SIGILL; where the
 *             process never had an [uprobes-nop5] page, ENOSYS (no such
 *             call, 6.12) or ENXIO (upstream's call) will do too
 *
 * After every operation: the hits of each event grew by exactly the calls
 * made since the start (a running thread's calls bounded), each site of
 * each mapping reads as the plain instruction, its breakpoint ("cc" then
 * the rest of the instruction) or, for a 5-byte NOP, "jmp rel32" to a
 * slot of one of the process's [uprobes-nop5] pages that names the site,
 * and every other mapping holds what was put there.  Every 1000
 * operations and at the end, the victim file and the program file are
 * read back.  A progress line every 1000 operations
 * ("wb-nop5-fuzz: K/OPS ops, seed S"); the first broken check ends the run
 * with
 *   wb-nop5-fuzz: FAIL at op K (seed S): [CHILD: ]OP: WHAT
 * (a crash too: the signal and where) and exit status 1; else a line of
 * counts per operation, then "wb-nop5-fuzz: OPS ops, 0 failures, HITS
 * hits" (HITS: the hits checked, 0 without PROFILE) and exit status 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef __x86_64__
int main(void)
{
	fprintf(stderr, "wb-nop5-fuzz: x86-64 only\n");
	return 2;
}
#else

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif

#define PG		4096UL
#define REGION_PAGES	2
#define VICTIM		"/tmp/wb-nop5-fuzz-victim"
#define VICTIM_PAGES	4
#define NOBODY		65534
#define NR_UPROBE	336
#define SLOT_SIZE	32
#define SLOT_SITE	24	/* offset in a slot of its site's address */
#define MAXMAP		40
#define MAXTRAMP	256
#define FD_VICTIM	10
#define FD_PROFILE	11
#define CHILD_TIMEOUT	120
#define THREAD_ROUNDS	2000

/*
 * The region: two pages of text that hold the sites and nothing else.
 *
 * wb_nop5_fuzz_a(i), wb_nop5_fuzz_b(i): at the site %rax, %rcx, %r11,
 * %rdx and %r9 hold i + 1..5, the red zone word below the stack pointer
 * holds i and the carry flag is set (a) or clear (b); each returns 0 if
 * all of them are as they were after the site, non-zero if not.
 *
 * wb_nop5_fuzz_e(i): its first instruction, "sub $0x18,%rsp", is the site;
 * returns 0 if the flags it left are those of the same subtraction done
 * again, and the stack is usable.
 */
asm(".pushsection .text.wb_nop5_fuzz, \"ax\", @progbits\n\t"
    ".balign 4096\n"
    ".globl wb_nop5_fuzz_region\n"
    "wb_nop5_fuzz_region:\n\t"
    ".org 0x100, 0xcc\n\t"
    ".globl wb_nop5_fuzz_a\n\t.type wb_nop5_fuzz_a, @function\n"
    "wb_nop5_fuzz_a:\n\t"
    "movq %rdi, -8(%rsp)\n\t"
    "leaq 1(%rdi), %rax\n\t"
    "leaq 2(%rdi), %rcx\n\t"
    "leaq 3(%rdi), %r11\n\t"
    "leaq 4(%rdi), %rdx\n\t"
    "leaq 5(%rdi), %r9\n\t"
    "stc\n\t"
    ".globl wb_nop5_fuzz_site_a\n\t.type wb_nop5_fuzz_site_a, @function\n"
    "wb_nop5_fuzz_site_a:\n\t"
    ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"
    ".size wb_nop5_fuzz_site_a, 5\n\t"
    "sbbq %r8, %r8\n\t"
    "notq %r8\n\t"
    "subq %rdi, %rax\n\tsubq $1, %rax\n\torq %rax, %r8\n\t"
    "subq %rdi, %rcx\n\tsubq $2, %rcx\n\torq %rcx, %r8\n\t"
    "subq %rdi, %r11\n\tsubq $3, %r11\n\torq %r11, %r8\n\t"
    "subq %rdi, %rdx\n\tsubq $4, %rdx\n\torq %rdx, %r8\n\t"
    "subq %rdi, %r9\n\tsubq $5, %r9\n\torq %r9, %r8\n\t"
    "movq -8(%rsp), %rax\n\tsubq %rdi, %rax\n\torq %rax, %r8\n\t"
    "movq %r8, %rax\n\t"
    "ret\n\t"
    ".size wb_nop5_fuzz_a, . - wb_nop5_fuzz_a\n\t"
    ".org 0x800, 0xcc\n\t"
    ".globl wb_nop5_fuzz_e\n\t.type wb_nop5_fuzz_e, @function\n"
    "wb_nop5_fuzz_e:\n\t"
    ".byte 0x48, 0x83, 0xec, 0x18\n\t"	/* sub $0x18,%rsp */
    "pushfq\n\t"
    "popq %rcx\n\t"
    "leaq 0x18(%rsp), %rdx\n\t"
    "subq $0x18, %rdx\n\t"
    "pushfq\n\t"
    "popq %r8\n\t"
    "xorq %r8, %rcx\n\t"
    "andq $0x8d5, %rcx\n\t"		/* CF PF AF ZF SF OF */
    "movq %rdi, (%rsp)\n\t"
    "movq (%rsp), %rax\n\t"
    "subq %rdi, %rax\n\t"
    "orq %rcx, %rax\n\t"
    "addq $0x18, %rsp\n\t"
    "ret\n\t"
    ".size wb_nop5_fuzz_e, . - wb_nop5_fuzz_e\n\t"
    ".org 0x1040, 0xcc\n\t"
    ".globl wb_nop5_fuzz_b\n\t.type wb_nop5_fuzz_b, @function\n"
    "wb_nop5_fuzz_b:\n\t"
    "movq %rdi, -8(%rsp)\n\t"
    "leaq 1(%rdi), %rax\n\t"
    "leaq 2(%rdi), %rcx\n\t"
    "leaq 3(%rdi), %r11\n\t"
    "leaq 4(%rdi), %rdx\n\t"
    "leaq 5(%rdi), %r9\n\t"
    "clc\n\t"
    ".globl wb_nop5_fuzz_site_b\n\t.type wb_nop5_fuzz_site_b, @function\n"
    "wb_nop5_fuzz_site_b:\n\t"
    ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"
    ".size wb_nop5_fuzz_site_b, 5\n\t"
    "sbbq %r8, %r8\n\t"
    "subq %rdi, %rax\n\tsubq $1, %rax\n\torq %rax, %r8\n\t"
    "subq %rdi, %rcx\n\tsubq $2, %rcx\n\torq %rcx, %r8\n\t"
    "subq %rdi, %r11\n\tsubq $3, %r11\n\torq %r11, %r8\n\t"
    "subq %rdi, %rdx\n\tsubq $4, %rdx\n\torq %rdx, %r8\n\t"
    "subq %rdi, %r9\n\tsubq $5, %r9\n\torq %r9, %r8\n\t"
    "movq -8(%rsp), %rax\n\tsubq %rdi, %rax\n\torq %rax, %r8\n\t"
    "movq %r8, %rax\n\t"
    "ret\n\t"
    ".size wb_nop5_fuzz_b, . - wb_nop5_fuzz_b\n\t"
    ".org 0x2000, 0xcc\n"
    ".globl wb_nop5_fuzz_region_end\n"
    "wb_nop5_fuzz_region_end:\n\t"
    ".popsection");

extern const unsigned char wb_nop5_fuzz_region[], wb_nop5_fuzz_region_end[];
extern const unsigned char wb_nop5_fuzz_site_a[], wb_nop5_fuzz_site_b[];
long wb_nop5_fuzz_a(long i);
long wb_nop5_fuzz_b(long i);
long wb_nop5_fuzz_e(long i);

enum { S_A, S_B, S_E, NSITE };

struct site {
	const char *name;		/* the event's name */
	const char *sym;
	const unsigned char *at;	/* the site in the program's text */
	long (*fn)(long);		/* the function that holds it */
	unsigned char insn[5];		/* the probed instruction */
	unsigned int len;		/* its length */
	int nop5;			/* a 5-byte NOP site */
	unsigned long off, fn_off;	/* from the start of the region */
};

static struct site sites[NSITE] = {
	[S_A] = { "a", "wb_nop5_fuzz_site_a", wb_nop5_fuzz_site_a,
		  wb_nop5_fuzz_a, { 0x0f, 0x1f, 0x44, 0x00, 0x00 }, 5, 1 },
	[S_B] = { "b", "wb_nop5_fuzz_site_b", wb_nop5_fuzz_site_b,
		  wb_nop5_fuzz_b, { 0x0f, 0x1f, 0x44, 0x00, 0x00 }, 5, 1 },
	[S_E] = { "e", "wb_nop5_fuzz_e", (const unsigned char *)wb_nop5_fuzz_e,
		  wb_nop5_fuzz_e, { 0x48, 0x83, 0xec, 0x18 }, 4, 0 },
};

/* What the probes are known to be. */
enum { MODE_ANY, MODE_ON, MODE_OFF };
static const char *const mode_names[] = { "any", "on", "off" };

/*
 * The mappings the fuzzer owns.  A text mapping maps pages pg.. of the
 * region from the program file, privately (K_TEXT: breakpoints go there,
 * its calls count) or shared (K_SHTEXT: never); the others map pages pg..
 * of the victim file privately or shared, or shared anonymous memory, and
 * hold @data.
 */
enum { K_TEXT, K_SHTEXT, K_VPRIV, K_VSHARED, K_ANON };
static const char *const kind_names[] = {
	"copy", "shared copy", "private victim", "shared victim", "shared anon",
};

struct map {
	int used;
	int kind;
	int pinned;		/* a thread calls its sites: left alone */
	unsigned long addr;
	unsigned int npg;
	unsigned int pg;
	unsigned int noexec;	/* text: pages made PROT_READ, by bit */
	unsigned char *data;	/* others: what it must hold */
};

/* Filled by a fork()'s child for its parent: its hits added in. */
struct shared {
	unsigned long expect[NSITE];
};

static struct map maps[MAXMAP];
static unsigned long region;		/* the region in the program's text */
static off_t region_off;		/* ... and in the program file */
static unsigned char region_file[REGION_PAGES * PG];
static unsigned char victim_data[VICTIM_PAGES * PG];
static char exe_path[PATH_MAX];
static const char *exe_base;
static int exe_fd = -1, victim_fd = -1, prof_fd = -1;
static int mode = MODE_ANY;
static unsigned long seed, nops, op_no;
static const char *op_name = "setup";
static char who[48];			/* "fork child op J: ", ... */
static int seen_tramp;			/* the kernel made a trampoline page */
static unsigned long expect[NSITE];	/* hits this run must have made */
static unsigned long prof0[NSITE];	/* PROFILE's hits at the start */
static struct shared *shared;
static uint64_t rng;

static unsigned long tramp_lo[MAXTRAMP], tramp_hi[MAXTRAMP];
static int ntramp, max_tramp;

/* the thread, if one runs */
static struct {
	int running;
	int map;
	pthread_t tid;
	int stop;			/* __atomic */
	unsigned long done[NSITE];	/* __atomic: calls that returned */
	long bad;
} thr;

/* ---- reporting ---- */

static void __attribute__((noreturn, format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	printf("wb-nop5-fuzz: FAIL at op %lu (seed %lu): %s%s: ", op_no, seed,
	       who, op_name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	_exit(1);
}

/* Append @s, or @v in base @base, to @p; for the signal handler. */
static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static char *put_num(char *p, unsigned long v, unsigned int base)
{
	char tmp[24];
	int n = 0;

	if (base == 16)
		p = put_str(p, "0x");
	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static void fatal_signal(int sig, siginfo_t *si, void *uc)
{
	ucontext_t *ctx = uc;
	char buf[256], *p = buf;

	p = put_str(p, "wb-nop5-fuzz: FAIL at op ");
	p = put_num(p, op_no, 10);
	p = put_str(p, " (seed ");
	p = put_num(p, seed, 10);
	p = put_str(p, "): ");
	p = put_str(p, who);
	p = put_str(p, op_name);
	p = put_str(p, ": signal ");
	p = put_num(p, sig, 10);
	p = put_str(p, " at ");
	p = put_num(p, (unsigned long)si->si_addr, 16);
	p = put_str(p, ", ip ");
	p = put_num(p, ctx->uc_mcontext.gregs[REG_RIP], 16);
	p = put_str(p, "\n");
	if (write(1, buf, p - buf) < 0)
		_exit(1);
	_exit(1);
}

static void nothing(int sig __attribute__((unused)))
{
}

static void catch_signals(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE };
	static char altstack[65536];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa = { 0 };
	unsigned int i;

	sigaltstack(&ss, NULL);
	sa.sa_sigaction = fatal_signal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	/* SIGALRM only interrupts a wait */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nothing;
	sigaction(SIGALRM, &sa, NULL);
}

/* For a child: the default action for every signal we catch. */
static void default_signals(void)
{
	static const int sigs[] = {
		SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGALRM,
	};
	unsigned int i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
}

/* ---- random numbers ---- */

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static unsigned long rn(unsigned long n)
{
	return n ? rnd() % n : 0;
}

static void rng_seed(uint64_t s)
{
	int i;

	rng = s ^ 0x9e3779b97f4a7c15ULL;
	if (!rng)
		rng = 1;
	for (i = 0; i < 8; i++)
		rnd();
}

/* ---- the program, its region and the victim file ---- */

static int full_pread(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done, off + done);
		if (n <= 0)
			return -1;
		done += n;
	}
	return 0;
}

/* Where the region is, in the text and in the file; 0 or -1. */
static int setup_region(void)
{
	unsigned long lo, hi, pgoff;
	char line[512], perm[8];
	ssize_t n;
	FILE *f;
	int s;

	region = (unsigned long)wb_nop5_fuzz_region;
	if (region & (PG - 1) ||
	    (unsigned long)wb_nop5_fuzz_region_end != region + REGION_PAGES * PG ||
	    sysconf(_SC_PAGESIZE) != (long)PG) {
		fprintf(stderr, "wb-nop5-fuzz: the region is not two whole pages\n");
		return -1;
	}
	for (s = 0; s < NSITE; s++) {
		sites[s].off = (unsigned long)sites[s].at - region;
		sites[s].fn_off = (unsigned long)sites[s].fn - region;
		if (sites[s].off / PG != sites[s].fn_off / PG ||
		    sites[s].off % PG > PG - 5) {
			fprintf(stderr, "wb-nop5-fuzz: site %s is not as built\n",
				sites[s].name);
			return -1;
		}
	}
	n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	if (n <= 0)
		return -1;
	exe_path[n] = 0;
	exe_base = strrchr(exe_path, '/') ? strrchr(exe_path, '/') + 1 : exe_path;
	region_off = -1;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perm, &pgoff) == 4 &&
		    region >= lo && region < hi)
			region_off = (off_t)(region - lo + pgoff);
	}
	fclose(f);
	if (region_off < 0) {
		fprintf(stderr, "wb-nop5-fuzz: the region is not in /proc/self/maps\n");
		return -1;
	}
	exe_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (exe_fd < 0 ||
	    full_pread(exe_fd, region_file, sizeof(region_file), region_off)) {
		perror("wb-nop5-fuzz: /proc/self/exe");
		return -1;
	}
	for (s = 0; s < NSITE; s++) {
		if (memcmp(region_file + sites[s].off, sites[s].insn,
			   sites[s].len)) {
			fprintf(stderr, "wb-nop5-fuzz: site %s is not in the file\n",
				sites[s].name);
			return -1;
		}
	}
	return 0;
}

/* The victim file's contents: the region's bytes, then a pattern. */
static void victim_fill(void)
{
	unsigned long i, x = 0x5eedf00dUL;

	memcpy(victim_data, region_file, sizeof(region_file));
	for (i = sizeof(region_file); i < sizeof(victim_data); i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		victim_data[i] = x >> 56;
	}
}

static const char *files_changed(void)
{
	static unsigned char buf[VICTIM_PAGES * PG + 1];
	ssize_t n;

	if (victim_fd >= 0) {
		if (lseek(victim_fd, 0, SEEK_SET) != 0)
			return "cannot seek in the victim file";
		/* one byte more than it has: it must not have grown */
		n = read(victim_fd, buf, sizeof(buf));
		if (n != (ssize_t)sizeof(victim_data) ||
		    memcmp(buf, victim_data, sizeof(victim_data)))
			return "the victim file " VICTIM " changed";
	}
	if (full_pread(exe_fd, buf, sizeof(region_file), region_off) ||
	    memcmp(buf, region_file, sizeof(region_file)))
		return "the program file changed";
	return NULL;
}

/*
 * All of @fd, from where it is, into *@buf (grown as needed, kept between
 * calls, NUL-terminated); @what names it in a failure.
 */
static void read_whole(int fd, char **buf, size_t *size, const char *what)
{
	size_t len = 0;
	ssize_t n;

	for (;;) {
		if (len + 4096 > *size) {
			*size = *size ? 2 * *size : 65536;
			*buf = realloc(*buf, *size + 1);
			if (!*buf)
				fail("out of memory");
		}
		n = read(fd, *buf + len, *size - len);
		if (n < 0)
			fail("cannot read %s: %s", what, strerror(errno));
		if (!n)
			break;
		len += n;
	}
	(*buf)[len] = 0;
}

/* ---- uprobe_profile ---- */

/* The hits of the three events; fails if one is missing. */
static void read_profile(unsigned long *hits)
{
	static char *buf;
	static size_t size;
	char path[PATH_MAX], name[256], *line, *nl;
	unsigned long h;
	int found[NSITE] = { 0 }, s;

	if (lseek(prof_fd, 0, SEEK_SET) != 0)
		fail("cannot seek in PROFILE: %s", strerror(errno));
	read_whole(prof_fd, &buf, &size, "PROFILE");
	for (line = buf; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		if (sscanf(line, "%4095s %255s %lu", path, name, &h) != 3)
			continue;
		if (strcmp(strrchr(path, '/') ? strrchr(path, '/') + 1 : path,
			   exe_base))
			continue;
		for (s = 0; s < NSITE; s++) {
			if (!strcmp(name, sites[s].name)) {
				hits[s] = h;
				found[s]++;
			}
		}
	}
	for (s = 0; s < NSITE; s++) {
		if (found[s] != 1)
			fail("PROFILE has %d rows for event %s on %s, not 1",
			     found[s], sites[s].name, exe_base);
	}
}

/* ---- the trampoline pages ---- */

static void load_tramps(void)
{
	static char *buf;
	static size_t size;
	unsigned long lo, hi;
	char *line, *nl;
	int fd;

	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail("cannot open /proc/self/maps: %s", strerror(errno));
	read_whole(fd, &buf, &size, "/proc/self/maps");
	close(fd);
	ntramp = 0;
	for (line = buf; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		if (!strstr(line, "[uprobes-nop5]"))
			continue;
		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2 || ntramp == MAXTRAMP)
			fail("odd trampoline line in /proc/self/maps: %s", line);
		tramp_lo[ntramp] = lo;
		tramp_hi[ntramp++] = hi;
	}
	if (ntramp) {
		seen_tramp = 1;
		if (mode == MODE_OFF)
			fail("a trampoline page with the probes disabled: %#lx",
			     tramp_lo[0]);
	}
	if (ntramp > max_tramp)
		max_tramp = ntramp;
}

static int in_tramp_cached(unsigned long addr, unsigned long len)
{
	int i;

	for (i = 0; i < ntramp; i++) {
		if (addr >= tramp_lo[i] && addr + len <= tramp_hi[i])
			return 1;
	}
	return 0;
}

/*
 * Is [@addr, @addr + @len) in a trampoline page?  The list is read again
 * only when it does not have the range: the pages are sealed, so the
 * list only grows (and a page that went anyway faults when jumped to).
 */
static int in_tramp(unsigned long addr, unsigned long len)
{
	if (in_tramp_cached(addr, len))
		return 1;
	load_tramps();
	return in_tramp_cached(addr, len);
}

/* A used slot of some trampoline page, or 0. */
static unsigned long used_slot(void)
{
	unsigned long slot;
	int i;

	for (i = 0; i < ntramp; i++) {
		for (slot = tramp_lo[i]; slot < tramp_hi[i]; slot += SLOT_SIZE) {
			if (*(volatile unsigned long *)(slot + SLOT_SITE))
				return slot;
		}
	}
	return 0;
}

/* ---- sites in mappings ---- */

static int is_text(const struct map *m)
{
	return m->kind == K_TEXT || m->kind == K_SHTEXT;
}

/* Where site @s is in @m, or 0. */
static unsigned long site_in(const struct map *m, int s)
{
	unsigned long page = sites[s].off / PG;

	if (!m->used || !is_text(m) || page < m->pg || page >= m->pg + m->npg)
		return 0;
	return m->addr + sites[s].off - m->pg * PG;
}

static int site_exec(const struct map *m, int s)
{
	return !(m->noexec & (1U << (sites[s].off / PG - m->pg)));
}

static long (*site_fn(const struct map *m, int s))(long)
{
	return (long (*)(long))(m->addr + sites[s].fn_off - m->pg * PG);
}

/* The bytes at a site, the first one first (it is written last). */
static void site_read(unsigned long at, unsigned char *b)
{
	volatile const unsigned char *p = (const unsigned char *)at;
	unsigned int i;

	for (i = 0; i < 5; i++)
		b[i] = p[i];
}

enum { B_PLAIN, B_BP, B_JMP, B_HALF, B_BAD };

/* Does rel32 @b + 1 of the site at @at name a slot that serves it? */
static const char *jmp_check(unsigned long at, const unsigned char *b)
{
	int32_t rel;
	unsigned long to;

	memcpy(&rel, b + 1, 4);
	to = at + 5 + (long)rel;
	if (!in_tramp(to, SLOT_SIZE))
		return "a jump out of the trampoline pages";
	if (to % SLOT_SIZE)
		return "a jump into the middle of a slot";
	if (*(volatile unsigned long *)(to + SLOT_SITE) != at)
		return "a jump to a slot of another site";
	return NULL;
}

/* What bytes @b at site @s (at @at) are; *@why says what is wrong. */
static int bytes_state(int s, unsigned long at, const unsigned char *b,
		       const char **why)
{
	const struct site *st = &sites[s];

	*why = NULL;
	if (!memcmp(b, st->insn, st->len))
		return B_PLAIN;
	if (b[0] == 0xcc && !memcmp(b + 1, st->insn + 1, st->len - 1))
		return B_BP;
	if (st->nop5 && (b[0] == 0xe9 || b[0] == 0xcc)) {
		*why = jmp_check(at, b);
		if (!*why)
			return b[0] == 0xe9 ? B_JMP : B_HALF;
	}
	return B_BAD;
}

static int site_state(int s, unsigned long at, const char **why)
{
	unsigned char b[5];

	site_read(at, b);
	return bytes_state(s, at, b, why);
}

static void bytes_fail(const struct map *m, int s, unsigned long at,
		       const char *what)
{
	unsigned char b[5];

	site_read(at, b);
	fail("site %s of a %s at %#lx (page %lu of %u at %#lx): "
	     "%02x %02x %02x %02x %02x: %s", sites[s].name, kind_names[m->kind],
	     at, sites[s].off / PG - m->pg, m->npg, m->addr,
	     b[0], b[1], b[2], b[3], b[4], what);
}

/* Site @s of @m reads as it may. */
static void check_site(const struct map *m, int s)
{
	unsigned long at = site_in(m, s);
	const char *why;
	int st;

	if (!at)
		return;
	st = site_state(s, at, &why);
	if (st == B_BAD)
		bytes_fail(m, s, at, why ? why : "neither the instruction, "
			   "its breakpoint nor a jump to a slot");
	if (m->kind == K_SHTEXT || mode == MODE_OFF) {
		if (st != B_PLAIN)
			bytes_fail(m, s, at, m->kind == K_SHTEXT ?
				   "changed in a shared mapping of the file" :
				   "not the plain instruction, probes disabled");
		return;
	}
	/* a jump may be half written while the thread takes it */
	if (st == B_HALF && !m->pinned)
		bytes_fail(m, s, at, "a breakpoint with a jump's offset");
	if (mode == MODE_ON && st == B_PLAIN)
		bytes_fail(m, s, at, "no breakpoint, probes enabled");
}

/* ---- the checks after each operation ---- */

static unsigned long thread_done(int s)
{
	return __atomic_load_n(&thr.done[s], __ATOMIC_ACQUIRE);
}

static void check_counts(void)
{
	unsigned long hits[NSITE], t0[NSITE], t1[NSITE], got;
	int s;

	if (prof_fd < 0)
		return;
	for (s = 0; s < NSITE; s++)
		t0[s] = thr.running ? thread_done(s) : 0;
	read_profile(hits);
	for (s = 0; s < NSITE; s++)
		t1[s] = thr.running ? thread_done(s) : 0;
	for (s = 0; s < NSITE; s++) {
		got = hits[s] - prof0[s];
		if (mode == MODE_OFF || !thr.running ||
		    maps[thr.map].kind != K_TEXT || !site_in(&maps[thr.map], s)) {
			if (got != expect[s])
				fail("event %s: %lu hits, expected %lu", sites[s].name,
				     got, expect[s]);
			continue;
		}
		/* each call of the thread is a hit before it returns */
		if (got < expect[s] + t0[s] || got > expect[s] + t1[s] + 1)
			fail("event %s: %lu hits, expected %lu..%lu with the "
			     "thread running", sites[s].name, got,
			     expect[s] + t0[s], expect[s] + t1[s] + 1);
	}
}

static void check_all(void)
{
	struct map *m;
	unsigned long i;
	int s;

	/* now and then (and at the end), all of /proc/self/maps again */
	if (!(op_no % 64) || op_no == nops)
		load_tramps();
	for (m = maps; m < maps + MAXMAP; m++) {
		if (!m->used)
			continue;
		if (is_text(m)) {
			for (s = 0; s < NSITE; s++)
				check_site(m, s);
			continue;
		}
		if (!memcmp((void *)m->addr, m->data, m->npg * PG))
			continue;
		for (i = 0; i < m->npg * PG; i++) {
			if (((unsigned char *)m->addr)[i] != m->data[i])
				break;
		}
		fail("the %s at %#lx (%u pages) changed at +%#lx: %02x, not %02x",
		     kind_names[m->kind], m->addr, m->npg, i,
		     ((unsigned char *)m->addr)[i], m->data[i]);
	}
	check_counts();
}

/* ---- the model ---- */

static int map_add(int kind, unsigned long addr, unsigned int npg,
		   unsigned int pg, const unsigned char *data)
{
	struct map *m;

	for (m = maps; m < maps + MAXMAP; m++) {
		if (m->used)
			continue;
		*m = (struct map){ .used = 1, .kind = kind, .addr = addr,
				   .npg = npg, .pg = pg };
		if (!is_text(m)) {
			m->data = malloc(npg * PG);
			if (!m->data)
				fail("out of memory");
			memcpy(m->data, data, npg * PG);
		}
		return m - maps;
	}
	return -1;
}

static int map_free_slots(void)
{
	int i, n = 0;

	for (i = 0; i < MAXMAP; i++)
		n += !maps[i].used;
	return n;
}

static void map_drop(struct map *m)
{
	free(m->data);
	memset(m, 0, sizeof(*m));
}

/* Split @m at page @k (0 < k < npg): the model only; the upper part's index. */
static int map_split(struct map *m, unsigned int k)
{
	int i;

	i = map_add(m->kind, m->addr + k * PG, m->npg - k, m->pg + k,
		    m->data ? m->data + k * PG : NULL);
	if (i < 0)
		fail("no room in the model to split a mapping");
	maps[i].noexec = m->noexec >> k;
	maps[i].pinned = m->pinned;
	m->npg = k;
	m->noexec &= (1U << k) - 1;
	return i;
}

/* [@lo, @hi) no longer holds what the model says. */
static void forget_range(unsigned long lo, unsigned long hi)
{
	struct map *m, *in;

	for (m = maps; m < maps + MAXMAP; m++) {
		if (!m->used || m->addr + m->npg * PG <= lo || m->addr >= hi)
			continue;
		if (m->pinned)
			fail("the thread's mapping at %#lx went", m->addr);
		in = m;
		if (in->addr < lo)
			in = &maps[map_split(in, (lo - in->addr) / PG)];
		if (in->addr + in->npg * PG > hi)
			map_split(in, (hi - in->addr) / PG);
		map_drop(in);
	}
}

/* A mapping (not the thread's) with @kinds (a bitmask); -1 if none. */
static int pick_map(unsigned int kinds)
{
	int cand[MAXMAP], n = 0, i;

	for (i = 0; i < MAXMAP; i++) {
		if (maps[i].used && !maps[i].pinned &&
		    (kinds & (1U << maps[i].kind)))
			cand[n++] = i;
	}
	return n ? cand[rn(n)] : -1;
}

#define ALL_KINDS	0x1fU

/* A page range of @m: [*lo, *hi), all of it or one page. */
static void pick_range(const struct map *m, unsigned long *lo,
		       unsigned long *hi)
{
	unsigned int k;

	if (m->npg == 1 || rn(2)) {
		*lo = m->addr;
		*hi = m->addr + m->npg * PG;
		return;
	}
	k = rn(m->npg);
	*lo = m->addr + k * PG;
	*hi = *lo + PG;
}

/* The mapping that starts at @lo, split so that it ends at @hi. */
static int map_at(unsigned long lo, unsigned long hi)
{
	struct map *m;

	for (m = maps; m < maps + MAXMAP; m++) {
		if (!m->used || lo < m->addr || lo >= m->addr + m->npg * PG)
			continue;
		if (lo > m->addr)
			m = &maps[map_split(m, (lo - m->addr) / PG)];
		if (hi < m->addr + m->npg * PG)
			map_split(m, (hi - m->addr) / PG);
		return m - maps;
	}
	fail("no mapping at %#lx in the model", lo);
}

/*
 * A free range of @len bytes, reserved with a PROT_NONE mapping: where
 * the kernel likes, near @near, or far away (out of rel32 reach).
 */
static unsigned long reserve(unsigned long len, unsigned long near)
{
	unsigned long hint;
	void *p;
	int how = rn(4), tries;

	for (tries = 0; tries < 4; tries++, how = rn(2) ? 0 : 2) {
		hint = 0;
		if (how == 1 && near) {
			hint = (rn(1UL << 18) + 1) * PG;	/* up to 1 GiB */
			hint = rn(2) && near > hint ? near - hint : near + hint;
			/* not into the gap below the stack */
			if (hint > (0x7ff0UL << 32))
				hint = 0;
		} else if (how >= 2) {
			/* between 1 TiB and 64 TiB, away from the stack */
			hint = ((1UL << 40) + rn(63UL << 40)) & ~(PG - 1);
		}
		if (hint)
			p = mmap((void *)hint, len, PROT_NONE, MAP_PRIVATE |
				 MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		else
			p = mmap(NULL, len, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED && (!hint || p == (void *)hint))
			return (unsigned long)p;
		if (p != MAP_FAILED)
			munmap(p, len);
	}
	return 0;
}

/* A private or shared copy of region pages @pg.. at @addr, or anywhere. */
static unsigned long map_text(int kind, unsigned long addr, unsigned int npg,
			      unsigned int pg)
{
	void *p;

	p = mmap((void *)addr, npg * PG, PROT_READ | PROT_EXEC,
		 (kind == K_TEXT ? MAP_PRIVATE : MAP_SHARED) |
		 (addr ? MAP_FIXED : 0), exe_fd, region_off + pg * PG);
	if (p == MAP_FAILED)
		fail("mmap of the program file: %s", strerror(errno));
	return (unsigned long)p;
}

static unsigned long map_victim(int kind, unsigned long addr,
				unsigned int npg, unsigned int pg, int flags)
{
	void *p;

	p = mmap((void *)addr, npg * PG, PROT_READ,
		 (kind == K_VPRIV ? MAP_PRIVATE : MAP_SHARED) | flags,
		 victim_fd, pg * PG);
	if (p == MAP_FAILED)
		return 0;
	if (addr && p != (void *)addr)
		fail("victim mapped at %p, not %#lx", p, addr);
	return (unsigned long)p;
}

/* ---- operations ---- */

static long salt;
static unsigned long calls;	/* of sites, by this process */

/* @n calls of site @s of @m; counted if the site is probed there. */
static void call_site(const struct map *m, int s, long n, int counted)
{
	long (*fn)(long) = site_fn(m, s);
	long i, bad = 0;

	for (i = 0; i < n; i++)
		bad |= fn(++salt);
	if (bad)
		fail("site %s of a %s at %#lx: registers, flags or red zone "
		     "changed across it (%#lx)", sites[s].name,
		     kind_names[m->kind], site_in(m, s), bad);
	calls += n;
	if (counted && m->kind == K_TEXT && mode == MODE_ON)
		expect[s] += n;
}

static void op_call(void)
{
	int cand[MAXMAP * NSITE], n = 0, i, s;

	for (i = 0; i < MAXMAP; i++) {
		for (s = 0; s < NSITE; s++) {
			if (site_in(&maps[i], s) && site_exec(&maps[i], s))
				cand[n++] = i * NSITE + s;
		}
	}
	if (!n)
		return;
	i = cand[rn(n)];
	call_site(&maps[i / NSITE], i % NSITE, 1 + rn(32), 1);
}

/* Somewhere near a mapping of ours, or 0. */
static unsigned long near_addr(void)
{
	int i = pick_map(ALL_KINDS);

	return i < 0 ? region : maps[i].addr;
}

static void op_map(int kind)
{
	unsigned int npg = 1 + rn(REGION_PAGES), pg = rn(REGION_PAGES - npg + 1);
	unsigned long addr = 0, lo, hi;
	int how = rn(8), i;
	void *p;

	if (map_free_slots() < 3)
		return;
	if (how == 0) {
		/* back at the region's own place, if it is free */
		npg = REGION_PAGES;
		pg = 0;
		p = mmap((void *)region, npg * PG, PROT_NONE, MAP_PRIVATE |
			 MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == (void *)region)
			addr = region;
		else if (p != MAP_FAILED)
			munmap(p, npg * PG);
	} else if (how == 1 && (i = pick_map(ALL_KINDS)) >= 0) {
		/* over (part of) another mapping */
		pick_range(&maps[i], &lo, &hi);
		npg = (hi - lo) / PG;
		pg = rn(REGION_PAGES - npg + 1);
		forget_range(lo, hi);
		addr = lo;
	}
	if (!addr)
		addr = reserve(npg * PG, near_addr());
	if (!addr)
		return;
	addr = map_text(kind, addr, npg, pg);
	map_add(kind, addr, npg, pg, NULL);
}

static void op_unmap(void)
{
	unsigned long lo, hi, addr;
	int i = pick_map(ALL_KINDS), kind;
	unsigned int npg, pg;

	if (i < 0)
		return;
	pick_range(&maps[i], &lo, &hi);
	if (munmap((void *)lo, hi - lo))
		fail("munmap %#lx-%#lx: %s", lo, hi, strerror(errno));
	forget_range(lo, hi);
	if (rn(2) || map_free_slots() < 2)
		return;
	/* the victim file where the text was */
	kind = rn(2) ? K_VPRIV : K_VSHARED;
	npg = (hi - lo) / PG;
	pg = rn(VICTIM_PAGES - npg + 1);
	addr = map_victim(kind, lo, npg, pg, MAP_FIXED_NOREPLACE);
	if (addr)
		map_add(kind, addr, npg, pg, victim_data + pg * PG);
}

static void op_victim(void)
{
	unsigned int npg = 1 + rn(2), pg = rn(VICTIM_PAGES - npg + 1);
	int kind = rn(2) ? K_VPRIV : K_VSHARED;
	unsigned long addr;

	if (map_free_slots() < 2)
		return;
	addr = reserve(npg * PG, near_addr());
	if (!addr)
		return;
	if (!map_victim(kind, addr, npg, pg, MAP_FIXED))
		fail("mmap of the victim file: %s", strerror(errno));
	map_add(kind, addr, npg, pg, victim_data + pg * PG);
}

/* Is [@lo, @hi) inside one VMA (one line of /proc/self/maps)? */
static int one_vma(unsigned long lo, unsigned long hi)
{
	unsigned long a, b;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int one = 0;

	if (!f)
		fail("cannot open /proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &a, &b) == 2 && a <= lo && hi <= b) {
			one = 1;
			break;
		}
	}
	fclose(f);
	return one;
}

static void op_mremap(void)
{
	unsigned long lo, hi, to;
	struct map *m;
	int i = pick_map(ALL_KINDS), s;
	void *p;

	if (i < 0 || map_free_slots() < 3)
		return;
	pick_range(&maps[i], &lo, &hi);
	to = reserve(hi - lo, lo);
	if (!to)
		return;
	p = mremap((void *)lo, hi - lo, hi - lo, MREMAP_MAYMOVE | MREMAP_FIXED,
		   (void *)to);
	/*
	 * mremap() moves within one VMA only; the kernel may keep pages the
	 * model joins in two (they did not merge back): not a failure.
	 */
	if (p == MAP_FAILED && errno == EFAULT && !one_vma(lo, hi)) {
		munmap((void *)to, hi - lo);
		return;
	}
	if (p != (void *)to)
		fail("mremap %#lx-%#lx to %#lx: %s", lo, hi, to,
		     p == MAP_FAILED ? strerror(errno) : "moved elsewhere");
	m = &maps[map_at(lo, hi)];
	m->addr = to;
	/* a site that moved jumps nowhere until its next hit */
	for (s = 0; s < NSITE; s++) {
		if (site_in(m, s) && ((unsigned char *)site_in(m, s))[0] == 0xe9)
			bytes_fail(m, s, site_in(m, s), "still a jump after mremap()");
	}
}

static void op_shrink(void)
{
	int i = pick_map(ALL_KINDS);
	struct map *m;

	if (i < 0 || maps[i].npg < 2)
		return;
	m = &maps[i];
	if (mremap((void *)m->addr, m->npg * PG, PG, 0) != (void *)m->addr)
		fail("mremap to shrink %#lx: %s", m->addr, strerror(errno));
	forget_range(m->addr + PG, m->addr + m->npg * PG);
}

static void op_dontneed(void)
{
	unsigned long lo, hi;
	const char *why;
	struct map *m;
	int i = pick_map(ALL_KINDS), s;

	if (i < 0 || map_free_slots() < 3)
		return;
	pick_range(&maps[i], &lo, &hi);
	if (madvise((void *)lo, hi - lo, MADV_DONTNEED))
		fail("MADV_DONTNEED on %#lx-%#lx: %s", lo, hi, strerror(errno));
	m = &maps[map_at(lo, hi)];
	switch (m->kind) {
	case K_TEXT:
		/* the file's pages: no breakpoint (placed at mmap time only) */
		for (s = 0; s < NSITE; s++) {
			if (!site_in(m, s))
				continue;
			if (site_state(s, site_in(m, s), &why) != B_PLAIN)
				bytes_fail(m, s, site_in(m, s), "not the plain "
					   "instruction after MADV_DONTNEED");
			if (site_exec(m, s))
				call_site(m, s, 1 + rn(4), 0);
		}
		check_counts();
		if (munmap((void *)lo, hi - lo))
			fail("munmap %#lx-%#lx: %s", lo, hi, strerror(errno));
		forget_range(lo, hi);
		break;
	case K_VPRIV:
		/* the private changes go: the file's bytes again */
		memcpy(m->data, victim_data + m->pg * PG, m->npg * PG);
		break;
	}
}

static unsigned long tramp_dropped, tramp_kept;

static void op_tramp_dontneed(void)
{
	int i, all = rn(2);

	load_tramps();
	if (!ntramp)
		return;
	for (i = all ? 0 : rn(ntramp); i < ntramp; i++) {
		/* sealed: refused; else the fault brings the page back */
		if (!madvise((void *)tramp_lo[i], tramp_hi[i] - tramp_lo[i],
			     MADV_DONTNEED))
			tramp_dropped++;
		else if (errno == EPERM)
			tramp_kept++;
		else
			fail("MADV_DONTNEED on the trampoline page %#lx: %s",
			     tramp_lo[i], strerror(errno));
		if (!all)
			break;
	}
}

static int mem_open(int flags)
{
	int fd = open("/proc/self/mem", flags | O_CLOEXEC);

	if (fd < 0)
		fail("cannot open /proc/self/mem: %s", strerror(errno));
	return fd;
}

/* @what must have failed with @e1 or @e2. */
static void must_fail(long ret, int e1, int e2, const char *what,
		      unsigned long at)
{
	if (ret != -1)
		fail("%s on the trampoline page %#lx: allowed", what, at);
	if (errno != e1 && errno != e2)
		fail("%s on the trampoline page %#lx: %s, not %s", what, at,
		     strerror(errno), strerror(e1));
}

static void op_tramp_attack(void)
{
	static const char *const names[] = {
		"munmap", "mremap", "mprotect", "mprotect rw", "mmap MAP_FIXED",
		"/proc/self/mem read", "/proc/self/mem write", "MADV_DONTFORK",
		"MADV_FREE", "MADV_REMOVE", "MADV_WIPEONFORK",
	};
	static const int advice[] = {
		MADV_DONTFORK, MADV_FREE, MADV_REMOVE, MADV_WIPEONFORK,
	};
	unsigned long lo, len, to, word = 0;
	int i, a, fd, n;
	void *p;

	load_tramps();
	if (!ntramp)
		return;
	i = rn(ntramp);
	lo = tramp_lo[i];
	len = tramp_hi[i] - lo;
	a = rn(sizeof(names) / sizeof(names[0]));
	switch (a) {
	case 0:
		must_fail(munmap((void *)lo, len), EPERM, EPERM, names[a], lo);
		break;
	case 1:
		to = reserve(len, lo);
		if (!to)
			return;
		p = mremap((void *)lo, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
			   (void *)to);
		must_fail(p == MAP_FAILED ? -1 : 0, EPERM, EPERM, names[a], lo);
		munmap((void *)to, len);
		break;
	case 2:
		must_fail(mprotect((void *)lo, len, PROT_READ), EPERM, EPERM,
			  names[a], lo);
		break;
	case 3:
		must_fail(mprotect((void *)lo, len, PROT_READ | PROT_WRITE |
				   PROT_EXEC), EPERM, EACCES, names[a], lo);
		break;
	case 4:
		p = mmap((void *)lo, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		must_fail(p == MAP_FAILED ? -1 : 0, EPERM, EPERM, names[a], lo);
		break;
	case 5:
	case 6:
		fd = mem_open(O_RDWR);
		if (a == 5)
			n = pread(fd, &word, sizeof(word), (off_t)(lo + rn(len / 8) * 8));
		else
			n = pwrite(fd, &word, sizeof(word), (off_t)(lo + rn(len / 8) * 8));
		close(fd);
		if (n >= 0)
			fail("%s on the trampoline page %#lx: allowed", names[a], lo);
		break;
	default:
		/* discarding advice: the seal (EPERM) or VM_IO (EINVAL) */
		must_fail(madvise((void *)lo, len, advice[a - 7]), EPERM, EINVAL,
			  names[a], lo);
		break;
	}
	/* and the page is still there */
	load_tramps();
	if (!in_tramp_cached(lo, len))
		fail("%s: the trampoline page %#lx went", names[a], lo);
}

static void op_mprotect(void)
{
	int i = pick_map((1U << K_TEXT) | (1U << K_SHTEXT) | (1U << K_VSHARED));
	unsigned int k;
	struct map *m;
	int prot;

	if (i < 0)
		return;
	m = &maps[i];
	if (m->kind == K_VSHARED) {
		/* a file opened read-only: never writable */
		if (!mprotect((void *)m->addr, m->npg * PG, PROT_READ | PROT_WRITE))
			fail("mprotect PROT_WRITE on the shared victim at %#lx: "
			     "allowed", m->addr);
		if (errno != EACCES)
			fail("mprotect PROT_WRITE on the shared victim: %s",
			     strerror(errno));
		return;
	}
	k = rn(m->npg);
	prot = m->noexec & (1U << k) ? PROT_READ | PROT_EXEC : PROT_READ;
	if (mprotect((void *)(m->addr + k * PG), PG, prot))
		fail("mprotect %#lx: %s", m->addr + k * PG, strerror(errno));
	m->noexec ^= 1U << k;
}

/* Wait for @pid, at most @secs seconds; its status. */
static int wait_child(pid_t pid, unsigned int secs, const char *what)
{
	int status;
	pid_t r;

	alarm(secs);
	r = waitpid(pid, &status, 0);
	alarm(0);
	if (r == pid)
		return status;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	fail("%s: %s", what, r < 0 && errno == EINTR ?
	     "timed out" : strerror(errno));
}

static void child_setup(void)
{
	default_signals();
	alarm(CHILD_TIMEOUT);
}

static void do_op(int child);

static void op_fork(void)
{
	unsigned long add[NSITE] = { 0 };
	int s, i, status, simple = thr.running;
	long n = 1 + rn(8), k = 1 + rn(8), j;
	uint64_t cseed;
	pid_t pid;

	if (simple) {
		/* every site once more: the parent knows what it adds */
		for (i = 0; i < MAXMAP; i++) {
			for (s = 0; s < NSITE; s++) {
				if (maps[i].kind == K_TEXT && site_in(&maps[i], s) &&
				    site_exec(&maps[i], s) && mode == MODE_ON)
					add[s] += n;
			}
		}
	}
	memcpy(shared->expect, expect, sizeof(expect));
	cseed = rnd();
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (!pid) {
		rng_seed(cseed);
		strcpy(who, "fork child: ");
		/* bounded: the parent gives up at the same time */
		signal(SIGALRM, SIG_DFL);
		alarm(CHILD_TIMEOUT);
		if (simple) {
			thr.running = 0;
			for (i = 0; i < MAXMAP; i++) {
				for (s = 0; s < NSITE; s++) {
					if (site_in(&maps[i], s) && site_exec(&maps[i], s))
						call_site(&maps[i], s, n, 1);
				}
			}
		} else {
			/* operations of its own, on its copy of everything */
			for (j = 1; j <= k; j++) {
				snprintf(who, sizeof(who), "fork child op %ld: ", j);
				do_op(1);
			}
		}
		memcpy(shared->expect, expect, sizeof(expect));
		fflush(stdout);
		_exit(0);
	}
	status = wait_child(pid, CHILD_TIMEOUT, "the child");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("the child %s %d", WIFEXITED(status) ? "exited with" :
		     "was killed by signal", WIFEXITED(status) ?
		     WEXITSTATUS(status) : WTERMSIG(status));
	if (simple) {
		for (s = 0; s < NSITE; s++)
			expect[s] += add[s];
	} else {
		memcpy(expect, shared->expect, sizeof(expect));
	}
}

static void op_exec(void)
{
	char nbuf[24], sbuf[24], obuf[24];
	long n = 1 + rn(16);
	int status, s;
	pid_t pid;

	snprintf(nbuf, sizeof(nbuf), "%ld", n);
	snprintf(sbuf, sizeof(sbuf), "%lu", seed);
	snprintf(obuf, sizeof(obuf), "%lu", op_no);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (!pid) {
		child_setup();
		execl(exe_path, exe_path, "--child-run", nbuf, mode_names[mode],
		      sbuf, obuf, (char *)NULL);
		_exit(127);
	}
	status = wait_child(pid, CHILD_TIMEOUT, "the exec'd child");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("%s --child-run %ld %s %d", exe_path, n,
		     WIFEXITED(status) ? "exited with" : "was killed by signal",
		     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	calls += NSITE * n;
	if (mode == MODE_ON) {
		for (s = 0; s < NSITE; s++)
			expect[s] += n;
	}
}

static void *thread_main(void *arg __attribute__((unused)))
{
	const struct map *m = &maps[thr.map];
	long (*fn[NSITE])(long) = { 0 };
	long i = 1 << 20, bad = 0;
	int s, r;

	for (s = 0; s < NSITE; s++) {
		if (site_in(m, s))
			fn[s] = site_fn(m, s);
	}
	for (r = 0; r < THREAD_ROUNDS && !bad; r++) {
		if (__atomic_load_n(&thr.stop, __ATOMIC_ACQUIRE))
			break;
		for (s = 0; s < NSITE; s++) {
			if (!fn[s])
				continue;
			bad |= fn[s](i++);
			__atomic_store_n(&thr.done[s], thr.done[s] + 1,
					 __ATOMIC_RELEASE);
		}
		/* a companion, not a hog: the machine may be an emulator */
		if (!(r & 7))
			nanosleep(&(struct timespec){ .tv_nsec = 200000 }, NULL);
	}
	thr.bad = bad;
	return NULL;
}

static void thread_stop(void)
{
	int s;

	if (!thr.running)
		return;
	__atomic_store_n(&thr.stop, 1, __ATOMIC_RELEASE);
	pthread_join(thr.tid, NULL);
	thr.running = 0;
	maps[thr.map].pinned = 0;
	if (thr.bad)
		fail("the thread's site: registers, flags or red zone changed "
		     "across it (%#lx)", thr.bad);
	for (s = 0; s < NSITE; s++) {
		calls += thr.done[s];
		if (mode == MODE_ON && maps[thr.map].kind == K_TEXT)
			expect[s] += thr.done[s];
	}
}

static void op_thread(void)
{
	int cand[MAXMAP], n = 0, i, s, any;

	if (thr.running) {
		thread_stop();
		return;
	}
	for (i = 0; i < MAXMAP; i++) {
		any = 0;
		for (s = 0; s < NSITE; s++)
			any |= !!site_in(&maps[i], s);
		if (any && !maps[i].noexec)
			cand[n++] = i;
	}
	if (!n)
		return;
	memset(&thr, 0, sizeof(thr));
	thr.map = cand[rn(n)];
	maps[thr.map].pinned = 1;
	if (pthread_create(&thr.tid, NULL, thread_main, NULL))
		fail("pthread_create: %s", strerror(errno));
	thr.running = 1;
}

static void op_poke(void)
{
	int i = pick_map((1U << K_TEXT) | (1U << K_SHTEXT) | (1U << K_VPRIV) |
			 (1U << K_VSHARED)), s, fd, how;
	unsigned char b[8], back[8];
	unsigned long at, slot;
	struct map *m;
	ssize_t n;

	if (i < 0)
		return;
	m = &maps[i];
	s = rn(NSITE);
	at = is_text(m) && site_in(m, s) ? site_in(m, s) :
		m->addr + rn(m->npg * PG - 8);
	how = rn(4);
	site_read(at, b);
	switch (how) {
	case 1:		/* the plain NOP */
		memcpy(b, sites[S_A].insn, 5);
		break;
	case 2:		/* anything */
		for (n = 0; n < 5; n++)
			b[n] = rnd();
		break;
	case 3:		/* a jump to a slot of ours */
		load_tramps();
		slot = used_slot();
		if (slot && slot - (at + 5) + (1UL << 31) < (1UL << 32)) {
			int32_t rel = slot - (at + 5);

			b[0] = 0xe9;
			memcpy(b + 1, &rel, 4);
		}
		break;
	}
	fd = mem_open(O_RDWR);
	n = pwrite(fd, b, 5, (off_t)at);
	close(fd);
	switch (m->kind) {
	case K_SHTEXT:
	case K_VSHARED:
		/* a file opened read-only, shared: no forced write */
		if (n >= 0)
			fail("/proc/self/mem wrote into a %s at %#lx",
			     kind_names[m->kind], at);
		return;
	}
	if (n != 5)
		fail("/proc/self/mem write at %#lx: %s", at,
		     n < 0 ? strerror(errno) : "short");
	site_read(at, back);
	if (memcmp(b, back, 5))
		fail("/proc/self/mem write at %#lx: reads back as %02x %02x "
		     "%02x %02x %02x", at, back[0], back[1], back[2], back[3],
		     back[4]);
	if (m->kind == K_VPRIV) {
		memcpy(m->data + (at - m->addr), b, 5);
		return;
	}
	/* a copy whose text is no longer what the probes expect: gone */
	if (munmap((void *)m->addr, m->npg * PG))
		fail("munmap %#lx: %s", m->addr, strerror(errno));
	forget_range(m->addr, m->addr + m->npg * PG);
}

static void op_peek(void)
{
	int cand[MAXMAP * NSITE], n = 0, i, s, fd;
	unsigned char b[5], mem[5];
	const struct map *m;
	unsigned long at;
	const char *why;

	for (i = 0; i < MAXMAP; i++) {
		for (s = 0; s < NSITE; s++) {
			if (site_in(&maps[i], s))
				cand[n++] = i * NSITE + s;
		}
	}
	if (!n)
		return;
	i = cand[rn(n)];
	m = &maps[i / NSITE];
	s = i % NSITE;
	at = site_in(m, s);
	fd = mem_open(O_RDONLY);
	if (pread(fd, mem, 5, (off_t)at) != 5)
		fail("/proc/self/mem read at %#lx: %s", at, strerror(errno));
	close(fd);
	site_read(at, b);
	if (!memcmp(b, mem, 5))
		return;
	/* the thread may be changing it: then both must be valid */
	load_tramps();
	if (m->pinned && bytes_state(s, at, b, &why) != B_BAD &&
	    bytes_state(s, at, mem, &why) != B_BAD)
		return;
	fail("site %s at %#lx: /proc/self/mem reads %02x %02x %02x %02x %02x, "
	     "memory %02x %02x %02x %02x %02x", sites[s].name, at, mem[0],
	     mem[1], mem[2], mem[3], mem[4], b[0], b[1], b[2], b[3], b[4]);
}

static void op_replace(void)
{
	unsigned char buf[REGION_PAGES * PG];
	unsigned long lo, hi, i;
	int j = pick_map(ALL_KINDS);
	void *p;

	if (j < 0 || map_free_slots() < 3)
		return;
	pick_range(&maps[j], &lo, &hi);
	if (hi - lo > sizeof(buf))
		return;
	/* what was there (jumps to our slots, maybe), or a pattern */
	if (rn(2)) {
		memcpy(buf, (void *)lo, hi - lo);
	} else {
		for (i = 0; i < hi - lo; i++)
			buf[i] = rnd();
	}
	p = mmap((void *)lo, hi - lo, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p != (void *)lo)
		fail("mmap MAP_SHARED|MAP_ANONYMOUS|MAP_FIXED at %#lx: %s", lo,
		     strerror(errno));
	memcpy(p, buf, hi - lo);
	forget_range(lo, hi);
	map_add(K_ANON, lo, (hi - lo) / PG, 0, buf);
}

/* Code for a page of ours: syscall 336 with its return where a slot's is. */
static const unsigned char rogue_code[] = {
	0xb8, NR_UPROBE & 0xff, NR_UPROBE >> 8, 0x00, 0x00,	/* mov $336,%eax */
	0x0f, 0x05,						/* syscall */
	0xc3,							/* ret */
};
#define ROGUE_AT	(SLOT_SIZE + 16 - 7)
static unsigned long rogue_sigill, rogue_other;

static void op_rogue(void)
{
	int how = rn(2), status;
	long ret;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (!pid) {
		child_setup();
		if (how) {
			unsigned char *p = mmap(NULL, PG, PROT_READ | PROT_WRITE,
						MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				_exit(4);
			memset(p, 0xcc, PG);
			memcpy(p + ROGUE_AT, rogue_code, sizeof(rogue_code));
			if (mprotect(p, PG, PROT_READ | PROT_EXEC))
				_exit(4);
			ret = ((long (*)(void))(void *)(p + ROGUE_AT))();
		} else {
			ret = syscall(NR_UPROBE);
			ret = ret == -1 ? -errno : ret;
		}
		_exit(ret == -ENOSYS ? 0 : ret == -ENXIO ? 5 : 3);
	}
	status = wait_child(pid, CHILD_TIMEOUT, "the rogue child");
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGILL) {
		rogue_sigill++;
		return;
	}
	/*
	 * No such call (6.12), or upstream's, which returns ENXIO: only
	 * where the kernel never made an [uprobes-nop5] page for us.
	 */
	if (WIFEXITED(status) && !seen_tramp &&
	    (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 5)) {
		rogue_other++;
		return;
	}
	fail("system call %d from %s: %s %d, expected SIGILL%s", NR_UPROBE,
	     how ? "a page that is not a trampoline" : "the program's text",
	     WIFEXITED(status) ? "exit status" : "signal",
	     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
	     seen_tramp ? "" : " (or ENOSYS, ENXIO: exit status 0, 5)");
}

enum {
	OP_CALL, OP_MAP, OP_SHMAP, OP_UNMAP, OP_MREMAP, OP_SHRINK, OP_DONTNEED,
	OP_TRAMP_DONTNEED, OP_TRAMP_ATTACK, OP_MPROTECT, OP_FORK, OP_EXEC,
	OP_THREAD, OP_POKE, OP_PEEK, OP_REPLACE, OP_VICTIM, OP_ROGUE, NR_OPS
};

static const struct {
	const char *name;
	unsigned int weight;
	int in_child;		/* a fork()'s child may do it */
} ops[NR_OPS] = {
	[OP_CALL]		= { "call", 30, 1 },
	[OP_MAP]		= { "map", 8, 1 },
	[OP_SHMAP]		= { "shmap", 2, 1 },
	[OP_UNMAP]		= { "unmap", 6, 1 },
	[OP_MREMAP]		= { "mremap", 8, 1 },
	[OP_SHRINK]		= { "shrink", 2, 1 },
	[OP_DONTNEED]		= { "dontneed", 3, 1 },
	[OP_TRAMP_DONTNEED]	= { "tramp-dontneed", 3, 1 },
	[OP_TRAMP_ATTACK]	= { "tramp-attack", 4, 1 },
	[OP_MPROTECT]		= { "mprotect", 4, 1 },
	[OP_FORK]		= { "fork", 3, 0 },
	[OP_EXEC]		= { "exec", 1, 0 },
	[OP_THREAD]		= { "thread", 2, 0 },
	[OP_POKE]		= { "poke", 2, 1 },
	[OP_PEEK]		= { "peek", 3, 1 },
	[OP_REPLACE]		= { "replace", 3, 1 },
	[OP_VICTIM]		= { "victim", 2, 1 },
	[OP_ROGUE]		= { "rogue", 1, 0 },
};

static unsigned long op_count[NR_OPS];

static void do_op(int child)
{
	unsigned int total = 0, r, o;

	for (o = 0; o < NR_OPS; o++)
		total += !child || ops[o].in_child ? ops[o].weight : 0;
	r = rn(total);
	for (o = 0; o < NR_OPS; o++) {
		if (child && !ops[o].in_child)
			continue;
		if (r < ops[o].weight)
			break;
		r -= ops[o].weight;
	}
	op_name = ops[o].name;
	op_count[o]++;
	switch (o) {
	case OP_CALL:		op_call(); break;
	case OP_MAP:		op_map(K_TEXT); break;
	case OP_SHMAP:		op_map(K_SHTEXT); break;
	case OP_UNMAP:		op_unmap(); break;
	case OP_MREMAP:		op_mremap(); break;
	case OP_SHRINK:		op_shrink(); break;
	case OP_DONTNEED:	op_dontneed(); break;
	case OP_TRAMP_DONTNEED:	op_tramp_dontneed(); break;
	case OP_TRAMP_ATTACK:	op_tramp_attack(); break;
	case OP_MPROTECT:	op_mprotect(); break;
	case OP_FORK:		op_fork(); break;
	case OP_EXEC:		op_exec(); break;
	case OP_THREAD:		op_thread(); break;
	case OP_POKE:		op_poke(); break;
	case OP_PEEK:		op_peek(); break;
	case OP_REPLACE:	op_replace(); break;
	case OP_VICTIM:		op_victim(); break;
	case OP_ROGUE:		op_rogue(); break;
	}
	check_all();
}

/* ---- the processes ---- */

static int parse_mode(const char *s)
{
	int m;

	for (m = MODE_ANY; m <= MODE_OFF; m++) {
		if (!strcmp(s, mode_names[m]))
			return m;
	}
	return -1;
}

/*
 * "--child-run N [MODE [SEED OP]]": the exec operation's fresh process,
 * N calls of each site; SEED and OP only name the run in a failure.
 */
static int child_run(int argc, char **argv)
{
	long n = atol(argv[2]);
	int s;

	alarm(CHILD_TIMEOUT);
	if (argc > 3 && parse_mode(argv[3]) >= 0)
		mode = parse_mode(argv[3]);
	if (argc > 5) {
		seed = strtoul(argv[4], NULL, 0);
		op_no = strtoul(argv[5], NULL, 0);
	}
	strcpy(who, "exec'd child: ");
	op_name = "calls";
	catch_signals();
	alarm(CHILD_TIMEOUT);
	if (setup_region())
		return 1;
	map_add(K_TEXT, region, REGION_PAGES, 0, NULL);
	for (s = 0; s < NSITE; s++)
		call_site(&maps[0], s, n, 1);
	load_tramps();
	for (s = 0; s < NSITE; s++)
		check_site(&maps[0], s);
	return 0;
}

/* "--worker MODE SEED OPS": the fuzzing, as whoever runs it. */
static int worker(char **argv)
{
	const char *why;
	unsigned long hits = 0;
	struct rlimit nocore = { 0, 0 };
	int s;

	mode = parse_mode(argv[2]);
	seed = strtoul(argv[3], NULL, 0);
	nops = strtoul(argv[4], NULL, 0);
	rng_seed(seed);
	catch_signals();
	setrlimit(RLIMIT_CORE, &nocore);
	/* /proc/self/mem for us, after the change of user */
	prctl(PR_SET_DUMPABLE, 1);
	if (setup_region())
		return 1;
	victim_fill();
	victim_fd = fcntl(FD_VICTIM, F_GETFD) < 0 ? -1 : FD_VICTIM;
	prof_fd = fcntl(FD_PROFILE, F_GETFD) < 0 ? -1 : FD_PROFILE;
	if (victim_fd >= 0)
		fcntl(victim_fd, F_SETFD, FD_CLOEXEC);
	if (prof_fd >= 0)
		fcntl(prof_fd, F_SETFD, FD_CLOEXEC);
	if (mode == MODE_OFF && prof_fd < 0)
		mode = MODE_ANY;
	shared = mmap(NULL, PG, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	why = files_changed();
	if (why)
		fail("%s before the run", why);
	if (prof_fd >= 0)
		read_profile(prof0);
	printf("wb-nop5-fuzz: seed %lu, %lu ops, probes %s, uid %d, region at "
	       "%#lx (file offset %#lx)\n", seed, nops, mode_names[mode],
	       (int)getuid(), region, (unsigned long)region_off);
	fflush(stdout);
	/* the program's own region is the first mapping */
	map_add(K_TEXT, region, REGION_PAGES, 0, NULL);
	op_name = "start";
	check_all();
	for (op_no = 1; op_no <= nops; op_no++) {
		do_op(0);
		if (op_no % 1000 && op_no != nops)
			continue;
		op_name = "file check";
		why = files_changed();
		if (why)
			fail("%s", why);
		if (op_no % 1000 == 0) {
			printf("wb-nop5-fuzz: %lu/%lu ops, seed %lu\n", op_no, nops,
			       seed);
			fflush(stdout);
		}
	}
	op_no = nops;
	op_name = "end";
	thread_stop();
	check_all();
	for (s = 0; s < NSITE; s++)
		hits += expect[s];
	printf("wb-nop5-fuzz: ops:");
	for (s = 0; s < NR_OPS; s++)
		printf(" %s %lu", ops[s].name, op_count[s]);
	printf("; %lu calls of sites (children's not included); trampoline "
	       "pages: %d, MADV_DONTNEED on them %lu dropped, %lu refused; "
	       "system call %d: %lu SIGILL, %lu ENOSYS or ENXIO\n", calls,
	       max_tramp, tramp_dropped, tramp_kept, NR_UPROBE, rogue_sigill,
	       rogue_other);
	printf("wb-nop5-fuzz: %lu ops, 0 failures, %lu hits\n", nops, hits);
	fflush(stdout);
	return 0;
}

static int make_victim(void)
{
	size_t done = 0;
	ssize_t n;
	int fd;

	if (unlink(VICTIM) && errno != ENOENT) {
		perror("wb-nop5-fuzz: unlink " VICTIM);
		return -1;
	}
	fd = open(VICTIM, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0) {
		perror("wb-nop5-fuzz: " VICTIM);
		return -1;
	}
	while (done < sizeof(victim_data)) {
		n = write(fd, victim_data + done, sizeof(victim_data) - done);
		if (n <= 0) {
			perror("wb-nop5-fuzz: write " VICTIM);
			close(fd);
			return -1;
		}
		done += n;
	}
	if (fchmod(fd, 0644) || close(fd))
		return -1;
	fd = open(VICTIM, O_RDONLY | O_NOFOLLOW);
	if (fd < 0 || dup2(fd, FD_VICTIM) != FD_VICTIM)
		return -1;
	close(fd);
	victim_fd = FD_VICTIM;
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: wb-nop5-fuzz --offsets\n"
		"       wb-nop5-fuzz [--off] SEED OPS [PROFILE GROUP]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int timeout;
	const char *why;
	int status, fd, s, rc;
	char *args[8];
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2 && !strcmp(argv[1], "--child-run"))
		return child_run(argc, argv);
	if (argc > 4 && !strcmp(argv[1], "--worker"))
		return worker(argv);
	if (argc > 1 && !strcmp(argv[1], "--offsets")) {
		if (setup_region())
			return 1;
		for (s = 0; s < NSITE; s++)
			printf("%s %#lx %s\n", sites[s].name,
			       (unsigned long)region_off + sites[s].off,
			       sites[s].sym);
		return 0;
	}

	/* the supervisor */
	mode = MODE_ANY;
	if (argc > 1 && !strcmp(argv[1], "--off")) {
		mode = MODE_OFF;
		argc--;
		argv++;
	}
	if (argc != 3 && argc != 5)
		usage();
	seed = strtoul(argv[1], NULL, 0);
	nops = strtoul(argv[2], NULL, 0);
	if (setup_region())
		return 1;
	victim_fill();
	if (argc == 5) {
		if (mode == MODE_ANY)
			mode = MODE_ON;
		fd = open(argv[3], O_RDONLY);
		if (fd < 0 || dup2(fd, FD_PROFILE) != FD_PROFILE) {
			perror(argv[3]);
			return 1;
		}
		close(fd);
		printf("wb-nop5-fuzz: events %s/a, %s/b, %s/e in %s\n", argv[4],
		       argv[4], argv[4], argv[3]);
	} else if (mode == MODE_OFF) {
		usage();
	}
	if (make_victim())
		return 1;
	args[0] = exe_path;
	args[1] = "--worker";
	args[2] = (char *)mode_names[mode];
	args[3] = argv[1];
	args[4] = argv[2];
	args[5] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		setpgid(0, 0);
		/* a seed replays the same addresses */
		personality(ADDR_NO_RANDOMIZE);
		if (!geteuid() &&
		    (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		     setresuid(NOBODY, NOBODY, NOBODY))) {
			perror("wb-nop5-fuzz: cannot drop to uid 65534");
			_exit(1);
		}
		execv(exe_path, args);
		perror(exe_path);
		_exit(1);
	}
	setpgid(pid, pid);
	catch_signals();
	timeout = 300 + nops / 20;
	alarm(timeout);
	rc = waitpid(pid, &status, 0);
	alarm(0);
	if (rc != pid) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		printf("wb-nop5-fuzz: FAIL (seed %lu): not done after %u s\n",
		       seed, timeout);
		status = 1 << 8;
	} else if (WIFSIGNALED(status)) {
		printf("wb-nop5-fuzz: FAIL (seed %lu): killed by signal %d\n",
		       seed, WTERMSIG(status));
		status = 1 << 8;
	}
	/* whatever happened, the files must be as they were */
	op_no = nops;
	why = files_changed();
	if (why) {
		printf("wb-nop5-fuzz: FAIL (seed %lu): after the run: %s\n",
		       seed, why);
		status = 1 << 8;
	}
	close(victim_fd);
	if (unlink(VICTIM))
		perror("wb-nop5-fuzz: unlink " VICTIM);
	return WEXITSTATUS(status) ? 1 : 0;
}
#endif /* __x86_64__ */
