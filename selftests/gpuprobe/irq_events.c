// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupt records are exact: the edu device raises N interrupts and
 * gpuprobe delivers exactly N records for it, as many as the kernel's own
 * /proc/interrupts counted; other devices' interrupts never appear; overload
 * loses records only where the loss is counted.
 */
#include <sched.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "session.h"

FIXTURE(irq) {
	char edu[32];
	uint32_t edu_bdf;
	int edu_irq;
	struct genl_sock s;	/* control */
	struct genl_sock l;	/* events */
	struct gp_tally t;
};

static void load_gpuprobe(struct __test_metadata *_metadata,
			  FIXTURE_DATA(irq) *self, const char *extra)
{
	char param[160];

	if (mod_loaded("gpuprobe"))
		ASSERT_EQ(0, mod_unload("gpuprobe"));
	snprintf(param, sizeof(param), "target=%s %s", self->edu,
		 extra ? extra : "");
	ASSERT_EQ(0, mod_load(GPUPROBE_KO, param));
	ASSERT_EQ(0, genl_open(&self->s, GPUPROBE_FAMILY_NAME, NULL));
}

FIXTURE_SETUP(irq)
{
	ASSERT_EQ(0, edu_find(self->edu, sizeof(self->edu)));
	self->edu_bdf = gp_bdf(self->edu);
	if (!mod_loaded("gpuprobe_edu"))
		ASSERT_EQ(0, mod_load(EDU_KO, NULL));
	self->edu_irq = (int)edu_stat(self->edu, "irq");
	ASSERT_GT(self->edu_irq, 0);
	self->s.fd = self->l.fd = -1;
	load_gpuprobe(_metadata, self, NULL);
	memset(&self->t, 0, sizeof(self->t));
	self->t.bdf = self->edu_bdf;
	self->t.irqno = self->edu_irq;
}

FIXTURE_TEARDOWN(irq)
{
	genl_close(&self->l);
	genl_close(&self->s);
	mod_unload("gpuprobe");
	mod_unload("gpuprobe_edu");
}

static void raise_irqs(struct __test_metadata *_metadata,
		       FIXTURE_DATA(irq) *self, const char *file, int n)
{
	char cmd[32];

	snprintf(cmd, sizeof(cmd), "%d", n);
	ASSERT_EQ(0, edu_ctl(self->edu, file, cmd));
}

TEST_F(irq, exact_count_matches_proc_interrupts)
{
	const int n = 2000;
	struct gp_stats st;
	long long before, delta;

	ASSERT_EQ(0, gp_listen(&self->l, 4 << 20));
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	before = proc_irq_count(self->edu_irq);
	raise_irqs(_metadata, self, "irq", n);
	delta = proc_irq_count(self->edu_irq) - before;
	ASSERT_EQ(0, gp_stop(&self->s));
	gp_drain(&self->l, &self->t);

	EXPECT_EQ(n, delta);
	EXPECT_EQ(n, self->t.irq[1]);
	EXPECT_EQ(0, self->t.irq[0]);
	EXPECT_EQ(0, self->t.irq_wrong_irq);
	EXPECT_EQ(0, self->t.unhandled);
	EXPECT_EQ(0, self->t.ts_backwards);
	EXPECT_EQ(0, self->t.bad_duration);
	EXPECT_EQ(0, self->t.lost);
	EXPECT_EQ(0, self->t.enobufs);
	ASSERT_EQ(0, gp_stats(&self->s, &st));
	EXPECT_EQ(n, st.captured);
	EXPECT_EQ(0, st.dropped);
	EXPECT_EQ(0, st.undelivered);
	EXPECT_EQ(n * sizeof(struct gpuprobe_rec_irq), st.bytes);
	EXPECT_FALSE(st.running);
}

/* Runs of the drain work in the kernel's own trace (workqueue events), or -1. */
static int drain_runs_during(int ms)
{
	const char *t = "/sys/kernel/tracing";
	char path[128], line[512];
	int n = 0, fd;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", t);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);	/* clears it */
	if (fd < 0)
		return -1;
	close(fd);
	snprintf(path, sizeof(path), "%s/events/workqueue/workqueue_execute_start/enable", t);
	if (write_file(path, "1"))
		return -1;
	usleep(ms * 1000);
	write_file(path, "0");
	snprintf(path, sizeof(path), "%s/trace", t);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "gpuprobe_drain_fn") != NULL;
	fclose(f);
	return n;
}

/*
 * The drain sleeps while nothing happens (before: a run every drain_ms, 4
 * ms), and the first record wakes it: records still arrive.
 */
TEST_F(irq, drain_sleeps_when_idle)
{
	long long proc;
	uint64_t rec;
	int idle;

	ASSERT_EQ(0, gp_listen(&self->l, 1 << 20));
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	usleep(100000);		/* the run START queues */
	idle = drain_runs_during(1000);
	ASSERT_GE(idle, 0);
	TH_LOG("drain runs in 1 s idle: %d", idle);
	EXPECT_LE(idle, 1);
	ASSERT_EQ(0, gp_raise_and_count(&self->l, &self->t, self->edu, 3, &proc, &rec));
	EXPECT_EQ(3, proc);
	EXPECT_EQ(3, rec);
	ASSERT_EQ(0, gp_stop(&self->s));
}

TEST_F(irq, nothing_recorded_when_stopped)
{
	ASSERT_EQ(0, gp_listen(&self->l, 0));
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	ASSERT_EQ(0, gp_stop(&self->s));
	raise_irqs(_metadata, self, "irq", 100);
	gp_drain(&self->l, &self->t);
	EXPECT_EQ(0, self->t.irq_total);
}

/* NVMe as the only target: its I/O is recorded, edu's interrupts are not. */
TEST_F(irq, only_targeted_device_recorded)
{
	char nvme[32], targets[256];
	uint32_t nvme_bdf;
	/* NVMe has a vector per I/O queue, up to one per possible CPU */
	long long before[256] = {}, delta = 0;
	int irqs[256], nirq = 0, fd, i;
	void *buf;

	ASSERT_EQ(0, pci_find(0x1b36, 0x0010, nvme, sizeof(nvme)));
	nvme_bdf = gp_bdf(nvme);
	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_DEL, self->edu, 0, 0));
	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_ADD, nvme, 0, 0));
	ASSERT_EQ(0, gp_targets(&self->s, targets));
	EXPECT_STREQ(nvme, targets);
	nirq = pci_msi_irqs(nvme, irqs, 256);
	ASSERT_GT(nirq, 0);

	ASSERT_EQ(0, gp_listen(&self->l, 4 << 20));
	self->t.bdf = nvme_bdf;
	self->t.irqno = 0;
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	for (i = 0; i < nirq; i++)
		before[i] = proc_irq_count(irqs[i]);
	raise_irqs(_metadata, self, "irq", 300);
	fd = nvme_disk_open(O_RDONLY | O_DIRECT);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, posix_memalign(&buf, 4096, 4096));
	for (i = 0; i < 200; i++)
		ASSERT_EQ(4096, pread(fd, buf, 4096, (off_t)i * 4096));
	close(fd);
	free(buf);
	for (i = 0; i < nirq; i++)
		delta += proc_irq_count(irqs[i]) - before[i];
	ASSERT_EQ(0, gp_stop(&self->s));
	gp_drain(&self->l, &self->t);

	EXPECT_GE(delta, 200);
	EXPECT_EQ(delta, self->t.irq[1]);
	EXPECT_EQ(0, self->t.irq[0]);
}

/* The edu vector handled on CPU irq_cpu, this thread run on CPU writer_cpu. */
static void place(struct __test_metadata *_metadata, FIXTURE_DATA(irq) *self,
		  int irq_cpu, int writer_cpu)
{
	char path[64], cpu[16], got[16] = "";
	cpu_set_t set;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", self->edu_irq);
	snprintf(cpu, sizeof(cpu), "%d", irq_cpu);
	ASSERT_EQ(0, write_file(path, cpu));
	snprintf(path, sizeof(path), "/proc/irq/%d/effective_affinity_list",
		 self->edu_irq);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(got, sizeof(got), f));
	fclose(f);
	ASSERT_EQ(irq_cpu, atoi(got));
	CPU_ZERO(&set);
	CPU_SET(writer_cpu, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
}

/*
 * 5000 interrupts raised back to back with the module loaded with params,
 * the vector on CPU 0 and the thread raising them on writer_cpu: every one
 * received or counted lost, in-band and in stats.  Returns the count lost.
 */
static unsigned long long overflow_run(struct __test_metadata *_metadata,
				       FIXTURE_DATA(irq) *self, const char *params,
				       int writer_cpu)
{
	struct gp_stats st;
	long long before, delta;

	genl_close(&self->s);
	memset(&self->t, 0, sizeof(self->t));
	self->t.bdf = self->edu_bdf;
	self->t.irqno = self->edu_irq;
	load_gpuprobe(_metadata, self, params);
	EXPECT_EQ(0, gp_listen(&self->l, 8 << 20));
	EXPECT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	place(_metadata, self, 0, writer_cpu);
	before = proc_irq_count(self->edu_irq);
	raise_irqs(_metadata, self, "irq", 5000);
	delta = proc_irq_count(self->edu_irq) - before;
	EXPECT_EQ(0, gp_stop(&self->s));
	gp_drain(&self->l, &self->t);
	EXPECT_EQ(0, gp_stats(&self->s, &st));
	genl_close(&self->l);
	TH_LOG("%s, writer on CPU %d: generated %lld received %llu lost %llu",
	       params, writer_cpu, delta,
	       (unsigned long long)self->t.irq[1], (unsigned long long)self->t.lost);
	EXPECT_EQ(st.dropped, self->t.lost);
	EXPECT_EQ(0, st.undelivered);
	EXPECT_EQ(delta, self->t.irq[1] + self->t.lost);
	EXPECT_EQ(st.captured, self->t.irq[1]);
	return self->t.lost;
}

/* Ring overflow: what does not fit is counted, in-band and in stats. */
TEST_F(irq, ring_overflow_counted_exactly)
{
	/* no drain while the ring fills: not on a timer, not hurried */
	EXPECT_GT(overflow_run(_metadata, self,
			       "ring_slots=64 drain_ms=2000 wake_ms=2000 hurry=0", 0), 0);
}

/*
 * No drain for 2 s by the timers, a 2048-slot ring, 5000 interrupts raised
 * back to back: without the hurry the ring keeps what fits; hurried (a ring
 * passing a quarter full moves the drain to now) it loses a small part at most
 * (how small depends on when the drain's worker gets a CPU: 0 to 282 of
 * 5000 with a 1024-slot ring under TCG).  Raised from the vector's own CPU
 * too: there each interrupt is handled before edu's loop waits for it, so the
 * loop never sleeps, and a PREEMPT_NONE kernel (the debug kernel) never runs
 * the drain asked on that CPU: the one asked of the other CPU must keep up.
 */
TEST_F(irq, hurried_drain_keeps_up)
{
	const char *p = "ring_slots=2048 drain_ms=2000 wake_ms=2000";
	unsigned long long lost_slow, lost_here, lost_other;
	char slow[96];

	ASSERT_GE(sysconf(_SC_NPROCESSORS_ONLN), 2);
	snprintf(slow, sizeof(slow), "%s hurry=0", p);
	lost_slow = overflow_run(_metadata, self, slow, 0);
	lost_here = overflow_run(_metadata, self, p, 0);
	lost_other = overflow_run(_metadata, self, p, 1);
	EXPECT_GT(lost_slow, 0);
	EXPECT_LT(lost_here * 4, lost_slow);
	EXPECT_LT(lost_other * 4, lost_slow);
}

/*
 * A reader too slow for the interrupt rate (each interrupt is raised as soon
 * as the last was handled; the edu "storm" file raises faster, but the APIC
 * merges most of those): every record is received or counted. */
TEST_F_TIMEOUT(irq, slow_reader_loss_counted_exactly, 120)
{
	struct gp_stats st;
	long long before, delta;

	ASSERT_EQ(0, gp_listen(&self->l, 4096));
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	before = proc_irq_count(self->edu_irq);
	raise_irqs(_metadata, self, "irq", 20000);
	delta = proc_irq_count(self->edu_irq) - before;
	ASSERT_EQ(0, gp_stop(&self->s));
	gp_drain(&self->l, &self->t);
	ASSERT_EQ(0, gp_stats(&self->s, &st));

	TH_LOG("generated %lld received %llu undelivered %llu dropped %llu",
	       delta, (unsigned long long)self->t.irq[1],
	       (unsigned long long)st.undelivered,
	       (unsigned long long)st.dropped);
	EXPECT_GT(self->t.enobufs, 0);
	EXPECT_GT(st.undelivered, 0);
	EXPECT_EQ(delta, self->t.irq[1] + st.undelivered + st.dropped);
}

/* Two listeners see the same records. */
TEST_F(irq, two_listeners)
{
	struct genl_sock l2;
	struct gp_tally t2 = { .bdf = self->edu_bdf };

	ASSERT_EQ(0, gp_listen(&self->l, 4 << 20));
	ASSERT_EQ(0, gp_listen(&l2, 4 << 20));
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	raise_irqs(_metadata, self, "irq", 500);
	ASSERT_EQ(0, gp_stop(&self->s));
	gp_drain(&self->l, &self->t);
	gp_drain(&l2, &t2);
	genl_close(&l2);
	EXPECT_EQ(500, self->t.irq[1]);
	EXPECT_EQ(500, t2.irq[1]);
}

/* Unbind and rebind the target's driver mid-trace: followed, not missed. */
TEST_F(irq, driver_rebind_followed)
{
	char path[128];
	long long before;

	ASSERT_EQ(0, gp_listen(&self->l, 4 << 20));
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	raise_irqs(_metadata, self, "irq", 100);
	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/gpuprobe_edu/unbind");
	ASSERT_EQ(0, write_file(path, self->edu));
	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/gpuprobe_edu/bind");
	ASSERT_EQ(0, write_file(path, self->edu));
	self->edu_irq = (int)edu_stat(self->edu, "irq");
	self->t.irqno = 0;
	before = proc_irq_count(self->edu_irq);
	raise_irqs(_metadata, self, "irq", 150);
	EXPECT_EQ(150, proc_irq_count(self->edu_irq) - before);
	ASSERT_EQ(0, gp_stop(&self->s));
	gp_drain(&self->l, &self->t);

	EXPECT_EQ(250, self->t.irq[1]);
	EXPECT_EQ(1, self->t.target_events[GPUPROBE_TARGET_UNBOUND]);
	EXPECT_EQ(1, self->t.target_events[GPUPROBE_TARGET_VECTORS]);
}

/* The target's device goes away (PCI remove): an event says so. */
TEST_F(irq, device_removal_ends_target)
{
	char path[128], targets[256];

	ASSERT_EQ(0, gp_listen(&self->l, 4 << 20));
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	raise_irqs(_metadata, self, "irq", 10);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove",
		 self->edu);
	ASSERT_EQ(0, write_file(path, "1"));
	ASSERT_EQ(0, gp_targets(&self->s, targets));
	EXPECT_STREQ("", targets);
	ASSERT_EQ(0, gp_stop(&self->s));
	gp_drain(&self->l, &self->t);
	EXPECT_EQ(10, self->t.irq[1]);
	EXPECT_EQ(1, self->t.target_events[GPUPROBE_TARGET_UNBOUND]);
	EXPECT_EQ(1, self->t.target_events[GPUPROBE_TARGET_REMOVED]);
	ASSERT_EQ(0, write_file("/sys/bus/pci/rescan", "1"));
	ASSERT_EQ(0, edu_find(self->edu, sizeof(self->edu)));
}

/* Unloading the module while it streams under interrupt load is safe. */
TEST_F(irq, unload_while_streaming)
{
	pid_t child;
	int status;

	ASSERT_EQ(0, gp_listen(&self->l, 0));
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		edu_ctl(self->edu, "irq", "20000");
		_exit(0);
	}
	usleep(20000);
	genl_close(&self->s);
	EXPECT_EQ(0, mod_unload("gpuprobe"));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	gp_drain(&self->l, &self->t);
	EXPECT_FALSE(mod_loaded("gpuprobe"));
}

/*
 * START/STOP from two processes at once, while the device interrupts.
 * 600 cycles of about 150 ms each under TCG (each waits for tracepoint
 * grace periods), more on a loaded host or the debug kernel (KASAN,
 * lockdep): the bound is for a hang, not speed.
 */
TEST_F_TIMEOUT(irq, start_stop_race, 900)
{
	pid_t racer[2], noise;
	int i, status, ok = 0;

	ASSERT_EQ(0, gp_listen(&self->l, 1 << 20));
	noise = fork();
	ASSERT_GE(noise, 0);
	if (noise == 0) {
		for (i = 0; i < 100; i++)
			edu_ctl(self->edu, "irq", "100");
		_exit(0);
	}
	for (int r = 0; r < 2; r++) {
		racer[r] = fork();
		ASSERT_GE(racer[r], 0);
		if (racer[r] == 0) {
			struct genl_sock s;
			int started = 0;

			if (genl_open(&s, GPUPROBE_FAMILY_NAME, NULL))
				_exit(2);
			for (i = 0; i < 300; i++) {
				int e1 = gp_start(&s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));
				int e2 = gp_stop(&s);

				/* the other racer may own the session */
				if ((e1 && e1 != -EBUSY) ||
				    (e2 && e2 != -EALREADY))
					_exit(3);
				started += !e1;
			}
			_exit(started ? 0 : 4);
		}
	}
	for (int r = 0; r < 2; r++) {
		ASSERT_EQ(racer[r], waitpid(racer[r], &status, 0));
		ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	kill(noise, SIGKILL);
	waitpid(noise, &status, 0);
	gp_drain(&self->l, &self->t);
	EXPECT_EQ(2, ok);
	EXPECT_EQ(0, self->t.irq[0]);
	EXPECT_EQ(0, self->t.ts_backwards);
}

/* 200 load / start / unload cycles while the device interrupts. */
TEST_F_TIMEOUT(irq, load_unload_200_under_load, 300)
{
	char param[64];
	pid_t child;
	int i, status;

	genl_close(&self->s);
	ASSERT_EQ(0, mod_unload("gpuprobe"));
	snprintf(param, sizeof(param), "target=%s", self->edu);
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		for (i = 0; i < 400; i++)
			edu_ctl(self->edu, "irq", "200");
		_exit(0);
	}
	for (i = 0; i < 200; i++) {
		ASSERT_EQ(0, mod_load(GPUPROBE_KO, param));
		ASSERT_EQ(0, genl_open(&self->s, GPUPROBE_FAMILY_NAME, NULL));
		if (i % 2 == 0)
			ASSERT_EQ(0, gp_start(&self->s,
					      GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
		genl_close(&self->s);
		ASSERT_EQ(0, mod_unload("gpuprobe"));
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
}

TEST_HARNESS_MAIN
