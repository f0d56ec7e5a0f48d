#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Where a slow kernel operation spends its time: the function_graph tracer
# restricted to a list of functions, so only those are hooked, then a
# command, then the trace (durations of each listed call, nested).
#   fgprof.sh FUNC1:FUNC2:... COMMAND [ARGS...]
# Example (a kprobe_multi attach):
#   qemu.py ours-distro fgprof bpf_kprobe_multi_link_attach:ftrace_lookup_symbols wb-kmulti all
cd /sys/kernel/tracing || exit 1
funcs=$1
shift
echo 0 > tracing_on
echo > trace
echo 64 > buffer_size_kb
for f in $(echo "$funcs" | tr ':' ' '); do
	echo "$f" >> set_ftrace_filter 2>/dev/null ||
		echo "fgprof: $f is not traceable"
done
echo "fgprof: hooked: $(cat set_ftrace_filter | tr '\n' ' ')"
echo funcgraph-abstime > trace_options 2>/dev/null
echo function_graph > current_tracer
echo 1 > tracing_on
"$@"
echo 0 > tracing_on
grep -v '^#' trace | grep -v '^ *$'
echo nop > current_tracer
echo > set_ftrace_filter
exit 0
