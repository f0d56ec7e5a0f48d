#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Micro-benchmarks of the tracing stack, printed as
#   BENCH <name> <value> <unit>
# for the host to put side by side (workbench/bench.sh).  Under QEMU's
# -icount shift=0 guest time counts guest instructions, so the figures
# repeat run after run; without it they are wall-clock under TCG.
T=/sys/kernel/tracing
NCALLS=${NCALLS:-100000}
# "bench.sh GROUP" runs one group of rows only: ftrace-ops, filter, fprobe,
# uprobe, events, kprobes, bulk, ubulk or kmulti (for quick experiments: qemu.py KIND bench uprobe --icount).
# Group kprobes (issue 27) also runs the kprobe rows of fprobe, events and
# bulk: kretprobe-one, event-hit/kprobe, event-hit/kretprobe,
# kprobe-api-hit and kprobe-events-*-1000.
# The groups arrive as separate words (the kernel command line carries
# them comma-separated and init splits them).
ONLY=$(echo "$*" | tr ' ' ',')
# ONLY: one group, or several separated by commas ("filter,fprobe")
want() {
	[ -z "$ONLY" ] && return 0
	case ",$ONLY," in *",$1,"*) return 0 ;; esac
	return 1
}

# upstream's ftrace-ops sample: it times NCALLS calls of a traced function
# with the given ops registered, prints the result and refuses to load.
ops() { # name params...
	name=$1
	shift
	dmesg -c > /dev/null
	modprobe ftrace-ops nr_function_calls=$NCALLS "$@" 2>/dev/null
	line=$(dmesg | grep 'Attempted .* calls to' | tail -n 1)
	per=$(echo "$line" | sed -n 's/.*(\([0-9]*\)ns \/ call).*/\1/p')
	tot=$(echo "$line" | sed -n 's/.* in \([0-9]*\)ns (.*/\1/p')
	if [ -z "$tot" ]; then
		echo "BENCH-ERROR ftrace-ops $name: $(dmesg | tail -n 3)"
		return
	fi
	printf 'BENCH ftrace-ops/%s %d.%02d ns/call\n' "$name" \
		$((tot / NCALLS)) $(( (tot % NCALLS) * 100 / NCALLS ))
}

# nanoseconds of the guest clock
now() { /wb/bin/date +%s%N; }	# busybox's date has no %N

timed() { # name command...
	name=$1
	shift
	t0=$(now)
	"$@"
	t1=$(now)
	echo "BENCH $name $(( (t1 - t0) / 1000 )) us"
}

want ftrace-ops && ops relevant-0-irrelevant-0 nr_ops_relevant=0 nr_ops_irrelevant=0
want ftrace-ops && ops relevant-1-irrelevant-0 nr_ops_relevant=1 nr_ops_irrelevant=0
want ftrace-ops && ops relevant-1-irrelevant-100 nr_ops_relevant=1 nr_ops_irrelevant=100
want ftrace-ops && ops relevant-2-irrelevant-0 nr_ops_relevant=2 nr_ops_irrelevant=0
want ftrace-ops && ops relevant-2-irrelevant-100 nr_ops_relevant=2 nr_ops_irrelevant=100
want ftrace-ops && ops relevant-10-irrelevant-0 nr_ops_relevant=10 nr_ops_irrelevant=0
want ftrace-ops && ops relevant-10-irrelevant-100 nr_ops_relevant=10 nr_ops_irrelevant=100
want ftrace-ops && ops save-regs nr_ops_relevant=1 save_regs=1
want ftrace-ops && ops recursion nr_ops_relevant=1 assist_recursion=1
want ftrace-ops && ops rcu nr_ops_relevant=1 assist_rcu=1

set_filter() { echo "$1" > $T/set_ftrace_filter; }
want filter && timed filter-set-all set_filter '*'
want filter && timed filter-set-one set_filter schedule
want filter && timed filter-reset set_filter ''
want filter && timed function-tracer-on-all sh -c "echo function > $T/current_tracer"
want filter && timed function-tracer-off sh -c "echo nop > $T/current_tracer"
# The function graph tracer on every function, then off again (its
# removal waits out the return callbacks).
want filter && timed graph-tracer-on-all sh -c "echo function_graph > $T/current_tracer"
want filter && timed graph-tracer-off sh -c "echo nop > $T/current_tracer"
# The same switches timed around the write alone (wb-ufuncs timewrite):
# the rows above also count a shell's fork, exec and exit, which run
# traced while a tracer is on.
write_row() { # name text
	us=$(/usr/bin/wb-ufuncs timewrite $T/current_tracer "$2") &&
		echo "BENCH $1 $us us" || echo "BENCH-ERROR $1: no figure"
}
want filter && write_row function-tracer-on-write function
want filter && write_row function-tracer-off-write nop
want filter && write_row graph-tracer-on-write function_graph
want filter && write_row graph-tracer-off-write nop

# Registering and unregistering one ops on every function, timed inside the
# kernel by a module (no tracer set-up, no shell in the figure).
reg_all() {
	insmod /wb/modules/wb_ftrace_reg.ko rounds=1 2>/dev/null
	line=$(dmesg | grep 'wb_ftrace_reg: register' | tail -n 1)
	set -- $line
	while [ $# -gt 0 ] && [ "$1" != register ]; do shift; done
	if [ $# -lt 4 ]; then
		echo "BENCH-ERROR ops-register-all: no figure from wb_ftrace_reg"
		return
	fi
	echo "BENCH ops-register-all $(($2 / 1000)) us"
	echo "BENCH ops-unregister-all $(($4 / 1000)) us"
}
want filter && reg_all

# fprobe (and, for comparison, kretprobe) on one module function: the cost
# of a hit over an unprobed call, in ns; and an fprobe on every function:
# the hit cost on the same function and the time to attach and detach.
fprobe_row() { # name module-args...
	name=$1
	shift
	insmod /wb/modules/wb_fprobe_bench.ko "$@" 2>/dev/null
	line=$(dmesg | grep 'wb_fprobe_bench: ' | tail -n 1)
	set -- $line
	while [ $# -gt 0 ] && [ "$1" != hit ]; do shift; done
	if [ $# -lt 6 ]; then
		echo "BENCH-ERROR fprobe-$name: no figure from wb_fprobe_bench"
		return
	fi
	echo "BENCH $name-hit $(awk -v ps="$2" 'BEGIN { printf "%.2f", ps / 1000 }') ns"
	case $name in
	*-all)
		echo "BENCH $name-register $(($4 / 1000)) us"
		echo "BENCH $name-unregister $(($6 / 1000)) us"
		;;
	esac
}
want fprobe && fprobe_row fprobe-entry-one mode=entry
want fprobe && fprobe_row fprobe-exit-one mode=exit
{ want fprobe || want kprobes; } && fprobe_row kretprobe-one mode=kretprobe
want fprobe && fprobe_row fprobe-entry-all mode=entry all=1 calls=20000
want fprobe && fprobe_row fprobe-exit-all mode=exit all=1 calls=20000

# A tracer on one module function: the cost of a traced call over an
# untraced one, in ns (wb_fprobe_bench's "base" with and without the
# tracer).  The filter names the function before the module is loaded
# (":mod:"), beside a system call nobody makes, so that it is never empty.
# The figure includes the tracer's record in the ring buffer.
# busybox's insmod loads again after the module's -EAGAIN, untraced by
# then (the ":mod:" request was used up): take the first figure.
fpb_base() {
	dmesg -c >/dev/null
	insmod /wb/modules/wb_fprobe_bench.ko mode=none calls=20000 2>/dev/null
	set -- $(dmesg | grep 'wb_fprobe_bench: none' | head -n 1)
	while [ $# -gt 0 ] && [ "$1" != base ]; do shift; done
	echo "${2:-}"
}
tracer_hit_row() { # name tracer
	b0=$(fpb_base)
	echo '*sys_ni_syscall' > $T/set_ftrace_filter
	echo 'wb_fpb_target:mod:wb_fprobe_bench' >> $T/set_ftrace_filter
	echo "$2" > $T/current_tracer
	b1=$(fpb_base)
	echo nop > $T/current_tracer
	echo > $T/set_ftrace_filter
	if [ -z "$b0" ] || [ -z "$b1" ]; then
		echo "BENCH-ERROR $1: no figure from wb_fprobe_bench"
		return
	fi
	echo "BENCH $1 $(awk -v a="$b0" -v b="$b1" 'BEGIN { printf "%.2f", (b - a) / 1000 }') ns"
}
want tracers && tracer_hit_row function-tracer-hit function
want tracers && tracer_hit_row graph-tracer-hit function_graph

# The cost of one uprobe event hit with 0, 4 and 16 fetch arguments:
# "wb-demo loop N" calls wb_demo_loop(i, 2 * i, &wb_demo_rec_a) N times; the
# time of the same run with no probe is subtracted and the rest divided by N.
# The arguments mix registers, stack slots, dereferences, a bitfield and
# two strings, as a user would.
UPROBE_CALLS=${UPROBE_CALLS:-20000}
WB_DEMO=/usr/bin/wb-demo
LOOP_OFF=$(awk '$1 == "wb_demo_loop" { print $2 }' /wb/share/wb-demo.offsets)
case $(uname -m) in
aarch64)	# AAPCS64: arguments in x0-x7, the return address in x30
	ARGS4='a=%x0:s64 b=%x1:u64 id=+0(%x2):s32 ra=%x30'
	ARGS16="$ARGS4"' c=%x3 r8=%x4 r9=%x5 ax=%x6 bx=%x19 sp=$stack s1=$stack1:u32 port=+4(%x2):u16 bits=+8(%x2):b8@8/32 big=+32(%x2):s64 name=+0(+16(%x2)):string comm=$comm'
	;;
*)
	ARGS4='a=%di:s64 b=%si:u64 id=+0(%dx):s32 ra=$stack0'
	ARGS16="$ARGS4"' c=%cx r8=%r8 r9=%r9 ax=%ax bx=%bx sp=$stack s1=$stack1:u32 port=+4(%dx):u16 bits=+8(%dx):b8@8/32 big=+32(%dx):s64 name=+0(+16(%dx)):string comm=$comm'
	;;
esac

# The 5-byte NOP site of "wb-demo nop5 N" (x86_64), one thread.
NOP5_OFF=$(awk '$1 == "wb_demo_nop5_site" { print $2 }' /wb/share/wb-demo.offsets)

loop_ns() { # MODE: time of one "wb-demo MODE UPROBE_CALLS", in ns
	t0=$(now)
	$WB_DEMO "$1" "$UPROBE_CALLS" > /dev/null
	t1=$(now)
	echo $((t1 - t0))
}

# uprobe_hit NAME FETCHARGS [TYPE OFFSET MODE]: a TYPE ("p", or "r" for a
# return probe) event at file offset OFFSET of wb-demo, timed over
# "wb-demo MODE UPROBE_CALLS"; by default an entry probe on wb_demo_loop
# with "wb-demo loop".  Rows: uprobe-hit/NAME, or uretprobe-hit/NAME.
uprobe_hit() {
	type=${3:-p}
	off=${4:-$LOOP_OFF}
	mode=${5:-loop}
	row=uprobe-hit/$1
	[ "$type" = r ] && row=uretprobe-hit/$1
	echo > $T/uprobe_events
	if ! echo "$type:wbbench/hit $WB_DEMO:$off $2" >> $T/uprobe_events; then
		echo "BENCH-ERROR $row: the probe was refused"
		return
	fi
	echo > $T/trace
	loop_ns $mode > /dev/null	# warm up (page cache, first mapping)
	base=$(loop_ns $mode)		# the probe is defined but not enabled
	if ! echo 1 > $T/events/wbbench/hit/enable; then
		echo "BENCH-ERROR $row: cannot enable the probe"
		echo > $T/uprobe_events
		return
	fi
	probed=$(loop_ns $mode)
	echo 0 > $T/events/wbbench/hit/enable
	hits=$(awk '$2 == "hit" { print $3 }' $T/uprobe_profile)
	echo > $T/uprobe_events
	echo > $T/trace
	if [ "$hits" != "$UPROBE_CALLS" ]; then
		echo "BENCH-ERROR $row: $hits hits for $UPROBE_CALLS calls"
		return
	fi
	d=$((probed - base))
	[ $d -ge 0 ] || d=0
	printf 'BENCH %s %d.%02d ns/hit\n' "$row" \
		$((d / UPROBE_CALLS)) $(( (d % UPROBE_CALLS) * 100 / UPROBE_CALLS ))
}

# x86_64: functions entered by "sub $0x18,%rsp" and by endbr64, which 6.12
# single-steps and ours emulates; the return probe sits on the first.
SUB_OFF=$(awk '$1 == "wb_demo_sub_entry" { print $2 }' /wb/share/wb-demo.offsets)
ENDBR_OFF=$(awk '$1 == "wb_demo_endbr_entry" { print $2 }' /wb/share/wb-demo.offsets)

if ! want uprobe; then
	:
elif [ -f $T/uprobe_events ] && [ -x $WB_DEMO ] && [ -n "$LOOP_OFF" ]; then
	uprobe_hit args-0 ''
	uprobe_hit args-4 "$ARGS4"
	uprobe_hit args-16 "$ARGS16"
	if [ -n "$SUB_OFF" ] && [ -n "$ENDBR_OFF" ]; then
		uprobe_hit entry-sub '' p "$SUB_OFF" loop-sub
		uprobe_hit entry-endbr '' p "$ENDBR_OFF" loop-endbr
		uprobe_hit entry-sub '' r "$SUB_OFF" loop-sub
	fi
	if [ -n "$NOP5_OFF" ]; then
		uprobe_hit nop5-site '' p "$NOP5_OFF" nop5
	fi
else
	echo "BENCH-ERROR uprobe-hit: no uprobe_events or no wb-demo"
fi
# Probe-event hits on a module function (wb_event_bench): the time of
# EVENT_CALLS calls with the event enabled less the time without, per
# call; the eprobe row sits on kmem/kmalloc and times kmalloc()/kfree()
# pairs.  The last row is a kprobe through the API on the same call site.
EVB=/sys/module/wb_event_bench/parameters
EVENT_CALLS=${EVENT_CALLS:-20000}
evb_run() { echo "$EVENT_CALLS" > $EVB/$1 && cat $EVB/last_ps; }
ps_row() { # name picoseconds
	d=$2
	[ "$d" -ge 0 ] || d=0
	printf 'BENCH %s %d.%02d ns\n' "$1" $((d / 1000)) $(( (d % 1000) / 10 ))
}
event_hit() { # name run-parameter event definition...
	name=$1
	run=$2
	event=$3
	shift 3
	if ! echo "$*" >> $T/dynamic_events; then
		echo "BENCH-ERROR event-hit/$name: the definition was refused"
		return
	fi
	evb_run $run > /dev/null
	base=$(evb_run $run)
	echo 1 > $T/events/$event/enable
	probed=$(evb_run $run)
	echo 0 > $T/events/$event/enable
	if [ "$name" = kprobe ]; then
		hits=$(awk -v e="${event#*/}" '$1 == e { print $2 }' $T/kprobe_profile)
		[ "$hits" = "$EVENT_CALLS" ] ||
			echo "BENCH-ERROR event-hit/$name: $hits hits for $EVENT_CALLS calls"
	fi
	echo "-:$event" >> $T/dynamic_events
	echo > $T/trace
	ps_row event-hit/$name $((probed - base))
}
# Group kprobes runs the kprobe and kretprobe rows and the API row only.
if { want events || want kprobes; } &&
   insmod /wb/modules/wb_event_bench.ko 2>/dev/null; then
	event_hit kprobe run wbbench/kp 'p:wbbench/kp wb_evb_target x=$arg1'
	event_hit kretprobe run wbbench/kr 'r:wbbench/kr wb_evb_target ret=$retval'
	if want events; then
		event_hit fprobe run wbbench/fe 'f:wbbench/fe wb_evb_target x=$arg1'
		event_hit fprobe-return run wbbench/fr 'f:wbbench/fr wb_evb_target%return ret=$retval'
		event_hit eprobe alloc_run wbbench/ep 'e:wbbench/ep kmem/kmalloc size=$bytes_req'
	fi
	evb_run run > /dev/null
	base=$(evb_run run)
	probed=$(evb_run kprobe_run)
	if [ "$(cat $EVB/kprobe_hits)" != "$EVENT_CALLS" ] ||
	   [ "$(cat $EVB/on_call_site)" != 1 ]; then
		echo "BENCH-ERROR kprobe-api: $(cat $EVB/kprobe_hits) hits, ftrace=$(cat $EVB/on_call_site)"
	fi
	ps_row kprobe-api-hit $((probed - base))
	rmmod wb_event_bench
elif want events || want kprobes; then
	echo "BENCH-ERROR event-hit: wb_event_bench did not load"
fi
# The kprobes core itself (group kprobes), timed inside the kernel by
# wb_kprobe_bench, driven through its debugfs files:
#  - kprobe-mid-pre-hit, kprobe-mid-post-hit: a kprobe in the middle of
#    wb_kpb_target() (the second instruction boundary after its call site
#    that takes a probe every call hits: the module finds it), with a
#    pre_handler only, or with a pre_handler and a post_handler; the time
#    of KPROBE_CALLS calls with the probe less the time without, per call.
#    On x86_64 the first is timed only once kprobes/list shows it
#    [OPTIMIZED] (a jump, written by the optimizer after a delay); the
#    second must never be.  arm64 optimizes nothing: both are timed as
#    they are.
#  - kprobes-register-N, kprobes-unregister-N: register_kprobes() of N
#    kprobes (pre_handler counting hits) on distinct functions in one
#    call, then unregister_kprobes() of them all.  The functions: the
#    names of available_filter_functions as bulk_kprobes() filters them,
#    less the kprobes blacklist and the names listed twice (two functions
#    of one name: either could be probed), handed to the module, which
#    tries each alone (registered disabled, untimed) and keeps the first
#    N the core accepts; the md5 of the kept names shows whether both
#    kernels used the same set.  kprobes/list must grow by N lines and
#    shrink back.
KPB=/sys/kernel/debug/wb_kprobe_bench
KPL=/sys/kernel/debug/kprobes/list
KPROBE_CALLS=${KPROBE_CALLS:-20000}
KPROBES_BULK=${KPROBES_BULK:-10000}
KPROBES_MID_BULK=${KPROBES_MID_BULK:-1000}
kpb_base=		# the mid-function loop without a probe (ps), once found
kpb() { echo "$*" > $KPB/ctl; }	# one command; fails with it
kpb_get() { awk -v k="$1" '$1 == k { print $2 }' $KPB/result; }
kpb_optimized() { grep -F 'wb_kpb_target+0x' $KPL | grep -qF '[OPTIMIZED]'; }

kpb_mid_hit() { # row pre|post base-ps
	row=$1
	if ! kpb arm "$2"; then
		echo "BENCH-ERROR $row: the kprobe was refused"
		return
	fi
	if [ "$2" = pre ] && [ "$(uname -m)" = x86_64 ]; then
		i=0
		while ! kpb_optimized; do
			if [ $i -ge 600 ]; then
				echo "BENCH-ERROR $row: not optimized after 60 s:" \
					"$(grep -F wb_kpb_target $KPL)" \
					"kprobes-optimization=$(cat /proc/sys/debug/kprobes-optimization 2>/dev/null)"
				kpb disarm
				return
			fi
			sleep 0.1
			i=$((i + 1))
		done
		# [OPTIMIZED] shows once the optimizer has the probe queued;
		# the jump is written after a tasks-RCU grace period, which a
		# task spinning in the timing loop would hold back.
		sleep 2
	fi
	kpb time "$KPROBE_CALLS"	# warm up
	kpb time "$KPROBE_CALLS"
	probed=$(kpb_get last_ps)
	hits=$(kpb_get hits)
	opt=0
	kpb_optimized && opt=1
	kpb disarm
	if [ "$hits" != "$KPROBE_CALLS" ]; then
		echo "BENCH-ERROR $row: $hits hits for $KPROBE_CALLS calls"
	elif [ "$2" = post ] && [ $opt = 1 ]; then
		echo "BENCH-ERROR $row: a kprobe with a post_handler was optimized"
	else
		ps_row "$row" $((probed - $3))
	fi
}

kprobes_mid() {
	if ! kpb find; then
		echo "BENCH-ERROR kprobe-mid: no place in wb_kpb_target took a kprobe that every call hits"
		return
	fi
	echo "kprobes: mid-function kprobes at wb_kpb_target+$(kpb_get mid_offset)"
	sleep 1		# what find registered is gone, or being cleaned up
	kpb time "$KPROBE_CALLS"	# warm up
	kpb time "$KPROBE_CALLS"
	base=$(kpb_get last_ps)
	kpb_base=$base
	kpb_mid_hit kprobe-mid-pre-hit pre "$base"
	kpb_mid_hit kprobe-mid-post-hit post "$base"
}

# register_kprobes() of the kept probes, then unregister_kprobes(), each
# timed by the module; kprobes/list must grow by N and shrink back.  The
# rows are kprobes-register-WHAT and kprobes-unregister-WHAT.
kpb_bulk_rows() { # WHAT N
	before=$(wc -l < $KPL)
	if ! kpb register; then
		echo "BENCH-ERROR kprobes-register-$1: register_kprobes() failed: $(kpb_get register_err)"
		return 1
	fi
	during=$(wc -l < $KPL)
	kpb unregister
	after=$(wc -l < $KPL)
	if [ "$during" -ne $((before + $2)) ] || [ "$after" -ne "$before" ]; then
		echo "BENCH-ERROR kprobes-register-$1: kprobes/list had $before lines, $during registered, $after after"
		return 1
	fi
	echo "BENCH kprobes-register-$1 $(($(kpb_get register_ns) / 1000)) us"
	echo "BENCH kprobes-unregister-$1 $(($(kpb_get unregister_ns) / 1000)) us"
}

kprobes_bulk() { # N
	n=$1
	grep -v '[[:space:]]' $T/available_filter_functions |
		grep -E '^[a-z][a-z0-9_]*$' | grep -Ev '^(rcu|lock|preempt|irq)' \
		> /tmp/kp-all
	# left out: the blacklist, and a name two functions share (it would
	# resolve to either)
	awk '{ print $2 }' /sys/kernel/debug/kprobes/blacklist > /tmp/kp-out
	sort /tmp/kp-all | uniq -d >> /tmp/kp-out
	awk 'FILENAME == ARGV[1] { out[$1] = 1; next }
	     !($1 in out)' /tmp/kp-out /tmp/kp-all |
		head -n $((n * 2)) > /tmp/kp-cands
	if ! kpb clear || ! cat /tmp/kp-cands > $KPB/names; then
		echo "BENCH-ERROR kprobes-bulk: cannot hand the names in"
		return
	fi
	if ! kpb keep "$n"; then
		echo "BENCH-ERROR kprobes-bulk: trying the names failed"
		return
	fi
	kept=$(kpb_get kept)
	echo "kprobes: kept $kept of $(kpb_get tried) names tried ($(kpb_get refused) refused," \
		"$(kpb_get dups) on a kept address); md5 of the kept names: $(md5sum < $KPB/kept | cut -d" " -f1)"
	if [ "${kept:-0}" -lt "$n" ]; then
		echo "BENCH-ERROR kprobes-bulk: only $kept of $n functions took a kprobe"
		return
	fi
	# The mid-function hit again, with the kept probes in the table,
	# disabled: what a lookup costs when many probes are registered.
	if [ -n "$kpb_base" ]; then
		if kpb crowd; then
			kpb_mid_hit kprobe-mid-post-hit-among-$n post "$kpb_base"
			kpb uncrowd
		else
			echo "BENCH-ERROR kprobe-mid-post-hit-among-$n: register_kprobes() failed: $(kpb_get register_err)"
		fi
	fi
	kpb_bulk_rows "$n" "$n" && kprobes_bulk_mid "$KPROBES_MID_BULK"
	kpb clear
}

# The same with breakpoints: M probes (of the names handed in above),
# each on the first instruction after its function's call site that
# takes one, with a post_handler so that x86 optimizes none of them.
kprobes_bulk_mid() { # M
	m=$1
	if ! kpb keepmid "$m"; then
		echo "BENCH-ERROR kprobes-bulk-mid: trying the places failed"
		return
	fi
	kept=$(kpb_get kept)
	echo "kprobes: kept $kept breakpoint places of $(kpb_get tried) names tried"
	# On x86 the optimizer's worker frees what the tried probes left
	# (their aggregates' jump buffers) after a delay, waiting for grace
	# periods under the slot cache's lock: let it finish first.
	sleep 2
	if [ "${kept:-0}" -lt "$m" ]; then
		echo "BENCH-ERROR kprobes-bulk-mid: only $kept of $m functions took a breakpoint"
		return
	fi
	kpb_bulk_rows "mid-$m" "$m"
}

if ! want kprobes; then
	:
elif [ ! -e $KPL ] || ! insmod /wb/modules/wb_kprobe_bench.ko 2>/dev/null; then
	echo "BENCH-ERROR kprobes: no kprobes/list, or wb_kprobe_bench did not load"
else
	kprobes_mid
	kprobes_bulk "$KPROBES_BULK"
	rmmod wb_kprobe_bench
fi
# Probes in bulk: 1,000 kprobe events on distinct functions, defined in
# one write, enabled and disabled through their group, then all removed
# by truncating kprobe_events.  The functions are picked (untimed) from
# available_filter_functions, each tried alone, so that a function the
# kprobes core refuses on either kernel is left out on both.
bulk_kprobes() {
	n=$1 list=/tmp/bulk-kprobes.def i=0
	: > $list
	grep -v '[[:space:]]' $T/available_filter_functions |
		grep -E '^[a-z][a-z0-9_]*$' | grep -Ev '^(rcu|lock|preempt|irq)' |
		head -n $((n * 3)) > /tmp/bulk-cands
	while read -r f && [ $i -lt $n ]; do
		if echo "p:wbbulk/k$i $f" >> $T/kprobe_events 2>/dev/null; then
			echo "p:wbbulk/k$i $f" >> $list
			i=$((i + 1))
		fi
	done < /tmp/bulk-cands
	echo > $T/kprobe_events
	if [ $i -lt $n ]; then
		echo "BENCH-ERROR kprobe-events-bulk: only $i of $n functions took a kprobe"
		return
	fi
	timed kprobe-events-define-$n sh -c "cat $list > $T/kprobe_events"
	timed kprobe-events-enable-$n sh -c "echo 1 > $T/events/wbbulk/enable"
	timed kprobe-events-disable-$n sh -c "echo 0 > $T/events/wbbulk/enable"
	timed kprobe-events-remove-$n sh -c "echo > $T/kprobe_events"
	[ -z "$(cat $T/kprobe_events)" ] ||
		echo "BENCH-ERROR kprobe-events-bulk: events left after removal"
}
{ want bulk || want kprobes; } && bulk_kprobes 1000
# Uprobes in bulk (group bulk, or ubulk alone): 1,000 uprobe events on the
# distinct functions of wb-ufuncs, defined in one write, enabled and
# disabled through their group while the program sleeps with the file
# mapped (so each enable writes a breakpoint into its mm and each disable
# takes it out), then removed by truncating uprobe_events.  Then the
# program opens 1,000 perf events of the uprobe PMU on itself, one per
# function, checks each counts its one hit, and closes them; it times
# both loops itself.  With BPF (distro config), one uprobe_multi link on
# the same 1,000 offsets is attached and detached too (wb-kmulti umulti).
UFUNCS=/usr/bin/wb-ufuncs
UFUNCS_OFFS=/wb/share/wb-ufuncs.offsets
# The same group enabled and disabled while M processes in all (the
# running wb-ufuncs and M - 1 more) map the program, as when a library
# many processes use is probed: a register per probe visits every
# address space once per probe.
bulk_uprobes_mms() { # n list m
	n=$1 list=$2 m=$3 pids= k=1
	while [ $k -lt "$m" ]; do
		$UFUNCS pause > /tmp/ufuncs.ready.$k &
		pids="$pids $!"
		k=$((k + 1))
	done
	i=0
	while [ "$(cat /tmp/ufuncs.ready.* 2>/dev/null | grep -c ready)" -lt $((m - 1)) ] &&
	      [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ "$(cat /tmp/ufuncs.ready.* 2>/dev/null | grep -c ready)" -lt $((m - 1)) ]; then
		echo "BENCH-ERROR uprobe-events-bulk-mms: the other wb-ufuncs did not start"
	else
		cat $list > $T/uprobe_events
		sleep 1
		timed uprobe-events-enable-$n-$m-procs sh -c "echo 1 > $T/events/wbubulk/enable"
		[ "$(cat $T/events/wbubulk/enable)" = 1 ] ||
			echo "BENCH-ERROR uprobe-events-bulk-mms: not every event was enabled"
		timed uprobe-events-disable-$n-$m-procs sh -c "echo 0 > $T/events/wbubulk/enable"
		echo > $T/uprobe_events
	fi
	kill $pids 2>/dev/null
	for k in $pids; do
		wait $k 2>/dev/null
	done
	rm -f /tmp/ufuncs.ready.*
}

bulk_uprobes() {
	n=$1 list=/tmp/bulk-uprobes.def
	awk -v n="$n" -v p="$UFUNCS" 'NR <= n {
		printf "p:wbubulk/u%d %s:%s\n", NR - 1, p, $2 }' \
		$UFUNCS_OFFS > $list 2>/dev/null
	if [ ! -x $UFUNCS ] || [ "$(grep -c . $list)" != "$n" ]; then
		echo "BENCH-ERROR uprobe-events-bulk: no wb-ufuncs or fewer than $n offsets"
		return
	fi
	echo > $T/uprobe_events
	$UFUNCS pause > /tmp/ufuncs.ready &
	upid=$!
	i=0
	while ! grep -q ready /tmp/ufuncs.ready 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if ! grep -q ready /tmp/ufuncs.ready; then
		echo "BENCH-ERROR uprobe-events-bulk: wb-ufuncs did not start"
		kill $upid 2>/dev/null
		return
	fi
	timed uprobe-events-define-$n sh -c "cat $list > $T/uprobe_events"
	# The first event enabled since boot starts the event core's comm
	# recording, 15 to 30 ms of guest time on both kernels that vary
	# with RCU's state; pay it here, not in the enable row (in a full
	# run earlier groups have paid it already).
	echo 1 > $T/events/sched/sched_process_exec/enable
	echo 0 > $T/events/sched/sched_process_exec/enable
	sleep 1
	timed uprobe-events-enable-$n sh -c "echo 1 > $T/events/wbubulk/enable"
	[ "$(cat $T/events/wbubulk/enable)" = 1 ] ||
		echo "BENCH-ERROR uprobe-events-bulk: not every event was enabled"
	timed uprobe-events-disable-$n sh -c "echo 0 > $T/events/wbubulk/enable"
	timed uprobe-events-remove-$n sh -c "echo > $T/uprobe_events"
	# BPF (distro config): one uprobe_multi link on the same offsets
	if [ -e /proc/sys/kernel/unprivileged_bpf_disabled ]; then
		wb-kmulti umulti $UFUNCS $UFUNCS_OFFS "$n"
	fi
	bulk_uprobes_mms "$n" "$list" 16
	kill $upid
	wait $upid 2>/dev/null
	[ -z "$(cat $T/uprobe_events)" ] ||
		echo "BENCH-ERROR uprobe-events-bulk: events left after removal"
	echo > $T/trace

	[ -e /sys/bus/event_source/devices/uprobe/type ] || {
		echo "BENCH-ERROR perf-uprobe-bulk: no uprobe PMU"
		return
	}
	set -- $($UFUNCS perf $UFUNCS_OFFS "$n")
	if [ "$1" != open ] || [ "$3" != close ]; then
		echo "BENCH-ERROR perf-uprobe-bulk: wb-ufuncs perf failed"
		return
	fi
	echo "BENCH perf-uprobe-open-$n $2 us"
	echo "BENCH perf-uprobe-close-$n $4 us"
}
{ want bulk || want ubulk; } && bulk_uprobes 1000
# BPF kprobe_multi links (configs with BPF, e.g. distro): one link on every
# function attached and detached, and the cost of a hit on getpgid().
if want kmulti && [ -e /proc/sys/kernel/unprivileged_bpf_disabled ]; then
	wb-kmulti all
	wb-kmulti hit "$NCALLS"
	wb-kmulti hit "$NCALLS" ret
fi
echo "BENCH-DONE"
