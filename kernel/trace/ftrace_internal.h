/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private interface of the function-hook core (kernel/trace/ftrace*.c).
 *
 * The core is split by concept:
 *   ftrace_base.c     the shared state: ftrace_lock, the dead flag,
 *                     ftrace_enabled, the shared callers' slots, the ops list
 *   ftrace.c          ops registration, what the shared callers call, removal
 *                     waits, the ftrace_enabled sysctl
 *   ftrace_dispatch.c the per-site dispatcher, the recursion and RCU assist
 *   ftrace_tramp.c    the trampolines the arch allocates for an ops: lookups,
 *                     kallsyms, perf events
 *   ftrace_sites.c    call-site records: groups, states, lookups
 *   ftrace_sites_images.c the records of vmlinux and modules, freed text
 *   ftrace_sites_names.c site names, the kept names of freed init text
 *   ftrace_sites_report.c ftrace_bug(): what went wrong at a site
 *   ftrace_patch.c    what each site should call, and the batched update
 *   ftrace_patch_arch.c the update's side the arch batch patcher talks to:
 *                     record iterator and actions, ftrace_call, arch hooks
 *   ftrace_site_wait.c how long a replaced site generation lives (the
 *                     waits for its readers)
 *   ftrace_batch.c    the batch patcher: check, group by page, write, sync
 *   ftrace_hash.c     ip hashes, ops filter test, glob matching, func mapper
 *   ftrace_filter.c   filter/notrace API, record matching, boot parameters
 *   ftrace_regex.c    set_ftrace_filter/notrace files
 *   ftrace_regex_cmds.c their commands, and the :mod: cache
 *   ftrace_regex_graph.c set_graph_function/set_graph_notrace files
 *   ftrace_probes.c   function probes (traceon, snapshot, enable_event, ...)
 *   ftrace_files.c    available_filter_functions, enabled_functions, tracefs
 *   ftrace_pid.c      set_ftrace_pid / set_ftrace_notrace_pid
 *   ftrace_profile.c  function profiler
 *   ftrace_direct.c   direct-call trampolines
 *   ftrace_lifecycle.c what the rest of the kernel calls: boot, module
 *                     load and unload, freeing of text
 *   ftrace_static.c   the update without call-site records (!DYNAMIC_FTRACE):
 *                     one set of every enabled ops for every function
 *
 * The files sit in layers, bottom first; each layer's header says what it
 * offers (files as listed in workbench/layers.list, which the layers check
 * enforces):
 *   sites       records, the arch's call sites  ftrace_base.h, ftrace_records.h
 *   hash        ip hashes, ops filter test      ftrace_hash.h
 *   patch       site generations, the update    ftrace_patch.h
 *   ops         registration, the dispatcher    ftrace_ops.h, ftrace_user.h
 *   filter      the filter API, record matching ftrace_filter.h
 *   direct      direct calls (on filter)        ftrace_direct.h
 *   fgraph      the graph core (on filter)      fgraph_internal.h
 *   fprobe      fprobe (on fgraph)              fprobe_internal.h
 *   tracefs     the tracefs files and commands  ftrace_tracefs.h
 *   lifecycle   boot, modules, freed text       (this header)
 *   core-tests  the KUnit suites                (this header)
 * A file uses its own layer and the layers below it, never one above.  A
 * lower layer that must learn something of a higher one is told through a
 * callback the higher one registers with it (on the hit path, through a
 * fixed entry point bound at link time).  The users of the core (direct
 * calls, fgraph, fprobe) include ftrace_user.h and ftrace_filter.h, not
 * the core's own headers.  This header gathers every layer's header, for
 * tracefs, lifecycle and the suites only.
 *
 * Locking, for every layer unless said otherwise:
 *  - ftrace_lock (mutex) serialises every change: the ops list, the site
 *    groups, record state, the site generation and ops hash pointers.
 *  - The hot path (a traced call) reads the current site generation and the
 *    ops hashes without locks, with preemption disabled.  Anything a traced
 *    call may read is freed only after a rude wait (or, for
 *    hashes, an RCU grace period through call_rcu()).
 *  - Site groups are read locklessly by ftrace_location() and friends under
 *    rcu_read_lock() (or preemption disabled); they are unlinked with
 *    rcu_assign_pointer() and freed after synchronize_rcu().
 */
#ifndef _LINUX_KERNEL_FTRACE_INTERNAL_H
#define _LINUX_KERNEL_FTRACE_INTERNAL_H

#include "ftrace_base.h"
#include "ftrace_records.h"
#include "ftrace_hash.h"
#include "ftrace_patch.h"
#include "ftrace_user.h"
#include "ftrace_ops.h"
#include "ftrace_filter.h"
#include "ftrace_direct.h"
#include "fgraph_internal.h"
#include "ftrace_tracefs.h"

#endif /* _LINUX_KERNEL_FTRACE_INTERNAL_H */
