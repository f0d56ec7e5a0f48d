// SPDX-License-Identifier: GPL-2.0
/*
 * Error reporting for probe definitions.
 *
 * While a front end parses one definition it registers the definition's
 * words here; an error is then reported as (word index, byte offset in the
 * word, code) and written to tracefs error_log as the whole command with a
 * caret under the offending byte.
 *
 * Locking: the state below belongs to the single definition being parsed;
 * every entry point requires dyn_event_ops_mutex, which serialises all
 * dynamic event commands.
 */
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "trace_probe_internal.h"

/*
 * error_log texts, indexed by TP_ERR_*.  Not "const char * const":
 * tracing_log_err() takes a plain const char **.
 */
static const char *tprobe_err_text[] = {
	[TP_ERR_FILE_NOT_FOUND]		= "Cannot find the file",
	[TP_ERR_NO_REGULAR_FILE]	= "The file is not a regular file",
	[TP_ERR_BAD_REFCNT]		= "Bad reference counter offset",
	[TP_ERR_REFCNT_OPEN_BRACE]	= "Missing ')' after reference counter",
	[TP_ERR_BAD_REFCNT_SUFFIX]	= "Unexpected text after reference counter",
	[TP_ERR_BAD_UPROBE_OFFS]	= "Bad offset in the file",
	[TP_ERR_BAD_MAXACT_TYPE]	= "Maxactive applies to return probes only",
	[TP_ERR_BAD_MAXACT]		= "Bad maxactive value",
	[TP_ERR_MAXACT_TOO_BIG]		= "Maxactive value over the limit",
	[TP_ERR_BAD_PROBE_ADDR]		= "Bad probe address or symbol",
	[TP_ERR_NON_UNIQ_SYMBOL]	= "Symbol name matches more than one function",
	[TP_ERR_BAD_RETPROBE]		= "Return probe must be on a function entry",
	[TP_ERR_NO_TRACEPOINT]		= "No such tracepoint",
	[TP_ERR_BAD_TP_NAME]		= "Bad character in the tracepoint name",
	[TP_ERR_BAD_ADDR_SUFFIX]	= "Unexpected suffix after the probe address",
	[TP_ERR_BAD_PROBE_TYPE]		= "The probe type must be p or r",
	[TP_ERR_NO_PROBE_POINT]		= "The probe point is missing",
	[TP_ERR_BAD_UPROBE_SITE]	= "The probe point must be PATH:OFFSET",
	[TP_ERR_TOO_MANY_ARGS]		= "Too many arguments",
	[TP_ERR_NO_GROUP_NAME]		= "Missing group name",
	[TP_ERR_GROUP_TOO_LONG]		= "Group name over the length limit",
	[TP_ERR_BAD_GROUP_NAME]		= "Group name is not a valid C identifier",
	[TP_ERR_NO_EVENT_NAME]		= "Missing event name",
	[TP_ERR_EVENT_TOO_LONG]		= "Event name over the length limit",
	[TP_ERR_BAD_EVENT_NAME]		= "Event name is not a valid C identifier",
	[TP_ERR_EVENT_EXIST]		= "An event with this group/event name exists",
	[TP_ERR_RETVAL_ON_PROBE]	= "$retval needs a return probe",
	[TP_ERR_NO_RETVAL]		= "The function returns nothing (void)",
	[TP_ERR_BAD_STACK_NUM]		= "Bad stack slot number",
	[TP_ERR_BAD_ARG_NUM]		= "Bad function argument number",
	[TP_ERR_BAD_VAR]		= "Unknown $ variable",
	[TP_ERR_BAD_REG_NAME]		= "Unknown register",
	[TP_ERR_BAD_MEM_ADDR]		= "Bad memory address",
	[TP_ERR_BAD_IMM]		= "Bad immediate value",
	[TP_ERR_IMMSTR_NO_CLOSE]	= "Missing closing '\"' of the string",
	[TP_ERR_FILE_ON_KPROBE]		= "File offsets work with uprobes only",
	[TP_ERR_BAD_FILE_OFFS]		= "Bad file offset",
	[TP_ERR_SYM_ON_UPROBE]		= "Symbols cannot be used with uprobes",
	[TP_ERR_TOO_MANY_OPS]		= "Too many nested dereferences",
	[TP_ERR_DEREF_NEED_BRACE]	= "Dereference needs '(' after the offset",
	[TP_ERR_BAD_DEREF_OFFS]		= "Bad dereference offset",
	[TP_ERR_DEREF_OPEN_BRACE]	= "Missing ')' of the dereference",
	[TP_ERR_COMM_CANT_DEREF]	= "$comm cannot be dereferenced",
	[TP_ERR_BAD_FETCH_ARG]		= "Bad fetch argument",
	[TP_ERR_ARRAY_NO_CLOSE]		= "Missing ']' of the array",
	[TP_ERR_BAD_ARRAY_SUFFIX]	= "Unexpected text after the array",
	[TP_ERR_BAD_ARRAY_NUM]		= "Bad array length",
	[TP_ERR_ARRAY_TOO_BIG]		= "Array length over the limit",
	[TP_ERR_BAD_TYPE]		= "Unknown type",
	[TP_ERR_BAD_STRING]		= "A string must be read from memory",
	[TP_ERR_BAD_SYMSTRING]		= "symstr takes no data or user-data argument",
	[TP_ERR_BAD_BITFIELD]		= "Bad bitfield",
	[TP_ERR_ARG_NAME_TOO_LONG]	= "Argument name over the length limit",
	[TP_ERR_NO_ARG_NAME]		= "Missing argument name",
	[TP_ERR_BAD_ARG_NAME]		= "Argument name is not a valid C identifier",
	[TP_ERR_USED_ARG_NAME]		= "Argument name used twice",
	[TP_ERR_ARG_TOO_LONG]		= "Argument expression over the length limit",
	[TP_ERR_NO_ARG_BODY]		= "Missing argument expression",
	[TP_ERR_BAD_INSN_BNDRY]		= "Address is not at an instruction start",
	[TP_ERR_FAIL_REG_PROBE]		= "Could not register the probe",
	[TP_ERR_DIFF_PROBE_TYPE]	= "Probe kind differs from the other probes",
	[TP_ERR_DIFF_ARG_TYPE]		= "Argument type or name differs from the other probes",
	[TP_ERR_SAME_PROBE]		= "An identical probe already exists",
	[TP_ERR_NO_EVENT_INFO]		= "Attaching needs both the group and the event name",
	[TP_ERR_BAD_ATTACH_EVENT]	= "No such event to attach to",
	[TP_ERR_BAD_ATTACH_ARG]		= "The attached event has no such field",
	[TP_ERR_NO_EP_FILTER]		= "Missing filter after 'if'",
	[TP_ERR_NOSUP_BTFARG]		= "BTF arguments are not available",
	[TP_ERR_NO_BTFARG]		= "No such variable at this probe point",
	[TP_ERR_NO_BTF_ENTRY]		= "No BTF information for this probe point",
	[TP_ERR_BAD_VAR_ARGS]		= "$arg* must stand alone, without a name or type",
	[TP_ERR_NOFENTRY_ARGS]		= "$arg* works on function entry or exit only",
	[TP_ERR_DOUBLE_ARGS]		= "$arg* given more than once",
	[TP_ERR_ARGS_2LONG]		= "$arg* expands to too many arguments",
	[TP_ERR_ARGIDX_2BIG]		= "$argN number over the limit",
	[TP_ERR_NO_PTR_STRCT]		= "Not a pointer to a structure or union",
	[TP_ERR_NOSUP_DAT_ARG]		= "Structure or union passed by value is not supported",
	[TP_ERR_BAD_HYPHEN]		= "Lone '-': did you mean '->'?",
	[TP_ERR_NO_BTF_FIELD]		= "No such field",
	[TP_ERR_BAD_BTF_TID]		= "Could not read the BTF type",
	[TP_ERR_BAD_TYPE4STR]		= "This type cannot be read as a string",
	[TP_ERR_NEED_STRING_TYPE]	= "$comm and string constants need a string type",
	[TP_ERR_EVENT_TOO_BIG]		= "Event record too big (too many fields?)",
};

/* The definition being parsed */
struct tprobe_log_state {
	const char	*subsystem;	/* error_log location, e.g. "trace_kprobe" */
	const char	**argv;		/* its words; not owned */
	int		argc;
	int		index;		/* word the next error refers to */
};

static struct tprobe_log_state tprobe_log;
static struct tprobe_log_last tprobe_last = { .err = -1 };

/**
 * trace_probe_log_init - start reporting errors for a definition
 * @subsystem: name error_log shows as the error's origin
 * @argc: number of words
 * @argv: the words; must stay valid until trace_probe_log_clear()
 *
 * Errors refer to word 0 until trace_probe_log_set_index() says otherwise.
 *
 * Context: dyn_event_ops_mutex held.
 */
void trace_probe_log_init(const char *subsystem, int argc, const char **argv)
{
	lockdep_assert_held(&dyn_event_ops_mutex);
	tprobe_log = (struct tprobe_log_state) {
		.subsystem = subsystem, .argv = argv, .argc = argc,
	};
}

/**
 * trace_probe_log_clear - stop reporting errors for the definition
 *
 * Later reports are dropped until the next trace_probe_log_init().
 *
 * Context: dyn_event_ops_mutex held.
 */
void trace_probe_log_clear(void)
{
	lockdep_assert_held(&dyn_event_ops_mutex);
	tprobe_log = (struct tprobe_log_state) { };
}

/**
 * trace_probe_log_set_index - say which word later errors refer to
 * @index: word index; argc or more means "after the last word"
 *
 * Context: dyn_event_ops_mutex held.
 */
void trace_probe_log_set_index(int index)
{
	lockdep_assert_held(&dyn_event_ops_mutex);
	tprobe_log.index = index;
}

/*
 * Where the caret goes: the words are printed joined by single spaces, so
 * a word starts after the previous words and one space for each.  An
 * error past the last word points one column after the command's end.
 */
static int tprobe_log_caret(int offset)
{
	int i, pos = 0;

	if (tprobe_log.index >= tprobe_log.argc) {
		for (i = 0; i < tprobe_log.argc; i++)
			pos += strlen(tprobe_log.argv[i]) + 1;
		return pos;
	}
	for (i = 0; i < tprobe_log.index; i++)
		pos += strlen(tprobe_log.argv[i]) + 1;
	return pos + offset;
}

/* The words joined by single spaces, in a new buffer. */
static char *tprobe_log_command(void)
{
	size_t size = 0, len;
	char *cmd, *p;
	int i;

	for (i = 0; i < tprobe_log.argc; i++)
		size += strlen(tprobe_log.argv[i]) + 1;
	cmd = kmalloc(size, GFP_KERNEL_ACCOUNT);
	if (!cmd)
		return NULL;

	p = cmd;
	for (i = 0; i < tprobe_log.argc; i++) {
		len = strlen(tprobe_log.argv[i]);
		memcpy(p, tprobe_log.argv[i], len);
		p += len;
		*p++ = ' ';
	}
	p[-1] = '\0';	/* the last word's space becomes the end */
	return cmd;
}

/**
 * __trace_probe_log_err - report an error in the definition being parsed
 * @offset: byte offset of the error in the current word
 * @err: TP_ERR_* code
 *
 * Writes one error_log entry; nothing happens outside a
 * trace_probe_log_init()/trace_probe_log_clear() pair.  The code and caret
 * position are also kept for tprobe_log_get_last().
 *
 * Context: dyn_event_ops_mutex held; may sleep.
 */
void __trace_probe_log_err(int offset, int err)
{
	char *cmd;
	int pos;

	BUILD_BUG_ON(ARRAY_SIZE(tprobe_err_text) != TP_ERR_NR_CODES);
	lockdep_assert_held(&dyn_event_ops_mutex);

	if (!tprobe_log.argv || tprobe_log.argc <= 0)
		return;
	if (WARN_ON_ONCE(err < 0 || err >= TP_ERR_NR_CODES))
		return;

	pos = tprobe_log_caret(offset);
	tprobe_last.err = err;
	tprobe_last.pos = pos;

	cmd = tprobe_log_command();
	if (!cmd)
		return;
	tracing_log_err(NULL, tprobe_log.subsystem, cmd, tprobe_err_text,
			err, pos);
	kfree(cmd);
}

/**
 * tprobe_log_get_last - the last error reported by __trace_probe_log_err()
 * @last: filled with its code and caret position (code -1 when none)
 *
 * Context: dyn_event_ops_mutex held, or no definition being parsed.
 */
void tprobe_log_get_last(struct tprobe_log_last *last)
{
	*last = tprobe_last;
}

/**
 * tprobe_log_forget_last - drop the record of the last error
 *
 * Context: as tprobe_log_get_last().
 */
void tprobe_log_forget_last(void)
{
	tprobe_last.err = -1;
	tprobe_last.pos = 0;
}
