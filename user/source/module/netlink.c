// SPDX-License-Identifier: GPL-2.0
/*
 * The gpuprobe module over generic netlink (libnl-genl-3) as a record
 * source: GET_INFO, targets, START/STOP, the event socket, the drop
 * counters.  Requests and their answers: netlink_request.c; these two are
 * the only files that include <netlink/...>.
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

#include "batch.h"
#include "netlink_request.h"
#include "source.h"
#include "tracefile.h"
#include "util.h"

/*
 * The receive buffer holds what the module sends while we are not
 * reading: a burst drained at once (a ring of 8192 records is about 35
 * messages of 16 KiB, truesize counted) while this thread waits for a CPU.
 * SO_RCVBUF is capped at net.core.rmem_max (208 KiB by default, 416 KiB
 * granted): in the test VM 20000 DMA map/unmap pairs beside two disk
 * readers overran that every run (issue 30).  As root SO_RCVBUFFORCE
 * passes the cap.
 */
#define EVENT_SOCKET_BUFFER	(16 << 20)
/* one recvmsg() per message: the module's are under 16 KiB */
#define EVENT_MSG_BUFFER	(64 << 10)
#define DRAIN_QUIET_MS		250

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

/*
 * START: the mask, and the IOMMU events without their parts when the mask
 * leaves the parts' bit out (record --no-iommu-parts): the module attaches
 * them with the IOMMU events unless told not to.
 */
static int put_start(struct nl_msg *msg, const void *arg)
{
	uint32_t mask = *(const uint32_t *)arg;

	return put_event_mask(msg, arg) ||
	       ((mask & GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU)) &&
		!(mask & GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU_PART)) &&
		nla_put_flag(msg, GPUPROBE_A_NO_IOMMU_PARTS));
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

static int put_cgroup(struct nl_msg *msg, const void *arg)
{
	return nla_put_u64(msg, GPUPROBE_A_CGROUP, *(const uint64_t *)arg);
}

static int put_tgid_zero(struct nl_msg *msg, const void *arg)
{
	(void)arg;
	return nla_put_u32(msg, GPUPROBE_A_TGID, 0);
}

/*
 * TGID_DEL of thread group 0: the core checks the op's privilege before
 * the policy, which refuses 0 (ERANGE, below its minimum; EINVAL from a
 * module whose policy had none, in the op itself); so EPERM means not
 * permitted, and nothing changes whatever the answer.
 */
int module_control_permitted(char *err, size_t errlen)
{
	struct request req = { 0 };
	struct nl_conn c;
	char why[512];

	if (conn_open(&c, err, errlen))
		return -1;
	nl_do(&c, GPUPROBE_CMD_TGID_DEL, put_tgid_zero, NULL, &req, why, sizeof(why));
	conn_close(&c);
	if (req.error == -EPERM) {
		module_explain_eperm(err, errlen);
		return 0;
	}
	if (req.error == -ERANGE || req.error == -EINVAL)
		return 1;
	snprintf(err, errlen, "%s", req.done ? strerror(-req.error) : why);
	return -1;
}

/*
 * May this process join "events", where records are multicast?  The
 * kernel decides at the join (GENL_MCAST_CAP_SYS_ADMIN: CAP_SYS_ADMIN in
 * the user namespace owning the network namespace), and a join without a
 * session receives nothing, so ask it: 1 joined, 0 refused (why in err),
 * -1 not known (err).
 */
int module_events_permitted(char *err, size_t errlen)
{
	struct nl_conn c;
	int grp, ret;

	if (conn_open(&c, err, errlen))
		return -1;
	grp = genl_ctrl_resolve_grp(c.sock, GPUPROBE_FAMILY_NAME, GPUPROBE_MCGRP_EVENTS);
	ret = grp < 0 ? grp : nl_socket_add_membership(c.sock, grp);
	conn_close(&c);
	if (grp < 0) {
		snprintf(err, errlen, "the module has no \"%s\" group: module and tool versions differ",
			 GPUPROBE_MCGRP_EVENTS);
		return -1;
	}
	if (ret == -NLE_PERM) {
		snprintf(err, errlen, "joining needs CAP_SYS_ADMIN in the user namespace that owns this network namespace, which this process does not have: run as root, or grant it (docker run --cap-add SYS_ADMIN; Kubernetes securityContext.capabilities.add: [SYS_ADMIN])");
		return 0;
	}
	if (ret < 0) {
		snprintf(err, errlen, "cannot join: %s", nl_geterror(ret));
		return -1;
	}
	return 1;
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
	bool cgroup_added;
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

static void set_receive_buffer(struct nl_sock *sock)
{
	int size = EVENT_SOCKET_BUFFER;

	if (setsockopt(nl_socket_get_fd(sock), SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		nl_socket_set_buffer_size(sock, EVENT_SOCKET_BUFFER, 0);
	/* libnl peeks at each message's size first: two syscalls a message */
	nl_socket_set_msg_buf_size(sock, EVENT_MSG_BUFFER);
	nl_socket_disable_msg_peek(sock);
}

static int open_event_socket(struct module_source *m, char *err, size_t errlen)
{
	socklen_t len;
	int grp, ret, one = 1;

	if (conn_open(&m->ev, err, errlen))
		return -1;
	m->events_cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!m->events_cb) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	nl_socket_disable_seq_check(m->ev.sock);
	set_receive_buffer(m->ev.sock);
	/*
	 * A message our full socket refused then fails the module's send
	 * with ENOBUFS, which it counts apart from "no listener" (STATS
	 * overrun); without it the module cannot tell the two apart.
	 */
	if (setsockopt(nl_socket_get_fd(m->ev.sock), SOL_NETLINK, NETLINK_BROADCAST_ERROR,
		       &one, sizeof(one)))
		warnf("cannot set NETLINK_BROADCAST_ERROR on the event socket: %s",
		      strerror(errno));
	len = sizeof(m->counters.rcvbuf);
	if (getsockopt(nl_socket_get_fd(m->ev.sock), SOL_SOCKET, SO_RCVBUF, &m->counters.rcvbuf,
		       &len))
		m->counters.rcvbuf = 0;
	grp = genl_ctrl_resolve_grp(m->ev.sock, GPUPROBE_FAMILY_NAME, GPUPROBE_MCGRP_EVENTS);
	if (grp < 0) {
		snprintf(err, errlen, "the gpuprobe module has no \"%s\" multicast group: module and tool versions differ",
			 GPUPROBE_MCGRP_EVENTS);
		return -1;
	}
	ret = nl_socket_add_membership(m->ev.sock, grp);
	if (ret < 0) {
		snprintf(err, errlen, "cannot join the gpuprobe events group (%s): this kernel makes it privileged, joining needs CAP_SYS_ADMIN (in the user namespace that owns this network namespace): run as root, or grant it (docker run --cap-add SYS_ADMIN; Kubernetes capabilities.add: [SYS_ADMIN]), or use --source tracefs",
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
	if (m->cfg->cgroup_id) {
		if (simple_do(&m->ctl, GPUPROBE_CMD_TGID_ADD, put_cgroup, &m->cfg->cgroup_id,
			      why, sizeof(why))) {
			snprintf(err, errlen, "module will not follow the cgroup: %s", why);
			return -1;
		}
		m->cgroup_added = true;
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

	if (nl_do(&m->ev, GPUPROBE_CMD_START, put_start, &m->event_mask, &req, err, errlen)) {
		size_t n = strlen(err);

		if ((m->event_mask & GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU)) &&
		    !(m->event_mask & GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU_PART)) && n < errlen)
			snprintf(err + n, errlen - n,
				 " (--no-iommu-parts: a gpuprobe.ko older than this tool refuses it)");
		return -1;
	}
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
			m->counters.socket_overflows++;
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

static void add_cpu_stats(struct source_counters *c, struct nlattr **tb)
{
	uint64_t hw = stats_u64(tb, GPUPROBE_A_STATS_HIGH_WATER);
	uint64_t wait = stats_u64(tb, GPUPROBE_A_STATS_WAIT_MAX);

	/* a CPU without a ring lost them as a full ring would: never in-band */
	c->no_ring += stats_u64(tb, GPUPROBE_A_STATS_NO_RING);
	c->ring_dropped += stats_u64(tb, GPUPROBE_A_STATS_DROPPED) +
			   stats_u64(tb, GPUPROBE_A_STATS_NO_RING);
	c->undelivered += stats_u64(tb, GPUPROBE_A_STATS_UNDELIVERED);
	c->overrun += stats_u64(tb, GPUPROBE_A_STATS_OVERRUN);
	if (tb[GPUPROBE_A_STATS_SLOTS] && nla_len(tb[GPUPROBE_A_STATS_SLOTS]) >= 4)
		c->slots = nla_get_u32(tb[GPUPROBE_A_STATS_SLOTS]);
	if (hw > c->high_water) {
		c->high_water = hw;
		if (tb[GPUPROBE_A_STATS_CPU] && nla_len(tb[GPUPROBE_A_STATS_CPU]) >= 4)
			c->high_water_cpu = nla_get_u32(tb[GPUPROBE_A_STATS_CPU]);
	}
	if (wait > c->wait_max_ns)
		c->wait_max_ns = wait;
}

/* The per-CPU counters summed: drops, undelivered, the fullest ring. */
static int on_stats_msg(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[GPUPROBE_A_STATS_MAX + 1];
	struct source_counters *c = arg;
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem) {
		if (nla_type(a) != GPUPROBE_A_STATS ||
		    nla_parse_nested(tb, GPUPROBE_A_STATS_MAX, a, NULL) < 0)
			continue;
		add_cpu_stats(c, tb);
	}
	return NL_OK;
}

/*
 * Drops the module counted but never reported in-band (what the rings had
 * no room for, and what no listener took) become one LOST record.
 */
static int reconcile_drops(struct module_source *m)
{
	struct source_counters st = { 0 };
	struct request req = { .on_msg = on_stats_msg, .arg = &st };
	char err[200];

	if (nl_do(&m->ctl, GPUPROBE_CMD_STATS_GET, NULL, NULL, &req, err, sizeof(err))) {
		warnf("cannot read the module's drop counters: %s", err);
		return 0;
	}
	m->counters.have_delivery = true;
	m->counters.ring_dropped = st.ring_dropped;
	m->counters.no_ring = st.no_ring;
	m->counters.undelivered = st.undelivered;
	m->counters.overrun = st.overrun;
	m->counters.high_water = st.high_water;
	m->counters.high_water_cpu = st.high_water_cpu;
	m->counters.slots = st.slots;
	m->counters.wait_max_ns = st.wait_max_ns;
	return put_unreported_drops(m->sink, st.ring_dropped + st.undelivered, m->inband_lost,
				    &m->counters);
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
		if (m->cgroup_added)
			simple_do(&m->ctl, GPUPROBE_CMD_TGID_DEL, put_cgroup, &m->cfg->cgroup_id,
				  err, sizeof(err));
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

