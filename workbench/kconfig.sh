#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# kconfig.sh KIND: write the kernel config of a kind into its O= folder.
#
# The test config (kinds "ours", "stock"): allnoconfig + qemu-ARCH.config
# + upstream's ftracetest fragment (less the options in omitted.list) +
# tests.config.
# The distro config (variant "distro"): alldefconfig + x86_64_defconfig +
# distro.config + upstream's whole ftracetest fragment + tests.config: what a
# distribution kernel enables around the tracing stack (BPF, BTF,
# livepatch, error injection), on the kernel's own default config.
# The debug flavour (variant "debug", or "distro-debug"): debug.config on
# top of either (lockdep, KASAN, UBSAN, DEBUG_OBJECTS, KMEMLEAK, ...).
#
# Both trees get the same fragments, read from the stock tree so the config
# cannot drift between them; ours.config adds, to our tree only, the options
# that exist only in our tree (our own test suites).  .config is replaced
# only when its text changes, so a re-run does not trigger a rebuild.  Every
# option asked for must end up set as asked: a silently dropped option fails
# here, naming it.
. "$(dirname "$0")/common.sh"
WB_PHASE=config
kind=${1:-ours}
src=$(kind_src "$kind")
obj=$(kind_obj "$kind")
mkdir -p "$obj"
tmp=$obj/.wb-config
rm -rf "$tmp"
mkdir -p "$tmp"

variant=$(kind_variant "$kind")
distro=0
debug=0
for w in $(echo "$variant" | tr '-' ' '); do
	case "$w" in
	distro) distro=1 ;;
	debug) debug=1 ;;
	esac
done

# Upstream's ftracetest fragment and tests.config, less the options
# omitted.list leaves out of this config (scope "all"; "test" or "distro"
# for one config; "arm64" for one architecture, "arm64-stock" for the stock
# tree on it).
scope=test
[ $distro = 0 ] || scope=distro
omit=$(grep -Ev '^[[:space:]]*(#|$)' "$WB/config/omitted.list" |
	awk -v s=$scope -v a="$ARCH" -v t="$(kind_tree "$kind")" \
		'$2 == "all" || $2 == s || $2 == a || $2 == a "-" t { print $1 }')
less_omitted() {
	grep -E '^(CONFIG_|# CONFIG_)' "$1" |
		while IFS= read -r line; do
			opt=${line%%=*}
			opt=${opt#\# }
			opt=${opt%% *}
			printf '%s\n' "$omit" | grep -qxF "$opt" || printf '%s\n' "$line"
		done
}
less_omitted "$BASE_SRC/tools/testing/selftests/ftrace/config" > "$tmp/upstream.config"
less_omitted "$WB/config/tests.config" > "$tmp/tests.config"
frags=()
if [ $distro = 1 ]; then
	[ "$ARCH" = x86_64 ] || die "the distro config is x86_64 only"
	base=alldefconfig
	frags+=("$BASE_SRC/arch/x86/configs/x86_64_defconfig" "$WB/config/distro.config")
else
	base=allnoconfig
	frags+=("$WB/config/qemu-$ARCH.config")
fi
frags+=("$tmp/upstream.config" "$tmp/tests.config")
[ $distro = 1 ] && frags+=("$WB/config/distro-tests.config")
[ $debug = 1 ] && frags+=("$WB/config/debug.config")
if [ "$(kind_tree "$kind")" = ours ]; then
	less_omitted "$WB/config/ours.config" > "$tmp/ours.config"
	frags+=("$tmp/ours.config")
fi
cat "${frags[@]}" > "$tmp/all.config"
# What must hold: the last word of the fragments on each option (a later
# fragment may change an earlier one's), the defconfig's excepted.
check=("${frags[@]}")
[ $distro = 1 ] && check=("${frags[@]:1}")
grep -hv '^# SPDX' "${check[@]}" | grep -E '^(CONFIG_|# CONFIG_)' |
	awk '{ o = $0; sub(/^# /, "", o); sub(/[= ].*/, "", o); last[o] = $0; order[NR] = o }
	     END { for (i = 1; i <= NR; i++) if (!(order[i] in done)) { done[order[i]] = 1; print last[order[i]] } }' \
	> "$tmp/check.config"

(cd "$src" && KCONFIG_ALLCONFIG="$tmp/all.config" \
	make -s O="$tmp/obj" ARCH="$ARCH" ${CROSS:+CROSS_COMPILE=$CROSS} "$base") > "$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; die "$base failed"; }

# Check that every requested option came out as requested.
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		opt=${line%%=*}
		grep -qxF "$line" "$tmp/obj/.config" || {
			say "not set as asked: $line (got: $(grep -E "^(# )?$opt[= ]" "$tmp/obj/.config" || echo absent))"
			bad=1
		} ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		grep -q "^$opt=" "$tmp/obj/.config" && { say "should be off: $opt"; bad=1; } ;;
	esac
done < "$tmp/check.config"
[ $bad = 0 ] || die "config fragments do not hold"

if cmp -s "$tmp/obj/.config" "$obj/.config"; then
	say "$kind: .config unchanged"
else
	cp "$tmp/obj/.config" "$obj/.config"
	say "$kind: .config written ($(grep -c '=[ym]' "$obj/.config") options set)"
fi
rm -rf "$tmp"
