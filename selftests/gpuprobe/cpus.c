// SPDX-License-Identifier: GPL-2.0
/*
 * Many possible CPUs, few online (the test VM boots with possible_cpus=128
 * and 2 vCPUs, as large hosts have hundreds): STATS_GET covers every
 * possible CPU, the record buffers exist only for online CPUs, and a CPU
 * brought online during a session gets one.
 */
#include "kselftest_harness.h"
#include "session.h"

FIXTURE(cpus) {
	char edu[32];
	struct genl_sock s;
};

FIXTURE_SETUP(cpus)
{
	ASSERT_EQ(0, gp_setup_edu(self->edu, sizeof(self->edu), NULL, &self->s));
}

FIXTURE_TEARDOWN(cpus)
{
	write_file("/sys/devices/system/cpu/cpu1/online", "1");
	genl_close(&self->s);
	mod_unload("gpuprobe");
	mod_unload("gpuprobe_edu");
}

/* Number of CPUs in a sysfs list such as "0-127" or "0,2-3". */
static int cpu_list_count(const char *path)
{
	char buf[256], *p;
	int n = 0;

	if (read_file(path, buf, sizeof(buf)))
		return -1;
	for (p = strtok(buf, ","); p; p = strtok(NULL, ",")) {
		int a, b;

		if (sscanf(p, "%d-%d", &a, &b) == 2)
			n += b - a + 1;
		else
			n++;
	}
	return n;
}

/* A socket that has received nothing yet (genl_open() would have). */
static int open_fresh(struct genl_sock *s, uint16_t family)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;

	memset(s, 0, sizeof(*s));
	s->family = family;
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0)
		return -errno;
	setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
}

TEST_F(cpus, stats_cover_every_possible_cpu)
{
	int possible = cpu_list_count("/sys/devices/system/cpu/possible");
	struct genl_sock fresh;
	struct gp_stats st;

	TH_LOG("possible CPUs: %d", possible);
	ASSERT_GT(possible, 0);
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	ASSERT_EQ(0, edu_ctl(self->edu, "irq", "100"));
	ASSERT_EQ(0, gp_stop(&self->s));

	/*
	 * A fresh socket: the core sizes the first part of a dump for a
	 * socket that has not received yet at one page, so 128 CPUs take
	 * more than one part and the dump has to resume where it stopped.
	 */
	ASSERT_EQ(0, open_fresh(&fresh, self->s.family));
	ASSERT_EQ(0, gp_stats_flags(&fresh, &st, NLM_F_DUMP));
	genl_close(&fresh);
	TH_LOG("dump: %d CPUs in %d messages", st.cpus, st.replies);
	EXPECT_EQ(possible, st.cpus);
	EXPECT_EQ(100, st.captured);
	EXPECT_FALSE(st.running);
	if (possible >= 64)
		EXPECT_GT(st.replies, 1);

	/* the do form: one message sized for them all */
	ASSERT_EQ(0, gp_stats_flags(&self->s, &st, 0));
	EXPECT_EQ(possible, st.cpus);
	EXPECT_EQ(100, st.captured);
}

static long long meminfo_kb(const char *key)
{
	char buf[4096], *p;

	if (read_file("/proc/meminfo", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, key);
	return p ? strtoll(p + strlen(key) + 1, NULL, 10) : -1;
}

/* 512 KiB per ring (8192 slots of 64 bytes): for the online CPUs only. */
TEST_F(cpus, rings_only_for_online_cpus)
{
	int online = cpu_list_count("/sys/devices/system/cpu/online");
	long long before, after;

	ASSERT_GT(online, 0);
	before = meminfo_kb("MemFree:");
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	after = meminfo_kb("MemFree:");
	ASSERT_EQ(0, gp_stop(&self->s));
	TH_LOG("START took %lld KiB with %d CPUs online", before - after,
	       online);
	/* the rings and some slack, not one ring per possible CPU */
	EXPECT_LT(before - after, online * 512 + 8192);
}

/* A CPU that comes online during a session records into its own ring. */
TEST_F(cpus, cpu_onlined_during_session_records)
{
	struct gp_tally t = { .bdf = gp_bdf(self->edu) };
	struct genl_sock l;
	char path[64];
	int irq = 0;

	if (access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "cpu1 cannot be taken offline");
	ASSERT_EQ(1, pci_msi_irqs(self->edu, &irq, 1));
	ASSERT_EQ(0, gp_listen(&l, 4 << 20));
	ASSERT_EQ(0, write_file("/sys/devices/system/cpu/cpu1/online", "0"));
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	ASSERT_EQ(0, write_file("/sys/devices/system/cpu/cpu1/online", "1"));
	snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irq);
	ASSERT_EQ(0, write_file(path, "1"));
	ASSERT_EQ(0, edu_ctl(self->edu, "irq", "200"));
	ASSERT_EQ(0, gp_stop(&self->s));
	gp_drain(&l, &t);
	genl_close(&l);
	TH_LOG("records: %llu", (unsigned long long)t.irq[1]);
	EXPECT_EQ(200, t.irq[1]);
	EXPECT_EQ(0, t.lost);
	EXPECT_GT(t.last_ts[1], 0);	/* some were taken on cpu1 */
}

TEST_HARNESS_MAIN
