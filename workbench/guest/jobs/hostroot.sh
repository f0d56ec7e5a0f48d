# SPDX-License-Identifier: GPL-2.0
# Sourced by guest suites: hostroot_up mounts the host's root file system,
# which QEMU shares read-only over 9p (distro variants), at /host, with this
# guest's own proc, sys, dev, tmp and run mounted inside it, so that
# "chroot /host PROGRAM" runs a Debian program of the host (bpftrace, bash)
# on the kernel under test.  Files to hand over go through /tmp.
hostroot_up() {
	[ -e /tmp/.wb-hostroot ] && return 0
	grep -q hostroot /sys/bus/virtio/devices/*/mount_tag 2>/dev/null || return 1
	mkdir -p /host
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose \
		hostroot /host || return 1
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null
	for d in proc sys dev tmp run; do
		mount -o rbind "/$d" "/host/$d" || return 1
	done
	: > /tmp/.wb-hostroot
	return 0
}
