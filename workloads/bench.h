/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmarks in workloads/ share. Include after defining
 * _GNU_SOURCE (for sched_setaffinity()).
 */
#ifndef WORKLOADS_BENCH_H
#define WORKLOADS_BENCH_H

#include <sched.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns: under "-icount shift=0", 1 ns is 1 instruction. */
static inline double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Run the calling thread on @cpu only; 0, or -1 with errno set. */
static inline int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

#endif
