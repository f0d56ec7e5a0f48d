/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of function graph share and nobody else needs: the user
 * slots and the live table of registered users, which the entry and return
 * paths (fgraph.c) read and registration (fgraph_register.c) writes, and
 * the upkeep of the tasks' shadow stacks (fgraph_tasks.c) that
 * registration starts and stops.  The meaning of slots, keys and the two
 * tables is explained at the top of fgraph.c.
 *
 * Layer: fgraph, private to it.
 *
 * Locking: everything here is written under ftrace_lock only; the hit
 * path reads the slots and the live table without a lock, in the order
 * the writers publish them (the comments at the definitions say which).
 */
#ifndef _KERNEL_TRACE_FGRAPH_USERS_H
#define _KERNEL_TRACE_FGRAPH_USERS_H

#include <linux/ftrace.h>
#include <linux/types.h>

#include "fgraph_frame.h"

struct task_struct;

/* A user slot: fgraph_ops::idx names one. */
struct fg_slot {
	struct fgraph_ops	*gops;	/* kept until nothing can call it */
	unsigned long		key;	/* 0: no user */
	bool			timed;	/* counted in fg_nr_timed */
	bool			direct;	/* register_fgraph_direct() */
	fgraph_direct_ret_t	direct_ret; /* a direct user's return */
};

/* The compact table the entry path walks. */
struct fg_users {
	unsigned int		nr;
	struct fgraph_ops	*gops[FGRAPH_ARRAY_SIZE];
	unsigned long		key[FGRAPH_ARRAY_SIZE];
};

extern struct fg_slot fg_slots[FGRAPH_ARRAY_SIZE];
/* The pair of tables fg_live switches between when a user leaves. */
extern struct fg_users fg_user_tables[2];
extern struct fg_users *fg_live;
/* Registered users that read times; see its definition. */
extern unsigned int fg_nr_timed;
/* Exactly one managed user, whose filter graph_ops applies already. */
extern bool fg_one_filter;

/* fgraph_tasks.c: the tasks' shadow stacks, under ftrace_lock. */
int fg_attach_all(void);
void fg_clear_task_vars(int idx);
int fg_cpu_online(unsigned int cpu);
void fg_sched_switch(void *ignore, bool preempt, struct task_struct *prev,
		     struct task_struct *next, unsigned int prev_state);

#endif /* _KERNEL_TRACE_FGRAPH_USERS_H */
