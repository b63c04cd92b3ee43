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
	if (!tc->calib.known) {
		fprintf(out, "  estimate: CUPTI's own overhead records only (%" PRIu64 ", %.3f ms): a lower bound; no per-record cost given (%s=cuda=NS,opencl=NS,kernel=NS or report --tracing-cost, measured by scripts/h200-cost.sh)\n",
			tc->overhead_records, tc->overhead_ns / 1e6, TRACE_COST_ENV);
		return;
	}
	fprintf(out, "  estimate: %" PRIu64 " x %.0f ns + %" PRIu64 " x %.0f ns + %" PRIu64 " x %.0f ns = %.3f ms (per-record costs from %s), or CUPTI's own overhead records (%" PRIu64 ", %.3f ms) if larger\n",
		tc->cuda_records, tc->calib.cuda_ns, tc->opencl_records, tc->calib.opencl_ns,
		tc->kernel_records, tc->calib.kernel_ns, tc->per_record_ns / 1e6,
		tc->calib.source ? tc->calib.source : "the calibration given",
		tc->overhead_records, tc->overhead_ns / 1e6);
}

void tracecost_print_text(FILE *out, const struct trace_cost *tc)
{
	fprintf(out, "\ntracing cost: %s %.3f ms of the workload's time",
		tc->calib.known ? "about" : "at least", tc->estimate_ns / 1e6);
	if (tc->wall_ns)
		fprintf(out, " (%.2f %% of wall)", 100.0 * tc->share);
	fprintf(out, ": CUDA records %" PRIu64 ", OpenCL %" PRIu64 ", kernel side %" PRIu64 "\n",
		tc->cuda_records, tc->opencl_records, tc->kernel_records);
	print_how(out, tc);
	if (tc->large)
		fprintf(out, "  warning: tracing took %.1f %% of wall (>= %.0f %%): the shares below can be off by as much; record --api-calls attribution (the default) records fewer CUDA calls, --no-inject none\n",
			100.0 * tc->share, 100.0 * TRACE_COST_LARGE);
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
	json_key(j, "calibration");
	if (tc->calib.known)
		json_put_string(j, tc->calib.source ? tc->calib.source : "given");
	else
		json_put_null(j);
	json_kv_string(j, "method", tc->calib.known ? "max(records x per-record cost, cupti overhead)" :
		       "cupti overhead only (lower bound)");
	json_kv_double(j, "estimate_ns", tc->estimate_ns);
	json_key(j, "share_of_wall");
	if (tc->wall_ns)
		json_double(j, tc->share);
	else
		json_put_null(j);
	json_kv_bool(j, "large", tc->large);
	json_object_end(j);
}

void report_trace_cost(struct trace_cost *tc, const struct agg *a, const struct attribution *at,
		       const struct report_view *view)
{
	struct trace_cost_calib env = { .source = TRACE_COST_ENV };
	const char *spec = getenv(TRACE_COST_ENV);

	if (!view->cost && spec && *spec && trace_cost_parse(spec, &env))
		warnf("%s=%s: not cuda=NS,opencl=NS,kernel=NS: ignored", TRACE_COST_ENV, spec);
	trace_cost_build(tc, a, at, view->wall_ns, view->cost ? view->cost : &env);
}
