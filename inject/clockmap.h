/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A device clock mapped to CLOCK_MONOTONIC through calibration points
 * (plain C: the OpenCL layer uses it, the user/ tests link it).
 */
#ifndef GPUPROBE_CLOCKMAP_H
#define GPUPROBE_CLOCKMAP_H

#include <stdbool.h>
#include <stdint.h>

#define CLOCK_MAP_POINTS	64	/* the oldest go first (but the first is kept) */

struct clock_point {
	uint64_t device_ns;
	uint64_t host_ns;		/* CLOCK_MONOTONIC it maps to */
	uint64_t error_ns;		/* half the calibration's round trip */
};

struct clock_map {
	struct clock_point p[CLOCK_MAP_POINTS];	/* by device time */
	unsigned int n;
};

void clock_map_add(struct clock_map *m, struct clock_point pt);
/*
 * device time -> host time: between two points linearly (drift between
 * them absorbed, error the larger of theirs); beyond the last, along the
 * last segment's slope, the error growing by the drift rate measured there
 * times the distance.  false when there is no point: never guess.
 */
bool clock_map_to_host(const struct clock_map *m, uint64_t device_ns, uint64_t *host_ns,
		       uint64_t *error_ns);

#endif /* GPUPROBE_CLOCKMAP_H */
