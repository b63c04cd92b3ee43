// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: following a cgroup (v2) for the wake-ups and the attribution,
 * as perf -G does: every task whose default-hierarchy cgroup is the one
 * followed or below it, whatever pid namespace it is in, counts as the
 * workload's.  Membership is read at each event, so a task forked in the
 * cgroup or moved into it is followed from then on, one moved out no more.
 *
 * One cgroup at a time, by its id (the inode number of its directory), as
 * the caller's cgroup namespace names it: cgroup_get_from_id() answers
 * -ENOENT for one outside it.  The reference keeps the struct (not the
 * directory) while it is followed; the probes read the pointer under the
 * tracepoints' RCU, so a change waits a grace period before the put.
 */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

#include "gpuprobe.h"

#ifdef CONFIG_CGROUPS
static struct cgroup __rcu *gpuprobe_followed_cgroup;

/* Probe context (RCU-sched): is t in the followed cgroup or below it? */
bool gpuprobe_cgroup_watched(struct task_struct *t)
{
	struct cgroup *followed = rcu_dereference_sched(gpuprobe_followed_cgroup);

	return followed && cgroup_is_descendant(task_dfl_cgroup(t), followed);
}

bool gpuprobe_cgroup_following(void)
{
	return rcu_access_pointer(gpuprobe_followed_cgroup);
}

/* Under gpuprobe_lock. */
int gpuprobe_cgroup_follow(u64 id)
{
	struct cgroup *cgrp;

	lockdep_assert_held(&gpuprobe_lock);
	if (rcu_access_pointer(gpuprobe_followed_cgroup))
		return -EEXIST;
	cgrp = cgroup_get_from_id(id);
	if (IS_ERR_OR_NULL(cgrp))
		return -ESRCH;
	rcu_assign_pointer(gpuprobe_followed_cgroup, cgrp);
	return 0;
}

/* Under gpuprobe_lock; id 0: whichever is followed. */
int gpuprobe_cgroup_unfollow(u64 id)
{
	struct cgroup *cgrp = rcu_dereference_protected(gpuprobe_followed_cgroup,
							lockdep_is_held(&gpuprobe_lock));

	if (!cgrp || (id && cgroup_id(cgrp) != id))
		return -ENOENT;
	RCU_INIT_POINTER(gpuprobe_followed_cgroup, NULL);
	synchronize_rcu();	/* no probe reads it now */
	cgroup_put(cgrp);
	return 0;
}
#else
/* A kernel without cgroups (allnoconfig-based ones): nothing to follow. */
bool gpuprobe_cgroup_watched(struct task_struct *t)
{
	return false;
}

bool gpuprobe_cgroup_following(void)
{
	return false;
}

int gpuprobe_cgroup_follow(u64 id)
{
	return -EOPNOTSUPP;
}

int gpuprobe_cgroup_unfollow(u64 id)
{
	return -ENOENT;
}
#endif
