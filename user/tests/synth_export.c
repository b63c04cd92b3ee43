// SPDX-License-Identifier: GPL-2.0
/*
 * The trace export_check.sh exports to both Perfetto formats; its events
 * are listed again, with what each export must make of them, in
 * perfetto_check.py (keep the two in step).  Times are ns after T0, most
 * not whole microseconds (the JSON's "12.005" has its zeros); CPU 0 unless
 * said:
 *
 * The workload is process EXPORT_PID with threads SYNTH_FLOW_TID and
 * EXPORT_TID2: the only real pid and tids of the trace.
 *
 *   irq A     vector 0, [12005, 14000)
 *   wake-ups  of SYNTH_FLOW_TID at 15001 and 16002: both after A, the
 *             first inside the thread's wait: flow A -> the wake-up on
 *             CPU 0 -> the thread at 15001, inside its wait (not the
 *             wait's start, 10000, before A); the second gets none (one
 *             wake-up per interrupt)
 *   irq B     vector 1, [100050, 101000); a wake-up at 101500 outside any
 *             wait: flow B -> 101500, ended there
 *   irq C     vector 0, [200009, 202012), nobody woken
 *   irq E     vector 1, [252000, 253000); a wake-up of EXPORT_TID2 at
 *             254000, inside its CUPTI-style wait (below): flow E -> the
 *             wake-up -> EXPORT_TID2 at 254000
 *   irq D     CPU 1, vector 2, [300001, 300100)
 *   DMA       map_sg [30001, 35001), inside it map_page [31002, 32002)
 *   IOMMU     map [30500, 30900)
 *   CUDA      cuLaunchKernel [5000, 6000) and cuStreamSynchronize
 *             [10000, 20000) on thread SYNTH_FLOW_TID, a kernel on stream 7
 *             [7000, 11000); on EXPORT_TID2 cuCtxSynchronize [250000,
 *             260000), correlation 77, and as CUPTI gives it a sync record
 *             naming no thread (tid 0), correlation 77, [250100, 259900)
 */
#include "synth.h"
#include "util.h"

#define T0		1000000000ull
#define EXPORT_PID	4240
#define EXPORT_TID2	4243

static int put_app(struct trace_writer *w, uint16_t type, uint32_t tid, uint32_t stream,
		   uint64_t start, uint64_t end, const char *name, uint64_t correlation)
{
	struct tracefile_rec_app r = {
		.hdr = { .type = TRACEFILE_REC_APP, .size = sizeof(r), .ts_ns = T0 + start },
		.ev = { .magic = GPUPROBE_APP_MAGIC, .version = GPUPROBE_APP_VERSION,
			.api = GPUPROBE_APP_CUDA, .size = sizeof(r.ev), .type = type,
			.pid = EXPORT_PID, .tid = tid, .stream = stream,
			.correlation = correlation, .start_ns = T0 + start, .end_ns = T0 + end },
	};

	copy_string(r.ev.name, sizeof(r.ev.name), name);
	return trace_writer_put(w, &r.hdr);
}

static int put_wakeup(struct trace_writer *w, uint32_t tid, uint64_t t)
{
	struct gpuprobe_rec_sched s = {
		.hdr = { .type = GPUPROBE_EV_WAKEUP, .size = sizeof(s), .cpu = 0, .ts_ns = T0 + t },
		.pid = tid, .tgid = EXPORT_PID, .target_cpu = 1,
	};

	return trace_writer_put(w, &s.hdr);
}

static int put_irq(struct trace_writer *w, uint16_t cpu, uint32_t vector, uint64_t from,
		   uint64_t to)
{
	struct gpuprobe_rec_irq q;

	synth_irq(&q, T0 + from, cpu, vector, to - from, true);
	return trace_writer_put(w, &q.hdr);
}

static int put_dma(struct trace_writer *w, uint16_t op, uint64_t bytes, uint64_t from, uint64_t to)
{
	struct gpuprobe_rec_dma d;

	synth_dma(&d, T0 + from, op, bytes, 1, to - from);
	return trace_writer_put(w, &d.hdr);
}

int synth_write_export(const char *path)
{
	static struct trace_info info;
	struct gpuprobe_rec_iommu io;
	struct trace_writer w;
	int err = 0;

	synth_info(&info);
	info.start_ns = T0;
	if (trace_writer_open(&w, path, &info))
		return -1;
	err |= put_app(&w, GPUPROBE_APP_API, SYNTH_FLOW_TID, 0, 5000, 6000, "cuLaunchKernel", 0);
	err |= put_app(&w, GPUPROBE_APP_KERNEL, 0, 7, 7000, 11000, SYNTH_FLOW_KERNEL, 0);
	err |= put_app(&w, GPUPROBE_APP_SYNC, SYNTH_FLOW_TID, 0, 10000, 20000, "cuStreamSynchronize", 0);
	err |= put_irq(&w, 0, 0, 12005, 14000);
	err |= put_wakeup(&w, SYNTH_FLOW_TID, 15001);
	err |= put_wakeup(&w, SYNTH_FLOW_TID, 16002);
	err |= put_dma(&w, GPUPROBE_DMA_MAP_SG, 1 << 20, 30001, 35001);
	synth_iommu(&io, T0 + 30500, SYNTH_GPU_BDF, GPUPROBE_IOMMU_MAP, 4096, 400);
	err |= trace_writer_put(&w, &io.hdr);
	err |= put_dma(&w, GPUPROBE_DMA_MAP_PAGE, 4096, 31002, 32002);
	err |= put_irq(&w, 0, 1, 100050, 101000);
	err |= put_wakeup(&w, SYNTH_FLOW_TID, 101500);
	err |= put_irq(&w, 0, 0, 200009, 202012);
	err |= put_app(&w, GPUPROBE_APP_API, EXPORT_TID2, 0, 250000, 260000, "cuCtxSynchronize", 77);
	err |= put_app(&w, GPUPROBE_APP_SYNC, 0, 0, 250100, 259900, "context_synchronize", 77);
	err |= put_irq(&w, 0, 1, 252000, 253000);
	err |= put_wakeup(&w, EXPORT_TID2, 254000);
	err |= put_irq(&w, 1, 2, 300001, 300100);
	err |= trace_writer_finish(&w, T0 + 400000, 0);
	return err ? -1 : 0;
}
