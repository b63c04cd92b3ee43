// SPDX-License-Identifier: GPL-2.0
/*
 * TARGET_GET is a dump that resumes by position in the target list: one
 * that races a target's removal or addition must say so (NLM_F_DUMP_INTR).
 * Its targets must not fit one part of the dump: scripts/test.sh runs it
 * in the VM with many edu devices (VM_EDUS=24), every PCI function a target.
 * A target of more vectors than one message holds (VM_SERIAL_PORTS: a
 * virtio-serial device of 2 vectors a port) is listed in parts, each
 * vector once, and a change of its vectors between parts is flagged.
 */
#include <dirent.h>
#include <limits.h>
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
			if (nlh->nlmsg_type == NLMSG_DONE) {
				r->err = nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) ?
					 *(int *)NLMSG_DATA(nlh) : 0;
				return;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				r->err = ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
				return;
			}
			nla = genl_attrs(nlh, &rem);
			nla = genl_find(nla, rem, GPUPROBE_A_TARGET);
			if (!nla)
				continue;
			/* a large target's vectors go on: not another target */
			if (genl_find(GENL_ATTR_DATA(nla), nla->nla_len - NLA_HDRLEN,
				      GPUPROBE_A_TARGET_CONTINUED))
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

#define MAX_VEC 2048

/* The PCI function with the most MSI/MSI-X vectors (sysfs), and their irqs. */
static int most_vectors(char *bdf, size_t len, int *irqs)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	int n, best = 0;
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		/* a PCI address: dddd:bb:dd.f */
		if (e->d_name[0] == '.' || strlen(e->d_name) >= len)
			continue;
		n = pci_msi_irqs(e->d_name, irqs, MAX_VEC);
		if (n > best) {
			best = n;
			memcpy(bdf, e->d_name, strlen(e->d_name) + 1);
		}
	}
	closedir(d);
	return best ? pci_msi_irqs(bdf, irqs, MAX_VEC) : 0;
}

/* What one TARGET_GET dump, read 4 KiB at a time, says of one target. */
struct vec_listing {
	int irq[MAX_VEC];
	int nvec;
	int msgs;		/* messages of the target, the first included */
	int continued;		/* of them, CONTINUED */
	int bad_part;		/* CONTINUED but with identity, or not first */
	int targets;		/* other targets' first messages */
	int intr;
	int err;
};

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void note_vectors(struct nlattr *nla, int rem, struct vec_listing *v)
{
	struct nlattr *a, *irq;

	for (a = nla; GENL_ATTR_OK(a, rem); a = GENL_ATTR_NEXT(a, rem)) {
		if ((a->nla_type & NLA_TYPE_MASK) != GPUPROBE_A_TARGET_VECTOR)
			continue;
		irq = genl_find(GENL_ATTR_DATA(a), a->nla_len - NLA_HDRLEN,
				GPUPROBE_A_VECTOR_IRQ);
		if (irq && v->nvec < MAX_VEC)
			v->irq[v->nvec++] = *(int *)GENL_ATTR_DATA(irq);
	}
}

/*
 * between(): run after the request is sent, before the first read: the
 * first part is made at the send, the next ones as the reads empty the
 * socket, so a change made there falls between two parts.
 */
static void dump_one(int fd, uint16_t family, const char *bdf, uint32_t seq,
		     void (*between)(void *), void *arg, struct vec_listing *v)
{
	static char buf[4096] __attribute__((aligned(8)));
	struct nlmsghdr *nlh;
	struct genl_msg m;
	ssize_t n;

	memset(v, 0, sizeof(*v));
	genl_msg_init(&m, family, NLM_F_DUMP, GPUPROBE_CMD_TARGET_GET);
	nlh = (struct nlmsghdr *)m.buf;
	nlh->nlmsg_len = m.len;
	nlh->nlmsg_seq = seq;
	if (send(fd, m.buf, m.len, 0) != (ssize_t)m.len) {
		v->err = -errno;
		return;
	}
	if (between)
		between(arg);
	for (;;) {
		bool first_in_part = true;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0) {
			v->err = n ? -errno : -EIO;
			return;
		}
		for (nlh = (void *)buf; NLMSG_OK(nlh, n);
		     nlh = NLMSG_NEXT(nlh, n), first_in_part = false) {
			struct nlattr *nla, *b;
			bool cont;
			int rem;

			if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
				v->intr = 1;
			if (nlh->nlmsg_type == NLMSG_DONE) {
				v->err = nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) ?
					 *(int *)NLMSG_DATA(nlh) : 0;
				return;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				v->err = ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
				return;
			}
			nla = genl_attrs(nlh, &rem);
			nla = genl_find(nla, rem, GPUPROBE_A_TARGET);
			if (!nla)
				continue;
			rem = nla->nla_len - NLA_HDRLEN;
			nla = GENL_ATTR_DATA(nla);
			b = genl_find(nla, rem, GPUPROBE_A_TARGET_BDF);
			cont = genl_find(nla, rem, GPUPROBE_A_TARGET_CONTINUED);
			if (!b || strcmp(GENL_ATTR_DATA(b), bdf)) {
				v->targets += !cont;
				continue;
			}
			v->msgs++;
			if (cont) {
				v->continued++;
				/* a part of its own, the BDF its only identity */
				if (!first_in_part ||
				    genl_find(nla, rem, GPUPROBE_A_TARGET_VENDOR))
					v->bad_part++;
			} else if (v->msgs > 1) {
				v->bad_part++;	/* listed again from the start */
			}
			note_vectors(nla, rem, v);
		}
	}
}

static int dump_socket(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* 150 vectors of 28 bytes do not fit a 4 KiB part */
#define LARGE_TARGET 150

/*
 * A target's vectors, all of them: MSI-X allows 2048, a page-sized dump
 * message holds about 130.  The list goes on in CONTINUED messages, each
 * the first of its part; together they list the irqs sysfs lists, each
 * once.  (The module before: the dump ended in EMSGSIZE.)
 */
TEST_F(dump, every_vector_of_a_large_target_listed)
{
	static int irqs[MAX_VEC];
	static struct vec_listing v;
	char big[32] = "";
	int n, fd;

	n = most_vectors(big, sizeof(big), irqs);
	TH_LOG("most vectors: %s, %d", big, n);
	if (n < LARGE_TARGET)
		SKIP(return, "no PCI function with %d or more vectors (VM_SERIAL_PORTS=99 boots one)",
		     LARGE_TARGET);
	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_ADD, big, 0, 0));
	fd = dump_socket();
	ASSERT_GE(fd, 0);
	/* edu first, the large target after it */
	dump_one(fd, self->s.family, big, 1, NULL, NULL, &v);
	close(fd);
	TH_LOG("%s: %d vectors in %d messages (%d continued)", big, v.nvec,
	       v.msgs, v.continued);
	ASSERT_EQ(0, v.err);
	EXPECT_EQ(0, v.intr);
	EXPECT_EQ(1, v.targets);		/* edu */
	EXPECT_GE(v.msgs, 2);
	EXPECT_EQ(v.msgs - 1, v.continued);
	EXPECT_EQ(0, v.bad_part);
	ASSERT_EQ(n, v.nvec);
	qsort(irqs, n, sizeof(int), cmp_int);
	qsort(v.irq, v.nvec, sizeof(int), cmp_int);
	for (int i = 0; i < n; i++)
		ASSERT_EQ(irqs[i], v.irq[i]);
	/* the selftests' reader, on a socket that reads more at a time */
	EXPECT_EQ(n, gp_target_nvec(&self->s, big));
	EXPECT_EQ(1, gp_target_has_irq(&self->s, big, irqs[n - 1]));
}

struct unbind_arg {
	const char *bdf;
	int err;
};

static void unbind_device(void *arg)
{
	struct unbind_arg *u = arg;
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver/unbind",
		 u->bdf);
	u->err = write_file(path, u->bdf);
}

/*
 * A dump resumes within a large target's list by position: vectors that
 * change between two parts (the driver unbound: none) must flag it.
 */
TEST_F(dump, vectors_changing_between_parts_is_flagged)
{
	static int irqs[MAX_VEC];
	static struct vec_listing v;
	struct unbind_arg u = { 0 };
	char big[32] = "", drv[PATH_MAX], link[160];
	ssize_t len;
	int n, fd;

	n = most_vectors(big, sizeof(big), irqs);
	if (n < LARGE_TARGET)
		SKIP(return, "no PCI function with %d or more vectors (VM_SERIAL_PORTS=99 boots one)",
		     LARGE_TARGET);
	snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s/driver", big);
	len = readlink(link, drv, sizeof(drv) - 1);
	ASSERT_GT(len, 0);
	drv[len] = '\0';
	/* alone: the first part is the large target's first vectors */
	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_DEL, self->edu, 0, 0));
	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_ADD, big, 0, 0));
	fd = dump_socket();
	ASSERT_GE(fd, 0);
	/* unchanged: whole and not flagged */
	dump_one(fd, self->s.family, big, 1, NULL, NULL, &v);
	EXPECT_EQ(0, v.err);
	EXPECT_EQ(0, v.intr);
	EXPECT_EQ(n, v.nvec);
	EXPECT_GE(v.continued, 1);

	u.bdf = big;
	dump_one(fd, self->s.family, big, 2, unbind_device, &u, &v);
	close(fd);
	TH_LOG("unbound between the parts: %d of %d vectors listed, flagged %d",
	       v.nvec, n, v.intr);
	/* bound again, by the driver it had */
	snprintf(link, sizeof(link), "/sys/bus/pci/drivers/%s/bind",
		 strrchr(drv, '/') + 1);
	EXPECT_EQ(0, write_file(link, big));
	ASSERT_EQ(0, u.err);
	EXPECT_EQ(0, v.err);
	EXPECT_LT(v.nvec, n);
	EXPECT_EQ(1, v.intr);
	/* rebound: every vector again (its new irqs) */
	EXPECT_EQ(pci_msi_irqs(big, irqs, MAX_VEC), gp_target_nvec(&self->s, big));
}

TEST_HARNESS_MAIN
