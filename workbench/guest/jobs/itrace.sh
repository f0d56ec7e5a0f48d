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
# With "event KIND" first (kprobe, kretprobe, fprobe, fexit), the probe is
# a probe event on the module's target, defined and enabled while the
# module spins (mode=none).
event=
if [ "$1" = event ]; then
	case $2 in
	kprobe)		event='p:wbtrace/kp wb_fpb_target x=$arg1' ;;
	kretprobe)	event='r:wbtrace/kr wb_fpb_target ret=$retval' ;;
	fprobe)		event='f:wbtrace/fe wb_fpb_target x=$arg1' ;;
	fexit)		event='f:wbtrace/fr wb_fpb_target%return ret=$retval' ;;
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
grep '\[wb_fprobe_bench\]' /proc/kallsyms
wait
dmesg | grep 'wb_fprobe_bench: ' | tail -n 2
exit 0
