/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact statistics of a sample set, and the one percentile convention of
 * the whole tool: nearest rank.  The p-th percentile of n sorted values is
 * the value of rank ceil(p * n / 100) (1-based, at least 1): always one of
 * the samples, never an interpolation.  hist.c uses the same rank and
 * gives the low edge of the bucket that holds that sample.
 */
#ifndef GPUPROBE_STATS_H
#define GPUPROBE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sample_stats {
	size_t n;
	double p50, p99, mean, min, max;
	double p25, p75;		/* the spread `compare` shows beside a ratio */
};

/*
 * The nearest rank (1..n) of percentile pct (0..100) among n > 0 values,
 * computed as ceil(pct * n / 100) so that, e.g., p7 of 100 is rank 7
 * (0.07 * 100 is 7.000000000000001 in binary floating point: rank 8).
 */
uint64_t nearest_rank(double pct, uint64_t n);
/* Nearest-rank percentile (pct in [0, 100]) of sorted v[0..n), n > 0. */
double percentile_sorted(const double *v, size_t n, double pct);
/* Sorts a copy of v; false (and all zero) when n is 0 or out of memory. */
bool sample_stats_of(const double *v, size_t n, struct sample_stats *s);

#endif /* GPUPROBE_STATS_H */
