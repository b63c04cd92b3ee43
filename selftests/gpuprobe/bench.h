/* SPDX-License-Identifier: GPL-2.0 */
/* What the VM benchmarks share: the clock and the median table. */
#ifndef GPUPROBE_SELFTEST_BENCH_H
#define GPUPROBE_SELFTEST_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Sorts each configuration's samples (rows of `rounds`) in place, stores the
 * medians and prints one "name median (min, max)" line per configuration.
 */
static inline void bench_medians(const char *const *names, int nconf,
				 int rounds, uint64_t *samples, uint64_t *med)
{
	for (int c = 0; c < nconf; c++) {
		uint64_t *s = samples + (size_t)c * rounds;

		qsort(s, rounds, sizeof(uint64_t), cmp_u64);
		med[c] = s[rounds / 2];
		printf("%-9s %6llu ns  (min %llu, max %llu)\n", names[c],
		       (unsigned long long)med[c], (unsigned long long)s[0],
		       (unsigned long long)s[rounds - 1]);
	}
}

#endif /* GPUPROBE_SELFTEST_BENCH_H */
