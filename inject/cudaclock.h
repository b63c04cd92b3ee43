/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How far CUPTI's device times are from CLOCK_MONOTONIC, from brackets
 * (plain C: the CUDA library uses it, the user/ tests link it).
 *
 * CUPTI maps the GPU's clock to ours itself; we cannot see its mapping, only
 * check it.  A tiny device op issued after host time `before` and seen done
 * before host time `after` truly ran inside [before, after].  If CUPTI's
 * times are off by an offset d (reported = true + d), then
 *	d <= gpu_start - before   and   d >= gpu_end - after.
 * Every try gives such an interval; the offset, constant over a burst of
 * tries a few microseconds apart, lies in their intersection, and the error
 * bound is the larger of its ends' magnitudes.
 */
#ifndef GPUPROBE_CUDACLOCK_H
#define GPUPROBE_CUDACLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct cuda_clock_try {
	uint64_t before, after;		/* CLOCK_MONOTONIC around issue .. seen done */
	uint64_t gpu_start, gpu_end;	/* CUPTI's times of the op */
};

struct cuda_clock_fit {
	int64_t offset_lo, offset_hi;	/* CUPTI time - true time lies in [lo, hi] */
	uint64_t bound_ns;		/* max(|lo|, |hi|) */
	uint64_t host_ns;		/* a host time of the burst (tightest try's middle) */
	bool consistent;		/* false: the intervals do not meet (offset moved,
					 * or an op longer on the GPU than its bracket);
					 * lo/hi are then their hull */
};

/* false when n is 0. */
bool cuda_clock_fit(const struct cuda_clock_try *tries, unsigned int n, struct cuda_clock_fit *fit);

/*
 * "0000:00:06.0" or "00000000:65:00.0" (cuDeviceGetPCIBusId) -> GPUPROBE_BDF()
 * packing: domain << 16 | bus << 8 | device << 3 | function.
 */
bool cuda_pci_bus_id_parse(const char *s, uint32_t *bdf);

#endif /* GPUPROBE_CUDACLOCK_H */
