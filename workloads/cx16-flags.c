// SPDX-License-Identifier: GPL-2.0
/*
 * Checks the CPU (or emulator) this runs on for the EFLAGS fault that made
 * scripts/vm-run hide CMPXCHG16B from its guests: QEMU 7.2's TCG, after a
 * popf, computes the flags of a following cmpxchg16b from a stale
 * condition-code state, and EFLAGS takes the source operand of the last
 * add instead. In a guest kernel built without SLUB_TINY, SLUB's fast
 * path runs cmpxchg16b on every allocation; an interrupt before the next
 * flag-setting instruction saves and restores those flags (seen: a trap
 * flag giving a #DB WARNING, reserved bits and a double fault in
 * __kmalloc_noprof).
 *
 *   make -C workloads cx16-flags      # into build/workloads
 *   VM_CPU=max scripts/vm-run build/workloads/cx16-flags  # fails, QEMU 7.2
 *
 * Exit 0: EFLAGS right in every round; 1: wrong; 4: no cmpxchg16b here.
 */
#include <cpuid.h>
#include <stdio.h>
#include <asm/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned __int128 slot __attribute__((aligned(16)));

int main(void)
{
	unsigned int a, b, c, d;
	unsigned long bad = 0, n = 1000000, last = 0;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_CMPXCHG16B)) {
		printf("no cmpxchg16b on this CPU\n");
		return 4;
	}
	if (syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)&slot)) {
		perror("arch_prctl(ARCH_SET_GS)");
		return 1;
	}
	for (unsigned long i = 0; i < n; i++) {
		unsigned long rax = (unsigned long)slot;
		unsigned long rdx = (unsigned long)(slot >> 64);
		unsigned long rbx = rax + 1, rcx = rdx, r8 = 0, x = 0x12345600;
		unsigned long flags;

		/* IF set; the add leaves PF; the exchange succeeds: ZF */
		asm volatile("pushq $0x202\n\tpopfq\n\t"
			     "add %[x], %[r8]\n\t"
			     "cmpxchg16b %%gs:0\n\t"
			     "pushfq\n\tpopq %[f]\n\t"
			     : "+a"(rax), "+d"(rdx), [r8] "+r"(r8), [f] "=r"(flags)
			     : "b"(rbx), "c"(rcx), [x] "r"(x)
			     : "memory", "cc");
		if (flags != 0x246) {
			bad++;
			last = flags;
		}
	}
	if (bad)
		printf("%lu of %lu: EFLAGS 0x%lx after cmpxchg16b, not 0x246\n",
		       bad, n, last);
	else
		printf("%lu of %lu: EFLAGS right after cmpxchg16b\n", n, n);
	return bad != 0;
}
