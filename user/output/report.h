/* SPDX-License-Identifier: GPL-2.0 */
/* The JSON view of a report (Documentation/report-json.md). */
#ifndef GPUPROBE_REPORT_H
#define GPUPROBE_REPORT_H

#include <stdio.h>

#include "agg.h"
#include "attribute.h"
#include "json.h"
#include "passthrough.h"
#include "tracecost.h"
#include "verdict.h"

#define REPORT_JSON_VERSION	1

/*
 * How a report is shown.  wall_ns: the recording's (report.c), the
 * verdict's denominator; verbose: every idle vector and all-zero row too.
 */
struct report_view {
	uint64_t wall_ns;
	bool verbose;
	const struct trace_cost_calib *cost;	/* per-record costs; NULL: GPUPROBE_TRACE_COST */
};

/*
 * at: the attribution, NULL when the trace holds no application events;
 * pt: host and guest, NULL (or not merged) for a single machine's trace;
 * view: NULL for the defaults (wall from the records, folded).
 */
void report_print_json(FILE *out, const char *path, const struct agg *a,
		       const struct attribution *at, const struct passthrough *pt,
		       const struct report_view *view);
void report_print_text(FILE *out, const char *path, const struct agg *a,
		       const struct attribution *at, const struct passthrough *pt,
		       const struct report_view *view);

/* tracecost_report.c: the tracing-cost line, the JSON "tracing_cost" member. */
void tracecost_print_text(FILE *out, const struct trace_cost *tc);
void tracecost_print_json(struct json *j, const struct trace_cost *tc);
/* The view's calibration, else GPUPROBE_TRACE_COST's (warned about once when malformed). */
void report_trace_cost(struct trace_cost *tc, const struct agg *a, const struct attribution *at,
		       const struct report_view *view);

/* report_verdict.c: the block the text opens with, the JSON "verdict" member. */
void verdict_print_text(FILE *out, const struct verdict *v);
void verdict_print_json(struct json *j, const struct verdict *v);

/* Shared with passthrough_report.c: a histogram, and a machine's "targets" member. */
void report_json_hist(struct json *j, const char *key, const struct hist *h);
void report_json_targets(struct json *j, const struct agg *a);
/* A trace_command as an array of its strings, null when none (or malformed). */
void report_json_command(struct json *j, const struct trace_command *c);
void report_text_targets(FILE *out, const struct agg *a, bool verbose);

/* passthrough_report.c */
void passthrough_print_text(FILE *out, const struct passthrough *pt);
void passthrough_print_json(struct json *j, const struct passthrough *pt, const struct agg *host);

/* kvm_report.c: the host side (NULL: no KVM records; JSON: null). */
void kvm_print_text(FILE *out, const struct kvm_host *k);
void kvm_print_json(struct json *j, const struct kvm_host *k);
/* xen_report.c: Xen's side from dom0's xentrace (NULL: none; JSON: null). */
void xen_print_text(FILE *out, const struct xen_host *x);
void xen_print_json(struct json *j, const struct xen_host *x);
void iommu_parts_print_text(FILE *out, const struct agg *a);
void iommu_parts_print_json(struct json *j, const struct agg *a);

#endif /* GPUPROBE_REPORT_H */
