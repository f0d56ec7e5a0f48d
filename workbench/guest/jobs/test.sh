#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run ftracetest (upstream's cases plus ours) in KTAP mode.  KUnit and the
# boot-time selftests already ran during boot; the host reads those from
# the console log.  Arguments, if any, name test cases or directories
# (relative to test.d) to run instead of all of them.
cd /opt/ftracetest || exit 1
echo "WB-PHASE ftracetest"
cases=
for a in "$@"; do
	cases="$cases test.d/$a"
done
# shellcheck disable=SC2086
./ftracetest -K -v -l /tmp/ftracetest-logs $cases
rc=$?
echo "WB-PHASE ftracetest-done rc=$rc"
# The verdict comes from the per-case lines; ftracetest's own exit code only
# says whether anything at all failed.
exit 0
