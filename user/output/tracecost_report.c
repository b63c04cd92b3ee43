// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing-cost line of every report, and report --json's "tracing_cost"
 * (Documentation/report-json.md): what the tracer cost the workload, how the
 * figure was made, and a warning when it is large enough to move the shares
 * the report prints.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "report.h"
#include "tracecost.h"
#include "util.h"

static void print_how(FILE *out, const struct trace_cost *tc)
{
	const struct trace_cost_calib *c = &tc->calib;

	if (!c->known) {
		fprintf(out, "  estimate: CUPTI's own overhead records only (%" PRIu64 ", %.3f ms): a lower bound, far below the cost on launch-bound work (about 100 times on the H200's torch loop); %s (%s=cuda=NS,opencl=NS,kernel=NS or report --tracing-cost, measured as scripts/h200-calls.sh does)\n",
			tc->overhead_records, tc->overhead_ns / 1e6,
			c->none ? "no per-record cost, as asked" : "no per-record cost given",
			TRACE_COST_ENV);
		return;
	}
	fprintf(out, "  estimate: %" PRIu64 " CUDA records x %.0f ns [%.0f, %.0f] + %" PRIu64 " OpenCL x %.0f ns + %" PRIu64 " kernel-side x %.0f ns = %.3f ms [%.3f, %.3f], or CUPTI's own overhead records (%" PRIu64 ", %.3f ms) if larger; per-record costs: %s\n",
		tc->cuda_records, c->cuda_ns, c->cuda_lo_ns, c->cuda_hi_ns, tc->opencl_records,
		c->opencl_ns, tc->kernel_records, c->kernel_ns, tc->per_record_ns / 1e6,
		tc->estimate_lo_ns / 1e6, tc->estimate_hi_ns / 1e6,
		tc->overhead_records, tc->overhead_ns / 1e6,
		c->source ? c->source : "the calibration given");
	fprintf(out, "  not in it: start-up, and CUDA calls that left no record (recorded with GPUPROBE_CUDA_SYNCS=activity, each costs its thread 0.2-0.5 us on the H200); on the H200's launch-bound torch loop the cost measured was about 2.7 times this; another machine's costs differ (measure yours: scripts/h200-calls.sh, then %s)\n",
		TRACE_COST_ENV);
}

void tracecost_print_text(FILE *out, const struct trace_cost *tc)
{
	fprintf(out, "\ntracing cost: %s %.3f ms", tc->calib.known ? "about" : "at least",
		tc->estimate_ns / 1e6);
	if (tc->calib.known)
		fprintf(out, " [%.3f, %.3f]", tc->estimate_lo_ns / 1e6, tc->estimate_hi_ns / 1e6);
	fprintf(out, " of the workload's time");
	if (tc->wall_ns)
		fprintf(out, " (%.2f %% of wall)", 100.0 * tc->share);
	fprintf(out, ": CUDA records %" PRIu64 ", OpenCL %" PRIu64 ", kernel side %" PRIu64 "\n",
		tc->cuda_records, tc->opencl_records, tc->kernel_records);
	print_how(out, tc);
	if (tc->large)
		fprintf(out, "  warning: tracing may have taken up to %.1f %% of wall (>= %.0f %%): the shares below can be off by as much; record --api-calls attribution (the default) records fewer CUDA calls, --no-inject none\n",
			100.0 * tc->share_hi, 100.0 * TRACE_COST_LARGE);
}

void tracecost_print_json(struct json *j, const struct trace_cost *tc)
{
	json_key(j, "tracing_cost");
	json_object_begin(j);
	json_kv_u64(j, "cuda_records", tc->cuda_records);
	json_kv_u64(j, "opencl_records", tc->opencl_records);
	json_kv_u64(j, "kernel_records", tc->kernel_records);
	json_kv_u64(j, "cupti_overhead_records", tc->overhead_records);
	json_kv_u64(j, "cupti_overhead_ns", tc->overhead_ns);
	json_key(j, "per_record_ns");
	if (tc->calib.known) {
		json_object_begin(j);
		json_kv_double(j, "cuda", tc->calib.cuda_ns);
		json_kv_double(j, "opencl", tc->calib.opencl_ns);
		json_kv_double(j, "kernel", tc->calib.kernel_ns);
		json_object_end(j);
	} else {
		json_put_null(j);
	}
	json_key(j, "cuda_per_record_interval_ns");
	if (tc->calib.known) {
		json_array_begin(j);
		json_double(j, tc->calib.cuda_lo_ns);
		json_double(j, tc->calib.cuda_hi_ns);
		json_array_end(j);
	} else {
		json_put_null(j);
	}
	json_key(j, "calibration");
	if (tc->calib.known)
		json_put_string(j, tc->calib.source ? tc->calib.source : "given");
	else
		json_put_null(j);
	json_kv_string(j, "method", tc->calib.known ? "max(records x per-record cost, cupti overhead)" :
		       "cupti overhead only (lower bound)");
	json_kv_double(j, "estimate_ns", tc->estimate_ns);
	json_kv_double(j, "estimate_lo_ns", tc->estimate_lo_ns);
	json_kv_double(j, "estimate_hi_ns", tc->estimate_hi_ns);
	json_key(j, "share_of_wall");
	if (tc->wall_ns)
		json_double(j, tc->share);
	else
		json_put_null(j);
	json_key(j, "share_of_wall_hi");
	if (tc->wall_ns)
		json_double(j, tc->share_hi);
	else
		json_put_null(j);
	json_kv_bool(j, "large", tc->large);
	json_object_end(j);
}

void report_trace_cost(struct trace_cost *tc, const struct agg *a, const struct attribution *at,
		       const struct report_view *view)
{
	struct trace_cost_calib env = { .source = TRACE_COST_ENV }, builtin;
	const char *spec = getenv(TRACE_COST_ENV);
	const struct trace_cost_calib *use = view->cost;

	if (!use && spec && *spec) {
		if (trace_cost_parse(spec, &env))
			warnf("%s=%s: not cuda=NS,opencl=NS,kernel=NS or none: ignored", TRACE_COST_ENV,
			      spec);
		else
			use = &env;
	}
	if (!use) {
		trace_cost_builtin(&builtin);
		use = &builtin;
	}
	trace_cost_build(tc, a, at, view->wall_ns, use);
}
