// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with a known hot set on a lower-tier node, for comparing
 * promoters of hot pages (NUMA balancing's tiering mode, kscand, DAMON).
 *
 *   tier-bench [-b] [-t TICK_US] [-G GOFILE] [-R READYFIFO] [-S SAMPLE]
 *              [-n NODE] [-u WARMUP_S] [-s STEADY_S] [-m MOVED_S]
 *              [-P PASS_MS] [-H HOT_MB] [-W WARM_MB] [-w WARM_PERIOD_S]
 *              [-O ONESHOT_MB] [-C COLD_MB] [-I IDLE_MB]
 *              [-D DRIFT_MB [-d DRIFT_S]] [-Z THETA] [-L ROOM_MB]
 *              [-T WRITERS | -M WRITERS]
 *
 * One anonymous region, 4 KiB pages (MADV_NOHUGEPAGE), all of it placed on
 * NODE (default 1) by a temporary MPOL_BIND and then left to the default
 * policy, laid out as
 *
 *   | hot A | warm | one-shot | cold: hot B, then the rest |
 *
 * and hot set C, HOT_MB placed on node 0. Three phases:
 *
 *   warm-up  WARMUP_S (default 10) s: hot set C is the hot set; no page
 *            on NODE is written. A promoter has nothing to promote: what
 *            it costs here, but in the first 2 s, is its background cost,
 *            and it has the time to settle (sample, split regions, pace
 *            its scans) before the window.
 *   steady   STEADY_S s from the window's start (t0): hot set A.
 *   moved    MOVED_S s: hot set B, cold until then; hot set A goes cold.
 *            With -D, the hot set then drifts: every DRIFT_S (default 2)
 *            s it moves DRIFT_MB further into the cold area, its size
 *            the same (a window over hot set B and the cold set, which
 *            must hold it to the end).
 *            With -Z, the window's accesses are skewed instead (below).
 *
 * The skewed pattern (-Z THETA): in the window, each pass writes one byte
 * of HOT_MB's worth of pages, each drawn by a Zipf law of exponent THETA
 * (0.99 in YCSB) over the whole region: the page of rank r (0 the most
 * likely) is drawn with probability (r + 1)^-THETA / H, H the sum over the
 * region's n pages. Ranks are scattered over the region, rank r being page
 * (r * MULT + OFF) % n (MULT coprime to n); OFF is 0 in the steady phase
 * and n / 2 in the moved one, so that every page's rank changes at the
 * move. Pages are drawn by Walker's alias method, a constant time a draw.
 * The warm and one-shot sets get no writes of their own: they are part of
 * the region. The "total" lines give THETA, n, MULT, both OFFs and the
 * draws a pass, and node 0's free memory at the go: the probability
 * of every page at every instant, for a caller that knows from a trace
 * where the pages were, and the share of the accesses the best placement
 * node 0 has room for would serve from it.
 *
 * The hot set is written by the clock: every PASS_MS (default 50) ms the
 * process writes one byte of each of its pages. In between it counts
 * loops, the meter: like an application that computes between its
 * accesses, it is busy all along (NUMA balancing scans a task at the pace
 * of its CPU time). A pass that starts late (the process was kept from its
 * CPU, or a pass took longer than PASS_MS) is counted, and the next one is
 * due PASS_MS after it. The passes done and due in each phase are printed,
 * so that a run whose hot set was written less often than asked can be
 * told. The warm set is written once every WARM_PERIOD_S (default 5) s and
 * the one-shot set once, a third of the way into the steady phase, both
 * from t0; the cold set never after placement.
 *
 * With -L, node 0 is given ROOM_MB of room for the region, whatever its
 * size: at the go (after the caller's own setup, a trace instance's
 * buffers included, has taken its memory), a process forked first binds
 * to node 0, fills pipes that nobody reads with all of node 0's free
 * memory above its high watermark but ROOM_MB, and sleeps; the warm-up
 * starts once they are full. A pipe's buffers are kernel pages on no LRU
 * list: no reclaim, demotion or migration moves them (mlocked pages, by
 * contrast, are unevictable but movable: a DAMOS migrate_cold scheme
 * moves them to node 1). The region's pages compete for the room among
 * themselves and with hot set C, cold from t0, and a promotion into a
 * full room needs a page demoted. The "total" lines give what was held
 * and node 0's high watermark.
 *
 * With -T or -M, WRITERS tasks do the process's work between them, all on
 * CPU 0: the process itself and WRITERS - 1 more, started after the
 * meter's second alone. Each counts loops as the process does (the meter
 * is the sum of their counts) and, at each pass the process publishes,
 * writes its slice of the hot set (C, A, B): the k-th of WRITERS slices
 * of equal size, so every page still once a pass, always by the same task.
 * With -T they are threads of the process (a multi-threaded application);
 * with -M, processes forked after placement, the region and hot set C
 * mapped shared (MAP_SHARED: shmem) by all of them (a server's processes
 * over their shared memory). Each task then has a share of CPU 0, and a
 * promoter that scans a process by its CPU time (NUMA balancing) scans each
 * of the -M processes at that share of the pace. A pass published while a
 * writer still wrote the last is one it misses ("writer_passes_missed").
 * Not with -D or -Z.
 *
 * A second process, forked before the region exists, holds IDLE_MB on NODE
 * and sleeps. The workload runs on CPU 0. Under QEMU's -icount the guest's
 * CPUs together execute a fixed number of instructions per guest second,
 * taking turns: whatever runs anywhere else in the guest takes from the
 * meter. Before the warm-up the process counts loops alone for a second,
 * which gives the loops per second of the whole guest; the loops not done
 * in a phase, against a run with no promoter, are what the promoter cost.
 * With -b, one more process on each CPU but CPU 0 spins at the default
 * priority all along, counting its loops the same way: a loaded machine,
 * on which the promoter's threads have no idle CPU, while the workload
 * still has its own.
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
 * page is on its node (pages that move_pages() finds elsewhere, for
 * instance not yet on an LRU list, are moved again, a bounded number of
 * times), both processes madvise(MADV_COLD) their memory, which clears the
 * accessed bits and flushes the TLB. With -G, the process then prints
 * "range" lines (each set's virtual address range, for a trace filter) and
 * a line "ready" (and, with -R, writes "ready" to the FIFO READYFIFO, which
 * a caller can wait on without running anything in the meantime: the
 * meter's second alone comes just before), and waits for GOFILE to exist
 * before it starts: a promoter turned on in between sees none of the
 * placement.
 *
 * Nothing is asked of the kernel while the phases run: where pages went is
 * for the caller to trace (migrate:remove_migration_pte). After the moved
 * phase, the process asks move_pages() where every SAMPLE-th page (-S,
 * default 4) of each set is and prints an "end" line with how many of them
 * are on node 0, then "total" lines: the pages of each set it sampled, the
 * passes done and due per phase, the meter's and the spinners' loops per
 * phase and per guest second, the phases' lengths as measured, its own CPU
 * time, its pid and t0 on CLOCK_MONOTONIC (to line up with a trace
 * recorded with the "mono" trace clock). At the phase boundaries the
 * process also reads /proc/vmstat (after a write to
 * /proc/sys/vm/stat_refresh, where it may) and the CPU time of the threads
 * whose pids GOFILE holds, comma-separated (the scheduler's
 * sum_exec_runtime in /proc/PID/sched: kswapd, a promoter's kthread), and
 * prints them per phase: "vmstat,PHASE,COUNTER,DELTA" for the counters of
 * promotion, demotion, migration, NUMA balancing and kscand, and
 * "thread,PID,PHASE,MS".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
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

/*
 * -L: a process, forked before the region exists, that waits for a size
 * on @fd[0], writes that many bytes of node 0 (its memory policy binds
 * the pipe buffers' pages there) into pipes of HOLD_PIPE_SZ that it never
 * reads, says so on @fd[3] and sleeps until the workload ends.
 * hold_node0() gives it the size once the workload's own memory is in
 * place. Run as root: pipes larger than fs.pipe-max-size, and more
 * descriptors than the default limit.
 */
#define HOLD_PIPE_SZ	(16L << 20)

static pid_t spawn_holder(int fd[4])
{
	static char buf[1 << 16];
	unsigned long mask = 1;
	struct rlimit rl;
	long len, n;
	int p[2];
	pid_t pid;

	if (pipe(fd) || pipe(fd + 2))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (read(fd[0], &len, sizeof(len)) != sizeof(len))
		_exit(1);
	if (syscall(SYS_set_mempolicy, MPOL_BIND, &mask, 8 * sizeof(mask)))
		die("set_mempolicy(MPOL_BIND)");
	rl.rlim_cur = rl.rlim_max = 64 + 2 * (len / HOLD_PIPE_SZ + 1);
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit(RLIMIT_NOFILE)");
	memset(buf, 0x5a, sizeof(buf));
	while (len > 0) {
		if (pipe(p) || fcntl(p[1], F_SETPIPE_SZ, HOLD_PIPE_SZ) < 0)
			die("a pipe of HOLD_PIPE_SZ");
		fcntl(p[1], F_SETFL, O_NONBLOCK);
		for (n = 0; n < HOLD_PIPE_SZ && len > 0; n += sizeof(buf)) {
			if (write(p[1], buf, sizeof(buf)) != sizeof(buf))
				die("filling a pipe on node 0");
			len -= sizeof(buf);
		}
	}
	if (write(fd[3], "r", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static void hold_node0(int fd[4], long len)
{
	char c;

	if (write(fd[1], &len, sizeof(len)) != sizeof(len) ||
	    read(fd[2], &c, 1) != 1)
		die("the process holding node 0's memory failed");
}

/* One counter per loop process, a cache line apart, shared with the parent. */
#define LOOP_STRIDE	8
#define MAX_CPUS	64

/*
 * The meter: count loops in @loops[0] until @t_ns; returns the time. The
 * spinners run the same code, so that a loop costs the same everywhere.
 */
static double spin_until(volatile unsigned long *loops, double t_ns)
{
	double t;
	int i;

	while ((t = now_ns()) < t_ns)
		for (i = 0; i < 64; i++)
			loops[0]++;
	return t;
}

/*
 * A process pinned to @cpu that counts loops in @loops[cpu]; it starts
 * when a byte arrives on @go.
 */
static pid_t spawn_spinner(int cpu, volatile unsigned long *loops, int go)
{
	pid_t pid = fork();
	char c;

	if (pid < 0)
		die("fork");
	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pin(cpu);
	if (read(go, &c, 1) != 1)
		_exit(1);
	spin_until(loops + cpu * LOOP_STRIDE, 1e30);
	_exit(0);
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

static unsigned long sum_loops(volatile unsigned long *loops, int from,
			       int to)
{
	unsigned long sum = 0;
	int cpu;

	for (cpu = from; cpu < to; cpu++)
		sum += loops[cpu * LOOP_STRIDE];
	return sum;
}

#define MAX_THREADS	16

/* A thread's CPU time in ms, the scheduler's; -1 if it is gone. */
static double thread_ms(int pid)
{
	char path[64], line[256];
	double ms = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/sched", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "se.sum_exec_runtime", 19)) {
			sscanf(strchr(line, ':') + 1, "%lf", &ms);
			break;
		}
	fclose(f);
	return ms;
}

#define MAX_COUNTERS	512

struct vmstat {
	int n;
	char name[MAX_COUNTERS][48];
	unsigned long long val[MAX_COUNTERS];
};

static void read_vmstat(struct vmstat *vs)
{
	FILE *f = fopen("/proc/sys/vm/stat_refresh", "w");

	if (f) {
		fputs("1\n", f);
		fclose(f);
	}
	vs->n = 0;
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return;
	while (vs->n < MAX_COUNTERS &&
	       fscanf(f, "%47s %llu", vs->name[vs->n], &vs->val[vs->n]) == 2)
		vs->n++;
	fclose(f);
}

static int counter_wanted(const char *name)
{
	static const char * const prefix[] = {
		"numa_", "pgpromote", "pgdemote", "pgmigrate", "kscand_",
		"pgsteal", "pgscan", "compact_",
	};
	unsigned int i;

	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

/* The pids, comma-separated, that @path holds (at most @max). */
static int read_pids(const char *path, int *pid, int max)
{
	char buf[512], *tok;
	int n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		for (tok = strtok(buf, ",\n"); tok && n < max;
		     tok = strtok(NULL, ",\n"))
			pid[n++] = atoi(tok);
	fclose(f);
	return n;
}

enum phase { WARMUP, STEADY, MOVED, NR_PHASES };

/* The skewed pattern's draws (-Z): see the comment at the top. */
struct zipf {
	long n, mult, off[NR_PHASES];
	uint64_t *prob;		/* the alias method's: rank i's own share, x 2^32 */
	uint32_t *alias;
	uint64_t rng;
};

static long gcd(long a, long b)
{
	while (b) {
		long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Vose's construction of the alias table of the Zipf law over @n ranks. */
static void zipf_init(struct zipf *z, long n, double theta)
{
	double *q = malloc(n * sizeof(*q)), h = 0;
	uint32_t *small = malloc(n * sizeof(*small));
	uint32_t *large = malloc(n * sizeof(*large));
	long i, ns = 0, nl = 0;

	z->prob = malloc(n * sizeof(*z->prob));
	z->alias = malloc(n * sizeof(*z->alias));
	if (!q || !small || !large || !z->prob || !z->alias)
		die("zipf setup");
	for (i = 0; i < n; i++)
		h += q[i] = pow(i + 1, -theta);
	for (i = 0; i < n; i++) {
		q[i] *= n / h;
		if (q[i] < 1)
			small[ns++] = i;
		else
			large[nl++] = i;
	}
	while (ns && nl) {
		uint32_t s = small[--ns], l = large[--nl];

		z->prob[s] = q[s] * 4294967296.0;
		z->alias[s] = l;
		q[l] -= 1 - q[s];
		if (q[l] < 1)
			small[ns++] = l;
		else
			large[nl++] = l;
	}
	/* what is left is 1 but for rounding */
	while (nl--) {
		z->prob[large[nl]] = 1ULL << 32;
		z->alias[large[nl]] = large[nl];
	}
	while (ns--) {
		z->prob[small[ns]] = 1ULL << 32;
		z->alias[small[ns]] = small[ns];
	}
	free(q);
	free(small);
	free(large);
	z->n = n;
	z->mult = (long)(n * 0.6180339887) | 1;
	while (gcd(z->mult, n) != 1)
		z->mult += 2;
	z->off[WARMUP] = z->off[STEADY] = 0;
	z->off[MOVED] = n / 2;
	z->rng = 0x9e3779b97f4a7c15ULL;
}

/* A page drawn by the Zipf law, its rank scattered as phase @ph has it. */
static long zipf_page(struct zipf *z, int ph)
{
	uint64_t x = z->rng;
	long r;

	/* xorshift64*: the high half picks a rank, the low half its coin */
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	z->rng = x;
	x *= 0x2545f4914f6cdd1dULL;
	r = (long)((x >> 32) * (uint64_t)z->n >> 32);
	if ((x & 0xffffffff) >= z->prob[r])
		r = z->alias[r];
	return (r * z->mult + z->off[ph]) % z->n;
}

/* Node 0's MemFree in kB, from sysfs; -1 if it cannot be read. */
static long node0_free_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/sys/devices/system/node/node0/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node 0 MemFree: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * Node 0's high watermark in kB: the sum of its zones' (/proc/zoneinfo);
 * -1 if it cannot be read.
 */
static long node0_high_kb(void)
{
	char line[256], key[32];
	long v, pages = 0;
	int nid = -1;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d,", &nid) == 1)
			continue;
		if (nid == 0 && sscanf(line, "%31s %ld", key, &v) == 2 &&
		    !strcmp(key, "high"))
			pages += v;
	}
	fclose(f);
	return pages * (psz / 1024);
}

/*
 * -T, -M: the other tasks that write the hot sets. Each counts loops as
 * the process does, in its own counter, until the process publishes a
 * pass (the set, its pages, a new sequence number), then writes its pages
 * of it; a pass published while it was writing the last is one it misses.
 */
#define MAX_WRITERS	16

struct passes {
	unsigned long seq;		/* the last pass published */
	char *set;			/* its set; NULL: the writers stop */
	long n;				/* its pages */
	long done[MAX_WRITERS];		/* passes each writer wrote */
};

static int nwriters = 1;
static struct passes *pub;
static volatile unsigned long *writer_loops;
static pthread_t writer_thread[MAX_WRITERS];
static pid_t writer_pid[MAX_WRITERS];

/* the k-th writer's pages of @n at @set: the k-th of nwriters slices */
static void write_share(char *set, long n, int k)
{
	write_pages(set + n * k / nwriters * psz,
		    n * (k + 1) / nwriters - n * k / nwriters);
}

static void *writer(void *arg)
{
	volatile unsigned long *loops = writer_loops + (long)arg * LOOP_STRIDE;
	unsigned long seen = 0, seq;
	int k = (long)arg, i;

	pin(0);
	for (;;) {
		/* spin_until()'s loop, the clock read included */
		while ((seq = __atomic_load_n(&pub->seq, __ATOMIC_ACQUIRE)) == seen) {
			now_ns();
			for (i = 0; i < 64; i++)
				loops[0]++;
		}
		seen = seq;
		if (!pub->set)
			return NULL;
		write_share(pub->set, pub->n, k);
		pub->done[k]++;
	}
}

/* after the meter's second alone: they count loops from here on */
static void start_writers(int threads)
{
	long k;

	for (k = 1; k < nwriters; k++) {
		if (threads) {
			if (pthread_create(&writer_thread[k], NULL, writer,
					   (void *)k))
				die("pthread_create");
			continue;
		}
		writer_pid[k] = fork();
		if (writer_pid[k] < 0)
			die("fork");
		if (!writer_pid[k]) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			writer((void *)k);
			_exit(0);
		}
	}
}

/* A pass over @n pages at @set: the process's own pages, the others' told. */
static void write_pass(char *set, long n)
{
	if (nwriters > 1) {
		pub->set = set;
		pub->n = n;
		__atomic_fetch_add(&pub->seq, 1, __ATOMIC_RELEASE);
	}
	write_share(set, n, 0);
}

/* The loops the writers other than the process counted. */
static unsigned long sum_writer_loops(void)
{
	unsigned long sum = 0;
	int k;

	for (k = 1; k < nwriters; k++)
		sum += writer_loops[k * LOOP_STRIDE];
	return sum;
}

/* The passes the other writers missed. */
static long stop_writers(int threads, long passes)
{
	long missed = 0;
	int k;

	if (nwriters < 2)
		return 0;
	pub->set = NULL;
	__atomic_fetch_add(&pub->seq, 1, __ATOMIC_RELEASE);
	for (k = 1; k < nwriters; k++) {
		if (threads)
			pthread_join(writer_thread[k], NULL);
		else
			waitpid(writer_pid[k], NULL, 0);
		missed += passes - pub->done[k];
	}
	return missed;
}

static const char * const phase_name[NR_PHASES] = {
	"warmup", "steady", "moved",
};

int main(int argc, char **argv)
{
	long mb[NR_SETS] = { [HOT_A] = 16, [WARM] = 16, [ONESHOT] = 16,
			     [COLD] = 64 };
	long warmup_s = 10, steady_s = 30, moved_s = 30, warm_period_s = 5;
	long idle_mb = 32, pass_ms = 50, settle_s = 2, tick_us = 0;
	long drift_mb = 0, drift_s = 2, drift_pages, shifts;
	long start[NR_SETS], npages[NR_SETS], on0[NR_SETS], total, i, j;
	long sampled[NR_SETS], nidle, nsidle, idle_on0;
	long done[NR_PHASES] = { 0 }, late[NR_PHASES] = { 0 };
	double len_s[NR_PHASES], at[NR_PHASES + 1], bg_at;
	unsigned long meter[NR_PHASES + 1], spin[NR_PHASES + 1];
	unsigned long bg_meter, bg_spin, cal0, cal1;
	double thr[MAX_THREADS][NR_PHASES + 1];
	static struct vmstat vs[NR_PHASES + 1];
	int tpid[MAX_THREADS], nthreads = 0, k;
	volatile unsigned long *loops;
	void **spages[NR_SETS], **idle_pages, *idle_addr;
	int busy = 0, node = 1, opt, *status, cpu, ncpus, spin_go[2], ph;
	double tw, t, next_pass, next_warm, oneshot_at, pass_ns, cal_s;
	pid_t idle_pid, loop_pid[MAX_CPUS], tick_pid = 0, hold_pid = 0;
	const char *gofile = NULL, *readyfifo = NULL;
	double theta = 0;
	long free0_kb = -1, high0_kb = -1, room_mb = -1, hold_mb = 0;
	int hold_fd[4], threads = 0, share = MAP_PRIVATE;
	long missed;
	struct zipf z = { 0 };
	struct rusage ru;
	char *p, *hot_c;

	while ((opt = getopt(argc, argv, "bt:G:R:S:n:u:s:m:P:H:W:w:O:C:I:D:d:Z:L:T:M:")) != -1) {
		switch (opt) {
		case 'b': busy = 1; break;
		case 't': tick_us = atol(optarg); break;
		case 'G': gofile = optarg; break;
		case 'R': readyfifo = optarg; break;
		case 'S': stride = atol(optarg); break;
		case 'n': node = atoi(optarg); break;
		case 'u': warmup_s = atol(optarg); break;
		case 's': steady_s = atol(optarg); break;
		case 'm': moved_s = atol(optarg); break;
		case 'P': pass_ms = atol(optarg); break;
		case 'H': mb[HOT_A] = atol(optarg); break;
		case 'W': mb[WARM] = atol(optarg); break;
		case 'w': warm_period_s = atol(optarg); break;
		case 'O': mb[ONESHOT] = atol(optarg); break;
		case 'C': mb[COLD] = atol(optarg); break;
		case 'I': idle_mb = atol(optarg); break;
		case 'D': drift_mb = atol(optarg); break;
		case 'd': drift_s = atol(optarg); break;
		case 'Z': theta = atof(optarg); break;
		case 'L': room_mb = atol(optarg); break;
		case 'T':
		case 'M':
			nwriters = atoi(optarg);
			threads = opt == 'T';
			share = threads ? MAP_PRIVATE : MAP_SHARED;
			break;
		default:
			fprintf(stderr, "usage: see the comment at the top of tier-bench.c\n");
			return 2;
		}
	}
	psz = sysconf(_SC_PAGESIZE);
	/* the drifting window's last position must be inside the region */
	shifts = drift_s > 0 ? (moved_s - 1) / drift_s : 0;
	if (drift_mb < 0 || drift_s < 1 ||
	    mb[HOT_A] + drift_mb * shifts > mb[COLD]) {
		fprintf(stderr, "tier-bench: need DRIFT_S >= 1 and HOT_MB + DRIFT_MB * (MOVED_S - 1) / DRIFT_S <= COLD_MB\n");
		return 2;
	}
	if (nwriters < 1 || nwriters > MAX_WRITERS ||
	    (nwriters > 1 && (theta > 0 || drift_mb))) {
		fprintf(stderr, "tier-bench: need 1 <= WRITERS <= %d, and not -T or -M with -D or -Z\n",
			MAX_WRITERS);
		return 2;
	}
	if (theta < 0 || (theta > 0 && drift_mb)) {
		fprintf(stderr, "tier-bench: need THETA > 0, and not both -Z and -D\n");
		return 2;
	}
	if (mb[COLD] < 2 * mb[HOT_A] || warm_period_s < 1 || steady_s < 3 ||
	    moved_s < 1 || warmup_s < settle_s + 1 || stride < 1 ||
	    pass_ms < 1 || node == 0) {
		fprintf(stderr, "tier-bench: need COLD_MB >= 2 * HOT_MB, WARM_PERIOD_S >= 1, STEADY_S >= 3, MOVED_S >= 1, WARMUP_S >= %ld, SAMPLE >= 1, PASS_MS >= 1 and NODE != 0\n",
			settle_s + 1);
		return 2;
	}
	pass_ns = pass_ms * 1e6;
	drift_pages = drift_mb * (1024 * 1024 / psz);
	len_s[WARMUP] = warmup_s;
	len_s[STEADY] = steady_s;
	len_s[MOVED] = moved_s;

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
	if (room_mb >= 0)
		hold_pid = spawn_holder(hold_fd);
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	loops = mmap(NULL, ncpus * LOOP_STRIDE * sizeof(*loops),
		     PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	writer_loops = mmap(NULL, MAX_WRITERS * LOOP_STRIDE * sizeof(*loops),
			    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			    -1, 0);
	pub = mmap(NULL, sizeof(*pub), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (loops == MAP_FAILED || writer_loops == MAP_FAILED ||
	    pub == MAP_FAILED || pipe(spin_go))
		die("loop counters");
	for (cpu = 1; busy && cpu < ncpus; cpu++)
		loop_pid[cpu] = spawn_spinner(cpu, loops, spin_go[0]);
	close(spin_go[0]);
	if (tick_us > 0)
		tick_pid = spawn_ticker(tick_us);
	pin(0);

	p = mmap(NULL, total * psz, PROT_READ | PROT_WRITE,
		 share | MAP_ANONYMOUS, -1, 0);
	hot_c = mmap(NULL, npages[HOT_A] * psz, PROT_READ | PROT_WRITE,
		     share | MAP_ANONYMOUS, -1, 0);
	idle_pages = calloc(nidle / stride + 1, sizeof(*idle_pages));
	status = calloc(total / stride + nidle / stride + 1, sizeof(*status));
	for (i = 0; i < NR_SETS; i++)
		spages[i] = calloc(npages[i] / stride + 1, sizeof(void *));
	if (p == MAP_FAILED || hot_c == MAP_FAILED || !idle_pages || !status)
		die("region setup");
	for (i = 0; i < NR_SETS; i++)
		if (!spages[i])
			die("region setup");
	if (madvise(p, total * psz, MADV_NOHUGEPAGE) ||
	    madvise(hot_c, npages[HOT_A] * psz, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");
	/* Everything must start on its node, or the figures mean nothing. */
	place(p, total * psz, node);
	place(hot_c, npages[HOT_A] * psz, 0);
	if (theta > 0)
		zipf_init(&z, total, theta);

	for (i = 0; i < NR_SETS; i++) {
		sampled[i] = 0;
		for (j = 0; j < npages[i]; j += stride)
			spages[i][sampled[i]++] = p + (start[i] + j) * psz;
	}
	for (nsidle = j = 0; j < nidle; j += stride)
		idle_pages[nsidle++] = (char *)idle_addr + j * psz;

	/*
	 * The meter alone for a second (the spinners have not started): its
	 * loops per second of the whole guest.
	 */
	cal0 = sum_loops(loops, 0, 1);
	t = now_ns();
	cal_s = (spin_until(loops, t + 1e9) - t) / 1e9;
	cal1 = sum_loops(loops, 0, 1);
	for (cpu = 1; busy && cpu < ncpus; cpu++)
		if (write(spin_go[1], "g", 1) != 1)
			die("starting the spinners");
	/* placed: the other writers (processes) map the region from here on */
	start_writers(threads);

	for (i = 0; i < NR_SETS; i++)
		printf("range,%s,%p,%p\n", set_name[i], p + start[i] * psz,
		       p + (start[i] + npages[i]) * psz);
	printf("range,idle,%p,%p\n", idle_addr, (char *)idle_addr + nidle * psz);
	printf("range,hot_c,%p,%p\n", hot_c, hot_c + npages[HOT_A] * psz);
	printf("ready\n");
	fflush(stdout);
	if (readyfifo) {
		FILE *f = fopen(readyfifo, "w");

		if (!f || fputs("ready\n", f) == EOF || fclose(f))
			die(readyfifo);
	}
	while (gofile && access(gofile, F_OK))
		usleep(10000);
	if (gofile)
		nthreads = read_pids(gofile, tpid, MAX_THREADS);
	/*
	 * Node 0's room is what is left once the caller has set up (a trace
	 * instance's buffers, a promoter's own memory): measured at the go.
	 */
	high0_kb = node0_high_kb();
	if (room_mb >= 0) {
		/*
		 * A pipe's array of 4096 struct pipe_buffer takes 256 KiB
		 * (64 pages) for its 16 MiB: hold 64/65 of what is left, less
		 * 1 MiB for the rest of the pipes' own memory.
		 */
		hold_mb = ((node0_free_kb() - high0_kb) / 1024 - room_mb - 1) *
			  64 / 65;
		if (high0_kb < 0 || hold_mb < 0) {
			fprintf(stderr, "tier-bench: node 0 has less than ROOM_MB free above its high watermark\n");
			return 1;
		}
		hold_node0(hold_fd, hold_mb * 1024 * 1024);
	}
	free0_kb = node0_free_kb();

	tw = now_ns();
	at[WARMUP] = tw;
	at[STEADY] = tw + warmup_s * 1e9;
	at[MOVED] = at[STEADY] + steady_s * 1e9;
	at[NR_PHASES] = at[MOVED] + moved_s * 1e9;
	meter[WARMUP] = sum_loops(loops, 0, 1) + sum_writer_loops();
	spin[WARMUP] = sum_loops(loops, 1, ncpus);
	for (k = 0; k < nthreads; k++)
		thr[k][WARMUP] = thread_ms(tpid[k]);
	read_vmstat(&vs[WARMUP]);
	bg_at = 0;
	bg_meter = bg_spin = 0;
	next_pass = tw;
	next_warm = at[STEADY] + warm_period_s * 1e9;
	oneshot_at = at[STEADY] + steady_s * 1e9 / 3;
	ph = WARMUP;
	for (;;) {
		char *set;
		long n;

		t = spin_until(loops, next_pass);
		/*
		 * The loop counts at each boundary, taken by the first pass
		 * due at or after it (passes are due on the boundaries).
		 */
		if (!bg_at && t >= tw + settle_s * 1e9) {
			bg_at = t;
			bg_meter = sum_loops(loops, 0, 1) + sum_writer_loops();
			bg_spin = sum_loops(loops, 1, ncpus);
		}
		while (ph < NR_PHASES && t >= at[ph + 1]) {
			ph++;
			at[ph] = t;
			meter[ph] = sum_loops(loops, 0, 1) + sum_writer_loops();
			spin[ph] = sum_loops(loops, 1, ncpus);
			for (k = 0; k < nthreads; k++)
				thr[k][ph] = thread_ms(tpid[k]);
			read_vmstat(&vs[ph]);
		}
		if (ph == NR_PHASES)
			break;
		if (t - next_pass >= pass_ns)
			late[ph]++;
		if (ph > WARMUP && !theta && t >= next_warm) {
			write_pages(p + start[WARM] * psz, npages[WARM]);
			next_warm += warm_period_s * 1e9;
		}
		if (oneshot_at && !theta && t >= oneshot_at) {
			write_pages(p + start[ONESHOT] * psz, npages[ONESHOT]);
			oneshot_at = 0;
		}
		if (ph == WARMUP) {
			set = hot_c;
			n = npages[HOT_A];
		} else if (theta) {
			for (j = 0; j < npages[HOT_A]; j++)
				((volatile char *)p)[zipf_page(&z, ph) * psz]++;
			set = NULL;
			n = 0;
		} else {
			i = ph == STEADY ? HOT_A : HOT_B;
			set = p + start[i] * psz;
			n = npages[i];
			if (ph == MOVED && drift_mb)
				set += (long)((t - at[MOVED]) / (drift_s * 1e9)) *
				       drift_pages * psz;
		}
		if (set)
			write_pass(set, n);
		done[ph]++;
		/* due PASS_MS after the last that was due, or after this one if late */
		next_pass += pass_ns;
		if (next_pass < t)
			next_pass = t + pass_ns;
		/* ... but never past a phase boundary */
		if (next_pass > at[ph + 1] && t < at[ph + 1])
			next_pass = at[ph + 1];
	}
	missed = stop_writers(threads, done[WARMUP] + done[STEADY] + done[MOVED]);
	getrusage(RUSAGE_SELF, &ru);

	/* Where the sets ended up: outside the phases, so it costs them nothing. */
	for (i = 0; i < NR_SETS; i++)
		on0[i] = on_node0(0, sampled[i], spages[i], status);
	idle_on0 = on_node0(idle_pid, nsidle, idle_pages, status);
	printf("end,hot_a,hot_b,warm,oneshot,cold,idle\n");
	printf("end,%ld,%ld,%ld,%ld,%ld,%ld\n", on0[HOT_A], on0[HOT_B],
	       on0[WARM], on0[ONESHOT], on0[COLD], idle_on0);

	for (i = 0; i < NR_SETS; i++)
		printf("total,%s,%ld\n", set_name[i], sampled[i]);
	printf("total,idle,%ld\ntotal,stride,%ld\n", nsidle, stride);
	printf("total,hot_pages,%ld\ntotal,page_size,%ld\n", npages[HOT_A], psz);
	printf("total,pass_ms,%ld\ntotal,busy,%d\n", pass_ms, busy);
	printf("total,drift_mb,%ld\ntotal,drift_s,%ld\n", drift_mb, drift_s);
	printf("total,writers,%d\ntotal,writer_threads,%d\n", nwriters, threads);
	printf("total,writer_passes_missed,%ld\n", missed);
	if (theta)
		printf("total,zipf_theta,%.3f\ntotal,zipf_pages,%ld\ntotal,zipf_mult,%ld\n"
		       "total,zipf_off_steady,%ld\ntotal,zipf_off_moved,%ld\n"
		       "total,zipf_draws,%ld\ntotal,node0_free_kb,%ld\n"
		       "total,node0_high_kb,%ld\n",
		       theta, z.n, z.mult, z.off[STEADY], z.off[MOVED],
		       npages[HOT_A], free0_kb, high0_kb);
	printf("total,node0_held_mb,%ld\n", hold_mb);
	printf("total,meter_loops_per_s,%.0f\n", (cal1 - cal0) / cal_s);
	for (ph = 0; ph < NR_PHASES; ph++) {
		double s = (at[ph + 1] - at[ph]) / 1e9;

		printf("total,%s_s,%.6f\n", phase_name[ph], s);
		printf("total,%s_passes,%ld\n", phase_name[ph], done[ph]);
		printf("total,%s_passes_due,%.0f\n", phase_name[ph],
		       len_s[ph] * 1e3 / pass_ms);
		printf("total,%s_passes_late,%ld\n", phase_name[ph], late[ph]);
		printf("total,%s_meter_loops,%lu\n", phase_name[ph],
		       meter[ph + 1] - meter[ph]);
		printf("total,%s_spin_loops,%lu\n", phase_name[ph],
		       spin[ph + 1] - spin[ph]);
		for (k = 0; k < nthreads; k++)
			printf("thread,%d,%s,%.3f\n", tpid[k], phase_name[ph],
			       thr[k][ph] < 0 || thr[k][ph + 1] < 0 ? -1 :
			       thr[k][ph + 1] - thr[k][ph]);
		/* the same counters in the same order, but for new ones */
		for (k = 0; k < vs[ph + 1].n && k < vs[ph].n; k++)
			if (!strcmp(vs[ph].name[k], vs[ph + 1].name[k]) &&
			    counter_wanted(vs[ph].name[k]))
				printf("vmstat,%s,%s,%lld\n", phase_name[ph],
				       vs[ph].name[k],
				       (long long)(vs[ph + 1].val[k] - vs[ph].val[k]));
	}
	/* the warm-up after its first settle_s seconds: the background */
	printf("total,background_s,%.6f\n", (at[STEADY] - bg_at) / 1e9);
	printf("total,background_meter_loops,%lu\n", meter[STEADY] - bg_meter);
	printf("total,background_spin_loops,%lu\n", spin[STEADY] - bg_spin);
	printf("total,utime_s,%.3f\ntotal,stime_s,%.3f\n",
	       cpu_s(ru.ru_utime), cpu_s(ru.ru_stime));
	printf("total,pid,%d\ntotal,t0_mono_s,%.6f\n", (int)getpid(),
	       at[STEADY] / 1e9);
	printf("total,warmup_start_mono_s,%.6f\n", tw / 1e9);
	kill(idle_pid, SIGKILL);
	waitpid(idle_pid, NULL, 0);
	if (hold_pid) {
		/* its pipes are freed once it is reaped */
		kill(hold_pid, SIGKILL);
		waitpid(hold_pid, NULL, 0);
	}
	if (tick_pid) {
		kill(tick_pid, SIGKILL);
		waitpid(tick_pid, NULL, 0);
	}
	for (cpu = 1; busy && cpu < ncpus; cpu++) {
		kill(loop_pid[cpu], SIGKILL);
		waitpid(loop_pid[cpu], NULL, 0);
	}
	return 0;
}
