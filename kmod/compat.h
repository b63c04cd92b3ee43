/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpuprobe: everything that depends on the kernel version lives here, chosen
 * by feature tests (Kbuild greps the headers) rather than version numbers.
 */
#ifndef _GPUPROBE_COMPAT_H
#define _GPUPROBE_COMPAT_H

#include <net/genetlink.h>

#include <uapi/linux/gpuprobe.h>

/*
 * GENL_MCAST_CAP_SYS_ADMIN (6.8, backported to some stable trees) makes the
 * core refuse to let an unprivileged socket join the events group.  Without
 * it, events go only to the socket of the privileged caller of START.
 */
#ifdef GPUPROBE_HAVE_GENL_MCAST_CAP
#define GPUPROBE_COMPAT_MCGRP_FLAGS	GENL_MCAST_CAP_SYS_ADMIN
#define GPUPROBE_COMPAT_MCAST_CAPS	GPUPROBE_CAP_MCAST_PRIV
#else
#define GPUPROBE_COMPAT_MCGRP_FLAGS	0
#define GPUPROBE_COMPAT_MCAST_CAPS	0
#endif

#endif /* _GPUPROBE_COMPAT_H */
