/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload (-- CMD ARGS): forked early but held at a pipe until tracing
 * is on, so its first interrupt is recorded; its exit status is passed on.
 */
#ifndef GPUPROBE_WORKLOAD_H
#define GPUPROBE_WORKLOAD_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct workload {
	pid_t pid;
	int go_fd;		/* write end: one byte lets the child exec */
	bool exited;
	int status;		/* waitpid status once exited */
};

/* stdout_to_stderr: the trace is written to stdout, keep the command's output out of it. */
int workload_spawn(struct workload *w, char *const argv[], bool stdout_to_stderr);
void workload_release(struct workload *w);
/* Reap without blocking; true once it has exited. */
bool workload_poll(struct workload *w);
/* Signal it, wait up to grace_ms, then SIGKILL; reaps it. */
/* Set (from a signal handler) to end workload_stop()'s grace period now. */
extern volatile sig_atomic_t workload_hurry;

void workload_stop(struct workload *w, int sig, int grace_ms);
/* Exit code to pass on: its status, or 128 + signal. */
int workload_exit_code(const struct workload *w);

#endif /* GPUPROBE_WORKLOAD_H */
