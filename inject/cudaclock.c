// SPDX-License-Identifier: GPL-2.0
/* CUPTI time vs CLOCK_MONOTONIC from brackets; PCI bus ids (cudaclock.h). */
#include <stdio.h>
#include <string.h>

#include "cudaclock.h"

static uint64_t magnitude(int64_t v)
{
	return v < 0 ? (uint64_t)-v : (uint64_t)v;
}

bool cuda_clock_fit(const struct cuda_clock_try *tries, unsigned int n, struct cuda_clock_fit *fit)
{
	int64_t lo = INT64_MIN, hi = INT64_MAX, hull_lo = INT64_MAX, hull_hi = INT64_MIN;
	uint64_t tightest = UINT64_MAX;

	if (!n)
		return false;
	for (unsigned int i = 0; i < n; i++) {
		const struct cuda_clock_try *t = &tries[i];
		int64_t t_lo = (int64_t)(t->gpu_end - t->after);
		int64_t t_hi = (int64_t)(t->gpu_start - t->before);

		if (t_lo > lo)
			lo = t_lo;
		if (t_hi < hi)
			hi = t_hi;
		/* an inverted try (GPU duration over its bracket) widens the hull too */
		if ((t_lo < t_hi ? t_lo : t_hi) < hull_lo)
			hull_lo = t_lo < t_hi ? t_lo : t_hi;
		if ((t_lo > t_hi ? t_lo : t_hi) > hull_hi)
			hull_hi = t_lo > t_hi ? t_lo : t_hi;
		if (t->after - t->before < tightest) {
			tightest = t->after - t->before;
			fit->host_ns = t->before + tightest / 2;
		}
	}
	fit->consistent = lo <= hi;
	if (!fit->consistent) {
		lo = hull_lo;
		hi = hull_hi;
	}
	fit->offset_lo = lo;
	fit->offset_hi = hi;
	fit->bound_ns = magnitude(lo) > magnitude(hi) ? magnitude(lo) : magnitude(hi);
	return true;
}

bool cuda_pci_bus_id_parse(const char *s, uint32_t *bdf)
{
	unsigned int domain, bus, dev, fn;
	int end = 0;

	/* %x alone would take signs, blanks and 0x prefixes */
	if (s[strspn(s, "0123456789abcdefABCDEF:.")] ||
	    sscanf(s, "%x:%x:%x.%x%n", &domain, &bus, &dev, &fn, &end) != 4 || s[end] ||
	    domain > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return false;
	*bdf = domain << 16 | bus << 8 | dev << 3 | fn;
	return true;
}
