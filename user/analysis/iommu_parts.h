/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of the IOMMU work inside the targets' DMA calls (module
 * records GPUPROBE_EV_IOMMU_PART, Documentation/iommu.md): per target, how
 * the map/unmap time splits into invalidation, page tables, IOVA, lazy
 * mode's deferral and the rest, and each part's own-time distribution.
 *
 * A part names its call by the call's entry time (call_ts = the DMA
 * record's ts_ns, same bdf).  Records of different CPUs are not in time
 * order, so the timed DMA calls and the parts are kept (16-24 bytes each,
 * at most PARTS_MAX_EVENTS of each; the rest are counted) and paired at
 * the end.  Traces without part records keep nothing past the end.
 */
#ifndef GPUPROBE_IOMMU_PARTS_H
#define GPUPROBE_IOMMU_PARTS_H

#include <stdbool.h>
#include <stdint.h>

#include "hist.h"
#include "iommu_mode.h"
#include "tracefile.h"

#define PARTS_N			(GPUPROBE_PART_FQ_TIMER + 1)
#define PARTS_MAX_EVENTS	(1u << 22)
#define PARTS_MAX_TARGETS	16

/* What the call time is split into; other = the call less the rest. */
enum parts_group {
	PARTS_G_INVALIDATE,	/* INVALIDATE, FLUSH */
	PARTS_G_PGTABLE,	/* PGTABLE_MAP, PGTABLE_UNMAP */
	PARTS_G_IOVA,		/* IOVA_ALLOC, IOVA_FREE */
	PARTS_G_DEFER,		/* DEFER */
	PARTS_G_OTHER,
	PARTS_GROUPS,
};

/* map-like calls (map_page, map_sg, alloc, map_resource) and unmap-like */
enum { PARTS_MAP, PARTS_UNMAP, PARTS_DIRS };

struct parts_stat {
	uint64_t count;
	uint64_t in_call;		/* inside a recorded DMA call */
	uint64_t slow;			/* GPUPROBE_PART_SLOW */
	uint64_t arg_sum;		/* pages / descriptors */
	struct hist *self_ns;		/* own time, every record */
};

struct parts_target {
	uint32_t bdf;
	struct parts_stat part[PARTS_N];
	uint64_t calls[PARTS_DIRS];		/* timed DMA calls */
	uint64_t call_ns[PARTS_DIRS];
	uint64_t calls_with_parts[PARTS_DIRS];
	uint64_t group_ns[PARTS_DIRS][PARTS_GROUPS];	/* own times in calls */
	uint64_t over;			/* calls whose parts add up to more */
	/*
	 * Unmap calls that cleared page tables but ran no invalidation of
	 * their own (none at the top level; a full flush queue's flush may
	 * nest one): in a domain the trace says is lazy (DMA-FQ), the
	 * deferral, inferred, where queue_iova() is inlined and has no part
	 * of its own; in any other (strict, or no mode record), an
	 * invalidation the probes did not see.
	 */
	uint64_t unmaps_deferred;
	uint64_t unmaps_uninvalidated;
	uint64_t orphans;		/* parts naming a call not in the trace */
	uint64_t outside;		/* parts in no call (flush-queue timer) */
	uint64_t outside_ns;		/* their own time, top level only */
};

struct parts_call {
	uint64_t ts, dur;
	uint32_t bdf;
	uint32_t dir;
};

struct parts_rec {
	uint64_t call_ts, self;
	uint32_t bdf, arg;
	uint16_t part, depth;
	uint8_t slow;
};

struct iommu_parts {
	unsigned int ntargets;
	struct parts_target targets[PARTS_MAX_TARGETS];
	struct parts_call *calls;
	struct parts_rec *parts;
	size_t ncalls, nparts, cap_calls, cap_parts;
	uint64_t dropped;		/* past PARTS_MAX_EVENTS or the targets */
	uint64_t records;		/* part records seen */
	unsigned int nmodes;		/* the targets' IOMMU modes (0x800e) */
	struct tracefile_rec_iommu_mode modes[PARTS_MAX_TARGETS];
	uint64_t modes_dropped;		/* mode records past PARTS_MAX_TARGETS: not kept */
	bool finished;
};

const char *iommu_part_name(unsigned int part);
const char *parts_group_name(unsigned int group);
enum parts_group parts_group_of(unsigned int part);

struct iommu_parts *iommu_parts_new(void);
void iommu_parts_add(struct iommu_parts *p, const struct gpuprobe_rec_hdr *rec);
void iommu_parts_finish(struct iommu_parts *p);
void iommu_parts_free(struct iommu_parts *p);

/* Call time of one target, both directions, and one group's share of it. */
uint64_t parts_call_ns(const struct parts_target *t);
uint64_t parts_group_ns(const struct parts_target *t, unsigned int group);

#endif /* GPUPROBE_IOMMU_PARTS_H */
