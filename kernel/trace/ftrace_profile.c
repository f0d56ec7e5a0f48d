// SPDX-License-Identifier: GPL-2.0
/*
 * Function profiler: per-CPU hit counts (and, with the function graph
 * tracer, time spent) of every traced function.
 *
 * Files: function_profile_enabled (0/1) in the tracefs root, and one stat
 * file per possible CPU, trace_stat/function<cpu>, sorted by total time
 * (by hits without the graph tracer).
 *
 * Each CPU owns a table allocated when profiling is first enabled and
 * never freed (open stat files keep pointers to its entries):
 *   entries[]  one per profiled function, handed out in order; sized for
 *              every call site known at the time (FPROF_SITES)
 *   heads[]    hash buckets; heads[h] and entry.next are entry index + 1,
 *              0 ending a chain
 * Only its own CPU writes a table, from the hook with interrupts off; an
 * NMI that arrives while an entry is being added neither adds nor waits
 * (the busy counter), it just loses that hit.  Entries are published with
 * a release store of @used, so stat readers on other CPUs only see
 * initialised entries.  The hook never allocates or sleeps.
 *
 * fprof_lock serialises enabling/disabling (which resets the tables while
 * no hook runs) against stat printing.  Without the graph tracer the hook
 * is an ftrace_ops; with it, an fgraph_ops whose return handler adds the
 * call's duration, honouring the graph-time option (time of children
 * included or not); sleep-time is applied by fgraph.c to calltime.
 * Both follow the global filter (set_ftrace_filter of the top level).
 */
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/tracefs.h>
#include <linux/vmalloc.h>

#include "trace.h"
#include "trace_stat.h"
#include "ftrace_internal.h"

#define FPROF_HASH_BITS		12
#define FPROF_MIN_ENTRIES	1024

struct fprof_entry {
	unsigned long	ip;
	unsigned long	hits;
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	u64		time;		/* total ns */
	u64		time_sq;	/* sum of squares, for the variance */
#endif
	u32		next;		/* index + 1 of the next in the chain */
	u32		cpu;		/* owning table, for stat iteration */
};

struct fprof_table {
	struct tracer_stat	stat;	/* trace_stat/function<cpu> */
	atomic_t		busy;	/* an entry is being added */
	unsigned int		used;	/* entries handed out */
	unsigned int		cap;
	u32			*heads;
	struct fprof_entry	*entries;
};

static DEFINE_PER_CPU(struct fprof_table, fprof_tables);
static DEFINE_MUTEX(fprof_lock);
static bool fprof_on;			/* the hook counts only while set */
static bool fprof_allocated;

/* ---- hot path: this CPU's table, interrupts off --------------------- */

static __always_inline u32 fprof_hash(unsigned long ip)
{
	return hash_long(ip, FPROF_HASH_BITS);
}

static notrace struct fprof_entry *fprof_find(struct fprof_table *t,
					      unsigned long ip)
{
	u32 n = READ_ONCE(t->heads[fprof_hash(ip)]);

	while (n) {
		struct fprof_entry *e = &t->entries[n - 1];

		if (e->ip == ip)
			return e;
		n = READ_ONCE(e->next);
	}
	return NULL;
}

static notrace struct fprof_entry *fprof_add(struct fprof_table *t,
					     unsigned long ip)
{
	struct fprof_entry *e = NULL;
	u32 h = fprof_hash(ip);
	unsigned int n;

	if (atomic_inc_return(&t->busy) != 1)
		goto out;

	/* An NMI may have added it after our first look. */
	e = fprof_find(t, ip);
	if (e)
		goto out;

	n = t->used;
	if (n >= t->cap)
		goto out;
	e = &t->entries[n];
	e->ip = ip;
	e->next = t->heads[h];
	/* Entry contents before the chain head, for an NMI on this CPU. */
	barrier();
	WRITE_ONCE(t->heads[h], n + 1);
	/* And before @used, for stat readers elsewhere. */
	smp_store_release(&t->used, n + 1);
out:
	atomic_dec(&t->busy);
	return e;
}

/* Count a call of @ip on this CPU. */
static notrace void fprof_count(unsigned long ip)
{
	struct fprof_table *t;
	struct fprof_entry *e;
	unsigned long flags;

	if (!READ_ONCE(fprof_on))
		return;

	local_irq_save(flags);
	t = this_cpu_ptr(&fprof_tables);
	if (t->entries) {
		e = fprof_find(t, ip) ?: fprof_add(t, ip);
		if (e)
			e->hits++;
	}
	local_irq_restore(flags);
}

#ifdef CONFIG_FUNCTION_GRAPH_TRACER

static bool fprof_graph_time = true;

/**
 * ftrace_graph_graph_time_control - include children in a function's time
 * @enable: true (the default): a function's time includes the functions
 *	it called; false: only its own time is counted
 *
 * Set by the funcgraph graph-time option.
 */
void ftrace_graph_graph_time_control(bool enable)
{
	WRITE_ONCE(fprof_graph_time, enable);
}

static int fprof_graph_entry(struct ftrace_graph_ent *trace,
			     struct fgraph_ops *gops,
			     struct ftrace_regs *fregs)
{
	struct ftrace_ret_stack *frame = NULL;

	fprof_count(trace->func);

	/* No shadow stack while graph tracing is torn down: skip the return. */
	if (current->ret_stack)
		frame = ftrace_graph_get_ret_stack(current, 0);
	if (!frame)
		return 0;
	frame->subtime = 0;	/* time of this call's children, so far */
	return 1;
}

/* Duration of the returning call to charge, after the graph-time option. */
static u64 fprof_charged_time(struct ftrace_graph_ret *trace)
{
	struct ftrace_ret_stack *frame;
	u64 took = trace->rettime - trace->calltime;

	if (READ_ONCE(fprof_graph_time))
		return took;

	/* Own time only: hand ours to the caller, subtract the children's. */
	frame = ftrace_graph_get_ret_stack(current, 1);
	if (frame)
		frame->subtime += took;
	frame = ftrace_graph_get_ret_stack(current, 0);
	if (!frame || frame->subtime >= took)
		return 0;
	return took - frame->subtime;
}

static void fprof_graph_return(struct ftrace_graph_ret *trace,
			       struct fgraph_ops *gops,
			       struct ftrace_regs *fregs)
{
	struct fprof_table *t;
	struct fprof_entry *e;
	unsigned long flags;
	u64 took;

	/* A zero calltime means fgraph discarded the timing of this call. */
	if (!trace->calltime)
		return;

	local_irq_save(flags);
	took = fprof_charged_time(trace);
	t = this_cpu_ptr(&fprof_tables);
	if (READ_ONCE(fprof_on) && t->entries) {
		e = fprof_find(t, trace->func);
		if (e) {
			e->time += took;
			e->time_sq += took * took;
		}
	}
	local_irq_restore(flags);
}

static struct fgraph_ops fprof_gops = {
	.entryfunc	= fprof_graph_entry,
	.retfunc	= fprof_graph_return,
};

#else /* !CONFIG_FUNCTION_GRAPH_TRACER */

static void notrace fprof_ops_func(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	fprof_count(ip);
}

static struct ftrace_ops fprof_ops = {
	.func	= fprof_ops_func,
};

#endif /* CONFIG_FUNCTION_GRAPH_TRACER */

/* Attach the hook; it sees the functions the global filter selects. */
static int fprof_hook(void)
{
	int ret;

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	ftrace_ops_set_global_filter(&fprof_gops.ops);
	ret = register_ftrace_graph(&fprof_gops);
#else
	ftrace_ops_set_global_filter(&fprof_ops);
	ret = register_ftrace_function(&fprof_ops);
#endif
	return ret;
}

static void fprof_unhook(void)
{
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	unregister_ftrace_graph(&fprof_gops);
#else
	unregister_ftrace_function(&fprof_ops);
#endif
}

/* ---- tables (fprof_lock held, hook not running) --------------------- */

static int fprof_table_alloc(struct fprof_table *t, unsigned int cap, int cpu)
{
	unsigned int i;

	t->heads = kcalloc(1U << FPROF_HASH_BITS, sizeof(*t->heads),
			   GFP_KERNEL);
	if (!t->heads)
		return -ENOMEM;
	t->entries = vcalloc(cap, sizeof(*t->entries));
	if (!t->entries) {
		kfree(t->heads);
		t->heads = NULL;
		return -ENOMEM;
	}
	/* An entry's owner never changes; stat iteration relies on it. */
	for (i = 0; i < cap; i++)
		t->entries[i].cpu = cpu;
	t->cap = cap;
	t->used = 0;
	return 0;
}

static void fprof_table_free(struct fprof_table *t)
{
	vfree(t->entries);
	kfree(t->heads);
	t->entries = NULL;
	t->heads = NULL;
	t->cap = 0;
}

#ifdef CONFIG_DYNAMIC_FTRACE
#define FPROF_SITES	ftrace_update_tot_cnt
#else
/* No call-site records count the traceable functions: a typical kernel's. */
#define FPROF_SITES	(32UL * 1024)
#endif

/*
 * First enable: one table per possible CPU, all or none.  The hook tests
 * t->entries, so a table is usable from the moment it is complete.
 */
static int fprof_alloc_tables(void)
{
	unsigned int cap = max_t(unsigned long, FPROF_SITES, FPROF_MIN_ENTRIES);
	int cpu, err;

	for_each_possible_cpu(cpu) {
		err = fprof_table_alloc(per_cpu_ptr(&fprof_tables, cpu), cap, cpu);
		if (err)
			goto undo;
	}
	fprof_allocated = true;
	return 0;

undo:
	for_each_possible_cpu(cpu)
		fprof_table_free(per_cpu_ptr(&fprof_tables, cpu));
	return err;
}

static void fprof_reset_tables(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct fprof_table *t = per_cpu_ptr(&fprof_tables, cpu);
		unsigned int i;

		memset(t->heads, 0, sizeof(*t->heads) << FPROF_HASH_BITS);
		for (i = 0; i < t->used; i++)
			t->entries[i] = (struct fprof_entry){ .cpu = cpu };
		t->used = 0;
	}
}

static int fprof_enable(void)
{
	int err;

	if (!fprof_allocated) {
		err = fprof_alloc_tables();
		if (err)
			return err;
	} else {
		fprof_reset_tables();
	}

	WRITE_ONCE(fprof_on, true);
	err = fprof_hook();
	if (err)
		WRITE_ONCE(fprof_on, false);
	return err;
}

static void fprof_disable(void)
{
	WRITE_ONCE(fprof_on, false);
	/* After this returns no hook of ours runs anywhere. */
	fprof_unhook();
}

/* ---- function_profile_enabled --------------------------------------- */

static ssize_t fprof_enabled_read(struct file *file, char __user *ubuf,
				  size_t cnt, loff_t *ppos)
{
	char buf[4];
	int len;

	len = snprintf(buf, sizeof(buf), "%u\n", READ_ONCE(fprof_on) ? 1 : 0);
	return simple_read_from_buffer(ubuf, cnt, ppos, buf, len);
}

static ssize_t fprof_enabled_write(struct file *file, const char __user *ubuf,
				   size_t cnt, loff_t *ppos)
{
	unsigned long val;
	bool on;
	int err;

	err = kstrtoul_from_user(ubuf, cnt, 10, &val);
	if (err)
		return err;
	on = !!val;

	mutex_lock(&fprof_lock);
	if (on != fprof_on) {
		if (on)
			err = fprof_enable();
		else
			fprof_disable();
	}
	mutex_unlock(&fprof_lock);
	if (err)
		return err;

	*ppos += cnt;
	return cnt;
}

static const struct file_operations fprof_enabled_fops = {
	.open		= tracing_open_generic,
	.llseek		= default_llseek,
	.read		= fprof_enabled_read,
	.write		= fprof_enabled_write,
};

/* ---- trace_stat/function<cpu> --------------------------------------- */

/* First entry with hits at or after index @i of @t, or NULL. */
static struct fprof_entry *fprof_next_counted(struct fprof_table *t,
					      unsigned int i)
{
	/* Pairs with the release in fprof_add(): entries below are set up. */
	unsigned int used = smp_load_acquire(&t->used);

	for (; i < used; i++) {
		if (READ_ONCE(t->entries[i].hits))
			return &t->entries[i];
	}
	return NULL;
}

static void *fprof_stat_start(struct tracer_stat *stat)
{
	struct fprof_table *t = container_of(stat, struct fprof_table, stat);

	if (!t->entries)
		return NULL;
	return fprof_next_counted(t, 0);
}

static void *fprof_stat_next(void *prev, int idx)
{
	struct fprof_entry *e = prev;
	struct fprof_table *t = per_cpu_ptr(&fprof_tables, e->cpu);

	return fprof_next_counted(t, e - t->entries + 1);
}

/* Larger first: trace_stat sorts in descending order of this. */
static int fprof_stat_cmp(const void *p1, const void *p2)
{
	const struct fprof_entry *a = p1, *b = p2;
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	u64 ka = a->time, kb = b->time;
#else
	unsigned long ka = a->hits, kb = b->hits;
#endif

	if (ka == kb)
		return 0;
	return ka > kb ? 1 : -1;
}

static int fprof_stat_headers(struct seq_file *m)
{
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	/* Columns line up with fprof_stat_show() and the duration printer. */
	seq_printf(m, "  %-30s  %10s    %-16s%-16s%s\n",
		   "Function", "Hit", "Time", "Avg", "s^2");
	seq_printf(m, "  %-30s  %10s    %-16s%-16s%s\n",
		   "--------", "---", "----", "---", "---");
#else
	seq_printf(m, "  %-30s  %10s\n", "Function", "Hit");
	seq_printf(m, "  %-30s  %10s\n", "--------", "---");
#endif
	return 0;
}

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
/* Scratch for the duration columns; fprof_lock held. */
static struct trace_seq fprof_seq;

/*
 * Sample variance of the call times, in the unit the duration printer
 * expects after its own division by 1000:
 *   s^2 = (n * sum(x^2) - sum(x)^2) / (n * (n - 1)) / 1000
 */
static u64 fprof_variance(const struct fprof_entry *e)
{
	u64 n = e->hits;
	u64 denom = n * (n - 1) * 1000;
	u64 num;

	if (!denom || n * e->time_sq < e->time * e->time)
		return 0;
	num = n * e->time_sq - e->time * e->time;
	return div64_u64(num, denom);
}

/* Returns false when the entry is below tracing_thresh and not shown. */
static bool fprof_show_times(struct seq_file *m, const struct fprof_entry *e,
			     const char *name)
{
	u64 avg = div64_u64(e->time, e->hits);

	if (tracing_thresh && avg < tracing_thresh)
		return false;

	seq_printf(m, "  %-30.30s  %10lu    ", name, e->hits);
	trace_seq_init(&fprof_seq);
	trace_print_graph_duration(e->time, &fprof_seq);
	trace_seq_puts(&fprof_seq, "    ");
	trace_print_graph_duration(avg, &fprof_seq);
	trace_seq_puts(&fprof_seq, "    ");
	trace_print_graph_duration(fprof_variance(e), &fprof_seq);
	trace_print_seq(m, &fprof_seq);
	return true;
}
#endif

static int fprof_stat_show(struct seq_file *m, void *v)
{
	struct fprof_entry *e = v;
	char name[KSYM_SYMBOL_LEN];

	mutex_lock(&fprof_lock);
	/* Reset since the file was opened: nothing to say about it. */
	if (!e->hits)
		goto out;

	kallsyms_lookup(e->ip, NULL, NULL, NULL, name);
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	if (!fprof_show_times(m, e, name))
		goto out;
#else
	seq_printf(m, "  %-30.30s  %10lu", name, e->hits);
#endif
	seq_putc(m, '\n');
out:
	mutex_unlock(&fprof_lock);
	return 0;
}

/**
 * ftrace_profile_create_files - function_profile_enabled and trace_stat files
 * @d_tracer: the tracefs root
 *
 * Registers trace_stat/function<cpu> for every possible CPU.  The files
 * are permanent; on failure the remaining CPUs get none.
 */
void __init ftrace_profile_create_files(struct dentry *d_tracer)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct fprof_table *t = per_cpu_ptr(&fprof_tables, cpu);
		char *name = kasprintf(GFP_KERNEL, "function%d", cpu);

		if (!name) {
			WARN(1, "ftrace: no stat file for cpu %d\n", cpu);
			break;
		}
		t->stat = (struct tracer_stat) {
			.name		= name,
			.stat_start	= fprof_stat_start,
			.stat_next	= fprof_stat_next,
			.stat_cmp	= fprof_stat_cmp,
			.stat_show	= fprof_stat_show,
			.stat_headers	= fprof_stat_headers,
		};
		if (register_stat_tracer(&t->stat)) {
			WARN(1, "ftrace: cannot register stat file for cpu %d\n",
			     cpu);
			kfree(name);
			break;
		}
	}

	trace_create_file("function_profile_enabled", TRACE_MODE_WRITE,
			  d_tracer, NULL, &fprof_enabled_fops);
}
