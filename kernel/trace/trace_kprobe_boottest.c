// SPDX-License-Identifier: GPL-2.0
/*
 * Kprobe events: the boot-time selftest, built with
 * CONFIG_FTRACE_STARTUP_TEST (see the Makefile).
 *
 * At late_initcall it defines an entry and a return probe on
 * kprobe_trace_selftest_target() as lines written to kprobe_events would,
 * enables them through their event files in the top trace instance,
 * calls the target once and checks the hits, then removes them.  It
 * reports on one "Testing kprobe tracing:" line, without a WARN.
 *
 * Locks: each step takes the locks it needs.  This file calls
 * trace_kprobe_parse.c and trace_kprobe.c.
 */
#define pr_fmt(fmt)	"trace_kprobe: " fmt

#include <linux/init.h>
#include <linux/kprobes.h>

#include "trace_kprobe.h"
#include "trace_kprobe_selftest.h"

/* Enable (@on) or disable the test event @event; 0 on success. */
static __init int tk_selftest_switch(const char *event, int on)
{
	struct trace_array *tr = top_trace_array();
	struct trace_event_file *file;

	guard(mutex)(&event_mutex);
	file = tr ? find_event_file(tr, KPROBE_EVENT_SYSTEM, event) : NULL;
	return file ? trace_event_enable_disable(file, on, 0) : -ENOENT;
}

static __init unsigned long tk_selftest_hits(const char *event)
{
	struct trace_kprobe *tk;

	guard(mutex)(&event_mutex);
	tk = tk_find(event, KPROBE_EVENT_SYSTEM);
	return tk ? tk_hits(tk) : ULONG_MAX;
}

/*
 * An entry probe with stack arguments and a return probe with $retval on
 * kprobe_trace_selftest_target() (built with call sites): each must see
 * exactly the one call made while they are enabled, and both must go
 * away again.
 */
static __init int tk_selftest(void)
{
	static const char * const defs[] = {
		"p:testprobe kprobe_trace_selftest_target $stack $stack0 +0($stack)",
		"r:testprobe2 kprobe_trace_selftest_target $retval",
	};
	static const char * const names[] = { "testprobe", "testprobe2" };
	const char *why = NULL;
	int i, ret;

	if (tracing_is_disabled())
		return -ENODEV;
	if (tracing_selftest_disabled)
		return 0;

	for (i = 0; i < ARRAY_SIZE(defs) && !why; i++) {
		if (tk_events_run(defs[i]))
			why = "cannot define the test events";
		else if (tk_selftest_switch(names[i], 1))
			why = "cannot enable the test events";
	}
	if (!why && kprobe_trace_selftest_target(1, 2, 3, 4, 5, 6) != 21)
		why = "the target returned a wrong sum";
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!why && tk_selftest_hits(names[i]) != 1)
			why = "wrong number of hits";
		tk_selftest_switch(names[i], 0);
		ret = tk_events_run(i ? "-:testprobe2" : "-:testprobe");
		if (ret && !why)
			why = "cannot remove the test events";
	}

	/* the optimizer must be done before __init text goes */
	wait_for_kprobe_optimizer();
	if (why)
		pr_err("Testing kprobe tracing: FAILED: %s\n", why);
	else
		pr_info("Testing kprobe tracing: OK\n");
	return 0;
}
late_initcall(tk_selftest);
