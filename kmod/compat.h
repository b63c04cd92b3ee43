/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpuprobe: everything that depends on the kernel version lives here and in
 * compat.c, chosen by feature tests (Kbuild greps the headers) rather than
 * version numbers.
 */
#ifndef _GPUPROBE_COMPAT_H
#define _GPUPROBE_COMPAT_H

#include <net/genetlink.h>

#include <uapi/linux/gpuprobe.h>

/*
 * GENL_MCAST_CAP_SYS_ADMIN (6.8, backported to some stable trees, Debian's
 * 6.1.192 among them) makes the core refuse to let a socket without
 * CAP_SYS_ADMIN join the events group.  Without it, 6.1 has no bind hook to
 * check with, so events go only to the socket that sent START (privileged:
 * START needs CAP_NET_ADMIN, and CAP_SYS_ADMIN or CAP_PERFMON for records
 * with addresses), as taskstats does.  GPUPROBE_UNICAST=1 at build time
 * takes that path on any kernel, for its tests.
 *
 * Either way records go to the owner's network namespace and no other
 * (the family is netnsok): multicast there, or unicast to the owner.
 */
#ifdef GPUPROBE_HAVE_GENL_MCAST_CAP
#define GPUPROBE_COMPAT_MCGRP_FLAGS	GENL_MCAST_CAP_SYS_ADMIN
#define GPUPROBE_COMPAT_MCAST_CAPS	GPUPROBE_CAP_MCAST_PRIV
#else
#define GPUPROBE_COMPAT_MCGRP_FLAGS	0
#define GPUPROBE_COMPAT_MCAST_CAPS	0
#endif

void gpuprobe_compat_set_listener(struct sock *sk, u32 portid, struct net *net);
int gpuprobe_compat_send(const struct genl_family *family, struct sk_buff *msg);

#endif /* _GPUPROBE_COMPAT_H */
