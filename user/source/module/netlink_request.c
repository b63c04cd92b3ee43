// SPDX-License-Identifier: GPL-2.0
/*
 * One request to the gpuprobe module over generic netlink and its answer:
 * the ACK, the error with the kernel's extended-ACK text ("kernel reports:
 * ..."), or, when nothing comes within the connection's reply timeout, an
 * error that says the module may be stuck.  With netlink.c the only file
 * that includes <netlink/...>.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "netlink_request.h"

int conn_open(struct nl_conn *c, char *err, size_t errlen)
{
	int one = 1, ret;

	c->sock = nl_socket_alloc();
	if (!c->sock) {
		snprintf(err, errlen, "out of memory allocating a netlink socket");
		return -1;
	}
	ret = genl_connect(c->sock);
	if (ret < 0) {
		snprintf(err, errlen, "cannot open a generic netlink socket: %s", nl_geterror(ret));
		goto err_free;
	}
	setsockopt(nl_socket_get_fd(c->sock), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	c->family = genl_ctrl_resolve(c->sock, GPUPROBE_FAMILY_NAME);
	if (c->family < 0) {
		snprintf(err, errlen, "generic netlink family \"%s\" is not registered",
			 GPUPROBE_FAMILY_NAME);
		goto err_free;
	}
	/* Replies are awaited with a timeout (nl_do): a module that never answers cannot hang us. */
	nl_socket_set_nonblocking(c->sock);
	c->reply_timeout_ms = REPLY_TIMEOUT_MS;
	return 0;

err_free:
	nl_socket_free(c->sock);
	c->sock = NULL;
	return -1;
}

void conn_close(struct nl_conn *c)
{
	if (c->sock)
		nl_socket_free(c->sock);
	c->sock = NULL;
}

static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct request *req = arg;

	return req->on_msg ? req->on_msg(msg, req->arg) : NL_OK;
}

int skip_seq_check(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

static int ack_cb(struct nl_msg *msg, void *arg)
{
	(void)msg;
	((struct request *)arg)->done = true;
	return NL_STOP;
}

/* Pull NLMSGERR_ATTR_MSG out of an extended ACK, as iw does. */
static int error_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)e - 1;
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int len = (int)nlh->nlmsg_len, ack_len;
	struct request *req = arg;

	(void)nla;
	req->error = e->error;
	req->done = true;
	ack_len = (int)(sizeof(*nlh) + sizeof(int) + sizeof(*nlh));
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		ack_len += (int)(e->msg.nlmsg_len - sizeof(*nlh));
	if (len <= ack_len)
		return NL_STOP;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)nlh + ack_len),
		      len - ack_len, NULL) == 0 && tb[NLMSGERR_ATTR_MSG])
		snprintf(req->extack, sizeof(req->extack), "%.*s",
			 nla_len(tb[NLMSGERR_ATTR_MSG]),
			 (const char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	return NL_STOP;
}

/* Is bit cap set in this process's "CapEff:" (/proc/self/status)? */
static bool cap_effective(unsigned int cap)
{
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long long eff = 0;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	if (f)
		fclose(f);
	return eff & (1ULL << cap);
}

/*
 * In a user namespace other than the initial one?  Only that one maps
 * every uid to itself ("0 0 4294967295"), as a container's never does.
 * false when /proc says nothing.
 */
bool module_own_user_namespace(void)
{
	FILE *f = fopen("/proc/self/uid_map", "re");
	unsigned long long inside, outside, count;
	int lines = 0, ok = 0;
	char line[128];

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		lines++;
		if (sscanf(line, "%llu %llu %llu", &inside, &outside, &count) == 3 &&
		    !inside && !outside && count == 4294967295ULL)
			ok = 1;
	}
	fclose(f);
	return !(lines == 1 && ok);
}

#define CAP_NET_ADMIN_BIT	12
#define CAP_SYS_ADMIN_BIT	21
#define CAP_PERFMON_BIT		38

/*
 * What START checks for records with addresses (netlink_capable(): the
 * socket's opener and the task, in the initial user namespace).  Asking
 * would start a session, so this reads the capabilities instead.
 */
const char *module_address_records_cap(char *err, size_t errlen)
{
	if (module_own_user_namespace()) {
		snprintf(err, errlen, "not from a user namespace of its own: DMA and IOMMU records need CAP_SYS_ADMIN or CAP_PERFMON of the host, and the module sends them to no network namespace owned by another user namespace");
		return NULL;
	}
	if (cap_effective(CAP_SYS_ADMIN_BIT))
		return "CAP_SYS_ADMIN";
	if (cap_effective(CAP_PERFMON_BIT))
		return "CAP_PERFMON";
	snprintf(err, errlen, "DMA and IOMMU records need CAP_SYS_ADMIN or CAP_PERFMON, which this process does not have: grant one (docker run --cap-add PERFMON; Kubernetes capabilities.add: [PERFMON]); interrupt and wake-up records need neither");
	return NULL;
}

/* Why control ops answer EPERM here, and what to do about it. */
void module_explain_eperm(char *buf, size_t size)
{
	if (module_own_user_namespace())
		snprintf(buf, size, "control ops need CAP_NET_ADMIN in the host's (initial) user namespace, and this process is in a user namespace of its own (a rootless or user-namespaced container: /proc/self/uid_map is not the host's), where its capabilities do not count for the host's devices: run it without a user namespace (Kubernetes: hostUsers true, the default; Docker: --userns=host; LXC: a privileged container) with CAP_NET_ADMIN, or record from the host");
	else if (!cap_effective(CAP_NET_ADMIN_BIT))
		snprintf(buf, size, "control ops need CAP_NET_ADMIN, which this process does not have: run as root, or grant it (docker run --cap-add NET_ADMIN; Kubernetes securityContext.capabilities.add: [NET_ADMIN])");
	else
		snprintf(buf, size, "control ops need CAP_NET_ADMIN in the host's user namespace, held both by the task and by whoever opened the socket");
}

static void explain_error(const struct request *req, uint8_t cmd, char *err, size_t errlen)
{
	char hint[600] = "";

	if (req->error == -EPERM && !req->extack[0])
		module_explain_eperm(hint, sizeof(hint));
	if (req->extack[0])
		snprintf(err, errlen, "kernel reports: %s", req->extack);
	else
		snprintf(err, errlen, "gpuprobe command %u failed: %s%s%s", cmd,
			 strerror(-req->error), hint[0] ? ": " : "", hint);
}

int wait_readable(struct nl_sock *sock, int timeout_ms)
{
	struct pollfd pfd = { .fd = nl_socket_get_fd(sock), .events = POLLIN };

	return poll(&pfd, 1, timeout_ms);
}

/* Send one do-request; put_attrs adds attributes, parse reads the reply. */
int nl_do(struct nl_conn *c, uint8_t cmd,
		 int (*put_attrs)(struct nl_msg *msg, const void *arg), const void *put_arg,
		 struct request *req, char *err, size_t errlen)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	/* per-CPU stats are dumped (any number of CPUs); DONE ends the reply */
	int dump = cmd == GPUPROBE_CMD_STATS_GET ? NLM_F_DUMP : 0;
	int ret = -1;

	if (!msg || !cb) {
		snprintf(err, errlen, "out of memory building a netlink message");
		goto out;
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0, NLM_F_ACK | dump,
			 cmd, GPUPROBE_FAMILY_VERSION) ||
	    (put_attrs && put_attrs(msg, put_arg))) {
		snprintf(err, errlen, "netlink message for command %u does not fit", cmd);
		goto out;
	}
	/* Replies are matched by ack, and unicast records carry seq 0. */
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, skip_seq_check, NULL);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, ack_cb, req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, ack_cb, req);
	nl_cb_err(cb, NL_CB_CUSTOM, error_cb, req);
	ret = nl_send_auto(c->sock, msg);
	if (ret < 0) {
		snprintf(err, errlen, "cannot send netlink command %u: %s", cmd, nl_geterror(ret));
		goto out;
	}
	while (!req->done) {
		ret = nl_recvmsgs(c->sock, cb);
		if (ret == -NLE_AGAIN && wait_readable(c->sock, c->reply_timeout_ms) > 0)
			continue;
		if (ret < 0)
			break;
	}
	if (!req->done)
		snprintf(err, errlen, "the gpuprobe module did not answer netlink command %u within %d ms: it may be stuck; check dmesg, then rmmod and reload it, or use --source tracefs",
			 cmd, c->reply_timeout_ms);
	else if (req->error)
		explain_error(req, cmd, err, errlen);
	ret = req->done && !req->error ? 0 : -1;
out:
	nlmsg_free(msg);
	nl_cb_put(cb);
	return ret;
}
