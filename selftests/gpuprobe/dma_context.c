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

static int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int pin_cpu0(void)
{
	return pin_cpu(0);
}

/* O_DIRECT reads on cpu until *stop; counts them in *done. */
static pid_t nvme_reader(volatile int *stop, long *done, int cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = nvme_disk_open(O_RDONLY | O_DIRECT);
		void *buf;
		long i = getpid();

		if (pin_cpu(cpu) || fd < 0 || posix_memalign(&buf, 4096, 4096))
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

/* READERS NVMe readers in children, sharing a stop flag and a read count. */
struct readers {
	volatile int *stop;
	long *done;
	pid_t pid[READERS];
};

/* Pins this process to CPU 0 and starts them (both_cpus: alternately on 0 and 1). */
static int readers_start(struct __test_metadata *_metadata, struct readers *rd, int both_cpus)
{
	rd->stop = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rd->stop == MAP_FAILED)
		return -1;
	rd->done = (long *)(rd->stop + 16);
	EXPECT_EQ(0, pin_cpu0());
	for (int i = 0; i < READERS; i++)
		rd->pid[i] = nvme_reader(rd->stop, rd->done, both_cpus ? i % 2 : 0);
	return 0;
}

/* Until they are under way (10 reads). */
static void readers_wait_started(struct readers *rd)
{
	while (__atomic_load_n(rd->done, __ATOMIC_RELAXED) < 10)
		sched_yield();
}

/* Until they did at least n reads in all. */
static void readers_wait(struct readers *rd, long n)
{
	while (__atomic_load_n(rd->done, __ATOMIC_RELAXED) < n)
		usleep(10000);
}

/* Stops them; the reads they did. */
static long readers_stop(struct __test_metadata *_metadata, struct readers *rd)
{
	int status;
	long n;

	*rd->stop = 1;
	for (int i = 0; i < READERS; i++) {
		EXPECT_EQ(rd->pid[i], waitpid(rd->pid[i], &status, 0));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	n = *rd->done;
	munmap((void *)rd->stop, 4096);
	return n;
}

static uint64_t stats_unattributed(struct genl_sock *s)
{
	struct gp_stats st;

	if (gp_stats(s, &st))
		return UINT64_MAX;
	return st.iommu_unattributed;
}

static uint64_t stats_missed(struct genl_sock *s)
{
	struct gp_stats st;

	if (gp_stats(s, &st))
		return UINT64_MAX;
	return st.missed;
}

static uint64_t stats_recursion(struct genl_sock *s)
{
	struct gp_stats st;

	if (gp_stats(s, &st))
		return UINT64_MAX;
	return st.probe_recursion;
}

/* Both tallies from one stream. */
struct two_tallies {
	struct dma_tally *a, *b;
};

static void two_tallies_cb(void *arg, const uint8_t *recs, size_t len)
{
	struct two_tallies *tt = arg;

	dma_tally_records(tt->a, recs, len);
	dma_tally_records(tt->b, recs, len);
}

/*
 * MAPS edu map/unmap pairs while READERS NVMe readers run, all on CPU 0;
 * the records go to tt.  Returns the reads done, or -1.
 */
static long edu_maps_beside_nvme(struct __test_metadata *_metadata,
				 FIXTURE_DATA(ctx) *self, struct two_tallies *tt,
				 long long *maps, long long *unmaps)
{
	long long maps0, unmaps0;
	struct readers rd;
	char cmd[32];
	long reads;

	maps0 = edu_stat(self->edu, "dma_maps");
	unmaps0 = edu_stat(self->edu, "dma_unmaps");
	EXPECT_GE(maps0, 0);
	EXPECT_GE(unmaps0, 0);

	EXPECT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	/* several, so completions keep landing in edu's calls */
	if (readers_start(_metadata, &rd, 0))
		return -1;
	readers_wait_started(&rd);
	snprintf(cmd, sizeof(cmd), "%d 4096", MAPS);
	EXPECT_EQ(0, edu_ctl(self->edu, "mapbench", cmd));
	reads = readers_stop(_metadata, &rd);
	EXPECT_EQ(0, gp_stop(&self->s));
	gp_recv_records(&self->l, two_tallies_cb, tt);
	*maps = edu_stat(self->edu, "dma_maps") - maps0;
	*unmaps = edu_stat(self->edu, "dma_unmaps") - unmaps0;
	return reads;
}

static void expect_edu_exact(struct __test_metadata *_metadata,
			     const struct dma_tally *t, long long maps,
			     long long unmaps)
{
	EXPECT_EQ(MAPS, maps);
	EXPECT_EQ(MAPS, unmaps);
	EXPECT_EQ(maps, t->calls[GPUPROBE_DMA_MAP_PAGE]);
	EXPECT_EQ(unmaps, t->calls[GPUPROBE_DMA_UNMAP_PAGE]);
	EXPECT_EQ(maps, t->iommu[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(unmaps, t->iommu[GPUPROBE_IOMMU_UNMAP]);
	EXPECT_EQ(4096ULL * maps, t->iommu_bytes[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(4096ULL * unmaps, t->iommu_bytes[GPUPROBE_IOMMU_UNMAP]);
	/* one IOMMU call inside each DMA call, none from the NVMe's irqs */
	EXPECT_EQ(maps + unmaps, t->iommu_calls_in_dma);
	EXPECT_EQ(0, t->no_iommu);
	EXPECT_EQ(0, t->untimed);
}

TEST_F(ctx, nvme_irq_work_not_charged_to_edu)
{
	struct dma_tally other = { .bdf = GPUPROBE_BDF_NONE };
	struct two_tallies tt = { &self->t, &other };
	long long maps, unmaps;
	long reads;

	reads = edu_maps_beside_nvme(_metadata, self, &tt, &maps, &unmaps);
	TH_LOG("edu says %lld maps, %lld unmaps; records: %llu map, %llu unmap, "
	       "%llu iommu map, %llu iommu unmap, %llu iommu calls in dma calls; "
	       "%ld nvme reads beside; %llu unattributed",
	       maps, unmaps,
	       (unsigned long long)self->t.calls[GPUPROBE_DMA_MAP_PAGE],
	       (unsigned long long)self->t.calls[GPUPROBE_DMA_UNMAP_PAGE],
	       (unsigned long long)self->t.iommu[GPUPROBE_IOMMU_MAP],
	       (unsigned long long)self->t.iommu[GPUPROBE_IOMMU_UNMAP],
	       (unsigned long long)self->t.iommu_calls_in_dma, reads,
	       (unsigned long long)stats_unattributed(&self->s));
	expect_edu_exact(_metadata, &self->t, maps, unmaps);
	EXPECT_EQ(0, self->t.foreign);
	EXPECT_GT(reads, 10);
	/* no target call found every kretprobe instance busy */
	EXPECT_EQ(0, stats_missed(&self->s));
}

/*
 * The NVMe a target too: its completion-path calls (hard irq, on top of
 * edu's task) are timed as its own, with its own IOMMU work inside, and
 * edu's numbers stay exact.
 */
TEST_F(ctx, both_targets_each_charged_its_own)
{
	struct dma_tally nvme = {};
	struct two_tallies tt = { &self->t, &nvme };
	long long maps, unmaps;
	uint64_t recursion;
	char bdf[32];
	long reads;

	ASSERT_EQ(0, pci_find(0x1b36, 0x0010, bdf, sizeof(bdf)));
	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_ADD, bdf, 0, 0));
	nvme.bdf = gp_bdf(bdf);
	reads = edu_maps_beside_nvme(_metadata, self, &tt, &maps, &unmaps);
	TH_LOG("edu: %llu map, %llu unmap, %llu iommu map, %llu iommu unmap, "
	       "%llu in calls; nvme (%ld reads): %llu map, %llu unmap, "
	       "%llu iommu map, %llu iommu unmap, %llu in calls, %llu untimed, "
	       "%llu without iommu; %llu probe hits skipped in another's handler",
	       (unsigned long long)self->t.calls[GPUPROBE_DMA_MAP_PAGE],
	       (unsigned long long)self->t.calls[GPUPROBE_DMA_UNMAP_PAGE],
	       (unsigned long long)self->t.iommu[GPUPROBE_IOMMU_MAP],
	       (unsigned long long)self->t.iommu[GPUPROBE_IOMMU_UNMAP],
	       (unsigned long long)self->t.iommu_calls_in_dma, reads,
	       (unsigned long long)nvme.calls[GPUPROBE_DMA_MAP_PAGE],
	       (unsigned long long)nvme.calls[GPUPROBE_DMA_UNMAP_PAGE],
	       (unsigned long long)nvme.iommu[GPUPROBE_IOMMU_MAP],
	       (unsigned long long)nvme.iommu[GPUPROBE_IOMMU_UNMAP],
	       (unsigned long long)nvme.iommu_calls_in_dma,
	       (unsigned long long)nvme.untimed,
	       (unsigned long long)nvme.no_iommu,
	       (unsigned long long)stats_recursion(&self->s));
	expect_edu_exact(_metadata, &self->t, maps, unmaps);
	/*
	 * Every read mapped (in the reader's task).  A completion (hard irq)
	 * that lands in another probe's handler has its probes skipped by the
	 * kernel, counted in probe-recursion: on 6.1 its unmap is not
	 * recorded; on 6.12 the dma: tracepoint still records it, untimed
	 * (flagged) and without its IOMMU call.  Every other NVMe call is
	 * timed, with its IOMMU work inside.
	 */
	recursion = stats_recursion(&self->s);
	EXPECT_EQ(reads, nvme.calls[GPUPROBE_DMA_MAP_PAGE]);
	EXPECT_LE(reads - nvme.calls[GPUPROBE_DMA_UNMAP_PAGE], recursion);
	EXPECT_LE(nvme.untimed, recursion);
	EXPECT_LE(nvme.no_iommu, recursion);
	EXPECT_EQ(nvme.iommu[GPUPROBE_IOMMU_MAP] + nvme.iommu[GPUPROBE_IOMMU_UNMAP],
		  nvme.iommu_calls_in_dma);
}

/*
 * missed counts only the targets' calls.  With one return-probe instance
 * per kretprobe (krp_maxactive=1), NVMe reads on both CPUs keep finding
 * the IOMMU kretprobes' instance busy; those are no target's calls and
 * must not show in missed (before, the IOMMU kretprobes' nmissed, every
 * domain's, was added).  Then edu maps beside them: every edu call is
 * either recorded or counted as missed, exactly.
 */
FIXTURE(tiny) {
	char edu[32];
	struct genl_sock s, l;
};

FIXTURE_SETUP(tiny)
{
	self->s.fd = self->l.fd = -1;
	ASSERT_EQ(0, gp_setup_edu(self->edu, sizeof(self->edu),
				  "krp_maxactive=1", &self->s));
	ASSERT_EQ(0, gp_listen(&self->l, 16 << 20));
}

FIXTURE_TEARDOWN(tiny)
{
	genl_close(&self->l);
	genl_close(&self->s);
	mod_unload("gpuprobe");
	mod_unload("gpuprobe_edu");
}

/*
 * READERS NVMe readers, half on each CPU, until at least reads are done
 * and, with maps, edu has done its map/unmap pairs on CPU 0 beside them.
 * Returns the reads done, or -1.
 */
static long nvme_on_both_cpus(struct __test_metadata *_metadata,
			      FIXTURE_DATA(tiny) *self, long reads, int maps)
{
	struct readers rd;
	char cmd[32];

	if (readers_start(_metadata, &rd, 1))
		return -1;
	if (maps) {
		readers_wait_started(&rd);
		snprintf(cmd, sizeof(cmd), "%d 4096", maps);
		EXPECT_EQ(0, edu_ctl(self->edu, "mapbench", cmd));
	}
	readers_wait(&rd, reads);
	return readers_stop(_metadata, &rd);
}

TEST_F(tiny, other_devices_calls_not_missed)
{
	struct dma_tally t = { .bdf = gp_bdf(self->edu) };
	struct gp_stats st;
	long reads;

	ASSERT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	reads = nvme_on_both_cpus(_metadata, self, 3000, 0);
	ASSERT_EQ(0, gp_stop(&self->s));
	dma_drain(&self->l, &t);
	ASSERT_EQ(0, gp_stats(&self->s, &st));
	TH_LOG("%ld nvme reads on both CPUs, edu idle: missed %llu, "
	       "%llu probe hits skipped in another's handler",
	       reads, (unsigned long long)st.missed,
	       (unsigned long long)st.probe_recursion);
	EXPECT_GE(reads, 3000);
	EXPECT_EQ(0, st.missed);
	EXPECT_EQ(0, t.calls[GPUPROBE_DMA_MAP_PAGE]);
	EXPECT_EQ(0, t.iommu[GPUPROBE_IOMMU_MAP]);
	EXPECT_EQ(0, t.foreign);
}

TEST_F(tiny, target_calls_recorded_or_missed)
{
	struct dma_tally t = { .bdf = gp_bdf(self->edu) };
	long long maps0, unmaps0, maps, unmaps;
	uint64_t recorded;
	struct gp_stats st;
	long reads;

	maps0 = edu_stat(self->edu, "dma_maps");
	unmaps0 = edu_stat(self->edu, "dma_unmaps");
	ASSERT_EQ(0, gp_start(&self->s, DMA_EVENTS));
	reads = nvme_on_both_cpus(_metadata, self, 100, MAPS);
	ASSERT_EQ(0, gp_stop(&self->s));
	EXPECT_EQ(0, gp_recv_records(&self->l, dma_tally_cb, &t));
	maps = edu_stat(self->edu, "dma_maps") - maps0;
	unmaps = edu_stat(self->edu, "dma_unmaps") - unmaps0;
	ASSERT_EQ(0, gp_stats(&self->s, &st));
	recorded = t.calls[GPUPROBE_DMA_MAP_PAGE] +
		   t.calls[GPUPROBE_DMA_UNMAP_PAGE] +
		   t.iommu[GPUPROBE_IOMMU_MAP] + t.iommu[GPUPROBE_IOMMU_UNMAP];
	TH_LOG("edu says %lld maps, %lld unmaps; records: %llu map, %llu unmap, "
	       "%llu iommu map, %llu iommu unmap; missed %llu; %ld nvme reads",
	       maps, unmaps,
	       (unsigned long long)t.calls[GPUPROBE_DMA_MAP_PAGE],
	       (unsigned long long)t.calls[GPUPROBE_DMA_UNMAP_PAGE],
	       (unsigned long long)t.iommu[GPUPROBE_IOMMU_MAP],
	       (unsigned long long)t.iommu[GPUPROBE_IOMMU_UNMAP],
	       (unsigned long long)st.missed, reads);
	EXPECT_EQ(MAPS, maps);
	EXPECT_EQ(MAPS, unmaps);
	EXPECT_EQ(0, st.dropped);
	EXPECT_EQ(0, st.undelivered);
	/* each DMA-API call and each IOMMU call inside it: recorded or missed */
	EXPECT_EQ(2 * (maps + unmaps), recorded + st.missed);
	EXPECT_EQ(0, t.foreign);
}

TEST_HARNESS_MAIN
