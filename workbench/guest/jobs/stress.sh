#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# stress job: for DURATION seconds (wb.args, default 180) run at once, each
# in a loop: kprobe/kretprobe events, fprobe events, uprobe events (with an
# exact hit count each round), set_ftrace_filter/notrace/set_graph_function
# flips, function/function_graph/nop tracer switches, loading and
# unloading a module that registers an ops on a traced function, taking
# CPU 1 offline and back, workloads in kernel and user space, and the
# in-kernel half (module wb_stress: ops and fprobe churn with every flag,
# an ops that must see every call, no callback after unregister; module
# wb_kpchurn: kprobes and kretprobes registered and removed in batches on
# functions called on every CPU, exact hit counts, no handler after
# unregister).  Then checks that nothing is left registered.  One KTAP
# line per check.
D=${1:-180}
T=/sys/kernel/tracing
cd $T || exit 1
st=/tmp/stress
rm -rf $st
mkdir -p $st
end=$(($(date +%s) + D))
echo "WB-PHASE stress"
echo "# stress: $D s, $(nproc) CPUs"

running() { [ "$(date +%s)" -lt $end ]; }

# loop NAME FUNC: run FUNC until the end; count good and bad rounds
loop() {
	name=$1 n=0 bad=0
	while running; do
		if $2 > $st/$name.last 2>&1; then
			n=$((n + 1))
		else
			bad=$((bad + 1))
			sed "s/^/# $name: /" $st/$name.last | head -n 3
		fi
	done
	echo "$n $bad" > $st/$name
}

kprobe_round() {
	echo 'p:wbst/kp vfs_read count=$arg3' >> kprobe_events &&
	echo 'r:wbst/kr vfs_read ret=$retval' >> kprobe_events &&
	echo 1 > events/wbst/enable &&
	cat /proc/version > /dev/null &&
	echo 0 > events/wbst/enable &&
	echo '-:wbst/kp' >> kprobe_events &&
	echo '-:wbst/kr' >> kprobe_events
}

fprobe_round() {
	echo 'f:wbsf/fin vfs_write count=$arg3' >> dynamic_events &&
	echo 'f:wbsf/fout vfs_write%return ret=$retval' >> dynamic_events &&
	echo 1 > events/wbsf/enable &&
	echo x > /dev/null &&
	echo 0 > events/wbsf/enable &&
	echo '-:wbsf/fin' >> dynamic_events &&
	echo '-:wbsf/fout' >> dynamic_events
}

# a copy of its own: the workload runs /usr/bin/wb-demo at the same time
off=$(awk '$1 == "wb_demo_add" { print $2 }' /wb/share/wb-demo.offsets)
cp /usr/bin/wb-demo $st/wb-demo-up
uprobe_round() {
	echo "p:wbsu/add $st/wb-demo-up:$off" >> uprobe_events &&
	echo 1 > events/wbsu/add/enable &&
	$st/wb-demo-up 3 > /dev/null &&
	echo 0 > events/wbsu/add/enable || return 1
	h=$(awk '$2 == "wbsu/add" || $2 == "add" { print $3 }' uprobe_profile)
	echo '-:wbsu/add' >> uprobe_events || return 1
	[ "$h" = 3 ] || { echo "uprobe hits $h, want 3"; echo x >> $st/uprobe.inexact; return 1; }
}

filter_round() {
	echo 'vfs_*' > set_ftrace_filter &&
	echo '*spin_lock*' > set_ftrace_notrace &&
	echo 'ksys_read' > set_graph_function &&
	sleep 0.3 &&
	echo > set_ftrace_filter &&
	echo > set_ftrace_notrace &&
	echo > set_graph_function
}

tracer_round() {
	echo function > current_tracer && sleep 1 &&
	echo function_graph > current_tracer && sleep 1 &&
	echo nop > current_tracer && sleep 0.5
}

module_round() {
	insmod /wb/modules/wb_ops_demo.ko func=vfs_read &&
	cat /proc/version > /dev/null &&
	rmmod wb_ops_demo
}

cpu=/sys/devices/system/cpu/cpu1/online
cpu_round() {
	[ -w $cpu ] || return 0
	echo 0 > $cpu && sleep 1 && echo 1 > $cpu && sleep 1
}

work_round() {
	cat /proc/self/status > /dev/null &&
	ls -R /sys/kernel/tracing/events/sched > /dev/null &&
	/usr/bin/wb-demo 5 > /dev/null
}

# wb_kpchurn runs for D seconds in its init, beside wb_stress; then its
# result, what kprobes/list still shows of it (nothing may be left once
# its init returned), and whether it unloads
kpl=/sys/kernel/debug/kprobes/list
kpchurn() {
	insmod /wb/modules/wb_kpchurn.ko seconds="$D" 2> $st/kpchurn.err
	cat /sys/module/wb_kpchurn/parameters/result > $st/kpchurn.result 2>> $st/kpchurn.err
	grep -c -e wb_kpchurn -e wb_kc_ $kpl > $st/kpchurn.left 2>> $st/kpchurn.err
	grep -e wb_kpchurn -e wb_kc_ $kpl 2> /dev/null | head -n 5 | sed 's/^/# kprobe left: /'
	rmmod wb_kpchurn 2>> $st/kpchurn.err && echo yes > $st/kpchurn.unloaded
}

echo 1 > tracing_on
kpchurn &
loop kprobe kprobe_round &
loop fprobe fprobe_round &
loop uprobe uprobe_round &
loop filter filter_round &
loop tracer tracer_round &
loop module module_round &
loop cpu cpu_round &
loop work work_round &
insmod /wb/modules/wb_stress.ko seconds="$D" 2> $st/insmod.err
rmmod wb_stress 2>> $st/insmod.err
wait
echo nop > current_tracer
[ -w $cpu ] && echo 1 > $cpu
echo 0 > tracing_on
echo > trace

n=0
ktap() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n stress: $2"; else echo "not ok $n stress: $2"; fi; }

summary= bad=0
for l in kprobe fprobe uprobe filter tracer module cpu work; do
	read -r good nbad < $st/$l
	summary="$summary $l $good/$nbad"
	[ "$good" -gt 0 ] && [ "$nbad" = 0 ] || bad=1
done
echo "# rounds (good/bad):$summary"
ktap $bad "every loop ran, no round refused"

[ -e $st/uprobe.inexact ]
ktap $((1 - $?)) "uprobe hit counts exact every round"

line=$(dmesg | grep 'wb_stress: calls' | tail -n 1)
echo "# ${line:-no wb_stress result} $(cat $st/insmod.err)"
# calls C hits H rounds R fprobe_rounds F violations V errors E
set -- $(echo "$line" | sed 's/.*wb_stress: //')
[ -n "$line" ] && [ "$2" = "$4" ] && [ "$2" -gt 0 ]
ktap $? "an ops registered throughout saw every call exactly"
[ -n "$line" ] && [ "$6" -gt 0 ] && [ "$8" -gt 0 ] && [ "${12}" = 0 ]
ktap $? "ops and fprobe churn rounds without errors"
[ -n "$line" ] && [ "${10}" = 0 ]
ktap $? "no callback ran after its unregister returned"

kline=$(cat $st/kpchurn.result 2> /dev/null)
echo "# wb_kpchurn: ${kline:-no result} $(cat $st/kpchurn.err 2> /dev/null)"
# rounds R kprobes P kretprobes Q windows W inexact I missed M violations V errors E churn_missed C
set -- $kline
[ "$1" = rounds ] && [ "$8" -gt 0 ] && [ "${10}" = 0 ] && [ "${12}" = 0 ]
ktap $? "kprobes churned on running functions hit exactly every call"
[ "$1" = rounds ] && [ "$2" -gt 0 ] && [ "$4" -gt 0 ] && [ "$6" -gt 0 ] && [ "${16}" = 0 ]
ktap $? "kprobe and kretprobe churn rounds without errors"
[ "$1" = rounds ] && [ "${14}" = 0 ]
ktap $? "no kprobe handler ran after its unregister returned"
[ "$(cat $st/kpchurn.left 2> /dev/null)" = 0 ] && [ -e $st/kpchurn.unloaded ]
ktap $? "kprobe churn left nothing in kprobes/list and unloaded"

left=$( (cat enabled_functions; grep -h 'wbs' kprobe_events uprobe_events dynamic_events) | wc -l)
[ "$left" = 0 ] || { cat enabled_functions | head -n 5 | sed 's/^/# left: /'; }
[ "$left" = 0 ]
ktap $? "nothing left registered (enabled_functions, events)"
exit 0
