/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two clocks lined up by two-way exchanges, as trace-cmd's tsync and PTP do:
 * the host sends at t1 (its clock), the guest answers with t2 (its clock),
 * the host receives at t3.  Whatever the delays, t1 <= true(t2) <= t3, so
 * offset = t2 - (t1 + t3) / 2 is off by at most (t3 - t1) / 2: the bound.
 * A burst keeps its exchange of shortest round trip; bursts at start, end
 * and every second give the offset's course (drift) through the session.
 */
#ifndef GPUPROBE_CLOCKSYNC_H
#define GPUPROBE_CLOCKSYNC_H

#include <stdbool.h>
#include <stdint.h>

#define CLOCK_FIT_MAX_POINTS	4096

struct clock_sample {
	uint64_t t1;		/* host: request sent */
	uint64_t t2;		/* guest: request seen */
	uint64_t t3;		/* host: answer received */
};

/* One burst's best exchange: guest = host + offset_ns at host_ns, within +-error_ns. */
struct clock_point {
	uint64_t host_ns;
	uint64_t guest_ns;
	int64_t offset_ns;
	uint64_t error_ns;
};

struct clock_fit {
	unsigned int npoints;
	struct clock_point point[CLOCK_FIT_MAX_POINTS];	/* in host time order */
	uint64_t ref_host_ns;	/* the fit's offset is at this host time */
	int64_t offset_ns;
	int64_t drift_ppb;	/* d(offset)/d(host time), parts per billion */
	uint64_t error_ns;	/* the largest burst bound: every mapping is within it */
	uint64_t residual_ns;	/* the largest distance of a point from the fitted line */
};

/* The exchange of shortest round trip; -1 when none is well-formed (t1 <= t3). */
int clock_burst_best(const struct clock_sample *s, unsigned int n, struct clock_point *out);

void clock_fit_init(struct clock_fit *f);
/* Points beyond CLOCK_FIT_MAX_POINTS are ignored (-1). */
int clock_fit_add(struct clock_fit *f, const struct clock_point *p);
/* Least-squares offset and drift over the points; error_ns, residual_ns. */
void clock_fit_solve(struct clock_fit *f);

/*
 * A guest timestamp on the host clock: the offset interpolated between the
 * two bursts around it (their line beyond the first and last); false when
 * the fit has no point (the clocks were never compared: no mapping).
 */
bool clock_guest_to_host(const struct clock_fit *f, uint64_t guest_ns, uint64_t *host_ns);

#endif /* GPUPROBE_CLOCKSYNC_H */
