#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""qemu.py: boot a built kernel kind in QEMU, run one guest job, watch it.

The guest has two serial ports: ttyS0 carries the kernel console, ttyS1 the
job's own output (arm64: the PL011 ttyAMA0 and the virtio console hvc0).  Both go to files in build/KIND/runs/JOB/ and are kept.
Lines of the job's output are echoed as they arrive.  A guest whose two logs
stop growing for --stall seconds, or that runs past --timeout, is killed with
a message that names the console log.

Acceleration: TCG by default.  KVM exists on these machines but a nested
guest kernel may stall at boot, so "auto" first boots the tiny 'probe' job
under KVM with a short timeout and remembers the answer in build/kvm-probe.
Exit status: 0 when the job reported its end, 3 when the guest was killed
or ended without reporting.
"""
import argparse
import os
import re
import subprocess
import sys
import time

WB = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(WB)
BUILD = os.environ.get('WB_BUILD', os.path.join(TOP, 'build'))


def log(msg):
    print(f'[qemu] {msg}', flush=True)


ARCH = os.environ.get('WB_ARCH', 'x86_64')


def kind_dir(kind):
    """build/KIND, or build/ARCH/KIND for another architecture (common.sh)."""
    if ARCH == 'x86_64':
        return os.path.join(BUILD, kind)
    return os.path.join(BUILD, ARCH, kind)


def qemu_cmd(kind, job, args, accel, rundir, cmdline_extra, icount):
    obj = os.path.join(kind_dir(kind), 'obj')
    kernel = os.path.join(obj, 'arch/arm64/boot/Image' if ARCH == 'arm64'
                          else 'arch/x86/boot/bzImage')
    initrd = os.path.join(kind_dir(kind), 'guest', 'initramfs.cpio.gz')
    for f in (kernel, initrd):
        if not os.path.exists(f):
            sys.exit(f'[qemu] error: {f} missing; build {kind} first')
    console = 'ttyAMA0' if ARCH == 'arm64' else 'ttyS0'
    append = [f'console={console},115200', 'loglevel=7', 'panic=-1',
              'oops=panic' if os.environ.get('WB_OOPS_PANIC') else '',
              f'wb.job={job}', 'rcupdate.rcu_cpu_stall_timeout=300',
              'tsc=nowatchdog', 'clocksource=tsc' if accel == 'kvm' else '']
    if args:
        append.append('wb.args=' + ','.join(args))
    if ARCH == 'arm64':
        # virt has one UART: the job's output goes to a virtio console
        append.append('wb.out=/dev/hvc0')
    append += cmdline_extra
    if ARCH == 'arm64':
        cmd = ['qemu-system-aarch64', '-M', 'virt,gic-version=3']
    else:
        cmd = ['qemu-system-x86_64', '-vga', 'none']
    cmd += ['-m', os.environ.get('WB_MEM', '2G'),
            '-smp', os.environ.get('WB_CPUS', '2'),
            '-kernel', kernel, '-initrd', initrd,
            '-append', ' '.join(a for a in append if a),
            '-display', 'none', '-monitor', 'none',
            '-no-reboot', '-nodefaults']
    if 'distro' in kind.split('-'):
        # the host's root, read-only, for host programs (guest/jobs/hostroot.sh)
        cmd += ['-virtfs', 'local,path=/,mount_tag=hostroot,security_model=none,'
                'readonly=on,multidevs=remap']
    if accel == 'kvm':
        cmd += ['-accel', 'kvm', '-cpu', 'host']
    else:
        # arm64: "max" with the cheap QEMU-defined pointer-auth algorithm
        # (the architected one is slow to emulate)
        cpu = 'max,pauth-impdef=on' if ARCH == 'arm64' else 'max'
        cmd += ['-accel', 'tcg,thread=' + os.environ.get('WB_TCG_THREAD', 'single'),
                '-cpu', cpu]
        if icount:
            # WB_ICOUNT_SLEEP=off: idle guest time no longer runs at host
            # speed; the clock jumps to the next timer (repeatable waits)
            sleep = os.environ.get('WB_ICOUNT_SLEEP', 'on')
            cmd += ['-icount', 'shift=0' + (',sleep=off' if sleep == 'off' else '')]
    if rundir:
        cmd += ['-serial', 'file:' + os.path.join(rundir, 'console.log')]
        results = 'file:' + os.path.join(rundir, 'results.log')
    else:
        cmd += ['-serial', 'mon:stdio']
        results = 'null'
    if ARCH == 'arm64':
        cmd += ['-chardev', results.replace('file:', 'file,id=wbout,path=', 1)
                if results != 'null' else 'null,id=wbout',
                '-device', 'virtio-serial-device',
                '-device', 'virtconsole,chardev=wbout']
    else:
        cmd += ['-serial', results]
    return cmd


def run_job(kind, job, args, accel, timeout, stall, echo, cmdline_extra=(),
            icount=False, tag=None):
    rundir = os.path.join(kind_dir(kind), 'runs', tag or job)
    os.makedirs(rundir, exist_ok=True)
    console = os.path.join(rundir, 'console.log')
    results = os.path.join(rundir, 'results.log')
    for f in (console, results):
        open(f, 'w').close()
    cmd = qemu_cmd(kind, job, args, accel, rundir, list(cmdline_extra),
                   icount)
    with open(os.path.join(rundir, 'qemu-cmd'), 'w') as f:
        f.write(' '.join(cmd) + '\n')
    log(f'{kind}: booting job "{job}" ({accel}{", icount" if icount else ""}); '
        f'logs in {os.path.relpath(rundir, TOP)}/')
    start = time.time()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                            stdout=open(os.path.join(rundir, 'qemu.out'), 'w'),
                            stderr=subprocess.STDOUT)
    sizes = (0, 0)
    last_change = time.time()
    pos = 0
    pending = ''
    done = None
    booted = False
    status = 'ok'
    while True:
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        new = (os.path.getsize(console), os.path.getsize(results))
        if new != sizes:
            sizes = new
            last_change = time.time()
        with open(results, 'rb') as f:
            f.seek(pos)
            chunk = f.read()
        pos += len(chunk)
        pending += chunk.decode('utf-8', 'replace').replace('\r', '')
        while '\n' in pending:
            line, pending = pending.split('\n', 1)
            m = re.match(r'WB-JOB-DONE \S+ rc=(\d+)', line)
            if m:
                done = int(m.group(1))
            if line.startswith('WB-JOB-START'):
                booted = True
                log(f'{kind}: guest booted in {time.time() - start:.0f}s')
            if echo == 'all' or (echo == 'tests' and re.match(
                    r'(ok|not ok) \d+|WB-PHASE|# Totals|fuzz: |FUZZ-|trinity: |'
                    r'# (rounds|stress|calls|before|after)', line)):
                print('  ' + (line if len(line) < 240 else line[:200] + ' ...'),
                      flush=True)
        if proc.poll() is not None:
            break
        now = time.time()
        if now - start > timeout:
            status = f'timed out after {timeout}s'
        elif now - last_change > stall:
            status = f'made no progress for {stall}s'
        if status != 'ok':
            proc.kill()
            proc.wait()
            break
    took = time.time() - start
    with open(os.path.join(rundir, 'status'), 'w') as f:
        f.write(f'{status} done={done} seconds={took:.0f}\n')
    if status != 'ok' or done is None:
        why = status if status != 'ok' else 'ended without reporting the end of its job'
        log(f'{kind}: guest {why} ({"after boot" if booted else "before its job started"}); '
            f'killed after {took:.0f}s. Console log: {console}')
        with open(console, 'rb') as f:
            tail = f.read().decode('utf-8', 'replace').replace('\r', '').splitlines()[-25:]
        for line in tail:
            print('  | ' + line)
        return 3, rundir
    log(f'{kind}: job "{job}" ended rc={done} in {took:.0f}s')
    return 0 if done == 0 else 1, rundir


def kind_name(kind):
    """A kernel kind: ours or stock, then -VARIANT (see common.sh)."""
    if not re.fullmatch(r'(ours|stock)(-(distro|debug))*', kind):
        raise argparse.ArgumentTypeError(f'unknown kind {kind!r}')
    return kind


def choose_accel(kind, want):
    if want in ('tcg', 'kvm'):
        return want
    if not os.access('/dev/kvm', os.R_OK | os.W_OK):
        log('no usable /dev/kvm; using TCG')
        return 'tcg'
    cache = os.path.join(BUILD, 'kvm-probe')
    if os.path.exists(cache):
        return open(cache).read().strip()
    log('probing whether a KVM guest boots here (60s at most)')
    rc, _ = run_job(kind, 'probe', [], 'kvm', 60, 60, 'none', tag='kvm-probe')
    accel = 'kvm' if rc == 0 else 'tcg'
    with open(cache, 'w') as f:
        f.write(accel + '\n')
    log(f'KVM probe: {"boots" if rc == 0 else "does not boot"}; using {accel}')
    return accel


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('kind', type=kind_name)
    ap.add_argument('job')
    ap.add_argument('args', nargs='*')
    ap.add_argument('--accel', default=os.environ.get('WB_ACCEL', 'tcg'),
                    choices=['tcg', 'kvm', 'auto'])
    ap.add_argument('--timeout', type=int, default=3000)
    ap.add_argument('--stall', type=int,
                    default=int(os.environ.get('WB_STALL', '600')))
    ap.add_argument('--echo', default='all', choices=['all', 'tests', 'none'])
    ap.add_argument('--icount', action='store_true')
    ap.add_argument('--append', action='append', default=[])
    ap.add_argument('--tag', help='name of the run folder (default: the job)')
    a = ap.parse_args()
    if a.job == 'shell':
        accel = choose_accel(a.kind, a.accel)
        cmd = qemu_cmd(a.kind, 'shell', [], accel, None, a.append, False)
        os.execvp(cmd[0], cmd)
    accel = 'tcg' if a.icount else choose_accel(a.kind, a.accel)
    if a.icount:
        accel = 'tcg'
    rc, _ = run_job(a.kind, a.job, a.args, accel, a.timeout, a.stall, a.echo,
                    a.append, a.icount, a.tag)
    sys.exit(rc)


if __name__ == '__main__':
    main()
