/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal raw generic-netlink client for the selftests.  Deliberately not
 * libnl and not user/source/module/netlink.c: the tests must be able to send malformed messages
 * and must not share bugs with the tool they check.
 */
#ifndef GPUPROBE_SELFTEST_GENL_H
#define GPUPROBE_SELFTEST_GENL_H

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

#define GENL_BUF 65536
#define GENL_ATTR_OK(nla, rem) \
	((rem) >= (int)sizeof(struct nlattr) && \
	 (nla)->nla_len >= sizeof(struct nlattr) && (nla)->nla_len <= (rem))
#define GENL_ATTR_NEXT(nla, rem) \
	((rem) -= NLA_ALIGN((nla)->nla_len), \
	 (struct nlattr *)((char *)(nla) + NLA_ALIGN((nla)->nla_len)))
#define GENL_ATTR_DATA(nla) ((void *)((char *)(nla) + NLA_HDRLEN))

struct genl_msg {
	char buf[GENL_BUF] __attribute__((aligned(8)));
	size_t len;
};

struct genl_sock {
	int fd;
	uint16_t family;
	uint32_t events_group;
	uint32_t seq;
	char extack[256];	/* last error message from the kernel */
};

static inline void genl_msg_init(struct genl_msg *m, uint16_t type,
				 uint16_t flags, uint8_t cmd)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)m->buf;
	struct genlmsghdr *g;

	memset(m->buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	g = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);
	g->cmd = cmd;
	g->version = 1;
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
}

static inline void genl_put(struct genl_msg *m, uint16_t type,
			    const void *data, size_t len)
{
	struct nlattr *nla = (struct nlattr *)(m->buf + m->len);

	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + len;
	memcpy(GENL_ATTR_DATA(nla), data, len);
	memset((char *)GENL_ATTR_DATA(nla) + len, 0, NLA_ALIGN(len) - len);
	m->len += NLA_ALIGN(nla->nla_len);
}

static inline void genl_put_str(struct genl_msg *m, uint16_t type,
				const char *s)
{
	genl_put(m, type, s, strlen(s) + 1);
}

static inline void genl_put_u32(struct genl_msg *m, uint16_t type, uint32_t v)
{
	genl_put(m, type, &v, sizeof(v));
}

static inline struct nlattr *genl_attrs(struct nlmsghdr *nlh, int *rem)
{
	*rem = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	return (struct nlattr *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
}

static inline struct nlattr *genl_find(struct nlattr *nla, int rem,
				       uint16_t type)
{
	for (; GENL_ATTR_OK(nla, rem); nla = GENL_ATTR_NEXT(nla, rem))
		if ((nla->nla_type & NLA_TYPE_MASK) == type)
			return nla;
	return NULL;
}

/* Pulls the extack message out of an NLMSG_ERROR, if the kernel sent one. */
static inline void genl_save_extack(struct genl_sock *s, struct nlmsghdr *nlh)
{
	struct nlmsgerr *err = NLMSG_DATA(nlh);
	struct nlattr *nla;
	int rem;

	s->extack[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	nla = (struct nlattr *)((char *)err + sizeof(*err) +
		((nlh->nlmsg_flags & NLM_F_CAPPED) ? 0 :
		 err->msg.nlmsg_len - NLMSG_HDRLEN));
	rem = (char *)nlh + nlh->nlmsg_len - (char *)nla;
	nla = genl_find(nla, rem, NLMSGERR_ATTR_MSG);
	if (nla)
		snprintf(s->extack, sizeof(s->extack), "%s",
			 (char *)GENL_ATTR_DATA(nla));
}

/*
 * Sends m and waits for the ack.  Replies (one, or a dump) are handed to cb.
 * Returns 0 or -errno from the kernel.
 */
static inline int genl_xfer(struct genl_sock *s, struct genl_msg *m,
			    void (*cb)(struct nlmsghdr *, void *), void *arg)
{
	static char rbuf[GENL_BUF] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = (struct nlmsghdr *)m->buf;
	ssize_t n;

	nlh->nlmsg_len = m->len;
	nlh->nlmsg_seq = ++s->seq;
	if (send(s->fd, m->buf, m->len, 0) != (ssize_t)m->len)
		return -errno;
	for (;;) {
		n = recv(s->fd, rbuf, sizeof(rbuf), 0);
		if (n < 0)
			return -errno;
		for (nlh = (struct nlmsghdr *)rbuf; NLMSG_OK(nlh, n);
		     nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_seq != s->seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nlh);

				genl_save_extack(s, nlh);
				return e->error;
			}
			/* a dump's own error ends it in its DONE */
			if (nlh->nlmsg_type == NLMSG_DONE)
				return nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) ?
				       *(int *)NLMSG_DATA(nlh) : 0;
			if (cb)
				cb(nlh, arg);
		}
	}
}

struct genl_family_ids {
	uint16_t id;
	uint32_t group;
	const char *group_name;
};

static inline void genl_family_cb(struct nlmsghdr *nlh, void *arg)
{
	struct genl_family_ids *ids = arg;
	struct nlattr *nla, *grp, *g;
	int rem, grem, arem;

	nla = genl_attrs(nlh, &rem);
	g = genl_find(nla, rem, CTRL_ATTR_FAMILY_ID);
	if (g)
		ids->id = *(uint16_t *)GENL_ATTR_DATA(g);
	grp = genl_find(nla, rem, CTRL_ATTR_MCAST_GROUPS);
	if (!grp)
		return;
	grem = grp->nla_len - NLA_HDRLEN;
	for (g = GENL_ATTR_DATA(grp); GENL_ATTR_OK(g, grem);
	     g = GENL_ATTR_NEXT(g, grem)) {
		struct nlattr *a = GENL_ATTR_DATA(g), *name, *id;

		arem = g->nla_len - NLA_HDRLEN;
		name = genl_find(a, arem, CTRL_ATTR_MCAST_GRP_NAME);
		id = genl_find(a, arem, CTRL_ATTR_MCAST_GRP_ID);
		if (name && id && !strcmp(GENL_ATTR_DATA(name), ids->group_name))
			ids->group = *(uint32_t *)GENL_ATTR_DATA(id);
	}
}

/* Opens a socket and resolves the family; -ENOENT when it is not registered. */
static inline int genl_open(struct genl_sock *s, const char *family,
			    const char *group)
{
	struct genl_family_ids ids = { .group_name = group ? group : "" };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct genl_msg *m;
	int one = 1, err;

	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0)
		return -errno;
	setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	genl_msg_init(m, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY);
	genl_put_str(m, CTRL_ATTR_FAMILY_NAME, family);
	err = genl_xfer(s, m, genl_family_cb, &ids);
	free(m);
	if (err)
		return err;
	s->family = ids.id;
	s->events_group = ids.group;
	return 0;
}

static inline void genl_close(struct genl_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

#endif /* GPUPROBE_SELFTEST_GENL_H */
