// SPDX-License-Identifier: GPL-2.0
/*
 * Time per-CPU page list traffic: on one CPU, fault in an anonymous mapping
 * page by page (PCP refills) and unmap it (PCP drains, once the lists are
 * full), round after round. Prints nanoseconds per page (fault + free);
 * run under "scripts/vm-run --icount" so that kernels and event settings
 * can be compared by instruction count.
 *
 *   pcp-bench [MIB] [ROUNDS]     defaults: 32 MiB, 10 rounds
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

int main(int argc, char **argv)
{
	size_t size = (argc > 1 ? strtoul(argv[1], NULL, 0) : 32) << 20;
	int rounds = argc > 2 ? atoi(argv[2]) : 10;
	long psize = sysconf(_SC_PAGESIZE);
	double t0, t, best = 0;
	cpu_set_t cpus;
	size_t i;
	char *mem;
	int r;

	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	for (r = 0; r < rounds; r++) {
		t0 = now_ns();
		mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		madvise(mem, size, MADV_NOHUGEPAGE);
		for (i = 0; i < size; i += psize)
			mem[i] = 1;
		munmap(mem, size);
		t = (now_ns() - t0) / (size / psize);
		if (!r || t < best)
			best = t;
	}
	printf("pcp-bench: %zu MiB, %d rounds: best %.1f ns per page\n",
	       size >> 20, rounds, best);
	return 0;
}
