/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest side of a host + guest recording: one authenticated session of
 * `gpuprobe-trace agent` (agent_session.c).  The guest's recording is this
 * very tool's `record -o -` run as a child, so the guest records exactly as
 * a `record` there would; its trace bytes go to the host as DATA.
 */
#ifndef GPUPROBE_REMOTE_AGENT_H
#define GPUPROBE_REMOTE_AGENT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct agent_options {
	const char *listen;
	char token[256];
	int timeout_ms;
	bool once;
	bool quiet;
	char self_exe[4096];	/* this binary, for the record child */
	/*
	 * tests: the clock the agent reports is m + offset + drift * m, m its
	 * CLOCK_MONOTONIC: on one machine, the truth at host time h is
	 * offset + drift * h
	 */
	int64_t test_offset_ns;
	int64_t test_drift_ppb;
};

/* SIGINT/SIGTERM: end the session in progress (its recording stops cleanly), then exit. */
extern volatile sig_atomic_t agent_exiting;

/* Serve one connection (fd); 0 when the session ran to its end, -1 when refused or cut. */
int agent_session(int fd, const char *peer, const struct agent_options *o);

#endif /* GPUPROBE_REMOTE_AGENT_H */
