#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A real BPF client on our stack: Debian's bpftrace (run in the host's root,
# see hostroot.sh) attaches to a known workload and the counts must be
# exact.  The workload is "wb-demo getpgid N", N getpgid() calls; each case
# runs it under "bpftrace -c", which attaches first and filters on its pid.
# The last cases put a BPF trampoline and a livepatch (upstream's
# test_klp_livepatch, which replaces cmdline_proc_show()) on one function,
# in both orders.  One KTAP line per case.
. /wb/jobs/hostroot.sh
if ! hostroot_up || ! [ -x /host/usr/bin/bpftrace ]; then
	echo "ok 1 bpftrace # SKIP no host root or no bpftrace on the host"
	exit 0
fi
cp /usr/bin/wb-demo /tmp/wb-demo
N=1000
n=0

# case NAME EXPECT PROGRAM [COMMAND]: bpftrace's output must have a line
# equal to EXPECT.
case_bt() {
	name=$1 expect=$2 prog=$3 cmd=${4:-/tmp/wb-demo getpgid $N}
	n=$((n + 1))
	start=$(date +%s)
	chroot /host /usr/bin/bpftrace -e "$prog" -c "$cmd" > /tmp/bt.log 2>&1
	rc=$?
	sed 's/^/# /' /tmp/bt.log
	echo "# $name: bpftrace exit $rc after $(($(date +%s) - start))s, want '$expect'"
	if [ $rc = 0 ] && grep -qxF "$expect" /tmp/bt.log; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
	fi
}

chroot /host /usr/bin/bpftrace --info 2>&1 | grep -iE 'kprobe_multi|kfunc|btf|version' |
	sed 's/^/# /'

case_bt "kprobe on a syscall, exact count" "@n: $N" \
	'kprobe:__x64_sys_getpgid /pid == cpid/ { @n = count(); }'
case_bt "kretprobe on a syscall, exact count" "@n: $N" \
	'kretprobe:__x64_sys_getpgid /pid == cpid/ { @n = count(); }'
case_bt "kprobe wildcard over every syscall (kprobe_multi), exact count" \
	"@[kprobe:__x64_sys_getpgid]: $N" \
	'kprobe:__x64_sys_* /pid == cpid/ { @[probe] = count(); }'
case_bt "kretprobe wildcard over every syscall (kretprobe_multi), exact count" \
	"@[kretprobe:__x64_sys_getpgid]: $N" \
	'kretprobe:__x64_sys_* /pid == cpid/ { @[probe] = count(); }'
# The programs read the call through a pt_regs that kprobe_multi's
# handlers make of the hook's frame (in place): the wrapper's argument is
# the user regs, whose di is getpgid's 0; ax on return is the pgid, which
# under setsid (no fork: the child leads no group) is the caller's pid.
case_bt "kprobe_multi program reads the function's argument" "@[0]: $N" \
	'kprobe:__x64_sys_getpg* /pid == cpid/ { @[((struct pt_regs *)arg0)->di] = count(); }'
case_bt "kretprobe_multi program reads the return value" "@[1]: $N" \
	'kretprobe:__x64_sys_getpg* /pid == cpid/ { @[retval == pid] = count(); }' \
	"/usr/bin/setsid /tmp/wb-demo getpgid $N"
case_bt "fentry (kfunc) on a syscall, exact count" "@n: $N" \
	'kfunc:__x64_sys_getpgid /pid == cpid/ { @n = count(); }'
case_bt "fexit (kretfunc) on a syscall, exact count" "@r: $N" \
	'kretfunc:__x64_sys_getpgid /pid == cpid/ { @r = count(); }'

# Uprobes in bulk from BPF: a wildcard over 100 functions of wb-ufuncs
# (one uprobe per function, through a uprobe_multi link where bpftrace
# has it, else a perf uprobe link each; attached while the program is
# not running, detached when it exits).  The program calls each of its
# 1,000 functions once: exactly 100 hits, entries and returns alike.
cp /usr/bin/wb-ufuncs /tmp/wb-ufuncs
case_bt "uprobe wildcard over 100 functions of a program, exact count" \
	"@n: 100" 'uprobe:/tmp/wb-ufuncs:wb_uf_0* /pid == cpid/ { @n = count(); }' \
	"/tmp/wb-ufuncs call 0 1000"
case_bt "uretprobe wildcard over 100 functions of a program, exact count" \
	"@n: 100" 'uretprobe:/tmp/wb-ufuncs:wb_uf_0* /pid == cpid/ { @n = count(); }' \
	"/tmp/wb-ufuncs call 0 1000"

# A livepatch and a BPF trampoline on cmdline_proc_show().
lpmod=/tmp/test_klp_livepatch.ko
cp /opt/livepatch/test_modules/test_klp_livepatch.ko $lpmod 2>/dev/null
lp=/sys/kernel/livepatch/test_klp_livepatch
lp_off() {
	[ -d $lp ] || return 0
	echo 0 > $lp/enabled
	i=0
	while [ -d $lp ] && [ $i -lt 30 ]; do sleep 1; i=$((i + 1)); done
	rmmod test_klp_livepatch 2>/dev/null
}
# bpftrace -c splits its command at spaces, without a shell: scripts.
printf 'for i in 1 2 3 4 5; do cat /proc/cmdline; done\n' > /tmp/reads.sh
printf 'insmod %s && sleep 2 && . /tmp/reads.sh\n' "$lpmod" > /tmp/lp-reads.sh
reads="/bin/sh /tmp/reads.sh"
if [ -f $lpmod ]; then
	# livepatch first: the trampoline comes second (SHARE_IPMODIFY_SELF)
	insmod $lpmod
	# only cat's reads: insmod reads /proc/cmdline too (module options)
	case_bt "fexit on a livepatched function (livepatch first)" "@n: 5" \
		'kretfunc:cmdline_proc_show /comm == "cat"/ { @n = count(); }' "$reads"
	grep -c 'this has been live patched' /tmp/bt.log | sed 's/^/# patched lines: /'
	lp_off
	# the trampoline first: the livepatch comes second (..._PEER)
	case_bt "livepatch on a function with an fexit program (fexit first)" "@n: 5" \
		'kretfunc:cmdline_proc_show /comm == "cat"/ { @n = count(); }' \
		"/bin/sh /tmp/lp-reads.sh"
	n_patched=$(grep -c 'this has been live patched' /tmp/bt.log)
	n=$((n + 1))
	if [ "$n_patched" = 5 ]; then
		echo "ok $n livepatch output while an fexit program is attached"
	else
		echo "# patched lines: $n_patched, want 5"
		echo "not ok $n livepatch output while an fexit program is attached"
	fi
	lp_off
else
	n=$((n + 1))
	echo "ok $n livepatch and BPF trampoline # SKIP no test_klp_livepatch.ko"
fi

# Link info of a kprobe_multi link by names lists the addresses as 6.12
# does: in the names' strcmp() order without cookies, by address (each
# cookie beside its address) with them.  Raw bpf(2), no bpftrace needed.
n=$((n + 1))
if wb-kmulti info > /tmp/km.log 2>&1; then
	echo "ok $n kprobe_multi link info lists addresses as 6.12 does"
else
	sed 's/^/# /' /tmp/km.log
	echo "not ok $n kprobe_multi link info lists addresses as 6.12 does"
fi

# A case run by a program that prints what it found and exits 0 when all
# of it holds: its lines go to the log, then the verdict.
case_prog() {
	desc=$1
	shift
	n=$((n + 1))
	"$@" > /tmp/case.log 2>&1
	rc=$?
	sed 's/^/# /' /tmp/case.log
	if [ $rc = 0 ]; then
		echo "ok $n $desc"
	else
		echo "not ok $n $desc"
	fi
}

# Closing a uprobe_multi link: a counting program on four functions of
# wb-kmulti.  First a sleepable one whose hit sleeps on a userfaultfd
# page while the link is closed: close() must wait for it (the count read
# when close() returns is final).  Then one thread per CPU calls the
# functions: every call made while the link is attached is counted, and
# the count read when close() returns does not move afterwards while the
# threads keep calling.
case_prog "uprobe_multi link: every call counted, none after close" \
	wb-kmulti udrain 20

# Attaching a uprobe_multi link registers its uprobes in one batch.  All
# or nothing: a link whose sites include a breakpoint instruction fails
# with ENOTSUPP and leaves nothing behind (no call counted, the text the
# file's and in the file's pages); the link without that site counts.
case_prog "uprobe_multi link attach is all or nothing" wb-kmulti uatomic

# The batch installs without locking fork out and walks the file's
# mappings again for children forked meanwhile: wb-ufuncs forks while a
# link on its 1,000 functions is attached; after the attach returned,
# every child calls every function once, and every call must count.
if [ -x /usr/bin/wb-ufuncs ]; then
	case_prog "uprobe_multi attach while forking: every child counted" \
		wb-kmulti ufork /usr/bin/wb-ufuncs /wb/share/wb-ufuncs.offsets 1000
else
	n=$((n + 1))
	echo "ok $n uprobe_multi attach while forking: every child counted # SKIP no wb-ufuncs"
fi
