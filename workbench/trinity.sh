#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# trinity.sh KIND [SECONDS [SEED]]: build KIND (x86_64), boot it and run
# the trinity job (workbench/guest/jobs/trinity.sh): Debian's trinity as
# uid 65534 for SECONDS (default 240; half its "vm" group with SEED, half
# every system call with SEED + 1; default SEED 1) while a 5-byte NOP
# uprobe and an emulated-entry uprobe on wb-demo are hit in a loop.  Fails
# on a failed check of the job or on a console report (oops, WARN, BUG,
# lockdep, stall, hung task...) that neither the kind's stock baseline nor,
# for ours, the last trinity run on the matching stock kind shows: the
# question is whether ours adds a report, not whether trinity finds
# anything in 6.12.  A stock run saves its reports for that comparison in
# build/STOCK/runs/trinity/reports.results.
. "$(dirname "$0")/common.sh"
WB_PHASE=trinity
kind=${1:-ours}
secs=${2:-240}
seed=${3:-1}
[ "$ARCH" = x86_64 ] || die "trinity runs in the x86_64 guest only (the nop5 path is x86's)"
command -v trinity >/dev/null || die "trinity is not installed (make deps)"
WB_PHASE=build "$WB/build.sh" "$kind"
# The image under the build lock, in a subshell of its own so that the
# lock goes when the image is made: modules_install and the demo module
# read the kind's obj folder, which a build in another shell (of the same
# kind, by someone else) would be rewriting.  build.sh above took and
# dropped the lock in its own process.
(
	build_lock
	"$WB/initramfs.sh" "$kind"
)
say "$kind: booting; trinity runs as uid 65534 for $secs s, seeds $seed and $((seed + 1))"
qrc=0
python3 "$WB/qemu.py" "$kind" trinity "$secs" "$seed" --echo tests \
	--timeout $((secs * 3 + 1500)) || qrc=$?
rundir=$(kind_runs "$kind")/trinity
known=$(kind_baseline "$kind")
if [ "$(kind_tree "$kind")" = stock ]; then
	# its reports, as KNOWN lines, for the run on ours
	python3 "$WB/results.py" "$rundir" --write-baseline "$rundir/reports.results" > /dev/null || true
else
	srun=$(kind_runs "stock${kind#ours}")/trinity/reports.results
	if [ -f "$srun" ]; then
		say "tolerating the console reports of the last stock${kind#ours} trinity run too"
		known=$rundir/known.results
		{ cat "$(kind_baseline "$kind")"; grep '^KNOWN console: ' "$srun" || true; } > "$known"
	else
		say "no stock${kind#ours} trinity run to compare with (make trinity ON=stock): the baseline's reports only"
	fi
fi
rrc=0
python3 "$WB/results.py" "$rundir" --known-from "$known" || rrc=$?
[ $qrc = 0 ] || [ $qrc = 1 ] || { say "the guest did not finish its job (see above)"; exit 1; }
exit $rrc
