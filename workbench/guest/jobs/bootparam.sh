#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2016,SC2012
# The kprobe_event= boot parameter, checked after a boot whose command
# line carried (test.sh passes it, with kunit.enable=0 so that no KUnit
# suite runs beside the enabled events):
#   kprobe_event=p:wbboot/entry,vfs_read,count=$arg3;
#                r:wbboot/exit,vfs_read,ret=$retval;
#                p:wbboot/bad,wb_no_such_function
# The first two must be defined and enabled in the top buffer before
# user space starts and record real reads; the third, a symbol that does
# not exist, must be refused without taking the others with it.  Then
# the boot-time events must be as removable as any other.  One KTAP line
# per check, after a "WB-PHASE bootparam" line.
T=/sys/kernel/tracing
n=0
rc=0
. /wb/jobs/ktap.sh

echo "WB-PHASE bootparam"
grep -o 'kprobe_event=[^ ]*' /proc/cmdline

grep -q '^p:wbboot/entry vfs_read count=\$arg3$' $T/kprobe_events
ktap $? "kprobe_event= defined the entry probe with its argument"
grep -Eq '^r[0-9]*:wbboot/exit vfs_read ret=\$retval$' $T/kprobe_events
ktap $? "kprobe_event= defined the return probe"
! grep -q 'wbboot/bad' $T/kprobe_events && [ ! -e $T/events/wbboot/bad ]
ktap $? "kprobe_event= refused an unknown symbol and kept the others"
ls $T/events/wbboot/ | tr '\n' ' ' | sed 's/^/# events\/wbboot: /'; echo
ls $T/events/wbboot/entry/ | tr '\n' ' ' | sed 's/^/# entry: /'; echo
ls $T/events/wbboot/exit/ | tr '\n' ' ' | sed 's/^/# exit: /'; echo
[ "$(cat $T/events/wbboot/entry/enable)" = 1 ] &&
	[ "$(cat $T/events/wbboot/exit/enable)" = 1 ]
ktap $? "kprobe_event= enabled its events in the top buffer"

# 100 reads of one byte each: each must show up on both probes.  The
# records of other reads are in the buffer too, so count only the
# one-byte ones.  With BTF (the distro config) $retval is typed as
# vfs_read()'s ssize_t and prints in decimal, on 6.12 too.  The buffer
# is read with the events off: a reader of "trace" with a kprobe and a
# kretprobe on vfs_read() enabled made no progress on either kernel.
echo > $T/trace
dd if=/dev/zero of=/dev/null bs=1 count=100 2> /dev/null
hits=$(awk '$1 == "entry" { print $2 }' $T/kprobe_profile)
echo 0 > $T/events/wbboot/enable
cat $T/trace > /tmp/bootparam.trace
ne=$(grep -c 'entry: (vfs_read+0x[0-9a-f]*/0x[0-9a-f]*) count=0x1$' /tmp/bootparam.trace)
nx=$(grep -Ec 'exit: \(.*<- vfs_read\) ret=(0x)?1$' /tmp/bootparam.trace)
echo "# one-byte reads recorded: entry $ne, exit $nx; entry hits $hits"
if [ "$ne" -lt 100 ] || [ "$nx" -lt 100 ]; then
	echo "# records: $(grep -c 'entry:' /tmp/bootparam.trace) entry, $(grep -c 'exit:' /tmp/bootparam.trace) exit; the first of each:"
	grep -m 2 'entry:' /tmp/bootparam.trace | sed 's/^/# /'
	grep -m 2 'exit:' /tmp/bootparam.trace | sed 's/^/# /'
	grep -v '^#' /tmp/bootparam.trace | head -n 4 | sed 's/^/# /'
fi
[ "$ne" -ge 100 ]
ktap $? "the boot-time entry probe records reads with their count"
[ "$nx" -ge 100 ]
ktap $? "the boot-time return probe records reads with their return value"
[ -n "$hits" ] && [ "$hits" -ge 100 ]
ktap $? "kprobe_profile counts the boot-time probe's hits"

[ "$(cat $T/events/wbboot/entry/enable)" = 0 ] &&
	echo > $T/kprobe_events &&
	[ ! -e $T/events/wbboot ] && [ ! -s $T/kprobe_events ]
ktap $? "the boot-time events disable and go away"
echo > $T/trace
dd if=/dev/zero of=/dev/null bs=1 count=10 2> /dev/null
! grep -q 'entry:\|exit:' $T/trace
ktap $? "nothing is recorded after the events are gone"

# and a definition at run time still works after them
echo 'p:wbboot/again vfs_read' >> $T/kprobe_events &&
	echo 1 > $T/events/wbboot/again/enable &&
	dd if=/dev/zero of=/dev/null bs=1 count=10 2> /dev/null &&
	echo 0 > $T/events/wbboot/again/enable &&
	[ "$(grep -c 'again: (vfs_read' $T/trace)" -ge 10 ] &&
	echo '-:wbboot/again' >> $T/kprobe_events
ktap $? "a run-time kprobe event works after the boot-time ones"
exit $rc
