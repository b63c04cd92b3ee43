// SPDX-License-Identifier: GPL-2.0
/*
 * The IOMMU parts' trace for `export --perfetto-proto` (perfetto_parts.sh):
 * DMA calls of two targets with their part records (Documentation/
 * iommu.md), in the order the module delivers them: each record at its
 * function's return, so a call's parts before the call, inner parts before
 * the part they are in; one part after its call (the call moved to another
 * CPU); CPUs interleaved.  perfetto_parts_check.py lists the same events
 * with where each part must be drawn (keep the two in step).  Times are ns
 * after T0; depth as the module counts it (the flush queue's timer at 0
 * and the flush inside it at 0 too).
 *
 * Target A (0000:01:00.0):
 *   call 1  map_sg [10000, 20000) CPU 0: iova_alloc (slow), pgtable_map,
 *           invalidate (a vIOMMU's map) side by side; an IOMMU map record
 *   call 2  unmap_page [12000, 30000) CPU 1, overlapping call 1 (a second
 *           lane): pgtable_unmap, invalidate, iova_free
 *   call 3  unmap_sg [40000, 60000): pgtable_unmap, then defer (a full
 *           flush queue) with a flush (its invalidate in it) and two
 *           iova_free in it, the second delivered after the call
 *   call 4  map_page [70000, 80000): a part starting at the call's start,
 *           one ending at its end
 *   call 5  unmap_page [90000, 96000): defer > flush > invalidate, all
 *           [90000, 95000): nested by depth alone, starting with the call
 *   no call the flush queue's timer on CPU 0 [100000, 110000) with a flush
 *           (an invalidate in it) and two iova_free; the timer of CPU 1
 *           [102000, 108000) overlapping it, with a flush; a flush on its
 *           own [120000, 121000)
 *   orphan  an iova_alloc naming a call at 130000 that is not in the trace
 *   call 6  unmap_page [140000, 150000): an iova_free in it, and a
 *           pgtable_unmap [149000, 151000) that crosses its end
 * Target B (0000:02:00.0):
 *   call 7  map_page [10000, 20000) CPU 2, the same start as call 1: its
 *           pgtable_map is B's, not A's
 */
#include <string.h>

#include "synth.h"
#include "util.h"

#define T0		1000000000ull
#define BDF_A		SYNTH_GPU_BDF
#define BDF_B		GPUPROBE_BDF(0, 0x02, 0x00)

struct parts_event {
	char kind;		/* 'c' a DMA call, 'p' a part, 'i' an IOMMU map */
	uint32_t bdf;
	uint16_t cpu;
	uint16_t what;		/* call: enum gpuprobe_dma_op; part: enum gpuprobe_iommu_part */
	uint16_t depth;
	uint64_t from, to, call_ts, self;
	uint32_t arg;
	uint16_t flags;		/* part: GPUPROBE_PART_SLOW */
};

#define CALL(bdf, cpu, op, from, to) { 'c', bdf, cpu, GPUPROBE_DMA_##op, 0, from, to, 0, 0, 0, 0 }
#define PART(bdf, cpu, part, depth, from, to, call, self, arg) \
	{ 'p', bdf, cpu, GPUPROBE_PART_##part, depth, from, to, call, self, arg, 0 }
#define SLOW_PART(bdf, cpu, part, depth, from, to, call, self, arg) \
	{ 'p', bdf, cpu, GPUPROBE_PART_##part, depth, from, to, call, self, arg, GPUPROBE_PART_SLOW }

/* In file order. */
static const struct parts_event parts_events[] = {
	SLOW_PART(BDF_A, 0, IOVA_ALLOC, 0, 10100, 10600, 10000, 500, 1),
	PART(BDF_B, 2, PGTABLE_MAP, 0, 10500, 12000, 10000, 1500, 1),
	PART(BDF_A, 0, PGTABLE_MAP, 0, 11000, 13000, 10000, 2000, 16),
	{ 'i', BDF_A, 0, GPUPROBE_IOMMU_MAP, 0, 10900, 13050, 0, 0, 0, 0 },
	PART(BDF_A, 1, PGTABLE_UNMAP, 0, 12500, 14000, 12000, 1500, 1),
	PART(BDF_A, 0, INVALIDATE, 0, 13100, 15000, 10000, 1900, 1),
	CALL(BDF_A, 0, MAP_SG, 10000, 20000),
	CALL(BDF_B, 2, MAP_PAGE, 10000, 20000),
	PART(BDF_A, 1, INVALIDATE, 0, 14500, 25000, 12000, 10500, 2),
	PART(BDF_A, 1, IOVA_FREE, 0, 25500, 26000, 12000, 500, 1),
	CALL(BDF_A, 1, UNMAP_PAGE, 12000, 30000),
	PART(BDF_A, 0, PGTABLE_UNMAP, 0, 40500, 42000, 40000, 1500, 4),
	PART(BDF_A, 0, INVALIDATE, 2, 45000, 49000, 40000, 4000, 1),
	PART(BDF_A, 0, FLUSH, 1, 44000, 50000, 40000, 2000, 0),
	PART(BDF_A, 0, IOVA_FREE, 1, 51000, 52000, 40000, 1000, 1),
	PART(BDF_A, 0, DEFER, 0, 43000, 58000, 40000, 7000, 1),
	CALL(BDF_A, 0, UNMAP_SG, 40000, 60000),
	PART(BDF_A, 1, IOVA_FREE, 1, 53000, 54000, 40000, 1000, 1),
	PART(BDF_A, 0, IOVA_ALLOC, 0, 70000, 71000, 70000, 1000, 1),
	PART(BDF_A, 0, PGTABLE_MAP, 0, 72000, 80000, 70000, 8000, 1),
	CALL(BDF_A, 0, MAP_PAGE, 70000, 80000),
	PART(BDF_A, 0, INVALIDATE, 2, 90000, 95000, 90000, 5000, 1),
	PART(BDF_A, 0, FLUSH, 1, 90000, 95000, 90000, 0, 0),
	PART(BDF_A, 0, DEFER, 0, 90000, 95000, 90000, 0, 1),
	CALL(BDF_A, 0, UNMAP_PAGE, 90000, 96000),
	PART(BDF_A, 0, INVALIDATE, 1, 101000, 103500, 0, 2500, 1),
	PART(BDF_A, 0, FLUSH, 0, 100500, 104000, 0, 1000, 0),
	PART(BDF_A, 1, FLUSH, 0, 102500, 103000, 0, 500, 0),
	PART(BDF_A, 0, IOVA_FREE, 0, 105000, 105500, 0, 500, 1),
	PART(BDF_A, 0, IOVA_FREE, 0, 106000, 106400, 0, 400, 1),
	PART(BDF_A, 1, FQ_TIMER, 0, 102000, 108000, 0, 5500, 0),
	PART(BDF_A, 0, FQ_TIMER, 0, 100000, 110000, 0, 5600, 0),
	PART(BDF_A, 1, FLUSH, 0, 120000, 121000, 0, 1000, 0),
	PART(BDF_A, 0, IOVA_ALLOC, 0, 130100, 130500, 130000, 400, 1),
	PART(BDF_A, 0, IOVA_FREE, 0, 141000, 142000, 140000, 1000, 1),
	PART(BDF_A, 0, PGTABLE_UNMAP, 0, 149000, 151000, 140000, 2000, 1),
	CALL(BDF_A, 0, UNMAP_PAGE, 140000, 150000),
};

static void parts_info(struct trace_info *info)
{
	struct target *b = &info->targets.t[1];

	synth_info(info);
	info->start_ns = T0;
	*b = info->targets.t[0];
	b->bdf = BDF_B;
	b->device = 0x2336;
	bdf_format(b->bdf, b->name);
	info->targets.count = 2;
}

static int put_event(struct trace_writer *w, const struct parts_event *e)
{
	struct gpuprobe_rec_iommu_part p;
	struct gpuprobe_rec_iommu io;
	struct gpuprobe_rec_dma d;

	switch (e->kind) {
	case 'c':
		synth_dma(&d, T0 + e->from, e->what, 4096, 1, e->to - e->from);
		d.hdr.cpu = e->cpu;
		d.bdf = e->bdf;
		return trace_writer_put(w, &d.hdr);
	case 'i':
		synth_iommu(&io, T0 + e->from, e->bdf, e->what, 4096, e->to - e->from);
		io.hdr.cpu = e->cpu;
		return trace_writer_put(w, &io.hdr);
	}
	p = (struct gpuprobe_rec_iommu_part){
		.hdr = { .type = GPUPROBE_EV_IOMMU_PART, .size = sizeof(p), .cpu = e->cpu,
			 .flags = e->flags, .ts_ns = T0 + e->from },
		.bdf = e->bdf, .part = e->what, .depth = e->depth, .duration_ns = e->to - e->from,
		.self_ns = e->self, .call_ts = e->call_ts ? T0 + e->call_ts : 0, .domain = 7,
		.arg = e->arg,
	};
	return trace_writer_put(w, &p.hdr);
}

int synth_write_parts(const char *path)
{
	static struct trace_info info;
	struct trace_writer w;
	int err = 0;

	parts_info(&info);
	if (synth_open(&w, path, &info))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(parts_events); i++)
		err |= put_event(&w, &parts_events[i]);
	err |= trace_writer_finish(&w, T0 + 200000, 0);
	return err ? -1 : 0;
}
