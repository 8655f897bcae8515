// SPDX-License-Identifier: GPL-2.0
/*
 * Time DAX faults and I/O on a file system mounted with -o dax: round after
 * round, on one CPU,
 *   pmd:      map a written file 2 MiB-aligned and read one byte per 2 MiB
 *             (each a PMD fault that succeeds), unmap;
 *   fallback: the same through a mapping 4 KiB off the 2 MiB colour (each
 *             a PMD fault that falls back, then a PTE fault);
 *   read:     pread() 4 KiB at successive offsets.
 * Prints the best round's nanoseconds per fault or call; run under
 * "scripts/vm-run --icount" so that kernels and event settings can be
 * compared by instruction count.
 *
 *   dax-bench DIR [ROUNDS]     default: 10 rounds
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

#define MB		(1UL << 20)
#define PMD		(2 * MB)
#define FILE_SIZE	(64 * MB)
#define NR_PMDS		(FILE_SIZE / PMD)
#define NR_READS	4096

static char *map_at(int fd, size_t skew)
{
	unsigned long a;
	char *p;

	p = mmap(NULL, FILE_SIZE + 2 * PMD, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return p;
	a = ((unsigned long)p + PMD - 1) & ~(PMD - 1);
	munmap(p, FILE_SIZE + 2 * PMD);
	return mmap((void *)(a + skew), FILE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_FIXED, fd, 0);
}

/* ns per PMD-sized step of one pass over a mapping @skew off the colour. */
static double faults(int fd, size_t skew)
{
	char *p = map_at(fd, skew);
	double t0 = now_ns();
	size_t i;

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	for (i = 0; i < NR_PMDS - 1; i++)
		(void)*(volatile char *)(p + i * PMD + PMD / 2);
	munmap(p, FILE_SIZE);
	return (now_ns() - t0) / (NR_PMDS - 1);
}

static double reads(int fd)
{
	static char buf[4096];
	double t0 = now_ns();
	int i;

	for (i = 0; i < NR_READS; i++)
		if (pread(fd, buf, sizeof(buf), (off_t)i * 4096) != 4096) {
			perror("pread");
			exit(1);
		}
	return (now_ns() - t0) / NR_READS;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 10;
	double best[3] = { 0 }, t;
	static const char *const name[] = { "pmd", "fallback", "read" };
	char path[4096], *p;
	cpu_set_t cpus;
	int fd, r, m;

	if (argc < 2) {
		fprintf(stderr, "usage: dax-bench DIR [ROUNDS]\n");
		return 2;
	}
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	snprintf(path, sizeof(path), "%s/dax-bench.%d", argv[1], getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, FILE_SIZE)) {
		perror(path);
		return 1;
	}
	/* Write the whole file, so that faults map storage, not holes. */
	p = map_at(fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(p, 1, FILE_SIZE);
	munmap(p, FILE_SIZE);

	for (r = 0; r < rounds; r++) {
		for (m = 0; m < 3; m++) {
			t = m == 2 ? reads(fd) : faults(fd, m ? 4096 : 0);
			if (!r || t < best[m])
				best[m] = t;
		}
	}
	for (m = 0; m < 3; m++)
		printf("dax-bench: %s: best of %d rounds: %.1f ns per %s\n",
		       name[m], rounds, best[m], m == 2 ? "read" : "fault");
	unlink(path);
	return 0;
}
