#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# stress.sh KIND [SECONDS]: build KIND, boot it and run the stress job
# (workbench/guest/jobs/stress.sh with modules wb_stress and wb_kpchurn)
# for SECONDS
# (default 180), then judge: every check of the job must pass and the
# console must be clean (reports the kind's stock baseline lists as known
# are tolerated, as in make test).
. "$(dirname "$0")/common.sh"
WB_PHASE=stress
kind=${1:-ours}
secs=${2:-180}
WB_PHASE=build "$WB/build.sh" "$kind"
"$WB/initramfs.sh" "$kind"
say "$kind: booting; the stress job runs for $secs s after the boot"
qrc=0
python3 "$WB/qemu.py" "$kind" stress "$secs" --echo tests \
	--timeout $((secs * 3 + 1500)) || qrc=$?
rundir=$(kind_runs "$kind")/stress
rrc=0
python3 "$WB/results.py" "$rundir" --known-from "$(kind_baseline "$kind")" || rrc=$?
[ $qrc = 0 ] || [ $qrc = 1 ] || { say "the guest did not finish its job (see above)"; exit 1; }
exit $rrc
