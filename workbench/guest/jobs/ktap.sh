# SPDX-License-Identifier: GPL-2.0
# Sourced by guest jobs that print their own KTAP lines.
# ktap STATUS TEXT: "ok N TEXT" when STATUS is 0, else "not ok N TEXT"
# and rc=1.  N counts up from the caller's n (start it at 0).
ktap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		rc=1
	fi
}
