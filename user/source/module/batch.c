// SPDX-License-Identifier: GPL-2.0
/* Batches of packed module records; see batch.h. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "tracefile.h"
#include "util.h"

int record_batch_split(const void *blob, size_t len, const struct record_sink *sink,
		       struct record_batch_stats *st)
{
	static uint64_t aligned[65536 / 8];	/* hdr.size is a u16 */
	const unsigned char *p = blob;
	size_t off = 0;

	while (len - off >= sizeof(struct gpuprobe_rec_hdr)) {
		struct gpuprobe_rec_hdr h;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > len - off) {
			st->bad_offset = off;
			return -1;
		}
		memcpy(aligned, p + off, h.size);
		/* files keep KVM records under their own type, whichever source */
		if (h.type == GPUPROBE_EV_KVM) {
			h.type = TRACEFILE_REC_KVM;
			memcpy(aligned, &h, sizeof(h));
		}
		if (h.type == GPUPROBE_EV_LOST && h.size >= sizeof(struct gpuprobe_rec_lost)) {
			uint64_t count;

			memcpy(&count, p + off + offsetof(struct gpuprobe_rec_lost, count),
			       sizeof(count));
			st->lost += count;
		}
		if (sink && sink_put(sink, (const void *)aligned))
			st->sink_error = -1;
		st->records++;
		off += h.size;
	}
	if (off != len) {
		st->bad_offset = off;
		return -1;
	}
	return 0;
}

uint32_t event_mask_for_caps(uint64_t caps)
{
	uint32_t mask = 0;

	if (caps & GPUPROBE_CAP_IRQ)
		mask |= GPUPROBE_EVMASK(GPUPROBE_EV_IRQ);
	if (caps & GPUPROBE_CAP_SCHED)
		mask |= GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP) | GPUPROBE_EVMASK(GPUPROBE_EV_SWITCH);
	if (caps & GPUPROBE_CAP_DMA)
		mask |= GPUPROBE_EVMASK(GPUPROBE_EV_DMA);
	/* the parts come with the IOMMU events; the module attaches them when asked */
	if (caps & (GPUPROBE_CAP_IOMMU | GPUPROBE_CAP_IOMMU_FAULT))
		mask |= GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU) | GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU_PART);
	if (caps & GPUPROBE_CAP_SWIOTLB)
		mask |= GPUPROBE_EVMASK(GPUPROBE_EV_SWIOTLB);
	if (caps & GPUPROBE_CAP_KVM)
		mask |= GPUPROBE_EVMASK(GPUPROBE_EV_KVM);
	return mask;
}

int module_event_mask(const struct module_info *info, const struct source_config *cfg,
		      uint32_t *mask, char *err, size_t errlen)
{
	if (info->record_version != GPUPROBE_RECORD_VERSION) {
		snprintf(err, errlen, "the module writes records version %u, this tool reads %u: build both from one tree",
			 info->record_version, GPUPROBE_RECORD_VERSION);
		return -1;
	}
	*mask = cfg->event_mask & event_mask_for_caps(info->caps);
	if (cfg->workload_pid <= 0 && !cfg->cgroup_id)
		*mask &= ~(GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP) | GPUPROBE_EVMASK(GPUPROBE_EV_SWITCH));
	if (!*mask) {
		snprintf(err, errlen, "the module can hook none of the requested events here (caps 0x%llx): try --source tracefs",
			 (unsigned long long)info->caps);
		return -1;
	}
	return 0;
}
