#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# prepare.sh [ours|stock]: make the source tree of a kernel kind.
#
# stock: the pristine base, unpacked once from Debian's tarball.
# ours:  a copy of the base with our files laid over it and patches/series
#        applied.  The copy is kept between runs and only files whose content
#        changes are rewritten, so an edit to one file rebuilds only what
#        depends on it.  Files that stop being ours return to the base text.
. "$(dirname "$0")/common.sh"
WB_PHASE=prepare
kind=${1:-ours}

unpack_base() {
	[ -f "$BASE_SRC/.wb-complete" ] && return 0
	[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL missing (run workbench/deps.sh)"
	say "unpacking $(basename "$BASE_TARBALL") into $BASE_SRC"
	rm -rf "$BASE_SRC" "$BUILD/unpack.tmp"
	mkdir -p "$BUILD/unpack.tmp" "$(dirname "$BASE_SRC")"
	tar -xJf "$BASE_TARBALL" -C "$BUILD/unpack.tmp"
	mv "$BUILD/unpack.tmp/linux-source-6.12" "$BASE_SRC"
	rmdir "$BUILD/unpack.tmp"
	make -s -C "$BASE_SRC" kernelversion > "$BASE_SRC/.wb-kernelversion"
	touch "$BASE_SRC/.wb-complete"
}

# Print the paths our overlay provides, one a line, relative to TOP.
# WB_OVERLAY_EXCLUDE (an extended regex) leaves matching paths out: for a
# build while someone still writes files that are not ready.
overlay_files() {
	(cd "$TOP" && git ls-files -co --exclude-standard) |
		grep -Ev "$NOT_OVERLAY" |
		grep -Ev "${WB_OVERLAY_EXCLUDE:-^$}" | sort -u || true
}

# Paths touched by the patches in patches/series.
patched_files() {
	local p
	[ -f "$TOP/patches/series" ] || return 0
	grep -Ev '^[[:space:]]*(#|$)' "$TOP/patches/series" | while read -r p; do
		[ -f "$TOP/patches/$p" ] || die "patches/series names missing $p"
		sed -n -E 's@^(\+\+\+|---) [ab]/([^[:space:]]+).*@\2@p' "$TOP/patches/$p"
	done | sort -u
}

prepare_ours() {
	local src=$BUILD/ours/src stage=$BUILD/ours/stage manifest f p
	manifest=$src/.wb-manifest
	if [ ! -f "$src/.wb-complete" ]; then
		say "copying the base tree to $src"
		rm -rf "$src"
		mkdir -p "$(dirname "$src")"
		cp -a "$BASE_SRC" "$src"
		rm -f "$src/.wb-complete" "$src/.wb-manifest"
		touch "$src/.wb-complete"
	fi

	# Build the wanted text of every file we touch in a staging folder.
	rm -rf "$stage"
	mkdir -p "$stage"
	overlay_files > "$stage.ours"
	{ cat "$stage.ours"; patched_files; } | sort -u > "$stage.list"
	while read -r f; do
		mkdir -p "$stage/$(dirname "$f")"
		if grep -qxF "$f" "$stage.ours"; then
			cp -p "$TOP/$f" "$stage/$f"
		elif [ -e "$BASE_SRC/$f" ]; then
			cp -p "$BASE_SRC/$f" "$stage/$f"
		fi
	done < "$stage.list"
	if [ -f "$TOP/patches/series" ]; then
		grep -Ev '^[[:space:]]*(#|$)' "$TOP/patches/series" | while read -r p; do
			patch -s -p1 -d "$stage" --no-backup-if-mismatch -r - \
				< "$TOP/patches/$p" || die "patch $p does not apply"
		done
	fi

	# Sync: rewrite only files whose content differs.
	local changed=0
	while read -r f; do
		if [ -e "$stage/$f" ]; then
			if ! cmp -s "$stage/$f" "$src/$f"; then
				mkdir -p "$src/$(dirname "$f")"
				cp "$stage/$f" "$src/$f"
				chmod --reference="$stage/$f" "$src/$f"
				changed=$((changed + 1))
			fi
		elif [ -e "$src/$f" ]; then
			rm -f "$src/$f"	# deleted by a patch
			changed=$((changed + 1))
		fi
	done < "$stage.list"

	# Files that were ours last time but are not now: back to the base.
	if [ -f "$manifest" ]; then
		comm -23 "$manifest" "$stage.list" | while read -r f; do
			if [ -e "$BASE_SRC/$f" ]; then
				# a fresh mtime, so that make rebuilds what used our version
				cmp -s "$BASE_SRC/$f" "$src/$f" || cp "$BASE_SRC/$f" "$src/$f"
			else
				rm -f "$src/$f"
			fi
			say "restored $f"
		done
	fi
	cp "$stage.list" "$manifest"
	rm -rf "$stage" "$stage.list" "$stage.ours"
	say "ours: $(wc -l < "$manifest") files overlaid or patched, $changed rewritten"
}

mkdir -p "$BUILD"
unpack_base
have=$(cat "$BASE_SRC/.wb-kernelversion")
want=$(cat "$WB/base-version")
if [ "$have" = "$want" ]; then
	say "base version $have"
else
	say "WARNING: the base is $have but the project is on $want (workbench/base-version);"
	say "WARNING: Debian's linux-source-6.12 moved.  Patches may not apply and the"
	say "WARNING: committed baseline is of $want: re-run 'make baseline' and review."
fi
kind_check "$kind"
case "$(kind_tree "$kind")" in
stock) ;;
ours) prepare_ours ;;
esac
