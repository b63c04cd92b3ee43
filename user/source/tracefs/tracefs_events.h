/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracefs events the tracefs source uses, how their fields map to record
 * fields, and the kernel-side filters that keep only the targets' events.
 * Plain data and string building: no libtracefs here (tracefs_enable.c has that).
 */
#ifndef GPUPROBE_TRACEFS_EVENTS_H
#define GPUPROBE_TRACEFS_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "target.h"

enum field_role {
	F_IRQ, F_RET, F_PID, F_TARGET_CPU, F_PREV_PID, F_NEXT_PID, F_DEVICE,
	F_IOVA, F_PADDR, F_SIZE, F_DMA_ADDR, F_DIR, F_NENTS, F_LENGTHS, F_DMA_ADDRS,
	F_VECTOR, F_APICID, F_MSI_ADDR, F_MSI_DATA, F_GSI, F_LEVEL, F_REINJECTED,
	F_VCPU_ID, F_EXIT_REASON, F_ISA, F_HOST_IRQ, F_GVEC, F_PI_SET,
	F_COUNT
};

#define FIELD_NAME_CHOICES	3

/* Candidate field names per role, newest kernel first. */
extern const char *const field_names[F_COUNT][FIELD_NAME_CHOICES];

enum event_kind { K_IRQ_ENTRY, K_IRQ_EXIT, K_WAKEUP, K_SWITCH, K_IOMMU, K_SWIOTLB, K_DMA, K_KVM };

enum filter_kind {
	BY_NOTHING,		/* the event carries no device: take all */
	BY_IRQ,			/* irq==N||... over the targets' vectors */
	BY_DEVICE,		/* device=="BDF"||... */
	BY_WORKLOAD,		/* the sched instance's set_event_pid does it */
};

struct event_spec {
	const char *system;
	const char *name;
	enum event_kind kind;
	enum filter_kind filter;
	uint16_t rec_type;	/* enum gpuprobe_event_type, for the event mask */
	uint16_t op;		/* enum gpuprobe_dma_op / _iommu_op / _kvm_stage */
};

#define TRACEFS_NSPECS	27
extern const struct event_spec event_specs[TRACEFS_NSPECS];

/*
 * Filter text for spec over the targets; device_field is the event's device
 * field name for BY_DEVICE.  "" when none is needed; -1 when nothing can match.
 */
int build_event_filter(const struct event_spec *spec, const struct target_set *targets,
		       const char *device_field, char *buf, size_t size);

#endif /* GPUPROBE_TRACEFS_EVENTS_H */
