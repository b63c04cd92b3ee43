/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host -> guest crossing of a merged trace, stage by stage, per
 * interrupt: exact p50/p99/max over the pairs (not the histograms' buckets),
 * each stage that goes from a host time to a guest one with the clock's
 * error bound beside it, the share of each stage of the chain host handler
 * entry -> guest thread wake-up, and a one-line verdict naming the largest.
 * Warnings that make the figures doubtful go with them: the exact clock in
 * use while the exchanges disagree with it, TSC samples beyond the cap.
 * Documentation/report-json.md ("crossing"), passthrough.md.
 */
#ifndef GPUPROBE_CROSSING_H
#define GPUPROBE_CROSSING_H

#include <stdbool.h>
#include <stdint.h>

#include "hostpath.h"

enum crossing_stage_id {
	CROSS_HOST_HANDLER,	/* host vfio-msi handler, entry -> exit */
	CROSS_HOST_TO_IRQFD,	/* host handler entry -> irqfd injection (kvm_msi_set_irq) */
	CROSS_IRQFD_TO_INJECT,	/* irqfd injection -> KVM injection (kvm_inj_virq) */
	CROSS_HOST_TO_INJECT,	/* host handler entry -> KVM injection */
	CROSS_INJECT_TO_ENTRY,	/* KVM injection -> the VM entry that delivers it (kvm_entry) */
	CROSS_ENTRY_TO_GUEST,	/* that VM entry -> guest handler entry */
	CROSS_INJECT_TO_GUEST,	/* KVM injection -> guest handler entry */
	CROSS_HOST_TO_GUEST,	/* host handler entry -> guest handler entry */
	CROSS_GUEST_HANDLER,	/* guest handler, entry -> exit */
	CROSS_GUEST_TO_EOI,	/* guest handler entry -> the exit its EOI came in (kvm_eoi) */
	CROSS_GUEST_TO_WAKE,	/* guest handler entry -> thread wake-up */
	CROSS_HOST_TO_WAKE,	/* host handler entry -> thread wake-up: the whole crossing */
	CROSS_STAGES
};

struct crossing_stage {
	const char *name;	/* for the text */
	const char *key;	/* for the JSON */
	bool in_chain;		/* one of the consecutive steps host entry -> wake */
	bool crosses;		/* a host time to a guest one: within the clock's bound */
	uint64_t count, min, p50, p99, max, sum;
	uint64_t negative;	/* values that came out < 0, taken as 0 (warned of) */
	uint64_t chain_sum;	/* over the complete pairs only: what the share is of */
	double share_pct;	/* of the chain over the complete pairs; in_chain only */
};

#define CROSSING_MAX_WARNINGS	6

struct crossing_warning {
	const char *kind;	/* JSON: clock_disagree, tsc_samples_capped, ... */
	char text[320];
};

struct crossing {
	bool measured;			/* some pair was made */
	bool through_injection;		/* the chain goes through KVM's injection records */
	bool through_host_path;		/* ... and the irqfd step and VM entries (hostpath.h) */
	uint64_t pairs, complete_pairs;	/* complete: every step of the chain measured */
	uint64_t clock_error_ns;
	struct crossing_stage stage[CROSS_STAGES];
	int largest;			/* the chain's largest stage; -1 none */
	char verdict[320];
	unsigned int nwarnings;
	struct crossing_warning warning[CROSSING_MAX_WARNINGS];
	struct hostpath_summary path;	/* vCPU states, EOIs, exits on the way, the route */
};

struct passthrough;

/* From pt's pairs, clock and exact clock (after the pairing). */
void crossing_compute(struct crossing *c, const struct passthrough *pt);
/* Nearest-rank percentile of v[0..n) sorted, n > 0 (stats.h: nearest_rank). */
uint64_t crossing_percentile(const uint64_t *sorted, uint64_t n, double pct);

#endif /* GPUPROBE_CROSSING_H */
