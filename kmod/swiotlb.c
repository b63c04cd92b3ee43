// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: swiotlb bounces after the map.
 *
 * The swiotlb_bounced tracepoint (hooks.c) fires only in swiotlb_map(),
 * for the copy into the bounce buffer.  The copies back -- at unmap of a
 * DMA_FROM_DEVICE or bidirectional mapping, and at every
 * dma_sync_single_for_cpu/device() -- have no tracepoint.  They are read
 * here from kprobes (pre-handlers only) at the swiotlb functions that
 * decide them, with the same conditions those functions test.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-direction.h>
#include <linux/dma-mapping.h>
#include <linux/kprobes.h>

#include "gpuprobe.h"

enum gpuprobe_bounce_kind {
	GPUPROBE_BOUNCE_UNMAP,		/* (dev, tlb_addr, size, dir, attrs) */
	GPUPROBE_BOUNCE_SYNC_DEVICE,	/* (dev, tlb_addr, size, dir) */
	GPUPROBE_BOUNCE_SYNC_CPU,	/* (dev, tlb_addr, size, dir) */
};

struct gpuprobe_bounce_probe {
	struct kprobe kp;
	const char *names[2];	/* 6.12 renamed them with a __ prefix */
	enum gpuprobe_bounce_kind kind;
	bool on;
};

/* The direction the copy goes, or DMA_NONE when the call copies nothing. */
static enum dma_data_direction gpuprobe_bounce_dir(enum gpuprobe_bounce_kind kind,
						   unsigned long dir,
						   unsigned long attrs)
{
	bool to_cpu = dir == DMA_FROM_DEVICE || dir == DMA_BIDIRECTIONAL;
	bool to_dev = dir == DMA_TO_DEVICE || dir == DMA_BIDIRECTIONAL;

	switch (kind) {
	case GPUPROBE_BOUNCE_UNMAP:
		return to_cpu && !(attrs & DMA_ATTR_SKIP_CPU_SYNC) ?
		       DMA_FROM_DEVICE : DMA_NONE;
	case GPUPROBE_BOUNCE_SYNC_DEVICE:
		return to_dev ? DMA_TO_DEVICE : DMA_NONE;
	case GPUPROBE_BOUNCE_SYNC_CPU:
		return to_cpu ? DMA_FROM_DEVICE : DMA_NONE;
	}
	return DMA_NONE;
}

static int gpuprobe_bounce_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct gpuprobe_bounce_probe *p =
		container_of(kp, struct gpuprobe_bounce_probe, kp);
	const struct gpuprobe_map_dev *t =
		gpuprobe_target_of((void *)regs_get_kernel_argument(regs, 0));
	struct gpuprobe_rec_swiotlb rec;
	enum dma_data_direction dir;

	if (likely(!t))
		return 0;
	dir = gpuprobe_bounce_dir(p->kind, regs_get_kernel_argument(regs, 3),
				  p->kind == GPUPROBE_BOUNCE_UNMAP ?
				  regs_get_kernel_argument(regs, 4) : 0);
	if (dir == DMA_NONE)
		return 0;
	rec = (struct gpuprobe_rec_swiotlb){
		.hdr.type = GPUPROBE_EV_SWIOTLB,
		.hdr.size = sizeof(rec),
		.hdr.ts_ns = ktime_get_mono_fast_ns(),
		.bdf = t->bdf,
		.dir = dir,
		.bytes = regs_get_kernel_argument(regs, 2),
	};
	gpuprobe_emit(&rec.hdr);
	return 0;
}

static struct gpuprobe_bounce_probe gpuprobe_bounce_probes[] = {
	{ .names = { "__swiotlb_tbl_unmap_single", "swiotlb_tbl_unmap_single" },
	  .kind = GPUPROBE_BOUNCE_UNMAP },
	{ .names = { "__swiotlb_sync_single_for_device",
		     "swiotlb_sync_single_for_device" },
	  .kind = GPUPROBE_BOUNCE_SYNC_DEVICE },
	{ .names = { "__swiotlb_sync_single_for_cpu",
		     "swiotlb_sync_single_for_cpu" },
	  .kind = GPUPROBE_BOUNCE_SYNC_CPU },
};

/* Best effort: without them only the map-time bounce is recorded. */
void gpuprobe_swiotlb_attach(void)
{
	struct gpuprobe_bounce_probe *p;
	size_t i, n;

	if (!IS_ENABLED(CONFIG_KPROBES))
		return;
	for (i = 0; i < ARRAY_SIZE(gpuprobe_bounce_probes); i++) {
		p = &gpuprobe_bounce_probes[i];
		for (n = 0; n < ARRAY_SIZE(p->names) && !p->on; n++) {
			p->kp.symbol_name = p->names[n];
			p->kp.pre_handler = gpuprobe_bounce_pre;
			p->kp.addr = NULL;
			p->kp.flags = 0;
			p->on = !register_kprobe(&p->kp);
		}
	}
}

/* At once: one grace period, not one per kprobe (STOP's time). */
void gpuprobe_swiotlb_detach(void)
{
	struct kprobe *ptrs[ARRAY_SIZE(gpuprobe_bounce_probes)];
	size_t i, k = 0;

	for (i = 0; i < ARRAY_SIZE(gpuprobe_bounce_probes); i++) {
		if (gpuprobe_bounce_probes[i].on)
			ptrs[k++] = &gpuprobe_bounce_probes[i].kp;
		gpuprobe_bounce_probes[i].on = false;
	}
	unregister_kprobes(ptrs, k);
}

/* Hits skipped because another kprobe handler was running. */
u64 gpuprobe_swiotlb_recursion(void)
{
	u64 n = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gpuprobe_bounce_probes); i++)
		n += gpuprobe_bounce_probes[i].kp.nmissed;
	return n;
}

/* How many of the copy-back probes are on (GET_INFO). */
unsigned int gpuprobe_swiotlb_attached(void)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gpuprobe_bounce_probes); i++)
		n += gpuprobe_bounce_probes[i].on;
	return n;
}
