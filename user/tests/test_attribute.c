// SPDX-License-Identifier: GPL-2.0
/*
 * Attribution on a synthetic timeline whose answers are worked out by hand
 * (times in ns after T0 = trace start):
 *
 *   cuLaunchKernel   corr 1  [500, 600]     -> k1 (stream 7)   run [1000, 2000]
 *   (no call)        corr 4                 -> k2 (stream 8)   run [1200, 1800]
 *   cuMemcpyHtoD     corr 2  [2500, 4500] blocking -> memcpy    run [3000, 4000]
 *   cuLaunchKernel   corr 3  [4800, 4900]   -> k1 (stream 7)   run [5000, 6000]
 *   stream_synchronize       [5500, 7000] blocking
 *
 *   iommu map 8 KiB @550   -> k1#1 issue (the GPU's: the module names it)
 *   iommu map 4 KiB @4850, unmap @3200, no device (tracefs iommu: events)
 *                          -> unattributed: not k1#2 issue, not memcpy run,
 *                             and cuLaunchKernel#2 is no call that mapped
 *   irq @1500              -> k1#1 run and k2 run (overlapping windows)
 *   dma map_page 4 KiB @2600 -> memcpy issue; also inside cuMemcpyHtoD
 *   swiotlb 512 B @3500    -> memcpy run
 *   irq @6500, wakeup @6900 -> k1#2 return (6000, 7000]
 *   irq @8000              -> outside every window
 */
#include <string.h>
#include <unistd.h>

#include "attribute.h"
#include "synth.h"
#include "testlib.h"
#include "tests.h"
#include "util.h"

#define T0	1000000000ull

static void put_app(struct trace_writer *w, uint8_t api, uint16_t type, const char *name,
		    uint64_t corr, uint32_t stream, uint64_t start, uint64_t end, uint64_t bytes,
		    uint32_t kind, uint32_t flags)
{
	struct tracefile_rec_app r = {
		.hdr = { .type = TRACEFILE_REC_APP, .size = sizeof(r), .ts_ns = T0 + start },
		.ev = { .magic = GPUPROBE_APP_MAGIC, .version = GPUPROBE_APP_VERSION, .api = api,
			.size = sizeof(r.ev), .type = type, .kind = kind, .flags = flags,
			.pid = 42, .tid = type >= GPUPROBE_APP_SYNC ? 42 : 0, .stream = stream,
			.correlation = corr, .start_ns = T0 + start, .end_ns = T0 + end,
			.bytes = bytes },
	};

	copy_string(r.ev.name, sizeof(r.ev.name), name);
	trace_writer_put(w, &r.hdr);
}

static void put_kernel_events(struct trace_writer *w)
{
	struct gpuprobe_rec_irq irq;
	struct gpuprobe_rec_dma dma;
	struct gpuprobe_rec_iommu io;
	struct gpuprobe_rec_swiotlb sw = {
		.hdr = { .type = GPUPROBE_EV_SWIOTLB, .size = sizeof(sw), .ts_ns = T0 + 3500 },
		.bdf = SYNTH_GPU_BDF, .dir = 3, .bytes = 512,
	};
	struct gpuprobe_rec_sched wake = {
		.hdr = { .type = GPUPROBE_EV_WAKEUP, .size = sizeof(wake), .ts_ns = T0 + 6900 },
		.pid = 42,
	};

	synth_iommu(&io, T0 + 550, SYNTH_GPU_BDF, GPUPROBE_IOMMU_MAP, 8192, 0);
	trace_writer_put(w, &io.hdr);
	synth_iommu(&io, T0 + 4850, GPUPROBE_BDF_NONE, GPUPROBE_IOMMU_MAP, 4096, 0);
	trace_writer_put(w, &io.hdr);
	synth_iommu(&io, T0 + 3200, GPUPROBE_BDF_NONE, GPUPROBE_IOMMU_UNMAP, 4096, 0);
	trace_writer_put(w, &io.hdr);
	synth_irq(&irq, T0 + 1500, 0, 0, 700, true);
	trace_writer_put(w, &irq.hdr);
	synth_dma(&dma, T0 + 2600, GPUPROBE_DMA_MAP_PAGE, 4096, 1, 300);
	trace_writer_put(w, &dma.hdr);
	trace_writer_put(w, &sw.hdr);
	synth_irq(&irq, T0 + 6500, 1, 0, 900, true);
	trace_writer_put(w, &irq.hdr);
	trace_writer_put(w, &wake.hdr);
	synth_irq(&irq, T0 + 8000, 0, 0, 100, true);
	trace_writer_put(w, &irq.hdr);
}

static int write_timeline(const char *path)
{
	struct trace_writer w;
	struct trace_info info;

	synth_info(&info);
	if (trace_writer_open(&w, path, &info))
		return -1;
	put_kernel_events(&w);
	/* application records come last, as record merges them */
	put_app(&w, GPUPROBE_APP_CUDA, GPUPROBE_APP_API, "cuLaunchKernel", 1, 0, 500, 600, 0, 0, 0);
	put_app(&w, GPUPROBE_APP_CUDA, GPUPROBE_APP_KERNEL, "k1", 1, 7, 1000, 2000, 0, 0, 0);
	put_app(&w, GPUPROBE_APP_CUDA, GPUPROBE_APP_KERNEL, "k2", 4, 8, 1200, 1800, 0, 0, 0);
	put_app(&w, GPUPROBE_APP_CUDA, GPUPROBE_APP_API, "cuMemcpyHtoD_v2", 2, 0, 2500, 4500, 0, 0,
		GPUPROBE_APPF_BLOCKING);
	put_app(&w, GPUPROBE_APP_CUDA, GPUPROBE_APP_MEMCPY, "memcpy", 2, 7, 3000, 4000, 1 << 20,
		GPUPROBE_COPY_HTOD, GPUPROBE_APPF_PINNED);
	put_app(&w, GPUPROBE_APP_CUDA, GPUPROBE_APP_API, "cuLaunchKernel", 3, 0, 4800, 4900, 0, 0, 0);
	put_app(&w, GPUPROBE_APP_CUDA, GPUPROBE_APP_KERNEL, "k1", 3, 7, 5000, 6000, 0, 0, 0);
	put_app(&w, GPUPROBE_APP_CUDA, GPUPROBE_APP_SYNC, "stream_synchronize", 5, 7, 5500, 7000, 0,
		GPUPROBE_SYNC_STREAM, GPUPROBE_APPF_BLOCKING);
	put_app(&w, GPUPROBE_APP_CUDA, GPUPROBE_APP_NOTE, "a note", 0, 0, 0, 0, 0, 0, 0);
	return trace_writer_finish(&w, T0 + 10000, 0);
}

static const struct attr_name *find_name(const struct attribution *at, const char *name)
{
	for (size_t i = 0; i < at->nnames; i++)
		if (!strcmp(at->names[i].name, name))
			return &at->names[i];
	return NULL;
}

static void check_ops(const struct attribution *at)
{
	const struct attr_op *k1 = &at->ops[0], *k2 = &at->ops[1], *m = &at->ops[2];
	const struct attr_op *k1b = &at->ops[3];

	CHECK(!strcmp(k1->ev.name, "k1") && !strcmp(k2->ev.name, "k2") &&
	      !strcmp(m->ev.name, "memcpy") && !strcmp(k1b->ev.name, "k1"), "ops in device order");
	CHECK_EQ_U64(k1->issue_ns, T0 + 500);		/* by correlation */
	CHECK_EQ_U64(k2->issue_ns, 0);			/* no call known */
	CHECK_EQ_U64(k1->detail->phase[ATTR_ISSUE].iommu_maps, 1);
	CHECK_EQ_U64(k1->detail->phase[ATTR_ISSUE].iommu_map_bytes, 8192);
	CHECK_EQ_U64(k1->detail->phase[ATTR_RUN].irqs, 1);
	CHECK_EQ_U64(k1->detail->phase[ATTR_RUN].irq_ns, 700);
	CHECK_EQ_U64(k2->detail->phase[ATTR_RUN].irqs, 1);	/* the same irq: overlapping windows */
	CHECK_EQ_U64(k1->return_ns, 0);			/* nobody waited for it */
	CHECK_EQ_U64(m->detail->phase[ATTR_ISSUE].dma_maps, 1);
	CHECK_EQ_U64(m->detail->phase[ATTR_ISSUE].dma_map_bytes, 4096);
	CHECK_EQ_U64(m->detail->phase[ATTR_RUN].swiotlb, 1);
	CHECK_EQ_U64(m->detail->phase[ATTR_RUN].swiotlb_bytes, 512);
	CHECK_EQ_U64(m->return_ns, T0 + 4500);		/* its blocking memcpy call */
	CHECK_EQ_U64(m->detail->phase[ATTR_RETURN].irqs, 0);
	CHECK_EQ_U64(k1b->return_ns, T0 + 7000);		/* the stream synchronize */
	CHECK_EQ_U64(k1b->detail->phase[ATTR_RETURN].irqs, 1);
	CHECK_EQ_U64(k1b->detail->phase[ATTR_RETURN].irq_ns, 900);
	CHECK_EQ_U64(k1b->detail->phase[ATTR_RETURN].wakeups, 1);
	CHECK_EQ_U64(k1b->detail->phase[ATTR_RUN].irqs + k1b->detail->phase[ATTR_ISSUE].irqs, 0);
	CHECK_EQ_U64(k1b->detail->phase[ATTR_ISSUE].iommu_maps, 0);	/* no device: nobody's */
	CHECK_EQ_U64(m->detail->phase[ATTR_RUN].iommu_unmaps, 0);
}

static void check_totals(const struct attribution *at)
{
	const struct attr_name *k1 = find_name(at, "k1"), *k2 = find_name(at, "k2");
	const struct attr_summary *s = &at->sum;

	CHECK_EQ_U64(at->app_events, 9);
	CHECK_EQ_U64(at->nops, 4);
	CHECK_EQ_U64(at->api_events, 3);
	CHECK_EQ_U64(at->sync_events, 1);
	CHECK_EQ_U64(at->syncs_by_kind[GPUPROBE_SYNC_STREAM], 1);
	CHECK_EQ_U64(at->sync_ns_by_kind[GPUPROBE_SYNC_STREAM], 1500);
	CHECK_EQ_U64(at->syncs_by_kind[GPUPROBE_SYNC_DEVICE] + at->syncs_by_kind[GPUPROBE_SYNC_EVENT] +
		     at->syncs_by_kind[GPUPROBE_SYNC_STREAM_WAIT] + at->syncs_by_kind[GPUPROBE_SYNC_OTHER], 0);
	CHECK_EQ_U64(at->nnotes, 1);
	CHECK_EQ_U64(at->kernel_events, 6);		/* the irq at 8000 is outside */
	CHECK_EQ_U64(at->nnames, 3);
	CHECK(k1 && k2, "names k1 and k2");
	if (!k1 || !k2)
		return;
	CHECK(!strcmp(at->names[0].name, "k1"), "largest device time first");
	CHECK_EQ_U64(k1->count, 2);
	CHECK_EQ_U64(k1->device_ns, 2000);
	CHECK_EQ_U64(k1->return_ns, 1000);
	CHECK_EQ_U64(k1->phase[ATTR_RUN].irqs, 1);
	CHECK_EQ_U64(k1->phase[ATTR_RETURN].irqs, 1);
	CHECK_EQ_U64(k1->phase[ATTR_ISSUE].iommu_maps, 1);
	CHECK_EQ_U64(s->wall_ns, 10000);
	CHECK_EQ_U64(s->device_ns, 3600);
	CHECK_EQ_U64(s->waits, 2);
	CHECK_EQ_U64(s->return_wait_ns, 1500);		/* 500 (memcpy) + 1000 (k1#2) */
	CHECK_EQ_U64(s->irq_waits, 1);
	CHECK_EQ_U64(s->irq_wait_ns, 1000);
	CHECK_EQ_U64(s->map_call_ns, 300);
	CHECK_EQ_U64(s->api_calls_with_maps, 2);	/* cuLaunchKernel (iommu), cuMemcpy (dma) */
	CHECK_EQ_U64(s->api_ns_with_maps, 2100);
	CHECK_EQ_U64(at->unattributed.iommu_maps, 1);
	CHECK_EQ_U64(at->unattributed.iommu_map_bytes, 4096);
	CHECK_EQ_U64(at->unattributed.iommu_unmaps, 1);
}

void test_attribution_known_timeline(void)
{
	const char *path = test_tmp_path("attr");
	struct attribution *at;
	char err[512];

	CHECK(!write_timeline(path), "write the timeline");
	at = attribute_file(path, err, sizeof(err));
	CHECK(at, "attribute_file: %s", err);
	if (at && at->nops == 4) {
		check_ops(at);
		check_totals(at);
	} else if (at) {
		CHECK_EQ_U64(at->nops, 4);
	}
	attribution_free(at);
	unlink(path);
}

/* A trace without application records gives no attribution and no error. */
void test_attribution_absent(void)
{
	const char *path = test_tmp_path("noattr");
	struct attribution *at;
	char err[512] = "x";

	CHECK(!synth_write_known(path), "write the known trace");
	at = attribute_file(path, err, sizeof(err));
	CHECK(!at && !err[0], "no attribution, no error");
	attribution_free(at);
	unlink(path);
}
