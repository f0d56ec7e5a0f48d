// SPDX-License-Identifier: GPL-2.0
/*
 * Direct call on handle_mm_fault(), a function with four arguments: the
 * trampoline must hand all of them back to the fault handler untouched.
 * Loaded beside ftrace-direct, it gives the selftests two direct users
 * on different functions at once.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/ftrace.h>

#include "direct-tramp.h"

SAMPLE_DIRECT_TRAMP(fault_tramp, fault_direct_func);

SAMPLE_DIRECT_HANDLER(fault_direct_func)
{
	struct vm_area_struct *vma = (struct vm_area_struct *)a0;

	trace_printk("fault at %lx in [%lx, %lx) flags %lx\n",
		     a1, vma->vm_start, vma->vm_end, a2);
}

static struct ftrace_ops fault_ops;

static int __init direct_too_init(void)
{
	int ret;

	ret = ftrace_set_filter_ip(&fault_ops,
				   (unsigned long)handle_mm_fault, 0, 0);
	if (ret)
		return ret;
	ret = register_ftrace_direct(&fault_ops, (unsigned long)fault_tramp);
	if (ret)
		ftrace_free_filter(&fault_ops);
	return ret;
}

static void __exit direct_too_exit(void)
{
	unregister_ftrace_direct(&fault_ops, (unsigned long)fault_tramp, true);
}

module_init(direct_too_init);
module_exit(direct_too_exit);

MODULE_DESCRIPTION("Direct call on handle_mm_fault() (register_ftrace_direct sample)");
MODULE_LICENSE("GPL");
