#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh [STOCK OURS [GROUP]]: build stock and ours with the same config
# (kinds stock and ours, or e.g. stock-distro ours-distro), boot each with
# the same QEMU settings, run the guest 'bench' job (all its rows, or one
# GROUP of them) and print ours/stock.
#
# Two runs per kind: one under -icount shift=0, where guest time counts
# guest instructions (figures repeat to about four digits run after run),
# and one in plain TCG for wall-clock figures beside them (noisy, coarse).
# WB_BENCH_WALL=0 skips the wall-clock runs.
. "$(dirname "$0")/common.sh"
WB_PHASE=bench
"$WB/deps.sh"
stock=${1:-stock}
ours=${2:-ours}
group=${3:-}
for kind in $stock $ours; do
	"$WB/build.sh" "$kind"
	"$WB/initramfs.sh" "$kind"
done
modes="icount"
[ "${WB_BENCH_WALL:-1}" = 0 ] || modes="$modes wall"
for mode in $modes; do
	for kind in $stock $ours; do
		flag=()
		[ "$mode" = icount ] && flag=(--icount)
		python3 "$WB/qemu.py" "$kind" bench $group "${flag[@]}" --echo none \
			--tag "bench-$mode" --timeout 2400 ||
			die "$kind: the bench job did not finish"
	done
done
python3 - "$(kind_runs "$stock")" "$(kind_runs "$ours")" $modes <<'PY'
import os, re, sys
rstock, rours, modes = sys.argv[1], sys.argv[2], sys.argv[3:]
kstock, kours = rstock, rours
def read(runs, mode):
    res = {}
    kind = os.path.basename(os.path.dirname(runs))
    path = os.path.join(runs, f'bench-{mode}', 'results.log')
    for line in open(path, errors='replace'):
        m = re.match(r'BENCH (\S+) ([\d.]+) (\S+)', line.strip())
        if m:
            res[m.group(1)] = (float(m.group(2)), m.group(3))
        elif line.startswith('BENCH-ERROR'):
            print(f'[bench] {kind} {mode}: {line.strip()}')
    return res
data = {(k, m): read(kk, m) for k, kk in (('stock', kstock), ('ours', kours))
        for m in modes}
names = list(data[('stock', modes[0])])
hdr = f'{"benchmark":36s}'
for m in modes:
    hdr += f' {m+" stock":>13s} {m+" ours":>13s} {"ratio":>6s}'
print(hdr)
for n in names:
    row = f'{n:36s}'
    for m in modes:
        s = data[('stock', m)].get(n)
        o = data[('ours', m)].get(n)
        if not s or not o:
            row += f' {"-":>13s} {"-":>13s} {"-":>6s}'
            continue
        ratio = o[0] / s[0] if s[0] else float('nan')
        row += f' {s[0]:>10.2f} {s[1]:>2s} {o[0]:>10.2f} {o[1]:>2s} {ratio:6.3f}'
    print(row)
print('ratio = ours / stock; icount figures count guest instructions as ns')
PY
