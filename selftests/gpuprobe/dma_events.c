// SPDX-License-Identifier: GPL-2.0
/*
 * DMA-API and IOMMU records are exact for the target: the edu driver maps
 * known sizes in known directions, and gpuprobe reports exactly those calls
 * and bytes, each timed, with the IOMMU work inside them attributed to the
 * edu device and adding up to the mapped bytes -- while NVMe traffic runs
 * beside it and never leaks in.
 */
#include <sys/uio.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "dma.h"

FIXTURE(dma) {
	char edu[32], nvme[32];
	struct genl_sock s, l;
	struct dma_tally t;
};

FIXTURE_SETUP(dma)
{
	self->s.fd = self->l.fd = -1;
	ASSERT_EQ(0, pci_find(0x1b36, 0x0010, self->nvme, sizeof(self->nvme)));
	ASSERT_EQ(0, gp_setup_edu(self->edu, sizeof(self->edu), NULL, &self->s));
	ASSERT_EQ(0, gp_listen(&self->l, 8 << 20));
	memset(&self->t, 0, sizeof(self->t));
	self->t.bdf = gp_bdf(self->edu);
}

FIXTURE_TEARDOWN(dma)
{
	genl_close(&self->l);
	genl_close(&self->s);
	mod_unload("gpuprobe");
	mod_unload("gpuprobe_edu");
}

/* NVMe reads in a child, for traffic that must not be attributed to edu. */
static pid_t nvme_noise(int reads)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = nvme_disk_open(O_RDONLY | O_DIRECT);
		void *buf;

		if (fd < 0 || posix_memalign(&buf, 4096, 4096))
			_exit(1);
		for (int i = 0; i < reads; i++)
			if (pread(fd, buf, 4096, (off_t)(i % 1000) * 4096) != 4096)
				_exit(1);
		_exit(0);
	}
	return pid;
}

TEST_F(dma, map_unmap_exact_with_iommu_attribution)
{
	int status;
	pid_t noise;

	ASSERT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	noise = nvme_noise(300);
	ASSERT_EQ(0, edu_ctl(self->edu, "dma", "to_device 8192"));
	ASSERT_EQ(0, edu_ctl(self->edu, "dma", "from_device 4096"));
	ASSERT_EQ(0, edu_ctl(self->edu, "dma", "verify 16384"));
	ASSERT_EQ(noise, waitpid(noise, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, gp_stop(&self->s));
	dma_drain(&self->l, &self->t);

	/* 8192 TO + 4096 FROM + 16384 TO + 16384 FROM */
	EXPECT_EQ(4, self->t.calls[GPUPROBE_DMA_MAP_PAGE]);
	EXPECT_EQ(45056, self->t.bytes[GPUPROBE_DMA_MAP_PAGE]);
	EXPECT_EQ(4, self->t.calls[GPUPROBE_DMA_UNMAP_PAGE]);
	EXPECT_EQ(45056, self->t.bytes[GPUPROBE_DMA_UNMAP_PAGE]);
	EXPECT_EQ(2, self->t.dir[1]);	/* DMA_TO_DEVICE */
	EXPECT_EQ(2, self->t.dir[2]);	/* DMA_FROM_DEVICE */
	EXPECT_EQ(0, self->t.zero_duration);
	EXPECT_EQ(0, self->t.addr_zero);
	EXPECT_EQ(0, self->t.calls[GPUPROBE_DMA_MAP_SG]);
	/* strict mode: every map and unmap goes to the IOMMU, page-sized here */
	EXPECT_EQ(0, self->t.no_iommu);
	EXPECT_EQ(8, self->t.iommu_calls_in_dma);
	EXPECT_GT(self->t.iommu_ns, 0);
	EXPECT_EQ(45056, self->t.iommu_bytes[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(45056, self->t.iommu_bytes[GPUPROBE_IOMMU_UNMAP]);
	EXPECT_EQ(4, self->t.iommu[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(4, self->t.iommu[GPUPROBE_IOMMU_UNMAP]);
	EXPECT_EQ(0, self->t.iommu[GPUPROBE_IOMMU_FAULT]);
	/* one interrupt per 2 KiB device transfer: 4 + 2 + 8 + 8 */
	EXPECT_EQ(22, self->t.irqs);
	EXPECT_EQ(0, self->t.foreign);
}

TEST_F(dma, unaligned_size_maps_whole_pages)
{
	ASSERT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	ASSERT_EQ(0, edu_ctl(self->edu, "dma", "to_device 10000"));
	ASSERT_EQ(0, gp_stop(&self->s));
	dma_drain(&self->l, &self->t);
	EXPECT_EQ(1, self->t.calls[GPUPROBE_DMA_MAP_PAGE]);
	EXPECT_EQ(10000, self->t.bytes[GPUPROBE_DMA_MAP_PAGE]);
	/* kmalloc(10000) is page aligned: the IOMMU maps 3 pages */
	EXPECT_EQ(12288, self->t.iommu_bytes[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(12288, self->t.iommu_bytes[GPUPROBE_IOMMU_UNMAP]);
}

TEST_F(dma, coherent_alloc_and_free)
{
	ASSERT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	ASSERT_EQ(0, edu_ctl(self->edu, "dma", "coherent 8192"));
	ASSERT_EQ(0, gp_stop(&self->s));
	dma_drain(&self->l, &self->t);
	EXPECT_EQ(1, self->t.calls[GPUPROBE_DMA_ALLOC]);
	EXPECT_EQ(8192, self->t.bytes[GPUPROBE_DMA_ALLOC]);
	EXPECT_EQ(1, self->t.calls[GPUPROBE_DMA_FREE]);
	EXPECT_EQ(8192, self->t.bytes[GPUPROBE_DMA_FREE]);
	EXPECT_EQ(0, self->t.addr_zero);
	EXPECT_EQ(8192, self->t.iommu_bytes[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(8192, self->t.iommu_bytes[GPUPROBE_IOMMU_UNMAP]);
}

TEST_F(dma, unmapped_iova_faults)
{
	ASSERT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	ASSERT_EQ(0, edu_ctl(self->edu, "dma", "fault 4096"));
	usleep(200000);	/* the DMAR fault interrupt is asynchronous */
	ASSERT_EQ(0, gp_stop(&self->s));
	dma_drain(&self->l, &self->t);
	TH_LOG("faults recorded: %llu",
	       (unsigned long long)self->t.iommu[GPUPROBE_IOMMU_FAULT]);
	EXPECT_EQ(1, self->t.iommu[GPUPROBE_IOMMU_FAULT]);
	EXPECT_EQ(1, self->t.calls[GPUPROBE_DMA_MAP_PAGE]);
	EXPECT_EQ(1, self->t.calls[GPUPROBE_DMA_UNMAP_PAGE]);
}

/* NVMe as the target: O_DIRECT reads of a known total are all DMA-mapped. */
TEST_F(dma, nvme_direct_io_mapped_not_edu)
{
	const int reads = 256;
	uint64_t mapped;
	int status;
	pid_t pid;

	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_DEL, self->edu, 0, 0));
	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_ADD, self->nvme, 0, 0));
	self->t.bdf = gp_bdf(self->nvme);
	ASSERT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	pid = nvme_noise(reads);
	ASSERT_EQ(0, edu_ctl(self->edu, "dma", "verify 8192"));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, gp_stop(&self->s));
	dma_drain(&self->l, &self->t);

	mapped = self->t.bytes[GPUPROBE_DMA_MAP_PAGE] +
		 self->t.bytes[GPUPROBE_DMA_MAP_SG];
	TH_LOG("nvme: %llu map_page, %llu map_sg calls, %llu bytes",
	       (unsigned long long)self->t.calls[GPUPROBE_DMA_MAP_PAGE],
	       (unsigned long long)self->t.calls[GPUPROBE_DMA_MAP_SG],
	       (unsigned long long)mapped);
	EXPECT_GE(mapped, reads * 4096ULL);
	EXPECT_EQ(0, self->t.foreign);	/* nothing of edu's */
}

/*
 * NVMe reads into 16 pages that are not neighbours (every other page of a
 * buffer: no two merge into one segment) are mapped with map_sg(table) and
 * unmapped with unmap_sg, and every record carries the first segment's
 * device address, unmaps included.
 */
TEST_F(dma, nvme_sg_records_carry_addresses)
{
	const int reads = 32, pages = 16;
	struct iovec iov[16];
	int fd, status;
	char *buf;
	pid_t pid;

	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_DEL, self->edu, 0, 0));
	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_ADD, self->nvme, 0, 0));
	self->t.bdf = gp_bdf(self->nvme);
	ASSERT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	pid = fork();
	if (pid == 0) {
		fd = nvme_disk_open(O_RDONLY | O_DIRECT);
		if (fd < 0 || posix_memalign((void **)&buf, 4096, 2 * pages * 4096))
			_exit(1);
		memset(buf, 0, 2 * pages * 4096);
		for (int i = 0; i < pages; i++)
			iov[i] = (struct iovec){ buf + 2 * i * 4096, 4096 };
		for (int i = 0; i < reads; i++)
			if (preadv(fd, iov, pages, (off_t)i * pages * 4096) !=
			    pages * 4096)
				_exit(1);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, gp_stop(&self->s));
	dma_drain(&self->l, &self->t);
	TH_LOG("nvme: %llu map_sg, %llu unmap_sg, %llu map_page, %llu unmap_page, "
	       "%llu records without an address",
	       (unsigned long long)self->t.calls[GPUPROBE_DMA_MAP_SG],
	       (unsigned long long)self->t.calls[GPUPROBE_DMA_UNMAP_SG],
	       (unsigned long long)self->t.calls[GPUPROBE_DMA_MAP_PAGE],
	       (unsigned long long)self->t.calls[GPUPROBE_DMA_UNMAP_PAGE],
	       (unsigned long long)self->t.addr_zero);
	EXPECT_GT(self->t.calls[GPUPROBE_DMA_UNMAP_SG], 0);
	EXPECT_EQ(self->t.calls[GPUPROBE_DMA_MAP_SG],
		  self->t.calls[GPUPROBE_DMA_UNMAP_SG]);
	EXPECT_EQ(0, self->t.addr_zero);
}

/*
 * A map_sg that fails (N segments of one 64 KiB buffer: more than the edu
 * device's 32-bit DMA mask, so the IOMMU finds no room) is one record, with
 * its size and no address, and it leaves nothing behind: a map one second
 * later is timed from its own entry.  On 6.12 the failure is the
 * dma_map_sg_err tracepoint, and a call timed from an entry kprobe whose
 * record never came would lend that entry to the next call (a duration of
 * over a second).
 */
TEST_F(dma, failed_map_sg_recorded_and_released)
{
	const unsigned long long segs = 65537, seg = 65536;
	long long failed = edu_stat(self->edu, "map_sg_failed");
	char cmd[64];

	ASSERT_GE(failed, 0);
	snprintf(cmd, sizeof(cmd), "%llu %llu", segs, seg);
	ASSERT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	ASSERT_EQ(0, edu_ctl(self->edu, "mapsg", cmd));
	usleep(1000000);
	ASSERT_EQ(0, edu_ctl(self->edu, "mapbench", "1 4096"));
	ASSERT_EQ(0, gp_stop(&self->s));
	dma_drain(&self->l, &self->t);
	ASSERT_EQ(failed + 1, edu_stat(self->edu, "map_sg_failed"));
	TH_LOG("failed map_sg: %llu records, %llu bytes, %llu segments; map_page %llu ns",
	       (unsigned long long)self->t.calls[GPUPROBE_DMA_MAP_SG],
	       (unsigned long long)self->t.bytes[GPUPROBE_DMA_MAP_SG],
	       (unsigned long long)self->t.nents[GPUPROBE_DMA_MAP_SG],
	       (unsigned long long)self->t.max_ns[GPUPROBE_DMA_MAP_PAGE]);
	EXPECT_EQ(1, self->t.calls[GPUPROBE_DMA_MAP_SG]);
	EXPECT_EQ(segs * seg, self->t.bytes[GPUPROBE_DMA_MAP_SG]);
	EXPECT_EQ(segs, self->t.nents[GPUPROBE_DMA_MAP_SG]);
	EXPECT_EQ(0, self->t.calls[GPUPROBE_DMA_UNMAP_SG]);
	EXPECT_EQ(1, self->t.addr_zero);	/* the failed map_sg's */
	EXPECT_EQ(0, self->t.untimed);
	EXPECT_EQ(1, self->t.calls[GPUPROBE_DMA_MAP_PAGE]);
	EXPECT_EQ(1, self->t.calls[GPUPROBE_DMA_UNMAP_PAGE]);
	EXPECT_LT(self->t.max_ns[GPUPROBE_DMA_MAP_PAGE], 500000000ull);
	/* only the map_single reached the IOMMU */
	EXPECT_EQ(1, self->t.iommu[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(0, self->t.foreign);
}

/*
 * The hook in use follows the kernel: its dma: tracepoints where it has
 * them (6.12+, timed from entry kprobes), else kretprobes (6.1).
 */
TEST_F(dma, hook_follows_the_kernel)
{
	int has_tp = access("/sys/kernel/tracing/events/dma", F_OK) == 0;

	ASSERT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	TH_LOG("dma: tracepoints %s", has_tp ? "present" : "absent");
	if (has_tp) {
		EXPECT_EQ(1, gp_hook_attached(&self->s, "tracepoint:dma:"));
		EXPECT_EQ(1, gp_hook_attached(&self->s, "kprobe:dma_*_attrs entry"));
		EXPECT_EQ(-1, gp_hook_attached(&self->s, "kretprobe:dma_map_"));
	} else {
		EXPECT_EQ(1, gp_hook_attached(&self->s, "kretprobe:dma_map_"));
		EXPECT_EQ(-1, gp_hook_attached(&self->s, "tracepoint:dma:"));
	}
	EXPECT_EQ(1, gp_hook_attached(&self->s, "kretprobe:iommu_map/unmap"));
	ASSERT_EQ(0, gp_stop(&self->s));
}

TEST_HARNESS_MAIN
