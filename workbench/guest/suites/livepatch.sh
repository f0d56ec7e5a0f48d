#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Upstream's livepatch selftests (tools/testing/selftests/livepatch) with
# their test modules, built for this kernel by initramfs.sh into
# /opt/livepatch.  They are bash scripts that use procps' sysctl, so they
# run in the host's root (hostroot.sh) from a copy in /tmp.  One KTAP line
# per script: exit 0 passes, 4 (kselftest's skip) skips, else it fails.
. /wb/jobs/hostroot.sh
if ! hostroot_up || [ ! -d /opt/livepatch ]; then
	echo "ok 1 livepatch # SKIP no host root or no livepatch tests in the image"
	exit 0
fi
rm -rf /tmp/livepatch
cp -r /opt/livepatch /tmp/livepatch
n=0
for t in /tmp/livepatch/test-*.sh; do
	n=$((n + 1))
	name=${t##*/}
	start=$(date +%s)
	# KDIR: the scripts only check that it exists (modules are prebuilt)
	chroot /host /bin/bash -c "cd /tmp/livepatch && KDIR=/tmp/livepatch ./$name" \
		> "/tmp/$name.log" 2>&1
	rc=$?
	sed 's/^/# /' "/tmp/$name.log"
	echo "# $name: exit $rc after $(($(date +%s) - start))s"
	case $rc in
	0) echo "ok $n $name" ;;
	4) echo "ok $n $name # SKIP" ;;
	*) echo "not ok $n $name" ;;
	esac
done
