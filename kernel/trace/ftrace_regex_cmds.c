// SPDX-License-Identifier: GPL-2.0
/*
 * The filter commands: words "func:command[:param]" written to
 * set_ftrace_filter or set_ftrace_notrace go to the command registered
 * under that name (register_ftrace_command()).  The built-in one is
 * "mod": "func:mod:module" limits the glob to one module and, while that
 * module is not loaded, is kept in a cache per trace array and hash,
 * applied by ftrace_mod_cache_apply() when the module comes.
 *
 * Layer: tracefs.
 *
 * Locking:
 *  - regex_cmd_lock protects the command list; a command runs under it.
 *  - ftrace_lock protects the :mod: caches (tr->mod_trace, tr->mod_notrace).
 *  - Applying the cache to a new module takes trace_types_lock, then an
 *    ops' regex_lock, then ftrace_lock.
 * Order: regex_parse_lock -> regex_cmd_lock -> (command's locks) ->
 * regex_lock -> ftrace_lock; trace_types_lock -> regex_lock.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/ftrace.h>

#include "trace.h"
#include "ftrace_internal.h"
#include "ftrace_regex.h"

/* ---- commands ----------------------------------------------------------- */

static LIST_HEAD(regex_cmds);
static DEFINE_MUTEX(regex_cmd_lock);

static struct ftrace_func_command *regex_cmd_find(const char *name)
{
	struct ftrace_func_command *cmd;

	lockdep_assert_held(&regex_cmd_lock);
	list_for_each_entry(cmd, &regex_cmds, list)
		if (!strcmp(cmd->name, name))
			return cmd;
	return NULL;
}

/**
 * register_ftrace_command - add a "func:name[:param]" filter command
 * @cmd: the command; @cmd->name must be unique
 *
 * Context: boot (__init), may sleep.
 * Return: 0, or -EBUSY if a command of that name exists.
 */
__init int register_ftrace_command(struct ftrace_func_command *cmd)
{
	int ret = -EBUSY;

	mutex_lock(&regex_cmd_lock);
	if (!regex_cmd_find(cmd->name)) {
		list_add(&cmd->list, &regex_cmds);
		ret = 0;
	}
	mutex_unlock(&regex_cmd_lock);
	return ret;
}

/**
 * unregister_ftrace_command - remove a filter command
 * @cmd: a command with the name of the one to remove
 *
 * Context: boot (__init), may sleep.
 * Return: 0, or -ENODEV if no command has that name.
 */
__init int unregister_ftrace_command(struct ftrace_func_command *cmd)
{
	struct ftrace_func_command *found;

	mutex_lock(&regex_cmd_lock);
	found = regex_cmd_find(cmd->name);
	if (found)
		list_del_init(&found->list);
	mutex_unlock(&regex_cmd_lock);
	return found ? 0 : -ENODEV;
}

/* "func:name:param": hand the word to command @name (-EINVAL if unknown). */
int regex_run_command(struct trace_array *tr, struct ftrace_hash *hash,
		      char *func, char *name, char *param, int enable)
{
	struct ftrace_func_command *cmd;
	int ret = -EINVAL;

	mutex_lock(&regex_cmd_lock);
	cmd = regex_cmd_find(name);
	if (cmd)
		ret = cmd->func(tr, hash, func, name, param, enable);
	mutex_unlock(&regex_cmd_lock);
	return ret;
}

/* ---- the :mod: cache ------------------------------------------------------ */

static void mod_load_free(struct ftrace_mod_load *ml)
{
	list_del(&ml->list);
	kfree(ml->func);
	kfree(ml->module);
	kfree(ml);
}

static bool module_is_loaded(const char *name)
{
	bool loaded = false;

#ifdef CONFIG_MODULES
	preempt_disable();
	loaded = find_module(name);
	preempt_enable();
#endif
	return loaded;
}

struct list_head *mod_cache_head(struct trace_array *tr, int enable)
{
	return enable ? &tr->mod_trace : &tr->mod_notrace;
}

/* Remember "func:mod:module" for when @module shows up.  Takes ftrace_lock. */
static int mod_cache_add(struct trace_array *tr, const char *func,
			 const char *module, int enable)
{
	struct ftrace_mod_load *ml = kzalloc(sizeof(*ml), GFP_KERNEL);
	char *f = kstrdup(func, GFP_KERNEL);
	char *m = kstrdup(module, GFP_KERNEL);

	if (!ml || !f || !m) {
		kfree(ml);
		kfree(f);
		kfree(m);
		return -ENOMEM;
	}
	ml->func = f;
	ml->module = m;
	ml->enable = enable;

	mutex_lock(&ftrace_lock);
	list_add(&ml->list, mod_cache_head(tr, enable));
	mutex_unlock(&ftrace_lock);
	return 0;
}

/* "!func:mod:module": drop matching requests ("*" drops all of @module). */
static int mod_cache_forget(struct trace_array *tr, const char *func,
			    const char *module, int enable)
{
	struct ftrace_mod_load *ml, *tmp;
	bool all = !strcmp(func, "*");
	int ret = -EINVAL;

	mutex_lock(&ftrace_lock);
	list_for_each_entry_safe(ml, tmp, mod_cache_head(tr, enable), list) {
		if (strcmp(ml->module, module))
			continue;
		if (!all && (!ml->func || strcmp(ml->func, func)))
			continue;
		mod_load_free(ml);
		ret = 0;
	}
	mutex_unlock(&ftrace_lock);
	return ret;
}

/* Drop the whole cache of a file opened with O_TRUNC. */
void mod_cache_clear(struct list_head *head)
{
	struct ftrace_mod_load *ml, *tmp;

	mutex_lock(&ftrace_lock);
	list_for_each_entry_safe(ml, tmp, head, list)
		mod_load_free(ml);
	mutex_unlock(&ftrace_lock);
}

/* Match "@func:mod:@module" into @hash; copies, as matching edits strings. */
static int mod_match(struct ftrace_hash *hash, const char *func,
		     const char *module)
{
	char *f = kstrdup(func, GFP_KERNEL);
	char *m = kstrdup(module, GFP_KERNEL);
	int ret = -ENOMEM;

	if (f && m)
		ret = ftrace_match_records_mod(hash, f, strlen(f), m);
	kfree(f);
	kfree(m);
	return ret;
}

/*
 * The "mod" command: "func:mod:module" limits the glob to one module.  When
 * nothing matches because the module is not loaded, the request is kept and
 * applied by ftrace_mod_cache_apply() once the module comes.
 */
static int mod_command(struct trace_array *tr, struct ftrace_hash *hash,
		       char *func, char *cmd, char *module, int enable)
{
	int ret;

	if (!tr)
		return -ENODEV;
	if (!module || !*module)
		return -EINVAL;

	ret = mod_match(hash, func, module);
	if (ret)
		return ret < 0 ? ret : 0;

	if (func[0] == '!')
		return mod_cache_forget(tr, func + 1, module, enable);
	if (module_is_loaded(module))
		return -EINVAL;
	return mod_cache_add(tr, func, module, enable);
}

static struct ftrace_func_command mod_cmd = {
	.name	= "mod",
	.func	= mod_command,
};

static int __init regex_mod_cmd_init(void)
{
	return register_ftrace_command(&mod_cmd);
}
core_initcall(regex_mod_cmd_init);

#ifdef CONFIG_MODULES
/* Move the cached requests of @name from @head to @todo.  ftrace_lock held. */
static void mod_cache_take(struct list_head *head, const char *name,
			   struct list_head *todo)
{
	struct ftrace_mod_load *ml, *tmp;

	list_for_each_entry_safe(ml, tmp, head, list)
		if (!strcmp(ml->module, name))
			list_move_tail(&ml->list, todo);
}

/* Apply the requests for module @name cached on one hash of @tr. */
static void mod_cache_apply_one(struct trace_array *tr, const char *name,
				int enable)
{
	struct list_head *head = mod_cache_head(tr, enable);
	struct ftrace_ops *ops = tr->ops;
	struct ftrace_mod_load *ml, *tmp;
	struct ftrace_hash __rcu **slot;
	struct ftrace_hash *new;
	struct mutex *lock;		/* the ops' regex_lock */
	LIST_HEAD(todo);

	if (!ops || !ops->func_hash || list_empty(head))
		return;

	lock = &ops->func_hash->regex_lock;
	mutex_lock(lock);
	slot = enable ? &ops->func_hash->filter_hash :
			&ops->func_hash->notrace_hash;
	new = regex_hash_dup(rcu_dereference_protected(*slot,
						       lockdep_is_held(lock)));
	if (!new)
		goto unlock;

	mutex_lock(&ftrace_lock);
	mod_cache_take(head, name, &todo);
	mutex_unlock(&ftrace_lock);
	if (list_empty(&todo)) {
		ftrace_hash_free(new);
		goto unlock;
	}

	list_for_each_entry_safe(ml, tmp, &todo, list) {
		mod_match(new, ml->func ? ml->func : "*", name);
		mod_load_free(ml);
	}
	mutex_lock(&ftrace_lock);
	if (enable && list_empty(head))
		new->flags &= ~FTRACE_HASH_FL_MOD;
	mutex_unlock(&ftrace_lock);

	ftrace_hash_install(ops, slot, new);
unlock:
	mutex_unlock(lock);
}
#endif /* CONFIG_MODULES */

/**
 * ftrace_mod_cache_apply - apply cached ":mod:" requests to a new module
 * @mod: module whose call sites were just enabled
 *
 * For every trace array, the "func:mod:@mod" requests written while @mod
 * was not loaded are matched against its functions, removed from the cache
 * and installed in the trace array's filter or notrace hash.
 *
 * Context: process context, may sleep; takes trace_types_lock, the ops'
 * regex_lock and ftrace_lock, so the caller must hold none of them.
 */
void ftrace_mod_cache_apply(struct module *mod)
{
#ifdef CONFIG_MODULES
	struct trace_array *tr;

	if (!mod)
		return;
	mutex_lock(&trace_types_lock);
	list_for_each_entry(tr, &ftrace_trace_arrays, list) {
		mod_cache_apply_one(tr, mod->name, 1);
		mod_cache_apply_one(tr, mod->name, 0);
	}
	mutex_unlock(&trace_types_lock);
#endif
}
