#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The stack doing its job, in three parts: an ftrace_ops with a filter
# (module wb_ops_demo), an fprobe entry/exit pair on a kernel function, and a
# uprobe event on a function of a guest binary.  Each part prints what it saw.
T=/sys/kernel/tracing
fail=0
step() { echo; echo "== $*"; }
check() { if "$@"; then :; else echo "FAILED: $*"; fail=1; fi; }

step "1. ftrace_ops with a filter: count calls to vfs_read"
check insmod /wb/modules/wb_ops_demo.ko func=vfs_read
for i in 1 2 3 4 5; do dd if=/proc/version of=/dev/null bs=64 2>/dev/null; done
hits=$(cat /sys/module/wb_ops_demo/parameters/hits)
echo "hits while loaded: $hits"
check rmmod wb_ops_demo
dmesg | grep 'wb_ops_demo:' | tail -n 2
[ "${hits:-0}" -gt 0 ] || { echo "FAILED: no hits"; fail=1; }

echo > $T/trace
echo 0 > $T/events/enable

step "2. fprobe entry/exit on vfs_read (dynamic_events)"
check sh -c "echo 'f:wbdemo/read_in vfs_read count=\$arg3:u64' >> $T/dynamic_events"
check sh -c "echo 'f:wbdemo/read_out vfs_read%return ret=\$retval:s64' >> $T/dynamic_events"
grep wbdemo $T/dynamic_events
echo 1 > $T/events/wbdemo/read_in/enable
echo 1 > $T/events/wbdemo/read_out/enable
dd if=/proc/version of=/dev/null bs=64 count=1 2>/dev/null
echo 0 > $T/events/wbdemo/enable

step "3. uprobe event on wb_demo_add in /usr/bin/wb-demo"
off=$(awk '$1 == "wb_demo_add" { print $2 }' /wb/share/wb-demo.offsets)
echo "wb_demo_add is at file offset $off"
# its two arguments: the first two argument registers of the machine
case $(uname -m) in
aarch64|arm64)	arg1=%x0 arg2=%x1 ;;
*)		arg1=%di arg2=%si ;;
esac
check sh -c "echo 'p:wbdemo/add /usr/bin/wb-demo:$off a=$arg1:s64 b=$arg2:s64' >> $T/uprobe_events"
check sh -c "echo 'r:wbdemo/add_ret /usr/bin/wb-demo:$off sum=\$retval:s64' >> $T/uprobe_events"
cat $T/uprobe_events
echo 1 > $T/events/wbdemo/add/enable
echo 1 > $T/events/wbdemo/add_ret/enable
/usr/bin/wb-demo 3
echo 0 > $T/events/wbdemo/enable
cat $T/uprobe_profile

step "trace"
grep -v '^#' $T/trace | grep -E 'read_in|read_out' | head -n 4
grep -v '^#' $T/trace | grep -E 'add' | grep wb-demo
n_in=$(grep -c 'read_in:' $T/trace)
n_add=$(grep -c ' add: ' $T/trace)
n_ret=$(grep -c ' add_ret: ' $T/trace)
echo "fprobe entries: $n_in, uprobe hits: $n_add, uprobe returns: $n_ret"
[ "$n_in" -gt 0 ] || { echo "FAILED: no fprobe entry events"; fail=1; }
[ "$n_add" = 3 ] || { echo "FAILED: expected 3 uprobe hits"; fail=1; }
[ "$n_ret" = 3 ] || { echo "FAILED: expected 3 uprobe returns"; fail=1; }

echo > $T/uprobe_events
echo '-:wbdemo/read_in' >> $T/dynamic_events
echo '-:wbdemo/read_out' >> $T/dynamic_events
echo
[ $fail = 0 ] && echo "demo: all three parts worked" || echo "demo: FAILED"
exit $fail
