// SPDX-License-Identifier: GPL-2.0
/*
 * `report`'s IOMMU parts (analysis/iommu_parts.c): per target, the answer
 * first -- the map/unmap time, its share of the wall time, and how it
 * splits -- then each part's counts and own-time distribution; as text and
 * as the "iommu_parts" key of the JSON document (Documentation/report-json.md).
 */
#include <inttypes.h>
#include <string.h>

#include "agg.h"
#include "format.h"
#include "json.h"
#include "report.h"
#include "util.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_part_row(FILE *out, unsigned int k, const struct parts_stat *s)
{
	char p50[FORMAT_NS_LEN], p99[FORMAT_NS_LEN], max[FORMAT_NS_LEN], sum[FORMAT_NS_LEN];

	if (!s->count || !s->self_ns)
		return;
	fprintf(out, "    %-14s %8" PRIu64 " %8" PRIu64 " %6" PRIu64 " %9s %9s %9s %10s\n",
		iommu_part_name(k), s->count, s->in_call, s->slow,
		format_ns(p50, sizeof(p50), (double)hist_percentile(s->self_ns, 50)),
		format_ns(p99, sizeof(p99), (double)hist_percentile(s->self_ns, 99)),
		format_ns(max, sizeof(max), (double)s->self_ns->max),
		format_ns(sum, sizeof(sum), (double)s->self_ns->sum));
}

static void print_parts_target(FILE *out, const struct parts_target *t, uint64_t wall_ns)
{
	uint64_t total = parts_call_ns(t);
	char name[BDF_STRLEN], buf[FORMAT_NS_LEN], inv[FORMAT_NS_LEN];

	bdf_format(t->bdf, name);
	fprintf(out, "  %s: map/unmap time %s (%.2f %% of the wall time)", name,
		format_ns(buf, sizeof(buf), (double)total), pct(total, wall_ns));
	for (unsigned int g = 0; g < PARTS_GROUPS; g++)
		fprintf(out, "%s %s %.1f %%", g ? "," : ":", parts_group_name(g),
			pct(parts_group_ns(t, g), total));
	fprintf(out, "\n    %" PRIu64 " maps (%" PRIu64 " with parts), %" PRIu64
		" unmaps (%" PRIu64 " with parts), timed\n",
		t->calls[PARTS_MAP], t->calls_with_parts[PARTS_MAP],
		t->calls[PARTS_UNMAP], t->calls_with_parts[PARTS_UNMAP]);
	if (t->calls[PARTS_UNMAP])
		fprintf(out, "    per unmap: %s, of it invalidation %s\n",
			format_ns(buf, sizeof(buf),
				  (double)t->call_ns[PARTS_UNMAP] / (double)t->calls[PARTS_UNMAP]),
			format_ns(inv, sizeof(inv),
				  (double)t->group_ns[PARTS_UNMAP][PARTS_G_INVALIDATE] /
				  (double)t->calls[PARTS_UNMAP]));
	if (t->unmaps_deferred)
		fprintf(out, "    %" PRIu64 " unmaps deferred their invalidation (lazy mode's flush queue: "
			"page tables cleared, no invalidation of their own)\n", t->unmaps_deferred);
	if (t->unmaps_uninvalidated)
		fprintf(out, "    %" PRIu64 " unmaps cleared page tables with no invalidation seen, in a domain "
			"not known to be lazy (a missed probe, or a mode not recorded): their invalidation "
			"is not in the split\n", t->unmaps_uninvalidated);
	if (t->over)
		fprintf(out, "    WRONG: %" PRIu64 " calls whose parts add up to more than the call\n",
			t->over);
	if (t->orphans)
		fprintf(out, "    %" PRIu64 " parts name a DMA call not in the trace (lost or untimed): not in the split\n",
			t->orphans);
	if (t->outside)
		fprintf(out, "    outside any call (flush-queue timer): %" PRIu64 " parts, %s\n",
			t->outside, format_ns(buf, sizeof(buf), (double)t->outside_ns));
	fprintf(out, "    %-14s %8s %8s %6s %9s %9s %9s %10s\n", "part (own time)", "n",
		"in calls", "slow", "p50", "p99", "max", "total");
	for (unsigned int k = 1; k < PARTS_N; k++)
		print_part_row(out, k, &t->part[k]);
}

static void print_modes(FILE *out, const struct iommu_parts *p)
{
	char name[BDF_STRLEN];

	if (!p->nmodes && !p->modes_dropped)
		return;
	fprintf(out, "\nIOMMU mode at the start (sysfs):\n");
	for (unsigned int i = 0; i < p->nmodes; i++) {
		bdf_format(p->modes[i].bdf, name);
		fprintf(out, "  %s:\n", name);
		iommu_mode_print(out, "    ", &p->modes[i]);
	}
	if (p->modes_dropped)
		fprintf(out, "  warning: %" PRIu64 " more IOMMU mode records not shown: this tool keeps the first %u\n",
			p->modes_dropped, PARTS_MAX_TARGETS);
}

void iommu_parts_print_text(FILE *out, const struct agg *a)
{
	const struct iommu_parts *p = a->parts;
	uint64_t wall_ns = (uint64_t)(agg_duration_s(a) * 1e9);

	if (!p)
		return;
	print_modes(out, p);
	if (!p->records)
		return;
	fprintf(out, "\nIOMMU parts (Documentation/iommu.md): %" PRIu64 " records\n", p->records);
	for (unsigned int i = 0; i < p->ntargets; i++)
		print_parts_target(out, &p->targets[i], wall_ns);
	if (p->dropped)
		fprintf(out, "  %" PRIu64 " records beyond this tool's table limits were not counted\n",
			p->dropped);
}

static void json_parts_target(struct json *j, const struct parts_target *t, uint64_t wall_ns)
{
	static const char *const keys[PARTS_GROUPS] = {
		"invalidation", "page_tables", "iova", "deferral", "other",
	};
	uint64_t total = parts_call_ns(t);
	char name[BDF_STRLEN];

	bdf_format(t->bdf, name);
	json_object_begin(j);
	json_kv_string(j, "bdf", name);
	json_kv_u64(j, "map_unmap_ns", total);
	json_kv_double(j, "percent_of_wall", pct(total, wall_ns));
	json_key(j, "percent");
	json_object_begin(j);
	for (unsigned int g = 0; g < PARTS_GROUPS; g++)
		json_kv_double(j, keys[g], pct(parts_group_ns(t, g), total));
	json_object_end(j);
	json_key(j, "ns");
	json_object_begin(j);
	for (unsigned int g = 0; g < PARTS_GROUPS; g++)
		json_kv_u64(j, keys[g], parts_group_ns(t, g));
	json_object_end(j);
	json_kv_u64(j, "maps", t->calls[PARTS_MAP]);
	json_kv_u64(j, "unmaps", t->calls[PARTS_UNMAP]);
	json_kv_u64(j, "map_ns", t->call_ns[PARTS_MAP]);
	json_kv_u64(j, "unmap_ns", t->call_ns[PARTS_UNMAP]);
	json_kv_u64(j, "unmap_invalidation_ns", t->group_ns[PARTS_UNMAP][PARTS_G_INVALIDATE]);
	json_kv_u64(j, "maps_with_parts", t->calls_with_parts[PARTS_MAP]);
	json_kv_u64(j, "unmaps_with_parts", t->calls_with_parts[PARTS_UNMAP]);
	json_kv_u64(j, "calls_over", t->over);
	json_kv_u64(j, "unmaps_deferred", t->unmaps_deferred);
	json_kv_u64(j, "unmaps_uninvalidated", t->unmaps_uninvalidated);
	json_kv_u64(j, "orphans", t->orphans);
	json_kv_u64(j, "outside", t->outside);
	json_kv_u64(j, "outside_ns", t->outside_ns);
	json_key(j, "parts");
	json_array_begin(j);
	for (unsigned int k = 1; k < PARTS_N; k++) {
		const struct parts_stat *s = &t->part[k];

		if (!s->count || !s->self_ns)
			continue;
		json_object_begin(j);
		json_kv_string(j, "part", iommu_part_name(k));
		json_kv_u64(j, "count", s->count);
		json_kv_u64(j, "in_call", s->in_call);
		json_kv_u64(j, "slow", s->slow);
		json_kv_u64(j, "arg_sum", s->arg_sum);
		report_json_hist(j, "self_ns", s->self_ns);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void json_modes(struct json *j, const struct iommu_parts *p)
{
	char name[BDF_STRLEN], buf[20];

	json_key(j, "iommu_mode");
	json_array_begin(j);
	for (unsigned int i = 0; p && i < p->nmodes; i++) {
		const struct tracefile_rec_iommu_mode *m = &p->modes[i];

		bdf_format(m->bdf, name);
		json_object_begin(j);
		json_kv_string(j, "bdf", name);
		json_kv_bool(j, "present", m->flags & IOMMU_MODE_PRESENT);
		memcpy(buf, m->vendor, sizeof(m->vendor));
		buf[sizeof(m->vendor)] = '\0';
		json_kv_string(j, "vendor", buf);
		memcpy(buf, m->domain_type, sizeof(m->domain_type));
		buf[sizeof(m->domain_type)] = '\0';
		json_kv_string(j, "domain_type", buf);
		json_kv_string(j, "mode", iommu_mode_strictness(m));
		if (m->flags & IOMMU_MODE_CM_KNOWN) {
			json_kv_bool(j, "caching_mode", m->flags & IOMMU_MODE_CM);
		} else {
			json_key(j, "caching_mode");
			json_put_null(j);
		}
		json_kv_u64(j, "page_sizes", m->pgsizes);
		json_kv_bool(j, "swiotlb", m->flags & IOMMU_MODE_SWIOTLB);
		json_kv_bool(j, "swiotlb_force", m->flags & IOMMU_MODE_SWIOTLB_FORCE);
		json_kv_bool(j, "parts_left_out", m->flags & IOMMU_MODE_PARTS_LEFT_OUT);
		json_object_end(j);
	}
	json_array_end(j);
	json_kv_u64(j, "iommu_mode_dropped", p ? p->modes_dropped : 0);
}

void iommu_parts_print_json(struct json *j, const struct agg *a)
{
	const struct iommu_parts *p = a->parts;
	uint64_t wall_ns = (uint64_t)(agg_duration_s(a) * 1e9);

	json_modes(j, p);
	json_key(j, "iommu_parts");
	if (!p || !p->records) {
		json_put_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_u64(j, "records", p->records);
	json_kv_u64(j, "dropped", p->dropped);
	json_kv_u64(j, "wall_ns", wall_ns);
	json_key(j, "targets");
	json_array_begin(j);
	for (unsigned int i = 0; i < p->ntargets; i++)
		json_parts_target(j, &p->targets[i], wall_ns);
	json_array_end(j);
	json_object_end(j);
}
