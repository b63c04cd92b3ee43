// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: starting and stopping a capture session.
 *
 * START allocates the rings, attaches the probes and starts the drain and
 * rescan work; STOP undoes it in reverse, waiting for every probe to finish
 * before the rings go and sending what they still hold.  Module exit stops a
 * running session the same way.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/workqueue.h>

#include "gpuprobe.h"

bool gpuprobe_running;
static bool gpuprobe_dying;

/* Vectors re-read this often while running (see gpuprobe_targets_rescan). */
#define GPUPROBE_RESCAN_MS	500

static void gpuprobe_rescan_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(gpuprobe_rescan_work, gpuprobe_rescan_fn);
static bool gpuprobe_rescanning;

static void gpuprobe_rescan_fn(struct work_struct *work)
{
	gpuprobe_targets_rescan();
	if (READ_ONCE(gpuprobe_rescanning))
		queue_delayed_work(system_unbound_wq, &gpuprobe_rescan_work,
				   msecs_to_jiffies(GPUPROBE_RESCAN_MS));
}

int gpuprobe_start(u32 mask, bool summary, struct netlink_ext_ack *extack)
{
	int err;

	lockdep_assert_held(&gpuprobe_lock);
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
	err = gpuprobe_hooks_attach(mask, summary);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "cannot attach to the tracepoints");
		goto err_free_rings;
	}
	gpuprobe_running = true;
	gpuprobe_drain_start();
	WRITE_ONCE(gpuprobe_rescanning, true);
	queue_delayed_work(system_unbound_wq, &gpuprobe_rescan_work,
			   msecs_to_jiffies(GPUPROBE_RESCAN_MS));
	return 0;

err_free_rings:
	gpuprobe_rings_free();
	return err;
}

/* Caller holds gpuprobe_lock. */
int gpuprobe_stop(void)
{
	lockdep_assert_held(&gpuprobe_lock);
	if (!gpuprobe_running)
		return -EALREADY;

	gpuprobe_hooks_detach();
	/* the rescan work takes gpuprobe_lock: stop it without waiting here */
	WRITE_ONCE(gpuprobe_rescanning, false);
	gpuprobe_drain_stop();
	gpuprobe_running = false;
	gpuprobe_rings_free();
	gpuprobe_tgid_clear();
	return 0;
}

/* Module exit: refuse new sessions, end the current one, wait for work. */
void gpuprobe_shutdown(void)
{
	mutex_lock(&gpuprobe_lock);
	gpuprobe_dying = true;
	gpuprobe_stop();
	/* SUMMARY_GET may still run until the family is unregistered */
	gpuprobe_hooks_free_summary();
	mutex_unlock(&gpuprobe_lock);
	WRITE_ONCE(gpuprobe_rescanning, false);
	cancel_delayed_work_sync(&gpuprobe_rescan_work);
}
