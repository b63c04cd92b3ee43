// SPDX-License-Identifier: GPL-2.0
/*
 * `compare BASE.trace RUN.trace`: two traces of the same workload (strict
 * and lazy IOMMU mode, say), per target whose IOMMU parts both hold: what
 * an unmap and a map cost in each, what RUN saved per unmap and in all,
 * the invalidations each paid, and what RUN deferred to the flush queue's
 * timer (Documentation/iommu.md).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "cmds.h"
#include "format.h"
#include "json.h"
#include "util.h"

bool compare_is_trace(const char *path)
{
	char magic[sizeof(TRACEFILE_MAGIC) - 1];
	FILE *f = fopen(path, "rb");
	bool yes;

	if (!f)
		return false;
	yes = fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
	      !memcmp(magic, TRACEFILE_MAGIC, sizeof(magic));
	fclose(f);
	return yes;
}

struct loaded {
	struct trace_info info;
	struct agg *a;
};

static int load(const char *path, struct loaded *l)
{
	const struct gpuprobe_rec_hdr *rec;
	struct trace_reader r;
	int n;

	if (trace_reader_open(&r, path, &l->info)) {
		errorf("%s", r.error);
		return -1;
	}
	l->a = agg_new(&l->info);
	if (!l->a) {
		trace_reader_close(&r);
		errorf("out of memory");
		return -1;
	}
	while ((n = trace_reader_next(&r, &rec)) > 0)
		agg_add(l->a, rec);
	if (n < 0)
		errorf("%s", r.error);
	else
		agg_finish(l->a, &r);
	trace_reader_close(&r);
	return n < 0 ? -1 : 0;
}

/* The field is not NUL-terminated when full: copied into the caller's buffer. */
static const char *mode_of(const struct iommu_parts *p, uint32_t bdf, char buf[17])
{
	for (unsigned int i = 0; i < p->nmodes; i++)
		if (p->modes[i].bdf == bdf) {
			memcpy(buf, p->modes[i].domain_type, 16);
			buf[16] = '\0';
			return buf[0] ? buf : "unknown";
		}
	return "not recorded";
}

static double per(uint64_t ns, uint64_t n)
{
	return n ? (double)ns / (double)n : 0.0;
}

/* invalidations a target paid: inside its calls and on its domain outside them */
static uint64_t invalidations(const struct parts_target *t)
{
	return t->part[GPUPROBE_PART_INVALIDATE].count;
}

static void compare_target(FILE *out, struct json *j, const struct parts_target *b,
			   const struct parts_target *r, const struct iommu_parts *bp,
			   const struct iommu_parts *rp)
{
	double bu = per(b->call_ns[PARTS_UNMAP], b->calls[PARTS_UNMAP]);
	double ru = per(r->call_ns[PARTS_UNMAP], r->calls[PARTS_UNMAP]);
	double bm = per(b->call_ns[PARTS_MAP], b->calls[PARTS_MAP]);
	double rm = per(r->call_ns[PARTS_MAP], r->calls[PARTS_MAP]);
	double saved = (bu - ru) * (double)r->calls[PARTS_UNMAP] - (double)r->outside_ns;
	char name[BDF_STRLEN], s1[FORMAT_NS_LEN], s2[FORMAT_NS_LEN], s3[FORMAT_NS_LEN],
	     s4[FORMAT_NS_LEN], s5[FORMAT_NS_LEN], bt[17], rt[17];

	bdf_format(b->bdf, name);
	if (j) {
		json_object_begin(j);
		json_kv_string(j, "bdf", name);
		json_kv_string(j, "base_domain_type", mode_of(bp, b->bdf, bt));
		json_kv_string(j, "run_domain_type", mode_of(rp, r->bdf, rt));
		json_kv_double(j, "base_unmap_ns", bu);
		json_kv_double(j, "run_unmap_ns", ru);
		json_kv_double(j, "saved_per_unmap_ns", bu - ru);
		json_kv_double(j, "saved_ns", saved);
		json_kv_double(j, "base_map_ns", bm);
		json_kv_double(j, "run_map_ns", rm);
		json_kv_u64(j, "base_unmaps", b->calls[PARTS_UNMAP]);
		json_kv_u64(j, "run_unmaps", r->calls[PARTS_UNMAP]);
		json_kv_u64(j, "base_invalidations", invalidations(b));
		json_kv_u64(j, "run_invalidations", invalidations(r));
		json_kv_double(j, "base_unmap_invalidation_ns",
			       per(b->group_ns[PARTS_UNMAP][PARTS_G_INVALIDATE], b->calls[PARTS_UNMAP]));
		json_kv_double(j, "run_unmap_invalidation_ns",
			       per(r->group_ns[PARTS_UNMAP][PARTS_G_INVALIDATE], r->calls[PARTS_UNMAP]));
		json_kv_u64(j, "run_outside_ns", r->outside_ns);
		json_kv_u64(j, "run_fq_timer_flushes", r->part[GPUPROBE_PART_FQ_TIMER].count);
		json_object_end(j);
		return;
	}
	fprintf(out, "  %s (BASE domain %s, RUN domain %s):\n", name, mode_of(bp, b->bdf, bt),
		mode_of(rp, r->bdf, rt));
	fprintf(out, "    per unmap %s -> %s: RUN saved %s per unmap, %s over its %" PRIu64
		" unmaps less the %s its flush-queue timer spent\n",
		format_ns(s1, sizeof(s1), bu), format_ns(s2, sizeof(s2), ru),
		format_ns(s3, sizeof(s3), bu - ru), format_ns(s4, sizeof(s4), saved),
		r->calls[PARTS_UNMAP], format_ns(s5, sizeof(s5), (double)r->outside_ns));
	fprintf(out, "    invalidation per unmap %s -> %s; invalidations %" PRIu64 " for %" PRIu64
		" unmaps -> %" PRIu64 " for %" PRIu64 "\n",
		format_ns(s1, sizeof(s1), per(b->group_ns[PARTS_UNMAP][PARTS_G_INVALIDATE],
					     b->calls[PARTS_UNMAP])),
		format_ns(s2, sizeof(s2), per(r->group_ns[PARTS_UNMAP][PARTS_G_INVALIDATE],
					     r->calls[PARTS_UNMAP])),
		invalidations(b), b->calls[PARTS_UNMAP], invalidations(r), r->calls[PARTS_UNMAP]);
	fprintf(out, "    per map %s -> %s\n", format_ns(s1, sizeof(s1), bm), format_ns(s2, sizeof(s2), rm));
	if (r->part[GPUPROBE_PART_FQ_TIMER].count)
		fprintf(out, "    RUN's cost: %" PRIu64 " flush-queue timer flushes (%s outside the calls); an unmapped IOVA stays reachable through the IOTLB until the next one (the flush queue's timeout, 10 ms in Linux)\n",
			r->part[GPUPROBE_PART_FQ_TIMER].count,
			format_ns(s1, sizeof(s1), (double)r->outside_ns));
}

static const struct parts_target *find(const struct iommu_parts *p, uint32_t bdf)
{
	for (unsigned int i = 0; i < p->ntargets; i++)
		if (p->targets[i].bdf == bdf)
			return &p->targets[i];
	return NULL;
}

int compare_traces(const char *base_path, const char *run_path, bool json)
{
	struct loaded *b = calloc(1, sizeof(*b)), *r = calloc(1, sizeof(*r));
	unsigned int common = 0;
	struct json j;
	int ret = 1;

	if (!b || !r) {
		errorf("out of memory");
		goto out;
	}
	if (load(base_path, b) || load(run_path, r))
		goto out;
	for (unsigned int i = 0; i < b->a->parts->ntargets; i++)
		common += find(r->a->parts, b->a->parts->targets[i].bdf) != NULL;
	if (!common) {
		errorf("%s and %s have no target with IOMMU parts in common: nothing to compare "
		       "(traces of the module source, with IOMMU events)", base_path, run_path);
		goto out;
	}
	if (json) {
		json_init(&j, stdout, true);
		json_object_begin(&j);
		json_kv_string(&j, "base", base_path);
		json_kv_string(&j, "run", run_path);
		json_key(&j, "iommu_parts");
		json_array_begin(&j);
	} else {
		printf("IOMMU parts, BASE %s against RUN %s:\n", base_path, run_path);
	}
	for (unsigned int i = 0; i < b->a->parts->ntargets; i++) {
		const struct parts_target *bt = &b->a->parts->targets[i];
		const struct parts_target *rt = find(r->a->parts, bt->bdf);

		if (rt)
			compare_target(stdout, json ? &j : NULL, bt, rt, b->a->parts, r->a->parts);
	}
	if (json) {
		json_array_end(&j);
		json_object_end(&j);
		putchar('\n');
	}
	ret = 0;
out:
	if (b)
		agg_free(b->a);
	if (r)
		agg_free(r->a);
	free(b);
	free(r);
	return ret;
}
