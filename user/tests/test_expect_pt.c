// SPDX-License-Identifier: GPL-2.0
/*
 * Hand-worked cases (test_expect.c says how they are chosen): the pairing
 * of KVM injections with guest interrupts by rank, and IOMMU maps naming no
 * device when two GPUs are traced, injections paired with their own irq.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attribute.h"
#include "passthrough.h"
#include "synth.h"
#include "testlib.h"
#include "tests.h"
#include "util.h"

/* ---- rank pairing ---- */

#define RANK_IRQ	50
#define RANK_VECTOR	0x41

static void put_event(struct pt_array *a, uint64_t ts, uint32_t irq, uint32_t cpu,
		      uint32_t vector)
{
	struct pt_event *e = realloc(a->e, (a->n + 1) * sizeof(*e));

	CHECK(e != NULL, "realloc");
	if (!e)
		return;
	a->e = e;
	a->e[a->n++] = (struct pt_event){ .ts = ts, .raw = ts, .duration = 5, .irq = irq,
					  .cpu = cpu, .pair = -1, .next = -1, .vector = vector };
	a->cap = a->n;
}

/*
 * Guest clock = host clock, bound 1000 ns.  Host interrupts at 100, 200,
 * 300, each injected 10 ns later (110, 210, 310); guest interrupts at 250
 * (vCPU 0), 260 (vCPU guest1_cpu), 400 (vCPU 0).  As many injections as
 * guest interrupts and none after its guest one beyond the bound: by rank
 * (allowed only on one vCPU and one vector) the pairs are 110-250,
 * 210-260, 310-400, all three.  By the clock: 250's latest injection is
 * 210; 260's latest, 210, is taken, the next, 310, is within the bound;
 * 400's latest, 310, is taken and none follows: 2 paired, the host
 * interrupt at 100 and the guest one at 400 unpaired.
 */
/* A passthrough analysis whose guest clock is the host's, within bound_ns. */
static struct passthrough *same_clock(uint64_t bound_ns)
{
	struct passthrough *pt = passthrough_new();
	struct clock_point p = { .host_ns = 0, .guest_ns = 0, .offset_ns = 0, .error_ns = bound_ns };

	CHECK(pt != NULL, "passthrough_new");
	if (!pt)
		return NULL;
	pt->merged = true;
	clock_fit_add(&pt->fit, &p);
	p.host_ns = p.guest_ns = 1000000;
	clock_fit_add(&pt->fit, &p);
	clock_fit_solve(&pt->fit);
	pt->have_fit = true;
	return pt;
}

static struct passthrough *rank_case(uint32_t guest1_cpu, unsigned int vectors)
{
	struct passthrough *pt = same_clock(1000);
	const uint64_t guest[3] = { 250, 260, 400 };

	if (!pt)
		return NULL;
	for (unsigned int i = 0; i < vectors; i++)
		pt->target_vectors[pt->ntarget_vectors++] = RANK_VECTOR + i;
	for (unsigned int i = 0; i < 3; i++) {
		put_event(&pt->host_irq, 100 * (i + 1), RANK_IRQ, 0, 0);
		put_event(&pt->inject, 100 * (i + 1) + 10, RANK_IRQ, 1, RANK_VECTOR);
		put_event(&pt->guest_irq, guest[i], 0, i == 1 ? guest1_cpu : 0, 0);
	}
	passthrough_pair_irqs(pt);
	CHECK_EQ_U64(pt->fit.error_ns, 1000);
	return pt;
}

void test_rank_pairing_one_vcpu(void)
{
	struct passthrough *pt = rank_case(0, 1);

	if (!pt)
		return;
	CHECK(pt->paired_in_order, "one vCPU, one vector: paired by rank");
	CHECK_EQ_U64(pt->irq_paired, 3);
	if (pt->irq_paired == 3 && pt->pairs) {
		CHECK_EQ_U64(pt->pairs[0].inject_ts, 110);
		CHECK_EQ_U64(pt->pairs[0].guest_ts, 250);
		CHECK_EQ_U64(pt->pairs[2].host_ts, 300);
		CHECK_EQ_U64(pt->pairs[2].guest_ts, 400);
	}
	passthrough_free(pt);
}

static void check_by_clock(struct passthrough *pt)
{
	CHECK(!pt->paired_in_order, "paired by rank");
	CHECK_EQ_U64(pt->irq_paired, 2);
	CHECK_EQ_U64(pt->irq_unpaired_host, 1);
	CHECK_EQ_U64(pt->irq_unpaired_guest, 1);
	CHECK_EQ_U64(pt->order_violations, 0);
	if (pt->irq_paired == 2 && pt->pairs) {
		CHECK_EQ_U64(pt->pairs[0].host_ts, 200);
		CHECK_EQ_U64(pt->pairs[0].inject_ts, 210);
		CHECK_EQ_U64(pt->pairs[0].guest_ts, 250);
		CHECK_EQ_U64(pt->pairs[1].host_ts, 300);
		CHECK_EQ_U64(pt->pairs[1].guest_ts, 260);
	}
}

/* Handlers on two vCPUs may start in another order than their injections. */
void test_rank_pairing_two_vcpus(void)
{
	struct passthrough *pt = rank_case(1, 1);

	if (!pt)
		return;
	check_by_clock(pt);
	passthrough_free(pt);
}

/* Two target vectors: one rank sequence no longer means one order of delivery. */
void test_rank_pairing_two_vectors(void)
{
	struct passthrough *pt = rank_case(0, 2);

	if (!pt)
		return;
	check_by_clock(pt);
	passthrough_free(pt);
}

/*
 * An injection names its host irq: the host interrupt it came from is the
 * latest of that irq before it, not the latest of any.  Bound 5 ns.  Host
 * irq 50 at 100, irq 51 at 150; injections of irq 50 at 160 and of irq 51
 * at 170 (vectors 0x41, 0x42: not by rank); guest interrupts at 165 and
 * 200.  165's latest injection is 160 (irq 50's, from 100); 200's is 170
 * (from 150): two pairs, 60 and 20 ns from host handler to injection.
 */
void test_injection_names_its_irq(void)
{
	struct passthrough *pt = same_clock(5);

	if (!pt)
		return;
	pt->target_vectors[pt->ntarget_vectors++] = RANK_VECTOR;
	pt->target_vectors[pt->ntarget_vectors++] = RANK_VECTOR + 1;
	put_event(&pt->host_irq, 100, RANK_IRQ, 0, 0);
	put_event(&pt->host_irq, 150, RANK_IRQ + 1, 0, 0);
	put_event(&pt->inject, 160, RANK_IRQ, 1, RANK_VECTOR);
	put_event(&pt->inject, 170, RANK_IRQ + 1, 1, RANK_VECTOR + 1);
	put_event(&pt->guest_irq, 165, 0, 0, 0);
	put_event(&pt->guest_irq, 200, 0, 0, 0);
	passthrough_pair_irqs(pt);
	CHECK(!pt->paired_in_order, "two vectors: not by rank");
	CHECK_EQ_U64(pt->irq_paired, 2);
	if (pt->irq_paired == 2 && pt->pairs) {
		CHECK_EQ_U64(pt->pairs[0].host_ts, 100);
		CHECK_EQ_U64(pt->pairs[0].inject_ts, 160);
		CHECK_EQ_U64(pt->pairs[1].host_ts, 150);
		CHECK_EQ_U64(pt->pairs[1].inject_ts, 170);
	}
	CHECK_EQ_U64(pt->host_to_inject_ns.min, 20);
	CHECK_EQ_U64(pt->host_to_inject_ns.max, 60);
	passthrough_free(pt);
}

/* ---- IOMMU maps of no device, two GPUs ---- */

#define T0	3000000000ull
#define GPU_A	SYNTH_GPU_BDF
#define GPU_B	GPUPROBE_BDF(0, 0x02, 0x00)

static void put_app(struct trace_writer *w, uint16_t type, const char *name, uint32_t device,
		    uint32_t flags, uint64_t corr, uint64_t start, uint64_t end, uint32_t kind)
{
	struct tracefile_rec_app r = {
		.hdr = { .type = TRACEFILE_REC_APP, .size = sizeof(r), .ts_ns = T0 + start },
		.ev = { .magic = GPUPROBE_APP_MAGIC, .version = GPUPROBE_APP_VERSION,
			.api = GPUPROBE_APP_CUDA, .size = sizeof(r.ev), .type = type, .kind = kind,
			.flags = flags, .pid = 42, .tid = 42, .device = device, .stream = 7 + device,
			.correlation = corr, .start_ns = T0 + start, .end_ns = T0 + end },
	};

	if (type == GPUPROBE_APP_DEVICE)
		r.ev.start_ns = r.ev.end_ns = 0;
	copy_string(r.ev.name, sizeof(r.ev.name), name);
	trace_writer_put(w, &r.hdr);
}

static void put_iommu(struct trace_writer *w, uint32_t bdf, uint64_t t, uint64_t size)
{
	struct gpuprobe_rec_iommu io;

	synth_iommu(&io, T0 + t, bdf, GPUPROBE_IOMMU_MAP, size, 0);
	trace_writer_put(w, &io.hdr);
}

static const struct attr_op *op_called(const struct attribution *at, const char *name)
{
	for (size_t i = 0; at && i < at->nops; i++)
		if (!strcmp(at->ops[i].ev.name, name))
			return &at->ops[i];
	CHECK(0, "no op %s", name);
	return NULL;
}

/*
 * Kernels kA on GPU A and kB on GPU B over [1000, 2000]; interrupts of each
 * GPU at 1500 (two GPUs in the kernel's events); IOMMU maps: one of A at
 * 1200 (4096 bytes), one of B at 1300 (8192), three naming no device at
 * 1400, 1600, 1800 (tracefs iommu: events, 3 x 65536 bytes); a DMA map
 * naming no device at 1700.  Each kernel's run has its own GPU's IOMMU map;
 * the three are counted apart, charged to none; the DMA map could be either
 * GPU's: neither run has it.
 */
void test_unattributed_iommu_two_gpus(void)
{
	const char *path = test_tmp_path("iommu2");
	const struct attr_op *a, *b;
	struct attribution *at = NULL;
	struct gpuprobe_rec_irq irq;
	struct gpuprobe_rec_dma dma;
	struct trace_writer w;
	struct trace_info info;
	char err[512];

	synth_info(&info);
	if (trace_writer_open(&w, path, &info)) {
		CHECK(0, "cannot write %s", path);
		return;
	}
	put_app(&w, GPUPROBE_APP_DEVICE, "GPU A", 0, GPUPROBE_APPF_PCI_KNOWN, 0, 0, 0, GPU_A);
	put_app(&w, GPUPROBE_APP_DEVICE, "GPU B", 1, GPUPROBE_APPF_PCI_KNOWN, 0, 0, 0, GPU_B);
	synth_irq(&irq, T0 + 1500, 0, 0, 100, true);
	trace_writer_put(&w, &irq.hdr);
	irq.bdf = GPU_B;
	irq.hdr.ts_ns = T0 + 1510;
	trace_writer_put(&w, &irq.hdr);
	put_iommu(&w, GPU_A, 1200, 4096);
	put_iommu(&w, GPU_B, 1300, 8192);
	for (unsigned int i = 0; i < 3; i++)
		put_iommu(&w, GPUPROBE_BDF_NONE, 1400 + 200 * i, 65536);
	synth_dma(&dma, T0 + 1700, GPUPROBE_DMA_MAP_PAGE, 4096, 1, 0);
	dma.bdf = GPUPROBE_BDF_NONE;
	trace_writer_put(&w, &dma.hdr);
	put_app(&w, GPUPROBE_APP_API, "cuLaunchKernel", 0, 0, 1, 500, 600, 0);
	put_app(&w, GPUPROBE_APP_KERNEL, "kA", 0, 0, 1, 1000, 2000, 0);
	put_app(&w, GPUPROBE_APP_KERNEL, "kB", 1, 0, 2, 1000, 2000, 0);
	if (trace_writer_finish(&w, T0 + 100000, 0) == 0)
		at = attribute_file(path, err, sizeof(err));
	CHECK(at, "attribute_file: %s", err);
	unlink(path);
	a = op_called(at, "kA");
	b = op_called(at, "kB");
	if (a && b && a->detail && b->detail) {
		CHECK_EQ_U64(at->kernel_bdfs, 2);
		CHECK_EQ_U64(a->bdf, GPU_A);
		CHECK_EQ_U64(b->bdf, GPU_B);
		CHECK_EQ_U64(a->detail->phase[ATTR_RUN].iommu_maps, 1);
		CHECK_EQ_U64(a->detail->phase[ATTR_RUN].iommu_map_bytes, 4096);
		CHECK_EQ_U64(b->detail->phase[ATTR_RUN].iommu_maps, 1);
		CHECK_EQ_U64(b->detail->phase[ATTR_RUN].iommu_map_bytes, 8192);
		CHECK_EQ_U64(a->detail->phase[ATTR_RUN].dma_maps, 0);
		CHECK_EQ_U64(b->detail->phase[ATTR_RUN].dma_maps, 0);
		CHECK_EQ_U64(at->unattributed.iommu_maps, 3);
		CHECK_EQ_U64(at->unattributed.iommu_map_bytes, 3 * 65536);
	}
	attribution_free(at);
}
