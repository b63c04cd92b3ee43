// SPDX-License-Identifier: GPL-2.0
/* Histogram maths: percentiles and log2 views of struct hist. */
#include <math.h>
#include <string.h>

#include "hist.h"
#include "stats.h"

#define STARS_WIDTH	40

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->count)
		return;
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

uint64_t hist_bucket_low(unsigned int index)
{
	unsigned int e, sub;

	if (index < HIST_SUB)
		return index;
	e = index / HIST_SUB + HIST_SUB_BITS - 1;
	sub = index % HIST_SUB;
	return (uint64_t)(HIST_SUB + sub) << (e - HIST_SUB_BITS);
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0, v;

	if (!h->count)
		return 0;
	rank = nearest_rank(p, h->count);	/* the same rank as stats.c */
	if (rank == 1)
		return h->min;
	if (rank >= h->count)
		return h->max;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			v = hist_bucket_low(i);
			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

uint64_t hist_mean(const struct hist *h)
{
	return h->count ? h->sum / h->count : 0;
}

void hist_log2(const struct hist *h, uint64_t slots[HIST_LOG2_SLOTS])
{
	memset(slots, 0, HIST_LOG2_SLOTS * sizeof(slots[0]));
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		if (h->bucket[i])
			slots[hist_log2_slot(hist_bucket_low(i))] += h->bucket[i];
}

static void print_stars(FILE *out, uint64_t val, uint64_t val_max)
{
	unsigned int n = val_max ? (unsigned int)(val * STARS_WIDTH / val_max) : 0;

	for (unsigned int i = 0; i < STARS_WIDTH; i++)
		fputc(i < n ? '*' : ' ', out);
}

void hist_print_log2(FILE *out, const struct hist *h, const char *unit)
{
	uint64_t slots[HIST_LOG2_SLOTS], val_max = 0;
	int first = -1, last = -1;

	hist_log2(h, slots);
	for (int i = 0; i < HIST_LOG2_SLOTS; i++) {
		if (!slots[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (slots[i] > val_max)
			val_max = slots[i];
	}
	if (first < 0)
		return;
	fprintf(out, "%18s%-10s : count     distribution\n", "", unit);
	for (int i = first; i <= last; i++) {
		uint64_t low = i ? 1ull << i : 0;
		uint64_t high = i == 63 ? UINT64_MAX : (1ull << (i + 1)) - 1;

		fprintf(out, "%12llu -> %-12llu : %-9llu |", (unsigned long long)low,
			(unsigned long long)high, (unsigned long long)slots[i]);
		print_stars(out, slots[i], val_max);
		fputs("|\n", out);
	}
}
