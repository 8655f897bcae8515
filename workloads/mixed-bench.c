// SPDX-License-Identifier: GPL-2.0
/*
 * A fixed mix of the mm paths the series traces, timed phase by phase:
 * fork/exit, fork/exec/exit, anonymous faults and unmap, migration to
 * node 1 and back (move_pages), page_idle marking, and file
 * write/read/truncate in tmpfs.
 * Best of ROUNDS per phase, in ns per operation; run under
 * "scripts/vm-run --icount" (guest time counts instructions) to compare a
 * base kernel with the series with every event off.
 *
 *   mixed-bench [ROUNDS]     default 5
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <numaif.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define FORKS		200
#define EXECS		50
#define ANON_MB		16
#define MIGRATE_MB	4
#define FILE_MB		16

static long psize;

static void phase_fork(void)
{
	int i, st;

	for (i = 0; i < FORKS; i++) {
		pid_t pid = fork();

		if (!pid)
			_exit(0);
		waitpid(pid, &st, 0);
	}
}

/* fork, exec a small program, exit: the paths that register an mm */
static void phase_exec(void)
{
	int i, st;

	for (i = 0; i < EXECS; i++) {
		pid_t pid = fork();

		if (!pid) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(1);
		}
		waitpid(pid, &st, 0);
	}
}

static void phase_anon(void)
{
	size_t size = ANON_MB << 20, i;
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	madvise(p, size, MADV_NOHUGEPAGE);
	for (i = 0; i < size; i += psize)
		p[i] = 1;
	munmap(p, size);
}

static void phase_migrate(void)
{
	size_t size = MIGRATE_MB << 20, n = size / psize, i;
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void **pages = malloc(n * sizeof(*pages));
	int *nodes = malloc(n * sizeof(int)), *status = malloc(n * sizeof(int));
	int to;

	if (p == MAP_FAILED || !pages || !nodes || !status)
		exit(1);
	madvise(p, size, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++) {
		p[i * psize] = 1;
		pages[i] = p + i * psize;
	}
	for (to = 1; to >= 0; to--) {
		for (i = 0; i < n; i++)
			nodes[i] = to;
		if (move_pages(0, n, pages, nodes, status, MPOL_MF_MOVE))
			exit(1);
	}
	munmap(p, size);
	free(pages);
	free(nodes);
	free(status);
}

/* Mark this process's anonymous pages idle through the page_idle bitmap. */
static void phase_idle(void)
{
	size_t size = ANON_MB << 20, i;
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int bm = open("/sys/kernel/mm/page_idle/bitmap", O_RDWR);
	uint64_t ent, bits = ~0ULL;

	if (p == MAP_FAILED || pm < 0 || bm < 0)
		exit(1);
	madvise(p, size, MADV_NOHUGEPAGE);
	for (i = 0; i < size; i += psize) {
		p[i] = 1;
		if (pread(pm, &ent, 8, (uintptr_t)(p + i) / psize * 8) != 8)
			exit(1);
		ent &= (1ULL << 55) - 1;	/* the pfn */
		pwrite(bm, &bits, 8, ent / 64 * 8);
	}
	close(pm);
	close(bm);
	munmap(p, size);
}

static void phase_file(void)
{
	static char buf[65536];
	int fd = open("/tmp/mixed-bench", O_RDWR | O_CREAT | O_TRUNC, 0600);
	size_t i;

	if (fd < 0)
		exit(1);
	memset(buf, 1, sizeof(buf));
	for (i = 0; i < (FILE_MB << 20) / sizeof(buf); i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			exit(1);
	for (i = 0; i < (FILE_MB << 20) / sizeof(buf); i++)
		if (pread(fd, buf, sizeof(buf), i * sizeof(buf)) != sizeof(buf))
			exit(1);
	ftruncate(fd, 0);
	close(fd);
	unlink("/tmp/mixed-bench");
}

static const struct {
	const char *name;
	void (*fn)(void);
	long ops;
} phases[] = {
	{ "fork+exit", phase_fork, FORKS },
	{ "fork+exec+exit", phase_exec, EXECS },
	{ "anon fault+unmap (page)", phase_anon, ANON_MB << 8 },
	{ "move_pages there+back (page)", phase_migrate, MIGRATE_MB << 8 },
	{ "page_idle mark (page)", phase_idle, ANON_MB << 8 },
	{ "tmpfs write+read+truncate (64K)", phase_file, FILE_MB << 4 },
};

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5, r, i;
	double best[ARRAY_SIZE(phases)] = { 0 }, t0, t, total = 0;

	psize = sysconf(_SC_PAGESIZE);
	pin_to_cpu(0);
	for (r = 0; r < rounds; r++)
		for (i = 0; i < ARRAY_SIZE(phases); i++) {
			t0 = now_ns();
			phases[i].fn();
			t = now_ns() - t0;
			if (!r || t < best[i])
				best[i] = t;
		}
	for (i = 0; i < ARRAY_SIZE(phases); i++) {
		printf("%-34s %10.1f ns per op\n", phases[i].name,
		       best[i] / phases[i].ops);
		total += best[i];
	}
	printf("%-34s %10.0f ns\n", "total (best rounds)", total);
	return 0;
}
