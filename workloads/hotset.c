// SPDX-License-Identifier: GPL-2.0
/*
 * A small hot set on a lower-tier node, kept hot by a process that has its
 * CPU to itself: how long until a promoter has moved it to node 0?
 *
 *   hotset NODE KB SECONDS
 *
 * A child pinned to CPU 1 writes KB of anonymous memory once, moves it to
 * NODE with move_pages() and then writes every page of it in a busy loop,
 * making no system call; the parent prints "hotset: placed" then. The
 * parent, pinned to CPU 0, asks every 100 ms
 * (move_pages() on the child) how many of the pages are on node 0, and
 * prints when 95% were, and the final count after SECONDS.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"

#define MPOL_MF_MOVE	(1 << 1)

static void pin(int cpu)
{
	if (pin_to_cpu(cpu))
		perror("sched_setaffinity");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE), n, i, on0;
	int node, secs, pfd[2], *nodes, *status;
	double t0, hit = -1;
	void **pages;
	char *p;
	pid_t pid;

	if (argc != 4) {
		fprintf(stderr, "usage: hotset NODE KB SECONDS\n");
		return 2;
	}
	node = atoi(argv[1]);
	n = atol(argv[2]) * 1024 / psz;
	secs = atoi(argv[3]);
	p = mmap(NULL, n * psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pages = calloc(n, sizeof(*pages));
	nodes = calloc(n, sizeof(*nodes));
	status = calloc(n, sizeof(*status));
	if (p == MAP_FAILED || !pages || !nodes || !status || pipe(pfd))
		return 1;
	madvise(p, n * psz, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++) {
		pages[i] = p + i * psz;
		nodes[i] = node;
	}
	pid = fork();
	if (!pid) {
		pin(1);
		for (i = 0; i < n; i++)
			p[i * psz] = 1;
		if (syscall(SYS_move_pages, 0, n, pages, nodes, status,
			    MPOL_MF_MOVE))
			_exit(1);
		if (write(pfd[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			for (i = 0; i < n; i++)
				((volatile char *)p)[i * psz] = 1;
	}
	pin(0);
	close(pfd[1]);		/* read() sees the end if the child dies */
	if (read(pfd[0], &i, 1) != 1)
		return 1;
	printf("hotset: placed\n");
	fflush(stdout);
	t0 = now();
	do {
		usleep(100000);
		if (syscall(SYS_move_pages, pid, n, pages, NULL, status, 0))
			return 1;
		for (on0 = i = 0; i < n; i++)
			on0 += status[i] == 0;
		if (hit < 0 && on0 >= n * 95 / 100)
			hit = now() - t0;
	} while (now() - t0 < secs);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	printf("hotset: %ld of %ld pages on node 0 after %d s; 95%% after %s",
	       on0, n, secs, hit < 0 ? "never" : "");
	if (hit >= 0)
		printf("%.1f s", hit);
	printf("\n");
	return 0;
}
