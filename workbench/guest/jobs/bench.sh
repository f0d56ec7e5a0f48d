#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Micro-benchmarks of the tracing stack, printed as
#   BENCH <name> <value> <unit>
# for the host to put side by side (workbench/bench.sh).  Under QEMU's
# -icount shift=0 guest time counts guest instructions, so the figures
# repeat run after run; without it they are wall-clock under TCG.
T=/sys/kernel/tracing
NCALLS=${NCALLS:-100000}

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

ops relevant-0-irrelevant-0 nr_ops_relevant=0 nr_ops_irrelevant=0
ops relevant-1-irrelevant-0 nr_ops_relevant=1 nr_ops_irrelevant=0
ops relevant-1-irrelevant-100 nr_ops_relevant=1 nr_ops_irrelevant=100
ops relevant-2-irrelevant-0 nr_ops_relevant=2 nr_ops_irrelevant=0
ops relevant-2-irrelevant-100 nr_ops_relevant=2 nr_ops_irrelevant=100
ops relevant-10-irrelevant-0 nr_ops_relevant=10 nr_ops_irrelevant=0
ops relevant-10-irrelevant-100 nr_ops_relevant=10 nr_ops_irrelevant=100
ops save-regs nr_ops_relevant=1 save_regs=1
ops recursion nr_ops_relevant=1 assist_recursion=1
ops rcu nr_ops_relevant=1 assist_rcu=1

set_filter() { echo "$1" > $T/set_ftrace_filter; }
timed filter-set-all set_filter '*'
timed filter-set-one set_filter schedule
timed filter-reset set_filter ''
timed function-tracer-on-all sh -c "echo function > $T/current_tracer"
timed function-tracer-off sh -c "echo nop > $T/current_tracer"
echo "BENCH-DONE"
