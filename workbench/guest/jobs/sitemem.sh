#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Memory of the call-site records: dyn_ftrace_total_info ("sites
# pages:N groups: G") and the Slab/VmallocUsed lines of /proc/meminfo,
# idle, after a module load, with one function traced, with every function
# traced, right after tracing stopped and two seconds later (ours frees idle
# state chunks a second after the last update).  Same job for stock and ours:
#   python3 workbench/qemu.py ours sitemem --echo --timeout 300
T=/sys/kernel/tracing
[ -r $T/dyn_ftrace_total_info ] || mount -t tracefs nodev $T

show() {
	mem=$(grep -E '^(Slab|VmallocUsed):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')
	echo "sitemem: $1: $(cat $T/dyn_ftrace_total_info) | $mem"
}

show idle
# a module that hooks nothing while loaded
insmod /wb/modules/wb_event_bench.ko 2>/dev/null
show "module loaded ($(cut -d' ' -f1 /proc/modules | tr '\n' ' '))"
echo vfs_read > $T/set_ftrace_filter
echo function > $T/current_tracer
show "one function traced"
echo nop > $T/current_tracer
echo > $T/set_ftrace_filter
echo function > $T/current_tracer
show "every function traced"
echo nop > $T/current_tracer
show "tracing stopped"
sleep 2
show "two seconds later"
