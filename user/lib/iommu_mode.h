/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The IOMMU mode of a PCI function, read from sysfs (Documentation/iommu.md,
 * "The mode"): whether an IOMMU translates its DMA, whose, the domain type
 * (identity, DMA = strict, DMA-FQ = lazy), VT-d's caching mode (set by a
 * vIOMMU: a guest) and second-level page sizes, and swiotlb.  Kept in the
 * trace as one record per target (0x800e, Documentation/trace-format.md).
 */
#ifndef GPUPROBE_IOMMU_MODE_H
#define GPUPROBE_IOMMU_MODE_H

#include <stdint.h>
#include <stdio.h>

#include "tracefile.h"

#define IOMMU_MODE_PRESENT	(1u << 0)	/* an IOMMU group with a unit */
#define IOMMU_MODE_CM_KNOWN	(1u << 1)	/* VT-d capability register read */
#define IOMMU_MODE_CM		(1u << 2)	/* its caching mode bit: a vIOMMU */
#define IOMMU_MODE_SWIOTLB	(1u << 3)	/* swiotlb set up (debugfs) */
#define IOMMU_MODE_SWIOTLB_FORCE (1u << 4)	/* swiotlb=force on the command line */
#define IOMMU_MODE_SWIOTLB_KNOWN (1u << 5)	/* debugfs readable */
#define IOMMU_MODE_PARTS_LEFT_OUT (1u << 6)	/* record --no-iommu-parts */

struct tracefile_rec_iommu_mode {
	struct gpuprobe_rec_hdr hdr;	/* ts_ns = when read (the start) */
	uint32_t bdf;
	uint32_t flags;			/* IOMMU_MODE_* */
	uint64_t pgsizes;		/* page sizes, a bitmap of sizes; 0: unknown */
	char vendor[16];		/* "intel" (dmarN), "amd" (ivhdN), "other"; "" none */
	char domain_type[16];		/* iommu_group/type: identity, DMA, DMA-FQ, ... */
};

/* root: "" for the machine's /sys and /proc; a test's tree otherwise. */
void iommu_mode_read(const char *root, const char *bdf_name, uint32_t bdf,
		     struct tracefile_rec_iommu_mode *m);
/* "strict", "lazy", "none (identity)", ...: what the domain type means. */
const char *iommu_mode_strictness(const struct tracefile_rec_iommu_mode *m);
void iommu_mode_print(FILE *out, const char *indent, const struct tracefile_rec_iommu_mode *m);

#endif /* GPUPROBE_IOMMU_MODE_H */
