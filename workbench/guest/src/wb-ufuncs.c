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
 *   wb-ufuncs perfclose OFFS N
 *                           closes perf events while their functions run:
 *                           N events of the uprobe PMU on the first N
 *                           offsets of OFFS, each counting a second thread
 *                           of this process and sampling its every hit
 *                           into one ring buffer.  The thread calls every
 *                           function 3 times and the counts must be
 *                           exactly 3; half the events are closed while
 *                           the thread calls the functions without pause;
 *                           the other half must then count 3 more calls
 *                           exactly; the rest are closed the same way.
 *                           No sample of an event may enter the buffer
 *                           after its close returned; once an event is
 *                           closed its function's text is the file's
 *                           again; once all are, calls write nothing at
 *                           all.  Prints "perfclose ok N samples S".
 *   wb-ufuncs forks DIR MAX [US]
 *                           fork children, one about every US (200) us, until
 *                           DIR/stop exists or MAX were forked (prints
 *                           "ready" after the first); each child blocks
 *                           on a pipe.  Writes the number forked to
 *                           DIR/count, waits for DIR/go, lets the
 *                           children go: each calls every function once
 *                           and exits.  Fails if a child failed; prints
 *                           "forks N".
 *   wb-ufuncs flip DIR      until DIR/stop exists, turns write permission
 *                           on and off over the upper half of the text
 *                           that holds the functions, so that its mapping
 *                           splits and merges again (prints "ready" after
 *                           the first turn); then waits for DIR/go, calls
 *                           every function once and prints "flip N".
 *   wb-ufuncs timewrite FILE TEXT
 *                           one write(2) of TEXT to FILE, opened first;
 *                           prints how long the write took, in us.
 *   wb-ufuncs cow OFFS      a breakpoint must reach neither a fork child
 *                           that shares the text page nor the file: picks
 *                           two functions A and B of one text page; a
 *                           perf uprobe on A counting this process gives
 *                           it its own copy of the page; a child is
 *                           forked (sharing that copy); a second event,
 *                           on B, counting this process only, must show
 *                           in this process's text and not in the
 *                           child's, nor in the file; both count their
 *                           one hit.  Then, with no child, two events on
 *                           A and B in turn (the second goes into the
 *                           page the first copied) count a hit each, and
 *                           after their close the text is the file's.
 *                           Prints "cow ok".
 *
 * Errors go to stderr, with a non-zero exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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
	fprintf(stderr, "usage: %s pause | loop ROUNDS USLEEP | call FIRST N\n",
		prog);
	fprintf(stderr, "       %s perf OFFSETS N | perfclose OFFSETS N\n",
		prog);
	fprintf(stderr, "       %s forks DIR MAX [US] | cow OFFSETS | flip DIR\n",
		prog);
	fprintf(stderr, "       %s timewrite FILE TEXT\n", prog);
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

/* The perf type number of the uprobe PMU. */
static int uprobe_pmu_type(void)
{
	FILE *f = fopen(PMU_TYPE, "r");
	int type;

	if (!f || fscanf(f, "%d", &type) != 1)
		fail(PMU_TYPE);
	fclose(f);
	return type;
}

static int perf_bulk(const char *offsets, long n)
{
	struct perf_event_attr attr;
	unsigned long long *offs, count;
	long long t0, t1, t2, t3;
	struct rlimit rl;
	int *fds, type;
	long i, bad = 0;

	if (n > NFUNCS)
		usage();
	type = uprobe_pmu_type();

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

/* ---- perfclose: closing perf events while their probes are hit ---- */

#define RB_PAGES	64	/* data pages of the ring buffer */
#define ROUNDS		3	/* calls of each function in a counted step */

/* The thread the events count, and what main has it do. */
enum { T_IDLE, T_ROUNDS, T_SPIN, T_EXIT };
static pthread_mutex_t t_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t t_cond = PTHREAD_COND_INITIALIZER;
static int t_cmd = T_IDLE;
static int t_spin;		/* T_SPIN: call until it is cleared */
static pid_t t_tid;

static void *caller(void *arg)
{
	int cmd, r;

	pthread_mutex_lock(&t_lock);
	t_tid = syscall(SYS_gettid);
	pthread_cond_broadcast(&t_cond);
	for (;;) {
		while (t_cmd == T_IDLE)
			pthread_cond_wait(&t_cond, &t_lock);
		cmd = t_cmd;
		if (cmd == T_EXIT)
			break;
		pthread_mutex_unlock(&t_lock);
		if (cmd == T_ROUNDS) {
			for (r = 0; r < ROUNDS; r++)
				call_range(0, NFUNCS);
		} else {
			while (__atomic_load_n(&t_spin, __ATOMIC_ACQUIRE))
				call_range(0, NFUNCS);
		}
		pthread_mutex_lock(&t_lock);
		t_cmd = T_IDLE;
		pthread_cond_broadcast(&t_cond);
	}
	pthread_mutex_unlock(&t_lock);
	return NULL;
}

/* Give the thread @cmd; wait until it is done unless it is T_SPIN. */
static void t_command(int cmd)
{
	pthread_mutex_lock(&t_lock);
	if (cmd == T_SPIN)
		__atomic_store_n(&t_spin, 1, __ATOMIC_RELEASE);
	t_cmd = cmd;
	pthread_cond_broadcast(&t_cond);
	while (cmd != T_SPIN && cmd != T_EXIT && t_cmd != T_IDLE)
		pthread_cond_wait(&t_cond, &t_lock);
	pthread_mutex_unlock(&t_lock);
}

static void t_spin_stop(void)
{
	__atomic_store_n(&t_spin, 0, __ATOMIC_RELEASE);
	pthread_mutex_lock(&t_lock);
	while (t_cmd != T_IDLE)
		pthread_cond_wait(&t_cond, &t_lock);
	pthread_mutex_unlock(&t_lock);
}

/* One event: its function, and where the buffer stood when it closed. */
struct pc_event {
	int		fd;
	long		func;		/* index in wb_uf_table */
	unsigned long long offset;	/* in the file */
	__u64		id;
	__u64		closed_at;	/* data_head after close(); ~0: open */
	unsigned long	samples;
};

static struct pc_event *pc;
static long pc_n;
static struct perf_event_mmap_page *pc_page;
static char *pc_data;
static __u64 pc_pos;		/* how far the buffer has been read */
static unsigned long pc_samples, pc_lost, pc_late;
static int pc_self, pc_mem;	/* this program's file, /proc/self/mem */

static void pc_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: perfclose: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The first N "wb_uf_NNN 0xOFFSET" lines of @path. */
static void pc_read_offsets(const char *path)
{
	FILE *f = fopen(path, "r");
	long i;

	if (!f)
		fail(path);
	for (i = 0; i < pc_n; i++) {
		if (fscanf(f, "wb_uf_%ld %llx ", &pc[i].func, &pc[i].offset) != 2 ||
		    pc[i].func < 0 || pc[i].func >= NFUNCS)
			pc_fail("offsets line %ld is not wb_uf_NNN 0xOFFSET",
				i + 1);
	}
	fclose(f);
}

/* Is the text of event @i's function what the file holds? */
static int pc_text_is_file(long i)
{
	unsigned char mem[4], file[4];
	unsigned long addr = (unsigned long)wb_uf_table[pc[i].func];

	if (pread(pc_mem, mem, sizeof(mem), (off_t)addr) != sizeof(mem))
		fail("/proc/self/mem");
	if (pread(pc_self, file, sizeof(file), (off_t)pc[i].offset) != sizeof(file))
		fail(SELF);
	return !memcmp(mem, file, sizeof(mem));
}

static void pc_copy(__u64 pos, void *to, size_t len)
{
	__u64 size = (__u64)RB_PAGES * sysconf(_SC_PAGESIZE);
	size_t off = pos % size, first = len;

	if (first > size - off)
		first = size - off;
	memcpy(to, pc_data + off, first);
	memcpy((char *)to + first, pc_data, len - first);
}

static __u64 pc_head(void)
{
	return __atomic_load_n(&pc_page->data_head, __ATOMIC_ACQUIRE);
}

/*
 * Read what the buffer holds.  A sample of an event at or after the place
 * the buffer stood when the event's close returned was written after it.
 */
static void pc_drain(void)
{
	static const char late[] =
		"%s: perfclose: event %ld sampled at %llu, closed at %llu\n";
	__u64 head = pc_head(), id;
	struct perf_event_header h;
	long i;

	while (pc_pos < head) {
		pc_copy(pc_pos, &h, sizeof(h));
		if (h.size < sizeof(h))
			pc_fail("bad record of %u bytes at %llu", h.size,
				(unsigned long long)pc_pos);
		if (h.type == PERF_RECORD_LOST) {
			pc_lost++;
		} else if (h.type == PERF_RECORD_SAMPLE) {
			pc_copy(pc_pos + sizeof(h), &id, sizeof(id));
			for (i = 0; i < pc_n && pc[i].id != id; i++)
				;
			if (i == pc_n)
				pc_fail("sample of unknown id %llu at %llu",
					(unsigned long long)id,
					(unsigned long long)pc_pos);
			pc[i].samples++;
			pc_samples++;
			if (pc_pos >= pc[i].closed_at && !pc_late++)
				fprintf(stderr, late, prog, i,
					(unsigned long long)pc_pos,
					(unsigned long long)pc[i].closed_at);
		}
		pc_pos += h.size;
	}
	__atomic_store_n(&pc_page->data_tail, pc_pos, __ATOMIC_RELEASE);
}

static __u64 pc_count(long i)
{
	__u64 count;

	if (read(pc[i].fd, &count, sizeof(count)) != sizeof(count))
		fail("read counter");
	return count;
}

/* Close events [@from, @to) while the thread calls their functions. */
static void pc_close_racing(long from, long to)
{
	long i;

	t_command(T_SPIN);
	for (i = from; i < to; i++) {
		if (close(pc[i].fd))
			fail("close");
		pc[i].closed_at = pc_head();
		pc_drain();
	}
	t_spin_stop();
	pc_drain();
	for (i = from; i < to; i++) {
		if (!pc_text_is_file(i))
			pc_fail("event %ld closed, its function still probed",
				i);
	}
}

/* Exact counts of the open events [@from, @to) over ROUNDS calls each. */
static void pc_count_rounds(long from, long to)
{
	__u64 *before = calloc(pc_n, sizeof(*before));
	long i;

	if (!before)
		fail("calloc");
	for (i = from; i < to; i++)
		before[i] = pc_count(i);
	t_command(T_ROUNDS);
	for (i = from; i < to; i++) {
		if (pc_count(i) != before[i] + ROUNDS)
			pc_fail("event %ld counted %llu calls, not %d", i,
				(unsigned long long)(pc_count(i) - before[i]),
				ROUNDS);
	}
	free(before);
	pc_drain();
}

static int perf_close(const char *offsets, long n)
{
	long page = sysconf(_SC_PAGESIZE), i;
	struct perf_event_attr attr;
	pthread_t thread;
	int type, out;
	struct rlimit rl;
	__u64 still;

	if (n < 2 || n > NFUNCS)
		usage();
	pc_n = n;
	pc = calloc(n, sizeof(*pc));
	if (!pc)
		fail("calloc");
	pc_read_offsets(offsets);
	type = uprobe_pmu_type();
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < (rlim_t)n + 16) {
		rl.rlim_cur = n + 16;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			fail("setrlimit");
	}
	pc_self = open(SELF, O_RDONLY);
	pc_mem = open("/proc/self/mem", O_RDONLY);
	if (pc_self < 0 || pc_mem < 0)
		fail("open " SELF " or /proc/self/mem");

	if (pthread_create(&thread, NULL, caller, NULL))
		fail("pthread_create");
	pthread_mutex_lock(&t_lock);
	while (!t_tid)
		pthread_cond_wait(&t_cond, &t_lock);
	pthread_mutex_unlock(&t_lock);

	/* the ring buffer: a software event that never fires owns it */
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	out = syscall(SYS_perf_event_open, &attr, t_tid, -1, -1,
		      PERF_FLAG_FD_CLOEXEC);
	if (out < 0)
		fail("perf_event_open (dummy)");
	pc_page = mmap(NULL, (RB_PAGES + 1) * page, PROT_READ | PROT_WRITE,
		       MAP_SHARED, out, 0);
	if (pc_page == MAP_FAILED)
		fail("mmap");
	pc_data = (char *)pc_page + page;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config1 = (unsigned long long)(unsigned long)SELF;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IDENTIFIER;
	for (i = 0; i < n; i++) {
		if (pc_text_is_file(i) == 0)
			pc_fail("function of event %ld probed before it opened",
				i);
		attr.config2 = pc[i].offset;
		pc[i].fd = syscall(SYS_perf_event_open, &attr, t_tid, -1, -1,
				   PERF_FLAG_FD_CLOEXEC);
		if (pc[i].fd < 0)
			fail("perf_event_open");
		if (ioctl(pc[i].fd, PERF_EVENT_IOC_SET_OUTPUT, out))
			fail("PERF_EVENT_IOC_SET_OUTPUT");
		if (ioctl(pc[i].fd, PERF_EVENT_IOC_ID, &pc[i].id))
			fail("PERF_EVENT_IOC_ID");
		pc[i].closed_at = ~0ULL;
		if (pc_text_is_file(i))
			pc_fail("function of event %ld not probed once it opened",
				i);
	}

	pc_count_rounds(0, n);
	pc_close_racing(0, n / 2);
	pc_count_rounds(n / 2, n);
	pc_close_racing(n / 2, n);

	/* every event closed: calls write nothing */
	still = pc_head();
	t_command(T_ROUNDS);
	pc_drain();
	if (pc_head() != still)
		pc_fail("%llu bytes written after every event closed",
			(unsigned long long)(pc_head() - still));

	t_command(T_EXIT);
	pthread_join(thread, NULL);
	if (pc_late)
		pc_fail("%lu samples written after their event's close returned",
			pc_late);
	printf("perfclose ok %ld samples %lu lost %lu\n", n, pc_samples,
	       pc_lost);
	return 0;
}

static int in_dir(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !access(path, F_OK);
}

/* A text mapping that splits and merges while uprobes are removed. */
static int text_flip(const char *dir)
{
	unsigned long lo = ~0UL, hi = 0, mid, a, pg = sysconf(_SC_PAGESIZE);
	long i, flips = 0;
	int w = 0;

	for (i = 0; i < NFUNCS; i++) {
		a = (unsigned long)wb_uf_table[i];
		lo = a < lo ? a : lo;
		hi = a > hi ? a : hi;
	}
	lo &= ~(pg - 1);
	hi = (hi | (pg - 1)) + 1;
	mid = lo + ((hi - lo) / 2 & ~(pg - 1));
	if (mid == lo)
		fail("the functions fit in one page");
	while (!in_dir(dir, "stop")) {
		w = !w;
		if (mprotect((void *)mid, hi - mid,
			     PROT_READ | PROT_EXEC | (w ? PROT_WRITE : 0)))
			fail("mprotect");
		if (!flips++)
			ready();
	}
	if (w && mprotect((void *)mid, hi - mid, PROT_READ | PROT_EXEC))
		fail("mprotect");
	while (!in_dir(dir, "go"))
		usleep(10000);
	call_range(0, NFUNCS);
	printf("flip %ld\n", flips);
	return 0;
}

/* Children forked while uprobes are being installed must all have them. */
static int fork_storm(const char *dir, long max, long us)
{
	char path[512], tmp[512];
	long n = 0, i, bad = 0;
	int gate[2], status;
	char c;
	FILE *f;
	pid_t pid;

	if (pipe(gate))
		fail("pipe");
	while (n < max && !in_dir(dir, "stop")) {
		pid = fork();
		if (pid < 0)
			fail("fork");
		if (!pid) {
			close(gate[1]);
			/* EOF once the parent closes its end */
			while (read(gate[0], &c, 1) < 0 && errno == EINTR)
				;
			call_range(0, NFUNCS);
			_exit(0);
		}
		if (!n++)
			ready();
		usleep(us);
	}
	snprintf(tmp, sizeof(tmp), "%s/count.tmp", dir);
	snprintf(path, sizeof(path), "%s/count", dir);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%ld\n", n) < 0 || fclose(f) || rename(tmp, path))
		fail(path);
	while (!in_dir(dir, "go"))
		usleep(10000);
	close(gate[1]);
	for (i = 0; i < n; i++) {
		if (wait(&status) < 0)
			fail("wait");
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	if (bad) {
		fprintf(stderr, "%s: %ld of %ld children failed\n", prog, bad, n);
		return 1;
	}
	printf("forks %ld\n", n);
	return 0;
}

/* ---- cow: a breakpoint for one process only, on a page a child shares ---- */

static int cow_self, cow_type;

static int cow_open(unsigned long long offset)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = cow_type;
	attr.config1 = (unsigned long long)(unsigned long)SELF;
	attr.config2 = offset;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		fail("perf_event_open");
	return fd;
}

static unsigned long long cow_count(int fd)
{
	unsigned long long count;

	if (read(fd, &count, sizeof(count)) != sizeof(count))
		fail("read counter");
	return count;
}

/* Does this process's text of function @func hold the file's bytes? */
static int cow_text_is_file(long func, unsigned long long offset)
{
	unsigned char file[4];

	if (pread(cow_self, file, sizeof(file), (off_t)offset) != sizeof(file))
		fail(SELF);
	return !memcmp((const void *)(unsigned long)wb_uf_table[func], file,
		       sizeof(file));
}

static void cow_expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "%s: cow: %s\n", prog, what);
		exit(1);
	}
}

/*
 * Call A and B once each: their events count exactly one hit; close both:
 * the text of both is the file's again.
 */
static void cow_hit_and_close(long a, unsigned long long oa, int fa,
			      long b, unsigned long long ob, int fb)
{
	sink += wb_uf_table[a]((int)a);
	sink += wb_uf_table[b]((int)b);
	cow_expect(cow_count(fa) == 1 && cow_count(fb) == 1,
		   "an event did not count its one hit");
	close(fa);
	close(fb);
	cow_expect(cow_text_is_file(a, oa) && cow_text_is_file(b, ob),
		   "text differs from the file after the close");
}

static int cow_check(const char *offsets)
{
	unsigned long long off[NFUNCS], oa = 0, ob = 0;
	unsigned char file_a[4], file_b[4], now[4];
	long func[NFUNCS], i, j, a = -1, b = -1;
	int gate[2], fa, fb, status;
	unsigned long pa, pb;
	FILE *f;
	pid_t pid;
	char c;

	cow_type = uprobe_pmu_type();
	cow_self = open(SELF, O_RDONLY | O_CLOEXEC);
	if (cow_self < 0)
		fail(SELF);
	f = fopen(offsets, "r");
	if (!f)
		fail(offsets);
	for (i = 0; i < NFUNCS; i++) {
		if (fscanf(f, "wb_uf_%ld %llx ", &func[i], &off[i]) != 2 ||
		    func[i] < 0 || func[i] >= NFUNCS)
			break;
	}
	fclose(f);
	/* two functions whose text shares a page, in the file and in memory */
	for (j = 1; j < i && a < 0; j++) {
		pa = (unsigned long)wb_uf_table[func[j - 1]];
		pb = (unsigned long)wb_uf_table[func[j]];
		if (pa >> 12 == pb >> 12 && off[j - 1] >> 12 == off[j] >> 12 &&
		    pa != pb) {
			a = func[j - 1];
			b = func[j];
			oa = off[j - 1];
			ob = off[j];
		}
	}
	cow_expect(a >= 0, "no two functions on one page");
	if (pread(cow_self, file_a, 4, (off_t)oa) != 4 ||
	    pread(cow_self, file_b, 4, (off_t)ob) != 4)
		fail(SELF);
	cow_expect(cow_text_is_file(a, oa) && cow_text_is_file(b, ob),
		   "text differs from the file before any probe");

	fa = cow_open(oa);
	cow_expect(!cow_text_is_file(a, oa), "no breakpoint at A");
	if (pipe(gate))
		fail("pipe");
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (!pid) {
		close(gate[1]);
		while (read(gate[0], &c, 1) < 0 && errno == EINTR)
			;
		/* B's event counts the parent only: no breakpoint here */
		if (!cow_text_is_file(b, ob)) {
			fprintf(stderr, "%s: cow: the child's text of B changed\n",
				prog);
			_exit(1);
		}
		sink += wb_uf_table[b]((int)b);
		_exit(0);
	}
	close(gate[0]);
	fb = cow_open(ob);
	cow_expect(!cow_text_is_file(b, ob), "no breakpoint at B in the parent");
	close(gate[1]);
	if (waitpid(pid, &status, 0) != pid)
		fail("waitpid");
	cow_expect(WIFEXITED(status) && !WEXITSTATUS(status),
		   "the child failed");
	cow_hit_and_close(a, oa, fa, b, ob, fb);

	/* no child: the second breakpoint goes into the first one's copy */
	fa = cow_open(oa);
	fb = cow_open(ob);
	cow_expect(!cow_text_is_file(a, oa) && !cow_text_is_file(b, ob),
		   "no breakpoint at A or B (no child)");
	cow_hit_and_close(a, oa, fa, b, ob, fb);
	if (pread(cow_self, now, 4, (off_t)oa) != 4 || memcmp(now, file_a, 4) ||
	    pread(cow_self, now, 4, (off_t)ob) != 4 || memcmp(now, file_b, 4))
		cow_expect(0, "the file changed");
	printf("cow ok\n");
	return 0;
}

/*
 * "timewrite FILE TEXT": one write(2) of TEXT to FILE, opened beforehand,
 * and how long the write took in microseconds on stdout.  For the bench
 * rows of a tracer switch without a shell's fork and exec in the figure
 * (which run traced while the tracer is on).
 */
static int time_write(const char *path, const char *text)
{
	struct timespec a, b;
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		fail(path);
	clock_gettime(CLOCK_MONOTONIC, &a);
	n = write(fd, text, strlen(text));
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (n != (ssize_t)strlen(text))
		fail(path);
	close(fd);
	printf("%lld\n", ((long long)(b.tv_sec - a.tv_sec) * 1000000000LL +
			  (b.tv_nsec - a.tv_nsec)) / 1000);
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
	if (argc == 4 && !strcmp(argv[1], "perfclose"))
		return perf_close(argv[2], num(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "flip"))
		return text_flip(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "cow"))
		return cow_check(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "timewrite"))
		return time_write(argv[2], argv[3]);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "forks"))
		return fork_storm(argv[2], num(argv[3]),
				  argc == 5 ? num(argv[4]) : 200);
	usage();
	return 2;
}
