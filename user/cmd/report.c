// SPDX-License-Identifier: GPL-2.0
/*
 * `gpuprobe-trace report`: per target and vector summaries, as text or one
 * JSON document (keys in Documentation/report-json.md).  The file is read
 * once, streaming: aggregation (analysis/agg.c) and attribution
 * (analysis/attribute.c) consume the same records.  A file cut short is
 * reported up to its last whole record, with a warning.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>

#include "agg.h"
#include "attribute.h"
#include "cmds.h"
#include "passthrough.h"
#include "report.h"
#include "util.h"

/* Wall time of the recording, for the attribution's shares. */
/* report --test-tsc-error (tests): ticks added to every KVM offset of the exact clock */
static int64_t test_tsc_error;

static uint64_t wall_ns(const struct trace_reader *r, const struct trace_info *info,
			const struct agg *a)
{
	uint64_t stop = r->seen_end ? r->end.hdr.ts_ns : a->last_ts;

	return stop > info->start_ns ? stop - info->start_ns : 0;
}

int report_file(const char *path, bool json, FILE *out)
{
	return report_file_verbose(path, json, false, out);
}

int report_file_verbose(const char *path, bool json, bool verbose, FILE *out)
{
	return report_file_view(path, json, verbose, NULL, out);
}

int report_file_view(const char *path, bool json, bool verbose,
		     const struct trace_cost_calib *cost, FILE *out)
{
	struct report_view view = { .verbose = verbose, .cost = cost };
	const struct gpuprobe_rec_hdr *rec;
	struct attribution *at = NULL;
	struct attr_builder *ab = NULL;
	struct passthrough *pt = NULL;
	struct trace_reader r;
	struct trace_info *info;
	struct agg *a = NULL;
	bool keep_kernel;
	char err[512];
	int ret = 1, n;

	info = malloc(sizeof(*info));
	if (!info) {
		errorf("out of memory");
		return 1;
	}
	if (trace_reader_open(&r, path, info)) {
		errorf("%s", r.error);
		goto out_close;
	}
	a = agg_new(info);
	ab = attr_builder_new(info->app_events);
	pt = passthrough_new();
	if (!a || !ab || !pt) {
		errorf("out of memory");
		goto out_close;
	}
	pt->test_tsc_error = test_tsc_error;
	keep_kernel = attr_builder_keeps_kernel(ab);
	while ((n = trace_reader_next(&r, &rec)) > 0) {
		agg_add(a, rec);
		passthrough_add(pt, rec);
		if (keep_kernel || rec->type == TRACEFILE_REC_APP || rec->type == TRACEFILE_REC_STRING)
			attr_builder_add(ab, rec);
	}
	if (n < 0) {
		errorf("%s", r.error);
		goto out_close;
	}
	trace_reader_warn(&r);
	agg_finish(a, &r);
	passthrough_finish(pt);
	view.wall_ns = wall_ns(&r, info, a);
	at = attr_builder_finish(ab, view.wall_ns, err, sizeof(err));
	if (!at && err[0])
		warnf("no attribution: %s", err);
	if (json)
		report_print_json(out, path, a, at, pt, &view);
	else
		report_print_text(out, path, a, at, pt, &view);
	ret = 0;
out_close:
	trace_reader_close(&r);
	attribution_free(at);
	attr_builder_free(ab);
	passthrough_free(pt);
	agg_free(a);
	free(info);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "test-tsc-error", required_argument, NULL, 'E' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "tracing-cost", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct trace_cost_calib cost = { .source = "--tracing-cost" };
	bool json = false, verbose = false, have_cost = false;
	int c;

	while ((c = getopt_long(argc, argv, "jvh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'c':
			if (trace_cost_parse(optarg, &cost)) {
				errorf("--tracing-cost wants cuda=NS,opencl=NS,kernel=NS (any of them) or none, not '%s'",
				       optarg);
				return 2;
			}
			have_cost = true;
			break;
		case 'E': {
			char *end;

			errno = 0;
			test_tsc_error = strtoll(optarg, &end, 0);
			if (errno || end == optarg || *end) {
				errorf("--test-tsc-error wants TSC ticks, not '%s'", optarg);
				return 2;
			}
			break;
		}
		case 'h':
			usage_of("report", stdout);
			return 0;
		default:
			usage_of("report", stderr);
			return 2;
		}
	}
	if (argc - optind > 1) {
		errorf("report takes one trace file, got %d: see gpuprobe-trace report --help",
		       argc - optind);
		return 2;
	}
	return report_file_view(optind < argc ? argv[optind] : "gpuprobe.trace", json, verbose,
				have_cost ? &cost : NULL, stdout);
}
