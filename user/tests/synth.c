// SPDX-License-Identifier: GPL-2.0
/* Synthetic traces for tests and the benchmark. */
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "synth.h"
#include "util.h"

void synth_info(struct trace_info *info)
{
	struct target *t = &info->targets.t[0];

	memset(info, 0, sizeof(*info));
	info->format_version = TRACEFILE_VERSION;
	info->record_version = GPUPROBE_RECORD_VERSION;
	info->clock_id = 1;	/* CLOCK_MONOTONIC */
	info->source = TRACE_SOURCE_SYNTHETIC;
	info->start_ns = 1000000000ull;
	info->start_realtime_ns = 1767225600000000000ull;
	copy_string(info->host, sizeof(info->host), "synthetic-host");
	copy_string(info->kernel_release, sizeof(info->kernel_release), "6.1.0-synthetic");
	copy_string(info->tool_version, sizeof(info->tool_version), "test");
	info->targets.count = 1;
	t->bdf = SYNTH_GPU_BDF;
	t->vendor = 0x10de;
	t->device = 0x2335;
	t->class = 0x030200;
	bdf_format(t->bdf, t->name);
	copy_string(t->driver, sizeof(t->driver), "nvidia");
	t->nvec = SYNTH_NVEC;
	for (uint32_t i = 0; i < SYNTH_NVEC; i++)
		t->vec[i] = (struct target_vector){ i, SYNTH_IRQ_BASE + i, VECTOR_MSIX };
}

void synth_irq(struct gpuprobe_rec_irq *r, uint64_t ts, uint16_t cpu, uint32_t vector,
	       uint64_t duration, bool handled)
{
	*r = (struct gpuprobe_rec_irq){
		.hdr = { .type = GPUPROBE_EV_IRQ, .size = sizeof(*r), .cpu = cpu,
			 .flags = handled ? GPUPROBE_IRQ_HANDLED : 0, .ts_ns = ts },
		.bdf = SYNTH_GPU_BDF, .irq = SYNTH_IRQ_BASE + vector, .vector = vector,
		.duration_ns = duration,
	};
}

void synth_dma(struct gpuprobe_rec_dma *r, uint64_t ts, uint16_t op, uint64_t bytes,
	       uint32_t nents, uint64_t duration)
{
	*r = (struct gpuprobe_rec_dma){
		.hdr = { .type = GPUPROBE_EV_DMA, .size = sizeof(*r), .ts_ns = ts },
		.bdf = SYNTH_GPU_BDF, .op = op, .bytes = bytes, .nents = nents,
		.dma_addr = 0x100000000ull, .duration_ns = duration,
	};
}

void synth_iommu(struct gpuprobe_rec_iommu *r, uint64_t ts, uint32_t bdf, uint32_t op,
		 uint64_t size, uint64_t duration)
{
	*r = (struct gpuprobe_rec_iommu){
		.hdr = { .type = GPUPROBE_EV_IOMMU, .size = sizeof(*r), .ts_ns = ts },
		.bdf = bdf, .op = op, .iova = 0xfff00000ull, .paddr = 0x2000000ull,
		.size = size, .duration_ns = duration,
	};
}

void synth_irq_count(struct tracefile_rec_irq_count *r, uint64_t ts, uint32_t irq,
		     uint32_t phase, uint64_t count)
{
	*r = (struct tracefile_rec_irq_count){
		.hdr = { .type = TRACEFILE_REC_IRQ_COUNT, .size = sizeof(*r), .ts_ns = ts },
		.bdf = SYNTH_GPU_BDF, .irq = irq, .phase = phase, .count = count,
	};
}

static int put_irqs(struct trace_writer *w)
{
	struct gpuprobe_rec_irq r;
	int err = 0;

	/* vector 0: durations 1..1000 ns, all handled, inside the count window */
	for (uint64_t i = 0; i < 1000; i++) {
		synth_irq(&r, 1000001000ull + i * 1000, (uint16_t)(i % 2), 0, i + 1, true);
		err |= trace_writer_put(w, &r.hdr);
	}
	/* vector 1: 10 in the window (5 handled), one before it, one after it */
	for (uint64_t i = 0; i < 10; i++) {
		synth_irq(&r, 1000500000ull + i, 0, 1, 5000, i % 2 == 0);
		err |= trace_writer_put(w, &r.hdr);
	}
	synth_irq(&r, 1000000050ull, 1, 1, 5000, false);
	err |= trace_writer_put(w, &r.hdr);
	return err;
}

static int put_dma_iommu(struct trace_writer *w)
{
	struct gpuprobe_rec_iommu io;
	struct gpuprobe_rec_dma d;
	int err = 0;

	for (int i = 0; i < 7; i++) {
		synth_dma(&d, 1001000000ull + i, GPUPROBE_DMA_MAP_SG, 12288, 3, 2000);
		err |= trace_writer_put(w, &d.hdr);
		synth_dma(&d, 1001100000ull + i, GPUPROBE_DMA_UNMAP_SG, 12288, 3, 1000);
		err |= trace_writer_put(w, &d.hdr);
	}
	synth_dma(&d, 1001200000ull, GPUPROBE_DMA_MAP_PAGE, 4096, 1, 500);
	err |= trace_writer_put(w, &d.hdr);
	for (int i = 0; i < 4; i++) {
		synth_iommu(&io, 1001300000ull + i, SYNTH_GPU_BDF, GPUPROBE_IOMMU_MAP, 8192, 100);
		err |= trace_writer_put(w, &io.hdr);
		synth_iommu(&io, 1001400000ull + i, SYNTH_GPU_BDF, GPUPROBE_IOMMU_UNMAP, 8192, 50);
		err |= trace_writer_put(w, &io.hdr);
	}
	synth_iommu(&io, 1001500000ull, SYNTH_GPU_BDF, GPUPROBE_IOMMU_FAULT, 0, 0);
	err |= trace_writer_put(w, &io.hdr);
	for (int i = 0; i < 2; i++) {
		synth_iommu(&io, 1001600000ull + i, GPUPROBE_BDF_NONE, GPUPROBE_IOMMU_MAP, 4096, 80);
		err |= trace_writer_put(w, &io.hdr);
	}
	return err;
}

static int put_misc(struct trace_writer *w)
{
	struct gpuprobe_rec_swiotlb sw = {
		.hdr = { .type = GPUPROBE_EV_SWIOTLB, .size = sizeof(sw), .ts_ns = 1001700000ull },
		.bdf = SYNTH_GPU_BDF, .dir = 1, .bytes = 512,
	};
	struct gpuprobe_rec_lost lost = {
		.hdr = { .type = GPUPROBE_EV_LOST, .size = sizeof(lost), .ts_ns = 1001800000ull },
	};
	struct gpuprobe_rec_sched s = {
		.hdr = { .size = sizeof(s), .ts_ns = 1001900000ull }, .pid = 4242, .tgid = 4242,
	};
	struct gpuprobe_rec_target t = {
		.hdr = { .type = GPUPROBE_EV_TARGET, .size = sizeof(t), .ts_ns = 1000000010ull },
		.bdf = SYNTH_GPU_BDF, .event = GPUPROBE_TARGET_ADDED, .nvec = SYNTH_NVEC,
	};
	uint64_t unknown[3] = { 0 };
	struct gpuprobe_rec_hdr uh = { .type = 0x7777, .size = 24, .ts_ns = 1001950000ull };
	int err = 0;

	for (int i = 0; i < 2; i++)
		err |= trace_writer_put(w, &sw.hdr);
	lost.count = 3;
	err |= trace_writer_put(w, &lost.hdr);
	lost.count = 4;
	err |= trace_writer_put(w, &lost.hdr);
	s.hdr.type = GPUPROBE_EV_WAKEUP;
	for (int i = 0; i < 5; i++)
		err |= trace_writer_put(w, &s.hdr);
	s.hdr.type = GPUPROBE_EV_SWITCH;
	for (int i = 0; i < 6; i++)
		err |= trace_writer_put(w, &s.hdr);
	err |= trace_writer_put(w, &t.hdr);
	memcpy(unknown, &uh, sizeof(uh));
	err |= trace_writer_put(w, (const struct gpuprobe_rec_hdr *)unknown);
	return err;
}

static int synth_level;			/* 0: version 1 */
static uint64_t synth_flush_every;	/* records per chunk at most (0: as big as fits) */
static uint32_t synth_chunk_version = TRACEFILE_VERSION;

void synth_set_compression(int level, uint64_t flush_every)
{
	synth_level = level;
	synth_flush_every = flush_every;
}

void synth_set_chunk_version(uint32_t version)
{
	synth_chunk_version = version;
}

int synth_open(struct trace_writer *w, const char *path, const struct trace_info *info)
{
	if (trace_writer_create(w, path))
		return -1;
	if (trace_writer_compress_version(w, synth_level, synth_chunk_version) ||
	    trace_writer_header(w, info)) {
		trace_writer_abort(w);
		return -1;
	}
	return 0;
}

/* Like the recorder's flush every 100 ms: chunk boundaries for the tests. */
static int synth_tick(struct trace_writer *w)
{
	if (synth_flush_every && w->records % synth_flush_every == 0)
		return trace_writer_flush(w);
	return 0;
}

int synth_write_known(const char *path)
{
	static struct trace_info info;
	struct tracefile_rec_irq_count c;
	struct gpuprobe_rec_irq late;
	struct trace_writer w;
	int err = 0;

	synth_info(&info);
	if (synth_open(&w, path, &info))
		return -1;
	synth_irq_count(&c, 1000000100ull, 100, IRQ_COUNT_START, 5000);
	err |= trace_writer_put(&w, &c.hdr);
	synth_irq_count(&c, 1000000100ull, 101, IRQ_COUNT_START, 70);
	err |= trace_writer_put(&w, &c.hdr);
	err |= put_irqs(&w) | put_dma_iommu(&w) | put_misc(&w);
	synth_irq_count(&c, 1002000000ull, 100, IRQ_COUNT_STOP, 6000);
	err |= trace_writer_put(&w, &c.hdr);
	synth_irq_count(&c, 1002000000ull, 101, IRQ_COUNT_STOP, 80);
	err |= trace_writer_put(&w, &c.hdr);
	synth_irq(&late, 1002000500ull, 0, 1, 5000, false);
	err |= trace_writer_put(&w, &late.hdr);
	err |= trace_writer_finish(&w, 1003000000ull, 0);
	return err ? -1 : 0;
}

int synth_write_fields(const char *path, unsigned int ntargets, bool big)
{
	static struct trace_info info;
	struct synth_recs s;
	struct trace_writer w;
	int err = 0;

	synth_fields_info(&info, ntargets);
	if (synth_fields_build(&s, big) || synth_open(&w, path, &info)) {
		synth_recs_free(&s);
		return -1;
	}
	for (size_t off = 0; off < s.len && !err; ) {
		const struct gpuprobe_rec_hdr *h = (const void *)(s.buf + off);

		err |= trace_writer_put(&w, h) | synth_tick(&w);
		off += h->size;
	}
	synth_recs_free(&s);
	err |= trace_writer_finish(&w, SYNTH_FIELDS_STOP_NS, SYNTH_FIELDS_EXIT);
	return err ? -1 : 0;
}

static uint32_t xorshift32(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

static int put_mixed_record(struct trace_writer *w, uint64_t ts, uint32_t *rng)
{
	uint32_t r = xorshift32(rng), pick = r % 100;
	struct gpuprobe_rec_iommu io;
	struct gpuprobe_rec_dma d;
	struct gpuprobe_rec_irq q;

	if (pick < 90) {
		synth_irq(&q, ts, (uint16_t)(r >> 8 & 1), (r >> 9) % SYNTH_NVEC,
			  800 + (xorshift32(rng) % 16384), true);
		return trace_writer_put(w, &q.hdr);
	}
	if (pick < 96) {
		synth_dma(&d, ts, (uint16_t)(GPUPROBE_DMA_MAP_SG + (r >> 8 & 1)),
			  4096ull << (r >> 10 & 7), 1 + (r >> 13 & 15), 500 + (r >> 17 & 4095));
		return trace_writer_put(w, &d.hdr);
	}
	synth_iommu(&io, ts, SYNTH_GPU_BDF, GPUPROBE_IOMMU_MAP + (r >> 8 & 1), 4096, 100 + (r >> 9 & 511));
	return trace_writer_put(w, &io.hdr);
}

int synth_write_mix(const char *path, uint64_t n, uint32_t seed)
{
	static struct trace_info info;
	struct trace_writer w;
	uint32_t rng = seed ? seed : 1;
	uint64_t ts = 1000000000ull;
	int err = 0;

	synth_info(&info);
	info.app_events = TRACEFILE_APP_NONE;	/* kernel records only */
	if (synth_open(&w, path, &info))
		return -1;
	for (uint64_t i = 0; i < n && !err; i++) {
		ts += 1 + xorshift32(&rng) % 20000;
		err |= put_mixed_record(&w, ts, &rng) | synth_tick(&w);
	}
	err |= trace_writer_finish(&w, ts + 1, 0);
	return err ? -1 : 0;
}

static int put_app_event(struct trace_writer *w, uint16_t type, const char *name, uint64_t corr,
			 uint64_t start, uint64_t end, uint32_t flags, uint32_t kind)
{
	struct tracefile_rec_app r = {
		.hdr = { .type = TRACEFILE_REC_APP, .size = sizeof(r), .ts_ns = start },
		.ev = { .magic = GPUPROBE_APP_MAGIC, .version = GPUPROBE_APP_VERSION,
			.api = GPUPROBE_APP_CUDA, .size = sizeof(r.ev), .type = type, .kind = kind,
			.flags = flags, .pid = 4242, .tid = type == GPUPROBE_APP_API ? 4242 : 0,
			.stream = type == GPUPROBE_APP_API ? 0 : 7, .correlation = corr,
			.start_ns = start, .end_ns = end },
	};

	copy_string(r.ev.name, sizeof(r.ev.name), name);
	return trace_writer_put(w, &r.hdr);
}

/*
 * nkernel records as synth_write_mix() (about 10 us apart), then napp CUDA
 * events over the same time as CUPTI's library leaves them: a DEVICE record
 * naming the target, and pairs of a cuLaunchKernel call and its kernel (one
 * of 64 names), evenly spread.
 */
int synth_write_app(const char *path, uint64_t nkernel, uint64_t napp, uint32_t seed)
{
	static struct trace_info info;
	struct trace_writer w;
	uint32_t rng = seed ? seed : 1;
	uint64_t ts = 1000000000ull, step;
	char name[32];
	int err = 0;

	synth_info(&info);
	info.app_events = TRACEFILE_APP_EXPECTED;
	if (synth_open(&w, path, &info))
		return -1;
	for (uint64_t i = 0; i < nkernel && !err; i++) {
		ts += 1 + xorshift32(&rng) % 20000;
		err |= put_mixed_record(&w, ts, &rng) | synth_tick(&w);
	}
	err |= put_app_event(&w, GPUPROBE_APP_DEVICE, "H200", 0, 1000000000ull, 1000000000ull,
			     1 << 5, SYNTH_GPU_BDF);
	step = napp > 1 ? (ts - 1000000000ull) / (napp / 2 + 1) : 1;
	for (uint64_t i = 0; i + 1 < napp && !err; i += 2) {
		uint64_t t = 1000000000ull + (i / 2) * step, dur = step / 4 + xorshift32(&rng) % (step / 2 + 1);

		snprintf(name, sizeof(name), "kernel_%u", (unsigned int)(xorshift32(&rng) % 64));
		err |= put_app_event(&w, GPUPROBE_APP_API, "cuLaunchKernel", i / 2 + 1, t, t + 2000, 0, 0);
		err |= put_app_event(&w, GPUPROBE_APP_KERNEL, name, i / 2 + 1, t + 3000, t + 3000 + dur, 0, 0);
		err |= synth_tick(&w);
	}
	err |= trace_writer_finish(&w, ts + 1, 0);
	return err ? -1 : 0;
}

char *test_report(const char *path, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int err;

	if (!out)
		return NULL;
	err = report_file(path, json, out);
	fclose(out);
	if (err) {
		fprintf(stderr, "    report %s%s failed\n", json ? "--json " : "", path);
		free(buf);
		return NULL;
	}
	return buf;
}

static int put_flow_app(struct trace_writer *w, uint16_t type, uint32_t tid, uint32_t stream,
			uint64_t start, uint64_t end, const char *name)
{
	struct tracefile_rec_app r = {
		.hdr = { .type = TRACEFILE_REC_APP, .size = sizeof(r), .ts_ns = start },
		.ev = { .magic = GPUPROBE_APP_MAGIC, .version = GPUPROBE_APP_VERSION,
			.api = GPUPROBE_APP_CUDA, .size = sizeof(r.ev), .type = type,
			.pid = SYNTH_FLOW_TID, .tid = tid, .stream = stream,
			.start_ns = start, .end_ns = end },
	};

	copy_string(r.ev.name, sizeof(r.ev.name), name);
	return trace_writer_put(w, &r.hdr);
}

/*
 * The Perfetto export's trace (tests/perfetto_proto.sh): three interrupts on
 * CPU 0 each followed 5 us after its handler's end by a wake-up of
 * SYNTH_FLOW_TID, the first two inside that thread's waits (flows irq ->
 * wake-up -> wait), the third outside any (the flow ends at the wake-up); a
 * fourth interrupt nobody wakes after; two overlapping DMA calls (two
 * lanes); a mangled kernel on stream 7 and an API call.
 */
int synth_write_flows(const char *path)
{
	return synth_write_flows_n(path, 4);
}

/*
 * n rounds of 1 ms: an interrupt each, a wake-up of the waiting thread 5 us
 * after each handler but the last round's, a sync call around the first n / 2
 * (n = 4: the trace the flow tests know).
 */
int synth_write_flows_n(const char *path, unsigned int n)
{
	static struct trace_info info;
	const uint64_t t0 = 1000000000ull;
	struct gpuprobe_rec_dma d;
	struct gpuprobe_rec_irq q;
	struct trace_writer w;
	int err = 0;

	synth_info(&info);
	if (trace_writer_open(&w, path, &info))
		return -1;
	for (unsigned int k = 0; k < n; k++) {
		uint64_t ts = t0 + 1000000ull * (uint64_t)(k + 1);
		struct gpuprobe_rec_sched s = {
			.hdr = { .type = GPUPROBE_EV_WAKEUP, .size = sizeof(s), .cpu = 0,
				 .ts_ns = ts + 2000 + 5000 },
			.pid = SYNTH_FLOW_TID, .tgid = SYNTH_FLOW_TID, .target_cpu = 1,
		};

		synth_irq(&q, ts, 0, 0, 2000, true);
		err |= trace_writer_put(&w, &q.hdr);
		if (k + 1 < n)
			err |= trace_writer_put(&w, &s.hdr);
	}
	synth_dma(&d, t0 + 100000, GPUPROBE_DMA_MAP_SG, 1 << 20, 16, 50000);
	err |= trace_writer_put(&w, &d.hdr);
	synth_dma(&d, t0 + 120000, GPUPROBE_DMA_MAP_SG, 4096, 1, 10000);
	err |= trace_writer_put(&w, &d.hdr);
	synth_dma(&d, t0 + 200000, GPUPROBE_DMA_UNMAP_SG, 1 << 20, 16, 8000);
	err |= trace_writer_put(&w, &d.hdr);
	err |= put_flow_app(&w, GPUPROBE_APP_KERNEL, 0, 7, t0 + 500000, t0 + 990000,
			    SYNTH_FLOW_KERNEL);
	err |= put_flow_app(&w, GPUPROBE_APP_API, SYNTH_FLOW_TID, 0, t0 + 400000, t0 + 410000,
			    "cuLaunchKernel");
	for (unsigned int k = 0; k < n / 2; k++) {
		uint64_t ts = t0 + 1000000ull * (uint64_t)(k + 1);

		err |= put_flow_app(&w, GPUPROBE_APP_SYNC, SYNTH_FLOW_TID, 0, ts - 100000,
				    ts + 30000, "cuStreamSynchronize");
	}
	err |= trace_writer_finish(&w, t0 + 1000000ull * (n + 2), 0);
	return err ? -1 : 0;
}
