/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by attribute.c (kernel events in windows) and attribute_match.c
 * (which thread, GPU and clock bound each op has).
 */
#ifndef GPUPROBE_ATTRIBUTE_INTERNAL_H
#define GPUPROBE_ATTRIBUTE_INTERNAL_H

#include "attribute.h"

enum kev_kind { KEV_IRQ, KEV_DMA_MAP, KEV_DMA_UNMAP, KEV_IOMMU_MAP, KEV_IOMMU_UNMAP,
		KEV_SWIOTLB, KEV_WAKEUP };

/* One kernel event, as attribution needs it. */
struct kev {
	uint64_t ts;
	uint64_t bytes : 60;		/* saturated at 2^60 - 1 */
	uint64_t kind : 4;		/* enum kev_kind */
	uint32_t ns;			/* duration, saturated at 4.29 s; 0: not measured */
	uint32_t key;			/* its GPU's BDF; for wake-ups the task woken */
};

_Static_assert(sizeof(struct kev) == 24, "kernel events are kept 24 bytes each");

/* kev[lo, hi): the events of one GPU (or of one thread's wake-ups), by time. */
struct kev_segment {
	bool wakeups;
	uint32_t key;
	size_t lo, hi;
};

struct attr_builder {
	struct attribution *at;
	struct gpuprobe_app_event *hosts;	/* API calls and waits */
	size_t nhosts, hosts_cap, ops_cap, names_cap, devices_cap;
	struct gpuprobe_app_event *clocks;	/* CLOCK records */
	size_t nclocks, clocks_cap;
	uint64_t lo, hi;			/* span of the windows */
	struct kev *kev;
	size_t nkev, kev_cap;
	struct attr_counts *block;		/* block[b]: sum of the first b * KEV_BLOCK */
	struct kev_segment *seg;		/* runs of one GPU's (or one thread's) events */
	size_t nseg;
	uint32_t *name_slot;			/* name index + 1, 0 = empty */
	size_t name_slots;
	bool keep_kernel;			/* application events may follow */
};

/* attribute.c */
void attr_counts_add(struct attr_counts *d, const struct attr_counts *a, int sign);

/* attribute_names.c: per-name totals of the ops, sorted by device time. */
int attr_name_add(struct attr_builder *ps, const struct attr_op *op, const struct attr_op_detail *d);
void attr_names_sort(struct attr_builder *ps);

/* attribute_match.c: issue calls and their threads, GPUs, clock bounds, waits. */
void attr_keep_device(struct attr_builder *ps, const struct gpuprobe_app_event *ev);
void attr_keep_clock(struct attr_builder *ps, const struct gpuprobe_app_event *ev);
void attr_match_ops(struct attr_builder *ps);

#endif /* GPUPROBE_ATTRIBUTE_INTERNAL_H */
