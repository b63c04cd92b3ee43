// SPDX-License-Identifier: GPL-2.0
/*
 * Bounce buffers: booted with swiotlb=force and no IOMMU (scripts/test.sh
 * runs this in a VM of its own), every byte the edu device moves is bounced:
 * into the bounce buffer at map (all of it), and back at the unmap of a
 * DMA_FROM_DEVICE mapping.  gpuprobe records both.
 */
#include "kselftest_harness.h"
#include "dma.h"

TEST(swiotlb_bytes_match_mapped_bytes)
{
	struct genl_sock s, l;
	struct dma_tally t = {};
	char edu[32], param[64], cmdline[512];

	ASSERT_EQ(0, read_file("/proc/cmdline", cmdline, sizeof(cmdline)));
	if (!strstr(cmdline, "swiotlb=force"))
		SKIP(return, "needs a VM booted with swiotlb=force");
	ASSERT_EQ(0, edu_find(edu, sizeof(edu)));
	if (!mod_loaded("gpuprobe_edu"))
		ASSERT_EQ(0, mod_load(EDU_KO, NULL));
	snprintf(param, sizeof(param), "target=%s", edu);
	ASSERT_EQ(0, mod_load(GPUPROBE_KO, param));
	ASSERT_EQ(0, genl_open(&s, GPUPROBE_FAMILY_NAME, NULL));
	ASSERT_EQ(0, gp_listen(&l, 8 << 20));
	t.bdf = gp_bdf(edu);

	ASSERT_EQ(0, gp_start(&s, GPUPROBE_EVMASK(GPUPROBE_EV_DMA) |
			      GPUPROBE_EVMASK(GPUPROBE_EV_SWIOTLB)));
	ASSERT_EQ(0, edu_ctl(edu, "dma", "to_device 8192"));
	ASSERT_EQ(0, edu_ctl(edu, "dma", "from_device 4096"));
	ASSERT_EQ(0, edu_ctl(edu, "dma", "verify 6144"));
	ASSERT_EQ(0, gp_stop(&s));
	dma_drain(&l, &t);

	TH_LOG("mapped %llu bytes in %llu calls, bounced %llu bytes in %llu",
	       (unsigned long long)t.bytes[GPUPROBE_DMA_MAP_PAGE],
	       (unsigned long long)t.calls[GPUPROBE_DMA_MAP_PAGE],
	       (unsigned long long)t.swiotlb_bytes,
	       (unsigned long long)t.swiotlb);
	EXPECT_EQ(8192 + 4096 + 2 * 6144, t.bytes[GPUPROBE_DMA_MAP_PAGE]);
	/* at map, whatever the direction (the swiotlb_bounced tracepoint) */
	EXPECT_EQ(t.bytes[GPUPROBE_DMA_MAP_PAGE], t.swiotlb_dir_bytes[3]);
	/* back at unmap: from_device 4096 and verify's 6144 destination */
	EXPECT_EQ(4096 + 6144, t.swiotlb_dir_bytes[2]);
	EXPECT_EQ(0, t.swiotlb_dir_bytes[1]);
	EXPECT_EQ(4 + 2, t.swiotlb);
	EXPECT_EQ(0, t.foreign);
	genl_close(&l);
	genl_close(&s);
	mod_unload("gpuprobe");
	mod_unload("gpuprobe_edu");
}

TEST_HARNESS_MAIN
