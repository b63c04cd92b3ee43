// SPDX-License-Identifier: GPL-2.0
/*
 * The host side's KVM pairing (analysis/kvm.c) on a hand-made trace: two
 * CPUs whose records are out of time order with each other, as both
 * sources write them; steps inside a handler written before its irq record.
 */
#include <string.h>
#include <unistd.h>

#include "agg.h"
#include "json.h"
#include "report.h"
#include "testlib.h"
#include "tests.h"

#define VM_PID		77
#define HOST_IRQ	27
#define EDU_BDF		GPUPROBE_BDF(0, 0, 0x08)	/* 0000:00:01.0 */

static void put_kvm(struct agg *a, uint16_t cpu, uint64_t ts, uint16_t stage,
		    uint32_t vector, uint16_t flags)
{
	struct gpuprobe_rec_kvm r = {
		.hdr = { .type = TRACEFILE_REC_KVM, .size = sizeof(r), .cpu = cpu,
			 .flags = flags, .ts_ns = ts },
		.bdf = GPUPROBE_BDF_NONE, .vcpu = GPUPROBE_KVM_VCPU_NONE,
		.vector = vector, .stage = stage,
	};

	if (stage == GPUPROBE_KVM_INJECT) {
		r.pid = VM_PID;
	} else {
		r.bdf = EDU_BDF;
		r.host_irq = HOST_IRQ;
	}
	agg_add(a, &r.hdr);
}

static void put_irq(struct agg *a, uint16_t cpu, uint64_t entry)
{
	struct gpuprobe_rec_irq r = {
		.hdr = { .type = GPUPROBE_EV_IRQ, .size = sizeof(r), .cpu = cpu,
			 .flags = GPUPROBE_IRQ_HANDLED | GPUPROBE_IRQ_VFIO, .ts_ns = entry },
		.bdf = EDU_BDF, .irq = HOST_IRQ, .duration_ns = 500,
	};

	agg_add(a, &r.hdr);
}

/*
 * report --json's kvm section: all five injections are the VMM's (pid
 * 77), two of them paired with a delivery of the target.
 */
static void check_kvm_json(const struct kvm_host *k)
{
	const char *path = test_tmp_path("kvm.json");
	struct json j;
	FILE *f = test_json_begin(&j, path);

	if (!f)
		return;
	kvm_print_json(&j, k);
	json_object_end(&j);
	fclose(f);
	CHECK(test_python_json(path,
		"k=d[\"kvm\"]\n"
		"assert k[\"injections_by_pid\"]==[{\"pid\":77,\"count\":5}], k\n"
		"assert k[\"targets\"][0][\"injected_by\"]==[{\"pid\":77,\"count\":2}], k\n"
		"assert k[\"inject\"]==5 and k[\"reinjected\"]==1, k\n") == 0, "report --json's kvm section (above)");
	unlink(path);
}

void test_kvm_pairing(void)
{
	static struct trace_info info;
	static struct trace_reader r;
	const struct kvm_target *t;
	struct agg *a = agg_new(&info);

	CHECK(a != NULL, "agg_new");
	if (!a)
		return;
	/* CPU 0, the vCPU thread: injections, drained first */
	put_kvm(a, 0, 900, GPUPROBE_KVM_INJECT, 42, 0);		/* before any delivery */
	put_kvm(a, 0, 2000, GPUPROBE_KVM_INJECT, 42, 0);
	put_kvm(a, 0, 2100, GPUPROBE_KVM_INJECT, 42, GPUPROBE_KVM_REINJECTED);
	put_kvm(a, 0, 2500, GPUPROBE_KVM_INJECT, 236, 0);	/* the guest's timer */
	put_kvm(a, 0, 3500, GPUPROBE_KVM_INJECT, 42, 0);
	/* CPU 1, the host handler: its steps, then its irq record */
	put_kvm(a, 1, 1100, GPUPROBE_KVM_MSI, 42, 0);
	put_kvm(a, 1, 1150, GPUPROBE_KVM_ACCEPT, 42, 0);
	put_irq(a, 1, 1000);
	put_kvm(a, 1, 3150, GPUPROBE_KVM_ACCEPT, 42, 0);
	put_irq(a, 1, 3000);
	put_kvm(a, 1, 5100, GPUPROBE_KVM_ACCEPT, 42, 0);	/* never injected */
	put_irq(a, 1, 5000);
	/* CPU 2: a step whose handler record never came */
	put_kvm(a, 2, 6100, GPUPROBE_KVM_ACCEPT, 42, 0);
	agg_finish(a, &r);

	CHECK(a->kvm != NULL, "no KVM analysis");
	if (!a->kvm) {
		agg_free(a);
		return;
	}
	CHECK_EQ_U64(a->kvm->by_stage[GPUPROBE_KVM_INJECT], 5);
	CHECK_EQ_U64(a->kvm->by_stage[GPUPROBE_KVM_ACCEPT], 4);
	CHECK_EQ_U64(a->kvm->reinjected, 1);
	CHECK_EQ_U64(a->kvm->paired_stage, GPUPROBE_KVM_ACCEPT);
	CHECK_EQ_U64(a->kvm->ntargets, 1);
	t = &a->kvm->targets[0];
	CHECK_EQ_U64(t->bdf, EDU_BDF);
	CHECK_EQ_U64(t->deliveries, 3);
	CHECK_EQ_U64(t->injected, 2);
	CHECK_EQ_U64(t->not_injected, 1);
	CHECK_EQ_U64(t->no_handler, 1);
	CHECK_EQ_U64(t->npids, 1);
	CHECK_EQ_U64(t->pids[0].pid, VM_PID);
	CHECK_EQ_U64(t->pids[0].count, 2);
	CHECK_EQ_U64(t->to_inject_ns.min, 500);	/* 3500 - 3000 */
	CHECK_EQ_U64(t->to_inject_ns.max, 1000);	/* 2000 - 1000 */
	CHECK_EQ_U64(t->to_deliver_ns.min, 100);	/* 5100 - 5000 */
	check_kvm_json(a->kvm);
	agg_free(a);
}
