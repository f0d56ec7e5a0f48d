#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh KIND: build the guest image of a built kernel kind.
#
# Contents: busybox-static, dash as /bin/sh (so /proc/PID/maps names a
# shell the way it does on Debian), chrt and nice with glibc, the
# kernel's modules with modules.dep (so modprobe finds them by the names the
# tests use), upstream's ftracetest from the kind's tree (both kinds get our
# test.d cases laid over it), the workbench jobs, the wb-demo program and the
# wb_ops_demo module.  For arm64 the programs come from Debian's arm64
# packages (fetched once with apt-get download into build/arm64/debs and
# unpacked, never installed), their libraries from the cross toolchain's
# libc, and the guest programs are built with aarch64-linux-gnu-gcc.
. "$(dirname "$0")/common.sh"
WB_PHASE=initramfs
kind=${1:-ours}
src=$(kind_src "$kind")
obj=$(kind_obj "$kind")
guest=$(kind_guest "$kind")
root=$guest/root
release=$(kind_release "$kind")
[ -f "$obj/$KIMAGE" ] || die "$kind is not built"

# The arm64 programs: unpacked from Debian's arm64 packages.
foreign=
if [ "$ARCH" != x86_64 ]; then
	debs=$BUILD/$ARCH/debs
	foreign=$debs/root
	if [ ! -f "$foreign/.complete" ]; then
		say "fetching $ARCH busybox-static, dash, util-linux, coreutils (apt-get download)"
		dpkg --print-foreign-architectures | grep -qx "$ARCH" || {
			dpkg --add-architecture "$ARCH" && apt-get update -q >/dev/null
		} || die "cannot add the $ARCH architecture to apt"
		mkdir -p "$debs"
		(cd "$debs" && apt-get download -q busybox-static:$ARCH dash:$ARCH \
			util-linux:$ARCH coreutils:$ARCH >/dev/null 2>&1) ||
			die "cannot download the $ARCH packages"
		rm -rf "$foreign"
		mkdir -p "$foreign"
		for d in "$debs"/*.deb; do
			dpkg-deb -x "$d" "$foreign"
		done
		touch "$foreign/.complete"
	fi
	sysroot=/usr/${CROSS%-}
	[ -d "$sysroot/lib" ] || die "$sysroot missing (gcc-aarch64-linux-gnu)"
fi

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,root,opt,wb/share,wb/modules,lib/modules}

# busybox and its applets
bb=/bin/busybox
[ -x "$bb" ] || die "busybox-static is not installed"
cp "${foreign:+$foreign}$bb" "$root/bin/busybox"
"$bb" --list-full | while read -r app; do
	[ -e "$root/$app" ] || ln -s /bin/busybox "$root/$app"
done

# A few programs from the host, with the libraries they load, where busybox
# does not behave like a normal system: dash as /bin/sh (busybox's shell
# runs applets such as ping without exec, so sched_process_exec never fires
# for them; Debian's /bin/sh is dash), chrt and nice (no busybox applet).
copy_host_program() {
	local prog=$1 dest=$2 lib
	if [ -n "$foreign" ]; then
		copy_foreign_program "$@"
		return
	fi
	cp -L "$prog" "$root/$dest"
	ldd "$prog" | grep -oE '/[^ ]+' | while read -r lib; do
		mkdir -p "$root/$(dirname "$lib")"
		[ -e "$root/$lib" ] || cp -L "$lib" "$root/$lib"
	done
}
# The same program of another architecture: its libraries (NEEDED,
# recursively) from the cross toolchain's libc, put in /lib.
copy_foreign_program() {
	local prog=$1 dest=$2 lib todo
	[ -e "$foreign$prog" ] || prog=/bin/${prog##*/}
	cp -L "$foreign$prog" "$root/$dest"
	cp -L "$sysroot/lib/ld-linux-aarch64.so.1" "$root/lib/"
	todo=$(readelf -dW "$foreign$prog" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
	while [ -n "$todo" ]; do
		set -- $todo
		lib=$1
		shift
		todo=$*
		[ -e "$root/lib/$lib" ] && continue
		[ -e "$sysroot/lib/$lib" ] || die "$lib (for $prog) not in $sysroot/lib"
		cp -L "$sysroot/lib/$lib" "$root/lib/$lib"
		todo="$todo $(readelf -dW "$sysroot/lib/$lib" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')"
	done
}
copy_host_program /usr/bin/dash usr/bin/dash
ln -sf /usr/bin/dash "$root/bin/sh"
copy_host_program /usr/bin/chrt usr/bin/chrt
copy_host_program /usr/bin/nice usr/bin/nice
mkdir -p "$root/wb/bin"
copy_host_program /usr/bin/date wb/bin/date	# %N, for the bench job
# stress-ng (x86_64 only), for its uprobe stressor
[ -n "$foreign" ] || copy_host_program /usr/bin/stress-ng usr/bin/stress-ng
# trinity (x86_64 only), the system call fuzzer of the trinity job, and
# util-linux's setpriv, which starts it as uid 65534 (busybox's, in
# /bin, cannot change uids)
if [ -z "$foreign" ]; then
	copy_host_program /usr/bin/trinity usr/bin/trinity
	copy_host_program /usr/bin/setpriv usr/bin/setpriv
fi
cat > "$root/etc/passwd" <<'PW'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PW
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
echo wb-guest > "$root/etc/hostname"
: > "$root/etc/fstab"
ln -s /proc/mounts "$root/etc/mtab"

# modules, installed the way modprobe expects them
kmake "$kind" -s INSTALL_MOD_PATH="$root" \
	INSTALL_MOD_STRIP=1 modules_install > "$guest/modules_install.log" 2>&1 ||
	{ cat "$guest/modules_install.log"; die "modules_install failed"; }
rm -f "$root/lib/modules/$release/build" "$root/lib/modules/$release/source"

# the demo module, built out of tree against this kind
rm -rf "$guest/mod"
cp -r "$WB/guest/mod" "$guest/mod"
kmake "$kind" -s M="$guest/mod" modules \
	> "$guest/mod.log" 2>&1 || { cat "$guest/mod.log"; die "demo module build failed"; }
cp "$guest/mod/"*.ko "$root/wb/modules/"

# the demo program and the file offsets of its functions
"${CROSS}gcc" -O2 -g0 -static -fno-pie -no-pie -pthread -o "$root/usr/bin/wb-demo" "$WB/guest/src/wb-demo.c"
python3 "$WB/elf_offsets.py" "$root/usr/bin/wb-demo" 'wb_demo_' > "$root/wb/share/wb-demo.offsets"
"${CROSS}gcc" -O2 -g0 -static -o "$root/usr/bin/wb-perf-uprobe" "$WB/guest/src/wb-perf-uprobe.c"
"${CROSS}gcc" -O2 -g0 -static -o "$root/usr/bin/wb-perf-kprobe" "$WB/guest/src/wb-perf-kprobe.c"
# 1,000 distinct functions for uprobes in bulk, and their file offsets
"${CROSS}gcc" -O2 -g0 -static -fno-pie -no-pie -pthread -o "$root/usr/bin/wb-ufuncs" "$WB/guest/src/wb-ufuncs.c"
python3 "$WB/elf_offsets.py" "$root/usr/bin/wb-ufuncs" 'wb_uf_' > "$root/wb/share/wb-ufuncs.offsets"
# the attacks on the 5-byte-NOP uprobe path (x86_64: they use its slot code)
case "$ARCH" in
x86_64) "${CROSS}gcc" -O2 -g0 -static -fno-pie -no-pie -pthread -o "$root/usr/bin/wb-nop5-attack" "$WB/guest/src/wb-nop5-attack.c" ;;
esac
# the fuzzer and the inputs it once failed on (replayed by the test job)
"${CROSS}gcc" -O2 -g0 -static -o "$root/usr/bin/wb-fuzz" "$WB/guest/src/wb-fuzz.c"
# the fuzzer of the 5-byte-NOP uprobe path (x86_64: its sites are x86 code)
case "$ARCH" in
x86_64) "${CROSS}gcc" -O2 -g0 -static -fno-pie -no-pie -pthread -o "$root/usr/bin/wb-nop5-fuzz" "$WB/guest/src/wb-nop5-fuzz.c" ;;
esac
# with the kernel's BPF uapi (Debian's is older: no kprobe_multi link info)
"${CROSS}gcc" -O2 -g0 -static -pthread -I "$src/tools/include/uapi" -o "$root/usr/bin/wb-kmulti" "$WB/guest/src/wb-kmulti.c"
mkdir -p "$root/wb/share/fuzz"
cp "$WB"/fuzz/*.in "$root/wb/share/fuzz/" 2>/dev/null || true

# ftracetest, from the kind's tree.  The stock image gets our own cases
# too (only test scripts, never kernel code): they state behaviour users
# rely on, so the stock kernel is their reference and the baseline has them.
cp -r "$src/tools/testing/selftests/ftrace" "$root/opt/ftracetest"
if [ "$(kind_tree "$kind")" = stock ] && [ -d "$TOP/tools/testing/selftests/ftrace" ]; then
	cp -r "$TOP/tools/testing/selftests/ftrace/." "$root/opt/ftracetest/"
fi

# the quarantine list, for this kind: an entry names a tree (stock, ours)
# or a tree and variant (stock-distro)
grep -Ev '^[[:space:]]*(#|$)' "$WB/guest/quarantine.list" |
	awk -v k="$kind" -v t="$(kind_tree "$kind")" \
		'{ n = split($2, ks, ","); for (i = 1; i <= n; i++) if (ks[i] == k || ks[i] == t) print $1 }' \
	> "$root/wb/share/quarantine"

# init and jobs
cp "$WB/guest/init" "$root/init"
cp -r "$WB/guest/jobs" "$root/wb/jobs"
chmod +x "$root/init" "$root/wb/jobs/"*.sh

# The distro variants' extra suites (run after ftracetest by the test job):
# upstream's livepatch selftests with their modules built for this kernel,
# and the bpftrace cases.  Both run host programs from the 9p share.
case "-$(kind_variant "$kind")-" in
*-distro-*)
	mkdir -p "$root/wb/suites"
	cp "$WB/guest/suites/"*.sh "$root/wb/suites/"
	lpsrc=$src/tools/testing/selftests/livepatch
	rm -rf "$guest/livepatch"
	cp -r "$lpsrc" "$guest/livepatch"
	kmake "$kind" -s M="$guest/livepatch/test_modules" modules \
		> "$guest/livepatch.log" 2>&1 ||
		{ cat "$guest/livepatch.log"; die "livepatch test modules do not build"; }
	mkdir -p "$root/opt/livepatch/test_modules"
	cp "$lpsrc"/*.sh "$lpsrc/settings" "$root/opt/livepatch/"
	cp "$guest/livepatch/test_modules/"*.ko "$root/opt/livepatch/test_modules/"
	gcc -O2 -static -o "$root/opt/livepatch/test_klp-call_getpid" \
		"$lpsrc/test_klp-call_getpid.c"
	;;
esac

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
	gzip -1 > "$guest/initramfs.cpio.gz"
say "$kind: $(du -h "$guest/initramfs.cpio.gz" | cut -f1) image for $release"
