#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# kconfig.sh KIND: write the kernel config of a kind into its O= folder.
#
# allnoconfig + qemu-x86_64.config + upstream's ftracetest fragment (less
# the options in omitted.list) + tests.config.  Both kinds get the same
# fragments, read from the stock tree so the config cannot drift between
# them; ours.config adds, to our kind only, the options that exist only in
# our tree (our own test suites).  .config is replaced only when its text changes, so a re-run does
# not trigger a rebuild.  Every option asked for must end up set as asked:
# a silently dropped option fails here, naming it.
. "$(dirname "$0")/common.sh"
WB_PHASE=config
kind=${1:-ours}
src=$(kind_src "$kind")
obj=$(kind_obj "$kind")
mkdir -p "$obj"
tmp=$obj/.wb-config
rm -rf "$tmp"
mkdir -p "$tmp"

omit=$(grep -Ev '^[[:space:]]*(#|$)' "$WB/config/omitted.list" | awk '{print $1}')
grep -Ev '^[[:space:]]*(#|$)' "$BASE_SRC/tools/testing/selftests/ftrace/config" |
	while IFS= read -r line; do
		opt=${line%%=*}
		printf '%s\n' "$omit" | grep -qxF "$opt" || printf '%s\n' "$line"
	done > "$tmp/upstream.config"
extra=()
[ "$kind" = ours ] && extra=("$WB/config/ours.config")
cat "$WB/config/qemu-x86_64.config" "$tmp/upstream.config" \
	"$WB/config/tests.config" "${extra[@]}" > "$tmp/all.config"

(cd "$src" && KCONFIG_ALLCONFIG="$tmp/all.config" \
	make -s O="$tmp/obj" ARCH=x86_64 allnoconfig) > "$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; die "allnoconfig failed"; }

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
done < <(grep -v '^# SPDX' "$tmp/all.config" | grep -E '^(CONFIG_|# CONFIG_)')
[ $bad = 0 ] || die "config fragments do not hold"

if cmp -s "$tmp/obj/.config" "$obj/.config"; then
	say "$kind: .config unchanged"
else
	cp "$tmp/obj/.config" "$obj/.config"
	say "$kind: .config written ($(grep -c '=[ym]' "$obj/.config") options set)"
fi
rm -rf "$tmp"
