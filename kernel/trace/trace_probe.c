// SPDX-License-Identifier: GPL-2.0
/*
 * Probe and event objects of the probe-definition library.
 *
 * A front end embeds a struct trace_probe in its probe object and gives it
 * a trace event with trace_probe_init().  Probes defined with the same
 * group/event name share one event: the later ones drop their own event
 * and join the first one's (trace_probe_append()).  The event lives until
 * its last probe leaves.  Trace instances that enabled the event are kept
 * as a list of links that probe handlers walk under RCU.
 *
 * Everything here runs in process context with event_mutex (and, for the
 * definition commands, dyn_event_ops_mutex) held by the caller, except
 * where a function says otherwise.
 */
#include <linux/list.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "trace_probe_internal.h"

/* Free an event that no probe uses any more. */
static void tprobe_event_free(struct trace_probe_event *tpe)
{
	if (!tpe)
		return;
	kfree(tpe->field_text);
	kfree(tpe->call.print_fmt);
	kfree(tpe->call.name);
	kfree(tpe->class.system);
	kfree(tpe);
}

/*
 * A new event named @group/@event, with room for the uprobe filter when
 * @with_filter.  Not visible anywhere until registered.
 */
static struct trace_probe_event *
tprobe_event_alloc(const char *event, const char *group, bool with_filter)
{
	struct trace_probe_event *tpe;
	size_t size = sizeof(*tpe);

	if (with_filter)
		size += sizeof(tpe->filter[0]);
	tpe = kzalloc(size, GFP_KERNEL_ACCOUNT);
	if (!tpe)
		return NULL;

	INIT_LIST_HEAD(&tpe->files);
	INIT_LIST_HEAD(&tpe->probes);
	INIT_LIST_HEAD(&tpe->class.fields);
	tpe->call.class = &tpe->class;
	tpe->call.name = kstrdup(event, GFP_KERNEL_ACCOUNT);
	tpe->class.system = kstrdup(group, GFP_KERNEL_ACCOUNT);
	if (!tpe->call.name || !tpe->class.system) {
		tprobe_event_free(tpe);
		return NULL;
	}
	return tpe;
}

/**
 * trace_probe_init - give a new probe its own event
 * @tp: the probe, zeroed by the caller
 * @event: event name
 * @group: group (system) name
 * @alloc_filter: reserve a struct trace_uprobe_filter in the event
 * @nargs: number of fetch arguments @tp has room for
 *
 * The event is not registered; see trace_probe_register_event_call().
 * On failure @tp is left without an event, and trace_probe_cleanup()
 * may still be called on it.
 *
 * Return: 0, -EINVAL when a name is missing, or -ENOMEM.
 */
int trace_probe_init(struct trace_probe *tp, const char *event,
		     const char *group, bool alloc_filter, int nargs)
{
	struct trace_probe_event *tpe;

	if (!event || !group)
		return -EINVAL;

	tpe = tprobe_event_alloc(event, group, alloc_filter);
	if (!tpe)
		return -ENOMEM;

	tp->event = tpe;
	INIT_LIST_HEAD(&tp->list);
	list_add(&tp->list, &tpe->probes);
	tp->nr_args = nargs;
	memset(tp->args, 0, sizeof(tp->args[0]) * nargs);
	return 0;
}

/**
 * trace_probe_unlink - take a probe off its event
 * @tp: the probe
 *
 * Frees the event when @tp was its last probe.  The event must already be
 * unregistered in that case.  A probe that trace_probe_detach() took off
 * already leaves the event to the probes on it.  Afterwards @tp has no
 * event.
 */
void trace_probe_unlink(struct trace_probe *tp)
{
	struct trace_probe_event *tpe = tp->event;

	if (!list_empty(&tp->list)) {
		list_del_init(&tp->list);
		if (list_empty(&tpe->probes))
			tprobe_event_free(tpe);
	}
	tp->event = NULL;
}

/**
 * trace_probe_detach - take a probe off its event's list, keeping its event
 * @tp: a probe with siblings, on its way out
 *
 * For a front end that frees a removed probe only after a grace period,
 * while its handlers may still run and read @tp->event: from now on the
 * event's probe list (enabling, listing, the sibling checks) no longer
 * has @tp, but @tp->event stays set.  The front end must keep the event
 * alive, i.e. not let its last probe leave it, until it calls
 * trace_probe_unlink() or trace_probe_cleanup() on @tp, which do not
 * count @tp among the event's probes.
 */
void trace_probe_detach(struct trace_probe *tp)
{
	list_del_init(&tp->list);
}

/**
 * trace_probe_append - make a probe a sibling of another probe's event
 * @tp: a probe that still has its own, unregistered event
 * @to: a probe of the event to join
 *
 * @tp's own event is freed; @tp then shares @to's event, after @to's
 * probes.
 *
 * Return: 0, or -EBUSY when @tp's event has other probes too.
 */
int trace_probe_append(struct trace_probe *tp, struct trace_probe *to)
{
	if (trace_probe_has_sibling(tp))
		return -EBUSY;

	trace_probe_unlink(tp);
	tp->event = to->event;
	list_add_tail(&tp->list, &to->event->probes);
	return 0;
}

/**
 * trace_probe_cleanup - free what the library allocated for a probe
 * @tp: the probe (its memory stays the caller's)
 *
 * Frees the fetch arguments and entry-data program and unlinks @tp from
 * its event (freeing the event with its last probe).  Safe on a probe
 * whose trace_probe_init() failed.
 */
void trace_probe_cleanup(struct trace_probe *tp)
{
	struct probe_entry_arg *entry = tp->entry_arg;
	struct probe_arg *arg;

	for (arg = tp->args; arg < tp->args + tp->nr_args; arg++)
		traceprobe_free_probe_arg(arg);

	tp->entry_arg = NULL;
	if (entry)
		kfree(entry->code);
	kfree(entry);

	if (tp->event)
		trace_probe_unlink(tp);
}

/* Is some trace event (a probe's or not) already called like @tp's? */
static bool tprobe_event_name_used(struct trace_probe *tp)
{
	const char *system = trace_probe_group_name(tp);
	const char *name = trace_probe_name(tp);
	struct trace_event_call *other;

	list_for_each_entry(other, &ftrace_events, list) {
		if (other->class->system && trace_event_name(other) &&
		    !strcmp(trace_event_name(other), name) &&
		    !strcmp(other->class->system, system))
			return true;
	}
	return false;
}

/**
 * trace_probe_register_event_call - make a probe's event visible
 * @tp: the probe; its front end has set up the call's class and event ops
 *
 * First the output side, which hands out the record type id, then the
 * tracefs side (events/GROUP/EVENT/).
 *
 * Context: event_mutex held.
 * Return: 0; -EEXIST when the group/event name is taken; -ENODEV when no
 * event type id is left; or the error of trace_add_event_call().
 */
int trace_probe_register_event_call(struct trace_probe *tp)
{
	struct trace_event *ev = &trace_probe_event_call(tp)->event;
	int err;

	lockdep_assert_held(&event_mutex);
	if (tprobe_event_name_used(tp))
		return -EEXIST;

	if (register_trace_event(ev) == 0)
		return -ENODEV;
	err = trace_add_event_call(trace_probe_event_call(tp));
	if (err)
		unregister_trace_event(ev);
	return err;
}

/**
 * trace_probe_add_file - start recording a probe's event into an instance
 * @tp: a probe of the event
 * @file: the instance's event file
 *
 * Probe handlers see the new link at once; TP_FLAG_TRACE is set.
 *
 * Context: event_mutex held.
 * Return: 0 or -ENOMEM.
 */
int trace_probe_add_file(struct trace_probe *tp, struct trace_event_file *file)
{
	struct event_file_link *link = kmalloc(sizeof(*link), GFP_KERNEL_ACCOUNT);

	if (unlikely(!link))
		return -ENOMEM;

	*link = (struct event_file_link) { .file = file };
	list_add_tail_rcu(&link->list, &tp->event->files);
	trace_probe_set_flag(tp, TP_FLAG_TRACE);
	return 0;
}

/* The link of @file in @tpe's instance list, or NULL */
static struct event_file_link *
tprobe_find_link(struct trace_probe_event *tpe, struct trace_event_file *file)
{
	struct event_file_link *pos;

	list_for_each_entry(pos, &tpe->files, list)
		if (pos->file == file)
			return pos;
	return NULL;
}

/**
 * trace_probe_get_file_link - find the link of an instance
 * @tp: a probe of the event
 * @file: the instance's event file
 *
 * Context: event_mutex held.
 * Return: the link, or NULL when @file does not record this event.
 */
struct event_file_link *trace_probe_get_file_link(struct trace_probe *tp,
						  struct trace_event_file *file)
{
	return tprobe_find_link(tp->event, file);
}

/**
 * trace_probe_remove_file - stop recording a probe's event into an instance
 * @tp: a probe of the event
 * @file: the instance's event file
 *
 * TP_FLAG_TRACE is cleared with the last link.  The link itself is freed
 * only after an RCU grace period, as a handler may still be reading it.
 *
 * Context: event_mutex held; may sleep.
 * Return: 0, or -ENOENT when @file was not linked.
 */
int trace_probe_remove_file(struct trace_probe *tp,
			    struct trace_event_file *file)
{
	struct trace_probe_event *tpe = tp->event;
	struct event_file_link *link = tprobe_find_link(tpe, file);

	if (!link)
		return -ENOENT;

	list_del_rcu(&link->list);
	if (list_empty(&tpe->files))
		trace_probe_clear_flag(tp, TP_FLAG_TRACE);
	kvfree_rcu_mightsleep(link);
	return 0;
}

/**
 * trace_probe_disable_files - take back an enable a layer could not carry out
 * @tp: a probe of the event
 * @subsys: where the error_log entry comes from ("trace_kprobe", ...)
 * @errs: the layer's error_log messages; the first one is logged
 *
 * For a probe layer that defers arming to the end of an event batch and
 * then finds an event that cannot be armed: the event core has already
 * marked it enabled in each instance that asked, so each of those files
 * is disabled through the event core, as if the reg callback had failed,
 * and gets an error_log entry naming the event.  A file in soft mode would
 * stay enabled (the event core keeps it while its soft users remain), so
 * such layers arm soft-mode enables at once and never get here with one.
 *
 * Context: event_mutex held, outside any event batch; may sleep.
 */
void trace_probe_disable_files(struct trace_probe *tp, const char *subsys,
			       const char **errs)
{
	struct event_file_link *link, *next;
	char name[MAX_EVENT_NAME_LEN * 2 + 2];

	snprintf(name, sizeof(name), "%s/%s", trace_probe_group_name(tp),
		 trace_probe_name(tp));
	/* Each disable frees its link: the next one is read first. */
	list_for_each_entry_safe(link, next, &tp->event->files, list) {
		WARN_ON_ONCE(link->file->flags & EVENT_FILE_FL_SOFT_MODE);
		tracing_log_err(link->file->tr, subsys, name, errs, 0, 0);
		trace_event_enable_disable(link->file, 0, 0);
	}
}

static bool tprobe_same_arg(const struct probe_arg *a,
			    const struct probe_arg *b)
{
	return a->type == b->type && a->count == b->count &&
	       !strcmp(a->name, b->name);
}

/**
 * trace_probe_compare_arg_type - can two probes share one event?
 * @a: a probe
 * @b: another probe
 *
 * Sibling probes write the same record layout, so their arguments must
 * agree in number, name, type and array length.
 *
 * Return: 0 when they agree, else the 1-based number of the first
 * argument that differs (one past the shorter list when only the number
 * of arguments differs).
 */
int trace_probe_compare_arg_type(struct trace_probe *a, struct trace_probe *b)
{
	unsigned int n = min(a->nr_args, b->nr_args);
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!tprobe_same_arg(&a->args[i], &b->args[i]))
			return i + 1;
	}
	return a->nr_args == b->nr_args ? 0 : n + 1;
}

/* Does @word read "NAME=EXPR" for @arg's name and expression? */
static bool tprobe_arg_matches(const struct probe_arg *arg, const char *word)
{
	size_t len = strlen(arg->name);

	return !strncmp(word, arg->name, len) && word[len] == '=' &&
	       !strcmp(word + len + 1, arg->comm);
}

/**
 * trace_probe_match_event - is @tp's event the one a command names?
 * @tp: a probe
 * @system: the group named, or NULL for any group
 * @event: the event named, or "" for any event
 *
 * The name part of every front end's removal match ("-:[GRP/]EVENT") and
 * of its lookup of an existing event.
 *
 * Return: true when each part given equals that of @tp's event.
 */
bool trace_probe_match_event(struct trace_probe *tp, const char *system,
			     const char *event)
{
	if (event[0] && strcmp(event, trace_probe_name(tp)))
		return false;
	return !system || !strcmp(system, trace_probe_group_name(tp));
}

/**
 * trace_probe_match_command_args - do the given arguments start @tp's?
 * @tp: a probe
 * @argc: number of words in @argv
 * @argv: argument words, each "NAME=EXPR"
 *
 * Used to find the probe a removal command ("-:EVENT ARGS...") means.
 *
 * Return: true when each word equals the same-position argument of @tp
 * as "name=expression" (@tp may have more arguments).
 */
bool trace_probe_match_command_args(struct trace_probe *tp,
				    int argc, const char **argv)
{
	int i;

	if (argc > (int)tp->nr_args)
		return false;

	for (i = 0; i < argc; i++) {
		if (!tprobe_arg_matches(&tp->args[i], argv[i]))
			return false;
	}
	return true;
}

/**
 * trace_probe_match_command - does a removal command name @tp?
 * @tp: a probe
 * @system: the group named, or NULL for any group
 * @event: the event named, or "" for any event
 * @argc: number of words in @argv
 * @argv: the words after the name: the probed site, then "NAME=EXPR"s
 * @site_matches: the front end's test of the site word against @tp
 *
 * The removal match of every front end ("-:[GRP/]EVENT [SITE [ARGS]]"):
 * the words given must match, those left out match anything.  Only how a
 * site word reads differs between kprobe, fprobe, eprobe and uprobe
 * events, and that is what @site_matches says.
 *
 * Return: true when @tp is a probe the command names.
 */
bool trace_probe_match_command(struct trace_probe *tp, const char *system,
			       const char *event, int argc, const char **argv,
			       bool (*site_matches)(struct trace_probe *tp,
						    const char *word))
{
	if (!trace_probe_match_event(tp, system, event))
		return false;
	if (argc < 1)
		return true;
	if (!site_matches(tp, argv[0]))
		return false;
	return trace_probe_match_command_args(tp, argc - 1, argv + 1);
}

/**
 * trace_probe_create - split a definition into words and run a parser
 * @raw_command: the definition as written to the events file
 * @createfn: the front end's parser, called with the words
 *
 * Words are separated by white space (argv_split() rules).  An empty
 * command does nothing.
 *
 * Return: what @createfn returned, 0 for an empty command, or -ENOMEM.
 */
int trace_probe_create(const char *raw_command,
		       int (*createfn)(int, const char **))
{
	char **argv;
	int argc = 0;
	int ret = 0;

	argv = argv_split(GFP_KERNEL_ACCOUNT, raw_command, &argc);
	if (!argv)
		return -ENOMEM;

	if (argc > 0)
		ret = createfn(argc, (const char **)argv);
	argv_free(argv);
	return ret;
}

/**
 * trace_probe_create_locked - trace_probe_create() outside dyn_event_create()
 * @raw_command: the definition as written to the events file
 * @createfn: the parser, called with the words
 *
 * For a front end's own events file, whose lines need a parser other than
 * the one dynamic_events uses (uprobe_events reports lines that name no
 * uprobe): takes dyn_event_ops_mutex, which serialises the error-log
 * context, as dyn_event_create() does.
 *
 * Context: process context; sleeps.
 * Return: as trace_probe_create().
 */
int trace_probe_create_locked(const char *raw_command,
			      int (*createfn)(int, const char **))
{
	guard(mutex)(&dyn_event_ops_mutex);
	return trace_probe_create(raw_command, createfn);
}
