// SPDX-License-Identifier: GPL-2.0
/*
 * OpenCL device clock drift (inject/clockmap.c): a device clock 50 ppm fast
 * and 1.234 s off, calibrated with a +-2 us error.  One offset (the layer
 * before re-calibration) is 500 us wrong after 10 s, beyond its 2 us bound;
 * re-calibrating every second keeps every mapped time within the bound the
 * map reports, and that bound within 2 us inside the calibrated span.
 */
#include "clockmap.h"
#include "testlib.h"
#include "tests.h"

#define DRIFT_PPM	50
#define OFFSET_NS	1234000000ull
#define CAL_ERROR_NS	2000
#define SECOND		1000000000ull

static uint64_t device_at(uint64_t host)
{
	return host + host / 1000000 * DRIFT_PPM + OFFSET_NS;
}

/* A calibration: the host reading is off by up to CAL_ERROR_NS (deterministic jitter). */
static struct clock_point calibrate_at(uint64_t host, int k)
{
	int64_t jitter = (int64_t)((k * 7919) % (2 * CAL_ERROR_NS + 1)) - CAL_ERROR_NS;

	return (struct clock_point){ device_at(host), host + (uint64_t)jitter, CAL_ERROR_NS };
}

static int64_t off_by(const struct clock_map *m, uint64_t host, uint64_t *bound)
{
	uint64_t mapped = 0;

	if (!clock_map_to_host(m, device_at(host), &mapped, bound))
		return INT64_MAX;
	return (int64_t)(mapped - host);
}

void test_clockmap_drift(void)
{
	static struct clock_map once, recal;
	uint64_t bound, worst_bound = 0;
	int64_t err, worst = 0;
	int outside = 0;

	clock_map_add(&once, calibrate_at(SECOND, 0));
	for (int k = 0; k <= 10; k++)
		clock_map_add(&recal, calibrate_at(SECOND + k * SECOND, k));
	err = off_by(&once, 11 * SECOND, &bound);
	CHECK(err > 400000 && bound == CAL_ERROR_NS, "one offset after 10 s: off %lld, claims %llu",
	      (long long)err, (unsigned long long)bound);
	for (uint64_t t = SECOND; t <= 11 * SECOND; t += SECOND / 7) {
		err = off_by(&recal, t, &bound);
		err = err < 0 ? -err : err;
		outside += (uint64_t)err > bound;
		worst = err > worst ? err : worst;
		worst_bound = bound > worst_bound ? bound : worst_bound;
	}
	CHECK(outside == 0, "%d mapped times outside their bound", outside);
	CHECK(worst <= CAL_ERROR_NS && worst_bound <= CAL_ERROR_NS, "worst %lld, bound %llu",
	      (long long)worst, (unsigned long long)worst_bound);
	/* Beyond the last calibration the bound grows with the measured drift. */
	err = off_by(&recal, 21 * SECOND, &bound);
	err = err < 0 ? -err : err;
	CHECK((uint64_t)err <= bound && bound > 400000, "extrapolated: off %lld, bound %llu",
	      (long long)err, (unsigned long long)bound);
	/* No point: no mapping (the layer then writes no device time as host time). */
	{
		static const struct clock_map none;
		uint64_t h = 0, e = 0;

		CHECK(!clock_map_to_host(&none, 5, &h, &e), "mapped without calibration");
	}
	/*
	 * Before the first point the bound grows with the drift too, by the
	 * distance to that point: points (device 1000 -> host 5000, +-10) and
	 * (2000 -> 6250, +-20): 1.25 host ns per device ns; device
	 * 500, 500 before the first, maps to 5000 - 1.25 * 500 = 4375 within
	 * 20 + 0.25 * 500 + 1 = 146 (binary-exact steps: no rounding).
	 */
	{
		static struct clock_map two;
		uint64_t h = 0, e = 0;

		clock_map_add(&two, (struct clock_point){ 1000, 5000, 10 });
		clock_map_add(&two, (struct clock_point){ 2000, 6250, 20 });
		CHECK(clock_map_to_host(&two, 500, &h, &e) && h == 4375 && e == 146,
		      "before the first point: host %llu within %llu, expected 4375 within 146",
		      (unsigned long long)h, (unsigned long long)e);
	}
}
