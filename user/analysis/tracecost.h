/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracer's own cost in the traced workload, as `report` states it.
 *
 * Counted: the records each layer wrote (CUDA and OpenCL application
 * records, the kernel side's records) and the time CUPTI timed itself
 * spending (its OVERHEAD records of its own kinds).  Estimated: records x a
 * per-record cost per layer, which this code does not know: it is measured
 * (scripts/h200-cost.sh: the time of every CUDA call recorded less the time
 * of the default set, over the records that differ) and given to report as
 * GPUPROBE_TRACE_COST or --tracing-cost "cuda=NS,opencl=NS,kernel=NS".
 * Without it, the estimate is CUPTI's own timed overhead: a lower bound.
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

struct trace_cost_calib {
	bool known;
	double cuda_ns, opencl_ns, kernel_ns;	/* per record */
	const char *source;			/* where it came from: "GPUPROBE_TRACE_COST", ... */
};

struct trace_cost {
	uint64_t cuda_records, opencl_records, kernel_records;
	uint64_t overhead_records, overhead_ns;	/* CUPTI's own, timed by CUPTI */
	uint64_t wall_ns;
	struct trace_cost_calib calib;
	double per_record_ns;		/* records x calibration; 0 when not calibrated */
	double estimate_ns;		/* the larger of per_record_ns and overhead_ns */
	double share;			/* of wall; 0 when wall is 0 */
	bool large;			/* share >= TRACE_COST_LARGE */
};

/* "cuda=250,opencl=0,kernel=40" (any of the three, in any order): 0, or -1 when malformed. */
int trace_cost_parse(const char *spec, struct trace_cost_calib *c);
/* at: NULL when the trace has no application records. */
void trace_cost_build(struct trace_cost *tc, const struct agg *a, const struct attribution *at,
		      uint64_t wall_ns, const struct trace_cost_calib *calib);

#endif /* GPUPROBE_TRACECOST_H */
