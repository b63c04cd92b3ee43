// SPDX-License-Identifier: GPL-2.0
/*
 * The path through the host (analysis/hostpath.c) and the crossing's
 * figures (analysis/crossing.c) on hand-made KVM steps and pairs: every
 * timestamp set here, every answer worked out from them by hand.
 */
#include <stdlib.h>
#include <string.h>

#include "crossing.h"
#include "hostpath.h"
#include "passthrough.h"
#include "testlib.h"
#include "tests.h"

#define VCPU_TID	4242
#define VECTOR		35
#define SVM_INTR	0x060
#define SVM_MSR		0x07c

static void step(struct hostpath_input *in, uint16_t stage, uint64_t ts, uint32_t value,
		 uint16_t flags)
{
	struct gpuprobe_rec_kvm k;

	memset(&k, 0, sizeof(k));
	k.hdr.ts_ns = ts;
	k.hdr.flags = flags;
	k.stage = stage;
	k.tid = VCPU_TID;
	k.bdf = GPUPROBE_BDF_NONE;
	k.vector = value;
	if (stage == GPUPROBE_KVM_EXIT)
		k.level = GPUPROBE_KVM_ISA_SVM;
	hostpath_add(in, &k);
}

/* pt with n pairs, each injected at inject_ts[i] (host handler 1 us before) */
static struct passthrough *with_pairs(const uint64_t *inject_ts, uint64_t n)
{
	struct passthrough *pt = passthrough_new();

	pt->hostpath = calloc(1, sizeof(*pt->hostpath));
	pt->pairs = calloc(n, sizeof(*pt->pairs));
	pt->irq_paired = n;
	for (uint64_t i = 0; i < n; i++) {
		struct pt_pair *p = &pt->pairs[i];

		p->inject_ts = inject_ts[i];
		p->host_ts = inject_ts[i] - 1000;
		p->host_duration = 500;
		p->guest_ts = inject_ts[i] + 5000;
		p->vcpu_tid = VCPU_TID;
		p->vector = VECTOR;
	}
	return pt;
}

/*
 * Injections and no entry or exit traced (the module source, or a trace
 * without kvm_entry/kvm_exit): no vCPU state, no delivering entry, and the
 * searches step over nothing (they walked every earlier injection of the
 * thread for each pair: 2000 pairs, ~4 million steps).  With entries and
 * exits but none between the injections, the state search stops at the
 * previous injection (in the host then, no entry since: in the host).
 */
void test_hostpath_no_entries_linear(void)
{
	enum { N = 2000 };
	uint64_t *ts = malloc(N * sizeof(*ts));
	struct passthrough *pt;

	for (uint64_t i = 0; i < N; i++)
		ts[i] = 1000000 + 10000 * i;
	pt = with_pairs(ts, N);
	for (uint64_t i = 0; i < N; i++)
		step(pt->hostpath, GPUPROBE_KVM_INJECT, ts[i], VECTOR, 0);
	hostpath_fill_pairs(pt);
	CHECK_EQ_U64(pt->hostpath->visited, 0);
	CHECK(pt->pairs[N - 1].vcpu_state == VCPU_UNKNOWN && !pt->pairs[N - 1].entry_ts,
	      "no entries: state %u, entry %llu", pt->pairs[N - 1].vcpu_state,
	      (unsigned long long)pt->pairs[N - 1].entry_ts);
	passthrough_free(pt);

	pt = with_pairs(ts, N);
	step(pt->hostpath, GPUPROBE_KVM_EXIT, 500000, SVM_INTR, 0);	/* one exit, long before */
	for (uint64_t i = 0; i < N; i++)
		step(pt->hostpath, GPUPROBE_KVM_INJECT, ts[i], VECTOR, 0);
	hostpath_fill_pairs(pt);
	/* each pair: its state (1 step back: the previous injection), its entry search (its own, the next) */
	CHECK(pt->hostpath->visited <= 4 * N, "%llu steps for %d pairs",
	      (unsigned long long)pt->hostpath->visited, N);
	CHECK(pt->pairs[N - 1].vcpu_state == VCPU_IN_HOST, "state after an injection: %u",
	      pt->pairs[N - 1].vcpu_state);
	CHECK(pt->pairs[0].vcpu_state == VCPU_IN_HOST, "state after an INTR exit: %u",
	      pt->pairs[0].vcpu_state);
	passthrough_free(pt);
	free(ts);
}

/*
 * A reinjection: injected at 100 us, an entry at 110 that does not deliver
 * it (an INTR exit at 120), KVM reinjects it at 130, the entry at 140
 * delivers it, the guest's EOI comes in the MSR exit at 200 (kvm_eoi at
 * 201).  The delivering entry is 140 and the EOI 201 in the MSR exit; the
 * reinjection is not "the vector's next interrupt".  Then the next
 * interrupt (injected at 300 us, not reinjected) stops the search of one
 * whose EOI was not traced.
 */
void test_hostpath_reinjection(void)
{
	const uint64_t us = 1000, ts[] = { 100 * us, 300 * us };
	struct passthrough *pt = with_pairs(ts, 2);
	struct hostpath_input *in = pt->hostpath;

	step(in, GPUPROBE_KVM_EXIT, 90 * us, SVM_INTR, 0);
	step(in, GPUPROBE_KVM_INJECT, 100 * us, VECTOR, 0);
	step(in, GPUPROBE_KVM_ENTRY, 110 * us, 0, 0);
	step(in, GPUPROBE_KVM_EXIT, 120 * us, SVM_INTR, 0);
	step(in, GPUPROBE_KVM_INJECT, 130 * us, VECTOR, GPUPROBE_KVM_REINJECTED);
	step(in, GPUPROBE_KVM_ENTRY, 140 * us, 0, 0);
	step(in, GPUPROBE_KVM_EXIT, 200 * us, SVM_MSR, 0);
	step(in, GPUPROBE_KVM_EOI, 201 * us, VECTOR, 0);
	step(in, GPUPROBE_KVM_ENTRY, 210 * us, 0, 0);
	/* the second: delivered at 310, its EOI never traced, then a third injection */
	step(in, GPUPROBE_KVM_INJECT, 300 * us, VECTOR, 0);
	step(in, GPUPROBE_KVM_ENTRY, 310 * us, 0, 0);
	step(in, GPUPROBE_KVM_EXIT, 320 * us, SVM_INTR, 0);
	step(in, GPUPROBE_KVM_INJECT, 400 * us, VECTOR, 0);
	step(in, GPUPROBE_KVM_ENTRY, 410 * us, 0, 0);
	step(in, GPUPROBE_KVM_EXIT, 420 * us, SVM_MSR, 0);
	step(in, GPUPROBE_KVM_EOI, 421 * us, VECTOR, 0);
	hostpath_fill_pairs(pt);
	CHECK_EQ_U64(pt->pairs[0].entry_ts, 140 * us);
	CHECK_EQ_U64(pt->pairs[0].eoi_ts, 201 * us);
	CHECK_EQ_U64(pt->pairs[0].eoi_exit_ts, 200 * us);
	CHECK(pt->pairs[0].eoi_kind == EOI_MSR_EXIT, "EOI kind %u", pt->pairs[0].eoi_kind);
	CHECK_EQ_U64(pt->pairs[1].entry_ts, 310 * us);
	CHECK(pt->pairs[1].eoi_ts == 0 && pt->pairs[1].eoi_kind == EOI_NONE,
	      "the second's EOI taken from the third's: %llu", (unsigned long long)pt->pairs[1].eoi_ts);
	passthrough_free(pt);
}

static bool has_warning(const struct crossing *c, const char *kind, const char *text_part)
{
	for (unsigned int i = 0; i < c->nwarnings; i++)
		if (!strcmp(c->warning[i].kind, kind) && strstr(c->warning[i].text, text_part))
			return true;
	return false;
}

/* 15 steps into a host path that keeps 10: 5 dropped, counted and warned of. */
void test_hostpath_cap_reported(void)
{
	const uint64_t ts[] = { 100000 };
	struct passthrough *pt = with_pairs(ts, 1);

	pt->hostpath->max = 10;
	for (uint64_t i = 0; i < 15; i++)
		step(pt->hostpath, GPUPROBE_KVM_EXIT, 1000 * (i + 1), SVM_INTR, 0);
	CHECK_EQ_U64(pt->hostpath->n, 10);
	CHECK_EQ_U64(pt->hostpath->dropped, 5);
	hostpath_fill_pairs(pt);
	crossing_compute(&pt->crossing, pt);
	CHECK_EQ_U64(pt->crossing.path.dropped, 5);
	CHECK(has_warning(&pt->crossing, "host_path_dropped", "5 KVM steps of the host path"),
	      "no host_path_dropped warning");
	passthrough_free(pt);
}

/*
 * Three pairs; the second's guest handler 0.5 us before its VM entry (after
 * its injection), the third's 1 us before its injection (as a clock wrong by more): those
 * stages are 0 in the figures, counted per stage and warned of.
 */
void test_crossing_negative_stages_counted(void)
{
	const uint64_t ts[] = { 100000, 200000, 300000 };
	struct passthrough *pt = with_pairs(ts, 3);
	const struct crossing *c = &pt->crossing;

	for (int i = 0; i < 3; i++) {
		pt->pairs[i].entry_ts = ts[i] + 1000;
		pt->pairs[i].wake_ts = ts[i] + 9000;
	}
	pt->pairs[1].guest_ts = pt->pairs[1].entry_ts - 500;
	pt->pairs[2].guest_ts = pt->pairs[2].inject_ts - 1000;
	/* the first's EOI exit 300 ns before its handler's entry (an x2APIC EOI, acked first): not warned of */
	pt->pairs[0].eoi_exit_ts = pt->pairs[0].guest_ts - 300;
	crossing_compute(&pt->crossing, pt);
	CHECK_EQ_U64(c->stage[CROSS_ENTRY_TO_GUEST].negative, 2);
	CHECK_EQ_U64(c->stage[CROSS_INJECT_TO_GUEST].negative, 1);
	CHECK_EQ_U64(c->stage[CROSS_HOST_TO_GUEST].negative, 0);
	CHECK_EQ_U64(c->stage[CROSS_GUEST_TO_EOI].negative, 1);
	CHECK_EQ_U64(c->stage[CROSS_ENTRY_TO_GUEST].min, 0);
	CHECK_EQ_U64(c->stage[CROSS_ENTRY_TO_GUEST].max, 4000);
	CHECK(has_warning(c, "negative_stages", "3 stage values came out negative") &&
	      has_warning(c, "negative_stages", "entry_to_guest 2, inject_to_guest 1"),
	      "negative stages not warned of: %s", c->nwarnings ? c->warning[0].text : "(none)");
	/* none negative: no warning */
	pt->pairs[1].guest_ts = ts[1] + 5000;
	pt->pairs[2].guest_ts = ts[2] + 5000;
	crossing_compute(&pt->crossing, pt);
	CHECK(!has_warning(c, "negative_stages", ""), "a negative_stages warning with none negative");
	passthrough_free(pt);
}
