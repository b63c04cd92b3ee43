// SPDX-License-Identifier: GPL-2.0
/*
 * DMA-API calls from kprobe events, for kernels without dma: tracepoints.
 *
 * Design (Debian's 6.1 has no BTF arguments in kprobe events, and a kernel
 * pointer cannot be learnt from userspace):
 *
 *  - The entry probe fetches the device's name, dev->kobj.name: struct
 *    device starts with its kobject and struct kobject with its name, a
 *    layout as old as the driver model, so "+0(+0(%di)):string" is the
 *    string "0000:00:04.0" for a PCI function.  The kernel filter compares
 *    it with the targets' addresses, as the dma: tracepoints' "device" field
 *    is filtered.  The fetch cannot fault (probe memory reads are nofault);
 *    were the layout ever different the filter would match nothing.
 *  - A return probe cannot see the arguments on 6.1, so return events are
 *    unfiltered.  Each side fetches the stack pointer: at return it is the
 *    entry's plus the popped return address (RET_SP_DELTA), so an entry is
 *    paired with its own return by (pid, stack pointer) -- exact even when
 *    an interrupt on the same CPU maps for another device (it runs on the
 *    irq stack) and when the task moves to another CPU.  Returns that match
 *    no entry are calls of other devices and are dropped.
 *  - Scatterlists are chains of 32-byte entries that a fetch arg cannot
 *    walk: sg calls give their segment count, not their bytes (0).
 *    dma_alloc_attrs returns the address through a pointer argument that
 *    is gone at return, and map_sg's address is in the list: dma_addr 0.
 *
 * Argument registers are x86_64's (dev, a, b, c, d = di, si, dx, cx, r8).
 */
#include <stdlib.h>
#include <string.h>

#include "tracefs_kprobe.h"

#define RET_SP_DELTA	8	/* x86_64: ret pops the return address */
#define DEV_NAME	"devname=+0(+0(%di)):string "
#define ENTRY_SP	" sp=$stack:x64"

const struct dma_kprobe_def dma_kprobe_defs[DMA_KPROBE_COUNT] = {
	{ "dma_map_page_attrs", "map_page", GPUPROBE_DMA_MAP_PAGE,
	  DEV_NAME "size=%cx:u64 dir=%r8:u32" ENTRY_SP },
	{ "dma_unmap_page_attrs", "unmap_page", GPUPROBE_DMA_UNMAP_PAGE,
	  DEV_NAME "addr=%si:x64 size=%dx:u64 dir=%cx:u32" ENTRY_SP },
	{ "dma_map_sg_attrs", "map_sg", GPUPROBE_DMA_MAP_SG,
	  DEV_NAME "nents=%dx:u32 dir=%cx:u32" ENTRY_SP },
	/* struct sg_table { sgl; nents; orig_nents; } */
	{ "dma_map_sgtable", "map_sgtable", GPUPROBE_DMA_MAP_SG,
	  DEV_NAME "nents=+12(%si):u32 dir=%dx:u32" ENTRY_SP },
	/* struct scatterlist { page_link; offset; length; dma_address; ... } */
	{ "dma_unmap_sg_attrs", "unmap_sg", GPUPROBE_DMA_UNMAP_SG,
	  DEV_NAME "addr=+16(%si):x64 nents=%dx:u32 dir=%cx:u32" ENTRY_SP },
	{ "dma_alloc_attrs", "alloc", GPUPROBE_DMA_ALLOC,
	  DEV_NAME "size=%si:u64" ENTRY_SP },
	{ "dma_free_attrs", "free", GPUPROBE_DMA_FREE,
	  DEV_NAME "size=%si:u64 addr=%cx:x64" ENTRY_SP },
	{ "dma_map_resource", "map_resource", GPUPROBE_DMA_MAP_RESOURCE,
	  DEV_NAME "size=%dx:u64 dir=%cx:u32" ENTRY_SP },
	{ "dma_unmap_resource", "unmap_resource", GPUPROBE_DMA_UNMAP_RESOURCE,
	  DEV_NAME "addr=%si:x64 size=%dx:u64 dir=%cx:u32" ENTRY_SP },
};

int dma_pairer_init(struct dma_call_pairer *p, unsigned int nslots)
{
	memset(p, 0, sizeof(*p));
	p->slot = calloc(nslots, sizeof(*p->slot));
	if (!p->slot)
		return -1;
	p->nslots = nslots;
	return 0;
}

static int emit(struct dma_call *c, const struct record_sink *sink)
{
	c->valid = false;
	return sink_put(sink, &c->rec.hdr);
}

/* A full table gives up its oldest entry, emitted without a duration. */
int dma_pairer_entry(struct dma_call_pairer *p, const struct gpuprobe_rec_dma *rec,
		     uint32_t pid, uint64_t sp, const struct record_sink *sink)
{
	struct dma_call *free_slot = NULL, *oldest = NULL;
	int err = 0;

	for (unsigned int i = 0; i < p->nslots; i++) {
		struct dma_call *c = &p->slot[i];

		if (!c->valid) {
			free_slot = free_slot ? free_slot : c;
		} else if (c->pid == pid && c->sp == sp) {
			/* same frame again: the return was lost */
			p->evicted++;
			c->rec.hdr.flags |= GPUPROBE_DMA_UNTIMED;
			err = emit(c, sink);
			free_slot = c;
			break;
		} else if (!oldest || c->rec.hdr.ts_ns < oldest->rec.hdr.ts_ns) {
			oldest = c;
		}
	}
	if (!free_slot) {
		p->evicted++;
		oldest->rec.hdr.flags |= GPUPROBE_DMA_UNTIMED;
		err = emit(oldest, sink);
		free_slot = oldest;
	}
	free_slot->rec = *rec;
	free_slot->pid = pid;
	free_slot->sp = sp;
	free_slot->valid = true;
	return err;
}

int dma_pairer_return(struct dma_call_pairer *p, uint32_t pid, uint64_t sp,
		      uint64_t ts, uint64_t retval, const struct record_sink *sink)
{
	for (unsigned int i = 0; i < p->nslots; i++) {
		struct dma_call *c = &p->slot[i];
		struct gpuprobe_rec_dma *rec = &c->rec;

		if (!c->valid || c->pid != pid || c->sp + RET_SP_DELTA != sp)
			continue;
		rec->duration_ns = ts > rec->hdr.ts_ns ? ts - rec->hdr.ts_ns : 0;
		if (rec->op == GPUPROBE_DMA_MAP_PAGE || rec->op == GPUPROBE_DMA_MAP_RESOURCE)
			rec->dma_addr = retval;
		return emit(c, sink);
	}
	p->unmatched_returns++;
	return 0;
}

int dma_pairer_flush(struct dma_call_pairer *p, const struct record_sink *sink)
{
	int err = 0;

	for (unsigned int i = 0; i < p->nslots; i++)
		if (p->slot[i].valid)
			err |= emit(&p->slot[i], sink);
	return err;
}

void dma_pairer_free(struct dma_call_pairer *p)
{
	free(p->slot);
	p->slot = NULL;
}
