/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the filter files share and nobody else needs: the word reader and
 * its lock, and the hash helpers (ftrace_regex.c), used by the graph files
 * (ftrace_regex_graph.c); the command dispatch and the :mod: cache
 * (ftrace_regex_cmds.c), used by set_ftrace_filter and set_ftrace_notrace.
 *
 * Layer: tracefs, private to the filter files.
 *
 * Locking: regex_parse_lock is taken around a word's reading and applying;
 * the :mod: cache lists are protected by ftrace_lock.  Order:
 * regex_parse_lock -> regex_cmd_lock -> (command's locks) -> regex_lock ->
 * ftrace_lock.
 */
#ifndef _LINUX_KERNEL_FTRACE_REGEX_H
#define _LINUX_KERNEL_FTRACE_REGEX_H

#include <linux/kallsyms.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct ftrace_hash;
struct list_head;
struct trace_array;
struct trace_parser;

/* A word is a symbol name plus a few glob characters, or a command. */
#define REGEX_WORD_MAX		(KSYM_SYMBOL_LEN + 4)

/* Serialises the word parsers of every open filter and graph file. */
extern struct mutex regex_parse_lock;

/* Read a trace_parser word from user space; *@ready when a full word is in. */
ssize_t regex_read_word(struct trace_parser *parser, const char __user *ubuf,
			size_t cnt, loff_t *ppos, bool *ready);
/* Copy of @src including its flags (the :mod: marker); NULL on -ENOMEM. */
struct ftrace_hash *regex_hash_dup(struct ftrace_hash *src);
/* Set the ip of entries whose call site went away to 0; takes ftrace_lock. */
void regex_retire_stale(struct ftrace_hash *hash);

/* "func:name:param": run command @name on @hash (-EINVAL if unknown). */
int regex_run_command(struct trace_array *tr, struct ftrace_hash *hash,
		      char *func, char *name, char *param, int enable);
/* The :mod: cache of @tr's filter (@enable) or notrace hash. */
struct list_head *mod_cache_head(struct trace_array *tr, int enable);
/* Drop a whole :mod: cache; takes ftrace_lock. */
void mod_cache_clear(struct list_head *head);

#endif /* _LINUX_KERNEL_FTRACE_REGEX_H */
