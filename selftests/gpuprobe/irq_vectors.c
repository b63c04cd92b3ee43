// SPDX-License-Identifier: GPL-2.0
/*
 * Vectors that change while the driver stays bound (issue 21, item 2):
 * an NVMe controller reset frees every vector and allocates them again,
 * the edu driver's "vectors" file frees its one and takes one again.  The
 * irq numbers move between devices; every record must still name the
 * device that owned its irq when it fired, and none may be missing.
 *
 * Expected values come from the kernel: which irqs each device has (sysfs
 * msi_irqs, read after each change) and how many interrupts each took
 * (/proc/interrupts).  The number of NVMe vectors is steered with nvme's
 * poll_queues parameter (poll queues take no vector), read at each reset:
 * with it at all but one of the I/O queues the controller gives all but two
 * vectors back, at 0 takes them again, and the kernel hands out the lowest
 * free irq numbers, so the ones freed are the next ones allocated.  Everything happens within a few milliseconds of
 * the change: the module's periodic rescan (500 ms) must not be what saves
 * the count.
 */
#include <glob.h>
#include <sys/wait.h>
#include <sched.h>
#include <time.h>

#include "kselftest_harness.h"
#include "session.h"

#define MAX_RECS	200000
#define MAX_IRQS	256
#define POLL_QUEUES	"/sys/module/nvme/parameters/poll_queues"

struct vec_rec {
	uint32_t bdf, irq;
	uint64_t ts;
};

struct vec_log {
	struct vec_rec *r;
	size_t n;
	uint64_t lost;
};

static void vec_log_cb(void *arg, const uint8_t *p, size_t len)
{
	struct vec_log *log = arg;

	while (len >= sizeof(struct gpuprobe_rec_hdr)) {
		const struct gpuprobe_rec_hdr *h = (const void *)p;

		if (h->size < sizeof(*h) || h->size > len)
			break;
		if (h->type == GPUPROBE_EV_IRQ && log->n < MAX_RECS) {
			const struct gpuprobe_rec_irq *r = (const void *)p;

			log->r[log->n++] = (struct vec_rec){ r->bdf, r->irq,
							     h->ts_ns };
		} else if (h->type == GPUPROBE_EV_LOST) {
			log->lost += ((const struct gpuprobe_rec_lost *)p)->count;
		}
		p += h->size;
		len -= h->size;
	}
}

/* Records of bdf on one of irqs[] stamped within [t0, t1]; all if t1 is 0. */
static long long vec_log_count(const struct vec_log *log, uint32_t bdf,
			       const int *irqs, int nirq, uint64_t t0,
			       uint64_t t1)
{
	long long n = 0;

	for (size_t i = 0; i < log->n; i++) {
		const struct vec_rec *r = &log->r[i];

		if (r->bdf != bdf || (t1 && (r->ts < t0 || r->ts > t1)))
			continue;
		for (int j = 0; j < nirq; j++)
			if (r->irq == (uint32_t)irqs[j]) {
				n++;
				break;
			}
	}
	return n;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The interrupts of irqs[] in /proc/interrupts, in one read: a read per irq
 * of NVMe's 65 would take long enough under TCG for the module's periodic
 * rescan to catch up.
 */
static long long irqs_sum(const int *irqs, int n)
{
	FILE *f = fopen("/proc/interrupts", "re");
	char line[8192], *p, *end;
	long long sum = 0;
	int ncpu = 0, irq;

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		for (p = strtok(line, " \t\n"); p; p = strtok(NULL, " \t\n"))
			ncpu++;
	while (fgets(line, sizeof(line), f)) {
		irq = strtol(line, &end, 10);
		if (*end != ':')
			continue;
		for (int i = 0; i < n; i++) {
			if (irqs[i] != irq)
				continue;
			p = end + 1;
			for (int c = 0; c < ncpu; c++)
				sum += strtoll(p, &p, 10);
			break;
		}
	}
	fclose(f);
	return sum;
}

/* Waits until the irqs take no interrupt for 20 ms (a reset's admin tail). */
static void irqs_quiet(const int *irqs, int n)
{
	long long last = -1, now;

	for (int i = 0; i < 100; i++) {
		now = irqs_sum(irqs, n);
		if (now == last)
			return;
		last = now;
		usleep(20000);
	}
}

static bool irq_in(int irq, const int *irqs, int n)
{
	for (int i = 0; i < n; i++)
		if (irqs[i] == irq)
			return true;
	return false;
}

FIXTURE(vec) {
	char edu[32], nvme[32], ctrl[64];
	uint32_t edu_bdf, nvme_bdf;
	struct genl_sock s, l;
	struct vec_log log;
	void *buf;
	int fd, ncpu;
};

/* Resets the controller with poll_queues at poll; its irqs after. */
static int nvme_reset(FIXTURE_DATA(vec) *self, const char *poll, int *irqs)
{
	char path[128];

	if (write_file(POLL_QUEUES, poll))
		return -1;
	snprintf(path, sizeof(path), "%s/reset_controller", self->ctrl);
	if (write_file(path, "1"))
		return -1;
	return pci_msi_irqs(self->nvme, irqs, MAX_IRQS);
}

/* n O_DIRECT reads, spread over every CPU: each queue's vector takes some. */
static void nvme_reads(struct __test_metadata *_metadata,
		       FIXTURE_DATA(vec) *self, int n)
{
	cpu_set_t set;

	for (int i = 0; i < n; i++) {
		CPU_ZERO(&set);
		CPU_SET(i % self->ncpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		ASSERT_EQ(4096, pread(self->fd, self->buf, 4096,
				      (off_t)(i % 256) * 4096));
	}
	CPU_ZERO(&set);
	for (int i = 0; i < self->ncpu; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

FIXTURE_SETUP(vec)
{
	char pattern[160], param[128];
	glob_t g;

	self->s.fd = self->l.fd = self->fd = -1;
	self->buf = NULL;
	self->log.r = calloc(MAX_RECS, sizeof(*self->log.r));
	ASSERT_NE(NULL, self->log.r);
	ASSERT_EQ(0, edu_find(self->edu, sizeof(self->edu)));
	ASSERT_EQ(0, pci_find(0x1b36, 0x0010, self->nvme, sizeof(self->nvme)));
	self->edu_bdf = gp_bdf(self->edu);
	self->nvme_bdf = gp_bdf(self->nvme);
	snprintf(pattern, sizeof(pattern), "/sys/bus/pci/devices/%s/nvme/nvme*",
		 self->nvme);
	ASSERT_EQ(0, glob(pattern, 0, NULL, &g));
	snprintf(self->ctrl, sizeof(self->ctrl), "%s", g.gl_pathv[0]);
	globfree(&g);
	if (access(POLL_QUEUES, W_OK))
		SKIP(return, "nvme has no writable poll_queues parameter");
	self->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (!mod_loaded("gpuprobe_edu"))
		ASSERT_EQ(0, mod_load(EDU_KO, NULL));
	if (mod_loaded("gpuprobe"))
		ASSERT_EQ(0, mod_unload("gpuprobe"));
	/* the NVMe first: where both claim an irq, edu's claim is the map's */
	snprintf(param, sizeof(param), "target=%s,%s", self->nvme, self->edu);
	ASSERT_EQ(0, mod_load(GPUPROBE_KO, param));
	ASSERT_EQ(0, genl_open(&self->s, GPUPROBE_FAMILY_NAME, NULL));
	ASSERT_EQ(0, gp_listen(&self->l, 8 << 20));
	self->fd = nvme_disk_open(O_RDONLY | O_DIRECT);
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, posix_memalign(&self->buf, 4096, 4096));
}

FIXTURE_TEARDOWN(vec)
{
	int irqs[MAX_IRQS];

	if (self->fd >= 0)
		close(self->fd);
	free(self->buf);
	genl_close(&self->l);
	genl_close(&self->s);
	mod_unload("gpuprobe");
	/* the next tests find the controller as it booted */
	if (!access(POLL_QUEUES, W_OK))
		nvme_reset(self, "0", irqs);
	mod_unload("gpuprobe_edu");
	free(self->log.r);
}

static void drain(FIXTURE_DATA(vec) *self)
{
	gp_recv_records(&self->l, vec_log_cb, &self->log);
}

/* The vectors' interrupts in [t0, t1] of records, for those of fresh[]. */
static long long fresh_share(const int *irqs, int n, const int *old, int nold)
{
	int fresh[MAX_IRQS], nf = 0;

	for (int i = 0; i < n; i++)
		if (!irq_in(irqs[i], old, nold))
			fresh[nf++] = irqs[i];
	return irqs_sum(fresh, nf);
}

/*
 * (a) The NVMe alone.  Before START it shrinks to two vectors and edu takes
 * the number after them; the reset while recording gives the NVMe its
 * queues back on numbers past edu's, new to the session, and the reads
 * right after (on every CPU's queue) are recorded, every interrupt.
 */
TEST_F(vec, nvme_reset_every_interrupt_recorded)
{
	int before[MAX_IRQS], after[MAX_IRQS], nb, na, n0;
	long long p0, p1, fresh0, fresh1;
	char poll[16];
	uint64_t t0, t1;

	n0 = pci_msi_irqs(self->nvme, after, MAX_IRQS);
	ASSERT_GT(n0, 2);
	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_DEL, self->edu, 0, 0));
	snprintf(poll, sizeof(poll), "%d", n0 - 2);
	nb = nvme_reset(self, poll, before);
	ASSERT_EQ(2, nb);
	ASSERT_EQ(0, edu_ctl(self->edu, "vectors", "free"));
	ASSERT_EQ(0, edu_ctl(self->edu, "vectors", "alloc"));
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	usleep(100000);		/* START's rescan has run: the map is settled */

	na = nvme_reset(self, "0", after);
	ASSERT_EQ(n0, na);
	irqs_quiet(after, na);
	p0 = irqs_sum(after, na);
	fresh0 = fresh_share(after, na, before, nb);
	t0 = mono_ns();
	nvme_reads(_metadata, self, 200);
	p1 = irqs_sum(after, na);
	fresh1 = fresh_share(after, na, before, nb);
	/* after the count: an interrupt it took is stamped before this */
	t1 = mono_ns();
	ASSERT_EQ(0, gp_stop(&self->s));
	drain(self);

	TH_LOG("vectors %d -> %d; %lld interrupts, %lld on numbers new to it; %zu records (%lld in the window, %lld of the NVMe's in all), lost %llu",
	       nb, na, p1 - p0, fresh1 - fresh0, self->log.n,
	       vec_log_count(&self->log, self->nvme_bdf, after, na, t0, t1),
	       vec_log_count(&self->log, self->nvme_bdf, after, na, 0, 0),
	       (unsigned long long)self->log.lost);
	if (fresh1 == fresh0)
		SKIP(return, "no read reached a vector on a new number");
	EXPECT_GE(p1 - p0, 200);
	EXPECT_EQ(0, self->log.lost);
	EXPECT_EQ(p1 - p0, vec_log_count(&self->log, self->nvme_bdf, after, na,
					 t0, t1));
}

/*
 * (b) Two targets trading irq numbers.  The NVMe gives all but two of its
 * vectors back at a reset and edu, freeing its own, takes the first of
 * them: edu's interrupts are edu's.  Later edu gives that number back and
 * the NVMe takes it again at its next reset: the NVMe's are the NVMe's.
 */
TEST_F(vec, reused_vector_never_charged_to_previous_owner)
{
	int nv0[MAX_IRQS], nv1[MAX_IRQS], nv2[MAX_IRQS], n0, n1, n2;
	int edu_old, edu_new, status;
	long long e0, e1, p0, p1, took0, took1;
	bool locked;
	pid_t holder;
	char poll[16];
	uint64_t t0, t1, t2, t3;

	/* edu's number above the NVMe's: freed ones are below it */
	ASSERT_EQ(0, edu_ctl(self->edu, "vectors", "free"));
	n0 = nvme_reset(self, "0", nv0);
	ASSERT_GT(n0, 2);
	ASSERT_EQ(0, edu_ctl(self->edu, "vectors", "alloc"));
	edu_old = (int)edu_stat(self->edu, "irq");
	ASSERT_GT(edu_old, 0);
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	usleep(100000);

	/* the NVMe gives numbers back; edu, freeing its own, takes one */
	snprintf(poll, sizeof(poll), "%d", n0 - 2);
	n1 = nvme_reset(self, poll, nv1);
	ASSERT_EQ(0, edu_ctl(self->edu, "vectors", "free"));
	ASSERT_EQ(0, edu_ctl(self->edu, "vectors", "alloc"));
	edu_new = (int)edu_stat(self->edu, "irq");
	e0 = proc_irq_count(edu_new);
	t0 = mono_ns();
	ASSERT_EQ(0, edu_ctl(self->edu, "irq", "200"));
	e1 = proc_irq_count(edu_new);
	t1 = mono_ns();

	/*
	 * Past any rescan (the map knows edu's number), edu lets it go and
	 * the NVMe's reset takes it for its second queue at once.  edu's
	 * device lock is held meanwhile (as a driver probe or remove holds
	 * it): no rescan can re-read edu, so the map still gives edu the
	 * number the NVMe now has, and only ownership can tell.
	 */
	usleep(700000);
	holder = fork();
	ASSERT_GE(holder, 0);
	if (!holder)
		_exit(edu_ctl(self->edu, "hold_lock", "5000") ? 1 : 0);
	usleep(200000);
	ASSERT_EQ(0, edu_ctl(self->edu, "vectors", "free"));
	n2 = nvme_reset(self, "0", nv2);
	irqs_quiet(nv2, n2);
	p0 = irqs_sum(nv2, n2);
	took0 = proc_irq_count(edu_new);
	t2 = mono_ns();
	nvme_reads(_metadata, self, 200);
	p1 = irqs_sum(nv2, n2);
	took1 = proc_irq_count(edu_new);
	t3 = mono_ns();
	locked = waitpid(holder, &status, WNOHANG) == 0;
	waitpid(holder, &status, 0);
	ASSERT_EQ(0, gp_stop(&self->s));
	drain(self);

	TH_LOG("nvme %d -> %d -> %d vectors; edu irq %d -> %d; the NVMe took %d back: %lld interrupts%s; %zu records",
	       n0, n1, n2, edu_old, edu_new, irq_in(edu_new, nv2, n2) ? edu_new : -1,
	       took1 - took0, locked ? " (edu's lock held throughout)" : "",
	       self->log.n);
	EXPECT_EQ(0, WEXITSTATUS(status));
	if (!irq_in(edu_new, nv0, n0) || irq_in(edu_new, nv1, n1))
		SKIP(return, "edu did not get a number the NVMe gave back");
	EXPECT_EQ(0, self->log.lost);
	EXPECT_EQ(200, e1 - e0);
	/* edu's interrupts on the NVMe's old number: edu's, all of them */
	EXPECT_EQ(e1 - e0, vec_log_count(&self->log, self->edu_bdf, &edu_new, 1,
					 t0, t1));
	EXPECT_EQ(0, vec_log_count(&self->log, self->nvme_bdf, &edu_new, 1,
				   t0, t1));
	if (!irq_in(edu_new, nv2, n2) || took1 == took0)
		SKIP(return, "the NVMe's reads did not reach edu's old number");
	/* the NVMe's on edu's old number: the NVMe's, all of them */
	EXPECT_GE(p1 - p0, 200);
	EXPECT_EQ(p1 - p0, vec_log_count(&self->log, self->nvme_bdf, nv2, n2,
					 t2, t3));
	EXPECT_EQ(took1 - took0, vec_log_count(&self->log, self->nvme_bdf,
					       &edu_new, 1, t2, t3));
	EXPECT_EQ(0, vec_log_count(&self->log, self->edu_bdf, &edu_new, 1,
				   t2, t3));
}

/*
 * No vector limit: the NVMe of the test VM has 65 (possible_cpus=128,
 * QEMU's 64 queue pairs and admin), one more than the module once kept.
 * TARGET_GET lists every one, the last included.
 */
TEST_F(vec, every_vector_of_a_large_device_followed)
{
	int irqs[MAX_IRQS], n, last = 0;

	n = pci_msi_irqs(self->nvme, irqs, MAX_IRQS);
	ASSERT_GT(n, 0);
	for (int i = 0; i < n; i++)
		if (irqs[i] > last)
			last = irqs[i];
	TH_LOG("the NVMe has %d vectors on %ld CPUs", n, sysconf(_SC_NPROCESSORS_ONLN));
	/* one I/O queue a CPU and the admin queue's: tier 3d's 64 vCPUs, 65 */
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 64) {
		EXPECT_GT(n, 64);
	} else if (n <= 64) {
		TH_LOG("64 or fewer: only that every one is listed is checked");
	}
	EXPECT_EQ(n, gp_target_nvec(&self->s, self->nvme));
	EXPECT_EQ(1, gp_target_has_irq(&self->s, self->nvme, last));
}

TEST_HARNESS_MAIN
