/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to fprobe (kernel/trace/fprobe*.c): the record format on the
 * shadow stack, the registration structures, what the files share, and
 * the inline helpers that both halves of a hit need.
 *
 * The files, top to bottom:
 *
 *   fprobe_register.c  the API, the bindings, the table of live
 *                      registrations, text going away; takes fprobe_mutex
 *   fprobe_map.c       the site map, and the release of sites from the
 *                      hooks (fprobe_mutex held)
 *   fprobe.c           the hooks (fprobe_mutex held); the hot path: the
 *                      entry callbacks and the generic return callback
 *   fprobe_return.c    fprobe_return(), the C half of the arch's
 *                      fprobe_return_handler (HAVE_FPROBE_RETURN_HANDLER)
 *
 * Calls go one way, downwards, never back up:
 *
 *   fprobe_register.c -> fprobe_map.c  fprobe_map_fit(), fprobe_node_link(),
 *                                      fprobe_release_sites(), ...
 *   fprobe_register.c -> fprobe.c      fprobe_hook_add()
 *   fprobe_map.c      -> fprobe.c      fprobe_hook_remove()
 *   fprobe_return.c   -> fprobe.c      fprobe_call_exit_busy()
 *
 * The hot path (fprobe.c's callbacks, fprobe_return.c) calls nothing above
 * it: it reads the map and the table without locks, as the files above
 * publish them with RCU.  The helpers at the end of this header are always
 * inlined, so each half of a hit keeps them in its own code, as when they
 * were one file; they call nothing but the probes' handlers and
 * fprobe_call_exit_busy().
 */
#ifndef _KERNEL_TRACE_FPROBE_INTERNAL_H
#define _KERNEL_TRACE_FPROBE_INTERNAL_H

#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/context_tracking.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

/* Shadow-stack record: header word layout. */
#define FPROBE_HDR_WORDS	GENMASK(3, 0)	/* entry data words that follow */
#define FPROBE_HDR_CALL		BIT(4)		/* exit handler wanted */
#define FPROBE_HDR_ID_SHIFT	5		/* generation and slot */
#define FPROBE_SLOT_BITS	20
#define FPROBE_SLOT_MASK	GENMASK(FPROBE_SLOT_BITS - 1, 0)
/* The slot in the top bits: one shift extracts it. */
#define FPROBE_HDR_SLOT_SHIFT	(BITS_PER_LONG - FPROBE_SLOT_BITS)
#define FPROBE_HDR_GEN_SHIFT	FPROBE_HDR_ID_SHIFT
#define FPROBE_GEN_LIMIT	(GENMASK(FPROBE_HDR_SLOT_SHIFT - 1, 0) >> \
				 FPROBE_HDR_GEN_SHIFT)

enum fprobe_kind {
	FPROBE_KIND_ENTRY,	/* no exit handler: served by fprobe_ftrace_ops */
	FPROBE_KIND_GRAPH,	/* exit handler: served by fprobe_exit_ops */
	FPROBE_NR_KINDS,
};

/*
 * struct fprobe_node - one probe on one call site
 * @next: chain links; a map uses next[map->link]
 * @ip: the call site (ftrace location)
 * @fp: the probe; set before the node is linked, never changed
 * @hdr: the probe's shadow-stack header, FPROBE_HDR_CALL set (graph
 *	kind; the entry kind only uses the id part, unused)
 * @site_words: words the graph-kind nodes of the site need together (a
 *	header and the entry data each), the same in every node of the
 *	site; read from the site's first node, so that one walk does
 * @kind: enum fprobe_kind
 * @sole: the site's only graph-kind node (its words are the site's), so
 *	a hit needs no block of records; kept with @site_words
 * @linked: in the current map (fprobe_mutex)
 * @released: unlinked in the current change, its ip not yet released
 *	from the hook filter (fprobe_mutex)
 */
struct fprobe_node {
	struct fprobe_node __rcu	*next[2];
	unsigned long			ip;
	struct fprobe			*fp;
	unsigned long			hdr;
	u16				site_words;
	u8				kind;
	bool				sole;
	bool				linked;
	bool				released;
};

/*
 * struct fprobe_binding - a registration: the nodes of one fprobe
 * @list: on fprobe_bindings
 * @fp: the probe
 * @id: generation and slot, as in the record headers (graph kind)
 * @nr: number of nodes (distinct call sites)
 * @nodes: one per call site
 */
struct fprobe_binding {
	struct list_head	list;
	struct fprobe		*fp;
	unsigned long		id;
	unsigned int		nr;
	struct fprobe_node	nodes[] __counted_by(nr);
};

/*
 * struct fprobe_regs - the graph-kind registrations by slot, for the
 * return path; replaced (larger) when full, the old one freed after a
 * grace period
 * @size: number of slots
 * @slot: the registrations
 */
struct fprobe_regs {
	unsigned long			size;
	struct fprobe_binding __rcu	*slot[] __counted_by(size);
};

/*
 * struct fprobe_map - the site -> nodes hash map
 * @bits: log2 of the number of buckets
 * @link: which of a node's links this map's chains use
 * @heads: bucket chains
 */
struct fprobe_map {
	unsigned int			bits;
	unsigned int			link;
	struct fprobe_node __rcu	*heads[];
};

/* Sites no longer wanted by any node of one kind. */
struct fprobe_site_list {
	unsigned long	*ips;
	unsigned int	nr;
};

/* ---- state the files share ------------------------------------------------ */

/* fprobe_register.c: serialises every change. */
extern struct mutex fprobe_mutex;
/* fprobe_register.c: the table of live registrations, read by the return side. */
extern struct fprobe_regs __rcu *fprobe_regs;
/* fprobe_map.c: the site map, read by the hot path. */
extern struct fprobe_map __rcu *fprobe_map;
/* fprobe_map.c: the linked nodes of each kind (fprobe_mutex). */
extern unsigned int fprobe_kind_linked[FPROBE_NR_KINDS];

/* fprobe.c: bit n set while fprobe handlers run on this CPU at level n. */
DECLARE_PER_CPU(unsigned int, fprobe_running);

#define fprobe_deref(p)	rcu_dereference_protected(p, lockdep_is_held(&fprobe_mutex))

/* ---- fprobe.c: the hooks (fprobe_mutex held), and a handler call --------- */

struct ftrace_hash;

int fprobe_hook_add(u8 kind, unsigned long *ips, unsigned int nr,
		    struct ftrace_hash **hash);
void fprobe_hook_remove(u8 kind, unsigned long *ips, unsigned int nr);

/* An exit handler call of an FPROBE_FL_KPROBE_SHARED probe. */
void fprobe_call_exit_busy(struct fprobe *fp, unsigned long ip,
			   unsigned long ret_ip, struct ftrace_regs *fregs,
			   void *data);

/* ---- fprobe_map.c: the map and releasing sites (fprobe_mutex held) ------- */

static inline struct fprobe_map *fprobe_map_locked(void)
{
	return fprobe_deref(fprobe_map);
}

bool fprobe_site_has_kind(struct fprobe_map *map, unsigned long ip, u8 kind);
void fprobe_map_reap(void);
int fprobe_map_fit(unsigned int extra);
void fprobe_map_trim(void);
void fprobe_node_link(struct fprobe_map *map, struct fprobe_node *node);
void fprobe_node_unlink(struct fprobe_map *map, struct fprobe_node *node);
unsigned int fprobe_sort_unique(unsigned long *ips, unsigned int nr);
void fprobe_lists_alloc(struct fprobe_site_list *lists,
			const unsigned int *count);
void fprobe_collect_released(struct fprobe_binding *b,
			     struct fprobe_site_list *lists);
void fprobe_release_sites(struct fprobe_site_list *lists);

/* ---- fprobe_return.c: the C half of fprobe_return_handler ---------------- */

#ifdef CONFIG_HAVE_FPROBE_RETURN_HANDLER
/*
 * The arch's fprobe_return_handler calls it with the frame it built for a
 * hooked return; it runs the exit handlers and stores the real return
 * address into the trampoline's slot, the word just below fregs' sp.
 * Bound at link time: an entry point of the layering (layers.list).
 */
void fprobe_return(struct ftrace_regs *fregs);
#endif

/* ---- inline helpers of both halves of a hit ------------------------------- */

/*
 * Mark handlers running in the current context; preemption is disabled.
 * Returns the token to give back to fprobe_busy_exit() (the mask that
 * clears the context's bit, never 0), or 0 when handlers already run in
 * this context (a nested hit).  An interrupt in between restores the word
 * before it returns, so a plain read-modify-write is safe.
 */
static __always_inline unsigned int fprobe_busy_enter(void)
{
	/*
	 * The context's bit: 0 for a task, then by the highest bit of the
	 * softirq-serving, hardirq and NMI counts (NMI above hardirq above
	 * softirq, so a nested context never shares a lower one's bit).
	 */
	unsigned int ctx = preempt_count() &
			   (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET);

	unsigned int bit;

	if (unlikely(ctx)) {
		/*
		 * The barrier keeps this read of the word apart from the
		 * task's below, which then stays one test of memory.
		 */
		barrier();
		bit = 1U << fls(ctx);
		if (unlikely(__this_cpu_read(fprobe_running) & bit))
			return 0;
		__this_cpu_or(fprobe_running, bit);
		barrier();
		return ~bit;
	}
	/* Constants for the task's bit: no mask to compute. */
	if (unlikely(__this_cpu_read(fprobe_running) & 1))
		return 0;
	__this_cpu_or(fprobe_running, 1);
	barrier();
	return ~1U;
}

/* @mask: what fprobe_busy_enter() returned (not 0). */
static __always_inline void fprobe_busy_exit(unsigned int mask)
{
	barrier();
	/* One read-modify-write instruction of memory where the arch has it. */
	__this_cpu_and(fprobe_running, mask);
}

/*
 * RCU watches this CPU (the map may be walked); preemption is disabled.
 * The inline test where there is one: rcu_is_watching() is a call.  The
 * state word is read as per-CPU data (one plain read of an int, what
 * rcu_is_watching_curr_cpu() does through a computed pointer), so the
 * test is one instruction of memory where the arch has per-CPU operands.
 */
static __always_inline bool fprobe_rcu_ok(void)
{
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
	return raw_cpu_read(context_tracking.state.counter) & CT_RCU_WATCHING;
#else
	return rcu_is_watching();
#endif
}

/* FPROBE_FL_KPROBE_SHARED probes skip their handlers while a kprobe runs. */
static __always_inline bool fprobe_kprobe_blocks(unsigned int flags)
{
	return unlikely(flags & FPROBE_FL_KPROBE_SHARED) && kprobe_running();
}

static __always_inline void
fprobe_call_exit(struct fprobe *fp, unsigned int flags, unsigned long ip,
		 unsigned long ret_ip, struct ftrace_regs *fregs, void *data)
{
	if (likely(!(flags & FPROBE_FL_KPROBE_SHARED)))
		fp->exit_handler(fp, ip, ret_ip, fregs, data);
	else
		fprobe_call_exit_busy(fp, ip, ret_ip, fregs, data);
}

/*
 * Find the live registration a record header names: false if it is gone
 * since, else true with its probe in *@fpp (never NULL).  A flag and an
 * out parameter, not a pointer, so a caller tests one condition (the
 * kernel's compiler keeps a test of a loaded pointer for NULL).
 */
static __always_inline bool fprobe_find_live(unsigned long hdr,
					     struct fprobe **fpp)
{
	struct fprobe_regs *regs = rcu_dereference_raw(fprobe_regs);
	unsigned long slot = hdr >> FPROBE_HDR_SLOT_SHIFT;
	struct fprobe_binding *b;

	/* Never NULL: an empty table, and a free slot's id matches no record. */
	if (unlikely(slot >= regs->size))
		return false;
	b = rcu_dereference_raw(regs->slot[slot]);
	if (unlikely((b->id ^ hdr) >> FPROBE_HDR_ID_SHIFT))
		return false;
	*fpp = b->fp;
	return true;
}

/*
 * Run the exit handlers the record block @data (@nr words) of a call of
 * @ip asks for; preemption disabled, the instruction pointer of @fregs
 * the real return address.  Handlers cannot be running in this context
 * already: a call hooked before they started cannot return while they
 * run, and calls made by them are not hooked; the bit is taken for what
 * the exit handlers call.
 */
static __always_inline void fprobe_run_exits(unsigned long ip,
					     unsigned long *data,
					     unsigned int nr,
					     struct ftrace_regs *fregs)
{
	unsigned long ret_ip = ftrace_regs_get_instruction_pointer(fregs);
	unsigned int pos, words, flags, bit;
	unsigned long hdr;
	struct fprobe *fp;

	if (unlikely(!fprobe_rcu_ok()))
		return;
	bit = fprobe_busy_enter();
	for (pos = 0; pos < nr; pos += 1 + words) {
		hdr = data[pos];
		if (!hdr)
			break;
		words = hdr & FPROBE_HDR_WORDS;
		if (WARN_ON_ONCE(pos + 1 + words > nr))
			break;
		if (!(hdr & FPROBE_HDR_CALL))
			continue;
		if (!fprobe_find_live(hdr, &fp))
			continue;
		flags = READ_ONCE(fp->flags);
		if (flags & FPROBE_FL_DISABLED)
			continue;
		if (unlikely(!bit) || fprobe_kprobe_blocks(flags)) {
			fp->nmissed++;
			continue;
		}
		fprobe_call_exit(fp, flags, ip, ret_ip, fregs,
				 words ? &data[pos + 1] : NULL);
	}
	if (bit)
		fprobe_busy_exit(bit);
}

#endif /* _KERNEL_TRACE_FPROBE_INTERNAL_H */
