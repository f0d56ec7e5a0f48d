#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instruction trace of one probed call, for profiling a probe's hit path.

    workbench/itrace.py KIND [MODULE-ARGS...] [--tag T] [--steps N]

Boots KIND (ours or stock) on one CPU under TCG with QEMU's gdb stub,
runs the guest job "itrace" (wb_fprobe_bench with MODULE-ARGS and spin=),
waits until the module spins on its probed target, then single-steps one
whole iteration from the target's first instruction back to it under gdb
and prints how many instructions each function took, in call order and in
total.  Example:

    workbench/itrace.py ours mode=exit
    workbench/itrace.py stock mode=exit
    workbench/itrace.py ours-distro kmulti      # a BPF kprobe_multi hit
    workbench/itrace.py stock-distro kmulti ret
    workbench/itrace.py ours event kprobe      # a kprobe event hit (also
                                               # kretprobe, fprobe, fexit)
    workbench/itrace.py ours uprobe nop5       # a uprobe event hit on
                                               # wb-demo's 5-byte NOP site
    WB_ARCH=arm64 workbench/itrace.py ours mode=kprobe off=12
                                               # arm64 (gdb-multiarch):
                                               # not kmulti, not uprobe

The raw program counters, the symbolised trace and the console log stay in
build/KIND/runs/itrace-TAG/.  QEMU is killed at the end or after a timeout.
"""
import argparse
import bisect
import os
import re
import subprocess
import sys
import time

WB = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, WB)
os.environ.setdefault('WB_CPUS', '1')
import qemu  # noqa: E402

GDB_SCRIPT = r'''
import gdb
gdb.execute('set pagination off')
gdb.execute('set architecture %(gdbarch)s')
gdb.execute('target remote :%(port)d')
gdb.execute('hbreak *%(addr)#x')
gdb.execute('continue')
gdb.execute('delete')
start = int(gdb.parse_and_eval('$pc')) & 0xffffffffffffffff
pcs = [start]
for _ in range(%(steps)d):
    gdb.execute('stepi', to_string=True)
    pc = int(gdb.parse_and_eval('$pc')) & 0xffffffffffffffff
    if pc == start:
        break
    pcs.append(pc)
with open(%(out)r, 'w') as f:
    f.write(''.join('%%x\n' %% p for p in pcs))
gdb.execute('kill')
'''


def symbols(vmlinux, extra):
    out = subprocess.run(['nm', '-n', vmlinux], capture_output=True,
                         text=True, check=True).stdout
    syms = []
    for line in out.splitlines() + extra:
        parts = line.split()
        if len(parts) >= 3 and parts[1] in 'tTwW':
            syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return syms


def name_of(syms, addrs, pc):
    i = bisect.bisect_right(addrs, pc) - 1
    if i < 0 or pc - syms[i][0] > 0x4000:
        return '?%x' % (pc & ~0xfff)
    return syms[i][1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('kind')
    ap.add_argument('args', nargs='*')
    ap.add_argument('--tag', default='')
    ap.add_argument('--steps', type=int, default=20000)
    ap.add_argument('--port', type=int, default=1234)
    ap.add_argument('--timeout', type=int, default=900)
    o = ap.parse_args()

    kmulti = o.args[:1] == ['kmulti']
    user = o.args[:1] == ['uprobe']
    rundir = os.path.join(qemu.kind_dir(o.kind), 'runs',
                          'itrace' + ('-' + o.tag if o.tag else ''))
    arm64 = qemu.ARCH == 'arm64'
    if (kmulti or user) and arm64:
        sys.exit('[itrace] kmulti and uprobe targets are x86_64 only')
    os.makedirs(rundir, exist_ok=True)
    console = os.path.join(rundir, 'console.log')
    results = os.path.join(rundir, 'results.log')
    for f in (console, results):
        open(f, 'w').close()
    args = list(o.args) + ([] if kmulti or user else ['spin=600'])
    target = '__x64_sys_getpgid' if kmulti else 'wb_fpb_target'
    cmd = qemu.qemu_cmd(o.kind, 'itrace', args, 'tcg', rundir, [], False)
    cmd += ['-gdb', 'tcp:127.0.0.1:%d' % o.port]
    print('[itrace] %s: booting (1 CPU, TCG); logs in %s' % (o.kind, rundir),
          flush=True)
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                            stdout=open(os.path.join(rundir, 'qemu.out'), 'w'),
                            stderr=subprocess.STDOUT)
    try:
        start = time.time()
        addr = None
        while addr is None:
            if proc.poll() is not None or time.time() - start > o.timeout:
                sys.exit('[itrace] guest ended or timed out before spinning; '
                         'see ' + console)
            time.sleep(2)
            if user:
                # a user-space site: the job names it once a thread runs it
                m = re.search(r'^wb: itrace: user target ([0-9a-f]{16})$',
                              open(results, errors='replace').read(), re.M)
                if m:
                    addr = int(m.group(1), 16)
                continue
            # the job lists the module's symbols once it spins
            m = re.search(r'^([0-9a-f]{16}) [tT] %s\b' % target,
                          open(results, errors='replace').read(), re.M)
            if m and 'spinning for' in open(console, errors='replace').read():
                addr = int(m.group(1), 16)
        print('[itrace] target at %#x after %.0fs; single-stepping' %
              (addr, time.time() - start), flush=True)
        pcfile = os.path.join(rundir, 'pcs.txt')
        script = os.path.join(rundir, 'step.py')
        with open(script, 'w') as f:
            f.write(GDB_SCRIPT % {'port': o.port, 'addr': addr,
                                  'steps': o.steps, 'out': pcfile,
                                  'gdbarch': 'aarch64' if arm64
                                  else 'i386:x86-64'})
        # the host's gdb knows only its own architecture
        gdb = 'gdb-multiarch' if arm64 else 'gdb'
        subprocess.run([gdb, '-batch', '-nx', '-x', script],
                       stdout=open(os.path.join(rundir, 'gdb.out'), 'w'),
                       stderr=subprocess.STDOUT, timeout=o.timeout)
    finally:
        proc.kill()
        proc.wait()

    extra = [line for line in open(results, errors='replace')
             if re.match(r'[0-9a-f]{16} [tT] ', line)]
    if user:
        # wb-demo is static and not position-independent: its own symbols
        demo = os.path.join(qemu.kind_dir(o.kind), 'guest', 'root', 'usr',
                            'bin', 'wb-demo')
        extra += subprocess.run(['nm', '-n', demo], capture_output=True,
                                text=True, check=True).stdout.splitlines()
    vmlinux = os.path.join(qemu.kind_dir(o.kind), 'obj', 'vmlinux')
    syms = symbols(vmlinux, [' '.join(line.split()[:3]) for line in extra])
    addrs = [a for a, _ in syms]
    pcs = [int(x, 16) for x in open(pcfile).read().split()]
    names = [name_of(syms, addrs, pc) for pc in pcs]
    runs = []
    for n in names:
        if runs and runs[-1][0] == n:
            runs[-1][1] += 1
        else:
            runs.append([n, 1])
    totals = {}
    for n in names:
        totals[n] = totals.get(n, 0) + 1
    with open(os.path.join(rundir, 'trace.txt'), 'w') as f:
        for pc, n in zip(pcs, names):
            f.write('%x %s\n' % (pc, n))
    print('[itrace] %s %s: %d instructions in one iteration' %
          (o.kind, ' '.join(o.args), len(pcs)))
    print('  in order: ' + ' '.join('%s:%d' % (n, c) for n, c in runs))
    print('  by function:')
    for n, c in sorted(totals.items(), key=lambda t: -t[1]):
        print('    %6d %s' % (c, n))


if __name__ == '__main__':
    main()
