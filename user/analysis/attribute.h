/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attribution: which interrupts, DMA/IOMMU maps, swiotlb bounces and
 * wake-ups fall in each CUDA/OpenCL kernel's and copy's time, in three
 * phases: `issue` (the API call that issued it, or its enqueue, to device
 * start), `run` (device start to end) and `return` (device end to the return
 * of the call that waited for it).  Documentation/report-json.md, "app".
 *
 * Each op is charged only with the events of its own GPU (the PCI function
 * its API named in a DEVICE record) and, for wake-ups, of its own thread:
 * the issuing thread for issue and run, the thread that waited for return.
 * Device start and end are device-clock times mapped to the host with an
 * error bound (CLOCK records): events within that bound of either edge can
 * belong to either side and are counted apart, in `margin`, in no phase.
 */
#ifndef GPUPROBE_ATTRIBUTE_H
#define GPUPROBE_ATTRIBUTE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "strtab.h"
#include "tracefile.h"

/*
 * Kernel events kept until the application events (last in the file) say
 * which windows matter: 32 bytes each, 512 MiB at most.  Beyond it events
 * are counted in kernel_events_dropped and the report says so.
 */
#define ATTR_MAX_KERNEL_EVENTS	(16u << 20)
#define ATTR_MAX_APP_EVENTS	(4u << 20)

enum attr_phase { ATTR_ISSUE, ATTR_RUN, ATTR_RETURN, ATTR_PHASES };

/* Kernel-side totals over a window. */
struct attr_counts {
	uint64_t irqs, irq_ns;
	uint64_t dma_maps, dma_map_bytes, dma_unmaps, dma_ns, dma_timed;
	uint64_t iommu_maps, iommu_map_bytes, iommu_unmaps;
	uint64_t swiotlb, swiotlb_bytes;
	uint64_t wakeups;
};

/*
 * An op's kernel events by phase.  Kept for the first ATTR_OPS_DETAILED ops
 * (what report prints op by op); every op's go into its name's totals and
 * the summary as they are computed.
 */
struct attr_op_detail {
	struct attr_counts phase[ATTR_PHASES];
	struct attr_counts margin;	/* within clock_error_ns of start or end: ambiguous */
};

#define ATTR_OPS_DETAILED	10000

/* One kernel, copy or memset, with its windows. */
struct attr_op {
	struct gpuprobe_app_event ev;
	uint64_t issue_ns;		/* 0: unknown */
	uint64_t return_ns;		/* 0: nobody waited for it */
	uint32_t issue_tid;		/* thread of the issuing call, 0: unknown */
	uint32_t wait_tid;		/* thread that waited for it, 0: none */
	uint32_t bdf;			/* its GPU, GPUPROBE_BDF_NONE: not known */
	bool clock_bound_known;		/* a CLOCK record measured clock_error_ns */
	uint64_t clock_error_ns;	/* bound on start and end as host times */
	/* its counts: for the first ATTR_OPS_DETAILED ops by start, else NULL */
	struct attr_op_detail *detail;
};

/* A device of one process and the PCI function its API named. */
struct attr_device {
	uint8_t api;
	bool pci_known;
	uint32_t pid, device, bdf;
	char name[GPUPROBE_APP_NAME_LEN];
};

/* Totals per (api, type, name). */
struct attr_name {
	uint8_t api;
	uint16_t type;
	char name[GPUPROBE_APP_NAME_LEN];
	uint64_t count, device_ns, bytes, return_ns;
	struct attr_counts phase[ATTR_PHASES];
};

struct attr_summary {
	uint64_t wall_ns;		/* the recording */
	uint64_t device_ns;		/* sum of op durations */
	uint64_t return_wait_ns;	/* device end to call return, summed */
	uint64_t irq_wait_ns;		/* of which in waits that saw a target interrupt */
	uint64_t irq_waits, waits;
	uint64_t map_call_ns;		/* DMA map/unmap durations (module source) */
	uint64_t map_calls_timed;	/* calls with a duration: 0 means map_call_ns not measured */
	uint64_t api_ns_with_maps;	/* host calls during which a map happened */
	uint64_t api_calls_with_maps;
	uint64_t margin_events;		/* kernel events in some op's ambiguous margin */
	uint64_t margin_irqs;
};

#define ATTR_SYNC_KINDS	(GPUPROBE_SYNC_STREAM_WAIT + 1)

struct attribution {
	uint64_t app_events, api_events, sync_events;
	uint64_t events_by_api[3];		/* [enum gpuprobe_app_api]: 0 unknown */
	/* OVERHEAD records of the tracer's own kinds (GPUPROBE_OVERHEAD_IS_CUPTI), their time */
	uint64_t overhead_records, overhead_ns;
	/* SYNC records by enum gpuprobe_app_sync kind, and the time they took */
	uint64_t syncs_by_kind[ATTR_SYNC_KINDS], sync_ns_by_kind[ATTR_SYNC_KINDS];
	/* SYNC records outside the span of their API call: not waits */
	uint64_t syncs_outside_call;
	uint64_t app_events_dropped;		/* past ATTR_MAX_APP_EVENTS */
	uint64_t kernel_events;			/* inside the windows' span */
	uint64_t kernel_events_dropped;		/* past ATTR_MAX_KERNEL_EVENTS */
	/* IOMMU map/unmap records naming no device (tracefs): never charged to an op */
	struct attr_counts unattributed;
	char limit_note[160];			/* why attribution is partial, or empty */
	unsigned int nnotes;
	char notes[8][GPUPROBE_APP_NAME_LEN];
	size_t nops;
	struct attr_op *ops;		/* sorted by device start */
	struct attr_op_detail *details;	/* of ops[0 .. ATTR_OPS_DETAILED) */
	size_t nnames;
	struct attr_name *names;	/* sorted by device time, largest first */
	size_t ndevices;
	struct attr_device *devices;	/* from DEVICE records */
	unsigned int kernel_bdfs;	/* GPUs the kernel events name */
	uint64_t ops_unmapped;		/* GPU unknown among several: charged no device event */
	uint64_t clock_points;		/* CLOCK records */
	uint64_t ops_without_clock_bound;
	uint64_t clock_error_max_ns;	/* largest bound used by an op */
	struct attr_summary sum;
	struct strtab strings;		/* whole names of shortened ones (TRACEFILE_REC_STRING) */
};

/*
 * One pass: feed every record to attr_builder_add(), in file order, then
 * attr_builder_finish() gives the attribution; NULL on error (err says) and
 * also, with err empty, when there were no application events.
 */
struct attr_builder;
/*
 * app_events: the header's hint (enum tracefile_app_events); with
 * TRACEFILE_APP_NONE kernel events are not kept (limit_note says so if
 * application events come anyway).
 */
struct attr_builder *attr_builder_new(uint32_t app_events);
void attr_builder_add(struct attr_builder *b, const struct gpuprobe_rec_hdr *rec);
/* false: only TRACEFILE_REC_APP records need to be added (a hot loop may skip the rest). */
bool attr_builder_keeps_kernel(const struct attr_builder *b);
struct attribution *attr_builder_finish(struct attr_builder *b, uint64_t wall_ns,
					char *err, size_t errlen);
void attr_builder_free(struct attr_builder *b);

/* The same over a whole file (tests). */
struct attribution *attribute_file(const char *path, char *err, size_t errlen);
void attribution_free(struct attribution *at);

/* verbose: the all-zero phase rows too (else folded into one line). */
void attribute_print_text(FILE *out, const struct attribution *at, bool verbose);
void attribute_print_json(struct json *j, const struct attribution *at);

const char *attr_type_name(uint16_t type);
const char *attr_api_name(uint8_t api);
const char *attr_copy_name(uint32_t kind);

#endif /* GPUPROBE_ATTRIBUTE_H */
