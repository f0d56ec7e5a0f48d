#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# rebase.sh [BASELINE...]: move the project onto the linux-source-6.12
# that Debian serves now, as one routine step.
#
#   1. upgrade the package (best effort: without the archive, the one
#      installed is the target);
#   2. unpack it again if its version is not the unpacked base's (the
#      trees of ours are copied afresh from it by the next prepare);
#   3. lay our files and patches over it: every patch must apply, and
#      both kinds must build (x86_64 test config);
#   4. write the version to workbench/base-version;
#   5. re-run the stock baseline of each BASELINE named (x86_64, arm64,
#      debug, distro; default x86_64) and print, per baseline, the cases
#      whose status changed, so that the commit says what the new base
#      changed.
#
# Steps 1-4 take a few minutes; each baseline is a whole 'make baseline'
# (x86_64 about 15 minutes, debug about an hour under TCG).  Nothing is
# committed: review the diff of workbench/ and commit it.
. "$(dirname "$0")/common.sh"
WB_PHASE=rebase

baselines=("$@")
[ ${#baselines[@]} = 0 ] && baselines=(x86_64)
for b in "${baselines[@]}"; do
	case "$b" in
	x86_64|arm64|debug|distro) ;;
	*) die "unknown baseline '$b' (x86_64, arm64, debug, distro)" ;;
	esac
done

old=$(cat "$WB/base-version")
if [ "$(id -u)" = 0 ]; then
	say "upgrading linux-source-6.12 (best effort)"
	DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null 2>&1 ||
		say "apt-get update failed: keeping the installed package"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --only-upgrade \
		linux-source-6.12 >/dev/null 2>&1 ||
		say "upgrade failed: keeping the installed package"
fi
pkg=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
	die "linux-source-6.12 is not installed (run workbench/deps.sh)"
new=${pkg%%-*}
say "Debian serves linux-source-6.12 $pkg: base $new (project on $old)"

if [ -f "$BASE_SRC/.wb-kernelversion" ] &&
   [ "$(cat "$BASE_SRC/.wb-kernelversion")" != "$new" ]; then
	say "the unpacked base is $(cat "$BASE_SRC/.wb-kernelversion"): unpacking $new"
	rm -f "$BASE_SRC/.wb-complete" "$BUILD/ours/src/.wb-complete" \
		"$BUILD"/ours-*/src/.wb-complete
fi

# The base's own version is what the kernel's Makefile says, not the
# package's: let the unpack settle it.
echo "$new" > "$WB/base-version"
"$WB/prepare.sh" stock
have=$(cat "$BASE_SRC/.wb-kernelversion")
if [ "$have" != "$new" ]; then
	say "the package's tree says $have: using that"
	new=$have
	echo "$new" > "$WB/base-version"
fi
"$WB/build.sh" stock
"$WB/build.sh" ours
say "base-version: $old -> $new; patches apply, both kinds build"

for b in "${baselines[@]}"; do
	case "$b" in
	x86_64) arch=x86_64 kind=stock file=x86_64 ;;
	arm64) arch=arm64 kind=stock file=arm64 ;;
	debug) arch=x86_64 kind=stock-debug file=x86_64-debug ;;
	distro) arch=x86_64 kind=stock-distro file=x86_64-distro ;;
	esac
	file=$WB/baseline/$file.results
	before=$(mktemp)
	cp "$file" "$before" 2>/dev/null || : > "$before"
	say "baseline $b: $kind on $arch (${file#"$TOP"/})"
	WB_ARCH=$arch WB_BASELINE_WRITE=1 "$WB/test.sh" "$kind" ||
		say "baseline $b: the run failed; its results are in ${file#"$TOP"/} as far as it got"
	# What the new base changed: every case whose status line differs.
	diff <(grep -Ev '^#' "$before" | sort) <(grep -Ev '^#' "$file" | sort) |
		sed -n 's/^</  was: /p; s/^>/  now: /p' > "$before.diff" || true
	if [ -s "$before.diff" ]; then
		say "baseline $b: $(grep -c '^  now' "$before.diff") lines changed:"
		cat "$before.diff"
	else
		say "baseline $b: no case changed status"
	fi
	rm -f "$before" "$before.diff"
done
say "done: review 'git diff workbench/' and commit the new base"
