// SPDX-License-Identifier: GPL-2.0
/*
 * The report of a call site that could not be patched: ftrace_bug() says
 * what was being done, what the site holds and what it should have held,
 * lets the owner of the site's state describe it, and stops ftrace for
 * good (ftrace_kill()).
 *
 * Layer: sites.  The patcher above learns nothing from here; it registers
 * the printer of a state's details (ftrace_sites_set_bug_detail()) before
 * it makes the first state.
 *
 * Locking: none of its own.  ftrace_bug_type and ftrace_expected are set
 * by the patcher that calls ftrace_bug(), under ftrace_lock (and usually
 * text_mutex); the registered printer is read once per report.
 */
#include <linux/bug.h>
#include <linux/ftrace.h>
#include <linux/printk.h>
#include <linux/uaccess.h>

#include "trace.h"
#include "ftrace_records.h"

/* What was being done when ftrace_bug() is called; set by the patchers. */
enum ftrace_bug_type ftrace_bug_type;
/* What the site should have held, if the arch patcher knows; or NULL. */
const void *ftrace_expected;

/*
 * The patcher's description of a record's state (what it calls, what it
 * should call, the ops that want it), printed by ftrace_bug().  Registered
 * by the patcher before it makes the first state: a record without a
 * state has nothing more to tell.
 */
static void (*site_bug_detail)(struct dyn_ftrace *rec);

/**
 * ftrace_sites_set_bug_detail - let ftrace_bug() describe a site's state
 * @detail: prints what the layer that owns site states knows of @rec
 *
 * Context: ftrace_lock held.
 */
void ftrace_sites_set_bug_detail(void (*detail)(struct dyn_ftrace *rec))
{
	WRITE_ONCE(site_bug_detail, detail);
}

static void site_bug_bytes(const char *what, const void *p)
{
	u8 insn[MCOUNT_INSN_SIZE];

	if (copy_from_kernel_nofault(insn, p, MCOUNT_INSN_SIZE))
		pr_info(" %s: unreadable\n", what);
	else
		pr_info(" %s: %*phC\n", what, MCOUNT_INSN_SIZE, insn);
}

static const char *const site_bug_stage[] = {
	[FTRACE_BUG_UNKNOWN]	= NULL,
	[FTRACE_BUG_INIT]	= "while turning a call to __fentry__ into a NOP",
	[FTRACE_BUG_NOP]	= "while turning a call into a NOP",
	[FTRACE_BUG_CALL]	= "while turning a NOP into a call",
	[FTRACE_BUG_UPDATE]	= "while changing the target of a call",
};

/* The record's own flags; the patcher's detail follows if it registered. */
static void site_bug_record(struct dyn_ftrace *rec)
{
	void (*detail)(struct dyn_ftrace *rec);

	pr_info(" record flags %lx (%lu users)%s%s%s%s\n", rec->flags,
		ftrace_rec_count(rec),
		rec->flags & FTRACE_FL_REGS ? " regs" : "",
		rec->flags & FTRACE_FL_TRAMP ? " tramp" : "",
		rec->flags & FTRACE_FL_DIRECT ? " direct" : "",
		rec->flags & FTRACE_FL_DISABLED ? " disabled" : "");

	detail = READ_ONCE(site_bug_detail);
	if (detail)
		detail(rec);
}

/**
 * ftrace_bug - report a call site that could not be patched, and stop ftrace
 * @err: -EFAULT (reading the site failed), -EINVAL (it did not hold the
 *	 expected instruction; ftrace_expected points at what was expected),
 *	 -EPERM (writing failed), or another error
 * @rec: the record of the site, or NULL
 *
 * ftrace_bug_type says what was being done.  Calls ftrace_kill(): no site
 * is patched any more after this.
 *
 * Context: any; the updater usually holds ftrace_lock and text_mutex.
 */
void ftrace_bug(int err, struct dyn_ftrace *rec)
{
	unsigned long ip = rec ? rec->ip : 0;
	const char *stage = NULL;

	pr_info("------------[ ftrace bug ]------------\n");
	switch (err) {
	case -EFAULT:
		pr_info("ftrace faulted on modifying %pS\n", (void *)ip);
		break;
	case -EINVAL:
		pr_info("ftrace failed to modify %pS\n", (void *)ip);
		site_bug_bytes("actual:  ", (void *)ip);
		if (ftrace_expected)
			site_bug_bytes("expected:", ftrace_expected);
		break;
	case -EPERM:
		pr_info("ftrace faulted on writing %pS\n", (void *)ip);
		break;
	default:
		pr_info("ftrace failed with error %d at %pS\n", err,
			(void *)ip);
		break;
	}

	if ((unsigned int)ftrace_bug_type < ARRAY_SIZE(site_bug_stage))
		stage = site_bug_stage[ftrace_bug_type];
	if (stage)
		pr_info(" %s\n", stage);
	if (rec)
		site_bug_record(rec);

	WARN_ON_ONCE(1);
	ftrace_kill();
}
