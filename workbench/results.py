#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""results.py: turn the logs of a test run into per-case results, compare
them with the committed baseline and print the verdict.

Sources, all from build/KIND/runs/test/:
  console.log  KUnit's KTAP (suites built into the kernel run at boot), the
               boot-time tracer selftests, and anything bad the kernel said
               (oops, WARN, BUG, lockdep, RCU stall, soft lockup, hung task)
  results.log  ftracetest's KTAP from the guest job

Case names: "kunit: SUITE.CASE", "boot: WHAT", "ftracetest: DESCRIPTION"
(instance runs carry "(instance)"), and for the distro variants'
extra suites "livepatch: SCRIPT" and "bpf: CASE".  Status: PASS, FAIL, SKIP, XFAIL,
UNRESOLVED.  The per-case list goes to results.txt beside the logs.

Verdict: a case failing on ours that passes on the baseline, or that the
baseline does not have (a new test), is a failure; one that fails on both
is listed as known and counted as skipped.  A baseline PASS that ours does
not report at all is a regression too.  Exit 1 on any failure or a bad
console, else 0.
"""
import argparse
import os
import re
import sys

TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
KTAP_RESULT = re.compile(r'^(\s*)(ok|not ok) (\d+)\s*(?:- )?([^#]*?)\s*(?:#\s*(.*))?$')

BAD_CONSOLE = [
    (re.compile(r'WARNING: CPU: \d+ PID: \d+ at (.*)'), 'WARN'),
    (re.compile(r'\bBUG: (.*)'), 'BUG'),
    (re.compile(r'Oops: (.*)'), 'oops'),
    (re.compile(r'general protection fault(.*)'), 'oops'),
    (re.compile(r'Kernel panic - (.*)'), 'panic'),
    (re.compile(r'WARNING: (possible .*|suspicious RCU usage.*|inconsistent lock state.*|.*locking.*)'), 'lockdep'),
    (re.compile(r'(possible recursive locking detected.*)'), 'lockdep'),
    (re.compile(r'rcu: INFO: (.*detected stalls.*)'), 'RCU stall'),
    (re.compile(r'INFO: (task .* blocked for more than .*)'), 'hung task'),
    (re.compile(r'watchdog: (BUG: soft lockup.*)'), 'soft lockup'),
    (re.compile(r'\bUBSAN: (.*)'), 'UBSAN'),
    (re.compile(r'\bODEBUG: (.*)'), 'debugobjects'),
]

# Frames that say nothing about who leaked (kmemleak backtraces).
ALLOC_FRAMES = re.compile(r'^(kmemleak_|__?k[mz]alloc|kmalloc|kvmalloc|__kvmalloc|'
                          r'kmem_cache_|__kmem_cache|slab_|__slab|kzalloc|krealloc|'
                          r'kstrdup|kmemdup|__alloc_|alloc_pages|__get_free|'
                          r'vmalloc|__vmalloc|kcalloc|pcpu_|__alloc_percpu|'
                          r'kasan_|___slab|__do_kmalloc|__kmalloc_|kmalloc_trace|'
                          r'mas_|mt_|radix_tree|xa_|idr_|__d_alloc|d_alloc)')



# Cases of the stock baseline that ours runs in a stronger form under
# another name: passing the stronger one counts for the stock one.
# arm64: 6.12 has no pt_regs-saving caller, so its boot selftest only
# checks that SAVE_REGS is refused; ours has one and runs the real test.
SUPERSEDED = {
    'boot: ftrace regs(no arch support)': 'boot: ftrace regs',
}

def lines_of(path):
    if not os.path.exists(path):
        return []
    with open(path, 'rb') as f:
        text = f.read().decode('utf-8', 'replace').replace('\r', '')
    return text.splitlines()


def ktap_status(ok, directive):
    d = (directive or '').strip()
    if d.upper().startswith('SKIP'):
        return 'SKIP'
    if d.upper().startswith('XFAIL'):
        return 'XFAIL'
    if not ok and d.upper().startswith('UNRESOLVED'):
        return 'UNRESOLVED'
    return 'PASS' if ok else 'FAIL'


def parse_kunit(console):
    """KUnit prints nested KTAP: "# Subtest: SUITE" opens a suite whose cases
    are reported at the same indentation, and the suite's own line comes
    one level out.  Parameterised cases nest one level deeper; the case's
    own line carries their verdict, so only case lines (depth 1) are kept,
    plus a suite line when the suite reported no cases."""
    res = {}
    suite_at = {}
    cases_in = set()
    for raw in console:
        line = TS.sub('', raw)
        m = re.match(r'^(\s*)# Subtest: (\S+)', line)
        if m:
            suite_at[len(m.group(1)) // 4] = m.group(2)
            continue
        m = KTAP_RESULT.match(line)
        if not m:
            continue
        depth = len(m.group(1)) // 4
        name = m.group(4).strip()
        status = ktap_status(m.group(2) == 'ok', m.group(5))
        if depth == 1 and 1 in suite_at:
            res[f'kunit: {suite_at[1]}.{name}'] = status
            cases_in.add(suite_at[1])
        elif depth == 0 and name == suite_at.get(1) and name not in cases_in:
            res[f'kunit: {name}'] = status
    return res


def parse_boot_selftests(console):
    """Boot-time selftests print "Testing WHAT: " and then, on the same line
    or after a few continuation lines, PASSED, FAILED, OK or SKIPPED.  The
    event selftests print one line per event and per event system; those
    are folded into one case, and a failing one is also named."""
    res = {}
    pending = None
    events = {'ok': 0, 'bad': 0}

    def settle(name, status):
        if name.startswith('boot: event '):
            events['ok' if status == 'PASS' else 'bad'] += 1
            if status == 'PASS':
                return
        res[name] = status

    for raw in console:
        line = TS.sub('', raw).strip()
        m = re.match(r'(?:\w+: )?Testing (.+?):\s*(.*)$', line)
        if m:
            if pending:
                settle(pending, 'FAIL')
            pending = f'boot: {m.group(1).strip()}'
            line = m.group(2)
        if not pending:
            continue
        if 'PASSED' in line or re.search(r'\bOK\b', line):
            settle(pending, 'PASS')
        elif 'FAILED' in line:
            settle(pending, 'FAIL')
        elif 'SKIPPED' in line:
            settle(pending, 'SKIP')
        else:
            continue
        pending = None
    if pending:
        settle(pending, 'FAIL')
    if events['ok'] or events['bad']:
        res['boot: event selftests (each trace event and event system)'] = \
            'PASS' if not events['bad'] else 'FAIL'
    return res


# Suites of the guest job after ftracetest, named by a "WB-PHASE NAME" line.
EXTRA_SUITES = ('livepatch', 'bpf', 'fuzz', 'stress', 'trinity', 'bootparam')


def parse_ftracetest(results):
    """Top-level KTAP lines of the guest job: ftracetest's, and after a
    "WB-PHASE NAME" line for an extra suite, that suite's.  Returns the
    results and, apart, those of the "ftracetest-retry" phase (the failed
    cases run once more)."""
    res, retry = {}, {}
    suite, into = 'ftracetest', res
    for line in results:
        m = re.match(r'WB-PHASE (\S+)', line)
        if m:
            into = retry if m.group(1) == 'ftracetest-retry' else res
            suite = m.group(1) if m.group(1) in EXTRA_SUITES else 'ftracetest'
            continue
        m = KTAP_RESULT.match(line)
        if not m or m.group(1):
            continue
        name = re.sub(r'\s+', ' ', m.group(4)).strip()
        key = f'{suite}: {name}'
        n = 2
        while key in into:
            key = f'{suite}: {name} #{n}'
            n += 1
        into[key] = ktap_status(m.group(2) == 'ok', m.group(5))
    return res, retry


def fold_retries(res, retry):
    """A case that failed and passed when run again is flaky: it counts as
    passed and is named in the output.  Returns the flaky cases."""
    flaky = []
    for name, s in retry.items():
        if res.get(name) in ('FAIL', 'UNRESOLVED') and s in ('PASS', 'XFAIL'):
            res[name] = s
            flaky.append(name)
    return flaky


def bad_console(console):
    found = []
    lines = [TS.sub('', raw) for raw in console]
    for i, line in enumerate(lines):
        for rx, kind in BAD_CONSOLE:
            m = rx.search(line)
            if m:
                text = line.strip()
                if kind == 'lockdep':
                    # which lock, taken where: lockdep's first "at:" line
                    for nxt in lines[i + 1:i + 14]:
                        a = re.search(r'\((\S+?)\)\{.*\}, at: (\S+?)\+', nxt)
                        if a:
                            text += f' [{a.group(1)} at {a.group(2)}]'
                            break
                found.append(f'{kind}: {text}')
                break
    return found


def kmemleak_reports(results):
    """One entry per unreferenced object the job's leak scan listed
    (WB-KMEMLEAK lines), named by the first backtrace frame that is not
    an allocator."""
    found, frame = [], None
    for raw in results:
        if not raw.startswith('WB-KMEMLEAK '):
            continue
        line = raw[len('WB-KMEMLEAK '):].strip()
        if line.startswith('unreferenced object'):
            if frame is not None:
                found.append(f'kmemleak: unreferenced object from {frame or "?"}')
            frame = ''
            continue
        # '[<address>] frame+off/size' on older kernels, 'frame+off/size' now
        m = re.match(r'(?:\[<[0-9a-f]+>\] )?([A-Za-z_][\w.]*)\+0x', line)
        if m and frame == '' and not ALLOC_FRAMES.match(m.group(1)):
            frame = m.group(1)
    if frame is not None:
        found.append(f'kmemleak: unreferenced object from {frame or "?"}')
    return found


def report_key(report):
    """What a console report is known by: no addresses, numbers or offsets."""
    key = re.sub(r'\+0x[0-9a-f]+/0x[0-9a-f]+', '', report)
    key = re.sub(r'0x[0-9a-f]+|\b[0-9a-f]{12,16}\b', 'ADDR', key)
    key = re.sub(r'\d+', 'N', key)
    return key


def read_results(path):
    res = {}
    for line in lines_of(path):
        if not line or line.startswith('#'):
            continue
        status, name = line.split(' ', 1)
        res[name] = status
    return res


def write_results(path, res, header):
    with open(path, 'w') as f:
        f.write(header)
        for name in sorted(res):
            f.write(f'{res[name]} {name}\n')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('rundir', nargs='+',
                    help='run folder(s); several: the parts of one sharded '
                    'run (KUnit and boot results come from the first)')
    ap.add_argument('--baseline', help='committed per-case results of stock')
    ap.add_argument('--write-baseline', help='write results here as the baseline')
    ap.add_argument('--known-from', help='take only the known console reports '
                    'of this baseline (runs of other jobs than test)')
    a = ap.parse_args()

    rundir = a.rundir[0]
    consoles = [lines_of(os.path.join(d, 'console.log')) for d in a.rundir]
    logs = [lines_of(os.path.join(d, 'results.log')) for d in a.rundir]
    console = consoles[0]
    results = [line for log in logs for line in log]
    job, retry, flaky = {}, {}, []
    for log in logs:
        j, r = parse_ftracetest(log)
        flaky += fold_retries(j, r)
        # cases that share a description in different parts: number them
        # as one log would
        for name, st in j.items():
            base_name, key, n = re.sub(r' #\d+$', '', name), name, 2
            while key in job:
                key = f'{base_name} #{n}'
                n += 1
            job[key] = st
    suites = [('kunit', parse_kunit(console)),
              ('boot', parse_boot_selftests(console))]
    for sname in ('ftracetest',) + EXTRA_SUITES:
        r = {k: v for k, v in job.items() if k.startswith(sname + ': ')}
        if r or sname == 'ftracetest':
            suites.append((sname, r))
    res = {}
    for _, r in suites:
        res.update(r)
    write_results(os.path.join(rundir, 'results.txt'), res,
                  '# per-case results: STATUS SUITE: CASE\n')

    base = read_results(a.baseline) if a.baseline else {}
    if a.known_from and os.path.exists(a.known_from):
        base.update({n: s for n, s in read_results(a.known_from).items()
                     if s == 'KNOWN'})
    failed, known, regressions = [], [], []
    print('[results] per suite:')
    for sname, r in suites:
        c = {s: 0 for s in ('PASS', 'FAIL', 'SKIP', 'XFAIL', 'UNRESOLVED')}
        for s in r.values():
            c[s] += 1
        print(f'[results]   {sname:11s} {len(r):4d} cases: {c["PASS"]} pass, '
              f'{c["FAIL"]} fail, {c["UNRESOLVED"]} unresolved, '
              f'{c["SKIP"]} skip, {c["XFAIL"]} xfail')
    for name, s in sorted(res.items()):
        if s in ('FAIL', 'UNRESOLVED'):
            if base.get(name) in ('FAIL', 'UNRESOLVED'):
                known.append(name)
            else:
                failed.append(name)
                if base.get(name) == 'PASS':
                    regressions.append(name)
    for name, s in sorted(base.items()):
        if s == 'PASS' and res.get(SUPERSEDED.get(name)) == 'PASS':
            continue
        if s == 'PASS' and name not in res:
            failed.append(name + '  (not reported)')
            regressions.append(name + '  (not reported)')
    if a.baseline:
        print(f'[results] baseline: {len(base)} cases, '
              f'{sum(1 for s in base.values() if s == "PASS")} required to pass; '
              f'{len(regressions)} regressions')
    for name in regressions:
        print(f'[results] REGRESSION: {name}')
    for name in failed:
        if name not in regressions:
            print(f'[results] FAILED: {name}')
    for name in known:
        print(f'[results] known failure (fails on stock too): {name}')
    for name in flaky:
        print(f'[results] FLAKY: {name}: failed, then passed when run again')

    # Console reports (and leak-scan results): those the stock baseline
    # has too are known; any other one fails the run.
    reports = [r for c in consoles for r in bad_console(c)]
    reports += [r for log in logs for r in kmemleak_reports(log)]
    known_reports = {n[len('console: '):] for n, s in base.items() if s == 'KNOWN'}
    bad, seen = [], set()
    for r in reports:
        k = report_key(r)
        if k in seen:
            continue
        seen.add(k)
        if k in known_reports and not a.write_baseline:
            print(f'[results] known console report (stock has it too): {r}')
        else:
            bad.append(r)
    if bad and not a.write_baseline:
        print(f'[results] FAILED: the kernel console reports {len(bad)} problem(s) '
              f'(oops/WARN/BUG/lockdep/stall/leak); see '
              f'{" ".join(os.path.join(d, "console.log") for d in a.rundir)}')
    for b in bad:
        print(f'[results] CONSOLE: {b}')
    if not results:
        print('[results] FAILED: the guest job printed nothing')
        failed.append('ftracetest job output')
    done = all(any(l.startswith('WB-JOB-DONE') for l in log) for log in logs)
    if results and not done:
        print('[results] FAILED: the guest job did not finish')
        failed.append('guest job finished')

    if a.write_baseline:
        for r in bad:
            res['console: ' + report_key(r)] = 'KNOWN'
        write_results(a.write_baseline, res,
                      '# Per-case results of the stock base (make baseline).\n'
                      '# STATUS SUITE: CASE; every PASS here must pass on ours.\n')
        print(f'[results] baseline written to {a.write_baseline}')

    passed = sum(1 for s in res.values() if s in ('PASS', 'XFAIL'))
    skipped = sum(1 for s in res.values() if s == 'SKIP') + len(known)
    nfail = len(failed) + (1 if bad else 0)
    print(f'[results] per-case list: {os.path.join(rundir, "results.txt")}')
    print(f'{passed} passed, {nfail} failed, {skipped} skipped')
    if a.write_baseline:
        # The reference may fail cases; it only has to have run them all.
        ran = bool(results) and done
        print(f'[results] baseline {"complete" if ran else "INCOMPLETE: the job did not finish"}')
        sys.exit(0 if ran else 1)
    sys.exit(1 if nfail else 0)


if __name__ == '__main__':
    main()
