/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Selftest helpers around a gpuprobe capture session: control requests,
 * an events listener, and tallies of the records it received.
 */
#ifndef GPUPROBE_SELFTEST_SESSION_H
#define GPUPROBE_SELFTEST_SESSION_H

#include <fcntl.h>
#include <linux/gpuprobe.h>
#include <stdbool.h>

#include "genl.h"
#include "vmutil.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define MAX_CPUS 64

/*
 * The usual start of a test: the edu driver loaded, gpuprobe (re)loaded with
 * the edu device as its target (and any extra module parameters), a control
 * socket open.  Returns 0 or the first -errno.
 */
static inline int gp_setup_edu(char *edu, size_t len, const char *extra,
			       struct genl_sock *s)
{
	char param[160];
	int err;

	err = edu_find(edu, len);
	if (!err && !mod_loaded("gpuprobe_edu"))
		err = mod_load(EDU_KO, NULL);
	if (err)
		return err;
	if (mod_loaded("gpuprobe"))
		mod_unload("gpuprobe");
	snprintf(param, sizeof(param), "target=%s %s", edu, extra ? extra : "");
	err = mod_load(GPUPROBE_KO, param);
	return err ? err : genl_open(s, GPUPROBE_FAMILY_NAME, NULL);
}

/* Sends cmd with an optional string BDF and/or u32 attribute. */
static inline int gp_cmd(struct genl_sock *s, uint8_t cmd, const char *bdf,
			 uint16_t u32_type, uint32_t u32_val)
{
	struct genl_msg *m = calloc(1, sizeof(*m));
	int err;

	if (!m)
		return -ENOMEM;
	genl_msg_init(m, s->family, 0, cmd);
	if (bdf)
		genl_put_str(m, GPUPROBE_A_BDF, bdf);
	if (u32_type)
		genl_put_u32(m, u32_type, u32_val);
	err = genl_xfer(s, m, NULL, NULL);
	free(m);
	return err;
}

static inline int gp_start(struct genl_sock *s, uint32_t mask)
{
	return gp_cmd(s, GPUPROBE_CMD_START, NULL, GPUPROBE_A_EVENT_MASK, mask);
}

/* START with a flag attribute too (GPUPROBE_A_NO_IOMMU_PARTS, ...) */
static inline int gp_start_flag(struct genl_sock *s, uint32_t mask,
				uint16_t flag)
{
	struct genl_msg *m = calloc(1, sizeof(*m));
	int err;

	if (!m)
		return -ENOMEM;
	genl_msg_init(m, s->family, 0, GPUPROBE_CMD_START);
	genl_put_u32(m, GPUPROBE_A_EVENT_MASK, mask);
	genl_put(m, flag, NULL, 0);
	err = genl_xfer(s, m, NULL, NULL);
	free(m);
	return err;
}

static inline int gp_stop(struct genl_sock *s)
{
	return gp_cmd(s, GPUPROBE_CMD_STOP, NULL, 0, 0);
}

struct gp_stats {
	uint64_t captured, dropped, messages, bytes, undelivered;
	uint64_t missed, iommu_unattributed, probe_recursion;
	int running;
	int cpus;		/* STATS nests received */
	int replies;		/* messages they came in */
};

static inline void gp_stats_cb(struct nlmsghdr *nlh, void *arg)
{
	struct gp_stats *st = arg;
	struct nlattr *nla, *a;
	int rem, arem;

	st->replies++;
	for (nla = genl_attrs(nlh, &rem); GENL_ATTR_OK(nla, rem);
	     nla = GENL_ATTR_NEXT(nla, rem)) {
		if (nla->nla_type == GPUPROBE_A_RUNNING)
			st->running = *(uint8_t *)GENL_ATTR_DATA(nla);
		if (nla->nla_type == GPUPROBE_A_MISSED)
			memcpy(&st->missed, GENL_ATTR_DATA(nla), 8);
		if (nla->nla_type == GPUPROBE_A_IOMMU_UNATTRIBUTED)
			memcpy(&st->iommu_unattributed, GENL_ATTR_DATA(nla), 8);
		if (nla->nla_type == GPUPROBE_A_PROBE_RECURSION)
			memcpy(&st->probe_recursion, GENL_ATTR_DATA(nla), 8);
		if ((nla->nla_type & NLA_TYPE_MASK) != GPUPROBE_A_STATS)
			continue;
		st->cpus++;
		arem = nla->nla_len - NLA_HDRLEN;
		for (a = GENL_ATTR_DATA(nla); GENL_ATTR_OK(a, arem);
		     a = GENL_ATTR_NEXT(a, arem)) {
			uint64_t v;

			memcpy(&v, GENL_ATTR_DATA(a), sizeof(v));
			switch (a->nla_type) {
			case GPUPROBE_A_STATS_CAPTURED: st->captured += v; break;
			case GPUPROBE_A_STATS_DROPPED: st->dropped += v; break;
			case GPUPROBE_A_STATS_MESSAGES: st->messages += v; break;
			case GPUPROBE_A_STATS_BYTES: st->bytes += v; break;
			case GPUPROBE_A_STATS_UNDELIVERED: st->undelivered += v; break;
			}
		}
	}
}

/* STATS_GET as a dump (flags NLM_F_DUMP) or as a do (flags 0). */
static inline int gp_stats_flags(struct genl_sock *s, struct gp_stats *st,
				 uint16_t flags)
{
	struct genl_msg *m = calloc(1, sizeof(*m));
	int err;

	memset(st, 0, sizeof(*st));
	genl_msg_init(m, s->family, flags, GPUPROBE_CMD_STATS_GET);
	err = genl_xfer(s, m, gp_stats_cb, st);
	free(m);
	return err;
}

static inline int gp_stats(struct genl_sock *s, struct gp_stats *st)
{
	return gp_stats_flags(s, st, NLM_F_DUMP);
}

/* GET_INFO's hooks: is the first whose name starts with prefix attached? */
struct gp_hook_query {
	const char *prefix;
	int attached;		/* -1: no such hook */
	char *reason;		/* NULL, or its reason ("" when none) */
	size_t reason_len;
};

static inline void gp_hook_cb(struct nlmsghdr *nlh, void *arg)
{
	struct gp_hook_query *q = arg;
	struct nlattr *nla, *name, *att, *why;
	int rem, hrem;

	for (nla = genl_attrs(nlh, &rem); GENL_ATTR_OK(nla, rem);
	     nla = GENL_ATTR_NEXT(nla, rem)) {
		if ((nla->nla_type & NLA_TYPE_MASK) != GPUPROBE_A_HOOK ||
		    q->attached >= 0)
			continue;
		hrem = nla->nla_len - NLA_HDRLEN;
		name = genl_find(GENL_ATTR_DATA(nla), hrem, GPUPROBE_A_HOOK_NAME);
		att = genl_find(GENL_ATTR_DATA(nla), hrem,
				GPUPROBE_A_HOOK_ATTACHED);
		if (!name || !att || strncmp(GENL_ATTR_DATA(name), q->prefix,
					     strlen(q->prefix)))
			continue;
		q->attached = *(uint8_t *)GENL_ATTR_DATA(att);
		why = genl_find(GENL_ATTR_DATA(nla), hrem, GPUPROBE_A_HOOK_REASON);
		if (q->reason)
			snprintf(q->reason, q->reason_len, "%.*s",
				 why ? (int)(why->nla_len - NLA_HDRLEN) : 0,
				 why ? (char *)GENL_ATTR_DATA(why) : "");
	}
}

static inline int gp_hook_attached(struct genl_sock *s, const char *prefix)
{
	struct gp_hook_query q = { .prefix = prefix, .attached = -1 };
	struct genl_msg *m = calloc(1, sizeof(*m));

	genl_msg_init(m, s->family, 0, GPUPROBE_CMD_GET_INFO);
	genl_xfer(s, m, gp_hook_cb, &q);
	free(m);
	return q.attached;
}

/* The reason GET_INFO gives for the hook named prefix...: 0, or -ENOENT */
static inline int gp_hook_reason(struct genl_sock *s, const char *prefix,
				 char *reason, size_t len)
{
	struct gp_hook_query q = { .prefix = prefix, .attached = -1,
				   .reason = reason, .reason_len = len };
	struct genl_msg *m = calloc(1, sizeof(*m));

	reason[0] = '\0';
	genl_msg_init(m, s->family, 0, GPUPROBE_CMD_GET_INFO);
	genl_xfer(s, m, gp_hook_cb, &q);
	free(m);
	return q.attached < 0 ? -ENOENT : 0;
}

/* Targets as the TARGET_GET dump lists them: "bdf,bdf,..." */
static inline void gp_targets_cb(struct nlmsghdr *nlh, void *arg)
{
	char *out = arg;
	struct nlattr *nla, *b;
	int rem;

	nla = genl_attrs(nlh, &rem);
	nla = genl_find(nla, rem, GPUPROBE_A_TARGET);
	if (!nla)
		return;
	b = genl_find(GENL_ATTR_DATA(nla), nla->nla_len - NLA_HDRLEN,
		      GPUPROBE_A_TARGET_BDF);
	/* more vectors of the target before: listed already */
	if (!b || genl_find(GENL_ATTR_DATA(nla), nla->nla_len - NLA_HDRLEN,
			    GPUPROBE_A_TARGET_CONTINUED))
		return;
	if (*out)
		strcat(out, ",");
	strcat(out, GENL_ATTR_DATA(b));
}

static inline int gp_targets(struct genl_sock *s, char *out)
{
	struct genl_msg *m = calloc(1, sizeof(*m));
	int err;

	out[0] = '\0';
	genl_msg_init(m, s->family, NLM_F_DUMP, GPUPROBE_CMD_TARGET_GET);
	err = genl_xfer(s, m, gp_targets_cb, out);
	free(m);
	return err;
}

/* Vectors TARGET_GET lists for one target; -1 if it is not a target. */
struct gp_nvec_query {
	const char *bdf;
	int nvec;
	int irq;		/* also look for this irq ... */
	int has_irq;		/* ... and say whether it is listed */
};

static inline void gp_nvec_cb(struct nlmsghdr *nlh, void *arg)
{
	struct gp_nvec_query *q = arg;
	struct nlattr *nla, *a, *b;
	int rem, trem;

	nla = genl_attrs(nlh, &rem);
	nla = genl_find(nla, rem, GPUPROBE_A_TARGET);
	if (!nla)
		return;
	trem = nla->nla_len - NLA_HDRLEN;
	b = genl_find(GENL_ATTR_DATA(nla), trem, GPUPROBE_A_TARGET_BDF);
	if (!b || strcmp(GENL_ATTR_DATA(b), q->bdf))
		return;
	/* a target too large for one message goes on in CONTINUED ones */
	if (q->nvec < 0 ||
	    !genl_find(GENL_ATTR_DATA(nla), trem, GPUPROBE_A_TARGET_CONTINUED))
		q->nvec = 0;
	for (a = GENL_ATTR_DATA(nla); GENL_ATTR_OK(a, trem);
	     a = GENL_ATTR_NEXT(a, trem)) {
		struct nlattr *irq;

		if ((a->nla_type & NLA_TYPE_MASK) != GPUPROBE_A_TARGET_VECTOR)
			continue;
		q->nvec++;
		irq = genl_find(GENL_ATTR_DATA(a), a->nla_len - NLA_HDRLEN,
				GPUPROBE_A_VECTOR_IRQ);
		if (irq && *(uint32_t *)GENL_ATTR_DATA(irq) == (uint32_t)q->irq)
			q->has_irq = 1;
	}
}

static inline int gp_target_query(struct genl_sock *s,
				   struct gp_nvec_query *q)
{
	struct genl_msg *m = calloc(1, sizeof(*m));
	int err;

	q->nvec = -1;
	q->has_irq = 0;
	genl_msg_init(m, s->family, NLM_F_DUMP, GPUPROBE_CMD_TARGET_GET);
	err = genl_xfer(s, m, gp_nvec_cb, q);
	free(m);
	return err;
}

static inline int gp_target_nvec(struct genl_sock *s, const char *bdf)
{
	struct gp_nvec_query q = { .bdf = bdf, .irq = -1 };
	int err = gp_target_query(s, &q);

	return err ? err : q.nvec;
}

/* Whether TARGET_GET lists irq among the target's vectors (<0: error). */
static inline int gp_target_has_irq(struct genl_sock *s, const char *bdf,
				    int irq)
{
	struct gp_nvec_query q = { .bdf = bdf, .irq = irq };
	int err = gp_target_query(s, &q);

	return err ? err : q.has_irq;
}

/* Polls STATS_GET until the session is not running; 0 once it stopped. */
static inline int gp_wait_stopped(struct genl_sock *s, int ms)
{
	struct gp_stats st;

	for (; ms > 0; ms -= 50) {
		if (gp_stats(s, &st))
			return -1;
		if (!st.running)
			return 0;
		usleep(50000);
	}
	return -1;
}

/* What a listener received. */
struct gp_tally {
	uint64_t irq[2];		/* by match: [0] other, [1] bdf */
	uint64_t irq_total;
	uint64_t lost;
	uint64_t target_events[8];
	uint64_t unhandled;
	uint64_t last_ts[MAX_CPUS];
	uint64_t ts_backwards;
	uint64_t bad_duration;
	uint64_t sched;
	int enobufs;
	uint32_t bdf;			/* the device being counted */
	uint32_t irqno;			/* its irq (0: any) */
	uint64_t irq_wrong_irq;
	uint64_t vfio_flagged;
};

static inline void gp_tally_records(struct gp_tally *t, const uint8_t *p,
				    size_t len)
{
	while (len >= sizeof(struct gpuprobe_rec_hdr)) {
		const struct gpuprobe_rec_hdr *h = (const void *)p;

		if (h->size < sizeof(*h) || h->size > len)
			break;
		if (h->type == GPUPROBE_EV_IRQ) {
			const struct gpuprobe_rec_irq *r = (const void *)p;
			int match = r->bdf == t->bdf;

			t->irq_total++;
			t->irq[match]++;
			if (match && t->irqno && r->irq != t->irqno)
				t->irq_wrong_irq++;
			if (!(h->flags & GPUPROBE_IRQ_HANDLED))
				t->unhandled++;
			if (h->flags & GPUPROBE_IRQ_VFIO)
				t->vfio_flagged++;
			if (r->duration_ns > 1000000000ULL)
				t->bad_duration++;
			if (h->cpu < MAX_CPUS) {
				if (h->ts_ns < t->last_ts[h->cpu])
					t->ts_backwards++;
				t->last_ts[h->cpu] = h->ts_ns;
			}
		} else if (h->type == GPUPROBE_EV_LOST) {
			t->lost += ((const struct gpuprobe_rec_lost *)p)->count;
		} else if (h->type == GPUPROBE_EV_TARGET) {
			const struct gpuprobe_rec_target *r = (const void *)p;

			if (r->event < 8)
				t->target_events[r->event]++;
		} else if (h->type == GPUPROBE_EV_WAKEUP ||
			   h->type == GPUPROBE_EV_SWITCH) {
			t->sched++;
		}
		p += h->size;
		len -= h->size;
	}
}

/* An events listener on its own socket. */
static inline int gp_listen(struct genl_sock *l, int rcvbuf)
{
	int err = genl_open(l, GPUPROBE_FAMILY_NAME, GPUPROBE_MCGRP_EVENTS);

	if (err)
		return err;
	if (rcvbuf)
		setsockopt(l->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
			   sizeof(rcvbuf));
	if (setsockopt(l->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
		       &l->events_group, sizeof(l->events_group)))
		return -errno;
	return 0;
}

/*
 * Reads what is queued on an events socket (non-blocking) and hands each
 * message's packed records to fn.  Returns how many ENOBUFS (overruns) the
 * socket reported.
 */
static inline int gp_recv_records(struct genl_sock *l,
				  void (*fn)(void *arg, const uint8_t *recs,
					     size_t len),
				  void *arg)
{
	static char buf[1 << 17] __attribute__((aligned(8)));
	struct nlmsghdr *nlh;
	int enobufs = 0;
	ssize_t n;

	for (;;) {
		n = recv(l->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == ENOBUFS) {
			enobufs++;
			continue;
		}
		if (n <= 0)
			return enobufs;
		for (nlh = (void *)buf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			struct nlattr *nla;
			int rem;

			if (nlh->nlmsg_type != l->family)
				continue;
			nla = genl_attrs(nlh, &rem);
			nla = genl_find(nla, rem, GPUPROBE_A_RECORDS);
			if (nla)
				fn(arg, GENL_ATTR_DATA(nla),
				   nla->nla_len - NLA_HDRLEN);
		}
	}
}

static inline void gp_tally_cb(void *arg, const uint8_t *recs, size_t len)
{
	gp_tally_records(arg, recs, len);
}

/* Reads what is queued (non-blocking) into the tally. */
static inline void gp_drain(struct genl_sock *l, struct gp_tally *t)
{
	t->enobufs += gp_recv_records(l, gp_tally_cb, t);
}

/*
 * Raises n interrupts on edu's first vector and lets the session's records
 * of them arrive (until they are all in, at most 3 s, then 300 ms more for
 * strays): *proc is the /proc/interrupts delta, *rec the records' (t->irq[1],
 * so t->bdf must be edu's).  -1 if edu has no vector or would not raise.
 */
static inline int gp_raise_and_count(struct genl_sock *l, struct gp_tally *t,
				     const char *edu, int n, long long *proc,
				     uint64_t *rec)
{
	long long p0;
	char cmd[16];
	int irqs[8];
	uint64_t r0;

	if (pci_msi_irqs(edu, irqs, 8) <= 0)
		return -1;
	gp_drain(l, t);
	p0 = proc_irq_count(irqs[0]);
	r0 = t->irq[1];
	snprintf(cmd, sizeof(cmd), "%d", n);
	if (edu_ctl(edu, "irq", cmd))
		return -1;
	for (int i = 0; i < 300 && t->irq[1] - r0 < (uint64_t)n; i++) {
		usleep(10000);
		gp_drain(l, t);
	}
	usleep(300000);
	gp_drain(l, t);
	*proc = proc_irq_count(irqs[0]) - p0;
	*rec = t->irq[1] - r0;
	return 0;
}

static inline uint32_t gp_bdf(const char *s)
{
	unsigned int d, b, dev, f;

	if (sscanf(s, "%x:%x:%x.%x", &d, &b, &dev, &f) != 4)
		return 0;
	return GPUPROBE_BDF(d, b, (dev << 3) | f);
}

#endif /* GPUPROBE_SELFTEST_SESSION_H */
