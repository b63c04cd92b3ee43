// SPDX-License-Identifier: GPL-2.0
/* Exact statistics of a sample set; see stats.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

uint64_t nearest_rank(double pct, uint64_t n)
{
	double r;

	if (!(pct > 0))
		return 1;
	if (pct >= 100)
		return n;
	/* pct * n is exact for the integer percentiles we use; then one rounding. */
	r = ceil(pct * (double)n / 100.0);
	return r < 1 ? 1 : r > (double)n ? n : (uint64_t)r;
}

double percentile_sorted(const double *v, size_t n, double pct)
{
	return v[nearest_rank(pct, n) - 1];
}

bool sample_stats_of(const double *v, size_t n, struct sample_stats *s)
{
	double *sorted, sum = 0;

	memset(s, 0, sizeof(*s));
	if (!n || !(sorted = malloc(n * sizeof(*sorted))))
		return false;
	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += sorted[i];
	*s = (struct sample_stats){ n, percentile_sorted(sorted, n, 50),
				    percentile_sorted(sorted, n, 99), sum / (double)n,
				    sorted[0], sorted[n - 1], percentile_sorted(sorted, n, 25),
				    percentile_sorted(sorted, n, 75) };
	free(sorted);
	return true;
}
