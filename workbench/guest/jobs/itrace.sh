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
echo "wb: itrace: insmod wb_fprobe_bench $*"
insmod /wb/modules/wb_fprobe_bench.ko "$@" 2>/dev/null &
sleep 3
grep '\[wb_fprobe_bench\]' /proc/kallsyms
wait
dmesg | grep 'wb_fprobe_bench: ' | tail -n 2
exit 0
