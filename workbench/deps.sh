#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh [VARIANT]: install the Debian packages the workbench needs (for
# the architecture WB_ARCH), only those missing.  The distro variants also need bpftrace (their bpf suite
# runs the host's copy in the guest).
. "$(dirname "$0")/common.sh"
WB_PHASE=deps

pkgs="linux-source-6.12 qemu-system-x86 busybox-static gcc make bc bison
flex libelf-dev libssl-dev cpio kmod rsync xz-utils python3 git patch
libc6-dev perl ccache binutils dash util-linux dwarves
coreutils python3-sphinx"
case "-${1:-}-" in
*-distro-*) pkgs="$pkgs bpftrace" ;;
esac
# arm64: the cross compiler and its libc (the guest programs' libraries),
# and QEMU for arm64 (busybox and friends come from initramfs.sh).
[ "$ARCH" = arm64 ] && pkgs="$pkgs gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm"
# x86_64: stress-ng, whose uprobe stressor a case runs in the guest
# beside its fork and ptrace stressors (dynevent/uprobe_stress_ng.tc), and
# trinity, the system call fuzzer of make trinity (trinity.sh).
[ "$ARCH" = x86_64 ] && pkgs="$pkgs stress-ng trinity"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	say "all packages present"
	exit 0
fi
say "installing:$missing"
[ "$(id -u)" = 0 ] || die "need root to install:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || say "apt-get update failed; trying the cached lists"
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
say "installed"
