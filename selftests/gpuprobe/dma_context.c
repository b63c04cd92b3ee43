// SPDX-License-Identifier: GPL-2.0
/*
 * IOMMU work is charged to a target's DMA call only when it runs in that
 * call's context.  The edu driver maps and unmaps a page N times while NVMe
 * O_DIRECT reads run on the same CPU: the NVMe completions (hard irq) unmap
 * their pages through the IOMMU while edu's task is inside its DMA calls.
 * The records must still give edu exactly N DMA maps, N unmaps, N IOMMU maps
 * and N IOMMU unmaps, one IOMMU call inside each DMA call, as the edu
 * driver's own counters say; the NVMe's IOMMU work is not edu's.
 */
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "dma.h"

#define MAPS	3000
#define READERS	4

FIXTURE(ctx) {
	char edu[32];
	struct genl_sock s, l;
	struct dma_tally t;
};

FIXTURE_SETUP(ctx)
{
	self->s.fd = self->l.fd = -1;
	ASSERT_EQ(0, gp_setup_edu(self->edu, sizeof(self->edu), NULL, &self->s));
	ASSERT_EQ(0, gp_listen(&self->l, 16 << 20));
	memset(&self->t, 0, sizeof(self->t));
	self->t.bdf = gp_bdf(self->edu);
}

FIXTURE_TEARDOWN(ctx)
{
	genl_close(&self->l);
	genl_close(&self->s);
	mod_unload("gpuprobe");
	mod_unload("gpuprobe_edu");
}

static int pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* O_DIRECT reads on CPU 0 until *stop; counts them in *done. */
static pid_t nvme_reader(volatile int *stop, long *done)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open("/dev/nvme0n1", O_RDONLY | O_DIRECT);
		void *buf;
		long i = getpid();

		if (pin_cpu0() || fd < 0 || posix_memalign(&buf, 4096, 4096))
			_exit(1);
		while (!*stop) {
			if (pread(fd, buf, 4096, (off_t)(i++ % 1000) * 4096) != 4096)
				_exit(1);
			__atomic_fetch_add(done, 1, __ATOMIC_RELAXED);
		}
		_exit(0);
	}
	return pid;
}

static uint64_t stats_unattributed(struct genl_sock *s)
{
	struct gp_stats st;

	if (gp_stats(s, &st))
		return UINT64_MAX;
	return st.iommu_unattributed;
}

TEST_F(ctx, nvme_irq_work_not_charged_to_edu)
{
	long long maps0, unmaps0, maps, unmaps;
	pid_t pid[READERS];
	volatile int *stop;
	char cmd[32];
	long *done;
	int status;

	stop = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, stop);
	done = (long *)(stop + 16);
	ASSERT_EQ(0, pin_cpu0());
	maps0 = edu_stat(self->edu, "dma_maps");
	unmaps0 = edu_stat(self->edu, "dma_unmaps");
	ASSERT_GE(maps0, 0);
	ASSERT_GE(unmaps0, 0);

	ASSERT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	/* several, so completions keep landing in edu's calls */
	for (int i = 0; i < READERS; i++) {
		pid[i] = nvme_reader(stop, done);
		ASSERT_GT(pid[i], 0);
	}
	while (__atomic_load_n(done, __ATOMIC_RELAXED) < 10)
		sched_yield();
	snprintf(cmd, sizeof(cmd), "%d 4096", MAPS);
	ASSERT_EQ(0, edu_ctl(self->edu, "mapbench", cmd));
	*stop = 1;
	for (int i = 0; i < READERS; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	ASSERT_EQ(0, gp_stop(&self->s));
	dma_drain(&self->l, &self->t);

	maps = edu_stat(self->edu, "dma_maps") - maps0;
	unmaps = edu_stat(self->edu, "dma_unmaps") - unmaps0;
	TH_LOG("edu says %lld maps, %lld unmaps; records: %llu map, %llu unmap, "
	       "%llu iommu map, %llu iommu unmap, %llu iommu calls in dma calls; "
	       "%ld nvme reads beside; %llu unattributed",
	       maps, unmaps,
	       (unsigned long long)self->t.calls[GPUPROBE_DMA_MAP_PAGE],
	       (unsigned long long)self->t.calls[GPUPROBE_DMA_UNMAP_PAGE],
	       (unsigned long long)self->t.iommu[GPUPROBE_IOMMU_MAP],
	       (unsigned long long)self->t.iommu[GPUPROBE_IOMMU_UNMAP],
	       (unsigned long long)self->t.iommu_calls_in_dma, *done,
	       (unsigned long long)stats_unattributed(&self->s));
	EXPECT_EQ(MAPS, maps);
	EXPECT_EQ(MAPS, unmaps);
	EXPECT_EQ(maps, self->t.calls[GPUPROBE_DMA_MAP_PAGE]);
	EXPECT_EQ(unmaps, self->t.calls[GPUPROBE_DMA_UNMAP_PAGE]);
	EXPECT_EQ(maps, self->t.iommu[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(unmaps, self->t.iommu[GPUPROBE_IOMMU_UNMAP]);
	EXPECT_EQ(4096ULL * maps, self->t.iommu_bytes[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(4096ULL * unmaps, self->t.iommu_bytes[GPUPROBE_IOMMU_UNMAP]);
	/* one IOMMU call inside each DMA call, none from the NVMe's irqs */
	EXPECT_EQ(maps + unmaps, self->t.iommu_calls_in_dma);
	EXPECT_EQ(0, self->t.no_iommu);
	EXPECT_EQ(0, self->t.foreign);
	EXPECT_GT(*done, 10);
}

TEST_HARNESS_MAIN
