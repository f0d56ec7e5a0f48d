#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run ftracetest (upstream's cases plus ours) in KTAP mode.  KUnit and the
# boot-time selftests already ran during boot; the host reads those from
# the console log.  Arguments, if any, name test cases or directories
# (relative to test.d) to run instead of all of them.
cd /opt/ftracetest || exit 1
echo "WB-PHASE ftracetest"
cases=
if [ $# -gt 0 ]; then
	for a in "$@"; do
		cases="$cases test.d/$a"
	done
else
	# every case, in ftracetest's own order, less the quarantined ones
	for t in $(find test.d -name '*.tc' | sort); do
		if grep -qxF "${t#test.d/}" /wb/share/quarantine; then
			desc=$(grep '^#[ \t]*description:' "$t" | cut -f2- -d:)
			echo "ok 0 $desc # SKIP quarantined (workbench/guest/quarantine.list)"
		else
			cases="$cases $t"
		fi
	done
fi
# shellcheck disable=SC2086
./ftracetest -K -v -l /tmp/ftracetest-logs $cases
rc=$?
echo "WB-PHASE ftracetest-done rc=$rc"
# The verdict comes from the per-case lines; ftracetest's own exit code only
# says whether anything at all failed.
exit 0
