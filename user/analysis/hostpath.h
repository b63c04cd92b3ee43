/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Each interrupt's path through the host, between the host handler and the
 * guest's (Documentation/passthrough.md, "The path through the host"):
 * the irqfd injection inside the vfio-msi handler (kvm_msi_set_irq, or
 * kvm_set_irq), the vCPU's state at that moment (in the guest, halted, in
 * the host: from the vCPU thread's kvm_entry/kvm_exit), the injection
 * (kvm_inj_virq) and the VM entry that delivers it (kvm_entry), then the
 * guest's EOI (kvm_eoi; the exit it came in, by reason) and the exits of
 * the vCPU in between; and the route: posted (kvm_pi_irte_update, AVIC or
 * APICv on) or through KVM's injection.
 */
#ifndef GPUPROBE_HOSTPATH_H
#define GPUPROBE_HOSTPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/gpuprobe.h>

#define HOSTPATH_MAX_EVENTS	(1u << 24)	/* beyond, counted in dropped */
#define HOSTPATH_MAX_REASONS	24

/* One KVM step on the host clock: in a handler (irqfd) or on a VMM thread. */
struct hostpath_event {
	uint64_t ts;
	uint32_t tid;		/* VMM thread; in-handler steps: 0 */
	uint32_t cpu;
	uint32_t value;		/* EXIT: the reason; EOI: the vector; irqfd: the host irq */
	uint8_t stage;		/* enum gpuprobe_kvm_stage */
	uint8_t reinjected;	/* INJECT: kvm_inj_virq's reinjected (the same interrupt again) */
	uint16_t isa;		/* EXIT: GPUPROBE_KVM_ISA_* */
};

struct hostpath_input {
	struct hostpath_event *e;
	size_t n, cap;
	bool sorted;
	size_t max;		/* events kept at most; 0: HOSTPATH_MAX_EVENTS (a test lowers it) */
	uint64_t dropped;	/* beyond max (or out of memory): reported (hostpath_summary) */
	uint64_t entries_exits;	/* kvm_entry/kvm_exit events: without any, no search for them */
	uint64_t visited;	/* events the per-pair searches stepped over: linear in the pairs */
	uint64_t pi_posted, pi_unposted;	/* kvm_pi_irte_update set=1 / set=0 */
	bool have_mode;				/* an APIC_MODE record */
	uint32_t avic, apicv;			/* GPUPROBE_KVM_PARAM_* */
};

enum hostpath_vcpu_state {
	VCPU_UNKNOWN,		/* no entry or exit of the thread before it */
	VCPU_IN_GUEST,		/* last: a VM entry (KVM must kick it out) */
	VCPU_HALTED,		/* last: a HLT exit, no entry since (a wake-up) */
	VCPU_IN_HOST,		/* last: another exit (delivered at its next entry) */
	VCPU_STATES
};

enum hostpath_eoi_kind {
	EOI_NONE,		/* no kvm_eoi of the vector after the delivering entry */
	EOI_MSR_EXIT,		/* x2APIC EOI: a WRMSR exit (SVM 0x7c, VMX 32) */
	EOI_APIC_EXIT,		/* xAPIC EOI: SVM NPF 0x400 / AVIC 0x402; VMX 44, 45, 56 */
	EOI_PV,			/* PV EOI (kvm_pv_eoi): no exit of its own, taken at another */
	EOI_OTHER_EXIT,		/* at an exit of another reason (named in the reasons) */
	EOI_KINDS
};

struct hostpath_reason {
	uint16_t isa;
	uint32_t reason;
	uint64_t count;
};

/* What report prints: over the pairs (crossing.h holds one). */
struct hostpath_summary {
	bool measured;			/* the VMM's entries/exits were traced */
	uint64_t dropped;		/* KVM steps not kept (hostpath_input.dropped) */
	uint64_t with_irqfd, with_entry;	/* pairs with that step found */
	uint64_t state[VCPU_STATES];
	uint64_t eoi[EOI_KINDS];
	/* exits of the vCPU after the irqfd injection up to its EOI's, that one included */
	uint64_t exits_counted, exits_sum, exits_p50, exits_max;
	struct hostpath_reason reason[HOSTPATH_MAX_REASONS];
	unsigned int nreasons;
	uint64_t reasons_other;		/* beyond HOSTPATH_MAX_REASONS kinds */
	/* the route */
	bool have_mode;
	uint32_t avic, apicv;
	uint64_t pi_posted, pi_unposted;
	bool route_known;		/* an APIC_MODE or PI_IRTE record in the file */
	bool posted;			/* an IRTE posted, or AVIC/APICv on */
	char route[320];
};

struct passthrough;
struct pt_pair;
struct gpuprobe_rec_kvm;

void hostpath_add(struct hostpath_input *in, const struct gpuprobe_rec_kvm *k);
void hostpath_free(struct hostpath_input *in);
/* Each pair's host path fields from pt->hostpath (after the pairing). */
void hostpath_fill_pairs(struct passthrough *pt);
void hostpath_summarize(struct hostpath_summary *s, const struct passthrough *pt);

const char *hostpath_state_name(unsigned int state);	/* JSON keys */
const char *hostpath_eoi_name(unsigned int kind);
/* SVM's or VMX's name of an exit reason; NULL for one not named here */
const char *hostpath_reason_name(uint16_t isa, uint32_t reason);

#endif /* GPUPROBE_HOSTPATH_H */
