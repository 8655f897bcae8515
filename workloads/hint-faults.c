// SPDX-License-Identifier: GPL-2.0
/*
 * NUMA hint faults that do not promote, timed: the path the promote events
 * hook when NUMA balancing's tiering mode finds the top tier short of
 * room. A sleeping child fills node 0 (the top tier) down to 256 MiB above
 * its promotion watermarks; the tiering mode is on (numa_balancing=2,
 * scans every 100 ms, a rate limit of 1 MB/s); this process, on CPU 0,
 * reads the pages of MB MiB placed on node 1 (the lower tier) in turn for
 * SECS seconds. Printed: hint faults taken, pages promoted, rounds, the
 * fastest round, and ns per hint fault: the time the rounds took beyond
 * the fastest one, over the faults (the scans that made them included).
 * Run under "vm-run --icount" (guest time counts instructions).
 *
 *   hint-faults [SECS] [MB] [MODE] [RATE]
 *                      default 10 s over 64 MiB, MODE 2, RATE 1 (MB/s)
 *
 * MODE 0 (NUMA balancing off) is the control: no hint fault, the time
 * beyond the fastest round is everything else the kernel did meanwhile.
 */
#define _GNU_SOURCE
#include <numaif.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static long psize;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(val, f) < 0 || fclose(f))
		die(path);
}

static unsigned long vmstat(const char *name)
{
	char key[64];
	unsigned long v, r = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		die("/proc/vmstat");
	while (fscanf(f, "%63s %lu", key, &v) == 2)
		if (!strcmp(key, name))
			r = v;
	fclose(f);
	return r;
}

/* node 0's free memory, and the sum of its zones' promo watermarks, kB */
static long node0_free_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/sys/devices/system/node/node0/meminfo", "r");

	if (!f)
		die("node0/meminfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d MemFree: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static long node0_promo_kb(void)
{
	char line[256], name[16];
	long v, sum = 0;
	int n = -1;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		die("/proc/zoneinfo");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d,", &n) == 1)
			continue;
		if (!n && sscanf(line, " %15s %ld", name, &v) == 2 &&
		    !strcmp(name, "promo"))
			sum += v;
	}
	fclose(f);
	return sum * (psize / 1024);
}

/* a child on node 0 that holds node 0 down to @slack_kb free, asleep */
static pid_t fill_node0(long slack_kb)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		die("pipe");
	pid = fork();
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;) {
			long excess = node0_free_kb() - slack_kb;
			size_t chunk = excess > 4096 ? 4 << 20 : excess * 1024;
			char *m;

			chunk &= ~(psize - 1);
			if (excess <= 0 || !chunk)
				break;
			m = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m == MAP_FAILED)
				_exit(1);
			for (size_t i = 0; i < chunk; i += psize)
				m[i] = 1;
		}
		if (write(p[1], "1", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	if (read(p[0], &c, 1) != 1)
		die("filling node 0");
	return pid;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10;
	long mb = argc > 2 ? atol(argv[2]) : 64;
	const char *mode = argc > 3 ? argv[3] : "2";
	const char *rate = argc > 4 ? argv[4] : "1";
	unsigned long faults, promoted, i, sum = 0, rounds = 0;
	double r0, round, fastest = 1e18;
	unsigned long nodemask = 2;
	long free_kb;
	double t0, t;
	size_t len;
	pid_t filler;
	char *p;

	psize = sysconf(_SC_PAGESIZE);
	len = mb << 20;
	if (pin_to_cpu(0))
		die("sched_setaffinity");
	filler = fill_node0(node0_promo_kb() + (256 << 10));
	free_kb = node0_free_kb();

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	madvise(p, len, MADV_NOHUGEPAGE);
	if (mbind(p, len, MPOL_BIND, &nodemask, 64, 0))
		die("mbind");
	for (i = 0; i < len; i += psize)
		p[i] = 1;
	/* placed, then any node: NUMA balancing may ask to move them */
	if (mbind(p, len, MPOL_DEFAULT, NULL, 0, 0))
		die("mbind");

	write_file("/sys/kernel/debug/sched/numa_balancing/scan_delay_ms", "0");
	write_file("/sys/kernel/debug/sched/numa_balancing/scan_period_min_ms", "100");
	write_file("/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps", rate);
	write_file("/proc/sys/kernel/numa_balancing", mode);

	faults = vmstat("numa_hint_faults");
	promoted = vmstat("pgpromote_success");
	t0 = now_ns();
	do {
		r0 = now_ns();
		for (i = 0; i < len; i += psize)
			sum += *(volatile char *)&p[i];
		round = now_ns() - r0;
		fastest = round < fastest ? round : fastest;
		rounds++;
		t = now_ns() - t0;
	} while (t < secs * 1e9);
	faults = vmstat("numa_hint_faults") - faults;
	promoted = vmstat("pgpromote_success") - promoted;
	write_file("/proc/sys/kernel/numa_balancing", "0");
	kill(filler, SIGKILL);
	waitpid(filler, NULL, 0);

	printf("node 0 filled to %ld kB free (promo %ld kB)\n", free_kb,
	       node0_promo_kb());
	printf("hint faults  %lu\n", faults);
	printf("promoted  %lu pages\n", promoted);
	printf("rounds  %lu\n", rounds);
	printf("fastest round  %.0f ns\n", fastest);
	/* what the rounds took beyond the fastest, over the faults in them */
	printf("beyond the fastest rounds  %.0f ns\n", t - rounds * fastest);
	printf("per hint fault  %.1f ns\n",
	       faults ? (t - rounds * fastest) / faults : 0);
	return sum == 42;
}
