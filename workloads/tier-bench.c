// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with a known hot set on a lower-tier node, for comparing
 * promoters of hot pages (NUMA balancing's tiering mode, kscand, DAMON).
 *
 *   tier-bench [-b] [-t TICK_US] [-G GOFILE] [-S SAMPLE] [-n NODE] [-s STEADY_S] [-m MOVED_S]
 *              [-q QUIET_S] [-H HOT_MB] [-W WARM_MB] [-w WARM_PERIOD_S]
 *              [-O ONESHOT_MB] [-C COLD_MB] [-I IDLE_MB]
 *
 * One anonymous region, 4 KiB pages (MADV_NOHUGEPAGE), all of it placed on
 * NODE (default 1) by a temporary MPOL_BIND and then left to the default
 * policy, laid out as
 *
 *   | hot A | warm | one-shot | cold: hot B, then the rest |
 *
 * For STEADY_S seconds the process writes every page of hot A, pass after
 * pass, making no system call; then hot A goes cold and hot B, until then
 * cold, is written the same way for MOVED_S seconds. The warm set is
 * written once every WARM_PERIOD_S seconds, the one-shot set once, a third
 * of the way into the steady phase; the cold set never after placement.
 * With -q, a third phase of QUIET_S seconds follows in which no page on
 * NODE is written at all: the process writes hot set C, HOT_MB placed on
 * node 0, the same way (what a promoter costs while there is nothing to
 * promote). A second process, forked before the region exists, holds
 * IDLE_MB on NODE and sleeps. The workload runs on CPU 0. With -b one more process per
 * online CPU spins on that CPU all along, as on a loaded machine, counting
 * its loops; without, the workload has CPU 0 to itself and the other CPUs
 * are idle.
 *
 * With -t, one more process on CPU 0 sleeps TICK_US microseconds at a time,
 * waking the CPU to switch address spaces and back. QEMU's software TLB
 * holds far more than a real CPU's (the whole hot set) and is refilled,
 * setting accessed bits again, only when it is flushed: on a CR3 switch
 * among others. A scanner that clears accessed bits without a flush (page
 * idle tracking, DAMON) then sees a process that has its CPU to itself
 * only at those switches; the ticker gives it one every TICK_US, where a
 * real CPU's TLB misses would give it many.
 *
 * Placing is an access, and migration keeps the accessed bit: once every
 * page is on NODE (pages that move_pages() finds elsewhere, for instance
 * not yet on an LRU list, are moved again, a bounded number of times),
 * both processes madvise(MADV_COLD) their memory, which clears the
 * accessed bits and flushes the TLB. With -G, the process then prints
 * "range" lines (each set's virtual address range, for a trace filter) and
 * the CSV header, and waits for GOFILE to exist before it starts: a
 * promoter turned on in between sees none of the placement.
 *
 * Every second the process asks move_pages() where every SAMPLE-th page
 * (-S, default 4) is and prints one CSV line: the guest time since the
 * start, how many of those pages of each set are on node 0 (the top tier),
 * and the hot-set pages written so far. At the end it prints "total"
 * lines: the pages of each set it samples, the sampling stride, the writes
 * done in each phase, the time spent on anything else (sampling, the warm
 * and one-shot sets), the spinners' loops in the same time (-b), its own
 * user and system CPU time, its pid and its start time on CLOCK_MONOTONIC
 * (to line up with a trace recorded with the "mono" trace clock).
 *
 * Under QEMU's -icount the guest's CPUs together execute a fixed number of
 * instructions per guest second, so the writes and loops done in a fixed
 * time tell how much CPU a promoter took from them, wherever it ran.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench.h"

#define MPOL_DEFAULT	0
#define MPOL_BIND	2
#define MPOL_MF_MOVE	(1 << 1)
#define PLACE_TRIES	20

enum set { HOT_A, HOT_B, WARM, ONESHOT, COLD, NR_SETS };

static const char * const set_name[NR_SETS] = {
	"hot_a", "hot_b", "warm", "oneshot", "cold",
};

static long psz, stride = 4;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/*
 * Fault in [p, p + len) on @node, go back to the default policy, check
 * that every page is there and move those that are not (a page that is not
 * yet on an LRU list, or under migration, cannot be moved at that instant:
 * drain, back off, retry); then clear the accessed bits that placing set.
 * Exits with move_pages()'s status for the pages that never got there.
 */
static void place(char *p, long len, int node)
{
	unsigned long mask = 1UL << node;
	long i, n = len / psz, left;
	int try, *status, *nodes, first = 0;
	void **pages;

	if (syscall(SYS_set_mempolicy, MPOL_BIND, &mask, 8 * sizeof(mask)))
		die("set_mempolicy(MPOL_BIND)");
	for (i = 0; i < len; i += psz)
		p[i] = 1;
	if (syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0))
		die("set_mempolicy(MPOL_DEFAULT)");

	pages = calloc(n, sizeof(*pages));
	status = calloc(n, sizeof(*status));
	nodes = calloc(n, sizeof(*nodes));
	if (!pages || !status || !nodes)
		die("placement check");
	for (try = 0; ; try++) {
		for (i = 0; i < n; i++)
			pages[i] = p + i * psz;
		if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0))
			die("move_pages");
		for (i = left = 0; i < n; i++)
			if (status[i] != node) {
				if (!left)
					first = status[i];
				pages[left] = pages[i];
				nodes[left++] = node;
			}
		if (!left)
			break;
		if (try == PLACE_TRIES) {
			fprintf(stderr, "tier-bench: %ld of %ld pages not on node %d after %d tries; move_pages() status of the first: %d\n",
				left, n, node, PLACE_TRIES, first);
			exit(1);
		}
		usleep(10000 * (try + 1));
		/* status[] of the pages left: where they are, or -errno */
		if (syscall(SYS_move_pages, 0, left, pages, nodes, status,
			    MPOL_MF_MOVE) < 0)
			die("move_pages(MPOL_MF_MOVE)");
	}
	free(pages);
	free(status);
	free(nodes);
	if (madvise(p, len, MADV_COLD))
		die("madvise(MADV_COLD)");
}

static void write_pages(char *p, long npages)
{
	long i;

	for (i = 0; i < npages; i++)
		((volatile char *)p)[i * psz]++;
}

/* How many of @n pages at @pages in @pid's memory are on node 0. */
static long on_node0(pid_t pid, long n, void **pages, int *status)
{
	long i, on0 = 0;

	if (syscall(SYS_move_pages, pid, n, pages, NULL, status, 0))
		die("move_pages");
	for (i = 0; i < n; i++)
		on0 += status[i] == 0;
	return on0;
}

static double cpu_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static void pin(int cpu)
{
	if (pin_to_cpu(cpu))
		die("sched_setaffinity");
}

static pid_t spawn_idle(long idle_len, int node, void **addr)
{
	int pfd[2];
	char *p;
	pid_t pid;

	p = mmap(NULL, idle_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || pipe(pfd))
		die("idle process setup");
	madvise(p, idle_len, MADV_NOHUGEPAGE);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		place(p, idle_len, node);
		if (write(pfd[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	if (read(pfd[0], pfd, 1) != 1)
		die("idle process did not start");
	close(pfd[0]);
	close(pfd[1]);
	/*
	 * The parent never touches its copy; it keeps it mapped all the same,
	 * so that no other set gets the same addresses.
	 */
	*addr = p;
	return pid;
}

/* One counter per spinner, a cache line apart, shared with the parent. */
#define SPIN_STRIDE	8

static pid_t spawn_spinner(int cpu, volatile unsigned long *loops)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin(cpu);
		for (;;)
			loops[cpu * SPIN_STRIDE]++;
	}
	return pid;
}

static pid_t spawn_ticker(long tick_us)
{
	struct timespec ts = { tick_us / 1000000, tick_us % 1000000 * 1000 };
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin(0);
		for (;;)
			nanosleep(&ts, NULL);
	}
	return pid;
}

static unsigned long spin_loops(volatile unsigned long *loops, int ncpus)
{
	unsigned long sum = 0;
	int cpu;

	for (cpu = 0; loops && cpu < ncpus; cpu++)
		sum += loops[cpu * SPIN_STRIDE];
	return sum;
}

int main(int argc, char **argv)
{
	long mb[NR_SETS] = { [HOT_A] = 16, [WARM] = 16, [ONESHOT] = 16,
			     [COLD] = 64 };
	long steady_s = 30, moved_s = 30, quiet_s = 0, warm_period_s = 5;
	long idle_mb = 32, writes_quiet = 0, tick_us = 0;
	long start[NR_SETS], npages[NR_SETS], on0[NR_SETS], total, i, j;
	long writes[2] = { 0, 0 }, nidle, nsidle, idle_on0, sampled[NR_SETS];
	volatile unsigned long *loops = NULL;
	unsigned long loops0 = 0, loops1, loops_quiet = 0;
	void **spages[NR_SETS];
	int busy = 0, node = 1, opt, *status, cpu, ncpus;
	double t0, t, u, next_sample, next_warm, oneshot_at, other = 0;
	pid_t idle_pid, spin_pid[64], tick_pid = 0;
	void **pages, **idle_pages, *idle_addr;
	const char *gofile = NULL;
	struct rusage ru;
	char *p, *hot_c = NULL;

	while ((opt = getopt(argc, argv, "bt:G:S:n:s:m:q:H:W:w:O:C:I:")) != -1) {
		switch (opt) {
		case 'b': busy = 1; break;
		case 't': tick_us = atol(optarg); break;
		case 'G': gofile = optarg; break;
		case 'S': stride = atol(optarg); break;
		case 'n': node = atoi(optarg); break;
		case 's': steady_s = atol(optarg); break;
		case 'm': moved_s = atol(optarg); break;
		case 'q': quiet_s = atol(optarg); break;
		case 'H': mb[HOT_A] = atol(optarg); break;
		case 'W': mb[WARM] = atol(optarg); break;
		case 'w': warm_period_s = atol(optarg); break;
		case 'O': mb[ONESHOT] = atol(optarg); break;
		case 'C': mb[COLD] = atol(optarg); break;
		case 'I': idle_mb = atol(optarg); break;
		default:
			fprintf(stderr, "usage: see the comment at the top of tier-bench.c\n");
			return 2;
		}
	}
	psz = sysconf(_SC_PAGESIZE);
	if (mb[COLD] < 2 * mb[HOT_A] || warm_period_s < 1 || steady_s < 3 ||
	    stride < 1 || quiet_s < 0 || (quiet_s && node == 0)) {
		fprintf(stderr, "tier-bench: need COLD_MB >= 2 * HOT_MB, WARM_PERIOD_S >= 1, STEADY_S >= 3, SAMPLE >= 1, QUIET_S >= 0 and NODE != 0 with -q\n");
		return 2;
	}

	/* Hot B is the first HOT_MB of the cold area; "cold" is the rest. */
	mb[HOT_B] = mb[HOT_A];
	mb[COLD] -= mb[HOT_B];
	total = 0;
	for (i = 0; i < NR_SETS; i++) {
		npages[i] = mb[i] * (1024 * 1024 / psz);
		total += npages[i];
	}
	/* The region in address order: hot A, warm, one-shot, hot B, cold. */
	start[HOT_A] = 0;
	start[WARM] = npages[HOT_A];
	start[ONESHOT] = start[WARM] + npages[WARM];
	start[HOT_B] = start[ONESHOT] + npages[ONESHOT];
	start[COLD] = start[HOT_B] + npages[HOT_B];

	/* The other processes first: a fork must not share the region. */
	nidle = idle_mb * (1024 * 1024 / psz);
	idle_pid = spawn_idle(nidle * psz, node, &idle_addr);
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus > 64)
		ncpus = 64;
	if (busy) {
		loops = mmap(NULL, ncpus * SPIN_STRIDE * sizeof(*loops),
			     PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (loops == MAP_FAILED)
			die("mmap of the loop counters");
	}
	for (cpu = 0; busy && cpu < ncpus; cpu++)
		spin_pid[cpu] = spawn_spinner(cpu, loops);
	if (tick_us > 0)
		tick_pid = spawn_ticker(tick_us);
	pin(0);

	p = mmap(NULL, total * psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pages = calloc(total, sizeof(*pages));
	idle_pages = calloc(nidle / stride + 1, sizeof(*idle_pages));
	status = calloc(total > nidle ? total : nidle, sizeof(*status));
	for (i = 0; i < NR_SETS; i++)
		spages[i] = calloc(npages[i] / stride + 1, sizeof(void *));
	if (p == MAP_FAILED || !pages || !idle_pages || !status)
		die("region setup");
	for (i = 0; i < NR_SETS; i++)
		if (!spages[i])
			die("region setup");
	if (madvise(p, total * psz, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");
	/* Everything must start on NODE, or the figures mean nothing. */
	place(p, total * psz, node);
	for (i = 0; i < total; i++)
		pages[i] = p + i * psz;
	if (quiet_s) {
		hot_c = mmap(NULL, npages[HOT_A] * psz, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (hot_c == MAP_FAILED ||
		    madvise(hot_c, npages[HOT_A] * psz, MADV_NOHUGEPAGE))
			die("hot set C setup");
		place(hot_c, npages[HOT_A] * psz, 0);
	}

	/* From here on, every stride-th page of each set is asked about. */
	for (i = 0; i < NR_SETS; i++) {
		sampled[i] = 0;
		for (j = 0; j < npages[i]; j += stride)
			spages[i][sampled[i]++] = p + (start[i] + j) * psz;
	}
	for (nsidle = j = 0; j < nidle; j += stride)
		idle_pages[nsidle++] = (char *)idle_addr + j * psz;

	for (i = 0; i < NR_SETS; i++)
		printf("range,%s,%p,%p\n", set_name[i], p + start[i] * psz,
		       p + (start[i] + npages[i]) * psz);
	printf("range,idle,%p,%p\n", idle_addr, (char *)idle_addr + nidle * psz);
	printf("t,hot_a,hot_b,warm,oneshot,cold,idle,writes\n");
	fflush(stdout);
	while (gofile && access(gofile, F_OK))
		usleep(10000);
	t0 = now_ns();
	loops0 = spin_loops(loops, ncpus);
	next_sample = t0;
	next_warm = t0 + warm_period_s * 1e9;
	oneshot_at = t0 + steady_s * 1e9 / 3;
	for (;;) {
		int moved;

		t = now_ns();
		if (t >= next_sample) {
			for (i = 0; i < NR_SETS; i++)
				on0[i] = on_node0(0, sampled[i], spages[i],
						  status);
			idle_on0 = on_node0(idle_pid, nsidle, idle_pages,
					    status);
			printf("%.3f,%ld,%ld,%ld,%ld,%ld,%ld,%ld\n",
			       (t - t0) / 1e9, on0[HOT_A], on0[HOT_B],
			       on0[WARM], on0[ONESHOT], on0[COLD], idle_on0,
			       writes[0] + writes[1]);
			fflush(stdout);
			next_sample += 1e9;
			other += now_ns() - t;
		}
		if (t - t0 >= (steady_s + moved_s + quiet_s) * 1e9)
			break;
		if (t - t0 >= (steady_s + moved_s) * 1e9) {
			if (!writes_quiet)
				loops_quiet = spin_loops(loops, ncpus);
			write_pages(hot_c, npages[HOT_A]);
			writes_quiet += npages[HOT_A];
			continue;
		}
		if (t >= next_warm) {
			u = now_ns();
			write_pages(p + start[WARM] * psz, npages[WARM]);
			next_warm += warm_period_s * 1e9;
			other += now_ns() - u;
		}
		if (oneshot_at && t >= oneshot_at) {
			u = now_ns();
			write_pages(p + start[ONESHOT] * psz, npages[ONESHOT]);
			oneshot_at = 0;
			other += now_ns() - u;
		}
		moved = t - t0 >= steady_s * 1e9;
		i = moved ? HOT_B : HOT_A;
		write_pages(p + start[i] * psz, npages[i]);
		writes[moved] += npages[i];
	}

	loops1 = spin_loops(loops, ncpus);
	getrusage(RUSAGE_SELF, &ru);
	for (i = 0; i < NR_SETS; i++)
		printf("total,%s,%ld\n", set_name[i], sampled[i]);
	printf("total,idle,%ld\ntotal,stride,%ld\n", nsidle, stride);
	printf("total,writes_steady,%ld\ntotal,writes_moved,%ld\n",
	       writes[0], writes[1]);
	printf("total,writes_quiet,%ld\ntotal,quiet_s,%ld\n", writes_quiet,
	       quiet_s);
	printf("total,spin_loops_quiet,%lu\n",
	       writes_quiet && loops ? loops1 - loops_quiet : 0);
	printf("total,hot_pages,%ld\ntotal,page_size,%ld\n", npages[HOT_A], psz);
	printf("total,spin_loops,%lu\ntotal,other_s,%.6f\n", loops1 - loops0,
	       other / 1e9);
	printf("total,utime_s,%.3f\ntotal,stime_s,%.3f\n",
	       cpu_s(ru.ru_utime), cpu_s(ru.ru_stime));
	printf("total,steady_s,%ld\ntotal,moved_s,%ld\ntotal,busy,%d\n",
	       steady_s, moved_s, busy);
	printf("total,tick_us,%ld\n", tick_us);
	printf("total,pid,%d\ntotal,t0_mono_s,%.6f\n", (int)getpid(), t0 / 1e9);
	kill(idle_pid, SIGKILL);
	waitpid(idle_pid, NULL, 0);
	if (tick_pid) {
		kill(tick_pid, SIGKILL);
		waitpid(tick_pid, NULL, 0);
	}
	for (cpu = 0; busy && cpu < ncpus; cpu++) {
		kill(spin_pid[cpu], SIGKILL);
		waitpid(spin_pid[cpu], NULL, 0);
	}
	return 0;
}
