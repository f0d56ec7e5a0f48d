#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# trinity job (x86_64): Debian's trinity system call fuzzer as an ordinary
# user (uid/gid 65534, no supplementary groups) for DURATION seconds
# (wb.args: DURATION SEED, defaults 240 and 1) while two uprobes are
# enabled on /usr/bin/wb-demo and hit all the time: one on the 5-byte NOP
# site wb_demo_nop5_site (optimized into a jump to a trampoline on ours)
# and one on the endbr64 that starts wb_demo_endbr_entry (emulated on
# ours, single-stepped on stock).  Two loops run wb-demo rounds: one as
# root, one as uid 65534, the fuzzer's own uid, so that the fuzzer's
# children may reach those processes (signals, ptrace, process_vm_*,
# pidfds) like any same-user process could.
#
# The first half of the time trinity runs only its "vm" group (mmap,
# mremap, munmap, mprotect, madvise, mlock, msync...: the calls that change
# the address spaces the nop5 path keeps state for) with SEED, the second
# half every system call it knows with SEED + 1.  No system call is
# excluded: as an ordinary user it cannot reach reboot, kexec, module
# loading, tracefs or debugfs (root-only 0700), and it needs no
# --dangerous.  Its socket fd provider is off (--disable-fds=sockets):
# Debian's 1.9+git20230109 segfaults while it builds its socket cache, on
# the host as well (a read through a bad entry of its own net_protocols
# table), so it would never start; socket() and the other socket calls
# are still fuzzed, on the descriptors the other providers make.  Trinity 1.9 does
# not know system calls 335 (uretprobe) and 336 (ours, uprobe): those are
# tried by wb-nop5-attack and wb-nop5-fuzz.  Its scratch files live on a
# 64 MB tmpfs of its own, so that filling it cannot starve the guest of
# memory, and the job shell is the OOM killer's last choice.
#
# Then: the fuzzer's processes are killed (every process of uid 65534,
# SIGKILL, from a process of that uid), the probes disabled and removed,
# and the checks, one KTAP line each: the rounds ran and every call in
# them saw its registers and results intact, the hit counts moved (and are
# exact when no round was cut short by a signal), on ours the site was
# the jump, nothing of uid 65534 left, nothing left in uprobe_events.
D=${1:-240}
seed=${2:-1}
T=/sys/kernel/tracing
PROG=/usr/bin/wb-demo
OFFS=/wb/share/wb-demo.offsets
TRINITY=/usr/bin/trinity
NOBODY="/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups"
# state of the loops: root's only, out of the fuzzer's reach
st=/run/wbtrinity
# trinity's working folder (its test files, socket cache)
scr=/tmp/trinity
# calls of each probed function per wb-demo round
N=2000
cd $T || exit 1
echo "WB-PHASE trinity"
echo -1000 > /proc/$$/oom_score_adj

n=0
rc=0
. /wb/jobs/ktap.sh
hits() { # EVENT: its count in uprobe_profile
	awk -v e="$1" '$2 == e || $2 == "wbtr/" e { print $3 }' uprobe_profile
}

site=$(awk '$1 == "wb_demo_nop5_site" { print $2 }' $OFFS)
endbr=$(awk '$1 == "wb_demo_endbr_entry" { print $2 }' $OFFS)
if [ ! -x $TRINITY ] || [ -z "$site" ] || [ -z "$endbr" ]; then
	echo "not ok 1 trinity, wb-demo and its offsets in the image # SKIP x86_64 only"
	exit 0
fi
# ours has the uprobe system call; there the site must become the jump
optimizes=0
grep -q ' __x64_sys_uprobe$' /proc/kallsyms && optimizes=1
echo "trinity: $D s as uid 65534, seeds $seed (vm group) and $((seed + 1)) (all), $(nproc) CPUs, $(uname -r)"

rm -rf $st
mkdir -m 0700 $st
echo 0 > events/enable
echo "p:wbtr/nop5 $PROG:$site" >> uprobe_events &&
	echo "p:wbtr/endbr $PROG:$endbr" >> uprobe_events &&
	echo 1 > events/wbtr/enable
ktap $? "nop5 and emulated-entry uprobes on wb-demo enabled"

# loop NAME [RUNAS...]: wb-demo rounds until $st/stop exists.  Per round
# one process calls the nop5 site N times, another the endbr64 entry N
# times.  A round is bad if a call saw its registers or red zone changed
# (exit 1), the entry's sum is wrong, or wb-demo died of a signal a broken
# trampoline or emulation would raise (SIGILL, SIGTRAP, SIGSEGV, SIGBUS);
# another signal (the fuzzer's doing, from uid 65534) only marks the
# round as cut short.  Writes "rounds bad cut calls site" to $st/NAME.
loop() {
	name=$1
	shift
	cd /
	echo 0 > /proc/self/oom_score_adj
	r=0 bad=0 cut=0 calls=0 sitebyte=
	want="wb-demo: $N calls of wb_demo_endbr_entry, sum $((3 * N * (N + 1) / 2))"
	while [ ! -e $st/stop ]; do
		out=$("$@" $PROG nop5 $N 1 2>&1)
		s1=$?
		out2=$("$@" $PROG loop-endbr $N 2>&1)
		s2=$?
		r=$((r + 1))
		for s in $s1 $s2; do
			case $s in
			0) ;;
			132|133|135|139) bad=$((bad + 1)) ;;	# ILL TRAP BUS SEGV
			1|2) bad=$((bad + 1)) ;;
			*) cut=$((cut + 1)) ;;
			esac
		done
		if [ $s1 = 0 ] && [ $s2 = 0 ]; then
			calls=$((calls + 2 * N))
			sitebyte=$(echo "$out" | sed -n 's/^wb-demo: site \([0-9a-f]*\),.*/\1/p')
			[ "$out2" = "$want" ] || { bad=$((bad + 1)); echo "# $name: $out2"; }
		else
			echo "# $name: round $r: exit $s1 $s2: $out $out2" | head -c 300
			echo
		fi
		sleep 1
	done
	echo "$r $bad $cut $calls ${sitebyte:-none}" > $st/$name
}

# One line a minute, so that a long run shows that it is alive.
beat() {
	t=0
	while [ ! -e $st/stop ]; do
		sleep 10
		t=$((t + 10))
		[ $((t % 60)) = 0 ] &&
			echo "trinity: ${t} s: hits nop5 $(hits nop5), endbr $(hits endbr)"
	done
}

loop root &
lroot=$!
loop nobody $NOBODY &
lnobody=$!
beat &
lbeat=$!

# trinity GROUP SEED SECONDS: one run as uid 65534 in the scratch folder,
# stopped by SIGINT after SECONDS (it then tells its children to exit and
# prints its totals), SIGKILL 30 s later if it is still there.
run_trinity() {
	g=$1 s=$2 secs=$3
	out=$st/trinity-$g.out
	set -- -q -l off -C 2 -s "$s" --disable-fds=sockets
	[ "$g" = all ] || set -- "$@" -g "$g"
	echo "trinity: group $g, seed $s, $secs s: trinity $*"
	(
		cd $scr || exit 1
		echo 0 > /proc/self/oom_score_adj
		HOME=$scr exec timeout -s INT -k 30 "$secs" $NOBODY $TRINITY "$@"
	) > $out 2>&1 < /dev/null
	trc=$?
	echo "trinity: group $g: exit $trc; $(grep 'Ran [0-9]* syscalls' $out | tail -n 1 | sed 's/^\[main\] //')"
	grep -iE 'taint|bailing|error|exiting' $out | grep -v 'tracing_on' | tail -n 5 | sed 's/^/# /'
	grep -q 'Ran [0-9]* syscalls' $out || tail -n 15 $out | sed 's/^/# trinity: /'
}

mkdir -p $scr
mount -t tmpfs -o size=64m,mode=0755,uid=65534,gid=65534 wbtrinity $scr
half=$((D / 2))
run_trinity vm "$seed" $half
run_trinity all $((seed + 1)) $((D - half))

# Every process of the fuzzer's uid, whatever session or group it made:
# kill(-1, SIGKILL) as that uid reaches all of them (and nothing of root's).
# (zombies aside: their parent or init reaps them).
left_nobody() {
	cat /proc/[0-9]*/status 2>/dev/null | awk '
		/^Name:/ { z = 0 }
		/^State:/ { z = ($2 == "Z") }
		/^Uid:/ && $2 == 65534 && !z { n++ }
		END { print n + 0 }'
}
touch $st/stop
# each loop writes its file as it ends (a zombie would still pass kill -0)
i=0
while [ $i -lt 120 ] && ! { [ -f $st/root ] && [ -f $st/nobody ]; }; do
	sleep 1
	i=$((i + 1))
done
i=0
while [ $i -lt 30 ] && [ "$(left_nobody)" != 0 ]; do
	$NOBODY /bin/sh -c 'kill -9 -1' 2>/dev/null
	sleep 1
	i=$((i + 1))
done
wait $lbeat
ln=$(left_nobody)
[ -f $st/root ] && wait $lroot
[ -f $st/nobody ] && wait $lnobody

totals=
for f in $st/trinity-vm.out $st/trinity-all.out; do
	t=$(grep 'Ran [0-9]* syscalls' $f | tail -n 1 | sed 's/.*Ran \([0-9]*\) syscalls.*/\1/')
	totals="$totals ${t:-0}"
done
set -- $totals
echo "trinity: $1 system calls (vm group), $2 (all); $(dmesg | grep -c 'trinity.*segfault') segfaults of its processes in dmesg"
[ "$1" -gt 0 ] && [ "$2" -gt 0 ]
ktap $? "trinity ran as uid 65534, vm group and all system calls"

hn=$(hits nop5)
he=$(hits endbr)
echo 0 > events/wbtr/enable
echo '-:wbtr/nop5' >> uprobe_events
echo '-:wbtr/endbr' >> uprobe_events

r1=0 b1=1 c1=0 k1=0 x1=none r2=0 b2=1 c2=0 k2=0 x2=none
[ -f $st/root ] && read -r r1 b1 c1 k1 x1 < $st/root
[ -f $st/nobody ] && read -r r2 b2 c2 k2 x2 < $st/nobody
echo "trinity: wb-demo rounds (rounds/bad/cut short): root $r1/$b1/$c1, uid 65534 $r2/$b2/$c2; hits nop5 $hn, endbr $he; calls $((k1 + k2)) in whole rounds"
[ "$r1" -gt 0 ] && [ "$b1" = 0 ] && [ "$c1" = 0 ] && [ "$r2" -gt 0 ] && [ "$b2" = 0 ]
ktap $? "wb-demo rounds as root and uid 65534: every call saw its registers and result intact"

[ "${hn:-0}" -gt 0 ] && [ "${he:-0}" -gt 0 ]
ktap $? "both probes were hit during the run"
# Whole rounds only: each call of a probed function hits once.  A round
# cut short by a signal hit an unknown number of times: no exact check.
if [ "$c2" = 0 ]; then
	[ "$((${hn:-0} + ${he:-0}))" = "$((k1 + k2))" ] && [ "$hn" = "$he" ]
	ktap $? "hit counts exact for the calls of whole rounds"
else
	echo "ok $((n + 1)) hit counts exact for the calls of whole rounds # SKIP $c2 rounds cut short by a signal"
	n=$((n + 1))
fi
if [ $optimizes = 1 ]; then
	echo "trinity: site byte after the last round: root $x1, uid 65534 $x2"
	[ "$x1" = e9 ] && { [ "$x2" = e9 ] || [ "$x2" = none ]; }
	ktap $? "the nop5 site was the jump to the trampoline"
fi

[ "$ln" = 0 ]
ktap $? "no process of uid 65534 left"
umount $scr 2>/dev/null || umount -l $scr

left=$(cat uprobe_events | wc -l)
[ "$left" = 0 ] || sed 's/^/# left: /' uprobe_events
[ "$left" = 0 ] && [ ! -d events/wbtr ]
ktap $? "nothing left in uprobe_events"
. /wb/jobs/leakscan.sh
exit $rc
