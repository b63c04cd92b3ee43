// SPDX-License-Identifier: GPL-2.0
/*
 * Attribution of kernel events to CUDA/OpenCL work (attribute.h).
 *
 * One pass: attr_builder_add() sees every record as report reads it.  The
 * application events come last (merged after the run), so the kernel events
 * are kept, compactly (24 bytes each, sorted in place, at most ATTR_MAX_KERNEL_EVENTS; the
 * rest are counted in kernel_events_dropped and reported), until
 * attr_builder_finish() knows the windows.  Then they are sorted and summed
 * into prefix totals per block of KEV_BLOCK events, so every window costs two
 * binary searches and two partial blocks, however the windows overlap
 * (concurrent kernels, deep queues): an event inside several windows counts
 * in each of them.  The events are sorted by GPU (wake-ups by thread) first,
 * so a window sums only the segment of the op's own GPU and thread.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "attribute_internal.h"
#include "util.h"

#define KEV_BLOCK	64		/* events per prefix-sum block */

static void keep_app_event(struct attr_builder *ps, const struct gpuprobe_app_event *ev)
{
	struct attribution *at = ps->at;

	at->app_events++;
	at->events_by_api[ev->api < ARRAY_SIZE(at->events_by_api) ? ev->api : 0]++;
	if (ev->type == GPUPROBE_APP_OVERHEAD) {
		if (GPUPROBE_OVERHEAD_IS_CUPTI(ev->kind)) {
			at->overhead_records++;
			if (ev->end_ns > ev->start_ns)
				at->overhead_ns += ev->end_ns - ev->start_ns;
		}
		return;
	}
	if (ev->type == GPUPROBE_APP_NOTE) {
		if (at->nnotes < ARRAY_SIZE(at->notes))
			copy_string(at->notes[at->nnotes++], sizeof(at->notes[0]), ev->name);
		return;
	}
	if (ev->type == GPUPROBE_APP_DEVICE) {
		attr_keep_device(ps, ev);
		return;
	}
	if (ev->type == GPUPROBE_APP_CLOCK) {
		attr_keep_clock(ps, ev);
		return;
	}
	if (ev->type == GPUPROBE_APP_API || ev->type == GPUPROBE_APP_SYNC) {
		at->api_events += ev->type == GPUPROBE_APP_API;
		if (ev->type == GPUPROBE_APP_SYNC) {
			unsigned int k = ev->kind < ATTR_SYNC_KINDS ? ev->kind : GPUPROBE_SYNC_OTHER;

			at->sync_events++;
			at->syncs_by_kind[k]++;
			if (ev->end_ns > ev->start_ns)
				at->sync_ns_by_kind[k] += ev->end_ns - ev->start_ns;
		}
		if (ps->nhosts >= ATTR_MAX_APP_EVENTS ||
		    array_reserve((void **)&ps->hosts, &ps->hosts_cap, ps->nhosts + 1, sizeof(*ev)))
			at->app_events_dropped++;
		else
			ps->hosts[ps->nhosts++] = *ev;
		return;
	}
	if (at->nops >= ATTR_MAX_APP_EVENTS ||
	    array_reserve((void **)&at->ops, &ps->ops_cap, at->nops + 1, sizeof(*at->ops))) {
		at->app_events_dropped++;
		return;
	}
	memset(&at->ops[at->nops], 0, sizeof(at->ops[0]));
	at->ops[at->nops].ev = *ev;
	at->ops[at->nops].issue_ns = ev->queued_ns;
	at->nops++;
}

static void find_span(struct attr_builder *ps)
{
	ps->lo = UINT64_MAX;
	ps->hi = 0;
	for (size_t i = 0; i < ps->at->nops; i++) {
		const struct attr_op *op = &ps->at->ops[i];
		uint64_t e = op->clock_error_ns;
		uint64_t a = op->ev.start_ns > e ? op->ev.start_ns - e : 0;
		uint64_t b = op->ev.end_ns + 1 + e;

		a = op->issue_ns && op->issue_ns < a ? op->issue_ns : a;
		b = op->return_ns + 1 > b ? op->return_ns + 1 : b;
		ps->lo = a < ps->lo ? a : ps->lo;
		ps->hi = b > ps->hi ? b : ps->hi;
	}
	for (size_t i = 0; i < ps->nhosts; i++) {
		ps->lo = ps->hosts[i].start_ns < ps->lo ? ps->hosts[i].start_ns : ps->lo;
		ps->hi = ps->hosts[i].end_ns > ps->hi ? ps->hosts[i].end_ns : ps->hi;
	}
}

static uint32_t saturate_ns(uint64_t ns)
{
	return ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

static bool is_unmap(uint8_t op)
{
	return op == GPUPROBE_DMA_UNMAP_PAGE || op == GPUPROBE_DMA_UNMAP_SG ||
	       op == GPUPROBE_DMA_UNMAP_RESOURCE || op == GPUPROBE_DMA_FREE;
}

static uint64_t saturate_bytes(uint64_t b)
{
	return b < (1ull << 60) ? b : (1ull << 60) - 1;
}

/* The kernel event in its compact form; false for records attribution ignores. */
static bool kev_of(const struct gpuprobe_rec_hdr *h, struct kev *k)
{
	const struct gpuprobe_rec_dma *d = (const void *)h;
	const struct gpuprobe_rec_iommu *io = (const void *)h;

	*k = (struct kev){ .ts = h->ts_ns };
	switch (h->type) {
	case GPUPROBE_EV_IRQ:
		k->key = ((const struct gpuprobe_rec_irq *)h)->bdf;
		k->kind = KEV_IRQ;
		k->ns = saturate_ns(((const struct gpuprobe_rec_irq *)h)->duration_ns);
		return true;
	case GPUPROBE_EV_DMA:
		k->kind = is_unmap(d->op) ? KEV_DMA_UNMAP : KEV_DMA_MAP;
		k->key = d->bdf;
		k->ns = saturate_ns(d->duration_ns);
		k->bytes = saturate_bytes(d->bytes);
		return true;
	case GPUPROBE_EV_IOMMU:
		/* Without a device (tracefs iommu: events) it is nobody's: keep_kernel_event counts it. */
		if ((io->op != GPUPROBE_IOMMU_MAP && io->op != GPUPROBE_IOMMU_UNMAP) ||
		    io->bdf == GPUPROBE_BDF_NONE)
			return false;
		/* a domain several GPUs share (VFIO): bdf is only the first */
		if (h->size >= sizeof(*io) && (h->flags & GPUPROBE_IOMMU_SHARED_DOMAIN))
			return false;
		k->kind = io->op == GPUPROBE_IOMMU_MAP ? KEV_IOMMU_MAP : KEV_IOMMU_UNMAP;
		k->key = io->bdf;
		k->bytes = saturate_bytes(io->size);
		return true;
	case GPUPROBE_EV_SWIOTLB:
		k->kind = KEV_SWIOTLB;
		k->key = ((const struct gpuprobe_rec_swiotlb *)h)->bdf;
		k->bytes = saturate_bytes(((const struct gpuprobe_rec_swiotlb *)h)->bytes);
		return true;
	case GPUPROBE_EV_WAKEUP:
		k->kind = KEV_WAKEUP;
		k->key = ((const struct gpuprobe_rec_sched *)h)->pid;
		return true;
	default:
		return false;
	}
}

static void counts_add_kev(struct attr_counts *c, const struct kev *k)
{
	switch (k->kind) {
	case KEV_IRQ:
		c->irqs++;
		c->irq_ns += k->ns;
		break;
	case KEV_DMA_MAP:
		c->dma_maps++;
		c->dma_map_bytes += k->bytes;
		c->dma_ns += k->ns;
		c->dma_timed += k->ns != 0;
		break;
	case KEV_DMA_UNMAP:
		c->dma_unmaps++;
		c->dma_ns += k->ns;
		c->dma_timed += k->ns != 0;
		break;
	case KEV_IOMMU_MAP:
		c->iommu_maps++;
		c->iommu_map_bytes += k->bytes;
		break;
	case KEV_IOMMU_UNMAP:
		c->iommu_unmaps++;
		break;
	case KEV_SWIOTLB:
		c->swiotlb++;
		c->swiotlb_bytes += k->bytes;
		break;
	case KEV_WAKEUP:
		c->wakeups++;
		break;
	}
}

/*
 * IOMMU map/unmap records without a device: the tracefs source's iommu:
 * events name none, and any device's mappings (another GPU's, the NVMe
 * drive's) may be among them, so they are counted apart, never charged.
 */
static void count_unattributed(struct attribution *at, const struct gpuprobe_rec_hdr *h)
{
	const struct gpuprobe_rec_iommu *io = (const void *)h;

	if (h->type != GPUPROBE_EV_IOMMU || io->bdf != GPUPROBE_BDF_NONE)
		return;
	if (io->op == GPUPROBE_IOMMU_MAP) {
		at->unattributed.iommu_maps++;
		at->unattributed.iommu_map_bytes += io->size;
	} else if (io->op == GPUPROBE_IOMMU_UNMAP) {
		at->unattributed.iommu_unmaps++;
	}
}

static void keep_kernel_event(struct attr_builder *ps, const struct gpuprobe_rec_hdr *h)
{
	struct kev k;

	if (!kev_of(h, &k)) {
		count_unattributed(ps->at, h);
		return;
	}
	if (ps->nkev == ps->kev_cap &&
	    (ps->nkev >= ATTR_MAX_KERNEL_EVENTS ||
	     array_reserve((void **)&ps->kev, &ps->kev_cap, ps->nkev + 1, sizeof(*ps->kev)))) {
		ps->at->kernel_events_dropped++;
		return;
	}
	ps->kev[ps->nkev++] = k;
}

/* GPUs' events first, then wake-ups; by GPU (task), then by time. */
static inline bool kev_before(const struct kev *x, const struct kev *y)
{
	bool wx = x->kind == KEV_WAKEUP, wy = y->kind == KEV_WAKEUP;

	if (wx != wy)
		return wy;
	if (x->key != y->key)
		return x->key < y->key;
	return x->ts < y->ts;
}

static inline void kev_swap(struct kev *a, struct kev *b)
{
	struct kev t = *a;

	*a = *b;
	*b = t;
}

static void kev_insertion_sort(struct kev *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct kev x = v[i];
		size_t j = i;

		for (; j > 0 && kev_before(&x, &v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static void kev_sift_down(struct kev *v, size_t root, size_t n)
{
	for (size_t child; (child = 2 * root + 1) < n; root = child) {
		if (child + 1 < n && kev_before(&v[child], &v[child + 1]))
			child++;
		if (!kev_before(&v[root], &v[child]))
			return;
		kev_swap(&v[root], &v[child]);
	}
}

static void kev_heap_sort(struct kev *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0; )
		kev_sift_down(v, i, n);
	for (size_t i = n; i-- > 1; ) {
		kev_swap(&v[0], &v[i]);
		kev_sift_down(v, 0, i);
	}
}

/*
 * In place (qsort's merge sort takes a copy of the array: as much memory
 * again as the events): quicksort, median of three, the smaller side first
 * by recursion and the larger by the loop; heap sort past 2 log2 n levels.
 */
static void kev_sort(struct kev *v, size_t n, unsigned int depth)
{
	while (n > 16) {
		struct kev *a = &v[0], *m = &v[n / 2], *z = &v[n - 1];
		struct kev pivot;
		size_t i = 0, j = n - 1;

		if (!depth--) {
			kev_heap_sort(v, n);
			return;
		}
		if (kev_before(m, a))
			kev_swap(m, a);
		if (kev_before(z, m)) {
			kev_swap(z, m);
			if (kev_before(m, a))
				kev_swap(m, a);
		}
		pivot = *m;
		for (;;) {	/* Hoare: v[..j] <= pivot <= v[j + 1..] */
			while (kev_before(&v[i], &pivot))
				i++;
			while (kev_before(&pivot, &v[j]))
				j--;
			if (i >= j)
				break;
			kev_swap(&v[i++], &v[j--]);
		}
		if (j + 1 < n - j - 1) {
			kev_sort(v, j + 1, depth);
			v += j + 1;
			n -= j + 1;
		} else {
			kev_sort(v + j + 1, n - j - 1, depth);
			n = j + 1;
		}
	}
	kev_insertion_sort(v, n);
}

static void kev_sort_all(struct kev *v, size_t n)
{
	unsigned int depth = 0;

	for (size_t k = n; k > 1; k >>= 1)
		depth += 2;
	kev_sort(v, n, depth);
}

static int find_segments(struct attr_builder *ps)
{
	size_t cap = 0;

	ps->nseg = 0;
	for (size_t i = 0; i < ps->nkev; i++) {
		bool w = ps->kev[i].kind == KEV_WAKEUP;

		if (ps->nseg && ps->seg[ps->nseg - 1].wakeups == w &&
		    ps->seg[ps->nseg - 1].key == ps->kev[i].key) {
			ps->seg[ps->nseg - 1].hi = i + 1;
			continue;
		}
		if (array_reserve((void **)&ps->seg, &cap, ps->nseg + 1, sizeof(*ps->seg)))
			return -1;
		ps->seg[ps->nseg++] = (struct kev_segment){ w, ps->kev[i].key, i, i + 1 };
	}
	return 0;
}

void attr_counts_add(struct attr_counts *d, const struct attr_counts *a, int sign)
{
	uint64_t *dp = (uint64_t *)d;
	const uint64_t *ap = (const uint64_t *)a;

	for (size_t i = 0; i < sizeof(*d) / sizeof(uint64_t); i++)
		dp[i] += sign > 0 ? ap[i] : -ap[i];
}

/* Keep the events inside the windows' span, sorted, with block prefix sums. */
static int build_prefix(struct attr_builder *ps)
{
	size_t n = 0, nblocks;

	for (size_t i = 0; i < ps->nkev; i++)
		if (ps->kev[i].ts >= ps->lo && ps->kev[i].ts <= ps->hi)
			ps->kev[n++] = ps->kev[i];
	ps->nkev = n;
	kev_sort_all(ps->kev, ps->nkev);
	if (find_segments(ps))
		return -1;
	nblocks = ps->nkev / KEV_BLOCK + 1;
	ps->block = calloc(nblocks, sizeof(*ps->block));
	if (!ps->block)
		return -1;
	for (size_t b = 1; b < nblocks; b++) {
		ps->block[b] = ps->block[b - 1];
		for (size_t i = (b - 1) * KEV_BLOCK; i < b * KEV_BLOCK; i++)
			counts_add_kev(&ps->block[b], &ps->kev[i]);
	}
	ps->at->kernel_events = ps->nkev;
	return 0;
}

/* Sum of the first i kernel events. */
static void prefix_at(const struct attr_builder *ps, size_t i, struct attr_counts *out)
{
	*out = ps->block[i / KEV_BLOCK];
	for (size_t k = i / KEV_BLOCK * KEV_BLOCK; k < i; k++)
		counts_add_kev(out, &ps->kev[k]);
}

/* Index of the first kernel event of segment sg at or after t. */
static size_t first_at(const struct attr_builder *ps, const struct kev_segment *sg, uint64_t t)
{
	size_t lo = sg->lo, hi = sg->hi;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ps->kev[mid].ts < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Events of segment sg with from <= ts < to, added to out. */
static void segment_window(const struct attr_builder *ps, const struct kev_segment *sg,
			   uint64_t from, uint64_t to, struct attr_counts *out)
{
	struct attr_counts upto, before;

	prefix_at(ps, first_at(ps, sg, to), &upto);
	prefix_at(ps, first_at(ps, sg, from), &before);
	attr_counts_add(out, &upto, 1);
	attr_counts_add(out, &before, -1);
}

/*
 * Events with from <= ts < to of GPU bdf (and, with no GPU known among
 * several, of none), plus the wake-ups of task tid (0: none); GPU
 * ALL_GPUS: every GPU's.  The IOMMU events the kernel could not attribute
 * count only where the kernel events name one GPU: then they can only be
 * its.
 */
#define ALL_GPUS	0xfffffffeu

static void window(const struct attr_builder *ps, uint32_t bdf, uint32_t tid, uint64_t from,
		   uint64_t to, struct attr_counts *out)
{
	memset(out, 0, sizeof(*out));
	if (!from || to <= from)
		return;
	for (size_t i = 0; i < ps->nseg; i++) {
		const struct kev_segment *sg = &ps->seg[i];
		bool mine = sg->wakeups ? tid && sg->key == tid :
			    bdf == ALL_GPUS || (bdf != GPUPROBE_BDF_NONE && sg->key == bdf) ||
			    (sg->key == GPUPROBE_BDF_NONE && ps->at->kernel_bdfs <= 1);

		if (mine)
			segment_window(ps, sg, from, to, out);
	}
}

static void counts_sum(struct attr_counts *d, const struct attr_counts *a)
{
	attr_counts_add(d, a, 1);
}

/*
 * The phases of one op.  Start and end are device times mapped to the host
 * within e: an event within e of either is ambiguous (margin), in no phase.
 *   issue [issue, start - e)  margin [start - e, start + e)
 *   run [start + e, end + 1 - e)  margin [end + 1 - e, end + 1 + e)
 *   return [end + 1 + e, return + 1)
 */
static void attribute_op(const struct attr_builder *ps, const struct attr_op *op,
			 struct attr_op_detail *d)
{
	uint64_t e = op->clock_error_ns, start = op->ev.start_ns, end = op->ev.end_ns + 1;
	uint64_t s_lo = start > e ? start - e : 1, s_hi = start + e;
	uint64_t e_lo = end > e ? end - e : 1, e_hi = end + e;
	struct attr_counts m;

	memset(d, 0, sizeof(*d));
	window(ps, op->bdf, op->issue_tid, op->issue_ns, s_lo, &d->phase[ATTR_ISSUE]);
	window(ps, op->bdf, op->issue_tid, s_hi, e_lo, &d->phase[ATTR_RUN]);
	if (!e)
		goto return_phase;
	if (s_hi >= e_lo) {		/* shorter than the two margins: all ambiguous */
		window(ps, op->bdf, op->issue_tid, s_lo, e_hi, &d->margin);
		goto return_phase;
	}
	window(ps, op->bdf, op->issue_tid, s_lo, s_hi, &m);
	counts_sum(&d->margin, &m);
	window(ps, op->bdf, op->issue_tid, e_lo, e_hi, &m);
	counts_sum(&d->margin, &m);
return_phase:
	if (op->return_ns)
		window(ps, op->bdf, op->wait_tid, e_hi, op->return_ns + 1, &d->phase[ATTR_RETURN]);
}

static int attribute_ops(struct attr_builder *ps)
{
	struct attribution *at = ps->at;
	struct attr_summary *s = &at->sum;
	size_t ndetails = at->nops < ATTR_OPS_DETAILED ? at->nops : ATTR_OPS_DETAILED;

	at->details = calloc(ndetails + 1, sizeof(*at->details));
	if (!at->details)
		return -1;
	for (size_t i = 0; i < at->nops; i++) {
		struct attr_op *op = &at->ops[i];
		struct attr_op_detail d;
		const struct attr_counts *m = &d.margin;

		attribute_op(ps, op, &d);
		if (attr_name_add(ps, op, &d))
			at->app_events_dropped++;
		if (i < ndetails) {
			at->details[i] = d;
			op->detail = &at->details[i];
		}
		s->device_ns += op->ev.end_ns - op->ev.start_ns;
		s->margin_irqs += m->irqs;
		s->margin_events += m->irqs + m->dma_maps + m->dma_unmaps + m->iommu_maps +
				    m->iommu_unmaps + m->swiotlb;
		if (!op->return_ns)
			continue;
		s->waits++;
		s->return_wait_ns += op->return_ns - op->ev.end_ns;
		if (d.phase[ATTR_RETURN].irqs) {
			s->irq_waits++;
			s->irq_wait_ns += op->return_ns - op->ev.end_ns;
		}
	}
	for (size_t i = 0; i < ps->nkev; i++)
		if (ps->kev[i].kind == KEV_DMA_MAP || ps->kev[i].kind == KEV_DMA_UNMAP) {
			s->map_call_ns += ps->kev[i].ns;
			s->map_calls_timed += ps->kev[i].ns != 0;
		}
	for (size_t h = 0; h < ps->nhosts; h++) {
		const struct gpuprobe_app_event *e = &ps->hosts[h];
		struct attr_counts c;

		window(ps, ALL_GPUS, 0, e->start_ns, e->end_ns + 1, &c);
		if (c.dma_maps + c.iommu_maps) {
			s->api_calls_with_maps++;
			s->api_ns_with_maps += e->end_ns - e->start_ns;
		}
	}
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct attr_op *x = a, *y = b;

	return x->ev.start_ns < y->ev.start_ns ? -1 : x->ev.start_ns > y->ev.start_ns;
}

struct attr_builder *attr_builder_new(uint32_t app_events)
{
	struct attr_builder *ps = calloc(1, sizeof(*ps));

	if (ps)
		ps->at = calloc(1, sizeof(*ps->at));
	if (ps)
		ps->keep_kernel = app_events != TRACEFILE_APP_NONE;
	if (ps && !ps->at) {
		free(ps);
		return NULL;
	}
	return ps;
}

bool attr_builder_keeps_kernel(const struct attr_builder *ps)
{
	return ps->keep_kernel;
}

void attr_builder_add(struct attr_builder *ps, const struct gpuprobe_rec_hdr *rec)
{
	if (rec->type == TRACEFILE_REC_APP)
		keep_app_event(ps, &((const struct tracefile_rec_app *)rec)->ev);
	else if (rec->type == TRACEFILE_REC_STRING)
		strtab_add(&ps->at->strings, rec);	/* a malformed one is counted, names stay short */
	else if (ps->keep_kernel)
		keep_kernel_event(ps, rec);
}

struct attribution *attr_builder_finish(struct attr_builder *ps, uint64_t wall_ns,
					char *err, size_t errlen)
{
	struct attribution *at = ps->at;

	err[0] = '\0';
	if (!at->app_events)
		return NULL;
	if (!ps->keep_kernel)
		snprintf(at->limit_note, sizeof(at->limit_note),
			 "the trace header said no application events would follow, so kernel events were not kept: nothing is attributed");
	else if (at->kernel_events_dropped)
		snprintf(at->limit_note, sizeof(at->limit_note),
			 "%" PRIu64 " kernel events past the first %u were not kept: windows after them are undercounted",
			 at->kernel_events_dropped, ATTR_MAX_KERNEL_EVENTS);
	at->sum.wall_ns = wall_ns;
	attr_match_ops(ps);
	find_span(ps);
	if (build_prefix(ps)) {
		snprintf(err, errlen, "out of memory attributing %zu kernel events", ps->nkev);
		return NULL;
	}
	/* by start first: the detailed ops are the first ones, names come in that order */
	qsort(at->ops, at->nops, sizeof(*at->ops), by_start);
	if (attribute_ops(ps)) {
		snprintf(err, errlen, "out of memory attributing %zu ops", at->nops);
		return NULL;
	}
	attr_names_sort(ps);
	ps->at = NULL;
	return at;
}

void attr_builder_free(struct attr_builder *ps)
{
	if (!ps)
		return;
	attribution_free(ps->at);
	free(ps->hosts);
	free(ps->clocks);
	free(ps->seg);
	free(ps->kev);
	free(ps->block);
	free(ps->name_slot);
	free(ps);
}

struct attribution *attribute_file(const char *path, char *err, size_t errlen)
{
	const struct gpuprobe_rec_hdr *rec;
	struct trace_info *info = malloc(sizeof(*info));
	struct attribution *at = NULL;
	struct attr_builder *ps = NULL;
	struct trace_reader r;
	int n;

	err[0] = '\0';
	if (!info) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (trace_reader_open(&r, path, info)) {
		snprintf(err, errlen, "%s", r.error);
		trace_reader_close(&r);
		goto out;
	}
	ps = attr_builder_new(info->app_events);
	if (!ps) {
		snprintf(err, errlen, "out of memory");
		trace_reader_close(&r);
		goto out;
	}
	while ((n = trace_reader_next(&r, &rec)) > 0)
		attr_builder_add(ps, rec);
	if (n < 0)
		snprintf(err, errlen, "%s", r.error);
	else
		at = attr_builder_finish(ps, r.seen_end && r.end.hdr.ts_ns > info->start_ns ?
					 r.end.hdr.ts_ns - info->start_ns : 0, err, errlen);
	trace_reader_close(&r);
out:
	attr_builder_free(ps);
	free(info);
	return at;
}

void attribution_free(struct attribution *at)
{
	if (!at)
		return;
	free(at->ops);
	free(at->details);
	free(at->names);
	free(at->devices);
	strtab_free(&at->strings);
	free(at);
}
