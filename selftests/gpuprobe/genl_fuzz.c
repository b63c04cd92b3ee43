// SPDX-License-Identifier: GPL-2.0
/*
 * A netlink fuzzer for the gpuprobe family, driven by the ynl spec: the
 * tables in genl_fuzz_spec.h are generated from
 * Documentation/netlink/specs/gpuprobe.yaml (scripts/gen-genl-fuzz.py), so a
 * new op or attribute is fuzzed without touching this file.
 *
 * Each message is first built valid for its op (right attributes, plausible
 * values), then, most of the time, mutated: attribute lengths, types,
 * NLA_F_NESTED, nesting depth, unknown attributes, unknown commands, dump flag
 * on do-only ops, genl version.  The outer nlmsg_len always matches what is
 * sent (the netlink core drops a message whose length is a lie without an
 * answer; that is not ours to test).
 *
 * Checks, for every message: an NLMSG_ERROR or NLMSG_DONE answers it within
 * a second, every reply message parses (attributes fill it exactly), and an
 * unprivileged sender never gets an admin-perm op accepted (always EPERM).
 * The kernel side (oops, KASAN, lockdep, leaks) is checked by the VM harness.
 *
 *   genl_fuzz [-s SEED] [-n MESSAGES]     (default: a time seed, 100000)
 *
 * The same seed gives the same messages.
 */
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

#include "session.h"

enum fz_kind { FZ_U8, FZ_U16, FZ_U32, FZ_U64, FZ_STRING, FZ_FLAG, FZ_BINARY,
	       FZ_NEST, FZ_PAD };

struct fz_attr {
	const char *name;
	unsigned short type;
	enum fz_kind kind;
	int max_len;
	long long min;
	int nest;		/* index in fz_sets, -1 when not a nest */
};

struct fz_set {
	const char *name;
	const struct fz_attr *attrs;
	unsigned int n;
};

struct fz_op {
	const char *name;
	unsigned char cmd;
	int admin, has_do, has_dump, set;
	const unsigned short *req;
	unsigned int nreq;
};

#include "genl_fuzz_spec.h"

#define NOPS (sizeof(fz_ops) / sizeof(fz_ops[0]))

static uint64_t rng;

static uint64_t rnd(void)	/* xorshift64*: reproducible from the seed */
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static unsigned int below(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int percent)
{
	return below(100) < percent;
}

static char edu_bdf[32];

struct fz_result {
	unsigned long sent, answered, replies, errors[140], accepted_admin;
	unsigned long bad_replies, timeouts;
};

/* A value worth sending for an attribute of this kind. */
static size_t fz_value(const struct fz_attr *a, unsigned char *buf, size_t max)
{
	static const char *const bdfs[] = { NULL, "0000:00:00.0", "0000:ff:1f.7",
		"zzzz:00:00.0", "0000:00:04.0", "", "0000:00:03.0\n",
		"00000:000:00.0", "0000:00:02.0" };
	uint64_t v;
	size_t len;

	switch (a->kind) {
	case FZ_STRING:
		if (!strcmp(a->name, "bdf")) {
			const char *s = bdfs[below(sizeof(bdfs) / sizeof(bdfs[0]))];

			if (!s)
				s = edu_bdf;
			len = strlen(s) + 1;
			memcpy(buf, s, len);
			return len;
		}
		len = below(max < 40 ? max : 40);
		for (size_t i = 0; i < len; i++)
			buf[i] = 32 + below(95);
		buf[len] = 0;
		return len + 1;
	case FZ_FLAG:
	case FZ_PAD:
		return 0;
	case FZ_BINARY:
		len = below(max < 256 ? max : 256);
		for (size_t i = 0; i < len; i++)
			buf[i] = rnd();
		return len;
	case FZ_NEST:
		return 0;	/* filled by the caller */
	default:
		break;
	}
	switch (below(6)) {
	case 0: v = 0; break;
	case 1: v = 1; break;
	case 2: v = ~0ULL; break;
	case 3: v = a->min ? a->min : 2; break;
	case 4: v = 1u << below(32); break;
	default: v = rnd(); break;
	}
	if (!strcmp(a->name, "event-mask") && chance(50))
		v = rnd() & 0x1fe;	/* real event types */
	if (!strcmp(a->name, "tgid") && chance(50))
		v = getpid();
	len = a->kind == FZ_U8 ? 1 : a->kind == FZ_U16 ? 2 :
	      a->kind == FZ_U32 ? 4 : 8;
	memcpy(buf, &v, len);	/* little endian: the low bytes */
	return len;
}

static void put_attr(struct genl_msg *m, unsigned short type,
		     const void *data, size_t len)
{
	if (m->len + NLA_HDRLEN + NLA_ALIGN(len) > sizeof(m->buf) - 64)
		return;
	genl_put(m, type, data, len);
}

/* Random attributes of a set, nested up to depth levels. */
static void fz_fill_set(struct genl_msg *m, int set, int depth)
{
	const struct fz_set *s = &fz_sets[set];
	unsigned int n = 1 + below(4);
	unsigned char val[300];

	for (unsigned int i = 0; i < n; i++) {
		const struct fz_attr *a = &s->attrs[below(s->n)];
		struct nlattr *nest;
		size_t start;

		if (a->kind == FZ_NEST && depth > 0) {
			start = m->len;
			nest = (struct nlattr *)(m->buf + m->len);
			put_attr(m, a->type | NLA_F_NESTED, NULL, 0);
			if (m->len == start)
				return;
			fz_fill_set(m, a->nest, depth - 1);
			nest->nla_len = m->len - start;
			continue;
		}
		put_attr(m, a->type, val, fz_value(a, val, sizeof(val) - 1));
	}
}

/* One mutation of an already built message (attributes start at off). */
static void fz_mutate(struct genl_msg *m, size_t off)
{
	unsigned char junk[512];
	struct nlattr *nla;
	size_t pos, len;

	switch (below(8)) {
	case 0:	/* an attribute's length: shorter, longer, zero, past the end */
		if (m->len <= off)
			break;
		nla = (struct nlattr *)(m->buf + off);
		switch (below(4)) {
		case 0: nla->nla_len = below(NLA_HDRLEN); break;
		case 1: nla->nla_len = NLA_HDRLEN + below(3); break;
		case 2: nla->nla_len = m->len - off + 4 + below(64); break;
		default: nla->nla_len = NLA_HDRLEN + below(m->len - off); break;
		}
		break;
	case 1:	/* an attribute's type: unknown, zero, huge, with flags */
		if (m->len <= off)
			break;
		nla = (struct nlattr *)(m->buf + off);
		switch (below(4)) {
		case 0: nla->nla_type = 0; break;
		case 1: nla->nla_type = 100 + below(30000); break;
		case 2: nla->nla_type ^= NLA_F_NESTED; break;
		default: nla->nla_type = below(24); break;
		}
		break;
	case 2:	/* an unknown attribute appended */
		len = below(64);
		for (size_t i = 0; i < len; i++)
			junk[i] = rnd();
		put_attr(m, 18 + below(1000), junk, len);
		break;
	case 3:	/* attributes of another set, nested deep */
		fz_fill_set(m, below(sizeof(fz_sets) / sizeof(fz_sets[0])),
			    below(6));
		break;
	case 4:	/* a deep chain of empty nests */
		for (int d = 0, n = 1 + below(40); d < n; d++) {
			size_t start = m->len;

			put_attr(m, (1 + below(17)) | NLA_F_NESTED, NULL, 0);
			if (m->len == start)
				break;
		}
		break;
	case 5:	/* random bytes over the attribute area */
		if (m->len <= off)
			break;
		pos = off + below(m->len - off);
		len = below(m->len - pos) + 1;
		for (size_t i = 0; i < len; i++)
			m->buf[pos + i] = rnd();
		break;
	case 6:	/* the attribute area cut short */
		if (m->len > off)
			m->len = off + below(m->len - off);
		break;
	default:	/* a duplicate of every attribute */
		len = m->len - off;
		if (len && m->len + len < sizeof(m->buf) - 64) {
			memmove(m->buf + m->len, m->buf + off, len);
			m->len += len;
		}
		break;
	}
}

/* Builds message i: the op it is for, or NULL for an unknown command. */
static const struct fz_op *fz_build(struct genl_msg *m, uint16_t family)
{
	const struct fz_op *op = NULL;
	unsigned char val[300], cmd;
	struct genlmsghdr *g;
	uint16_t flags = 0;

	if (chance(4)) {
		cmd = below(256);
		for (unsigned int i = 0; i < NOPS; i++)
			if (fz_ops[i].cmd == cmd)
				op = &fz_ops[i];
	} else {
		op = &fz_ops[below(NOPS)];
		cmd = op->cmd;
	}
	if (op && op->has_dump && (!op->has_do || chance(50)))
		flags = NLM_F_DUMP;
	if (chance(5))
		flags ^= NLM_F_DUMP;
	genl_msg_init(m, family, flags, cmd);
	g = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);
	if (chance(3))
		g->version = below(256);
	if (op) {
		for (unsigned int i = 0; i < op->nreq; i++) {
			const struct fz_attr *a = NULL;
			const struct fz_set *s = &fz_sets[op->set];

			for (unsigned int j = 0; j < s->n; j++)
				if (s->attrs[j].type == op->req[i])
					a = &s->attrs[j];
			if (a && chance(85))
				put_attr(m, a->type, val,
					 fz_value(a, val, sizeof(val) - 1));
		}
	}
	if (chance(60)) {
		size_t off = NLMSG_HDRLEN + GENL_HDRLEN;

		for (unsigned int k = 1 + below(3); k; k--)
			fz_mutate(m, off);
	}
	return op;
}

/* Every attribute of a reply must fit it exactly. */
static bool fz_reply_ok(struct nlmsghdr *nlh, uint16_t family)
{
	struct nlattr *nla;
	int rem;

	if (nlh->nlmsg_type != family ||
	    nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return false;
	for (nla = genl_attrs(nlh, &rem); GENL_ATTR_OK(nla, rem);
	     nla = GENL_ATTR_NEXT(nla, rem))
		;
	return rem == 0 || (rem > 0 && rem < 4);
}

/* Sends m, waits for its answer.  Returns the errno (0 for success), or -1. */
static int fz_xfer(struct genl_sock *s, struct genl_msg *m,
		   struct fz_result *r)
{
	static char rbuf[GENL_BUF] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = (struct nlmsghdr *)m->buf;
	ssize_t n;

	nlh->nlmsg_len = m->len;
	nlh->nlmsg_seq = ++s->seq;
	if (send(s->fd, m->buf, m->len, 0) != (ssize_t)m->len)
		return -1;
	r->sent++;
	for (;;) {
		n = recv(s->fd, rbuf, sizeof(rbuf), 0);
		if (n < 0 && errno == ENOBUFS)
			continue;	/* records overran us; answers still come */
		if (n < 0) {
			r->timeouts++;
			return -1;
		}
		for (nlh = (struct nlmsghdr *)rbuf; NLMSG_OK(nlh, n);
		     nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_seq != s->seq)
				continue;	/* events, or a late answer */
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				int e = -((struct nlmsgerr *)NLMSG_DATA(nlh))->error;

				r->answered++;
				return e;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				r->answered++;
				return 0;
			}
			r->replies++;
			if (!fz_reply_ok(nlh, s->family))
				r->bad_replies++;
		}
	}
}

static void fz_run(struct genl_sock *s, unsigned long count, bool privileged,
		   struct fz_result *r)
{
	struct genl_msg *m = calloc(1, sizeof(*m));
	struct timeval tv = { .tv_sec = 1 };
	int rcvbuf = 1 << 20;

	setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	memset(r, 0, sizeof(*r));
	for (unsigned long i = 0; i < count && m; i++) {
		const struct fz_op *op = fz_build(m, s->family);
		int e = fz_xfer(s, m, r);

		if (e >= 0 && e < 140)
			r->errors[e]++;
		if (e == 0 && op && op->admin && !privileged)
			r->accepted_admin++;
	}
	free(m);
}

static void fz_print(const char *who, const struct fz_result *r)
{
	static const int show[] = { 0, EPERM, EINVAL, ENOENT, ENODEV, EBUSY,
		EOPNOTSUPP, EALREADY, E2BIG, ERANGE, EMSGSIZE, ENOSPC, ENOMEM };

	printf("# %s: %lu sent, %lu answered, %lu reply messages, %lu timeouts\n",
	       who, r->sent, r->answered, r->replies, r->timeouts);
	printf("#   answers:");
	for (unsigned int i = 0; i < sizeof(show) / sizeof(show[0]); i++)
		if (r->errors[show[i]])
			printf(" %s %lu", show[i] ? strerror(show[i]) : "success",
			       r->errors[show[i]]);
	printf("\n");
}

static int fz_verdict(int n, const char *what, const struct fz_result *r,
		      unsigned long want)
{
	bool ok = r->sent == want && r->answered == want && !r->timeouts &&
		  !r->bad_replies && !r->accepted_admin;

	printf("%sok %d %s\n", ok ? "" : "not ", n, what);
	if (!ok)
		printf("# sent %lu/%lu, answered %lu, timeouts %lu, bad replies %lu, admin ops accepted unprivileged %lu\n",
		       r->sent, want, r->answered, r->timeouts, r->bad_replies,
		       r->accepted_admin);
	return ok ? 0 : 1;
}

static struct fz_result *mmap_shared_result(void)
{
	void *p = mmap(NULL, sizeof(struct fz_result), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		printf("Bail out! mmap: %s\n", strerror(errno));
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	unsigned long count = 100000, half;
	struct fz_result *shared, priv;
	uint64_t seed = 0;
	struct genl_sock s;
	int opt, fails = 0, status, err;
	pid_t pid;

	while ((opt = getopt(argc, argv, "s:n:")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: genl_fuzz [-s SEED] [-n MESSAGES]\n");
			return 2;
		}
	}
	if (!seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000003 ^ ts.tv_nsec;
	}
	half = count / 2;
	printf("TAP version 13\n1..3\n");
	printf("# seed %llu (rerun: genl_fuzz -s %llu -n %lu)\n",
	       (unsigned long long)seed, (unsigned long long)seed, count);
	printf("# %zu ops, %zu attribute sets from the spec\n", NOPS,
	       sizeof(fz_sets) / sizeof(fz_sets[0]));

	err = gp_setup_edu(edu_bdf, sizeof(edu_bdf), NULL, &s);
	if (err) {
		printf("Bail out! setting up edu + gpuprobe: %s\n", strerror(-err));
		return 1;
	}
	fflush(stdout);

	/* the unprivileged half, in a child that dropped every privilege */
	shared = mmap_shared_result();
	pid = fork();
	if (pid == 0) {
		struct genl_sock us;

		rng = seed ^ 0x5bd1e995;
		if (setgid(65534) || setuid(65534))
			_exit(3);
		if (genl_open(&us, GPUPROBE_FAMILY_NAME, NULL))
			_exit(3);
		fz_run(&us, half, false, shared);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	fz_print("unprivileged", shared);
	fails += fz_verdict(1, "unprivileged: every message answered, every admin op refused",
			    shared, half);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		printf("# the unprivileged child exited with status %d\n", status);

	rng = seed;
	fz_run(&s, count - half, true, &priv);
	fz_print("privileged", &priv);
	fails += fz_verdict(2, "privileged: every message answered, every reply well formed",
			    &priv, count - half);

	/* the module still works: a clean STOP/START/STOP and GET_INFO */
	gp_stop(&s);
	gp_cmd(&s, GPUPROBE_CMD_TARGET_ADD, edu_bdf, 0, 0);
	err = gp_start(&s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));
	if (!err)
		err = gp_stop(&s);
	printf("%sok 3 the module works after fuzzing (START/STOP: %s)\n",
	       err ? "not " : "", err ? strerror(-err) : "ok");
	fails += !!err;
	genl_close(&s);
	mod_unload("gpuprobe");
	return fails ? 1 : 0;
}
