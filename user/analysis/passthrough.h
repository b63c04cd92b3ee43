/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host and guest of a merged trace (record --guest) lined up: each host
 * interrupt of the passed-through device paired with the guest interrupt it
 * became (host vfio-msi handler -> [KVM injection] -> guest handler ->
 * guest thread wake-up), each guest DMA map under a vIOMMU with the host
 * map it caused.  Guest times go to the host clock through the file's
 * clock exchanges; pairs are made in order, within their error bound
 * (Documentation/passthrough.md).
 */
#ifndef GPUPROBE_PASSTHROUGH_H
#define GPUPROBE_PASSTHROUGH_H

#include <stdbool.h>
#include <stdint.h>

#include "agg.h"
#include "clocksync.h"
#include "crossing.h"
#include "hostpath.h"
#include "hist.h"
#include "machine.h"
#include "tscclock.h"

#define PT_MAX_EVENTS	(1u << 22)	/* per kind; beyond, counted in dropped */
/*
 * A wake-up (of the guest workload's threads: the only ones recorded) is
 * the guest handler's when it comes after its entry, before the next guest
 * interrupt and at most this long after the handler returned (threaded
 * handlers, softirq, blk-mq's completion IPI to another CPU).
 */
#define PT_WAKE_SLACK_NS	1000000
#define PT_MAX_VECTORS		64

/* One interrupt, injection, wake-up or map, on the host clock (guest ones mapped). */
struct pt_event {
	uint64_t ts;		/* host clock */
	uint64_t raw;		/* the machine's own clock */
	uint64_t duration;
	uint32_t irq;		/* irq; map: bytes (low 32 bits are enough for a label) */
	uint32_t cpu;
	int32_t pair;		/* host irq: its guest irq; guest irq, injection: its host irq; -1 none */
	int32_t next;		/* injection: the guest irq it became; -1 none */
	uint32_t vector;	/* injection: the guest vector */
	uint32_t pid, tid;	/* injection: the VMM and its vCPU thread; wake-up: the woken task's tgid, pid */
};

struct pt_array {
	struct pt_event *e;
	uint32_t n, cap;
};

/* A host interrupt and what it became. */
struct pt_pair {
	uint64_t host_ts, host_duration;
	uint64_t inject_ts;		/* 0: no KVM injection record */
	uint64_t guest_ts;		/* host clock */
	uint64_t guest_duration;
	uint64_t wake_ts;		/* host clock; 0: no wake-up seen */
	uint32_t host_cpu, guest_cpu;
	uint32_t vmm_pid, vcpu_tid;	/* the injection's task (0: unknown) */
	uint32_t wake_pid, wake_tid;	/* the woken task's tgid and pid (0: unknown) */
	uint32_t vector;		/* the injection's guest vector */
	/* the path through the host (hostpath.c); 0: not found */
	uint64_t irqfd_ts;		/* kvm_msi_set_irq (or kvm_set_irq) in the host handler */
	uint64_t entry_ts;		/* the VM entry after the injection: delivers it */
	uint64_t eoi_ts, eoi_exit_ts;	/* the guest's EOI (kvm_eoi), the exit it came in */
	uint32_t eoi_reason;		/* that exit's reason */
	uint16_t eoi_isa;
	uint8_t vcpu_state;		/* enum hostpath_vcpu_state, at irqfd_ts */
	uint8_t eoi_kind;		/* enum hostpath_eoi_kind */
};

struct passthrough {
	bool merged;			/* the file has machine records */
	struct machine_desc *host, *guest;
	struct agg *guest_agg;		/* today's per-target numbers, for the guest */
	struct clock_fit fit;
	bool have_fit;			/* the clocks were compared */
	/*
	 * The exact clock (KVM's TSC relation, lib/tscclock.h) where the file
	 * has it and its bound is the narrower: then guest times are mapped by
	 * it and the exchanges only cross-check it.
	 */
	struct tsc_clock *tsc;		/* NULL: no TSC record in the file */
	bool clock_exact;
	uint64_t clock_error_ns;	/* the bound of the clock in use */
	char clock_note[240];		/* why the exact clock is not in use */
	int64_t test_tsc_error;		/* report --test-tsc-error: ticks added to KVM's offsets */
	uint64_t cross_max_ns;		/* exact vs exchanges: largest difference at a burst */
	uint64_t cross_disagree;	/* bursts where it is beyond both bounds */
	int64_t exact_offset_ns;	/* guest - host by the exact clock at the first burst */
	uint64_t exact_at_ns;		/* that burst's host time, by the exact clock */
	bool paired_by_time;		/* the bound below every cause's spacing: no rank needed */
	uint64_t pairs_injected;	/* pairs through a KVM injection: delivered at a VM entry, not posted */
	struct pt_array host_irq, inject, guest_irq, guest_wake, guest_map, host_map;
	/*
	 * The guest vectors KVM routed from a target's host handler (its MSI
	 * or APIC records): injections of other vectors (the guest's timer,
	 * other devices) are not the target's and are left out of the pairing.
	 */
	uint32_t target_vectors[PT_MAX_VECTORS];
	unsigned int ntarget_vectors;
	uint64_t injections_other;	/* injections of other vectors, left out */
	uint64_t injections_repeated;	/* a host irq injected again: the last one kept */
	uint64_t dropped;		/* events beyond PT_MAX_EVENTS */
	uint64_t lost_records;		/* LOST records, host and guest: gaps in either side */
	uint64_t host_maps_unattributed;	/* host IOMMU maps naming no device, used */

	/* passthrough_finish */
	uint64_t irq_paired, irq_unpaired_host, irq_unpaired_guest;
	uint64_t order_violations;	/* guest interrupts before any host one could cause them */
	uint64_t early_within_bound;	/* guest handler before its host one, within the bound */
	uint64_t ambiguous;		/* pairs with another cause within the bound */
	bool paired_in_order;		/* injections and guest irqs 1:1 by rank (pair_in_order) */
	uint64_t dma_paired, dma_unpaired_guest;
	struct hist host_handler_ns, host_to_inject_ns, inject_to_guest_ns, host_to_guest_ns;
	struct hist guest_handler_ns, guest_handler_to_wake_ns, vfio_map_ns;
	struct pt_pair *pairs;		/* irq_paired of them, in host order */
	struct crossing crossing;	/* the stages per interrupt, from pairs (crossing.h) */
	struct hostpath_input *hostpath;	/* the VMM's KVM steps; NULL: none (hostpath.h) */
	char note[256];			/* why a number is missing, else empty */
};

struct passthrough *passthrough_new(void);
/* Every record of the file, in order; cheap for records it does not use. */
void passthrough_add(struct passthrough *pt, const struct gpuprobe_rec_hdr *rec);
void passthrough_finish(struct passthrough *pt);
void passthrough_free(struct passthrough *pt);

/* The pairing alone (tests): host and guest sorted, guest ts on the host clock. */
void passthrough_pair_irqs(struct passthrough *pt);

#endif /* GPUPROBE_PASSTHROUGH_H */
