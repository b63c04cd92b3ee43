// SPDX-License-Identifier: GPL-2.0
/*
 * TARGET_GET is a dump that resumes by position in the target list: one
 * that races a target's removal or addition must say so (NLM_F_DUMP_INTR).
 * Its targets must not fit one part of the dump: scripts/test.sh runs it
 * in the VM with many edu devices (VM_EDUS=24), every PCI function a target.
 */
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "session.h"

FIXTURE(dump) {
	char edu[32];
	struct genl_sock s;
};

FIXTURE_SETUP(dump)
{
	ASSERT_EQ(0, gp_setup_edu(self->edu, sizeof(self->edu), "max_targets=64",
				  &self->s));
}

FIXTURE_TEARDOWN(dump)
{
	genl_close(&self->s);
	mod_unload("gpuprobe");
	mod_unload("gpuprobe_edu");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Every PCI function in the VM as a target; returns how many were added. */
static int add_every_function(struct genl_sock *s)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    !gp_cmd(s, GPUPROBE_CMD_TARGET_ADD, e->d_name, 0, 0))
			n++;
	closedir(d);
	return n;
}

/* Takes edu out of the targets and puts it back (at the end), until killed. */
static void toggle_target(const char *bdf)
{
	struct genl_sock s;

	if (genl_open(&s, GPUPROBE_FAMILY_NAME, NULL))
		_exit(1);
	for (;;) {
		gp_cmd(&s, GPUPROBE_CMD_TARGET_DEL, bdf, 0, 0);
		gp_cmd(&s, GPUPROBE_CMD_TARGET_ADD, bdf, 0, 0);
	}
}

struct dump_result {
	int parts;		/* recv()s that carried messages */
	int intr;		/* NLM_F_DUMP_INTR on any of them */
	int targets;		/* TARGET messages */
	int edu;		/* of them, the toggled target */
	int err;
};

/*
 * One TARGET_GET dump read 4 KiB at a time, as the first part is (its
 * size is the core's NLMSG_GOODSIZE until a larger read), so that it comes
 * in parts; a pause before the reads lets the list change between them.
 */
static void dump_targets(int fd, uint16_t family, const char *edu,
			 uint32_t seq, struct dump_result *r)
{
	static char buf[4096] __attribute__((aligned(8)));
	struct genl_msg m;
	struct nlmsghdr *nlh;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	genl_msg_init(&m, family, NLM_F_DUMP, GPUPROBE_CMD_TARGET_GET);
	nlh = (struct nlmsghdr *)m.buf;
	nlh->nlmsg_len = m.len;
	nlh->nlmsg_seq = seq;
	if (send(fd, m.buf, m.len, 0) != (ssize_t)m.len) {
		r->err = -errno;
		return;
	}
	usleep(2000);
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0) {
			r->err = n ? -errno : -EIO;
			return;
		}
		r->parts++;
		for (nlh = (void *)buf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			struct nlattr *nla, *b;
			int rem;

			if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
				r->intr = 1;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				r->err = ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
				return;
			}
			nla = genl_attrs(nlh, &rem);
			nla = genl_find(nla, rem, GPUPROBE_A_TARGET);
			if (!nla)
				continue;
			r->targets++;
			b = genl_find(GENL_ATTR_DATA(nla), nla->nla_len - NLA_HDRLEN,
				      GPUPROBE_A_TARGET_BDF);
			if (b && !strcmp(GENL_ATTR_DATA(b), edu))
				r->edu++;
		}
	}
}

/*
 * TARGET_GET resumes by position in the list: a target removed or added
 * between two parts shifts the rest, and the dump shows one twice or
 * skips one.  Such a dump must say so (NLM_F_DUMP_INTR); one that does not
 * must be whole: every target once.
 */
TEST_F_TIMEOUT(dump, racing_target_changes_is_flagged, 120)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int total, fd, status, dumps = 0, intr = 0, split = 0, bad = 0;
	struct dump_result r;
	double t0;
	pid_t pid;

	/* edu is one already (target=) */
	total = 1 + add_every_function(&self->s);
	ASSERT_GT(total, 1);
	/* a socket that never read more than 4 KiB: parts of at most that */
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&sa, sizeof(sa)));
	dump_targets(fd, self->s.family, self->edu, 1, &r);
	ASSERT_EQ(0, r.err);
	TH_LOG("%d targets, listed in %d parts", total, r.parts);
	/* more than one part, or there is nothing to race */
	ASSERT_GE(r.parts, 3);	/* the data in two or more, then DONE */
	ASSERT_EQ(total, r.targets);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		toggle_target(self->edu);
	for (t0 = now_s(); now_s() - t0 < 30 && intr < 20; dumps++) {
		dump_targets(fd, self->s.family, self->edu, dumps + 2, &r);
		if (r.err)
			break;
		split += r.parts >= 3;
		if (r.intr)
			intr++;
		else if (r.targets - r.edu != total - 1 || r.edu > 1)
			bad++;
	}
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(fd);
	TH_LOG("%d dumps (%d in parts), %d flagged, %d unflagged but not whole",
	       dumps, split, intr, bad);
	EXPECT_EQ(0, r.err);
	EXPECT_GE(intr, 1);
	EXPECT_EQ(0, bad);
}

TEST_HARNESS_MAIN
