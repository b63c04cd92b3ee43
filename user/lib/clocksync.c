// SPDX-License-Identifier: GPL-2.0
/* Clock offset, drift and error bound from two-way exchanges (clocksync.h). */
#include <string.h>

#include "clocksync.h"

int clock_burst_best(const struct clock_sample *s, unsigned int n, struct clock_point *out)
{
	int best = -1;

	for (unsigned int i = 0; i < n; i++) {
		if (s[i].t3 < s[i].t1)
			continue;
		if (best < 0 || s[i].t3 - s[i].t1 < s[best].t3 - s[best].t1)
			best = (int)i;
	}
	if (best < 0)
		return -1;
	/* midpoint without overflow; the half nanosecond goes into the bound */
	out->host_ns = s[best].t1 + (s[best].t3 - s[best].t1) / 2;
	out->guest_ns = s[best].t2;
	out->offset_ns = (int64_t)(s[best].t2 - out->host_ns);
	out->error_ns = (s[best].t3 - s[best].t1 + 1) / 2;
	return 0;
}

void clock_fit_init(struct clock_fit *f)
{
	memset(f, 0, sizeof(*f));
}

/* Kept sorted by host time: bursts arrive in order, files may not. */
int clock_fit_add(struct clock_fit *f, const struct clock_point *p)
{
	unsigned int i;

	if (f->npoints >= CLOCK_FIT_MAX_POINTS)
		return -1;
	for (i = f->npoints; i > 0 && f->point[i - 1].host_ns > p->host_ns; i--)
		f->point[i] = f->point[i - 1];
	f->point[i] = *p;
	f->npoints++;
	return 0;
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

void clock_fit_solve(struct clock_fit *f)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, slope = 0;
	unsigned int n = f->npoints;

	f->error_ns = 0;
	f->residual_ns = 0;
	f->drift_ppb = 0;
	if (!n) {
		f->offset_ns = 0;
		f->ref_host_ns = 0;
		return;
	}
	/* relative to the first point: doubles keep nanoseconds over days */
	f->ref_host_ns = f->point[0].host_ns;
	for (unsigned int i = 0; i < n; i++) {
		double x = (double)(f->point[i].host_ns - f->ref_host_ns);
		double y = (double)(f->point[i].offset_ns - f->point[0].offset_ns);

		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		if (f->point[i].error_ns > f->error_ns)
			f->error_ns = f->point[i].error_ns;
	}
	if (n > 1 && n * sxx - sx * sx > 0)
		slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	f->drift_ppb = (int64_t)(slope * 1e9);
	f->offset_ns = f->point[0].offset_ns + (int64_t)((sy - slope * sx) / n);
	for (unsigned int i = 0; i < n; i++) {
		double x = (double)(f->point[i].host_ns - f->ref_host_ns);
		int64_t line = f->offset_ns + (int64_t)(slope * x);
		uint64_t r = (uint64_t)abs64(f->point[i].offset_ns - line);

		if (r > f->residual_ns)
			f->residual_ns = r;
	}
}

/* The offset at guest time g, on the line through a and b (guest times apart). */
static int64_t offset_between(const struct clock_point *a, const struct clock_point *b,
			      uint64_t g)
{
	double span = (double)(int64_t)(b->guest_ns - a->guest_ns);
	double part = (double)(int64_t)(g - a->guest_ns);

	return a->offset_ns + (int64_t)((double)(b->offset_ns - a->offset_ns) * part / span);
}

bool clock_guest_to_host(const struct clock_fit *f, uint64_t guest_ns, uint64_t *host_ns)
{
	const struct clock_point *p = f->point;
	unsigned int n = f->npoints, i;
	int64_t off;

	if (!n)
		return false;
	if (n == 1 || guest_ns <= p[0].guest_ns) {
		off = p[0].offset_ns + (int64_t)((double)f->drift_ppb / 1e9 *
						 (double)(int64_t)(guest_ns - p[0].guest_ns));
	} else if (guest_ns >= p[n - 1].guest_ns) {
		off = p[n - 1].offset_ns + (int64_t)((double)f->drift_ppb / 1e9 *
						     (double)(int64_t)(guest_ns - p[n - 1].guest_ns));
	} else {
		unsigned int lo = 1, hi = n - 1;

		/* the first point at or after guest_ns: p[lo - 1] < guest_ns <= p[lo] */
		while (lo < hi) {
			unsigned int mid = lo + (hi - lo) / 2;

			if (p[mid].guest_ns < guest_ns)
				lo = mid + 1;
			else
				hi = mid;
		}
		i = lo;
		off = p[i].guest_ns == p[i - 1].guest_ns ? p[i].offset_ns :
		      offset_between(&p[i - 1], &p[i], guest_ns);
	}
	*host_ns = guest_ns - (uint64_t)off;
	return true;
}
