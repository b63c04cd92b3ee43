// SPDX-License-Identifier: GPL-2.0
/* `report` as text: per target and vector summaries, then the attribution. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg.h"
#include "attribute.h"
#include "format.h"
#include "report.h"
#include "util.h"

static const char *clock_name(uint32_t id)
{
	return id == CLOCK_MONOTONIC ? "CLOCK_MONOTONIC" : "unknown";
}

/* Chunks skipped: where, how much, and that every count is low. */
static void print_damage(FILE *out, const struct agg *a)
{
	fprintf(out, "  DAMAGED: %u chunk%s failed %s checksum and %s skipped: %s%" PRIu64 " records lost; every count below is a lower bound\n",
		a->damaged, a->damaged == 1 ? "" : "s", a->damaged == 1 ? "its" : "their",
		a->damaged == 1 ? "was" : "were", a->skipped_exact ? "" : "at least ",
		a->skipped_records);
	for (unsigned int i = 0; i < a->ndamage; i++) {
		const struct tracefile_damage *d = &a->damage[i];

		fprintf(out, "    chunk %u at offset %" PRIu64 ": %s, %" PRIu64 " bytes skipped", d->index,
			d->offset, d->why, d->bytes);
		if (d->records >= 0)
			fprintf(out, ", %" PRId64 " records", d->records);
		fputc('\n', out);
	}
	if (a->damaged > a->ndamage)
		fprintf(out, "    and %u more\n", a->damaged - a->ndamage);
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
	if (a->command.present && !a->command.malformed) {
		fprintf(out, "  workload command: ");
		command_print_shell(out, &a->command);
		command_print_cut(out, &a->command);
		fputc('\n', out);
	} else if (a->command.present) {
		fprintf(out, "  workload command: its record is malformed, not shown\n");
	}
	if (!a->complete)
		fprintf(out, "  INCOMPLETE: the file ends at offset %" PRIu64 " without an end record (the recording was cut short); the counts are those of the %" PRIu64 " whole records before it\n",
			a->truncated_at, a->records);
	if (a->damaged)
		print_damage(out, a);
	if (a->lost || a->lost_reports)
		fprintf(out, "  DROPS: %" PRIu64 " records lost (%" PRIu64 " loss reports, %" PRIu64 " of unknown size); counts below are low\n",
			a->lost, a->lost_reports, a->lost_unknown);
	else
		fprintf(out, "  drops: none\n");
	if (a->have_delivery) {
		const struct tracefile_rec_delivery *d = &a->delivery;

		fprintf(out, "  module delivery: fullest ring %" PRIu64 " of %u records (CPU %u), longest wait for the drain %.1f ms; %" PRIu64 " dropped by the rings, %" PRIu64 " undelivered (%" PRIu64 " by a full socket), %" PRIu64 " socket overflows read, receive buffer %d bytes\n",
			d->high_water, d->slots, d->high_water_cpu, (double)d->wait_max_ns / 1e6,
			d->ring_dropped, d->undelivered, d->overrun, d->socket_overflows, d->rcvbuf);
	}
	if (a->unknown_records)
		fprintf(out, "  %" PRIu64 " records of types this tool does not know were skipped\n",
			a->unknown_records);
	if (a->overflow)
		fprintf(out, "  %" PRIu64 " records beyond this tool's table limits were not counted\n",
			a->overflow);
	if (a->vectors_not_in_header)
		fprintf(out, "  %" PRIu64 " interrupts on %" PRIu64 " vector%s not in the header (requested by the driver after the start), counted below\n",
			a->irqs_not_in_header, a->vectors_not_in_header,
			a->vectors_not_in_header == 1 ? "" : "s");
}

/*
 * A latency nobody measured is "not measured", never 0 ns.  The total is
 * what the verdict sums.
 */
static void print_latency_line(FILE *out, const char *what, const struct hist *h)
{
	char p50[32], p99[32], max[32], total[32];

	if (!h->count) {
		fprintf(out, "%s not measured\n", what);
		return;
	}
	fprintf(out, "%s p50 %s  p99 %s  max %s  total %s\n", what,
		format_ns(p50, FORMAT_NS_LEN, hist_percentile(h, 50)),
		format_ns(p99, FORMAT_NS_LEN, hist_percentile(h, 99)), format_ns(max, FORMAT_NS_LEN, h->max),
		format_ns(total, FORMAT_NS_LEN, (double)h->sum));
}

static void print_kernel_count(FILE *out, const struct agg *a, const struct agg_vector *v)
{
	uint64_t delta;

	if (!v->have_kstart || !v->have_kstop)
		return;
	delta = v->kstop - v->kstart;
	fprintf(out, "      kernel counted %" PRIu64 " (/proc/interrupts delta), trace holds %" PRIu64 " in the same window: %s\n",
		delta, v->in_window, delta == v->in_window ? "match" :
		a->damaged ? "MISMATCH (records of damaged chunks are missing)" : "MISMATCH");
}

static void print_vector(FILE *out, const struct agg *a, const struct agg_vector *v)
{
	double secs = agg_duration_s(a);
	char late[64] = "";

	if (v->resolved_late)
		snprintf(late, sizeof(late), ", resolved while recording at +%.3f s",
			 v->resolved_ts > a->info->start_ns ?
			 (double)(v->resolved_ts - a->info->start_ns) / 1e9 : 0.0);
	else if (!v->in_header)
		snprintf(late, sizeof(late), ", not in header");
	fprintf(out, "    vector %u (irq %u%s%s): %" PRIu64 " irqs, %.1f/s, handled %" PRIu64,
		v->index, v->irq, v->flags & VECTOR_MSIX ? ", MSI-X" : "", late, v->count,
		secs > 0 ? v->count / secs : 0.0, v->handled);
	if (v->no_exit)
		fprintf(out, ", %" PRIu64 " without exit", v->no_exit);
	fputc('\n', out);
	print_kernel_count(out, a, v);
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
		if (d->untimed)
			snprintf(what, sizeof(what), "      latency (%" PRIu64 " of %" PRIu64 " calls timed)",
				 d->calls - d->untimed, d->calls);
		print_latency_line(out, what, &d->latency_ns);
		if (d->latency_ns.max)
			hist_print_log2(out, &d->latency_ns, "nsecs");
	}
}

static void print_iommu(FILE *out, const struct agg_iommu_op iommu[AGG_IOMMU_OPS])
{
	for (unsigned int op = GPUPROBE_IOMMU_MAP; op < AGG_IOMMU_OPS; op++) {
		const struct agg_iommu_op *io = &iommu[op];
		char total[32];

		if (!io->count)
			continue;
		if (op == GPUPROBE_IOMMU_FAULT) {
			fprintf(out, "  IOMMU faults: %" PRIu64 "\n", io->count);
			continue;
		}
		fprintf(out, "  IOMMU %-5s %" PRIu64 " calls, %" PRIu64 " bytes, %s\n",
			iommu_op_name(op), io->count, io->bytes,
			io->time_ns->count ? format_ns(total, FORMAT_NS_LEN, io->time_ns->sum) :
					     "time not measured (tracefs events are instants)");
		if (io->time_ns->count)
			print_latency_line(out, "    time", io->time_ns);
	}
}

/*
 * No interrupt recorded and none counted by the kernel: a line each says
 * nothing, one line says how many.  A vector the kernel counted while the
 * trace holds none (a MISMATCH) is never idle.
 */
static bool vector_idle(const struct agg_vector *v)
{
	if (v->count || v->handled || v->no_exit || v->resolved_late)
		return false;	/* a vector found while recording says so on its line */
	return !v->have_kstart || !v->have_kstop || (v->kstop == v->kstart && !v->in_window);
}

/* "1-7" or "1, 3, 5-6": the folded vectors' indices. */
static void print_folded_vectors(FILE *out, const struct agg *a, uint32_t bdf, unsigned int n)
{
	int run_start = -1, prev = -2;
	bool first = true;

	fprintf(out, "    %u idle vector%s (", n, n == 1 ? "" : "s");
	for (unsigned int i = 0; i <= a->nvectors; i++) {
		bool in = i < a->nvectors && a->vectors[i].bdf == bdf && vector_idle(&a->vectors[i]);
		int idx = in ? (int)a->vectors[i].index : -3;

		if (in && idx == prev + 1) {
			prev = idx;
			continue;
		}
		if (run_start >= 0) {
			fprintf(out, "%s%d", first ? "" : ", ", run_start);
			if (prev != run_start)
				fprintf(out, "-%d", prev);
			first = false;
		}
		run_start = in ? idx : -1;
		prev = in ? idx : -2;
	}
	fprintf(out, "): 0 irqs, 0 in /proc/interrupts where read; -v lists them\n");
}

static void print_target(FILE *out, const struct agg *a, const struct agg_target *t, bool verbose)
{
	unsigned int idle = 0;
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
	for (unsigned int i = 0; i < a->nvectors; i++) {
		if (a->vectors[i].bdf != t->bdf)
			continue;
		if (!verbose && vector_idle(&a->vectors[i]))
			idle++;
		else
			print_vector(out, a, &a->vectors[i]);
	}
	if (idle)
		print_folded_vectors(out, a, t->bdf, idle);
	print_dma(out, t);
	print_iommu(out, t->iommu);
	if (t->swiotlb_bounces)
		fprintf(out, "  swiotlb bounces: %" PRIu64 " (%" PRIu64 " bytes)\n",
			t->swiotlb_bounces, t->swiotlb_bytes);
	if (t->target_events)
		fprintf(out, "  target events (bind/unbind/vectors): %" PRIu64 "\n",
			t->target_events);
}

/* A domain several targets share: its IOMMU work is none of theirs alone. */
static void print_domain(FILE *out, const struct agg_domain *d)
{
	char name[BDF_STRLEN];

	fprintf(out, "\nIOMMU domain 0x%08x shared by ", d->domain);
	for (unsigned int i = 0; i < d->ntargets; i++) {
		bdf_format(d->targets[i], name);
		fprintf(out, "%s%s", i ? ", " : "", name);
	}
	fprintf(out, " (a VFIO container): charged to none of them alone\n");
	print_iommu(out, d->iommu);
}

void report_text_targets(FILE *out, const struct agg *a, bool verbose)
{
	for (unsigned int i = 0; i < a->ntargets; i++)
		print_target(out, a, &a->targets[i], verbose);
	for (unsigned int i = 0; i < a->ndomains; i++)
		if (a->domains[i].shared)
			print_domain(out, &a->domains[i]);
}

void report_print_text(FILE *out, const char *path, const struct agg *a,
		       const struct attribution *at, const struct passthrough *pt,
		       const struct report_view *view)
{
	struct report_view dflt = { (uint64_t)(agg_duration_s(a) * 1e9), false, NULL };
	struct trace_cost tc;
	struct verdict v;

	if (!view)
		view = &dflt;
	verdict_build(&v, a, at, pt, view->wall_ns);
	verdict_print_text(out, &v);
	print_trace_summary(out, path, a);
	report_trace_cost(&tc, a, at, view);
	tracecost_print_text(out, &tc);
	iommu_parts_print_text(out, a);
	report_text_targets(out, a, view->verbose);
	if (a->wakeups || a->switches)
		fprintf(out, "\nscheduler: %" PRIu64 " wakeups, %" PRIu64 " switches of the workload\n",
			a->wakeups, a->switches);
	kvm_print_text(out, a->kvm);
	xen_print_text(out, a->xen);
	if (at)
		attribute_print_text(out, at, view->verbose);
	if (pt && pt->merged) {
		fprintf(out, "\nguest %s (kernel %s, source %s): %" PRIu64 " records\n",
			pt->guest->info.host, pt->guest->info.kernel_release,
			tracefile_source_name(pt->guest->info.source), pt->guest_agg ? pt->guest_agg->records : 0);
		if (pt->guest_agg)
			report_text_targets(out, pt->guest_agg, view->verbose);
		passthrough_print_text(out, pt);
	}
}
