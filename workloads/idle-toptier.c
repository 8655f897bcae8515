// SPDX-License-Identifier: GPL-2.0
/*
 * Idle top-tier memory in a process whose layout keeps changing: what does
 * a kscand scan spend reading page tables that hold no lower-tier page?
 *
 *   idle-toptier MB SECONDS
 *
 * Writes MB of anonymous memory on node 0 once and leaves it idle, its
 * accessed bits cleared through page_idle (so: page tables of old PTEs of
 * top-tier pages only; run as root); writes 2 MiB and moves them
 * to node 1 (so that the process has lower-tier pages to scan); then for SECONDS maps and unmaps a page every 20 ms, so that each
 * scan of kscand's starts a new epoch and reads every page table again.
 * Prints "idle-toptier: placed" once the memory is written, and exits
 * after SECONDS. Read kscand:kscand_scan_end's cpu_ns and tables_read for
 * the process (tgid) meanwhile.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MPOL_MF_MOVE	(1 << 1)

/*
 * MB of anonymous memory, no THP (page tables of 4 KiB pages to read),
 * written once and moved to @node, with the default policy: kscand skips
 * a VMA whose policy binds it.
 */
static char *place(size_t len, int node)
{
	long page = sysconf(_SC_PAGESIZE), n = len / page, i;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void **pages;
	int *nodes, *status;

	if (p == MAP_FAILED || madvise(p, len, MADV_NOHUGEPAGE)) {
		perror("idle-toptier: mmap/madvise");
		exit(1);
	}
	memset(p, 1, len);
	pages = calloc(n, sizeof(*pages));
	nodes = calloc(n, sizeof(*nodes));
	status = calloc(n, sizeof(*status));
	if (!pages || !nodes || !status)
		exit(1);
	for (i = 0; i < n; i++) {
		pages[i] = p + i * page;
		nodes[i] = node;
	}
	if (syscall(SYS_move_pages, 0, n, pages, nodes, status, MPOL_MF_MOVE)) {
		perror("idle-toptier: move_pages");
		exit(1);
	}
	for (i = 0; i < n; i++)
		if (status[i] != node) {
			fprintf(stderr, "idle-toptier: page %ld on %d, not %d\n",
				i, status[i], node);
			exit(1);
		}
	free(pages);
	free(nodes);
	free(status);
	return p;
}

/*
 * Clear the accessed bits of [@p, @p + @len) as reclaim's aging would:
 * mark the pages idle through page_idle (which needs root), from their
 * pfns in /proc/self/pagemap.
 */
static void make_old(char *p, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int idle = open("/sys/kernel/mm/page_idle/bitmap", O_WRONLY);
	uint64_t ent, word = ~0ULL, last = ~0ULL;
	size_t off;

	if (pm < 0 || idle < 0) {
		perror("idle-toptier: pagemap/page_idle");
		exit(1);
	}
	for (off = 0; off < len; off += page) {
		uint64_t pfn;

		if (pread(pm, &ent, 8, (uintptr_t)(p + off) / page * 8) != 8 ||
		    !(ent >> 63)) {
			fprintf(stderr, "idle-toptier: no pfn for a page\n");
			exit(1);
		}
		pfn = ent & ((1ULL << 55) - 1);
		/* the word's other pages marked too: only their readers care */
		if (pfn / 64 != last &&
		    pwrite(idle, &word, 8, pfn / 64 * 8) != 8) {
			perror("idle-toptier: page_idle");
			exit(1);
		}
		last = pfn / 64;
	}
	close(pm);
	close(idle);
}

int main(int argc, char **argv)
{
	struct timespec end, now;
	long page = sysconf(_SC_PAGESIZE);
	size_t len;

	if (argc != 3) {
		fprintf(stderr, "usage: idle-toptier MB SECONDS\n");
		return 2;
	}
	len = strtoul(argv[1], NULL, 0) << 20;
	make_old(place(len, 0), len);
	place(2UL << 20, 1);
	printf("idle-toptier: placed\n");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += strtol(argv[2], NULL, 0);
	do {
		void *q = mmap(NULL, page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (q == MAP_FAILED || munmap(q, page)) {
			perror("idle-toptier: mmap/munmap");
			return 1;
		}
		usleep(20000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	return 0;
}
