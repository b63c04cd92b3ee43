// SPDX-License-Identifier: GPL-2.0
/*
 * record --cgroup: TGID_ADD with a CGROUP id follows every task of that
 * cgroup v2 and below it, whatever its pid namespace, the ones forked in
 * it and moved into it during the session included, and nobody else.
 * Workers sleep on edu interrupts (the irq file waits for each one; under
 * TCG some arrive before the wait, so each worker also sleeps once on a
 * pipe or a timer: at least one wake-up each for sure).  What each worker
 * is, and when it moved, the test knows from its own forks; a record of
 * any other task, or of the joiner before its move, is a failure.
 */
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "session.h"

#define CG_ROOT	"/sys/fs/cgroup"
#define CG_TEST	CG_ROOT "/gpuprobe_test"
#define CG_SUB	CG_TEST "/sub"
#define CG2_MAGIC 0x63677270

FIXTURE(cg) {
	char edu[32];
	struct genl_sock s;
	struct genl_sock l;
	uint64_t id;
};

static uint64_t dir_ino(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
}

FIXTURE_SETUP(cg)
{
	struct statfs fs;

	if (statfs(CG_ROOT, &fs) || fs.f_type != CG2_MAGIC) {
		mkdir(CG_ROOT, 0755);
		ASSERT_EQ(0, mount("none", CG_ROOT, "cgroup2", 0, NULL));
	}
	rmdir(CG_SUB);
	rmdir(CG_TEST);
	ASSERT_EQ(0, mkdir(CG_TEST, 0755));
	ASSERT_EQ(0, mkdir(CG_SUB, 0755));
	self->id = dir_ino(CG_TEST);
	ASSERT_NE(0, self->id);
	ASSERT_EQ(0, gp_setup_edu(self->edu, sizeof(self->edu), NULL, &self->s));
	ASSERT_EQ(0, gp_listen(&self->l, 8 << 20));
}

FIXTURE_TEARDOWN(cg)
{
	genl_close(&self->l);
	genl_close(&self->s);
	mod_unload("gpuprobe");
	mod_unload("gpuprobe_edu");
	rmdir(CG_SUB);
	rmdir(CG_TEST);
}

static int cg_cmd(struct genl_sock *s, uint8_t cmd, uint64_t id, uint32_t tgid)
{
	struct genl_msg *m = calloc(1, sizeof(*m));
	int err;

	if (!m)
		return -ENOMEM;
	genl_msg_init(m, s->family, 0, cmd);
	genl_put(m, GPUPROBE_A_CGROUP, &id, sizeof(id));
	if (tgid)
		genl_put_u32(m, GPUPROBE_A_TGID, tgid);
	err = genl_xfer(s, m, NULL, NULL);
	free(m);
	return err;
}

static int cg_join(const char *cg, pid_t pid)
{
	char path[128], s[16];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(s, sizeof(s), "%d", (int)pid);
	return write_file(path, s);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

#define EDU_WAKES "20"

/* A worker: each go byte, a 20 ms sleep and 20 edu interrupts; then a done byte. */
static pid_t worker(const char *edu, int *go, int *done)
{
	int g[2], d[2];
	pid_t pid;
	int st;
	char c;

	if (pipe(g) || pipe(d))
		return -1;
	pid = fork();
	if (pid)
		goto out;
	while (read(g[0], &c, 1) == 1) {
		if (c == 'q')
			_exit(0);
		if (c == 'n') {
			/* a child in a pid namespace of its own, forked in the cgroup */
			pid_t inner;

			if (unshare(CLONE_NEWPID))
				_exit(2);
			inner = fork();
			if (inner == 0) {
				/* one sure wake-up (a timer); the interrupts may add more */
				usleep(20000);
				_exit(edu_ctl(edu, "irq", EDU_WAKES) ? 3 : 0);
			}
			if (write(d[1], &inner, sizeof(inner)) != sizeof(inner))
				_exit(4);
			if (waitpid(inner, &st, 0) != inner ||
			    write(d[1], &st, sizeof(st)) != sizeof(st))
				_exit(4);
		}
		/*
		 * One sure wake-up (a timer): edu's loop sleeps on its
		 * interrupt only when another CPU handles it, so run on the
		 * vector's CPU it may not sleep at all (the full 6.1 VM run:
		 * c moved in, 0 wake-ups after the move)
		 */
		usleep(20000);
		if (edu_ctl(edu, "irq", EDU_WAKES))
			_exit(5);
		c = 'd';
		if (write(d[1], &c, 1) != 1)
			_exit(6);
	}
	_exit(7);
out:
	close(g[0]);
	close(d[1]);
	*go = g[1];
	*done = d[0];
	return pid;
}

static int run(int go, int done, char what)
{
	char c;

	return write(go, &what, 1) == 1 && read(done, &c, 1) == 1 && c == 'd' ? 0 : -1;
}

struct cg_tally {
	pid_t a, inner, b, c;
	uint64_t moved_from, moved_to;	/* c's move into sub, in between */
	int wake_a, wake_inner, wake_c_after;
	int c_before, b_seen, foreign;
};

static void cg_foreign(struct cg_tally *t, const struct gpuprobe_rec_sched *r)
{
	if (t->foreign++ < 5)
		fprintf(stderr, "# foreign: type %u pid %u tgid %u prev %u\n",
			r->hdr.type, r->pid, r->tgid, r->prev_pid);
}

static void cg_one(struct cg_tally *t, const struct gpuprobe_rec_sched *r)
{
	bool wake = r->hdr.type == GPUPROBE_EV_WAKEUP;
	uint32_t who = r->tgid;

	/* a switch is ours if either side is: next (tgid) or prev (prev_pid) */
	if (!wake && who != (uint32_t)t->a && who != (uint32_t)t->inner &&
	    who != (uint32_t)t->c)
		who = r->prev_pid;
	if (who == (uint32_t)t->b) {
		t->b_seen++;
	} else if (who == (uint32_t)t->c) {
		if (r->hdr.ts_ns < t->moved_from)
			t->c_before++;
		else if (r->hdr.ts_ns > t->moved_to && wake)
			t->wake_c_after++;
	} else if (who == (uint32_t)t->a) {
		t->wake_a += wake;
	} else if (who == (uint32_t)t->inner) {
		t->wake_inner += wake;
	} else if (wake || r->tgid) {
		/* a switch between two strangers' threads and idle is not ours either */
		cg_foreign(t, r);
	}
}

static void cg_cb(void *arg, const uint8_t *p, size_t len)
{
	while (len >= sizeof(struct gpuprobe_rec_hdr)) {
		const struct gpuprobe_rec_hdr *h = (const void *)p;

		if (h->size < sizeof(*h) || h->size > len)
			return;
		if (h->type == GPUPROBE_EV_WAKEUP || h->type == GPUPROBE_EV_SWITCH)
			cg_one(arg, (const void *)p);
		p += h->size;
		len -= h->size;
	}
}

TEST_F(cg, follows_the_cgroup_its_forks_and_joiners_only)
{
	int go_a, done_a, go_b, done_b, go_c, done_c;
	struct cg_tally t = {};
	int status;
	char c;

	t.a = worker(self->edu, &go_a, &done_a);
	t.b = worker(self->edu, &go_b, &done_b);
	t.c = worker(self->edu, &go_c, &done_c);
	ASSERT_GT(t.a, 0);
	ASSERT_GT(t.b, 0);
	ASSERT_GT(t.c, 0);
	ASSERT_EQ(0, cg_join(CG_TEST, t.a));

	ASSERT_EQ(0, cg_cmd(&self->s, GPUPROBE_CMD_TGID_ADD, self->id, 0));
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP) |
			      GPUPROBE_EVMASK(GPUPROBE_EV_SWITCH)));
	ASSERT_EQ(0, run(go_b, done_b, 'w'));		/* outside */
	ASSERT_EQ(0, run(go_c, done_c, 'w'));		/* outside, for now */
	t.moved_from = now_ns();
	ASSERT_EQ(0, cg_join(CG_SUB, t.c));		/* a descendant */
	t.moved_to = now_ns();
	ASSERT_EQ(0, run(go_c, done_c, 'w'));		/* inside */
	ASSERT_EQ(1, write(go_a, "n", 1));		/* its child in a new pid ns */
	ASSERT_EQ(sizeof(t.inner), read(done_a, &t.inner, sizeof(t.inner)));
	ASSERT_EQ(sizeof(status), read(done_a, &status, sizeof(status)));
	EXPECT_EQ(0, status);	/* it slept on its interrupts */
	ASSERT_EQ(1, read(done_a, &c, 1));
	ASSERT_EQ('d', c);
	ASSERT_EQ(0, run(go_b, done_b, 'w'));		/* outside again */
	ASSERT_EQ(0, gp_stop(&self->s));
	/* STOP let it go */
	EXPECT_EQ(-ENOENT, cg_cmd(&self->s, GPUPROBE_CMD_TGID_DEL, self->id, 0));
	gp_recv_records(&self->l, cg_cb, &t);

	ASSERT_EQ(1, write(go_a, "q", 1));
	ASSERT_EQ(1, write(go_b, "q", 1));
	ASSERT_EQ(1, write(go_c, "q", 1));
	ASSERT_EQ(t.a, waitpid(t.a, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	waitpid(t.b, NULL, 0);
	waitpid(t.c, NULL, 0);
	TH_LOG("in cgroup: a %d: %d wakeups, a's child %d (pid 1 of its ns): %d; c %d after the move: %d, before: %d records; outside b %d: %d records; foreign %d",
	       t.a, t.wake_a, t.inner, t.wake_inner, t.c, t.wake_c_after, t.c_before,
	       t.b, t.b_seen, t.foreign);
	EXPECT_GE(t.wake_a, 1);
	EXPECT_GE(t.wake_inner, 1);
	EXPECT_GE(t.wake_c_after, 1);
	EXPECT_EQ(0, t.c_before);
	EXPECT_EQ(0, t.b_seen);
	EXPECT_EQ(0, t.foreign);
}

TEST_F(cg, refusals)
{
	uint64_t sub;

	/* the id of a file, not of a cgroup */
	EXPECT_EQ(-ESRCH, cg_cmd(&self->s, GPUPROBE_CMD_TGID_ADD,
				 dir_ino(CG_TEST "/cgroup.procs"), 0));
	EXPECT_EQ(-EINVAL, cg_cmd(&self->s, GPUPROBE_CMD_TGID_ADD, self->id, getpid()));
	EXPECT_EQ(-ERANGE, cg_cmd(&self->s, GPUPROBE_CMD_TGID_ADD, 0, 0));	/* min 1 */
	EXPECT_EQ(-ENOENT, cg_cmd(&self->s, GPUPROBE_CMD_TGID_DEL, self->id, 0));
	EXPECT_EQ(0, cg_cmd(&self->s, GPUPROBE_CMD_TGID_ADD, self->id, 0));
	EXPECT_EQ(-EEXIST, cg_cmd(&self->s, GPUPROBE_CMD_TGID_ADD, dir_ino(CG_SUB), 0));
	EXPECT_EQ(-ENOENT, cg_cmd(&self->s, GPUPROBE_CMD_TGID_DEL, dir_ino(CG_SUB), 0));
	EXPECT_EQ(0, cg_cmd(&self->s, GPUPROBE_CMD_TGID_DEL, self->id, 0));
	/* the directory can go while followed; the module's reference holds the struct */
	sub = dir_ino(CG_SUB);
	EXPECT_EQ(0, cg_cmd(&self->s, GPUPROBE_CMD_TGID_ADD, sub, 0));
	EXPECT_EQ(0, rmdir(CG_SUB));
	EXPECT_EQ(0, cg_cmd(&self->s, GPUPROBE_CMD_TGID_DEL, sub, 0));
	/* gone: no cgroup has that id now */
	EXPECT_EQ(-ESRCH, cg_cmd(&self->s, GPUPROBE_CMD_TGID_ADD, sub, 0));
	/* one left followed, no session: the unload puts it (kmemleak in the debug tier) */
	EXPECT_EQ(0, cg_cmd(&self->s, GPUPROBE_CMD_TGID_ADD, self->id, 0));
}

TEST_HARNESS_MAIN
