// SPDX-License-Identifier: GPL-2.0
/*
 * wb-perf-kprobe: open many perf kprobe events (the kprobe PMU of
 * perf_event_open(2), which makes a local probe for each) and close them
 * all while a return probe's call is still in flight, as the guest has no
 * perf tool.
 *
 * usage:
 *   wb-perf-kprobe N FUNC [ret]
 *	open N counters on the kernel function FUNC for this process (return
 *	probes with "ret"), then fork a child that sleeps SLEEP_MS in
 *	nanosleep(2), sleep a little in nanosleep(2) and fork once more
 *	ourselves (so that a probe on a fork or sleep function counts),
 *	read every counter, close them all while the child still sleeps,
 *	and wait for the child.  A return probe on the sleep path then has
 *	calls that entered while it was armed and return after its close.
 *
 * Prints "min_count C" (the smallest count read) and "close_us T" (the
 * time the N closes took, in microseconds).  Errors go to stderr, with a
 * non-zero exit.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PMU_DIR		"/sys/bus/event_source/devices/kprobe"
#define SLEEP_MS	800
#define MAX_EVENTS	4096

static void die(const char *what)
{
	fprintf(stderr, "wb-perf-kprobe: %s: %s (errno %d)\n", what,
		strerror(errno), errno);
	exit(1);
}

static void die_msg(const char *what, const char *why)
{
	fprintf(stderr, "wb-perf-kprobe: %s: %s\n", what, why);
	exit(1);
}

/* The number in the sysfs file @path, after @prefix. */
static unsigned long sysfs_number(const char *path, const char *prefix)
{
	size_t plen = strlen(prefix);
	char line[64], *end;
	unsigned long v;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		die(path);
	if (!fgets(line, sizeof(line), f))
		die_msg(path, "empty");
	fclose(f);
	if (strncmp(line, prefix, plen))
		die_msg(path, "unexpected contents");
	errno = 0;
	v = strtoul(line + plen, &end, 10);
	if (errno || end == line + plen)
		die_msg(path, "not a number");
	return v;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	static int fds[MAX_EVENTS];
	struct perf_event_attr attr;
	unsigned long long count, min = ~0ULL;
	long long t0, t1;
	pid_t child, other;
	int i, n, status;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "ret"))) {
		fprintf(stderr, "usage: wb-perf-kprobe N FUNC [ret]\n");
		return 2;
	}
	n = atoi(argv[1]);
	if (n < 1 || n > MAX_EVENTS)
		die_msg(argv[1], "N must be 1 to 4096");

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = sysfs_number(PMU_DIR "/type", "");
	if (argc == 4)
		attr.config = 1ULL << sysfs_number(PMU_DIR "/format/retprobe",
						   "config:");
	attr.kprobe_func = (unsigned long)argv[2];
	attr.probe_offset = 0;

	for (i = 0; i < n; i++) {
		fds[i] = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
		if (fds[i] < 0)
			die("perf_event_open");
	}

	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		sleep_ms(SLEEP_MS);
		_exit(0);
	}
	/* hits of our own: a sleep, and a fork */
	sleep_ms(50);
	other = fork();
	if (other < 0)
		die("fork");
	if (!other)
		_exit(0);
	if (waitpid(other, &status, 0) != other)
		die("waitpid");

	for (i = 0; i < n; i++) {
		if (read(fds[i], &count, sizeof(count)) != sizeof(count))
			die("read");
		if (count < min)
			min = count;
	}

	t0 = now_us();
	for (i = 0; i < n; i++)
		close(fds[i]);
	t1 = now_us();

	if (waitpid(child, &status, 0) != child)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		die_msg("child", "did not exit cleanly");
	printf("min_count %llu\nclose_us %lld\n", min, t1 - t0);
	return 0;
}
