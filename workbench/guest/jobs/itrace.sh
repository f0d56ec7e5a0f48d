#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Companion of workbench/itrace.py: load wb_fprobe_bench with the given
# arguments (one of them spin=SECONDS) so that the host's debugger can
# single-step one call of the probed target; list the module's symbols
# for the host to name the addresses it steps through.  With "kmulti
# [ret]" first, a BPF kprobe_multi link on __x64_sys_getpgid is the probe
# and getpgid() the loop (wb-kmulti spin).
if [ "$1" = kmulti ]; then
	shift
	grep ' __x64_sys_getpgid$' /proc/kallsyms
	wb-kmulti spin 600 "$@" > /dev/console 2>&1 &
	wait
	exit 0
fi
# With "uprobe nop5", a uprobe event (no fetch argument) on the 5-byte NOP
# site of wb-demo, which one thread of "wb-demo nop5" runs in a loop; the
# job prints the site's address and the trampoline's mapping for the host.
if [ "$1" = uprobe ]; then
	T=/sys/kernel/tracing
	off=$(awk '$1 == "wb_demo_nop5_site" { print $2 }' /wb/share/wb-demo.offsets)
	echo "p:wbtrace/nop5 /usr/bin/wb-demo:$off" >> $T/uprobe_events ||
		echo "wb: itrace: uprobe refused"
	echo 1 > $T/events/wbtrace/nop5/enable
	wb-demo nop5 2000000000 1 > /dev/null &
	pid=$!
	sleep 3
	tramp=$(awk '/uprobes-nop5/ { split($1, r, "-"); print r[1] }' /proc/$pid/maps)
	[ -z "$tramp" ] || printf '%016x t nop5_trampoline_page\n' $((0x$tramp))
	site=$(wb-demo where | awk '$1 == "wb_demo_nop5_site" { print $2 }')
	printf 'wb: itrace: user target %016x\n' $((site))
	wait
	exit 0
fi
# With "event KIND" first (kprobe, kretprobe, fprobe, fexit), the probe is
# a probe event on the module's target, defined and enabled while the
# module spins (mode=none).  "event function" and "event function_graph"
# put that tracer on the target instead.
event=
tracer=
if [ "$1" = event ]; then
	case $2 in
	kprobe)		event='p:wbtrace/kp wb_fpb_target x=$arg1' ;;
	kretprobe)	event='r:wbtrace/kr wb_fpb_target ret=$retval' ;;
	fprobe)		event='f:wbtrace/fe wb_fpb_target x=$arg1' ;;
	fexit)		event='f:wbtrace/fr wb_fpb_target%return ret=$retval' ;;
	function|function_graph)	tracer=$2 ;;
	esac
	shift 2
	set -- mode=none "$@"
fi
echo "wb: itrace: insmod wb_fprobe_bench $*"
insmod /wb/modules/wb_fprobe_bench.ko "$@" 2>/dev/null &
sleep 3
if [ -n "$event" ]; then
	T=/sys/kernel/tracing
	echo "$event" >> $T/dynamic_events || echo "wb: itrace: event refused"
	echo 1 > $T/events/wbtrace/enable
	cat $T/dynamic_events
fi
if [ -n "$tracer" ]; then
	T=/sys/kernel/tracing
	echo wb_fpb_target > $T/set_ftrace_filter || echo "wb: itrace: filter refused"
	echo "$tracer" > $T/current_tracer
fi
grep '\[wb_fprobe_bench\]' /proc/kallsyms
wait
dmesg | grep 'wb_fprobe_bench: ' | tail -n 2
exit 0
