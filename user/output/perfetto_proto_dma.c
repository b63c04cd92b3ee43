// SPDX-License-Identifier: GPL-2.0
/*
 * `export --perfetto-proto`, per target: DMA and IOMMU spans on async
 * lanes (a span goes to the first lane free at its start, so overlapping
 * calls never break slice nesting), swiotlb bounces, and the IOMMU parts
 * (Documentation/iommu.md): each DMA call's nested in its slice, on its
 * lane, by time and depth; those in no call (the flush queue's timer, a
 * flush on its own) on the target's "IOMMU flush queue" lanes.  Where
 * each part goes was worked out in the first pass (perfetto_parts.c).
 */
#include "agg.h"
#include "iommu_parts.h"
#include "perfetto_proto.h"

/* The first lane of the kind free at ts: overlapping spans take separate lanes. */
static uint64_t lane_track(struct proto_writer *w, uint32_t bdf, enum lane_kind kind,
			   uint64_t ts, uint64_t end)
{
	static const char *const names[LANE_KINDS] = { "DMA", "IOMMU", "swiotlb",
						       "IOMMU flush queue" };
	int t = proto_target_index(w, bdf);
	struct lane *lanes = w->lanes[t][kind];
	unsigned int n;
	char name[32];

	for (n = 0; n < MAX_LANES - 1 && lanes[n].named && lanes[n].end > ts; n++)
		;
	if (!lanes[n].named) {
		if (n)
			snprintf(name, sizeof(name), "%s (%u)", names[kind], n + 1);
		else
			snprintf(name, sizeof(name), "%s", names[kind]);
		proto_describe_track(w, UUID_LANE(t, kind, n), UUID_TARGET(t), name);
		lanes[n].named = true;
	}
	if (end > lanes[n].end)
		lanes[n].end = end;
	return UUID_LANE(t, kind, n);
}

struct part_draw {
	struct proto_writer *w;
	uint64_t track;
};

static void draw_part(void *ctx, const struct pf_part *p, bool begin)
{
	struct part_draw *d = ctx;
	struct event_args a = { .keys = { "self_ns", "depth", "arg", "slow" },
				.values = { p->self_ns, p->depth, p->arg,
					    !!(p->flags & GPUPROBE_PART_SLOW) } };

	if (begin)
		proto_track_event(d->w, d->track, TYPE_BEGIN, p->start, "iommu_part",
				  iommu_part_name(p->part), &a);
	else
		proto_track_event(d->w, d->track, TYPE_END, p->end, "iommu_part", NULL, NULL);
}

/* A DMA call on the first lane free at its start, its IOMMU parts nested in it. */
void proto_dma(struct proto_writer *w, const struct gpuprobe_rec_dma *r)
{
	struct event_args a = { .keys = { "bytes", "nents", "dir", "iommu_calls" },
				.values = { r->bytes, r->nents, r->dir, r->iommu_calls } };
	uint64_t ts = r->hdr.ts_ns, end = ts + r->duration_ns;
	struct part_draw d = { w, lane_track(w, r->bdf, LANE_DMA, ts, end) };
	struct pf_parts_range range;

	if (!pf_parts_of_call(&w->parts, r, &range)) {
		proto_slice(w, d.track, ts, r->duration_ns, "dma", dma_op_name(r->op), &a);
		return;
	}
	proto_track_event(w, d.track, TYPE_BEGIN, ts, "dma", dma_op_name(r->op), &a);
	pf_parts_walk(&w->parts, &range, draw_part, &d);
	proto_track_event(w, d.track, TYPE_END, end, "dma", NULL, NULL);
}

/*
 * A part drawn at its own record: the root of a tree in no call (the flush
 * queue's timer and what it ran) on the target's flush-queue lanes, of one
 * whose call is not in the trace on its DMA lanes, or, alone, one that
 * could not nest.  The parts of a recorded call are drawn with it.
 */
void proto_part(struct proto_writer *w, const struct gpuprobe_rec_iommu_part *r)
{
	enum lane_kind kind = r->call_ts ? LANE_DMA : LANE_PARTS;
	struct pf_parts_range range;
	struct part_draw d = { w, 0 };
	struct pf_part alone;

	switch (pf_parts_at_part(&w->parts, &range)) {
	case PF_PART_NESTED:
		return;
	case PF_PART_ROOT:
		d.track = lane_track(w, r->bdf, kind, range.start, range.end);
		pf_parts_walk(&w->parts, &range, draw_part, &d);
		return;
	case PF_PART_ALONE:
		alone = (struct pf_part){
			.start = r->hdr.ts_ns, .end = r->hdr.ts_ns + r->duration_ns,
			.self_ns = r->self_ns, .arg = r->arg, .part = r->part, .depth = r->depth,
			.flags = r->hdr.flags,
		};
		d.track = lane_track(w, r->bdf, kind, alone.start, alone.end);
		draw_part(&d, &alone, true);
		draw_part(&d, &alone, false);
		return;
	}
}

void proto_iommu(struct proto_writer *w, const struct gpuprobe_rec_iommu *r)
{
	struct event_args a = { .keys = { "size", "iova" }, .values = { r->size, r->iova } };
	uint64_t ts = r->hdr.ts_ns;

	proto_slice(w, lane_track(w, r->bdf, LANE_IOMMU, ts, ts + r->duration_ns), ts,
		    r->duration_ns, "iommu", iommu_op_name(r->op), &a);
}

void proto_swiotlb(struct proto_writer *w, const struct gpuprobe_rec_swiotlb *r)
{
	struct event_args a = { .keys = { "bytes", "dir" }, .values = { r->bytes, r->dir } };

	proto_track_event(w, lane_track(w, r->bdf, LANE_SWIOTLB, 0, 0), TYPE_INSTANT, r->hdr.ts_ns,
			  "dma", "swiotlb bounce", &a);
}
