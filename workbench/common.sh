# SPDX-License-Identifier: GPL-2.0
# Shared settings for the workbench scripts.  Sourced, never run.
#
# Layout of the build folder (ignored by git):
#   build/stock/src         pristine base tree, unpacked from Debian's tarball
#   build/ours/src          base + our overlay + patches/ (kept, synced)
#   build/<kind>/obj        O= build folder of one kernel (ours or stock)
#   build/<kind>/guest      initramfs staging and the cpio
#   build/<kind>/runs/<job> console log, results log and parsed results
# <kind> is "ours" (the product) or "stock" (the pristine base, baseline).

set -euo pipefail

WB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$WB")
BUILD=${WB_BUILD:-$TOP/build}
BASE_TARBALL=/usr/src/linux-source-6.12.tar.xz
BASE_SRC=$BUILD/stock/src
ARCH=${WB_ARCH:-x86_64}
JOBS=${WB_JOBS:-$(nproc)}

# Everything tracked in the repository is laid over the kernel tree at the
# same path, except these top-level entries, which belong to the project.
NOT_OVERLAY='^(workbench|patches|\.ci|build)/|^(README\.md|GNUmakefile|\.gitignore)$'

say() { printf '[%s] %s\n' "${WB_PHASE:-wb}" "$*"; }
die() { printf '[%s] error: %s\n' "${WB_PHASE:-wb}" "$*" >&2; exit 1; }

kind_src() {
	case "$1" in
	ours) echo "$BUILD/ours/src" ;;
	stock) echo "$BASE_SRC" ;;
	*) die "unknown kernel kind '$1' (ours or stock)" ;;
	esac
}
kind_obj() { echo "$BUILD/$1/obj"; }
kind_guest() { echo "$BUILD/$1/guest"; }
kind_runs() { echo "$BUILD/$1/runs"; }

# kernelrelease of a configured and built kind
kind_release() {
	make -s -C "$(kind_src "$1")" O="$(kind_obj "$1")" kernelrelease 2>/dev/null
}
