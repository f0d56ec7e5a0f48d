// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace-direct-modify on two functions through one ops: both call sites
 * move between the two trampolines together.
 */
#define DIRECT_MODIFY_MULTI
#include "ftrace-direct-modify.c"
