// SPDX-License-Identifier: GPL-2.0
/*
 * wb-fuzz: seeded, reproducible fuzzing of the tracefs write interfaces.
 *
 *   wb-fuzz [-s SEED] [-n COUNT] [-t TARGET]   generate COUNT inputs
 *   wb-fuzz -r FILE...                          replay saved inputs
 *   wb-fuzz -p                                  privilege checks (as root:
 *                                               drops to uid/gid 65534)
 *
 * The privilege checks also open up /sys/kernel/debug/kprobes/ for a
 * moment, as an administrator might (list and blacklist world-readable,
 * the directories searchable), and check that a reader of uid 65534
 * then sees no kernel address in them and still cannot write enabled.
 *
 * Each input is one write(2) to one file: kprobe_events, uprobe_events,
 * dynamic_events, set_ftrace_filter, set_ftrace_notrace (with function
 * commands and :mod:), set_graph_function, set_ftrace_pid, or an event's
 * filter or trigger file.  Inputs are lines of the valid grammar, then
 * mutated: truncated, numbers made huge, dereferences nested deep, types
 * made odd, names made long, quotes and braces unbalanced, bytes that are
 * not UTF-8 put in.
 *
 * The contract checked for every input:
 *  - the write either fails with an errno, or succeeds;
 *  - a rejected probe definition leaves an entry in error_log;
 *  - whatever it did can be undone (a defined event removed, a filter
 *    reset, a trigger removed), and afterwards the file reads exactly as
 *    before the input.
 * The host checks the kernel console (no splat) and, under the debug
 * flavour, kmemleak.
 *
 * Output: a progress line every 1000 inputs, one "FUZZ-FAIL" line per
 * broken contract with the input in hex (the host saves it as a replay
 * file), and a summary.  The exit code is 1 when any contract broke.
 *
 * Replay files: the first line names the target, the rest is the input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TR "/sys/kernel/tracing/"
#define MAXIN 8192
#define MAXFILE (1 << 20)

enum kind { K_PROBE, K_FILTER, K_GRAPH, K_PID, K_EVFILTER, K_TRIGGER };

struct target {
	const char *name;	/* also the file under TR */
	enum kind kind;
	int can_fail;		/* set when the file is missing */
};

static struct target targets[] = {
	{ "kprobe_events", K_PROBE },
	{ "uprobe_events", K_PROBE },
	{ "dynamic_events", K_PROBE },
	{ "set_ftrace_filter", K_FILTER },
	{ "set_ftrace_notrace", K_FILTER },
	{ "set_graph_function", K_GRAPH },
	{ "set_ftrace_pid", K_PID },
	{ "events/sched/sched_switch/filter", K_EVFILTER },
	{ "events/sched/sched_switch/trigger", K_TRIGGER },
};
#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

static uint64_t rng;

static uint64_t rnd(void)
{
	/* xorshift64*: small, and the same sequence everywhere */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static unsigned int pick(unsigned int n)
{
	return n ? rnd() % n : 0;
}

#define PICK(a) ((a)[pick(sizeof(a) / sizeof((a)[0]))])

static int failures, accepted, rejected, nolog;

static char *read_file(const char *path, size_t *len)
{
	static char buf[2][MAXFILE];
	static int which;
	char *b = buf[which ^= 1];
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		*len = 0;
		b[0] = 0;
		return b;
	}
	while (n < MAXFILE - 1 && (r = read(fd, b + n, MAXFILE - 1 - n)) > 0)
		n += r;
	close(fd);
	b[n] = 0;
	*len = n;
	return b;
}

static char *dup_file(const char *path)
{
	size_t len;
	char *s = read_file(path, &len);

	return strdup(s);
}

/* Write @len bytes in one write(2); returns 0 or the errno. */
static int write_file(const char *path, const char *buf, size_t len, int flags)
{
	int fd = open(path, O_WRONLY | flags);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, buf, len) < 0)
		err = errno;
	if (close(fd) < 0 && !err)
		err = errno;
	return err;
}

static void hexdump(FILE *f, const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		fprintf(f, "%02x", (unsigned char)buf[i]);
}

static void fail(const struct target *t, const char *in, size_t len,
		 const char *fmt, ...)
{
	va_list ap;

	failures++;
	printf("FUZZ-FAIL %s ", t->name);
	hexdump(stdout, in, len);
	printf(" ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void note(const struct target *t, const char *in, size_t len,
		 const char *err)
{
	printf("FUZZ-NOLOG %s ", t->name);
	hexdump(stdout, in, len);
	printf(" %s\n", err);
}

static void print_first_difference(const char *a, const char *b)
{
	size_t i = 0, la, lb;

	while (a[i] && a[i] == b[i])
		i++;
	while (i && a[i - 1] != '\n')
		i--;
	la = strcspn(a + i, "\n");
	lb = strcspn(b + i, "\n");
	printf("# before: '%.*s'\n# after:  '%.*s'\n", (int)(la > 200 ? 200 : la),
	       a + i, (int)(lb > 200 ? 200 : lb), b + i);
}

/* ---- generation ---------------------------------------------------- */

static const char *ksyms[] = {
	"vfs_read", "vfs_write", "do_sys_openat2", "kernel_clone",
	"schedule", "__x64_sys_getpid", "ksys_read", "vfs_*", "*read*",
	"no_such_function_xyz", "_text", "wb_nothing", "do_exit",
	"ftrace_stub", "kprobe_ftrace_handler", "__fentry__",
};

/*
 * Registers by the names of the machine the fuzzer runs on, so that the
 * same seed produces valid register arguments there (the same number of
 * strings on every machine: the sequence of choices does not change).
 */
#if defined(__aarch64__)
#define FZ_RA	"%x0"		/* the return value */
#define FZ_R1	"%x0"		/* first argument */
#define FZ_R2	"%x1"
#define FZ_PC	"%pc"
#else
#define FZ_RA	"%ax"
#define FZ_R1	"%di"
#define FZ_R2	"%si"
#define FZ_PC	"%ip"
#endif

static const char *fetchargs[] = {
	"$arg1", "$arg2", "$arg9", "$arg0", "$retval", "$stack", "$stack0",
	"$stack99999", "$comm", "$comm:string", FZ_RA, FZ_R1 ":x64",
	FZ_R2 ":u32", "%sp", "%nosuchreg", "@jiffies", "@jiffies+8:u16",
	"@0x1000", "+0($stack):u64", "-8(%sp):s32", "+0(" FZ_R1 "):string",
	"+0(" FZ_R1 "):ustring", "+0(" FZ_R1 "):symstr", FZ_RA ":b4@3/32",
	FZ_RA ":b65@0/64", FZ_RA ":b0@0/8", FZ_R1 ":x8[4]", FZ_R1 ":u16[0]",
	FZ_R1 ":char[99999]", "+0(" FZ_R1 "):string[2]", FZ_RA ":u128",
	FZ_RA ":x7", FZ_RA ":", ":u32", "\\\"imm\"", "\\1234", "\\-1:s64",
	"+0(+8(+16(" FZ_R1 "))):u8", "$arg1->next", "file->f_mode",
	"count", "buf:string", "prev_pid", "$prev_pid", "next_comm:string",
	"@+8", "@+0x10:x32", "+0(@+4):u8", "$argx", FZ_PC, FZ_PC ":symbol",
};

static const char *uprobe_paths[] = {
	"/usr/bin/wb-demo", "/bin/busybox", "/nonexistent", "/proc/self/exe",
	"/dev/null", "/usr/bin/wb-demo:",
};

static const char *filter_cmds[] = {
	"", ":traceon", ":traceoff:3", ":snapshot", ":stacktrace",
	":dump", ":cpudump", ":enable_event:sched:sched_switch",
	":disable_event:sched:sched_wakeup:2", ":mod:wb_ops_demo",
	":mod:*", ":mod:", ":enable_event:nosys:noev", ":nosuchcmd",
	":traceon:-1", ":traceon:99999999999999999999",
};

static const char *ev_fields[] = {
	"prev_pid", "next_pid", "prev_comm", "next_comm", "prev_prio",
	"common_pid", "prev_state", "nosuchfield", "cpu", "COMM",
};

static const char *ev_ops[] = {
	"==", "!=", ">", "<", ">=", "<=", "&", "~", "=", "!", "&&", "||",
};

static const char *triggers[] = {
	"traceon", "traceoff", "snapshot", "stacktrace",
	"enable_event:sched:sched_wakeup", "disable_event:sched:sched_wakeup",
	"hist:keys=prev_pid", "hist:keys=next_comm:vals=hitcount:sort=hitcount",
	"hist:keys=prev_pid.hex:size=64", "hist:key=nosuch", "nosuchtrigger",
	"hist:keys=common_pid:vals=prev_prio:onmax(prev_prio).save(next_comm)",
};

static int put(char *buf, int n, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (n >= MAXIN - 1)
		return n;
	va_start(ap, fmt);
	r = vsnprintf(buf + n, MAXIN - n, fmt, ap);
	va_end(ap);
	n += r;
	return n < MAXIN ? n : MAXIN - 1;
}

static int gen_args(char *buf, int n, int max)
{
	int i, nargs = pick(max + 1);

	for (i = 0; i < nargs; i++) {
		if (pick(3) == 0)
			n = put(buf, n, " a%d=%s", i, PICK(fetchargs));
		else
			n = put(buf, n, " %s", PICK(fetchargs));
	}
	return n;
}

static int gen_event_name(char *buf, int n)
{
	switch (pick(6)) {
	case 0:
		return n;	/* default name */
	case 1:
		return put(buf, n, ":wbfz%u", pick(4));
	default:
		return put(buf, n, ":wbfuzz/ev%u", pick(8));
	}
}

static int gen_probe(const struct target *t, char *buf)
{
	int n = 0;
	int kind = pick(10);

	if (kind == 0)
		return put(buf, 0, "-:wbfuzz/ev%u", pick(8));
	if (!strcmp(t->name, "uprobe_events") ||
	    (!strcmp(t->name, "dynamic_events") && kind == 1)) {
		n = put(buf, n, "%c", pick(3) ? 'p' : 'r');
		n = gen_event_name(buf, n);
		n = put(buf, n, " %s:0x%x", PICK(uprobe_paths), pick(3) ?
			(unsigned int)pick(0x2000) : (unsigned int)rnd());
		if (pick(4) == 0)
			n = put(buf, n, "(0x%x)", pick(0x100));
		if (pick(4) == 0)
			n = put(buf, n, "%%return");
		return gen_args(buf, n, 4);
	}
	if (!strcmp(t->name, "dynamic_events") && kind < 5) {
		switch (pick(3)) {
		case 0:
			n = put(buf, n, "f");
			n = gen_event_name(buf, n);
			n = put(buf, n, " %s%s", PICK(ksyms),
				pick(3) ? "" : "%return");
			break;
		case 1:
			n = put(buf, n, "t");
			n = gen_event_name(buf, n);
			n = put(buf, n, " %s", pick(3) ? "sched_switch" :
				"no_such_tracepoint");
			break;
		default:
			n = put(buf, n, "e");
			n = gen_event_name(buf, n);
			n = put(buf, n, " %s", pick(3) ? "sched.sched_switch" :
				"sched/nosuch");
			break;
		}
		return gen_args(buf, n, 4);
	}
	n = put(buf, n, "%c", pick(3) ? 'p' : 'r');
	if (pick(5) == 0)
		n = put(buf, n, "%u", pick(3) ? pick(20) : (unsigned int)rnd());
	n = gen_event_name(buf, n);
	switch (pick(4)) {
	case 0:
		n = put(buf, n, " %s+%u", PICK(ksyms), pick(3) ? 0 : pick(64));
		break;
	case 1:
		n = put(buf, n, " 0x%llx", (unsigned long long)rnd());
		break;
	default:
		n = put(buf, n, " %s", PICK(ksyms));
	}
	return gen_args(buf, n, 5);
}

static int gen_line(const struct target *t, char *buf)
{
	int n = 0, i;

	switch (t->kind) {
	case K_PROBE:
		return gen_probe(t, buf);
	case K_FILTER:
		if (pick(5) == 0)
			n = put(buf, n, "!");
		n = put(buf, n, "%s%s", PICK(ksyms), PICK(filter_cmds));
		return n;
	case K_GRAPH:
		for (i = pick(3) + 1; i > 0; i--)
			n = put(buf, n, "%s%s ", pick(6) ? "" : "!", PICK(ksyms));
		return n;
	case K_PID:
		for (i = pick(4) + 1; i > 0; i--)
			n = put(buf, n, "%s ", pick(3) ? "1" :
				pick(2) ? "99999999999" : "-5");
		return n;
	case K_EVFILTER:
		for (i = pick(3) + 1; i > 0; i--) {
			if (n)
				n = put(buf, n, " %s ", pick(2) ? "&&" : "||");
			n = put(buf, n, "%s%s %s %s", pick(5) ? "" : "(",
				PICK(ev_fields), PICK(ev_ops),
				pick(2) ? "10" : "\"wb*\"");
		}
		return n;
	case K_TRIGGER:
		n = put(buf, n, "%s%s", pick(6) ? "" : "!", PICK(triggers));
		if (pick(3) == 0)
			n = put(buf, n, ":%u", pick(5));
		if (pick(3) == 0)
			n = put(buf, n, " if %s %s %s", PICK(ev_fields),
				PICK(ev_ops), pick(2) ? "0" : "\"x\"");
		return n;
	}
	return n;
}

/* One mutation of @buf (length @n); returns the new length. */
static int mutate(char *buf, int n)
{
	static const char *huge[] = {
		"99999999999999999999", "18446744073709551616", "-1",
		"0x8000000000000000", "4294967296", "0xffffffffffffffff",
	};
	static const char *junk[] = {
		"\xff", "\xc3", "\xe2\x82", "\"", "'", "(", ")", "[", "]",
		"{", "}", "\\", "%", "$", "@", "+", ":", "=", ",", "\t", " ",
		"\n", "#", ";", "!", "*", "\x01", "->",
	};
	int pos = n ? pick(n + 1) : 0, len, i;
	char tmp[MAXIN];

	switch (pick(9)) {
	case 0:		/* truncate */
		return pos;
	case 1:		/* a number made huge */
		for (i = pos; i < n && !(buf[i] >= '0' && buf[i] <= '9'); i++)
			;
		if (i == n)
			i = pos;
		len = snprintf(tmp, sizeof(tmp), "%s%s", PICK(huge), buf + i);
		if (i + len >= MAXIN)
			return n;
		memcpy(buf + i, tmp, len + 1);
		return i + len;
	case 2:		/* deep dereference */
		len = pick(3) ? pick(16) + 1 : 200;
		tmp[0] = 0;
		for (i = 0; i < len && strlen(tmp) + 8 < sizeof(tmp) / 2; i++)
			strcat(tmp, "+0(");
		strcat(tmp, "%di");
		for (; i > 0; i--)
			strcat(tmp, ")");
		strcat(tmp, pick(2) ? ":u8" : ":string");
		if (n + 1 + strlen(tmp) >= MAXIN)
			return n;
		return put(buf, n, " %s", tmp);
	case 3:		/* a very long name */
		len = pick(2) ? 300 : 4000;
		if (pos + len + (n - pos) >= MAXIN - 1)
			return n;
		memmove(buf + pos + len, buf + pos, n - pos + 1);
		memset(buf + pos, 'a' + pick(26), len);
		return n + len;
	case 4:		/* odd type on the last argument */
		return put(buf, n, ":%s", pick(2) ? "u3" : pick(2) ? "x128" :
			   pick(2) ? "string[" : "b99@99/8");
	case 5:		/* many arguments */
		for (i = pick(200); i > 0; i--)
			n = put(buf, n, " %%ax");
		return n;
	default:	/* junk bytes */
		for (i = pick(3) + 1; i > 0; i--) {
			const char *j = PICK(junk);

			len = strlen(j);
			pos = n ? pick(n + 1) : 0;
			if (n + len >= MAXIN - 1)
				break;
			memmove(buf + pos + len, buf + pos, n - pos + 1);
			memcpy(buf + pos, j, len);
			n += len;
		}
		return n;
	}
}

/* ---- undo and compare --------------------------------------------- */

static char path_buf[512];

static const char *tpath(const char *name)
{
	snprintf(path_buf, sizeof(path_buf), TR "%s", name);
	return path_buf;
}

/* Remove every probe line of @now that @before does not have. */
static int undo_probes(const struct target *t, const char *before)
{
	char *now = dup_file(tpath(t->name)), *line, *save, *sp, *name;
	char cmd[600];
	int err, ret = 0;

	for (line = strtok_r(now, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t l = strlen(line);
		const char *p = before;
		int found = 0;

		while ((p = strstr(p, line))) {
			if ((p == before || p[-1] == '\n') &&
			    (p[l] == '\n' || !p[l])) {
				found = 1;
				break;
			}
			p += l;
		}
		if (found)
			continue;
		sp = strchr(line, ' ');
		if (sp)
			*sp = 0;
		name = strchr(line, ':');
		if (!name)
			continue;
		snprintf(cmd, sizeof(cmd), "-%s", name);
		err = write_file(tpath(t->name), cmd, strlen(cmd), O_APPEND);
		if (err) {
			printf("# undo '%s' failed: %s\n", cmd, strerror(err));
			ret = -1;
		}
	}
	free(now);
	return ret;
}

/* Remove function commands ("func:cmd...") and clear the filter. */
static int undo_filter(const struct target *t)
{
	char *now = dup_file(tpath(t->name)), *line, *save, *c;
	const char *limit;
	char cmd[600];
	int ret = 0, keep;

	for (line = strtok_r(now, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		/*
		 * "func:cmd:LIMIT", or "func:cmd:sys:event:LIMIT" for the
		 * event commands.  A probe with a count is another probe
		 * than one without, so a counted one is removed with a
		 * count: "!func:cmd[:sys:event][:N]".
		 */
		c = strchr(line, ':');
		if (!c)
			continue;
		keep = !strncmp(c + 1, "enable_event:", 13) ||
		       !strncmp(c + 1, "disable_event:", 14) ? 3 : 1;
		for (; c && keep; keep--)
			c = strchr(c + 1, ':');
		limit = c ? c + 1 : "unlimited";
		if (c)
			*c = 0;
		/*
		 * One removal per command for all its functions ("*"):
		 * 6.12's snapshot command arms the snapshot once per
		 * registration and disarms it once per removal, so
		 * removing its functions one by one trips the WARN in
		 * tracing_disarm_snapshot() (workbench/NOTES.md, "Reliability").
		 */
		c = strchr(line, ':');
		if (!strcmp(limit, "unlimited"))
			snprintf(cmd, sizeof(cmd), "!*%s", c);
		else
			snprintf(cmd, sizeof(cmd), "!*%s:1", c);
		/* a refused removal shows in the comparison that follows */
		write_file(tpath(t->name), cmd, strlen(cmd), O_APPEND);
	}
	free(now);
	if (write_file(tpath(t->name), "", 0, O_TRUNC))
		ret = -1;
	return ret;
}

/*
 * Remove every trigger listed.  A hist trigger is matched with its filter,
 * so it is removed by its whole line (less " [active]"); the others by
 * their first word, as ftracetest's clear_trigger does.
 */
static int undo_trigger(const struct target *t)
{
	char *now = dup_file(tpath(t->name)), *line, *save, *sp;
	char cmd[MAXIN + 2];

	for (line = strtok_r(now, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		sp = strstr(line, " [");
		if (sp)
			*sp = 0;
		snprintf(cmd, sizeof(cmd), "!%s", line);
		if (!write_file(tpath(t->name), cmd, strlen(cmd), O_APPEND))
			continue;
		sp = strchr(line, ' ');
		if (sp)
			*sp = 0;
		snprintf(cmd, sizeof(cmd), "!%s", line);
		write_file(tpath(t->name), cmd, strlen(cmd), O_APPEND);
	}
	free(now);
	return 0;
}

static int undo(const struct target *t, const char *before)
{
	switch (t->kind) {
	case K_PROBE:
		return undo_probes(t, before);
	case K_FILTER:
		return undo_filter(t);
	case K_GRAPH:
	case K_PID:
		return write_file(tpath(t->name), "", 0, O_TRUNC) ? -1 : 0;
	case K_EVFILTER:
		return write_file(tpath(t->name), "0", 1, O_TRUNC) ? -1 : 0;
	case K_TRIGGER:
		return undo_trigger(t);
	}
	return 0;
}

static size_t longest_line(const char *in, size_t len)
{
	size_t best = 0, cur = 0, i;

	for (i = 0; i < len; i++) {
		if (in[i] == '\n') {
			cur = 0;
			continue;
		}
		if (++cur > best)
			best = cur;
	}
	return best;
}

/* Is this input a probe definition (which must log why it is refused)? */
static int is_definition(const struct target *t, const char *in, size_t len)
{
	size_t i = 0;

	if (t->kind != K_PROBE)
		return 0;
	while (i < len && (in[i] == ' ' || in[i] == '\t'))
		i++;
	return i < len && strchr("prfteu", in[i]) && in[i];
}

static void run_one(struct target *t, const char *in, size_t len)
{
	char *before, *after;
	int err, def;

	before = dup_file(tpath(t->name));
	def = is_definition(t, in, len);
	if (def)
		write_file(tpath("error_log"), "", 0, O_TRUNC);

	err = write_file(tpath(t->name), in, len,
			 t->kind == K_EVFILTER ? O_TRUNC : O_APPEND);
	if (err) {
		rejected++;
		if (def) {
			size_t l;

			read_file(tpath("error_log"), &l);
			/*
			 * A line of WRITE_BUFSIZE (4096) bytes or more is
			 * refused before any parser sees it (a console
			 * warning says so, as in 6.12).
			 */
			if (!l && err != ENOMEM && err != EEXIST &&
			    err != EBUSY && longest_line(in, len) < 4095) {
				/*
				 * uprobe_events is ours: every refusal logs.
				 * The other front ends are still upstream's,
				 * which refuse some lines silently (E2BIG,
				 * lines that name no probe): noted only.
				 */
				nolog++;
				if (!strcmp(t->name, "uprobe_events"))
					fail(t, in, len, "rejected (%s) without an error_log entry",
					     strerror(err));
				else
					note(t, in, len, strerror(err));
			}
		}
	} else {
		accepted++;
	}
	if (undo(t, before))
		fail(t, in, len, "cannot undo the input");
	after = dup_file(tpath(t->name));
	if (strcmp(before, after)) {
		print_first_difference(before, after);
		fail(t, in, len, "the file reads differently afterwards");
	}
	free(before);
	free(after);
}

/* ---- privilege ----------------------------------------------------- */

#define DBG "/sys/kernel/debug/"
#define KPD DBG "kprobes/"

/*
 * @path's lines (at most @max looked at) hold no kernel address: the
 * first field, a run of hex digits with or without "0x" and one '-'
 * (the blacklist's "START-END"), has only zeros.  Returns the number
 * of lines with an address, or -1 if @path cannot be read.
 */
static int lines_with_address(const char *path, int max, int *lines)
{
	char *text = dup_file(path), *line, *save;
	int bad = 0;

	*lines = 0;
	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line && *lines < max;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *c;

		(*lines)++;
		for (c = line; *c && *c != ' ' && *c != '\t'; c++) {
			if (*c == 'x' && c > line && c[-1] == '0' &&
			    (c == line + 1 || c[-2] == '-'))
				continue;
			if (*c != '0' && *c != '-') {
				if (bad < 3)
					printf("# %s as uid 65534: an address in \"%.60s\"\n",
					       path, line);
				bad++;
				break;
			}
		}
	}
	free(text);
	return bad;
}

/*
 * As root: put a kprobe in kprobes/list, open the directory up for
 * reading, and let a child of uid 65534 read list and blacklist and try
 * to write enabled; then put everything back.  Returns the number of
 * problems found.
 */
static int kprobes_debugfs_checks(void)
{
	static const char def[] = "p:wbpriv/dbg vfs_read\n";
	static const char undef[] = "-:wbpriv/dbg\n";
	static const struct { const char *path; mode_t mode; } open_up[] = {
		{ DBG, 0755 }, { KPD, 0755 },
		{ KPD "list", 0444 }, { KPD "blacklist", 0444 },
	};
	struct stat st[4];
	char *kptr = NULL;
	int bad = 0, status, i, n;
	pid_t pid;

	if (access(KPD "list", F_OK)) {
		printf("# no %s: the kprobes debugfs check is skipped\n", KPD);
		return 0;
	}
	if (write_file(tpath("kprobe_events"), def, strlen(def), O_APPEND)) {
		printf("# cannot define %s", def);
		return 1;
	}
	for (i = 0; i < 4; i++) {
		if (stat(open_up[i].path, &st[i]) ||
		    chmod(open_up[i].path, open_up[i].mode)) {
			printf("# cannot open up %s: %s\n", open_up[i].path,
			       strerror(errno));
			bad++;
			n = i;
			goto restore;
		}
	}
	n = 4;
	/*
	 * kptr_restrict 1: only CAP_SYSLOG sees addresses, whatever
	 * perf_event_paranoid an earlier test left (at 0, readers allowed
	 * perf would see them, as in /proc/kallsyms).
	 */
	kptr = dup_file("/proc/sys/kernel/kptr_restrict");
	if (write_file("/proc/sys/kernel/kptr_restrict", "1\n", 2, 0)) {
		printf("# cannot set kptr_restrict\n");
		bad++;
		goto restore;
	}

	pid = fork();
	if (pid == 0) {
		int lines, err, child_bad = 0;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(100);
		err = lines_with_address(KPD "list", 100000, &lines);
		if (err < 0 || !lines) {
			printf("# %s as uid 65534: %s\n", KPD "list",
			       err < 0 ? "unreadable once opened up" : "empty");
			child_bad++;
		} else {
			child_bad += err;
		}
		err = lines_with_address(KPD "blacklist", 100000, &lines);
		if (err < 0 || !lines) {
			printf("# %s as uid 65534: %s\n", KPD "blacklist",
			       err < 0 ? "unreadable once opened up" : "empty");
			child_bad++;
		} else {
			child_bad += err;
		}
		err = write_file(KPD "enabled", "0\n", 2, 0);
		if (err != EACCES && err != EPERM) {
			printf("# write %s as uid 65534: %s\n", KPD "enabled",
			       err ? strerror(err) : "accepted");
			child_bad++;
		}
		fflush(stdout);
		_exit(child_bad > 99 ? 99 : child_bad);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 100) {
		printf("# the uid 65534 reader of %s did not run\n", KPD);
		bad++;
	} else {
		bad += WEXITSTATUS(status);
	}
restore:
	if (kptr) {
		write_file("/proc/sys/kernel/kptr_restrict", kptr, strlen(kptr), 0);
		free(kptr);
	}
	for (i = n - 1; i >= 0; i--)
		chmod(open_up[i].path, st[i].st_mode & 07777);
	write_file(tpath("kprobe_events"), undef, strlen(undef), O_APPEND);
	return bad;
}

static int priv_checks(void)
{
	static const char *writes[] = {
		"kprobe_events", "uprobe_events", "dynamic_events",
		"set_ftrace_filter", "set_ftrace_notrace", "set_graph_function",
		"set_ftrace_pid", "current_tracer", "tracing_on",
		"events/sched/sched_switch/enable", "events/enable",
		"events/sched/sched_switch/filter", "events/sched/sched_switch/trigger",
		"kprobe_profile", "trace",
	};
	static const char *reads[] = {
		"trace", "trace_pipe", "kprobe_events", "uprobe_events",
		"kprobe_profile", "uprobe_profile", "enabled_functions",
		"available_filter_functions", "error_log", "set_ftrace_filter",
	};
	static const char line[] = "p:wbpriv/ev vfs_read\n";
	unsigned int i;
	int bad = 0, fd;

	/* Counted in the one verdict below, whose name the baselines keep. */
	bad = kprobes_debugfs_checks();
	printf("# kprobes debugfs opened up: %s\n",
	       bad ? "addresses shown or enabled writable" :
	       "no address shown to uid 65534, enabled not writable");
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
		printf("not ok 1 privilege: cannot drop to uid 65534\n");
		return 1;
	}
	for (i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
		int err = write_file(tpath(writes[i]), line, strlen(line), O_APPEND);

		if (err != EACCES && err != EPERM) {
			printf("# write %s as uid 65534: %s\n", writes[i],
			       err ? strerror(err) : "accepted");
			bad++;
		}
	}
	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		fd = open(tpath(reads[i]), O_RDONLY | O_NONBLOCK);
		if (fd >= 0) {
			printf("# open %s for reading as uid 65534: allowed\n",
			       reads[i]);
			close(fd);
			bad++;
		}
	}
	printf("%s 1 privilege: uid 65534 cannot define, enable, read or filter\n",
	       bad ? "not ok" : "ok");
	return !!bad;
}

/* ---- main ---------------------------------------------------------- */

static struct target *target_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < NTARGETS; i++)
		if (!strcmp(targets[i].name, name))
			return &targets[i];
	return NULL;
}

static int replay(int argc, char **argv)
{
	static char in[MAXIN + 600];
	int i;

	for (i = 0; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		char name[256];
		struct target *t;
		size_t len;
		int before = failures;

		if (!f || !fgets(name, sizeof(name), f)) {
			printf("# %s: unreadable\n", argv[i]);
			failures++;
			continue;
		}
		name[strcspn(name, "\n")] = 0;
		len = fread(in, 1, sizeof(in) - 1, f);
		fclose(f);
		t = target_named(name);
		if (!t) {
			printf("# %s: unknown target %s\n", argv[i], name);
			failures++;
			continue;
		}
		run_one(t, in, len);
		printf("%s %d fuzz replay %s\n", failures == before ? "ok" : "not ok",
		       i + 1, strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i]);
	}
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	static char in[MAXIN];
	unsigned long long seed = 1;
	const char *only = NULL;
	long count = 1000, i;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "s:n:t:rp")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			count = strtol(optarg, NULL, 0);
			break;
		case 't':
			only = optarg;
			break;
		case 'r':
			return replay(argc - optind, argv + optind);
		case 'p':
			return priv_checks();
		default:
			fprintf(stderr, "usage: wb-fuzz [-s SEED] [-n COUNT] [-t TARGET] | -r FILE... | -p\n");
			return 2;
		}
	}
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	for (i = 0; i < (long)NTARGETS; i++)
		if (access(tpath(targets[i].name), W_OK))
			targets[i].can_fail = 1;

	for (i = 0; i < count; i++) {
		struct target *t;
		int n, m;

		do {
			t = only ? target_named(only) : &targets[pick(NTARGETS)];
		} while (t && t->can_fail && !only);
		if (!t || t->can_fail) {
			printf("# target %s missing\n", only ? only : "?");
			return 2;
		}
		n = gen_line(t, in);
		for (m = pick(4); m > 0; m--)
			n = mutate(in, n);
		if (pick(2))
			n = put(in, n, "\n");
		run_one(t, in, n);
		if ((i + 1) % 1000 == 0)
			printf("fuzz: %ld/%ld inputs, %d accepted, %d rejected, %d failures\n",
			       i + 1, count, accepted, rejected, failures);
	}
	printf("fuzz: seed %llu, %ld inputs: %d accepted, %d rejected, %d failures (%d without error_log)\n",
	       seed, count, accepted, rejected, failures, nolog);
	return failures ? 1 : 0;
}
