// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: DMA-API calls and IOMMU map/unmap/fault for the targets.
 *
 * Kernels before 6.12 have no dma: tracepoints, so the DMA-API entry points
 * are timed with kretprobes: the entry handler filters on the device (a
 * non-target call costs one lookup and installs no return probe), the return
 * handler writes one record with the call's duration.
 *
 * IOMMU map/unmap carry no device.  They are timed with kretprobes on the
 * exported iommu_map*()/iommu_unmap*() and attributed to the DMA call the
 * same task has in progress on this CPU (its time and count are added to that
 * call's record), else to the target whose IOMMU domain is being changed --
 * which is how VFIO's mapping of guest memory is seen on a host.
 *
 * Intel's IOMMU reports faults in its own fault handler, not through
 * report_iommu_fault() (whose io_page_fault tracepoint hooks.c attaches);
 * dma_vtd.c reads them there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/scatterlist.h>
#include <net/genetlink.h>

#include "compat.h"
#include "dma.h"
#include "gpuprobe.h"

#define GPUPROBE_KRP_MAXACTIVE	64
/* The longest kretprobe table (gpuprobe_krps_unregister's array). */
#define GPUPROBE_KRP_TABLE_MAX	16

/* The DMA call the running task has in progress on this CPU, if any. */
DEFINE_PER_CPU(struct gpuprobe_dma_inst *, gpuprobe_dma_current);

u32 gpuprobe_dev_bdf(struct device *dev)
{
	const struct gpuprobe_irqmap *map = rcu_dereference_sched(gpuprobe_irqmap);
	unsigned int i;

	if (!map || !dev)
		return GPUPROBE_BDF_NONE;
	for (i = 0; i < map->ndev; i++)
		if (map->devs[i].dev == dev)
			return map->devs[i].bdf;
	return GPUPROBE_BDF_NONE;
}

static u32 gpuprobe_domain_bdf(struct iommu_domain *domain)
{
	const struct gpuprobe_irqmap *map = rcu_dereference_sched(gpuprobe_irqmap);
	unsigned int i;

	if (!map)
		return GPUPROBE_BDF_NONE;
	for (i = 0; i < map->ndev; i++)
		if (iommu_get_domain_for_dev(map->devs[i].dev) == domain)
			return map->devs[i].bdf;
	return GPUPROBE_BDF_NONE;
}

static unsigned long gpuprobe_arg(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

/* Common entry: filters on the device, claims this CPU's current slot. */
int gpuprobe_dma_begin(struct gpuprobe_dma_inst *in, struct device *dev,
		       u16 op, u8 dir, u64 bytes, u32 nents)
{
	struct gpuprobe_dma_inst **cur;

	in->bdf = gpuprobe_dev_bdf(dev);
	if (likely(in->bdf == GPUPROBE_BDF_NONE))
		return 1;	/* no return probe for other devices */
	in->task = current;
	in->op = op;
	in->dir = dir;
	in->bytes = bytes;
	in->nents = nents;
	in->addr = 0;
	in->iommu_ns = 0;
	in->iommu_calls = 0;
	in->cpu = smp_processor_id();
	cur = this_cpu_ptr(&gpuprobe_dma_current);
	in->cpu_owner = !*cur;
	if (in->cpu_owner)
		*cur = in;
	in->ts = ktime_get_mono_fast_ns();
	return 0;
}

void gpuprobe_dma_end(struct gpuprobe_dma_inst *in)
{
	u64 now = ktime_get_mono_fast_ns();
	struct gpuprobe_rec_dma rec = {
		.hdr.type = GPUPROBE_EV_DMA,
		.hdr.size = sizeof(rec),
		.hdr.ts_ns = in->ts,
		.bdf = in->bdf,
		.op = in->op,
		.dir = in->dir,
		.bytes = in->bytes,
		.dma_addr = in->addr,
		.nents = in->nents,
		.iommu_calls = in->iommu_calls,
		.duration_ns = now - in->ts,
		.iommu_ns = in->iommu_ns,
	};

	/* the call may have slept and moved: release the CPU it started on */
	if (in->cpu_owner)
		cmpxchg(per_cpu_ptr(&gpuprobe_dma_current, in->cpu), in, NULL);
	gpuprobe_emit(&rec.hdr);
}

u64 gpuprobe_sg_bytes(struct scatterlist *sgl, int nents)
{
	struct scatterlist *sg;
	u64 bytes = 0;
	int i;

	for_each_sg(sgl, sg, nents, i)
		bytes += sg->length;
	return bytes;
}

#define GPUPROBE_DMA_INST(ri) ((struct gpuprobe_dma_inst *)(ri)->data)

static int map_page_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return gpuprobe_dma_begin(GPUPROBE_DMA_INST(ri), (void *)gpuprobe_arg(regs, 0),
				  GPUPROBE_DMA_MAP_PAGE, gpuprobe_arg(regs, 4),
				  gpuprobe_arg(regs, 3), 1);
}

static int unmap_page_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	int skip = gpuprobe_dma_begin(GPUPROBE_DMA_INST(ri), (void *)gpuprobe_arg(regs, 0),
				      GPUPROBE_DMA_UNMAP_PAGE, gpuprobe_arg(regs, 3),
				      gpuprobe_arg(regs, 2), 1);

	GPUPROBE_DMA_INST(ri)->addr = gpuprobe_arg(regs, 1);
	return skip;
}

static int map_sg_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_dma_inst *in = GPUPROBE_DMA_INST(ri);
	struct scatterlist *sg = (void *)gpuprobe_arg(regs, 1);
	int nents = gpuprobe_arg(regs, 2);

	if (gpuprobe_dev_bdf((void *)gpuprobe_arg(regs, 0)) == GPUPROBE_BDF_NONE)
		return 1;
	in->ptr = sg;
	return gpuprobe_dma_begin(in, (void *)gpuprobe_arg(regs, 0), GPUPROBE_DMA_MAP_SG,
				  gpuprobe_arg(regs, 3), gpuprobe_sg_bytes(sg, nents),
				  nents);
}

static int map_sgtable_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_dma_inst *in = GPUPROBE_DMA_INST(ri);
	struct sg_table *sgt = (void *)gpuprobe_arg(regs, 1);

	if (gpuprobe_dev_bdf((void *)gpuprobe_arg(regs, 0)) == GPUPROBE_BDF_NONE)
		return 1;
	in->ptr = sgt->sgl;
	return gpuprobe_dma_begin(in, (void *)gpuprobe_arg(regs, 0), GPUPROBE_DMA_MAP_SG,
				  gpuprobe_arg(regs, 2),
				  gpuprobe_sg_bytes(sgt->sgl, sgt->orig_nents),
				  sgt->orig_nents);
}

static int unmap_sg_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct scatterlist *sg = (void *)gpuprobe_arg(regs, 1);
	int nents = gpuprobe_arg(regs, 2);

	if (gpuprobe_dev_bdf((void *)gpuprobe_arg(regs, 0)) == GPUPROBE_BDF_NONE)
		return 1;
	GPUPROBE_DMA_INST(ri)->addr = sg_dma_address(sg);
	return gpuprobe_dma_begin(GPUPROBE_DMA_INST(ri), (void *)gpuprobe_arg(regs, 0),
				  GPUPROBE_DMA_UNMAP_SG, gpuprobe_arg(regs, 3),
				  gpuprobe_sg_bytes(sg, nents), nents);
}

static int alloc_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	GPUPROBE_DMA_INST(ri)->ptr = (void *)gpuprobe_arg(regs, 2);
	return gpuprobe_dma_begin(GPUPROBE_DMA_INST(ri), (void *)gpuprobe_arg(regs, 0),
				  GPUPROBE_DMA_ALLOC, DMA_BIDIRECTIONAL,
				  gpuprobe_arg(regs, 1), 1);
}

static int free_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	int skip = gpuprobe_dma_begin(GPUPROBE_DMA_INST(ri), (void *)gpuprobe_arg(regs, 0),
				      GPUPROBE_DMA_FREE, DMA_BIDIRECTIONAL,
				      gpuprobe_arg(regs, 1), 1);

	GPUPROBE_DMA_INST(ri)->addr = gpuprobe_arg(regs, 3);
	return skip;
}

static int map_resource_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return gpuprobe_dma_begin(GPUPROBE_DMA_INST(ri), (void *)gpuprobe_arg(regs, 0),
				  GPUPROBE_DMA_MAP_RESOURCE, gpuprobe_arg(regs, 3),
				  gpuprobe_arg(regs, 2), 1);
}

static int unmap_resource_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	int skip = gpuprobe_dma_begin(GPUPROBE_DMA_INST(ri), (void *)gpuprobe_arg(regs, 0),
				      GPUPROBE_DMA_UNMAP_RESOURCE, gpuprobe_arg(regs, 3),
				      gpuprobe_arg(regs, 2), 1);

	GPUPROBE_DMA_INST(ri)->addr = gpuprobe_arg(regs, 1);
	return skip;
}

static int dma_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_dma_inst *in = GPUPROBE_DMA_INST(ri);
	unsigned long ret = regs_return_value(regs);

	switch (in->op) {
	case GPUPROBE_DMA_MAP_PAGE:
	case GPUPROBE_DMA_MAP_RESOURCE:
		in->addr = ret;
		break;
	case GPUPROBE_DMA_MAP_SG:
		/* dma_map_sgtable returns 0 on success, map_sg the count */
		if ((long)ret >= 0)
			in->addr = sg_dma_address((struct scatterlist *)in->ptr);
		break;
	case GPUPROBE_DMA_ALLOC:
		if (ret && in->ptr)
			in->addr = *(dma_addr_t *)in->ptr;
		break;
	}
	gpuprobe_dma_end(in);
	return 0;
}

/* IOMMU side: one instance per iommu_map*() / iommu_unmap*() call. */
struct gpuprobe_iommu_inst {
	struct gpuprobe_dma_inst *call;	/* the DMA call it belongs to */
	u64 ts, iova, paddr, size;
	u32 bdf;
	u16 op;
	u16 sg;			/* iommu_map_sg*(): size is the return value */
};

#define GPUPROBE_IOMMU_INST(ri) ((struct gpuprobe_iommu_inst *)(ri)->data)

static int gpuprobe_iommu_begin(struct gpuprobe_iommu_inst *in,
				struct iommu_domain *domain, u32 op,
				u64 iova, u64 paddr, u64 size)
{
	struct gpuprobe_dma_inst *call = *this_cpu_ptr(&gpuprobe_dma_current);

	if (call && READ_ONCE(call->task) == current) {
		in->call = call;
		in->bdf = call->bdf;
	} else {
		in->call = NULL;
		in->bdf = gpuprobe_domain_bdf(domain);
		if (in->bdf == GPUPROBE_BDF_NONE)
			return 1;
	}
	in->op = op;
	in->sg = 0;
	in->iova = iova;
	in->paddr = paddr;
	in->size = size;
	in->ts = ktime_get_mono_fast_ns();
	return 0;
}

static int iommu_map_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return gpuprobe_iommu_begin(GPUPROBE_IOMMU_INST(ri), (void *)gpuprobe_arg(regs, 0),
				    GPUPROBE_IOMMU_MAP, gpuprobe_arg(regs, 1),
				    gpuprobe_arg(regs, 2), gpuprobe_arg(regs, 3));
}

static int iommu_unmap_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return gpuprobe_iommu_begin(GPUPROBE_IOMMU_INST(ri), (void *)gpuprobe_arg(regs, 0),
				    GPUPROBE_IOMMU_UNMAP, gpuprobe_arg(regs, 1), 0,
				    gpuprobe_arg(regs, 2));
}

static int iommu_map_sg_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct scatterlist *sg = (void *)gpuprobe_arg(regs, 2);
	int skip = gpuprobe_iommu_begin(GPUPROBE_IOMMU_INST(ri), (void *)gpuprobe_arg(regs, 0),
					GPUPROBE_IOMMU_MAP, gpuprobe_arg(regs, 1),
					sg ? sg_phys(sg) : 0, 0);

	GPUPROBE_IOMMU_INST(ri)->sg = 1;
	return skip;
}

static int iommu_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_iommu_inst *in = GPUPROBE_IOMMU_INST(ri);
	long ret = (long)regs_return_value(regs);
	u64 now = ktime_get_mono_fast_ns();
	struct gpuprobe_rec_iommu rec = {
		.hdr.type = GPUPROBE_EV_IOMMU,
		.hdr.size = sizeof(rec),
		.hdr.ts_ns = in->ts,
		.bdf = in->bdf,
		.op = in->op,
		.iova = in->iova,
		.paddr = in->paddr,
		.size = in->size,
		.duration_ns = now - in->ts,
	};

	if (in->sg)
		rec.size = ret > 0 ? ret : 0;		/* bytes mapped */
	else if (in->op == GPUPROBE_IOMMU_UNMAP)
		rec.size = ret > 0 ? ret : 0;		/* bytes unmapped */
	else if (ret)
		rec.size = 0;				/* map failed */

	if (in->call && READ_ONCE(in->call->task) == current) {
		in->call->iommu_ns += rec.duration_ns;
		in->call->iommu_calls++;
	}
	gpuprobe_emit(&rec.hdr);
	return 0;
}

/* local to the two tables below */
#define KRP(sym, entry, ret, data) {					\
	.kp.symbol_name = sym, .entry_handler = entry, .handler = ret,	\
	.data_size = sizeof(struct data), .maxactive = GPUPROBE_KRP_MAXACTIVE }

static struct kretprobe gpuprobe_dma_krps[] = {
	KRP("dma_map_page_attrs", map_page_entry, dma_ret, gpuprobe_dma_inst),
	KRP("dma_unmap_page_attrs", unmap_page_entry, dma_ret, gpuprobe_dma_inst),
	KRP("dma_map_sg_attrs", map_sg_entry, dma_ret, gpuprobe_dma_inst),
	KRP("dma_map_sgtable", map_sgtable_entry, dma_ret, gpuprobe_dma_inst),
	KRP("dma_unmap_sg_attrs", unmap_sg_entry, dma_ret, gpuprobe_dma_inst),
	KRP("dma_alloc_attrs", alloc_entry, dma_ret, gpuprobe_dma_inst),
	KRP("dma_free_attrs", free_entry, dma_ret, gpuprobe_dma_inst),
	KRP("dma_map_resource", map_resource_entry, dma_ret, gpuprobe_dma_inst),
	KRP("dma_unmap_resource", unmap_resource_entry, dma_ret,
	    gpuprobe_dma_inst),
};

static struct kretprobe gpuprobe_iommu_krps[] = {
	KRP("iommu_map", iommu_map_entry, iommu_ret, gpuprobe_iommu_inst),
	KRP("iommu_map_atomic", iommu_map_entry, iommu_ret, gpuprobe_iommu_inst),
	KRP("iommu_unmap", iommu_unmap_entry, iommu_ret, gpuprobe_iommu_inst),
	KRP("iommu_unmap_fast", iommu_unmap_entry, iommu_ret,
	    gpuprobe_iommu_inst),
	KRP("iommu_map_sg", iommu_map_sg_entry, iommu_ret, gpuprobe_iommu_inst),
	KRP("iommu_map_sg_atomic", iommu_map_sg_entry, iommu_ret,
	    gpuprobe_iommu_inst),
};

#undef KRP

static bool gpuprobe_dma_attached, gpuprobe_iommu_attached;
static bool gpuprobe_dma_krp_on[ARRAY_SIZE(gpuprobe_dma_krps)];
static bool gpuprobe_iommu_krp_on[ARRAY_SIZE(gpuprobe_iommu_krps)];
static bool gpuprobe_dma_use_tp;	/* dma: tracepoints instead of kretprobes */
static int gpuprobe_dma_err, gpuprobe_iommu_err;

/*
 * One by one: a kernel may lack some entry points (iommu_map_atomic went in
 * 6.3).  Succeeds when at least one registers; *registered says which.
 */
static int gpuprobe_krps_register(struct kretprobe *krps, bool *registered,
				  size_t n)
{
	int err = -ENOENT, any = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		/* a kretprobe can be registered again only from a clean state */
		krps[i].kp.addr = NULL;
		krps[i].kp.flags = 0;
		krps[i].nmissed = 0;
		registered[i] = !register_kretprobe(&krps[i]);
		any |= registered[i];
	}
	return any ? 0 : err;
}

static void gpuprobe_krps_unregister(struct kretprobe *krps, bool *registered,
				     size_t n)
{
	struct kretprobe *ptrs[GPUPROBE_KRP_TABLE_MAX];
	size_t i, k = 0;

	if (WARN_ON_ONCE(n > ARRAY_SIZE(ptrs)))
		return;

	for (i = 0; i < n; i++)
		if (registered[i])
			ptrs[k++] = &krps[i];
	unregister_kretprobes(ptrs, k);
	memset(registered, 0, n * sizeof(*registered));
}

/*
 * DMA calls: the dma: tracepoints where the kernel has them (6.12+), timed
 * from a kprobe at the call's entry (dma_tp.c); else kretprobes.  IOMMU
 * calls: kretprobes either way (no IOMMU tracepoint carries a duration or
 * a domain).
 */
u32 gpuprobe_dma_available(void)
{
	u32 mask = 0;

	BUILD_BUG_ON(ARRAY_SIZE(gpuprobe_dma_krps) > GPUPROBE_KRP_TABLE_MAX);
	BUILD_BUG_ON(ARRAY_SIZE(gpuprobe_iommu_krps) > GPUPROBE_KRP_TABLE_MAX);

	if (gpuprobe_dma_tp_available() || IS_ENABLED(CONFIG_KRETPROBES))
		mask |= GPUPROBE_EVMASK(GPUPROBE_EV_DMA);
	if (IS_ENABLED(CONFIG_KRETPROBES) && IS_ENABLED(CONFIG_IOMMU_API))
		mask |= GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU);
	return mask;
}

static int gpuprobe_dma_calls_attach(void)
{
	gpuprobe_dma_use_tp = gpuprobe_dma_tp_available();
	if (gpuprobe_dma_use_tp)
		return gpuprobe_dma_tp_attach();
	return gpuprobe_krps_register(gpuprobe_dma_krps, gpuprobe_dma_krp_on,
				      ARRAY_SIZE(gpuprobe_dma_krps));
}

int gpuprobe_dma_attach(u32 mask)
{
	int err;

	if (mask & GPUPROBE_EVMASK(GPUPROBE_EV_DMA)) {
		err = gpuprobe_dma_calls_attach();
		gpuprobe_dma_err = err;
		if (err)
			return err;
		gpuprobe_dma_attached = true;
	}
	if (mask & GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU)) {
		err = gpuprobe_krps_register(gpuprobe_iommu_krps,
					     gpuprobe_iommu_krp_on,
					     ARRAY_SIZE(gpuprobe_iommu_krps));
		gpuprobe_iommu_err = err;
		if (err) {
			gpuprobe_dma_detach();
			return err;
		}
		gpuprobe_iommu_attached = true;
		/* faults are best effort: the symbol is driver-internal */
		gpuprobe_vtd_attach();
	}
	return 0;
}

void gpuprobe_dma_detach(void)
{
	int cpu;

	gpuprobe_vtd_detach();
	if (gpuprobe_iommu_attached)
		gpuprobe_krps_unregister(gpuprobe_iommu_krps,
					 gpuprobe_iommu_krp_on,
					 ARRAY_SIZE(gpuprobe_iommu_krps));
	if (gpuprobe_dma_attached && gpuprobe_dma_use_tp)
		gpuprobe_dma_tp_detach();
	else if (gpuprobe_dma_attached)
		gpuprobe_krps_unregister(gpuprobe_dma_krps, gpuprobe_dma_krp_on,
					 ARRAY_SIZE(gpuprobe_dma_krps));
	gpuprobe_iommu_attached = false;
	gpuprobe_dma_attached = false;
	for_each_possible_cpu(cpu)
		per_cpu(gpuprobe_dma_current, cpu) = NULL;
}

/* Records that could not be taken because all kretprobe instances were busy. */
u64 gpuprobe_dma_missed(void)
{
	u64 n = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gpuprobe_dma_krps); i++)
		n += gpuprobe_dma_krps[i].nmissed;
	for (i = 0; i < ARRAY_SIZE(gpuprobe_iommu_krps); i++)
		n += gpuprobe_iommu_krps[i].nmissed;
	return n;
}

int gpuprobe_dma_hooks_fill(struct sk_buff *skb,
			    int (*fill)(struct sk_buff *, const char *, bool,
					const char *))
{
	bool tp = gpuprobe_dma_tp_available();
	const char *why_dma = !tp && !IS_ENABLED(CONFIG_KRETPROBES) ?
		"no dma: tracepoints and no kretprobes in this kernel" :
		gpuprobe_dma_err ? "registration failed" : NULL;
	const char *why_iommu = !IS_ENABLED(CONFIG_IOMMU_API) ?
		"kernel built without the IOMMU API" :
		!IS_ENABLED(CONFIG_KRETPROBES) ? "kernel built without kretprobes" :
		gpuprobe_iommu_err ? "kretprobe registration failed" : NULL;
	const char *why_fault = why_iommu ? why_iommu : gpuprobe_vtd_why();
	int err;

	if (tp)
		err = gpuprobe_dma_tp_hooks_fill(skb, fill, gpuprobe_dma_attached,
						 why_dma);
	else
		err = fill(skb, "kretprobe:dma_map_*", gpuprobe_dma_attached,
			   why_dma);
	if (err ||
	    fill(skb, "kretprobe:iommu_map/unmap", gpuprobe_iommu_attached,
		 why_iommu) ||
	    fill(skb, "kprobe:dmar_fault", gpuprobe_vtd_attached(), why_fault))
		return -EMSGSIZE;
	return 0;
}
