#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sourced at the end of a job.  The debug flavour: a leak scan once
# everything ran.  kmemleak reports an object only when it stayed
# unreferenced over a scan and is older than a few seconds, hence two
# scans.  results.py reads the WB-KMEMLEAK lines.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo "WB-PHASE kmemleak"
	echo scan > /sys/kernel/debug/kmemleak
	sleep 6
	echo scan > /sys/kernel/debug/kmemleak
	sed 's/^/WB-KMEMLEAK /' /sys/kernel/debug/kmemleak
	echo "WB-PHASE kmemleak-done"
fi
