#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# fuzz.sh KIND [SEED [COUNT]]: build KIND, boot it and run the fuzz job
# (wb-fuzz, workbench/guest/src/wb-fuzz.c) with SEED (default 1) and COUNT
# inputs (default 10000), then the privilege checks, then on x86_64
# wb-nop5-fuzz (workbench/guest/src/wb-nop5-fuzz.c) with the same SEED and
# WB_NOP5_OPS operations (default 100000).  Every input that
# broke the contract is saved as workbench/fuzz/TARGET-HASH.in, which the
# test job replays from then on.  Fails on any broken contract or a
# console report that the kind's stock baseline does not list as known.
. "$(dirname "$0")/common.sh"
WB_PHASE=fuzz
kind=${1:-ours}
seed=${2:-1}
count=${3:-10000}
nop5_ops=${WB_NOP5_OPS:-100000}
WB_PHASE=build "$WB/build.sh" "$kind"
"$WB/initramfs.sh" "$kind"
say "$kind: booting; then $count inputs and (x86_64) $nop5_ops nop5 operations, seed $seed"
qrc=0
python3 "$WB/qemu.py" "$kind" fuzz "$seed" "$count" "$nop5_ops" --echo tests \
	--timeout "${WB_TIMEOUT:-5400}" || qrc=$?
rundir=$(kind_runs "$kind")/fuzz
saved=0
if [ "${kind%%-*}" = ours ]; then
	mkdir -p "$WB/fuzz"
	while read -r _ target hex _; do
		f="$WB/fuzz/${target//\//_}-$(printf '%s' "$hex" | sha1sum | cut -c1-12).in"
		{ echo "$target"; python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))' "$hex"; } > "$f"
		saved=$((saved + 1))
	done < <(grep -a '^FUZZ-FAIL ' "$rundir/results.log")
	[ $saved = 0 ] || say "$saved failing input(s) saved in workbench/fuzz/ (make test replays them)"
fi
rrc=0
python3 "$WB/results.py" "$rundir" --known-from "$(kind_baseline "$kind")" || rrc=$?
grep -aq '^FUZZ-FAIL \|^FUZZ-LEFT ' "$rundir/results.log" && rrc=1
[ $qrc = 0 ] || [ $qrc = 1 ] || { say "the guest did not finish its job (see above)"; exit 1; }
exit $rrc
