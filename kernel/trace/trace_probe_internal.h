/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private interface between the files of the probe-definition library
 * (trace_probe*.c).  Front ends (kprobe, fprobe, eprobe and uprobe events)
 * use trace_probe.h only.
 */
#ifndef _TRACE_PROBE_INTERNAL_H
#define _TRACE_PROBE_INTERNAL_H

#include "trace_probe.h"

/*
 * Type table (trace_probe_types.c).  @name need not be NUL-terminated:
 * @len bytes are compared.  Returns NULL when no basic type has that name.
 * Names: u8..u64, s8..s64, x8..x64, char, string, ustring, symstr, symbol.
 */
const struct fetch_type *tprobe_find_type(const char *name, size_t len);

/*
 * Error log (trace_probe_log.c).  Besides writing error_log, the log keeps
 * the last error it reported, so that KUnit tests can check the error code
 * and the caret position (counted in bytes from the start of the command
 * as error_log prints it) without parsing tracefs.
 */
struct tprobe_log_last {
	int err;	/* TP_ERR_* code, or -1 when nothing was reported */
	int pos;	/* caret position in the printed command */
};

void tprobe_log_get_last(struct tprobe_log_last *last);
void tprobe_log_forget_last(void);

/*
 * Serialises dynamic event commands (defined in trace_dynevent.c); the
 * error log state belongs to the command holding it.  (Added by H1.)
 */
extern struct mutex dyn_event_ops_mutex;

#endif /* _TRACE_PROBE_INTERNAL_H */
