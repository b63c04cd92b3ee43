// SPDX-License-Identifier: GPL-2.0
/*
 * Hand-worked cases whose answers come from the rules, not from the code:
 * each is small enough to work out on paper (the working is in the
 * comments), and each is built so that a plausible slip in the code under
 * test (a relational operator, a dropped condition) gives another answer.
 *
 *   kernel count   the kernel counted 10 interrupts, 5 were recorded:
 *                  lost ones, so `match` is false (true only for equal);
 *   irq pairing    an exit names its irq: another irq's exit on the CPU is
 *                  an orphan, not the end of the pending entry;
 *   KVM steps      a delivery belongs to the handler of its own irq;
 *   rank pairing   injections and guest interrupts paired by rank only on
 *                  one vCPU and one vector, else by the clock;
 *   two GPUs       IOMMU maps naming no device are nobody's op's.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg.h"
#include "attribute.h"
#include "cmds.h"
#include "irqpair.h"
#include "passthrough.h"
#include "synth.h"
#include "testlib.h"
#include "tests.h"
#include "util.h"

/* ---- report --json: kernel_count.match ---- */

/*
 * Vector 0 (irq 100): the kernel's count goes 1000 -> 1010 around 5
 * recorded interrupts (5 lost); vector 1 (irq 101): 2000 -> 2004 around 4
 * recorded, all there; vector 2 (irq 102): 300 -> 302 around 3 recorded
 * (the count went back: no match either).  Interrupts at 1, 2, .. us,
 * the window [0.5 us, 100 us].
 */
static int write_kcount(const char *path)
{
	static struct trace_info info;
	const struct { uint32_t vec; uint64_t start, stop; unsigned int recorded; } v[] = {
		{ 0, 1000, 1010, 5 }, { 1, 2000, 2004, 4 }, { 2, 300, 302, 3 },
	};
	struct tracefile_rec_irq_count c;
	struct gpuprobe_rec_irq q;
	struct trace_writer w;
	const uint64_t t0 = 1000000000ull;
	int err = 0;

	synth_info(&info);
	if (trace_writer_open(&w, path, &info))
		return -1;
	for (unsigned int i = 0; i < 3; i++) {
		synth_irq_count(&c, t0 + 500, SYNTH_IRQ_BASE + v[i].vec, IRQ_COUNT_START, v[i].start);
		err |= trace_writer_put(&w, &c.hdr);
	}
	for (unsigned int i = 0; i < 3; i++)
		for (unsigned int k = 0; k < v[i].recorded; k++) {
			synth_irq(&q, t0 + 1000 * (k + 1) + 100 * i, 0, v[i].vec, 500, true);
			err |= trace_writer_put(&w, &q.hdr);
		}
	for (unsigned int i = 0; i < 3; i++) {
		synth_irq_count(&c, t0 + 100000, SYNTH_IRQ_BASE + v[i].vec, IRQ_COUNT_STOP, v[i].stop);
		err |= trace_writer_put(&w, &c.hdr);
	}
	err |= trace_writer_finish(&w, t0 + 200000, 0);
	return err ? -1 : 0;
}

void test_kernel_count_match(void)
{
	const char *trace = test_tmp_path("kcount.trace"), *json = test_tmp_path("kcount.json");
	FILE *out;

	CHECK(write_kcount(trace) == 0, "cannot write %s", trace);
	out = fopen(json, "w");
	CHECK(out && report_file(trace, true, out) == 0, "report --json failed");
	if (out)
		fclose(out);
	CHECK(test_python_json(json,
		"k={v[\"irq\"]: v[\"kernel_count\"] for v in d[\"targets\"][0][\"vectors\"] if v[\"kernel_count\"]}\n"
		"assert sorted(k) == [100, 101, 102], k\n"
		"assert (k[100][\"delta\"], k[100][\"records_in_window\"], k[100][\"match\"]) == (10, 5, False), k[100]\n"
		"assert (k[101][\"delta\"], k[101][\"records_in_window\"], k[101][\"match\"]) == (4, 4, True), k[101]\n"
		"assert k[102][\"records_in_window\"] == 3 and k[102][\"match\"] is False, k[102]\n") == 0,
	      "kernel_count in %s", json);
	unlink(trace);
	unlink(json);
}

/* ---- tracefs irq entry/exit pairing ---- */

struct got_irqs {
	unsigned int n;
	struct gpuprobe_rec_irq irq[8];
};

static int got_irq(void *ctx, const struct gpuprobe_rec_hdr *rec)
{
	struct got_irqs *g = ctx;

	if (rec->type == GPUPROBE_EV_IRQ && g->n < 8)
		memcpy(&g->irq[g->n++], rec, sizeof(g->irq[0]));
	return 0;
}

/*
 * CPU 0: entry of irq 100 at 1000, an exit of irq 103 at 1500 (its entry
 * was before tracing, or on a record lost), the exit of irq 100 at 2000:
 * one interrupt, irq 100, 1000 ns long; one orphan exit.
 */
void test_irq_exit_names_its_irq(void)
{
	static struct trace_info info;
	struct got_irqs g = { 0 };
	struct record_sink sink = { got_irq, &g };
	struct irq_pairer p;

	synth_info(&info);
	CHECK(irq_pairer_init(&p, 2, &info.targets) == 0, "init");
	irq_pairer_entry(&p, 0, 1000, 100, &sink);
	irq_pairer_exit(&p, 0, 1500, 103, true, &sink);
	irq_pairer_exit(&p, 0, 2000, 100, true, &sink);
	irq_pairer_flush(&p, &sink);
	CHECK_EQ_U64(g.n, 1);
	CHECK_EQ_U64(g.irq[0].irq, 100);
	CHECK_EQ_U64(g.irq[0].hdr.ts_ns, 1000);
	CHECK_EQ_U64(g.irq[0].duration_ns, 1000);
	CHECK_EQ_U64(g.irq[0].hdr.flags, GPUPROBE_IRQ_HANDLED);
	CHECK_EQ_U64(p.orphan_exits, 1);
	irq_pairer_free(&p);
}

/* ---- KVM deliveries and their handler ---- */

#define KVM_BDF		GPUPROBE_BDF(0, 0, 0x08)

static void put_accept(struct agg *a, uint16_t cpu, uint64_t ts, uint32_t irq)
{
	struct gpuprobe_rec_kvm r = {
		.hdr = { .type = TRACEFILE_REC_KVM, .size = sizeof(r), .cpu = cpu, .ts_ns = ts },
		.bdf = KVM_BDF, .host_irq = irq, .vcpu = GPUPROBE_KVM_VCPU_NONE, .vector = 42,
		.stage = GPUPROBE_KVM_ACCEPT,
	};

	agg_add(a, &r.hdr);
}

static void put_handler(struct agg *a, uint16_t cpu, uint64_t entry, uint32_t irq)
{
	struct gpuprobe_rec_irq r = {
		.hdr = { .type = GPUPROBE_EV_IRQ, .size = sizeof(r), .cpu = cpu,
			 .flags = GPUPROBE_IRQ_HANDLED | GPUPROBE_IRQ_VFIO, .ts_ns = entry },
		.bdf = KVM_BDF, .irq = irq, .duration_ns = 200,
	};

	agg_add(a, &r.hdr);
}

/*
 * A step is written inside its handler, before the handler's record.
 * CPU 1: a step of irq 27 at 1100 whose handler record was lost, then the
 * record of irq 28's handler (entry 2000): not the step's handler, so the
 * step has none.  CPU 2: a step of irq 27 at 6100, irq 28's record (entry
 * 6000), then irq 27's (entry 6050): delivered 50 ns after its handler's
 * entry.  One delivery, one without a handler.
 */
void test_kvm_delivery_own_handler(void)
{
	static struct trace_info info;
	static struct trace_reader r;
	const struct kvm_target *t;
	struct agg *a = agg_new(&info);

	CHECK(a != NULL, "agg_new");
	if (!a)
		return;
	put_accept(a, 1, 1100, 27);
	put_handler(a, 1, 2000, 28);
	put_accept(a, 2, 6100, 27);
	put_handler(a, 2, 6000, 28);
	put_handler(a, 2, 6050, 27);
	agg_finish(a, &r);
	CHECK(a->kvm && a->kvm->ntargets == 1, "one KVM target");
	if (a->kvm && a->kvm->ntargets == 1) {
		t = &a->kvm->targets[0];
		CHECK_EQ_U64(t->bdf, KVM_BDF);
		CHECK_EQ_U64(t->deliveries, 1);
		CHECK_EQ_U64(t->no_handler, 1);
		CHECK_EQ_U64(t->to_deliver_ns.count, 1);
		CHECK_EQ_U64(t->to_deliver_ns.min, 50);
		CHECK_EQ_U64(t->to_deliver_ns.max, 50);
	}
	agg_free(a);
}
