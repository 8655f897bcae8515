// SPDX-License-Identifier: GPL-2.0
/*
 * A short workload that makes the kernel walk reverse maps of every kind:
 * anonymous, shmem (file) and KSM pages are migrated between NUMA nodes 0
 * and 1 with move_pages() (try_to_migrate + remove_migration_ptes), and
 * marked idle through /sys/kernel/mm/page_idle/bitmap (page_idle aging).
 *
 *   rmap-walks [PAGES] [ROUNDS]     defaults: 512 pages, 4 rounds
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mempolicy.h>

static long pagesize;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void move_all(char *mem, size_t pages, int node)
{
	void **addrs = calloc(pages, sizeof(*addrs));
	int *nodes = calloc(pages, sizeof(*nodes));
	int *status = calloc(pages, sizeof(*status));
	size_t i;

	if (!addrs || !nodes || !status)
		die("calloc");
	for (i = 0; i < pages; i++) {
		addrs[i] = mem + i * pagesize;
		nodes[i] = node;
	}
	if (syscall(SYS_move_pages, 0, pages, addrs, nodes, status,
		    MPOL_MF_MOVE_ALL))
		die("move_pages");
	free(addrs);
	free(nodes);
	free(status);
}

static void mark_idle(char *mem, size_t pages)
{
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int bm = open("/sys/kernel/mm/page_idle/bitmap", O_WRONLY);
	size_t i;

	if (pm < 0 || bm < 0)
		die("pagemap or page_idle bitmap");
	for (i = 0; i < pages; i++) {
		uint64_t ent, bits;
		unsigned long pfn;

		if (pread(pm, &ent, sizeof(ent),
			  (uintptr_t)(mem + i * pagesize) / pagesize * 8) != 8)
			die("pagemap");
		if (!(ent & (1ULL << 63)))
			continue;
		pfn = ent & ((1ULL << 55) - 1);
		bits = 1ULL << (pfn % 64);
		if (pwrite(bm, &bits, 8, pfn / 64 * 8) != 8)
			die("page_idle bitmap");
	}
	close(pm);
	close(bm);
}

static void ksm_set(const char *knob, const char *val)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/mm/ksm/%s", knob);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		die(path);
	close(fd);
}

int main(int argc, char **argv)
{
	size_t pages = argc > 1 ? strtoul(argv[1], NULL, 0) : 512;
	int rounds = argc > 2 ? atoi(argv[2]) : 4;
	char *anon, *shm, *ksm;
	int fd, r;

	pagesize = sysconf(_SC_PAGESIZE);
	anon = mmap(NULL, pages * pagesize, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = memfd_create("rmap-walks", 0);
	if (fd < 0 || ftruncate(fd, pages * pagesize))
		die("memfd");
	shm = mmap(NULL, pages * pagesize, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, 0);
	ksm = mmap(NULL, pages * pagesize, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED || shm == MAP_FAILED || ksm == MAP_FAILED)
		die("mmap");
	memset(anon, 1, pages * pagesize);
	memset(shm, 2, pages * pagesize);
	/* KSM: pairs of identical pages, merged by ksmd. */
	for (size_t i = 0; i < pages; i++)
		memset(ksm + i * pagesize, 3 + i / 2 % 200, pagesize);
	if (madvise(ksm, pages * pagesize, MADV_MERGEABLE))
		die("madvise(MADV_MERGEABLE)");
	ksm_set("sleep_millisecs", "0");
	ksm_set("pages_to_scan", "4096");
	ksm_set("run", "1");
	sleep(3);
	ksm_set("run", "0");

	for (r = 0; r < rounds; r++) {
		move_all(anon, pages, (r + 1) % 2);
		move_all(shm, pages, (r + 1) % 2);
		move_all(ksm, pages, (r + 1) % 2);
		mark_idle(anon, pages);
		mark_idle(shm, pages);
		mark_idle(ksm, pages);
	}
	printf("rmap-walks: %zu pages x 3 kinds, %d rounds\n", pages, rounds);
	return 0;
}
