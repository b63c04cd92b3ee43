// SPDX-License-Identifier: GPL-2.0
/*
 * Events inside the probes' windows: the DMA-API map calls (bytes,
 * segments), unmaps, interrupts and swiotlb bounces of the target while one
 * pin call or one copy run was in progress, summed per probe.
 */
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "util.h"

static bool is_map(uint16_t op)
{
	return op == GPUPROBE_DMA_MAP_PAGE || op == GPUPROBE_DMA_MAP_SG ||
	       op == GPUPROBE_DMA_MAP_RESOURCE;
}

static bool is_unmap(uint16_t op)
{
	return op == GPUPROBE_DMA_UNMAP_PAGE || op == GPUPROBE_DMA_UNMAP_SG ||
	       op == GPUPROBE_DMA_UNMAP_RESOURCE;
}

/* First index whose time is >= ts in an array sorted by ts_ns at `off`. */
#define LOWER_BOUND(arr, n, field, ts) ({ \
	size_t lo_ = 0, hi_ = (n); \
	while (lo_ < hi_) { \
		size_t mid_ = lo_ + (hi_ - lo_) / 2; \
		if ((arr)[mid_].field < (ts)) \
			lo_ = mid_ + 1; \
		else \
			hi_ = mid_; \
	} \
	lo_; })

void explain_count(const struct explain_timeline *t, uint64_t start, uint64_t end,
		   struct explain_load *l)
{
	for (size_t i = LOWER_BOUND(t->dma, t->ndma, ts_ns, start);
	     i < t->ndma && t->dma[i].ts_ns <= end; i++) {
		if (is_map(t->dma[i].op)) {
			l->map_calls++;
			l->map_bytes += t->dma[i].bytes;
			l->map_segments += t->dma[i].nents;
		} else if (is_unmap(t->dma[i].op)) {
			l->unmap_calls++;
		}
	}
	for (size_t i = LOWER_BOUND(t->irqs, t->nirqs, entry_ns, start);
	     i < t->nirqs && t->irqs[i].entry_ns <= end; i++)
		l->irqs++;
	for (size_t i = LOWER_BOUND(t->bounces, t->nbounces, ts_ns, start);
	     i < t->nbounces && t->bounces[i].ts_ns <= end; i++) {
		l->bounces++;
		l->bounce_bytes += t->bounces[i].bytes;
	}
}

size_t explain_loads(const struct explain_timeline *t, const struct explain_window *w, size_t n,
		     struct explain_load **loads)
{
	struct explain_load *l = calloc(n ? n : 1, sizeof(*l));
	size_t nl = 0;

	*loads = l;
	if (!l)
		return 0;
	for (size_t i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < nl && strcmp(l[k].probe, w[i].probe); k++)
			;
		if (k == nl)
			copy_string(l[nl++].probe, sizeof(l->probe), w[i].probe);
		l[k].windows++;
		l[k].ops += w[i].ops;
		l[k].window_ns += w[i].end_ns - w[i].start_ns;
		explain_count(t, w[i].start_ns, w[i].end_ns, &l[k]);
	}
	return nl;
}

uint64_t explain_size_of(const char *probe)
{
	const char *dot = strrchr(probe, '.');
	char *unit;
	unsigned long long v;

	if (!dot)
		return 0;
	v = strtoull(dot + 1, &unit, 10);
	if (unit == dot + 1)
		return 0;
	if (!strcmp(unit, "KiB"))
		return v << 10;
	if (!strcmp(unit, "MiB"))
		return v << 20;
	if (!strcmp(unit, "GiB"))
		return v << 30;
	return !strcmp(unit, "B") ? v : 0;
}
