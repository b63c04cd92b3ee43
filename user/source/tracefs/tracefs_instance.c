// SPDX-License-Identifier: GPL-2.0
/*
 * The tracefs source's private instances, never the shared top-level
 * buffer: "gpuprobe-<pid>" for the device events and "gpuprobe-<pid>-sched"
 * for the workload's scheduler events.  Each on trace_clock mono, dropping
 * (and counting) new events when full rather than overwriting unread ones,
 * off until start.  Instances of runs killed with SIGKILL are removed by
 * the next run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "tracefs_source.h"
#include "util.h"

#define INSTANCE_PREFIX		"gpuprobe-"
#define SCHED_SUFFIX		"-sched"
#define PIDNS_SUFFIX		"-pidns-"
#define SCHED_BUFFER_KB		2048
#define BUFFER_KB_PER_CPU	8192

/*
 * Instances of gpuprobe-trace runs that were killed with SIGKILL.  Their
 * names are kernel pids, which only the initial pid namespace can look up:
 * in a container, another's live run would look gone, so none is removed
 * there.  The scratch instances of a run in a pid namespace of its own
 * ("gpuprobe-<pid>-pidns-<nonce>", tracefs_pidns.c) are named by that
 * namespace's pid, and a live one holds a file of its own open, so the
 * kernel refuses to remove it (EBUSY): every one is tried, here or there.
 */
void tracefs_remove_stale_instances(void)
{
	bool own_pidns = tracefs_own_pidns();
	/* libtracefs compiles a basic regex: no +, no groups */
	char **names = tracefs_instances("^" INSTANCE_PREFIX "[0-9][0-9]*");

	for (char **n = names; n && *n; n++) {
		char *end;
		long pid = strtol(*n + strlen(INSTANCE_PREFIX), &end, 10);
		bool scratch = !strncmp(end, PIDNS_SUFFIX, strlen(PIDNS_SUFFIX));
		struct tracefs_instance *old;

		if (!scratch && (own_pidns || (*end && strcmp(end, SCHED_SUFFIX)) || !pid_gone(pid)))
			continue;
		old = tracefs_instance_alloc(NULL, *n);
		if (old && tracefs_instance_destroy(old) == 0)
			warnf("removed tracefs instance %s left by a killed run", *n);
		tracefs_instance_free(old);
	}
	tracefs_list_free(names);
}

/* Named by the kernel's pid of this process: unique across pid namespaces. */
static int create_instance(struct instance_handle *h, pid_t kpid, const char *suffix,
			   int buffer_kb, char *err, size_t errlen)
{
	snprintf(h->name, sizeof(h->name), INSTANCE_PREFIX "%d%s", (int)kpid, suffix);
	h->instance = tracefs_instance_create(h->name);
	/*
	 * One there already is a killed run's: no live process but this one
	 * has this kernel pid (in a container the sweep leaves such ones
	 * alone).  Removed and made anew, never shared.
	 */
	if (h->instance && !tracefs_instance_is_new(h->instance)) {
		if (tracefs_instance_destroy(h->instance) == 0)
			warnf("removed tracefs instance %s left by a killed run", h->name);
		tracefs_instance_free(h->instance);
		h->instance = tracefs_instance_create(h->name);
		if (h->instance && !tracefs_instance_is_new(h->instance)) {
			tracefs_instance_free(h->instance);
			h->instance = NULL;
			errno = EEXIST;
		}
	}
	if (!h->instance) {
		snprintf(err, errlen, "cannot create tracefs instance %s: %s (needs root)",
			 h->name, strerror(errno));
		return -1;
	}
	/* A new instance traces at once: keep it off until start. */
	tracefs_trace_off(h->instance);
	if (tracefs_instance_file_write(h->instance, "trace_clock", "mono") < 0) {
		snprintf(err, errlen, "tracefs refused trace_clock mono: this kernel cannot timestamp on CLOCK_MONOTONIC");
		return -1;
	}
	/* Drop new events when full rather than overwrite unread ones; both are counted. */
	tracefs_option_disable(h->instance, TRACEFS_OPTION_OVERWRITE);
	if (tracefs_instance_set_buffer_size(h->instance, buffer_kb, -1) < 0)
		warnf("cannot grow the %s buffer to %d KiB per CPU: drops more likely",
		      h->name, buffer_kb);
	return 0;
}

void tracefs_destroy_instance(struct instance_handle *h)
{
	if (!h->instance)
		return;
	tracefs_trace_off(h->instance);
	if (tracefs_instance_destroy(h->instance) < 0)
		warnf("could not remove tracefs instance %s: rmdir %s/instances/%s",
		      h->name, tracefs_tracing_dir(), h->name);
	tracefs_instance_free(h->instance);
	h->instance = NULL;
}

/*
 * The sched instance records only the workload's tasks, children included,
 * and with --cgroup the cgroup's (tracefs_cgroup.c).
 */
void tracefs_create_sched_instance(struct tracefs_source *ts)
{
	uint32_t sched_mask = GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP) |
			      GPUPROBE_EVMASK(GPUPROBE_EV_SWITCH);
	bool workload = ts->cfg->workload_pid > 0;
	char err[256] = "", pid[16];

	if ((!workload && !ts->cfg->cgroup_dir) || !(ts->cfg->event_mask & sched_mask))
		return;
	/* the kernel's pid, which set_event_pid compares with task->pid */
	snprintf(pid, sizeof(pid), "%d", (int)ts->kpid_workload);
	if (create_instance(&ts->sched, ts->kpid_self, SCHED_SUFFIX, SCHED_BUFFER_KB, err, sizeof(err)) ||
	    (workload && tracefs_instance_file_write(ts->sched.instance, "set_event_pid", pid) < 0) ||
	    tracefs_option_enable(ts->sched.instance, TRACEFS_OPTION_EVENT_FORK) < 0 ||
	    (ts->cfg->cgroup_dir && workload && tracefs_cgroup_add_workload(ts)) ||
	    tracefs_cgroup_refresh(ts, true)) {
		warnf("no scheduler events for the %s: %s", workload ? "workload" : "cgroup",
		      err[0] ? err : "set_event_pid/event-fork refused");
		tracefs_destroy_instance(&ts->sched);
	} else if (!ts->cfg->cgroup_dir) {
		tracefs_follow_workload(ts, ts->kpid_workload);
	}
}

int tracefs_create_main_instance(struct tracefs_source *ts, char *err, size_t errlen)
{
	return create_instance(&ts->main, ts->kpid_self, "", BUFFER_KB_PER_CPU, err, errlen);
}

/* Tracing on; a sched instance that refuses costs only the scheduler events. */
int tracefs_instances_on(struct tracefs_source *ts, char *err, size_t errlen)
{
	ts->cg.tracing = true;
	/* an empty cgroup: on at its first pid (an empty set_event_pid filters nothing) */
	if (ts->sched.instance && (!ts->cfg->cgroup_dir || ts->cg.n) &&
	    tracefs_trace_on(ts->sched.instance) < 0)
		warnf("cannot switch tracing on in %s: no scheduler events", ts->sched.name);
	if (tracefs_trace_on(ts->main.instance) < 0) {
		snprintf(err, errlen, "cannot switch tracing on in instance %s: %s",
			 ts->main.name, strerror(errno));
		return -1;
	}
	return 0;
}

int tracefs_instances_off(struct tracefs_source *ts)
{
	if (ts->sched.instance)
		tracefs_trace_off(ts->sched.instance);
	return tracefs_trace_off(ts->main.instance) < 0 ? -1 : 0;
}

#define FOLLOW_REREAD_MS	100

/* -- CMD (not --cgroup): the workload's kernel pid, set_event_pid's first. */
void tracefs_follow_workload(struct tracefs_source *ts, pid_t kpid)
{
	/* in a pid namespace of its own, /proc here cannot tell a kernel pid gone */
	if (ts->own_pidns || kpid <= 0 || ts->follow_on)
		return;
	if (!tracefs_pids_add(&ts->follow, kpid))
		ts->follow_on = true;
}

/* set_event_pid as the kernel keeps it: event-fork's children added, exited tasks gone. */
static void follow_reread(struct tracefs_source *ts)
{
	char *list = tracefs_instance_file_read(ts->sched.instance, "set_event_pid", NULL);
	char *p = list, *end;

	ts->follow.last_ns = mono_now_ns();
	if (!list)
		return;
	ts->follow.n = 0;
	for (;;) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0 && !tracefs_pids_known(&ts->follow, (pid_t)pid))
			tracefs_pids_add(&ts->follow, (pid_t)pid);
		p = end;
	}
	free(list);
}

/*
 * -- CMD: a wake-up's task, the workload's?  ftrace records a wake-up when
 * the waker is followed too (a kworker or ksoftirqd that a followed task
 * wakes, a handler's wake-up of one on top of it), which the module does
 * not: in a merged trace such a wake-up after a guest interrupt passed for
 * the workload's.  Kept when set_event_pid has the task (read again, at
 * most every FOLLOW_REREAD_MS, for one not there yet: a fork since), or
 * when it is gone by now (followed until its exit, or not: nothing tells).
 */
bool tracefs_workload_wakee(struct tracefs_source *ts, uint32_t ktid)
{
	char path[32];

	if (!ts->follow_on || tracefs_pids_known(&ts->follow, (pid_t)ktid))
		return true;
	if (ts->sched.instance &&
	    mono_now_ns() - ts->follow.last_ns >= FOLLOW_REREAD_MS * 1000000ull) {
		follow_reread(ts);
		if (tracefs_pids_known(&ts->follow, (pid_t)ktid))
			return true;
	}
	snprintf(path, sizeof(path), "/proc/%u", ktid);
	return access(path, F_OK) != 0;
}
