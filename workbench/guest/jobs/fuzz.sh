#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fuzz job: wb-fuzz over the tracefs write interfaces (see
# workbench/guest/src/wb-fuzz.c), then the privilege checks, then (x86_64)
# wb-nop5-fuzz over the 5-byte NOP uprobe path (workbench/guest/src/
# wb-nop5-fuzz.c), then a leak scan.  Arguments (wb.args): SEED COUNT
# [NOP5_OPS]; wb-nop5-fuzz runs NOP5_OPS operations (default 100000) with
# the same SEED.
seed=${1:-1}
count=${2:-10000}
nop5_ops=${3:-100000}
cd /sys/kernel/tracing || exit 1
echo "WB-PHASE fuzz"
start=$(date +%s)
wb-fuzz -s "$seed" -n "$count"
rc=$?
echo "# fuzz: $(($(date +%s) - start)) s"
if [ $rc = 0 ]; then
	echo "ok 1 fuzz: $count inputs, seed $seed"
else
	echo "not ok 1 fuzz: $count inputs, seed $seed"
fi
wb-fuzz -p | sed 's/^\(ok\|not ok\) 1 /\1 2 /' || rc=1
# The 5-byte NOP uprobe path: a probe on each site of wb-nop5-fuzz, enabled,
# then the fuzzer as uid 65534; every hit counted exactly, every site valid,
# no file changed (dynevent/usdt_nop5_fuzz.tc is the short form).  Its
# lines are prefixed "fuzz: nop5: " so that the host echoes them.
nop5=/usr/bin/wb-nop5-fuzz
if [ -x $nop5 ]; then
	echo "fuzz: nop5: seed $seed, $nop5_ops operations on 5-byte NOP uprobe sites"
	start=$(date +%s)
	offs=$($nop5 --offsets)
	for s in a b e; do
		off=$(echo "$offs" | awk -v s=$s '$1 == s { print $2 }')
		echo "p:nop5fz/$s $nop5:$off" >> uprobe_events
	done
	echo 1 > events/nop5fz/enable
	{
		$nop5 "$seed" "$nop5_ops" "$PWD/uprobe_profile" nop5fz 2>&1
		echo $? > /tmp/wb-nop5-fuzz.rc
	} | sed 's/^wb-nop5-fuzz: /fuzz: nop5: /'
	nrc=$(cat /tmp/wb-nop5-fuzz.rc 2>/dev/null || echo 1)
	rm -f /tmp/wb-nop5-fuzz.rc
	echo 0 > events/nop5fz/enable
	for s in a b e; do
		echo "-:nop5fz/$s" >> uprobe_events
	done
	echo "# nop5 fuzz: $(($(date +%s) - start)) s"
	if [ "$nrc" = 0 ]; then
		echo "ok 3 nop5 fuzz: $nop5_ops operations, seed $seed"
	else
		echo "not ok 3 nop5 fuzz: $nop5_ops operations, seed $seed"
		rc=1
	fi
fi
# what a run must leave behind: nothing
left=$(cat kprobe_events uprobe_events dynamic_events | wc -l)
[ "$left" = 0 ] || { echo "FUZZ-LEFT $left probe events left"; rc=1; }
. /wb/jobs/leakscan.sh
exit $rc
