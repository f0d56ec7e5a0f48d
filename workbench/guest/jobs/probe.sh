#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Smallest job: proves that the guest boots to userspace.
echo "wb: guest up, $(nproc) CPUs, kernel $(uname -r)"
