#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""elf_offsets.py BINARY [PREFIX]: print "symbol 0xFILEOFFSET" for each
function symbol (optionally only those starting with PREFIX).  A uprobe is
placed at a file offset, which is the symbol's address minus its loadable
segment's address plus that segment's file offset."""
import subprocess
import sys


def main():
    binary = sys.argv[1]
    prefix = sys.argv[2] if len(sys.argv) > 2 else ''
    segs = []
    out = subprocess.run(['readelf', '-lW', binary], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == 'LOAD':
            off, vaddr, filesz = int(f[1], 16), int(f[2], 16), int(f[4], 16)
            segs.append((vaddr, vaddr + filesz, off))
    out = subprocess.run(['readelf', '-sW', binary], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) < 8 or f[3] != 'FUNC' or not f[7].startswith(prefix):
            continue
        addr = int(f[1], 16)
        for lo, hi, off in segs:
            if lo <= addr < hi:
                print(f'{f[7]} 0x{addr - lo + off:x}')
                break


if __name__ == '__main__':
    main()
