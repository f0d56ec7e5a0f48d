# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the uprobe_*.tc cases (not a test case itself: ftracetest runs
# only *.tc files).  It names, for the machine the cases run on, where a
# function of /usr/bin/wb-demo finds things at its first instruction, as
# fetch arguments of a uprobe event:
#
#   R1 .. R8	its integer arguments 1 to 8
#   R_RA	the address it returns to
#   R_PC	the program counter (the probed address)
#   R_RV	the register the return value is left in (as %REG, for the
#		cases that need a register rather than $retval)
#
# Each case builds both its definitions and its expected listings, formats
# and trace lines from these, so it asserts the same on every machine.
#
# x86_64 (SysV ABI): arguments 1-6 in %di %si %dx %cx %r8 %r9, 7 and 8 in
# the stack slots above the return address, which $stack0 holds.
# arm64 (AAPCS64): arguments 1-8 in %x0 .. %x7, the return address in the
# link register %x30.

case $(uname -m) in
x86_64)
	R1=%di R2=%si R3=%dx R4=%cx R5=%r8 R6=%r9
	R7='$stack1' R8='$stack2'
	R_RA='$stack0' R_PC=%ip R_RV=%ax
	;;
aarch64|arm64)
	R1=%x0 R2=%x1 R3=%x2 R4=%x3 R5=%x4 R6=%x5
	R7=%x6 R8=%x7
	R_RA=%x30 R_PC=%pc R_RV=%x0
	;;
*)
	exit_unsupported
	;;
esac
