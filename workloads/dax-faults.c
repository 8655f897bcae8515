// SPDX-License-Identifier: GPL-2.0
/*
 * A short workload of DAX faults for "make run", on a file system mounted
 * with -o dax: round after round, PMD faults that succeed and PMD faults
 * that fall back to PTEs, each for a known reason (the reasons of
 * dax_pmd_fault_done; see Documentation/trace/events-fs-dax.rst):
 *   - a write and a read through an aligned MAP_SHARED mapping: PMD;
 *   - a read of a hole through an aligned MAP_SHARED mapping: the huge
 *     zero folio (dax_pmd_load_hole);
 *   - a write through a MAP_PRIVATE mapping: "private_write";
 *   - a read through a mapping 4 KiB off the file's 2 MiB colour: "colour";
 *   - a read where a 4 KiB fault left a PTE entry: "pte_entry";
 *   - a read of a mapping only 1 MiB long: "outside_vma";
 *   - a read of the last, partial 2 MiB of a 3 MiB file: "eof".
 * Then a pwrite() and a pread() (dax_iomap_rw) and a truncate
 * (dax_zero_range).
 *
 *   dax-faults DIR [ROUNDS]     default: 4 rounds
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE	4096UL
#define PMD	(2UL << 20)

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Map @len bytes of @fd at offset @off, @skew bytes past a PMD boundary. */
static char *map_at(int fd, size_t len, int flags, off_t off, size_t skew)
{
	size_t rlen = len + 2 * PMD;
	unsigned long a;
	char *r, *p;

	r = mmap(NULL, rlen, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		die("mmap reserve");
	a = ((unsigned long)r + PMD - 1) & ~(PMD - 1);
	munmap(r, rlen);
	p = mmap((void *)(a + skew), len, PROT_READ | PROT_WRITE,
		 flags | MAP_FIXED, fd, off);
	if (p == MAP_FAILED)
		die("mmap file");
	return p;
}

/* One fault at @at of a fresh mapping (see map_at()), then unmap. */
static void fault(int fd, size_t len, int flags, off_t off, size_t skew,
		  size_t at, int write)
{
	char *p = map_at(fd, len, flags, off, skew);

	if (write)
		*(volatile char *)(p + at) = 1;
	else
		(void)*(volatile char *)(p + at);
	munmap(p, len);
}

static int create(const char *dir, const char *name, off_t size)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, size))
		die(path);
	unlink(path);
	return fd;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 4;
	static char buf[PAGE];
	int fd, eof_fd, r;

	if (argc < 2) {
		fprintf(stderr, "usage: dax-faults DIR [ROUNDS]\n");
		return 2;
	}
	/* In PMDs: 0 hole, 1 written, 2 private, 3 colour, 4 pte_entry, 5 short vma. */
	fd = create(argv[1], "dax-faults", 6 * PMD);
	eof_fd = create(argv[1], "dax-faults-eof", PMD + PMD / 2);
	/* A 4 KiB fault through a misaligned mapping leaves a PTE entry. */
	fault(fd, PMD, MAP_SHARED, 4 * PMD, PAGE, 0, 0);

	for (r = 0; r < rounds; r++) {
		fault(fd, 2 * PMD, MAP_SHARED, 0, 0, PMD + 3 * PAGE, 1);
		fault(fd, 2 * PMD, MAP_SHARED, 0, 0, PMD + 5 * PAGE, 0);
		fault(fd, PMD, MAP_SHARED, 0, 0, 7 * PAGE, 0);
		fault(fd, PMD, MAP_PRIVATE, 2 * PMD, 0, 0, 1);
		fault(fd, 2 * PMD, MAP_SHARED, 3 * PMD, PAGE, PMD / 2, 0);
		fault(fd, PMD, MAP_SHARED, 4 * PMD, 0, 0, 0);
		fault(fd, PMD / 2, MAP_SHARED, 5 * PMD, 0, 0, 0);
		fault(eof_fd, 2 * PMD, MAP_SHARED, 0, 0, PMD + PAGE, 0);
	}
	memset(buf, 1, sizeof(buf));
	if (pwrite(fd, buf, sizeof(buf), 3 * PMD) != sizeof(buf) ||
	    pread(fd, buf, sizeof(buf), PMD) != sizeof(buf))
		die("pwrite/pread");
	if (ftruncate(fd, PMD + PAGE / 2))
		die("ftruncate");
	printf("dax-faults: %d rounds of 8 faults in %s\n", rounds, argv[1]);
	close(eof_fd);
	close(fd);
	return 0;
}
