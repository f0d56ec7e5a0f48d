#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Where registering many kprobes spends its time: the function profiler
# (graph time, so a function's time includes its callees) on the listed
# functions only, around one register_kprobes() of N (default 10,000)
# probes chosen as bench.sh's kprobes_bulk() chooses them, or, with
# "define", around one write of N kprobe event definitions to
# kprobe_events (chosen as bench.sh's bulk_kprobes() does), or with
# "enable" or "disable", around the write to their group's enable file;
# with "mid", around one register_kprobes() of N breakpoint probes placed
# as bench.sh's kprobes_bulk_mid() places them; with "unmid", around the
# unregister_kprobes() of those, registered before the profiler starts.
#   qemu.py ours kpreg FUNC1:FUNC2:... [N] [define|enable|disable|mid|unmid]
T=/sys/kernel/tracing
KPB=/sys/kernel/debug/wb_kprobe_bench
funcs=$1
n=${2:-10000}
what=${3:-register}

pick_kprobes() {
	insmod /wb/modules/wb_kprobe_bench.ko || exit 1
	grep -v '[[:space:]]' $T/available_filter_functions |
		grep -E '^[a-z][a-z0-9_]*$' | grep -Ev '^(rcu|lock|preempt|irq)' > /tmp/kp-all
	awk '{ print $2 }' /sys/kernel/debug/kprobes/blacklist > /tmp/kp-out
	sort /tmp/kp-all | uniq -d >> /tmp/kp-out
	awk 'FILENAME == ARGV[1] { out[$1] = 1; next } !($1 in out)' \
		/tmp/kp-out /tmp/kp-all | head -n $((n * 2)) > /tmp/kp-cands
	echo clear > $KPB/ctl
	cat /tmp/kp-cands > $KPB/names
	keep=keep
	[ "$what" = mid ] || [ "$what" = unmid ] && keep=keepmid
	echo "$keep $n" > $KPB/ctl || exit 1
	sleep 2		# as bench.sh: the optimizer's cleanup of what was tried
}

pick_events() {
	i=0
	: > /tmp/kp-defs
	grep -v '[[:space:]]' $T/available_filter_functions |
		grep -E '^[a-z][a-z0-9_]*$' | grep -Ev '^(rcu|lock|preempt|irq)' |
		head -n $((n * 3)) > /tmp/kp-cands
	while read -r f && [ $i -lt "$n" ]; do
		if echo "p:wbbulk/k$i $f" >> $T/kprobe_events 2>/dev/null; then
			echo "p:wbbulk/k$i $f" >> /tmp/kp-defs
			i=$((i + 1))
		fi
	done < /tmp/kp-cands
	echo > $T/kprobe_events
	echo "kpreg: $i definitions"
}

bulk() { [ "$what" = register ] || [ "$what" = mid ] || [ "$what" = unmid ]; }

if ! bulk; then
	pick_events
	[ "$what" = define ] || cat /tmp/kp-defs > $T/kprobe_events
	[ "$what" = disable ] && echo 1 > $T/events/wbbulk/enable
else
	pick_kprobes
	[ "$what" = unmid ] && { echo register > $KPB/ctl || echo "kpreg: register failed"; }
fi
for f in $(echo "$funcs" | tr ':' ' '); do
	echo "$f" >> $T/set_ftrace_filter 2>/dev/null ||
		echo "kpreg: $f is not traceable"
done
echo "kpreg: hooked: $(cat $T/set_ftrace_filter | tr '\n' ' ')"
echo 1 > $T/function_profile_enabled
case $what in
define)		cat /tmp/kp-defs > $T/kprobe_events ;;
enable)		echo 1 > $T/events/wbbulk/enable ;;
disable)	echo 0 > $T/events/wbbulk/enable ;;
unmid)		echo unregister > $KPB/ctl ;;
*)		echo register > $KPB/ctl || echo "kpreg: register failed" ;;
esac
echo 0 > $T/function_profile_enabled
[ "$what" = register ] || [ "$what" = mid ] &&
	echo "kpreg: register_ns $(awk '$1 == "register_ns" { print $2 }' $KPB/result)"
for s in $T/trace_stat/function*; do
	echo "kpreg: $s"
	cat "$s"
done
if ! bulk; then
	echo 0 > $T/events/wbbulk/enable
	echo > $T/kprobe_events
elif [ "$what" != unmid ]; then
	echo unregister > $KPB/ctl
fi
echo > $T/set_ftrace_filter
exit 0
