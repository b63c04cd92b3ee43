// SPDX-License-Identifier: GPL-2.0
/*
 * The module's summary mode for `serve`: one session started with the
 * SUMMARY flag (interrupt handler-time histograms summed in the kernel, no
 * per-event export), read with SUMMARY_GET and STATS_GET.  The session
 * belongs to the socket that sent START (Documentation/module.md): when
 * serve exits for any reason the module stops it.  An unloaded module, or
 * a session another tool holds, is an error here; serve retries.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "netlink_request.h"
#include "netlink_summary.h"

struct summary_session {
	struct nl_conn owner;		/* sent START: its closing stops the session */
	struct nl_conn ctl;
	struct nl_cb *discard_cb;
	const struct target_set *set;
	bool added[TARGET_MAX];
};

static int put_bdf(struct nl_msg *msg, const void *arg)
{
	char name[BDF_STRLEN];

	bdf_format(*(const uint32_t *)arg, name);
	return nla_put_string(msg, GPUPROBE_A_BDF, name);
}

static int put_summary_start(struct nl_msg *msg, const void *arg)
{
	(void)arg;
	return nla_put_u32(msg, GPUPROBE_A_EVENT_MASK, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)) ||
	       nla_put_flag(msg, GPUPROBE_A_SUMMARY);
}

/* TARGET records the module sends its session's owner: not needed here. */
static int discard(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

static void drain_owner(struct summary_session *s)
{
	while (wait_readable(s->owner.sock, 0) > 0)
		if (nl_recvmsgs(s->owner.sock, s->discard_cb) < 0)
			break;
}

struct summary_session *summary_open(const struct target_set *set, char *err, size_t errlen)
{
	struct summary_session *s = calloc(1, sizeof(*s));
	struct request req;
	char why[200];

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->set = set;
	if (conn_open(&s->ctl, err, errlen) || conn_open(&s->owner, err, errlen))
		goto err_close;
	s->discard_cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!s->discard_cb) {
		snprintf(err, errlen, "out of memory");
		goto err_close;
	}
	nl_cb_set(s->discard_cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, skip_seq_check, NULL);
	nl_cb_set(s->discard_cb, NL_CB_VALID, NL_CB_CUSTOM, discard, NULL);
	for (unsigned int i = 0; i < set->count; i++) {
		memset(&req, 0, sizeof(req));
		if (!nl_do(&s->ctl, GPUPROBE_CMD_TARGET_ADD, put_bdf, &set->t[i].bdf, &req,
			   why, sizeof(why)))
			s->added[i] = true;
		else if (req.error != -EEXIST) {	/* EEXIST: loaded with target= */
			snprintf(err, errlen, "module refused target %s: %s", set->t[i].name, why);
			goto err_close;
		}
	}
	memset(&req, 0, sizeof(req));
	req.on_msg = discard;
	if (nl_do(&s->owner, GPUPROBE_CMD_START, put_summary_start, NULL, &req, why, sizeof(why))) {
		snprintf(err, errlen, "%s%s", why, req.error == -EBUSY ?
			 " (another gpuprobe session is running: serve starts when it ends)" : "");
		goto err_close;
	}
	return s;

err_close:
	summary_close(s);
	return NULL;
}

struct hist_reader {
	summary_hist_fn fn;
	void *ctx;
	uint64_t dropped;	/* samples in no HIST: a slot table was full */
};

static int on_summary_msg(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[GPUPROBE_A_HIST_MAX + 1], *a;
	struct hist_reader *r = arg;
	uint64_t buckets[SUMMARY_BUCKETS];
	int rem;

	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem) {
		if (nla_type(a) == GPUPROBE_A_SUMMARY_DROPPED && nla_len(a) >= 8)
			r->dropped += nla_get_u64(a);
		if (nla_type(a) != GPUPROBE_A_HIST ||
		    nla_parse_nested(tb, GPUPROBE_A_HIST_MAX, a, NULL) < 0 ||
		    !tb[GPUPROBE_A_HIST_BDF] || !tb[GPUPROBE_A_HIST_VECTOR] ||
		    !tb[GPUPROBE_A_HIST_BUCKETS])
			continue;
		memset(buckets, 0, sizeof(buckets));
		memcpy(buckets, nla_data(tb[GPUPROBE_A_HIST_BUCKETS]),
		       (size_t)nla_len(tb[GPUPROBE_A_HIST_BUCKETS]) < sizeof(buckets) ?
		       (size_t)nla_len(tb[GPUPROBE_A_HIST_BUCKETS]) : sizeof(buckets));
		r->fn(r->ctx, nla_get_u32(tb[GPUPROBE_A_HIST_BDF]),
		      nla_get_u32(tb[GPUPROBE_A_HIST_VECTOR]), buckets);
	}
	return NL_OK;
}

static uint64_t attr_u64(struct nlattr **tb, int type)
{
	return tb[type] && nla_len(tb[type]) >= 8 ? nla_get_u64(tb[type]) : 0;
}

static int on_stats_msg(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[GPUPROBE_A_STATS_MAX + 1], *a;
	uint64_t *dropped = arg;
	int rem;

	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem) {
		if (nla_type(a) != GPUPROBE_A_STATS ||
		    nla_parse_nested(tb, GPUPROBE_A_STATS_MAX, a, NULL) < 0)
			continue;
		*dropped += attr_u64(tb, GPUPROBE_A_STATS_DROPPED) +
			    attr_u64(tb, GPUPROBE_A_STATS_UNDELIVERED) +
			    attr_u64(tb, GPUPROBE_A_STATS_NO_RING);
	}
	return NL_OK;
}

int summary_read(struct summary_session *s, summary_hist_fn fn, void *ctx, uint64_t *dropped,
		 char *err, size_t errlen)
{
	struct hist_reader r = { fn, ctx, 0 };
	struct request req = { .on_msg = on_summary_msg, .arg = &r };

	drain_owner(s);
	if (nl_do(&s->ctl, GPUPROBE_CMD_SUMMARY_GET, NULL, NULL, &req, err, errlen))
		return -1;
	*dropped = r.dropped;
	memset(&req, 0, sizeof(req));
	req.on_msg = on_stats_msg;
	req.arg = dropped;
	return nl_do(&s->ctl, GPUPROBE_CMD_STATS_GET, NULL, NULL, &req, err, errlen);
}

void summary_close(struct summary_session *s)
{
	struct request req;
	char err[200];

	if (!s)
		return;
	if (s->ctl.sock) {
		memset(&req, 0, sizeof(req));
		nl_do(&s->ctl, GPUPROBE_CMD_STOP, NULL, NULL, &req, err, sizeof(err));
		for (unsigned int i = 0; i < s->set->count; i++) {
			if (!s->added[i])
				continue;
			memset(&req, 0, sizeof(req));
			nl_do(&s->ctl, GPUPROBE_CMD_TARGET_DEL, put_bdf, &s->set->t[i].bdf, &req,
			      err, sizeof(err));
		}
	}
	if (s->discard_cb)
		nl_cb_put(s->discard_cb);
	conn_close(&s->owner);
	conn_close(&s->ctl);
	free(s);
}
