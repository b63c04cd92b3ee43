// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: kernel-version dependent pieces (see compat.h).
 */
#include <net/genetlink.h>

#include "compat.h"

#ifdef GPUPROBE_HAVE_GENL_MCAST_CAP

void gpuprobe_compat_set_listener(u32 portid, struct net *net)
{
}

int gpuprobe_compat_send(const struct genl_family *family, struct sk_buff *msg)
{
	return genlmsg_multicast(family, msg, 0, 0, GFP_KERNEL);
}

#else

static u32 gpuprobe_listener_portid;
static struct net *gpuprobe_listener_net;

/* Called under gpuprobe_lock by START. */
void gpuprobe_compat_set_listener(u32 portid, struct net *net)
{
	WRITE_ONCE(gpuprobe_listener_net, net);
	WRITE_ONCE(gpuprobe_listener_portid, portid);
}

int gpuprobe_compat_send(const struct genl_family *family, struct sk_buff *msg)
{
	u32 portid = READ_ONCE(gpuprobe_listener_portid);

	if (!portid) {
		nlmsg_free(msg);
		return -ESRCH;
	}
	return genlmsg_unicast(READ_ONCE(gpuprobe_listener_net), msg, portid);
}

#endif
