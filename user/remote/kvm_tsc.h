/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's half of the exact guest clock (lib/tscclock.h): the VM's
 * vCPUs in KVM's debugfs (/sys/kernel/debug/kvm/<pid>-<fd>/vcpuN/:
 * tsc-offset, tsc-scaling-ratio, tsc-scaling-ratio-frac-bits, guest_mode)
 * read at the start and the end, and kvm:kvm_write_tsc_offset followed in
 * a tracefs instance of its own in between.
 */
#ifndef GPUPROBE_REMOTE_KVM_TSC_H
#define GPUPROBE_REMOTE_KVM_TSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source.h"

struct kvm_tsc_options {
	int vmm_pid;			/* --guest-vmm; 0: the only VM there is */
	bool have_test_offset;		/* --test-tsc-offset: no KVM, this offset */
	int64_t test_offset;
	int64_t test_error;		/* --test-tsc-error: added to every offset */
};

struct kvm_tsc;

/* NULL and why (no debugfs, no VM, several and none chosen, not root). */
struct kvm_tsc *kvm_tsc_open(const struct kvm_tsc_options *o, char *why, size_t whylen);
/* Every vCPU's relation as KVM has it now, flags (TSC_KVM_END) added. */
int kvm_tsc_put(struct kvm_tsc *k, uint16_t flags, const struct record_sink *sink);
/* The offset writes traced since open (each a TSC_KVM_TRACED record); a warning when tracing failed. */
int kvm_tsc_put_traced(struct kvm_tsc *k, const struct record_sink *sink);
/* The directory read: "/sys/kernel/debug/kvm/1234-11". */
const char *kvm_tsc_dir(const struct kvm_tsc *k);
void kvm_tsc_close(struct kvm_tsc *k);
/*
 * The host's APIC virtualization, as KVM's module parameters say (kvm_amd
 * avic, kvm_intel enable_apicv under root, or GPUPROBE_KVM_PARAM_ABSENT):
 * one KVM record of stage APIC_MODE (Documentation/trace-format.md).
 */
int kvm_apic_mode_put(const char *root, const struct record_sink *sink);

/*
 * One line of the trace file: 1 and its fields when it is a
 * kvm_write_tsc_offset event, 0 when it is not (tests feed lines).
 */
int kvm_tsc_parse_line(const char *line, uint32_t *tid, uint64_t *ts_ns, uint32_t *vcpu,
		       uint64_t *next_offset);

#endif /* GPUPROBE_REMOTE_KVM_TSC_H */
