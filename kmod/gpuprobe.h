/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpuprobe: internal declarations shared by the module's files.
 */
#ifndef _GPUPROBE_H
#define _GPUPROBE_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/pci.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <uapi/linux/gpuprobe.h>

struct device;
struct iommu_domain;

#define GPUPROBE_VERSION "0.2.0"

struct gpuprobe_vector {
	unsigned int irq;
	u32 index;		/* MSI/MSI-X index; 0 for INTx */
	bool msix;
};

/* One PCI function being watched. */
struct gpuprobe_target {
	struct list_head node;
	struct pci_dev *pdev;		/* reference held */
	u32 bdf;
	u32 domain;			/* its IOMMU domain, as last recorded */
	unsigned int nvec;
	struct gpuprobe_vector *vec;	/* nvec of them, as many as it has */
};

/* What the interrupt probes see of one Linux irq, indexed by irq number. */
struct gpuprobe_irq_entry {
	struct pci_dev *intx;	/* INTx: the line may be shared; else NULL */
	u32 bdf;
	u32 vector;
	u8 watched;
};

/*
 * Targets as the DMA/IOMMU probes match them: by struct device, scanned
 * linearly in every DMA-API and IOMMU call, so their number is bounded
 * (max_targets, at most GPUPROBE_MAX_TARGETS); TARGET_ADD refuses more.
 */
#define GPUPROBE_MAX_TARGETS	64

struct gpuprobe_map_dev {
	struct device *dev;
	/* its IOMMU domain when published (dma_iommu.c: when it may be stale) */
	struct iommu_domain *domain;
	u32 bdf;
};

struct gpuprobe_irqmap {
	struct rcu_head rcu;
	unsigned int ndev;
	struct gpuprobe_map_dev devs[GPUPROBE_MAX_TARGETS];
	unsigned int nr;		/* entries: highest watched irq + 1 */
	struct gpuprobe_irq_entry ent[];
};

/*
 * gpuprobe_lock serialises control operations, target changes and start/stop.
 * Lock order: device_lock (bus notifier) -> gpuprobe_lock -> msi descriptors.
 * Never take device_lock while holding gpuprobe_lock.
 */
extern struct mutex gpuprobe_lock;
extern struct list_head gpuprobe_targets;
extern struct gpuprobe_irqmap __rcu *gpuprobe_irqmap;
extern bool gpuprobe_running;	/* under gpuprobe_lock */
/*
 * Changes with the target list and any target's vectors, under
 * gpuprobe_lock (TARGET_GET's cb->seq).
 */
extern unsigned int gpuprobe_targets_gen;

/*
 * The first thing a DMA-API, IOMMU or swiotlb probe does: is the device a
 * target?  Its entry in the current map, or NULL.  Nothing else is read
 * before it (no scatterlist, no domain, no reference, no lock), so another
 * device's call costs one load and a scan of at most max_targets pointers.
 * Probe context (preemption off): the map stays valid until it returns.
 */
static __always_inline const struct gpuprobe_map_dev *
gpuprobe_target_of(const struct device *dev)
{
	const struct gpuprobe_irqmap *map = rcu_dereference_sched(gpuprobe_irqmap);
	unsigned int i;

	if (!map || !dev)
		return NULL;
	for (i = 0; i < map->ndev; i++)
		if (map->devs[i].dev == dev)
			return &map->devs[i];
	return NULL;
}

static __always_inline u32 gpuprobe_dev_bdf(const struct device *dev)
{
	const struct gpuprobe_map_dev *t = gpuprobe_target_of(dev);

	return t ? t->bdf : GPUPROBE_BDF_NONE;
}

/* target.c */
int gpuprobe_parse_bdf(const char *s, u32 *bdf);
void gpuprobe_format_bdf(u32 bdf, char *buf, size_t len);
int gpuprobe_target_add(u32 bdf);
int gpuprobe_target_del(u32 bdf);
unsigned int gpuprobe_targets_max(void);
void gpuprobe_targets_free(void);
int gpuprobe_targets_from_param(const char *param);
bool gpuprobe_targets_rescan(void);
void gpuprobe_irqmap_publish(void);
u64 gpuprobe_irqmap_failed(void);
int gpuprobe_notifier_init(void);
void gpuprobe_notifier_exit(void);

/* vectors.c: MSI ownership, vector changes without an unbind */
bool gpuprobe_irq_owner(unsigned int irq, u32 *bdf, u32 *vector);
bool gpuprobe_vectors_unsettled(void);
void gpuprobe_vectors_attach(void);
void gpuprobe_vectors_detach(void);
bool gpuprobe_vectors_resolve(void);
int gpuprobe_vectors_hooks_fill(struct sk_buff *skb,
				int (*fill)(struct sk_buff *, const char *,
					    bool, const char *));

/* ring.c: per-CPU record buffers and their delivery */
struct gpuprobe_cpu_stats {
	u64 captured;
	u64 dropped;
	u64 messages;
	u64 bytes;
	u64 undelivered;	/* records in messages no listener took */
	u64 overrun;		/* of them, refused by a listener's full socket */
	u64 high_water;		/* most records a drain found in the ring */
	u64 wait_max_ns;	/* longest the oldest record waited for a drain */
	u32 slots;		/* the ring's size in records */
	u64 no_ring;		/* records lost: the CPU had no ring */
	u64 summary_dropped;	/* summary samples its full slot table lost */
};

int gpuprobe_rings_init(void);
void gpuprobe_rings_exit(void);
int gpuprobe_rings_alloc(void);
void gpuprobe_rings_free(void);
void gpuprobe_emit(struct gpuprobe_rec_hdr *rec);
void gpuprobe_drain_start(void);
void gpuprobe_drain_stop(void);
void gpuprobe_stats(int cpu, struct gpuprobe_cpu_stats *st);
void gpuprobe_stats_reset(void);
void gpuprobe_emit_target(u32 bdf, u32 event, u32 nvec, u32 domain);
u32 gpuprobe_dev_domain_id(struct device *dev);
/* dma_iommu.c: when the domains the map caches may be used */
unsigned long gpuprobe_domains_gen(void);
void gpuprobe_domains_settle(unsigned long gen);
bool gpuprobe_domains_stale(void);
void gpuprobe_targets_emit_domains(u32 mask);

/* hooks.c: tracepoints */
int gpuprobe_hooks_init(void);
int gpuprobe_hooks_attach(u32 mask, bool summary);
void gpuprobe_hooks_detach(void);
void gpuprobe_hooks_free_summary(void);
u64 gpuprobe_hooks_caps(void);
int gpuprobe_hooks_fill(struct sk_buff *skb);
int gpuprobe_tgid_add(u32 tgid);
int gpuprobe_tgid_del(u32 tgid);
void gpuprobe_tgid_clear(void);
int gpuprobe_summary_fill(struct sk_buff *skb);
u64 gpuprobe_summary_dropped(int cpu);
unsigned int gpuprobe_irq_in_handler(u32 *bdf);
bool gpuprobe_task_follows(struct task_struct *t);

/* cgroup_follow.c: the cgroup followed (TGID_ADD with a CGROUP attribute) */
bool gpuprobe_cgroup_watched(struct task_struct *t);
bool gpuprobe_cgroup_following(void);
int gpuprobe_cgroup_follow(u64 id);
int gpuprobe_cgroup_unfollow(u64 id);

/* kvm.c: KVM's injection of the targets' interrupts (kvm.ko's tracepoints) */
int gpuprobe_kvm_init(void);
void gpuprobe_kvm_exit(void);
u32 gpuprobe_kvm_available(void);
int gpuprobe_kvm_attach(u32 mask);
void gpuprobe_kvm_detach(void);
int gpuprobe_kvm_hooks_fill(struct sk_buff *skb,
			    int (*fill)(struct sk_buff *, const char *, bool,
					const char *));

/* dma.c: DMA-API and IOMMU (kretprobes), IOMMU faults */
u32 gpuprobe_dma_available(void);
int gpuprobe_dma_attach(u32 mask);
void gpuprobe_dma_detach(void);
u64 gpuprobe_dma_missed(void);
u64 gpuprobe_iommu_unattributed_count(void);
u64 gpuprobe_probe_recursion(void);
u32 gpuprobe_dmar_units(void);
int gpuprobe_dma_hooks_fill(struct sk_buff *skb,
			    int (*fill)(struct sk_buff *, const char *, bool,
					const char *));

/* swiotlb.c: bounces at unmap and sync */
void gpuprobe_swiotlb_attach(void);
void gpuprobe_swiotlb_detach(void);
unsigned int gpuprobe_swiotlb_attached(void);
u64 gpuprobe_swiotlb_recursion(void);

/* dma_owner.c: the exit of a task that may have left a DMA call's claim */
void gpuprobe_dma_owner_task_exit(struct task_struct *p);
void gpuprobe_dma_owners_reset(void);

/* session.c */
int gpuprobe_start(u32 mask, bool summary, struct sock *owner_sk,
		   u32 owner_portid, struct net *owner_net,
		   struct netlink_ext_ack *extack);
u32 gpuprobe_view_tgid(struct task_struct *t);
u32 gpuprobe_view_pid(struct task_struct *t);
int gpuprobe_stop(void);
int gpuprobe_session_init(void);
void gpuprobe_rescan_now(void);
void gpuprobe_shutdown(void);

/* netlink.c */
int gpuprobe_netlink_init(void);
void gpuprobe_netlink_exit(void);
int gpuprobe_send_events(const void *recs, size_t len);

#endif /* _GPUPROBE_H */
