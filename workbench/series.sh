#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# series.sh: export our work as a git format-patch series against the base.
#
# workbench/series.list says which overlay paths and which files of patches/
# make each patch, in order.  Every overlay file and every entry of
# patches/series must belong to exactly one patch.  The series is written to
# build/series/out with a cover letter; each patch is run through the base
# tree's checkpatch.pl --strict; then the series is applied with git am to
# a fresh checkout of the base and the resulting tree is compared with the
# tree that 'make test' builds.
. "$(dirname "$0")/common.sh"
WB_PHASE=series
"$WB/prepare.sh" ours >/dev/null
S=$BUILD/series
tree=$S/tree
out=$S/out
list=$WB/series.list
ident=(-c user.name="${WB_SERIES_NAME:-Tracing Rework Team}"
	-c user.email="${WB_SERIES_EMAIL:-tracing-rework@example.org}")

# A git repository of the base, made once.
if [ ! -f "$S/.base-ready" ]; then
	say "making a git repository of the base (once; about a minute)"
	rm -rf "$S"
	mkdir -p "$S"
	cp -a "$BASE_SRC" "$tree"
	rm -f "$tree"/.wb-*
	git -C "$tree" init -q -b base
	git -C "$tree" add -A -f
	git "${ident[@]}" -C "$tree" commit -q -m "Linux $(cat "$BASE_SRC/.wb-kernelversion") (Debian linux-source-6.12)"
	touch "$S/.base-ready"
fi
git -C "$tree" checkout -q -f -B series base
git -C "$tree" clean -fdqx

# Parse series.list into numbered blocks.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$list" "$work" <<'PY'
import sys, os
src, work = sys.argv[1], sys.argv[2]
n = 0
cur = None
for raw in open(src):
    line = raw.rstrip('\n')
    if line.startswith('#') or not line.strip():
        if cur is not None and not line.strip():
            cur['body'].append('')
        continue
    if line.startswith('patch: '):
        n += 1
        cur = {'subject': line[7:].strip(), 'body': [], 'paths': [], 'diffs': []}
        blocks = globals().setdefault('blocks', [])
        blocks.append(cur)
    elif line.startswith('paths:'):
        cur['paths'] += line[6:].split()
    elif line.startswith('diffs:'):
        cur['diffs'] += line[6:].split()
    elif line.startswith('  '):
        cur['body'].append(line[2:])
    else:
        sys.exit(f'series.list: cannot read line: {line}')
for i, b in enumerate(globals().get('blocks', []), 1):
    d = os.path.join(work, f'{i:03d}')
    os.makedirs(d)
    body = '\n'.join(b['body']).strip('\n')
    open(os.path.join(d, 'msg'), 'w').write(b['subject'] + '\n\n' + body + '\n')
    open(os.path.join(d, 'paths'), 'w').write('\n'.join(b['paths']) + '\n')
    open(os.path.join(d, 'diffs'), 'w').write('\n'.join(b['diffs']) + '\n')
PY

(cd "$TOP" && git ls-files -co --exclude-standard) | grep -Ev "$NOT_OVERLAY" |
	sort -u > "$work/overlay"
grep -Ev '^[[:space:]]*(#|$)' "$TOP/patches/series" 2>/dev/null | sort -u > "$work/diffs" || true
: > "$work/claimed"
: > "$work/claimed-diffs"
for d in "$work"/[0-9]*; do
	while read -r glob; do
		[ -n "$glob" ] || continue
		# shellcheck disable=SC2053
		while read -r f; do if [[ $f == $glob ]]; then echo "$f"; fi; done < "$work/overlay"
	done < "$d/paths" | sort -u > "$d/files"
	cat "$d/files" >> "$work/claimed"
	grep -v '^$' "$d/diffs" >> "$work/claimed-diffs" || true
done
dup=$(sort "$work/claimed" | uniq -d)
[ -z "$dup" ] || die "in more than one patch of series.list: $dup"
missing=$(comm -23 "$work/overlay" <(sort -u "$work/claimed"))
[ -z "$missing" ] || die "overlay files that no patch of series.list claims:
$missing"
missing=$(comm -23 "$work/diffs" <(sort -u "$work/claimed-diffs"))
[ -z "$missing" ] || die "patches/ entries that no patch of series.list claims:
$missing"

n=0
for d in "$work"/[0-9]*; do
	while read -r f; do
		mkdir -p "$tree/$(dirname "$f")"
		cp "$TOP/$f" "$tree/$f"
	done < "$d/files"
	while read -r p; do
		[ -n "$p" ] || continue
		git -C "$tree" apply --whitespace=nowarn "$TOP/patches/$p" ||
			die "patches/$p does not apply in series order"
	done < "$d/diffs"
	git -C "$tree" add -A -f
	git -C "$tree" diff --cached --quiet && die "patch '$(head -n1 "$d/msg")' is empty"
	git "${ident[@]}" -C "$tree" commit -q -s -F "$d/msg"
	n=$((n + 1))
done
[ $n -gt 0 ] || die "series.list names no patch"

# The series' tree must be the tree that make test builds.
while read -r f; do
	if [ -e "$BUILD/ours/src/$f" ]; then
		cmp -s "$BUILD/ours/src/$f" "$tree/$f" || die "series differs from the prepared tree at $f"
	else
		[ ! -e "$tree/$f" ] || die "series has $f, the prepared tree does not"
	fi
done < "$BUILD/ours/src/.wb-manifest"

rm -rf "$out"
git "${ident[@]}" -C "$tree" format-patch -q --cover-letter --thread -o "$out" base..series
cover=$(ls "$out"/0000-*.patch)
python3 - "$cover" "$WB/series.cover" "$(cat "$BASE_SRC/.wb-kernelversion")" <<'PY'
import sys
path, coverfile, ver = sys.argv[1:4]
text = open(path).read()
lines = open(coverfile).read().split('\n')
lines = [l for l in lines if not l.startswith('#')]
subject = lines[0].strip()
blurb = '\n'.join(lines[1:]).strip().replace('@BASE@', ver)
text = text.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***', blurb)
open(path, 'w').write(text)
PY
say "$n patches + cover letter in ${out#"$TOP"/}"

# checkpatch, from the base tree
tot_e=0 tot_w=0 tot_c=0
patches=$(ls "$out"/*.patch | grep -v '/0000-')
for p in $patches; do
	r=$(cd "$tree" && perl scripts/checkpatch.pl --strict --no-color --show-types "$p" 2>&1 || true)
	echo "$r" > "${p%.patch}.checkpatch"
	sum=$(echo "$r" | grep -E '^total:' | tail -n 1)
	e=$(echo "$sum" | sed -n 's/total: \([0-9]*\) errors.*/\1/p')
	w=$(echo "$sum" | sed -n 's/.* \([0-9]*\) warnings.*/\1/p')
	c=$(echo "$sum" | sed -n 's/.* \([0-9]*\) checks.*/\1/p')
	tot_e=$((tot_e + ${e:-0})) tot_w=$((tot_w + ${w:-0})) tot_c=$((tot_c + ${c:-0}))
	say "checkpatch $(basename "$p"): ${sum:-no summary}"
	echo "$r" | grep -E '^(ERROR|WARNING|CHECK):' | sed 's/^/    /' | head -n 10 || true
done
say "checkpatch total: $tot_e errors, $tot_w warnings, $tot_c checks"

# git am on a fresh checkout of the base
am=$S/am
git -C "$tree" worktree remove -f "$am" 2>/dev/null || rm -rf "$am"
git -C "$tree" worktree prune
git -C "$tree" worktree add -q --detach "$am" base
# shellcheck disable=SC2086
git "${ident[@]}" -C "$am" am -q $patches || die "git am of the series on the base failed"
[ "$(git -C "$am" rev-parse 'HEAD^{tree}')" = "$(git -C "$tree" rev-parse 'series^{tree}')" ] ||
	die "git am produced a different tree"
git -C "$tree" worktree remove -f "$am"
say "git am on a fresh base: applies, same tree as 'make test' builds"
[ $tot_e = 0 ] || die "checkpatch reports $tot_e errors"

# Every patch must build on its own: a reviewer applies part of the series
# and git bisect stops anywhere.  With WB_SERIES_BUILD=1 ('make series
# BUILD=each'), check out each patch in turn and build the test config's
# vmlinux and modules incrementally.  The tree and its objects sit in
# build/series/each/{src,obj-ARCH} so that ccache, with CCACHE_BASEDIR,
# sees the same relative paths as the builds of 'make test' (../src).  The
# config is the one 'make build' wrote, run through olddefconfig at each
# patch: a symbol a later patch adds is simply unknown before it.  The last
# patch's tree is the tree 'make test' boots (checked above), so the boot
# of the whole series is that of 'make test'.
[ "${WB_SERIES_BUILD:-0}" = 1 ] || exit 0
cfg=$(kind_obj ours)/.config
[ -f "$cfg" ] || die "no $cfg: run 'make build' (ARCH=$ARCH) first"
each=$S/each
eobj=$each/obj-$ARCH
mkdir -p "$eobj"
# The worktree may be left from an interrupted run: make it afresh.
git -C "$tree" worktree remove -f "$each/src" 2>/dev/null || rm -rf "$each/src"
git -C "$tree" worktree prune
git -C "$tree" worktree add -q --detach "$each/src" base
cc=()
if command -v ccache >/dev/null && [ "${WB_CCACHE:-1}" = 1 ]; then
	export CCACHE_BASEDIR=$BUILD
	cc=(CC="ccache ${CROSS}gcc")
fi
emake() {
	make -C "$each/src" O="$eobj" ARCH="$ARCH" \
		${CROSS:+CROSS_COMPILE=$CROSS} "$@"
}
total=$(git -C "$tree" rev-list --count base..series)
i=0
for c in $(git -C "$tree" rev-list --reverse base..series); do
	i=$((i + 1))
	subj=$(git -C "$tree" log -1 --format=%s "$c")
	git -C "$each/src" checkout -q --detach "$c"
	log=$each/$(printf '%02d' "$i").log
	start=$(date +%s)
	cp "$cfg" "$eobj/.config"
	if ! emake olddefconfig > "$log" 2>&1 ||
	   ! emake "${cc[@]}" -j"$JOBS" vmlinux modules >> "$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -n 20 >&2
		die "patch $i/$total does not build: $subj (log: ${log#"$TOP"/})"
	fi
	warn=$(grep -c ': warning:' "$log" || true)
	say "built patch $i/$total in $(($(date +%s) - start))s, $warn warnings: $subj"
	[ "$warn" = 0 ] || grep ': warning:' "$log" | sort -u | head -n 5 >&2
done
git -C "$tree" worktree remove -f "$each/src"
say "every patch of the series builds ($ARCH, test config)"
