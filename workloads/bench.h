/* SPDX-License-Identifier: GPL-2.0 */
/* What the --icount benchmarks in workloads/ share. */
#ifndef WORKLOADS_BENCH_H
#define WORKLOADS_BENCH_H

#include <time.h>

/* CLOCK_MONOTONIC in ns: under "-icount shift=0", 1 ns is 1 instruction. */
static inline double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#endif
