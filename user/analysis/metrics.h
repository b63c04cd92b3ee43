/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running totals for `serve` (metrics.c): what a Prometheus scrape shows,
 * per target and vector, with bounded memory.  Fed record by record (the
 * tracefs source) or by the module's summary histograms; rendered by
 * output/prometheus.c.  Plain C: the unit tests link it.
 *
 * Interrupt counts are cut-consistent (metrics_cut_*): at a scrape the
 * kernel's count of each vector is read at a time T, and only records with
 * a timestamp up to T count, so `interrupts` and `kernel_interrupts` of the
 * same scrape agree exactly (Documentation/fleet.md).
 */
#ifndef GPUPROBE_METRICS_H
#define GPUPROBE_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/gpuprobe.h>

#include "target.h"

#define METRICS_LOG2_BUCKETS	64	/* bucket b: values with fls64(v) == b */
#define METRICS_MAX_VECTORS	64	/* per target; more go to vector_overflow */
#define METRICS_DMA_OPS		8	/* enum gpuprobe_dma_op, 1-based */
#define METRICS_WAKE_WINDOW_NS	10000000ull	/* a wake-up within 10 ms of an irq */

/* log2(ns) histogram with its exact sum where the source gives one. */
struct log2_hist {
	uint64_t count;
	uint64_t sum_ns;
	bool sum_estimated;		/* module summaries: bucket midpoints */
	uint64_t bucket[METRICS_LOG2_BUCKETS];
};

struct metrics_vector {
	uint32_t index;			/* MSI/MSI-X index */
	uint32_t irq;			/* Linux irq now (rescan); 0: none (unbound) */
	uint64_t interrupts;		/* records up to the last cut */
	uint64_t ahead;			/* of those after it: counted at the next cut */
	uint64_t cut_ns;		/* kernel count read at (CLOCK_MONOTONIC) */
	uint64_t since_ns;		/* the first cut: counting began */
	uint64_t kernel_base;		/* kernel count when counting began */
	uint64_t kernel_now;		/* at the last cut */
	uint64_t kernel_carried;	/* counts of the irqs it had before */
	uint32_t counted_irq;		/* the irq kernel_now is the count of */
	uint64_t counted_id;		/* and its identity; 0: unknown */
	bool kernel_valid;
	bool from_zero;			/* appeared while serving: its irq's whole count is new */
	bool renewed;			/* a rescan saw its irq change: a new irq, from 0 */
	struct log2_hist handler;
	struct log2_hist module_base;	/* module summaries: earlier sessions */
	uint64_t module_last;		/* this session's count at the last read */
};

struct metrics_dma {
	uint64_t calls, bytes, untimed;
	struct log2_hist latency;
};

struct metrics_target {
	uint32_t bdf;
	char name[BDF_STRLEN];
	char driver[32];
	bool bound;
	unsigned int nvec;
	struct metrics_vector vec[METRICS_MAX_VECTORS];
	uint64_t vector_overflow;	/* records of vectors past the table */
	struct metrics_dma dma[METRICS_DMA_OPS + 1];
	uint64_t iommu_maps, iommu_unmaps, iommu_map_bytes, iommu_unmap_bytes, iommu_faults;
	struct log2_hist iommu_latency;
	uint64_t swiotlb_bounces, swiotlb_bytes;
	uint64_t last_irq_end_ns;	/* for wake latency */
	struct log2_hist wake;
	uint64_t target_events;		/* TARGET records: bind, unbind, vectors */
	bool resolved;			/* vectors added from now on are new ones */
};

struct metrics {
	unsigned int ntargets;
	struct metrics_target *t;	/* ntargets of them */
	const char *role;		/* "host" or "guest" */
	const char *source;		/* "tracefs" or "module" */
	bool detailed;			/* records (DMA, IOMMU ...), not only irq summaries */
	bool source_up;
	char source_error[160];
	uint64_t source_reconnects;
	uint64_t lost;			/* records the kernel dropped */
	uint64_t unattributed;		/* records of no target */
	uint64_t scrapes;
	uint64_t records;
	char wake_labels[4200];		/* the wake-up histogram's own labels (serve --cgroup) */
};

/* 0, or -1 when out of memory; metrics_free() undoes it. */
int metrics_init(struct metrics *m, const struct target_set *set, const char *role,
		 const char *source);
void metrics_free(struct metrics *m);
/* NAME="VALUE" (escaped) on the wake-up latency histogram: whose wake-ups. */
void metrics_label_wakeups(struct metrics *m, const char *name, const char *value);
/*
 * Targets' driver, bound state and vectors from a fresh resolve (rescan).
 * A vector whose irq changed, and one not there before, is a new irq: the
 * next kernel count takes its whole count (from 0).
 */
void metrics_update_targets(struct metrics *m, const struct target_set *set);
struct metrics_target *metrics_target(struct metrics *m, uint32_t bdf);

void metrics_add_record(struct metrics *m, const struct gpuprobe_rec_hdr *rec);

/* One read of a vector's kernel count. */
struct kernel_count {
	uint32_t irq;
	uint64_t irq_id;		/* the irq's identity (irq_desc_id()); 0: unknown */
	uint64_t count;
	uint64_t cut_ns;		/* read just before this (CLOCK_MONOTONIC) */
};

/*
 * One vector's kernel count, read just before kc->cut_ns: records later
 * than cut_ns are held back as `ahead` until the next cut.  The first cut of
 * a vector serve had at its start is its baseline: records up to it do not
 * count.  An irq new since the last cut (another number, another identity,
 * a count that went down, or metrics_update_targets() said so) counts from
 * 0, the old one's count carried.  Drain the source after the cuts, before
 * rendering.
 */
void metrics_kernel_count(struct metrics *m, uint32_t bdf, uint32_t index,
			  const struct kernel_count *kc);

/* A module summary histogram (cumulative for its session). */
void metrics_add_summary(struct metrics *m, uint32_t bdf, uint32_t vector,
			 const uint64_t bucket[METRICS_LOG2_BUCKETS]);
/* A new module session: the next summaries start from 0. */
void metrics_summary_session(struct metrics *m);

void log2_hist_add(struct log2_hist *h, uint64_t ns);

#endif /* GPUPROBE_METRICS_H */
