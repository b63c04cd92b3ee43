/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpuprobe: what dma.c (kretprobes, IOMMU) and dma_tp.c (dma: tracepoints)
 * share: the DMA call in flight and how it becomes a record.
 */
#ifndef _GPUPROBE_DMA_H
#define _GPUPROBE_DMA_H

#include <linux/device.h>
#include <linux/percpu.h>
#include <linux/scatterlist.h>
#include <linux/skbuff.h>

/* Per call in flight: filled at entry, finished at return. */
struct gpuprobe_dma_inst {
	struct task_struct *task;
	u64 ts;
	u64 bytes;
	u64 addr;
	u64 iommu_ns;
	u64 paddr;		/* IOMMU map */
	void *ptr;		/* dma_addr_t * (alloc) or scatterlist (sg) */
	u32 bdf;
	u32 nents;
	u32 iommu_calls;
	u16 op;
	u8 dir;
	u8 cpu_owner;		/* this call is its CPU's current DMA call */
	int cpu;
};

DECLARE_PER_CPU(struct gpuprobe_dma_inst *, gpuprobe_dma_current);

u32 gpuprobe_dev_bdf(struct device *dev);
int gpuprobe_dma_begin(struct gpuprobe_dma_inst *in, struct device *dev,
		       u16 op, u8 dir, u64 bytes, u32 nents);
void gpuprobe_dma_end(struct gpuprobe_dma_inst *in);
u64 gpuprobe_sg_bytes(struct scatterlist *sgl, int nents);

/* dma_vtd.c */
void gpuprobe_vtd_attach(void);
void gpuprobe_vtd_detach(void);
bool gpuprobe_vtd_attached(void);
const char *gpuprobe_vtd_why(void);

/* dma_tp.c */
bool gpuprobe_dma_tp_available(void);
int gpuprobe_dma_tp_attach(void);
void gpuprobe_dma_tp_detach(void);
int gpuprobe_dma_tp_hooks_fill(struct sk_buff *skb,
			       int (*fill)(struct sk_buff *, const char *, bool,
					   const char *),
			       bool attached, const char *why);

#endif /* _GPUPROBE_DMA_H */
