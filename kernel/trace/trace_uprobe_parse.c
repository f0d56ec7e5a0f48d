// SPDX-License-Identifier: GPL-2.0
/*
 * Uprobe events: parsing a definition.
 *
 *	p[:[GRP/][EVENT]] PATH:OFFSET[%return][(REF_CTR_OFFSET)] [FETCHARGS]
 *	r[:[GRP/][EVENT]] PATH:OFFSET[(REF_CTR_OFFSET)] [FETCHARGS]
 *
 * The probed place (file, offset, reference counter, kind), the default
 * event name, the fetch arguments (compiled by the probe library), and the
 * error_log entries with their carets for what is refused.
 *
 * Locks: parsing runs under dyn_event_ops_mutex (dyn_event_create() or
 * trace_probe_create_locked() takes it), which the error log needs; the
 * finished probe is handed to trace_uprobe_register(), which takes
 * event_mutex.
 */
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "trace_uprobe.h"

/* Drop what a parsed (or partly parsed) site still owns. */
void uprobe_site_release(struct uprobe_site *site)
{
	path_put(&site->path);
	kfree(site->filename);
}

/* Move the site's file into @tu. */
void trace_uprobe_take_site(struct trace_uprobe *tu, struct uprobe_site *site)
{
	tu->filename = site->filename;
	tu->path = site->path;
	tu->offset = site->offset;
	tu->ref_ctr_offset = site->ref_ctr_offset;
	site->filename = NULL;
	site->path = (struct path) { };
}

/* Look @name up; -EINVAL, and no reference, unless a regular file. */
int uprobe_resolve_path(const char *name, struct path *path)
{
	int ret;

	ret = kern_path(name, LOOKUP_FOLLOW, path);
	if (ret)
		return ret;
	if (!d_is_reg(path->dentry)) {
		path_put(path);
		*path = (struct path) { };
		return -EINVAL;
	}
	return 0;
}

static int uprobe_site_lookup(struct uprobe_site *site)
{
	int ret = uprobe_resolve_path(site->filename, &site->path);

	if (ret == -EINVAL)
		trace_probe_log_err(0, NO_REGULAR_FILE);
	else if (ret)
		trace_probe_log_err(0, FILE_NOT_FOUND);
	return ret;
}

/* Split off and parse "(REF_CTR_OFFSET)", which must end the token. */
static int uprobe_site_ref_ctr(struct uprobe_site *site, char *addr)
{
	char *open = strchr(addr, '(');
	char *close;
	int ret;

	if (!open)
		return 0;

	close = strchr(open, ')');
	if (!close) {
		trace_probe_log_err(open + strlen(open) - site->filename,
				    REFCNT_OPEN_BRACE);
		return -EINVAL;
	}
	if (close[1] != '\0') {
		trace_probe_log_err(close + 1 - site->filename,
				    BAD_REFCNT_SUFFIX);
		return -EINVAL;
	}

	*open++ = '\0';
	*close = '\0';
	site->ref_ctr_caret = open - site->filename;
	ret = kstrtoul(open, 0, &site->ref_ctr_offset);
	if (ret)
		trace_probe_log_err(site->ref_ctr_caret, BAD_REFCNT);
	return ret;
}

/* Split off "%return", the only suffix an offset may have. */
static int uprobe_site_suffix(struct uprobe_site *site, char *addr)
{
	char *pct = strchr(addr, '%');

	if (!pct)
		return 0;
	if (strcmp(pct, "%return")) {
		trace_probe_log_err(pct - site->filename, BAD_ADDR_SUFFIX);
		return -EINVAL;
	}
	*pct = '\0';
	site->is_return = true;
	return 0;
}

static int uprobe_site_offset(struct uprobe_site *site, char *addr)
{
	struct inode *inode = d_real_inode(site->path.dentry);
	int ret;

	site->offset_caret = addr - site->filename;
	ret = kstrtoul(addr, 0, &site->offset);
	if (!ret && site->offset >= i_size_read(inode))
		ret = -EINVAL;	/* no instruction there */
	if (ret)
		trace_probe_log_err(site->offset_caret, BAD_UPROBE_OFFS);
	return ret;
}

/* Parse the PATH:OFFSET token; the caller checked its shape. */
static int uprobe_site_parse(const char *token, struct uprobe_site *site)
{
	char *addr;
	int ret;

	site->filename = kstrdup(token, GFP_KERNEL_ACCOUNT);
	if (!site->filename)
		return -ENOMEM;

	trace_probe_log_set_index(1);
	/* PATH may hold ':' itself: OFFSET follows the last one. */
	addr = strrchr(site->filename, ':');
	*addr++ = '\0';
	site->ref_ctr_caret = addr - site->filename;

	ret = uprobe_site_lookup(site);
	if (!ret)
		ret = uprobe_site_ref_ctr(site, addr);
	if (!ret)
		ret = uprobe_site_suffix(site, addr);
	if (!ret)
		ret = uprobe_site_offset(site, addr);
	return ret;
}

/* Does @token look like PATH:OFFSET, i.e. is the definition ours? */
static bool uprobe_token_is_site(const char *token)
{
	const char *colon = strrchr(token, ':');

	return strchr(token, '/') && colon && isdigit(colon[1]);
}

/* "p_<first word of the file name>_0x<offset>", as users expect. */
static void uprobe_default_name(char *buf, size_t size,
				const struct uprobe_site *site)
{
	const char *base = kbasename(site->filename);
	int len = strcspn(base, ".-_");

	snprintf(buf, size, "p_%.*s_0x%lx", len, base, site->offset);
}

static int trace_uprobe_parse_args(struct trace_uprobe *tu, int argc,
				   const char **argv)
{
	unsigned int flags = TPARG_FL_USER;
	int i, ret;

	if (tu_is_return(tu))
		flags |= TPARG_FL_RETURN;

	for (i = 0; i < argc; i++) {
		struct traceprobe_parse_context ctx = { .flags = flags };

		trace_probe_log_set_index(i + 2);
		ret = traceprobe_parse_probe_arg(&tu->tp, i, argv[i], &ctx);
		traceprobe_finish_parse(&ctx);
		if (ret)
			return ret;
	}
	/* Staged arguments must fit the scratch area with room to spare. */
	if (tu->tp.size >= UPROBE_SCRATCH_SIZE) {
		trace_probe_log_set_index(2);
		trace_probe_log_err(0, EVENT_TOO_BIG);
		return -E2BIG;
	}
	tu->fetch_direct = trace_uprobe_args_direct(tu);
	bitmap_zero(tu->dyn_args, MAX_TRACE_ARGS);
	for (i = 0; i < tu->tp.nr_args; i++) {
		if (tu->tp.args[i].dynamic)
			__set_bit(i, tu->dyn_args);
	}
	tu->has_strings = !bitmap_empty(tu->dyn_args, MAX_TRACE_ARGS);
	tu->bare = !tu_is_return(tu) && !tu->tp.nr_args;
	return 0;
}

/* The print format kind of @tu (entry or return). */
enum probe_print_type trace_uprobe_print_type(struct trace_uprobe *tu)
{
	return tu_is_return(tu) ? PROBE_PRINT_RETURN : PROBE_PRINT_NORMAL;
}

/* Build the probe that @argv defines at @site and publish it. */
static int trace_uprobe_build(int argc, const char **argv,
			      struct uprobe_site *site)
{
	const char *group = UPROBE_DEFAULT_GROUP, *event = NULL;
	char gbuf[MAX_EVENT_NAME_LEN], nbuf[MAX_EVENT_NAME_LEN];
	struct trace_uprobe *tu;
	int ret;

	trace_probe_log_set_index(0);
	if (argv[0][1] == ':') {
		event = &argv[0][2];
		ret = traceprobe_parse_event_name(&event, &group, gbuf, 2);
		if (ret)
			return ret;
	}
	if (!event) {
		uprobe_default_name(nbuf, sizeof(nbuf), site);
		event = nbuf;
	}

	tu = trace_uprobe_alloc(group, event, argc - 2, site->is_return);
	if (IS_ERR(tu))
		return PTR_ERR(tu);
	trace_uprobe_take_site(tu, site);

	ret = trace_uprobe_parse_args(tu, argc - 2, argv + 2);
	if (!ret)
		ret = traceprobe_set_print_fmt(&tu->tp,
					       trace_uprobe_print_type(tu));
	if (ret >= 0)
		ret = trace_uprobe_register(tu, site->ref_ctr_caret);
	if (ret)
		trace_uprobe_free(tu);
	return ret < 0 ? ret : 0;
}

/*
 * A line that names no uprobe.  From dynamic_events it may be another
 * probe type's: -ECANCELED lets the next parser have it.  uprobe_events
 * (@final) takes nothing else, so there the line is bad input and
 * error_log says why (6.12 refuses it without an entry).
 */
static int uprobe_not_a_uprobe(int argc, const char **argv, bool final,
			       bool kind_ok)
{
	const char *colon;

	if (!final)
		return -ECANCELED;
	trace_probe_log_init("trace_uprobe", argc, argv);
	if (!kind_ok) {
		trace_probe_log_err(0, BAD_PROBE_TYPE);
	} else if (argc < 2) {
		trace_probe_log_err(strlen(argv[0]), NO_PROBE_POINT);
	} else {
		trace_probe_log_set_index(1);
		colon = strrchr(argv[1], ':');
		if (strchr(argv[1], '/') && colon)
			trace_probe_log_err(colon + 1 - argv[1], BAD_UPROBE_OFFS);
		else
			trace_probe_log_err(0, BAD_UPROBE_SITE);
	}
	trace_probe_log_clear();
	return -EINVAL;
}

/*
 * p[:[GRP/][EVENT]] PATH:OFFSET[%return][(REF_CTR_OFFSET)] [FETCHARGS]
 * r[:[GRP/][EVENT]] PATH:OFFSET[(REF_CTR_OFFSET)] [FETCHARGS]
 *
 * @final: the line came from uprobe_events, where it can be nothing else
 * (see uprobe_not_a_uprobe()).
 */
static int trace_uprobe_create_argv(int argc, const char **argv, bool final)
{
	struct uprobe_site site = { };
	const char *kind = argv[0];
	bool kind_ok;
	int ret;

	kind_ok = (kind[0] == 'p' || kind[0] == 'r') &&
		  (kind[1] == '\0' || kind[1] == ':');
	if (!kind_ok || argc < 2 || !uprobe_token_is_site(argv[1]))
		return uprobe_not_a_uprobe(argc, argv, final, kind_ok);

	trace_probe_log_init("trace_uprobe", argc, argv);
	if (argc - 2 > MAX_TRACE_ARGS) {
		trace_probe_log_set_index(2 + MAX_TRACE_ARGS);
		trace_probe_log_err(0, TOO_MANY_ARGS);
		trace_probe_log_clear();
		return -E2BIG;
	}
	site.is_return = kind[0] == 'r';
	ret = uprobe_site_parse(argv[1], &site);
	if (!ret)
		ret = trace_uprobe_build(argc, argv, &site);
	uprobe_site_release(&site);
	trace_probe_log_clear();
	return ret;
}

static int uprobe_dyn_create_argv(int argc, const char **argv)
{
	return trace_uprobe_create_argv(argc, argv, false);
}

/* The parser of lines written to uprobe_events. */
int uprobe_events_create_argv(int argc, const char **argv)
{
	return trace_uprobe_create_argv(argc, argv, true);
}

/* dyn_event_operations::create: a line written to dynamic_events. */
int uprobe_dyn_create(const char *raw_command)
{
	return trace_probe_create(raw_command, uprobe_dyn_create_argv);
}
