// SPDX-License-Identifier: GPL-2.0
/*
 * Time reverse map walks: mark each page of an anonymous mapping idle
 * through /sys/kernel/mm/page_idle/bitmap, which walks its rmap once
 * (page_idle_clear_pte_refs -> rmap_walk). Prints nanoseconds per walk,
 * including the bitmap write; run under "scripts/vm-run --icount" so that
 * two kernels can be compared by instruction count.
 *
 *   rmap-bench [PAGES] [ROUNDS]     defaults: 4096 pages, 20 rounds
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

int main(int argc, char **argv)
{
	size_t pages = argc > 1 ? strtoul(argv[1], NULL, 0) : 4096;
	int rounds = argc > 2 ? atoi(argv[2]) : 20;
	long psize = sysconf(_SC_PAGESIZE);
	unsigned long *pfn = calloc(pages, sizeof(*pfn));
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int bm = open("/sys/kernel/mm/page_idle/bitmap", O_WRONLY);
	double t0, best = 0;
	char *mem;
	size_t i;
	int r;

	mem = mmap(NULL, pages * psize, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!pfn || pm < 0 || bm < 0 || mem == MAP_FAILED) {
		perror("rmap-bench setup");
		return 1;
	}
	/*
	 * Small pages: page_idle skips the tail pages of a THP, so with THP
	 * "always" most bits would walk nothing.
	 */
	madvise(mem, pages * psize, MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++)
		mem[i * psize] = 1;
	for (i = 0; i < pages; i++) {
		uint64_t ent;

		if (pread(pm, &ent, 8, (uintptr_t)(mem + i * psize) / psize * 8) != 8 ||
		    !(ent & (1ULL << 63))) {
			fprintf(stderr, "rmap-bench: page %zu not present\n", i);
			return 1;
		}
		pfn[i] = ent & ((1ULL << 55) - 1);
	}
	for (r = 0; r < rounds; r++) {
		t0 = now_ns();
		for (i = 0; i < pages; i++) {
			uint64_t bits = 1ULL << (pfn[i] % 64);

			if (pwrite(bm, &bits, 8, pfn[i] / 64 * 8) != 8) {
				perror("page_idle bitmap");
				return 1;
			}
		}
		t0 = (now_ns() - t0) / pages;
		if (!r || t0 < best)
			best = t0;
	}
	printf("rmap-bench: %zu pages, %d rounds: best %.1f ns per page_idle walk\n",
	       pages, rounds, best);
	return 0;
}
