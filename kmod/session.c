// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: starting and stopping a capture session.
 *
 * START allocates the rings, attaches the probes and starts the drain and
 * rescan work; STOP undoes it in reverse, waiting for every probe to finish
 * before the rings go and sending what they still hold.  Module exit stops a
 * running session the same way.
 *
 * The socket that sent START owns the session, as nl80211's SOCKET_OWNER
 * does: when it closes (or its process dies) the session stops.  Without a
 * privileged events group (compat.h) records are unicast to that socket,
 * never to whoever holds its port id after it (compat.c).
 *
 * Pids in records are those of the owner's pid namespace (0 for a task it
 * cannot see), taken when the record is written: a number read later might
 * by then name another process.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include "compat.h"
#include "gpuprobe.h"

bool gpuprobe_running;
static bool gpuprobe_dying;
/* A STOP waits for grace periods without gpuprobe_lock; under the lock. */
static bool gpuprobe_stopping;
static DECLARE_WAIT_QUEUE_HEAD(gpuprobe_stop_wq);

/*
 * Vectors re-read this often while running (see gpuprobe_targets_rescan),
 * and at once when a target's vectors change (vectors.c); a rescan that
 * had to skip a busy device tries again after the short delay.
 */
#define GPUPROBE_RESCAN_MS	500
#define GPUPROBE_RESCAN_RETRY_MS	10

static void gpuprobe_rescan_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(gpuprobe_rescan_work, gpuprobe_rescan_fn);
static bool gpuprobe_rescanning;

/*
 * The owner: written under gpuprobe_lock, read by the netlink notifier.
 * A session's number lets the stop work tell its session from a later one.
 */
static u32 gpuprobe_owner_portid;
static struct net *gpuprobe_owner_net;
static u32 gpuprobe_session_seq;
static u32 gpuprobe_orphaned_seq;

/*
 * The owner's pid namespace, referenced, or NULL for the initial one: set
 * before the probes attach, put after they detached (and finished).
 */
static struct pid_namespace *gpuprobe_owner_pidns;

static void gpuprobe_orphan_fn(struct work_struct *work);
static DECLARE_WORK(gpuprobe_orphan_work, gpuprobe_orphan_fn);

static void gpuprobe_rescan_fn(struct work_struct *work)
{
	unsigned int ms = gpuprobe_vectors_resolve() ? GPUPROBE_RESCAN_MS :
			  GPUPROBE_RESCAN_RETRY_MS;

	/* a rescan asked for meanwhile is already queued, and sooner */
	if (READ_ONCE(gpuprobe_rescanning))
		queue_delayed_work(system_unbound_wq, &gpuprobe_rescan_work,
				   msecs_to_jiffies(ms));
}

/*
 * From the vector kprobes (any context): the rescan runs now.  Only while
 * a session runs; STOP detaches the kprobes before it cancels the work.
 */
void gpuprobe_rescan_now(void)
{
	if (READ_ONCE(gpuprobe_rescanning))
		mod_delayed_work(system_unbound_wq, &gpuprobe_rescan_work, 0);
}

/*
 * The owner's fields change together: START/STOP under gpuprobe_lock, the
 * notifier (which may not take that mutex) under this spinlock too, so a
 * close racing a STOP and a new START never orphans the new session.
 */
static DEFINE_SPINLOCK(gpuprobe_owner_lock);

static void gpuprobe_set_owner(struct sock *sk, u32 portid, struct net *net)
{
	spin_lock_bh(&gpuprobe_owner_lock);
	WRITE_ONCE(gpuprobe_owner_net, net);
	WRITE_ONCE(gpuprobe_owner_portid, portid);
	gpuprobe_compat_set_listener(sk, portid, net);
	spin_unlock_bh(&gpuprobe_owner_lock);
}

/* Probe context: t's ids as the owner sees them. */
u32 gpuprobe_view_tgid(struct task_struct *t)
{
	struct pid_namespace *ns = READ_ONCE(gpuprobe_owner_pidns);

	return ns ? task_tgid_nr_ns(t, ns) : t->tgid;
}

u32 gpuprobe_view_pid(struct task_struct *t)
{
	struct pid_namespace *ns = READ_ONCE(gpuprobe_owner_pidns);

	return ns ? task_pid_nr_ns(t, ns) : t->pid;
}

static void gpuprobe_set_pidns(struct pid_namespace *ns)
{
	struct pid_namespace *old = gpuprobe_owner_pidns;

	WRITE_ONCE(gpuprobe_owner_pidns,
		   ns && ns != &init_pid_ns ? get_pid_ns(ns) : NULL);
	if (old)
		put_pid_ns(old);
}

/* The caller holds gpuprobe_lock and runs in the owner's context (START). */
int gpuprobe_start(u32 mask, bool summary, struct sock *owner_sk,
		   u32 owner_portid, struct net *owner_net,
		   struct netlink_ext_ack *extack)
{
	int err;

	lockdep_assert_held(&gpuprobe_lock);
	/* a STOP detaching without the lock: its session ends, wait for it */
	while (gpuprobe_stopping) {
		mutex_unlock(&gpuprobe_lock);
		wait_event(gpuprobe_stop_wq, !READ_ONCE(gpuprobe_stopping));
		mutex_lock(&gpuprobe_lock);
	}
	if (gpuprobe_dying)
		return -ESHUTDOWN;
	if (gpuprobe_running) {
		NL_SET_ERR_MSG_MOD(extack, "already started: STOP first");
		return -EBUSY;
	}
	if (list_empty(&gpuprobe_targets) &&
	    (mask & GPUPROBE_EVMASK(GPUPROBE_EV_IRQ))) {
		NL_SET_ERR_MSG_MOD(extack,
				   "no targets: add one with TARGET_ADD or load with target=BDF");
		return -ENODEV;
	}

	err = gpuprobe_rings_alloc();
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "out of memory for the record buffers");
		return err;
	}
	gpuprobe_stats_reset();
	gpuprobe_set_pidns(task_active_pid_ns(current));
	err = gpuprobe_hooks_attach(mask, summary);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "cannot attach to the tracepoints");
		goto err_free_rings;
	}
	/* before the first drain: nothing may go to a previous owner */
	spin_lock_bh(&gpuprobe_owner_lock);
	gpuprobe_session_seq++;
	spin_unlock_bh(&gpuprobe_owner_lock);
	gpuprobe_set_owner(owner_sk, owner_portid, owner_net);
	gpuprobe_running = true;
	gpuprobe_targets_emit_domains(mask);
	gpuprobe_drain_start();
	WRITE_ONCE(gpuprobe_rescanning, true);
	/* now: what changed while no session ran (vectors_attach) */
	queue_delayed_work(system_unbound_wq, &gpuprobe_rescan_work, 0);
	return 0;

err_free_rings:
	gpuprobe_set_pidns(NULL);
	gpuprobe_rings_free();
	return err;
}

/*
 * Caller holds gpuprobe_lock, which is dropped while the probes go: their
 * grace periods (one per kprobe table, the tracepoints', RCU's; seconds
 * on a loaded or debug kernel) would stall every bind of a target in the
 * bus notifier.  Meanwhile START and another STOP wait for this one, and
 * the notifier's target records still go to the rings, which stay until
 * the lock is taken again.  A STOP that waited finds its session stopped
 * (-EALREADY): whatever runs once it has the lock again is a newer
 * session, started in between, which is not the caller's to stop.
 */
int gpuprobe_stop(void)
{
	bool waited = false;

	lockdep_assert_held(&gpuprobe_lock);
	while (gpuprobe_stopping) {
		waited = true;
		mutex_unlock(&gpuprobe_lock);
		wait_event(gpuprobe_stop_wq, !READ_ONCE(gpuprobe_stopping));
		mutex_lock(&gpuprobe_lock);
	}
	if (waited || !gpuprobe_running)
		return -EALREADY;

	gpuprobe_stopping = true;
	mutex_unlock(&gpuprobe_lock);
	gpuprobe_hooks_detach();
	/*
	 * The rescan work takes gpuprobe_lock: stop it without waiting here.
	 * A pending one goes now, not up to 500 ms into the next session
	 * (the vectors of every target re-read for nobody); a running one
	 * sees the flag and does not queue itself again.
	 */
	WRITE_ONCE(gpuprobe_rescanning, false);
	cancel_delayed_work(&gpuprobe_rescan_work);
	mutex_lock(&gpuprobe_lock);
	/* the last records still go to the owner, if it is there */
	gpuprobe_drain_stop();
	gpuprobe_set_owner(NULL, 0, NULL);
	/* the probes that read it are gone (detached and waited for) */
	gpuprobe_set_pidns(NULL);
	gpuprobe_running = false;
	gpuprobe_rings_free();
	gpuprobe_tgid_clear();
	gpuprobe_cgroup_unfollow(0);
	WRITE_ONCE(gpuprobe_stopping, false);
	wake_up_all(&gpuprobe_stop_wq);
	return 0;
}

/* The owner's socket closed: stop the session it started, if still on. */
static void gpuprobe_orphan_fn(struct work_struct *work)
{
	mutex_lock(&gpuprobe_lock);
	if (gpuprobe_running &&
	    READ_ONCE(gpuprobe_orphaned_seq) == gpuprobe_session_seq) {
		pr_info("the socket that started the session closed: stopping\n");
		gpuprobe_stop();
	}
	mutex_unlock(&gpuprobe_lock);
}

/*
 * Called for every netlink socket released; may not take gpuprobe_lock
 * (a STOP in progress holds it while it waits for grace periods).
 */
static int gpuprobe_netlink_notify(struct notifier_block *nb,
				   unsigned long event, void *ptr)
{
	struct netlink_notify *n = ptr;
	bool owner;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;
	spin_lock_bh(&gpuprobe_owner_lock);
	owner = gpuprobe_owner_portid && n->portid == gpuprobe_owner_portid &&
		net_eq(n->net, gpuprobe_owner_net);
	if (owner) {
		/* from now on, records go nowhere */
		gpuprobe_compat_set_listener(NULL, 0, NULL);
		WRITE_ONCE(gpuprobe_owner_portid, 0);
		/* the session this owner started, matched under the lock */
		WRITE_ONCE(gpuprobe_orphaned_seq, gpuprobe_session_seq);
	}
	spin_unlock_bh(&gpuprobe_owner_lock);
	if (!owner)
		return NOTIFY_DONE;
	queue_work(system_unbound_wq, &gpuprobe_orphan_work);
	return NOTIFY_OK;
}

static struct notifier_block gpuprobe_netlink_nb = {
	.notifier_call = gpuprobe_netlink_notify,
};

int gpuprobe_session_init(void)
{
	return netlink_register_notifier(&gpuprobe_netlink_nb);
}

/* Module exit: refuse new sessions, end the current one, wait for work. */
void gpuprobe_shutdown(void)
{
	netlink_unregister_notifier(&gpuprobe_netlink_nb);
	cancel_work_sync(&gpuprobe_orphan_work);
	mutex_lock(&gpuprobe_lock);
	gpuprobe_dying = true;
	gpuprobe_stop();
	/* one followed before any START: its reference */
	gpuprobe_cgroup_unfollow(0);
	/* SUMMARY_GET may still run until the family is unregistered */
	gpuprobe_hooks_free_summary();
	mutex_unlock(&gpuprobe_lock);
	WRITE_ONCE(gpuprobe_rescanning, false);
	cancel_delayed_work_sync(&gpuprobe_rescan_work);
}
