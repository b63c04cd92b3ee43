// SPDX-License-Identifier: GPL-2.0
/*
 * The gpuprobe module over generic netlink (libnl-genl-3).  This is the only
 * file that includes <netlink/...>.  Requests ask for extended ACKs, so
 * refusals carry the kernel's text ("kernel reports: ...").
 */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "recbatch.h"
#include "source.h"
#include "tracefile.h"
#include "util.h"

#define EVENT_SOCKET_BUFFER	(16 << 20)
#define DRAIN_QUIET_MS		250
#define REPLY_TIMEOUT_MS	5000

struct nl_conn {
	struct nl_sock *sock;
	int family;
};

struct request {
	int (*on_msg)(struct nl_msg *msg, void *arg);	/* each reply message */
	void *arg;
	bool done;
	int error;		/* negative errno from the kernel */
	char extack[160];
};

static int conn_open(struct nl_conn *c, char *err, size_t errlen)
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
	return 0;

err_free:
	nl_socket_free(c->sock);
	c->sock = NULL;
	return -1;
}

static void conn_close(struct nl_conn *c)
{
	if (c->sock)
		nl_socket_free(c->sock);
	c->sock = NULL;
}

int module_family_present(char *err, size_t errlen)
{
	struct nl_conn c;
	char why[160];

	if (conn_open(&c, why, sizeof(why)) == 0) {
		conn_close(&c);
		return 1;
	}
	if (strstr(why, "not registered"))
		return 0;
	snprintf(err, errlen, "%s", why);
	return -1;
}

static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct request *req = arg;

	return req->on_msg ? req->on_msg(msg, req->arg) : NL_OK;
}

static int skip_seq_check(struct nl_msg *msg, void *arg)
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

static void explain_error(const struct request *req, uint8_t cmd, char *err, size_t errlen)
{
	const char *hint = req->error == -EPERM ?
		" (control ops need CAP_NET_ADMIN: run as root)" : "";

	if (req->extack[0])
		snprintf(err, errlen, "kernel reports: %s", req->extack);
	else
		snprintf(err, errlen, "gpuprobe command %u failed: %s%s", cmd,
			 strerror(-req->error), hint);
}

static int wait_readable(struct nl_sock *sock, int timeout_ms)
{
	struct pollfd pfd = { .fd = nl_socket_get_fd(sock), .events = POLLIN };

	return poll(&pfd, 1, timeout_ms);
}

/* Send one do-request; put_attrs adds attributes, parse reads the reply. */
static int nl_do(struct nl_conn *c, uint8_t cmd,
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
		if (ret == -NLE_AGAIN && wait_readable(c->sock, REPLY_TIMEOUT_MS) > 0)
			continue;
		if (ret < 0)
			break;
	}
	if (!req->done)
		snprintf(err, errlen, "no answer to netlink command %u", cmd);
	else if (req->error)
		explain_error(req, cmd, err, errlen);
	ret = req->done && !req->error ? 0 : -1;
out:
	nlmsg_free(msg);
	nl_cb_put(cb);
	return ret;
}

/* ---- attributes ---- */

static int put_bdf(struct nl_msg *msg, const void *arg)
{
	char name[BDF_STRLEN];

	bdf_format(*(const uint32_t *)arg, name);
	return nla_put_string(msg, GPUPROBE_A_BDF, name);
}

static int put_event_mask(struct nl_msg *msg, const void *arg)
{
	return nla_put_u32(msg, GPUPROBE_A_EVENT_MASK, *(const uint32_t *)arg);
}

static int put_tgid(struct nl_msg *msg, const void *arg)
{
	return nla_put_u32(msg, GPUPROBE_A_TGID, *(const uint32_t *)arg);
}

/* Bounded by the attribute's length: a missing NUL cannot overrun. */
static void copy_attr_string(char *dst, size_t size, struct nlattr *a)
{
	snprintf(dst, size, "%.*s", nla_len(a), (const char *)nla_data(a));
}

/* ---- GET_INFO ---- */

static void parse_hook(struct nlattr *nest, struct module_info *info)
{
	struct nlattr *tb[GPUPROBE_A_HOOK_MAX + 1];
	struct module_hook *h;

	if (info->nhooks >= MODULE_MAX_HOOKS ||
	    nla_parse_nested(tb, GPUPROBE_A_HOOK_MAX, nest, NULL) < 0)
		return;
	h = &info->hooks[info->nhooks++];
	memset(h, 0, sizeof(*h));
	if (tb[GPUPROBE_A_HOOK_NAME])
		copy_attr_string(h->name, sizeof(h->name), tb[GPUPROBE_A_HOOK_NAME]);
	if (tb[GPUPROBE_A_HOOK_ATTACHED])
		h->attached = nla_get_u8(tb[GPUPROBE_A_HOOK_ATTACHED]);
	if (tb[GPUPROBE_A_HOOK_REASON])
		copy_attr_string(h->reason, sizeof(h->reason), tb[GPUPROBE_A_HOOK_REASON]);
}

static void parse_info_attr(struct nlattr *a, struct module_info *info)
{
	switch (nla_type(a)) {
	case GPUPROBE_A_VERSION:
		copy_attr_string(info->version, sizeof(info->version), a);
		break;
	case GPUPROBE_A_KERNEL_RELEASE:
		copy_attr_string(info->kernel_release, sizeof(info->kernel_release), a);
		break;
	case GPUPROBE_A_CLOCK:
		if (nla_len(a) >= 4)
			info->clock_id = nla_get_u32(a);
		break;
	case GPUPROBE_A_CAPS:
		if (nla_len(a) >= 8)
			info->caps = nla_get_u64(a);
		break;
	case GPUPROBE_A_RECORD_VERSION:
		if (nla_len(a) >= 4)
			info->record_version = nla_get_u32(a);
		break;
	case GPUPROBE_A_HOOK:
		parse_hook(a, info);
		break;
	}
}

/* HOOK nests repeat at top level, so walk attributes instead of a table. */
static int on_info_msg(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem)
		parse_info_attr(a, arg);
	return NL_OK;
}

int module_get_info(struct module_info *info, char *err, size_t errlen)
{
	struct request req = { .on_msg = on_info_msg, .arg = info };
	struct nl_conn c;
	int ret;

	memset(info, 0, sizeof(*info));
	if (conn_open(&c, err, errlen))
		return -1;
	ret = nl_do(&c, GPUPROBE_CMD_GET_INFO, NULL, NULL, &req, err, errlen);
	conn_close(&c);
	return ret;
}

/* ---- the module as a record source ---- */

/*
 * START goes out on the event socket: kernels without privileged multicast
 * groups make the module unicast records to the port that sent START, and
 * newer ones multicast to "events", which the same socket has joined.
 */
struct module_source {
	struct nl_conn ctl;
	struct nl_conn ev;
	struct nl_cb *events_cb;
	const struct source_config *cfg;
	const struct record_sink *sink;
	uint32_t event_mask;		/* requested & supported */
	bool added[TARGET_MAX];		/* TARGET_ADD done by us */
	bool tgid_added;
	bool started;
	uint64_t inband_lost;
	int sink_error;
	struct source_counters counters;
};

static void deliver(struct module_source *m, const void *blob, size_t len)
{
	struct record_batch_stats st = { 0 };

	if (record_batch_split(blob, len, m->sink, &st) < 0)
		warnf("module sent a malformed record at byte %zu of a batch: rest skipped; is gpuprobe.ko from the same tree as this tool?",
		      st.bad_offset);
	m->inband_lost += st.lost;
	m->counters.lost += st.lost;
	m->counters.events += st.records;
	if (st.sink_error)
		m->sink_error = -1;
}

static int on_events_msg(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct module_source *m = arg;
	struct nlattr *a;
	int rem;

	if (gh->cmd != GPUPROBE_CMD_EVENTS)
		return NL_SKIP;
	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem)
		if (nla_type(a) == GPUPROBE_A_RECORDS)
			deliver(m, nla_data(a), (size_t)nla_len(a));
	return NL_OK;
}

static int open_event_socket(struct module_source *m, char *err, size_t errlen)
{
	int grp, ret;

	if (conn_open(&m->ev, err, errlen))
		return -1;
	m->events_cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!m->events_cb) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	nl_socket_disable_seq_check(m->ev.sock);
	nl_socket_set_buffer_size(m->ev.sock, EVENT_SOCKET_BUFFER, 0);
	grp = genl_ctrl_resolve_grp(m->ev.sock, GPUPROBE_FAMILY_NAME, GPUPROBE_MCGRP_EVENTS);
	if (grp < 0) {
		snprintf(err, errlen, "the gpuprobe module has no \"%s\" multicast group: module and tool versions differ",
			 GPUPROBE_MCGRP_EVENTS);
		return -1;
	}
	ret = nl_socket_add_membership(m->ev.sock, grp);
	if (ret < 0) {
		snprintf(err, errlen, "cannot join the gpuprobe events group (%s): it needs CAP_SYS_ADMIN or CAP_PERFMON, run as root or use --source tracefs",
			 nl_geterror(ret));
		return -1;
	}
	nl_socket_set_nonblocking(m->ev.sock);
	nl_cb_set(m->events_cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, skip_seq_check, NULL);
	nl_cb_set(m->events_cb, NL_CB_VALID, NL_CB_CUSTOM, on_events_msg, m);
	return 0;
}

static int simple_do(struct nl_conn *c, uint8_t cmd,
		     int (*put)(struct nl_msg *, const void *), const void *arg,
		     char *err, size_t errlen)
{
	struct request req = { 0 };

	return nl_do(c, cmd, put, arg, &req, err, errlen);
}

static int choose_event_mask(struct module_source *m, char *err, size_t errlen)
{
	struct module_info info;
	struct request req = { .on_msg = on_info_msg, .arg = &info };

	memset(&info, 0, sizeof(info));
	if (nl_do(&m->ctl, GPUPROBE_CMD_GET_INFO, NULL, NULL, &req, err, errlen))
		return -1;
	return module_event_mask(&info, m->cfg, &m->event_mask, err, errlen);
}

static int add_targets(struct module_source *m, char *err, size_t errlen)
{
	const struct target_set *set = m->cfg->targets;
	struct request req = { 0 };
	uint32_t tgid;
	char why[200];

	for (unsigned int i = 0; i < set->count; i++) {
		memset(&req, 0, sizeof(req));
		if (!nl_do(&m->ctl, GPUPROBE_CMD_TARGET_ADD, put_bdf, &set->t[i].bdf, &req,
			   why, sizeof(why)))
			m->added[i] = true;
		else if (req.error != -EEXIST) {	/* EEXIST: loaded with target= */
			snprintf(err, errlen, "module refused target %s: %s", set->t[i].name, why);
			return -1;
		}
	}
	if (m->cfg->workload_pid > 0) {
		tgid = (uint32_t)m->cfg->workload_pid;
		if (simple_do(&m->ctl, GPUPROBE_CMD_TGID_ADD, put_tgid, &tgid, why, sizeof(why)))
			warnf("module will not follow the workload's wake-ups: %s", why);
		else
			m->tgid_added = true;
	}
	return 0;
}

static void module_close(void *src);

static void *module_open(const struct source_config *cfg, char *err, size_t errlen)
{
	struct module_source *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->cfg = cfg;
	m->sink = cfg->sink;
	if (conn_open(&m->ctl, err, errlen) || open_event_socket(m, err, errlen) ||
	    choose_event_mask(m, err, errlen) || add_targets(m, err, errlen)) {
		module_close(m);
		return NULL;
	}
	return m;
}

static int module_start(void *src, char *err, size_t errlen)
{
	struct module_source *m = src;
	struct request req = { .on_msg = on_events_msg, .arg = m };

	if (nl_do(&m->ev, GPUPROBE_CMD_START, put_event_mask, &m->event_mask, &req, err, errlen))
		return -1;
	m->started = true;
	return 0;
}

/* Read until the socket is empty; ENOBUFS means the socket overflowed. */
static int read_events(struct module_source *m)
{
	for (;;) {
		int ret = nl_recvmsgs(m->ev.sock, m->events_cb);

		if (ret == -NLE_AGAIN || ret == 0)
			return 0;
		if (ret == -NLE_NOMEM) {
			if (put_lost_record(m->sink, 0, 0, true))
				m->sink_error = -1;
			continue;
		}
		if (ret < 0) {
			warnf("reading module events failed: %s", nl_geterror(ret));
			return -1;
		}
	}
}

static int module_poll(void *src, int timeout_ms, const struct record_sink *sink)
{
	struct module_source *m = src;

	m->sink = sink;
	if (wait_readable(m->ev.sock, timeout_ms) <= 0)
		return 0;
	if (read_events(m))
		return -1;
	return m->sink_error;
}

static int module_stop(void *src)
{
	struct module_source *m = src;
	char err[200];

	if (!m->started)
		return 0;
	m->started = false;
	if (simple_do(&m->ctl, GPUPROBE_CMD_STOP, NULL, NULL, err, sizeof(err))) {
		warnf("stopping the module failed: %s", err);
		return -1;
	}
	return 0;
}

static uint64_t stats_u64(struct nlattr **tb, int type)
{
	return tb[type] && nla_len(tb[type]) >= 8 ? nla_get_u64(tb[type]) : 0;
}

/* Records the module dropped plus those it had no listener for. */
static int on_stats_msg(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[GPUPROBE_A_STATS_MAX + 1];
	uint64_t *dropped = arg;
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem) {
		if (nla_type(a) != GPUPROBE_A_STATS ||
		    nla_parse_nested(tb, GPUPROBE_A_STATS_MAX, a, NULL) < 0)
			continue;
		*dropped += stats_u64(tb, GPUPROBE_A_STATS_DROPPED) +
			    stats_u64(tb, GPUPROBE_A_STATS_UNDELIVERED);
	}
	return NL_OK;
}

/* Drops the module counted but never reported in-band become one LOST record. */
static int reconcile_drops(struct module_source *m)
{
	uint64_t dropped = 0;
	struct request req = { .on_msg = on_stats_msg, .arg = &dropped };
	char err[200];

	if (nl_do(&m->ctl, GPUPROBE_CMD_STATS_GET, NULL, NULL, &req, err, sizeof(err))) {
		warnf("cannot read the module's drop counters: %s", err);
		return 0;
	}
	if (dropped <= m->inband_lost)
		return 0;
	m->counters.lost += dropped - m->inband_lost;
	return put_lost_record(m->sink, 0, dropped - m->inband_lost, false);
}

static int module_drain(void *src, const struct record_sink *sink)
{
	struct module_source *m = src;

	m->sink = sink;
	/* STOP flushes the per-CPU rings; wait until the tail has arrived. */
	while (wait_readable(m->ev.sock, DRAIN_QUIET_MS) > 0)
		if (read_events(m))
			break;
	if (reconcile_drops(m))
		m->sink_error = -1;
	return m->sink_error;
}

static void module_close(void *src)
{
	struct module_source *m = src;
	const struct target_set *set = m->cfg->targets;
	char err[200];

	if (m->ctl.sock) {
		module_stop(m);
		for (unsigned int i = 0; i < set->count; i++)
			if (m->added[i])
				simple_do(&m->ctl, GPUPROBE_CMD_TARGET_DEL, put_bdf, &set->t[i].bdf,
					  err, sizeof(err));
		if (m->tgid_added) {
			uint32_t tgid = (uint32_t)m->cfg->workload_pid;

			simple_do(&m->ctl, GPUPROBE_CMD_TGID_DEL, put_tgid, &tgid, err, sizeof(err));
		}
	}
	if (m->events_cb)
		nl_cb_put(m->events_cb);
	conn_close(&m->ev);
	conn_close(&m->ctl);
	free(m);
}

static void module_counters(void *src, struct source_counters *out)
{
	*out = ((struct module_source *)src)->counters;
}

const struct trace_source module_source = {
	.name = "module",
	.file_source = TRACE_SOURCE_MODULE,
	.open = module_open,
	.start = module_start,
	.poll = module_poll,
	.stop = module_stop,
	.drain = module_drain,
	.close = module_close,
	.counters = module_counters,
};
