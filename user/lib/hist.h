/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency histograms with bounded memory: 64 linear sub-buckets per power of
 * two (values below 64 exact, relative error below 1/64 above), from which
 * percentiles and bcc-style log2 histograms are derived.
 */
#ifndef GPUPROBE_HIST_H
#define GPUPROBE_HIST_H

#include <stdint.h>
#include <stdio.h>

#define HIST_SUB_BITS	6
#define HIST_SUB	(1u << HIST_SUB_BITS)
#define HIST_BUCKETS	((64 - HIST_SUB_BITS + 1) * HIST_SUB)
#define HIST_LOG2_SLOTS	64

struct hist {
	uint64_t count;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
	uint64_t bucket[HIST_BUCKETS];
};

static inline unsigned int hist_index(uint64_t v)
{
	unsigned int e;

	if (v < HIST_SUB)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	return (e - HIST_SUB_BITS + 1) * HIST_SUB +
	       (unsigned int)((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

static inline void hist_add(struct hist *h, uint64_t v)
{
	if (v < h->min || !h->count)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	h->bucket[hist_index(v)]++;
}

/* bcc's slot: floor(log2(v)), with 0 and 1 both in slot 0. */
static inline unsigned int hist_log2_slot(uint64_t v)
{
	return v ? 63 - (unsigned int)__builtin_clzll(v) : 0;
}

void hist_init(struct hist *h);
void hist_merge(struct hist *dst, const struct hist *src);
uint64_t hist_bucket_low(unsigned int index);
/*
 * Nearest-rank percentile (0 < p <= 100; stats.h: nearest_rank), as the low
 * edge of the bucket holding the sample of that rank, clamped to [min, max]:
 * exact below 64 and at min and max, at most 1/64 below the exact value.
 */
uint64_t hist_percentile(const struct hist *h, double p);
uint64_t hist_mean(const struct hist *h);
void hist_log2(const struct hist *h, uint64_t slots[HIST_LOG2_SLOTS]);
/* Print like bcc's print_log2_hist(); unit names the values ("nsecs"). */
void hist_print_log2(FILE *out, const struct hist *h, const char *unit);

#endif /* GPUPROBE_HIST_H */
