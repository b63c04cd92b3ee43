// SPDX-License-Identifier: GPL-2.0
/*
 * `gpuprobe-trace report`: per target and vector summaries, as text or one
 * JSON document (keys in Documentation/report-json.md).  The file is read
 * once, streaming, into struct agg.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg.h"
#include "attribute.h"
#include "cmds.h"
#include "format.h"
#include "report.h"
#include "util.h"

static const char *clock_name(uint32_t id)
{
	return id == CLOCK_MONOTONIC ? "CLOCK_MONOTONIC" : "unknown";
}

static void print_trace_summary(FILE *out, const char *path, const struct agg *a)
{
	const struct trace_info *info = a->info;

	fprintf(out, "trace %s: host %s, kernel %s, source %s, %s, format v%u, records v%u\n",
		path, info->host, info->kernel_release,
		tracefile_source_name(info->source), clock_name(info->clock_id),
		info->format_version, info->record_version);
	fprintf(out, "  %.3f s, %" PRIu64 " records", agg_duration_s(a), a->records);
	if (a->exit_status >= 0)
		fprintf(out, ", workload exit status %d", a->exit_status);
	fputc('\n', out);
	if (!a->complete)
		fprintf(out, "  WARNING: the file has no end record; the recording was cut short\n");
	if (a->lost || a->lost_reports)
		fprintf(out, "  DROPS: %" PRIu64 " records lost (%" PRIu64 " loss reports, %" PRIu64 " of unknown size); counts below are low\n",
			a->lost, a->lost_reports, a->lost_unknown);
	else
		fprintf(out, "  drops: none\n");
	if (a->unknown_records)
		fprintf(out, "  %" PRIu64 " records of types this tool does not know were skipped\n",
			a->unknown_records);
	if (a->overflow)
		fprintf(out, "  %" PRIu64 " records beyond this tool's table limits were not counted\n",
			a->overflow);
}

static void print_latency_line(FILE *out, const char *what, const struct hist *h)
{
	char p50[32], p99[32], max[32];

	fprintf(out, "%s p50 %s  p99 %s  max %s\n", what,
		format_ns(p50, FORMAT_NS_LEN, hist_percentile(h, 50)),
		format_ns(p99, FORMAT_NS_LEN, hist_percentile(h, 99)), format_ns(max, FORMAT_NS_LEN, h->max));
}

static void print_kernel_count(FILE *out, const struct agg_vector *v)
{
	uint64_t delta;

	if (!v->have_kstart || !v->have_kstop)
		return;
	delta = v->kstop - v->kstart;
	fprintf(out, "      kernel counted %" PRIu64 " (/proc/interrupts delta), trace holds %" PRIu64 " in the same window: %s\n",
		delta, v->in_window, delta == v->in_window ? "match" : "MISMATCH");
}

static void print_vector(FILE *out, const struct agg *a, const struct agg_vector *v)
{
	double secs = agg_duration_s(a);

	fprintf(out, "    vector %u (irq %u%s%s): %" PRIu64 " irqs, %.1f/s, handled %" PRIu64,
		v->index, v->irq, v->flags & VECTOR_MSIX ? ", MSI-X" : "",
		v->in_header ? "" : ", not in header", v->count,
		secs > 0 ? v->count / secs : 0.0, v->handled);
	if (v->no_exit)
		fprintf(out, ", %" PRIu64 " without exit", v->no_exit);
	fputc('\n', out);
	print_kernel_count(out, v);
	if (!v->handler_ns->count)
		return;
	print_latency_line(out, "      handler time", v->handler_ns);
	hist_print_log2(out, v->handler_ns, "nsecs");
}

static void print_dma(FILE *out, const struct agg_target *t)
{
	bool any = false;

	for (unsigned int op = 0; op < AGG_DMA_OPS; op++) {
		const struct agg_dma_op *d = t->dma[op];
		char what[96];

		if (!d)
			continue;
		if (!any)
			fprintf(out, "  DMA API:\n");
		any = true;
		fprintf(out, "    %-14s %" PRIu64 " calls, %" PRIu64 " bytes, %" PRIu64 " segments, %" PRIu64 " IOMMU calls (%" PRIu64 " ns)\n",
			dma_op_name(op), d->calls, d->bytes, d->segments,
			d->iommu_calls, d->iommu_ns);
		snprintf(what, sizeof(what), "      latency");
		print_latency_line(out, what, &d->latency_ns);
		if (d->latency_ns.max)
			hist_print_log2(out, &d->latency_ns, "nsecs");
	}
}

static void print_iommu(FILE *out, const struct agg_target *t)
{
	for (unsigned int op = GPUPROBE_IOMMU_MAP; op < AGG_IOMMU_OPS; op++) {
		const struct agg_iommu_op *io = &t->iommu[op];
		char total[32];

		if (!io->count)
			continue;
		if (op == GPUPROBE_IOMMU_FAULT) {
			fprintf(out, "  IOMMU faults: %" PRIu64 "\n", io->count);
			continue;
		}
		fprintf(out, "  IOMMU %-5s %" PRIu64 " calls, %" PRIu64 " bytes, %s\n",
			iommu_op_name(op), io->count, io->bytes,
			io->time_ns->sum ? format_ns(total, FORMAT_NS_LEN, io->time_ns->sum) :
					   "no durations (tracefs events are instants)");
		if (io->time_ns->max)
			print_latency_line(out, "    time", io->time_ns);
	}
}

static void print_target(FILE *out, const struct agg *a, const struct agg_target *t)
{
	const struct target *info = agg_target_info(a, t);
	char name[BDF_STRLEN];

	if (t->bdf == GPUPROBE_BDF_NONE) {
		fprintf(out, "\nunattributed (no target device known)\n");
	} else {
		bdf_format(t->bdf, name);
		fprintf(out, "\ntarget %s", name);
		if (info)
			fprintf(out, "  %04x:%04x class 0x%06x driver %s", info->vendor,
				info->device, info->class,
				info->driver[0] ? info->driver : "(none)");
		fprintf(out, "\n  interrupts: %" PRIu64 "\n", t->irq_count);
	}
	for (unsigned int i = 0; i < a->nvectors; i++)
		if (a->vectors[i].bdf == t->bdf)
			print_vector(out, a, &a->vectors[i]);
	print_dma(out, t);
	print_iommu(out, t);
	if (t->swiotlb_bounces)
		fprintf(out, "  swiotlb bounces: %" PRIu64 " (%" PRIu64 " bytes)\n",
			t->swiotlb_bounces, t->swiotlb_bytes);
	if (t->target_events)
		fprintf(out, "  target events (bind/unbind/vectors): %" PRIu64 "\n",
			t->target_events);
}

void report_print_text(FILE *out, const char *path, const struct agg *a)
{
	print_trace_summary(out, path, a);
	for (unsigned int i = 0; i < a->ntargets; i++)
		print_target(out, a, &a->targets[i]);
	if (a->wakeups || a->switches)
		fprintf(out, "\nscheduler: %" PRIu64 " wakeups, %" PRIu64 " switches of the workload\n",
			a->wakeups, a->switches);
}

int report_file(const char *path, bool json, FILE *out)
{
	const struct gpuprobe_rec_hdr *rec;
	struct trace_reader r;
	struct trace_info *info;
	struct agg *a = NULL;
	int ret = 1, n;

	info = malloc(sizeof(*info));
	if (!info) {
		errorf("out of memory");
		return 1;
	}
	if (trace_reader_open(&r, path, info)) {
		errorf("%s", r.error);
		goto out_free;
	}
	a = agg_new(info);
	if (!a) {
		errorf("out of memory");
		goto out_close;
	}
	while ((n = trace_reader_next(&r, &rec)) > 0)
		agg_add(a, rec);
	if (n < 0) {
		errorf("%s", r.error);
		goto out_close;
	}
	agg_finish(a, &r);
	if (a->app_events) {
		char err[512];

		a->attribution = attribute_file(path, err, sizeof(err));
		if (!a->attribution && err[0])
			warnf("no attribution: %s", err);
	}
	if (json)
		report_print_json(out, path, a);
	else
		report_print_text(out, path, a);
	if (!json && a->attribution)
		attribute_print_text(out, a->attribution);
	ret = 0;
out_close:
	trace_reader_close(&r);
out_free:
	if (a)
		attribution_free(a->attribution);
	agg_free(a);
	free(info);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool json = false;
	int c;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
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
	return report_file(optind < argc ? argv[optind] : "gpuprobe.trace", json, stdout);
}
