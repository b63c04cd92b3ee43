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
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <tracefs.h>

#include "pidns_parse.h"
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
 * The probe signal, queued with a nonce in si_errno: signal_generate
 * records si_errno as errno= (TP_STORE_SIGINFO), so a SIGWINCH that any
 * other task on the host sends meanwhile (a terminal resize, another
 * container's recorder) is told from ours and skipped.
 */
static int send_probe(pid_t pid, int nonce)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = PROBE_SIGNAL;
	si.si_code = SI_QUEUE;
	si.si_errno = nonce;
	si.si_pid = getpid();
	si.si_uid = getuid();
	return (int)syscall(SYS_rt_sigqueueinfo, pid, PROBE_SIGNAL, &si);
}

static int probe_nonce(void)
{
	unsigned int v = 0;

	while (!v || v > INT32_MAX)
		if (getrandom(&v, sizeof(v), 0) != sizeof(v))
			v = (unsigned int)(mono_now_ns() ^ ((uint64_t)getpid() << 16)) & INT32_MAX;
	return (int)v;
}

int tracefs_kernel_pids(pid_t workload, bool workload_unstarted, pid_t *self, pid_t *kworkload,
			char *err, size_t errlen)
{
	char name[64], filter[64];
	struct tracefs_instance *inst;
	const char *pos;
	long s1 = 0, t1 = 0, s2 = 0, t2 = 0;
	int nonce = probe_nonce(), hold;
	bool got;
	char *text;

	/*
	 * Only a workload this process forked and that waits for its go byte
	 * (its handlers the defaults, workload.c) may be sent the probe: an
	 * already-running process (serve --pid) may act on SIGWINCH (httpd,
	 * nginx: a graceful stop), and its pid may have been reused.
	 */
	if (workload > 0 && !workload_unstarted) {
		snprintf(err, errlen, "--pid with the tracefs source in a pid namespace of its own: events and set_event_pid carry the kernel's pids, and an already-running process's is not known here (this /proc shows this namespace's); run it from the host, under record -- CMD, or use the module source");
		return -1;
	}
	/*
	 * "gpuprobe-<pid>-pidns-<nonce>": this namespace's pid, unique with the
	 * nonce; never another's (tracefs_instance_create opens an existing
	 * one).  A file of it held open: a sweep's rmdir gets EBUSY while this
	 * run lives (tracefs_remove_stale_instances).
	 */
	for (int tries = 0; tries < 8; tries++) {
		snprintf(name, sizeof(name), TRACEFS_PIDNS_PREFIX "%d-pidns-%d", (int)getpid(), nonce);
		inst = tracefs_instance_create(name);
		if (inst && !tracefs_instance_is_new(inst)) {
			tracefs_instance_free(inst);
			inst = NULL;
			errno = EEXIST;
		}
		if (!inst)
			break;
		hold = tracefs_instance_file_open(inst, "tracing_on", O_RDONLY);
		snprintf(filter, sizeof(filter), "sig == %d && errno == %d", PROBE_SIGNAL, nonce);
		if (hold >= 0 &&
		    tracefs_event_file_write(inst, "signal", "signal_generate", "filter", filter) >= 0 &&
		    tracefs_event_enable(inst, "signal", "signal_generate") >= 0 &&
		    tracefs_trace_on(inst) >= 0)
			break;
		/*
		 * Another run's sweep removed it before it was held, or (seen
		 * once with two containers starting at once, 2026-12-07) its
		 * event files were gone while it was being set up: anew.
		 * Any other refusal is the answer.
		 */
		if (hold < 0 || errno == ENOENT) {
			if (hold >= 0)
				close(hold);
			tracefs_instance_destroy(inst);
			tracefs_instance_free(inst);
			inst = NULL;
			errno = ENOENT;
			nonce = probe_nonce();
			continue;
		}
		goto err_setup;
	}
	if (!inst)
		goto err_setup;
	send_probe(getpid(), nonce);
	if (workload > 0)
		send_probe(workload, nonce);
	tracefs_trace_off(inst);
	text = tracefs_instance_file_read(inst, "trace", NULL);
	pos = text ? text : "";
	got = pidns_next_signal(&pos, PROBE_SIGNAL, nonce, &s1, &t1) && s1 == t1 &&
	      (workload <= 0 || (pidns_next_signal(&pos, PROBE_SIGNAL, nonce, &s2, &t2) && s2 == s1));
	free(text);
	if (!got) {
		snprintf(err, errlen, "the scratch instance %s did not trace the %s signal_generate events: the kernel's pids of this pid namespace's tasks are not known",
			 name, workload > 0 ? "two" : "one");
		goto err_destroy;
	}
	*self = (pid_t)s1;
	*kworkload = workload > 0 ? (pid_t)t2 : 0;
	close(hold);
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	return 0;

err_setup:
	snprintf(err, errlen, "cannot trace signal:signal_generate in a scratch instance (%s): the kernel's pids of this pid namespace's tasks are not known",
		 strerror(errno));
err_destroy:
	if (inst) {
		close(hold);
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
	}
	return -1;
}

uint32_t tracefs_local_pid(const struct tracefs_source *ts, uint32_t kpid)
{
	if (!ts->own_pidns)
		return kpid;
	return pidns_local_pid(kpid, (uint32_t)ts->kpid_self, (uint32_t)getpid(),
			       (uint32_t)ts->kpid_workload, (uint32_t)ts->cfg->workload_pid);
}
