// SPDX-License-Identifier: GPL-2.0
/* The attribution (attribute.h) as report text and as the JSON "app" key. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "attribute.h"
#include "demangle.h"
#include "format.h"
#include "target.h"
#include "util.h"

#define TEXT_OPS	20
#define TEXT_NAME_WIDTH	60	/* a name in the per-name table, abbreviated past it */
_Static_assert(TEXT_OPS <= ATTR_OPS_DETAILED, "printed ops have their counts");
#define JSON_OPS	ATTR_OPS_DETAILED

static const char *const phase_names[ATTR_PHASES] = { "issue", "run", "return" };
static const char *const sync_kind_names[ATTR_SYNC_KINDS] = {
	[GPUPROBE_SYNC_OTHER] = "other", [GPUPROBE_SYNC_DEVICE] = "device",
	[GPUPROBE_SYNC_STREAM] = "stream", [GPUPROBE_SYNC_EVENT] = "event",
	[GPUPROBE_SYNC_STREAM_WAIT] = "stream_wait",
};

const char *attr_type_name(uint16_t type)
{
	switch (type) {
	case GPUPROBE_APP_KERNEL:	return "kernel";
	case GPUPROBE_APP_MEMCPY:	return "memcpy";
	case GPUPROBE_APP_MEMSET:	return "memset";
	case GPUPROBE_APP_SYNC:		return "sync";
	case GPUPROBE_APP_API:		return "api";
	case GPUPROBE_APP_NOTE:		return "note";
	case GPUPROBE_APP_DEVICE:	return "device";
	case GPUPROBE_APP_CLOCK:	return "clock";
	case GPUPROBE_APP_OVERHEAD:	return "overhead";
	default:			return "unknown";
	}
}

const char *attr_api_name(uint8_t api)
{
	return api == GPUPROBE_APP_CUDA ? "cuda" : api == GPUPROBE_APP_OPENCL ? "opencl" : "unknown";
}

const char *attr_copy_name(uint32_t kind)
{
	static const char *const names[] = { "unknown", "htod", "dtoh", "dtod", "htoh", "ptop" };

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "unknown";
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ---- text ---- */

static void text_counts(FILE *out, const struct attr_counts *c)
{
	fprintf(out, "%" PRIu64 " irq, %" PRIu64 " map (%" PRIu64 " B), %" PRIu64 " iommu map, %" PRIu64 " bounce, %" PRIu64 " wake",
		c->irqs, c->dma_maps, c->dma_map_bytes, c->iommu_maps, c->swiotlb, c->wakeups);
}

/* A damaged string table: why names may stay short; "" when it is whole. */
static const char *names_note(const struct attribution *at, char *buf, size_t size)
{
	buf[0] = '\0';
	if (at->strings.malformed)
		snprintf(buf, size, "%" PRIu64 " string records (whole kernel names) are malformed "
			 "(length, NUL or hash wrong) and were not used: the kernels they name keep "
			 "their short form (46 characters~hash)", at->strings.malformed);
	return buf;
}

static void text_summary(FILE *out, const struct attribution *at)
{
	const struct attr_summary *s = &at->sum;
	char a[32], b[32], c[32], note[200];

	fprintf(out, "\napplication: %" PRIu64 " events (%zu kernels/copies/memsets, %" PRIu64 " API calls, %" PRIu64 " synchronisation records); %" PRIu64 " kernel events in their span%s\n",
		at->app_events, at->nops, at->api_events, at->sync_events, at->kernel_events,
		at->kernel_events_dropped ? " (some dropped: table full)" : "");
	if (at->sync_events) {
		fprintf(out, "  synchronisation records:");
		for (unsigned int k = 0; k < ATTR_SYNC_KINDS; k++)
			if (at->syncs_by_kind[k])
				fprintf(out, " %s %" PRIu64 " (%s)", sync_kind_names[k], at->syncs_by_kind[k],
					format_ns(a, FORMAT_NS_LEN, at->sync_ns_by_kind[k]));
		if (at->syncs_outside_call)
			fprintf(out, "; %" PRIu64 " outside their API call, not taken as waits",
				at->syncs_outside_call);
		fputc('\n', out);
	}
	for (unsigned int i = 0; i < at->nnotes; i++)
		fprintf(out, "  note: %s\n", at->notes[i]);
	if (at->strings.malformed)
		fprintf(out, "  warning: %s\n", names_note(at, note, sizeof(note)));
	fprintf(out, "  device busy %s; waiting from device end to call return %s in %" PRIu64 " waits\n",
		format_ns(a, FORMAT_NS_LEN, s->device_ns), format_ns(b, FORMAT_NS_LEN, s->return_wait_ns), s->waits);
	fprintf(out, "  interrupt path: %s in %" PRIu64 " waits that saw a target interrupt = %.2f%% of wall time (%s)\n",
		format_ns(a, FORMAT_NS_LEN, s->irq_wait_ns), s->irq_waits, share(s->irq_wait_ns, s->wall_ns),
		format_ns(c, FORMAT_NS_LEN, s->wall_ns));
	if (s->map_calls_timed)
		fprintf(out, "  mapping: DMA map/unmap calls %s (%.2f%% of wall)", format_ns(a, FORMAT_NS_LEN, s->map_call_ns),
			share(s->map_call_ns, s->wall_ns));
	else
		fprintf(out, "  mapping: DMA map/unmap call time not measured (tracefs dma: events are instants)");
	fprintf(out, "; host calls that mapped: %" PRIu64 ", %s (%.2f%% of wall)\n",
		s->api_calls_with_maps, format_ns(b, FORMAT_NS_LEN, s->api_ns_with_maps),
		share(s->api_ns_with_maps, s->wall_ns));
	if (at->unattributed.iommu_maps || at->unattributed.iommu_unmaps)
		fprintf(out, "  unattributed: %" PRIu64 " IOMMU maps (%" PRIu64 " B) and %" PRIu64 " unmaps name no device (tracefs iommu: events): charged to no operation\n",
			at->unattributed.iommu_maps, at->unattributed.iommu_map_bytes,
			at->unattributed.iommu_unmaps);
	for (size_t i = 0; i < at->ndevices; i++) {
		const struct attr_device *d = &at->devices[i];
		char bdf[BDF_STRLEN];

		if (d->pci_known)
			bdf_format(d->bdf, bdf);
		fprintf(out, "  device: %s %u of pid %u (%s) is PCI %s\n", attr_api_name(d->api), d->device,
			d->pid, d->name, d->pci_known ? bdf : "not known (the platform does not say)");
	}
	if (at->ops_unmapped)
		fprintf(out, "  %" PRIu64 " ops ran on a GPU whose PCI function is not known while the trace holds %u GPUs: charged no interrupt or DMA\n",
			at->ops_unmapped, at->kernel_bdfs);
	if (at->clock_points)
		fprintf(out, "  clock: %" PRIu64 " device-clock calibrations; GPU->host error bound up to %s: windows widened by it, %" PRIu64 " kernel events (%" PRIu64 " interrupts) within it of a GPU start or end counted as ambiguous\n",
			at->clock_points, format_ns(a, FORMAT_NS_LEN, at->clock_error_max_ns),
			s->margin_events, s->margin_irqs);
	if (at->ops_without_clock_bound)
		fprintf(out, "  clock: no error bound measured for %" PRIu64 " ops' device times: their windows are not widened\n",
			at->ops_without_clock_bound);
}

static bool counts_zero(const struct attr_counts *c)
{
	return !(c->irqs | c->dma_maps | c->dma_unmaps | c->iommu_maps | c->iommu_unmaps |
		 c->swiotlb | c->wakeups);
}

/*
 * The name as people read it: whole (a shortened one from the trace's
 * string table) and demangled; *to_free is what to free after use.
 */
static const char *whole_name(const struct attribution *at, const char *name, char **to_free)
{
	const char *w = strtab_whole(&at->strings, name, GPUPROBE_APPF_TRUNCATED_NAME);

	*to_free = demangle_whole(w);
	return *to_free ? *to_free : w;
}

static void text_names(FILE *out, const struct attribution *at, bool verbose)
{
	size_t folded = 0;
	char a[32], b[32];

	fprintf(out, "  per name (largest device time first):\n");
	for (size_t i = 0; i < at->nnames; i++) {
		const struct attr_name *n = &at->names[i];
		char shown[DEMANGLED_LEN], *whole;

		/* abbreviated here, whole in --json and Perfetto */
		name_abbreviate(whole_name(at, n->name, &whole), shown, TEXT_NAME_WIDTH);
		free(whole);
		fprintf(out, "    %-6s %-6s %-40s x%-6" PRIu64 " device %s, %" PRIu64 " B, return wait %s\n",
			attr_api_name(n->api), attr_type_name(n->type), shown, n->count,
			format_ns(a, FORMAT_NS_LEN, n->device_ns), n->bytes, format_ns(b, FORMAT_NS_LEN, n->return_ns));
		for (int p = 0; p < ATTR_PHASES; p++) {
			if (!verbose && counts_zero(&n->phase[p])) {
				folded++;
				continue;
			}
			fprintf(out, "        %-6s ", phase_names[p]);
			text_counts(out, &n->phase[p]);
			fputc('\n', out);
		}
	}
	if (folded)
		fprintf(out, "        (%zu phase rows of no interrupt, map, bounce or wake-up not shown; -v shows them)\n",
			folded);
}

static void text_ops(FILE *out, const struct attribution *at)
{
	size_t n = at->nops < TEXT_OPS ? at->nops : TEXT_OPS;
	char a[32], b[32];

	fprintf(out, "  first %zu of %zu in device order (run phase; return: after device end):\n", n, at->nops);
	for (size_t i = 0; i < n; i++) {
		const struct attr_op *op = &at->ops[i];
		const struct attr_op_detail *d = op->detail;	/* TEXT_OPS <= ATTR_OPS_DETAILED */
		char shown[DEMANGLED_LEN], *whole;

		if (op->return_ns)
			format_ns(b, FORMAT_NS_LEN, op->return_ns - op->ev.end_ns);
		else
			copy_string(b, sizeof(b), "(not waited)");
		name_abbreviate(whole_name(at, op->ev.name, &whole), shown, 30);
		free(whole);
		fprintf(out, "    %-6s %-30.30s %s%s %" PRIu64 " B dur %s ret +%s: ",
			attr_type_name(op->ev.type), shown,
			op->ev.type == GPUPROBE_APP_MEMCPY ? attr_copy_name(op->ev.kind) : "",
			op->ev.flags & GPUPROBE_APPF_PINNED ? " pinned" :
			op->ev.flags & GPUPROBE_APPF_PAGEABLE ? " pageable" : "",
			(uint64_t)op->ev.bytes, format_ns(a, FORMAT_NS_LEN, op->ev.end_ns - op->ev.start_ns), b);
		text_counts(out, &d->phase[ATTR_RUN]);
		fprintf(out, " | ret %" PRIu64 " irq %" PRIu64 " wake", d->phase[ATTR_RETURN].irqs,
			d->phase[ATTR_RETURN].wakeups);
		if (d->margin.irqs + d->margin.dma_maps + d->margin.iommu_maps + d->margin.swiotlb)
			fprintf(out, " | ambiguous %" PRIu64 " irq %" PRIu64 " map",
				d->margin.irqs, d->margin.dma_maps + d->margin.iommu_maps);
		fputc('\n', out);
	}
}

void attribute_print_text(FILE *out, const struct attribution *at, bool verbose)
{
	if (at->limit_note[0])
		fprintf(out, "\nattribution is partial: %s\n", at->limit_note);
	if (at->app_events_dropped)
		fprintf(out, "\n%" PRIu64 " application events past the limit of %u were not attributed\n",
			at->app_events_dropped, ATTR_MAX_APP_EVENTS);
	text_summary(out, at);
	if (!at->nops)
		return;
	text_names(out, at, verbose);
	text_ops(out, at);
}

/* ---- JSON ---- */

static void json_counts(struct json *j, const char *key, const struct attr_counts *c)
{
	json_key(j, key);
	json_object_begin(j);
	json_kv_u64(j, "irqs", c->irqs);
	json_kv_u64(j, "irq_handler_ns", c->irq_ns);
	json_kv_u64(j, "dma_maps", c->dma_maps);
	json_kv_u64(j, "dma_map_bytes", c->dma_map_bytes);
	json_kv_u64(j, "dma_unmaps", c->dma_unmaps);
	json_key(j, "dma_ns");
	if (c->dma_timed || !(c->dma_maps + c->dma_unmaps))
		json_u64(j, c->dma_ns);
	else
		json_put_null(j);	/* calls without durations: not measured */
	json_kv_u64(j, "iommu_maps", c->iommu_maps);
	json_kv_u64(j, "iommu_map_bytes", c->iommu_map_bytes);
	json_kv_u64(j, "iommu_unmaps", c->iommu_unmaps);
	json_kv_u64(j, "swiotlb_bounces", c->swiotlb);
	json_kv_u64(j, "swiotlb_bytes", c->swiotlb_bytes);
	json_kv_u64(j, "wakeups", c->wakeups);
	json_object_end(j);
}

static void json_phases(struct json *j, const struct attr_counts *phase)
{
	json_key(j, "phases");
	json_object_begin(j);
	for (int p = 0; p < ATTR_PHASES; p++)
		json_counts(j, phase_names[p], &phase[p]);
	json_object_end(j);
}

static void json_summary(struct json *j, const struct attribution *at)
{
	const struct attr_summary *s = &at->sum;

	json_key(j, "summary");
	json_object_begin(j);
	json_kv_u64(j, "wall_ns", s->wall_ns);
	json_kv_u64(j, "device_ns", s->device_ns);
	json_kv_u64(j, "waits", s->waits);
	json_kv_u64(j, "return_wait_ns", s->return_wait_ns);
	json_kv_u64(j, "irq_waits", s->irq_waits);
	json_kv_u64(j, "irq_wait_ns", s->irq_wait_ns);
	json_kv_double(j, "irq_wait_share", s->wall_ns ? (double)s->irq_wait_ns / s->wall_ns : 0);
	json_key(j, "map_call_ns");
	if (s->map_calls_timed)
		json_u64(j, s->map_call_ns);
	else
		json_put_null(j);	/* not measured */
	json_key(j, "map_call_share");
	if (s->map_calls_timed)
		json_double(j, s->wall_ns ? (double)s->map_call_ns / s->wall_ns : 0);
	else
		json_put_null(j);
	json_kv_u64(j, "api_calls_with_maps", s->api_calls_with_maps);
	json_kv_u64(j, "api_ns_with_maps", s->api_ns_with_maps);
	json_kv_double(j, "api_with_maps_share",
		       s->wall_ns ? (double)s->api_ns_with_maps / s->wall_ns : 0);
	json_kv_u64(j, "margin_events", s->margin_events);
	json_kv_u64(j, "margin_irqs", s->margin_irqs);
	json_object_end(j);
}

/*
 * "name" as people read it (C++ kernel names demangled, as Nsight Systems
 * shows them), "mangled" the name CUPTI reported when it was mangled, else null.
 */
static void json_name(struct json *j, const struct attribution *at, const char *name)
{
	const char *w = strtab_whole(&at->strings, name, GPUPROBE_APPF_TRUNCATED_NAME);
	char *whole = demangle_whole(w);

	json_kv_string(j, "name", whole ? whole : w);
	free(whole);
	json_key(j, "mangled");
	if (name_is_mangled(w))
		json_put_string(j, w);
	else
		json_put_null(j);
}

static void json_op(struct json *j, const struct attribution *at, const struct attr_op *op)
{
	json_object_begin(j);
	json_kv_string(j, "api", attr_api_name(op->ev.api));
	json_kv_string(j, "type", attr_type_name(op->ev.type));
	json_name(j, at, op->ev.name);
	json_kv_string(j, "direction", op->ev.type == GPUPROBE_APP_MEMCPY ?
		       attr_copy_name(op->ev.kind) : "");
	json_kv_bool(j, "pinned", op->ev.flags & GPUPROBE_APPF_PINNED);
	json_kv_bool(j, "pageable", op->ev.flags & GPUPROBE_APPF_PAGEABLE);
	json_kv_u64(j, "pid", op->ev.pid);
	json_kv_u64(j, "device", op->ev.device);
	json_kv_u64(j, "stream", op->ev.stream);
	json_kv_u64(j, "correlation", op->ev.correlation);
	json_kv_u64(j, "bytes", op->ev.bytes);
	json_kv_u64_or_null(j, "issue_ns", op->issue_ns);
	json_kv_u64(j, "start_ns", op->ev.start_ns);
	json_kv_u64(j, "end_ns", op->ev.end_ns);
	json_kv_u64_or_null(j, "return_ns", op->return_ns);
	json_kv_u64_or_null(j, "issue_tid", op->issue_tid);
	json_kv_u64_or_null(j, "wait_tid", op->wait_tid);
	json_key(j, "bdf");
	if (op->bdf != GPUPROBE_BDF_NONE) {
		char bdf[BDF_STRLEN];

		bdf_format(op->bdf, bdf);
		json_put_string(j, bdf);
	} else {
		json_put_null(j);
	}
	json_key(j, "clock_error_ns");
	if (op->clock_bound_known)
		json_u64(j, op->clock_error_ns);
	else
		json_put_null(j);	/* not measured */
	json_phases(j, op->detail->phase);
	json_counts(j, "ambiguous", &op->detail->margin);
	json_object_end(j);
}

void attribute_print_json(struct json *j, const struct attribution *at)
{
	size_t nops = at->nops < JSON_OPS ? at->nops : JSON_OPS;
	char note[200];

	json_key(j, "app");
	json_object_begin(j);
	json_kv_u64(j, "events", at->app_events);
	json_kv_u64(j, "api_events", at->api_events);
	json_kv_u64(j, "sync_events", at->sync_events);
	json_kv_u64(j, "syncs_outside_call", at->syncs_outside_call);
	json_key(j, "sync_by_kind");
	json_object_begin(j);
	for (unsigned int k = 0; k < ATTR_SYNC_KINDS; k++) {
		json_key(j, sync_kind_names[k]);
		json_object_begin(j);
		json_kv_u64(j, "records", at->syncs_by_kind[k]);
		json_kv_u64(j, "ns", at->sync_ns_by_kind[k]);
		json_object_end(j);
	}
	json_object_end(j);
	json_kv_u64(j, "kernel_events", at->kernel_events);
	json_kv_u64(j, "kernel_events_dropped", at->kernel_events_dropped);
	json_kv_u64(j, "kernel_events_limit", ATTR_MAX_KERNEL_EVENTS);
	json_kv_u64(j, "app_events_dropped", at->app_events_dropped);
	json_kv_string(j, "limit_note", at->limit_note);
	json_kv_u64(j, "gpus_in_kernel_events", at->kernel_bdfs);
	json_kv_u64(j, "ops_unmapped", at->ops_unmapped);
	json_kv_u64(j, "clock_points", at->clock_points);
	json_key(j, "clock_error_max_ns");
	if (at->clock_points)
		json_u64(j, at->clock_error_max_ns);
	else
		json_put_null(j);
	json_kv_u64(j, "ops_without_clock_bound", at->ops_without_clock_bound);
	json_key(j, "devices");
	json_array_begin(j);
	for (size_t i = 0; i < at->ndevices; i++) {
		const struct attr_device *d = &at->devices[i];
		char bdf[BDF_STRLEN];

		json_object_begin(j);
		json_kv_string(j, "api", attr_api_name(d->api));
		json_kv_u64(j, "pid", d->pid);
		json_kv_u64(j, "device", d->device);
		json_kv_string(j, "name", d->name);
		json_key(j, "bdf");
		if (d->pci_known) {
			bdf_format(d->bdf, bdf);
			json_put_string(j, bdf);
		} else {
			json_put_null(j);
		}
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "notes");
	json_array_begin(j);
	for (unsigned int i = 0; i < at->nnotes; i++)
		json_put_string(j, at->notes[i]);
	json_array_end(j);
	json_kv_u64(j, "string_records_malformed", at->strings.malformed);
	json_kv_string(j, "names_note", names_note(at, note, sizeof(note)));
	json_summary(j, at);
	json_key(j, "unattributed");
	json_object_begin(j);
	json_kv_u64(j, "iommu_maps", at->unattributed.iommu_maps);
	json_kv_u64(j, "iommu_map_bytes", at->unattributed.iommu_map_bytes);
	json_kv_u64(j, "iommu_unmaps", at->unattributed.iommu_unmaps);
	json_object_end(j);
	json_key(j, "names");
	json_array_begin(j);
	for (size_t i = 0; i < at->nnames; i++) {
		const struct attr_name *n = &at->names[i];

		json_object_begin(j);
		json_kv_string(j, "api", attr_api_name(n->api));
		json_kv_string(j, "type", attr_type_name(n->type));
		json_name(j, at, n->name);
		json_kv_u64(j, "count", n->count);
		json_kv_u64(j, "device_ns", n->device_ns);
		json_kv_u64(j, "bytes", n->bytes);
		json_kv_u64(j, "return_wait_ns", n->return_ns);	/* summed: 0 when none waited */
		json_phases(j, n->phase);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "ops");
	json_array_begin(j);
	for (size_t i = 0; i < nops; i++)
		json_op(j, at, &at->ops[i]);
	json_array_end(j);
	json_kv_u64(j, "ops_omitted", at->nops - nops);
	json_object_end(j);
}
