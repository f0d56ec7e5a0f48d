#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# configs.sh [NAME...]: compile the series under the configs build bots try.
#
# Each config gets its own O= folder in build/configs/NAME (kept, so a
# re-run is incremental) and compiles, with W=1, the directories where our
# code and its callers live: kernel/trace/, kernel/livepatch/, kernel/bpf/,
# the kprobes core's objects the config builds (kernel/kprobes*.o,
# kernel/kretprobes*.o) and the architecture's kernel/ directory.  The small
# configs (tiny*) link a whole vmlinux, which also catches a missing symbol.
# A config fails on any compiler error, or on any warning in a file of ours
# (the overlay files; patched upstream files are held to the same rule only
# in the lines our patches touch, which the full builds cover).
#
#   test        the workbench's test config (kconfig.sh ours)
#   distro      the distro config (kconfig.sh ours-distro)
#   allmod      allmodconfig (less WERROR: upstream's files warn under W=1)
#   tiny        tinyconfig + FUNCTION_TRACER (dynamic ftrace, no graph)
#   nodyn       the test config without DYNAMIC_FTRACE
#   nograph     the test config without FUNCTION_GRAPH_TRACER
#   nokprobes   the test config without KPROBES
#   arm64       arm64 defconfig + the tracing options (aarch64-linux-gnu-)
#   noperf      arm64 without PERF_EVENTS (x86 always selects it)
#
# The summary prints one line per config and "N passed, N failed".
. "$(dirname "$0")/common.sh"
WB_PHASE=configs
build_lock
all=(test distro allmod tiny nodyn nograph nokprobes arm64 noperf)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")
src=$(kind_src ours)
"$WB/prepare.sh" ours >/dev/null
root=$BUILD/configs
mkdir -p "$root"
if printf '%s\n' "${names[@]}" | grep -qx arm64 &&
	! command -v aarch64-linux-gnu-gcc >/dev/null; then
	say "installing gcc-aarch64-linux-gnu (for the arm64 config)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		gcc-aarch64-linux-gnu libc6-dev-arm64-cross >/dev/null ||
		die "cannot install gcc-aarch64-linux-gnu"
fi

cc=()
if command -v ccache >/dev/null && [ "${WB_CCACHE:-1}" = 1 ]; then
	export CCACHE_BASEDIR=$BUILD
	cc=(ccache)
fi

# Our files, as paths in the kernel tree (for the warning filter).
ours_list=$root/ours.files
(cd "$TOP" && git ls-files -co --exclude-standard) |
	grep -Ev "$NOT_OVERLAY" | grep -E '\.(c|h|S)$' > "$ours_list"

# Options changed on a written .config, then checked: NAME=y|n.
set_opts() {
	local obj=$1 a=$2 o v
	shift 2
	for o in "$@"; do
		v=${o#*=}
		o=${o%%=*}
		if [ "$v" = n ]; then
			"$src/scripts/config" --file "$obj/.config" --disable "$o"
		else
			"$src/scripts/config" --file "$obj/.config" --set-val "$o" "$v"
		fi
	done
	make -s -C "$src" O="$obj" ARCH="$a" olddefconfig >/dev/null
	for o in "$@"; do
		v=${o#*=}
		o=${o%%=*}
		if [ "$v" = n ]; then
			! grep -q "^CONFIG_$o=" "$obj/.config" ||
				{ say "$(basename "$obj"): CONFIG_$o is still set" >&2; return 1; }
		else
			grep -qx "CONFIG_$o=$v" "$obj/.config" ||
				{ say "$(basename "$obj"): CONFIG_$o did not come out as $v" >&2; return 1; }
		fi
	done
}

# Is CONFIG_$2 built in (y) in the .config of folder $1?
has_opt() {
	grep -q "^CONFIG_$2=y" "$1/.config"
}

# Write build/configs/NAME/.config; print "ARCH CROSS TARGETS...".
make_config() {
	local name=$1 obj=$root/$1 a=x86_64 cross= base
	local -a targets=(kernel/trace/ kernel/livepatch/ kernel/bpf/ arch/x86/kernel/)
	mkdir -p "$obj"
	case "$name" in
	test|nodyn|nograph|nokprobes)
		WB_OBJ=$obj "$WB/kconfig.sh" ours >&2 || return 1
		case "$name" in
		nodyn) set_opts "$obj" $a DYNAMIC_FTRACE=n ;;
		nograph) set_opts "$obj" $a FUNCTION_GRAPH_TRACER=n ;;
		nokprobes) set_opts "$obj" $a KPROBES=n ;;
		esac || return 1 ;;
	distro)
		WB_OBJ=$obj "$WB/kconfig.sh" ours-distro >&2 || return 1 ;;
	allmod)
		# WERROR off: under W=1 upstream's own files warn (our files
		# are still held to no warning by the filter below)
		make -s -C "$src" O="$obj" ARCH=$a allmodconfig >/dev/null || return 1
		set_opts "$obj" $a WERROR=n || return 1 ;;
	tiny)
		make -s -C "$src" O="$obj" ARCH=$a tinyconfig >/dev/null || return 1
		set_opts "$obj" $a 64BIT=y FTRACE=y FUNCTION_TRACER=y DYNAMIC_FTRACE=y || return 1
		targets=(vmlinux) ;;
	arm64|noperf)
		a=arm64
		cross=aarch64-linux-gnu-
		make -s -C "$src" O="$obj" ARCH=$a CROSS_COMPILE=$cross defconfig >/dev/null || return 1
		set_opts "$obj" $a FTRACE=y FUNCTION_TRACER=y DYNAMIC_FTRACE=y \
			FUNCTION_GRAPH_TRACER=y FPROBE=y KPROBES=y KPROBE_EVENTS=y \
			UPROBES=y UPROBE_EVENTS=y FPROBE_EVENTS=y \
			DYNAMIC_FTRACE_WITH_DIRECT_CALLS=y || return 1
		if [ "$name" = noperf ]; then
			# CoreSight (in arm64's defconfig) selects PERF_EVENTS
			set_opts "$obj" $a CORESIGHT=n PERF_EVENTS=n || return 1
		fi
		targets=(kernel/trace/ arch/arm64/kernel/) ;;
	*)
		say "unknown config '$name' (one of: ${all[*]})" >&2
		return 1 ;;
	esac
	# The kprobes core's objects, each only where the config builds it
	# (tiny builds all of vmlinux anyway)
	if [ "$name" != tiny ] && has_opt "$obj" KPROBES; then
		targets+=(kernel/kprobes.o kernel/kprobes_hit.o kernel/kprobes_table.o
			  kernel/kprobes_insn_slot.o kernel/kprobes_blacklist.o
			  kernel/kprobes_addr.o kernel/kprobes_arm.o)
		has_opt "$obj" OPTPROBES && targets+=(kernel/kprobes_opt.o)
		has_opt "$obj" DEBUG_FS && targets+=(kernel/kprobes_debugfs.o)
		if has_opt "$obj" KRETPROBES; then
			targets+=(kernel/kretprobes.o)
			if has_opt "$obj" KRETPROBE_ON_FGRAPH; then
				targets+=(kernel/kretprobes_fgraph.o)
			elif has_opt "$obj" KRETPROBE_ON_RETHOOK; then
				targets+=(kernel/kretprobes_rethook.o)
			else
				targets+=(kernel/kretprobes_tasklist.o)
			fi
		fi
	fi
	echo "$a ${cross:--} ${targets[*]}"
}

pass=0
fail=0
summary=()
for name in "${names[@]}"; do
	start=$(date +%s)
	obj=$root/$name
	log=$obj/build.log
	say "$name: writing the config"
	if ! spec=$(make_config "$name"); then
		summary+=("FAIL $name: config")
		fail=$((fail + 1))
		continue
	fi
	read -r a cross targets <<< "$spec"
	[ "$cross" != - ] || cross=
	ccv=${cross}gcc
	[ ${#cc[@]} = 0 ] || ccv="ccache ${cross}gcc"
	say "$name: make W=1 $targets (log: ${log#"$TOP"/})"
	rc=0
	# shellcheck disable=SC2086
	make -C "$src" O="$obj" ARCH="$a" ${cross:+CROSS_COMPILE=$cross} \
		CC="$ccv" W=1 -j"$JOBS" $targets > "$log" 2>&1 || rc=$?
	# warnings (and errors) in files of ours
	ourwarn=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$log" |
		sed -E 's@^(\.\./)+@@; s@^'"$src"'/@@' |
		grep -F -f <(sed 's/$/:/' "$ours_list") | sort -u || true)
	took=$(($(date +%s) - start))
	if [ $rc != 0 ]; then
		grep -E 'error|Error' "$log" | head -n 20 >&2
		summary+=("FAIL $name: build failed (${took}s, $log)")
		fail=$((fail + 1))
	elif [ -n "$ourwarn" ]; then
		printf '%s\n' "$ourwarn" | head -n 20 >&2
		summary+=("FAIL $name: $(printf '%s\n' "$ourwarn" | wc -l) W=1 warnings in our files (${took}s)")
		fail=$((fail + 1))
	else
		summary+=("PASS $name (${took}s, $(grep -c ': warning:' "$log" || true) warnings outside our files)")
		pass=$((pass + 1))
	fi
	say "${summary[-1]}"
done
say "summary:"
printf '  %s\n' "${summary[@]}"
echo "configs: $pass passed, $fail failed"
[ $fail = 0 ]
