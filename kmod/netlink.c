// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: the "gpuprobe" generic netlink family.
 * Documentation/netlink/specs/gpuprobe.yaml is the ABI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/time64.h>
#include <linux/utsname.h>
#include <net/genetlink.h>

#include "compat.h"
#include "gpuprobe.h"

static struct genl_family gpuprobe_family;

static const struct nla_policy gpuprobe_get_info_policy[GPUPROBE_A_MAX + 1] = {
};

static u64 gpuprobe_caps(void)
{
	return GPUPROBE_COMPAT_MCAST_CAPS;
}

static int gpuprobe_fill_info(struct sk_buff *skb)
{
	if (nla_put_string(skb, GPUPROBE_A_VERSION, GPUPROBE_VERSION) ||
	    nla_put_string(skb, GPUPROBE_A_KERNEL_RELEASE, init_utsname()->release) ||
	    nla_put_u32(skb, GPUPROBE_A_CLOCK, CLOCK_MONOTONIC) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_CAPS, gpuprobe_caps(),
			      GPUPROBE_A_PAD) ||
	    nla_put_u32(skb, GPUPROBE_A_RECORD_VERSION, GPUPROBE_RECORD_VERSION))
		return -EMSGSIZE;
	return 0;
}

static int gpuprobe_nl_get_info(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	hdr = genlmsg_put_reply(msg, info, &gpuprobe_family, 0,
				GPUPROBE_CMD_GET_INFO);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free_msg;
	}

	mutex_lock(&gpuprobe_lock);
	err = gpuprobe_fill_info(msg);
	mutex_unlock(&gpuprobe_lock);
	if (err) {
		NL_SET_ERR_MSG_MOD(info->extack, "reply does not fit one message");
		goto err_free_msg;
	}

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
	return err;
}

static const struct genl_small_ops gpuprobe_ops[] = {
	{
		.cmd = GPUPROBE_CMD_GET_INFO,
		.doit = gpuprobe_nl_get_info,
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
	.maxattr = GPUPROBE_A_MAX,
	.policy = gpuprobe_get_info_policy,
	.netnsok = false,
	.module = THIS_MODULE,
	.small_ops = gpuprobe_ops,
	.n_small_ops = ARRAY_SIZE(gpuprobe_ops),
	.resv_start_op = GPUPROBE_CMD_MAX + 1,
	.mcgrps = gpuprobe_mcgrps,
	.n_mcgrps = ARRAY_SIZE(gpuprobe_mcgrps),
};

int gpuprobe_netlink_init(void)
{
	return genl_register_family(&gpuprobe_family);
}

void gpuprobe_netlink_exit(void)
{
	genl_unregister_family(&gpuprobe_family);
}
