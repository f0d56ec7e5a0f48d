/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fprobe: callbacks on the entry and the exit of kernel functions, for any
 * number of functions per probe and any number of probes per function.
 *
 * A user fills a struct fprobe (handlers, flags, entry_data_size) and
 * registers it on a set of functions, given as a glob, as symbol names or
 * as addresses.  The handlers receive the function's ftrace_regs: its
 * arguments at entry and its return value at exit, read with the
 * ftrace_regs_get_*() accessors.  Both handlers run with preemption
 * disabled and must not sleep; they and anything they call must not be
 * probed by the same fprobe (such a nested hit is dropped and counted in
 * @nmissed).
 *
 * Rules a user can rely on:
 *  - the fields above "private" are the user's; they must not change
 *    while the fprobe is registered, except @flags through
 *    disable_fprobe()/enable_fprobe();
 *  - when unregister_fprobe() returns, no handler of the fprobe runs or
 *    will run on any CPU, so its memory may be reused;
 *  - a struct fprobe is registered at most once at a time; registering it
 *    again after unregister_fprobe() is allowed.
 */
#ifndef _LINUX_FPROBE_H
#define _LINUX_FPROBE_H

#include <linux/compiler.h>
#include <linux/ftrace.h>
#include <linux/types.h>

struct fprobe;
struct fprobe_binding;

/*
 * @entry_ip is the ftrace location of the probed function, @ret_ip the
 * address its caller resumes at.  @entry_data is the probe's per-call
 * storage (see struct fprobe), or NULL.  A non-zero return from the entry
 * handler means "no exit handler for this call".
 */
typedef int (*fprobe_entry_cb)(struct fprobe *fp, unsigned long entry_ip,
			       unsigned long ret_ip, struct ftrace_regs *fregs,
			       void *entry_data);

typedef void (*fprobe_exit_cb)(struct fprobe *fp, unsigned long entry_ip,
			       unsigned long ret_ip, struct ftrace_regs *fregs,
			       void *entry_data);

/**
 * struct fprobe - function entry/exit probe
 * @nmissed: calls whose handlers were skipped: a nested hit from inside a
 *	handler (both handlers skipped), no room on the task's shadow stack
 *	(exit skipped), or a kprobe running on a KPROBE_SHARED probe
 * @flags: FPROBE_FL_* bits
 * @entry_data_size: bytes of per-call storage shared by the entry and the
 *	exit handler of one call; only used with an @exit_handler, at most
 *	%FPROBE_ENTRY_DATA_MAX, rounded up to a multiple of sizeof(long)
 * @entry_handler: called at function entry, or NULL
 * @exit_handler: called at function return, or NULL
 */
struct fprobe {
	unsigned long		nmissed;
	unsigned int		flags;
	size_t			entry_data_size;
	fprobe_entry_cb		entry_handler;
	fprobe_exit_cb		exit_handler;
	/* private: kernel/trace/fprobe_register.c's binding, NULL when none */
	struct fprobe_binding	*binding;
};

/* The probe stays registered but its handlers are not called. */
#define FPROBE_FL_DISABLED	1

/*
 * The handlers are shared with kprobes: they are skipped (and counted as
 * missed) while a kprobe runs on this CPU, and kprobes see them as a
 * running kprobe.  Set it before registering.
 */
#define FPROBE_FL_KPROBE_SHARED	2

/* Largest entry_data_size accepted by the register functions. */
#define FPROBE_ENTRY_DATA_MAX	(15 * sizeof(long))

static inline bool fprobe_disabled(struct fprobe *fp)
{
	return fp && (READ_ONCE(fp->flags) & FPROBE_FL_DISABLED);
}

static inline bool fprobe_shared_with_kprobes(struct fprobe *fp)
{
	return fp && (READ_ONCE(fp->flags) & FPROBE_FL_KPROBE_SHARED);
}

#ifdef CONFIG_FPROBE
int register_fprobe(struct fprobe *fp, const char *filter, const char *notfilter);
int register_fprobe_ips(struct fprobe *fp, unsigned long *addrs, int num);
int register_fprobe_syms(struct fprobe *fp, const char **syms, int num);
int unregister_fprobe(struct fprobe *fp);
bool fprobe_is_registered(struct fprobe *fp);
#else
static inline int register_fprobe(struct fprobe *fp, const char *filter,
				  const char *notfilter)
{
	return -EOPNOTSUPP;
}

static inline int register_fprobe_ips(struct fprobe *fp, unsigned long *addrs,
				      int num)
{
	return -EOPNOTSUPP;
}

static inline int register_fprobe_syms(struct fprobe *fp, const char **syms,
				       int num)
{
	return -EOPNOTSUPP;
}

static inline int unregister_fprobe(struct fprobe *fp)
{
	return -EOPNOTSUPP;
}

static inline bool fprobe_is_registered(struct fprobe *fp)
{
	return false;
}
#endif /* CONFIG_FPROBE */

/**
 * disable_fprobe() - stop calling the handlers of an fprobe
 * @fp: the fprobe
 *
 * The registration is kept: the probed functions stay hooked and
 * enable_fprobe() resumes at once.  A call that entered while the probe
 * was enabled gets no exit handler if it returns while disabled.
 */
static inline void disable_fprobe(struct fprobe *fp)
{
	if (fp)
		WRITE_ONCE(fp->flags, fp->flags | FPROBE_FL_DISABLED);
}

/**
 * enable_fprobe() - resume calling the handlers of a disabled fprobe
 * @fp: the fprobe
 */
static inline void enable_fprobe(struct fprobe *fp)
{
	if (fp)
		WRITE_ONCE(fp->flags, fp->flags & ~FPROBE_FL_DISABLED);
}

#endif /* _LINUX_FPROBE_H */
