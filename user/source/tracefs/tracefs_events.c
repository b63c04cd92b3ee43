// SPDX-License-Identifier: GPL-2.0
/* Event table and kernel filters of the tracefs source; see tracefs_events.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <linux/gpuprobe.h>

#include "tracefs_events.h"

const char *const field_names[F_COUNT][FIELD_NAME_CHOICES] = {
	[F_IRQ] = { "irq" }, [F_RET] = { "ret" }, [F_PID] = { "pid" },
	[F_TARGET_CPU] = { "target_cpu" }, [F_PREV_PID] = { "prev_pid" },
	[F_NEXT_PID] = { "next_pid" }, [F_DEVICE] = { "device", "dev_name" },
	[F_IOVA] = { "iova" }, [F_PADDR] = { "paddr", "phys_addr" },
	[F_SIZE] = { "unmapped_size", "size" }, [F_DMA_ADDR] = { "dma_addr", "addr" },
	[F_DIR] = { "dir" }, [F_NENTS] = { "full_ents", "ents" },
	[F_LENGTHS] = { "lengths" }, [F_DMA_ADDRS] = { "dma_addrs", "addrs" },
	/* kvm_inj_virq's is "irq" before 6.2 */
	[F_VECTOR] = { "vector", "vec", "irq" }, [F_APICID] = { "apicid" },
	[F_MSI_ADDR] = { "address" }, [F_MSI_DATA] = { "data" }, [F_GSI] = { "gsi" },
	[F_LEVEL] = { "level" }, [F_REINJECTED] = { "reinjected" },
	[F_VCPU_ID] = { "vcpu_id" }, [F_EXIT_REASON] = { "exit_reason" }, [F_ISA] = { "isa" },
	[F_HOST_IRQ] = { "host_irq" }, [F_GVEC] = { "gvec" }, [F_PI_SET] = { "set" },
};

/* dma_map_page & co. are the 6.12 names; 6.16 renamed them *_phys. */
const struct event_spec event_specs[TRACEFS_NSPECS] = {
	{ "irq", "irq_handler_entry", K_IRQ_ENTRY, BY_IRQ, GPUPROBE_EV_IRQ, 0 },
	{ "irq", "irq_handler_exit", K_IRQ_EXIT, BY_IRQ, GPUPROBE_EV_IRQ, 0 },
	{ "sched", "sched_wakeup", K_WAKEUP, BY_WORKLOAD, GPUPROBE_EV_WAKEUP, 0 },
	{ "sched", "sched_switch", K_SWITCH, BY_WORKLOAD, GPUPROBE_EV_SWITCH, 0 },
	{ "iommu", "map", K_IOMMU, BY_NOTHING, GPUPROBE_EV_IOMMU, GPUPROBE_IOMMU_MAP },
	{ "iommu", "unmap", K_IOMMU, BY_NOTHING, GPUPROBE_EV_IOMMU, GPUPROBE_IOMMU_UNMAP },
	{ "iommu", "io_page_fault", K_IOMMU, BY_DEVICE, GPUPROBE_EV_IOMMU, GPUPROBE_IOMMU_FAULT },
	{ "swiotlb", "swiotlb_bounced", K_SWIOTLB, BY_DEVICE, GPUPROBE_EV_SWIOTLB, 0 },
	{ "dma", "dma_map_phys", K_DMA, BY_DEVICE, GPUPROBE_EV_DMA, GPUPROBE_DMA_MAP_PAGE },
	{ "dma", "dma_unmap_phys", K_DMA, BY_DEVICE, GPUPROBE_EV_DMA, GPUPROBE_DMA_UNMAP_PAGE },
	{ "dma", "dma_map_page", K_DMA, BY_DEVICE, GPUPROBE_EV_DMA, GPUPROBE_DMA_MAP_PAGE },
	{ "dma", "dma_unmap_page", K_DMA, BY_DEVICE, GPUPROBE_EV_DMA, GPUPROBE_DMA_UNMAP_PAGE },
	{ "dma", "dma_map_resource", K_DMA, BY_DEVICE, GPUPROBE_EV_DMA, GPUPROBE_DMA_MAP_RESOURCE },
	{ "dma", "dma_unmap_resource", K_DMA, BY_DEVICE, GPUPROBE_EV_DMA, GPUPROBE_DMA_UNMAP_RESOURCE },
	{ "dma", "dma_map_sg", K_DMA, BY_DEVICE, GPUPROBE_EV_DMA, GPUPROBE_DMA_MAP_SG },
	{ "dma", "dma_unmap_sg", K_DMA, BY_DEVICE, GPUPROBE_EV_DMA, GPUPROBE_DMA_UNMAP_SG },
	{ "dma", "dma_alloc", K_DMA, BY_DEVICE, GPUPROBE_EV_DMA, GPUPROBE_DMA_ALLOC },
	{ "dma", "dma_free", K_DMA, BY_DEVICE, GPUPROBE_EV_DMA, GPUPROBE_DMA_FREE },
	/*
	 * KVM's way from a host interrupt to a guest one (kvm.ko: present while
	 * it is loaded).  The first three run in the host handler that fired
	 * them and are kept there only (tracefs_decode.c); injection on the
	 * vCPU thread is kept for the workload (the VMM) or, with none, all.
	 */
	{ "kvm", "kvm_msi_set_irq", K_KVM, BY_NOTHING, GPUPROBE_EV_KVM, GPUPROBE_KVM_MSI },
	{ "kvm", "kvm_set_irq", K_KVM, BY_NOTHING, GPUPROBE_EV_KVM, GPUPROBE_KVM_SET_IRQ },
	{ "kvm", "kvm_apic_accept_irq", K_KVM, BY_NOTHING, GPUPROBE_EV_KVM, GPUPROBE_KVM_ACCEPT },
	{ "kvm", "kvm_inj_virq", K_KVM, BY_NOTHING, GPUPROBE_EV_KVM, GPUPROBE_KVM_INJECT },
	/*
	 * The vCPU thread's way around the injection (the host path of
	 * Documentation/passthrough.md): its entries and exits (the reason),
	 * the guest's EOIs, and whether the IRTE posts the MSI to the vCPU.
	 * Kept for the workload (the VMM) as injections are; entries, exits
	 * and EOIs enabled only for record --guest (tracefs_enable.c): on a
	 * host with many busy VMs and no workload named, they are many.
	 */
	{ "kvm", "kvm_entry", K_KVM, BY_NOTHING, GPUPROBE_EV_KVM, GPUPROBE_KVM_ENTRY },
	{ "kvm", "kvm_exit", K_KVM, BY_NOTHING, GPUPROBE_EV_KVM, GPUPROBE_KVM_EXIT },
	{ "kvm", "kvm_eoi", K_KVM, BY_NOTHING, GPUPROBE_EV_KVM, GPUPROBE_KVM_EOI },
	{ "kvm", "kvm_pv_eoi", K_KVM, BY_NOTHING, GPUPROBE_EV_KVM, GPUPROBE_KVM_PV_EOI },
	{ "kvm", "kvm_pi_irte_update", K_KVM, BY_NOTHING, GPUPROBE_EV_KVM, GPUPROBE_KVM_PI_IRTE },
};

static int append_clause(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int append_clause(char *buf, size_t size, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;
	int n;

	if (used) {
		if (used + 2 >= size)
			return -1;
		memcpy(buf + used, "||", 3);
		used += 2;
	}
	va_start(ap, fmt);
	n = vsnprintf(buf + used, size - used, fmt, ap);
	va_end(ap);
	return (n < 0 || (size_t)n >= size - used) ? -1 : 0;
}

int build_event_filter(const struct event_spec *spec, const struct target_set *set,
		       const char *device_field, char *buf, size_t size)
{
	int err = 0;

	buf[0] = '\0';
	switch (spec->filter) {
	case BY_NOTHING:
	case BY_WORKLOAD:
		return 0;
	case BY_IRQ:
		for (unsigned int i = 0; i < set->count; i++)
			for (uint32_t j = 0; j < set->t[i].nvec; j++)
				err |= append_clause(buf, size, "irq==%u", set->t[i].vec[j].irq);
		break;
	case BY_DEVICE:
		if (!device_field)
			return -1;
		for (unsigned int i = 0; i < set->count; i++)
			err |= append_clause(buf, size, "%s==\"%s\"", device_field, set->t[i].name);
		break;
	}
	return err || !buf[0] ? -1 : 0;
}
