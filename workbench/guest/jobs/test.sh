#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run ftracetest (upstream's cases plus ours) in KTAP mode.  KUnit and the
# boot-time selftests already ran during boot; the host reads those from
# the console log.  Arguments, if any, name test cases or directories
# (relative to test.d) to run instead of all of them.  Then, on a full run,
# the extra suites the image has (/wb/suites/NAME.sh: the distro variants'
# livepatch selftests and bpftrace cases), each after a "WB-PHASE NAME"
# line that tells results.py whose cases follow.
#
# "suite=NAME" runs only the extra suite NAME (/wb/suites/NAME.sh).
# "shard=K/N" as the only argument runs the K-th of N interleaved parts
# of the full run (every N-th case, from the K-th), for N guests side by
# side; the extra suites, the fuzzer and the stress run go with part N.
cd /opt/ftracetest || exit 1
echo "WB-PHASE ftracetest"
cases=
shard=0
nshards=1
case "$1" in
suite=*)
	# one extra suite alone, without ftracetest (quick checks)
	echo "WB-PHASE ftracetest-done failed=0"
	echo "WB-PHASE ${1#suite=}"
	"/wb/suites/${1#suite=}.sh"
	exit 0
	;;
shard=*/*)
	shard=${1#shard=}
	nshards=${shard#*/}
	shard=${shard%/*}
	shift
	;;
esac
if [ $# -gt 0 ]; then
	for a in "$@"; do
		cases="$cases test.d/$a"
	done
else
	# every case, in ftracetest's own order, less the quarantined ones
	i=0
	for t in $(find test.d -name '*.tc' | sort); do
		i=$((i + 1))
		if [ $shard -gt 0 ] && [ $(((i - 1) % nshards + 1)) != "$shard" ]; then
			continue
		elif grep -qxF "${t#test.d/}" /wb/share/quarantine; then
			desc=$(grep '^#[ \t]*description:' "$t" | cut -f2- -d:)
			echo "ok 0 $desc # SKIP quarantined (workbench/guest/quarantine.list)"
		else
			cases="$cases $t"
		fi
	done
fi
# shellcheck disable=SC2086
./ftracetest -K -v -l /tmp/ftracetest-logs $cases | tee /tmp/ftracetest.out
echo "WB-PHASE ftracetest-done failed=$(grep -c '^not ok' /tmp/ftracetest.out)"
# A case that failed runs once more, on its own and under a phase of its
# own: the host counts one that passes then as flaky (listed by name, not a
# failure) and one that fails again as failed.  The description names the
# file; an instance variant reruns its file, which runs both variants.
grep '^not ok' /tmp/ftracetest.out | grep -v '# XFAIL' |
	sed -e 's/^not ok [0-9]* //' -e 's/^(instance) //' -e 's/ *#.*$//' |
	sort -u | while read -r d; do
		grep -rlF -- "description: $d" test.d | grep '\.tc$' | head -n 1
	done > /tmp/ftracetest.retry
if [ -s /tmp/ftracetest.retry ]; then
	echo "WB-PHASE ftracetest-retry"
	# shellcheck disable=SC2046
	./ftracetest -K -v -l /tmp/ftracetest-logs $(cat /tmp/ftracetest.retry)
	echo "WB-PHASE ftracetest-retry-done"
fi
extras=0
[ $# = 0 ] && [ "$shard" = "$nshards" -o "$shard" = 0 ] && extras=1
if [ $extras = 1 ]; then
	for s in /wb/suites/*.sh; do
		[ -x "$s" ] || continue
		name=${s##*/}
		echo "WB-PHASE ${name%.sh}"
		"$s"
	done
fi
# The fuzzer: the saved failing inputs again, a short seeded run, and the
# privilege checks (full runs only; "make fuzz" is the long form); then
# one minute of the stress job.
if [ $extras = 1 ]; then
	echo "WB-PHASE fuzz"
	n=0
	set -- /wb/share/fuzz/*.in
	[ -e "$1" ] && n=$# && (cd /sys/kernel/tracing && wb-fuzz -r "$@")
	(cd /sys/kernel/tracing && wb-fuzz -s 1 -n "${WB_FUZZ_SHORT:-2000}") > /tmp/fuzz.log 2>&1
	frc=$?
	grep -E 'FUZZ-FAIL|^fuzz: seed' /tmp/fuzz.log
	if [ $frc = 0 ]; then
		echo "ok $((n + 1)) fuzz: seeded short run"
	else
		echo "not ok $((n + 1)) fuzz: seeded short run"
	fi
	wb-fuzz -p | sed "s/^\(ok\|not ok\) 1 /\1 $((n + 2)) fuzz: /"
	# and a short stress run ("make stress" is the long form)
	echo "WB-PHASE stress"
	/wb/jobs/stress.sh "${WB_STRESS_SHORT:-60}"
fi
. /wb/jobs/leakscan.sh
# The verdict comes from the per-case lines; ftracetest's own exit code only
# says whether anything at all failed.
exit 0
