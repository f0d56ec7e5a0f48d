/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory access hooks of the fetch interpreter for probes that run in the
 * kernel (kprobe, fprobe and eprobe events), also used by synthetic events
 * to copy strings.  All of them tolerate bad addresses: they return an
 * error instead of faulting, and may be called from any probe context.
 *
 * Where user and kernel addresses never overlap
 * (ARCH_HAS_NON_OVERLAPPING_ADDRESS_SPACE), an address below TASK_SIZE is
 * user memory and is read as such; elsewhere the address alone cannot
 * tell, and it is read as kernel memory.
 */
#ifndef _KERNEL_TRACE_PROBE_KERNEL_H
#define _KERNEL_TRACE_PROBE_KERNEL_H

#include "trace_probe.h"

#ifdef CONFIG_ARCH_HAS_NON_OVERLAPPING_ADDRESS_SPACE
static nokprobe_inline bool tprobe_is_user_addr(unsigned long addr)
{
	return addr < TASK_SIZE;
}
#else
static nokprobe_inline bool tprobe_is_user_addr(unsigned long addr)
{
	return false;
}
#endif

/* Length of the user string at @addr with its NUL, 0 if unreadable. */
static nokprobe_inline int fetch_store_strlen_user(unsigned long addr)
{
	return strnlen_user_nofault((__force const void __user *)addr,
				    MAX_STRING_SIZE);
}

/*
 * Length of the string at @addr with its NUL, capped at MAX_STRING_SIZE,
 * or a negative errno when a byte of it cannot be read.
 */
static nokprobe_inline int fetch_store_strlen(unsigned long addr)
{
	const char *str = (const char *)addr;
	int len = 0, err;
	char c;

	if (tprobe_is_user_addr(addr))
		return fetch_store_strlen_user(addr);

	while (len < MAX_STRING_SIZE) {
		err = copy_from_kernel_nofault(&c, str + len, 1);
		if (err)
			return err;
		len++;
		if (c == '\0')
			break;
	}
	return len;
}

/*
 * Rewrite the data_loc word at @dest to describe @ret bytes at @data
 * (nothing when @ret is an error).
 */
static nokprobe_inline void
set_data_loc(int ret, void *dest, void *data, void *base)
{
	*(u32 *)dest = make_data_loc(ret > 0 ? ret : 0, data - base);
}

/*
 * Copy the user string at @addr to where the data_loc word at @dest points
 * (the caller set it to the space available and the offset from @base),
 * then make the word describe the copy.  Returns the bytes copied with the
 * NUL, or a negative errno.
 */
static nokprobe_inline int
fetch_store_string_user(unsigned long addr, void *dest, void *base)
{
	int room = get_loc_len(*(u32 *)dest);
	void *data;
	long ret;

	if (unlikely(!room))
		return -ENOMEM;

	data = get_loc_data(dest, base);
	ret = strncpy_from_user_nofault(data,
					(__force const void __user *)addr,
					room);
	set_data_loc(ret, dest, data, base);
	return ret;
}

/* Same as fetch_store_string_user() for a kernel string. */
static nokprobe_inline int
fetch_store_string(unsigned long addr, void *dest, void *base)
{
	int room = get_loc_len(*(u32 *)dest);
	void *data;
	long ret;

	if (tprobe_is_user_addr(addr))
		return fetch_store_string_user(addr, dest, base);
	if (unlikely(!room))
		return -ENOMEM;

	/* The string may have changed since it was sized: copy bounded. */
	data = get_loc_data(dest, base);
	ret = strncpy_from_kernel_nofault(data, (void *)addr, room);
	set_data_loc(ret, dest, data, base);
	return ret;
}

/* Copy @size bytes of user memory; 0 or a negative errno. */
static nokprobe_inline int
probe_mem_read_user(void *dest, void *src, size_t size)
{
	return copy_from_user_nofault(dest, (__force const void __user *)src,
				      size);
}

/* Copy @size bytes of kernel (or, see above, user) memory. */
static nokprobe_inline int
probe_mem_read(void *dest, void *src, size_t size)
{
	if (tprobe_is_user_addr((unsigned long)src))
		return probe_mem_read_user(dest, src, size);
	return copy_from_kernel_nofault(dest, src, size);
}

#endif /* _KERNEL_TRACE_PROBE_KERNEL_H */
