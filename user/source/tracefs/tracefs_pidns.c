// SPDX-License-Identifier: GPL-2.0
/*
 * The tracefs source in a pid namespace of its own: a container with the
 * host's tracefs mounted in.  Events carry the kernel's pids (the initial
 * namespace's, task->pid) and set_event_pid takes them, while getpid() and
 * the workload's fork() give the container's.  One event tells both: a
 * SIGWINCH sent to a task that ignores it (the default action) is traced
 * by signal:signal_generate, from the sender's kernel pid (common_pid) to
 * the target's (pid=), and does nothing else.  Sent to this process and
 * to the workload, waiting for its go byte (its handlers are the defaults,
 * workload.c), in a scratch instance of its own, read back as text.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "tracefs_source.h"
#include "util.h"

/* PROC_PID_INIT_INO: the initial pid namespace's inode number */
#define INIT_PIDNS_LINK		"pid:[4026531836]"
#define PROBE_SIGNAL		SIGWINCH

bool tracefs_own_pidns(void)
{
	char link[64];
	ssize_t n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);

	if (n <= 0)
		return false;	/* no /proc: nothing says it is a container's */
	link[n] = '\0';
	return strcmp(link, INIT_PIDNS_LINK) != 0;
}

/*
 * The next "signal_generate: sig=N" line of the instance's text from *pos:
 * its sender's kernel pid (the "comm-PID" before the CPU) and its target's.
 */
static bool next_signal_line(const char **pos, long *sender, long *target)
{
	char needle[48];
	const char *hit, *line, *p, *dash = NULL;

	snprintf(needle, sizeof(needle), "signal_generate: sig=%d ", PROBE_SIGNAL);
	hit = strstr(*pos, needle);
	if (!hit)
		return false;
	for (line = hit; line > *pos && line[-1] != '\n'; line--)
		;
	*pos = hit + strlen(needle);
	while (*line == ' ')
		line++;
	for (p = line; *p && *p != ' ' && *p != '\n'; p++)
		if (*p == '-')
			dash = p;
	p = strstr(hit, " pid=");
	if (!dash || !p)
		return false;
	*sender = strtol(dash + 1, NULL, 10);
	*target = strtol(p + 5, NULL, 10);
	return *sender > 0 && *target > 0;
}

int tracefs_kernel_pids(pid_t workload, pid_t *self, pid_t *kworkload, char *err, size_t errlen)
{
	char name[64], filter[32];
	struct tracefs_instance *inst;
	const char *pos;
	long s1 = 0, t1 = 0, s2 = 0, t2 = 0;
	bool got;
	char *text;

	snprintf(name, sizeof(name), "gpuprobe-pidns-%d-%ld", (int)getpid(), (long)mono_now_ns());
	inst = tracefs_instance_create(name);
	snprintf(filter, sizeof(filter), "sig == %d", PROBE_SIGNAL);
	if (!inst || tracefs_event_file_write(inst, "signal", "signal_generate", "filter", filter) < 0 ||
	    tracefs_event_enable(inst, "signal", "signal_generate") < 0 ||
	    tracefs_trace_on(inst) < 0) {
		snprintf(err, errlen, "cannot trace signal:signal_generate in a scratch instance (%s): the kernel's pids of this pid namespace's tasks are not known",
			 strerror(errno));
		goto err_destroy;
	}
	kill(getpid(), PROBE_SIGNAL);
	if (workload > 0)
		kill(workload, PROBE_SIGNAL);
	tracefs_trace_off(inst);
	text = tracefs_instance_file_read(inst, "trace", NULL);
	pos = text ? text : "";
	got = next_signal_line(&pos, &s1, &t1) && s1 == t1 &&
	      (workload <= 0 || (next_signal_line(&pos, &s2, &t2) && s2 == s1));
	free(text);
	if (!got) {
		snprintf(err, errlen, "the scratch instance %s did not trace the %s signal_generate events: the kernel's pids of this pid namespace's tasks are not known",
			 name, workload > 0 ? "two" : "one");
		goto err_destroy;
	}
	*self = (pid_t)s1;
	*kworkload = workload > 0 ? (pid_t)t2 : 0;
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	return 0;

err_destroy:
	if (inst) {
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
	}
	return -1;
}

uint32_t tracefs_local_pid(const struct tracefs_source *ts, uint32_t kpid)
{
	if (!ts->own_pidns || !kpid)
		return kpid;
	if (kpid == (uint32_t)ts->kpid_workload)
		return (uint32_t)ts->cfg->workload_pid;
	if (kpid == (uint32_t)ts->kpid_self)
		return (uint32_t)getpid();
	return kpid;
}
