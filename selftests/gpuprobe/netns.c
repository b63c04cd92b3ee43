// SPDX-License-Identifier: GPL-2.0
/*
 * Containers (issue 25): with the module loaded in the initial namespaces,
 * a session started from a container -- network, pid and mount namespaces
 * of its own, as a pod without hostNetwork has -- counts the target's
 * interrupts exactly (against /proc/interrupts), and its records reach that
 * container's listeners only: not the initial namespace's, not another
 * container's.  A root in a user namespace of its own (which any user can
 * become) may neither control nor read the host's session, and records that
 * carry addresses never reach a network namespace such a root owns.
 */
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "session.h"

#define NS_IRQS		100
/* a container's exit status when the kernel lacks a namespace type */
#define NS_UNSUPPORTED	77

FIXTURE(netns) {
	char edu[32];
	struct genl_sock s;
	struct genl_sock l;
};

FIXTURE_SETUP(netns)
{
	self->s.fd = self->l.fd = -1;
	ASSERT_EQ(0, gp_setup_edu(self->edu, sizeof(self->edu), NULL, &self->s));
	ASSERT_EQ(0, gp_listen(&self->l, 8 << 20));
}

FIXTURE_TEARDOWN(netns)
{
	genl_close(&self->l);
	genl_close(&self->s);
	mod_unload("gpuprobe");
	mod_unload("gpuprobe_edu");
}

/* Records by type, and every byte of records, that a listener received. */
struct ns_count {
	uint64_t type[16];
	uint64_t bytes;
	uint64_t edu_irqs;
	uint32_t bdf;
};

static void ns_count_cb(void *arg, const uint8_t *p, size_t len)
{
	struct ns_count *c = arg;

	c->bytes += len;
	while (len >= sizeof(struct gpuprobe_rec_hdr)) {
		const struct gpuprobe_rec_hdr *h = (const void *)p;

		if (h->size < sizeof(*h) || h->size > len)
			return;
		if (h->type < 16)
			c->type[h->type]++;
		if (h->type == GPUPROBE_EV_IRQ &&
		    ((const struct gpuprobe_rec_irq *)p)->bdf == c->bdf)
			c->edu_irqs++;
		p += h->size;
		len -= h->size;
	}
}

static void ns_count_drain(struct genl_sock *l, struct ns_count *c)
{
	gp_recv_records(l, ns_count_cb, c);
}

static void caps_cb(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *nla;
	int rem;

	nla = genl_attrs(nlh, &rem);
	nla = genl_find(nla, rem, GPUPROBE_A_CAPS);
	if (nla)
		memcpy(arg, GENL_ATTR_DATA(nla), sizeof(uint64_t));
}

/*
 * Does the events group take members (GENL_MCAST_CAP_SYS_ADMIN)?  Without
 * one (make modules-unicast) records go to the owner's socket only.
 */
static bool events_multicast(struct genl_sock *s)
{
	struct genl_msg *m = calloc(1, sizeof(*m));
	uint64_t caps = 0;

	genl_msg_init(m, s->family, 0, GPUPROBE_CMD_GET_INFO);
	genl_xfer(s, m, caps_cb, &caps);
	free(m);
	return caps & GPUPROBE_CAP_MCAST_PRIV;
}

/* One byte each way: the parent and a container take turns. */
struct ns_pipes {
	int to_child[2], to_parent[2];
};

static int ns_pipes_open(struct ns_pipes *p)
{
	return pipe(p->to_child) || pipe(p->to_parent) ? -1 : 0;
}

/*
 * The parent's side once the child is forked: without the ends it does not
 * use, a read would never see a child that exited early (EOF needs every
 * write end closed), and the test would hang instead of failing or skipping.
 */
static void ns_pipes_parent(struct ns_pipes *p)
{
	close(p->to_parent[1]);
	close(p->to_child[0]);
}

static int ns_wait(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

static int ns_signal(int fd)
{
	char c = 'x';

	return write(fd, &c, 1) == 1 ? 0 : -1;
}

/*
 * Runs fn(arg) in new namespaces (CLONE_NEW* flags), with a new pid
 * namespace as its pid 1 and with a new mount namespace a /proc of its own
 * there, as a container's init.  Returns the child's pid; its exit status is
 * fn's, or NS_UNSUPPORTED when the kernel has no such namespaces.
 */
static pid_t in_container(int flags, int (*fn)(void *), void *arg)
{
	pid_t pid = fork(), init;
	int status;

	if (pid)
		return pid;
	if (unshare(flags))
		_exit(errno == EINVAL ? NS_UNSUPPORTED : 90);
	if (!(flags & CLONE_NEWPID))
		_exit(fn(arg));
	init = fork();
	if (init < 0)
		_exit(91);
	if (init == 0) {
		if ((flags & CLONE_NEWNS) &&
		    (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		     mount("proc", "/proc", "proc", 0, NULL)))
			_exit(92);
		_exit(fn(arg));
	}
	if (waitpid(init, &status, 0) != init || !WIFEXITED(status))
		_exit(93);
	_exit(WEXITSTATUS(status));
}

/* 0, or the skip (return 4 from the test body) / failure it reports. */
static int container_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* ---- a session started in a container ---- */

struct container_run {
	const char *edu;
	int fd;				/* results to the parent */
};

struct container_result {
	int32_t pid, start, stats, stop;
	int64_t proc;
	uint64_t rec, other;
};

static int container_session(void *arg)
{
	struct container_run *run = arg;
	struct container_result r = { .start = 1, .stats = 1, .stop = 1 };
	struct gp_tally t = { .bdf = gp_bdf(run->edu) };
	struct genl_sock s, l;
	struct gp_stats st;
	long long proc = -1;
	uint64_t rec = 0;

	r.pid = getpid();
	if (genl_open(&s, GPUPROBE_FAMILY_NAME, NULL) || gp_listen(&l, 8 << 20))
		return 10;
	/* as gpuprobe-trace does: START on the events socket */
	r.start = gp_start(&l, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));
	if (!r.start) {
		if (gp_raise_and_count(&l, &t, run->edu, NS_IRQS, &proc, &rec))
			return 11;
		r.stats = gp_stats(&s, &st);
		r.stop = gp_stop(&s);
	}
	r.proc = proc;
	r.rec = rec;
	r.other = t.irq[0];
	return write(run->fd, &r, sizeof(r)) == sizeof(r) ? 0 : 12;
}

/*
 * A listener in a network namespace of its own (a neighbour container's, or a
 * user namespace's root's): what reaches it.
 */
struct listener_run {
	struct ns_pipes p;
	struct ns_count c;
};

static int ns_listen(void *arg)
{
	struct listener_run *run = arg;
	struct genl_sock l;
	int32_t err = gp_listen(&l, 8 << 20);

	if (write(run->p.to_parent[1], &err, sizeof(err)) != sizeof(err) ||
	    err || ns_wait(run->p.to_child[0]))
		return 10;
	ns_count_drain(&l, &run->c);
	return write(run->p.to_parent[1], &run->c, sizeof(run->c)) ==
	       sizeof(run->c) ? 0 : 11;
}

TEST_F(netns, container_session_is_exact_and_stays_in_its_namespace)
{
	struct listener_run nb = {};
	struct container_run run = { .edu = self->edu };
	struct container_result r = { .start = 1 };
	struct ns_count host = { .bdf = gp_bdf(self->edu) };
	struct gp_tally t = { .bdf = gp_bdf(self->edu) };
	int res[2], err, status;
	long long proc;
	pid_t nbpid, cpid;
	uint64_t rec;
	int32_t nberr = 1;

	/* another container's listener, there before and after */
	ASSERT_EQ(0, ns_pipes_open(&nb.p));
	nb.c.bdf = gp_bdf(self->edu);
	nbpid = in_container(CLONE_NEWNET, ns_listen, &nb);
	ASSERT_GE(nbpid, 0);
	ns_pipes_parent(&nb.p);
	if (read(nb.p.to_parent[0], &nberr, sizeof(nberr)) != sizeof(nberr)) {
		status = container_status(nbpid);
		if (status == NS_UNSUPPORTED)
			SKIP(return, "no network namespaces in this kernel (CONFIG_NET_NS)");
		ASSERT_EQ(0, status);
	}
	/* the family answers there, and a root of that user namespace joins */
	ASSERT_EQ(0, nberr);

	ASSERT_EQ(0, pipe(res));
	run.fd = res[1];
	cpid = in_container(CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWNS,
			    container_session, &run);
	ASSERT_GE(cpid, 0);
	close(res[1]);
	status = container_status(cpid);
	if (status == NS_UNSUPPORTED)
		SKIP(return, "no pid or mount namespaces in this kernel");
	ASSERT_EQ(0, status);
	ASSERT_EQ(sizeof(r), read(res[0], &r, sizeof(r)));
	TH_LOG("container (pid %d there): START %d, %lld interrupts in /proc/interrupts, %llu records (%llu of other devices), STATS %d, STOP %d",
	       r.pid, r.start, (long long)r.proc, (unsigned long long)r.rec,
	       (unsigned long long)r.other, r.stats, r.stop);
	EXPECT_EQ(1, r.pid);
	ASSERT_EQ(0, r.start);
	EXPECT_EQ(NS_IRQS, r.proc);
	EXPECT_EQ(r.proc, r.rec);
	EXPECT_EQ(0, r.stats);
	EXPECT_EQ(0, r.stop);
	/* the initial namespace's listener got none of it */
	ns_count_drain(&self->l, &host);
	TH_LOG("initial namespace's listener: %llu bytes of records",
	       (unsigned long long)host.bytes);
	EXPECT_EQ(0, host.bytes);

	/* the host's own session: the same listener counts it exactly ... */
	ASSERT_EQ(0, gp_start(&self->l, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	err = gp_raise_and_count(&self->l, &t, self->edu, NS_IRQS, &proc, &rec);
	ASSERT_EQ(0, gp_stop(&self->s));
	ASSERT_EQ(0, err);
	TH_LOG("host session: %lld interrupts, %llu records", proc, (unsigned long long)rec);
	EXPECT_EQ(NS_IRQS, proc);
	EXPECT_EQ(proc, rec);

	/* ... and the neighbour got neither session's records */
	ASSERT_EQ(0, ns_signal(nb.p.to_child[1]));
	ASSERT_EQ(sizeof(nb.c), read(nb.p.to_parent[0], &nb.c, sizeof(nb.c)));
	EXPECT_EQ(0, container_status(nbpid));
	TH_LOG("other network namespace's listener: %llu bytes, %llu edu interrupts",
	       (unsigned long long)nb.c.bytes, (unsigned long long)nb.c.edu_irqs);
	EXPECT_EQ(0, nb.c.bytes);
}

/* ---- a root of its own user namespace ---- */

/* What each op answered there, in this order. */
enum {
	UNS_OPEN, UNS_GET_INFO, UNS_TARGET_GET, UNS_STATS, UNS_STATS_DO,
	UNS_SUMMARY, UNS_START, UNS_STOP, UNS_TARGET_ADD, UNS_TARGET_DEL,
	UNS_TGID_ADD, UNS_TGID_DEL, UNS_LISTEN, UNS_N
};

static const char *const uns_names[UNS_N] = {
	"open", "GET_INFO", "TARGET_GET", "STATS_GET dump", "STATS_GET do",
	"SUMMARY_GET", "START", "STOP", "TARGET_ADD", "TARGET_DEL",
	"TGID_ADD", "TGID_DEL", "join events",
};

struct uns_run {
	const char *edu;
	struct ns_pipes p;
	int32_t err[UNS_N];
	char targets[256];
	struct ns_count c;
};

/* Every op from the caller's namespaces; then the listener's take. */
static int uns_ops(void *arg)
{
	struct uns_run *run = arg;
	struct genl_sock s, l;
	struct gp_stats st;

	for (int i = 0; i < UNS_N; i++)
		run->err[i] = 1;
	run->err[UNS_OPEN] = genl_open(&s, GPUPROBE_FAMILY_NAME, NULL);
	if (run->err[UNS_OPEN])
		goto out;
	run->err[UNS_GET_INFO] = gp_cmd(&s, GPUPROBE_CMD_GET_INFO, NULL, 0, 0);
	run->err[UNS_TARGET_GET] = gp_targets(&s, run->targets);
	run->err[UNS_STATS] = gp_stats(&s, &st);
	run->err[UNS_STATS_DO] = gp_stats_flags(&s, &st, 0);
	run->err[UNS_SUMMARY] = gp_cmd(&s, GPUPROBE_CMD_SUMMARY_GET, NULL, 0, 0);
	run->err[UNS_START] = gp_start(&s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));
	run->err[UNS_STOP] = gp_stop(&s);
	run->err[UNS_TARGET_ADD] = gp_cmd(&s, GPUPROBE_CMD_TARGET_ADD, run->edu, 0, 0);
	run->err[UNS_TARGET_DEL] = gp_cmd(&s, GPUPROBE_CMD_TARGET_DEL, run->edu, 0, 0);
	run->err[UNS_TGID_ADD] = gp_cmd(&s, GPUPROBE_CMD_TGID_ADD, NULL,
					GPUPROBE_A_TGID, getpid());
	run->err[UNS_TGID_DEL] = gp_cmd(&s, GPUPROBE_CMD_TGID_DEL, NULL,
					GPUPROBE_A_TGID, getpid());
	run->err[UNS_LISTEN] = gp_listen(&l, 8 << 20);
out:
	if (write(run->p.to_parent[1], run->err, sizeof(run->err)) != sizeof(run->err) ||
	    write(run->p.to_parent[1], run->targets, sizeof(run->targets)) != sizeof(run->targets))
		return 10;
	if (run->err[UNS_LISTEN])
		return 0;
	/* the parent raises interrupts and DMA in its session meanwhile */
	if (ns_wait(run->p.to_child[0]))
		return 11;
	ns_count_drain(&l, &run->c);
	return write(run->p.to_parent[1], &run->c, sizeof(run->c)) ==
	       sizeof(run->c) ? 0 : 12;
}

/*
 * Runs uns_ops in the given namespaces while the host's session (interrupts
 * and DMA, with its addresses) runs; returns the container's exit status.
 */
static int host_session_seen_from(struct __test_metadata *_metadata,
				  FIXTURE_DATA(netns) *self, int flags,
				  struct uns_run *run)
{
	struct ns_count host = { .bdf = gp_bdf(self->edu) };
	struct gp_stats st;
	long long p0;
	int irqs[8], status;
	pid_t pid;
	char n[16];

	ASSERT_LT(0, pci_msi_irqs(self->edu, irqs, 8));
	ASSERT_EQ(0, ns_pipes_open(&run->p));
	run->edu = self->edu;
	run->c.bdf = gp_bdf(self->edu);
	ASSERT_EQ(0, gp_start(&self->l, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ) |
			      GPUPROBE_EVMASK(GPUPROBE_EV_DMA)));
	pid = in_container(flags, uns_ops, run);
	ASSERT_GE(pid, 0);
	ns_pipes_parent(&run->p);
	if (read(run->p.to_parent[0], run->err, sizeof(run->err)) != sizeof(run->err)) {
		gp_stop(&self->s);
		return container_status(pid);
	}
	ASSERT_EQ(sizeof(run->targets),
		  read(run->p.to_parent[0], run->targets, sizeof(run->targets)));
	p0 = proc_irq_count(irqs[0]);
	snprintf(n, sizeof(n), "%d", NS_IRQS);
	ASSERT_EQ(0, edu_ctl(self->edu, "irq", n));
	ASSERT_EQ(0, edu_ctl(self->edu, "dma", "to_device 8192"));
	ASSERT_EQ(0, edu_ctl(self->edu, "dma", "from_device 4096"));
	/* the session still runs: the container's STOP did not stop it */
	ASSERT_EQ(0, gp_stats(&self->s, &st));
	EXPECT_TRUE(st.running);
	/* and its records, all of them, reached the host's listener */
	for (int i = 0; i < 300 && host.edu_irqs < NS_IRQS; i++) {
		usleep(10000);
		ns_count_drain(&self->l, &host);
	}
	usleep(300000);
	ns_count_drain(&self->l, &host);
	ASSERT_EQ(0, gp_stop(&self->s));
	ns_count_drain(&self->l, &host);
	TH_LOG("host's listener: %llu of %lld edu interrupts, %llu DMA records",
	       (unsigned long long)host.edu_irqs, proc_irq_count(irqs[0]) - p0,
	       (unsigned long long)host.type[GPUPROBE_EV_DMA]);
	EXPECT_EQ(proc_irq_count(irqs[0]) - p0, host.edu_irqs);
	EXPECT_LT(0, host.type[GPUPROBE_EV_DMA]);
	if (!run->err[UNS_LISTEN]) {
		EXPECT_EQ(0, ns_signal(run->p.to_child[1]));
		EXPECT_EQ(sizeof(run->c),
			  read(run->p.to_parent[0], &run->c, sizeof(run->c)));
	}
	status = container_status(pid);
	for (int i = 0; i < UNS_N; i++)
		TH_LOG("  %-14s %d", uns_names[i], run->err[i]);
	TH_LOG("targets listed there: %s; its listener: %llu bytes of records",
	       run->targets, (unsigned long long)run->c.bytes);
	return status;
}

/* Control ops with no session running: only the capability can refuse them. */
enum { IDLE_START, IDLE_STOP, IDLE_TARGET_ADD, IDLE_TARGET_DEL, IDLE_TGID_ADD,
       IDLE_TGID_DEL, IDLE_N };

struct idle_run {
	const char *edu;
	struct ns_pipes p;
	int32_t err[IDLE_N];
};

static int idle_ops(void *arg)
{
	struct idle_run *run = arg;
	struct genl_sock s;

	for (int i = 0; i < IDLE_N; i++)
		run->err[i] = 1;
	if (genl_open(&s, GPUPROBE_FAMILY_NAME, NULL))
		return 20;
	run->err[IDLE_TARGET_DEL] = gp_cmd(&s, GPUPROBE_CMD_TARGET_DEL, run->edu, 0, 0);
	run->err[IDLE_TARGET_ADD] = gp_cmd(&s, GPUPROBE_CMD_TARGET_ADD, run->edu, 0, 0);
	run->err[IDLE_TGID_ADD] = gp_cmd(&s, GPUPROBE_CMD_TGID_ADD, NULL,
					 GPUPROBE_A_TGID, getpid());
	run->err[IDLE_TGID_DEL] = gp_cmd(&s, GPUPROBE_CMD_TGID_DEL, NULL,
					 GPUPROBE_A_TGID, getpid());
	run->err[IDLE_STOP] = gp_stop(&s);
	run->err[IDLE_START] = gp_start(&s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));
	genl_close(&s);
	return write(run->p.to_parent[1], run->err, sizeof(run->err)) ==
	       sizeof(run->err) ? 0 : 21;
}

/*
 * With a session running, its namespace check refuses a container's STOP or
 * TARGET_DEL by itself; with none, only GENL_ADMIN_PERM does: a user
 * namespace's root (CAP_NET_ADMIN there, not in the host's) changes nothing.
 */
TEST_F(netns, user_namespace_root_controls_nothing_without_a_session)
{
	struct idle_run run = { .edu = self->edu };
	struct gp_stats st;
	char targets[256];
	int status;
	pid_t pid;

	ASSERT_EQ(0, ns_pipes_open(&run.p));
	pid = in_container(CLONE_NEWUSER | CLONE_NEWNET, idle_ops, &run);
	ASSERT_GE(pid, 0);
	ns_pipes_parent(&run.p);
	if (read(run.p.to_parent[0], run.err, sizeof(run.err)) != sizeof(run.err)) {
		status = container_status(pid);
		if (status == NS_UNSUPPORTED)
			SKIP(return, "no user or network namespaces in this kernel");
		ASSERT_EQ(0, status);
	}
	ASSERT_EQ(0, container_status(pid));
	for (int i = 0; i < IDLE_N; i++) {
		EXPECT_EQ(-EPERM, run.err[i]) {
			TH_LOG("op %d", i);
		}
	}
	/* the target is still there, and no session was started */
	ASSERT_EQ(0, gp_targets(&self->s, targets));
	EXPECT_STREQ(self->edu, targets);
	ASSERT_EQ(0, gp_stats(&self->s, &st));
	EXPECT_FALSE(st.running);
}

TEST_F(netns, user_namespace_root_neither_controls_nor_reads)
{
	struct uns_run run = {};
	int status = host_session_seen_from(_metadata, self,
					    CLONE_NEWUSER | CLONE_NEWNET |
					    CLONE_NEWPID | CLONE_NEWNS, &run);

	if (status == NS_UNSUPPORTED)
		SKIP(return, "no user, network, pid or mount namespaces in this kernel");
	ASSERT_EQ(0, status);
	/* it sees the module, and what sysfs shows anyway */
	EXPECT_EQ(0, run.err[UNS_OPEN]);
	EXPECT_EQ(0, run.err[UNS_GET_INFO]);
	EXPECT_EQ(0, run.err[UNS_TARGET_GET]);
	EXPECT_STREQ(self->edu, run.targets);
	/* not the host's session, nor its counters */
	EXPECT_EQ(-EPERM, run.err[UNS_STATS]);
	EXPECT_EQ(-EPERM, run.err[UNS_STATS_DO]);
	EXPECT_EQ(-EPERM, run.err[UNS_SUMMARY]);
	/* its CAP_NET_ADMIN is its own namespace's, not the host's */
	EXPECT_EQ(-EPERM, run.err[UNS_START]);
	EXPECT_EQ(-EPERM, run.err[UNS_STOP]);
	EXPECT_EQ(-EPERM, run.err[UNS_TARGET_ADD]);
	EXPECT_EQ(-EPERM, run.err[UNS_TARGET_DEL]);
	EXPECT_EQ(-EPERM, run.err[UNS_TGID_ADD]);
	EXPECT_EQ(-EPERM, run.err[UNS_TGID_DEL]);
	/* it may join its own namespace's group, where nothing of it comes */
	EXPECT_EQ(0, run.err[UNS_LISTEN]);
	EXPECT_EQ(0, run.c.bytes);
}

/*
 * A container in the initial user namespace, with CAP_NET_ADMIN (a
 * privileged pod without hostNetwork): it may start sessions of its own,
 * but not stop or read the host's.
 */
TEST_F(netns, network_namespace_cannot_touch_the_hosts_session)
{
	struct uns_run run = {};
	int status = host_session_seen_from(_metadata, self, CLONE_NEWNET, &run);

	if (status == NS_UNSUPPORTED)
		SKIP(return, "no network namespaces in this kernel (CONFIG_NET_NS)");
	ASSERT_EQ(0, status);
	EXPECT_EQ(0, run.err[UNS_OPEN]);
	EXPECT_EQ(0, run.err[UNS_GET_INFO]);
	EXPECT_EQ(-EPERM, run.err[UNS_STATS]);
	EXPECT_EQ(-EPERM, run.err[UNS_STATS_DO]);
	EXPECT_EQ(-EPERM, run.err[UNS_SUMMARY]);
	EXPECT_EQ(-EBUSY, run.err[UNS_START]);
	EXPECT_EQ(-EPERM, run.err[UNS_STOP]);
	EXPECT_EQ(-EPERM, run.err[UNS_TGID_ADD]);
	/* the targets are the host's session's too while it runs */
	EXPECT_EQ(-EPERM, run.err[UNS_TARGET_ADD]);
	EXPECT_EQ(-EPERM, run.err[UNS_TARGET_DEL]);
	EXPECT_EQ(-EPERM, run.err[UNS_TGID_DEL]);
	EXPECT_EQ(0, run.err[UNS_LISTEN]);
	EXPECT_EQ(0, run.c.bytes);
}

/* ---- addresses and a user namespace's network namespace ---- */

/* What the host's root STARTs from a user namespace's network namespace. */
enum { START_DMA, START_IOMMU, START_SCHED, START_KVM, START_IRQ, START_N };

/*
 * The host's root enters the network namespace nsfd names and STARTs from
 * there, on a socket that also listens: DMA, IOMMU, sched, KVM, then
 * interrupts (one START that succeeds makes the later ones EBUSY).  It
 * writes the answers to fd, then, when told, what its socket received
 * (the owner's, on either build).
 */
static int enter_and_start(int nsfd, struct ns_pipes *p, uint32_t bdf)
{
	int32_t e[START_N] = { 1, 1, 1, 1, 1 };
	struct ns_count c = { .bdf = bdf };
	struct genl_sock l;

	if (setns(nsfd, CLONE_NEWNET) || gp_listen(&l, 8 << 20))
		return 1;
	e[START_DMA] = gp_start(&l, GPUPROBE_EVMASK(GPUPROBE_EV_DMA));
	e[START_IOMMU] = gp_start(&l, GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU));
	/* a switch names the task switched out: any of the host's */
	e[START_SCHED] = gp_start(&l, GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP) |
				  GPUPROBE_EVMASK(GPUPROBE_EV_SWITCH));
	e[START_KVM] = gp_start(&l, GPUPROBE_EVMASK(GPUPROBE_EV_KVM));
	e[START_IRQ] = gp_start(&l, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));
	if (write(p->to_parent[1], e, sizeof(e)) != sizeof(e) ||
	    ns_wait(p->to_child[0]))
		return 2;
	ns_count_drain(&l, &c);
	return write(p->to_parent[1], &c, sizeof(c)) == sizeof(c) ? 0 : 3;
}

/*
 * The host's root (every capability) enters that network namespace and
 * starts sessions from it: those with DMA or IOMMU records (addresses) or
 * sched and KVM records (the host's tasks) are refused there, since that
 * namespace's root decides who listens; interrupts are fine, and its
 * listener counts them exactly.
 */
TEST_F(netns, no_address_records_where_a_user_namespace_listens)
{
	struct listener_run run = {};
	struct gp_tally t = { .bdf = gp_bdf(self->edu) };
	struct ns_count own = {};
	struct ns_pipes op;
	int32_t err = 1, e[START_N] = { 1, 1, 1, 1, 1 };
	int irqs[8], nsfd, status;
	long long p0, proc;
	char path[64], n[16];
	pid_t pid, owner;

	ASSERT_LT(0, pci_msi_irqs(self->edu, irqs, 8));
	ASSERT_EQ(0, ns_pipes_open(&run.p));
	run.c.bdf = gp_bdf(self->edu);
	pid = in_container(CLONE_NEWUSER | CLONE_NEWNET, ns_listen, &run);
	ASSERT_GE(pid, 0);
	ns_pipes_parent(&run.p);
	if (read(run.p.to_parent[0], &err, sizeof(err)) != sizeof(err)) {
		status = container_status(pid);
		if (status == NS_UNSUPPORTED)
			SKIP(return, "no user or network namespaces in this kernel");
		ASSERT_EQ(0, status);
	}
	ASSERT_EQ(0, err);

	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, nsfd);
	/* opened after the container's fork: it holds none of their ends */
	ASSERT_EQ(0, ns_pipes_open(&op));
	owner = fork();
	ASSERT_GE(owner, 0);
	if (owner == 0)
		_exit(enter_and_start(nsfd, &op, gp_bdf(self->edu)));
	ns_pipes_parent(&op);
	close(nsfd);
	ASSERT_EQ(sizeof(e), read(op.to_parent[0], e, sizeof(e)));
	p0 = proc_irq_count(irqs[0]);
	snprintf(n, sizeof(n), "%d", NS_IRQS);
	if (!e[START_IRQ]) {
		EXPECT_EQ(0, edu_ctl(self->edu, "irq", n));
		EXPECT_EQ(0, edu_ctl(self->edu, "dma", "to_device 8192"));
		usleep(500000);
		/* the host may stop a session of another namespace */
		EXPECT_EQ(0, gp_stop(&self->s));
	}
	proc = proc_irq_count(irqs[0]) - p0;
	ASSERT_EQ(0, ns_signal(op.to_child[1]));
	ASSERT_EQ(sizeof(own), read(op.to_parent[0], &own, sizeof(own)));
	ASSERT_EQ(owner, waitpid(owner, &status, 0));
	ASSERT_EQ(0, ns_signal(run.p.to_child[1]));
	ASSERT_EQ(sizeof(run.c), read(run.p.to_parent[0], &run.c, sizeof(run.c)));
	EXPECT_EQ(0, container_status(pid));
	gp_drain(&self->l, &t);
	TH_LOG("START from a user namespace's network namespace: dma %d, iommu %d, sched %d, kvm %d, irq %d; of %lld edu interrupts the owner got %llu, that namespace's root %llu (%llu DMA, %llu IOMMU records), the host's listener %llu records",
	       e[START_DMA], e[START_IOMMU], e[START_SCHED], e[START_KVM],
	       e[START_IRQ], proc, (unsigned long long)own.edu_irqs,
	       (unsigned long long)run.c.edu_irqs,
	       (unsigned long long)run.c.type[GPUPROBE_EV_DMA],
	       (unsigned long long)run.c.type[GPUPROBE_EV_IOMMU],
	       (unsigned long long)t.irq_total);
	EXPECT_EQ(-EPERM, e[START_DMA]);
	EXPECT_EQ(-EPERM, e[START_IOMMU]);
	EXPECT_EQ(-EPERM, e[START_SCHED]);
	EXPECT_EQ(-EPERM, e[START_KVM]);
	ASSERT_EQ(0, e[START_IRQ]);
	/* the DMA's completion interrupt too: all of them, as the kernel counts */
	EXPECT_LE(NS_IRQS, proc);
	EXPECT_EQ(proc, own.edu_irqs);
	/* a member of the group there, where there is one, gets them too */
	EXPECT_EQ(events_multicast(&self->s) ? proc : 0, run.c.edu_irqs);
	EXPECT_EQ(0, run.c.type[GPUPROBE_EV_DMA]);
	EXPECT_EQ(0, run.c.type[GPUPROBE_EV_IOMMU]);
	EXPECT_EQ(0, own.type[GPUPROBE_EV_DMA] + own.type[GPUPROBE_EV_IOMMU]);
	EXPECT_EQ(0, t.irq_total);
}

TEST_HARNESS_MAIN
