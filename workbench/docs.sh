#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# docs.sh: check our documentation.  Every .rst file of ours under
# Documentation/ builds with Sphinx (Debian's python3-sphinx, the system
# Python) with warnings as errors, and scripts/kernel-doc of the base tree
# finds nothing to say (-Wall) about the comments of our C files and
# headers.  Prints what it checks; exits non-zero on the first complaint
# of either.
. "$(dirname "$0")/common.sh"
WB_PHASE=docs
cd "$TOP" || exit 1
src=$(kind_src stock)
[ -f "$src/scripts/kernel-doc" ] || "$WB/prepare.sh" stock

rc=0
mapfile -t rsts < <(git ls-files 'Documentation/*.rst')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
	echo "Our documentation"
	echo "================="
	echo
	echo ".. toctree::"
	echo
	for f in "${rsts[@]}"; do
		echo "   ${f%.rst}"
	done
} > "$tmp/index.rst"
for f in "${rsts[@]}"; do
	mkdir -p "$tmp/$(dirname "$f")"
	cp "$f" "$tmp/$f"
done
: > "$tmp/conf.py"
say "sphinx: ${#rsts[@]} files (${rsts[*]})"
if ! /usr/bin/python3 -m sphinx -b html -q -W -N "$tmp" "$tmp/_build" > "$tmp/sphinx.log" 2>&1; then
	sed 's/^/[docs] /' "$tmp/sphinx.log"
	say "sphinx: FAILED"
	rc=1
else
	say "sphinx: 0 warnings"
fi

mapfile -t cfiles < <(git ls-files 'kernel/*.c' 'kernel/*.h' 'arch/*.c' 'arch/*.h' 'include/*.h' 'samples/*.c')
"$src/scripts/kernel-doc" -none -Wall "${cfiles[@]}" > "$tmp/kdoc.log" 2>&1
if [ -s "$tmp/kdoc.log" ]; then
	sed 's/^/[docs] /' "$tmp/kdoc.log"
	say "kernel-doc: FAILED ($(wc -l < "$tmp/kdoc.log") lines)"
	rc=1
else
	say "kernel-doc: ${#cfiles[@]} files, nothing to report"
fi
exit $rc
