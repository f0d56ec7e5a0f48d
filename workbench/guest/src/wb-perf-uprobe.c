// SPDX-License-Identifier: GPL-2.0
/*
 * wb-perf-uprobe: count uprobe hits through perf_event_open(2), as the
 * guest has no perf tool.  The counter follows one run of "wb-demo 5"
 * (which calls wb_demo_add five times) and the result is printed as
 * "count N".
 *
 * usage:
 *   wb-perf-uprobe pmu PATH OFFSET [ret]
 *                     a probe made by the uprobe PMU on PATH at file offset
 *                     OFFSET (a return probe with "ret")
 *   wb-perf-uprobe tp ID [ARG...]
 *                     the trace event with id ID (an event defined in
 *                     uprobe_events, from events/uprobes/EVENT/id); with
 *                     ARGs the child runs "wb-demo ARG..." instead
 *
 * The child is forked first and held on a pipe until the counter is open
 * on it; enable_on_exec starts the count when it execs wb-demo, so only
 * hits in wb-demo are counted.  Errors go to stderr, with a non-zero exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef DEMO
#define DEMO		"/usr/bin/wb-demo"
#endif
#define DEMO_CALLS	"5"
#define PMU_DIR		"/sys/bus/event_source/devices/uprobe"

static const char *prog = "wb-perf-uprobe";

static void bad_usage(void)
{
	fprintf(stderr, "usage: %s pmu PATH OFFSET [ret]\n", prog);
	fprintf(stderr, "       %s tp ID [ARG...]\n", prog);
	exit(2);
}

static void fail(const char *what)
{
	fprintf(stderr, "%s: %s: %s (errno %d)\n", prog, what, strerror(errno),
		errno);
	exit(1);
}

static void fail_msg(const char *what, const char *detail)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, detail);
	exit(1);
}

/* The first line of a sysfs file, without its newline. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		fail(path);
	if (!fgets(buf, len, f)) {
		if (ferror(f))
			fail(path);
		fail_msg(path, "empty");
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

static unsigned long long parse_num(const char *s, const char *what)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno)
		fail(what);
	if (end == s || *end != '\0')
		fail_msg(what, "not a number");
	return v;
}

/* The PMU's dynamic type number. */
static __u32 uprobe_pmu_type(void)
{
	char buf[64];

	read_line(PMU_DIR "/type", buf, sizeof(buf));
	return (__u32)parse_num(buf, PMU_DIR "/type");
}

/* The config bit that asks the PMU for a return probe ("config:N"). */
static __u64 uprobe_pmu_retprobe(void)
{
	const char *path = PMU_DIR "/format/retprobe";
	unsigned long long bit;
	char buf[64];

	read_line(path, buf, sizeof(buf));
	if (strncmp(buf, "config:", 7))
		fail_msg(path, "not a config bit");
	bit = parse_num(buf + 7, path);
	if (bit > 63)
		fail_msg(path, "bit out of range");
	return 1ULL << bit;
}

static int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			   int group_fd, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* The child: wait for the go byte, then become "wb-demo 5" (or @args). */
static void run_child(int go, char **args)
{
	char c;
	int null;
	ssize_t n;

	do {
		n = read(go, &c, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(126);	/* the parent gave up */
	close(go);

	null = open("/dev/null", O_WRONLY);
	if (null < 0 || dup2(null, STDOUT_FILENO) < 0) {
		perror("wb-perf-uprobe: child: /dev/null");
		_exit(126);
	}
	close(null);

	if (args && args[0]) {
		args[-1] = DEMO;
		execv(DEMO, args - 1);
	} else {
		execl(DEMO, DEMO, DEMO_CALLS, (char *)NULL);
	}
	perror("wb-perf-uprobe: child: exec " DEMO);
	_exit(127);
}

/* Open @attr on a child running wb-demo, wait for it, return the count. */
static __u64 count_demo(struct perf_event_attr *attr, char **args)
{
	int pipefd[2], status, fd;
	__u64 count;
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd))
		fail("pipe");
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		close(pipefd[1]);
		run_child(pipefd[0], args);
	}
	close(pipefd[0]);

	fd = perf_event_open(attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		errno = err;
		fail("perf_event_open");
	}

	if (write(pipefd[1], "g", 1) != 1)
		fail("write to child");
	close(pipefd[1]);

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			fail("waitpid");
	}
	if (!WIFEXITED(status))
		fail_msg(DEMO, "did not exit normally");
	if (WEXITSTATUS(status)) {
		fprintf(stderr, "%s: %s: exit status %d\n", prog, DEMO,
			WEXITSTATUS(status));
		exit(1);
	}

	n = read(fd, &count, sizeof(count));
	if (n < 0)
		fail("read counter");
	if (n != sizeof(count))
		fail_msg("read counter", "short read");
	close(fd);
	return count;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	char **args = NULL;

	if (argc < 2)
		bad_usage();

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.disabled = 1;
	attr.enable_on_exec = 1;

	if (!strcmp(argv[1], "pmu")) {
		if (argc < 4 || argc > 5)
			bad_usage();
		if (argc == 5 && strcmp(argv[4], "ret"))
			bad_usage();
		attr.type = uprobe_pmu_type();
		attr.config = argc == 5 ? uprobe_pmu_retprobe() : 0;
		attr.config1 = (__u64)(unsigned long)argv[2];
		attr.config2 = parse_num(argv[3], "OFFSET");
	} else if (!strcmp(argv[1], "tp")) {
		if (argc < 3)
			bad_usage();
		/* argv[2] becomes the program's name for execv() */
		if (argc > 3)
			args = argv + 3;
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = parse_num(argv[2], "ID");
	} else {
		bad_usage();
	}

	printf("count %llu\n", (unsigned long long)count_demo(&attr, args));
	if (fflush(stdout))
		fail("stdout");
	return 0;
}
