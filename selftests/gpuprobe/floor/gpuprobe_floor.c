// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe_floor: the probe mechanism's own cost, for make bench-nontarget.
 *
 * Registers, at the addresses gpuprobe probes on this kernel, probes that do
 * nothing but count their hits: kretprobes whose entry handler declines the
 * return probe (what gpuprobe does for another device's call), plain
 * kprobes, and on kernels with dma: tracepoints the same tracepoints with an
 * empty probe.  What a non-target call costs with it loaded is the floor no
 * filter can go under; the count says how many probed calls an I/O made.
 *
 * With counters=1, also an empty kprobe beside each kretprobe, as gpuprobe
 * counts its targets' calls there (dma.h, struct gpuprobe_krp_counter):
 * the mechanism of gpuprobe's own probe layout.
 *
 * With parts=1, also empty probes where a START with IOMMU events attaches
 * gpuprobe's IOMMU "parts" hooks (kmod/dma_parts.c): kretprobes whose entry
 * handler declines the return probe, and plain kprobes, which every
 * device's IOMMU work hits.  Their calls are counted in part_hits, not in
 * iommu_hits.
 *
 * Not part of gpuprobe and never loaded by it: a benchmark's yardstick.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/tracepoint.h>

static DEFINE_PER_CPU(u64, floor_dma_hits);
static DEFINE_PER_CPU(u64, floor_iommu_hits);
static DEFINE_PER_CPU(u64, floor_part_hits);

static int floor_dma_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	this_cpu_inc(floor_dma_hits);
	return 1;	/* no return probe, as for another device's call */
}

static int floor_iommu_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	this_cpu_inc(floor_iommu_hits);
	return 1;
}

static int floor_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

static int floor_pre(struct kprobe *kp, struct pt_regs *regs)
{
	this_cpu_inc(floor_dma_hits);
	return 0;
}

static int floor_count_pre(struct kprobe *kp, struct pt_regs *regs)
{
	return 0;
}

static int floor_part_entry(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	this_cpu_inc(floor_part_hits);
	return 1;	/* declined, as gpuprobe's for another device */
}

static int floor_part_pre(struct kprobe *kp, struct pt_regs *regs)
{
	this_cpu_inc(floor_part_hits);
	return 0;
}

static bool counters;
module_param(counters, bool, 0444);
MODULE_PARM_DESC(counters, "an empty kprobe beside each kretprobe too");

static bool parts;
module_param(parts, bool, 0444);
MODULE_PARM_DESC(parts, "empty probes where gpuprobe's IOMMU parts hooks are too");

/* the counters beside the kretprobes of one table, at most 16 */
struct floor_counter {
	struct kprobe kps[16];
	bool on[16];
};

static struct floor_counter floor_dma_cnt, floor_iommu_cnt;

static void floor_count_on(struct floor_counter *c, struct kretprobe *krps,
			   const bool *krp_on, size_t n)
{
	size_t i;

	for (i = 0; counters && i < n && i < ARRAY_SIZE(c->kps); i++) {
		if (!krp_on[i])
			continue;
		c->kps[i].symbol_name = krps[i].kp.symbol_name;
		c->kps[i].pre_handler = floor_count_pre;
		c->on[i] = !register_kprobe(&c->kps[i]);
	}
}

static void floor_count_off(struct floor_counter *c)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c->kps); i++)
		if (c->on[i])
			unregister_kprobe(&c->kps[i]);
}

/*
 * Takes no argument and reads none: called with the tracepoint's, which the
 * x86-64 calling convention lets a callee ignore.  Refused under kCFI,
 * where the indirect call checks the type (gpuprobe's own probes are typed).
 */
static void floor_tp(void *data)
{
}

#define KRP(sym, entry) { .kp.symbol_name = sym, .entry_handler = entry, \
			  .handler = floor_ret }

/* gpuprobe's DMA-API kretprobes (kernels without dma: tracepoints) */
static struct kretprobe floor_dma_krps[] = {
	KRP("dma_map_page_attrs", floor_dma_entry),
	KRP("dma_unmap_page_attrs", floor_dma_entry),
	KRP("dma_map_sg_attrs", floor_dma_entry),
	KRP("dma_map_sgtable", floor_dma_entry),
	KRP("dma_unmap_sg_attrs", floor_dma_entry),
	KRP("dma_alloc_attrs", floor_dma_entry),
	KRP("dma_free_attrs", floor_dma_entry),
	KRP("dma_map_resource", floor_dma_entry),
	KRP("dma_unmap_resource", floor_dma_entry),
};

/* with the tracepoints: kretprobes on the map_sg entries only ... */
static struct kretprobe floor_sg_krps[] = {
	KRP("dma_map_sg_attrs", floor_dma_entry),
	KRP("dma_map_sgtable", floor_dma_entry),
};

/* ... and an entry kprobe on the others */
static struct kprobe floor_entry_kps[] = {
	{ .symbol_name = "dma_map_page_attrs", .pre_handler = floor_pre },
	{ .symbol_name = "dma_unmap_page_attrs", .pre_handler = floor_pre },
	{ .symbol_name = "dma_unmap_sg_attrs", .pre_handler = floor_pre },
	{ .symbol_name = "dma_alloc_attrs", .pre_handler = floor_pre },
	{ .symbol_name = "dma_free_attrs", .pre_handler = floor_pre },
	{ .symbol_name = "dma_map_resource", .pre_handler = floor_pre },
	{ .symbol_name = "dma_unmap_resource", .pre_handler = floor_pre },
};

/* gpuprobe's IOMMU kretprobes, on every kernel */
static struct kretprobe floor_iommu_krps[] = {
	KRP("iommu_map", floor_iommu_entry),
	KRP("iommu_map_atomic", floor_iommu_entry),
	KRP("iommu_unmap", floor_iommu_entry),
	KRP("iommu_unmap_fast", floor_iommu_entry),
	KRP("iommu_map_sg", floor_iommu_entry),
	KRP("iommu_map_sg_atomic", floor_iommu_entry),
};

/* gpuprobe's IOMMU parts kretprobes (kmod/dma_parts.c), with parts=1 */
static struct kretprobe floor_part_krps[] = {
	KRP("alloc_iova_fast", floor_part_entry),
	KRP("free_iova_fast", floor_part_entry),
	KRP("intel_iommu_map_pages", floor_part_entry),
	KRP("intel_iommu_unmap_pages", floor_part_entry),
	KRP("qi_submit_sync", floor_part_entry),
	KRP("queue_iova", floor_part_entry),
	KRP("intel_flush_iotlb_all", floor_part_entry),
	KRP("fq_flush_timeout", floor_part_entry),
	KRP("amd_iommu_map_pages", floor_part_entry),
	KRP("amd_iommu_unmap_pages", floor_part_entry),
	KRP("amd_iommu_iotlb_sync", floor_part_entry),
	KRP("amd_iommu_flush_iotlb_all", floor_part_entry),
};

#undef KRP

/* ... and its parts kprobes */
static struct kprobe floor_part_kps[] = {
	{ .symbol_name = "alloc_iova", .pre_handler = floor_part_pre },
	{ .symbol_name = "free_iova", .pre_handler = floor_part_pre },
};

static const char *const floor_tp_names[] = {
	"dma_map_phys", "dma_unmap_phys", "dma_map_page", "dma_unmap_page",
	"dma_map_resource", "dma_unmap_resource", "dma_map_sg", "dma_unmap_sg",
	"dma_alloc", "dma_free", "dma_map_sg_err",
};

static struct tracepoint *floor_tps[ARRAY_SIZE(floor_tp_names)];
static bool floor_tp_on[ARRAY_SIZE(floor_tp_names)];
static bool floor_dma_on[ARRAY_SIZE(floor_dma_krps)];
static bool floor_sg_on[ARRAY_SIZE(floor_sg_krps)];
static bool floor_entry_on[ARRAY_SIZE(floor_entry_kps)];
static bool floor_iommu_on[ARRAY_SIZE(floor_iommu_krps)];
static bool floor_part_krp_on[ARRAY_SIZE(floor_part_krps)];
static bool floor_part_kp_on[ARRAY_SIZE(floor_part_kps)];
static bool floor_use_tp;

static void floor_tp_find(struct tracepoint *tp, void *priv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(floor_tp_names); i++)
		if (!strcmp(tp->name, floor_tp_names[i]))
			floor_tps[i] = tp;
}

static unsigned int floor_krps_on(struct kretprobe *krps, bool *on, size_t n)
{
	unsigned int k = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		krps[i].maxactive = max_t(int, 64, 2 * num_possible_cpus());
		on[i] = !register_kretprobe(&krps[i]);
		k += on[i];
	}
	return k;
}

static void floor_krps_off(struct kretprobe *krps, bool *on, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (on[i])
			unregister_kretprobe(&krps[i]);
}

/* "tp": dma: tracepoints found (gpuprobe's 6.12 path), else "krp" */
static int floor_mode_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", floor_use_tp ? "tp" : "krp");
}

static int floor_hits_get(char *buf, const struct kernel_param *kp)
{
	u64 __percpu *hits = kp->arg;
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += *per_cpu_ptr(hits, cpu);
	return sysfs_emit(buf, "%llu\n", n);
}

static const struct kernel_param_ops floor_mode_ops = { .get = floor_mode_get };
static const struct kernel_param_ops floor_hits_ops = { .get = floor_hits_get };
module_param_cb(mode, &floor_mode_ops, NULL, 0444);
MODULE_PARM_DESC(mode, "which of gpuprobe's DMA paths is mirrored: tp or krp");
module_param_cb(dma_hits, &floor_hits_ops, &floor_dma_hits, 0444);
MODULE_PARM_DESC(dma_hits, "DMA-API calls seen");
module_param_cb(iommu_hits, &floor_hits_ops, &floor_iommu_hits, 0444);
MODULE_PARM_DESC(iommu_hits, "IOMMU map/unmap calls seen");
module_param_cb(part_hits, &floor_hits_ops, &floor_part_hits, 0444);
MODULE_PARM_DESC(part_hits, "calls of the IOMMU parts functions seen (parts=1)");

/* parts=1: the probes of gpuprobe_parts_attach(), best effort one by one */
static unsigned int floor_parts_on(void)
{
	unsigned int n = 0;
	size_t i;

	if (!parts)
		return 0;
	n += floor_krps_on(floor_part_krps, floor_part_krp_on,
			   ARRAY_SIZE(floor_part_krps));
	for (i = 0; i < ARRAY_SIZE(floor_part_kps); i++)
		n += floor_part_kp_on[i] = !register_kprobe(&floor_part_kps[i]);
	return n;
}

static void floor_parts_off(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(floor_part_kps); i++)
		if (floor_part_kp_on[i])
			unregister_kprobe(&floor_part_kps[i]);
	floor_krps_off(floor_part_krps, floor_part_krp_on,
		       ARRAY_SIZE(floor_part_krps));
}

static void floor_off(void)
{
	size_t i;

	floor_parts_off();
	floor_count_off(&floor_dma_cnt);
	floor_count_off(&floor_iommu_cnt);
	floor_krps_off(floor_iommu_krps, floor_iommu_on,
		       ARRAY_SIZE(floor_iommu_krps));
	floor_krps_off(floor_dma_krps, floor_dma_on, ARRAY_SIZE(floor_dma_krps));
	floor_krps_off(floor_sg_krps, floor_sg_on, ARRAY_SIZE(floor_sg_krps));
	for (i = 0; i < ARRAY_SIZE(floor_entry_kps); i++)
		if (floor_entry_on[i])
			unregister_kprobe(&floor_entry_kps[i]);
	for (i = 0; i < ARRAY_SIZE(floor_tps); i++)
		if (floor_tp_on[i])
			tracepoint_probe_unregister(floor_tps[i], floor_tp, NULL);
	tracepoint_synchronize_unregister();
}

static int __init floor_init(void)
{
	unsigned int n = 0, k;
	size_t i;

	for_each_kernel_tracepoint(floor_tp_find, NULL);
	floor_use_tp = floor_tps[6] && floor_tps[7];	/* dma_map_sg, dma_unmap_sg */
	if (floor_use_tp && IS_ENABLED(CONFIG_CFI_CLANG)) {
		pr_err("kCFI: the untyped tracepoint probe would trap\n");
		return -EOPNOTSUPP;
	}
	if (floor_use_tp) {
		for (i = 0; i < ARRAY_SIZE(floor_tps); i++)
			floor_tp_on[i] = floor_tps[i] &&
				!tracepoint_probe_register(floor_tps[i], floor_tp,
							   NULL);
		for (i = 0; i < ARRAY_SIZE(floor_entry_kps); i++)
			n += floor_entry_on[i] =
				!register_kprobe(&floor_entry_kps[i]);
		n += floor_krps_on(floor_sg_krps, floor_sg_on,
				   ARRAY_SIZE(floor_sg_krps));
	} else {
		n += floor_krps_on(floor_dma_krps, floor_dma_on,
				   ARRAY_SIZE(floor_dma_krps));
		/* gpuprobe's tracepoint path counts nothing beside its kretprobes */
		floor_count_on(&floor_dma_cnt, floor_dma_krps, floor_dma_on,
			       ARRAY_SIZE(floor_dma_krps));
	}
	n += floor_krps_on(floor_iommu_krps, floor_iommu_on,
			   ARRAY_SIZE(floor_iommu_krps));
	floor_count_on(&floor_iommu_cnt, floor_iommu_krps, floor_iommu_on,
		       ARRAY_SIZE(floor_iommu_krps));
	k = floor_parts_on();
	pr_info("%u probes (%s path), %u parts probes\n", n,
		floor_use_tp ? "tracepoint" : "kretprobe", k);
	if (!n) {
		floor_off();
		return -ENOENT;
	}
	return 0;
}

static void __exit floor_exit(void)
{
	floor_off();
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("gpuprobe benchmark: empty probes where gpuprobe probes");
