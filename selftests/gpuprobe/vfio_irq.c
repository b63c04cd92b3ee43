// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode: the edu device bound to vfio-pci and driven the way a VMM does
 * (container, group, MSI through VFIO_DEVICE_SET_IRQS, the interrupt raised
 * through the mmapped BAR).  Its vfio-msi vector is recognised as the
 * target's, and every interrupt is recorded, flagged as VFIO.
 */
#include <linux/vfio.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <sys/wait.h>

#include "kselftest_harness.h"
#include "dma.h"
#include "vfio.h"

#define EDU_IRQ_RAISE	0x60
#define EDU_IRQ_ACK	0x64

struct vfio_dev {
	int container, group, device, efd;
	volatile uint32_t *bar;
	size_t bar_size;
};

/* The VMM pattern, minus guest memory: container, group, device, BAR. */
static int vfio_open(const char *bdf, struct vfio_dev *v)
{
	struct vfio_region_info ri = { .argsz = sizeof(ri),
				       .index = VFIO_PCI_BAR0_REGION_INDEX };
	struct vfio_region_info cfg = { .argsz = sizeof(cfg),
					.index = VFIO_PCI_CONFIG_REGION_INDEX };
	uint16_t cmd;

	v->container = open("/dev/vfio/vfio", O_RDWR);
	if (v->container < 0)
		return -1;
	v->group = vfio_group_join(v->container, bdf);
	if (v->group < 0)
		return v->group;
	if (ioctl(v->container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU))
		return -3;
	v->device = ioctl(v->group, VFIO_GROUP_GET_DEVICE_FD, bdf);
	if (v->device < 0)
		return -4;
	if (ioctl(v->device, VFIO_DEVICE_GET_REGION_INFO, &ri) ||
	    ioctl(v->device, VFIO_DEVICE_GET_REGION_INFO, &cfg))
		return -5;
	v->bar_size = ri.size;
	v->bar = mmap(NULL, ri.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      v->device, ri.offset);
	if (v->bar == MAP_FAILED)
		return -6;
	/* MSI is a memory write by the device: bus mastering on */
	if (pread(v->device, &cmd, 2, cfg.offset + 4) != 2)
		return -7;
	cmd |= 0x6;
	if (pwrite(v->device, &cmd, 2, cfg.offset + 4) != 2)
		return -8;
	return 0;
}

static int vfio_enable_msi(struct vfio_dev *v)
{
	char buf[sizeof(struct vfio_irq_set) + sizeof(int32_t)];
	struct vfio_irq_set *set = (void *)buf;
	int32_t fd;

	v->efd = eventfd(0, EFD_CLOEXEC);
	fd = v->efd;
	set->argsz = sizeof(buf);
	set->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
	set->index = VFIO_PCI_MSI_IRQ_INDEX;
	set->start = 0;
	set->count = 1;
	memcpy(set->data, &fd, sizeof(fd));
	return ioctl(v->device, VFIO_DEVICE_SET_IRQS, set);
}

static void vfio_close(struct vfio_dev *v)
{
	if (v->bar && v->bar != MAP_FAILED)
		munmap((void *)v->bar, v->bar_size);
	if (v->efd > 0)
		close(v->efd);
	if (v->device > 0)
		close(v->device);
	if (v->group > 0)
		close(v->group);
	if (v->container > 0)
		close(v->container);
}

/* The vfio-msi irq of the device, from /proc/interrupts; -1 if none. */
static int vfio_msi_irq(const char *bdf)
{
	char line[512], want[64];
	FILE *f = fopen("/proc/interrupts", "re");
	int irq = -1;

	snprintf(want, sizeof(want), "vfio-msi[0](%s)", bdf);
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, want))
			irq = atoi(line);
	if (f)
		fclose(f);
	return irq;
}

FIXTURE(vfio) {
	char edu[32];
	struct vfio_dev v;
	struct genl_sock s, l;
};

FIXTURE_SETUP(vfio)
{
	char param[64];

	memset(&self->v, 0, sizeof(self->v));
	self->s.fd = self->l.fd = -1;
	ASSERT_EQ(0, edu_find(self->edu, sizeof(self->edu)));
	if (access("/sys/bus/pci/drivers/vfio-pci", F_OK))
		SKIP(return, "vfio-pci not loaded");
	ASSERT_EQ(0, vfio_bind(self->edu));
	ASSERT_EQ(0, vfio_open(self->edu, &self->v));
	if (mod_loaded("gpuprobe"))
		mod_unload("gpuprobe");
	snprintf(param, sizeof(param), "target=%s", self->edu);
	ASSERT_EQ(0, mod_load(GPUPROBE_KO, param));
	ASSERT_EQ(0, genl_open(&self->s, GPUPROBE_FAMILY_NAME, NULL));
	ASSERT_EQ(0, gp_listen(&self->l, 4 << 20));
}

FIXTURE_TEARDOWN(vfio)
{
	genl_close(&self->l);
	genl_close(&self->s);
	mod_unload("gpuprobe");
	vfio_close(&self->v);
	vfio_unbind(self->edu);
}

TEST_F(vfio, vfio_msi_vector_recorded_as_target)
{
	struct gp_tally t = { .bdf = gp_bdf(self->edu) };
	const int n = 300;
	char targets[256];
	long long before;
	uint64_t cnt, got = 0;
	int irq, i;

	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	ASSERT_EQ(0, vfio_enable_msi(&self->v));
	irq = vfio_msi_irq(self->edu);
	ASSERT_GT(irq, 0);
	/* the running session's rescan (every 500 ms) picks the vector up */
	for (i = 0; i < 40 && gp_target_has_irq(&self->s, self->edu, irq) != 1;
	     i++)
		usleep(100000);
	ASSERT_EQ(1, gp_target_has_irq(&self->s, self->edu, irq));
	ASSERT_EQ(0, gp_targets(&self->s, targets));

	before = proc_irq_count(irq);
	for (i = 0; i < n; i++) {
		self->v.bar[EDU_IRQ_RAISE / 4] = 1;
		ASSERT_EQ(8, read(self->v.efd, &cnt, 8));
		got += cnt;
		self->v.bar[EDU_IRQ_ACK / 4] = 1;
	}
	ASSERT_EQ(0, gp_stop(&self->s));
	gp_drain(&self->l, &t);

	EXPECT_EQ(n, got);
	EXPECT_EQ(n, proc_irq_count(irq) - before);
	EXPECT_EQ(n, t.irq[1]);
	EXPECT_EQ(0, t.irq[0]);
	EXPECT_EQ(n, t.vfio_flagged);
	EXPECT_GE(t.target_events[GPUPROBE_TARGET_VECTORS], 1);
}

static int nobody_target_get(void *arg)
{
	struct genl_sock s;
	char out[256];

	if (setgid(65534) || setuid(65534))
		return 99;
	if (genl_open(&s, GPUPROBE_FAMILY_NAME, NULL))
		return 98;
	return -gp_targets(&s, out);
}

/*
 * Queries only read: an unprivileged TARGET_GET does not re-read vectors
 * (taking device locks, publishing a map, emitting records) -- here the
 * MSI vector VFIO enabled without a bind stays unseen until a session's
 * rescan or START reads it.
 */
TEST_F(vfio, unprivileged_target_get_changes_nothing)
{
	pid_t pid;
	int status, irq;

	ASSERT_EQ(0, vfio_enable_msi(&self->v));
	irq = vfio_msi_irq(self->edu);
	ASSERT_GT(irq, 0);
	/* before: vfio-pci's INTx line at most */
	ASSERT_EQ(0, gp_target_has_irq(&self->s, self->edu, irq));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(nobody_target_get(NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, gp_target_has_irq(&self->s, self->edu, irq));
	/* START reads it (privileged) */
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	EXPECT_EQ(1, gp_target_has_irq(&self->s, self->edu, irq));
	ASSERT_EQ(0, gp_stop(&self->s));
}

/*
 * The VMM pinning and mapping guest memory for the device: VFIO_IOMMU_MAP_DMA
 * of a buffer of known size shows up as IOMMU maps attributed to the device
 * (by its IOMMU domain: no DMA-API call is involved), bytes and time.
 */
TEST_F(vfio, vfio_dma_map_attributed_by_domain)
{
	const size_t size = 1 << 20;
	struct vfio_iommu_type1_dma_map map = { .argsz = sizeof(map) };
	struct vfio_iommu_type1_dma_unmap unmap = { .argsz = sizeof(unmap) };
	struct dma_tally t = { .bdf = gp_bdf(self->edu) };
	void *buf;

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	memset(buf, 1, size);
	ASSERT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	map.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
	map.vaddr = (uintptr_t)buf;
	map.iova = 0x10000000;
	map.size = size;
	ASSERT_EQ(0, ioctl(self->v.container, VFIO_IOMMU_MAP_DMA, &map));
	unmap.iova = map.iova;
	unmap.size = size;
	ASSERT_EQ(0, ioctl(self->v.container, VFIO_IOMMU_UNMAP_DMA, &unmap));
	EXPECT_EQ(size, unmap.size);
	ASSERT_EQ(0, gp_stop(&self->s));
	dma_drain(&self->l, &t);
	munmap(buf, size);

	TH_LOG("%llu IOMMU maps, %llu bytes; %llu unmaps, %llu bytes",
	       (unsigned long long)t.iommu[GPUPROBE_IOMMU_MAP],
	       (unsigned long long)t.iommu_bytes[GPUPROBE_IOMMU_MAP],
	       (unsigned long long)t.iommu[GPUPROBE_IOMMU_UNMAP],
	       (unsigned long long)t.iommu_bytes[GPUPROBE_IOMMU_UNMAP]);
	EXPECT_GE(t.iommu[GPUPROBE_IOMMU_MAP], 1);
	EXPECT_EQ(size, t.iommu_bytes[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(size, t.iommu_bytes[GPUPROBE_IOMMU_UNMAP]);
	EXPECT_EQ(0, t.calls[GPUPROBE_DMA_MAP_PAGE]);	/* not the DMA API */
	EXPECT_EQ(0, t.foreign);
}

TEST_HARNESS_MAIN
