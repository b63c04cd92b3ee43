// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict test's trace (tests/verdict.sh): times chosen so that every
 * share of wall can be worked out by hand.  synth.h lists them.
 */
#include <string.h>

#include "synth.h"
#include "util.h"

#define T0	1000000000ull		/* synth_info's start */
#define MS	1000000ull
#define US	1000ull

static int put_irqs(struct trace_writer *w)
{
	struct tracefile_rec_irq_count c;
	struct gpuprobe_rec_irq q;
	int err = 0;

	/* vector 0: 199 of 10 us, the 200th inside the wait below */
	for (uint64_t i = 0; i < 199; i++) {
		synth_irq(&q, T0 + 1 * MS + i * 100 * US, 0, 0, 10 * US, true);
		err |= trace_writer_put(w, &q.hdr);
	}
	synth_irq(&q, T0 + 81 * MS + 100 * US, 0, 0, 10 * US, true);
	err |= trace_writer_put(w, &q.hdr);
	/* vector 3: 50 of 4 us */
	for (uint64_t i = 0; i < 50; i++) {
		synth_irq(&q, T0 + 30 * MS + i * 50 * US, 1, 3, 4 * US, true);
		err |= trace_writer_put(w, &q.hdr);
	}
	/* vector 7: none in the trace, 2 by the kernel's count (a MISMATCH, never folded) */
	synth_irq_count(&c, T0 + 100, SYNTH_IRQ_BASE + 7, IRQ_COUNT_START, 10);
	err |= trace_writer_put(w, &c.hdr);
	synth_irq_count(&c, T0 + 99 * MS, SYNTH_IRQ_BASE + 7, IRQ_COUNT_STOP, 12);
	err |= trace_writer_put(w, &c.hdr);
	return err;
}

static int put_dma(struct trace_writer *w, bool timed)
{
	struct gpuprobe_rec_iommu io;
	struct gpuprobe_rec_dma d;
	int err = 0;

	for (uint64_t i = 0; i < 100; i++) {
		uint64_t ts = T0 + 40 * MS + i * 100 * US;

		synth_dma(&d, ts, GPUPROBE_DMA_MAP_PAGE, 4096, 1, timed ? 30 * US : 0);
		if (timed) {		/* one IOMMU map of 12 us inside each */
			d.iommu_calls = 1;
			d.iommu_ns = 12 * US;
			synth_iommu(&io, ts + 1 * US, SYNTH_GPU_BDF, GPUPROBE_IOMMU_MAP, 4096, 12 * US);
			err |= trace_writer_put(w, &io.hdr);
		} else {
			d.hdr.flags |= GPUPROBE_DMA_UNTIMED;
		}
		err |= trace_writer_put(w, &d.hdr);
		synth_dma(&d, T0 + 55 * MS + i * 50 * US, GPUPROBE_DMA_UNMAP_PAGE, 4096, 1,
			  timed ? 5 * US : 0);
		if (!timed)
			d.hdr.flags |= GPUPROBE_DMA_UNTIMED;
		err |= trace_writer_put(w, &d.hdr);
	}
	/* 20 IOMMU maps of 40 us outside any DMA call (a VFIO map, say) */
	for (uint64_t i = 0; timed && i < 20; i++) {
		synth_iommu(&io, T0 + 70 * MS + i * 100 * US, SYNTH_GPU_BDF, GPUPROBE_IOMMU_MAP,
			    8192, 40 * US);
		err |= trace_writer_put(w, &io.hdr);
	}
	return err;
}

static int put_app(struct trace_writer *w, uint16_t type, uint32_t tid, uint32_t flags,
		   uint64_t corr, uint64_t start, uint64_t end, const char *name)
{
	struct tracefile_rec_app r = {
		.hdr = { .type = TRACEFILE_REC_APP, .size = sizeof(r), .ts_ns = start },
		.ev = { .magic = GPUPROBE_APP_MAGIC, .version = GPUPROBE_APP_VERSION,
			.api = GPUPROBE_APP_CUDA, .size = sizeof(r.ev), .type = type,
			.flags = flags, .pid = SYNTH_VERDICT_PID, .tid = tid, .stream = 7,
			.correlation = corr, .start_ns = start, .end_ns = end },
	};

	copy_string(r.ev.name, sizeof(r.ev.name), name);
	return trace_writer_put(w, &r.hdr);
}

int synth_write_verdict(const char *path, bool tracefs)
{
	static struct trace_info info;
	struct gpuprobe_rec_swiotlb sw = {
		.hdr = { .type = GPUPROBE_EV_SWIOTLB, .size = sizeof(sw), .ts_ns = T0 + 90 * MS },
		.bdf = SYNTH_GPU_BDF, .dir = 1, .bytes = 512,
	};
	struct trace_writer w;
	int err = 0;

	synth_info(&info);
	if (tracefs)
		info.source = TRACE_SOURCE_TRACEFS;
	if (trace_writer_open(&w, path, &info))
		return -1;
	err |= put_irqs(&w) | put_dma(&w, !tracefs);
	for (int i = 0; i < 3; i++)
		err |= trace_writer_put(&w, &sw.hdr);
	/* a kernel of 1 ms, waited for by a blocking call that returns 400 us after its end */
	err |= put_app(&w, GPUPROBE_APP_KERNEL, 0, 0, 5, T0 + 80 * MS, T0 + 81 * MS, "k");
	err |= put_app(&w, GPUPROBE_APP_API, SYNTH_VERDICT_TID, GPUPROBE_APPF_BLOCKING, 6,
		       T0 + 80 * MS + 500 * US, T0 + 81 * MS + 400 * US, "cuCtxSynchronize");
	err |= trace_writer_finish(&w, T0 + 100 * MS, 0);
	return err ? -1 : 0;
}
