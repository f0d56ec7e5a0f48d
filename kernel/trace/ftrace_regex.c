// SPDX-License-Identifier: GPL-2.0
/*
 * The filter files of an ops: set_ftrace_filter and set_ftrace_notrace
 * (and the stack tracer's stack_trace_filter, which uses the same open,
 * write and release).
 *
 * An open filter file works on a private copy of the hash it edits.
 * Every word written is applied to that copy right away (so a bad word
 * fails the write(2) that carries it) and the whole copy is installed in
 * one step when the file is released.  A word "func:command[:param]" goes
 * to its command (ftrace_regex_cmds.c); function probes
 * ("schedule:traceoff") are registered by theirs at once.  A reader gets
 * the functions of the hash, the cached :mod: requests and, for
 * set_ftrace_filter, the function probes.  The word reader, the parser
 * lock and the hash helpers here serve set_graph_function and
 * set_graph_notrace too (ftrace_regex_graph.c).
 *
 * Layer: tracefs.
 *
 * Locking:
 *  - regex_parse_lock serialises the word parsers of all open filter and
 *    graph files (several writers of one file share its parser).
 *  - An ops' regex_lock is held while taking the copy and while installing
 *    it (ftrace_hash_install() takes ftrace_lock itself).
 *  - ftrace_lock is held from ->start() to ->stop() of every listing, which
 *    walks the call-site groups, the :mod: caches and the function probes.
 * Order: regex_parse_lock -> regex_cmd_lock -> (command's locks) ->
 * regex_lock -> ftrace_lock; trace_types_lock -> regex_lock.
 */
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/ftrace.h>

#include "trace.h"
#include "ftrace_internal.h"
#include "ftrace_regex.h"

/* Serialises the word parsers of every open filter and graph file. */
DEFINE_MUTEX(regex_parse_lock);

/* Copy of @src including its flags (the :mod: marker). */
struct ftrace_hash *regex_hash_dup(struct ftrace_hash *src)
{
	struct ftrace_hash *copy;

	copy = ftrace_hash_copy(FTRACE_HASH_DEFAULT_BITS, src);
	if (copy && src)
		copy->flags = src->flags;
	return copy;
}

/*
 * A private copy lives as long as its file is open; call sites that went
 * away meanwhile (module unload) are retired like ftrace_hashes_drop_range()
 * does for published hashes: ip 0, entry kept, so the set cannot turn into
 * the empty "everything" set.  Called just before the copy is installed.
 */
void regex_retire_stale(struct ftrace_hash *hash)
{
	struct ftrace_func_entry *e;
	unsigned int idx;
	int i;

	if (ftrace_hash_empty(hash))
		return;
	mutex_lock(&ftrace_lock);
	for_each_hash_entry(hash, i, e)
		if (e->ip && !ftrace_site_find(e->ip, &idx))
			e->ip = 0;
	mutex_unlock(&ftrace_lock);
}

/* Read a trace_parser word from user space; true when a full word is ready. */
ssize_t regex_read_word(struct trace_parser *parser, const char __user *ubuf,
			size_t cnt, loff_t *ppos, bool *ready)
{
	ssize_t read = trace_get_user(parser, ubuf, cnt, ppos);

	*ready = read >= 0 && trace_parser_loaded(parser) &&
		 !trace_parser_cont(parser);
	return read;
}

/* ---- set_ftrace_filter / set_ftrace_notrace ------------------------------ */

enum regex_part {
	PART_ALL,	/* the "all functions" line of an empty hash */
	PART_FUNCS,	/* call sites in the hash */
	PART_MODS,	/* cached :mod: requests */
	PART_PROBES,	/* function probes (set_ftrace_filter only) */
	PART_DONE,
};

/*
 * An open filter file.  The listing cursor names the item shown at seq
 * position @pos; it is only used with ftrace_lock held and is rebuilt from
 * scratch whenever it cannot be trusted any more.
 */
struct regex_iter {
	struct ftrace_ops		*ops;
	struct trace_array		*tr;
	unsigned int			flags;		/* FTRACE_ITER_* */
	struct ftrace_hash		*hash;		/* private copy */
	struct trace_parser		parser;		/* writers only */

	loff_t				pos;
	enum regex_part			part;
	struct ftrace_site_group	*grp;
	unsigned int			idx;
	unsigned long			nth;		/* in mods / probes */
	char				name[KSYM_NAME_LEN];
};

static struct regex_iter *regex_file_iter(struct file *file)
{
	if (file->f_mode & FMODE_READ)
		return ((struct seq_file *)file->private_data)->private;
	return file->private_data;
}

static struct list_head *regex_mod_list(struct regex_iter *it)
{
	if (!it->tr)
		return NULL;
	return mod_cache_head(it->tr, !(it->flags & FTRACE_ITER_NOTRACE));
}

static unsigned long regex_mod_count(struct regex_iter *it)
{
	struct list_head *head = regex_mod_list(it);
	unsigned long n = 0;

	if (head)
		n = list_count_nodes(head);
	return n;
}

static struct ftrace_site_group *group_next(struct ftrace_site_group *g)
{
	return rcu_dereference_protected(g->next, lockdep_is_held(&ftrace_lock));
}

static bool regex_lists_rec(struct regex_iter *it, struct ftrace_site_group *g,
			    unsigned int i)
{
	return !ftrace_site_disabled(g, i) &&
	       ftrace_lookup_ip(it->hash, ftrace_site_ip(g, i));
}

/* Move the cursor forward to the first position that holds an item. */
static void cursor_settle(struct regex_iter *it)
{
	for (;;) {
		switch (it->part) {
		case PART_FUNCS:
			for (; it->grp; it->grp = group_next(it->grp), it->idx = 0) {
				for (; it->idx < it->grp->nr; it->idx++)
					if (regex_lists_rec(it, it->grp, it->idx))
						return;
				cond_resched();
			}
			it->part = PART_MODS;
			it->nth = 0;
			break;
		case PART_MODS:
			if (it->nth < regex_mod_count(it))
				return;
			it->part = PART_PROBES;
			it->nth = 0;
			break;
		case PART_PROBES:
			if ((it->flags & FTRACE_ITER_DO_PROBES) &&
			    it->nth < ftrace_probes_count(it->tr))
				return;
			it->part = PART_DONE;
			return;
		default:		/* PART_ALL, PART_DONE */
			return;
		}
	}
}

static void cursor_rewind(struct regex_iter *it)
{
	it->pos = 0;
	it->grp = NULL;
	it->idx = 0;
	it->nth = 0;
	if (ftrace_hash_empty(it->hash)) {
		it->part = PART_ALL;
		return;
	}
	it->part = PART_FUNCS;
	if (it->hash->count)
		it->grp = rcu_dereference_protected(ftrace_site_groups,
						    lockdep_is_held(&ftrace_lock));
	cursor_settle(it);
}

static void cursor_step(struct regex_iter *it)
{
	switch (it->part) {
	case PART_ALL:
		it->part = PART_MODS;
		it->nth = 0;
		break;
	case PART_FUNCS:
		it->idx++;
		break;
	case PART_MODS:
	case PART_PROBES:
		it->nth++;
		break;
	case PART_DONE:
		return;
	}
	it->pos++;
	cursor_settle(it);
}

/* May the cursor left by the previous ->stop() be reused for @pos? */
static bool cursor_resumable(struct regex_iter *it, loff_t pos)
{
	struct ftrace_site_group *g;

	if (pos != it->pos || it->part == PART_DONE)
		return false;
	if (it->part != PART_FUNCS)
		return true;
	for_each_site_group(g)
		if (g == it->grp)
			return it->idx < g->nr;
	return false;		/* its group went away meanwhile */
}

static void *regex_seq_start(struct seq_file *m, loff_t *pos)
{
	struct regex_iter *it = m->private;

	mutex_lock(&ftrace_lock);
	if (ftrace_core_dead())
		return NULL;

	if (cursor_resumable(it, *pos)) {
		cursor_settle(it);
	} else {
		cursor_rewind(it);
		while (it->pos < *pos && it->part != PART_DONE)
			cursor_step(it);
	}
	return it->part == PART_DONE ? NULL : it;
}

static void *regex_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct regex_iter *it = m->private;

	cursor_step(it);
	(*pos)++;
	it->pos = *pos;
	return it->part == PART_DONE ? NULL : it;
}

static void regex_seq_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&ftrace_lock);
}

static void regex_show_rec(struct seq_file *m, struct regex_iter *it)
{
	unsigned long ip = ftrace_site_ip(it->grp, it->idx);
	const char *modname = NULL;

	if (ftrace_site_name(ip, it->name, &modname)) {
		seq_printf(m, "%ps\n", (void *)ip);
		return;
	}
	seq_puts(m, it->name);
	if (modname)
		seq_printf(m, " [%s]", modname);
	seq_putc(m, '\n');
}

static void regex_show_mod(struct seq_file *m, struct regex_iter *it)
{
	struct ftrace_mod_load *ml;
	unsigned long n = it->nth;

	list_for_each_entry(ml, regex_mod_list(it), list) {
		if (n--)
			continue;
		seq_printf(m, "%s:mod:%s\n", ml->func ? ml->func : "*",
			   ml->module);
		return;
	}
}

static int regex_seq_show(struct seq_file *m, void *v)
{
	struct regex_iter *it = m->private;

	switch (it->part) {
	case PART_ALL:
		if (it->flags & FTRACE_ITER_NOTRACE)
			seq_puts(m, "#### no functions disabled ####\n");
		else
			seq_puts(m, "#### all functions enabled ####\n");
		break;
	case PART_FUNCS:
		regex_show_rec(m, it);
		break;
	case PART_MODS:
		regex_show_mod(m, it);
		break;
	case PART_PROBES:
		ftrace_probes_show_line(m, it->tr, it->nth);
		break;
	case PART_DONE:
		break;
	}
	return 0;
}

static const struct seq_operations regex_seq_ops = {
	.start	= regex_seq_start,
	.next	= regex_seq_next,
	.stop	= regex_seq_stop,
	.show	= regex_seq_show,
};

static struct ftrace_hash __rcu **regex_slot(struct regex_iter *it)
{
	struct ftrace_ops_hash *fh = it->ops->func_hash;

	if (it->flags & FTRACE_ITER_NOTRACE)
		return &fh->notrace_hash;
	return &fh->filter_hash;
}

/* Take the private copy: empty for O_TRUNC writers, else the current hash. */
static int regex_take_hash(struct regex_iter *it, struct file *file)
{
	struct mutex *lock = &it->ops->func_hash->regex_lock;
	bool trunc = (file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC);
	struct list_head *mods = regex_mod_list(it);
	struct ftrace_hash *cur;

	mutex_lock(lock);
	cur = rcu_dereference_protected(*regex_slot(it), lockdep_is_held(lock));
	if (trunc)
		it->hash = ftrace_hash_alloc(FTRACE_HASH_DEFAULT_BITS);
	else
		it->hash = regex_hash_dup(cur);
	if (trunc && it->hash && mods)
		mod_cache_clear(mods);
	mutex_unlock(lock);

	return it->hash ? 0 : -ENOMEM;
}

static int regex_attach(struct regex_iter *it, struct file *file)
{
	int ret;

	if (!(file->f_mode & FMODE_READ)) {
		file->private_data = it;
		return 0;
	}
	ret = seq_open(file, &regex_seq_ops);
	if (!ret)
		((struct seq_file *)file->private_data)->private = it;
	return ret;
}

/*
 * Whose file it is: @tr if given; else the owner of *@ops, with *@ops
 * defaulting to global_ops.  (With @tr given, a NULL *@ops means tr->ops.)
 */
static struct trace_array *regex_owner(struct trace_array *tr,
				       struct ftrace_ops **ops)
{
	if (tr)
		return tr;
	if (!*ops)
		*ops = &global_ops;
	return (*ops)->private;
}

static struct regex_iter *regex_iter_new(struct trace_array *tr,
					 struct ftrace_ops *ops, int flag,
					 struct file *file)
{
	struct regex_iter *it;

	if (WARN_ON_ONCE(!ops))
		return ERR_PTR(-ENODEV);
	ftrace_ops_init(ops);		/* a fresh tr->ops has no hashes yet */

	it = kzalloc(sizeof(*it), GFP_KERNEL);
	if (!it)
		return ERR_PTR(-ENOMEM);
	it->ops = ops;
	it->tr = tr;
	it->flags = flag;
	it->pos = -1;			/* the first ->start() rewinds */
	if ((file->f_mode & FMODE_WRITE) &&
	    trace_parser_get_init(&it->parser, REGEX_WORD_MAX)) {
		kfree(it);
		return ERR_PTR(-ENOMEM);
	}
	return it;
}

static void regex_iter_free(struct regex_iter *it, struct file *file)
{
	if (file->f_mode & FMODE_WRITE)
		trace_parser_put(&it->parser);
	kfree(it);
}

/**
 * ftrace_regex_open - open a filter or notrace file of an ops
 * @tr: trace array of the file (its reference is taken here), or NULL
 * @ops: ops whose hash the file edits; NULL means @tr->ops
 * @flag: FTRACE_ITER_FILTER or FTRACE_ITER_NOTRACE, plus
 *	FTRACE_ITER_DO_PROBES to list function probes (set_ftrace_filter)
 * @inode: inode being opened
 * @file: file being opened
 *
 * With @tr and @ops both NULL, global_ops and its trace array are used;
 * with only @tr NULL, @ops->private is the trace array.  Writers edit a
 * private copy of the hash (empty with O_TRUNC, which also drops the
 * cached :mod: requests of that hash); ftrace_regex_release() installs it.
 * Readers get a seq_file listing.  Use ftrace_filter_write() or
 * ftrace_notrace_write() as write, tracing_lseek() as llseek and
 * ftrace_regex_release() as release.
 *
 * Return: 0, -ENODEV if ftrace is dead or @tr is going away, -ENOMEM.
 */
int ftrace_regex_open(struct trace_array *tr, struct ftrace_ops *ops, int flag,
		      struct inode *inode, struct file *file)
{
	struct regex_iter *it;
	int ret;

	if (ftrace_core_dead())
		return -ENODEV;
	tr = regex_owner(tr, &ops);
	if (tracing_check_open_get_tr(tr))
		return -ENODEV;

	it = regex_iter_new(tr, ops ?: tr->ops, flag, file);
	if (IS_ERR(it)) {
		ret = PTR_ERR(it);
		goto put_tr;
	}
	ret = regex_take_hash(it, file);
	if (ret)
		goto free_iter;
	ret = regex_attach(it, file);
	if (!ret)
		return 0;

	ftrace_hash_free(it->hash);
free_iter:
	regex_iter_free(it, file);
put_tr:
	if (tr)
		trace_array_put(tr);
	return ret;
}

/* Apply one written word to the private copy (or run its command). */
static int regex_apply_word(struct regex_iter *it, char *word, int len,
			    int enable)
{
	char *rest = word;
	char *func = strsep(&rest, ":");
	char *name;
	int ret;

	if (!rest) {
		ret = ftrace_match_records(it->hash, func, len);
		if (ret < 0)
			return ret;
		return ret ? 0 : -EINVAL;	/* no such function */
	}
	name = strsep(&rest, ":");
	return regex_run_command(it->tr, it->hash, func, name, rest, enable);
}

static ssize_t regex_write(struct file *file, const char __user *ubuf,
			   size_t cnt, loff_t *ppos, int enable)
{
	struct regex_iter *it = regex_file_iter(file);
	struct trace_parser *parser = &it->parser;
	ssize_t read;
	bool ready;
	int ret = 0;

	if (!cnt)
		return 0;
	if (ftrace_core_dead())
		return -ENODEV;

	mutex_lock(&regex_parse_lock);
	read = regex_read_word(parser, ubuf, cnt, ppos, &ready);
	if (ready) {
		ret = regex_apply_word(it, parser->buffer, parser->idx, enable);
		trace_parser_clear(parser);
	}
	mutex_unlock(&regex_parse_lock);

	return ret < 0 ? ret : read;
}

/**
 * ftrace_filter_write - write handler of a filter file
 * @file: file opened with ftrace_regex_open(..., FTRACE_ITER_FILTER, ...)
 * @ubuf: user buffer
 * @cnt: bytes in @ubuf
 * @ppos: file position
 *
 * Words are separated by white space: "glob", "!glob", "glob:mod:module"
 * or "glob:command[:param]".  Each complete word is applied at once.
 *
 * Return: bytes consumed, or the error of the word that failed (-EINVAL
 * for a glob matching no function or an unknown command).
 */
ssize_t ftrace_filter_write(struct file *file, const char __user *ubuf,
			    size_t cnt, loff_t *ppos)
{
	return regex_write(file, ubuf, cnt, ppos, 1);
}

/**
 * ftrace_notrace_write - write handler of a notrace file
 * @file: file opened with ftrace_regex_open(..., FTRACE_ITER_NOTRACE, ...)
 * @ubuf: user buffer
 * @cnt: bytes in @ubuf
 * @ppos: file position
 *
 * As ftrace_filter_write(); commands other than "mod" refuse notrace.
 *
 * Return: bytes consumed, or the error of the word that failed.
 */
ssize_t ftrace_notrace_write(struct file *file, const char __user *ubuf,
			     size_t cnt, loff_t *ppos)
{
	return regex_write(file, ubuf, cnt, ppos, 0);
}

/* Install the private copy as the ops' filter or notrace hash. */
static int regex_commit(struct regex_iter *it)
{
	struct mutex *lock = &it->ops->func_hash->regex_lock;
	bool filter = !(it->flags & FTRACE_ITER_NOTRACE);
	bool pending = false;
	int ret;

	mutex_lock(lock);
	if (filter && it->tr) {
		mutex_lock(&ftrace_lock);
		pending = !list_empty(&it->tr->mod_trace);
		mutex_unlock(&ftrace_lock);
		/* waiting for a module: an empty filter must not mean "all" */
		if (pending)
			it->hash->flags |= FTRACE_HASH_FL_MOD;
		else
			it->hash->flags &= ~FTRACE_HASH_FL_MOD;
	}
	regex_retire_stale(it->hash);
	ret = ftrace_hash_install(it->ops, regex_slot(it), it->hash);
	it->hash = NULL;		/* consumed */
	mutex_unlock(lock);
	return ret;
}

/**
 * ftrace_regex_release - release handler of a filter or notrace file
 * @inode: inode of the file
 * @file: file opened with ftrace_regex_open()
 *
 * A last word not followed by white space is applied, then a writer's copy
 * is installed in one step (the ops' users see either the old or the new
 * set, never a mix).
 *
 * Return: 0, or the error of the install (the old hash stays then).
 */
int ftrace_regex_release(struct inode *inode, struct file *file)
{
	struct regex_iter *it = regex_file_iter(file);
	int enable = !(it->flags & FTRACE_ITER_NOTRACE);
	struct trace_array *tr;
	int ret = 0;

	if (file->f_mode & FMODE_READ)
		seq_release(inode, file);

	if (file->f_mode & FMODE_WRITE) {
		mutex_lock(&regex_parse_lock);
		if (trace_parser_loaded(&it->parser))
			regex_apply_word(it, it->parser.buffer, it->parser.idx,
					 enable);
		mutex_unlock(&regex_parse_lock);
		ret = regex_commit(it);
	}

	ftrace_hash_free(it->hash);
	tr = it->tr;
	regex_iter_free(it, file);
	if (tr)
		trace_array_put(tr);
	return ret;
}
