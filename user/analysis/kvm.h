/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host side of a passed-through device: KVM turning each of a target's
 * interrupts (vfio-msi) into a guest interrupt.  Each delivery -- the APIC
 * acceptance (else the MSI routing) KVM did inside the target's host
 * handler -- is paired with the first injection of that guest vector after
 * it (kvm_inj_virq on the vCPU thread, not a reinjection), which names the
 * VMM's process.  Latency: host handler entry to injection.
 *
 * Records of different CPUs are not in time order in a trace, so this keeps
 * the handlers, deliveries and injections (24-32 bytes each, at most
 * KVM_MAX_EVENTS of each; the rest are counted) and pairs them at the end.
 */
#ifndef GPUPROBE_KVM_H
#define GPUPROBE_KVM_H

#include <stdint.h>

#include "hist.h"
#include "tracefile.h"

#define KVM_MAX_EVENTS		(1u << 22)
#define KVM_MAX_PIDS		16
#define KVM_MAX_TARGETS		8
#define KVM_STAGES		(GPUPROBE_KVM_INJECT + 1)

struct kvm_pid_count {
	uint32_t pid;
	uint64_t count;
};

/* A target's interrupts as KVM delivered them. */
struct kvm_target {
	uint32_t bdf;
	uint64_t deliveries;		/* in its handlers, of the stage paired */
	uint64_t injected;		/* deliveries paired with an injection */
	uint64_t not_injected;		/* no injection of the vector after it */
	uint64_t no_handler;		/* handler record not found (lost, cut) */
	uint32_t vector_first, vector_last;	/* guest vectors seen (range) */
	unsigned int npids;
	struct kvm_pid_count pids[KVM_MAX_PIDS];	/* who injected them */
	struct hist to_inject_ns;	/* host handler entry -> injection */
	struct hist to_deliver_ns;	/* host handler entry -> delivery */
};

struct kvm_host {
	uint64_t records;
	uint64_t by_stage[KVM_STAGES];
	uint64_t reinjected;		/* injections flagged so: never paired */
	uint64_t overflow;		/* past KVM_MAX_EVENTS or the tables */
	uint16_t paired_stage;		/* ACCEPT, else MSI, else SET_IRQ; 0 none */
	unsigned int npids;
	struct kvm_pid_count pids[KVM_MAX_PIDS];	/* injections per VMM */
	unsigned int ntargets;
	struct kvm_target targets[KVM_MAX_TARGETS];
	struct kvm_work *work;		/* the events until kvm_host_finish */
};

struct kvm_host *kvm_host_new(void);
/* Target interrupt records and KVM records; others are ignored. */
void kvm_host_add(struct kvm_host *k, const struct gpuprobe_rec_hdr *rec);
void kvm_host_finish(struct kvm_host *k);
void kvm_host_free(struct kvm_host *k);
const char *kvm_stage_name(unsigned int stage);

#endif /* GPUPROBE_KVM_H */
