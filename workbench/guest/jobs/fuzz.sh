#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fuzz job: wb-fuzz over the tracefs write interfaces (see
# workbench/guest/src/wb-fuzz.c), then the privilege checks, then a leak
# scan.  Arguments (wb.args): SEED COUNT.
seed=${1:-1}
count=${2:-10000}
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
# what a run must leave behind: nothing
left=$(cat kprobe_events uprobe_events dynamic_events | wc -l)
[ "$left" = 0 ] || { echo "FUZZ-LEFT $left probe events left"; rc=1; }
. /wb/jobs/leakscan.sh
exit $rc
