# SPDX-License-Identifier: GPL-2.0
# Shared settings for the workbench scripts.  Sourced, never run.
#
# Layout of the build folder (ignored by git):
#   build/stock/src         pristine base tree, unpacked from Debian's tarball
#   build/ours/src          base + our overlay + patches/ (kept, synced)
#   build/<kind>/obj        O= build folder of one kernel (ours or stock)
#   build/<kind>/guest      initramfs staging and the cpio
#   build/<kind>/runs/<job> console log, results log and parsed results
# <kind> is "ours" (the product) or "stock" (the pristine base, baseline),
# optionally followed by a config variant after a dash: "ours-distro" is our
# tree built with the distro config in build/ours-distro/obj; it shares the
# source tree build/ours/src.  Variants (see kconfig.sh): distro, debug and
# distro-debug.  The GNUmakefile turns CONFIG= and FLAVOUR= into a variant.

set -euo pipefail

WB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(dirname "$WB")
BUILD=${WB_BUILD:-$TOP/build}
BASE_TARBALL=/usr/src/linux-source-6.12.tar.xz
BASE_SRC=$BUILD/stock/src
# The guest architecture: x86_64 (default) or arm64 (cross-built with
# Debian's aarch64-linux-gnu- toolchain, booted on qemu-system-aarch64 -M
# virt).  Builds and runs of arm64 live under build/arm64/KIND; the source
# trees are shared.
ARCH=${WB_ARCH:-x86_64}
case "$ARCH" in
x86_64) CROSS= ; KIMAGE=arch/x86/boot/bzImage ; KTARGET=bzImage ;;
arm64) CROSS=aarch64-linux-gnu- ; KIMAGE=arch/arm64/boot/Image ; KTARGET=Image ;;
*) printf '[wb] error: unknown ARCH %s (x86_64 or arm64)\n' "$ARCH" >&2; exit 1 ;;
esac
export WB_ARCH=$ARCH
JOBS=${WB_JOBS:-$(nproc)}

# Everything tracked in the repository is laid over the kernel tree at the
# same path, except these top-level entries, which belong to the project.
NOT_OVERLAY='^(workbench|patches|\.ci|build)/|^(README\.md|GNUmakefile|\.gitignore)$'

say() { printf '[%s] %s\n' "${WB_PHASE:-wb}" "$*"; }
die() { printf '[%s] error: %s\n' "${WB_PHASE:-wb}" "$*" >&2; exit 1; }

# The tree of a kind (ours or stock) and its variant ("" for the test config).
kind_tree() { echo "${1%%-*}"; }
kind_variant() {
	case "$1" in
	*-*) echo "${1#*-}" ;;
	esac
}

# Check a kind's name; dies on anything kconfig.sh would not know.
kind_check() {
	local w
	case "$(kind_tree "$1")" in
	ours|stock) ;;
	*) die "unknown kernel kind '$1' (ours or stock, then -VARIANT)" ;;
	esac
	for w in $(kind_variant "$1" | tr '-' ' '); do
		case "$w" in
		distro|debug) ;;
		*) die "unknown config variant '$w' in '$1' (distro, debug)" ;;
		esac
	done
}

# Committed baseline of a kind's variant.
kind_baseline() {
	local v
	v=$(kind_variant "$1")
	echo "$WB/baseline/$ARCH${v:+-$v}.results"
}

kind_src() {
	kind_check "$1"
	case "$(kind_tree "$1")" in
	ours) echo "$BUILD/ours/src" ;;
	stock) echo "$BASE_SRC" ;;
	esac
}
# The folder of a kind's builds and runs: build/KIND, or build/ARCH/KIND
# for another architecture than x86_64.
kind_dir() {
	if [ "$ARCH" = x86_64 ]; then
		echo "$BUILD/$1"
	else
		echo "$BUILD/$ARCH/$1"
	fi
}
# WB_OBJ: another O= folder (configs.sh writes configs there with kconfig.sh)
kind_obj() { echo "${WB_OBJ:-$(kind_dir "$1")/obj}"; }
kind_guest() { echo "$(kind_dir "$1")/guest"; }
kind_runs() { echo "$(kind_dir "$1")/runs"; }

# make in a kind's tree for its O= folder and the architecture: kmake KIND ARGS
kmake() {
	local k=$1
	shift
	make -C "$(kind_src "$k")" O="$(kind_obj "$k")" ARCH="$ARCH" \
		${CROSS:+CROSS_COMPILE=$CROSS} "$@"
}

# kernelrelease of a configured and built kind
kind_release() {
	kmake "$1" -s kernelrelease 2>/dev/null
}

# One kernel build at a time on this machine (both cores go to it): a
# second build waits until the first is done.  Held until the caller exits;
# it covers the preparation too, which rewrites the shared source tree.
build_lock() {
	mkdir -p "$BUILD"
	exec 9>"$BUILD/.build.lock"
	if ! flock -n 9; then
		say "waiting for another kernel build to finish"
		flock 9
	fi
}
