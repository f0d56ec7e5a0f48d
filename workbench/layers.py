#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""layers.py [OBJ ...]: check that no file of ours calls or includes a
layer above its own.

workbench/layers.list assigns every file of ours in kernel/trace/ and
arch/*/kernel/ to a layer (read its head for the syntax).  For each build
folder OBJ (default build/ours/obj; the architecture comes from its
.config) the check reads, with nm, the global symbols each layered object
defines and the ones it references, and finds:

  call     a file references a symbol defined by a file of a layer that
           is not its own and not below it ("up", or "across" to a layer
           of another stack it does not sit on);
  include  a file has #include "H" of a private header H of ours that
           sits up or across from it;
  declare  a private header names (declares, or uses in a macro or an
           inline function) a symbol defined up or across from the
           header's own layer: it would hide an upward call behind an
           include of a low header.

A weak default that a file calls but a file of a higher layer overrides
is a call to that file (found in the file's relocations).  A header the
manifest makes "private" may only be included by files of its own layer
and of the layers the line names (an "include" violation otherwise).

A reference to a symbol the manifest lists as an entry point ("entry"
lines: a fixed hook that one layer above implements, bound at link time)
is counted apart, not as a violation.  Every violation must have its
"allow" line in the manifest; an allow line that no longer happens must
go, so the list only shrinks.  An object the build did not make (a file
behind a config option that is off) is skipped, and so are its allow
lines.

Options: --list prints every violation of the given build folders as
allow lines (arch-tagged where only some have it, reasons carried over;
new ones say FIXME), for editing the manifest by hand.  --stats prints
the violations by kind, layer pair and symbol.  --no-stale does not fail
on allow lines that do not happen (for other configs than the test one).

Exit 0 when every violation is allowed and every allow line happens,
else 1.  The objects must be built from the sources of this tree: the
include and declare checks read the sources here.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

WB = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(WB)
MANIFEST = os.path.join(WB, 'layers.list')
ARCHES = ('x86_64', 'arm64')
# What the manifest must cover: every tracked file of these folders.
COVERED = re.compile(r'^((kernel/trace|arch/[^/]+/kernel)/.*|kernel/k(ret)?probes[^/]*)\.(c|h|S)$')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
IDENT = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')


def rel(path):
    """A path as the user knows it: relative to the tree if inside it."""
    path = os.path.abspath(path)
    return os.path.relpath(path, TOP) if path.startswith(TOP + os.sep) else path


def say(msg):
    print(f'[layers] {msg}', flush=True)


def die(msg):
    print(f'[layers] error: {msg}', file=sys.stderr)
    sys.exit(1)


class Manifest:
    """The layers, their files, the entry points and the allow lines."""

    def __init__(self, path):
        self.path = path
        self.layers = []        # names, in the order given
        self.above = {}         # layer -> layers it sits directly on
        self.stack = {}         # layer -> stack name
        self.layer_of = {}      # file -> layer
        self.entries = []       # (kind, symbol, layers or {'*'}, arch, line)
        self.private = {}       # header -> (other layers that may include it, line)
        self.allows = {}        # (kind, file, target, arch) -> (reason, line)
        self.parse()
        self.below = {}
        for name in self.layers:    # each only names earlier layers
            b = set()
            for a in self.above[name]:
                b |= {a} | self.below[a]
            self.below[name] = b

    def error(self, n, msg):
        die(f'{rel(self.path)}:{n}: {msg}')

    def parse(self):
        stack = None
        prev = None
        layer = None
        with open(self.path) as f:
            lines = f.read().splitlines()
        for n, raw in enumerate(lines, 1):
            text, _, comment = raw.partition('#')
            comment = comment.strip()
            words = text.split()
            if not words:
                continue
            if raw[0] in ' \t':
                if layer is None:
                    self.error(n, 'file names outside a layer')
                for w in words:
                    if w in self.layer_of:
                        self.error(n, f'{w} is in layer {self.layer_of[w]} already')
                    self.layer_of[w] = layer
                continue
            layer = None
            arch = None
            if words[-1].startswith('@'):
                arch = words.pop()[1:]
                if arch not in ARCHES:
                    self.error(n, f'unknown architecture @{arch}')
            kw = words[0]
            if kw == 'stack' and len(words) == 2:
                stack, prev = words[1], None
            elif kw == 'layer' and len(words) >= 2:
                name = words[1]
                if stack is None:
                    self.error(n, 'a layer before the first stack line')
                if name in self.above:
                    self.error(n, f'layer {name} twice')
                if len(words) > 2:
                    if words[2] != 'above' or len(words) < 4:
                        self.error(n, 'expected: layer NAME [above LAYER...]')
                    on = words[3:]
                else:
                    on = [prev] if prev else []
                for a in on:
                    if a not in self.above:
                        self.error(n, f'layer {a} is not defined above this line')
                self.layers.append(name)
                self.above[name] = set(on)
                self.stack[name] = stack
                layer = prev = name
            elif kw == 'entry' and len(words) >= 3:
                kind = 'call'
                if words[1] == 'declare':
                    kind = words.pop(1)
                if len(words) < 3:
                    self.error(n, 'expected: entry [declare] SYMBOL LAYER...')
                self.entries.append((kind, words[1], set(words[2:]), arch, n))
                for a in words[2:]:
                    if a != '*' and a not in self.above:
                        self.error(n, f'unknown layer {a}')
            elif kw == 'private' and len(words) >= 2 and not arch:
                for a in words[2:]:
                    if a not in self.above:
                        self.error(n, f'unknown layer {a}')
                self.private[words[1]] = (set(words[2:]), n)
            elif kw == 'allow' and len(words) == 4 and \
                    words[1] in ('call', 'include', 'declare'):
                key = (words[1], words[2], words[3], arch)
                if words[1] == 'include' and arch:
                    self.error(n, 'an include is the same on every architecture')
                if key in self.allows:
                    self.error(n, 'the same allow line twice')
                if not comment:
                    self.error(n, 'an allow line needs its reason after a #')
                self.allows[key] = (comment, n)
            else:
                self.error(n, f'cannot parse: {raw.strip()}')
        for h, (_, n) in self.private.items():
            if h not in self.layer_of:
                self.error(n, f'{h} is in no layer')
        for (kind, file, target, _), (_, n) in self.allows.items():
            if file not in self.layer_of:
                self.error(n, f'{file} is in no layer')
            if kind == 'include' and target not in self.layer_of:
                self.error(n, f'{target} is in no layer')

    def relation(self, a, b):
        """How a reference from layer a to layer b runs."""
        if a == b:
            return 'same'
        if b in self.below[a]:
            return 'down'
        if a in self.below[b]:
            return 'up'
        return 'across'

    def entry_for(self, kind, sym, layer, arch):
        for e in self.entries:
            if e[0] == kind and e[1] == sym and e[3] in (None, arch) and \
                    (e[2] == {'*'} or layer in e[2]):
                return e
        return None


def tracked_files():
    try:
        out = subprocess.run(['git', '-C', TOP, 'ls-files', 'kernel', 'arch'],
                             check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return [f for f in out.split() if COVERED.match(f)]


def obj_arch(obj):
    try:
        with open(os.path.join(obj, '.config')) as f:
            config = f.read()
    except OSError:
        die(f'{obj}: no .config; build the tree first (make build)')
    if re.search(r'^CONFIG_X86_64=y$', config, re.M):
        return 'x86_64'
    if re.search(r'^CONFIG_ARM64=y$', config, re.M):
        return 'arm64'
    die(f'{obj}: neither x86_64 nor arm64 in .config')


def reloc_symbols(o):
    """The symbols an object's relocations name."""
    out = subprocess.run(['readelf', '-rW', o], check=True, capture_output=True,
                         text=True).stdout
    names = set()
    for line in out.splitlines():
        p = line.split()
        if len(p) >= 7 and p[5] in '+-':
            names.add(p[4])
    return names


def read_symbols(obj, files):
    """file -> (defined {sym: strong?}, referenced {sym}, relocs) for each
    built object; relocs only of objects that define a weak symbol."""
    syms = {}
    for f in files:
        if not f.endswith(('.c', '.S')):
            continue
        o = os.path.join(obj, f[:-2] + '.o')
        if not os.path.exists(o):
            continue
        out = subprocess.run(['nm', o], check=True, capture_output=True,
                             text=True).stdout
        defined, refs = {}, set()
        for line in out.splitlines():
            p = line.split()
            if len(p) == 2 and p[0] in 'Uwv':
                refs.add(p[1])
            elif len(p) == 3 and p[1] in 'TDBRGSAC':
                defined[p[2]] = True
            elif len(p) == 3 and p[1] in 'WV':
                defined.setdefault(p[2], False)
        weak = not all(defined.values())
        syms[f] = (defined, refs, reloc_symbols(o) if weak else set())
    return syms


def source_idents(path):
    """The identifiers of a C file outside comments and literals."""
    with open(path, errors='replace') as f:
        text = f.read()
    text = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', text, flags=re.S)
    text = re.sub(r'"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'', ' ', text)
    return set(IDENT.findall(text))


class Check:
    """The violations and by-design up-calls of one build folder."""

    def __init__(self, m, obj, arch, include_violations):
        self.m, self.obj, self.arch = m, obj, arch
        self.syms = read_symbols(obj, list(m.layer_of))
        self.owner = {}
        for f, (defined, _, _) in sorted(self.syms.items()):
            for s, strong in defined.items():
                old = self.owner.get(s)
                if old is None or (strong and not self.syms[old][0][s]):
                    self.owner[s] = f
        # (kind, file, target) -> (defining file or header, from layer, to layer, how)
        self.violations = dict(include_violations)
        self.by_design = collections.Counter()  # entry line -> references
        for f, (defined, refs, relocs) in self.syms.items():
            for s in refs:
                self.note(f, s, 'call')
            # Its own weak default, overridden elsewhere: the call goes there.
            for s, strong in defined.items():
                if not strong and s in relocs:
                    self.note(f, s, 'call')
        for h in m.layer_of:
            p = os.path.join(TOP, h)
            if h.endswith('.h') and os.path.exists(p):
                for s in source_idents(p):
                    self.note(h, s, 'declare')

    def note(self, f, s, kind):
        g = self.owner.get(s)
        if g is None or g == f:
            return
        a, b = self.m.layer_of[f], self.m.layer_of[g]
        how = self.m.relation(a, b)
        if how in ('same', 'down'):
            return
        e = self.m.entry_for(kind, s, a, self.arch)
        if e:
            self.by_design[e[4]] += 1
            return
        self.violations[(kind, f, s)] = (g, a, b, how)

    def built(self, f):
        return f in self.syms or not f.endswith(('.c', '.S'))


def include_violations(m):
    found = {}
    for f, a in m.layer_of.items():
        p = os.path.join(TOP, f)
        if not os.path.exists(p):
            continue
        with open(p, errors='replace') as fh:
            incs = INCLUDE.findall(fh.read())
        for inc in incs:
            h = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            b = m.layer_of.get(h)
            if b is None:
                continue
            how = m.relation(a, b)
            if how in ('up', 'across'):
                found[('include', f, h)] = (h, a, b, how)
            elif h in m.private and a != b and a not in m.private[h][0]:
                found[('include', f, h)] = (h, a, b, 'private')
    return found


def judge(m, c, stale_fails):
    """Print what one build folder shows; returns the number of failures."""
    allowed, new = 0, []
    for key in sorted(c.violations):
        if key + (None,) in m.allows or key + (c.arch,) in m.allows:
            allowed += 1
        else:
            new.append(key)
    gone = []
    for (kind, f, t, arch), (reason, n) in sorted(m.allows.items(), key=lambda x: x[1][1]):
        if arch not in (None, c.arch) or not c.built(f):
            continue
        if (kind, f, t) not in c.violations:
            gone.append((n, kind, f, t))
    stale_entries = []
    for _, sym, layers, arch, n in m.entries:
        if arch in (None, c.arch) and not c.by_design[n]:
            stale_entries.append((n, sym))
    for key in new:
        g, a, b, how = c.violations[key]
        kind, f, t = key
        where = '' if kind == 'include' else f' (in {g})'
        say(f'NEW {kind} {f} -> {t}{where}: {a} -> {b}, {how}')
    mf = rel(m.path)
    for n, kind, f, t in gone:
        say(f'GONE {mf}:{n}: allow {kind} {f} {t} no longer happens: drop the line')
    for n, sym in stale_entries:
        say(f'GONE {mf}:{n}: entry {sym} is not referenced from below: drop the line')
    ups = sum(c.by_design.values())
    say(f'{c.arch}: {ups} references through {len([1 for v in c.by_design.values() if v])} '
        f'entry points (by design, see the entry lines)')
    say(f'{c.arch}: {allowed} violations allowed, {len(new)} new, '
        f'{len(gone) + len(stale_entries)} allow/entry lines that no longer happen')
    return len(new) + (len(gone) + len(stale_entries) if stale_fails else 0)


def stats(m, checks):
    for c in checks:
        v = c.violations
        say(f'{c.arch}: {len(v)} violations')
        kinds = collections.Counter(k[0] for k in v)
        say('  by kind: ' + ', '.join(f'{k} {n}' for k, n in sorted(kinds.items())))
        pairs = collections.Counter((k[0], x[1], x[2], x[3]) for k, x in v.items())
        for (kind, a, b, how), n in sorted(pairs.items(), key=lambda x: (-x[1], x[0])):
            say(f'  {n:4d} {kind:8s} {a} -> {b} ({how})')
        files = collections.Counter((k[1], x[0]) for k, x in v.items() if k[0] == 'call')
        say('  calls by file pair:')
        for (f, g), n in sorted(files.items(), key=lambda x: (-x[1], x[0])):
            say(f'  {n:4d} {f} -> {g}')
        syms = collections.Counter(k[2] for k in v if k[0] != 'include')
        say('  most common symbols: ' + ', '.join(f'{s} ({n})' for s, n in syms.most_common(15)))
    if len(checks) > 1:
        union = set()
        for c in checks:
            union |= set(c.violations)
        syms = collections.Counter(k[2] for k in union if k[0] != 'include')
        say(f'all: {len(union)} distinct violations; files referencing each symbol: ' +
            ', '.join(f'{s} ({n})' for s, n in syms.most_common(15)))


def list_allows(m, checks):
    """Every violation of the given builds as an allow line."""
    seen = collections.defaultdict(set)
    for c in checks:
        for key in c.violations:
            seen[key].add(c.arch)
    archs = {c.arch for c in checks}
    for key in sorted(seen, key=lambda k: (k[0] != 'include', k[1], k[2])):
        kind, f, t = key
        tag = None if kind == 'include' or seen[key] == archs else sorted(seen[key])[0]
        old = m.allows.get(key + (tag,)) or m.allows.get(key + (None,)) or \
            next((v for k, v in m.allows.items() if k[:3] == key), None)
        reason = old[0] if old else 'FIXME: why, and the plan step that removes it'
        print(f'allow {kind} {f} {t}{" @" + tag if tag else ""}  # {reason}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('obj', nargs='*')
    ap.add_argument('--list', action='store_true')
    ap.add_argument('--stats', action='store_true')
    ap.add_argument('--no-stale', action='store_true')
    ap.add_argument('--manifest', default=MANIFEST)
    o = ap.parse_args()
    objs = o.obj or [os.path.join(os.environ.get('WB_BUILD', os.path.join(TOP, 'build')),
                                  'ours', 'obj')]

    m = Manifest(o.manifest)
    fails = 0
    tracked = tracked_files()
    files = set(m.layer_of)
    if tracked is None:
        say('not a git tree: the manifest\'s coverage is not checked')
    else:
        for f in sorted(set(tracked) - files):
            say(f'NEW file {f} is in no layer of {rel(m.path)}')
            fails += 1
        for f in sorted(files - set(tracked)):
            say(f'GONE file {f} is in the manifest but not in the tree')
            fails += 1
    say(f'manifest: {len(m.layers)} layers in {len(set(m.stack.values()))} stacks, '
        f'{len(files)} files, {len(m.entries)} entry points, {len(m.allows)} allow lines')

    incs = include_violations(m)
    checks = []
    for obj in objs:
        if not os.path.isdir(os.path.join(obj, 'kernel', 'trace')):
            die(f'{obj}: no built kernel/trace objects; build the tree first (make build)')
        arch = obj_arch(obj)
        c = Check(m, obj, arch, incs)
        other = 'arch/arm64/' if arch == 'x86_64' else 'arch/x86/'
        missing = sorted(f for f in files if not c.built(f) and not f.startswith(other))
        say(f'{arch} ({rel(obj)}): '
            f'{len(c.syms)} objects read' +
            (f'; not built here: {" ".join(missing)}' if missing else ''))
        checks.append(c)
    if o.list:
        list_allows(m, checks)
        return 0
    if o.stats:
        stats(m, checks)
    for c in checks:
        fails += judge(m, c, not o.no_stale)
    if fails:
        say(f'FAILED: {fails} problem(s); see the NEW and GONE lines above '
            f'and the head of {rel(m.path)}')
        return 1
    say('no file calls or includes a layer above its own, beyond the allow lines')
    return 0


if __name__ == '__main__':
    sys.exit(main())
