// SPDX-License-Identifier: GPL-2.0
/* The parts of the targets' IOMMU work, paired with their DMA calls; see iommu_parts.h. */
#include <stdlib.h>
#include <string.h>

#include "iommu_parts.h"

const char *iommu_part_name(unsigned int part)
{
	switch (part) {
	case GPUPROBE_PART_IOVA_ALLOC:		return "iova_alloc";
	case GPUPROBE_PART_IOVA_FREE:		return "iova_free";
	case GPUPROBE_PART_PGTABLE_MAP:		return "pgtable_map";
	case GPUPROBE_PART_PGTABLE_UNMAP:	return "pgtable_unmap";
	case GPUPROBE_PART_INVALIDATE:		return "invalidate";
	case GPUPROBE_PART_DEFER:		return "defer";
	case GPUPROBE_PART_FLUSH:		return "flush";
	case GPUPROBE_PART_FQ_TIMER:		return "fq_timer";
	default:				return "unknown";
	}
}

const char *parts_group_name(unsigned int group)
{
	static const char *const names[PARTS_GROUPS] = {
		"invalidation", "page tables", "IOVA", "deferral", "other",
	};

	return group < PARTS_GROUPS ? names[group] : "unknown";
}

/* A flush inside a call is invalidation work; the timer's own time is none of these. */
enum parts_group parts_group_of(unsigned int part)
{
	switch (part) {
	case GPUPROBE_PART_INVALIDATE:
	case GPUPROBE_PART_FLUSH:		return PARTS_G_INVALIDATE;
	case GPUPROBE_PART_PGTABLE_MAP:
	case GPUPROBE_PART_PGTABLE_UNMAP:	return PARTS_G_PGTABLE;
	case GPUPROBE_PART_IOVA_ALLOC:
	case GPUPROBE_PART_IOVA_FREE:		return PARTS_G_IOVA;
	case GPUPROBE_PART_DEFER:		return PARTS_G_DEFER;
	default:				return PARTS_G_OTHER;
	}
}

struct iommu_parts *iommu_parts_new(void)
{
	return calloc(1, sizeof(struct iommu_parts));
}

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	if (n >= PARTS_MAX_EVENTS)
		return -1;
	ncap = *cap ? *cap * 2 : 1024;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

static bool dma_is_map(uint16_t op)
{
	return op == GPUPROBE_DMA_MAP_PAGE || op == GPUPROBE_DMA_MAP_SG ||
	       op == GPUPROBE_DMA_ALLOC || op == GPUPROBE_DMA_MAP_RESOURCE;
}

void iommu_parts_add(struct iommu_parts *p, const struct gpuprobe_rec_hdr *rec)
{
	if (rec->type == TRACEFILE_REC_IOMMU_MODE) {
		if (rec->size < sizeof(p->modes[0]) || p->nmodes >= PARTS_MAX_TARGETS)
			p->modes_dropped++;
		else
			memcpy(&p->modes[p->nmodes++], rec, sizeof(p->modes[0]));
		return;
	}
	if (rec->type == GPUPROBE_EV_DMA && rec->size >= sizeof(struct gpuprobe_rec_dma)) {
		const struct gpuprobe_rec_dma *d = (const void *)rec;

		if (rec->flags & GPUPROBE_DMA_UNTIMED)
			return;
		if (grow((void **)&p->calls, &p->cap_calls, p->ncalls, sizeof(*p->calls))) {
			p->dropped++;
			return;
		}
		p->calls[p->ncalls++] = (struct parts_call){
			.ts = rec->ts_ns, .dur = d->duration_ns, .bdf = d->bdf,
			.dir = dma_is_map(d->op) ? PARTS_MAP : PARTS_UNMAP,
		};
	} else if (rec->type == GPUPROBE_EV_IOMMU_PART &&
		   rec->size >= sizeof(struct gpuprobe_rec_iommu_part)) {
		const struct gpuprobe_rec_iommu_part *r = (const void *)rec;

		p->records++;
		if (r->part >= PARTS_N ||
		    grow((void **)&p->parts, &p->cap_parts, p->nparts, sizeof(*p->parts))) {
			p->dropped++;
			return;
		}
		p->parts[p->nparts++] = (struct parts_rec){
			.call_ts = r->call_ts, .self = r->self_ns, .bdf = r->bdf,
			.arg = r->arg, .part = r->part, .depth = r->depth,
			.slow = !!(rec->flags & GPUPROBE_PART_SLOW),
		};
	}
}

static struct parts_target *find_target(struct iommu_parts *p, uint32_t bdf)
{
	for (unsigned int i = 0; i < p->ntargets; i++)
		if (p->targets[i].bdf == bdf)
			return &p->targets[i];
	return NULL;
}

static struct parts_target *target_of(struct iommu_parts *p, uint32_t bdf)
{
	if (find_target(p, bdf))
		return find_target(p, bdf);
	if (p->ntargets == PARTS_MAX_TARGETS)
		return NULL;
	p->targets[p->ntargets].bdf = bdf;
	return &p->targets[p->ntargets++];
}

static int call_cmp(const void *a, const void *b)
{
	const struct parts_call *x = a, *y = b;

	if (x->bdf != y->bdf)
		return x->bdf < y->bdf ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int target_cmp(const void *a, const void *b)
{
	const struct parts_target *x = a, *y = b;

	return x->bdf < y->bdf ? -1 : x->bdf > y->bdf;
}

static struct parts_call *find_call(struct iommu_parts *p, uint32_t bdf, uint64_t ts)
{
	struct parts_call key = { .ts = ts, .bdf = bdf };

	return bsearch(&key, p->calls, p->ncalls, sizeof(*p->calls), call_cmp);
}

/* what a call held, for the deferral's inference */
enum { CALL_PGTABLE_UNMAP = 1, CALL_OWN_INVALIDATE = 2 };

/*
 * One part: its target's counts and distribution, and its call's sum
 * (*sums) and what it held (*held).
 */
static void pair_part(struct iommu_parts *p, const struct parts_rec *r, uint64_t *sums,
		      uint8_t *held)
{
	struct parts_target *t = target_of(p, r->bdf);
	unsigned int part = r->part;
	struct parts_stat *s;
	struct parts_call *c;

	if (!t) {
		p->dropped++;
		return;
	}
	s = &t->part[part];
	s->count++;
	s->slow += r->slow;
	s->arg_sum += r->arg;
	if (!s->self_ns) {
		s->self_ns = malloc(sizeof(*s->self_ns));
		if (s->self_ns)
			hist_init(s->self_ns);
	}
	if (s->self_ns)
		hist_add(s->self_ns, r->self);
	if (!r->call_ts) {
		t->outside++;
		t->outside_ns += r->self;
		return;
	}
	c = find_call(p, r->bdf, r->call_ts);
	if (!c) {
		t->orphans++;
		return;
	}
	s->in_call++;
	sums[c - p->calls] += r->self;
	if (part == GPUPROBE_PART_PGTABLE_UNMAP)
		held[c - p->calls] |= CALL_PGTABLE_UNMAP;
	else if (part == GPUPROBE_PART_INVALIDATE && !r->depth)
		held[c - p->calls] |= CALL_OWN_INVALIDATE;
	t->group_ns[c->dir][parts_group_of(part)] += r->self;
}

/* the trace's mode record of bdf says lazy (the flush queue's domain type) */
static bool lazy_domain(const struct iommu_parts *p, uint32_t bdf)
{
	for (unsigned int i = 0; i < p->nmodes; i++)
		if (p->modes[i].bdf == bdf)
			return (p->modes[i].flags & IOMMU_MODE_PRESENT) &&
			       !strncmp(p->modes[i].domain_type, "DMA-FQ",
					sizeof(p->modes[i].domain_type));
	return false;
}

void iommu_parts_finish(struct iommu_parts *p)
{
	uint64_t *sums;
	uint8_t *held;

	if (p->finished)
		return;
	p->finished = true;
	if (!p->nparts) {
		free(p->calls);
		p->calls = NULL;
		p->ncalls = 0;
		return;
	}
	qsort(p->calls, p->ncalls, sizeof(*p->calls), call_cmp);
	sums = calloc(p->ncalls ? p->ncalls : 1, sizeof(*sums));
	held = calloc(p->ncalls ? p->ncalls : 1, sizeof(*held));
	if (!sums || !held) {
		free(sums);
		free(held);
		return;
	}
	for (size_t i = 0; i < p->nparts; i++)
		pair_part(p, &p->parts[i], sums, held);
	for (size_t i = 0; i < p->ncalls; i++) {
		const struct parts_call *c = &p->calls[i];
		/* a target without parts (no IOMMU, another kernel's) is not split */
		struct parts_target *t = find_target(p, c->bdf);

		if (!t)
			continue;
		t->calls[c->dir]++;
		t->call_ns[c->dir] += c->dur;
		if (sums[i])
			t->calls_with_parts[c->dir]++;
		if (sums[i] > c->dur)
			t->over++;
		if (c->dir == PARTS_UNMAP && held[i] == CALL_PGTABLE_UNMAP) {
			if (lazy_domain(p, c->bdf))
				t->unmaps_deferred++;
			else
				t->unmaps_uninvalidated++;
		}
	}
	free(sums);
	free(held);
	qsort(p->targets, p->ntargets, sizeof(p->targets[0]), target_cmp);
}

void iommu_parts_free(struct iommu_parts *p)
{
	if (!p)
		return;
	for (unsigned int i = 0; i < p->ntargets; i++)
		for (unsigned int k = 0; k < PARTS_N; k++)
			free(p->targets[i].part[k].self_ns);
	free(p->calls);
	free(p->parts);
	free(p);
}

uint64_t parts_call_ns(const struct parts_target *t)
{
	return t->call_ns[PARTS_MAP] + t->call_ns[PARTS_UNMAP];
}

/* other: the call time the parts do not cover (never below 0) */
uint64_t parts_group_ns(const struct parts_target *t, unsigned int group)
{
	uint64_t parts = 0;

	if (group != PARTS_G_OTHER)
		return t->group_ns[PARTS_MAP][group] + t->group_ns[PARTS_UNMAP][group];
	for (unsigned int g = 0; g < PARTS_G_OTHER; g++)
		parts += parts_group_ns(t, g);
	return parts_call_ns(t) > parts ? parts_call_ns(t) - parts : 0;
}
