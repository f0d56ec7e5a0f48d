// SPDX-License-Identifier: GPL-2.0
/*
 * 5-byte NOP uprobes, layer 2: the text of a probed site.  The first hit
 * turns its int3 into a jump to a slot; the uprobes core's set_orig_insn()
 * and mremap()'s hook turn it back, and set_swbp() and the trap path know
 * our jumps.  Writes follow the int3/tail/sync protocol of uprobes_nop5.h,
 * under the mm's mmap_lock, on a private file mapping, with no lock of
 * ours held across user memory; a page is faulted in only where the probed
 * file is mapped at the probed offset (rule 3).  Calls
 * uprobes_nop5_table.c and uprobes_nop5_tramp.c.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/unaligned.h>
#include <linux/uprobes.h>
#include <linux/uprobe_site.h>

#include <asm/ptrace.h>
#include <asm/text-patching.h>

#include "uprobes_nop5.h"

static const u8 nop5_insn[NOP5_LEN] = NOP5_INSN_INIT;

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

/*
 * A mapping whose text we may rewrite: a private mapping of a file, as
 * uprobes places breakpoints in, so that a forced write only ever changes
 * this address space's own copy of the page.
 */
static bool nop5_text_vma(struct mm_struct *mm, unsigned long site)
{
	struct vm_area_struct *vma = vma_lookup(mm, site);

	return vma && vma->vm_file && site + NOP5_LEN <= vma->vm_end &&
	       !(vma->vm_flags & (VM_MAYSHARE | VM_HUGETLB | VM_IO |
				  VM_PFNMAP)) &&
	       (vma->vm_flags & VM_MAYEXEC);
}

/*
 * A jumping site back to its breakpoint form: the int3 first (a thread
 * arriving now traps instead of jumping), then the NOP's tail.
 */
static void nop5_unjump(struct page *page, unsigned long site)
{
	u8 int3 = NOP5_OPC_INT3;

	nop5_write(page, site, &int3, 1);
	text_poke_sync();
	nop5_write(page, site + 1, nop5_insn + 1, NOP5_LEN - 1);
	text_poke_sync();
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
	return vma && nop5_is_tramp_vma(vma);
}

/* Does @text, at @site, jump to @slot? */
static bool nop5_jmps_to(unsigned long site, const u8 *text,
			 unsigned long slot)
{
	return text[0] == NOP5_OPC_JMP &&
	       site + NOP5_LEN + (long)(s32)get_unaligned_le32(text + 1) == slot;
}

/*
 * Read the five bytes at @site of @mm (not across a page); mmap_lock held.
 * @may_fault: the mapping there is of the probed file; otherwise only a
 * page already in the page table is read (rule 3, uprobes_nop5.h).
 */
static bool nop5_peek(struct mm_struct *mm, unsigned long site, u8 *text,
		      bool may_fault)
{
	struct page *page;

	if (offset_in_page(site) > PAGE_SIZE - NOP5_LEN)
		return false;
	page = nop5_get_page(mm, site,
			     FOLL_FORCE | (may_fault ? 0 : FOLL_NOFAULT));
	if (!page)
		return false;
	nop5_read(page, site, text);
	put_page(page);
	return true;
}

/*
 * The bytes from @vaddr - 4 to @vaddr + 4 of @mm, if they lie in one page;
 * mmap_lock held.
 */
static bool nop5_peek_around(struct mm_struct *mm, unsigned long vaddr,
			     u8 *buf)
{
	unsigned long from = vaddr - (NOP5_LEN - 1);
	struct page *page;
	void *kaddr;

	if (vaddr < NOP5_LEN - 1 ||
	    offset_in_page(from) > PAGE_SIZE - (2 * NOP5_LEN - 1))
		return false;
	page = nop5_get_page(mm, from, FOLL_FORCE);
	if (!page)
		return false;
	kaddr = kmap_local_page(page);
	memcpy(buf, kaddr + offset_in_page(from), 2 * NOP5_LEN - 1);
	kunmap_local(kaddr);
	put_page(page);
	return true;
}

/*
 * Put @site of @mm, if it jumps to @slot, back to the int3 (@uprobe, the
 * uprobe its entry named, is still registered) or to the NOP; mmap_lock
 * held for writing, no lock of ours.
 *
 * Where the mapping at @site is not of @uprobe's file at its offset, the
 * jump cannot be ours (it went with the mapping it was written in), and
 * nothing is faulted in to find out: a page already in the page table is
 * read and, if it is an exclusive private copy, written.
 */
static void nop5_restore(struct mm_struct *mm, unsigned long site,
			 unsigned long slot, struct uprobe *uprobe)
{
	bool live = uprobe, mine;
	u8 text[NOP5_LEN];
	struct page *page;

	if (!nop5_text_vma(mm, site))
		return;
	mine = uprobe && uprobe_site_maps(uprobe, vma_lookup(mm, site), site);
	/* read first: no private copy made for a site that does not jump */
	if (!nop5_peek(mm, site, text, mine) ||
	    !nop5_jmps_to(site, text, slot))
		return;
	page = nop5_get_page(mm, site, FOLL_FORCE | FOLL_WRITE |
				       (mine ? 0 : FOLL_NOFAULT));
	if (!page)
		return;
	nop5_read(page, site, text);
	if (nop5_jmps_to(site, text, slot)) {
		nop5_unjump(page, site);
		if (!live) {
			nop5_write(page, site, nop5_insn, 1);
			text_poke_sync();
		}
	}
	put_page(page);
}

/**
 * arch_uprobe_move_vma - x86-64: put back sites that mremap() is about to move
 * @vma: the mapping being moved (mmap_lock held for writing)
 * @start: the start of the range that moves
 * @end: its end
 *
 * A jump's target is relative to the site and a slot names its site by
 * address, so neither holds once the text moves.  Each site of the range
 * that jumps to a slot goes back to its breakpoint (the NOP if no uprobe
 * is left for it) and loses its entry; the moved breakpoint traps at the
 * new address, where the first hit optimizes it again.  This is the
 * process's own mremap(), in its own address space: no lock of ours is
 * held while the text is read and written.
 */
void arch_uprobe_move_vma(struct vm_area_struct *vma, unsigned long start,
			  unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long site, slot;
	struct uprobe *uprobe;

	while ((site = nop5_take_site_in(mm, start, end, &slot, &uprobe))) {
		nop5_restore(mm, site, slot, uprobe);
		if (uprobe)
			uprobe_site_drop(uprobe);
	}
}

/*
 * Turn the int3 at @site of the current mm into a jump to a slot, and make
 * the slot's entry name @auprobe's uprobe.  Any failure leaves the
 * breakpoint as it is (and the entry, if set, names the right uprobe).
 */
static void nop5_optimize(struct arch_uprobe *auprobe, unsigned long site)
{
	struct mm_struct *mm = current->mm;
	u8 text[NOP5_LEN], jmp[NOP5_LEN];
	struct arch_uprobes_mm *st;
	struct uprobe *uprobe;
	struct page *page;
	unsigned long slot;

	if (mmap_write_lock_killable(mm))
		return;
	if (!nop5_text_vma(mm, site))
		goto unlock;
	/*
	 * Under mmap_lock: an unregistration that removed the last consumer
	 * after this still has to restore the site here, which clears the
	 * entry; one that removed it before leaves no reference to take.
	 */
	uprobe = uprobe_site_hold(auprobe);
	if (!uprobe)
		goto unlock;
	/*
	 * Another thread may have mapped something else at the site since the
	 * trap: only the probed file's text is read, or rewritten.
	 */
	if (!uprobe_site_maps(uprobe, vma_lookup(mm, site), site) ||
	    !nop5_peek(mm, site, text, true) || text[0] != NOP5_OPC_INT3 ||
	    memcmp(text + 1, nop5_insn + 1, NOP5_LEN - 1))
		goto drop;
	st = nop5_mm_get(mm);
	if (!st)
		goto drop;
	slot = nop5_slot(mm, st, site, uprobe);
	if (!slot)
		goto drop;

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
	goto unlock;
drop:
	uprobe_site_drop(uprobe);
unlock:
	mmap_write_unlock(mm);
}

/*
 * Back from the jump to the int3 (the generic code then restores the NOP's
 * first byte); mmap_lock held.
 */
static void nop5_unoptimize(struct mm_struct *mm, unsigned long site)
{
	u8 text[NOP5_LEN];
	struct page *page;

	/* whatever the text is now, no entry of this mm names the site */
	nop5_entries_clear_site(mm, site);
	if (!nop5_peek(mm, site, text, true) ||
	    !nop5_is_our_jmp(mm, site, text))
		return;
	page = nop5_get_page(mm, site, FOLL_FORCE | FOLL_WRITE);
	if (!page)
		return;
	nop5_read(page, site, text);
	if (nop5_is_our_jmp(mm, site, text))
		nop5_unjump(page, site);
	put_page(page);
}

static bool nop5_probed(struct arch_uprobe *auprobe)
{
	return !memcmp(auprobe->insn, nop5_insn, NOP5_LEN);
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
		nop5_optimize(auprobe, instruction_pointer(regs));
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
	u8 text[NOP5_LEN], around[2 * NOP5_LEN - 1];
	int k;

	/*
	 * No state, no trampoline page: @mm holds no jump of ours to look
	 * for (a trampoline page is only mapped, or copied by fork(), with
	 * the state; mmap_lock is held for writing, as where it is made).
	 */
	if (!READ_ONCE(mm->uprobes_state.arch))
		return uprobe_write_opcode(auprobe, mm, vaddr,
					   UPROBE_SWBP_INSN);
	if (nop5_probed(auprobe) && nop5_peek(mm, vaddr, text, true) &&
	    nop5_is_our_jmp(mm, vaddr, text))
		return 0;
	/*
	 * A breakpoint in the rel32 of one of our jumps would send the task
	 * astray: refused (a probe inside a NOP that another probe has
	 * optimized).  Jumps are within a page, as their sites are.
	 */
	if (nop5_peek_around(mm, vaddr, around)) {
		for (k = 1; k < NOP5_LEN; k++) {
			if (nop5_is_our_jmp(mm, vaddr - k,
					    around + NOP5_LEN - 1 - k))
				return -EBUSY;
		}
	}
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
