// SPDX-License-Identifier: GPL-2.0
/* `report --json`: the same numbers as the text report, as one document. */
#include <time.h>

#include "attribute.h"
#include "json.h"
#include "report.h"

void report_json_hist(struct json *j, const char *key, const struct hist *h)
{
	uint64_t slots[HIST_LOG2_SLOTS];

	json_key(j, key);
	json_object_begin(j);
	json_kv_u64(j, "count", h->count);
	if (!h->count) {	/* not measured: null, never 0 ns */
		static const char *const keys[] = { "min", "max", "mean", "sum", "p50", "p90", "p99" };

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			json_key(j, keys[i]);
			json_put_null(j);
		}
	} else {
		json_kv_u64(j, "min", h->min);
		json_kv_u64(j, "max", h->max);
		json_kv_u64(j, "mean", hist_mean(h));
		json_kv_u64(j, "sum", h->sum);
		json_kv_u64(j, "p50", hist_percentile(h, 50));
		json_kv_u64(j, "p90", hist_percentile(h, 90));
		json_kv_u64(j, "p99", hist_percentile(h, 99));
	}
	json_key(j, "log2");
	json_array_begin(j);
	hist_log2(h, slots);
	for (unsigned int i = 0; i < HIST_LOG2_SLOTS; i++) {
		if (!slots[i])
			continue;
		json_object_begin(j);
		json_kv_u64(j, "low", i ? 1ull << i : 0);
		json_kv_u64(j, "high", i == 63 ? UINT64_MAX : (1ull << (i + 1)) - 1);
		json_kv_u64(j, "count", slots[i]);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

/* Chunks skipped as damaged (format version 3), and what that makes of the counts. */
static void json_damage(struct json *j, const struct agg *a)
{
	json_kv_bool(j, "damaged", a->damaged > 0);
	json_kv_u64(j, "damaged_chunks", a->damaged);
	json_kv_u64(j, "skipped_records", a->skipped_records);
	json_kv_bool(j, "skipped_records_exact", a->skipped_exact);
	json_kv_bool(j, "counts_are_lower_bounds", a->damaged || a->lost || a->lost_reports);
	json_key(j, "damage");
	json_array_begin(j);
	for (unsigned int i = 0; i < a->ndamage; i++) {
		const struct tracefile_damage *d = &a->damage[i];

		json_object_begin(j);
		json_kv_u64(j, "chunk", d->index);
		json_kv_u64(j, "offset", d->offset);
		json_kv_u64(j, "bytes", d->bytes);
		json_key(j, "records");
		if (d->records >= 0)
			json_i64(j, d->records);
		else
			json_put_null(j);
		json_kv_string(j, "why", d->why);
		json_object_end(j);
	}
	json_array_end(j);
}

static void json_trace(struct json *j, const char *path, const struct agg *a)
{
	const struct trace_info *info = a->info;

	json_key(j, "trace");
	json_object_begin(j);
	json_kv_string(j, "file", path);
	json_kv_u64(j, "format_version", info->format_version);
	json_kv_u64(j, "record_version", info->record_version);
	json_kv_string(j, "host", info->host);
	json_kv_string(j, "kernel_release", info->kernel_release);
	json_kv_string(j, "source", tracefile_source_name(info->source));
	json_kv_string(j, "clock", info->clock_id == CLOCK_MONOTONIC ? "CLOCK_MONOTONIC" : "unknown");
	json_kv_u64(j, "start_ns", info->start_ns);
	json_kv_u64(j, "start_realtime_ns", info->start_realtime_ns);
	json_kv_u64(j, "stop_ns", a->stop_ns);
	json_kv_double(j, "duration_s", agg_duration_s(a));
	json_kv_u64(j, "records", a->records);
	json_kv_u64(j, "unknown_records", a->unknown_records);
	json_kv_u64(j, "uncounted_records", a->overflow);
	json_kv_u64(j, "vectors_not_in_header", a->vectors_not_in_header);
	json_kv_u64(j, "irqs_not_in_header", a->irqs_not_in_header);
	json_kv_bool(j, "complete", a->complete);
	json_kv_u64(j, "truncated_at", a->truncated_at);
	json_damage(j, a);
	json_key(j, "exit_status");
	if (a->exit_status >= 0)
		json_i64(j, a->exit_status);
	else
		json_put_null(j);
	json_key(j, "command");
	report_json_command(j, &a->command);
	json_key(j, "command_argc");
	if (a->command.present && !a->command.malformed)
		json_u64(j, a->command.argc);
	else
		json_put_null(j);
	json_kv_bool(j, "command_cut", a->command.cut);
	json_object_end(j);
}

void report_json_command(struct json *j, const struct trace_command *c)
{
	if (!c->present || c->malformed) {
		json_put_null(j);
		return;
	}
	json_array_begin(j);
	for (uint32_t i = 0; i < c->nargs; i++)
		json_put_string(j, command_arg(c, i));
	json_array_end(j);
}

static void json_kernel_count(struct json *j, const struct agg_vector *v)
{
	json_key(j, "kernel_count");
	if (!v->have_kstart || !v->have_kstop) {
		json_put_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_u64(j, "start", v->kstart);
	json_kv_u64(j, "stop", v->kstop);
	json_kv_u64(j, "delta", v->kstop - v->kstart);
	json_kv_u64(j, "records_in_window", v->in_window);
	json_kv_bool(j, "match", v->kstop - v->kstart == v->in_window);
	json_object_end(j);
}

static void json_vector(struct json *j, const struct agg *a, const struct agg_vector *v)
{
	double secs = agg_duration_s(a);

	json_object_begin(j);
	json_kv_u64(j, "index", v->index);
	json_kv_u64(j, "irq", v->irq);
	json_kv_bool(j, "msix", v->flags & VECTOR_MSIX);
	json_kv_bool(j, "in_header", v->in_header);
	json_kv_u64(j, "resolved_ns", v->resolved_late ? v->resolved_ts : 0);
	json_kv_u64(j, "count", v->count);
	json_kv_u64(j, "handled", v->handled);
	json_kv_u64(j, "no_exit", v->no_exit);
	json_kv_double(j, "rate_per_s", secs > 0 ? v->count / secs : 0.0);
	json_kv_u64(j, "first_ns", v->first_ts);
	json_kv_u64(j, "last_ns", v->last_ts);
	json_kernel_count(j, v);
	report_json_hist(j, "handler_ns", v->handler_ns);
	json_object_end(j);
}

static void json_dma(struct json *j, const struct agg_target *t)
{
	json_key(j, "dma");
	json_array_begin(j);
	for (unsigned int op = 0; op < AGG_DMA_OPS; op++) {
		const struct agg_dma_op *d = t->dma[op];

		if (!d)
			continue;
		json_object_begin(j);
		json_kv_string(j, "op", dma_op_name(op));
		json_kv_u64(j, "calls", d->calls);
		json_kv_u64(j, "bytes", d->bytes);
		json_kv_u64(j, "segments", d->segments);
		json_kv_u64(j, "iommu_calls", d->iommu_calls);
		json_kv_u64(j, "iommu_ns", d->iommu_ns);
		json_kv_u64(j, "untimed", d->untimed);
		report_json_hist(j, "latency_ns", &d->latency_ns);
		json_object_end(j);
	}
	json_array_end(j);
}

/* map, unmap: count, bytes, untimed, time_ns; then faults */
static void json_iommu_ops(struct json *j, const struct agg_iommu_op iommu[AGG_IOMMU_OPS])
{
	static const struct hist empty;

	for (unsigned int op = GPUPROBE_IOMMU_MAP; op <= GPUPROBE_IOMMU_UNMAP; op++) {
		const struct agg_iommu_op *io = &iommu[op];

		json_key(j, iommu_op_name(op));
		json_object_begin(j);
		json_kv_u64(j, "count", io->count);
		json_kv_u64(j, "bytes", io->bytes);
		json_kv_u64(j, "untimed", io->untimed);
		report_json_hist(j, "time_ns", io->time_ns ? io->time_ns : &empty);
		json_object_end(j);
	}
	json_kv_u64(j, "faults", iommu[GPUPROBE_IOMMU_FAULT].count);
}

static void json_iommu(struct json *j, const struct agg_target *t)
{
	json_key(j, "iommu");
	json_object_begin(j);
	json_iommu_ops(j, t->iommu);
	json_object_end(j);
}

/* The domains several targets share, with their IOMMU work. */
static void json_iommu_domains(struct json *j, const struct agg *a)
{
	char name[BDF_STRLEN];

	json_key(j, "iommu_domains");
	json_array_begin(j);
	for (unsigned int i = 0; i < a->ndomains; i++) {
		const struct agg_domain *d = &a->domains[i];

		if (!d->shared)
			continue;
		json_object_begin(j);
		json_kv_u64(j, "domain", d->domain);
		json_kv_bool(j, "shared", true);
		json_key(j, "targets");
		json_array_begin(j);
		for (unsigned int k = 0; k < d->ntargets; k++) {
			bdf_format(d->targets[k], name);
			json_put_string(j, name);
		}
		json_array_end(j);
		json_key(j, "iommu");
		json_object_begin(j);
		json_iommu_ops(j, d->iommu);
		json_object_end(j);
		json_object_end(j);
	}
	json_array_end(j);
}

static void json_target_identity(struct json *j, const struct agg *a,
				 const struct agg_target *t)
{
	const struct target *info = agg_target_info(a, t);
	char name[BDF_STRLEN], idbuf[PCI_ID_STRLEN];

	json_key(j, "bdf");
	if (t->bdf == GPUPROBE_BDF_NONE) {
		json_put_null(j);
	} else {
		bdf_format(t->bdf, name);
		json_put_string(j, name);
	}
	json_kv_bool(j, "in_header", info != NULL);
	json_kv_u64(j, "vendor", info ? info->vendor : 0);
	json_kv_u64(j, "device", info ? info->device : 0);
	json_kv_u64(j, "class", info ? info->class : 0);
	json_kv_string(j, "pci_id", info ? pci_id(info->vendor, info->device, idbuf) : "");
	json_kv_string(j, "driver", info ? info->driver : "");
}

static void json_target(struct json *j, const struct agg *a, const struct agg_target *t)
{
	json_object_begin(j);
	json_target_identity(j, a, t);
	json_kv_u64(j, "irq_count", t->irq_count);
	json_key(j, "vectors");
	json_array_begin(j);
	for (unsigned int i = 0; i < a->nvectors; i++)
		if (a->vectors[i].bdf == t->bdf)
			json_vector(j, a, &a->vectors[i]);
	json_array_end(j);
	json_dma(j, t);
	json_iommu(j, t);
	json_key(j, "swiotlb");
	json_object_begin(j);
	json_kv_u64(j, "bounces", t->swiotlb_bounces);
	json_kv_u64(j, "bytes", t->swiotlb_bytes);
	json_object_end(j);
	json_kv_u64(j, "target_events", t->target_events);
	json_object_end(j);
}

void report_json_targets(struct json *j, const struct agg *a)
{
	json_key(j, "targets");
	json_array_begin(j);
	for (unsigned int i = 0; i < a->ntargets; i++)
		json_target(j, a, &a->targets[i]);
	json_array_end(j);
}

void report_print_json(FILE *out, const char *path, const struct agg *a,
		       const struct attribution *at, const struct passthrough *pt,
		       const struct report_view *view)
{
	uint64_t wall = view ? view->wall_ns : (uint64_t)(agg_duration_s(a) * 1e9);
	struct report_view dflt = { wall, false, NULL };
	struct trace_cost tc;
	struct verdict v;
	struct json j;

	json_init(&j, out, true);
	json_object_begin(&j);
	json_kv_string(&j, "schema", "gpuprobe-report");
	json_kv_u64(&j, "version", REPORT_JSON_VERSION);
	json_trace(&j, path, a);
	verdict_build(&v, a, at, pt, wall);
	verdict_print_json(&j, &v);
	report_trace_cost(&tc, a, at, view ? view : &dflt);
	tracecost_print_json(&j, &tc);
	report_json_targets(&j, a);
	json_iommu_domains(&j, a);
	json_key(&j, "sched");
	json_object_begin(&j);
	json_kv_u64(&j, "wakeups", a->wakeups);
	json_kv_u64(&j, "switches", a->switches);
	json_object_end(&j);
	json_key(&j, "drops");
	json_object_begin(&j);
	json_kv_u64(&j, "lost", a->lost);
	json_kv_u64(&j, "loss_reports", a->lost_reports);
	json_kv_u64(&j, "unknown_count_reports", a->lost_unknown);
	json_object_end(&j);
	if (a->have_delivery) {
		const struct tracefile_rec_delivery *d = &a->delivery;

		json_key(&j, "delivery");
		json_object_begin(&j);
		json_kv_u64(&j, "ring_slots", d->slots);
		json_kv_u64(&j, "high_water", d->high_water);
		json_kv_u64(&j, "high_water_cpu", d->high_water_cpu);
		json_kv_u64(&j, "wait_max_ns", d->wait_max_ns);
		json_kv_u64(&j, "ring_dropped", d->ring_dropped);
		json_kv_u64(&j, "undelivered", d->undelivered);
		json_kv_u64(&j, "socket_overrun", d->overrun);
		json_kv_u64(&j, "socket_overflows_read", d->socket_overflows);
		json_kv_i64(&j, "rcvbuf", d->rcvbuf);
		json_object_end(&j);
	}
	kvm_print_json(&j, a->kvm);
	xen_print_json(&j, a->xen);
	iommu_parts_print_json(&j, a);
	if (at)
		attribute_print_json(&j, at);
	if (pt && pt->merged)
		passthrough_print_json(&j, pt, a);
	json_object_end(&j);
}
