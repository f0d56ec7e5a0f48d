// SPDX-License-Identifier: GPL-2.0
/*
 * Fprobe and tracepoint probe events: definitions through dynamic_events.
 *
 * A line "f..." or "t..." is split into its head (the kind, N of "fN",
 * the group and event names), its site (FUNCTION[%return] or TRACEPOINT)
 * and its fetch arguments, which the probe library compiles.  The probe
 * is then published: as a new event, or as a sibling of the event of its
 * name when the two agree on the site's kind and the arguments' types.
 * The dyn_event callbacks (tfp_dyn_ops) list, match and remove probes; the
 * initcall registers them and the tracepoint module notifier.
 *
 * Locks: a line is parsed under dyn_event_ops_mutex (the error log is
 * shared); the tracepoint is looked up before event_mutex is taken, and
 * publishing takes event_mutex, rechecking tfp_module_gen.  Removal runs
 * with event_mutex held.  This file calls trace_fprobe_site.c and
 * trace_fprobe.c (trace_fprobe.h).
 */
#define pr_fmt(fmt)	"trace_fprobe: " fmt

#include <kunit/visibility.h>
#include <linux/ctype.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "trace_fprobe.h"

#define TFP_FUNC_GROUP		"fprobes"
#define TFP_TPOINT_GROUP	"tracepoints"
/* Largest N of "fN": the bound 6.12 puts on its return-instance pool. */
#define TFP_MAXACTIVE_LIMIT	4096

/* ---- Publishing: a new event, or a sibling of an existing one ---- */

static struct trace_fprobe *tfp_find_event(const char *group,
					   const char *event)
{
	struct trace_fprobe *tf;
	struct dyn_event *pos;

	for_each_dyn_event(pos) {
		tf = tfp_of_dyn(pos);
		if (tf && trace_probe_match_event(&tf->tp, group, event))
			return tf;
	}
	return NULL;
}

/* The same site with the same argument expressions: a probe given twice. */
static bool tfp_same_probe(struct trace_fprobe *a, struct trace_fprobe *b)
{
	unsigned int i;

	if (strcmp(a->where, b->where) || a->tp.nr_args != b->tp.nr_args)
		return false;
	for (i = 0; i < a->tp.nr_args; i++) {
		if (strcmp(a->tp.args[i].comm, b->tp.args[i].comm))
			return false;
	}
	return true;
}

static bool tfp_duplicate(struct trace_probe *event_tp,
			  struct trace_fprobe *tf)
{
	struct trace_probe *pos;

	list_for_each_entry(pos, trace_probe_probe_list(event_tp), list) {
		if (tfp_same_probe(tfp_from_tp(pos), tf))
			return true;
	}
	return false;
}

/*
 * Add @tf to the event of @old (event_mutex held).  A sibling must probe
 * the same kind of site, with arguments of the same types, and must not
 * repeat a probe the event has; otherwise the word at fault is logged.
 */
static int tfp_join(struct trace_fprobe *tf, struct trace_fprobe *old)
{
	int word = 0, why = -1, ret;	/* why: a TP_ERR_ code, or -1 */

	if (tf->site != old->site) {
		why = TP_ERR_DIFF_PROBE_TYPE;
	} else {
		ret = trace_probe_compare_arg_type(&tf->tp, &old->tp);
		if (ret) {
			word = ret + 1;		/* argument n is word n + 1 */
			why = TP_ERR_DIFF_ARG_TYPE;
		} else if (tfp_duplicate(&old->tp, tf)) {
			why = TP_ERR_SAME_PROBE;
		}
	}
	if (why >= 0) {
		trace_probe_log_set_index(word);
		__trace_probe_log_err(0, why);
		return -EEXIST;
	}

	ret = trace_probe_append(&tf->tp, &old->tp);
	if (ret)
		return ret;
	ret = tfp_hook(tf);
	if (ret) {
		trace_probe_unlink(&tf->tp);
		return ret;
	}
	return dyn_event_add(&tf->devent, trace_probe_event_call(&tf->tp));
}

static int tfp_register_new(struct trace_fprobe *tf)
{
	struct trace_event_call *call = trace_probe_event_call(&tf->tp);
	int ret;

	call->flags = TRACE_EVENT_FL_FPROBE;
	call->event.funcs = &tfp_event_funcs;
	call->class->fields_array = tfp_event_fields;
	call->class->reg = tfp_event_reg;

	ret = trace_probe_register_event_call(&tf->tp);
	if (ret) {
		if (ret == -EEXIST) {
			trace_probe_log_set_index(0);
			trace_probe_log_err(0, EVENT_EXIST);
		}
		return ret;
	}
	ret = tfp_hook(tf);
	if (ret) {
		trace_probe_unregister_event_call(&tf->tp);
		return ret;
	}
	return dyn_event_add(&tf->devent, call);
}

/*
 * Make @tf visible.  -EAGAIN: a module arrived since the tracepoint lookup
 * that found nothing; the caller looks again.
 */
static int tfp_publish(struct trace_fprobe *tf, struct tfp_spec *spec)
{
	struct trace_fprobe *old;

	guard(mutex)(&event_mutex);
	if (tf->site == TFP_TPOINT && !spec->tpoint &&
	    spec->module_gen != tfp_module_gen)
		return -EAGAIN;

	tf->tpoint = spec->tpoint;
	tf->tp_mod = spec->tp_mod;
	old = tfp_find_event(spec->group, spec->event);
	if (old)
		return tfp_join(tf, old);
	return tfp_register_new(tf);
}

/* ---- Parsing a definition ---- */

/*
 * "f", "fN", "t" or "tN", then ":[GRP/][EVENT]" or nothing.  N is parsed
 * as 6.12 parses it (any base kstrtouint() takes, 1..4096); whether it is
 * allowed is checked once the site is known.
 */
static int tfp_parse_head(const char *word, struct tfp_spec *spec)
{
	const char *colon = strchr(word, ':');
	size_t len = colon ? colon - word - 1 : strlen(word) - 1;
	char num[MAX_EVENT_NAME_LEN];

	spec->maxactive = 0;
	if (len) {
		if (!isdigit(word[1]) || len >= sizeof(num)) {
			trace_probe_log_err(1, BAD_MAXACT);
			return -EINVAL;
		}
		memcpy(num, word + 1, len);
		num[len] = '\0';
		if (kstrtouint(num, 0, &spec->maxactive) || !spec->maxactive) {
			trace_probe_log_err(1, BAD_MAXACT);
			return -EINVAL;
		}
		if (spec->maxactive > TFP_MAXACTIVE_LIMIT) {
			trace_probe_log_err(1, MAXACT_TOO_BIG);
			return -EINVAL;
		}
	}

	spec->event = colon ? colon + 1 : NULL;
	return 0;
}

/* Position of a "$retval" that is a whole variable name in @arg, or -1. */
static int tfp_retval_pos(const char *arg)
{
	const char *p = arg;

	while ((p = strstr(p, "$retval"))) {
		char next = p[strlen("$retval")];

		if (!isalnum(next) && next != '_')
			return p - arg;
		p++;
	}
	return -1;
}

/*
 * Word 1: FUNCTION[%return] or TRACEPOINT.  A "$retval" argument makes a
 * function probe an exit probe, and is refused on a tracepoint.
 */
static int tfp_parse_where(int argc, const char **argv, struct tfp_spec *spec)
{
	const char *word = argv[1];
	const char *pct = strchr(word, '%');
	size_t len = pct ? pct - word : strlen(word);
	int i, pos;

	if (pct && (spec->site == TFP_TPOINT || strcmp(pct, "%return"))) {
		trace_probe_log_err(len, BAD_ADDR_SUFFIX);
		return -EINVAL;
	}
	if (pct)
		spec->site = TFP_FUNC_EXIT;

	if (spec->site == TFP_TPOINT) {
		for (i = 0; i < len; i++) {
			if (!isalnum(word[i]) && word[i] != '_') {
				trace_probe_log_err(i, BAD_TP_NAME);
				return -EINVAL;
			}
		}
	}

	for (i = 2; spec->site != TFP_FUNC_EXIT && i < argc; i++) {
		pos = tfp_retval_pos(argv[i]);
		if (pos < 0)
			continue;
		if (spec->site == TFP_TPOINT) {
			trace_probe_log_set_index(i);
			trace_probe_log_err(pos, RETVAL_ON_PROBE);
			return -EINVAL;
		}
		spec->site = TFP_FUNC_EXIT;
	}

	spec->where = kmemdup_nul(word, len, GFP_KERNEL_ACCOUNT);
	return spec->where ? 0 : -ENOMEM;
}

/* GRP/EVENT as given, or the default names. */
static int tfp_parse_names(const char **argv, struct tfp_spec *spec)
{
	int ret;

	trace_probe_log_set_index(0);
	if (spec->event) {
		ret = traceprobe_parse_event_name(&spec->event, &spec->group,
						  spec->group_buf,
						  spec->event - argv[0]);
		if (ret)
			return ret;
	}
	if (spec->event)
		return 0;

	if (spec->site == TFP_TPOINT)
		snprintf(spec->event_buf, sizeof(spec->event_buf), "%s%s",
			 isdigit(spec->where[0]) ? "_" : "", spec->where);
	else
		snprintf(spec->event_buf, sizeof(spec->event_buf), "%s__%s",
			 spec->where,
			 spec->site == TFP_FUNC_EXIT ? "exit" : "entry");
	sanitize_event_name(spec->event_buf);
	spec->event = spec->event_buf;
	return 0;
}

/*
 * The function the arguments are read from, for BTF names: the stub of a
 * tracepoint (its first, hidden, parameter is the tracepoint's data).
 */
static int tfp_resolve_site(struct tfp_spec *spec,
			    struct traceprobe_parse_context *ctx)
{
	struct tfp_tp_query q = { .name = spec->where };

	ctx->funcname = spec->where;
	if (spec->site != TFP_TPOINT)
		return 0;

	spec->module_gen = READ_ONCE(tfp_module_gen);
	tfp_find_tracepoint(&q);
	if (spec->tp_mod)
		module_put(spec->tp_mod);
	spec->tpoint = q.found;
	spec->tp_mod = q.mod;
	if (q.found) {
		ctx->funcname = kallsyms_lookup((unsigned long)q.found->probestub,
						NULL, NULL, NULL,
						spec->stub_name);
		return 0;
	}
	if (IS_ENABLED(CONFIG_MODULES))
		return 0;	/* it may come with a module */
	trace_probe_log_set_index(1);
	trace_probe_log_err(0, NO_TRACEPOINT);
	return -EINVAL;
}

/* Parse the fetch arguments into @tf, each error logged at its word. */
static int tfp_parse_args(struct trace_fprobe *tf, int argc, const char **argv,
			  struct traceprobe_parse_context *ctx)
{
	int i, ret;

	for (i = 0; i < argc; i++) {
		trace_probe_log_set_index(i + 2);
		ctx->offset = 0;
		ret = traceprobe_parse_probe_arg(&tf->tp, i, argv[i], ctx);
		if (ret)
			return ret;
	}

	if (tfp_is_exit(tf) && tf->tp.entry_arg) {
		tf->fp.entry_handler = tfp_on_entry;
		tf->fp.entry_data_size = traceprobe_get_entry_data_size(&tf->tp);
	}
	return traceprobe_set_print_fmt(&tf->tp, tfp_is_exit(tf) ?
					PROBE_PRINT_RETURN : PROBE_PRINT_NORMAL);
}

/* Log why the site could not be hooked, as 6.12 words it. */
static void tfp_log_hook_error(int ret)
{
	trace_probe_log_set_index(1);
	if (ret == -EILSEQ)
		trace_probe_log_err(0, BAD_INSN_BNDRY);
	else if (ret == -ENOENT)
		trace_probe_log_err(0, BAD_PROBE_ADDR);
	else if (ret != -ENOMEM && ret != -EEXIST)
		trace_probe_log_err(0, FAIL_REG_PROBE);
}

/*
 * Build and publish one definition from its (expanded) arguments.  Each
 * attempt parses afresh; the loop only repeats when a module arrived
 * between the tracepoint lookup and the publication.
 */
static int tfp_build(struct tfp_spec *spec, int argc, const char **argv)
{
	struct traceprobe_parse_context ctx;
	struct trace_fprobe *tf;
	const char **expanded;
	char btf_buf[MAX_BTF_ARGS_LEN];
	char *dentry_buf = NULL;
	int nargs, ret;

again:
	ctx = (struct traceprobe_parse_context) {
		.flags = TPARG_FL_KERNEL | TPARG_FL_FPROBE,
	};
	if (spec->site == TFP_FUNC_EXIT)
		ctx.flags |= TPARG_FL_RETURN;
	else
		ctx.flags |= TPARG_FL_FENTRY;
	if (spec->site == TFP_TPOINT)
		ctx.flags |= TPARG_FL_TPOINT;

	tf = NULL;
	expanded = NULL;
	ret = tfp_resolve_site(spec, &ctx);
	if (ret)
		goto out;

	nargs = argc - 2;
	expanded = traceprobe_expand_meta_args(nargs, argv + 2, &nargs,
					       btf_buf, sizeof(btf_buf), &ctx);
	if (IS_ERR(expanded)) {
		ret = PTR_ERR(expanded);
		expanded = NULL;
		goto out;
	}
	if (!expanded)
		nargs = argc - 2;
	if (nargs > MAX_TRACE_ARGS) {
		trace_probe_log_set_index(2 + MAX_TRACE_ARGS);
		trace_probe_log_err(0, TOO_MANY_ARGS);
		ret = -E2BIG;
		goto out;
	}
	ret = traceprobe_expand_dentry_args(nargs, expanded ?: argv + 2,
					    &dentry_buf);
	if (ret)
		goto out;

	tf = tfp_new(spec, nargs);
	if (IS_ERR(tf)) {
		ret = PTR_ERR(tf);
		tf = NULL;
		goto out;
	}
	ret = tfp_parse_args(tf, nargs, expanded ?: argv + 2, &ctx);
	if (ret)
		goto out;

	ret = tfp_publish(tf, spec);
	if (ret && ret != -EAGAIN)
		tfp_log_hook_error(ret);
	if (!ret)
		tf = NULL;	/* published: no longer ours to free */
out:
	if (tf)
		tfp_free(tf);
	traceprobe_finish_parse(&ctx);
	kfree(expanded);
	kfree(dentry_buf);
	dentry_buf = NULL;
	if (ret == -EAGAIN)
		goto again;
	return ret;
}

/*
 * The first word is "f..." or "t..."; anything else belongs to another
 * kind of dynamic event.
 */
static int tfp_create_argv(int argc, const char **argv)
{
	struct tfp_spec *spec;
	int ret;

	if (argc < 2 || (argv[0][0] != 'f' && argv[0][0] != 't'))
		return -ECANCELED;

	spec = kzalloc(sizeof(*spec), GFP_KERNEL_ACCOUNT);
	if (!spec)
		return -ENOMEM;
	if (argv[0][0] == 't') {
		spec->site = TFP_TPOINT;
		spec->group = TFP_TPOINT_GROUP;
	} else {
		spec->site = TFP_FUNC_ENTRY;
		spec->group = TFP_FUNC_GROUP;
	}

	trace_probe_log_init("trace_fprobe", argc, argv);
	ret = tfp_parse_head(argv[0], spec);
	if (ret)
		goto out;

	trace_probe_log_set_index(1);
	ret = tfp_parse_where(argc, argv, spec);
	if (ret)
		goto out;

	if (spec->maxactive && spec->site != TFP_FUNC_EXIT) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(1, BAD_MAXACT_TYPE);
		ret = -EINVAL;
		goto out;
	}

	ret = tfp_parse_names(argv, spec);
	if (!ret)
		ret = tfp_build(spec, argc, argv);
out:
	trace_probe_log_clear();
	if (spec->tp_mod)
		module_put(spec->tp_mod);
	kfree(spec->where);
	kfree(spec);
	return ret;
}

/* ---- dyn_event callbacks ---- */

static int tfp_dyn_create(const char *raw_command)
{
	return trace_probe_create(raw_command, tfp_create_argv);
}

/* "f[N]:GRP/EVENT FUNCTION[%return] NAME=ARG ..." or "t:GRP/EVENT TP ..." */
static int tfp_dyn_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_fprobe *tf = tfp_from_dyn(ev);
	unsigned int i;

	seq_putc(m, tf->site == TFP_TPOINT ? 't' : 'f');
	if (tfp_is_exit(tf) && tf->maxactive)
		seq_printf(m, "%u", tf->maxactive);
	seq_printf(m, ":%s/%s %s%s", trace_probe_group_name(&tf->tp),
		   trace_probe_name(&tf->tp), tf->where,
		   tfp_is_exit(tf) ? "%return" : "");
	for (i = 0; i < tf->tp.nr_args; i++)
		seq_printf(m, " %s=%s", tf->tp.args[i].name,
			   tf->tp.args[i].comm);
	seq_putc(m, '\n');
	return 0;
}

/* Does @word name @tp's function or tracepoint (with its "%return")? */
static bool tfp_word_names_site(struct trace_probe *tp, const char *word)
{
	struct trace_fprobe *tf = container_of(tp, struct trace_fprobe, tp);
	size_t len = strlen(tf->where);

	if (strncmp(word, tf->where, len))
		return false;
	return !word[len] || (tfp_is_exit(tf) && !strcmp(word + len, "%return"));
}

/*
 * Removal: "-:[GRP/]EVENT [SITE [NAME=ARG ...]]".  The words given must
 * match; those left out match anything.
 */
static bool tfp_dyn_match(const char *system, const char *event, int argc,
			  const char **argv, struct dyn_event *ev)
{
	return trace_probe_match_command(&tfp_from_dyn(ev)->tp, system, event,
					 argc, argv, tfp_word_names_site);
}

static bool tfp_dyn_is_busy(struct dyn_event *ev)
{
	return trace_probe_is_enabled(&tfp_from_dyn(ev)->tp);
}

/*
 * Remove one definition.  A sibling goes at any time; the last probe of an
 * event only while no instance, perf or other user has the event.
 * event_mutex held.
 */
static int tfp_dyn_free(struct dyn_event *ev)
{
	struct trace_fprobe *tf = tfp_from_dyn(ev);
	struct trace_probe *tp = &tf->tp;

	lockdep_assert_held(&event_mutex);
	if (!trace_probe_has_sibling(tp)) {
		if (trace_probe_is_enabled(tp) ||
		    trace_event_dyn_busy(trace_probe_event_call(tp)))
			return -EBUSY;
		if (trace_probe_unregister_event_call(tp))
			return -EBUSY;
	}

	tfp_unhook(tf);
	dyn_event_remove(&tf->devent);
	tfp_free(tf);
	return 0;
}

struct dyn_event_operations tfp_dyn_ops = {
	.create		= tfp_dyn_create,
	.show		= tfp_dyn_show,
	.is_busy	= tfp_dyn_is_busy,
	.free		= tfp_dyn_free,
	.match		= tfp_dyn_match,
};

/* trace_fprobe_kunit.c's definitions go through dyn_event_create(). */
EXPORT_SYMBOL_IF_KUNIT(tfp_dyn_ops);

/*
 * Early, so that definitions can be made before tracefs exists (kernel
 * command line, boot-time tracing).
 */
static __init int tfp_init(void)
{
	int ret = dyn_event_register(&tfp_dyn_ops);

	if (ret)
		return ret;
#ifdef CONFIG_MODULES
	ret = register_tracepoint_module_notifier(&tfp_tracepoint_module_nb);
	if (ret)
		pr_warn("no tracepoint probes on module tracepoints: %d\n", ret);
#endif
	return 0;
}
core_initcall(tfp_init);
