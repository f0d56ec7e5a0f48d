// SPDX-License-Identifier: GPL-2.0
/*
 * Kprobe events: parsing a definition.
 *
 * A line from kprobe_events, dynamic_events, the in-kernel API or
 * kprobe_event= is split into its head (the kind, MAXACTIVE, the group
 * and event names, the probe point) and its fetch arguments, which the
 * probe library compiles; the probe is then built and published
 * (trace_kprobe_register.c).  Every line kprobe_events refuses leaves an
 * error_log entry with its caret; a line of another kind that came from
 * dynamic_events is handed on to the next parser.
 *
 * Locks: a line is parsed under dyn_event_ops_mutex (the error log is
 * shared); publishing takes event_mutex.  This file calls
 * trace_kprobe_register.c and trace_kprobe.c.
 */
#include <kunit/visibility.h>
#include <linux/ctype.h>
#include <linux/export.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "trace_kprobe.h"

/* kretprobe instances are walked as a list: keep their number sane */
#define KRETPROBE_MAXACTIVE_MAX	4096

/* What the first two words of a definition say */
struct tk_head {
	bool		is_return;
	unsigned int	maxactive;
	const char	*event;		/* after "p:", or NULL */
	const char	*group;
	char		*symbol;	/* "[MOD:]SYM", kmalloc'ed, or NULL */
	long		offset;
	void		*addr;		/* when there is no symbol */
	unsigned int	flags;		/* TPARG_FL_* for the arguments */
};

/* Is @word a kprobe kind: "p", "r" or "rN", alone or before ':'? */
static bool tk_word_is_kind(const char *word)
{
	const char *p = word + 1;

	if (word[0] != 'p' && word[0] != 'r')
		return false;
	/* digits after the letter are checked by tk_parse_maxactive() */
	if (isdigit(*p))
		return true;
	return *p == '\0' || *p == ':';
}

/* "rN[:...]": N instances at most (argv[0] is the current log word). */
static int tk_parse_maxactive(const char *word, struct tk_head *h)
{
	char num[MAX_EVENT_NAME_LEN];
	size_t len = strcspn(word + 1, ":");

	if (!len)
		return 0;
	if (!h->is_return) {
		trace_probe_log_err(1, BAD_MAXACT_TYPE);
		return -EINVAL;
	}
	if (len >= sizeof(num)) {
		trace_probe_log_err(1, BAD_MAXACT);
		return -EINVAL;
	}
	memcpy(num, word + 1, len);
	num[len] = '\0';
	if (kstrtouint(num, 0, &h->maxactive) || !h->maxactive) {
		trace_probe_log_err(1, BAD_MAXACT);
		return -EINVAL;
	}
	if (h->maxactive > KRETPROBE_MAXACTIVE_MAX) {
		trace_probe_log_err(1, MAXACT_TOO_BIG);
		return -EINVAL;
	}
	return 0;
}

/*
 * "[MOD:]SYM[+OFFS][%return]" (log word 1).  Sets the argument flags:
 * RETURN for a return probe, FENTRY for an entry probe on a function's
 * first instruction.
 */
static int tk_parse_symbol(const char *word, struct tk_head *h)
{
	char *suffix;
	int ret;

	h->symbol = kstrdup(word, GFP_KERNEL_ACCOUNT);
	if (!h->symbol)
		return -ENOMEM;

	suffix = strchr(h->symbol, '%');
	if (suffix) {
		if (strcmp(suffix, "%return")) {
			trace_probe_log_err(suffix - h->symbol, BAD_ADDR_SUFFIX);
			return -EINVAL;
		}
		*suffix = '\0';
		h->is_return = true;
	}

	ret = traceprobe_split_symbol_offset(h->symbol, &h->offset);
	if (ret || h->offset < 0 || h->offset > UINT_MAX) {
		trace_probe_log_err(0, BAD_PROBE_ADDR);
		return -EINVAL;
	}
	switch (tk_check_symbol(h->symbol)) {
	case 0:
		break;
	case -EADDRNOTAVAIL:
		trace_probe_log_err(0, NON_UNIQ_SYMBOL);
		return -EINVAL;
	default:
		trace_probe_log_err(0, BAD_PROBE_ADDR);
		return -EINVAL;
	}

	/* -ENOENT (module not loaded): decided when the probe registers */
	ret = kprobe_on_func_entry(NULL, h->symbol, h->offset);
	if (h->is_return) {
		if (ret == -EINVAL) {
			trace_probe_log_err(0, BAD_RETPROBE);
			return -EINVAL;
		}
		h->flags |= TPARG_FL_RETURN;
	} else if (!ret) {
		h->flags |= TPARG_FL_FENTRY;
	}
	return 0;
}

/* A site that only a uprobe can have: "PATH:OFFSET" */
static bool tk_site_is_uprobe(const char *word)
{
	return strchr(word, '/') && strchr(word, ':');
}

static void tk_default_name(char *buf, const struct tk_head *h)
{
	if (h->symbol)
		snprintf(buf, MAX_EVENT_NAME_LEN, "%c_%s_%ld",
			 h->is_return ? 'r' : 'p', h->symbol, h->offset);
	else
		snprintf(buf, MAX_EVENT_NAME_LEN, "%c_0x%p",
			 h->is_return ? 'r' : 'p', h->addr);
	sanitize_event_name(buf);
}

/*
 * The fetch arguments of @tk: meta arguments ($arg*, %pd) expanded, each
 * compiled by the library.  Log words start at 2.
 */
static int tk_parse_args(struct trace_kprobe *tk, int argc, const char **argv,
			 struct traceprobe_parse_context *ctx)
{
	int i, ret;

	for (i = 0; i < argc; i++) {
		trace_probe_log_set_index(i + 2);
		ctx->offset = 0;
		ret = traceprobe_parse_probe_arg(&tk->tp, i, argv[i], ctx);
		if (ret)
			return ret;
	}
	if (tk->is_return && tk->tp.entry_arg) {
		tk->rp.entry_handler = tk_return_entry;
		tk->rp.data_size = traceprobe_get_entry_data_size(&tk->tp);
	}
	return traceprobe_set_print_fmt(&tk->tp, tk->is_return ?
					PROBE_PRINT_RETURN :
					PROBE_PRINT_NORMAL);
}

/* Log the error of a probe the kprobes core refused (log word 1). */
static void tk_log_register_error(int ret)
{
	trace_probe_log_set_index(1);
	switch (ret) {
	case -ENOMEM:
	case -EEXIST:		/* logged where the clash was found */
		break;
	case -ENOENT:		/* the symbol went, or never came */
		trace_probe_log_err(0, BAD_PROBE_ADDR);
		break;
	case -EILSEQ:		/* the kprobes core's instruction decoder */
		trace_probe_log_err(0, BAD_INSN_BNDRY);
		break;
	default:
		trace_probe_log_err(0, FAIL_REG_PROBE);
	}
}

/* Build the probe that @argv defines from its parsed head, and publish it. */
static int tk_build(int argc, const char **argv, struct tk_head *h,
		    struct traceprobe_parse_context *ctx)
{
	char abuf[MAX_BTF_ARGS_LEN], nbuf[MAX_EVENT_NAME_LEN];
	const char **args = argv + 2, **expanded;
	struct trace_kprobe *tk;
	int nargs = argc - 2;
	char *dbuf = NULL;
	int ret;

	if (!h->event) {
		tk_default_name(nbuf, h);
		h->event = nbuf;
	}

	ctx->flags = TPARG_FL_KERNEL | h->flags;
	ctx->funcname = h->symbol;
	expanded = traceprobe_expand_meta_args(nargs, args, &nargs, abuf,
					       sizeof(abuf), ctx);
	if (IS_ERR(expanded))
		return PTR_ERR(expanded);
	if (expanded)
		args = expanded;
	if (nargs > MAX_TRACE_ARGS) {
		trace_probe_log_set_index(argc - 2 > MAX_TRACE_ARGS ?
					  2 + MAX_TRACE_ARGS : 2);
		trace_probe_log_err(0, TOO_MANY_ARGS);
		ret = -E2BIG;
		goto out;
	}
	ret = traceprobe_expand_dentry_args(nargs, args, &dbuf);
	if (ret)
		goto out;

	tk = tk_alloc(h->group, h->event, h->addr, h->symbol, h->offset,
		      h->maxactive, nargs, h->is_return);
	if (IS_ERR(tk)) {
		ret = PTR_ERR(tk);
		goto out;
	}
	ret = tk_parse_args(tk, nargs, args, ctx);
	if (ret >= 0) {
		ret = tk_publish(tk);
		if (ret)
			tk_log_register_error(ret);
	}
	if (ret)
		tk_free(tk);
out:
	kfree(dbuf);
	kfree(expanded);
	return ret < 0 ? ret : 0;
}

/*
 * A line that names no kprobe.  From dynamic_events it may be another
 * probe type's: -ECANCELED lets the next parser have it.  kprobe_events
 * (@final) takes nothing else, so there it is bad input, logged.
 */
static int tk_not_a_kprobe(int argc, const char **argv, bool final)
{
	if (!final)
		return -ECANCELED;
	trace_probe_log_init("trace_kprobe", argc, argv);
	if (!tk_word_is_kind(argv[0])) {
		trace_probe_log_err(0, BAD_PROBE_TYPE);
	} else if (argc < 2) {
		trace_probe_log_err(strlen(argv[0]), NO_PROBE_POINT);
	} else {
		trace_probe_log_set_index(1);
		trace_probe_log_err(0, BAD_PROBE_ADDR);
	}
	trace_probe_log_clear();
	return -EINVAL;
}

/* @final: the line came from kprobe_events (see tk_not_a_kprobe()). */
static int tk_create_argv(int argc, const char **argv, bool final)
{
	struct traceprobe_parse_context ctx = { };
	struct tk_head h = { .group = KPROBE_EVENT_SYSTEM };
	char gbuf[MAX_EVENT_NAME_LEN];
	unsigned long addr;
	int ret;

	if (!tk_word_is_kind(argv[0]) || argc < 2)
		return tk_not_a_kprobe(argc, argv, final);
	if (kstrtoul(argv[1], 0, &addr) && tk_site_is_uprobe(argv[1]))
		return tk_not_a_kprobe(argc, argv, final);

	trace_probe_log_init("trace_kprobe", argc, argv);
	h.is_return = argv[0][0] == 'r';
	h.event = strchr(argv[0], ':');
	if (h.event)
		h.event++;

	ret = tk_parse_maxactive(argv[0], &h);
	if (ret)
		goto out;

	if (!kstrtoul(argv[1], 0, &addr)) {
		h.addr = (void *)addr;
	} else {
		trace_probe_log_set_index(1);
		ret = tk_parse_symbol(argv[1], &h);
		if (ret)
			goto out;
	}

	trace_probe_log_set_index(0);
	if (h.event) {
		ret = traceprobe_parse_event_name(&h.event, &h.group, gbuf,
						  h.event - argv[0]);
		if (ret)
			goto out;
	}
	ret = tk_build(argc, argv, &h, &ctx);
out:
	traceprobe_finish_parse(&ctx);
	trace_probe_log_clear();
	kfree(h.symbol);
	return ret;
}

static int tk_dyn_create_argv(int argc, const char **argv)
{
	return tk_create_argv(argc, argv, false);
}

static int tk_events_create_argv(int argc, const char **argv)
{
	return tk_create_argv(argc, argv, true);
}

/* dynamic_events: called with dyn_event_ops_mutex held */
int tk_dyn_create(const char *raw_command)
{
	return trace_probe_create(raw_command, tk_dyn_create_argv);
}

/**
 * tk_events_run - run one line of kprobe_events
 * @cmd: a definition, or a removal ("-:[GRP/]EVENT [SITE [ARGS]]")
 *
 * Also runs the lines of the in-kernel API, of kprobe_event= and of the
 * boot-time selftest.
 *
 * Context: process context; takes dyn_event_ops_mutex and event_mutex.
 * Return: 0, or the errno the write to kprobe_events would fail with.
 */
int tk_events_run(const char *cmd)
{
	if (cmd[0] == '-')
		return dyn_event_release(cmd, &trace_kprobe_ops);
	return trace_probe_create_locked(cmd, tk_events_create_argv);
}
EXPORT_SYMBOL_IF_KUNIT(tk_events_run);
