// SPDX-License-Identifier: GPL-2.0
/*
 * The waking side: wake-ups and switches of registered thread groups (and
 * the processes they fork) are recorded, nobody else's; summary mode keeps
 * exact histograms in the kernel instead of streaming records.
 */
#include <sched.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "session.h"

FIXTURE(sched) {
	char edu[32];
	struct genl_sock s;
	struct genl_sock l;
};

FIXTURE_SETUP(sched)
{
	ASSERT_EQ(0, gp_setup_edu(self->edu, sizeof(self->edu), NULL, &self->s));
	ASSERT_EQ(0, gp_listen(&self->l, 8 << 20));
}

FIXTURE_TEARDOWN(sched)
{
	genl_close(&self->l);
	genl_close(&self->s);
	mod_unload("gpuprobe");
	mod_unload("gpuprobe_edu");
}

struct sched_tally {
	uint32_t watched[2];	/* child, grandchild */
	int wakeups[2], switches[2];
	int foreign;
};

static void foreign(struct sched_tally *t, const struct gpuprobe_rec_sched *r)
{
	if (t->foreign++ < 5)
		fprintf(stderr, "# foreign: type %u pid %u tgid %u prev %u cpu %u\n",
		       r->hdr.type, r->pid, r->tgid, r->prev_pid, r->target_cpu);
}

static int which(const struct sched_tally *t, uint32_t tgid)
{
	return tgid == t->watched[0] ? 0 : tgid == t->watched[1] ? 1 : -1;
}

static void sched_cb(void *arg, const uint8_t *p, size_t len)
{
	struct sched_tally *t = arg;

	while (len >= sizeof(struct gpuprobe_rec_hdr)) {
		const struct gpuprobe_rec_hdr *h = (const void *)p;
		const struct gpuprobe_rec_sched *r = (const void *)p;

		if (h->size < sizeof(*h) || h->size > len)
			return;
		if (h->type == GPUPROBE_EV_WAKEUP) {
			if (which(t, r->tgid) < 0)
				foreign(t, r);
			else
				t->wakeups[which(t, r->tgid)]++;
		} else if (h->type == GPUPROBE_EV_SWITCH) {
			/* in: next is watched; out: prev is (prev_pid) */
			if (which(t, r->tgid) >= 0)
				t->switches[which(t, r->tgid)]++;
			else if (r->prev_pid != t->watched[0] &&
				 r->prev_pid != t->watched[1])
				foreign(t, r);
		}
		p += h->size;
		len -= h->size;
	}
}

static void read_sched(struct genl_sock *l, struct sched_tally *t)
{
	gp_recv_records(l, sched_cb, t);
}

TEST_F(sched, watched_groups_and_their_forks_only)
{
	struct sched_tally t = {};
	int go[2], report[2], status;
	pid_t child, grandchild = 0;
	char c = 'x';

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(report));
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		pid_t g;

		/* blocks until the parent writes: a wake-up to record */
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		g = fork();
		if (g == 0) {
			usleep(20000);
			_exit(0);
		}
		if (write(report[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		waitpid(g, NULL, 0);
		_exit(0);
	}
	t.watched[0] = child;
	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TGID_ADD, NULL,
			    GPUPROBE_A_TGID, child));
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP) |
			      GPUPROBE_EVMASK(GPUPROBE_EV_SWITCH)));
	usleep(50000);
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(sizeof(grandchild), read(report[0], &grandchild,
					   sizeof(grandchild)));
	t.watched[1] = grandchild;
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, gp_stop(&self->s));
	read_sched(&self->l, &t);

	TH_LOG("child %d: %d wakeups %d switches; grandchild %d: %d wakeups %d switches; foreign %d",
	       child, t.wakeups[0], t.switches[0], grandchild, t.wakeups[1],
	       t.switches[1], t.foreign);
	EXPECT_GE(t.wakeups[0], 1);
	EXPECT_GE(t.switches[0], 1);
	EXPECT_GE(t.switches[1], 1);
	EXPECT_EQ(0, t.foreign);
}

TEST_F(sched, summary_mode_histogram_exact)
{
	struct gp_tally tally = {};
	struct genl_msg *m = calloc(1, sizeof(*m));
	const int n = 1500;
	long long before, delta;
	int irq = (int)edu_stat(self->edu, "irq");
	uint64_t count = 0, bucket_sum = 0;
	uint32_t bdf = 0;
	char cmd[16];

	genl_msg_init(m, self->s.family, 0, GPUPROBE_CMD_START);
	genl_put_u32(m, GPUPROBE_A_EVENT_MASK, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));
	genl_put(m, GPUPROBE_A_SUMMARY, NULL, 0);
	ASSERT_EQ(0, genl_xfer(&self->s, m, NULL, NULL));
	before = proc_irq_count(irq);
	snprintf(cmd, sizeof(cmd), "%d", n);
	ASSERT_EQ(0, edu_ctl(self->edu, "irq", cmd));
	delta = proc_irq_count(irq) - before;
	ASSERT_EQ(0, gp_stop(&self->s));
	gp_drain(&self->l, &tally);
	EXPECT_EQ(0, tally.irq_total);	/* no records in summary mode */

	genl_msg_init(m, self->s.family, 0, GPUPROBE_CMD_SUMMARY_GET);
	{
		static char rbuf[65536] __attribute__((aligned(8)));
		struct nlmsghdr *nlh = (struct nlmsghdr *)m->buf;
		struct nlattr *nla, *a;
		int rem, arem;
		ssize_t len;

		nlh->nlmsg_len = m->len;
		nlh->nlmsg_flags = NLM_F_REQUEST;
		ASSERT_EQ((ssize_t)m->len, send(self->s.fd, m->buf, m->len, 0));
		len = recv(self->s.fd, rbuf, sizeof(rbuf), 0);
		ASSERT_GT(len, 0);
		nlh = (struct nlmsghdr *)rbuf;
		ASSERT_EQ(self->s.family, nlh->nlmsg_type);
		for (nla = genl_attrs(nlh, &rem); GENL_ATTR_OK(nla, rem);
		     nla = GENL_ATTR_NEXT(nla, rem)) {
			if ((nla->nla_type & NLA_TYPE_MASK) != GPUPROBE_A_HIST)
				continue;
			arem = nla->nla_len - NLA_HDRLEN;
			for (a = GENL_ATTR_DATA(nla); GENL_ATTR_OK(a, arem);
			     a = GENL_ATTR_NEXT(a, arem)) {
				uint64_t *b = GENL_ATTR_DATA(a);

				if (a->nla_type == GPUPROBE_A_HIST_BDF)
					bdf = *(uint32_t *)b;
				if (a->nla_type == GPUPROBE_A_HIST_COUNT)
					memcpy(&count, b, 8);
				if (a->nla_type == GPUPROBE_A_HIST_BUCKETS)
					for (int i = 0; i < 64; i++)
						bucket_sum += b[i];
			}
		}
	}
	free(m);
	EXPECT_EQ(n, delta);
	EXPECT_EQ(gp_bdf(self->edu), bdf);
	EXPECT_EQ(n, count);
	EXPECT_EQ(n, bucket_sum);
}

/*
 * A followed thread group leaves the set when its last thread exits: its
 * number will be reused, and the new owner is a stranger.  The grandchild,
 * followed through fork, and the child, added by TGID_ADD, both go.
 */
TEST_F(sched, exited_groups_leave_the_set)
{
	int go[2], go2[2], report[2], status;
	pid_t child, grandchild = 0;
	char c = 'x';

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(go2));
	ASSERT_EQ(0, pipe(report));
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		pid_t g;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		g = fork();
		if (g == 0)
			_exit(read(go2[0], &c, 1) == 1 ? 0 : 1);
		if (write(report[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		waitpid(g, NULL, 0);
		if (write(report[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		_exit(read(go[0], &c, 1) == 1 ? 0 : 1);
	}
	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TGID_ADD, NULL,
			    GPUPROBE_A_TGID, child));
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP) |
			      GPUPROBE_EVMASK(GPUPROBE_EV_SWITCH)));
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(sizeof(grandchild), read(report[0], &grandchild,
					   sizeof(grandchild)));
	/* followed through fork while it lives */
	EXPECT_EQ(-EEXIST, gp_cmd(&self->s, GPUPROBE_CMD_TGID_ADD, NULL,
				  GPUPROBE_A_TGID, grandchild));
	ASSERT_EQ(1, write(go2[1], &c, 1));
	ASSERT_EQ(sizeof(grandchild), read(report[0], &grandchild,
					   sizeof(grandchild)));
	EXPECT_EQ(-ENOENT, gp_cmd(&self->s, GPUPROBE_CMD_TGID_DEL, NULL,
				  GPUPROBE_A_TGID, grandchild));
	EXPECT_EQ(-EEXIST, gp_cmd(&self->s, GPUPROBE_CMD_TGID_ADD, NULL,
				  GPUPROBE_A_TGID, child));
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(-ENOENT, gp_cmd(&self->s, GPUPROBE_CMD_TGID_DEL, NULL,
				  GPUPROBE_A_TGID, child));
	ASSERT_EQ(0, gp_stop(&self->s));
}

/* pid namespaces: what a caller in one names, and what it is shown */
#define NS_SLEEPS 100

/* Sleeps that each end in a wake-up of this task. */
static void ns_sleep(void)
{
	for (int i = 0; i < NS_SLEEPS; i++)
		usleep(2000);
}

struct ns_tally {
	uint32_t tgid;		/* whose wake-ups to count */
	uint32_t seen[3];	/* the only ids a record may show, else bad */
	int wakeups, records, bad;
};

static bool ns_seen(const struct ns_tally *t, uint32_t id)
{
	return id == t->seen[0] || id == t->seen[1] || id == t->seen[2];
}

static void ns_cb(void *arg, const uint8_t *p, size_t len)
{
	struct ns_tally *t = arg;

	while (len >= sizeof(struct gpuprobe_rec_hdr)) {
		const struct gpuprobe_rec_hdr *h = (const void *)p;
		const struct gpuprobe_rec_sched *r = (const void *)p;

		if (h->size < sizeof(*h) || h->size > len)
			return;
		if (h->type == GPUPROBE_EV_WAKEUP || h->type == GPUPROBE_EV_SWITCH) {
			t->records++;
			if (h->type == GPUPROBE_EV_WAKEUP && r->tgid == t->tgid)
				t->wakeups++;
			if (!ns_seen(t, r->pid) || !ns_seen(t, r->tgid) ||
			    !ns_seen(t, r->prev_pid))
				if (t->bad++ < 5)
					fprintf(stderr, "# not visible: type %u pid %u tgid %u prev %u\n",
						h->type, r->pid, r->tgid, r->prev_pid);
		}
		p += h->size;
		len -= h->size;
	}
}

/*
 * A TGID is the caller's: a process in its own pid namespace names itself
 * 1, which the initial namespace calls something else (and 1 is init
 * there), and cannot name what it cannot see.
 */
TEST_F(sched, tgid_in_the_callers_pid_namespace)
{
	struct ns_tally t = { .seen = { 0, 0, 0 } };
	int report[2], status;
	int32_t errs[2] = { 1, 1 };
	pid_t child;

	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP)));
	ASSERT_EQ(0, pipe(report));
	if (unshare(CLONE_NEWPID)) {
		/* EINVAL: a kernel built without CONFIG_PID_NS (the debug tier's) */
		ASSERT_EQ(EINVAL, errno);
		SKIP(return, "no pid namespaces in this kernel (CONFIG_PID_NS)");
	}
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		struct genl_sock s;

		if (genl_open(&s, GPUPROBE_FAMILY_NAME, NULL))
			_exit(1);
		/* itself, then a pid nobody has in this namespace */
		errs[0] = gp_cmd(&s, GPUPROBE_CMD_TGID_ADD, NULL,
				 GPUPROBE_A_TGID, getpid());
		errs[1] = gp_cmd(&s, GPUPROBE_CMD_TGID_ADD, NULL,
				 GPUPROBE_A_TGID, 2);
		ns_sleep();
		_exit(write(report[1], errs, sizeof(errs)) == sizeof(errs) ? 0 : 1);
	}
	ASSERT_EQ(sizeof(errs), read(report[0], errs, sizeof(errs)));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, gp_stop(&self->s));
	t.tgid = child;		/* the owner's (initial) namespace's view */
	gp_recv_records(&self->l, ns_cb, &t);
	TH_LOG("child %d (1 in its namespace): TGID_ADD %d, of 2: %d; %d wakeups of %d records",
	       child, errs[0], errs[1], t.wakeups, t.records);
	EXPECT_EQ(0, errs[0]);
	EXPECT_EQ(-ESRCH, errs[1]);
	EXPECT_GE(t.wakeups, NS_SLEEPS);
}

/* The child's part of records_in_the_owners_pid_namespace: 0 if it passed. */
static int ns_owner(void)
{
	struct ns_tally t = { .seen = { 0, 1 } };
	struct genl_sock s, l;
	pid_t worker;
	int status, go[2];
	char c = 'x';

	if (genl_open(&s, GPUPROBE_FAMILY_NAME, NULL) || gp_listen(&l, 8 << 20) ||
	    pipe(go))
		return 10;
	worker = fork();
	if (worker == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		ns_sleep();
		_exit(0);
	}
	t.tgid = worker;
	t.seen[2] = worker;
	if (gp_cmd(&s, GPUPROBE_CMD_TGID_ADD, NULL, GPUPROBE_A_TGID, worker) ||
	    gp_start(&s, GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP) |
		     GPUPROBE_EVMASK(GPUPROBE_EV_SWITCH)))
		return 11;
	if (write(go[1], &c, 1) != 1 || waitpid(worker, &status, 0) != worker)
		return 12;
	if (gp_stop(&s))
		return 13;
	gp_recv_records(&l, ns_cb, &t);
	fprintf(stderr, "# worker %d: %d wakeups, %d records, %d with ids not of this namespace\n",
		worker, t.wakeups, t.records, t.bad);
	return t.wakeups >= NS_SLEEPS && !t.bad ? 0 : 20;
}

/*
 * An owner in its own pid namespace sees its namespace's ids in records,
 * 0 for a task it cannot see (the idle task's 0 too): the worker it forked
 * and follows, itself (1), and nothing of the initial namespace.
 */
TEST_F(sched, records_in_the_owners_pid_namespace)
{
	int status;
	pid_t child;

	if (unshare(CLONE_NEWPID)) {
		/* EINVAL: a kernel built without CONFIG_PID_NS (the debug tier's) */
		ASSERT_EQ(EINVAL, errno);
		SKIP(return, "no pid namespaces in this kernel (CONFIG_PID_NS)");
	}
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0)
		_exit(ns_owner());
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * Edu's interrupts and this thread's wake-ups, each kept with its time:
 * the records come from per-CPU rings (a wake-up written inside the
 * handler, before the handler's own record at its exit; or on another
 * CPU, queued to the writer's), so the stream's order says nothing and
 * the pairing is by time, after all are in.
 */
#define WAKE_IRQS 50
#define WAKE_MAX 256

struct irq_wake_tally {
	uint32_t bdf, tid;
	uint64_t irq_ts[WAKE_MAX], wake_ts[WAKE_MAX];
	int irqs, wakes;
};

static void irq_wake_cb(void *arg, const uint8_t *p, size_t len)
{
	struct irq_wake_tally *t = arg;

	while (len >= sizeof(struct gpuprobe_rec_hdr)) {
		const struct gpuprobe_rec_hdr *h = (const void *)p;
		const struct gpuprobe_rec_irq *irq = (const void *)p;
		const struct gpuprobe_rec_sched *r = (const void *)p;

		if (h->size < sizeof(*h) || h->size > len)
			return;
		if (h->type == GPUPROBE_EV_IRQ && irq->bdf == t->bdf) {
			if (t->irqs < WAKE_MAX)
				t->irq_ts[t->irqs] = h->ts_ns;
			t->irqs++;
		} else if (h->type == GPUPROBE_EV_WAKEUP && r->pid == t->tid) {
			if (t->wakes < WAKE_MAX)
				t->wake_ts[t->wakes] = h->ts_ns;
			t->wakes++;
		}
		p += h->size;
		len -= h->size;
	}
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Interrupts followed by a wake-up of the writer before the next interrupt. */
static int irqs_woken(struct irq_wake_tally *t)
{
	int ni = t->irqs < WAKE_MAX ? t->irqs : WAKE_MAX;
	int nw = t->wakes < WAKE_MAX ? t->wakes : WAKE_MAX;
	int woken = 0, w = 0;

	qsort(t->irq_ts, ni, sizeof(t->irq_ts[0]), u64_cmp);
	qsort(t->wake_ts, nw, sizeof(t->wake_ts[0]), u64_cmp);
	for (int i = 0; i < ni; i++) {
		while (w < nw && t->wake_ts[w] < t->irq_ts[i])
			w++;
		if (w < nw && (i + 1 == ni || t->wake_ts[w] < t->irq_ts[i + 1]))
			woken++;
	}
	return woken;
}

/*
 * What the merged trace's last stage (guest handler -> thread wake) needs
 * of its workload: through edu's irq_sleep the writer is asleep before each
 * raise, so every interrupt's handler wakes it, even one that comes during
 * the MMIO write (TCG delivers edu's MSI at once: through irq the loop's
 * wait mostly finds its completion done and sleeps not at all).
 */
TEST_F(sched, irq_sleep_wakes_the_writer_at_each_interrupt)
{
	struct irq_wake_tally t = { .bdf = gp_bdf(self->edu), .tid = (uint32_t)gettid() };
	char cmd[16];
	int woken;

	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TGID_ADD, NULL,
			    GPUPROBE_A_TGID, getpid()));
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ) |
			      GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP)));
	snprintf(cmd, sizeof(cmd), "%d", WAKE_IRQS);
	ASSERT_EQ(0, edu_ctl(self->edu, "irq_sleep", cmd));
	ASSERT_EQ(0, gp_stop(&self->s));
	gp_recv_records(&self->l, irq_wake_cb, &t);
	woken = irqs_woken(&t);
	TH_LOG("irq_sleep %d: %d edu interrupts, %d wake-ups of the writer (tid %u), %d interrupts with one before the next",
	       WAKE_IRQS, t.irqs, t.wakes, t.tid, woken);
	EXPECT_EQ(WAKE_IRQS, t.irqs);
	EXPECT_EQ(WAKE_IRQS, woken);
}

TEST_HARNESS_MAIN
