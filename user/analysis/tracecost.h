/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracer's own cost in the traced workload, as `report` states it.
 *
 * Counted: the records each layer wrote (CUDA and OpenCL application
 * records, the kernel side's records) and the time CUPTI timed itself
 * spending (its OVERHEAD records of its own kinds).  Estimated: records x a
 * per-record cost per layer, with the interval of its measurement.  The
 * cost is given to report as GPUPROBE_TRACE_COST or --tracing-cost
 * "cuda=NS,opencl=NS,kernel=NS" (a machine's own, measured as
 * scripts/h200-calls.sh does); without it, the one measured on the H200
 * (TRACE_COST_H200_*); "none" leaves only CUPTI's own timed overhead, a
 * lower bound.  CUPTI's overhead records alone were about 100 times too
 * low on the launch-bound torch loop (8.3 ms, 0.06 % of wall, for a
 * measured 0.9 s: they time CUPTI's buffer handling, not what each call
 * costs the calling thread; Documentation/results/h200-2026-12-02c).
 */
#ifndef GPUPROBE_TRACECOST_H
#define GPUPROBE_TRACECOST_H

#include <stdbool.h>
#include <stdint.h>

#include "agg.h"
#include "attribute.h"

#define TRACE_COST_ENV		"GPUPROBE_TRACE_COST"
/* Past this share of wall time the report's shares are said to be distorted (issue 24's goal). */
#define TRACE_COST_LARGE	0.03

/*
 * The per-record CUDA cost measured on the H200, used when none is given
 * (Documentation/results/h200-2026-12-02c/calls: scripts/examples/cuda_calls.cu,
 * 20000 cudaLaunchKernel calls of an empty kernel, traced with the default
 * sync source, the driver callbacks, less untraced, 5 interleaved rounds):
 * 1633 ns a launch, bootstrap 95 % interval of the median [823, 3472], for
 * its 2 records (the API call and the kernel).  OpenCL and the kernel side:
 * not measured there (0).  On the launch-bound torch loop the measured cost
 * was about 2.7 times records x this (h200-2026-12-02c/torch).
 */
#define TRACE_COST_H200_CUDA_NS		816.5
#define TRACE_COST_H200_CUDA_LO_NS	411.5
#define TRACE_COST_H200_CUDA_HI_NS	1736.0
#define TRACE_COST_H200_SOURCE		"the H200's, 2026-12-02c (cuda_calls: launches traced less untraced)"

struct trace_cost_calib {
	bool known;
	bool none;				/* "none": CUPTI's overhead only, by request */
	double cuda_ns, opencl_ns, kernel_ns;	/* per record */
	double cuda_lo_ns, cuda_hi_ns;		/* its interval (both cuda_ns when given) */
	const char *source;			/* where it came from: "GPUPROBE_TRACE_COST", ... */
};

/* The H200's calibration (above). */
void trace_cost_builtin(struct trace_cost_calib *c);

struct trace_cost {
	uint64_t cuda_records, opencl_records, kernel_records;
	uint64_t overhead_records, overhead_ns;	/* CUPTI's own, timed by CUPTI */
	uint64_t wall_ns;
	struct trace_cost_calib calib;
	double per_record_ns;		/* records x calibration; 0 when not calibrated */
	double estimate_ns;		/* the larger of per_record_ns and overhead_ns */
	double estimate_lo_ns, estimate_hi_ns;	/* the same with the interval's ends */
	double share, share_hi;		/* estimate_ns, estimate_hi_ns of wall; 0 when wall is 0 */
	bool large;			/* share_hi >= TRACE_COST_LARGE: it may distort the shares */
};

/*
 * "cuda=250,opencl=0,kernel=40" (any of the three, in any order), or "none":
 * 0, or -1 when malformed.
 */
int trace_cost_parse(const char *spec, struct trace_cost_calib *c);
/* at: NULL when the trace has no application records. */
void trace_cost_build(struct trace_cost *tc, const struct agg *a, const struct attribution *at,
		      uint64_t wall_ns, const struct trace_cost_calib *calib);

#endif /* GPUPROBE_TRACECOST_H */
