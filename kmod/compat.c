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

/*
 * Unlocked against the setter: portid and net are read as a pair that may
 * be torn (old portid, cleared net), so a missing net means no listener.
 */
int gpuprobe_compat_send(const struct genl_family *family, struct sk_buff *msg)
{
	u32 portid = READ_ONCE(gpuprobe_listener_portid);
	struct net *net = READ_ONCE(gpuprobe_listener_net);

	if (!portid || !net) {
		nlmsg_free(msg);
		return -ESRCH;
	}
	return genlmsg_unicast(net, msg, portid);
}

#endif
