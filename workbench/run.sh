#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run.sh [JOB [KIND]]: install what is missing, prepare, build and boot our kernel
# and run a guest job (default: demo).  'shell' boots to an interactive shell.
. "$(dirname "$0")/common.sh"
WB_PHASE=run
job=${1:-demo}
kind=${2:-ours}
"$WB/deps.sh"
"$WB/build.sh" "$kind"
"$WB/initramfs.sh" "$kind"
if [ "$job" = shell ]; then
	say "booting to a shell (Ctrl-A X quits QEMU)"
	exec python3 "$WB/qemu.py" "$kind" shell
fi
python3 "$WB/qemu.py" "$kind" "$job" --echo all --timeout "${WB_TIMEOUT:-1200}"
