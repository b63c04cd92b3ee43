// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: the "gpuprobe" generic netlink family.
 * Documentation/netlink/specs/gpuprobe.yaml is the ABI.
 *
 * Queries (GET_INFO, TARGET_GET, STATS_GET, SUMMARY_GET) need no
 * capability: they carry PCI addresses, irq numbers and counters, never a
 * kernel address, and they only read (no rescan, no record).  STATS_GET and
 * SUMMARY_GET answer only the session's network namespace and the initial
 * one (EPERM elsewhere).  Control ops need CAP_NET_ADMIN.
 * Joining "events" needs CAP_SYS_ADMIN; so does a START whose records carry
 * DMA or physical addresses (CAP_PERFMON will do too), on every kernel:
 * without a privileged group, the owner is who receives them (compat.h).
 * TGIDs are the caller's (its pid namespace), and so are cgroup ids (its
 * cgroup namespace: TGID_ADD with CGROUP, cgroup_follow.c).
 *
 * Network namespaces (netnsok, Documentation/module.md): the family answers
 * in every one, so a container with a network namespace of its own can
 * record.  The targets, the probes and the one session are the host's, so
 * control stays GENL_ADMIN_PERM, CAP_NET_ADMIN in the initial user
 * namespace: a user namespace's root, which any user can become, may not
 * start, stop or retarget the host's tracing.  A session is its network
 * namespace's: records go there only (compat.c), and from another one but
 * the initial STOP, TGID_*, TARGET_* while it runs and the reads of its
 * counters and summary are refused.  Records with addresses or tasks
 * (DMA, IOMMU, sched, KVM) never go to a network namespace owned by another
 * user namespace than the initial one, where its root (not the host's)
 * decides who joins "events".
 *
 * The family is parallel_ops: TARGET_ADD waits for a device lock and START/
 * STOP for grace periods, which must not hold every other family's requests
 * behind genl_mutex.  gpuprobe_lock serialises what needs it, op by op
 * (TARGET_ADD takes it inside the device lock, the documented order).
 * Every op has a strict policy: resv_start_op covers them all, so an op
 * without its own gets the core's reject-everything policy.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/time64.h>
#include <linux/utsname.h>
#include <linux/user_namespace.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "compat.h"
#include "gpuprobe.h"

static struct genl_family gpuprobe_family;

/* "DDDD:BB:DD.F" is 12 characters. */
#define GPUPROBE_BDF_MAXLEN	16

static const struct nla_policy gpuprobe_target_policy[GPUPROBE_A_MAX + 1] = {
	[GPUPROBE_A_BDF] = { .type = NLA_NUL_STRING,
			     .len = GPUPROBE_BDF_MAXLEN - 1 },
};

static const struct nla_policy gpuprobe_start_policy[GPUPROBE_A_MAX + 1] = {
	[GPUPROBE_A_EVENT_MASK] = NLA_POLICY_MASK(NLA_U32, GPUPROBE_EVMASK_ALL),
	[GPUPROBE_A_SUMMARY] = { .type = NLA_FLAG },
	[GPUPROBE_A_NO_IOMMU_PARTS] = { .type = NLA_FLAG },
};

static const struct nla_policy gpuprobe_tgid_policy[GPUPROBE_A_MAX + 1] = {
	[GPUPROBE_A_TGID] = NLA_POLICY_MIN(NLA_U32, 1),
	[GPUPROBE_A_CGROUP] = NLA_POLICY_MIN(NLA_U64, 1),
};

static struct sk_buff *gpuprobe_reply_new(struct genl_info *info, u8 cmd,
					  void **hdr)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);

	if (!msg)
		return NULL;
	*hdr = genlmsg_put_reply(msg, info, &gpuprobe_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int gpuprobe_reply_send(struct sk_buff *msg, void *hdr, int err,
			       struct genl_info *info)
{
	if (err) {
		nlmsg_free(msg);
		NL_SET_ERR_MSG_MOD(info->extack, "reply does not fit one message");
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int gpuprobe_fill_info(struct sk_buff *skb)
{
	if (nla_put_string(skb, GPUPROBE_A_VERSION, GPUPROBE_VERSION) ||
	    nla_put_string(skb, GPUPROBE_A_KERNEL_RELEASE, init_utsname()->release) ||
	    nla_put_u32(skb, GPUPROBE_A_CLOCK, CLOCK_MONOTONIC) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_CAPS,
			      gpuprobe_hooks_caps() | GPUPROBE_COMPAT_MCAST_CAPS,
			      GPUPROBE_A_PAD) ||
	    nla_put_u32(skb, GPUPROBE_A_RECORD_VERSION, GPUPROBE_RECORD_VERSION) ||
	    nla_put_u8(skb, GPUPROBE_A_RUNNING, gpuprobe_running))
		return -EMSGSIZE;
	return gpuprobe_hooks_fill(skb);
}

static int gpuprobe_nl_get_info(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = gpuprobe_reply_new(info, GPUPROBE_CMD_GET_INFO, &hdr);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&gpuprobe_lock);
	err = gpuprobe_fill_info(msg);
	mutex_unlock(&gpuprobe_lock);
	return gpuprobe_reply_send(msg, hdr, err, info);
}

/*
 * The cookie (never reused, unlike a pointer) of the network namespace that
 * started the session running, or the last one, whose counters and summary
 * stay readable until the next START; 0 before the first.  Under
 * gpuprobe_lock.
 */
static u64 gpuprobe_session_net_cookie;

/* May a request from net read the counters and the summary? */
static bool gpuprobe_session_may_read(const struct net *net)
{
	lockdep_assert_held(&gpuprobe_lock);
	return net_eq(net, &init_net) || !gpuprobe_session_net_cookie ||
	       gpuprobe_session_net_cookie == net->net_cookie;
}

/* May it change the session running (STOP, TGID_*, its targets)? */
static bool gpuprobe_session_may_control(const struct net *net)
{
	lockdep_assert_held(&gpuprobe_lock);
	return !gpuprobe_running || net_eq(net, &init_net) ||
	       gpuprobe_session_net_cookie == net->net_cookie;
}

#define GPUPROBE_OTHER_NETNS \
	"the session was started in another network namespace: only it, or the host's, may change or read it"

/*
 * Targets are the host's, but a container's change to them would change
 * the session of another: checked when the request comes (a session that
 * starts while TARGET_ADD waits for the device lock sees the new target,
 * as it would had the request come first).
 */
static int gpuprobe_targets_may_change(struct genl_info *info)
{
	bool ok;

	mutex_lock(&gpuprobe_lock);
	ok = gpuprobe_session_may_control(genl_info_net(info));
	mutex_unlock(&gpuprobe_lock);
	if (ok)
		return 0;
	NL_SET_ERR_MSG_MOD(info->extack, GPUPROBE_OTHER_NETNS);
	return -EPERM;
}

static int gpuprobe_get_bdf(struct genl_info *info, u32 *bdf)
{
	if (GENL_REQ_ATTR_CHECK(info, GPUPROBE_A_BDF)) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing the PCI address (BDF attribute)");
		return -EINVAL;
	}
	if (gpuprobe_parse_bdf(nla_data(info->attrs[GPUPROBE_A_BDF]), bdf)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[GPUPROBE_A_BDF],
				    "not a PCI address: want DDDD:BB:DD.F in hex");
		return -EINVAL;
	}
	return 0;
}

static int gpuprobe_nl_target_add(struct sk_buff *skb, struct genl_info *info)
{
	u32 bdf;
	int err;

	err = gpuprobe_get_bdf(info, &bdf);
	if (!err)
		err = gpuprobe_targets_may_change(info);
	if (err)
		return err;
	/* takes gpuprobe_lock itself, after the device lock */
	err = gpuprobe_target_add(bdf);
	if (err == -ENODEV)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[GPUPROBE_A_BDF],
				    "no PCI device at this address");
	else if (err == -EEXIST)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[GPUPROBE_A_BDF],
				    "already a target");
	else if (err == -ENOSPC)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[GPUPROBE_A_BDF],
				    "too many targets: remove one with TARGET_DEL or load with a higher max_targets");
	return err;
}

static int gpuprobe_nl_target_del(struct sk_buff *skb, struct genl_info *info)
{
	u32 bdf;
	int err;

	err = gpuprobe_get_bdf(info, &bdf);
	if (!err)
		err = gpuprobe_targets_may_change(info);
	if (err)
		return err;
	err = gpuprobe_target_del(bdf);
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[GPUPROBE_A_BDF],
				    "not a target");
	return err;
}

/*
 * One message of a target: from its vector first on, as many as fit.  The
 * first part has the identity and driver; a later one (first > 0) only the
 * BDF and CONTINUED.  Returns the vector to resume at (t->nvec: all listed),
 * -EMSGSIZE when the part would list no vector it still has to.
 */
static int gpuprobe_fill_target(struct sk_buff *skb,
				const struct gpuprobe_target *t,
				unsigned int first)
{
	struct pci_dev *pdev = t->pdev;
	struct nlattr *nest, *vnest;
	const char *drv;
	char bdf[GPUPROBE_BDF_MAXLEN];
	unsigned int i;

	gpuprobe_format_bdf(t->bdf, bdf, sizeof(bdf));
	nest = nla_nest_start(skb, GPUPROBE_A_TARGET);
	if (!nest || nla_put_string(skb, GPUPROBE_A_TARGET_BDF, bdf))
		return -EMSGSIZE;
	if (first) {
		if (nla_put_flag(skb, GPUPROBE_A_TARGET_CONTINUED))
			return -EMSGSIZE;
	} else {
		if (nla_put_u16(skb, GPUPROBE_A_TARGET_VENDOR, pdev->vendor) ||
		    nla_put_u16(skb, GPUPROBE_A_TARGET_DEVICE, pdev->device) ||
		    nla_put_u32(skb, GPUPROBE_A_TARGET_CLASS, pdev->class))
			return -EMSGSIZE;
		drv = t->nvec ? dev_driver_string(&pdev->dev) : NULL;
		if (drv && *drv &&
		    nla_put_string(skb, GPUPROBE_A_TARGET_DRIVER, drv))
			return -EMSGSIZE;
	}
	for (i = first; i < t->nvec; i++) {
		vnest = nla_nest_start(skb, GPUPROBE_A_TARGET_VECTOR);
		if (!vnest)
			break;
		if (nla_put_u32(skb, GPUPROBE_A_VECTOR_INDEX, t->vec[i].index) ||
		    nla_put_u32(skb, GPUPROBE_A_VECTOR_IRQ, t->vec[i].irq) ||
		    nla_put_u8(skb, GPUPROBE_A_VECTOR_MSIX, t->vec[i].msix)) {
			nla_nest_cancel(skb, vnest);
			break;
		}
		nla_nest_end(skb, vnest);
	}
	if (i == first && i < t->nvec)
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return i;
}

/*
 * A part of the dump is one skb: args[0] is the target it resumes at,
 * args[1] the vector within it.  A target is split only when it does not
 * fit a part of its own (MSI-X allows 2048 vectors, about 130 fit a page):
 * it is then the part's first message and goes on in the next part.  The
 * generation (cb->seq) changes with the list and with any target's
 * vectors, so a dump that resumed across a change is NLM_F_DUMP_INTR.
 */
static int gpuprobe_nl_target_dump(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	unsigned int first = cb->args[1];
	long idx = 0, start = cb->args[0];
	struct gpuprobe_target *t;
	int err = 0, next;
	bool alone;
	void *hdr;

	mutex_lock(&gpuprobe_lock);
	cb->seq = gpuprobe_targets_gen;
	list_for_each_entry(t, &gpuprobe_targets, node) {
		if (idx++ < start)
			continue;
		/* fewer vectors since the last part: flagged, nothing left */
		if (first && first >= t->nvec) {
			first = 0;
			cb->args[0] = idx;
			cb->args[1] = 0;
			continue;
		}
		alone = !skb->len;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &gpuprobe_family,
				  NLM_F_MULTI, GPUPROBE_CMD_TARGET_GET);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		genl_dump_check_consistent(cb, hdr);
		next = gpuprobe_fill_target(skb, t, first);
		if (next < 0 || (next < t->nvec && !alone)) {
			/* the next part, where it comes first */
			genlmsg_cancel(skb, hdr);
			err = -EMSGSIZE;
			break;
		}
		genlmsg_end(skb, hdr);
		if (next < t->nvec) {
			cb->args[1] = next;
			break;
		}
		first = 0;
		cb->args[0] = idx;
		cb->args[1] = 0;
	}
	mutex_unlock(&gpuprobe_lock);
	/* a full skb ends this part of the dump; an empty one cannot go on */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ? err : skb->len;
}

/* Records that carry DMA addresses (DMA) or physical ones (IOMMU maps). */
#define GPUPROBE_EVMASK_ADDR \
	(GPUPROBE_EVMASK(GPUPROBE_EV_DMA) | GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU))
/*
 * Records that name tasks: a switch names the task switched out (any on
 * the host), a wake-up the task woken, KVM and IOMMU records a VMM.
 */
#define GPUPROBE_EVMASK_PID \
	(GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP) | GPUPROBE_EVMASK(GPUPROBE_EV_SWITCH) | \
	 GPUPROBE_EVMASK(GPUPROBE_EV_KVM) | GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU))

/* As the events group asks of its members, the sender's socket and task. */
static bool gpuprobe_addr_capable(const struct sk_buff *skb)
{
#ifdef CAP_PERFMON
	if (netlink_capable(skb, CAP_PERFMON))
		return true;
#endif
	return netlink_capable(skb, CAP_SYS_ADMIN);
}

static int gpuprobe_nl_start(struct sk_buff *skb, struct genl_info *info)
{
	u32 mask = GPUPROBE_EVMASK(GPUPROBE_EV_IRQ);
	bool summary = nla_get_flag(info->attrs[GPUPROBE_A_SUMMARY]);
	bool no_parts = nla_get_flag(info->attrs[GPUPROBE_A_NO_IOMMU_PARTS]);
	int err;

	if (info->attrs[GPUPROBE_A_EVENT_MASK])
		mask = nla_get_u32(info->attrs[GPUPROBE_A_EVENT_MASK]);
	mask &= ~(GPUPROBE_EVMASK(GPUPROBE_EV_LOST) |
		  GPUPROBE_EVMASK(GPUPROBE_EV_TARGET));
	if ((mask & GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU_PART)) &&
	    !(mask & GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU))) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[GPUPROBE_A_EVENT_MASK],
				    "the IOMMU parts come with the IOMMU events: ask for both");
		return -EINVAL;
	}
	/*
	 * The parts come with the IOMMU events unless the session leaves them
	 * out (their probes fire for every device's IOVA and page-table
	 * calls): the flag decides, not the mask's bit, which tools older
	 * than the flag never set.
	 */
	if (mask & GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU))
		mask = no_parts ? mask & ~GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU_PART) :
			mask | GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU_PART);
	if (!mask) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[GPUPROBE_A_EVENT_MASK],
				    "event mask selects nothing to capture");
		return -EINVAL;
	}
	if (summary && mask != GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "summary mode covers interrupt events only");
		return -EINVAL;
	}

	if ((mask & GPUPROBE_EVMASK_ADDR) && !gpuprobe_addr_capable(skb)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[GPUPROBE_A_EVENT_MASK],
				    "DMA and IOMMU records carry DMA and physical addresses: they need CAP_SYS_ADMIN or CAP_PERFMON");
		return -EPERM;
	}
	/*
	 * There that user namespace's root, which any user can be, decides
	 * who joins "events": nothing a user without CAP_PERFMON on the host
	 * may not see (perf's sched and kvm tracepoints need it).
	 */
	if ((mask & GPUPROBE_EVMASK_ADDR) &&
	    genl_info_net(info)->user_ns != &init_user_ns) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[GPUPROBE_A_EVENT_MASK],
				    "DMA and IOMMU records carry addresses: not in a network namespace owned by a user namespace other than the host's");
		return -EPERM;
	}
	if ((mask & GPUPROBE_EVMASK_PID) &&
	    genl_info_net(info)->user_ns != &init_user_ns) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[GPUPROBE_A_EVENT_MASK],
				    "sched and KVM records name the host's tasks: not in a network namespace owned by a user namespace other than the host's");
		return -EPERM;
	}

	/* fresh vectors for the first records (device locks: not under ours) */
	gpuprobe_targets_rescan();
	mutex_lock(&gpuprobe_lock);
	/* the doit runs in the sender's context: its socket and pid namespace */
	err = gpuprobe_start(mask, summary, NETLINK_CB(skb).sk,
			     info->snd_portid, genl_info_net(info),
			     info->extack);
	/* the counters it reset and its summary are that namespace's now */
	if (!err)
		gpuprobe_session_net_cookie = genl_info_net(info)->net_cookie;
	mutex_unlock(&gpuprobe_lock);
	if (err == -EOPNOTSUPP)
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[GPUPROBE_A_EVENT_MASK],
				    "event mask asks for events this kernel cannot hook (see GET_INFO hooks)");
	return err;
}

static int gpuprobe_nl_stop(struct sk_buff *skb, struct genl_info *info)
{
	int err;

	mutex_lock(&gpuprobe_lock);
	if (!gpuprobe_session_may_control(genl_info_net(info)))
		err = -EPERM;
	else
		err = gpuprobe_stop();
	mutex_unlock(&gpuprobe_lock);
	if (err == -EPERM)
		NL_SET_ERR_MSG_MOD(info->extack, GPUPROBE_OTHER_NETNS);
	else if (err)
		NL_SET_ERR_MSG_MOD(info->extack, "not started");
	return err;
}

/* One STATS nest: this CPU's counters. */
static int gpuprobe_fill_stats_cpu(struct sk_buff *skb, int cpu)
{
	struct gpuprobe_cpu_stats st;
	struct nlattr *nest;

	gpuprobe_stats(cpu, &st);
	st.summary_dropped = gpuprobe_summary_dropped(cpu);
	nest = nla_nest_start(skb, GPUPROBE_A_STATS);
	if (!nest ||
	    nla_put_u32(skb, GPUPROBE_A_STATS_CPU, cpu) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_STATS_CAPTURED,
			      st.captured, GPUPROBE_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_STATS_DROPPED,
			      st.dropped, GPUPROBE_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_STATS_MESSAGES,
			      st.messages, GPUPROBE_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_STATS_BYTES,
			      st.bytes, GPUPROBE_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_STATS_UNDELIVERED,
			      st.undelivered, GPUPROBE_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_STATS_OVERRUN,
			      st.overrun, GPUPROBE_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_STATS_HIGH_WATER,
			      st.high_water, GPUPROBE_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_STATS_WAIT_MAX,
			      st.wait_max_ns, GPUPROBE_A_STATS_PAD) ||
	    nla_put_u32(skb, GPUPROBE_A_STATS_SLOTS, st.slots) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_STATS_SUMMARY_DROPPED,
			      st.summary_dropped, GPUPROBE_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_STATS_NO_RING,
			      st.no_ring, GPUPROBE_A_STATS_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int gpuprobe_fill_stats_totals(struct sk_buff *skb)
{
	if (nla_put_u64_64bit(skb, GPUPROBE_A_MISSED, gpuprobe_dma_missed(),
			      GPUPROBE_A_PAD) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_IOMMU_UNATTRIBUTED,
			      gpuprobe_iommu_unattributed_count(),
			      GPUPROBE_A_PAD) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_PROBE_RECURSION,
			      gpuprobe_probe_recursion(), GPUPROBE_A_PAD) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_IRQMAP_FAILED,
			      gpuprobe_irqmap_failed(), GPUPROBE_A_PAD) ||
	    nla_put_u32(skb, GPUPROBE_A_DMAR_UNITS, gpuprobe_dmar_units()) ||
	    nla_put_u8(skb, GPUPROBE_A_RUNNING, gpuprobe_running))
		return -EMSGSIZE;
	return 0;
}

/* Room for every possible CPU's nest and the totals. */
static size_t gpuprobe_stats_size(void)
{
	size_t cpu = nla_total_size(0) + 2 * nla_total_size(sizeof(u32)) +
		     10 * nla_total_size_64bit(sizeof(u64));

	return num_possible_cpus() * cpu +
	       4 * nla_total_size_64bit(sizeof(u64)) +
	       nla_total_size(sizeof(u32)) + nla_total_size(sizeof(u8));
}

/*
 * The do form: one reply sized for every possible CPU.  Kept for readers
 * that predate the dump; on hosts with thousands of possible CPUs the
 * reply may be too large to allocate, and the dump is the way.
 */
static int gpuprobe_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int cpu, err = 0;

	msg = genlmsg_new(gpuprobe_stats_size(), GFP_KERNEL | __GFP_NOWARN);
	if (!msg) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "no memory for a reply covering every CPU: dump STATS_GET instead");
		return -ENOMEM;
	}
	hdr = genlmsg_put_reply(msg, info, &gpuprobe_family, 0,
				GPUPROBE_CMD_STATS_GET);
	if (!hdr) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	mutex_lock(&gpuprobe_lock);
	if (!gpuprobe_session_may_read(genl_info_net(info))) {
		mutex_unlock(&gpuprobe_lock);
		nlmsg_free(msg);
		NL_SET_ERR_MSG_MOD(info->extack, GPUPROBE_OTHER_NETNS);
		return -EPERM;
	}
	for_each_possible_cpu(cpu) {
		err = gpuprobe_fill_stats_cpu(msg, cpu);
		if (err)
			break;
	}
	if (!err)
		err = gpuprobe_fill_stats_totals(msg);
	mutex_unlock(&gpuprobe_lock);
	return gpuprobe_reply_send(msg, hdr, err, info);
}

/*
 * The dump's start: a refusal here is an ack with the error, where one
 * from the dump itself hides in NLMSG_DONE.  The message goes with it
 * where the core gives .start an extack (6.12); 6.1's cb->extack is NULL
 * in .start, and NL_SET_ERR_MSG_MOD() then sets nothing.
 */
static int gpuprobe_stats_dump_start(struct netlink_callback *cb)
{
	bool ok;

	mutex_lock(&gpuprobe_lock);
	ok = gpuprobe_session_may_read(sock_net(cb->skb->sk));
	mutex_unlock(&gpuprobe_lock);
	if (ok)
		return 0;
	NL_SET_ERR_MSG_MOD(cb->extack, GPUPROBE_OTHER_NETNS);
	return -EPERM;
}

/*
 * The dump form: the first message carries the totals (running, missed),
 * then as many CPUs per message as fit.  cb->args[0]: messages sent,
 * cb->args[1]: the next CPU.
 */
static int gpuprobe_nl_stats_dump(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	int cpu, n = 0, err = 0;
	void *hdr;

	cpu = cb->args[0] ? cb->args[1] : 0;
	cpu = cpumask_next(cpu - 1, cpu_possible_mask);
	if (cb->args[0] && cpu >= nr_cpu_ids)
		return 0;
	mutex_lock(&gpuprobe_lock);
	/*
	 * A session of another namespace started since the dump began (its
	 * start checked): checked under the hold that reads the counters, or
	 * a START between the two would hand them over.
	 */
	if (!gpuprobe_session_may_read(sock_net(cb->skb->sk))) {
		mutex_unlock(&gpuprobe_lock);
		return -EPERM;
	}
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &gpuprobe_family, NLM_F_MULTI, GPUPROBE_CMD_STATS_GET);
	if (!hdr) {
		mutex_unlock(&gpuprobe_lock);
		return -EMSGSIZE;
	}
	if (!cb->args[0])
		err = gpuprobe_fill_stats_totals(skb);
	while (!err && cpu < nr_cpu_ids) {
		err = gpuprobe_fill_stats_cpu(skb, cpu);
		if (err)
			break;	/* this CPU starts the next message */
		n++;
		cpu = cpumask_next(cpu, cpu_possible_mask);
	}
	mutex_unlock(&gpuprobe_lock);
	if (err && !n && cb->args[0]) {
		genlmsg_cancel(skb, hdr);
		return err;	/* not even one CPU fits an empty message */
	}
	genlmsg_end(skb, hdr);
	cb->args[0]++;
	cb->args[1] = cpu;
	return skb->len;
}

/*
 * The thread group (in the initial pid namespace, as the probes see tasks)
 * of the process or thread nr names in the caller's pid namespace; 0 if
 * it names none there.
 */
static u32 gpuprobe_tgid_of_caller(u32 nr)
{
	struct task_struct *task;
	u32 tgid = 0;

	rcu_read_lock();
	task = pid_task(find_vpid(nr), PIDTYPE_PID);
	if (task)
		tgid = task_tgid_nr(task);
	rcu_read_unlock();
	return tgid;
}

/*
 * TGID_* with a CGROUP: follow (or stop following) a cgroup v2 and what is
 * below it, by its id, as the caller's cgroup namespace sees it.
 */
static int gpuprobe_nl_cgroup(struct genl_info *info, bool add)
{
	struct nlattr *attr = info->attrs[GPUPROBE_A_CGROUP];
	int err;

	mutex_lock(&gpuprobe_lock);
	if (!gpuprobe_session_may_control(genl_info_net(info)))
		err = -EPERM;
	else if (add)
		err = gpuprobe_cgroup_follow(nla_get_u64(attr));
	else
		err = gpuprobe_cgroup_unfollow(nla_get_u64(attr));
	mutex_unlock(&gpuprobe_lock);
	if (err == -EPERM)
		NL_SET_ERR_MSG_MOD(info->extack, GPUPROBE_OTHER_NETNS);
	else if (err == -ESRCH)
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "no cgroup v2 with this id in the caller's cgroup namespace");
	else if (err == -EEXIST)
		NL_SET_ERR_MSG_MOD(info->extack, "a cgroup is already followed: one at a time");
	else if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "cgroup not followed");
	return err;
}

static int gpuprobe_nl_tgid(struct sk_buff *skb, struct genl_info *info)
{
	bool add = info->genlhdr->cmd == GPUPROBE_CMD_TGID_ADD;
	u32 tgid;
	int err;

	if (info->attrs[GPUPROBE_A_CGROUP]) {
		if (info->attrs[GPUPROBE_A_TGID]) {
			NL_SET_ERR_MSG_MOD(info->extack, "a thread group or a cgroup, not both");
			return -EINVAL;
		}
		return gpuprobe_nl_cgroup(info, add);
	}
	if (GENL_REQ_ATTR_CHECK(info, GPUPROBE_A_TGID)) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing the thread group id (TGID attribute)");
		return -EINVAL;
	}
	tgid = gpuprobe_tgid_of_caller(nla_get_u32(info->attrs[GPUPROBE_A_TGID]));
	/*
	 * DEL of a process that exited while no exit probe ran (no session,
	 * or one without sched or DMA events) is still in the set: in the
	 * initial namespace its number is the kernel's, so it can go.
	 */
	if (!tgid && !add && task_active_pid_ns(current) == &init_pid_ns)
		tgid = nla_get_u32(info->attrs[GPUPROBE_A_TGID]);
	if (!tgid) {
		/* DEL: gone, so its exit took it out of the set */
		err = add ? -ESRCH : -ENOENT;
	} else {
		mutex_lock(&gpuprobe_lock);
		if (!gpuprobe_session_may_control(genl_info_net(info)))
			err = -EPERM;
		else if (add)
			err = gpuprobe_tgid_add(tgid);
		else
			err = gpuprobe_tgid_del(tgid);
		mutex_unlock(&gpuprobe_lock);
	}
	if (err == -EPERM)
		NL_SET_ERR_MSG_MOD(info->extack, GPUPROBE_OTHER_NETNS);
	else if (err == -ESRCH)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[GPUPROBE_A_TGID],
				    "no such process in the caller's pid namespace");
	else if (err == -ENOSPC)
		NL_SET_ERR_MSG_MOD(info->extack, "too many thread groups followed");
	else if (err == -EEXIST)
		NL_SET_ERR_MSG_MOD(info->extack, "thread group already followed");
	else if (err == -ENOENT)
		NL_SET_ERR_MSG_MOD(info->extack, "thread group not followed");
	return err;
}

static int gpuprobe_nl_summary_get(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(GENLMSG_DEFAULT_SIZE * 8, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &gpuprobe_family, 0,
				GPUPROBE_CMD_SUMMARY_GET);
	if (!hdr) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	mutex_lock(&gpuprobe_lock);
	if (gpuprobe_session_may_read(genl_info_net(info)))
		err = gpuprobe_summary_fill(msg);
	else
		err = -EPERM;
	mutex_unlock(&gpuprobe_lock);
	if (err == -EPERM) {
		nlmsg_free(msg);
		NL_SET_ERR_MSG_MOD(info->extack, GPUPROBE_OTHER_NETNS);
		return err;
	}
	if (err == -ENODATA) {
		nlmsg_free(msg);
		NL_SET_ERR_MSG_MOD(info->extack,
				   "no summary: START with the SUMMARY flag first");
		return err;
	}
	return gpuprobe_reply_send(msg, hdr, err, info);
}

static const struct genl_ops gpuprobe_ops[] = {
	{
		.cmd = GPUPROBE_CMD_GET_INFO,
		.doit = gpuprobe_nl_get_info,
	},
	{
		.cmd = GPUPROBE_CMD_TARGET_ADD,
		.doit = gpuprobe_nl_target_add,
		.policy = gpuprobe_target_policy,
		.maxattr = GPUPROBE_A_BDF,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = GPUPROBE_CMD_TARGET_DEL,
		.doit = gpuprobe_nl_target_del,
		.policy = gpuprobe_target_policy,
		.maxattr = GPUPROBE_A_BDF,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = GPUPROBE_CMD_TARGET_GET,
		.dumpit = gpuprobe_nl_target_dump,
	},
	{
		.cmd = GPUPROBE_CMD_START,
		.doit = gpuprobe_nl_start,
		.policy = gpuprobe_start_policy,
		.maxattr = GPUPROBE_A_NO_IOMMU_PARTS,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = GPUPROBE_CMD_STOP,
		.doit = gpuprobe_nl_stop,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = GPUPROBE_CMD_STATS_GET,
		.doit = gpuprobe_nl_stats_get,
		.start = gpuprobe_stats_dump_start,
		.dumpit = gpuprobe_nl_stats_dump,
	},
	{
		.cmd = GPUPROBE_CMD_TGID_ADD,
		.doit = gpuprobe_nl_tgid,
		.policy = gpuprobe_tgid_policy,
		.maxattr = GPUPROBE_A_CGROUP,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = GPUPROBE_CMD_TGID_DEL,
		.doit = gpuprobe_nl_tgid,
		.policy = gpuprobe_tgid_policy,
		.maxattr = GPUPROBE_A_CGROUP,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = GPUPROBE_CMD_SUMMARY_GET,
		.doit = gpuprobe_nl_summary_get,
	},
};

static const struct genl_multicast_group gpuprobe_mcgrps[] = {
	{
		.name = GPUPROBE_MCGRP_EVENTS,
		.flags = GPUPROBE_COMPAT_MCGRP_FLAGS,
	},
};

static struct genl_family gpuprobe_family __ro_after_init = {
	.name = GPUPROBE_FAMILY_NAME,
	.version = GPUPROBE_FAMILY_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	/* every op: strict header and attribute checks, no policy = none */
	.resv_start_op = GPUPROBE_CMD_GET_INFO,
	.module = THIS_MODULE,
	.ops = gpuprobe_ops,
	.n_ops = ARRAY_SIZE(gpuprobe_ops),
	.mcgrps = gpuprobe_mcgrps,
	.n_mcgrps = ARRAY_SIZE(gpuprobe_mcgrps),
};

/* From the drain work: one message of packed records to the listeners. */
int gpuprobe_send_events(const void *recs, size_t len)
{
	struct sk_buff *msg;
	struct nlattr *nla;
	void *hdr;

	msg = genlmsg_new(nla_total_size(len), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put(msg, 0, 0, &gpuprobe_family, 0, GPUPROBE_CMD_EVENTS);
	if (!hdr)
		goto err_free;
	nla = nla_reserve(msg, GPUPROBE_A_RECORDS, len);
	if (!nla)
		goto err_free;
	memcpy(nla_data(nla), recs, len);
	genlmsg_end(msg, hdr);
	return gpuprobe_compat_send(&gpuprobe_family, msg);

err_free:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

int gpuprobe_netlink_init(void)
{
	return genl_register_family(&gpuprobe_family);
}

void gpuprobe_netlink_exit(void)
{
	genl_unregister_family(&gpuprobe_family);
}
