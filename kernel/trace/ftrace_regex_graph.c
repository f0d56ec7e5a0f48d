// SPDX-License-Identifier: GPL-2.0
/*
 * The function graph tracer's filter files: set_graph_function and
 * set_graph_notrace.  A writer builds a new set from the live one (or an
 * empty one with O_TRUNC), word by word ("glob" adds, "!glob" removes),
 * and installs it in one step on release (ftrace_graph_hash_install()).
 * A reader lists the live set.  Graph files know no commands and no :mod:.
 *
 * Layer: tracefs.
 *
 * Locking: regex_parse_lock (ftrace_regex.c) serialises the word parsers;
 * ftrace_lock is held while the live set is copied and from ->start() to
 * ->stop() of a listing.  Order: regex_parse_lock -> ftrace_lock.
 */
#include <linux/ctype.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/ftrace.h>

#include "trace.h"
#include "ftrace_internal.h"
#include "ftrace_regex.h"

/*
 * An open graph file.  Writers build @new_hash and install it on release
 * through ftrace_graph_hash_install().  The listing walks the live graph
 * hash with ftrace_lock held from ->start() to ->stop(); @hash, @bucket
 * and @entry are only valid in between.
 */
struct graph_file {
	bool				exclude;	/* set_graph_notrace */
	struct ftrace_hash		*new_hash;
	struct trace_parser		parser;

	struct ftrace_hash		*hash;
	unsigned long			bucket;
	struct ftrace_func_entry	*entry;
};

static struct graph_file *graph_file_of(struct file *file)
{
	if (file->f_mode & FMODE_READ)
		return ((struct seq_file *)file->private_data)->private;
	return file->private_data;
}

/* The live graph hash.  ftrace_lock held. */
static struct ftrace_hash *graph_live_hash(bool exclude)
{
	if (exclude)
		return rcu_dereference_protected(ftrace_graph_notrace_hash,
						 lockdep_is_held(&ftrace_lock));
	return rcu_dereference_protected(ftrace_graph_hash,
					 lockdep_is_held(&ftrace_lock));
}

/* Advance to the entry after gf->entry (the first one if NULL). */
static struct ftrace_func_entry *graph_step(struct graph_file *gf)
{
	unsigned long size = 1UL << gf->hash->size_bits;
	struct hlist_node *node;

	if (gf->entry) {
		node = gf->entry->hlist.next;
	} else {
		gf->bucket = 0;
		node = gf->hash->buckets[0].first;
	}
	while (!node && ++gf->bucket < size)
		node = gf->hash->buckets[gf->bucket].first;

	gf->entry = node ? hlist_entry(node, struct ftrace_func_entry, hlist) :
			   NULL;
	return gf->entry;
}

static void *graph_seq_start(struct seq_file *m, loff_t *pos)
{
	struct graph_file *gf = m->private;
	loff_t i;

	mutex_lock(&ftrace_lock);
	gf->hash = graph_live_hash(gf->exclude);
	gf->entry = NULL;
	if (ftrace_hash_empty(gf->hash) || !gf->hash->count)
		return *pos ? NULL : SEQ_START_TOKEN;

	for (i = 0; i <= *pos; i++)
		if (!graph_step(gf))
			return NULL;
	return gf->entry;
}

static void *graph_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct graph_file *gf = m->private;

	(*pos)++;
	if (v == SEQ_START_TOKEN)
		return NULL;
	return graph_step(gf);
}

static void graph_seq_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&ftrace_lock);
}

static int graph_seq_show(struct seq_file *m, void *v)
{
	struct graph_file *gf = m->private;
	struct ftrace_func_entry *entry = v;

	if (v == SEQ_START_TOKEN) {
		if (gf->exclude)
			seq_puts(m, "#### no functions disabled ####\n");
		else
			seq_puts(m, "#### all functions enabled ####\n");
		return 0;
	}
	if (entry->ip)		/* 0: its module went away */
		seq_printf(m, "%ps\n", (void *)entry->ip);
	return 0;
}

static const struct seq_operations graph_seq_ops = {
	.start	= graph_seq_start,
	.next	= graph_seq_next,
	.stop	= graph_seq_stop,
	.show	= graph_seq_show,
};

/* Add every entry of @found to @dst. */
static int graph_hash_merge(struct ftrace_hash *dst, struct ftrace_hash *found)
{
	struct ftrace_func_entry *e;
	int i;

	for_each_hash_entry(found, i, e) {
		if (ftrace_lookup_ip(dst, e->ip))
			continue;
		if (!ftrace_hash_add(dst, e->ip))
			return -ENOMEM;
	}
	return 0;
}

/* Replace gf->new_hash by itself minus @found; -EINVAL if nothing went. */
static int graph_hash_drop(struct graph_file *gf, struct ftrace_hash *found)
{
	struct ftrace_hash *rest;
	struct ftrace_func_entry *e;
	unsigned long dropped = 0;
	int i;

	rest = ftrace_hash_alloc(FTRACE_HASH_DEFAULT_BITS);
	if (!rest)
		return -ENOMEM;
	for_each_hash_entry(gf->new_hash, i, e) {
		if (ftrace_lookup_ip(found, e->ip)) {
			dropped++;
		} else if (!ftrace_hash_add(rest, e->ip)) {
			ftrace_hash_free(rest);
			return -ENOMEM;
		}
	}
	if (!dropped) {
		ftrace_hash_free(rest);
		return -EINVAL;
	}
	ftrace_hash_free(gf->new_hash);
	gf->new_hash = rest;
	return 0;
}

/*
 * "glob" adds the matching functions, "!glob" removes them.  Fails with
 * -EINVAL when the glob matches no function, or (for '!') none of the set.
 * Graph files know no commands and no :mod:.
 */
static int graph_apply_word(struct graph_file *gf, char *word)
{
	bool remove = word[0] == '!';
	struct ftrace_hash *found;
	int ret;

	if (remove)
		word++;
	if (!*word || isdigit(*word) || strchr(word, ':'))
		return -EINVAL;

	found = ftrace_hash_alloc(FTRACE_HASH_DEFAULT_BITS);
	if (!found)
		return -ENOMEM;
	ret = ftrace_match_records(found, word, strlen(word));
	if (ret > 0 && found->count)
		ret = remove ? graph_hash_drop(gf, found) :
			       graph_hash_merge(gf->new_hash, found);
	else if (ret >= 0)
		ret = -EINVAL;
	ftrace_hash_free(found);
	return ret;
}

/* The writer's starting set: empty with O_TRUNC, else the live hash. */
static struct ftrace_hash *graph_start_hash(struct graph_file *gf,
					    struct file *file)
{
	struct ftrace_hash *hash;

	if (file->f_flags & O_TRUNC)
		return ftrace_hash_alloc(FTRACE_HASH_DEFAULT_BITS);

	mutex_lock(&ftrace_lock);
	hash = ftrace_hash_copy(FTRACE_HASH_DEFAULT_BITS,
				graph_live_hash(gf->exclude));
	mutex_unlock(&ftrace_lock);
	return hash;
}

static int graph_open(struct inode *inode, struct file *file, bool exclude)
{
	struct graph_file *gf;
	int ret;

	ret = security_locked_down(LOCKDOWN_TRACEFS);
	if (ret)
		return ret;
	if (ftrace_core_dead())
		return -ENODEV;

	gf = kzalloc(sizeof(*gf), GFP_KERNEL);
	if (!gf)
		return -ENOMEM;
	gf->exclude = exclude;

	ret = -ENOMEM;
	if (file->f_mode & FMODE_WRITE) {
		if (trace_parser_get_init(&gf->parser, REGEX_WORD_MAX))
			goto free_gf;
		gf->new_hash = graph_start_hash(gf, file);
		if (!gf->new_hash)
			goto put_parser;
	}

	if (!(file->f_mode & FMODE_READ)) {
		file->private_data = gf;
		return 0;
	}
	ret = seq_open(file, &graph_seq_ops);
	if (!ret) {
		((struct seq_file *)file->private_data)->private = gf;
		return 0;
	}

	ftrace_hash_free(gf->new_hash);
put_parser:
	if (file->f_mode & FMODE_WRITE)
		trace_parser_put(&gf->parser);
free_gf:
	kfree(gf);
	return ret;
}

static int graph_function_open(struct inode *inode, struct file *file)
{
	return graph_open(inode, file, false);
}

static int graph_notrace_open(struct inode *inode, struct file *file)
{
	return graph_open(inode, file, true);
}

static ssize_t graph_write(struct file *file, const char __user *ubuf,
			   size_t cnt, loff_t *ppos)
{
	struct graph_file *gf = graph_file_of(file);
	struct trace_parser *parser = &gf->parser;
	ssize_t read;
	bool ready;
	int ret = 0;

	if (!cnt)
		return 0;

	mutex_lock(&regex_parse_lock);
	read = regex_read_word(parser, ubuf, cnt, ppos, &ready);
	if (ready) {
		ret = graph_apply_word(gf, parser->buffer);
		trace_parser_clear(parser);
	}
	mutex_unlock(&regex_parse_lock);

	return ret < 0 ? ret : read;
}

static int graph_release(struct inode *inode, struct file *file)
{
	struct graph_file *gf = graph_file_of(file);
	int ret = 0;

	if (file->f_mode & FMODE_READ)
		seq_release(inode, file);

	if (file->f_mode & FMODE_WRITE) {
		mutex_lock(&regex_parse_lock);
		if (trace_parser_loaded(&gf->parser))
			ret = graph_apply_word(gf, gf->parser.buffer);
		mutex_unlock(&regex_parse_lock);
		trace_parser_put(&gf->parser);

		/* the set is installed even if the last word failed */
		regex_retire_stale(gf->new_hash);
		ret = ftrace_graph_hash_install(gf->exclude, gf->new_hash) ?: ret;
	}
	kfree(gf);
	return ret;
}

const struct file_operations ftrace_graph_fops = {
	.open		= graph_function_open,
	.read		= seq_read,
	.write		= graph_write,
	.llseek		= tracing_lseek,
	.release	= graph_release,
};

const struct file_operations ftrace_graph_notrace_fops = {
	.open		= graph_notrace_open,
	.read		= seq_read,
	.write		= graph_write,
	.llseek		= tracing_lseek,
	.release	= graph_release,
};
