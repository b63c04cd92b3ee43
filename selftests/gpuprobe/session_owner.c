// SPDX-License-Identifier: GPL-2.0
/*
 * The socket that sent START owns the session: when it closes, however it
 * closes, the session stops, and nothing more is sent to its port id -- not
 * to an unprivileged socket that binds the same id afterwards, nor to one
 * that binds it while the owner's socket is being released.  An owner with
 * CAP_NET_ADMIN only may not start records that carry addresses.
 *
 * Run against the module as built for kernels without a privileged events
 * group too (GPUPROBE_KO=.../unicast/gpuprobe.ko), where records are
 * unicast to the owner.
 */
#include <linux/capability.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "session.h"

FIXTURE(owner) {
	char edu[32];
	struct genl_sock s;
};

FIXTURE_SETUP(owner)
{
	ASSERT_EQ(0, gp_setup_edu(self->edu, sizeof(self->edu), NULL, &self->s));
}

FIXTURE_TEARDOWN(owner)
{
	genl_close(&self->s);
	mod_unload("gpuprobe");
	mod_unload("gpuprobe_edu");
}

/* A control socket bound to this port id (0: the kernel picks). */
static int open_at(struct genl_sock *s, uint32_t portid)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_pid = portid };
	struct genl_sock probe;
	int err, one = 1;

	/* the family id first, from a throwaway socket */
	err = genl_open(&probe, GPUPROBE_FAMILY_NAME, NULL);
	if (err)
		return err;
	memset(s, 0, sizeof(*s));
	s->family = probe.family;
	genl_close(&probe);
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0)
		return -errno;
	setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
}

/*
 * A child that starts a session from a socket at portid, tells the parent
 * (one byte on the pipe: 0 started, else the error) and then waits to be
 * killed (or exits at once when linger is false).
 */
static pid_t start_owner(uint32_t portid, bool linger, int *status_fd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct genl_sock s;
		char c;

		close(p[0]);
		c = open_at(&s, portid) ? 1 :
		    -gp_start(&s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		if (linger)
			pause();
		_exit(0);	/* the socket closes with the process */
	}
	close(p[1]);
	*status_fd = p[0];
	return pid;
}

static int owner_started(int fd)
{
	char c = 99;

	if (read(fd, &c, 1) != 1)
		c = 98;
	close(fd);
	return c;
}

TEST_F(owner, session_stops_when_the_owner_exits)
{
	int fd, status;
	pid_t pid = start_owner(0, false, &fd);

	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, owner_started(fd));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, gp_wait_stopped(&self->s, 3000));
	/* and a new session can start */
	EXPECT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	EXPECT_EQ(0, gp_stop(&self->s));
}

TEST_F(owner, session_stops_when_the_owner_is_killed)
{
	int fd, status;
	pid_t pid = start_owner(0, true, &fd);

	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, owner_started(fd));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, gp_wait_stopped(&self->s, 3000));
}

/* Another socket's STOP still works, and the owner's exit then is harmless. */
TEST_F(owner, stop_from_another_socket)
{
	int fd, status;
	pid_t pid = start_owner(0, true, &fd);

	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, owner_started(fd));
	EXPECT_EQ(0, gp_stop(&self->s));
	EXPECT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	/* the session now running is ours, not the dead child's */
	usleep(300000);
	{
		struct gp_stats st;

		ASSERT_EQ(0, gp_stats(&self->s, &st));
		EXPECT_TRUE(st.running);
	}
	EXPECT_EQ(0, gp_stop(&self->s));
}

/* nobody binds the dead owner's port id and counts what arrives there */
static int nobody_listen_at(uint32_t portid, int ready_fd, int go_fd)
{
	static char buf[1 << 16];
	struct genl_sock s;
	uint64_t bytes = 0;
	char c = 0;
	ssize_t n;

	if (setgid(65534) || setuid(65534))
		return 99;
	if (open_at(&s, portid))
		return 98;
	if (write(ready_fd, &c, 1) != 1 || read(go_fd, &c, 1) != 1)
		return 97;
	/* whatever is queued now came from the module */
	while ((n = recv(s.fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		bytes += n;
	return bytes ? 1 : 0;
}

TEST_F(owner, reused_port_id_receives_nothing)
{
	uint32_t portid = 0x47500000 | (getpid() & 0xffff);
	int fd, status, ready[2], go[2];
	pid_t pid = start_owner(portid, true, &fd), nobody;
	char c;

	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, owner_started(fd));
	ASSERT_EQ(0, edu_ctl(self->edu, "irq", "20"));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	nobody = fork();
	ASSERT_GE(nobody, 0);
	if (nobody == 0)
		_exit(nobody_listen_at(portid, ready[1], go[0]));
	ASSERT_EQ(1, read(ready[0], &c, 1));
	/* interrupts a session still running would send to that port id */
	ASSERT_EQ(0, edu_ctl(self->edu, "irq", "50"));
	usleep(200000);
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(nobody, waitpid(nobody, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, gp_wait_stopped(&self->s, 3000));
}

/* Keeps only CAP_NET_ADMIN (root still, uid 0): what START itself needs. */
static int keep_net_admin_only(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};

	d[CAP_NET_ADMIN / 32].effective = 1u << (CAP_NET_ADMIN % 32);
	d[CAP_NET_ADMIN / 32].permitted = 1u << (CAP_NET_ADMIN % 32);
	return syscall(SYS_capset, &h, d);
}

/*
 * What a CAP_NET_ADMIN-only START gets for each mask, written to fd as
 * int32s: interrupts (no addresses), DMA (DMA addresses), IOMMU (physical
 * addresses).
 */
static int net_admin_starts(int fd)
{
	const uint32_t masks[] = {
		GPUPROBE_EVMASK(GPUPROBE_EV_IRQ),
		GPUPROBE_EVMASK(GPUPROBE_EV_DMA),
		GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU),
	};
	int32_t errs[3];
	struct genl_sock s;

	if (keep_net_admin_only() || genl_open(&s, GPUPROBE_FAMILY_NAME, NULL))
		return 1;
	for (int i = 0; i < 3; i++) {
		errs[i] = gp_start(&s, masks[i]);
		if (!errs[i] && gp_stop(&s))
			return 2;
	}
	return write(fd, errs, sizeof(errs)) == sizeof(errs) ? 0 : 3;
}

TEST_F(owner, addresses_need_cap_sys_admin)
{
	int32_t errs[3] = { 1, 1, 1 };
	int p[2], status;
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(net_admin_starts(p[1]));
	ASSERT_EQ(sizeof(errs), read(p[0], errs, sizeof(errs)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	TH_LOG("START as CAP_NET_ADMIN only: irq %d, dma %d, iommu %d",
	       errs[0], errs[1], errs[2]);
	EXPECT_EQ(0, errs[0]);
	EXPECT_EQ(-EPERM, errs[1]);
	EXPECT_EQ(-EPERM, errs[2]);
	/* root may (dma_events runs them) */
}

/*
 * nobody binds portid as soon as it is free, and counts what the module
 * sends there: its exit status is 1 if anything came.
 */
static int stranger_at(uint32_t portid, int ready_fd)
{
	static char buf[1 << 16];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_pid = portid };
	struct timespec t0, t;
	ssize_t n, bytes = 0;
	char c = 0;
	int fd;

	if (setgid(65534) || setuid(65534))
		return 99;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || write(ready_fd, &c, 1) != 1)
		return 98;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		if (errno != EADDRINUSE)
			return 97;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5)
			return 96;
	}
	/*
	 * Records could come only until the module hears of the close (just
	 * after the id is freed); with records every drain_ms, some would
	 * be here after 50 ms.
	 */
	usleep(50000);
	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		bytes += n;
	return bytes ? 1 : 0;
}

/*
 * The owner's close races a stranger binding its port id while records
 * flow: the core frees the id before the module hears of the close, and
 * not one record may reach the stranger in between.
 */
TEST_F_TIMEOUT(owner, port_id_bound_during_close_receives_nothing, 180)
{
	const int rounds = 100;
	int leaked = 0, done = 0;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < rounds; i++) {
		uint32_t portid = 0x47510000 | (i << 8) | (getpid() & 0xff);
		int fd, status, ready[2];
		pid_t owner, stranger;
		char c;

		owner = start_owner(portid, true, &fd);
		ASSERT_GT(owner, 0);
		ASSERT_EQ(0, owner_started(fd));
		/* then the stranger, trying to bind until the id is free */
		ASSERT_EQ(0, pipe(ready));
		stranger = fork();
		ASSERT_GE(stranger, 0);
		if (stranger == 0)
			_exit(stranger_at(portid, ready[1]));
		ASSERT_EQ(1, read(ready[0], &c, 1));
		close(ready[0]);
		close(ready[1]);
		/* records in every drain around the close */
		ASSERT_EQ(0, edu_ctl(self->edu, "irq", "20"));
		kill(owner, SIGKILL);
		ASSERT_EQ(0, edu_ctl(self->edu, "irq", "20"));
		ASSERT_EQ(owner, waitpid(owner, &status, 0));
		ASSERT_EQ(stranger, waitpid(stranger, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_LE(WEXITSTATUS(status), 1);
		leaked += WEXITSTATUS(status);
		ASSERT_EQ(0, gp_wait_stopped(&self->s, 3000));
		done++;
		/* a minute at most under TCG: rounds take a few hundred ms */
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 60)
			break;
	}
	TH_LOG("%d rounds, %d strangers received records", done, leaked);
	EXPECT_GE(done, 20);
	EXPECT_EQ(0, leaked);
}

TEST_HARNESS_MAIN
