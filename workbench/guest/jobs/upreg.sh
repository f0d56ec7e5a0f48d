#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Where enabling many uprobe events spends its time: the function profiler
# (graph time: a function's time includes its callees) on the listed
# functions only, around one write of 1 (or 0, with "disable") to the
# enable file of a group of N (default 1,000) uprobe events on the
# distinct functions of wb-ufuncs, while it sleeps with the file mapped,
# as bench.sh's bulk_uprobes() does.  With "umulti" (distro variants),
# around one BPF uprobe_multi link on the same N offsets attached and
# detached instead (wb-kmulti umulti).
#   qemu.py ours upreg FUNC1:FUNC2:... [N] [enable|disable|umulti]
T=/sys/kernel/tracing
UFUNCS=/usr/bin/wb-ufuncs
UFUNCS_OFFS=/wb/share/wb-ufuncs.offsets
funcs=$1
n=${2:-1000}
what=${3:-enable}

awk -v n="$n" -v p="$UFUNCS" 'NR <= n {
	printf "p:wbupreg/u%d %s:%s\n", NR - 1, p, $2 }' $UFUNCS_OFFS > /tmp/upreg.def
echo "upreg: $(grep -c . /tmp/upreg.def) definitions"
$UFUNCS pause > /tmp/upreg.ready &
upid=$!
i=0
while ! grep -q ready /tmp/upreg.ready 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
grep -q ready /tmp/upreg.ready || { echo "upreg: wb-ufuncs did not start"; exit 1; }
cat /tmp/upreg.def > $T/uprobe_events || exit 1
[ "$what" = disable ] && echo 1 > $T/events/wbupreg/enable
for f in $(echo "$funcs" | tr ':' ' '); do
	echo "$f" >> $T/set_ftrace_filter 2>/dev/null ||
		echo "upreg: $f is not traceable"
done
echo "upreg: hooked: $(cat $T/set_ftrace_filter | tr '\n' ' ')"
echo 1 > $T/function_profile_enabled
if [ "$what" = disable ]; then
	echo 0 > $T/events/wbupreg/enable
elif [ "$what" = umulti ]; then
	wb-kmulti umulti $UFUNCS $UFUNCS_OFFS "$n"
else
	echo 1 > $T/events/wbupreg/enable
fi
echo 0 > $T/function_profile_enabled
for s in $T/trace_stat/function*; do
	echo "upreg: $s"
	cat "$s"
done
echo 0 > $T/events/wbupreg/enable
kill $upid
wait $upid 2>/dev/null
echo > $T/uprobe_events
echo > $T/set_ftrace_filter
exit 0
