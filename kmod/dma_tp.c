// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: DMA-API calls from the dma: tracepoints (6.12+).
 *
 * Every dma: tracepoint fires at the end of its call, with the call's
 * results (device address, segments mapped).  The start comes from a kprobe
 * at the entry of the same DMA-API function: a pre-handler only, no return
 * trampoline, and with ftrace-based kprobes no trap either (except the two
 * map_sg entries: kretprobes, for failures no tracepoint reports).  It claims its
 * context's slot, which the IOMMU kretprobes add their time to and the
 * tracepoint turns into the record.  Calls are timed per context (task
 * and interrupt level, dma_owner.c), so a task that sleeps or migrates in a
 * call keeps its entry time and another task's call on the CPU does not
 * wipe it.  Without kprobes the record is still written, flagged untimed.
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
#include "probe_types.h"

#ifdef GPUPROBE_HAVE_DMA_TP

#ifdef GPUPROBE_HAVE_DMA_TP_PHYS
#define GPUPROBE_TP_MAP_ID	dma_map_phys
#define GPUPROBE_TP_UNMAP_ID	dma_unmap_phys
#else
#define GPUPROBE_TP_MAP_ID	dma_map_page
#define GPUPROBE_TP_UNMAP_ID	dma_unmap_page
#endif
#define GPUPROBE_TP_MAP		__stringify(GPUPROBE_TP_MAP_ID)
#define GPUPROBE_TP_UNMAP	__stringify(GPUPROBE_TP_UNMAP_ID)

/* The calls being timed, one per slot of the owner table (dma_owner.c). */
static struct gpuprobe_dma_inst gpuprobe_dma_tp_calls[GPUPROBE_DMA_OWNERS];

/*
 * A target's call starts (dma_entry_claim() below declines the others'):
 * timed in its context's slot, whose index it returns (-1: no free slot, or
 * no longer a target, and the record will be untimed).  A claim this
 * context still holds is a call whose tracepoint never fired: it is started
 * over, so it cannot lend its old entry time to this call.
 */
static noinline int dma_entry_start(struct device *dev)
{
	struct gpuprobe_dma_inst *in;
	unsigned long key;
	int idx;

	key = gpuprobe_dma_ctx_key();
	idx = gpuprobe_dma_owner_find(key);
	if (idx < 0)
		idx = gpuprobe_dma_owner_claim(key, NULL);
	if (idx < 0)
		return -1;
	in = &gpuprobe_dma_tp_calls[idx];
	if (gpuprobe_dma_begin(in, dev, 0, 0, 0, 0)) {
		/* the map republished without it since the test: not a target */
		gpuprobe_dma_owner_release(idx);
		return -1;
	}
	in->owner = idx;
	gpuprobe_dma_owner_set(idx, in);
	return idx;
}

/* Every device's calls: another's declined inline, no register saved. */
static __always_inline int dma_entry_claim(struct device *dev)
{
	if (likely(!gpuprobe_target_of(dev)))
		return -1;
	return dma_entry_start(dev);
}

static int dma_entry_pre(struct kprobe *kp, struct pt_regs *regs)
{
	dma_entry_claim((void *)regs_get_kernel_argument(regs, 0));
	return 0;
}

/*
 * Finishes the call this context timed since its entry, or writes an
 * untimed record (flagged; ts is the end) when there is none: no kprobes,
 * or no free slot.  A claim for another device is stale and given back.
 */
static noinline void dma_tp_record(u32 bdf, u16 op, u8 dir, u64 bytes,
				   u32 nents, u64 addr)
{
	struct gpuprobe_dma_inst *cur, local;
	u16 flags = 0;
	int idx;

	idx = gpuprobe_dma_owner_find(gpuprobe_dma_ctx_key());
	cur = gpuprobe_dma_owner_call(idx);
	if (!cur || cur->bdf != bdf) {
		if (idx >= 0)
			gpuprobe_dma_owner_release(idx);
		memset(&local, 0, sizeof(local));
		local.bdf = bdf;
		local.owner = -1;
		local.ts = ktime_get_mono_fast_ns();
		cur = &local;
		flags = GPUPROBE_DMA_UNTIMED;
	}
	cur->op = op;
	cur->dir = dir;
	cur->bytes = bytes;
	cur->nents = nents;
	cur->addr = addr;
	gpuprobe_dma_end(cur, flags);
}

/*
 * Every device's tracepoint calls: another device's is declined inline,
 * before the record's local copy is cleared or a register saved.
 */
static __always_inline void dma_tp_finish(struct device *dev, u16 op, u8 dir,
					  u64 bytes, u32 nents, u64 addr)
{
	u32 bdf = gpuprobe_dev_bdf(dev);

	if (likely(bdf == GPUPROBE_BDF_NONE))
		return;
	dma_tp_record(bdf, op, dir, bytes, nents, addr);
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

/*
 * A target's scatterlist call: the list is walked (and its first address
 * read) here, out of line, for a target's call only; another device's is
 * declined by the probes below before anything is read or saved.
 */
static noinline void dma_tp_sg_record(struct device *dev, u16 op, u8 dir,
				      struct scatterlist *sgl, int nents,
				      bool failed)
{
	dma_tp_finish(dev, op, dir, gpuprobe_sg_bytes(sgl, nents), nents,
		      failed ? 0 : sg_dma_address(sgl));
}

static void tp_map_sg(void *data, struct device *dev, struct scatterlist *sgl,
		      int nents, int ents, enum dma_data_direction dir,
		      unsigned long attrs)
{
	if (likely(!gpuprobe_target_of(dev)))
		return;
	dma_tp_sg_record(dev, GPUPROBE_DMA_MAP_SG, dir, sgl, nents, false);
}

#ifdef GPUPROBE_HAVE_DMA_TP_SG_ERR
/* A failed map_sg: its record (no address) ends the call's claim. */
static void tp_map_sg_err(void *data, struct device *dev,
			  struct scatterlist *sgl, int nents, int err,
			  enum dma_data_direction dir, unsigned long attrs)
{
	if (likely(!gpuprobe_target_of(dev)))
		return;
	dma_tp_sg_record(dev, GPUPROBE_DMA_MAP_SG, dir, sgl, nents, true);
}
#endif

static void tp_unmap_sg(void *data, struct device *dev,
			struct scatterlist *sgl, int nents,
			enum dma_data_direction dir, unsigned long attrs)
{
	if (likely(!gpuprobe_target_of(dev)))
		return;
	dma_tp_sg_record(dev, GPUPROBE_DMA_UNMAP_SG, dir, sgl, nents, false);
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

/*
 * A failed map_sg: 6.12 fires dma_map_sg_err only for unexpected errors
 * (inside a WARN_ON_ONCE), not for -ENOMEM, -EINVAL, -EIO or -EREMOTEIO, so
 * the two map_sg entries are kretprobes: when the call failed and its claim
 * is still this context's, no tracepoint ended it, and the return does.
 */
struct gpuprobe_sg_call {
	struct device *dev;
	struct scatterlist *sgl;
	int nents, idx;
	u64 ts;
	u8 dir, sgtable;
};

static noinline int sg_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs, bool sgtable)
{
	struct gpuprobe_sg_call *c = (void *)ri->data;
	struct sg_table *sgt;

	c->dev = (void *)gpuprobe_arg(regs, 0);
	c->idx = dma_entry_claim(c->dev);
	if (c->idx < 0)
		return 1;	/* no return handler */
	c->ts = gpuprobe_dma_tp_calls[c->idx].ts;
	c->sgtable = sgtable;
	if (sgtable) {
		sgt = (void *)gpuprobe_arg(regs, 1);
		c->sgl = sgt->sgl;
		c->nents = sgt->orig_nents;
		c->dir = gpuprobe_arg(regs, 2);
	} else {
		c->sgl = (void *)gpuprobe_arg(regs, 1);
		c->nents = gpuprobe_arg(regs, 2);
		c->dir = gpuprobe_arg(regs, 3);
	}
	return 0;
}

/* another device's call declined here, before sg_entry() saves a register */
static int map_sg_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (likely(!gpuprobe_target_of((void *)gpuprobe_arg(regs, 0))))
		return 1;
	return sg_entry(ri, regs, false);
}

static int map_sgtable_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	if (likely(!gpuprobe_target_of((void *)gpuprobe_arg(regs, 0))))
		return 1;
	return sg_entry(ri, regs, true);
}

static int sg_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_sg_call *c = (void *)ri->data;
	int ret = (int)regs_return_value(regs);
	struct gpuprobe_dma_inst *cur;
	int idx;

	/* map_sg: the count, 0 on failure; map_sgtable: 0 or -errno */
	if (c->sgtable ? !ret : ret > 0)
		return 0;
	idx = gpuprobe_dma_owner_find(gpuprobe_dma_ctx_key());
	cur = gpuprobe_dma_owner_call(idx);
	if (idx != c->idx || !cur || cur->ts != c->ts)
		return 0;	/* dma_map_sg_err ended it */
	if (gpuprobe_dev_bdf(c->dev) == GPUPROBE_BDF_NONE) {
		gpuprobe_dma_owner_release(idx);	/* no longer a target */
		return 0;
	}
	dma_tp_finish(c->dev, GPUPROBE_DMA_MAP_SG, c->dir,
		      gpuprobe_sg_bytes(c->sgl, c->nents), c->nents, 0);
	return 0;
}

static struct kretprobe gpuprobe_sg_krps[] = {
	{ .kp.symbol_name = "dma_map_sg_attrs", .entry_handler = map_sg_entry,
	  .handler = sg_ret, .data_size = sizeof(struct gpuprobe_sg_call) },
	{ .kp.symbol_name = "dma_map_sgtable", .entry_handler = map_sgtable_entry,
	  .handler = sg_ret, .data_size = sizeof(struct gpuprobe_sg_call) },
};

static bool gpuprobe_sg_krp_on[ARRAY_SIZE(gpuprobe_sg_krps)];
/* where a kretprobe above could not go on: a plain entry kprobe still times the call */
static struct kprobe gpuprobe_sg_entry_kps[ARRAY_SIZE(gpuprobe_sg_krps)];
static bool gpuprobe_sg_entry_on[ARRAY_SIZE(gpuprobe_sg_krps)];

GPUPROBE_TP_CHECK(GPUPROBE_TP_MAP_ID, tp_map);
GPUPROBE_TP_CHECK(GPUPROBE_TP_UNMAP_ID, tp_unmap);
GPUPROBE_TP_CHECK(dma_map_resource, tp_map_resource);
GPUPROBE_TP_CHECK(dma_unmap_resource, tp_unmap_resource);
GPUPROBE_TP_CHECK(dma_map_sg, tp_map_sg);
GPUPROBE_TP_CHECK(dma_unmap_sg, tp_unmap_sg);
GPUPROBE_TP_CHECK(dma_alloc, tp_alloc);
GPUPROBE_TP_CHECK(dma_free, tp_free);
#ifdef GPUPROBE_HAVE_DMA_TP_SG_ERR
GPUPROBE_TP_CHECK(dma_map_sg_err, tp_map_sg_err);
#define GPUPROBE_TP_SG_ERR	tp_map_sg_err
#else
#define GPUPROBE_TP_SG_ERR	NULL	/* not in this kernel's dma.h */
#endif

static struct {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool on;
	bool optional;		/* newer than the others */
} gpuprobe_dma_tps[] = {
	{ GPUPROBE_TP_MAP, tp_map },
	{ GPUPROBE_TP_UNMAP, tp_unmap },
	{ "dma_map_resource", tp_map_resource },
	{ "dma_unmap_resource", tp_unmap_resource },
	{ "dma_map_sg", tp_map_sg },
	{ "dma_unmap_sg", tp_unmap_sg },
	{ "dma_alloc", tp_alloc },
	{ "dma_free", tp_free },
	{ "dma_map_sg_err", GPUPROBE_TP_SG_ERR, .optional = true },
};

/* local to the table below */
#define KP(sym) { .symbol_name = sym, .pre_handler = dma_entry_pre }

static struct kprobe gpuprobe_dma_entry_kps[] = {
	KP("dma_map_page_attrs"), KP("dma_unmap_page_attrs"),
	KP("dma_unmap_sg_attrs"), KP("dma_alloc_attrs"), KP("dma_free_attrs"),
	KP("dma_map_resource"), KP("dma_unmap_resource"),
};

#undef KP

static bool gpuprobe_dma_entry_on[ARRAY_SIZE(gpuprobe_dma_entry_kps)];
static int gpuprobe_dma_timed;	/* entry kprobes registered */
static bool gpuprobe_dma_sg_timed;	/* the map_sg kretprobes */
static bool gpuprobe_dma_tps_found;

static void gpuprobe_dma_tp_find(struct tracepoint *tp, void *priv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gpuprobe_dma_tps); i++)
		/* no probe: the prototype could not be checked, never attached */
		if (gpuprobe_dma_tps[i].probe &&
		    !strcmp(tp->name, gpuprobe_dma_tps[i].name))
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
		if (!gpuprobe_dma_tps[i].tp && !gpuprobe_dma_tps[i].optional)
			return false;
	return true;
}

void gpuprobe_dma_tp_detach(void)
{
	size_t i;

	gpuprobe_kps_unregister(gpuprobe_dma_entry_kps, gpuprobe_dma_entry_on,
				ARRAY_SIZE(gpuprobe_dma_entry_kps));
	gpuprobe_kps_unregister(gpuprobe_sg_entry_kps, gpuprobe_sg_entry_on,
				ARRAY_SIZE(gpuprobe_sg_entry_kps));
	if (gpuprobe_dma_sg_timed)
		gpuprobe_krps_unregister(gpuprobe_sg_krps, gpuprobe_sg_krp_on,
					 ARRAY_SIZE(gpuprobe_sg_krps));
	gpuprobe_dma_sg_timed = false;
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
		if (!gpuprobe_dma_tps[i].tp)
			continue;	/* optional, not in this kernel */
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
	gpuprobe_dma_sg_timed =
		!gpuprobe_krps_register(gpuprobe_sg_krps, gpuprobe_sg_krp_on,
					ARRAY_SIZE(gpuprobe_sg_krps));
	for (i = 0; i < ARRAY_SIZE(gpuprobe_sg_krps); i++) {
		if (gpuprobe_sg_krp_on[i])
			continue;
		gpuprobe_sg_entry_kps[i] = (struct kprobe){
			.symbol_name = gpuprobe_sg_krps[i].kp.symbol_name,
			.pre_handler = dma_entry_pre,
		};
		gpuprobe_sg_entry_on[i] =
			!register_kprobe(&gpuprobe_sg_entry_kps[i]);
		gpuprobe_dma_timed += gpuprobe_sg_entry_on[i];
	}
	return 0;
}

/* Entry hits skipped because another kprobe handler was running. */
u64 gpuprobe_dma_tp_recursion(void)
{
	u64 n = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gpuprobe_dma_entry_kps); i++)
		n += gpuprobe_dma_entry_kps[i].nmissed;
	for (i = 0; i < ARRAY_SIZE(gpuprobe_sg_krps); i++)
		n += gpuprobe_sg_krps[i].kp.nmissed +
		     gpuprobe_sg_entry_kps[i].nmissed;
	return n;
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
		 "no kprobes: DMA records are untimed") ||
	    fill(skb, "kretprobe:failed map_sg (dma_map_sg_attrs, dma_map_sgtable)",
		 gpuprobe_sg_krp_on[0] && gpuprobe_sg_krp_on[1],
		 gpuprobe_sg_krp_on[0] && gpuprobe_sg_krp_on[1] ? NULL :
		 "not on every map_sg entry: failures there are not recorded"))
		return -EMSGSIZE;
	return 0;
}

#else /* !GPUPROBE_HAVE_DMA_TP: the kretprobes in dma.c do it all */

bool gpuprobe_dma_tp_available(void)
{
	return false;
}

u64 gpuprobe_dma_tp_recursion(void)
{
	return 0;
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
