// SPDX-License-Identifier: GPL-2.0
/*
 * uprobes on 5-byte NOPs without a trap (x86-64).
 *
 * A probe on "nopl 0x0(%rax,%rax,1)" (0f 1f 44 00 00, the USDT probe site)
 * starts out as every uprobe does: an int3 on the first byte, a trap and a
 * single step (or an emulation) per hit.  On the first hit in an address
 * space the site is rewritten into "jmp rel32" to a slot of a trampoline
 * page of that address space, and from then on a hit is one system call:
 *
 *   slot:  lea -128(%rsp),%rsp     step over the red zone
 *          push %rax
 *          push %rcx               syscall clobbers rcx and r11
 *          push %r11
 *          mov $__NR_uprobe,%eax
 *          syscall                 sys_uprobe() never returns here
 *          ud2
 *          (padding)
 *          .quad site              the address of the NOP this slot serves
 *
 * sys_uprobe() reads the site from the slot, puts back rax, rcx, r11 and
 * the stack pointer from the stack, runs the uprobe's consumers with the
 * instruction pointer at the site, and returns to the instruction after
 * the NOP.  A jump rather than a call: nothing is written at or below the
 * probed code's stack pointer (leaf functions keep data in the red zone),
 * and a shadow stack sees no unmatched call.
 *
 * The trampoline pages are special mappings of one page, placed within
 * reach of a rel32 jump from the sites they serve, with up to
 * NOP5_SLOTS_PER_PAGE slots each; a slot keeps its site for the life of the
 * page, so a task that took the jump just before the probe went away still
 * finds where to go back to.  The page is inserted into the mapping's page
 * table: fork() copies the mapping and the entry (parent and child share the
 * page; a site address means the same in both), and it goes away with the
 * address space.  exec() starts from a new address space: the next hit
 * traps and optimizes again.
 *
 * Text changes follow the usual protocol for code other threads may be
 * running: with the int3 in place, write the four tail bytes, serialize
 * every CPU, write the first byte, serialize again; back to the NOP it is
 * the other way round (int3 first, then the tail), after which the generic
 * code puts back the first byte.  Each write goes to the address space's
 * private copy of the text page (which uprobes made when it placed the
 * int3) under mmap_lock, so the file and other processes never see it.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include <linux/sizes.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/uprobes.h>
#include <linux/uprobe_site.h>

#include <asm/ptrace.h>
#include <asm/unistd.h>
#include <asm/text-patching.h>

#define NOP5_LEN		5
#define NOP5_RED_ZONE		128
#define NOP5_SLOT_SIZE		32
#define NOP5_SLOTS_PER_PAGE	(PAGE_SIZE / NOP5_SLOT_SIZE)
/* offset in a slot of the instruction after the syscall */
#define NOP5_SLOT_RET		16
/* offset in a slot of the site's address */
#define NOP5_SLOT_SITE		24
#define NOP5_OPC_JMP		0xe9
#define NOP5_OPC_INT3		0xcc

static const u8 nop5_insn[NOP5_LEN] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

/* The code part of a slot: everything before the site's address. */
static const u8 nop5_slot_code[NOP5_SLOT_SITE] = {
	0x48, 0x8d, 0x64, 0x24, 0x80,		/* lea -0x80(%rsp),%rsp */
	0x50,					/* push %rax */
	0x51,					/* push %rcx */
	0x41, 0x53,				/* push %r11 */
	0xb8, __NR_uprobe & 0xff, __NR_uprobe >> 8, 0x00, 0x00,
						/* mov $NR,%eax */
	0x0f, 0x05,				/* syscall */
	0x0f, 0x0b,				/* ud2 */
	0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
};

/* What the slot's pushes leave at the stack pointer of the syscall. */
struct nop5_saved {
	unsigned long r11;
	unsigned long cx;
	unsigned long ax;
};

/* Serializes slot allocation: after fork() a page serves several mms. */
static DEFINE_MUTEX(nop5_slot_lock);

static vm_fault_t nop5_fault(const struct vm_special_mapping *sm,
			     struct vm_area_struct *vma, struct vm_fault *vmf)
{
	/* the page is inserted at creation; a missing one stays missing */
	return VM_FAULT_SIGBUS;
}

static int nop5_mremap(const struct vm_special_mapping *sm,
		       struct vm_area_struct *new_vma)
{
	/* the sites jump to where the page is: it cannot move */
	return -EINVAL;
}

static const struct vm_special_mapping nop5_mapping = {
	.name	= "[uprobes-nop5]",
	.fault	= nop5_fault,
	.mremap	= nop5_mremap,
};

static bool nop5_probed(struct arch_uprobe *auprobe)
{
	return !memcmp(auprobe->insn, nop5_insn, NOP5_LEN);
}

static bool nop5_in_reach(unsigned long site, unsigned long dest)
{
	long d = (long)(dest - (site + NOP5_LEN));

	return d == (long)(s32)d;
}

/* The page of @mm at @vaddr, with a reference; mmap_lock held. */
static struct page *nop5_get_page(struct mm_struct *mm, unsigned long vaddr,
				  unsigned int gup_flags)
{
	struct page *page;

	if (get_user_pages_remote(mm, vaddr, 1, gup_flags, &page, NULL) != 1)
		return NULL;
	return page;
}

static void nop5_read(struct page *page, unsigned long vaddr, u8 *buf)
{
	void *kaddr = kmap_local_page(page);

	memcpy(buf, kaddr + offset_in_page(vaddr), NOP5_LEN);
	kunmap_local(kaddr);
}

static void nop5_write(struct page *page, unsigned long vaddr,
		       const u8 *buf, size_t len)
{
	void *kaddr = kmap_local_page(page);

	memcpy(kaddr + offset_in_page(vaddr), buf, len);
	kunmap_local(kaddr);
}

/* Is @text (at @site of @mm) our jump into a trampoline page? */
static bool nop5_is_our_jmp(struct mm_struct *mm, unsigned long site,
			    const u8 *text)
{
	struct vm_area_struct *vma;
	unsigned long dest;

	if (text[0] != NOP5_OPC_JMP)
		return false;
	dest = site + NOP5_LEN + (long)(s32)get_unaligned_le32(text + 1);
	vma = vma_lookup(mm, dest);
	return vma && vma_is_special_mapping(vma, &nop5_mapping);
}

/* Read the five bytes at @site of @mm (not across a page); mmap_lock held. */
static bool nop5_peek(struct mm_struct *mm, unsigned long site, u8 *text)
{
	struct page *page;

	if (offset_in_page(site) > PAGE_SIZE - NOP5_LEN)
		return false;
	page = nop5_get_page(mm, site, FOLL_FORCE);
	if (!page)
		return false;
	nop5_read(page, site, text);
	put_page(page);
	return true;
}

/*
 * A slot for @site in the trampoline page mapped at @vma: the one that
 * already serves it, else a free one (written now).  0 if none.
 */
static unsigned long nop5_slot_in(struct vm_area_struct *vma,
				  unsigned long site)
{
	unsigned long addr, found = 0;
	struct page *page;
	u8 *kaddr;
	u64 *at;
	int i, free = -1;

	page = nop5_get_page(vma->vm_mm, vma->vm_start, 0);
	if (!page)
		return 0;
	kaddr = page_address(page);
	for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++) {
		addr = vma->vm_start + i * NOP5_SLOT_SIZE;
		at = (u64 *)(kaddr + i * NOP5_SLOT_SIZE + NOP5_SLOT_SITE);
		if (READ_ONCE(*at) == site) {
			found = addr;
			break;
		}
		if (!READ_ONCE(*at) && free < 0 && nop5_in_reach(site, addr))
			free = i;
	}
	if (!found && free >= 0) {
		memcpy(kaddr + free * NOP5_SLOT_SIZE, nop5_slot_code,
		       sizeof(nop5_slot_code));
		WRITE_ONCE(*(u64 *)(kaddr + free * NOP5_SLOT_SIZE +
				    NOP5_SLOT_SITE), site);
		found = vma->vm_start + free * NOP5_SLOT_SIZE;
	}
	put_page(page);
	return found;
}

/* Map a new trampoline page within reach of @site; mmap_lock held to write. */
static struct vm_area_struct *nop5_new_page(struct mm_struct *mm,
					    unsigned long site)
{
	struct vm_unmapped_area_info info = {};
	struct vm_area_struct *vma;
	unsigned long addr;
	struct page *page;
	u8 *kaddr;
	int err, i;

	info.flags = VM_UNMAPPED_AREA_TOPDOWN;
	info.length = PAGE_SIZE;
	/* page-aligned bounds: the search returns high_limit - length */
	info.low_limit = site > SZ_2G ? PAGE_ALIGN(site - SZ_2G + SZ_1M) : 0;
	info.low_limit = max(info.low_limit, PAGE_ALIGN(mmap_min_addr));
	info.low_limit = max_t(unsigned long, info.low_limit, PAGE_SIZE);
	info.high_limit = min((site + SZ_2G - SZ_1M) & PAGE_MASK,
			      TASK_SIZE & PAGE_MASK);
	addr = vm_unmapped_area(&info);
	if (offset_in_page(addr))
		return ERR_PTR(-ENOMEM);

	page = alloc_page(GFP_KERNEL);
	if (!page)
		return ERR_PTR(-ENOMEM);
	/* free slots: int3 where the code goes, 0 where the site goes */
	kaddr = page_address(page);
	memset(kaddr, NOP5_OPC_INT3, PAGE_SIZE);
	for (i = 0; i < NOP5_SLOTS_PER_PAGE; i++)
		*(u64 *)(kaddr + i * NOP5_SLOT_SIZE + NOP5_SLOT_SITE) = 0;

	vma = _install_special_mapping(mm, addr, PAGE_SIZE,
				       VM_READ | VM_EXEC |
				       VM_MAYREAD | VM_MAYEXEC,
				       &nop5_mapping);
	if (IS_ERR(vma)) {
		__free_page(page);
		return vma;
	}
	err = vm_insert_page(vma, addr, page);
	/* the page table holds its own reference from here on */
	put_page(page);
	if (err) {
		do_munmap(mm, addr, PAGE_SIZE, NULL);
		return ERR_PTR(err);
	}
	return vma;
}

/* The slot of @site, found or made; mmap_lock held to write. */
static unsigned long nop5_slot(struct mm_struct *mm, unsigned long site)
{
	struct vm_area_struct *vma;
	struct vma_iterator vmi;
	unsigned long slot = 0;

	vma_iter_init(&vmi, mm, 0);
	mutex_lock(&nop5_slot_lock);
	for_each_vma(vmi, vma) {
		if (!vma_is_special_mapping(vma, &nop5_mapping))
			continue;
		slot = nop5_slot_in(vma, site);
		if (slot)
			goto out;
	}
	vma = nop5_new_page(mm, site);
	if (!IS_ERR(vma))
		slot = nop5_slot_in(vma, site);
out:
	mutex_unlock(&nop5_slot_lock);
	return slot;
}

/*
 * Turn the int3 at @site of the current mm into a jump to a slot.  Any
 * failure leaves the breakpoint as it is.
 */
static void nop5_optimize(unsigned long site)
{
	struct mm_struct *mm = current->mm;
	u8 text[NOP5_LEN], jmp[NOP5_LEN];
	struct page *page;
	unsigned long slot;

	if (mmap_write_lock_killable(mm))
		return;
	if (!nop5_peek(mm, site, text) || text[0] != NOP5_OPC_INT3 ||
	    memcmp(text + 1, nop5_insn + 1, NOP5_LEN - 1))
		goto unlock;
	slot = nop5_slot(mm, site);
	if (!slot)
		goto unlock;

	/* our own copy of the text page (uprobes made one for the int3) */
	page = nop5_get_page(mm, site, FOLL_FORCE | FOLL_WRITE);
	if (!page)
		goto unlock;
	nop5_read(page, site, text);
	if (text[0] == NOP5_OPC_INT3 &&
	    !memcmp(text + 1, nop5_insn + 1, NOP5_LEN - 1)) {
		jmp[0] = NOP5_OPC_JMP;
		put_unaligned_le32((u32)(slot - (site + NOP5_LEN)), jmp + 1);
		nop5_write(page, site + 1, jmp + 1, NOP5_LEN - 1);
		text_poke_sync();
		nop5_write(page, site, jmp, 1);
		text_poke_sync();
	}
	put_page(page);
unlock:
	mmap_write_unlock(mm);
}

/*
 * Back from the jump to the int3 (the generic code then restores the NOP's
 * first byte); mmap_lock held.
 */
static void nop5_unoptimize(struct mm_struct *mm, unsigned long site)
{
	u8 text[NOP5_LEN], int3 = NOP5_OPC_INT3;
	struct page *page;

	if (!nop5_peek(mm, site, text) || !nop5_is_our_jmp(mm, site, text))
		return;
	page = nop5_get_page(mm, site, FOLL_FORCE | FOLL_WRITE);
	if (!page)
		return;
	nop5_read(page, site, text);
	if (nop5_is_our_jmp(mm, site, text)) {
		nop5_write(page, site, &int3, 1);
		text_poke_sync();
		nop5_write(page, site + 1, nop5_insn + 1, NOP5_LEN - 1);
		text_poke_sync();
	}
	put_page(page);
}

/**
 * arch_uprobe_ignore - x86-64: optimize a 5-byte NOP site on its first hit
 * @auprobe: the probe being hit
 * @regs: the registers, with the instruction pointer at the site
 *
 * Called on every breakpoint hit before the handlers run.  For a probe on
 * a 5-byte NOP the site is turned into a jump to a trampoline slot, so the
 * next hits in this address space enter through sys_uprobe().  This hit
 * goes on as usual (handlers, then the NOP stepped or emulated).
 *
 * Return: false, the hit is never ignored.
 */
bool arch_uprobe_ignore(struct arch_uprobe *auprobe, struct pt_regs *regs)
{
	if (nop5_probed(auprobe) && user_64bit_mode(regs))
		nop5_optimize(instruction_pointer(regs));
	return false;
}

/**
 * set_swbp - place the breakpoint of a uprobe
 * @auprobe: the probe
 * @mm: the address space
 * @vaddr: the probed address in @mm
 *
 * As the generic version, except that a 5-byte NOP site that already jumps
 * to a trampoline slot counts as having its breakpoint.
 *
 * Return: 0 or a negative errno.
 */
int set_swbp(struct arch_uprobe *auprobe, struct mm_struct *mm,
	     unsigned long vaddr)
{
	u8 text[NOP5_LEN];

	if (nop5_probed(auprobe) && nop5_peek(mm, vaddr, text) &&
	    nop5_is_our_jmp(mm, vaddr, text))
		return 0;
	return uprobe_write_opcode(auprobe, mm, vaddr, UPROBE_SWBP_INSN);
}

/**
 * set_orig_insn - put back the probed instruction
 * @auprobe: the probe
 * @mm: the address space
 * @vaddr: the probed address in @mm
 *
 * A 5-byte NOP site that jumps to a trampoline slot goes back to the int3
 * first; then, as the generic version, the first byte is restored.
 *
 * Return: 0 or a negative errno.
 */
int set_orig_insn(struct arch_uprobe *auprobe, struct mm_struct *mm,
		  unsigned long vaddr)
{
	if (nop5_probed(auprobe))
		nop5_unoptimize(mm, vaddr);
	return uprobe_write_opcode(auprobe, mm, vaddr,
				   *(uprobe_opcode_t *)&auprobe->insn);
}

/*
 * Entered from a trampoline slot only.  Anything else (no slot code before
 * the caller's syscall instruction) gets -ENXIO and no other change.
 */
SYSCALL_DEFINE0(uprobe)
{
	struct pt_regs *regs = current_pt_regs();
	unsigned long at = regs->ip - NOP5_SLOT_RET;
	u8 slot[NOP5_SLOT_SIZE];
	struct nop5_saved saved;
	unsigned long site;

	if (!IS_ALIGNED(at, NOP5_SLOT_SIZE) ||
	    copy_from_user(slot, (void __user *)at, sizeof(slot)) ||
	    memcmp(slot, nop5_slot_code, sizeof(nop5_slot_code)))
		return -ENXIO;
	site = get_unaligned((unsigned long *)(slot + NOP5_SLOT_SITE));
	if (!site || site > TASK_SIZE_MAX - NOP5_LEN)
		return -ENXIO;

	if (copy_from_user(&saved, (void __user *)regs->sp, sizeof(saved))) {
		force_sig(SIGSEGV);
		return -EFAULT;
	}
	/* the registers as they were at the site */
	regs->r11 = saved.r11;
	regs->cx = saved.cx;
	regs->ax = saved.ax;
	regs->sp += sizeof(saved) + NOP5_RED_ZONE;
	regs->ip = site;
	/* not a system call to restart or report from here on */
	regs->orig_ax = -1;

	uprobe_run_site(regs, site);

	/* the NOP itself, unless a handler sent the task elsewhere */
	if (regs->ip == site)
		regs->ip = site + NOP5_LEN;
	/* the syscall's return value lands in ax */
	return regs->ax;
}
