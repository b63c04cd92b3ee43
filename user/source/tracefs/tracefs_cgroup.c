// SPDX-License-Identifier: GPL-2.0
/*
 * --cgroup for the tracefs source.  Event filters have no cgroup field, so
 * the sched instance's set_event_pid gets the pids of the cgroup's
 * cgroup.procs (and of every cgroup below it), read again every
 * CGROUP_REFRESH_MS while recording; event-fork adds their forks at once.
 * So a process moved into the cgroup is followed from the next read (up to
 * that long late), and one moved out stays followed until it exits (the
 * kernel drops exited pids from the list).  The module source checks
 * membership at each event instead (kmod/cgroup_follow.c).
 *
 * The pids are those of the reader's pid namespace: from the host, the
 * kernel's, which is what set_event_pid takes.  The sched instance stays
 * off while the cgroup is empty: an empty set_event_pid filters nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "tracefs_source.h"
#include "util.h"

#define CGROUP_REFRESH_MS	100
#define CGROUP_MAX_DEPTH	32

bool tracefs_pids_known(const struct cgroup_pids *c, pid_t pid)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->pid[i] == pid)
			return true;
	return false;
}

int tracefs_pids_add(struct cgroup_pids *c, pid_t pid)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		pid_t *p = realloc(c->pid, cap * sizeof(*p));

		if (!p)
			return -1;
		c->pid = p;
		c->cap = cap;
	}
	c->pid[c->n++] = pid;
	return 0;
}

/* The new pids of dir and below, into c and, as text, into *list. */
static void read_dir(struct cgroup_pids *c, const char *dir, int depth, char **list,
		     size_t *len, size_t *size)
{
	char path[4096];
	struct dirent *d;
	FILE *f;
	DIR *dd;
	int pid;

	/* every thread: set_event_pid filters by thread id (task->pid) */
	snprintf(path, sizeof(path), "%s/cgroup.threads", dir);
	f = fopen(path, "r");
	while (f && fscanf(f, "%d", &pid) == 1) {
		if (pid <= 0 || tracefs_pids_known(c, pid) || tracefs_pids_add(c, pid))
			continue;
		if (*len + 16 > *size) {
			char *l = realloc(*list, *size ? 2 * *size : 1024);

			if (!l)
				break;
			*list = l;
			*size = *size ? 2 * *size : 1024;
		}
		*len += (size_t)snprintf(*list + *len, *size - *len, "%s%d", *len ? " " : "", pid);
	}
	if (f)
		fclose(f);
	if (depth >= CGROUP_MAX_DEPTH || !(dd = opendir(dir)))
		return;
	while ((d = readdir(dd)))
		if (d->d_type == DT_DIR && d->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
			read_dir(c, path, depth + 1, list, len, size);
		}
	closedir(dd);
}

/*
 * Read the cgroup again and give set_event_pid what is new; the first time
 * (c->n == 0) it replaces the list.  -1 when tracefs refuses.
 */
int tracefs_cgroup_refresh(struct tracefs_source *ts, bool force)
{
	struct cgroup_pids *c = &ts->cg;
	uint64_t now = mono_now_ns();
	size_t len = 0, size = 0, before = c->n;
	char *list = NULL;
	int err = 0;

	if (!ts->cfg->cgroup_dir || !ts->sched.instance ||
	    (!force && now - c->last_ns < CGROUP_REFRESH_MS * 1000000ull))
		return 0;
	c->last_ns = now;
	read_dir(c, ts->cfg->cgroup_dir, 0, &list, &len, &size);
	if (len) {
		err = before ? tracefs_instance_file_append(ts->sched.instance, "set_event_pid", list)
			     : tracefs_instance_file_write(ts->sched.instance, "set_event_pid", list);
		if (err < 0)
			warnf("tracefs refused pids %s of cgroup %s in set_event_pid: their wake-ups are not recorded",
			      list, ts->cfg->cgroup_dir);
		else if (!before && c->tracing && tracefs_trace_on(ts->sched.instance) < 0)
			warnf("cannot switch tracing on in %s: no scheduler events", ts->sched.name);
	}
	free(list);
	return err < 0 ? -1 : 0;
}

/* `-- CMD` with --cgroup: its pid is in set_event_pid already. */
int tracefs_cgroup_add_workload(struct tracefs_source *ts)
{
	return tracefs_pids_add(&ts->cg, ts->cfg->workload_pid);
}

/*
 * A wake-up's task: the cgroup's?  ftrace records a wake-up when the
 * waker is in set_event_pid too (a timer of a stranger's firing on top of
 * a followed task), which the module does not: kept only when the woken
 * task's process is in the cgroup (read again, at most every 100 ms, when
 * it is not known yet: a fork of a second ago), or gone by now (ftrace
 * had it; nothing tells whose it was).
 */
bool tracefs_cgroup_wakee(struct tracefs_source *ts, uint32_t tid)
{
	uint32_t tgid;

	if (tracefs_pids_known(&ts->cg, (pid_t)tid))
		return true;
	tgid = tgid_of(&ts->tgids, tid);
	if (!tgid || tracefs_pids_known(&ts->cg, (pid_t)tgid))
		return true;
	tracefs_cgroup_refresh(ts, false);
	return tracefs_pids_known(&ts->cg, (pid_t)tgid);
}

/* A pid seen in the cgroup (KVM injections of its VMMs). */
bool tracefs_cgroup_knows(const struct tracefs_source *ts, pid_t pid)
{
	return tracefs_pids_known(&ts->cg, pid);
}

void tracefs_cgroup_free(struct tracefs_source *ts)
{
	free(ts->cg.pid);
	ts->cg = (struct cgroup_pids){ 0 };
}
