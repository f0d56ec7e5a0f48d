#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test.sh KIND [CASE...]: build KIND incrementally, boot it, run the test
# job (KUnit and the boot selftests run during boot; ftracetest after it)
# and judge the results against the committed baseline.
#
# With CASE arguments only those ftracetest cases run (paths relative to
# test.d, e.g. dynevent/add_remove_uprobe.tc); the baseline comparison then
# covers KUnit and the boot selftests only.
#
# Environment: WB_BASELINE_WRITE=1 writes the results as the new baseline
# (what 'make baseline' does with KIND=stock); WB_SHARDS=N splits a full
# run over N guests side by side (the debug flavour: about half the time
# with 2 on this 2-core machine).
. "$(dirname "$0")/common.sh"
WB_PHASE=test
kind=${1:-ours}
shift || true
baseline=$(kind_baseline "$kind")
if [ "${WB_BASELINE_WRITE:-0}" != 1 ] && [ ! -f "$baseline" ]; then
	die "no baseline for $kind: ${baseline#"$TOP"/} (make baseline with the same CONFIG/FLAVOUR first)"
fi

WB_PHASE=build "$WB/build.sh" "$kind"
"$WB/initramfs.sh" "$kind"
say "$kind: booting; KUnit and boot selftests run first, then ftracetest"
qrc=0
# The debug flavour runs several times slower under TCG (a whole job took
# about 1.5-2.5 hours here): longer limits unless told otherwise.
timeout=3000
case "$kind" in
*debug*) timeout=12000; export WB_STALL=${WB_STALL:-1200} ;;
esac
shards=${WB_SHARDS:-1}
[ $# = 0 ] || shards=1
if [ "$shards" -gt 1 ]; then
	# N guests side by side, each with its part of the cases (one host
	# core each under TCG); results.py reads all the run folders.
	say "$kind: $shards guests side by side (WB_SHARDS), folders test-1..test-$shards"
	pids=()
	for k in $(seq "$shards"); do
		python3 "$WB/qemu.py" "$kind" test "shard=$k/$shards" --tag "test-$k" \
			--echo tests --timeout "${WB_TIMEOUT:-$timeout}" 2>&1 |
			sed -u "s/^/[$k] /" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p"
	done
	# the verdict comes from the folders (WB-JOB-DONE is checked there)
	qrc=0
	rundir=$(kind_runs "$kind")/test-1
	args=()
	for k in $(seq "$shards"); do
		args+=("$(kind_runs "$kind")/test-$k")
	done
else
	python3 "$WB/qemu.py" "$kind" test "$@" --echo tests \
		--timeout "${WB_TIMEOUT:-$timeout}" || qrc=$?
	rundir=$(kind_runs "$kind")/test
	args=("$rundir")
fi
# A full run boots once more, with kprobe_event= on the command line and
# KUnit off (the events are enabled from boot on): guest/jobs/bootparam.sh.
# WB_BOOTPARAM=0 leaves it out.
if [ $# = 0 ] && [ "${WB_BOOTPARAM:-1}" = 1 ]; then
	say "$kind: a second boot with kprobe_event= (guest/jobs/bootparam.sh)"
	# shellcheck disable=SC2016
	python3 "$WB/qemu.py" "$kind" bootparam --tag bootparam --echo tests \
		--timeout "$timeout" --append kunit.enable=0 \
		--append 'kprobe_event=p:wbboot/entry,vfs_read,count=$arg3;r:wbboot/exit,vfs_read,ret=$retval;p:wbboot/bad,wb_no_such_function' ||
		true
	args+=("$(kind_runs "$kind")/bootparam")
fi
if [ "${WB_BASELINE_WRITE:-0}" = 1 ]; then
	args+=(--write-baseline "$baseline")
elif [ $# -gt 0 ]; then
	# a partial run: compare only what ran
	grep -Ev '^PASS (ftracetest|livepatch|bpf|fuzz|stress|bootparam):' "$baseline" > "$rundir/baseline.partial" || true
	args+=(--baseline "$rundir/baseline.partial")
else
	args+=(--baseline "$baseline")
fi
rrc=0
python3 "$WB/results.py" "${args[@]}" || rrc=$?
[ $qrc = 0 ] || [ $qrc = 1 ] || { say "the guest did not finish its job (see above)"; exit 1; }
exit $rrc
