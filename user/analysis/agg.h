/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Streaming aggregation of trace records into per-target and per-vector
 * statistics.  Memory is bounded by the number of distinct targets and
 * vectors (capped), never by the number of records -- except the KVM
 * pairing of kvm.c, which keeps two small records per interrupt delivered
 * to a VM (capped; traces without KVM records keep nothing).
 */
#ifndef GPUPROBE_AGG_H
#define GPUPROBE_AGG_H

#include <stdbool.h>
#include <stdint.h>

#include "command.h"
#include "hist.h"
#include "iommu_parts.h"
#include "kvm.h"
#include "xen.h"
#include "tracefile.h"

#define AGG_MAX_VECTORS		512
#define AGG_MAX_TARGETS		(TARGET_MAX + 8)
#define AGG_VECTOR_SLOTS	2048	/* hash slots, power of two */
#define AGG_DMA_OPS		(GPUPROBE_DMA_UNMAP_RESOURCE + 1)
#define AGG_IOMMU_OPS		(GPUPROBE_IOMMU_FAULT + 1)
#define AGG_MAX_DOMAINS		(TARGET_MAX * 2)

struct agg_vector {
	uint32_t bdf;
	uint32_t irq;
	uint32_t index;
	uint32_t flags;			/* VECTOR_MSIX */
	bool in_header;
	bool resolved_late;		/* a VECTOR record: found while recording */
	uint64_t resolved_ts;
	uint64_t count;
	uint64_t handled;
	uint64_t no_exit;
	uint64_t first_ts;
	uint64_t last_ts;
	/* kernel's own count, from TRACEFILE_REC_IRQ_COUNT */
	bool have_kstart, have_kstop;
	uint64_t kstart, kstop, kstart_ts, kstop_ts;
	uint64_t in_window;		/* records between the two counts */
	struct hist *handler_ns;
};

struct agg_dma_op {
	uint64_t calls;
	uint64_t bytes;
	uint64_t segments;
	uint64_t iommu_calls;
	uint64_t iommu_ns;
	uint64_t untimed;		/* calls without a duration (tracefs dma: events are instants) */
	struct hist latency_ns;		/* the timed calls only */
};

struct agg_iommu_op {
	uint64_t count;
	uint64_t bytes;
	uint64_t untimed;		/* events without a duration (tracefs: instants) */
	struct hist *time_ns;		/* the timed events only */
};

struct agg_target {
	uint32_t bdf;			/* GPUPROBE_BDF_NONE: unattributed */
	int header_index;		/* into trace_info targets, -1 if absent */
	uint64_t irq_count;
	struct agg_dma_op *dma[AGG_DMA_OPS];
	struct agg_iommu_op iommu[AGG_IOMMU_OPS];
	uint64_t swiotlb_bounces;
	uint64_t swiotlb_bytes;
	uint64_t target_events;
};

/*
 * An IOMMU domain and the targets in it (module source: TARGET records
 * carry each target's domain).  The IOMMU work of a domain that several
 * targets share (a VFIO container) is its own, no single target's.
 */
struct agg_domain {
	uint32_t domain;		/* the module's keyed hash */
	bool shared;			/* IOMMU records flagged shared */
	unsigned int ntargets;
	uint32_t targets[TARGET_MAX];	/* every target seen in it, in order */
	struct agg_iommu_op iommu[AGG_IOMMU_OPS];	/* shared records */
};

struct agg {
	const struct trace_info *info;
	unsigned int nvectors;
	struct agg_vector vectors[AGG_MAX_VECTORS];
	uint16_t vector_slot[AGG_VECTOR_SLOTS];	/* vector index + 1, 0 = empty */
	unsigned int ntargets;
	struct agg_target targets[AGG_MAX_TARGETS];
	unsigned int ndomains;
	struct agg_domain domains[AGG_MAX_DOMAINS];
	uint64_t records;
	uint64_t first_ts, last_ts;
	uint64_t lost;			/* records the source dropped */
	uint64_t lost_reports;
	uint64_t lost_unknown;		/* reports whose count is unknown */
	uint64_t wakeups, switches;
	uint64_t overflow;		/* records past the table limits */
	bool complete;			/* end record seen */
	uint64_t truncated_at;		/* !complete: byte offset of the cut */
	/* chunks skipped as damaged (agg_finish, from the reader): counts are lower bounds */
	uint32_t damaged;
	uint64_t skipped_records;	/* their records: exact, or at least (!skipped_exact) */
	bool skipped_exact;
	unsigned int ndamage;		/* listed below, at most TRACEFILE_DAMAGE_LIST */
	struct tracefile_damage damage[TRACEFILE_DAMAGE_LIST];
	uint64_t stop_ns;
	int32_t exit_status;
	struct trace_command command;	/* the workload's argv, when the trace has it */
	bool have_delivery;		/* the module's delivery (module source only) */
	struct tracefile_rec_delivery delivery;
	uint64_t unknown_records;
	uint64_t app_events;		/* CUDA/OpenCL records (attribute.c) */
	/* agg_finish: vectors not in the header, and their interrupt records */
	uint64_t vectors_not_in_header, irqs_not_in_header;
	/* the host side of a passed-through target (kvm.c); NULL: no KVM records */
	struct kvm_host *kvm;
	/* Xen's side (xen.c, record --source xentrace); NULL: no Xen records */
	struct xen_host *xen;
	/* the parts of the targets' IOMMU work (iommu_parts.c); never NULL */
	struct iommu_parts *parts;
};

struct agg *agg_new(const struct trace_info *info);
void agg_add(struct agg *a, const struct gpuprobe_rec_hdr *rec);
void agg_finish(struct agg *a, const struct trace_reader *r);
void agg_free(struct agg *a);

double agg_duration_s(const struct agg *a);
const struct target *agg_target_info(const struct agg *a, const struct agg_target *t);
const char *dma_op_name(unsigned int op);
const char *iommu_op_name(unsigned int op);
/* Counted in target_events: bind, unbind, vectors; not DOMAIN reports. */
bool agg_target_event_counted(uint32_t event);

#endif /* GPUPROBE_AGG_H */
