// SPDX-License-Identifier: GPL-2.0
/*
 * Races between the module's control paths and the rest of the kernel:
 * queries during unload, a target device removed during an IOMMU session,
 * an unbind while a target is added, and a control op stuck on a device
 * lock while other netlink families must go on.  Some of these only crash
 * on a KASAN kernel (the debug tier); here they must at least stay sane.
 */
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "session.h"

FIXTURE(races) {
	char edu[32];
	struct genl_sock s;
};

FIXTURE_SETUP(races)
{
	ASSERT_EQ(0, gp_setup_edu(self->edu, sizeof(self->edu), NULL, &self->s));
}

FIXTURE_TEARDOWN(races)
{
	genl_close(&self->s);
	mod_unload("gpuprobe");
	mod_unload("gpuprobe_edu");
}

static int summary_get(struct genl_sock *s)
{
	struct genl_msg *m = calloc(1, sizeof(*m));
	int err;

	genl_msg_init(m, s->family, 0, GPUPROBE_CMD_SUMMARY_GET);
	err = genl_xfer(s, m, NULL, NULL);
	free(m);
	return err;
}

/* Asks for the summary as fast as it can, as nobody, until killed. */
static void summary_hammer(void)
{
	struct genl_sock s;

	if (setgid(65534) || setuid(65534))
		_exit(99);
	for (;;) {
		if (genl_open(&s, GPUPROBE_FAMILY_NAME, NULL)) {
			genl_close(&s);
			continue;	/* unloaded: wait for the next load */
		}
		for (int i = 0; i < 1000; i++)
			if (summary_get(&s) == -ENOENT)
				break;
		genl_close(&s);
	}
}

static int start_summary(struct genl_sock *s)
{
	struct genl_msg *m = calloc(1, sizeof(*m));
	int err;

	genl_msg_init(m, s->family, 0, GPUPROBE_CMD_START);
	genl_put_u32(m, GPUPROBE_A_EVENT_MASK, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));
	genl_put(m, GPUPROBE_A_SUMMARY, NULL, 0);
	err = genl_xfer(s, m, NULL, NULL);
	free(m);
	return err;
}

/* SUMMARY_GET (unprivileged) racing the histograms' freeing at unload. */
TEST_F(races, summary_get_during_unload)
{
	char param[64];
	int status;
	pid_t pid;

	snprintf(param, sizeof(param), "target=%s", self->edu);
	genl_close(&self->s);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		summary_hammer();
	for (int i = 0; i < 15; i++) {
		if (!mod_loaded("gpuprobe"))
			ASSERT_EQ(0, mod_load(GPUPROBE_KO, param));
		ASSERT_EQ(0, genl_open(&self->s, GPUPROBE_FAMILY_NAME, NULL));
		ASSERT_EQ(0, start_summary(&self->s));
		ASSERT_EQ(0, edu_ctl(self->edu, "irq", "20"));
		if (i & 1)
			ASSERT_EQ(0, gp_stop(&self->s));
		genl_close(&self->s);
		usleep(20000);
		for (int tries = 0; mod_unload("gpuprobe"); tries++) {
			ASSERT_LT(tries, 1000);
			usleep(1000);
		}
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

/*
 * The target device removed while an IOMMU session runs and other devices
 * (NVMe) map through the IOMMU: the probes must never look at the removed
 * device again.  With fault injection (debug kernels), the map publish of
 * the removal is made to fail too.
 */
static void nvme_io(void)
{
	static char buf[4096] __attribute__((aligned(4096)));
	int fd = nvme_disk_open(O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd < 0)
		_exit(0);
	for (;;)
		for (off_t off = 0; off < (32 << 20); off += 1 << 20)
			if (pread(fd, buf, sizeof(buf), off) < 0)
				_exit(1);
}

static bool fail_nth_available(void)
{
	return !access("/proc/self/fail-nth", W_OK) &&
	       !write_file("/sys/kernel/debug/failslab/ignore-gfp-wait", "N");
}

static int remove_device(const char *bdf, int nth)
{
	char path[128], n[16];
	int err;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", bdf);
	if (nth) {
		snprintf(n, sizeof(n), "%d", nth);
		write_file("/proc/thread-self/fail-nth", n);
	}
	err = write_file(path, "1");
	if (nth)
		write_file("/proc/thread-self/fail-nth", "0");
	return err;
}

TEST_F_TIMEOUT(races, target_removed_during_iommu_session, 600)
{
	const uint32_t mask = GPUPROBE_EVMASK(GPUPROBE_EV_IRQ) |
			      GPUPROBE_EVMASK(GPUPROBE_EV_DMA) |
			      GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU);
	int rounds = fail_nth_available() ? 6 : 2, status;
	char targets[256];
	pid_t io;

	io = fork();
	ASSERT_GE(io, 0);
	if (io == 0)
		nvme_io();
	for (int i = 0; i < rounds; i++) {
		char path[128];

		ASSERT_EQ(0, gp_start(&self->s, mask));
		ASSERT_EQ(0, edu_ctl(self->edu, "dma", "to_device 8192"));
		/* fail-nth: the i-th allocation of the removal fails */
		remove_device(self->edu, i);
		usleep(300000);	/* NVMe maps go past the IOMMU probes */
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s",
			 self->edu);
		if (!access(path, F_OK)) {
			/* the injected failure stopped the removal itself */
			ASSERT_NE(0, i);
			ASSERT_EQ(0, gp_stop(&self->s));
			continue;
		}
		ASSERT_EQ(0, gp_targets(&self->s, targets));
		EXPECT_STREQ("", targets);
		ASSERT_EQ(0, gp_stop(&self->s));
		ASSERT_EQ(0, write_file("/sys/bus/pci/rescan", "1"));
		ASSERT_EQ(0, edu_find(self->edu, sizeof(self->edu)));
		ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_ADD,
				    self->edu, 0, 0));
	}
	kill(io, SIGKILL);
	waitpid(io, &status, 0);
}

struct add_arg {
	struct genl_sock *s;
	const char *bdf;
	int err;
	double took;
};

static void *target_add_thread(void *p)
{
	struct add_arg *a = p;
	double t0 = now_s();

	a->err = gp_cmd(a->s, GPUPROBE_CMD_TARGET_ADD, a->bdf, 0, 0);
	a->took = now_s() - t0;
	return NULL;
}

static void *hold_lock_thread(void *p)
{
	edu_ctl(p, "hold_lock", "3000");
	return NULL;
}

/*
 * TARGET_ADD waits for the device lock.  Meanwhile other generic netlink
 * families (here the controller resolving a family) must be answered: the
 * family must not hold genl_mutex while it waits.
 */
TEST_F(races, target_add_blocked_on_device_lock_stalls_nobody)
{
	struct genl_sock other, adder;
	struct add_arg a = { .s = &adder, .bdf = self->edu };
	pthread_t holder, add;
	double t0, took;

	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_DEL, self->edu, 0, 0));
	ASSERT_EQ(0, genl_open(&adder, GPUPROBE_FAMILY_NAME, NULL));
	ASSERT_EQ(0, pthread_create(&holder, NULL, hold_lock_thread, self->edu));
	usleep(300000);
	ASSERT_EQ(0, pthread_create(&add, NULL, target_add_thread, &a));
	usleep(300000);
	t0 = now_s();
	ASSERT_EQ(0, genl_open(&other, "nlctrl", NULL));
	took = now_s() - t0;
	genl_close(&other);
	pthread_join(add, NULL);
	pthread_join(holder, NULL);
	genl_close(&adder);
	TH_LOG("family lookup took %.3f s; TARGET_ADD %.3f s", took, a.took);
	EXPECT_LT(took, 1.0);
	EXPECT_EQ(0, a.err);
	EXPECT_GT(a.took, 1.5);		/* it did wait for the lock */
}

static void *unbind_thread(void *p)
{
	write_file("/sys/bus/pci/drivers/gpuprobe_edu/unbind", p);
	return NULL;
}

/*
 * An unbind racing TARGET_ADD: whatever the order, the target must end
 * with the vectors of the device as it is now (unbound: none), never with
 * the irq numbers the unbind freed.
 */
/* 40 rounds ran past the default 30 s under KASAN on a loaded 2-core host */
TEST_F_TIMEOUT(races, unbind_racing_target_add_leaves_no_stale_vectors, 600)
{
	struct add_arg a = { .s = &self->s, .bdf = self->edu };
	pthread_t unbind, add;

	for (int i = 0; i < 40; i++) {
		ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_DEL,
				    self->edu, 0, 0));
		ASSERT_EQ(0, pthread_create(&unbind, NULL, unbind_thread,
					    self->edu));
		ASSERT_EQ(0, pthread_create(&add, NULL, target_add_thread, &a));
		pthread_join(add, NULL);
		pthread_join(unbind, NULL);
		ASSERT_EQ(0, a.err);
		EXPECT_EQ(0, gp_target_nvec(&self->s, self->edu));
		ASSERT_EQ(0, write_file("/sys/bus/pci/drivers/gpuprobe_edu/bind",
					self->edu));
		EXPECT_EQ(1, gp_target_nvec(&self->s, self->edu));
	}
}

TEST_HARNESS_MAIN
