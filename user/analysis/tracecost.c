// SPDX-License-Identifier: GPL-2.0
/* The tracer's cost in the workload (tracecost.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tracecost.h"

static int parse_one(const char *key, size_t klen, const char *val, struct trace_cost_calib *c)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	/* "-0" too is negative: the estimate, a maximum, is then never -0 */
	if (errno || end == val || (*end && *end != ',') || !(v >= 0) || signbit(v) || v > 1e9)
		return -1;
	if (klen == 4 && !strncmp(key, "cuda", 4))
		c->cuda_ns = v;
	else if (klen == 6 && !strncmp(key, "opencl", 6))
		c->opencl_ns = v;
	else if (klen == 6 && !strncmp(key, "kernel", 6))
		c->kernel_ns = v;
	else
		return -1;
	return 0;
}

int trace_cost_parse(const char *spec, struct trace_cost_calib *c)
{
	struct trace_cost_calib out = { .known = true };
	const char *p = spec;

	if (!spec || !*spec)
		return -1;
	if (!strcmp(spec, "none")) {
		out.known = false;
		out.none = true;
		out.source = c->source;
		*c = out;
		return 0;
	}
	while (*p) {
		const char *eq = strchr(p, '='), *comma;

		if (!eq || eq == p || parse_one(p, (size_t)(eq - p), eq + 1, &out))
			return -1;
		comma = strchr(eq, ',');
		if (!comma)
			break;
		p = comma + 1;
		if (!*p)
			return -1;
	}
	out.cuda_lo_ns = out.cuda_hi_ns = out.cuda_ns;
	out.source = c->source;
	*c = out;
	return 0;
}

void trace_cost_builtin(struct trace_cost_calib *c)
{
	memset(c, 0, sizeof(*c));
	c->known = true;
	c->cuda_ns = TRACE_COST_H200_CUDA_NS;
	c->cuda_lo_ns = TRACE_COST_H200_CUDA_LO_NS;
	c->cuda_hi_ns = TRACE_COST_H200_CUDA_HI_NS;
	c->source = TRACE_COST_H200_SOURCE;
}

static double at_least(double a, uint64_t b)
{
	return a > (double)b ? a : (double)b;
}

void trace_cost_build(struct trace_cost *tc, const struct agg *a, const struct attribution *at,
		      uint64_t wall_ns, const struct trace_cost_calib *calib)
{
	uint64_t app = at ? at->app_events : 0;
	double rest = 0, lo = 0, hi = 0;

	memset(tc, 0, sizeof(*tc));
	tc->cuda_records = at ? at->events_by_api[GPUPROBE_APP_CUDA] : 0;
	tc->opencl_records = at ? at->events_by_api[GPUPROBE_APP_OPENCL] : 0;
	/* everything else in the file came from the kernel side (module or tracefs) */
	tc->kernel_records = a->records > app ? a->records - app : 0;
	tc->overhead_records = at ? at->overhead_records : 0;
	tc->overhead_ns = at ? at->overhead_ns : 0;
	tc->wall_ns = wall_ns;
	if (calib)
		tc->calib = *calib;
	if (calib && calib->known) {
		rest = (double)tc->opencl_records * calib->opencl_ns +
		       (double)tc->kernel_records * calib->kernel_ns;
		tc->per_record_ns = (double)tc->cuda_records * calib->cuda_ns + rest;
		lo = (double)tc->cuda_records * calib->cuda_lo_ns + rest;
		hi = (double)tc->cuda_records * calib->cuda_hi_ns + rest;
	}
	/*
	 * A calibration measured with CUPTI's overhead in it already counts
	 * that overhead: the larger of the two, never their sum.
	 */
	tc->estimate_ns = at_least(tc->per_record_ns, tc->overhead_ns);
	tc->estimate_lo_ns = at_least(lo, tc->overhead_ns);
	tc->estimate_hi_ns = at_least(hi, tc->overhead_ns);
	tc->share = wall_ns ? tc->estimate_ns / (double)wall_ns : 0;
	tc->share_hi = wall_ns ? tc->estimate_hi_ns / (double)wall_ns : 0;
	tc->large = tc->share_hi >= TRACE_COST_LARGE;
}
