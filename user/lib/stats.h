/* SPDX-License-Identifier: GPL-2.0 */
/* Exact statistics of a sample set: the one nearest-rank percentile. */
#ifndef GPUPROBE_STATS_H
#define GPUPROBE_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct sample_stats {
	size_t n;
	double p50, p99, mean, min, max;
};

/* Nearest-rank percentile (q in [0, 1]) of sorted v[0..n), n > 0. */
double percentile_sorted(const double *v, size_t n, double q);
/* Sorts a copy of v; false (and all zero) when n is 0 or out of memory. */
bool sample_stats_of(const double *v, size_t n, struct sample_stats *s);

#endif /* GPUPROBE_STATS_H */
