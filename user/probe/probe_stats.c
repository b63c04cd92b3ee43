// SPDX-License-Identifier: GPL-2.0
/*
 * Probe bookkeeping: sample sets and their distribution, the phases of a
 * run, the device-clock calibration, and the size sweeps.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "array.h"
#include "probe.h"
#include "stats.h"
#include "util.h"

#define KiB	1024ULL
#define MiB	(1024ULL * KiB)

static const uint64_t copy_sizes[] = {
	4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 1 * MiB, 4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB,
};
static const uint64_t copy_sizes_quick[] = { 4 * KiB, 64 * KiB, 1 * MiB };
static const uint64_t pin_sizes[] = { 4 * KiB, 64 * KiB, 1 * MiB, 16 * MiB, 256 * MiB };
static const uint64_t pin_sizes_quick[] = { 4 * KiB, 64 * KiB, 1 * MiB };

size_t probe_sizes(const struct probe_opts *o, const uint64_t **sizes)
{
	*sizes = o->quick ? copy_sizes_quick : copy_sizes;
	return o->quick ? ARRAY_SIZE(copy_sizes_quick) : ARRAY_SIZE(copy_sizes);
}

size_t probe_pin_sizes(const struct probe_opts *o, const uint64_t **sizes)
{
	*sizes = o->quick ? pin_sizes_quick : pin_sizes;
	return o->quick ? ARRAY_SIZE(pin_sizes_quick) : ARRAY_SIZE(pin_sizes);
}

size_t probe_samples_for(uint64_t est_ns, uint64_t budget_ns, size_t min, size_t max)
{
	size_t n = est_ns ? budget_ns / est_ns : max;

	return n < min ? min : n > max ? max : n;
}

struct probe_dist *probe_dist_new(struct probe_api *a, const char *name, uint64_t bytes,
				  const char *what_fmt, ...)
{
	struct probe_dist *d = calloc(1, sizeof(*d));
	va_list ap;

	if (!d) {
		errorf("out of memory");
		exit(1);
	}
	ARRAY_PUSH_OR_DIE(a->dists, a->ndists, d);
	copy_string(d->name, sizeof(d->name), name);
	d->bytes = bytes;
	va_start(ap, what_fmt);
	vsnprintf(d->what, sizeof(d->what), what_fmt, ap);
	va_end(ap);
	return d;
}

struct probe_dist *probe_dist_sized(struct probe_api *a, const char *prefix, uint64_t size,
				    uint64_t bytes, const char *what)
{
	char sz[24], name[64];

	format_size(sz, sizeof(sz), size);
	snprintf(name, sizeof(name), "%s.%s", prefix, sz);
	return probe_dist_new(a, name, bytes, "%s", what);
}

void *probe_host_alloc(uint64_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		errorf("cannot map %llu bytes of host memory: %m", (unsigned long long)bytes);
		return NULL;
	}
	memset(p, 0x5a, bytes);
	return p;
}

void probe_host_free(void *p, uint64_t bytes)
{
	if (p)
		munmap(p, bytes);
}

void probe_dist_add(struct probe_dist *d, double ns)
{
	array_reserve_or_die((void **)&d->ns, &d->cap, d->n + 1, sizeof(*d->ns));
	d->ns[d->n++] = ns;
}

bool probe_summarize(const struct probe_dist *d, struct sample_stats *s)
{
	return sample_stats_of(d->ns, d->n, s);
}

void probe_wake_add(struct probe_api *a, const struct probe_wake_sample *w)
{
	ARRAY_PUSH_OR_DIE(a->wake, a->nwake, *w);
}

void probe_defer(struct probe_api *a, struct probe_dist *d, uint64_t host_ns, uint64_t dev_ns,
		 int sign)
{
	struct probe_deferred item = (struct probe_deferred){ d, host_ns, dev_ns, sign };

	ARRAY_PUSH_OR_DIE(a->deferred, a->ndeferred, item);
}

void probe_resolve(struct probe_api *a)
{
	if (!a->cal.valid)
		return;
	for (size_t i = 0; i < a->ndeferred; i++) {
		const struct probe_deferred *p = &a->deferred[i];
		int64_t diff = (int64_t)p->host_ns - probe_clock_to_mono(&a->cal, p->dev_ns);

		probe_dist_add(p->d, (double)(p->sign * diff));
	}
	for (size_t i = 0; i < a->nwake; i++) {
		struct probe_wake_sample *w = &a->wake[i];

		if (w->gpu_start_dev)
			w->gpu_start_ns = probe_clock_to_mono(&a->cal, w->gpu_start_dev);
		if (w->gpu_end_dev)
			w->gpu_end_ns = probe_clock_to_mono(&a->cal, w->gpu_end_dev);
	}
}

void probe_phase_begin(struct probe_api *a, const char *name)
{
	struct probe_phase *p;

	if (a->nphases == PROBE_MAX_PHASES)
		return;
	p = &a->phases[a->nphases];
	copy_string(p->name, sizeof(p->name), name);
	p->start_ns = mono_now_ns();
	p->end_ns = 0;
}

void probe_phase_end(struct probe_api *a)
{
	if (a->nphases == PROBE_MAX_PHASES)
		return;
	a->phases[a->nphases++].end_ns = mono_now_ns();
}

void probe_window_add(struct probe_api *a, const struct probe_dist *d, uint64_t start_ns,
		      uint64_t end_ns, uint32_t ops)
{
	struct probe_window item = (struct probe_window){ d, start_ns, end_ns, ops };

	ARRAY_PUSH_OR_DIE(a->windows, a->nwindows, item);
}

void probe_api_free(struct probe_api *a)
{
	for (size_t i = 0; i < a->ndists; i++) {
		free(a->dists[i]->ns);
		free(a->dists[i]);
	}
	free(a->dists);
	free(a->wake);
	free(a->deferred);
	free(a->windows);
	free(a->counters);
	a->counters = NULL;
	a->ncounters = 0;
	a->windows = NULL;
	a->nwindows = 0;
	a->deferred = NULL;
	a->ndeferred = 0;
	a->dists = NULL;
	a->wake = NULL;
	a->ndists = a->nwake = 0;
}

static int cmp_rtt(const void *a, const void *b)
{
	const struct probe_clock_pair *x = a, *y = b;
	uint64_t rx = x->t1 - x->t0, ry = y->t1 - y->t0;

	return (rx > ry) - (rx < ry);
}

/*
 * Each pair says t0 <= dev + offset <= t1. The pairs with the shortest
 * round trip bound the offset best; intersect their intervals. When they
 * disagree (drift, timer granularity), fall back to the single best pair,
 * whose bound is half its round trip.
 */
bool probe_clock_fit(struct probe_clock_pair *p, size_t n, struct probe_clock_cal *cal)
{
	size_t keep = n / 10 < 3 ? 3 : n / 10;
	int64_t lo = INT64_MIN, hi = INT64_MAX;

	cal->valid = false;
	cal->pairs = n;
	if (n < 3)
		return false;
	qsort(p, n, sizeof(*p), cmp_rtt);
	if (keep > n)
		keep = n;
	for (size_t i = 0; i < keep; i++) {
		int64_t l = (int64_t)(p[i].t0 - p[i].dev), h = (int64_t)(p[i].t1 - p[i].dev);

		lo = l > lo ? l : lo;
		hi = h < hi ? h : hi;
	}
	cal->best_rtt_ns = (double)(p[0].t1 - p[0].t0);
	cal->dev_ref_ns = p[0].dev;
	cal->drift_ppm = 0;
	if (lo <= hi) {
		cal->offset_ns = lo + (hi - lo) / 2;
		cal->error_ns = (double)(hi - lo) / 2;
		cal->used = keep;
	} else {
		cal->offset_ns = (int64_t)(p[0].t0 - p[0].dev) + (int64_t)(p[0].t1 - p[0].t0) / 2;
		cal->error_ns = cal->best_rtt_ns / 2;
		cal->used = 1;
	}
	cal->valid = true;
	return true;
}

void probe_clock_merge(struct probe_clock_cal *first, const struct probe_clock_cal *second)
{
	double span;

	if (!second->valid)
		return;
	if (!first->valid) {
		*first = *second;
		return;
	}
	/* Differences first: a double cannot hold a 1.7e18 ns timer to the ns. */
	span = (double)(int64_t)(second->dev_ref_ns - first->dev_ref_ns);
	if (span > 0)
		first->drift_ppm = (double)(second->offset_ns - first->offset_ns) / span * 1e6;
	if (second->error_ns > first->error_ns)
		first->error_ns = second->error_ns;
	first->pairs += second->pairs;
	first->used += second->used;
}

int64_t probe_clock_to_mono(const struct probe_clock_cal *cal, uint64_t dev_ns)
{
	double since = (double)(int64_t)(dev_ns - cal->dev_ref_ns);

	return (int64_t)dev_ns + cal->offset_ns + (int64_t)llround(since * cal->drift_ppm * 1e-6);
}

