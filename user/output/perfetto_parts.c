// SPDX-License-Identifier: GPL-2.0
/*
 * Pass one of `export --perfetto-proto` for the IOMMU parts: which call
 * (or which tree of a flush-queue timer) each part is drawn in, and its
 * parent there (perfetto_parts.h).  Parts of one call are nested by time:
 * a part inside another's [start, end] is its child, the shallower first
 * where both have one interval; the depth decides only there and at a
 * boundary (a part of no duration at another's end is its sibling unless
 * it is deeper).  Time, not depth, decides the rest: the module counts
 * the flush queue's timer at depth 0 and the flush inside it at 0 too.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "perfetto_parts.h"
#include "util.h"

/* The parts of one recorded call: by (bdf, call_ts), drawn at that call's record. */
struct pf_parts_group {
	uint32_t bdf;
	uint64_t call_ts;
	size_t call_idx;		/* among the file's DMA records */
	size_t first, last;
};

void pf_parts_add(struct pf_parts *p, const struct gpuprobe_rec_hdr *h)
{
	if (p->oom)
		return;
	if (h->type == GPUPROBE_EV_DMA) {
		const struct gpuprobe_rec_dma *d = (const void *)h;

		if (array_reserve((void **)&p->calls, &p->cap_calls, p->ncalls + 1,
				  sizeof(*p->calls))) {
			p->oom = true;
			return;
		}
		p->calls[p->ncalls] = (struct pf_parts_call){
			.ts = h->ts_ns, .end = h->ts_ns + d->duration_ns, .bdf = d->bdf,
			.idx = p->ncalls,
		};
		p->ncalls++;
	} else if (h->type == GPUPROBE_EV_IOMMU_PART) {
		const struct gpuprobe_rec_iommu_part *r = (const void *)h;

		if (array_reserve((void **)&p->p, &p->cap, p->n + 1, sizeof(*p->p))) {
			p->oom = true;
			return;
		}
		p->p[p->n] = (struct pf_part){
			.start = h->ts_ns, .end = h->ts_ns + r->duration_ns, .call_ts = r->call_ts,
			.self_ns = r->self_ns, .bdf = r->bdf, .arg = r->arg, .cpu = h->cpu,
			.part = r->part, .depth = r->depth, .flags = h->flags, .idx = p->n,
		};
		p->n++;
	}
}

/* Parts in no call nest per CPU (the timer's softirq does not migrate); a call's may move. */
static uint32_t cpu_key(const struct pf_part *x)
{
	return x->call_ts ? 0 : x->cpu;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* By group, then start; the enclosing first: longer, then shallower. */
static int by_group_start(const void *a, const void *b)
{
	const struct pf_part *x = a, *y = b;
	const int order[] = {
		cmp_u64(x->bdf, y->bdf), cmp_u64(x->call_ts, y->call_ts),
		cmp_u64(cpu_key(x), cpu_key(y)), cmp_u64(x->start, y->start),
		cmp_u64(y->end, x->end), cmp_u64(x->depth, y->depth), cmp_u64(x->idx, y->idx),
	};

	for (size_t i = 0; i < ARRAY_SIZE(order); i++)
		if (order[i])
			return order[i];
	return 0;
}

static int by_call(const void *a, const void *b)
{
	const struct pf_parts_call *x = a, *y = b;

	if (x->bdf != y->bdf)
		return cmp_u64(x->bdf, y->bdf);
	return x->ts != y->ts ? cmp_u64(x->ts, y->ts) : cmp_u64(x->idx, y->idx);
}

static bool same_group(const struct pf_part *x, const struct pf_part *y)
{
	return x->bdf == y->bdf && x->call_ts == y->call_ts && cpu_key(x) == cpu_key(y);
}

static bool fits(uint64_t start, uint64_t end, const struct pf_part *x)
{
	return start <= x->start && x->end <= end;
}

/* The first call recorded with (bdf, ts), the one its parts are drawn in. */
static const struct pf_parts_call *find_call(const struct pf_parts *p, uint32_t bdf, uint64_t ts)
{
	size_t lo = 0, hi = p->ncalls;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pf_parts_call *c = &p->calls[mid];

		if (c->bdf < bdf || (c->bdf == bdf && c->ts < ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->ncalls && p->calls[lo].bdf == bdf && p->calls[lo].ts == ts ?
	       &p->calls[lo] : NULL;
}

/*
 * Parts [first, last) of one group, by start: each nests in the innermost
 * open part it fits in, else in the call (when there is one), else starts
 * a tree (no call); one that overlaps an open part without fitting in it,
 * or leaves its call, is drawn alone.  stack: room for last - first.
 */
static void nest(struct pf_parts *p, size_t first, size_t last,
		 const struct pf_parts_call *call, size_t *stack)
{
	size_t top = 0;
	long root = -1;

	for (size_t k = first; k < last; k++) {
		struct pf_part *x = &p->p[k];

		x->parent = -1;
		x->place = PF_PART_NESTED;
		while (top) {
			const struct pf_part *t = &p->p[stack[top - 1]];
			bool boundary = t->end == x->start && x->depth <= t->depth;

			if (fits(t->start, t->end, x) && !boundary) {
				x->parent = (long)stack[top - 1];
				break;
			}
			if (t->end > x->start) {	/* crosses it */
				x->place = PF_PART_ALONE;
				break;
			}
			top--;
		}
		if (!top && call && !fits(call->ts, call->end, x))
			x->place = PF_PART_ALONE;
		else if (!top && !call)
			x->place = PF_PART_ROOT;
		if (x->place == PF_PART_ALONE)
			continue;
		if (x->place == PF_PART_ROOT)
			root = (long)k;
		if (root >= 0)
			p->p[root].last = k + 1;
		stack[top++] = k;
	}
}

void pf_parts_layout(struct pf_parts *p)
{
	size_t *stack;

	if (p->oom || !p->n)
		return;
	p->pos = malloc(p->n * sizeof(*p->pos));
	p->groups = malloc(p->n * sizeof(*p->groups));
	stack = malloc(p->n * sizeof(*stack));
	if (!p->pos || !p->groups || !stack) {
		free(stack);
		p->oom = true;
		return;
	}
	qsort(p->calls, p->ncalls, sizeof(*p->calls), by_call);
	qsort(p->p, p->n, sizeof(*p->p), by_group_start);
	for (size_t i = 0, j; i < p->n; i = j) {
		const struct pf_parts_call *call = NULL;

		for (j = i + 1; j < p->n && same_group(&p->p[i], &p->p[j]); j++)
			;
		if (p->p[i].call_ts)
			call = find_call(p, p->p[i].bdf, p->p[i].call_ts);
		nest(p, i, j, call, stack);
		if (call)
			p->groups[p->ngroups++] = (struct pf_parts_group){
				.bdf = call->bdf, .call_ts = call->ts, .call_idx = call->idx,
				.first = i, .last = j,
			};
	}
	for (size_t i = 0; i < p->n; i++)
		p->pos[p->p[i].idx] = i;
	free(stack);
}

bool pf_parts_of_call(struct pf_parts *p, const struct gpuprobe_rec_dma *d,
		      struct pf_parts_range *r)
{
	size_t idx = p->dma_seen++, lo = 0, hi = p->ngroups;
	const struct pf_parts_group *g;

	if (p->oom)
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		g = &p->groups[mid];
		if (g->bdf < d->bdf || (g->bdf == d->bdf && g->call_ts < d->hdr.ts_ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= p->ngroups)
		return false;
	g = &p->groups[lo];
	if (g->bdf != d->bdf || g->call_ts != d->hdr.ts_ns || g->call_idx != idx)
		return false;
	*r = (struct pf_parts_range){ .first = g->first, .last = g->last,
				      .start = d->hdr.ts_ns, .end = d->hdr.ts_ns + d->duration_ns };
	return true;
}

enum pf_part_place pf_parts_at_part(struct pf_parts *p, struct pf_parts_range *r)
{
	size_t i = p->part_seen++;
	const struct pf_part *x;

	if (p->oom || !p->pos || i >= p->n)
		return PF_PART_ALONE;
	x = &p->p[p->pos[i]];
	if (x->place == PF_PART_ROOT)
		*r = (struct pf_parts_range){ .first = p->pos[i], .last = x->last,
					      .start = x->start, .end = x->end };
	return (enum pf_part_place)x->place;
}

void pf_parts_walk(const struct pf_parts *p, const struct pf_parts_range *r,
		   void (*draw)(void *ctx, const struct pf_part *part, bool begin), void *ctx)
{
	long open = -1;		/* the innermost part begun and not ended */

	for (size_t k = r->first; k < r->last; k++) {
		const struct pf_part *x = &p->p[k];

		if (x->place == PF_PART_ALONE)
			continue;
		while (open >= 0 && open != x->parent) {
			draw(ctx, &p->p[open], false);
			open = p->p[open].parent;
		}
		draw(ctx, x, true);
		open = (long)k;
	}
	while (open >= 0) {
		draw(ctx, &p->p[open], false);
		open = p->p[open].parent;
	}
}

void pf_parts_free(struct pf_parts *p)
{
	free(p->p);
	free(p->calls);
	free(p->groups);
	free(p->pos);
	memset(p, 0, sizeof(*p));
}
