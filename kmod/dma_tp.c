// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: DMA-API calls from the dma: tracepoints (6.12+).
 *
 * Every dma: tracepoint fires at the end of its call, with the call's
 * results (device address, segments mapped).  The start comes from a kprobe
 * at the entry of the same DMA-API function: a pre-handler only, no return
 * trampoline, and with ftrace-based kprobes no trap either.  It claims this
 * CPU's current-call slot, which the IOMMU kretprobes add their time to and
 * the tracepoint turns into the record.  Without kprobes (or if the task
 * moved between entry and tracepoint) the record is still written, untimed.
 *
 * Kbuild's feature tests decide whether this file is compiled in; it is
 * chosen at START when every tracepoint below exists.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/kprobes.h>
#include <linux/tracepoint.h>

#include "dma.h"
#include "gpuprobe.h"

#ifdef GPUPROBE_HAVE_DMA_TP

#ifdef GPUPROBE_HAVE_DMA_TP_PHYS
#define GPUPROBE_TP_MAP		"dma_map_phys"
#define GPUPROBE_TP_UNMAP	"dma_unmap_phys"
#else
#define GPUPROBE_TP_MAP		"dma_map_page"
#define GPUPROBE_TP_UNMAP	"dma_unmap_page"
#endif

/* The slot a call in flight on this CPU is timed in. */
static DEFINE_PER_CPU(struct gpuprobe_dma_inst, gpuprobe_dma_tp_slot);

static int dma_entry_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct gpuprobe_dma_inst **cur = this_cpu_ptr(&gpuprobe_dma_current);
	struct device *dev = (void *)regs_get_kernel_argument(regs, 0);

	/* a call of this task already in flight here: the outer one counts */
	if (*cur && READ_ONCE((*cur)->task) == current)
		return 0;
	*cur = NULL;	/* left by a call that moved to another CPU */
	gpuprobe_dma_begin(this_cpu_ptr(&gpuprobe_dma_tp_slot), dev, 0, 0, 0, 0);
	return 0;
}

/*
 * Finishes the call timed since its entry, or writes an untimed record when
 * there was none on this CPU for this task (no kprobes, or it migrated).
 */
static void dma_tp_finish(struct device *dev, u16 op, u8 dir, u64 bytes,
			  u32 nents, u64 addr)
{
	struct gpuprobe_dma_inst *cur = *this_cpu_ptr(&gpuprobe_dma_current);
	struct gpuprobe_dma_inst local;
	u32 bdf = gpuprobe_dev_bdf(dev);

	if (likely(bdf == GPUPROBE_BDF_NONE))
		return;
	if (!cur || READ_ONCE(cur->task) != current || cur->bdf != bdf) {
		memset(&local, 0, sizeof(local));
		local.bdf = bdf;
		local.ts = ktime_get_mono_fast_ns();
		cur = &local;
	}
	cur->op = op;
	cur->dir = dir;
	cur->bytes = bytes;
	cur->nents = nents;
	cur->addr = addr;
	gpuprobe_dma_end(cur);
}

static void tp_map(void *data, struct device *dev, phys_addr_t phys,
		   dma_addr_t addr, size_t size, enum dma_data_direction dir,
		   unsigned long attrs)
{
	dma_tp_finish(dev, GPUPROBE_DMA_MAP_PAGE, dir, size, 1, addr);
}

static void tp_unmap(void *data, struct device *dev, dma_addr_t addr,
		     size_t size, enum dma_data_direction dir,
		     unsigned long attrs)
{
	dma_tp_finish(dev, GPUPROBE_DMA_UNMAP_PAGE, dir, size, 1, addr);
}

static void tp_map_resource(void *data, struct device *dev, phys_addr_t phys,
			    dma_addr_t addr, size_t size,
			    enum dma_data_direction dir, unsigned long attrs)
{
	dma_tp_finish(dev, GPUPROBE_DMA_MAP_RESOURCE, dir, size, 1, addr);
}

static void tp_unmap_resource(void *data, struct device *dev, dma_addr_t addr,
			      size_t size, enum dma_data_direction dir,
			      unsigned long attrs)
{
	dma_tp_finish(dev, GPUPROBE_DMA_UNMAP_RESOURCE, dir, size, 1, addr);
}

static void tp_map_sg(void *data, struct device *dev, struct scatterlist *sgl,
		      int nents, int ents, enum dma_data_direction dir,
		      unsigned long attrs)
{
	dma_tp_finish(dev, GPUPROBE_DMA_MAP_SG, dir,
		      gpuprobe_sg_bytes(sgl, nents), nents,
		      sg_dma_address(sgl));
}

static void tp_unmap_sg(void *data, struct device *dev,
			struct scatterlist *sgl, int nents,
			enum dma_data_direction dir, unsigned long attrs)
{
	dma_tp_finish(dev, GPUPROBE_DMA_UNMAP_SG, dir,
		      gpuprobe_sg_bytes(sgl, nents), nents,
		      sg_dma_address(sgl));
}

static void tp_alloc(void *data, struct device *dev, void *virt,
		     dma_addr_t addr, size_t size, enum dma_data_direction dir,
		     gfp_t flags, unsigned long attrs)
{
	dma_tp_finish(dev, GPUPROBE_DMA_ALLOC, DMA_BIDIRECTIONAL, size, 1,
		      virt ? addr : 0);
}

static void tp_free(void *data, struct device *dev, void *virt,
		    dma_addr_t addr, size_t size, enum dma_data_direction dir,
		    unsigned long attrs)
{
	dma_tp_finish(dev, GPUPROBE_DMA_FREE, DMA_BIDIRECTIONAL, size, 1, addr);
}

static struct {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool on;
} gpuprobe_dma_tps[] = {
	{ GPUPROBE_TP_MAP, tp_map },
	{ GPUPROBE_TP_UNMAP, tp_unmap },
	{ "dma_map_resource", tp_map_resource },
	{ "dma_unmap_resource", tp_unmap_resource },
	{ "dma_map_sg", tp_map_sg },
	{ "dma_unmap_sg", tp_unmap_sg },
	{ "dma_alloc", tp_alloc },
	{ "dma_free", tp_free },
};

/* local to the table below */
#define KP(sym) { .symbol_name = sym, .pre_handler = dma_entry_pre }

static struct kprobe gpuprobe_dma_entry_kps[] = {
	KP("dma_map_page_attrs"), KP("dma_unmap_page_attrs"),
	KP("dma_map_sg_attrs"), KP("dma_map_sgtable"),
	KP("dma_unmap_sg_attrs"), KP("dma_alloc_attrs"), KP("dma_free_attrs"),
	KP("dma_map_resource"), KP("dma_unmap_resource"),
};

#undef KP

static bool gpuprobe_dma_entry_on[ARRAY_SIZE(gpuprobe_dma_entry_kps)];
static int gpuprobe_dma_timed;	/* entry kprobes registered */
static bool gpuprobe_dma_tps_found;

static void gpuprobe_dma_tp_find(struct tracepoint *tp, void *priv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gpuprobe_dma_tps); i++)
		if (!strcmp(tp->name, gpuprobe_dma_tps[i].name))
			gpuprobe_dma_tps[i].tp = tp;
}

bool gpuprobe_dma_tp_available(void)
{
	size_t i;

	if (!gpuprobe_dma_tps_found) {
		for_each_kernel_tracepoint(gpuprobe_dma_tp_find, NULL);
		gpuprobe_dma_tps_found = true;
	}
	for (i = 0; i < ARRAY_SIZE(gpuprobe_dma_tps); i++)
		if (!gpuprobe_dma_tps[i].tp)
			return false;
	return true;
}

void gpuprobe_dma_tp_detach(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gpuprobe_dma_entry_kps); i++) {
		if (gpuprobe_dma_entry_on[i])
			unregister_kprobe(&gpuprobe_dma_entry_kps[i]);
		gpuprobe_dma_entry_on[i] = false;
	}
	for (i = 0; i < ARRAY_SIZE(gpuprobe_dma_tps); i++) {
		if (gpuprobe_dma_tps[i].on)
			tracepoint_probe_unregister(gpuprobe_dma_tps[i].tp,
						    gpuprobe_dma_tps[i].probe,
						    NULL);
		gpuprobe_dma_tps[i].on = false;
	}
	gpuprobe_dma_timed = 0;
	tracepoint_synchronize_unregister();
}

int gpuprobe_dma_tp_attach(void)
{
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(gpuprobe_dma_tps); i++) {
		err = tracepoint_probe_register(gpuprobe_dma_tps[i].tp,
						gpuprobe_dma_tps[i].probe, NULL);
		if (err) {
			gpuprobe_dma_tp_detach();
			return err;
		}
		gpuprobe_dma_tps[i].on = true;
	}
	/* timing is best effort: untimed records without kprobes */
	if (!IS_ENABLED(CONFIG_KPROBES))
		return 0;
	for (i = 0; i < ARRAY_SIZE(gpuprobe_dma_entry_kps); i++) {
		gpuprobe_dma_entry_kps[i].addr = NULL;
		gpuprobe_dma_entry_kps[i].flags = 0;
		gpuprobe_dma_entry_on[i] =
			!register_kprobe(&gpuprobe_dma_entry_kps[i]);
		gpuprobe_dma_timed += gpuprobe_dma_entry_on[i];
	}
	return 0;
}

int gpuprobe_dma_tp_hooks_fill(struct sk_buff *skb,
			       int (*fill)(struct sk_buff *, const char *, bool,
					   const char *),
			       bool attached, const char *why)
{
	if (fill(skb, "tracepoint:dma:" GPUPROBE_TP_MAP ",...", attached, why) ||
	    fill(skb, "kprobe:dma_*_attrs entry (call timing)",
		 gpuprobe_dma_timed > 0,
		 IS_ENABLED(CONFIG_KPROBES) ? NULL :
		 "no kprobes: DMA records are untimed"))
		return -EMSGSIZE;
	return 0;
}

#else /* !GPUPROBE_HAVE_DMA_TP: the kretprobes in dma.c do it all */

bool gpuprobe_dma_tp_available(void)
{
	return false;
}

int gpuprobe_dma_tp_attach(void)
{
	return -EOPNOTSUPP;
}

void gpuprobe_dma_tp_detach(void)
{
}

int gpuprobe_dma_tp_hooks_fill(struct sk_buff *skb,
			       int (*fill)(struct sk_buff *, const char *, bool,
					   const char *),
			       bool attached, const char *why)
{
	return 0;
}

#endif
