/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which hypervisor this kernel runs under, and how a target's interrupts
 * reach it: `info` says so (issue 26 item 2).  Under Xen the difference
 * matters: a PV-on-HVM guest binds a passed-through device's MSIs to event
 * channels (chip xen-pirq in /proc/interrupts), reached through Xen's
 * upcall, while a guest without PV interfaces (nopv) takes them as plain
 * MSI vectors that Xen injects into its virtual LAPIC.
 *
 * The parsing takes text and a sysfs root so that the unit tests feed it
 * a fake machine; hypervisor_cpuid_signature() is the only part that asks
 * the CPU.
 */
#ifndef GPUPROBE_HYPERVISOR_H
#define GPUPROBE_HYPERVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CPUID's hypervisor vendor: 12 characters and a NUL */
#define HV_SIGNATURE_LEN	13

struct hypervisor_info {
	bool cpuid_hypervisor;		/* CPUID.1:ECX bit 31 */
	char signature[HV_SIGNATURE_LEN]; /* "XenVMMXenVMM", "KVMKVMKVM", ... or "" */
	uint32_t signature_leaf;	/* where it was found (Xen: 0x40000000 or +0x100 with Viridian) */
	char sysfs_type[16];		/* /sys/hypervisor/type: "xen", or "" when absent */
	char guest_type[16];		/* /sys/hypervisor/guest_type: "HVM", "PVH", "PV", or "" */
	bool xen;			/* Xen, by CPUID or by sysfs */
	/* the kernel uses Xen's PV interfaces (event channels, xenbus): sysfs says xen */
	bool xen_pv_interfaces;
};

/*
 * What sysfs_root/hypervisor/ and the CPUID signature say.  signature is
 * hypervisor_cpuid_signature()'s answer (NULL or "" for none).
 */
void hypervisor_read(const char *sysfs_root, bool cpuid_hypervisor, const char *signature,
		     uint32_t signature_leaf, struct hypervisor_info *h);

/*
 * The CPU's hypervisor signature: the leaf (0x40000000, or a later one a
 * 0x100 step away where Xen moves its own when it also offers Hyper-V's)
 * whose vendor is Xen's, else the first one; 0 and "" when CPUID says no
 * hypervisor (or the CPU is not x86).
 */
uint32_t hypervisor_cpuid_signature(bool *cpuid_hypervisor, char sig[HV_SIGNATURE_LEN]);

/* One line: "Xen HVM guest (PV interfaces in use)", "KVM guest", "no hypervisor" */
void hypervisor_describe(const struct hypervisor_info *h, char *buf, size_t size);
/* "xen", "kvm", "hyperv", "vmware", "other", or "none" */
const char *hypervisor_name(const struct hypervisor_info *h);

enum irq_delivery {
	IRQ_DELIVERY_UNKNOWN,		/* no /proc/interrupts line for the irq */
	IRQ_DELIVERY_MSI,		/* an MSI(-X) irq chip: the device's own vector */
	IRQ_DELIVERY_XEN_PIRQ,		/* xen-pirq: an event channel bound to the device's pirq */
	IRQ_DELIVERY_XEN_EVTCHN,	/* another xen-* chip: an event channel, not a pirq */
	IRQ_DELIVERY_OTHER,		/* IO-APIC, ... */
};

/* What /proc/interrupts says of one irq. */
struct irq_chip_info {
	char chip[48];			/* "xen-pirq", "PCI-MSI", "IR-PCI-MSI", "PCI-MSIX-0000:00:05.0" */
	char handler[16];		/* desc->name after the '-': "msi", "msi-x", "edge" */
	enum irq_delivery delivery;
};

/*
 * irq's chip in the text of /proc/interrupts; 0, or -1 when no line is
 * the irq's (info->delivery UNKNOWN, the strings empty).
 */
int irq_chip_from_proc(const char *proc_interrupts, uint32_t irq, struct irq_chip_info *info);

/* "msi", "xen-pirq", "xen-evtchn", "other", "unknown" (the JSON's words) */
const char *irq_delivery_name(enum irq_delivery d);
/* A sentence for `info`: how an interrupt of this chip reaches its handler (xen: under Xen). */
const char *irq_delivery_explain(enum irq_delivery d, bool xen);

#endif /* GPUPROBE_HYPERVISOR_H */
