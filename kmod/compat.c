// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: kernel-version dependent pieces (see compat.h).
 */
#include <linux/fs.h>
#include <linux/spinlock.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "compat.h"

#ifdef GPUPROBE_HAVE_GENL_MCAST_CAP

/*
 * The owner's network namespace, referenced: the events group there, and
 * in no other (genlmsg_multicast() is the initial namespace's, _allns()
 * every one's), is where records go.  Who may join it there is decided in
 * that namespace's user namespace (GENL_MCAST_CAP_SYS_ADMIN); netlink.c
 * keeps records with addresses out of namespaces not the host's.
 * genlmsg_multicast_netns() is the same on 6.1 and 6.12: no feature test.
 */
static DEFINE_SPINLOCK(gpuprobe_listener_lock);
static struct net *gpuprobe_listener_net;

/* Called by START, STOP and the owner's release notifier (atomic). */
void gpuprobe_compat_set_listener(struct sock *sk, u32 portid, struct net *net)
{
	struct net *old;

	if (net)
		get_net(net);
	spin_lock_bh(&gpuprobe_listener_lock);
	old = gpuprobe_listener_net;
	gpuprobe_listener_net = net;
	spin_unlock_bh(&gpuprobe_listener_lock);
	/* the last reference's cleanup is a work item: fine here */
	if (old)
		put_net(old);
}

int gpuprobe_compat_send(const struct genl_family *family, struct sk_buff *msg)
{
	struct net *net;
	int err;

	spin_lock_bh(&gpuprobe_listener_lock);
	net = gpuprobe_listener_net;
	if (net)
		get_net(net);
	spin_unlock_bh(&gpuprobe_listener_lock);
	/* the owner closed: nobody in its namespace asked for more */
	if (!net) {
		nlmsg_free(msg);
		return -ESRCH;
	}
	err = genlmsg_multicast_netns(family, net, msg, 0, 0, GFP_KERNEL);
	put_net(net);
	return err;
}

#else

/*
 * The listener: the owner's socket, referenced, and its port id.  A port
 * id alone is not enough: netlink_release() frees it (netlink_remove())
 * before the notifier that clears the listener runs, and a socket bound
 * to it in between would get the owner's records.
 */
static DEFINE_SPINLOCK(gpuprobe_listener_lock);
static struct sock *gpuprobe_listener_sk;
static u32 gpuprobe_listener_portid;
static struct net *gpuprobe_listener_net;

/* Called by START, STOP and the owner's release notifier. */
void gpuprobe_compat_set_listener(struct sock *sk, u32 portid, struct net *net)
{
	struct sock *old;

	if (sk)
		sock_hold(sk);
	spin_lock_bh(&gpuprobe_listener_lock);
	old = gpuprobe_listener_sk;
	gpuprobe_listener_sk = sk;
	gpuprobe_listener_portid = portid;
	gpuprobe_listener_net = net;
	spin_unlock_bh(&gpuprobe_listener_lock);
	if (old)
		sock_put(old);
}

/*
 * A reference to the socket's file, or NULL once its last close began.
 * While it is held the socket cannot be released, so its port id still
 * names it.  sock_orphan() clears sk_socket under sk_callback_lock, after
 * the release that follows the file's last reference, so under that lock
 * a socket still there has a file that is not yet freed: it is live if
 * its count is not 0.  (This path builds only for kernels without
 * GENL_MCAST_CAP_SYS_ADMIN, before 6.8, where the count is f_count.)
 */
static struct file *gpuprobe_listener_file(struct sock *sk)
{
	struct file *file = NULL;

	read_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_socket && sk->sk_socket->file &&
	    atomic_long_inc_not_zero(&sk->sk_socket->file->f_count))
		file = sk->sk_socket->file;
	read_unlock_bh(&sk->sk_callback_lock);
	return file;
}

int gpuprobe_compat_send(const struct genl_family *family, struct sk_buff *msg)
{
	struct file *file = NULL;
	struct net *net;
	struct sock *sk;
	u32 portid;
	int err;

	spin_lock_bh(&gpuprobe_listener_lock);
	sk = gpuprobe_listener_sk;
	portid = gpuprobe_listener_portid;
	net = gpuprobe_listener_net;
	if (sk)
		sock_hold(sk);
	spin_unlock_bh(&gpuprobe_listener_lock);
	if (sk)
		file = gpuprobe_listener_file(sk);
	if (!file) {
		nlmsg_free(msg);
		err = -ESRCH;
		goto out;
	}
	err = genlmsg_unicast(net, msg, portid);
	fput(file);
out:
	if (sk)
		sock_put(sk);
	return err;
}

#endif
