/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpuprobe: what dma.c (kretprobes, IOMMU) and dma_tp.c (dma: tracepoints)
 * share: the DMA call in flight and how it becomes a record.
 */
#ifndef _GPUPROBE_DMA_H
#define _GPUPROBE_DMA_H

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/iommu.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/scatterlist.h>
#include <linux/skbuff.h>

/*
 * The IOMMU parts open in one context (a DMA call, or a flush-queue timer):
 * what the part being timed must leave out of its own time.
 */
struct gpuprobe_part_acc {
	u64 child_ns;		/* parts nested in the open one, so far */
	u32 iova_slow;		/* alloc_iova()/free_iova() calls seen */
	u16 depth;		/* parts open */
};

/* Per call in flight: filled at entry, finished at return. */
struct gpuprobe_dma_inst {
	struct iommu_domain *domain;	/* the device's, at entry */
	u64 ts;
	u64 bytes;
	u64 addr;
	u64 iommu_ns;
	void *ptr;		/* dma_addr_t * (alloc) or scatterlist (sg) */
	u32 bdf;
	u32 nents;
	u32 iommu_calls;
	struct gpuprobe_part_acc parts;	/* dma_parts.c */
	int owner;		/* its slot in the owner table, or -1 */
	u16 op;
	u8 dir;
	u8 sgtable;		/* dma_map_sgtable(): returns 0 or -errno */
};

/*
 * Which DMA call a context has in progress: keyed by the task and its
 * interrupt nesting level (task, softirq, hard irq), so IOMMU work is
 * charged to a call only from the context that made it, and a call that
 * sleeps or migrates keeps its claim without blocking anyone else's.
 */
#define GPUPROBE_DMA_OWNERS_BITS	8
#define GPUPROBE_DMA_OWNERS		BIT(GPUPROBE_DMA_OWNERS_BITS)

struct gpuprobe_dma_owner {
	unsigned long key;		/* gpuprobe_dma_ctx_key(); 0: free */
	struct gpuprobe_dma_inst *call;
};

extern atomic_t gpuprobe_dma_owners_used;

/*
 * No target DMA call is in progress anywhere, so nothing can be charged to
 * one: an IOMMU or parts probe decides on its domain (or the flush-queue
 * timer) alone.  One shared load, tested before anything else, because
 * every other device's IOMMU work reaches these probes: reaching the same
 * answer through the context key and the owner table cost about 70
 * instructions a parts call and 100 an IOMMU call (Documentation/
 * benchmarks.md).  A claim made in this context, by a task before it
 * migrated here, or by the task an interrupt on this CPU landed in (which
 * iommu-unattributed depends on) is seen: program order, and the
 * scheduler's barriers.
 */
static __always_inline bool gpuprobe_dma_owners_idle(void)
{
	return !atomic_read(&gpuprobe_dma_owners_used);
}

unsigned long gpuprobe_dma_ctx_key(void);
int gpuprobe_dma_owner_find(unsigned long key);
int gpuprobe_dma_owner_claim(unsigned long key, struct gpuprobe_dma_inst *call);
void gpuprobe_dma_owner_set(int idx, struct gpuprobe_dma_inst *call);
void gpuprobe_dma_owner_release(int idx);
struct gpuprobe_dma_inst *gpuprobe_dma_owner_call(int idx);
bool gpuprobe_dma_owner_interrupted(unsigned long key);

/*
 * Return-probe instances per kretprobe: at least the kernel's default
 * (max(10, 2 * possible CPUs)), as a sleeping DMA call holds one.
 */
#define GPUPROBE_KRP_MAXACTIVE	64
/* The most krp_maxactive may ask for. */
#define GPUPROBE_KRP_MAXACTIVE_MAX	4096
/* The longest kretprobe table (gpuprobe_krps_unregister's array). */
#define GPUPROBE_KRP_TABLE_MAX	16

static inline unsigned long gpuprobe_arg(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

int gpuprobe_krps_register(struct kretprobe *krps, bool *registered,
			   size_t n);
void gpuprobe_krps_unregister(struct kretprobe *krps, bool *registered,
			      size_t n);
void gpuprobe_kps_unregister(struct kprobe *kps, bool *registered, size_t n);

/*
 * Beside a kretprobe table, a kprobe at each address that counts the
 * target's calls: a kretprobe's own nmissed counts every call that found
 * no free instance, other devices' included, as the instance is taken
 * before the entry handler can filter.
 */
struct gpuprobe_krp_counter {
	struct kprobe kps[GPUPROBE_KRP_TABLE_MAX];
	bool registered[GPUPROBE_KRP_TABLE_MAX];
	/* counted in the last or current session: STATS_GET after STOP too */
	bool counted[GPUPROBE_KRP_TABLE_MAX];
};

void gpuprobe_krp_count_attach(struct gpuprobe_krp_counter *c,
			       const struct kretprobe *krps, const bool *krp_on,
			       size_t n, kprobe_pre_handler_t count);
void gpuprobe_krp_count_detach(struct gpuprobe_krp_counter *c, size_t n);
u64 gpuprobe_krp_missed(const struct gpuprobe_krp_counter *c,
			const struct kretprobe *krps, size_t n,
			u64 __percpu *entries, u64 __percpu *timed);

int gpuprobe_dma_begin(struct gpuprobe_dma_inst *in, struct device *dev,
		       u16 op, u8 dir, u64 bytes, u32 nents);
void gpuprobe_dma_end(struct gpuprobe_dma_inst *in, u16 flags);
u64 gpuprobe_sg_bytes(struct scatterlist *sgl, int nents);

/* dma_iommu.c */
u32 gpuprobe_domain_bdf(struct iommu_domain *domain, bool *shared);
int gpuprobe_iommu_attach(void);
void gpuprobe_iommu_detach(void);
u64 gpuprobe_iommu_missed(void);
u64 gpuprobe_iommu_recursion(void);
u32 gpuprobe_domain_id(struct iommu_domain *domain);

/* dma_parts.c */
void gpuprobe_parts_attach(bool wanted);
void gpuprobe_parts_detach(void);
u64 gpuprobe_parts_recursion(void);
int gpuprobe_parts_hooks_fill(struct sk_buff *skb,
			      int (*fill)(struct sk_buff *, const char *, bool,
					  const char *));

/* dma_vtd.c */
void gpuprobe_vtd_attach(void);
void gpuprobe_vtd_detach(void);
bool gpuprobe_vtd_attached(void);
const char *gpuprobe_vtd_why(void);

/* dma_tp.c */
bool gpuprobe_dma_tp_available(void);
u64 gpuprobe_dma_tp_recursion(void);
int gpuprobe_dma_tp_attach(void);
void gpuprobe_dma_tp_detach(void);
int gpuprobe_dma_tp_hooks_fill(struct sk_buff *skb,
			       int (*fill)(struct sk_buff *, const char *, bool,
					   const char *),
			       bool attached, const char *why);

#endif /* _GPUPROBE_DMA_H */
