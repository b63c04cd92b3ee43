/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * gpuprobe: generic netlink ABI and event records.
 *
 * Documentation/netlink/specs/gpuprobe.yaml is the ABI; this header is kept
 * in lockstep with it.  Every number here is append-only.
 *
 * Records are fixed, naturally aligned and versioned (GPUPROBE_RECORD_VERSION);
 * each starts with struct gpuprobe_rec_hdr whose size field lets a reader skip
 * record types it does not know.  Userspace uses the same records as its event
 * model whichever source (module or tracefs) produced them.
 */
#ifndef _UAPI_LINUX_GPUPROBE_H
#define _UAPI_LINUX_GPUPROBE_H

#include <linux/types.h>

#define GPUPROBE_FAMILY_NAME		"gpuprobe"
#define GPUPROBE_FAMILY_VERSION		1
#define GPUPROBE_MCGRP_EVENTS		"events"
#define GPUPROBE_RECORD_VERSION		1

/* A PCI function packed in 32 bits: domain:16 bus:8 devfn:8. */
#define GPUPROBE_BDF(domain, bus, devfn) \
	((((__u32)(domain) & 0xffff) << 16) | (((__u32)(bus) & 0xff) << 8) | \
	 ((__u32)(devfn) & 0xff))
#define GPUPROBE_BDF_DOMAIN(bdf)	(((bdf) >> 16) & 0xffff)
#define GPUPROBE_BDF_BUS(bdf)		(((bdf) >> 8) & 0xff)
#define GPUPROBE_BDF_DEVFN(bdf)		((bdf) & 0xff)
/* IOMMU events that could not be attributed to a target. */
#define GPUPROBE_BDF_NONE		0xffffffffU

/* Capabilities reported by GET_INFO in GPUPROBE_A_CAPS. */
enum gpuprobe_cap {
	GPUPROBE_CAP_IRQ		= 1 << 0,	/* irq_handler_entry/exit */
	GPUPROBE_CAP_SCHED		= 1 << 1,	/* sched_wakeup/switch */
	GPUPROBE_CAP_DMA		= 1 << 2,	/* DMA-API map/unmap */
	GPUPROBE_CAP_IOMMU		= 1 << 3,	/* iommu map/unmap */
	GPUPROBE_CAP_IOMMU_FAULT	= 1 << 4,
	GPUPROBE_CAP_SWIOTLB		= 1 << 5,
	GPUPROBE_CAP_SUMMARY		= 1 << 6,	/* in-kernel histograms */
	GPUPROBE_CAP_MCAST_PRIV		= 1 << 7,	/* events group needs CAP_SYS_ADMIN */
	GPUPROBE_CAP_KVM		= 1 << 8,	/* kvm's interrupt injection */
};

enum gpuprobe_event_type {
	GPUPROBE_EV_UNSPEC,
	GPUPROBE_EV_IRQ,		/* struct gpuprobe_rec_irq */
	GPUPROBE_EV_LOST,		/* struct gpuprobe_rec_lost */
	GPUPROBE_EV_TARGET,		/* struct gpuprobe_rec_target */
	GPUPROBE_EV_WAKEUP,		/* struct gpuprobe_rec_sched */
	GPUPROBE_EV_SWITCH,		/* struct gpuprobe_rec_sched */
	GPUPROBE_EV_DMA,		/* struct gpuprobe_rec_dma */
	GPUPROBE_EV_IOMMU,		/* struct gpuprobe_rec_iommu */
	GPUPROBE_EV_SWIOTLB,		/* struct gpuprobe_rec_swiotlb */
	GPUPROBE_EV_KVM,		/* struct gpuprobe_rec_kvm */
	GPUPROBE_EV_IOMMU_PART,		/* struct gpuprobe_rec_iommu_part */

	__GPUPROBE_EV_MAX,
};

#define GPUPROBE_EV_MAX		(__GPUPROBE_EV_MAX - 1)
#define GPUPROBE_EVMASK(type)	(1U << (type))
#define GPUPROBE_EVMASK_ALL	(((1U << __GPUPROBE_EV_MAX) - 1) & \
				 ~GPUPROBE_EVMASK(GPUPROBE_EV_UNSPEC))

struct gpuprobe_rec_hdr {
	__u16 type;		/* enum gpuprobe_event_type */
	__u16 size;		/* whole record in bytes, a multiple of 8 */
	__u16 cpu;
	__u16 flags;		/* per type, see below */
	__u64 ts_ns;		/* CLOCK_MONOTONIC */
};

/* gpuprobe_rec_irq.hdr.flags */
#define GPUPROBE_IRQ_HANDLED	(1 << 0)	/* handler returned IRQ_HANDLED */
#define GPUPROBE_IRQ_VFIO	(1 << 1)	/* vector owned by vfio-pci */

struct gpuprobe_rec_irq {
	struct gpuprobe_rec_hdr hdr;	/* ts_ns = handler entry */
	__u32 bdf;
	__u32 irq;			/* Linux irq number */
	__u32 vector;			/* MSI/MSI-X index */
	__u32 reserved;
	__u64 duration_ns;		/* handler entry to exit */
};

struct gpuprobe_rec_lost {
	struct gpuprobe_rec_hdr hdr;
	__u64 count;			/* records dropped on hdr.cpu */
};

enum gpuprobe_target_event {
	GPUPROBE_TARGET_ADDED = 1,
	GPUPROBE_TARGET_VECTORS,	/* vectors (re)resolved */
	GPUPROBE_TARGET_UNBOUND,	/* driver unbound, vectors gone */
	GPUPROBE_TARGET_REMOVED,	/* device removed or target deleted */
	GPUPROBE_TARGET_DOMAIN,		/* its IOMMU domain at START, or changed */
};

struct gpuprobe_rec_target {
	struct gpuprobe_rec_hdr hdr;
	__u32 bdf;
	__u32 event;			/* enum gpuprobe_target_event */
	__u32 nvec;
	union {
		__u32 domain;		/* its IOMMU domain, as in IOMMU
					 * records; 0: none (older modules:
					 * always 0)
					 */
		__u32 reserved;		/* its former name */
	};
};

struct gpuprobe_rec_sched {
	struct gpuprobe_rec_hdr hdr;
	__u32 pid;			/* task woken / task switched in */
	__u32 tgid;
	__u32 prev_pid;			/* switch: task switched out */
	__u32 target_cpu;		/* wakeup: cpu the task will run on */
};

enum gpuprobe_dma_op {
	GPUPROBE_DMA_MAP_PAGE = 1,
	GPUPROBE_DMA_UNMAP_PAGE,
	GPUPROBE_DMA_MAP_SG,
	GPUPROBE_DMA_UNMAP_SG,
	GPUPROBE_DMA_ALLOC,
	GPUPROBE_DMA_FREE,
	GPUPROBE_DMA_MAP_RESOURCE,
	GPUPROBE_DMA_UNMAP_RESOURCE,
};

/* gpuprobe_rec_dma.hdr.flags */
/*
 * Duration unknown (duration_ns is 0): ts_ns is when the call was seen, its
 * end for the module's and tracefs's dma: tracepoint records that had no
 * entry timed, its entry for a tracefs kprobe call whose return was lost.
 */
#define GPUPROBE_DMA_UNTIMED	(1 << 0)

struct gpuprobe_rec_dma {
	struct gpuprobe_rec_hdr hdr;	/* ts_ns = call entry (unless UNTIMED) */
	__u32 bdf;
	__u16 op;			/* enum gpuprobe_dma_op */
	__u8 dir;			/* DMA_BIDIRECTIONAL=0 .. DMA_NONE=3 */
	__u8 reserved;
	__u64 bytes;
	__u64 dma_addr;			/* device address of first segment */
	__u32 nents;			/* segments */
	__u32 iommu_calls;		/* IOMMU map/unmap inside this call */
	__u64 duration_ns;		/* call entry to return */
	__u64 iommu_ns;			/* time in IOMMU map/unmap inside it */
};

enum gpuprobe_iommu_op {
	GPUPROBE_IOMMU_MAP = 1,
	GPUPROBE_IOMMU_UNMAP,
	GPUPROBE_IOMMU_FAULT,
};

/* gpuprobe_rec_iommu.hdr.flags */
#define GPUPROBE_IOMMU_SHARED_DOMAIN	(1 << 0)	/* more targets in the
							 * domain: bdf is the
							 * first of them
							 */

struct gpuprobe_rec_iommu {
	struct gpuprobe_rec_hdr hdr;
	__u32 bdf;			/* GPUPROBE_BDF_NONE if unattributed */
	__u32 op;			/* enum gpuprobe_iommu_op */
	__u64 iova;
	__u64 paddr;			/* map: physical address; fault: 0 */
	__u64 size;
	__u64 duration_ns;
	/* appended: records of older modules end here (hdr.size 56) */
	__u32 domain;			/* the IOMMU domain, a keyed hash; 0: none */
	union {
		__u32 pid;		/* tgid of the task doing it (a VMM's
					 * VFIO map); 0: unknown or irq context
					 */
		__u32 reserved;		/* its former name */
	};
};

#define GPUPROBE_REC_IOMMU_SIZE_V1	56

/*
 * One part of the IOMMU work inside a target's DMA call (or, for a flush,
 * on a target's domain outside any call): Documentation/iommu.md.
 * Written when IOMMU events are asked for and START does not carry
 * GPUPROBE_A_NO_IOMMU_PARTS, where the kernel has the functions (probed by
 * name; GET_INFO lists them).  An event mask with GPUPROBE_EV_IOMMU_PART
 * but not GPUPROBE_EV_IOMMU is refused.
 */
enum gpuprobe_iommu_part {
	GPUPROBE_PART_IOVA_ALLOC = 1,	/* alloc_iova_fast() */
	GPUPROBE_PART_IOVA_FREE,	/* free_iova_fast() */
	GPUPROBE_PART_PGTABLE_MAP,	/* the driver's map_pages() */
	GPUPROBE_PART_PGTABLE_UNMAP,	/* the driver's unmap_pages() */
	GPUPROBE_PART_INVALIDATE,	/* VT-d qi_submit_sync(): submit + wait */
	GPUPROBE_PART_DEFER,		/* lazy mode's queue_iova() */
	GPUPROBE_PART_FLUSH,		/* a whole-domain IOTLB flush (the
					 * flush queue's, from its timer or a
					 * full queue)
					 */
	GPUPROBE_PART_FQ_TIMER,		/* the flush queue's timer
					 * (fq_flush_timeout): its flush and
					 * the frees of the IOVAs it queued
					 */
};

/* gpuprobe_rec_iommu_part.hdr.flags */
#define GPUPROBE_PART_SLOW	(1 << 0)	/* IOVA: the per-CPU rcache did
						 * not serve it (the rbtree's
						 * alloc_iova/free_iova ran)
						 */
#define GPUPROBE_PART_SHARED_DOMAIN (1 << 1)	/* as GPUPROBE_IOMMU_SHARED_DOMAIN */

struct gpuprobe_rec_iommu_part {
	struct gpuprobe_rec_hdr hdr;	/* ts_ns = the part's entry */
	__u32 bdf;
	__u16 part;			/* enum gpuprobe_iommu_part */
	__u16 depth;			/* parts it is nested in (0: none) */
	__u64 duration_ns;		/* entry to return */
	__u64 self_ns;			/* duration less the parts nested in it */
	__u64 call_ts;			/* hdr.ts_ns of the DMA call it is in;
					 * 0: in none (a flush from the timer)
					 */
	__u32 domain;			/* as in IOMMU records; 0: unknown */
	__u32 arg;			/* IOVA: pages; INVALIDATE: descriptors;
					 * PGTABLE: pages of pgsize
					 */
};

/*
 * Where on KVM's way from a host interrupt to a guest interrupt a record
 * was taken (Documentation/trace-format.md, "KVM injection records").
 */
enum gpuprobe_kvm_stage {
	GPUPROBE_KVM_MSI = 1,		/* kvm_msi_set_irq: an MSI routed to a VM */
	GPUPROBE_KVM_SET_IRQ,		/* kvm_set_irq: a GSI raised or lowered */
	GPUPROBE_KVM_ACCEPT,		/* kvm_apic_accept_irq: a vCPU's APIC took it */
	GPUPROBE_KVM_INJECT,		/* kvm_inj_virq: injected at VM entry */
	/*
	 * The vCPU thread's own steps (the tracefs source; stage-specific
	 * fields in Documentation/trace-format.md): vcpu is the vCPU's id.
	 */
	GPUPROBE_KVM_ENTRY,		/* kvm_entry: a VM entry */
	GPUPROBE_KVM_EXIT,		/* kvm_exit: vector the exit reason, level the ISA */
	GPUPROBE_KVM_EOI,		/* kvm_eoi: the guest's EOI of vector */
	GPUPROBE_KVM_PV_EOI,		/* kvm_pv_eoi: one taken from the PV EOI page */
	GPUPROBE_KVM_PI_IRTE,		/* kvm_pi_irte_update: level 1 posted, 0 not */
	/* not a tracepoint: the host's kvm_amd avic (vector), kvm_intel enable_apicv (level) */
	GPUPROBE_KVM_APIC_MODE,
};

/* gpuprobe_rec_kvm.level of EXIT: kvm_exit's isa */
#define GPUPROBE_KVM_ISA_VMX	1
#define GPUPROBE_KVM_ISA_SVM	2
/* APIC_MODE's vector and level: a module parameter's value */
#define GPUPROBE_KVM_PARAM_OFF		0
#define GPUPROBE_KVM_PARAM_ON		1
#define GPUPROBE_KVM_PARAM_ABSENT	2	/* module not loaded, or no such parameter */

/* gpuprobe_rec_kvm.hdr.flags */
#define GPUPROBE_KVM_REINJECTED	(1 << 0)	/* kvm_inj_virq says so (6.2+) */

#define GPUPROBE_KVM_VCPU_NONE	0xffffffffU

struct gpuprobe_rec_kvm {
	struct gpuprobe_rec_hdr hdr;
	__u32 bdf;			/* target whose handler it ran in, or
					 * GPUPROBE_BDF_NONE
					 */
	__u32 host_irq;			/* that handler's Linux irq; 0: none */
	__u32 pid;			/* tgid of the task (INJECT: the VMM);
					 * 0: irq context or unknown
					 */
	__u32 tid;
	__u32 vcpu;			/* ACCEPT: the vCPU's id; else VCPU_NONE */
	__u32 vector;			/* guest vector; SET_IRQ: the GSI */
	__u16 stage;			/* enum gpuprobe_kvm_stage */
	__u16 reserved;
	__u32 level;			/* SET_IRQ: the level; else 0 */
	__u64 msi_address;		/* MSI: the message (data in vector) */
};

struct gpuprobe_rec_swiotlb {
	struct gpuprobe_rec_hdr hdr;
	__u32 bdf;
	__u32 dir;
	__u64 bytes;
};

/* Generic netlink commands. */
enum gpuprobe_cmd {
	GPUPROBE_CMD_UNSPEC,
	GPUPROBE_CMD_GET_INFO,		/* do: module, clock, caps, hooks */
	GPUPROBE_CMD_TARGET_ADD,	/* do: GPUPROBE_A_BDF */
	GPUPROBE_CMD_TARGET_DEL,	/* do: GPUPROBE_A_BDF */
	GPUPROBE_CMD_TARGET_GET,	/* dump: one message per target */
	GPUPROBE_CMD_START,		/* do: EVENT_MASK, SUMMARY; owned by the sender */
	GPUPROBE_CMD_STOP,		/* do */
	GPUPROBE_CMD_STATS_GET,		/* dump (or do): per-CPU counters */
	GPUPROBE_CMD_EVENTS,		/* notification: RECORDS */
	GPUPROBE_CMD_TGID_ADD,		/* do: TGID (or CGROUP) to follow for sched events */
	GPUPROBE_CMD_TGID_DEL,		/* do: TGID or CGROUP */
	GPUPROBE_CMD_SUMMARY_GET,	/* do: histograms (summary mode) */

	__GPUPROBE_CMD_MAX,
};

#define GPUPROBE_CMD_MAX (__GPUPROBE_CMD_MAX - 1)

enum gpuprobe_attr {
	GPUPROBE_A_UNSPEC,
	GPUPROBE_A_PAD,
	GPUPROBE_A_VERSION,		/* string: module version */
	GPUPROBE_A_KERNEL_RELEASE,	/* string: utsname release */
	GPUPROBE_A_CLOCK,		/* u32: clockid, CLOCK_MONOTONIC */
	GPUPROBE_A_CAPS,		/* u64: enum gpuprobe_cap mask */
	GPUPROBE_A_RECORD_VERSION,	/* u32: GPUPROBE_RECORD_VERSION */
	GPUPROBE_A_HOOK,		/* nest: GPUPROBE_A_HOOK_*, repeated */
	GPUPROBE_A_TARGET,		/* nest: GPUPROBE_A_TARGET_* */
	GPUPROBE_A_BDF,			/* string: "DDDD:BB:DD.F" */
	GPUPROBE_A_EVENT_MASK,		/* u32: GPUPROBE_EVMASK() bits */
	GPUPROBE_A_SUMMARY,		/* flag: histograms instead of records */
	GPUPROBE_A_RECORDS,		/* binary: packed gpuprobe_rec_* */
	GPUPROBE_A_STATS,		/* nest: GPUPROBE_A_STATS_*, per CPU */
	GPUPROBE_A_TGID,		/* u32 */
	GPUPROBE_A_RUNNING,		/* u8: 1 while started */
	GPUPROBE_A_HIST,		/* nest: GPUPROBE_A_HIST_* */
	GPUPROBE_A_MISSED,		/* u64: calls kretprobes missed */
	GPUPROBE_A_IOMMU_UNATTRIBUTED,	/* u64: see the spec */
	GPUPROBE_A_PROBE_RECURSION,	/* u64: see the spec */
	GPUPROBE_A_SUMMARY_DROPPED,	/* u64: SUMMARY_GET: samples in no HIST */
	GPUPROBE_A_IRQMAP_FAILED,	/* u64: irq map publishes without memory */
	GPUPROBE_A_DMAR_UNITS,		/* u32: VT-d units whose faults are read */
	GPUPROBE_A_CGROUP,		/* u64: cgroup v2 id (TGID_ADD/DEL) */
	GPUPROBE_A_NO_IOMMU_PARTS,	/* flag: START: no IOMMU parts probes */

	__GPUPROBE_A_MAX,
};

#define GPUPROBE_A_MAX (__GPUPROBE_A_MAX - 1)

enum gpuprobe_hook_attr {
	GPUPROBE_A_HOOK_UNSPEC,
	GPUPROBE_A_HOOK_NAME,		/* string: "irq_handler_entry" ... */
	GPUPROBE_A_HOOK_ATTACHED,	/* u8 */
	GPUPROBE_A_HOOK_REASON,		/* string: why not attached */

	__GPUPROBE_A_HOOK_MAX,
};

#define GPUPROBE_A_HOOK_MAX (__GPUPROBE_A_HOOK_MAX - 1)

enum gpuprobe_target_attr {
	GPUPROBE_A_TARGET_UNSPEC,
	GPUPROBE_A_TARGET_BDF,		/* string */
	GPUPROBE_A_TARGET_VENDOR,	/* u16 */
	GPUPROBE_A_TARGET_DEVICE,	/* u16 */
	GPUPROBE_A_TARGET_CLASS,	/* u32 */
	GPUPROBE_A_TARGET_DRIVER,	/* string, absent when unbound */
	GPUPROBE_A_TARGET_VECTOR,	/* nest: GPUPROBE_A_VECTOR_*, repeated */
	GPUPROBE_A_TARGET_CONTINUED,	/* flag: more of the last message's vectors */

	__GPUPROBE_A_TARGET_MAX,
};

#define GPUPROBE_A_TARGET_MAX (__GPUPROBE_A_TARGET_MAX - 1)

enum gpuprobe_vector_attr {
	GPUPROBE_A_VECTOR_UNSPEC,
	GPUPROBE_A_VECTOR_INDEX,	/* u32: MSI/MSI-X index */
	GPUPROBE_A_VECTOR_IRQ,		/* u32: Linux irq */
	GPUPROBE_A_VECTOR_MSIX,		/* u8: 1 for MSI-X */

	__GPUPROBE_A_VECTOR_MAX,
};

#define GPUPROBE_A_VECTOR_MAX (__GPUPROBE_A_VECTOR_MAX - 1)

enum gpuprobe_stats_attr {
	GPUPROBE_A_STATS_UNSPEC,
	GPUPROBE_A_STATS_PAD,
	GPUPROBE_A_STATS_CPU,		/* u32 */
	GPUPROBE_A_STATS_CAPTURED,	/* u64: records written */
	GPUPROBE_A_STATS_DROPPED,	/* u64: records lost */
	GPUPROBE_A_STATS_MESSAGES,	/* u64: netlink messages sent */
	GPUPROBE_A_STATS_BYTES,		/* u64: record bytes sent */
	GPUPROBE_A_STATS_UNDELIVERED,	/* u64: records no listener took */
	GPUPROBE_A_STATS_OVERRUN,	/* u64: of them, a full socket refused */
	GPUPROBE_A_STATS_HIGH_WATER,	/* u64: most records a drain found */
	GPUPROBE_A_STATS_WAIT_MAX,	/* u64: ns a record waited for a drain, at most */
	GPUPROBE_A_STATS_SLOTS,		/* u32: the ring's size in records */
	GPUPROBE_A_STATS_SUMMARY_DROPPED, /* u64: samples a full slot table lost */
	GPUPROBE_A_STATS_NO_RING,	/* u64: records lost: the CPU had no ring */

	__GPUPROBE_A_STATS_MAX,
};

#define GPUPROBE_A_STATS_MAX (__GPUPROBE_A_STATS_MAX - 1)

enum gpuprobe_hist_attr {
	GPUPROBE_A_HIST_UNSPEC,
	GPUPROBE_A_HIST_PAD,
	GPUPROBE_A_HIST_BDF,		/* u32: packed bdf */
	GPUPROBE_A_HIST_VECTOR,		/* u32 */
	GPUPROBE_A_HIST_COUNT,		/* u64 */
	GPUPROBE_A_HIST_BUCKETS,	/* binary: u64[64], log2(ns) buckets */

	__GPUPROBE_A_HIST_MAX,
};

#define GPUPROBE_A_HIST_MAX (__GPUPROBE_A_HIST_MAX - 1)

#endif /* _UAPI_LINUX_GPUPROBE_H */
