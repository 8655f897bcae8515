// SPDX-License-Identifier: GPL-2.0
/*
 * Stress the paths the series traces, from several processes at once, for a
 * fixed time: each worker forks a child per step; the child runs one
 * operation and exits, the worker checks its exit status. The operations:
 *
 *   anon     mmap, fill, mprotect and munmap parts of anonymous memory
 *   shmem    the same on a memfd (shmem) mapping, then a hole punched
 *   dax      read faults on holes, write faults, msync and writes again
 *            (PMD-aligned and not), MAP_SYNC writes, pread/pwrite and
 *            truncate on a file under DAX_DIR (mounted -o dax)
 *   migrate  move_pages() of anonymous and shmem pages to the other node
 *            and back, and mbind(MPOL_MF_MOVE) of a range to node 1
 *   thp      MADV_HUGEPAGE ranges, split by a partial mprotect and munmap,
 *            by move_pages() of one subpage and by debugfs split_huge_pages
 *   ksm      identical MADV_MERGEABLE pages left to ksmd, then written
 *   idle     pages marked idle through /sys/kernel/mm/page_idle/bitmap
 *   pcp      allocation and free bursts of 16 MiB, vm.compact_memory and
 *            vm.percpu_pagelist_high_fraction (which drain the PCP lists),
 *            and vm.drop_caches=2 (slab shrinkers: the vmscan events)
 *   tier     anonymous memory (a THP range too) moved to node 1 and kept
 *            hot for 3 s, for kscand to promote, while parts of it
 *            are mprotected, unmapped, moved back and split under it
 *
 * Data written is read back after each migration or split: a lost or
 * corrupted page fails the step.
 *
 *   stress SECONDS [WORKERS] [DAX_DIR]     defaults: 4 workers, no DAX
 *
 * Each child is named by its operation ("stress-thp" in ps and in the
 * trace). Prints the steps, failures and longest step per operation
 * (the workers start no step after SECONDS, and the run ends with the
 * last); exits 0 only when every child exited 0 and the workers were all
 * reaped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/mempolicy.h>

#define MB	(1UL << 20)
#define PMD	(2 * MB)

static long psize;
static const char *dax_dir;

static void fail(const char *op, const char *what)
{
	fprintf(stderr, "stress: %s: %s: %s\n", op, what, strerror(errno));
	exit(1);
}

static void fill(char *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i += psize)
		memset(p + i, (seed + i / psize) & 0xff, psize);
}

static int check(const char *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i += psize)
		if (p[i] != (char)((seed + i / psize) & 0xff) ||
		    p[i + psize - 1] != (char)((seed + i / psize) & 0xff))
			return -1;
	return 0;
}

static char *map_anon(size_t len, size_t align)
{
	char *p = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		fail("mmap", "anonymous");
	if (!align)
		return p;
	a = ((uintptr_t)p + align - 1) & ~(align - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	munmap((char *)a + len, (uintptr_t)p + align - a);
	return (char *)a;
}

/* A shared mapping of a new memfd (shmem) of @len bytes; its fd in @fdp. */
static char *map_shmem(const char *op, size_t len, int *fdp)
{
	int fd = memfd_create(op, 0);
	char *p;

	if (fd < 0 || ftruncate(fd, len))
		fail(op, "memfd");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		fail(op, "mmap");
	*fdp = fd;
	return p;
}

/* move_pages() every page of [p, p + len) to @node; pages left behind are
 * fine (busy, racing with reclaim), errors of the call itself are not. */
static void move_to(const char *op, char *p, size_t len, int node)
{
	size_t n = len / psize;
	void **pages = calloc(n, sizeof(*pages));
	int *nodes = calloc(n, sizeof(*nodes));
	int *status = calloc(n, sizeof(*status));

	if (!pages || !nodes || !status)
		fail(op, "calloc");
	for (size_t i = 0; i < n; i++) {
		pages[i] = p + i * psize;
		nodes[i] = node;
	}
	if (syscall(SYS_move_pages, 0, n, pages, nodes, status, MPOL_MF_MOVE) < 0)
		fail(op, "move_pages");
	free(pages);
	free(nodes);
	free(status);
}

static void write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		fail(path, "open");
	/* split_huge_pages and compact_memory may fail for busy pages */
	if (write(fd, val, strlen(val)) < 0 && errno != EBUSY && errno != EINVAL)
		fail(path, "write");
	close(fd);
}

static void op_anon(unsigned int seed)
{
	size_t len = (64 + seed % 512) * psize;
	char *p = map_anon(len, 0);

	fill(p, len, seed);
	if (mprotect(p + psize, len / 2, PROT_READ))
		fail("anon", "mprotect");
	if (check(p, len, seed))
		fail("anon", "data");
	if (mprotect(p + psize, len / 2, PROT_READ | PROT_WRITE))
		fail("anon", "mprotect");
	munmap(p + len / 4, len / 4);
	fill(p, len / 4, seed + 1);
	munmap(p, len);
}

static void op_shmem(unsigned int seed)
{
	size_t len = (64 + seed % 512) * psize;
	int fd;
	char *p = map_shmem("shmem", len, &fd);

	fill(p, len, seed);
	if (mprotect(p, len / 2, PROT_READ) || check(p, len, seed))
		fail("shmem", "mprotect or data");
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, len / 2))
		fail("shmem", "punch hole");
	munmap(p, len);
	close(fd);
}

static void op_dax(unsigned int seed)
{
	size_t len = 8 * MB;
	char path[256], buf[6000];
	char *p;
	int fd;

	if (!dax_dir)
		return;
	snprintf(path, sizeof(path), "%s/stress.%d", dax_dir, getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, len))
		fail("dax", path);
	/* PMD faults on an aligned mapping, PTE faults on a skewed one */
	p = map_anon(len, PMD);
	p = mmap(p + (seed & 1) * psize, len - PMD, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED)
		fail("dax", "mmap");
	/* read faults map holes (the zero page, or the huge zero folio) */
	for (size_t i = 0; i < len - PMD; i += psize)
		if (p[i])
			fail("dax", "hole not zero");
	fill(p, len - PMD, seed);
	/* writeback write-protects the entries; writing again makes them
	 * writable through pfn_mkwrite */
	if (msync(p, len - PMD, MS_SYNC))
		fail("dax", "msync");
	for (size_t i = 0; i < len - PMD; i += 64 * psize)
		p[i] = (char)((seed + i / psize) & 0xff);
	if (check(p, len - PMD, seed))
		fail("dax", "data");
	munmap(p, len - PMD);
	/* MAP_SYNC over blocks not yet allocated: the write fault syncs the
	 * new metadata and then inserts the pfn writable */
	p = mmap(NULL, 16 * psize, PROT_READ | PROT_WRITE,
		 MAP_SHARED_VALIDATE | MAP_SYNC, fd, len - PMD);
	if (p == MAP_FAILED)
		fail("dax", "mmap(MAP_SYNC)");
	if (msync(p, 16 * psize, MS_SYNC))
		fail("dax", "msync");
	memset(p, seed & 0xff, 16 * psize);
	munmap(p, 16 * psize);
	memset(buf, seed & 0xff, sizeof(buf));
	if (pwrite(fd, buf, sizeof(buf), 4097 + seed % 8192) != sizeof(buf) ||
	    pread(fd, buf, sizeof(buf), 3 * MB + 17) != sizeof(buf))
		fail("dax", "pwrite/pread");
	if (ftruncate(fd, 5 * MB + 1234))
		fail("dax", "truncate");
	close(fd);
	unlink(path);
}

static void op_migrate(unsigned int seed)
{
	size_t len = 256 * psize;
	unsigned long node1 = 1UL << 1;
	char *p = map_anon(len, 0), *s;
	int fd;

	s = map_shmem("migrate", len, &fd);
	fill(p, len, seed);
	fill(s, len, seed + 7);
	move_to("migrate", p, len, 1);
	move_to("migrate", s, len, 1);
	if (check(p, len, seed) || check(s, len, seed + 7))
		fail("migrate", "data after move to node 1");
	move_to("migrate", p, len, 0);
	move_to("migrate", s, len, 0);
	if (syscall(SYS_mbind, p, len / 2, MPOL_BIND, &node1, 8 * sizeof(node1),
		    MPOL_MF_MOVE) < 0)
		fail("migrate", "mbind");
	if (check(p, len, seed) || check(s, len, seed + 7))
		fail("migrate", "data after move back");
	munmap(p, len);
	munmap(s, len);
	close(fd);
}

static void op_thp(unsigned int seed)
{
	size_t len = 4 * PMD;
	char *p = map_anon(len, PMD), cmd[96];

	if (madvise(p, len, MADV_HUGEPAGE))
		fail("thp", "madvise(MADV_HUGEPAGE)");
	fill(p, len, seed);
	/* split the first by mprotect, the second by munmap, the third by
	 * migrating one subpage, the fourth through debugfs */
	if (mprotect(p + 16 * psize, psize, PROT_READ))
		fail("thp", "mprotect");
	munmap(p + PMD + 16 * psize, psize);
	move_to("thp", p + 2 * PMD + 5 * psize, psize, 1);
	snprintf(cmd, sizeof(cmd), "%d,0x%lx,0x%lx", getpid(),
		 (unsigned long)(p + 3 * PMD), (unsigned long)(p + 4 * PMD));
	write_file("/sys/kernel/debug/split_huge_pages", cmd);
	if (check(p, PMD, seed) || check(p + 2 * PMD, 2 * PMD, seed + 2 * PMD / psize))
		fail("thp", "data after split");
	munmap(p, len);
}

static void op_ksm(unsigned int seed)
{
	size_t len = 128 * psize;
	char *p = map_anon(len, 0);
	struct timespec ts = { 0, 200 * 1000 * 1000 };

	for (size_t i = 0; i < len; i += psize)
		memset(p + i, (seed + i / psize / 4) & 0xff, psize);
	if (madvise(p, len, MADV_MERGEABLE))
		fail("ksm", "madvise(MADV_MERGEABLE)");
	nanosleep(&ts, NULL);
	/* write to merged pages: copy on write out of the KSM page */
	for (size_t i = 0; i < len; i += 8 * psize)
		p[i] = 1;
	move_to("ksm", p, len, seed & 1);
	munmap(p, len);
}

static void op_idle(unsigned int seed)
{
	size_t len = 128 * psize;
	char *p = map_anon(len, 0);
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int bm = open("/sys/kernel/mm/page_idle/bitmap", O_RDWR);

	if (pm < 0 || bm < 0)
		fail("idle", "pagemap or page_idle bitmap");
	fill(p, len, seed);
	for (size_t i = 0; i < len; i += psize) {
		uint64_t ent, bits;

		if (pread(pm, &ent, 8, (uintptr_t)(p + i) / psize * 8) != 8)
			fail("idle", "pagemap");
		if (!(ent & (1ULL << 63)))
			continue;
		ent &= (1ULL << 55) - 1;
		bits = 1ULL << (ent % 64);
		if (pwrite(bm, &bits, 8, ent / 64 * 8) != 8 ||
		    pread(bm, &bits, 8, ent / 64 * 8) != 8)
			fail("idle", "page_idle bitmap");
	}
	close(pm);
	close(bm);
	munmap(p, len);
}

static void op_pcp(unsigned int seed)
{
	static const char *const fractions[] = { "8", "0", "100", "0" };
	size_t len = 16 * MB;
	char *p;

	for (int i = 0; i < 4; i++) {
		p = map_anon(len, 0);
		memset(p, i, len);
		munmap(p, len);
	}
	if (seed % 4 == 0)
		write_file("/proc/sys/vm/compact_memory", "1");
	if (seed % 4 == 1)
		write_file("/proc/sys/vm/drop_caches", "2");
	write_file("/proc/sys/vm/percpu_pagelist_high_fraction",
		   fractions[seed % 4]);
}

static void op_tier(unsigned int seed)
{
	size_t len = 2 * PMD;
	char *p = map_anon(len, PMD);
	struct timespec t0, t;
	int round = 0;

	madvise(p, PMD, MADV_HUGEPAGE);
	fill(p, len, seed);
	move_to("tier", p, len, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (size_t i = 0; i < len; i += psize)
			if (p[i] != (char)((seed + i / psize) & 0xff))
				fail("tier", "data while kept hot");
		switch (round++) {
		case 20:	/* split the THP under the scan */
			mprotect(p + 8 * psize, psize, PROT_READ);
			break;
		case 40:
			move_to("tier", p + PMD, PMD / 2, 0);
			break;
		case 60:
			munmap(p + PMD + PMD / 2, PMD / 2);
			len = PMD + PMD / 2;
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 3);
	if (check(p, len, seed))
		fail("tier", "data after promotion");
	munmap(p, len);
}

static const struct {
	const char *name;
	void (*fn)(unsigned int seed);
} ops[] = {
	{ "anon", op_anon }, { "shmem", op_shmem }, { "dax", op_dax },
	{ "migrate", op_migrate }, { "thp", op_thp }, { "ksm", op_ksm },
	{ "idle", op_idle }, { "pcp", op_pcp }, { "tier", op_tier },
};
#define NR_OPS (sizeof(ops) / sizeof(ops[0]))

/*
 * A worker: one child per step until @end; adds to @res its steps, failed
 * steps and (a maximum) its longest step in ms, per operation.
 */
static void worker(int id, time_t end, unsigned long (*res)[3])
{
	for (unsigned int step = id; time(NULL) < end; step++) {
		unsigned int op = step % NR_OPS;
		struct timespec t0, t1;
		unsigned long ms;
		int status;
		pid_t pid;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		pid = fork();

		if (pid < 0)
			fail("worker", "fork");
		if (!pid) {
			char name[16];

			/* a hang names the operation: "stress-migrate" */
			snprintf(name, sizeof(name), "stress-%s", ops[op].name);
			prctl(PR_SET_NAME, name);
			srand(step);
			ops[op].fn(step * 7919 + id);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid)
			fail("worker", "waitpid");
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = (t1.tv_sec - t0.tv_sec) * 1000 +
		     (t1.tv_nsec - t0.tv_nsec) / 1000000;
		__atomic_fetch_add(&res[op][0], 1, __ATOMIC_RELAXED);
		/* the longest step: what a run's end waits for */
		for (unsigned long max = res[op][2]; ms > max &&
		     !__atomic_compare_exchange_n(&res[op][2], &max, ms, 0,
						  __ATOMIC_RELAXED, __ATOMIC_RELAXED);)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			__atomic_fetch_add(&res[op][1], 1, __ATOMIC_RELAXED);
			fprintf(stderr, "stress: worker %d: %s child %s %d\n", id,
				ops[op].name,
				WIFEXITED(status) ? "exited" : "killed by signal",
				WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		}
	}
	exit(0);
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 60;
	int workers = argc > 2 ? atoi(argv[2]) : 4;
	unsigned long (*res)[3], steps = 0, failed = 0;
	time_t end;
	int w, status, bad = 0;

	if (argc < 2 || secs <= 0 || workers <= 0) {
		fprintf(stderr, "usage: stress SECONDS [WORKERS] [DAX_DIR]\n");
		return 2;
	}
	dax_dir = argc > 3 ? argv[3] : NULL;
	psize = sysconf(_SC_PAGESIZE);
	res = mmap(NULL, NR_OPS * sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED)
		fail("main", "mmap");
	end = time(NULL) + secs;
	for (w = 0; w < workers; w++) {
		pid_t pid = fork();

		if (pid < 0)
			fail("main", "fork");
		if (!pid)
			worker(w, end, res);
	}
	for (w = 0; w < workers; w++) {
		if (wait(&status) < 0)
			fail("main", "wait");
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	for (unsigned int op = 0; op < NR_OPS; op++) {
		if (!dax_dir && ops[op].fn == op_dax)
			continue;
		printf("stress: %-8s %6lu steps, %lu failed, the longest %.1f s\n",
		       ops[op].name, res[op][0], res[op][1], res[op][2] / 1000.0);
		steps += res[op][0];
		failed += res[op][1];
	}
	printf("stress: %d workers, %d s: %lu steps (each a forked child), %lu failed, %d workers failed\n",
	       workers, secs, steps, failed, bad);
	return failed || bad ? 1 : 0;
}
