#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# build.sh KIND: prepare the tree, write the config and build the kernel
# image (bzImage, arm64 Image) and modules of one kernel kind,
# incrementally.  The full make output goes to build/KIND/build.log; the
# console gets a progress line every 30 seconds.
. "$(dirname "$0")/common.sh"
WB_PHASE=build
kind=${1:-ours}
build_lock
"$WB/prepare.sh" "$kind"
"$WB/kconfig.sh" "$kind"
src=$(kind_src "$kind")
obj=$(kind_obj "$kind")
log=$(kind_dir "$kind")/build.log
mkdir -p "$(dirname "$log")"

say "$kind: make ARCH=$ARCH -j$JOBS $KTARGET modules (log: ${log#"$TOP"/})"
start=$(date +%s)
: > "$log"
(
	while sleep 30; do
		n=$(grep -cE '^  (CC|AS|LD|AR)' "$log" || true)
		last=$(grep -E '^  (CC|LD|AS)' "$log" | tail -n 1 | awk '{print $2}' || true)
		say "$kind: $((($(date +%s) - start) / 60))m$((($(date +%s) - start) % 60))s, $n steps, at ${last:-...}"
	done
) 9>&- &
ticker=$!
trap 'kill $ticker 2>/dev/null || true' EXIT
# ccache, where installed, makes a rebuild of either kind cheap: with
# CCACHE_BASEDIR the two trees look alike (obj/../src) to it.
cc=()
if command -v ccache >/dev/null && [ "${WB_CCACHE:-1}" = 1 ]; then
	export CCACHE_BASEDIR=$BUILD
	cc=(CC="ccache ${CROSS}gcc")
fi
rc=0
kmake "$kind" "${cc[@]}" -j"$JOBS" "$KTARGET" modules >> "$log" 2>&1 || rc=$?
kill $ticker 2>/dev/null || true
if [ $rc != 0 ]; then
	grep -E 'error|Error' "$log" | head -n 40 >&2
	die "$kind: build failed (full log: $log)"
fi
warn=$(grep -c ': warning:' "$log" || true)
say "$kind: built $(kind_release "$kind") in $(($(date +%s) - start))s, $warn compiler warnings"
[ "$warn" = 0 ] || grep ': warning:' "$log" | sort -u | head -n 20
