// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: DMA-API calls and IOMMU map/unmap/fault for the targets.
 *
 * Kernels before 6.12 have no dma: tracepoints, so the DMA-API entry points
 * are timed with kretprobes: the entry handler filters on the device (a
 * non-target call costs one lookup and installs no return probe), the return
 * handler writes one record with the call's duration.
 *
 * IOMMU map/unmap (dma_iommu.c) add their time and count to the record of
 * the DMA call their context has in progress (dma_owner.c).
 *
 * Intel's IOMMU reports faults in its own fault handler, not through
 * report_iommu_fault() (whose io_page_fault tracepoint hooks.c attaches);
 * dma_vtd.c reads them there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/scatterlist.h>
#include <net/genetlink.h>

#include "compat.h"
#include "dma.h"
#include "gpuprobe.h"

/* Target calls whose entry found every kretprobe instance busy. */
static DEFINE_PER_CPU(u64, gpuprobe_dma_target_entries);
static DEFINE_PER_CPU(u64, gpuprobe_dma_target_timed);

/*
 * A DMA-API or IOMMU call in progress holds a kretprobe instance, and one
 * that sleeps holds it for long: a host where many threads map at once
 * may need more than the default (STATS' missed says so).
 */
static unsigned int krp_maxactive;

static int krp_maxactive_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, GPUPROBE_KRP_MAXACTIVE_MAX);
}

static const struct kernel_param_ops krp_maxactive_ops = {
	.set = krp_maxactive_set,
	.get = param_get_uint,
};

module_param_cb(krp_maxactive, &krp_maxactive_ops, &krp_maxactive, 0444);
MODULE_PARM_DESC(krp_maxactive,
		 "return-probe instances per DMA-API and IOMMU kretprobe (1-4096; default 0: max(64, 2 * possible CPUs)); raise it when STATS reports missed calls");

/* Common entry: filters on the device and fills the call in. */
int gpuprobe_dma_begin(struct gpuprobe_dma_inst *in, struct device *dev,
		       u16 op, u8 dir, u64 bytes, u32 nents)
{
	in->bdf = gpuprobe_dev_bdf(dev);
	if (likely(in->bdf == GPUPROBE_BDF_NONE))
		return 1;	/* no return probe for other devices */
	in->domain = iommu_get_domain_for_dev(dev);
	in->op = op;
	in->dir = dir;
	in->bytes = bytes;
	in->nents = nents;
	in->addr = 0;
	in->iommu_ns = 0;
	in->iommu_calls = 0;
	memset(&in->parts, 0, sizeof(in->parts));
	in->sgtable = 0;
	in->owner = -1;
	in->ts = ktime_get_mono_fast_ns();
	return 0;
}

/* Writes the record and gives the context's claim back. */
void gpuprobe_dma_end(struct gpuprobe_dma_inst *in, u16 flags)
{
	u64 now = ktime_get_mono_fast_ns();
	struct gpuprobe_rec_dma rec = {
		.hdr.type = GPUPROBE_EV_DMA,
		.hdr.size = sizeof(rec),
		.hdr.flags = flags,
		.hdr.ts_ns = in->ts,
		.bdf = in->bdf,
		.op = in->op,
		.dir = in->dir,
		.bytes = in->bytes,
		.dma_addr = in->addr,
		.nents = in->nents,
		.iommu_calls = in->iommu_calls,
		.duration_ns = flags & GPUPROBE_DMA_UNTIMED ? 0 : now - in->ts,
		.iommu_ns = in->iommu_ns,
	};

	if (in->owner >= 0)
		gpuprobe_dma_owner_release(in->owner);
	in->owner = -1;
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

/*
 * A kretprobe entry that passed the filter: claims its context's slot,
 * unless a call of the same context is already in flight (the outer call
 * then takes the IOMMU work).
 */
static int gpuprobe_krp_claim(struct gpuprobe_dma_inst *in, int skip)
{
	unsigned long key;

	if (skip)
		return skip;
	this_cpu_inc(gpuprobe_dma_target_timed);
	key = gpuprobe_dma_ctx_key();
	if (gpuprobe_dma_owner_find(key) < 0)
		in->owner = gpuprobe_dma_owner_claim(key, in);
	return 0;
}

#define GPUPROBE_DMA_INST(ri) ((struct gpuprobe_dma_inst *)(ri)->data)
#define GPUPROBE_DEV_ARG(regs) ((struct device *)gpuprobe_arg(regs, 0))

/* Another device's call: the entries below decline it before anything else. */
static __always_inline bool gpuprobe_dma_other(struct pt_regs *regs)
{
	return gpuprobe_dev_bdf(GPUPROBE_DEV_ARG(regs)) == GPUPROBE_BDF_NONE;
}

static noinline int map_page_start(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_dma_inst *in = GPUPROBE_DMA_INST(ri);

	return gpuprobe_krp_claim(in, gpuprobe_dma_begin(in, GPUPROBE_DEV_ARG(regs),
							 GPUPROBE_DMA_MAP_PAGE,
							 gpuprobe_arg(regs, 4),
							 gpuprobe_arg(regs, 3), 1));
}

/* unmap_page, unmap_resource: (dev, addr, size, dir, attrs) */
static noinline int unmap_start(struct kretprobe_instance *ri, struct pt_regs *regs, u16 op)
{
	struct gpuprobe_dma_inst *in = GPUPROBE_DMA_INST(ri);
	int skip;

	skip = gpuprobe_dma_begin(in, GPUPROBE_DEV_ARG(regs), op,
				  gpuprobe_arg(regs, 3), gpuprobe_arg(regs, 2), 1);
	in->addr = gpuprobe_arg(regs, 1);
	return gpuprobe_krp_claim(in, skip);
}

static noinline int map_sg_start(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_dma_inst *in = GPUPROBE_DMA_INST(ri);
	struct scatterlist *sg = (void *)gpuprobe_arg(regs, 1);
	int nents = gpuprobe_arg(regs, 2);

	in->ptr = sg;
	return gpuprobe_krp_claim(in, gpuprobe_dma_begin(in, GPUPROBE_DEV_ARG(regs),
							 GPUPROBE_DMA_MAP_SG,
							 gpuprobe_arg(regs, 3),
							 gpuprobe_sg_bytes(sg, nents),
							 nents));
}

static noinline int map_sgtable_start(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_dma_inst *in = GPUPROBE_DMA_INST(ri);
	struct sg_table *sgt = (void *)gpuprobe_arg(regs, 1);
	int skip;

	in->ptr = sgt->sgl;
	skip = gpuprobe_dma_begin(in, GPUPROBE_DEV_ARG(regs), GPUPROBE_DMA_MAP_SG,
				  gpuprobe_arg(regs, 2),
				  gpuprobe_sg_bytes(sgt->sgl, sgt->orig_nents),
				  sgt->orig_nents);
	in->sgtable = 1;
	return gpuprobe_krp_claim(in, skip);
}

static noinline int unmap_sg_start(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_dma_inst *in = GPUPROBE_DMA_INST(ri);
	struct scatterlist *sg = (void *)gpuprobe_arg(regs, 1);
	int nents = gpuprobe_arg(regs, 2);
	int skip;

	skip = gpuprobe_dma_begin(in, GPUPROBE_DEV_ARG(regs), GPUPROBE_DMA_UNMAP_SG,
				  gpuprobe_arg(regs, 3),
				  gpuprobe_sg_bytes(sg, nents), nents);
	/* after begin, which clears it: the first segment's device address */
	in->addr = sg_dma_address(sg);
	return gpuprobe_krp_claim(in, skip);
}

static noinline int alloc_start(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_dma_inst *in = GPUPROBE_DMA_INST(ri);

	in->ptr = (void *)gpuprobe_arg(regs, 2);
	return gpuprobe_krp_claim(in, gpuprobe_dma_begin(in, GPUPROBE_DEV_ARG(regs),
							 GPUPROBE_DMA_ALLOC,
							 DMA_BIDIRECTIONAL,
							 gpuprobe_arg(regs, 1), 1));
}

static noinline int free_start(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_dma_inst *in = GPUPROBE_DMA_INST(ri);
	int skip;

	skip = gpuprobe_dma_begin(in, GPUPROBE_DEV_ARG(regs), GPUPROBE_DMA_FREE,
				  DMA_BIDIRECTIONAL, gpuprobe_arg(regs, 1), 1);
	in->addr = gpuprobe_arg(regs, 3);
	return gpuprobe_krp_claim(in, skip);
}

static noinline int map_resource_start(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_dma_inst *in = GPUPROBE_DMA_INST(ri);

	return gpuprobe_krp_claim(in, gpuprobe_dma_begin(in, GPUPROBE_DEV_ARG(regs),
							 GPUPROBE_DMA_MAP_RESOURCE,
							 gpuprobe_arg(regs, 3),
							 gpuprobe_arg(regs, 2), 1));
}

/*
 * The entries every device's DMA-API calls reach: another device's call is
 * declined here, inline, before a register is saved or anything is read
 * past the target map; only a target's call goes on, out of line, to its
 * _start above (which scans the map again: a target's call only).
 */
static int map_page_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (gpuprobe_dma_other(regs))
		return 1;
	return map_page_start(ri, regs);
}

static int unmap_page_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (gpuprobe_dma_other(regs))
		return 1;
	return unmap_start(ri, regs, GPUPROBE_DMA_UNMAP_PAGE);
}

static int map_sg_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (gpuprobe_dma_other(regs))
		return 1;
	return map_sg_start(ri, regs);
}

static int map_sgtable_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (gpuprobe_dma_other(regs))
		return 1;
	return map_sgtable_start(ri, regs);
}

static int unmap_sg_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (gpuprobe_dma_other(regs))
		return 1;
	return unmap_sg_start(ri, regs);
}

static int alloc_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (gpuprobe_dma_other(regs))
		return 1;
	return alloc_start(ri, regs);
}

static int free_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (gpuprobe_dma_other(regs))
		return 1;
	return free_start(ri, regs);
}

static int map_resource_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (gpuprobe_dma_other(regs))
		return 1;
	return map_resource_start(ri, regs);
}

static int unmap_resource_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (gpuprobe_dma_other(regs))
		return 1;
	return unmap_start(ri, regs, GPUPROBE_DMA_UNMAP_RESOURCE);
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
		/*
		 * Both return int-sized values; the upper half of the register
		 * is not part of them.  map_sg: the count, 0 on failure;
		 * map_sgtable: 0 or -errno.
		 */
		if (in->sgtable ? (int)ret == 0 : (int)ret > 0)
			in->addr = sg_dma_address((struct scatterlist *)in->ptr);
		break;
	case GPUPROBE_DMA_ALLOC:
		if (ret && in->ptr)
			in->addr = *(dma_addr_t *)in->ptr;
		break;
	}
	gpuprobe_dma_end(in, 0);
	return 0;
}

/* Counts the target's calls, for the missed ones (dma_missed_fill). */
static int gpuprobe_dma_count_entry(struct kprobe *kp, struct pt_regs *regs)
{
	if (gpuprobe_dev_bdf(GPUPROBE_DEV_ARG(regs)) != GPUPROBE_BDF_NONE)
		this_cpu_inc(gpuprobe_dma_target_entries);
	return 0;
}

/* local to the two tables below */
#define KRP(sym, entry, ret, data) {					\
	.kp.symbol_name = sym, .entry_handler = entry, .handler = ret,	\
	.data_size = sizeof(struct data) }

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

#undef KRP

/*
 * Beside each DMA-API kretprobe, a kprobe that counts the target's calls:
 * the kretprobe's own nmissed counts every call that found no free
 * instance, other devices' included, before its entry handler can filter.
 */
static struct gpuprobe_krp_counter gpuprobe_dma_counter;

static bool gpuprobe_dma_attached, gpuprobe_iommu_attached;
static bool gpuprobe_dma_krp_on[ARRAY_SIZE(gpuprobe_dma_krps)];
static bool gpuprobe_dma_use_tp;	/* dma: tracepoints instead of kretprobes */
static int gpuprobe_dma_err, gpuprobe_iommu_err;

/*
 * One by one: a kernel may lack some entry points (iommu_map_atomic went in
 * 6.3).  Succeeds when at least one registers; *registered says which.
 */
int gpuprobe_krps_register(struct kretprobe *krps, bool *registered,
			   size_t n)
{
	int err = -ENOENT, any = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		/* a kretprobe can be registered again only from a clean state */
		krps[i].kp.addr = NULL;
		krps[i].kp.flags = 0;
		krps[i].nmissed = 0;
		krps[i].maxactive = krp_maxactive ? (int)krp_maxactive :
			max_t(int, GPUPROBE_KRP_MAXACTIVE,
			      2 * num_possible_cpus());
		registered[i] = !register_kretprobe(&krps[i]);
		any |= registered[i];
	}
	return any ? 0 : err;
}

void gpuprobe_krps_unregister(struct kretprobe *krps, bool *registered,
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
 * At once: one grace period for the table, not one per kprobe.  STOP
 * unregisters some twenty; each a grace period, they took seconds on a
 * loaded host.
 */
void gpuprobe_kps_unregister(struct kprobe *kps, bool *registered, size_t n)
{
	struct kprobe *ptrs[GPUPROBE_KRP_TABLE_MAX];
	size_t i, k = 0;

	if (WARN_ON_ONCE(n > ARRAY_SIZE(ptrs)))
		return;
	for (i = 0; i < n; i++)
		if (registered[i])
			ptrs[k++] = &kps[i];
	unregister_kprobes(ptrs, k);
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

	if (gpuprobe_dma_tp_available() || IS_ENABLED(CONFIG_KRETPROBES))
		mask |= GPUPROBE_EVMASK(GPUPROBE_EV_DMA);
	/* the parts (dma_parts.c) come with the IOMMU events, when asked for */
	if (IS_ENABLED(CONFIG_KRETPROBES) && IS_ENABLED(CONFIG_IOMMU_API))
		mask |= GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU) |
			GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU_PART);
	return mask;
}

static void gpuprobe_dma_counters_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		per_cpu(gpuprobe_dma_target_entries, cpu) = 0;
		per_cpu(gpuprobe_dma_target_timed, cpu) = 0;
	}
}

/*
 * Best effort: without them, missed counts every device's calls.  The
 * kprobes go on after the kretprobes at the same addresses; the kprobe
 * core runs the later one first, and neither changes what the other reads.
 */
void gpuprobe_krp_count_attach(struct gpuprobe_krp_counter *c,
			       const struct kretprobe *krps, const bool *krp_on,
			       size_t n, kprobe_pre_handler_t count)
{
	size_t i;

	if (WARN_ON_ONCE(n > GPUPROBE_KRP_TABLE_MAX))
		return;
	for (i = 0; i < n; i++) {
		c->counted[i] = false;
		if (!krp_on[i])
			continue;
		c->kps[i] = (struct kprobe){
			.symbol_name = krps[i].kp.symbol_name,
			.pre_handler = count,
		};
		c->registered[i] = !register_kprobe(&c->kps[i]);
		c->counted[i] = c->registered[i];
	}
}

void gpuprobe_krp_count_detach(struct gpuprobe_krp_counter *c, size_t n)
{
	gpuprobe_kps_unregister(c->kps, c->registered,
				min_t(size_t, n, GPUPROBE_KRP_TABLE_MAX));
}

/*
 * Target calls that found every instance busy: those the counting kprobes
 * saw (entries) and the entry handlers did not (timed); the kretprobes'
 * own nmissed, every device's, where no counting kprobe is on.
 */
u64 gpuprobe_krp_missed(const struct gpuprobe_krp_counter *c,
			const struct kretprobe *krps, size_t n,
			u64 __percpu *entries, u64 __percpu *timed)
{
	u64 missed = 0, in = 0, out = 0;
	bool counted = false;
	size_t i;
	int cpu;

	for (i = 0; i < n && i < GPUPROBE_KRP_TABLE_MAX; i++) {
		counted |= c->counted[i];
		if (!c->counted[i])
			missed += krps[i].nmissed;
	}
	for_each_possible_cpu(cpu) {
		in += *per_cpu_ptr(entries, cpu);
		out += *per_cpu_ptr(timed, cpu);
	}
	/* the two probes go on and off one after the other */
	if (counted && in > out)
		missed += in - out;
	return missed;
}

static int gpuprobe_dma_calls_attach(void)
{
	int err;

	gpuprobe_dma_use_tp = gpuprobe_dma_tp_available();
	if (gpuprobe_dma_use_tp)
		return gpuprobe_dma_tp_attach();
	err = gpuprobe_krps_register(gpuprobe_dma_krps, gpuprobe_dma_krp_on,
				     ARRAY_SIZE(gpuprobe_dma_krps));
	if (!err)
		gpuprobe_krp_count_attach(&gpuprobe_dma_counter, gpuprobe_dma_krps,
					  gpuprobe_dma_krp_on,
					  ARRAY_SIZE(gpuprobe_dma_krps),
					  gpuprobe_dma_count_entry);
	return err;
}

int gpuprobe_dma_attach(u32 mask)
{
	int err;

	gpuprobe_dma_owners_reset();
	gpuprobe_dma_counters_reset();
	if (mask & GPUPROBE_EVMASK(GPUPROBE_EV_DMA)) {
		err = gpuprobe_dma_calls_attach();
		gpuprobe_dma_err = err;
		if (err)
			return err;
		gpuprobe_dma_attached = true;
	}
	if (mask & GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU)) {
		err = gpuprobe_iommu_attach();
		gpuprobe_iommu_err = err;
		if (err) {
			gpuprobe_dma_detach();
			return err;
		}
		gpuprobe_iommu_attached = true;
		/* faults are best effort: the symbol is driver-internal */
		gpuprobe_vtd_attach();
		/*
		 * so are the parts (most of them are driver-internal too), and
		 * only for a session that asks: every device's IOVA and page
		 * table calls pay their probes' mechanism, target or not
		 */
		gpuprobe_parts_attach(mask & GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU_PART));
	}
	return 0;
}

void gpuprobe_dma_detach(void)
{
	gpuprobe_parts_detach();
	gpuprobe_vtd_detach();
	if (gpuprobe_iommu_attached)
		gpuprobe_iommu_detach();
	if (gpuprobe_dma_attached && gpuprobe_dma_use_tp)
		gpuprobe_dma_tp_detach();
	else if (gpuprobe_dma_attached)
		gpuprobe_krp_count_detach(&gpuprobe_dma_counter,
					  ARRAY_SIZE(gpuprobe_dma_krps));
	if (gpuprobe_dma_attached && !gpuprobe_dma_use_tp)
		gpuprobe_krps_unregister(gpuprobe_dma_krps, gpuprobe_dma_krp_on,
					 ARRAY_SIZE(gpuprobe_dma_krps));
	gpuprobe_iommu_attached = false;
	gpuprobe_dma_attached = false;
}

/*
 * Target calls not recorded because every kretprobe instance was busy:
 * DMA-API calls, and the IOMMU calls on a target's domain (dma_iommu.c).
 */
u64 gpuprobe_dma_missed(void)
{
	return gpuprobe_krp_missed(&gpuprobe_dma_counter, gpuprobe_dma_krps,
				   ARRAY_SIZE(gpuprobe_dma_krps),
				   &gpuprobe_dma_target_entries,
				   &gpuprobe_dma_target_timed) +
	       gpuprobe_iommu_missed();
}

/*
 * Probe hits the kernel skipped because another kprobe handler was running
 * on the CPU: every device's, before any filter (the counting kprobes sit
 * on the same addresses as the DMA kretprobes and are not added again).
 */
u64 gpuprobe_probe_recursion(void)
{
	u64 n = gpuprobe_dma_tp_recursion() + gpuprobe_swiotlb_recursion();
	size_t i;

	if (!gpuprobe_dma_use_tp)
		for (i = 0; i < ARRAY_SIZE(gpuprobe_dma_krps); i++)
			n += gpuprobe_dma_krps[i].kp.nmissed;
	return n + gpuprobe_iommu_recursion() + gpuprobe_parts_recursion();
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
	    fill(skb, "kprobe:dmar_fault", gpuprobe_vtd_attached(), why_fault) ||
	    gpuprobe_parts_hooks_fill(skb, fill))
		return -EMSGSIZE;
	return 0;
}
