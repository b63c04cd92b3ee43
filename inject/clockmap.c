// SPDX-License-Identifier: GPL-2.0
/*
 * Device clock to CLOCK_MONOTONIC through calibration points (clockmap.h).
 * One offset taken once drifts: a device oscillator 50 ppm off is 500 us
 * off after 10 s, far beyond the few-us bound of the calibration itself, so
 * the OpenCL layer re-calibrates during the run and maps through the points.
 */
#include <string.h>

#include "clockmap.h"

void clock_map_add(struct clock_map *m, struct clock_point pt)
{
	unsigned int i;

	if (m->n && pt.device_ns <= m->p[m->n - 1].device_ns)
		return;		/* the device clock does not go back: a bad reading */
	if (m->n == CLOCK_MAP_POINTS) {	/* keep the first, drop the second */
		memmove(&m->p[1], &m->p[2], (CLOCK_MAP_POINTS - 2) * sizeof(m->p[0]));
		m->n--;
	}
	i = m->n++;
	m->p[i] = pt;
}

static double slope_of(const struct clock_point *a, const struct clock_point *b)
{
	return (double)(int64_t)(b->host_ns - a->host_ns) / (double)(b->device_ns - a->device_ns);
}

static uint64_t along(const struct clock_point *a, double slope, uint64_t device_ns)
{
	return a->host_ns + (uint64_t)(int64_t)(slope * (double)(int64_t)(device_ns - a->device_ns));
}

static double fabs_(double x)
{
	return x < 0 ? -x : x;
}

bool clock_map_to_host(const struct clock_map *m, uint64_t device_ns, uint64_t *host_ns,
		       uint64_t *error_ns)
{
	const struct clock_point *a, *b;
	unsigned int i;

	if (!m->n)
		return false;
	if (m->n == 1) {
		*host_ns = m->p[0].host_ns + (device_ns - m->p[0].device_ns);
		*error_ns = m->p[0].error_ns;
		return true;
	}
	for (i = 1; i < m->n - 1 && m->p[i].device_ns < device_ns; i++)
		;
	a = &m->p[i - 1];
	b = &m->p[i];
	*host_ns = along(a, slope_of(a, b), device_ns);
	*error_ns = a->error_ns > b->error_ns ? a->error_ns : b->error_ns;
	if (device_ns > b->device_ns)		/* beyond the last point: drift adds up */
		*error_ns += (uint64_t)(fabs_(slope_of(a, b) - 1.0) *
					(double)(device_ns - b->device_ns)) + 1;
	else if (device_ns < a->device_ns)	/* before the first */
		*error_ns += (uint64_t)(fabs_(slope_of(a, b) - 1.0) *
					(double)(a->device_ns - device_ns)) + 1;
	return true;
}
