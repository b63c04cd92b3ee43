// SPDX-License-Identifier: GPL-2.0
/*
 * Two edu devices in one VFIO type1 container, as a VMM with two devices
 * passed through to one guest sets them up: type1 attaches the second
 * group to the first group's IOMMU domain (same IOMMU ops and cache
 * coherency), so one iommu_map() serves both devices.  With both targets,
 * every IOMMU map and unmap of the container says so (shared flag, one
 * domain id) and names no single owner; with one target in the container,
 * or each device in a container of its own, the flag is clear.  DOMAIN
 * target records give each target's domain, which is how a reader knows
 * who shares one.  Needs a second edu (VM_EDUS=2 scripts/vmtest.sh).
 */
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "dma.h"
#include "vfio.h"

#define MAPS	200
#define IOVA	0x10000000ULL

/* The IOMMU and DOMAIN target records of a session. */
struct domain_tally {
	uint32_t bdf[2];		/* the two edus */
	uint64_t recs[4];		/* by gpuprobe_iommu_op */
	uint64_t shared[4];		/* of those, flagged shared */
	uint64_t by_bdf[4][2];		/* of those, naming edu 0 or 1 */
	uint64_t bytes[4];
	uint32_t domain;		/* the first IOMMU record's */
	uint64_t other_domain;		/* records on another domain */
	uint32_t target_domain[2];	/* last DOMAIN record of each edu */
	uint64_t domain_recs[2];
};

static void domain_tally_cb(void *arg, const uint8_t *p, size_t len)
{
	struct domain_tally *t = arg;

	while (len >= sizeof(struct gpuprobe_rec_hdr)) {
		const struct gpuprobe_rec_hdr *h = (const void *)p;

		if (h->size < sizeof(*h) || h->size > len)
			return;
		if (h->type == GPUPROBE_EV_IOMMU) {
			const struct gpuprobe_rec_iommu *r = (const void *)p;

			if (r->op < 4) {
				t->recs[r->op]++;
				t->bytes[r->op] += r->size;
				if (h->flags & GPUPROBE_IOMMU_SHARED_DOMAIN)
					t->shared[r->op]++;
				for (int i = 0; i < 2; i++)
					t->by_bdf[r->op][i] += r->bdf == t->bdf[i];
			}
			if (!t->domain)
				t->domain = r->domain;
			else if (r->domain != t->domain)
				t->other_domain++;
		} else if (h->type == GPUPROBE_EV_TARGET) {
			const struct gpuprobe_rec_target *r = (const void *)p;

			for (int i = 0; i < 2; i++) {
				if (r->event != GPUPROBE_TARGET_DOMAIN ||
				    r->bdf != t->bdf[i])
					continue;
				t->target_domain[i] = r->domain;
				t->domain_recs[i]++;
			}
		}
		p += h->size;
		len -= h->size;
	}
}

FIXTURE(shared) {
	char edu[2][32];
	int container[2], group[2];
	struct genl_sock s, l;
	struct domain_tally t;
	void *buf;
};

FIXTURE_SETUP(shared)
{
	self->s.fd = self->l.fd = -1;
	for (int i = 0; i < 2; i++)
		self->container[i] = self->group[i] = -1;
	self->buf = MAP_FAILED;
	if (pci_find_nth(0x1234, 0x11e8, 1, self->edu[1], sizeof(self->edu[1])))
		SKIP(return, "one edu device: run with VM_EDUS=2");
	ASSERT_EQ(0, pci_find_nth(0x1234, 0x11e8, 0, self->edu[0],
				  sizeof(self->edu[0])));
	if (access("/sys/bus/pci/drivers/vfio-pci", F_OK))
		SKIP(return, "vfio-pci not loaded");
	/* each in a group of its own, or type1 would have nothing to merge */
	ASSERT_NE(iommu_group(self->edu[0]), iommu_group(self->edu[1]));
	memset(&self->t, 0, sizeof(self->t));
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, vfio_bind(self->edu[i]));
		self->t.bdf[i] = gp_bdf(self->edu[i]);
		self->container[i] = open("/dev/vfio/vfio", O_RDWR);
		ASSERT_LE(0, self->container[i]);
	}
	self->buf = mmap(NULL, MAPS * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	memset(self->buf, 1, MAPS * 4096);
}

FIXTURE_TEARDOWN(shared)
{
	genl_close(&self->l);
	genl_close(&self->s);
	if (mod_loaded("gpuprobe"))
		mod_unload("gpuprobe");
	for (int i = 0; i < 2; i++) {
		if (self->group[i] >= 0)
			close(self->group[i]);
		if (self->container[i] >= 0)
			close(self->container[i]);
		if (self->edu[i][0])
			vfio_unbind(self->edu[i]);
	}
	if (self->buf != MAP_FAILED)
		munmap(self->buf, MAPS * 4096);
}

/* edu i's group into container c; the container's IOMMU set once. */
static int join(FIXTURE_DATA(shared) *self, int i, int c, bool set_iommu)
{
	self->group[i] = vfio_group_join(self->container[c], self->edu[i]);
	if (self->group[i] < 0)
		return self->group[i];
	if (set_iommu &&
	    ioctl(self->container[c], VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU))
		return -errno;
	return 0;
}

/* gpuprobe with these targets, a control and an events socket. */
static int probe_targets(FIXTURE_DATA(shared) *self, const char *targets)
{
	char param[96];
	int err;

	if (mod_loaded("gpuprobe"))
		mod_unload("gpuprobe");
	snprintf(param, sizeof(param), "target=%s", targets);
	err = mod_load(GPUPROBE_KO, param);
	if (!err)
		err = genl_open(&self->s, GPUPROBE_FAMILY_NAME, NULL);
	return err ? err : gp_listen(&self->l, 4 << 20);
}

/*
 * MAPS maps of one page each into container c, then MAPS unmaps, in a
 * session; the records into self->t.
 */
static void map_unmap(struct __test_metadata *_metadata,
		      FIXTURE_DATA(shared) *self, int c)
{
	struct vfio_iommu_type1_dma_map map = { .argsz = sizeof(map) };
	struct vfio_iommu_type1_dma_unmap unmap = { .argsz = sizeof(unmap) };

	ASSERT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	map.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
	map.size = 4096;
	for (int i = 0; i < MAPS; i++) {
		map.vaddr = (uintptr_t)self->buf + i * 4096;
		map.iova = IOVA + i * 4096ULL;
		ASSERT_EQ(0, ioctl(self->container[c], VFIO_IOMMU_MAP_DMA, &map));
	}
	for (int i = 0; i < MAPS; i++) {
		unmap.iova = IOVA + i * 4096ULL;
		unmap.size = 4096;
		ASSERT_EQ(0, ioctl(self->container[c], VFIO_IOMMU_UNMAP_DMA,
				   &unmap));
		ASSERT_EQ(4096, unmap.size);
	}
	ASSERT_EQ(0, gp_stop(&self->s));
	EXPECT_EQ(0, gp_recv_records(&self->l, domain_tally_cb, &self->t));
	TH_LOG("%llu IOMMU maps (%llu shared, %llu %s, %llu %s), %llu unmaps "
	       "(%llu shared), domain %08x (%llu records elsewhere); "
	       "DOMAIN records: %08x x%llu, %08x x%llu",
	       (unsigned long long)self->t.recs[GPUPROBE_IOMMU_MAP],
	       (unsigned long long)self->t.shared[GPUPROBE_IOMMU_MAP],
	       (unsigned long long)self->t.by_bdf[GPUPROBE_IOMMU_MAP][0],
	       self->edu[0],
	       (unsigned long long)self->t.by_bdf[GPUPROBE_IOMMU_MAP][1],
	       self->edu[1],
	       (unsigned long long)self->t.recs[GPUPROBE_IOMMU_UNMAP],
	       (unsigned long long)self->t.shared[GPUPROBE_IOMMU_UNMAP],
	       self->t.domain, (unsigned long long)self->t.other_domain,
	       self->t.target_domain[0],
	       (unsigned long long)self->t.domain_recs[0],
	       self->t.target_domain[1],
	       (unsigned long long)self->t.domain_recs[1]);
}

/* Every map and unmap of the container recorded once, on one domain. */
static void expect_all_on_one_domain(struct __test_metadata *_metadata,
				     const struct domain_tally *t)
{
	EXPECT_EQ(MAPS, t->recs[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(MAPS, t->recs[GPUPROBE_IOMMU_UNMAP]);
	EXPECT_EQ(MAPS * 4096ULL, t->bytes[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(MAPS * 4096ULL, t->bytes[GPUPROBE_IOMMU_UNMAP]);
	EXPECT_NE(0, t->domain);
	EXPECT_EQ(0, t->other_domain);
}

TEST_F(shared, both_targets_in_one_container)
{
	char targets[80];

	ASSERT_EQ(0, join(self, 0, 0, false));
	ASSERT_EQ(0, join(self, 1, 0, true));
	snprintf(targets, sizeof(targets), "%s,%s", self->edu[0], self->edu[1]);
	ASSERT_EQ(0, probe_targets(self, targets));
	map_unmap(_metadata, self, 0);
	expect_all_on_one_domain(_metadata, &self->t);
	/* one domain for both: every call says so */
	EXPECT_EQ(MAPS, self->t.shared[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(MAPS, self->t.shared[GPUPROBE_IOMMU_UNMAP]);
	/* and both targets' DOMAIN records (START) name it */
	EXPECT_EQ(1, self->t.domain_recs[0]);
	EXPECT_EQ(1, self->t.domain_recs[1]);
	EXPECT_EQ(self->t.domain, self->t.target_domain[0]);
	EXPECT_EQ(self->t.domain, self->t.target_domain[1]);
}

TEST_F(shared, one_target_in_the_container)
{
	ASSERT_EQ(0, join(self, 0, 0, false));
	ASSERT_EQ(0, join(self, 1, 0, true));
	ASSERT_EQ(0, probe_targets(self, self->edu[0]));
	map_unmap(_metadata, self, 0);
	expect_all_on_one_domain(_metadata, &self->t);
	EXPECT_EQ(0, self->t.shared[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(0, self->t.shared[GPUPROBE_IOMMU_UNMAP]);
	EXPECT_EQ(MAPS, self->t.by_bdf[GPUPROBE_IOMMU_MAP][0]);
	EXPECT_EQ(MAPS, self->t.by_bdf[GPUPROBE_IOMMU_UNMAP][0]);
	EXPECT_EQ(self->t.domain, self->t.target_domain[0]);
	EXPECT_EQ(0, self->t.domain_recs[1]);
}

TEST_F(shared, a_container_each)
{
	char targets[80];

	ASSERT_EQ(0, join(self, 0, 0, true));
	ASSERT_EQ(0, join(self, 1, 1, true));
	snprintf(targets, sizeof(targets), "%s,%s", self->edu[0], self->edu[1]);
	ASSERT_EQ(0, probe_targets(self, targets));
	map_unmap(_metadata, self, 0);
	expect_all_on_one_domain(_metadata, &self->t);
	EXPECT_EQ(0, self->t.shared[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(0, self->t.shared[GPUPROBE_IOMMU_UNMAP]);
	EXPECT_EQ(MAPS, self->t.by_bdf[GPUPROBE_IOMMU_MAP][0]);
	EXPECT_EQ(MAPS, self->t.by_bdf[GPUPROBE_IOMMU_UNMAP][0]);
	EXPECT_EQ(self->t.domain, self->t.target_domain[0]);
	EXPECT_NE(self->t.domain, self->t.target_domain[1]);
	EXPECT_NE(0, self->t.target_domain[1]);
}

/*
 * The second group joins after START: the rescan (every 500 ms) sees edu
 * 1's domain change and says so in a DOMAIN record before the maps.
 */
TEST_F(shared, container_joined_while_recording)
{
	struct vfio_iommu_type1_dma_map map = { .argsz = sizeof(map) };
	char targets[80];
	uint32_t before;

	ASSERT_EQ(0, join(self, 0, 0, true));
	snprintf(targets, sizeof(targets), "%s,%s", self->edu[0], self->edu[1]);
	ASSERT_EQ(0, probe_targets(self, targets));
	ASSERT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	usleep(100000);
	gp_recv_records(&self->l, domain_tally_cb, &self->t);
	before = self->t.target_domain[1];
	ASSERT_EQ(0, join(self, 1, 0, false));
	usleep(1200000);
	map.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
	map.size = 4096;
	map.vaddr = (uintptr_t)self->buf;
	map.iova = IOVA;
	ASSERT_EQ(0, ioctl(self->container[0], VFIO_IOMMU_MAP_DMA, &map));
	ASSERT_EQ(0, gp_stop(&self->s));
	gp_recv_records(&self->l, domain_tally_cb, &self->t);
	TH_LOG("edu 1's domain %08x, then %08x (%llu DOMAIN records); map on %08x",
	       before, self->t.target_domain[1],
	       (unsigned long long)self->t.domain_recs[1], self->t.domain);
	EXPECT_NE(before, self->t.target_domain[1]);
	EXPECT_EQ(2, self->t.domain_recs[1]);
	EXPECT_EQ(self->t.domain, self->t.target_domain[0]);
	EXPECT_EQ(self->t.domain, self->t.target_domain[1]);
	EXPECT_EQ(1, self->t.shared[GPUPROBE_IOMMU_MAP]);
}

/*
 * The second group joins after START and the container maps at once, with
 * no rescan in between: the map is seen on both targets' domain (shared)
 * because the join's iommu_attach_group() marks the domains the map caches
 * stale until they are read again (kmod/dma_iommu.c).
 */
TEST_F(shared, container_joined_and_mapped_at_once)
{
	struct vfio_iommu_type1_dma_map map = { .argsz = sizeof(map) };
	char targets[80];

	ASSERT_EQ(0, join(self, 0, 0, true));
	snprintf(targets, sizeof(targets), "%s,%s", self->edu[0], self->edu[1]);
	ASSERT_EQ(0, probe_targets(self, targets));
	ASSERT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	ASSERT_EQ(0, join(self, 1, 0, false));
	map.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
	map.size = 4096;
	map.vaddr = (uintptr_t)self->buf;
	map.iova = IOVA;
	ASSERT_EQ(0, ioctl(self->container[0], VFIO_IOMMU_MAP_DMA, &map));
	ASSERT_EQ(0, gp_stop(&self->s));
	gp_recv_records(&self->l, domain_tally_cb, &self->t);
	TH_LOG("%llu maps, %llu shared, on %08x",
	       (unsigned long long)self->t.recs[GPUPROBE_IOMMU_MAP],
	       (unsigned long long)self->t.shared[GPUPROBE_IOMMU_MAP],
	       self->t.domain);
	EXPECT_EQ(1, self->t.recs[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(1, self->t.shared[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(0, self->t.other_domain);
}

TEST_HARNESS_MAIN
