/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CUDA/OpenCL application tracing for `record -- CMD`: the environment that
 * loads inject/'s libraries into the workload, and the merge of the events
 * they wrote into the trace file once the workload has exited.
 */
#ifndef GPUPROBE_APPINJECT_H
#define GPUPROBE_APPINJECT_H

#include <stdbool.h>
#include <stdint.h>

#include "tracefile.h"

struct app_inject {
	bool active;
	char events_path[256];		/* GPUPROBE_APP_EVENTS */
};

/*
 * Set the environment the workload will inherit.  inject_dir: --inject-dir,
 * else $GPUPROBE_INJECT_DIR, else next to the binary (and ../inject).
 * Never fails the recording: what cannot be set up is said on stderr.
 */
void app_inject_setup(struct app_inject *ai, const char *inject_dir, bool quiet);
/* Remove the events file unread (the recording failed). */
void app_inject_discard(struct app_inject *ai);
/* Append the workload's events to w; returns how many were merged. */
uint64_t app_inject_merge(struct app_inject *ai, struct trace_writer *w, bool quiet);

#endif /* GPUPROBE_APPINJECT_H */
