/* SPDX-License-Identifier: GPL-2.0 */
/* Tallies of DMA, IOMMU and swiotlb records for the selftests. */
#ifndef GPUPROBE_SELFTEST_DMA_H
#define GPUPROBE_SELFTEST_DMA_H

#include "session.h"

struct dma_tally {
	uint32_t bdf;			/* the device counted */
	uint64_t foreign;		/* records of any other device */
	uint64_t calls[16], bytes[16];	/* by gpuprobe_dma_op */
	uint64_t nents[16], max_ns[16];	/* segments, longest duration */
	uint64_t dir[4];		/* map calls by direction */
	uint64_t zero_duration, no_iommu, addr_zero, untimed;
	uint64_t iommu_ns;
	uint64_t iommu_calls_in_dma;
	uint64_t iommu[4], iommu_bytes[4];	/* by gpuprobe_iommu_op */
	uint64_t swiotlb, swiotlb_bytes;
	uint64_t swiotlb_dir_bytes[4];	/* by direction; map-time: DMA_NONE */
	uint64_t irqs;
};

static inline void dma_tally_records(struct dma_tally *t, const uint8_t *p,
				     size_t len)
{
	while (len >= sizeof(struct gpuprobe_rec_hdr)) {
		const struct gpuprobe_rec_hdr *h = (const void *)p;

		if (h->size < sizeof(*h) || h->size > len)
			return;
		if (h->type == GPUPROBE_EV_DMA) {
			const struct gpuprobe_rec_dma *r = (const void *)p;

			if (r->bdf != t->bdf) {
				t->foreign++;
			} else if (r->op < 16) {
				t->calls[r->op]++;
				t->bytes[r->op] += r->bytes;
				t->nents[r->op] += r->nents;
				if (r->duration_ns > t->max_ns[r->op])
					t->max_ns[r->op] = r->duration_ns;
				if (r->op == GPUPROBE_DMA_MAP_PAGE && r->dir < 4)
					t->dir[r->dir]++;
				if (!r->duration_ns)
					t->zero_duration++;
				if (h->flags & GPUPROBE_DMA_UNTIMED)
					t->untimed++;
				if (!r->dma_addr)
					t->addr_zero++;
				t->iommu_ns += r->iommu_ns;
				t->iommu_calls_in_dma += r->iommu_calls;
				if (!r->iommu_calls)
					t->no_iommu++;
			}
		} else if (h->type == GPUPROBE_EV_IOMMU) {
			const struct gpuprobe_rec_iommu *r = (const void *)p;

			if (r->bdf != t->bdf)
				t->foreign++;
			else if (r->op < 4) {
				t->iommu[r->op]++;
				t->iommu_bytes[r->op] += r->size;
			}
		} else if (h->type == GPUPROBE_EV_SWIOTLB) {
			const struct gpuprobe_rec_swiotlb *r = (const void *)p;

			if (r->bdf != t->bdf)
				t->foreign++;
			t->swiotlb++;
			t->swiotlb_bytes += r->bytes;
			if (r->dir < 4)
				t->swiotlb_dir_bytes[r->dir] += r->bytes;
		} else if (h->type == GPUPROBE_EV_IRQ) {
			const struct gpuprobe_rec_irq *r = (const void *)p;

			if (r->bdf != t->bdf)
				t->foreign++;
			else
				t->irqs++;
		}
		p += h->size;
		len -= h->size;
	}
}

static inline void dma_tally_cb(void *arg, const uint8_t *recs, size_t len)
{
	dma_tally_records(arg, recs, len);
}

static inline void dma_drain(struct genl_sock *l, struct dma_tally *t)
{
	gp_recv_records(l, dma_tally_cb, t);
}

#define DMA_EVENTS (GPUPROBE_EVMASK(GPUPROBE_EV_DMA) | \
		    GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU) | \
		    GPUPROBE_EVMASK(GPUPROBE_EV_IRQ))

#endif /* GPUPROBE_SELFTEST_DMA_H */
